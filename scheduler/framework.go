package scheduler

// The extension points a scheduler is composed of, every interface in this
// file:
//
//   - Order: the queue's order;
//   - Estimator: the run time the scheduler plans with, with the optional
//     powers Observer, Reestimator, PlacementEstimator (and its
//     PlacementFree and SpanningEstimator) and FineEstimator;
//   - Placement: the node of each replica, with the optional powers
//     Committer, GPUChooser, Tracker, Workloader, JobPlacement,
//     BatchPlacement and RandomChooser;
//   - Backfill: which queued jobs start past a head that does not fit. The
//     built-in rules none, easy and conservative reach into the engine;
//     greedy, and any rule written outside this package, implements
//     BackfillRule on a Pass and is registered through RuleBackfill;
//   - Configurable and Requirer: powers any part may have. A part's
//     settings are its own Args, which it decodes in Configure; no struct
//     shared by the parts carries them.
//
// Each is registered by name in Parts (a registry each): a new part is one
// file and one Register call, inside this package or out. The engine looks
// for each optional power once per simulation, when it starts (newSim;
// Stream first looks for the two that need the whole workload, Workloader
// and JobPlacement; a Sequence looks in NewSequence), not at each use.

// The queue order.

// Order decides the queue's order: the head is the job that is served
// first and, with backfill, the one that holds the reservation.
type Order interface {
	Name() string
	// Less reports whether a is served before b. It must be a strict weak
	// order on the entries (as sort's Less), which depend only on the job
	// and its estimate at arrival: the simulator keeps the queue sorted
	// and finds each arrival's place by binary search.
	Less(a, b *Entry) bool
}

// Runtime estimates and their optional powers.

// Estimator gives each arriving job the run time the scheduler plans with,
// 0 to MaxTime (2^50 s): a negative Estimate, or an answer past MaxTime
// from any of its methods, ends the simulation with an error naming the
// estimator (a negative EstimateOn is no estimate for that placement, a
// Reestimate at or below the time run no new one).
type Estimator interface {
	Name() string
	Estimate(j *Job) Time
}

// Observer is an estimator that learns from completed jobs: the simulator
// calls Observe with every job that ends, in the order they end.
type Observer interface {
	Observe(j *Job, start, end Time)
}

// Reestimator is an estimator with a rule for a job that outlives its
// estimate: the simulator asks it for a new one, which it plans with if it
// is longer than the time the job has run. Without it, such a job is
// expected to end a second from now (the EASY contract).
type Reestimator interface {
	Reestimate(j *Job, current, elapsed Time) Time
}

// PlacementEstimator is an estimator whose estimate depends on where the
// job runs: when a job starts, the simulator replaces its estimate with
// EstimateOn the GPU model (lower case) and number of GPUs it was placed
// on (the slowest model's estimate when it spans several).
type PlacementEstimator interface {
	EstimateOn(j *Job, model string, gpus int) Time
}

// PlacementFree is a PlacementEstimator that can tell a job whose
// estimate does not depend on where it runs (a user's estimate names no
// GPU): a [JobPlacement] then places it as without a PlacementEstimator
// (JobContext.Est nil), and the estimate it queued with stands when it
// starts (EstimateOn is not asked).
type PlacementFree interface {
	PlacementFree(j *Job) bool
}

// SpanningEstimator is a PlacementEstimator that knows a job's run time on
// GPUs of more than one node (Job.RunSpanning): for such a placement the
// simulator asks EstimateSpanning in place of EstimateOn.
type SpanningEstimator interface {
	PlacementEstimator
	EstimateSpanning(j *Job, model string, gpus int) Time
}

// FineEstimator is an estimator whose estimates are finer than a second:
// Fine is the estimate before rounding, which the queue order compares
// where the rounded estimates tie (Entry.Fine). Fine must not decrease
// where Estimate increases.
type FineEstimator interface {
	Fine(j *Job) float64
}

// Placement and its optional powers.

// Placement chooses the node for one replica.
type Placement interface {
	Name() string
	// Choose returns the node of s where one replica asking a should go,
	// or -1 when it fits nowhere. The replica must fit the node
	// (s.Fits: its capacity and its GPU models); any other answer ends
	// the simulation with an error naming the placement, the job and the
	// node. It must not change s, a, nor the placement's own state
	// (Commit and Placed do, at real placements): backfilling asks it in
	// what-if placements as often as it needs, and conservative
	// backfilling on nodes stops asking once no queued job can start (a
	// RandomChooser, which draws in every Choose, is asked for every job).
	Choose(s *State, a *Ask) int
}

// RandomChooser is a Placement whose Choose draws at random (Random), so
// that every what-if placement moves its draws on. Conservative
// backfilling on nodes then takes none of its shortcuts, which would ask
// it fewer what-if questions and so change the draws its real placements
// get: it reserves every queued job, not only up to the last that fits
// what is free now, and places every start it tries on the least free
// capacity over that start's window afresh.
type RandomChooser interface {
	// ChoosesAtRandom reports whether Choose draws.
	ChoosesAtRandom() bool
}

// Committer is a Placement with memory: the simulator calls Commit with
// every node it really places a replica on (not for what-if placements).
type Committer interface {
	Commit(node int)
}

// GPUChooser is a Placement that also chooses the GPU a share of one GPU
// takes on the node of GPU devices it chose, a [JobPlacement]'s node
// included; without it the share takes the GPU with the least free milli
// that holds it ([TightestGPU]).
type GPUChooser interface {
	// ChooseGPU returns the GPU of node i of s where a (a share, which
	// fits node i) goes, or -1 for TightestGPU's. A GPU that does not
	// hold the share ends the simulation with an error.
	ChooseGPU(s *State, i int, a *Ask) int
}

// Tracker is a Placement that follows what runs where: the simulator calls
// Placed with every slot it really places a replica in (not what-if
// placements) and Released when that replica ends.
type Tracker interface {
	Placed(sl *Slot)
	Released(sl *Slot)
}

// Workloader is a Placement that plans with the workload's mix of
// requests: the simulator calls Workload once, before the first arrival,
// with every task's ask and its replica count.
type Workloader interface {
	Workload(asks []Ask, reps []int)
}

// JobPlacement is a [Placement] that places with the job in view, as
// heterogeneity-aware policies do. When the scheduler's placement
// implements it, the simulator places every job, for real or
// hypothetically (the backfill rules' what-ifs on scratch states), as
// follows: it asks Rank for the groups of GPU models to try, best first,
// and places the whole gang with its GPU replicas kept on the models of
// the first group that holds it all; failing every group (or with none),
// it places the replicas on any model. Each replica's node comes from
// ChooseFor; Choose is used only where no job is known.
//
// Both methods must not change s, c or the placement itself: the same
// call must give the same answer.
type JobPlacement interface {
	Placement
	// Rank appends to dst the groups of GPU models to try for the whole
	// job, best first, and returns it; nothing means no preference.
	Rank(s *State, c *JobContext, dst []ModelSet) []ModelSet
	// ChooseFor is Choose for one replica of c.Job: the node of s where
	// one replica asking a should go, or -1 when it fits nowhere. While a
	// group of models is tried, s.Fits holds only on nodes of that group
	// for GPU replicas.
	ChooseFor(s *State, a *Ask, c *JobContext) int
}

// BatchPlacement is a Placement that places the waiting jobs of a
// scheduling pass together instead of serving the queue's head one job at a
// time. When the scheduler's placement implements it, each pass hands it
// the whole queue, in queue order, instead of running the head loop; the
// backfill rule then runs as usual on what is left. Choose is still used
// for one-job questions (does a job fit the empty cluster; the backfill
// rules' what-ifs).
type BatchPlacement interface {
	Placement
	// PlaceBatch sets nodes[k], for every replica k of the waiting jobs
	// (jobs in queue order, then tasks, then replicas), to the node it
	// starts on now, or -1. A job starts only when every one of its
	// replicas has a node; the simulator takes the replicas of the jobs
	// that start in that order (see [State]'s GPU choice), and they must
	// all fit. PlaceBatch must not change s.
	PlaceBatch(s *State, waiting []Waiting, nodes []int32)
}

// Backfill: the built-in rules implement Backfill; a rule from outside the package implements BackfillRule (below).

// Backfill is the rule that may start queued jobs other than the head when
// the head does not fit. Its method is unexported: the rules that need the
// simulator's internals (none, easy, conservative) implement it in this
// package, and every other (greedy, or one written outside the package)
// is a BackfillRule made a Backfill by RuleBackfill.
type Backfill interface {
	Name() string
	backfill(m *sim)
}

// Powers any part may have.

// Configurable is a part with settings or randomness: Build calls
// Configure once, with the part's own arguments (from the config, decoded
// by the part: Args.Decode) and the run it is made for. A part that is not
// Configurable takes no arguments.
type Configurable interface {
	Configure(args Args, run Run) error
}

// Requirer is a part that needs something of every job, such as a column
// only some traces have: the simulator checks each job with Require before
// it arrives and stops with the error.
type Requirer interface {
	Require(j *Job) error
}

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

// outsidePart is the part p as its author wrote it: a BackfillRule that
// RuleBackfill wrapped, whose powers (Configurable, Requirer) are its own.
func outsidePart(p any) any {
	if r, ok := p.(ruleBackfill); ok {
		return r.r
	}
	return p
}

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
	if j.started || j.cpu > m.freeCPU || j.gpu > m.capGPU-m.usedGPU || !m.place(&m.st, j) {
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
