package cuda

import (
	"errors"
	"testing"

	"github.com/wb-sim/wb/profiler"
)

func TestStatus(t *testing.T) {
	for _, tc := range []struct {
		name    string
		api     API
		code    int
		want    string
		wrapped error // nil: neither OOM nor unsupported
	}{
		{"driver oom", Driver, 2, "CUDA_ERROR_OUT_OF_MEMORY", profiler.ErrOutOfMemory},
		{"driver no device", Driver, 100, "CUDA_ERROR_NO_DEVICE", nil},
		{"driver not supported", Driver, 801, "CUDA_ERROR_NOT_SUPPORTED", profiler.ErrUnsupported},
		{"driver unknown code", Driver, 12345, "cuda status 12345", nil},
		{"cudnn bad param", CuDNN, 2000, "CUDNN_STATUS_BAD_PARAM", nil},
		{"cudnn not initialized (cuDNN 9 numbering)", CuDNN, 1001, "CUDNN_STATUS_NOT_INITIALIZED", nil},
		{"cudnn not supported", CuDNN, 3000, "CUDNN_STATUS_NOT_SUPPORTED", profiler.ErrUnsupported},
		{"cudnn shape not supported", CuDNN, 3002, "CUDNN_STATUS_NOT_SUPPORTED_SHAPE", profiler.ErrUnsupported},
		{"cudnn arch mismatch", CuDNN, 3007, "CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH", profiler.ErrUnsupported},
		{"cudnn host alloc", CuDNN, 4003, "CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED", profiler.ErrOutOfMemory},
		{"cudnn device alloc", CuDNN, 4004, "CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED", profiler.ErrOutOfMemory},
		{"cudnn execution", CuDNN, 5000, "CUDNN_STATUS_EXECUTION_FAILED", nil},
		{"cudnn 8 numbering is unknown", CuDNN, 9, "cudnn status 9", nil},
		{"cublas alloc", CuBLASLt, 3, "CUBLAS_STATUS_ALLOC_FAILED", profiler.ErrOutOfMemory},
		{"cublas invalid", CuBLASLt, 7, "CUBLAS_STATUS_INVALID_VALUE", nil},
		{"cublas not supported", CuBLASLt, 15, "CUBLAS_STATUS_NOT_SUPPORTED", profiler.ErrUnsupported},
		{"cublas arch", CuBLASLt, 8, "CUBLAS_STATUS_ARCH_MISMATCH", profiler.ErrUnsupported},
		{"nvrtc oom", NVRTC, 1, "NVRTC_ERROR_OUT_OF_MEMORY", profiler.ErrOutOfMemory},
		{"nvrtc compilation", NVRTC, 6, "NVRTC_ERROR_COMPILATION", nil},
		{"nvrtc invalid option", NVRTC, 5, "NVRTC_ERROR_INVALID_OPTION", nil},
		{"nvrtc cancelled (CUDA 12's nvrtc.h)", NVRTC, 16, "NVRTC_ERROR_CANCELLED", nil},
		{"nvrtc unknown code", NVRTC, 99, "nvrtc status 99", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := StatusName(tc.api, tc.code); got != tc.want {
				t.Errorf("StatusName = %q, want %q", got, tc.want)
			}
			err := check(tc.api, "someCall", int32(tc.code))
			if err == nil {
				t.Fatal("check gave nil for a failure")
			}
			if got, want := err.Error(), "someCall: "+tc.want; got != want {
				t.Errorf("error %q, want %q", got, want)
			}
			for _, sentinel := range []error{profiler.ErrOutOfMemory, profiler.ErrUnsupported} {
				if got, want := errors.Is(err, sentinel), sentinel == tc.wrapped; got != want {
					t.Errorf("errors.Is(err, %v) = %v, want %v", sentinel, got, want)
				}
			}
		})
	}
}

func TestCheckSuccess(t *testing.T) {
	for _, api := range []API{Driver, CuDNN, CuBLASLt, NVRTC} {
		if err := check(api, "f", 0); err != nil {
			t.Errorf("%s: status 0 gave %v", api, err)
		}
	}
}

func TestErrorDetail(t *testing.T) {
	err := &Error{API: CuDNN, Call: "cudnnConvolutionForward", Code: 2000, Detail: "bad dims"}
	if got, want := err.Error(), "cudnnConvolutionForward: CUDNN_STATUS_BAD_PARAM (bad dims)"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// TestDriverErrorNames: a CUresult the table lacks is named by the
// driver's cuGetErrorName once libcuda is bound ("cuda status 900" said
// nothing); a code the driver does not know either stays "cuda status N";
// the table's names stand.
func TestDriverErrorNames(t *testing.T) {
	prev := driverErrorName.Load()
	defer driverErrorName.Store(prev)
	f := newFakeLibs(t)
	f.errorNames = map[int32]string{900: "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", 2: "the driver's name of 2"}
	var d driverAPI
	for _, s := range d.symbols() {
		f.bind(s)
	}
	useDriverErrorNames(&d)
	for code, want := range map[int]string{900: "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", 12345: "cuda status 12345", 2: "CUDA_ERROR_OUT_OF_MEMORY"} {
		if got := StatusName(Driver, code); got != want {
			t.Errorf("StatusName(Driver, %d) = %q, want %q", code, got, want)
		}
	}
	if got := check(Driver, "cuStreamBeginCapture_v2", 900).Error(); got != "cuStreamBeginCapture_v2: CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED" {
		t.Errorf("error %q", got)
	}
	if got := StatusName(NVRTC, 900); got != "nvrtc status 900" {
		t.Errorf("another API's code named by the driver: %q", got)
	}
}
