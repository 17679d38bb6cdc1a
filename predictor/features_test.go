package predictor

import (
	"math"
	"slices"
	"testing"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/profiler"
)

func TestRecordFeatures(t *testing.T) {
	d := &Device{Name: "x", Kind: KindCPU, MemBandwidth: 1e10,
		PeakVector: map[Precision]float64{FP32: 1e11}, PeakMatrix: map[Precision]float64{FP32: 4e11}}
	r := profiler.Record{Model: "m", Layer: "fc", Op: "linear", Key: "k", Pass: "bwd-weights", Batch: 8,
		Precision: "fp32", Status: profiler.OK, Median: profiler.Some(3e-3), Predicted: profiler.Some(1e-3),
		FLOPs: 999, Bytes: 99, Matrix: true, Reps: 10, Stop: "converged"}
	fr, err := RecordFeatures(&r, d)
	if err != nil {
		t.Fatal(err)
	}
	if fr.Peak != 4e11 || fr.Bandwidth != 1e10 || fr.Pass != dnn.BackwardWeights || fr.Batch != 8 || !fr.Matrix {
		t.Errorf("feature row %+v", fr)
	}
	// The base is the roofline on d with the CPU efficiencies, not the
	// row's predicted_s: max(999 / (4e11 · 0.5), 99 / (1e10 · 0.6)).
	if got, want := analyticalBase(fr, d, r.Predicted.V), math.Max(999/(4e11*0.5), 99/(1e10*0.6)); math.Abs(got-want) > 1e-20 {
		t.Errorf("base %v, want %v", got, want)
	}
	if got := analyticalBase(fr, &Device{Kind: KindGPU}, r.Predicted.V); got != 1e-3 {
		t.Errorf("GPU base %v, want the row's prediction", got)
	}
	s, err := Samples([]profiler.Record{r}, map[string]*Device{"": d}, Median)
	if err != nil || len(s) != 1 || math.Abs(s[0].Target-math.Log(3e-3/s[0].Base)) > 1e-12 || s[0].Base != analyticalBase(fr, d, 1e-3) {
		t.Errorf("samples %+v, %v", s, err)
	}
	other := fr
	other.Op, other.Pass, other.Precision = "relu", dnn.Forward, dnn.FP16
	fz := NewFeaturizer([]FeatureRow{fr, other})
	names := fz.Names()
	want := []string{"op=linear", "op=relu", "pass=bwd-weights", "pass=fwd", "precision=fp16", "precision=fp32",
		"log_flops", "log_bytes", "log_intensity", "batch", "log_batch", "matrix", "log_peak", "log_bandwidth",
		"log_flops_per_sample", "log_bytes_per_sample", "log_t_compute", "log_t_memory", "log_compute_memory_ratio", "log_t_roofline",
		"shape_known", "log_m", "log_n", "log_k", "log_gemm_min", "log_gemm_groups",
		"log_in_elems", "log_out_elems", "log_window", "stride", "log_cin", "log_cout",
		"tile_fill", "wave_fill", "log_tiles_per_unit", "k_fill", "align",
		"kind_product", "kind_pointwise", "kind_transcendental", "kind_reduction", "kind_window", "kind_movement", "kind_random",
		"impl_1x1", "impl_gemm", "impl_avx2", "impl_reorders_uni", "impl_reorders_blk"}
	if !slices.Equal(names, want) {
		t.Fatalf("names %v, want %v", names, want)
	}
	v := fz.Vector(fr)
	wantV := []float64{1, 0, 1, 0, 0, 1, math.Log(1000), math.Log(100), math.Log(10), 8, math.Log(8), 1, math.Log1p(4e11), math.Log1p(1e10),
		math.Log1p(999.0 / 8), math.Log1p(99.0 / 8), math.Log(999 / 4e11), math.Log(99 / 1e10),
		math.Log(999/4e11) - math.Log(99/1e10), math.Log(99 / 1e10),
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0} // model "m" is not in the zoo: shape unknown
	for i := range wantV {
		if math.Abs(v[i]-wantV[i]) > 1e-9 {
			t.Errorf("feature %s = %v, want %v", names[i], v[i], wantV[i])
		}
	}
	kinds := v[len(v)-12 : len(v)-5]
	if !slices.Equal(kinds, []float64{1, 0, 0, 0, 0, 0, 0}) {
		t.Errorf("linear's kinds %v, want a product's", kinds)
	}
	// An op not seen in training has no hot entry, and its kind.
	fr.Op = "conv2d"
	if v := fz.Vector(fr); v[0] != 0 || v[1] != 0 || v[len(v)-12] != 1 {
		t.Errorf("unseen op one-hot %v, kinds %v", v[:2], v[len(v)-12:len(v)-5])
	}
	fr.Op = "leakyrelu"
	if v := fz.Vector(fr); v[0] != 0 || v[1] != 0 || !slices.Equal(v[len(v)-12:len(v)-5], fz.Vector(other)[len(v)-12:len(v)-5]) {
		t.Errorf("leaky ReLU's kinds %v, want ReLU's", v[len(v)-12:len(v)-5])
	}
	// Rows that are not ok, or lack an analytical time, have no features.
	bad := r
	bad.Status, bad.Median = profiler.Skipped, profiler.Num{}
	if _, err := RecordFeatures(&bad, d); err == nil {
		t.Error("a skipped row has features")
	}
	bad = r
	bad.Predicted = profiler.Num{}
	if _, err := RecordFeatures(&bad, d); err == nil {
		t.Error("a row without an analytical time has features")
	}
}

// Every op a layer describes itself as runs a kernel of one kind, and its
// kind features are one-hot.
func TestKernelKind(t *testing.T) {
	for _, op := range dnn.Ops() {
		k := KernelKind(string(op))
		if op == dnn.OpSource {
			if k != "" {
				t.Errorf("a model's input runs a %s kernel", k)
			}
			continue
		}
		if !slices.Contains(kernelKinds, k) {
			t.Errorf("%s: kind %q, want one of %v", op, k, kernelKinds)
		}
		hot := 0
		for _, kk := range kernelKinds {
			x, ok := numeric("kind_"+kk, FeatureRow{Op: string(op)})
			if !ok || x != 0 && x != 1 {
				t.Errorf("%s: kind_%s = %v, %v", op, kk, x, ok)
			}
			hot += int(x)
		}
		if hot != 1 {
			t.Errorf("%s: %d kinds hot", op, hot)
		}
	}
	if _, ok := numeric("kind_nonsense", FeatureRow{}); ok {
		t.Error("an unknown kind is a feature")
	}
}

// The implementation features read a convolution's algo as the profiles
// record it, and nothing else's.
func TestImplFeatures(t *testing.T) {
	names := []string{"impl_1x1", "impl_gemm", "impl_avx2", "impl_reorders_uni", "impl_reorders_blk"}
	for _, tt := range []struct {
		op   string
		pass dnn.Pass
		impl string
		want []float64
	}{
		{"conv2d", dnn.Forward, "jit:blk+jit:uni+jit:avx512_core+jit:blk", []float64{0, 0, 0, 1, 2}},
		{"conv2d", dnn.BackwardWeights, "jit:blk+jit:blk+jit_1x1:avx512_core+jit:uni", []float64{1, 0, 0, 1, 2}},
		{"conv2d", dnn.BackwardWeights, "jit:uni+jit:uni+jit:avx2+jit:uni", []float64{0, 0, 1, 3, 0}},
		{"conv2d", dnn.BackwardWeights, "x64:gemm:jit", []float64{0, 1, 0, 0, 0}},
		{"conv2d", dnn.Forward, "", []float64{0, 0, 0, 0, 0}},
		{"conv2d", dnn.Update, "jit:uni+jit:uni", []float64{0, 0, 0, 0, 0}},
		{"linear", dnn.Forward, "bias copy as ATen's+openblas sgemm", []float64{0, 0, 0, 0, 0}},
	} {
		r := FeatureRow{Op: tt.op, Pass: tt.pass, Impl: tt.impl}
		for i, n := range names {
			if got, ok := numeric(n, r); !ok || got != tt.want[i] {
				t.Errorf("%s %s %q: %s = %v, %v; want %v", tt.op, tt.pass, tt.impl, n, got, ok, tt.want[i])
			}
		}
	}
	if _, ok := numeric("impl_nonsense", FeatureRow{}); ok {
		t.Error("an unknown impl feature is a feature")
	}
	if !NeedsImpl(numericNames) || NeedsImpl(legacyNumeric) {
		t.Error("NeedsImpl")
	}
}

func TestStat(t *testing.T) {
	r := profiler.Record{Status: profiler.OK, Median: profiler.Some(3e-3), Min: profiler.Some(2e-3)}
	for _, tt := range []struct {
		st   Stat
		rec  profiler.Record
		want float64
		ok   bool
	}{
		{Median, r, 3e-3, true},
		{Min, r, 2e-3, true},
		{Min, profiler.Record{Status: profiler.OK, Median: profiler.Some(3e-3)}, 0, false}, // an older profile
		{Median, profiler.Record{Status: profiler.Skipped}, 0, false},
	} {
		if got, ok := tt.st.Of(&tt.rec); got != tt.want || ok != tt.ok {
			t.Errorf("%s of %+v = %v, %v; want %v, %v", tt.st, tt.rec, got, ok, tt.want, tt.ok)
		}
	}
	if st, err := ParseStat("min"); st != Min || err != nil {
		t.Errorf("ParseStat(min) = %q, %v", st, err)
	}
	if _, err := ParseStat("mean"); err == nil || err.Error() != `unknown time statistic "mean" (known: median, min)` {
		t.Errorf("ParseStat(mean): %v", err)
	}
}

// TestTiling checks the quantisation features on products whose tiles are
// easy to count by hand.
func TestTiling(t *testing.T) {
	cpu := &Device{Kind: KindCPU, SMs: 8}
	gpu := &Device{Kind: KindGPU, SMs: 4}
	row := func(d *Device, m, n, g float64) FeatureRow {
		r := NewFeatureRow("linear", dnn.Forward, 1, 1, 1, dnn.FP32, d, true)
		r.Shape = LayerShape{Known: true, M: m, N: n, K: 10, G: g}
		return r
	}
	for _, tt := range []struct {
		r                   FeatureRow
		fill, wave, perUnit float64
	}{
		// 64×64 on 64-wide tiles: one full tile, one of 8 units busy.
		{row(cpu, 64, 64, 1), 1, 1.0 / 8, 1.0 / 8},
		// 65×64: two tiles, the second one-64th full.
		{row(cpu, 65, 64, 1), 65.0 / 128, 2.0 / 8, 2.0 / 8},
		// 3×3 tiles of 64 (192×192), 9 tiles on 8 units: two waves.
		{row(cpu, 192, 192, 1), 1, 9.0 / 16, 9.0 / 8},
		// GPU tiles are 128 wide: 256×128 × 2 groups = 4 tiles on 4 SMs.
		{row(gpu, 256, 128, 2), 1, 1, 1},
		// No matrix product: all zero.
		{row(cpu, 0, 0, 0), 0, 0, 0},
	} {
		fill, _ := numeric("tile_fill", tt.r)
		wave, _ := numeric("wave_fill", tt.r)
		per, _ := numeric("log_tiles_per_unit", tt.r)
		if math.Abs(fill-tt.fill) > 1e-12 || math.Abs(wave-tt.wave) > 1e-12 || math.Abs(per-math.Log1p(tt.perUnit)) > 1e-12 {
			t.Errorf("M=%v N=%v G=%v on %v-wide tiles: tile_fill %v wave_fill %v log_tiles_per_unit %v, want %v %v log1p(%v)",
				tt.r.Shape.M, tt.r.Shape.N, tt.r.Shape.G, tt.r.Tile, fill, wave, per, tt.fill, tt.wave, tt.perUnit)
		}
	}
}

func TestAlignment(t *testing.T) {
	cpu := &Device{Kind: KindCPU, SMs: 2}
	for _, tt := range []struct {
		m, n, k      float64
		align, kfill float64
	}{
		{32, 512, 512, 6, 1},            // both multiples of 64
		{32, 512, 200, 3, 200.0 / 256},  // K = 200 = 8·25
		{7, 1000, 768, 3, 1},            // N = 1000 = 8·125
		{1, 33278, 200, 1, 200.0 / 256}, // N even, not a multiple of 4
		{5, 203, 219, 0, 219.0 / 256},   // odd
		{128, 128, 4096, 6, 1},          // capped at 64
		{0, 0, 0, 0, 0},                 // no matrix product
	} {
		r := NewFeatureRow("linear", dnn.Forward, 1, 1, 1, dnn.FP32, cpu, true)
		r.Shape = LayerShape{Known: true, M: tt.m, N: tt.n, K: tt.k, G: 1}
		a, _ := numeric("align", r)
		kf, _ := numeric("k_fill", r)
		if a != tt.align || math.Abs(kf-tt.kfill) > 1e-12 {
			t.Errorf("M=%v N=%v K=%v: align %v k_fill %v, want %v %v", tt.m, tt.n, tt.k, a, kf, tt.align, tt.kfill)
		}
	}
}
