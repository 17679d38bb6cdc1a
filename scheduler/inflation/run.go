package inflation

import (
	"math/rand/v2"

	"github.com/wb-sim/wb/scheduler"
)

const fullGPU = uint16(scheduler.MilliPerGPU)

// run is one replay in progress. Nodes are kept by rank in the tie-break
// order, so that scanning them in index order breaks ties.
type run struct {
	t      *Trace
	policy string
	naive  bool
	rng    *rand.Rand
	n      int

	cpu, mem []int64
	gpu      [][scheduler.MaxGPUsPerNode]uint16
	ngpu     []int8
	model    []uint64
	gsum     []int64  // free GPU milli
	maxFree  []uint16 // the largest free share of one GPU
	full     []int8   // fully free GPUs
	tags     []uint32 // GpuClustering's tags of the pods on the node

	// Per node and typical class j (at node*J + j): the GPUs with at
	// least the class's milli free and the free milli of the others.
	cnt   []int8
	below []int64
	frag  []float64 // Frag(n)

	fragTotal float64

	// ver[r] changes whenever node r does; a cached score is valid while
	// its stamp equals it.
	ver   []uint32
	clock uint32
	cache []keyCache

	fits []int // Random's buffer
}

// keyCache is the scores of one kind of pod on every node.
type keyCache struct {
	score []int16
	gpu   []int8
	stamp []uint32
}

func newRun(t *Trace, policy string, order []int) *run {
	n := len(order)
	u := &run{t: t, policy: policy, naive: t.opts.Naive, n: n,
		cpu: make([]int64, n), mem: make([]int64, n), gpu: make([][scheduler.MaxGPUsPerNode]uint16, n),
		ngpu: make([]int8, n), model: make([]uint64, n), gsum: make([]int64, n), maxFree: make([]uint16, n),
		full: make([]int8, n), tags: make([]uint32, n), frag: make([]float64, n), ver: make([]uint32, n),
		cnt: make([]int8, n*len(t.classes)), below: make([]int64, n*len(t.classes)),
		cache: make([]keyCache, t.keys), clock: 1,
	}
	for r, i := range order {
		u.cpu[r], u.mem[r], u.ngpu[r], u.model[r] = t.cpu[i], t.mem[i], t.ngpu[i], t.model[i]
		for g := 0; g < int(u.ngpu[r]); g++ {
			u.gpu[r][g] = fullGPU
		}
		u.ver[r] = 1
		u.refresh(r)
		u.fragTotal += u.frag[r]
	}
	return u
}

// view is node r as the scheduler's scores see it.
func (u *run) view(r int) scheduler.NodeView {
	return scheduler.NodeView{CPU: scheduler.MilliCPU(u.cpu[r]), Model: u.model[r], GPU: u.gpu[r][:u.ngpu[r]]}
}

// refresh recomputes what is derived from node r's free resources.
func (u *run) refresh(r int) {
	g := u.gpu[r][:u.ngpu[r]]
	var sum int64
	var mx uint16
	var full int8
	for _, x := range g {
		sum += int64(x)
		mx = max(mx, x)
		if x == fullGPU {
			full++
		}
	}
	u.gsum[r], u.maxFree[r], u.full[r] = sum, mx, full
	J := len(u.t.classes)
	for j := range u.t.classes {
		m := u.t.classes[j].milli
		var c int8
		var b int64
		for _, x := range g {
			if x >= m {
				c++
			} else {
				b += int64(x)
			}
		}
		u.cnt[r*J+j], u.below[r*J+j] = c, b
	}
	if u.naive {
		v := u.view(r)
		u.frag[r] = u.t.typical.Frag(&v)
	} else {
		u.frag[r] = u.fragAfter(r, u.cpu[r], 0, 0, 0, false)
	}
}

// fragAfter is Frag of node r changed to CPU c and, for a share (shared),
// one GPU's free milli from a to a2, or otherwise k fully free GPUs
// taken. Each class's fragment is the integer Fragment computes, summed in
// the same order, so the result is Typical.Frag's to the bit.
func (u *run) fragAfter(r int, c int64, a, a2 uint16, k int8, shared bool) float64 {
	J := len(u.t.classes)
	cnt, below := u.cnt[r*J:r*J+J], u.below[r*J:r*J+J]
	G := u.gsum[r]
	if shared {
		G -= int64(a) - int64(a2)
	} else {
		G -= int64(k) * int64(fullGPU)
	}
	model := u.model[r]
	f := 0.0
	for j := range u.t.classes {
		cl := &u.t.classes[j]
		x := G
		if cl.gpus != 0 && model&cl.models != 0 && c >= cl.cpu {
			n, b := cnt[j], below[j]
			if shared {
				if a >= cl.milli {
					n--
				} else {
					b -= int64(a)
				}
				if a2 >= cl.milli {
					n++
				} else {
					b += int64(a2)
				}
			} else {
				n -= k // a fully free GPU holds every class's milli
			}
			if n >= cl.gpus {
				x = b
			}
		}
		f += cl.p * float64(x)
	}
	return f
}

// fgd is FGD's score of pod s on node r and the GPU of a share.
func (u *run) fgd(r int, s *shape) (int, int) {
	if u.naive {
		v := u.view(r)
		return u.t.typical.Score(&v, s.pod())
	}
	before := u.frag[r]
	c := u.cpu[r] - s.cpu
	if !s.shared {
		return scheduler.FragScore(before - u.fragAfter(r, c, 0, 0, s.gpus, false)), -1
	}
	best, gpu := -1, -1
	var tried [scheduler.MaxGPUsPerNode]uint16
	nt := 0
	for i, a := range u.gpu[r][:u.ngpu[r]] {
		if a < s.milli {
			continue
		}
		// A GPU with the same free milli as one tried leaves the same
		// node, so the same score: the first one keeps it.
		seen := false
		for _, x := range tried[:nt] {
			if x == a {
				seen = true
				break
			}
		}
		if seen {
			continue
		}
		tried[nt] = a
		nt++
		if sc := scheduler.FragScore(before - u.fragAfter(r, c, a, a-s.milli, 0, true)); sc > best {
			best, gpu = sc, i
		}
	}
	return best, gpu
}

// score is the policy's score of pod s on node r, and the GPU FGD gives
// a share.
func (u *run) score(r int, s *shape) (int, int) {
	if u.policy == FGD {
		return u.fgd(r, s)
	}
	v, p := u.view(r), s.pod()
	switch u.policy {
	case DotProd:
		return scheduler.DotProdScore(&v, p), -1
	case GpuClustering:
		return scheduler.ClusteringScore(u.tags[r], &v, p), -1
	case GpuPacking:
		return scheduler.PackingScore(&v, p), -1
	case BestFit:
		return scheduler.BestFitRaw(&v, p), -1
	}
	panic("inflation: no score for policy " + u.policy)
}

// fitsOn reports whether pod s passes the filters on node r.
func (u *run) fitsOn(r int, s *shape) bool {
	if s.cpu > u.cpu[r] || s.mem > u.mem[r] {
		return false
	}
	if s.gpus == 0 {
		return true
	}
	if u.model[r]&s.models == 0 {
		return false
	}
	if s.shared {
		return u.maxFree[r] >= s.milli
	}
	return u.full[r] >= s.gpus
}

// place chooses the node (by rank) and, for a share, the GPU of pod s; -1
// when it fits nowhere.
func (u *run) place(s *shape) (node, gpu int) {
	if u.policy == Random {
		return u.placeRandom(s)
	}
	best, bestScore, bestGPU := -1, -1<<30, -1
	if u.naive {
		for r := 0; r < u.n; r++ {
			if u.fitsOn(r, s) {
				if sc, g := u.score(r, s); sc > bestScore {
					best, bestScore, bestGPU = r, sc, g
				}
			}
		}
	} else {
		kc := &u.cache[s.key]
		if kc.stamp == nil {
			kc.score, kc.gpu, kc.stamp = make([]int16, u.n), make([]int8, u.n), make([]uint32, u.n)
		}
		for r := 0; r < u.n; r++ {
			if !u.fitsOn(r, s) {
				continue
			}
			if kc.stamp[r] != u.ver[r] {
				sc, g := u.score(r, s)
				kc.score[r], kc.gpu[r], kc.stamp[r] = int16(sc), int8(g), u.ver[r]
			}
			if sc := int(kc.score[r]); sc > bestScore {
				best, bestScore, bestGPU = r, sc, int(kc.gpu[r])
			}
		}
	}
	if best < 0 || !s.shared {
		return best, -1
	}
	if u.policy != FGD {
		bestGPU = scheduler.TightestGPU(u.gpu[best][:u.ngpu[best]], scheduler.MilliGPU(s.milli))
	}
	return best, bestGPU
}

// placeRandom draws a node among those that fit (in the tie-break order)
// and a GPU among those that hold a share, uniformly; a single node that
// fits is taken without a draw.
func (u *run) placeRandom(s *shape) (int, int) {
	u.fits = u.fits[:0]
	for r := 0; r < u.n; r++ {
		if u.fitsOn(r, s) {
			u.fits = append(u.fits, r)
		}
	}
	var r int
	switch len(u.fits) {
	case 0:
		return -1, -1
	case 1:
		r = u.fits[0]
	default:
		r = u.fits[u.rng.IntN(len(u.fits))]
	}
	if !s.shared {
		return r, -1
	}
	n := 0
	for _, x := range u.gpu[r][:u.ngpu[r]] {
		if x >= s.milli {
			n++
		}
	}
	k := u.rng.IntN(n)
	for g, x := range u.gpu[r][:u.ngpu[r]] {
		if x >= s.milli {
			if k == 0 {
				return r, g
			}
			k--
		}
	}
	panic("inflation: unreachable")
}

// take places pod s on node r (a share on GPU g).
func (u *run) take(r int, s *shape, g int) {
	u.cpu[r] -= s.cpu
	u.mem[r] -= s.mem
	switch {
	case s.gpus == 0:
	case s.shared:
		if u.gpu[r][g] < s.milli {
			panic("inflation: share does not fit its GPU")
		}
		u.gpu[r][g] -= s.milli
	default:
		need := s.gpus
		for i := 0; i < int(u.ngpu[r]) && need > 0; i++ {
			if u.gpu[r][i] == fullGPU {
				u.gpu[r][i] = 0
				need--
			}
		}
		if need > 0 {
			panic("inflation: whole GPUs do not fit")
		}
	}
	if u.cpu[r] < 0 || u.mem[r] < 0 {
		panic("inflation: node over-allocated")
	}
	if s.tag >= 0 {
		u.tags[r] |= 1 << s.tag
	}
	old := u.frag[r]
	u.refresh(r)
	u.fragTotal += u.frag[r] - old
	u.clock++
	u.ver[r] = u.clock
}
