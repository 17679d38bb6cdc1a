package cuda

import (
	"fmt"
	"unsafe"

	"github.com/wb-sim/wb/dnn"
)

// Everything in this file calls cuDNN: run on an H200 by TestGPUOps
// (README.md); the descriptions it runs (OpFor, Buffers) are tested here.

// tensorDesc makes a fully packed NCHW tensor descriptor, destroyed on
// Close.
func (k *kernel) tensorDesc(dt int32, dims [4]int32) (uintptr, error) {
	b, api := k.b, k.b.dnn
	var t uintptr
	if err := b.dnnCheck("cudnnCreateTensorDescriptor", api.cudnnCreateTensorDescriptor(&t)); err != nil {
		return 0, err
	}
	k.free = append(k.free, func() { api.cudnnDestroyTensorDescriptor(t) })
	strides := packed(dims)
	return t, b.dnnCheck("cudnnSetTensorNdDescriptor", api.cudnnSetTensorNdDescriptor(t, dt, 4, &dims[0], &strides[0]))
}

// prepOp sets up one pass of a pooling, activation, softmax, batch-norm
// (and instance-norm) or add layer with cuDNN's legacy operations API:
// descriptors, buffers (filled as mem.fill does), and the run. The
// backward passes of pooling, activations and batch norm run one forward
// at preparation, so that what they read of the forward is real: the
// pooling's maxima (cuDNN routes each window's gradient to the value of x
// that equals y, as PyTorch's max-pooling backward reads the forward's
// indices), the activation's outputs, batch norm's saved statistics. None
// has a workspace.
func (b *Backend) prepOp(name string, p OpProblem, pass dnn.Pass, prec dnn.Precision) (*kernel, error) {
	leave, err := b.enter()
	if err != nil {
		return nil, err
	}
	defer leave()
	api, ops := b.dnn, b.ops
	k := b.newKernel(name)
	k.algo = p.Routine(pass)
	k.choice = "cuDNN " + k.algo
	if p.Note != "" {
		k.choice += " (" + p.Note + ")"
	}
	if p.PyTorchNative != "" {
		// PyTorch runs its own kernels here (the profile's notes say so)
		k.algo += " [PyTorch: native kernels]"
		k.choice += " (PyTorch runs its own kernels here: " + p.PyTorchNative + ")"
	}

	xd, err := k.tensorDesc(p.DataType, p.X)
	if err != nil {
		return k.fail(err)
	}
	yd := xd
	if p.Y != p.X {
		if yd, err = k.tensorDesc(p.DataType, p.Y); err != nil {
			return k.fail(err)
		}
	}

	// Buffers.
	bufs := p.Buffers(pass)
	if len(bufs) == 0 {
		return k.fail(fmt.Errorf("%s has no %s pass to run", p.Kind, pass))
	}
	ptr, _, err := k.allocBuffers(p, pass, prec)
	if err != nil {
		return k.fail(err)
	}

	alpha, beta := unsafe.Pointer(&k.alpha), unsafe.Pointer(&k.beta)
	h := b.dnnH
	fwd := pass == dnn.Forward
	switch p.Kind {
	case Pooling:
		var pd uintptr
		if err := b.dnnCheck("cudnnCreatePoolingDescriptor", ops.cudnnCreatePoolingDescriptor(&pd)); err != nil {
			return k.fail(err)
		}
		k.free = append(k.free, func() { ops.cudnnDestroyPoolingDescriptor(pd) })
		if err := b.dnnCheck("cudnnSetPooling2dDescriptor", ops.cudnnSetPooling2dDescriptor(pd, p.PoolMode, cudnnNotPropagateNaN,
			int32(p.WinH), int32(p.WinW), int32(p.PadH), int32(p.PadW), int32(p.StrideH), int32(p.StrideW))); err != nil {
			return k.fail(err)
		}
		var n, c, hh, w int32
		if err := b.dnnCheck("cudnnGetPooling2dForwardOutputDim", ops.cudnnGetPooling2dForwardOutputDim(pd, xd, &n, &c, &hh, &w)); err != nil {
			return k.fail(err)
		}
		if got := [4]int32{n, c, hh, w}; got != p.Y {
			return k.fail(fmt.Errorf("cuDNN pools to %v, dnn to %v", got, p.Y))
		}
		forward := func() error {
			return b.dnnCheck("cudnnPoolingForward", ops.cudnnPoolingForward(h, pd, alpha, xd, ptr["x"], beta, yd, ptr["y"]))
		}
		if fwd {
			k.runs = []func() error{forward}
			break
		}
		// y as the forward leaves it, each window's maximum of x (filled
		// independently, no value of x would equal its window's y)
		if err := forward(); err != nil {
			return k.fail(err)
		}
		k.runs = []func() error{func() error {
			return b.dnnCheck("cudnnPoolingBackward", ops.cudnnPoolingBackward(h, pd, alpha, yd, ptr["y"], yd, ptr["dy"], xd, ptr["x"], beta, xd, ptr["dx"]))
		}}
	case Activation:
		var ad uintptr
		if err := b.dnnCheck("cudnnCreateActivationDescriptor", ops.cudnnCreateActivationDescriptor(&ad)); err != nil {
			return k.fail(err)
		}
		k.free = append(k.free, func() { ops.cudnnDestroyActivationDescriptor(ad) })
		if err := b.dnnCheck("cudnnSetActivationDescriptor", ops.cudnnSetActivationDescriptor(ad, p.ActMode, cudnnNotPropagateNaN, 0)); err != nil {
			return k.fail(err)
		}
		if p.ActMode == cudnnActivationSwish {
			if err := b.dnnCheck("cudnnSetActivationDescriptorSwishBeta", ops.cudnnSetActivationDescriptorSwishBeta(ad, p.SwishBeta)); err != nil {
				return k.fail(err)
			}
		}
		forward := func() error {
			return b.dnnCheck("cudnnActivationForward", ops.cudnnActivationForward(h, ad, alpha, xd, ptr["x"], beta, yd, ptr["y"]))
		}
		if fwd {
			k.runs = []func() error{forward}
			break
		}
		// y = f(x), as the forward leaves it for the backward to read
		if err := forward(); err != nil {
			return k.fail(err)
		}
		k.runs = []func() error{func() error {
			return b.dnnCheck("cudnnActivationBackward", ops.cudnnActivationBackward(h, ad, alpha, yd, ptr["y"], yd, ptr["dy"], xd, ptr["x"], beta, xd, ptr["dx"]))
		}}
	case Softmax:
		if fwd {
			k.runs = []func() error{func() error {
				return b.dnnCheck("cudnnSoftmaxForward", ops.cudnnSoftmaxForward(h, p.SoftmaxAlgo, p.SoftmaxMode, alpha, xd, ptr["x"], beta, yd, ptr["y"]))
			}}
		} else {
			k.runs = []func() error{func() error {
				return b.dnnCheck("cudnnSoftmaxBackward", ops.cudnnSoftmaxBackward(h, p.SoftmaxAlgo, p.SoftmaxMode, alpha, yd, ptr["y"], yd, ptr["dy"], beta, xd, ptr["dx"]))
			}}
		}
	case BatchNorm:
		var bd uintptr
		if err := b.dnnCheck("cudnnCreateTensorDescriptor", api.cudnnCreateTensorDescriptor(&bd)); err != nil {
			return k.fail(err)
		}
		k.free = append(k.free, func() { api.cudnnDestroyTensorDescriptor(bd) })
		if err := b.dnnCheck("cudnnDeriveBNTensorDescriptor", ops.cudnnDeriveBNTensorDescriptor(bd, xd, p.BNMode)); err != nil {
			return k.fail(err)
		}
		// Instance norm keeps no running statistics: running_mean and
		// running_var are not allocated, their pointers NULL, which cuDNN
		// allows for both at once.
		forward := func(y uint64) error {
			return b.dnnCheck("cudnnBatchNormalizationForwardTraining", ops.cudnnBatchNormalizationForwardTraining(h, p.BNMode, alpha, beta,
				xd, ptr["x"], yd, y, bd, ptr["scale"], ptr["bias"], p.Momentum, ptr["running_mean"], ptr["running_var"],
				p.Epsilon, ptr["save_mean"], ptr["save_inv_var"]))
		}
		if fwd {
			k.runs = []func() error{func() error { return forward(ptr["y"]) }}
			break
		}
		// The backward pass reads the statistics a forward run saves:
		// run one now, into dx (overwritten by every backward run).
		if err := forward(ptr["dx"]); err != nil {
			return k.fail(err)
		}
		k.runs = []func() error{func() error {
			return b.dnnCheck("cudnnBatchNormalizationBackward", ops.cudnnBatchNormalizationBackward(h, p.BNMode, alpha, beta, alpha, beta,
				xd, ptr["x"], yd, ptr["dy"], xd, ptr["dx"], bd, ptr["scale"], ptr["dscale"], ptr["dbias"],
				p.Epsilon, ptr["save_mean"], ptr["save_inv_var"]))
		}}
	case Add:
		var od uintptr
		if err := b.dnnCheck("cudnnCreateOpTensorDescriptor", ops.cudnnCreateOpTensorDescriptor(&od)); err != nil {
			return k.fail(err)
		}
		k.free = append(k.free, func() { ops.cudnnDestroyOpTensorDescriptor(od) })
		// Half and bfloat16 tensors compute in float (cuDNN's rule for
		// cudnnOpTensor's compType).
		if err := b.dnnCheck("cudnnSetOpTensorDescriptor", ops.cudnnSetOpTensorDescriptor(od, cudnnOpTensorAdd, cudnnDataFloat, cudnnNotPropagateNaN)); err != nil {
			return k.fail(err)
		}
		one := unsafe.Pointer(&k.one)
		runs := []func() error{func() error {
			return b.dnnCheck("cudnnOpTensor", ops.cudnnOpTensor(h, od, alpha, xd, ptr["in0"], alpha, xd, ptr["in1"], beta, yd, ptr["y"]))
		}}
		for i := 2; i < p.Inputs; i++ {
			in := ptr[fmt.Sprintf("in%d", i)]
			runs = append(runs, func() error {
				return b.dnnCheck("cudnnAddTensor", ops.cudnnAddTensor(h, alpha, xd, in, one, yd, ptr["y"]))
			})
		}
		k.runs = runs
	default:
		return k.fail(fmt.Errorf("no cuDNN routine for %s", p.Kind))
	}
	return k, nil
}
