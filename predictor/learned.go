package predictor

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/internal/atomicfile"
	"github.com/wb-sim/wb/internal/jsonpos"
	"github.com/wb-sim/wb/internal/readcap"
	"github.com/wb-sim/wb/profiler"
)

// LearnedVersion is the version of the learned predictor's JSON: 4 since
// a CPU correction records the machine profiled, which its predictions
// start from (Learned.CPU; a wb before it would apply the correction to its
// own machine's figures); 3 since its cold traffic may count each pass's bytes only up to the last-level
// cache (Learned.ColdLLC), which a wb before it would ignore and so add
// several times the time fitted; 2 since it says whether its rows named
// oneDNN's kernels (Learned.Impl). Versions 2 to 4 load; a version-1 file
// loads unless its features include those kernels' (impl_*), which only
// files saved while they were new have, without saying.
const LearnedVersion = 4

// Families are the regressors Train chooses among by cross-validation:
// a CART regression tree, k nearest neighbours, ridge linear regression,
// gradient-boosted trees, a random forest and the median of the boosted
// trees, the neighbours and the forest, each on the log of measured /
// analytical time. All are implemented here (cart.go, boost.go), not with
// golearn: see Learned.
var Families = families.Ordered()

// CVFolds is the number of folds of the split by layer shape (KeyFolds,
// `wb evaluate`'s shape split).
const CVFolds = 5

// ModelCVFolds is the number of folds by model of Train's choice of
// configuration (and of Nested's inner loop by default): whole models
// held out together, with every layer shape they have.
const ModelCVFolds = 3

// IterationOp is the op of a profile row that is a whole iteration measured
// end to end (IterationRecords makes them of a profile's sidecar), not a
// layer pass.
const IterationOp = "iteration"

// Sample is one ok profile row ready for learning.
type Sample struct {
	Record profiler.Record
	Row    FeatureRow
	// Measured is the row's time under the statistic the samples were
	// made with (Stat.Of), in seconds.
	Measured float64
	// Base is the analytical time the correction multiplies: the time
	// Predict gives the pass on the predictor device (analyticalBase), so
	// that what is learned is what is applied. Target is log(Measured /
	// Base).
	Base   float64
	Target float64
	// Shared is set where the row copies another row's measurement (its
	// shared_with: an identical layer of the same network, measured once
	// and written for each). A copy is no measurement of its own: it is
	// never scored, nor learned from (it would only weigh its shape
	// twice); it counts in its iteration's summed layers, as its layer
	// runs in the iteration.
	Shared bool
	// Iteration is set where the row is a whole iteration measured end to
	// end (op IterationOp): not a layer pass, never learned from; the
	// predicted layer passes of its model, batch, precision and device
	// summed are scored against it (Scores.MeasuredIterationMAPE).
	Iteration bool
	// Layers and Traffic are set on whole iterations: Layers is the
	// iteration's layer passes measured one by one and summed (copies at
	// the time they copy), seconds; Traffic the time to move every one of
	// those passes' bytes once at the device's memory bandwidth, seconds.
	// A whole iteration runs longer than its layers timed alone because
	// each pass finds its operands cold, where a pass timed alone
	// finds them warm from its previous run: Learned.ColdTraffic is that
	// extra time per second of Traffic.
	Layers, Traffic float64
	// TrafficLLC is Traffic with each pass's bytes capped at the device's
	// last-level cache (Device.CacheBytes; uncapped where unknown): only
	// what a pass timed alone can find in the cache can be warm there
	// and cold in the iteration; a pass that streams more than the cache
	// holds finds it cold both ways.
	TrafficLLC float64
	cache      float64     // the device's last-level cache, bytes (layer passes)
	machine    ProfiledCPU // what the profile recorded of its CPU (ProfileDevice); zero elsewhere
}

// Sweep says whether the sample is a row of a sweep (dnn.IsSweep), not of
// a model.
func (s *Sample) Sweep() bool { return dnn.IsSweep(s.Record.Model) }

// Learnable says whether the sample is learned from: a layer pass measured
// in its own right (no copy, no whole iteration).
func (s *Sample) Learnable() bool { return !s.Shared && !s.Iteration }

// Samples turns profile rows into samples: ok rows with an analytical
// time, on the device devices maps the row's Device field to (the
// profile's predictor device), timed by the statistic st, and ok rows of
// whole iterations (op IterationOp). Other rows are left out; a measured
// row without st's time is an error.
func Samples(rows []profiler.Record, devices map[string]*Device, st Stat) ([]Sample, error) {
	if _, err := ParseStat(string(st)); err != nil {
		return nil, fmt.Errorf("predictor: %w", err)
	}
	var out []Sample
	for i := range rows {
		r := &rows[i]
		iter := r.Op == IterationOp
		if r.Status != profiler.OK || !r.Median.OK || r.Median.V <= 0 || !iter && (!r.Predicted.OK || r.Predicted.V <= 0) {
			continue
		}
		m, ok := st.Of(r)
		if !ok {
			return nil, fmt.Errorf("predictor: %s row %s %s batch %d has no %s time (min_s is empty in profiles written before wb kept the fastest run): profile it again, or use the median", r.Model, r.Layer, r.Pass, r.Batch, st)
		}
		if iter {
			out = append(out, Sample{Record: *r, Measured: m, Iteration: true})
			continue
		}
		d := devices[r.Device]
		if d == nil {
			return nil, fmt.Errorf("predictor: row %s %s: no predictor device for %q", r.Layer, r.Pass, r.Device)
		}
		fr, err := RecordFeatures(r, d)
		if err != nil {
			return nil, err
		}
		base := analyticalBase(fr, d, r.Predicted.V)
		out = append(out, Sample{Record: *r, Row: fr, Measured: m, Base: base, Target: math.Log(m / base), Shared: r.SharedWith != "", cache: d.CacheBytes, machine: d.profiled})
	}
	cachedCopies(out)
	iterationTraffic(out)
	return out, nil
}

// cachedCopies marks as copies (Shared) the rows whose measurement came
// from the profile cache (Record.Cached) where the measurement is among
// the samples already: a row of the same device, backend, key, pass, batch
// and precision measured in its own right, or, of cached rows alone, the
// first. wb profile's cache is keyed by the layer pass, not the model, so
// a profile of resnet50 made after one of resnet18 holds resnet18's
// measurements of their shared layers: scored in both, one measurement
// counted twice (a reviewer's find; the bundled profiles are made with
// --no-cache and hold none).
func cachedCopies(s []Sample) {
	type pass struct {
		dev, backend, key, pass, prec string
		batch                         int
	}
	id := func(r *profiler.Record) pass {
		return pass{r.Device, r.Backend, cmp.Or(r.Key, r.Op+"\x00"+r.Layer), r.Pass, r.Precision, r.Batch}
	}
	measured := map[pass]bool{}
	for i := range s {
		if r := &s[i].Record; !s[i].Iteration && !r.Cached && r.SharedWith == "" {
			measured[id(r)] = true
		}
	}
	for i := range s {
		r := &s[i].Record
		if s[i].Iteration || !r.Cached || s[i].Shared {
			continue
		}
		if k := id(r); measured[k] {
			s[i].Shared = true
		} else {
			measured[k] = true // the first cached row stands for its measurement
		}
	}
}

// iterationKey is the iteration a sample belongs to: its model, batch,
// precision and device.
func iterationKey(r *profiler.Record) string {
	return fmt.Sprint(r.Model, "\x00", r.Batch, "\x00", r.Precision, "\x00", r.Device)
}

// iterationTraffic sets Layers and Traffic of the whole iterations among
// s from the layer passes of theirs.
func iterationTraffic(s []Sample) {
	type sum struct{ layers, traffic, llc float64 }
	sums := map[string]*sum{}
	for i := range s {
		if s[i].Iteration || s[i].Row.Bandwidth <= 0 {
			continue
		}
		k := iterationKey(&s[i].Record)
		if sums[k] == nil {
			sums[k] = &sum{}
		}
		sums[k].layers += s[i].Measured
		sums[k].traffic += s[i].Row.Bytes / s[i].Row.Bandwidth
		sums[k].llc += ColdBytes(s[i].Row.Bytes, s[i].cache, true) / s[i].Row.Bandwidth
	}
	for i := range s {
		if x := sums[iterationKey(&s[i].Record)]; s[i].Iteration && x != nil {
			s[i].Layers, s[i].Traffic, s[i].TrafficLLC = x.layers, x.traffic, x.llc
		}
	}
}

// ColdBytes is what of a pass's bytes counts in its iteration's cold
// traffic on a device whose last-level cache holds cache bytes: all of
// them, or with llc at most the cache (all where the cache is unknown).
func ColdBytes(bytes, cache float64, llc bool) float64 {
	if llc && cache > 0 {
		return min(bytes, cache)
	}
	return bytes
}

// coldTraffic is the iteration sample x's traffic under the rule llc
// (Sample.TrafficLLC, else Sample.Traffic).
func (x *Sample) coldTraffic(llc bool) float64 {
	if llc {
		return x.TrafficLLC
	}
	return x.Traffic
}

// ColdLLC says whether the whole iterations among s are better told by
// their traffic capped at the last-level cache (Sample.TrafficLLC) than by
// all of it: each model's iterations predicted (their measured layers plus
// ColdTraffic × traffic) with the coefficient fitted on the other models'
// and the sweeps' (which are learned from, never held out), the rule with
// the lower mean |relative error| (a tie, or fewer than two models with
// iterations: all the traffic, the rule of predictors before the choice).
// Fit makes the choice on what it learns from, so a model held out never
// takes part in it.
func ColdLLC(s []Sample) bool {
	byModel := map[string][]int{}
	for i := range s {
		if x := &s[i]; x.Iteration && x.Layers > 0 && x.Traffic > 0 {
			byModel[x.Record.Model] = append(byModel[x.Record.Model], i)
		}
	}
	var models []string // held out in turn: models, not sweeps (learned from only)
	for _, m := range slices.Sorted(maps.Keys(byModel)) {
		if !dnn.IsSweep(m) {
			models = append(models, m)
		}
	}
	if len(models) < 2 {
		return false
	}
	all := slices.Sorted(maps.Keys(byModel))
	miss := func(llc bool) float64 {
		var sum float64
		var n int
		for _, m := range models {
			var others []Sample
			for _, o := range all {
				if o != m {
					for _, i := range byModel[o] {
						others = append(others, s[i])
					}
				}
			}
			k := ColdTraffic(others, llc)
			for _, i := range byModel[m] {
				x := &s[i]
				sum += math.Abs((x.Layers+k*x.coldTraffic(llc))/x.Measured - 1)
				n++
			}
		}
		return sum / float64(n)
	}
	return miss(true) < miss(false)
}

// ColdTraffic is what a whole iteration adds to its layers, per second of
// their traffic (Sample.Traffic, or with llc Sample.TrafficLLC): the
// median over the samples' whole iterations with both of (measured −
// layers) / traffic, not below zero; 0 where there is none. A median, so
// that one iteration the machine disturbed does not set it.
func ColdTraffic(s []Sample, llc bool) float64 {
	var r []float64
	for i := range s {
		if x := &s[i]; x.Iteration && x.Layers > 0 && x.coldTraffic(llc) > 0 {
			r = append(r, (x.Measured-x.Layers)/x.coldTraffic(llc))
		}
	}
	if len(r) == 0 {
		return 0
	}
	slices.Sort(r)
	return max(MedianOf(r), 0)
}

// MedianOf is the median of sorted (the mean of the middle two where their
// number is even), which must not be empty.
func MedianOf(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// ProfileDevice is the predictor device of a profile's rows: its sidecar's
// predictor device (or, in profiles that name none, its backend) from the
// device table, or, for "cpu", the machine profiled as its sidecar records
// it (profiler.Machine): the fp32 peak its FMA chains reached, the memory
// copy it measured, the threads it ran on and its last-level cache, each
// in place of this machine's where recorded (Device.CacheBytes; none
// recorded, none known). So what is learned from a profile (its analytical
// base, tile waves over cores, cold traffic) does not depend on the
// machine that reads it: before, a CPU's peak and bandwidth were the
// reader's (/proc/cpuinfo and a 20 GB/s default), and wb train on the same
// profiles wrote different predictors on different machines. Profiles
// made before the sidecar recorded the machine keep the reader's figures.
func ProfileDevice(m profiler.Meta) (*Device, error) {
	name := m.PredictorDevice
	if name == "" {
		name = m.Backend
	}
	if strings.EqualFold(strings.TrimSpace(name), KindCPU) { // LookupDevice's "cpu", read once
		var pc ProfiledCPU
		var cache float64
		if mc := m.Machine; mc != nil {
			pc = ProfiledCPU{PeakFLOPs: mc.PeakFLOPs, MemBandwidth: mc.MemBandwidth, Cores: mc.Threads}
			cache = mc.LLCBytes
		}
		return profiledDevice(pc, cache, m.Device), nil
	}
	return LookupDevice(name)
}

// readerCPU is the machine reading the profiles (LocalCPU; a test's
// other machine).
var readerCPU = LocalCPU

// ProfiledCPU is what CPU profiles record of the machine profiled
// (profiler.Machine): the fp32 peak its FMA chains reached and the memory
// copy it measured, bytes/s, and the threads the profiles ran on (Cores:
// the units a kernel's work is split among, the device's SMs, which count
// SMT siblings where the profiles ran a thread on each); zero where not
// recorded.
type ProfiledCPU struct {
	PeakFLOPs    float64 `json:"peak_flops,omitempty"`
	MemBandwidth float64 `json:"mem_bandwidth,omitempty"`
	Cores        int     `json:"cores,omitempty"`
}

// check refuses a machine no processor is (nil: none recorded): a
// figure no processor has would scale every CPU prediction by it (an fp32
// peak of 1e3 predicted a 30-million-second iteration: a reviewer's
// find). A figure of 0 is one not recorded.
func (c *ProfiledCPU) check() error {
	if c == nil {
		return nil
	}
	for _, f := range []struct {
		name   string
		v      float64
		lo, hi float64
	}{{"peak_flops", c.PeakFLOPs, 1e8, 1e16}, {"mem_bandwidth", c.MemBandwidth, 1e8, 1e13}, {"cores", float64(c.Cores), 1, 1 << 16}} {
		if f.v != 0 && !(f.v >= f.lo && f.v <= f.hi) {
			return fmt.Errorf("cpu: %s %v out of range (0 where not recorded, else %g to %g)", f.name, f.v, f.lo, f.hi)
		}
	}
	return nil
}

// profiledDevice is the local CPU with pc's figures and the last-level
// cache cache in place of its own where they are recorded (nonzero; the
// cache is unknown where not), noted in its Sources, and named name (the
// profile's device) where pc records the machine.
func profiledDevice(pc ProfiledCPU, cache float64, name string) *Device {
	d := readerCPU()
	pc.apply(&d)
	d.CacheBytes = cache
	if pc != (ProfiledCPU{}) && name != "" {
		d.Display = name
	}
	return &d
}

// apply sets d's figures to c's where c has them, each noted in d.Sources
// in place of the note of the figure it replaces.
func (c ProfiledCPU) apply(d *Device) {
	d.profiled = c
	drop := func(prefixes ...string) {
		d.Sources = slices.DeleteFunc(slices.Clone(d.Sources), func(src string) bool {
			return slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(src, p) })
		})
	}
	if c.PeakFLOPs > 0 {
		drop("peak fp32:", "clock:")
		d.PeakVector = map[Precision]float64{FP32: c.PeakFLOPs}
		d.PeakMatrix = map[Precision]float64{}
		d.Sources = append(d.Sources, fmt.Sprintf("peak fp32: %.4g FLOP/s, measured on the machine profiled", c.PeakFLOPs))
	}
	if c.MemBandwidth > 0 {
		drop("memory bandwidth:")
		d.MemBandwidth = c.MemBandwidth
		d.Sources = append(d.Sources, fmt.Sprintf("memory bandwidth: %.4g bytes/s, measured on the machine profiled", c.MemBandwidth))
	}
	if c.Cores > 0 {
		d.SMs = c.Cores
		d.Sources = append(d.Sources, fmt.Sprintf("cores: the %d threads the profiles ran on", c.Cores))
	}
}

// join is the most of each of c's and o's figures: what profiles of one
// machine share. The peak is a best of runs already; a copy's bandwidth,
// which on a shared machine varies from sitting to sitting (46–105 GB/s
// in the bundled profiles), is the machine's at its best.
func (c ProfiledCPU) join(o ProfiledCPU) ProfiledCPU {
	return ProfiledCPU{PeakFLOPs: max(c.PeakFLOPs, o.PeakFLOPs), MemBandwidth: max(c.MemBandwidth, o.MemBandwidth), Cores: max(c.Cores, o.Cores)}
}

// AddProfile adds a profile's rows (its layer passes, then its whole
// iterations as IterationRecords gives them) to rows, and its device to
// devices under the device name of each row (a row without one takes its
// sidecar's), as Samples reads them. Profiles of one device name share
// one entry, whatever their order: on a CPU, the most of each figure the
// profiles recorded of the machine (ProfiledCPU.join), and the last-level
// cache that one records where another does not (made before wb recorded
// it); two that record different caches are an error, as rows of one name
// cannot tell them apart. Profiles of a CPU and of a GPU are an error.
func AddProfile(rows []profiler.Record, devices map[string]*Device, p *profiler.Profile) ([]profiler.Record, error) {
	d, err := ProfileDevice(p.Meta)
	if err != nil {
		return rows, err
	}
	for _, name := range slices.Sorted(maps.Keys(devices)) {
		if old := devices[name]; old.Kind != d.Kind {
			// one correction of a CPU's and a GPU's kernels describes
			// neither, and wb predict would take it on both
			return rows, fmt.Errorf("a profile of a %s (%s) beside profiles of a %s (%s): a correction learns one kind of device; train each kind's profiles apart",
				d.Kind, p.Meta.Device, old.Kind, name)
		}
	}
	add := func(name string) error {
		old := devices[name]
		switch {
		case old == nil:
			devices[name] = d
			return nil
		case old.CacheBytes > 0 && d.CacheBytes > 0 && old.CacheBytes != d.CacheBytes:
			return fmt.Errorf("device %q: profiles record a last-level cache of %.0f and of %.0f bytes: profiles of different machines need different device names", name, old.CacheBytes, d.CacheBytes)
		case d.Kind != KindCPU:
			return nil
		}
		pc, cache := old.profiled.join(d.profiled), max(old.CacheBytes, d.CacheBytes)
		if pc != old.profiled || cache != old.CacheBytes {
			devices[name] = profiledDevice(pc, cache, name)
		}
		return nil
	}
	if err := add(p.Meta.Device); err != nil {
		return rows, err
	}
	for i := range p.Records {
		r := &p.Records[i]
		if r.Device == "" {
			r.Device = p.Meta.Device
		}
		if err := add(r.Device); err != nil {
			return rows, err
		}
	}
	// a model's iteration is its rows of one batch, precision and device:
	// two profiles of it would add their layers into one iteration
	have := map[string]bool{}
	for i := range rows {
		have[iterationKey(&rows[i])] = true
	}
	for i := range p.Records {
		if r := &p.Records[i]; have[iterationKey(r)] {
			return rows, fmt.Errorf("%s at batch %d (%s, %s) is in two profiles: their layers would count in one iteration; give one of them, or profile the other under another device name", r.Model, r.Batch, r.Precision, r.Device)
		}
	}
	rows = append(rows, p.Records...)
	return append(rows, IterationRecords(p)...), nil
}

// IterationRecords are a profile's whole iterations measured end to end
// (its sidecar's Meta.Iterations) as rows of op IterationOp, one per batch,
// of the model, precision and device of the profile's rows of that batch;
// Samples reads them as Sample.Iteration. None where the profile measured
// none, or has no row of the batch.
func IterationRecords(p *profiler.Profile) []profiler.Record {
	var out []profiler.Record
	for _, it := range p.Meta.Iterations {
		k := slices.IndexFunc(p.Records, func(r profiler.Record) bool { return r.Batch == it.Batch && r.Op != IterationOp })
		if k < 0 || it.Median <= 0 {
			continue
		}
		r := p.Records[k]
		rec := profiler.Record{Model: r.Model, Layer: IterationOp, Op: IterationOp, Pass: strings.Join(it.Passes, "+"),
			Batch: it.Batch, Precision: r.Precision, Backend: r.Backend, Device: r.Device, Status: profiler.OK,
			Median: profiler.Some(it.Median), Reps: it.Runs}
		if it.Min > 0 {
			rec.Min = profiler.Some(it.Min)
		}
		out = append(out, rec)
	}
	return out
}

// Scores are a predictor's errors on held-out rows.
type Scores struct {
	// Rows is the number of distinct measurements scored: layer passes
	// measured in their own right. Copies (Sample.Shared) are not scored;
	// Copies counts them.
	Rows   int `json:"rows"`
	Copies int `json:"copies,omitempty"`
	// MAPE of the rows' times, in percent; Within10 the share of rows
	// within ±10% of the measurement.
	MAPE     float64 `json:"mape_pct"`
	Within10 float64 `json:"within10"`
	// Iterations is the number of (model, batch, precision, device)
	// iterations; IterationMAPE the MAPE of their summed layers: every
	// layer pass of the iteration (copies at the time they copy), measured
	// separately and summed, against the predictions summed. It leaves out
	// whatever happens between layers.
	Iterations    int     `json:"iterations"`
	IterationMAPE float64 `json:"iteration_mape_pct"`
	// MeasuredIterations is the number of those iterations that were
	// also measured whole, end to end (Sample.Iteration);
	// MeasuredIterationMAPE the MAPE against those measurements of the
	// predicted layers summed plus the whole iteration's own prediction
	// (what it adds to its layers: the cold traffic predictRows gives it,
	// 0 for the analytical model).
	MeasuredIterations    int     `json:"measured_iterations,omitempty"`
	MeasuredIterationMAPE float64 `json:"measured_iteration_mape_pct,omitempty"`
}

// Score compares predicted times (seconds, one per sample) with the
// samples' measurements. Rows of sweeps (dnn.IsSweep) are not scored: they
// are training data, and the scores are of models' layers and iterations.
// Nor are copies (Sample.Shared): the rows scored are distinct
// measurements. Whole-iteration rows are scored as iterations, against the
// predicted layers of theirs summed plus their own pred (what the
// iteration adds to its layers).
func Score(s []Sample, pred []float64) Scores { return score(s, pred, false) }

// SweepScore scores the sweeps' rows only, which Score leaves out.
func SweepScore(s []Sample, pred []float64) Scores { return score(s, pred, true) }

// ScoreRows is Score of the samples idx only.
func ScoreRows(s []Sample, pred []float64, idx []int) Scores {
	ss, pp := make([]Sample, len(idx)), make([]float64, len(idx))
	for k, i := range idx {
		ss[k], pp[k] = s[i], pred[i]
	}
	return Score(ss, pp)
}

// score scores the rows of sweeps, or those of models.
func score(s []Sample, pred []float64, sweeps bool) Scores {
	var sc Scores
	type it struct {
		meas, pred float64
		whole      float64 // measured end to end; 0: not
		cold       float64 // predicted beyond the layers (the whole iteration's pred)
	}
	iters := map[string]*it{}
	var keys []string
	for i := range s {
		if s[i].Sweep() != sweeps {
			continue
		}
		r := &s[i].Record
		k := iterationKey(r)
		if iters[k] == nil {
			iters[k] = &it{}
			keys = append(keys, k)
		}
		m := s[i].Measured
		if s[i].Iteration {
			if iters[k].whole == 0 {
				iters[k].whole, iters[k].cold = m, pred[i]
			}
			continue
		}
		iters[k].meas += m
		iters[k].pred += pred[i]
		if s[i].Shared {
			sc.Copies++
			continue
		}
		sc.Rows++
		e := math.Abs(pred[i]-m) / m
		sc.MAPE += e
		if e <= 0.10 {
			sc.Within10++
		}
	}
	if sc.Rows > 0 {
		sc.MAPE *= 100 / float64(sc.Rows)
		sc.Within10 /= float64(sc.Rows)
	}
	for _, k := range keys {
		x := iters[k]
		if x.meas == 0 { // a whole iteration without its layers
			continue
		}
		sc.Iterations++
		sc.IterationMAPE += math.Abs(x.pred-x.meas) / x.meas
		if x.whole > 0 {
			sc.MeasuredIterations++
			sc.MeasuredIterationMAPE += math.Abs(x.pred+x.cold-x.whole) / x.whole
		}
	}
	if sc.Iterations > 0 {
		sc.IterationMAPE *= 100 / float64(sc.Iterations)
	}
	if sc.MeasuredIterations > 0 {
		sc.MeasuredIterationMAPE *= 100 / float64(sc.MeasuredIterations)
	}
	return sc
}

// Analytical is the samples' analytical times (zero for whole iterations,
// whose predictions are their layers' summed).
func Analytical(s []Sample) []float64 {
	p := make([]float64, len(s))
	for i := range s {
		p[i] = s[i].Base
	}
	return p
}

// predictRows sets pred of the samples idx: a layer pass's to its
// analytical time corrected by l, a whole iteration's to what l adds to
// its layers (l.ColdTraffic × its Traffic).
func predictRows(pred []float64, s []Sample, idx []int, l *Learned) {
	for _, i := range idx {
		if s[i].Iteration {
			pred[i] = l.ColdTraffic * s[i].coldTraffic(l.ColdLLC)
		} else {
			pred[i] = s[i].Base * l.Correct(s[i].Row)
		}
	}
}

// sampleKey is the sample's layer shape: its Key, or its op and layer where
// it has none.
func sampleKey(s *Sample) string {
	if s.Iteration { // one per model: no layer shape
		return IterationOp + "\x00" + s.Record.Model
	}
	if s.Record.Key != "" {
		return s.Record.Key
	}
	return s.Record.Op + "\x00" + s.Record.Layer
}

// KeyFolds splits the samples into k folds by layer shape: every sample
// of one key (the row's Key, or its op and layer where it has none) lies
// in one fold, and so do keys of identical work (a layer pass of one key
// with the feature row of one of another's: a ReLU of 64×112×112 values
// and one of 256×56×56). Keys are shuffled with a fixed seed
// (KeyFoldsSeed's 1), then dealt round-robin.
func KeyFolds(s []Sample, k int) [][]int { return KeyFoldsSeed(s, k, 1) }

// KeyFoldsSeed is KeyFolds with the keys shuffled by seed (a PCG stream
// seeded seed, seed+1): another assignment of shapes to folds, to see how
// much held-out scores owe to which shapes were held out together.
func KeyFoldsSeed(s []Sample, k int, seed uint64) [][]int {
	// keys joined by identical work: each key's group is named by the
	// least key in it (union by the least)
	parent := map[string]string{}
	var find func(string) string
	find = func(k string) string {
		if p := parent[k]; p != k {
			parent[k] = find(p)
		}
		return parent[k]
	}
	byWork := map[FeatureRow]string{}
	for i := range s {
		key := sampleKey(&s[i])
		if _, ok := parent[key]; !ok {
			parent[key] = key
		}
		if s[i].Iteration {
			continue
		}
		if other, ok := byWork[s[i].Row]; ok {
			a, b := find(key), find(other)
			if a != b {
				parent[max(a, b)] = min(a, b)
			}
		} else {
			byWork[s[i].Row] = key
		}
	}
	byKey := map[string][]int{}
	var keys []string
	for i := range s {
		key := find(sampleKey(&s[i]))
		if _, ok := byKey[key]; !ok {
			keys = append(keys, key)
		}
		byKey[key] = append(byKey[key], i)
	}
	slices.Sort(keys)
	rng := rand.New(rand.NewPCG(seed, seed+1))
	rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	k = max(1, min(k, len(keys)))
	folds := make([][]int, k)
	for i, key := range keys {
		folds[i%k] = append(folds[i%k], byKey[key]...)
	}
	return folds
}

// HeldOut predicts every sample in the folds with a model of the family
// fitted on the other folds' learnable rows (Sample.Learnable); samples in
// no fold keep their analytical time.
func HeldOut(s []Sample, family string, folds [][]int) ([]float64, error) {
	return heldOut(s, family, folds, defaults)
}

// heldOut is HeldOut with the settings st.
func heldOut(s []Sample, family string, folds [][]int, st settings) ([]float64, error) {
	pred := Analytical(s)
	// the folds are fitted side by side, as many at once as there are
	// processors; each writes only its own test rows, so the result does
	// not depend on the order they finish in
	errs := make([]error, len(folds))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for f, test := range folds {
		// a whole iteration with a layer of the fold's shapes or work sums
		// that layer's measured time (its Layers): not learned from, as
		// ModelSplitTrain leaves it out (a reviewer's find: almost every
		// model's iterations had been fitted in every fold)
		tainted := iterationsWith(s, heldShapes(s, test))
		var train []Sample
		for g := range folds {
			if g == f {
				continue
			}
			for _, i := range folds[g] {
				if !(s[i].Iteration && tainted[iterationKey(&s[i].Record)]) {
					train = append(train, s[i])
				}
			}
		}
		if !slices.ContainsFunc(train, func(x Sample) bool { return x.Learnable() }) {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			l, err := fit(train, family, st)
			if err != nil {
				errs[f] = err
				return
			}
			predictRows(pred, s, test, l)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return pred, nil
}

// Learned is a learned correction of the analytical model: it predicts
// log(measured / analytical) of a layer pass from its features. The
// regressors are implemented in this package (golearn's CART regressor keeps
// its tree in an unexported type, its KNN regressor breaks distance ties by
// map order and its linear regression hides its coefficients and fails on
// collinear one-hot features, so none could be saved and reloaded to give
// identical predictions). golearn_test.go checks each against golearn's
// counterpart: on unambiguous data they predict the same.
type Learned struct {
	Version    int        `json:"version"`
	Features   []string   `json:"features"`
	Featurizer Featurizer `json:"featurizer"`
	Model      string     `json:"model"`
	// Stat is the time learned; empty (files from before it was
	// recorded) is Median.
	Stat Stat `json:"stat,omitempty"`
	// Depth is the depth of the tree, or of the ensemble's trees (the
	// median's boosted trees; its forest's is forestDepth) (0: the
	// family has none, or a file from before it was recorded: the
	// family's default); FeatureSet names the numeric features' set
	// (FeatureSets; empty: none of them, or a file from before it was
	// recorded). With Model they are the configuration Train chose.
	Depth      int    `json:"depth,omitempty"`
	FeatureSet string `json:"feature_set,omitempty"`
	// CV are the cross-validated scores the configuration was chosen by,
	// by family (each family's best configuration) and "analytical";
	// CVSplit says how the rows were split ("3 folds by model"), Grid
	// holds every configuration's scores. They chose the configuration,
	// so they flatter it: Nested scores the choice on models it never
	// saw. Files from before the split by model have CV held out by
	// layer shape, and no CVSplit or Grid.
	CV      map[string]Scores `json:"cv,omitempty"`
	CVSplit string            `json:"cv_split,omitempty"`
	Grid    []GridScore       `json:"grid,omitempty"`
	Train   TrainInfo         `json:"train"`
	// Mean and Std standardise feature vectors (KNN, linear, median).
	Mean []float64 `json:"mean"`
	Std  []float64 `json:"std"`
	// The model: the tree; the KNN's points (standardised) and targets; the
	// linear model's intercept and weights (on standardised features).
	Tree      *TreeNode   `json:"tree,omitempty"`
	K         int         `json:"k,omitempty"`
	Points    [][]float64 `json:"points,omitempty"`
	Targets   []float64   `json:"targets,omitempty"`
	Intercept float64     `json:"intercept,omitempty"`
	Weights   []float64   `json:"weights,omitempty"`
	// Range is the lowest and highest log ratio the linear model learned
	// from; it predicts no further out (an extrapolation along a feature
	// no training row reached is none of its business). Absent (zero) in
	// files from before it was kept: unbounded but by correctionBound.
	Range [2]float64 `json:"range,omitempty"`
	// Ensembles: a boosted model predicts Intercept + Shrinkage·Σ tree, a
	// forest the trees' mean. Added within version 1: a version 1 file
	// without them reads as before.
	Shrinkage float64     `json:"shrinkage,omitempty"`
	Trees     []*TreeNode `json:"trees,omitempty"`
	// Forest is the median family's random forest (its boosted trees are
	// Trees, its neighbours Points).
	Forest []*TreeNode `json:"forest,omitempty"`
	// ColdTraffic is what a whole iteration takes beyond its layer passes
	// timed one by one, in seconds per second of Traffic (the passes'
	// bytes at the device's memory bandwidth): ColdTraffic of the whole
	// iterations learned from. Predict adds ColdTraffic × the iteration's
	// bytes / bandwidth to a corrected iteration (Prediction.Cold).
	// Absent (0) in files from before it was fitted.
	ColdTraffic float64 `json:"cold_traffic,omitempty"`
	// ColdLLC says that the traffic is counted with each pass's bytes
	// capped at the device's last-level cache (ColdBytes; Device.CacheBytes),
	// as fit chose (ColdLLC); false (all the bytes) in files from before
	// the choice.
	ColdLLC bool `json:"cold_llc,omitempty"`
	// ColdCache is the last-level cache of the machine profiled (the
	// largest its rows recorded, bytes): with ColdLLC, the cap where the
	// device predicted for does not say its own.
	ColdCache float64 `json:"cold_cache_bytes,omitempty"`
	// Impl says that rows it learned from name the implementations a
	// library ran for a convolution (FeatureRow.Impl: oneDNN's, in a
	// profile's algo column). Where none did (profiles of the pure-Go
	// backend), its impl_* features were 0 in training and stay 0 when
	// predicting: nothing asks oneDNN.
	Impl bool `json:"impl,omitempty"`
	// CPU is the machine the CPU rows learned from were profiled on, as
	// their analytical base took it (ProfileDevice): a CPU prediction
	// starts from the same base (Learned.Device), whatever machine runs it.
	// Absent in files from before it was recorded (the base was the
	// training machine's /proc/cpuinfo, as a prediction's is), in
	// corrections of no CPU rows, and where the rows describe more than
	// one machine.
	CPU *ProfiledCPU `json:"cpu,omitempty"`
}

// Device is the device a prediction with l on d starts from: on a CPU,
// the machine l learned from where l recorded it (Learned.CPU, and its
// last-level cache, ColdCache, where the cold traffic is capped at one),
// for its corrections are ratios to that machine's analytical times; d
// itself otherwise.
func (l *Learned) Device(d *Device) *Device {
	if l.CPU == nil || d.Kind != KindCPU {
		return d
	}
	c := *d
	c.Sources = slices.Clone(d.Sources)
	l.CPU.apply(&c)
	if l.ColdCache > 0 {
		c.CacheBytes = l.ColdCache
	}
	if len(l.Train.Devices) > 0 {
		c.Display = strings.Join(l.Train.Devices, "; ") + " (the machine profiled)"
	}
	return &c
}

// IterationTraffic is l.ColdTraffic: what Predict adds to an iteration
// per second of its bytes at the device's bandwidth.
func (l *Learned) IterationTraffic() float64 { return l.ColdTraffic }

// ColdBytes is what of a pass's bytes counts in the iteration's traffic on
// a device whose last-level cache holds cache bytes (ColdBytes under
// l.ColdLLC).
func (l *Learned) ColdBytes(bytes, cache float64) float64 {
	if cache <= 0 {
		cache = l.ColdCache
	}
	return ColdBytes(bytes, cache, l.ColdLLC)
}

// TrainInfo describes the training data.
type TrainInfo struct {
	// Rows is the rows learned from; Copies the rows given but left out
	// as copies of another row's measurement (Sample.Shared).
	Rows   int      `json:"rows"`
	Copies int      `json:"copies,omitempty"`
	Models []string `json:"models"`
	Ops    []string `json:"ops"`
	// OpPasses are the op and pass of the rows learned from ("conv2d
	// bwd-data"), each once; absent in files from before they were
	// recorded. A pass of none of them is the correction's extrapolation.
	OpPasses []string `json:"op_passes,omitempty"`
	// Kinds are the kinds of device (cpu, gpu) the rows were measured on;
	// absent in files from before they were recorded (all CPU).
	Kinds []string `json:"kinds,omitempty"`
	// Devices are the devices the rows were measured on, as the profiles
	// name them ("cpu: AMD EPYC, 2 cores"); absent in files from before
	// they were recorded.
	Devices []string `json:"devices,omitempty"`
	// Precisions are the precisions the rows were measured in (fp32);
	// absent in files from before they were recorded (all fp32).
	Precisions []string `json:"precisions,omitempty"`
}

// Unlearned lists the layer passes of p that the correction learned from
// no row of, as "op (pass, pass)" in the order the network has them: their
// correction is the model's answer for work it never saw. Nil where every
// pass was learned, or the file does not say what was (from before
// OpPasses was recorded).
func (t TrainInfo) Unlearned(p *Prediction) []string {
	if len(t.OpPasses) == 0 {
		return nil
	}
	var ops []string
	missing := map[string][]string{}
	for _, lt := range p.Layers {
		for pass, sec := range lt.Time {
			name := dnn.Pass(pass).String()
			if sec <= 0 || slices.Contains(t.OpPasses, lt.Op+" "+name) || slices.Contains(missing[lt.Op], name) {
				continue
			}
			if missing[lt.Op] == nil {
				ops = append(ops, lt.Op)
			}
			missing[lt.Op] = append(missing[lt.Op], name)
		}
	}
	out := make([]string, len(ops))
	for i, op := range ops {
		out[i] = op + " (" + strings.Join(missing[op], ", ") + ")"
	}
	return out
}

// Sweeps is how many of the models trained on are sweeps (dnn.IsSweep).
func (t TrainInfo) Sweeps() int {
	n := 0
	for _, m := range t.Models {
		if dnn.IsSweep(m) {
			n++
		}
	}
	return n
}

// settings are the families' hyperparameters, the candidate
// configurations and the folds of the cross-validations. Fit, HeldOut,
// HeldOutSplit, HeldOutModels, Train and Nested use defaults; the unit
// tests cross-validate with cheaper settings on part of the bundled
// profiles (BenchmarkTrainBundled runs defaults on all of them).
type settings struct {
	folds       int // folds of the split by layer shape
	treeDepth   int
	treeMinLeaf int
	knnK        int
	ridgeLambda float64
	boost       BoostParams
	forest      ForestParams
	// numeric are the numeric features fitted on; nil: numericNames.
	numeric []string
	// grid are the configurations Train and Nested's inner loop choose
	// among; modelFolds the folds by model they choose by (≤ 0: one per
	// model); seed seeds Train's dealing of models to folds.
	grid       []Candidate
	modelFolds int
	seed       uint64
	// observe, when set, is told of every fit of a cross-validation by
	// model (tests check what each was trained on).
	observe func(cvFit)
}

// forestDepth is the depth of the random forest's trees.
const forestDepth = 12

// defaults are the settings wb trains with.
var defaults = settings{
	folds:       CVFolds,
	treeDepth:   12,
	treeMinLeaf: 2,
	knnK:        3,
	ridgeLambda: 1.0,
	// Set before looking at held-out scores, from the usual defaults:
	// see BenchmarkTrainBundled for how they were checked. The
	// boosted trees' depth is XGBoost's default, 6; it was 4 until the
	// sweeps were added, and was raised after held-out scores on them:
	// depth 4 came to 85.2% within ±10% on the shape split, depth 6 to
	// 90.7% (400 trees of depth 6: 91.4%, at twice the training time).
	boost:  BoostParams{Trees: 200, Depth: 6, MinLeaf: 5, Shrinkage: 0.1, Subsample: 0.8, Seed: 1},
	forest: ForestParams{Trees: 200, Depth: forestDepth, MinLeaf: 2, Features: 1.0 / 3, Seed: 1},
	// The configurations were fixed before any score: the tree's and the
	// boosted trees' depth from two values each, the forest, KNN and ridge
	// as they were, each on either feature set. The median (at the boosted
	// trees' two depths) was added later, after a trial of its members'
	// means on the nested evaluation's held-out folds
	// (BenchmarkTrainBundled's comment).
	grid:       Grid(FeatureSets, []int{6, 12}, []int{4, 6}),
	modelFolds: ModelCVFolds,
	seed:       1,
}

// Fit fits one family on the samples' learnable rows (Sample.Learnable),
// without cross-validation.
func Fit(s []Sample, family string) (*Learned, error) { return fit(s, family, defaults) }

// fit is Fit with the settings st.
func fit(all []Sample, family string, st settings) (*Learned, error) {
	var s []Sample
	copies := 0
	for i := range all {
		if all[i].Learnable() {
			s = append(s, all[i])
		} else if all[i].Shared {
			copies++
		}
	}
	if len(s) == 0 {
		return nil, errors.New("predictor: no ok rows with an analytical time to learn from")
	}
	rows := make([]FeatureRow, len(s))
	for i := range s {
		rows[i] = s[i].Row
	}
	numeric := st.numeric
	if numeric == nil {
		numeric = numericNames
	}
	fz := newFeaturizer(rows, numeric)
	l := &Learned{Version: LearnedVersion, Features: fz.Names(), Featurizer: *fz, Model: family, FeatureSet: featureSetName(numeric),
		ColdLLC: ColdLLC(all)}
	l.ColdTraffic = ColdTraffic(all, l.ColdLLC)
	if l.ColdLLC {
		for i := range all {
			l.ColdCache = max(l.ColdCache, all[i].cache)
		}
	}
	l.Train.Copies = copies
	fam, ok := families.Get(family)
	if !ok {
		return nil, fmt.Errorf("predictor: unknown model family %q (known: %v)", family, Families)
	}
	if fam.depth != nil {
		l.Depth = *fam.depth(&st)
	}
	for i := range s {
		if !slices.Contains(l.Train.Models, s[i].Record.Model) {
			l.Train.Models = append(l.Train.Models, s[i].Record.Model)
		}
		if k := recordKind(&s[i].Record); !slices.Contains(l.Train.Kinds, k) {
			l.Train.Kinds = append(l.Train.Kinds, k)
		}
		if d := s[i].Record.Device; d != "" && !slices.Contains(l.Train.Devices, d) {
			l.Train.Devices = append(l.Train.Devices, d)
		}
		if p := s[i].Record.Precision; p != "" && !slices.Contains(l.Train.Precisions, p) {
			l.Train.Precisions = append(l.Train.Precisions, p)
		}
		if op := s[i].Record.Op + " " + s[i].Record.Pass; !slices.Contains(l.Train.OpPasses, op) {
			l.Train.OpPasses = append(l.Train.OpPasses, op)
		}
	}
	slices.Sort(l.Train.OpPasses)
	l.CPU = learnedCPU(s)
	if err := l.CPU.check(); err != nil {
		// what predicting with the file would refuse: said now, by the
		// profiles' machine (their sidecars' figures)
		return nil, fmt.Errorf("predictor: the machine the profiles measured: %w (their sidecars' machine figures)", err)
	}
	slices.Sort(l.Train.Models)
	slices.Sort(l.Train.Kinds)
	slices.Sort(l.Train.Devices)
	slices.Sort(l.Train.Precisions)
	l.Train.Rows, l.Train.Ops = len(s), fz.Ops
	// oneDNN names its implementations "isa:kernel" ("jit:avx512_core",
	// "x64:gemm:jit"); the pure-Go backend names none
	l.Impl = NeedsImpl(numeric) && slices.ContainsFunc(s, func(x Sample) bool {
		return x.Row.Op == string(dnn.OpConv2D) && strings.Contains(x.Row.Impl, ":")
	})
	X := make([][]float64, len(s))
	y := make([]float64, len(s))
	for i := range s {
		X[i] = fz.Vector(s[i].Row)
		y[i] = s[i].Target
	}
	p := len(X[0])
	l.Mean, l.Std = make([]float64, p), make([]float64, p)
	for j := 0; j < p; j++ {
		var m, q float64
		for i := range X {
			m += X[i][j]
		}
		m /= float64(len(X))
		for i := range X {
			q += (X[i][j] - m) * (X[i][j] - m)
		}
		sd := math.Sqrt(q / float64(len(X)))
		if sd < 1e-12 {
			sd = 1
		}
		l.Mean[j], l.Std[j] = m, sd
	}
	Z := make([][]float64, len(X))
	for i := range X {
		Z[i] = l.standardise(X[i])
	}
	fam.fit(l, X, Z, y, st)
	return l, nil
}

func (l *Learned) standardise(x []float64) []float64 {
	z := make([]float64, len(x))
	for j := range x {
		z[j] = (x[j] - l.Mean[j]) / l.Std[j]
	}
	return z
}

// Correct is the factor by which the row's analytical time is multiplied:
// exp of the predicted log ratio (bounded to e^±8).
func (l *Learned) Correct(r FeatureRow) float64 {
	fam, ok := families.Get(l.Model)
	if !ok {
		return 1 // LoadLearned refuses a model of no family
	}
	return boundCorrection(fam.predict(l, l.Featurizer.Vector(r)))
}

// NeedsImpl says whether l learned from the implementations oneDNN picks
// (impl_* features, from rows that name them): predicting with it then
// needs an ImplQuery.
func (l *Learned) NeedsImpl() bool { return l.Impl && NeedsImpl(l.Featurizer.numericList()) }

// Factor is Correct: it makes a Learned a Corrector.
func (l *Learned) Factor(r FeatureRow) float64 { return l.Correct(r) }

// Families sorted by CV MAPE, best first.
func (l *Learned) Ranking() []string {
	var f []string
	for k := range l.CV {
		f = append(f, k)
	}
	sort.Slice(f, func(i, j int) bool {
		if l.CV[f[i]].MAPE != l.CV[f[j]].MAPE {
			return l.CV[f[i]].MAPE < l.CV[f[j]].MAPE
		}
		return f[i] < f[j]
	})
	return f
}

// Save writes the predictor as indented JSON, whole or not at all: a
// write that fails (a full disk, a second Ctrl-C) leaves the file that
// was there.
func (l *Learned) Save(path string) error {
	b, err := json.MarshalIndent(l, "", " ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}

// learnedCPU is the machine the CPU samples in s were featurised on (each
// sample's device's record of it, ProfileDevice, which set the peak,
// bandwidth and cores its features took), or nil where there are none,
// where any was featurised without its profile's record of the machine (the
// reader's figures: a profile from before the sidecar recorded them), or
// where they were featurised on more than one.
func learnedCPU(s []Sample) *ProfiledCPU {
	var pc *ProfiledCPU
	for i := range s {
		if recordKind(&s[i].Record) != KindCPU {
			continue
		}
		m := s[i].machine
		switch {
		case m.PeakFLOPs <= 0 || m.MemBandwidth <= 0:
			return nil
		case pc == nil:
			pc = &m
		case *pc != m:
			return nil
		}
	}
	return pc
}

// recordKind is the kind of device a profile row was measured on: the CUDA
// backend's rows are a GPU's, every other backend's a CPU's.
func recordKind(r *profiler.Record) string {
	if r.Backend == "cuda" {
		return KindGPU
	}
	return KindCPU
}

// AppliesTo says whether the correction was learned on d's kind of device:
// a correction learned on CPU profiles says nothing about a GPU (the CPU's
// kernels, caches and launch costs are not a GPU's), and the reverse. A file
// from before the kinds were recorded was learned on CPU profiles (wb had
// no GPU profiles then).
func (l *Learned) AppliesTo(d *Device) error {
	kinds := l.Train.Kinds
	if len(kinds) == 0 {
		kinds = []string{KindCPU}
	}
	if !slices.Contains(kinds, d.Kind) {
		what := "predict it from its spec sheet with --device-spec (the GPU op model), or train on a GPU's profiles"
		if d.Kind == KindCPU {
			what = "profile this CPU (wb profile) and train on its profiles"
		}
		return fmt.Errorf("predictor: the correction was learned on %s profiles and does not apply to %s, a %s: %s", strings.Join(kinds, " and "), d.Name, d.Kind, what)
	}
	return nil
}

// AppliesAt says whether the correction was learned at precision p: one
// learned on fp32 profiles says nothing of a bf16 pass (other kernels,
// half the bytes). A file from before the precisions were recorded was
// learned on fp32 (wb profiled nothing else then).
func (l *Learned) AppliesAt(p Precision) error {
	ps := l.Train.Precisions
	if len(ps) == 0 {
		ps = []string{string(FP32)}
	}
	if !slices.Contains(ps, string(p)) {
		where := ""
		if p == FP16 || p == BF16 {
			where = " on a GPU (wb profiles the CPU in fp32 and tf32 alone)"
		}
		return fmt.Errorf("predictor: the correction was learned on %s profiles and does not apply at %s: predict at %s, or profile at %s%s "+
			"and train on those profiles", strings.Join(ps, " and "), p, strings.Join(ps, " or "), p, where)
	}
	return nil
}

// LoadLearned reads a predictor Save wrote.
func LoadLearned(path string) (*Learned, error) {
	// a device or a stream named by mistake (/dev/zero was read until wb
	// died) is refused at once; a predictor is a file, of 50 MB for one
	// trained on every bundled profile, and up to 4 GiB of one is read
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		return nil, fmt.Errorf("%s: not a regular file (a device or a stream?): a predictor is a .json file wb train wrote", path)
	}
	b, err := readcap.ReadFile(path, 4<<30)
	if err != nil {
		return nil, err
	}
	var l Learned
	if t := bytes.TrimLeft(b, " \t\r\n\ufeff"); len(t) > 0 && t[0] != '{' {
		// a profile's CSV, a trace: not JSON at all
		return nil, fmt.Errorf("%s: not a wb predictor (the JSON file wb train writes)", path)
	}
	if err := json.Unmarshal(b, &l); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) && syn.Offset >= int64(len(bytes.TrimRight(b, " \t\r\n"))) {
			// the JSON ends before its value does
			return nil, fmt.Errorf("%w: the file is cut short; write it again (wb train)", jsonpos.At(path, b, err))
		}
		return nil, jsonpos.At(path, b, err)
	}
	switch {
	case l.Version == 0:
		// JSON, but no predictor's (every one wb wrote has a version): a
		// profile's sidecar, a spec sheet
		return nil, fmt.Errorf("%s: not a wb predictor (the JSON file wb train writes): it has no version", path)
	case l.Version == 1 && NeedsImpl(l.Featurizer.numericList()):
		return nil, fmt.Errorf("%s: a version-1 predictor with oneDNN's kernels among its features (impl_*) does not say whether its rows named them: train it again (wb train)", path)
	case l.Version >= 1 && l.Version < LearnedVersion:
		l.Version = LearnedVersion // the same file, less the fields it lacks
	case l.Version != LearnedVersion:
		return nil, fmt.Errorf("%s: predictor version %d, from a newer wb than this one (which reads up to %d): use that wb, or train it again with this one (wb train)", path, l.Version, LearnedVersion)
	}
	if err := l.Featurizer.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if l.Stat == "" {
		l.Stat = Median
	}
	if _, err := ParseStat(string(l.Stat)); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p := len(l.Features)
	ok := len(l.Mean) == p && len(l.Std) == p && slices.Equal(l.Featurizer.Names(), l.Features)
	if fam, known := families.Get(l.Model); known {
		ok = ok && fam.complete(&l, p)
	} else {
		ok = false
	}
	if !ok {
		return nil, fmt.Errorf("%s: not a complete %q predictor", path, l.Model)
	}
	if err := l.checkValues(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &l, nil
}

// maxParam bounds every number of a loaded predictor: far above any a
// fit makes (standardised weights, log-ratio targets, feature means), far
// enough below the largest float that no sum of products of them overflows.
const maxParam = 1e100

// checkValues refuses a predictor whose numbers are not finite, too large
// to compute with, or a feature's spread that is not positive: such a file
// (edited, damaged) would predict NaN or ±Inf.
func (l *Learned) checkValues() error {
	bad := func(v float64) bool { return math.IsNaN(v) || math.Abs(v) > maxParam }
	for j, v := range l.Mean {
		if bad(v) {
			return fmt.Errorf("feature %s: mean %v out of range (|x| ≤ %g)", l.Features[j], v, maxParam)
		}
	}
	for j, v := range l.Std {
		if bad(v) || !(v >= 1/maxParam) {
			return fmt.Errorf("feature %s: standard deviation %v, want a positive spread between %g and %g", l.Features[j], v, 1/maxParam, maxParam)
		}
	}
	for j, v := range l.Weights {
		if bad(v) {
			return fmt.Errorf("feature %s: weight %v out of range (|x| ≤ %g)", l.Features[j], v, maxParam)
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"intercept", l.Intercept}, {"shrinkage", l.Shrinkage}} { // in this order, whatever the run
		if bad(f.v) {
			return fmt.Errorf("%s %v out of range (|x| ≤ %g)", f.name, f.v, maxParam)
		}
	}
	if bad(l.ColdTraffic) || l.ColdTraffic < 0 {
		return fmt.Errorf("cold_traffic %v out of range (0 ≤ x ≤ %g)", l.ColdTraffic, maxParam)
	}
	if bad(l.ColdCache) || l.ColdCache < 0 {
		return fmt.Errorf("cold_cache_bytes %v out of range (0 ≤ x ≤ %g)", l.ColdCache, maxParam)
	}
	if err := l.CPU.check(); err != nil {
		return err
	}
	for i, v := range l.Targets {
		if bad(v) {
			return fmt.Errorf("target %d: %v out of range (|x| ≤ %g)", i, v, maxParam)
		}
	}
	for i, x := range l.Points {
		if slices.ContainsFunc(x, bad) {
			return fmt.Errorf("point %d: a coordinate out of range (|x| ≤ %g)", i, maxParam)
		}
	}
	var walk func(n *TreeNode) bool
	walk = func(n *TreeNode) bool {
		return n == nil || !bad(n.Threshold) && !bad(n.Value) && walk(n.Left) && walk(n.Right)
	}
	for _, set := range []struct {
		name  string
		trees []*TreeNode
	}{{"tree", append([]*TreeNode{l.Tree}, l.Trees...)}, {"forest tree", l.Forest}} {
		for i, t := range set.trees {
			if !walk(t) {
				return fmt.Errorf("%s %d: a threshold or value out of range (|x| ≤ %g)", set.name, i, maxParam)
			}
		}
	}
	return nil
}

// HeldOutSplit predicts the test samples with a model of the family fitted
// on the train samples; every other sample keeps its analytical time.
func HeldOutSplit(s []Sample, family string, train, test []int) ([]float64, error) {
	return heldOutSplit(s, family, train, test, defaults)
}

// heldOutSplit is HeldOutSplit with the settings st.
func heldOutSplit(s []Sample, family string, train, test []int, st settings) ([]float64, error) {
	pred := Analytical(s)
	tr := make([]Sample, len(train))
	for i, j := range train {
		tr[i] = s[j]
	}
	l, err := fit(tr, family, st)
	if err != nil {
		return nil, err
	}
	predictRows(pred, s, test, l)
	return pred, nil
}

// BatchSplit splits the samples by batch size: of each model's batch
// sizes, training gets the rows of the smallest and testing those of the
// largest. Models profiled at one batch size are left out. Sweeps are
// training data at every batch size, less any row of a layer shape some
// model has.
func BatchSplit(s []Sample) (train, test []int) {
	lo, hi := map[string]int{}, map[string]int{}
	modelKeys := map[string]bool{}
	for i := range s {
		if s[i].Sweep() {
			continue
		}
		m, b := s[i].Record.Model, s[i].Record.Batch
		if !s[i].Iteration { // a whole iteration is no layer shape
			modelKeys[s[i].Record.Key] = true
		}
		if v, ok := lo[m]; !ok || b < v {
			lo[m] = b
		}
		if b > hi[m] {
			hi[m] = b
		}
	}
	// a sweep's whole iteration is learned from unless one of its layers
	// has a model's shape (its Layers sum their measured times), as
	// ModelSplitTrain leaves such iterations out
	tainted := iterationsWith(s, func(x *Sample) bool { return modelKeys[x.Record.Key] })
	for i := range s {
		m, b := s[i].Record.Model, s[i].Record.Batch
		switch {
		case s[i].Sweep():
			if s[i].Iteration && !tainted[iterationKey(&s[i].Record)] || !s[i].Iteration && !modelKeys[s[i].Record.Key] {
				train = append(train, i)
			}
		case lo[m] == hi[m]:
		case b == lo[m]:
			train = append(train, i)
		case b == hi[m]:
			test = append(test, i)
		}
	}
	return train, test
}

// iterationsWith is the whole iterations (iterationKey) among s with a
// layer pass for which has holds: the iterations whose Layers sum that
// pass's measured time.
func iterationsWith(s []Sample, has func(*Sample) bool) map[string]bool {
	out := map[string]bool{}
	for i := range s {
		if !s[i].Iteration && has(&s[i]) {
			out[iterationKey(&s[i].Record)] = true
		}
	}
	return out
}

// analyticalBase is the analytical time of a layer pass on the predictor
// device d as Predict computes it for a CPU (the roofline with the default
// efficiencies; no per-kernel overhead): the same for identical work in
// every profile. A profile's own predicted_s used the processor as measured
// that day (fp32 peak 376–477 GFLOP/s, memory copy 46–85 GB/s between the
// bundled profiles), which made identical work's targets disagree. Other
// devices keep the row's prediction (predicted).
func analyticalBase(fr FeatureRow, d *Device, predicted float64) float64 {
	if d.Kind != "cpu" {
		return predicted
	}
	eff := DefaultEfficiency(d.Kind)
	peak := fr.Peak * eff.Vector
	if fr.Matrix {
		peak = fr.Peak * eff.Matrix
	}
	t := math.Max(fr.FLOPs/peak, fr.Bytes/(fr.Bandwidth*eff.Memory))
	if !(t > 0) || math.IsInf(t, 0) {
		return predicted
	}
	return t
}
