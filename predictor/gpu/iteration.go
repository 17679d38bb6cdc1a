package gpu

// Iteration is the predicted time of one iteration of a program.
type Iteration struct {
	Forward, Backward float64 // seconds
	Kernels           int     // kernels launched
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
		var fw, bw float64
		n := 0
		for _, k := range b.Kernels {
			fw += m.Kernel(s, &k)
			n++
			if train {
				for _, g := range Backward(k) {
					bw += m.Kernel(s, &g)
					n++
				}
			}
		}
		r := float64(b.Repeat)
		it.Forward += r * fw
		it.Backward += r * bw
		it.Kernels += b.Repeat * n
	}
	return it
}
