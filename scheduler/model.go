package scheduler

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Time is a simulated time or duration in whole seconds.
type Time int64

// Quantities held by nodes and asked for by replicas.
type (
	// MilliCPU is CPU capacity in thousandths of a core (or of a processor
	// on an SWF machine).
	MilliCPU int64
	// MiB is memory in mebibytes.
	MiB int64
	// MilliGPU is GPU capacity in thousandths of one GPU.
	MilliGPU int64
)

// The simulator's bounds: every time, duration and quantity it is given
// lies within them, so that no sum it forms overflows (Job.Validate and
// Cluster.Validate check them; readers check their fields against them).
const (
	// MaxTime is the time horizon: submit times, run times and estimates
	// are at most 2⁵⁰ s (about 36 million years), so any sum of a few of
	// them fits an int64 and a float64 holds each exactly.
	MaxTime Time = 1 << 50
	// MaxQuantity bounds a node's capacity and a replica's request, in
	// each unit (MilliCPU, MiB): 2⁴⁰, a billion cores or a zebibyte.
	MaxQuantity = 1 << 40
	// MaxNodes bounds a cluster's nodes and MaxReplicas a job's replicas
	// (a job wider than any cluster cannot run either way).
	MaxNodes    = 1 << 22
	MaxReplicas = 1 << 22
)

// Conversions between the quantities' units.
const (
	// MilliPerCore is the MilliCPU of one core or processor.
	MilliPerCore MilliCPU = 1000
	// MilliPerGPU is the MilliGPU of one whole GPU.
	MilliPerGPU MilliGPU = 1000
	// MaxGPUsPerNode bounds the GPUs of one node.
	MaxGPUsPerNode = 16
	// MaxPoolGPUs bounds the GPUs of a GPU pool (Node.PoolGPUs).
	MaxPoolGPUs = 1 << 24
)

// Request is what one replica of a task asks for.
//
// GPU requests follow the openb trace: GPUs is the number of GPUs; when GPUs
// is 1, GPUMilli below 1000 asks for that share of one GPU, which other
// replicas may share; otherwise every GPU is taken whole. GPUs 1 with
// GPUMilli above 1000 asks for that many milli of a GPU pool as one
// quantity (1,500: one and a half GPUs, as the PAI simulator's tables can
// ask): only a GPU pool (Node.PoolGPUs) holds it.
type Request struct {
	CPU      MilliCPU
	Mem      MiB
	GPUs     int
	GPUMilli MilliGPU // per GPU; 0 means whole GPUs (1000)
	// Models lists the GPU models the replica may run on; empty means any.
	Models []string
}

// pooled reports whether the request is a quantity of GPUs only a pool
// holds: more than one GPU, not whole.
func (r *Request) pooled() bool { return r.GPUs == 1 && r.GPUMilli > MilliPerGPU }

// Shared reports whether the request is a fraction of one GPU.
func (r *Request) Shared() bool {
	return r.GPUs == 1 && r.GPUMilli > 0 && r.GPUMilli < MilliPerGPU
}

// GPUTotal is the GPU capacity the request takes, in milli.
func (r *Request) GPUTotal() MilliGPU {
	if r.Shared() || r.pooled() {
		return r.GPUMilli
	}
	return MilliGPU(r.GPUs) * MilliPerGPU
}

// Task is a group of identical replicas of a job.
type Task struct {
	Replicas int
	Request  Request
}

// Job is one unit of work submitted to the cluster.
type Job struct {
	ID     int64
	User   string // "" where the trace names none (an SWF user of -1, a Gavel job)
	Name   string // free-form: the DL job type, the pod name, ...
	Submit Time
	// Run is the actual run time: the job holds its resources this long,
	// whatever its estimate, unless the scheduler kills it first (at its
	// user estimate or k × its estimate: Spec.KillAtUserLimit, KillFactor).
	Run Time
	// UserEstimate is the run time the user asked for (SWF field 9); 0 when
	// the trace has none.
	UserEstimate Time
	Tasks        []Task
	// RunOn, when set, is the job's run time on each GPU model (keys in
	// lower case; a cluster's node models match them case-insensitively):
	// a job placed on GPUs of several models runs at the slowest one's
	// pace. Run applies to models RunOn does not list.
	RunOn map[string]Time
	// RunSpanning, when set, is the job's run time on each GPU model (keys
	// as RunOn's) when its GPUs lie on more than one node: a data-parallel
	// job whose all-reduce then crosses the network between them. It
	// replaces RunOn's time (or Run) for such a placement, the slowest
	// model's where the nodes are of several; a job within one node runs
	// RunOn's.
	RunSpanning map[string]Time
	// Model, Batch and Steps describe a deep-learning training job: the
	// zoo model it trains, its batch size per GPU and its training steps
	// counted per GPU, as Gavel counts them (a data-parallel iteration on
	// N GPUs is N steps); for estimators that predict its run time. Empty
	// when unknown.
	Model string
	Batch int
	Steps int64
	// Estimates are run-time estimates the trace gives, in seconds, by
	// column name (the PAI simulator's job table: user_dur, group_dur,
	// group_gpu_dur), for the estimators that read them (TableEstimate).
	Estimates map[string]float64
}

// Replicas is the job's number of replicas over all its tasks.
func (j *Job) Replicas() int {
	n := 0
	for i := range j.Tasks {
		n += j.Tasks[i].Replicas
	}
	return n
}

// Demand sums the job's request over all replicas.
func (j *Job) Demand() (cpu MilliCPU, mem MiB, gpu MilliGPU) {
	for i := range j.Tasks {
		t := &j.Tasks[i]
		n := int64(t.Replicas)
		cpu += t.Request.CPU * MilliCPU(n)
		mem += t.Request.Mem * MiB(n)
		gpu += t.Request.GPUTotal() * MilliGPU(n)
	}
	return cpu, mem, gpu
}

// Node is one machine of a cluster.
type Node struct {
	Name  string
	CPU   MilliCPU
	Mem   MiB
	GPUs  int
	Model string // GPU model; empty when GPUs and PoolGPUs are 0
	// PoolGPUs, on a node without GPUs of its own (GPUs 0), makes the
	// node a GPU pool: PoolGPUs GPUs' worth of capacity held as one
	// quantity, not as devices. A replica takes its GPUs × share from the
	// pool, whatever the devices it would land on, as in the Alibaba PAI
	// v2020 simulator's cluster (Weng et al., NSDI 2022); no GPU is
	// fragmented. NewGPUPool makes such a cluster.
	PoolGPUs int
}

// Cluster is the machines jobs run on.
type Cluster struct {
	Name  string
	Nodes []Node
	// Pool marks a processor pool (an SWF machine): one node whose CPU
	// counts processors; results then speak of processors.
	Pool bool
}

// MaxProcs bounds an SWF machine's processors (NewPool): MaxQuantity in
// milli-cores.
const MaxProcs = MaxQuantity / int(MilliPerCore)

// NewPool returns the one-pool cluster of an SWF machine with procs
// processors; more than MaxProcs give a cluster Validate refuses.
func NewPool(name string, procs int) *Cluster {
	if procs > MaxProcs {
		procs = MaxProcs + 1 // not procs·1000, which may wrap
	}
	return &Cluster{
		Name:  name,
		Nodes: []Node{{Name: "pool", CPU: MilliCPU(procs) * MilliPerCore}},
		Pool:  true,
	}
}

// NewGPUPool returns the cluster of the Alibaba PAI v2020 simulator: one
// pool of gpus GPUs and cpus cores (see Node.PoolGPUs). Values past
// MaxPoolGPUs or MaxProcs give a cluster Validate refuses.
func NewGPUPool(name string, gpus, cpus int) *Cluster {
	gpus = min(gpus, MaxPoolGPUs+1)
	cpus = min(cpus, MaxProcs+1) // not cpus·1000, which may wrap
	return &Cluster{
		Name:  name,
		Nodes: []Node{{Name: "pool", CPU: MilliCPU(cpus) * MilliPerCore, PoolGPUs: gpus}},
	}
}

// Capacity sums the cluster's resources.
func (c *Cluster) Capacity() (cpu MilliCPU, mem MiB, gpu MilliGPU) {
	for i := range c.Nodes {
		n := &c.Nodes[i]
		cpu += n.CPU
		mem += n.Mem
		gpu += MilliGPU(n.GPUs+n.PoolGPUs) * MilliPerGPU
	}
	return cpu, mem, gpu
}

// Validate reports every problem of the cluster at once.
func (c *Cluster) Validate() error {
	var errs []error
	if len(c.Nodes) == 0 {
		errs = append(errs, errors.New("cluster has no nodes"))
	}
	if len(c.Nodes) > MaxNodes {
		return fmt.Errorf("%d nodes: at most %d", len(c.Nodes), MaxNodes)
	}
	seen := make(map[string]int, len(c.Nodes))
	for i := range c.Nodes {
		n := &c.Nodes[i]
		where := "nodes[" + strconv.Itoa(i) + "]"
		if n.Name != "" {
			if j, dup := seen[n.Name]; dup {
				errs = append(errs, fmt.Errorf("%s: name %q already used by nodes[%d]", where, n.Name, j))
			}
			seen[n.Name] = i
		}
		if n.CPU < 0 || n.Mem < 0 {
			errs = append(errs, fmt.Errorf("%s (%s): negative capacity (cpu %d, mem %d)", where, n.Name, n.CPU, n.Mem))
		}
		if n.CPU > MaxQuantity || n.Mem > MaxQuantity {
			errs = append(errs, fmt.Errorf("%s (%s): capacity cpu %d milli-cores, mem %d MiB: at most %d of each", where, n.Name, n.CPU, n.Mem, int64(MaxQuantity)))
		}
		if n.GPUs < 0 || n.GPUs > MaxGPUsPerNode {
			errs = append(errs, fmt.Errorf("%s (%s): %d GPUs; a node holds 0 to %d", where, n.Name, n.GPUs, MaxGPUsPerNode))
		}
		switch {
		case n.PoolGPUs < 0 || n.PoolGPUs > MaxPoolGPUs:
			errs = append(errs, fmt.Errorf("%s (%s): a pool of %d GPUs; a pool holds 0 to %d", where, n.Name, n.PoolGPUs, MaxPoolGPUs))
		case n.PoolGPUs > 0 && n.GPUs > 0:
			errs = append(errs, fmt.Errorf("%s (%s): both %d GPUs and a pool of %d; a node is one or the other", where, n.Name, n.GPUs, n.PoolGPUs))
		}
	}
	cpu, mem, gpu := c.Capacity()
	if len(c.Nodes) > 0 && cpu == 0 && mem == 0 && gpu == 0 {
		errs = append(errs, errors.New("cluster has no capacity"))
	}
	return errors.Join(errs...)
}

// RunOnModel is j's listed run time on GPUs of model: across nodes
// (RunSpanning) where spanning and it lists model, else within a node
// (RunOn); false where neither lists it (Run then applies).
func (j *Job) RunOnModel(model string, spanning bool) (Time, bool) {
	if spanning {
		if t, ok := j.RunSpanning[model]; ok {
			return t, true
		}
	}
	t, ok := j.RunOn[model]
	return t, ok
}

// Validate checks one job for values no trace reader should let through.
func (j *Job) Validate() error {
	var errs []error
	if j.Submit < 0 {
		errs = append(errs, fmt.Errorf("negative submit time %d", j.Submit))
	}
	if j.Run < 0 {
		errs = append(errs, fmt.Errorf("negative run time %d", j.Run))
	}
	if j.UserEstimate < 0 {
		errs = append(errs, fmt.Errorf("negative user estimate %d", j.UserEstimate))
	}
	for _, t := range []struct {
		what string
		v    Time
	}{{"submit time", j.Submit}, {"run time", j.Run}, {"user estimate", j.UserEstimate}} {
		if t.v > MaxTime {
			errs = append(errs, fmt.Errorf("%s %d s: past the simulator's horizon of %d s (2^50)", t.what, t.v, int64(MaxTime)))
		}
	}
	for _, on := range []struct {
		what  string
		times map[string]Time
	}{{"run time on", j.RunOn}, {"run time across nodes on", j.RunSpanning}} {
		for _, m := range slices.Sorted(maps.Keys(on.times)) { // the same message whatever the map's order
			if v := on.times[m]; v < 0 || v > MaxTime {
				errs = append(errs, fmt.Errorf("%s %s %d s: want 0 to %d s", on.what, m, v, int64(MaxTime)))
			}
			if m != strings.ToLower(m) {
				// a key in capitals matches no node and is silently unused
				// (a reviewer's find)
				errs = append(errs, fmt.Errorf("%s %q: GPU model keys are lower case (%q)", on.what, m, strings.ToLower(m)))
			}
		}
	}
	var bad []string
	for k, v := range j.Estimates {
		if !(v >= 0 && v <= float64(MaxTime)) {
			bad = append(bad, k)
		}
	}
	slices.Sort(bad) // the same message whatever the map's order
	for _, k := range bad {
		errs = append(errs, fmt.Errorf("estimate %s %v s: want 0 to %d s", k, j.Estimates[k], int64(MaxTime)))
	}
	if len(j.Tasks) == 0 {
		errs = append(errs, errors.New("no tasks"))
	}
	for i := range j.Tasks {
		t := &j.Tasks[i]
		r := &t.Request
		switch {
		case t.Replicas <= 0:
			errs = append(errs, fmt.Errorf("task %d: %d replicas", i, t.Replicas))
		case t.Replicas > MaxReplicas:
			errs = append(errs, fmt.Errorf("task %d: %d replicas, at most %d", i, t.Replicas, MaxReplicas))
		case r.CPU > MaxQuantity || r.Mem > MaxQuantity:
			errs = append(errs, fmt.Errorf("task %d: request cpu %d milli-cores, mem %d MiB: at most %d of each", i, r.CPU, r.Mem, int64(MaxQuantity)))
		case r.CPU < 0 || r.Mem < 0 || r.GPUs < 0 || r.GPUMilli < 0:
			errs = append(errs, fmt.Errorf("task %d: negative request", i))
		case r.GPUMilli > MilliPerGPU && r.GPUs != 1:
			errs = append(errs, fmt.Errorf("task %d: %d milli per GPU of %d GPUs (at most %d; more only as one quantity, GPUs 1)", i, r.GPUMilli, r.GPUs, MilliPerGPU))
		case r.GPUMilli > MaxGPUsPerNode*MilliPerGPU:
			errs = append(errs, fmt.Errorf("task %d: %d milli of GPU (at most %d)", i, r.GPUMilli, MaxGPUsPerNode*MilliPerGPU))
		case r.GPUs > MaxGPUsPerNode:
			errs = append(errs, fmt.Errorf("task %d: %d GPUs per replica (a node holds at most %d)", i, r.GPUs, MaxGPUsPerNode))
		case r.CPU == 0 && r.Mem == 0 && r.GPUs == 0:
			errs = append(errs, fmt.Errorf("task %d: asks for nothing", i))
		}
	}
	if len(errs) == 0 && j.Replicas() > MaxReplicas {
		errs = append(errs, fmt.Errorf("%d replicas in all, at most %d", j.Replicas(), MaxReplicas))
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("job %d: %w", j.ID, errors.Join(errs...))
}
