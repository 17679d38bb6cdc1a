package cuda

import (
	"fmt"

	"github.com/wb-sim/wb/dnn"
)

// Enum values of the C APIs, from NVIDIA's headers (cudnn_graph.h and
// cudnn_cnn.h of cuDNN 9, library_types.h, cublas_api.h, cublasLt.h).
const (
	// cudnnDataType_t
	cudnnDataFloat    int32 = 0
	cudnnDataHalf     int32 = 2
	cudnnDataBFloat16 int32 = 9

	// cudnnMathType_t
	cudnnDefaultMath  int32 = 0
	cudnnTensorOpMath int32 = 1
	cudnnFMAMath      int32 = 3

	// cudnnTensorFormat_t, cudnnConvolutionMode_t
	cudnnTensorNCHW       int32 = 0
	cudnnCrossCorrelation int32 = 1

	// cudaDataType_t
	cudaR32F  int32 = 0
	cudaR16F  int32 = 2
	cudaR16BF int32 = 14

	// cublasComputeType_t
	cublasCompute32F         int32 = 68
	cublasCompute32FFastTF32 int32 = 77

	// cublasOperation_t
	cublasOpN int32 = 0
	cublasOpT int32 = 1
)

// ConvProblem is a 2-D convolution as cuDNN's legacy convolution API
// takes it: NCHW tensors, a KCRS filter, and the convolution's
// parameters, in one precision. PyTorch's nn.Conv2d is a cross-
// correlation, and so is this.
type ConvProblem struct {
	N, C, H, W int // input x [N, C, H, W]
	K, R, S    int // filter w [K, C/Groups, R, S]
	P, Q       int // output y [N, K, P, Q]
	PadH, PadW int
	Stride     int // both sides
	Dilation   int // both sides
	Groups     int
	// Bias: the layer has a bias of K values. The forward pass adds it
	// (cudnnAddTensor after the convolution, as PyTorch adds it after
	// cudnn_convolution), the weights' backward pass computes its
	// gradient (the sum of dy over N, P and Q, PyTorch's
	// grad_output.sum((0, 2, 3)): wb's reduction kernel).
	Bias        bool
	DataType    int32
	ComputeType int32 // the convolution descriptor's accumulation type
	MathType    int32
}

// ConvFor reads a conv2d layer's description for a batch and precision.
// The output size is computed as cuDNN computes it, and must be the
// description's. Precisions:
//
//   - fp32: CUDNN_DATA_FLOAT, FLOAT accumulation, CUDNN_FMA_MATH. cuDNN's
//     CUDNN_DEFAULT_MATH lets float convolutions use TF32 tensor cores on
//     Ampere and later, so strict fp32 needs FMA_MATH (PyTorch does the
//     same when torch.backends.cudnn.allow_tf32 is false).
//   - tf32: CUDNN_DATA_FLOAT, FLOAT accumulation, CUDNN_DEFAULT_MATH:
//     TF32 tensor cores permitted (PyTorch's default, allow_tf32 true).
//   - fp16, bf16: CUDNN_DATA_HALF or CUDNN_DATA_BFLOAT16 tensors and
//     filter, FLOAT accumulation, CUDNN_TENSOR_OP_MATH.
func ConvFor(d dnn.Desc, batch int, prec dnn.Precision) (ConvProblem, error) {
	if d.Op != dnn.OpConv2D {
		return ConvProblem{}, fmt.Errorf("conv: op %q is not conv2d", d.Op)
	}
	if len(d.In) != 1 || len(d.In[0]) != 3 || len(d.Out) != 3 {
		return ConvProblem{}, fmt.Errorf("conv2d wants one [C, H, W] input and a [O, Ho, Wo] output, got %v → %v", d.In, d.Out)
	}
	v, err := attrs(d, dnn.AttrOut, dnn.AttrKH, dnn.AttrKW, dnn.AttrStride, dnn.AttrPH, dnn.AttrPW, dnn.AttrDilation, dnn.AttrGroups)
	if err != nil {
		return ConvProblem{}, err
	}
	in := d.In[0]
	c := ConvProblem{N: batch, C: in[0], H: in[1], W: in[2], K: v[0], R: v[1], S: v[2], Stride: v[3],
		PadH: v[4], PadW: v[5], Dilation: v[6], Groups: v[7], Bias: d.Attr[dnn.AttrBias] == 1}
	if batch < 1 || c.Groups < 1 || c.Stride < 1 || c.Dilation < 1 || c.R < 1 || c.S < 1 || c.PadH < 0 || c.PadW < 0 ||
		c.C%c.Groups != 0 || c.K%c.Groups != 0 {
		return ConvProblem{}, fmt.Errorf("conv2d: inconsistent description %v → %v %v at batch %d", d.In, d.Out, d.Attr, batch)
	}
	c.P = convOut(c.H, c.R, c.PadH, c.Stride, c.Dilation)
	c.Q = convOut(c.W, c.S, c.PadW, c.Stride, c.Dilation)
	if c.K != d.Out[0] || c.P != d.Out[1] || c.Q != d.Out[2] {
		return ConvProblem{}, fmt.Errorf("conv2d: output [%d %d %d] computed from %v %v, described as %v", c.K, c.P, c.Q, d.In, d.Attr, d.Out)
	}
	c.DataType, c.ComputeType, c.MathType, err = convTypes(prec)
	return c, err
}

// convOut is cuDNN's output size of one side (the formula of
// cudnnGetConvolution2dForwardOutputDim and of PyTorch's nn.Conv2d).
func convOut(in, k, pad, stride, dilation int) int {
	return (in+2*pad-dilation*(k-1)-1)/stride + 1
}

func convTypes(prec dnn.Precision) (data, compute, math int32, err error) {
	switch prec {
	case dnn.FP32:
		return cudnnDataFloat, cudnnDataFloat, cudnnFMAMath, nil
	case dnn.TF32:
		return cudnnDataFloat, cudnnDataFloat, cudnnDefaultMath, nil
	case dnn.FP16:
		return cudnnDataHalf, cudnnDataFloat, cudnnTensorOpMath, nil
	case dnn.BF16:
		return cudnnDataBFloat16, cudnnDataFloat, cudnnTensorOpMath, nil
	}
	return 0, 0, 0, fmt.Errorf("unknown precision %q", prec)
}

// XDims, XStrides are the input tensor's NCHW dimensions and packed
// strides (cudnnSetTensorNdDescriptor's dimA and strideA).
func (c ConvProblem) XDims() [4]int32 { return dims4(c.N, c.C, c.H, c.W) }

// XStrides are the input's packed NCHW strides.
func (c ConvProblem) XStrides() [4]int32 { return packed(c.XDims()) }

// YDims are the output tensor's NCHW dimensions.
func (c ConvProblem) YDims() [4]int32 { return dims4(c.N, c.K, c.P, c.Q) }

// YStrides are the output's packed NCHW strides.
func (c ConvProblem) YStrides() [4]int32 { return packed(c.YDims()) }

// WDims are the filter's KCRS dimensions (cudnnSetFilter4dDescriptor's
// k, c, h, w): C is per group.
func (c ConvProblem) WDims() [4]int32 { return dims4(c.K, c.C/c.Groups, c.R, c.S) }

// Elems are the values of x, w and y.
func (c ConvProblem) Elems() (x, w, y int64) {
	return prod(c.XDims()), prod(c.WDims()), prod(c.YDims())
}

// BiasDims are the bias's (and its gradient's) dimensions, [1, K, 1, 1]:
// cudnnAddTensor broadcasts it over N, P and Q, and the bias gradient's
// reduction (an NVRTC kernel) sums dy to it.
func (c ConvProblem) BiasDims() [4]int32 { return dims4(1, c.K, 1, 1) }

// ConvBuffer is one device buffer of a convolution's pass.
type ConvBuffer struct {
	Name  string
	Elems int64
}

// Buffers lists the device buffers of one pass, in the order they are
// allocated: fwd x, w, y (and the bias b); bwd-data w, dy, dx;
// bwd-weights x, dy, dw (and the bias's gradient db). All are in the
// pass's precision, the bias as PyTorch keeps it in a model cast to it.
func (c ConvProblem) Buffers(pass dnn.Pass) []ConvBuffer {
	xn, wn, yn := c.Elems()
	k := int64(c.K)
	switch pass {
	case dnn.Forward:
		bs := []ConvBuffer{{"x", xn}, {"w", wn}, {"y", yn}}
		if c.Bias {
			bs = append(bs, ConvBuffer{"b", k})
		}
		return bs
	case dnn.BackwardData:
		return []ConvBuffer{{"w", wn}, {"dy", yn}, {"dx", xn}}
	case dnn.BackwardWeights:
		bs := []ConvBuffer{{"x", xn}, {"dy", yn}, {"dw", wn}}
		if c.Bias {
			bs = append(bs, ConvBuffer{"db", k})
		}
		return bs
	}
	return nil
}

func dims4(a, b, c, d int) [4]int32 { return [4]int32{int32(a), int32(b), int32(c), int32(d)} }

func packed(d [4]int32) [4]int32 {
	return [4]int32{d[1] * d[2] * d[3], d[2] * d[3], d[3], 1}
}

func prod(d [4]int32) int64 {
	n := int64(1)
	for _, v := range d {
		n *= int64(v)
	}
	return n
}

// Operand is a matrix of a product as it is stored: row-major Rows ×
// Cols, densely (the leading dimension is Cols), Batch copies one after
// another; Trans says the product reads its transpose.
type Operand struct {
	Buf        string // the buffer's name: "x", "w", "dy"
	Rows, Cols int
	Trans      bool
}

// Elems is the values of one copy.
func (o Operand) Elems() int64 { return int64(o.Rows) * int64(o.Cols) }

// Gemm is one matrix product C = op(A) · op(B), row-major as PyTorch
// lays out its tensors: C is M × N, op(A) M × K, op(B) K × N, Batch
// products with the operands' copies one after another.
type Gemm struct {
	Name    string // "Y = X·Wᵀ"
	M, N, K int
	Batch   int
	A, B, C Operand
	// DataType is the cudaDataType_t of A, B and C; ScaleType that of
	// alpha and beta; ComputeType the cublasComputeType_t.
	DataType, ScaleType, ComputeType int32
	// Bias, where not BiasNone, is the linear layer's bias: BiasAdd adds
	// it (N values, one per column of C) to every row of C as the
	// product's cuBLASLt epilogue; BiasGrad sums the rows of A's stored
	// matrix (dY, read transposed) into the bias's gradient (M values,
	// one per row of C) after the product, by wb's reduction kernel
	// (BiasGradLaunches). BiasBuf names its buffer, in the data type.
	Bias    BiasKind
	BiasBuf string
}

// BiasKind is what a product does with a linear layer's bias.
type BiasKind int

// What a product does with the bias.
const (
	BiasNone BiasKind = iota
	BiasAdd           // y = x·Wᵀ + b: CUBLASLT_EPILOGUE_BIAS, what PyTorch's addmm runs through cuBLASLt
	// db = Σ_rows dY after the plain dW = dYᵀ·X, as eager PyTorch runs
	// it: autograd's addmm backward is a product for dW and a separate
	// sum of grad_output over the rows for db (no cuBLASLt epilogue)
	BiasGrad
)

// LtLayout is a cuBLASLt matrix layout (column-major).
type LtLayout struct {
	Rows, Cols uint64
	Ld         int64
	Batch      int32
	Stride     int64 // CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, in elements
}

// LtProblem is a Gemm as cuBLASLt's column-major API takes it:
// D = op(A)·op(B), D m × n, with C = D in place.
type LtProblem struct {
	TransA, TransB int32 // cublasOperation_t
	M, N, K        uint64
	A, B, C        LtLayout
	ABuf, BBuf     string
	CBuf           string
	// Epilogue is CUBLASLT_MATMUL_DESC_EPILOGUE (ltEpilogueDefault, or
	// BIAS with BiasBuf set as CUBLASLT_MATMUL_DESC_BIAS_POINTER);
	// BiasLen is the bias's values: D's rows (m), as cublasLt.h requires.
	Epilogue uint32
	BiasBuf  string
	BiasLen  uint64
}

// Lt maps the row-major product to cuBLASLt: a row-major r × c matrix is
// the column-major c × r matrix of its transpose, so Cᵀ = op(B)ᵀ·op(A)ᵀ:
// cuBLASLt's A is our B, its B our A, with their transposition flags, and
// its m, n are our N, M.
func (g Gemm) Lt() LtProblem {
	layout := func(o Operand) LtLayout {
		l := LtLayout{Rows: uint64(o.Cols), Cols: uint64(o.Rows), Ld: int64(o.Cols), Batch: int32(g.Batch)}
		if g.Batch > 1 {
			l.Stride = o.Elems()
		}
		return l
	}
	op := func(t bool) int32 {
		if t {
			return cublasOpT
		}
		return cublasOpN
	}
	p := LtProblem{
		TransA: op(g.B.Trans), TransB: op(g.A.Trans),
		M: uint64(g.N), N: uint64(g.M), K: uint64(g.K),
		A: layout(g.B), B: layout(g.A), C: layout(g.C),
		ABuf: g.B.Buf, BBuf: g.A.Buf, CBuf: g.C.Buf,
		Epilogue: ltEpilogueDefault,
	}
	// Row-major C's columns are cuBLASLt's D rows (m = N), its rows D's
	// columns (n = M). Forward, the bias is per output feature, a column
	// of our C: a row of D, BIAS's broadcast. The bias's gradient is no
	// epilogue (BiasGrad: a reduction after the product).
	if g.Bias == BiasAdd {
		p.Epilogue, p.BiasBuf, p.BiasLen = ltEpilogueBias, g.BiasBuf, p.M
	}
	return p
}

// gemmTypes: fp32 is CUBLAS_COMPUTE_32F (no TF32), tf32
// CUBLAS_COMPUTE_32F_FAST_TF32 on fp32 data, fp16 and bf16 CUDA_R_16F or
// CUDA_R_16BF operands with fp32 accumulation (CUBLAS_COMPUTE_32F) and
// fp32 alpha and beta.
func gemmTypes(prec dnn.Precision) (data, scale, compute int32, err error) {
	switch prec {
	case dnn.FP32:
		return cudaR32F, cudaR32F, cublasCompute32F, nil
	case dnn.TF32:
		return cudaR32F, cudaR32F, cublasCompute32FFastTF32, nil
	case dnn.FP16:
		return cudaR16F, cudaR32F, cublasCompute32F, nil
	case dnn.BF16:
		return cudaR16BF, cudaR32F, cublasCompute32F, nil
	}
	return 0, 0, 0, fmt.Errorf("unknown precision %q", prec)
}

// GemmsFor lists the products one pass of a linear or matmul layer runs.
//
// linear, x [rows, k] (rows: the batch times the input's leading
// dimensions), the weight w [n, k] as PyTorch stores it, y [rows, n]:
//
//   - fwd: Y = X·Wᵀ;
//   - bwd-data: dX = dY·W;
//   - bwd-weights: dW = dYᵀ·X.
//
// matmul, a [g, m, k], b [g, k, n] (or [g, n, k] with transb), c [g, m,
// n], batch·g products:
//
//   - fwd: C = A·B (A·Bᵀ);
//   - bwd-data: both inputs' gradients, dA = dC·Bᵀ and dB = Aᵀ·dC (with
//     transb dA = dC·B and dB = dCᵀ·A);
//   - bwd-weights: nothing (a matmul has no parameters).
//
// A linear layer's bias (attribute bias = 1): its add is fused into the
// forward product as a cuBLASLt epilogue (CUBLASLT_EPILOGUE_BIAS, what
// PyTorch's addmm runs for nn.Linear through cublasLtMatmul); its
// gradient follows the weights' plain product as a reduction of dY over
// its rows (BiasGrad), as eager PyTorch's autograd computes it
// (grad_output.sum(0), a kernel of its own: see prepGemms).
func GemmsFor(d dnn.Desc, batch int, pass dnn.Pass, prec dnn.Precision) ([]Gemm, error) {
	if batch < 1 {
		return nil, fmt.Errorf("%s: batch %d, want at least 1", d.Op, batch)
	}
	data, scale, compute, err := gemmTypes(prec)
	if err != nil {
		return nil, err
	}
	var gs []Gemm
	switch d.Op {
	case dnn.OpLinear:
		gs, err = linearGemms(d, batch, pass)
	case dnn.OpMatMul:
		gs, err = matmulGemms(d, batch, pass)
	default:
		return nil, fmt.Errorf("op %q is not a matrix product", d.Op)
	}
	for i := range gs {
		gs[i].DataType, gs[i].ScaleType, gs[i].ComputeType = data, scale, compute
	}
	return gs, err
}

func linearGemms(d dnn.Desc, batch int, pass dnn.Pass) ([]Gemm, error) {
	v, err := attrs(d, dnn.AttrK, dnn.AttrN)
	if err != nil {
		return nil, err
	}
	k, n := v[0], v[1]
	if len(d.In) != 1 || k < 1 || n < 1 || d.In[0].Elems()%int64(k) != 0 || d.Out.Elems()%int64(n) != 0 ||
		d.In[0].Elems()/int64(k) != d.Out.Elems()/int64(n) {
		return nil, fmt.Errorf("linear: input %v, output %v, k %d, n %d", d.In, d.Out, k, n)
	}
	rows := batch * int(d.In[0].Elems()/int64(k))
	x := Operand{Buf: "x", Rows: rows, Cols: k}
	w := Operand{Buf: "w", Rows: n, Cols: k}
	bias := d.Attr[dnn.AttrBias] == 1
	switch pass {
	case dnn.Forward:
		wt := w
		wt.Trans = true
		g := Gemm{Name: "Y = X·Wᵀ", M: rows, N: n, K: k, Batch: 1, A: x, B: wt, C: Operand{Buf: "y", Rows: rows, Cols: n}}
		if bias {
			g.Name, g.Bias, g.BiasBuf = "Y = X·Wᵀ + b", BiasAdd, "b"
		}
		return []Gemm{g}, nil
	case dnn.BackwardData:
		return []Gemm{{Name: "dX = dY·W", M: rows, N: k, K: n, Batch: 1,
			A: Operand{Buf: "dy", Rows: rows, Cols: n}, B: w, C: Operand{Buf: "dx", Rows: rows, Cols: k}}}, nil
	case dnn.BackwardWeights:
		// dW = dYᵀ·X, then the rows of dY summed into db by wb's
		// reduction (prepGemms), not cuBLASLt's BGRADB epilogue, which
		// PyTorch's eager backward does not run.
		g := Gemm{Name: "dW = dYᵀ·X", M: n, N: k, K: rows, Batch: 1,
			A: Operand{Buf: "dy", Rows: rows, Cols: n, Trans: true}, B: x, C: Operand{Buf: "dw", Rows: n, Cols: k}}
		if bias {
			g.Name, g.Bias, g.BiasBuf = "dW = dYᵀ·X, db = Σ dY", BiasGrad, "db"
		}
		return []Gemm{g}, nil
	}
	return nil, nil
}

// BiasElems is the values of a product's bias (or its gradient): one per
// column of the row-major C when it adds the bias, per row of C when it
// computes the gradient (C is dW [n, k]); 0 without a bias.
func (g Gemm) BiasElems() int64 {
	switch g.Bias {
	case BiasAdd:
		return int64(g.N)
	case BiasGrad:
		return int64(g.M)
	}
	return 0
}

func matmulGemms(d dnn.Desc, batch int, pass dnn.Pass) ([]Gemm, error) {
	v, err := attrs(d, dnn.AttrG, dnn.AttrM, dnn.AttrK, dnn.AttrN, dnn.AttrTransB)
	if err != nil {
		return nil, err
	}
	g, m, k, n, transB := v[0], v[1], v[2], v[3], v[4] == 1
	if len(d.In) != 2 || g < 1 || m < 1 || k < 1 || n < 1 ||
		d.In[0].Elems() != int64(g*m*k) || d.In[1].Elems() != int64(g*k*n) || d.Out.Elems() != int64(g*m*n) {
		return nil, fmt.Errorf("matmul: inputs %v, output %v, attributes %v", d.In, d.Out, d.Attr)
	}
	count := batch * g
	a := Operand{Buf: "a", Rows: m, Cols: k}
	b := Operand{Buf: "b", Rows: k, Cols: n}
	if transB {
		b = Operand{Buf: "b", Rows: n, Cols: k, Trans: true}
	}
	dc := Operand{Buf: "dc", Rows: m, Cols: n}
	switch pass {
	case dnn.Forward:
		return []Gemm{{Name: "C = A·op(B)", M: m, N: n, K: k, Batch: count, A: a, B: b, C: Operand{Buf: "c", Rows: m, Cols: n}}}, nil
	case dnn.BackwardData:
		da := Gemm{Name: "dA = dC·op(B)ᵀ", M: m, N: k, K: n, Batch: count, A: dc, B: b, C: Operand{Buf: "da", Rows: m, Cols: k}}
		da.B.Trans = !b.Trans
		at := a
		at.Trans = true
		db := Gemm{Name: "dB = Aᵀ·dC", M: k, N: n, K: m, Batch: count, A: at, B: dc, C: Operand{Buf: "db", Rows: k, Cols: n}}
		if transB {
			dct := dc
			dct.Trans = true
			db = Gemm{Name: "dB = dCᵀ·A", M: n, N: k, K: m, Batch: count, A: dct, B: a, C: Operand{Buf: "db", Rows: n, Cols: k}}
		}
		return []Gemm{da, db}, nil
	}
	return nil, nil
}

// attrs reads integer attributes of a description.
func attrs(d dnn.Desc, keys ...dnn.AttrKey) ([]int, error) {
	out := make([]int, len(keys))
	for i, k := range keys {
		v, ok := d.Attr[k]
		if !ok {
			return nil, fmt.Errorf("%s: attribute %q missing", d.Op, k)
		}
		out[i] = v
	}
	return out, nil
}
