package cuda

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/profiler"
)

// fakeCall is one call the backend made into a fake library.
type fakeCall struct {
	name string
	args []reflect.Value
}

// fakeLibs stands in for libcuda, cuDNN, cuBLASLt and NVRTC: every
// function the backend binds records its call and succeeds, doing what
// the backend needs of it to go on (device memory is made-up addresses,
// descriptors and handles distinct numbers, cudnnFind and cuBLASLt's
// heuristic return one algorithm). Tests read the recording: the order
// of the calls and the stream each was enqueued on.
type fakeLibs struct {
	t     *testing.T
	calls []fakeCall
	next  uintptr // the next handle or address
	// fail makes a call return a status: the call's name to its code.
	fail map[string]int32
	// failCubin makes cuModuleLoadData refuse a cubin (the image NVRTC's
	// fake gives for sm_XY) with that status.
	failCubin int32
	options   [][]string         // NVRTC's compile options, per compilation
	funcs     map[uintptr]string // cuModuleGetFunction's handles: the kernels' names
	convY     [4]int32           // what cudnnGetConvolution2dForwardOutputDim answers
	// engines is how many engine configurations the graph API's
	// heuristics offer; refusePlans how many of the first execution plans
	// refuse to finalize. descType is each graph descriptor's type.
	engines     int64
	refusePlans int
	descType    map[uintptr]int32
	// host is the page-locked host memory cuMemHostAlloc gives, by its
	// device address (cuMemHostGetDevicePointer's); holdTimesOut makes
	// wb_hold time out on the batch it holds (the fake writes the batch
	// to the hold's second word at the launch).
	host         map[uint64][]int64
	hostOf       map[unsafe.Pointer]uint64
	holdTimesOut bool
	// onCall, when set, hears of every call before the fake answers it.
	onCall func(c fakeCall)
	// tensorDims are the dimensions set on each tensor descriptor, pools
	// each pooling descriptor's window, padding and stride (h, w each):
	// the fake pools as cuDNN does, 1 + (in + 2·pad − window) / stride.
	tensorDims map[uintptr][]int32
	pools      map[uintptr][6]int32
	// errorNames are the CUresults cuGetErrorName names; keep holds the
	// strings it gave.
	errorNames map[int32]string
	keep       [][]byte
}

const fakeStream uintptr = 0x5eed

// newFakeBackend is a Backend on fake libraries, as New would open it
// with every library present, the update pass foreach.
func newFakeBackend(t *testing.T) (*Backend, *fakeLibs) {
	b, f := newUnheldFakeBackend(t)
	if err := b.openHold(); err != nil || b.hold == nil {
		t.Fatalf("no hold: %v", err)
	}
	return b, f
}

// newUnheldFakeBackend is newFakeBackend before the stream's hold is set
// up (openHold): wb's kernels not yet compiled, the runs timed unheld.
func newUnheldFakeBackend(t *testing.T) (*Backend, *fakeLibs) {
	f := newFakeLibs(t)
	b := &Backend{stream: fakeStream, ctx: 0xc0, dnnH: 0xd0, ltH: 0xe0, update: UpdateForeach,
		dnn: &cudnnAPI{}, ops: &cudnnOpsAPI{}, adv: &cudnnAdvAPI{}, graph: &cudnnGraphAPI{}, lt: &ltAPI{}, rtc: &nvrtcAPI{},
		info: profiler.DeviceInfo{Versions: map[string]string{}}}
	for _, syms := range [][]symbol{b.drv.symbols(), b.dnn.symbols(), b.ops.symbols(), b.adv.symbols(), b.graph.symbols(),
		b.lt.symbols(), b.rtc.symbols()} {
		for _, s := range syms {
			f.bind(s)
		}
	}
	return b, f
}

// newFakeLibs is the fake with nothing bound yet (bind binds a symbol).
func newFakeLibs(t *testing.T) *fakeLibs {
	return &fakeLibs{t: t, next: 0x10000, fail: map[string]int32{}, funcs: map[uintptr]string{},
		engines: 3, descType: map[uintptr]int32{}, host: map[uint64][]int64{}, hostOf: map[unsafe.Pointer]uint64{},
		tensorDims: map[uintptr][]int32{}, pools: map[uintptr][6]int32{}}
}

// bind makes s's function variable record its calls and answer as
// answer says.
func (f *fakeLibs) bind(s symbol) {
	fn := reflect.ValueOf(s.fn).Elem()
	name := s.name
	fn.Set(reflect.MakeFunc(fn.Type(), func(args []reflect.Value) []reflect.Value {
		f.calls = append(f.calls, fakeCall{name, args})
		if f.onCall != nil {
			f.onCall(f.calls[len(f.calls)-1])
		}
		status := f.answer(name, args)
		if code, ok := f.fail[name]; ok {
			status = code
		}
		out := make([]reflect.Value, fn.Type().NumOut())
		for i := range out {
			out[i] = reflect.Zero(fn.Type().Out(i))
			if fn.Type().Out(i).Kind() == reflect.Int32 {
				out[i] = reflect.ValueOf(status)
			}
		}
		return out
	}))
}

// handle is a new distinct handle or address, 256-byte aligned.
func (f *fakeLibs) handle(bytes uintptr) uintptr {
	h := f.next
	f.next += (max(bytes, 1) + 255) &^ 255
	return h
}

// answer does the call's work: writes what it returns through its
// pointers. It returns the status.
func (f *fakeLibs) answer(name string, a []reflect.Value) int32 {
	ptr := func(i int) unsafe.Pointer { return a[i].UnsafePointer() }
	switch {
	case name == "cuMemAlloc_v2":
		*(*uint64)(ptr(0)) = uint64(f.handle(uintptr(a[1].Uint())))
	case name == "cuMemGetInfo_v2":
		*(*uintptr)(ptr(0)), *(*uintptr)(ptr(1)) = 64<<30, 80<<30
	case name == "cuDeviceGetAttribute":
		*(*int32)(ptr(0)) = map[int32]int32{cuDeviceAttributeComputeCapabilityMajor: 9, cuDeviceAttributeComputeCapabilityMinor: 0,
			cuDeviceAttributeL2CacheSize: 50 << 20}[int32(a[1].Int())]
	case name == "cuGetErrorName":
		n, ok := f.errorNames[int32(a[0].Int())]
		if !ok {
			return 1 // CUDA_ERROR_INVALID_VALUE: a code the driver does not know
		}
		s := append([]byte(n), 0)
		f.keep = append(f.keep, s)
		*(**byte)(ptr(1)) = &s[0]
	case name == "cuDeviceGetUuid_v2":
		*(*[16]byte)(ptr(0)) = [16]byte{0x5a, 0x3c, 0x0b, 0x5e, 0x2b, 0x7a, 0x11, 0xee, 0x80, 0x01, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x42}
	case name == "cuMemHostAlloc":
		words := make([]int64, (a[1].Uint()+7)/8)
		p := unsafe.Pointer(&words[0])
		dev := uint64(f.handle(uintptr(a[1].Uint())))
		f.host[dev], f.hostOf[p] = words, dev
		*(*unsafe.Pointer)(ptr(0)) = p
	case name == "cuMemHostGetDevicePointer_v2":
		dev, ok := f.hostOf[a[1].UnsafePointer()]
		if !ok {
			return 1 // CUDA_ERROR_INVALID_VALUE: not memory cuMemHostAlloc gave
		}
		*(*uint64)(ptr(0)) = dev
	case name == "cuMemFreeHost":
		dev, ok := f.hostOf[a[0].UnsafePointer()]
		if !ok {
			return 1
		}
		delete(f.host, dev)
		delete(f.hostOf, a[0].UnsafePointer())
	case name == "cuLaunchKernel" && f.funcs[uintptr(a[0].Uint())] == "wb_hold" && f.holdTimesOut:
		params := unsafe.Slice((*unsafe.Pointer)(a[9].UnsafePointer()), 3)
		dev, batch := *(*uint64)(params[0]), *(*int64)(params[1])
		f.host[dev][1] = batch
	case name == "cudnnSetTensorNdDescriptor":
		n := int(a[2].Int())
		f.tensorDims[uintptr(a[0].Uint())] = slices.Clone(unsafe.Slice((*int32)(ptr(3)), n))
	case name == "cudnnSetPooling2dDescriptor":
		// (desc, mode, nanOpt, windowH, windowW, padH, padW, strideH, strideW)
		var v [6]int32
		for i := range v {
			v[i] = int32(a[3+i].Int())
		}
		f.pools[uintptr(a[0].Uint())] = v
	case name == "cudnnGetPooling2dForwardOutputDim":
		pool, x := f.pools[uintptr(a[0].Uint())], f.tensorDims[uintptr(a[1].Uint())]
		if len(x) != 4 {
			return 2000 // CUDNN_STATUS_BAD_PARAM
		}
		out := [4]int32{x[0], x[1], 1 + (x[2]+2*pool[2]-pool[0])/pool[4], 1 + (x[3]+2*pool[3]-pool[1])/pool[5]}
		for i := range 4 {
			*(*int32)(ptr(2 + i)) = out[i]
		}
	case name == "cuModuleLoadData":
		if *(*byte)(ptr(1)) == 'C' && f.failCubin != 0 {
			return f.failCubin
		}
		*(*uintptr)(ptr(0)) = f.handle(1)
	case name == "cuModuleGetFunction":
		h := f.handle(1)
		*(*uintptr)(ptr(0)) = h
		f.funcs[h] = a[2].String()
	case name == "cuEventCreate", name == "cuStreamCreate",
		strings.HasPrefix(name, "cudnnCreate") && a[0].Kind() == reflect.Pointer,
		strings.HasPrefix(name, "cublasLt") && strings.HasSuffix(name, "Create") && a[0].Kind() == reflect.Pointer,
		name == "nvrtcCreateProgram":
		*(*uintptr)(ptr(0)) = f.handle(1)
	case name == "cuEventElapsedTime":
		*(*float32)(ptr(0)) = 0.25
	case name == "cudnnBackendCreateDescriptor":
		h := f.handle(1)
		*(*uintptr)(ptr(1)) = h
		f.descType[h] = int32(a[0].Int())
	case name == "cudnnBackendFinalize":
		if f.descType[uintptr(a[0].Uint())] == cudnnBackendExecutionPlanDescriptor && f.refusePlans > 0 {
			f.refusePlans--
			return 3000 // CUDNN_STATUS_NOT_SUPPORTED (cuDNN 9)
		}
	case name == "cudnnBackendGetAttribute":
		switch int32(a[1].Int()) {
		case cudnnAttrEngineHeurResults:
			n := f.engines // asked how many (0 requested), or given as many as asked for
			if req := a[3].Int(); req > 0 {
				n = min(n, req)
			}
			*(*int64)(ptr(4)) = n
		case cudnnAttrExecutionPlanWorkspace:
			*(*int64)(ptr(4)) = 1
			*(*int64)(ptr(5)) = 1 << 20
		}
	case name == "cudnnGetConvolution2dForwardOutputDim":
		for i := range 4 {
			*(*int32)(ptr(3 + i)) = f.convY[i]
		}
	case strings.HasPrefix(name, "cudnnFindConvolution"):
		*(*int32)(ptr(9)) = 1
		*(*convPerf)(ptr(10)) = convPerf{Algo: 1, Time: 0.5, Memory: 4096, MathType: 1}
	case name == "cublasLtMatmulAlgoGetHeuristic":
		*(*ltHeuristic)(ptr(8)) = ltHeuristic{WorkspaceSize: 1 << 20, WavesCount: 1}
		*(*int32)(ptr(9)) = 1
	case name == "nvrtcCompileProgram":
		n := int(a[1].Int())
		opts := unsafe.Slice((**byte)(ptr(2)), n)
		var strs []string
		for _, o := range opts {
			var b []byte
			for q := o; *q != 0; q = (*byte)(unsafe.Add(unsafe.Pointer(q), 1)) {
				b = append(b, *q)
			}
			strs = append(strs, string(b))
		}
		f.options = append(f.options, strs)
	case name == "nvrtcGetCUBINSize", name == "nvrtcGetPTXSize":
		*(*uintptr)(ptr(1)) = 8
	case name == "nvrtcGetCUBIN":
		copy(unsafe.Slice((*byte)(ptr(1)), 8), "CUBIN\x7fE\x00")
	case name == "nvrtcGetPTX":
		copy(unsafe.Slice((*byte)(ptr(1)), 8), "PTX .v\x00\x00")
	case name == "cudnnGetRNNWeightSpaceSize":
		*(*uintptr)(ptr(2)) = 1 << 16
	case name == "cudnnGetRNNTempSpaceSizes":
		*(*uintptr)(ptr(4)), *(*uintptr)(ptr(5)) = 1<<12, 1<<13
	case name == "cudnnDropoutGetStatesSize", name == "cudnnDropoutGetReserveSpaceSize":
		*(*uintptr)(ptr(1)) = 1 << 10
	}
	return 0
}

// streamOf is the stream a call enqueues its work on, for the calls that
// name one.
func streamOf(c fakeCall) (uintptr, bool) {
	switch c.name {
	case "cuMemsetD8Async", "cuMemsetD16Async", "cuMemsetD32Async", "cublasLtMatmul":
		return uintptr(c.args[len(c.args)-1].Uint()), true
	case "cuLaunchKernel":
		return uintptr(c.args[8].Uint()), true
	case "cuEventRecord":
		return uintptr(c.args[1].Uint()), true
	case "cuStreamSynchronize":
		return uintptr(c.args[0].Uint()), true
	}
	return 0, false
}

// enqueues says whether a call puts work on a stream: the driver's async
// calls and launches, and the library calls that run kernels.
func enqueues(name string) bool {
	if strings.HasPrefix(name, "cuMemset") || name == "cuLaunchKernel" || name == "cublasLtMatmul" {
		return true
	}
	for _, p := range []string{"cudnnConvolution", "cudnnFind", "cudnnPooling", "cudnnActivation", "cudnnSoftmax", "cudnnBatchNormalization",
		"cudnnOpTensor", "cudnnAddTensor", "cudnnDropoutForward", "cudnnDropoutBackward", "cudnnSetDropoutDescriptor", "cudnnRNNForward",
		"cudnnRNNBackward", "cudnnBackendExecute"} {
		if strings.HasPrefix(name, p) && !strings.Contains(name, "Descriptor") || name == "cudnnSetDropoutDescriptor" {
			return true
		}
	}
	return false
}

// names lists the calls' names from i on, launches as "launch
// <kernel>", leaving out cuCtxSetCurrent (every entry into the backend).
func (f *fakeLibs) names(from int) []string {
	var out []string
	for _, c := range f.calls[from:] {
		switch c.name {
		case "cuCtxSetCurrent":
		case "cuLaunchKernel":
			out = append(out, "launch "+f.funcs[uintptr(c.args[0].Uint())])
		default:
			out = append(out, c.name)
		}
	}
	return out
}

// layerOf finds the first layer of op in the models, or fails.
func layerOf(t *testing.T, op string, models ...string) dnn.Layer {
	t.Helper()
	for _, m := range models {
		net, err := dnn.Model(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range net.Nodes {
			if string(n.Layer.Op()) == op {
				return n.Layer
			}
		}
	}
	t.Fatalf("no %s layer in %v", op, models)
	return nil
}

// biasedLayer finds the first layer of op with a bias (attribute bias = 1).
func biasedLayer(t *testing.T, op string, models ...string) dnn.Layer {
	t.Helper()
	for _, m := range models {
		net, err := dnn.Model(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range net.Nodes {
			if d, ok := n.Layer.(dnn.Describer); ok && string(n.Layer.Op()) == op && d.Describe().Attr[dnn.AttrBias] == 1 {
				return n.Layer
			}
		}
	}
	t.Fatalf("no %s layer with a bias in %v", op, models)
	return nil
}

// fakeConvY sets what the fake cuDNN computes as l's output, dnn's.
func (f *fakeLibs) fakeConvY(t *testing.T, l dnn.Layer, batch int) {
	t.Helper()
	if l.Op() != dnn.OpConv2D {
		return
	}
	c, err := ConvFor(l.(dnn.Describer).Describe(), batch, dnn.FP32)
	if err != nil {
		t.Fatal(err)
	}
	f.convY = c.YDims()
}

func (c fakeCall) String() string {
	var args []string
	for _, a := range c.args {
		args = append(args, fmt.Sprint(a))
	}
	return c.name + "(" + strings.Join(args, ", ") + ")"
}
