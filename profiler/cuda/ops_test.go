package cuda

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/profiler"
)

// TestOpForZoo reads every pooling, activation, softmax, batch-norm and
// add layer of the zoo in every precision: the tensors hold the values
// dnn says the layer reads and writes, and the forward and backward
// passes that dnn gives work to have buffers.
func TestOpForZoo(t *testing.T) {
	const batch = 3
	kinds := map[OpKind]int{}
	zooLayers(t, func(name string, l dnn.Layer, d dnn.Desc) {
		for _, prec := range dnn.Precisions {
			p, err := OpFor(d, batch, prec)
			if err != nil {
				t.Errorf("%s %s: %v", name, prec, err)
				return
			}
			kinds[p.Kind]++
			if p.XElems() != batch*d.In[0].Elems() || p.YElems() != batch*d.Out.Elems() {
				t.Errorf("%s: x %v (%d values), y %v (%d); dnn: %v → %v at batch %d", name, p.X, p.XElems(), p.Y, p.YElems(), d.In, d.Out, batch)
			}
			for _, pass := range []dnn.Pass{dnn.Forward, dnn.BackwardData, dnn.BackwardWeights} {
				work := l.Work(batch, pass, prec) != (dnn.Work{})
				if has := len(p.Buffers(pass)) > 0; has != work {
					t.Errorf("%s %s: buffers %v, dnn work %v", name, pass, p.Buffers(pass), l.Work(batch, pass, prec))
				}
			}
		}
	}, "maxpool", "avgpool", "globalavgpool", "relu", "sigmoid", "tanh", "silu", "softmax", "batchnorm", "instancenorm", "add", "dropout",
		"gelu", "leakyrelu", "layernorm", "embedding")
	for _, k := range []OpKind{Pooling, Activation, Softmax, BatchNorm, Add, Dropout, Elementwise, LayerNorm, Embedding} {
		if kinds[k] == 0 {
			t.Errorf("no %s layer in the zoo", k)
		}
	}
}

// TestOpForUnsupported: the ops the backend has no kernel for are
// unsupported, saying so.
func TestOpForUnsupported(t *testing.T) {
	for _, op := range []dnn.Op{dnn.OpNormalize, dnn.OpLRN} {
		_, err := OpFor(dnn.Desc{Op: op, In: []dnn.Shape{{8, 4}}, Out: dnn.Shape{8, 4}, Attr: dnn.Attrs{}}, 1, dnn.FP32)
		if !errors.Is(err, profiler.ErrUnsupported) || !strings.Contains(err.Error(), `no CUDA kernel for op "`+string(op)+`" yet`) {
			t.Errorf("%s: %v", op, err)
		}
	}
}

func TestOpForShapes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		d     dnn.Desc
		batch int
		prec  dnn.Precision
		want  OpProblem
	}{
		{"resnet50 stem maxpool", dnn.Desc{Op: "maxpool", In: []dnn.Shape{{64, 112, 112}}, Out: dnn.Shape{64, 56, 56},
			Attr: dnn.Attrs{"k": 3, "stride": 2, "pad": 1}}, 32, dnn.BF16,
			OpProblem{Op: "maxpool", Kind: Pooling, X: [4]int32{32, 64, 112, 112}, Y: [4]int32{32, 64, 56, 56}, Inputs: 1, DataType: cudnnDataBFloat16,
				PoolMode: cudnnPoolingMax, WinH: 3, WinW: 3, PadH: 1, PadW: 1, StrideH: 2, StrideW: 2}},
		{"avgpool, padding counted", dnn.Desc{Op: "avgpool", In: []dnn.Shape{{256, 35, 35}}, Out: dnn.Shape{256, 35, 35},
			Attr: dnn.Attrs{"k": 3, "stride": 1, "pad": 1}}, 2, dnn.FP16,
			OpProblem{Op: "avgpool", Kind: Pooling, X: [4]int32{2, 256, 35, 35}, Y: [4]int32{2, 256, 35, 35}, Inputs: 1, DataType: cudnnDataHalf,
				PoolMode: cudnnPoolingAverageCountIncludePadding, WinH: 3, WinW: 3, PadH: 1, PadW: 1, StrideH: 1, StrideW: 1}},
		{"global average pool is a 7×7 window", dnn.Desc{Op: "globalavgpool", In: []dnn.Shape{{2048, 7, 7}}, Out: dnn.Shape{2048},
			Attr: dnn.Attrs{"k": 49, "stride": 1, "pad": 0}}, 8, dnn.FP32,
			OpProblem{Op: "globalavgpool", Kind: Pooling, X: [4]int32{8, 2048, 7, 7}, Y: [4]int32{8, 2048, 1, 1}, Inputs: 1, DataType: cudnnDataFloat,
				PoolMode: cudnnPoolingAverageCountIncludePadding, WinH: 7, WinW: 7, StrideH: 1, StrideW: 1}},
		{"relu on [C, H, W]", dnn.Desc{Op: "relu", In: []dnn.Shape{{64, 56, 56}}, Out: dnn.Shape{64, 56, 56}, Attr: dnn.Attrs{}}, 4, dnn.TF32,
			OpProblem{Op: "relu", Kind: Activation, X: [4]int32{4, 64, 56, 56}, Y: [4]int32{4, 64, 56, 56}, Inputs: 1, DataType: cudnnDataFloat, ActMode: cudnnActivationRelu}},
		{"silu is swish with β 1", dnn.Desc{Op: "silu", In: []dnn.Shape{{128, 768}}, Out: dnn.Shape{128, 768}, Attr: dnn.Attrs{}}, 2, dnn.FP16,
			OpProblem{Op: "silu", Kind: Activation, X: [4]int32{2, 128, 768, 1}, Y: [4]int32{2, 128, 768, 1}, Inputs: 1, DataType: cudnnDataHalf, ActMode: cudnnActivationSwish, SwishBeta: 1}},
		{"tanh on a vector", dnn.Desc{Op: "tanh", In: []dnn.Shape{{256}}, Out: dnn.Shape{256}, Attr: dnn.Attrs{}}, 5, dnn.FP32,
			OpProblem{Op: "tanh", Kind: Activation, X: [4]int32{5, 256, 1, 1}, Y: [4]int32{5, 256, 1, 1}, Inputs: 1, DataType: cudnnDataFloat, ActMode: cudnnActivationTanh}},
		{"attention softmax over keys", dnn.Desc{Op: "softmax", In: []dnn.Shape{{12, 128, 128}}, Out: dnn.Shape{12, 128, 128},
			Attr: dnn.Attrs{"scaled": 1, "causal": 1}}, 2, dnn.BF16,
			OpProblem{Op: "softmax", Kind: Softmax, X: [4]int32{2 * 12 * 128, 128, 1, 1}, Y: [4]int32{2 * 12 * 128, 128, 1, 1}, Inputs: 1, DataType: cudnnDataBFloat16,
				SoftmaxAlgo: cudnnSoftmaxAccurate, SoftmaxMode: cudnnSoftmaxModeChannel, Note: "the fused attention scale and causal mask are not run"}},
		{"batchnorm over channels", dnn.Desc{Op: "batchnorm", In: []dnn.Shape{{256, 56, 56}}, Out: dnn.Shape{256, 56, 56}, Attr: dnn.Attrs{}}, 32, dnn.FP16,
			OpProblem{Op: "batchnorm", Kind: BatchNorm, X: [4]int32{32, 256, 56, 56}, Y: [4]int32{32, 256, 56, 56}, Inputs: 1, DataType: cudnnDataHalf,
				BNMode: cudnnBatchNormSpatial, ParamElems: 256, Epsilon: 1e-5, Momentum: 0.1,
				PyTorchNative: "a model cast to fp16 has fp16 weights (under autocast, fp32 weights, PyTorch runs cuDNN's)"}},
		{"residual add of three", dnn.Desc{Op: "add", In: []dnn.Shape{{64, 8, 8}, {64, 8, 8}, {64, 8, 8}}, Out: dnn.Shape{64, 8, 8}, Attr: dnn.Attrs{}}, 2, dnn.FP32,
			OpProblem{Op: "add", Kind: Add, X: [4]int32{2, 64, 8, 8}, Y: [4]int32{2, 64, 8, 8}, Inputs: 3, DataType: cudnnDataFloat}},
		{"dropout on [T, D]", dnn.Desc{Op: "dropout", In: []dnn.Shape{{128, 768}}, Out: dnn.Shape{128, 768}, Attr: dnn.Attrs{}}, 8, dnn.BF16,
			OpProblem{Op: "dropout", Kind: Dropout, X: [4]int32{8, 128, 768, 1}, Y: [4]int32{8, 128, 768, 1}, Inputs: 1, DataType: cudnnDataBFloat16, Probability: 0.1}},
		{"gelu on [T, 4D]", dnn.Desc{Op: "gelu", In: []dnn.Shape{{128, 3072}}, Out: dnn.Shape{128, 3072}, Attr: dnn.Attrs{}}, 2, dnn.FP16,
			OpProblem{Op: "gelu", Kind: Elementwise, Fn: "gelu", X: [4]int32{2, 128, 3072, 1}, Y: [4]int32{2, 128, 3072, 1}, Inputs: 1, DataType: cudnnDataHalf}},
		{"layernorm over the last dimension", dnn.Desc{Op: "layernorm", In: []dnn.Shape{{128, 768}}, Out: dnn.Shape{128, 768}, Attr: dnn.Attrs{}}, 4, dnn.BF16,
			OpProblem{Op: "layernorm", Kind: LayerNorm, X: [4]int32{512, 768, 1, 1}, Y: [4]int32{512, 768, 1, 1}, Inputs: 1, DataType: cudnnDataBFloat16,
				Rows: 512, Width: 768, Epsilon: 1e-5}},
		{"more than 3 dimensions fold into W", dnn.Desc{Op: "relu", In: []dnn.Shape{{2, 3, 4, 5}}, Out: dnn.Shape{2, 3, 4, 5}, Attr: dnn.Attrs{}}, 1, dnn.FP32,
			OpProblem{Op: "relu", Kind: Activation, X: [4]int32{1, 2, 3, 20}, Y: [4]int32{1, 2, 3, 20}, Inputs: 1, DataType: cudnnDataFloat, ActMode: cudnnActivationRelu}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := OpFor(tc.d, tc.batch, tc.prec)
			if err != nil {
				t.Fatal(err)
			}
			// pooling, activations and softmax: PyTorch runs its own
			// kernels always (TestPyTorchNotes holds the words)
			want := tc.want
			if want.PyTorchNative == "" {
				want.PyTorchNative = pyTorchNativeOther(want.Op)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestOpForRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    dnn.Desc
		says string
	}{
		{"pool output disagrees", dnn.Desc{Op: "maxpool", In: []dnn.Shape{{64, 112, 112}}, Out: dnn.Shape{64, 55, 55},
			Attr: dnn.Attrs{"k": 3, "stride": 2, "pad": 1}}, "described as [64×55×55]"},
		{"pad as large as the window", dnn.Desc{Op: "maxpool", In: []dnn.Shape{{1, 4, 4}}, Out: dnn.Shape{1, 4, 4},
			Attr: dnn.Attrs{"k": 2, "stride": 1, "pad": 2}}, "pad 2×2"},
		{"pool attribute missing", dnn.Desc{Op: "avgpool", In: []dnn.Shape{{1, 4, 4}}, Out: dnn.Shape{1, 2, 2},
			Attr: dnn.Attrs{"k": 2}}, `attribute "stride" missing`},
		{"pool on a vector", dnn.Desc{Op: "maxpool", In: []dnn.Shape{{16}}, Out: dnn.Shape{8}, Attr: dnn.Attrs{}}, "wants one [C, H, W] input"},
		{"add of one", dnn.Desc{Op: "add", In: []dnn.Shape{{4}}, Out: dnn.Shape{4}, Attr: dnn.Attrs{}}, "add of 1 inputs"},
		{"add broadcasting", dnn.Desc{Op: "add", In: []dnn.Shape{{4}, {1}}, Out: dnn.Shape{4}, Attr: dnn.Attrs{}}, "broadcasting is not run"},
		{"scalar", dnn.Desc{Op: "relu", In: []dnn.Shape{{}}, Out: dnn.Shape{}, Attr: dnn.Attrs{}}, "at least one dimension"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := OpFor(tc.d, 2, dnn.FP32)
			if err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("error %v, want one saying %q", err, tc.says)
			}
		})
	}
	// A tensor of 2³¹ values or more is beyond cuDNN's int counts: unsupported, not an error.
	_, err := OpFor(dnn.Desc{Op: "relu", In: []dnn.Shape{{1 << 16, 1 << 8}}, Out: dnn.Shape{1 << 16, 1 << 8}, Attr: dnn.Attrs{}}, 1<<7, dnn.FP32)
	if !errors.Is(err, profiler.ErrUnsupported) {
		t.Errorf("2³¹ values: %v", err)
	}
	if _, err := OpFor(dnn.Desc{Op: "relu", In: []dnn.Shape{{4}}, Out: dnn.Shape{4}}, 0, dnn.FP32); err == nil {
		t.Error("batch 0 accepted")
	}
	if _, err := OpFor(dnn.Desc{Op: "relu", In: []dnn.Shape{{4}}, Out: dnn.Shape{4}}, 1, "fp8"); err == nil {
		t.Error("fp8 accepted")
	}
}

// TestOpBuffers pins the buffers of each pass and their bytes: data in
// the precision, batch-norm's parameters and statistics in fp32.
func TestOpBuffers(t *testing.T) {
	bn, err := OpFor(dnn.Desc{Op: "batchnorm", In: []dnn.Shape{{8, 2, 2}}, Out: dnn.Shape{8, 2, 2}}, 2, dnn.FP16)
	if err != nil {
		t.Fatal(err)
	}
	pool, _ := OpFor(dnn.Desc{Op: "maxpool", In: []dnn.Shape{{1, 4, 4}}, Out: dnn.Shape{1, 2, 2}, Attr: dnn.Attrs{"k": 2, "stride": 2, "pad": 0}}, 1, dnn.FP32)
	sm, _ := OpFor(dnn.Desc{Op: "softmax", In: []dnn.Shape{{3, 5}}, Out: dnn.Shape{3, 5}}, 1, dnn.BF16)
	add, _ := OpFor(dnn.Desc{Op: "add", In: []dnn.Shape{{6}, {6}, {6}}, Out: dnn.Shape{6}}, 1, dnn.FP32)
	drop, _ := OpFor(dnn.Desc{Op: "dropout", In: []dnn.Shape{{10}}, Out: dnn.Shape{10}}, 3, dnn.FP16)
	ln, _ := OpFor(dnn.Desc{Op: "layernorm", In: []dnn.Shape{{5, 8}}, Out: dnn.Shape{5, 8}}, 2, dnn.FP16)
	gelu, _ := OpFor(dnn.Desc{Op: "gelu", In: []dnn.Shape{{7}}, Out: dnn.Shape{7}}, 2, dnn.BF16)
	for _, tc := range []struct {
		name  string
		p     OpProblem
		pass  dnn.Pass
		prec  dnn.Precision
		names string
		bytes int64
	}{
		// 2·8·2·2 = 64 values of 2 B; 8 channels of 4 B per parameter.
		{"batchnorm fwd", bn, dnn.Forward, dnn.FP16, "x y scale bias running_mean running_var save_mean save_inv_var", 2*64*2 + 6*8*4},
		{"batchnorm bwd-data", bn, dnn.BackwardData, dnn.FP16, "x dy dx scale dscale dbias save_mean save_inv_var bias running_mean running_var", 3*64*2 + 8*8*4},
		{"batchnorm bwd-weights", bn, dnn.BackwardWeights, dnn.FP16, "", 0},
		{"maxpool fwd", pool, dnn.Forward, dnn.FP32, "x y", (16 + 4) * 4},
		{"maxpool bwd-data", pool, dnn.BackwardData, dnn.FP32, "y dy x dx", (4 + 4 + 16 + 16) * 4},
		{"softmax bwd-data", sm, dnn.BackwardData, dnn.BF16, "y dy dx", 3 * 15 * 2},
		{"add fwd", add, dnn.Forward, dnn.FP32, "in0 in1 in2 y", 4 * 6 * 4},
		{"add bwd-data", add, dnn.BackwardData, dnn.FP32, "", 0},
		{"dropout fwd", drop, dnn.Forward, dnn.FP16, "x y mask", 2*30*2 + 30},
		{"dropout bwd-data", drop, dnn.BackwardData, dnn.FP16, "dy mask dx", 2*30*2 + 30},
		// 10 rows of 8: data 80 values of 2 B, parameters 8 of 2 B, statistics 10 of 4 B.
		{"layernorm fwd", ln, dnn.Forward, dnn.FP16, "x gamma beta y mean rstd", 2*80*2 + 2*8*2 + 2*10*4},
		{"layernorm bwd-data", ln, dnn.BackwardData, dnn.FP16, "dy x gamma mean rstd dx dgamma dbeta", 3*80*2 + 8*2 + 2*10*4 + 2*8*4},
		{"gelu bwd-data", gelu, dnn.BackwardData, dnn.BF16, "dy x dx", 3 * 14 * 2},
	} {
		var names []string
		for _, b := range tc.p.Buffers(tc.pass) {
			names = append(names, b.Name)
		}
		if got := strings.Join(names, " "); got != tc.names || tc.p.Bytes(tc.pass, tc.prec) != tc.bytes {
			t.Errorf("%s: buffers %q, %d bytes; want %q, %d", tc.name, got, tc.p.Bytes(tc.pass, tc.prec), tc.names, tc.bytes)
		}
	}
	for _, tc := range []struct {
		p    OpProblem
		pass dnn.Pass
		want string
	}{
		{bn, dnn.Forward, "cudnnBatchNormalizationForwardTraining SPATIAL"},
		{bn, dnn.BackwardData, "cudnnBatchNormalizationBackward SPATIAL"},
		{pool, dnn.BackwardData, "cudnnPoolingBackward MAX"},
		{sm, dnn.Forward, "cudnnSoftmaxForward ACCURATE CHANNEL"},
		{add, dnn.Forward, "cudnnOpTensor ADD + 1 cudnnAddTensor"},
		{drop, dnn.BackwardData, "NVRTC wb_dropout_bwd_f16 p=0.1"},
		{ln, dnn.BackwardData, "NVRTC wb_layernorm_bwd_f16 + wb_layernorm_bwd_params_f16"},
		{gelu, dnn.Forward, "NVRTC wb_gelu_fwd_bf16"},
	} {
		if got := tc.p.Routine(tc.pass); got != tc.want {
			t.Errorf("%s %s routine %q, want %q", tc.p.Op, tc.pass, got, tc.want)
		}
	}
}

// TestUpdateForZoo: every layer of the zoo with an update pass updates
// its parameters as dnn counts them (3 reads and 2 writes of fp32 per
// parameter in dnn; the buffers g, v and w hold each once).
func TestUpdateForZoo(t *testing.T) {
	n := 0
	for _, e := range dnn.Zoo() {
		net, err := e.Build()
		if err != nil {
			t.Fatal(err)
		}
		for _, node := range net.Nodes {
			w := node.Layer.Work(4, dnn.Update, dnn.BF16)
			if w == (dnn.Work{}) {
				continue
			}
			n++
			p, err := UpdateFor(node.Layer.Params(), "")
			if err != nil {
				t.Errorf("%s/%s: %v", e.Name, node.Name, err)
				continue
			}
			params := node.Layer.Params()
			if int64(w.Read) != 3*4*params || int64(w.Written) != 2*4*params || p.Bytes(dnn.Update, dnn.BF16) != 3*4*params {
				t.Errorf("%s/%s: %d parameters, dnn reads %d B and writes %d B, buffers of %d B", e.Name, node.Name, params, int64(w.Read), int64(w.Written), p.Bytes(dnn.Update, dnn.BF16))
			}
			if len(p.Buffers(dnn.Forward)) != 0 {
				t.Errorf("%s: the update problem has forward buffers", node.Name)
			}
		}
	}
	if n < 100 {
		t.Errorf("%d layers with an update pass in the zoo", n)
	}
	p, _ := UpdateFor(10, "")
	if p.X != [4]int32{1, 10, 1, 1} || p.DataType != cudnnDataFloat || p.UpdateMode != UpdateForeach ||
		p.Routine(dnn.Update) != "NVRTC wb_foreach_mul_f32 + wb_foreach_add_f32 + wb_foreach_add_f32 (torch.optim.SGD foreach)" {
		t.Errorf("UpdateFor(10) = %+v, %q", p, p.Routine(dnn.Update))
	}
	if _, err := UpdateFor(0, ""); err == nil {
		t.Error("an update of no parameters")
	}
	if _, err := UpdateFor(10, "adam"); err == nil || !strings.Contains(err.Error(), `unknown update mode "adam"`) {
		t.Errorf("an unknown update mode: %v", err)
	}
}

// TestUpdateModes pins the update pass's kernels as torch.optim.SGD runs
// its step: foreach (the default), buf.mul_(μ), buf.add_(g), p.add_(buf,
// alpha=−lr), three passes over the parameters; fused, one pass of v ←
// μv + g, w ← w − lr·v; and the metadata that says which.
func TestUpdateModes(t *testing.T) {
	foreach, _ := UpdateFor(1<<20, UpdateForeach)
	fused, _ := UpdateFor(1<<20, UpdateFused)
	var got []string
	for _, l := range foreach.Launches(dnn.Update) {
		got = append(got, fmt.Sprint(l.Kernel, l.Args))
	}
	if want := "wb_foreach_mul_f32[v 0.9 1048576] wb_foreach_add_f32[v g 1 1048576] wb_foreach_add_f32[w v -0.1 1048576]"; strings.Join(got, " ") != want {
		t.Errorf("foreach launches %v, want %s", got, want)
	}
	l := fused.Launches(dnn.Update)
	if len(l) != 1 || fmt.Sprint(l[0].Kernel, l[0].Args) != "wb_sgd_fused_f32[w g v 0.9 0.1 1048576]" || l[0].Grid != [3]uint32{4096, 1, 1} {
		t.Errorf("fused launches %+v", l)
	}
	if foreach.Launches(dnn.Forward) != nil || len(foreach.Buffers(dnn.Update)) != 3 {
		t.Error("update problem passes")
	}
	for _, m := range []UpdateMode{"", UpdateForeach, UpdateFused} {
		parsed, err := ParseUpdateMode(string(m))
		if err != nil || parsed.Describe() == "" || !strings.HasPrefix(parsed.Describe(), "torch.optim.SGD") {
			t.Errorf("mode %q: %v %q", m, err, parsed.Describe())
		}
	}
	if !strings.Contains(UpdateForeach.Describe(), "foreach (multi-tensor apply") || !strings.Contains(UpdateFused.Describe(), "fused=True") {
		t.Errorf("descriptions %q, %q", UpdateForeach.Describe(), UpdateFused.Describe())
	}
}

// TestFlushSize: twice the L2 cache, whole MiB, so that a run starts
// with none of its data cached; the default where the driver does not
// say; an explicit size wins.
func TestFlushSize(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		name         string
		l2, override int64
		want         int64
	}{
		{"H100 (50 MiB L2)", 50 * mib, 0, 100 * mib},
		{"A100 (40 MiB L2)", 40 * mib, 0, 80 * mib},
		{"T4 (4 MiB L2)", 4 * mib, 0, 8 * mib},
		{"V100 (6 MiB L2)", 6 * mib, 0, 12 * mib},
		{"odd size rounds up", 3*mib + 1, 0, 7 * mib},
		{"unknown L2", 0, 0, DefaultFlushBytes},
		{"driver error", -1, 0, DefaultFlushBytes},
		{"explicit size", 50 * mib, 12345, 12345},
	} {
		got := FlushSize(tc.l2, tc.override)
		if got != tc.want {
			t.Errorf("%s: FlushSize(%d, %d) = %d, want %d", tc.name, tc.l2, tc.override, got, tc.want)
		}
		if tc.override == 0 && tc.l2 > 0 && got < tc.l2 {
			t.Errorf("%s: flush of %d B smaller than the L2's %d B", tc.name, got, tc.l2)
		}
	}
	if s := coldCacheNote(50*mib, 100*mib); s != "L2 52428800 B, 104857600 B written before each run" {
		t.Errorf("note %q", s)
	}
}

// TestTimingEvents: warm runs are timed between consecutive events;
// cold ones between their own pair, so the flush enqueued between pairs
// is outside every timed span.
func TestTimingEvents(t *testing.T) {
	for _, cold := range []bool{false, true} {
		const n = 5
		count, start, stop := timingEvents(n, cold)
		want := n + 1
		if cold {
			want = 2 * n
		}
		if count != want {
			t.Errorf("cold %v: %d events, want %d", cold, count, want)
		}
		for i := range n {
			if start(i) < 0 || stop(i) >= count || stop(i) != start(i)+1 {
				t.Errorf("cold %v: run %d between events %d and %d", cold, i, start(i), stop(i))
			}
			if i > 0 {
				shared := start(i) == stop(i-1)
				if shared == cold {
					t.Errorf("cold %v: run %d starts at event %d, the previous run stops at %d", cold, i, start(i), stop(i-1))
				}
			}
		}
	}
}

// TestPyTorchNotes: the batch norms PyTorch runs with its own kernels
// where wb runs cuDNN's (its _select_batch_norm_backend takes cuDNN only
// for fp32, or fp16 input with fp32 weights, with a weight and a bias):
// every bf16 and fp16 batch norm and every instance norm (no affine
// parameters) is named in one note per op and reason, and their algo
// column says so; fp32 batch norms are not.
func TestPyTorchNotes(t *testing.T) {
	resnet, err := dnn.Model("resnet50")
	if err != nil {
		t.Fatal(err)
	}
	cyclegan, err := dnn.Model("cyclegan")
	if err != nil {
		t.Fatal(err)
	}
	// every precision: ReLUs, the stem's max pool and the global average
	// pool run ATen's own kernels in PyTorch, never cuDNN's (a
	// reviewer's reading); batch norms where PyTorch's backend choice says
	cnn := []string{"relu %s (relu, layer1.0.relu1, layer1.0.relu2 and 46 more): wb runs cuDNN's routine, PyTorch its own kernels: its activations are ATen's elementwise kernels",
		"maxpool %s (maxpool): wb runs cuDNN's routine, PyTorch its own kernels: max_pool2d runs ATen's max_pool2d_with_indices kernels",
		"globalavgpool %s (avgpool): wb runs cuDNN's routine, PyTorch its own kernels: adaptive_avg_pool2d to 1×1 runs ATen's mean reduction"}
	for _, tc := range []struct {
		net  *dnn.Network
		prec dnn.Precision
		want []string // what each note begins with, in order (%s: the precision)
	}{
		{resnet, dnn.FP32, cnn},
		{resnet, dnn.TF32, cnn},
		{resnet, dnn.BF16, append([]string{"batchnorm %s (bn1, layer1.0.bn1, layer1.0.bn2 and 50 more): wb runs cuDNN's batch norm, PyTorch its own kernels"}, cnn...)},
		{resnet, dnn.FP16, append([]string{"batchnorm %s (bn1, layer1.0.bn1, layer1.0.bn2 and 50 more): wb runs cuDNN's batch norm"}, cnn...)},
		{cyclegan, dnn.FP32, []string{"instancenorm %s (G_AB.conv_in.in, G_AB.down1.in, G_AB.down2.in and 49 more): wb runs cuDNN's batch norm",
			"relu %s (G_AB.conv_in.relu, G_AB.down1.relu, G_AB.down2.relu and 25 more): wb runs cuDNN's routine",
			"tanh %s (G_AB.tanh, G_BA.tanh): wb runs cuDNN's routine, PyTorch its own kernels: its activations are ATen's elementwise kernels"}},
	} {
		notes := PyTorchNotes(tc.net, tc.prec)
		if len(notes) != len(tc.want) {
			t.Errorf("%s %s: notes %q, want %d", tc.net.Name, tc.prec, notes, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if w = fmt.Sprintf(w, tc.prec); !strings.HasPrefix(notes[i], w) || !strings.HasSuffix(notes[i], "; these rows time another routine than PyTorch's") {
				t.Errorf("%s %s: note %q, want %q…", tc.net.Name, tc.prec, notes[i], w)
			}
		}
	}
	if !strings.Contains(PyTorchNotes(resnet, dnn.BF16)[0], "as its input is bfloat16") || !strings.Contains(PyTorchNotes(resnet, dnn.FP16)[0], "as a model cast to fp16 has fp16 weights") ||
		!strings.Contains(PyTorchNotes(cyclegan, dnn.FP32)[0], "as InstanceNorm2d without affine parameters passes no weight and bias") {
		t.Error("batch norms' notes lack their reasons")
	}
	// a 16-bit embedding's backward accumulates in an fp32 copy of the
	// table (a reviewer's reading); in fp32 it adds into the gradient
	bert, err := dnn.Model("bert-base")
	if err != nil {
		t.Fatal(err)
	}
	emb := func(prec dnn.Precision) []string {
		return slices.DeleteFunc(PyTorchNotes(bert, prec), func(n string) bool { return !strings.HasPrefix(n, "embedding ") })
	}
	if n := emb(dnn.BF16); len(n) != 1 || !strings.Contains(n[0], "zeroes an fp32 copy of the table's gradient, adds the rows into it and casts it to bf16") {
		t.Errorf("bert-base bf16: embedding notes %q", n)
	}
	if n := emb(dnn.FP32); len(n) != 0 {
		t.Errorf("bert-base fp32: embedding notes %q", n)
	}
	if got := pyTorchNativeBN(dnn.OpBatchNorm, 2, dnn.FP32); got != "its input has fewer than three dimensions" {
		t.Errorf("a batch norm over [N, C]: %q", got)
	}
	for _, tc := range []struct {
		op   string
		prec dnn.Precision
		algo string
	}{
		{"batchnorm", dnn.BF16, "cudnnBatchNormalizationForwardTraining SPATIAL [PyTorch: native kernels]"},
		{"batchnorm", dnn.FP32, "cudnnBatchNormalizationForwardTraining SPATIAL"},
		{"instancenorm", dnn.FP32, "cudnnBatchNormalizationForwardTraining SPATIAL over [1, N·C, H, W] (instance norm) [PyTorch: native kernels]"},
	} {
		b, _ := newFakeBackend(t)
		k, err := b.Prepare(layerOf(t, tc.op, "resnet50", "cyclegan"), 2, dnn.Forward, tc.prec)
		if err != nil {
			t.Fatal(err)
		}
		if a := k.(profiler.Chooser).Algorithm().Name; a != tc.algo {
			t.Errorf("%s %s: algo %q, want %q", tc.op, tc.prec, a, tc.algo)
		}
		k.Close()
	}
}
