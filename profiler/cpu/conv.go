package cpu

import (
	"fmt"

	"github.com/wb-sim/wb/dnn"
)

// convCols is the number of columns (samples × output pixels) a
// convolution's SGEMM aims for: samples are gathered into one product until
// it has this many. gemm shares 64×64 blocks of the output among the
// pool's workers, so a plane of 14×14 outputs alone gives too few blocks to
// keep the cores busy; 4096 columns give 64 blocks per 64 output channels.
// A variable so that the benchmarks can compare chunk sizes.
var convCols = 4096

// convColBytes bounds the column buffer: a chunk holds fewer samples
// rather than exceed it (but at least one).
const convColBytes = 64 << 20

// conv is a prepared 2-D convolution.
type conv struct {
	batch, c, h, w, o, ho, wo int
	kh, kw, s, ph, pw, d, g   int
	cg, og                    int // channels per group, in and out
	k                         int // cg·kh·kw: the columns' rows per group
	rows                      int // c·kh·kw: all groups' rows
	hw                        int // ho·wo
	cs                        int // samples per chunk
	ld                        int // the column buffer's stride: cs·hw
	direct                    bool

	x, wt, bias, y, dy, dx, dw, db []float32
	col, tmp                       []float32 // columns (or their gradients); the output (or its gradient) of a chunk

	b0, n int // the chunk being run: first sample, samples

	im2colF, col2imF, scatterF, gatherF, biasRowsF, biasGradF func(lo, hi int)
}

func descInt(d dnn.Desc, key dnn.AttrKey) (int, error) {
	v, ok := d.Attr[key]
	if !ok {
		return 0, fmt.Errorf("%s: attribute %q missing", d.Op, key)
	}
	return v, nil
}

func descInts(d dnn.Desc, keys ...dnn.AttrKey) ([]int, error) {
	out := make([]int, len(keys))
	for i, k := range keys {
		v, err := descInt(d, k)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// newConv reads a convolution's description.
func newConv(d dnn.Desc, batch int) (*conv, error) {
	if len(d.In) != 1 || len(d.In[0]) != 3 || len(d.Out) != 3 {
		return nil, fmt.Errorf("conv2d wants one [C, H, W] input and a [O, Ho, Wo] output, got %v → %v", d.In, d.Out)
	}
	v, err := descInts(d, dnn.AttrOut, dnn.AttrKH, dnn.AttrKW, dnn.AttrStride, dnn.AttrPH, dnn.AttrPW, dnn.AttrDilation, dnn.AttrGroups)
	if err != nil {
		return nil, err
	}
	in := d.In[0]
	cv := &conv{batch: batch, c: in[0], h: in[1], w: in[2], o: v[0], ho: d.Out[1], wo: d.Out[2],
		kh: v[1], kw: v[2], s: v[3], ph: v[4], pw: v[5], d: v[6], g: v[7]}
	if cv.o != d.Out[0] || cv.g < 1 || cv.c%cv.g != 0 || cv.o%cv.g != 0 || cv.s < 1 || cv.d < 1 {
		return nil, fmt.Errorf("conv2d: inconsistent description %v → %v %v", d.In, d.Out, d.Attr)
	}
	cv.cg, cv.og = cv.c/cv.g, cv.o/cv.g
	cv.k = cv.cg * cv.kh * cv.kw
	cv.rows = cv.c * cv.kh * cv.kw
	cv.hw = cv.ho * cv.wo
	cv.cs = 1
	if cv.hw < convCols {
		cv.cs = min(batch, (convCols+cv.hw-1)/cv.hw)
	}
	for cv.cs > 1 && cv.cs*cv.hw*cv.rows*4 > convColBytes {
		cv.cs--
	}
	cv.ld = cv.cs * cv.hw
	cv.direct = cv.cs == 1 && cv.kh == 1 && cv.kw == 1 && cv.s == 1 && cv.ph == 0 && cv.pw == 0
	return cv, nil
}

func prepConv(a *arena, d dnn.Desc, batch int, pass dnn.Pass) (func(*pool), error) {
	cv, err := newConv(d, batch)
	if err != nil {
		return nil, err
	}
	hasBias := d.Attr[dnn.AttrBias] == 1
	in, out := cv.c*cv.h*cv.w, cv.o*cv.hw
	switch pass {
	case dnn.Forward:
		cv.x = a.floats("x", batch, in)
		cv.wt = a.floats("w", cv.o, cv.k)
		if hasBias {
			cv.bias = a.floats("b", cv.o)
		}
		cv.y = a.floats("y", batch, out)
		if !cv.direct {
			cv.col = a.scratch("col", cv.rows, cv.ld)
		}
		if cv.cs > 1 {
			cv.tmp = a.scratch("ychunk", cv.o, cv.ld)
		}
	case dnn.BackwardData:
		cv.dy = a.floats("dy", batch, out)
		cv.wt = a.floats("wt", cv.g, cv.k, cv.og) // transposed per group
		cv.dx = a.floats("dx", batch, in)
		if !cv.direct {
			cv.col = a.scratch("dcol", cv.rows, cv.ld)
		}
		if cv.cs > 1 {
			cv.tmp = a.scratch("dychunk", cv.o, cv.ld)
		}
	case dnn.BackwardWeights:
		cv.x = a.floats("x", batch, in)
		cv.dy = a.floats("dy", batch, out)
		cv.dw = a.floats("dw", cv.o, cv.k)
		if hasBias {
			cv.db = a.floats("db", cv.o)
		}
		if !cv.direct {
			cv.col = a.scratch("col", cv.rows, cv.ld)
		}
		if cv.cs > 1 {
			cv.tmp = a.scratch("dychunk", cv.o, cv.ld)
		}
	default:
		return nil, unsupportedPass(d.Op, pass)
	}
	cv.im2colF = cv.im2colUnits
	cv.col2imF = cv.col2imUnits
	cv.scatterF = cv.scatterUnits
	cv.gatherF = cv.gatherUnits
	cv.biasRowsF = cv.biasRowsUnits
	cv.biasGradF = cv.biasGradUnits
	switch pass {
	case dnn.Forward:
		return cv.forward, nil
	case dnn.BackwardData:
		return cv.backwardData, nil
	}
	return cv.backwardWeights, nil
}

// colGrain is the grain of loops over column rows (each of hw values).
func (cv *conv) colGrain() int { return grainFor(cv.hw) }

// columns fills the column matrix of the current chunk, or returns the
// input itself when the convolution is direct; it returns the matrix and
// its stride.
func (cv *conv) columns(p *pool) ([]float32, int) {
	if cv.direct {
		return cv.x[cv.b0*cv.c*cv.h*cv.w:], cv.hw
	}
	p.For(cv.n*cv.rows, cv.colGrain(), cv.im2colF)
	return cv.col, cv.ld
}

// dyChunk returns the output gradient of the current chunk as an
// [O, n·hw] matrix, gathering it when the chunk has several samples.
func (cv *conv) dyChunk(p *pool) ([]float32, int) {
	if cv.cs == 1 {
		return cv.dy[cv.b0*cv.o*cv.hw:], cv.hw
	}
	p.For(cv.n*cv.o, cv.colGrain(), cv.gatherF)
	return cv.tmp, cv.ld
}

func (cv *conv) forward(p *pool) {
	for cv.b0 = 0; cv.b0 < cv.batch; cv.b0 += cv.cs {
		cv.n = min(cv.cs, cv.batch-cv.b0)
		cols, ldc := cv.columns(p)
		out, ldo, beta := cv.tmp, cv.ld, float32(0)
		if cv.cs == 1 {
			out, ldo = cv.y[cv.b0*cv.o*cv.hw:], cv.hw
			if cv.bias != nil {
				p.For(cv.o, cv.colGrain(), cv.biasRowsF)
				beta = 1
			}
		}
		for g := range cv.g {
			gemm(p, false, false, cv.og, cv.n*cv.hw, cv.k, 1,
				cv.wt[g*cv.og*cv.k:], cv.k,
				cols[g*cv.k*ldc:], ldc,
				beta, out[g*cv.og*ldo:], ldo)
		}
		if cv.cs > 1 {
			p.For(cv.n*cv.o, cv.colGrain(), cv.scatterF)
		}
	}
}

func (cv *conv) backwardData(p *pool) {
	for cv.b0 = 0; cv.b0 < cv.batch; cv.b0 += cv.cs {
		cv.n = min(cv.cs, cv.batch-cv.b0)
		dy, ldy := cv.dyChunk(p)
		dcol, ldc := cv.col, cv.ld
		if cv.direct {
			dcol, ldc = cv.dx[cv.b0*cv.c*cv.h*cv.w:], cv.hw
		}
		for g := range cv.g {
			gemm(p, false, false, cv.k, cv.n*cv.hw, cv.og, 1,
				cv.wt[g*cv.k*cv.og:], cv.og,
				dy[g*cv.og*ldy:], ldy,
				0, dcol[g*cv.k*ldc:], ldc)
		}
		if !cv.direct {
			p.For(cv.n*cv.c, max(1, cv.colGrain()/(cv.kh*cv.kw)), cv.col2imF)
		}
	}
}

func (cv *conv) backwardWeights(p *pool) {
	for cv.b0 = 0; cv.b0 < cv.batch; cv.b0 += cv.cs {
		cv.n = min(cv.cs, cv.batch-cv.b0)
		cols, ldc := cv.columns(p)
		dy, ldy := cv.dyChunk(p)
		beta := float32(1)
		if cv.b0 == 0 {
			beta = 0
		}
		for g := range cv.g {
			gemm(p, false, true, cv.og, cv.k, cv.n*cv.hw, 1,
				dy[g*cv.og*ldy:], ldy,
				cols[g*cv.k*ldc:], ldc,
				beta, cv.dw[g*cv.og*cv.k:], cv.k)
		}
	}
	if cv.db != nil {
		p.For(cv.o, 1, cv.biasGradF)
	}
}

// im2colUnits fills column rows: unit u is row u%rows of sample u/rows of
// the chunk.
func (cv *conv) im2colUnits(lo, hi int) {
	plane := cv.h * cv.w
	for u := lo; u < hi; u++ {
		i, r := u/cv.rows, u%cv.rows
		ch, rem := r/(cv.kh*cv.kw), r%(cv.kh*cv.kw)
		ki, kj := rem/cv.kw, rem%cv.kw
		src := cv.x[((cv.b0+i)*cv.c+ch)*plane:][:plane]
		dst := cv.col[r*cv.ld+i*cv.hw:][:cv.hw]
		off := kj*cv.d - cv.pw
		owLo, owHi := cv.validCols(off)
		for oh := range cv.ho {
			row := dst[oh*cv.wo : (oh+1)*cv.wo]
			ih := oh*cv.s - cv.ph + ki*cv.d
			if ih < 0 || ih >= cv.h {
				clear(row)
				continue
			}
			in := src[ih*cv.w : (ih+1)*cv.w]
			clear(row[:owLo])
			clear(row[owHi:])
			if cv.s == 1 {
				copy(row[owLo:owHi], in[owLo+off:owHi+off])
			} else {
				for ow := owLo; ow < owHi; ow++ {
					row[ow] = in[ow*cv.s+off]
				}
			}
		}
	}
}

// validCols is the range of output columns ow whose input column
// ow·s + off lies inside the input.
func (cv *conv) validCols(off int) (lo, hi int) {
	if off < 0 {
		lo = (-off + cv.s - 1) / cv.s
	}
	if last := cv.w - 1 - off; last >= 0 {
		hi = last/cv.s + 1
	}
	lo = min(lo, cv.wo)
	hi = max(lo, min(hi, cv.wo))
	return lo, hi
}

// col2imUnits sums column-gradient rows into the input gradient: unit u
// is channel u%c of sample u/c of the chunk, which only its own kh·kw rows
// touch.
func (cv *conv) col2imUnits(lo, hi int) {
	plane := cv.h * cv.w
	for u := lo; u < hi; u++ {
		i, ch := u/cv.c, u%cv.c
		dst := cv.dx[((cv.b0+i)*cv.c+ch)*plane:][:plane]
		clear(dst)
		for ki := range cv.kh {
			for kj := range cv.kw {
				r := (ch*cv.kh+ki)*cv.kw + kj
				src := cv.col[r*cv.ld+i*cv.hw:][:cv.hw]
				off := kj*cv.d - cv.pw
				owLo, owHi := cv.validCols(off)
				for oh := range cv.ho {
					ih := oh*cv.s - cv.ph + ki*cv.d
					if ih < 0 || ih >= cv.h {
						continue
					}
					out := dst[ih*cv.w : (ih+1)*cv.w]
					row := src[oh*cv.wo : (oh+1)*cv.wo]
					if cv.s == 1 {
						o := out[owLo+off : owHi+off]
						for j, v := range row[owLo:owHi] {
							o[j] += v
						}
					} else {
						for ow := owLo; ow < owHi; ow++ {
							out[ow*cv.s+off] += row[ow]
						}
					}
				}
			}
		}
	}
}

// scatterUnits moves the chunk's output to NCHW, adding the bias: unit u
// is channel u%o of sample u/o.
func (cv *conv) scatterUnits(lo, hi int) {
	for u := lo; u < hi; u++ {
		i, o := u/cv.o, u%cv.o
		src := cv.tmp[o*cv.ld+i*cv.hw:][:cv.hw]
		dst := cv.y[((cv.b0+i)*cv.o+o)*cv.hw:][:cv.hw]
		if cv.bias == nil {
			copy(dst, src)
			continue
		}
		b := cv.bias[o]
		for j, v := range src {
			dst[j] = v + b
		}
	}
}

// gatherUnits moves the chunk's output gradient from NCHW to [O, n·hw].
func (cv *conv) gatherUnits(lo, hi int) {
	for u := lo; u < hi; u++ {
		i, o := u/cv.o, u%cv.o
		copy(cv.tmp[o*cv.ld+i*cv.hw:][:cv.hw], cv.dy[((cv.b0+i)*cv.o+o)*cv.hw:][:cv.hw])
	}
}

// biasRowsUnits sets the output rows of sample b0 to the bias, before a
// product that adds to them.
func (cv *conv) biasRowsUnits(lo, hi int) {
	for o := lo; o < hi; o++ {
		row := cv.y[(cv.b0*cv.o+o)*cv.hw:][:cv.hw]
		b := cv.bias[o]
		for j := range row {
			row[j] = b
		}
	}
}

// biasGradUnits sums the output gradient of channels [lo, hi).
func (cv *conv) biasGradUnits(lo, hi int) {
	for o := lo; o < hi; o++ {
		var s float32
		for b := range cv.batch {
			for _, v := range cv.dy[(b*cv.o+o)*cv.hw:][:cv.hw] {
				s += v
			}
		}
		cv.db[o] = s
	}
}
