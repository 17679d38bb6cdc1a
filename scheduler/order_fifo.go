package scheduler

var _ Order = FIFO{}

// FIFO serves jobs by (submit, id).
type FIFO struct{}

// Name implements Order.
func (FIFO) Name() string { return "fifo" }

// Less implements Order.
func (FIFO) Less(a, b *Entry) bool { return bySubmit(a.Job, b.Job) < 0 }
