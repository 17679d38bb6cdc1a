package experiments

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/wb-sim/wb/datasets"
	"github.com/wb-sim/wb/datasets/neusight"
	"github.com/wb-sim/wb/datasets/synthetic"
	"github.com/wb-sim/wb/datasets/workload"
	"github.com/wb-sim/wb/experiments/figures"
	"github.com/wb-sim/wb/internal/readcap"
	"github.com/wb-sim/wb/internal/registry"
	"github.com/wb-sim/wb/scheduler"
)

// Config is an experiment: workloads × schedulers × sweep points ×
// replicas, each combination one simulation run. Zero values are the
// documented defaults. Paths are relative to the config file's directory.
type Config struct {
	Name        string            `yaml:"name" doc:"experiment name (required); results go to results/<name> unless out says otherwise"`
	Description string            `yaml:"description" doc:"free text, copied to the manifest"`
	Seed        uint64            `yaml:"seed" doc:"seed of every replica's stream rand.NewPCG(seed, replica); default 0"`
	Replicas    int               `yaml:"replicas" doc:"replicas of each workload × scheduler × sweep point; default (or 0) 1"`
	Workloads   []WorkloadConfig  `yaml:"workloads" doc:"the traces to run (at least one)"`
	Schedulers  []SchedulerConfig `yaml:"schedulers" doc:"the schedulers to compare (at least one)"`
	Sweep       SweepConfig       `yaml:"sweep" doc:"values of each swept axis; every combination is a sweep point"`
	Metrics     []string          `yaml:"metrics" doc:"summary.csv columns in the table printed after the runs (mean and bootstrap CI over replicas: 95% nominal, at most 93% with 5); default mean_wait, mean_bounded_slowdown, util_cpu (util_gpu where the first workload runs on GPUs)"`
	Outputs     OutputConfig      `yaml:"outputs" doc:"what the result files hold"`
	Figures     []FigureConfig    `yaml:"figures" doc:"figures drawn from the results"`
	Inflation   *InflationConfig  `yaml:"inflation" doc:"the FGD paper's inflation replay instead of a simulation: openb pod lists arrive one at a time, never depart, until their GPU demand reaches ratio × the cluster's GPUs; one run per workload × scheduler × seed"`
	Sharing     *SharingConfig    `yaml:"sharing" doc:"GPU sharing with interference (package sharing): model and SLOs of the schedulers with a sharing policy"`
	Out         string            `yaml:"out" doc:"results directory, relative to the working directory (not the config file); default results/<name>"`

	// dir is the config file's directory, for relative paths.
	dir string
	// path is the config file's absolute path.
	path string
	// raw is the file's bytes, for the manifest and its hash.
	raw []byte
	// lines is the line of each field path ("workloads[0].trace"), and
	// file the config's path as given, that errors name.
	lines map[string]int
	file  string
	// runHash is RunHash, once.
	runHash func() string
}

// WorkloadConfig is one trace on one cluster.
type WorkloadConfig struct {
	Name            string             `yaml:"name" doc:"label in results and figures; default the trace's file name"`
	Trace           string             `yaml:"trace" doc:"[FORMAT:]PATH, FORMAT one of gavel, openb, pai, pai-sim, swf (as wb simulate --trace); a generated workload takes synthetic in its place"`
	Synthetic       *synthetic.Params  `yaml:"synthetic" doc:"a generated workload instead of a trace, drawn anew for each replica from its stream, on a pool of synthetic.procs processors"`
	Cluster         string             `yaml:"cluster" doc:"cluster spec as wb simulate --cluster; default the trace's own or its format's (an SWF trace's pool of its MaxProcs; openb: the pod list's node list; pai: PAI's; gavel: nodes:27x4:GPU of gpu_type; pai-sim: pool:6500:150930)"`
	Procs           int                `yaml:"procs" doc:"SWF machine size in processors; default the header's MaxProcs"`
	GPUType         string             `yaml:"gpu_type" doc:"Gavel traces: the GPU (k80, p100, v100) whose measured throughputs keep a job (a job Gavel did not measure there is dropped) and time it where the job has no throughput of its own; on each GPU Gavel measured, a job runs at its throughput there; default v100"`
	SkipInvalid     bool               `yaml:"skip_invalid" doc:"skip malformed lines of an SWF trace, counting them (refused for other formats); default false"`
	GPUModels       map[string]string  `yaml:"gpu_models" doc:"rename the GPU models jobs ask for to the cluster's: {TRACE_MODEL: CLUSTER_MODEL}; models not named stay; a TRACE_MODEL no job asks for is refused (names are case-sensitive)"`
	Window          int                `yaml:"window" doc:"jobs per replica: a contiguous window starting at a job drawn from the replica's stream; 0 = the whole trace"`
	Sample          int                `yaml:"sample" doc:"jobs per replica: a uniform random sample of the trace, drawn from the replica's stream; 0 = every job. Without arrival_rate the sampled jobs keep their submit times, so the offered load is the sample's share of the trace's (300 of 1,000 jobs: 0.3 of it at load 1)"`
	ArrivalRate     int                `yaml:"arrival_rate" doc:"re-time arrivals: this many jobs arrive at the start of each interval, in submit order (the PAI simulator's arrival_rate); 0 = the trace's times"`
	ArrivalInterval int                `yaml:"arrival_interval" doc:"seconds between arrival_rate's batches; default 60"`
	Throughputs     string             `yaml:"throughputs" doc:"Gavel traces on a cluster of GPU nodes: measured (Gavel's throughputs, K80, P100 and V100 only) or predicted (wb's GPU predictor, any GPU of wb predict --list; not beside sharing schedulers, which time jobs by Gavel's measured throughputs on gpu_type) run times on the cluster's GPUs; default the trace's own. Measured: a job runs only on the cluster's GPU models Gavel measured it on, and is left out (not-measured) where it measured none; predicted: a job runs only on the models whose memory holds its training step (the floor wb predict warns by), and is left out (over-memory) where none does"`
	GPUSpecs        map[string]string  `yaml:"gpu_specs" doc:"throughputs predicted: GPUs the device table lacks (a table GPU is refused), by spec sheet (NeuSight's format, as wb predict --device-spec): {CLUSTER_MODEL: PATH, or the name of a bundled sheet such as NVIDIA_L4}; a spec sheet names no link, so PCIe 4.0 x16 is assumed"`
	Interconnect    string             `yaml:"interconnect" doc:"throughputs predicted: the link the data-parallel jobs exchange gradients over, nvlink or pcie; default the best the GPU has"`
	AllReduceGBps   float64            `yaml:"allreduce_gbps" doc:"throughputs predicted: the cluster's all-reduce bus bandwidth in GB/s (nccl-tests' busbw), in place of the link's; default the link's bandwidth × 0.8"`
	InternodeGBps   float64            `yaml:"internode_gbps" doc:"throughputs predicted: the all-reduce bus bandwidth in GB/s of a data-parallel job whose GPUs lie on more than one node (one that needs more GPUs than a node of its GPU model holds, an 8-GPU job on nodes of 4, or one its placement split: a job's run time is taken when it starts, from the nodes it got), the network between nodes, held to the node's own link where that is slower (the ring crosses both); default none: such jobs are timed at the node's own link, and the report counts them"`
	AllReduceGavel  bool               `yaml:"allreduce_gavel" doc:"throughputs predicted on K80, P100 or V100 nodes: time each data-parallel job's all-reduce at the bus bandwidth Gavel's own servers gave that GPU and GPU count, fitted to Gavel's measured data-parallel throughputs of the other job families (leave the job's family out); for comparing with throughputs: measured over the same links; default false"`
	HeldOut         bool               `yaml:"held_out" doc:"throughputs predicted on K80, P100 or V100 nodes as on GPUs wb never measured, as wb predict --validate gavel --gpu-model scores them: each GPU's layers timed by the GPU op model trained without its chip's measurements, each job with the host cost and device scale fitted to Gavel's other job families; the honest side of a measured-vs-predicted check (about 11 s more, once); default false (the shipped op model, the constants fitted on every family)"`
	RunNoise        float64            `yaml:"run_noise" doc:"multiply each job's run times by exp(σZ), Z standard normal, one per job type or per job (run_noise_by), and per GPU model where run_noise_gpus is given, keyed by the replica's seed and the type (or job) and model, not drawn in sequence: the same Z for a type in every cluster that samples the same jobs, σ = run_noise: a prediction's error as noise, so the replicas' spread shows what it does to the answer; default 0"`
	RunNoiseBy      string             `yaml:"run_noise_by" doc:"with run_noise: job_type (default) draws one Z per job type (its name, else its model and batch; a job of neither, as an SWF trace's, its own), on every GPU model alike, as a predictor errs on a type every time it runs; job draws one per job, independent errors that average out over a queue"`
	RunNoiseGPUs    map[string]float64 `yaml:"run_noise_gpus" doc:"with run_noise: a σ per GPU model of the cluster, {MODEL: σ}, for the run times on that model (the others take run_noise); each model then draws its own Z per job type (or job), as a predictor's errors on one GPU are not its errors on another (wb predict --validate gavel --gpu-model prints each GPU's σ)"`
	Price           float64            `yaml:"price" doc:"price per GPU-hour: adds summary columns gpus, cost (GPUs × makespan × price) and cost_per_job; default 0 (none)"`
	Prices          map[string]float64 `yaml:"prices" doc:"a cluster of several GPU models: the price per GPU-hour of each, {CLUSTER_MODEL: PRICE}, each above 0, in place of price; cost is then the sum over the models of their GPUs × makespan × price"`
}

// SchedulerConfig names a scheduler's parts.
type SchedulerConfig struct {
	Name            string         `yaml:"name" doc:"label in results and figures; default the parts joined by +"`
	Order           string         `yaml:"order" doc:"queue order; default fifo"`
	Backfill        string         `yaml:"backfill" doc:"backfill rule; default none"`
	Placement       string         `yaml:"placement" doc:"placement on GPU nodes; default first-fit (ga places the whole queue each pass and starts any subset of it, out of queue order: the order's and the backfill rule's guarantees do not hold under it)"`
	Consolidate     bool           `yaml:"consolidate" doc:"keep a data-parallel job (replicas of whole GPUs, of one task) on one node where one node holds it whole, the placement choosing among those nodes, as Gavel and Slurm place gangs (fastest: a node of the fastest GPU model with room, else that model's nodes, before a slower model); default false: replica by replica, which may split a job over nodes (not with placement ga)"`
	Estimate        string         `yaml:"estimate" doc:"runtime estimate source; default user"`
	Sigma           float64        `yaml:"sigma" doc:"noisy estimate: σ of the lognormal error, estimate = run × exp(σZ), 0 to 10; required with estimate noisy unless sweep.sigma is given (0 is the exact run time); a sigma sweep overrides it"`
	KillAtUserLimit bool           `yaml:"kill_at_user_limit" doc:"kill a job at its user estimate (SWF field 9); default false"`
	KillFactor      float64        `yaml:"kill_factor" doc:"kill a job at k × the estimate it started with (runaway detection; a job estimated at 0, as user-mean does a new user's, is not killed by it); 0 = never, else at least 1"`
	GA              *GAConfig      `yaml:"ga" doc:"placement ga: the genetic algorithm's parameters (seeded from the replica's stream)"`
	OrderArgs       map[string]any `yaml:"order_args" doc:"settings of the queue order, for an order that takes any (one of your own: docs/writing-a-policy.md), which decodes them and refuses any it does not know"`
	BackfillArgs    map[string]any `yaml:"backfill_args" doc:"settings of the backfill rule, for one that takes any"`
	PlacementArgs   map[string]any `yaml:"placement_args" doc:"settings of the placement, for one that takes any (ga's are its section ga)"`
	EstimateArgs    map[string]any `yaml:"estimate_args" doc:"settings of the runtime estimate, for one that takes any (noisy's σ is the field sigma)"`
	Sharing         string         `yaml:"sharing" doc:"a GPU-sharing policy instead of order/backfill/placement/estimate: exclusive, packing, jct, slo, goodput (Gavel traces)"`
	Switches        []SwitchConfig `yaml:"switches" doc:"sharing: policy switches during the run, each at a time or on a trigger"`
}

// GAConfig is the genetic algorithm's parameters (placement ga); zero
// values take the defaults of [scheduler.GAParams].
type GAConfig struct {
	Population  int     `yaml:"population" doc:"solutions in the population; default 100 (the paper's). In ga, 0 is each field's default: a mutation probability of 0 cannot be given"`
	Generations int     `yaml:"generations" doc:"G: most generations per scheduling pass; default 100"`
	Patience    int     `yaml:"patience" doc:"K: a pass stops after K generations without a better solution; default 10"`
	Tournament  float64 `yaml:"tournament" doc:"share of the population sampled for each tournament; default 0.2 (the paper's)"`
	Replace     float64 `yaml:"replace" doc:"share of the population replaced by children each generation; default 0.4 (the paper's)"`
	MutateAbove float64 `yaml:"mutate_above" doc:"per-gene mutation probability of a child fitter than the mean; default 0.25 (the paper's)"`
	MutateBelow float64 `yaml:"mutate_below" doc:"per-gene mutation probability of the other children; default 0.1 (the paper's)"`
	Window      int     `yaml:"window" doc:"most waiting replicas in the chromosome (whole jobs, from the queue's head): the queue past them waits for the next event, so a small window holds back jobs that would fit; default 128"`
	NoSeed      bool    `yaml:"no_seed" doc:"all initial solutions random, as in the paper; default false: one is first-fit's, so each pass starts at least first-fit's GPU"`
	Workers     int     `yaml:"workers" doc:"goroutines evaluating fitness (the result does not depend on it); default 1"`
}

func (g *GAConfig) params() scheduler.GAParams {
	if g == nil {
		return scheduler.GAParams{}
	}
	return scheduler.GAParams{Population: g.Population, Generations: g.Generations, Patience: g.Patience,
		Tournament: g.Tournament, Replace: g.Replace, MutateAbove: g.MutateAbove, MutateBelow: g.MutateBelow,
		Window: g.Window, NoSeed: g.NoSeed, Workers: g.Workers}
}

// args is the ga placement's arguments (its GAParams by their yaml names);
// nil without a ga section.
func (g *GAConfig) args() scheduler.Args {
	if g == nil {
		return nil
	}
	p := g.params()
	return scheduler.Args{"population": p.Population, "generations": p.Generations, "patience": p.Patience,
		"tournament": p.Tournament, "replace": p.Replace, "mutate_above": p.MutateAbove, "mutate_below": p.MutateBelow,
		"window": p.Window, "no_seed": p.NoSeed, "workers": p.Workers}
}

// SweepConfig lists the values of each axis; an empty axis is not swept.
type SweepConfig struct {
	Load  []float64 `yaml:"load" doc:"arrival-rate multipliers: submit times from the run's first job are divided by each; default [1], the trace as recorded"`
	Procs []int     `yaml:"procs" doc:"machine sizes in processors, of SWF traces and synthetic workloads; an SWF trace's window or sample is drawn, at every size, from the trace as the largest size reads it, and the jobs a size cannot run are left out of its runs (counted under the table), so that the sizes run the same stretch of the trace; a synthetic workload is drawn anew for each, its job sizes bounded by the machine's; with power-of-two sizes (power_of_two above 0) the mean size grows more slowly than the machine, so the offered load falls as procs grows (about 0.6× from 16 to 1,024 processors at the default 0.75); default the workload's"`
	Sigma []float64 `yaml:"sigma" doc:"σ of the noisy estimates; other estimates are unchanged by it"`
}

// OutputConfig chooses what the result files hold.
type OutputConfig struct {
	Jobs             string `yaml:"jobs" doc:"runs whose jobs go to jobs.csv: first-replica (default), all, none"`
	TimeseriesPoints int    `yaml:"timeseries_points" doc:"equal time bins per run in timeseries.csv (time-weighted means); default 100, -1 for none"`
}

// FigureConfig is one figure (one file per workload for line, cdf and
// timeseries figures).
type FigureConfig struct {
	Name      string   `yaml:"name" doc:"file name without extension; default KIND-METRIC, with -X and -loadL after it where a figure before has that name"`
	Kind      string   `yaml:"kind" doc:"line (a summary metric against a sweep axis), cdf (of a per-job quantity), timeseries (the cluster's use over time), bar (a summary metric per scheduler and workload), pareto (a summary metric against another, x, one point per workload and scheduler, the Pareto front named) or progress (GPU utilisation after each job starts, against jobs processed)"`
	Metric    string   `yaml:"metric" doc:"line, bar: a summary.csv column; cdf: wait, slowdown or jct; timeseries: util, queue or running; progress: util"`
	X         string   `yaml:"x" doc:"line: the sweep axis on the x axis, default load; pareto: a summary.csv column, default cost"`
	Load      float64  `yaml:"load" doc:"cdf, timeseries, bar, pareto, progress: the load to draw; default the sweep's last"`
	LogX      bool     `yaml:"log_x" doc:"logarithmic x axis"`
	LogY      bool     `yaml:"log_y" doc:"logarithmic y axis"`
	Workloads []string `yaml:"workloads" doc:"pareto: the workloads (by name) whose points are drawn and make the front; default all"`
	Front     *bool    `yaml:"front" doc:"pareto: name the Pareto front (default true); false draws the points alone, as where the workloads are two estimates of the same clusters (measured and predicted twins, or with and without run_noise), over which one front means nothing: with a front, such twins are refused"`
}

// front reports whether a pareto figure names its front (Front, default
// true).
func (f *FigureConfig) front() bool { return f.Front == nil || *f.Front }

// Figure kinds and the metrics they take.
var (
	figureKinds   = []string{"bar", "cdf", "line", "pareto", "progress", "timeseries"}
	cdfMetrics    = []string{"jct", "slowdown", "wait"}
	seriesMetrics = []string{"queue", "running", "util"}
	jobsChoices   = []string{"all", "first-replica", "none"}
	sweepAxes     = []string{"load", "procs", "sigma"}
)

// LoadConfig reads and validates a config file. Every problem is reported,
// each with the file, line and path of the field.
//
// The copy of a config in a results directory (DIR/config.yaml, beside
// DIR/config.source) loads as that experiment's config: its relative
// paths anchored at the original's folder, named as the original (what a
// Slurm array task runs, so that the config edited after submission
// changes nothing already submitted).
func LoadConfig(path string) (*Config, error) {
	dir, base := filepath.Split(path)
	if base == ConfigCopy {
		if _, err := os.Stat(filepath.Join(dir, sourceFile)); err == nil {
			return loadStored(filepath.Clean(dir))
		}
	}
	// a config is a page of YAML: /dev/zero or a file of gigabytes named
	// by mistake is refused at the cap, not read into memory until wb
	// dies (a reviewer's find)
	raw, err := readcap.ReadFile(path, readcap.JSON)
	if err != nil {
		return nil, err
	}
	return ParseConfig(raw, path)
}

// ParseConfig parses and validates a config; path names it in errors and
// anchors its relative paths.
func ParseConfig(raw []byte, path string) (*Config, error) { return parseConfig(raw, path, "") }

// loadStored reads the copy of the config that an experiment's results
// directory holds, with its relative paths anchored, as when it ran, at
// the original config's folder (config.source), not at the copy's.
func loadStored(dir string) (*Config, error) {
	path := filepath.Join(dir, ConfigCopy)
	raw, err := readcap.ReadFile(path, readcap.JSON)
	if err != nil {
		return nil, err
	}
	src, err := os.ReadFile(filepath.Join(dir, sourceFile))
	if err != nil {
		return parseConfig(raw, path, "")
	}
	c, err := parseConfig(raw, path, strings.TrimSpace(string(src)))
	if err != nil {
		return nil, err
	}
	return c, nil
}

// parseConfig is ParseConfig anchored, where source is not "", at that
// file's folder (and naming it as the config's file).
func parseConfig(raw []byte, path, source string) (*Config, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(raw, &root); err != nil {
		return nil, yamlSyntaxError(path, raw, err)
	}
	if len(root.Content) == 0 {
		return nil, fmt.Errorf("%s: empty config", path)
	}
	if line, ok, err := secondDocument(raw); err != nil {
		return nil, yamlSyntaxError(path, raw, err)
	} else if ok {
		// the decoder reads the first document alone: what follows would
		// be dropped unread, its unknown keys too
		return nil, fmt.Errorf("%s:%d: a second YAML document (after ---): a config is one document; merge its fields into the first or delete it", path, line)
	}
	lines := map[string]int{}
	values := map[string]string{} // the scalar at each path, to tell fields of one line apart
	var errs []error
	budget := maxConfigNodes
	checkFields(root.Content[0], reflect.TypeFor[Config](), "", path, lines, values, &errs, &budget)
	if budget < 0 {
		return nil, fmt.Errorf("%s: more than %d values once its aliases are expanded: refused", path, maxConfigNodes)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	// Every mistake at once: unknown fields (above), values of the wrong
	// type (the decoder goes on past them), then what the values mean.
	if source != "" {
		abs = source
	}
	c := &Config{dir: filepath.Dir(abs), path: abs, raw: raw, lines: lines, file: path}
	c.runHash = sync.OnceValue(c.computeRunHash)
	var wrongType []string // ": field: " of each value of the wrong type
	rawLines := strings.Split(string(raw), "\n")
	named := map[string]bool{} // the fields type errors named
	if err := yaml.NewDecoder(bytes.NewReader(raw)).Decode(c); err != nil {
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			return nil, errors.Join(append(errs, fmt.Errorf("%s: %w", path, err))...)
		}
		reported := errors.Join(errs...)
		for _, e := range te.Errors {
			if strings.Contains(e, "already defined at line") {
				// a key given twice stops the decoder in that mapping: what
				// it leaves unset is not the config's mistake; the walk
				// above said every one, at any depth
				if reported != nil && strings.Contains(reported.Error(), ": given again (first at line ") {
					return nil, reported
				}
				dups := []error{}
				for _, e := range te.Errors {
					if strings.Contains(e, "already defined at line") {
						dups = append(dups, fmt.Errorf("%s:%s", path, oneLine(strings.TrimPrefix(e, "line "))))
					}
				}
				return nil, errors.Join(append(errs, dups...)...)
			}
		}
		for i, e := range te.Errors {
			if i == 10 {
				errs = append(errs, fmt.Errorf("%s: and %d more values of the wrong type", path, len(te.Errors)-i))
				break
			}
			if msg, field, line, ok := typeError(e, lines, values, rawLines, named); ok {
				// the walk above already said what is wrong with this field (want a list)
				if reported == nil || !strings.Contains(reported.Error(), fmt.Sprintf("%s:%d: %s: ", path, line, orRoot(field))) {
					errs = append(errs, fmt.Errorf("%s:%d: %s", path, line, msg))
				}
				// (a list or mapping named for want of the field inside it:
				// its other errors are not this one's)
				if t := configFieldType(field); t != nil && t.Kind() != reflect.Slice && t.Kind() != reflect.Map && t.Kind() != reflect.Struct {
					wrongType = append(wrongType, fmt.Sprintf(": %s: ", orRoot(field)))
				}
				continue
			}
			errs = append(errs, fmt.Errorf("%s:%s", path, oneLine(strings.TrimPrefix(e, "line "))))
		}
	}
	if err := c.validate(path, lines); err != nil {
		// a field of the wrong type is left unset: what the checks of
		// its value say of it (required) is not the config's mistake
		for _, e := range unjoin(err) {
			if !slices.ContainsFunc(wrongType, func(f string) bool { return strings.Contains(e.Error(), f) }) {
				errs = append(errs, e)
			}
		}
	}
	if len(errs) > 0 {
		// the config fails anyway: its missing files too, all at once
		// (a config that parses has them checked when it runs)
		if err := c.checkTraces(); err != nil {
			errs = append(errs, unjoin(err)...)
		}
		return nil, errors.Join(byLine(errs, path)...)
	}
	return c, nil
}

// unjoin lists the errors errors.Join joined in err (err alone where it
// joins none).
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, unjoin(e)...)
		}
		return out
	}
	return []error{err}
}

// secondDocument reports the line of a YAML document after the first in
// raw, if there is one (a file whose first document parsed), or the
// error that stopped the decoder in it.
func secondDocument(raw []byte) (int, bool, error) {
	d := yaml.NewDecoder(bytes.NewReader(raw))
	var n yaml.Node
	if d.Decode(&n) != nil {
		return 0, false, nil
	}
	for {
		n = yaml.Node{}
		switch err := d.Decode(&n); {
		case err == io.EOF:
			return 0, false, nil
		case err != nil:
			return 0, true, err
		}
		// an empty document (a "---" closing the file) says nothing
		if len(n.Content) > 0 && (n.Content[0].Kind != yaml.ScalarNode || n.Content[0].Tag != "!!null") {
			return max(n.Content[0].Line, 1), true, nil
		}
	}
}

// MaxRuns bounds the runs of one experiment: a million runs of a few
// milliseconds each are hours of simulation and gigabytes of results.
const MaxRuns = 1000000

// maxConfigNodes bounds the values of a config, its aliases expanded: a
// few hundred make a large experiment; an alias bomb ("billion laughs")
// makes billions.
const maxConfigNodes = 100000

// fieldHint says where an unknown field at path probably belongs: a
// sweep's axis written on a workload or at the top, a σ written on a
// workload ("" for none).
func fieldHint(path, key string) string {
	switch {
	case path == "sweep":
		return ""
	case key == "load":
		return "the load is swept for every workload: sweep: {load: [1]}"
	case key == "sigma" && strings.HasPrefix(path, "workloads["):
		return "noise on a workload's run times is run_noise (σ); a noisy estimate's σ is a scheduler's sigma"
	case key == "sigma":
		return "a noisy estimate's σ is a scheduler's sigma, or swept: sweep: {sigma: [0.5]}"
	}
	return ""
}

// checkFields walks the YAML tree against the config's types, reporting
// every unknown field with its path and the known ones, and recording the
// line of every path. Aliases are followed and merge keys (<<: *base)
// checked as the fields they merge, within budget nodes in all.
func checkFields(n *yaml.Node, t reflect.Type, path, file string, lines map[string]int, values map[string]string, errs *[]error, budget *int) {
	for n.Kind == yaml.AliasNode && n.Alias != nil && *budget >= 0 {
		n = n.Alias
		*budget--
	}
	if *budget--; *budget < 0 {
		return
	}
	if _, ok := lines[path]; !ok { // a merged mapping's fields keep the line of the one merging
		lines[path] = n.Line
	}
	if n.Kind == yaml.ScalarNode {
		values[path] = n.Value
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			*errs = append(*errs, fmt.Errorf("%s:%d: %s: want a mapping of fields", file, n.Line, orRoot(path)))
			return
		}
		fields := map[string]reflect.Type{}
		var known []string
		for i := range t.NumField() {
			f := t.Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if tag == "" || tag == "-" || !f.IsExported() {
				continue
			}
			fields[tag] = f.Type
			known = append(known, tag)
		}
		slices.Sort(known)
		given := map[string]int{} // key → its line: a key given twice is said at every depth
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if givenAgain(given, k, path, file, errs) {
				continue
			}
			if k.Value == "<<" && (k.Tag == "!!merge" || k.Tag == "") { // merged mappings: their fields are this one's
				for v.Kind == yaml.AliasNode && v.Alias != nil {
					v = v.Alias
				}
				merged := []*yaml.Node{v}
				if v.Kind == yaml.SequenceNode {
					merged = v.Content
				}
				for _, m := range merged {
					checkFields(m, t, path, file, lines, values, errs, budget)
				}
				continue
			}
			p := join(path, k.Value)
			ft, ok := fields[k.Value]
			if !ok && path == "" && strings.HasPrefix(k.Value, "x-") {
				continue // an extension field, as Compose files have: a place for anchors to merge elsewhere
			}
			if !ok {
				// a key across lines, or of control characters, quoted: an
				// error is one line
				shown := p
				if strings.ContainsFunc(k.Value, unicode.IsControl) {
					shown = join(path, strconv.Quote(k.Value))
				}
				hint := ""
				if h := fieldHint(path, k.Value); h != "" {
					hint = "; " + h
				} else if c := registry.Closest(k.Value, known); c != "" {
					hint = "; did you mean " + c + "?"
				}
				*errs = append(*errs, fmt.Errorf("%s:%d: %s: unknown field (known: %s)%s", file, k.Line, shown, strings.Join(known, ", "), hint))
				continue
			}
			checkFields(v, ft, p, file, lines, values, errs, budget)
		}
	case reflect.Map:
		// prices, run_noise_gpus, gpu_models, gpu_specs: a key given twice
		// said as a field's is (the decoder's type errors say the rest)
		if n.Kind != yaml.MappingNode {
			return
		}
		given := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if givenAgain(given, k, path, file, errs) {
				continue
			}
			checkFields(v, t.Elem(), join(path, k.Value), file, lines, values, errs, budget)
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			*errs = append(*errs, fmt.Errorf("%s:%d: %s: want a list", file, n.Line, orRoot(path)))
			return
		}
		for i, e := range n.Content {
			checkFields(e, t.Elem(), path+"["+strconv.Itoa(i)+"]", file, lines, values, errs, budget)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		// the decoder truncates a float into an integer (seed: 1.5 → 1);
		// a whole number written as a float (1e3, 10.0) is one
		if n.Kind == yaml.ScalarNode && n.Tag == "!!float" {
			if f, err := strconv.ParseFloat(n.Value, 64); err != nil || f != math.Trunc(f) || math.IsInf(f, 0) {
				*errs = append(*errs, fmt.Errorf("%s:%d: %s: %s: want a whole number", file, n.Line, orRoot(path), n.Value))
			}
		}
	}
}

// givenAgain reports key k of the mapping at path as given twice when
// given (key → line) has it, and records it otherwise; a merge key ("<<")
// may come again.
func givenAgain(given map[string]int, k *yaml.Node, path, file string, errs *[]error) bool {
	if first, ok := given[k.Value]; ok && k.Value != "<<" {
		*errs = append(*errs, fmt.Errorf("%s:%d: %s: given again (first at line %d): give it once", file, k.Line, join(path, k.Value), first))
		return true
	}
	given[k.Value] = k.Line
	return false
}

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

func orRoot(path string) string {
	if path == "" {
		return "(top level)"
	}
	return path
}

// validate reports every semantic problem at once.
func (c *Config) validate(file string, lines map[string]int) error {
	var errs []error
	bad := func(path, format string, args ...any) {
		line := lines[path]
		for p := path; line == 0 && p != ""; {
			if i := strings.LastIndexAny(p, ".["); i >= 0 {
				p = p[:i]
			} else {
				p = ""
			}
			line = lines[p]
		}
		errs = append(errs, fmt.Errorf("%s:%d: %s: %s", file, line, orRoot(path), fmt.Sprintf(format, args...)))
	}
	isKnown := func(value string, names []string) bool { return value == "" || slices.Contains(names, value) }
	known := func(path, value string, names []string) {
		if !isKnown(value, names) {
			lower := ""
			if isKnown(strings.ToLower(value), names) {
				lower = fmt.Sprintf(": names are lower case, %s", strings.ToLower(value))
			} else if c := registry.Closest(value, names); c != "" {
				lower = fmt.Sprintf(": did you mean %s?", c)
			}
			bad(path, "unknown %q (known: %s)%s", value, strings.Join(names, ", "), lower)
		}
	}
	if c.Name == "" {
		bad("name", "required: the experiment's name")
	} else if strings.ContainsAny(c.Name, `/\`) || c.Name == "." || c.Name == ".." {
		bad("name", "%q is not a plain name (it names results/<name>)", c.Name)
	}
	if c.Replicas < 0 {
		bad("replicas", "%d is negative", c.Replicas)
	}
	// The runs are enumerated up front (RunKey, about 80 bytes each): bound
	// their number before anything is built.
	if n := float64(max(len(c.Workloads), 1)) * float64(max(len(c.Schedulers), 1)) * float64(max(len(c.Sweep.Load), 1)) *
		float64(max(len(c.Sweep.Procs), 1)) * float64(max(len(c.Sweep.Sigma), 1)) * float64(max(c.Replicas, 1)); n > MaxRuns {
		bad("replicas", "the config makes %.4g runs (workloads × schedulers × sweep points × replicas): at most %d", n, MaxRuns)
	}
	if len(c.Workloads) == 0 {
		bad("workloads", "required: at least one workload")
	}
	slugs := map[string][2]string{} // a workload name's slug in lower case → the name and its path
	names := map[string]string{}
	for i, w := range c.Workloads {
		p := fmt.Sprintf("workloads[%d]", i)
		switch {
		case w.Trace == "" && w.Synthetic == nil:
			bad(p+".trace", "required: the trace as [FORMAT:]PATH (or a synthetic: section in its place)")
		case w.Trace != "" && w.Synthetic != nil:
			bad(p+".synthetic", "a workload is a trace or synthetic, not both")

		case w.Synthetic != nil:
			if err := w.Synthetic.Validate(); err != nil {
				for _, e := range strings.Split(err.Error(), "\n") {
					bad(p+".synthetic", "%s", e)
				}
			}
			// a 0 written is not the default it would stand for (a
			// reviewer's find: mean_interarrival: 0 drew the default 600
			// s, without a word)
			for _, f := range []struct {
				name string
				v    float64
				want string
			}{
				{"mean_interarrival", w.Synthetic.MeanInterarrival, "a positive number of seconds (leave it out for 600)"},
				{"min_runtime", w.Synthetic.MinRuntime, "at least 1 s (leave it out for 10)"},
				{"max_runtime", w.Synthetic.MaxRuntime, "at least min_runtime (leave it out for 86,400 s)"},
				{"estimate_factor", w.Synthetic.EstimateFactor, "1 (exact) or more (leave it out for 5)"},
			} {
				if path := p + ".synthetic." + f.name; f.v == 0 && c.given(path) {
					bad(path, "0: want %s", f.want)
				}
			}
			if w.Window > 0 || w.Cluster != "" || w.Procs > 0 || w.GPUType != "" || w.SkipInvalid {
				bad(p+".synthetic", "window, cluster, procs, gpu_type and skip_invalid are for traces; a synthetic workload runs on a pool of synthetic.procs")
			}
		}
		if w.Window < 0 {
			bad(p+".window", "%d is negative", w.Window)
		}
		// what only an SWF trace reads (a format the name cannot tell is
		// the run's error, with the file)
		if format, err := workload.TraceFormat(c.resolve(w.Trace)); w.Synthetic == nil && err == nil {
			if w.SkipInvalid && format != "swf" {
				bad(p+".skip_invalid", "skips an SWF trace's malformed lines; a %s trace is read whole, stopping at its first malformed line", format)
			}
			if w.Procs > 0 && format != "swf" {
				bad(p+".procs", "sizes an SWF trace's pool of processors; a %s trace runs on its cluster (cluster: ...)", format)
			}
			if w.GPUType != "" && format != "gavel" {
				bad(p+".gpu_type", "names the GPU whose measured throughputs time a Gavel trace's jobs; a %s trace has its own run times", format)
			}
		}
		if w.GPUType != "" && w.Synthetic == nil {
			// the bundled throughputs decide; where they cannot be read,
			// the run says so
			if types, err := workload.GavelGPUTypes(); err == nil && !slices.Contains(types, w.GPUType) {
				hint := ""
				if slices.Contains(types, strings.ToLower(w.GPUType)) {
					hint = "; Gavel's GPU types are lower case: " + strings.ToLower(w.GPUType)
				}
				measured := slices.DeleteFunc(slices.Clone(types), func(t string) bool { return strings.Contains(t, "_") }) // not k80_unconsolidated
				bad(p+".gpu_type", "%q: Gavel measured its jobs on %s only (for other GPUs name them in cluster, with throughputs: predicted)%s",
					w.GPUType, strings.Join(measured, ", "), hint)
			}
		}
		if strings.HasPrefix(w.Cluster, "nodes:") || strings.HasPrefix(w.Cluster, "pool:") {
			if cl, _, err := workload.ParseCluster(w.Cluster); err != nil {
				bad(p+".cluster", "%v", err) // file-free specs are checked here; files when the run loads them
			} else if format, _ := workload.TraceFormat(c.resolve(w.Trace)); format == "gavel" && w.Throughputs == "" {
				// a Gavel trace timed by its measurements runs on GPUs Gavel
				// measured (each run would fail on another; throughputs:
				// measured says so itself, validatePlan)
				c.checkMeasured(p, cl, bad)
			}
		}
		switch {
		case w.Sample < 0:
			bad(p+".sample", "%d is negative", w.Sample)
		case w.Sample > 0 && w.Window > 0:
			bad(p+".sample", "a replica is a window or a sample of the trace, not both")
		case w.Sample > 0 && w.Synthetic != nil:
			bad(p+".sample", "sample is for traces; a synthetic workload has synthetic.jobs")
		}
		if w.ArrivalRate < 0 {
			bad(p+".arrival_rate", "%d is negative", w.ArrivalRate)
		}
		if w.ArrivalInterval < 0 || w.ArrivalInterval > 1<<30 {
			bad(p+".arrival_interval", "%d: want 1 to 2^30 s, or 0 for 60", w.ArrivalInterval)
		} else if w.ArrivalInterval > 0 && w.ArrivalRate == 0 {
			bad(p+".arrival_interval", "has no effect without arrival_rate")
		}
		if w.Procs < 0 || w.Procs > scheduler.MaxProcs {
			bad(p+".procs", "%d: want 1 to %d processors (the simulator's bound of 2^40 milli-cores), or 0 for the header's MaxProcs", w.Procs, scheduler.MaxProcs)
		}
		if strings.ContainsFunc(w.Name, unicode.IsControl) {
			bad(p+".name", "%q holds a control character (a line feed, tab...): a name is one line of printed table", w.Name)
		}
		if n := c.WorkloadName(i); names[n] != "" {
			bad(p+".name", "%q already names %s", n, names[n])
		} else {
			names[n] = p
			// a figure drawn per workload is named by the workload's name
			// with what a file name cannot hold as _ (slug): two names
			// alike there (or but for case, on a disk that ignores it)
			// would write one file, the second over the first
			k := strings.ToLower(slug(n))
			if o, ok := slugs[k]; ok {
				bad(p+".name", "%q and %q (%s) give the same figure file names (…-%s): name them apart in letters, digits, '-', '_' or '.'", n, o[0], o[1], slug(n))
			} else {
				slugs[k] = [2]string{n, p}
			}
		}
	}
	parts := Parts()
	snames := map[string]string{}
	for i, s := range c.Schedulers {
		p := fmt.Sprintf("schedulers[%d]", i)
		known(p+".order", s.Order, parts.Orders.Names())
		known(p+".backfill", s.Backfill, parts.Backfills.Names())
		known(p+".placement", s.Placement, parts.Placements.Names())
		known(p+".estimate", s.Estimate, parts.Estimators.Names())
		if strings.ContainsFunc(s.Name, unicode.IsControl) {
			bad(p+".name", "%q holds a control character (a line feed, tab...): a name is one line of printed table", s.Name)
		}
		if n := c.SchedulerName(i); snames[n] != "" {
			bad(p+".name", "%q already names %s", n, snames[n])
		} else {
			snames[n] = p
		}
	}
	if len(c.Schedulers) == 0 {
		bad("schedulers", "required: at least one scheduler")
	}
	// a list given empty would read as none given, the default (a
	// reviewer's find: load: [] ran the trace as recorded)
	for _, e := range []struct {
		name  string
		empty bool
	}{{"load", c.Sweep.Load != nil && len(c.Sweep.Load) == 0}, {"procs", c.Sweep.Procs != nil && len(c.Sweep.Procs) == 0}, {"sigma", c.Sweep.Sigma != nil && len(c.Sweep.Sigma) == 0}} {
		if e.empty {
			bad("sweep."+e.name, "an empty list: give the values to sweep, or leave sweep.%s out for its default", e.name)
		}
	}
	for i, l := range c.Sweep.Load {
		switch {
		case !(l > 0):
			bad(fmt.Sprintf("sweep.load[%d]", i), "%v is not a positive arrival-rate multiplier", l)
		case l < 1e-6 || l > 1e6: // inter-arrival times scale by 1/load: past 10⁶ the trace leaves the simulator's horizon
			bad(fmt.Sprintf("sweep.load[%d]", i), "%v: want an arrival-rate multiplier from 1e-6 to 1e6", l)
		}
	}
	for i, v := range c.Sweep.Sigma {
		if !(v >= 0) || v > 10 {
			bad(fmt.Sprintf("sweep.sigma[%d]", i), "%v is not a σ from 0 to 10", v)
		}
	}
	// a point given twice would run the same runs twice, as other points
	for i, l := range c.Sweep.Load {
		if j := slices.Index(c.Sweep.Load, l); j >= 0 && j < i { // (NaN is no point: said above)
			bad(fmt.Sprintf("sweep.load[%d]", i), "%v again (sweep.load[%d]): each point once", l, j)
		}
	}
	for i, v := range c.Sweep.Sigma {
		if j := slices.Index(c.Sweep.Sigma, v); j >= 0 && j < i { // (NaN is no point: said above)
			bad(fmt.Sprintf("sweep.sigma[%d]", i), "%v again (sweep.sigma[%d]): each point once", v, j)
		}
	}
	if len(c.Sweep.Sigma) > 0 && !slices.ContainsFunc(c.Schedulers, func(s SchedulerConfig) bool { return s.takesSigma() }) {
		// every run of each point would be the same simulation
		why := "no scheduler's estimate takes σ (estimate: noisy)"
		if c.hasSharing() {
			why += "; a sharing scheduler's error of prediction is sharing.prediction_sigma"
		}
		bad("sweep.sigma", "%s", why)
	}
	for i, v := range c.Sweep.Procs {
		if j := slices.Index(c.Sweep.Procs, v); j >= 0 && j < i {
			bad(fmt.Sprintf("sweep.procs[%d]", i), "%v again (sweep.procs[%d]): each point once", v, j)
		}
	}
	for i, s := range c.Schedulers {
		switch {
		case !(s.Sigma >= 0) || s.Sigma > 10:
			bad(fmt.Sprintf("schedulers[%d].sigma", i), "%v is not a σ from 0 to 10", s.Sigma)
		case s.Sigma != 0 && !s.takesSigma() && s.Sharing == "": // a sharing scheduler's fields are checked with it
			bad(fmt.Sprintf("schedulers[%d].sigma", i), "is the noisy estimate's σ; estimate %s has no error to scale", cmp.Or(s.Estimate, "user"))
		case s.takesSigma() && len(c.Sweep.Sigma) == 0 && !c.given(fmt.Sprintf("schedulers[%d].sigma", i)):
			// (σ 0 is the exact run time: a "noisy" curve that is exact,
			// as wb simulate --estimate noisy without --sigma refuses)
			bad(fmt.Sprintf("schedulers[%d].estimate", i), "noisy needs sigma, the σ of its lognormal error (sigma: 0.5; 0 is the exact run time), or sweep.sigma (configs/prediction.yaml sweeps 0.25 to 2)")
		}
		if s.KillFactor != 0 && !(s.KillFactor >= 1 && !math.IsInf(s.KillFactor, 0)) {
			bad(fmt.Sprintf("schedulers[%d].kill_factor", i), "%v: want 0 (never) or at least 1", s.KillFactor)
		}
		// on machines of one node every placement places alike: a
		// comparison of placements there would find no difference
		if len(c.Workloads) > 0 && !slices.ContainsFunc(c.Workloads, func(w WorkloadConfig) bool { return !w.oneNode() }) {
			switch {
			case s.Consolidate:
				bad(fmt.Sprintf("schedulers[%d].consolidate", i), "every workload runs on one node (a pool: an SWF trace, a synthetic workload or a pool: cluster), where there is no other node to keep a job off")
			case s.Placement != "" && s.Placement != "first-fit" && s.Placement != "ga":
				bad(fmt.Sprintf("schedulers[%d].placement", i), "%s: every workload runs on one node (a pool: an SWF trace, a synthetic workload or a pool: cluster), where every placement places alike; placements differ on a cluster of GPU nodes (workloads[].cluster nodes:...)", s.Placement)
			}
		}
		if s.Consolidate && s.Sharing == "" {
			if pl, err := Parts().Placements.New(cmp.Or(s.Placement, "first-fit")); err == nil {
				if err := scheduler.ConsolidateWith(pl); err != nil {
					bad(fmt.Sprintf("schedulers[%d].consolidate", i), "%s", strings.TrimPrefix(err.Error(), "consolidate: "))
				}
			}
		}
		if s.Sharing == "" {
			p := fmt.Sprintf("schedulers[%d]", i)
			if s.PlacementArgs != nil && s.Placement == "ga" {
				bad(p+".placement_args", "placement ga's settings are its section ga: give them there")
			}
			if s.EstimateArgs != nil && s.Estimate == "noisy" {
				bad(p+".estimate_args", "estimate noisy's setting is its σ: schedulers[].sigma, or sweep.sigma")
			}
			if isKnown(s.Order, parts.Orders.Names()) && isKnown(s.Backfill, parts.Backfills.Names()) &&
				isKnown(s.Placement, parts.Placements.Names()) && isKnown(s.Estimate, parts.Estimators.Names()) {
				// each part decodes its own settings (scheduler.Configurable):
				// one it does not know, or of the wrong type, is said here,
				// before any run, at its field, with the part's name; a part
				// is told its settings even where the config gives none, so
				// that one that needs a setting is refused here, not in every
				// run once the results directory is claimed (a reviewer's find)
				fields := []partArgs{
					{"order_args", cmp.Or(s.Order, "fifo"), s.OrderArgs},
					{"backfill_args", cmp.Or(s.Backfill, "none"), s.BackfillArgs},
					{"placement_args", cmp.Or(s.Placement, "first-fit"), s.PlacementArgs},
					{"estimate_args", cmp.Or(s.Estimate, "user"), s.EstimateArgs},
				}
				sp := scheduler.Spec{Order: s.Order, Backfill: s.Backfill, Placement: s.Placement, Estimate: s.Estimate,
					OrderArgs: s.OrderArgs, BackfillArgs: s.BackfillArgs, PlacementArgs: s.PlacementArgs, EstimateArgs: s.EstimateArgs}
				if s.Placement == "ga" {
					sp.PlacementArgs = nil // (said above)
				}
				if s.Estimate == "noisy" {
					sp.EstimateArgs = nil // (said above)
				}
				if _, err := parts.Build(sp); err != nil {
					for _, e := range strings.Split(err.Error(), "\n") {
						bad(argsPath(p, e, fields), "%s", e)
					}
				}
			}
		}
		if s.GA != nil {
			p := fmt.Sprintf("schedulers[%d].ga", i)
			switch {
			case s.Sharing != "":
				bad(p, "parameters of placement ga, but a sharing scheduler (sharing: %s) has no placement", s.Sharing)
			case s.Placement != "ga":
				bad(p, "parameters of placement ga, but the placement is %q", cmp.Or(s.Placement, "first-fit"))
			}
			if err := s.GA.params().Validate(); err != nil {
				for _, e := range strings.Split(err.Error(), "\n") {
					bad(p, "%s", e)
				}
			}
		}
	}
	for i, n := range c.Sweep.Procs {
		if n <= 0 || n > scheduler.MaxProcs {
			bad(fmt.Sprintf("sweep.procs[%d]", i), "%d: want 1 to %d processors (the simulator's bound of 2^40 milli-cores)", n, scheduler.MaxProcs)
		}
	}
	for i, m := range c.Metrics {
		known(fmt.Sprintf("metrics[%d]", i), m, numericSummaryColumns())
	}
	known("outputs.jobs", c.Outputs.Jobs, jobsChoices)
	if c.Outputs.TimeseriesPoints < -1 {
		bad("outputs.timeseries_points", "%d: want a positive number, 0 for the default or -1 for none", c.Outputs.TimeseriesPoints)
	}
	fnames := map[string]string{}
	for i, f := range c.Figures {
		p := fmt.Sprintf("figures[%d]", i)
		if f.Kind == "" {
			bad(p+".kind", "required (one of %s)", strings.Join(figureKinds, ", "))
		}
		// a name is a file's in figures/: a path would write outside it
		if f.Name != "" && (strings.ContainsAny(f.Name, `/\`) || strings.HasPrefix(f.Name, ".") || strings.ContainsFunc(f.Name, unicode.IsControl)) {
			bad(p+".name", "%q: a figure's name is the name of its files in figures/: no / or \\, not starting with a dot", f.Name)
		}
		known(p+".kind", f.Kind, figureKinds)
		switch f.Kind {
		case "line", "bar":
			if f.Metric == "" {
				bad(p+".metric", "required: a summary.csv column")
			} else {
				known(p+".metric", f.Metric, numericSummaryColumns())
			}
		case "cdf":
			if f.Metric == "" {
				bad(p+".metric", "required (one of %s)", strings.Join(cdfMetrics, ", "))
			}
			known(p+".metric", f.Metric, cdfMetrics)
			if c.Outputs.Jobs == "none" {
				bad(p, "a cdf needs jobs.csv, but outputs.jobs is none")
			}
		case "pareto":
			if n := cmp.Or(len(f.Workloads), len(c.Workloads)); n > figures.MaxSeries {
				bad(p, "%d workloads; the figure, one series each, tells at most %d apart (choose some: workloads)", n, figures.MaxSeries)
			}
			for k, name := range f.Workloads {
				if c.workloadIndex(name) < 0 {
					bad(fmt.Sprintf("%s.workloads[%d]", p, k), "%q names no workload", name)
				}
			}
			// a front compares candidates for one job mix: the workloads
			// it draws may differ in their cluster, not in their jobs (a
			// reviewer's find: a sample of 300 at one arrival every 4 h
			// stood beside 100 at 1 h, unsaid)
			// (those the figure draws: without a value of its x, an
			// unpriced workload on a cost front, it draws none)
			ws := []int{}
			for _, name := range f.Workloads {
				if i := c.workloadIndex(name); i >= 0 {
					ws = append(ws, i)
				}
			}
			if len(f.Workloads) == 0 {
				for i := range c.Workloads {
					ws = append(ws, i)
				}
			}
			ws = slices.DeleteFunc(ws, func(i int) bool { return !c.Workloads[i].hasValue(cmp.Or(f.X, "cost")) })
			for _, i := range ws[min(1, len(ws)):] {
				if d := c.jobMixDiff(c.Workloads[ws[0]], c.Workloads[i]); len(d) > 0 {
					bad(p+".workloads", "%s and %s differ in %s, not only in their cluster: a front compares candidates for one job mix "+
						"(a figure per mix: workloads)", c.WorkloadName(ws[0]), c.WorkloadName(i), strings.Join(d, ", "))
					break
				}
			}
			// nor may a front set a candidate against itself: two
			// workloads that differ only in how their run times are
			// estimated (measured or predicted, with run_noise or without)
			// are two estimates of one cluster (a reviewer's find: a noisy
			// twin could join its own cluster on the front, as the draw
			// fell)
			if f.front() {
			twins:
				for a, i := range ws {
					for _, j := range ws[a+1:] {
						if estimateTwins(c.Workloads[i], c.Workloads[j]) {
							bad(p+".workloads", "%s and %s are one cluster estimated two ways (they differ only in throughputs, run_noise or how a prediction is held out): a front compares candidates; draw one of them, or both with front: false",
								c.WorkloadName(i), c.WorkloadName(j))
							break twins
						}
					}
				}
			}
			if f.Metric != "" && f.Metric == cmp.Or(f.X, "cost") {
				// every point on one diagonal: no trade-off to show
				bad(p+".x", "%s is the metric too: a Pareto figure plots one column against another", f.Metric)
			}
			for _, m := range []struct{ path, col string }{{".metric", f.Metric}, {".x", cmp.Or(f.X, "cost")}} {
				switch {
				case m.col == "":
					bad(p+m.path, "required: a summary.csv column")
				case slices.Contains(numericSummaryColumns(), m.col) && metricBetter(m.col) == 0:
					// a front needs a way better on each axis
					bad(p+m.path, "%s is a count of the workload or the cluster, neither better higher nor lower: a Pareto front needs one of %s",
						m.col, strings.Join(betterColumns(), ", "))
				default:
					known(p+m.path, m.col, betterColumns())
				}
			}
		case "progress":
			if f.Metric != "util" {
				bad(p+".metric", "want util (GPU utilisation against jobs processed)")
			}
			for w := range c.Workloads {
				if c.Workloads[w].processorPool() {
					bad(p, "a progress figure draws GPU utilisation, and workload %s runs on a pool of processors, which has no GPUs", c.WorkloadName(w))
				}
			}
			if c.Outputs.Jobs == "none" {
				bad(p, "a progress figure needs jobs.csv, but outputs.jobs is none")
			}
		case "timeseries":
			if f.Metric == "" {
				bad(p+".metric", "required (one of %s)", strings.Join(seriesMetrics, ", "))
			}
			known(p+".metric", f.Metric, seriesMetrics)
			if c.Outputs.TimeseriesPoints < 0 {
				bad(p, "a timeseries needs timeseries.csv, but outputs.timeseries_points is -1")
			}
		}
		if len(f.Workloads) > 0 && f.Kind != "pareto" {
			bad(p+".workloads", "only pareto figures choose workloads")
		}
		if f.Front != nil && f.Kind != "pareto" {
			bad(p+".front", "only pareto figures name a front")
		}
		if f.Kind == "bar" && f.LogX {
			bad(p+".log_x", "a bar figure's x axis is its workloads (log_y draws its bars on a log scale)")
		}
		switch {
		case f.Kind == "line":
			known(p+".x", f.X, sweepAxes)
		case f.Kind == "pareto":
		case f.X != "":
			bad(p+".x", "only line figures have a sweep axis (and pareto figures a summary column)")
		}
		if f.Load != 0 && f.Kind == "line" {
			bad(p+".load", "a line figure draws every load it plots (x: load), or the one load swept: drop load")
		} else if f.Load != 0 && !slices.Contains(c.Loads(), f.Load) {
			bad(p+".load", "%v is not one of the sweep's loads %v", f.Load, c.Loads())
		}
		// a figure draws one value of each swept axis it does not plot
		// (load: its load field picks one): over several it would average
		// them, its caption none the wiser
		values := map[string]int{"load": len(c.Loads()), "procs": len(c.Sweep.Procs), "sigma": len(c.Sweep.Sigma)}
		plotted := "load"
		if f.Kind == "line" {
			plotted = cmp.Or(f.X, "load")
			if values[plotted] == 0 {
				bad(p+".x", "%s is not swept (sweep.%s)", plotted, plotted)
			}
		}
		for _, ax := range sweepAxes {
			if ax != plotted && values[ax] > 1 {
				bad(p, "the config sweeps %s over %d values, which this %s figure does not plot and would average over: "+
					"sweep one axis beside the one a figure plots (a config per value of the other), or plot %s (kind: line, x: %s)", ax, values[ax], f.Kind, ax, ax)
			}
		}
		if (f.Kind == "bar" || f.Kind == "line" || f.Kind == "pareto") && f.Metric == "util_gpu" && !slices.ContainsFunc(c.Workloads, func(w WorkloadConfig) bool { return !w.processorPool() }) {
			bad(p+".metric", "util_gpu is the GPUs' utilisation, and every workload runs on a pool of processors, which has none: draw util_cpu")
		}
		if (f.Kind == "bar" || f.Kind == "line" || f.Kind == "pareto") && f.Metric == "util_mem" && !slices.ContainsFunc(c.Workloads, func(w WorkloadConfig) bool { return !w.oneNode() }) {
			bad(p+".metric", "util_mem is the memory's utilisation, and every workload runs on a pool (of processors, or pool:G:C), which holds no memory: draw util_cpu or util_gpu")
		}
		if (f.Kind == "bar" || f.Kind == "line") && slices.Contains(planMetricColumns, f.Metric) && !c.hasPrice() {
			bad(p+".metric", "%s is a column of priced workloads only, and no workload has a price: give them price (or prices, per GPU model)", f.Metric)
		}
		// the figure's workloads with a price and without
		var priced, unpriced []string
		for w := range c.Workloads {
			if name := c.WorkloadName(w); len(f.Workloads) == 0 || slices.Contains(f.Workloads, name) {
				if c.Workloads[w].priced() {
					priced = append(priced, name)
				} else {
					unpriced = append(unpriced, name)
				}
			}
		}
		if (f.Kind == "bar" || f.Kind == "line" || f.Kind == "pareto") && (f.Metric == "cost" || f.Metric == "cost_per_job") && c.hasPrice() {
			// a workload without a price has no cost to draw (its cells are
			// empty): said here, not after every run
			if len(unpriced) > 0 {
				also := ""
				if f.Kind == "pareto" {
					also = ", or list the priced ones in this figure's workloads"
				}
				bad(p+".metric", "%s: workloads %s have no price, so no %s: give them price (or prices, per GPU model)%s", f.Metric, strings.Join(unpriced, ", "), f.Metric, also)
			}
		}
		if x := cmp.Or(f.X, "cost"); f.Kind == "pareto" && (x == "cost" || x == "cost_per_job") {
			if len(priced) == 0 {
				bad(p, "a pareto figure draws %s against %s, and none of its workloads has a price: give them price (or prices, per GPU model)", x, cmp.Or(f.Metric, "a metric"))
			}
		}
		if j := slices.IndexFunc(c.Figures[:i], func(g FigureConfig) bool { return g.Name == f.Name && reflect.DeepEqual(g, f) }); j >= 0 {
			bad(p, "draws what figures[%d] draws: remove one", j)
		} else if n := c.FigureName(i); fnames[n] != "" {
			bad(p+".name", "%q already names %s: name one of them (name: ...)", n, fnames[n])
		} else {
			fnames[n] = p
		}
	}
	c.Kind().Validate(c, bad)
	return errors.Join(errs...)
}

// partArgs is a scheduler's part and the settings its config field gives.
type partArgs struct {
	field, part string
	args        map[string]any
}

// argsPath is where under scheduler path p a part's error e is said: the
// field of the part e begins with (one given settings before one given
// none, where two parts share a name) and the setting e names first (the
// keys in order: the same line on every load), or the only one given; p
// itself where e names no part.
func argsPath(p, e string, fields []partArgs) string {
	var f *partArgs
	for i := range fields {
		g := &fields[i]
		if (strings.HasPrefix(e, g.part+":") || strings.HasPrefix(e, g.part+" ")) && (f == nil || f.args == nil && g.args != nil) {
			f = g
		}
	}
	if f == nil {
		return p
	}
	best, bestAt := "", len(e)
	for _, k := range slices.Sorted(maps.Keys(f.args)) {
		for _, pat := range []string{": " + k + " is not a setting of ", ": " + k + ": "} {
			if i := strings.Index(e, pat); i >= 0 && i < bestAt {
				best, bestAt = k, i
			}
		}
	}
	if best == "" && len(f.args) == 1 && !strings.Contains(e, "takes no arguments") {
		best = slices.Collect(maps.Keys(f.args))[0]
	}
	if best == "" {
		return p + "." + f.field
	}
	return p + "." + f.field + "." + best
}

// byLine sorts a config's errors in the file's order (file:line: first),
// each line's in the order found, those of no line of the file after them
// (a typo's line came after later lines' problems: a reviewer's find).
func byLine(errs []error, file string) []error {
	lineOf := func(e error) int {
		rest, ok := strings.CutPrefix(e.Error(), file+":")
		if n, err := strconv.Atoi(rest[:max(strings.IndexByte(rest, ':'), 0)]); ok && err == nil {
			return n
		}
		return math.MaxInt
	}
	slices.SortStableFunc(errs, func(a, b error) int { return cmp.Compare(lineOf(a), lineOf(b)) })
	return errs
}

// workloadIndex is the index of the workload called name, or -1.
// jobMixDiff lists, by their config names, the fields in which two
// workloads' job mixes differ: every field but those of the cluster they
// run on (its GPUs, their throughputs, links, prices and the noise on
// their run times), a default written out (arrival_interval: 60) or a
// trace named by another path the same.
func (c *Config) jobMixDiff(a, b WorkloadConfig) []string {
	for _, w := range []*WorkloadConfig{&a, &b} {
		w.Name, w.Cluster, w.Procs, w.Throughputs, w.GPUSpecs, w.GPUModels = "", "", 0, "", nil, nil
		w.Interconnect, w.AllReduceGBps, w.InternodeGBps, w.AllReduceGavel, w.HeldOut = "", 0, 0, false, false
		w.RunNoise, w.RunNoiseBy, w.RunNoiseGPUs, w.Price, w.Prices = 0, "", nil, 0, nil
		if w.ArrivalRate > 0 && w.ArrivalInterval == 0 {
			w.ArrivalInterval = 60
		}
		if w.Trace != "" {
			spec := c.resolve(w.Trace)
			format, err1 := workload.TraceFormat(spec)
			path, err2 := workload.TraceFile(spec)
			if err1 == nil && err2 == nil {
				w.Trace = format + ":" + filepath.Clean(path)
			}
		}
	}
	var out []string
	va, vb, t := reflect.ValueOf(a), reflect.ValueOf(b), reflect.TypeOf(a)
	for i := range t.NumField() {
		if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			out = append(out, strings.Split(t.Field(i).Tag.Get("yaml"), ",")[0])
		}
	}
	return out
}

// estimateTwins reports whether a and b are one cluster under one job mix,
// differing only in how their jobs' run times are estimated: their names,
// throughputs (measured or predicted), the noise on their run times, and
// whether a prediction holds Gavel's GPUs out or times all-reduces at
// Gavel's servers' links.
func estimateTwins(a, b WorkloadConfig) bool {
	for _, w := range []*WorkloadConfig{&a, &b} {
		w.Name, w.Throughputs, w.HeldOut, w.AllReduceGavel = "", "", false, false
		w.RunNoise, w.RunNoiseBy, w.RunNoiseGPUs = 0, "", nil
	}
	return reflect.DeepEqual(a, b)
}

// workloadIndex is the index of the workload named name, or −1.
func (c *Config) workloadIndex(name string) int {
	for i := range c.Workloads {
		if c.WorkloadName(i) == name {
			return i
		}
	}
	return -1
}

// WorkloadName is workload i's label.
func (c *Config) WorkloadName(i int) string {
	w := &c.Workloads[i]
	if w.Name != "" {
		return w.Name
	}
	if w.Synthetic != nil {
		return "synthetic"
	}
	_, path, _ := strings.Cut(w.Trace, ":")
	if path == "" || !strings.Contains(w.Trace, ":") {
		path = w.Trace
	}
	base := filepath.Base(path)
	for _, ext := range []string{".gz", ".swf", ".csv", ".trace"} {
		base = strings.TrimSuffix(base, ext)
	}
	return base
}

// SchedulerName is scheduler i's label.
func (c *Config) SchedulerName(i int) string {
	s := &c.Schedulers[i]
	if s.Name != "" {
		return s.Name
	}
	if s.Sharing != "" {
		return s.sharingName()
	}
	return c.spec(i).String()
}

// checkMeasured refuses, for workload p, the GPU models of cl that Gavel
// measured no job on.
func (c *Config) checkMeasured(p string, cl *scheduler.Cluster, bad func(path, format string, args ...any)) {
	types, err := workload.GavelGPUTypes()
	if err != nil {
		return // the run says so
	}
	var missing []string
	for _, m := range workload.GPUModels(cl) {
		if m != "" && !slices.Contains(types, m) {
			missing = append(missing, m)
		}
	}
	if len(missing) > 0 {
		measured := slices.DeleteFunc(types, func(t string) bool { return strings.Contains(t, "_") }) // not k80_unconsolidated
		bad(p+".cluster", "Gavel measured its jobs on %s only, not on %s: use a cluster of the measured GPUs, or time the jobs with wb's predictor (throughputs: predicted, as configs/plan.yaml does)",
			strings.Join(measured, ", "), strings.Join(missing, ", "))
	}
}

// FigureName is figure i's file name, without extension.
func (c *Config) FigureName(i int) string {
	f := &c.Figures[i]
	if f.Name != "" {
		return f.Name
	}
	name := f.Kind + "-" + f.Metric
	// a figure whose default name a figure before it has takes what sets
	// it apart, its x and its load, into its own (two CDFs at loads 1.2
	// and 1.6: cdf-wait, cdf-wait-load1.6); figures alike in both are
	// told to name one (Validate)
	for j := range i {
		if c.Figures[j].Name == name || (c.Figures[j].Name == "" && c.Figures[j].Kind+"-"+c.Figures[j].Metric == name) {
			if f.X != "" {
				name += "-" + f.X
			}
			switch {
			case f.Load != 0:
				name += "-load" + strconv.FormatFloat(f.Load, 'g', -1, 64)
			case c.Figures[j].Load != 0 && c.Figures[j].Load != c.figureLoad(i):
				// the default load, set apart from the one written before
				name += "-load" + strconv.FormatFloat(c.figureLoad(i), 'g', -1, 64)
			}
			break
		}
	}
	return name
}

func (c *Config) spec(i int) scheduler.Spec {
	s := &c.Schedulers[i]
	sp := scheduler.Spec{Order: s.Order, Backfill: s.Backfill, Placement: s.Placement, Estimate: s.Estimate,
		KillAtUserLimit: s.KillAtUserLimit, KillFactor: s.KillFactor, PlacementArgs: s.GA.args(), Consolidate: s.Consolidate,
		OrderArgs: s.OrderArgs, BackfillArgs: s.BackfillArgs}
	if s.PlacementArgs != nil { // (not with a ga section: the check refuses both)
		sp.PlacementArgs = s.PlacementArgs
	}
	if s.EstimateArgs != nil { // (not with noisy: the check refuses both)
		sp.EstimateArgs = s.EstimateArgs
	}
	if s.takesSigma() {
		sp.EstimateArgs = scheduler.Args{"sigma": s.Sigma}
	}
	return sp
}

// hasArgs reports whether the scheduler gives any part settings of its
// own (order_args, backfill_args, placement_args, estimate_args).
func (s *SchedulerConfig) hasArgs() bool {
	return s.OrderArgs != nil || s.BackfillArgs != nil || s.PlacementArgs != nil || s.EstimateArgs != nil
}

// takesSigma reports whether the scheduler's estimate uses σ (the noisy
// estimate's argument sigma): the others ignore the field and the sweep.
func (s *SchedulerConfig) takesSigma() bool { return s.Estimate == "noisy" && s.Sharing == "" }

// given reports whether the config's file sets the field at path
// ("schedulers[0].sigma"), a value of 0 included.
func (c *Config) given(path string) bool {
	_, ok := c.lines[path]
	return ok
}

// runSpec is scheduler k.Scheduler's spec in run k: the swept σ, and the
// noisy estimate's seed drawn from the replica's stream.
func (c *Config) runSpec(k RunKey) scheduler.Spec {
	sp := c.spec(k.Scheduler)
	if len(c.Sweep.Sigma) > 0 && c.Schedulers[k.Scheduler].takesSigma() {
		sp.EstimateArgs = scheduler.Args{"sigma": k.Sigma}
	}
	sp.Seed = rand.New(rand.NewPCG(c.Seed, uint64(k.Replica))).Uint64()
	return sp
}

// Loads is the sweep's loads, [1] when not swept.
func (c *Config) Loads() []float64 {
	if len(c.Sweep.Load) == 0 {
		return []float64{1}
	}
	return c.Sweep.Load
}

// ReplicaCount is the number of replicas, 1 by default.
func (c *Config) ReplicaCount() int { return max(c.Replicas, 1) }

// OutDir is the results directory.
func (c *Config) OutDir() string {
	if c.Out != "" {
		return c.Out
	}
	return filepath.Join("results", c.Name)
}

// resultFile is the path of one of the experiment's result files (for
// messages that name it).
func (c *Config) resultFile(name string) string { return filepath.Join(c.OutDir(), name) }

// Hash is the SHA-256 of the config file's bytes.
func (c *Config) Hash() string { return sha256Hex(c.raw) }

// sha256Hex is b's SHA-256 in hex: a config's hash, as a marker records it.
func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// RunHash is what a run's results depend on besides wb itself (see
// computeRunHash), computed once: the inputs are read on its first call.
func (c *Config) RunHash() string {
	if c.runHash == nil { // a Config not made by ParseConfig
		return c.computeRunHash()
	}
	return c.runHash()
}

// computeRunHash is the SHA-256
// of the config file's bytes and of every file it reads, each as resolved
// (the workloads' traces and cluster files, the spec sheets of gpu_specs):
// a run made before one of them changed, or with the same config in
// another folder, is not resumed. A file that cannot be read counts as
// its path alone (the run will fail on it).
func (c *Config) computeRunHash() string {
	h := sha256.New()
	h.Write(c.raw)
	c.eachInput(func(named, path string) {
		// a bundled file by its name within the data, wherever the data
		// is found (its resolved path hashed made every stored run stale
		// where WB_DATA named the same data otherwise: a reviewer's find)
		key := path
		if strings.HasPrefix(named, "$WB_DATA/") {
			key = named
		}
		fmt.Fprintf(h, "\x00%s\x00", key)
		if fh, err := FileHash(path); err == nil {
			h.Write([]byte(fh))
		}
	})
	return hex.EncodeToString(h.Sum(nil))
}

// eachInput calls f with every file the config's runs read, named as the
// config names it and as resolved: each workload's trace and cluster file
// and its gpu_specs sheets, in order (a cluster spec that names no file
// is passed too; it hashes as its path alone), then the bundled data the
// runs read without the config naming it (bundledInputs).
func (c *Config) eachInput(f func(named, resolved string)) {
	for i := range c.Workloads {
		w, o := &c.Workloads[i], c.workloadOptions(i)
		if w.Synthetic == nil {
			f(w.Trace, stripFormat(o.Trace))
		}
		if o.Cluster != "" {
			f(w.Cluster, stripFormat(o.Cluster))
		}
		for _, name := range slices.Sorted(maps.Keys(w.GPUSpecs)) {
			f(w.GPUSpecs[name], c.sheetPath(w.GPUSpecs[name]))
		}
	}
	c.bundledInputs(f)
}

// bundledInputs calls f with each file of wb's bundled data the runs read
// without the config naming it, named "$WB_DATA/" and its path within the
// data's folder (the same on every machine) and as resolved, in order:
// the node list of a cluster preset (openb, openb-all, pai); Gavel's
// measured throughputs, which a Gavel trace's run times, sharing
// schedulers and capacity planning's predicted twins read; and NeuSight's
// measurements, from which a held-out twin's op models are trained. A run
// stored before one of them changed is run again on --resume, as one of a
// changed trace is (they were left out: a reviewer's find). Nothing where
// the bundled data is not found (the runs say so).
func (c *Config) bundledInputs(f func(named, resolved string)) {
	data, err := datasets.DataDir()
	if err != nil {
		return
	}
	files := map[string]bool{}
	trained := false // a workload's op models are trained on NeuSight's measurements
	throughputs := filepath.Join("gavel", "simulation_throughputs.json.gz")
	for i := range c.Workloads {
		w, o := &c.Workloads[i], c.workloadOptions(i)
		if p, ok := workload.PresetFile(o.Cluster); ok {
			files[p] = true
		}
		if w.Synthetic == nil {
			if format, err := workload.TraceFormat(o.Trace); err == nil && format == "gavel" {
				files[throughputs] = true
			}
		}
		if w.Throughputs != "" || w.AllReduceGavel || w.HeldOut {
			files[throughputs] = true
		}
		trained = trained || w.HeldOut || w.AllReduceGavel
	}
	if trained { // (the folder walked once, however many workloads train on it)
		_ = filepath.WalkDir(filepath.Join(data, "neusight"), func(p string, e fs.DirEntry, err error) error {
			if err == nil && e.Type().IsRegular() {
				if rel, err := filepath.Rel(data, p); err == nil {
					files[rel] = true
				}
			}
			return nil
		})
	}
	if slices.ContainsFunc(c.Schedulers, func(s SchedulerConfig) bool { return s.Sharing != "" }) {
		files[throughputs] = true
	}
	for _, rel := range slices.Sorted(maps.Keys(files)) {
		f("$WB_DATA/"+filepath.ToSlash(rel), filepath.Join(data, rel))
	}
}

// resolve makes a trace or cluster path relative to the config file.
func (c *Config) resolve(spec string) string {
	format, path, ok := strings.Cut(spec, ":")
	if !ok || strings.ContainsAny(format, `/\.`) {
		format, path = "", spec
	}
	if path == "" || filepath.IsAbs(path) {
		return spec
	}
	// Cluster presets and generated clusters are not paths.
	switch format {
	case "pool", "nodes":
		return spec
	case "":
		if workload.IsPreset(spec) {
			return spec
		}
	}
	p := filepath.Join(c.dir, path)
	if format != "" {
		return format + ":" + p
	}
	return p
}

// workloadOptions is workload i's reader options.
func (c *Config) workloadOptions(i int) workload.Options {
	w := &c.Workloads[i]
	o := workload.Options{Trace: c.resolve(w.Trace), Procs: w.Procs, SkipInvalid: w.SkipInvalid, GPUType: w.GPUType, GPUModels: w.GPUModels,
		OwnRunTimes: w.Throughputs == ThroughputsPredicted}
	if w.Cluster != "" {
		o.Cluster = c.resolve(w.Cluster)
	}
	return o
}

// checkTraces reports every workload whose trace file is missing or of an
// unknown format, and every openb cluster file and spec sheet (gpu_specs)
// missing, each with the config's line: a run reads them, a plot or a
// merge of stored runs does not.
func (c *Config) checkTraces() error {
	var errs []error
	at := c.at
	for i, w := range c.Workloads {
		if w.Trace != "" {
			field := fmt.Sprintf("workloads[%d].trace", i)
			if w.Trace == "synthetic" {
				errs = append(errs, fmt.Errorf("%s: %s: synthetic: a generated workload is a section of its own (synthetic: {jobs: ..., ...}) in place of trace, not a trace's name", at(field), field))
			} else if path, err := workload.TraceFile(c.resolve(w.Trace)); err != nil {
				// named as the config names it
				errs = append(errs, fmt.Errorf("%s: %s: %s", at(field), field, strings.Replace(err.Error(), c.resolve(w.Trace), w.Trace, 1)))
			} else if err := unreadable(path); err != nil {
				errs = append(errs, fmt.Errorf("%s: %s: %s: %v (a relative path is read from the config's folder)", at(field), field, path, err))
			} else if err := notTrace(path); err != nil {
				errs = append(errs, fmt.Errorf("%s: %s: %s: %v", at(field), field, path, err))
			}
		}
		if w.Throughputs == ThroughputsPredicted {
			for _, name := range slices.Sorted(maps.Keys(w.GPUSpecs)) {
				path := w.GPUSpecs[name]
				if err := unreadable(c.sheetPath(path)); err != nil {
					field := fmt.Sprintf("workloads[%d].gpu_specs.%s", i, name)
					_, names, _ := neusight.BundledSheet("")
					errs = append(errs, fmt.Errorf("%s: %s: %s: %v (read from the config's folder), nor a bundled spec sheet (%s)", at(field), field, path, err, strings.Join(names, ", ")))
				}
			}
		}
		field := fmt.Sprintf("workloads[%d].cluster", i)
		kind, rest, _ := strings.Cut(w.Cluster, ":")
		switch {
		case w.Cluster == "" || kind == "nodes" || kind == "pool" || workload.IsPreset(w.Cluster):
			// (nodes: and pool: are checked with the config)
		case (kind == "openb" || kind == "pai") && rest != "":
			path := c.resolve(rest)
			if err := unreadable(path); err != nil {
				errs = append(errs, fmt.Errorf("%s: %s: %s: %v (a relative path is read from the config's folder)", at(field), field, path, err))
			} else if err := notTrace(path); err != nil {
				errs = append(errs, fmt.Errorf("%s: %s: %s: %v", at(field), field, path, err))
			}
		default:
			// no file to read: what ParseCluster says of it (unknown), on
			// one line (its list of specs is the workload reader's help)
			if _, _, err := workload.ParseCluster(w.Cluster); err != nil {
				msg, list, _ := strings.Cut(err.Error(), "\n")
				if list != "" {
					msg = strings.TrimSuffix(msg, "; one of:") + " (known: " + strings.Join(workload.ClusterSpecs, ", ") + "; wb simulate --help describes each)"
				}
				errs = append(errs, fmt.Errorf("%s: %s: %s", at(field), field, msg))
			}
		}
	}
	return errors.Join(errs...)
}

// at is where the config sets field: "FILE:LINE", or the file where the
// line is not known.
func (c *Config) at(field string) string { return c.atIn(cmp.Or(c.file, c.path), field) }

// atIn is at with the config's file named file.
func (c *Config) atIn(file, field string) string {
	if l := c.lines[field]; l > 0 {
		return fmt.Sprintf("%s:%d", file, l)
	}
	return file
}

// notTrace says why the file at path, which exists, cannot be a trace or
// node list: a folder, or a file of no bytes.
func notTrace(path string) error {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return err
	case st.IsDir():
		return errors.New("a folder; want a trace file")
	case st.Size() == 0:
		return errors.New("an empty file")
	}
	return nil
}

// unreadable says why the file at path cannot be read ("no such file"),
// or nil.
func unreadable(path string) error {
	_, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		err = errors.New("no such file")
	}
	return err
}

// quotedScalar reports whether v, read as a string, would be a value of Go
// type goType unquoted (a bool, an integer or a number).
func quotedScalar(v, goType string) bool {
	switch {
	case goType == "bool":
		return v == "true" || v == "false"
	case strings.HasPrefix(goType, "int") || strings.HasPrefix(goType, "uint"):
		_, err := strconv.ParseInt(v, 10, 64)
		return err == nil
	case strings.HasPrefix(goType, "float"):
		// as YAML reads a number unquoted (nan and inf it reads as strings)
		return yamlNumber.MatchString(v)
	}
	return false
}

// yamlNumber matches a decimal number as YAML reads one unquoted.
var yamlNumber = regexp.MustCompile(`^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$`)

// yamlTypeError matches a yaml.v3 type error: line, the value's tag, the
// value and the Go type.
var yamlTypeError = regexp.MustCompile("(?s)^line (\\d+): cannot unmarshal !!?([^\\s`]+)(?: `(.*)`)? into (.+)$")

// configFieldType is the Go type of a config's field by its path
// ("workloads[0].sample", "workloads[1].gpu_specs.X"), from Config's yaml
// tags; nil where the path names no field.
func configFieldType(path string) reflect.Type {
	// (yaml names the type a pointer field decodes into: *bool's bool)
	deref := func(t reflect.Type) reflect.Type {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		return t
	}
	t := reflect.TypeOf(Config{})
	for _, part := range strings.Split(path, ".") {
		name, idx, _ := strings.Cut(part, "[")
		switch t.Kind() {
		case reflect.Struct:
			found := false
			for i := range t.NumField() {
				f := t.Field(i)
				tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
				if tag == name && tag != "" && tag != "-" {
					t, found = deref(f.Type), true
					break
				}
			}
			if !found {
				return nil
			}
		case reflect.Map:
			t = deref(t.Elem())
		default:
			return nil
		}
		for range strings.Count(idx, "[") + min(len(idx), 1) {
			if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
				return nil
			}
			t = deref(t.Elem())
		}
	}
	return t
}

// typeError rewrites a yaml.v3 type error in the config's words: the field
// at its line (the most specific one the walk recorded there) and what it
// wants, not a Go type.
//
// A list or mapping where a scalar goes is the field of that Go type at
// the line; of several (a flow mapping on one line), the first not named
// yet (named) in the order their keys appear in the line (rawLines).
func typeError(e string, lines map[string]int, values map[string]string, rawLines []string, named map[string]bool) (msg, field string, line int, ok bool) {
	m := yamlTypeError.FindStringSubmatch(e)
	if m == nil {
		return "", "", 0, false
	}
	line, _ = strconv.Atoi(m[1])
	// the field of that line whose value it is; a mapping or list (no
	// quoted value) is the shortest path there, the others its fields
	// yaml.v3 cuts a long value to its first 7 characters and "..."
	sameValue := func(v string) bool {
		if cut, ok := strings.CutSuffix(m[3], "..."); ok && len(v) > len(cut) {
			return strings.HasPrefix(v, cut)
		}
		return v == m[3]
	}
	var at []string
	for p, l := range lines {
		if l == line && (m[3] == "" || sameValue(values[p])) {
			at = append(at, p)
		}
	}
	if m[3] == "" {
		// a mapping or list where a scalar goes: the field of that Go type
		// (on a line of one flow mapping, {name: a, sample: [50]}, every
		// field of the workload is on the line; the shortest was the
		// workload itself: a reviewer's find)
		var typed []string
		for _, p := range at {
			if _, scalar := values[p]; scalar || named[p] {
				continue // (its value is a scalar, or its error was said)
			}
			if t := configFieldType(p); t != nil && t.String() == m[4] {
				typed = append(typed, p)
			}
		}
		if len(typed) > 1 && line >= 1 && line <= len(rawLines) {
			// yaml reports a line's errors in order: the first key there
			text := rawLines[line-1]
			first, firstAt := typed[0], len(text)+1
			for _, p := range typed {
				key := p[strings.LastIndex(p, ".")+1:]
				key, _, _ = strings.Cut(key, "[")
				if loc := regexp.MustCompile(`(^|[\s{,])` + regexp.QuoteMeta(key) + `\s*:`).FindStringIndex(text); loc != nil && loc[0] < firstAt {
					first, firstAt = p, loc[0]
				}
			}
			typed = []string{first}
		}
		if len(typed) == 1 {
			at = typed
			named[typed[0]] = true
		}
	}
	slices.SortFunc(at, func(a, b string) int { return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b)) })
	if len(at) == 0 || m[3] != "" && len(at) > 1 {
		return "", "", 0, false // not told apart: the decoder's words
	}
	field = at[0]
	want := "a value of another type"
	switch goType := m[4]; {
	case strings.HasPrefix(goType, "[]"):
		want = "a list"
	case strings.HasPrefix(goType, "map["):
		want = "a mapping"
	case goType == "uint64" && m[2] == "float" && wholeText.MatchString(m[3]):
		// a whole number past a uint64's reach reads as a float
		want = "a whole number from 0 to 18446744073709551615"
	case strings.HasPrefix(goType, "uint"):
		want = "a whole number, 0 or more"
	case (goType == "int" || goType == "int64") && m[2] == "float" && wholeText.MatchString(m[3]):
		want = "a whole number from -9223372036854775808 to 9223372036854775807"
	case strings.HasPrefix(goType, "int"):
		want = "a whole number"
	case strings.HasPrefix(goType, "float"):
		want = "a number"
	case goType == "string":
		want = "a string"
	case goType == "bool":
		want = "true or false"
	case strings.Contains(goType, "."):
		want = "a mapping of fields"
	}
	if m[3] == "" { // a mapping or a list, whose value yaml does not quote
		return fmt.Sprintf("%s: want %s", orRoot(field), want), field, line, true
	}
	if m[2] == "str" && strings.HasPrefix(m[4], "float") && quotedScalar(m[3], m[4]) {
		if _, err := strconv.ParseFloat(strings.ReplaceAll(m[3], "_", ""), 64); errors.Is(err, strconv.ErrRange) {
			// YAML reads a number beyond a float64 (1e400) as a string
			return fmt.Sprintf("%s: %s is beyond a float64's range: want %s", orRoot(field), m[3], want), field, line, true
		}
	}
	if m[2] == "str" && want != "a string" && quotedScalar(m[3], m[4]) {
		// "false", "2": a value of the right kind, quoted into a string
		return fmt.Sprintf("%s: %q is quoted, so a string: want %s, without the quotes", orRoot(field), m[3], want), field, line, true
	}
	v := m[3]
	if len(at) == 1 && strings.HasSuffix(v, "...") {
		v = values[at[0]] // the value as the config gives it, not cut short
	}
	if strings.ContainsAny(v, "\n\r") {
		v = strconv.Quote(v) // a value of several lines, on one
	}
	return fmt.Sprintf("%s: %s: want %s", orRoot(field), v, want), field, line, true
}

// oneLine is a decoder's message with the line ends of a value it quotes
// escaped, so that every line of an error names the file.
func oneLine(msg string) string {
	return strings.NewReplacer("\r", `\r`, "\n", `\n`).Replace(msg)
}

// wholeText is a whole number's digits as a type error quotes them (cut
// to 7 and "..." where longer).
var wholeText = regexp.MustCompile(`^-?[0-9]+(\.\.\.)?$`)

// yamlLine is the line yaml.v3 puts in a syntax error's message.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parserProblems are the problems yaml.v3's parser (not its scanner)
// reports: it names their line counting from 0 (parser.fail adds the 1
// only for a scanner's), so a flow mapping left open on line 23 read
// "line 22".
var parserProblems = []string{
	"did not find expected <stream-start>", "did not find expected <document start>",
	"did not find expected node content", "did not find expected '-' indicator", "did not find expected key",
	"did not find expected ',' or ']'", "did not find expected ',' or '}'",
	"found duplicate %TAG directive", "found duplicate %YAML directive",
	"found incompatible YAML document", "found undefined tag handle",
}

// maxProblemSearch bounds how many lines past the construct yaml.v3 names
// yamlSyntaxError looks for the problem in.
const maxProblemSearch = 400

// yamlSyntaxError reports a config that is not YAML at its file and line,
// as wb reports every other mistake in a config (file:line: what). The
// line is yaml.v3's corrected: a parser problem's counted from 1 and moved
// from the construct it is in to the problem itself, and a
// tab in an indentation, which it places where the node before began, at
// the first line indented with one from there on.
func yamlSyntaxError(path string, raw []byte, err error) error {
	m := yamlLine.FindStringSubmatch(err.Error())
	if m == nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	line, _ := strconv.Atoi(m[1])
	msg := m[2]
	if slices.Contains(parserProblems, msg) {
		line++
		// yaml.v3 names the line where the construct the problem is in
		// began (a list opened on line 15 for a bad item on line 18): the
		// first lines that fail alike end at the problem
		lines := strings.SplitAfter(string(raw), "\n")
		// (each try parses the lines before it: a bound keeps a long
		// file's search to a few seconds at most)
		for k := line; k <= min(len(lines), line+maxProblemSearch); k++ {
			var n yaml.Node
			if e := yaml.Unmarshal([]byte(strings.Join(lines[:k], "")), &n); e != nil && e.Error() == err.Error() {
				line = k
				break
			}
		}
	}
	if strings.HasPrefix(msg, "found a tab character") {
		for i, l := range strings.Split(string(raw), "\n") {
			indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
			if i+1 >= line && strings.Contains(indent, "\t") {
				line = i + 1
				break
			}
		}
	}
	if strings.HasPrefix(msg, "found a tab character") {
		msg += " (YAML indents with spaces only: replace the tabs)"
	}
	return fmt.Errorf("%s:%d: not YAML: %s", path, line, msg)
}
