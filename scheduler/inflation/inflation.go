// Package inflation replays the FGD paper's experiment (Weng et al.,
// "Beware of Fragmentation: Scheduling GPU-Sharing Workloads with
// Fragmentation Gradient Descent", USENIX ATC 2023) as its authors'
// simulator runs it (docs/specs/fgd.md): a trace's pods, shuffled and
// inflated with clones until their GPU requests reach a multiple of the
// cluster's GPUs, arrive one at a time and never depart; each is placed by
// one of the paper's policies or fails for good. After every pod it records
// the GPU milli arrived and allocated and the cluster's expected fragment.
//
// The scores are the scheduler package's ([scheduler.DotProdScore],
// [scheduler.Typical.Score], ...). A run keeps, per node, the numbers the
// fragment of each typical class depends on, so that FGD scores a node in
// time proportional to the number of classes, and caches every node's score
// per kind of pod until the node changes: a run of one trace to 130% takes
// well under a second where the authors' simulator takes minutes.
package inflation

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/wb-sim/wb/scheduler"
)

// Pod is one pod of a trace.
type Pod struct {
	Name string
	CPU  scheduler.MilliCPU
	Mem  scheduler.MiB
	// GPUs is the number of GPUs; Milli the share of each, in (0, 1000]
	// (below 1000 only with one GPU) when GPUs > 0, 0 otherwise.
	GPUs  int
	Milli scheduler.MilliGPU
	// Spec is the GPU models allowed, joined by "|"; empty for any.
	Spec string
}

// Demand is the pod's GPU request, GPUs × Milli.
func (p *Pod) Demand() scheduler.MilliGPU { return scheduler.MilliGPU(p.GPUs) * p.Milli }

// Policies the replay knows, by their names in the scheduler's registry.
const (
	Random        = "random"
	DotProd       = "dot-product"
	GpuClustering = "gpu-clustering"
	GpuPacking    = "gpu-packing"
	BestFit       = "best-fit-fgd"
	FGD           = "fgd"
)

// Policies lists the policies in the paper's order.
func Policies() []string {
	return []string{Random, DotProd, GpuClustering, GpuPacking, BestFit, FGD}
}

// Options are a replay's parameters; zero values are the paper's.
type Options struct {
	// Ratio is the GPU demand the workload is inflated (or cut) to, as a
	// multiple of the cluster's GPU capacity; default 1.3.
	Ratio float64
	// Coverage is the share of the trace's pods that FGD's typical classes
	// cover; default 0.95.
	Coverage float64
	// Naive scores every node afresh for every pod with the scheduler
	// package's functions: slow, for checking the incremental bookkeeping.
	Naive bool
	// Engine places with the scheduler package's placement of the policy's
	// name (through scheduler.Sequence) even for the six policies above,
	// as it does for any other: slow, for checking that the placements the
	// simulator uses decide as the replay does.
	Engine bool
	// Parts are the placements a replay may name; nil: the scheduler
	// package's (scheduler.DefaultParts). wb's experiments hand their own
	// (experiments.Parts: parts of one's own included).
	Parts *scheduler.Parts
}

func (o Options) ratio() float64 {
	if o.Ratio == 0 {
		return 1.3
	}
	return o.Ratio
}

func (o Options) coverage() float64 {
	if o.Coverage == 0 {
		return 0.95
	}
	return o.Coverage
}

// shape is a pod as a run uses it.
type shape struct {
	cpu    int64
	mem    int64
	milli  uint16
	gpus   int8
	shared bool
	tag    int8 // GpuClustering's tag, -1 for CPU-only
	models uint64
	key    int32 // pods with one key score alike on every node
	demand int64
}

func (s *shape) pod() scheduler.PodShape {
	if s.gpus == 0 {
		return scheduler.PodShape{CPU: scheduler.MilliCPU(s.cpu)}
	}
	return scheduler.PodShape{CPU: scheduler.MilliCPU(s.cpu), Milli: scheduler.MilliGPU(s.milli), GPUs: int(s.gpus)}
}

// class is a typical class as the incremental fragment reads it.
type class struct {
	cpu    int64
	milli  uint16
	gpus   int8
	models uint64
	p      float64
}

// Trace is a trace prepared for replays on one cluster. Its runs may go in
// parallel.
type Trace struct {
	opts    Options
	nodes   []scheduler.Node
	cpu     []int64
	mem     []int64
	ngpu    []int8
	model   []uint64
	gpuCap  int64 // the cluster's GPU milli
	pods    []Pod // sorted by name
	shapes  []shape
	keys    int
	typical *scheduler.Typical
	classes []class
}

// Prepare checks the cluster and the pods and readies them for replays:
// the pods sorted by name, FGD's typical classes from them.
func Prepare(c *scheduler.Cluster, pods []Pod, opts Options) (*Trace, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("cluster %s: %w", c.Name, err)
	}
	if len(pods) == 0 {
		return nil, errors.New("no pods")
	}
	if r := opts.ratio(); !(r > 0) || r > 100 {
		return nil, fmt.Errorf("ratio %v: want a positive multiple of the cluster's GPUs up to 100", r)
	}
	if cv := opts.coverage(); !(cv > 0) || cv > 1 {
		return nil, fmt.Errorf("coverage %v: want a share in (0, 1]", cv)
	}
	t := &Trace{opts: opts, nodes: c.Nodes}
	models := map[string]int{}
	for _, n := range c.Nodes {
		t.cpu = append(t.cpu, int64(n.CPU))
		t.mem = append(t.mem, int64(n.Mem))
		t.ngpu = append(t.ngpu, int8(n.GPUs))
		var bit uint64
		if n.GPUs > 0 {
			k, ok := models[n.Model]
			if !ok {
				k = len(models)
				if k == 64 {
					return nil, fmt.Errorf("cluster %s: more than 64 GPU models", c.Name)
				}
				models[n.Model] = k
			}
			bit = 1 << k
		}
		t.model = append(t.model, bit)
		t.gpuCap += int64(n.GPUs) * int64(scheduler.MilliPerGPU)
	}
	if t.gpuCap == 0 {
		return nil, fmt.Errorf("cluster %s has no GPUs", c.Name)
	}
	t.pods = slices.Clone(pods)
	slices.SortStableFunc(t.pods, func(a, b Pod) int { return strings.Compare(a.Name, b.Name) })
	var errs []error
	for i := range t.pods {
		p := &t.pods[i]
		if i > 0 && p.Name == t.pods[i-1].Name {
			errs = append(errs, fmt.Errorf("pod %q listed twice", p.Name))
		}
		switch {
		case p.CPU < 0 || p.Mem < 0 || p.GPUs < 0:
			errs = append(errs, fmt.Errorf("pod %q: negative request", p.Name))
		case p.GPUs > scheduler.MaxGPUsPerNode:
			errs = append(errs, fmt.Errorf("pod %q: %d GPUs; a node holds at most %d", p.Name, p.GPUs, scheduler.MaxGPUsPerNode))
		case p.GPUs == 0 && p.Milli != 0:
			errs = append(errs, fmt.Errorf("pod %q: %d milli of no GPU", p.Name, p.Milli))
		case p.GPUs > 0 && (p.Milli <= 0 || p.Milli > scheduler.MilliPerGPU):
			errs = append(errs, fmt.Errorf("pod %q: %d milli per GPU; want 1 to %d", p.Name, p.Milli, scheduler.MilliPerGPU))
		case p.GPUs > 1 && p.Milli != scheduler.MilliPerGPU:
			errs = append(errs, fmt.Errorf("pod %q: %d milli of each of %d GPUs; only a one-GPU pod shares", p.Name, p.Milli, p.GPUs))
		}
		if len(errs) >= 20 {
			break
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	modelSet := func(spec string) uint64 {
		var m uint64
		any := true
		for name := range strings.SplitSeq(spec, "|") {
			if name = strings.TrimSpace(name); name != "" {
				any = false
				if k, ok := models[name]; ok {
					m |= 1 << k
				}
			}
		}
		if any {
			return scheduler.AllModels
		}
		return m
	}
	type skey struct {
		cpu          int64
		milli, gpus  int64
		models       uint64
		spec         string
		scoreKeyOnly bool
	}
	keyIdx := map[skey]int32{}
	classIdx := map[skey]int{}
	var fc []scheduler.FragClass
	t.shapes = make([]shape, len(t.pods))
	for i := range t.pods {
		p := &t.pods[i]
		s := shape{cpu: int64(p.CPU), mem: int64(p.Mem), milli: uint16(p.Milli), gpus: int8(p.GPUs), models: modelSet(p.Spec), demand: int64(p.Demand())}
		s.shared = p.GPUs == 1 && p.Milli < scheduler.MilliPerGPU
		s.tag = int8(s.pod().Tag())
		k := skey{cpu: s.cpu, milli: int64(s.milli), gpus: int64(s.gpus), models: s.models, scoreKeyOnly: true}
		id, ok := keyIdx[k]
		if !ok {
			id = int32(len(keyIdx))
			keyIdx[k] = id
		}
		s.key = id
		t.shapes[i] = s
		ck := skey{cpu: s.cpu, milli: int64(s.milli), gpus: int64(s.gpus), spec: p.Spec}
		j, ok := classIdx[ck]
		if !ok {
			j = len(fc)
			classIdx[ck] = j
			fc = append(fc, scheduler.FragClass{CPU: p.CPU, Milli: p.Milli, GPUs: p.GPUs, Spec: p.Spec, Models: s.models})
		}
		fc[j].Count++
	}
	// the clones are drawn until the pods' GPU demand reaches ratio × the
	// GPUs: pods that ask for none never would (the draws went on until
	// memory ran out: a reviewer's find)
	if !slices.ContainsFunc(t.shapes, func(s shape) bool { return s.demand > 0 }) {
		return nil, fmt.Errorf("no pod asks for a GPU (%d pods, every one's GPU demand 0): the inflation replay adds pods until their GPU demand reaches %v × the cluster's GPUs, which these never would; replay a pod list of GPU pods", len(pods), opts.ratio())
	}
	t.keys = len(keyIdx)
	t.typical = scheduler.NewTypical(fc, opts.coverage())
	for _, c := range t.typical.Classes {
		t.classes = append(t.classes, class{cpu: int64(c.CPU), milli: uint16(c.Milli), gpus: int8(c.GPUs), models: c.Models, p: c.P})
	}
	return t, nil
}

// Pods is the trace's pods, sorted by name (read only).
func (t *Trace) Pods() []Pod { return t.pods }

// Typical is FGD's typical classes of the trace (read only).
func (t *Trace) Typical() *scheduler.Typical { return t.typical }

// Capacity is the cluster's GPU milli.
func (t *Trace) Capacity() scheduler.MilliGPU { return scheduler.MilliGPU(t.gpuCap) }

// Order is the arrival order of one seed's run, as indices into [Trace.Pods]
// (clones repeat their original's index), and the node tie-break order
// (node indices, first wins). Drawn from rand.NewPCG(seed, 0), in this
// order: the shuffle of the name-sorted pods; the clones drawn (uniformly,
// with replacement, from the name-sorted pods) while the demand S is below
// T = ratio × capacity, stopping at the first draw whose per-GPU milli
// would take S past T; or, when S exceeds T, pods removed uniformly from
// the list while it does; then the permutation of the nodes.
func (t *Trace) Order(seed uint64) (arrival []int32, nodes []int, clones, removed int) {
	rng := rand.New(rand.NewPCG(seed, 0))
	arrival = make([]int32, len(t.pods))
	for i := range arrival {
		arrival[i] = int32(i)
	}
	rng.Shuffle(len(arrival), func(i, j int) { arrival[i], arrival[j] = arrival[j], arrival[i] })
	target := t.opts.ratio() * float64(t.gpuCap)
	var s int64
	for i := range t.pods {
		s += t.shapes[i].demand
	}
	if float64(s) < target {
		for {
			i := rng.IntN(len(t.pods))
			if float64(s+int64(t.pods[i].Milli)) > target {
				break
			}
			arrival = append(arrival, int32(i))
			s += t.shapes[i].demand
			clones++
		}
	} else {
		for float64(s) > target && len(arrival) > 0 {
			k := rng.IntN(len(arrival))
			s -= t.shapes[arrival[k]].demand
			arrival = slices.Delete(arrival, k, k+1)
			removed++
		}
	}
	return arrival, rng.Perm(len(t.nodes)), clones, removed
}

// Event is the cluster after one pod.
type Event struct {
	Pod  int32 // index into Trace.Pods
	Node int32 // where it went; -1 when it fits nowhere
	GPU  int8  // the GPU of a share; -1 otherwise
	// Arrived and Allocated are the GPU milli of the pods arrived so far
	// (failed ones included) and of those placed.
	Arrived, Allocated scheduler.MilliGPU
	// Frag is the cluster's expected fragment, Σ over nodes of
	// Typical.Frag, in GPU milli.
	Frag float64
}

// Result is one run.
type Result struct {
	Policy   string
	Seed     uint64
	Capacity scheduler.MilliGPU
	// Clones and Removed count the pods inflation added and removed.
	Clones, Removed int
	Events          []Event
}

// ArrivePct is an event's arrived GPU milli as a percentage of the
// capacity, rounded to an integer (half away from zero).
func (r *Result) ArrivePct(e *Event) int {
	return int(math.Round(float64(e.Arrived) * 100 / float64(r.Capacity)))
}

// Curve is, for each arrived percentage x from 0 to maxPct, the mean over
// the events whose ArrivePct is x of f(event); NaN where there is none.
func (r *Result) Curve(maxPct int, f func(*Event) float64) []float64 {
	sum := make([]float64, maxPct+1)
	n := make([]int, maxPct+1)
	for i := range r.Events {
		e := &r.Events[i]
		if x := r.ArrivePct(e); x >= 0 && x <= maxPct {
			sum[x] += f(e)
			n[x]++
		}
	}
	for x := range sum {
		if n[x] == 0 {
			sum[x] = math.NaN()
		} else {
			sum[x] /= float64(n[x])
		}
	}
	return sum
}

// AllocPct is an event's allocated GPU milli as a percentage of capacity.
func (r *Result) AllocPct(e *Event) float64 { return float64(e.Allocated) * 100 / float64(r.Capacity) }

// FragPct is an event's fragment as a percentage of capacity.
func (r *Result) FragPct(e *Event) float64 { return e.Frag * 100 / float64(r.Capacity) }

// ClassName is the name of a GpuClustering tag as results print it: cpu,
// share-gpu or <k>-gpu.
func ClassName(tag int) string {
	switch {
	case tag < 0:
		return "cpu"
	case tag == 0:
		return "share-gpu"
	}
	return fmt.Sprintf("%d-gpu", tag)
}

// PodClass is pod i's class name (see [ClassName]).
func (t *Trace) PodClass(i int32) string { return ClassName(int(t.shapes[i].tag)) }

// Run replays the trace with one policy and seed: Run(policy, seed) is
// RunSpec(scheduler.Spec{Placement: policy, Seed: seed}).
func (t *Trace) Run(policy string, seed uint64) (*Result, error) {
	return t.RunSpec(scheduler.Spec{Placement: policy, Seed: seed})
}

// RandomStream is the stream of the random policy's draws,
// rand.NewPCG(seed, RandomStream): the one scheduler.Random draws from.
const RandomStream = 0x726e640a

// RunSpec replays the trace with the placement sp names, seeded with
// sp.Seed. The six policies of [Policies] run on the replay's own
// bookkeeping; any other placement of the scheduler's registry (ga, …)
// runs through [scheduler.Sequence], on the nodes in the seed's tie-break
// order.
func (t *Trace) RunSpec(sp scheduler.Spec) (*Result, error) {
	policy, seed := sp.Placement, sp.Seed
	arrival, order, clones, removed := t.Order(seed)
	res := &Result{Policy: policy, Seed: seed, Capacity: t.Capacity(), Clones: clones, Removed: removed,
		Events: make([]Event, len(arrival))}
	if t.opts.Engine || !slices.Contains(Policies(), policy) {
		return res, t.runPlacement(sp, arrival, order, res)
	}
	u := newRun(t, policy, order)
	u.rng = rand.New(rand.NewPCG(seed, RandomStream))
	var arrived, alloc int64
	for k, pi := range arrival {
		s := &t.shapes[pi]
		arrived += s.demand
		r, g := u.place(s)
		e := Event{Pod: pi, Node: -1, GPU: -1}
		if r >= 0 {
			alloc += s.demand
			u.take(r, s, g)
			e.Node, e.GPU = int32(order[r]), int8(g)
			if !s.shared {
				e.GPU = -1
			}
		}
		e.Arrived, e.Allocated, e.Frag = scheduler.MilliGPU(arrived), scheduler.MilliGPU(alloc), u.fragTotal
		res.Events[k] = e
	}
	return res, nil
}

// runPlacement replays arrival with the registry's placement sp.Placement
// on a scheduler.Sequence over the nodes in tie-break order (a policy with
// a seeded tie-break order gets this one; FGD gets the trace's typical
// classes).
func (t *Trace) runPlacement(sp scheduler.Spec, arrival []int32, order []int, res *Result) error {
	parts := t.opts.Parts
	if parts == nil {
		parts = scheduler.DefaultParts()
	}
	sched, err := parts.Build(sp)
	if err != nil {
		return err
	}
	p := sched.Placement
	c := &scheduler.Cluster{Name: "inflation", Nodes: make([]scheduler.Node, len(order))}
	for r, i := range order {
		c.Nodes[r] = t.nodes[i]
	}
	q, err := scheduler.NewSequence(c, p)
	if err != nil {
		return err
	}
	// The sequence numbers the models in the permuted order: the classes'
	// model sets move to its bits.
	bit := map[uint64]uint64{}
	for i, n := range t.nodes {
		if t.model[i] != 0 {
			bit[t.model[i]] = q.ModelBit(n.Model)
		}
	}
	remap := func(m uint64) uint64 {
		if m == scheduler.AllModels {
			return m
		}
		var out uint64
		for b := uint64(1); b != 0; b <<= 1 {
			if m&b != 0 {
				out |= bit[b]
			}
		}
		return out
	}
	ty := &scheduler.Typical{Classes: slices.Clone(t.typical.Classes)}
	for j := range ty.Classes {
		ty.Classes[j].Models = remap(ty.Classes[j].Models)
	}
	identity := make([]int, len(order))
	for i := range identity {
		identity[i] = i
	}
	if so, ok := p.(interface{ SetOrder([]int) }); ok {
		so.SetOrder(identity)
	}
	if f, ok := p.(*scheduler.FGD); ok {
		f.Typical = ty
	}
	frag := make([]float64, len(order))
	total := 0.0
	for r := range frag {
		v := q.View(r)
		frag[r] = ty.Frag(&v)
		total += frag[r]
	}
	var arrived, alloc int64
	for k, pi := range arrival {
		pod := &t.pods[pi]
		s := &t.shapes[pi]
		arrived += s.demand
		req := scheduler.Request{CPU: pod.CPU, Mem: pod.Mem, GPUs: pod.GPUs, Models: specModels(pod.Spec)}
		if s.shared {
			req.GPUMilli = pod.Milli
		}
		e := Event{Pod: pi, Node: -1, GPU: -1}
		sl, ok, err := q.Place(req)
		if err != nil {
			return fmt.Errorf("pod %s: %w", pod.Name, err)
		}
		if ok {
			r := int(sl.Node)
			alloc += s.demand
			e.Node = int32(order[r])
			if s.shared {
				e.GPU = sl.Shared
			}
			v := q.View(r)
			old := frag[r]
			frag[r] = ty.Frag(&v)
			total += frag[r] - old
		}
		e.Arrived, e.Allocated, e.Frag = scheduler.MilliGPU(arrived), scheduler.MilliGPU(alloc), total
		res.Events[k] = e
	}
	return nil
}

// specModels is a gpu_spec's model names, without blanks and repeats.
func specModels(spec string) []string {
	var ms []string
	for m := range strings.SplitSeq(spec, "|") {
		if m = strings.TrimSpace(m); m != "" && !slices.Contains(ms, m) {
			ms = append(ms, m)
		}
	}
	return ms
}
