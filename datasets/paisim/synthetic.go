package paisim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/wb-sim/wb/scheduler"
)

// SyntheticRand is the generator wb dataset pai-sim-synthetic draws with
// for a seed.
func SyntheticRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9a15)) }

// SyntheticParams describe a generated job table shaped like the PAI v2020
// trace: few heavy users, each with a few groups of repeated jobs (the
// trace's group tags), jobs of one group alike in request and duration.
// Every parameter is explicit; the model is not fitted to the trace, whose
// job tables are not bundled.
type SyntheticParams struct {
	Jobs  int // required
	Users int // default 100
	// MeanInterarrival is the mean time between submissions, s
	// (exponential); default 30.
	MeanInterarrival float64
}

// Synthetic generates a job table with r:
//
//   - user u (0-based) submits with weight 1/(u+1) (Zipf-like: the first
//     users submit most jobs, as in the trace);
//   - each user has 1 to 5 groups (uniform); a job picks one of its
//     user's groups uniformly;
//   - a group asks, per instance, 0 GPUs (10% of groups; 2–16 cores),
//     or 0.25, 0.5, 1, 2, 4 or 8 GPUs (weights 15, 25, 35, 10, 8, 7) with
//     4–12 cores per GPU (at least 1 core); 1 instance (85%) or 2, 4, 8 or
//     16; a GPU type of T4, P100, V100 or MISC (weights 3, 3, 3, 1);
//   - a job of a GPU group runs on its group's GPU type, or (30%) on
//     another drawn with the same weights;
//   - a group's median duration is lognormal (median 10 min, σ 1.8) and a
//     job's duration that median × lognormal(σ 0.6) × its GPU type's
//     slowness (V100 1, P100 1.4, T4 1.8, MISC 2), 1 s to 7 days;
//   - submissions are a Poisson process;
//   - estimates come from the past as [Derive] makes them, each job
//     ending at its submission plus its duration (no queueing).
func Synthetic(p SyntheticParams, r *rand.Rand) ([]Row, error) {
	if p.Jobs <= 0 || p.Jobs > 1<<24 {
		return nil, fmt.Errorf("synthetic pai-sim table: %d jobs; want 1 to 2^24", p.Jobs)
	}
	if p.Users == 0 {
		p.Users = 100
	}
	if p.MeanInterarrival == 0 {
		p.MeanInterarrival = 30
	}
	if p.Users < 0 || p.Users > 1<<20 || !(p.MeanInterarrival > 0 && p.MeanInterarrival < 1e6) {
		return nil, errors.New("synthetic pai-sim table: users must be 1 to 2^20 and the mean interarrival above 0 and below 10^6 s")
	}
	type group struct {
		name           string
		gpuPct, cpuPct int64
		inst           int
		gpuType        string
		median         float64
	}
	pick := func(w []float64) int {
		total := 0.0
		for _, x := range w {
			total += x
		}
		u := r.Float64() * total
		for i, x := range w {
			if u < x {
				return i
			}
			u -= x
		}
		return len(w) - 1
	}
	types, typeWeights := []string{"T4", "P100", "V100", "MISC"}, []float64{3, 3, 3, 1}
	slowness := map[string]float64{"": 1, "V100": 1, "P100": 1.4, "T4": 1.8, "MISC": 2}
	users := make([][]group, p.Users)
	weights := make([]float64, p.Users)
	for u := range users {
		weights[u] = 1 / float64(u+1)
		for g := range 1 + r.IntN(5) {
			gr := group{name: fmt.Sprintf("g%d-%d", u, g), inst: 1}
			if r.Float64() < 0.1 {
				gr.cpuPct = 100 * int64(2+r.IntN(15))
			} else {
				gpus := []float64{0.25, 0.5, 1, 2, 4, 8}[pick([]float64{15, 25, 35, 10, 8, 7})]
				gr.gpuPct = int64(gpus * 100)
				gr.cpuPct = max(100, int64(math.Round(gpus*float64(4+r.IntN(9))))*100)
				gr.gpuType = types[pick(typeWeights)]
			}
			if r.Float64() >= 0.85 {
				gr.inst = []int{2, 4, 8, 16}[r.IntN(4)]
			}
			gr.median = 600 * math.Exp(1.8*r.NormFloat64())
			users[u] = append(users[u], gr)
		}
	}
	// the users' weights summed as pick sums them, and a user drawn by a
	// binary search of the running sums: pick's walk over every user took
	// time in proportion to the users for each job (hours at 2^24 jobs of
	// 2^20 users: a reviewer's find); the same draws, but where u falls
	// within rounding of a running sum
	cum := make([]float64, len(weights))
	total := 0.0
	for i, x := range weights {
		total += x
		cum[i] = total
	}
	pickUser := func() int {
		u := r.Float64() * total
		i, _ := slices.BinarySearchFunc(cum, u, func(c, u float64) int {
			if c <= u {
				return -1
			}
			return 1
		})
		return min(i, len(cum)-1)
	}
	rows := make([]Row, p.Jobs)
	groups := make([]string, p.Jobs)
	ends := make([]scheduler.Time, p.Jobs)
	t := 0.0
	for i := range rows {
		t += r.ExpFloat64() * p.MeanInterarrival
		u := pickUser()
		g := users[u][r.IntN(len(users[u]))]
		if g.gpuType != "" && r.Float64() < 0.3 {
			g.gpuType = types[pick(typeWeights)]
		}
		d := g.median * math.Exp(0.6*r.NormFloat64()) * slowness[g.gpuType]
		dur := scheduler.Time(math.Min(math.Max(math.Round(d), 1), 7*86400))
		rows[i] = Row{ID: int64(i), User: fmt.Sprintf("u%03d", u), GPUPct: g.gpuPct, CPUPct: g.cpuPct,
			Submit: scheduler.Time(math.Floor(t)), Duration: dur, Inst: g.inst, GPUType: g.gpuType}
		groups[i] = g.name
		ends[i] = rows[i].Submit + dur
	}
	if !slices.IsSortedFunc(rows, func(a, b Row) int { return int(a.Submit - b.Submit) }) {
		return nil, errors.New("synthetic pai-sim table: submissions out of order")
	}
	Estimate(rows, groups, ends, true)
	return rows, nil
}
