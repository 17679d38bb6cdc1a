// Package cpu is the profiler backend that runs layers on the CPU in pure
// Go: matrix products through gonum's SGEMM kernels (gonum's own
// implementation, no cgo), everything else in plain loops. Both are spread
// over GOMAXPROCS goroutines that wait for work by polling, as OpenMP
// runtimes do, so that a layer's time does not hang on how soon the
// operating system wakes a thread (see pool).
//
// # What it runs
//
// Each layer is read through its [dnn.Desc]. Every buffer is float32 and
// laid out as PyTorch lays it out, the batch first ([B, C, H, W], [B, T,
// D]), except where noted:
//
//   - conv2d: forward by im2col and one SGEMM per group for a chunk of
//     samples (weights [Out, C/G·kh·kw] × columns [C/G·kh·kw,
//     samples·Ho·Wo], then a scatter to [B, Out, Ho, Wo], the bias added
//     there). A chunk gathers samples until the product has 4096 columns
//     (one sample of 64×64 outputs or more is a chunk of its own, written
//     in place with no scatter; a 1×1, stride-1, unpadded convolution then
//     reads its input as the column matrix with no copy). Backward-data:
//     weightsᵀ × dY, the weights kept transposed (per group, C/G·kh·kw rows of Out/G),
//     then col2im; backward-weights: dY × columnsᵀ, accumulated over the
//     chunks, and the bias's sums.
//   - linear (tied or not): weights stored transposed, [K, N], so the
//     forward pass is a plain product x·Wᵀ = x × Wt; backward-data dY ×
//     Wtᵀ; backward-weights xᵀ × dY and the bias's column sums.
//   - matmul: one SGEMM per product, the products spread over the workers
//     when there are at least as many as workers; backward-data computes both inputs'
//     gradients.
//   - lstm: time-major buffers ([T, B, ·], PyTorch's nn.LSTM default),
//     weights stored transposed, PyTorch's gate order (i, f, g, o).
//     Forward: per layer, one SGEMM of the whole sequence's inputs with
//     W_ih, then per step the recurrent SGEMM with W_hh and the cell.
//     Backward-data is exact backpropagation through time: per step the
//     cell's backward and the recurrent SGEMM with W_hhᵀ, then one SGEMM
//     of all the gates' gradients with W_ihᵀ. Backward-weights: two SGEMMs
//     per layer (inputsᵀ × dG, previous hidden statesᵀ × dG) and the
//     biases' sums. The saved gates and states the backward passes read
//     are deterministic values in their ranges, not a forward pass's.
//   - batchnorm (training mode: batch statistics), layernorm, instancenorm
//     (no affine parameters), normalize (L2 over the last dimension), lrn
//     (PyTorch's defaults α = 1e-4, β = 0.75, k = 1): forward and backward,
//     the parameters' gradients computed in backward-data as dnn counts
//     them.
//   - relu, gelu (tanh approximation), sigmoid, tanh, silu, leakyrelu
//     (slope 0.2): forward and backward (sigmoid and tanh from their
//     output, the others from their input).
//   - softmax over the last dimension, with the attention scale (1/8) and
//     the causal mask when the layer fuses them; dropout (p = 0.1, a
//     counter-based hash per value, so the mask is deterministic); add;
//     concat; select (position 0); upsample (nearest); pad (zeros);
//     maxpool, avgpool (PyTorch's count_include_pad), globalavgpool;
//     embedding (gather forward; backward-weights zeroes the dense table
//     gradient and scatter-adds the rows).
//   - update, for any layer with parameters: SGD with momentum over
//     Params() values (v ← 0.9v + g, w ← w − 10⁻³v).
//
// gonum's SGEMM runs 1.5 to 5 times slower when its first operand is
// transposed, so no kernel asks for that: where a product needs Aᵀ·B (the
// weight gradients of linear and lstm, matmul's dB), A is transposed
// explicitly into a scratch buffer inside the timed run, one read and
// write of it, and the product runs plain.
//
// A pass whose dnn work is zero (a reshape; a sum's or an activation's
// backward-weights; the update of a layer without parameters; a frozen
// table's gradient) gets a kernel that does nothing, so every pass of
// every zoo layer prepares; the profiler skips such passes anyway. An op
// the backend does not know gives an error wrapping
// [profiler.ErrUnsupported] naming the op and the pass, and so do fp16 and
// bf16: the backend computes in fp32 only, and tf32 runs as fp32 (CPUs
// have no tf32 products).
//
// Buffers are filled from fixed PCG streams (one per 65,536 values of a
// buffer), so two preparations of one layer pass hold the same values. A
// preparation whose buffers would exceed Backend.MemLimit fails with
// [profiler.ErrOutOfMemory] before it fills (and so touches) any of them.
package cpu

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/profiler"
)

// DefaultMemLimit is the buffer limit when /proc/meminfo gives no
// MemTotal.
const DefaultMemLimit = 8 << 30

// Backend runs layer passes on the CPU.
type Backend struct {
	// MemLimit is the most bytes of buffers one preparation may allocate.
	// New sets it to half of the machine's MemTotal (/proc/meminfo), or to
	// DefaultMemLimit where that is unknown; set it before Prepare to
	// change it. Zero or less means DefaultMemLimit.
	MemLimit int64

	info profiler.DeviceInfo
}

var _ profiler.Backend = (*Backend)(nil)

// New makes the CPU backend. It always opens.
func New() (*Backend, error) {
	b := &Backend{MemLimit: DefaultMemLimit}
	if total, err := readMemTotal("/proc/meminfo"); err == nil && total > 0 {
		b.MemLimit = total / 2
	}
	b.info = profiler.DeviceInfo{
		Name:      deviceName(),
		Predictor: "cpu",
		Versions:  map[string]string{"go": runtime.Version(), "gonum": gonumVersion()},
	}
	return b, nil
}

// Name is "cpu".
func (b *Backend) Name() string { return "cpu" }

// Device names the processor, "cpu: AMD EPYC 7R13, 8 cores" ("8 cores, 16
// threads" with SMT, and ", GOMAXPROCS n" when the process may use fewer
// CPUs than it has), for the predictor's "cpu" entry, with the versions of
// Go and gonum.
func (b *Backend) Device() profiler.DeviceInfo { return b.info.Clone() }

// DeviceName describes this machine's processor as a CPU profile's device
// column does ("cpu: AMD EPYC 7R13, 8 cores").
func DeviceName() string { return deviceName() }

// Cores is the machine's physical cores, the distinct (physical id, core
// id) pairs of /proc/cpuinfo, whatever CPUs this process may use (the
// process's logical CPUs where it names none): PyTorch's default thread
// count on x86, cpuinfo_get_cores_count's.
func Cores() int {
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		defer f.Close()
		if n := countCores(f); n > 0 {
			return n
		}
	}
	return runtime.NumCPU()
}

// countCores counts the distinct (physical id, core id) pairs of a
// /proc/cpuinfo file, 0 where it names none.
func countCores(r io.Reader) int {
	seen := map[[2]string]bool{}
	var pkg string
	eachField(r, func(key, value string) {
		switch key {
		case "processor":
			pkg = ""
		case "physical id":
			pkg = value
		case "core id":
			seen[[2]string{pkg, value}] = true
		}
	})
	return len(seen)
}

// eachField calls fn with every "key: value" line of a /proc/cpuinfo file,
// both trimmed.
func eachField(r io.Reader, fn func(key, value string)) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		if key, value, ok := strings.Cut(sc.Text(), ":"); ok {
			fn(strings.TrimSpace(key), strings.TrimSpace(value))
		}
	}
}

// deviceName describes the processor from /proc/cpuinfo and the runtime.
func deviceName() string {
	model, cores, threads := "", 0, runtime.NumCPU()
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		model, cores, threads = parseCPUInfo(f, threads)
		f.Close()
	}
	if model == "" {
		model = runtime.GOARCH
	}
	name := fmt.Sprintf("cpu: %s, %d cores", model, cores)
	if threads != cores {
		name += fmt.Sprintf(", %d threads", threads)
	}
	if p := runtime.GOMAXPROCS(0); p < threads {
		name += fmt.Sprintf(", GOMAXPROCS %d", p)
	}
	return name
}

// parseCPUInfo reads the first processor's model name and, from its
// "siblings" and "cpu cores", how many of the logical CPUs this process
// may use are cores: logical CPUs / threads per core.
func parseCPUInfo(r io.Reader, logical int) (model string, cores, threads int) {
	siblings, perSocket := 0, 0
	eachField(r, func(key, value string) {
		switch key {
		case "model name":
			if model == "" {
				model = value
			}
		case "siblings":
			if siblings == 0 {
				siblings, _ = strconv.Atoi(value)
			}
		case "cpu cores":
			if perSocket == 0 {
				perSocket, _ = strconv.Atoi(value)
			}
		}
	})
	tpc := 1
	if perSocket > 0 && siblings >= perSocket {
		tpc = siblings / perSocket
	}
	return model, max(1, (logical+tpc-1)/tpc), logical
}

// readMemTotal reads MemTotal, in bytes, from a /proc/meminfo file.
func readMemTotal(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) != 2 || fields[1] != "kB" {
			return 0, fmt.Errorf("%s: MemTotal %q is not \"N kB\"", path, strings.TrimSpace(rest))
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: MemTotal: %w", path, err)
		}
		return kb << 10, nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("%s: no MemTotal line", path)
}

// gonumVersion is the version of gonum the binary is built with.
func gonumVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, m := range bi.Deps {
		if m.Path == "gonum.org/v1/gonum" {
			if m.Replace != nil {
				m = m.Replace
			}
			if m.Version != "" {
				return m.Version
			}
		}
	}
	return "unknown"
}

// Prepare allocates and fills the buffers of one pass of l and returns its
// kernel (see the package documentation for what each op runs).
func (b *Backend) Prepare(l dnn.Layer, batch int, pass dnn.Pass, prec dnn.Precision) (profiler.Kernel, error) {
	op := l.Op()
	switch prec {
	case dnn.FP32, dnn.TF32:
	case dnn.FP16, dnn.BF16:
		return nil, fmt.Errorf("cpu: %s %s in %s: %w: the CPU backend computes in fp32 only", op, pass, prec, profiler.ErrUnsupported)
	default:
		return nil, fmt.Errorf("cpu: %s %s: unknown precision %q", op, pass, prec)
	}
	if batch < 1 {
		return nil, fmt.Errorf("cpu: %s %s: batch %d, want at least 1", op, pass, batch)
	}
	switch pass {
	case dnn.Forward, dnn.BackwardData, dnn.BackwardWeights, dnn.Update:
	default:
		return nil, fmt.Errorf("cpu: %s: unknown pass %v", op, pass)
	}
	dl, ok := l.(dnn.Describer)
	if !ok {
		return nil, fmt.Errorf("cpu: %s %s: %w: the layer (%T) does not describe itself", op, pass, profiler.ErrUnsupported, l)
	}
	name := string(op) + " " + pass.String()
	if l.Work(batch, pass, prec) == (dnn.Work{}) {
		return &kernel{name: name, run: func(*pool) {}}, nil
	}
	limit := b.MemLimit
	if limit <= 0 {
		limit = DefaultMemLimit
	}
	a := &arena{limit: float64(limit), name: name, batch: batch}
	var run func(*pool)
	var err error
	if pass == dnn.Update {
		run = prepUpdate(a, l.Params())
	} else {
		run, err = prepOp(a, dl.Describe(), batch, pass)
	}
	if err != nil {
		return nil, fmt.Errorf("cpu: %s: %w", name, err)
	}
	if a.err != nil {
		return nil, fmt.Errorf("cpu: %s at batch %d: %w", name, batch, a.err)
	}
	a.fill()
	return &kernel{name: name, run: run, f: a.f, i64: a.i64, i32: a.i32, u8: a.u8}, nil
}

// prepOp dispatches on the op.
func prepOp(a *arena, d dnn.Desc, batch int, pass dnn.Pass) (func(*pool), error) {
	var run func(*pool)
	var err error
	switch d.Op {
	case dnn.OpConv2D:
		run, err = prepConv(a, d, batch, pass)
	case dnn.OpLinear:
		run, err = prepLinear(a, d, batch, pass)
	case dnn.OpMatMul:
		run, err = prepMatMul(a, d, batch, pass)
	case dnn.OpLSTM:
		run, err = prepLSTM(a, d, batch, pass)
	case dnn.OpReLU, dnn.OpGELU, dnn.OpSigmoid, dnn.OpTanh, dnn.OpSiLU, dnn.OpLeakyReLU:
		run, err = prepActivation(a, d, batch, pass)
	case dnn.OpBatchNorm, dnn.OpInstanceNorm:
		run, err = prepChannelNorm(a, d, batch, pass)
	case dnn.OpLayerNorm, dnn.OpNormalize:
		run, err = prepRowNorm(a, d, batch, pass)
	case dnn.OpLRN:
		run, err = prepLRN(a, d, batch, pass)
	case dnn.OpSoftmax:
		run, err = prepSoftmax(a, d, batch, pass)
	case dnn.OpDropout:
		run, err = prepDropout(a, d, batch, pass)
	case dnn.OpAdd:
		run, err = prepAdd(a, d, batch, pass)
	case dnn.OpConcat:
		run, err = prepConcat(a, d, batch, pass)
	case dnn.OpSelect:
		run, err = prepSelect(a, d, batch, pass)
	case dnn.OpUpsample, dnn.OpPad:
		run, err = prepResize(a, d, batch, pass)
	case dnn.OpMaxPool, dnn.OpAvgPool, dnn.OpGlobalAvgPool:
		run, err = prepPool(a, d, batch, pass)
	case dnn.OpEmbedding:
		run, err = prepEmbedding(a, d, batch, pass)
	default:
		return nil, unsupportedPass(d.Op, pass)
	}
	return run, err
}

// unsupportedPass is the error of an op's preparation for a pass it has
// no kernel for.
func unsupportedPass(op dnn.Op, pass dnn.Pass) error {
	return fmt.Errorf("%w: no CPU kernel for op %q, pass %s", profiler.ErrUnsupported, op, pass)
}
