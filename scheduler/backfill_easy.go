package scheduler

var _ Backfill = EASY{}

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
	shadow, last := Time(-1), Time(-1)
	for _, e := range m.runningByEnd() {
		if shadow >= 0 && e.end != shadow {
			break
		}
		releaseAll(sh, m.slotsOf(e.j))
		last = e.end
		if shadow < 0 && m.fits(sh, head) {
			shadow = e.end
		}
	}
	if shadow < 0 && last >= 0 {
		// with every running job released the cluster is idle: a placement
		// that tracks the running jobs (gpu-clustering's tags) sees none,
		// in this try and in the what-ifs below, which ask whether the
		// head still fits there (the next pass's copy resets it)
		sh.idle = true
		if m.fits(sh, head) {
			shadow = last
		} else {
			sh.idle = false
		}
	}
	if shadow < 0 {
		// The head fits the empty cluster (checked on arrival) but the
		// placement does not place it on the cluster with everything
		// released (a placement that keeps a cursor or draws: round-robin,
		// random). Nothing can be reserved for it, and nothing
		// is held back for it: every job behind it that the placement
		// places now starts, as conservative backfilling does for a job
		// it cannot reserve, and greedy for every job. (Starting nothing
		// would leave the cluster idle to the end, every job queued
		// behind it unschedulable.)
		Greedy{}.Backfill(&Pass{m: m})
		return
	}
	if m.hooks != nil {
		m.hooks.shadow(head.Job, shadow)
	}
	for _, j := range m.queue[1:] {
		if j.cpu > m.freeCPU {
			continue
		}
		if !m.place(&m.st, j) {
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
			slots := m.slotsOf(j)
			applyAll(sh, slots)
			if m.fits(sh, head) {
				m.start(j)
			} else {
				releaseAll(sh, slots)
				releaseAll(&m.st, slots)
			}
		}
	}
}

// easyPool is EASY on a processor pool whose jobs all have one replica:
// the contract's arithmetic on processor counts.
func easyPool(m *sim, head *jobState) {
	// The running jobs in (expected end, id) order as runningByEnd lists
	// them; only their ends and processors matter here, so m.running is
	// walked as it is, a job past its expected end counted at now + 1.
	free := m.freeCPU
	shadow := Time(-1)
	for _, j := range m.running {
		end := max(j.expEnd0, m.now+1)
		if shadow >= 0 && end != shadow {
			break
		}
		free += j.cpu
		if shadow < 0 && free >= head.cpu {
			shadow = end
		}
	}
	if shadow < 0 {
		return
	}
	if m.hooks != nil {
		m.hooks.shadow(head.Job, shadow)
	}
	extra := free - head.cpu
	if m.freeCPU < m.queueCPU {
		return // no queued job fits what is free
	}
	// the queue's least processors, for the next passes (the head's
	// included: it did not fit)
	least := head.cpu
	for _, j := range m.queue[1:] {
		least = min(least, j.cpu)
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
		m.slotsOf(j)[0] = m.st.take(0, &m.asksOf(j)[0])
		m.start(j)
		if m.freeCPU == 0 {
			return // the rest unscanned: the bound stays as it was
		}
	}
	m.queueCPU = least
}
