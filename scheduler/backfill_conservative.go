package scheduler

import (
	"cmp"
	"slices"
	"sync/atomic"
)

var _ Backfill = Conservative{}

// Conservative is conservative backfilling (Mu'alem and Feitelson 2001).
// Every queued job holds a reservation: the earliest start s ≥ now where
// the profile of free capacity (the running jobs until their expected
// ends, and the other reservations) holds it over [s, s + max(estimate,
// 1)); a job whose reservation is now starts now, and no job starts in a
// way that delays another's reservation.
//
// On a cluster of one node (a processor pool, or one machine) it keeps
// each queued job's reservation from pass to pass and compresses them as
// jobs end (sim.compress): at an end each, in queue order (arrival order
// under fifo, sjf's under sjf), is moved up into the room the others
// leave, the later jobs' reservations still in place, so that a job that
// ends early does so for the jobs behind it too and no reservation moves
// later. That is Mu'alem and Feitelson's compression, made at every end as
// batsched's conservative_bf makes it (they compress at an early end,
// their scheduler acting at any reservation's start; this one acts at
// arrivals and ends). A running job that outlives its estimate, or a batch
// placement's start (ga), voids every reservation: they are made afresh
// in queue order. scheduler/internal/reference holds the same algorithm
// on a pool, written plainly (and scripts/swf_reference.py in Python), and
// the tests compare them job by job.
//
// On a cluster of several nodes a reservation is a placement found in the
// least free capacity over its interval, and every pass reserves afresh,
// in queue order, from the running jobs alone: a reservation is not kept
// from pass to pass, so a job that ended before its estimate may let a job
// ahead move into room a job behind it held, which then starts later than
// first reserved (with exact estimates none does, a job's window on GPU
// models of several speeds being what its placement runs: TestConservative
// FasterPlacementReserved), and the placement may put a gang later than
// before.
type Conservative struct{}

// Name implements Backfill.
func (Conservative) Name() string { return "conservative" }

// reserveEveryJob turns the early end of a pass on nodes off, and
// placeEveryWindow makes reserve take every start's least free capacity
// afresh, as for a RandomChooser (each set by a test alone, which compares
// the schedules with and without it); earlyEnds counts the passes ended
// early.
var (
	reserveEveryJob  bool
	placeEveryWindow bool
	earlyEnds        atomic.Int64
)

func (Conservative) backfill(m *sim) {
	if m.onePool() {
		// (a pool is one node: compressed, on processors alone)
		m.poolProfile()
		m.compress()
		return
	}
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
		releaseAll(p.view(last, &m.view), m.slotsOf(e.j))
		p.total[last].add(e.j, +1)
	}

	if m.compressing() {
		m.compress()
		return
	}

	// The head was served already when it fit; it still needs its
	// reservation. Jobs that cannot start now are only reserved while a
	// later job might still start now.
	var least []total
	if !m.draws && !reserveEveryJob {
		// on nodes the same, by what is free now summed over the nodes (a
		// job asking for more than that in any resource fits no node); a
		// placement that draws in what-if placements too (RandomChooser) is
		// left to draw as it did, every job reserved
		least = m.suffixMinTotal()
	}
	// On nodes, the last queued job that fits what is free now, placed (a
	// job may ask for less than the free capacity summed and fit no node):
	// what is free now only shrinks as the pass starts jobs, and a job of
	// one ask (its replicas alike) that does not fit it cannot fit less, so
	// none after it can start in this pass, and their reservations, which
	// only hold back later jobs, need not be made. A job of several asks is
	// placed task by task, greedily, and may fit less where it did not fit
	// more (a node filled sends its first task elsewhere, leaving room for
	// the second): it counts as fitting. Sought from the end, down from the
	// first job the sums already rule out: each job it passes over is one
	// the pass would have reserved, at the cost of that same check first.
	lastFit := len(m.queue) - 1
	if least != nil {
		bound := len(m.queue)
		for qi := range m.queue {
			if p.total[0].cpu < least[qi].cpu || p.total[0].mem < least[qi].mem || p.total[0].gpu < least[qi].gpu {
				bound = qi // (the sums' minima only grow along the queue)
				break
			}
		}
		s0 := p.view(0, &m.view)
		for lastFit = bound - 1; lastFit >= 0; lastFit-- {
			if j := m.queue[lastFit]; len(m.asksOf(j)) > 1 || (p.total[0].holds(j) && m.fits(s0, j)) {
				break
			}
		}
	}
	for qi, j := range m.queue {
		if least != nil && qi > lastFit {
			earlyEnds.Add(1)
			break
		}
		k, _ := m.reserve(j)
		if k < 0 {
			// a gang its placement splits otherwise now than on arrival: no
			// reservation this pass (it delays no one), perhaps the next
			continue
		}
		if m.hooks != nil {
			m.hooks.reserve(j.Job, p.times[k])
		}
		if k == 0 {
			applyAll(&m.st, m.slotsOf(j))
			m.start(j)
		}
	}
}

// compress is conservative backfilling as Mu'alem and Feitelson define it,
// with compression, on a cluster of one node (a processor pool, or one
// machine). A queued job's reservation persists from pass to pass. A new
// job is reserved at the earliest start the running jobs and the other
// reservations leave it. Where a job ended at this time, early or as
// expected, the schedule is compressed, as batsched's conservative_bf
// compresses it (Mu'alem and Feitelson compress on an early end, their
// scheduler acting at any reservation's start; this one acts at arrivals
// and ends, and a reservation anchored on a reservation that moved would
// otherwise wait on a time no event comes at): the queued jobs in order,
// each one's reservation taken out of the profile and made again at the
// earliest start the others leave it, the later jobs' reservations still
// in place, so that a job ahead moves up only into room no job behind it
// holds, and no reservation moves later. A running job that has outlived
// its estimate (held until now + 1), or a reservation whose start passed
// (made while one had), voids every reservation, made on an end that has
// not come: every job is then reserved afresh, in queue order. A job
// reserved at now starts now; no other starts (the pass does not serve the
// head first). scheduler/internal/reference implements the same on a pool,
// plainly.
func (m *sim) compress() {
	p := &m.prof
	// (a Reestimator's new estimate of a job past its old one hides the
	// overrun from running's ends: overranAt keeps it; a batch placement,
	// ga, starts jobs out of any reservation, which may then overlap them:
	// held, a whole GPU's would free a GPU a job holds a share of)
	void := m.overranAt == m.now || m.batchAt == m.now
	for _, j := range m.running {
		void = void || j.expEnd0 <= m.now
	}
	for _, j := range m.queue {
		void = void || j.reserved && j.resFrom < m.now
	}
	// A compression that moved no reservation leaves them where the next
	// would (each job then found its own start the earliest the others
	// left it, and since then jobs started at their reservations, ended as
	// the profile held them, or arrived into the room left): where one
	// ended now, the next compression is made only if a job ended before
	// its estimate or the last one moved some (the schedule is the same;
	// the references compress at every end, and the tests compare). On a
	// pool alone: on a machine of GPUs a reservation made again at the
	// same start may take other GPUs, and a job's estimate may shorten as
	// it starts (a placement estimator's, on its GPU model), so every end
	// compresses there.
	sweep := void || m.endedAt == m.now && (!m.onePool() || m.earlyAt == m.now || !m.settled)
	moved := void
	// every job keeping its reservation, none is made: no profile is
	// built, and those of now start where their slots are free (they are,
	// unless the schedule changed in a way no rule above saw: then every
	// reservation is made again)
	keep := !sweep && !slices.ContainsFunc(m.queue, func(j *jobState) bool { return !j.reserved })
	if keep && !m.dueFit() {
		keep, void, sweep, moved = false, true, true, true
	}
	if !keep {
		for _, j := range m.queue {
			if void {
				j.reserved = false
			}
			if j.reserved && !m.onePool() {
				m.hold(j, -1)
			}
		}
		if m.onePool() {
			m.holdAllPool()
		}
	}
	for _, j := range m.queue {
		if j.reserved && !sweep {
			if j.resFrom == m.now {
				m.startReserved(j)
			}
			continue
		}
		was, old := j.reserved, j.resFrom
		if j.reserved {
			m.hold(j, +1)
		}
		k, end := m.reserve(j)
		if j.reserved = k >= 0; !j.reserved {
			moved = true
			continue // (a gang its placement splits otherwise now: perhaps the next pass)
		}
		j.resFrom, j.resTo = p.times[k], end
		moved = moved || was && j.resFrom != old
		if m.hooks != nil {
			m.hooks.reserve(j.Job, p.times[k])
		}
		if k == 0 {
			m.startReserved(j)
		}
	}
	if sweep {
		m.settled = !moved
	}
}

// dueFit says whether the reservations that begin now fit what is free,
// their slots taken one after another.
func (m *sim) dueFit() bool {
	fit := &m.dueState
	fit.copyFrom(&m.st)
	for _, j := range m.queue {
		if j.resFrom != m.now {
			continue
		}
		for k := range m.slotsOf(j) {
			sl := &m.slotsOf(j)[k]
			if !fit.fitsSlot(sl) {
				return false
			}
			fit.apply(sl)
		}
	}
	return true
}

// startReserved starts j, whose reservation begins now.
func (m *sim) startReserved(j *jobState) {
	j.reserved = false
	applyAll(&m.st, m.slotsOf(j))
	m.start(j)
}

// poolProfile makes the profile of a processor pool: the processors free
// now and as the running jobs end, by their expected ends (prof.cpu; its
// free and total are not made).
func (m *sim) poolProfile() {
	p := &m.prof
	p.times = append(p.times[:0], m.now)
	p.cpu = append(p.cpu[:0], m.st.free[0].cpu)
	for _, e := range m.runningByEnd() {
		last := len(p.times) - 1
		if e.end != p.times[last] {
			p.times = append(p.times, e.end)
			p.cpu = append(p.cpu, p.cpu[last])
			last++
		}
		p.cpu[last] += m.slotsOf(e.j)[0].CPU
	}
}

// holdEv is a reservation's start (cpu < 0: taken) or end on a pool.
type holdEv struct {
	t   Time
	cpu MilliCPU
}

// holdAllPool takes every queued job's reservation out of a pool's
// profile at once, the running jobs' breakpoints and the reservations'
// merged in one pass (holding them one by one inserted a breakpoint at a
// time, each moving the rest of the profile).
func (m *sim) holdAllPool() {
	p := &m.prof
	evs := m.holdEvs[:0]
	for _, j := range m.queue {
		if j.reserved {
			evs = append(evs, holdEv{j.resFrom, -j.cpu}, holdEv{j.resTo, j.cpu})
		}
	}
	m.holdEvs = evs
	if len(evs) == 0 {
		return
	}
	slices.SortFunc(evs, func(a, b holdEv) int { return cmp.Compare(a.t, b.t) })
	times, cpus := m.holdTimes[:0], m.holdCPU[:0]
	var held MilliCPU // taken over the state being built
	i, e := 0, 0
	for i < len(p.times) || e < len(evs) {
		t := Time(0)
		if e >= len(evs) || i < len(p.times) && p.times[i] <= evs[e].t {
			t = p.times[i]
		} else {
			t = evs[e].t
		}
		for ; e < len(evs) && evs[e].t == t; e++ {
			held += evs[e].cpu
		}
		for i < len(p.times) && p.times[i] == t {
			i++
		}
		// the running jobs' state over t: the last breakpoint at or before
		// it (every reservation starts at now or later)
		times, cpus = append(times, t), append(cpus, p.cpu[i-1]+held)
	}
	m.holdTimes, m.holdCPU = p.times, p.cpu
	p.times, p.cpu = times, cpus
}

// hold takes j's reservation (its placement, m.slotsOf(j), over [resFrom,
// resTo)) out of what the profile has free (sign -1), or gives it back
// (+1).
func (m *sim) hold(j *jobState, sign int64) {
	p := &m.prof
	if m.onePool() { // processors alone
		a, b := p.atPool(j.resFrom), p.atPool(j.resTo)
		for k := a; k < b; k++ {
			p.cpu[k] += MilliCPU(sign) * j.cpu
		}
		return
	}
	a, b := p.at(j.resFrom), p.at(j.resTo)
	slots := m.slotsOf(j)
	for k := a; k < b; k++ {
		if sign < 0 {
			applyAll(p.view(k, &m.view), slots)
		} else {
			releaseAll(p.view(k, &m.view), slots)
		}
		p.total[k].add(j, sign)
	}
}
