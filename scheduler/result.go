package scheduler

import (
	"math"
	"math/bits"
	"slices"
)

// JobResult is one job's schedule.
type JobResult struct {
	ID       int64
	User     string
	Name     string
	Submit   Time
	Start    Time // -1 when the job never ran
	End      Time // -1 when the job never ran
	Wait     Time
	Run      Time // as run: on the GPUs the job got (Job.RunOn), up to a kill
	Estimate Time // the estimate the scheduler planned with
	CPU      MilliCPU
	Mem      MiB
	GPU      MilliGPU
	GPUs     int32 // GPUs touched
	Replicas int32
	Slowdown float64 // bounded slowdown, see [BoundedSlowdown]
	Slots    []Slot  // where each replica ran; nil when it never ran
	Status   Status
	// PassedOver counts the scheduling passes in which a job behind it in
	// the queue started while it waited.
	PassedOver int32
}

// Sample is the cluster's state after the scheduling pass at Time.
type Sample struct {
	Time    Time
	CPU     MilliCPU // allocated
	Mem     MiB
	GPU     MilliGPU
	Queue   int32 // jobs queued
	Running int32 // jobs running
}

// Summary is a run's figures.
type Summary struct {
	Jobs          int
	Completed     int // including the killed
	Killed        int
	Unschedulable int
	// PlacementRefused counts, of the unschedulable, the gangs that
	// first-fit places on the empty cluster and the placement does not:
	// refused on arrival by a placement without memory or draws, or left
	// queued at the end by one with them; the placement placed them
	// nowhere, not the cluster too small.
	PlacementRefused int
	// PassedOver counts the jobs passed over more than PassedOverLimit
	// times (see JobResult.PassedOver): jobs behind them started while they
	// waited. Under EASY or conservative backfilling the head's start is
	// still guaranteed; under greedy, which reserves nothing, a job passed
	// over again and again may be starving.
	PassedOver int
	// Makespan is from the first submit to the last end of the jobs that
	// ran (an unschedulable job's submit is not counted).
	Makespan   Time
	MeanWait   float64
	MedianWait float64 // nearest rank
	P95Wait    float64 // nearest rank
	MaxWait    Time
	MeanJCT    float64 // completion − submit
	MedianJCT  float64 // nearest rank
	P95JCT     float64 // nearest rank
	// MeanJCTReplicas and MeanWaitReplicas count each job once per
	// replica, as the Alibaba PAI v2020 simulator's avg_jct and wait_time
	// do (it finishes each instance of a gang as a job of its own).
	MeanJCTReplicas  float64
	MeanWaitReplicas float64
	MeanBSLD         float64
	MaxBSLD          float64
	// Utilisation is the allocated share of capacity integrated over the
	// makespan, for CPU (processors), memory and GPU;
	// 0 for a resource the cluster does not have.
	UtilCPU float64
	UtilMem float64
	UtilGPU float64
	// NoUserEstimate counts the jobs without a user estimate (SWF field 9
	// missing, or a trace format that has none): the user estimate takes
	// their run time. NoUserEstimateOrModel counts those of them without a
	// model too, which the model estimate, falling back to the user's,
	// takes at their run time. NoModel counts the jobs without a model
	// (only Gavel's traces name one), whatever their user estimate: the
	// model estimate takes the user's for them.
	NoUserEstimate        int `json:",omitempty"`
	NoUserEstimateOrModel int `json:",omitempty"`
	NoModel               int `json:",omitempty"`
}

// Result is everything one simulation produced.
type Result struct {
	Cluster   *Cluster
	Scheduler string      // the parts' names joined, see [Scheduler.Name]
	Parts     Spec        // the parts' names, and a noisy estimate's σ (EstimateArgs)
	Jobs      []JobResult // by (submit, id)
	Series    []Sample
	Summary   Summary
}

// PassedOverLimit is how many times a job may be passed over before
// Summary.PassedOver counts it.
const PassedOverLimit = 10

// BoundSeconds is the run time below which bounded slowdown stops
// growing (Feitelson et al.'s customary 10 s).
const BoundSeconds = 10

// BoundedSlowdown is max(1, (wait + run) / max(run, 10)).
func BoundedSlowdown(wait, run Time) float64 {
	return max(1, float64(wait+run)/float64(max(run, BoundSeconds)))
}

func (m *sim) sample() {
	m.began = true
	s := Sample{Time: m.now, CPU: m.usedCPU, Mem: m.usedMem, GPU: m.usedGPU, Queue: int32(len(m.queue)), Running: int32(len(m.running))}
	if m.str != nil {
		m.str.sample(&s)
		return
	}
	if n := len(m.series); n > 0 && m.series[n-1].Time == m.now {
		m.series[n-1] = s
		return
	}
	m.series = append(m.series, s)
}

func (m *sim) result() *Result {
	r := m.newResult()
	r.Jobs = make([]JobResult, len(m.jobs))
	var t tally
	t.waits.cur = make([]Time, 0, len(m.jobs))
	t.jcts.cur = make([]Time, 0, len(m.jobs))
	for i := range m.jobs {
		t.add(&m.jobs[i], m.slotsOf(&m.jobs[i]), &r.Jobs[i])
	}
	t.close(m, &r.Summary)
	r.Series = m.series
	return r
}

// newResult is a result without its jobs, series or summary.
func (m *sim) newResult() *Result {
	s := &m.sched
	r := &Result{Cluster: m.cl, Scheduler: s.Name(),
		Parts: Spec{Order: s.Order.Name(), Backfill: s.Backfill.Name(), Placement: s.Placement.Name(), Estimate: s.Estimator.Name()}}
	if n, ok := s.Estimator.(*Noisy); ok && n.Sigma != 0 {
		r.Parts.EstimateArgs = Args{"sigma": n.Sigma} // what results write in their sigma column
	}
	return r
}

// tally sums the jobs' schedules into a summary, job by job in (submit,
// id) order, whether they lie in memory or stream out.
type tally struct {
	sm Summary
	// waits and jcts are the completed jobs' waits and JCTs.
	waits, jcts              times
	first, last              Time
	sumWait, sumJCT, sumBSLD float64
	// Sums over replicas (Summary.MeanJCTReplicas).
	repWait, repJCT, reps float64
	any                   bool
}

// add writes j's schedule to out and counts it; slots are j's.
func (t *tally) add(j *jobState, slots []Slot, out *JobResult) {
	sm := &t.sm
	// Every field, one by one: storing a whole struct runs the GC's bulk
	// write barrier over all its pointer words whenever a collection is
	// marking, a third of this function's time.
	out.ID, out.User, out.Name, out.Submit = j.Job.ID, j.Job.User, j.Job.Name, j.Job.Submit
	out.Start, out.End, out.Wait, out.Run, out.Estimate = -1, -1, -1, j.Job.Run, j.Estimate
	out.CPU, out.Mem, out.GPU, out.GPUs, out.Replicas = j.cpu, j.mem, j.gpu, 0, int32(len(slots))
	out.Slowdown, out.Slots, out.Status, out.PassedOver = 0, nil, j.status, j.passedOver
	sm.Jobs++
	if j.Job.Model == "" {
		sm.NoModel++
	}
	if j.Job.UserEstimate <= 0 {
		sm.NoUserEstimate++
		if j.Job.Model == "" {
			sm.NoUserEstimateOrModel++
		}
	}
	if j.passedOver > PassedOverLimit {
		sm.PassedOver++
	}
	if j.status == Unschedulable {
		sm.Unschedulable++
		if j.refused {
			sm.PlacementRefused++
		}
		return
	}
	// the span starts at the first submit of a job that ran: one the
	// cluster could never start (wider than every node) would otherwise
	// stretch the makespan and thin the utilisation, as it does in no
	// format that drops such jobs as it reads them (SWF's wider than the
	// machine), nor in the sharing simulator
	if !t.any {
		t.first, t.any = j.Job.Submit, true
	}
	t.first = min(t.first, j.Job.Submit)
	if j.status == Killed {
		sm.Killed++
	}
	for k := range slots {
		out.GPUs += int32(slots[k].GPUs())
	}
	out.Slots = slots
	out.Run = j.end - j.start
	out.Start, out.End, out.Wait = j.start, j.end, j.start-j.Job.Submit
	out.Slowdown = BoundedSlowdown(out.Wait, j.end-j.start)
	sm.Completed++
	t.last = max(t.last, j.end)
	t.waits.add(out.Wait)
	t.jcts.add(j.end - j.Job.Submit)
	t.sumWait += float64(out.Wait)
	t.sumJCT += float64(j.end - j.Job.Submit)
	r := float64(len(slots))
	t.reps += r
	t.repWait += r * float64(out.Wait)
	t.repJCT += r * float64(j.end-j.Job.Submit)
	t.sumBSLD += out.Slowdown
	sm.MaxBSLD = max(sm.MaxBSLD, out.Slowdown)
	sm.MaxWait = max(sm.MaxWait, out.Wait)
}

// close completes the summary into sm.
func (t *tally) close(m *sim, out *Summary) {
	sm := &t.sm
	if n := float64(sm.Completed); n > 0 {
		sm.MeanWait, sm.MeanJCT, sm.MeanBSLD = t.sumWait/n, t.sumJCT/n, t.sumBSLD/n
		sm.MeanWaitReplicas, sm.MeanJCTReplicas = t.repWait/t.reps, t.repJCT/t.reps
		sm.MedianWait, sm.P95Wait = t.waits.percentiles()
		sm.MedianJCT, sm.P95JCT = t.jcts.percentiles()
	}
	if sm.Completed > 0 {
		sm.Makespan = t.last - t.first
		if span := float64(sm.Makespan); span > 0 {
			cpu, mem, gpu := m.cl.Capacity()
			sm.UtilCPU = ratio(m.area[0], float64(cpu)*span)
			sm.UtilMem = ratio(m.area[1], float64(mem)*span)
			sm.UtilGPU = ratio(m.area[2], float64(gpu)*span)
		}
	}
	*out = *sm
}

// rankIndex is the index in sorted order of the p-th percentile of n
// values by the nearest-rank method: the smallest value with at least p% of
// the values at or below it.
func rankIndex(n int, p float64) int {
	return max(int(math.Ceil(p/100*float64(n)))-1, 0)
}

// times are values kept for their percentiles: in cur, whose capacity a
// whole run sizes; once it fills, in chunks of chunkLen (full), so that a
// stream of unknown length never copies its values as a growing slice
// would.
type times struct {
	full [][]Time
	cur  []Time
}

// chunkLen is the length of a stream's chunks of times; chunkShift its
// log2.
const (
	chunkShift = 13
	chunkLen   = 1 << chunkShift
)

func (ts *times) add(v Time) {
	if len(ts.cur) == cap(ts.cur) {
		if len(ts.cur) > 0 {
			ts.full = append(ts.full, ts.cur)
		}
		ts.cur = make([]Time, 0, chunkLen)
	}
	ts.cur = append(ts.cur, v)
}

// percentiles are the nearest-rank median and 95th percentile of the
// values (reordered), selected, not sorted (two selections take a third
// of a sort's time), a stream's chunks in place (copied into one slice,
// the waits and the JCTs doubled a stream's memory: a reviewer's find).
func (ts *times) percentiles() (p50, p95 float64) {
	n := len(ts.full)*chunkLen + len(ts.cur)
	k50, k95 := rankIndex(n, 50), rankIndex(n, 95)
	if len(ts.full) == 0 {
		p50 = float64(selectKth(ts.cur, k50))
		return p50, float64(selectKth(ts.cur[k50:], k95-k50)) // the upper part holds it
	}
	c := chunked(append(ts.full[:len(ts.full):len(ts.full)], ts.cur))
	p50 = float64(c.selectKth(0, n, k50))
	return p50, float64(c.selectKth(k50, n, k95))
}

// chunked is a sequence kept in chunks of chunkLen values, the last
// shorter.
type chunked [][]Time

func (c chunked) at(i int) *Time { return &c[i>>chunkShift][i&(chunkLen-1)] }

// selectKth is selectKth over c's values at [lo, hi), k an index of c in
// that range: the value sorting them would put at k, the range reordered
// so that none before k is greater and none after it smaller.
func (c chunked) selectKth(lo, hi, k int) Time {
	budget := 2 * bits.Len(uint(hi-lo))
	for hi-lo > 16 && budget > 0 {
		budget--
		m := lo + (hi-lo)/2
		a, b, d := *c.at(lo), *c.at(m), *c.at(hi - 1)
		pivot := max(min(a, b), min(max(a, b), d))
		i, j := lo, hi-1
		for {
			for *c.at(i) < pivot {
				i++
			}
			for *c.at(j) > pivot {
				j--
			}
			if i >= j {
				break
			}
			x, y := c.at(i), c.at(j)
			*x, *y = *y, *x
			i++
			j--
		}
		if k <= j {
			hi = j + 1
		} else {
			lo = j + 1
		}
	}
	// a small range, or one that partitions badly: selected in a copy
	xs := make([]Time, hi-lo)
	for i := range xs {
		xs[i] = *c.at(lo + i)
	}
	v := selectKth(xs, k-lo)
	for i, x := range xs {
		*c.at(lo + i) = x
	}
	return v
}

// selectKth returns the value that sorting xs would put at index k, and
// reorders xs so that no value before k is greater and none after it is
// smaller (quickselect; a sort when it partitions badly, so it stays
// O(n log n) at worst).
func selectKth(xs []Time, k int) Time {
	budget := 2 * bits.Len(uint(len(xs)))
	for len(xs) > 16 {
		if budget == 0 {
			slices.Sort(xs)
			return xs[k]
		}
		budget--
		// median of three as the pivot, then Hoare's partition
		m := len(xs) / 2
		a, b, c := xs[0], xs[m], xs[len(xs)-1]
		pivot := max(min(a, b), min(max(a, b), c))
		i, j := 0, len(xs)-1
		for {
			for xs[i] < pivot {
				i++
			}
			for xs[j] > pivot {
				j--
			}
			if i >= j {
				break
			}
			xs[i], xs[j] = xs[j], xs[i]
			i++
			j--
		}
		// xs[:j+1] ≤ pivot ≤ xs[j+1:]
		if k <= j {
			xs = xs[:j+1]
		} else {
			xs, k = xs[j+1:], k-(j+1)
		}
	}
	slices.Sort(xs)
	return xs[k]
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
