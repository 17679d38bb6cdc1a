package cuda

import (
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/profiler"
)

// Everything in this file calls the libraries: run on an H200 by
// TestGPUOps (see README.md), tested here against a recording fake.

// kernel is a prepared layer pass: its device buffers, the library calls
// of one run, and how it was set up.
type kernel struct {
	b    *Backend
	name string
	// choice says what runs: cuDNN's algorithm and workspace, cuBLASLt's
	// workspace.
	choice string
	// algo and workspace are what Algorithm reports: cuDNN's algorithm
	// or routine, cuBLASLt's choice, and the workspace bytes it runs with.
	algo      string
	workspace int64
	runs      []func() error // enqueue one run's calls on the stream
	mem       *deviceMem
	events    []uintptr // created as Time needs them
	free      []func()  // descriptors to destroy on Close
	alpha     float32
	beta      float32
	one       float32 // 1, for a beta that accumulates
	done      bool
	// launches is how many kernels one run launches at most, where that
	// is more than one a call of runs (cuDNN's LSTM: per time step); 0:
	// one a call. The stream's hold sizes its batches by it.
	launches int
	// warm says a run has been enqueued unheld: the first launch of a
	// library's kernel may load it (CUDA's lazy loading), which waits for
	// the device, and so for a hold that waits for the host.
	warm bool
}

var (
	_ profiler.Kernel  = (*kernel)(nil)
	_ profiler.Chooser = (*kernel)(nil)
)

// String names the pass and what runs it: "conv2d fwd: cuDNN
// IMPLICIT_PRECOMP_GEMM (fwd algo 1), workspace 4096 B, math type 3". The
// profiler's records have no column for it yet.
func (k *kernel) String() string { return k.name + ": " + k.choice }

// Time runs the pass n times on the backend's stream and returns each
// run's time between CUDA events. The runs go in batches, each queued
// behind the stream's hold and released once queued (holdStream; at most
// holdBudget launches a batch, a run at least). The kernel's first Time
// enqueues one run unheld and waits for it first: a library kernel's first
// launch may load it and wait for the device, which a hold would keep
// busy. Without Options.ColdCache a batch's runs go back to back, an event
// before the first and after each; with it, the L2 flush buffer is
// written before each run, outside the run's pair of events
// (timingEvents). Time synchronizes on each batch's last event. A batch
// whose hold runs out is timed again a run a batch; if one run's does,
// Time fails saying why that can be.
func (k *kernel) Time(n int) ([]time.Duration, error) {
	if k.done {
		return nil, fmt.Errorf("cuda: %s: kernel used after Close", k.name)
	}
	if n < 0 {
		return nil, fmt.Errorf("cuda: %s: %d runs", k.name, n)
	}
	ds := make([]time.Duration, n)
	if len(k.runs) == 0 || n == 0 {
		return ds, nil
	}
	leave, err := k.b.enter()
	if err != nil {
		return nil, err
	}
	defer leave()
	if !k.warm && k.b.hold != nil {
		if err := k.enqueueRun(); err != nil {
			return nil, err
		}
		if err := k.b.settle(); err != nil {
			return nil, fmt.Errorf("cuda: %s: its first run: %w", k.name, err)
		}
	}
	k.warm = true
	cold := k.b.flush != 0
	calls := k.runCalls()
	per := k.b.batchRuns(n, calls)
	unheld := k.unheld() // (a run a batch: per is 1)
	for from := 0; from < n; from += per {
		to := min(from+per, n)
		err := k.timeBatch(ds[from:to], cold, unheld)
		if errors.Is(err, errHoldTimedOut) && to-from > 1 {
			// again, a run a batch, each behind its own hold
			err = nil
			for i := from; i < to && err == nil; i++ {
				err = k.timeBatch(ds[i:i+1], cold, unheld)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return ds, nil
}

// runCalls is what one run queues on the stream: its launches (at least
// one a call) and the event after it, and with a cache flush the flush and
// the event before it.
func (k *kernel) runCalls() int {
	calls := max(len(k.runs), k.launches) + 1
	if k.b.flush != 0 {
		calls += 2
	}
	return calls
}

// unheld reports whether the kernel's runs are timed without the stream's
// hold: where there is one, a run of more than maxHeldRun calls.
func (k *kernel) unheld() bool { return k.b.hold != nil && k.runCalls() > maxHeldRun }

// timeBatch times len(ds) runs queued behind one hold (none with unheld).
// Call with the context current.
func (k *kernel) timeBatch(ds []time.Duration, cold, unheld bool) error {
	b := k.b
	d := &b.drv
	n := len(ds)
	count, start, stop := timingEvents(n, cold)
	for len(k.events) < count {
		var e uintptr
		if err := check(Driver, "cuEventCreate", d.cuEventCreate(&e, 0)); err != nil { // CU_EVENT_DEFAULT
			return err
		}
		k.events = append(k.events, e)
	}
	release, held, err := b.holdStream(unheld)
	if err != nil {
		return fmt.Errorf("cuda: %s: %w", k.name, err)
	}
	if err := k.queue(n, cold, start, stop); err != nil {
		release()
		return err
	}
	release()
	if err := check(Driver, "cuEventSynchronize", d.cuEventSynchronize(k.events[stop(n-1)])); err != nil {
		return fmt.Errorf("cuda: %s: %w", k.name, err)
	}
	if err := held(); err != nil {
		return fmt.Errorf("cuda: %s: %w", k.name, err)
	}
	for i := range ds {
		var ms float32
		if err := check(Driver, "cuEventElapsedTime", d.cuEventElapsedTime(&ms, k.events[start(i)], k.events[stop(i)])); err != nil {
			return err
		}
		ds[i] = time.Duration(float64(ms) * 1e6)
	}
	return nil
}

// enqueueRun makes one run's library calls.
func (k *kernel) enqueueRun() error {
	for _, run := range k.runs {
		if err := run(); err != nil {
			return fmt.Errorf("cuda: %s: %w", k.name, err)
		}
	}
	return nil
}

// queue enqueues n runs and their events (and flushes, cold) on the
// stream.
func (k *kernel) queue(n int, cold bool, start, stop func(int) int) error {
	b := k.b
	record := func(i int) error {
		return check(Driver, "cuEventRecord", b.drv.cuEventRecord(k.events[i], b.stream))
	}
	for i := range n {
		if cold {
			if err := b.flushL2(); err != nil {
				return fmt.Errorf("cuda: %s: flushing L2: %w", k.name, err)
			}
		}
		if i == 0 || cold {
			if err := record(start(i)); err != nil {
				return err
			}
		}
		if err := k.enqueueRun(); err != nil {
			return err
		}
		if err := record(stop(i)); err != nil {
			return err
		}
	}
	return nil
}

// Algorithm says what the kernel runs (profiler.Chooser): cuDNN's
// convolution algorithm or routine, cuBLASLt's choice, and the workspace.
func (k *kernel) Algorithm() profiler.Algorithm {
	return profiler.Algorithm{Name: k.algo, WorkspaceBytes: k.workspace}
}

// Close frees the buffers, events and descriptors.
func (k *kernel) Close() error {
	if k.done {
		return nil
	}
	k.done = true
	if k.b == nil {
		return nil
	}
	leave, err := k.b.enter()
	if err != nil {
		return err
	}
	defer leave()
	var errs []error
	for _, e := range k.events {
		errs = append(errs, check(Driver, "cuEventDestroy_v2", k.b.drv.cuEventDestroy(e)))
	}
	for _, f := range k.free {
		f()
	}
	if k.mem != nil {
		errs = append(errs, k.mem.release())
	}
	k.events, k.free, k.runs, k.mem = nil, nil, nil, nil
	return errors.Join(errs...)
}

// deviceMem is the device buffers of one preparation.
type deviceMem struct {
	b    *Backend
	ptrs []uint64
	by   map[string]uint64
	// fills counts the buffers filled so far: each gets its own seed
	// (fillSeed + its count), so that no two hold the same values.
	fills int64
}

// plan checks that bytes more fit in the device's free memory, less the
// reserve, and says how much would be left.
func (m *deviceMem) plan(bytes int64) (left int64, err error) {
	var free, total uintptr
	if err := check(Driver, "cuMemGetInfo_v2", m.b.drv.cuMemGetInfo(&free, &total)); err != nil {
		return 0, err
	}
	left = int64(free) - orDefault(m.b.opts.Reserve, DefaultReserve) - bytes
	if left < 0 {
		return 0, fmt.Errorf("%w: buffers of %d bytes, %d bytes free of %d", profiler.ErrOutOfMemory, bytes, free, total)
	}
	return left, nil
}

// alloc allocates bytes (at least 1) and keeps the pointer under name
// ("" for one not looked up).
func (m *deviceMem) alloc(name string, bytes int64) (uint64, error) {
	var p uint64
	if err := check(Driver, "cuMemAlloc_v2", m.b.drv.cuMemAlloc(&p, uintptr(max(bytes, 1)))); err != nil {
		return 0, fmt.Errorf("%s (%d bytes): %w", name, bytes, err)
	}
	m.ptrs = append(m.ptrs, p)
	if name != "" {
		if m.by == nil {
			m.by = map[string]uint64{}
		}
		m.by[name] = p
	}
	return p, nil
}

// free frees one buffer allocated by alloc.
func (m *deviceMem) free(p uint64) error {
	for i, q := range m.ptrs {
		if q == p {
			m.ptrs = append(m.ptrs[:i], m.ptrs[i+1:]...)
			return check(Driver, "cuMemFree_v2", m.b.drv.cuMemFree(p))
		}
	}
	return nil
}

// fill enqueues the write of n values in precision prec at p, on the
// backend's stream: pseudo-random values of about a standard normal's
// spread (wb_fill_<type>, FillLaunch), PyTorch's torch.randn inputs' kind,
// where wb's kernels load (Backend.openFill), else the constant 0.01
// (cuMemsetD32Async, cuMemsetD16Async), as the device's versions say
// ("fill"). Not on the NULL stream: the backend's stream is
// CU_STREAM_NON_BLOCKING, which "does not synchronize with stream 0 (the
// NULL stream)" (cuda.h), and the synchronous cuMemsetD32/D16 return
// before a device buffer is written, so nothing would order such a fill
// before the library calls that read the buffer (cudnnFind*, the timed
// runs). On the stream, every fill precedes, in stream order, everything
// the preparation enqueues after it, and Prepare synchronises the stream
// before it returns the kernel (settle), so no fill is still running when
// the timing starts.
func (m *deviceMem) fill(p uint64, n int64, prec dnn.Precision) error {
	b := m.b
	if !b.fillChosen {
		_ = b.openFill() // where it cannot, the constant, as the versions say
	}
	if b.randomFill {
		m.fills++
		l := FillLaunch(kernelDataType(prec), "buffer", n, fillSeed+m.fills)
		run, err := b.launcher(l, map[string]uint64{"buffer": p}, nil)
		if err != nil {
			return err
		}
		return run()
	}
	d, s := &b.drv, b.stream
	switch prec {
	case dnn.FP16:
		return check(Driver, "cuMemsetD16Async", d.cuMemsetD16Async(p, fill16, uintptr(n), s))
	case dnn.BF16:
		return check(Driver, "cuMemsetD16Async", d.cuMemsetD16Async(p, fillBF16, uintptr(n), s))
	}
	return check(Driver, "cuMemsetD32Async", d.cuMemsetD32Async(p, fill32, uintptr(n), s))
}

// fillSeed seeds the first buffer a preparation fills (any value: the
// buffers' spread, not their values, is what counts).
const fillSeed int64 = 0x0f111

// The constant fill 0.01 in each format, where wb's kernels do not load.
const (
	fill32   uint32 = 0x3c23d70a // binary32
	fill16   uint16 = 0x211f     // binary16
	fillBF16 uint16 = 0x3c24     // bfloat16
)

// The device's version entry that says what the buffers hold, in fixed
// words (it is in the cache key, and an error's text is not).
const (
	VersionFill = "fill"
	// FillRandom: pseudo-random values (wb_fill_<type>), where wb's
	// kernels load.
	FillRandom   = "pseudo-random, about a standard normal (wb_fill_<type>)"
	fillConstant = "the constant 0.01 (no pseudo-random fill: wb's kernels unavailable)"
)

// openFill decides, once, how buffers are filled: pseudo-random values
// where wb's kernels compile and load (NVRTC), else the constant 0.01,
// which times tensor-core products faster than PyTorch's random inputs
// under a power cap; the device's versions say which (VersionFill). New
// calls it, so that the versions are known before anything is measured
// (they are in the cache key). Call with the context current.
func (b *Backend) openFill() error {
	b.fillChosen = true
	if _, err := b.kernelFunc("wb_fill_f32"); err != nil {
		b.randomFill = false
		b.info.Versions[VersionFill] = fillConstant
		return err
	}
	b.randomFill = true
	b.info.Versions[VersionFill] = FillRandom
	return nil
}

// zero enqueues the write of bytes zero bytes at p on the backend's
// stream: 32-bit words where the size allows (the accumulators of the
// kernels' atomic adds are float), bytes otherwise.
func (b *Backend) zero(p uint64, bytes int64) error {
	if bytes%4 == 0 {
		return check(Driver, "cuMemsetD32Async", b.drv.cuMemsetD32Async(p, 0, uintptr(bytes/4), b.stream))
	}
	return check(Driver, "cuMemsetD8Async", b.drv.cuMemsetD8Async(p, 0, uintptr(bytes), b.stream))
}

// settle waits for everything a preparation enqueued on the backend's
// stream (the fills, the forward runs whose outputs a backward pass
// reads, the ids of an embedding) to finish: cuStreamSynchronize.
// Prepare calls it before it returns a kernel, so that the first timed
// run starts on filled buffers and with an idle stream. Call with the
// context current.
func (b *Backend) settle() error {
	return check(Driver, "cuStreamSynchronize", b.drv.cuStreamSynchronize(b.stream))
}

func (m *deviceMem) release() error {
	var errs []error
	for _, p := range m.ptrs {
		errs = append(errs, check(Driver, "cuMemFree_v2", m.b.drv.cuMemFree(p)))
	}
	m.ptrs, m.by = nil, nil
	return errors.Join(errs...)
}

// newKernel starts a kernel whose preparation, on error, frees what it
// made: call k.fail(err) on every error path.
func (b *Backend) newKernel(name string) *kernel {
	return &kernel{b: b, name: name, mem: &deviceMem{b: b}, alpha: 1, beta: 0, one: 1}
}

func (k *kernel) fail(err error) (*kernel, error) {
	if cerr := k.Close(); cerr != nil {
		err = errors.Join(err, fmt.Errorf("cleaning up: %w", cerr))
	}
	return nil, err
}

// The algorithm names of cudnnConvolution{Fwd,BwdData,BwdFilter}Algo_t.
var convAlgoNames = map[dnn.Pass][]string{
	dnn.Forward:         {"IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT", "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"},
	dnn.BackwardData:    {"ALGO_0", "ALGO_1", "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"},
	dnn.BackwardWeights: {"ALGO_0", "ALGO_1", "FFT", "ALGO_3", "WINOGRAD", "WINOGRAD_NONFUSED", "FFT_TILING"},
}

// convAlgoLabel is the profile's algo column for a convolution:
// "cudnnConvolutionForward IMPLICIT_PRECOMP_GEMM, math 1".
func convAlgoLabel(pass dnn.Pass, algo, math int32) string {
	call := map[dnn.Pass]string{dnn.Forward: "cudnnConvolutionForward", dnn.BackwardData: "cudnnConvolutionBackwardData",
		dnn.BackwardWeights: "cudnnConvolutionBackwardFilter"}[pass]
	return fmt.Sprintf("%s %s, math %d", call, convAlgoName(pass, algo), math)
}

func convAlgoName(pass dnn.Pass, algo int32) string {
	names := convAlgoNames[pass]
	if algo >= 0 && int(algo) < len(names) {
		return names[algo]
	}
	return fmt.Sprintf("algo %d", algo)
}

// prepConv sets up one pass of a convolution: descriptors, buffers,
// cudnnFind*AlgorithmEx on them, and the run.
func (b *Backend) prepConv(name string, c ConvProblem, pass dnn.Pass, prec dnn.Precision) (*kernel, error) {
	leave, err := b.enter()
	if err != nil {
		return nil, err
	}
	defer leave()
	api := b.dnn
	k := b.newKernel(name)

	// Descriptors.
	tensor := func(dims, strides [4]int32) (uintptr, error) {
		var t uintptr
		if err := b.dnnCheck("cudnnCreateTensorDescriptor", api.cudnnCreateTensorDescriptor(&t)); err != nil {
			return 0, err
		}
		k.free = append(k.free, func() { api.cudnnDestroyTensorDescriptor(t) })
		return t, b.dnnCheck("cudnnSetTensorNdDescriptor", api.cudnnSetTensorNdDescriptor(t, c.DataType, 4, &dims[0], &strides[0]))
	}
	xd, err := tensor(c.XDims(), c.XStrides())
	if err != nil {
		return k.fail(err)
	}
	yd, err := tensor(c.YDims(), c.YStrides())
	if err != nil {
		return k.fail(err)
	}
	var wd, cd uintptr
	if err := b.dnnCheck("cudnnCreateFilterDescriptor", api.cudnnCreateFilterDescriptor(&wd)); err != nil {
		return k.fail(err)
	}
	k.free = append(k.free, func() { api.cudnnDestroyFilterDescriptor(wd) })
	w := c.WDims()
	if err := b.dnnCheck("cudnnSetFilter4dDescriptor", api.cudnnSetFilter4dDescriptor(wd, c.DataType, cudnnTensorNCHW, w[0], w[1], w[2], w[3])); err != nil {
		return k.fail(err)
	}
	if err := b.dnnCheck("cudnnCreateConvolutionDescriptor", api.cudnnCreateConvolutionDescriptor(&cd)); err != nil {
		return k.fail(err)
	}
	k.free = append(k.free, func() { api.cudnnDestroyConvolutionDescriptor(cd) })
	if err := b.dnnCheck("cudnnSetConvolution2dDescriptor", api.cudnnSetConvolution2dDescriptor(cd, int32(c.PadH), int32(c.PadW),
		int32(c.Stride), int32(c.Stride), int32(c.Dilation), int32(c.Dilation), cudnnCrossCorrelation, c.ComputeType)); err != nil {
		return k.fail(err)
	}
	if err := b.dnnCheck("cudnnSetConvolutionGroupCount", api.cudnnSetConvolutionGroupCount(cd, int32(c.Groups))); err != nil {
		return k.fail(err)
	}
	if err := b.dnnCheck("cudnnSetConvolutionMathType", api.cudnnSetConvolutionMathType(cd, c.MathType)); err != nil {
		return k.fail(err)
	}
	// cuDNN's output size must be ours (and dnn's: ConvFor checked).
	var on, oc, oh, ow int32
	if err := b.dnnCheck("cudnnGetConvolution2dForwardOutputDim", api.cudnnGetConvolution2dForwardOutputDim(cd, xd, wd, &on, &oc, &oh, &ow)); err != nil {
		return k.fail(err)
	}
	if y := c.YDims(); [4]int32{on, oc, oh, ow} != y {
		return k.fail(fmt.Errorf("cuDNN computes output %v, dnn %v", [4]int32{on, oc, oh, ow}, y))
	}

	// The bias: the forward's add needs its descriptor, [1, K, 1, 1], and
	// cuDNN's operations API; the gradient wb's reduction kernel.
	var bd uintptr
	switch {
	case c.Bias && pass == dnn.Forward && b.ops == nil:
		return k.fail(fmt.Errorf("%w: the bias add (cudnnAddTensor) needs cuDNN's operations API: %v", profiler.ErrUnsupported, b.opsErr))
	case c.Bias && pass == dnn.Forward:
		if bd, err = k.tensorDesc(c.DataType, c.BiasDims()); err != nil {
			return k.fail(err)
		}
	case c.Bias && pass == dnn.BackwardWeights && b.rtc == nil:
		return k.fail(fmt.Errorf("%w: the bias gradient (wb's reduction kernel) needs NVRTC: %v", profiler.ErrUnsupported, b.rtcErr))
	}

	// Buffers.
	size := int64(prec.Size())
	bufs := c.Buffers(pass)
	var total int64
	for _, buf := range bufs {
		total += buf.Elems * size
	}
	left, err := k.mem.plan(total)
	if err != nil {
		return k.fail(err)
	}
	ptr := map[string]uint64{}
	for _, buf := range bufs {
		p, err := k.mem.alloc(buf.Name, buf.Elems*size)
		if err != nil {
			return k.fail(err)
		}
		if err := k.mem.fill(p, buf.Elems, prec); err != nil {
			return k.fail(err)
		}
		ptr[buf.Name] = p
	}

	// 16-bit convolutions run through cuDNN's graph API, as PyTorch's do:
	// cuDNN's legacy routines do not reach the engines it picks on recent
	// GPUs (on an H200, 2.7× PyTorch's time in bfloat16). fp32 stays on the
	// legacy routines, which matched PyTorch's time there (a median 1.02).
	maxWS := min(orDefault(b.opts.Workspace, DefaultWorkspace), left)
	var convRun func() error
	graphWhy := ""
	if c.DataType != cudnnDataFloat && b.graph != nil {
		run, label, wsBytes, err := b.prepConvGraph(k, c, pass, ptr, maxWS)
		if err == nil {
			convRun = run
			k.algo, k.workspace = label, wsBytes
			k.choice = fmt.Sprintf("cuDNN graph API: %s, workspace %d B", label, wsBytes)
		} else {
			graphWhy = err.Error()
		}
	}
	if convRun == nil {
		if convRun, err = b.legacyConv(k, c, pass, ptr, maxWS, xd, yd, wd, cd); err != nil {
			return k.fail(err)
		}
		if graphWhy != "" {
			k.choice += " (the graph API did not run it: " + graphWhy + ")"
		}
	}
	k.runs = []func() error{convRun}
	one := unsafe.Pointer(&k.one)
	switch pass {
	case dnn.Forward:
		if c.Bias {
			// y ← 1·b + 1·y, b broadcast over N, P and Q.
			ops := b.ops
			k.runs = append(k.runs, func() error {
				return b.dnnCheck("cudnnAddTensor", ops.cudnnAddTensor(b.dnnH, one, bd, ptr["b"], one, yd, ptr["y"]))
			})
		}
	case dnn.BackwardWeights:
		if c.Bias {
			// db ← Σ dy over N, P and Q, as PyTorch sums it after cuDNN's
			// filter gradient (its own reduction; cuDNN's
			// cudnnConvolutionBackwardBias refused bfloat16 on an H200).
			y := c.YDims()
			acc, bytes := "db", map[string]int64{"db": int64(c.K) * size}
			if size != 4 {
				acc = "db_acc"
				if _, err := k.mem.alloc(acc, 4*int64(c.K)); err != nil {
					return k.fail(err)
				}
				bytes[acc] = 4 * int64(c.K)
			}
			ptr[acc] = k.mem.by[acc]
			ls := ConvBiasGradLaunches(c.DataType, int64(y[0]), int64(y[1]), int64(y[2])*int64(y[3]), "dy", acc, "db")
			for _, l := range ls {
				if err := k.addLaunch(l, ptr, bytes); err != nil {
					return k.fail(fmt.Errorf("the bias's gradient: %w", err))
				}
			}
			k.algo += " + NVRTC " + launchNames(ls)
			k.choice += " + NVRTC " + launchNames(ls)
		}
	}
	if c.Bias && pass == dnn.Forward {
		k.algo += " + cudnnAddTensor (bias)"
		k.choice += " + cudnnAddTensor (bias)"
	}
	return k, nil
}

// legacyConv finds one pass's fastest algorithm with cuDNN's legacy
// cudnnFind*AlgorithmEx on the buffers of ptr, with up to maxWS bytes of
// workspace, and returns its run; it sets k's algo, choice and workspace.
// Call with the context current.
func (b *Backend) legacyConv(k *kernel, c ConvProblem, pass dnn.Pass, ptr map[string]uint64, maxWS int64, xd, yd, wd, cd uintptr) (func() error, error) {
	api := b.dnn
	ws, err := k.mem.alloc("", maxWS)
	if err != nil {
		return nil, err
	}
	var perf [8]convPerf
	var got int32
	var call string
	var status int32
	switch pass {
	case dnn.Forward:
		call = "cudnnFindConvolutionForwardAlgorithmEx"
		status = api.cudnnFindConvolutionForwardAlgorithmEx(b.dnnH, xd, ptr["x"], wd, ptr["w"], cd, yd, ptr["y"], int32(len(perf)), &got, &perf[0], ws, uintptr(maxWS))
	case dnn.BackwardData:
		call = "cudnnFindConvolutionBackwardDataAlgorithmEx"
		status = api.cudnnFindConvolutionBackwardDataAlgorithmEx(b.dnnH, wd, ptr["w"], yd, ptr["dy"], cd, xd, ptr["dx"], int32(len(perf)), &got, &perf[0], ws, uintptr(maxWS))
	case dnn.BackwardWeights:
		call = "cudnnFindConvolutionBackwardFilterAlgorithmEx"
		status = api.cudnnFindConvolutionBackwardFilterAlgorithmEx(b.dnnH, xd, ptr["x"], yd, ptr["dy"], cd, wd, ptr["dw"], int32(len(perf)), &got, &perf[0], ws, uintptr(maxWS))
	}
	if err := b.dnnCheck(call, status); err != nil {
		return nil, err
	}
	if err := k.mem.free(ws); err != nil {
		return nil, err
	}
	best, ok := fastest(perf[:max(0, min(int(got), len(perf)))])
	if !ok {
		return nil, fmt.Errorf("%w: %s found no algorithm that runs", profiler.ErrUnsupported, call)
	}
	wsBytes := int64(best.Memory)
	if ws, err = k.mem.alloc("workspace", wsBytes); err != nil {
		return nil, err
	}
	// The math type the algorithm was found with, which the run must use
	// (cuDNN's cudnnConvolutionFwdAlgoPerf_t: "the math type provided to
	// the algorithm"; PyTorch sets it from the result the same way): a
	// descriptor left at the problem's type ran bfloat16's backward-data
	// ALGO_1 found with DEFAULT_MATH into CUDNN_STATUS_BAD_PARAM on an H200.
	if err := b.dnnCheck("cudnnSetConvolutionMathType", api.cudnnSetConvolutionMathType(cd, best.MathType)); err != nil {
		return nil, err
	}
	k.choice = fmt.Sprintf("cuDNN %s (%s algo %d), workspace %d B, math type %d, %.4g ms in cudnnFind",
		convAlgoName(pass, best.Algo), pass, best.Algo, wsBytes, best.MathType, best.Time)
	k.algo, k.workspace = convAlgoLabel(pass, best.Algo, best.MathType), wsBytes
	alpha, beta := unsafe.Pointer(&k.alpha), unsafe.Pointer(&k.beta)
	algo := best.Algo
	switch pass {
	case dnn.Forward:
		return func() error {
			return b.dnnCheck("cudnnConvolutionForward", api.cudnnConvolutionForward(b.dnnH, alpha, xd, ptr["x"], wd, ptr["w"], cd, algo, ws, uintptr(wsBytes), beta, yd, ptr["y"]))
		}, nil
	case dnn.BackwardData:
		return func() error {
			return b.dnnCheck("cudnnConvolutionBackwardData", api.cudnnConvolutionBackwardData(b.dnnH, alpha, wd, ptr["w"], yd, ptr["dy"], cd, algo, ws, uintptr(wsBytes), beta, xd, ptr["dx"]))
		}, nil
	}
	return func() error {
		return b.dnnCheck("cudnnConvolutionBackwardFilter", api.cudnnConvolutionBackwardFilter(b.dnnH, alpha, xd, ptr["x"], yd, ptr["dy"], cd, algo, ws, uintptr(wsBytes), beta, wd, ptr["dw"]))
	}, nil
}

// fastest is the first result that ran (cudnnFind sorts them by time).
func fastest(perf []convPerf) (convPerf, bool) {
	for _, p := range perf {
		if p.Status == 0 && p.Time >= 0 {
			return p, true
		}
	}
	return convPerf{}, false
}

// prepGemms sets up the products of one pass of a linear or matmul layer
// with cuBLASLt: buffers, one matmul descriptor and layouts per product,
// the first heuristic algorithm. A linear layer's bias rides as the
// forward product's epilogue (BiasAdd); its gradient (BiasGrad) is
// PyTorch's separate reduction of dY after the plain product, wb's kernel
// (BiasGradLaunches, NVRTC).
func (b *Backend) prepGemms(name string, gs []Gemm, prec dnn.Precision) (*kernel, error) {
	for _, g := range gs {
		if g.Bias == BiasGrad && b.rtc == nil {
			return nil, fmt.Errorf("%w: the bias gradient (wb's reduction kernel) needs NVRTC: %v", profiler.ErrUnsupported, b.rtcErr)
		}
	}
	leave, err := b.enter()
	if err != nil {
		return nil, err
	}
	defer leave()
	api := b.lt
	k := b.newKernel(name)
	size := int64(prec.Size())

	// Buffers, each once; a 16-bit bias gradient is summed in an fp32
	// accumulator (Param: not in the precision), then cast.
	elems := map[string]int64{}
	param := map[string]bool{}
	var order []string
	add := func(buf string, n int64) {
		if _, ok := elems[buf]; !ok {
			order = append(order, buf)
		}
		elems[buf] = n
	}
	accOf := func(g Gemm) string {
		if size != 4 {
			return g.BiasBuf + "_acc"
		}
		return g.BiasBuf
	}
	for _, g := range gs {
		for _, o := range []Operand{g.A, g.B, g.C} {
			add(o.Buf, o.Elems()*int64(g.Batch))
		}
		if g.Bias != BiasNone {
			add(g.BiasBuf, g.BiasElems())
		}
		if acc := accOf(g); g.Bias == BiasGrad && acc != g.BiasBuf {
			add(acc, g.BiasElems())
			param[acc] = true
		}
	}
	bytes := map[string]int64{}
	for _, n := range order {
		bytes[n] = elems[n] * size
		if param[n] {
			bytes[n] = elems[n] * 4
		}
	}
	wsBytes := orDefault(b.opts.GemmWorkspace, DefaultGemmWorkspace)
	total := wsBytes
	for _, n := range order {
		total += bytes[n]
	}
	if _, err := k.mem.plan(total); err != nil {
		return k.fail(err)
	}
	for _, n := range order {
		p, err := k.mem.alloc(n, bytes[n])
		if err != nil {
			return k.fail(err)
		}
		if param[n] {
			continue // zeroed by the reduction's every run
		}
		if err := k.mem.fill(p, elems[n], prec); err != nil {
			return k.fail(err)
		}
	}
	ws, err := k.mem.alloc("workspace", wsBytes)
	if err != nil {
		return k.fail(err)
	}

	var pref uintptr
	if err := check(CuBLASLt, "cublasLtMatmulPreferenceCreate", api.cublasLtMatmulPreferenceCreate(&pref)); err != nil {
		return k.fail(err)
	}
	k.free = append(k.free, func() { api.cublasLtMatmulPreferenceDestroy(pref) })
	maxWS := uint64(wsBytes)
	if err := check(CuBLASLt, "cublasLtMatmulPreferenceSetAttribute", api.cublasLtMatmulPreferenceSetAttribute(pref, ltPrefMaxWorkspaceBytes, unsafe.Pointer(&maxWS), 8)); err != nil {
		return k.fail(err)
	}

	var used, algos []string
	for _, g := range gs {
		lt := g.Lt()
		var op uintptr
		if err := check(CuBLASLt, "cublasLtMatmulDescCreate", api.cublasLtMatmulDescCreate(&op, g.ComputeType, g.ScaleType)); err != nil {
			return k.fail(err)
		}
		k.free = append(k.free, func() { api.cublasLtMatmulDescDestroy(op) })
		for _, a := range []struct {
			attr int32
			v    int32
		}{{ltMatmulDescTransA, lt.TransA}, {ltMatmulDescTransB, lt.TransB}} {
			v := a.v
			if err := check(CuBLASLt, "cublasLtMatmulDescSetAttribute", api.cublasLtMatmulDescSetAttribute(op, a.attr, unsafe.Pointer(&v), 4)); err != nil {
				return k.fail(err)
			}
		}
		if err := setEpilogue(api, op, lt.Epilogue, k.mem.by[lt.BiasBuf]); err != nil {
			return k.fail(err)
		}
		layouts := make([]uintptr, 3)
		for i, l := range []LtLayout{lt.A, lt.B, lt.C} {
			var h uintptr
			if err := check(CuBLASLt, "cublasLtMatrixLayoutCreate", api.cublasLtMatrixLayoutCreate(&h, g.DataType, l.Rows, l.Cols, l.Ld)); err != nil {
				return k.fail(err)
			}
			k.free = append(k.free, func() { api.cublasLtMatrixLayoutDestroy(h) })
			if l.Batch > 1 {
				count, stride := l.Batch, l.Stride
				if err := check(CuBLASLt, "cublasLtMatrixLayoutSetAttribute", api.cublasLtMatrixLayoutSetAttribute(h, ltLayoutBatchCount, unsafe.Pointer(&count), 4)); err != nil {
					return k.fail(err)
				}
				if err := check(CuBLASLt, "cublasLtMatrixLayoutSetAttribute", api.cublasLtMatrixLayoutSetAttribute(h, ltLayoutStridedBatchOffset, unsafe.Pointer(&stride), 8)); err != nil {
					return k.fail(err)
				}
			}
			layouts[i] = h
		}
		ad, bd, cd := layouts[0], layouts[1], layouts[2]
		heur := new(ltHeuristic)
		var got int32
		if err := check(CuBLASLt, "cublasLtMatmulAlgoGetHeuristic", api.cublasLtMatmulAlgoGetHeuristic(b.ltH, op, ad, bd, cd, cd, pref, 1, heur, &got)); err != nil {
			return k.fail(err)
		}
		if got < 1 || heur.State != 0 {
			return k.fail(fmt.Errorf("%w: cuBLASLt has no algorithm for %s (%d×%d×%d, batch %d)", profiler.ErrUnsupported, g.Name, g.M, g.N, g.K, g.Batch))
		}
		label := "cublasLtMatmul heuristic #1" + epilogueLabel(lt.Epilogue)
		var reduction []Launch
		if g.Bias == BiasGrad {
			// db = Σ_rows dY after the product, as PyTorch's autograd sums
			// grad_output apart from dW's product
			reduction = BiasGradLaunches(kernelDataType(prec), int64(g.K), g.BiasElems(), g.A.Buf, accOf(g), g.BiasBuf)
			label += " + NVRTC " + launchNames(reduction)
		}
		used = append(used, fmt.Sprintf("%s: workspace %d B, %.2f waves", g.Name, heur.WorkspaceSize, heur.WavesCount))
		algos = append(algos, label)
		k.workspace = max(k.workspace, int64(heur.WorkspaceSize))
		pa, pb, pc := k.mem.by[lt.ABuf], k.mem.by[lt.BBuf], k.mem.by[lt.CBuf]
		alpha, beta := unsafe.Pointer(&k.alpha), unsafe.Pointer(&k.beta)
		algo := &heur.Algo
		k.runs = append(k.runs, func() error {
			return check(CuBLASLt, "cublasLtMatmul", api.cublasLtMatmul(b.ltH, op, alpha, pa, ad, pb, bd, beta, pc, cd, pc, cd, algo, ws, uintptr(wsBytes), b.stream))
		})
		for _, l := range reduction {
			if err := k.addLaunch(l, k.mem.by, bytes); err != nil {
				return k.fail(fmt.Errorf("the bias's gradient: %w", err))
			}
		}
	}
	k.choice = "cuBLASLt heuristic: " + fmt.Sprint(used)
	k.algo = algos[0]
	if len(gs) > 1 {
		k.algo = fmt.Sprintf("%s ×%d", algos[0], len(gs))
	}
	return k, nil
}

// setEpilogue sets a matmul descriptor's epilogue and, for one with a
// bias, its bias pointer (CUBLASLT_MATMUL_DESC_EPILOGUE, a uint32_t;
// CUBLASLT_MATMUL_DESC_BIAS_POINTER, a device pointer).
func setEpilogue(api *ltAPI, op uintptr, epilogue uint32, bias uint64) error {
	e := epilogue
	if err := check(CuBLASLt, "cublasLtMatmulDescSetAttribute", api.cublasLtMatmulDescSetAttribute(op, ltMatmulDescEpilogue, unsafe.Pointer(&e), 4)); err != nil {
		return err
	}
	if epilogue == ltEpilogueDefault {
		return nil
	}
	p := bias
	return check(CuBLASLt, "cublasLtMatmulDescSetAttribute", api.cublasLtMatmulDescSetAttribute(op, ltMatmulDescBiasPointer, unsafe.Pointer(&p), 8))
}

// epilogueLabel names an epilogue for the algo column.
func epilogueLabel(e uint32) string {
	switch e {
	case ltEpilogueBias:
		return ", epilogue BIAS"
	}
	return ""
}

// kernelDataType is the cudnnDataType_t whose wb kernels (typeSuffix) go
// with a precision (tf32's values are fp32).
func kernelDataType(prec dnn.Precision) int32 {
	switch prec {
	case dnn.FP16:
		return cudnnDataHalf
	case dnn.BF16:
		return cudnnDataBFloat16
	}
	return cudnnDataFloat
}

// addLaunch appends to the kernel's runs one launch of wb's kernels (the
// zeroing of its Zero buffers, then cuLaunchKernel on the backend's
// stream), its function looked up (compiling kernels.cu the first time)
// and its arguments laid out now. bytes gives the size of each buffer
// Zero names. Call with the context current.
func (k *kernel) addLaunch(l Launch, ptr map[string]uint64, bytes map[string]int64) error {
	run, err := k.b.launcher(l, ptr, bytes)
	if err != nil {
		return err
	}
	k.runs = append(k.runs, run)
	return nil
}

// launcher prepares one launch of wb's kernels: the function that
// enqueues it on the stream.
func (b *Backend) launcher(l Launch, ptr map[string]uint64, bytes map[string]int64) (func() error, error) {
	f, err := b.kernelFunc(l.Kernel)
	if err != nil {
		return nil, err
	}
	params, err := kernelParams(l.Args, ptr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.Kernel, err)
	}
	for _, z := range l.Zero {
		if _, ok := ptr[z]; !ok || bytes[z] <= 0 {
			return nil, fmt.Errorf("%s: zeroes %q, not a buffer of the pass", l.Kernel, z)
		}
	}
	return func() error {
		for _, z := range l.Zero {
			if err := b.zero(ptr[z], bytes[z]); err != nil {
				return err
			}
		}
		return check(Driver, "cuLaunchKernel", b.drv.cuLaunchKernel(f, l.Grid[0], l.Grid[1], l.Grid[2], l.Block[0], l.Block[1], l.Block[2],
			0, b.stream, unsafe.Pointer(&params.ptrs[0]), nil))
	}, nil
}
