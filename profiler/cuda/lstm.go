package cuda

import (
	"fmt"
	"math"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/profiler"
)

// Enum values of cuDNN 9's RNN API (cudnn_adv.h of cuDNN 9.6), pinned by
// TestEnumValues.
const (
	cudnnRNNAlgoStandard         int32  = 0 // cudnnRNNAlgo_t CUDNN_RNN_ALGO_STANDARD
	cudnnLSTM                    int32  = 2 // cudnnRNNMode_t CUDNN_LSTM
	cudnnRNNDoubleBias           int32  = 2 // cudnnRNNBiasMode_t CUDNN_RNN_DOUBLE_BIAS
	cudnnUnidirectional          int32  = 0 // cudnnDirectionMode_t CUDNN_UNIDIRECTIONAL
	cudnnLinearInput             int32  = 0 // cudnnRNNInputMode_t CUDNN_LINEAR_INPUT
	cudnnFwdModeTraining         int32  = 1 // cudnnForwardMode_t CUDNN_FWD_MODE_TRAINING
	cudnnRNNDataSeqMajorUnpacked int32  = 0 // cudnnRNNDataLayout_t CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED
	cudnnRNNPaddedIOEnabled      uint32 = 1 // CUDNN_RNN_PADDED_IO_ENABLED, (1U << 0), for auxFlags
	cudnnWgradModeAdd            int32  = 0 // cudnnWgradMode_t CUDNN_WGRAD_MODE_ADD
)

// LSTMProblem is a stack of LSTM layers as cuDNN's RNN API runs it, the
// way PyTorch's nn.LSTM runs on CUDA (aten/src/ATen/native/cudnn/RNN.cpp,
// through cudnnRNNForward, cudnnRNNBackwardData_v8 and
// cudnnRNNBackwardWeights_v8): unidirectional, PyTorch's two bias vectors
// per layer (CUDNN_RNN_DOUBLE_BIAS) and gate order, time-major [T, N, ·]
// sequences of full length, zero dropout between layers (dnn counts
// none).
//
// cuDNN rather than per-step GEMMs with a gate kernel (PyTorch's path
// without cuDNN): it is what PyTorch runs for fp32 and fp16, and cuDNN
// decides the cell's fusion and the GEMMs' batching over steps and
// layers, which a per-step loop would have to reproduce to measure the
// same thing.
type LSTMProblem struct {
	T, N          int // steps, batch
	Input, Hidden int // D (the first layer's input), H
	Layers        int
	// DataType is the tensors' and weights' cudnnDataType_t; MathPrec
	// the compute precision (FLOAT for half, as PyTorch's
	// promote_rnn_math_type makes it); MathType the cudnnMathType_t
	// (convTypes': FMA for fp32, DEFAULT for tf32, TENSOR_OP for fp16 and
	// bf16, PyTorch's choice for half and for float without TF32).
	DataType, MathPrec, MathType int32
}

// LSTMFor reads an lstm layer's description ([T, D] → [T, hidden],
// attributes hidden and layers) for a batch and precision.
func LSTMFor(d dnn.Desc, batch int, prec dnn.Precision) (LSTMProblem, error) {
	if d.Op != dnn.OpLSTM {
		return LSTMProblem{}, fmt.Errorf("lstm: op %q is not lstm", d.Op)
	}
	v, err := attrs(d, dnn.AttrHidden, dnn.AttrLayers)
	if err != nil {
		return LSTMProblem{}, err
	}
	in := oneInput(d)
	if batch < 1 || len(in) != 2 || v[0] < 1 || v[1] < 1 || !sameShape(d.Out, dnn.Shape{in[0], v[0]}) {
		return LSTMProblem{}, fmt.Errorf("lstm of %v → %v, hidden %d, layers %d at batch %d", d.In, d.Out, v[0], v[1], batch)
	}
	p := LSTMProblem{T: in[0], N: batch, Input: in[1], Hidden: v[0], Layers: v[1], MathPrec: cudnnDataFloat}
	if p.DataType, _, p.MathType, err = convTypes(prec); err != nil {
		return LSTMProblem{}, err
	}
	for _, n := range []int64{int64(p.T) * int64(p.N) * int64(max(p.Input, p.Hidden)), int64(p.Layers) * int64(p.N) * int64(p.Hidden)} {
		if n > math.MaxInt32 {
			return LSTMProblem{}, fmt.Errorf("%w: lstm: %d values in one tensor, more than cuDNN's int counts", profiler.ErrUnsupported, n)
		}
	}
	return p, nil
}

// RNNDesc is cudnnSetRNNDescriptor_v8's arguments but the descriptors.
type RNNDesc struct {
	Algo, CellMode, BiasMode, DirMode, InputMode int32
	DataType, MathPrec, MathType                 int32
	InputSize, HiddenSize, ProjSize, NumLayers   int32
	AuxFlags                                     uint32
}

// RNNDesc is the RNN descriptor PyTorch sets for nn.LSTM (Descriptors.h,
// RNNDescriptor::set with the v8 API): CUDNN_RNN_ALGO_STANDARD,
// CUDNN_LSTM, CUDNN_RNN_DOUBLE_BIAS, unidirectional, CUDNN_LINEAR_INPUT,
// no projection (projSize = hiddenSize), and CUDNN_RNN_PADDED_IO_ENABLED,
// PyTorch's flag for input that is not a PackedSequence.
func (p LSTMProblem) RNNDesc() RNNDesc {
	return RNNDesc{Algo: cudnnRNNAlgoStandard, CellMode: cudnnLSTM, BiasMode: cudnnRNNDoubleBias, DirMode: cudnnUnidirectional,
		InputMode: cudnnLinearInput, DataType: p.DataType, MathPrec: p.MathPrec, MathType: p.MathType,
		InputSize: int32(p.Input), HiddenSize: int32(p.Hidden), ProjSize: int32(p.Hidden), NumLayers: int32(p.Layers),
		AuxFlags: cudnnRNNPaddedIOEnabled}
}

// SeqLengths is cudnnSetRNNDataDescriptor's seqLengthArray, and the
// devSeqLengths the calls read from device memory: every sequence T long.
func (p LSTMProblem) SeqLengths() []int32 {
	s := make([]int32, p.N)
	for i := range s {
		s[i] = int32(p.T)
	}
	return s
}

// StateDims and StateStrides are the hidden and cell states' tensor
// descriptors (hDesc, cDesc): [layers, N, H], packed.
func (p LSTMProblem) StateDims() [3]int32 {
	return [3]int32{int32(p.Layers), int32(p.N), int32(p.Hidden)}
}

// StateStrides are the states' packed strides.
func (p LSTMProblem) StateStrides() [3]int32 {
	return [3]int32{int32(p.N * p.Hidden), int32(p.Hidden), 1}
}

// Buffers lists the data buffers of one pass in the order they are
// allocated, in the pass's precision; cuDNN sizes the weight space, the
// workspace and the reserve space on top (cudnnGetRNNWeightSpaceSize,
// cudnnGetRNNTempSpaceSizes), and devSeqLengths is N int32 values.
//
//   - fwd: x [T, N, D], y [T, N, H], the initial states hx, cx and the
//     final ones hy, cy [layers, N, H];
//   - bwd-data: those, for the one forward run at preparation whose
//     reserve space the backward runs read, and dy, dx, dhy, dcy, dhx,
//     dcx;
//   - bwd-weights: the same, for the forward and backward-data runs at
//     preparation whose reserve space cudnnRNNBackwardWeights_v8 reads
//     (cuDNN requires it to follow cudnnRNNBackwardData_v8), and the
//     weights' gradient (dweights, the size of the weight space).
func (p LSTMProblem) Buffers(pass dnn.Pass) []OpBuffer {
	x := int64(p.T) * int64(p.N) * int64(p.Input)
	y := int64(p.T) * int64(p.N) * int64(p.Hidden)
	s := int64(p.Layers) * int64(p.N) * int64(p.Hidden)
	fwd := []OpBuffer{{Name: "x", Elems: x}, {Name: "y", Elems: y}, {Name: "hx", Elems: s}, {Name: "cx", Elems: s},
		{Name: "hy", Elems: s}, {Name: "cy", Elems: s}}
	switch pass {
	case dnn.Forward:
		return fwd
	case dnn.BackwardData, dnn.BackwardWeights:
		return append(fwd, OpBuffer{Name: "dy", Elems: y}, OpBuffer{Name: "dx", Elems: x}, OpBuffer{Name: "dhy", Elems: s},
			OpBuffer{Name: "dcy", Elems: s}, OpBuffer{Name: "dhx", Elems: s}, OpBuffer{Name: "dcx", Elems: s})
	}
	return nil
}

// Routine names the cuDNN call one pass times, for the algo column.
func (p LSTMProblem) Routine(pass dnn.Pass) string {
	switch pass {
	case dnn.Forward:
		return "cudnnRNNForward LSTM TRAINING"
	case dnn.BackwardData:
		return "cudnnRNNBackwardData_v8 LSTM"
	case dnn.BackwardWeights:
		return "cudnnRNNBackwardWeights_v8 LSTM (WGRAD_MODE_ADD into zeroed dw)"
	}
	return "lstm"
}

// prepLSTM sets up one pass of an LSTM with cuDNN's RNN API: the
// descriptors, buffers filled on the stream (mem.fill), the forward (and
// backward-data) runs at preparation that fill the reserve space a
// backward pass reads, and the run. Like PyTorch's backward for the
// weights, each run zeroes dw and adds the gradient into it
// (CUDNN_WGRAD_MODE_ADD): PyTorch allocates dw with at::zeros.
func (b *Backend) prepLSTM(name string, p LSTMProblem, pass dnn.Pass, prec dnn.Precision) (*kernel, error) {
	if pass != dnn.Forward && pass != dnn.BackwardData && pass != dnn.BackwardWeights {
		return nil, fmt.Errorf("lstm has no %s pass to run", pass)
	}
	leave, err := b.enter()
	if err != nil {
		return nil, err
	}
	defer leave()
	api, adv, h := b.dnn, b.adv, b.dnnH
	k := b.newKernel(name)
	k.algo = p.Routine(pass)
	k.choice = "cuDNN " + k.algo

	// A dropout descriptor of probability 0 and no RNG states, as
	// PyTorch's DropoutDescriptor::set_no_dropout makes it; NULL where the
	// operations API did not bind.
	var dd uintptr
	if ops := b.ops; ops != nil {
		if err := b.dnnCheck("cudnnCreateDropoutDescriptor", ops.cudnnCreateDropoutDescriptor(&dd)); err != nil {
			return k.fail(err)
		}
		k.free = append(k.free, func() { ops.cudnnDestroyDropoutDescriptor(dd) })
		if err := b.dnnCheck("cudnnSetDropoutDescriptor", ops.cudnnSetDropoutDescriptor(dd, h, 0, 0, 0, 0)); err != nil {
			return k.fail(err)
		}
	}
	var rd uintptr
	if err := b.dnnCheck("cudnnCreateRNNDescriptor", adv.cudnnCreateRNNDescriptor(&rd)); err != nil {
		return k.fail(err)
	}
	k.free = append(k.free, func() { adv.cudnnDestroyRNNDescriptor(rd) })
	r := p.RNNDesc()
	if err := b.dnnCheck("cudnnSetRNNDescriptor_v8", adv.cudnnSetRNNDescriptor_v8(rd, r.Algo, r.CellMode, r.BiasMode, r.DirMode, r.InputMode,
		r.DataType, r.MathPrec, r.MathType, r.InputSize, r.HiddenSize, r.ProjSize, r.NumLayers, dd, r.AuxFlags)); err != nil {
		return k.fail(err)
	}
	seq := p.SeqLengths()
	dataDesc := func(vector int) (uintptr, error) {
		var t uintptr
		if err := b.dnnCheck("cudnnCreateRNNDataDescriptor", adv.cudnnCreateRNNDataDescriptor(&t)); err != nil {
			return 0, err
		}
		k.free = append(k.free, func() { adv.cudnnDestroyRNNDataDescriptor(t) })
		return t, b.dnnCheck("cudnnSetRNNDataDescriptor", adv.cudnnSetRNNDataDescriptor(t, p.DataType, cudnnRNNDataSeqMajorUnpacked,
			int32(p.T), int32(p.N), int32(vector), &seq[0], nil))
	}
	xd, err := dataDesc(p.Input)
	if err != nil {
		return k.fail(err)
	}
	yd, err := dataDesc(p.Hidden)
	if err != nil {
		return k.fail(err)
	}
	var sd uintptr
	if err := b.dnnCheck("cudnnCreateTensorDescriptor", api.cudnnCreateTensorDescriptor(&sd)); err != nil {
		return k.fail(err)
	}
	k.free = append(k.free, func() { api.cudnnDestroyTensorDescriptor(sd) })
	dims, strides := p.StateDims(), p.StateStrides()
	if err := b.dnnCheck("cudnnSetTensorNdDescriptor", api.cudnnSetTensorNdDescriptor(sd, p.DataType, 3, &dims[0], &strides[0])); err != nil {
		return k.fail(err)
	}
	var wBytes, wsBytes, rsBytes uintptr
	if err := b.dnnCheck("cudnnGetRNNWeightSpaceSize", adv.cudnnGetRNNWeightSpaceSize(h, rd, &wBytes)); err != nil {
		return k.fail(err)
	}
	if err := b.dnnCheck("cudnnGetRNNTempSpaceSizes", adv.cudnnGetRNNTempSpaceSizes(h, rd, cudnnFwdModeTraining, xd, &wsBytes, &rsBytes)); err != nil {
		return k.fail(err)
	}

	// Buffers.
	size := int64(prec.Size())
	bufs := p.Buffers(pass)
	spaces := []struct {
		name  string
		bytes int64
	}{{"weights", int64(wBytes)}, {"workspace", int64(wsBytes)}, {"reserve", int64(rsBytes)}, {"seq", 4 * int64(p.N)}}
	if pass == dnn.BackwardWeights {
		spaces = append(spaces, struct {
			name  string
			bytes int64
		}{"dweights", int64(wBytes)})
	}
	var total int64
	for _, buf := range bufs {
		total += buf.Elems * size
	}
	for _, sp := range spaces {
		total += sp.bytes
	}
	if _, err := k.mem.plan(total); err != nil {
		return k.fail(err)
	}
	ptr := map[string]uint64{}
	for _, buf := range bufs {
		q, err := k.mem.alloc(buf.Name, buf.Elems*size)
		if err != nil {
			return k.fail(err)
		}
		if err := k.mem.fill(q, buf.Elems, prec); err != nil {
			return k.fail(err)
		}
		ptr[buf.Name] = q
	}
	for _, sp := range spaces {
		q, err := k.mem.alloc(sp.name, sp.bytes)
		if err != nil {
			return k.fail(err)
		}
		ptr[sp.name] = q
	}
	// The weights are filled in the data type (the weight space is
	// dataType's values); devSeqLengths T, N times.
	if err := k.mem.fill(ptr["weights"], int64(wBytes)/size, prec); err != nil {
		return k.fail(err)
	}
	if err := check(Driver, "cuMemsetD32Async", b.drv.cuMemsetD32Async(ptr["seq"], uint32(p.T), uintptr(p.N), b.stream)); err != nil {
		return k.fail(err)
	}
	k.workspace = int64(wsBytes)

	w, ws, rs := ptr["weights"], ptr["workspace"], ptr["reserve"]
	forward := func() error {
		return b.dnnCheck("cudnnRNNForward", adv.cudnnRNNForward(h, rd, cudnnFwdModeTraining, ptr["seq"], xd, ptr["x"], yd, ptr["y"],
			sd, ptr["hx"], ptr["hy"], sd, ptr["cx"], ptr["cy"], wBytes, w, wsBytes, ws, rsBytes, rs))
	}
	backwardData := func() error {
		return b.dnnCheck("cudnnRNNBackwardData_v8", adv.cudnnRNNBackwardData_v8(h, rd, ptr["seq"], yd, ptr["y"], ptr["dy"], xd, ptr["dx"],
			sd, ptr["hx"], ptr["dhy"], ptr["dhx"], sd, ptr["cx"], ptr["dcy"], ptr["dcx"], wBytes, w, wsBytes, ws, rsBytes, rs))
	}
	// cuDNN's LSTM launches kernels per time step and layer (and more for
	// the weights' gradients): far more than one a call, which the
	// stream's hold must know to keep its batches in the launch queue
	k.launches = 4*p.T*p.Layers + 4
	switch pass {
	case dnn.Forward:
		k.runs = []func() error{forward}
	case dnn.BackwardData:
		if err := forward(); err != nil {
			return k.fail(err)
		}
		k.runs = []func() error{backwardData}
	case dnn.BackwardWeights:
		if err := forward(); err != nil {
			return k.fail(err)
		}
		if err := backwardData(); err != nil {
			return k.fail(err)
		}
		dw := ptr["dweights"]
		k.runs = []func() error{
			func() error { return b.zero(dw, int64(wBytes)) },
			func() error {
				return b.dnnCheck("cudnnRNNBackwardWeights_v8", adv.cudnnRNNBackwardWeights_v8(h, rd, cudnnWgradModeAdd, ptr["seq"], xd, ptr["x"],
					sd, ptr["hx"], yd, ptr["y"], wBytes, dw, wsBytes, ws, rsBytes, rs))
			},
		}
	}
	k.choice += fmt.Sprintf(", weight space %d B, workspace %d B, reserve %d B", wBytes, wsBytes, rsBytes)
	if k.unheld() {
		k.choice += fmt.Sprintf(", timed unheld (a run of about %d launches would overfill the launch queue behind the stream's hold)", k.launches)
	}
	return k, nil
}
