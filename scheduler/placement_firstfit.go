package scheduler

var _ Placement = FirstFit{}

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
