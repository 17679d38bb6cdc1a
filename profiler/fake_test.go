package profiler_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/profiler"
)

// fakeLayer is a layer whose work per pass the test sets; a pass with no
// FLOPs and no bytes has no kernel.
type fakeLayer struct {
	op, key string
	work    [4]dnn.Work
}

func (l *fakeLayer) Op() dnn.Op     { return dnn.Op(l.op) }
func (l *fakeLayer) Out() dnn.Shape { return dnn.Shape{1} }
func (l *fakeLayer) Params() int64  { return 1 }
func (l *fakeLayer) Key() string    { return l.key }
func (l *fakeLayer) Work(batch int, p dnn.Pass, _ dnn.Precision) dnn.Work {
	w := l.work[p]
	w.FLOPs *= dnn.Flops(batch)
	w.Read *= dnn.Bytes(batch)
	return w
}

// layer makes a fake layer doing 1 MFLOP and 1 MB per sample in the
// forward and backward passes, nothing in the update.
func layer(op, key string) *fakeLayer {
	w := dnn.Work{FLOPs: 1e6, Read: 1e6}
	return &fakeLayer{op: op, key: key, work: [4]dnn.Work{w, w, w, {}}}
}

// network strings layers together as a chain named n0, n1, ... after a
// node "in" without work (whose passes are skipped), so that every layer
// of the test has a backward-data pass.
func network(layers ...dnn.Layer) *dnn.Network {
	n := &dnn.Network{Name: "fake", Input: dnn.Shape{1}}
	n.Nodes = append(n.Nodes, dnn.Node{Name: "in", Layer: &fakeLayer{op: string(dnn.OpSource), key: "in"}, Inputs: []int{-1}})
	for i, l := range layers {
		n.Nodes = append(n.Nodes, dnn.Node{Name: fmt.Sprintf("n%d", i), Layer: l, Inputs: []int{i}})
	}
	return n
}

// fakeBackend runs fake layers: op "unsupported" and "oom" fail Prepare
// with those errors; other ops give kernels that report a constant time
// (1 ms × the layer's forward MFLOPs per sample) without running, or,
// with spin set, busy-wait that long.
type fakeBackend struct {
	spin time.Duration // > 0: kernels spin this long per run

	mu       sync.Mutex
	prepares map[string]int // by key and pass
	closes   int
	open     int   // kernels prepared and not closed
	maxOpen  int   // the most open at once
	timed    []int // per Time call of a streaming kernel, the kernels open then
}

func (b *fakeBackend) Name() string { return "fake" }

func (b *fakeBackend) Device() profiler.DeviceInfo {
	return profiler.DeviceInfo{Name: "fake: test device", Predictor: "cpu", Versions: map[string]string{"fake": "v1"}}
}

func (b *fakeBackend) Prepare(l dnn.Layer, batch int, pass dnn.Pass, prec dnn.Precision) (profiler.Kernel, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.prepares == nil {
		b.prepares = map[string]int{}
	}
	b.prepares[l.Key()+" "+pass.String()]++
	switch l.Op() {
	case "unsupported":
		return nil, fmt.Errorf("fake: %s: %w", l.Op(), profiler.ErrUnsupported)
	case "oom":
		return nil, fmt.Errorf("fake: 1 TB of buffers: %w", profiler.ErrOutOfMemory)
	}
	b.open++
	b.maxOpen = max(b.maxOpen, b.open)
	if b.spin > 0 {
		return &spinKernel{d: b.spin, b: b}, nil
	}
	d := time.Duration(float64(l.Work(1, dnn.Forward, prec).FLOPs) / 1e6 * float64(time.Millisecond))
	k := &streamKernel{next: func() time.Duration { return d }, b: b}
	if l.Op() == "chosen" {
		return &chooserKernel{streamKernel: k, alg: profiler.Algorithm{Name: "ALGO_" + pass.String(), WorkspaceBytes: 4096}}, nil
	}
	return k, nil
}

// chooserKernel is a streamKernel that says which algorithm it runs, as
// the CUDA backend's kernels do.
type chooserKernel struct {
	*streamKernel
	alg profiler.Algorithm
}

func (k *chooserKernel) Algorithm() profiler.Algorithm { return k.alg }

var _ profiler.Chooser = (*chooserKernel)(nil)

func (b *fakeBackend) totalPrepares() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, v := range b.prepares {
		n += v
	}
	return n
}

// streamKernel reports the times next gives, without running anything:
// a synthetic timing stream.
type streamKernel struct {
	next  func() time.Duration
	b     *fakeBackend
	calls int // Time calls
	runs  int
}

func (k *streamKernel) Time(n int) ([]time.Duration, error) {
	if k.b != nil {
		k.b.mu.Lock()
		k.b.timed = append(k.b.timed, k.b.open)
		k.b.mu.Unlock()
	}
	k.calls++
	k.runs += n
	d := make([]time.Duration, n)
	for i := range d {
		d[i] = k.next()
	}
	return d, nil
}

func (k *streamKernel) Close() error {
	if k.b != nil {
		k.b.mu.Lock()
		k.b.closes++
		k.b.open--
		k.b.mu.Unlock()
	}
	return nil
}

// spinKernel busy-waits d per run and times each run with the monotonic
// clock, as a CPU backend does.
type spinKernel struct {
	d time.Duration
	b *fakeBackend
}

func (k *spinKernel) Time(n int) ([]time.Duration, error) {
	out := make([]time.Duration, n)
	for i := range out {
		t0 := time.Now()
		for time.Since(t0) < k.d {
		}
		out[i] = time.Since(t0)
	}
	return out, nil
}

func (k *spinKernel) Close() error {
	if k.b != nil {
		k.b.mu.Lock()
		k.b.closes++
		k.b.open--
		k.b.mu.Unlock()
	}
	return nil
}

var _ profiler.Backend = (*fakeBackend)(nil)

func containsAll(s string, subs ...string) bool {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}

// TestOpenAutoSaysWhy: "auto" takes the first backend that opens and says
// why those before it did not, each named once (a backend's own error may
// begin with its name).
func TestOpenAutoSaysWhy(t *testing.T) {
	var r profiler.Registry
	for _, b := range []struct {
		name string
		f    profiler.Factory
	}{
		{"lib", func() (profiler.Backend, error) {
			return nil, errors.New("lib: liblib.so.2: cannot open shared object file (apt-get install liblib)")
		}},
		{"fake", func() (profiler.Backend, error) { return &fakeBackend{}, nil }},
	} {
		if err := r.Register(b.name, b.f); err != nil {
			t.Fatal(err)
		}
	}
	_, why, err := r.Open("auto")
	if err != nil || why != "backend fake (lib: liblib.so.2: cannot open shared object file)" {
		t.Errorf("auto: %q, %v", why, err)
	}
	if _, _, err := r.Open("lib"); err == nil || !strings.HasPrefix(err.Error(), "backend lib: liblib.so.2: cannot open") {
		t.Errorf("lib: %v", err)
	}
}
