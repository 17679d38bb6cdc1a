package scheduler

var _ Placement = Tetris{}

// Tetris packs by alignment (Grandl et al., "Multi-Resource Packing for
// Cluster Schedulers", SIGCOMM 2014): among the nodes that fit, take the one
// maximising the dot product of the replica's demand and the node's free
// resources, both normalised per dimension by the node's capacity. Ties go
// to the lower node index. This is the paper's alignment score as a node
// choice for the job the queue offers; its scheduler also picks the best
// (task, machine) pair over every pending task and mixes in the remaining
// work (SRPT) with a weight ε, which the queue and backfill policies here
// do not.
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
