package profiler_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/profiler"
)

func TestRuleShare(t *testing.T) {
	d := profiler.Rule{}.WithDefaults()
	if got := (profiler.Rule{}).Share(1); got != d {
		t.Errorf("Share(1) = %+v, want the defaults %+v", got, d)
	}
	got := profiler.Rule{MinTime: 200 * time.Millisecond}.Share(8)
	want := d
	want.MinReps, want.MaxReps, want.MaxTime, want.MinTime = 3, 1250, 250*time.Millisecond, 25*time.Millisecond
	want.WarmupTime, want.RelCI = 2500*time.Microsecond, 0.02*math.Sqrt(8)
	if got != want {
		t.Errorf("Share(8) = %+v, want %+v", got, want)
	}
	// Every share of a valid rule is valid; n shares together make no more
	// runs than the rule, at least its MinReps where MaxReps allows, and
	// take its time to rounding.
	for _, r := range []profiler.Rule{{}, {MinReps: 1, MaxReps: 1}, {MinReps: 50, MaxReps: 60, MaxTime: time.Millisecond}} {
		r = r.WithDefaults()
		for n := 1; n <= r.MaxReps; n++ {
			s := r.Share(n)
			if err := s.Validate(); err != nil {
				t.Fatalf("%+v Share(%d) = %+v: %v", r, n, s, err)
			}
			if n*s.MaxReps > r.MaxReps || n*s.MinReps < min(r.MinReps, n*s.MaxReps) || r.MaxTime-time.Duration(n)*s.MaxTime >= time.Duration(n) {
				t.Fatalf("%+v Share(%d) = %+v covers less than the rule", r, n, s)
			}
		}
	}
}

// loadBackend is a fakeBackend whose runs slow down while the machine is
// busy: every run of a kernel prepared in the first half of the profile
// (counted in Prepare calls, of which the test says how many there will
// be) takes twice its time. It logs the order of Prepare calls.
type loadBackend struct {
	fakeBackend
	prepares int // expected in the whole profile
	mu       sync.Mutex
	log      []string
}

func (b *loadBackend) Prepare(l dnn.Layer, batch int, pass dnn.Pass, prec dnn.Precision) (profiler.Kernel, error) {
	b.mu.Lock()
	b.log = append(b.log, l.Key()+" "+pass.String())
	busy := len(b.log) <= b.prepares/2
	b.mu.Unlock()
	d := time.Duration(float64(l.Work(1, dnn.Forward, prec).FLOPs) / 1e6 * float64(time.Millisecond))
	if busy {
		d *= 2
	}
	return &streamKernel{next: func() time.Duration { return d }}, nil
}

// TestRunRounds: with rounds, every pass is measured in each round, in a
// shuffled order but the last; the rows come in profile order, pool the
// runs of all rounds, and the fastest run of each pass is the unloaded
// time however the load fell, where one sitting per pass leaves half the
// passes at the loaded time.
func TestRunRounds(t *testing.T) {
	net := network(layer("conv2d", "a"), layer("conv2d", "b"), layer("conv2d", "a"), layer("conv2d", "c"))
	const keys = 3 * 3 // a, b, c × fwd, bwd-data, bwd-weights
	var rounds []int
	passTold := 0
	run := func(r int, seed uint64) (*profiler.Profile, *loadBackend) {
		t.Helper()
		be := &loadBackend{prepares: keys * r}
		var done []int
		passTold = 0
		o := profiler.Options{Rule: quick, Rounds: r, Seed: seed, Predict: predictAll,
			Progress: func(d, total int, _ *profiler.Record) { done = append(done, d) },
			RoundProgress: func(r profiler.RoundReport) {
				round, n, d, total := r.Round, r.Rounds, r.Done, r.Total
				switch {
				case d == 0:
					rounds = append(rounds, round)
				case round == n || total != keys || d > total:
					t.Errorf("round %d of %d told %d of %d passes", round, n, d, total)
				default:
					passTold++
				}
			},
		}
		p, err := profiler.Run(context.Background(), be, net, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(be.log) != keys*r {
			t.Fatalf("%d rounds: %d prepares, want %d", r, len(be.log), keys*r)
		}
		if len(p.Records) != 15 || !slices.Equal(done, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}) {
			t.Fatalf("%d rounds: %d rows, progress %v", r, len(p.Records), done)
		}
		return p, be
	}

	one, _ := run(1, 0)
	if len(rounds) != 0 {
		t.Errorf("one round told of rounds %v", rounds)
	}
	loaded := 0
	for _, r := range one.Records {
		if r.Status == profiler.OK && r.Min.V == 2e-3 {
			loaded++
		}
	}
	if loaded == 0 {
		t.Fatalf("in one round no pass saw the load; the test measures nothing")
	}

	p4, be4 := run(4, 1)
	if !slices.Equal(rounds, []int{1, 2, 3, 4}) || passTold != 3*keys {
		t.Errorf("round progress %v, %d passes told", rounds, passTold)
	}
	// The last round goes in profile order.
	last := be4.log[3*keys:]
	want := []string{"a fwd", "a bwd-data", "a bwd-weights", "b fwd", "b bwd-data", "b bwd-weights", "c fwd", "c bwd-data", "c bwd-weights"}
	if !slices.Equal(last, want) {
		t.Errorf("last round's order %v, want %v", last, want)
	}
	// The earlier rounds visit every pass once each, shuffled.
	for r := range 3 {
		got := slices.Clone(be4.log[r*keys : (r+1)*keys])
		shuffled := !slices.Equal(got, want)
		slices.Sort(got)
		w := slices.Clone(want)
		slices.Sort(w)
		if !slices.Equal(got, w) || (r == 0 && !shuffled) {
			t.Errorf("round %d visited %v", r+1, be4.log[r*keys:(r+1)*keys])
		}
	}
	for i, r := range p4.Records {
		if r.Status != profiler.OK {
			continue
		}
		if r.Min.V != 1e-3 || r.Median.V < r.Min.V || r.Ratio.V != r.Median.V/2e-3 {
			t.Errorf("row %d %s %s: min %v median %v ratio %v", i, r.Layer, r.Pass, r.Min, r.Median, r.Ratio)
		}
		if r.Layer == "n2" && r.SharedWith != "n0" {
			t.Errorf("row %d: shared with %q", i, r.SharedWith)
		}
	}
	if c := p4.Meta.Counts; c.Measured != keys || c.Shared != 3 || c.OK != 12 || c.Skipped != 3 {
		t.Errorf("counts %+v", c)
	}
	if p4.Meta.Options.Rounds != 4 || p4.Meta.Options.Seed != 1 || one.Meta.Options.Rounds != 0 {
		t.Errorf("sidecar options: %+v and %+v", p4.Meta.Options, one.Meta.Options)
	}

	// The same seed, the same order; another seed, another.
	_, again := run(4, 1)
	_, other := run(4, 2)
	if !slices.Equal(again.log, be4.log) || slices.Equal(other.log, be4.log) {
		t.Errorf("seed 1 twice: %v, %v; seed 2: %v", be4.log, again.log, other.log)
	}
}

// TestRunRoundsCancel: interrupted in the second of three rounds, the
// profile keeps every row measured once, with the runs made so far, and
// caches none of them.
func TestRunRoundsCancel(t *testing.T) {
	net := network(layer("conv2d", "a"), layer("conv2d", "b"))
	cache, err := profiler.OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	be := &cancellingBackend{fakeBackend: &fakeBackend{}, cancel: cancel, at: 6 + 2} // a, b × 3 passes in round 1
	p, err := profiler.Run(ctx, be, net, profiler.Options{Rule: quick, Rounds: 3, Cache: cache})
	// the rows written are said to be measured in part (a reviewer's
	// find: "interrupted after 67 of 67 rows" with 44 of them so)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), `interrupted after 9 of 9 rows; 6 of their measurements made in part (the rounds before the interrupt alone: stop "interrupted")`) {
		t.Fatalf("error %v", err)
	}
	if !p.Meta.Interrupted || len(p.Records) != 9 || p.Meta.Counts.Measured != 0 {
		t.Fatalf("interrupted profile: %d rows, %+v", len(p.Records), p.Meta.Counts)
	}
	share := quick.Share(3).WithDefaults()
	ok := 0
	for _, r := range p.Records {
		if r.Status == profiler.OK && (r.Reps < share.MinReps || r.Reps > 2*share.MaxReps) {
			t.Errorf("%s %s: %d runs after one or two rounds of %d", r.Layer, r.Pass, r.Reps, share.MinReps)
		}
		// a round's verdict is not the row's: its rounds did not end
		if r.Status == profiler.OK {
			ok++
			if r.Stop != string(profiler.Interrupted) {
				t.Errorf("%s %s: stop %q, want interrupted", r.Layer, r.Pass, r.Stop)
			}
		}
	}
	if p.Meta.Counts.Interrupted != 6 || ok == 0 {
		t.Errorf("counts %+v: want the 6 keys measured in part", p.Meta.Counts)
	}
	// Nothing was cached: the next profile measures all six keys.
	be2 := &fakeBackend{}
	p2, err := profiler.Run(context.Background(), be2, net, profiler.Options{Rule: quick, Cache: cache})
	if err != nil || p2.Meta.Counts.Cached != 0 || be2.totalPrepares() != 6 {
		t.Errorf("after the interrupted profile: %+v, %d prepares, %v", p2.Meta.Counts, be2.totalPrepares(), err)
	}
}

func TestRunRoundsOptions(t *testing.T) {
	net := network(layer("conv2d", "a"))
	for _, r := range []int{-1, 10001} {
		_, err := profiler.Run(context.Background(), &fakeBackend{}, net, profiler.Options{Rounds: r})
		if want := fmt.Sprintf("rounds %d: want 1 to max reps (10000)", r); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("rounds %d: %v", r, err)
		}
	}
	// Pooled runs are cached and read back as one measurement.
	cache, err := profiler.OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p, err := profiler.Run(context.Background(), &fakeBackend{}, net, profiler.Options{Rule: quick, Rounds: 5, Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	be := &fakeBackend{}
	back, err := profiler.Run(context.Background(), be, net, profiler.Options{Rule: quick, Rounds: 5, Cache: cache})
	if err != nil || be.totalPrepares() != 0 {
		t.Fatalf("cached profile: %d prepares, %v", be.totalPrepares(), err)
	}
	for i, r := range back.Records {
		w := p.Records[i]
		if r.Median != w.Median || r.Min != w.Min || r.Reps != w.Reps || (r.Status == profiler.OK && (!r.Cached || r.Reps < 5*3)) {
			t.Errorf("row %d from the cache: %+v, measured %+v", i, r, w)
		}
	}
}

// flipBackend's kernels say they run algorithm A or B, alternately at
// each Prepare, as cuDNN's search may choose differently each time.
type flipBackend struct {
	fakeBackend
	n int
}

func (b *flipBackend) Prepare(l dnn.Layer, batch int, pass dnn.Pass, prec dnn.Precision) (profiler.Kernel, error) {
	b.n++
	name := []string{"A", "B"}[b.n%2]
	k := &streamKernel{next: func() time.Duration { return time.Millisecond }}
	return &chooserKernel{streamKernel: k, alg: profiler.Algorithm{Name: name}}, nil
}

// TestRunRoundsAlgorithms: a pass whose rounds ran different algorithms
// is noted in the sidecar; its row names the first.
func TestRunRoundsAlgorithms(t *testing.T) {
	net := network(layer("conv2d", "a"))
	p, err := profiler.Run(context.Background(), &flipBackend{}, net, profiler.Options{Rule: quick, Rounds: 2, Passes: []dnn.Pass{dnn.Forward}})
	if err != nil {
		t.Fatal(err)
	}
	r := p.Records[len(p.Records)-1]
	if r.Algo != "B" || len(p.Meta.Notes) != 1 || p.Meta.Notes[0] != "n0 fwd batch 1: the rounds ran different algorithms (B; A), their runs pooled; the row names the first" {
		t.Errorf("row algo %q, notes %q", r.Algo, p.Meta.Notes)
	}
}

// TestRunGate: with a Gate, every measurement (each pass in each round,
// each timed run of the whole iteration) is preceded by a probe, after the
// gate's ten calibrating probes; the sidecar counts them. A probe that
// fails turns the gate off with a note and the profile goes on.
func TestRunGate(t *testing.T) {
	net := network(layer("conv2d", "a"), layer("conv2d", "b"))
	const keys = 2 * 3
	calls := 0
	g := &profiler.Gate{Probe: func() (time.Duration, error) { calls++; return 40 * time.Microsecond, nil }}
	p, err := profiler.Run(context.Background(), &fakeBackend{}, net, profiler.Options{Rule: quick, Rounds: 3, Iteration: true, Gate: g})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Meta.Iterations) != 1 {
		t.Fatalf("iterations %+v", p.Meta.Iterations)
	}
	want := 10 + 3*keys + p.Meta.Iterations[0].Runs
	if calls != want || p.Meta.Gate == nil || p.Meta.Gate.Probes != want || !p.Meta.Options.Gate {
		t.Errorf("%d probes, sidecar %+v (options gate %v), want %d: 10 + %d measurements + %d runs",
			calls, p.Meta.Gate, p.Meta.Options.Gate, want, 3*keys, p.Meta.Iterations[0].Runs)
	}
	if g := p.Meta.Gate; g.Held != 0 || g.Contended != 0 || g.BestProbe != 40e-6 {
		t.Errorf("a steady machine held measurements: %+v", g)
	}
	bad := &profiler.Gate{Probe: func() (time.Duration, error) { return 0, errors.New("no FMA here") }}
	p, err = profiler.Run(context.Background(), &fakeBackend{}, net, profiler.Options{Rule: quick, Gate: bad})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := profiler.Run(context.Background(), &fakeBackend{}, net, profiler.Options{Rule: quick})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Records) != len(plain.Records) || !slices.Contains(p.Meta.Notes, "gate: no FMA here") || p.Meta.Gate != nil || plain.Meta.Options.Gate {
		t.Errorf("failed probe: %d rows, notes %q, gate %+v", len(p.Records), p.Meta.Notes, p.Meta.Gate)
	}
}
