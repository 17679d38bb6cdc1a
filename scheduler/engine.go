package scheduler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"
)

// Status is how a job's simulation ended.
type Status uint8

// Job outcomes.
const (
	// Done: the job ran to its end.
	Done Status = iota
	// Unschedulable: the job does not fit the whole, empty cluster.
	Unschedulable
	// Killed: the job ran into its kill limit (Spec.KillAtUserLimit,
	// Spec.KillFactor) and was stopped there.
	Killed
)

func (s Status) String() string {
	switch s {
	case Done:
		return "done"
	case Unschedulable:
		return "unschedulable"
	case Killed:
		return "killed"
	}
	return fmt.Sprintf("Status(%d)", uint8(s))
}

// jobState is one job during the simulation.
type jobState struct {
	Entry
	// a0 and s0 index the job's first ask (and its replica count) and
	// first slot in the simulation's arrays (sim.asks, sim.reps,
	// sim.slots); na and ns count them. Offsets rather than slices keep
	// the per-job state small and free of pointers but the Job's.
	a0, na int32
	s0, ns int32
	cpu    MilliCPU // summed over replicas
	mem    MiB
	gpu    MilliGPU
	start  Time
	end    Time
	// expEnd0 is start + estimate, the key running jobs are kept sorted by.
	expEnd0 Time
	status  Status
	started bool
	killed  bool // stopped at its kill limit
	over    bool // its schedule is final: done, killed or unschedulable
	// refused marks a gang the placement does not place on the empty
	// cluster and first-fit does, on arrival or left queued at the end
	// (Summary.PlacementRefused)
	refused bool
	// passedOver counts the passes in which a job behind it in the queue
	// started while it stayed queued.
	passedOver int32
	// reserved: conservative backfilling on a cluster of one node holds
	// the job's reservation (its placement, in its slots) over [resFrom,
	// resTo) from pass to pass (Conservative.compress)
	reserved       bool
	resFrom, resTo Time
}

// sim is one simulation in progress.
type sim struct {
	// endedAt is when a job last ended, earlyAt when one last ended
	// before its estimate (-1: none yet); settled says the last
	// compression of conservative reservations moved none (nor need the
	// next: Conservative.compress)
	endedAt, earlyAt Time
	settled          bool
	// dueState is the state Conservative.compress checks the reservations
	// of now against
	dueState State
	// batchAt is when a batch placement last started jobs, overranAt
	// when a running job was last found past its estimate and estimated
	// again (-1: never)
	batchAt, overranAt Time
	// orderChecked: the queue order's Less was asked whether the first
	// job comes before itself (enqueue)
	orderChecked bool
	// holdEvs, holdTimes and holdCPU are holdAllPool's buffers, kept
	// from pass to pass
	holdEvs   []holdEv
	holdTimes []Time
	holdCPU   []MilliCPU
	cl        *Cluster
	sched     Scheduler
	commit    Committer
	track     Tracker    // the placement's, when it tracks what runs where
	gc        GPUChooser // the placement's, when it chooses a share's GPU
	// workloader and jp are the placement's, when it plans with the
	// workload's mix or places with the job in view; bound is jp bound
	// to the simulation (bindPlacement).
	workloader Workloader
	jp         JobPlacement
	bound      *boundPlacement
	// draws is set when the placement draws in every Choose
	// (RandomChooser): conservative backfilling then takes no shortcut
	// that would ask it fewer what-if questions.
	draws bool
	// cur is the job the parts are being asked about (arriving, placed,
	// starting, ending, re-estimated), nil between: a violation or a
	// part's panic names it (catch).
	cur *jobState
	// batch is the placement when it places a pass's queue at once.
	batch   BatchPlacement
	waiting []Waiting // its arguments, reused
	// waitAsks and waitReps are the asks and replica counts the waiting
	// jobs are handed with: copies, which the batch placement may not
	// change but cannot change the jobs' by.
	waitAsks []Ask
	waitReps []int
	// stranded is set when the run ends with a job of one replica queued
	// that the empty cluster fits: a placement's defect, which Simulate
	// reports.
	stranded error
	nodes    []int32
	// observe to spanning are the estimator's optional powers.
	observe    Observer
	reestimate Reestimator
	placed     PlacementEstimator
	free       PlacementFree
	spanning   SpanningEstimator
	fine       FineEstimator
	require    []Requirer
	models     []string // GPU model names, lower case, by model index
	st         State    // the cluster now
	empty      State    // the cluster with nothing running
	now        Time

	jobs  []jobState
	queue []*jobState
	// queueCPU is at most the processors of every queued job (a bound
	// that arrivals lower and EASY on a pool makes exact when it scans the
	// queue): with fewer free, no queued job can start.
	queueCPU MilliCPU
	running  []*jobState // sorted by (expEnd0, id)
	done     compHeap

	starts  int // jobs started so far
	freeCPU MilliCPU
	usedCPU MilliCPU
	usedMem MiB
	usedGPU MilliGPU
	capGPU  MilliGPU // the cluster's GPU capacity

	// scratch space reused by the backfill rules
	scratch, view State
	byEnd         []endEntry
	prof          profile
	win, winLong  window // conservative backfilling's least free capacity over a reservation
	// ctx, when it can be done (ctxDone), stops the event loop (stopped
	// its error)
	ctx      context.Context
	ctxDone  <-chan struct{}
	stopped  error
	minTotal []total
	pool     bool // see onePool

	// hooks lets tests watch the backfill rules' decisions; nil otherwise.
	hooks *hooks

	// copyJobs is set when a part is from outside the package: it is
	// handed copies of the caller's jobs (load).
	copyJobs bool

	series []Sample
	// asks, reps and slots are every job's, in job order (see jobState):
	// all the jobs' when simulating in memory, those of the jobs still in
	// the system when streaming (see streaming.compact).
	asks  []Ask
	reps  []int
	slots []Slot
	began bool       // a pass has run: the cluster's use is integrated from here
	area  [3]float64 // ∫ used cpu, mem, gpu dt
	lastT Time

	next int // the next arrival in jobs

	// modelIndex maps a GPU model to its bit in an Ask's models.
	modelIndex map[string]int
	// str is set when the jobs stream in (Stream) rather than lie in jobs.
	str *streaming
}

type endEntry struct {
	end Time
	j   *jobState
}

// Simulate runs jobs on cluster c under scheduler s and returns every job's
// schedule, the cluster's use over time and the run's summary. jobs is not
// changed: a part from outside this package is handed copies of the jobs
// (whose tasks and maps it shares, and must not change); each job is
// checked with [Job.Validate] first. The scheduler's parts must be fresh
// for each simulation: a scheduler from [Parts.Build] used before is
// refused.
func Simulate(c *Cluster, jobs []Job, s Scheduler) (*Result, error) {
	return SimulateContext(context.Background(), c, jobs, s)
}

// SimulateContext is Simulate, stopped when ctx is done (an interrupt):
// the event loop looks at ctx at every event and returns its error, and
// no result.
func SimulateContext(ctx context.Context, c *Cluster, jobs []Job, s Scheduler) (*Result, error) {
	if err := check(c, s); err != nil {
		return nil, err
	}
	if err := claim(&s); err != nil {
		return nil, err
	}
	return simulateCtx(ctx, c, jobs, s, nil)
}

// check refuses an invalid cluster or a scheduler with a part missing.
func check(c *Cluster, s Scheduler) error {
	if err := c.Validate(); err != nil {
		return fmt.Errorf("cluster %s: %w", c.Name, err)
	}
	if s.Order == nil || s.Backfill == nil || s.Placement == nil || s.Estimator == nil {
		return errors.New("scheduler: every part (order, backfill, placement, estimate) must be set")
	}
	if s.Consolidate {
		if err := ConsolidateWith(s.Placement); err != nil {
			return fmt.Errorf("scheduler: %w", err)
		}
	}
	return gaOnPool(c, s.Placement)
}

// gaOnPool refuses the genetic algorithm on a cluster that pools its
// GPUs: its chromosome places replicas on GPU devices, and a pool has
// none.
func gaOnPool(c *Cluster, p Placement) error {
	if _, ga := p.(*GA); ga && slices.ContainsFunc(c.Nodes, func(n Node) bool { return n.PoolGPUs > 0 }) {
		return fmt.Errorf("cluster %s: placement ga places replicas on GPU devices, and the cluster's nodes pool their GPUs: use nodes:NxG:MODEL, or another placement", c.Name)
	}
	return nil
}

// validate checks a job, and that it has what the scheduler's parts
// require.
func (m *sim) validate(j *Job) error {
	if err := j.Validate(); err != nil {
		return err
	}
	for _, r := range m.require {
		if err := r.Require(j); err != nil {
			return err
		}
	}
	return nil
}

// newSim is a simulation of s on c, with the parts' optional powers found.
func newSim(c *Cluster, s Scheduler) *sim {
	m := &sim{cl: c, sched: s, endedAt: -1, earlyAt: -1, batchAt: -1, overranAt: -1}
	m.commit, _ = s.Placement.(Committer)
	m.track, _ = s.Placement.(Tracker)
	m.gc, _ = s.Placement.(GPUChooser)
	m.batch, _ = s.Placement.(BatchPlacement)
	m.workloader, _ = s.Placement.(Workloader)
	m.jp, _ = s.Placement.(JobPlacement)
	if r, ok := s.Placement.(RandomChooser); ok {
		m.draws = r.ChoosesAtRandom()
	}
	m.observe, _ = s.Estimator.(Observer)
	m.reestimate, _ = s.Estimator.(Reestimator)
	m.placed, _ = s.Estimator.(PlacementEstimator)
	if m.placed != nil { // the two are powers of a PlacementEstimator
		m.free, _ = s.Estimator.(PlacementFree)
		m.spanning, _ = s.Estimator.(SpanningEstimator)
	}
	m.fine, _ = s.Estimator.(FineEstimator)
	for _, p := range []any{s.Order, s.Backfill, s.Placement, s.Estimator} {
		p = outsidePart(p)
		if r, ok := p.(Requirer); ok {
			m.require = append(m.require, r)
		}
		m.copyJobs = m.copyJobs || !ownPart(p)
	}
	return m
}

// ownPart reports whether part p's type is this package's.
func ownPart(p any) bool {
	t := reflect.TypeOf(p)
	if t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t != nil && t.PkgPath() == reflect.TypeFor[sim]().PkgPath()
}

func simulate(c *Cluster, jobs []Job, s Scheduler, h *hooks) (*Result, error) {
	return simulateCtx(context.Background(), c, jobs, s, h)
}

func simulateCtx(ctx context.Context, c *Cluster, jobs []Job, s Scheduler, h *hooks) (_ *Result, err error) {
	m := newSim(c, s)
	defer m.catch(&err)
	m.hooks = h
	m.watch(ctx)
	if err := m.load(jobs); err != nil {
		return nil, err
	}
	if m.workloader != nil {
		m.workloader.Workload(slices.Clone(m.asks), slices.Clone(m.reps)) // every job's, in job order
	}
	if m.jp != nil {
		m.bindPlacement()
	}
	m.run()
	if m.stopped != nil {
		return nil, m.stopped
	}
	if m.stranded != nil {
		return nil, m.stranded
	}
	return m.result(), nil
}

// load builds the simulation's per-job state and the cluster's states.
// Where a part is from outside the package (copyJobs), the jobs it keeps
// are copies of the caller's (not deep: their tasks and maps are shared,
// which no part changes), so that a part that sets a field of a job it is
// handed (an estimator its Run) does not change the caller's. The
// package's own parts change no job: with them alone the copy, 144 bytes a
// job for every collection to scan, is not made (it cost KTH's 28,000 jobs
// under fifo and no backfill some 8% of the run).
func (m *sim) load(jobs []Job) error {
	if err := m.loadCluster(); err != nil {
		return err
	}
	if m.copyJobs {
		jobs = slices.Clone(jobs)
	}
	nAsks, nSlots := 0, 0
	sorted := true
	for i := range jobs {
		if err := m.validate(&jobs[i]); err != nil {
			return err
		}
		nAsks += len(jobs[i].Tasks)
		nSlots += jobs[i].Replicas()
		if i > 0 && sorted && bySubmit(&jobs[i-1], &jobs[i]) > 0 {
			sorted = false
		}
	}
	if nAsks > math.MaxInt32 || nSlots > math.MaxInt32 {
		return fmt.Errorf("%d tasks and %d replicas: more than a simulation holds (%d)", nAsks, nSlots, math.MaxInt32)
	}
	m.asks = make([]Ask, 0, nAsks)
	m.reps = make([]int, 0, nAsks)
	m.slots = make([]Slot, 0, nSlots)
	// Jobs in (submit, id) order, by index: the copies stay in the
	// caller's order.
	idx := make([]int32, len(jobs))
	for i := range idx {
		idx[i] = int32(i)
	}
	if !sorted {
		slices.SortStableFunc(idx, func(a, b int32) int { return bySubmit(&jobs[a], &jobs[b]) })
	}
	m.jobs = make([]jobState, len(jobs))
	m.series = make([]Sample, 0, 2*len(jobs)+1)
	var prev *Job
	for i, ji := range idx {
		j := &jobs[ji]
		if prev != nil && prev.ID == j.ID && prev.Submit == j.Submit {
			return fmt.Errorf("job %d: listed twice", j.ID)
		}
		prev = j
		m.bind(&m.jobs[i], j)
	}
	return nil
}

// loadCluster builds the cluster's states.
func (m *sim) loadCluster() error {
	models := map[string]int{}
	info := make([]nodeInfo, len(m.cl.Nodes))
	free := make([]nodeFree, len(m.cl.Nodes))
	for i := range m.cl.Nodes {
		n := &m.cl.Nodes[i]
		var err error
		if info[i], free[i], err = newNodeState(n, models); err != nil {
			return fmt.Errorf("cluster %s: %w", m.cl.Name, err)
		}
		m.freeCPU += n.CPU
		m.capGPU += MilliGPU(n.GPUs+n.PoolGPUs) * MilliPerGPU
	}
	m.st = State{info: info, free: free}
	m.empty.copyFrom(&m.st)
	m.empty.idle = true
	m.models = make([]string, len(models))
	for name, k := range models {
		m.models[k] = strings.ToLower(name)
	}
	m.modelIndex = models
	m.pool = m.cl.Pool && len(m.cl.Nodes) == 1 && m.cl.Nodes[0].GPUs == 0
	return nil
}

// bind makes js the state of job j: its asks, their replica counts and
// its slots (zero, one per replica) are appended to m.asks, m.reps and
// m.slots.
func (m *sim) bind(js *jobState, j *Job) {
	js.Job = j
	a0 := len(m.asks)
	for t := range j.Tasks {
		m.asks = append(m.asks, resolve(&j.Tasks[t].Request, m.modelIndex))
		m.reps = append(m.reps, j.Tasks[t].Replicas)
	}
	js.a0, js.na = int32(a0), int32(len(m.asks)-a0)
	n := j.Replicas() // one slot per replica
	s0 := len(m.slots)
	m.slots = slices.Grow(m.slots, n)[:s0+n]
	clear(m.slots[s0:])
	js.s0, js.ns = int32(s0), int32(n)
	js.cpu, js.mem, js.gpu = j.Demand()
	if n != 1 || m.asks[a0].GPUs != 0 || js.mem != 0 {
		m.pool = false
	}
}

// asksOf, repsOf and slotsOf are j's asks, their replica counts and its
// slots (one per replica).
func (m *sim) asksOf(j *jobState) []Ask   { return m.asks[j.a0 : j.a0+j.na : j.a0+j.na] }
func (m *sim) repsOf(j *jobState) []int   { return m.reps[j.a0 : j.a0+j.na : j.a0+j.na] }
func (m *sim) slotsOf(j *jobState) []Slot { return m.slots[j.s0 : j.s0+j.ns : j.s0+j.ns] }

// place places every replica of j on s with the scheduler's placement,
// recording its slots (see placeJob).
func (m *sim) place(s *State, j *jobState) bool {
	prev := m.cur
	m.cur = j
	var ok bool
	if m.bound != nil {
		ok = m.bound.place(s, m.sched.Consolidate, m.asksOf(j), m.repsOf(j), m.slotsOf(j))
	} else {
		ok = placeJob(s, m.sched.Placement, m.gc, m.sched.Consolidate, m.asksOf(j), m.repsOf(j), m.slotsOf(j))
	}
	m.cur = prev
	return ok
}

func resolve(r *Request, models map[string]int) Ask {
	a := Ask{CPU: r.CPU, Mem: r.Mem, GPUs: r.GPUs, Milli: MilliPerGPU, models: allModels}
	switch {
	case r.Shared():
		a.Shared, a.Milli = true, r.GPUMilli
	case r.pooled():
		a.Milli = r.GPUMilli // one quantity: only a GPU pool holds it (Fits)
	}
	if len(r.Models) > 0 {
		a.models = 0
		for _, name := range r.Models {
			if k, ok := models[strings.ToLower(name)]; ok {
				a.models |= 1 << k
			}
		}
	}
	return a
}

const never = Time(1<<62 - 1)

// watch has the event loop stop when ctx is done (m.stopped its error):
// nothing to look at for a context that cannot be.
func (m *sim) watch(ctx context.Context) {
	if ctx.Done() != nil {
		m.ctx, m.ctxDone = ctx, ctx.Done()
	}
}

// run is the event loop.
func (m *sim) run() {
	for m.err() == nil {
		if m.ctx != nil {
			// an interrupt, looked for at every event (a pass of
			// conservative backfilling over a long queue on many nodes can
			// take a second)
			select {
			case <-m.ctxDone:
				m.stopped = m.ctx.Err()
				return
			default:
			}
		}
		t := never
		a := m.upcoming()
		if a != nil {
			t = a.Job.Submit
		}
		if len(m.done) > 0 && m.done[0].end <= t {
			t = m.done[0].end
		}
		if t == never {
			break
		}
		if t < m.now {
			panic(fmt.Sprintf("scheduler: event at %d before now %d", t, m.now))
		}
		m.advance(t)
		for len(m.done) > 0 && m.done[0].end == t {
			j := m.done.pop()
			m.cur = j
			m.finish(j)
		}
		for ; a != nil && a.Job.Submit == t; a = m.upcoming() {
			m.taken()
			m.cur = a
			m.arrive(a)
		}
		m.cur = nil
		m.pass()
		m.sample()
		if m.str != nil {
			m.emit()
		}
	}
	// With every job checked against the empty cluster on arrival, the
	// queue drains. A job of one replica left here is a placement that
	// refused what the empty cluster fits (fitsEmpty asks no placement for
	// it: a placement answers -1 only when no node fits), a defect that
	// must not pass as unschedulable. A gang's fit is the placement's own
	// choices, which a random or stateful placement may make differently
	// at the end than on arrival: it is unschedulable under that placement,
	// and so are the jobs queued behind it where the order held them back
	// (without backfilling, or EASY's and conservative's jobs that do not
	// fit now). (A job of one replica ahead of every gang left is the
	// queue's head.)
	if j := m.queue; m.err() == nil && len(j) > 0 && m.oneReplica(j[0]) {
		m.stranded = fmt.Errorf("scheduler %s: placement %s left job %d queued at the end, though the empty cluster fits it: a defect of the placement, not of the trace",
			m.sched.Name(), m.sched.Placement.Name(), j[0].Job.ID)
	}
	for _, j := range m.queue {
		j.status, j.over = Unschedulable, true
		// a gang the placement does not place on the empty cluster (a
		// cursor's or a draw's doing) and first-fit does: refused by it;
		// the jobs it held back are not
		if m.err() == nil && m.stranded == nil && !m.oneReplica(j) && !m.fits(&m.empty, j) && m.firstFitsEmpty(j) {
			j.refused = true
		}
	}
	m.queue = nil
}

// upcoming is the next job to arrive, or nil when none is left.
func (m *sim) upcoming() *jobState {
	if m.str != nil {
		return m.str.upcoming(m)
	}
	if m.next < len(m.jobs) {
		return &m.jobs[m.next]
	}
	return nil
}

// taken moves past the upcoming job, which arrives now.
func (m *sim) taken() {
	if m.str != nil {
		m.str.taken()
		return
	}
	m.next++
}

// err is what stopped a streamed simulation: its source's or sink's error.
func (m *sim) err() error {
	if m.str != nil {
		return m.str.err
	}
	return nil
}

// advance moves the clock to t, integrating the cluster's use.
func (m *sim) advance(t Time) {
	if m.began {
		dt := float64(t - m.lastT)
		m.area[0] += float64(m.usedCPU) * dt
		m.area[1] += float64(m.usedMem) * dt
		m.area[2] += float64(m.usedGPU) * dt
	}
	m.now, m.lastT = t, t
}

func (m *sim) arrive(j *jobState) {
	j.Estimate = m.userCapped(j, m.sched.Estimator.Estimate(j.Job))
	if m.fine != nil {
		// (held to the kill as the estimate is: SJF's order among jobs
		// capped alike would be their uncapped estimates')
		j.Fine = m.fine.Fine(j.Job)
		if u, ok := m.userLimit(j); ok && j.Fine > float64(u) {
			j.Fine = float64(u)
		}
	}
	if j.Estimate < 0 {
		panic(&violation{"estimator", -1, fmt.Sprintf("gave a negative estimate (%d)", j.Estimate)})
	}
	checkEstimate(j.Estimate)
	if !m.fitsEmpty(j) {
		j.status, j.over = Unschedulable, true
		return
	}
	// Insert after every queued job that is not served after j. The
	// queue is in order (each job inserted so, none's key changing while
	// it waits), so the place is found by binary search; a job that joins
	// the back, as under FIFO, is found at once.
	if !m.orderChecked {
		// a cheap look at the order's one promise the search relies on:
		// no job comes before itself (a Less always true ran to the end
		// with the queue in no order: a reviewer's find)
		m.orderChecked = true
		if m.sched.Order.Less(&j.Entry, &j.Entry) {
			m.cur = j
			panic(&violation{"queue order", -1, "puts a job before itself (its Less(a, a) is true): Less must be a strict weak order, false for equal jobs"})
		}
	}
	n := len(m.queue)
	i := n
	if n > 0 && m.sched.Order.Less(&j.Entry, &m.queue[n-1].Entry) {
		i = sort.Search(n-1, func(k int) bool { return m.sched.Order.Less(&j.Entry, &m.queue[k].Entry) })
	}
	m.queue = slices.Insert(m.queue, i, j)
	m.queueCPU = min(m.queueCPU, j.cpu)
}

// bindPlacement makes the simulation place with its JobPlacement and the
// job in view: the bound placement, given the job's asks, finds the job
// (see JobPlacement).
func (m *sim) bindPlacement() {
	b := &boundPlacement{jp: m.jp, gc: m.gc, est: m.placed, free: m.free, names: m.models, jobOf: make(map[*Ask]*Job, len(m.jobs))}
	for i := range m.jobs {
		b.jobOf[&m.asksOf(&m.jobs[i])[0]] = m.jobs[i].Job
	}
	m.bound = b
}

// fitsEmpty reports whether j could be placed on the empty cluster. A
// job of one replica fits wherever one node holds it, whichever node the
// placement would choose (a placement answers -1 only when no node fits),
// so it is checked without asking the placement: scoring every node (FGD)
// for each arrival cost more than the whole schedule. A gang asks the
// placement, whose choices decide whether the rest still fits (on the
// empty cluster gpu-clustering sees no running job's tags: State.idle).
// Where it refuses and first-fit places the gang, a placement with memory
// (a Committer: round-robin's cursor) or that draws (random) may place it
// at another moment: it is queued; any other placement refuses it at
// every moment, and it is unschedulable, counted as the placement's
// refusal (Summary.PlacementRefused).
func (m *sim) fitsEmpty(j *jobState) bool {
	if m.oneReplica(j) {
		a := &m.asksOf(j)[0]
		for i := 0; i < m.empty.Len(); i++ {
			if m.empty.Fits(i, a) {
				return true
			}
		}
		return false
	}
	if m.fits(&m.empty, j) {
		return true
	}
	if !m.firstFitsEmpty(j) {
		return false
	}
	if m.commit != nil || m.draws {
		return true // a placement with memory (a Committer's cursor) or draws
	}
	j.refused = true
	return false
}

// firstFitsEmpty reports whether first-fit places j on the empty cluster.
func (m *sim) firstFitsEmpty(j *jobState) bool {
	slots := m.slotsOf(j)
	if !placeJob(&m.empty, FirstFit{}, m.gc, m.sched.Consolidate, m.asksOf(j), m.repsOf(j), slots) {
		return false
	}
	releaseAll(&m.empty, slots)
	return true
}

// oneReplica says whether j is one replica of one task (no gang).
func (m *sim) oneReplica(j *jobState) bool {
	reps := m.repsOf(j)
	return len(reps) == 1 && reps[0] == 1
}

// fits reports whether j could be placed on s, leaving s unchanged.
func (m *sim) fits(s *State, j *jobState) bool {
	if !m.place(s, j) {
		return false
	}
	releaseAll(s, m.slotsOf(j))
	return true
}

func releaseAll(s *State, slots []Slot) {
	for k := range slots {
		s.release(&slots[k])
	}
}

func applyAll(s *State, slots []Slot) {
	for k := range slots {
		s.apply(&slots[k])
	}
}

// start runs j from now on; its slots are already taken in m.st.
func (m *sim) start(j *jobState) {
	prev := m.cur
	m.cur = j
	m.starts++
	j.started = true
	j.start = m.now
	run := j.Job.Run
	if len(j.Job.RunOn) > 0 || len(j.Job.RunSpanning) > 0 || m.placed != nil {
		run = m.placedRun(j)
	}
	j.end = m.now + run
	if lim, ok := m.killLimit(j); ok && lim < run {
		j.end, j.killed = m.now+lim, true
	}
	j.expEnd0 = m.now + j.Estimate
	m.freeCPU -= j.cpu
	m.usedCPU += j.cpu
	m.usedMem += j.mem
	m.usedGPU += j.gpu
	slots := m.slotsOf(j)
	if m.commit != nil {
		for k := range slots {
			m.commit.Commit(int(slots[k].Node))
		}
	}
	if m.track != nil {
		for k := range slots {
			m.track.Placed(&slots[k])
		}
	}
	i, _ := slices.BinarySearchFunc(m.running, j, byExpEnd)
	m.running = slices.Insert(m.running, i, j)
	m.done.push(j)
	m.cur = prev
}

// byExpEnd orders running jobs by expected end, then ID, then their place
// in the simulation's arrays (a0, unique to each job, in load order): two
// jobs of one ID (submitted at different times, as the API allows) ending
// alike were one key, and finishing one deleted the other from the list (a
// reviewer's find).
func byExpEnd(a, b *jobState) int {
	return cmp.Or(cmp.Compare(a.expEnd0, b.expEnd0), cmp.Compare(a.Job.ID, b.Job.ID), cmp.Compare(a.a0, b.a0))
}

// placedRun is j's run time on the GPUs it was placed on (the slowest
// model's, per Job.RunOn, or Job.RunSpanning where they lie on more than
// one node), and, with a placement estimator, sets its estimate for them.
func (m *sim) placedRun(j *jobState) Time {
	slots := GPUSlots(m.slotsOf(j))
	across := spans(j, slots)
	run := Time(-1)
	for _, sl := range slots {
		t, ok := j.Job.RunOnModel(strings.ToLower(m.cl.Nodes[sl.Node].Model), across)
		if !ok {
			t = j.Job.Run // a model the job lists no time for runs at Run (Job.RunOn)
		}
		run = max(run, t)
	}
	if run < 0 {
		run = j.Job.Run
	}
	if e, ok := m.estimateOn(j, slots); ok {
		j.Estimate = e
	}
	return run
}

// slotEstimate is the placement estimator's estimate for j on the nodes of
// its slots (the slowest model's, when they span several; its
// EstimateSpanning where they are more than one node and the job has
// run times for that, Job.RunSpanning), as placedRun takes its run time
// from all of them; false without a placement estimator, or for a job
// whose estimate does not depend on where it runs (PlacementFree).
func (m *sim) slotEstimate(j *jobState) (Time, bool) {
	return m.estimateOn(j, GPUSlots(m.slotsOf(j)))
}

// estimateOn is slotEstimate on slots, j's slots that hold its GPUs
// (GPUSlots).
func (m *sim) estimateOn(j *jobState, slots []Slot) (Time, bool) {
	if m.placed == nil || len(slots) == 0 {
		return 0, false
	}
	if m.free != nil && m.free.PlacementFree(j.Job) {
		return 0, false // the estimate it queued with stands
	}
	var models []string
	gpus := 0
	for k := range slots {
		sl := &slots[k]
		gpus += sl.GPUs()
		if model := strings.ToLower(m.cl.Nodes[sl.Node].Model); !slices.Contains(models, model) {
			models = append(models, model)
		}
	}
	on := m.placed.EstimateOn
	if m.spanning != nil && spans(j, slots) {
		on = m.spanning.EstimateSpanning
	}
	est := Time(-1)
	for _, model := range models {
		est = max(est, checkEstimate(on(j.Job, model, gpus)))
	}
	if est >= 0 {
		est = m.userCapped(j, est)
	}
	return est, est >= 0
}

// userCapped is est held to j's user estimate where the scheduler kills a
// job there (KillAtUserLimit): the job holds its resources no longer,
// whatever an estimator says (exact's run time past the limit made EASY's
// shadow and conservative's reservations too long: a reviewer's find). A
// negative est is left for the checks to refuse.
func (m *sim) userCapped(j *jobState, est Time) Time {
	if u, ok := m.userLimit(j); ok && est > u {
		return u
	}
	return est
}

// userLimit is j's user estimate where the scheduler kills a job there
// (KillAtUserLimit; an estimate of 0 is none), and whether it does.
func (m *sim) userLimit(j *jobState) (Time, bool) {
	return j.Job.UserEstimate, m.sched.KillAtUserLimit && j.Job.UserEstimate > 0
}

// checkEstimate is e, an estimator's answer, where it is within the
// simulator's horizon (MaxTime); past it, a start plus the estimate could
// overflow, and the simulation ends with an error naming the estimator.
func checkEstimate(e Time) Time {
	if e > MaxTime {
		panic(&violation{"estimator", -1, fmt.Sprintf("gave an estimate of %d s, past the simulator's horizon of %d s (2^50)", e, MaxTime)})
	}
	return e
}

// spans reports whether j has run times across nodes (Job.RunSpanning) and
// slots, those of its GPUs (GPUSlots), lie on more than one node, so that
// they apply.
func spans(j *jobState, slots []Slot) bool {
	return len(j.Job.RunSpanning) > 0 && NodesTouched(slots) > 1
}

// GPUSlots are the slots of slots that hold a GPU, where some do and some
// do not (a job's CPU-only replicas, a parameter server say), else slots:
// a job's run times are those of its GPUs' models and nodes (Job.RunOn,
// Job.RunSpanning), and the node a CPU-only replica lands on set them (a
// reviewer's find: a V100 job ran at a K80's pace where its parameter
// server sat on a K80 node).
func GPUSlots(slots []Slot) []Slot {
	with := 0
	for k := range slots {
		if slots[k].GPUs() > 0 {
			with++
		}
	}
	if with == 0 || with == len(slots) {
		return slots
	}
	out := make([]Slot, 0, with)
	for k := range slots {
		if slots[k].GPUs() > 0 {
			out = append(out, slots[k])
		}
	}
	return out
}

// NodesTouched is the number of distinct nodes slots lie on.
func NodesTouched(slots []Slot) int {
	if len(slots) > 16 {
		seen := make(map[int32]bool, len(slots))
		for _, s := range slots {
			seen[s.Node] = true
		}
		return len(seen)
	}
	n := 0
	for i := range slots {
		if !slices.ContainsFunc(slots[:i], func(s Slot) bool { return s.Node == slots[i].Node }) {
			n++
		}
	}
	return n
}

// killLimit is how long j may run before it is killed, if the scheduler
// kills: its user estimate (SWF field 9, where the trace has one) and k ×
// the estimate it started with, whichever is shorter. An estimate of 0 is
// no estimate (user-mean's for a user with no job ended yet), and the
// factor does not kill a job that started with none.
func (m *sim) killLimit(j *jobState) (Time, bool) {
	lim, ok := m.userLimit(j)
	if k := m.sched.KillFactor; k > 0 && j.Estimate > 0 {
		// in float, clamped: k × a long estimate may pass MaxTime
		if l := Time(min(math.Ceil(k*float64(j.Estimate)), float64(MaxTime))); !ok || l < lim {
			lim, ok = l, true
		}
	}
	return lim, ok
}

// finish ends j at now and frees its resources.
func (m *sim) finish(j *jobState) {
	m.endedAt = m.now
	if j.end < j.start+max(j.Estimate, 1) { // before its estimate: room no reservation counted on
		m.earlyAt = m.now
	}
	slots := m.slotsOf(j)
	releaseAll(&m.st, slots)
	if m.track != nil {
		for k := range slots {
			m.track.Released(&slots[k])
		}
	}
	m.freeCPU += j.cpu
	m.usedCPU -= j.cpu
	m.usedMem -= j.mem
	m.usedGPU -= j.gpu
	i, ok := slices.BinarySearchFunc(m.running, j, byExpEnd)
	if !ok {
		panic(fmt.Sprintf("scheduler: finishing job %d that is not running", j.Job.ID))
	}
	m.running = slices.Delete(m.running, i, i+1)
	j.status, j.over = Done, true
	if j.killed {
		j.status = Killed
	}
	if m.observe != nil {
		m.observe.Observe(j.Job, j.start, j.end)
	}
}

// reestimateOverruns gives every running job that has outlived its
// estimate a new one where the estimator has a rule for it, keeping the
// running jobs in order.
func (m *sim) reestimateOverruns() {
	k := 0
	for k < len(m.running) && m.running[k].expEnd0 <= m.now {
		k++
	}
	if k == 0 {
		return
	}
	// a job past its estimate, whatever its new one: the conservative
	// reservations made on its end are void (Conservative.compress)
	m.overranAt = m.now
	changed := false
	for _, j := range m.running[:k] {
		elapsed := m.now - j.start
		m.cur = j
		if e := m.userCapped(j, checkEstimate(m.reestimate.Reestimate(j.Job, j.Estimate, elapsed))); e > elapsed {
			j.Estimate, j.expEnd0 = e, j.start+e
			changed = true
		}
	}
	m.cur = nil
	if changed {
		slices.SortFunc(m.running, byExpEnd)
	}
}

// pass is one scheduling pass: serve the queue's head while it fits, then
// let the backfill rule start others.
func (m *sim) pass() {
	if m.reestimate != nil {
		m.reestimateOverruns()
	}
	// conservative backfilling on one node starts jobs at their
	// reservations alone: a head that fits now may not start before a job
	// behind it reserved in a hole it would cover
	compress := m.compressing()
	h := 0
	for !compress && m.batch == nil && h < len(m.queue) {
		j := m.queue[h]
		if j.cpu > m.freeCPU || !m.place(&m.st, j) {
			break
		}
		m.start(j)
		h++
	}
	if h > 0 {
		n := copy(m.queue, m.queue[h:])
		clear(m.queue[n:])
		m.queue = m.queue[:n]
	}
	if m.batch != nil && len(m.queue) > 0 {
		m.batchPass()
	}
	if len(m.queue) < 2 && !(compress && len(m.queue) == 1) {
		return
	}
	before := m.starts
	m.sched.Backfill.backfill(m)
	if m.starts != before {
		m.dropStarted()
	}
}

// dropStarted removes the jobs that have started from the queue, keeping
// the others in order, and counts a pass over each queued job that a job
// behind it overtook.
func (m *sim) dropStarted() {
	later := false
	for i := len(m.queue) - 1; i >= 0; i-- {
		if j := m.queue[i]; j.started {
			later = true
		} else if later {
			j.passedOver++
		}
	}
	q := m.queue[:0]
	for _, j := range m.queue {
		if !j.started {
			q = append(q, j)
		}
	}
	clear(m.queue[len(q):])
	m.queue = q
}

// batchPass hands the queue to the batch placement and starts the jobs
// whose every replica it gives a node, in queue order, taking the
// replicas in order; the others stay queued.
func (m *sim) batchPass() {
	w, n := m.waiting[:0], 0
	asks, reps := m.waitAsks[:0], m.waitReps[:0]
	for _, j := range m.queue {
		asks = append(asks, m.asksOf(j)...)
		reps = append(reps, m.repsOf(j)...)
		n += int(j.ns)
	}
	m.waitAsks, m.waitReps = asks, reps
	for _, j := range m.queue {
		na := len(m.asksOf(j))
		w = append(w, Waiting{Job: j.Job, Asks: asks[:na:na], Reps: reps[:na:na]})
		asks, reps = asks[na:], reps[na:]
	}
	m.waiting = w
	if cap(m.nodes) < n {
		m.nodes = make([]int32, n)
	}
	nodes := m.nodes[:n]
	m.batch.PlaceBatch(&m.st, w, nodes)
	clear(w)
	// an answer below -1 is no node, as Choose's is (it was read as -1,
	// the job left queued: a reviewer's find)
	k := 0
	for _, j := range m.queue {
		r := len(m.slotsOf(j))
		for _, v := range nodes[k : k+r] {
			if v < -1 {
				m.cur = j
				panic(notANode(&m.st, int(v), "a replica"))
			}
		}
		k += r
	}
	k, started := 0, false
	for _, j := range m.queue {
		slots, reps := m.slotsOf(j), m.repsOf(j)
		r := len(slots)
		if !allAssigned(nodes[k : k+r]) {
			k += r
			continue
		}
		s := 0
		asks := m.asksOf(j)
		for t := range asks {
			a := &asks[t]
			for range reps[t] {
				i := int(nodes[k])
				if i >= m.st.Len() || !m.st.Fits(i, a) {
					m.cur = j
					panic(misplaced(&m.st, i, a, "a replica"))
				}
				slots[s] = m.st.take(i, a)
				s++
				k++
			}
		}
		m.start(j)
		started = true
	}
	if started {
		// jobs a conservative reservation did not start: the next
		// compression is made, this pass's included (Conservative.compress)
		m.settled, m.batchAt = false, m.now
		m.dropStarted()
	}
}

// compressing says whether the pass is conservative backfilling on a
// cluster of one node (a processor pool, or one machine), whose
// reservations persist from pass to pass (Conservative.compress).
func (m *sim) compressing() bool {
	_, ok := m.sched.Backfill.(Conservative)
	return ok && len(m.cl.Nodes) == 1
}

// onePool reports whether the cluster is a processor pool and every job
// one replica asking for processors only, so that the backfill rules can
// count processors instead of placing replicas.
func (m *sim) onePool() bool { return m.pool }

// runningByEnd lists the running jobs by (expected end, id).
func (m *sim) runningByEnd() []endEntry {
	b := m.byEnd[:0]
	// The jobs that have outlived their estimate all end "at now + 1", as
	// do those whose estimate ends then: that prefix is ordered by id.
	k := 0
	for k < len(m.running) && m.running[k].expEnd0 <= m.now+1 {
		k++
	}
	for _, j := range m.running[:k] {
		b = append(b, endEntry{m.now + 1, j})
	}
	slices.SortFunc(b, func(x, y endEntry) int { return cmp.Compare(x.j.Job.ID, y.j.Job.ID) })
	for _, j := range m.running[k:] {
		b = append(b, endEntry{j.expEnd0, j})
	}
	m.byEnd = b
	return b
}

// hooks are called, when set, with what the backfill rules decided.
type hooks struct {
	shadow  func(head *Job, shadow Time) // EASY: the head's shadow time
	reserve func(j *Job, at Time)        // conservative: a reservation
}

// compHeap is a min-heap of running jobs by (end, id).
type compHeap []*jobState

func (h compHeap) less(i, k int) bool {
	if h[i].end != h[k].end {
		return h[i].end < h[k].end
	}
	return h[i].Job.ID < h[k].Job.ID
}

func (h *compHeap) push(j *jobState) {
	*h = append(*h, j)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !s.less(i, p) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *compHeap) pop() *jobState {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s[n] = nil
	s = s[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		c := l
		if r := l + 1; r < n && s.less(r, l) {
			c = r
		}
		if !s.less(c, i) {
			break
		}
		s[i], s[c] = s[c], s[i]
		i = c
	}
	*h = s
	return top
}
