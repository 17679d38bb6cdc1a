package cuda

import (
	"errors"
	"testing"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/profiler"
)

// openGPU opens the backend on this machine, or skips the test saying
// why it cannot (no driver, no device): these tests need a GPU.
func openGPU(t *testing.T, opts Options) *Backend {
	t.Helper()
	b, err := New(opts)
	if err != nil {
		t.Skipf("needs an NVIDIA GPU with its driver (and cuDNN, cuBLASLt for the ops): %v", err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return b
}

// TestGPUOps prepares and times one layer of every op the backend runs
// (conv2d and linear with and without a bias), each pass with work (the
// update pass of every layer with parameters), in fp32 and bf16, warm and with --cold-cache: the
// first run of every library call in the package. It checks that each
// returns positive times, says which algorithm it ran, and gives its
// device memory back, and that the buffers are filled with pseudo-random
// values. Skipped without a GPU.
func TestGPUOps(t *testing.T) {
	warm := openGPU(t, Options{})
	cold := openGPU(t, Options{ColdCache: true})
	t.Logf("device %s: %s", warm.Device().Name, warm.Device().VersionString())
	t.Logf("cold cache: %s", cold.Device().Versions["cold_cache"])
	if f := warm.Device().Versions[VersionFill]; f != FillRandom {
		t.Errorf("buffers filled with %q, want the pseudo-random fill (wb's kernels did not load)", f)
	}
	layers := map[string]dnn.Layer{}
	for _, model := range []string{"resnet50", "bert-base", "inception_v3", "cyclegan", "lm"} {
		net, err := dnn.Model(model)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range net.Nodes {
			if _, ok := layers[string(n.Layer.Op())]; !ok {
				layers[string(n.Layer.Op())] = n.Layer
			}
		}
	}
	runs := map[string]bool{"conv2d": true, "linear": true, "matmul": true, "batchnorm": true, "relu": true, "tanh": true,
		"maxpool": true, "avgpool": true, "globalavgpool": true, "softmax": true, "add": true, "dropout": true, "gelu": true, "leakyrelu": true, "layernorm": true,
		"instancenorm": true, "embedding": true, "lstm": true, "concat": true, "select": true, "upsample": true, "pad": true}
	// Layers with a bias, whose conv2d and linear passes run it.
	for _, op := range []string{"conv2d", "linear"} {
		for _, model := range []string{"cyclegan", "bert-base"} {
			net, _ := dnn.Model(model)
			for _, n := range net.Nodes {
				if d, ok := n.Layer.(dnn.Describer); ok && string(n.Layer.Op()) == op && d.Describe().Attr[dnn.AttrBias] == 1 {
					layers[op+" (bias)"] = n.Layer
					runs[op+" (bias)"] = true
				}
			}
		}
	}
	for op, l := range layers {
		for _, b := range []*Backend{warm, cold} {
			for _, prec := range []dnn.Precision{dnn.FP32, dnn.BF16} {
				for _, pass := range dnn.Passes {
					if l.Work(2, pass, prec) == (dnn.Work{}) {
						continue
					}
					free0 := b.freeMemory(t)
					k, err := b.Prepare(l, 2, pass, prec)
					switch {
					case errors.Is(err, profiler.ErrUnsupported) && !runs[op] && pass != dnn.Update:
						continue
					case err != nil:
						t.Errorf("%s %s %s (cold %v): %v", op, pass, prec, b.flush != 0, err)
						continue
					}
					ds, err := k.Time(5)
					if err != nil {
						t.Errorf("%s %s %s: Time: %v", op, pass, prec, err)
					}
					for _, d := range ds {
						if d <= 0 {
							t.Errorf("%s %s %s: times %v", op, pass, prec, ds)
							break
						}
					}
					a := k.(profiler.Chooser).Algorithm()
					if a.Name == "" || a.WorkspaceBytes < 0 {
						t.Errorf("%s %s %s: algorithm %+v", op, pass, prec, a)
					}
					t.Logf("%s %s %s cold=%v: %v; %s", op, pass, prec, b.flush != 0, ds, k.(*kernel).String())
					if err := k.Close(); err != nil {
						t.Errorf("%s %s %s: Close: %v", op, pass, prec, err)
					}
					if free1 := b.freeMemory(t); free1 < free0-(8<<20) {
						// A library's first call of a routine may load its
						// kernels into device memory for good (cuDNN's RNN
						// did, 62 MiB, on an H200): prepare and close once
						// more, which must give everything back.
						free0 = free1
						k, err := b.Prepare(l, 2, pass, prec)
						if err == nil {
							err = k.Close()
						}
						if free2 := b.freeMemory(t); err != nil || free2 < free0-(8<<20) {
							t.Errorf("%s %s %s: %d bytes of device memory not given back twice (%v)", op, pass, prec, free0-free2, err)
						}
					}
				}
			}
		}
	}
}

// freeMemory is cuMemGetInfo's free memory.
func (b *Backend) freeMemory(t *testing.T) int64 {
	t.Helper()
	leave, err := b.enter()
	if err != nil {
		t.Fatal(err)
	}
	defer leave()
	var free, total uintptr
	if err := check(Driver, "cuMemGetInfo_v2", b.drv.cuMemGetInfo(&free, &total)); err != nil {
		t.Fatal(err)
	}
	return int64(free)
}
