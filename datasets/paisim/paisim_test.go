package paisim

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wb-sim/wb/datasets"
	"github.com/wb-sim/wb/datasets/internal/gzfile"
	"github.com/wb-sim/wb/datasets/internal/readcheck"
	"github.com/wb-sim/wb/datasets/pai"
	"github.com/wb-sim/wb/scheduler"
)

// TestRead: fields are read as the simulator reads them (its utils.py
// _add_job): percent rounded half to even, durations truncated and at
// least 1, submit times rounded half to even, an empty num_inst 1, an
// empty num_gpu or num_cpu 0; unknown columns ignored.
func TestRead(t *testing.T) {
	rows, err := Read("testdata/pai_sim_jobs.csv")
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		id           int64
		gpu, cpu     int64
		submit, dur  scheduler.Time
		inst         int
		groupGPUDur  float64
		user, gpuTyp string
	}
	want := []got{
		{0, 50, 600, 0, 12, 1, 0, "u1", "T4"},
		{1, 100, 400, 2, 1, 1, 80.5, "u2", "V100"},     // 2.5 → 2, duration 0 → 1
		{2, 200, 800, 4, 300, 2, 20.125, "u1", "P100"}, // 3.5 → 4
		{3, 28, 0, 60, 40, 1, 7, "u3", "MISC"},         // 100 × 0.285 = 28.499999999999996
		{4, 0, 200, 61, 40, 4, 7, "u3", ""},
		{5, 150, 400, 62, 40, 1, 7, "u2", "V100"},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i, r := range rows {
		g := got{r.ID, r.GPUPct, r.CPUPct, r.Submit, r.Duration, r.Inst, r.Estimates["group_gpu_dur"], r.User, r.GPUType}
		if g != want[i] {
			t.Errorf("row %d = %+v, want %+v", i, g, want[i])
		}
	}
	if rows[1].Estimates["user_dur"] != 100.25 || rows[1].Line != 3 {
		t.Errorf("row 1: estimates %v, line %d", rows[1].Estimates, rows[1].Line)
	}

	jobs, dropped, err := Jobs(rows)
	if err != nil {
		t.Fatal(err)
	}
	if dropped.Total() != 0 || len(jobs) != 6 {
		t.Fatalf("%d jobs, dropped %s; want all 6", len(jobs), dropped)
	}
	reqs := map[int64]scheduler.Request{}
	for _, j := range jobs {
		reqs[j.ID] = j.Tasks[0].Request
	}
	wantReq := map[int64]scheduler.Request{
		0: {CPU: 6000, GPUs: 1, GPUMilli: 500},
		1: {CPU: 4000, GPUs: 1},
		2: {CPU: 8000, GPUs: 2},
		3: {GPUs: 1, GPUMilli: 280},
		4: {CPU: 2000},
		5: {CPU: 4000, GPUs: 1, GPUMilli: 1500}, // 1.5 GPUs of a pool
	}
	if !reflect.DeepEqual(reqs, wantReq) {
		t.Errorf("requests %+v, want %+v", reqs, wantReq)
	}
	if j := jobs[2]; j.ID != 2 || j.Tasks[0].Replicas != 2 || j.Run != 300 || j.Submit != 4 {
		t.Errorf("job 2 = %+v", j)
	}
}

func TestReadErrors(t *testing.T) {
	const head = "job_id,num_gpu,submit_time,duration,user_dur\n"
	for _, c := range []struct{ in, want string }{
		{"job_id,num_gpu,submit_time\n1,1,0\n", "f.csv:1: missing column(s) duration"},
		{head + "1,1,0,5,\n", "f.csv:2: user_dur: empty; want a finite number"},
		{head + "1,-1,0,5,1\n", "f.csv:2: num_gpu: -1 is negative"},
		{head + "1,1,NaN,5,1\n", `f.csv:2: submit_time: "NaN" is not a finite number`},
		{head + "1,1,0,5,1\n1,1,0,5,1\n", "f.csv:3: job_id: job 1 already on line 2"},
		{head + "1.5,1,0,5,1\n", "f.csv:2: job_id: 1.5 is not a whole number"},
		{head + "1,1,0,1e300,1\n", "f.csv:2: duration: 1e+300 is past the simulator's horizon"},
		{"job_id,num_gpu,submit_time,duration,num_inst\n1,1,0,5,0\n", "f.csv:2: num_inst: 0 is less than 1"},
		{"job_id,num_gpu,submit_time,duration,num_inst\n1,1,0,5,1.5\n", "f.csv:2: num_inst: 1.5 is not a whole number"},
		{"job_id,num_gpu,submit_time,duration,num_inst\n1,1,0,5,1e9\n", "f.csv:2: num_inst: 1000000000 instances: want 1 to"},
	} {
		_, err := ReadFrom(strings.NewReader(c.in), "f.csv")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err %v, want %q", c.in, err, c.want)
		}
	}
	// two job_ids that fail are blamed each, not again as duplicates
	_, err := ReadFrom(strings.NewReader(head+"-1,1,0,5,1\n1.5,1,0,5,1\n"), "f.csv")
	if err == nil || strings.Contains(err.Error(), "already on line") || strings.Count(err.Error(), "job_id:") != 2 {
		t.Errorf("two bad job_ids: %v", err)
	}
}

// TestRoundTrip: a table written and read back gives the same rows.
func TestRoundTrip(t *testing.T) {
	rows, err := Synthetic(SyntheticParams{Jobs: 3000}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, rows); err != nil {
		t.Fatal(err)
	}
	back, err := ReadFrom(&b, "t.csv")
	if err != nil {
		t.Fatal(err)
	}
	for i := range back {
		back[i].Line = 0
	}
	if !reflect.DeepEqual(back, rows) {
		t.Fatal("rows read back differ from rows written")
	}
}

// TestBundledRegenerates: the bundled synthetic table is what its command
// (SOURCES.md) writes.
func TestBundledRegenerates(t *testing.T) {
	rows, err := Synthetic(SyntheticParams{Jobs: 20000}, SyntheticRand(2020))
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := Write(&want, rows); err != nil {
		t.Fatal(err)
	}
	got, err := gzfile.ReadFile("../data/pai/pai_sim_jobs_synthetic.csv.gz", func(r io.Reader, _ string) ([]byte, error) { return io.ReadAll(r) })
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatal("the bundled pai_sim_jobs_synthetic.csv.gz is not what wb dataset pai-sim-synthetic --jobs 20000 --seed 2020 writes")
	}
}

// TestDerive: the job table of a small raw trace, with past-only
// estimates worked out by hand.
func TestDerive(t *testing.T) {
	jobs := []pai.JobRow{
		{Line: 1, Name: "a", InstID: "ia", User: "u1", Status: "Terminated", Start: 1000, End: 1100},
		{Line: 2, Name: "b", InstID: "ib", User: "u1", Status: "Terminated", Start: 1050, End: 1400},
		{Line: 3, Name: "c", InstID: "ic", User: "u1", Status: "Terminated", Start: 1200, End: 1300},
		{Line: 4, Name: "d", InstID: "id", User: "u2", Status: "Terminated", Start: 1500, End: 1600},
		{Line: 5, Name: "e", InstID: "ie", User: "u1", Status: "Running", Start: 1600, End: pai.NoTime},
	}
	tasks := []pai.TaskRow{
		{JobName: "a", TaskName: "worker", InstNum: 2, Start: 1000, PlanCPU: 600, PlanGPU: 50, GPUType: "T4"},
		{JobName: "a", TaskName: "ps", InstNum: 1, Start: 1000, PlanCPU: 1200},
		{JobName: "b", TaskName: "worker", InstNum: 1, Start: 1100, PlanCPU: 400, PlanGPU: 100, GPUType: "V100"},
		{JobName: "c", TaskName: "worker", InstNum: 1, Start: 1210, PlanCPU: 400, PlanGPU: 100, GPUType: "V100"},
		{JobName: "d", TaskName: "worker", InstNum: 1, Start: 1500, PlanCPU: 400, PlanGPU: 800, GPUType: "V100"},
		{JobName: "e", TaskName: "worker", InstNum: 1, Start: 1600, PlanCPU: 400, PlanGPU: 100},
	}
	groups := []GroupRow{{InstID: "ia", Group: "g1"}, {InstID: "ib", Group: "g2"}, {InstID: "ic", Group: "g2"}}
	rows, dropped, err := Derive(jobs, tasks, groups)
	if err != nil {
		t.Fatal(err)
	}
	if dropped.Count(pai.DropNoEnd) != 1 || len(rows) != 4 {
		t.Fatalf("%d rows, dropped %s", len(rows), dropped)
	}
	type est struct{ user, group, gpu float64 }
	type row struct {
		id            int64
		submit, dur   scheduler.Time
		gpu, cpu      int64
		inst          int
		gpuType, user string
		est           est
	}
	// a ends at 100 (table clock, from 1000), c at 300, b at 400, d at 600.
	want := []row{
		{0, 0, 100, 50, 600, 2, "T4", "u1", est{0, 0, 0}},           // nothing ended yet
		{1, 50, 300, 100, 400, 1, "V100", "u1", est{0, 0, 0}},       // a ends at 100
		{2, 200, 90, 100, 400, 1, "V100", "u1", est{100, 100, 100}}, // a ended: u1 → 100; b (g2) ends at 400, so (g2, u1) → u1
		// By 500, a (100), c (90) and b (300) have ended; u2 has none:
		// the mean of every job, 490/3.
		{3, 500, 100, 800, 400, 1, "V100", "u2", est{163.33, 163.33, 163.33}},
	}
	for i, r := range rows {
		g := row{r.ID, r.Submit, r.Duration, r.GPUPct, r.CPUPct, r.Inst, r.GPUType, r.User,
			est{r.Estimates["user_dur"], r.Estimates["group_dur"], r.Estimates["group_gpu_dur"]}}
		if g != want[i] {
			t.Errorf("row %d = %+v\n want %+v", i, g, want[i])
		}
	}
	noGroups, _, err := Derive(jobs, tasks, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := noGroups[2].Estimates["group_dur"]; ok || noGroups[2].Estimates["user_dur"] != 100 {
		t.Errorf("without groups: estimates %v", noGroups[2].Estimates)
	}
}

// TestGroupsConflict: an instance in two groups of the group table is
// refused at the second (Derive took the last, unsaid); the same row twice
// is not.
func TestGroupsConflict(t *testing.T) {
	if _, err := ReadGroupsFrom(strings.NewReader("i1,u1,V100,g1,w\ni2,u1,V100,g2,w\ni1,u1,V100,g1,w\n"), "g.csv"); err != nil {
		t.Errorf("a row repeated: %v", err)
	}
	_, err := ReadGroupsFrom(strings.NewReader("i1,u1,V100,g1,w\ni2,u1,V100,g2,w\ni1,u1,V100,g9,w\n"), "g.csv")
	if want := `g.csv:3: group: instance "i1" in group "g9" here and "g1" on line 1`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("two groups: %v, want %q", err, want)
	}
}

// TestDeriveEdges: a job whose main task asks memory alone is left out as
// no-request, as a simulation would leave it (it was written, and dropped
// by every simulation); a plan_gpu under 0.5 is 1%, not 0 (a GPU job
// written as one with no GPU); a job that ends as it is submitted is not
// its own estimate, while one ending then that was submitted before it is.
func TestDeriveEdges(t *testing.T) {
	jobs := []pai.JobRow{
		{Line: 1, Name: "m", InstID: "im", User: "u1", Status: "Terminated", Start: 0, End: 100},
		{Line: 2, Name: "s", InstID: "is", User: "u1", Status: "Terminated", Start: 10, End: 100},
		{Line: 3, Name: "z0", InstID: "iz0", User: "u2", Status: "Terminated", Start: 20, End: 30},
		{Line: 4, Name: "z1", InstID: "iz1", User: "u2", Status: "Terminated", Start: 30, End: 30},
		{Line: 5, Name: "z2", InstID: "iz2", User: "u2", Status: "Terminated", Start: 30, End: 200},
	}
	tasks := []pai.TaskRow{
		{JobName: "m", TaskName: "worker", InstNum: 1, Start: 0, PlanMem: 4},
		{JobName: "s", TaskName: "worker", InstNum: 1, Start: 10, PlanCPU: 100, PlanGPU: 0.4, PlanMem: 4, GPUType: "T4"},
		{JobName: "z0", TaskName: "worker", InstNum: 1, Start: 20, PlanCPU: 100, PlanGPU: 100, GPUType: "T4"},
		{JobName: "z1", TaskName: "worker", InstNum: 1, Start: 30, PlanCPU: 100, PlanGPU: 100, GPUType: "T4"},
		{JobName: "z2", TaskName: "worker", InstNum: 1, Start: 30, PlanCPU: 100, PlanGPU: 100, GPUType: "T4"},
	}
	rows, dropped, err := Derive(jobs, tasks, nil)
	if err != nil {
		t.Fatal(err)
	}
	if dropped.Count(DropNothingAsked) != 1 || len(rows) != 4 || !strings.Contains(dropped.String(), `job "m": its task "worker" asks no GPU and no CPU`) {
		t.Fatalf("%d rows, dropped %s", len(rows), dropped)
	}
	if rows[0].Submit != 0 || rows[0].User != "u1" || rows[0].GPUPct != 1 || rows[0].CPUPct != 100 {
		t.Errorf("the job of plan_gpu 0.4, first kept: %+v", rows[0])
	}
	// z0 (10 s) ended at 30, as z1 and z2 were submitted; z1 ended then too
	// (run 0: a duration of 1): z1's estimate is z0's, z2's z0's and z1's
	if u := rows[2].Estimates["user_dur"]; rows[2].User != "u2" || u != 10 {
		t.Errorf("z1's user_dur %v (its own duration counted?), want 10", u)
	}
	if u := rows[3].Estimates["user_dur"]; u != 5.5 {
		t.Errorf("z2's user_dur %v, want 5.5 (z0's 10 and z1's 1)", u)
	}
	if jobs, dropped, err := Jobs(rows); err != nil || dropped.Total() != 0 || len(jobs) != 4 {
		t.Errorf("the table derived, simulated: %d jobs, dropped %s, %v", len(jobs), dropped, err)
	}
}

// TestSyntheticEstimates: the synthetic table's estimates use only the
// past, and the finer keys predict better on it (its groups repeat).
func TestSyntheticEstimates(t *testing.T) {
	rows, err := Synthetic(SyntheticParams{Jobs: 5000}, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	if rows[0].Estimates["user_dur"] != 0 {
		t.Errorf("the first job has an estimate %v with no job ended", rows[0].Estimates)
	}
	errs := map[string]float64{}
	for _, r := range rows[1000:] {
		for _, c := range EstimateColumns {
			d := r.Estimates[c] - float64(r.Duration)
			errs[c] += d * d
		}
	}
	if !(errs["group_gpu_dur"] < errs["group_dur"] && errs["group_dur"] < errs["user_dur"]) {
		t.Errorf("squared errors %v: want group_gpu_dur < group_dur < user_dur", errs)
	}
}

// checkReadError fails t unless err, a reader's error on f.csv, names the
// file, and one about a line is a *datasets.ColumnError.
func checkReadError(t *testing.T, err error) { readcheck.Error(t, err, "f.csv") }

func FuzzRead(f *testing.F) {
	b, err := os.ReadFile("testdata/pai_sim_jobs.csv")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte("job_id,num_gpu,submit_time,duration\n1,0.5,0,10\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		rows, err := ReadFrom(bytes.NewReader(in), "f.csv")
		if err != nil {
			checkReadError(t, err)
			return
		}
		jobs, _, err := Jobs(rows)
		if err != nil {
			t.Fatalf("rows the reader accepted make invalid jobs: %v", err)
		}
		for i := range jobs {
			if err := jobs[i].Validate(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestMatchesPAISimulatorRun: the PAI v2020 simulator's own code
// (alibaba/clusterdata cluster-trace-gpu-v2020/simulator, commits 29bf75b,
// 6a7d236 and 8a7216f, run unmodified with Python 3.11) on this table —
// 5,000 jobs from wb dataset pai-sim-synthetic --jobs 5000 --seed 7
// --mean-interarrival 120, re-timed to 250 a minute, on 1,024 GPUs and
// round(23.22 × 1,024) cores — printed these avg_jct and wait_time (each
// instance of a gang counted as a job). wb's greedy rule on a GPU pool
// gives the same to the cent.
func TestMatchesPAISimulatorRun(t *testing.T) {
	rows, err := Synthetic(SyntheticParams{Jobs: 5000, MeanInterarrival: 120}, SyntheticRand(7))
	if err != nil {
		t.Fatal(err)
	}
	jobs, dropped, err := Jobs(rows)
	if err != nil || dropped.Total() != 0 {
		t.Fatalf("%v, dropped %s", err, dropped)
	}
	for k := range jobs { // in (submit, id) order: the simulator's arrival_rate 250
		jobs[k].Submit = scheduler.Time(k/250) * 60
	}
	want := []struct {
		policy, order, est string
		jct, wait          string
	}{
		{"SJF", "sjf", "exact", "9306.41", "5474.36"},
		{"SJU", "sjf", "user-dur", "10946.95", "7114.91"},
		{"SJG", "sjf", "group-dur", "9941.62", "6109.57"},
		{"SJGG", "sjf", "group-gpu-dur", "10147.08", "6315.04"},
		{"FIFO", "fifo", "exact", "16006.93", "12174.88"},
	}
	c := scheduler.NewGPUPool("pai", 1024, 23777)
	for _, w := range want {
		s, err := scheduler.DefaultParts().Build(scheduler.Spec{Order: w.order, Backfill: "greedy", Estimate: w.est})
		if err != nil {
			t.Fatal(err)
		}
		r, err := scheduler.Simulate(c, jobs, s)
		if err != nil {
			t.Fatal(err)
		}
		jct, wait := fmt.Sprintf("%.2f", r.Summary.MeanJCTReplicas), fmt.Sprintf("%.2f", r.Summary.MeanWaitReplicas)
		if jct != w.jct || wait != w.wait {
			t.Errorf("%s: avg_jct %s, wait_time %s; the simulator printed %s, %s", w.policy, jct, wait, w.jct, w.wait)
		}
	}
}

// TestSimulatorSample: the sample the PAI simulator draws (it reads 10n+1
// rows, random.seed(42), random.shuffle, the first n), as CPython 3.11
// draws it:
//
//	python3 -c "import random
//	rows=list(range(1000))[:10*50+1]
//	random.seed(42); random.shuffle(rows); print(sorted(rows[:50]))"
func TestSimulatorSample(t *testing.T) {
	rows := make([]Row, 1000)
	for i := range rows {
		rows[i].ID = int64(i)
	}
	var got []int64
	for _, r := range SimulatorSample(rows, 50, 42) {
		got = append(got, r.ID)
	}
	want := []int64{7, 21, 41, 45, 53, 59, 68, 72, 74, 88, 92, 93, 100, 120, 129, 151, 153, 155, 163, 171, 175, 177, 179, 182, 184,
		199, 201, 207, 212, 213, 230, 240, 241, 253, 278, 300, 312, 322, 323, 334, 347, 374, 384, 404, 408, 416, 444, 446, 461, 472}
	if !slices.Equal(got, want) {
		t.Errorf("sample %v,\n want %v", got, want)
	}
	if all := SimulatorSample(rows[:30], 50, 42); len(all) != 30 {
		t.Errorf("a sample larger than the table: %d rows, want all 30", len(all))
	}
}

// A table given as the tar archive it is published in is said to be one.
func TestReadTarArchive(t *testing.T) {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	body := []byte("job_id,num_gpu,submit_time,duration\n1,1,0,5\n")
	if err := tw.WriteHeader(&tar.Header{Name: "pai_sim_jobs.csv", Mode: 0o644, Size: int64(len(body))}); err != nil {
		t.Fatal(err)
	}
	tw.Write(body)
	tw.Close()
	if _, err := ReadFrom(&b, "t.csv.tar"); err == nil || err.Error() != "t.csv.tar: a tar archive, not a table: unpack it (tar xzf) and give the CSV inside" {
		t.Errorf("a tar archive: %v", err)
	}
}

// TestJobsDropped: each reason counts its rows and names the first by line
// and job, so that a user can find it.
func TestJobsDropped(t *testing.T) {
	rows := []Row{
		{Line: 2, ID: 1, GPUPct: 100, CPUPct: 100, Duration: 10, Inst: 1},
		{Line: 3, ID: 2, GPUPct: 100 * (scheduler.MaxGPUsPerNode + 1), CPUPct: 100, Duration: 10, Inst: 1},
		{Line: 4, ID: 3, Duration: 10, Inst: 1},
		{Line: 5, ID: 4, GPUPct: 100 * (scheduler.MaxGPUsPerNode + 2), Duration: 10, Inst: 1},
	}
	jobs, dropped, err := Jobs(rows)
	if err != nil {
		t.Fatal(err)
	}
	want := datasets.Dropped{
		{Reason: DropTooManyGPUs, Count: 2, First: "line 3 (job 2)"},
		{Reason: DropNothingAsked, Count: 1, First: "line 4 (job 3)"},
	}
	if len(jobs) != 1 || !reflect.DeepEqual(dropped, want) {
		t.Errorf("%d jobs, dropped %+v; want 1, %+v", len(jobs), dropped, want)
	}
}
