package gpu

import (
	"maps"
	"slices"
	"strconv"
	"sync"

	"github.com/wb-sim/wb/datasets/neusight"
	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/predictor"
)

// LayerKernels is the kernels one pass of a dnn layer launches at batch
// batch, as PyTorch's eager CUDA kernels run it, and whether the model
// covers the layer: convolutions (square, ungrouped, undilated), linear
// layers, matrix products, LSTMs (cuDNN's: one input product per layer,
// then per time step a recurrent product and a fused gate kernel),
// softmax, batch norm, embedding lookups and elementwise ops. Pooling,
// concatenation, resizing and the optimizer's update are left to the
// analytical model (ok false).
func LayerKernels(d dnn.Desc, p dnn.Pass, batch int) (ks []Kernel, ok bool) {
	if p == dnn.Update || batch < 1 || len(d.In) == 0 {
		return nil, false
	}
	in := d.In[0]
	elems := batch * int(d.Out.Elems())
	// fwd splits a kernel's passes: the gradient of a product with
	// weights or of a norm is the data's first, then the weights'
	fwd := func(k Kernel) ([]Kernel, bool) {
		if p == dnn.Forward {
			return []Kernel{k}, true
		}
		b := Backward(k)
		if k.Op == neusight.Linear || k.Op == neusight.LN {
			if p == dnn.BackwardData {
				return b[:1], true
			}
			return b[1:], true
		}
		if p == dnn.BackwardWeights {
			return nil, true
		}
		return b, true
	}
	switch d.Op {
	case dnn.OpConv2D:
		a := d.Attr
		if len(in) != 3 || in[1] != in[2] || a[dnn.AttrGroups] != 1 || a[dnn.AttrDilation] > 1 || a[dnn.AttrKH] != a[dnn.AttrKW] || a[dnn.AttrPH] != a[dnn.AttrPW] || len(d.Out) != 3 {
			return nil, false
		}
		c, size, out, k, os := in[0], in[1], a[dnn.AttrOut], a[dnn.AttrKH], d.Out[1]
		// every convolution NeuSight measured is 3×3 and stride 1 (cuDNN
		// ran most as Winograd): any other layer's passes are corrected
		// as the products their implicit GEMMs compute
		implicit := !measuredConv(k, a[dnn.AttrStride], a[dnn.AttrPH])
		switch p {
		case dnn.Forward:
			return []Kernel{ConvKernel(batch, c, out, k, size, a[dnn.AttrStride], a[dnn.AttrPH])}, true
		case dnn.BackwardData:
			// the output's gradient convolved back to the input: M = input
			// pixels, N = input channels, K = output channels × the kernel
			// taps that reach one input pixel (k²/stride²: cuDNN splits a
			// strided gradient into stride² phases)
			st := max(a[dnn.AttrStride], 1)
			return []Kernel{{Op: neusight.Conv, Batch: 1, M: batch * os * os * st * st, N: c, K: max(1, out*k*k/(st*st)),
				Images: batch, Size: os, Kern: k, Stride: 1, Pad: a[dnn.AttrPH], InC: out, OutC: c, Implicit: implicit}}, true
		default:
			// the weights' gradient: M = input channels × kernel area, N =
			// output channels, K = the batch's output pixels. cuDNN reduces
			// a long K in parallel over groups of images, then sums the
			// groups' partial gradients: about a group per 4,096 of K (the
			// largest divisor of the batch up to that).
			groups := min(batch, ceilDiv(batch*os*os, 4096))
			for batch%groups != 0 {
				groups--
			}
			ks := []Kernel{{Op: neusight.Conv, Batch: groups, M: c * k * k, N: out, K: batch / groups * os * os,
				Images: batch, Size: size, Kern: k, Stride: a[dnn.AttrStride], Pad: a[dnn.AttrPH], InC: c, OutC: out, Implicit: implicit}}
			if groups > 1 {
				ks = append(ks, Kernel{Op: "sum", Rows: groups, Width: c * k * k * out, Inputs: 1, Outputs: 1, Reduce: groups})
			}
			if a[dnn.AttrBias] == 1 {
				ks = append(ks, Kernel{Op: "sum", Rows: 1, Width: elems, Inputs: 1, Outputs: 1, Reduce: elems / out})
			}
			return ks, true
		}
	case dnn.OpLinear:
		k := d.Attr[dnn.AttrK]
		if k < 1 {
			return nil, false
		}
		rows := batch * int(in.Elems()) / k
		return fwd(Kernel{Op: neusight.Linear, Batch: 1, M: rows, K: k, N: d.Attr[dnn.AttrN], Bias: d.Attr[dnn.AttrBias] == 1})
	case dnn.OpMatMul:
		a := d.Attr
		if p == dnn.BackwardWeights {
			return nil, true
		}
		return fwd(Kernel{Op: neusight.BMM, Batch: batch * max(a[dnn.AttrG], 1), M: a[dnn.AttrM], K: a[dnn.AttrK], N: a[dnn.AttrN]})
	case dnn.OpSoftmax:
		w := 1
		if len(in) > 0 {
			w = in[len(in)-1]
		}
		return fwd(Kernel{Op: neusight.Softmax, Rows: elems / w, Width: w})
	case dnn.OpBatchNorm, dnn.OpLayerNorm, dnn.OpInstanceNorm:
		// training-mode statistics read the input once more than a
		// normalisation does
		return fwd(Kernel{Op: neusight.LN, Rows: batch, Width: elems / batch, Extra: 1})
	case dnn.OpEmbedding:
		if p == dnn.BackwardData {
			return nil, true // token ids have no gradient
		}
		k := Kernel{Op: "embedding", Rows: batch * max(in[0], 1), Width: d.Attr[dnn.AttrDim], Inputs: 1, Outputs: 1, Table: d.Attr[dnn.AttrVocab]}
		if p == dnn.BackwardWeights {
			if d.Attr[dnn.AttrFrozen] == 1 {
				return nil, true
			}
			return Backward(k), true
		}
		return []Kernel{k}, true
	case dnn.OpLSTM:
		return lstmKernels(d, p, batch)
	case dnn.OpAdd:
		if p != dnn.Forward {
			return nil, true
		}
		return []Kernel{{Op: "add", Rows: batch, Width: elems / batch, Inputs: len(d.In), Outputs: 1}}, true
	case dnn.OpDropout:
		if p == dnn.BackwardWeights {
			return nil, true
		}
		if p == dnn.Forward {
			// the mask drawn, then applied
			return []Kernel{{Op: "dropout", Rows: batch, Width: elems / batch, Inputs: 1, Outputs: 2}}, true
		}
		return Backward(Kernel{Op: "dropout", Rows: batch, Width: elems / batch}), true
	case dnn.OpReLU, dnn.OpGELU, dnn.OpTanh, dnn.OpSigmoid:
		op := string(d.Op) // the kernel's op, named as in the measurements
		if d.Op == dnn.OpSigmoid {
			op = string(dnn.OpTanh) // a transcendental of the same cost
		}
		return fwd(Kernel{Op: op, Rows: batch, Width: elems / batch, Inputs: 1, Outputs: 1})
	}
	return nil, false
}

// lstmKernels lowers a stacked LSTM over T steps: per layer, the input
// product of all steps at once, then per step the recurrent product and
// the fused gate kernel (cuDNN's persistent-free algorithm, as PyTorch
// runs it in fp32); backward the same per step, then the weights'
// gradients as two products over all steps.
func lstmKernels(d dnn.Desc, p dnn.Pass, batch int) ([]Kernel, bool) {
	in := d.In[0]
	if len(in) != 2 {
		return nil, false
	}
	steps, width, h, layers := in[0], in[1], d.Attr[dnn.AttrHidden], max(d.Attr[dnn.AttrLayers], 1)
	var ks []Kernel
	for l := range layers {
		x := width
		if l > 0 {
			x = h
		}
		switch p {
		case dnn.BackwardWeights:
			ks = append(ks,
				Kernel{Op: neusight.Linear, Batch: 1, M: 4 * h, K: batch * steps, N: x},
				Kernel{Op: neusight.Linear, Batch: 1, M: 4 * h, K: batch * steps, N: h})
			continue
		case dnn.Forward:
			ks = append(ks, Kernel{Op: neusight.Linear, Batch: 1, M: batch * steps, K: x, N: 4 * h, Bias: true})
		default:
			ks = append(ks, Kernel{Op: neusight.Linear, Batch: 1, M: batch * steps, K: 4 * h, N: x})
		}
		step := Kernel{Op: neusight.Linear, Batch: 1, M: batch, K: h, N: 4 * h}
		if p == dnn.BackwardData {
			step = Kernel{Op: neusight.Linear, Batch: 1, M: batch, K: 4 * h, N: h}
		}
		gates := Kernel{Op: "tanh", Rows: batch, Width: 4 * h, Inputs: 2, Outputs: 2}
		for range steps {
			ks = append(ks, step, gates)
		}
	}
	return ks, true
}

// LayerPass is the time of one pass of a layer on dev at batch: the sum of
// its kernels' own times (the host's cost of dispatching them is the
// caller's). It implements predictor.LayerModel for GPUs with lanes per SM
// and L2 in the device table.
func (m *Model) LayerPass(d dnn.Desc, p dnn.Pass, batch int, dev *predictor.Device) (float64, bool) {
	s, err := SpecOfDevice(dev)
	if err != nil {
		return 0, false
	}
	ks, ok := LayerKernels(d, p, batch)
	if !ok {
		return 0, false
	}
	var t float64
	for i := range ks {
		t += m.Kernel(s, &ks[i])
	}
	return t, true
}

// Memo returns m as a predictor.LayerModel that remembers each layer
// pass's time, for callers that predict the same layers on the same GPU
// many times over (a plan's estimators, one per job family and fold,
// predict the same networks with different host costs and device scales,
// which act outside LayerPass). Its times are m's, to the bit; it is safe
// for concurrent use.
func Memo(m *Model) predictor.LayerModel {
	return &memoModel{m: m, times: map[memoKey]memoTime{}}
}

type memoModel struct {
	m     *Model
	mu    sync.Mutex
	times map[memoKey]memoTime
}

type memoKey struct {
	spec  Spec
	desc  string // the layer's description, encoded by descKey
	pass  dnn.Pass
	batch int
}

type memoTime struct {
	t  float64
	ok bool
}

// maxMemo bounds the remembered passes (a pass is a few hundred bytes).
const maxMemo = 1 << 18

func (mm *memoModel) LayerPass(d dnn.Desc, p dnn.Pass, batch int, dev *predictor.Device) (float64, bool) {
	s, err := SpecOfDevice(dev)
	if err != nil {
		return 0, false
	}
	k := memoKey{spec: s, desc: descKey(d), pass: p, batch: batch}
	mm.mu.Lock()
	v, hit := mm.times[k]
	mm.mu.Unlock()
	if hit {
		return v.t, v.ok
	}
	v.t, v.ok = mm.m.LayerPass(d, p, batch, dev)
	mm.mu.Lock()
	if len(mm.times) < maxMemo {
		mm.times[k] = v
	}
	mm.mu.Unlock()
	return v.t, v.ok
}

// descKey encodes a layer's description: its op, its input and output
// shapes and its attributes in key order.
func descKey(d dnn.Desc) string {
	b := make([]byte, 0, 96)
	b = append(b, d.Op...)
	shape := func(s dnn.Shape) {
		b = append(b, '[')
		for _, v := range s {
			b = strconv.AppendInt(b, int64(v), 10)
			b = append(b, ',')
		}
		b = append(b, ']')
	}
	for _, s := range d.In {
		shape(s)
	}
	b = append(b, '>')
	shape(d.Out)
	for _, k := range slices.Sorted(maps.Keys(d.Attr)) {
		b = append(b, ' ')
		b = append(b, k...)
		b = append(b, '=')
		b = strconv.AppendInt(b, int64(d.Attr[k]), 10)
	}
	return string(b)
}
