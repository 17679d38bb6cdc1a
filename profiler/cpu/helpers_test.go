package cpu

import (
	"fmt"
	"math"
	"testing"

	"github.com/wb-sim/wb/dnn"
)

// u32 is float32's unit roundoff, 2⁻²⁴.
const u32 = 1.0 / (1 << 24)

func newBackend(t testing.TB) *Backend {
	t.Helper()
	b, err := New()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// layerOf builds a one-input network on a sample shape with add and
// returns its last layer.
func layerOf(t testing.TB, in dnn.Shape, add func(b *dnn.Builder, x dnn.T)) dnn.Layer {
	t.Helper()
	b, x := dnn.NewBuilder("test", in)
	add(b, x)
	n, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return n.Nodes[len(n.Nodes)-1].Layer
}

// prepare prepares a pass of l without running it; the kernel is closed
// when the test ends.
func prepare(t testing.TB, l dnn.Layer, batch int, pass dnn.Pass) *kernel {
	t.Helper()
	k, err := newBackend(t).Prepare(l, batch, pass, dnn.FP32)
	if err != nil {
		t.Fatalf("prepare %s %v: %v", l.Key(), pass, err)
	}
	t.Cleanup(func() { k.Close() })
	return k.(*kernel)
}

// runOnce runs a kernel once, every loop split among the workers.
func runOnce(t testing.TB, k *kernel) {
	t.Helper()
	maxGrain = 1
	defer func() { maxGrain = 0 }()
	ds, err := k.Time(1)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 1 || ds[0] < 0 {
		t.Fatalf("%s: Time(1) = %v", k.name, ds)
	}
}

// prepRun prepares a pass and runs it once.
func prepRun(t testing.TB, l dnn.Layer, batch int, pass dnn.Pass) *kernel {
	t.Helper()
	k := prepare(t, l, batch, pass)
	runOnce(t, k)
	return k
}

func f64(s []float32) []float64 {
	out := make([]float64, len(s))
	for i, v := range s {
		out[i] = float64(v)
	}
	return out
}

// buf returns a kernel's float buffer, failing the test if it has none of
// that name.
func buf(t testing.TB, k *kernel, name string) []float32 {
	t.Helper()
	s, ok := k.f[name]
	if !ok {
		names := make([]string, 0, len(k.f))
		for n := range k.f {
			names = append(names, n)
		}
		t.Fatalf("%s: no buffer %q (have %v)", k.name, name, names)
	}
	return s
}

// checkClose compares got with want value by value: |got − want| must be
// at most tol(i).
func checkClose(t testing.TB, what string, got []float32, want []float64, tol func(i int) float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	bad := 0
	for i, w := range want {
		g := float64(got[i])
		if math.IsNaN(g) || math.Abs(g-w) > tol(i) {
			if bad < 5 {
				t.Errorf("%s[%d] = %.9g, want %.9g (±%.3g)", what, i, g, w, tol(i))
			}
			bad++
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d values of %d off", what, bad, len(want))
	}
}

// dotTol is the tolerance of a value computed in float32 as a sum of k
// products whose absolute values sum to abs[i]: the first-order bound on
// the rounding error of a k-term float32 dot product, γ_k·Σ|xᵢyᵢ| with
// γ_k ≈ k·u (Higham, Accuracy and Stability of Numerical Algorithms,
// §3.1), with k+2 for the bias add and the final rounding, plus 1e-30 so
// that exact zeros compare.
func dotTol(k int, abs []float64) func(int) float64 {
	return func(i int) float64 { return float64(k+2)*u32*abs[i] + 1e-30 }
}

// relTol is a tolerance relative to the reference's largest magnitude, for
// results of a few float32 operations per value (rel is then a small
// multiple of u32) or of a finite-difference reference.
func relTol(rel float64, want []float64) func(int) float64 {
	m := 1.0
	for _, w := range want {
		m = max(m, math.Abs(w))
	}
	return func(int) float64 { return rel * m }
}

// fdGrad is the gradient of L(x) = Σ dy·f(x) by central differences, in
// float64 (h = 1e-6: truncation error O(h²), rounding O(ε/h), both far
// below the float32 kernels' errors).
func fdGrad(f func(x []float64) []float64, x, dy []float64) []float64 {
	const h = 1e-6
	loss := func() float64 {
		var s float64
		for i, v := range f(x) {
			s += dy[i] * v
		}
		return s
	}
	g := make([]float64, len(x))
	for i := range x {
		x0 := x[i]
		x[i] = x0 + h
		lp := loss()
		x[i] = x0 - h
		lm := loss()
		x[i] = x0
		g[i] = (lp - lm) / (2 * h)
	}
	return g
}

func sigmoid64(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func name(parts ...any) string { return fmt.Sprint(parts...) }

// described is a layer known only by its description, for shapes the
// zoo's builders do not offer (a small instance normalisation or
// up-sampling). Its work is nominal: non-zero in every pass.
type described struct {
	d      dnn.Desc
	params int64
}

func (l *described) Op() dnn.Op                                 { return l.d.Op }
func (l *described) Out() dnn.Shape                             { return l.d.Out }
func (l *described) Params() int64                              { return l.params }
func (l *described) Key() string                                { return fmt.Sprintf("%s %v %v", l.d.Op, l.d.In, l.d.Attr) }
func (l *described) Work(int, dnn.Pass, dnn.Precision) dnn.Work { return dnn.Work{FLOPs: 1} }
func (l *described) Describe() dnn.Desc                         { return l.d }

func describedLayer(op dnn.Op, in, out dnn.Shape, attr dnn.Attrs) *described {
	if attr == nil {
		attr = dnn.Attrs{}
	}
	return &described{d: dnn.Desc{Op: op, In: []dnn.Shape{in}, Out: out, Attr: attr}}
}
