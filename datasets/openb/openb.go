// Package openb reads the Alibaba GPU cluster trace v2023 ("openb", from
// alibaba/clusterdata cluster-trace-gpu-v2023 and the Kubernetes scheduler
// simulator of Weng et al., "Beware of Fragmentation", USENIX ATC 2023): the
// node lists (openb_node_list_*.csv) and the pod lists
// (openb_pod_list_*.csv), CSV files with a header row. Files may be
// gzip-compressed.
//
// Node lists have the columns sn, cpu_milli, memory_mib, gpu, model; pod
// lists name, cpu_milli, memory_mib, num_gpu, gpu_milli, gpu_spec, qos,
// pod_phase, creation_time, deletion_time, scheduled_time, of which the
// multigpuNN lists have only the first five (their pods have no times: the
// FGD experiment replays pods in a generated order and never lets them
// depart). Columns may come in any order; unknown columns are ignored.
//
// The readers validate every row (errors read "file:line: column: what is
// wrong"); [Cluster] and [Jobs] convert rows to the scheduler's model.
package openb

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/wb-sim/wb/datasets"
	"github.com/wb-sim/wb/datasets/internal/csvtab"
	"github.com/wb-sim/wb/datasets/internal/gzfile"
	"github.com/wb-sim/wb/scheduler"
)

// NodeRow is one node of a node list.
type NodeRow struct {
	Line      int // line in the file
	Name      string
	CPUMilli  int64
	MemoryMiB int64
	GPUs      int
	// Model is the GPU model, empty for a CPU node (the file's "" or "nan").
	// G1, G2 and G3 are undisclosed internal models.
	Model string
}

type rawNode struct {
	SN        string `csv:"sn"`
	CPUMilli  string `csv:"cpu_milli"`
	MemoryMiB string `csv:"memory_mib"`
	GPU       string `csv:"gpu"`
	Model     string `csv:"model"`
}

// nodeTable is the layout of node lists.
func nodeTable() csvtab.Table {
	return csvtab.Table{
		Columns:  []string{"sn", "cpu_milli", "memory_mib", "gpu", "model"},
		Required: []string{"sn", "cpu_milli", "memory_mib", "gpu", "model"},
		Header:   true,
	}
}

// ReadNodes reads the node list in the file at path.
func ReadNodes(path string) ([]NodeRow, error) {
	f, err := gzfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadNodesFrom(f, path)
}

// ReadNodesFrom reads a node list from r; name names it in errors. Names
// must be unique, capacities non-negative, GPUs at most
// [scheduler.MaxGPUsPerNode], and a node has a GPU model exactly when it has
// GPUs.
func ReadNodesFrom(r io.Reader, name string) ([]NodeRow, error) {
	var raw []rawNode
	_, lines, err := nodeTable().Read(r, name, &raw)
	if err != nil {
		return nil, err
	}
	p := csvtab.Parser{File: name}
	rows := make([]NodeRow, len(raw))
	seen := make(map[string]int, len(raw))
	for i := 0; i < len(raw) && !p.Full(); i++ {
		in, line := &raw[i], lines[i]
		before := p.Errors()
		n := NodeRow{
			Line:      line,
			Name:      in.SN,
			CPUMilli:  quantity(&p, line, "cpu_milli", in.CPUMilli),
			MemoryMiB: quantity(&p, line, "memory_mib", in.MemoryMiB),
			GPUs:      int(p.IntMin(line, "gpu", in.GPU, 0)),
			Model:     noNaN(in.Model),
		}
		failed := p.Errors() > before // a field of the row did not read
		switch {
		case n.Name == "":
			p.Errorf(line, "sn", "empty node name")
		case seen[n.Name] > 0:
			p.Errorf(line, "sn", "node %q already on line %d", n.Name, seen[n.Name])
		}
		seen[n.Name] = line
		switch {
		case n.GPUs > scheduler.MaxGPUsPerNode:
			p.Errorf(line, "gpu", "%d GPUs; a node holds at most %d", n.GPUs, scheduler.MaxGPUsPerNode)
		case failed:
			// a field that failed reads as 0: checks across fields would
			// blame it again
		case n.GPUs > 0 && n.Model == "":
			p.Errorf(line, "model", "empty for a node with %d GPUs", n.GPUs)
		case n.GPUs == 0 && n.Model != "":
			p.Errorf(line, "model", "%q on a node without GPUs", n.Model)
		}
		rows[i] = n
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	return rows, nil
}

// noNaN maps pandas' "nan" (how the upstream tables print an empty value)
// to "".
func noNaN(s string) string {
	s = strings.TrimSpace(s)
	if s == "nan" {
		return ""
	}
	return s
}

// Cluster returns the cluster of the nodes, in their order: CPU =
// cpu_milli, Mem = memory_mib, GPUs = gpu, Model = model.
func Cluster(rows []NodeRow) *scheduler.Cluster {
	c := &scheduler.Cluster{Name: "openb", Nodes: make([]scheduler.Node, len(rows))}
	for i, r := range rows {
		c.Nodes[i] = scheduler.Node{
			Name:  r.Name,
			CPU:   scheduler.MilliCPU(r.CPUMilli),
			Mem:   scheduler.MiB(r.MemoryMiB),
			GPUs:  r.GPUs,
			Model: r.Model,
		}
	}
	return c
}

// NoTime marks a pod time that the file leaves empty or has no column for.
const NoTime scheduler.Time = -1

// PodRow is one pod of a pod list.
type PodRow struct {
	Line      int // line in the file
	Name      string
	CPUMilli  int64
	MemoryMiB int64
	NumGPU    int
	// GPUMilli is the share of each GPU asked for, in (0, 1000] when NumGPU
	// > 0 (below 1000 only when NumGPU is 1: GPU sharing), 0 otherwise.
	GPUMilli int64
	// GPUSpec is the GPU models allowed, joined by "|"; empty for any.
	GPUSpec string
	QoS     string // LS, BE, Burstable, Guaranteed
	Phase   string // Running, Succeeded, Failed, Pending
	// Times in seconds; NoTime when unknown (pending pods have no
	// scheduled time; the multigpu lists have no times at all).
	Creation, Deletion, Scheduled scheduler.Time
}

// where names the pod for a message about it: its line and name.
func (p *PodRow) where() string { return fmt.Sprintf("line %d (%s)", p.Line, p.Name) }

// Models returns the GPU models the pod may run on, in the order given and
// without repeats (some rows name a model twice); nil means any.
func (p *PodRow) Models() []string {
	var ms []string
	for m := range strings.SplitSeq(p.GPUSpec, "|") {
		if m = strings.TrimSpace(m); m != "" && !slices.Contains(ms, m) {
			ms = append(ms, m)
		}
	}
	return ms
}

// Request returns what the pod asks for: CPU = cpu_milli, Mem = memory_mib,
// GPUs = num_gpu, GPUMilli = gpu_milli when it shares one GPU (num_gpu 1,
// gpu_milli < 1000) and 0 (whole GPUs) otherwise, Models from gpu_spec.
func (p *PodRow) Request() scheduler.Request {
	r := scheduler.Request{
		CPU:    scheduler.MilliCPU(p.CPUMilli),
		Mem:    scheduler.MiB(p.MemoryMiB),
		GPUs:   p.NumGPU,
		Models: p.Models(),
	}
	if p.NumGPU == 1 && p.GPUMilli < int64(scheduler.MilliPerGPU) {
		r.GPUMilli = scheduler.MilliGPU(p.GPUMilli)
	}
	return r
}

type rawPod struct {
	Name      string `csv:"name"`
	CPUMilli  string `csv:"cpu_milli"`
	MemoryMiB string `csv:"memory_mib"`
	NumGPU    string `csv:"num_gpu"`
	GPUMilli  string `csv:"gpu_milli"`
	GPUSpec   string `csv:"gpu_spec"`
	QoS       string `csv:"qos"`
	PodPhase  string `csv:"pod_phase"`
	Creation  string `csv:"creation_time"`
	Deletion  string `csv:"deletion_time"`
	Scheduled string `csv:"scheduled_time"`
}

// podTable is the layout of pod lists.
func podTable() csvtab.Table {
	return csvtab.Table{
		Columns: []string{"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec",
			"qos", "pod_phase", "creation_time", "deletion_time", "scheduled_time"},
		Required: []string{"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"},
		Header:   true,
	}
}

// ReadPods reads the pod list in the file at path.
func ReadPods(path string) ([]PodRow, error) {
	f, err := gzfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadPodsFrom(f, path)
}

// ReadPodsFrom reads a pod list from r; name names it in errors. Names must
// be unique, requests non-negative, num_gpu at most
// [scheduler.MaxGPUsPerNode], gpu_milli as [PodRow.GPUMilli] says, and times
// non-negative integers or empty.
func ReadPodsFrom(r io.Reader, name string) ([]PodRow, error) {
	var raw []rawPod
	_, lines, err := podTable().Read(r, name, &raw)
	if err != nil {
		return nil, err
	}
	p := csvtab.Parser{File: name}
	rows := make([]PodRow, len(raw))
	seen := make(map[string]int, len(raw))
	optTime := func(line int, column, s string) scheduler.Time {
		if strings.TrimSpace(s) == "" {
			return NoTime
		}
		return scheduler.Time(p.IntRange(line, column, s, 0, int64(scheduler.MaxTime), "the simulator's time horizon, 2^50 s"))
	}
	for i := 0; i < len(raw) && !p.Full(); i++ {
		in, line := &raw[i], lines[i]
		before := p.Errors()
		pod := PodRow{
			Line:      line,
			Name:      in.Name,
			CPUMilli:  quantity(&p, line, "cpu_milli", in.CPUMilli),
			MemoryMiB: quantity(&p, line, "memory_mib", in.MemoryMiB),
			NumGPU:    int(p.Whole(line, "num_gpu", in.NumGPU, 0)), // "1.0" as pandas writes it in a column with a gap
			GPUMilli:  p.Whole(line, "gpu_milli", in.GPUMilli, 0),
			GPUSpec:   noNaN(in.GPUSpec),
			QoS:       noNaN(in.QoS),
			Phase:     noNaN(in.PodPhase),
			Creation:  optTime(line, "creation_time", in.Creation),
			Deletion:  optTime(line, "deletion_time", in.Deletion),
			Scheduled: optTime(line, "scheduled_time", in.Scheduled),
		}
		failed := p.Errors() > before
		switch {
		case pod.Name == "":
			p.Errorf(line, "name", "empty pod name")
		case seen[pod.Name] > 0:
			p.Errorf(line, "name", "pod %q already on line %d", pod.Name, seen[pod.Name])
		}
		seen[pod.Name] = line
		if pod.NumGPU > 0 && pod.GPUMilli > int64(scheduler.MilliPerGPU) {
			// the FGD paper's simulator clips a GPU's share to (0, 1000]
			pod.GPUMilli = int64(scheduler.MilliPerGPU)
		}
		switch g, m := pod.NumGPU, pod.GPUMilli; {
		case g > scheduler.MaxGPUsPerNode:
			p.Errorf(line, "num_gpu", "%d GPUs; a node holds at most %d", g, scheduler.MaxGPUsPerNode)
		case failed:
			// (as for nodes: a failed field is not blamed twice)
		case g == 0 && m != 0:
			p.Errorf(line, "gpu_milli", "%d for a pod without GPUs", m)
		case g > 0 && (m <= 0 || m > int64(scheduler.MilliPerGPU)):
			p.Errorf(line, "gpu_milli", "%d; want 1 to %d", m, scheduler.MilliPerGPU)
		case g > 1 && m != int64(scheduler.MilliPerGPU):
			p.Errorf(line, "gpu_milli", "%d with %d GPUs; only a one-GPU pod shares its GPU", m, g)
		}
		rows[i] = pod
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	return rows, nil
}

// Reasons for which [Jobs] leaves a pod out, checked in this order.
const (
	DropNoCreation  = "no-creation-time"  // no creation time (the multigpu lists)
	DropUnscheduled = "unscheduled"       // no scheduled time (pending pods)
	DropNoDeletion  = "no-deletion-time"  // no deletion time
	DropNegativeRun = "run<0"             // deleted before it was scheduled
	DropEarlyStart  = "scheduled<created" // scheduled before it was created
	DropNoRequest   = "no-request"        // asks for no CPU, memory or GPU
)

// Jobs returns one job per pod that ran, sorted by (submit, id):
//
//   - ID is the number at the end of the pod's name (openb-pod-0017 → 17),
//     or, when the name does not end in "-<number>", the pod's 0-based row
//     index; two pods with one ID are an error;
//   - Name is the pod's name (its qos and phase are left out);
//   - Submit = creation_time, Run = deletion_time − scheduled_time,
//     UserEstimate 0;
//   - one task of one replica asking for [PodRow.Request].
//
// Pods are dropped, and counted, for the reasons listed above.
func Jobs(pods []PodRow) ([]scheduler.Job, datasets.Dropped, error) {
	var dropped datasets.Dropped
	jobs := make([]scheduler.Job, 0, len(pods))
	ids := make(map[int64]int, len(pods))
	var errs []error
	// a pod whose name carries no number takes one after the highest any
	// name carries, so that it collides with none
	numbers := make([]int64, len(pods)) // -1: the name carries none
	next := int64(0)
	for i := range pods {
		numbers[i] = -1
		if id, ok := podNumber(pods[i].Name); ok {
			numbers[i], next = id, max(next, id+1)
		}
	}
	for i := range pods {
		pod := &pods[i]
		id := numbers[i]
		if id < 0 {
			id, next = next, next+1
		}
		if j, dup := ids[id]; dup && len(errs) < csvtab.MaxErrors {
			errs = append(errs, fmt.Errorf("line %d: pod %q has ID %d, as %q on line %d has: rename one (a pod's ID is the number its name ends in)", pod.Line, pod.Name, id, pods[j].Name, pods[j].Line))
		}
		ids[id] = i
		req := pod.Request()
		switch {
		case pod.Creation < 0:
			dropped.AddFirst(DropNoCreation, pod.where())
			continue
		case pod.Scheduled < 0:
			dropped.AddFirst(DropUnscheduled, pod.where())
			continue
		case pod.Deletion < 0:
			dropped.AddFirst(DropNoDeletion, pod.where())
			continue
		case pod.Deletion < pod.Scheduled:
			dropped.AddFirst(DropNegativeRun, pod.where())
			continue
		case pod.Scheduled < pod.Creation:
			// it would run from its arrival for longer than it existed
			dropped.AddFirst(DropEarlyStart, pod.where())
			continue
		case req.CPU == 0 && req.Mem == 0 && req.GPUs == 0:
			dropped.AddFirst(DropNoRequest, pod.where())
			continue
		}
		jobs = append(jobs, scheduler.Job{
			ID:     id,
			Name:   pod.Name,
			Submit: pod.Creation,
			Run:    pod.Deletion - pod.Scheduled,
			Tasks:  []scheduler.Task{{Replicas: 1, Request: req}},
		})
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	slices.SortStableFunc(jobs, func(a, b scheduler.Job) int {
		return cmp.Or(cmp.Compare(a.Submit, b.Submit), cmp.Compare(a.ID, b.ID))
	})
	return jobs, dropped, nil
}

// podNumber returns the number after the last "-" of a pod name.
func podNumber(name string) (int64, bool) {
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return 0, false
	}
	digits := name[i+1:]
	if digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	return n, err == nil
}

// quantity parses a CPU (milli-cores) or memory (MiB) field: 0 up to the
// simulator's bound on a node's capacity or a pod's request.
func quantity(p *csvtab.Parser, line int, column, s string) int64 {
	return p.IntRange(line, column, s, 0, scheduler.MaxQuantity, "the simulator's bound on a capacity or request")
}
