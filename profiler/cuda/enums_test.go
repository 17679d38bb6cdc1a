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
		// cudnn_graph.h (cuDNN 9): cudnnBackendDescriptorType_t, counted from
		// CUDNN_BACKEND_POINTWISE_DESCRIPTOR = 0
		{"CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR", "cudnn_graph.h", cudnnBackendConvolutionDescriptor, 1},
		{"CUDNN_BACKEND_ENGINECFG_DESCRIPTOR", "cudnn_graph.h", cudnnBackendEngineCfgDescriptor, 3},
		{"CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR", "cudnn_graph.h", cudnnBackendEngineHeurDescriptor, 4},
		{"CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR", "cudnn_graph.h", cudnnBackendExecutionPlanDescriptor, 5},
		{"CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR", "cudnn_graph.h", cudnnBackendOpConvForwardDescriptor, 10},
		{"CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR", "cudnn_graph.h", cudnnBackendOpConvBwdFilterDescriptor, 11},
		{"CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR", "cudnn_graph.h", cudnnBackendOpConvBwdDataDescriptor, 12},
		{"CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR", "cudnn_graph.h", cudnnBackendOperationGraphDescriptor, 15},
		{"CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR", "cudnn_graph.h", cudnnBackendVariantPackDescriptor, 16},
		{"CUDNN_BACKEND_TENSOR_DESCRIPTOR", "cudnn_graph.h", cudnnBackendTensorDescriptor, 17},
		// cudnn_graph.h: cudnnBackendAttributeType_t, counted from CUDNN_TYPE_HANDLE = 0
		{"CUDNN_TYPE_HANDLE", "cudnn_graph.h", cudnnTypeHandle, 0},
		{"CUDNN_TYPE_DATA_TYPE", "cudnn_graph.h", cudnnTypeDataType, 1},
		{"CUDNN_TYPE_INT64", "cudnn_graph.h", cudnnTypeInt64, 3},
		{"CUDNN_TYPE_FLOAT", "cudnn_graph.h", cudnnTypeFloat, 4},
		{"CUDNN_TYPE_VOID_PTR", "cudnn_graph.h", cudnnTypeVoidPtr, 6},
		{"CUDNN_TYPE_CONVOLUTION_MODE", "cudnn_graph.h", cudnnTypeConvolutionMode, 7},
		{"CUDNN_TYPE_HEUR_MODE", "cudnn_graph.h", cudnnTypeHeurMode, 8},
		{"CUDNN_TYPE_BACKEND_DESCRIPTOR", "cudnn_graph.h", cudnnTypeBackendDescriptor, 15},
		// cudnn_graph.h: cudnnBackendHeurMode_t
		{"CUDNN_HEUR_MODE_A", "cudnn_graph.h", cudnnHeurModeA, 3},
		// cudnn_graph.h: cudnnBackendAttributeName_t
		{"CUDNN_ATTR_CONVOLUTION_COMP_TYPE", "cudnn_graph.h", cudnnAttrConvolutionCompType, 100},
		{"CUDNN_ATTR_CONVOLUTION_CONV_MODE", "cudnn_graph.h", cudnnAttrConvolutionConvMode, 101},
		{"CUDNN_ATTR_CONVOLUTION_DILATIONS", "cudnn_graph.h", cudnnAttrConvolutionDilations, 102},
		{"CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES", "cudnn_graph.h", cudnnAttrConvolutionFilterStrides, 103},
		{"CUDNN_ATTR_CONVOLUTION_POST_PADDINGS", "cudnn_graph.h", cudnnAttrConvolutionPostPaddings, 104},
		{"CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS", "cudnn_graph.h", cudnnAttrConvolutionPrePaddings, 105},
		{"CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS", "cudnn_graph.h", cudnnAttrConvolutionSpatialDims, 106},
		{"CUDNN_ATTR_ENGINEHEUR_MODE", "cudnn_graph.h", cudnnAttrEngineHeurMode, 200},
		{"CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH", "cudnn_graph.h", cudnnAttrEngineHeurOperationGraph, 201},
		{"CUDNN_ATTR_ENGINEHEUR_RESULTS", "cudnn_graph.h", cudnnAttrEngineHeurResults, 202},
		{"CUDNN_ATTR_EXECUTION_PLAN_HANDLE", "cudnn_graph.h", cudnnAttrExecutionPlanHandle, 400},
		{"CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG", "cudnn_graph.h", cudnnAttrExecutionPlanEngineCfg, 401},
		{"CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE", "cudnn_graph.h", cudnnAttrExecutionPlanWorkspace, 402},
		{"CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA", "cudnn_graph.h", cudnnAttrConvFwdAlpha, 700},
		{"CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA", "cudnn_graph.h", cudnnAttrConvBwdDataAlpha, 706},
		{"CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA", "cudnn_graph.h", cudnnAttrConvBwdFilterAlpha, 712},
		{"CUDNN_ATTR_OPERATIONGRAPH_HANDLE", "cudnn_graph.h", cudnnAttrOperationGraphHandle, 800},
		{"CUDNN_ATTR_OPERATIONGRAPH_OPS", "cudnn_graph.h", cudnnAttrOperationGraphOps, 801},
		{"CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT", "cudnn_graph.h", cudnnAttrTensorByteAlignment, 900},
		{"CUDNN_ATTR_TENSOR_DATA_TYPE", "cudnn_graph.h", cudnnAttrTensorDataType, 901},
		{"CUDNN_ATTR_TENSOR_DIMENSIONS", "cudnn_graph.h", cudnnAttrTensorDimensions, 902},
		{"CUDNN_ATTR_TENSOR_STRIDES", "cudnn_graph.h", cudnnAttrTensorStrides, 903},
		{"CUDNN_ATTR_TENSOR_UNIQUE_ID", "cudnn_graph.h", cudnnAttrTensorUniqueID, 906},
		{"CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS", "cudnn_graph.h", cudnnAttrVariantPackUniqueIDs, 1000},
		{"CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS", "cudnn_graph.h", cudnnAttrVariantPackDataPointers, 1001},
		{"CUDNN_ATTR_VARIANT_PACK_WORKSPACE", "cudnn_graph.h", cudnnAttrVariantPackWorkspace, 1003},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %d, want %d (%s)", tc.c, tc.got, tc.want, tc.header)
		}
	}
}
