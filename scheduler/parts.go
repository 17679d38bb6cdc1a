package scheduler

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"

	"github.com/wb-sim/wb/internal/registry"
)

// Entry is a job as the queue order and the estimators see it.
type Entry struct {
	Job *Job
	// Estimate is the run time the scheduler plans with.
	Estimate Time
	// Fine is the estimate before rounding to a second, from a
	// FineEstimator; 0 otherwise.
	Fine float64
}

// Registry maps the names of one kind of part to constructors (a
// registry.Registry of them). It is built in plain code; a fresh part is
// made for every simulation, so parts with memory (round-robin's cursor)
// never leak between runs.
type Registry[T any] struct {
	*registry.Registry[func() T]
}

// NewRegistry returns an empty registry for parts of the given kind
// ("placement", ...), the word used in its errors.
func NewRegistry[T any](kind string) *Registry[T] {
	return &Registry[T]{registry.New[func() T](kind)}
}

// Register adds the constructor of a part under name: lower-case letters,
// digits, '-', '_' and '.' (a scheduler's name joins its parts' names with
// '+', so that one with a '+' could not be read back), and a constructor
// that is not nil (registered, it failed every run: a reviewer's find).
func (r *Registry[T]) Register(name string, f func() T) error {
	if f == nil {
		return fmt.Errorf("%s %q: the constructor is nil", r.Kind(), name)
	}
	if name != "" && !partName(name) {
		return fmt.Errorf("%s %q: a part's name is lower-case letters, digits, '-', '_' and '.' (a scheduler's name joins its parts' names with '+')", r.Kind(), name)
	}
	return r.Registry.Register(name, f)
}

// partName reports whether name is made of what a part's name may hold.
func partName(name string) bool {
	for _, c := range name {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// New makes the part called name, or says which names are known; a
// constructor that panics or makes nothing, or a part whose Name is not
// the name it is registered under (results would be labelled by one name
// in wb experiment and by the other in wb simulate), is an error that
// names it.
func (r *Registry[T]) New(name string) (part T, err error) {
	f, err := r.Lookup(name)
	if err != nil {
		var zero T
		return zero, err
	}
	defer func() {
		if v := recover(); v != nil {
			var zero T
			part, err = zero, fmt.Errorf("%s %q: its constructor panicked: %v", r.Kind(), name, v)
		}
	}()
	part = f()
	if any(part) == nil {
		return part, fmt.Errorf("%s %q: its constructor returned nil", r.Kind(), name)
	}
	if n, ok := any(part).(interface{ Name() string }); ok && n.Name() != name {
		var zero T
		return zero, fmt.Errorf("%s %q: its Name() is %q: a part's Name is the name it is registered under", r.Kind(), name, n.Name())
	}
	return part, nil
}

// Parts is the set of registries a scheduler is composed from.
type Parts struct {
	Orders     *Registry[Order]
	Backfills  *Registry[Backfill]
	Placements *Registry[Placement]
	Estimators *Registry[Estimator]
}

// DefaultParts returns the registries of every part this package provides.
func DefaultParts() *Parts {
	p := &Parts{
		Orders:     NewRegistry[Order]("queue order"),
		Backfills:  NewRegistry[Backfill]("backfill"),
		Placements: NewRegistry[Placement]("placement"),
		Estimators: NewRegistry[Estimator]("estimate"),
	}
	must := func(err error) {
		if err != nil {
			panic("scheduler: " + err.Error())
		}
	}
	must(p.Orders.Register("fifo", func() Order { return FIFO{} }))
	must(p.Orders.Register("sjf", func() Order { return SJF{} }))
	must(p.Backfills.Register("none", func() Backfill { return NoBackfill{} }))
	must(p.Backfills.Register("easy", func() Backfill { return EASY{} }))
	must(p.Backfills.Register("greedy", func() Backfill { return RuleBackfill(Greedy{}) }))
	must(p.Backfills.Register("conservative", func() Backfill { return Conservative{} }))
	must(p.Placements.Register("first-fit", func() Placement { return FirstFit{} }))
	must(p.Placements.Register("best-fit", func() Placement { return BestFit{} }))
	must(p.Placements.Register("round-robin", func() Placement { return &RoundRobin{} }))
	must(p.Placements.Register("tetris", func() Placement { return Tetris{} }))
	must(p.Placements.Register("fastest", func() Placement { return Fastest{} }))
	must(p.Placements.Register("random", func() Placement { return &Random{} }))
	must(p.Placements.Register("dot-product", func() Placement { return &DotProduct{} }))
	must(p.Placements.Register("gpu-clustering", func() Placement { return &GpuClustering{} }))
	must(p.Placements.Register("gpu-packing", func() Placement { return &GpuPacking{} }))
	must(p.Placements.Register("best-fit-fgd", func() Placement { return &BestFitFGD{} }))
	must(p.Placements.Register("fgd", func() Placement { return &FGD{} }))
	must(p.Placements.Register("ga", func() Placement { return &GA{askAt: map[Ask]gaRange{}} }))
	must(p.Estimators.Register("exact", func() Estimator { return Exact{} }))
	must(p.Estimators.Register("user-mean", func() Estimator { return &UserMean{} }))
	must(p.Estimators.Register("user", func() Estimator { return User{} }))
	must(p.Estimators.Register("history", func() Estimator { return &History{} }))
	must(p.Estimators.Register("noisy", func() Estimator { return &Noisy{} }))
	for _, e := range []TableEstimate{UserDur, GroupDur, GroupGPUDur} {
		must(p.Estimators.Register(e.Part, func() Estimator { return e }))
	}
	return p
}

// Spec names the parts of a scheduler. Empty fields take the defaults:
// fifo, none, first-fit, user.
type Spec struct {
	Order     string
	Backfill  string
	Placement string
	Estimate  string
	// Each part's own arguments, which the part decodes (Configurable):
	// the noisy estimate's sigma, the ga placement's GAParams, ...
	OrderArgs, BackfillArgs, PlacementArgs, EstimateArgs Args
	// Seed is the run's: every part with randomness draws from its own
	// stream of it (Run).
	Seed uint64
	// KillAtUserLimit kills a job that reaches its user estimate (SWF
	// field 9), as batch systems enforce requested times.
	KillAtUserLimit bool
	// KillFactor, when positive, kills a job that runs k times the
	// estimate it started with (runaway detection); a job that started
	// with an estimate of 0 (user-mean's for a new user) has no limit
	// from it.
	KillFactor float64
	// Consolidate keeps a gang on one node where one node holds it whole
	// (see Scheduler.Consolidate).
	Consolidate bool
}

// Scheduler is a scheduler composed of its parts.
type Scheduler struct {
	Order     Order
	Backfill  Backfill
	Placement Placement
	Estimator Estimator
	// Kill limits; see Spec.
	KillAtUserLimit bool
	KillFactor      float64
	// Consolidate places a job of several replicas of whole GPUs, all of
	// one task (a data-parallel gang; a job of several tasks, such as a
	// parameter server beside its workers, is placed replica by replica
	// still), on one node where one node holds it whole: the
	// placement chooses, by its own score of one replica, among the nodes
	// that hold them all, and the replicas spread over nodes only where no
	// node does, as Gavel and Slurm place gangs. Under fastest the GPU
	// model comes first: one node of the fastest model with room, else the
	// replicas over that model's nodes, before a slower model. Under
	// conservative backfilling a job placed by its reservation is placed
	// on the least free capacity over its window. Without it the placement
	// places replica by replica, and may split a gang over two nodes where
	// one would hold it. Not for a batch placement (ga), which places a
	// pass's jobs together.
	Consolidate bool
	// used is set by the first simulation of a scheduler from Build (and
	// of its copies): its parts remember that simulation (round-robin's
	// cursor, random's draws, an estimator's history), so a second is
	// refused (claim). Nil for a scheduler put together by hand, which is
	// not checked.
	used *atomic.Bool
}

// claim marks s used by a simulation, refusing a scheduler from Build
// that was used before.
func claim(s *Scheduler) error {
	if s.used != nil && s.used.Swap(true) {
		return fmt.Errorf("scheduler %s: already used by a simulation, which its parts remember (round-robin's cursor, random's draws, an estimator's history): build a fresh one (Parts.Build) for each simulation", s.Name())
	}
	return nil
}

// ConsolidateWith says why placement p cannot keep a gang on one node
// (Scheduler.Consolidate): a batch placement (ga) places a pass's jobs
// together, not a job at a time. Nil for any other (and for nil).
func ConsolidateWith(p Placement) error {
	if _, batch := p.(BatchPlacement); batch {
		return fmt.Errorf("consolidate: placement %s places a pass's jobs together, not a job at a time; it keeps no gang on one node", p.Name())
	}
	return nil
}

// Name is the parts' names joined: "fifo+easy+first-fit+user" (the
// placement "first-fit+consolidate" with Consolidate).
func (s *Scheduler) Name() string {
	cons := ""
	if s.Consolidate {
		cons = "+consolidate"
	}
	return s.Order.Name() + "+" + s.Backfill.Name() + "+" + s.Placement.Name() + cons + "+" + s.Estimator.Name()
}

// Build makes a scheduler from its spec, reporting every unknown name. The
// scheduler is for one simulation: a second is refused.
func (p *Parts) Build(sp Spec) (Scheduler, error) {
	def := func(s, d string) string {
		if s == "" {
			return d
		}
		return s
	}
	s := Scheduler{used: new(atomic.Bool)}
	var e1, e2, e3, e4 error
	s.Order, e1 = p.Orders.New(def(sp.Order, "fifo"))
	s.Backfill, e2 = p.Backfills.New(def(sp.Backfill, "none"))
	s.Placement, e3 = p.Placements.New(def(sp.Placement, "first-fit"))
	s.Estimator, e4 = p.Estimators.New(def(sp.Estimate, "user"))
	s.KillAtUserLimit, s.KillFactor, s.Consolidate = sp.KillAtUserLimit, sp.KillFactor, sp.Consolidate
	var e5 error
	if sp.Consolidate {
		e5 = ConsolidateWith(s.Placement)
	}
	if sp.KillFactor < 0 || math.IsNaN(sp.KillFactor) || math.IsInf(sp.KillFactor, 0) || (sp.KillFactor > 0 && sp.KillFactor < 1) {
		e5 = errors.Join(e5, fmt.Errorf("kill factor %v: want 0 (never) or at least 1", sp.KillFactor))
	}
	run := Run{Seed: sp.Seed}
	for _, p := range []struct {
		part any
		name string
		args Args
	}{{s.Order, def(sp.Order, "fifo"), sp.OrderArgs}, {s.Backfill, def(sp.Backfill, "none"), sp.BackfillArgs},
		{s.Placement, def(sp.Placement, "first-fit"), sp.PlacementArgs}, {s.Estimator, def(sp.Estimate, "user"), sp.EstimateArgs}} {
		if c, ok := outsidePart(p.part).(Configurable); ok {
			err := configure(c, p.args, run)
			if err != nil && !strings.HasPrefix(err.Error(), p.name) {
				err = fmt.Errorf("%s: %w", p.name, err)
			}
			e5 = errors.Join(e5, err)
		} else if p.part != nil && len(p.args) > 0 {
			e5 = errors.Join(e5, fmt.Errorf("%s takes no arguments (given %v)", p.name, p.args))
		}
	}
	return s, errors.Join(e1, e2, e3, e4, e5)
}

// configure calls c.Configure, a panic in it an error that names it.
func configure(c Configurable, args Args, run Run) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("Configure panicked: %v", v)
		}
	}()
	return c.Configure(args, run)
}

// String joins the parts' names, defaults filled in: "fifo+easy+first-fit+user".
func (sp Spec) String() string {
	def := func(s, d string) string {
		if s == "" {
			return d
		}
		return s
	}
	cons := ""
	if sp.Consolidate {
		cons = "+consolidate"
	}
	return def(sp.Order, "fifo") + "+" + def(sp.Backfill, "none") + "+" + def(sp.Placement, "first-fit") + cons + "+" + def(sp.Estimate, "user")
}
