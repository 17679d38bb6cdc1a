package cuda

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"

	"github.com/ebitengine/purego"
)

// The C functions the backend calls, bound at run time with purego. Each
// Go signature follows the C prototype in NVIDIA's headers (cuda.h,
// cudnn_graph.h / cudnn_cnn.h of cuDNN 9, cublasLt.h), with these type
// mappings: CUresult, cudnnStatus_t, cublasStatus_t and enums → int32;
// int → int32; unsigned int → uint32; size_t → uintptr; CUdevice → int32;
// CUdeviceptr (unsigned long long) → uint64; handles, descriptors,
// streams, events and contexts (pointers to opaque structs) → uintptr;
// host pointers to results → Go pointers; const char* → string.
//
// Here the tests check that purego accepts every signature. The calls
// bound by 2026-11-28 ran against the real libraries on an H200 (TestGPUOps;
// see the README); those added since, the stream hold's host memory
// (cuMemHostAlloc, cuMemHostGetDevicePointer_v2, cuMemFreeHost) and
// cuGetErrorName, have been checked against cuda.h 12.6 by reading only.

// symbol is one C function and the Go function variable it is bound to.
type symbol struct {
	name string
	fn   any // a pointer to a func variable
}

// driverAPI is libcuda.
type driverAPI struct {
	cuInit                    func(flags uint32) int32
	cuDriverGetVersion        func(version *int32) int32
	cuDeviceGet               func(dev *int32, ordinal int32) int32
	cuDeviceGetName           func(name *byte, length int32, dev int32) int32
	cuDeviceTotalMem          func(bytes *uintptr, dev int32) int32
	cuDevicePrimaryCtxRetain  func(ctx *uintptr, dev int32) int32
	cuDevicePrimaryCtxRelease func(dev int32) int32
	cuCtxSetCurrent           func(ctx uintptr) int32
	cuStreamCreate            func(stream *uintptr, flags uint32) int32
	cuStreamDestroy           func(stream uintptr) int32
	cuStreamSynchronize       func(stream uintptr) int32
	cuEventCreate             func(event *uintptr, flags uint32) int32
	cuEventDestroy            func(event uintptr) int32
	cuEventRecord             func(event, stream uintptr) int32
	cuEventSynchronize        func(event uintptr) int32
	cuEventElapsedTime        func(ms *float32, start, end uintptr) int32
	cuMemAlloc                func(dptr *uint64, bytes uintptr) int32
	cuMemFree                 func(dptr uint64) int32
	cuMemGetInfo              func(free, total *uintptr) int32
	cuDeviceGetAttribute      func(value *int32, attr int32, dev int32) int32
	cuDeviceGetUuid           func(uuid *[16]byte, dev int32) int32
	cuMemsetD8Async           func(dptr uint64, value uint8, n uintptr, stream uintptr) int32
	cuMemsetD16Async          func(dptr uint64, value uint16, n uintptr, stream uintptr) int32
	cuMemsetD32Async          func(dptr uint64, value uint32, n uintptr, stream uintptr) int32
	cuModuleLoadData          func(module *uintptr, image *byte) int32
	cuModuleGetFunction       func(f *uintptr, module uintptr, name string) int32
	cuModuleUnload            func(module uintptr) int32
	cuLaunchKernel            func(f uintptr, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedMemBytes uint32, stream uintptr, params, extra unsafe.Pointer) int32
	cuMemHostAlloc            func(pp *unsafe.Pointer, bytes uintptr, flags uint32) int32
	cuMemHostGetDevicePointer func(dptr *uint64, p unsafe.Pointer, flags uint32) int32
	cuMemFreeHost             func(p unsafe.Pointer) int32
	cuGetErrorName            func(code int32, name **byte) int32
}

func (d *driverAPI) symbols() []symbol {
	return []symbol{
		{"cuInit", &d.cuInit},                                          // CUresult cuInit(unsigned int Flags)
		{"cuDriverGetVersion", &d.cuDriverGetVersion},                  // CUresult cuDriverGetVersion(int *driverVersion)
		{"cuDeviceGet", &d.cuDeviceGet},                                // CUresult cuDeviceGet(CUdevice *device, int ordinal)
		{"cuDeviceGetName", &d.cuDeviceGetName},                        // CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
		{"cuDeviceTotalMem_v2", &d.cuDeviceTotalMem},                   // CUresult cuDeviceTotalMem(size_t *bytes, CUdevice dev)
		{"cuDevicePrimaryCtxRetain", &d.cuDevicePrimaryCtxRetain},      // CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
		{"cuDevicePrimaryCtxRelease_v2", &d.cuDevicePrimaryCtxRelease}, // CUresult cuDevicePrimaryCtxRelease(CUdevice dev)
		{"cuCtxSetCurrent", &d.cuCtxSetCurrent},                        // CUresult cuCtxSetCurrent(CUcontext ctx)
		{"cuStreamCreate", &d.cuStreamCreate},                          // CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags)
		{"cuStreamDestroy_v2", &d.cuStreamDestroy},                     // CUresult cuStreamDestroy(CUstream hStream)
		{"cuStreamSynchronize", &d.cuStreamSynchronize},                // CUresult cuStreamSynchronize(CUstream hStream)
		{"cuEventCreate", &d.cuEventCreate},                            // CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags)
		{"cuEventDestroy_v2", &d.cuEventDestroy},                       // CUresult cuEventDestroy(CUevent hEvent)
		{"cuEventRecord", &d.cuEventRecord},                            // CUresult cuEventRecord(CUevent hEvent, CUstream hStream)
		{"cuEventSynchronize", &d.cuEventSynchronize},                  // CUresult cuEventSynchronize(CUevent hEvent)
		{"cuEventElapsedTime", &d.cuEventElapsedTime},                  // CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd)
		{"cuMemAlloc_v2", &d.cuMemAlloc},                               // CUresult cuMemAlloc(CUdeviceptr *dptr, size_t bytesize)
		{"cuMemFree_v2", &d.cuMemFree},                                 // CUresult cuMemFree(CUdeviceptr dptr)
		{"cuMemGetInfo_v2", &d.cuMemGetInfo},                           // CUresult cuMemGetInfo(size_t *free, size_t *total)
		{"cuDeviceGetAttribute", &d.cuDeviceGetAttribute},              // CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
		// CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev), CUuuid being struct { char bytes[16]; } (cuda.h of
		// CUDA 12.6; in drivers since CUDA 11.4, so in every driver that runs CUDA 12's libraries). In MIG mode it
		// gives the MIG instance's UUID (the driver API reference of cuDeviceGetUuid_v2).
		{"cuDeviceGetUuid_v2", &d.cuDeviceGetUuid},
		{"cuMemsetD8Async", &d.cuMemsetD8Async},         // CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream)
		{"cuMemsetD16Async", &d.cuMemsetD16Async},       // CUresult cuMemsetD16Async(CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream)
		{"cuMemsetD32Async", &d.cuMemsetD32Async},       // CUresult cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream)
		{"cuModuleLoadData", &d.cuModuleLoadData},       // CUresult cuModuleLoadData(CUmodule *module, const void *image)
		{"cuModuleGetFunction", &d.cuModuleGetFunction}, // CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
		{"cuModuleUnload", &d.cuModuleUnload},           // CUresult cuModuleUnload(CUmodule hmod)
		// CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, gridDimY, gridDimZ, unsigned int blockDimX, blockDimY,
		//     blockDimZ, unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra)
		{"cuLaunchKernel", &d.cuLaunchKernel},
		{"cuMemHostAlloc", &d.cuMemHostAlloc}, // CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
		// CUresult cuMemHostGetDevicePointer(CUdeviceptr *pdptr, void *p, unsigned int Flags), #defined to its _v2
		// (cuda.h); Flags "must be 0"
		{"cuMemHostGetDevicePointer_v2", &d.cuMemHostGetDevicePointer},
		{"cuMemFreeHost", &d.cuMemFreeHost}, // CUresult cuMemFreeHost(void *p)
		// CUresult cuGetErrorName(CUresult error, const char **pStr): *pStr the code's name ("CUDA_ERROR_..."), a
		// static string; CUDA_ERROR_INVALID_VALUE and *pStr NULL for a code the driver does not know
		{"cuGetErrorName", &d.cuGetErrorName},
	}
}

// convPerf is cudnnConvolutionFwdAlgoPerf_t (and the BwdData and
// BwdFilter ones, which have the same layout): algo, status, time (ms),
// memory (workspace bytes), determinism, mathType, reserved[3]; 48 bytes
// on 64-bit systems (memory at offset 16).
type convPerf struct {
	Algo        int32
	Status      int32
	Time        float32
	Memory      uint64
	Determinism int32
	MathType    int32
	Reserved    [3]int32
}

// cudnnAPI is libcudnn's handle, tensor and filter descriptors and
// legacy convolution API (cuDNN 9: cudnn_graph.h, cudnn_ops.h and
// cudnn_cnn.h; libcudnn_graph, libcudnn_ops and libcudnn_cnn, reached
// through libcudnn.so.9).
type cudnnAPI struct {
	cudnnGetVersion                               func() uintptr
	cudnnGetCudartVersion                         func() uintptr
	cudnnGetErrorString                           func(status int32) string
	cudnnCreate                                   func(handle *uintptr) int32
	cudnnDestroy                                  func(handle uintptr) int32
	cudnnSetStream                                func(handle, stream uintptr) int32
	cudnnCreateTensorDescriptor                   func(desc *uintptr) int32
	cudnnDestroyTensorDescriptor                  func(desc uintptr) int32
	cudnnSetTensorNdDescriptor                    func(desc uintptr, dataType, nbDims int32, dims, strides *int32) int32
	cudnnCreateFilterDescriptor                   func(desc *uintptr) int32
	cudnnDestroyFilterDescriptor                  func(desc uintptr) int32
	cudnnSetFilter4dDescriptor                    func(desc uintptr, dataType, format, k, c, h, w int32) int32
	cudnnCreateConvolutionDescriptor              func(desc *uintptr) int32
	cudnnDestroyConvolutionDescriptor             func(desc uintptr) int32
	cudnnSetConvolution2dDescriptor               func(desc uintptr, padH, padW, u, v, dilationH, dilationW, mode, computeType int32) int32
	cudnnSetConvolutionGroupCount                 func(desc uintptr, groups int32) int32
	cudnnSetConvolutionMathType                   func(desc uintptr, mathType int32) int32
	cudnnGetConvolution2dForwardOutputDim         func(conv, x, w uintptr, n, c, h, wd *int32) int32
	cudnnFindConvolutionForwardAlgorithmEx        func(handle, xDesc uintptr, x uint64, wDesc uintptr, w uint64, conv, yDesc uintptr, y uint64, requested int32, returned *int32, perf *convPerf, ws uint64, wsBytes uintptr) int32
	cudnnFindConvolutionBackwardDataAlgorithmEx   func(handle, wDesc uintptr, w uint64, dyDesc uintptr, dy uint64, conv, dxDesc uintptr, dx uint64, requested int32, returned *int32, perf *convPerf, ws uint64, wsBytes uintptr) int32
	cudnnFindConvolutionBackwardFilterAlgorithmEx func(handle, xDesc uintptr, x uint64, dyDesc uintptr, dy uint64, conv, dwDesc uintptr, dw uint64, requested int32, returned *int32, perf *convPerf, ws uint64, wsBytes uintptr) int32
	cudnnConvolutionForward                       func(handle uintptr, alpha unsafe.Pointer, xDesc uintptr, x uint64, wDesc uintptr, w uint64, conv uintptr, algo int32, ws uint64, wsBytes uintptr, beta unsafe.Pointer, yDesc uintptr, y uint64) int32
	cudnnConvolutionBackwardData                  func(handle uintptr, alpha unsafe.Pointer, wDesc uintptr, w uint64, dyDesc uintptr, dy uint64, conv uintptr, algo int32, ws uint64, wsBytes uintptr, beta unsafe.Pointer, dxDesc uintptr, dx uint64) int32
	cudnnConvolutionBackwardFilter                func(handle uintptr, alpha unsafe.Pointer, xDesc uintptr, x uint64, dyDesc uintptr, dy uint64, conv uintptr, algo int32, ws uint64, wsBytes uintptr, beta unsafe.Pointer, dwDesc uintptr, dw uint64) int32
}

func (d *cudnnAPI) symbols() []symbol {
	return []symbol{
		{"cudnnGetVersion", &d.cudnnGetVersion},             // size_t cudnnGetVersion(void)
		{"cudnnGetCudartVersion", &d.cudnnGetCudartVersion}, // size_t cudnnGetCudartVersion(void)
		{"cudnnGetErrorString", &d.cudnnGetErrorString},     // const char *cudnnGetErrorString(cudnnStatus_t status)
		{"cudnnCreate", &d.cudnnCreate},                     // cudnnStatus_t cudnnCreate(cudnnHandle_t *handle)
		{"cudnnDestroy", &d.cudnnDestroy},                   // cudnnStatus_t cudnnDestroy(cudnnHandle_t handle)
		{"cudnnSetStream", &d.cudnnSetStream},               // cudnnStatus_t cudnnSetStream(cudnnHandle_t handle, cudaStream_t streamId)
		{"cudnnCreateTensorDescriptor", &d.cudnnCreateTensorDescriptor},
		{"cudnnDestroyTensorDescriptor", &d.cudnnDestroyTensorDescriptor},
		// cudnnStatus_t cudnnSetTensorNdDescriptor(cudnnTensorDescriptor_t, cudnnDataType_t, int nbDims, const int dimA[], const int strideA[])
		{"cudnnSetTensorNdDescriptor", &d.cudnnSetTensorNdDescriptor},
		{"cudnnCreateFilterDescriptor", &d.cudnnCreateFilterDescriptor},
		{"cudnnDestroyFilterDescriptor", &d.cudnnDestroyFilterDescriptor},
		// cudnnStatus_t cudnnSetFilter4dDescriptor(cudnnFilterDescriptor_t, cudnnDataType_t, cudnnTensorFormat_t, int k, int c, int h, int w)
		{"cudnnSetFilter4dDescriptor", &d.cudnnSetFilter4dDescriptor},
		{"cudnnCreateConvolutionDescriptor", &d.cudnnCreateConvolutionDescriptor},
		{"cudnnDestroyConvolutionDescriptor", &d.cudnnDestroyConvolutionDescriptor},
		// cudnnStatus_t cudnnSetConvolution2dDescriptor(cudnnConvolutionDescriptor_t, int pad_h, int pad_w, int u, int v,
		//     int dilation_h, int dilation_w, cudnnConvolutionMode_t mode, cudnnDataType_t computeType)
		{"cudnnSetConvolution2dDescriptor", &d.cudnnSetConvolution2dDescriptor},
		{"cudnnSetConvolutionGroupCount", &d.cudnnSetConvolutionGroupCount}, // (cudnnConvolutionDescriptor_t, int groupCount)
		{"cudnnSetConvolutionMathType", &d.cudnnSetConvolutionMathType},     // (cudnnConvolutionDescriptor_t, cudnnMathType_t)
		// (const cudnnConvolutionDescriptor_t, const cudnnTensorDescriptor_t, const cudnnFilterDescriptor_t, int *n, int *c, int *h, int *w)
		{"cudnnGetConvolution2dForwardOutputDim", &d.cudnnGetConvolution2dForwardOutputDim},
		// (handle, xDesc, const void *x, wDesc, const void *w, convDesc, yDesc, void *y, const int requestedAlgoCount,
		//  int *returnedAlgoCount, cudnnConvolutionFwdAlgoPerf_t *perfResults, void *workSpace, size_t workSpaceSizeInBytes)
		{"cudnnFindConvolutionForwardAlgorithmEx", &d.cudnnFindConvolutionForwardAlgorithmEx},
		// (handle, wDesc, const void *w, dyDesc, const void *dy, convDesc, dxDesc, void *dx, requested, returned, perf, workSpace, bytes)
		{"cudnnFindConvolutionBackwardDataAlgorithmEx", &d.cudnnFindConvolutionBackwardDataAlgorithmEx},
		// (handle, xDesc, const void *x, dyDesc, const void *y, convDesc, dwDesc, void *dw, requested, returned, perf, workSpace, bytes)
		{"cudnnFindConvolutionBackwardFilterAlgorithmEx", &d.cudnnFindConvolutionBackwardFilterAlgorithmEx},
		// (handle, const void *alpha, xDesc, const void *x, wDesc, const void *w, convDesc, cudnnConvolutionFwdAlgo_t algo,
		//  void *workSpace, size_t workSpaceSizeInBytes, const void *beta, yDesc, void *y)
		{"cudnnConvolutionForward", &d.cudnnConvolutionForward},
		// (handle, alpha, wDesc, w, dyDesc, dy, convDesc, cudnnConvolutionBwdDataAlgo_t algo, workSpace, bytes, beta, dxDesc, dx)
		{"cudnnConvolutionBackwardData", &d.cudnnConvolutionBackwardData},
		// (handle, alpha, xDesc, x, dyDesc, dy, convDesc, cudnnConvolutionBwdFilterAlgo_t algo, workSpace, bytes, beta, dwDesc, dw)
		{"cudnnConvolutionBackwardFilter", &d.cudnnConvolutionBackwardFilter},
	}
}

// ltAlgo is cublasLtMatmulAlgo_t: uint64_t data[8].
type ltAlgo [8]uint64

// ltHeuristic is cublasLtMatmulHeuristicResult_t: algo, workspaceSize,
// state, wavesCount, reserved[4]; 96 bytes.
type ltHeuristic struct {
	Algo          ltAlgo
	WorkspaceSize uint64
	State         int32
	WavesCount    float32
	Reserved      [4]int32
}

// cuBLASLt attribute enums (cublasLt.h).
const (
	ltMatmulDescTransA         int32 = 3 // CUBLASLT_MATMUL_DESC_TRANSA, int32_t
	ltMatmulDescTransB         int32 = 4 // CUBLASLT_MATMUL_DESC_TRANSB, int32_t
	ltLayoutBatchCount         int32 = 5 // CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, int32_t
	ltLayoutStridedBatchOffset int32 = 6 // CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, int64_t
	ltPrefMaxWorkspaceBytes    int32 = 1 // CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, uint64_t
	// CUBLASLT_MATMUL_DESC_EPILOGUE: uint32_t, a cublasLtEpilogue_t (default CUBLASLT_EPILOGUE_DEFAULT).
	ltMatmulDescEpilogue int32 = 7
	// CUBLASLT_MATMUL_DESC_BIAS_POINTER: the bias (const void *) or bias gradient (void *) vector in device
	// memory, of the output's type (cublasLt.h: "Bias vector elements are the same type as the output
	// elements (Ctype)"); 8 bytes.
	ltMatmulDescBiasPointer int32 = 8
)

// cublasLtEpilogue_t (cublasLt.h).
const (
	// CUBLASLT_EPILOGUE_DEFAULT: no epilogue.
	ltEpilogueDefault uint32 = 1
	// CUBLASLT_EPILOGUE_BIAS: D += bias broadcast over the columns; "Bias vector length must match matrix
	// D rows count".
	ltEpilogueBias uint32 = 4
)

// ltAPI is libcublasLt.
type ltAPI struct {
	cublasLtGetVersion                   func() uintptr
	cublasLtCreate                       func(handle *uintptr) int32
	cublasLtDestroy                      func(handle uintptr) int32
	cublasLtMatmulDescCreate             func(desc *uintptr, computeType, scaleType int32) int32
	cublasLtMatmulDescDestroy            func(desc uintptr) int32
	cublasLtMatmulDescSetAttribute       func(desc uintptr, attr int32, buf unsafe.Pointer, size uintptr) int32
	cublasLtMatrixLayoutCreate           func(layout *uintptr, dataType int32, rows, cols uint64, ld int64) int32
	cublasLtMatrixLayoutDestroy          func(layout uintptr) int32
	cublasLtMatrixLayoutSetAttribute     func(layout uintptr, attr int32, buf unsafe.Pointer, size uintptr) int32
	cublasLtMatmulPreferenceCreate       func(pref *uintptr) int32
	cublasLtMatmulPreferenceDestroy      func(pref uintptr) int32
	cublasLtMatmulPreferenceSetAttribute func(pref uintptr, attr int32, buf unsafe.Pointer, size uintptr) int32
	cublasLtMatmulAlgoGetHeuristic       func(handle, op, a, b, c, d, pref uintptr, requested int32, results *ltHeuristic, returned *int32) int32
	cublasLtMatmul                       func(handle, op uintptr, alpha unsafe.Pointer, a uint64, aDesc uintptr, b uint64, bDesc uintptr, beta unsafe.Pointer, c uint64, cDesc uintptr, d uint64, dDesc uintptr, algo *ltAlgo, ws uint64, wsBytes uintptr, stream uintptr) int32
}

func (l *ltAPI) symbols() []symbol {
	return []symbol{
		{"cublasLtGetVersion", &l.cublasLtGetVersion}, // size_t cublasLtGetVersion(void)
		{"cublasLtCreate", &l.cublasLtCreate},         // cublasStatus_t cublasLtCreate(cublasLtHandle_t *lightHandle)
		{"cublasLtDestroy", &l.cublasLtDestroy},
		// cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *matmulDesc, cublasComputeType_t computeType, cudaDataType_t scaleType)
		{"cublasLtMatmulDescCreate", &l.cublasLtMatmulDescCreate},
		{"cublasLtMatmulDescDestroy", &l.cublasLtMatmulDescDestroy},
		// (cublasLtMatmulDesc_t, cublasLtMatmulDescAttributes_t attr, const void *buf, size_t sizeInBytes)
		{"cublasLtMatmulDescSetAttribute", &l.cublasLtMatmulDescSetAttribute},
		// (cublasLtMatrixLayout_t *matLayout, cudaDataType type, uint64_t rows, uint64_t cols, int64_t ld)
		{"cublasLtMatrixLayoutCreate", &l.cublasLtMatrixLayoutCreate},
		{"cublasLtMatrixLayoutDestroy", &l.cublasLtMatrixLayoutDestroy},
		{"cublasLtMatrixLayoutSetAttribute", &l.cublasLtMatrixLayoutSetAttribute},
		{"cublasLtMatmulPreferenceCreate", &l.cublasLtMatmulPreferenceCreate},
		{"cublasLtMatmulPreferenceDestroy", &l.cublasLtMatmulPreferenceDestroy},
		{"cublasLtMatmulPreferenceSetAttribute", &l.cublasLtMatmulPreferenceSetAttribute},
		// (lightHandle, operationDesc, Adesc, Bdesc, Cdesc, Ddesc, preference, int requestedAlgoCount,
		//  cublasLtMatmulHeuristicResult_t heuristicResultsArray[], int *returnAlgoCount)
		{"cublasLtMatmulAlgoGetHeuristic", &l.cublasLtMatmulAlgoGetHeuristic},
		// (lightHandle, computeDesc, const void *alpha, const void *A, Adesc, const void *B, Bdesc, const void *beta,
		//  const void *C, Cdesc, void *D, Ddesc, const cublasLtMatmulAlgo_t *algo, void *workspace,
		//  size_t workspaceSizeInBytes, cudaStream_t stream)
		{"cublasLtMatmul", &l.cublasLtMatmul},
	}
}

// bind looks up every symbol in the library loaded at handle and binds
// its function variable; a missing symbol is an error naming all that
// are missing (a library too old, or not the one its name says).
func bind(lib string, handle uintptr, syms []symbol) error {
	var missing []string
	for _, s := range syms {
		addr, err := purego.Dlsym(handle, s.name)
		if err != nil || addr == 0 {
			missing = append(missing, s.name)
			continue
		}
		purego.RegisterFunc(s.fn, addr)
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s lacks %s", lib, strings.Join(missing, ", "))
	}
	return nil
}

// open dlopens a library found by discovery.
func open(f Found) (uintptr, error) {
	if f.Path == "" {
		return 0, f.missing()
	}
	h, err := purego.Dlopen(f.Path, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return 0, fmt.Errorf("loading %s: %w", f.Path, err)
	}
	if h == 0 {
		return 0, errors.New("loading " + f.Path + ": no handle")
	}
	return h, nil
}

// cudnnAdvAPI is cuDNN 9's RNN API (cudnn_adv.h, in libcudnn_adv.so.9, reached through libcudnn.so.9's
// shim): what PyTorch's nn.LSTM runs on CUDA (aten/src/ATen/native/cudnn/RNN.cpp). Bound apart so that
// a cuDNN without its advanced sub-library still runs everything else. Every prototype below is copied
// from cuDNN 9.6's cudnn_adv.h; int32_t and int are int32, size_t uintptr.
type cudnnAdvAPI struct {
	cudnnCreateRNNDescriptor      func(desc *uintptr) int32
	cudnnDestroyRNNDescriptor     func(desc uintptr) int32
	cudnnSetRNNDescriptor_v8      func(desc uintptr, algo, cellMode, biasMode, dirMode, inputMode, dataType, mathPrec, mathType, inputSize, hiddenSize, projSize, numLayers int32, dropoutDesc uintptr, auxFlags uint32) int32
	cudnnGetRNNWeightSpaceSize    func(handle, desc uintptr, size *uintptr) int32
	cudnnGetRNNTempSpaceSizes     func(handle, desc uintptr, fwdMode int32, xDesc uintptr, workSpace, reserveSpace *uintptr) int32
	cudnnCreateRNNDataDescriptor  func(desc *uintptr) int32
	cudnnDestroyRNNDataDescriptor func(desc uintptr) int32
	cudnnSetRNNDataDescriptor     func(desc uintptr, dataType, layout, maxSeqLength, batchSize, vectorSize int32, seqLengths *int32, paddingFill unsafe.Pointer) int32
	cudnnRNNForward               func(handle, desc uintptr, fwdMode int32, devSeqLengths uint64, xDesc uintptr, x uint64, yDesc uintptr, y uint64,
		hDesc uintptr, hx, hy uint64, cDesc uintptr, cx, cy uint64, weightSpaceSize uintptr, weightSpace uint64,
		workSpaceSize uintptr, workSpace uint64, reserveSpaceSize uintptr, reserveSpace uint64) int32
	cudnnRNNBackwardData_v8 func(handle, desc uintptr, devSeqLengths uint64, yDesc uintptr, y, dy uint64, xDesc uintptr, dx uint64,
		hDesc uintptr, hx, dhy, dhx uint64, cDesc uintptr, cx, dcy, dcx uint64, weightSpaceSize uintptr, weightSpace uint64,
		workSpaceSize uintptr, workSpace uint64, reserveSpaceSize uintptr, reserveSpace uint64) int32
	cudnnRNNBackwardWeights_v8 func(handle, desc uintptr, addGrad int32, devSeqLengths uint64, xDesc uintptr, x uint64, hDesc uintptr, hx uint64,
		yDesc uintptr, y uint64, weightSpaceSize uintptr, dweightSpace uint64, workSpaceSize uintptr, workSpace uint64,
		reserveSpaceSize uintptr, reserveSpace uint64) int32
}

func (a *cudnnAdvAPI) symbols() []symbol {
	return []symbol{
		{"cudnnCreateRNNDescriptor", &a.cudnnCreateRNNDescriptor},   // (cudnnRNNDescriptor_t *rnnDesc)
		{"cudnnDestroyRNNDescriptor", &a.cudnnDestroyRNNDescriptor}, // (cudnnRNNDescriptor_t rnnDesc)
		// (cudnnRNNDescriptor_t rnnDesc, cudnnRNNAlgo_t algo, cudnnRNNMode_t cellMode, cudnnRNNBiasMode_t biasMode,
		//  cudnnDirectionMode_t dirMode, cudnnRNNInputMode_t inputMode, cudnnDataType_t dataType,
		//  cudnnDataType_t mathPrec, cudnnMathType_t mathType, int32_t inputSize, int32_t hiddenSize,
		//  int32_t projSize, int32_t numLayers, cudnnDropoutDescriptor_t dropoutDesc, uint32_t auxFlags)
		{"cudnnSetRNNDescriptor_v8", &a.cudnnSetRNNDescriptor_v8},
		// (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, size_t *weightSpaceSize)
		{"cudnnGetRNNWeightSpaceSize", &a.cudnnGetRNNWeightSpaceSize},
		// (cudnnHandle_t handle, cudnnRNNDescriptor_t rnnDesc, cudnnForwardMode_t fwdMode,
		//  cudnnRNNDataDescriptor_t xDesc, size_t *workSpaceSize, size_t *reserveSpaceSize)
		{"cudnnGetRNNTempSpaceSizes", &a.cudnnGetRNNTempSpaceSizes},
		{"cudnnCreateRNNDataDescriptor", &a.cudnnCreateRNNDataDescriptor},   // (cudnnRNNDataDescriptor_t *rnnDataDesc)
		{"cudnnDestroyRNNDataDescriptor", &a.cudnnDestroyRNNDataDescriptor}, // (cudnnRNNDataDescriptor_t rnnDataDesc)
		// (cudnnRNNDataDescriptor_t rnnDataDesc, cudnnDataType_t dataType, cudnnRNNDataLayout_t layout,
		//  int maxSeqLength, int batchSize, int vectorSize, const int seqLengthArray[], void *paddingFill)
		{"cudnnSetRNNDataDescriptor", &a.cudnnSetRNNDataDescriptor},
		// (handle, rnnDesc, cudnnForwardMode_t fwdMode, const int32_t devSeqLengths[], xDesc, const void *x, yDesc,
		//  void *y, cudnnTensorDescriptor_t hDesc, const void *hx, void *hy, cudnnTensorDescriptor_t cDesc,
		//  const void *cx, void *cy, size_t weightSpaceSize, const void *weightSpace, size_t workSpaceSize,
		//  void *workSpace, size_t reserveSpaceSize, void *reserveSpace)
		{"cudnnRNNForward", &a.cudnnRNNForward},
		// (handle, rnnDesc, const int32_t devSeqLengths[], yDesc, const void *y, const void *dy, xDesc, void *dx,
		//  hDesc, const void *hx, const void *dhy, void *dhx, cDesc, const void *cx, const void *dcy, void *dcx,
		//  size_t weightSpaceSize, const void *weightSpace, size_t workSpaceSize, void *workSpace,
		//  size_t reserveSpaceSize, void *reserveSpace)
		{"cudnnRNNBackwardData_v8", &a.cudnnRNNBackwardData_v8},
		// (handle, rnnDesc, cudnnWgradMode_t addGrad, const int32_t devSeqLengths[], xDesc, const void *x, hDesc,
		//  const void *hx, yDesc, const void *y, size_t weightSpaceSize, void *dweightSpace, size_t workSpaceSize,
		//  void *workSpace, size_t reserveSpaceSize, void *reserveSpace)
		{"cudnnRNNBackwardWeights_v8", &a.cudnnRNNBackwardWeights_v8},
	}
}

// cudnnOpsAPI is the legacy operations API of cuDNN 9 (cudnn_ops.h, in
// libcudnn_ops.so.9, reached through libcudnn.so.9's shim like the
// convolutions): pooling, activation, softmax, batch normalisation and
// tensor addition, dropout. It is bound apart from cudnnAPI so that a cuDNN
// lacking one of these symbols leaves the others running (the
// convolutions need libcudnn_ops too: their tensor and filter descriptors
// are declared in cudnn_ops.h). Every prototype
// below is copied from cuDNN 9.6's cudnn_ops.h; double is float64.
type cudnnOpsAPI struct {
	cudnnCreatePoolingDescriptor           func(desc *uintptr) int32
	cudnnDestroyPoolingDescriptor          func(desc uintptr) int32
	cudnnSetPooling2dDescriptor            func(desc uintptr, mode, nanOpt, windowH, windowW, padH, padW, strideH, strideW int32) int32
	cudnnGetPooling2dForwardOutputDim      func(desc, xDesc uintptr, n, c, h, w *int32) int32
	cudnnPoolingForward                    func(handle, desc uintptr, alpha unsafe.Pointer, xDesc uintptr, x uint64, beta unsafe.Pointer, yDesc uintptr, y uint64) int32
	cudnnPoolingBackward                   func(handle, desc uintptr, alpha unsafe.Pointer, yDesc uintptr, y uint64, dyDesc uintptr, dy uint64, xDesc uintptr, x uint64, beta unsafe.Pointer, dxDesc uintptr, dx uint64) int32
	cudnnCreateActivationDescriptor        func(desc *uintptr) int32
	cudnnDestroyActivationDescriptor       func(desc uintptr) int32
	cudnnSetActivationDescriptor           func(desc uintptr, mode, nanOpt int32, coef float64) int32
	cudnnSetActivationDescriptorSwishBeta  func(desc uintptr, beta float64) int32
	cudnnActivationForward                 func(handle, desc uintptr, alpha unsafe.Pointer, xDesc uintptr, x uint64, beta unsafe.Pointer, yDesc uintptr, y uint64) int32
	cudnnActivationBackward                func(handle, desc uintptr, alpha unsafe.Pointer, yDesc uintptr, y uint64, dyDesc uintptr, dy uint64, xDesc uintptr, x uint64, beta unsafe.Pointer, dxDesc uintptr, dx uint64) int32
	cudnnSoftmaxForward                    func(handle uintptr, algo, mode int32, alpha unsafe.Pointer, xDesc uintptr, x uint64, beta unsafe.Pointer, yDesc uintptr, y uint64) int32
	cudnnSoftmaxBackward                   func(handle uintptr, algo, mode int32, alpha unsafe.Pointer, yDesc uintptr, y uint64, dyDesc uintptr, dy uint64, beta unsafe.Pointer, dxDesc uintptr, dx uint64) int32
	cudnnDeriveBNTensorDescriptor          func(derived, xDesc uintptr, mode int32) int32
	cudnnBatchNormalizationForwardTraining func(handle uintptr, mode int32, alpha, beta unsafe.Pointer, xDesc uintptr, x uint64, yDesc uintptr, y uint64,
		bnDesc uintptr, scale, bias uint64, factor float64, runningMean, runningVar uint64, epsilon float64, saveMean, saveInvVar uint64) int32
	cudnnBatchNormalizationBackward func(handle uintptr, mode int32, alphaData, betaData, alphaParam, betaParam unsafe.Pointer, xDesc uintptr, x uint64,
		dyDesc uintptr, dy uint64, dxDesc uintptr, dx uint64, bnDesc uintptr, scale, dScale, dBias uint64, epsilon float64, savedMean, savedInvVar uint64) int32
	cudnnCreateOpTensorDescriptor   func(desc *uintptr) int32
	cudnnDestroyOpTensorDescriptor  func(desc uintptr) int32
	cudnnSetOpTensorDescriptor      func(desc uintptr, op, compType, nanOpt int32) int32
	cudnnOpTensor                   func(handle, desc uintptr, alpha1 unsafe.Pointer, aDesc uintptr, a uint64, alpha2 unsafe.Pointer, bDesc uintptr, b uint64, beta unsafe.Pointer, cDesc uintptr, c uint64) int32
	cudnnAddTensor                  func(handle uintptr, alpha unsafe.Pointer, aDesc uintptr, a uint64, beta unsafe.Pointer, cDesc uintptr, c uint64) int32
	cudnnCreateDropoutDescriptor    func(desc *uintptr) int32
	cudnnDestroyDropoutDescriptor   func(desc uintptr) int32
	cudnnDropoutGetStatesSize       func(handle uintptr, size *uintptr) int32
	cudnnDropoutGetReserveSpaceSize func(xDesc uintptr, size *uintptr) int32
	cudnnSetDropoutDescriptor       func(desc, handle uintptr, dropout float32, states uint64, stateBytes uintptr, seed uint64) int32
	cudnnDropoutForward             func(handle, desc, xDesc uintptr, x uint64, yDesc uintptr, y uint64, reserve uint64, reserveBytes uintptr) int32
	cudnnDropoutBackward            func(handle, desc, dyDesc uintptr, dy uint64, dxDesc uintptr, dx uint64, reserve uint64, reserveBytes uintptr) int32
}

func (o *cudnnOpsAPI) symbols() []symbol {
	return []symbol{
		{"cudnnCreatePoolingDescriptor", &o.cudnnCreatePoolingDescriptor},   // (cudnnPoolingDescriptor_t *poolingDesc)
		{"cudnnDestroyPoolingDescriptor", &o.cudnnDestroyPoolingDescriptor}, // (cudnnPoolingDescriptor_t poolingDesc)
		// (poolingDesc, cudnnPoolingMode_t mode, cudnnNanPropagation_t maxpoolingNanOpt, int windowHeight, int windowWidth,
		//  int verticalPadding, int horizontalPadding, int verticalStride, int horizontalStride)
		{"cudnnSetPooling2dDescriptor", &o.cudnnSetPooling2dDescriptor},
		// (const poolingDesc, const cudnnTensorDescriptor_t inputTensorDesc, int *n, int *c, int *h, int *w)
		{"cudnnGetPooling2dForwardOutputDim", &o.cudnnGetPooling2dForwardOutputDim},
		// (handle, const poolingDesc, const void *alpha, xDesc, const void *x, const void *beta, yDesc, void *y)
		{"cudnnPoolingForward", &o.cudnnPoolingForward},
		// (handle, poolingDesc, alpha, yDesc, const void *y, dyDesc, const void *dy, xDesc, const void *x, beta, dxDesc, void *dx)
		{"cudnnPoolingBackward", &o.cudnnPoolingBackward},
		{"cudnnCreateActivationDescriptor", &o.cudnnCreateActivationDescriptor},   // (cudnnActivationDescriptor_t *activationDesc)
		{"cudnnDestroyActivationDescriptor", &o.cudnnDestroyActivationDescriptor}, // (cudnnActivationDescriptor_t activationDesc)
		// (activationDesc, cudnnActivationMode_t mode, cudnnNanPropagation_t reluNanOpt, double coef)
		{"cudnnSetActivationDescriptor", &o.cudnnSetActivationDescriptor},
		{"cudnnSetActivationDescriptorSwishBeta", &o.cudnnSetActivationDescriptorSwishBeta}, // (activationDesc, double swish_beta)
		// (handle, activationDesc, const void *alpha, xDesc, const void *x, const void *beta, yDesc, void *y)
		{"cudnnActivationForward", &o.cudnnActivationForward},
		// (handle, activationDesc, alpha, yDesc, const void *y, dyDesc, const void *dy, xDesc, const void *x, beta, dxDesc, void *dx)
		{"cudnnActivationBackward", &o.cudnnActivationBackward},
		// (handle, cudnnSoftmaxAlgorithm_t algo, cudnnSoftmaxMode_t mode, const void *alpha, xDesc, const void *x,
		//  const void *beta, yDesc, void *y)
		{"cudnnSoftmaxForward", &o.cudnnSoftmaxForward},
		// (handle, algo, mode, alpha, yDesc, const void *y, dyDesc, const void *dy, beta, dxDesc, void *dx)
		{"cudnnSoftmaxBackward", &o.cudnnSoftmaxBackward},
		// (cudnnTensorDescriptor_t derivedBnDesc, const cudnnTensorDescriptor_t xDesc, cudnnBatchNormMode_t mode)
		{"cudnnDeriveBNTensorDescriptor", &o.cudnnDeriveBNTensorDescriptor},
		// (handle, mode, const void *alpha, const void *beta, xDesc, const void *x, yDesc, void *y, bnScaleBiasMeanVarDesc,
		//  const void *bnScale, const void *bnBias, double exponentialAverageFactor, void *resultRunningMean,
		//  void *resultRunningVariance, double epsilon, void *resultSaveMean, void *resultSaveInvVariance)
		{"cudnnBatchNormalizationForwardTraining", &o.cudnnBatchNormalizationForwardTraining},
		// (handle, mode, const void *alphaDataDiff, const void *betaDataDiff, const void *alphaParamDiff,
		//  const void *betaParamDiff, xDesc, const void *x, dyDesc, const void *dy, dxDesc, void *dx, dBnScaleBiasDesc,
		//  const void *bnScale, void *dBnScaleResult, void *dBnBiasResult, double epsilon, const void *savedMean,
		//  const void *savedInvVariance)
		{"cudnnBatchNormalizationBackward", &o.cudnnBatchNormalizationBackward},
		{"cudnnCreateOpTensorDescriptor", &o.cudnnCreateOpTensorDescriptor},   // (cudnnOpTensorDescriptor_t *opTensorDesc)
		{"cudnnDestroyOpTensorDescriptor", &o.cudnnDestroyOpTensorDescriptor}, // (cudnnOpTensorDescriptor_t opTensorDesc)
		// (opTensorDesc, cudnnOpTensorOp_t opTensorOp, cudnnDataType_t opTensorCompType, cudnnNanPropagation_t opTensorNanOpt)
		{"cudnnSetOpTensorDescriptor", &o.cudnnSetOpTensorDescriptor},
		// (handle, opTensorDesc, const void *alpha1, aDesc, const void *A, const void *alpha2, bDesc, const void *B,
		//  const void *beta, cDesc, void *C)
		{"cudnnOpTensor", &o.cudnnOpTensor},
		// (handle, const void *alpha, aDesc, const void *A, const void *beta, cDesc, void *C)
		{"cudnnAddTensor", &o.cudnnAddTensor},
		{"cudnnCreateDropoutDescriptor", &o.cudnnCreateDropoutDescriptor},   // (cudnnDropoutDescriptor_t *dropoutDesc)
		{"cudnnDestroyDropoutDescriptor", &o.cudnnDestroyDropoutDescriptor}, // (cudnnDropoutDescriptor_t dropoutDesc)
		{"cudnnDropoutGetStatesSize", &o.cudnnDropoutGetStatesSize},         // (cudnnHandle_t handle, size_t *sizeInBytes)
		// (cudnnTensorDescriptor_t xdesc, size_t *sizeInBytes)
		{"cudnnDropoutGetReserveSpaceSize", &o.cudnnDropoutGetReserveSpaceSize},
		// (dropoutDesc, handle, float dropout, void *states, size_t stateSizeInBytes, unsigned long long seed)
		{"cudnnSetDropoutDescriptor", &o.cudnnSetDropoutDescriptor},
		// (handle, const dropoutDesc, const xdesc, const void *x, const ydesc, void *y, void *reserveSpace,
		//  size_t reserveSpaceSizeInBytes)
		{"cudnnDropoutForward", &o.cudnnDropoutForward},
		// (handle, const dropoutDesc, const dydesc, const void *dy, const dxdesc, void *dx, void *reserveSpace,
		//  size_t reserveSpaceSizeInBytes)
		{"cudnnDropoutBackward", &o.cudnnDropoutBackward},
	}
}

// cudnnGraphAPI is cuDNN 9's graph ("backend") API (cudnn_graph.h, in
// libcudnn_graph.so.9, reached through libcudnn.so.9's shim): what PyTorch
// runs its convolutions through (the cuDNN frontend builds these
// descriptors), and the only way to the engines cuDNN's legacy
// cudnnConvolution* routines do not reach (on an H200, a bfloat16 1×1
// convolution: 69 µs by the legacy API's fastest algorithm, 7 µs in
// PyTorch). Bound apart: without it, convolutions run through the legacy
// API. Every prototype below is copied from cuDNN 9's cudnn_graph.h;
// cudnnBackendDescriptor_t and cudnnHandle_t are pointers (uintptr),
// int64_t is int64.
type cudnnGraphAPI struct {
	cudnnBackendCreateDescriptor  func(descriptorType int32, descriptor *uintptr) int32
	cudnnBackendDestroyDescriptor func(descriptor uintptr) int32
	cudnnBackendFinalize          func(descriptor uintptr) int32
	cudnnBackendSetAttribute      func(descriptor uintptr, name, typ int32, count int64, elements unsafe.Pointer) int32
	cudnnBackendGetAttribute      func(descriptor uintptr, name, typ int32, requested int64, count *int64, elements unsafe.Pointer) int32
	cudnnBackendExecute           func(handle, plan, variantPack uintptr) int32
}

func (g *cudnnGraphAPI) symbols() []symbol {
	return []symbol{
		// cudnnStatus_t cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t descriptorType,
		//     cudnnBackendDescriptor_t *descriptor)
		{"cudnnBackendCreateDescriptor", &g.cudnnBackendCreateDescriptor},
		// cudnnStatus_t cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t descriptor)
		{"cudnnBackendDestroyDescriptor", &g.cudnnBackendDestroyDescriptor},
		// cudnnStatus_t cudnnBackendFinalize(cudnnBackendDescriptor_t descriptor)
		{"cudnnBackendFinalize", &g.cudnnBackendFinalize},
		// cudnnStatus_t cudnnBackendSetAttribute(cudnnBackendDescriptor_t descriptor,
		//     cudnnBackendAttributeName_t attributeName, cudnnBackendAttributeType_t attributeType,
		//     int64_t elementCount, const void *arrayOfElements)
		{"cudnnBackendSetAttribute", &g.cudnnBackendSetAttribute},
		// cudnnStatus_t cudnnBackendGetAttribute(cudnnBackendDescriptor_t const descriptor,
		//     cudnnBackendAttributeName_t attributeName, cudnnBackendAttributeType_t attributeType,
		//     int64_t requestedElementCount, int64_t *elementCount, void *arrayOfElements)
		{"cudnnBackendGetAttribute", &g.cudnnBackendGetAttribute},
		// cudnnStatus_t cudnnBackendExecute(cudnnHandle_t handle,
		//     cudnnBackendDescriptor_t executionPlan, cudnnBackendDescriptor_t variantPack)
		{"cudnnBackendExecute", &g.cudnnBackendExecute},
	}
}
