package scheduler

var (
	_ Placement = (*GpuClustering)(nil)
	_ Tracker   = (*GpuClustering)(nil)
)

// GpuClustering takes the node with the highest [ClusteringScore]: it
// keeps replicas of one GPU shape together. It tracks the tags of the
// replicas running on each node (what-if placements see the running ones
// only, and the simulator's empty cluster, State.idle, none); ties in the
// seeded tie-break order.
type GpuClustering struct {
	TieOrder
	tags [][MaxGPUsPerNode + 1]int32 // per node, replicas per tag
}

// Name implements Placement.
func (*GpuClustering) Name() string { return "gpu-clustering" }

// Tags is the tag set of node i (bit t for tag t; see [PodShape.Tag]).
func (g *GpuClustering) Tags(i int) uint32 {
	if i >= len(g.tags) {
		return 0
	}
	var m uint32
	for t, n := range g.tags[i] {
		if n > 0 {
			m |= 1 << t
		}
	}
	return m
}

// Choose implements Placement.
func (g *GpuClustering) Choose(s *State, a *Ask) int {
	p := a.shape()
	return argmax(s, a, g.Order(s.Len()), func(i int) int {
		v := s.view(i)
		var tags uint32
		if !s.idle {
			tags = g.Tags(i)
		}
		return ClusteringScore(tags, &v, p)
	})
}

// Placed implements Tracker.
func (g *GpuClustering) Placed(sl *Slot) {
	if t := slotTag(sl); t >= 0 {
		for int(sl.Node) >= len(g.tags) {
			g.tags = append(g.tags, [MaxGPUsPerNode + 1]int32{})
		}
		g.tags[sl.Node][t]++
	}
}

// Released implements Tracker.
func (g *GpuClustering) Released(sl *Slot) {
	if t := slotTag(sl); t >= 0 {
		g.tags[sl.Node][t]--
	}
}
