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
// the breakpoint it starts at; a reservation lasts the job's estimate, or
// where a placement estimator estimates it longer on the GPUs the
// placement gives it (slotEstimate: a slower GPU model, nodes its run
// spans), that; -1 when no state of the profile holds it,
// which the last, the empty cluster, does for every job but a gang whose
// placement, with the memory it has now (round-robin's cursor, random's
// draws), splits it otherwise than when it arrived.
func (m *sim) reserve(j *jobState) int {
	p := &m.prof
	d0 := max(j.Estimate, 1)
	if m.onePool() {
		return m.reservePool(j, d0)
	}
	low := &m.scratch
	// longer, at start at, is the placement's estimate where it was
	// longer than d0 there: that start is tried again for that long
	longer, at := d0, -1
	for i := 0; i < len(p.times); {
		d := d0
		if i == at {
			d = longer
		}
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
			if d == d0 {
				i = k + 1 // state k alone cannot hold j: no start up to k can
			} else {
				i++ // (for d0 a later start's window may end before state k)
			}
			continue
		}
		if !m.place(low, j) {
			i++
			continue
		}
		if e, ok := m.slotEstimate(j); ok && e > d {
			// on these GPUs (a slower model, or nodes its run spans) the
			// job runs longer than the estimate it queued with: reserve
			// that long, from the same start (d only grows there: this
			// ends); a later start is tried for d0 again
			longer, at = e, i
			continue
		}
		e, slots := p.at(end), m.slotsOf(j)
		for k := i; k < e; k++ {
			applyAll(p.view(k, &m.view), slots)
			p.total[k].add(j, -1)
		}
		return i
	}
	return -1
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
		m.slotsOf(j)[0] = Slot{Node: 0, Shared: -1, CPU: need}
		return i
	}
	panic("scheduler: conservative: no reservation for job in the empty pool")
}
