// Package gavel reads the deep-learning job traces and measured throughputs
// of Gavel (stanford-futuredata/gavel; Narayanan et al., "Heterogeneity-Aware
// Cluster Scheduling Policies for Deep Learning Workloads", OSDI 2020).
//
// A trace is tab-separated, one job per line, in one of two layouts, told
// apart by the number of fields of the file's first line:
//
//   - 10 fields (the top-level *.trace files): job_type, command,
//     working_directory, num_steps_arg, needs_data_dir, total_steps,
//     scale_factor, priority_weight, SLO, arrival_time;
//   - 7 fields (the Philly-derived msr/*.trace files): job_type, command,
//     num_steps_arg, needs_data_dir, total_steps, arrival_time,
//     scale_factor.
//
// simulation_throughputs.json gives, per GPU type, per (job type, scale
// factor), the steps per second of the job alone ("null") and co-located
// with each other job ([own, partner]). Files may be gzip-compressed.
package gavel

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/wb-sim/wb/datasets"
	"github.com/wb-sim/wb/datasets/internal/gzfile"
	"github.com/wb-sim/wb/internal/registry"
	"github.com/wb-sim/wb/scheduler"
)

// Row is one job of a trace.
type Row struct {
	Line             int
	JobType          string // e.g. "ResNet-18 (batch size 32)": a key of the throughputs
	Command          string
	WorkingDirectory string // empty in the 7-field layout
	NumStepsArg      string
	NeedsDataDir     bool
	TotalSteps       int64
	ScaleFactor      int     // number of GPUs (workers)
	PriorityWeight   float64 // 1 in the 7-field layout
	SLO              float64 // -1 (none) in the 7-field layout
	Arrival          float64 // seconds
}

// Column names of the two layouts, in file order.
func columns(n int) []string {
	if n == 7 {
		return []string{"job_type", "command", "num_steps_arg", "needs_data_dir", "total_steps",
			"arrival_time", "scale_factor"}
	}
	return []string{"job_type", "command", "working_directory", "num_steps_arg", "needs_data_dir",
		"total_steps", "scale_factor", "priority_weight", "SLO", "arrival_time"}
}

// maxLine is the longest line of a trace, in bytes.
const maxLine = 1 << 20

// ReadTrace reads the trace in the file at path.
func ReadTrace(path string) ([]Row, error) {
	f, err := gzfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadTraceFrom(f, path)
}

// ReadTraceFrom reads a trace from r; name names it in errors, which read
// "file:line: column: what is wrong". Blank lines are skipped. total_steps
// must be a non-negative integer, scale_factor one too (0: the job is left
// out as no-workers by [Jobs]),
// needs_data_dir 0 or 1, arrival_time a non-negative number, and the
// weight and SLO finite numbers.
func ReadTraceFrom(r io.Reader, name string) ([]Row, error) {
	zr, err := gzfile.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer zr.Close()
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var rows []Row
	var errs []error
	fail := func(line int, column, format string, args ...any) {
		errs = append(errs, &datasets.ColumnError{File: name, Line: line, Column: column, Msg: fmt.Sprintf(format, args...)})
	}
	layout, read := 0, 0
	for line := 1; sc.Scan() && len(errs) < 10; line++ {
		read = line
		text := strings.TrimSuffix(sc.Text(), "\r")
		if line == 1 {
			text = strings.TrimPrefix(text, "\ufeff") // a byte-order mark, as some editors write
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		f := strings.Split(text, "\t")
		if layout == 0 {
			if len(f) != 7 && len(f) != 10 {
				fail(line, "", "%d tab-separated fields; want 10 or 7", len(f))
				break
			}
			layout = len(f)
		}
		if len(f) != layout {
			fail(line, "", "%d tab-separated fields; want %d as on the file's first line", len(f), layout)
			continue
		}
		col := map[string]string{}
		for i, c := range columns(layout) {
			col[c] = strings.TrimSpace(f[i])
		}
		num := func(c string) float64 {
			v, err := strconv.ParseFloat(col[c], 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				fail(line, c, "%s is not a finite number", quote(col[c]))
				return 0
			}
			return v
		}
		integer := func(c string, min int64) int64 {
			v, err := strconv.ParseInt(col[c], 10, 64)
			switch {
			case err != nil:
				fail(line, c, "%s is not an integer", quote(col[c]))
			case v < min:
				fail(line, c, "%d is less than %d", v, min)
			}
			return v
		}
		row := Row{
			Line:             line,
			JobType:          col["job_type"],
			Command:          col["command"],
			WorkingDirectory: col["working_directory"],
			NumStepsArg:      col["num_steps_arg"],
			TotalSteps:       integer("total_steps", 0),
			ScaleFactor:      int(integer("scale_factor", 0)), // 0: no workers, left out by Jobs as Gavel's parse_trace leaves it
			PriorityWeight:   1,
			SLO:              -1,
			Arrival:          num("arrival_time"),
		}
		if layout == 10 {
			row.PriorityWeight = num("priority_weight")
			row.SLO = num("SLO")
		}
		switch col["needs_data_dir"] {
		case "1":
			row.NeedsDataDir = true
		case "0":
		default:
			fail(line, "needs_data_dir", "%s is not 0 or 1", quote(col["needs_data_dir"]))
		}
		switch {
		case row.JobType == "":
			fail(line, "job_type", "empty")
		case row.Arrival < 0:
			fail(line, "arrival_time", "%v is negative", row.Arrival)
		case row.Arrival > float64(scheduler.MaxTime):
			fail(line, "arrival_time", "%v is past the simulator's time horizon of %d s (2^50)", row.Arrival, int64(scheduler.MaxTime))
		case row.ScaleFactor > scheduler.MaxReplicas:
			fail(line, "scale_factor", "%d workers: at most %d", row.ScaleFactor, scheduler.MaxReplicas)
		}
		rows = append(rows, row)
	}
	switch err := sc.Err(); {
	case errors.Is(err, bufio.ErrTooLong):
		return nil, &datasets.ColumnError{File: name, Line: read + 1, Msg: fmt.Sprintf("line longer than %d bytes: not a Gavel trace?", maxLine)}
	case errors.Is(err, gzfile.ErrTruncated):
		return nil, &datasets.ColumnError{File: name, Line: read + 1, Msg: err.Error()}
	case err != nil:
		return nil, fmt.Errorf("%s:%d: %w", name, read+1, err)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return rows, nil
}

func quote(s string) string {
	if len(s) > 32 {
		s = s[:32] + "..."
	}
	return strconv.Quote(s)
}

// JobKey names a job in the throughputs: its type and scale factor.
type JobKey struct {
	JobType     string
	ScaleFactor int
}

// String writes the key as the throughputs file does: a Python tuple.
func (k JobKey) String() string {
	return fmt.Sprintf("(%s, %d)", pyQuote(k.JobType), k.ScaleFactor)
}

// Throughput is what one job does on one GPU type, in steps per second.
type Throughput struct {
	// Solo is the job's throughput alone.
	Solo float64
	// Pairs gives, per partner job, the job's and the partner's throughput
	// when the two share the GPUs.
	Pairs map[JobKey][2]float64
}

// Throughputs holds the measured throughputs per GPU type ("k80", "p100",
// "v100", and the "_unconsolidated" variants) and job.
type Throughputs map[string]map[JobKey]Throughput

// GPUTypes returns the GPU types, sorted.
func (tp Throughputs) GPUTypes() []string {
	return slices.Sorted(maps.Keys(tp))
}

// GPUs returns the GPUs measured, sorted: the GPU types but for the
// "_unconsolidated" placements, which name no GPU of their own (what an
// error lists as known: a cluster of a placement's name is refused).
func (tp Throughputs) GPUs() []string {
	return slices.DeleteFunc(tp.GPUTypes(), func(t string) bool { return strings.Contains(t, "_") })
}

// ReadThroughputs reads simulation_throughputs.json (or its gzip) at path.
func ReadThroughputs(path string) (Throughputs, error) {
	f, err := gzfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadThroughputsFrom(f, path)
}

// BundledThroughputs reads the throughputs bundled with wb
// (datasets/data/gavel/simulation_throughputs.json.gz) and returns them
// with their path.
func BundledThroughputs() (Throughputs, string, error) {
	dir, err := datasets.DataDir()
	if err != nil {
		return nil, "", err
	}
	path := filepath.Join(dir, "gavel", "simulation_throughputs.json.gz")
	tp, err := ReadThroughputs(path)
	return tp, path, err
}

// ReadThroughputsFrom reads throughputs from r; name names it in errors.
// Keys must be Python tuples ('job type', scale factor), throughputs finite
// and non-negative, and every job must have its "null" (solo) entry.
func ReadThroughputsFrom(r io.Reader, name string) (Throughputs, error) {
	zr, err := gzfile.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer zr.Close()
	var raw map[string]map[string]map[string]json.RawMessage
	if err := json.NewDecoder(zr).Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	tp := make(Throughputs, len(raw))
	var errs []error
	fail := func(format string, args ...any) {
		if len(errs) < 10 {
			errs = append(errs, fmt.Errorf("%s: %s", name, fmt.Sprintf(format, args...)))
		}
	}
	// Sorted, so that the errors come in a stable order.
	for _, gpu := range slices.Sorted(maps.Keys(raw)) {
		jobs := make(map[JobKey]Throughput, len(raw[gpu]))
		for _, ks := range slices.Sorted(maps.Keys(raw[gpu])) {
			key, err := ParseJobKey(ks)
			if err != nil {
				fail("%s: %v", gpu, err)
				continue
			}
			entries := raw[gpu][ks]
			var t Throughput
			solo, ok := entries["null"]
			if !ok {
				fail("%s: %s: no \"null\" (solo) throughput", gpu, ks)
				continue
			}
			if err := json.Unmarshal(solo, &t.Solo); err != nil || t.Solo < 0 {
				fail("%s: %s: solo throughput %s is not a non-negative number", gpu, ks, solo)
				continue
			}
			t.Pairs = make(map[JobKey][2]float64, len(entries)-1)
			for _, ps := range slices.Sorted(maps.Keys(entries)) {
				if ps == "null" {
					continue
				}
				partner, err := ParseJobKey(ps)
				if err != nil {
					fail("%s: %s: %v", gpu, ks, err)
					continue
				}
				var pair []float64
				if err := json.Unmarshal(entries[ps], &pair); err != nil || len(pair) != 2 || pair[0] < 0 || pair[1] < 0 {
					fail("%s: %s: with %s: %s is not two non-negative numbers", gpu, ks, ps, entries[ps])
					continue
				}
				t.Pairs[partner] = [2]float64{pair[0], pair[1]}
			}
			if _, dup := jobs[key]; dup {
				fail("%s: %s: job given twice", gpu, ks)
			}
			jobs[key] = t
		}
		tp[gpu] = jobs
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return tp, nil
}

// ParseJobKey parses a key of the throughputs file, a Python tuple such as
// "('ResNet-18 (batch size 32)', 1)": a quoted string (single or double
// quotes, backslash escapes), a comma and an integer, spaces allowed around
// each.
func ParseJobKey(s string) (JobKey, error) {
	bad := func(why string) (JobKey, error) {
		return JobKey{}, fmt.Errorf("key %s: %s; want ('job type', scale factor)", quote(s), why)
	}
	in := strings.TrimSpace(s)
	if !strings.HasPrefix(in, "(") || !strings.HasSuffix(in, ")") {
		return bad("not in parentheses")
	}
	in = strings.TrimSpace(in[1 : len(in)-1])
	if in == "" || (in[0] != '\'' && in[0] != '"') {
		return bad("no quoted job type")
	}
	q := in[0]
	var b strings.Builder
	i := 1
	for ; i < len(in) && in[i] != q; i++ {
		if in[i] == '\\' && i+1 < len(in) {
			i++
		}
		b.WriteByte(in[i])
	}
	if i == len(in) {
		return bad("unterminated job type")
	}
	rest := strings.TrimSpace(in[i+1:])
	if !strings.HasPrefix(rest, ",") {
		return bad("no comma")
	}
	n, err := strconv.Atoi(strings.TrimSpace(rest[1:]))
	if err != nil {
		return bad("scale factor is not an integer")
	}
	return JobKey{JobType: b.String(), ScaleFactor: n}, nil
}

// pyQuote quotes s as Python's repr does for simple strings.
func pyQuote(s string) string {
	q := "'"
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		q = `"`
	}
	r := strings.NewReplacer(`\`, `\\`, q, `\`+q)
	return q + r.Replace(s) + q
}

// Per-replica request of a job besides its GPU: Gavel schedules GPUs only,
// so every worker asks for one whole GPU and this modest host share.
const (
	ReplicaCPU scheduler.MilliCPU = 1 * scheduler.MilliPerCore
	ReplicaMem scheduler.MiB      = 4 * 1024
)

// Reasons for which [Jobs] leaves a row out.
const (
	DropUnknownJob     = "no-throughput"    // (job type, scale factor) not measured on the GPU type
	DropUnknownType    = "unknown-job-type" // a job type measured on no GPU at any scale (a typo, or a job Gavel never ran)
	DropZeroThroughput = "zero-throughput"  // measured at 0 steps/s (did not fit)
	DropRunTooLong     = "run-too-long"     // would run past the simulator's horizon (scheduler.MaxTime, 2^50 s)
	DropNoWorkers      = "no-workers"       // scale factor 0, which Gavel's own parse_trace skips
	DropNoSteps        = "no-steps"         // total_steps 0: nothing to run (a sharing scheduler could not time it)
)

// hasJobType reports whether some GPU type measured jobType at some scale.
func (tp Throughputs) hasJobType(jobType string) bool {
	for _, byJob := range tp {
		for k := range byJob {
			if k.JobType == jobType {
				return true
			}
		}
	}
	return false
}

// unknownType describes row r, of a job type tp has no measurement of:
// its line and type, and the measured type nearest it where one is within
// a few letters (a typo).
func (tp Throughputs) unknownType(r Row) string {
	known := map[string]bool{}
	for _, byJob := range tp {
		for k := range byJob {
			known[k.JobType] = true
		}
	}
	s := fmt.Sprintf("line %d: %q, a job type Gavel measured on no GPU", r.Line, r.JobType)
	best, dist := "", 4 // a typo: within three edits
	for _, k := range slices.Sorted(maps.Keys(known)) {
		if d := registry.Distance(r.JobType, k); d < dist {
			best, dist = k, d
		}
	}
	if best != "" {
		s += fmt.Sprintf(" (did you mean %q?)", best)
	}
	return s
}

// Jobs returns one job per row, on GPUs of type gpuType:
//
//   - ID is the row's 0-based index, Name its job type;
//   - Submit = the arrival time rounded to the nearest second;
//   - Run = ceil(total_steps / solo throughput) of (job type, scale factor)
//     on gpuType; rows whose key has no throughput there are dropped as
//     [DropUnknownJob], or [DropUnknownType] where no GPU type measured
//     the job type at any scale (the msr traces have scale factors up to 64, the
//     throughputs 1, 2, 4 and 8, and Recommendation, A3C and CycleGAN on
//     one GPU alone: 197 of 0e4a51's 1,181 rows, all of several GPUs, are
//     dropped so), and those measured at 0 as [DropZeroThroughput];
//   - RunOn = the same on every GPU type of tp that measured the job, so
//     that on a heterogeneous cluster the job runs at the pace of the GPUs
//     it is placed on; Model, Batch (per GPU) and Steps describe it for
//     model-based estimators (see [ZooModel]);
//   - UserEstimate 0;
//   - one task of scale_factor replicas, each asking for one whole GPU,
//     [ReplicaCPU] and [ReplicaMem]: of any model, or, for a job that
//     another GPU type of tp measured at 0 (ResNet-50 at batch 128 on 2 to
//     8 K80s: it did not fit), of the models in RunOn.
//
// Priority weights and SLOs are not carried over. Jobs are sorted by
// (submit, id). An unknown gpuType is an error.
func Jobs(rows []Row, tp Throughputs, gpuType string) ([]scheduler.Job, datasets.Dropped, error) {
	perJob, ok := tp[gpuType]
	if !ok {
		return nil, nil, fmt.Errorf("gavel: no throughputs for GPU type %q (known: %s)", gpuType, strings.Join(tp.GPUs(), ", "))
	}
	var dropped datasets.Dropped
	types := 0 // GPU types, not placements (v100_unconsolidated)
	for g := range tp {
		if !strings.Contains(g, "_") {
			types++
		}
	}
	jobs := make([]scheduler.Job, 0, len(rows))
	for i, r := range rows {
		t, ok := perJob[JobKey{JobType: r.JobType, ScaleFactor: r.ScaleFactor}]
		switch {
		case r.ScaleFactor < 1:
			dropped.AddFirst(DropNoWorkers, fmt.Sprintf("line %d (%s)", r.Line, r.JobType))
			continue
		case r.TotalSteps < 1:
			dropped.AddFirst(DropNoSteps, fmt.Sprintf("line %d (%s)", r.Line, r.JobType))
			continue
		case !ok && !tp.hasJobType(r.JobType):
			dropped.AddFirst(DropUnknownType, tp.unknownType(r))
			continue
		case !ok:
			gpus := "GPUs"
			if r.ScaleFactor == 1 {
				gpus = "GPU"
			}
			dropped.AddFirst(DropUnknownJob, fmt.Sprintf("line %d (%s on %d %s)", r.Line, r.JobType, r.ScaleFactor, gpus))
			continue
		case t.Solo <= 0:
			dropped.AddFirst(DropZeroThroughput, fmt.Sprintf("line %d (%s)", r.Line, r.JobType))
			continue
		}
		run := math.Ceil(float64(r.TotalSteps) / t.Solo)
		if run > float64(scheduler.MaxTime) {
			dropped.AddFirst(DropRunTooLong, fmt.Sprintf("line %d (%s)", r.Line, r.JobType))
			continue
		}
		var runOn map[string]scheduler.Time
		for g, byJob := range tp {
			if strings.Contains(g, "_") { // "v100_unconsolidated": another placement, not a GPU
				continue
			}
			if t, ok := byJob[JobKey{JobType: r.JobType, ScaleFactor: r.ScaleFactor}]; ok && t.Solo > 0 && float64(r.TotalSteps)/t.Solo <= float64(scheduler.MaxTime) {
				if runOn == nil {
					runOn = map[string]scheduler.Time{}
				}
				runOn[strings.ToLower(g)] = scheduler.Time(math.Ceil(float64(r.TotalSteps) / t.Solo))
			}
		}
		var only []string // the models it may run on; nil: any
		if len(runOn) < types {
			only = slices.Sorted(maps.Keys(runOn))
		}
		model, batch := ZooModel(r.JobType)
		jobs = append(jobs, scheduler.Job{
			ID:     int64(i),
			Name:   r.JobType,
			Submit: scheduler.Time(math.Round(r.Arrival)),
			Run:    scheduler.Time(run),
			RunOn:  runOn,
			Model:  model, Batch: batch, Steps: r.TotalSteps,
			Tasks: []scheduler.Task{{
				Replicas: r.ScaleFactor,
				Request:  scheduler.Request{CPU: ReplicaCPU, Mem: ReplicaMem, GPUs: 1, Models: only},
			}},
		})
	}
	slices.SortStableFunc(jobs, func(a, b scheduler.Job) int {
		return cmp.Or(cmp.Compare(a.Submit, b.Submit), cmp.Compare(a.ID, b.ID))
	})
	return jobs, dropped, nil
}

// zooModels maps a Gavel job type's family to the wb zoo model its workload
// trains (Narayanan et al., OSDI 2020, Table 2), with the batch size of job
// types that do not name one.
var zooModels = map[string]struct {
	model string
	batch int
}{
	"ResNet-18":      {"resnet18-cifar", 0},
	"ResNet-50":      {"resnet50", 0},
	"Transformer":    {"transformer-translation", 0},
	"LM":             {"lm", 0},
	"Recommendation": {"recommendation", 0},
	"A3C":            {"a3c", 20},
	"CycleGAN":       {"cyclegan", 3},
}

var batchRE = regexp.MustCompile(`^(.*) \(batch size (\d+)\)$`)

// ZooModel is the zoo model and per-GPU batch size a Gavel job type trains
// ("ResNet-50 (batch size 64)" → resnet50, 64); empty for an unknown type.
// A3C's batch is its 20-step rollout and CycleGAN's the 3 passes of each
// network per iteration, as the zoo's entries define them.
func ZooModel(jobType string) (model string, batch int) {
	family := jobType
	if m := batchRE.FindStringSubmatch(jobType); m != nil {
		family = m[1]
		batch, _ = strconv.Atoi(m[2])
	}
	z, ok := zooModels[family]
	if !ok {
		return "", 0
	}
	if batch == 0 {
		batch = z.batch
	}
	return z.model, batch
}

// OutOfStepRatio is how far out of step with its family's other batches a
// job type's measurement must be for [Throughputs.OutOfStep] to report it:
// well past the noise of a measurement.
const OutOfStepRatio = 1.3

// BatchAnomaly is a job type that Gavel measured out of step with another
// batch of its family, on the same GPU type and as many GPUs: a smaller
// batch ran Ratio times its samples per second (Larger false), or a larger
// batch ran its iterations Ratio times as fast (Larger true). Neither
// follows from the network's work, which grows with the batch while a
// larger batch runs each sample no slower.
type BatchAnomaly struct {
	GPU    string
	Batch  int // the other batch
	Larger bool
	Ratio  float64
}

// String says it as the check tables print it: "Gavel's k80 ran batch 64
// at 1.59× its samples/s".
func (a BatchAnomaly) String() string {
	if a.Larger {
		return fmt.Sprintf("Gavel's %s ran batch %d's iterations %.2f× as fast", a.GPU, a.Batch, a.Ratio)
	}
	return fmt.Sprintf("Gavel's %s ran batch %d at %.2f× its samples/s", a.GPU, a.Batch, a.Ratio)
}

// OutOfStep reports whether tp has jobType ("Family (batch size B)") on
// gpus GPUs of type gpu out of step with another batch of its family by
// OutOfStepRatio or more (see BatchAnomaly): the other batch furthest out
// of step (ties: the smaller batch).
func (tp Throughputs) OutOfStep(gpu, jobType string, gpus int) (BatchAnomaly, bool) {
	m := batchRE.FindStringSubmatch(jobType)
	if m == nil {
		return BatchAnomaly{}, false
	}
	batch, _ := strconv.Atoi(m[2])
	own, ok := tp[gpu][JobKey{JobType: jobType, ScaleFactor: gpus}]
	if !ok || !(own.Solo > 0) || batch < 1 {
		return BatchAnomaly{}, false
	}
	best := BatchAnomaly{GPU: gpu}
	for k, t := range tp[gpu] {
		o := batchRE.FindStringSubmatch(k.JobType)
		if o == nil || o[1] != m[1] || k.ScaleFactor != gpus || !(t.Solo > 0) {
			continue
		}
		b, _ := strconv.Atoi(o[2])
		var a BatchAnomaly
		switch {
		case b < batch: // samples per second: steps/s × batch
			a = BatchAnomaly{GPU: gpu, Batch: b, Ratio: t.Solo * float64(b) / (own.Solo * float64(batch))}
		case b > batch: // iterations per second
			a = BatchAnomaly{GPU: gpu, Batch: b, Larger: true, Ratio: t.Solo / own.Solo}
		default:
			continue
		}
		if a.Ratio > best.Ratio || a.Ratio == best.Ratio && a.Batch < best.Batch {
			best = a
		}
	}
	return best, best.Ratio >= OutOfStepRatio
}
