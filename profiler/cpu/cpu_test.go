package cpu

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/profiler"
)

func TestDevice(t *testing.T) {
	b := newBackend(t)
	d := b.Device()
	if b.Name() != "cpu" || d.Predictor != "cpu" || !strings.HasPrefix(d.Name, "cpu: ") || !strings.Contains(d.Name, " cores") {
		t.Errorf("name %q, device %+v", b.Name(), d)
	}
	if d.Versions["go"] != runtime.Version() || d.Versions["gonum"] == "" {
		t.Errorf("versions %v", d.Versions)
	}
	d.Versions["go"] = "changed"
	if b.Device().Versions["go"] != runtime.Version() {
		t.Error("Device shares its versions map with the caller")
	}
	if b.MemLimit <= 0 {
		t.Errorf("memory limit %d", b.MemLimit)
	}
}

func TestParseCPUInfo(t *testing.T) {
	const smt = "processor\t: 0\nmodel name\t: AMD EPYC 7R13 Processor\nsiblings\t: 16\ncpu cores\t: 8\n\nprocessor\t: 1\nmodel name\t: other\n"
	for _, tt := range []struct {
		text           string
		logical        int
		model          string
		cores, threads int
	}{
		{smt, 16, "AMD EPYC 7R13 Processor", 8, 16},
		{smt, 3, "AMD EPYC 7R13 Processor", 2, 3},
		{"processor : 0\nmodel name : AMD EPYC\n", 2, "AMD EPYC", 2, 2},
		{"", 4, "", 4, 4},
	} {
		model, cores, threads := parseCPUInfo(strings.NewReader(tt.text), tt.logical)
		if model != tt.model || cores != tt.cores || threads != tt.threads {
			t.Errorf("%q with %d CPUs: %q, %d cores, %d threads; want %q, %d, %d", tt.text, tt.logical, model, cores, threads, tt.model, tt.cores, tt.threads)
		}
	}
}

// fftLayer is a layer of an op the backend does not know.
type fftLayer struct{ described }

func TestUnsupported(t *testing.T) {
	b := newBackend(t)
	conv := layerOf(t, dnn.Shape{3, 8, 8}, func(b *dnn.Builder, x dnn.T) { b.Conv2D("c", x, dnn.Conv{Out: 4, Kernel: 3}) })
	for _, prec := range []dnn.Precision{dnn.FP16, dnn.BF16} {
		_, err := b.Prepare(conv, 1, dnn.Forward, prec)
		if !errors.Is(err, profiler.ErrUnsupported) || !strings.Contains(err.Error(), "fp32 only") || !strings.Contains(err.Error(), "conv2d fwd") {
			t.Errorf("%s: %v, want ErrUnsupported naming the op, the pass and fp32", prec, err)
		}
	}
	k, err := b.Prepare(conv, 1, dnn.Forward, dnn.TF32)
	if err != nil {
		t.Errorf("tf32: %v", err)
	} else {
		k.Close()
	}
	fft := &fftLayer{*describedLayer("fft", dnn.Shape{8}, dnn.Shape{8}, nil)}
	_, err = b.Prepare(fft, 1, dnn.BackwardData, dnn.FP32)
	if !errors.Is(err, profiler.ErrUnsupported) || !strings.Contains(err.Error(), `"fft"`) || !strings.Contains(err.Error(), "bwd-data") {
		t.Errorf("fft: %v, want ErrUnsupported naming op and pass", err)
	}
	// An op with a kernel, in a pass it has none for.
	add := describedLayer("add", dnn.Shape{8}, dnn.Shape{8}, nil)
	add.d.In = append(add.d.In, dnn.Shape{8})
	if _, err = b.Prepare(add, 1, dnn.BackwardData, dnn.FP32); !errors.Is(err, profiler.ErrUnsupported) {
		t.Errorf("add bwd-data with work: %v, want ErrUnsupported", err)
	}
	if _, err = b.Prepare(conv, 0, dnn.Forward, dnn.FP32); err == nil || errors.Is(err, profiler.ErrUnsupported) {
		t.Errorf("batch 0: %v, want a plain error", err)
	}
	if _, err = b.Prepare(conv, 1, dnn.Forward, "fp8"); err == nil {
		t.Error("fp8: no error")
	}
}

func TestOutOfMemory(t *testing.T) {
	b := newBackend(t)
	conv := layerOf(t, dnn.Shape{64, 56, 56}, func(b *dnn.Builder, x dnn.T) { b.Conv2D("c", x, dnn.Conv{Out: 64, Kernel: 3, Pad: 1}) })
	for _, batch := range []int{1 << 40, math.MaxInt / 2} {
		_, err := b.Prepare(conv, batch, dnn.Forward, dnn.FP32)
		if !errors.Is(err, profiler.ErrOutOfMemory) {
			t.Errorf("batch %d: %v, want ErrOutOfMemory", batch, err)
		}
	}
	b.MemLimit = 1 << 20
	_, err := b.Prepare(conv, 1, dnn.BackwardWeights, dnn.FP32)
	if !errors.Is(err, profiler.ErrOutOfMemory) || !strings.Contains(err.Error(), "more than the 0.001049 GB the profiler allocates at most (its memory limit") {
		t.Errorf("1 MiB limit: %v, want ErrOutOfMemory", err)
	}
	lm, err := dnn.Model("lm")
	if err != nil {
		t.Fatal(err)
	}
	for _, node := range lm.Nodes {
		for _, p := range dnn.Passes {
			if _, err := b.Prepare(node.Layer, 1<<45, p, dnn.FP32); err != nil && !errors.Is(err, profiler.ErrOutOfMemory) {
				t.Errorf("%s %v at an absurd batch: %v", node.Name, p, err)
			}
		}
	}
}

// TestDeterministic checks that two preparations of a pass hold the same
// bits, and that the buffers are not all alike.
func TestDeterministic(t *testing.T) {
	l := layerOf(t, dnn.Shape{8}, func(b *dnn.Builder, x dnn.T) { b.LSTM("lstm", b.Embedding("e", x, 50, 6), 4, 2) })
	for _, p := range []dnn.Pass{dnn.Forward, dnn.BackwardData, dnn.BackwardWeights, dnn.Update} {
		k1, k2 := prepare(t, l, 3, p), prepare(t, l, 3, p)
		if len(k1.f) == 0 {
			t.Fatalf("%v: no buffers", p)
		}
		for name, s := range k1.f {
			s2 := k2.f[name]
			if len(s) != len(s2) {
				t.Fatalf("%v %s: lengths %d and %d", p, name, len(s), len(s2))
			}
			for i := range s {
				if math.Float32bits(s[i]) != math.Float32bits(s2[i]) {
					t.Fatalf("%v %s[%d]: %g and %g", p, name, i, s[i], s2[i])
				}
			}
		}
	}
	k := prepare(t, l, 3, dnn.Forward)
	x, w := k.f["x"], k.f["wih0"]
	if x[0] == w[0] && x[1] == w[1] {
		t.Error("two buffers start alike: one stream for all?")
	}
	lo, hi := float32(1), float32(-1)
	for _, v := range x {
		lo, hi = min(lo, v), max(hi, v)
	}
	if lo < -1 || hi >= 1 || hi-lo < 1.5 {
		t.Errorf("x spans [%g, %g], want most of [−1, 1)", lo, hi)
	}
}

// TestZeroWork checks that passes without work prepare a kernel that runs.
func TestZeroWork(t *testing.T) {
	b := newBackend(t)
	reshape := layerOf(t, dnn.Shape{4, 6}, func(b *dnn.Builder, x dnn.T) { b.Reshape("r", x, dnn.Shape{24}) })
	relu := layerOf(t, dnn.Shape{4, 6}, func(b *dnn.Builder, x dnn.T) { b.ReLU("r", x) })
	for _, c := range []struct {
		l dnn.Layer
		p dnn.Pass
	}{{reshape, dnn.Forward}, {reshape, dnn.BackwardData}, {relu, dnn.BackwardWeights}, {relu, dnn.Update}} {
		k, err := b.Prepare(c.l, 4, c.p, dnn.FP32)
		if err != nil {
			t.Fatalf("%s %v: %v", c.l.Op(), c.p, err)
		}
		ds, err := k.Time(3)
		if err != nil || len(ds) != 3 {
			t.Errorf("%s %v: %v, %v", c.l.Op(), c.p, ds, err)
		}
		k.Close()
	}
}

func TestClosed(t *testing.T) {
	k := prepare(t, layerOf(t, dnn.Shape{4}, func(b *dnn.Builder, x dnn.T) { b.ReLU("r", x) }), 2, dnn.Forward)
	if ds, err := k.Time(2); err != nil || len(ds) != 2 {
		t.Fatalf("Time(2) = %v, %v", ds, err)
	}
	if _, err := k.Time(-1); err == nil {
		t.Error("Time(-1): no error")
	}
	k.Close()
	if _, err := k.Time(1); err == nil {
		t.Error("Time after Close: no error")
	}
}

// TestNoAllocs checks that a timed run allocates nothing: the loops and
// matrix products run on the pool's workers, which start no goroutines.
func TestNoAllocs(t *testing.T) {
	layers := []dnn.Layer{
		layerOf(t, dnn.Shape{16, 12, 12}, func(b *dnn.Builder, x dnn.T) { b.BatchNorm("bn", x) }),
		layerOf(t, dnn.Shape{16, 12, 12}, func(b *dnn.Builder, x dnn.T) { b.MaxPool("p", x, 3, 2, 1) }),
		layerOf(t, dnn.Shape{16, 32}, func(b *dnn.Builder, x dnn.T) { b.LayerNorm("ln", x) }),
		layerOf(t, dnn.Shape{16, 32}, func(b *dnn.Builder, x dnn.T) { b.Softmax("sm", x) }),
		// 4 samples of 6×6 outputs: 144 columns, 3 of gonum's 64-wide blocks,
		// under the 4 it goes parallel at.
		layerOf(t, dnn.Shape{4, 6, 6}, func(b *dnn.Builder, x dnn.T) { b.Conv2D("c", x, dnn.Conv{Out: 4, Kernel: 3, Pad: 1}) }),
		// 128 output channels × 16×16 outputs: 8 blocks, shared among the
		// workers.
		layerOf(t, dnn.Shape{32, 16, 16}, func(b *dnn.Builder, x dnn.T) { b.Conv2D("c", x, dnn.Conv{Out: 128, Kernel: 3, Pad: 1}) }),
		layerOf(t, dnn.Shape{300}, func(b *dnn.Builder, x dnn.T) { b.Linear("fc", x, 300, true) }),
	}
	p := newPool(4)
	defer p.stop()
	for _, l := range layers {
		for _, pass := range []dnn.Pass{dnn.Forward, dnn.BackwardData} {
			k := prepare(t, l, 4, pass)
			if a := testing.AllocsPerRun(5, func() { k.run(p) }); a != 0 {
				t.Errorf("%s: %.0f allocations per run", k.name, a)
			}
		}
	}
}

// TestZoo prepares every pass of every distinct layer of the zoo at batch
// 1 and runs the cheap ones once (all of them without -short would take
// minutes).
func TestZoo(t *testing.T) {
	b := newBackend(t)
	seen := map[string]bool{}
	prepared := map[string]bool{} // a layer's kind and pass, prepared on one layer at least
	ran, skipped := 0, 0
	for _, e := range dnn.Zoo() {
		n, err := e.Build()
		if err != nil {
			t.Fatal(err)
		}
		for _, node := range n.Nodes {
			l := node.Layer
			if seen[l.Key()] {
				continue
			}
			seen[l.Key()] = true
			for _, p := range dnn.Passes {
				// a pass of over 16 MB whose shape class (the layer's key
				// but for its sizes: the same kernel, strides, flags) a
				// layer was prepared for already: allocating and filling
				// the large ones (a language model's embedding and head,
				// the updates' weights, momenta and gradients) took most
				// of this test's time, on code paths a smaller one took
				kind := shapeClass(l) + " " + p.String()
				if w := l.Work(1, p, dnn.FP32); w.Bytes() > 1<<24 && prepared[kind] {
					skipped++
					continue
				}
				prepared[kind] = true
				k, err := b.Prepare(l, 1, p, dnn.FP32)
				if err != nil {
					t.Errorf("%s %s (%s) %v: %v", e.Name, node.Name, l.Key(), p, err)
					continue
				}
				if w := l.Work(1, p, dnn.FP32); w.FLOPs < 2e7 && w.Bytes() < 2e7 {
					if _, err := k.Time(1); err != nil {
						t.Errorf("%s %s %v: %v", e.Name, node.Name, p, err)
					}
					ran++
				}
				k.Close()
			}
		}
	}
	t.Logf("%d distinct layers, %d passes run, %d passes over 16 MB of a shape class prepared already left out", len(seen), ran, skipped)
}

// sizes are the numbers of a layer's key that are sizes (16 and more):
// kernel sides, strides, paddings and head counts stay.
var sizes = regexp.MustCompile(`[1-9][0-9]{2,}|[2-9][0-9]|1[6-9]`)

// shapeClass is l's key with its sizes replaced by N.
func shapeClass(l dnn.Layer) string { return sizes.ReplaceAllString(l.Key(), "N") }

// TestCountCores: the distinct (physical id, core id) pairs, two sockets
// of two cores with two threads each: four cores of eight CPUs.
func TestCountCores(t *testing.T) {
	var b strings.Builder
	for cpu := range 8 {
		fmt.Fprintf(&b, "processor\t: %d\nphysical id\t: %d\ncore id\t\t: %d\n\n", cpu, cpu/4, cpu%2)
	}
	if n := countCores(strings.NewReader(b.String())); n != 4 {
		t.Errorf("%d cores, want 4", n)
	}
	if n := countCores(strings.NewReader("processor : 0\nmodel name : x\n")); n != 0 {
		t.Errorf("no core ids: %d, want 0", n)
	}
	if n := Cores(); n < 1 {
		t.Errorf("Cores() = %d", n)
	}
}
