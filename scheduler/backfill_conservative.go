package scheduler

import "sync/atomic"

var _ Backfill = Conservative{}

// Conservative is conservative backfilling (Mu'alem and Feitelson 2001)
// recomputed at every pass: from the running jobs' expected ends it builds
// the profile of free capacity from now on; then each queued job, in order,
// is reserved at the earliest s ≥ now where the profile holds it over
// [s, s + max(estimate, 1)), and its reservation is taken out of the
// profile. A job whose reservation is now starts now. No job can start in
// a way that delays an earlier job's reservation in this pass. Every pass
// reserves afresh, in queue order: a reservation is not kept from pass to
// pass. On a processor pool a job that ended before its estimate may so
// let a job ahead move into room a job behind it held, which then starts
// later than first reserved; with exact estimates (no early ends, no run
// time of 0 planned as 1 s) none does. Mu'alem and Feitelson's
// compression, which moves reservations only earlier, is not built. On a
// cluster of nodes a reservation is a placement found in the least free
// capacity over its interval, so it holds throughout the pass; the next
// pass places it afresh, and the placement may put it (a gang, or an
// earlier job on another's nodes) later than before, even with exact
// estimates.
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

	// The head was served already when it fit; it still needs its
	// reservation. Jobs that cannot start now are only reserved while a
	// later job might still start now.
	pool := m.onePool()
	var minCPU []MilliCPU
	var least []total
	if pool {
		minCPU = m.suffixMinCPU()
	} else if !m.draws && !reserveEveryJob {
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
		if pool && p.free[0].cpu < minCPU[qi] {
			break // no job from here on fits what is free now
		}
		if least != nil && qi > lastFit {
			earlyEnds.Add(1)
			break
		}
		k := m.reserve(j)
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
