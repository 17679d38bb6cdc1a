package onednn_test

import (
	"errors"
	"os"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/profiler"
	"github.com/wb-sim/wb/profiler/onednn"
)

// newBackend opens the backend. Where the libraries are missing it skips,
// except in CI, whose set-up (.ci/run) installs them: there it fails.
func newBackend(t testing.TB) *onednn.Backend {
	t.Helper()
	// Kernels run on the thread that built them (the test's goroutine is
	// its own until the test ends).
	runtime.LockOSThread()
	b, err := onednn.New()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI installs libdnnl-dev and libopenblas-dev (.ci/run), yet: %v", err)
		}
		t.Skipf("libraries missing: %v", err)
	}
	return b
}

func layer(t testing.TB, model, node string) dnn.Layer {
	t.Helper()
	n, err := dnn.Model(model)
	if err != nil {
		t.Fatal(err)
	}
	for _, nd := range n.Nodes {
		if nd.Name == node {
			return nd.Layer
		}
	}
	t.Fatalf("%s has no node %s", model, node)
	return nil
}

func TestDevice(t *testing.T) {
	b := newBackend(t)
	d := b.Device()
	if b.Name() != "onednn" || d.Predictor != "cpu" || !strings.HasPrefix(d.Name, "cpu: ") {
		t.Errorf("name %q, device %+v", b.Name(), d)
	}
	for _, k := range []string{"onednn", "openblas", "openblas_core", "threads"} { // Debian 12's OpenBLAS 0.3.21 has openblas_get_corename
		if d.Versions[k] == "" {
			t.Errorf("no %s version in %v", k, d.Versions)
		}
	}
	if !strings.HasPrefix(d.Versions["onednn"], "2.") {
		t.Errorf("oneDNN %q, want 2.x", d.Versions["onednn"])
	}
	// Debian's OpenBLAS 0.3.21 reports its threading; CI installs the
	// OpenMP build, which New prefers
	switch th := d.Versions["openblas_threading"]; {
	case th != "openmp" && th != "pthreads" && th != "sequential":
		t.Errorf("openblas_threading %q", th)
	case th != "openmp" && os.Getenv("CI") != "":
		t.Errorf("openblas_threading %q: CI installs libopenblas0-openmp (.ci/run), which New loads first", th)
	}
}

// TestBLASNames: the OpenMP build is tried before the library's default
// name, which on Debian is the pthreads build.
func TestBLASNames(t *testing.T) {
	omp, def := -1, -1
	for i, n := range onednn.BLASNames {
		switch {
		case strings.Contains(n, "openblas-openmp/") && omp < 0:
			omp = i
		case n == "libopenblas.so.0":
			def = i
		}
	}
	if runtime.GOARCH == "amd64" && (omp < 0 || def < 0 || omp > def) {
		t.Errorf("BLASNames %q: want the OpenMP build before libopenblas.so.0", onednn.BLASNames)
	}
	for p, want := range map[int]string{0: "sequential", 1: "pthreads", 2: "openmp", -1: "unknown", 7: "unknown"} {
		if got := onednn.BLASThreading(p); got != want {
			t.Errorf("BLASThreading(%d) = %q, want %q", p, got, want)
		}
	}
}

// TestZoo prepares every pass of every distinct layer of the zoo models
// the comparison names, runs the small ones, and checks which ran
// in the libraries: convolutions, products, norms, activations, pooling,
// softmax and adds; the rest in Go.
func TestZoo(t *testing.T) {
	b := newBackend(t)
	lib := map[dnn.Op]bool{"conv2d": true, "linear": true, "matmul": true, "batchnorm": true, "layernorm": true,
		"relu": true, "gelu": true, "tanh": true, "softmax": true, "maxpool": true, "globalavgpool": true, "add": true, "lstm": true, "dropout": true}
	seen := map[string]bool{}
	prepared := map[string]bool{} // a layer's shape class and pass, prepared on one layer at least
	inLib, skipped := 0, 0
	for _, model := range []string{"resnet50", "bert-base", "lm", "gpt2"} {
		n, err := dnn.Model(model)
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
				w := l.Work(1, p, dnn.FP32)
				// a pass of over 16 MB whose shape class (the layer's key
				// but for its sizes: the same kernel, strides, flags) a
				// layer prepared already: allocating, filling and
				// building GPT-2's vocabulary-wide layers took half of
				// this test's time, on code paths a smaller one took
				kind := shapeClass(l) + " " + p.String()
				if w.Bytes() > 1<<24 && prepared[kind] {
					skipped++
					continue
				}
				prepared[kind] = true
				k, err := b.Prepare(l, 1, p, dnn.FP32)
				if err != nil {
					t.Errorf("%s %s %v: %v", model, node.Name, p, err)
					continue
				}
				algo := k.(profiler.Chooser).Algorithm().Name
				switch {
				case w == (dnn.Work{}):
				case p == dnn.Update:
					if algo == "" || algo == "go" {
						t.Errorf("%s %s update ran %q, want oneDNN", model, node.Name, algo)
					}
				case lib[l.Op()] && !(l.Op() == dnn.OpAdd && p != dnn.Forward):
					if algo == "go" || algo == "" {
						t.Errorf("%s %s %v ran %q, want the libraries", model, node.Name, p, algo)
					}
					inLib++
				default:
					if algo != "go" {
						t.Errorf("%s %s (%s) %v ran %q, want the Go fallback", model, node.Name, l.Op(), p, algo)
					}
				}
				if w.FLOPs < 5e8 && w.Bytes() < 1e8 {
					ds, err := k.Time(2)
					if err != nil {
						t.Errorf("%s %s %v: %v", model, node.Name, p, err)
					}
					for _, d := range ds {
						if d <= 0 {
							t.Errorf("%s %s %v: run of %v", model, node.Name, p, d)
						}
					}
				}
				if err := k.Close(); err != nil {
					t.Error(err)
				}
			}
		}
	}
	if inLib < 50 {
		t.Errorf("%d passes ran in the libraries, want most", inLib)
	}
	t.Logf("%d distinct layers, %d passes in the libraries, %d passes over 16 MB of a shape class prepared already left out", len(seen), inLib, skipped)
}

// sizes are the numbers of a layer's key that are sizes (16 and more):
// kernel sides, strides, paddings and head counts stay.
var sizes = regexp.MustCompile(`[1-9][0-9]{2,}|[2-9][0-9]|1[6-9]`)

// shapeClass is l's key with its sizes replaced by N.
func shapeClass(l dnn.Layer) string { return sizes.ReplaceAllString(l.Key(), "N") }

func TestErrors(t *testing.T) {
	b := newBackend(t)
	conv := layer(t, "resnet50", "layer1.0.conv2")
	if _, err := b.Prepare(conv, 1, dnn.Forward, dnn.FP16); !errors.Is(err, profiler.ErrUnsupported) {
		t.Errorf("fp16: %v, want ErrUnsupported", err)
	}
	if _, err := b.Prepare(conv, 0, dnn.Forward, dnn.FP32); err == nil {
		t.Error("batch 0 prepared")
	}
	b.MemLimit = 1 << 20
	for _, l := range []dnn.Layer{conv, layer(t, "bert-base", "encoder.0.attn.q"), layer(t, "lm", "rnn")} {
		if _, err := b.Prepare(l, 64, dnn.Forward, dnn.FP32); !errors.Is(err, profiler.ErrOutOfMemory) {
			t.Errorf("%s in 1 MiB: %v, want ErrOutOfMemory", l.Key(), err)
		}
	}
	b.MemLimit = 0
	k, err := b.Prepare(conv, 1, dnn.Forward, dnn.FP32)
	if err != nil {
		t.Fatal(err)
	}
	k.Close()
	if _, err := k.Time(1); err == nil {
		t.Error("a closed kernel ran")
	}
}

// TestMachine: the measured peak is positive, and where the CPU has
// AVX-512 its 512-bit FMAs are measured beside 256-bit ones.
func TestMachine(t *testing.T) {
	b := newBackend(t)
	m, err := b.MeasureMachine()
	if err != nil {
		t.Fatal(err)
	}
	if m.PeakFLOPs <= 1e9 || m.Threads < 1 || m.Method == "" {
		t.Errorf("machine %+v", m)
	}
	if (m.ISA == "avx512") != (m.PeakFLOPs256 > 0) {
		t.Errorf("ISA %s with a 256-bit peak of %g", m.ISA, m.PeakFLOPs256)
	}
}

// TestLinearForward checks that a linear layer's forward runs as addmm
// does: the bias copied into the output rows in C (as ATen's copy_), then
// one sgemm, with no oneDNN primitive (a oneDNN binary add would start the
// OpenMP team for a 1,000-value copy, whose spinning threads then slowed
// OpenBLAS's: resnet50's fc ran 2.3× PyTorch's time).
func TestLinearForward(t *testing.T) {
	b := newBackend(t)
	n, err := dnn.Model("resnet50")
	if err != nil {
		t.Fatal(err)
	}
	var fc dnn.Layer
	for _, node := range n.Nodes {
		if node.Name == "fc" {
			fc = node.Layer
		}
	}
	if fc == nil {
		t.Fatal("resnet50 has no fc layer")
	}
	for _, batch := range []int{1, 64} {
		k, err := b.Prepare(fc, batch, dnn.Forward, dnn.FP32)
		if err != nil {
			t.Fatal(err)
		}
		algo := k.(profiler.Chooser).Algorithm().Name
		if !strings.Contains(algo, "bias copy as ATen's") || !strings.Contains(algo, "openblas sgemm") || strings.Contains(algo, "simple") {
			t.Errorf("batch %d: fc forward ran %q, want the bias copy and one sgemm alone", batch, algo)
		}
		if ds, err := k.Time(2); err != nil || len(ds) != 2 || ds[0] <= 0 {
			t.Errorf("batch %d: runs %v, %v", batch, ds, err)
		}
		if err := k.Close(); err != nil {
			t.Error(err)
		}
		// the weights' gradient sums the bias's over the rows, even one
		// row, as PyTorch's AddmmBackward0 does
		if k, err = b.Prepare(fc, batch, dnn.BackwardWeights, dnn.FP32); err != nil {
			t.Fatal(err)
		}
		if algo := k.(profiler.Chooser).Algorithm().Name; !strings.Contains(algo, "bias sum as ATen's") {
			t.Errorf("batch %d: fc's weight gradient ran %q, want the bias's sum", batch, algo)
		}
		k.Close()
	}
}

// Impl names, without building buffers or primitives, what Prepare builds
// and runs: for every convolution of resnet50 and inception_v3 (1×1, 3×3,
// 7×7, 1×7, strided, the first on 3 channels) in each pass, the kernel's
// Algorithm; and "" for an op wb picks its own kernels for.
func TestImpl(t *testing.T) {
	b := newBackend(t)
	seen := map[string]bool{}
	for _, model := range []string{"resnet50", "inception_v3"} {
		n, err := dnn.Model(model)
		if err != nil {
			t.Fatal(err)
		}
		for _, nd := range n.Nodes {
			ds, ok := nd.Layer.(dnn.Describer)
			if !ok || nd.Layer.Op() != dnn.OpConv2D || seen[nd.Layer.Key()] {
				continue
			}
			seen[nd.Layer.Key()] = true
			for _, pass := range []dnn.Pass{dnn.Forward, dnn.BackwardData, dnn.BackwardWeights} {
				got, err := b.Impl(ds.Describe(), 1, pass)
				if err != nil {
					t.Fatalf("%s %s %s: %v", model, nd.Name, pass, err)
				}
				k, err := b.Prepare(nd.Layer, 1, pass, dnn.FP32)
				if err != nil {
					t.Fatalf("%s %s %s: %v", model, nd.Name, pass, err)
				}
				want := k.(profiler.Chooser).Algorithm().Name
				k.Close()
				if got != want || got == "" {
					t.Errorf("%s %s %s: Impl %q, Prepare ran %q", model, nd.Name, pass, got, want)
				}
			}
		}
	}
	if len(seen) < 40 {
		t.Errorf("%d distinct convolutions checked", len(seen))
	}
	relu := layer(t, "resnet50", "relu").(dnn.Describer).Describe()
	if got, err := b.Impl(relu, 1, dnn.Forward); got != "" || err != nil {
		t.Errorf("relu: %q, %v", got, err)
	}
}
