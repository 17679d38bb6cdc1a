package gpu

// Iteration is the predicted time of one iteration of a program.
type Iteration struct {
	Forward  float64 `json:"forward_s"`
	Backward float64 `json:"backward_s"`
	Kernels  int     `json:"kernels"` // kernels launched
	// Blocks are the program's blocks, each over all its repeats.
	Blocks []BlockTime `json:"blocks"`
}

// BlockTime is one block's share of an iteration.
type BlockTime struct {
	Name     string  `json:"name"`
	Repeat   int     `json:"repeat"`
	Forward  float64 `json:"forward_s"`
	Backward float64 `json:"backward_s"`
	Kernels  int     `json:"kernels"`
}

// Total is forward + backward.
func (it Iteration) Total() float64 { return it.Forward + it.Backward }

// Iteration predicts one iteration of p on s: its forward pass, and with
// train its backward pass, each kernel timed as it runs in a stream (the
// host launches ahead of the GPU, so the op measurements' floor is not
// paid).
func (m *Model) Iteration(s Spec, p *Program, train bool) Iteration {
	var it Iteration
	for _, b := range p.Blocks {
		fw, bw, n := m.blockTime(s, b.Kernels, train)
		r := float64(b.Repeat)
		it.Forward += r * fw
		it.Backward += r * bw
		it.Kernels += b.Repeat * n
		it.Blocks = append(it.Blocks, BlockTime{Name: b.Name, Repeat: b.Repeat, Forward: r * fw, Backward: r * bw, Kernels: b.Repeat * n})
	}
	return it
}

// blockTime is one repeat of a block's kernels on s: their forward time,
// with train their backward kernels' (Backward), and the kernels launched.
func (m *Model) blockTime(s Spec, ks []Kernel, train bool) (fw, bw float64, n int) {
	eachKernel(ks, train, func(k *Kernel, backward bool) {
		if backward {
			bw += m.Kernel(s, k)
		} else {
			fw += m.Kernel(s, k)
		}
		n++
	})
	return fw, bw, n
}

// eachKernel calls f with every kernel one repeat of ks launches: each
// forward kernel and, with train, its backward kernels (backward true).
func eachKernel(ks []Kernel, train bool, f func(k *Kernel, backward bool)) {
	for i := range ks {
		f(&ks[i], false)
		if train {
			for _, g := range Backward(ks[i]) {
				f(&g, true)
			}
		}
	}
}
