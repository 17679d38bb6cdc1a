package gpu

import "github.com/wb-sim/wb/datasets/neusight"

// Activations is a floor on the bytes of activations one iteration of p
// holds at its peak beside the model's weights (and, in training, their
// gradients), fp32:
//
//   - training: what the backward pass cannot do without, kept from the
//     forward for every layer at once: each product's activation operands
//     (a linear layer's input, both operands of a batched product: their
//     weight and data gradients need them) and each softmax's output
//     (its gradient is computed from it), a tensor that two kernels keep
//     counted once (Kernel.SharedInput: projections of one input; the
//     softmax's output that attention's product reads). Autograd keeps
//     more (GELU's input, dropout's masks, layer norm's statistics), so
//     the real figure is higher.
//   - inference: the largest kernel's activation inputs and output,
//     which must be live together.
//
// Not counted: the CUDA context and the libraries' workspaces (a few
// hundred MB), the allocator's fragmentation, an optimizer's state.
func (p *Program) Activations(train bool) float64 {
	var total, peak float64
	for _, b := range p.Blocks {
		for i := range b.Kernels {
			if b.Kernels[i].View {
				continue // no kernel runs: nothing is live or kept
			}
			kept, live := activationBytes(&b.Kernels[i])
			total += fl(b.Repeat) * kept
			peak = max(peak, live)
		}
	}
	if train {
		return total
	}
	return peak
}

// activationBytes are, fp32, the bytes of k's tensors the backward pass
// needs kept and no earlier kernel keeps (a product's activation operands
// but a SharedInput one, a softmax's output; 0 for other kernels) and
// those live while it runs, its weights apart.
func activationBytes(k *Kernel) (kept, live float64) {
	switch kindOf(k.Op) {
	case kindGEMM:
		out := 4 * fl(k.Batch) * fl(k.M) * fl(k.N)
		var left, right float64 // the activation operands
		switch k.Op {
		case neusight.BMM:
			left, right = 4*fl(k.Batch)*fl(k.M)*fl(k.K), 4*fl(k.Batch)*fl(k.K)*fl(k.N)
		case neusight.Conv:
			left = 4 * fl(max(k.Images, 1)) * fl(k.InC) * fl(k.Size) * fl(k.Size)
		default: // linear: the other operand is a weight
			left = 4 * fl(k.Batch) * fl(k.M) * fl(k.K)
		}
		kept = left + right
		if k.SharedInput {
			kept = right
		}
		return kept, left + right + out
	case kindSoftmax:
		return 4 * k.elems(), k.Bytes()
	}
	return 0, k.Bytes()
}
