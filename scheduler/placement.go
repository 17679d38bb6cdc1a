package scheduler

var (
	_ Placement = FirstFit{}
	_ Placement = BestFit{}
	_ Placement = (*RoundRobin)(nil)
	_ Committer = (*RoundRobin)(nil)
	_ Placement = Tetris{}
)

// FirstFit takes the first node, in the cluster's order, that fits.
type FirstFit struct{}

// Name implements Placement.
func (FirstFit) Name() string { return "first-fit" }

// Choose implements Placement.
func (FirstFit) Choose(s *State, a *Ask) int {
	for i := 0; i < s.Len(); i++ {
		if s.Fits(i, a) {
			return i
		}
	}
	return -1
}

// BestFit takes the node that the replica leaves with the least free
// capacity: the sum over CPU, memory and GPU of what remains after the
// replica, each as a fraction of the node's capacity. Ties go to the lower
// node index.
type BestFit struct{}

// Name implements Placement.
func (BestFit) Name() string { return "best-fit" }

// Choose implements Placement.
func (BestFit) Choose(s *State, a *Ask) int {
	best, bestScore := -1, 0.0
	for i := 0; i < s.Len(); i++ {
		if !s.Fits(i, a) {
			continue
		}
		c, f := s.Capacity(i), s.Free(i)
		score := frac(int64(f.CPU-a.CPU), int64(c.CPU)) + frac(int64(f.Mem-a.Mem), int64(c.Mem)) +
			frac(int64(f.GPU)-int64(a.Milli)*int64(a.GPUs), int64(c.GPU))
		if best < 0 || score < bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

// RoundRobin takes the first node that fits, starting after the node it
// placed the last replica on and wrapping around.
type RoundRobin struct{ next int }

// Name implements Placement.
func (*RoundRobin) Name() string { return "round-robin" }

// Choose implements Placement.
func (r *RoundRobin) Choose(s *State, a *Ask) int {
	n := s.Len()
	for k := 0; k < n; k++ {
		i := (r.next + k) % n
		if s.Fits(i, a) {
			return i
		}
	}
	return -1
}

// Commit implements Committer.
func (r *RoundRobin) Commit(node int) { r.next = node + 1 }

// Tetris packs by alignment (Grandl et al., "Multi-Resource Packing for
// Cluster Schedulers", SIGCOMM 2014): among the nodes that fit, take the one
// maximising the dot product of the replica's demand and the node's free
// resources, both normalised per dimension by the node's capacity. Ties go
// to the lower node index.
type Tetris struct{}

// Name implements Placement.
func (Tetris) Name() string { return "tetris" }

// Choose implements Placement.
func (Tetris) Choose(s *State, a *Ask) int {
	best, bestScore := -1, 0.0
	gpuDemand := int64(a.Milli) * int64(a.GPUs)
	for i := 0; i < s.Len(); i++ {
		if !s.Fits(i, a) {
			continue
		}
		c, f := s.Capacity(i), s.Free(i)
		score := frac(int64(a.CPU), int64(c.CPU))*frac(int64(f.CPU), int64(c.CPU)) +
			frac(int64(a.Mem), int64(c.Mem))*frac(int64(f.Mem), int64(c.Mem)) +
			frac(gpuDemand, int64(c.GPU))*frac(int64(f.GPU), int64(c.GPU))
		if best < 0 || score > bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

// frac is x/c, or 0 for a dimension the node does not have.
func frac(x, c int64) float64 {
	if c <= 0 {
		return 0
	}
	return float64(x) / float64(c)
}

// placeJob places every replica of j on s (gang: all or none), recording
// the slots in out. It returns false, with s unchanged, when some replica
// does not fit. A JobPlacement (bound to the simulation) places with the
// job in view.
func placeJob(s *State, p Placement, asks []Ask, reps []int, out []Slot) bool {
	if b, ok := p.(*boundPlacement); ok {
		return b.place(s, asks, reps, out)
	}
	if gc, ok := p.(GPUChooser); ok {
		return placeEachGPU(s, p.Choose, gc, asks, reps, out)
	}
	return placeEach(s, p.Choose, asks, reps, out)
}

// placeEach places the replicas one by one where choose says.
func placeEach(s *State, choose func(*State, *Ask) int, asks []Ask, reps []int, out []Slot) bool {
	return placeEachGPU(s, choose, nil, asks, reps, out)
}

// placeEachGPU is placeEach with the GPU of each share chosen by gc (when
// not nil).
func placeEachGPU(s *State, choose func(*State, *Ask) int, gc GPUChooser, asks []Ask, reps []int, out []Slot) bool {
	k := 0
	for t := range asks {
		a := &asks[t]
		for r := 0; r < reps[t]; r++ {
			i := choose(s, a)
			if i < 0 {
				for k > 0 {
					k--
					s.release(&out[k])
				}
				return false
			}
			g := -1
			if gc != nil && a.Shared && s.info[i].pool == 0 { // a pool has no devices to choose
				g = gc.ChooseGPU(s, i, a)
			}
			out[k] = s.takeGPU(i, a, g)
			k++
		}
	}
	return true
}
