package pai

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/wb-sim/wb/datasets"
	"github.com/wb-sim/wb/datasets/internal/readcheck"
	"github.com/wb-sim/wb/scheduler"
)

// The README's facts: 1,897 machines, 6,742 GPUs: P100 798 machines × 2, T4
// 497 × 2, MISC 280 × 8, V100 104 × 8, V100M32 135 × 8, and 83 CPU-only
// machines.
func TestMachineSpecBundled(t *testing.T) {
	rows, err := ReadMachineSpec("../data/pai/pai_machine_spec.csv")
	if err != nil {
		t.Fatal(err)
	}
	c := Cluster(rows)
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	type group struct{ machines, gpusEach int }
	want := map[string]group{
		"P100": {798, 2}, "T4": {497, 2}, "MISC": {280, 8}, "V100": {104, 8}, "V100M32": {135, 8}, "": {83, 0},
	}
	got := map[string]group{}
	gpus := 0
	for _, n := range c.Nodes {
		g := got[n.Model]
		if g.machines > 0 && g.gpusEach != n.GPUs {
			t.Errorf("%s machines with %d and %d GPUs", n.Model, g.gpusEach, n.GPUs)
		}
		got[n.Model] = group{g.machines + 1, n.GPUs}
		gpus += n.GPUs
	}
	if len(c.Nodes) != 1897 || gpus != 6742 || !reflect.DeepEqual(got, want) {
		t.Errorf("%d machines, %d GPUs, by model %v; want 1897, 6742, %v", len(c.Nodes), gpus, got, want)
	}
	// First line: 7399a758eb02bae1a3621236,CPU,96,512,0.
	if n := c.Nodes[0]; n != (scheduler.Node{Name: "7399a758eb02bae1a3621236", CPU: 96000, Mem: 512 * 1024}) {
		t.Errorf("first node = %+v", n)
	}
	// The header file names the columns the reader expects.
	h, err := os.ReadFile("../data/pai/pai_machine_spec.header")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(h)); got != strings.Join(machineColumns(), ",") {
		t.Errorf("header file %q, reader's columns %q", got, machineColumns())
	}
}

func TestJobs(t *testing.T) {
	jobs, err := ReadJobs("testdata/pai_job_table.csv")
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := ReadTasks("testdata/pai_task_table.csv")
	if err != nil {
		t.Fatal(err)
	}
	if j := jobs[1]; j.End != NoTime || j.Start != 50 || j.Status != "Running" || j.Line != 2 {
		t.Errorf("running job = %+v", j)
	}
	if tk := tasks[1]; tk.PlanGPU != 0 || tk.GPUType != "" || tk.InstNum != 1 || tk.PlanMem != 10 {
		t.Errorf("ps task = %+v", tk)
	}
	got, dropped, err := Jobs(jobs, tasks)
	if err != nil {
		t.Fatal(err)
	}
	one := func(r scheduler.Request) []scheduler.Task { return []scheduler.Task{{Replicas: 1, Request: r}} }
	want := []scheduler.Job{
		{ID: 8, Name: "j9", User: "u4", Submit: 10, Run: 188,
			Tasks: one(scheduler.Request{CPU: 500, Mem: 512, GPUs: 1, Models: []string{"T4"}})},
		{ID: 2, Name: "j3", User: "u1", Submit: 60, Run: 935,
			Tasks: one(scheduler.Request{CPU: 8000, Mem: 65536, GPUs: 8, Models: []string{"V100"}})},
		{ID: 0, Name: "j1", User: "u1", Submit: 100, Run: 595, Tasks: []scheduler.Task{
			{Replicas: 2, Request: scheduler.Request{CPU: 4000, Mem: 30000, GPUs: 1, GPUMilli: 500}},
			{Replicas: 1, Request: scheduler.Request{CPU: 6000, Mem: 10240}},
		}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("jobs =\n%+v\nwant\n%+v", got, want)
	}
	wantDropped := datasets.Dropped{
		{Reason: DropOrphanTask, Count: 1, Tasks: true, First: "line 5 of the task table (job jX)"},
		{Reason: DropNoEnd, Count: 1, First: "line 2 of the job table (j2)"},
		{Reason: DropGPUFraction, Count: 1, First: "line 4 of the job table (j4)"},
		{Reason: DropNoTasks, Count: 1, First: "line 5 of the job table (j5)"},
		{Reason: DropNoLaunch, Count: 1, First: "line 6 of the job table (j6)"},
		{Reason: DropLaunchEarly, Count: 1, First: "line 7 of the job table (j7)"},
		{Reason: DropNothingAsked, Count: 1, First: "line 8 of the job table (j8)"},
		{Reason: DropNegativeRun, Count: 1, First: "line 10 of the job table (j10)"},
	}
	if !reflect.DeepEqual(dropped, wantDropped) {
		t.Errorf("dropped = %v\nwant      %v", dropped, wantDropped)
	}
	// the orphan task is a task row, not a job: 7 jobs were left out
	if dropped.Total() != 7 || !strings.Contains(dropped.String(), "task-without-job: 1 tasks") {
		t.Errorf("total %d, %s", dropped.Total(), dropped)
	}
	for i := range got {
		if err := got[i].Validate(); err != nil {
			t.Error(err)
		}
	}
}

func TestRequest(t *testing.T) {
	tests := []struct {
		name   string
		task   TaskRow
		want   scheduler.Request
		reason string
	}{
		{"half GPU", TaskRow{PlanCPU: 600, PlanMem: 1, PlanGPU: 50, GPUType: "T4"},
			scheduler.Request{CPU: 6000, Mem: 1024, GPUs: 1, GPUMilli: 500, Models: []string{"T4"}}, ""},
		{"tiny GPU share", TaskRow{PlanCPU: 100, PlanGPU: 0.01}, scheduler.Request{CPU: 1000, GPUs: 1, GPUMilli: 1}, ""},
		{"two GPUs", TaskRow{PlanCPU: 100, PlanGPU: 200, GPUType: "MISC"}, scheduler.Request{CPU: 1000, GPUs: 2}, ""},
		{"CPU task", TaskRow{PlanCPU: 50, PlanMem: 0.25, GPUType: "V100"}, scheduler.Request{CPU: 500, Mem: 256}, ""},
		{"GPU and a half", TaskRow{PlanGPU: 150}, scheduler.Request{}, DropGPUFraction},
		{"17 GPUs", TaskRow{PlanGPU: 1700}, scheduler.Request{}, DropTooManyGPUs},
		{"nothing", TaskRow{}, scheduler.Request{}, DropNothingAsked},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, reason := request(&tt.task)
			if reason != tt.reason {
				t.Fatalf("reason = %q, want %q", reason, tt.reason)
			}
			if reason == "" && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("request = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestReadInstances(t *testing.T) {
	rows, err := ReadInstances("testdata/pai_instance_table.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := InstanceRow{Line: 3, JobName: "j2", TaskName: "worker", InstName: "n3", WorkerName: "w3",
		InstID: "i2", Status: "Running", Start: 55, End: NoTime}
	if len(rows) != 3 || rows[2] != want {
		t.Errorf("rows = %+v, want 3 rows ending with %+v", rows, want)
	}
}

func TestDuplicateJobs(t *testing.T) {
	jobs := []JobRow{{Line: 1, Name: "a"}, {Line: 2, Name: "b"}, {Line: 3, Name: "a"}}
	_, _, err := Jobs(jobs, nil)
	if want := `job "a" on lines 1 and 3`; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
	// read from a file, the reader says so with the file and line (Jobs
	// alone named no file)
	_, err = ReadJobsFrom(strings.NewReader("a,i1,u1,Terminated,0.0,100.0\nb,i2,u1,Terminated,0.0,100.0\na,i3,u1,Terminated,0.0,100.0\n"), "j.csv")
	if want := `j.csv:3: job_name: job "a" already on line 1`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("read: %v, want %q", err, want)
	}
}

// TestDuplicateTasks: a job's task named twice in the task table is an
// error naming both lines (it once added the task's instances twice,
// silently), and the same task name in two jobs is not.
func TestDuplicateTasks(t *testing.T) {
	jobs := []JobRow{{Line: 1, Name: "a", Start: 0, End: 10}, {Line: 2, Name: "b", Start: 0, End: 10}}
	task := func(line int, job, name string) TaskRow {
		return TaskRow{Line: line, JobName: job, TaskName: name, InstNum: 1, Start: 1, End: 9, PlanCPU: 100, PlanMem: 1}
	}
	_, _, err := Jobs(jobs, []TaskRow{task(1, "a", "worker"), task(2, "b", "worker"), task(3, "a", "ps")})
	if err != nil {
		t.Errorf("distinct tasks: %v", err)
	}
	_, _, err = Jobs(jobs, []TaskRow{task(1, "a", "worker"), task(2, "b", "worker"), task(3, "a", "worker")})
	if want := `task "worker" of job "a" on lines 1 and 3 of the task table`; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
	// read from a file, the reader says so with the file and line
	row := ",Terminated,110.0,700.0,400.0,29.296875,50.0,V100\n"
	_, err = ReadTasksFrom(strings.NewReader("a,worker,1"+row+"b,worker,1"+row+"a,worker,2"+row), "t.csv")
	if want := `t.csv:3: task_name: task "worker" of job "a" already on line 1`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("read: %v, want %q", err, want)
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name  string
		table string
		in    string
		want  string
	}{
		{"task field count", "task", "j1,worker,1.0,Terminated,1.0,2.0,600.0\n", "t.csv:1: wrong number of fields: want 10"},
		{"task bad plan", "task", "j1,worker,1.0,Terminated,1.0,2.0,6x,1,,\n", `t.csv:1: plan_cpu: "6x" is not a finite number`},
		{"task negative plan", "task", "j1,worker,1.0,Terminated,1.0,2.0,-6,1,,\n", `t.csv:1: plan_cpu: -6 is negative`},
		{"task fractional inst_num", "task", "j1,worker,1.5,Terminated,1.0,2.0,6,1,,\n", `t.csv:1: inst_num: 1.5 is not a whole number`},
		{"task no inst_num", "task", "j1,worker,,Terminated,1.0,2.0,6,1,,\nj2,worker,0,Terminated,1.0,2.0,6,1,,\n",
			"t.csv:1: inst_num: empty; want a whole number\nt.csv:2: inst_num: 0 is less than 1"},
		{"task 2e9 instances", "task", "j1,worker,2000000000,Terminated,1.0,2.0,6,1,,\n", "t.csv:1: inst_num: 2000000000 instances: at most 4194304"},
		{"task NaN time", "task", "j1,worker,1,Terminated,NaN,2.0,6,1,,\n", `t.csv:1: start_time: "NaN" is not a finite number`},
		{"job negative time", "job", "j1,i,u,Terminated,-1.0,2.0\n", `t.csv:1: start_time: -1 is negative`},
		{"job time past the horizon", "job", "j1,i,u,Terminated,8000000000000000.0,2.0\n", `t.csv:1: start_time: 8e+15 s is past the simulator's horizon of 1125899906842624 s (2^50)`},
		{"job no name", "job", ",i,u,Terminated,1.0,2.0\n", `t.csv:1: job_name: empty job name`},
		{"machine GPUs without type", "machine", "m1,CPU,96,512,2\n", `t.csv:1: gpu_type: "CPU" for a machine with 2 GPUs`},
		{"machine too many GPUs", "machine", "m1,T4,96,512,32\n", `t.csv:1: cap_gpu: 32 GPUs; a node holds at most 16`},
		{"instance quote", "instance", "j1,w,\"n,w,i,s,1,2,m\n", `t.csv:1: extraneous or missing " in quoted-field`},
		// a header added to a table published without one is named as such
		// (its start_time "is not a finite number" was said)
		{"job header", "job", "job_name,inst_id,user,status,start_time,end_time\nj1,i,u,Terminated,1.0,2.0\n",
			"t.csv:1: a header (job_name,inst_id,user,status,start_time,end_time): this table has none, its columns are job_name,inst_id,user,status,start_time,end_time in that order; remove the line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := read(tt.table, []byte(tt.in), "t.csv")
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

// read reads in as one table and converts it where it can.
func read(table string, in []byte, name string) error {
	var err error
	switch table {
	case "machine":
		var rows []MachineRow
		if rows, err = ReadMachineSpecFrom(bytes.NewReader(in), name); err == nil {
			c := Cluster(rows)
			if cpu, mem, gpu := c.Capacity(); cpu+scheduler.MilliCPU(mem)+scheduler.MilliCPU(gpu) > 0 {
				err = c.Validate()
			}
		}
	case "job":
		_, err = ReadJobsFrom(bytes.NewReader(in), name)
	case "task":
		var tasks []TaskRow
		if tasks, err = ReadTasksFrom(bytes.NewReader(in), name); err == nil {
			jobs := make([]JobRow, 0, len(tasks))
			seen := map[string]bool{}
			for _, t := range tasks {
				if !seen[t.JobName] {
					seen[t.JobName] = true
					jobs = append(jobs, JobRow{Name: t.JobName, Start: 0, End: 1 << 40})
				}
			}
			var out []scheduler.Job
			out, _, err = Jobs(jobs, tasks)
			for i := range out {
				if err == nil {
					err = out[i].Validate()
				}
			}
		}
	case "instance":
		_, err = ReadInstancesFrom(bytes.NewReader(in), name)
	}
	return err
}

func FuzzRead(f *testing.F) {
	tables := []string{"machine", "job", "task", "instance"}
	for _, path := range []string{"../data/pai/pai_machine_spec.csv", "testdata/pai_job_table.csv",
		"testdata/pai_task_table.csv", "testdata/pai_instance_table.csv"} {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		if len(b) > 2000 {
			b = b[:bytes.LastIndexByte(b[:2000], '\n')+1]
		}
		for j := range tables {
			f.Add(uint8(j), b)
		}
	}
	// sizes past what the simulator holds once in MiB or milli-units
	f.Add(uint8(2), []byte("j1,worker,1.0,Terminated,110.0,700.0,400.0,2e9,50.0,MISC\n"))
	f.Add(uint8(2), []byte("j1,worker,1.0,Terminated,110.0,700.0,2e11,1,50.0,MISC\n"))
	f.Add(uint8(0), []byte("m1,CPU,96,5e9,0\n"))
	f.Add(uint8(0), []byte("m1,CPU,2000000000,100,0\n"))
	f.Fuzz(func(t *testing.T, table uint8, in []byte) {
		err := read(tables[int(table)%len(tables)], in, "f.csv")
		if err == nil {
			return
		}
		readcheck.Error(t, err, "f.csv")
	})
}
