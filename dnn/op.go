package dnn

// Op names what a layer computes, as backends and the predictor know it
// (Desc.Op). It is the op column of profiles, so its values are stable.
type Op string

// The ops the layers of this package describe themselves as.
const (
	OpConv2D        Op = "conv2d"
	OpLinear        Op = "linear"
	OpMatMul        Op = "matmul"
	OpLSTM          Op = "lstm"
	OpEmbedding     Op = "embedding"
	OpSoftmax       Op = "softmax"
	OpAdd           Op = "add"
	OpConcat        Op = "concat"
	OpReshape       Op = "reshape"
	OpSelect        Op = "select"
	OpDropout       Op = "dropout"
	OpLRN           Op = "lrn"
	OpBatchNorm     Op = "batchnorm"
	OpLayerNorm     Op = "layernorm"
	OpInstanceNorm  Op = "instancenorm"
	OpNormalize     Op = "normalize"
	OpReLU          Op = "relu"
	OpLeakyReLU     Op = "leakyrelu"
	OpGELU          Op = "gelu"
	OpSigmoid       Op = "sigmoid"
	OpTanh          Op = "tanh"
	OpSiLU          Op = "silu"
	OpMaxPool       Op = "maxpool"
	OpAvgPool       Op = "avgpool"
	OpGlobalAvgPool Op = "globalavgpool"
	OpUpsample      Op = "upsample"
	OpPad           Op = "pad"
	// OpSource is a model's input (or a swept layer's): it computes
	// nothing.
	OpSource Op = "source"
)

// Ops lists every Op, in the order above.
func Ops() []Op {
	return []Op{OpConv2D, OpLinear, OpMatMul, OpLSTM, OpEmbedding, OpSoftmax, OpAdd, OpConcat, OpReshape,
		OpSelect, OpDropout, OpLRN, OpBatchNorm, OpLayerNorm, OpInstanceNorm, OpNormalize, OpReLU, OpLeakyReLU,
		OpGELU, OpSigmoid, OpTanh, OpSiLU, OpMaxPool, OpAvgPool, OpGlobalAvgPool, OpUpsample, OpPad, OpSource}
}

// AttrKey names an integer attribute of a Desc; which ops carry which is
// documented on each layer's Describe. A flag is 1 when set, 0 otherwise.
type AttrKey string

// Attrs are a layer's attributes.
type Attrs map[AttrKey]int

// The attributes the layers of this package describe.
const (
	// GEMMs: linear's K (in) and N (out); matmul's batch G, M, K, N and
	// whether B is transposed.
	AttrK      AttrKey = "k"
	AttrN      AttrKey = "n"
	AttrM      AttrKey = "m"
	AttrG      AttrKey = "g"
	AttrTransB AttrKey = "transb"
	AttrBias   AttrKey = "bias"
	AttrTied   AttrKey = "tied" // the weight is the embedding table's
	// Convolution: output channels, kernel, stride, padding, dilation,
	// groups. Pooling: k (kernel), stride, pad.
	AttrOut      AttrKey = "out"
	AttrKH       AttrKey = "kh"
	AttrKW       AttrKey = "kw"
	AttrStride   AttrKey = "stride"
	AttrPH       AttrKey = "ph"
	AttrPW       AttrKey = "pw"
	AttrPad      AttrKey = "pad"
	AttrDilation AttrKey = "dilation"
	AttrGroups   AttrKey = "groups"
	// LSTM: hidden width and stacked layers.
	AttrHidden AttrKey = "hidden"
	AttrLayers AttrKey = "layers"
	// Embedding: table size and width; frozen: no gradient for the table.
	AttrVocab  AttrKey = "vocab"
	AttrDim    AttrKey = "dim"
	AttrFrozen AttrKey = "frozen"
	// Softmax: scaled (fused 1/√d scale) and causal (masked).
	AttrScaled AttrKey = "scaled"
	AttrCausal AttrKey = "causal"
	// LRN: window size.
	AttrSize AttrKey = "size"
	// Upsample: factor; pad: the four sides.
	AttrF      AttrKey = "f"
	AttrLeft   AttrKey = "left"
	AttrRight  AttrKey = "right"
	AttrTop    AttrKey = "top"
	AttrBottom AttrKey = "bottom"
)
