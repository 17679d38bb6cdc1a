package scheduler

var _ Placement = (*BestFitFGD)(nil)

// BestFitFGD is the FGD paper's BestFit: the node with the highest
// [BestFitRaw] score (min-max normalised over the nodes that fit, which
// keeps the order), the one the replica leaves with the least free CPU and
// GPU, weighted ½ each against a 128-core, 8-GPU node; memory is ignored.
// Ties in the seeded tie-break order. Not [BestFit], which weighs CPU,
// memory and GPU against each node's own capacity.
type BestFitFGD struct{ TieOrder }

// Name implements Placement.
func (*BestFitFGD) Name() string { return "best-fit-fgd" }

// Choose implements Placement.
func (b *BestFitFGD) Choose(s *State, a *Ask) int {
	return b.best(s, a, BestFitRaw)
}
