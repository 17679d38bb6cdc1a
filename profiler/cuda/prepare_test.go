package cuda

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/profiler"
)

// prepCase is one layer pass prepared on the fake libraries.
type prepCase struct {
	name   string
	op     string
	bias   bool // a layer of op with a bias
	models []string
	pass   dnn.Pass
	prec   dnn.Precision
}

var prepCases = []prepCase{
	{"relu fwd (cuDNN ops)", "relu", false, []string{"resnet50"}, dnn.Forward, dnn.BF16},
	{"batchnorm bwd (a forward run at preparation)", "batchnorm", false, []string{"resnet50"}, dnn.BackwardData, dnn.FP32},
	{"instancenorm fwd", "instancenorm", false, []string{"cyclegan"}, dnn.Forward, dnn.FP16},
	{"dropout bwd (its mask at preparation)", "dropout", false, []string{"bert-base"}, dnn.BackwardData, dnn.BF16},
	{"conv2d fwd with bias", "conv2d", true, []string{"cyclegan"}, dnn.Forward, dnn.FP32},
	{"conv2d bwd-weights with bias", "conv2d", true, []string{"cyclegan"}, dnn.BackwardWeights, dnn.BF16},
	{"conv2d bwd-data", "conv2d", false, []string{"resnet50"}, dnn.BackwardData, dnn.TF32},
	{"linear fwd with bias", "linear", true, []string{"bert-base"}, dnn.Forward, dnn.BF16},
	{"linear bwd-weights with bias", "linear", true, []string{"bert-base"}, dnn.BackwardWeights, dnn.FP16},
	{"matmul bwd-data", "matmul", false, []string{"bert-base"}, dnn.BackwardData, dnn.BF16},
	{"gelu fwd (NVRTC)", "gelu", false, []string{"bert-base"}, dnn.Forward, dnn.BF16},
	{"layernorm bwd (NVRTC)", "layernorm", false, []string{"bert-base"}, dnn.BackwardData, dnn.FP32},
	{"embedding fwd (NVRTC, ids at preparation)", "embedding", false, []string{"bert-base"}, dnn.Forward, dnn.FP16},
	{"embedding bwd-weights (NVRTC)", "embedding", false, []string{"bert-base"}, dnn.BackwardWeights, dnn.BF16},
	{"lstm fwd (cuDNN RNN)", "lstm", false, []string{"lm"}, dnn.Forward, dnn.FP32},
	{"lstm bwd-weights (forward and backward-data runs at preparation)", "lstm", false, []string{"lm"}, dnn.BackwardWeights, dnn.FP16},
	{"linear update (NVRTC, foreach)", "linear", false, []string{"bert-base"}, dnn.Update, dnn.BF16},
	{"maxpool fwd (cuDNN ops)", "maxpool", false, []string{"resnet50"}, dnn.Forward, dnn.FP32},
	{"maxpool bwd (its forward run at preparation)", "maxpool", false, []string{"resnet50"}, dnn.BackwardData, dnn.BF16},
	{"softmax fwd", "softmax", false, []string{"bert-base"}, dnn.Forward, dnn.FP16},
	{"softmax bwd", "softmax", false, []string{"bert-base"}, dnn.BackwardData, dnn.FP32},
	{"relu bwd", "relu", false, []string{"resnet50"}, dnn.BackwardData, dnn.FP32},
	{"add fwd", "add", false, []string{"resnet50"}, dnn.Forward, dnn.BF16},
	{"globalavgpool bwd", "globalavgpool", false, []string{"resnet50"}, dnn.BackwardData, dnn.FP32},
	{"avgpool fwd", "avgpool", false, []string{"inception_v3"}, dnn.Forward, dnn.FP16},
}

func (c prepCase) layer(t *testing.T) dnn.Layer {
	if c.bias {
		return biasedLayer(t, c.op, c.models...)
	}
	return layerOf(t, c.op, c.models...)
}

// TestPrepareOrdersFillsBeforeRuns is the ordering the timings rest on,
// checked against a recording of the library calls for a pass of every
// kind of preparation: every buffer is filled (wb_fill_<type>) on the
// backend's stream
// (no call enqueues anything on another one, the NULL stream included:
// the stream is CU_STREAM_NON_BLOCKING and would not wait for it), and
// Prepare synchronises that stream after the last thing it enqueued (the
// fills, cudnnFind's trial runs, the forward runs a backward pass reads,
// the token ids) and before it returns, so that the first timed run
// starts on filled buffers and an idle stream. Time then records its
// events, and enqueues its runs, on the same stream.
func TestPrepareOrdersFillsBeforeRuns(t *testing.T) {
	for _, tc := range prepCases {
		t.Run(tc.name, func(t *testing.T) {
			b, f := newFakeBackend(t)
			l := tc.layer(t)
			f.fakeConvY(t, l, 2)
			k, err := b.Prepare(l, 2, tc.pass, tc.prec)
			if err != nil {
				t.Fatal(err)
			}
			prep := slices.Clone(f.calls)
			lastSync, lastWork, fills := -1, -1, 0
			for i, c := range prep {
				if s, ok := streamOf(c); ok && s != fakeStream {
					t.Errorf("%v: on stream %#x, not the backend's", c, s)
				}
				if c.name == "cuLaunchKernel" && strings.HasPrefix(f.funcs[uintptr(c.args[0].Uint())], "wb_fill_") {
					fills++
				}
				if enqueues(c.name) {
					lastWork = i
				}
				if c.name == "cuStreamSynchronize" {
					lastSync = i
				}
			}
			if fills == 0 {
				t.Errorf("no buffer filled: %v", f.names(0))
			}
			if lastSync < lastWork {
				t.Errorf("Prepare returns without synchronising the stream after its last enqueued call: %v", f.names(0))
			}
			if rest := f.names(lastSync + 1); len(rest) > 0 {
				t.Errorf("calls after the synchronisation: %v", rest)
			}
			timed := len(f.calls)
			ds, err := k.Time(3)
			if err != nil || len(ds) != 3 || ds[0] <= 0 {
				t.Fatalf("Time: %v %v", ds, err)
			}
			runs := 0
			for _, c := range f.calls[timed:] {
				if s, ok := streamOf(c); ok && s != fakeStream {
					t.Errorf("timed %v on stream %#x", c, s)
				}
				if enqueues(c.name) {
					runs++
				}
			}
			if runs < 3 {
				t.Errorf("3 runs enqueued %d calls: %v", runs, f.names(timed))
			}
			if err := k.Close(); err != nil {
				t.Fatal(err)
			}
			allocs, frees := 0, 0
			for _, c := range f.calls {
				switch c.name {
				case "cuMemAlloc_v2":
					allocs++
				case "cuMemFree_v2":
					frees++
				}
			}
			if allocs == 0 || allocs != frees {
				t.Errorf("%d allocations, %d frees", allocs, frees)
			}
		})
	}
}

// fillLaunches lists the wb_fill_<type> launches from call i on: the
// kernel, and its arguments (the buffer's address, the values, the seed).
func (f *fakeLibs) fillLaunches(from int) (kernels []string, args [][3]int64) {
	for _, c := range f.calls[from:] {
		if c.name != "cuLaunchKernel" {
			continue
		}
		if name := f.funcs[uintptr(c.args[0].Uint())]; strings.HasPrefix(name, "wb_fill_") && name != "wb_fill_ids" {
			params := unsafe.Slice((*unsafe.Pointer)(c.args[9].UnsafePointer()), 3)
			kernels = append(kernels, name)
			args = append(args, [3]int64{*(*int64)(params[0]), *(*int64)(params[1]), *(*int64)(params[2])})
		}
	}
	return kernels, args
}

// TestFillsPseudoRandom: every buffer of values a preparation reads is
// filled with pseudo-random values (wb_fill_<type> of its precision, fp32
// for tf32 and for fp32 parameters and statistics), each buffer with a
// seed of its own, on the backend's stream, before the synchronisation, in
// place of a constant that tensor cores multiply faster than PyTorch's
// random inputs; token ids and sequence lengths keep their own fills. The
// device's versions say so. Without NVRTC, the constant 0.01, as the
// versions say.
func TestFillsPseudoRandom(t *testing.T) {
	for _, tc := range []struct {
		op    string
		bias  bool
		model string
		pass  dnn.Pass
		prec  dnn.Precision
		bufs  map[string]string // buffer: the fill kernel
	}{
		{"conv2d", true, "cyclegan", dnn.Forward, dnn.BF16, map[string]string{"x": "wb_fill_bf16", "w": "wb_fill_bf16", "y": "wb_fill_bf16", "b": "wb_fill_bf16"}},
		{"linear", true, "bert-base", dnn.BackwardWeights, dnn.FP16, map[string]string{"dy": "wb_fill_f16", "x": "wb_fill_f16", "dw": "wb_fill_f16", "db": "wb_fill_f16"}},
		{"matmul", false, "bert-base", dnn.Forward, dnn.TF32, map[string]string{"a": "wb_fill_f32", "b": "wb_fill_f32", "c": "wb_fill_f32"}},
		{"batchnorm", false, "resnet50", dnn.Forward, dnn.BF16, map[string]string{"x": "wb_fill_bf16", "y": "wb_fill_bf16", "scale": "wb_fill_f32", "bias": "wb_fill_f32"}},
		{"embedding", false, "bert-base", dnn.Forward, dnn.FP16, map[string]string{"table": "wb_fill_f16", "y": "wb_fill_f16"}},
		{"lstm", false, "lm", dnn.Forward, dnn.FP16, map[string]string{"x": "wb_fill_f16", "weights": "wb_fill_f16", "hx": "wb_fill_f16"}},
	} {
		t.Run(tc.op, func(t *testing.T) {
			b, f := newFakeBackend(t)
			var l dnn.Layer
			if tc.bias {
				l = biasedLayer(t, tc.op, tc.model)
			} else {
				l = layerOf(t, tc.op, tc.model)
			}
			f.fakeConvY(t, l, 2)
			k, err := b.Prepare(l, 2, tc.pass, tc.prec)
			if err != nil {
				t.Fatal(err)
			}
			defer k.Close()
			kk := k.(*kernel)
			kernels, args := f.fillLaunches(0)
			byPtr, seeds := map[int64]string{}, map[int64]bool{}
			for i, a := range args {
				byPtr[a[0]] = kernels[i]
				if seeds[a[2]] {
					t.Errorf("seed %#x used twice", a[2])
				}
				seeds[a[2]] = true
			}
			for buf, want := range tc.bufs {
				p, ok := kk.mem.by[buf]
				if !ok {
					t.Fatalf("no buffer %s: %v", buf, kk.mem.by)
				}
				if got := byPtr[int64(p)]; got != want {
					t.Errorf("%s filled by %q, want %s", buf, got, want)
				}
			}
			for _, c := range f.calls {
				switch c.name {
				case "cuMemsetD16Async":
					t.Errorf("a constant 16-bit fill: %v", c)
				case "cuMemsetD32Async":
					if v := c.args[1].Uint(); v == uint64(fill32) {
						t.Errorf("a constant fill of 0.01: %v", c)
					}
				}
			}
			if tc.op == "embedding" && !slices.Contains(f.names(0), "launch wb_fill_ids") {
				t.Errorf("the token ids not drawn: %v", f.names(0))
			}
			if tc.op == "lstm" && !slices.Contains(f.names(0), "cuMemsetD32Async") {
				t.Errorf("the sequence lengths not set: %v", f.names(0))
			}
			if v := b.Device().Versions[VersionFill]; v != FillRandom {
				t.Errorf("versions say fill %q", v)
			}
		})
	}
	b, f := newUnheldFakeBackend(t)
	b.rtc, b.rtcErr = nil, errors.New("libnvrtc.so.13 not found")
	k, err := b.Prepare(layerOf(t, "relu", "resnet50"), 2, dnn.Forward, dnn.BF16)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	if ks, _ := f.fillLaunches(0); len(ks) != 0 || !slices.Contains(f.names(0), "cuMemsetD16Async") || b.Device().Versions[VersionFill] != fillConstant {
		t.Errorf("without NVRTC: fills %v, calls %v, versions %v", ks, f.names(0), b.Device().Versions)
	}
}

// TestBackwardReadsItsForward: the backward passes of max pooling and of
// an activation run their forward once at preparation, on the prepared x
// into y, so that the maxima (each window's gradient goes to the value of
// x equal to y, as PyTorch's backward reads the forward's indices) and the
// outputs they read are real; the runs are the backward alone.
func TestBackwardReadsItsForward(t *testing.T) {
	for _, tc := range []struct {
		op, model  string
		fwd, bwd   string
		xArg, yArg int // the forward's x and y pointer arguments
	}{
		{"maxpool", "resnet50", "cudnnPoolingForward", "cudnnPoolingBackward", 4, 7},
		{"relu", "resnet50", "cudnnActivationForward", "cudnnActivationBackward", 4, 7},
	} {
		b, f := newFakeBackend(t)
		k, err := b.Prepare(layerOf(t, tc.op, tc.model), 2, dnn.BackwardData, dnn.BF16)
		if err != nil {
			t.Fatal(err)
		}
		kk := k.(*kernel)
		prep := f.names(0)
		at, sync := slices.Index(prep, tc.fwd), slices.Index(prep, "cuStreamSynchronize")
		if at < 0 || sync < at {
			t.Errorf("%s: preparation %v", tc.op, prep)
		}
		for _, c := range f.calls {
			if c.name == tc.fwd && (c.args[tc.xArg].Uint() != kk.mem.by["x"] || c.args[tc.yArg].Uint() != kk.mem.by["y"]) {
				t.Errorf("%s: the forward reads %#x into %#x, want x %#x into y %#x", tc.op, c.args[tc.xArg].Uint(), c.args[tc.yArg].Uint(), kk.mem.by["x"], kk.mem.by["y"])
			}
		}
		if got := strings.Join(oneRun(t, k, f), " "); got != tc.bwd {
			t.Errorf("%s: a run calls %s", tc.op, got)
		}
		k.Close()
	}
}

// TestPrepareFailsWhenTheStreamFails: an error the synchronisation
// reports (a fill or a preparation run that failed on the device) fails
// the preparation, and its memory is given back.
func TestPrepareFailsWhenTheStreamFails(t *testing.T) {
	b, f := newFakeBackend(t)
	f.fail["cuStreamSynchronize"] = 700 // CUDA_ERROR_ILLEGAL_ADDRESS
	_, err := b.Prepare(layerOf(t, "relu", "resnet50"), 2, dnn.Forward, dnn.FP32)
	if err == nil || !strings.Contains(err.Error(), "synchronising the preparation: cuStreamSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS") {
		t.Fatalf("error %v", err)
	}
	n := map[string]int{}
	for _, c := range f.calls {
		n[c.name]++
	}
	if n["cuMemAlloc_v2"] == 0 || n["cuMemAlloc_v2"] != n["cuMemFree_v2"] {
		t.Errorf("%d allocations, %d frees", n["cuMemAlloc_v2"], n["cuMemFree_v2"])
	}
}

// oneRun is the calls of one timed run of k, as names, without its
// events and the stream's hold before it (TestTimeHoldsTheStream), after
// the kernel's first Time, whose unheld warm-up run it leaves out.
func oneRun(t *testing.T, k profiler.Kernel, f *fakeLibs) []string {
	t.Helper()
	if _, err := k.Time(1); err != nil {
		t.Fatal(err)
	}
	from := len(f.calls)
	if _, err := k.Time(1); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range f.names(from) {
		if !strings.HasPrefix(n, "cuEvent") && n != "launch wb_hold" {
			out = append(out, n)
		}
	}
	return out
}

// TestConvBias: a convolution's bias is added after the convolution
// (cudnnAddTensor of a [1, K, 1, 1] tensor into y) and its gradient
// computed after the filter's by wb's reduction over N, P and Q (PyTorch's
// grad_output.sum over {0, 2, 3}; cuDNN's cudnnConvolutionBackwardBias
// refused bfloat16 on an H200), into an fp32 accumulator cast to the
// precision for 16-bit types; the algo column says so. Every pass runs
// with the math type its algorithm was found with. Without NVRTC the
// gradient is unsupported, saying why.
func TestConvBias(t *testing.T) {
	l := biasedLayer(t, "conv2d", "cyclegan")
	for _, tc := range []struct {
		pass dnn.Pass
		prec dnn.Precision
		runs string
		algo string
	}{
		{dnn.Forward, dnn.FP32, "cudnnConvolutionForward cudnnAddTensor", "cudnnConvolutionForward IMPLICIT_PRECOMP_GEMM, math 1 + cudnnAddTensor (bias)"},
		{dnn.BackwardWeights, dnn.FP32, "cudnnConvolutionBackwardFilter cuMemsetD32Async launch wb_conv_bias_grad_f32",
			"cudnnConvolutionBackwardFilter ALGO_1, math 1 + NVRTC wb_conv_bias_grad_f32"},
		{dnn.BackwardWeights, dnn.BF16, "cudnnBackendExecute cuMemsetD32Async launch wb_conv_bias_grad_bf16 launch wb_cast_f32_to_bf16",
			"cudnnBackendExecute, heuristic A engine config #0 of 3 (fastest of 3 timed) + NVRTC wb_conv_bias_grad_bf16 + wb_cast_f32_to_bf16"},
		{dnn.BackwardData, dnn.FP32, "cudnnConvolutionBackwardData", "cudnnConvolutionBackwardData ALGO_1, math 1"},
	} {
		b, f := newFakeBackend(t)
		f.fakeConvY(t, l, 2)
		k, err := b.Prepare(l, 2, tc.pass, tc.prec)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(oneRun(t, k, f), " "); got != tc.runs {
			t.Errorf("%s %s: a run calls %s, want %s", tc.pass, tc.prec, got, tc.runs)
		}
		if a := k.(profiler.Chooser).Algorithm(); a.Name != tc.algo {
			t.Errorf("%s %s: algo %q, want %q", tc.pass, tc.prec, a.Name, tc.algo)
		}
		// The descriptor's math type is set last to the one cudnnFind
		// reported for the algorithm that runs (the fake's: 1); the bf16
		// pass runs through the graph API (TestConvGraph).
		if tc.prec == dnn.BF16 {
			k.Close()
			continue
		}
		var maths []int64
		for _, c := range f.calls {
			if c.name == "cudnnSetConvolutionMathType" {
				maths = append(maths, c.args[1].Int())
			}
		}
		if len(maths) != 2 || maths[1] != 1 {
			t.Errorf("%s %s: math types set %v, want the problem's then cudnnFind's (1)", tc.pass, tc.prec, maths)
		}
		k.Close()
	}
	b, f := newFakeBackend(t)
	f.fakeConvY(t, l, 2)
	b.rtc, b.rtcErr = nil, errors.New("libnvrtc.so.13 not found")
	if _, err := b.Prepare(l, 2, dnn.BackwardWeights, dnn.FP32); !errors.Is(err, profiler.ErrUnsupported) ||
		!strings.Contains(err.Error(), "the bias gradient (wb's reduction kernel) needs NVRTC: libnvrtc.so.13 not found") {
		t.Errorf("without NVRTC: %v", err)
	}
}

// graphSets lists the graph API's cudnnBackendSetAttribute calls of one
// attribute name: each call's elements as int64s (count from the call).
func (f *fakeLibs) graphSets(name int32) [][]int64 {
	var out [][]int64
	for _, c := range f.calls {
		if c.name == "cudnnBackendSetAttribute" && int32(c.args[1].Int()) == name {
			n := int(c.args[3].Int())
			out = append(out, slices.Clone(unsafe.Slice((*int64)(c.args[4].UnsafePointer()), n)))
		}
	}
	return out
}

// TestConvGraph: a 16-bit convolution runs through cuDNN's graph API as
// PyTorch's does: x (uid 1), w (2) and y (3) as NCHW / KCRS tensors, the
// convolution's strides, paddings and dilations, heuristic mode A's
// engine configurations, each that finalizes timed and the fastest run,
// its variant pack pointing at the pass's buffers in the operation's
// order. A plan that does not finalize is passed over; with no engine at
// all the legacy routines run it, saying why; fp32 stays on them.
func TestConvGraph(t *testing.T) {
	l := layerOf(t, "conv2d", "resnet50")
	c, err := ConvFor(l.(dnn.Describer).Describe(), 2, dnn.BF16)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pass dnn.Pass
		bufs []string // the variant pack's pointers, in uid order 2, 1, 3
	}{
		{dnn.Forward, []string{"w", "x", "y"}},
		{dnn.BackwardData, []string{"w", "dx", "dy"}},
		{dnn.BackwardWeights, []string{"dw", "x", "dy"}},
	} {
		b, f := newFakeBackend(t)
		f.fakeConvY(t, l, 2)
		f.refusePlans = 1
		k, err := b.Prepare(l, 2, tc.pass, dnn.BF16)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(oneRun(t, k, f), " "); got != "cudnnBackendExecute" {
			t.Errorf("%s: a run calls %s", tc.pass, got)
		}
		if a := k.(profiler.Chooser).Algorithm(); a.Name != "cudnnBackendExecute, heuristic A engine config #1 of 3 (fastest of 2 timed)" || a.WorkspaceBytes != 1<<20 {
			t.Errorf("%s: algorithm %+v", tc.pass, a)
		}
		dims := f.graphSets(cudnnAttrTensorDimensions)
		x, w, y := c.XDims(), c.WDims(), c.YDims()
		want := [][]int64{{int64(x[0]), int64(x[1]), int64(x[2]), int64(x[3])}, {int64(w[0]), int64(w[1]), int64(w[2]), int64(w[3])},
			{int64(y[0]), int64(y[1]), int64(y[2]), int64(y[3])}}
		if !slices.EqualFunc(dims, want, slices.Equal) {
			t.Errorf("%s: tensor dimensions %v, want x, w, y %v", tc.pass, dims, want)
		}
		if ids := f.graphSets(cudnnAttrTensorUniqueID); !slices.EqualFunc(ids, [][]int64{{1}, {2}, {3}}, slices.Equal) {
			t.Errorf("%s: tensor uids %v", tc.pass, ids)
		}
		// The operation's W, X (DX), Y (DY) attributes take the tensors of
		// uids 2, 1 and 3, and the convolution its every figure.
		uidOf := map[uintptr]int64{}
		for _, call := range f.calls {
			if call.name == "cudnnBackendSetAttribute" && int32(call.args[1].Int()) == cudnnAttrTensorUniqueID {
				uidOf[uintptr(call.args[0].Uint())] = *(*int64)(call.args[4].UnsafePointer())
			}
		}
		attr0 := map[dnn.Pass]int32{dnn.Forward: cudnnAttrConvFwdAlpha, dnn.BackwardData: cudnnAttrConvBwdDataAlpha, dnn.BackwardWeights: cudnnAttrConvBwdFilterAlpha}[tc.pass]
		var opUIDs []int64
		for _, a := range []int32{attr0 + 3, attr0 + 4, attr0 + 5} {
			for _, h := range f.graphSets(a) {
				opUIDs = append(opUIDs, uidOf[uintptr(h[0])])
			}
		}
		if !slices.Equal(opUIDs, []int64{2, 1, 3}) {
			t.Errorf("%s: the operation's tensor attributes take uids %v, want [2 1 3]", tc.pass, opUIDs)
		}
		for _, a := range []struct {
			name int32
			want []int64
		}{
			{cudnnAttrConvolutionDilations, []int64{int64(c.Dilation), int64(c.Dilation)}},
			{cudnnAttrConvolutionFilterStrides, []int64{int64(c.Stride), int64(c.Stride)}},
			{cudnnAttrConvolutionPrePaddings, []int64{int64(c.PadH), int64(c.PadW)}},
			{cudnnAttrConvolutionPostPaddings, []int64{int64(c.PadH), int64(c.PadW)}},
			{cudnnAttrConvolutionSpatialDims, []int64{2}},
		} {
			if got := f.graphSets(a.name); len(got) != 1 || !slices.Equal(got[0], a.want) {
				t.Errorf("%s: convolution attribute %d set to %v, want %v", tc.pass, a.name, got, a.want)
			}
		}
		for _, a := range []struct{ name, want int32 }{
			{cudnnAttrConvolutionCompType, cudnnDataFloat}, {cudnnAttrConvolutionConvMode, cudnnCrossCorrelation},
		} {
			var got []int32
			for _, call := range f.calls {
				if call.name == "cudnnBackendSetAttribute" && int32(call.args[1].Int()) == a.name {
					got = append(got, *(*int32)(call.args[4].UnsafePointer()))
				}
			}
			if !slices.Equal(got, []int32{a.want}) {
				t.Errorf("%s: convolution attribute %d set to %v, want %d", tc.pass, a.name, got, a.want)
			}
		}
		uids, ptrs := f.graphSets(cudnnAttrVariantPackUniqueIDs), f.graphSets(cudnnAttrVariantPackDataPointers)
		kk := k.(*kernel)
		var wantPtrs []int64
		for _, n := range tc.bufs {
			wantPtrs = append(wantPtrs, int64(kk.mem.by[n]))
		}
		if len(uids) != 1 || !slices.Equal(uids[0], []int64{2, 1, 3}) || len(ptrs) != 1 || !slices.Equal(ptrs[0], wantPtrs) {
			t.Errorf("%s: variant pack uids %v, pointers %v; want [2 1 3], %v", tc.pass, uids, ptrs, wantPtrs)
		}
		k.Close()
	}

	// No engine: the legacy routines, saying why.
	b, f := newFakeBackend(t)
	f.fakeConvY(t, l, 2)
	f.engines = 0
	k, err := b.Prepare(l, 2, dnn.Forward, dnn.BF16)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(oneRun(t, k, f), " "); got != "cudnnConvolutionForward" ||
		!strings.Contains(k.(*kernel).String(), "(the graph API did not run it: not supported by this backend: cuDNN's heuristics offer no engine)") {
		t.Errorf("no engine: runs %s, %s", got, k.(*kernel).String())
	}
	k.Close()

	// fp32: the legacy routines, which match PyTorch's time there.
	b, f = newFakeBackend(t)
	f.fakeConvY(t, l, 2)
	k, err = b.Prepare(l, 2, dnn.Forward, dnn.FP32)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(f.names(0), "cudnnBackendCreateDescriptor") {
		t.Error("fp32 built a graph")
	}
	k.Close()
}

// epilogues lists the epilogues set on matmul descriptors, in order.
func (f *fakeLibs) epilogues() []uint32 {
	var out []uint32
	for _, c := range f.calls {
		if c.name == "cublasLtMatmulDescSetAttribute" && int32(c.args[1].Int()) == ltMatmulDescEpilogue {
			out = append(out, *(*uint32)(c.args[2].UnsafePointer()))
		}
	}
	return out
}

// biasPointers lists the bias pointers set on matmul descriptors.
func (f *fakeLibs) biasPointers() []uint64 {
	var out []uint64
	for _, c := range f.calls {
		if c.name == "cublasLtMatmulDescSetAttribute" && int32(c.args[1].Int()) == ltMatmulDescBiasPointer {
			if c.args[3].Uint() != 8 {
				panic("bias pointer of " + c.String())
			}
			out = append(out, *(*uint64)(c.args[2].UnsafePointer()))
		}
	}
	return out
}

// TestLinearBias: a linear layer's bias is cuBLASLt's BIAS epilogue
// forward, pointing at the bias's buffer; its gradient is no epilogue but
// eager PyTorch's own way, the plain dW product and then a reduction of
// dY over its rows (grad_output.sum(0)), wb's kernel, in fp32 and cast
// for 16-bit precisions.
func TestLinearBias(t *testing.T) {
	l := biasedLayer(t, "linear", "bert-base")
	for _, tc := range []struct {
		name      string
		pass      dnn.Pass
		prec      dnn.Precision
		epilogues []uint32
		runs      string
		algo      string
	}{
		{"forward", dnn.Forward, dnn.BF16, []uint32{ltEpilogueBias}, "cublasLtMatmul", "cublasLtMatmul heuristic #1, epilogue BIAS"},
		{"weights' gradient, fp32", dnn.BackwardWeights, dnn.FP32, []uint32{ltEpilogueDefault},
			"cublasLtMatmul cuMemsetD32Async launch wb_bias_grad_f32",
			"cublasLtMatmul heuristic #1 + NVRTC wb_bias_grad_f32"},
		{"weights' gradient, bf16", dnn.BackwardWeights, dnn.BF16, []uint32{ltEpilogueDefault},
			"cublasLtMatmul cuMemsetD32Async launch wb_bias_grad_bf16 launch wb_cast_f32_to_bf16",
			"cublasLtMatmul heuristic #1 + NVRTC wb_bias_grad_bf16 + wb_cast_f32_to_bf16"},
		{"data's gradient", dnn.BackwardData, dnn.BF16, []uint32{ltEpilogueDefault}, "cublasLtMatmul", "cublasLtMatmul heuristic #1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, f := newFakeBackend(t)
			k, err := b.Prepare(l, 2, tc.pass, tc.prec)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.epilogues(); !slices.Equal(got, tc.epilogues) {
				t.Errorf("epilogues %v, want %v", got, tc.epilogues)
			}
			kk := k.(*kernel)
			if ps := f.biasPointers(); tc.pass == dnn.Forward && (len(ps) != 1 || ps[0] != kk.mem.by["b"]) ||
				tc.pass != dnn.Forward && len(ps) != 0 {
				t.Errorf("bias pointers %#x (the bias b at %#x)", ps, kk.mem.by["b"])
			}
			if got := strings.Join(oneRun(t, k, f), " "); got != tc.runs {
				t.Errorf("a run calls %s, want %s", got, tc.runs)
			}
			if a := k.(profiler.Chooser).Algorithm(); a.Name != tc.algo {
				t.Errorf("algo %q, want %q", a.Name, tc.algo)
			}
			if tc.pass == dnn.BackwardWeights {
				// the reduction reads dy and writes db (through the fp32
				// accumulator for 16-bit precisions)
				var args []any
				for _, c := range f.calls {
					if c.name == "cuLaunchKernel" && strings.HasPrefix(f.funcs[uintptr(c.args[0].Uint())], "wb_bias_grad_") {
						params := unsafe.Slice((*unsafe.Pointer)(c.args[9].UnsafePointer()), 2)
						args = []any{*(*uint64)(params[0]), *(*uint64)(params[1])}
						break
					}
				}
				acc := "db"
				if tc.prec != dnn.FP32 {
					acc = "db_acc"
				}
				if len(args) != 2 || args[0] != kk.mem.by["dy"] || args[1] != kk.mem.by[acc] || kk.mem.by["db"] == 0 {
					t.Errorf("the reduction's buffers %#x, want dy %#x into %s %#x", args, kk.mem.by["dy"], acc, kk.mem.by[acc])
				}
			}
			k.Close()
		})
	}
}

// TestNVRTCCubinFirst: wb's kernels are compiled for the device's real
// architecture (sm_90) and loaded as a cubin; where the driver refuses
// it, compiled again as PTX (compute_90) and loaded for the driver to
// JIT, the algo column saying which was used and the kernel's
// description why; where neither loads, the ops are unsupported, the
// error saying why each failed.
func TestNVRTCCubinFirst(t *testing.T) {
	l := layerOf(t, "gelu", "bert-base")
	b, f := newUnheldFakeBackend(t)
	k, err := b.Prepare(l, 2, dnn.Forward, dnn.BF16)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.options) != 1 || f.options[0][0] != "--gpu-architecture=sm_90" || !slices.Contains(f.names(0), "nvrtcGetCUBIN") ||
		slices.Contains(f.names(0), "nvrtcGetPTX") {
		t.Errorf("compilations %v, calls %v", f.options, f.names(0))
	}
	if a := k.(profiler.Chooser).Algorithm().Name; a != "NVRTC wb_gelu_fwd_bf16 [sm_90 cubin]" {
		t.Errorf("algo %q", a)
	}
	k.Close()

	b, f = newUnheldFakeBackend(t)
	f.failCubin = 209 // CUDA_ERROR_NO_BINARY_FOR_GPU
	k, err = b.Prepare(l, 2, dnn.Forward, dnn.BF16)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.options) != 2 || f.options[1][0] != "--gpu-architecture=compute_90" {
		t.Errorf("compilations %v", f.options)
	}
	if a := k.(profiler.Chooser).Algorithm().Name; a != "NVRTC wb_gelu_fwd_bf16 [compute_90 PTX]" {
		t.Errorf("algo %q", a)
	}
	if s := k.(*kernel).String(); !strings.Contains(s, "kernels.cu as compute_90 PTX (sm_90 cubin: cuModuleLoadData: CUDA_ERROR_NO_BINARY_FOR_GPU)") {
		t.Errorf("description %q", s)
	}
	k.Close()

	b, f = newUnheldFakeBackend(t)
	f.fail["cuModuleLoadData"] = 222 // CUDA_ERROR_UNSUPPORTED_PTX_VERSION
	_, err = b.Prepare(l, 2, dnn.Forward, dnn.BF16)
	if !errors.Is(err, profiler.ErrUnsupported) || !strings.Contains(err.Error(),
		"sm_90 cubin: cuModuleLoadData: CUDA_ERROR_UNSUPPORTED_PTX_VERSION; compute_90 PTX: cuModuleLoadData: CUDA_ERROR_UNSUPPORTED_PTX_VERSION") {
		t.Errorf("neither loads: %v", err)
	}
	// The failure is remembered: the next op says the same without
	// compiling again.
	n := len(f.options)
	if _, err := b.Prepare(layerOf(t, "layernorm", "bert-base"), 2, dnn.Forward, dnn.BF16); !errors.Is(err, profiler.ErrUnsupported) || len(f.options) != n {
		t.Errorf("second op: %v, %d compilations", err, len(f.options))
	}
}

// TestEmbeddingRuns: the ids are drawn once, at preparation, by a kernel
// on the stream; the backward pass zeroes its fp32 accumulator, scatters
// into it and writes the bf16 gradient, every run.
func TestEmbeddingRuns(t *testing.T) {
	l := layerOf(t, "embedding", "bert-base")
	b, f := newFakeBackend(t)
	k, err := b.Prepare(l, 2, dnn.BackwardWeights, dnn.BF16)
	if err != nil {
		t.Fatal(err)
	}
	prep := f.names(0)
	fill, sync := slices.Index(prep, "launch wb_fill_ids"), slices.Index(prep, "cuStreamSynchronize")
	if fill < 0 || sync < fill {
		t.Errorf("preparation %v", prep)
	}
	if got := strings.Join(oneRun(t, k, f), " "); got != "cuMemsetD32Async launch wb_embedding_bwd_bf16 launch wb_cast_f32_to_bf16" {
		t.Errorf("a run calls %s", got)
	}
	k.Close()
}

// TestLSTMRuns: cuDNN's RNN descriptor as PyTorch sets it; the backward
// passes' preparation runs the forward (and backward-data) pass that
// fills the reserve space, before the synchronisation; a weights'
// gradient run zeroes dw and adds into it.
func TestLSTMRuns(t *testing.T) {
	l := layerOf(t, "lstm", "lm")
	d := l.(dnn.Describer).Describe()
	for _, tc := range []struct {
		pass dnn.Pass
		prep []string
		run  string
	}{
		{dnn.Forward, nil, "cudnnRNNForward"},
		{dnn.BackwardData, []string{"cudnnRNNForward"}, "cudnnRNNBackwardData_v8"},
		{dnn.BackwardWeights, []string{"cudnnRNNForward", "cudnnRNNBackwardData_v8"}, "cuMemsetD32Async cudnnRNNBackwardWeights_v8"},
	} {
		b, f := newFakeBackend(t)
		k, err := b.Prepare(l, 3, tc.pass, dnn.FP16)
		if err != nil {
			t.Fatal(err)
		}
		var prep []string
		for _, n := range f.names(0) {
			if strings.HasPrefix(n, "cudnnRNN") {
				prep = append(prep, n)
			}
		}
		if !slices.Equal(prep, tc.prep) {
			t.Errorf("%s: preparation runs %v, want %v", tc.pass, prep, tc.prep)
		}
		if got := strings.Join(oneRun(t, k, f), " "); got != tc.run {
			t.Errorf("%s: a run calls %s, want %s", tc.pass, got, tc.run)
		}
		for _, c := range f.calls {
			switch c.name {
			case "cudnnSetRNNDescriptor_v8":
				want := []int32{cudnnRNNAlgoStandard, cudnnLSTM, cudnnRNNDoubleBias, cudnnUnidirectional, cudnnLinearInput,
					cudnnDataHalf, cudnnDataFloat, cudnnTensorOpMath, int32(d.In[0][1]), int32(d.Attr[dnn.AttrHidden]), int32(d.Attr[dnn.AttrHidden]), int32(d.Attr[dnn.AttrLayers])}
				for i, w := range want {
					if c.args[1+i].Int() != int64(w) {
						t.Errorf("cudnnSetRNNDescriptor_v8 argument %d = %d, want %d", 1+i, c.args[1+i].Int(), w)
					}
				}
				if c.args[14].Uint() != uint64(cudnnRNNPaddedIOEnabled) {
					t.Errorf("auxFlags %d", c.args[14].Uint())
				}
			case "cudnnSetRNNDataDescriptor":
				if c.args[1].Int() != int64(cudnnDataHalf) || c.args[2].Int() != int64(cudnnRNNDataSeqMajorUnpacked) ||
					c.args[3].Int() != int64(d.In[0][0]) || c.args[4].Int() != 3 {
					t.Errorf("%v", c)
				}
			case "cudnnRNNBackwardWeights_v8":
				if c.args[2].Int() != int64(cudnnWgradModeAdd) {
					t.Errorf("wgrad mode %d", c.args[2].Int())
				}
			case "cudnnSetDropoutDescriptor":
				if c.args[2].Float() != 0 || c.args[3].Uint() != 0 {
					t.Errorf("dropout %v", c)
				}
			}
		}
		k.Close()
	}
}

// TestUpdateRuns: the update pass is torch.optim.SGD's step, three
// foreach kernels by default, one fused kernel with Options.Update.
func TestUpdateRuns(t *testing.T) {
	l := layerOf(t, "conv2d", "resnet50")
	for _, tc := range []struct {
		mode UpdateMode
		run  string
	}{
		{UpdateForeach, "launch wb_foreach_mul_f32 launch wb_foreach_add_f32 launch wb_foreach_add_f32"},
		{UpdateFused, "launch wb_sgd_fused_f32"},
	} {
		b, f := newFakeBackend(t)
		b.update = tc.mode
		k, err := b.Prepare(l, 2, dnn.Update, dnn.BF16)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(oneRun(t, k, f), " "); got != tc.run {
			t.Errorf("%s: a run calls %s, want %s", tc.mode, got, tc.run)
		}
		k.Close()
	}
}

// TestLinearBiasWithoutNVRTC: without NVRTC a linear layer's weights'
// gradient with a bias is unsupported, saying why, before anything is
// allocated.
func TestLinearBiasWithoutNVRTC(t *testing.T) {
	b, f := newFakeBackend(t)
	b.rtc, b.rtcErr = nil, errors.New("libnvrtc.so.13 or libnvrtc.so.12 not found")
	_, err := b.Prepare(biasedLayer(t, "linear", "bert-base"), 2, dnn.BackwardWeights, dnn.BF16)
	if !errors.Is(err, profiler.ErrUnsupported) || !strings.Contains(err.Error(), "the bias gradient (wb's reduction kernel) needs NVRTC: libnvrtc") {
		t.Errorf("error %v", err)
	}
	if slices.Contains(f.names(0), "cuMemAlloc_v2") {
		t.Errorf("allocated before refusing: %v", f.names(0))
	}
}
