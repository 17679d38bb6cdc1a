// Package gavelcheck scores the predictor against Gavel's measured
// throughputs: per job type and GPU, the predicted iteration time beside
// the measured one, and what the analytical path cannot see.
package gavelcheck

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/wb-sim/wb/datasets"
	"github.com/wb-sim/wb/datasets/gavel"
	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/predictor"
)

// gavelGPUs maps Gavel's GPU names to the device table's.
var gavelGPUs = map[string]string{"k80": "k80", "p100": "p100", "v100": "v100"}

// GavelGPUs lists the device-table GPUs Gavel measured, sorted.
func GavelGPUs() []string {
	var out []string
	for _, d := range gavelGPUs {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
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
	// seconds: fitted on the other job families (see ValidateGavel).
	Launch float64
	// Blind marks a job whose time the model cannot see; blind rows are
	// neither fitted on nor counted in the figure without them.
	Blind bool
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
	// blind ones: the constant the model estimator uses
	// (predictor.DefaultKernelOverhead).
	Fitted float64
	// Scaling compares the data-parallel jobs' slowdown per iteration
	// with the one-GPU job of their type (families seen only).
	Scaling []ScalingRow
}

// LogError is the mean and the sample standard deviation of
// log(predicted / measured iteration time) over the rows of the families
// seen: the predictor's bias and spread on Gavel's jobs, as a lognormal
// error (an experiment's run_noise takes the spread).
func (v *Validation) LogError() (mean, sd float64) {
	var logs []float64
	for _, r := range v.Rows {
		if !r.Blind {
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
}

// slowdown is the row's predicted slowdown with an all-reduce of
// bandwidth bw (bytes/s) taking all of the communication.
func (r *ScalingRow) slowdown(bw float64) float64 { return 1 + r.bytes/bw/r.one }

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
	// measured at batch 8192: 45, 22 and 43 µs a sample on the K80, P100
	// and V100 (the V100 slower than the P100), linear in the batch
	"Recommendation": "its input pipeline builds dense rating vectors on the host: 22–45 µs a sample on every GPU, the V100 slower than the P100",
}

// launchGrid are the host costs per operator the fit tries: 1 to 80 µs.
func launchGrid() []float64 {
	var g []float64
	for us := 1; us <= 80; us++ {
		g = append(g, float64(us)*1e-6)
	}
	return g
}

// ValidateGavel predicts every Gavel job type on one K80, P100 and V100
// with the analytical model and compares its iteration time with the
// bundled measured throughputs. A layer pass takes at least its operators
// × the host's cost per operator (the eager framework dispatching each)
// plus predictor.LibraryLaunch per further kernel a library launches (an
// LSTM's per-step kernels). The cost per operator is the one constant
// fitted to Gavel's numbers, leave one job family out: each family is
// predicted with the cost that minimises the mean |error| of the other
// families' iteration times (the blind families never fitted on).
//
// Each data-parallel job type of the families seen (2, 4 and 8 GPUs) is
// compared with its one-GPU type (Validation.Scaling).
//
// models, when not nil, gives per device-table GPU of GavelGPUs the learned
// layer model to predict with (predictor.Options.Layers); a GPU without
// one is predicted analytically.
func ValidateGavel(combine predictor.Combine, models map[string]predictor.LayerModel) (*Validation, error) {
	dir, err := datasets.DataDir()
	if err != nil {
		return nil, err
	}
	tp, err := gavel.ReadThroughputs(filepath.Join(dir, "gavel", "simulation_throughputs.json.gz"))
	if err != nil {
		return nil, err
	}
	grid := launchGrid()
	type row struct {
		ValidationRow
		times []float64 // predicted iteration time per cost of the grid
	}
	var rows []row
	nets := map[string]*dnn.Network{}
	var gpus []string
	for g := range gavelGPUs {
		gpus = append(gpus, g)
	}
	slices.Sort(gpus)
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
			family, _, _ := strings.Cut(k.JobType, " (")
			net := nets[model]
			if net == nil {
				if net, err = dnn.Model(model); err != nil {
					return nil, err
				}
				nets[model] = net
			}
			r := row{ValidationRow: ValidationRow{JobType: k.JobType, Family: family, Model: model, GPU: g, Batch: batch,
				Measured: tp[g][k].Solo, Blind: blindFamilies[family] != ""}}
			for _, c := range grid {
				p, err := predictor.Predict(net, dev, predictor.Options{Batch: batch, Precision: dnn.FP32, Combine: combine, KernelOverhead: c, Layers: models[gavelGPUs[g]]})
				if err != nil {
					return nil, fmt.Errorf("%s on %s: %w", k.JobType, g, err)
				}
				r.times = append(r.times, p.Iteration)
			}
			rows = append(rows, r)
		}
	}
	// fit returns the grid index of least mean |error| over the rows use
	// accepts.
	fit := func(use func(*row) bool) int {
		bi, be := 0, math.Inf(1)
		for ci := range grid {
			var e float64
			for i := range rows {
				if use(&rows[i]) {
					e += math.Abs(rows[i].times[ci]*rows[i].Measured - 1)
				}
			}
			if e < be {
				bi, be = ci, e
			}
		}
		return bi
	}
	best := map[string]int{}
	for _, r := range rows {
		if _, ok := best[r.Family]; !ok {
			best[r.Family] = fit(func(o *row) bool { return o.Family != r.Family && !o.Blind })
		}
	}
	v := &Validation{Combine: combine, PerFamily: map[string]float64{}, PerGPU: map[string]float64{},
		Fitted: grid[fit(func(o *row) bool { return !o.Blind })]}
	famN, gpuN := map[string]int{}, map[string]int{}
	seen := 0
	for _, r := range rows {
		ci := best[r.Family]
		r.Launch = grid[ci]
		r.Predicted = 1 / r.times[ci]
		r.Error = r.times[ci]*r.Measured - 1
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
		if err := v.scaling(tp[g], g, grid, best, models[gavelGPUs[g]], combine, nets); err != nil {
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
	return v, nil
}

// scaling adds GPU g's data-parallel job types of the families seen to
// v.Scaling, each predicted with its family's host cost (grid[best]).
func (v *Validation) scaling(tp map[gavel.JobKey]gavel.Throughput, g string, grid []float64, best map[string]int, layers predictor.LayerModel, combine predictor.Combine, nets map[string]*dnn.Network) error {
	dev, err := predictor.LookupDevice(gavelGPUs[g])
	if err != nil {
		return err
	}
	var keys []gavel.JobKey
	for k, t := range tp {
		family, _, _ := strings.Cut(k.JobType, " (")
		one := tp[gavel.JobKey{JobType: k.JobType, ScaleFactor: 1}]
		if _, seen := best[family]; k.ScaleFactor > 1 && t.Solo > 0 && one.Solo > 0 && seen && blindFamilies[family] == "" {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b gavel.JobKey) int {
		if c := strings.Compare(a.JobType, b.JobType); c != 0 {
			return c
		}
		return a.ScaleFactor - b.ScaleFactor
	})
	for _, k := range keys {
		model, batch := gavel.ZooModel(k.JobType)
		family, _, _ := strings.Cut(k.JobType, " (")
		o := predictor.Options{Batch: batch, Precision: dnn.FP32, Combine: combine, KernelOverhead: grid[best[family]], Layers: layers}
		one, err := predictor.Predict(nets[model], dev, o)
		if err != nil {
			return fmt.Errorf("%s on %s: %w", k.JobType, g, err)
		}
		o.GPUs = k.ScaleFactor
		many, err := predictor.Predict(nets[model], dev, o)
		if err != nil {
			return fmt.Errorf("%s on %d %s: %w", k.JobType, k.ScaleFactor, g, err)
		}
		n := float64(k.ScaleFactor)
		v.Scaling = append(v.Scaling, ScalingRow{JobType: k.JobType, Family: family, GPU: g, GPUs: k.ScaleFactor,
			Measured:  n * tp[gavel.JobKey{JobType: k.JobType, ScaleFactor: 1}].Solo / tp[k].Solo,
			Predicted: many.Iteration / one.Iteration,
			bytes:     2 * (n - 1) / n * float64(many.GradientBytes), one: one.Iteration})
	}
	fitLinks(v.Scaling, g)
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
// rows are predicted with the all-reduce bandwidth that minimises the
// mean |error| of the slowdown of g's other families, leave one family
// out, as the host cost is fitted. The bandwidth stands for what the
// GPU's servers gave an all-reduce (the links Gavel's jobs ran over are
// not recorded), so it describes those servers, not the GPU.
func fitLinks(rows []ScalingRow, g string) {
	grid := linkGrid()
	fit := func(family string) float64 {
		best, be := grid[0], math.Inf(1)
		for _, bw := range grid {
			var e float64
			for i := range rows {
				if r := &rows[i]; r.GPU == g && r.Family != family {
					e += math.Abs(r.slowdown(bw)/r.Measured - 1)
				}
			}
			if e < be {
				best, be = bw, e
			}
		}
		return best
	}
	bw := map[string]float64{}
	for i := range rows {
		r := &rows[i]
		if r.GPU != g {
			continue
		}
		if _, ok := bw[r.Family]; !ok {
			bw[r.Family] = fit(r.Family)
		}
		r.Bandwidth = bw[r.Family]
		r.Fitted = r.slowdown(r.Bandwidth)
	}
}

// Print writes the comparison: every row, then the mean |error| of the
// iteration time per family, per GPU and overall.
func (v *Validation) Print(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "job type\tmodel\tGPU\tmeasured it/s\tpredicted it/s\ttime error\thost µs/op")
	for _, r := range v.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.3f\t%.3f\t%+.0f%%\t%.0f\n", r.JobType, r.Model, r.GPU, r.Measured, r.Predicted, 100*r.Error, 1e6*r.Launch)
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "family\tmean |time error|\thost µs/op (fitted on the other families)")
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
		fmt.Fprintf(tw, "%s\t%.1f%%\t%.0f%s\n", f, 100*v.PerFamily[f], 1e6*launch, note)
	}
	fmt.Fprintln(tw)
	var gpus []string
	for g := range v.PerGPU {
		gpus = append(gpus, g)
	}
	slices.Sort(gpus)
	for _, g := range gpus {
		fmt.Fprintf(tw, "%s, families seen\t%.1f%%\t\n", g, 100*v.PerGPU[g])
	}
	n := 0
	for _, r := range v.Rows {
		if !r.Blind {
			n++
		}
	}
	fmt.Fprintf(tw, "all %d rows of the families seen\t%.1f%%\t%.0f (fitted on them all)\n", n, 100*v.Seen, 1e6*v.Fitted)
	fmt.Fprintf(tw, "all %d\t%.1f%%\t\n", len(v.Rows), 100*v.Overall)
	if err := tw.Flush(); err != nil {
		return err
	}
	if mean, sd := v.LogError(); !math.IsNaN(sd) {
		fmt.Fprintf(w, "log(predicted / measured time), families seen: mean %+.2f (×%.2f), standard deviation %.2f\n", mean, math.Exp(mean), sd)
	}
	if len(v.Scaling) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\ndata-parallel jobs, families seen: iteration time on N GPUs / on one (means); predicted over the device's")
	fmt.Fprintln(w, "default link, and with an all-reduce bandwidth fitted to the GPU's other job families (leave one family out)")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "GPU\tN\tjob types\tmeasured\tpredicted\tmean |error|\tfitted link\tmean |error|")
	for _, g := range v.ScalingGroups() {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\t%.2f\t%.1f%%\t%.2f\t%.1f%%\n", g.GPU, g.GPUs, g.N, g.Measured, g.Predicted, 100*g.Error, g.Fitted, 100*g.FittedError)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprint(w, "all-reduce bandwidth fitted per family left out, GB/s:")
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
	fmt.Fprintln(w)
	return nil
}
