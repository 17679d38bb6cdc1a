package cuda

import "testing"

// TestEnumValues pins every enum value the package passes to the
// libraries to the value in the NVIDIA header that defines it. Checked
// against cuda.h, cudnn_graph.h, cudnn_ops.h, cudnn_cnn.h, cudnn_adv.h
// and cublasLt.h as shipped with CUDA 12.6 and cuDNN 9.6.0; library_types.h's and
// cublas_api.h's values against verbatim copies of those enums in
// public bindings (they have not changed since CUDA 11). A change here is
// a change of ABI, never a refactoring.
func TestEnumValues(t *testing.T) {
	for _, tc := range []struct {
		c, header string
		got, want int32
	}{
		// cudnn_graph.h: cudnnDataType_t
		{"CUDNN_DATA_FLOAT", "cudnn_graph.h", cudnnDataFloat, 0},
		{"CUDNN_DATA_HALF", "cudnn_graph.h", cudnnDataHalf, 2},
		{"CUDNN_DATA_BFLOAT16", "cudnn_graph.h", cudnnDataBFloat16, 9},
		// cudnn_graph.h: cudnnMathType_t
		{"CUDNN_DEFAULT_MATH", "cudnn_graph.h", cudnnDefaultMath, 0},
		{"CUDNN_TENSOR_OP_MATH", "cudnn_graph.h", cudnnTensorOpMath, 1},
		{"CUDNN_FMA_MATH", "cudnn_graph.h", cudnnFMAMath, 3},
		// cudnn_graph.h: cudnnTensorFormat_t, cudnnConvolutionMode_t, cudnnNanPropagation_t
		{"CUDNN_TENSOR_NCHW", "cudnn_graph.h", cudnnTensorNCHW, 0},
		{"CUDNN_CROSS_CORRELATION", "cudnn_graph.h", cudnnCrossCorrelation, 1},
		{"CUDNN_NOT_PROPAGATE_NAN", "cudnn_graph.h", cudnnNotPropagateNaN, 0},
		// cudnn_graph.h: cudnnActivationMode_t
		{"CUDNN_ACTIVATION_SIGMOID", "cudnn_graph.h", cudnnActivationSigmoid, 0},
		{"CUDNN_ACTIVATION_RELU", "cudnn_graph.h", cudnnActivationRelu, 1},
		{"CUDNN_ACTIVATION_TANH", "cudnn_graph.h", cudnnActivationTanh, 2},
		{"CUDNN_ACTIVATION_SWISH", "cudnn_graph.h", cudnnActivationSwish, 6},
		// cudnn_ops.h: cudnnPoolingMode_t
		{"CUDNN_POOLING_MAX", "cudnn_ops.h", cudnnPoolingMax, 0},
		{"CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING", "cudnn_ops.h", cudnnPoolingAverageCountIncludePadding, 1},
		{"CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING", "cudnn_ops.h", cudnnPoolingAverageCountExcludePadding, 2},
		// cudnn_ops.h: cudnnSoftmaxAlgorithm_t, cudnnSoftmaxMode_t
		{"CUDNN_SOFTMAX_ACCURATE", "cudnn_ops.h", cudnnSoftmaxAccurate, 1},
		{"CUDNN_SOFTMAX_MODE_CHANNEL", "cudnn_ops.h", cudnnSoftmaxModeChannel, 1},
		// cudnn_ops.h: cudnnBatchNormMode_t, cudnnOpTensorOp_t
		{"CUDNN_BATCHNORM_SPATIAL", "cudnn_ops.h", cudnnBatchNormSpatial, 1},
		{"CUDNN_OP_TENSOR_ADD", "cudnn_ops.h", cudnnOpTensorAdd, 0},
		// library_types.h: cudaDataType_t
		{"CUDA_R_32F", "library_types.h", cudaR32F, 0},
		{"CUDA_R_16F", "library_types.h", cudaR16F, 2},
		{"CUDA_R_16BF", "library_types.h", cudaR16BF, 14},
		// cublas_api.h: cublasComputeType_t, cublasOperation_t
		{"CUBLAS_COMPUTE_32F", "cublas_api.h", cublasCompute32F, 68},
		{"CUBLAS_COMPUTE_32F_FAST_TF32", "cublas_api.h", cublasCompute32FFastTF32, 77},
		{"CUBLAS_OP_N", "cublas_api.h", cublasOpN, 0},
		{"CUBLAS_OP_T", "cublas_api.h", cublasOpT, 1},
		// cublasLt.h: cublasLtMatmulDescAttributes_t, cublasLtMatrixLayoutAttribute_t,
		// cublasLtMatmulPreferenceAttributes_t
		{"CUBLASLT_MATMUL_DESC_TRANSA", "cublasLt.h", ltMatmulDescTransA, 3},
		{"CUBLASLT_MATMUL_DESC_TRANSB", "cublasLt.h", ltMatmulDescTransB, 4},
		{"CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT", "cublasLt.h", ltLayoutBatchCount, 5},
		{"CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET", "cublasLt.h", ltLayoutStridedBatchOffset, 6},
		{"CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES", "cublasLt.h", ltPrefMaxWorkspaceBytes, 1},
		// cublasLt.h: cublasLtMatmulDescAttributes_t (the epilogue and its bias)
		{"CUBLASLT_MATMUL_DESC_EPILOGUE", "cublasLt.h", ltMatmulDescEpilogue, 7},
		{"CUBLASLT_MATMUL_DESC_BIAS_POINTER", "cublasLt.h", ltMatmulDescBiasPointer, 8},
		// cublasLt.h: cublasLtEpilogue_t
		{"CUBLASLT_EPILOGUE_DEFAULT", "cublasLt.h", int32(ltEpilogueDefault), 1},
		{"CUBLASLT_EPILOGUE_BIAS", "cublasLt.h", int32(ltEpilogueBias), 4},
		{"CUBLASLT_EPILOGUE_BGRADB", "cublasLt.h", int32(ltEpilogueBGradB), 512},
		// cudnn_adv.h: the RNN API's enums, and the auxFlags bit
		{"CUDNN_RNN_ALGO_STANDARD", "cudnn_adv.h", cudnnRNNAlgoStandard, 0},
		{"CUDNN_LSTM", "cudnn_adv.h", cudnnLSTM, 2},
		{"CUDNN_RNN_DOUBLE_BIAS", "cudnn_adv.h", cudnnRNNDoubleBias, 2},
		{"CUDNN_UNIDIRECTIONAL", "cudnn_adv.h", cudnnUnidirectional, 0},
		{"CUDNN_LINEAR_INPUT", "cudnn_adv.h", cudnnLinearInput, 0},
		{"CUDNN_FWD_MODE_TRAINING", "cudnn_adv.h", cudnnFwdModeTraining, 1},
		{"CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED", "cudnn_adv.h", cudnnRNNDataSeqMajorUnpacked, 0},
		{"CUDNN_RNN_PADDED_IO_ENABLED", "cudnn_adv.h", int32(cudnnRNNPaddedIOEnabled), 1},
		{"CUDNN_WGRAD_MODE_ADD", "cudnn_adv.h", cudnnWgradModeAdd, 0},
		// cuda.h: CUdevice_attribute
		{"CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE", "cuda.h", cuDeviceAttributeL2CacheSize, 38},
		{"CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR", "cuda.h", cuDeviceAttributeComputeCapabilityMajor, 75},
		{"CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR", "cuda.h", cuDeviceAttributeComputeCapabilityMinor, 76},
		// cuda.h: CUstream_flags
		{"CU_STREAM_NON_BLOCKING", "cuda.h", int32(cuStreamNonBlocking), 1},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %d, want %d (%s)", tc.c, tc.got, tc.want, tc.header)
		}
	}
}
