package cuda

import (
	"fmt"

	"github.com/wb-sim/wb/dnn"
)

// Launch is one kernel launch of wb's own kernels (kernels.cu): the
// kernel's name, its grid and block, and its arguments in order: a
// string is the device pointer of the buffer of that name (OpProblem's
// Buffers), int64 a C long, int32 a C int, float32 a C float. Zero names
// the buffers of float values to set to 0 before the launch (the
// accumulators of atomic adds).
type Launch struct {
	Kernel      string
	Grid, Block [3]uint32
	Args        []any
	Zero        []string
}

// The launch shapes of kernels.cu.
const (
	elementwiseThreads = 256
	maxGridX           = 1 << 20 // elementwise kernels stride over the rest
	lnThreads          = 256     // LN_THREADS in kernels.cu
	lnParamChunk       = 64      // rows per block of wb_layernorm_bwd_params, at least
	maxGridY           = 65535   // CUDA's limit on a grid's second dimension
)

// lnChunk is the rows per block of wb_layernorm_bwd_params: 64, or more
// where 64 would need more than 65535 blocks down the rows.
func lnChunk(rows int64) int64 { return max(lnParamChunk, ceilDiv(rows, maxGridY)) }

// typeSuffix names the kernels' instantiation for a cudnnDataType_t.
func typeSuffix(dt int32) string {
	switch dt {
	case cudnnDataHalf:
		return "f16"
	case cudnnDataBFloat16:
		return "bf16"
	}
	return "f32"
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// elementwiseGrid is the grid of a grid-stride kernel over n values: 256
// threads a block, at most 2²⁰ blocks.
func elementwiseGrid(n int64) (grid, block [3]uint32) {
	return [3]uint32{uint32(max(1, min(ceilDiv(n, elementwiseThreads), maxGridX))), 1, 1}, [3]uint32{elementwiseThreads, 1, 1}
}

// SGD's constants as the update kernels take them.
var (
	sgdMu = float32(sgdMomentum)
	sgdLr = float32(sgdLR)
)

// Launches lists the kernel launches of one pass of a problem wb runs
// with its own kernels (OpKind.NVRTC), in order; none for other kinds and
// passes.
//
//   - gelu, leakyrelu: wb_<fn>_fwd_<type>(x, y, n), wb_<fn>_bwd_<type>(dy,
//     x, dx, n), 256 threads a block, at most 2²⁰ blocks (the kernels
//     stride over the rest);
//   - layernorm fwd: wb_layernorm_fwd_<type>(x, gamma, beta, y, mean,
//     rstd, d, eps), a block of 256 threads per row;
//   - layernorm bwd-data: wb_layernorm_bwd_<type>(dy, x, gamma, mean,
//     rstd, dx, d), a block per row, then dgamma and dbeta zeroed and
//     wb_layernorm_bwd_params_<type>(dy, x, mean, rstd, dgamma, dbeta,
//     rows, d, chunk): a thread per column, 64 rows per block (more when
//     that would make more than 65535 blocks);
//   - embedding fwd: wb_embedding_fwd_<type>(ids, table, y, rows, dim),
//     a thread per output value (grid-stride); bwd-weights: the
//     accumulator zeroed (dtable for fp32, dtable_acc otherwise),
//     wb_embedding_bwd_<type>(ids, dy, acc, rows, dim) adding each value
//     of dy into its token's row with a float atomic add, and for fp16
//     and bf16 wb_cast_f32_to_<type>(dtable_acc, dtable, vocab·dim);
//   - concat fwd: per input i, wb_copy2d_<type>(in_i, y, N, part_i,
//     part_i, 0, total, offset_i); bwd-data: wb_copy2d_<type>(dy, dx_i,
//     N, part_i, total, offset_i, part_i, 0);
//   - select fwd: wb_copy2d_<type>(x, y, N, D, T·D, 0, D, 0), token 0;
//     bwd-data: dx zeroed, wb_copy2d_<type>(dy, dx, N, D, D, 0, T·D, 0);
//   - upsample, pad: wb_resize_fwd_<type>(x, y, N·C, H, W, Ho, Wo, f, top,
//     left), a thread per output value; wb_resize_bwd_<type>(dy, dx, ...),
//     a thread per input value;
//   - dropout fwd: wb_dropout_fwd_<type>(x, y, mask, p, 1/(1−p), n,
//     seed); bwd-data: wb_dropout_bwd_<type>(dy, mask, dx, 1/(1−p), n);
//   - update, foreach (torch's default): wb_foreach_mul_f32(v, μ, n),
//     wb_foreach_add_f32(v, g, 1, n), wb_foreach_add_f32(w, v, −lr, n);
//     fused: wb_sgd_fused_f32(w, g, v, μ, lr, n).
func (p OpProblem) Launches(pass dnn.Pass) []Launch {
	t := typeSuffix(p.DataType)
	switch {
	case p.Kind == Embedding && pass == dnn.Forward:
		grid, block := elementwiseGrid(p.YElems())
		return []Launch{{Kernel: "wb_embedding_fwd_" + t, Grid: grid, Block: block,
			Args: []any{"ids", "table", "y", p.Rows, int32(p.Width)}}}
	case p.Kind == Embedding && pass == dnn.BackwardWeights && !p.Frozen:
		grid, block := elementwiseGrid(p.YElems())
		acc := "dtable"
		if p.DataType != cudnnDataFloat {
			acc = "dtable_acc"
		}
		ls := []Launch{{Kernel: "wb_embedding_bwd_" + t, Grid: grid, Block: block,
			Args: []any{"ids", "dy", acc, p.Rows, int32(p.Width)}, Zero: []string{acc}}}
		if acc != "dtable" {
			grid, block := elementwiseGrid(p.TableElems())
			ls = append(ls, Launch{Kernel: "wb_cast_f32_to_" + t, Grid: grid, Block: block, Args: []any{acc, "dtable", p.TableElems()}})
		}
		return ls
	case p.Kind == Update && pass == dnn.Update:
		n := p.ParamElems
		grid, block := elementwiseGrid(n)
		if p.UpdateMode == UpdateFused {
			return []Launch{{Kernel: "wb_sgd_fused_f32", Grid: grid, Block: block, Args: []any{"w", "g", "v", sgdMu, sgdLr, n}}}
		}
		return []Launch{
			{Kernel: "wb_foreach_mul_f32", Grid: grid, Block: block, Args: []any{"v", sgdMu, n}},
			{Kernel: "wb_foreach_add_f32", Grid: grid, Block: block, Args: []any{"v", "g", float32(1), n}},
			{Kernel: "wb_foreach_add_f32", Grid: grid, Block: block, Args: []any{"w", "v", -sgdLr, n}},
		}
	case p.Kind == Concat && (pass == dnn.Forward || pass == dnn.BackwardData):
		n, total := int64(p.X[0]), p.XElems()/int64(p.X[0])
		var ls []Launch
		var off int64
		for i, part := range p.Parts {
			grid, block := elementwiseGrid(n * part)
			l := Launch{Kernel: "wb_copy2d_" + t, Grid: grid, Block: block,
				Args: []any{fmt.Sprintf("in%d", i), "y", n, part, part, int64(0), total, off}}
			if pass == dnn.BackwardData {
				l.Args = []any{"dy", fmt.Sprintf("dx%d", i), n, part, total, off, part, int64(0)}
			}
			ls = append(ls, l)
			off += part
		}
		return ls
	case p.Kind == Select && (pass == dnn.Forward || pass == dnn.BackwardData):
		n, d := int64(p.X[0]), int64(p.Width)
		grid, block := elementwiseGrid(n * d)
		if pass == dnn.Forward {
			return []Launch{{Kernel: "wb_copy2d_" + t, Grid: grid, Block: block,
				Args: []any{"x", "y", n, d, p.Rows * d, int64(0), d, int64(0)}}}
		}
		return []Launch{{Kernel: "wb_copy2d_" + t, Grid: grid, Block: block,
			Args: []any{"dy", "dx", n, d, d, int64(0), p.Rows * d, int64(0)}, Zero: []string{"dx"}}}
	case p.Kind == Resize && (pass == dnn.Forward || pass == dnn.BackwardData):
		planes := int64(p.X[0]) * int64(p.X[1])
		args := []any{planes, p.X[2], p.X[3], p.Y[2], p.Y[3], int32(p.Factor), int32(p.Top), int32(p.Left)}
		if pass == dnn.Forward {
			grid, block := elementwiseGrid(p.YElems())
			return []Launch{{Kernel: "wb_resize_fwd_" + t, Grid: grid, Block: block, Args: append([]any{"x", "y"}, args...)}}
		}
		grid, block := elementwiseGrid(p.XElems())
		return []Launch{{Kernel: "wb_resize_bwd_" + t, Grid: grid, Block: block, Args: append([]any{"dy", "dx"}, args...)}}
	case p.Kind == Dropout && pass == dnn.Forward:
		grid, block := elementwiseGrid(p.XElems())
		return []Launch{{Kernel: "wb_dropout_fwd_" + t, Grid: grid, Block: block,
			Args: []any{"x", "y", "mask", p.Probability, p.dropoutScale(), p.XElems(), dropoutSeed}}}
	case p.Kind == Dropout && pass == dnn.BackwardData:
		grid, block := elementwiseGrid(p.XElems())
		return []Launch{{Kernel: "wb_dropout_bwd_" + t, Grid: grid, Block: block,
			Args: []any{"dy", "mask", "dx", p.dropoutScale(), p.XElems()}}}
	case p.Kind == Elementwise && (pass == dnn.Forward || pass == dnn.BackwardData):
		n := p.XElems()
		grid := [3]uint32{uint32(min(ceilDiv(n, elementwiseThreads), maxGridX)), 1, 1}
		block := [3]uint32{elementwiseThreads, 1, 1}
		if pass == dnn.Forward {
			return []Launch{{Kernel: fmt.Sprintf("wb_%s_fwd_%s", p.Fn, t), Grid: grid, Block: block, Args: []any{"x", "y", n}}}
		}
		return []Launch{{Kernel: fmt.Sprintf("wb_%s_bwd_%s", p.Fn, t), Grid: grid, Block: block, Args: []any{"dy", "x", "dx", n}}}
	case p.Kind == LayerNorm && pass == dnn.Forward:
		return []Launch{{Kernel: "wb_layernorm_fwd_" + t, Grid: [3]uint32{uint32(p.Rows), 1, 1}, Block: [3]uint32{lnThreads, 1, 1},
			Args: []any{"x", "gamma", "beta", "y", "mean", "rstd", int32(p.Width), float32(p.Epsilon)}}}
	case p.Kind == LayerNorm && pass == dnn.BackwardData:
		chunk := lnChunk(p.Rows)
		return []Launch{
			{Kernel: "wb_layernorm_bwd_" + t, Grid: [3]uint32{uint32(p.Rows), 1, 1}, Block: [3]uint32{lnThreads, 1, 1},
				Args: []any{"dy", "x", "gamma", "mean", "rstd", "dx", int32(p.Width)}},
			{Kernel: "wb_layernorm_bwd_params_" + t,
				Grid:  [3]uint32{uint32(ceilDiv(int64(p.Width), lnThreads)), uint32(ceilDiv(p.Rows, chunk)), 1},
				Block: [3]uint32{lnThreads, 1, 1},
				Args:  []any{"dy", "x", "mean", "rstd", "dgamma", "dbeta", int32(p.Rows), int32(p.Width), int32(chunk)},
				Zero:  []string{"dgamma", "dbeta"}},
		}
	}
	return nil
}

// dropoutSeed seeds dropout's draws (any value: the work is the same).
const dropoutSeed int64 = 0x5eed

// dropoutScale is what dropout multiplies the kept values by, 1/(1 − p).
func (p OpProblem) dropoutScale() float32 { return 1 / (1 - p.Probability) }

// PrepLaunches lists the launches one preparation of a pass runs once,
// before the timed runs, to set up what the pass reads: an embedding's
// token ids (wb_fill_ids(ids, rows, vocab): a hash of each position,
// uniform over the vocabulary, as a batch of real tokens would spread over
// the table's rows); dropout's mask for its backward pass (one forward
// run, dy into dx, writing the mask).
func (p OpProblem) PrepLaunches(pass dnn.Pass) []Launch {
	if p.Kind == Dropout && pass == dnn.BackwardData {
		grid, block := elementwiseGrid(p.XElems())
		return []Launch{{Kernel: "wb_dropout_fwd_" + typeSuffix(p.DataType), Grid: grid, Block: block,
			Args: []any{"dy", "dx", "mask", p.Probability, p.dropoutScale(), p.XElems(), dropoutSeed}}}
	}
	if p.Kind == Embedding && len(p.Launches(pass)) > 0 {
		grid, block := elementwiseGrid(p.Rows)
		return []Launch{{Kernel: "wb_fill_ids", Grid: grid, Block: block, Args: []any{"ids", p.Rows, int64(p.Vocab)}}}
	}
	return nil
}

// FillLaunch writes n pseudo-random values of type dt, about a standard
// normal's spread (in place of PyTorch's torch.randn inputs), to buffer
// buf: wb_fill_<type>(buf, n, seed), a hash of each index and the seed,
// grid-stride. The same seed gives the same values on every run.
func FillLaunch(dt int32, buf string, n, seed int64) Launch {
	grid, block := elementwiseGrid(n)
	return Launch{Kernel: "wb_fill_" + typeSuffix(dt), Grid: grid, Block: block, Args: []any{buf, n, seed}}
}

// ConvBiasGradLaunches computes a convolution's bias gradient as PyTorch
// does after cuDNN's filter gradient (grad_output.sum over {0, 2, 3}): db,
// k values of type dt, sums dy, an NCHW tensor of n × k planes of hw
// values, over its samples and planes. acc, k floats, is zeroed and
// accumulated by wb_conv_bias_grad_<type>(dy, acc, n, k, hw, chunk), a
// block of 256 threads per channel and per slice of the work, the n
// planes cut into chunks of convBiasChunk values, or, planes smaller than
// a block, taken a block's worth at a time (convBiasSlices slices a
// channel at most, and each slice about convBiasChunk values or more);
// for fp16 and bf16 (acc ≠ db) wb_cast_f32_to_<type>(acc, db, k) writes
// it in the precision.
func ConvBiasGradLaunches(dt int32, n, k, hw int64, dy, acc, db string) []Launch {
	t := typeSuffix(dt)
	ls := []Launch{{Kernel: "wb_conv_bias_grad_" + t,
		Grid:  [3]uint32{uint32(k), uint32(convBiasGrid(n, hw)), 1},
		Block: [3]uint32{lnThreads, 1, 1},
		Args:  []any{dy, acc, int32(n), int32(k), hw, int64(convBiasChunk)},
		Zero:  []string{acc}}}
	if acc != db {
		grid, block := elementwiseGrid(k)
		ls = append(ls, Launch{Kernel: "wb_cast_f32_to_" + t, Grid: grid, Block: block, Args: []any{acc, db, k}})
	}
	return ls
}

// convBiasGrid is the slices of a channel's n planes of hw values that
// wb_conv_bias_grad's blocks take: as many as its units of work (a plane's
// chunk; a block's worth of planes smaller than a block), at most
// convBiasSlices, and few enough that each sums about convBiasChunk values
// or more (a block a plane of 7×7 values, 512 channels by 256 samples,
// made 131,072 blocks of 49 values each).
func convBiasGrid(n, hw int64) int64 {
	units := n * ((hw + convBiasChunk - 1) / convBiasChunk)
	if hw < lnThreads {
		per := lnThreads / hw
		units = (n + per - 1) / per
	}
	return max(1, min(units, (n*hw+convBiasChunk-1)/convBiasChunk, convBiasSlices))
}

// convBiasSlices is the most blocks per channel of wb_conv_bias_grad
// (within gridDim.y's 65,535), convBiasChunk the values of a plane one
// block sums at a time (8 a thread): a 3-channel convolution's gradient of
// 256×256 planes runs on 96 blocks × the samples, up to 3,072, where one
// block a channel and sample sat on one SM each.
const (
	convBiasSlices = 1024
	convBiasChunk  = 8 * lnThreads
)

// BiasGradLaunches computes a linear layer's bias gradient after the
// weights' product, as eager PyTorch's reduction does (grad_output.sum(0);
// prepGemms): db, n values
// of type dt, is the sum of the rows of dy, rows × n. acc, n floats, is
// zeroed and then accumulated by wb_bias_grad_<type>(dy, acc, rows, n,
// chunk), a thread per column and chunk rows per block (as layer norm's
// parameters' gradients); for fp16 and bf16 (acc ≠ db)
// wb_cast_f32_to_<type>(acc, db, n) writes it in the precision.
func BiasGradLaunches(dt int32, rows, n int64, dy, acc, db string) []Launch {
	t := typeSuffix(dt)
	chunk := lnChunk(rows)
	ls := []Launch{{Kernel: "wb_bias_grad_" + t,
		Grid:  [3]uint32{uint32(ceilDiv(n, lnThreads)), uint32(ceilDiv(rows, chunk)), 1},
		Block: [3]uint32{lnThreads, 1, 1},
		Args:  []any{dy, acc, int32(rows), int32(n), int32(chunk)},
		Zero:  []string{acc}}}
	if acc != db {
		grid, block := elementwiseGrid(n)
		ls = append(ls, Launch{Kernel: "wb_cast_f32_to_" + t, Grid: grid, Block: block, Args: []any{acc, db, n}})
	}
	return ls
}
