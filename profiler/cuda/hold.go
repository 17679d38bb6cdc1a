package cuda

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"
	"unsafe"
)

// Flags of cuMemHostAlloc (cuda.h).
const (
	cuMemHostAllocPortable  uint32 = 0x01 // CU_MEMHOSTALLOC_PORTABLE
	cuMemHostAllocDeviceMap uint32 = 0x02 // CU_MEMHOSTALLOC_DEVICEMAP
)

// HoldTimeout is the longest wb_hold holds the stream for the host to
// queue one batch of timed runs. A batch queues in well under a
// millisecond a launch; a hold that runs out means the host could not
// queue the batch while the stream was held (errHoldTimedOut).
const HoldTimeout = 2 * time.Second

// holdBudget bounds the launches one batch queues behind a hold: runs are
// held in batches of at most this many (their kernels, as many as
// kernel.launches says, at least one a call; their events and flushes),
// a run at least, so that everything a batch queues fits the stream's
// launch queue (on the order of a thousand entries) while its first
// kernel waits. NVIDIA's nvbench advises "~32 kernel launches max" behind
// its blocking kernel.
const holdBudget = 32

// maxHeldRun bounds the launches of one run timed behind a hold: a run
// of more (an LSTM of T·L above about 127: cuDNN launches about four
// kernels a time step and layer) could fill the stream's launch queue
// while the hold spins, the host blocking in a launch and the hold
// running out, alone as in a batch (a reviewer's reading). Such a run is
// timed unheld: it keeps the GPU busy for hundreds of launches, so the
// host's queueing, which a hold hides, is a small part of its time.
const maxHeldRun = 512

// errHoldTimedOut is a batch whose hold ran out before the host released
// it: a launch queue full behind the hold, a driver call that waits for
// the device (a library kernel loaded lazily at its first launch), or
// launches made synchronous (CUDA_LAUNCH_BLOCKING=1, a profiler or
// debugger serialising them).
var errHoldTimedOut = errors.New("the stream's hold (wb_hold) ran out before the host had queued the runs behind it")

// VersionTiming names the device's version entry that says how Time
// keeps the host's cost of queueing the runs out of their times.
const VersionTiming = "timing"

// The ways the timing entry reads (fixed strings: the entry is in the
// cache key, and an error's text is not); TimingHeld where the runs are
// held.
const (
	TimingHeld          = "runs queued behind wb_hold, then released"
	timingUnheldNVRTC   = "runs queued as the GPU runs them (no hold: wb's kernels unavailable)"
	timingUnheldBlocked = "runs queued as the GPU runs them (no hold: CUDA_LAUNCH_BLOCKING=1)"
	timingUnheldOff     = "runs queued as the GPU runs them (no hold: turned off)"
)

// streamHold holds the backend's stream while the host queues a batch of
// timed runs: wb_hold (kernels.cu) spins on the device until the host
// releases its batch. Without it, an event recorded on an idle stream
// takes its time when the host records it, and a run whose library call
// costs the host more than the GPU's run takes the host's time between
// the events: the timed span of a small kernel would be the host's, as
// cuEventElapsedTime's documentation warns for work on a stream that runs
// ahead of the host.
type streamHold struct {
	// words is two int64 in page-locked host memory that the device reads
	// and writes: [0] the last batch released, [1] the last batch whose
	// hold timed out.
	words unsafe.Pointer
	dev   uint64 // the words' device address
	fn    uintptr
	batch int64 // the last batch held
}

// openHold sets up the stream's hold (it needs wb's kernels, and so
// NVRTC) unless it is turned off: where it cannot, the runs are timed
// unheld, the device's versions say so, and the error says why (nil when
// held or turned off). Call with the context current.
func (b *Backend) openHold() error {
	getenv := b.opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	switch {
	case b.opts.Unheld:
		b.info.Versions[VersionTiming] = timingUnheldOff
		return nil
	case getenv("CUDA_LAUNCH_BLOCKING") == "1":
		// every launch returns when its kernel has run: a hold would
		// never be released
		b.info.Versions[VersionTiming] = timingUnheldBlocked
		return nil
	}
	if err := b.newHold(); err != nil {
		b.info.Versions[VersionTiming] = timingUnheldNVRTC
		return err
	}
	b.info.Versions[VersionTiming] = TimingHeld
	return nil
}

func (b *Backend) newHold() error {
	fn, err := b.kernelFunc("wb_hold")
	if err != nil {
		return err
	}
	d := &b.drv
	h := &streamHold{fn: fn}
	if err := check(Driver, "cuMemHostAlloc", d.cuMemHostAlloc(&h.words, 16, cuMemHostAllocPortable|cuMemHostAllocDeviceMap)); err != nil {
		return err
	}
	if err := check(Driver, "cuMemHostGetDevicePointer_v2", d.cuMemHostGetDevicePointer(&h.dev, h.words, 0)); err != nil {
		d.cuMemFreeHost(h.words)
		return err
	}
	w := h.counters()
	atomic.StoreInt64(&w[0], 0)
	atomic.StoreInt64(&w[1], 0)
	b.hold = h
	return nil
}

// counters is the two words, as the host reads and writes them.
func (h *streamHold) counters() *[2]int64 { return (*[2]int64)(h.words) }

// holdLaunch is wb_hold's launch for batch: one thread, the words as the
// buffer "release".
func holdLaunch(batch int64) Launch {
	return Launch{Kernel: "wb_hold", Grid: [3]uint32{1, 1, 1}, Block: [3]uint32{1, 1, 1},
		Args: []any{"release", batch, int64(HoldTimeout.Nanoseconds())}}
}

// holdStream queues wb_hold for the next batch and returns the function
// that releases it, to call once the batch is queued (also when queueing
// it failed, or the stream would wait for the timeout), and the check,
// after the batch is synchronised, that the hold did not time out.
// Without a hold both do nothing.
func (b *Backend) holdStream(unheld bool) (release func(), held func() error, err error) {
	h := b.hold
	if h == nil || unheld {
		return func() {}, func() error { return nil }, nil
	}
	h.batch++
	batch := h.batch
	l := holdLaunch(batch)
	p, err := kernelParams(l.Args, map[string]uint64{"release": h.dev})
	if err != nil {
		return nil, nil, err
	}
	if err := check(Driver, "cuLaunchKernel", b.drv.cuLaunchKernel(h.fn, l.Grid[0], l.Grid[1], l.Grid[2], l.Block[0], l.Block[1], l.Block[2],
		0, b.stream, unsafe.Pointer(&p.ptrs[0]), nil)); err != nil {
		return nil, nil, fmt.Errorf("wb_hold: %w", err)
	}
	w := h.counters()
	release = func() { atomic.StoreInt64(&w[0], batch) }
	held = func() error {
		if atomic.LoadInt64(&w[1]) == batch {
			return fmt.Errorf("%w within %v, so the runs' times would hold the host's queueing: a launch queue "+
				"full behind the hold, a driver call that waits for the device, or launches made synchronous "+
				"(a profiler or debugger; CUDA_LAUNCH_BLOCKING=1 turns the hold off, as Options.Unheld does)", errHoldTimedOut, HoldTimeout)
		}
		return nil
	}
	return release, held, nil
}

// batchRuns is how many runs of calls calls each (their events and
// flushes counted) one held batch takes, with the event before its first
// run: all n without a hold.
func (b *Backend) batchRuns(n, calls int) int {
	if b.hold == nil {
		return n
	}
	return max(1, (holdBudget-1)/max(calls, 1))
}

// closeHold frees the hold's words.
func (b *Backend) closeHold() error {
	if b.hold == nil {
		return nil
	}
	err := check(Driver, "cuMemFreeHost", b.drv.cuMemFreeHost(b.hold.words))
	b.hold = nil
	return err
}
