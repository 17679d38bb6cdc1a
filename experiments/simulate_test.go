package experiments

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	goldenfile "github.com/wb-sim/wb/internal/golden"

	"github.com/wb-sim/wb/datasets/swf"
	"github.com/wb-sim/wb/datasets/workload"
	"github.com/wb-sim/wb/scheduler"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func data(rel string) string { return filepath.Join("..", "datasets", "data", rel) }

// TestGoldenKTH pins the summaries of KTH-SP2 under FCFS, EASY and
// conservative backfill with user and exact estimates. The figures agree
// with the independent reference implementation (scheduler/internal/
// reference and scripts/swf_reference.py): for example EASY with user
// estimates gives a mean wait of 6351.49 s and a mean bounded slowdown of
// 86.371 in both.
func TestGoldenKTH(t *testing.T) {
	var rows []SummaryRow
	for _, bf := range []string{"none", "easy", "conservative"} {
		for _, est := range []string{"user", "exact"} {
			o, err := Simulate(context.Background(), SimulateOptions{
				Workload: workload.Options{Trace: data("swf/KTH-SP2-1996-2.1-cln.swf.gz")},
				Spec:     scheduler.Spec{Backfill: bf, Estimate: est},
			})
			if err != nil {
				t.Fatal(err)
			}
			rows = append(rows, Summarize(o.Workload, o.Result))
		}
	}
	var b bytes.Buffer
	if err := WriteSummary(&b, rows); err != nil {
		t.Fatal(err)
	}
	golden(t, "kth-summary.golden", b.Bytes())
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got, *update)
}

// TestDeterministic: the same trace and scheduler write the same bytes.
func TestDeterministic(t *testing.T) {
	cases := []SimulateOptions{
		{Workload: workload.Options{Trace: data("swf/KTH-SP2-1996-2.1-cln.swf.gz")}, Spec: scheduler.Spec{Backfill: "conservative"}},
		{Workload: workload.Options{Trace: data("openb/openb_pod_list_gpushare100.csv.gz")}, Spec: scheduler.Spec{Backfill: "easy", Placement: "round-robin"}},
	}
	for _, opts := range cases {
		var outs [2]string
		for i := range outs {
			outs[i] = t.TempDir()
			o := opts
			o.Out = outs[i]
			if _, err := Simulate(context.Background(), o); err != nil {
				t.Fatal(err)
			}
		}
		for _, f := range []string{JobsFile, SummaryFile, SeriesFile, ScheduleFile} {
			a, err := os.ReadFile(filepath.Join(outs[0], f))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(filepath.Join(outs[1], f))
			if !bytes.Equal(a, b) {
				t.Errorf("%s: %s differs between two runs", opts.Workload.Trace, f)
			}
			if len(a) == 0 {
				t.Errorf("%s: %s is empty", opts.Workload.Trace, f)
			}
		}
	}
}

// TestScheduleReadsBack: schedule.swf of a trace that is not SWF (openb
// pods on its GPU nodes) reads back as a trace, its jobs numbered from 1
// and the cluster's cores its MaxProcs (it had no size, and read back was
// refused: a reviewer's find); of a sample of an SWF trace, the header
// drops the source log's counts and span (a 2,000-job sample said MaxJobs
// 28490).
func TestScheduleReadsBack(t *testing.T) {
	out := t.TempDir()
	if _, err := Simulate(context.Background(), SimulateOptions{Workload: workload.Options{Trace: data("openb/openb_pod_list_gpushare100.csv.gz")}, Out: out}); err != nil {
		t.Fatal(err)
	}
	tr, err := swf.ReadFile(filepath.Join(out, ScheduleFile))
	if err != nil {
		t.Fatalf("schedule.swf read back: %v", err)
	}
	if tr.MaxProcs <= 0 || len(tr.Records) == 0 || tr.Records[0].JobID < 1 {
		t.Errorf("read back: MaxProcs %d, %d records, the first job %d", tr.MaxProcs, len(tr.Records), tr.Records[0].JobID)
	}
	// a trace that names its users: numbered in order of first
	// appearance, one number a user (every job was user -1)
	out = t.TempDir()
	o, err := Simulate(context.Background(), SimulateOptions{Workload: workload.Options{Trace: "pai-sim:" + data("pai/pai_sim_jobs_synthetic.csv.gz"), Sample: 300}, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	tr, err = swf.ReadFile(filepath.Join(out, ScheduleFile))
	if err != nil {
		t.Fatalf("schedule.swf read back: %v", err)
	}
	byUser := map[string]int64{}
	k := 0
	for _, j := range o.Result.Jobs {
		if j.Status == scheduler.Unschedulable {
			continue
		}
		r := tr.Records[k]
		k++
		if n, ok := byUser[j.User]; ok && n != r.UserID || r.UserID < 1 {
			t.Fatalf("job %d of user %q: user %d in schedule.swf (%d before)", j.ID, j.User, r.UserID, n)
		}
		byUser[j.User] = r.UserID
	}
	if len(byUser) < 2 {
		t.Errorf("%d users", len(byUser))
	}
	out = t.TempDir()
	if _, err := Simulate(context.Background(), SimulateOptions{Workload: workload.Options{Trace: data("swf/KTH-SP2-1996-2.1-cln.swf.gz"), Sample: 500}, Out: out}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, ScheduleFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "; MaxJobs:") || strings.Contains(string(b), "; MaxRecords:") || !strings.Contains(string(b), "; wb: the trace's MaxJobs, MaxRecords") {
		t.Errorf("a sample's schedule.swf keeps its log's counts:\n%s", b[:min(len(b), 2000)])
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	empty := write("empty.swf", "; MaxProcs: 10\n")
	bad := write("bad.swf", "; MaxProcs: 10\n1 0 0 10 2 -1 -1 2 10 -1 1 1 1 -1 -1 -1 -1 -1\n2 5 0 abc 2 -1 -1 2 10 -1 1 1 1 -1 -1 -1 -1 -1\n")
	tests := []struct {
		name string
		opts SimulateOptions
		want string
	}{
		{"missing file", SimulateOptions{Workload: workload.Options{Trace: filepath.Join(dir, "nope.swf")}}, "no such file"},
		{"empty trace", SimulateOptions{Workload: workload.Options{Trace: empty}}, "no jobs to simulate"},
		{"malformed line", SimulateOptions{Workload: workload.Options{Trace: bad}}, "bad.swf:3: field 4:"},
		{"unknown policy", SimulateOptions{Workload: workload.Options{Trace: empty}, Spec: scheduler.Spec{Backfill: "easey"}}, `unknown backfill "easey" (known: conservative, easy, greedy, none)`},
		{"unknown format", SimulateOptions{Workload: workload.Options{Trace: write("jobs.txt", "x")}}, "cannot tell the trace format"},
		{"bad cluster", SimulateOptions{Workload: workload.Options{Trace: empty, Cluster: "nodes:3:V100"}}, "want nodes:NxG:MODEL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Simulate(context.Background(), tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
	// With --skip-invalid the bad line is counted and the rest runs.
	o, err := Simulate(context.Background(), SimulateOptions{Workload: workload.Options{Trace: bad, SkipInvalid: true}})
	if err != nil {
		t.Fatal(err)
	}
	if o.Workload.Skipped != 1 || o.Result.Summary.Completed != 1 {
		t.Errorf("skipped %d, completed %d; want 1 and 1", o.Workload.Skipped, o.Result.Summary.Completed)
	}
}

func TestCancelledWritesNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := t.TempDir()
	_, err := Simulate(ctx, SimulateOptions{Workload: workload.Options{Trace: data("swf/KTH-SP2-1996-2.1-cln.swf.gz")}, Out: out})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 0 {
		t.Errorf("cancelled run left %d files", len(entries))
	}
}

// TestSimulateOwnsItsOut: wb simulate --out refuses an experiment's results
// directory and one holding files wb did not write (a summary.csv and a
// notes.txt), changing nothing in either; it writes into a new directory,
// into one holding a simulation's results (its own, again), and into one
// holding the four files of an earlier wb's simulation.
func TestSimulateOwnsItsOut(t *testing.T) {
	opts := func(out string) SimulateOptions {
		return SimulateOptions{Workload: workload.Options{Trace: data("swf/KTH-SP2-1996-2.1-cln.swf.gz")}, Out: out}
	}
	snapshot := func(dir string) map[string]string {
		t.Helper()
		m := map[string]string{}
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			m[e.Name()] = string(b)
		}
		return m
	}
	for name, files := range map[string]map[string]string{
		"experiment": {MarkerFile: `{"config_hash": "0123456789abcdef", "name": "plan"}` + "\n", SummaryFile: "run,workload\n0,K80\n"},
		"foreign":    {"notes.txt": "mine\n", JobsFile: "x\n"},
	} {
		dir := filepath.Join(t.TempDir(), name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for f, body := range files {
			if err := os.WriteFile(filepath.Join(dir, f), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		_, err := Simulate(context.Background(), opts(dir))
		if err == nil || !strings.Contains(err.Error(), "choose another --out") {
			t.Errorf("%s: error %v, want a refusal naming --out", name, err)
		}
		if got := snapshot(dir); len(got) != len(files) || got[SummaryFile] != files[SummaryFile] || got[JobsFile] != files[JobsFile] {
			t.Errorf("%s: the directory changed: %v", name, got)
		}
	}
	// the four files of an earlier wb's simulation, unmarked, are its own
	legacy := filepath.Join(t.TempDir(), "legacy")
	if err := os.MkdirAll(legacy, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range simulateFiles {
		if err := os.WriteFile(filepath.Join(legacy, f), []byte("earlier\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Simulate(context.Background(), opts(legacy)); err != nil {
		t.Errorf("an earlier wb's unmarked simulation: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "sim")
	for range 2 {
		if _, err := Simulate(context.Background(), opts(dir)); err != nil {
			t.Fatal(err)
		}
	}
	got := snapshot(dir)
	for _, f := range append([]string{MarkerFile}, simulateFiles...) {
		if got[f] == "" {
			t.Errorf("%s missing after two simulations into %s", f, dir)
		}
	}
	// the marker names the simulation
	m, _, err := readMarker(dir)
	if err != nil || m == nil || m.ConfigHash != simulateMarker {
		t.Errorf("marker %+v, %v", m, err)
	}
}

// A trace without user estimates (a Gavel trace) under the user or the
// history estimate runs on its jobs' own run times: the experiment's report
// and wb simulate's summary say so, for those schedulers and workloads
// alone (an SWF trace with field 9 throughout, the exact estimate: none).
func TestRunTimeEstimateNotes(t *testing.T) {
	gavel, err := filepath.Abs(data("gavel/msr/0e4a51.trace.gz"))
	if err != nil {
		t.Fatal(err)
	}
	kth, err := filepath.Abs(data("swf/KTH-SP2-1996-2.1-cln.swf.gz"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := "name: est\nseed: 1\nreplicas: 2\nworkloads:\n" +
		"  - {name: gavel, trace: " + gavel + ", cluster: \"nodes:8x4:V100\", sample: 40}\n" +
		"  - {name: kth, trace: " + kth + ", window: 200}\n" +
		"schedulers:\n  - {name: E, backfill: easy}\n  - {name: X, backfill: easy, estimate: exact}\n  - {name: H, backfill: easy, estimate: history}\n" +
		"  - {name: F, backfill: none}\n  - {name: S, order: sjf}\n" +
		"metrics: [mean_wait]\n"
	c, err := ParseConfig([]byte(cfg), filepath.Join(t.TempDir(), "est.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	rep := runInTemp(t, c, 2)
	// history learns from each user's finished jobs and has no cap without
	// a user estimate: not named
	// FIFO without backfilling only records its estimates: not named
	if l := rep.RunTimeEstimates; len(l) != 1 || !strings.HasPrefix(l[0], "gavel, under E, S: 40 of 40 jobs a run have no user estimate (SWF field 9, or a trace format without one): the user estimate takes their run time") {
		t.Errorf("notes %q: want the Gavel workload's, under E and S", l)
	}
	// the model estimate falls back to the user's for a job without a
	// model: only those are named; counts print whole, means to a tenth
	m := scheduler.Summary{Jobs: 12345, NoUserEstimate: 12000, NoUserEstimateOrModel: 3}
	if got := runTimeEstimates("model", &m, 2, true); !strings.HasPrefix(got, "1.5 of 6172.5 jobs a run have no user estimate or model") {
		t.Errorf("model: %q", got)
	}
	// jobs of no model at all (an SWF trace's) are named, with those of
	// them that have no user estimate either
	noModel := scheduler.Summary{Jobs: 100, NoModel: 100, NoUserEstimate: 4, NoUserEstimateOrModel: 4}
	if got := runTimeEstimates("model", &noModel, 1, false); got != "100 of 100 jobs have no deep-learning model to predict (only Gavel's traces name one): the model estimate takes their user estimate, as user does; 4 of them have no user estimate either (SWF field 9, or a trace format without one): their run time, as exact does" {
		t.Errorf("model without models: %q", got)
	}
	if got := runTimeEstimates("user-mean", &m, 1, false); got != "" {
		t.Errorf("user-mean: %q", got)
	}
	var out bytes.Buffer
	o, err := Simulate(context.Background(), SimulateOptions{Workload: workload.Options{Trace: gavel, Cluster: "nodes:8x4:V100"}, Spec: scheduler.Spec{Backfill: "easy"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := PrintSummary(&out, o); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "984 of 984 jobs have no user estimate (SWF field 9, or a trace format without one): the user estimate takes their run time") {
		t.Errorf("summary:\n%s", out.String())
	}
	out.Reset()
	if o, err = Simulate(context.Background(), SimulateOptions{Workload: workload.Options{Trace: kth}, Spec: scheduler.Spec{Backfill: "easy"}}); err != nil {
		t.Fatal(err)
	}
	if err := PrintSummary(&out, o); err != nil || strings.Contains(out.String(), "no user estimate") {
		t.Errorf("KTH-SP2 (field 9 throughout): %v\n%s", err, out.String())
	}
}

// An experiment says, per workload, how many of its trace's jobs were
// dropped as it was read, and why: a 4-processor pool drops KTH's larger
// jobs, none of which a run's window holds; and names a window larger than
// the trace.
func TestDroppedNotes(t *testing.T) {
	kth, err := filepath.Abs(data("swf/KTH-SP2-1996-2.1-cln.swf.gz"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := "name: drop\nseed: 1\nreplicas: 1\nworkloads:\n" +
		"  - {name: small, trace: " + kth + ", window: 100, procs: 4}\n" +
		"  - {name: whole, trace: " + kth + ", window: 100}\n" +
		"  - {name: all, trace: " + kth + ", window: 1000000}\n" +
		"  - {name: every, trace: " + kth + ", sample: 1000000}\n" +
		"schedulers:\n  - {name: E, backfill: easy}\n  - {name: F, backfill: none}\nmetrics: [mean_wait]\n"
	c, err := ParseConfig([]byte(cfg), filepath.Join(t.TempDir(), "drop.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	rep := runInTemp(t, c, 2)
	if l := rep.Dropped; len(l) != 1 || !regexp.MustCompile(`^small: \d+ jobs of the trace dropped as it was read \(procs>machine: \d+, the first job \d+\)$`).MatchString(l[0]) {
		t.Errorf("notes %q: want the 4-processor workload's, once, with its reason", l)
	}
	// swept over machine sizes, a trace is read once per size, and drops
	// what each cannot run: a note per size
	swept := "name: drop2\nseed: 1\nworkloads:\n  - {name: kth, trace: " + kth + ", window: 100}\n" +
		"schedulers:\n  - {name: E, backfill: easy}\nsweep: {procs: [4, 32]}\nmetrics: [mean_wait]\n"
	c2, err := ParseConfig([]byte(swept), filepath.Join(t.TempDir(), "drop2.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// and each size draws its window from the trace as its largest size
	// reads it, leaving out what it cannot run: the same stretch of the
	// trace at every size (drawn from the jobs left at each size, the
	// windows of 50 and 100 processors started 115 jobs apart: a
	// reviewer's find), the jobs left out said per size
	l := runInTemp(t, c2, 2).Dropped
	dropped := regexp.MustCompile(`^kth: on (32|4) processors, \d+ jobs of the trace dropped as it was read \(procs>machine: \d+, the first job \d+\)$`)
	leftOut := regexp.MustCompile(`^kth: on (32|4) processors, \d+ of a run's 100 jobs \(mean over its runs\) left out, as its cluster cannot run them`)
	// (the largest size, 32, is the one every size draws from: it leaves
	// none out)
	if len(l) != 3 || !dropped.MatchString(l[0]) || !dropped.MatchString(l[1]) || !leftOut.MatchString(l[2]) ||
		!strings.HasPrefix(l[0], "kth: on 32 ") || !strings.HasPrefix(l[1], "kth: on 4 ") || !strings.HasPrefix(l[2], "kth: on 4 ") || l[0][len("kth: on 32 processors, "):] == l[1][len("kth: on 4 processors, "):] {
		t.Errorf("notes %q: want per machine size the jobs dropped as read, and those the smaller size's windows left out", l)
	}
	sum, err := readTable(filepath.Join(c2.Out, SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	starts := map[string]map[string]string{} // replica → procs → window start
	for _, r := range sum {
		if starts[r["replica"]] == nil {
			starts[r["replica"]] = map[string]string{}
		}
		starts[r["replica"]][r["procs"]] = r["window_start"]
	}
	for rep, by := range starts {
		if len(by) != 2 || by["4"] != by["32"] || by["4"] == "" {
			t.Errorf("replica %s: window starts by machine size %v, want one", rep, by)
		}
	}
	// a window beyond the trace runs it whole in every replica: said once
	if l := rep.Windows; len(l) != 2 || !strings.HasPrefix(l[0], "all: window 1000000, but the trace holds 2") || !strings.HasPrefix(l[1], "every: sample 1000000, but the trace holds 2") {
		t.Errorf("window notes %q: want the workloads whose window or sample holds the whole trace", l)
	}
	// a trace read with skip_invalid says how many lines it skipped and
	// what was wrong with the first
	bad := filepath.Join(t.TempDir(), "bad.swf")
	good := "; MaxProcs: 8\n1 0 0 10 1 -1 -1 1 20 -1 1 1 1 -1 1 -1 -1 -1\n"
	if err := os.WriteFile(bad, []byte(good+"2 5 0 x 1 -1 -1 1 20 -1 1 1 1 -1 1 -1 -1 -1\n3 9 0 10 1 -1 -1 1 20 -1 1 1 1 -1 1 -1 -1 -1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c3, err := ParseConfig([]byte("name: skip\nworkloads:\n  - {name: bad, trace: "+bad+", skip_invalid: true}\nschedulers:\n  - {name: F}\n"), filepath.Join(t.TempDir(), "skip.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if l := runInTemp(t, c3, 1).Dropped; len(l) != 1 || !strings.HasPrefix(l[0], "bad: 1 malformed lines of the trace skipped (the first: "+bad+":3: ") {
		t.Errorf("notes %q: want the skipped line's count and the first's error", l)
	}
}

// jobs.csv's nodes_touched counts the distinct nodes a job's replicas
// ran on: on a Gavel trace on nodes of 4 GPUs, every 8-GPU job touches
// at least 2 nodes, none more than its replicas, a job on one GPU 1;
// consolidated (Spec.Consolidate), no more jobs span nodes than
// replica by replica, and fewer here.
func TestJobsNodesTouched(t *testing.T) {
	spanning := map[bool]int{}
	for _, cons := range []bool{false, true} {
		out := t.TempDir()
		_, err := Simulate(context.Background(), SimulateOptions{
			Workload: workload.Options{Trace: data("gavel/msr/0e4a51.trace.gz"), Cluster: "nodes:8x4:V100", Sample: 300, ArrivalRate: 1, ArrivalInterval: 3600},
			Spec:     scheduler.Spec{Consolidate: cons}, Out: out})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(out, JobsFile)
		tb, err := readTable(path)
		if err != nil {
			t.Fatal(err)
		}
		for i := range tb {
			reps, err1 := tb.float(path, i, "replicas")
			nodes, err2 := tb.float(path, i, "nodes_touched")
			switch {
			case err1 != nil || err2 != nil:
				t.Fatal(err1, err2)
			case reps == 8 && nodes < 2, nodes > reps, reps == 1 && nodes != 1:
				t.Fatalf("consolidate %v: job %s of %v replicas on %v nodes", cons, tb[i]["id"], reps, nodes)
			case nodes > 1:
				spanning[cons]++
			}
		}
	}
	if !(spanning[true] < spanning[false]) {
		t.Errorf("jobs spanning nodes: %d replica by replica, %d consolidated; want fewer consolidated", spanning[false], spanning[true])
	}
	if got := scheduler.NodesTouched(make([]scheduler.Slot, 40)); got != 1 {
		t.Errorf("40 slots on node 0: %d nodes", got)
	}
}

// TestNoJobCompleted: a run in which no job could ever run has no means:
// wb simulate says so and leaves summary.csv's means empty, not 0 (a
// bounded slowdown of 0 would pull a pandas mean down silently), and an
// experiment's run fails with the reason.
func TestNoJobCompleted(t *testing.T) {
	const cluster = "nodes:1x1:V100:1:1" // one core: every Gavel job needs more
	out := filepath.Join(t.TempDir(), "sim")
	o, err := Simulate(context.Background(), SimulateOptions{Workload: workload.Options{Trace: data("gavel/small_test.trace"), Cluster: cluster}, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if o.Result.Summary.Completed != 0 || o.Result.Summary.Unschedulable == 0 {
		t.Fatalf("completed %d, unschedulable %d: the test wants none completed", o.Result.Summary.Completed, o.Result.Summary.Unschedulable)
	}
	var b strings.Builder
	if err := PrintSummary(&b, o); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "no job completed: 20 of 20 jobs could never run on cluster "+cluster) || strings.Contains(b.String(), "mean JCT") {
		t.Errorf("summary:\n%s", b.String())
	}
	t0, err := readTable(filepath.Join(out, SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, col := range summaryMetricColumns {
		if v := t0[0][col]; (v == "") != !countColumns[col] {
			t.Errorf("summary.csv %s = %q", col, v)
		}
	}

	dir := t.TempDir()
	abs, err := filepath.Abs(data("gavel/small_test.trace"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := runBody(t, dir, "name: m\nreplicas: 2\nworkloads:\n  - {name: w, trace: "+abs+", cluster: \""+cluster+"\"}\nschedulers:\n  - {name: FIFO}\n")
	if !errors.Is(err, ErrRunsFailed) || len(rep.Failed) != 2 || !strings.Contains(rep.Failed[0].Error, "no job completed: 20 of 20 jobs") {
		t.Errorf("experiment: %v", err)
	}

	// a sharing scheduler's run too: every job of two GPUs on nodes of one
	raw, err := os.ReadFile(data("gavel/small_test.trace"))
	if err != nil {
		t.Fatal(err)
	}
	var two []string
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		f := strings.Split(l, "\t")
		f[6] = "2" // scale factor: the job's GPUs
		two = append(two, strings.Join(f, "\t"))
	}
	trace := filepath.Join(dir, "two.trace")
	if err := os.WriteFile(trace, []byte(strings.Join(two, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = runBody(t, t.TempDir(), "name: s\nreplicas: 1\nworkloads:\n  - {name: w, trace: "+trace+", cluster: \"nodes:1x1:V100\"}\nschedulers:\n  - {name: X, sharing: exclusive}\n")
	if !errors.Is(err, ErrRunsFailed) || len(rep.Failed) != 1 || !strings.Contains(rep.Failed[0].Error, "no job completed") {
		t.Errorf("sharing: %v", err)
	}
}

// TestNoModelCounted: the jobs of no deep-learning model (every one of an
// SWF trace's, none of a Gavel trace's) are counted in the summary.
func TestNoModelCounted(t *testing.T) {
	for trace, want := range map[string]bool{"gavel/small_test.trace": false, "swf/KTH-SP2-1996-2.1-cln.swf.gz": true} {
		o, err := Simulate(context.Background(), SimulateOptions{Workload: workload.Options{Trace: data(trace)}, Spec: scheduler.Spec{Estimate: "model"}})
		if err != nil {
			t.Fatal(err)
		}
		sm := o.Result.Summary
		if got := sm.NoModel == sm.Jobs && sm.Jobs > 0; got != want || !want && sm.NoModel != 0 {
			t.Errorf("%s: %d of %d jobs of no model", trace, sm.NoModel, sm.Jobs)
		}
	}
}

// TestOutIsAFile: a results directory named where a file is is refused in
// those words, and the file is left as it was.
func TestOutIsAFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(f, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Simulate(context.Background(), SimulateOptions{Workload: workload.Options{Trace: data("gavel/small_test.trace")}, Out: f})
	if err == nil || !strings.Contains(err.Error(), "notes.txt is a file: results go into a directory") {
		t.Errorf("simulate: %v", err)
	}
	c := &Config{}
	if err := c.claimDir(f, RunOptions{}); err == nil || !strings.Contains(err.Error(), "is a file") {
		t.Errorf("experiment: %v", err)
	}
	if b, _ := os.ReadFile(f); string(b) != "mine\n" {
		t.Errorf("the file changed: %q", b)
	}
	// and one under a file, where the marker's read had said "not a
	// directory" of a file wb names nowhere (a reviewer's find)
	under := filepath.Join(f, "run", "a")
	_, err = Simulate(context.Background(), SimulateOptions{Workload: workload.Options{Trace: data("gavel/small_test.trace")}, Out: under})
	if err == nil || !strings.Contains(err.Error(), under+": "+f+" is a file, not a folder") {
		t.Errorf("simulate under a file: %v", err)
	}
	if err := c.claimDir(under, RunOptions{}); err == nil || !strings.Contains(err.Error(), f+" is a file, not a folder") {
		t.Errorf("experiment under a file: %v", err)
	}
}

// TestJobsGPUModels: jobs.csv's gpu_models names the GPU models of the
// nodes a job ran on, in the cluster's order; empty for a job that never
// ran and on nodes of no model.
func TestJobsGPUModels(t *testing.T) {
	out := t.TempDir()
	_, err := Simulate(context.Background(), SimulateOptions{
		Workload: workload.Options{Trace: data("gavel/msr/0e4a51.trace.gz"), Cluster: "nodes:2x4:K80+2x4:V100", Sample: 200, ArrivalRate: 1, ArrivalInterval: 600},
		Spec:     scheduler.Spec{Placement: "fastest", Estimate: "exact"}, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	tb, err := readTable(filepath.Join(out, JobsFile))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, r := range tb {
		m := r["gpu_models"]
		seen[m]++
		switch {
		case r["status"] == "unschedulable" && m != "",
			r["status"] != "unschedulable" && m != "K80" && m != "V100" && m != "K80+V100",
			strings.Contains(m, "K80") && r["name"] == "ResNet-50 (batch size 128)" && r["replicas"] != "1": // Gavel measured it at 0 there
			t.Fatalf("job %s (%s, %s replicas, %s): gpu_models %q", r["id"], r["name"], r["replicas"], r["status"], m)
		}
	}
	if seen["K80"] == 0 || seen["V100"] == 0 {
		t.Errorf("gpu_models %v: want jobs on each model", seen)
	}
	// a pool's GPUs name no model
	out = t.TempDir()
	if _, err := Simulate(context.Background(), SimulateOptions{
		Workload: workload.Options{Trace: data("gavel/small_test.trace"), Cluster: "pool:8:64"}, Out: out}); err != nil {
		t.Fatal(err)
	}
	if tb, err = readTable(filepath.Join(out, JobsFile)); err != nil {
		t.Fatal(err)
	}
	for _, r := range tb {
		// every job runs there (a pool holds no memory, and asks for none
		// are held: each replica's 4 GiB made every job unschedulable)
		if r["gpu_models"] != "" || r["status"] != "done" {
			t.Fatalf("on a pool: job %s %s, gpu_models %q", r["id"], r["status"], r["gpu_models"])
		}
	}
}

// TestSimulateSaysWhyUnschedulable: a Gavel job Gavel measured at 0 on
// the cluster's only GPUs is unschedulable there (it ran at --gpu-type's
// pace), and wb simulate says why.
func TestSimulateSaysWhyUnschedulable(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "z.trace")
	row := func(gpus string) string {
		return "ResNet-50 (batch size 128)\tcmd\tdir\t-n\t1\t1000\t" + gpus + "\t1\t-1\t0\n"
	}
	if err := os.WriteFile(trace, []byte(row("2")+row("1")), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := Simulate(context.Background(), SimulateOptions{Workload: workload.Options{Trace: "gavel:" + trace, Cluster: "nodes:1x2:K80"}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := PrintSummary(&b, o); err != nil {
		t.Fatal(err)
	}
	if m := &o.Result.Summary; m.Unschedulable != 1 || m.Completed != 1 ||
		!strings.Contains(b.String(), "1 of them may run only on GPUs the cluster lacks (p100, v100): Gavel measured them at 0 steps/s") ||
		strings.Contains(b.String(), "found no placement") {
		t.Errorf("unschedulable %d, completed %d:\n%s", m.Unschedulable, m.Completed, b.String())
	}
	// a job of more GPUs than any node holds, beside one that runs: said
	if err := os.WriteFile(trace, []byte(row("4")+strings.Replace(row("1"), "ResNet-50 (batch size 128)", "ResNet-50 (batch size 64)", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if o, err = Simulate(context.Background(), SimulateOptions{Workload: workload.Options{Trace: "gavel:" + trace, Cluster: "nodes:1x2:V100", GPUType: "v100"}}); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := PrintSummary(&b, o); err != nil {
		t.Fatal(err)
	}
	if m := &o.Result.Summary; m.Unschedulable != 1 || m.Completed != 1 ||
		!strings.Contains(b.String(), "1 of them found no placement on the cluster even empty") || strings.Contains(b.String(), "jobs.csv") {
		t.Errorf("a job too large, unschedulable %d, completed %d:\n%s", m.Unschedulable, m.Completed, b.String())
	}
}

// TestSummaryGPUPoolNoMemory: `wb simulate` on a pool of GPUs and cores,
// which holds no memory, leaves summary.csv's util_mem empty (not 0) and
// writes the GPUs' and cores' utilisation.
func TestSummaryGPUPoolNoMemory(t *testing.T) {
	o, err := Simulate(context.Background(), SimulateOptions{
		Workload: workload.Options{Trace: data("pai/pai_sim_jobs_synthetic.csv.gz"), Cluster: "pool:64:1500", Sample: 200, ArrivalRate: 50},
	})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteSummary(&b, []SummaryRow{Summarize(o.Workload, o.Result)}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	head, row := strings.Split(lines[0], ","), strings.Split(lines[1], ",")
	cell := map[string]string{}
	for i, h := range head {
		cell[h] = row[i]
	}
	if cell["util_mem"] != "" || cell["util_gpu"] == "" || cell["util_cpu"] == "" {
		t.Fatalf("util_cpu %q, util_mem %q, util_gpu %q: want util_mem alone empty", cell["util_cpu"], cell["util_mem"], cell["util_gpu"])
	}
}

// The printed table, as summary.csv, has no memory utilisation for a pool
// of GPUs and cores: "—", not 0.
func TestTableGPUPoolNoMemory(t *testing.T) {
	trace, err := filepath.Abs(data("pai/pai_sim_jobs_synthetic.csv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := runBody(t, t.TempDir(), "name: m\nworkloads:\n  - {name: p, trace: "+trace+", cluster: \"pool:64:1500\", sample: 100, arrival_rate: 50}\n"+
		"schedulers:\n  - {name: FIFO}\nmetrics: [util_mem, util_gpu]\n")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^p +FIFO +1 +— +0\.\d+ *$`).MatchString(rep.Table) {
		t.Errorf("table:\n%s", rep.Table)
	}
}

// TestNoGPUCluster: on nodes of cores and memory alone the run has no GPU
// utilisation: empty in summary.csv, left out of the printed summary (they
// read 0 and "GPU 0.00%": a reviewer's find); CPU and memory are there.
func TestNoGPUCluster(t *testing.T) {
	out := t.TempDir()
	o, err := Simulate(context.Background(), SimulateOptions{
		Workload: workload.Options{Trace: data("swf/KTH-SP2-1996-2.1-cln.swf.gz"), Cluster: "nodes:1x0::64:512", Sample: 200},
		Spec:     scheduler.Spec{Backfill: "easy"},
		Out:      out,
	})
	if err != nil {
		t.Fatal(err)
	}
	tb, err := readTable(filepath.Join(out, SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(tb) != 1 || tb[0]["util_gpu"] != "" || tb[0]["util_cpu"] == "" || tb[0]["util_mem"] == "" {
		t.Errorf("summary: util_gpu %q, util_cpu %q, util_mem %q", tb[0]["util_gpu"], tb[0]["util_cpu"], tb[0]["util_mem"])
	}
	var b bytes.Buffer
	if err := PrintSummary(&b, o); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "GPU ") || !strings.Contains(b.String(), "CPU ") {
		t.Errorf("printed summary:\n%s", b.String())
	}
}

// TestScheduleHeaderSize: schedule.swf's header sizes the machine as the
// simulated pool, in MaxProcs and MaxNodes alike where the pool is another
// size than the trace's (MaxNodes 100 beside MaxProcs 50 had claimed more
// nodes than processors, a reviewer's find), each rewritten line noted;
// a header of the pool's own size is kept as it was (8 processors a node).
func TestScheduleHeaderSize(t *testing.T) {
	for _, c := range []struct {
		name       string
		header     []string
		procs      int
		want, gone []string
	}{
		{"both, smaller pool", []string{"; MaxNodes: 100", "; MaxProcs: 100"}, 50,
			[]string{"; MaxNodes: 50\n", "; MaxProcs: 50\n", "; wb: MaxNodes is the simulated pool's (the trace's header said 100)", "; wb: MaxProcs is the simulated pool's (the trace's header said 100)"},
			[]string{"100\n"}},
		{"the trace's size", []string{"; MaxNodes: 128", "; MaxProcs: 1024"}, 1024,
			[]string{"; MaxNodes: 128\n", "; MaxProcs: 1024\n"}, []string{"simulated pool's"}},
		{"MaxNodes alone", []string{"; MaxNodes: 64"}, 32,
			[]string{"; MaxNodes: 32\n", "; wb: MaxNodes is the simulated pool's (the trace's header said 64)"}, []string{"64\n"}},
	} {
		cl, _, err := workload.ParseCluster("pool:" + strconv.Itoa(c.procs))
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		e, err := newScheduleEncoder(&b, c.header, "t.swf", "fcfs", cl, true)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Flush(); err != nil {
			t.Fatal(err)
		}
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: no %q in\n%s", c.name, w, &b)
			}
		}
		for _, g := range c.gone {
			if strings.Contains(b.String(), g) {
				t.Errorf("%s: %q still in\n%s", c.name, g, &b)
			}
		}
	}
}
