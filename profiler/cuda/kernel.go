package cuda

import (
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/profiler"
)

// Untested: everything in this file calls the libraries, and has not run
// on a GPU yet (see README.md).

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
	mu        float32 // the update pass's momentum
	negLR     float32 // the update pass's −learning rate
	done      bool
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
// run's time between CUDA events. Without Options.ColdCache the runs go
// back to back, an event before the first and after each; with it, the
// L2 flush buffer is written before each run, outside the run's pair of
// events (timingEvents). Time synchronizes on the last event.
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
	b := k.b
	leave, err := b.enter()
	if err != nil {
		return nil, err
	}
	defer leave()
	d := &b.drv
	cold := b.flush != 0
	count, start, stop := timingEvents(n, cold)
	for len(k.events) < count {
		var e uintptr
		if err := check(Driver, "cuEventCreate", d.cuEventCreate(&e, 0)); err != nil { // CU_EVENT_DEFAULT
			return nil, err
		}
		k.events = append(k.events, e)
	}
	record := func(i int) error {
		return check(Driver, "cuEventRecord", d.cuEventRecord(k.events[i], b.stream))
	}
	for i := range n {
		if cold {
			if err := b.flushL2(i); err != nil {
				return nil, fmt.Errorf("cuda: %s: flushing L2: %w", k.name, err)
			}
		}
		if i == 0 || cold {
			if err := record(start(i)); err != nil {
				return nil, err
			}
		}
		for _, run := range k.runs {
			if err := run(); err != nil {
				return nil, fmt.Errorf("cuda: %s: %w", k.name, err)
			}
		}
		if err := record(stop(i)); err != nil {
			return nil, err
		}
	}
	if err := check(Driver, "cuEventSynchronize", d.cuEventSynchronize(k.events[stop(n-1)])); err != nil {
		return nil, fmt.Errorf("cuda: %s: %w", k.name, err)
	}
	for i := range ds {
		var ms float32
		if err := check(Driver, "cuEventElapsedTime", d.cuEventElapsedTime(&ms, k.events[start(i)], k.events[stop(i)])); err != nil {
			return nil, err
		}
		ds[i] = time.Duration(float64(ms) * 1e6)
	}
	return ds, nil
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

// fill sets n values at p to 0.01 in precision prec.
func (m *deviceMem) fill(p uint64, n int64, prec dnn.Precision) error {
	d := &m.b.drv
	switch prec {
	case dnn.FP16:
		return check(Driver, "cuMemsetD16_v2", d.cuMemsetD16(p, 0x211f, uintptr(n))) // 0.01 in binary16
	case dnn.BF16:
		return check(Driver, "cuMemsetD16_v2", d.cuMemsetD16(p, 0x3c24, uintptr(n))) // 0.01 in bfloat16
	}
	return check(Driver, "cuMemsetD32_v2", d.cuMemsetD32(p, 0x3c23d70a, uintptr(n))) // 0.01 in binary32
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

	// Buffers.
	size := int64(prec.Size())
	xn, wn, yn := c.Elems()
	bufs := map[dnn.Pass][]struct {
		name string
		n    int64
	}{
		dnn.Forward:         {{"x", xn}, {"w", wn}, {"y", yn}},
		dnn.BackwardData:    {{"w", wn}, {"dy", yn}, {"dx", xn}},
		dnn.BackwardWeights: {{"x", xn}, {"dy", yn}, {"dw", wn}},
	}[pass]
	var total int64
	for _, buf := range bufs {
		total += buf.n * size
	}
	left, err := k.mem.plan(total)
	if err != nil {
		return k.fail(err)
	}
	ptr := map[string]uint64{}
	for _, buf := range bufs {
		p, err := k.mem.alloc(buf.name, buf.n*size)
		if err != nil {
			return k.fail(err)
		}
		if err := k.mem.fill(p, buf.n, prec); err != nil {
			return k.fail(err)
		}
		ptr[buf.name] = p
	}

	// The fastest algorithm, measured by cuDNN on these buffers with up
	// to Options.Workspace bytes of workspace.
	findWS := min(orDefault(b.opts.Workspace, DefaultWorkspace), left)
	ws, err := k.mem.alloc("", findWS)
	if err != nil {
		return k.fail(err)
	}
	var perf [8]convPerf
	var got int32
	var call string
	var status int32
	switch pass {
	case dnn.Forward:
		call = "cudnnFindConvolutionForwardAlgorithmEx"
		status = api.cudnnFindConvolutionForwardAlgorithmEx(b.dnnH, xd, ptr["x"], wd, ptr["w"], cd, yd, ptr["y"], int32(len(perf)), &got, &perf[0], ws, uintptr(findWS))
	case dnn.BackwardData:
		call = "cudnnFindConvolutionBackwardDataAlgorithmEx"
		status = api.cudnnFindConvolutionBackwardDataAlgorithmEx(b.dnnH, wd, ptr["w"], yd, ptr["dy"], cd, xd, ptr["dx"], int32(len(perf)), &got, &perf[0], ws, uintptr(findWS))
	case dnn.BackwardWeights:
		call = "cudnnFindConvolutionBackwardFilterAlgorithmEx"
		status = api.cudnnFindConvolutionBackwardFilterAlgorithmEx(b.dnnH, xd, ptr["x"], yd, ptr["dy"], cd, wd, ptr["dw"], int32(len(perf)), &got, &perf[0], ws, uintptr(findWS))
	}
	if err := b.dnnCheck(call, status); err != nil {
		return k.fail(err)
	}
	if err := k.mem.free(ws); err != nil {
		return k.fail(err)
	}
	best, ok := fastest(perf[:max(0, min(int(got), len(perf)))])
	if !ok {
		return k.fail(fmt.Errorf("%w: %s found no algorithm that runs", profiler.ErrUnsupported, call))
	}
	wsBytes := int64(best.Memory)
	ws, err = k.mem.alloc("workspace", wsBytes)
	if err != nil {
		return k.fail(err)
	}
	k.choice = fmt.Sprintf("cuDNN %s (%s algo %d), workspace %d B, math type %d, %.4g ms in cudnnFind",
		convAlgoName(pass, best.Algo), pass, best.Algo, wsBytes, best.MathType, best.Time)
	k.algo, k.workspace = convAlgoLabel(pass, best.Algo, best.MathType), wsBytes

	alpha, beta := unsafe.Pointer(&k.alpha), unsafe.Pointer(&k.beta)
	algo := best.Algo
	switch pass {
	case dnn.Forward:
		k.runs = []func() error{func() error {
			return b.dnnCheck("cudnnConvolutionForward", api.cudnnConvolutionForward(b.dnnH, alpha, xd, ptr["x"], wd, ptr["w"], cd, algo, ws, uintptr(wsBytes), beta, yd, ptr["y"]))
		}}
	case dnn.BackwardData:
		k.runs = []func() error{func() error {
			return b.dnnCheck("cudnnConvolutionBackwardData", api.cudnnConvolutionBackwardData(b.dnnH, alpha, wd, ptr["w"], yd, ptr["dy"], cd, algo, ws, uintptr(wsBytes), beta, xd, ptr["dx"]))
		}}
	case dnn.BackwardWeights:
		k.runs = []func() error{func() error {
			return b.dnnCheck("cudnnConvolutionBackwardFilter", api.cudnnConvolutionBackwardFilter(b.dnnH, alpha, xd, ptr["x"], yd, ptr["dy"], cd, algo, ws, uintptr(wsBytes), beta, wd, ptr["dw"]))
		}}
	}
	return k, nil
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
// with cuBLASLt.
func (b *Backend) prepGemms(name string, gs []Gemm, prec dnn.Precision) (*kernel, error) {
	leave, err := b.enter()
	if err != nil {
		return nil, err
	}
	defer leave()
	api := b.lt
	k := b.newKernel(name)
	size := int64(prec.Size())

	// Buffers, each once.
	elems := map[string]int64{}
	var order []string
	for _, g := range gs {
		for _, o := range []Operand{g.A, g.B, g.C} {
			if _, ok := elems[o.Buf]; !ok {
				order = append(order, o.Buf)
			}
			elems[o.Buf] = o.Elems() * int64(g.Batch)
		}
	}
	wsBytes := orDefault(b.opts.GemmWorkspace, DefaultGemmWorkspace)
	total := wsBytes
	for _, n := range order {
		total += elems[n] * size
	}
	if _, err := k.mem.plan(total); err != nil {
		return k.fail(err)
	}
	for _, n := range order {
		p, err := k.mem.alloc(n, elems[n]*size)
		if err != nil {
			return k.fail(err)
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

	var used []string
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
		used = append(used, fmt.Sprintf("%s: workspace %d B, %.2f waves", g.Name, heur.WorkspaceSize, heur.WavesCount))
		k.workspace = max(k.workspace, int64(heur.WorkspaceSize))
		pa, pb, pc := k.mem.by[lt.ABuf], k.mem.by[lt.BBuf], k.mem.by[lt.CBuf]
		alpha, beta := unsafe.Pointer(&k.alpha), unsafe.Pointer(&k.beta)
		algo := &heur.Algo
		k.runs = append(k.runs, func() error {
			return check(CuBLASLt, "cublasLtMatmul", api.cublasLtMatmul(b.ltH, op, alpha, pa, ad, pb, bd, beta, pc, cd, pc, cd, algo, ws, uintptr(wsBytes), b.stream))
		})
	}
	k.choice = "cuBLASLt heuristic: " + fmt.Sprint(used)
	k.algo = "cublasLtMatmul heuristic #1"
	if len(gs) > 1 {
		k.algo = fmt.Sprintf("cublasLtMatmul heuristic #1 ×%d", len(gs))
	}
	return k, nil
}
