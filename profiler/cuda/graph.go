package cuda

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/profiler"
)

// Enum values of cuDNN 9's graph API (cudnn_graph.h), pinned by
// TestEnumValues.
const (
	// cudnnBackendDescriptorType_t
	cudnnBackendConvolutionDescriptor     int32 = 1
	cudnnBackendEngineCfgDescriptor       int32 = 3
	cudnnBackendEngineHeurDescriptor      int32 = 4
	cudnnBackendExecutionPlanDescriptor   int32 = 5
	cudnnBackendOpConvForwardDescriptor   int32 = 10
	cudnnBackendOpConvBwdFilterDescriptor int32 = 11
	cudnnBackendOpConvBwdDataDescriptor   int32 = 12
	cudnnBackendOperationGraphDescriptor  int32 = 15
	cudnnBackendVariantPackDescriptor     int32 = 16
	cudnnBackendTensorDescriptor          int32 = 17

	// cudnnBackendAttributeType_t
	cudnnTypeHandle            int32 = 0
	cudnnTypeDataType          int32 = 1
	cudnnTypeInt64             int32 = 3
	cudnnTypeFloat             int32 = 4
	cudnnTypeVoidPtr           int32 = 6
	cudnnTypeConvolutionMode   int32 = 7
	cudnnTypeHeurMode          int32 = 8
	cudnnTypeBackendDescriptor int32 = 15

	// cudnnBackendHeurMode_t
	cudnnHeurModeA int32 = 3

	// cudnnBackendAttributeName_t
	cudnnAttrConvolutionCompType      int32 = 100
	cudnnAttrConvolutionConvMode      int32 = 101
	cudnnAttrConvolutionDilations     int32 = 102
	cudnnAttrConvolutionFilterStrides int32 = 103
	cudnnAttrConvolutionPostPaddings  int32 = 104
	cudnnAttrConvolutionPrePaddings   int32 = 105
	cudnnAttrConvolutionSpatialDims   int32 = 106
	cudnnAttrEngineHeurMode           int32 = 200
	cudnnAttrEngineHeurOperationGraph int32 = 201
	cudnnAttrEngineHeurResults        int32 = 202
	cudnnAttrExecutionPlanHandle      int32 = 400
	cudnnAttrExecutionPlanEngineCfg   int32 = 401
	cudnnAttrExecutionPlanWorkspace   int32 = 402
	cudnnAttrConvFwdAlpha             int32 = 700 // ..._CONVOLUTION_FORWARD_ALPHA; BETA, CONV_DESC, W, X, Y follow
	cudnnAttrConvBwdDataAlpha         int32 = 706 // ..._BWD_DATA_ALPHA; BETA, CONV_DESC, W, DX, DY follow
	cudnnAttrConvBwdFilterAlpha       int32 = 712 // ..._BWD_FILTER_ALPHA; BETA, CONV_DESC, DW, X, DY follow
	cudnnAttrOperationGraphHandle     int32 = 800
	cudnnAttrOperationGraphOps        int32 = 801
	cudnnAttrTensorByteAlignment      int32 = 900
	cudnnAttrTensorDataType           int32 = 901
	cudnnAttrTensorDimensions         int32 = 902
	cudnnAttrTensorStrides            int32 = 903
	cudnnAttrTensorUniqueID           int32 = 906
	cudnnAttrVariantPackUniqueIDs     int32 = 1000
	cudnnAttrVariantPackDataPointers  int32 = 1001
	cudnnAttrVariantPackWorkspace     int32 = 1003
)

// graphPlans is how many of cuDNN's heuristic engine configurations (mode
// A, best first) a convolution pass times before keeping the fastest, as
// PyTorch's benchmark mode times the frontend's candidates.
const graphPlans = 8

// graphConv is one convolution pass as cuDNN's graph API runs it: the
// tensors and the operation, graph, heuristics and plans built on them.
type graphConv struct {
	api *cudnnGraphAPI
	b   *Backend
	own []uintptr // every descriptor made, destroyed by close
}

func (g *graphConv) create(typ int32) (uintptr, error) {
	var d uintptr
	if err := g.b.dnnCheck("cudnnBackendCreateDescriptor", g.api.cudnnBackendCreateDescriptor(typ, &d)); err != nil {
		return 0, err
	}
	g.own = append(g.own, d)
	return d, nil
}

func (g *graphConv) set(d uintptr, name, typ int32, count int64, p unsafe.Pointer) error {
	return g.b.dnnCheck(fmt.Sprintf("cudnnBackendSetAttribute(%d)", name), g.api.cudnnBackendSetAttribute(d, name, typ, count, p))
}

func (g *graphConv) finalize(d uintptr, what string) error {
	return g.b.dnnCheck("cudnnBackendFinalize("+what+")", g.api.cudnnBackendFinalize(d))
}

// attr is one attribute to set: name, type, element count and elements.
type attr struct {
	name, typ int32
	n         int64
	p         unsafe.Pointer
}

// build creates a descriptor of typ, sets attrs in order and finalizes it.
func (g *graphConv) build(typ int32, what string, attrs ...attr) (uintptr, error) {
	d, err := g.create(typ)
	if err != nil {
		return 0, err
	}
	for _, a := range attrs {
		if err := g.set(d, a.name, a.typ, a.n, a.p); err != nil {
			return 0, err
		}
	}
	return d, g.finalize(d, what)
}

// one is an attribute of a single element.
func one(name, typ int32, p unsafe.Pointer) attr { return attr{name, typ, 1, p} }

func (g *graphConv) close() {
	for i := len(g.own) - 1; i >= 0; i-- {
		g.api.cudnnBackendDestroyDescriptor(g.own[i])
	}
	g.own = nil
}

// tensor makes a finalized tensor descriptor of dims and strides.
func (g *graphConv) tensor(uid int64, dt int32, dims, strides [4]int32) (uintptr, error) {
	var dd, ss [4]int64
	for i := range dims {
		dd[i], ss[i] = int64(dims[i]), int64(strides[i])
	}
	align := int64(16)
	return g.build(cudnnBackendTensorDescriptor, "tensor",
		one(cudnnAttrTensorDataType, cudnnTypeDataType, unsafe.Pointer(&dt)),
		attr{cudnnAttrTensorDimensions, cudnnTypeInt64, 4, unsafe.Pointer(&dd[0])},
		attr{cudnnAttrTensorStrides, cudnnTypeInt64, 4, unsafe.Pointer(&ss[0])},
		one(cudnnAttrTensorUniqueID, cudnnTypeInt64, unsafe.Pointer(&uid)),
		one(cudnnAttrTensorByteAlignment, cudnnTypeInt64, unsafe.Pointer(&align)))
}

// graphPlan is one finalized execution plan and its workspace.
type graphPlan struct {
	plan      uintptr
	workspace int64
	index     int // its rank among the heuristic's results
}

// prepConvGraph builds one pass of c with cuDNN's graph API on the
// buffers of ptr: tensors x (uid 1), w (2) and y (3) in NCHW and KCRS, the
// convolution (cross-correlation, float accumulation), its operation and
// graph, heuristic mode A's engine configurations, the first graphPlans
// that finalize within maxWS bytes of workspace, each timed over three
// runs after one, the fastest kept. It returns the run, its label and its
// workspace. Call with the context current.
func (b *Backend) prepConvGraph(k *kernel, c ConvProblem, pass dnn.Pass, ptr map[string]uint64, maxWS int64) (run func() error, label string, ws int64, err error) {
	g := &graphConv{api: b.graph, b: b}
	k.free = append(k.free, g.close)
	dt := c.DataType
	x, err := g.tensor(1, dt, c.XDims(), c.XStrides())
	if err != nil {
		return nil, "", 0, err
	}
	w, err := g.tensor(2, dt, c.WDims(), packed(c.WDims()))
	if err != nil {
		return nil, "", 0, err
	}
	y, err := g.tensor(3, dt, c.YDims(), c.YStrides())
	if err != nil {
		return nil, "", 0, err
	}
	comp, mode, dims := c.ComputeType, cudnnCrossCorrelation, int64(2)
	dil := [2]int64{int64(c.Dilation), int64(c.Dilation)}
	str := [2]int64{int64(c.Stride), int64(c.Stride)}
	pad := [2]int64{int64(c.PadH), int64(c.PadW)}
	conv, err := g.build(cudnnBackendConvolutionDescriptor, "convolution",
		one(cudnnAttrConvolutionCompType, cudnnTypeDataType, unsafe.Pointer(&comp)),
		one(cudnnAttrConvolutionConvMode, cudnnTypeConvolutionMode, unsafe.Pointer(&mode)),
		one(cudnnAttrConvolutionSpatialDims, cudnnTypeInt64, unsafe.Pointer(&dims)),
		attr{cudnnAttrConvolutionDilations, cudnnTypeInt64, 2, unsafe.Pointer(&dil[0])},
		attr{cudnnAttrConvolutionFilterStrides, cudnnTypeInt64, 2, unsafe.Pointer(&str[0])},
		attr{cudnnAttrConvolutionPrePaddings, cudnnTypeInt64, 2, unsafe.Pointer(&pad[0])},
		attr{cudnnAttrConvolutionPostPaddings, cudnnTypeInt64, 2, unsafe.Pointer(&pad[0])})
	if err != nil {
		return nil, "", 0, err
	}

	// The operation: alpha, beta, the convolution, then its three tensors,
	// w, x and y in every pass (forward W, X, Y; backward-data W, DX, DY;
	// backward-filter DW, X, DY), each the pass's buffer of bufs.
	var opType, attr0 int32
	var bufs [3]string
	switch pass {
	case dnn.Forward:
		opType, attr0, bufs = cudnnBackendOpConvForwardDescriptor, cudnnAttrConvFwdAlpha, [3]string{"w", "x", "y"}
	case dnn.BackwardData:
		opType, attr0, bufs = cudnnBackendOpConvBwdDataDescriptor, cudnnAttrConvBwdDataAlpha, [3]string{"w", "dx", "dy"}
	case dnn.BackwardWeights:
		opType, attr0, bufs = cudnnBackendOpConvBwdFilterDescriptor, cudnnAttrConvBwdFilterAlpha, [3]string{"dw", "x", "dy"}
	default:
		return nil, "", 0, fmt.Errorf("no convolution pass %s", pass)
	}
	tensors := [3]uintptr{w, x, y}
	alpha, beta := float32(1), float32(0)
	op, err := g.build(opType, "operation",
		one(attr0, cudnnTypeFloat, unsafe.Pointer(&alpha)),
		one(attr0+1, cudnnTypeFloat, unsafe.Pointer(&beta)),
		one(attr0+2, cudnnTypeBackendDescriptor, unsafe.Pointer(&conv)),
		one(attr0+3, cudnnTypeBackendDescriptor, unsafe.Pointer(&tensors[0])),
		one(attr0+4, cudnnTypeBackendDescriptor, unsafe.Pointer(&tensors[1])),
		one(attr0+5, cudnnTypeBackendDescriptor, unsafe.Pointer(&tensors[2])))
	if err != nil {
		return nil, "", 0, err
	}
	h := b.dnnH
	graph, err := g.build(cudnnBackendOperationGraphDescriptor, "operation graph",
		one(cudnnAttrOperationGraphHandle, cudnnTypeHandle, unsafe.Pointer(&h)),
		one(cudnnAttrOperationGraphOps, cudnnTypeBackendDescriptor, unsafe.Pointer(&op)))
	if err != nil {
		return nil, "", 0, err
	}

	// Heuristic mode A's engine configurations, best first.
	hm := cudnnHeurModeA
	heur, err := g.build(cudnnBackendEngineHeurDescriptor, "engine heuristics",
		one(cudnnAttrEngineHeurOperationGraph, cudnnTypeBackendDescriptor, unsafe.Pointer(&graph)),
		one(cudnnAttrEngineHeurMode, cudnnTypeHeurMode, unsafe.Pointer(&hm)))
	if err != nil {
		return nil, "", 0, err
	}
	var count int64
	if err := b.dnnCheck("cudnnBackendGetAttribute(heuristic results)", g.api.cudnnBackendGetAttribute(heur, cudnnAttrEngineHeurResults, cudnnTypeBackendDescriptor, 0, &count, nil)); err != nil {
		return nil, "", 0, err
	}
	if count < 1 {
		return nil, "", 0, fmt.Errorf("%w: cuDNN's heuristics offer no engine", profiler.ErrUnsupported)
	}
	cfgs := make([]uintptr, count)
	for i := range cfgs {
		if cfgs[i], err = g.create(cudnnBackendEngineCfgDescriptor); err != nil {
			return nil, "", 0, err
		}
	}
	var got int64
	if err := b.dnnCheck("cudnnBackendGetAttribute(heuristic results)", g.api.cudnnBackendGetAttribute(heur, cudnnAttrEngineHeurResults, cudnnTypeBackendDescriptor, count, &got, unsafe.Pointer(&cfgs[0]))); err != nil {
		return nil, "", 0, err
	}
	var plans []graphPlan
	var refused []string
	for i := 0; i < int(min(got, count)) && len(plans) < graphPlans; i++ {
		plan, err := g.build(cudnnBackendExecutionPlanDescriptor, "execution plan",
			one(cudnnAttrExecutionPlanHandle, cudnnTypeHandle, unsafe.Pointer(&h)),
			one(cudnnAttrExecutionPlanEngineCfg, cudnnTypeBackendDescriptor, unsafe.Pointer(&cfgs[i])))
		if err != nil {
			refused = append(refused, fmt.Sprintf("#%d: %v", i, err))
			continue // an engine the heuristic lists that cannot run this problem
		}
		var wsBytes, n int64
		if err := b.dnnCheck("cudnnBackendGetAttribute(workspace)", g.api.cudnnBackendGetAttribute(plan, cudnnAttrExecutionPlanWorkspace, cudnnTypeInt64, 1, &n, unsafe.Pointer(&wsBytes))); err != nil {
			return nil, "", 0, err
		}
		if wsBytes > maxWS {
			refused = append(refused, fmt.Sprintf("#%d: workspace %d B", i, wsBytes))
			continue
		}
		plans = append(plans, graphPlan{plan: plan, workspace: wsBytes, index: i})
	}
	if len(plans) == 0 {
		return nil, "", 0, fmt.Errorf("%w: no engine of cuDNN's %d finalized: %v", profiler.ErrUnsupported, got, refused)
	}

	// One workspace of the largest, and one variant pack for every plan.
	var most int64
	for _, p := range plans {
		most = max(most, p.workspace)
	}
	wsPtr, err := k.mem.alloc("workspace", most)
	if err != nil {
		return nil, "", 0, err
	}
	// Given back on every failure from here, so that the legacy routines
	// the caller falls back on have the memory they were planned with.
	fail := func(err error) (func() error, string, int64, error) {
		if ferr := k.mem.free(wsPtr); ferr != nil {
			err = fmt.Errorf("%w (freeing the workspace: %v)", err, ferr)
		}
		return nil, "", 0, err
	}
	uids := []int64{2, 1, 3} // w (dw), x (dx), y (dy): bufs' order above
	data := make([]uint64, 3)
	for i, name := range bufs {
		data[i] = ptr[name]
		if data[i] == 0 {
			return fail(fmt.Errorf("no buffer %q", name))
		}
	}
	pack, err := g.build(cudnnBackendVariantPackDescriptor, "variant pack",
		attr{cudnnAttrVariantPackUniqueIDs, cudnnTypeInt64, 3, unsafe.Pointer(&uids[0])},
		attr{cudnnAttrVariantPackDataPointers, cudnnTypeVoidPtr, 3, unsafe.Pointer(&data[0])},
		one(cudnnAttrVariantPackWorkspace, cudnnTypeVoidPtr, unsafe.Pointer(&wsPtr)))
	if err != nil {
		return fail(err)
	}
	execute := func(p uintptr) func() error {
		return func() error {
			return b.dnnCheck("cudnnBackendExecute", g.api.cudnnBackendExecute(h, p, pack))
		}
	}
	// The fastest plan, each timed on the stream: one run, then three.
	best, bestT := -1, math.Inf(1)
	for i, p := range plans {
		t, err := b.timeRuns(execute(p.plan), 3)
		if err != nil {
			refused = append(refused, fmt.Sprintf("#%d: %v", p.index, err))
			continue
		}
		if t < bestT {
			best, bestT = i, t
		}
	}
	if best < 0 {
		return fail(fmt.Errorf("%w: no engine of cuDNN's ran: %v", profiler.ErrUnsupported, refused))
	}
	p := plans[best]
	label = fmt.Sprintf("cudnnBackendExecute, heuristic A engine config #%d of %d (fastest of %d timed)", p.index, got, len(plans))
	return execute(p.plan), label, p.workspace, nil
}

// timeRuns runs f once and then n times on the stream and returns the mean
// of the n, in seconds, between two events. Unheld, unlike Kernel.Time:
// it picks the engine PyTorch's cuDNN frontend would (its time_sorted_plan
// times each plan's executes unheld, so a plan's host cost counts, as it
// does here). Call with the context current.
func (b *Backend) timeRuns(f func() error, n int) (float64, error) {
	d := &b.drv
	var e [2]uintptr
	for i := range e {
		if err := check(Driver, "cuEventCreate", d.cuEventCreate(&e[i], 0)); err != nil {
			return 0, err
		}
		defer d.cuEventDestroy(e[i])
	}
	if err := f(); err != nil {
		return 0, err
	}
	if err := check(Driver, "cuEventRecord", d.cuEventRecord(e[0], b.stream)); err != nil {
		return 0, err
	}
	for range n {
		if err := f(); err != nil {
			return 0, err
		}
	}
	if err := check(Driver, "cuEventRecord", d.cuEventRecord(e[1], b.stream)); err != nil {
		return 0, err
	}
	if err := check(Driver, "cuEventSynchronize", d.cuEventSynchronize(e[1])); err != nil {
		return 0, err
	}
	var ms float32
	if err := check(Driver, "cuEventElapsedTime", d.cuEventElapsedTime(&ms, e[0], e[1])); err != nil {
		return 0, err
	}
	return float64(ms) / 1e3 / float64(n), nil
}
