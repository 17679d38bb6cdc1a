package cpu

import (
	"fmt"
	"math"
	"testing"

	"github.com/wb-sim/wb/dnn"
)

// convGeom is a convolution's geometry, for the direct references.
type convGeom struct {
	b, c, h, w, o, ho, wo, kh, kw, s, ph, pw, d, g int
}

func geomOf(t *testing.T, l dnn.Layer, batch int) convGeom {
	t.Helper()
	cv, err := newConv(l.(dnn.Describer).Describe(), batch)
	if err != nil {
		t.Fatal(err)
	}
	return convGeom{batch, cv.c, cv.h, cv.w, cv.o, cv.ho, cv.wo, cv.kh, cv.kw, cv.s, cv.ph, cv.pw, cv.d, cv.g}
}

// each calls f for every (sample, output channel, output pixel, input
// channel of the group, kernel tap) whose input pixel lies inside the
// image: the 7 loops of a direct convolution (and the group's).
func (g convGeom) each(f func(xi, wi, yi int)) {
	cg, og := g.c/g.g, g.o/g.g
	for b := range g.b {
		for o := range g.o {
			grp := o / og
			for oh := range g.ho {
				for ow := range g.wo {
					yi := ((b*g.o+o)*g.ho+oh)*g.wo + ow
					for ci := range cg {
						c := grp*cg + ci
						for ki := range g.kh {
							ih := oh*g.s - g.ph + ki*g.d
							if ih < 0 || ih >= g.h {
								continue
							}
							for kj := range g.kw {
								iw := ow*g.s - g.pw + kj*g.d
								if iw < 0 || iw >= g.w {
									continue
								}
								xi := ((b*g.c+c)*g.h+ih)*g.w + iw
								wi := ((o*cg+ci)*g.kh+ki)*g.kw + kj
								f(xi, wi, yi)
							}
						}
					}
				}
			}
		}
	}
}

// transposed is forward's weights [O, C/G·kh·kw] as backward-data keeps
// them: [G][C/G·kh·kw][O/G].
func transposed(g convGeom, w []float32) []float32 {
	og, k := g.o/g.g, g.c/g.g*g.kh*g.kw
	t := make([]float32, len(w))
	for o := range g.o {
		for r := range k {
			t[(o/og*k+r)*og+o%og] = w[o*k+r]
		}
	}
	return t
}

// untransposed undoes transposed.
func untransposed(g convGeom, t []float32) []float32 {
	og, k := g.o/g.g, g.c/g.g*g.kh*g.kw
	w := make([]float32, len(t))
	for o := range g.o {
		for r := range k {
			w[o*k+r] = t[(o/og*k+r)*og+o%og]
		}
	}
	return w
}

// convCases are the convolutions the tests run: strides, asymmetric
// padding, dilation, groups (depthwise too), 1×1 (direct when a sample
// fills a chunk), bias.
var convCases = []struct {
	name  string
	in    dnn.Shape
	c     dnn.Conv
	batch int
}{
	{"3x3 pad1 bias", dnn.Shape{3, 7, 6}, dnn.Conv{Out: 4, Kernel: 3, Pad: 1, Bias: true}, 3},
	{"3x3 stride2", dnn.Shape{4, 9, 8}, dnn.Conv{Out: 5, Kernel: 3, Stride: 2, Pad: 1}, 3},
	{"5x5 stride3 pad2", dnn.Shape{2, 11, 10}, dnn.Conv{Out: 3, Kernel: 5, Stride: 3, Pad: 2, Bias: true}, 2},
	{"1x7 pad0x3", dnn.Shape{3, 6, 9}, dnn.Conv{Out: 2, Kernel: 1, KernelW: 7, PadH: 0, PadW: 3}, 3},
	{"3x3 dilation2", dnn.Shape{2, 9, 9}, dnn.Conv{Out: 3, Kernel: 3, Pad: 2, Dilation: 2}, 2},
	{"groups2", dnn.Shape{4, 6, 6}, dnn.Conv{Out: 6, Kernel: 3, Pad: 1, Groups: 2, Bias: true}, 3},
	{"depthwise stride2", dnn.Shape{4, 7, 7}, dnn.Conv{Out: 4, Kernel: 3, Stride: 2, Pad: 1, Groups: 4}, 2},
	{"1x1", dnn.Shape{5, 4, 6}, dnn.Conv{Out: 3, Kernel: 1, Bias: true}, 3},
	{"1x1 stride2", dnn.Shape{5, 7, 6}, dnn.Conv{Out: 3, Kernel: 1, Stride: 2}, 3},
	{"4x4 stride2 pad1", dnn.Shape{3, 8, 8}, dnn.Conv{Out: 4, Kernel: 4, Stride: 2, Pad: 1, Bias: true}, 2},
}

// withConvCols runs f with convCols set to each of: 1 (one sample per
// product; direct 1×1), 2 output planes (chunks of two samples, the last
// one partial at batch 3) and the default (the whole batch in one chunk).
func withConvCols(t *testing.T, hw int, f func(t *testing.T)) {
	saved := convCols
	defer func() { convCols = saved }()
	for _, cols := range []int{1, 2 * hw, saved} {
		convCols = cols
		t.Run(fmt.Sprintf("cols=%d", cols), f)
	}
}

func TestConvForward(t *testing.T) {
	for _, tt := range convCases {
		t.Run(tt.name, func(t *testing.T) {
			l := layerOf(t, tt.in, func(b *dnn.Builder, x dnn.T) { b.Conv2D("conv", x, tt.c) })
			g := geomOf(t, l, tt.batch)
			withConvCols(t, g.ho*g.wo, func(t *testing.T) {
				k := prepRun(t, l, tt.batch, dnn.Forward)
				x, w := f64(buf(t, k, "x")), f64(buf(t, k, "w"))
				want := make([]float64, g.b*g.o*g.ho*g.wo)
				abs := make([]float64, len(want))
				g.each(func(xi, wi, yi int) {
					want[yi] += x[xi] * w[wi]
					abs[yi] += math.Abs(x[xi] * w[wi])
				})
				if tt.c.Bias {
					bias := f64(buf(t, k, "b"))
					per := g.ho * g.wo
					for i := range want {
						o := i / per % g.o
						want[i] += bias[o]
						abs[i] += math.Abs(bias[o])
					}
				}
				checkClose(t, "y", buf(t, k, "y"), want, dotTol(g.c/g.g*g.kh*g.kw, abs))
			})
		})
	}
}

func TestConvBackwardData(t *testing.T) {
	for _, tt := range convCases {
		t.Run(tt.name, func(t *testing.T) {
			l := layerOf(t, tt.in, func(b *dnn.Builder, x dnn.T) { b.Conv2D("conv", x, tt.c) })
			g := geomOf(t, l, tt.batch)
			withConvCols(t, g.ho*g.wo, func(t *testing.T) {
				k := prepRun(t, l, tt.batch, dnn.BackwardData)
				dy, w := f64(buf(t, k, "dy")), f64(untransposed(g, buf(t, k, "wt")))
				want := make([]float64, g.b*g.c*g.h*g.w)
				abs := make([]float64, len(want))
				g.each(func(xi, wi, yi int) {
					want[xi] += dy[yi] * w[wi]
					abs[xi] += math.Abs(dy[yi] * w[wi])
				})
				// Each input value sums at most Out/G·kh·kw products.
				checkClose(t, "dx", buf(t, k, "dx"), want, dotTol(g.o/g.g*g.kh*g.kw, abs))
			})
		})
	}
}

func TestConvBackwardWeights(t *testing.T) {
	for _, tt := range convCases {
		t.Run(tt.name, func(t *testing.T) {
			l := layerOf(t, tt.in, func(b *dnn.Builder, x dnn.T) { b.Conv2D("conv", x, tt.c) })
			g := geomOf(t, l, tt.batch)
			withConvCols(t, g.ho*g.wo, func(t *testing.T) {
				k := prepRun(t, l, tt.batch, dnn.BackwardWeights)
				dy, x := f64(buf(t, k, "dy")), f64(buf(t, k, "x"))
				want := make([]float64, g.o*g.c/g.g*g.kh*g.kw)
				abs := make([]float64, len(want))
				g.each(func(xi, wi, yi int) {
					want[wi] += dy[yi] * x[xi]
					abs[wi] += math.Abs(dy[yi] * x[xi])
				})
				terms := g.b * g.ho * g.wo
				checkClose(t, "dw", buf(t, k, "dw"), want, dotTol(terms, abs))
				if tt.c.Bias {
					db := make([]float64, g.o)
					dbAbs := make([]float64, g.o)
					per := g.ho * g.wo
					for i, v := range dy {
						db[i/per%g.o] += v
						dbAbs[i/per%g.o] += math.Abs(v)
					}
					checkClose(t, "db", buf(t, k, "db"), db, dotTol(terms, dbAbs))
				}
			})
		})
	}
}

// TestConvAdjoint checks that backward-data is the adjoint of the forward
// convolution (without bias): ⟨conv(x), y⟩ = ⟨x, conv_bwd_data(y)⟩, both
// sides summed in float64 from float32 results. The tolerance is the
// float32 dot-product bound (dotTol) on each side, summed over the values.
func TestConvAdjoint(t *testing.T) {
	for _, tt := range convCases {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.c
			c.Bias = false
			l := layerOf(t, tt.in, func(b *dnn.Builder, x dnn.T) { b.Conv2D("conv", x, c) })
			g := geomOf(t, l, tt.batch)
			withConvCols(t, g.ho*g.wo, func(t *testing.T) {
				fwd := prepare(t, l, tt.batch, dnn.Forward)
				bwd := prepare(t, l, tt.batch, dnn.BackwardData)
				copy(buf(t, bwd, "wt"), transposed(g, buf(t, fwd, "w")))
				runOnce(t, fwd)
				runOnce(t, bwd)
				x, y, dy, dx := buf(t, fwd, "x"), buf(t, fwd, "y"), buf(t, bwd, "dy"), buf(t, bwd, "dx")
				var lhs, rhs, mag float64
				for i, v := range y {
					lhs += float64(v) * float64(dy[i])
					mag += math.Abs(float64(v) * float64(dy[i]))
				}
				for i, v := range x {
					rhs += float64(v) * float64(dx[i])
					mag += math.Abs(float64(v) * float64(dx[i]))
				}
				k := g.c / g.g * g.kh * g.kw
				if tol := float64(k+2) * u32 * mag * 4; math.Abs(lhs-rhs) > tol {
					t.Errorf("⟨conv(x), y⟩ = %.9g, ⟨x, conv_bwd_data(y)⟩ = %.9g (±%.3g)", lhs, rhs, tol)
				}
			})
		})
	}
}
