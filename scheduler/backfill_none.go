package scheduler

var _ Backfill = NoBackfill{}

// NoBackfill starts nothing past a head that does not fit (plain FCFS when
// the order is FIFO).
type NoBackfill struct{}

// Name implements Backfill.
func (NoBackfill) Name() string { return "none" }

func (NoBackfill) backfill(*sim) {}
