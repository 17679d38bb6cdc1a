package sharing

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/wb-sim/wb/internal/registry"
)

// Policy decides, at every scheduling point, which waiting jobs start where
// and the shares on each GPU.
type Policy interface {
	Name() string
	Place(v *View)
}

// Rounder is a policy with work to do once per round, before Place.
type Rounder interface {
	Round(v *View)
}

// Factory makes a policy for a run's options.
type Factory func(o Options) Policy

// Registry names the policies (a registry.Registry of factories).
type Registry struct {
	*registry.Registry[Factory]
}

// NewRegistry returns an empty registry of policies.
func NewRegistry() Registry { return Registry{registry.New[Factory]("policy")} }

// Register adds a policy; a duplicate name is an error.
func (r Registry) Register(name string, f Factory) error {
	if err := r.Registry.Register(name, f); err != nil {
		return fmt.Errorf("sharing: %w", err)
	}
	return nil
}

// New makes the policy name.
func (r Registry) New(name string, o Options) (Policy, error) {
	f, err := r.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("sharing: %w", err)
	}
	return f(o), nil
}

// Policies is the registry of the built-in policies.
func Policies() Registry {
	r := NewRegistry()
	r.MustRegister("exclusive", func(Options) Policy { return Exclusive{} })
	r.MustRegister("packing", func(Options) Policy { return Packing{} })
	r.MustRegister("jct", func(o Options) Policy { return JCT{MaxInterference: *o.withDefaults().MaxInterference} })
	r.MustRegister("slo", func(o Options) Policy {
		o = o.withDefaults()
		return &SLO{MaxInterference: *o.MaxInterference, Reserved: *o.ReservedFraction}
	})
	r.MustRegister("goodput", func(Options) Policy { return Goodput{} })
	return r
}

var (
	_ Policy = Exclusive{}
	_ Policy = Packing{}
	_ Policy = JCT{}
	_ Policy = (*SLO)(nil)
	_ Policy = Goodput{}
)

// emptyGPUs lists the empty GPUs that ok allows, in index order.
func emptyGPUs(v *View, ok func(g int) bool) []int {
	var out []int
	for g := range v.GPUs() {
		if v.Empty(g) && (ok == nil || ok(g)) {
			out = append(out, g)
		}
	}
	return out
}

// Exclusive gives every job whole GPUs of its own, in submit order; a job
// that does not fit yet does not hold back those behind it.
type Exclusive struct{}

func (Exclusive) Name() string { return "exclusive" }

func (Exclusive) Place(v *View) {
	for _, i := range v.Waiting() {
		if free := emptyGPUs(v, nil); len(free) >= v.Job(i).GPUs {
			v.Start(i, free[:v.Job(i).GPUs])
		}
	}
}

// Packing is interference-blind packing: in submit order, a single-GPU
// job joins the busiest GPU it may join (fewest free slots, then lowest
// index; memory permitting), else takes an empty one, the shares split
// equally; jobs of several GPUs take empty GPUs.
type Packing struct{}

func (Packing) Name() string { return "packing" }

func (Packing) Place(v *View) {
	for _, i := range v.Waiting() {
		j := v.Job(i)
		if j.GPUs == 1 {
			best, most := -1, 0
			for g := range v.GPUs() {
				if n := v.Count(g); n > most && v.CanJoin(i, g) {
					best, most = g, n
				}
			}
			if best >= 0 {
				v.Start(i, []int{best})
				continue
			}
		}
		if free := emptyGPUs(v, nil); len(free) >= j.GPUs {
			v.Start(i, free[:j.GPUs])
		}
	}
}

// JCT is a modified shortest-job-first: waiting jobs in order of predicted
// run time (the predictions corrected as progress is observed, so the
// order changes with it); each takes an empty GPU, or else joins the GPU
// where the pair's predicted combined pace gains most, provided no job on
// it would fall below 1 − MaxInterference of the pace its share gives it
// (its solo pace × ShareScale(share)) and the pair does more than the GPU
// did.
type JCT struct{ MaxInterference float64 }

func (JCT) Name() string { return "jct" }

func (p JCT) Place(v *View) {
	q := v.Waiting()
	// each job's predicted remaining time computed once, not per comparison
	rem := make(map[int]Seconds, len(q))
	for _, i := range q {
		rem[i] = v.PredRemaining(i)
	}
	slices.SortStableFunc(q, func(a, b int) int { return cmp.Compare(rem[a], rem[b]) })
	for _, i := range q {
		placeLowInterference(v, i, p.MaxInterference, nil, 0)
	}
}

// placeLowInterference starts job i on an empty GPU that ok allows, else
// on the allowed GPU where co-location gains most (see JCT), with share
// for the newcomer when positive (else equal shares). It reports whether
// the job started.
func placeLowInterference(v *View, i int, maxInterference float64, ok func(g int) bool, share float64) bool {
	j := v.Job(i)
	if free := emptyGPUs(v, ok); len(free) >= j.GPUs {
		v.Start(i, free[:j.GPUs])
		return true
	}
	if j.GPUs != 1 {
		return false
	}
	best, gain := -1, 0.0
	for g := range v.GPUs() {
		if v.Empty(g) || !v.CanJoin(i, g) || (ok != nil && !ok(g)) {
			continue
		}
		before := v.Slots(g)
		after := withNewcomer(before, j.Kind, share)
		sumB, sumA, fine := 0.0, 0.0, true
		for k := range before {
			sumB += v.Norm(before, k)
		}
		for k := range after {
			n := v.Norm(after, k)
			sumA += n
			if n < (1-maxInterference)*ShareScale(after[k].Share, v.Model().ShareExponent) {
				fine = false
			}
		}
		if fine && sumA-sumB > gain {
			best, gain = g, sumA-sumB
		}
	}
	if best < 0 {
		return false
	}
	slots := v.Slots(best)
	v.Start(i, []int{best})
	if share > 0 {
		v.SetShares(best, sharesOf(withNewcomer(slots, j.Kind, share)))
	}
	return true
}

// withNewcomer is slots plus a job of kind with share (the others scaled
// to the rest), or equal shares when share is 0.
func withNewcomer(slots []Slot, kind int, share float64) []Slot {
	n := len(slots) + 1
	out := make([]Slot, 0, n)
	if share <= 0 || n == 1 {
		for _, s := range slots {
			out = append(out, Slot{Kind: s.Kind, Share: 1 / float64(n)})
		}
		return append(out, Slot{Kind: kind, Share: 1 / float64(n)})
	}
	sum := 0.0
	for _, s := range slots {
		sum += s.Share
	}
	for _, s := range slots {
		out = append(out, Slot{Kind: s.Kind, Share: s.Share / sum * (1 - share)})
	}
	return append(out, Slot{Kind: kind, Share: share})
}

func sharesOf(slots []Slot) []float64 {
	out := make([]float64, len(slots))
	for k, s := range slots {
		out[k] = s.Share
	}
	return out
}

// SLO guarantees deadlines: waiting jobs at risk (they would still meet
// their deadline alone, but not with 10% to spare) come first, then by
// earliest deadline, jobs that can no longer meet theirs last. Critical and
// at-risk jobs take an empty GPU where they can, else join a low-
// interference partner with three quarters of the GPU; the others place as
// under JCT. The last Reserved share of the GPUs (rounded up, at most all
// but one) is kept for critical jobs, but for a gang of more GPUs than the rest has (which
// could never run otherwise). Running jobs at risk that share a GPU get
// three quarters of it.
type SLO struct {
	MaxInterference float64
	Reserved        float64
}

func (*SLO) Name() string { return "slo" }

// Priority share given to a job at risk on a shared GPU.
const atRiskShare = 0.75

func (p *SLO) Place(v *View) {
	// the fraction's GPUs rounded up, a product that lands a hair above a
	// whole number counted as that number (0.14 × 50 is 7.000000000000001
	// in floats: 8 were reserved, a reviewer's find)
	reserved := min(int(math.Ceil(p.Reserved*float64(v.GPUs())-1e-9)), v.GPUs()-1)
	open := v.GPUs() - reserved
	risk := func(i int) int { // 0 at risk, 1 on track, 2 hopeless
		j := v.Job(i)
		switch {
		case v.Hopeless(i):
			return 2
		case v.Now()+Seconds(1.1*float64(v.PredRemaining(i))) > j.Deadline:
			return 0
		}
		return 1
	}
	// the queue in order of risk, critical first, then deadline: each
	// job's key computed once (nothing changes while it is sorted)
	type key struct {
		i, risk  int
		critical bool
		deadline Seconds
	}
	q := v.Waiting()
	keys := make([]key, len(q))
	for k, i := range q {
		j := v.Job(i)
		keys[k] = key{i, risk(i), j.Critical, j.Deadline}
	}
	slices.SortStableFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.risk, b.risk), -cmpBool(a.critical, b.critical), cmp.Compare(a.deadline, b.deadline))
	})
	for k := range keys {
		q[k] = keys[k].i
	}
	for _, i := range q {
		j := v.Job(i)
		// a critical job takes the reserved GPUs first, where they hold it
		// empty: on an open GPU it left the reserved one idle while the
		// others waited (a reviewer's find)
		if j.Critical && reserved > 0 {
			if free := emptyGPUs(v, func(g int) bool { return g >= open }); len(free) >= j.GPUs {
				v.Start(i, free[:j.GPUs])
				continue
			}
		}
		ok := func(g int) bool { return g < open || j.Critical || j.GPUs > open }
		share := 0.0
		if j.Critical || risk(i) == 0 {
			share = atRiskShare
		}
		placeLowInterference(v, i, p.MaxInterference, ok, share)
	}
	// Running jobs at risk get the larger share of a shared pair.
	for g := range v.GPUs() {
		on := v.OnGPU(g)
		if len(on) != 2 {
			continue
		}
		slots := v.Slots(g)
		var at [2]bool
		for k, i := range on {
			// at risk: behind at this share, though still able to meet its
			// deadline alone (a hopeless job takes no share from one that
			// can)
			at[k] = v.Attain(i, v.PredEff(slots, k)) < 1 && !v.Hopeless(i)
		}
		switch {
		case at[0] && !at[1]:
			v.SetShares(g, []float64{atRiskShare, 1 - atRiskShare})
		case at[1] && !at[0]:
			v.SetShares(g, []float64{1 - atRiskShare, atRiskShare})
		}
	}
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// Goodput maximises Σ_m w_m × T_eff(m)/T_meas(m) × Q_m, the Sia-like
// objective of the KETI design with each job's pace normalised by its solo
// one (steps per second of different models do not add up). Q_m = 0.1 +
// 0.9 × SLO_actual_m at the pace considered (late work counts a little, so
// that no job waits for ever). The weights are updated every round by the
// simulator. Placement is greedy on the objective: of every waiting job's
// placements (empty GPUs, or a GPU it may join at a quarter, half or three
// quarters of it), the one that raises the objective most is made, then
// the next, until none raises it; then the shares of every shared pair are
// chosen from those to maximise it.
type Goodput struct{}

func (Goodput) Name() string { return "goodput" }

// Quality is Q of an attainment: 0.1 + 0.9 × attainment.
func Quality(attainment float64) float64 { return 0.1 + 0.9*attainment }

var shareGrid = []float64{0.25, 0.5, 0.75}

// objective is Σ w × norm × Q over the jobs (indices, in slot order) of
// slots.
func objective(v *View, jobs []int, slots []Slot) float64 {
	sum := 0.0
	for k, i := range jobs {
		j := v.Job(i)
		sum += j.Weight * v.Norm(slots, k) * Quality(v.Attain(i, v.PredEff(slots, k)))
	}
	return sum
}

func (Goodput) Place(v *View) {
	// Greedy on the objective: every (waiting job, placement) with its
	// gain, best first; a placement whose GPU or job an earlier one took is
	// evaluated again in the next pass.
	type move struct {
		job   int
		gpus  []int
		share float64
		gain  float64
	}
	for {
		var moves []move
		free := emptyGPUs(v, nil)
		for _, i := range v.Waiting() {
			j := v.Job(i)
			if len(free) >= j.GPUs {
				slots := []Slot{{Kind: j.Kind, Share: 1}}
				moves = append(moves, move{i, free[:j.GPUs], 0, objective(v, []int{i}, slots)})
			}
			if j.GPUs != 1 {
				continue
			}
			for g := range v.GPUs() {
				if v.Empty(g) || !v.CanJoin(i, g) {
					continue
				}
				on := v.OnGPU(g)
				before := objective(v, on, v.Slots(g))
				grid := shareGrid
				if len(on) > 1 {
					grid = []float64{0} // equal shares among three or more
				}
				for _, s := range grid {
					if d := objective(v, append(on, i), withNewcomer(v.Slots(g), j.Kind, s)) - before; d > 0 {
						moves = append(moves, move{i, []int{g}, s, d})
					}
				}
			}
		}
		slices.SortStableFunc(moves, func(a, b move) int { return -cmp.Compare(a.gain, b.gain) })
		started := map[int]bool{}
		touched := map[int]bool{}
		// a job whose best move an earlier one took waits for the next
		// pass, where its moves are evaluated again: a worse move of it
		// made now (joining a shared GPU where its empty one was taken,
		// with another empty) fell below the greedy's objective (a
		// reviewer's find)
		deferred := map[int]bool{}
		for _, mv := range moves {
			if started[mv.job] || deferred[mv.job] {
				continue
			}
			if slices.ContainsFunc(mv.gpus, func(g int) bool { return touched[g] }) {
				deferred[mv.job] = true
				continue
			}
			slots := v.Slots(mv.gpus[0])
			v.Start(mv.job, mv.gpus)
			if mv.share > 0 {
				v.SetShares(mv.gpus[0], sharesOf(withNewcomer(slots, v.Job(mv.job).Kind, mv.share)))
			}
			started[mv.job] = true
			for _, g := range mv.gpus {
				touched[g] = true
			}
		}
		if len(started) == 0 {
			break
		}
	}
	// Re-split every shared pair.
	for g := range v.GPUs() {
		on := v.OnGPU(g)
		if len(on) != 2 {
			continue
		}
		slots := v.Slots(g)
		bestS, bestObj := slots[0].Share, objective(v, on, slots)
		for _, s := range shareGrid {
			try := []Slot{{Kind: slots[0].Kind, Share: s}, {Kind: slots[1].Kind, Share: 1 - s}}
			if o := objective(v, on, try); o > bestObj+1e-12 {
				bestS, bestObj = s, o
			}
		}
		v.SetShares(g, []float64{bestS, 1 - bestS})
	}
}
