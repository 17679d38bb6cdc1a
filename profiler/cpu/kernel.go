package cpu

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/wb-sim/wb/profiler"
)

// kernel is a prepared layer pass: its buffers, by name, and the function
// that runs the pass once.
type kernel struct {
	name string
	run  func(*pool)
	f    map[string][]float32
	i64  map[string][]int64
	i32  map[string][]int32
	u8   map[string][]uint8
	done bool
}

var _ profiler.Kernel = (*kernel)(nil)

// Time runs the pass n times and returns each run's duration on the
// monotonic clock. The goroutines that share the work (GOMAXPROCS of them,
// the caller included; see pool) are started before the first run and
// stopped after the last; nothing is allocated inside a timed run.
func (k *kernel) Time(n int) ([]time.Duration, error) {
	if k.done {
		return nil, fmt.Errorf("cpu: %s: kernel used after Close", k.name)
	}
	if n < 0 {
		return nil, fmt.Errorf("cpu: %s: %d runs", k.name, n)
	}
	ds := make([]time.Duration, n)
	p := newPool(runtime.GOMAXPROCS(0))
	defer p.stop()
	for i := range ds {
		start := time.Now()
		k.run(p)
		ds[i] = time.Since(start)
	}
	return ds, nil
}

// Close drops the buffers; the kernel cannot run again.
func (k *kernel) Close() error {
	k.done = true
	k.run = nil
	k.f, k.i64, k.i32, k.u8 = nil, nil, nil, nil
	return nil
}

// arena allocates a preparation's buffers, by name, within a memory limit,
// and fills them deterministically once all are allocated.
type arena struct {
	limit, used float64 // bytes
	name        string
	batch       int
	err         error

	order []string // float buffers, in allocation order
	f     map[string][]float32
	i64   map[string][]int64
	i32   map[string][]int32
	u8    map[string][]uint8
	after []func() // run after the fill: value ranges, saved state
}

// reserve counts the bytes of a buffer of the dims' product of values of
// size bytes, and reports whether it fits. The product is taken in
// float64, so absurd sizes are refused, not overflowed.
func (a *arena) reserve(what string, size float64, dims []int) (int, bool) {
	n := 1.0
	for _, d := range dims {
		if d < 0 {
			panic(fmt.Sprintf("cpu: %s: buffer %s of negative size %v", a.name, what, dims))
		}
		n *= float64(d)
	}
	if a.err != nil {
		return 0, false
	}
	a.used += n * size
	if a.used > a.limit {
		a.err = fmt.Errorf("%w: buffers of at least %.4g GB (%s and those before it), more than the %.4g GB the profiler allocates at most (its memory limit, half the machine's memory unless set)",
			profiler.ErrOutOfMemory, a.used/1e9, what, a.limit/1e9)
		return 0, false
	}
	return int(n), true
}

// floats allocates a float32 buffer named name of the dims' product,
// filled with the others (fill).
func (a *arena) floats(name string, dims ...int) []float32 {
	s := a.scratch(name, dims...)
	if s != nil {
		a.order = append(a.order, name)
	}
	return s
}

// scratch allocates a float32 buffer named name that every run writes
// before it reads it (a convolution's columns, a chunk's gathered
// output): it is not filled. Filling columns the first run overwrites
// took seconds of a preparation (a 7×7 convolution of 64 channels at
// 256×256 has 822 MB of them); the profiler's warm-up runs touch it
// before any run is measured.
func (a *arena) scratch(name string, dims ...int) []float32 {
	if a.f == nil {
		a.f = map[string][]float32{}
	}
	if _, dup := a.f[name]; dup {
		panic(fmt.Sprintf("cpu: %s: buffer %s allocated twice", a.name, name))
	}
	n, ok := a.reserve(name, 4, dims)
	if !ok {
		return nil
	}
	s := make([]float32, n)
	a.f[name] = s
	return s
}

// int64s allocates an int64 buffer (token ids), filled by the caller.
func (a *arena) int64s(name string, dims ...int) []int64 {
	n, ok := a.reserve(name, 8, dims)
	if !ok {
		return nil
	}
	if a.i64 == nil {
		a.i64 = map[string][]int64{}
	}
	s := make([]int64, n)
	a.i64[name] = s
	return s
}

// int32s allocates an int32 buffer (indices), filled by the caller.
func (a *arena) int32s(name string, dims ...int) []int32 {
	n, ok := a.reserve(name, 4, dims)
	if !ok {
		return nil
	}
	if a.i32 == nil {
		a.i32 = map[string][]int32{}
	}
	s := make([]int32, n)
	a.i32[name] = s
	return s
}

// bytes allocates a byte buffer (masks), filled by the caller.
func (a *arena) bytes(name string, dims ...int) []uint8 {
	n, ok := a.reserve(name, 1, dims)
	if !ok {
		return nil
	}
	if a.u8 == nil {
		a.u8 = map[string][]uint8{}
	}
	s := make([]uint8, n)
	a.u8[name] = s
	return s
}

// then registers f to run after the fill: it sets value ranges (ids,
// positive scales) and computes state a pass reads (a forward pass's
// argmax).
func (a *arena) then(f func()) { a.after = append(a.after, f) }

// Seed of the buffers' PCG streams.
const fillSeed = 0x5eed_0f_3b

// fillChunk is the number of values filled from one PCG stream.
const fillChunk = 1 << 16

// fill fills the float buffers with values uniform in [−1, 1) on a grid of
// 2^−23: chunk j of the i-th buffer allocated from PCG stream
// (fillSeed, i<<32 | j), so the
// chunks fill in parallel and the values do not depend on the number of
// goroutines. Then it runs the registered functions.
func (a *arena) fill() {
	type chunk struct{ buf, j int }
	work := make(chan chunk)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for c := range work {
				s := a.f[a.order[c.buf]]
				s = s[c.j*fillChunk : min((c.j+1)*fillChunk, len(s))]
				// two values of 24 random bits from each of the stream's
				// 64-bit draws (a float32's mantissa holds 24): a third of
				// the time rand.Float32 took, which a preparation's fill
				// of hundreds of MB spent most of its time in
				r := rand.NewPCG(fillSeed, uint64(c.buf)<<32|uint64(c.j))
				const scale = 2.0 / (1 << 24)
				i := 0
				for ; i+1 < len(s); i += 2 {
					x := r.Uint64()
					s[i], s[i+1] = float32(x>>40)*scale-1, float32(x>>8&(1<<24-1))*scale-1
				}
				if i < len(s) {
					s[i] = float32(r.Uint64()>>40)*scale - 1
				}
			}
		})
	}
	for i, name := range a.order {
		for j := range (len(a.f[name]) + fillChunk - 1) / fillChunk {
			work <- chunk{i, j}
		}
	}
	close(work)
	wg.Wait()
	for _, f := range a.after {
		f()
	}
}

// rng is the generator of the i-th auxiliary fill (ids, ranges).
func rng(i uint64) *rand.Rand { return rand.New(rand.NewPCG(fillSeed, 1<<32+i)) }

// prepUpdate is SGD with momentum over p parameters: v ← μv + g,
// w ← w − ηv.
func prepUpdate(a *arena, p int64) func(*pool) {
	n := int(min(p, 1<<62))
	w, v, g := a.floats("w", n), a.floats("v", n), a.floats("g", n)
	const mu, eta = 0.9, 1e-3
	f := func(lo, hi int) {
		w, v, g := w[lo:hi], v[lo:hi], g[lo:hi]
		for i := range w {
			vi := mu*v[i] + g[i]
			v[i] = vi
			w[i] -= eta * vi
		}
	}
	return func(p *pool) { p.For(n, 1<<14, f) }
}

// grainFor is a loop grain of at least about 4096 values when each index
// covers per values.
func grainFor(per int) int { return max(1, 4096/max(per, 1)) }

// transposeCols writes columns [c0, c1) of the rows×· matrix src (stride
// lds) as rows [c0, c1) of dst (stride ldd), in tiles that stay in cache.
// gonum's SGEMM is several times slower with a transposed first operand
// than with plain ones, so the kernels transpose such an operand
// explicitly, which costs one read and write of it, and multiply plainly.
func transposeCols(src []float32, lds int, dst []float32, ldd, rows, c0, c1 int) {
	const tile = 32
	for r0 := 0; r0 < rows; r0 += tile {
		r1 := min(r0+tile, rows)
		for cb := c0; cb < c1; cb += tile {
			ce := min(cb+tile, c1)
			for r := r0; r < r1; r++ {
				s := src[r*lds:]
				for c := cb; c < ce; c++ {
					dst[c*ldd+r] = s[c]
				}
			}
		}
	}
}

// transposer transposes a rows×cols matrix with a pool.
type transposer struct {
	src, dst             []float32
	rows, cols, lds, ldd int
	f                    func(lo, hi int)
}

func newTransposer(src []float32, rows, cols, lds int, dst []float32) *transposer {
	t := &transposer{src: src, dst: dst, rows: rows, cols: cols, lds: lds, ldd: rows}
	t.f = func(lo, hi int) { transposeCols(t.src, t.lds, t.dst, t.ldd, t.rows, lo, hi) }
	return t
}

func (t *transposer) run(p *pool) { p.For(t.cols, grainFor(t.rows), t.f) }
