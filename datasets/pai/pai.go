// Package pai reads the Alibaba PAI trace v2020 (alibaba/clusterdata
// cluster-trace-gpu-v2020; Weng et al., "MLaaS in the Wild", NSDI 2022):
// the machine specification and the job, task and instance tables. The
// files are CSV without a header row, in the column order of their
// *.header files (and of the README), and may be gzip-compressed.
//
// Units, from the trace's README: plan_cpu is a percentage of one core (600
// is 6 cores), plan_mem is GB, plan_gpu a percentage of one GPU (50 is half
// a GPU, 800 is 8 GPUs); machine cap_cpu is cores, cap_mem GB, cap_gpu GPUs;
// times are seconds, written as decimals ("4550879.0"). Empty fields, which
// the trace has (running jobs have no end, CPU tasks no plan_gpu), are
// [NoTime] for times and 0 for plans; every other malformed field is an
// error "file:line: column: what is wrong".
//
// [Cluster] turns machines into nodes and [Jobs] groups tasks into jobs.
package pai

import (
	"io"
	"math"
	"strings"

	"github.com/wb-sim/wb/datasets/internal/csvtab"
	"github.com/wb-sim/wb/datasets/internal/gzfile"
	"github.com/wb-sim/wb/scheduler"
)

// MiBPerGB converts the trace's GB to MiB: the trace's GB are taken to be
// GiB.
const MiBPerGB = 1024

// NoTime marks an empty time field.
const NoTime scheduler.Time = -1

// MachineRow is one row of pai_machine_spec.
type MachineRow struct {
	Line    int
	Machine string
	GPUType string // P100, T4, MISC, V100, V100M32; CPU for CPU-only machines
	CPU     int    // cores
	MemGB   float64
	GPUs    int
}

// JobRow is one row of pai_job_table.
type JobRow struct {
	Line   int
	Name   string // job_name
	InstID string
	User   string
	Status string // Running, Terminated, Failed, Waiting
	// Start is the submission time, End the completion time; NoTime when
	// empty.
	Start, End scheduler.Time
}

// TaskRow is one row of pai_task_table.
type TaskRow struct {
	Line       int
	JobName    string
	TaskName   string // worker, ps, evaluator, tensorflow, ...
	InstNum    int    // instances (replicas)
	Status     string
	Start, End scheduler.Time // launch and completion; NoTime when empty
	// Per instance: percent of a core, GB, percent of a GPU; 0 when empty.
	PlanCPU, PlanMem, PlanGPU float64
	GPUType                   string // the type of GPU the task was given
}

// InstanceRow is one row of pai_instance_table.
type InstanceRow struct {
	Line       int
	JobName    string
	TaskName   string
	InstName   string
	WorkerName string
	InstID     string
	Status     string
	Start, End scheduler.Time // NoTime when empty
	Machine    string
}

// The raw rows, as gocsv fills them: their fields in the files' order.
type (
	rawMachine struct {
		Machine string `csv:"machine"`
		GPUType string `csv:"gpu_type"`
		CapCPU  string `csv:"cap_cpu"`
		CapMem  string `csv:"cap_mem"`
		CapGPU  string `csv:"cap_gpu"`
	}
	rawJob struct {
		JobName string `csv:"job_name"`
		InstID  string `csv:"inst_id"`
		User    string `csv:"user"`
		Status  string `csv:"status"`
		Start   string `csv:"start_time"`
		End     string `csv:"end_time"`
	}
	rawTask struct {
		JobName  string `csv:"job_name"`
		TaskName string `csv:"task_name"`
		InstNum  string `csv:"inst_num"`
		Status   string `csv:"status"`
		Start    string `csv:"start_time"`
		End      string `csv:"end_time"`
		PlanCPU  string `csv:"plan_cpu"`
		PlanMem  string `csv:"plan_mem"`
		PlanGPU  string `csv:"plan_gpu"`
		GPUType  string `csv:"gpu_type"`
	}
	rawInstance struct {
		JobName    string `csv:"job_name"`
		TaskName   string `csv:"task_name"`
		InstName   string `csv:"inst_name"`
		WorkerName string `csv:"worker_name"`
		InstID     string `csv:"inst_id"`
		Status     string `csv:"status"`
		Start      string `csv:"start_time"`
		End        string `csv:"end_time"`
		Machine    string `csv:"machine"`
	}
)

// Columns of each table, as in its .header file.
func machineColumns() []string {
	return []string{"machine", "gpu_type", "cap_cpu", "cap_mem", "cap_gpu"}
}

func jobColumns() []string {
	return []string{"job_name", "inst_id", "user", "status", "start_time", "end_time"}
}

func taskColumns() []string {
	return []string{"job_name", "task_name", "inst_num", "status", "start_time", "end_time",
		"plan_cpu", "plan_mem", "plan_gpu", "gpu_type"}
}

func instanceColumns() []string {
	return []string{"job_name", "task_name", "inst_name", "worker_name", "inst_id", "status",
		"start_time", "end_time", "machine"}
}

// ReadMachineSpec reads pai_machine_spec from the file at path.
func ReadMachineSpec(path string) ([]MachineRow, error) {
	return gzfile.ReadFile(path, ReadMachineSpecFrom)
}

// ReadMachineSpecFrom reads pai_machine_spec from r; name names it in
// errors. Capacities must be non-negative integers (memory any
// non-negative number), GPUs at most [scheduler.MaxGPUsPerNode]; a machine
// with GPUs needs a GPU type other than CPU; names must be unique.
func ReadMachineSpecFrom(r io.Reader, name string) ([]MachineRow, error) {
	var raw []rawMachine
	_, lines, err := csvtab.Table{Columns: machineColumns()}.Read(r, name, &raw)
	if err != nil {
		return nil, err
	}
	p := csvtab.Parser{File: name}
	rows := make([]MachineRow, len(raw))
	seen := make(map[string]int, len(raw))
	for i := 0; i < len(raw) && !p.Full(); i++ {
		in, line := &raw[i], lines[i]
		m := MachineRow{
			Line:    line,
			Machine: strings.TrimSpace(in.Machine),
			GPUType: strings.TrimSpace(in.GPUType),
			CPU:     int(p.Whole(line, "cap_cpu", in.CapCPU, 0)),
			MemGB:   nonNegative(&p, line, "cap_mem", in.CapMem, scheduler.MaxQuantity/MiBPerGB),
			GPUs:    int(p.Whole(line, "cap_gpu", in.CapGPU, 0)),
		}
		switch {
		case m.Machine == "":
			p.Errorf(line, "machine", "empty machine name")
		case seen[m.Machine] > 0:
			p.Errorf(line, "machine", "machine %q already on line %d", m.Machine, seen[m.Machine])
		case m.CPU > scheduler.MaxProcs:
			p.Errorf(line, "cap_cpu", "%d cores; a node holds at most %d", m.CPU, scheduler.MaxProcs)
		case m.GPUs > scheduler.MaxGPUsPerNode:
			p.Errorf(line, "cap_gpu", "%d GPUs; a node holds at most %d", m.GPUs, scheduler.MaxGPUsPerNode)
		case m.GPUs > 0 && (m.GPUType == "" || m.GPUType == "CPU"):
			p.Errorf(line, "gpu_type", "%q for a machine with %d GPUs", m.GPUType, m.GPUs)
		}
		seen[m.Machine] = line
		rows[i] = m
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	return rows, nil
}

// Cluster returns the cluster of the machines, in their order: CPU = cap_cpu
// cores, Mem = cap_mem × [MiBPerGB], GPUs = cap_gpu, Model = gpu_type (empty
// for machines without GPUs, whose type is CPU).
func Cluster(rows []MachineRow) *scheduler.Cluster {
	c := &scheduler.Cluster{Name: "pai-v2020", Nodes: make([]scheduler.Node, len(rows))}
	for i, r := range rows {
		n := scheduler.Node{
			Name: r.Machine,
			CPU:  scheduler.MilliCPU(r.CPU) * scheduler.MilliPerCore,
			Mem:  scheduler.MiB(math.Round(r.MemGB * MiBPerGB)),
			GPUs: r.GPUs,
		}
		if r.GPUs > 0 {
			n.Model = r.GPUType
		}
		c.Nodes[i] = n
	}
	return c
}

// ReadJobs reads pai_job_table from the file at path.
func ReadJobs(path string) ([]JobRow, error) { return gzfile.ReadFile(path, ReadJobsFrom) }

// ReadJobsFrom reads pai_job_table from r; name names it in errors.
func ReadJobsFrom(r io.Reader, name string) ([]JobRow, error) {
	var raw []rawJob
	_, lines, err := csvtab.Table{Columns: jobColumns()}.Read(r, name, &raw)
	if err != nil {
		return nil, err
	}
	p := csvtab.Parser{File: name}
	rows := make([]JobRow, len(raw))
	seen := make(map[string]int, len(raw)) // job name → its line
	for i := 0; i < len(raw) && !p.Full(); i++ {
		in, line := &raw[i], lines[i]
		rows[i] = JobRow{
			Line:   line,
			Name:   strings.TrimSpace(in.JobName),
			InstID: strings.TrimSpace(in.InstID),
			User:   strings.TrimSpace(in.User),
			Status: strings.TrimSpace(in.Status),
			Start:  optTime(&p, line, "start_time", in.Start),
			End:    optTime(&p, line, "end_time", in.End),
		}
		if rows[i].Name == "" {
			p.Errorf(line, "job_name", "empty job name")
		} else if first, dup := seen[rows[i].Name]; dup {
			// said here, with the file (Jobs, which gets rows, could not)
			p.Errorf(line, "job_name", "job %q already on line %d", rows[i].Name, first)
		} else {
			seen[rows[i].Name] = line
		}
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	return rows, nil
}

// ReadTasks reads pai_task_table from the file at path.
func ReadTasks(path string) ([]TaskRow, error) { return gzfile.ReadFile(path, ReadTasksFrom) }

// ReadTasksFrom reads pai_task_table from r; name names it in errors.
// inst_num must be a positive whole number ("1.0" is), plans non-negative.
func ReadTasksFrom(r io.Reader, name string) ([]TaskRow, error) {
	var raw []rawTask
	_, lines, err := csvtab.Table{Columns: taskColumns()}.Read(r, name, &raw)
	if err != nil {
		return nil, err
	}
	p := csvtab.Parser{File: name}
	rows := make([]TaskRow, len(raw))
	seen := make(map[[2]string]int, len(raw)) // (job, task) → its line
	for i := 0; i < len(raw) && !p.Full(); i++ {
		in, line := &raw[i], lines[i]
		t := TaskRow{
			Line:     line,
			JobName:  strings.TrimSpace(in.JobName),
			TaskName: strings.TrimSpace(in.TaskName),
			Status:   strings.TrimSpace(in.Status),
			Start:    optTime(&p, line, "start_time", in.Start),
			End:      optTime(&p, line, "end_time", in.End),
			// each within what the simulator holds once in its units
			// (milli-CPU, MiB, milli-GPU: see request)
			PlanCPU: optNonNegative(&p, line, "plan_cpu", in.PlanCPU, scheduler.MaxQuantity/10),
			PlanMem: optNonNegative(&p, line, "plan_mem", in.PlanMem, scheduler.MaxQuantity/MiBPerGB),
			PlanGPU: optNonNegative(&p, line, "plan_gpu", in.PlanGPU, scheduler.MaxQuantity/10),
			GPUType: strings.TrimSpace(in.GPUType),
		}
		if t.InstNum = int(p.Whole(line, "inst_num", in.InstNum, 1)); t.InstNum > scheduler.MaxReplicas {
			p.Errorf(line, "inst_num", "%d instances: at most %d", t.InstNum, scheduler.MaxReplicas)
		}
		if t.JobName == "" {
			p.Errorf(line, "job_name", "empty job name")
		}
		// a job's task named twice would add its instances twice
		if first, dup := seen[[2]string{t.JobName, t.TaskName}]; dup {
			p.Errorf(line, "task_name", "task %q of job %q already on line %d", t.TaskName, t.JobName, first)
		} else {
			seen[[2]string{t.JobName, t.TaskName}] = line
		}
		rows[i] = t
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	return rows, nil
}

// ReadInstances reads pai_instance_table from the file at path.
func ReadInstances(path string) ([]InstanceRow, error) {
	return gzfile.ReadFile(path, ReadInstancesFrom)
}

// ReadInstancesFrom reads pai_instance_table from r; name names it in
// errors.
func ReadInstancesFrom(r io.Reader, name string) ([]InstanceRow, error) {
	var raw []rawInstance
	_, lines, err := csvtab.Table{Columns: instanceColumns()}.Read(r, name, &raw)
	if err != nil {
		return nil, err
	}
	p := csvtab.Parser{File: name}
	rows := make([]InstanceRow, len(raw))
	for i := 0; i < len(raw) && !p.Full(); i++ {
		in, line := &raw[i], lines[i]
		rows[i] = InstanceRow{
			Line:       line,
			JobName:    strings.TrimSpace(in.JobName),
			TaskName:   strings.TrimSpace(in.TaskName),
			InstName:   strings.TrimSpace(in.InstName),
			WorkerName: strings.TrimSpace(in.WorkerName),
			InstID:     strings.TrimSpace(in.InstID),
			Status:     strings.TrimSpace(in.Status),
			Start:      optTime(&p, line, "start_time", in.Start),
			End:        optTime(&p, line, "end_time", in.End),
			Machine:    strings.TrimSpace(in.Machine),
		}
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	return rows, nil
}

// optTime parses a time in seconds, rounded to the nearest second; empty is
// NoTime.
func optTime(p *csvtab.Parser, line int, column, s string) scheduler.Time {
	v, ok := p.OptFloat(line, column, s)
	switch {
	case !ok:
		return NoTime
	case v < 0:
		p.Errorf(line, column, "%v is negative", v)
		return NoTime
	case v > float64(scheduler.MaxTime):
		p.Errorf(line, column, "%v s is past the simulator's horizon of %d s (2^50)", v, int64(scheduler.MaxTime))
		return NoTime
	}
	return scheduler.Time(math.Round(v))
}

// nonNegative parses a non-negative number of at most most (in the
// column's unit: what the simulator holds once converted to its own).
func nonNegative(p *csvtab.Parser, line int, column, s string, most float64) float64 {
	v := p.Float(line, column, s)
	switch {
	case v < 0:
		p.Errorf(line, column, "%v is negative", v)
		return 0
	case v > most:
		p.Errorf(line, column, "%v is out of range: at most %.6g", v, most)
		return 0
	}
	return v
}

// optNonNegative parses a non-negative number of at most most; empty is 0.
func optNonNegative(p *csvtab.Parser, line int, column, s string, most float64) float64 {
	if strings.TrimSpace(s) == "" {
		return 0
	}
	return nonNegative(p, line, column, s, most)
}
