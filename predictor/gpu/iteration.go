package gpu

import (
	"cmp"
	"slices"

	"github.com/wb-sim/wb/datasets/neusight"
)

// Iteration is the predicted time of one iteration of a program.
type Iteration struct {
	Forward  float64 `json:"forward_s"`
	Backward float64 `json:"backward_s"`
	Kernels  int     `json:"kernels"` // kernels launched
	// Blocks are the program's blocks, each over all its repeats.
	Blocks []BlockTime `json:"blocks"`
	// Families split the same time by op family (Group: linear, bmm,
	// elementwise, ln, softmax, embedding ...), longest first.
	Families []FamilyTime `json:"families"`
}

// FamilyTime is one op family's share of an iteration: its kernels' time
// over every block and repeat.
type FamilyTime struct {
	Family   string  `json:"family"`
	Forward  float64 `json:"forward_s"`
	Backward float64 `json:"backward_s"`
	Kernels  int     `json:"kernels"`
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
	fams := map[string]*FamilyTime{}
	// a kernel of one shape recurs (a block's residual adds, the forward's
	// kernels again in the backward, a head's): timed once an iteration
	memo := map[Kernel]float64{}
	for _, b := range p.Blocks {
		fw, bw, n := m.blockTimes(s, b.Kernels, train, fams, b.Repeat, memo)
		r := float64(b.Repeat)
		it.Forward += r * fw
		it.Backward += r * bw
		it.Kernels += b.Repeat * n
		it.Blocks = append(it.Blocks, BlockTime{Name: b.Name, Repeat: b.Repeat, Forward: r * fw, Backward: r * bw, Kernels: b.Repeat * n})
	}
	for _, f := range fams {
		it.Families = append(it.Families, *f)
	}
	slices.SortFunc(it.Families, func(a, b FamilyTime) int {
		return cmp.Or(cmp.Compare(b.Forward+b.Backward, a.Forward+a.Backward), cmp.Compare(a.Family, b.Family))
	})
	return it
}

// blockTime is one repeat of a block's kernels on s: their forward time,
// with train their backward kernels' (Backward), and the kernels launched.
func (m *Model) blockTime(s Spec, ks []Kernel, train bool) (fw, bw float64, n int) {
	return m.blockTimes(s, ks, train, nil, 0, nil)
}

// blockTimes is blockTime that also adds, where fams is not nil, repeat
// times each kernel's time to its family's; memo, where not nil, keeps
// each kernel's time on s (Model.Kernel is a function of the two).
func (m *Model) blockTimes(s Spec, ks []Kernel, train bool, fams map[string]*FamilyTime, repeat int, memo map[Kernel]float64) (fw, bw float64, n int) {
	eachKernel(ks, train, func(k *Kernel, backward bool) {
		t, ok := memo[*k]
		if !ok {
			t = m.Kernel(s, k)
			if memo != nil {
				memo[*k] = t
			}
		}
		if backward {
			bw += t
		} else {
			fw += t
		}
		n++
		if fams != nil {
			g := Group(k.Op)
			f := fams[g]
			if f == nil {
				f = &FamilyTime{Family: g}
				fams[g] = f
			}
			if backward {
				f.Backward += float64(repeat) * t
			} else {
				f.Forward += float64(repeat) * t
			}
			f.Kernels += repeat
		}
	})
	return fw, bw, n
}

// eachKernel calls f with every kernel one repeat of ks launches: each
// forward kernel (not a View's) and, with train, its backward kernels
// (backward true).
func eachKernel(ks []Kernel, train bool, f func(k *Kernel, backward bool)) {
	for i := range ks {
		if !ks[i].View {
			f(&ks[i], false)
		}
		if train {
			for _, g := range Backward(ks[i]) {
				f(&g, true)
			}
		}
	}
}

// FewRows is the time on s, seconds, and the bytes moved of p's products
// (linear layers and batched products) of at most rows rows and, with
// train, of their backward products (the data gradient of as few rows,
// the weight gradient reduced over as few), over every block and repeat:
// decoding's shape (a token a sequence), which the op measurements hardly
// cover (no product NeuSight measured has fewer than three rows, and a
// handful fewer than nine).
func (m *Model) FewRows(s Spec, p *Program, train bool, rows int) (seconds, bytes float64) {
	memo := map[Kernel]float64{}
	add := func(k *Kernel, repeat int) {
		if k.Op != neusight.Linear && k.Op != neusight.BMM {
			return
		}
		t, ok := memo[*k]
		if !ok {
			t = m.Kernel(s, k)
			memo[*k] = t
		}
		seconds += float64(repeat) * t
		bytes += float64(repeat) * k.Bytes()
	}
	for _, b := range p.Blocks {
		for i := range b.Kernels {
			k := &b.Kernels[i]
			if k.View || k.Op != neusight.Linear && k.Op != neusight.BMM || k.M < 1 || k.M > rows {
				continue
			}
			add(k, b.Repeat)
			if train {
				for _, g := range Backward(*k) {
					add(&g, b.Repeat)
				}
			}
		}
	}
	return seconds, bytes
}
