package scheduler

var _ Placement = (*GpuPacking)(nil)

// GpuPacking takes the node with the highest [PackingScore]: shares on
// GPUs already in use first, then free GPUs on nodes in use, then free
// nodes; ties in the seeded tie-break order.
type GpuPacking struct{ TieOrder }

// Name implements Placement.
func (*GpuPacking) Name() string { return "gpu-packing" }

// Choose implements Placement.
func (g *GpuPacking) Choose(s *State, a *Ask) int {
	return g.best(s, a, PackingScore)
}
