// Package cuda is the profiler backend that runs layers on an NVIDIA GPU
// through the CUDA libraries, loaded at run time with purego: no cgo and
// no CUDA headers at build time, so the package builds and its tests pass
// on machines without CUDA.
//
// # Libraries
//
// New finds libcuda.so.1 (the driver API; required), libcublasLt
// (.so.13 or .so.12), libnvrtc (.so.13 or .so.12) and libcudnn.so.9
// where [SearchDirs] says, loads them (RTLD_NOW | RTLD_GLOBAL, cuBLASLt
// before cuDNN so that cuDNN's own loading of cuBLASLt finds it), binds
// the functions it calls, and opens the device's primary context, one
// non-blocking stream, a cuDNN handle and a cuBLASLt handle on it. A
// missing or unloadable cuDNN, cuBLASLt or NVRTC is not an error: the
// ops that need it are then unsupported, saying why.
//
// # What it runs
//
//   - conv2d (fwd, bwd-data, bwd-weights): cuDNN's convolution API, NCHW
//     tensors, cross-correlation; the algorithm is the fastest that
//     cudnnFind*AlgorithmEx measures on the prepared buffers, with as
//     much workspace as Options.Workspace allows; the kernel's String
//     names it and its workspace. A bias is added after the convolution
//     (cudnnAddTensor) and its gradient computed after the filter's (wb's
//     own reduction of dy, compiled by NVRTC: cuDNN's
//     cudnnConvolutionBackwardBias refuses bfloat16), as PyTorch adds it
//     after cudnn_convolution and sums dy for its gradient.
//   - linear, matmul: cuBLASLt, the first algorithm of
//     cublasLtMatmulAlgoGetHeuristic with Options.GemmWorkspace bytes of
//     workspace (see [GemmsFor] for the products and [ConvFor] and
//     gemmTypes for the precisions). A linear layer's bias is the forward
//     product's epilogue, CUBLASLT_EPILOGUE_BIAS (PyTorch's addmm through
//     cuBLASLt); its gradient is wb's reduction of dY over its rows after
//     the weights' plain product, as eager PyTorch's autograd computes it
//     (grad_output.sum(0), no BGRADB epilogue).
//   - maxpool, avgpool, globalavgpool, relu, sigmoid, tanh, silu,
//     softmax, batchnorm, instancenorm (batch norm over [1, N·C, H, W],
//     as F.instance_norm reshapes it) and add (fwd, and bwd-data where
//     dnn gives it work): cuDNN's legacy operations API on NCHW tensors
//     (see [OpFor]). PyTorch runs cuDNN's batch norm only for fp32 (or
//     fp16 input with fp32 weights), with a weight and a bias: for batch
//     norm in bf16 and fp16 and for instance norm it runs its own
//     kernels, so those rows time another routine, as their algo column
//     and the profile's notes ([PyTorchNotes]) say.
//   - lstm (fwd, bwd-data, bwd-weights): cuDNN's RNN API
//     (cudnnRNNForward, cudnnRNNBackwardData_v8,
//     cudnnRNNBackwardWeights_v8), configured as PyTorch's nn.LSTM
//     configures it ([LSTMProblem]).
//   - The update pass of every layer with parameters: SGD with momentum
//     on fp32 master weights as torch.optim.SGD steps it on CUDA
//     ([UpdateMode]: its default foreach implementation, three
//     multi-tensor kernels, or fused=True, one), wb's kernels; the
//     device's versions say which ("update").
//   - gelu (tanh approximation), leakyrelu, layernorm, embedding (a
//     gather forward, a scatter-add into the dense table gradient
//     backward), dropout (PyTorch's own: cuDNN's refuses bfloat16), a
//     convolution's bias gradient, concat, select, upsample and pad (the
//     last four not yet run on a GPU): wb's own kernels (kernels.cu),
//     compiled by NVRTC when the backend opens (the stream's hold is one
//     of them), to machine code for the device's architecture (a cubin,
//     which a driver older than NVRTC loads), or to PTX where the cubin
//     does not load, launched with cuLaunchKernel (see
//     [OpProblem.Launches] and compilePlans).
//   - Everything else (normalize, lrn): Prepare returns an error
//     wrapping [profiler.ErrUnsupported] and the profiler records the row
//     as unsupported and goes on. A pass whose dnn work is zero gets a
//     kernel that does nothing, as on the CPU.
//
// Every kernel says what it runs ([profiler.Chooser]): the profile's algo
// and workspace_bytes columns.
//
// Buffers are filled with pseudo-random values in their precision (fp32
// for tf32 and for the fp32 parameters, statistics and master weights),
// in place of PyTorch's torch.randn inputs: wb_fill_<type>, an NVRTC
// kernel on the backend's stream, writes a hash of each index and the
// buffer's seed, about a standard normal's spread (within ±2√3), the same
// on every run. A constant fill timed tensor-core products fast against
// PyTorch's: tensor cores draw less power on predictable data, and run
// faster under a power cap (Horace He, 2024: 295 against 257 TFLOPS on an
// A100, zeros against randn). Where wb's kernels do not load (no NVRTC),
// buffers hold the constant 0.01 (cuMemsetD32Async/D16Async), and the
// device's versions say which ("fill"). An embedding's token ids are a
// hash of their position, uniform over the vocabulary; an LSTM's sequence
// lengths its time steps. The backward passes of pooling, activations,
// batch norm, dropout and lstm run their forward once at preparation, so
// that what they read of it (the maxima, outputs, statistics, mask,
// reserve space) is what the forward leaves. The stream is
// CU_STREAM_NON_BLOCKING, so everything a preparation does (fills,
// cudnnFind's trials, the forward runs whose results a backward pass
// reads) is enqueued on it, and Prepare
// synchronises it (cuStreamSynchronize) before it returns a kernel: no
// timed run overlaps its preparation. A preparation whose buffers do not
// fit the device's free memory (cuMemGetInfo, less Options.Reserve)
// fails with [profiler.ErrOutOfMemory] before allocating, and so does an
// allocation the driver refuses.
//
// The device's versions carry the GPU's UUID ("gpu_uuid", from
// cuDeviceGetUuid_v2, written as NVML writes it): NVML telemetry samples
// that GPU (nvml.ForProfile), not NVML's GPU 0.
//
// # Timing
//
// Kernel.Time(n) queues the runs in batches behind wb_hold, a kernel
// that holds the stream until the host has queued the whole batch (at
// most holdBudget launches, a run at least) and releases it: an event on
// the stream before the batch's first run and one after each run, back
// to back; it synchronizes on the last and reads each run's time with
// cuEventElapsedTime between consecutive events. So the runs' times are
// the GPU's, however long the host takes to queue each run's library
// calls (an event recorded on an idle stream would take the host's time
// to queue the run that follows it). A kernel's first Time runs it once
// unheld and waits for it (a library kernel's first launch may wait for
// the device), and a batch whose hold runs out is timed again a run a
// batch (hold.go). Without NVRTC, which builds the hold, under
// CUDA_LAUNCH_BLOCKING=1 and with Options.Unheld the runs are timed
// unheld, and the device's versions say so ("timing"). Under Options.ColdCache (--cold-cache) each run gets its
// own pair of events, and a write of twice the L2 cache's size
// ([FlushSize]) is enqueued before each pair, outside the timed span.
//
// # Status
//
// Written against NVIDIA's documented C APIs without a GPU: the
// discovery, status codes, descriptor arithmetic, enum values and the C
// struct layouts are tested, and so are the order of the calls and the
// stream each is enqueued on, against a recording fake of the libraries
// (fakelib_test.go). The calls themselves ran on an H200 on 2026-11-28
// (TestGPUOps makes each of them on a machine with a GPU); the stream hold
// (hold.go), the unheld first run of each kernel and cuGetErrorName came
// after and have not run on a GPU. docs/profiling.md lists the validation
// still to do on a GPU.
package cuda

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/profiler"
)

// Defaults of Options.
const (
	DefaultWorkspace     = 1 << 30   // cudnnFind's workspace cap
	DefaultGemmWorkspace = 32 << 20  // cuBLASLt's, as PyTorch gives it on Hopper
	DefaultReserve       = 256 << 20 // free memory left to the libraries
)

// Options configure the backend. The zero value searches the usual
// places and uses device 0.
type Options struct {
	// LibPath is --cuda-lib-path: folders, colon-separated, searched for
	// the libraries before anything else.
	LibPath string
	// Device is the CUDA device ordinal.
	Device int
	// Workspace is the most bytes of workspace cudnnFind may try
	// algorithms with (DefaultWorkspace when zero).
	Workspace int64
	// GemmWorkspace is cuBLASLt's workspace (DefaultGemmWorkspace when
	// zero).
	GemmWorkspace int64
	// Reserve is the free device memory a preparation leaves unused
	// (DefaultReserve when zero).
	Reserve int64
	// ColdCache is --cold-cache: before each timed run, write a buffer
	// larger than the L2 cache (FlushSize), outside the events that time
	// the run, so that each run starts with none of its data in L2.
	ColdCache bool
	// FlushBytes overrides the flush buffer's size (FlushSize's default
	// when zero).
	FlushBytes int64
	// Unheld times the runs without the stream's hold (hold.go): each run
	// then starts when the host has queued it, and a run that costs the
	// host more than the GPU takes the host's time. For profilers and
	// debuggers that serialise launches (CUDA_LAUNCH_BLOCKING=1 does the
	// same). The device's versions say which ("timing").
	Unheld bool
	// Update is the torch.optim.SGD implementation the update pass models
	// (UpdateForeach, PyTorch's CUDA default, when empty; UpdateFused).
	// The device's versions say which ("update"), so that profiles of the
	// two never share a cache entry.
	Update UpdateMode

	// Root and Getenv replace the file system searched (its root folder;
	// "" is "/") and the environment read (nil is os.Getenv), for tests.
	Root   string
	Getenv func(string) string
}

func (o Options) discover() (Discovery, fs.FS, string) {
	root, getenv := o.Root, o.Getenv
	if root == "" {
		root = "/"
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	var fsys fs.FS = os.DirFS(root)
	return Discover(fsys, root, Env{LibPath: o.LibPath, Getenv: getenv}), fsys, root
}

func orDefault(v, def int64) int64 {
	if v <= 0 {
		return def
	}
	return v
}

// cuStreamNonBlocking is CU_STREAM_NON_BLOCKING (cuda.h's CUstream_flags):
// the backend's stream "does not synchronize with stream 0 (the NULL
// stream)", so that nothing else's work on the NULL stream serialises
// with the timed runs, and therefore every preparation step that the runs
// depend on goes on the stream too (deviceMem.fill, Backend.settle).
const cuStreamNonBlocking uint32 = 0x1

// Backend runs layer passes on one GPU. It is not safe for concurrent
// use.
type Backend struct {
	opts   Options
	drv    driverAPI
	dev    int32
	ctx    uintptr
	stream uintptr

	dnn    *cudnnAPI // nil when cuDNN did not load; dnnErr says why
	dnnErr error
	dnnH   uintptr
	ops    *cudnnOpsAPI // nil when cuDNN's operations API did not bind; opsErr says why
	opsErr error
	// adv is cuDNN's RNN API: nil when it did not bind (advErr says why).
	adv    *cudnnAdvAPI
	advErr error
	// graph is cuDNN's graph API, which 16-bit convolutions run through:
	// nil when it did not bind (graphErr says why).
	graph    *cudnnGraphAPI
	graphErr error
	rtc      *nvrtcAPI // nil when NVRTC did not load; rtcErr says why
	rtcErr   error
	// module is wb's kernels, compiled and loaded at the first layer that
	// needs one (moduleErr says why they could not be), moduleImage how
	// ("sm_90 cubin", or the PTX it fell back to and why); funcs its
	// functions looked up so far.
	module      uintptr
	moduleErr   error
	moduleImage string
	funcs       map[string]uintptr
	update      UpdateMode
	lt          *ltAPI // nil when cuBLASLt did not load; ltErr says why
	ltErr       error
	ltH         uintptr
	info        profiler.DeviceInfo
	// flush is the L2 flush buffer under Options.ColdCache (0 without),
	// flushBytes its size, l2Bytes the L2 cache's as the driver says.
	flush      uint64
	flushBytes int64
	l2Bytes    int64
	flushes    int // flushes enqueued, each writing its count's low byte
	// hold holds the stream while the host queues a batch of timed runs
	// (nil where it is off or could not be set up: the device's versions
	// say which).
	hold *streamHold
	// fillChosen says openFill has decided how buffers are filled:
	// pseudo-random values where randomFill, else the constant 0.01.
	fillChosen, randomFill bool
	closed                 bool
}

var _ profiler.Backend = (*Backend)(nil)

// New loads the libraries and opens the device. Without libcuda.so.1 the
// error is a [*NotFoundError] listing the folders searched and how to
// point wb at the library.
func New(opts Options) (*Backend, error) {
	disc, fsys, root := opts.discover()
	h, err := open(disc.Lib("cuda"))
	if err != nil {
		return nil, err
	}
	b := &Backend{opts: opts}
	if err := bind("libcuda", h, b.drv.symbols()); err != nil {
		return nil, err
	}
	useDriverErrorNames(&b.drv)
	return b.open(disc, fsys, root)
}

// open is New once libcuda is bound: the device, its primary context and
// stream, and the other libraries found by disc.
func (b *Backend) open(disc Discovery, fsys fs.FS, root string) (*Backend, error) {
	opts := b.opts
	d := &b.drv
	if err := check(Driver, "cuInit", d.cuInit(0)); err != nil {
		return nil, err
	}
	var driver int32
	if err := check(Driver, "cuDriverGetVersion", d.cuDriverGetVersion(&driver)); err != nil {
		return nil, err
	}
	if err := check(Driver, "cuDeviceGet", d.cuDeviceGet(&b.dev, int32(opts.Device))); err != nil {
		return nil, fmt.Errorf("device %d: %w", opts.Device, err)
	}
	buf := make([]byte, 256)
	if err := check(Driver, "cuDeviceGetName", d.cuDeviceGetName(&buf[0], int32(len(buf)), b.dev)); err != nil {
		return nil, err
	}
	gpu := cString(buf)
	var uuid [16]byte
	if err := check(Driver, "cuDeviceGetUuid_v2", d.cuDeviceGetUuid(&uuid, b.dev)); err != nil {
		return nil, err
	}
	var err error
	if b.update, err = ParseUpdateMode(string(opts.Update)); err != nil {
		return nil, err
	}
	if err := check(Driver, "cuDevicePrimaryCtxRetain", d.cuDevicePrimaryCtxRetain(&b.ctx, b.dev)); err != nil {
		return nil, err
	}
	// retained: given back if the context or its stream cannot be set up
	// (registered before leave, so it runs after the context is left)
	streamed := false
	defer func() {
		if !streamed {
			d.cuDevicePrimaryCtxRelease(b.dev)
		}
	}()
	leave, err := b.enter()
	if err != nil {
		return nil, err
	}
	defer leave()
	if err := check(Driver, "cuStreamCreate", d.cuStreamCreate(&b.stream, cuStreamNonBlocking)); err != nil {
		return nil, err
	}
	streamed = true
	// from here an error closes what is open: the stream, the primary
	// context, and the libraries' handles opened so far
	fail := func(err error) (*Backend, error) { return nil, errors.Join(err, b.Close()) }

	name, predictor := deviceFor(gpu)
	b.info = profiler.DeviceInfo{Name: name, Predictor: predictor, Versions: map[string]string{
		"cuda":         fmt.Sprintf("%d.%d", driver/1000, driver%1000/10),
		VersionUUID:    FormatUUID(uuid),
		VersionUpdate:  b.update.Describe(),
		VersionKernels: KernelsRevision,
	}}
	if v := kernelDriverVersion("/proc/driver/nvidia/version"); v != "" {
		b.info.Versions["driver"] = v
	}
	// cuBLASLt and NVRTC of the driver's major version or older:
	// minor-version compatibility holds within one major version, and a
	// newer library fails to start on the driver, or builds code (cubins,
	// PTX) it cannot load; and of CUDA 12 or older on a GPU of compute
	// capability below 7.5, which CUDA 13's libraries dropped (libMajor).
	// cuDNN 9 names its CUDA 12 and 13 builds alike: it is taken as found,
	// and refused by the CUDA it was built for (cudnnForDriver).
	ccMajor, ccMinor, err := b.computeCapability()
	if err != nil {
		return fail(err)
	}
	lm := libMajor(int(driver/1000), ccMajor, ccMinor)
	major := lm.major
	if err := b.openLt(disc.ForDriver(fsys, root, "cublasLt", major)); err != nil {
		b.ltErr, b.lt = err, nil
		b.info.Versions["cublaslt"] = "unavailable"
	}
	if err := b.openDNN(disc.Lib("cudnn"), lm); err != nil {
		b.dnnErr, b.dnn = err, nil
		b.info.Versions["cudnn"] = "unavailable"
	}
	if b.dnn == nil {
		b.ops, b.opsErr = nil, b.dnnErr
		b.adv, b.advErr = nil, b.dnnErr
		b.graph, b.graphErr = nil, b.dnnErr
	}
	if err := b.openNVRTC(disc.ForDriver(fsys, root, "nvrtc", major)); err != nil {
		b.rtcErr, b.rtc = err, nil
		b.info.Versions["nvrtc"] = "unavailable"
	}
	if err := b.openFlush(); err != nil {
		return fail(err)
	}
	_ = b.openHold() // a hold that cannot be set up leaves the runs timed unheld, as the versions say
	_ = b.openFill() // without wb's kernels, the constant 0.01, as the versions say
	return b, nil
}

func (b *Backend) openLt(f Found) error {
	h, err := open(f)
	if err != nil {
		return err
	}
	b.lt = &ltAPI{}
	if err := bind("libcublasLt", h, b.lt.symbols()); err != nil {
		return err
	}
	if err := check(CuBLASLt, "cublasLtCreate", b.lt.cublasLtCreate(&b.ltH)); err != nil {
		return err
	}
	b.info.Versions["cublaslt"] = version10000(int64(b.lt.cublasLtGetVersion()))
	return nil
}

func (b *Backend) openDNN(f Found, m libMajorOf) error {
	h, err := open(f)
	if err != nil {
		return err
	}
	b.dnn = &cudnnAPI{}
	if err := bind("libcudnn", h, b.dnn.symbols()); err != nil {
		return err
	}
	if err := cudnnForDriver(f.Path, int(b.dnn.cudnnGetCudartVersion()), m); err != nil {
		return err
	}
	b.ops = &cudnnOpsAPI{}
	if err := bind("libcudnn", h, b.ops.symbols()); err != nil {
		b.ops, b.opsErr = nil, err
	}
	b.adv = &cudnnAdvAPI{}
	if err := bind("libcudnn", h, b.adv.symbols()); err != nil {
		b.adv, b.advErr = nil, err
	}
	b.graph = &cudnnGraphAPI{}
	if err := bind("libcudnn", h, b.graph.symbols()); err != nil {
		b.graph, b.graphErr = nil, err
	}
	if err := b.dnnCheck("cudnnCreate", b.dnn.cudnnCreate(&b.dnnH)); err != nil {
		return err
	}
	if err := b.dnnCheck("cudnnSetStream", b.dnn.cudnnSetStream(b.dnnH, b.stream)); err != nil {
		// the caller drops b.dnn on an error, so Close would not destroy
		// the handle: destroyed here
		b.dnn.cudnnDestroy(b.dnnH)
		b.dnnH = 0
		return err
	}
	b.info.Versions["cudnn"] = version10000(int64(b.dnn.cudnnGetVersion()))
	return nil
}

// dnnCheck is check for cuDNN, with cuDNN's own message.
func (b *Backend) dnnCheck(call string, code int32) error {
	err := check(CuDNN, call, code)
	if e, ok := err.(*Error); ok && b.dnn != nil {
		e.Detail = b.dnn.cudnnGetErrorString(code)
	}
	return err
}

// enter makes the backend's context current on this goroutine's thread,
// locked to it until the returned function runs: the driver keeps the
// current context per OS thread, and the runtime moves goroutines among
// threads.
func (b *Backend) enter() (func(), error) {
	if b.closed {
		return nil, fmt.Errorf("cuda: backend used after Close")
	}
	runtime.LockOSThread()
	if err := check(Driver, "cuCtxSetCurrent", b.drv.cuCtxSetCurrent(b.ctx)); err != nil {
		runtime.UnlockOSThread()
		return nil, err
	}
	return runtime.UnlockOSThread, nil
}

// Close releases the handles, the stream and the primary context.
func (b *Backend) Close() error {
	if b.closed {
		return nil
	}
	leave, err := b.enter()
	if err != nil {
		return err
	}
	defer leave()
	var errs []error
	if b.lt != nil {
		errs = append(errs, check(CuBLASLt, "cublasLtDestroy", b.lt.cublasLtDestroy(b.ltH)))
	}
	if b.dnn != nil {
		errs = append(errs, b.dnnCheck("cudnnDestroy", b.dnn.cudnnDestroy(b.dnnH)))
	}
	if b.module != 0 {
		errs = append(errs, check(Driver, "cuModuleUnload", b.drv.cuModuleUnload(b.module)))
		b.module, b.funcs = 0, nil
	}
	if b.flush != 0 {
		errs = append(errs, check(Driver, "cuMemFree_v2", b.drv.cuMemFree(b.flush)))
		b.flush = 0
	}
	errs = append(errs, b.closeHold())
	errs = append(errs, check(Driver, "cuStreamDestroy_v2", b.drv.cuStreamDestroy(b.stream)))
	errs = append(errs, check(Driver, "cuDevicePrimaryCtxRelease_v2", b.drv.cuDevicePrimaryCtxRelease(b.dev)))
	b.closed = true
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// Name is "cuda".
func (b *Backend) Name() string { return "cuda" }

// Device names the GPU as the predictor's table does where it knows it,
// with the versions of CUDA (the driver's), the kernel driver, cuDNN and
// cuBLASLt.
func (b *Backend) Device() profiler.DeviceInfo { return b.info.Clone() }

// Prepare allocates and fills the buffers of one pass of l and returns its
// kernel (see the package documentation for what it runs).
func (b *Backend) Prepare(l dnn.Layer, batch int, pass dnn.Pass, prec dnn.Precision) (profiler.Kernel, error) {
	op := l.Op()
	switch prec {
	case dnn.FP32, dnn.TF32, dnn.FP16, dnn.BF16:
	default:
		return nil, fmt.Errorf("cuda: %s %s: unknown precision %q", op, pass, prec)
	}
	if batch < 1 {
		return nil, fmt.Errorf("cuda: %s %s: batch %d, want at least 1", op, pass, batch)
	}
	switch pass {
	case dnn.Forward, dnn.BackwardData, dnn.BackwardWeights, dnn.Update:
	default:
		return nil, fmt.Errorf("cuda: %s: unknown pass %v", op, pass)
	}
	name := string(op) + " " + pass.String()
	if l.Work(batch, pass, prec) == (dnn.Work{}) {
		return &kernel{name: name, choice: "nothing to run"}, nil
	}
	dl, ok := l.(dnn.Describer)
	if !ok {
		return nil, fmt.Errorf("cuda: %s: %w: the layer (%T) does not describe itself", name, profiler.ErrUnsupported, l)
	}
	d := dl.Describe()
	var k *kernel
	var err error
	switch {
	case pass == dnn.Update:
		var p OpProblem
		if p, err = UpdateFor(l.Params(), b.update); err != nil {
			break
		}
		if b.rtc == nil {
			return nil, fmt.Errorf("cuda: %s: %w: NVRTC is unavailable: %v", name, profiler.ErrUnsupported, b.rtcErr)
		}
		k, err = b.prepKernels(name, p, pass, prec)
	case d.Op == dnn.OpLSTM:
		if b.adv == nil {
			return nil, fmt.Errorf("cuda: %s: %w: cuDNN's RNN API is unavailable: %v", name, profiler.ErrUnsupported, b.advErr)
		}
		var p LSTMProblem
		if p, err = LSTMFor(d, batch, prec); err == nil {
			k, err = b.prepLSTM(name, p, pass, prec)
		}
	case d.Op == dnn.OpConv2D:
		if b.dnn == nil {
			return nil, fmt.Errorf("cuda: %s: %w: cuDNN is unavailable: %v", name, profiler.ErrUnsupported, b.dnnErr)
		}
		var c ConvProblem
		if c, err = ConvFor(d, batch, prec); err == nil {
			k, err = b.prepConv(name, c, pass, prec)
		}
	case d.Op == dnn.OpLinear || d.Op == dnn.OpMatMul:
		if b.lt == nil {
			return nil, fmt.Errorf("cuda: %s: %w: cuBLASLt is unavailable: %v", name, profiler.ErrUnsupported, b.ltErr)
		}
		var gs []Gemm
		if gs, err = GemmsFor(d, batch, pass, prec); err == nil {
			k, err = b.prepGemms(name, gs, prec)
		}
	default:
		var p OpProblem
		if p, err = OpFor(d, batch, prec); err != nil {
			break
		}
		if p.Kind.NVRTC() {
			if b.rtc == nil {
				return nil, fmt.Errorf("cuda: %s: %w: NVRTC is unavailable: %v", name, profiler.ErrUnsupported, b.rtcErr)
			}
			k, err = b.prepKernels(name, p, pass, prec)
			break
		}
		if err := b.opsReady(name); err != nil {
			return nil, err
		}
		k, err = b.prepOp(name, p, pass, prec)
	}
	if err == nil {
		err = k.settle()
	}
	if err != nil {
		return nil, fmt.Errorf("cuda: %s at batch %d, %s: %w", name, batch, prec, err)
	}
	return k, nil
}

// settle waits, before Prepare returns k, for everything its preparation
// enqueued on the stream (Backend.settle), and closes k if that fails.
func (k *kernel) settle() error {
	leave, err := k.b.enter()
	if err == nil {
		err = k.b.settle()
		leave()
	}
	if err != nil {
		_, err = k.fail(fmt.Errorf("synchronising the preparation: %w", err))
	}
	return err
}

// The device's versions the backend sets besides the libraries'.
const (
	// VersionUUID is the GPU's UUID as NVML writes it ("GPU-" and
	// 8-4-4-4-12 lower-case hex digits, FormatUUID): telemetry samples
	// the NVML device of that UUID (nvml.ForProfile), the device the
	// profile runs on.
	VersionUUID = "gpu_uuid"
	// VersionUpdate says which framework behaviour the update pass models
	// (UpdateMode.Describe).
	VersionUpdate = "update"
	// VersionKernels is the revision of what the backend runs for each op
	// (KernelsRevision): in the cache key, so that a change of routine
	// measures again what cached rows measured the old way.
	VersionKernels = "kernels"
)

// KernelsRevision names what the backend runs, changed whenever an op's
// routine changes: r4 fills buffers with pseudo-random values (the
// versions' "fill" says so) and runs max pooling's and the activations'
// forward once before their backward passes, whose y then is the
// forward's, where r3 filled every buffer with 0.01 (every max window
// tied); r3 computes a linear layer's bias gradient with wb's
// reduction after the weights' plain product, as eager PyTorch does, where
// r2 fused it into the product (cuBLASLt's BGRADB epilogue); r2 runs
// dropout, a convolution's bias gradient, concat, select, upsample and pad
// with wb's kernels and 16-bit convolutions through cuDNN's graph API,
// where r1 (no entry) left the last four unsupported, ran cuDNN's dropout
// and bias gradient, which refused bfloat16, and the legacy routines, 2.7×
// PyTorch's time for bfloat16 convolutions on an H200.
const KernelsRevision = "r4: pseudo-random buffers, pooling and activation backward after their forward; a linear bias's gradient reduced after the plain product; NVRTC dropout, conv bias gradient, concat, select, upsample and pad; 16-bit convolutions by cuDNN's graph API"

// FormatUUID writes cuDeviceGetUuid's 16 bytes as NVML writes a GPU's
// UUID (nvmlDeviceGetUUID, NVML_DEVICE_UUID_ASCII_LEN = 41 with the NUL):
// "GPU-" then the bytes in hex, lower case, grouped 4-2-2-2-6.
func FormatUUID(u [16]byte) string {
	return fmt.Sprintf("GPU-%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// opsReady says why cuDNN's operations API cannot run name's pass, or
// nil when it can.
func (b *Backend) opsReady(name string) error {
	switch {
	case b.dnn == nil:
		return fmt.Errorf("cuda: %s: %w: cuDNN is unavailable: %v", name, profiler.ErrUnsupported, b.dnnErr)
	case b.ops == nil:
		return fmt.Errorf("cuda: %s: %w: cuDNN's operations API is unavailable: %v", name, profiler.ErrUnsupported, b.opsErr)
	}
	return nil
}

// deviceNames maps cuDeviceGetName's names to the predictor's device
// table: exact matches name the device too, while near ones (another
// form factor of the same chip) only choose its prediction.
var deviceNames = map[string]struct {
	table string
	exact bool
}{
	"NVIDIA H100 80GB HBM3": {"h100-sxm", true},
	"NVIDIA H100 PCIe":      {"h100-pcie", true},
	"NVIDIA H200":           {"h200-sxm", true},
	"NVIDIA A100-SXM4-40GB": {"a100-40", true},
	"NVIDIA A100-SXM4-80GB": {"a100-80", true},
	"NVIDIA A100-PCIE-40GB": {"a100-40-pcie", true},
	"NVIDIA A100 80GB PCIe": {"a100-80-pcie", true},
	"Tesla V100-SXM2-32GB":  {"v100", true},
	"Tesla V100-SXM2-16GB":  {"v100-16", true},
	"Tesla V100-PCIE-32GB":  {"v100-pcie", true},
	"Tesla V100-PCIE-16GB":  {"v100-pcie", false}, // (the table's PCIe V100 has 32 GB)
	"Tesla P100-PCIE-16GB":  {"p100-pcie", true},
	"Tesla T4":              {"t4", true},
	"NVIDIA A10":            {"a10", true},
	"NVIDIA L4":             {"l4", true},
	"Tesla P100-SXM2-16GB":  {"p100", true},
	"Tesla K80":             {"k80", true},
}

// deviceFor gives the profile's device name and the predictor's device
// for a GPU called gpu: "h100-sxm", or "cuda: NVIDIA RTX 6000 Ada
// Generation" with no prediction for one the table does not know.
func deviceFor(gpu string) (name, predictor string) {
	gpu = strings.TrimSpace(gpu)
	if e, ok := deviceNames[gpu]; ok {
		if e.exact {
			return e.table, e.table
		}
		return "cuda: " + gpu, e.table
	}
	return "cuda: " + gpu, ""
}

// version10000 formats cuDNN 9's and cuBLAS's version numbers,
// major·10000 + minor·100 + patch: 90100 is "9.1.0".
func version10000(v int64) string {
	return fmt.Sprintf("%d.%d.%d", v/10000, v%10000/100, v%100)
}

// kernelDriverVersion reads the NVIDIA kernel module's version ("550.54.15")
// from /proc/driver/nvidia/version, or "" where it cannot.
func kernelDriverVersion(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return parseDriverVersion(string(b))
}

// parseDriverVersion finds the version in the file's first line, "NVRM
// version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5
// 22:23:56 UTC 2024": the first field after "Module" shaped like N.N.
func parseDriverVersion(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	_, rest, ok := strings.Cut(line, "Module")
	if !ok {
		return ""
	}
	for _, f := range strings.Fields(rest) {
		major, _, dot := strings.Cut(f, ".")
		if _, err := strconv.Atoi(major); err == nil && dot {
			return f
		}
	}
	return ""
}

// cString is the NUL-terminated string at the start of buf.
func cString(buf []byte) string {
	if i := strings.IndexByte(string(buf), 0); i >= 0 {
		return string(buf[:i])
	}
	return string(buf)
}

// cudnnForDriver refuses a cuDNN built for a newer CUDA major version
// than the libraries may be (cudart, cudnnGetCudartVersion's 12080 for
// CUDA 12.8; major, libMajor's: the driver's, or 12 for a GPU that CUDA 13
// dropped): cuDNN 9 names its CUDA 12 and 13 builds alike
// (libcudnn.so.9), so the file found cannot be told by its name, and the
// wrong one fails at cudnnCreate, or at its first call on such a GPU,
// with no word of why. 0 (not known) passes.
func cudnnForDriver(path string, cudart int, m libMajorOf) error {
	if cudart <= 0 || m.major <= 0 || cudart/1000 <= m.major {
		return nil
	}
	return fmt.Errorf("%s was built for CUDA %d.%d, newer than %s: install the cuDNN 9 build for CUDA %d (pip: nvidia-cudnn-cu%d), or point --cuda-lib-path at it",
		path, cudart/1000, cudart%1000/10, m.why(), m.major, m.major)
}

// lastMajorBefore75 is the last CUDA major version whose compiler and
// libraries support GPUs of compute capability below 7.5 (Maxwell, Pascal,
// Volta): CUDA 12.9's release notes say "offline compilation and library
// support will be removed in the next major CUDA Toolkit version".
const lastMajorBefore75 = 12

// libMajorOf is the newest CUDA major version whose libraries (cuBLASLt,
// NVRTC, cuDNN) the backend takes, and why.
type libMajorOf struct {
	major, driver int
	cc            [2]int32 // the GPU's compute capability
}

// libMajor is the driver's CUDA major version, or lastMajorBefore75 for a
// GPU of compute capability below 7.5 on a newer driver (a CUDA 13 driver
// still runs a V100; CUDA 13's libraries do not).
func libMajor(driverMajor int, ccMajor, ccMinor int32) libMajorOf {
	m := libMajorOf{major: driverMajor, driver: driverMajor, cc: [2]int32{ccMajor, ccMinor}}
	if ccMajor > 0 && ccMajor*10+ccMinor < 75 {
		m.major = min(driverMajor, lastMajorBefore75)
	}
	return m
}

// why says where major comes from.
func (m libMajorOf) why() string {
	if m.major < m.driver {
		return fmt.Sprintf("CUDA %d, the last to support a GPU of compute capability %d.%d (the driver's is CUDA %d)", m.major, m.cc[0], m.cc[1], m.driver)
	}
	return fmt.Sprintf("the driver's CUDA %d", m.driver)
}
