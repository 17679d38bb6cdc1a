package scheduler

// Greedy is the queue rule of list scheduling ("first fit", or aggressive
// backfilling without reservations): at each pass, after the head has been
// served while it fits, every queued job that fits now starts, in queue
// order; nothing is reserved. It is the Alibaba PAI v2020 simulator's rule
// (Weng et al., NSDI 2022). Its risk is starvation: a wide job at the head
// waits while narrower jobs behind it keep taking what frees up, for as
// long as they keep coming. Summary.PassedOver counts the jobs passed over
// more than PassedOverLimit times.
//
// It is written as any rule outside this package would be: a BackfillRule
// on a Pass, registered through RuleBackfill.
type Greedy struct{}

// Name implements BackfillRule.
func (Greedy) Name() string { return "greedy" }

// Backfill implements BackfillRule.
func (Greedy) Backfill(p *Pass) {
	for i := 1; i < p.Len(); i++ {
		p.Start(i)
	}
}

var _ BackfillRule = Greedy{}
