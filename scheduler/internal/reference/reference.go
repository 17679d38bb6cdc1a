// Package reference is a deliberately plain implementation of the
// scheduling contract (FCFS, EASY and conservative backfilling on one
// processor pool), and PAISimulate, a transcription of the PAI v2020
// simulator's loop. It exists as a test oracle for the fast simulator and as
// a speed baseline: it is written as literally as possible from the
// contract, re-deriving everything in every scheduling pass, and favours
// clarity over speed.
//
// The contract, as implemented here:
//
//   - Jobs are ordered by (submit, id); ties on both keep input order.
//   - A job is never killed: it holds its processors for Run seconds,
//     whatever its estimate.
//   - Events at time t: first every completion at t frees its processors;
//     then every arrival at t is appended to the queue in (submit, id)
//     order; then one scheduling pass at now = t. Jobs started in that pass
//     with run 0 complete at t: their completion is processed and another
//     pass runs at t, repeated while such completions exist.
//   - The expected end of a running job started at s is s+estimate if that
//     is > now, else now+1.
//   - FCFS: while the queue head fits in the free processors, start it.
//   - EASY: after the FCFS step, if the head H does not fit, walk the
//     running jobs (those just started included) by (expected end, id),
//     adding their processors to the free ones until H fits; the shadow
//     time is that expected end, and extra is the number of processors free
//     at the shadow time (every running job with expected end <= shadow
//     counted) minus H's processors. The rest of the queue is scanned in
//     order: job j starts now iff j.procs <= free and (now+j.estimate <=
//     shadow or j.procs <= extra); if it was admitted only by the extra
//     rule, extra -= j.procs.
//   - Conservative (Mu'alem and Feitelson's, with compression): a queued
//     job's reservation persists from pass to pass. Build the
//     free-processor profile from now on (running jobs held until their
//     expected end) with every queued job's reservation in it (all void,
//     and made afresh, where a running job has outlived its estimate or a
//     reservation's start has passed: they were made on an end that has not
//     come). A job without a reservation (new) is reserved at the earliest
//     s >= now where the profile holds its processors over
//     [s, s+max(estimate, 1)). Where a job ended at this time (or the
//     reservations were void), the schedule is compressed: the queued jobs
//     in order, each one's reservation taken out and made again at the
//     earliest such s, the later jobs' reservations still in place, so that
//     no reservation moves later but for a job that ran past its estimate.
//     A job reserved at now starts now.
//   - Nothing else persists between passes but the queue and the running
//     jobs.
package reference

import (
	"errors"
	"fmt"
	"sort"
)

// Job is one normalised job: 1 <= Procs <= machine, Run >= 0, and
// Estimate >= 0 is the estimate the scheduler uses.
type Job struct {
	ID       int64
	Submit   int64
	Run      int64
	Estimate int64
	Procs    int64
}

// Simulate runs policy "fcfs", "easy" or "conservative" on a pool of
// machine processors and returns each job's start time, indexed like jobs.
func Simulate(jobs []Job, machine int64, policy string) ([]int64, error) {
	s, err := newSim(jobs, machine, policy)
	if err != nil {
		return nil, err
	}
	if err := s.run(); err != nil {
		return nil, err
	}
	return s.starts, nil
}

// hooks lets the tests observe the decisions of a pass. Either may be nil.
type hooks struct {
	// shadow is called in every EASY pass where the head does not fit,
	// with the head's job index and the shadow time computed for it.
	shadow func(now int64, head int, shadowTime int64)
	// reserve is called in every conservative pass for every job placed,
	// with the job index and the start time it was reserved at.
	reserve func(now int64, job int, at int64)
}

type sim struct {
	jobs    []Job
	machine int64
	policy  string
	hooks   hooks
	// literal disables the one shortcut taken (ending an EASY pass as soon
	// as no processor is free, since then nothing more can start in it).
	// The shortcut does not change any start time; the tests check that.
	literal bool

	order   []int // job indices by (submit, id, index)
	next    int   // next position in order not yet arrived
	queue   []int // waiting job indices, in queue order
	running []int // running job indices
	// reserved is each queued job's conservative reservation (its start),
	// by job index; ended says a job ended at this time (a pass compresses
	// them)
	reserved map[int]int64
	ended    bool
	free     int64
	starts   []int64
}

func newSim(jobs []Job, machine int64, policy string) (*sim, error) {
	switch policy {
	case "fcfs", "easy", "conservative":
	default:
		return nil, fmt.Errorf("reference: unknown policy %q", policy)
	}
	if machine < 1 {
		return nil, fmt.Errorf("reference: machine size %d < 1", machine)
	}
	for i, j := range jobs {
		if j.Procs < 1 || j.Procs > machine {
			return nil, fmt.Errorf("reference: job %d (id %d): procs %d not in [1, %d]", i, j.ID, j.Procs, machine)
		}
		if j.Run < 0 {
			return nil, fmt.Errorf("reference: job %d (id %d): run %d < 0", i, j.ID, j.Run)
		}
		if j.Estimate < 0 {
			return nil, fmt.Errorf("reference: job %d (id %d): estimate %d < 0", i, j.ID, j.Estimate)
		}
	}
	s := &sim{jobs: jobs, machine: machine, policy: policy, free: machine, reserved: map[int]int64{}}
	s.order = make([]int, len(jobs))
	for i := range s.order {
		s.order[i] = i
	}
	sort.SliceStable(s.order, func(a, b int) bool {
		ja, jb := jobs[s.order[a]], jobs[s.order[b]]
		if ja.Submit != jb.Submit {
			return ja.Submit < jb.Submit
		}
		return ja.ID < jb.ID
	})
	s.starts = make([]int64, len(jobs))
	for i := range s.starts {
		s.starts[i] = -1
	}
	return s, nil
}

// end is the time a running job actually completes.
func (s *sim) end(i int) int64 { return s.starts[i] + s.jobs[i].Run }

// expectedEnd is the contract's expected end of running job i at time now.
func (s *sim) expectedEnd(i int, now int64) int64 {
	e := s.starts[i] + s.jobs[i].Estimate
	if e > now {
		return e
	}
	return now + 1
}

func (s *sim) run() error {
	for s.next < len(s.order) || len(s.running) > 0 || len(s.queue) > 0 {
		// The next event is the earliest arrival or completion.
		found := false
		var t int64
		if s.next < len(s.order) {
			t, found = s.jobs[s.order[s.next]].Submit, true
		}
		for _, i := range s.running {
			if !found || s.end(i) < t {
				t, found = s.end(i), true
			}
		}
		if !found {
			return errors.New("reference: jobs are queued but nothing can happen (internal error)")
		}

		s.ended = s.completeAt(t)
		for s.next < len(s.order) && s.jobs[s.order[s.next]].Submit == t {
			s.queue = append(s.queue, s.order[s.next])
			s.next++
		}
		s.pass(t)
		// Jobs just started with run 0 complete at t: another round at t.
		for s.completeAt(t) {
			s.ended = true
			s.pass(t)
		}
	}
	return nil
}

// completeAt frees every running job that completes at t and reports
// whether there was any.
func (s *sim) completeAt(t int64) bool {
	done := false
	var still []int
	for _, i := range s.running {
		if s.end(i) == t {
			s.free += s.jobs[i].Procs
			done = true
		} else {
			still = append(still, i)
		}
	}
	s.running = still
	return done
}

func (s *sim) start(i int, now int64) {
	s.starts[i] = now
	s.free -= s.jobs[i].Procs
	s.running = append(s.running, i)
}

func (s *sim) pass(now int64) {
	switch s.policy {
	case "fcfs":
		s.fcfs(now)
	case "easy":
		s.fcfs(now)
		s.easyBackfill(now)
	case "conservative":
		s.conservative(now)
	}
}

func (s *sim) fcfs(now int64) {
	for len(s.queue) > 0 && s.jobs[s.queue[0]].Procs <= s.free {
		s.start(s.queue[0], now)
		s.queue = s.queue[1:]
	}
}

func (s *sim) easyBackfill(now int64) {
	if len(s.queue) == 0 {
		return
	}
	head := s.queue[0]
	hp := s.jobs[head].Procs

	// Running jobs by (expected end, id, index).
	byEnd := append([]int(nil), s.running...)
	sort.Slice(byEnd, func(a, b int) bool {
		ea, eb := s.expectedEnd(byEnd[a], now), s.expectedEnd(byEnd[b], now)
		if ea != eb {
			return ea < eb
		}
		ia, ib := s.jobs[byEnd[a]].ID, s.jobs[byEnd[b]].ID
		if ia != ib {
			return ia < ib
		}
		return byEnd[a] < byEnd[b]
	})

	// Shadow time: the expected end at which the head first fits.
	avail := s.free
	shadow := int64(-1)
	for _, i := range byEnd {
		avail += s.jobs[i].Procs
		if avail >= hp {
			shadow = s.expectedEnd(i, now)
			break
		}
	}
	if shadow < 0 {
		panic("reference: head never fits (procs > machine?)")
	}
	// Extra: processors free at the shadow time beyond the head's needs.
	atShadow := s.free
	for _, i := range s.running {
		if s.expectedEnd(i, now) <= shadow {
			atShadow += s.jobs[i].Procs
		}
	}
	extra := atShadow - hp
	if s.hooks.shadow != nil {
		s.hooks.shadow(now, head, shadow)
	}

	rest := []int{head}
	for k, j := range s.queue[1:] {
		if !s.literal && s.free == 0 {
			// No job (procs >= 1) can start any more in this pass.
			rest = append(rest, s.queue[1+k:]...)
			break
		}
		job := s.jobs[j]
		byShadow := now+job.Estimate <= shadow
		byExtra := job.Procs <= extra
		if job.Procs <= s.free && (byShadow || byExtra) {
			if !byShadow {
				extra -= job.Procs
			}
			s.start(j, now)
		} else {
			rest = append(rest, j)
		}
	}
	s.queue = rest
}

// segment is one step of a free-processor profile: free processors from t
// until the next segment's t (the last segment lasts for ever).
type segment struct {
	t    int64
	free int64
}

func (s *sim) conservative(now int64) {
	// Profile of the running jobs, each held until its expected end.
	times := []int64{now}
	for _, i := range s.running {
		times = append(times, s.expectedEnd(i, now))
	}
	sort.Slice(times, func(a, b int) bool { return times[a] < times[b] })
	var profile []segment
	for k, t := range times {
		if k > 0 && t == times[k-1] {
			continue
		}
		free := s.machine
		for _, i := range s.running {
			if s.expectedEnd(i, now) > t {
				free -= s.jobs[i].Procs
			}
		}
		profile = append(profile, segment{t, free})
	}
	// and every queued job's reservation. A running job that has outlived
	// its estimate (held until now + 1) voids them all, as does a
	// reservation whose start passed (made while one had): they were made
	// on its end, which has not come; every job is then reserved afresh,
	// in queue order.
	void := false
	for _, i := range s.running {
		void = void || s.starts[i]+s.jobs[i].Estimate <= now
	}
	for _, j := range s.queue {
		if at, ok := s.reserved[j]; ok && at < now {
			void = true
		}
	}
	if void {
		clear(s.reserved)
	}
	for _, j := range s.queue {
		if at, ok := s.reserved[j]; ok {
			profile = reserve(profile, at, at+max(s.jobs[j].Estimate, 1), s.jobs[j].Procs)
		}
	}

	// Where a job ended, compression: every job in order, its reservation
	// out and in again at the earliest start the others leave it. (No
	// shortcut: a job that cannot start now still moves earlier, which the
	// jobs ahead of it see in later passes.) Otherwise only the new jobs
	// are reserved, and a job whose reservation is now starts.
	sweep := void || s.ended
	var rest []int
	for _, j := range s.queue {
		job := s.jobs[j]
		d := max(job.Estimate, 1)
		if at, ok := s.reserved[j]; ok && !sweep {
			if at == now {
				delete(s.reserved, j)
				s.start(j, now)
			} else {
				rest = append(rest, j)
			}
			continue
		}
		if at, ok := s.reserved[j]; ok {
			profile = reserve(profile, at, at+d, -job.Procs)
		}
		at := earliest(profile, job.Procs, d)
		if s.hooks.reserve != nil {
			s.hooks.reserve(now, j, at)
		}
		profile = reserve(profile, at, at+d, job.Procs)
		if at == now {
			delete(s.reserved, j)
			s.start(j, now)
		} else {
			s.reserved[j] = at
			rest = append(rest, j)
		}
	}
	s.queue = rest
}

// earliest returns the earliest time s (not before the profile's first
// segment) such that the profile holds procs free over [s, s+d). It is
// always the start of some segment: a feasible s inside a segment stays
// feasible when moved back to that segment's start.
func earliest(profile []segment, procs, d int64) int64 {
	for i := range profile {
		s := profile[i].t
		ok := true
		for k := i; k < len(profile) && profile[k].t < s+d; k++ {
			if profile[k].free < procs {
				ok = false
				break
			}
		}
		if ok {
			return s
		}
	}
	panic("reference: job never fits in profile (procs > machine?)")
}

// reserve takes procs processors off the profile over [from, to).
func reserve(profile []segment, from, to, procs int64) []segment {
	profile = split(profile, from)
	profile = split(profile, to)
	for k := range profile {
		if profile[k].t >= from && profile[k].t < to {
			profile[k].free -= procs
		}
	}
	return profile
}

// split makes t the start of a segment (t must not precede the profile).
func split(profile []segment, t int64) []segment {
	for k := range profile {
		if profile[k].t == t {
			return profile
		}
		if profile[k].t > t {
			// t falls in segment k-1.
			out := append([]segment(nil), profile[:k]...)
			out = append(out, segment{t, profile[k-1].free})
			return append(out, profile[k:]...)
		}
	}
	return append(profile, segment{t, profile[len(profile)-1].free})
}
