package profiler

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/internal/buildid"
)

// Predictor gives the analytical time in seconds of every node of n, in
// n.Nodes order, per pass (indexed by dnn.Pass), on one device: the
// column a profile compares its measurements with. The profiler does not
// import the predictor (which reads profiles); its caller binds one.
type Predictor func(n *dnn.Network, batch int, prec dnn.Precision) ([][4]float64, error)

// Monitor samples a device's telemetry while passes are measured.
// profiler/nvml provides one.
type Monitor interface {
	// GPU describes the device sampled.
	GPU() GPU
	// Start begins sampling; stop ends it and aggregates the samples.
	Start() (stop func() Telemetry)
}

// GPU is the device a Monitor samples.
type GPU struct {
	Index  int    `json:"index"`
	Name   string `json:"name"`
	UUID   string `json:"uuid"`
	Driver string `json:"driver"`
	CUDA   string `json:"cuda"`
	// Power says which reading the rows' power_w and power_max_w are
	// ("" where the monitor does not say): profiler/nvml's PowerInstant
	// or PowerAverage.
	Power string `json:"power,omitempty"`
}

// Options are one profile's settings. Zero values are the defaults.
type Options struct {
	// Batches to profile at; default [1].
	Batches []int
	// Passes to measure; default forward, backward-data, backward-weights.
	Passes []dnn.Pass
	// Precision; default fp32.
	Precision dnn.Precision
	// Rule is the measurement method.
	Rule Rule
	// Cache, when set, keeps measurements across profiles.
	Cache *Cache
	// Machine is the processor as measured before profiling, where it
	// was: kept with each measurement cached, so that a profile taking
	// one later knows whether the machine measured the same then
	// (Counts.CachedElsewhen).
	Machine *Machine

	// CacheDisturbed caches the keys timed while others took
	// OthersThreshold CPUs or more (OthersLoad), which are otherwise
	// measured again next time.
	CacheDisturbed bool

	cpu *cpuSampler // the CPU time of wb's CPUs and its own, set by Run
	// Predict, when set, fills each row's predicted time and ratio.
	Predict Predictor
	// Monitor, when set, fills each row's telemetry.
	Monitor Monitor
	// Progress, when set, is told of every row as it is recorded.
	Progress func(done, total int, r *Record)

	// Rounds splits the measuring of every layer pass into this many
	// rounds, each with its share of the rule's repetitions and time
	// (Rule.Share), and pools the runs of all rounds. Every round but the
	// last visits the passes in a random order (from Seed); the last goes
	// in profile order, recording the rows. A pass measured in one sitting
	// on a shared CPU sees one stretch of the machine's load, which drifts
	// by tens of percent over seconds; spread over the whole profile, its
	// runs sample the same load as every other pass's, so that profiles
	// repeat. Google Benchmark's random interleaving
	// (--benchmark_enable_random_interleaving) does the same. Default 1:
	// each pass in one sitting, as GPUs need.
	//
	// Telemetry of a row pooled from rounds is the last round's; where a
	// backend chooses its algorithm at each Prepare (cuDNN's), a pass
	// whose rounds ran different ones gets a note in the sidecar.
	Rounds int
	// Seed orders the rounds: the same seed, the same order.
	Seed uint64
	// RoundProgress, when set and Rounds > 1, is told as each round
	// starts (Done 0) and, in the rounds before the last (whose rows go
	// to Progress), as each pass is measured.
	RoundProgress func(RoundReport)
	// Iteration, when set, also measures one whole iteration per batch end
	// to end (MeasureIteration's runs), into Meta.Iterations; one that
	// cannot be measured (its buffers do not fit together) is a note. In
	// one round it is timed after the rows, in one sitting; in Rounds > 1
	// its kernels are prepared after the first round and held to the end
	// (every batch's at once, beside each pass being measured), and its
	// runs are shared out over the rounds, timed after each (wholeRuns),
	// as the passes' runs are. Their buffers then take memory beside
	// each pass's: a pass that does not fit beside them is out of memory
	// (on a GPU, profile in one round).
	Iteration bool
	// IterationsAhead, when set with Iteration, is told how long the whole
	// iterations should still take (iterationEstimate, from the layer
	// passes' times so far; in rounds, the runs left of those prepared)
	// as that estimate changes: at the start of every round from the
	// second, and in a profile of one round after every pass measured.
	IterationsAhead func(time.Duration)
	// IterationProgress, when set with Iteration, is told as each batch's
	// whole iteration starts (in rounds: is prepared, after the first
	// round): the batch, its place among the batches (from 1) of n, and
	// how long it and the later ones should take (from the rows as
	// measured).
	IterationProgress func(batch, i, n int, left time.Duration)
	// Gate, when set, holds every measurement (each pass's share in each
	// round, each run of a whole iteration) back while the machine runs
	// slower than it can (see Gate); its counts go to Meta.Gate.
	Gate *Gate
}

// RoundReport is where a profile in rounds stands, as RoundProgress is
// told it.
type RoundReport struct {
	Round, Rounds int // the round (from 1) of how many
	Done, Total   int // layer passes measured in the round, of its total
	// Iterations is the time spent so far on whole iterations, which a
	// profile of rounds with Iteration times after each round: not the
	// layer passes' pace.
	Iterations time.Duration
}

func (o Options) withDefaults() Options {
	if len(o.Batches) == 0 {
		o.Batches = []int{1}
	}
	if len(o.Passes) == 0 {
		o.Passes = []dnn.Pass{dnn.Forward, dnn.BackwardData, dnn.BackwardWeights}
	}
	if o.Precision == "" {
		o.Precision = dnn.FP32
	}
	if o.Rounds == 0 {
		o.Rounds = 1
	}
	o.Rule = o.Rule.WithDefaults()
	return o
}

// Validate reports every problem of the options (after defaults).
func (o Options) Validate() error {
	var errs []error
	for _, b := range o.Batches {
		if b <= 0 {
			errs = append(errs, fmt.Errorf("batch %d: want a positive batch size", b))
		}
	}
	for _, p := range o.Passes {
		if !slices.Contains(dnn.Passes, p) {
			errs = append(errs, fmt.Errorf("unknown pass %v", p))
		}
	}
	if _, err := dnn.ParsePrecision(string(o.Precision)); err != nil {
		errs = append(errs, err)
	}
	if err := o.Rule.Validate(); err != nil {
		errs = append(errs, err)
	}
	if o.Rounds < 1 || o.Rounds > o.Rule.MaxReps {
		errs = append(errs, fmt.Errorf("rounds %d: want 1 to max reps (%d)", o.Rounds, o.Rule.MaxReps))
	}
	return errors.Join(errs...)
}

// Profile is a profile's rows and what describes them.
type Profile struct {
	Meta    Meta
	Records []Record
}

// Meta is a profile's sidecar: what was measured where, how, and how long
// it took.
type Meta struct {
	Model           string            `json:"model"`
	Device          string            `json:"device"`
	PredictorDevice string            `json:"predictor_device"`
	Backend         string            `json:"backend"`
	Versions        map[string]string `json:"versions"`
	// WB is wb's version; the caller sets it.
	WB          string      `json:"wb_version"`
	Host        string      `json:"host"`
	Start       time.Time   `json:"start"`
	End         time.Time   `json:"end"`
	Options     MetaOptions `json:"options"`
	GPU         *GPU        `json:"gpu,omitempty"`
	Timing      Timing      `json:"timing"`
	Counts      Counts      `json:"counts"`
	Interrupted bool        `json:"interrupted"`
	// Iterations are whole iterations measured end to end, one per batch,
	// where Options.Iteration asked for them.
	Iterations []IterationTime `json:"iterations,omitempty"`
	// Machine is what was measured of the processor before profiling, by
	// backends that can (MachineMeter).
	Machine *Machine `json:"machine,omitempty"`
	// Gate is what Options.Gate did: the measurements it held back while
	// the machine ran slow, and those it let go ahead slow.
	Gate *GateStats `json:"gate,omitempty"`
	// Others is what other processes (and a hypervisor's steal) took of
	// the CPUs wb may run on while it profiled, where the machine says
	// (Linux).
	Others *OthersLoad `json:"others,omitempty"`
	// Notes are caveats: telemetry absent, prediction unavailable.
	Notes []string `json:"notes,omitempty"`
}

// OthersLoad is the CPU time that went to anything but wb on the CPUs it
// may run on (its affinity) while a profile measured, as CPUs taken on
// average (othersTicks): over the whole profile, and the keys measured
// whose timed runs (every round's, pooled, judged where they span at least
// minJudgedTicks) ran while others took OthersThreshold CPUs or more (their
// times slower than the machine's own, which the gate's short probe does
// not see). Such keys are not cached, nor keys too short to judge while
// others hold the threshold over the profile so far.
type OthersLoad struct {
	CPUs      float64 `json:"cpus"`
	Keys      int     `json:"keys_over_threshold"`
	Judged    int     `json:"keys_judged"`
	Measured  int     `json:"keys_measured"`
	Threshold float64 `json:"threshold_cpus"`
}

// Disturbed reports whether others took OthersThreshold CPUs or more
// over the profile or while a key judged was measured.
func (l *OthersLoad) Disturbed() bool {
	return l.Keys > 0 || l.Measured > 0 && l.CPUs >= l.Threshold
}

// String says what others took, and what to do.
func (l *OthersLoad) String() string {
	if l.Keys == 0 {
		// disturbed over the profile alone: its keys too short to judge
		// one by one (Judged 0), or none of those judged over the threshold
		judged := "none of its keys ran long enough to be judged one by one"
		if l.Judged > 0 {
			judged = fmt.Sprintf("none of the %d keys judged one by one while it did", l.Judged)
		}
		return fmt.Sprintf("other processes (or the hypervisor) took %.2f of wb's CPUs on average over the profile, %.1f or more (%s): "+
			"its %d keys' times may be slower than this machine's own, and the keys too short to judge were not cached; profile on an idle machine",
			l.CPUs, l.Threshold, judged, l.Measured)
	}
	return fmt.Sprintf("other processes (or the hypervisor) took %.2f of wb's CPUs on average over the profile, and %.1f or more while %d of the %d keys judged were timed: "+
		"those times are slower than this machine's own, and were not cached; profile on an idle machine", l.CPUs, l.Threshold, l.Keys, l.Judged)
}

// OthersThreshold is the CPUs others may take on average while a key's
// runs are timed before the key counts as disturbed: one busy loop is
// one, whatever the machine's size (an OpenMP team waits for the thread it
// slows), an idle machine's own background a few hundredths, and the
// tick-sampled busy time against the process's exact own about a tenth
// over a key's shortest judged span.
const OthersThreshold = 0.5

// Machine is the processor as measured, not as its spec sheet or the
// momentary clock in /proc/cpuinfo says.
type Machine struct {
	Threads int    `json:"threads"`
	ISA     string `json:"isa"` // the widest FMA: avx512, avx2
	// PeakFLOPs is the fp32 FLOP/s of FMAs of that width on Threads threads;
	// PeakFLOPs256 the same with 256-bit FMAs where ISA is avx512.
	PeakFLOPs    float64 `json:"peak_flops"`
	PeakFLOPs256 float64 `json:"peak_flops_256,omitempty"`
	// MemBandwidth is DRAM bytes/s (a copy of buffers larger than the
	// caches), 0 where not measured.
	MemBandwidth float64 `json:"mem_bandwidth,omitempty"`
	Method       string  `json:"method"`
	// LLCBytes is the processor's last-level cache as the OS lists it
	// (sysfs), bytes; 0 where unknown. Not measured.
	LLCBytes float64 `json:"llc_bytes,omitempty"`
}

// MachineMeter is a Backend that can measure its processor.
type MachineMeter interface {
	MeasureMachine() (Machine, error)
}

// MetaOptions are the options as the sidecar records them.
type MetaOptions struct {
	Batches    []int    `json:"batches"`
	Passes     []string `json:"passes"`
	Precision  string   `json:"precision"`
	Warmup     int      `json:"warmup"`
	WarmupTime string   `json:"warmup_time"`
	MinReps    int      `json:"min_reps"`
	MaxReps    int      `json:"max_reps"`
	MaxTime    string   `json:"max_time"`
	MinTime    string   `json:"min_time,omitempty"` // left out when 0
	RelCI      float64  `json:"rel_ci"`
	Rounds     int      `json:"rounds,omitempty"` // left out when 1
	Seed       uint64   `json:"seed,omitempty"`   // of the rounds' order
	Cache      string   `json:"cache,omitempty"`
	// Gate says that measurements waited for the machine (Options.Gate).
	Gate bool `json:"gate,omitempty"`
}

// Timing splits a profile's wall time. The harness overhead is the share
// of wall time outside the layer runs themselves.
type Timing struct {
	WallS float64 `json:"wall_s"`
	// RunS sums the durations of every run the kernels reported, warm-up
	// included.
	RunS float64 `json:"run_s"`
	// MeasureS is the wall time inside Measure; PrepareS inside the
	// backend's Prepare and Close.
	MeasureS float64 `json:"measure_s"`
	PrepareS float64 `json:"prepare_s"`
	// HarnessOverhead = 1 − RunS / WallS: everything but the runs
	// (preparing buffers, the measurement loop, telemetry, cache).
	HarnessOverhead float64 `json:"harness_overhead"`
	// MeasureOverhead = 1 − RunS / MeasureS: the measurement loop's own.
	MeasureOverhead float64 `json:"measure_overhead"`
}

// Counts counts a profile's rows by what became of them.
type Counts struct {
	Rows        int `json:"rows"`
	Measured    int `json:"measured"` // keys measured in this profile
	Cached      int `json:"cached"`   // keys taken from the cache
	Shared      int `json:"shared"`   // rows reusing a measurement of the same key
	OK          int `json:"ok"`
	Unsupported int `json:"unsupported"`
	OOM         int `json:"oom"`
	Skipped     int `json:"skipped"`
	Converged   int `json:"converged"` // of the keys measured
	Budget      int `json:"budget"`
	// Interrupted counts the keys an interrupted profile measured in part:
	// their rows hold the rounds they had (stop "interrupted").
	Interrupted int `json:"interrupted,omitempty"`
	// CachedElsewhen counts the keys taken from the cache that a profile
	// measured while the machine measured otherwise than now (its threads,
	// FMA width or fp32 peak more than 10% apart, or not recorded):
	// the sidecar's machine is now's, and their times were not.
	CachedElsewhen int `json:"cached_elsewhen,omitempty"`
}

// sameMachine reports whether the machine a cached outcome was measured
// under, a, is b as measured now: the same threads and FMA width, the fp32
// peak within 10% (the 2-core VM measured its peak 273 and 476 GFLOP/s in
// sittings a day apart). Not the memory bandwidth, whose copy swings by
// more between back-to-back sittings (35–45 GB/s; the bundled sidecars
// 47–105). A missing a is not.
func sameMachine(a, b *Machine) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Threads == b.Threads && a.ISA == b.ISA &&
		(a.PeakFLOPs == b.PeakFLOPs || a.PeakFLOPs > 0 && b.PeakFLOPs > 0 && math.Abs(a.PeakFLOPs/b.PeakFLOPs-1) <= 0.10)
}

// Outcome is what measuring one key gave: what the cache keeps.
type Outcome struct {
	Status    Status    `json:"status"`
	Reason    string    `json:"reason,omitempty"`
	Stats     Stats     `json:"stats"`
	Stop      Stop      `json:"stop,omitempty"`
	Telemetry Telemetry `json:"telemetry"`
	// Algorithm is the kernel's (Chooser), when it says; nil otherwise.
	Algorithm *Algorithm `json:"algorithm,omitempty"`
}

// Run profiles network n on backend b: every layer, pass and batch of o.
// Layers with the same key are measured once per pass and batch. Passes
// without work are skipped, and so is the backward-data pass of a layer
// that reads only the network's input (training computes no gradient for
// it). A layer pass the backend cannot run, or whose buffers do not fit,
// is a row saying so.
//
// With o.Rounds > 1 every layer pass is measured in that many rounds
// (see Options.Rounds); rows are recorded, and Progress told, in the last.
//
// When ctx is cancelled, Run returns the profile of the rows recorded so
// far (Meta.Interrupted set) with an error wrapping ctx's; in rounds
// before the last, those are the rows measured at least once, with the
// runs made so far (not cached). Another error of the backend stops the
// profile the same way.
func Run(ctx context.Context, b Backend, n *dnn.Network, o Options) (*Profile, error) {
	// A kernel is built, run and freed on one OS thread: CPU libraries keep
	// per-thread state (oneDNN's scratchpad, OpenMP's team), GPU ones a
	// current context.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	o = o.withDefaults()
	if err := o.Validate(); err != nil {
		return nil, err
	}
	dev := b.Device()
	host, _ := os.Hostname()
	p := &Profile{Meta: Meta{
		Model: n.Name, Device: dev.Name, PredictorDevice: dev.Predictor, Backend: b.Name(),
		Versions: dev.Versions, Host: host, Start: time.Now(), Options: metaOptions(o),
	}}
	if o.Monitor != nil {
		g := o.Monitor.GPU()
		p.Meta.GPU = &g
	}
	start := time.Now()
	o.cpu = newCPUSampler()
	defer o.cpu.close()
	startCPU := o.cpu.sample()
	others := OthersLoad{Threshold: OthersThreshold}
	var times measureTimes
	finish := func() {
		p.Meta.End = time.Now()
		if n := p.Meta.Counts.CachedElsewhen; n > 0 {
			p.Meta.Notes = append(p.Meta.Notes, fmt.Sprintf("%d of %d keys taken from the cache were measured while the machine measured otherwise than now (its threads, FMA width or fp32 peak more than 10%% apart, or not recorded): the sidecar's machine is now's, their times were not; profile with --no-cache for rows and figures of one sitting",
				n, p.Meta.Counts.Cached))
		}
		if ot, wall, ok := othersTicks(startCPU, o.cpu.sample()); ok && wall > 0 {
			if wall >= minJudgedTicks { // (over a few ticks one tick of another's reads as much)
				others.CPUs = ot / wall
			}
			p.Meta.Others = &others
			if others.Disturbed() {
				p.Meta.Notes = append(p.Meta.Notes, others.String())
			}
		}
		wall := p.Meta.End.Sub(start)
		t := Timing{WallS: wall.Seconds(), RunS: times.run.Seconds(), MeasureS: times.measure.Seconds(), PrepareS: times.prepare.Seconds()}
		if wall > 0 {
			t.HarnessOverhead = 1 - t.RunS/t.WallS
		}
		if times.measure > 0 {
			t.MeasureOverhead = 1 - t.RunS/t.MeasureS
		}
		p.Meta.Timing = t
		p.Meta.Counts.Rows = len(p.Records)
		if o.Gate != nil && o.Gate.Stats.Probes > 0 {
			st := o.Gate.Stats
			p.Meta.Gate = &st
		}
		if err := o.Gate.Err(); err != nil && !slices.Contains(p.Meta.Notes, "gate: "+err.Error()) {
			p.Meta.Notes = append(p.Meta.Notes, "gate: "+err.Error())
		}
	}

	pl, err := plan(b, n, o, &p.Meta)
	if err != nil {
		return nil, err
	}
	total := len(pl.rows)

	// emit records the rows from the first not yet recorded up to the
	// first whose measurement is not final.
	emit := func() {
		for len(p.Records) < total {
			r := pl.rows[len(p.Records)]
			if r.job >= 0 {
				j := pl.jobs[r.job]
				if !j.final {
					return
				}
				r.Record.fill(j.out)
			}
			p.record(r.Record)
			if o.Progress != nil {
				o.Progress(len(p.Records), total, &p.Records[len(p.Records)-1])
			}
		}
	}
	interrupted := func(err error) (*Profile, error) {
		// Rows measured in part (rounds before the last) keep their
		// runs, and rows from the cache are kept; skipped rows past the
		// first unmeasured one, which say nothing, are not.
		counted := map[int]bool{} // the jobs measured in part, counted once
		for i := len(p.Records); i < total; i++ {
			r := pl.rows[i]
			if r.job < 0 {
				if r.Status != Skipped {
					p.record(r.Record)
				}
				continue
			}
			switch j := pl.jobs[r.job]; {
			case j.final:
				r.Record.fill(j.out)
			case len(j.runs) > 0:
				out := j.outcome(o.Rule)
				if out.Status == OK {
					out.Stop = Interrupted // a round's verdict is not the row's
				}
				r.Record.fill(out)
				if !counted[r.job] {
					counted[r.job] = true
					p.Meta.Counts.Interrupted++
				}
			default:
				continue
			}
			p.record(r.Record)
		}
		p.Meta.Interrupted = true
		finish()
		if n := p.Meta.Counts.Interrupted; n > 0 {
			// rows of the rounds before the one cut short: written, and
			// said so (they once counted as measured in full)
			return p, fmt.Errorf("profile interrupted after %d of %d rows; %d of their measurements made in part (the rounds before the interrupt alone: stop %q): %w",
				len(p.Records), total, n, Interrupted, err)
		}
		return p, fmt.Errorf("profile interrupted after %d of %d rows: %w", len(p.Records), total, err)
	}

	emit() // rows before the first measurement

	// In a profile of rounds the whole iterations are timed in rounds too:
	// prepared after the first (whose rows give their estimate) and held,
	// each timed its share of runs after every round (wholeRuns), so that
	// its fastest run samples the minutes the rows' fastest runs do. In
	// one sitting at the end, an iteration saw one stretch of the machine:
	// alexnet's at batch 1 took 0.109 to 0.184 s fastest in sittings 12 s
	// apart on the 2-core VM.
	inRounds := o.Iteration && o.Rounds > 1
	roundNow := 0 // the round under way
	var wholes []*wholeIteration
	var wholeSpent time.Duration // preparing and timing them so far
	defer func() {
		for _, w := range wholes {
			w.close()
		}
	}()
	wholeAhead := func(round int) time.Duration {
		var d float64
		for _, w := range wholes {
			once := w.onceS // the warm-up, which also touched the buffers first
			if len(w.runs) > 0 {
				once = slices.Max(w.runs)
			}
			d += float64(wholeRuns(w.onceS, o.Rounds)*(o.Rounds-round)) * once
		}
		return time.Duration(d * float64(time.Second))
	}
	prepareWholes := func() {
		perPrep := times.perPrepare()
		for i, batch := range o.Batches {
			if o.IterationProgress != nil {
				o.IterationProgress(batch, i+1, len(o.Batches), pl.wholeEstimate(o.Batches[i:], perPrep, o.Rounds))
			}
			t0 := time.Now()
			w, err := prepareIteration(b, n, batch, o.Passes, o.Precision)
			if err == nil {
				var d time.Duration
				if d, err = w.once(); err != nil { // the warm-up
					w.close()
				} else {
					w.onceS = d.Seconds()
				}
			}
			wholeSpent += time.Since(t0)
			if err != nil {
				p.Meta.Notes = append(p.Meta.Notes, fmt.Sprintf("batch %d: whole iteration not measured: %v", batch, err))
				continue
			}
			wholes = append(wholes, w)
			if w.it.Kernels > 0 {
				perPrep = w.it.prepare / time.Duration(w.it.Kernels)
			}
		}
	}
	timeWholes := func() error {
		t0 := time.Now()
		defer func() { wholeSpent += time.Since(t0) }()
		for i := 0; i < len(wholes); i++ {
			w := wholes[i]
			for range wholeRuns(w.onceS, o.Rounds) {
				if _, err := w.run(ctx, o.Gate); err != nil {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					p.Meta.Notes = append(p.Meta.Notes, fmt.Sprintf("batch %d: whole iteration not measured: %v", w.it.Batch, err))
					w.close()
					wholes = slices.Delete(wholes, i, i+1)
					i--
					break
				}
			}
		}
		return nil
	}
	tellAhead := func() {
		if o.Iteration && o.IterationsAhead != nil {
			if inRounds && roundNow == 1 {
				// the whole iterations are prepared after the first
				// round: until then, what the rows timed so far say
				o.IterationsAhead(pl.wholeEstimate(o.Batches, times.perPrepare(), o.Rounds))
				return
			}
			if inRounds {
				o.IterationsAhead(wholeAhead(roundNow - 1))
				return
			}
			o.IterationsAhead(pl.iterationEstimate(o.Batches, times.perPrepare()))
		}
	}
	var aheadAt time.Time // when round 1 last told the iterations ahead
	order := make([]int, 0, len(pl.jobs))
	rng := rand.New(rand.NewPCG(o.Seed, 0x77622d726f756e64)) // "wb-round"
	share := o.Rule.Share(o.Rounds)
	for round := 1; round <= o.Rounds; round++ {
		roundNow = round
		order = order[:0]
		for i, j := range pl.jobs {
			if !j.final {
				order = append(order, i)
			}
		}
		if round < o.Rounds {
			rng.Shuffle(len(order), func(i, k int) { order[i], order[k] = order[k], order[i] })
		}
		if round > 1 {
			tellAhead()
		}
		tell := func(done int) {
			if o.RoundProgress != nil && o.Rounds > 1 && (done == 0 || round < o.Rounds) {
				o.RoundProgress(RoundReport{Round: round, Rounds: o.Rounds, Done: done, Total: len(order), Iterations: wholeSpent})
			}
		}
		tell(0)
		for n, ji := range order {
			j := pl.jobs[ji]
			if err := ctx.Err(); err != nil {
				return interrupted(err)
			}
			m, t, err := measureOne(ctx, b, j.node.Layer, j.batch, j.pass, o, share)
			j.othersTicks += t.othersTicks
			j.wallTicks += t.wallTicks
			times.add(t)
			if err != nil {
				if ctx.Err() != nil {
					return interrupted(ctx.Err())
				}
				// stopped short as by an interrupt: its rows are kept, marked
				// so (wb train refuses a profile that stopped before its end)
				return interrupted(fmt.Errorf("%s %s batch %d: %w", j.node.Name, j.pass, j.batch, err))
			}
			j.add(m)
			if j.out.Status != OK || round == o.Rounds {
				j.finalize(o.Rule)
				if len(j.algs) > 1 {
					p.Meta.Notes = append(p.Meta.Notes, fmt.Sprintf("%s %s batch %d: the rounds ran different algorithms (%s), their runs pooled; the row names the first",
						j.node.Name, j.pass, j.batch, strings.Join(j.algs, "; ")))
				}
				p.Meta.Counts.Measured++
				disturbed := false
				if j.out.Status == OK {
					others.Measured++
					if j.wallTicks >= minJudgedTicks {
						others.Judged++
						if disturbed = j.othersTicks >= OthersThreshold*j.wallTicks; disturbed {
							others.Keys++
						}
					} else if ot, wall, ok := othersTicks(startCPU, o.cpu.sample()); ok && wall >= minJudgedTicks && ot >= OthersThreshold*wall {
						// too short to judge alone: not cached while
						// others hold the threshold over the profile so far
						disturbed = true
					}
				}
				if j.out.Status == OK {
					if j.out.Stop == Converged {
						p.Meta.Counts.Converged++
					} else {
						p.Meta.Counts.Budget++
					}
				}
				// OOM depends on what else holds memory, a disturbed
				// key's times on what else ran: not cached
				if o.Cache != nil && j.out.Status != OOM && (!disturbed || o.CacheDisturbed) {
					if err := o.Cache.Put(j.ck, j.out, o.Machine); err != nil {
						p.Meta.Notes = append(p.Meta.Notes, "cache: "+err.Error())
					}
				}
				if round == o.Rounds {
					if o.Rounds == 1 {
						tellAhead()
					}
					emit()
				}
			}
			// each call reads every row's runs: at most once a second
			if inRounds && round == 1 && time.Since(aheadAt) >= time.Second {
				tellAhead()
				aheadAt = time.Now()
			}
			tell(n + 1)
		}
		if inRounds {
			if round == 1 {
				prepareWholes()
			}
			if err := timeWholes(); err != nil {
				return interrupted(err)
			}
		}
	}
	emit()
	if inRounds {
		for _, w := range wholes {
			it := w.result()
			it.sumRows(p.Records)
			p.Meta.Iterations = append(p.Meta.Iterations, it)
		}
	} else if o.Iteration {
		perPrep := times.perPrepare()
		for i, batch := range o.Batches {
			if err := ctx.Err(); err != nil {
				return interrupted(fmt.Errorf("before the whole iteration of batch %d: %w", batch, err))
			}
			if o.IterationProgress != nil {
				o.IterationProgress(batch, i+1, len(o.Batches), pl.iterationEstimate(o.Batches[i:], perPrep))
			}
			it, err := measureIteration(ctx, b, n, batch, o.Passes, o.Precision, o.Gate)
			if err != nil && ctx.Err() != nil {
				// cut short by the interrupt, not unmeasurable: the profile
				// lacks what was asked of it, as any interrupted one
				return interrupted(fmt.Errorf("during the whole iteration of batch %d: %w", batch, ctx.Err()))
			}
			if err != nil {
				p.Meta.Notes = append(p.Meta.Notes, fmt.Sprintf("batch %d: whole iteration not measured: %v", batch, err))
				continue
			}
			it.sumRows(p.Records)
			p.Meta.Iterations = append(p.Meta.Iterations, it)
			if it.Kernels > 0 {
				// the next batches' kernels prepare as these did: all
				// held at once, in memory not yet touched
				perPrep = it.prepare / time.Duration(it.Kernels)
			}
		}
	}
	finish()
	return p, nil
}

// record appends a row and counts it.
func (p *Profile) record(r Record) {
	c := &p.Meta.Counts
	if r.SharedWith != "" {
		c.Shared++
	}
	if r.Cached {
		c.Cached++
	}
	if r.Predicted.OK && r.Median.OK && r.Predicted.V > 0 {
		r.Ratio = Some(r.Median.V / r.Predicted.V)
	}
	switch r.Status {
	case OK:
		c.OK++
	case Unsupported:
		c.Unsupported++
	case OOM:
		c.OOM++
	case Skipped:
		c.Skipped++
	}
	p.Records = append(p.Records, r)
}

// job is one key, pass and batch to measure.
type job struct {
	node  *dnn.Node
	batch int
	pass  dnn.Pass
	ck    CacheKey

	out    Outcome   // Status and what the first round gave; all once final
	runs   []float64 // of every round so far
	rounds int       // measured so far
	algs   []string  // the algorithms the rounds ran, each once, where the kernel said
	final  bool
	// othersTicks is the CPU time other processes took while its rounds'
	// runs were timed, over wallTicks (othersTicks)
	othersTicks, wallTicks float64
}

// add takes one round's outcome.
func (j *job) add(m roundOutcome) {
	if j.out.Status == "" || m.out.Status != OK {
		j.out = m.out
	}
	j.out.Telemetry = m.out.Telemetry // the latest round's
	j.runs = append(j.runs, m.runs...)
	j.rounds++
	if a := m.out.Algorithm; a != nil && !slices.Contains(j.algs, a.Name) {
		j.algs = append(j.algs, a.Name)
	}
}

// outcome pools the runs of the rounds so far: converged when they are the
// rule's MinReps and MinTime or more and the pooled median's confidence
// interval is within the rule's, as one round's Measure judges (a pass of
// 150 ns ran its 10,000 runs, the most, in 1.5 ms of the 200 ms asked, and
// was called converged: a reviewer's find).
func (j *job) outcome(r Rule) Outcome {
	out := j.out
	if out.Status != OK || len(j.runs) == 0 {
		return out
	}
	if j.rounds == 1 {
		return out // one round: Measure's verdict
	}
	out.Stats = StatsOf(j.runs)
	measured := 0.0
	for _, v := range j.runs {
		measured += v
	}
	out.Stop = Budget
	if out.Stats.Reps >= r.MinReps && measured >= r.MinTime.Seconds() && out.Stats.RelCI() <= r.RelCI {
		out.Stop = Converged
	}
	return out
}

func (j *job) finalize(r Rule) {
	j.out = j.outcome(r)
	j.final = true
	j.runs = nil
}

// plannedRow is a row before it is measured: job is the index of the job
// that measures it, or -1 for a row complete already (skipped, cached).
type plannedRow struct {
	Record
	job int
}

type profilePlan struct {
	rows []plannedRow
	jobs []*job
}

// method is the CacheKey's Method of o.
func method(o Options) string {
	var parts []string
	if o.Rounds > 1 {
		parts = append(parts, fmt.Sprintf("rounds=%d", o.Rounds))
	}
	if o.Rule.MinTime > 0 {
		parts = append(parts, "min_time="+o.Rule.MinTime.String())
	}
	// the stopping rule where it is not the default's: a pass measured
	// under a smaller budget or a looser interval is not what these
	// limits would give (its figures are reused only under the same)
	r := o.Rule.WithDefaults()
	if r.MinReps != DefaultMinReps {
		parts = append(parts, fmt.Sprintf("min_reps=%d", r.MinReps))
	}
	if r.MaxReps != DefaultMaxReps {
		parts = append(parts, fmt.Sprintf("max_reps=%d", r.MaxReps))
	}
	if r.MaxTime != DefaultMaxTime {
		parts = append(parts, "max_time="+r.MaxTime.String())
	}
	if r.RelCI != DefaultRelCI {
		parts = append(parts, fmt.Sprintf("ci=%g", r.RelCI))
	}
	// a measurement held back while the machine ran slow is not one
	// taken whatever the machine did: a gated profile reuses only gated
	// rows, at its threshold
	if g := o.Gate; g != nil {
		th := g.Threshold
		if th == 0 {
			th = 1.6 // the gate's default
		}
		parts = append(parts, fmt.Sprintf("gate=%g", th))
	}
	return strings.Join(parts, " ")
}

// plan lays out every row of the profile and the measurements they need.
func plan(b Backend, n *dnn.Network, o Options, meta *Meta) (profilePlan, error) {
	dev := b.Device()
	versions, how := dev.VersionString(), method(o)
	var pl profilePlan
	for _, batch := range o.Batches {
		var predicted [][4]float64
		if o.Predict != nil {
			var err error
			if predicted, err = o.Predict(n, batch, o.Precision); err != nil {
				meta.Notes = append(meta.Notes, fmt.Sprintf("batch %d: no prediction: %v", batch, err))
				predicted = nil
			} else if len(predicted) != len(n.Nodes) {
				return pl, fmt.Errorf("profiler: the predictor gave %d layers for %d", len(predicted), len(n.Nodes))
			}
		}
		type first struct {
			job   int
			layer string
			out   *Outcome // cached
		}
		seen := map[string]first{}
		grads := n.DataGradients()
		for i := range n.Nodes {
			node := &n.Nodes[i]
			for _, pass := range o.Passes {
				w := node.Layer.Work(batch, pass, o.Precision)
				r := plannedRow{job: -1, Record: Record{
					Model: n.Name, Layer: node.Name, Op: string(node.Layer.Op()), Key: node.Layer.Key(),
					Pass: pass.String(), Batch: batch, Precision: string(o.Precision),
					Backend: b.Name(), Device: dev.Name,
					FLOPs: float64(w.FLOPs), Bytes: float64(w.Bytes()), Matrix: w.Matrix,
				}}
				seenKey := r.Key + "\x00" + r.Pass
				switch f, dup := seen[seenKey]; {
				case w.FLOPs == 0 && w.Bytes() == 0:
					r.Status, r.Reason = Skipped, "no work in this pass"
				case pass == dnn.BackwardData && !grads[i]:
					r.Status, r.Reason = Skipped, "no input needs a gradient"
				case dup:
					r.SharedWith, r.job = f.layer, f.job
					if f.out != nil {
						r.fill(*f.out)
					}
				default:
					ck := CacheKey{Device: dev.Name, Backend: b.Name(), Versions: versions,
						Key: r.Key, Batch: batch, Pass: r.Pass, Precision: r.Precision, Method: how, Build: buildid.ID()}
					if o.Cache != nil {
						if out, mach, hit := o.Cache.Get(ck); hit {
							if o.Machine != nil && !sameMachine(mach, o.Machine) {
								meta.Counts.CachedElsewhen++
							}
							r.Cached = true
							r.fill(out)
							seen[seenKey] = first{job: -1, layer: node.Name, out: &out}
							break
						}
					}
					r.job = len(pl.jobs)
					pl.jobs = append(pl.jobs, &job{node: node, batch: batch, pass: pass, ck: ck})
					seen[seenKey] = first{job: r.job, layer: node.Name}
				}
				if predicted != nil && r.Status != Skipped {
					r.Predicted = Some(predicted[i][pass])
				}
				pl.rows = append(pl.rows, r)
			}
		}
	}
	return pl, nil
}

// fill copies a measurement into the row, with the figures derived from it.
func (r *Record) fill(o Outcome) {
	r.Status, r.Reason, r.Telemetry = o.Status, o.Reason, o.Telemetry
	if o.Status != OK {
		return
	}
	if a := o.Algorithm; a != nil {
		r.Algo, r.WorkspaceBytes = a.Name, Some(float64(a.WorkspaceBytes))
	}
	s := o.Stats
	r.Median, r.P10, r.P90, r.Reps = Some(s.Median), Some(s.P10), Some(s.P90), s.Reps
	r.Stop = string(o.Stop)
	if s.Reps >= 2 {
		// one run has no spread and no interval: left empty, not 0, which
		// would read as exact (a reviewer's find)
		r.CV, r.CIRel = Some(s.CV), Some(s.RelCI())
	}
	if s.Min > 0 { // 0 in cache entries from before min was kept
		r.Min = Some(s.Min)
	}
	if s.Median > 0 {
		r.FLOPS = Some(r.FLOPs / s.Median)
		r.GBps = Some(r.Bytes / s.Median / 1e9)
	}
}

// measureTimes is where a profile's time went; prepares counts the
// kernels prepared.
type measureTimes struct {
	run, measure, prepare time.Duration
	prepares              int
	// what other processes took of wb's CPUs while the runs were timed,
	// and the wall time, in ticks (othersTicks); not summed by add
	othersTicks, wallTicks float64
}

func (t *measureTimes) add(u measureTimes) {
	t.run += u.run
	t.measure += u.measure
	t.prepare += u.prepare
	t.prepares += u.prepares
}

// perPrepare is the mean time to prepare and free one kernel so far.
func (t measureTimes) perPrepare() time.Duration {
	if t.prepares == 0 {
		return 0
	}
	return t.prepare / time.Duration(t.prepares)
}

// wholeOverSummed is how much longer a whole iteration runs than its
// layer passes summed, for the estimate of its timing: in the bundled CPU
// profiles (datasets/profiles, made on 2026-11-25) the whole iterations'
// median ran 1.1–2.8× the passes' medians summed, 1.5× in the middle
// (cold caches between layers; OpenBLAS's and OpenMP's threads contending
// where the passes alternate between them).
const wholeOverSummed = 1.5

// iterationEstimate is how long MeasureIteration should take for each of
// the batches, from the layer passes' times so far (a pass's median over
// its runs, a cached row's median): per batch, its kernels prepared at
// perPrep each, then a warm-up and the runs MeasureIteration makes of
// the passes summed × wholeOverSummed (iterationRuns). Passes not yet
// timed count as the batch's timed ones do on average; a batch with none
// counts nothing, nor does one with a pass its backend cannot run or fit
// (its iteration fails at once).
//
// Before any whole iteration, perPrep is the rows' preparing time per
// kernel, which undercounts where memory is slow to touch the first time
// (a VM's): an iteration holds every kernel's buffers at once. On the
// 2-core VM resnet50's took about 5 s to prepare against about 1 s so
// estimated; the batches after the first are estimated at the first's.
func (pl profilePlan) iterationEstimate(batches []int, perPrep time.Duration) time.Duration {
	return pl.estimate(batches, perPrep, iterationRuns)
}

// estimate is, per batch, its kernels prepared at perPrep each, a warm-up
// and runs(once) runs of the iteration's estimated time once.
func (pl profilePlan) estimate(batches []int, perPrep time.Duration, runs func(once float64) int) time.Duration {
	var total time.Duration
	for _, batch := range batches {
		steps, once, ok := pl.iterationOnce(batch)
		if !ok {
			continue
		}
		total += time.Duration(float64(steps)*float64(perPrep) + float64(1+runs(once))*once*float64(time.Second))
	}
	return total
}

// iterationOnce is the batch's layer passes in an iteration and the
// seconds one run of it should take (its passes' times so far, the
// untimed counted as the timed on average, × wholeOverSummed); not ok
// where none is timed or one cannot run or fit.
func (pl profilePlan) iterationOnce(batch int) (steps int, once float64, ok bool) {
	var sum float64
	timed, fails := 0, false
	for _, r := range pl.rows {
		if r.Batch != batch || r.Status == Skipped {
			continue
		}
		steps++
		status := r.Status
		if r.job >= 0 {
			status = pl.jobs[r.job].out.Status
		}
		switch {
		case status == Unsupported || status == OOM:
			fails = true
		case r.job < 0:
			if r.Median.OK {
				sum += r.Median.V
				timed++
			}
		case pl.jobs[r.job].final:
			if j := pl.jobs[r.job]; j.out.Status == OK {
				sum += j.out.Stats.Median
				timed++
			}
		case len(pl.jobs[r.job].runs) > 0:
			sum += StatsOf(pl.jobs[r.job].runs).Median
			timed++
		}
	}
	if timed == 0 || fails {
		return steps, 0, false
	}
	return steps, sum * float64(steps) / float64(timed) * wholeOverSummed, true
}

// wholeRuns is how many runs of a whole iteration taking once seconds a
// profile of rounds times after each round: iterationRuns shared out,
// at least one a round.
func wholeRuns(once float64, rounds int) int {
	return max(1, (iterationRuns(once)+rounds-1)/rounds)
}

// wholeEstimate is iterationEstimate for a profile of rounds: per batch,
// its kernels prepared, a warm-up and wholeRuns after each of the rounds.
func (pl profilePlan) wholeEstimate(batches []int, perPrep time.Duration, rounds int) time.Duration {
	return pl.estimate(batches, perPrep, func(once float64) int { return rounds * wholeRuns(once, rounds) })
}

// roundOutcome is one round of measuring a layer pass: its outcome and
// the runs it made.
type roundOutcome struct {
	out  Outcome
	runs []float64
}

// measureOne prepares and measures one layer pass under rule. Unsupported
// and out-of-memory are outcomes; other errors are errors.
func measureOne(ctx context.Context, b Backend, l dnn.Layer, batch int, pass dnn.Pass, o Options, rule Rule) (roundOutcome, measureTimes, error) {
	var t measureTimes
	t0 := time.Now()
	k, err := b.Prepare(l, batch, pass, o.Precision)
	t.prepare, t.prepares = time.Since(t0), 1
	if out, ok := classify(err); ok {
		return roundOutcome{out: out}, t, nil
	} else if err != nil {
		return roundOutcome{}, t, fmt.Errorf("prepare: %w", err)
	}
	var alg *Algorithm
	if c, ok := k.(Chooser); ok {
		a := c.Algorithm()
		alg = &a
	}
	// wait for the machine before telemetry starts, so that neither the
	// wait nor a cancelled one is sampled
	if err := o.Gate.Wait(ctx); err != nil {
		k.Close()
		return roundOutcome{}, t, err
	}
	var stop func() Telemetry
	if o.Monitor != nil {
		stop = o.Monitor.Start()
	}
	t1 := time.Now()
	before := o.cpu.sample()
	m, err := Measure(ctx, k, rule)
	if ot, wall, ok := othersTicks(before, o.cpu.sample()); ok {
		t.othersTicks, t.wallTicks = ot, wall
	}
	t.measure = time.Since(t1)
	t.run = m.RunTime
	var tel Telemetry
	if stop != nil {
		tel = stop()
	}
	t2 := time.Now()
	cerr := k.Close()
	t.prepare += time.Since(t2)
	if out, ok := classify(err); ok {
		out.Telemetry = tel
		return roundOutcome{out: out}, t, cerr
	} else if err != nil {
		return roundOutcome{}, t, errors.Join(err, cerr)
	}
	if cerr != nil {
		return roundOutcome{}, t, fmt.Errorf("close: %w", cerr)
	}
	out := Outcome{Status: OK, Stats: m.Stats, Stop: m.Stop, Telemetry: tel, Algorithm: alg}
	return roundOutcome{out: out, runs: m.Runs}, t, nil
}

// classify turns the errors that are outcomes into one.
func classify(err error) (Outcome, bool) {
	switch {
	case err == nil:
		return Outcome{}, false
	case errors.Is(err, ErrUnsupported):
		return Outcome{Status: Unsupported, Reason: err.Error()}, true
	case errors.Is(err, ErrOutOfMemory):
		return Outcome{Status: OOM, Reason: err.Error()}, true
	}
	return Outcome{}, false
}

func metaOptions(o Options) MetaOptions {
	m := MetaOptions{
		Batches: o.Batches, Precision: string(o.Precision),
		Warmup: o.Rule.Warmup, WarmupTime: o.Rule.WarmupTime.String(),
		MinReps: o.Rule.MinReps, MaxReps: o.Rule.MaxReps, MaxTime: o.Rule.MaxTime.String(), RelCI: o.Rule.RelCI,
	}
	if o.Rounds > 1 {
		m.Rounds, m.Seed = o.Rounds, o.Seed
	}
	m.Gate = o.Gate != nil && o.Gate.Probe != nil
	if o.Rule.MinTime > 0 {
		m.MinTime = o.Rule.MinTime.String()
	}
	for _, p := range o.Passes {
		m.Passes = append(m.Passes, p.String())
	}
	if o.Cache != nil {
		m.Cache = o.Cache.Dir
	}
	return m
}

// ParseBatches reads a comma-separated list of batch sizes: "1,8,32".
func ParseBatches(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		b, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("batch %q: not a number", f)
		}
		if b <= 0 {
			return nil, fmt.Errorf("batch %d: want a positive batch size", b)
		}
		if !slices.Contains(out, b) {
			out = append(out, b)
		}
	}
	return out, nil
}

// ParsePasses reads a comma-separated list of passes: fwd, bwd (both
// backward passes), bwd-data, bwd-weights, update. The passes come back in
// training order, each once.
func ParsePasses(s string) ([]dnn.Pass, error) {
	set := map[dnn.Pass]bool{}
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		if f == "bwd" {
			set[dnn.BackwardData], set[dnn.BackwardWeights] = true, true
			continue
		}
		p, err := dnn.ParsePass(f)
		if err != nil {
			return nil, fmt.Errorf("unknown pass %q (known: fwd, bwd, bwd-data, bwd-weights, update)", f)
		}
		set[p] = true
	}
	var out []dnn.Pass
	for _, p := range dnn.Passes {
		if set[p] {
			out = append(out, p)
		}
	}
	return out, nil
}
