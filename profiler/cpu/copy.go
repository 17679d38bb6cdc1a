package cpu

import (
	"fmt"

	"gonum.org/v1/gonum/blas/gonum"

	"github.com/wb-sim/wb/dnn"
)

// This file holds the layers that move data: concat, select, upsample,
// pad and embedding.

func prepConcat(a *arena, d dnn.Desc, batch int, pass dnn.Pass) (func(*pool), error) {
	if len(d.In) < 2 {
		return nil, fmt.Errorf("concat of %d inputs", len(d.In))
	}
	m := len(d.In)
	sizes, offs := make([]int, m), make([]int, m)
	total := 0
	for i, s := range d.In {
		sizes[i], offs[i] = int(s.Elems()), total
		total += sizes[i]
	}
	if int64(total) != d.Out.Elems() {
		return nil, fmt.Errorf("concat of %v into %v", d.In, d.Out)
	}
	parts := make([][]float32, m)
	var whole []float32
	var f func(lo, hi int)
	switch pass {
	case dnn.Forward:
		for i := range parts {
			parts[i] = a.floats(fmt.Sprintf("x%d", i), batch, sizes[i])
		}
		whole = a.floats("y", batch, total)
		f = func(lo, hi int) {
			for u := lo; u < hi; u++ {
				b, i := u/m, u%m
				copy(whole[b*total+offs[i]:][:sizes[i]], parts[i][b*sizes[i]:][:sizes[i]])
			}
		}
	case dnn.BackwardData:
		whole = a.floats("dy", batch, total)
		for i := range parts {
			parts[i] = a.floats(fmt.Sprintf("dx%d", i), batch, sizes[i])
		}
		f = func(lo, hi int) {
			for u := lo; u < hi; u++ {
				b, i := u/m, u%m
				copy(parts[i][b*sizes[i]:][:sizes[i]], whole[b*total+offs[i]:][:sizes[i]])
			}
		}
	default:
		return nil, unsupportedPass(d.Op, pass)
	}
	grain := grainFor(total / m)
	return func(p *pool) { p.For(batch*m, grain, f) }, nil
}

// prepSelect selects position 0 of [T, D] sequences.
func prepSelect(a *arena, d dnn.Desc, batch int, pass dnn.Pass) (func(*pool), error) {
	if len(d.In) != 1 || len(d.In[0]) != 2 {
		return nil, fmt.Errorf("select wants one [T, D] input, got %v", d.In)
	}
	t, dim := d.In[0][0], d.In[0][1]
	var f func(lo, hi int)
	switch pass {
	case dnn.Forward:
		x, y := a.floats("x", batch, t, dim), a.floats("y", batch, dim)
		f = func(lo, hi int) {
			for b := lo; b < hi; b++ {
				copy(y[b*dim:(b+1)*dim], x[b*t*dim:][:dim])
			}
		}
	case dnn.BackwardData:
		dy, dx := a.floats("dy", batch, dim), a.floats("dx", batch, t, dim)
		f = func(lo, hi int) {
			for b := lo; b < hi; b++ {
				s := dx[b*t*dim:][:t*dim]
				copy(s, dy[b*dim:(b+1)*dim])
				clear(s[dim:])
			}
		}
	default:
		return nil, unsupportedPass(d.Op, pass)
	}
	grain := grainFor(t * dim)
	return func(p *pool) { p.For(batch, grain, f) }, nil
}

// prepResize is nearest up-sampling by f, or zero padding, of [C, H, W].
func prepResize(a *arena, d dnn.Desc, batch int, pass dnn.Pass) (func(*pool), error) {
	if len(d.In) != 1 || len(d.In[0]) != 3 || len(d.Out) != 3 {
		return nil, fmt.Errorf("%s wants a [C, H, W] input and output, got %v → %v", d.Op, d.In, d.Out)
	}
	c, h, w := d.In[0][0], d.In[0][1], d.In[0][2]
	ho, wo := d.Out[1], d.Out[2]
	fac, left, top := 1, 0, 0
	if d.Op == dnn.OpUpsample {
		v, err := descInt(d, dnn.AttrF)
		if err != nil {
			return nil, err
		}
		fac = v
		if fac < 1 || ho != h*fac || wo != w*fac {
			return nil, fmt.Errorf("upsample of %v by %d into %v", d.In[0], fac, d.Out)
		}
	} else {
		v, err := descInts(d, dnn.AttrLeft, dnn.AttrRight, dnn.AttrTop, dnn.AttrBottom)
		if err != nil {
			return nil, err
		}
		left, top = v[0], v[2]
		if ho != h+v[2]+v[3] || wo != w+v[0]+v[1] || min(v[0], v[1], v[2], v[3]) < 0 {
			return nil, fmt.Errorf("pad of %v by %v into %v", d.In[0], d.Attr, d.Out)
		}
	}
	pin, pout := h*w, ho*wo
	var f func(lo, hi int)
	up := d.Op == dnn.OpUpsample
	switch pass {
	case dnn.Forward:
		x, y := a.floats("x", batch, c, pin), a.floats("y", batch, c, pout)
		f = func(lo, hi int) {
			for q := lo; q < hi; q++ {
				xp, yp := x[q*pin:][:pin], y[q*pout:][:pout]
				for oh := range ho {
					row := yp[oh*wo : (oh+1)*wo]
					if up {
						src := xp[(oh/fac)*w:][:w]
						for ow := range row {
							row[ow] = src[ow/fac]
						}
						continue
					}
					ih := oh - top
					if ih < 0 || ih >= h {
						clear(row)
						continue
					}
					clear(row[:left])
					copy(row[left:left+w], xp[ih*w:(ih+1)*w])
					clear(row[left+w:])
				}
			}
		}
	case dnn.BackwardData:
		dy, dx := a.floats("dy", batch, c, pout), a.floats("dx", batch, c, pin)
		f = func(lo, hi int) {
			for q := lo; q < hi; q++ {
				gp, dp := dy[q*pout:][:pout], dx[q*pin:][:pin]
				for ih := range h {
					row := dp[ih*w : (ih+1)*w]
					if !up {
						copy(row, gp[(ih+top)*wo+left:][:w])
						continue
					}
					clear(row)
					for a := range fac {
						src := gp[(ih*fac+a)*wo:][:wo]
						for ow, v := range src {
							row[ow/fac] += v
						}
					}
				}
			}
		}
	default:
		return nil, unsupportedPass(d.Op, pass)
	}
	grain := grainFor(pout)
	return func(p *pool) { p.For(batch*c, grain, f) }, nil
}

// prepEmbedding gathers rows of a [vocab, dim] table forward; backward-
// weights zeroes the dense gradient of the table and adds each token's
// gradient row into its row, the workers sharing the table's rows so that
// no two write one value.
func prepEmbedding(a *arena, d dnn.Desc, batch int, pass dnn.Pass) (func(*pool), error) {
	v, err := descInts(d, dnn.AttrVocab, dnn.AttrDim)
	if err != nil {
		return nil, err
	}
	vocab, dim := v[0], v[1]
	if len(d.In) != 1 || len(d.In[0]) != 1 || vocab < 1 || dim < 1 {
		return nil, fmt.Errorf("embedding of %v, vocabulary %d, dimension %d", d.In, vocab, dim)
	}
	t := d.In[0][0]
	n := batch * t
	ids := a.int64s("ids", batch, t)
	a.then(func() {
		r := rng(0)
		for i := range ids {
			ids[i] = r.Int64N(int64(vocab))
		}
	})
	switch pass {
	case dnn.Forward:
		table, y := a.floats("table", vocab, dim), a.floats("y", batch, t, dim)
		f := func(lo, hi int) {
			for i := lo; i < hi; i++ {
				copy(y[i*dim:(i+1)*dim], table[int(ids[i])*dim:][:dim])
			}
		}
		grain := grainFor(dim)
		return func(p *pool) { p.For(n, grain, f) }, nil
	case dnn.BackwardWeights:
		dy, dw := a.floats("dy", batch, t, dim), a.floats("dtable", vocab, dim)
		zero := func(lo, hi int) { fillZero(dw[lo*dim : hi*dim]) }
		// As ATen's embedding_dense_backward_cpu: the table's rows split
		// among the threads (at::parallel_for over the vocabulary, grain
		// 1,000 rows: a table of fewer rows on one thread), each thread
		// going through every token and adding the gradients of those in
		// its rows, a vector add a token (add_stub; gonum's SSE axpy
		// here, where a scalar loop over the dimension was 1.5–2× ATen's
		// time on small tables).
		scatter := func(lo, hi int) {
			for i, id := range ids {
				if k := int(id); k >= lo && k < hi {
					saxpy(dim, 1, dy[i*dim:(i+1)*dim], 1, dw[k*dim:(k+1)*dim], 1)
				}
			}
		}
		zgrain := grainFor(dim)
		return func(p *pool) {
			p.For(vocab, zgrain, zero)
			p.For(vocab, atenEmbeddingGrain, scatter)
		}, nil
	}
	return nil, unsupportedPass(d.Op, pass)
}

// atenEmbeddingGrain is the rows of the table ATen's embedding backward
// gives a thread at least (at::parallel_for(0, num_weights, 1000, ...) in
// aten/src/ATen/native/Embedding.cpp).
const atenEmbeddingGrain = 1000

// saxpy is gonum's y += αx (assembly on amd64), as sgemm is its product.
var saxpy = gonum.Implementation{}.Saxpy

// zeroBlock is the most fillZero clears at once: below Go's threshold
// for non-temporal stores (32 MiB), so each block is cleared with
// ordinary vector stores.
const zeroBlock = 1 << 18 // floats: 1 MiB

// fillZero zeroes s as ATen's zero_ does a tensor past its grain
// (embedding_dense_backward_cpu's at::zeros of the whole table: fill_(0),
// ordinary vector stores). Go's clear of more than 32 MiB switches to
// non-temporal stores, which skip reading the lines they write: on the
// 2-core EPYC VM it zeroed bert-base's 94 MB table in 0.99 ms on two
// goroutines, where PyTorch's whole embedding backward took 3.1 ms. A
// scalar loop (what this was until 2026-11-29) stores 4 bytes a cycle:
// on the Xeon VM lm's 26.6 MB table, which the cache holds, took 1.14 ms
// against PyTorch's 0.75 ms. Blocks of zeroBlock are cleared with
// ordinary vector stores, as ATen's are.
func fillZero(s []float32) {
	for len(s) > zeroBlock {
		clear(s[:zeroBlock])
		s = s[zeroBlock:]
	}
	clear(s)
}
