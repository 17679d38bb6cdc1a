package scheduler

import "cmp"

var _ Order = SJF{}

// SJF serves the job with the shortest estimate first (the finer one where
// the estimator gives it, Entry.Fine), then by (submit, id).
type SJF struct{}

// Name implements Order.
func (SJF) Name() string { return "sjf" }

// Less implements Order.
func (SJF) Less(a, b *Entry) bool {
	if a.Estimate != b.Estimate {
		return a.Estimate < b.Estimate
	}
	if a.Fine != b.Fine {
		return a.Fine < b.Fine
	}
	return bySubmit(a.Job, b.Job) < 0
}

func bySubmit(a, b *Job) int {
	if c := cmp.Compare(a.Submit, b.Submit); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}
