package cuda

import (
	_ "embed"
	"errors"
	"fmt"
	"runtime"
	"slices"
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
	// Machine code (NVRTC 11.1 and later) and the architectures NVRTC
	// compiles for (11.2 and later): every libnvrtc.so.12 and .so.13 has
	// them.
	nvrtcGetCUBINSize         func(prog uintptr, size *uintptr) int32
	nvrtcGetCUBIN             func(prog uintptr, cubin *byte) int32
	nvrtcGetNumSupportedArchs func(n *int32) int32
	nvrtcGetSupportedArchs    func(archs *int32) int32
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
		// nvrtcResult nvrtcGetCUBINSize(nvrtcProgram prog, size_t *cubinSizeRet): "set to 0 if the value
		// specified to -arch is a virtual architecture instead of an actual architecture" (nvrtc.h).
		{"nvrtcGetCUBINSize", &n.nvrtcGetCUBINSize},
		{"nvrtcGetCUBIN", &n.nvrtcGetCUBIN},                         // (nvrtcProgram prog, char *cubin)
		{"nvrtcGetNumSupportedArchs", &n.nvrtcGetNumSupportedArchs}, // (int *numArchs)
		// nvrtcResult nvrtcGetSupportedArchs(int *supportedArchs): the architectures, as 10·major + minor,
		// "sorted in the ascending order" (nvrtc.h).
		{"nvrtcGetSupportedArchs", &n.nvrtcGetSupportedArchs},
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

// compilePlan is one way to build wb's kernels for the device: NVRTC's
// --gpu-architecture, and whether it gives machine code for a real
// architecture (sm_XY, a cubin, nvrtcGetCUBIN) or PTX for a virtual one
// (compute_XY, nvrtcGetPTX), which the driver compiles when it loads the
// module.
type compilePlan struct {
	Arch  int32 // 10·major + minor
	Cubin bool
}

// Options are NVRTC's compile options for the plan:
// --gpu-architecture=sm_XY for a cubin, compute_XY for PTX (NVRTC's
// documentation of --gpu-architecture: "sm_XY" names a real architecture,
// "compute_XY" a virtual one).
func (c compilePlan) Options() []string {
	return []string{"--gpu-architecture=" + c.archName()}
}

func (c compilePlan) archName() string {
	if c.Cubin {
		return fmt.Sprintf("sm_%d", c.Arch)
	}
	return fmt.Sprintf("compute_%d", c.Arch)
}

// String says what the plan builds: "sm_90 cubin", "compute_90 PTX".
func (c compilePlan) String() string {
	if c.Cubin {
		return c.archName() + " cubin"
	}
	return c.archName() + " PTX"
}

// compilePlans lists, in order of preference, how to build wb's kernels
// for a device of compute capability major.minor with an NVRTC that
// compiles for the architectures supported (nvrtcGetSupportedArchs; nil
// when it cannot say):
//
//  1. machine code for the device, sm_XY: cuModuleLoadData loads a cubin
//     with no JIT, and a driver older than NVRTC (of the same major
//     version: CUDA's minor-version compatibility, which New keeps to by
//     taking an NVRTC no newer than the driver's major, Discovery.ForDriver)
//     loads it;
//  2. PTX for compute_XY, the fallback: the driver JIT-compiles it, which
//     it refuses (CUDA_ERROR_UNSUPPORTED_PTX_VERSION) when NVRTC is newer
//     than the driver, even by a minor version;
//  3. where NVRTC does not know the device's architecture (a device newer
//     than NVRTC), PTX for the newest architecture it knows below it,
//     which the driver compiles for the device.
func compilePlans(major, minor int32, supported []int32) []compilePlan {
	arch := 10*major + minor
	if supported == nil || slices.Contains(supported, arch) {
		return []compilePlan{{Arch: arch, Cubin: true}, {Arch: arch}}
	}
	below := int32(-1)
	for _, a := range supported {
		if a < arch && a > below {
			below = a
		}
	}
	if below < 0 {
		// Older than anything NVRTC compiles for: try the device's own
		// architecture, so that NVRTC's error says why.
		return []compilePlan{{Arch: arch, Cubin: true}, {Arch: arch}}
	}
	return []compilePlan{{Arch: below}}
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

// computeCapability is the device's compute capability (major, minor).
func (b *Backend) computeCapability() (major, minor int32, err error) {
	d := &b.drv
	if err := check(Driver, "cuDeviceGetAttribute", d.cuDeviceGetAttribute(&major, cuDeviceAttributeComputeCapabilityMajor, b.dev)); err != nil {
		return 0, 0, err
	}
	if err := check(Driver, "cuDeviceGetAttribute", d.cuDeviceGetAttribute(&minor, cuDeviceAttributeComputeCapabilityMinor, b.dev)); err != nil {
		return 0, 0, err
	}
	return major, minor, nil
}

// loadKernels compiles kernels.cu for this device and loads it: the
// plans of compilePlans in order, the first whose image NVRTC builds and
// cuModuleLoadData loads. b.moduleImage says which ("sm_90 cubin"), and
// why the ones before it failed; the error, when none loads, says why each
// failed.
func (b *Backend) loadKernels() error {
	d := &b.drv
	major, minor, err := b.computeCapability()
	if err != nil {
		return err
	}
	var failed []string
	for _, plan := range compilePlans(major, minor, b.rtcArchs()) {
		image, err := b.compile(plan)
		if err == nil {
			var module uintptr
			if err = check(Driver, "cuModuleLoadData", d.cuModuleLoadData(&module, &image[0])); err == nil {
				b.module, b.moduleImage = module, plan.String()
				if len(failed) > 0 {
					b.moduleImage += " (" + strings.Join(failed, "; ") + ")"
				}
				return nil
			}
		}
		failed = append(failed, fmt.Sprintf("%s: %v", plan, err))
	}
	return errors.New(strings.Join(failed, "; "))
}

// rtcArchs is nvrtcGetSupportedArchs's list, or nil where NVRTC cannot
// say.
func (b *Backend) rtcArchs() []int32 {
	r := b.rtc
	var n int32
	if r.nvrtcGetNumSupportedArchs(&n) != 0 || n <= 0 || n > 1024 {
		return nil
	}
	archs := make([]int32, n)
	if r.nvrtcGetSupportedArchs(&archs[0]) != 0 {
		return nil
	}
	return archs
}

// compile builds kernels.cu as plan says: the cubin or the PTX (NUL-
// terminated, as cuModuleLoadData reads PTX), or an error with NVRTC's
// log.
func (b *Backend) compile(plan compilePlan) ([]byte, error) {
	r := b.rtc
	var prog uintptr
	if err := b.rtcCheck("nvrtcCreateProgram", r.nvrtcCreateProgram(&prog, kernelSource, "kernels.cu", 0, nil, nil)); err != nil {
		return nil, err
	}
	defer r.nvrtcDestroyProgram(&prog)
	opts := plan.Options()
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
		return nil, err
	}
	getSize, get, what := r.nvrtcGetPTXSize, r.nvrtcGetPTX, "PTX"
	sizeCall, getCall := "nvrtcGetPTXSize", "nvrtcGetPTX"
	if plan.Cubin {
		getSize, get, what = r.nvrtcGetCUBINSize, r.nvrtcGetCUBIN, "cubin"
		sizeCall, getCall = "nvrtcGetCUBINSize", "nvrtcGetCUBIN"
	}
	var size uintptr
	if err := b.rtcCheck(sizeCall, getSize(prog, &size)); err != nil {
		return nil, err
	}
	if size == 0 {
		return nil, fmt.Errorf("%s: no %s", sizeCall, what)
	}
	image := make([]byte, size)
	if err := b.rtcCheck(getCall, get(prog, &image[0])); err != nil {
		return nil, err
	}
	return image, nil
}

// prepKernels sets up one pass of a layer wb runs with its own kernels
// (OpKind.NVRTC): buffers filled on the stream (mem.fill), the pass's
// PrepLaunches run once, and the launches of OpProblem.Launches, each
// with its arguments laid out as cuLaunchKernel reads them (an array of
// pointers to the values). The algo column names the kernels and how
// they were built ("sm_90 cubin", or the PTX fallback).
func (b *Backend) prepKernels(name string, p OpProblem, pass dnn.Pass, prec dnn.Precision) (*kernel, error) {
	leave, err := b.enter()
	if err != nil {
		return nil, err
	}
	defer leave()
	k := b.newKernel(name)
	launches := p.Launches(pass)
	if len(launches) == 0 {
		return k.fail(fmt.Errorf("%s has no %s pass to run", p.Kind, pass))
	}
	// Compile and load the kernels before allocating anything.
	for _, l := range append(p.PrepLaunches(pass), launches...) {
		if _, err := b.kernelFunc(l.Kernel); err != nil {
			return k.fail(err)
		}
	}
	k.algo = p.Routine(pass) + " [" + b.imageKind() + "]"
	k.choice = p.Routine(pass) + ", kernels.cu as " + b.moduleImage
	ptr, bytes, err := k.allocBuffers(p, pass, prec)
	if err != nil {
		return k.fail(err)
	}
	for _, l := range p.PrepLaunches(pass) {
		run, err := b.launcher(l, ptr, bytes)
		if err != nil {
			return k.fail(err)
		}
		if err := run(); err != nil {
			return k.fail(fmt.Errorf("%s: %w", l.Kernel, err))
		}
	}
	for _, l := range launches {
		if err := k.addLaunch(l, ptr, bytes); err != nil {
			return k.fail(err)
		}
	}
	return k, nil
}

// imageKind is the short form of moduleImage: "sm_90 cubin".
func (b *Backend) imageKind() string {
	kind, _, _ := strings.Cut(b.moduleImage, " (")
	return kind
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
