package scheduler

var _ Placement = BestFit{}

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
