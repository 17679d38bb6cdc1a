package cuda

import (
	"fmt"
	"strconv"
	"sync/atomic"
	"unsafe"

	"github.com/wb-sim/wb/profiler"
)

// The status codes of the four APIs, from NVIDIA's headers: nvrtc.h
// (nvrtcResult), cuda.h
// (CUresult), cudnn_graph.h of cuDNN 9 (cudnnStatus_t, renumbered in
// cuDNN 9 into categories: 1xxx initialisation, 2xxx bad parameters, 3xxx
// not supported, 4xxx internal errors, 5xxx execution failures), and
// cublas_api.h (cublasStatus_t, shared by cuBLASLt).
var (
	cuResultNames = map[int]string{
		0:   "CUDA_SUCCESS",
		1:   "CUDA_ERROR_INVALID_VALUE",
		2:   "CUDA_ERROR_OUT_OF_MEMORY",
		3:   "CUDA_ERROR_NOT_INITIALIZED",
		4:   "CUDA_ERROR_DEINITIALIZED",
		34:  "CUDA_ERROR_STUB_LIBRARY",
		35:  "CUDA_ERROR_INSUFFICIENT_DRIVER",
		36:  "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER",
		46:  "CUDA_ERROR_DEVICE_UNAVAILABLE",
		100: "CUDA_ERROR_NO_DEVICE",
		101: "CUDA_ERROR_INVALID_DEVICE",
		102: "CUDA_ERROR_DEVICE_NOT_LICENSED",
		200: "CUDA_ERROR_INVALID_IMAGE",
		201: "CUDA_ERROR_INVALID_CONTEXT",
		209: "CUDA_ERROR_NO_BINARY_FOR_GPU",
		214: "CUDA_ERROR_ECC_UNCORRECTABLE",
		218: "CUDA_ERROR_INVALID_PTX",
		221: "CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
		222: "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
		400: "CUDA_ERROR_INVALID_HANDLE",
		500: "CUDA_ERROR_NOT_FOUND",
		600: "CUDA_ERROR_NOT_READY",
		700: "CUDA_ERROR_ILLEGAL_ADDRESS",
		701: "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
		702: "CUDA_ERROR_LAUNCH_TIMEOUT",
		719: "CUDA_ERROR_LAUNCH_FAILED",
		801: "CUDA_ERROR_NOT_SUPPORTED",
		802: "CUDA_ERROR_SYSTEM_NOT_READY",
		803: "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
		804: "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
		999: "CUDA_ERROR_UNKNOWN",
	}
	cudnnStatusNames = map[int]string{
		0:    "CUDNN_STATUS_SUCCESS",
		1001: "CUDNN_STATUS_NOT_INITIALIZED",
		1002: "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH",
		1003: "CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH",
		1004: "CUDNN_STATUS_DEPRECATED",
		1005: "CUDNN_STATUS_LICENSE_ERROR",
		1006: "CUDNN_STATUS_RUNTIME_IN_PROGRESS",
		1007: "CUDNN_STATUS_RUNTIME_FP_OVERFLOW",
		1008: "CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED",
		2000: "CUDNN_STATUS_BAD_PARAM",
		2001: "CUDNN_STATUS_INVALID_VALUE",
		2002: "CUDNN_STATUS_BAD_PARAM_NULL_POINTER",
		2003: "CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER",
		2004: "CUDNN_STATUS_BAD_PARAM_NOT_FINALIZED",
		2005: "CUDNN_STATUS_BAD_PARAM_OUT_OF_BOUND",
		2006: "CUDNN_STATUS_BAD_PARAM_SIZE_INSUFFICIENT",
		2007: "CUDNN_STATUS_BAD_PARAM_STREAM_MISMATCH",
		2008: "CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH",
		2009: "CUDNN_STATUS_BAD_PARAM_DUPLICATED_ENTRIES",
		2010: "CUDNN_STATUS_BAD_PARAM_ATTRIBUTE_TYPE",
		2011: "CUDNN_STATUS_BAD_PARAM_CUDA_GRAPH_MISMATCH",
		2012: "CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE",
		3000: "CUDNN_STATUS_NOT_SUPPORTED",
		3001: "CUDNN_STATUS_NOT_SUPPORTED_GRAPH_PATTERN",
		3002: "CUDNN_STATUS_NOT_SUPPORTED_SHAPE",
		3003: "CUDNN_STATUS_NOT_SUPPORTED_DATA_TYPE",
		3004: "CUDNN_STATUS_NOT_SUPPORTED_LAYOUT",
		3005: "CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER",
		3006: "CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART",
		3007: "CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH",
		3008: "CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING",
		3009: "CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE",
		3010: "CUDNN_STATUS_NOT_SUPPORTED_SHARED_MEMORY_INSUFFICIENT",
		3011: "CUDNN_STATUS_NOT_SUPPORTED_PADDING",
		3012: "CUDNN_STATUS_NOT_SUPPORTED_BAD_LAUNCH_PARAM",
		3013: "CUDNN_STATUS_NOT_SUPPORTED_CUDA_GRAPH_NATIVE_API",
		3014: "CUDNN_STATUS_NOT_SUPPORTED_INVALID_DYNAMIC_SHAPE",
		4000: "CUDNN_STATUS_INTERNAL_ERROR",
		4001: "CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED",
		4002: "CUDNN_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE",
		4003: "CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED",
		4004: "CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED",
		4005: "CUDNN_STATUS_INTERNAL_ERROR_BAD_LAUNCH_PARAM",
		4006: "CUDNN_STATUS_INTERNAL_ERROR_TEXTURE_CREATION_FAILED",
		5000: "CUDNN_STATUS_EXECUTION_FAILED",
		5001: "CUDNN_STATUS_EXECUTION_FAILED_CUDA_DRIVER",
		5002: "CUDNN_STATUS_EXECUTION_FAILED_CUBLAS",
		5003: "CUDNN_STATUS_EXECUTION_FAILED_CUDART",
		5004: "CUDNN_STATUS_EXECUTION_FAILED_CURAND",
	}
	// nvrtcResult, nvrtc.h.
	nvrtcResultNames = map[int]string{
		0:  "NVRTC_SUCCESS",
		1:  "NVRTC_ERROR_OUT_OF_MEMORY",
		2:  "NVRTC_ERROR_PROGRAM_CREATION_FAILURE",
		3:  "NVRTC_ERROR_INVALID_INPUT",
		4:  "NVRTC_ERROR_INVALID_PROGRAM",
		5:  "NVRTC_ERROR_INVALID_OPTION",
		6:  "NVRTC_ERROR_COMPILATION",
		7:  "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE",
		8:  "NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION",
		9:  "NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION",
		10: "NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID",
		11: "NVRTC_ERROR_INTERNAL_ERROR",
		12: "NVRTC_ERROR_TIME_FILE_WRITE_FAILED",
		// CUDA 12.x's nvrtc.h adds the precompiled-header codes and
		// cancellation (13–16), later ones a time trace's (17)
		13: "NVRTC_ERROR_NO_PCH_CREATE_ATTEMPTED",
		14: "NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED",
		15: "NVRTC_ERROR_PCH_CREATE",
		16: "NVRTC_ERROR_CANCELLED",
		17: "NVRTC_ERROR_TIME_TRACE_FILE_WRITE_FAILED",
	}
	cublasStatusNames = map[int]string{
		0:  "CUBLAS_STATUS_SUCCESS",
		1:  "CUBLAS_STATUS_NOT_INITIALIZED",
		3:  "CUBLAS_STATUS_ALLOC_FAILED",
		7:  "CUBLAS_STATUS_INVALID_VALUE",
		8:  "CUBLAS_STATUS_ARCH_MISMATCH",
		11: "CUBLAS_STATUS_MAPPING_ERROR",
		13: "CUBLAS_STATUS_EXECUTION_FAILED",
		14: "CUBLAS_STATUS_INTERNAL_ERROR",
		15: "CUBLAS_STATUS_NOT_SUPPORTED",
		16: "CUBLAS_STATUS_LICENSE_ERROR",
	}
)

// API names a library whose calls return status codes.
type API string

// The APIs whose status codes the package knows.
const (
	Driver   API = "cuda"     // the driver API, libcuda: CUresult
	CuDNN    API = "cudnn"    // cudnnStatus_t
	CuBLASLt API = "cublasLt" // cublasStatus_t
	NVRTC    API = "nvrtc"    // nvrtcResult
)

// driverErrorName names the CUresults the table lacks (a newer driver's,
// or codes left out of it): libcuda's own cuGetErrorName, once New has
// bound it (useDriverErrorNames); nil before.
var driverErrorName atomic.Pointer[func(code int) (string, bool)]

// useDriverErrorNames makes StatusName ask d's cuGetErrorName for the
// CUresults the table lacks. libcuda is one library a process, so the
// latest bound serves every backend.
func useDriverErrorNames(d *driverAPI) {
	get := d.cuGetErrorName
	name := func(code int) (string, bool) {
		var p *byte
		if get(int32(code), &p) != 0 || p == nil {
			return "", false
		}
		return cStringAt(p, 128), true
	}
	driverErrorName.Store(&name)
}

// cStringAt reads the NUL-terminated string at p, at most limit bytes.
func cStringAt(p *byte, limit int) string {
	var b []byte
	for i := range limit {
		c := *(*byte)(unsafe.Add(unsafe.Pointer(p), i))
		if c == 0 {
			break
		}
		b = append(b, c)
	}
	return string(b)
}

// StatusName is the name of a status code of api, or "api status N" for
// one the package does not know (a CUresult of the driver's own naming,
// cuGetErrorName, where New has bound it).
func StatusName(api API, code int) string {
	var names map[int]string
	switch api {
	case Driver:
		names = cuResultNames
	case CuDNN:
		names = cudnnStatusNames
	case CuBLASLt:
		names = cublasStatusNames
	case NVRTC:
		names = nvrtcResultNames
	}
	if n, ok := names[code]; ok {
		return n
	}
	if f := driverErrorName.Load(); api == Driver && f != nil {
		if n, ok := (*f)(code); ok && n != "" {
			return n
		}
	}
	return string(api) + " status " + strconv.Itoa(code)
}

// Error is a failed library call.
type Error struct {
	API  API
	Call string // the C function: "cuMemAlloc_v2"
	Code int
	// Detail is the library's own message where it gives one
	// (cudnnGetErrorString), else "".
	Detail string
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%s: %s", e.Call, StatusName(e.API, e.Code))
	if e.Detail != "" && e.Detail != StatusName(e.API, e.Code) {
		s += " (" + e.Detail + ")"
	}
	return s
}

// Unwrap gives profiler.ErrOutOfMemory for the statuses that mean memory
// ran out (CUDA_ERROR_OUT_OF_MEMORY, cuDNN's allocation failures,
// CUBLAS_STATUS_ALLOC_FAILED, NVRTC_ERROR_OUT_OF_MEMORY) and profiler.ErrUnsupported for those that
// mean the operation is not supported (CUDA_ERROR_NOT_SUPPORTED, cuDNN's
// 3xxx, CUBLAS_STATUS_NOT_SUPPORTED and _ARCH_MISMATCH), so the profiler
// records the row as out of memory or unsupported and goes on.
func (e *Error) Unwrap() error {
	switch e.API {
	case Driver:
		switch e.Code {
		case 2:
			return profiler.ErrOutOfMemory
		case 801:
			return profiler.ErrUnsupported
		}
	case CuDNN:
		switch {
		case e.Code == 4003 || e.Code == 4004:
			return profiler.ErrOutOfMemory
		case e.Code >= 3000 && e.Code < 4000:
			return profiler.ErrUnsupported
		}
	case CuBLASLt:
		switch e.Code {
		case 3:
			return profiler.ErrOutOfMemory
		case 8, 15:
			return profiler.ErrUnsupported
		}
	case NVRTC:
		if e.Code == 1 {
			return profiler.ErrOutOfMemory
		}
	}
	return nil
}

// check turns a status into an error: nil for success (0 in all three
// APIs).
func check(api API, call string, code int32) error {
	if code == 0 {
		return nil
	}
	return &Error{API: api, Call: call, Code: int(code)}
}
