package cuda

import (
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wb-sim/wb/dnn"
)

// heldCall is a call the backend made while timing, and the last batch the
// host had released when it made it.
type heldCall struct {
	name     string
	released int64
	batch    int64 // for wb_hold's launch: the batch it holds
	byte     uint8 // for a flush: the byte it writes
}

// recordHeld records the calls from now on with the hold's released count.
func recordHeld(b *Backend, f *fakeLibs) *[]heldCall {
	var out []heldCall
	w := b.hold.counters()
	f.onCall = func(c fakeCall) {
		h := heldCall{name: c.name, released: atomic.LoadInt64(&w[0])}
		switch {
		case c.name == "cuLaunchKernel":
			h.name = "launch " + f.funcs[uintptr(c.args[0].Uint())]
			if h.name == "launch wb_hold" {
				params := (*[3]*int64)(c.args[9].UnsafePointer())
				h.batch = *params[1]
			}
		case c.name == "cuMemsetD8Async":
			h.byte = uint8(c.args[1].Uint())
		}
		out = append(out, h)
	}
	return &out
}

// TestTimeHoldsTheStream: every timed run is queued behind wb_hold, which
// the host releases only once the whole batch (and its events) is queued,
// and before it waits for the batch; a batch queues at most holdBudget
// calls, each batch starting with its own event; a flush writes a byte
// other than the last flush's, across batches too.
func TestTimeHoldsTheStream(t *testing.T) {
	for _, cold := range []bool{false, true} {
		b, f := newFakeBackend(t)
		if cold {
			b.flush, b.flushBytes = 0xf1000, 1<<20
		}
		k, err := b.Prepare(layerOf(t, "relu", "resnet50"), 2, dnn.Forward, dnn.FP32)
		if err != nil {
			t.Fatal(err)
		}
		// the first Time runs the pass once unheld and waits for it: a
		// library kernel's first launch may load it, waiting for the device
		from := len(f.calls)
		if _, err := k.Time(1); err != nil {
			t.Fatal(err)
		}
		first := slices.DeleteFunc(f.names(from), func(n string) bool { return n == "cuEventCreate" })
		if len(first) < 3 || first[0] != "cudnnActivationForward" || first[1] != "cuStreamSynchronize" || first[2] != "launch wb_hold" {
			t.Errorf("cold %v: the first Time: %v, want the run unheld, a synchronisation, then the hold", cold, first[:min(len(first), 3)])
		}
		startBatch := b.hold.batch
		calls := recordHeld(b, f)
		const n = 200
		ds, err := k.Time(n)
		if err != nil || len(ds) != n || ds[n-1] <= 0 {
			t.Fatalf("cold %v: Time(%d): %d times, %v", cold, n, len(ds), err)
		}
		perRun := 2 // the activation, the event after it
		if cold {
			perRun = 4 // and the flush and the event before it
		}
		batch, runs, queued, holds := startBatch, 0, 0, 0
		var lastByte uint8
		flushes := 0
		for i, c := range *calls {
			switch {
			case c.name == "launch wb_hold":
				if c.batch != batch+1 {
					t.Fatalf("cold %v: hold of batch %d after batch %d", cold, c.batch, batch)
				}
				if queued > holdBudget {
					t.Errorf("cold %v: batch %d queued %d calls, more than %d", cold, batch, queued, holdBudget)
				}
				batch, queued = c.batch, 0
				holds++
				if next := (*calls)[i+1].name; !cold && next != "cuEventRecord" || cold && next != "cuMemsetD8Async" {
					t.Errorf("cold %v: batch %d starts with %s", cold, batch, next)
				}
			case c.name == "cudnnActivationForward" || c.name == "cuEventRecord" || c.name == "cuMemsetD8Async":
				if c.released >= batch {
					t.Errorf("cold %v: %s queued after batch %d was released", cold, c.name, batch)
				}
				queued++
				if c.name == "cudnnActivationForward" {
					runs++
				}
				if c.name == "cuMemsetD8Async" {
					if flushes > 0 && c.byte == lastByte {
						t.Errorf("cold %v: flush %d writes %#x, as the one before it", cold, flushes, c.byte)
					}
					lastByte = c.byte
					flushes++
				}
			case c.name == "cuEventSynchronize":
				if c.released != batch {
					t.Errorf("cold %v: waits for batch %d, released %d", cold, batch, c.released)
				}
			}
		}
		if per := max(1, (holdBudget-1)/perRun); runs != n || holds != (n+per-1)/per || cold && flushes != n {
			t.Errorf("cold %v: %d runs, %d holds, %d flushes", cold, runs, holds, flushes)
		}
		k.Close()
		if err := b.Close(); err != nil || len(f.host) != 0 {
			t.Errorf("cold %v: closed: %v, %d host allocations left", cold, err, len(f.host))
		}
	}
}

// TestHoldTimeout: a batch whose hold ran out (the host could not queue it
// within HoldTimeout) is timed again a run a batch; if a run's own hold
// runs out, Time fails naming what can cause it; the next Time holds again.
func TestHoldTimeout(t *testing.T) {
	b, f := newFakeBackend(t)
	k, err := b.Prepare(layerOf(t, "relu", "resnet50"), 2, dnn.Forward, dnn.FP32)
	if err != nil {
		t.Fatal(err)
	}
	// the first batch's hold alone runs out: its runs are timed again,
	// each behind its own hold
	timeouts := 1
	f.onCall = func(c fakeCall) {
		f.holdTimesOut = c.name == "cuLaunchKernel" && f.funcs[uintptr(c.args[0].Uint())] == "wb_hold" && timeouts > 0
		if f.holdTimesOut {
			timeouts--
		}
	}
	from := len(f.calls)
	ds, err := k.Time(4)
	if err != nil || len(ds) != 4 || ds[3] <= 0 {
		t.Fatalf("a batch timed out once: %v, %v", ds, err)
	}
	if holds := strings.Count(strings.Join(f.names(from), " "), "launch wb_hold"); holds != 1+4 {
		t.Errorf("%d holds, want the batch's and one for each of its 4 runs", holds)
	}
	f.onCall, f.holdTimesOut = nil, true
	_, err = k.Time(3)
	if !errors.Is(err, errHoldTimedOut) || !strings.Contains(err.Error(), "a launch queue full behind the hold, a driver call that waits for the device, or launches made synchronous") {
		t.Errorf("every hold timed out: %v", err)
	}
	f.holdTimesOut = false
	if ds, err := k.Time(3); err != nil || len(ds) != 3 {
		t.Errorf("after a time-out: %v, %v", ds, err)
	}
}

// An LSTM's run launches kernels per time step: its batches hold one run
// each, so that what they queue fits the launch queue.
func TestHoldBatchesLaunches(t *testing.T) {
	b, f := newFakeBackend(t)
	k, err := b.Prepare(layerOf(t, "lstm", "lm"), 2, dnn.Forward, dnn.FP32)
	if err != nil {
		t.Fatal(err)
	}
	if kk := k.(*kernel); kk.launches <= holdBudget {
		t.Fatalf("an LSTM's run launches %d kernels, no more than a batch's budget", kk.launches)
	}
	if _, err := k.Time(1); err != nil {
		t.Fatal(err)
	}
	from := len(f.calls)
	if _, err := k.Time(5); err != nil {
		t.Fatal(err)
	}
	if holds := strings.Count(strings.Join(f.names(from), " "), "launch wb_hold"); holds != 5 {
		t.Errorf("5 LSTM runs behind %d holds, want one each", holds)
	}
}

// TestUnheld: without wb's kernels (no NVRTC), with CUDA_LAUNCH_BLOCKING=1
// (every launch returns when its kernel has run: a hold would never be
// released) or with Options.Unheld there is no hold: the runs are timed
// unheld, and the device's versions say so in words of their own (the
// entry is in the cache key; an error's text is not).
func TestUnheld(t *testing.T) {
	for _, c := range []struct {
		name, want string
		set        func(b *Backend)
	}{
		{"no NVRTC", timingUnheldNVRTC, func(b *Backend) {
			b.rtc, b.rtcErr = nil, errors.New("libnvrtc.so.13 or libnvrtc.so.12 not found")
		}},
		{"CUDA_LAUNCH_BLOCKING", timingUnheldBlocked, func(b *Backend) {
			b.opts.Getenv = func(k string) string {
				if k == "CUDA_LAUNCH_BLOCKING" {
					return "1"
				}
				return ""
			}
		}},
		{"Options.Unheld", timingUnheldOff, func(b *Backend) { b.opts.Unheld = true }},
	} {
		b, f := newUnheldFakeBackend(t)
		c.set(b)
		err := b.openHold()
		if (err != nil) != (c.want == timingUnheldNVRTC) {
			t.Errorf("%s: openHold says %v", c.name, err)
		}
		if b.hold != nil || b.info.Versions[VersionTiming] != c.want {
			t.Fatalf("%s: timing %q, want %q", c.name, b.info.Versions[VersionTiming], c.want)
		}
		k, err := b.Prepare(layerOf(t, "relu", "resnet50"), 2, dnn.Forward, dnn.FP32)
		if err != nil {
			t.Fatal(err)
		}
		from := len(f.calls)
		if ds, err := k.Time(300); err != nil || len(ds) != 300 {
			t.Fatalf("%s: %d times, %v", c.name, len(ds), err)
		}
		names := f.names(from)
		if slices.Contains(names, "launch wb_hold") || strings.Count(strings.Join(names, " "), "cuEventSynchronize") != 1 {
			t.Errorf("%s: unheld runs: %v", c.name, names[:min(len(names), 8)])
		}
	}
	held, _ := newFakeBackend(t)
	if held.info.Versions[VersionTiming] != TimingHeld {
		t.Errorf("held timing %q", held.info.Versions[VersionTiming])
	}
}

// The graph API's engine trials are timed unheld, as PyTorch's cuDNN
// frontend times its plans (a plan's host cost counts in its time).
func TestEngineTrialsUnheld(t *testing.T) {
	b, f := newFakeBackend(t)
	l := layerOf(t, "conv2d", "resnet50")
	f.fakeConvY(t, l, 2)
	from := len(f.calls)
	k, err := b.Prepare(l, 2, dnn.Forward, dnn.BF16)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	names := f.names(from)
	if strings.Count(strings.Join(names, " "), "cudnnBackendExecute") < 4 || slices.Contains(names, "launch wb_hold") {
		t.Errorf("engine trials: %v", names)
	}
}

// An LSTM whose run launches more kernels than the launch queue holds
// behind a hold (T·L above about 127) is timed unheld, a run a batch, and
// says so; one within the bound stays held (TestHoldBatchesLaunches).
func TestHoldLongRunUnheld(t *testing.T) {
	net, err := dnn.WordLanguageModel("long", 1000, 64, 64, 2, 200, false)
	if err != nil {
		t.Fatal(err)
	}
	var lstm dnn.Layer
	for _, n := range net.Nodes {
		if n.Layer.Op() == dnn.OpLSTM {
			lstm = n.Layer
		}
	}
	b, f := newFakeBackend(t)
	k, err := b.Prepare(lstm, 2, dnn.Forward, dnn.FP32)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	if kk := k.(*kernel); kk.launches <= maxHeldRun || !strings.Contains(kk.choice, "timed unheld") {
		t.Fatalf("a run of %d launches, choice %q", kk.launches, kk.choice)
	}
	from := len(f.calls)
	if _, err := k.Time(3); err != nil {
		t.Fatal(err)
	}
	if holds := strings.Count(strings.Join(f.names(from), " "), "launch wb_hold"); holds != 0 {
		t.Errorf("3 long LSTM runs behind %d holds, want none", holds)
	}
}
