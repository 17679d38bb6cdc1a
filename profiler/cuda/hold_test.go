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
		batch, runs, queued, holds := int64(0), 0, 0, 0
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
		if per := (holdBudget - 1) / perRun; runs != n || holds != (n+per-1)/per || cold && flushes != n {
			t.Errorf("cold %v: %d runs, %d holds, %d flushes", cold, runs, holds, flushes)
		}
		k.Close()
		if err := b.Close(); err != nil || len(f.host) != 0 {
			t.Errorf("cold %v: closed: %v, %d host allocations left", cold, err, len(f.host))
		}
	}
}

// TestHoldTimeout: a hold that ran out (the host took longer than
// HoldTimeout to queue the batch) fails the timing; the next batch holds
// again.
func TestHoldTimeout(t *testing.T) {
	b, f := newFakeBackend(t)
	k, err := b.Prepare(layerOf(t, "relu", "resnet50"), 2, dnn.Forward, dnn.FP32)
	if err != nil {
		t.Fatal(err)
	}
	f.holdTimesOut = true
	if _, err := k.Time(3); err == nil || !strings.Contains(err.Error(), "the host took over 2s to queue a batch of runs") {
		t.Errorf("timed out: %v", err)
	}
	f.holdTimesOut = false
	if ds, err := k.Time(3); err != nil || len(ds) != 3 {
		t.Errorf("after a time-out: %v, %v", ds, err)
	}
}

// TestUnheld: without NVRTC there is no hold: the runs are timed unheld,
// and the device's versions say so and why.
func TestUnheld(t *testing.T) {
	b, f := newUnheldFakeBackend(t)
	b.rtc, b.rtcErr = nil, errors.New("libnvrtc.so.13 or libnvrtc.so.12 not found")
	b.openHold()
	if b.hold != nil || !strings.Contains(b.info.Versions[VersionTiming], "no hold: not supported by this backend: NVRTC is unavailable: libnvrtc.so.13 or libnvrtc.so.12 not found") {
		t.Fatalf("timing %q", b.info.Versions[VersionTiming])
	}
	k, err := b.Prepare(layerOf(t, "relu", "resnet50"), 2, dnn.Forward, dnn.FP32)
	if err != nil {
		t.Fatal(err)
	}
	from := len(f.calls)
	if ds, err := k.Time(300); err != nil || len(ds) != 300 {
		t.Fatalf("%d times, %v", len(ds), err)
	}
	names := f.names(from)
	if slices.Contains(names, "launch wb_hold") || strings.Count(strings.Join(names, " "), "cuEventSynchronize") != 1 {
		t.Errorf("unheld runs: %v", names[:min(len(names), 8)])
	}
	held, _ := newFakeBackend(t)
	if held.info.Versions[VersionTiming] != timingHeld {
		t.Errorf("held timing %q", held.info.Versions[VersionTiming])
	}
}
