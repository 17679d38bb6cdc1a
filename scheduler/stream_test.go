package scheduler

import (
	"cmp"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// sliceSource yields jobs from a slice; fail, when set, is returned after
// the first stop jobs.
type sliceSource struct {
	jobs []Job
	i    int
	stop int
	fail error
}

func (s *sliceSource) Next() (*Job, error) {
	if s.fail != nil && s.i == s.stop {
		return nil, s.fail
	}
	if s.i == len(s.jobs) {
		return nil, io.EOF
	}
	j := s.jobs[s.i] // a copy: the source owns its slice
	s.i++
	return &j, nil
}

// sliceSink collects what a streamed simulation hands out, copying the
// slots, which are lent for the call only.
type sliceSink struct {
	jobs   []JobResult
	series []Sample
	fail   error
	after  int // fail once this many jobs came
}

func (s *sliceSink) Job(r *JobResult) error {
	if s.fail != nil && len(s.jobs) == s.after {
		return s.fail
	}
	c := *r
	c.Slots = slices.Clone(r.Slots)
	s.jobs = append(s.jobs, c)
	return nil
}

func (s *sliceSink) Sample(x *Sample) error {
	s.series = append(s.series, *x)
	return nil
}

// streamed runs jobs through Stream and puts what the sink got back into
// a Result.
func streamed(t testing.TB, c *Cluster, jobs []Job, s Scheduler) (*Result, error) {
	t.Helper()
	var sink sliceSink
	r, err := Stream(c, &sliceSource{jobs: jobs}, s, &sink)
	if err != nil {
		return nil, err
	}
	if r.Jobs != nil || r.Series != nil {
		t.Fatal("Stream returned jobs or series: they go to the sink")
	}
	r.Jobs, r.Series = sink.jobs, sink.series
	return r, nil
}

// sameResult fails unless a and b are equal in every field (nil and empty
// slots alike).
func sameResult(t testing.TB, what string, a, b *Result) {
	t.Helper()
	norm := func(r *Result) {
		for i := range r.Jobs {
			if len(r.Jobs[i].Slots) == 0 {
				r.Jobs[i].Slots = nil
			}
		}
	}
	norm(a)
	norm(b)
	if len(a.Jobs) != len(b.Jobs) {
		t.Fatalf("%s: %d jobs streamed, %d simulated", what, len(a.Jobs), len(b.Jobs))
	}
	for i := range a.Jobs {
		if !reflect.DeepEqual(a.Jobs[i], b.Jobs[i]) {
			t.Fatalf("%s: job %d: streamed %+v, simulated %+v", what, i, a.Jobs[i], b.Jobs[i])
		}
	}
	if !slices.Equal(a.Series, b.Series) {
		t.Fatalf("%s: series differ (%d and %d samples)", what, len(a.Series), len(b.Series))
	}
	if a.Summary != b.Summary || a.Scheduler != b.Scheduler || !reflect.DeepEqual(a.Parts, b.Parts) {
		t.Fatalf("%s: summary\n streamed  %+v\n simulated %+v", what, a.Summary, b.Summary)
	}
}

// streamMatches fails unless jobs streamed through a scheduler built from
// spec give what Simulate gives.
func streamMatches(t *testing.T, what string, c *Cluster, jobs []Job, spec Spec) {
	t.Helper()
	want, err := Simulate(c, jobs, build(t, spec))
	if err != nil {
		t.Fatal(err)
	}
	got, err := streamed(t, c, jobs, build(t, spec))
	if err != nil {
		t.Fatal(err)
	}
	sameResult(t, what, got, want)
}

// TestStreamMatchesSimulate: every registered order, backfill, placement
// and estimate gives, streamed, exactly what Simulate gives, on pool and
// GPU workloads (the placements that need the whole workload read it
// first).
func TestStreamMatchesSimulate(t *testing.T) {
	parts := DefaultParts()
	runs := 0
	for seed := range uint64(6) {
		r := rand.New(rand.NewPCG(seed, 11))
		machine := 8 + r.IntN(56)
		pool := randomPoolJobs(r, 150, machine, 0, seed%2 == 0)
		for i := range pool {
			pool[i].User = string(rune('a' + i%4))
		}
		gpu := randomGPUJobs(r, 120, seed%2 == 1)
		withEstimates(pool)
		withEstimates(gpu)
		cl := randomCluster(r)
		for _, bf := range parts.Backfills.Names() {
			for _, est := range parts.Estimators.Names() {
				order := parts.Orders.Names()[int(seed)%len(parts.Orders.Names())]
				spec := Spec{Order: order, Backfill: bf, Estimate: est, Seed: seed}
				if est == "noisy" {
					spec.EstimateArgs = Args{"sigma": 0.5}
				}
				streamMatches(t, "pool "+spec.Order+"/"+bf+"/"+est, NewPool("p", machine), pool, spec)
				runs++
			}
			for _, pl := range parts.Placements.Names() {
				spec := Spec{Backfill: bf, Placement: pl, Estimate: "user", Seed: seed}
				streamMatches(t, "gpu "+pl+"/"+bf, cl, gpu, spec)
				runs++
			}
		}
	}
	if runs < 100 {
		t.Fatalf("only %d combinations compared", runs)
	}
}

// TestStreamMixedPool: a pool workload whose later jobs ask for memory
// (so the processor-counting fast path must stop mid-stream) streams to
// the same schedule as Simulate, which counts from the start.
func TestStreamMixedPool(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	jobs := randomPoolJobs(r, 200, 32, 0, false)
	for i := 120; i < len(jobs); i += 7 {
		jobs[i].Tasks[0].Request.Mem = 1
	}
	c := NewPool("p", 32)
	c.Nodes[0].Mem = 1 << 20
	for _, bf := range []string{"none", "easy", "conservative"} {
		streamMatches(t, bf, c, jobs, Spec{Backfill: bf})
	}
}

// TestStreamErrors: a source out of order, a job listed twice, an invalid
// job, a failing source and a failing sink each stop the simulation with
// their error.
func TestStreamErrors(t *testing.T) {
	jobs := poolJobs(pj{id: 1, submit: 0, procs: 1, run: 5}, pj{id: 2, submit: 3, procs: 1, run: 5}, pj{id: 3, submit: 9, procs: 1, run: 5})
	s := func() Scheduler { return build(t, Spec{Backfill: "easy"}) }
	c := NewPool("p", 4)

	swapped := slices.Clone(jobs)
	swapped[1], swapped[2] = swapped[2], swapped[1]
	if _, err := Stream(c, &sliceSource{jobs: swapped}, s(), &sliceSink{}); !errors.Is(err, ErrUnsorted) || !strings.Contains(err.Error(), "job 2") {
		t.Errorf("unsorted: %v", err)
	}
	twice := append(slices.Clone(jobs), jobs[2])
	if _, err := Stream(c, &sliceSource{jobs: twice}, s(), &sliceSink{}); err == nil || !strings.Contains(err.Error(), "listed twice") {
		t.Errorf("twice: %v", err)
	}
	bad := slices.Clone(jobs)
	bad[2].Run = -1
	if _, err := Stream(c, &sliceSource{jobs: bad}, s(), &sliceSink{}); err == nil || !strings.Contains(err.Error(), "job 3") {
		t.Errorf("invalid job: %v", err)
	}
	boom := errors.New("disk on fire")
	if _, err := Stream(c, &sliceSource{jobs: jobs, stop: 2, fail: boom}, s(), &sliceSink{}); !errors.Is(err, boom) {
		t.Errorf("source: %v", err)
	}
	sink := &sliceSink{fail: boom, after: 1}
	if _, err := Stream(c, &sliceSource{jobs: jobs}, s(), sink); !errors.Is(err, boom) || len(sink.jobs) != 1 {
		t.Errorf("sink: %v after %d jobs", err, len(sink.jobs))
	}
}

// TestStreamHoldsFewJobs: the jobs a stream holds at once are those in
// the system, not the trace: a long trace of short jobs that never
// overlap keeps the pending list short.
func TestStreamHoldsFewJobs(t *testing.T) {
	var specs []pj
	for i := range 50000 {
		specs = append(specs, pj{id: int64(i + 1), submit: int64(10 * i), procs: 1, run: 5})
	}
	jobs := poolJobs(specs...)
	sink := &sliceSink{}
	st := &streaming{src: &sliceSource{jobs: jobs}, sink: sink}
	m := &sim{cl: NewPool("p", 2), sched: build(t, Spec{Backfill: "easy"}), str: st}
	if err := m.loadCluster(); err != nil {
		t.Fatal(err)
	}
	m.run()
	st.emit(m)
	st.flush()
	if st.err != nil {
		t.Fatal(st.err)
	}
	if len(sink.jobs) != len(jobs) {
		t.Fatalf("%d of %d jobs came out", len(sink.jobs), len(jobs))
	}
	if cap(st.pending) > 4096 {
		t.Errorf("the pending list grew to %d for jobs that never overlap", cap(st.pending))
	}
	if cap(m.asks) > 16384 || cap(m.reps) > 16384 || cap(m.slots) > 16384 {
		t.Errorf("asks, replica counts and slots grew to %d, %d and %d for jobs that never overlap", cap(m.asks), cap(m.reps), cap(m.slots))
	}
}

// TestStreamCompacts: a stream long enough that the asks, replica counts
// and slots of the jobs gone out are dropped from the front of the
// simulation's arrays many times, with gangs of several replicas (more slots
// than asks) and jobs still waiting as it happens, gives what Simulate
// gives.
func TestStreamCompacts(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	jobs := randomGPUJobs(r, 12000, false)
	for i := range jobs {
		jobs[i].Submit *= 8 // a load the cluster keeps up with, queues of a few jobs
	}
	cl := randomCluster(r)
	for _, bf := range []string{"easy", "conservative"} {
		streamMatches(t, bf, cl, jobs, Spec{Backfill: bf, Placement: "best-fit", Estimate: "user"})
	}
}

// TestGreedyStarves: greedy starts every queued job that fits, so a wide
// job waits while narrow ones keep arriving and taking what frees up;
// EASY reserves its start. The wide job is counted as passed over.
func TestGreedyStarves(t *testing.T) {
	// pool of 4: a 2-processor job runs 0–10; the wide job (4) arrives at
	// 1; from 2 on, a 2-processor job of 10 s arrives every 5 s until 200
	specs := []pj{{id: 1, submit: 0, procs: 2, run: 10, estimate: 10}, {id: 2, submit: 1, procs: 4, run: 10, estimate: 10}}
	for i, t := 3, int64(2); t < 200; i, t = i+1, t+5 {
		specs = append(specs, pj{id: int64(i), submit: t, procs: 2, run: 10, estimate: 10})
	}
	jobs := poolJobs(specs...)
	wide := map[string]JobResult{}
	passed := map[string]int{}
	for _, bf := range []string{"easy", "greedy"} {
		r, err := Simulate(NewPool("p", 4), jobs, build(t, Spec{Backfill: bf, Estimate: "exact"}))
		if err != nil {
			t.Fatal(err)
		}
		checkSchedule(t, NewPool("p", 4), jobs, r)
		wide[bf] = r.Jobs[1]
		passed[bf] = r.Summary.PassedOver
	}
	if wide["easy"].Start > 20 {
		t.Errorf("EASY started the wide job at %d: its reservation was at 10", wide["easy"].Start)
	}
	if wide["greedy"].Start < 150 || wide["greedy"].PassedOver <= PassedOverLimit || passed["greedy"] < 1 {
		t.Errorf("greedy started the wide job at %d, passed over %d times (%d such jobs): it should starve until the stream ends",
			wide["greedy"].Start, wide["greedy"].PassedOver, passed["greedy"])
	}
}

// TestTallyAddSetsEveryField: tally.add stores a job's result field by
// field into a JobResult the stream reuses, so it must set every field: a
// result full of another job's values comes out as a zeroed one does.
func TestTallyAddSetsEveryField(t *testing.T) {
	c := &Cluster{Nodes: []Node{{Name: "n", CPU: 4000, Mem: 1024}}}
	jobs := []Job{
		{ID: 1, User: "u", Name: "a", Submit: 0, Run: 10, Tasks: []Task{{Replicas: 2, Request: Request{CPU: 1000}}}},
		{ID: 2, User: "v", Submit: 5, Run: 20, Tasks: []Task{{Replicas: 1, Request: Request{CPU: 8000}}}}, // never fits
	}
	s, err := DefaultParts().Build(Spec{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Simulate(c, jobs, s)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range r.Jobs {
		var dirty JobResult
		v := reflect.ValueOf(&dirty).Elem()
		for f := range v.NumField() { // every field non-zero
			switch fv := v.Field(f); fv.Kind() {
			case reflect.String:
				fv.SetString("stale")
			case reflect.Int, reflect.Int8, reflect.Int32, reflect.Int64:
				fv.SetInt(99)
			case reflect.Uint8:
				fv.SetUint(99)
			case reflect.Float64:
				fv.SetFloat(99)
			case reflect.Slice:
				fv.Set(reflect.ValueOf([]Slot{{Node: 3}}))
			default:
				t.Fatalf("JobResult.%s: a kind this test does not fill", v.Type().Field(f).Name)
			}
		}
		js := &jobState{cpu: want.CPU, mem: want.Mem, gpu: want.GPU, start: want.Start, end: want.End,
			status: want.Status, passedOver: want.PassedOver}
		js.Job, js.Estimate = &jobs[i], want.Estimate
		slots := want.Slots
		if slots == nil { // never ran: its slots, unused
			slots = make([]Slot, want.Replicas)
		}
		var tl tally
		tl.add(js, slots, &dirty)
		var clean JobResult
		tl.add(js, slots, &clean)
		if !reflect.DeepEqual(dirty, clean) || !reflect.DeepEqual(clean, want) {
			t.Errorf("job %d: into a used result %+v\ninto a zeroed one %+v\nsimulated %+v", jobs[i].ID, dirty, clean, want)
		}
	}
}

// TestSelectKth: selecting the k-th value equals sorting, for every k, on
// slices with many ties, sorted, reversed and organ-pipe runs (where a
// median-of-three pivot partitions badly).
func TestSelectKth(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	var inputs [][]Time
	for _, n := range []int{1, 2, 3, 17, 100, 1000} {
		for _, spread := range []int64{1, 3, 1 << 40} {
			xs := make([]Time, n)
			for i := range xs {
				xs[i] = Time(rng.Int64N(spread))
			}
			inputs = append(inputs, xs)
		}
		up := make([]Time, n)
		pipe := make([]Time, n)
		for i := range up {
			up[i] = Time(i)
			pipe[i] = Time(min(i, n-1-i))
		}
		down := slices.Clone(up)
		slices.Reverse(down)
		inputs = append(inputs, up, down, pipe)
	}
	for _, xs := range inputs {
		sorted := slices.Sorted(slices.Values(xs))
		for k := range xs {
			ys := slices.Clone(xs)
			if got := selectKth(ys, k); got != sorted[k] {
				t.Fatalf("selectKth(%v, %d) = %d, want %d", xs, k, got, sorted[k])
			}
			if !slices.Equal(slices.Sorted(slices.Values(ys)), sorted) {
				t.Fatalf("selectKth changed the values of %v", xs)
			}
			for i := range ys { // partitioned about k
				if i < k && ys[i] > sorted[k] || i > k && ys[i] < sorted[k] {
					t.Fatalf("selectKth(%v, %d) left %d at %d", xs, k, ys[i], i)
				}
			}
		}
	}
	if got := rankIndex(203_000, 95); got != 192_849 {
		t.Errorf("rankIndex(203000, 95) = %d, want 192849 (⌈0.95·203000⌉ − 1)", got)
	}
}

// StreamContext stops at an interrupt as SimulateContext does, on the
// streamed path and on the whole one (a placement that sees the workload
// first, FGD).
func TestStreamContextStops(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 9))
	c := randomCluster(r)
	jobs := randomGPUJobs(r, 200, true)
	slices.SortStableFunc(jobs, func(a, b Job) int { return cmp.Compare(a.Submit, b.Submit) })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, pl := range []string{"first-fit", "fgd"} {
		spec := Spec{Backfill: "conservative", Estimate: "exact", Placement: pl}
		if _, err := StreamContext(context.Background(), c, &sliceSource{jobs: jobs}, build(t, spec), &sliceSink{}); err != nil {
			t.Fatalf("%s, without an interrupt: %v", pl, err)
		}
		if res, err := StreamContext(ctx, c, &sliceSource{jobs: jobs}, build(t, spec), &sliceSink{}); !errors.Is(err, context.Canceled) || res != nil {
			t.Errorf("%s, interrupted: %v, result %v", pl, err, res != nil)
		}
	}
}
