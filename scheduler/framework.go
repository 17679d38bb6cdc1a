package scheduler

// The extension points a scheduler is composed of, in one place:
//
//   - Order (parts.go): the queue's order;
//   - Estimator (parts.go): the run time the scheduler plans with, with the
//     optional powers Observer, Reestimator and PlacementEstimator;
//   - Placement (placement.go): the node of each replica, with the
//     optional powers Committer, GPUChooser, Tracker, Workloader,
//     JobPlacement and BatchPlacement;
//   - Backfill: which queued jobs start past a head that does not fit. The
//     built-in rules (none, easy, conservative) reach into the engine; a
//     rule written outside this package implements BackfillRule on a
//     Pass and is registered through RuleBackfill.
//
// Each is registered by name in Parts (a registry each): a new part is one
// file and one Register call, inside this package or out.

// BackfillRule is a backfill rule written outside this package: at each
// scheduling pass, after the queue's head has been served while it fits,
// Backfill may start further queued jobs through the pass.
type BackfillRule interface {
	Name() string
	Backfill(p *Pass)
}

// RuleBackfill makes a BackfillRule a Backfill for Parts.Backfills.
func RuleBackfill(r BackfillRule) Backfill { return ruleBackfill{r} }

type ruleBackfill struct{ r BackfillRule }

func (b ruleBackfill) Name() string    { return b.r.Name() }
func (b ruleBackfill) backfill(m *sim) { b.r.Backfill(&Pass{m: m}) }

// Pass is a scheduling pass as a BackfillRule sees it: the queue in the
// scheduler's order (its head first: the job that did not fit), the
// running jobs' expected ends, and a way to start a queued job now.
type Pass struct {
	m *sim
}

// Now is the pass's time.
func (p *Pass) Now() Time { return p.m.now }

// Len is the number of queued jobs, started ones included until the pass
// ends.
func (p *Pass) Len() int { return len(p.m.queue) }

// Job is queued job i: the job and the estimate the scheduler plans with.
func (p *Pass) Job(i int) *Entry { return &p.m.queue[i].Entry }

// Started reports whether queued job i was started in this pass.
func (p *Pass) Started(i int) bool { return p.m.queue[i].started }

// Start starts queued job i now if the placement finds room for every
// replica on the free cluster, and reports whether it did.
func (p *Pass) Start(i int) bool {
	m := p.m
	j := m.queue[i]
	if j.started || j.cpu > m.freeCPU || j.gpu > m.capGPU-m.usedGPU || !placeJob(&m.st, m.sched.Placement, j.asks, j.reps, j.slots) {
		return false
	}
	m.start(j)
	return true
}

// Running calls f with the expected end (start + estimate, at least now +
// 1 once a job outlives its estimate) of every running job, earliest
// first, until f returns false.
func (p *Pass) Running(f func(end Time, j *Job) bool) {
	for _, e := range p.m.runningByEnd() {
		if !f(e.end, e.j.Job) {
			return
		}
	}
}
