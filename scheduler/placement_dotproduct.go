package scheduler

var _ Placement = (*DotProduct)(nil)

// DotProduct takes the node with the highest [DotProdScore] (the FGD
// paper's DotProd baseline, after Tetris); ties in the seeded tie-break
// order.
type DotProduct struct{ TieOrder }

// Name implements Placement.
func (*DotProduct) Name() string { return "dot-product" }

// Choose implements Placement.
func (d *DotProduct) Choose(s *State, a *Ask) int {
	return d.best(s, a, DotProdScore)
}
