// Package gavelcheck scores the predictor against Gavel's measured
// throughputs: per job type and GPU, the predicted iteration time beside
// the measured one, and what the analytical path cannot see.
package gavelcheck

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/wb-sim/wb/datasets/gavel"
	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/predictor"
	"github.com/wb-sim/wb/predictor/gpu"
)

// gavelGPUs maps Gavel's GPU names to the device table's.
var gavelGPUs = predictor.GavelDevices

// GavelGPUs lists Gavel's names of the GPUs it measured, sorted.
func GavelGPUs() []string {
	return slices.Sorted(maps.Keys(gavelGPUs))
}

// LayerModels trains the GPU op model once per GPU Gavel measured, each
// without the training GPUs of that GPU's chip, so that no Gavel figure is
// predicted by a model that saw its chip's ops; a GPU whose chip no
// training GPU shares (the K80) takes the shipped model, which training on
// all of them reproduces byte for byte (gpu.TestShippedReproduces). Each
// remembers the layer passes it times (gpu.Memo): the estimators of a
// plan's folds predict the same networks many times. progress, when not
// nil, hears of each.
func LayerModels(progress io.Writer) (map[string]predictor.LayerModel, error) {
	data, err := gpu.LoadBundled()
	if err != nil {
		return nil, err
	}
	models := map[string]predictor.LayerModel{}
	for _, g := range GavelGPUs() {
		dev, err := predictor.LookupDevice(gavelGPUs[g])
		if err != nil {
			return nil, err
		}
		s, err := gpu.SpecOfDevice(dev)
		if err != nil {
			return nil, err
		}
		out := data.SameDie(s)
		if len(out) == 0 {
			m, err := gpu.ShippedMemo()
			if err != nil {
				return nil, err
			}
			models[g] = m
			continue
		}
		if progress != nil {
			fmt.Fprintf(progress, "training the GPU op model for %s without %v ...\n", g, out)
		}
		m, err := data.Train(out, gpu.DefaultParams())
		if err != nil {
			return nil, err
		}
		models[g] = gpu.Memo(m)
	}
	return models, nil
}

// ValidationRow is one (job type, GPU) of Gavel's measurements beside the
// prediction.
type ValidationRow struct {
	JobType, Family, Model, GPU string
	Batch                       int
	Measured, Predicted         float64 // iterations per second
	// Error is the signed error of the iteration time: predicted time /
	// measured time − 1.
	Error float64
	// Launch is the host's cost per operator the row was predicted with,
	// seconds, and Scale the GPU's device scale
	// (predictor.Options.DeviceScale; 1 when the GPU is not scaled): both
	// fitted on the other job families (see ValidateGavel).
	Launch, Scale float64
	// Blind marks a job whose time the model cannot see; blind rows are
	// neither fitted on nor counted in the figure without them.
	Blind bool
	// OutOfStep, where its Batch is not 0, is another batch of the family
	// that Gavel measured out of step with this one on this GPU
	// (gavel.Throughputs.OutOfStep): a measurement no model of the
	// network's work follows. Such rows are scored like the others.
	OutOfStep gavel.BatchAnomaly
}

// Validation compares the analytical model with Gavel's measured solo
// throughputs (one GPU, fp32, as Gavel ran them).
type Validation struct {
	Combine predictor.Combine
	Rows    []ValidationRow
	// Mean |error| of the iteration time per job family, per GPU (blind
	// families left out), over all rows but the blind ones, and over all.
	PerFamily, PerGPU map[string]float64
	Seen, Overall     float64
	// Fitted is the host cost per operator fitted on every family but the
	// blind ones and Scales the device scales fitted with it, by Gavel GPU
	// (1: not scaled): with the GPU op model, the constants the model
	// estimator uses (gpu.HostOverhead, gpu.DeviceScales; a GPU whose chip
	// the shipped model learned takes none, gpu.DeviceScalesFor). Unscaled is the
	// host cost fitted alone (every scale 1): on the analytical path,
	// predictor.DefaultKernelOverhead.
	Fitted, Unscaled float64
	Scales           map[string]float64
	// Constants are, per job family (A3C's among them), the host cost and
	// device scales fitted without it: what its rows were predicted with.
	Constants map[string]Constants
	// PairConstants are, per two families of those seen (PairKey), the
	// constants fitted without either: what another family's data-parallel
	// rows are predicted with when the all-reduce bandwidth of one of the
	// two is fitted to them, so that a family's own measurements reach
	// neither its constants nor its bandwidth.
	PairConstants map[[2]string]Constants
	// Scaling compares the data-parallel jobs' slowdown per iteration
	// with the one-GPU job of their type (families seen only).
	Scaling []ScalingRow
	// Links is, per GPU, the all-reduce bandwidth (bytes/s) that fits all
	// its data-parallel job families of Scaling at once (fitLinks): what
	// Gavel's servers of that GPU gave an all-reduce, as far as its jobs
	// tell. Unlike a row's Bandwidth it saw the family it would predict.
	Links map[string]float64
	// Floor is how consistent Gavel's measurements are with themselves
	// (AffineFloor): per family, over the families seen and over all rows
	// but A3C's, the mean |error| of the best iteration time a + c × batch
	// per family and GPU, fitted to those very rows. A model whose time
	// grows linearly with the batch, as the analytical one nearly does,
	// cannot do better on them; what it misses beyond this is the model's.
	Floor       map[string]float64
	FloorSeen   float64
	FloorButA3C float64
}

// Constants are the host cost per operator (seconds, the predictor's
// KernelOverhead) and the device scale per Gavel GPU (1: not scaled) that
// a job family's rows are predicted with.
type Constants struct {
	HostCost float64
	Scales   map[string]float64
}

// AffineFloor is the smallest mean |relative error| with which a time
// a + c × b (a, c ≥ 0) can match the measured times t[i] at batches b[i]:
// a weighted least-absolute-deviations fit, whose optimum lies where two
// of its constraints hold exactly (two points on the line, or one point
// and a zero intercept or slope), so every such line is tried. 0 for
// fewer than two points; NaN where b and t differ in length or a batch or
// time is not a positive number.
func AffineFloor(b, t []float64) float64 {
	n := len(b)
	if len(t) != n {
		return math.NaN()
	}
	for i := range b {
		if !(b[i] > 0 && t[i] > 0) || math.IsInf(b[i], 0) || math.IsInf(t[i], 0) {
			return math.NaN()
		}
	}
	if n < 2 {
		return 0
	}
	miss := func(a, c float64) float64 {
		var e float64
		for i := range b {
			e += math.Abs((a+c*b[i])/t[i] - 1)
		}
		return e / float64(n)
	}
	best := math.Inf(1)
	for i := range b {
		best = min(best, miss(t[i], 0), miss(0, t[i]/b[i]))
		for j := i + 1; j < n; j++ {
			if b[i] == b[j] {
				continue
			}
			c := (t[j] - t[i]) / (b[j] - b[i])
			if a := t[i] - c*b[i]; c >= 0 && a >= 0 {
				best = min(best, miss(a, c))
			}
		}
	}
	return best
}

// floor fills v's Floor fields from its rows.
func (v *Validation) floor() {
	type key struct{ family, gpu string }
	bs, ts := map[key][]float64{}, map[key][]float64{}
	for _, r := range v.Rows {
		k := key{r.Family, r.GPU}
		bs[k] = append(bs[k], float64(r.Batch))
		ts[k] = append(ts[k], 1/r.Measured)
	}
	v.Floor = map[string]float64{}
	rows := map[string]int{}
	var seen, noA3C float64
	var nSeen, nNoA3C int
	keys := slices.SortedFunc(maps.Keys(bs), func(x, y key) int {
		return cmp.Or(cmp.Compare(x.family, y.family), cmp.Compare(x.gpu, y.gpu))
	})
	for _, k := range keys { // in order: the sums come out the same every run
		e := AffineFloor(bs[k], ts[k]) * float64(len(bs[k]))
		v.Floor[k.family] += e
		rows[k.family] += len(bs[k])
		if blindFamilies[k.family] == "" {
			seen += e
			nSeen += len(bs[k])
		}
		if k.family != "A3C" {
			noA3C += e
			nNoA3C += len(bs[k])
		}
	}
	for f, n := range rows {
		v.Floor[f] /= float64(n)
	}
	v.FloorSeen = seen / float64(max(nSeen, 1))
	v.FloorButA3C = noA3C / float64(max(nNoA3C, 1))
}

// LogError is the mean and the sample standard deviation of
// log(predicted / measured iteration time) over the rows of the families
// seen: the predictor's bias and spread on Gavel's jobs, as a lognormal
// error (an experiment's run_noise takes the spread).
func (v *Validation) LogError() (mean, sd float64) {
	return v.logError("")
}

// LogErrorByGPU is LogError of each GPU's rows alone, by GPU: a
// predictor errs more widely on one GPU than on another (an experiment's
// run_noise_gpus takes these spreads).
func (v *Validation) LogErrorByGPU() map[string][2]float64 {
	out := map[string][2]float64{}
	for _, r := range v.Rows {
		if _, ok := out[r.GPU]; !ok {
			m, sd := v.logError(r.GPU)
			out[r.GPU] = [2]float64{m, sd}
		}
	}
	return out
}

// logError is LogError over the rows of gpu ("" for every GPU).
func (v *Validation) logError(gpu string) (mean, sd float64) {
	var logs []float64
	for _, r := range v.Rows {
		if !r.Blind && (gpu == "" || r.GPU == gpu) {
			logs = append(logs, math.Log1p(r.Error))
		}
	}
	if len(logs) < 2 {
		return math.NaN(), math.NaN()
	}
	for _, l := range logs {
		mean += l
	}
	mean /= float64(len(logs))
	for _, l := range logs {
		sd += (l - mean) * (l - mean)
	}
	return mean, math.Sqrt(sd / float64(len(logs)-1))
}

// ScalingRow is one data-parallel job type of Gavel's measurements: its
// iteration time on GPUs GPUs over its iteration time on one, as measured
// (Gavel counts steps per GPU: an iteration on N GPUs takes N / throughput)
// and as predicted with the device's default interconnect and the family's
// host cost per operator.
type ScalingRow struct {
	JobType, Family, GPU string
	GPUs                 int
	Measured, Predicted  float64
	// Fitted is the slowdown predicted with the all-reduce bandwidth
	// (Bandwidth, bytes/s) that fits the GPU's other job families best
	// (see fitLinks).
	Fitted, Bandwidth float64
	// bytes is the ring all-reduce's traffic per GPU (2(N−1)/N × the
	// gradients), one the predicted iteration on one GPU, seconds.
	bytes, one float64
	// oneWithout is that iteration with the constants fitted without the
	// row's family and another (the key): as the fold fitting the other
	// family's bandwidth predicts it.
	oneWithout map[string]float64
}

// slowdown is the row's predicted slowdown with an all-reduce of
// bandwidth bw (bytes/s) taking all of the communication.
func (r *ScalingRow) slowdown(bw float64) float64 { return 1 + r.bytes/bw/r.one }

// slowdownWithout is slowdown as the fold that leaves family out predicts
// it (its constants fitted without that family too); slowdown where that
// is the row's own family or "" (every family).
func (r *ScalingRow) slowdownWithout(out string, bw float64) float64 {
	if one, ok := r.oneWithout[out]; ok {
		return 1 + r.bytes/bw/one
	}
	return r.slowdown(bw)
}

// PairKey is the key of two families in Validation.PairConstants.
func PairKey(a, b string) [2]string {
	if b < a {
		a, b = b, a
	}
	return [2]string{a, b}
}

// ScalingGroup is the scaling rows of one GPU and GPU count.
type ScalingGroup struct {
	GPU                         string
	GPUs, N                     int
	Measured, Predicted, Fitted float64 // mean slowdowns
	Error, FittedError          float64 // mean |predicted / measured − 1|
}

// ScalingGroups summarises Scaling per GPU and GPU count, sorted.
func (v *Validation) ScalingGroups() []ScalingGroup {
	var out []ScalingGroup
	for _, r := range v.Scaling {
		i := slices.IndexFunc(out, func(g ScalingGroup) bool { return g.GPU == r.GPU && g.GPUs == r.GPUs })
		if i < 0 {
			out = append(out, ScalingGroup{GPU: r.GPU, GPUs: r.GPUs})
			i = len(out) - 1
		}
		g := &out[i]
		g.N++
		g.Measured += r.Measured
		g.Predicted += r.Predicted
		g.Error += math.Abs(r.Predicted/r.Measured - 1)
		g.Fitted += r.Fitted
		g.FittedError += math.Abs(r.Fitted/r.Measured - 1)
	}
	for i := range out {
		n := float64(out[i].N)
		out[i].Measured /= n
		out[i].Predicted /= n
		out[i].Error /= n
		out[i].Fitted /= n
		out[i].FittedError /= n
	}
	slices.SortFunc(out, func(a, b ScalingGroup) int {
		if c := strings.Compare(a.GPU, b.GPU); c != 0 {
			return c
		}
		return a.GPUs - b.GPUs
	})
	return out
}

// blindFamilies are the job families whose iteration the model cannot see,
// and why.
var blindFamilies = map[string]string{
	"A3C": "the Atari emulator steps on the CPU between the network's small passes",
}

// launchGrid are the host costs per operator the fit tries: 1 to 80 µs.
func launchGrid() []float64 {
	var g []float64
	for us := 1; us <= 80; us++ {
		g = append(g, float64(us)*1e-6)
	}
	return g
}

// scaleGrid are the device scales the fit tries: 0.5 to 4, eight a
// doubling; scaleGrid()[unscaled] is 1.
func scaleGrid() []float64 {
	var g []float64
	for i := -8; i <= 16; i++ {
		g = append(g, math.Pow(2, float64(i)/8))
	}
	return g
}

const unscaled = 8

// ValidateGavel predicts every Gavel job type on one K80, P100 and V100
// with the analytical model and compares its iteration time with the
// bundled measured throughputs. A layer pass takes at least its operators
// × the host's cost per operator (the eager framework dispatching each)
// plus predictor.LibraryLaunch per further kernel a library launches (an
// LSTM's per-step kernels).
//
// Two kinds of constant are fitted to Gavel's numbers, leave one job
// family out: the host's cost per operator, shared by the GPUs, and a
// device scale per GPU (predictor.Options.DeviceScale: how much slower the
// GPU runs its kernels than its model says). Each family is predicted with
// the constants that minimise the mean |error| of the other families'
// iteration times (the blind families never fitted on). Whether a GPU is
// scaled at all is chosen by nested cross-validation: within the other
// families, leaving each out in turn, scaling that GPU must lower the
// error of its left-out rows; otherwise its scale is 1.
//
// Each data-parallel job type of the families seen (2, 4 and 8 GPUs) is
// compared with its one-GPU type (Validation.Scaling).
//
// models, when not nil, gives per device-table GPU of GavelGPUs the learned
// layer model to predict with (predictor.Options.Layers); a GPU without
// one is predicted analytically.
func ValidateGavel(combine predictor.Combine, models map[string]predictor.LayerModel) (*Validation, error) {
	tp, err := throughputs()
	if err != nil {
		return nil, err
	}
	var rows []fitRow
	nets := map[string]*dnn.Network{}
	gpus := GavelGPUs()
	for _, g := range gpus {
		dev, err := predictor.LookupDevice(gavelGPUs[g])
		if err != nil {
			return nil, err
		}
		var keys []gavel.JobKey
		for k, t := range tp[g] {
			if k.ScaleFactor == 1 && t.Solo > 0 {
				keys = append(keys, k)
			}
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i].JobType < keys[j].JobType })
		for _, k := range keys {
			model, batch := gavel.ZooModel(k.JobType)
			if model == "" {
				return nil, fmt.Errorf("gavel job type %q: no model in the zoo", k.JobType)
			}
			family := familyOf(k.JobType)
			net := nets[model]
			if net == nil {
				if net, err = dnn.Model(model); err != nil {
					return nil, err
				}
				nets[model] = net
			}
			r := fitRow{ValidationRow: ValidationRow{JobType: k.JobType, Family: family, Model: model, GPU: g, Batch: batch,
				Measured: tp[g][k].Solo, Blind: blindFamilies[family] != ""}}
			if a, ok := tp.OutOfStep(g, k.JobType, 1); ok {
				r.OutOfStep = a
			}
			p, err := predictor.PredictRetimable(net, dev, predictor.Options{Batch: batch, Precision: dnn.FP32, Combine: combine, Layers: models[g]})
			if err != nil {
				return nil, fmt.Errorf("%s on %s: %w", k.JobType, g, err)
			}
			r.tabulate(p)
			rows = append(rows, r)
		}
	}
	f := fitter{rows: rows, gpus: gpus}
	best := map[string]fitted{}
	for _, r := range rows {
		if _, ok := best[r.Family]; !ok {
			best[r.Family] = f.fit(map[string]bool{r.Family: true})
		}
	}
	all := f.fit(nil)
	grid, scales := launchGrid(), scaleGrid()
	v := &Validation{Combine: combine, PerFamily: map[string]float64{}, PerGPU: map[string]float64{},
		Fitted: grid[all.launch], Unscaled: grid[f.fitWith(nil, nil).launch], Scales: map[string]float64{}}
	for _, g := range gpus {
		v.Scales[g] = scales[all.scale[g]]
	}
	constants := func(b fitted) Constants {
		c := Constants{HostCost: grid[b.launch], Scales: map[string]float64{}}
		for _, g := range gpus {
			c.Scales[g] = scales[b.scale[g]]
		}
		return c
	}
	v.Constants = map[string]Constants{}
	for f, b := range best {
		v.Constants[f] = constants(b)
	}
	var seenFams []string
	for f := range best {
		if blindFamilies[f] == "" {
			seenFams = append(seenFams, f)
		}
	}
	slices.Sort(seenFams)
	v.PairConstants = map[[2]string]Constants{}
	for i, a := range seenFams {
		for _, b := range seenFams[i+1:] {
			v.PairConstants[PairKey(a, b)] = constants(f.fit(map[string]bool{a: true, b: true}))
		}
	}
	famN, gpuN := map[string]int{}, map[string]int{}
	seen := 0
	for _, r := range rows {
		b := best[r.Family]
		t := r.times[b.scale[r.GPU]][b.launch]
		r.Launch, r.Scale = grid[b.launch], scales[b.scale[r.GPU]]
		r.Predicted = 1 / t
		r.Error = t*r.Measured - 1
		e := math.Abs(r.Error)
		v.Rows = append(v.Rows, r.ValidationRow)
		v.PerFamily[r.Family] += e
		famN[r.Family]++
		v.Overall += e
		if !r.Blind {
			v.PerGPU[r.GPU] += e
			gpuN[r.GPU]++
			v.Seen += e
			seen++
		}
	}
	for _, g := range gpus {
		if err := v.scaling(tp[g], g, best, seenFams, models[g], combine, nets); err != nil {
			return nil, err
		}
	}
	for f, n := range famN {
		v.PerFamily[f] /= float64(n)
	}
	for g, n := range gpuN {
		v.PerGPU[g] /= float64(n)
	}
	if len(v.Rows) > 0 {
		v.Overall /= float64(len(v.Rows))
	}
	if seen > 0 {
		v.Seen /= float64(seen)
	}
	v.floor()
	return v, nil
}

// fitRow is a validation row with its predicted iteration time for every
// device scale and host cost of the grids: times[scale][launch].
type fitRow struct {
	ValidationRow
	times [][]float64
}

func (r *fitRow) tabulate(p *predictor.Prediction) {
	grid := launchGrid()
	for _, s := range scaleGrid() {
		ts := make([]float64, len(grid))
		for ci, c := range grid {
			ts[ci] = p.Retime(s, c)
		}
		r.times = append(r.times, ts)
	}
}

// fitted are constants fitted to some rows: indices into launchGrid and,
// per GPU, scaleGrid.
type fitted struct {
	launch int
	scale  map[string]int
}

// fitter fits the host cost and the device scales to the rows of the
// families seen.
type fitter struct {
	rows []fitRow
	gpus []string
}

// fit fits the constants to the families not in out, each GPU scaled or
// not as nested cross-validation within those families chooses.
func (f *fitter) fit(out map[string]bool) fitted {
	fams := map[string]bool{}
	for _, r := range f.rows {
		if !r.Blind && !out[r.Family] {
			fams[r.Family] = true
		}
	}
	scaled := map[string]bool{}
	for _, g := range f.gpus {
		// leave each family in turn out of the rest: does scaling g (the
		// others not) predict its rows on g better?
		var withScale, without float64
		for _, inner := range slices.Sorted(maps.Keys(fams)) { // in order: the sums are the same bits every run
			out2 := maps.Clone(out)
			if out2 == nil {
				out2 = map[string]bool{}
			}
			out2[inner] = true
			for _, on := range []bool{true, false} {
				c := f.fitWith(out2, map[string]bool{g: on})
				for _, r := range f.rows {
					if r.Family == inner && r.GPU == g {
						e := math.Abs(r.times[c.scale[g]][c.launch]*r.Measured - 1)
						if on {
							withScale += e
						} else {
							without += e
						}
					}
				}
			}
		}
		scaled[g] = withScale < without
	}
	return f.fitWith(out, scaled)
}

// fitWith fits the host cost and the scales of the GPUs in scaled (the
// others 1) to the rows of the families seen not in out, minimising their
// summed |error|.
func (f *fitter) fitWith(out, scaled map[string]bool) fitted {
	best := fitted{}
	be := math.Inf(1)
	for ci := range launchGrid() {
		var e float64
		sel := map[string]int{}
		for _, g := range f.gpus {
			ge, gs := math.Inf(1), unscaled
			for si := range scaleGrid() {
				if si != unscaled && !scaled[g] {
					continue
				}
				var x float64
				for i := range f.rows {
					if r := &f.rows[i]; r.GPU == g && !r.Blind && !out[r.Family] {
						x += math.Abs(r.times[si][ci]*r.Measured - 1)
					}
				}
				if x < ge {
					ge, gs = x, si
				}
			}
			e += ge
			sel[g] = gs
		}
		if e < be {
			be, best = e, fitted{launch: ci, scale: sel}
		}
	}
	return best
}

// scaling adds GPU g's data-parallel job types of the families seen to
// v.Scaling, each predicted with its family's host cost and device scale
// (best).
func (v *Validation) scaling(tp map[gavel.JobKey]gavel.Throughput, g string, best map[string]fitted, fams []string, layers predictor.LayerModel, combine predictor.Combine, nets map[string]*dnn.Network) error {
	dev, err := predictor.LookupDevice(gavelGPUs[g])
	if err != nil {
		return err
	}
	rows, err := dataParallel(tp, g)
	if err != nil {
		return err
	}
	for _, r := range rows {
		b, seen := best[r.Family]
		if !seen {
			continue
		}
		o := predictor.Options{Batch: r.Batch, Precision: dnn.FP32, Combine: combine, KernelOverhead: launchGrid()[b.launch],
			DeviceScale: scaleGrid()[b.scale[g]], Layers: layers}
		one, err := predictor.Predict(nets[r.Model], dev, o)
		if err != nil {
			return fmt.Errorf("%s on %s: %w", r.JobType, g, err)
		}
		o.GPUs = r.GPUs
		many, err := predictor.Predict(nets[r.Model], dev, o)
		if err != nil {
			return fmt.Errorf("%s on %d %s: %w", r.JobType, r.GPUs, g, err)
		}
		n := float64(r.GPUs)
		row := ScalingRow{JobType: r.JobType, Family: r.Family, GPU: g, GPUs: r.GPUs,
			Measured:  r.Measured,
			Predicted: many.Iteration / one.Iteration,
			bytes:     2 * (n - 1) / n * float64(many.GradientBytes), one: one.Iteration,
			oneWithout: map[string]float64{}}
		// the iteration on one GPU as the fold of each other family sees
		// it, with the constants fitted without that family and this one
		for _, out := range fams {
			if out == r.Family {
				continue
			}
			pc := v.PairConstants[PairKey(out, r.Family)]
			o := predictor.Options{Batch: r.Batch, Precision: dnn.FP32, Combine: combine, KernelOverhead: pc.HostCost,
				DeviceScale: pc.Scales[g], Layers: layers}
			p, err := predictor.Predict(nets[r.Model], dev, o)
			if err != nil {
				return fmt.Errorf("%s on %s: %w", r.JobType, g, err)
			}
			row.oneWithout[out] = p.Iteration
		}
		v.Scaling = append(v.Scaling, row)
	}
	if v.Links == nil {
		v.Links = map[string]float64{}
	}
	if bw := fitLinks(v.Scaling, g); bw > 0 {
		v.Links[g] = bw
	}
	return nil
}

// linkGrid are the all-reduce bandwidths fitLinks tries: 0.1 to 100 GB/s,
// 20 a decade.
func linkGrid() []float64 {
	var g []float64
	for i := 0; i <= 60; i++ {
		g = append(g, 1e8*math.Pow(10, float64(i)/20))
	}
	return g
}

// fitLinks sets Fitted and Bandwidth of GPU g's rows: each job family's
// rows on N GPUs are predicted with the all-reduce bandwidth that
// minimises the mean |error| of the slowdown of g's other families on N
// GPUs, leave one family out, as the host cost is fitted. The bandwidth
// stands for what the GPU's servers gave an all-reduce over so many GPUs
// (the links Gavel's jobs ran over are not recorded; a bus bandwidth
// depends on the GPUs a ring joins, as nccl-tests' busbw does), so it
// describes those servers, not the GPU. It returns the bandwidth that fits
// all of g's rows at once (0 when g has no data-parallel row).
func fitLinks(rows []ScalingRow, g string) float64 {
	var mine []*ScalingRow
	byCount := map[int][]*ScalingRow{}
	for i := range rows {
		if r := &rows[i]; r.GPU == g {
			mine = append(mine, r)
			byCount[r.GPUs] = append(byCount[r.GPUs], r)
		}
	}
	if len(mine) == 0 {
		return 0 // no data-parallel row: nothing to fit
	}
	fit := func(rs []*ScalingRow) (map[string]float64, float64) {
		return linksOut(len(rs), func(i int) string { return rs[i].Family },
			func(i int, out string, bw float64) float64 {
				return math.Abs(rs[i].slowdownWithout(out, bw)/rs[i].Measured - 1)
			})
	}
	for _, rs := range byCount {
		out, _ := fit(rs)
		for _, r := range rs {
			r.Bandwidth = out[r.Family]
			r.Fitted = r.slowdown(r.Bandwidth)
		}
	}
	_, all := fit(mine)
	return all
}

// linksOut fits an all-reduce bandwidth of linkGrid to n rows: for each
// family (family(i) of row i) the one that minimises the summed miss(i,
// family, bw) of the other families' rows (each as the fold without that
// family predicts it), and the one that minimises miss(i, "", bw) over all
// of them. A family with no other family beside it gets the latter.
func linksOut(n int, family func(i int) string, miss func(i int, out string, bw float64) float64) (map[string]float64, float64) {
	grid := linkGrid()
	fit := func(out string, all bool) float64 {
		best, be := 0.0, math.Inf(1)
		for _, bw := range grid {
			var sum float64
			used := false
			for i := range n {
				if all || family(i) != out {
					sum += miss(i, out, bw)
					used = true
				}
			}
			if used && sum < be {
				best, be = bw, sum
			}
		}
		return best
	}
	all := fit("", true)
	out := map[string]float64{}
	for i := range n {
		f := family(i)
		if _, ok := out[f]; !ok {
			if bw := fit(f, false); bw > 0 {
				out[f] = bw
			} else {
				out[f] = all
			}
		}
	}
	return out, all
}

// DataParallelRow is one of Gavel's measured data-parallel job types on
// one of its GPUs: its slowdown on GPUs GPUs (GPUs × Gavel's throughput of
// the job alone on one GPU over its throughput on GPUs: the time of an
// iteration there over the time on one, as Gavel counts steps per GPU).
type DataParallelRow struct {
	JobType, Family, Model string
	Batch, GPUs            int
	Measured               float64
}

// DataParallel lists GPU g's (Gavel's name: k80, p100, v100) measured
// data-parallel job types of the families wb can see (not A3C's, see
// blindFamilies), sorted by job type and GPUs.
func DataParallel(g string) ([]DataParallelRow, error) {
	if _, ok := gavelGPUs[g]; !ok {
		return nil, fmt.Errorf("gavelcheck: Gavel measured no GPU %q (measured: %s)", g, strings.Join(GavelGPUs(), ", "))
	}
	tp, err := throughputs()
	if err != nil {
		return nil, err
	}
	return dataParallel(tp[g], g)
}

// dataParallel is DataParallel of GPU g's throughputs tp.
func dataParallel(tp map[gavel.JobKey]gavel.Throughput, g string) ([]DataParallelRow, error) {
	var out []DataParallelRow
	for k, t := range tp {
		family := familyOf(k.JobType)
		one := tp[gavel.JobKey{JobType: k.JobType, ScaleFactor: 1}]
		if k.ScaleFactor <= 1 || !(t.Solo > 0) || !(one.Solo > 0) || blindFamilies[family] != "" {
			continue
		}
		model, batch := gavel.ZooModel(k.JobType)
		if model == "" {
			return nil, fmt.Errorf("gavel job type %q: no model in the zoo", k.JobType)
		}
		n := float64(k.ScaleFactor)
		out = append(out, DataParallelRow{JobType: k.JobType, Family: family, Model: model, Batch: batch, GPUs: k.ScaleFactor,
			Measured: n * one.Solo / t.Solo})
	}
	slices.SortFunc(out, func(a, b DataParallelRow) int {
		return cmp.Or(strings.Compare(a.JobType, b.JobType), a.GPUs-b.GPUs)
	})
	return out, nil
}

// LinksOut fits, to rows of one GPU and one GPU count, the all-reduce bus
// bandwidth (bytes/s, 0.1 to 100 GB/s, 20 a decade) that best explains
// their measured slowdowns (least summed |predicted / measured − 1|), as
// fitLinks does for wb predict --validate gavel: per family the one fitted
// on the other families' rows (leave one family out), and the one fitted
// on all of them. slowdown(i, out, bw) is rows[i]'s predicted slowdown
// with an all-reduce of bandwidth bw, as the fold that fits family out's
// bandwidth predicts it (its constants fitted without that family too; ""
// for the fit on all of them), so that no family's measurements reach the
// bandwidth it is predicted with.
func LinksOut(rows []DataParallelRow, slowdown func(i int, out string, bw float64) float64) (map[string]float64, float64) {
	if len(rows) == 0 {
		return map[string]float64{}, 0
	}
	return linksOut(len(rows), func(i int) string { return rows[i].Family },
		func(i int, out string, bw float64) float64 {
			return math.Abs(slowdown(i, out, bw)/rows[i].Measured - 1)
		})
}

// scalesText lists the GPUs' fitted device scales: " k80 2.00, p100 1.00, ...".
func (v *Validation) scalesText() string {
	var b strings.Builder
	for i, g := range slices.Sorted(maps.Keys(v.Scales)) {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " %s %.2f", g, v.Scales[g])
	}
	return b.String()
}

// Print writes the comparison: every row, then the mean |error| of the
// iteration time per family, per GPU and overall.
func (v *Validation) Print(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "job type\tmodel\tGPU\tmeasured it/s\tpredicted it/s\ttime error\thost µs/op\tdevice ×")
	var marked []string
	for _, r := range v.Rows {
		mark := ""
		if r.OutOfStep.Batch > 0 {
			mark = " *"
			marked = append(marked, fmt.Sprintf("%s (%s)", r.JobType, r.OutOfStep))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.3f\t%.3f\t%+.0f%%%s\t%.0f\t%.2f\n", r.JobType, r.Model, r.GPU, r.Measured, r.Predicted, 100*r.Error, mark, 1e6*r.Launch, r.Scale)
	}
	tw.Flush()
	if len(marked) > 0 {
		fmt.Fprintf(w, "* out of step with another batch of the family on the GPU by %.1f× or more (a smaller batch faster per sample,\n"+
			"  or a larger one per iteration), which no model of the network's work follows (scored all the same):\n  %s\n",
			gavel.OutOfStepRatio, strings.Join(marked, "; "))
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "family\tmean |time error|\taffine floor\thost µs/op (fitted on the other families)")
	var fams []string
	for f := range v.PerFamily {
		fams = append(fams, f)
	}
	slices.Sort(fams)
	for _, f := range fams {
		launch := 0.0
		for _, r := range v.Rows {
			if r.Family == f {
				launch = r.Launch
			}
		}
		note := ""
		if why := blindFamilies[f]; why != "" {
			note = " (not seen: " + why + ")"
		}
		fmt.Fprintf(tw, "%s\t%.1f%%\t%.1f%%\t%.0f%s\n", f, 100*v.PerFamily[f], 100*v.Floor[f], 1e6*launch, note)
	}
	fmt.Fprintln(tw)
	var gpus []string
	for g := range v.PerGPU {
		gpus = append(gpus, g)
	}
	slices.Sort(gpus)
	for _, g := range gpus {
		fmt.Fprintf(tw, "%s, families seen\t%.1f%%\t\t\n", g, 100*v.PerGPU[g])
	}
	n := 0
	for _, r := range v.Rows {
		if !r.Blind {
			n++
		}
	}
	seen := n
	var noA3C float64
	n = 0
	for _, r := range v.Rows {
		if r.Family != "A3C" {
			noA3C += math.Abs(r.Error)
			n++
		}
	}
	both := "" // A3C the only family not seen: one line for both
	if n == seen {
		both = " (all but A3C's)"
	}
	fmt.Fprintf(tw, "all %d rows of the families seen%s\t%.1f%%\t%.1f%%\t%.0f (fitted on them all; device ×%s)\n", seen, both, 100*v.Seen, 100*v.FloorSeen, 1e6*v.Fitted, v.scalesText())
	if n != seen {
		fmt.Fprintf(tw, "all %d but A3C's\t%.1f%%\t%.1f%%\t\n", n, 100*noA3C/float64(max(n, 1)), 100*v.FloorButA3C)
	}
	fmt.Fprintf(tw, "all %d\t%.1f%%\t\t\n", len(v.Rows), 100*v.Overall)
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "affine floor: the best iteration time a + c × batch per family and GPU, fitted to Gavel's own rows, misses them")
	fmt.Fprintln(w, "by this much (one row per GPU, as A3C and CycleGAN have, fits exactly): no model linear in the batch does better")
	if mean, sd := v.LogError(); !math.IsNaN(sd) {
		fmt.Fprintf(w, "log(predicted / measured time), families seen: mean %+.2f (×%.2f), standard deviation %.2f", mean, math.Exp(mean), sd)
		by := v.LogErrorByGPU()
		var parts []string
		for _, g := range slices.Sorted(maps.Keys(by)) {
			parts = append(parts, fmt.Sprintf("%s %.2f", g, by[g][1]))
		}
		fmt.Fprintf(w, "; per GPU %s\n", strings.Join(parts, ", "))
	}
	if len(v.Scaling) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\ndata-parallel jobs, families seen: iteration time on N GPUs / on one (means); predicted over the device's")
	fmt.Fprintln(w, "default link, and with an all-reduce bandwidth fitted to the GPU's other job families on as many GPUs (leave one family out)")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "GPU\tN\tjob types\tmeasured\tpredicted\tmean |error|\tfitted link\tmean |error|")
	for _, g := range v.ScalingGroups() {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\t%.2f\t%.1f%%\t%.2f\t%.1f%%\n", g.GPU, g.GPUs, g.N, g.Measured, g.Predicted, 100*g.Error, g.Fitted, 100*g.FittedError)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprint(w, "all-reduce bandwidth fitted per family left out and GPU count, GB/s:")
	for _, g := range GavelGPUs() {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, r := range v.Scaling {
			if r.GPU == g {
				lo, hi = min(lo, r.Bandwidth), max(hi, r.Bandwidth)
			}
		}
		if hi > 0 {
			fmt.Fprintf(w, " %s %.2f–%.2f", g, lo/1e9, hi/1e9)
		}
	}
	fmt.Fprint(w, "; on all families at once:")
	top := slices.Max(linkGrid())
	for _, g := range GavelGPUs() {
		if bw, ok := v.Links[g]; ok {
			at := ""
			if bw >= top {
				at = "≥ " // the grid's top: any faster link fits as well
			}
			fmt.Fprintf(w, " %s %s%.2f", g, at, bw/1e9)
		}
	}
	fmt.Fprintln(w)
	return nil
}

// Families maps the zoo models of Gavel's job types to their families
// (resnet18-cifar → ResNet-18, lm → LM, ...).
func Families() (map[string]string, error) {
	familiesOnce.Do(func() {
		tp, err := throughputs()
		if err != nil {
			familiesErr = err
			return
		}
		families = map[string]string{}
		for _, byJob := range tp {
			for k := range byJob {
				if model, _ := gavel.ZooModel(k.JobType); model != "" {
					families[model] = familyOf(k.JobType)
				}
			}
		}
	})
	return families, familiesErr
}

var (
	familiesOnce sync.Once
	families     map[string]string
	familiesErr  error
)

// throughputs reads Gavel's measured throughputs from the bundled data.
func throughputs() (gavel.Throughputs, error) {
	tp, _, err := gavel.BundledThroughputs()
	return tp, err
}

// familyOf is a Gavel job type's family: "ResNet-18 (batch size 64)" →
// "ResNet-18".
func familyOf(jobType string) string {
	family, _, _ := strings.Cut(jobType, " (")
	return family
}
