package cuda

import (
	_ "embed"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"unsafe"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/profiler"
)

// kernelSource is wb's own kernels (kernels.cu), compiled by NVRTC the
// first time a layer needs one.
//
//go:embed kernels.cu
var kernelSource string

// nvrtcAPI is libnvrtc (nvrtc.h of CUDA 12.6; the same in CUDA 13).
type nvrtcAPI struct {
	nvrtcVersion           func(major, minor *int32) int32
	nvrtcGetErrorString    func(result int32) string
	nvrtcCreateProgram     func(prog *uintptr, src, name string, numHeaders int32, headers, includeNames unsafe.Pointer) int32
	nvrtcDestroyProgram    func(prog *uintptr) int32
	nvrtcCompileProgram    func(prog uintptr, numOptions int32, options unsafe.Pointer) int32
	nvrtcGetPTXSize        func(prog uintptr, size *uintptr) int32
	nvrtcGetPTX            func(prog uintptr, ptx *byte) int32
	nvrtcGetProgramLogSize func(prog uintptr, size *uintptr) int32
	nvrtcGetProgramLog     func(prog uintptr, log *byte) int32
}

func (n *nvrtcAPI) symbols() []symbol {
	return []symbol{
		{"nvrtcVersion", &n.nvrtcVersion},               // nvrtcResult nvrtcVersion(int *major, int *minor)
		{"nvrtcGetErrorString", &n.nvrtcGetErrorString}, // const char *nvrtcGetErrorString(nvrtcResult result)
		// (nvrtcProgram *prog, const char *src, const char *name, int numHeaders, const char * const *headers,
		//  const char * const *includeNames)
		{"nvrtcCreateProgram", &n.nvrtcCreateProgram},
		{"nvrtcDestroyProgram", &n.nvrtcDestroyProgram}, // (nvrtcProgram *prog)
		// (nvrtcProgram prog, int numOptions, const char * const *options)
		{"nvrtcCompileProgram", &n.nvrtcCompileProgram},
		{"nvrtcGetPTXSize", &n.nvrtcGetPTXSize},               // (nvrtcProgram prog, size_t *ptxSizeRet)
		{"nvrtcGetPTX", &n.nvrtcGetPTX},                       // (nvrtcProgram prog, char *ptx)
		{"nvrtcGetProgramLogSize", &n.nvrtcGetProgramLogSize}, // (nvrtcProgram prog, size_t *logSizeRet)
		{"nvrtcGetProgramLog", &n.nvrtcGetProgramLog},         // (nvrtcProgram prog, char *log)
	}
}

// The CUdevice_attribute values of the compute capability (cuda.h).
const (
	cuDeviceAttributeComputeCapabilityMajor int32 = 75
	cuDeviceAttributeComputeCapabilityMinor int32 = 76
)

func (b *Backend) openNVRTC(f Found) error {
	h, err := open(f)
	if err != nil {
		return err
	}
	b.rtc = &nvrtcAPI{}
	if err := bind("libnvrtc", h, b.rtc.symbols()); err != nil {
		return err
	}
	var major, minor int32
	if err := check(NVRTC, "nvrtcVersion", b.rtc.nvrtcVersion(&major, &minor)); err != nil {
		return err
	}
	b.info.Versions["nvrtc"] = fmt.Sprintf("%d.%d", major, minor)
	return nil
}

// nvrtcOptions are the compile options for a device of compute
// capability major.minor: PTX for its virtual architecture, which the
// driver compiles for the device when it loads the module.
func nvrtcOptions(major, minor int32) []string {
	return []string{fmt.Sprintf("--gpu-architecture=compute_%d%d", major, minor)}
}

// cStrings lays out strs as NUL-terminated C strings and an array of
// pointers to them, for a const char * const * argument; keep the
// returned buffers alive until the call returns.
func cStrings(strs []string) (ptrs []*byte, bufs [][]byte) {
	for _, s := range strs {
		buf := append([]byte(s), 0)
		bufs = append(bufs, buf)
		ptrs = append(ptrs, &buf[0])
	}
	return ptrs, bufs
}

// rtcCheck is check for NVRTC, with its own message and, for a failed
// compilation, the program's log.
func (b *Backend) rtcCheck(call string, code int32) error {
	err := check(NVRTC, call, code)
	if e, ok := err.(*Error); ok && b.rtc != nil {
		e.Detail = b.rtc.nvrtcGetErrorString(code)
	}
	return err
}

// kernelFunc returns the CUfunction of one of wb's kernels, compiling
// kernels.cu with NVRTC and loading it the first time: a failure to
// compile or load is remembered, and every such op is then unsupported,
// saying why. Call with the context current.
func (b *Backend) kernelFunc(name string) (uintptr, error) {
	if b.rtc == nil {
		return 0, fmt.Errorf("%w: NVRTC is unavailable: %v", profiler.ErrUnsupported, b.rtcErr)
	}
	if b.module == 0 && b.moduleErr == nil {
		b.moduleErr = b.loadKernels()
		if b.moduleErr != nil {
			b.moduleErr = fmt.Errorf("%w: wb's kernels: %w", profiler.ErrUnsupported, b.moduleErr)
		}
	}
	if b.moduleErr != nil {
		return 0, b.moduleErr
	}
	if f, ok := b.funcs[name]; ok {
		return f, nil
	}
	var f uintptr
	if err := check(Driver, "cuModuleGetFunction", b.drv.cuModuleGetFunction(&f, b.module, name)); err != nil {
		return 0, fmt.Errorf("kernel %s: %w", name, err)
	}
	if b.funcs == nil {
		b.funcs = map[string]uintptr{}
	}
	b.funcs[name] = f
	return f, nil
}

// loadKernels compiles kernels.cu for this device and loads the PTX.
func (b *Backend) loadKernels() error {
	d, r := &b.drv, b.rtc
	var major, minor int32
	if err := check(Driver, "cuDeviceGetAttribute", d.cuDeviceGetAttribute(&major, cuDeviceAttributeComputeCapabilityMajor, b.dev)); err != nil {
		return err
	}
	if err := check(Driver, "cuDeviceGetAttribute", d.cuDeviceGetAttribute(&minor, cuDeviceAttributeComputeCapabilityMinor, b.dev)); err != nil {
		return err
	}
	var prog uintptr
	if err := b.rtcCheck("nvrtcCreateProgram", r.nvrtcCreateProgram(&prog, kernelSource, "kernels.cu", 0, nil, nil)); err != nil {
		return err
	}
	defer r.nvrtcDestroyProgram(&prog)
	opts := nvrtcOptions(major, minor)
	ptrs, bufs := cStrings(opts)
	status := r.nvrtcCompileProgram(prog, int32(len(ptrs)), unsafe.Pointer(&ptrs[0]))
	runtime.KeepAlive(bufs)
	if err := b.rtcCheck("nvrtcCompileProgram", status); err != nil {
		var size uintptr
		if r.nvrtcGetProgramLogSize(prog, &size) == 0 && size > 1 {
			log := make([]byte, size)
			if r.nvrtcGetProgramLog(prog, &log[0]) == 0 {
				err = fmt.Errorf("%w (%s): %s", err, strings.Join(opts, " "), strings.TrimSpace(cString(log)))
			}
		}
		return err
	}
	var size uintptr
	if err := b.rtcCheck("nvrtcGetPTXSize", r.nvrtcGetPTXSize(prog, &size)); err != nil {
		return err
	}
	if size == 0 {
		return errors.New("nvrtcGetPTXSize: no PTX")
	}
	ptx := make([]byte, size)
	if err := b.rtcCheck("nvrtcGetPTX", r.nvrtcGetPTX(prog, &ptx[0])); err != nil {
		return err
	}
	return check(Driver, "cuModuleLoadData", d.cuModuleLoadData(&b.module, &ptx[0]))
}

// prepKernels sets up one pass of a layer wb runs with its own kernels
// (Elementwise, LayerNorm): buffers filled with 0.01, and the launches
// of OpProblem.Launches, each with its arguments laid out as
// cuLaunchKernel reads them (an array of pointers to the values).
func (b *Backend) prepKernels(name string, p OpProblem, pass dnn.Pass, prec dnn.Precision) (*kernel, error) {
	leave, err := b.enter()
	if err != nil {
		return nil, err
	}
	defer leave()
	k := b.newKernel(name)
	k.algo = p.Routine(pass)
	k.choice = k.algo
	launches := p.Launches(pass)
	if len(launches) == 0 {
		return k.fail(fmt.Errorf("%s has no %s pass to run", p.Kind, pass))
	}
	funcs := make([]uintptr, len(launches))
	for i, l := range launches {
		if funcs[i], err = b.kernelFunc(l.Kernel); err != nil {
			return k.fail(err)
		}
	}
	ptr, err := k.allocBuffers(p, pass, prec)
	if err != nil {
		return k.fail(err)
	}
	elems := map[string]int64{}
	for _, buf := range p.Buffers(pass) {
		elems[buf.Name] = buf.Elems
	}
	for i, l := range launches {
		params, err := kernelParams(l.Args, ptr)
		if err != nil {
			return k.fail(fmt.Errorf("%s: %w", l.Kernel, err))
		}
		f, l := funcs[i], l
		k.runs = append(k.runs, func() error {
			for _, z := range l.Zero {
				if err := check(Driver, "cuMemsetD32Async", b.drv.cuMemsetD32Async(ptr[z], 0, uintptr(elems[z]), b.stream)); err != nil {
					return err
				}
			}
			return check(Driver, "cuLaunchKernel", b.drv.cuLaunchKernel(f, l.Grid[0], l.Grid[1], l.Grid[2], l.Block[0], l.Block[1], l.Block[2],
				0, b.stream, unsafe.Pointer(&params.ptrs[0]), nil))
		})
	}
	return k, nil
}

// launchParams is a launch's arguments as cuLaunchKernel's kernelParams
// reads them: ptrs[i] points at the value of argument i, in vals.
type launchParams struct {
	vals []uint64
	ptrs []unsafe.Pointer
}

// kernelParams lays out a Launch's arguments: buffer names become their
// device pointers (8 bytes), int64 8 bytes, int32 and float32 4 bytes
// (in the low bytes of their 8-byte slot, little-endian as on every
// platform CUDA runs on).
func kernelParams(args []any, ptr map[string]uint64) (*launchParams, error) {
	p := &launchParams{vals: make([]uint64, len(args)), ptrs: make([]unsafe.Pointer, len(args))}
	for i, a := range args {
		switch v := a.(type) {
		case string:
			q, ok := ptr[v]
			if !ok {
				return nil, fmt.Errorf("argument %d: no buffer %q", i, v)
			}
			p.vals[i] = q
		case int64:
			p.vals[i] = uint64(v)
		case int32:
			p.vals[i] = uint64(uint32(v))
		case float32:
			*(*float32)(unsafe.Pointer(&p.vals[i])) = v
		default:
			return nil, fmt.Errorf("argument %d: %T is not a kernel argument", i, a)
		}
		p.ptrs[i] = unsafe.Pointer(&p.vals[i])
	}
	return p, nil
}
