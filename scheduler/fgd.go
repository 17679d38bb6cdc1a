package scheduler

import (
	"cmp"
	"math"
	"slices"
)

// The node scores of Weng et al., "Beware of Fragmentation: Scheduling
// GPU-Sharing Workloads with Fragmentation Gradient Descent" (USENIX ATC
// 2023), as its authors' simulator computes them (docs/specs/fgd.md):
// pure functions of a node's free resources and one replica's request, used
// by the placement policies of placement_*.go and by the inflation replay
// (package scheduler/inflation). Every score is an integer; the node with
// the highest wins.

// Reference capacities of the scores' normalisation: the largest node of
// the openb cluster has 128 cores and 8 GPUs.
const (
	fgdMaxCPU MilliCPU = 128_000
	fgdMaxGPU MilliGPU = 8_000
)

// NodeView is a node as the scores see it: its free CPU, its GPU model's
// bit (0 without GPUs) and the free milli of each of its GPUs.
type NodeView struct {
	CPU   MilliCPU
	Model uint64
	GPU   []uint16
}

// PodShape is a replica as the scores see it: CPU, the milli asked of each
// GPU (0 for a CPU-only replica) and the number of GPUs.
type PodShape struct {
	CPU   MilliCPU
	Milli MilliGPU
	GPUs  int
}

// Shared reports whether the replica asks for a share of one GPU.
func (p PodShape) Shared() bool { return p.GPUs == 1 && p.Milli < MilliPerGPU }

// Total is the replica's GPU request R = GPUs × Milli.
func (p PodShape) Total() MilliGPU { return MilliGPU(p.GPUs) * p.Milli }

// Tag is the replica's GpuClustering tag: 0 for a share of one GPU
// ("share-gpu"), k for k whole GPUs ("k-gpu"), -1 for a CPU-only replica.
func (p PodShape) Tag() int {
	switch {
	case p.GPUs == 0:
		return -1
	case p.Shared():
		return 0
	}
	return p.GPUs
}

// shape is what the scores see of a.
func (a *Ask) shape() PodShape {
	if a.GPUs == 0 {
		return PodShape{CPU: a.CPU}
	}
	return PodShape{CPU: a.CPU, Milli: a.Milli, GPUs: a.GPUs}
}

// freeGPU is G, the node's free GPU milli, and F, its fully free GPUs.
func (v *NodeView) freeGPU() (g MilliGPU, full int) {
	for _, x := range v.GPU {
		g += MilliGPU(x)
		if MilliGPU(x) == MilliPerGPU {
			full++
		}
	}
	return g, full
}

// DotProdScore is trunc(100·(1 − ½[(c/128000)(cpu/128000) + (G/8000)(R/8000)])):
// the smaller the dot product of the node's free resources and the request,
// the higher.
func DotProdScore(v *NodeView, p PodShape) int {
	g, _ := v.freeGPU()
	dot := float64(v.CPU)/float64(fgdMaxCPU)*(float64(p.CPU)/float64(fgdMaxCPU)) +
		float64(g)/float64(fgdMaxGPU)*(float64(p.Total())/float64(fgdMaxGPU))
	return int(100 * (1 - 0.5*dot))
}

// ClusteringScore is GpuClustering's score. tags has bit t set for each
// tag t (see [PodShape.Tag]) of the GPU replicas already on the node:
// base = 25·(8000 − G) div 8000; a CPU-only replica scores 0; otherwise
// base + 75 when the replica's tag is the node's only one, + 50 when it is
// one of several, + 25 when the node has none, + 0 otherwise.
func ClusteringScore(tags uint32, v *NodeView, p PodShape) int {
	t := p.Tag()
	if t < 0 {
		return 0
	}
	g, _ := v.freeGPU()
	base := int(25 * (fgdMaxGPU - g) / fgdMaxGPU)
	n, has := popCount32(tags), tags&(1<<t) != 0
	switch {
	case has && n == 1:
		return base + 75
	case has:
		return base + 50
	case n == 0:
		return base + 25
	}
	return base
}

func popCount32(x uint32) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// PackingScore is GpuPacking's score: a CPU-only replica scores 0; on a
// node whose GPUs are all free, max(33 − K, K); otherwise the replica's k
// GPUs are picked in ascending order of free milli among those with at
// least m free, u of them fully free: max(50 − u, 33) when u > 0, else
// max(100 − (Σ g_i·100 div 1000) div 10, 50) over the picked GPUs (the
// authors' simulator sums over the GPUs the replica would use). A node
// where the replica's GPUs cannot be picked scores 0.
func PackingScore(v *NodeView, p PodShape) int {
	if p.GPUs == 0 {
		return 0
	}
	k := len(v.GPU)
	if _, full := v.freeGPU(); full == k {
		return max(33-k, k)
	}
	// Pick the k smallest free amounts ≥ m, smallest first: a selection
	// over at most MaxGPUsPerNode values.
	var picked [MaxGPUsPerNode]uint16
	n := 0
	for _, x := range v.GPU {
		if MilliGPU(x) >= p.Milli {
			picked[n] = x
			n++
		}
	}
	if n < p.GPUs {
		return 0
	}
	slices.Sort(picked[:n])
	u, sum := 0, 0
	for _, x := range picked[:p.GPUs] {
		if MilliGPU(x) == MilliPerGPU {
			u++
		}
		sum += int(x) * 100 / int(MilliPerGPU)
	}
	if u > 0 {
		return max(50-u, 33)
	}
	return max(100-sum/10, 50)
}

// BestFitRaw is the FGD paper's BestFit before normalisation:
// trunc(100·(1 − [0.5(c − cpu)/128000 + 0.5(G − R)/8000])), higher for the
// node the replica leaves with less free.
func BestFitRaw(v *NodeView, p PodShape) int {
	g, _ := v.freeGPU()
	left := 0.5*float64(v.CPU-p.CPU)/float64(fgdMaxCPU) + 0.5*float64(g-p.Total())/float64(fgdMaxGPU)
	return int(100 * (1 - left))
}

// NormalizeMinMax maps scores linearly onto [0, 100] in place, as the
// authors' simulator normalises BestFit: (s − min)·100 div (max − min), or
// 0 for all when they are equal. It preserves order, so the node with the
// highest raw score is the one with the highest normalised score.
func NormalizeMinMax(scores []int) {
	if len(scores) == 0 {
		return
	}
	lo, hi := slices.Min(scores), slices.Max(scores)
	for i, s := range scores {
		if hi == lo {
			scores[i] = 0
		} else {
			scores[i] = (s - lo) * 100 / (hi - lo)
		}
	}
}

// FragClass is one class of typical pods: a CPU request, the milli asked of
// each GPU (0 for CPU-only pods), the number of GPUs and the GPU models
// allowed (Models has a bit per allowed model; every bit for any model;
// Spec spells them, for ordering). Count is how many pods of the workload
// are of the class and P their share of the kept classes.
type FragClass struct {
	CPU    MilliCPU
	Milli  MilliGPU
	GPUs   int
	Spec   string
	Models uint64
	Count  int
	P      float64
}

// Typical is FGD's target workload: the most common classes of pods and
// their popularity.
type Typical struct {
	Classes []FragClass
}

// NewTypical keeps the most common classes, by count descending (ties: the
// larger (CPU, Milli, GPUs, Spec) first), until they cover at least
// coverage of all pods counted, and gives each its share P of the kept
// pods. classes is not changed.
func NewTypical(classes []FragClass, coverage float64) *Typical {
	cs := slices.Clone(classes)
	slices.SortFunc(cs, func(a, b FragClass) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(b.CPU, a.CPU), cmp.Compare(b.Milli, a.Milli),
			cmp.Compare(b.GPUs, a.GPUs), cmp.Compare(b.Spec, a.Spec))
	})
	total := 0
	for _, c := range cs {
		total += c.Count
	}
	kept, n := 0, 0
	for n < len(cs) && float64(kept) < coverage*float64(total) {
		kept += cs[n].Count
		n++
	}
	cs = cs[:n]
	for i := range cs {
		cs[i].P = float64(cs[i].Count) / float64(kept)
	}
	return &Typical{Classes: cs}
}

// Fragment is the GPU milli of a node that class c cannot use: all of it
// (G) for a CPU-only class, a class whose models exclude the node's, or a
// class that does not fit the node; otherwise the free milli of the GPUs
// with less than c.Milli free.
func (c *FragClass) Fragment(v *NodeView) MilliGPU {
	var g, below MilliGPU
	n := 0
	for _, x := range v.GPU {
		g += MilliGPU(x)
		if MilliGPU(x) >= c.Milli {
			n++
		} else {
			below += MilliGPU(x)
		}
	}
	if c.GPUs == 0 || v.Model&c.Models == 0 || v.CPU < c.CPU || n < c.GPUs {
		return g
	}
	return below
}

// Frag is the node's expected fragment, Σ_j p_j · fragment(n, j), summed
// in the classes' order.
func (t *Typical) Frag(v *NodeView) float64 {
	f := 0.0
	for j := range t.Classes {
		c := &t.Classes[j]
		f += c.P * float64(c.Fragment(v))
	}
	return f
}

// FragScore maps the fragment a placement removes to FGD's score,
// trunc(100·sigmoid(Δ/1000)).
func FragScore(delta float64) int {
	return int(100 * (1 / (1 + math.Exp(-delta/1000))))
}

// Score is FGD's score of placing p on v and the GPU it takes there: a
// share tries each GPU i in index order with at least p.Milli free (the
// node after: CPU − cpu, GPU i − milli), the score is the best and the GPU
// the first that reaches it; other replicas take CPU and zero the
// lowest-index p.GPUs fully free GPUs (GPU -1). p must fit v.
func (t *Typical) Score(v *NodeView, p PodShape) (score, gpu int) {
	before := t.Frag(v)
	var buf [MaxGPUsPerNode]uint16
	after := NodeView{CPU: v.CPU - p.CPU, Model: v.Model, GPU: buf[:len(v.GPU)]}
	copy(after.GPU, v.GPU)
	if p.Shared() {
		score, gpu = -1, -1
		var tried [MaxGPUsPerNode]uint16
		nt := 0
		for i, x := range v.GPU {
			// A GPU as free as one tried before leaves the same node,
			// so the same score: the first keeps it.
			if MilliGPU(x) < p.Milli || slices.Contains(tried[:nt], x) {
				continue
			}
			tried[nt] = x
			nt++
			after.GPU[i] = x - uint16(p.Milli)
			if s := FragScore(before - t.Frag(&after)); s > score {
				score, gpu = s, i
			}
			after.GPU[i] = x
		}
		return score, gpu
	}
	need := p.GPUs
	for i := range after.GPU {
		if need > 0 && MilliGPU(after.GPU[i]) == MilliPerGPU {
			after.GPU[i] = 0
			need--
		}
	}
	return FragScore(before - t.Frag(&after)), -1
}

// TightestGPU is the GPU with the least free milli that still holds milli
// (lowest index on a tie), -1 when none does: where every policy but
// Random and FGD puts a share.
func TightestGPU(free []uint16, milli MilliGPU) int {
	best := -1
	for g, x := range free {
		if MilliGPU(x) >= milli && (best < 0 || x < free[best]) {
			best = g
		}
	}
	return best
}
