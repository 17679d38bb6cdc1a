package sharing

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wb-sim/wb/datasets/gavel"
)

// Tolerances: the hand-computed values below are exact in decimal and
// reached in a few floating-point operations, so 1e-12 relative covers
// their rounding; simulated end times come from sums of rate × time over a
// few events, within 1e-9 relative.
const (
	tolModel = 1e-12
	tolSim   = 1e-9
)

func near(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// twoKinds: A solo 10 steps/s, B solo 20; ρ_AB = 0.4, ρ_BA = 0.2,
// ρ_AA = 0.5, ρ_BB = 0.3.
func twoKinds(t *testing.T, gamma float64) *Model {
	t.Helper()
	m, err := NewModel([]Kind{{"A", 1, 10}, {"B", 1, 20}}, [][]float64{{0.5, 0.4}, {0.2, 0.3}})
	if err != nil {
		t.Fatal(err)
	}
	m.ShareExponent = gamma
	return m
}

func TestEffHandComputed(t *testing.T) {
	const A, B = 0, 1
	for _, c := range []struct {
		name  string
		gamma float64
		slots []Slot
		want  []float64
	}{
		{"alone on the whole GPU", 1, []Slot{{A, 1}}, []float64{10}},
		{"alone on a quarter: 10 × min(1, 0.5)", 1, []Slot{{A, 0.25}}, []float64{5}},
		{"alone on a quarter, γ=2: 10 × 0.5²", 2, []Slot{{A, 0.25}}, []float64{2.5}},
		// Equal halves: φ = 1, T_solo = T_meas: 10 × (1 − 0.4), 20 × (1 − 0.2).
		{"equal halves", 1, []Slot{{A, 0.5}, {B, 0.5}}, []float64{6, 16}},
		// A at ¾: φ(¾, ¼) = 1/3, 10 × (1 − 0.4/3) = 26/3; B at ¼:
		// 20 × 0.5 × (1 − 0.2 × 1) = 8.
		{"three quarters and a quarter", 1, []Slot{{A, 0.75}, {B, 0.25}}, []float64{26.0 / 3, 8}},
		// Three at a third: T_solo = 10 × 2/3; A next to A and B:
		// (1 − 0.5)(1 − 0.4); B: 20 × 2/3 × (1 − 0.2)².
		{"three thirds", 1, []Slot{{A, 1.0 / 3}, {A, 1.0 / 3}, {B, 1.0 / 3}},
			[]float64{10 * 2.0 / 3 * 0.5 * 0.6, 10 * 2.0 / 3 * 0.5 * 0.6, 20 * 2.0 / 3 * 0.8 * 0.8}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := twoKinds(t, c.gamma)
			for k := range c.slots {
				if got := m.Eff(c.slots, k); !near(got, c.want[k], tolModel) {
					t.Errorf("T_eff(slot %d) = %v, want %v", k, got, c.want[k])
				}
			}
		})
	}
}

func TestPhi(t *testing.T) {
	for _, c := range []struct{ sm, sk, want float64 }{
		{0.5, 0.5, 1}, {0.75, 0.25, 1.0 / 3}, {0.25, 0.75, 1}, {1.0 / 3, 1.0 / 3, 1}, {0.5, 0, 0},
	} {
		if got := Phi(c.sm, c.sk); !near(got, c.want, tolModel) {
			t.Errorf("φ(%v, %v) = %v, want %v", c.sm, c.sk, got, c.want)
		}
	}
}

func TestFromGavel(t *testing.T) {
	a := gavel.JobKey{JobType: "A", ScaleFactor: 1}
	b := gavel.JobKey{JobType: "B", ScaleFactor: 1}
	c := gavel.JobKey{JobType: "C", ScaleFactor: 1}
	tp := gavel.Throughputs{"v100": {
		a: {Solo: 10, Pairs: map[gavel.JobKey][2]float64{b: {6, 16}, c: {0, 0}, a: {5, 5}}},
		b: {Solo: 20, Pairs: map[gavel.JobKey][2]float64{a: {16, 6}, c: {10, 10}}},
		c: {Solo: 4, Pairs: map[gavel.JobKey][2]float64{a: {0, 0}, b: {2, 10}}},
	}}
	m, st, err := FromGavel(tp, "v100", 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct {
		a, b string
		rho  float64
		ok   bool
	}{
		{"A", "B", 0.4, true}, {"B", "A", 0.2, true}, {"A", "A", 0.5, true},
		{"A", "C", 0, false}, // measured at 0: did not fit
		{"B", "C", 0.5, true}, {"C", "B", 0.5, true},
		{"B", "B", 0, false}, {"C", "C", 0, false}, // not measured
	} {
		i, _ := m.Kind(w.a)
		k, _ := m.Kind(w.b)
		r, ok := m.Rho(i, k)
		if ok != w.ok || (ok && !near(r, w.rho, tolModel)) {
			t.Errorf("ρ[%s][%s] = %v, %v; want %v, %v", w.a, w.b, r, ok, w.rho, w.ok)
		}
	}
	// At equal halves the model gives back the measured pair throughputs.
	i, _ := m.Kind("A")
	k, _ := m.Kind("B")
	slots := []Slot{{i, 0.5}, {k, 0.5}}
	if got := m.Eff(slots, 0); !near(got, 6, tolModel) {
		t.Errorf("T_eff(A|B) = %v, want the measured 6", got)
	}
	if st.Pairs != 2 || st.Incompatible != 1 {
		t.Errorf("stats %+v, want 2 pairs (A-B, B-C) and 1 incompatible (A-C)", st)
	}
	if _, _, err := FromGavel(tp, "a100", 1); err == nil || !strings.Contains(err.Error(), "v100") {
		t.Errorf("unknown GPU type: %v", err)
	}
}

func TestUpdateWeight(t *testing.T) {
	for _, c := range []struct {
		name                     string
		w, alpha, target, actual float64
		want                     float64
	}{
		{"behind: raised by exp(0.5 × 0.5)", 1, 0.5, 0.95, 0.45, math.Exp(0.25)},
		{"on track above target: lowered", 2, 0.5, 0.95, 1, 2 * math.Exp(-0.025)},
		{"on target: unchanged", 3, 0.5, 0.9, 0.9, 3},
		{"α = 0: unchanged", 3, 0, 1, 0, 3},
		{"bounded above", 900, 10, 1, 0, MaxWeight},
		{"bounded below", 0.002, 10, 0, 1, MinWeight},
	} {
		if got := UpdateWeight(c.w, c.alpha, c.target, c.actual); !near(got, c.want, tolModel) {
			t.Errorf("%s: w = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestAttainment(t *testing.T) {
	for _, c := range []struct {
		name                string
		now, deadline       Seconds
		remaining, rate, at float64
	}{
		{"ample time", 0, 100, 50, 1, 1},
		{"exactly enough", 0, 100, 100, 1, 1},
		{"half", 0, 100, 200, 1, 0.5},
		{"waiting: no rate", 0, 100, 10, 0, 0},
		{"past the deadline", 200, 100, 10, 5, 0},
		{"done", 200, 100, 0, 0, 1},
	} {
		if got := Attainment(c.now, c.deadline, c.remaining, c.rate); !near(got, c.at, tolModel) {
			t.Errorf("%s: %v, want %v", c.name, got, c.at)
		}
	}
}

// TestSLOAttainment: one GPU, two jobs of 100 steps at 1 step/s submitted
// at 0, run one after the other: they end at 100 and 200. With f = 2 both
// deadlines (200) are met; with f = 1.5 (deadline 150) the second misses.
func TestSLOAttainment(t *testing.T) {
	m, err := NewModel([]Kind{{"A", 1, 1}}, [][]float64{{-1}})
	if err != nil {
		t.Fatal(err)
	}
	jobs := []Job{{ID: 1, Steps: 100}, {ID: 2, Steps: 100}}
	for _, c := range []struct {
		f    float64
		want float64
	}{{2, 1}, {1.5, 0.5}} {
		res, err := Simulate(m, jobs, Options{GPUs: 1, Policy: "exclusive", SLOFactor: c.f}, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if res.Jobs[0].End != 100 || res.Jobs[1].End != 200 {
			t.Fatalf("ends %v, %v; want 100, 200", res.Jobs[0].End, res.Jobs[1].End)
		}
		if got := res.Metrics.SLOAttainment; got != c.want {
			t.Errorf("f = %v: SLO attainment %v, want %v", c.f, got, c.want)
		}
		if got := res.Metrics.MeanJCT; got != 150 {
			t.Errorf("mean JCT %v, want 150", got)
		}
	}
	// Throughput SLOs do not count the wait: job 2 runs 100 s from 100, so
	// its deadline is 100 + 1.5 × 100 = 250 and it meets it; f = 0.99 is
	// refused, and a job that shares at under 1/f of its solo pace misses.
	res, err := Simulate(m, jobs, Options{GPUs: 1, Policy: "exclusive", SLO: SLOThroughput, SLOFactor: 1.5}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Metrics.SLOAttainment; got != 1 || res.Jobs[1].Deadline != 250 || res.Jobs[0].Deadline != 150 {
		t.Errorf("throughput SLOs: attainment %v (want 1), deadlines %v, %v (want 150, 250)", got, res.Jobs[0].Deadline, res.Jobs[1].Deadline)
	}
	// Packed at halves with ρ = 0.5 (twoKinds' A with A): each runs at
	// 10 × 0.5 = 5 steps/s, half its solo pace; 60 steps take 12 s against
	// 6 s alone. f = 1.5 is missed (ends at 12 > 9), f = 2 met (12 ≤ 12).
	tk := twoKinds(t, 1)
	pair := []Job{{ID: 1, Kind: 0, Steps: 60}, {ID: 2, Kind: 0, Steps: 60}}
	for _, c := range []struct{ f, want float64 }{{1.5, 0}, {2, 1}} {
		res, err := Simulate(tk, pair, Options{GPUs: 1, Policy: "packing", SLO: SLOThroughput, SLOFactor: c.f}, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if !near(float64(res.Jobs[0].End), 12, 1e-9) || !near(float64(res.Jobs[1].End), 12, 1e-9) {
			t.Fatalf("packed ends %v, %v; want 12, 12", res.Jobs[0].End, res.Jobs[1].End)
		}
		if got := res.Metrics.SLOAttainment; got != c.want {
			t.Errorf("packed, f = %v: throughput SLO attainment %v, want %v", c.f, got, c.want)
		}
	}
}

// TestSharedRunHandComputed: packing puts A (60 steps, solo 10/s) and B
// (100 steps, solo 20/s... scaled) on one GPU at halves. With twoKinds, A
// runs at 6 steps/s and B at 16: A ends at 60/6 = 10 s, B has done 160 of
// 200 steps, then runs alone at 20: ends at 10 + 40/20 = 12 s.
func TestSharedRunHandComputed(t *testing.T) {
	m := twoKinds(t, 1)
	jobs := []Job{{ID: 1, Kind: 0, Steps: 60}, {ID: 2, Kind: 1, Steps: 200}}
	res, err := Simulate(m, jobs, Options{GPUs: 1, Policy: "packing"}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if a, b := res.Jobs[0], res.Jobs[1]; !near(float64(a.End), 10, tolSim) || !near(float64(b.End), 12, tolSim) {
		t.Errorf("ends %v, %v; want 10, 12", a.End, b.End)
	}
	// Busy the whole 12 s: utilisation 1; work = 60/10 + 200/20 = 16
	// GPU-seconds alone in 12: throughput 4/3.
	if mt := res.Metrics; !near(mt.UtilGPU, 1, tolSim) || !near(mt.Throughput, 16.0/12, tolSim) {
		t.Errorf("util %v, throughput %v; want 1, 4/3", mt.UtilGPU, mt.Throughput)
	}
	// Exclusive: A 0–6, B 6–16.
	res, err = Simulate(m, jobs, Options{GPUs: 1, Policy: "exclusive"}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if a, b := res.Jobs[0], res.Jobs[1]; a.End != 6 || b.End != 16 {
		t.Errorf("exclusive ends %v, %v; want 6, 16", a.End, b.End)
	}
}

// TestJCTAvoidsHighInterference: a pair that would fall below half its
// solo pace is not co-located by jct, but is by interference-blind packing.
func TestJCTAvoidsHighInterference(t *testing.T) {
	m, err := NewModel([]Kind{{"A", 1, 1}, {"B", 1, 1}}, [][]float64{{0.1, 0.8}, {0.8, 0.1}})
	if err != nil {
		t.Fatal(err)
	}
	jobs := []Job{{ID: 1, Kind: 0, Steps: 100}, {ID: 2, Kind: 1, Steps: 100}}
	for _, c := range []struct {
		policy string
		shared bool
	}{{"jct", false}, {"packing", true}, {"goodput", false}} {
		res, err := Simulate(m, jobs, Options{GPUs: 1, Policy: c.policy}, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Jobs[1].Shared; got != c.shared {
			t.Errorf("%s: shared %v, want %v", c.policy, got, c.shared)
		}
	}
	// A low-interference pair (ρ = 0.1 both ways) is co-located by jct.
	jobs[1].Kind = 0
	res, err := Simulate(m, jobs, Options{GPUs: 1, Policy: "jct"}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Jobs[1].Shared || !near(float64(res.Jobs[1].End), 100/0.9, tolSim) {
		t.Errorf("jct with a low-interference pair: shared %v, end %v; want true, 100/0.9", res.Jobs[1].Shared, res.Jobs[1].End)
	}
}

// TestJCTShortestFirst: on one GPU with incompatible jobs arriving at
// once, jct runs them shortest first, exclusive in submit order.
func TestJCTShortestFirst(t *testing.T) {
	m, err := NewModel([]Kind{{"A", 1, 1}}, [][]float64{{-1}})
	if err != nil {
		t.Fatal(err)
	}
	jobs := []Job{{ID: 1, Steps: 300}, {ID: 2, Steps: 100}, {ID: 3, Steps: 200}}
	for _, c := range []struct {
		policy string
		ends   []Seconds
	}{{"jct", []Seconds{600, 100, 300}}, {"exclusive", []Seconds{300, 400, 600}}} {
		res, err := Simulate(m, jobs, Options{GPUs: 1, Policy: c.policy}, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		var ends []Seconds
		for _, j := range res.Jobs {
			ends = append(ends, j.End)
		}
		if !slices.Equal(ends, c.ends) {
			t.Errorf("%s: ends %v, want %v", c.policy, ends, c.ends)
		}
	}
}

// TestSLOReserves: with 2 GPUs and half reserved, a non-critical job never
// runs on the reserved GPU (CriticalFraction 1e-9: almost surely no job is
// critical, and the reserve is on); the default (0.1, one GPU) alike; an
// explicit 0 is not the default: it reserves nothing; a reservation leaves
// the others a GPU (0.9 of 2 GPUs keeps one), and keeps none for no
// critical job.
func TestSLOReserves(t *testing.T) {
	m, jobs := oneKind(t, 6, 100)
	for _, c := range []struct {
		r        *float64
		makespan Seconds
	}{{new(0.5), 600}, {nil, 600}, {new(0.0), 300}, {new(0.9), 600}} {
		o := Options{GPUs: 2, Policy: "slo", CriticalFraction: 1e-9, ReservedFraction: c.r}
		res, err := Simulate(m, jobs, o, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if res.Metrics.Makespan != c.makespan {
			t.Errorf("reserved_fraction %v: makespan %v, want %v", c.r, res.Metrics.Makespan, c.makespan)
		}
	}
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{GPUs: 2, Policy: "slo", CriticalFraction: 0.2, ReservedFraction: new(1.0)}, "reserved_fraction: 1 is not in [0, 1)"},
		{Options{GPUs: 4, Policy: "slo", ReservedFraction: new(0.25)}, "no job is critical"},
	} {
		if err := c.o.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
	if err := (Options{GPUs: 4, Policy: "slo", CriticalFraction: 0.2, ReservedFraction: new(0.5)}).Validate(); err != nil {
		t.Errorf("half of 4 GPUs reserved: %v", err)
	}
}

// alpha 0 keeps every weight at 1; the default moves them.
func TestAlphaZero(t *testing.T) {
	m, err := NewModel([]Kind{{"A", 1, 1}}, [][]float64{{0.5}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		alpha *float64
		moved bool
	}{{new(0.0), false}, {nil, true}} {
		s := &sim{m: m, o: Options{Alpha: c.alpha}.withDefaults(), pred: []float64{1}, now: 100}
		s.jobs = []job{{Job: Job{Steps: 200}, solo: 1, done: 100, rate: 0.5, deadline: 250, state: running, weight: 1}}
		s.run = []int{0}
		s.updateWeights()
		if moved := s.jobs[0].weight != 1; moved != c.moved {
			t.Errorf("alpha %v: weight %v", c.alpha, s.jobs[0].weight)
		}
	}
}

func TestSwitches(t *testing.T) {
	m, err := NewModel([]Kind{{"A", 1, 1}}, [][]float64{{-1}})
	if err != nil {
		t.Fatal(err)
	}
	var jobs []Job
	for i := range 40 {
		jobs = append(jobs, Job{ID: int64(i), Steps: 100})
	}
	// One GPU, 40 jobs of 100 s at once, deadline 200 s: from the third on
	// every job misses; after MinFinished jobs attainment is 2/20 < 0.5.
	o := Options{GPUs: 1, Policy: "exclusive", Round: 50, Switches: []Switch{{At: 1000, To: "jct"}, {Below: 0.5, To: "slo"}}}
	res, err := Simulate(m, jobs, o, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	want := []SwitchEvent{{1000, "exclusive", "jct", "at"}, {2000, "jct", "slo", "below"}}
	if !reflect.DeepEqual(res.Switches, want) {
		t.Errorf("switches %+v, want %+v", res.Switches, want)
	}
	if res.Series[len(res.Series)-1].Policy != "slo" {
		t.Errorf("last sample under %q, want slo", res.Series[len(res.Series)-1].Policy)
	}
}

func TestOptionsValidate(t *testing.T) {
	o := Options{GPUs: 0, Policy: "fifo", SLOFactor: 0.5, Alpha: new(-1.0), SLO: "latency", Round: 1e-8,
		Switches: []Switch{{To: "jct"}, {At: 5, Below: 0.5, To: "nope"}}}
	err := o.Validate()
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"gpus: 0", `policy: unknown "fifo" (known: exclusive, goodput, jct, packing, slo)`,
		"switches[0]: want one of", `switches[1].to: unknown "nope"`, "slo_factor: 0.5", "alpha: -1",
		`slo: unknown "latency" (known: completion, throughput)`, "round: 1e-08 is not in [1, 1e+09]"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// randomWorkload draws a model of 1 to 5 kinds (some of 2 or 4 GPUs, some
// pairs incompatible) and 1 to 60 jobs.
func randomWorkload(r *rand.Rand) (*Model, []Job, int) {
	nk := 1 + r.IntN(5)
	kinds := make([]Kind, nk)
	rho := make([][]float64, nk)
	for i := range kinds {
		kinds[i] = Kind{Name: fmt.Sprint("k", i), GPUs: []int{1, 1, 1, 2, 4}[r.IntN(5)], Solo: 0.5 + 10*r.Float64()}
		rho[i] = make([]float64, nk)
	}
	for i := range rho {
		for j := i; j < nk; j++ {
			if r.IntN(4) == 0 {
				rho[i][j], rho[j][i] = -1, -1
			} else {
				rho[i][j], rho[j][i] = 0.95*r.Float64(), 0.95*r.Float64()
			}
		}
	}
	m, err := NewModel(kinds, rho)
	if err != nil {
		panic(err)
	}
	m.ShareExponent = 0.5 + 1.5*r.Float64()
	jobs := make([]Job, 1+r.IntN(60))
	for i := range jobs {
		jobs[i] = Job{ID: int64(i), Kind: r.IntN(nk), Submit: Seconds(r.IntN(5000)), Steps: float64(1 + r.IntN(20000))}
	}
	return m, jobs, 1 + r.IntN(6)
}

// TestInvariants: on random workloads, every policy and a switch: no GPU
// over 100% share, every job completes exactly once after its submit, and
// its completed steps equal its total, the rate × time sum within 1e-6
// of it (the floating-point residue).
func TestInvariants(t *testing.T) {
	names := Policies().Names()
	for seed := range uint64(60) {
		r := rand.New(rand.NewPCG(seed, 7))
		m, jobs, gpus := randomWorkload(r)
		for _, p := range names {
			o := Options{GPUs: gpus, Policy: p, CriticalFraction: 0.3, PredictionSigma: 0.5, Round: Seconds(10 + r.IntN(500)),
				MaxPerGPU: 1 + r.IntN(3), Switches: []Switch{{At: 3000, To: names[r.IntN(len(names))]}, {Below: 0.9, To: names[r.IntN(len(names))]}}}
			if seed%2 == 1 {
				o.SLO = SLOThroughput
			}
			res, err := Simulate(m, jobs, o, rand.New(rand.NewPCG(seed, 1)))
			if err != nil {
				t.Fatalf("seed %d %s: %v", seed, p, err)
			}
			checkInvariants(t, res, jobs, gpus, fmt.Sprintf("seed %d %s", seed, p))
		}
	}
}

func TestDeterminism(t *testing.T) {
	m, jobs, gpus := randomWorkload(rand.New(rand.NewPCG(3, 3)))
	for _, p := range Policies().Names() {
		o := Options{GPUs: gpus, Policy: p, CriticalFraction: 0.3, PredictionSigma: 0.5}
		a, err := Simulate(m, jobs, o, rand.New(rand.NewPCG(42, 0)))
		if err != nil {
			t.Fatal(err)
		}
		b, err := Simulate(m, jobs, o, rand.New(rand.NewPCG(42, 0)))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two runs with one seed differ", p)
		}
	}
}

// checkInvariants reports broken invariants of a run of jobs on gpus GPUs.
func checkInvariants(t *testing.T, res *Result, jobs []Job, gpus int, what string) {
	t.Helper()
	if res.MaxShare > 1+1e-9 {
		t.Errorf("%s: a GPU held %v shares", what, res.MaxShare)
	}
	for _, j := range res.Jobs {
		// A deadline is never below submit + the solo run time (f ≥ 1, and a
		// throughput SLO counts from the start), and the SLO is met exactly
		// when the job ends by it.
		if j.End >= 0 && (j.MetSLO != (j.End <= j.Deadline) || j.Deadline < j.Submit+j.SoloTime-1e-9) {
			t.Errorf("%s: job %d submitted %v, ended %v, solo %v, deadline %v, met %v", what, j.ID, j.Submit, j.End, j.SoloTime, j.Deadline, j.MetSLO)
		}
	}
	seen := map[int64]bool{}
	for _, j := range res.Jobs {
		if seen[j.ID] {
			t.Errorf("%s: job %d twice", what, j.ID)
		}
		seen[j.ID] = true
		if j.Status == Unschedulable {
			if j.GPUs <= gpus || j.Start != -1 {
				t.Errorf("%s: job %d unschedulable with %d GPUs of %d", what, j.ID, j.GPUs, gpus)
			}
			continue
		}
		if !(j.Submit <= j.Start && j.Start < j.End) || j.Done != j.Steps || math.Abs(j.Residue) > 1e-6*j.Steps {
			t.Errorf("%s: job %d submit %v start %v end %v done %v of %v residue %v",
				what, j.ID, j.Submit, j.Start, j.End, j.Done, j.Steps, j.Residue)
		}
		if float64(j.End-j.Start) < float64(j.SoloTime)*(1-tolSim) {
			t.Errorf("%s: job %d ran %v s, faster than alone (%v s)", what, j.ID, j.End-j.Start, j.SoloTime)
		}
	}
	if len(seen) != len(jobs) {
		t.Errorf("%s: %d jobs in the result, %d given", what, len(seen), len(jobs))
	}
}

// FuzzSimulate runs the invariants of TestInvariants on workloads drawn
// from the fuzzer's seed, with the policy, switch and options it picks.
func FuzzSimulate(f *testing.F) {
	for i := range uint64(8) {
		f.Add(i, uint8(i), uint8(i*3), 0.3, 100.0)
	}
	names := Policies().Names()
	f.Fuzz(func(t *testing.T, seed uint64, policy, to uint8, sigma, round float64) {
		if !(sigma >= 0 && sigma <= 10) || !(round >= 1 && round <= 1e6) {
			t.Skip()
		}
		r := rand.New(rand.NewPCG(seed, 11))
		m, jobs, gpus := randomWorkload(r)
		o := Options{GPUs: gpus, Policy: names[int(policy)%len(names)], PredictionSigma: sigma, Round: Seconds(round),
			CriticalFraction: 0.25, Switches: []Switch{{Below: 0.95, To: names[int(to)%len(names)]}}}
		res, err := Simulate(m, jobs, o, rand.New(rand.NewPCG(seed, 12)))
		if err != nil {
			t.Fatal(err)
		}
		checkInvariants(t, res, jobs, gpus, o.Policy)
	})
}

// TestWeights: a running job behind its deadline pace gains weight, one
// ahead loses it (target 0.95 < 1), and one that cannot meet its deadline
// even alone keeps weight 1.
func TestWeights(t *testing.T) {
	m, err := NewModel([]Kind{{"A", 1, 1}}, [][]float64{{0.5}})
	if err != nil {
		t.Fatal(err)
	}
	s := &sim{m: m, o: Options{Alpha: new(0.5), SLOTarget: 0.95}, pred: []float64{1}, now: 100}
	s.jobs = []job{
		// 100 steps left, 150 s to the deadline, at 0.5 steps/s: attainment 0.75.
		{Job: Job{Steps: 200}, solo: 1, done: 100, rate: 0.5, deadline: 250, state: running, weight: 1},
		// 100 left, 300 s, at 1: attainment 1.
		{Job: Job{Steps: 200}, solo: 1, done: 100, rate: 1, deadline: 400, state: running, weight: 1},
		// 100 left, 50 s: misses even alone.
		{Job: Job{Steps: 200}, solo: 1, done: 100, rate: 1, deadline: 150, state: running, weight: 1},
		// Waiting, 100 steps, 300 s: attainment 1 at the predicted solo rate.
		{Job: Job{Steps: 100}, solo: 1, deadline: 400, state: waiting, weight: 1},
	}
	s.run, s.queue = []int{0, 1, 2}, []int{3}
	s.updateWeights()
	for i, want := range []float64{math.Exp(0.5 * 0.2), math.Exp(0.5 * -0.05), 1, math.Exp(0.5 * -0.05)} {
		if got := s.jobs[i].weight; !near(got, want, tolModel) {
			t.Errorf("job %d: weight %v, want %v", i, got, want)
		}
	}
}

// TestSLOHopelessGetsNoPriority: the slo policy's larger share of a shared
// GPU goes to a job at risk that can still meet its deadline alone, not to
// one that cannot. On one GPU a blocker (incompatible) runs until 1200;
// job 2 (700 steps, deadline 1700) then starts already hopeless (alone it
// would end at 1900); job 3 (300 steps, deadline 1850) joins it at 1250 and,
// on an equal share, meets its deadline (1583). Given three quarters of the
// GPU, hopeless job 2 would still miss and push job 3 past its deadline
// (1917).
func TestSLOHopelessGetsNoPriority(t *testing.T) {
	m, err := NewModel([]Kind{{"A", 1, 1}, {"B", 1, 1}}, [][]float64{{0.1, -1}, {-1, -1}})
	if err != nil {
		t.Fatal(err)
	}
	jobs := []Job{{ID: 0, Kind: 1, Steps: 1200}, {ID: 2, Kind: 0, Submit: 300, Steps: 700}, {ID: 3, Kind: 0, Submit: 1250, Steps: 300}}
	res, err := Simulate(m, jobs, Options{GPUs: 1, Policy: "slo"}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	j2, j3 := res.Jobs[1], res.Jobs[2]
	if !j2.Shared || !j3.Shared || j2.Start != 1200 || j3.Start != 1250 {
		t.Fatalf("jobs 2 and 3 do not share as the test needs: %+v, %+v", j2, j3)
	}
	if j3.End > j3.Deadline || !near(float64(j3.End), 1583.33, 1e-3) {
		t.Errorf("job 3 ends at %v (deadline %v), want about 1583: the hopeless job took the larger share", j3.End, j3.Deadline)
	}
}

// TestReservedRounding: the slo policy reserves the reserved fraction of
// the GPUs rounded up, counting a product a hair above a whole number as
// that number: 0.14 × 50 GPUs is 7 (7.000000000000001 in floats reserved
// 8), so 43 non-critical jobs run at once, not 42.
func TestReservedRounding(t *testing.T) {
	m, jobs := oneKind(t, 60, 1000)
	for _, c := range []struct {
		frac float64
		gpus int
		runs int
	}{{0.14, 50, 43}, {0.07, 100, 93}, {0.55, 100, 45}, {0.15, 50, 42}} {
		o := Options{GPUs: c.gpus, Policy: "slo", CriticalFraction: 1e-300, ReservedFraction: new(c.frac)}
		res, err := Simulate(m, jobs, o, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Series[0].Running; got != min(c.runs, len(jobs)) {
			t.Errorf("%g of %d GPUs reserved: %d jobs run at once, want %d", c.frac, c.gpus, got, c.runs)
		}
	}
}

// TestHugeClock: a submit past 2^50 s is refused, where rounds of a second
// fell below the clock's resolution and the simulation never ended; one
// at 2^49 s, after a gap of 2^49 rounds, ends (the gap jumped at once).
func TestHugeClock(t *testing.T) {
	m, _ := oneKind(t, 0, 0)
	o := Options{GPUs: 1, Policy: "exclusive", Round: 1}
	if _, err := Simulate(m, []Job{{ID: 0, Submit: 1e17, Steps: 10}}, o, rand.New(rand.NewPCG(1, 1))); err == nil || !strings.Contains(err.Error(), "want positive steps at a time from 0 to 2^50 s") {
		t.Errorf("a submit at 1e17 s: %v", err)
	}
	res, err := Simulate(m, []Job{{ID: 0, Submit: 0, Steps: 10}, {ID: 1, Submit: 1 << 49, Steps: 10}}, o, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if j := res.Jobs[1]; j.End != 1<<49+10 {
		t.Errorf("the job submitted at 2^49 s ended at %v, want 2^49 + 10", j.End)
	}
}

// oneKind is a model of one kind of job on one GPU at rate 1 that shares
// with nothing, and n jobs of it of steps each.
func oneKind(t *testing.T, n int, steps float64) (*Model, []Job) {
	t.Helper()
	m, err := NewModel([]Kind{{"A", 1, 1}}, [][]float64{{-1}})
	if err != nil {
		t.Fatal(err)
	}
	var jobs []Job
	for i := range n {
		jobs = append(jobs, Job{ID: int64(i), Steps: steps})
	}
	return m, jobs
}

// TestNoKind: a job of no kind (no throughput on these GPUs) is
// unschedulable, its deadline NaN and solo time 0, counted as such, and
// the others run as they would without it; a NoKind job of no GPUs, or a
// kind out of range, is an error.
func TestNoKind(t *testing.T) {
	m, err := NewModel([]Kind{{"A", 1, 1}}, [][]float64{{-1}})
	if err != nil {
		t.Fatal(err)
	}
	base := []Job{{ID: 1, Steps: 300}, {ID: 3, Submit: 10, Steps: 200}}
	with := append(slices.Clone(base), Job{ID: 2, Kind: NoKind, GPUs: 2, Submit: 5, Steps: 100})
	for _, policy := range []string{"exclusive", "jct", "packing", "goodput", "slo"} {
		o := Options{GPUs: 1, Policy: policy}
		a, err := Simulate(m, base, o, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		b, err := Simulate(m, with, o, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Jobs) != 3 || b.Metrics.Jobs != 3 || b.Metrics.Unschedulable != 1 || b.Metrics.Completed != 2 {
			t.Fatalf("%s: %d jobs, metrics %+v; want 3, one unschedulable", policy, len(b.Jobs), b.Metrics)
		}
		for _, j := range b.Jobs {
			if j.ID != 2 {
				continue
			}
			if j.Status != Unschedulable || !math.IsNaN(float64(j.Deadline)) || j.SoloTime != 0 || j.Start != -1 || j.GPUs != 2 || j.MetSLO {
				t.Errorf("%s: the job of no kind: %+v", policy, j)
			}
		}
		ends := map[int64]Seconds{}
		for _, j := range a.Jobs {
			ends[j.ID] = j.End
		}
		for _, j := range b.Jobs {
			if j.ID != 2 && j.End != ends[j.ID] {
				t.Errorf("%s: job %d ends at %v, %v without the job of no kind", policy, j.ID, j.End, ends[j.ID])
			}
		}
		if b.Metrics.MeanJCT != a.Metrics.MeanJCT || b.Metrics.SLOAttainment != a.Metrics.SLOAttainment {
			t.Errorf("%s: metrics %+v, %+v without the job of no kind", policy, b.Metrics, a.Metrics)
		}
	}
	for _, bad := range []Job{{ID: 4, Kind: NoKind, Steps: 1}, {ID: 5, Kind: 1, Steps: 1}, {ID: 6, Kind: -2, GPUs: 1, Steps: 1}} {
		if _, err := Simulate(m, []Job{bad}, Options{GPUs: 1, Policy: "exclusive"}, rand.New(rand.NewPCG(1, 1))); err == nil {
			t.Errorf("job %+v accepted", bad)
		}
	}
}

// TestGoodputGreedyDefers: three jobs of one kind that barely shares (ρ
// 0.1) on three GPUs, two arriving at once: under goodput each takes a GPU
// of its own (an empty GPU's gain, 1, beats joining at half shares, 0.8).
// The second arrival once joined the first job's GPU in the pass where
// its empty move conflicted with the other arrival's, leaving a GPU idle
// (a reviewer's find).
func TestGoodputGreedyDefers(t *testing.T) {
	m, err := NewModel([]Kind{{"A", 1, 1}}, [][]float64{{0.1}})
	if err != nil {
		t.Fatal(err)
	}
	jobs := []Job{{ID: 1, Kind: 0, Submit: 0, Steps: 1000}, {ID: 2, Kind: 0, Submit: 1, Steps: 1000}, {ID: 3, Kind: 0, Submit: 1, Steps: 1000}}
	r, err := Simulate(m, jobs, Options{GPUs: 3, Policy: "goodput"}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range r.Jobs {
		if j.Shared || j.End != j.Start+1000 {
			t.Errorf("job %d: %v–%v shared %v, want a GPU of its own for 1,000 s", j.ID, j.Start, j.End, j.Shared)
		}
	}
}

// TestSLOCriticalOnReserved: a critical job takes the reserved GPU, where
// it is empty, so that the open GPU is left for the others: two jobs that
// cannot share on two GPUs, half of them reserved, the first critical,
// both run at once (the critical job once took the open GPU, and the other
// waited for it while the reserved one idled: a reviewer's find).
func TestSLOCriticalOnReserved(t *testing.T) {
	m, err := NewModel([]Kind{{"A", 1, 1}}, [][]float64{{-1}})
	if err != nil {
		t.Fatal(err)
	}
	jobs := []Job{{ID: 1, Kind: 0, Submit: 0, Steps: 1000}, {ID: 2, Kind: 0, Submit: 1, Steps: 1000}}
	found := false
	for seed := uint64(0); seed < 200 && !found; seed++ {
		r, err := Simulate(m, jobs, Options{GPUs: 2, Policy: "slo", CriticalFraction: 0.5, ReservedFraction: new(0.5)}, rand.New(rand.NewPCG(seed, 0)))
		if err != nil {
			t.Fatal(err)
		}
		if !r.Jobs[0].Critical || r.Jobs[1].Critical {
			continue // a draw that makes the first critical and the second not
		}
		found = true
		if r.Jobs[1].Start != 1 {
			t.Errorf("seed %d: the second job started at %v, want 1 (on the open GPU)", seed, r.Jobs[1].Start)
		}
	}
	if !found {
		t.Fatal("no seed drew the first job critical and the second not")
	}
}
