package scheduler

import "slices"

var (
	_ Backfill = NoBackfill{}
	_ Backfill = EASY{}
	_ Backfill = Conservative{}
)

// NoBackfill starts nothing past a head that does not fit (plain FCFS when
// the order is FIFO).
type NoBackfill struct{}

// Name implements Backfill.
func (NoBackfill) Name() string { return "none" }

func (NoBackfill) backfill(*sim) {}

// EASY is aggressive backfilling (Lifka 1995; Mu'alem and Feitelson 2001).
// When the head H does not fit, the running jobs are walked by (expected
// end, id), their resources added to the free ones until H fits: the
// expected end of the job that made it fit is the shadow time, and what is
// free at the shadow time (every job expected to end by then released) is
// the shadow state. The rest of the queue is scanned in order; a job starts
// now if it fits now and either is expected to end by the shadow time, or,
// placed in the shadow state too, leaves room there for H; only in the
// second case does it stay in the shadow state.
//
// On a processor pool this is the classic rule: with extra = processors free
// at the shadow time minus H's, job j starts iff j.procs ≤ free and
// (now + j.estimate ≤ shadow or j.procs ≤ extra), and extra −= j.procs when
// only the second held. The expected end of a job started at s is
// s + estimate, or now + 1 once that has passed. Nothing persists between
// passes but the queue and the running jobs.
type EASY struct{}

// Name implements Backfill.
func (EASY) Name() string { return "easy" }

func (EASY) backfill(m *sim) {
	head := m.queue[0]
	if m.onePool() {
		easyPool(m, head)
		return
	}
	sh := &m.scratch
	sh.copyFrom(&m.st)
	shadow := Time(-1)
	for _, e := range m.runningByEnd() {
		if shadow >= 0 && e.end != shadow {
			break
		}
		releaseAll(sh, e.j.slots)
		if shadow < 0 && m.fits(sh, head) {
			shadow = e.end
		}
	}
	if shadow < 0 {
		// The head fits the empty cluster (checked on arrival) but not the
		// cluster with everything released: a placement policy that is
		// not monotone. Nothing can be reserved for it; start nothing.
		return
	}
	if m.hooks != nil {
		m.hooks.shadow(head.Job, shadow)
	}
	for _, j := range m.queue[1:] {
		if j.cpu > m.freeCPU {
			continue
		}
		if !placeJob(&m.st, m.sched.Placement, j.asks, j.reps, j.slots) {
			continue
		}
		// On a heterogeneous cluster the job's estimate is the one for the
		// GPUs this placement gives it.
		est := j.Estimate
		if e, ok := m.slotEstimate(j); ok {
			est = e
		}
		if m.now+est <= shadow {
			m.start(j)
		} else {
			applyAll(sh, j.slots)
			if m.fits(sh, head) {
				m.start(j)
			} else {
				releaseAll(sh, j.slots)
				releaseAll(&m.st, j.slots)
			}
		}
	}
}

// easyPool is EASY on a processor pool whose jobs all have one replica:
// the contract's arithmetic on processor counts.
func easyPool(m *sim, head *jobState) {
	free := m.freeCPU
	shadow := Time(-1)
	for _, e := range m.runningByEnd() {
		if shadow >= 0 && e.end != shadow {
			break
		}
		free += e.j.cpu
		if shadow < 0 && free >= head.cpu {
			shadow = e.end
		}
	}
	if shadow < 0 {
		return
	}
	if m.hooks != nil {
		m.hooks.shadow(head.Job, shadow)
	}
	extra := free - head.cpu
	for _, j := range m.queue[1:] {
		if j.cpu > m.freeCPU {
			continue
		}
		switch {
		case m.now+j.Estimate <= shadow:
		case j.cpu <= extra:
			extra -= j.cpu
		default:
			continue
		}
		j.slots[0] = m.st.take(0, &j.asks[0])
		m.start(j)
		if m.freeCPU == 0 {
			break
		}
	}
}

// Conservative is conservative backfilling (Mu'alem and Feitelson 2001)
// recomputed at every pass: from the running jobs' expected ends it builds
// the profile of free capacity from now on; then each queued job, in order,
// is reserved at the earliest s ≥ now where the profile holds it over
// [s, s + max(estimate, 1)), and its reservation is taken out of the
// profile. A job whose reservation is now starts now. No job can start in
// a way that delays an earlier job's reservation. On a cluster of nodes a
// reservation is a placement found in the least free capacity over its
// interval, so it holds throughout.
type Conservative struct{}

// Name implements Backfill.
func (Conservative) Name() string { return "conservative" }

// profile is the free capacity of the cluster from now on, a step function:
// state k holds over [times[k], times[k+1]).
type profile struct {
	times []Time
	free  []nodeFree // len(times) states of n nodes each
	total []total    // each state's free capacity summed over its nodes
	n     int
	info  []nodeInfo
}

// total is free capacity summed over nodes: a job asking for more than a
// state's total cannot fit it, which is quicker to see than placing it.
type total struct {
	cpu MilliCPU
	mem MiB
	gpu MilliGPU
}

func (t *total) add(j *jobState, sign int64) {
	t.cpu += MilliCPU(sign) * j.cpu
	t.mem += MiB(sign) * j.mem
	t.gpu += MilliGPU(sign) * j.gpu
}

func (t *total) holds(j *jobState) bool {
	return j.cpu <= t.cpu && j.mem <= t.mem && j.gpu <= t.gpu
}

// view points s at state k (no copy): changes to s change the profile.
func (p *profile) view(k int, s *State) *State {
	s.info, s.free = p.info, p.free[k*p.n:(k+1)*p.n:(k+1)*p.n]
	return s
}

// at returns the index of the breakpoint at t, inserting one (a copy of the
// state before it) if there is none; t is after times[0].
func (p *profile) at(t Time) int {
	k, found := slices.BinarySearch(p.times, t)
	if found {
		return k
	}
	p.times = slices.Insert(p.times, k, t)
	p.total = slices.Insert(p.total, k, p.total[k-1])
	prev := p.free[(k-1)*p.n : k*p.n]
	p.free = slices.Insert(p.free, k*p.n, prev...)
	return k
}

func (Conservative) backfill(m *sim) {
	p := &m.prof
	p.n, p.info = len(m.st.free), m.st.info
	p.times = append(p.times[:0], m.now)
	p.free = append(p.free[:0], m.st.free...)
	cpu, mem, gpu := m.cl.Capacity()
	p.total = append(p.total[:0], total{cpu - m.usedCPU, mem - m.usedMem, gpu - m.usedGPU})
	for _, e := range m.runningByEnd() {
		last := len(p.times) - 1
		if e.end != p.times[last] {
			p.times = append(p.times, e.end)
			p.free = append(p.free, p.free[last*p.n:(last+1)*p.n]...)
			p.total = append(p.total, p.total[last])
			last++
		}
		releaseAll(p.view(last, &m.view), e.j.slots)
		p.total[last].add(e.j, +1)
	}

	// The head was served already when it fit; it still needs its
	// reservation. Jobs that cannot start now are only reserved while a
	// later job might still start now.
	pool := m.onePool()
	var minCPU []MilliCPU
	if pool {
		minCPU = m.suffixMinCPU()
	}
	for qi, j := range m.queue {
		if pool && p.free[0].cpu < minCPU[qi] {
			break // no job from here on fits what is free now
		}
		k := m.reserve(j)
		if m.hooks != nil {
			m.hooks.reserve(j.Job, p.times[k])
		}
		if k == 0 {
			applyAll(&m.st, j.slots)
			m.start(j)
		}
	}
}

// suffixMinCPU returns, for each queue position, the least CPU any job from
// there on asks for.
func (m *sim) suffixMinCPU() []MilliCPU {
	out := slices.Grow(m.minCPU[:0], len(m.queue))[:len(m.queue)]
	m.minCPU = out
	least := MilliCPU(1<<62 - 1)
	for i := len(m.queue) - 1; i >= 0; i-- {
		least = min(least, m.queue[i].cpu)
		out[i] = least
	}
	return out
}

// reserve finds j's earliest reservation in the profile, takes it out of
// the profile, records the placement in j.slots and returns the index of
// the breakpoint it starts at.
func (m *sim) reserve(j *jobState) int {
	p := &m.prof
	d := max(j.Estimate, 1)
	if m.onePool() {
		return m.reservePool(j, d)
	}
	low := &m.scratch
	for i := 0; i < len(p.times); {
		si := p.view(i, &m.view)
		if !p.total[i].holds(j) || !m.fits(si, j) {
			i++
			continue
		}
		end := p.times[i] + d
		low.copyFrom(si)
		k := i + 1
		for ; k < len(p.times) && p.times[k] < end; k++ {
			sk := p.view(k, &m.view)
			if !p.total[k].holds(j) || !m.fits(sk, j) {
				break
			}
			low.minWith(sk)
		}
		if k < len(p.times) && p.times[k] < end {
			i = k + 1 // state k alone cannot hold j: no start up to k can
			continue
		}
		if !placeJob(low, m.sched.Placement, j.asks, j.reps, j.slots) {
			i++
			continue
		}
		e := p.at(end)
		for k := i; k < e; k++ {
			applyAll(p.view(k, &m.view), j.slots)
			p.total[k].add(j, -1)
		}
		return i
	}
	// The last state of the profile is the empty cluster, which holds every
	// queued job.
	panic("scheduler: conservative: no reservation for job in the empty cluster")
}

// reservePool is reserve for a one-replica job on a processor pool, where
// the profile is one number per breakpoint.
func (m *sim) reservePool(j *jobState, d Time) int {
	p := &m.prof
	need := j.cpu
	for i := 0; i < len(p.times); {
		if p.free[i].cpu < need {
			i++
			continue
		}
		end := p.times[i] + d
		k := i + 1
		for k < len(p.times) && p.times[k] < end && p.free[k].cpu >= need {
			k++
		}
		if k < len(p.times) && p.times[k] < end {
			i = k + 1
			continue
		}
		e := p.at(end)
		for k := i; k < e; k++ {
			p.free[k].cpu -= need
			p.total[k].add(j, -1)
		}
		j.slots[0] = Slot{Node: 0, Shared: -1, CPU: need}
		return i
	}
	panic("scheduler: conservative: no reservation for job in the empty pool")
}
