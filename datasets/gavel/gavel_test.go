package gavel

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wb-sim/wb/datasets"
	"github.com/wb-sim/wb/datasets/internal/readcheck"
	"github.com/wb-sim/wb/scheduler"
)

const (
	data        = "../data/gavel/"
	throughputs = data + "simulation_throughputs.json.gz"
)

// Row counts are the files' line counts (wc -l); every file has one layout.
func TestReadTraceBundled(t *testing.T) {
	tests := []struct {
		file   string
		rows   int
		layout int
	}{
		{"artifact_evaluation.trace", 15, 10}, {"debug.trace", 14, 10}, {"debug_v2.trace", 14, 10},
		{"highmem_test.trace", 8, 10}, {"max_min_fairness.trace", 96, 10}, {"medium_test.trace", 20, 10},
		{"minimize_makespan.trace", 100, 10}, {"small_test.trace", 20, 10},
		{"msr/0e4a51.trace.gz", 1181, 7}, {"msr/103959.trace.gz", 986, 7}, {"msr/11cb48.trace.gz", 2000, 7},
		{"msr/23dbec.trace.gz", 9, 7}, {"msr/2869ce.trace.gz", 533, 7}, {"msr/51b7ef.trace.gz", 18, 7},
		{"msr/6214e9.trace.gz", 2000, 7}, {"msr/6c71a0.trace.gz", 2000, 7}, {"msr/795a4c.trace.gz", 3, 7},
		{"msr/7f04ca.trace.gz", 972, 7}, {"msr/925e2b.trace.gz", 4, 7}, {"msr/b436b2.trace.gz", 2000, 7},
		{"msr/e13805.trace.gz", 607, 7}, {"msr/ed69ec.trace.gz", 951, 7}, {"msr/ee9e8c.trace.gz", 2000, 7},
	}
	tp, err := ReadThroughputs(throughputs)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			rows, err := ReadTrace(data + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != tt.rows {
				t.Errorf("rows = %d, want %d", len(rows), tt.rows)
			}
			for i, r := range rows {
				if (tt.layout == 7) != (r.WorkingDirectory == "") {
					t.Fatalf("row %d: working directory %q in a %d-field file", i, r.WorkingDirectory, tt.layout)
				}
				if i > 0 && r.Arrival < rows[i-1].Arrival {
					t.Errorf("line %d: arrival %v before the previous %v", r.Line, r.Arrival, rows[i-1].Arrival)
				}
				if _, ok := tp["v100"][JobKey{r.JobType, 1}]; !ok {
					t.Errorf("line %d: job type %q unknown to the throughputs", r.Line, r.JobType)
				}
			}
		})
	}
}

func TestReadTrace(t *testing.T) {
	tests := []struct {
		file string
		want []Row
	}{
		{"testdata/ten.trace", []Row{
			{Line: 1, JobType: "ResNet-18 (batch size 64)", Command: "python3 main.py --batch_size 64",
				WorkingDirectory: "image_classification/cifar10", NumStepsArg: "--num_steps", NeedsDataDir: true,
				TotalSteps: 1000, ScaleFactor: 2, PriorityWeight: 1, SLO: -1, Arrival: 0},
			{Line: 2, JobType: "LM (batch size 5)", Command: "python main.py", WorkingDirectory: "language_modeling",
				NumStepsArg: "--steps", TotalSteps: 10, ScaleFactor: 1, PriorityWeight: 2.5, SLO: 1.5, Arrival: 30.7},
		}},
		{"testdata/seven.trace", []Row{
			{Line: 1, JobType: "A3C", Command: "cd %s && python3 main.py", NumStepsArg: "--max-steps", NeedsDataDir: true,
				TotalSteps: 500, ScaleFactor: 1, PriorityWeight: 1, SLO: -1, Arrival: 0},
			{Line: 2, JobType: "CycleGAN", Command: "python3 cyclegan.py", NumStepsArg: "--n_steps", NeedsDataDir: true,
				TotalSteps: 100, ScaleFactor: 16, PriorityWeight: 1, SLO: -1, Arrival: 12.4},
		}},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			rows, err := ReadTrace(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(rows, tt.want) {
				t.Errorf("rows =\n%+v\nwant\n%+v", rows, tt.want)
			}
		})
	}
}

func TestReadTraceErrors(t *testing.T) {
	ten := "A3C\tcmd\tdir\t--n\t1\t100\t1\t1\t-1\t0\n"
	tests := []struct {
		name, in, want string
	}{
		{"eight fields", "a\tb\tc\td\te\tf\tg\th\n", "t.trace:1: 8 tab-separated fields; want 10 or 7"},
		{"mixed layouts", ten + "A3C\tcmd\t--n\t1\t100\t0\t1\n", "t.trace:2: 7 tab-separated fields; want 10 as on the file's first line"},
		{"bad steps", strings.Replace(ten, "\t100\t", "\t1e3\t", 1), `t.trace:1: total_steps: "1e3" is not an integer`},
		{"negative scale", "A3C\tcmd\t--n\t1\t100\t0\t-1\n", `t.trace:1: scale_factor: -1 is less than 0`},
		{"bad arrival", "\nA3C\tcmd\t--n\t1\t100\tsoon\t1\n", `t.trace:2: arrival_time: "soon" is not a finite number`},
		{"negative arrival", "A3C\tcmd\t--n\t1\t100\t-1\t1\n", `t.trace:1: arrival_time: -1 is negative`},
		{"arrival past the horizon", "A3C\tcmd\t--n\t1\t100\t1e18\t1\n", `t.trace:1: arrival_time: 1e+18 is past the simulator's time horizon of 1125899906842624 s (2^50)`},
		{"2e9 workers", "A3C\tcmd\t--n\t1\t100\t0\t2000000000\n", `t.trace:1: scale_factor: 2000000000 workers: at most 4194304`},
		{"line too long", "A3C\tcmd\t--n\t1\t100\t0\t1\n" + strings.Repeat("x", 1<<20+1) + "\n", `t.trace:2: line longer than 1048576 bytes: not a Gavel trace?`},
		{"needs data dir", "A3C\tcmd\t--n\tyes\t100\t0\t1\n", `t.trace:1: needs_data_dir: "yes" is not 0 or 1`},
		{"no job type", "\tcmd\t--n\t1\t100\t0\t1\n", `t.trace:1: job_type: empty`},
		{"bad SLO", strings.Replace(ten, "\t-1\t", "\tInf\t", 1), `t.trace:1: SLO: "Inf" is not a finite number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadTraceFrom(strings.NewReader(tt.in), "t.trace")
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error = %v, want %q", err, tt.want)
			}
			var cerr *datasets.ColumnError
			if !errors.As(err, &cerr) {
				t.Errorf("error is not a *datasets.ColumnError")
			}
		})
	}
}

func TestReadThroughputs(t *testing.T) {
	tp, err := ReadThroughputs(throughputs)
	if err != nil {
		t.Fatal(err)
	}
	wantTypes := []string{"k80", "k80_unconsolidated", "p100", "p100_unconsolidated", "v100", "v100_unconsolidated"}
	if got := tp.GPUTypes(); !reflect.DeepEqual(got, wantTypes) {
		t.Errorf("GPU types = %v, want %v", got, wantTypes)
	}
	// 26 job types at scale 1, 19 of them also at 2, 4 and 8 (17 on
	// k80_unconsolidated); 26 partners each, plus the solo entry.
	for gpu, want := range map[string]int{"k80": 83, "v100": 83, "k80_unconsolidated": 77} {
		if got := len(tp[gpu]); got != want {
			t.Errorf("%s: %d jobs, want %d", gpu, got, want)
		}
	}
	// The values of the file's first entries.
	r18 := tp["k80"][JobKey{"ResNet-18 (batch size 16)", 1}]
	if r18.Solo != 4.795294551566172 {
		t.Errorf("solo = %v, want 4.795294551566172", r18.Solo)
	}
	if got, want := r18.Pairs[JobKey{"ResNet-18 (batch size 32)", 1}], [2]float64{2.539979567443098, 3.1201925448827033}; got != want {
		t.Errorf("pair = %v, want %v", got, want)
	}
	if len(r18.Pairs) != 26 {
		t.Errorf("%d partners, want 26", len(r18.Pairs))
	}
}

// TestOutOfStep: in the bundled throughputs, out of step with another
// batch of their family by 1.3× or more: ResNet-18 at batch 128 and 256 on
// 1 to 8 K80s (batch 64 ran 1.53–1.99× their samples per second: 451
// against 231 and 227 on one), ResNet-18 at batch 16 on 1 to 8 K80s (batch
// 32's iterations ran 1.40–1.63× as fast: 139 ms against 209 on one), the
// Transformer at batch 256 on 1 to 8 V100s (batch 128: 697
// samples/s against 408 on one) and ResNet-18 at batch 128 on 2 V100s. No
// P100 job. A made-up family checks the rule's edges.
func TestOutOfStep(t *testing.T) {
	tp, err := ReadThroughputs(throughputs)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, gpu := range []string{"k80", "p100", "v100"} {
		for _, n := range []int{1, 2, 4, 8} {
			for k := range tp[gpu] {
				if k.ScaleFactor != n {
					continue
				}
				if a, ok := tp.OutOfStep(gpu, k.JobType, n); ok {
					got = append(got, fmt.Sprintf("%d %s: %s", n, k.JobType, a))
				}
			}
		}
	}
	slices.Sort(got)
	want := []string{
		"1 ResNet-18 (batch size 128): Gavel's k80 ran batch 64 at 1.95× its samples/s",
		"1 ResNet-18 (batch size 16): Gavel's k80 ran batch 32's iterations 1.50× as fast",
		"1 ResNet-18 (batch size 256): Gavel's k80 ran batch 64 at 1.99× its samples/s",
		"1 Transformer (batch size 256): Gavel's v100 ran batch 128 at 1.71× its samples/s",
		"2 ResNet-18 (batch size 128): Gavel's k80 ran batch 64 at 1.72× its samples/s",
		"2 ResNet-18 (batch size 128): Gavel's v100 ran batch 64 at 1.55× its samples/s",
		"2 ResNet-18 (batch size 16): Gavel's k80 ran batch 32's iterations 1.50× as fast",
		"2 ResNet-18 (batch size 256): Gavel's k80 ran batch 64 at 1.87× its samples/s",
		"2 Transformer (batch size 256): Gavel's v100 ran batch 128 at 1.74× its samples/s",
		"4 ResNet-18 (batch size 128): Gavel's k80 ran batch 64 at 1.55× its samples/s",
		"4 ResNet-18 (batch size 16): Gavel's k80 ran batch 32's iterations 1.40× as fast",
		"4 ResNet-18 (batch size 256): Gavel's k80 ran batch 64 at 1.59× its samples/s",
		"4 Transformer (batch size 256): Gavel's v100 ran batch 128 at 1.49× its samples/s",
		"8 ResNet-18 (batch size 128): Gavel's k80 ran batch 64 at 1.56× its samples/s",
		"8 ResNet-18 (batch size 16): Gavel's k80 ran batch 32's iterations 1.63× as fast",
		"8 ResNet-18 (batch size 256): Gavel's k80 ran batch 64 at 1.53× its samples/s",
		"8 Transformer (batch size 256): Gavel's v100 ran batch 128 at 1.59× its samples/s",
	}
	if !slices.Equal(got, want) {
		t.Errorf("out of step:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// made-up families: F at 100 samples/s at batch 10, 140 at 20, 105 at
	// 40 (140 / 105 = 1.33: out of step with batch 20), and at 320 on 2
	// GPUs only; H at 4 iterations/s at batch 8, 5.3 at 16 (1.325× as
	// fast: batch 8 out of step with it), 2.7 at 32; no batch in the name,
	// no own entry, another family
	fake := Throughputs{"g": {
		{"F (batch size 10)", 1}: {Solo: 10}, {"F (batch size 20)", 1}: {Solo: 7}, {"F (batch size 40)", 1}: {Solo: 105.0 / 40},
		{"F (batch size 320)", 2}: {Solo: 1},
		{"H (batch size 8)", 1}:   {Solo: 4}, {"H (batch size 16)", 1}: {Solo: 5.3}, {"H (batch size 32)", 1}: {Solo: 2.7},
		{"G (batch size 5)", 1}: {Solo: 1000}, {"A3C", 1}: {Solo: 1},
	}}
	for _, c := range []struct {
		job    string
		gpus   int
		batch  int // 0: not reported
		larger bool
	}{{"F (batch size 10)", 1, 0, false}, {"F (batch size 20)", 1, 0, false}, {"F (batch size 40)", 1, 20, false},
		{"F (batch size 320)", 2, 0, false}, {"F (batch size 320)", 1, 0, false}, {"F (batch size 40)", 2, 0, false},
		{"H (batch size 8)", 1, 16, true}, {"H (batch size 16)", 1, 0, false}, {"H (batch size 32)", 1, 0, false},
		{"G (batch size 5)", 1, 0, false}, {"A3C", 1, 0, false}} {
		a, ok := fake.OutOfStep("g", c.job, c.gpus)
		if ok != (c.batch > 0) || ok && (a.Batch != c.batch || a.Larger != c.larger) {
			t.Errorf("%s on %d: %+v %v, want batch %d (larger %v)", c.job, c.gpus, a, ok, c.batch, c.larger)
		}
	}
}

func TestThroughputErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"bad key", `{"k80": {"ResNet": {"null": 1}}}`, `t.json: k80: key "ResNet": not in parentheses; want ('job type', scale factor)`},
		{"no solo", `{"k80": {"('A3C', 1)": {}}}`, `t.json: k80: ('A3C', 1): no "null" (solo) throughput`},
		{"negative solo", `{"k80": {"('A3C', 1)": {"null": -1}}}`, `t.json: k80: ('A3C', 1): solo throughput -1 is not a non-negative number`},
		{"bad pair", `{"k80": {"('A3C', 1)": {"null": 1, "('A3C', 1)": [1]}}}`, `t.json: k80: ('A3C', 1): with ('A3C', 1): [1] is not two non-negative numbers`},
		{"same key twice", `{"k80": {"('A3C', 1)": {"null": 1}, "(\"A3C\", 1)": {"null": 1}}}`, `t.json: k80: ('A3C', 1): job given twice`},
		{"not JSON", `{"k80": `, `t.json: unexpected EOF`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadThroughputsFrom(strings.NewReader(tt.in), "t.json")
			if err == nil || err.Error() != tt.want {
				t.Errorf("error = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestParseJobKey(t *testing.T) {
	tests := []struct {
		in      string
		want    JobKey
		wantErr bool
	}{
		{"('ResNet-18 (batch size 32)', 1)", JobKey{"ResNet-18 (batch size 32)", 1}, false},
		{" ( 'A3C' ,8 ) ", JobKey{"A3C", 8}, false},
		{`("it's", 2)`, JobKey{"it's", 2}, false},
		{`('it\'s', 2)`, JobKey{"it's", 2}, false},
		{"('A3C', 1", JobKey{}, true},
		{"(A3C, 1)", JobKey{}, true},
		{"('A3C' 1)", JobKey{}, true},
		{"('A3C', one)", JobKey{}, true},
		{"('A3C, 1)", JobKey{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseJobKey(tt.in)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("ParseJobKey = %+v, %v; want %+v, error %v", got, err, tt.want, tt.wantErr)
			}
			if err == nil {
				back, err := ParseJobKey(got.String())
				if err != nil || back != got {
					t.Errorf("String %q parses to %+v, %v", got.String(), back, err)
				}
			}
		})
	}
}

// The expectations were computed by a separate Python script over the
// upstream files (ast.literal_eval of the keys, math.ceil(steps / solo)).
func TestZooModel(t *testing.T) {
	for jt, want := range map[string]struct {
		model string
		batch int
	}{
		"ResNet-50 (batch size 64)":        {"resnet50", 64},
		"ResNet-18 (batch size 16)":        {"resnet18-cifar", 16},
		"Transformer (batch size 128)":     {"transformer-translation", 128},
		"LM (batch size 5)":                {"lm", 5},
		"Recommendation (batch size 8192)": {"recommendation", 8192},
		"A3C":                              {"a3c", 20},
		"CycleGAN":                         {"cyclegan", 3},
		"GPT-5 (batch size 1)":             {"", 0},
	} {
		if m, b := ZooModel(jt); m != want.model || b != want.batch {
			t.Errorf("ZooModel(%q) = %q, %d; want %q, %d", jt, m, b, want.model, want.batch)
		}
	}
}

func TestJobs(t *testing.T) {
	tp, err := ReadThroughputs(throughputs)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		file          string
		gpu           string
		jobs          int
		dropped       datasets.Dropped
		totalRun      scheduler.Time
		firstRun      scheduler.Time
		firstReplicas int
	}{
		{"small_test.trace", "v100", 20, nil, 1172, 35, 2},
		{"small_test.trace", "k80", 20, nil, 5472, 209, 2},
		{"msr/11cb48.trace.gz", "v100", 1819, datasets.Dropped{{Reason: DropUnknownJob, Count: 181, First: "line 46 (A3C on 4 GPUs)"}}, 86462067, 2461854, 1},
		{"msr/11cb48.trace.gz", "k80", 1803, datasets.Dropped{{Reason: DropUnknownJob, Count: 181, First: "line 46 (A3C on 4 GPUs)"}, {Reason: DropZeroThroughput, Count: 16, First: "line 113 (ResNet-50 (batch size 128))"}}, 450290160, 13659079, 1},
		{"msr/23dbec.trace.gz", "k80", 7, datasets.Dropped{{Reason: DropZeroThroughput, Count: 1, First: "line 5 (ResNet-50 (batch size 128))"}, {Reason: DropUnknownJob, Count: 1, First: "line 9 (CycleGAN on 8 GPUs)"}}, 100569, 14887, 1},
	}
	for _, tt := range tests {
		t.Run(tt.file+"/"+tt.gpu, func(t *testing.T) {
			rows, err := ReadTrace(data + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			jobs, dropped, err := Jobs(rows, tp, tt.gpu)
			if err != nil {
				t.Fatal(err)
			}
			var total scheduler.Time
			for i := range jobs {
				total += jobs[i].Run
				if err := jobs[i].Validate(); err != nil {
					t.Fatal(err)
				}
			}
			if len(jobs) != tt.jobs || !reflect.DeepEqual(dropped, tt.dropped) || total != tt.totalRun {
				t.Errorf("%d jobs, dropped %v, total run %d; want %d, %v, %d", len(jobs), dropped, total, tt.jobs, tt.dropped, tt.totalRun)
			}
			first := jobs[0]
			if first.ID != 0 || first.Submit != 0 || first.Run != tt.firstRun || first.Tasks[0].Replicas != tt.firstReplicas {
				t.Errorf("first job = %+v", first)
			}
		})
	}

	// a row of no workers is left out, counted, as Gavel's parse_trace skips it
	if jobs, dropped, err := Jobs([]Row{{JobType: "A3C", ScaleFactor: 0, TotalSteps: 10}}, Throughputs{"x": {{"A3C", 1}: {Solo: 3}}}, "x"); err != nil || len(jobs) != 0 || dropped.Count(DropNoWorkers) != 1 {
		t.Errorf("scale factor 0: %v, %v, %v", jobs, dropped, err)
	}
	// a row of no steps has nothing to run: dropped, named, for every
	// scheduler alike (a sharing scheduler cannot time it)
	if jobs, dropped, err := Jobs([]Row{{Line: 7, JobType: "A3C", ScaleFactor: 1, TotalSteps: 0}}, Throughputs{"x": {{"A3C", 1}: {Solo: 3}}}, "x"); err != nil || len(jobs) != 0 ||
		!reflect.DeepEqual(dropped, datasets.Dropped{{Reason: DropNoSteps, Count: 1, First: "line 7 (A3C)"}}) {
		t.Errorf("a row of 0 steps: %d jobs, dropped %v, %v; want it dropped as %s", len(jobs), dropped, err, DropNoSteps)
	}
	rows := []Row{{JobType: "A3C", ScaleFactor: 1, TotalSteps: 10, Arrival: 2.5}}
	jobs, _, err := Jobs(rows, Throughputs{"x": {{"A3C", 1}: {Solo: 3}}}, "x")
	// ceil(10 steps / 3 per second) = 4 s on "x", the only GPU type; A3C
	// is the zoo's a3c with its 20-step rollout as the batch.
	want := []scheduler.Job{{ID: 0, Name: "A3C", Submit: 3, Run: 4, Tasks: []scheduler.Task{{Replicas: 1,
		Request: scheduler.Request{CPU: ReplicaCPU, Mem: ReplicaMem, GPUs: 1}}},
		RunOn: map[string]scheduler.Time{"x": 4}, Model: "a3c", Batch: 20, Steps: 10}}
	if err != nil || !reflect.DeepEqual(jobs, want) {
		t.Errorf("Jobs = %+v, %v; want %+v", jobs, err, want)
	}
	// a job measured at 0 on one GPU (it did not fit there) may run only
	// on those that measured it; one measured everywhere, on any
	two := []Row{{JobType: "ResNet-50 (batch size 128)", ScaleFactor: 2, TotalSteps: 1000}, {JobType: "ResNet-50 (batch size 128)", ScaleFactor: 1, TotalSteps: 1000}}
	jobs, _, err = Jobs(two, tp, "v100")
	if err != nil || len(jobs) != 2 {
		t.Fatalf("ResNet-50 jobs: %v, %v", jobs, err)
	}
	if m := jobs[0].Tasks[0].Request.Models; !reflect.DeepEqual(m, []string{"p100", "v100"}) || len(jobs[0].RunOn) != 2 {
		t.Errorf("on 2 GPUs (0 steps/s on K80s): models %v, run times %v; want p100, v100", m, jobs[0].RunOn)
	}
	if m := jobs[1].Tasks[0].Request.Models; m != nil || len(jobs[1].RunOn) != 3 {
		t.Errorf("on 1 GPU (measured on all three): models %v, run times %v; want any", m, jobs[1].RunOn)
	}
	_, _, err = Jobs(rows, tp, "a100")
	if want := "gavel: no throughputs for GPU type \"a100\" (known: k80, p100, v100)"; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
}

func FuzzReadTrace(f *testing.F) {
	for _, p := range []string{"testdata/ten.trace", "testdata/seven.trace", data + "small_test.trace"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	tp := Throughputs{"x": {{"A3C", 1}: {Solo: 1e-300}, {"CycleGAN", 16}: {Solo: 0.5}}}
	f.Fuzz(func(t *testing.T, in []byte) {
		rows, err := ReadTraceFrom(bytes.NewReader(in), "f.trace")
		if err != nil {
			readcheck.Error(t, err, "f.trace")
			return
		}
		jobs, _, err := Jobs(rows, tp, "x")
		if err != nil {
			t.Fatal(err)
		}
		for i := range jobs {
			if err := jobs[i].Validate(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func FuzzReadThroughputs(f *testing.F) {
	f.Add([]byte(`{"k80": {"('A3C', 1)": {"null": 1, "('A3C', 1)": [0.5, 0.5]}}}`))
	f.Add([]byte(`{"k80": {"(\"it's\", 2)": {"null": 0}}}`))
	f.Add([]byte(`{"v100": {"('T (batch size 8)', 1)": {"null": 4}, "('T (batch size 16)', 1)": {"null": 1}, "('T (batch size 99999999999999999999)', 1)": {"null": 1e-300}, "('T (batch size 4)', 1)": {"null": 1e-300}, "('T (batch size 32)', 1)": {"null": 1e300}}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		tp, err := ReadThroughputsFrom(bytes.NewReader(in), "f.json")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.json: ") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		for g, jobs := range tp {
			for k, v := range jobs {
				if back, err := ParseJobKey(k.String()); err != nil || back != k {
					t.Fatalf("key %+v: String %q parses to %+v, %v", k, k.String(), back, err)
				}
				if v.Solo < 0 {
					t.Fatalf("negative throughput %v", v.Solo)
				}
				// an anomaly names another batch of the family, and a ratio
				if a, ok := tp.OutOfStep(g, k.JobType, k.ScaleFactor); ok && (a.Batch < 1 || math.IsNaN(a.Ratio) || a.Ratio < OutOfStepRatio) {
					t.Fatalf("%s on %s: %+v", k, g, a)
				}
			}
		}
	})
}

// TestReadTraceBOM: a UTF-8 byte-order mark before the first row is
// skipped (it became part of the first job's type, which then had no
// throughput and was dropped).
func TestReadTraceBOM(t *testing.T) {
	b, err := os.ReadFile("testdata/ten.trace")
	if err != nil {
		t.Fatal(err)
	}
	plain, err := ReadTraceFrom(bytes.NewReader(b), "ten.trace")
	if err != nil {
		t.Fatal(err)
	}
	bom, err := ReadTraceFrom(bytes.NewReader(append([]byte("\ufeff"), b...)), "bom.trace")
	if err != nil || !reflect.DeepEqual(bom, plain) {
		t.Errorf("with a byte-order mark: %v, first row %+v", err, bom[:min(1, len(bom))])
	}
}

// A job type no GPU measured at any scale (a typo) is dropped for its own
// reason, its first row named by line with the measured type nearest it;
// a known type at an unmeasured scale stays no-throughput.
func TestJobsUnknownType(t *testing.T) {
	tp, err := ReadThroughputs(throughputs)
	if err != nil {
		t.Fatal(err)
	}
	rows := []Row{
		{Line: 1, JobType: "Transfomer (batch size 128)", TotalSteps: 100, ScaleFactor: 1},
		{Line: 2, JobType: "Transformer (batch size 128)", TotalSteps: 100, ScaleFactor: 64},
		{Line: 3, JobType: "Transformer (batch size 128)", TotalSteps: 100, ScaleFactor: 1},
		{Line: 4, JobType: "Something else entirely", TotalSteps: 100, ScaleFactor: 1},
	}
	jobs, dropped, err := Jobs(rows, tp, "v100")
	if err != nil {
		t.Fatal(err)
	}
	want := datasets.Dropped{
		{Reason: DropUnknownType, Count: 2, First: `line 1: "Transfomer (batch size 128)", a job type Gavel measured on no GPU (did you mean "Transformer (batch size 128)"?)`},
		{Reason: DropUnknownJob, Count: 1, First: "line 2 (Transformer (batch size 128) on 64 GPUs)"},
	}
	if len(jobs) != 1 || !reflect.DeepEqual(dropped, want) {
		t.Errorf("%d jobs, dropped %+v; want 1 and %+v", len(jobs), dropped, want)
	}
	if s := dropped.String(); !strings.Contains(s, `unknown-job-type: 2, the first line 1: "Transfomer`) {
		t.Errorf("String: %q", s)
	}
}
