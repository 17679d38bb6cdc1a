// Package workload turns a trace named on the command line or in a config
// ("swf:path", "openb:path", a bare path whose name tells its format) and a
// cluster ("pool:100", "nodes:16x8:V100", "openb:nodes.csv", ...) into the
// jobs and cluster a simulation runs on.
package workload

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/wb-sim/wb/datasets"

	"github.com/wb-sim/wb/datasets/gavel"
	"github.com/wb-sim/wb/datasets/internal/gzfile"
	"github.com/wb-sim/wb/datasets/openb"
	"github.com/wb-sim/wb/datasets/pai"
	"github.com/wb-sim/wb/datasets/paisim"
	"github.com/wb-sim/wb/datasets/swf"
	"github.com/wb-sim/wb/internal/registry"
	"github.com/wb-sim/wb/scheduler"
)

// Options names a workload.
type Options struct {
	// Trace is "[format:]path". Without a format, the file name decides:
	// *.swf is swf, *openb_pod_list* openb, *.trace gavel, pai_job_table*
	// pai, pai_job_duration* and pai_sim_jobs* pai-sim (the PAI v2020
	// simulator's job table), each also with .gz after it.
	Trace string
	// Cluster is "[kind:]spec"; empty takes the trace's own (the SWF
	// header's MaxProcs) or its format's bundled cluster. See [Clusters].
	Cluster string
	// Procs overrides an SWF trace's machine size.
	Procs int
	// SkipInvalid counts and skips malformed trace lines instead of
	// failing on the first.
	SkipInvalid bool
	// GPUType is the GPU ("k80", "p100", "v100") whose measured throughput
	// gives Gavel jobs their run times where the cluster's GPU has none of
	// its own (a job Gavel did not measure there), and whose unmeasured
	// jobs are dropped; empty is v100. On each GPU Gavel measured, a job
	// runs at its throughput there.
	GPUType string
	// OwnRunTimes says the caller gives the jobs their run times on the
	// cluster's GPUs (a plan's predicted throughputs): a Gavel trace may
	// then run on GPUs Gavel never measured.
	OwnRunTimes bool
	// GPUModels renames the GPU models that jobs ask for (a request's
	// allowed models) to the cluster's: trace model → cluster model. A
	// model it does not name stays as it is; every model it maps to must
	// be one of the cluster's.
	GPUModels map[string]string
	// Sample, when positive, keeps a uniform random sample of this many
	// jobs, drawn with rand.NewPCG(SampleSeed, 0) ([Sample]).
	Sample     int
	SampleSeed uint64
	// ArrivalRate, when positive, re-times arrivals: ArrivalRate jobs at
	// the start of every ArrivalInterval seconds (default 60) ([Retime]).
	ArrivalRate     int
	ArrivalInterval int
}

// prepared reports whether opts samples or re-times the jobs.
func (opts *Options) prepared() bool { return opts.Sample > 0 || opts.ArrivalRate > 0 }

// prepare samples and re-times w's jobs as opts says.
func (opts *Options) prepare(w *Workload) {
	if opts.Sample > 0 {
		w.Jobs = Sample(w.Jobs, opts.Sample, rand.New(rand.NewPCG(opts.SampleSeed, 0)))
	}
	if opts.ArrivalRate > 0 {
		Retime(w.Jobs, opts.ArrivalRate, scheduler.Time(opts.ArrivalInterval))
	}
}

// Workload is a trace's jobs on a cluster.
type Workload struct {
	Name    string // the trace's file name, without directories
	Format  string
	Jobs    []scheduler.Job
	Cluster *scheduler.Cluster
	// Dropped counts the trace's jobs left out by the format's rules.
	Dropped datasets.Dropped
	// Skipped counts malformed lines left out under SkipInvalid;
	// SkipErrors says what was wrong with the first of them
	// ([swf.MaxSkipErrors]), each naming its file and line.
	Skipped    int
	SkipErrors []*swf.SyntaxError
	// Inputs lists every file read.
	Inputs []string
	// SWF is the trace itself when it is one, so that a schedule can be
	// written back with the trace's other fields.
	SWF *swf.Trace
	// Notes say how the jobs were timed where the cluster does not (a
	// Gavel trace on GPUs of no model runs at GPUType's throughputs).
	Notes []string
}

// gpuPool says whether c is a GPU pool (pool:G:C): one node whose GPUs are
// one quantity.
func gpuPool(c *scheduler.Cluster) bool {
	return len(c.Nodes) == 1 && c.Nodes[0].PoolGPUs > 0
}

// formats lists the trace formats.
var formats = []string{"gavel", "openb", "pai", "pai-sim", "swf"}

// Formats lists the trace formats, in order.
func Formats() []string { return slices.Clone(formats) }

// Clusters documents the cluster specs.
const Clusters = `pool:N                  a pool of N processors (SWF)
pool:G:C                a pool of G GPUs and C cores, GPUs held as one quantity (the PAI v2020 simulator's
                        cluster; it gives 23.22 cores per GPU: pool:512:11889, pool:6500:150930); memory
                        is not modelled there: jobs' memory asks are not held
nodes:NxG:MODEL[:C:M]   N nodes of G GPUs of MODEL, C cores (default 64) and M GiB (default 512);
                        join groups with + for a heterogeneous cluster: nodes:4x4:K80+4x4:V100
openb:PATH              an openb node list (openb_node_list_*.csv)
pai:PATH                a PAI v2020 machine spec (pai_machine_spec.csv)
openb | openb-all | pai the bundled openb GPU nodes, all openb nodes, or the PAI cluster`

// ClusterSpecs names the cluster specs of [Clusters], for a line that
// lists them.
var ClusterSpecs = []string{"pool:N", "pool:G:C", "nodes:NxG:MODEL[:C:M]", "openb:PATH", "pai:PATH", "openb", "openb-all", "pai"}

// check refuses options the trace's format does not read: each would be
// ignored without a word.
func (opts *Options) check(format, path string) error {
	switch {
	case opts.SkipInvalid && format != "swf":
		// only the SWF reader skips malformed lines: the others stop at the first
		return fmt.Errorf("%s: skipping malformed lines is for SWF traces; a %s trace is read whole, stopping at its first malformed line", path, format)
	case opts.Procs > 0 && format != "swf":
		return fmt.Errorf("%s: a machine size in processors is for SWF traces; a %s trace runs on its cluster", path, format)
	case opts.GPUType != "" && format != "gavel":
		return fmt.Errorf("%s: a GPU type whose measured throughputs time the jobs is for Gavel traces; a %s trace has its own run times", path, format)
	case opts.ArrivalInterval > 0 && opts.ArrivalRate <= 0:
		return fmt.Errorf("%s: an arrival interval re-times arrivals at an arrival rate: give the rate too (jobs per interval)", path)
	}
	return nil
}

// Load reads the workload opts names.
func Load(opts Options) (_ *Workload, err error) {
	format, path, err := splitTrace(opts.Trace)
	if err != nil {
		return nil, err
	}
	if err := opts.check(format, path); err != nil {
		return nil, err
	}
	w := &Workload{Name: filepath.Base(path), Format: format, Inputs: []string{path}}
	defer func() {
		if err != nil {
			err = damaged(path, err)
		}
	}()
	switch format {
	case "swf":
		err = w.loadSWF(path, opts)
	case "openb":
		err = w.loadOpenb(path)
	case "pai":
		err = w.loadPAI(path)
	case "gavel":
		err = w.loadGavel(path, opts.GPUType)
	case "pai-sim":
		err = w.loadPAISim(path)
	}
	if err != nil {
		return nil, err
	}
	if opts.Cluster != "" || w.Cluster == nil {
		spec := opts.Cluster
		if spec == "" {
			spec = defaultCluster[format]
			if format == "gavel" && opts.GPUType != "" {
				// 27 servers of 4 of the GPU the jobs are kept for
				spec = "nodes:27x4:" + strings.ToUpper(opts.GPUType)
			}
		}
		c, inputs, err := ParseCluster(spec)
		if err != nil {
			return nil, err
		}
		w.Cluster = c
		w.Inputs = append(w.Inputs, inputs...)
	}
	if gpuPool(w.Cluster) {
		// the PAI simulator's pool models cores and GPUs, no memory (a
		// node of 0 MiB): a job's memory ask (a Gavel replica's 4 GiB, an
		// openb pod's) is not held there, or it would fit nowhere
		for i := range w.Jobs {
			for t := range w.Jobs[i].Tasks {
				// (a request of memory alone keeps it: it would ask for
				// nothing, which no job may; it stays unschedulable)
				if r := &w.Jobs[i].Tasks[t].Request; r.CPU > 0 || r.GPUs > 0 {
					r.Mem = 0
				}
			}
		}
	}
	if format == "pai-sim" && w.Cluster.Pool {
		return nil, fmt.Errorf("cluster %q is a pool of processors without GPUs; a PAI simulator job table runs on a GPU pool, "+
			"pool:G:CORES (the simulator gives 23.22 cores per GPU: pool:512:11889), or on GPU nodes", opts.Cluster)
	}
	if format == "gavel" {
		w.gavelModels(opts.OwnRunTimes)
	}
	if len(w.Jobs) == 0 {
		switch {
		case w.Skipped > 0 && len(w.SkipErrors) > 0 && w.Dropped.Total() == 0:
			// every record malformed: what was wrong says more than the
			// drops (none)
			return nil, fmt.Errorf("%s: no jobs to simulate: %d malformed lines skipped (the first, %v): not an SWF trace?",
				path, w.Skipped, w.SkipErrors[0])
		case w.Skipped > 0 && len(w.SkipErrors) > 0:
			return nil, fmt.Errorf("%s: no jobs to simulate (dropped: %s; %d malformed lines skipped, the first, %v)",
				path, w.Dropped, w.Skipped, w.SkipErrors[0])
		}
		return nil, fmt.Errorf("%s: no jobs to simulate (dropped: %s)", path, w.Dropped)
	}
	if format == "gavel" && !opts.OwnRunTimes {
		if err := measuredOn(w.Jobs, w.Cluster, opts.GPUType); err != nil {
			return nil, err
		}
		if slices.Contains(GPUModels(w.Cluster), "") {
			// (a reviewer's find: it ran at the V100's speed unsaid)
			w.Notes = append(w.Notes, fmt.Sprintf("the cluster's GPUs name no model: Gavel's jobs run on them at the %s's measured throughputs (--gpu-type, gpu_type)",
				strings.ToUpper(cmp.Or(opts.GPUType, "v100"))))
		}
	}
	opts.prepare(w)
	if len(opts.GPUModels) > 0 {
		if err := MapGPUModels(w.Jobs, w.Cluster, opts.GPUModels); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// ErrModelMap marks MapGPUModels's errors: the map, not the trace, is wrong.
var ErrModelMap = errors.New("GPU model map")

// MapGPUModels renames, in place, the GPU models the jobs' requests allow
// as m says (trace model → cluster model; models it does not name stay),
// dropping repeats. A model m maps to that c does not have is an error, as
// is a model m names that no job asks for.
func MapGPUModels(jobs []scheduler.Job, c *scheduler.Cluster, m map[string]string) error {
	have := map[string]bool{}
	for i := range c.Nodes {
		if c.Nodes[i].GPUs > 0 {
			have[c.Nodes[i].Model] = true
		}
	}
	var bad []string
	for from, to := range m {
		if !have[to] {
			bad = append(bad, fmt.Sprintf("%s → %s", from, to))
		}
	}
	if len(bad) > 0 {
		slices.Sort(bad)
		models := slices.Sorted(maps.Keys(have))
		return fmt.Errorf("%w: %s: not a GPU model of cluster %s (its models: %s)",
			ErrModelMap, strings.Join(bad, ", "), c.Name, strings.Join(models, ", "))
	}
	// a key no job asks for renames nothing: a typo, or the wrong trace
	asked := map[string]bool{}
	for i := range jobs {
		for t := range jobs[i].Tasks {
			for _, name := range jobs[i].Tasks[t].Request.Models {
				asked[name] = true
			}
		}
	}
	for from := range m {
		if !asked[from] {
			bad = append(bad, from)
		}
	}
	if len(bad) > 0 {
		slices.Sort(bad)
		return fmt.Errorf("%w: %s: no job asks for it (the jobs ask for: %s); the names are the trace's, case and all",
			ErrModelMap, strings.Join(bad, ", "), askedList(asked))
	}
	for i := range jobs {
		for t := range jobs[i].Tasks {
			r := &jobs[i].Tasks[t].Request
			if len(r.Models) == 0 {
				continue
			}
			out := make([]string, 0, len(r.Models))
			for _, name := range r.Models {
				if to, ok := m[name]; ok {
					name = to
				}
				if !slices.Contains(out, name) {
					out = append(out, name)
				}
			}
			r.Models = out
		}
	}
	return nil
}

// askedList lists the GPU models jobs ask for, sorted, or says none does.
func askedList(asked map[string]bool) string {
	if len(asked) == 0 {
		return "none: every job runs on any GPU"
	}
	return strings.Join(slices.Sorted(maps.Keys(asked)), ", ")
}

var defaultCluster = map[string]string{
	"openb": "openb",
	"pai":   "pai",
	"gavel": "nodes:27x4:V100", // of the GPU type (Options.GPUType), V100 by default
	// The PAI simulator's default: 6,500 GPUs and round(23.22 × 6,500) cores.
	"pai-sim": "pool:6500:150930",
}

// TraceFile is the file a trace spec ([FORMAT:]PATH) reads, its format
// checked: an unknown FORMAT is an error (as reading the trace would give).
func TraceFile(spec string) (string, error) {
	_, path, err := splitTrace(spec)
	return path, err
}

// splitTrace separates "format:path" and checks the format.
func splitTrace(s string) (format, path string, err error) {
	if s == "" {
		return "", "", errors.New("no trace given")
	}
	if f, p, ok := strings.Cut(s, ":"); ok && isFormat(f) {
		return f, p, nil
	} else if ok && isWord(f) {
		if _, err := os.Stat(s); err != nil { // not a file whose name has a colon
			return "", "", fmt.Errorf("%s: unknown trace format %q (formats: %s)", s, f, strings.Join(formats, ", "))
		}
	}
	base := strings.TrimSuffix(strings.ToLower(filepath.Base(s)), ".gz")
	switch {
	case strings.HasSuffix(base, ".swf"):
		return "swf", s, nil
	case strings.Contains(base, "openb_pod_list"):
		return "openb", s, nil
	case strings.HasSuffix(base, ".trace"):
		return "gavel", s, nil
	case strings.HasPrefix(base, "pai_job_table"):
		return "pai", s, nil
	case strings.HasPrefix(base, "pai_job_duration"), strings.HasPrefix(base, "pai_sim_jobs"):
		return "pai-sim", s, nil
	}
	return "", "", fmt.Errorf("%s: cannot tell the trace format from the name; write FORMAT:%s (formats: %s)", s, s, strings.Join(formats, ", "))
}

// TraceFormat is the format of a trace as [FORMAT:]PATH names it, or from
// the file's name (the file is not read).
func TraceFormat(s string) (string, error) {
	format, _, err := splitTrace(s)
	return format, err
}

// isWord says whether s could be meant as a format name: letters and
// digits, starting with a letter, two or more of them (a Windows drive
// letter is one).
func isWord(s string) bool {
	if len(s) < 2 || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func isFormat(f string) bool {
	for _, k := range formats {
		if f == k {
			return true
		}
	}
	return false
}

// machineProcs is the processors an SWF trace's machine has by the
// options: Procs, or the N of a cluster pool:N (which is then the
// machine); 0 where the trace's header is to say.
func (opts *Options) machineProcs() int {
	if opts.Procs > 0 {
		return opts.Procs
	}
	if n, ok := strings.CutPrefix(opts.Cluster, "pool:"); ok {
		if v, err := strconv.Atoi(n); err == nil && v > 0 {
			return v
		}
	}
	return 0
}

func (w *Workload) loadSWF(path string, opts Options) error {
	t, jobs, dropped, err := swf.ReadOptions{SkipInvalid: opts.SkipInvalid}.ReadJobsFile(path, opts.machineProcs())
	if errors.Is(err, swf.ErrNoMachineSize) {
		return fmt.Errorf("%w: --procs N (wb simulate) or procs: N (a config's workload), or a cluster pool:N", err)
	}
	if err != nil {
		return skipHint(err, opts.SkipInvalid)
	}
	procs := opts.machineProcs()
	if procs <= 0 {
		procs, _ = swf.MachineProcs(t) // known: ReadJobsFile needed it
	}
	w.SWF, w.Jobs, w.Dropped, w.Skipped, w.SkipErrors = t, jobs, dropped, t.Skipped, t.SkipErrors
	if opts.Cluster == "" {
		w.Cluster = scheduler.NewPool(strings.TrimSuffix(w.Name, ".gz"), procs)
	}
	return nil
}

func (w *Workload) loadOpenb(path string) error {
	pods, err := openb.ReadPods(path)
	if err != nil {
		return err
	}
	w.Jobs, w.Dropped, err = openb.Jobs(pods)
	if err != nil {
		return inFile(path, err)
	}
	if len(pods) == 0 {
		return fmt.Errorf("%s: no pods: the pod list holds a header and no rows", path)
	}
	if len(w.Jobs) == 0 && w.Dropped.Count(openb.DropNoCreation) == len(pods) {
		return fmt.Errorf("%s: the pods have no creation or deletion times, so they cannot arrive and leave in a simulation; "+
			"this pod list (like the FGD paper's multigpu lists) is for placement-only replays", path)
	}
	return err
}

// loadPAI reads a PAI v2020 job table and the task table beside it (the
// same name with "job_table" replaced by "task_table").
func (w *Workload) loadPAI(path string) error {
	dir, base := filepath.Split(path)
	if !strings.Contains(base, "job_table") {
		return fmt.Errorf("%s: a PAI trace is named by its job table (pai_job_table*.csv), with the task table beside it", path)
	}
	taskPath := filepath.Join(dir, strings.Replace(base, "job_table", "task_table", 1))
	jobs, err := pai.ReadJobs(path)
	if err != nil {
		return err
	}
	tasks, err := pai.ReadTasks(taskPath)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w (the task table must lie beside the job table)", err)
	} else if err != nil {
		return err
	}
	w.Inputs = append(w.Inputs, taskPath)
	w.Jobs, w.Dropped, err = pai.Jobs(jobs, tasks)
	return inFile(path, err)
}

// loadPAISim reads a PAI v2020 simulator job table.
func (w *Workload) loadPAISim(path string) error {
	rows, err := paisim.Read(path)
	if err != nil {
		return err
	}
	w.Jobs, w.Dropped, err = paisim.Jobs(rows)
	return inFile(path, err)
}

// inFile names the trace in a conversion's error (its records' lines,
// which the error gives, are the file's), unless the error names it.
func inFile(path string, err error) error {
	if err == nil || strings.Contains(err.Error(), path) {
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// damaged is err, or where the trace at path is a damaged gzip file, that
// damage: a line that does not parse inside one is most likely the damage
// (gzfile.Damaged).
func damaged(path string, err error) error {
	if errors.Is(err, gzip.ErrChecksum) {
		// the reader met the damage itself: say only what to do
		return fmt.Errorf("%w: the gzip-compressed file is damaged; download it again, or check it with gzip -t", err)
	}
	if d := gzfile.Damaged(path); d != nil {
		return fmt.Errorf("%w\n(what reading it found, most likely the damage: %w)", d, err)
	}
	return err
}

// GavelGPUTypes lists the GPU types of the bundled Gavel throughputs: what
// a Gavel workload's gpu_type may name. The file is read once a process
// (a config naming a Gavel GPU validated 0.6 s a time reading it).
func GavelGPUTypes() ([]string, error) {
	types, err := gavelGPUTypes()
	return slices.Clone(types), err
}

var gavelGPUTypes = sync.OnceValues(func() ([]string, error) {
	tp, _, err := gavel.BundledThroughputs()
	if err != nil {
		return nil, err
	}
	return tp.GPUTypes(), nil
})

// loadGavel reads a Gavel trace; run times come from the bundled measured
// throughputs on gpuType.
func (w *Workload) loadGavel(path, gpuType string) error {
	if gpuType == "" {
		gpuType = "v100"
	}
	rows, err := gavel.ReadTrace(path)
	if err != nil {
		return err
	}
	tp, tpPath, err := gavel.BundledThroughputs()
	if err != nil {
		return err
	}
	if _, ok := tp[gpuType]; !ok {
		hint := ""
		if _, lower := tp[strings.ToLower(gpuType)]; lower {
			// (a cluster spec writes K80; Gavel's measurements k80)
			hint = "; Gavel's GPU types are lower case: " + strings.ToLower(gpuType)
		}
		return fmt.Errorf("%s: no throughputs for GPU type %q (known: %s)%s", tpPath, gpuType, strings.Join(tp.GPUs(), ", "), hint)
	}
	w.Inputs = append(w.Inputs, tpPath)
	w.Jobs, w.Dropped, err = gavel.Jobs(rows, tp, gpuType)
	return err
}

// ParseCluster builds the cluster a spec names (see [Clusters]) and lists
// the files it read.
func ParseCluster(spec string) (*scheduler.Cluster, []string, error) {
	kind, arg, _ := strings.Cut(spec, ":")
	bundled := func(rel string) (string, error) {
		dir, err := datasets.DataDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(dir, rel), nil
	}
	fromOpenb := func(path string) (*scheduler.Cluster, []string, error) {
		rows, err := openb.ReadNodes(path)
		if err != nil {
			return nil, nil, err
		}
		c := openb.Cluster(rows)
		c.Name = filepath.Base(path)
		return c, []string{path}, nil
	}
	switch {
	case kind == "pool":
		if gs, cs, ok := strings.Cut(arg, ":"); ok {
			g, err1 := strconv.Atoi(gs)
			c, err2 := strconv.Atoi(cs)
			// (no cores: every job, which asks for at least one, would be
			// unschedulable, as a node of none is refused)
			if err1 != nil || err2 != nil || g <= 0 || g > scheduler.MaxPoolGPUs || c <= 0 || c > maxProcs {
				return nil, nil, fmt.Errorf("cluster %q: want pool:G:C with 0 < G ≤ %d GPUs and 0 < C ≤ %d cores", spec, scheduler.MaxPoolGPUs, maxProcs)
			}
			return scheduler.NewGPUPool(spec, g, c), nil, nil
		}
		n, err := strconv.Atoi(arg)
		if err != nil || n <= 0 || n > maxProcs {
			return nil, nil, fmt.Errorf("cluster %q: want pool:N with 0 < N ≤ %d processors (or pool:G:C, a GPU pool)", spec, maxProcs)
		}
		return scheduler.NewPool(spec, n), nil, nil
	case kind == "nodes":
		c := &scheduler.Cluster{Name: spec}
		for g, group := range strings.Split(arg, "+") {
			part, _, err := parseNodes(spec, group)
			if err != nil {
				return nil, nil, err
			}
			if len(c.Nodes)+len(part.Nodes) > maxNodes {
				// said before the groups left are built: each may be 2^20 nodes
				return nil, nil, fmt.Errorf("cluster %q: more than %d nodes by group %d; at most %d", spec, maxNodes, g+1, maxNodes)
			}
			for _, n := range part.Nodes {
				n.Name = fmt.Sprintf("g%d-%s", g, n.Name)
				c.Nodes = append(c.Nodes, n)
			}
		}
		return c, nil, nil
	case kind == "openb" && arg != "":
		return fromOpenb(arg)
	case kind == "pai" && arg != "":
		return fromPAI(arg)
	}
	if pr, ok := presets.Get(spec); ok {
		p, err := bundled(pr.file)
		if err != nil {
			return nil, nil, err
		}
		if pr.format == "pai" {
			return fromPAI(p)
		}
		return fromOpenb(p)
	}
	return nil, nil, fmt.Errorf("cluster %q: unknown; one of:\n%s", spec, Clusters)
}

// preset is a bundled cluster: its node list's format and file under the
// bundled data.
type preset struct {
	format, file string
}

// presets are the bundled clusters a cluster spec names alone; Clusters
// documents them.
var presets = func() *registry.Registry[preset] {
	r := registry.New[preset]("cluster preset")
	r.MustRegister("openb", preset{"openb", filepath.Join("openb", "openb_node_list_gpu_node.csv")})
	r.MustRegister("openb-all", preset{"openb", filepath.Join("openb", "openb_node_list_all_node.csv")})
	r.MustRegister("pai", preset{"pai", filepath.Join("pai", "pai_machine_spec.csv")})
	return r
}()

// IsPreset reports whether spec names a bundled cluster ("openb",
// "openb-all", "pai"), which is not a path.
func IsPreset(spec string) bool {
	_, ok := presets.Get(spec)
	return ok
}

// PresetFile is the bundled node list a cluster preset reads, relative to
// the bundled data's folder ("pai/pai_machine_spec.csv"); false where spec
// names no preset.
func PresetFile(spec string) (string, bool) {
	p, ok := presets.Get(spec)
	return p.file, ok
}

// IsOpenbCluster reports whether spec is a cluster of openb nodes: a
// bundled openb preset or openb:PATH.
func IsOpenbCluster(spec string) bool {
	if p, ok := presets.Get(spec); ok {
		return p.format == "openb"
	}
	return strings.HasPrefix(spec, "openb:")
}

func fromPAI(path string) (*scheduler.Cluster, []string, error) {
	rows, err := pai.ReadMachineSpec(path)
	if err != nil {
		return nil, nil, err
	}
	c := pai.Cluster(rows)
	c.Name = filepath.Base(path)
	return c, []string{path}, nil
}

// Bounds on generated clusters, far above any real one.
const (
	maxProcs = 1 << 30
	maxNodes = 1 << 20
)

// parseNodes reads "NxG:MODEL[:CORES:GIB]".
func parseNodes(spec, arg string) (*scheduler.Cluster, []string, error) {
	bad := func(why string) error {
		return fmt.Errorf("cluster %q: %s; want nodes:NxG:MODEL[:CORES:GIB], e.g. nodes:16x8:V100", spec, why)
	}
	parts := strings.Split(arg, ":")
	if len(parts) != 2 && len(parts) != 4 {
		return nil, nil, bad("wrong number of parts")
	}
	ns, gs, ok := strings.Cut(parts[0], "x")
	n, err1 := strconv.Atoi(ns)
	g, err2 := strconv.Atoi(gs)
	if !ok || err1 != nil || err2 != nil || n <= 0 || n > maxNodes || g < 0 || g > scheduler.MaxGPUsPerNode {
		return nil, nil, bad(fmt.Sprintf("%q is not NxG with N from 1 to %d and G from 0 to %d", parts[0], maxNodes, scheduler.MaxGPUsPerNode))
	}
	cores, gib := 64, 512
	if len(parts) == 4 {
		var e1, e2 error
		cores, e1 = strconv.Atoi(parts[2])
		gib, e2 = strconv.Atoi(parts[3])
		if e1 != nil || e2 != nil || cores <= 0 || gib <= 0 || cores > 1<<20 || gib > 1<<30 {
			return nil, nil, bad("cores and GiB must be positive whole numbers (at most 2^20 cores and 2^30 GiB)")
		}
	}
	model := parts[1]
	if model == "" && g > 0 {
		return nil, nil, bad("no GPU model")
	}
	if model != "" && g == 0 {
		// nodes:2x0:V100 reads as V100 nodes, which hold no GPU: a typo
		return nil, nil, bad(fmt.Sprintf("0 GPUs a node, yet a GPU model (%s); nodes without GPUs name none: \"nodes:%sx0:\" (quoted in YAML, which reads a colon at the end as a mapping)", model, ns))
	}
	c := &scheduler.Cluster{Name: spec}
	for i := range n {
		c.Nodes = append(c.Nodes, scheduler.Node{
			Name: fmt.Sprintf("node-%04d", i), CPU: scheduler.MilliCPU(cores) * scheduler.MilliPerCore,
			Mem: scheduler.MiB(gib) * 1024, GPUs: g, Model: model,
		})
	}
	return c, nil, nil
}

// gavelModels fits the GPU models Gavel's jobs may run on (gavel.Jobs:
// the ones that measured them, where another measured a job at 0) to the
// cluster: where the caller times the jobs itself (own: a plan's predicted
// throughputs) or the cluster's GPUs have no model (a pool's, on which
// every job runs at --gpu-type's throughput), a job may run on any. A job
// that may run on none of the cluster's models stays in the trace and is
// unschedulable there, as a job too large for the cluster is (dropping it
// here would change which jobs a sample draws).
func (w *Workload) gavelModels(own bool) {
	if !own && !slices.Contains(GPUModels(w.Cluster), "") {
		return
	}
	for i := range w.Jobs {
		for k := range w.Jobs[i].Tasks {
			w.Jobs[i].Tasks[k].Request.Models = nil
		}
	}
}

// measuredOn checks that the cluster's GPU models are ones the jobs were
// measured on: a Gavel job on a GPU with no throughput of its own would run
// at gpuType's, silently.
func measuredOn(jobs []scheduler.Job, c *scheduler.Cluster, gpuType string) error {
	known := map[string]bool{}
	for i := range jobs {
		for m := range jobs[i].RunOn {
			known[m] = true
		}
	}
	var missing []string
	for _, m := range GPUModels(c) {
		// a GPU of no model (a pool's) is any GPU: jobs run there at
		// gpuType's throughput, as on a cluster of gpuType
		if m != "" && !known[m] {
			missing = append(missing, m)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if gpuType == "" {
		gpuType = "v100"
	}
	return fmt.Errorf("cluster %s: Gavel measured its jobs on %s only, not on %s, where they would run at the %s's "+
		"throughput (--gpu-type) as if nothing differed: use a cluster of the measured GPUs, or time the jobs with wb's "+
		"predictor (an experiment workload's throughputs: predicted, as configs/plan.yaml does)",
		c.Name, strings.Join(slices.Sorted(maps.Keys(known)), ", "), strings.Join(missing, ", "), gpuType)
}

// GPUModels lists the cluster's GPU models, in lower case, each once, in
// node order ("" for GPUs of no model, a pool's).
func GPUModels(c *scheduler.Cluster) []string {
	var out []string
	for i := range c.Nodes {
		n := &c.Nodes[i]
		if n.GPUs+n.PoolGPUs == 0 {
			continue
		}
		if m := strings.ToLower(n.Model); !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

// skipHint is err, said with what leaves a malformed record line out where
// it is one and skipping is not already on (a header's is an error all the
// same, and a line too long to read ends the reading either way).
func skipHint(err error, skipping bool) error {
	if se := (*swf.SyntaxError)(nil); errors.As(err, &se) && !se.Header && !se.Unskippable && !skipping {
		return fmt.Errorf("%w (--skip-invalid, or skip_invalid: true in a config's workload, leaves malformed record lines out and counts them)", err)
	}
	return err
}
