package gpu

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/wb-sim/wb/datasets/neusight"
	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/predictor"
)

// Parallel is how Megatron-LM splits a training iteration over GPUs:
// data-, tensor- and pipeline-parallel degrees (1: none) and the pipeline's
// micro-batches per iteration. NeuSight's multi-GPU labels name one degree
// each ("dp4", "tp4", "pp4_1"); any product of the three is predicted.
type Parallel struct {
	DP           int `json:"dp"`
	TP           int `json:"tp"`
	PP           int `json:"pp"`
	MicroBatches int `json:"micro_batches"`
}

// GPUs is the GPUs the iteration runs on.
func (p Parallel) GPUs() int { return p.DP * p.TP * p.PP }

// CheckNodes refuses a tensor-parallel degree that Megatron-LM's rank
// layout cannot keep within a node of NodeGPUs.
func (p Parallel) CheckNodes() error {
	if p.TP > NodeGPUs {
		return fmt.Errorf("gpu: tensor parallelism over %d GPUs: more than one node's %d, which Megatron-LM keeps it within", p.TP, NodeGPUs)
	}
	// Megatron-LM's tensor-parallel groups are consecutive ranks: one of a
	// degree that does not divide a node's GPUs straddles two nodes
	if p.GPUs() > NodeGPUs && NodeGPUs%p.TP != 0 {
		return fmt.Errorf("gpu: tensor parallelism over %d GPUs on %d: Megatron-LM's groups of consecutive GPUs would straddle nodes of %d; give a degree that divides %d", p.TP, p.GPUs(), NodeGPUs, NodeGPUs)
	}
	return nil
}

// crossings says which of Megatron-LM's groups cross nodes of NodeGPUs:
// for each hop between pipeline stages (k to k+1), whether some pipeline's
// hop does; whether some pipeline's first and last stages (which sum the
// tied embedding's gradients) lie in different nodes; and whether some
// data-parallel group spans nodes. Megatron-LM's ranks run tensor-parallel
// fastest, then data-parallel, then pipeline: rank k·DP·TP + j·TP + t is
// stage k of data-parallel replica j, tensor-parallel rank t, so a
// pipeline (j, t) steps DP·TP ranks a stage and a data-parallel group
// (k, t) spans the DP·TP ranks of its stage.
func (p Parallel) crossings() (hops []bool, tied, dp bool) {
	stride := p.DP * p.TP
	nodeOf := func(rank int) int { return rank / NodeGPUs }
	hops = make([]bool, max(0, p.PP-1))
	for o := range stride { // a pipeline's first rank
		for k := range hops {
			if nodeOf(k*stride+o) != nodeOf((k+1)*stride+o) {
				hops[k] = true
			}
		}
		if nodeOf(o) != nodeOf((p.PP-1)*stride+o) {
			tied = true
		}
	}
	for k := range p.PP {
		for t := range p.TP {
			if nodeOf(k*stride+t) != nodeOf(k*stride+(p.DP-1)*p.TP+t) {
				dp = true
			}
		}
	}
	return hops, tied, dp
}

// String writes p as ParseParallel reads it, the degrees above 1 joined by
// "-" ("dp2-tp2", "pp4_8"); "dp1" for one GPU.
func (p Parallel) String() string {
	var parts []string
	if p.DP > 1 {
		parts = append(parts, fmt.Sprintf("dp%d", p.DP))
	}
	if p.TP > 1 {
		parts = append(parts, fmt.Sprintf("tp%d", p.TP))
	}
	if p.PP > 1 || p.MicroBatches > 1 {
		parts = append(parts, fmt.Sprintf("pp%d_%d", p.PP, p.MicroBatches))
	}
	if len(parts) == 0 {
		return "dp1"
	}
	return strings.Join(parts, "-")
}

// ParseParallel reads degrees as NeuSight's label names write them, joined
// by "-", "," or spaces, in any case: "dp4", "tp2", "pp4_8" (4 stages, 8
// micro-batches; "pp4" is one micro-batch), "dp2-tp2", "DP2 TP2".
func ParseParallel(s string) (Parallel, error) {
	p := Parallel{DP: 1, TP: 1, PP: 1, MicroBatches: 1}
	seen := map[string]bool{}
	if strings.TrimSpace(s) == "" {
		return Parallel{}, fmt.Errorf("parallel %q: want dpN, tpN or ppN[_M], joined by -", s)
	}
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == ',' || unicode.IsSpace(r) }) {
		part = strings.ToLower(part)
		if len(part) < 3 {
			return Parallel{}, fmt.Errorf("parallel %q: %q: want dpN, tpN or ppN[_M]", s, part)
		}
		kind, rest := part[:2], part[2:]
		degree, micro, hasMicro := strings.Cut(rest, "_")
		if kind != "dp" && kind != "tp" && kind != "pp" || hasMicro && kind != "pp" {
			return Parallel{}, fmt.Errorf("parallel %q: %q: want dpN, tpN or ppN[_M] (M micro-batches)", s, part)
		}
		if seen[kind] {
			return Parallel{}, fmt.Errorf("parallel %q: %s given twice", s, kind)
		}
		seen[kind] = true
		n, err := strconv.Atoi(degree)
		if err != nil || !neusight.Digits(degree) || n < 1 || n > 1<<16 {
			return Parallel{}, fmt.Errorf("parallel %q: %q: the degree must be an integer in [1, 65536]", s, part)
		}
		switch kind {
		case "dp":
			p.DP = n
		case "tp":
			p.TP = n
		case "pp":
			p.PP = n
			if hasMicro {
				m, err := strconv.Atoi(micro)
				if err != nil || !neusight.Digits(micro) || m < 1 || m > 1<<16 {
					return Parallel{}, fmt.Errorf("parallel %q: %q: the micro-batches must be an integer in [1, 65536]", s, part)
				}
				p.MicroBatches = m
			}
		}
	}
	if len(seen) == 0 {
		return Parallel{}, fmt.Errorf("parallel %q: want dpN, tpN or ppN[_M], joined by -", s)
	}
	if p.GPUs() > 1<<16 {
		return Parallel{}, fmt.Errorf("parallel %q: %d GPUs: at most 65536", s, p.GPUs())
	}
	return p, nil
}

// ParallelOf is a multi-GPU label's parallelism.
func ParallelOf(l neusight.Label) Parallel {
	return Parallel{DP: max(l.DP, 1), TP: max(l.TP, 1), PP: max(l.PP, 1), MicroBatches: max(l.MicroBatches, 1)}
}

// Link is the GPUs' interconnect as a collective sees it.
type Link struct {
	Name string
	// Bandwidth is the bus bandwidth of an all-reduce, bytes/s per GPU per
	// direction (nccl-tests' busbw): a ring all-reduce of S bytes over n
	// GPUs takes 2(n−1)/n · S / Bandwidth.
	Bandwidth float64
	// Data, when positive, is the bus bandwidth of the data-parallel
	// gradients' all-reduce (bytes/s; --allreduce-gbps, as measured on a
	// cluster, across its nodes), named DataName; the tensor-parallel
	// all-reduces and the sends within a node stay on the node's link.
	Data     float64
	DataName string
	// Assumed says the board is not in wb's device table, which knows
	// boards' links: PCIe 4.0 x16 is taken.
	Assumed bool
}

// data is the link the data-parallel all-reduce (and traffic between
// nodes) takes.
func (l Link) data() Link {
	if l.Data > 0 {
		return Link{Name: l.DataName, Bandwidth: l.Data}
	}
	return l
}

// NodeGPUs is the most GPUs a node's link joins (an HGX or DGX board's
// eight): beyond them the GPUs talk over a network no spec sheet or
// device table describes.
const NodeGPUs = 8

// LinkOf is the link gpus GPUs of spec s exchange data over: within a
// node (at most NodeGPUs of them), NVLink for a board that has it in wb's
// device table (found by the name its spec sheet gives, as CUDA reports
// it: predictor.Device.ReportsAs; the H100 PCIe's NVLink bridges join pairs, so two of them alone),
// else the board's PCIe link (PCIe 4.0 x16 for a sheet the table does not
// know); interconnect "pcie" takes the PCIe link even where there is
// NVLink. busGBps, when positive, is the bus bandwidth nccl-tests measures
// on the user's cluster: the data-parallel gradients' all-reduce runs at
// it (Link.Data), and more than NodeGPUs GPUs need it. A collective
// reaches the node link's bandwidth × 0.8, as the analytical path takes it
// (predictor.Efficiency.Network).
func LinkOf(s Spec, interconnect string, busGBps float64, gpus int) (Link, error) {
	if interconnect != "" && interconnect != "nvlink" && interconnect != "pcie" {
		return Link{}, fmt.Errorf("gpu: interconnect %q: want nvlink or pcie", interconnect)
	}
	if gpus > NodeGPUs && !(busGBps > 0) {
		return Link{}, fmt.Errorf("gpu: %d GPUs span more than one node of %d: give the all-reduce bus bandwidth your cluster reaches across nodes (--allreduce-gbps, as nccl-tests reports busbw)", gpus, NodeGPUs)
	}
	node := min(gpus, NodeGPUs)
	var d *predictor.Device
	for _, t := range predictor.Devices() {
		if t.Kind == predictor.KindGPU && t.ReportsAs(s.Name) {
			d = &t
			break
		}
	}
	network := predictor.DefaultEfficiency(predictor.KindGPU).Network
	l := Link{Name: "PCIe 4.0 x16", Bandwidth: network * predictor.PCIeX16(4), Assumed: true}
	if d != nil {
		l = Link{Name: fmt.Sprintf("PCIe %d.0 x16", d.PCIeGen), Bandwidth: network * d.PCIeBandwidth}
		if d.NVLinkJoins(node) && interconnect != "pcie" {
			l = Link{Name: "NVLink", Bandwidth: network * d.NVLinkBandwidth}
		}
	}
	if interconnect == "nvlink" && l.Name != "NVLink" {
		return Link{}, fmt.Errorf("gpu: %s has no NVLink joining %d GPUs in wb's device table (wb predict --list): drop --interconnect nvlink", s.Name, node)
	}
	if busGBps > 0 {
		l.Data, l.DataName = busGBps*1e9, fmt.Sprintf("an all-reduce bus bandwidth of %g GB/s", busGBps)
	}
	return l, nil
}

// AllReduce is a ring all-reduce of bytes over n GPUs on l, as the
// analytical path times one (predictor.CommTime).
func (l Link) AllReduce(bytes float64, n int) float64 {
	if n < 2 || bytes <= 0 {
		return 0
	}
	return predictor.CommTime(bytes, n, l.Bandwidth, predictor.Ring)
}

// Send is a point-to-point transfer of bytes from one GPU to the next.
func (l Link) Send(bytes float64) float64 {
	if bytes <= 0 {
		return 0
	}
	return bytes/l.Bandwidth + predictor.LinkLatency
}

// Megatron is one micro-batch's forward on one GPU of a tensor-parallel
// group, as Megatron-LM's GPT model runs it, with the all-reduces between
// its kernels.
type Megatron struct {
	*Program
	TP int
	// Comm is, per block of Program, the bytes of each tensor-parallel
	// all-reduce of one repeat, forward and backward.
	Comm []BlockComm
	// Params is each block's weights on one GPU (one repeat's).
	Params []float64
	// Unfused is the part of Params whose gradients autograd computes into
	// a tensor of their own, which Megatron's DDP hook then adds into its
	// fp32 buffer (main_grad): the embeddings, norms and biases. A
	// product's weight gradient is accumulated into the buffer by the
	// product itself (gradient_accumulation_fusion, on by default, with
	// apex's fused_weight_gradient_mlp_cuda, which NeuSight built).
	Unfused []float64
	// Activation is the bytes a pipeline stage sends the next per
	// micro-batch (the hidden states, seq × batch × width, fp32).
	Activation float64
}

// BlockComm are a block's all-reduces.
type BlockComm struct {
	Forward, Backward []float64
	// Hides gives, for each backward all-reduce, the kernel (an index into
	// the block's Kernels) of the column-parallel product whose input
	// gradient it sums: Megatron-LM starts that all-reduce asynchronously
	// (async_tensor_model_parallel_allreduce, on by default; NeuSight set
	// the CUDA_DEVICE_MAX_CONNECTIONS=1 it requires) and computes the
	// product's weight gradient, and its bias's where the product adds its
	// bias itself (HideBias; not a skip_bias_add product's, whose bias's
	// gradient is summed elsewhere), while it travels.
	Hides    []int
	HideBias []bool
}

// LowerMegatron lowers one micro-batch of batch sequences of seq tokens of
// a GPT-2 config c (GPT-2, the GPT-3 sizes) on one GPU of a tensor-parallel
// group of tp, as Megatron-LM's GPT model (legacy megatron.model, which
// accelerate's Megatron-LM plugin builds from the Hugging Face config;
// Megatron-LM core_r0.5.0, as NeuSight installed it) runs it in fp32 for
// training: the fused softmax kernel takes fp16 alone, so the scores are
// masked and normalised by two kernels (1/√d folded into the product, no
// query-key layer scaling, off by default); bias-GELU and
// bias-dropout-add are TorchScript functions, each one kernel (nvfuser,
// which Megatron enables and PyTorch 2.1 still has).
//
// Each layer's query-key-value and first feed-forward products are split
// by columns over the group, the output and second feed-forward ones by
// rows, each followed by an all-reduce of the hidden states forward; the
// backward all-reduces the inputs' gradients of the column-split ones. The
// vocabulary is padded to a multiple of 128 × tp and split over the group,
// for the embedding (an all-reduce forward) and the logits and their
// cross-entropy.
func LowerMegatron(c *dnn.HFConfig, seq, batch, tp int) (*Megatron, error) {
	if c.ModelType != "gpt2" {
		return nil, fmt.Errorf("gpu: %s: Megatron-LM's GPT is lowered from GPT-2 configs (GPT-2 and the GPT-3 sizes), not %q", c.Name, c.ModelType)
	}
	// accelerate hands Megatron-LM the layers, width, heads, positions and
	// vocabulary of a GPT-2 config, no feed-forward width: Megatron's
	// default, 4 × the width, whatever n_inner says
	ffAll := 4 * c.Dim
	if tp < 1 || c.Heads%tp != 0 || ffAll%tp != 0 {
		var ok []string
		for k := 2; k <= min(c.Heads, NodeGPUs); k++ { // more never stays in a node (CheckNodes)
			if c.Heads%k == 0 && ffAll%k == 0 {
				ok = append(ok, strconv.Itoa(k))
			}
		}
		hint := "degrees that divide both: " + strings.Join(ok, ", ")
		if len(ok) == 0 {
			hint = "no degree above 1 divides both"
		}
		return nil, fmt.Errorf("gpu: %s: tensor-parallel degree %d must divide its %d heads and feed-forward width %d (%s)", c.Name, tp, c.Heads, ffAll, hint)
	}
	if err := checkShape(c, seq, batch); err != nil {
		return nil, err
	}
	t := seq * batch
	d, ff, hd := c.Dim, ffAll/tp, c.HeadDim
	heads := c.Heads / tp
	bh := batch * heads
	hidden := 4 * float64(t) * float64(d)

	vocab := paddedVocab(c.Vocab, tp)
	pre := &lowering{}
	pre.gather(t, d, vocab/tp)
	// position ids arange(s) expanded over the batch: a lookup a token
	// (get_ltor_masks_and_position_ids)
	pre.gather(t, d, c.Positions)
	pre.ew("add", t, d, 2)
	if batch > 1 {
		// Embedding.forward's transpose(0, 1).contiguous() to [s, b, h]
		// (one sequence is laid out so already); its gradient copied
		// back for the lookups
		pre.copy(t, d)
		pre.last().Grad = GradCopy
	}
	pre.ew("dropout", t, d, 1)
	var preComm BlockComm
	if tp > 1 {
		preComm.Forward = []float64{hidden} // VocabParallelEmbedding's partial lookups summed
	}
	preParams := float64(vocab/tp)*float64(d) + float64(c.Positions)*float64(d)

	layer := &lowering{}
	layer.rows(neusight.LN, t, d)
	qkv := len(layer.ks)
	// ColumnParallelLinear: the product, then its bias added by a kernel
	// of its own (output + bias; the bias's gradient summed in the
	// backward, as a biased product's)
	layer.linear(t, d, 3*d/tp, true)
	layer.ew("add", t, 3*d/tp, 1)
	// split into q, k and v (views), whose gradients a cat joins
	layer.copy(t, 3*d/tp)
	layer.last().Grad, layer.last().View = GradCopy, true
	// baddbmm: 1/√d folded in as alpha, which autograd multiplies into
	// both operands' gradients
	layer.bmm(bh, seq, hd, seq)
	layer.last().Grad = GradScaled
	// masked_fill_ with the causal mask: its backward fills the gradient's
	// masked places with zeros, one kernel like it
	layer.ew("add", bh*seq, seq, 1)
	layer.last().Grad = GradWhere
	layer.rows(neusight.Softmax, bh*seq, seq)
	layer.ew("dropout", bh*seq, seq, 1)
	layer.bmm(bh, seq, seq, hd)
	layer.copy(t*heads, hd) // the context permuted back: contiguous()
	// the row-split products return their bias (skip_bias_add): it is
	// added in the fused kernel after them, and its gradient summed in the
	// backward, as a biased product's
	layer.linear(t, d/tp, d, true)
	layer.ew("dropout", t, d, 2) // bias_dropout_add: (x + b) dropped out, + residual
	layer.last().Sums = 1        // the residual, read by the layer norm too: its gradients summed
	layer.rows(neusight.LN, t, d)
	up := len(layer.ks)
	layer.linear(t, d, ff, true)
	layer.ew("gelu", t, ff, 1) // bias_gelu
	layer.linear(t, ff, d, true)
	layer.ew("dropout", t, d, 2)
	layer.last().Sums = 1
	layerComm := BlockComm{}
	if tp > 1 {
		// (fc1 returns its bias, skip_bias_add: only its weight gradient
		// hides the all-reduce)
		layerComm = BlockComm{Forward: []float64{hidden, hidden}, Backward: []float64{hidden, hidden}, Hides: []int{qkv, up}, HideBias: []bool{true, false}}
	}
	layerParams := (float64(d)*float64(3*d) + float64(3*d) + float64(d)*float64(d) + 2*float64(d)*float64(4*d)) / float64(tp)
	layerUnfused := 4*float64(d) + float64(3*d)/float64(tp) + float64(4*d)/float64(tp) + 2*float64(d) // norms, biases
	layerParams += 4*float64(d) + float64(4*d)/float64(tp) + 2*float64(d)                             // norms, biases

	post := &lowering{}
	post.rows(neusight.LN, t, d)
	logits := len(post.ks)
	post.linear(t, d, vocab/tp, false) // the logits, on the embedding's weights
	// vocab_parallel_cross_entropy over the GPU's share of the
	// vocabulary: each row's maximum and sum (a softmax's two passes), the
	// maximum subtracted, the exponential, the division kept for the
	// backward. Its backward is one kernel over them: the saved softmax,
	// the targets' entries less one (a kernel of a value a row, left out),
	// multiplied in place by the loss's gradient (grad_input.mul_)
	post.rows(neusight.Softmax, t, vocab/tp)
	post.noGrad()
	post.ew("add", t, vocab/tp, 1)
	post.noGrad()
	post.ew("tanh", t, vocab/tp, 1)
	post.noGrad()
	post.ew("divu", t, vocab/tp, 1) // its backward: one mulu over the rows
	var postComm BlockComm
	if tp > 1 {
		rowsBytes := 4 * float64(t)
		postComm = BlockComm{Forward: []float64{rowsBytes, rowsBytes, rowsBytes}, Backward: []float64{hidden}, Hides: []int{logits}}
	}

	p := &Program{Model: c.Name, Seq: seq, Batch: batch, Blocks: []Block{
		{"embeddings", 1, pre.ks}, {"layer", c.Layers, layer.ks}, {"head", 1, post.ks},
	}}
	return &Megatron{Program: p, TP: tp, Comm: []BlockComm{preComm, layerComm, postComm},
		Params: []float64{preParams, layerParams, 2 * float64(d)}, Unfused: []float64{preParams, layerUnfused, 2 * float64(d)},
		Activation: hidden}, nil
}

// paddedVocab is Megatron-LM's vocabulary padded to a multiple of 128 × tp
// (make-vocab-size-divisible-by 128).
func paddedVocab(v, tp int) int {
	m := 128 * tp
	return (v + m - 1) / m * m
}

// Weights is the weights one GPU of the tensor-parallel group holds of
// the whole model, no pipeline splitting it: at degree 1, the weights of
// the model Megatron-LM builds.
func (m *Megatron) Weights() float64 {
	var w float64
	for i, b := range m.Program.Blocks {
		w += m.Params[i] * float64(b.Repeat)
	}
	return w
}

// ParallelIteration is the predicted time of one Megatron-LM training
// iteration over GPUs, as NeuSight timed its multi-GPU labels: the
// forward and backward of every micro-batch through the pipeline, the
// gradients' all-reduce, and the optimizer's step.
type ParallelIteration struct {
	Parallel   Parallel `json:"parallel"`
	Link       string   `json:"link"`
	MicroBatch int      `json:"micro_batch"` // sequences per micro-batch per GPU
	// Stages are each pipeline stage's forward and backward of one
	// micro-batch, tensor-parallel all-reduces included.
	Stages []StageTime `json:"stages"`
	// Pipeline is every micro-batch's forward and backward through the
	// stages, the sends between them included.
	Pipeline float64 `json:"pipeline_s"`
	// TensorComm is the tensor-parallel all-reduces within it.
	TensorComm float64 `json:"tensor_parallel_allreduce_s"`
	// HiddenComm is the backward's tensor-parallel all-reduces that run
	// while their products' weight gradients are computed (not in Total;
	// see BlockComm.Hides).
	HiddenComm float64 `json:"tensor_parallel_allreduce_hidden_s"`
	// PipelineSends are the activations' and gradients' sends within it.
	PipelineSends float64 `json:"pipeline_sends_s"`
	// Bubble is the pipeline's idle time on the slowest stage.
	Bubble float64 `json:"bubble_s"`
	// Accumulate is zeroing Megatron's fp32 gradient buffer and adding
	// each micro-batch's gradients into it.
	Accumulate float64 `json:"gradient_accumulation_s"`
	// GradientAllReduce is Megatron's own DDP after the last backward
	// (which it does not overlap by default): the gradient buffer's NaN
	// check and its division by the replicas, at any number of them, and
	// the data-parallel all-reduce; and the tied embedding's all-reduce
	// between the first and last stages.
	GradientAllReduce float64 `json:"gradient_allreduce_s"`
	// Optimizer is the gradients' norm (clipping at 1) and Adam's step.
	Optimizer float64 `json:"optimizer_s"`
	Total     float64 `json:"total_s"`
	Kernels   int     `json:"kernels"` // launched per GPU of the busiest stage
}

// StageTime is one pipeline stage's share.
type StageTime struct {
	Layers   int     `json:"layers"`
	Forward  float64 `json:"forward_s"`
	Backward float64 `json:"backward_s"`
	Comm     float64 `json:"tensor_parallel_allreduce_s"`
	Params   float64 `json:"params"` // weights on one GPU of the stage
	// Activations is a floor on the activations one GPU of the stage
	// keeps at its peak, bytes (Program.Activations for each micro-batch
	// in flight: the one-forward-one-backward schedule holds up to the
	// stages from this one to the last).
	Activations float64 `json:"activations_floor_bytes"`
}

// MemoryFloor is, for a GPU of the stage, a floor on the memory it needs,
// bytes: its weights, their fp32 gradient buffer and Adam's two moments
// (16 bytes a weight) and the activations it keeps.
func (st StageTime) MemoryFloor() float64 { return 16*st.Params + st.Activations }

// CheckSplit says whether c's iteration at the global batch splits as p
// asks: its batch into the replicas' micro-batches, its layers into the
// pipeline's stages.
func (p Parallel) CheckSplit(c *dnn.HFConfig, batch int) error {
	if p.DP < 1 || p.TP < 1 || p.PP < 1 || p.MicroBatches < 1 {
		return fmt.Errorf("gpu: parallel degrees %+v: each must be at least 1", p)
	}
	if n := p.DP * p.MicroBatches; batch%n != 0 {
		return fmt.Errorf("gpu: global batch %d does not split into %d data-parallel replicas × %d micro-batches: give a batch that is a multiple of %d", batch, p.DP, p.MicroBatches, n)
	}
	if c.Layers%p.PP != 0 {
		var ok []string
		for k := 2; k <= min(c.Layers, 64); k++ {
			if c.Layers%k == 0 {
				ok = append(ok, strconv.Itoa(k))
			}
		}
		hint := "stages that divide them: " + strings.Join(ok, ", ")
		if len(ok) == 0 {
			hint = "no number of stages above 1 divides them"
		}
		return fmt.Errorf("gpu: %s: %d layers do not split into %d pipeline stages (%s)", c.Name, c.Layers, p.PP, hint)
	}
	return nil
}

// ParallelIterate predicts one training iteration of c at global batch
// (sequences of seq tokens over all data-parallel replicas) split by par
// over GPUs of spec s joined by link, as Megatron-LM's train_step runs it
// (accelerate's model(**batch): forward, backward, the gradients'
// all-reduce, clipping and Adam, all of which NeuSight's multi-GPU labels
// timed).
//
// A stage's micro-batch takes its kernels' times (Kernel) and its
// tensor-parallel all-reduces in turn. The pipeline runs Megatron-LM's
// one-forward-one-backward schedule: the first micro-batch through every
// stage and back, the others each adding the slowest stage's forward and
// backward; each micro-batch's hidden states are sent to the next stage
// and their gradients back. Each micro-batch's weight gradients are added
// into an fp32 buffer, which Megatron's DDP all-reduces after the last
// backward (overlap_grad_reduce is off by default). The optimizer
// (Megatron's FP32Optimizer: the gradients' norm for clipping at 1, then
// apex's fused Adam) streams 32 bytes a weight: the gradients read for the
// norm, Adam's weights, gradients and two moments read and three written;
// scaling the gradients, which happens only when their norm exceeds 1, is
// not counted. Memory traffic is timed at the bandwidth the model gives a
// large elementwise kernel.
func (m *Model) ParallelIterate(s Spec, c *dnn.HFConfig, seq, batch int, par Parallel, link Link) (*ParallelIteration, error) {
	if err := par.CheckSplit(c, batch); err != nil {
		return nil, err
	}
	if par.GPUs() > 1 && !(link.Bandwidth > 0) {
		return nil, fmt.Errorf("gpu: %d GPUs need a link with a positive bandwidth", par.GPUs())
	}
	if err := par.CheckNodes(); err != nil {
		return nil, err
	}
	// Megatron-LM puts a pipeline's stage k on the ranks from k × DP × TP
	// (its pipeline groups stride the world by world / PP): on more than
	// one node, a send between stages, the end stages' embedding
	// all-reduce and a data-parallel group cross nodes where their ranks
	// lie in different nodes (see crossings)
	hops, tied, dpCross := par.crossings()
	node := Link{Name: link.Name, Bandwidth: link.Bandwidth}
	dpLink, tiedLink := link.data(), node
	if par.GPUs() > NodeGPUs && !dpCross {
		dpLink = node // each data-parallel group within a node
	}
	if tied {
		tiedLink = link.data()
	}
	micro := batch / par.DP / par.MicroBatches
	mg, err := LowerMegatron(c, seq, micro, par.TP)
	if err != nil {
		return nil, err
	}
	it := &ParallelIteration{Parallel: par, Link: link.Name, MicroBatch: micro}
	if link.Data > 0 {
		if par.GPUs() > NodeGPUs {
			it.Link += "; between nodes " + link.DataName
		} else {
			it.Link += "; gradients over " + link.DataName
		}
	}
	// one repeat of each block: forward, backward, all-reduces, kernels
	type blockTime struct {
		fw, bw, comm float64
		kernels      int
	}
	bt := make([]blockTime, len(mg.Blocks))
	acts := make([]float64, len(mg.Blocks)) // one repeat's, one micro-batch
	var hidden, layerHidden float64         // backward all-reduces hidden: in all, in one layer
	for i, b := range mg.Blocks {
		acts[i] = (&Program{Blocks: []Block{{Repeat: 1, Kernels: b.Kernels}}}).Activations(true)
		bt[i].fw, bt[i].bw, bt[i].kernels = m.blockTime(s, b.Kernels, true)
		for _, x := range mg.Comm[i].Forward {
			bt[i].comm += node.AllReduce(x, par.TP)
		}
		for j, x := range mg.Comm[i].Backward {
			ar := node.AllReduce(x, par.TP)
			// the weight gradient (and the bias's) computed while it
			// travels: only what outlasts them waits
			var under float64
			hide := Backward(b.Kernels[mg.Comm[i].Hides[j]])[1:]
			if j < len(mg.Comm[i].HideBias) && !mg.Comm[i].HideBias[j] {
				hide = hide[:1] // the weight gradient alone
			}
			for _, g := range hide {
				under += m.Kernel(s, &g)
			}
			bt[i].comm += max(0, ar-under)
			h := min(ar, under)
			if i == 1 {
				layerHidden += h
			} else {
				hidden += h
			}
		}
	}
	per := c.Layers / par.PP
	var slowest, slowestComm float64
	slowestAt, kernels := 0, 0
	unfused := make([]float64, par.PP) // each stage's weights with gradients of their own
	for st := 0; st < par.PP; st++ {
		layer := bt[1]
		r := float64(per)
		sg := StageTime{Layers: per, Forward: r * layer.fw, Backward: r * layer.bw, Comm: r * layer.comm, Params: r * mg.Params[1], Activations: r * acts[1]}
		unfused[st] = r * mg.Unfused[1]
		k := per * layer.kernels
		add := func(i int) { // the embeddings' or the head's block, once
			sg.Forward += bt[i].fw
			sg.Backward += bt[i].bw
			sg.Comm += bt[i].comm
			sg.Params += mg.Params[i]
			sg.Activations += acts[i]
			unfused[st] += mg.Unfused[i]
			k += bt[i].kernels
		}
		if st == 0 {
			add(0)
		}
		if st == par.PP-1 {
			add(2)
			if par.PP > 1 {
				sg.Params += mg.Params[0] - float64(c.Positions)*float64(c.Dim) // the tied embedding's copy
			}
		}
		sg.Activations *= float64(min(par.PP-st, par.MicroBatches)) // micro-batches in flight
		it.Stages = append(it.Stages, sg)
		kernels = max(kernels, k)
		// within Pipeline: every stage's for the first micro-batch, the
		// slowest stage's for each of the rest (the stages' run at once)
		it.TensorComm += sg.Comm
	}
	// a pipeline's exchange of one micro-batch over a hop: its hidden
	// states down and a gradient up at once (send_backward_recv_forward,
	// send_forward_recv_backward: one transfer's time on a link that
	// carries both directions), over the nodes' link where the hop
	// crosses nodes
	one := func(cross bool) float64 {
		if cross {
			return link.data().Send(mg.Activation)
		}
		return node.Send(mg.Activation)
	}
	// each stage's steady exchanges, a micro-batch's: an end stage's over
	// its one hop, a middle stage's over both, each at its own hop's speed
	exch := make([]float64, par.PP)
	if par.PP > 1 {
		for st := range par.PP {
			if st > 0 {
				exch[st] += one(hops[st-1])
			}
			if st < par.PP-1 {
				exch[st] += one(hops[st])
			}
		}
	}
	// the slowest stage sets every micro-batch's pace after the first,
	// its exchanges included (chosen without them, a middle stage's sends
	// over a slow hop between nodes went uncounted: a reviewer's find)
	for st, sg := range it.Stages {
		if whole := sg.Forward + sg.Backward + sg.Comm; st == 0 || whole+exch[st] > slowest+exch[slowestAt] {
			slowest, slowestComm, slowestAt = whole, sg.Comm, st
		}
	}
	it.TensorComm += float64(par.MicroBatches-1) * slowestComm
	if par.TP > 1 {
		// the same for the all-reduces hidden under weight gradients (of
		// the first stage's head-less blocks, the slowest's others)
		stageHidden := func(st int) float64 {
			h := float64(per) * layerHidden
			if st == par.PP-1 {
				h += hidden
			}
			return h
		}
		for st := range par.PP {
			it.HiddenComm += stageHidden(st)
		}
		it.HiddenComm += float64(par.MicroBatches-1) * stageHidden(slowestAt)
	}
	var first float64 // the first micro-batch, through every stage and back
	for _, sg := range it.Stages {
		first += sg.Forward + sg.Backward + sg.Comm
	}
	mb := float64(par.MicroBatches)
	it.Pipeline = first + (mb-1)*slowest
	if par.PP > 1 {
		// the first micro-batch's hidden states down every hop and their
		// gradients back up; then, for each other micro-batch, the slowest
		// stage's exchanges
		for _, cross := range hops {
			it.PipelineSends += 2 * one(cross)
		}
		it.PipelineSends += float64(par.MicroBatches-1) * exch[slowestAt]
		it.Pipeline += it.PipelineSends
	}
	// the idle time: the pipeline beyond every micro-batch at the slowest
	// stage's pace, its exchanges included
	it.Bubble = it.Pipeline - mb*(slowest+exch[slowestAt])
	// the gradients: the largest stage's weights on one GPU
	var params float64
	for _, sg := range it.Stages {
		params = max(params, sg.Params)
	}
	// Megatron's DDP, at any number of replicas, checks the buffer's norm
	// for NaN (check_for_nan_in_loss_and_grad, on by default: 4 bytes a
	// weight) and divides it by the replicas (8) before the all-reduce
	it.GradientAllReduce = m.stream(s, 4*params) + m.stream(s, 8*params)
	if par.DP > 1 {
		it.GradientAllReduce += dpLink.AllReduce(4*params, par.DP)
	}
	if par.PP > 1 {
		// the word embedding, on the first and last stages, summed
		it.GradientAllReduce += tiedLink.AllReduce(4*float64(paddedVocab(c.Vocab, par.TP)/par.TP)*float64(c.Dim), 2)
	}
	// the fp32 grad buffer zeroed (4 bytes a weight), and each
	// micro-batch's gradients of the weights that have their own added
	// into it (12; the products accumulate theirs in place), then the
	// norm (4) and Adam (28)
	var most float64
	for _, u := range unfused {
		most = max(most, u)
	}
	it.Accumulate = m.stream(s, 4*params) + m.stream(s, 12*most)*mb
	it.Optimizer = m.stream(s, 32*params)
	it.Total = it.Pipeline + it.Accumulate + it.GradientAllReduce + it.Optimizer
	it.Kernels = kernels * par.MicroBatches
	return it, nil
}

// stream is the time to move bytes through memory in large elementwise
// kernels, as the model times an add of that traffic.
func (m *Model) stream(s Spec, bytes float64) float64 {
	if bytes <= 0 {
		return 0
	}
	n := int(math.Ceil(bytes / 12))
	k := Kernel{Op: "add", Rows: 1, Width: n, Inputs: 2, Outputs: 1}
	return m.Kernel(s, &k)
}
