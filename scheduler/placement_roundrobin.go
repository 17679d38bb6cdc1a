package scheduler

var (
	_ Placement = (*RoundRobin)(nil)
	_ Committer = (*RoundRobin)(nil)
)

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
