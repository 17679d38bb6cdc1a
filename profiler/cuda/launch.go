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

// Launches lists the kernel launches of one pass of an Elementwise or
// LayerNorm problem, in order; none for other kinds and passes.
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
//     that would make more than 65535 blocks).
func (p OpProblem) Launches(pass dnn.Pass) []Launch {
	t := typeSuffix(p.DataType)
	switch {
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
