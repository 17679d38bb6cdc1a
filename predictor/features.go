package predictor

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/profiler"
)

// FeatureRow is what the learned correction knows of one layer pass: its
// op, pass, work, batch, precision and the device's peak and bandwidth.
type FeatureRow struct {
	Op        string
	Pass      dnn.Pass
	FLOPs     float64
	Bytes     float64
	Batch     int
	Precision dnn.Precision
	Matrix    bool
	// Peak is the device's FLOP/s for the row's precision and kind of work
	// (Device.Peak); Bandwidth its memory bandwidth in bytes/s.
	Peak, Bandwidth float64
	// Units are the device's parallel units (SMs, or a CPU's cores) and
	// Tile the side of the output tiles its matrix products are cut into
	// (tileSide).
	Units, Tile float64
	// Shape is the layer's shape in this pass; unknown (zero) where the
	// layer cannot be found.
	Shape LayerShape
	// Impl is what the CPU backend ran for the pass where a library chose
	// (a profile row's algo: oneDNN's implementations of a convolution and
	// of the layout reorders around it, joined by "+"); "" where unknown.
	// When predicting, an ImplQuery asks the library.
	Impl string
}

// NewFeatureRow makes the feature row of a layer pass on device d.
func NewFeatureRow(op string, pass dnn.Pass, flops, bytes float64, batch int, prec dnn.Precision, d *Device, matrix bool) FeatureRow {
	if prec == "" {
		prec = dnn.FP32
	}
	return FeatureRow{Op: op, Pass: pass, FLOPs: flops, Bytes: bytes, Batch: batch, Precision: prec,
		Matrix: matrix, Peak: d.Peak(prec, matrix), Bandwidth: d.MemBandwidth,
		Units: float64(max(d.SMs, 1)), Tile: tileSide(d)}
}

// RecordFeatures is the feature row of a profile row measured on device d
// (the profile's predictor device). Only ok rows with an analytical time
// have one.
func RecordFeatures(r *profiler.Record, d *Device) (FeatureRow, error) {
	if r.Status != profiler.OK || !r.Median.OK || r.Median.V <= 0 {
		return FeatureRow{}, fmt.Errorf("row %s %s: not measured", r.Layer, r.Pass)
	}
	if !r.Predicted.OK || r.Predicted.V <= 0 {
		return FeatureRow{}, fmt.Errorf("row %s %s: no analytical time", r.Layer, r.Pass)
	}
	if d == nil {
		return FeatureRow{}, errors.New("no device")
	}
	p, err := dnn.ParsePass(r.Pass)
	if err != nil {
		return FeatureRow{}, err
	}
	prec, err := dnn.ParsePrecision(r.Precision)
	if err != nil {
		return FeatureRow{}, err
	}
	fr := NewFeatureRow(r.Op, p, r.FLOPs, r.Bytes, r.Batch, prec, d, r.Matrix)
	if desc, ok := zooDesc(r.Model, r.Layer, r.Key); ok {
		fr.Shape = ShapeOf(desc, r.Batch, p)
	}
	fr.Impl = r.Algo
	return fr, nil
}

// Stat is which of a profile row's times a predictor learns and is scored
// against.
type Stat string

// The statistics.
const (
	// Median is the median run (median_s): the typical time, disturbed by
	// whatever else the machine ran while it was measured.
	Median Stat = "median"
	// Min is the fastest run (min_s): the time least disturbed by other
	// work, and on a shared CPU the figure that repeats between profiles
	// (datasets/profiles/README.md). Profiles written before wb kept it
	// have no min_s.
	Min Stat = "min"
)

// ParseStat reads a statistic's name.
func ParseStat(s string) (Stat, error) {
	switch Stat(s) {
	case Median, Min:
		return Stat(s), nil
	}
	return "", fmt.Errorf("unknown time statistic %q (known: median, min)", s)
}

// Of is the row's time under the statistic, in seconds, and whether the
// row has it (a measured row, with min_s for Min).
func (st Stat) Of(r *profiler.Record) (float64, bool) {
	if r.Status != profiler.OK {
		return 0, false
	}
	n := r.Median
	if st == Min {
		n = r.Min
	}
	return n.V, n.OK && n.V > 0
}

// Featurizer turns feature rows into vectors: one-hot op, pass and
// precision over the values seen in training, then the numeric features
// named in Numeric.
type Featurizer struct {
	Ops        []string `json:"ops"`
	Passes     []string `json:"passes"`
	Precisions []string `json:"precisions"`
	// Numeric names the numeric features in vector order. Empty (predictors
	// saved before it existed) means legacyNumeric.
	Numeric []string `json:"numeric,omitempty"`
}

// legacyNumeric are the numeric features of the first predictors.
var legacyNumeric = []string{"log_flops", "log_bytes", "log_intensity", "batch", "log_batch", "matrix", "log_peak", "log_bandwidth"}

// numericNames are the numeric features new featurizers use: legacyNumeric
// and, derived from the same row (nothing a Corrector is not given: the
// layer's key, hence its kernel size or channels, is not available when
// predicting, so no feature is parsed from it),
//
//   - log_flops_per_sample, log_bytes_per_sample: the work of one sample,
//     log(1+FLOPs/batch) and log(1+bytes/batch), so that a tree can tell a
//     small layer at a large batch from a large layer at a small one;
//   - log_t_compute, log_t_memory: the roofline's compute time FLOPs/peak and
//     memory time bytes/bandwidth (log, floored at 1 ns), what the analytical
//     model is made of;
//   - log_compute_memory_ratio: log_t_compute − log_t_memory, how far the
//     pass is from the roofline's ridge: the analytical model's error differs
//     between compute- and memory-bound work;
//   - log_t_roofline: log of the larger of the two, the scale of the pass
//     (fixed per-call overheads matter most for the shortest passes).
//
// and, from the layer's shape (LayerShape; zero where it is unknown):
//
//   - shape_known: 1 where the shape is known;
//   - log_m, log_n, log_k, log_gemm_min, log_gemm_groups: the pass's matrix
//     product and its smallest side (a thin product runs far from peak);
//   - log_in_elems, log_out_elems: the tensors' sizes over the batch (cache
//     residency);
//   - log_window, stride, log_cin, log_cout: convolution and pooling
//     geometry, a linear layer's features, a batch or instance norm's
//     channels and plane, a layer norm's or softmax's row. Batch norm's
//     cost per value runs from 0.14 ns (128×56×56, backward) to 3.4 ns
//     (384×3×3 at batch 8) on the bundled profiles' VM, which its values
//     alone do not tell apart;
//
// and, from the shape and the device's parallel units (tiling):
//
//   - tile_fill, wave_fill, log_tiles_per_unit: how the product's output
//     tiles fill their area and the device's units. A product's time
//     grows in steps, by whole tiles and whole waves of tiles, not with
//     its FLOPs; on the CPU backend, whose workers share 64×64 blocks,
//     these three took the share of held-out passes within ±10% from
//     87.8% to 90.3% (boosted trees, 8,576 passes; 85.1–90.0% with other
//     fold seeds, against 84.6–88.7% without them);
//   - k_fill, align: how the reduction fills its 64-steps (or 128) and the
//     power of two dividing N and K. Half a linear sweep's widths are odd
//     (dnn.SweepPrefix), models' mostly multiples of 64, and a product of
//     odd widths runs slower on the CPU backend than its FLOPs and tiles
//     say (18.6 GFLOP/s at 278×219×203 in a first sweep, against 26.6 at
//     256×512×512 in transformer-translation);
//
// and, from the op alone:
//
//   - kind_product, kind_pointwise, kind_transcendental, kind_reduction,
//     kind_window, kind_movement, kind_random: the kind of kernel the op
//     runs (KernelKind), 1 for its kind and 0 for the others. The op's
//     one-hot names the op; an op that no model in training has (the
//     leaky ReLU, instance norm, padding and upsampling of CycleGAN when it
//     is held out) has none, and its kind is what it shares with the ops
//     that were learned. Left one model out (forest of depth 12, the
//     13 models' 1,941 passes), they took the passes within ±10% from
//     60.4% to 61.4% and the MAPE from 17.9% to 16.7% (concat 7–21% →
//     14–21% within ±10%, instance norm forward 0% → 100%; GELU, tanh
//     and layer norm still 0% or near it);
//
// and, for a convolution's passes on the CPU, from the implementations
// oneDNN picks for them (FeatureRow.Impl; 0 for every other op and where
// unknown):
//
//   - impl_1x1, impl_gemm, impl_avx2: the convolution ran oneDNN's 1×1
//     kernel, a GEMM-based one, or one built for AVX2 on a machine with
//     AVX-512 (oneDNN's wider kernel did not take the shape);
//   - impl_reorders_uni, impl_reorders_blk: how many layout reorders ran
//     around it, of oneDNN's two reorder kernels ("jit:uni", "jit:blk"),
//     each a pass over a tensor that FLOPs and the shape do not count.
//
// A shape does not name the kernel: oneDNN chooses by shape, ISA and its
// heuristics. Left one model out (forest of depth 12), they took the
// passes within ±10% from 61.4% to 63.2% and the MAPE from 16.7% to 15.2%,
// the convolutions' from 56.4% to 63.2% within ±10%; with only the 1×1
// and GEMM flags and a count of reorders, 61.9%. The profiles record what
// ran; a prediction asks oneDNN what would (ImplQuery). The names are
// oneDNN 2.x's on the machine profiled: a correction predicts that
// machine (the device "cpu" is the local one).
var numericNames = append(slices.Clone(legacyNumeric),
	"log_flops_per_sample", "log_bytes_per_sample",
	"log_t_compute", "log_t_memory", "log_compute_memory_ratio", "log_t_roofline",
	"shape_known", "log_m", "log_n", "log_k", "log_gemm_min", "log_gemm_groups",
	"log_in_elems", "log_out_elems", "log_window", "stride", "log_cin", "log_cout",
	"tile_fill", "wave_fill", "log_tiles_per_unit", "k_fill", "align",
	"kind_product", "kind_pointwise", "kind_transcendental", "kind_reduction",
	"kind_window", "kind_movement", "kind_random",
	"impl_1x1", "impl_gemm", "impl_avx2", "impl_reorders_uni", "impl_reorders_blk")

// The kinds of kernel KernelKind tells apart.
const (
	KindProduct        = "product"        // a matrix product: convolution, linear, batched product, LSTM
	KindPointwise      = "pointwise"      // a streaming op of one or two operations an element
	KindTranscendental = "transcendental" // an elementwise op of exp or tanh (GELU, sigmoid, tanh, SiLU)
	KindReduction      = "reduction"      // statistics over a row or channel, then an elementwise pass: softmax and the norms
	KindWindow         = "window"         // each output from a window of inputs: pooling, upsampling
	KindMovement       = "movement"       // copies and gathers: concatenation, selection, padding, embedding lookups
	KindRandom         = "random"         // a random draw per element (dropout's mask)
)

// implFeature is the impl_ feature called name (see numericNames) of r,
// and whether there is one of that name: a flag where a part of r.Impl
// (its "+"-joined implementations) contains the flag's name, a count of
// the parts that are a reorder kernel.
func implFeature(name string, r FeatureRow) (float64, bool) {
	flag := map[string]string{"1x1": "jit_1x1", "gemm": "gemm", "avx2": "avx2"}[name]
	reorder := map[string]string{"reorders_uni": "jit:uni", "reorders_blk": "jit:blk"}[name]
	if flag == "" && reorder == "" {
		return 0, false
	}
	if r.Op != string(dnn.OpConv2D) || r.Pass == dnn.Update {
		return 0, true
	}
	var n float64
	for _, p := range strings.Split(r.Impl, "+") {
		if flag != "" && strings.Contains(p, flag) {
			return 1, true
		}
		if reorder != "" && p == reorder {
			n++
		}
	}
	return n, true
}

// NeedsImpl says whether features (numeric names) include the
// implementation ones (impl_*), which a prediction needs an ImplQuery for.
func NeedsImpl(features []string) bool {
	return slices.ContainsFunc(features, func(n string) bool { return strings.HasPrefix(n, "impl_") })
}

var kernelKinds = []string{KindProduct, KindPointwise, KindTranscendental, KindReduction, KindWindow, KindMovement, KindRandom}

// KernelKind is the kind of kernel the op runs ("" for an op this package
// does not know, and for a model's input, which runs none).
func KernelKind(op string) string {
	switch dnn.Op(op) {
	case dnn.OpConv2D, dnn.OpLinear, dnn.OpMatMul, dnn.OpLSTM:
		return KindProduct
	case dnn.OpAdd, dnn.OpReLU, dnn.OpLeakyReLU:
		return KindPointwise
	case dnn.OpGELU, dnn.OpSigmoid, dnn.OpTanh, dnn.OpSiLU:
		return KindTranscendental
	case dnn.OpSoftmax, dnn.OpBatchNorm, dnn.OpLayerNorm, dnn.OpInstanceNorm, dnn.OpNormalize, dnn.OpLRN:
		return KindReduction
	case dnn.OpMaxPool, dnn.OpAvgPool, dnn.OpGlobalAvgPool, dnn.OpUpsample:
		return KindWindow
	case dnn.OpConcat, dnn.OpSelect, dnn.OpPad, dnn.OpEmbedding, dnn.OpReshape:
		return KindMovement
	case dnn.OpDropout:
		return KindRandom
	}
	return ""
}

// numeric is the value of the numeric feature called name, and whether
// there is one of that name.
func numeric(name string, r FeatureRow) (float64, bool) {
	b := max(float64(r.Batch), 1)
	// The roofline's log compute and memory times, for the four features
	// made of them (not worked out for the others).
	tc := func() float64 { return math.Log(max(r.FLOPs/math.Max(r.Peak, 1), 1e-9)) }
	tm := func() float64 { return math.Log(max(r.Bytes/math.Max(r.Bandwidth, 1), 1e-9)) }
	if k, ok := strings.CutPrefix(name, "impl_"); ok {
		return implFeature(k, r)
	}
	if k, ok := strings.CutPrefix(name, "kind_"); ok {
		if !slices.Contains(kernelKinds, k) {
			return 0, false
		}
		return b2f(KernelKind(r.Op) == k), true
	}
	switch name {
	case "log_flops":
		return log1(r.FLOPs), true
	case "log_bytes":
		return log1(r.Bytes), true
	case "log_intensity":
		return log1(r.FLOPs) - log1(r.Bytes), true
	case "batch":
		return float64(r.Batch), true
	case "log_batch":
		return math.Log(b), true
	case "matrix":
		return b2f(r.Matrix), true
	case "log_peak":
		return log1(r.Peak), true
	case "log_bandwidth":
		return log1(r.Bandwidth), true
	case "log_flops_per_sample":
		return log1(r.FLOPs / b), true
	case "log_bytes_per_sample":
		return log1(r.Bytes / b), true
	case "log_t_compute":
		return tc(), true
	case "log_t_memory":
		return tm(), true
	case "log_compute_memory_ratio":
		return tc() - tm(), true
	case "log_t_roofline":
		return max(tc(), tm()), true
	case "shape_known":
		return b2f(r.Shape.Known), true
	case "log_m":
		return log1(r.Shape.M), true
	case "log_n":
		return log1(r.Shape.N), true
	case "log_k":
		return log1(r.Shape.K), true
	case "log_gemm_min":
		return log1(min(r.Shape.M, r.Shape.N, r.Shape.K)), true
	case "log_gemm_groups":
		return log1(r.Shape.G), true
	case "log_in_elems":
		return log1(r.Shape.In), true
	case "log_out_elems":
		return log1(r.Shape.Out), true
	case "log_window":
		return log1(r.Shape.Window), true
	case "stride":
		return r.Shape.Stride, true
	case "log_cin":
		return log1(r.Shape.Cin), true
	case "log_cout":
		return log1(r.Shape.Cout), true
	case "tile_fill":
		fill, _, _ := tiling(r)
		return fill, true
	case "wave_fill":
		_, wave, _ := tiling(r)
		return wave, true
	case "log_tiles_per_unit":
		_, _, perUnit := tiling(r)
		return log1(perUnit), true
	case "k_fill":
		if r.Shape.K <= 0 || r.Tile <= 0 {
			return 0, true
		}
		return r.Shape.K / (math.Ceil(r.Shape.K/r.Tile) * r.Tile), true
	case "align":
		return alignment(r.Shape), true
	}
	return 0, false
}

// numericList is the featurizer's numeric features.
func (f *Featurizer) numericList() []string {
	if len(f.Numeric) == 0 {
		return legacyNumeric
	}
	return f.Numeric
}

// check reports a numeric feature the featurizer does not know.
func (f *Featurizer) check() error {
	for _, n := range f.numericList() {
		if _, ok := numeric(n, FeatureRow{}); !ok {
			return fmt.Errorf("unknown feature %q", n)
		}
	}
	return nil
}

// FeatureSets name the numeric feature sets Train chooses among (each
// candidate configuration is a family, a depth and one of these):
//
//   - "all": every numeric feature (numericNames), what wb trained on
//     before the choice was cross-validated;
//   - "roofline": the work and the roofline only (legacyNumeric, the work
//     per sample and the roofline's times: the first 14), no layer shape
//     or tiling, which a model held out may have none of in training.
var FeatureSets = []string{"all", "roofline"}

// rooflineFeatures is how many of numericNames the "roofline" set keeps.
const rooflineFeatures = 14

// featureSet is the numeric features of the set called name.
func featureSet(name string) ([]string, error) {
	switch name {
	case "all":
		return slices.Clone(numericNames), nil
	case "roofline":
		return slices.Clone(numericNames[:min(rooflineFeatures, len(numericNames))]), nil
	case "legacy":
		return slices.Clone(legacyNumeric), nil
	}
	return nil, fmt.Errorf("predictor: unknown feature set %q (known: %v)", name, FeatureSets)
}

// featureSetName is the name of the set whose features are numeric, or ""
// where none is.
func featureSetName(numeric []string) string {
	for _, n := range append(slices.Clone(FeatureSets), "legacy") {
		if f, _ := featureSet(n); slices.Equal(f, numeric) {
			return n
		}
	}
	return ""
}

// NewFeaturizer collects the categories of rows, sorted.
func NewFeaturizer(rows []FeatureRow) *Featurizer { return newFeaturizer(rows, numericNames) }

// newFeaturizer is NewFeaturizer with the numeric features numeric.
func newFeaturizer(rows []FeatureRow, numeric []string) *Featurizer {
	f := &Featurizer{Numeric: slices.Clone(numeric)}
	for _, r := range rows {
		if !slices.Contains(f.Ops, r.Op) {
			f.Ops = append(f.Ops, r.Op)
		}
		if !slices.Contains(f.Passes, r.Pass.String()) {
			f.Passes = append(f.Passes, r.Pass.String())
		}
		if !slices.Contains(f.Precisions, string(r.Precision)) {
			f.Precisions = append(f.Precisions, string(r.Precision))
		}
	}
	slices.Sort(f.Ops)
	slices.Sort(f.Passes)
	slices.Sort(f.Precisions)
	return f
}

// Names are the features' names in vector order.
func (f *Featurizer) Names() []string {
	var n []string
	for _, o := range f.Ops {
		n = append(n, "op="+o)
	}
	for _, p := range f.Passes {
		n = append(n, "pass="+p)
	}
	for _, p := range f.Precisions {
		n = append(n, "precision="+p)
	}
	return append(n, f.numericList()...)
}

// log1 is log(1+x): defined at zero work.
func log1(x float64) float64 { return math.Log1p(max(x, 0)) }

// Vector is r's feature vector. An op, pass or precision not seen in
// training has all its one-hot entries zero.
func (f *Featurizer) Vector(r FeatureRow) []float64 {
	num := f.numericList()
	v := make([]float64, 0, len(f.Ops)+len(f.Passes)+len(f.Precisions)+len(num))
	hot := func(cats []string, c string) {
		for _, x := range cats {
			v = append(v, b2f(x == c))
		}
	}
	hot(f.Ops, r.Op)
	hot(f.Passes, r.Pass.String())
	hot(f.Precisions, string(r.Precision))
	for _, n := range num {
		x, _ := numeric(n, r)
		v = append(v, x)
	}
	return v
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// tileSide is the side of the output tiles a device's matrix products are
// cut into: gonum's 64×64 blocks on the CPU backend, 128×128 for the
// common cuBLAS/CUTLASS tiles on GPUs.
func tileSide(d *Device) float64 {
	if d.Kind == KindCPU {
		return 64
	}
	return 128
}

// tiling is a matrix product's quantisation: fill, the share of its output
// tiles' area that holds output (a 65-wide product fills two 64-wide tiles
// by half); wave, the share of the device's units busy over the waves its
// tiles take (9 tiles on 8 units take two waves, the second with one unit
// busy); perUnit, its tiles per unit. All zero where the pass is no matrix
// product.
func tiling(r FeatureRow) (fill, wave, perUnit float64) {
	s := r.Shape
	if s.M <= 0 || s.N <= 0 || r.Tile <= 0 || r.Units <= 0 {
		return 0, 0, 0
	}
	tm, tn := math.Ceil(s.M/r.Tile), math.Ceil(s.N/r.Tile)
	tiles := tm * tn * max(s.G, 1)
	return s.M / (tm * r.Tile) * s.N / (tn * r.Tile), tiles / (math.Ceil(tiles/r.Units) * r.Units), tiles / r.Units
}

// alignment is log2 of the largest power of two, up to 64, dividing both a
// matrix product's N and K, the sides its kernels run along in memory:
// vector kernels run whole on aligned sizes and finish odd ones element by
// element. Zero where the pass is no matrix product.
func alignment(s LayerShape) float64 {
	if s.M <= 0 || s.N <= 0 || s.K <= 0 {
		return 0
	}
	a := 0.0
	for p := 2.0; p <= 64; p *= 2 {
		if math.Mod(s.N, p) != 0 || math.Mod(s.K, p) != 0 {
			break
		}
		a++
	}
	return a
}
