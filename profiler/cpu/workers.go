package cpu

import (
	"runtime"
	"sync/atomic"
	"time"
)

// pool shares loops among goroutines: the caller of For and workers−1
// goroutines that wait for work by spinning, then sleep.
//
// Waiting is what a CPU's timings hang on. A pool whose idle goroutines
// sleep on a channel (the obvious Go) must have the kernel wake a thread
// for every loop, and on a virtual machine that takes tens of
// microseconds; meanwhile the caller has done its own share and then runs
// the woken goroutine's share itself. A 200,704-value ReLU measured that
// way took 128 µs, the time of one core, in most runs and 64 µs in a few,
// so a layer's time depended on which of the two modes its runs fell in.
// Here a worker that has just finished keeps polling for the next loop for
// spinFor before it sleeps, as OpenMP runtimes do (KMP_BLOCKTIME,
// GOMP_SPINCOUNT): back-to-back runs of a kernel find every worker awake,
// and the same ReLU takes 72 µs on average and 64 µs at best, against 203
// and 78 µs (BenchmarkReLU). The polling yields its P between polls
// (runtime.Gosched), so other goroutines are not shut out; matrix products
// run on the workers too (gemm), not on goroutines of their own.
//
// It must not be used from inside one of its own loops, nor by two
// callers at once.
type pool struct {
	workers int

	// The loop in progress: f over [0, n) in ranges of size, range i run
	// by worker i (the caller is worker 0). They are written before state
	// is advanced and read, only by the workers that have a range, after
	// it is seen, so the atomic state orders them.
	f       func(lo, hi int)
	n, size int

	// state is the loop's generation, advanced once per loop, times 2¹⁶
	// plus its number of ranges: a worker without a range learns so from
	// state alone, without reading the fields a later loop rewrites.
	state   atomic.Uint64
	pending atomic.Int64 // ranges of the loop not yet done by workers
	asleep  atomic.Int32 // workers asleep, or about to be
	quit    atomic.Bool
	wake    []chan struct{} // one per worker, buffered: a token wakes it

	// gemm is the product in progress, and gemmF its blocks' function,
	// made once so that a product allocates nothing.
	gemm  gemmArgs
	gemmF func(lo, hi int)
}

// spinFor is how long an idle worker polls for the next loop before it
// sleeps.
const spinFor = 2 * time.Millisecond

// newPool starts workers−1 goroutines; the caller of For is the last.
func newPool(workers int) *pool {
	p := &pool{workers: min(max(1, workers), 1<<rangeBits-1)}
	p.wake = make([]chan struct{}, p.workers)
	p.gemmF = func(lo, hi int) { p.gemm.blocks(lo, hi) }
	for i := 1; i < p.workers; i++ {
		p.wake[i] = make(chan struct{}, 1)
		go p.work(i)
	}
	return p
}

// rangeBits is the bits of pool.state that hold a loop's ranges.
const rangeBits = 16

// work is worker i's loop: wait for a new generation, run its range of
// it, repeat until stop.
func (p *pool) work(i int) {
	var seen uint64 // the state before the first loop: this goroutine may start after it
	for {
		st, ok := p.await(i, seen)
		if !ok {
			return
		}
		seen = st
		if i < int(st&(1<<rangeBits-1)) {
			lo := i * p.size
			p.f(lo, min(lo+p.size, p.n))
			p.pending.Add(-1)
		}
	}
}

// await waits until the state differs from seen, and returns it; false
// once the pool is stopped.
func (p *pool) await(i int, seen uint64) (uint64, bool) {
	for {
		deadline := time.Now().Add(spinFor)
		for polls := 0; ; polls++ {
			if p.quit.Load() {
				return 0, false
			}
			if st := p.state.Load(); st != seen {
				return st, true
			}
			runtime.Gosched()
			if polls%64 == 63 && time.Now().After(deadline) {
				break
			}
		}
		// Sleep. Saying so before looking at state once more means that a
		// For which advances state after this look sees asleep and sends
		// a token (both atomics are sequentially consistent).
		p.asleep.Add(1)
		if p.state.Load() != seen || p.quit.Load() {
			p.asleep.Add(-1)
			continue
		}
		<-p.wake[i]
		p.asleep.Add(-1)
	}
}

// stop ends the workers; the pool cannot be used again.
func (p *pool) stop() {
	p.quit.Store(true)
	p.wakeAll()
}

// wakeAll gives every sleeping worker a token; one that already has one
// keeps it.
func (p *pool) wakeAll() {
	for _, c := range p.wake[1:] {
		select {
		case c <- struct{}{}:
		default:
		}
	}
}

// maxGrain, when positive, caps every loop's grain: the tests set it to 1
// so that every loop is split, whatever its size, and its partition is
// checked (and, under -race, its independence).
var maxGrain = 0

// For calls f on consecutive ranges covering [0, n), each of at least
// grain indices (but the last), at most one range per worker, and returns
// when all are done. f must be built before the timed run (a closure made
// here would be allocated on every call).
func (p *pool) For(n, grain int, f func(lo, hi int)) {
	if n <= 0 {
		return
	}
	if maxGrain > 0 {
		grain = min(grain, maxGrain)
	}
	chunks := min(p.workers, (n+max(grain, 1)-1)/max(grain, 1))
	if chunks <= 1 {
		f(0, n)
		return
	}
	size := (n + chunks - 1) / chunks
	ranges := (n + size - 1) / size
	p.f, p.n, p.size = f, n, size
	p.pending.Store(int64(ranges - 1))
	p.state.Store((p.state.Load()>>rangeBits+1)<<rangeBits | uint64(ranges))
	if p.asleep.Load() > 0 {
		p.wakeAll()
	}
	f(0, size)
	for polls := 0; p.pending.Load() != 0; polls++ {
		if polls >= 64 {
			runtime.Gosched()
		}
	}
	p.f = nil
}
