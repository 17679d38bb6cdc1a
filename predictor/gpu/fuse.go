package gpu

import (
	"slices"

	"github.com/wb-sim/wb/datasets/neusight"
)

// Fuse is the program as torch.compile's default (Inductor) runs it:
// products stay cuBLAS calls, and each run of elementwise kernels between
// them becomes one kernel that reads the run's inputs once and writes its
// last output (the intermediates stay in registers); a run that ends in a
// softmax or layer norm is folded into that reduction, which then reads
// and writes the run's extra tensors besides its own. Copies that only
// reorder (contiguous after a permute) vanish into the kernel that reads
// them. A fused kernel is timed as the elementwise op of its most costly
// member (a transcendental one if it has any).
//
// A repeated block that opens with a reduction and closes with a run (a
// pre-norm layer: ln_1 … residual add) has its closing run moved to its
// front first: each layer's last residual add then fuses into the next
// layer's first norm (the last one's into the final norm), as Inductor
// fuses across the layer boundary.
func Fuse(p *Program) *Program {
	out := &Program{Model: p.Model, Seq: p.Seq, Batch: p.Batch, PostNorm: p.PostNorm}
	for _, b := range p.Blocks {
		nb := Block{Name: b.Name, Repeat: b.Repeat}
		ks := rotateRun(b.Kernels)
		var run []Kernel
		flush := func() {
			if len(run) == 0 {
				return
			}
			nb.Kernels = append(nb.Kernels, fuseRun(run))
			run = nil
		}
		for _, k := range ks {
			switch kindOf(k.Op) {
			case kindElementwise:
				if k.Op == OpSync {
					// a host synchronisation breaks the graph: it stays
					flush()
					nb.Kernels = append(nb.Kernels, k)
					continue
				}
				if k.Op == "copy" {
					continue
				}
				run = append(run, k)
			case kindNorm, kindSoftmax:
				// the run folds into the reduction: its other operands are
				// read besides the chain; before a layer norm, the sum is
				// the residual stream and is written too, unless the model
				// normalises after the sum (post-norm: the norm's output
				// is the stream)
				extra := 0
				for _, r := range run {
					extra += max(r.Inputs-1-r.Reuse, 0)
				}
				if k.Op == neusight.LN && residual(run) && !p.PostNorm {
					extra++
				}
				k.Extra = extra
				k.ReadStride, k.Plane = stridedRead(run)
				run = nil
				nb.Kernels = append(nb.Kernels, k)
			default:
				flush()
				nb.Kernels = append(nb.Kernels, k)
			}
		}
		flush()
		out.Blocks = append(out.Blocks, nb)
	}
	return out
}

// rotateRun moves the elementwise kernels that close ks in front of it
// when ks opens with a layer norm or softmax; otherwise it returns ks.
func rotateRun(ks []Kernel) []Kernel {
	if len(ks) == 0 {
		return ks
	}
	if k := kindOf(ks[0].Op); k != kindNorm && k != kindSoftmax {
		return ks
	}
	i := len(ks)
	for i > 0 && kindOf(ks[i-1].Op) == kindElementwise {
		i--
	}
	if i == len(ks) || i == 0 {
		return ks
	}
	return append(slices.Clone(ks[i:]), ks[:i]...)
}

// residual reports whether a run holds a residual sum: an add of two
// tensors, whose result the next layer reads again.
func residual(run []Kernel) bool {
	for _, r := range run {
		if r.Op == "add" && r.Inputs-r.Reuse >= 2 {
			return true
		}
	}
	return false
}

// fuseRun is one kernel for a run of elementwise kernels over tensors of
// the same size: it reads the first kernel's inputs and each later one's
// other operands not read before (Reuse), and writes one output.
func fuseRun(run []Kernel) Kernel {
	k := run[0]
	inputs := max(k.Inputs, 1)
	for _, r := range run[1:] {
		inputs += max(r.Inputs-1-r.Reuse, 0)
		if transcendental(r.Op) > transcendental(k.Op) {
			k.Op = r.Op
		}
		if r.elems() > k.elems() {
			k.Rows, k.Width = r.Rows, r.Width // the largest member's shape
		}
	}
	k.Inputs, k.Outputs = inputs, 1
	// one elementwise kernel: no member's own backward, reduction or table
	k.Grad, k.Reduce, k.Table, k.Sums = GradOfOp, 0, 0, 0
	k.ReadStride, k.Plane = stridedRead(run)
	return k
}

// stridedRead is the read across its layout that a run of fused kernels
// still makes (Kernel.ReadStride, Plane): the fused kernel reads the
// operand as the member did (Switch's position bias added to the scores
// before the softmax).
func stridedRead(run []Kernel) (stride, plane int) {
	for _, r := range run {
		if r.ReadStride > stride {
			stride, plane = r.ReadStride, r.Plane
		}
	}
	return stride, plane
}
