package profiler

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wb-sim/wb/dnn"
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
	// Predict, when set, fills each row's predicted time and ratio.
	Predict Predictor
	// Monitor, when set, fills each row's telemetry.
	Monitor Monitor
	// Progress, when set, is told of every row as it is recorded.
	Progress func(done, total int, r *Record)
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
	// Notes are caveats: telemetry absent, prediction unavailable.
	Notes []string `json:"notes,omitempty"`
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
	RelCI      float64  `json:"rel_ci"`
	Cache      string   `json:"cache,omitempty"`
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
// When ctx is cancelled, Run returns the profile of the rows recorded so
// far (Meta.Interrupted set) with an error wrapping ctx's. Another error of
// the backend stops the profile the same way.
func Run(ctx context.Context, b Backend, n *dnn.Network, o Options) (*Profile, error) {
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
	var run, measure, prepare time.Duration
	finish := func() {
		p.Meta.End = time.Now()
		wall := p.Meta.End.Sub(start)
		t := Timing{WallS: wall.Seconds(), RunS: run.Seconds(), MeasureS: measure.Seconds(), PrepareS: prepare.Seconds()}
		if wall > 0 {
			t.HarnessOverhead = 1 - t.RunS/t.WallS
		}
		if measure > 0 {
			t.MeasureOverhead = 1 - t.RunS/t.MeasureS
		}
		p.Meta.Timing = t
		p.Meta.Counts.Rows = len(p.Records)
	}

	total := len(o.Batches) * len(n.Nodes) * len(o.Passes)
	type measured struct {
		out   Outcome
		layer string
	}
	for _, batch := range o.Batches {
		var predicted [][4]float64
		if o.Predict != nil {
			var err error
			if predicted, err = o.Predict(n, batch, o.Precision); err != nil {
				p.Meta.Notes = append(p.Meta.Notes, fmt.Sprintf("batch %d: no prediction: %v", batch, err))
				predicted = nil
			} else if len(predicted) != len(n.Nodes) {
				return nil, fmt.Errorf("profiler: the predictor gave %d layers for %d", len(predicted), len(n.Nodes))
			}
		}
		seen := map[string]measured{}
		for i := range n.Nodes {
			node := &n.Nodes[i]
			for _, pass := range o.Passes {
				if err := ctx.Err(); err != nil {
					p.Meta.Interrupted = true
					finish()
					return p, fmt.Errorf("profile interrupted after %d of %d rows: %w", len(p.Records), total, err)
				}
				w := node.Layer.Work(batch, pass, o.Precision)
				r := Record{
					Model: n.Name, Layer: node.Name, Op: node.Layer.Op(), Key: node.Layer.Key(),
					Pass: pass.String(), Batch: batch, Precision: string(o.Precision),
					Backend: b.Name(), Device: dev.Name,
					FLOPs: float64(w.FLOPs), Bytes: float64(w.Bytes()), Matrix: w.Matrix,
				}
				seenKey := r.Key + "\x00" + r.Pass
				switch m, dup := seen[seenKey]; {
				case w.FLOPs == 0 && w.Bytes() == 0:
					r.Status, r.Reason = Skipped, "no work in this pass"
				case pass == dnn.BackwardData && onInput(node):
					r.Status, r.Reason = Skipped, "no gradient for the network's input"
				case dup:
					r.fill(m.out)
					r.SharedWith = m.layer
					p.Meta.Counts.Shared++
				default:
					ck := CacheKey{Device: dev.Name, Backend: b.Name(), Versions: dev.VersionString(),
						Key: r.Key, Batch: batch, Pass: r.Pass, Precision: r.Precision}
					out, hit := Outcome{}, false
					if o.Cache != nil {
						out, hit = o.Cache.Get(ck)
					}
					if hit {
						r.Cached = true
						p.Meta.Counts.Cached++
					} else {
						var err error
						var t measureTimes
						out, t, err = measureOne(ctx, b, node.Layer, batch, pass, o)
						run += t.run
						measure += t.measure
						prepare += t.prepare
						if err != nil {
							finish()
							if ctx.Err() != nil {
								p.Meta.Interrupted = true
								return p, fmt.Errorf("profile interrupted after %d of %d rows: %w", len(p.Records), total, ctx.Err())
							}
							return p, fmt.Errorf("%s %s batch %d: %w", node.Name, pass, batch, err)
						}
						p.Meta.Counts.Measured++
						if out.Status == OK {
							if out.Stop == Converged {
								p.Meta.Counts.Converged++
							} else {
								p.Meta.Counts.Budget++
							}
						}
						// OOM depends on what else holds memory: not cached.
						if o.Cache != nil && out.Status != OOM {
							if err := o.Cache.Put(ck, out); err != nil {
								p.Meta.Notes = append(p.Meta.Notes, "cache: "+err.Error())
							}
						}
					}
					r.fill(out)
					seen[seenKey] = measured{out: out, layer: node.Name}
				}
				if predicted != nil && r.Status != Skipped {
					r.Predicted = Some(predicted[i][pass])
					if r.Median.OK && r.Predicted.V > 0 {
						r.Ratio = Some(r.Median.V / r.Predicted.V)
					}
				}
				switch r.Status {
				case OK:
					p.Meta.Counts.OK++
				case Unsupported:
					p.Meta.Counts.Unsupported++
				case OOM:
					p.Meta.Counts.OOM++
				case Skipped:
					p.Meta.Counts.Skipped++
				}
				p.Records = append(p.Records, r)
				if o.Progress != nil {
					o.Progress(len(p.Records), total, &p.Records[len(p.Records)-1])
				}
			}
		}
	}
	finish()
	return p, nil
}

// onInput says whether a node reads only the network's input: training
// computes no gradient for that (images, token ids), so the layer has no
// backward-data pass, as the predictor assumes.
func onInput(n *dnn.Node) bool {
	return !slices.ContainsFunc(n.Inputs, func(i int) bool { return i >= 0 })
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
	r.CV, r.CIRel, r.Stop = Some(s.CV), Some(s.RelCI()), string(o.Stop)
	if s.Median > 0 {
		r.FLOPS = Some(r.FLOPs / s.Median)
		r.GBps = Some(r.Bytes / s.Median / 1e9)
	}
}

type measureTimes struct{ run, measure, prepare time.Duration }

// measureOne prepares and measures one layer pass. Unsupported and
// out-of-memory are outcomes; other errors are errors.
func measureOne(ctx context.Context, b Backend, l dnn.Layer, batch int, pass dnn.Pass, o Options) (Outcome, measureTimes, error) {
	var t measureTimes
	t0 := time.Now()
	k, err := b.Prepare(l, batch, pass, o.Precision)
	t.prepare = time.Since(t0)
	if out, ok := classify(err); ok {
		return out, t, nil
	} else if err != nil {
		return Outcome{}, t, fmt.Errorf("prepare: %w", err)
	}
	var alg *Algorithm
	if c, ok := k.(Chooser); ok {
		a := c.Algorithm()
		alg = &a
	}
	var stop func() Telemetry
	if o.Monitor != nil {
		stop = o.Monitor.Start()
	}
	t1 := time.Now()
	m, err := Measure(ctx, k, o.Rule)
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
		return out, t, cerr
	} else if err != nil {
		return Outcome{}, t, errors.Join(err, cerr)
	}
	if cerr != nil {
		return Outcome{}, t, fmt.Errorf("close: %w", cerr)
	}
	return Outcome{Status: OK, Stats: m.Stats, Stop: m.Stop, Telemetry: tel, Algorithm: alg}, t, nil
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
