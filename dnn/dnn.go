// Package dnn describes deep neural networks as graphs of layers and
// counts their work: for every layer, pass and precision, the floating-
// point operations and the bytes read and written.
//
// # Conventions
//
//   - Shapes are per sample, without the batch dimension: [C, H, W] for
//     images, [T, D] for sequences, [D] for vectors. Work is for a batch.
//   - A multiply-add is 2 FLOPs. [Network.MACs] counts the forward
//     multiply-adds of the matrix layers (convolutions, linear layers,
//     matrix products), the figure papers and torchvision publish.
//   - Every tensor a pass touches is read or written once, in the
//     precision's width: activations, weights and gradients. Layers bound by
//     memory (normalisation, activations, pooling, elementwise sums) count
//     their traffic; Paleo treats them as free and so underestimates them.
//   - Passes: forward; backward-data (the gradient with respect to the
//     layer's input); backward-weights (with respect to its parameters);
//     update (SGD with momentum on fp32 master weights: v ← μv + g,
//     w ← w − ηv, 4 FLOPs, 3 reads and 2 writes of 4 bytes per parameter,
//     whatever the training precision, as mixed-precision training keeps
//     fp32 masters).
package dnn

import (
	"fmt"
	"strconv"
	"strings"
)

// Quantities of work.
type (
	// Flops counts floating-point operations (a multiply-add is 2).
	Flops float64
	// Bytes counts bytes moved to or from memory.
	Bytes float64
)

// Precision names a number format used for training.
type Precision string

// The precisions wb knows.
const (
	FP32 Precision = "fp32"
	TF32 Precision = "tf32" // fp32 storage, tensor-core products with a 10-bit mantissa
	FP16 Precision = "fp16"
	BF16 Precision = "bf16"
)

// Precisions lists the precisions in a fixed order.
var Precisions = []Precision{FP32, TF32, FP16, BF16}

// Size is the bytes of one value.
func (p Precision) Size() Bytes {
	switch p {
	case FP16, BF16:
		return 2
	}
	return 4
}

// ParsePrecision reads a precision's name.
func ParsePrecision(s string) (Precision, error) {
	for _, p := range Precisions {
		if strings.EqualFold(s, string(p)) {
			return p, nil
		}
	}
	return "", fmt.Errorf("unknown precision %q (known: fp32, tf32, fp16, bf16)", s)
}

// masterSize is the width of the weights the update pass works on.
const masterSize Bytes = 4

// Pass is one of the passes of a training iteration.
type Pass int

// The passes, in the order a training iteration runs them (backward
// passes run over the layers in reverse).
const (
	Forward Pass = iota
	BackwardData
	BackwardWeights
	Update
)

// Passes lists every pass.
var Passes = []Pass{Forward, BackwardData, BackwardWeights, Update}

func (p Pass) String() string {
	switch p {
	case Forward:
		return "fwd"
	case BackwardData:
		return "bwd-data"
	case BackwardWeights:
		return "bwd-weights"
	case Update:
		return "update"
	}
	return "Pass(" + strconv.Itoa(int(p)) + ")"
}

// ParsePass reads a pass's name: fwd, bwd-data, bwd-weights, update.
func ParsePass(s string) (Pass, error) {
	for _, p := range Passes {
		if s == p.String() {
			return p, nil
		}
	}
	return 0, fmt.Errorf("unknown pass %q (known: fwd, bwd-data, bwd-weights, update)", s)
}

// Work is what one layer does in one pass for one batch.
type Work struct {
	FLOPs   Flops
	Read    Bytes
	Written Bytes
	// Matrix marks work done as matrix products (GEMMs, convolutions),
	// which run at a device's matrix (tensor-core) peak; the rest runs at
	// its vector peak.
	Matrix bool
}

// Bytes is the traffic, read plus written.
func (w Work) Bytes() Bytes { return w.Read + w.Written }

// Intensity is FLOPs per byte moved (0 when nothing moves).
func (w Work) Intensity() float64 {
	if b := w.Bytes(); b > 0 {
		return float64(w.FLOPs) / float64(b)
	}
	return 0
}

// Add sums two works; the sum is a matrix work if either is.
func (w Work) Add(o Work) Work {
	return Work{FLOPs: w.FLOPs + o.FLOPs, Read: w.Read + o.Read, Written: w.Written + o.Written, Matrix: w.Matrix || o.Matrix}
}

// Shape is a per-sample tensor shape.
type Shape []int

// Elems is the number of values per sample.
func (s Shape) Elems() int64 {
	n := int64(1)
	for _, d := range s {
		n *= int64(d)
	}
	return n
}

func (s Shape) String() string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = strconv.Itoa(d)
	}
	return "[" + strings.Join(parts, "×") + "]"
}

// Layer is one operation of a network.
type Layer interface {
	// Op names the layer type: OpConv2D, OpLinear, OpBatchNorm, ...
	Op() Op
	// Out is the per-sample output shape.
	Out() Shape
	// Params is the number of trainable parameters.
	Params() int64
	// Work is what the layer does in pass p for a batch, in precision prec.
	Work(batch int, p Pass, prec Precision) Work
	// Key describes the layer's type and every shape parameter its work
	// depends on: two layers with the same key do the same work, so a
	// profiler measures one of them.
	Key() string
}

// Node is a layer in a network, with the nodes it reads.
type Node struct {
	Name  string
	Layer Layer
	// Inputs are indices of earlier nodes; -1 is the network's input.
	Inputs []int
}

// Network is a graph of layers in topological order.
type Network struct {
	Name  string
	Input Shape
	Nodes []Node
	// HostOpsPerSample is the framework operators the job's input
	// pipeline dispatches per sample on the training process's host,
	// between steps (none where the loader prepares samples in worker
	// processes or on the CPU alone): PyTorch's word_language_model as
	// Gavel runs it slices each sample from a tensor held on the GPU and
	// concatenates it with padding there, two torch.cat per sample.
	HostOpsPerSample int
	// HostSecondsPerSample is the host's own work per sample in the job's
	// input pipeline, seconds, done in the training process between
	// steps while the GPU waits (measured, not dispatch): recoder's
	// collation of a sparse batch as Gavel's recommendation job runs it
	// (scripts/recoder_input.py). 0 where the loader's work is not on the
	// step's path or not known.
	HostSecondsPerSample float64
	// Untimed names work of the job's iteration that a prediction from
	// its layers does not time, where it is known to matter: an A3C
	// worker's Atari emulator steps on the CPU between its passes. ""
	// where none is known. A prediction says it beside its figures.
	Untimed string
	// Calls is how many framework calls of the network a step makes on
	// its batch's share each, where the graph stands for them as one pass
	// of the whole batch (Gavel's CycleGAN calls each of its four networks
	// three times at batch 1, the work of one pass at batch 3): the host's
	// cost per operator is paid Calls times in every pass but the update.
	// 0 or 1: once.
	Calls int
}

// Params is the number of trainable parameters.
func (n *Network) Params() int64 {
	var p int64
	for i := range n.Nodes {
		p += n.Nodes[i].Layer.Params()
	}
	return p
}

// MACs is the forward multiply-accumulates of one sample in the matrix
// layers (convolutions, linear layers, matrix products, an LSTM's cells):
// their forward FLOPs halved, so a bias add counts as half a
// multiply-accumulate (0.1–0.3% of a zoo model's figure: recommendation's
// biases, lm's and a3c's LSTM cells).
func (n *Network) MACs() float64 {
	var m float64
	for i := range n.Nodes {
		if w := n.Nodes[i].Layer.Work(1, Forward, FP32); w.Matrix {
			m += float64(w.FLOPs) / 2
		}
	}
	return m
}

// Work sums the work of every layer in pass p.
func (n *Network) Work(batch int, p Pass, prec Precision) Work {
	var w Work
	for i := range n.Nodes {
		w = w.Add(n.Nodes[i].Layer.Work(batch, p, prec))
	}
	w.Matrix = false
	return w
}

// DataGradients reports, node by node, whether the node's backward-data
// pass runs in training: whether any of its inputs needs a gradient, as
// autograd decides. A node's output needs one when the node has weights,
// is a source (a sweep's stand-in for an activation) or reads an output
// that needs one; the network's input (images, token ids) needs none. So
// a layer that reads only the input, or only layers that themselves lead
// back to nothing with weights (a normalisation and a dropout on the
// input, then a linear layer), computes no gradient for its input.
func (n *Network) DataGradients() []bool {
	needs := make([]bool, len(n.Nodes)) // the node's output needs a gradient
	runs := make([]bool, len(n.Nodes))
	for i := range n.Nodes {
		l := n.Nodes[i].Layer
		for _, in := range n.Nodes[i].Inputs {
			if in >= 0 && needs[in] {
				runs[i] = true
			}
		}
		// a norm computes its weights' gradients in its data-gradient
		// pass, and an LSTM its recurrence's, which its weights' need:
		// theirs runs wherever their weights train
		if _, norm := l.(*elementwise); (norm || l.Op() == OpLSTM) && l.Params() > 0 {
			runs[i] = true
		}
		needs[i] = runs[i] || weighted(l) || l.Op() == OpSource
	}
	return runs
}

// weighted says whether a layer has weights that train: its own, or
// another layer's that it shares (a tied output layer without a bias, an
// embedding whose table is another's: their Params is 0).
func weighted(l Layer) bool {
	switch t := l.(type) {
	case *tiedLinear:
		return true
	case *embedding:
		if t.table == tiedTable {
			return true
		}
	}
	return l.Params() > 0
}

// Kept is a floor on the bytes of activations a training step keeps from
// the forward pass for the backward at the batch: the inputs of the layers
// whose gradients need them (a layer with weights but an embedding, whose
// input is token ids; a matrix product of two activations) and each
// softmax's output (its gradient is computed from it), each tensor once
// however many layers keep it. Autograd keeps more (activations' inputs or
// outputs, pooling's indices, dropout's masks), so the real figure is
// higher.
func (n *Network) Kept(batch int, prec Precision) float64 {
	kept := map[int]bool{}
	var total int64
	for i := range n.Nodes {
		l := n.Nodes[i].Layer
		if l.Op() == OpSoftmax && !kept[i] {
			kept[i] = true
			total += l.Out().Elems()
		}
		if op := l.Op(); op != OpMatMul && (!weighted(l) || op == OpEmbedding) {
			continue
		}
		for _, in := range n.Nodes[i].Inputs {
			if kept[in] {
				continue
			}
			kept[in] = true
			if in < 0 {
				total += n.Input.Elems()
			} else {
				total += n.Nodes[in].Layer.Out().Elems()
			}
		}
	}
	return float64(total) * float64(batch) * float64(prec.Size())
}

// Output is the shape of the last node.
func (n *Network) Output() Shape {
	if len(n.Nodes) == 0 {
		return n.Input
	}
	return n.Nodes[len(n.Nodes)-1].Layer.Out()
}
