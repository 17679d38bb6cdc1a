package cuda

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/profiler"
)

// Enum values of cuDNN 9's legacy operations API (cudnn_ops.h; the
// activation mode and NaN propagation in cudnn_graph.h), pinned by
// TestEnumValues.
const (
	// cudnnPoolingMode_t (cudnn_ops.h)
	cudnnPoolingMax                        int32 = 0
	cudnnPoolingAverageCountIncludePadding int32 = 1
	cudnnPoolingAverageCountExcludePadding int32 = 2

	// cudnnNanPropagation_t (cudnn_graph.h)
	cudnnNotPropagateNaN int32 = 0

	// cudnnActivationMode_t (cudnn_graph.h)
	cudnnActivationSigmoid int32 = 0
	cudnnActivationRelu    int32 = 1
	cudnnActivationTanh    int32 = 2
	cudnnActivationSwish   int32 = 6

	// cudnnSoftmaxAlgorithm_t, cudnnSoftmaxMode_t (cudnn_ops.h)
	cudnnSoftmaxAccurate    int32 = 1
	cudnnSoftmaxModeChannel int32 = 1

	// cudnnBatchNormMode_t (cudnn_ops.h)
	cudnnBatchNormSpatial int32 = 1

	// cudnnOpTensorOp_t (cudnn_ops.h)
	cudnnOpTensorAdd int32 = 0
)

// OpKind is the cuDNN routine family an OpProblem runs.
type OpKind string

// The families of cuDNN's legacy operations API the backend runs.
const (
	Pooling    OpKind = "pooling"    // cudnnPoolingForward / Backward
	Activation OpKind = "activation" // cudnnActivationForward / Backward
	Softmax    OpKind = "softmax"    // cudnnSoftmaxForward / Backward
	BatchNorm  OpKind = "batchnorm"  // cudnnBatchNormalizationForwardTraining / Backward
	Add        OpKind = "add"        // cudnnOpTensor (ADD), then cudnnAddTensor per further input
	// The kinds wb runs with its own kernels (kernels.cu), compiled by NVRTC.
	Dropout     OpKind = "dropout"     // wb_dropout_fwd/bwd_<type>: PyTorch's native dropout (cuDNN's has no bfloat16)
	Elementwise OpKind = "elementwise" // gelu, leakyrelu: wb_<fn>_fwd/bwd_<type>
	LayerNorm   OpKind = "layernorm"   // wb_layernorm_fwd/bwd/bwd_params_<type>
	Embedding   OpKind = "embedding"   // wb_embedding_fwd/bwd_<type>: a gather, a scatter-add
	Update      OpKind = "update"      // SGD with momentum on fp32 master weights, as torch.optim.SGD steps (UpdateMode)
	Concat      OpKind = "concat"      // wb_copy2d_<type> per input: torch.cat and its slices
	Select      OpKind = "select"      // wb_copy2d_<type>: one token's row, and its gradient into zeros
	Resize      OpKind = "resize"      // wb_resize_fwd/bwd_<type>: nearest up-sampling, zero padding
)

// NVRTC says whether wb runs the kind with its own kernels (kernels.cu,
// compiled by NVRTC), launched as OpProblem.Launches lists.
func (k OpKind) NVRTC() bool {
	switch k {
	case Elementwise, LayerNorm, Embedding, Update, Dropout, Concat, Select, Resize:
		return true
	}
	return false
}

// Layer normalisation's ε, PyTorch's nn.LayerNorm default.
const lnEpsilon = 1e-5

// SGD's constants of the update pass (their values do not change the
// work): PyTorch's usual ImageNet recipe.
const (
	sgdMomentum = 0.9
	sgdLR       = 0.1
)

// DropoutProbability is the probability a dropout layer runs with: dnn
// does not keep it, as the work does not depend on it; 0.1 is BERT's
// and GPT-2's.
const DropoutProbability = 0.1

// Batch normalisation's constants, PyTorch's nn.BatchNorm2d defaults.
const (
	bnEpsilon  = 1e-5
	bnMomentum = 0.1 // cuDNN's exponentialAverageFactor
)

// OpProblem is a layer of one of the OpKinds as cuDNN's legacy
// operations API takes it: fully packed NCHW tensors in one precision.
type OpProblem struct {
	Op   dnn.Op // the dnn op: maxpool, relu, softmax, ...
	Kind OpKind
	// X and Y are the input's and output's NCHW dimensions (Y is X but
	// for pooling). A layer's per-sample shape [C], [C, H] or [C, H, W]
	// becomes [N, C, 1, 1], [N, C, H, 1], [N, C, H, W]; softmax's
	// [..., T] becomes [rows, T, 1, 1] (a softmax over C per row).
	X, Y [4]int32
	// Inputs is the number of summed tensors of an add (each of X's
	// dimensions).
	Inputs   int
	DataType int32 // cudnnDataType_t of the tensors

	// Pooling: cudnnSetPooling2dDescriptor's arguments.
	PoolMode                 int32
	WinH, WinW, PadH, PadW   int
	StrideH, StrideW         int
	ActMode                  int32   // activation: cudnnActivationMode_t
	SwishBeta                float64 // activation: SWISH's β (silu: 1)
	SoftmaxAlgo, SoftmaxMode int32   // softmax
	BNMode                   int32   // batchnorm: cudnnBatchNormMode_t
	ParamElems               int64   // batchnorm: values of each parameter and statistic (C)
	Epsilon, Momentum        float64 // batchnorm
	Probability              float32 // dropout: the probability a value is zeroed
	Fn                       dnn.Op  // elementwise: the activation (gelu, leakyrelu)
	Rows                     int64   // layernorm: rows normalised (the batch times the leading dimensions); embedding: tokens looked up
	Width                    int     // layernorm: values per row (the last dimension); embedding: the table's dimension
	Vocab                    int     // embedding: the table's rows
	// Frozen: an embedding whose table has no gradient (dnn's frozen
	// attribute: sinusoidal positions); its backward-weights pass does
	// nothing.
	Frozen bool
	// NoRunningStats: instance norm, PyTorch's InstanceNorm2d default
	// (track_running_stats=False): no running mean and variance are
	// updated (cuDNN is given NULL for both).
	NoRunningStats bool
	UpdateMode     UpdateMode // update: which torch.optim.SGD implementation runs
	// Parts are a concatenation's inputs' values per sample, in order.
	Parts []int64
	// Factor, Top and Left: up-sampling's factor (1 for padding) and
	// padding's rows above and columns to the left (0 for up-sampling).
	Factor, Top, Left int
	// Note says what of the layer the routine leaves out ("the fused
	// attention scale and causal mask are not run"), or "".
	Note string
	// PyTorchNative says why PyTorch runs its own kernels for the layer
	// where wb runs cuDNN's (a batch norm's or instance norm's reasons,
	// pyTorchNativeBN; pooling, activations and softmax always,
	// pyTorchNativeOther), or "" where PyTorch runs cuDNN's too.
	PyTorchNative string
}

// opActivations maps dnn's activation names to cuDNN's modes; gelu and
// leakyrelu have none in the legacy API.
var opActivations = map[dnn.Op]int32{
	dnn.OpReLU:    cudnnActivationRelu,
	dnn.OpSigmoid: cudnnActivationSigmoid,
	dnn.OpTanh:    cudnnActivationTanh,
	dnn.OpSiLU:    cudnnActivationSwish, // x·sigmoid(βx) with β = 1
}

// OpFor reads a pooling, activation, softmax, batchnorm, instancenorm,
// dropout, add, embedding, gelu, leakyrelu or layernorm layer's
// description for a batch and precision. Ops the backend has no kernel
// for (concat, lrn, normalize, upsample, ...) give an error wrapping
// [profiler.ErrUnsupported]. Precisions: fp32 and tf32 are
// CUDNN_DATA_FLOAT (TF32 changes nothing here), fp16 HALF, bf16
// BFLOAT16; batch-norm parameters and statistics are FLOAT whatever the
// data (cudnnDeriveBNTensorDescriptor's rule).
//
// instancenorm (no affine parameters, PyTorch's InstanceNorm2d default)
// is batch normalisation over [1, N·C, H, W], as PyTorch's
// F.instance_norm reshapes it for batch_norm: per (sample, channel)
// statistics, cuDNN's spatial batch norm with N·C channels, a scale and
// a shift standing for the absent affine parameters (filled as every
// buffer is: their values do not change the work), no running statistics.
func OpFor(d dnn.Desc, batch int, prec dnn.Precision) (OpProblem, error) {
	if batch < 1 {
		return OpProblem{}, fmt.Errorf("%s: batch %d, want at least 1", d.Op, batch)
	}
	var dt int32
	switch prec {
	case dnn.FP32, dnn.TF32:
		dt = cudnnDataFloat
	case dnn.FP16:
		dt = cudnnDataHalf
	case dnn.BF16:
		dt = cudnnDataBFloat16
	default:
		return OpProblem{}, fmt.Errorf("unknown precision %q", prec)
	}
	p := OpProblem{Op: d.Op, DataType: dt, Inputs: 1}
	var err error
	switch d.Op {
	case dnn.OpMaxPool, dnn.OpAvgPool, dnn.OpGlobalAvgPool:
		err = p.pool(d, batch)
		p.PyTorchNative = pyTorchNativeOther(d.Op)
	case dnn.OpReLU, dnn.OpSigmoid, dnn.OpTanh, dnn.OpSiLU:
		p.Kind, p.ActMode = Activation, opActivations[d.Op]
		if d.Op == dnn.OpSiLU {
			p.SwishBeta = 1
		}
		p.X, err = nchw(d.Op, batch, oneInput(d))
		p.Y = p.X
		p.PyTorchNative = pyTorchNativeOther(d.Op)
	case dnn.OpSoftmax:
		err = p.softmax(d, batch)
		p.PyTorchNative = pyTorchNativeOther(d.Op)
	case dnn.OpBatchNorm:
		p.Kind, p.BNMode, p.Epsilon, p.Momentum = BatchNorm, cudnnBatchNormSpatial, bnEpsilon, bnMomentum
		p.X, err = nchw(d.Op, batch, oneInput(d))
		p.Y, p.ParamElems = p.X, int64(p.X[1])
		p.PyTorchNative = pyTorchNativeBN(d.Op, 1+len(oneInput(d)), prec)
	case dnn.OpInstanceNorm:
		p.Kind, p.BNMode, p.Epsilon, p.Momentum, p.NoRunningStats = BatchNorm, cudnnBatchNormSpatial, bnEpsilon, bnMomentum, true
		var x [4]int32
		if x, err = nchw(d.Op, batch, oneInput(d)); err == nil {
			p.X, err = dims32(d.Op, [4]int64{1, int64(x[0]) * int64(x[1]), int64(x[2]), int64(x[3])})
		}
		p.Y, p.ParamElems = p.X, int64(p.X[1])
		p.Note = "instance norm as F.instance_norm runs it: batch norm over [1, N·C, H, W]"
		p.PyTorchNative = pyTorchNativeBN(d.Op, 4, prec)
	case dnn.OpEmbedding:
		err = p.embedding(d, batch)
		if prec == dnn.FP16 || prec == dnn.BF16 {
			// (a reviewer's reading; the 16-bit atomics that would match
			// the bytes contend where PyTorch's sort does not)
			p.PyTorchNative = "its backward zeroes an fp32 copy of the table's gradient, adds the rows into it and casts it to " + string(prec) +
				" (about 5× the table's 16-bit bytes), where PyTorch's embedding_dense_backward zeroes the " + string(prec) +
				" gradient and writes each id's rows summed in fp32 after sorting the ids: on a large table the backward weights' row is slower than PyTorch's"
		}
	case dnn.OpGELU, dnn.OpLeakyReLU:
		p.Kind, p.Fn = Elementwise, d.Op
		p.X, err = nchw(d.Op, batch, oneInput(d))
		p.Y = p.X
	case dnn.OpLayerNorm:
		err = p.layerNorm(d, batch)
	case dnn.OpDropout:
		p.Kind, p.Probability = Dropout, DropoutProbability
		p.X, err = nchw(d.Op, batch, oneInput(d))
		p.Y = p.X
	case dnn.OpConcat:
		err = p.concat(d, batch)
	case dnn.OpSelect:
		in := oneInput(d)
		if len(in) != 2 || !sameShape(d.Out, dnn.Shape{in[1]}) {
			return OpProblem{}, fmt.Errorf("select of %v → %v: want one [T, D] input and a [D] output", d.In, d.Out)
		}
		p.Kind, p.Rows, p.Width = Select, int64(in[0]), in[1]
		if p.X, err = dims32(d.Op, [4]int64{int64(batch), int64(in[0]) * int64(in[1]), 1, 1}); err == nil {
			p.Y, err = dims32(d.Op, [4]int64{int64(batch), int64(in[1]), 1, 1})
		}
	case dnn.OpUpsample, dnn.OpPad:
		err = p.resize(d, batch)
	case dnn.OpAdd:
		p.Kind, p.Inputs = Add, len(d.In)
		if len(d.In) < 2 {
			return OpProblem{}, fmt.Errorf("add of %d inputs, want at least 2", len(d.In))
		}
		for _, s := range d.In {
			if !sameShape(s, d.Out) {
				return OpProblem{}, fmt.Errorf("add: input %v, output %v: broadcasting is not run", s, d.Out)
			}
		}
		p.X, err = nchw(d.Op, batch, d.Out)
		p.Y = p.X
	default:
		return OpProblem{}, fmt.Errorf("%w: no CUDA kernel for op %q yet (cuDNN's legacy API has none; an NVRTC kernel is to do)", profiler.ErrUnsupported, d.Op)
	}
	if err != nil {
		return OpProblem{}, err
	}
	return p, nil
}

// pyTorchNativeBN says why PyTorch runs its own batch-norm kernels
// (native_batch_norm and its backward, Normalization.cuh) rather than
// cuDNN's for a batch norm (op batchnorm) or instance norm of an input of
// rank dimensions, the batch's included, in precision prec; "" where it
// runs cuDNN's, as wb does. PyTorch's _select_batch_norm_backend
// (aten/src/ATen/native/Normalization.cpp) takes cuDNN only for an input
// that is not bfloat16, and half only with fp32 weights, with the weight
// and the bias defined and three dimensions or more (and within cuDNN's
// batch and ε limits, which wb's layers are).
func pyTorchNativeBN(op dnn.Op, rank int, prec dnn.Precision) string {
	switch {
	case op == dnn.OpInstanceNorm:
		return "InstanceNorm2d without affine parameters passes no weight and bias"
	case rank < 3:
		return "its input has fewer than three dimensions"
	case prec == dnn.BF16:
		return "its input is bfloat16"
	case prec == dnn.FP16:
		return "a model cast to fp16 has fp16 weights (under autocast, fp32 weights, PyTorch runs cuDNN's)"
	}
	return ""
}

// pyTorchNativeOther says which of its own kernels PyTorch runs on CUDA
// for a pooling, activation or softmax layer, where wb runs cuDNN's
// routine: PyTorch never calls cuDNN for these (ATen's CUDA kernels:
// max_pool2d_with_indices_cuda, avg_pool2d_out_cuda, adaptive average
// pooling, TensorIterator's elementwise kernels, host_softmax's
// softmax_warp_forward and cunn_SoftMaxForward), so its time may differ
// (a reviewer's reading: the profile said so of batch norms alone).
func pyTorchNativeOther(op dnn.Op) string {
	switch op {
	case dnn.OpMaxPool:
		return "max_pool2d runs ATen's max_pool2d_with_indices kernels (its backward reads the indices, not x and y)"
	case dnn.OpAvgPool:
		return "avg_pool2d runs ATen's avg_pool2d kernels"
	case dnn.OpGlobalAvgPool:
		return "adaptive_avg_pool2d to 1×1 runs ATen's mean reduction"
	case dnn.OpReLU, dnn.OpSigmoid, dnn.OpTanh, dnn.OpSiLU:
		return "its activations are ATen's elementwise kernels"
	case dnn.OpSoftmax:
		return "softmax runs ATen's softmax kernels (softmax_warp_forward, cunn_SoftMaxForward)"
	}
	return ""
}

// PyTorchNotes say, for a profile of net in precision prec on this
// backend, which layers run a cuDNN routine where PyTorch runs its own
// kernels (OpProblem.PyTorchNative): one note per op and reason, naming
// the layers, for the profile's notes. Their rows time another routine
// than PyTorch's; cached rows are named too (the note reads the network,
// not the kernels prepared).
func PyTorchNotes(net *dnn.Network, prec dnn.Precision) []string {
	type group struct {
		op, why string
		layers  []string
	}
	var groups []*group
	for _, n := range net.Nodes {
		dl, ok := n.Layer.(dnn.Describer)
		if !ok || (n.Layer.Op() != dnn.OpBatchNorm && n.Layer.Op() != dnn.OpInstanceNorm && n.Layer.Op() != dnn.OpEmbedding && pyTorchNativeOther(n.Layer.Op()) == "") {
			continue
		}
		p, err := OpFor(dl.Describe(), 1, prec)
		if err != nil || p.PyTorchNative == "" {
			continue
		}
		i := slices.IndexFunc(groups, func(g *group) bool { return g.op == string(p.Op) && g.why == p.PyTorchNative })
		if i < 0 {
			groups = append(groups, &group{op: string(p.Op), why: p.PyTorchNative})
			i = len(groups) - 1
		}
		groups[i].layers = append(groups[i].layers, n.Name)
	}
	var notes []string
	for _, g := range groups {
		names := strings.Join(g.layers, ", ")
		if len(g.layers) > 4 {
			names = fmt.Sprintf("%s and %d more", strings.Join(g.layers[:3], ", "), len(g.layers)-3)
		}
		if g.op == string(dnn.OpEmbedding) {
			notes = append(notes, fmt.Sprintf("%s %s (%s): %s; these rows time another routine than PyTorch's", g.op, prec, names, g.why))
			continue
		}
		if g.op != string(dnn.OpBatchNorm) && g.op != string(dnn.OpInstanceNorm) {
			notes = append(notes, fmt.Sprintf("%s %s (%s): wb runs cuDNN's routine, PyTorch its own kernels: %s; these rows time another routine than PyTorch's",
				g.op, prec, names, g.why))
			continue
		}
		notes = append(notes, fmt.Sprintf("%s %s (%s): wb runs cuDNN's batch norm, PyTorch its own kernels (native_batch_norm: "+
			"its _select_batch_norm_backend takes cuDNN only for fp32, or fp16 input with fp32 weights, with a weight and a bias, "+
			"over three dimensions or more), as %s; these rows time another routine than PyTorch's",
			g.op, prec, names, g.why))
	}
	return notes
}

func oneInput(d dnn.Desc) dnn.Shape {
	if len(d.In) != 1 {
		return nil
	}
	return d.In[0]
}

func sameShape(a, b dnn.Shape) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// nchw makes a per-sample shape [C], [C, H], [C, H, W] (more dimensions
// fold into W) an NCHW tensor of batch samples. cuDNN's legacy API
// counts values in int, so a tensor must hold fewer than 2³¹.
func nchw(op dnn.Op, batch int, s dnn.Shape) ([4]int32, error) {
	if len(s) == 0 {
		return [4]int32{}, fmt.Errorf("%s: want one input of at least one dimension, got %v", op, s)
	}
	d := [4]int64{int64(batch), 1, 1, 1}
	for i, v := range s {
		if v < 1 {
			return [4]int32{}, fmt.Errorf("%s: shape %v", op, s)
		}
		d[min(i+1, 3)] *= int64(v)
	}
	return dims32(op, d)
}

func dims32(op dnn.Op, d [4]int64) ([4]int32, error) {
	n := d[0] * d[1] * d[2] * d[3]
	if n > math.MaxInt32 {
		return [4]int32{}, fmt.Errorf("%w: %s: %d values in one tensor, more than cuDNN's int counts", profiler.ErrUnsupported, op, n)
	}
	return [4]int32{int32(d[0]), int32(d[1]), int32(d[2]), int32(d[3])}, nil
}

// pool: maxpool is CUDNN_POOLING_MAX; avgpool
// AVERAGE_COUNT_INCLUDE_PADDING (PyTorch's nn.AvgPool2d default,
// count_include_pad=True); globalavgpool an average over the whole
// plane, [C, H, W] → [N, C, 1, 1]. The output size is cuDNN's
// (cudnnGetPooling2dForwardOutputDim: 1 + (in + 2·pad − window) /
// stride, rounded down) and must be the description's.
func (p *OpProblem) pool(d dnn.Desc, batch int) error {
	in := oneInput(d)
	if len(in) != 3 {
		return fmt.Errorf("%s wants one [C, H, W] input, got %v", d.Op, d.In)
	}
	v, err := attrs(d, dnn.AttrK, dnn.AttrStride, dnn.AttrPad)
	if err != nil {
		return err
	}
	p.Kind = Pooling
	p.WinH, p.WinW, p.StrideH, p.StrideW, p.PadH, p.PadW = v[0], v[0], v[1], v[1], v[2], v[2]
	switch d.Op {
	case dnn.OpMaxPool:
		p.PoolMode = cudnnPoolingMax
	case dnn.OpAvgPool:
		p.PoolMode = cudnnPoolingAverageCountIncludePadding
	case dnn.OpGlobalAvgPool:
		p.PoolMode = cudnnPoolingAverageCountIncludePadding
		p.WinH, p.WinW, p.StrideH, p.StrideW, p.PadH, p.PadW = in[1], in[2], 1, 1, 0, 0
	}
	if p.WinH < 1 || p.WinW < 1 || p.StrideH < 1 || p.StrideW < 1 || p.PadH < 0 || p.PadW < 0 || p.PadH >= p.WinH || p.PadW >= p.WinW {
		return fmt.Errorf("%s: window %d×%d, stride %d×%d, pad %d×%d", d.Op, p.WinH, p.WinW, p.StrideH, p.StrideW, p.PadH, p.PadW)
	}
	if p.X, err = nchw(d.Op, batch, in); err != nil {
		return err
	}
	ph := poolOut(in[1], p.WinH, p.PadH, p.StrideH)
	pw := poolOut(in[2], p.WinW, p.PadW, p.StrideW)
	want := dnn.Shape{in[0], ph, pw}
	if d.Op == dnn.OpGlobalAvgPool {
		want = dnn.Shape{in[0]}
	}
	if ph < 1 || pw < 1 || !sameShape(want, d.Out) {
		return fmt.Errorf("%s: output %v computed from %v %v, described as %v", d.Op, want, in, d.Attr, d.Out)
	}
	p.Y, err = dims32(d.Op, [4]int64{int64(batch), int64(in[0]), int64(ph), int64(pw)})
	return err
}

// poolOut is cuDNN's pooled size of one side.
func poolOut(in, win, pad, stride int) int {
	return 1 + (in+2*pad-win)/stride
}

// softmax over the last dimension: [..., T] is rows × T values, an
// [rows, T, 1, 1] tensor with CUDNN_SOFTMAX_MODE_CHANNEL and
// CUDNN_SOFTMAX_ACCURATE (the row maximum subtracted, as PyTorch does).
// A softmax fused with the attention scale or a causal mask runs
// without them (Note says so).
func (p *OpProblem) softmax(d dnn.Desc, batch int) error {
	in := oneInput(d)
	if len(in) == 0 {
		return fmt.Errorf("softmax wants one input, got %v", d.In)
	}
	t := in[len(in)-1]
	rows := int64(batch) * in.Elems() / int64(t)
	var err error
	if p.X, err = dims32(d.Op, [4]int64{rows, int64(t), 1, 1}); err != nil {
		return err
	}
	p.Kind, p.Y, p.SoftmaxAlgo, p.SoftmaxMode = Softmax, p.X, cudnnSoftmaxAccurate, cudnnSoftmaxModeChannel
	switch {
	case d.Attr[dnn.AttrScaled] == 1 && d.Attr[dnn.AttrCausal] == 1:
		p.Note = "the fused attention scale and causal mask are not run"
	case d.Attr[dnn.AttrScaled] == 1:
		p.Note = "the fused attention scale is not run"
	case d.Attr[dnn.AttrCausal] == 1:
		p.Note = "the fused causal mask is not run"
	}
	return nil
}

// UpdateMode is the torch.optim.SGD implementation the update pass
// models (Options.Update). Both step SGD with momentum μ = 0.9, no
// dampening, weight decay or Nesterov, on fp32 master weights.
type UpdateMode string

// The update modes.
const (
	// UpdateForeach is torch.optim.SGD's default on CUDA since PyTorch
	// 2.0 (foreach=None resolves to the multi-tensor implementation,
	// _multi_tensor_sgd, for CUDA tensors): three multi-tensor-apply
	// kernels over the parameters, torch._foreach_mul_(bufs, μ),
	// torch._foreach_add_(bufs, grads) and torch._foreach_add_(params,
	// bufs, alpha=−lr), 5 reads and 3 writes per parameter. The default.
	UpdateForeach UpdateMode = "foreach"
	// UpdateFused is torch.optim.SGD(fused=True), torch._fused_sgd_: one
	// kernel, v ← μv + g, w ← w − lr·v, 3 reads and 2 writes per
	// parameter, as dnn counts the update.
	UpdateFused UpdateMode = "fused"
)

// ParseUpdateMode reads an update mode; "" is UpdateForeach.
func ParseUpdateMode(s string) (UpdateMode, error) {
	switch UpdateMode(s) {
	case "", UpdateForeach:
		return UpdateForeach, nil
	case UpdateFused:
		return UpdateFused, nil
	}
	return "", fmt.Errorf("unknown update mode %q (known: foreach, fused)", s)
}

// Describe is the framework behaviour the mode models, for the device's
// versions (DeviceInfo.Versions["update"]): the profile's metadata and
// cache key.
func (m UpdateMode) Describe() string {
	if m == UpdateFused {
		return "torch.optim.SGD(momentum=0.9, fused=True): torch._fused_sgd_, one kernel over fp32 master weights"
	}
	return "torch.optim.SGD(momentum=0.9) foreach (multi-tensor apply, PyTorch's CUDA default): _foreach_mul_, _foreach_add_ x2 over fp32 master weights"
}

// UpdateFor is the update pass of a layer with params parameters, as
// PyTorch's optimiser steps them (UpdateMode: foreach when mode is ""):
// SGD with momentum on fp32 master weights, whatever the precision of the
// passes, over the layer's g, v and w as one buffer each, wb's kernels
// (see Launches). Per layer, as wb measures, where PyTorch's
// multi-tensor apply spreads one launch over many layers' tensors.
func UpdateFor(params int64, mode UpdateMode) (OpProblem, error) {
	if params < 1 {
		return OpProblem{}, fmt.Errorf("update of %d parameters", params)
	}
	m, err := ParseUpdateMode(string(mode))
	if err != nil {
		return OpProblem{}, err
	}
	x, err := dims32("update", [4]int64{1, params, 1, 1})
	if err != nil {
		return OpProblem{}, err
	}
	return OpProblem{Op: "update", Kind: Update, X: x, Y: x, Inputs: 1, DataType: cudnnDataFloat,
		ParamElems: params, Momentum: sgdMomentum, Epsilon: 0, UpdateMode: m}, nil
}

// embedding: a [vocab, dim] table, T token ids per sample ([T] → [T,
// dim]). Forward gathers N = batch·T rows (PyTorch's embedding is an
// index_select); backward-weights is PyTorch's dense gradient
// (embedding_dense_backward): the whole table's gradient zeroed, then
// each token's gradient row added into its row, accumulated in float.
// The ids are int64, as PyTorch indexes, drawn once at preparation
// (wb_fill_ids: a hash of the position, uniform over the vocabulary).
func (p *OpProblem) embedding(d dnn.Desc, batch int) error {
	v, err := attrs(d, dnn.AttrVocab, dnn.AttrDim)
	if err != nil {
		return err
	}
	in := oneInput(d)
	vocab, dim := v[0], v[1]
	if len(in) != 1 || vocab < 1 || dim < 1 || !sameShape(d.Out, dnn.Shape{in[0], dim}) {
		return fmt.Errorf("embedding of %v → %v, vocabulary %d, dimension %d", d.In, d.Out, vocab, dim)
	}
	rows := int64(batch) * int64(in[0])
	if rows > math.MaxInt32 {
		return fmt.Errorf("%w: embedding of %d tokens", profiler.ErrUnsupported, rows)
	}
	p.Kind, p.Vocab, p.Width, p.Rows, p.Frozen = Embedding, vocab, dim, rows, d.Attr[dnn.AttrFrozen] == 1
	p.X = [4]int32{int32(rows), 1, 1, 1}
	p.Y = [4]int32{int32(rows), int32(dim), 1, 1}
	return nil
}

// TableElems is an embedding's table's values.
func (p OpProblem) TableElems() int64 { return int64(p.Vocab) * int64(p.Width) }

// layerNorm: normalisation over the last dimension of [..., D], rows of D
// values, with a scale and a shift of D values (in the data's
// precision, as a model cast to it has them) and per row the mean and
// 1/σ saved in float (what PyTorch's kernel saves for the backward pass).
func (p *OpProblem) layerNorm(d dnn.Desc, batch int) error {
	in := oneInput(d)
	if len(in) == 0 {
		return fmt.Errorf("layernorm wants one input, got %v", d.In)
	}
	width := in[len(in)-1]
	rows := int64(batch) * in.Elems() / int64(width)
	var err error
	if p.X, err = dims32(d.Op, [4]int64{rows, int64(width), 1, 1}); err != nil {
		return err
	}
	p.Kind, p.Y, p.Rows, p.Width, p.Epsilon = LayerNorm, p.X, rows, width, lnEpsilon
	return nil
}

// concat: inputs joined along their first dimension, each sample's inputs
// one after the other in the output (torch.cat along dim 1 of [N, ...]).
func (p *OpProblem) concat(d dnn.Desc, batch int) error {
	if len(d.In) < 2 {
		return fmt.Errorf("concat of %d inputs, want at least 2", len(d.In))
	}
	var total int64
	for _, s := range d.In {
		if len(s) == 0 || s.Elems() < 1 {
			return fmt.Errorf("concat input %v", s)
		}
		p.Parts = append(p.Parts, s.Elems())
		total += s.Elems()
	}
	if total != d.Out.Elems() {
		return fmt.Errorf("concat of %v into %v", d.In, d.Out)
	}
	p.Kind, p.Inputs = Concat, len(d.In)
	var err error
	if p.X, err = dims32(d.Op, [4]int64{int64(batch), total, 1, 1}); err != nil {
		return err
	}
	p.Y = p.X
	return nil
}

// resize: nearest up-sampling by f, or zero padding, of [C, H, W] (the
// sides from dnn's attributes), checked against the described output.
func (p *OpProblem) resize(d dnn.Desc, batch int) error {
	in := oneInput(d)
	if len(in) != 3 || len(d.Out) != 3 || d.Out[0] != in[0] {
		return fmt.Errorf("%s of %v → %v: want a [C, H, W] input and output", d.Op, d.In, d.Out)
	}
	p.Kind, p.Factor = Resize, 1
	if d.Op == dnn.OpUpsample {
		v, err := attrs(d, dnn.AttrF)
		if err != nil {
			return err
		}
		p.Factor = v[0]
		if p.Factor < 1 || d.Out[1] != in[1]*p.Factor || d.Out[2] != in[2]*p.Factor {
			return fmt.Errorf("upsample of %v by %d into %v", in, p.Factor, d.Out)
		}
	} else {
		v, err := attrs(d, dnn.AttrLeft, dnn.AttrRight, dnn.AttrTop, dnn.AttrBottom)
		if err != nil {
			return err
		}
		p.Left, p.Top = v[0], v[2]
		if min(v[0], v[1], v[2], v[3]) < 0 || d.Out[1] != in[1]+v[2]+v[3] || d.Out[2] != in[2]+v[0]+v[1] {
			return fmt.Errorf("pad of %v by %v into %v", in, d.Attr, d.Out)
		}
	}
	var err error
	if p.X, err = dims32(d.Op, [4]int64{int64(batch), int64(in[0]), int64(in[1]), int64(in[2])}); err != nil {
		return err
	}
	p.Y, err = dims32(d.Op, [4]int64{int64(batch), int64(d.Out[0]), int64(d.Out[1]), int64(d.Out[2])})
	return err
}

// XElems and YElems are the values of the input and the output.
func (p OpProblem) XElems() int64 { return prod(p.X) }

// YElems are the values of the output.
func (p OpProblem) YElems() int64 { return prod(p.Y) }

// ParamDims are the NCHW dimensions of batch-norm's parameters and
// statistics, [1, C, 1, 1] (what cudnnDeriveBNTensorDescriptor gives in
// spatial mode).
func (p OpProblem) ParamDims() [4]int32 { return [4]int32{1, p.X[1], 1, 1} }

// OpBuffer is one device buffer of an op's pass.
type OpBuffer struct {
	Name  string
	Elems int64
	// Param buffers hold fp32 values whatever the precision (batch-norm's
	// scale, bias and statistics).
	Param bool
	// Index buffers hold int64 values (an embedding's token ids), set by
	// a kernel at preparation (PrepLaunches), not filled as values are.
	Index bool
	// Mask buffers hold a byte per value (dropout's mask, PyTorch's bool
	// tensor), written by the kernels, not filled as values are.
	Mask bool
}

// Size is the bytes of one of the buffer's values in precision prec.
func (b OpBuffer) Size(prec dnn.Precision) int64 {
	switch {
	case b.Index:
		return 8
	case b.Mask:
		return 1
	case b.Param:
		return 4
	}
	return int64(prec.Size())
}

// Buffers lists the device buffers one pass of p reads and writes, in
// the order they are allocated:
//
//   - pooling fwd: x, y; bwd-data: y, dy, x, dx (cudnnPoolingBackward
//     reads the forward's input and output to route max gradients);
//   - activation fwd: x, y; bwd-data: y, dy, x, dx;
//   - softmax fwd: x, y; bwd-data: y, dy, dx;
//   - batchnorm fwd: x, y and the parameters scale, bias, running_mean,
//     running_var, save_mean, save_inv_var; bwd-data: x, dy, dx, scale,
//     dscale, dbias, save_mean, save_inv_var (the parameters' gradients
//     come with the input's, as dnn folds them into bwd-data), and bias,
//     running_mean, running_var for the one forward run, at preparation,
//     that saves the statistics the backward runs read; instancenorm the
//     same without running_mean and running_var;
//   - embedding fwd: ids (int64), table, y; bwd-weights: ids, dy, dtable,
//     and for fp16 and bf16 dtable_acc, the fp32 accumulator the rows are
//     added into before dtable is written in the precision (fp32 tables
//     accumulate in place);
//   - add fwd: in0 … in(n-1), y;
//   - update: g, v, w (fp32, whatever the precision);
//   - gelu, leakyrelu (NVRTC) fwd: x, y; bwd-data: dy, x, dx;
//   - layernorm (NVRTC) fwd: x, gamma, beta, y, and mean and rstd per
//     row in fp32; bwd-data: dy, x, gamma, mean, rstd, dx, and dgamma and
//     dbeta in fp32 (the parameters' gradients, accumulated in float);
//   - dropout (NVRTC) fwd: x, y, mask (a byte per value); bwd-data: dy,
//     mask, dx (the mask written by one forward run, dy into dx, at
//     preparation).
//
// Other passes have none (dnn gives them no work).
func (p OpProblem) Buffers(pass dnn.Pass) []OpBuffer {
	x, y, c := p.XElems(), p.YElems(), p.ParamElems
	param := func(name string) OpBuffer { return OpBuffer{Name: name, Elems: c, Param: true} }
	param2 := func(name string, n int64) OpBuffer { return OpBuffer{Name: name, Elems: n, Param: true} }
	stats := func(bs ...OpBuffer) []OpBuffer {
		if p.NoRunningStats {
			return bs
		}
		return append(bs, param("running_mean"), param("running_var"))
	}
	switch {
	case p.Kind == Update:
		if pass != dnn.Update {
			return nil
		}
		return []OpBuffer{param("g"), param("v"), param("w")}
	case p.Kind == Embedding:
		ids, table, rows := OpBuffer{Name: "ids", Elems: p.Rows, Index: true}, p.TableElems(), y
		switch {
		case pass == dnn.Forward:
			return []OpBuffer{ids, {Name: "table", Elems: table}, {Name: "y", Elems: rows}}
		case pass == dnn.BackwardWeights && !p.Frozen:
			bs := []OpBuffer{ids, {Name: "dy", Elems: rows}, {Name: "dtable", Elems: table}}
			if p.DataType != cudnnDataFloat {
				bs = append(bs, OpBuffer{Name: "dtable_acc", Elems: table, Param: true})
			}
			return bs
		}
		return nil
	case pass == dnn.Forward && p.Kind == Add:
		var bs []OpBuffer
		for i := range p.Inputs {
			bs = append(bs, OpBuffer{Name: fmt.Sprintf("in%d", i), Elems: x})
		}
		return append(bs, OpBuffer{Name: "y", Elems: y})
	case pass == dnn.Forward && p.Kind == LayerNorm:
		w, r := int64(p.Width), p.Rows
		return []OpBuffer{{Name: "x", Elems: x}, {Name: "gamma", Elems: w}, {Name: "beta", Elems: w}, {Name: "y", Elems: y},
			param2("mean", r), param2("rstd", r)}
	case pass == dnn.BackwardData && p.Kind == LayerNorm:
		w, r := int64(p.Width), p.Rows
		return []OpBuffer{{Name: "dy", Elems: y}, {Name: "x", Elems: x}, {Name: "gamma", Elems: w}, param2("mean", r),
			param2("rstd", r), {Name: "dx", Elems: x}, param2("dgamma", w), param2("dbeta", w)}
	case pass == dnn.BackwardData && p.Kind == Elementwise:
		return []OpBuffer{{Name: "dy", Elems: y}, {Name: "x", Elems: x}, {Name: "dx", Elems: x}}
	case p.Kind == Concat && (pass == dnn.Forward || pass == dnn.BackwardData):
		n := int64(p.X[0])
		var bs []OpBuffer
		if pass == dnn.BackwardData {
			bs = append(bs, OpBuffer{Name: "dy", Elems: y})
		}
		for i, part := range p.Parts {
			name := fmt.Sprintf("in%d", i)
			if pass == dnn.BackwardData {
				name = fmt.Sprintf("dx%d", i)
			}
			bs = append(bs, OpBuffer{Name: name, Elems: n * part})
		}
		if pass == dnn.Forward {
			bs = append(bs, OpBuffer{Name: "y", Elems: y})
		}
		return bs
	case (p.Kind == Select || p.Kind == Resize) && pass == dnn.BackwardData:
		return []OpBuffer{{Name: "dy", Elems: y}, {Name: "dx", Elems: x}}
	case p.Kind == Dropout && pass == dnn.Forward:
		return []OpBuffer{{Name: "x", Elems: x}, {Name: "y", Elems: y}, {Name: "mask", Elems: x, Mask: true}}
	case p.Kind == Dropout && pass == dnn.BackwardData:
		return []OpBuffer{{Name: "dy", Elems: y}, {Name: "mask", Elems: x, Mask: true}, {Name: "dx", Elems: x}}
	case pass == dnn.Forward && p.Kind == BatchNorm:
		return append(stats(OpBuffer{Name: "x", Elems: x}, OpBuffer{Name: "y", Elems: y}, param("scale"), param("bias")),
			param("save_mean"), param("save_inv_var"))
	case pass == dnn.Forward:
		return []OpBuffer{{Name: "x", Elems: x}, {Name: "y", Elems: y}}
	case pass != dnn.BackwardData:
		return nil
	case p.Kind == Pooling || p.Kind == Activation:
		return []OpBuffer{{Name: "y", Elems: y}, {Name: "dy", Elems: y}, {Name: "x", Elems: x}, {Name: "dx", Elems: x}}
	case p.Kind == Softmax:
		return []OpBuffer{{Name: "y", Elems: y}, {Name: "dy", Elems: y}, {Name: "dx", Elems: x}}
	case p.Kind == BatchNorm:
		return stats(OpBuffer{Name: "x", Elems: x}, OpBuffer{Name: "dy", Elems: y}, OpBuffer{Name: "dx", Elems: x}, param("scale"),
			param("dscale"), param("dbias"), param("save_mean"), param("save_inv_var"), param("bias"))
	}
	return nil
}

// allocBuffers plans, allocates and fills (mem.fill, on the stream) the
// buffers of p's pass: parameters in fp32 (master weights), the rest in
// prec; index buffers are left to the pass's PrepLaunches. It returns
// each buffer's device address and size in bytes by name.
func (k *kernel) allocBuffers(p OpProblem, pass dnn.Pass, prec dnn.Precision) (ptr map[string]uint64, bytes map[string]int64, err error) {
	if _, err := k.mem.plan(p.Bytes(pass, prec)); err != nil {
		return nil, nil, err
	}
	ptr, bytes = map[string]uint64{}, map[string]int64{}
	for _, buf := range p.Buffers(pass) {
		size, fillPrec := buf.Size(prec), prec
		if buf.Param {
			fillPrec = dnn.FP32
		}
		q, err := k.mem.alloc(buf.Name, buf.Elems*size)
		if err != nil {
			return nil, nil, err
		}
		if !buf.Index && !buf.Mask {
			if err := k.mem.fill(q, buf.Elems, fillPrec); err != nil {
				return nil, nil, err
			}
		}
		ptr[buf.Name], bytes[buf.Name] = q, buf.Elems*size
	}
	return ptr, bytes, nil
}

// Bytes is the device memory of Buffers(pass) in precision prec.
func (p OpProblem) Bytes(pass dnn.Pass, prec dnn.Precision) int64 {
	var n int64
	for _, b := range p.Buffers(pass) {
		n += b.Elems * b.Size(prec)
	}
	return n
}

// launchNames lists the kernels of launches, in order: "wb_a + wb_b".
func launchNames(ls []Launch) string {
	var names []string
	for _, l := range ls {
		names = append(names, l.Kernel)
	}
	return strings.Join(names, " + ")
}

// Routine names the cuDNN functions one pass runs, for the kernel's
// description and the profile's algo column.
func (p OpProblem) Routine(pass dnn.Pass) string {
	fwd := pass == dnn.Forward
	switch p.Kind {
	case Pooling:
		mode := "MAX"
		if p.PoolMode != cudnnPoolingMax {
			mode = "AVERAGE_COUNT_INCLUDE_PADDING"
		}
		if fwd {
			return "cudnnPoolingForward " + mode
		}
		return "cudnnPoolingBackward " + mode
	case Activation:
		mode := map[int32]string{cudnnActivationRelu: "RELU", cudnnActivationSigmoid: "SIGMOID", cudnnActivationTanh: "TANH", cudnnActivationSwish: "SWISH"}[p.ActMode]
		if fwd {
			return "cudnnActivationForward " + mode
		}
		return "cudnnActivationBackward " + mode
	case Softmax:
		if fwd {
			return "cudnnSoftmaxForward ACCURATE CHANNEL"
		}
		return "cudnnSoftmaxBackward ACCURATE CHANNEL"
	case BatchNorm:
		over := ""
		if p.Op == "instancenorm" {
			over = " over [1, N·C, H, W] (instance norm)"
		}
		if fwd {
			return "cudnnBatchNormalizationForwardTraining SPATIAL" + over
		}
		return "cudnnBatchNormalizationBackward SPATIAL" + over
	case Elementwise, LayerNorm, Embedding, Concat, Select, Resize:
		return "NVRTC " + launchNames(p.Launches(pass))
	case Dropout:
		return fmt.Sprintf("NVRTC %s p=%g", launchNames(p.Launches(pass)), p.Probability)
	case Update:
		return "NVRTC " + launchNames(p.Launches(pass)) + " (torch.optim.SGD " + string(p.UpdateMode) + ")"
	case Add:
		if p.Inputs > 2 {
			return fmt.Sprintf("cudnnOpTensor ADD + %d cudnnAddTensor", p.Inputs-2)
		}
		return "cudnnOpTensor ADD"
	}
	return string(p.Kind)
}
