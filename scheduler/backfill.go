package scheduler

import "slices"

// profile is the free capacity of the cluster from now on, a step function:
// state k holds over [times[k], times[k+1]).
type profile struct {
	times []Time
	free  []nodeFree // len(times) states of n nodes each
	total []total    // each state's free capacity summed over its nodes
	n     int
	info  []nodeInfo
	// cpu is a processor pool's profile in place of free and total: the
	// processors free at each time (sim.poolProfile)
	cpu []MilliCPU
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
	k, added := p.addTime(t)
	if added {
		p.total = slices.Insert(p.total, k, p.total[k-1])
		prev := p.free[(k-1)*p.n : k*p.n]
		p.free = slices.Insert(p.free, k*p.n, prev...)
	}
	return k
}

// atPool is at on a pool's profile (cpu).
func (p *profile) atPool(t Time) int {
	k, added := p.addTime(t)
	if added {
		p.cpu = slices.Insert(p.cpu, k, p.cpu[k-1])
	}
	return k
}

// addTime returns the index of t among the breakpoints' times, and
// whether it was added there (its state still to be copied in).
func (p *profile) addTime(t Time) (int, bool) {
	k, found := slices.BinarySearch(p.times, t)
	if !found {
		p.times = slices.Insert(p.times, k, t)
	}
	return k, !found
}

// suffixMinTotal returns, for each queue position, the least CPU, memory
// and GPU (each on its own) any job from there on asks for.
func (m *sim) suffixMinTotal() []total {
	out := slices.Grow(m.minTotal[:0], len(m.queue))[:len(m.queue)]
	m.minTotal = out
	least := total{1<<62 - 1, 1<<62 - 1, 1<<62 - 1}
	for i := len(m.queue) - 1; i >= 0; i-- {
		j := m.queue[i]
		least = total{min(least.cpu, j.cpu), min(least.mem, j.mem), min(least.gpu, j.gpu)}
		out[i] = least
	}
	return out
}

// reserve finds j's earliest reservation in the profile, takes it out of
// the profile, records the placement in m.slotsOf(j) and returns the index of
// the breakpoint it starts at and the time it ends; a reservation lasts the job's estimate, or
// where a placement estimator estimates it longer on the GPUs the
// placement gives it (slotEstimate: a slower GPU model, nodes its run
// spans), that; -1 when no state of the profile holds it,
// which the last, the empty cluster, does for every job but a gang whose
// placement, with the memory it has now (round-robin's cursor, random's
// draws), splits it otherwise than when it arrived.
//
// A start s is tried by placing j in the least free capacity over the
// states its reservation spans; the starts are tried in order, and for the
// estimate the job queued with their windows only move forward, so m.win
// keeps that least as states enter and leave it (each state placed alone
// once, not once per start that spans it). A placement that draws in every
// what-if placement (RandomChooser, as Random): for it every start's window
// is placed afresh, state by state, as it always was, so that its draws
// stay the same.
func (m *sim) reserve(j *jobState) (int, Time) {
	p := &m.prof
	d0 := max(j.Estimate, 1)
	if m.onePool() {
		return m.reservePool(j, d0)
	}
	draws := m.draws
	low := &m.scratch
	m.win.reset(p, 0)
	// longer, at start at, is the placement's estimate where it was
	// longer than d0 there: that start is tried again for that long, in a
	// window of its own (m.win's windows are d0 long)
	longer, at := d0, -1
	for i := 0; i < len(p.times); {
		d, w := d0, &m.win
		switch {
		case i == at:
			d, w = longer, &m.winLong
			w.reset(p, i)
		case draws || placeEveryWindow:
			w.reset(p, i)
		default:
			w.advance(i)
		}
		end := p.times[i] + d
		k := w.hi
		for ; k < len(p.times) && p.times[k] < end; k++ {
			if !p.total[k].holds(j) || !m.fits(p.view(k, &m.view), j) {
				break
			}
			w.push(k)
		}
		if k < len(p.times) && p.times[k] < end {
			if k == i || d == d0 {
				i = k + 1 // state k alone cannot hold j: no start up to k can
			} else {
				i++ // (for d0 a later start's window may end before state k)
			}
			continue
		}
		w.least(low)
		if !m.place(low, j) {
			i++
			continue
		}
		est, ok := m.slotEstimate(j)
		if ok && est > d {
			// on these GPUs (a slower model, or nodes its run spans) the
			// job runs longer than the estimate it queued with: reserve
			// that long, from the same start (d only grows there: this
			// ends); a later start is tried for d0 again
			longer, at = est, i
			continue
		}
		if ok && d > d0 && est < d {
			// the longer window checked for a slower placement found a
			// faster one: reserve what it runs, not the window (a hole
			// reserved past its end let a job ahead move into room held
			// for one behind it: a reviewer's find). The states to the
			// window's end hold it, so the shorter span does too.
			end = p.times[i] + max(est, d0)
		}
		e, slots := p.at(end), m.slotsOf(j)
		for k := i; k < e; k++ {
			applyAll(p.view(k, &m.view), slots)
			p.total[k].add(j, -1)
		}
		return i, end
	}
	return -1, 0
}

// window is the least free capacity, node by node, over the profile's
// states [lo, hi), a window that only moves forward: a queue with
// aggregates kept as two stacks. front holds, for each state x in
// [lo, mid), the least over states x..mid-1 (x's at (x-base)*n); back
// the least over [mid, hi). A state enters at push and leaves at advance;
// when the front runs out, the back's states become the front, their
// suffix minima computed once. So a scan costs each state O(nodes) twice,
// however long the windows.
type window struct {
	p                 *profile
	lo, mid, hi, base int
	front, back       []nodeFree
}

// reset empties w, its next state i.
func (w *window) reset(p *profile, i int) {
	w.p, w.lo, w.mid, w.hi, w.base = p, i, i, i, i
	w.front, w.back = w.front[:0], w.back[:0]
}

// state returns state k's free capacity per node.
func (w *window) state(k int) []nodeFree { return w.p.free[k*w.p.n : (k+1)*w.p.n] }

// push adds state hi.
func (w *window) push(k int) {
	if k != w.hi {
		panic("scheduler: window: push out of order")
	}
	if w.hi == w.mid {
		w.back = append(w.back[:0], w.state(k)...)
	} else {
		minFree(w.back, w.state(k), w.p.info)
	}
	w.hi++
}

// advance moves the window's first state to i (emptying it when i is past
// its last).
func (w *window) advance(i int) {
	if i >= w.hi {
		w.reset(w.p, i)
		return
	}
	n := w.p.n
	for w.lo < i {
		if w.lo == w.mid {
			// the front is spent: the back's states become the front
			m := w.hi - w.mid
			w.front = slices.Grow(w.front[:0], m*n)[:m*n]
			copy(w.front[(m-1)*n:], w.state(w.hi-1))
			for x := m - 2; x >= 0; x-- {
				f := w.front[x*n : (x+1)*n]
				copy(f, w.state(w.mid+x))
				minFree(f, w.front[(x+1)*n:(x+2)*n], w.p.info)
			}
			w.base, w.mid = w.mid, w.hi
			w.back = w.back[:0]
		}
		w.lo++
	}
}

// least sets s to the least free capacity over the window (not empty).
func (w *window) least(s *State) {
	n := w.p.n
	s.info = w.p.info
	if w.lo < w.mid {
		x := w.lo - w.base
		s.free = append(s.free[:0], w.front[x*n:(x+1)*n]...)
		if w.hi > w.mid {
			minFree(s.free, w.back, w.p.info)
		}
		return
	}
	s.free = append(s.free[:0], w.back...)
}

// reservePool is reserve for a one-replica job on a processor pool, where
// the profile is one number per breakpoint.
func (m *sim) reservePool(j *jobState, d Time) (int, Time) {
	p := &m.prof
	need := j.cpu
	for i := 0; i < len(p.times); {
		if p.cpu[i] < need {
			i++
			continue
		}
		end := p.times[i] + d
		k := i + 1
		for k < len(p.times) && p.times[k] < end && p.cpu[k] >= need {
			k++
		}
		if k < len(p.times) && p.times[k] < end {
			i = k + 1
			continue
		}
		e := p.atPool(end)
		for k := i; k < e; k++ {
			p.cpu[k] -= need
		}
		m.slotsOf(j)[0] = Slot{Node: 0, Shared: -1, CPU: need}
		return i, end
	}
	panic("scheduler: conservative: no reservation for job in the empty pool")
}
