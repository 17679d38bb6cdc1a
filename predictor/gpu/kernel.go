// Package gpu predicts the time of DNN ops on NVIDIA GPUs described by a spec
// sheet alone, and of whole iterations built from them.
//
// Each op has an analytical time that knows how a GPU runs it:
//
//   - matrix products (linear, bmm, and convolutions as implicit GEMMs) are
//     cut into output tiles of cuBLAS's fp32 kernels (128×128 down to 32×32);
//     the tiles run in waves of SMs × tiles-per-SM, the last wave possibly
//     partial; the tile that finishes first is taken, as cuBLAS's heuristics
//     aim to; on SMs of 128 fp32 lanes an FFMA issues in one cycle, so the
//     product's other instructions cost lanes (DualIssue); the product
//     cannot beat its memory traffic at full bandwidth;
//   - elementwise ops, softmax and layer norm move their bytes at the
//     memory bandwidth;
//   - every kernel costs the GPU 2 µs to start (Launch).
//
// A learned correction, gradient-boosted trees per op family, predicts
// log(measured / analytical) from features that do not name a GPU: for
// products the waves, the last wave's fill, tile efficiency, the reduction
// depth, the sides, the tile, compute against memory time and the
// analytical time; for the other ops the elements per thread, the working
// set against L2 (where caching speeds small ops up), the row shape and the
// analytical time. An op timed alone takes max(floor, floor − overlap +
// kernel) (Measured): the host's floor of launching and timing one op, of
// which the kernel overlaps the last 16–26 µs; the kernel's time is taken
// out of each measurement that way before learning. Trained on the five
// GPUs of NeuSight's measurements (and a sixth's convolutions, the A100
// 80GB's), it reaches a GPU it has not seen through
// those features; what a GPU's own efficiency level is (the power-limited
// T4 and P4 run products at half the level of the V100 and A100) no spec
// sheet figure tells, and the correction carries the training GPUs' mean.
// Three more were tried and left out, none lowering bmm's or linear's
// leave-one-GPU-out MAPE by more than 1.4 points: the tile of the kernel cuBLAS
// really ran (its name in the measurements) in place of the analytical
// tile; the GPU's bytes per SM-cycle as a feature; four times the rows per
// op and GPU. Later (docs/prediction.md): a signed output-width/rows ratio (bmm and
// linear half a point better, the A100's labels 2 points worse); a tile's
// operand panels against L2 and its FLOPs per byte against the sheet's
// balance (features that tell the GPUs apart, and carry each one's level
// to the others: the T4 13% → 29%); the trees fitted with each training
// GPU's mean per family removed (the A100 5% → 20%).
// A power law was tried and left out: a clock limited by TDP / (lanes ×
// clock × energy per lane-cycle), the energy scaled by process node with
// the exponent read off the P100 SXM2's and H100 SXM's sheets and its scale
// fitted on the training GPUs, explains the levels in sample but not
// leaving a GPU out (Turing's T4 spends half the energy per lane-cycle of
// Pascal's P4, far more than 12 nm against 16 nm: T4's error rose from 10%
// to 38%).
package gpu

import (
	"fmt"
	"math"

	"github.com/wb-sim/wb/datasets/neusight"
	"github.com/wb-sim/wb/predictor"
)

// Spec is a GPU as the model sees it: the figures of a spec sheet, in SI
// units.
type Spec struct {
	Name       string
	SMs        int
	LanesPerSM int     // fp32 lanes per SM
	ClockMHz   float64 // boost clock
	FP32       float64 // peak FLOP/s
	Bandwidth  float64 // bytes/s
	L2         float64 // bytes
	Memory     float64 // bytes (a sheet's "GB" of device memory are GiB, as the device table counts them)

	// Level is the GPU's own speed where the model's sheet-based times
	// miss it, read off measurements of the GPU ([Model.LevelOf]): zero
	// (none) from a sheet alone.
	Level Level
}

// Level is how much slower (positive) or faster than the model predicts
// from its sheet a GPU runs its kernels: natural logs of the factor on the
// kernel time of products (linear layers, batched products, convolutions)
// and of every other kernel, which its memory bandwidth times. No sheet
// field gives it (the share of its bandwidth and of its fp32 peak a GPU's
// kernels reach varies by 20–40% between GPUs: [SheetShares]); a GPU's own
// measurements do ([Model.LevelOf]). A product at a level is still never
// timed under its FLOPs at the GPU's fp32 peak ([Model.Kernel]), and a
// kernel timed without a model (analytical alone) takes no level.
type Level struct {
	Products, Bandwidth float64
}

// SpecOf converts a spec sheet.
func SpecOf(d neusight.Device) Spec {
	return Spec{Name: d.Name, SMs: d.SMs, LanesPerSM: d.LanesPerSM, ClockMHz: d.ClockMHz,
		FP32: d.FP32GFLOPs * 1e9, Bandwidth: d.BandwidthGB * 1e9, L2: d.L2MB * (1 << 20), Memory: d.MemGB * (1 << 30)}
}

// Validate checks that every figure is positive.
func (s Spec) Validate() error {
	if s.SMs < 1 || s.LanesPerSM < 1 || !(s.ClockMHz > 0) || !(s.FP32 > 0) || !(s.Bandwidth > 0) || !(s.L2 > 0) {
		return fmt.Errorf("gpu: spec sheet %q: SMs, lanes per SM, clock, fp32 peak, bandwidth and L2 must be positive", s.Name)
	}
	return nil
}

// Kernel is one op as the model times it. Products use the usual names: Batch
// products of (M × K)·(K × N), K the reduction.
type Kernel struct {
	Op string // family: linear, bmm, conv, ln, softmax, an elementwise op, or embedding

	Batch, M, N, K int
	Bias           bool // linear: add a bias row

	Rows, Width int // ln, softmax: Rows rows of Width; elementwise: Rows×Width elements

	// Inputs counts the tensors an elementwise op reads (a scalar operand
	// is not one); Outputs those it writes (default 1).
	Inputs, Outputs int
	// Extra counts the further tensors of its size a layer norm or softmax
	// reads and writes: the elementwise ops fused into it (Fuse).
	Extra int
	// Reuse counts the inputs of an elementwise op that an earlier op of
	// its run already read (GELU's x·(…) reads x again): a fused kernel
	// reads them once.
	Reuse int

	// SharedInput marks a product whose activation operand (a linear's
	// input; a batched product's left one) an earlier kernel of its
	// block keeps for the backward already: queries, keys and values
	// projected from one input, a gate and its up projection, attention's
	// weighted sum reading the softmax's output itself. Activations counts
	// such a tensor once; the timing ignores it.
	SharedInput bool

	// View marks a reshape that is a view in the forward pass, where the
	// same reshape of another shape copies (torch.matmul's of attention's
	// permuted heads for one sequence, or for one token where a sequence's
	// heads lie together: the batch dimensions merge without a copy); no
	// kernel runs in the forward, and its backward is Grad's (the gradient
	// laid out back: a copy, none at one token). A split's gradients
	// joined by a cat are one too.
	View bool
	// GradReduce is how many values of the gradient a GradExpand
	// kernel's backward sums into one.
	GradReduce int

	// Conv: Images square inputs of Size, kernel Kern, channels InC → OutC;
	// its implicit GEMM is set by [ConvKernel].
	Images, Size, Kern, Stride, Pad, InC, OutC int
	// Implicit marks a convolution pass of a layer unlike every one the
	// convolution measurements hold (3×3, stride 1, where cuDNN runs
	// most as Winograd): its correction is the product families', for the
	// product its implicit GEMM computes (see Model.Kernel).
	Implicit bool

	// Table is an embedding's rows (its vocabulary): the backward writes
	// a dense gradient of Table × Width.
	Table int
	// Reduce is how many values each output of a reduction sums (a
	// bias's gradient sums the rows of its product's output): the kernel
	// writes Rows×Width / Reduce values.
	Reduce int
	// Grad says what the kernel's backward launches where it is not what
	// its op's is (Backward).
	Grad Grad
	// AccRows × AccWidth and AccVecs vectors of AccVecWidth are the
	// parameters whose gradients the kernel's backward adds into the
	// gradients of the runs before it (autograd's AccumulateGrad,
	// grad += new, one kernel a tensor), as NeuSight's training loop,
	// which never zeroes them, times every run after its first: a
	// product's weight [out, in] and bias, a norm's scale and shift, an
	// embedding's table (see accumulateGrads).
	AccRows, AccWidth, AccVecs, AccVecWidth int
	// Sums counts the further gradients of the kernel's input that
	// autograd adds into its gradient in the backward pass: an input that
	// other kernels read too (queries, keys and values projected from one
	// input; a residual stream read by a sub-layer and by the residual
	// add), whose gradients InputBuffer sums, one add of the input's size
	// each.
	Sums int
	// Loss marks the product whose output, M × N logits, the cross-entropy
	// reads: NeuSight computes the loss between its timed forward and
	// backward, but `loss.backward()` runs its gradient, a fill of the
	// logits' gradient (nll_loss's) and a log-softmax backward over them,
	// before the product's own (see lossBackward).
	Loss bool

	// ReadStride is, for an elementwise op that reads one of its inputs across
	// that input's layout, how many values apart in memory it reads them
	// for consecutive outputs (0: every input read in order): past 8 fp32
	// values each read costs a whole 32-byte sector of traffic (T5's
	// relative position bias, kept with its heads innermost, added to
	// scores laid out heads outermost: a stride of the heads; see
	// lowerSwitch). Plane is how many outputs the kernel writes between
	// two reads of one sector: while their traffic fits in L2 a sector is
	// read from memory once (stridedFactor).
	ReadStride, Plane int
}

// Sector is the unit, in bytes, in which an NVIDIA GPU's loads reach L2 and
// memory: a warp whose 32 lanes read 4-byte values a sector or more apart
// moves 32 sectors for 128 useful bytes (CUDA C++ Best Practices Guide,
// "Coalesced Access to Global Memory": strided accesses).
const Sector = 32

// stridedFactor is how much longer a kernel with a strided read takes than
// the same kernel reading in order: its memory traffic grown, for each
// value of the strided input, to what the sector it lies in brings
// (4 × ReadStride bytes, at most a sector) less the 4 bytes counted, unless
// the Plane outputs between two reads of a sector, with their own traffic
// and the sectors they touch, fit in less than L2 (then each sector is
// fetched once and serves the reads that follow it). Fixed from the
// hardware's sector and the sheet's L2, not fitted; a step at L2, where a
// real cache gives some hits a little past it.
func stridedFactor(s Spec, k *Kernel) float64 {
	if k.ReadStride <= 1 || k.Plane <= 0 || k.elems() == 0 {
		return 1
	}
	b := k.Bytes()
	extra := min(Sector, 4*fl(k.ReadStride)) - 4
	if fl(k.Plane)*(b/k.elems()+extra) < s.L2 {
		return 1
	}
	return (b + extra*k.elems()) / b
}

// Grad is a kernel's backward where its op alone does not set it.
type Grad uint8

const (
	// GradOfOp: the op's own backward (Backward).
	GradOfOp Grad = iota
	// GradNone: nothing; its output needs no gradient (a mask built from
	// the attention mask, a random draw, a router's one-hot choice).
	GradNone
	// GradWhere: torch.where(mask, x, c): one kernel like the forward,
	// the gradient kept where the mask holds.
	GradWhere
	// GradMaximum: torch.max(x, c) with a constant: autograd's
	// where(x == c, g/2, g).masked_fill_(x < c, 0), five kernels over x.
	GradMaximum
	// GradScaled: a batched product scaled by a constant (baddbmm's alpha):
	// its two gradient products, each multiplied by the constant after
	// (autograd's maybe_multiply), two more kernels.
	GradScaled
	// GradCopy: a copy that changes a tensor's layout (attention's heads
	// split for torch.matmul, merged after it): the gradient reaches the
	// view before it non-contiguous, and the view's backward (a reshape)
	// copies it back, one copy like the forward.
	GradCopy
	// GradOne: a product of two tensors of which one needs no gradient
	// (a random draw, rotary's cos and sin): one kernel, not two.
	GradOne
	// GradGather: hidden_states[mask], a boolean mask's rows (Rows ×
	// Width) gathered from a tensor of Table rows (a Switch expert's
	// tokens): autograd's index backward zeroes a gradient of the whole
	// tensor and adds the rows' gradients into it (index_put_ with
	// accumulate: its indices sorted first), after the mask's nonzero.
	GradGather
	// GradIndexPut: next_states[mask] = values, Rows × Width of a tensor of
	// Table rows: the tensor's gradient is its own with those rows zeroed
	// (a clone, zeros of the values' size put into it), the values' the
	// rows gathered; each index converts the mask (nonzero) again.
	GradIndexPut
	// GradRMS: the reduction of an RMS norm (T5's, Llama's: x·rsqrt(mean(x²)
	// + ε)) as autograd runs its backward, with its pow's: the mean's
	// gradient expanded over the rows (one kernel of the input's size),
	// pow's (x.pow(1), × 2, × the gradient: three), and the reductions of
	// the rsqrt's gradient over each row and of the scale's over the
	// tokens (each reading a tensor of the input's size). The pow kernel
	// before it has none of its own.
	GradRMS
	// GradRotate: rotary embedding's rotate_half, cat(−x2, x1) of the
	// input's halves: the cat's gradient is two views; the negation's is a
	// negation (half the input), and each half's slice puts its gradient
	// into zeros of the whole input (slice_backward: zeros and a copy a
	// half).
	GradRotate
	// GradExpand: a copy of an expanded tensor (Llama's repeat_kv of keys
	// and values over the heads that share them), or an add of one
	// (BERT's and GPT-2's position embeddings, broadcast over the batch):
	// its backward sums the gradient over the copies (expand's
	// sum_to_size), one reduction of GradReduce values an output over the
	// kernel's size (none where GradReduce is 1: a batch of one sequence).
	GradExpand
	// GradScatter: a reduction's selected values (torch.max(x, dim).values,
	// Switch's router probability): autograd's backward zeroes a gradient of
	// the input's size and scatters the Rows values' gradients into it
	// (value_selecting_reduction_backward), two kernels.
	GradScatter
)

// OpSync is a host synchronisation: an op whose result the host reads
// (torch.nonzero's count, which sizes its output) waits for the GPU to
// finish everything queued, and the GPU then waits for the host to launch
// the next kernel. It takes the host's time to reach a launch
// ([Model.SyncGap]).
const OpSync = "sync"

// FLOPs is the kernel's arithmetic.
func (k *Kernel) FLOPs() float64 {
	switch kindOf(k.Op) {
	case kindGEMM:
		f := 2 * fl(k.Batch) * fl(k.M) * fl(k.N) * fl(k.K)
		if k.Bias {
			f += fl(k.Batch) * fl(k.M) * fl(k.N)
		}
		return f
	case kindNorm:
		return 8 * k.elems()
	case kindSoftmax:
		return 5 * k.elems()
	case kindGather:
		return 0
	}
	return k.elems()
}

// Bytes is the kernel's compulsory memory traffic, fp32.
func (k *Kernel) Bytes() float64 {
	switch kindOf(k.Op) {
	case kindGEMM:
		b := fl(k.Batch) * (fl(k.M)*fl(k.K) + fl(k.K)*fl(k.N) + fl(k.M)*fl(k.N))
		if k.Op == neusight.Conv {
			// the input is read once, not im2col's K×-expanded matrix; a
			// weight gradient split over groups of images (Batch) reads
			// each group's output gradient and writes its partial sum
			b = fl(max(k.Images, 1))*fl(k.InC)*fl(k.Size)*fl(k.Size) + fl(k.Batch)*(fl(k.K)*fl(k.N)+fl(k.M)*fl(k.N))
		}
		return 4 * b
	case kindNorm, kindSoftmax:
		return 4 * fl(2+max(k.Extra, 0)) * k.elems()
	}
	out := fl(max(k.Outputs, 1)) * k.elems()
	if k.Reduce > 1 {
		out /= fl(k.Reduce)
	}
	return 4 * (fl(max(k.Inputs, 0))*k.elems() + out)
}

func (k *Kernel) elems() float64 { return fl(k.Rows) * fl(k.Width) }

func fl(i int) float64 { return float64(i) }

type kind int

const (
	kindGEMM kind = iota
	kindNorm
	kindSoftmax
	kindElementwise
	kindGather
)

func kindOf(op string) kind {
	switch op {
	case neusight.Linear, neusight.BMM, neusight.Conv:
		return kindGEMM
	case neusight.LN:
		return kindNorm
	case neusight.Softmax:
		return kindSoftmax
	case "embedding":
		return kindGather
	}
	return kindElementwise
}

// ElementwiseInputs is how many tensors each of NeuSight's elementwise ops
// reads.
func ElementwiseInputs(op string) int {
	switch op {
	case "add", "mul", "div", "pow":
		return 2
	}
	return 1
}

// transcendental marks the elementwise ops that evaluate a special function.
func transcendental(op string) float64 {
	switch op {
	case "gelu", "tanh", "pow", "powu":
		return 1
	}
	return 0
}

// FromOp is the kernel of a measured op.
func FromOp(o *neusight.Op) Kernel {
	switch {
	case o.Op == neusight.Linear:
		// NeuSight's N is the reduction and K the output width
		return Kernel{Op: o.Op, Batch: 1, M: o.B * o.M, K: o.N, N: o.K, Bias: true}
	case o.Op == neusight.BMM:
		return Kernel{Op: o.Op, Batch: o.B, M: o.M, K: o.N, N: o.K}
	case o.Op == neusight.Conv:
		return ConvKernel(o.B, o.InC, o.OutC, o.Kernel, o.Size, o.Stride, o.Padding)
	case o.Op == neusight.LN || o.Op == neusight.Softmax:
		return Kernel{Op: o.Op, Rows: o.B, Width: o.H}
	}
	return Kernel{Op: o.Op, Rows: o.B, Width: o.H, Inputs: ElementwiseInputs(o.Op), Outputs: 1}
}

// ConvKernel is a convolution as an implicit GEMM: M = batch × output
// pixels, N = output channels, K = input channels × kernel area; Implicit
// unless it is of the kind NeuSight measured (measuredConv).
func ConvKernel(batch, in, out, kern, size, stride, pad int) Kernel {
	os := (size+2*pad-kern)/stride + 1
	return Kernel{Op: neusight.Conv, Batch: 1, M: batch * os * os, N: out, K: in * kern * kern,
		Images: batch, Size: size, Kern: kern, Stride: stride, Pad: pad, InC: in, OutC: out,
		Implicit: !measuredConv(kern, stride, pad)}
}

// measuredConv is whether a convolution layer is of the kind NeuSight's
// convolution measurements hold: 3×3 and stride 1 (all of them padded by
// 1), which cuDNN runs as Winograd where that is faster (most of them);
// the padding does not change that.
func measuredConv(kern, stride, pad int) bool { return kern == 3 && max(stride, 1) == 1 }

// tile is one of cuBLAS's fp32 GEMM tiles: its output block, the blocks an
// SM holds at once, and the share of the SM's peak a full wave of it
// reaches.
type tile struct {
	m, n    int
	perSM   int
	eff     float64
	minimum int // K below which the tile's pipeline is not worth it (0: none)
}

// tiles are the sgemm kernels PyTorch's fp32 products run (volta_sgemm_128x128,
// 128x64, 64x64, 32x128, 32x32 ... in NeuSight's kernel names).
var tiles = []tile{
	{128, 128, 1, 0.90, 0},
	{128, 64, 2, 0.85, 0},
	{64, 128, 2, 0.85, 0},
	{64, 64, 3, 0.75, 0},
	{32, 128, 4, 0.70, 0},
	{128, 32, 4, 0.70, 0},
	{32, 32, 8, 0.50, 0},
}

// DualIssue is the share of peak an fp32 product's instruction stream can
// reach on an SM with 32 fp32 lanes per scheduler (128 per SM: GA10x, Ada,
// Hopper): the scheduler issues one warp instruction a cycle, so every
// instruction that is not an FFMA costs a cycle of all 32 lanes. cuBLAS's
// sgemm inner loop computes an 8×8 outer product per thread per k step (64
// FFMAs) from 4 vector shared-memory loads and about 4 address and loop
// instructions: 64 / 72. With 16 lanes per scheduler (64 per SM) an FFMA
// takes two cycles to issue and the other instructions fit between them.
// Fixed from the instruction mix: no training GPU has 128 lanes per SM.
const DualIssue = 64.0 / 72

// issueShare is DualIssue on SMs with more than 64 fp32 lanes, else 1.
func issueShare(s Spec) float64 {
	if s.LanesPerSM > 64 {
		return DualIssue
	}
	return 1
}

// Launch is the GPU's own cost of starting a kernel that is queued behind
// another, seconds (the host's cost of launching it is not part of it).
const Launch = 2e-6

// gemm is the analytical plan of a product: the tile taken, the slices
// its reduction is split in, and its waves.
type gemm struct {
	t            tile
	split        int // slices of the reduction (split-K); 1: none
	tiles, waves int
	fill         float64 // the last wave's share of a full wave
	tileEff      float64 // useful / computed FLOPs (tile quantisation)
	compute      float64 // seconds
}

// MinSplitK bounds the slices of a split-K plan: at most the reduction's
// length / MinSplitK of them (each about MinSplitK long or more), below
// which a tile's pipeline does not fill.
const MinSplitK = 128

// splitWaves bounds the split-K plans planGEMM tries for a tile: the slice
// counts z = ⌊w × slots / tiles⌋ for w of 1 to splitWaves, the most that
// keep the blocks within w waves.
const splitWaves = 4

// planGEMM plans a product as cuBLAS runs fp32 GEMMs: the tile (of
// tiles) whose waves over the SMs finish first. With split, a product may
// also cut its reduction into slices, each block computing one tile over
// one slice (split-K), which then costs a second pass that reads the
// slices' partial tiles from memory and writes their sum; a plan with
// slices is taken where its waves finish sooner: a product whose tiles
// leave SMs idle (fewer tiles than one wave, or a last wave part-empty)
// and whose reduction is long. cuBLAS does this for a single product
// (the grids of NeuSight's linear measurements show it, on the V100 for
// about half of them), not for a strided batch of them (none of its
// batched ones). The plan is the split that finishes first, not cuBLAS's
// own choice, which splits less on some GPUs (the A100's 10% of its
// linear measurements, where this plan splits 41%).
func planGEMM(s Spec, batch, m, n, k int, split bool) gemm {
	best := gemm{compute: math.Inf(1)}
	perSMPeak := s.FP32 / fl(s.SMs) * issueShare(s)
	for _, t := range tiles {
		tm, tn := ceilDiv(m, t.m), ceilDiv(n, t.n)
		count := tm * tn * batch
		slots := s.SMs * t.perSM
		// the slices tried: none, and the most that keep the blocks within
		// 1 to splitWaves waves (fewer where the reduction is too short)
		zs, nz := [1 + splitWaves]int{1}, 1
		if split && batch == 1 && count > 0 {
			for w := 1; w <= splitWaves; w++ {
				if z := min(w*slots/count, k/MinSplitK); z >= 2 && z != zs[nz-1] {
					zs[nz] = z
					nz++
				}
			}
		}
		for _, z := range zs[:nz] {
			blocks := count * z
			waves := ceilDiv(blocks, slots)
			// a wave: every SM runs perSM tiles side by side at eff of its
			// peak, each over a slice of ⌈k/z⌉
			perWave := 2 * fl(t.m) * fl(t.n) * fl(ceilDiv(k, z)) * fl(t.perSM) / (perSMPeak * t.eff)
			c := fl(waves) * perWave
			if z > 1 {
				// the partial tiles written, read back and summed into the
				// output, by a kernel of its own
				c += fl(2*z+1)*fl(m)*fl(n)*4/s.Bandwidth + Launch
			}
			if c < best.compute {
				last := blocks - (waves-1)*slots
				best = gemm{t: t, split: z, tiles: blocks, waves: waves, fill: fl(last) / fl(slots),
					tileEff: fl(m) * fl(n) / (fl(tm*t.m) * fl(tn*t.n)), compute: c}
			}
		}
	}
	return best
}

// splitK is whether a product kernel may run as split-K (see planGEMM): a
// linear layer's product, or a convolution computed as its implicit GEMM
// (Kernel.Implicit), whose correction is the linear layers'; not a
// batched product, nor a convolution of the kind measured.
func splitK(k *Kernel) bool {
	return k.Batch == 1 && (k.Op == neusight.Linear || (k.Op == neusight.Conv && k.Implicit))
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// Analytical is the kernel's analytical time on s, seconds.
func Analytical(s Spec, k *Kernel) float64 {
	t, _ := analyse(s, k)
	return t
}

// analyse returns the analytical time and the kernel's features on s.
func analyse(s Spec, k *Kernel) (float64, []float64) {
	bytes := k.Bytes()
	mem := bytes / s.Bandwidth
	l2 := math.Log2(bytes / s.L2)
	switch kindOf(k.Op) {
	case kindGEMM:
		g := planGEMM(s, k.Batch, k.M, k.N, k.K, splitK(k))
		t := max(g.compute, mem) + Launch
		small, large := min(k.M, k.N), max(k.M, k.N)
		return t, []float64{
			math.Log2(fl(g.waves)), g.fill, g.tileEff,
			math.Log2(fl(k.K)), math.Log2(fl(small)), math.Log2(fl(large) / fl(small)),
			math.Log2(fl(k.Batch)), math.Log10(t * 1e6), math.Log2(fl(g.t.m * g.t.n)), math.Log2(g.compute / mem),
			math.Log2(fl(g.split)),
		}
	case kindGather:
		t := mem + Launch
		return t, []float64{l2, math.Log10(t * 1e6)}
	}
	// row-wise and elementwise ops: bandwidth-bound, one thread per element
	// (a block per row for ln and softmax)
	e := k.elems()
	t := mem + Launch
	threads := fl(s.SMs) * 2048
	return t, []float64{
		math.Log2(e / threads), l2, math.Log10(t * 1e6),
		math.Log2(fl(max(k.Rows, 1))), math.Log2(fl(max(k.Width, 1))),
		fl(k.Inputs), transcendental(k.Op),
	}
}

// FeatureNames names the features of each kind, in order.
func FeatureNames(op string) []string {
	switch kindOf(op) {
	case kindGEMM:
		return []string{"log2_waves", "last_wave_fill", "tile_efficiency", "log2_k", "log2_small_side", "log2_aspect",
			"log2_batch", "log10_analytical_us", "log2_tile_area", "log2_compute_over_memory", "log2_split"}
	case kindGather:
		return []string{"log2_bytes_over_l2", "log10_analytical_us"}
	}
	return []string{"log2_elements_per_thread", "log2_bytes_over_l2", "log10_analytical_us", "log2_rows", "log2_width",
		"inputs", "transcendental"}
}

// SpecOfDevice is the spec sheet of a GPU of wb's device table.
func SpecOfDevice(d *predictor.Device) (Spec, error) {
	if d.Kind != predictor.KindGPU || d.LanesPerSM == 0 || d.L2Bytes == 0 {
		return Spec{}, fmt.Errorf("gpu: %s is not a GPU with lanes per SM and L2 in the device table", d.Name)
	}
	return Spec{Name: d.Display, SMs: d.SMs, LanesPerSM: d.LanesPerSM, ClockMHz: d.BoostClockMHz,
		FP32: d.Peak(predictor.FP32, false), Bandwidth: d.MemBandwidth, L2: d.L2Bytes, Memory: d.MemBytes}, nil
}
