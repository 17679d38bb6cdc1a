package gpu

import (
	"fmt"
	"slices"

	"github.com/wb-sim/wb/datasets/neusight"
	"github.com/wb-sim/wb/dnn"
)

// Block is a run of kernels repeated Repeat times (a model's layers).
type Block struct {
	Name    string
	Repeat  int
	Kernels []Kernel
}

// Program is the kernels one forward pass of a model launches, in order, as
// Hugging Face's eager PyTorch code launches them (the torch.fx graphs
// beside NeuSight's labels show them node by node).
type Program struct {
	Model      string
	Seq, Batch int
	Blocks     []Block
	// PostNorm says the model normalises after each residual sum (BERT):
	// the norm's output, not the sum, is what later layers read.
	PostNorm bool
}

// Count is the number of kernels the program's forward pass launches.
func (p *Program) Count() int {
	n := 0
	for _, b := range p.Blocks {
		for i := range b.Kernels {
			if !b.Kernels[i].View {
				n += b.Repeat
			}
		}
	}
	return n
}

// lowering builds a block's kernels.
type lowering struct {
	ks []Kernel
}

func (l *lowering) linear(rows, in, out int, bias bool) {
	op := neusight.Linear
	l.ks = append(l.ks, Kernel{Op: op, Batch: 1, M: rows, K: in, N: out, Bias: bias})
}

// alsoOnInput marks the last kernel as reading an activation an earlier
// kernel keeps already (Kernel.SharedInput).
func (l *lowering) alsoOnInput() { l.last().SharedInput = true }

// qkv is three projections of one input of rows × in: queries (out wide),
// keys and values (kv wide).
func (l *lowering) qkv(rows, in, out, kv int, bias bool) {
	l.linear(rows, in, out, bias)
	l.linear(rows, in, kv, bias)
	l.sharedInput()
	l.linear(rows, in, kv, bias)
	l.sharedInput()
}

func (l *lowering) bmm(batch, m, k, n int) {
	l.ks = append(l.ks, Kernel{Op: neusight.BMM, Batch: batch, M: m, K: k, N: n})
}

// ew is an elementwise kernel over a tensor of rows × width values (width
// its last dimension, rows the others', as NeuSight's ops are shaped)
// reading inputs tensors.
func (l *lowering) ew(op string, rows, width int, inputs int) {
	l.ks = append(l.ks, Kernel{Op: op, Rows: rows, Width: width, Inputs: inputs, Outputs: 1})
}

func (l *lowering) rows(op string, rows, width int) {
	l.ks = append(l.ks, Kernel{Op: op, Rows: rows, Width: width})
}

// copy is a contiguous() or reshape copy of rows × width: one read, one
// write.
func (l *lowering) copy(rows, width int) { l.ew("copy", rows, width, 1) }

// headCopy is a copy of attention's heads split for torch.matmul or
// merged after it: in training its gradient is copied back (GradCopy).
func (l *lowering) headCopy(rows, width int) {
	l.copy(rows, width)
	l.last().Grad = GradCopy
}

// matmulCopy is torch.matmul's reshape of attention's permuted heads
// ([batch, heads, seq, width]) to three dimensions: a copy (headCopy), or
// a view (view; Kernel.View) where the batch dimensions merge without one
// (one sequence; or one token, where a sequence's heads lie next to each
// other). Its gradient is copied back by the view's backward, a reshape
// of the permuted gradient, unless the sequence is one token (seq1): then
// that gradient is laid out as the reshape wants it.
func (l *lowering) matmulCopy(rows, width int, view, seq1 bool) {
	l.headCopy(rows, width)
	l.last().View = view
	if seq1 {
		l.last().Grad = GradNone
	}
}

// residual is a residual add of rows × width: its residual input is read
// by the sub-layer too, so in training autograd sums the two gradients of
// it (Kernel.Sums).
func (l *lowering) residual(rows, width int) {
	l.ew("add", rows, width, 2)
	l.last().Sums = 1
}

// sharedInput marks the last kernel as reading an input another kernel
// reads too: its gradient is summed with theirs in training (Kernel.Sums);
// its activation is kept once (Kernel.SharedInput).
func (l *lowering) sharedInput() {
	l.alsoOnInput()
	l.last().Sums = 1
}

// nonzero is torch.nonzero over a mask of n values, as a boolean index
// runs it (see nonzero): no gradient.
func (l *lowering) nonzero(n int) { l.ks = append(l.ks, nonzero(n)...) }

// gather looks up tokens rows of dim values in a table of table rows.
func (l *lowering) gather(tokens, dim, table int) {
	l.ks = append(l.ks, Kernel{Op: "embedding", Rows: tokens, Width: dim, Inputs: 1, Outputs: 1, Table: table})
}

// last is the kernel added last.
func (l *lowering) last() *Kernel { return &l.ks[len(l.ks)-1] }

// noGrad marks the last kernel as one whose output needs no gradient.
func (l *lowering) noGrad() { l.last().Grad = GradNone }

// rmsNorm is an RMS norm over rows of width (LlamaRMSNorm, T5LayerNorm:
// x·rsqrt(mean(x²) + ε)·w): pow, the mean, ε and rsqrt over rows (one
// reduction here; the two on a row's scalar are tiny), and two multiplies
// of the whole tensor; its backward as autograd runs it (GradRMS, the
// pow's in it), x's two gradients summed.
func (l *lowering) rmsNorm(rows, width int) {
	l.ew("powu", rows, width, 1)
	l.noGrad() // its backward is the reduction's (GradRMS)
	l.rows(neusight.LN, rows, width)
	l.last().Grad = GradRMS
	l.ew("mul", rows, width, 2)
	l.last().Sums = 1 // x, read by pow too
	l.ew("mul", rows, width, 2)
}

// act is an activation as Hugging Face computes it.
func (l *lowering) act(name string, rows, width int) error {
	switch name {
	case "gelu", "gelu_pytorch_tanh":
		l.ew("gelu", rows, width, 1)
	case "gelu_python":
		// x · 0.5 · (1 + erf(x / √2)): five kernels
		l.ew("divu", rows, width, 1)
		l.last().Sums = 1            // x is read by the last product too
		l.ew("tanh", rows, width, 1) // erf: one transcendental kernel
		l.ew("addu", rows, width, 1)
		l.ew("mulu", rows, width, 1)
		l.ew("mul", rows, width, 2)
		l.last().Reuse = 1
	case "gelu_new", "gelu_fast":
		// (gelu_fast's x·x·x in place of pow is one kernel more; counted
		// as gelu_new)
		// NewGELUActivation: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), eight kernels
		// x is read three times: autograd sums its three gradients
		l.ew("mulu", rows, width, 1)
		l.ew("powu", rows, width, 1)
		l.last().Sums = 1
		l.ew("mulu", rows, width, 1)
		l.ew("add", rows, width, 2)
		l.last().Reuse, l.last().Sums = 1, 1 // x + …: x was read by pow
		l.ew("mulu", rows, width, 1)
		l.ew("tanh", rows, width, 1)
		l.ew("addu", rows, width, 1)
		l.ew("mul", rows, width, 2)
		l.last().Reuse = 1 // 0.5·x · (…)
	case "relu":
		l.ew("relu", rows, width, 1)
	case "silu", "swish":
		l.ew("gelu", rows, width, 1) // one transcendental kernel like GELU's
	case "tanh":
		l.ew("tanh", rows, width, 1)
	default:
		return fmt.Errorf("activation %q not supported (known: gelu, gelu_new, relu, silu, tanh)", name)
	}
	return nil
}

// outputAndFF is the rest of a transformer layer after attention: the
// output projection, dropout and residual add, a layer norm, the
// feed-forward network (two biased linears around the activation), dropout
// and residual add.
func (l *lowering) outputAndFF(t, d, ff int, act string, train bool) error {
	l.linear(t, d, d, true)
	if train {
		l.ew("dropout", t, d, 1)
	}
	l.residual(t, d)
	l.rows(neusight.LN, t, d)
	l.linear(t, d, ff, true)
	err := l.act(act, t, ff)
	l.linear(t, ff, d, true)
	if train {
		l.ew("dropout", t, d, 1)
	}
	l.residual(t, d)
	return err
}

// attention is scaled dot-product attention over batch sequences of seq
// tokens: scores, scale, mask, softmax, dropout, weighted sum, merge.
func (l *lowering) attention(batch, seq, heads, headDim int, train bool, dropout bool, kvContiguous bool) {
	bh := batch * heads
	// torch.matmul on the permuted q and kᵀ reshapes them to three
	// dimensions: a copy each, unless a view (matmulCopy); keys and values
	// repeated over the heads (repeat_kv) are laid out as the product
	// reads them already
	view := batch == 1 || seq == 1
	l.matmulCopy(batch*seq*heads, headDim, view, seq == 1)
	l.matmulCopy(batch*seq*heads, headDim, view || kvContiguous, seq == 1)
	l.bmm(bh, seq, headDim, seq)
	l.ew("divu", bh*seq, seq, 1) // ÷ √d
	l.ew("add", bh*seq, seq, 1)  // + mask (broadcast: the scores are the traffic)
	l.rows(neusight.Softmax, bh*seq, seq)
	if train && dropout {
		l.ew("dropout", bh*seq, seq, 1)
	}
	l.matmulCopy(batch*seq*heads, headDim, view || kvContiguous, seq == 1) // v, permuted, for the context's matmul
	l.bmm(bh, seq, seq, headDim)
	if !(train && dropout) {
		l.alsoOnInput() // the softmax's output itself
	}
	l.headCopy(batch*seq*heads, headDim) // the heads merged: contiguous()
}

// Lower builds the forward program of the model c for batch sequences of
// seq tokens; train adds the dropouts training runs.
func Lower(c *dnn.HFConfig, seq, batch int, train bool) (*Program, error) {
	if err := checkShape(c, seq, batch); err != nil {
		return nil, err
	}
	p := &Program{Model: c.Name, Seq: seq, Batch: batch}
	t := seq * batch
	d, ff := c.Dim, c.FF
	var err error
	// a dropout of probability 0 launches no kernel (ATen returns its
	// input)
	drop := func(l *lowering, rows, width int, p float64) {
		if train && p > 0 {
			l.ew("dropout", rows, width, 1)
		}
	}
	resid := train && c.Dropout > 0 // the sub-layers' output dropouts
	switch c.ModelType {
	case "bert":
		pre := &lowering{}
		pre.gather(t, d, c.Vocab)
		pre.gather(t, d, c.TokenTypes)
		pre.ew("add", t, d, 2)
		pre.gather(seq, d, c.Positions)
		pre.ew("add", t, d, 2)
		pre.last().Grad, pre.last().GradReduce = GradExpand, batch // the positions' gradient, summed over the batch
		pre.rows(neusight.LN, t, d)
		drop(pre, t, d, c.EmbedDropout)
		layer := &lowering{}
		layer.qkv(t, d, d, d, true)
		layer.attention(batch, seq, c.Heads, c.HeadDim, train, c.AttnDropout > 0, false)
		err = layer.outputAndFF(t, d, ff, c.Act, resid)
		layer.rows(neusight.LN, t, d)
		post := &lowering{}
		post.linear(batch, d, d, true)
		if train {
			post.noGrad() // the pooler: NeuSight's loss reads the masked-LM logits alone
		}
		post.ew("tanh", batch, d, 1)
		if train {
			post.noGrad()
			// BertForPreTraining: the masked-LM head over every token and
			// the next-sentence head
			post.linear(t, d, d, true)
			if e := post.act(c.Act, t, d); e != nil {
				err = e
			}
			post.rows(neusight.LN, t, d)
			post.linear(t, d, c.Vocab, true)
			post.linear(batch, d, 2, true)
			post.noGrad() // the next-sentence head: not in the loss
		} else {
			// BertForSequenceClassification: two classes
			post.linear(batch, d, 2, true)
		}
		p.Blocks = []Block{{"embeddings", 1, pre.ks}, {"layer", c.Layers, layer.ks}, {"head", 1, post.ks}}
		p.PostNorm = true
	case "gpt2":
		pre := &lowering{}
		pre.gather(t, d, c.Vocab)
		pre.gather(seq, d, c.Positions)
		pre.ew("add", t, d, 2)
		pre.last().Grad, pre.last().GradReduce = GradExpand, batch // the positions' gradient, summed over the batch
		drop(pre, t, d, c.EmbedDropout)
		layer := &lowering{}
		layer.rows(neusight.LN, t, d)
		layer.linear(t, d, 3*d, true) // c_attn (Conv1D: addmm)
		// split into q, k and v: views, whose gradients a cat joins
		layer.copy(t, 3*d)
		layer.last().Grad, layer.last().View = GradCopy, true
		bh := batch * c.Heads
		// (split from c_attn, a token's q, k and v lie 3 × width apart: at
		// one token a sequence and more sequences the heads do not merge
		// into a view, a reviewer's find)
		view := batch == 1
		layer.matmulCopy(t*c.Heads, c.HeadDim, view, seq == 1) // q and kᵀ, split from c_attn and permuted, reshaped by matmul
		layer.matmulCopy(t*c.Heads, c.HeadDim, view, seq == 1)
		layer.bmm(bh, seq, c.HeadDim, seq)
		if !c.NoAttnScale {
			layer.ew("divu", bh*seq, seq, 1) // ÷ √d (scale_attn_weights)
		}
		if c.ScaleByLayer {
			layer.ew("divu", bh*seq, seq, 1) // ÷ (layer index + 1)
		}
		layer.ew("add", bh*seq, seq, 1) // torch.where with the causal mask
		layer.last().Grad = GradWhere
		layer.rows(neusight.Softmax, bh*seq, seq)
		drop(layer, bh*seq, seq, c.AttnDropout)
		layer.matmulCopy(t*c.Heads, c.HeadDim, view, seq == 1) // v
		layer.bmm(bh, seq, seq, c.HeadDim)
		if !(train && c.AttnDropout > 0) {
			layer.alsoOnInput() // the softmax's output itself
		}
		layer.headCopy(t*c.Heads, c.HeadDim)
		err = layer.outputAndFF(t, d, ff, c.Act, resid)
		post := &lowering{}
		post.rows(neusight.LN, t, d)
		post.linear(t, d, c.Vocab, false)
		p.Blocks = []Block{{"embeddings", 1, pre.ks}, {"layer", c.Layers, layer.ks}, {"head", 1, post.ks}}
	case "opt":
		pre := &lowering{}
		pre.gather(t, c.EmbedProj, c.Vocab)
		// the causal and padding masks over batch × seq × seq, built
		// from the attention mask: no gradient
		for range 4 {
			pre.ew("relu", batch*seq, seq, 1)
			pre.noGrad()
		}
		pre.gather(t, d, c.Positions+2) // OPTLearnedPositionalEmbedding's offset of 2
		if c.EmbedProj != d {
			pre.linear(t, c.EmbedProj, d, false)
		}
		pre.ew("add", t, d, 2) // no dropout here: OPTDecoder has none on the embeddings
		layer := &lowering{}
		if !c.PostNorm {
			layer.rows(neusight.LN, t, d) // self_attn_layer_norm, before
		}
		layer.linear(t, d, d, true)
		layer.ew("mulu", t, d, 1) // q × scaling
		layer.linear(t, d, d, true)
		layer.sharedInput()
		layer.headCopy(t*c.Heads, c.HeadDim)
		layer.linear(t, d, d, true)
		layer.sharedInput()
		layer.headCopy(t*c.Heads, c.HeadDim)
		layer.headCopy(t*c.Heads, c.HeadDim)
		bh := batch * c.Heads
		layer.bmm(bh, seq, c.HeadDim, seq)
		layer.ew("add", bh*seq, seq, 1) // + mask
		layer.ew("add", bh*seq, seq, 1) // torch.max with the dtype's minimum
		layer.last().Grad = GradMaximum
		layer.rows(neusight.Softmax, bh*seq, seq)
		drop(layer, bh*seq, seq, c.AttnDropout) // OPT's attention_dropout is 0 by default: no kernel
		layer.bmm(bh, seq, seq, c.HeadDim)
		if !(train && c.AttnDropout > 0) {
			layer.alsoOnInput() // the softmax's output itself
		}
		layer.headCopy(t*c.Heads, c.HeadDim)
		// (post-norm: the norm between the residual and the feed-forward
		// is self_attn_layer_norm, after; final_layer_norm closes the layer)
		err = layer.outputAndFF(t, d, ff, c.Act, resid)
		post := &lowering{}
		if c.PostNorm {
			layer.rows(neusight.LN, t, d)
			p.PostNorm = true // as BERT: later layers read the norm's output
		} else {
			post.rows(neusight.LN, t, d) // the decoder's final_layer_norm
		}
		if c.EmbedProj != d {
			post.linear(t, d, c.EmbedProj, false)
		}
		post.linear(t, c.EmbedProj, c.Vocab, false)
		p.Blocks = []Block{{"embeddings", 1, pre.ks}, {"layer", c.Layers, layer.ks}, {"head", 1, post.ks}}
	case "llama":
		pre := &lowering{}
		pre.gather(t, d, c.Vocab)
		kv, inner := c.KVHeads*c.HeadDim, c.Heads*c.HeadDim // inner: d, unless head_dim says otherwise
		layer := &lowering{}
		layer.rmsNorm(t, d)
		layer.qkv(t, d, inner, kv, c.AttnBias)
		// rotary embedding of q (width inner) and k (width kv): x·cos +
		// rotate_half(x)·sin
		for _, w := range []int{inner, kv} {
			layer.ew("mul", t, w, 2)
			layer.last().Grad = GradOne // cos: no gradient
			layer.ew("mulu", t, w/2, 1) // rotate_half's −x2
			layer.noGrad()              // (its backward is the cat's: GradRotate)
			layer.copy(t, w)            // cat(−x2, x1)
			// x is read by the product by cos and by its two halves'
			// slices: two sums
			layer.last().Grad, layer.last().Sums = GradRotate, 2
			layer.ew("mul", t, w, 2)
			layer.last().Grad = GradOne // sin
			layer.ew("add", t, w, 2)
		}
		if kv != inner {
			// repeat_kv: k and v expanded over the heads that share them,
			// copied by the reshape; the expand's gradient sums them back.
			// One key-value head (multi-query) reshapes as a view, its
			// expanded heads merging with a dimension of one; torch.matmul
			// then copies them where the batch dimension cannot merge with
			// the heads' stride of 0 (more than one sequence), the same
			// bytes as repeat_kv's copy, and at one sequence not at all
			layer.copy(2*t, inner)
			layer.last().Grad, layer.last().GradReduce = GradExpand, inner/kv
			layer.last().View = c.KVHeads == 1 && batch == 1
		}
		layer.attention(batch, seq, c.Heads, c.HeadDim, train, c.AttnDropout > 0, kv != inner)
		layer.linear(t, inner, d, c.OutBias)
		layer.residual(t, d)
		layer.rmsNorm(t, d)
		layer.linear(t, d, ff, c.MLPBias)
		err = layer.act(c.Act, t, ff)
		layer.linear(t, d, ff, c.MLPBias) // up, on the gate's input
		layer.sharedInput()
		layer.ew("mul", t, ff, 2)
		layer.linear(t, ff, d, c.MLPBias)
		layer.residual(t, d)
		post := &lowering{}
		post.rmsNorm(t, d)
		post.linear(t, d, c.Vocab, false)
		p.Blocks = []Block{{"embeddings", 1, pre.ks}, {"layer", c.Layers, layer.ks}, {"head", 1, post.ks}}
	case "switch_transformers":
		p.Blocks, err = lowerSwitch(c, seq, batch, train)
	default:
		return nil, fmt.Errorf("gpu: %s: model type %q cannot be lowered", c.Name, c.ModelType)
	}
	if err != nil {
		return nil, fmt.Errorf("gpu: %s: %w", c.Name, err)
	}
	if seq == 1 {
		oneToken(p, c)
	}
	if train {
		accumulateGrads(p, c)
		lossBackward(p, c)
	}
	return p, nil
}

// oneToken makes the heads' explicit copies of a program of one token a
// sequence views with no gradient: contiguous() of heads permuted across
// a dimension of 1 (OPT's q, k and v; every model's heads merged after
// attention) finds the tensor contiguous already and copies nothing, and
// so does the backward's reshape of the permuted gradient (a reviewer's
// find). torch.matmul's reshapes are matmulCopy's.
func oneToken(p *Program, c *dnn.HFConfig) {
	for _, b := range p.Blocks {
		for i := range b.Kernels {
			if k := &b.Kernels[i]; k.Op == "copy" && k.Grad == GradCopy && k.Width == c.HeadDim && !k.View {
				k.View, k.Grad = true, GradNone
			}
		}
	}
}

// lossBackward marks the product of a training program's last block
// that writes the vocabulary's logits (Kernel.Loss): NeuSight's loop
// computes the cross-entropy between its timed forward and backward, so
// the loss's forward is not timed, but its backward is, inside
// loss.backward().
func lossBackward(p *Program, c *dnn.HFConfig) {
	if len(p.Blocks) == 0 {
		return
	}
	ks := p.Blocks[len(p.Blocks)-1].Kernels
	for i := len(ks) - 1; i >= 0; i-- {
		if ks[i].Op == neusight.Linear && ks[i].N == c.Vocab && ks[i].Grad != GradNone {
			ks[i].Loss = true
			return
		}
	}
}

// accumulateGrads marks the kernels of a training program that own
// parameters with them (Kernel.AccRows…): NeuSight's loop runs forward and
// backward 25 times and never zeroes the gradients, so every run it
// averages (the fastest five, never the first, which allocates them) adds
// each parameter's new gradient into the old, a kernel a tensor. A weight
// shared by two kernels (a tied embedding and head, Switch's one table for
// both stacks) takes one add a use all the same: autograd sums the
// contributions (InputBuffer), one add fewer, before its AccumulateGrad
// adds the sum. The norms of BERT, GPT-2 and OPT have a scale and a
// shift; Llama's RMSNorm and T5's a scale alone (on the reduction that
// stands for their mean).
func accumulateGrads(p *Program, c *dnn.HFConfig) {
	normVecs := 2
	if c.ModelType == "llama" || c.ModelType == "switch_transformers" {
		normVecs = 1
	}
	for b := range p.Blocks {
		ks := p.Blocks[b].Kernels
		for i := range ks {
			k := &ks[i]
			if k.Grad == GradNone {
				continue
			}
			switch {
			case k.Op == neusight.Linear && k.Batch == 1:
				k.AccRows, k.AccWidth = k.N, k.K
				if k.Bias {
					k.AccVecs, k.AccVecWidth = 1, k.N
				}
			case k.Op == "embedding" && k.Table > 0:
				k.AccRows, k.AccWidth = k.Table, k.Width
			case k.Op == neusight.LN:
				k.AccVecs, k.AccVecWidth = normVecs, k.Width
			}
		}
	}
}

// checkShape checks a sequence length and batch for c.
func checkShape(c *dnn.HFConfig, seq, batch int) error {
	if seq < 1 || batch < 1 || seq > neusight.MaxDim || batch > neusight.MaxDim {
		return fmt.Errorf("gpu: sequence %d, batch %d: want numbers in [1, %d]", seq, batch, neusight.MaxDim)
	}
	// the largest tensor, attention's scores, must count its elements
	// exactly in an int and a float64
	if e := float64(batch) * float64(max(c.Heads, 1)) * float64(seq) * float64(seq); e > 1<<52 {
		return fmt.Errorf("gpu: %s: sequence %d × batch %d gives attention scores of %.3g elements: more than 2^52", c.Name, seq, batch, e)
	}
	if err := c.CheckSeq(seq); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	return nil
}

// lowerSwitch lowers Switch Transformers (T5 layers, the sparse ones
// with a mixture of experts: dnn.SparseLayer) as NeuSight measured it:
// SwitchTransformersForConditionalGeneration's forward with the decoder fed
// the input ids, an encoder and a decoder over seq tokens each.
func lowerSwitch(c *dnn.HFConfig, seq, batch int, train bool) ([]Block, error) {
	t := seq * batch
	d, ff, inner := c.Dim, c.FF, c.Heads*c.HeadDim
	norm := func(l *lowering) { l.rmsNorm(t, d) } // T5LayerNorm
	drop := func(l *lowering, rows, width int) {
		if train && c.Dropout > 0 { // dropout_rate, everywhere
			l.ew("dropout", rows, width, 1)
		}
	}
	attn := func(l *lowering, self bool) {
		norm(l)
		// (cross-attention's keys and values read the encoder's output,
		// not the queries' input: counted once, a floor still)
		l.qkv(t, d, inner, inner, false)
		bh := batch * c.Heads
		view := batch == 1 || seq == 1
		l.matmulCopy(t*c.Heads, c.HeadDim, view, seq == 1) // q and kᵀ, transposed views, reshaped by matmul
		l.matmulCopy(t*c.Heads, c.HeadDim, view, seq == 1)
		l.bmm(bh, seq, c.HeadDim, seq) // T5 does not scale the scores
		// + the position bias, a full [batch, heads, seq, seq] tensor once the
		// mask is added to it: two tensors read. A self-attention's bias is
		// the relative-position embedding's [seq, seq, heads] permuted, and
		// the mask added to it kept that layout (PyTorch's elementwise ops
		// lay out their output as their first input is), so that the scores
		// (heads outermost) read it a head apart, a sector a value, each
		// sector serving the 8 heads that share it only while one head's
		// plane fits in L2 (Kernel.ReadStride). In training autograd sums the
		// layers' gradients of the shared bias, one add of the scores'
		// size a layer (Backward; counted for every layer, where the
		// first's is the sum's start: one add a stack too many). The
		// bias's batch sum and the table's gradient are left out.
		// Cross-attention's bias is
		// zeros plus the mask, in order.
		l.ew("add", bh*seq, seq, 2)
		if self {
			l.last().ReadStride, l.last().Plane = c.Heads, seq*seq
		}
		l.rows(neusight.Softmax, bh*seq, seq)
		drop(l, bh*seq, seq)
		l.matmulCopy(t*c.Heads, c.HeadDim, view, seq == 1) // v
		l.bmm(bh, seq, seq, c.HeadDim)
		if !train {
			l.alsoOnInput() // the softmax's output itself
		}
		l.headCopy(t*c.Heads, c.HeadDim)
		l.linear(t, inner, d, false)
		drop(l, t, d)
		l.residual(t, d)
	}
	var err error
	dense := func(l *lowering) {
		norm(l)
		l.linear(t, d, ff, false)
		if e := l.act(c.Act, t, ff); e != nil {
			err = e
		}
		drop(l, t, ff)
		l.linear(t, ff, d, false)
		drop(l, t, d)
		l.residual(t, d)
	}
	sparse := func(l *lowering) {
		norm(l)
		if train && c.RouterJitter {
			// the router's jitter noise: a uniform draw over the hidden
			// states, multiplied in (the draw needs no gradient)
			l.ew("relu", t, d, 1)
			l.noGrad()
			l.ew("mul", t, d, 2)
			l.last().Grad = GradOne
		}
		l.linear(t, d, c.Experts, false) // router
		l.rows(neusight.Softmax, t, c.Experts)
		// argmax, one_hot (zeros and a scatter), cumsum over the tokens,
		// ≤ capacity, × that mask, and the mask's argmax: no gradient
		for range 7 {
			l.ew("relu", t, c.Experts, 1)
			l.noGrad()
		}
		// max(router_probs).values: its gradient, zeros and the winners'
		// scattered in, reaches the softmax
		l.ew("relu", t, c.Experts, 1)
		l.last().Grad = GradScatter
		l.copy(t, d) // next_states = hidden_states.clone()
		// the normed states are read by the router, the clone and every
		// expert's gather: autograd sums their gradients
		l.last().Sums = c.Experts + 1
		// Every expert runs on a buffer of Capacity × batch rows, as
		// NeuSight's own MoE forward (set_moe in its trace.py) runs it:
		// zeros, then each expert's chosen tokens copied into its first
		// rows (a count_nonzero read by the host to slice it), the
		// expert on all the rows, and its chosen rows put back (the count
		// read again for the slice). The labels
		// follow that forward, not Hugging Face's: theirs, with NeuSight's
		// inputs (every token id 1, so every token's hidden state the same
		// in eval mode), would send every token to one expert, and the
		// A100's inference labels take 22 ms (batch 1) and 43 ms (batch 2)
		// more than one expert's work at 512 tokens, three experts'
		// capacity rows a sequence, which no host cost would double with
		// the batch. The buffer and the experts: Capacity rows a sequence;
		// the rows gathered and put back: the tokens shared out among the
		// experts, no more than that.
		per := c.Capacity * batch
		chosen := min(per, ceilDiv(t, c.Experts))
		l.ew("copy", per, d, 0) // the padded buffer's zeros
		l.noGrad()
		for range c.Experts {
			l.ew("relu", t, 1, 1) // the mask router_mask[:, :, e].bool()
			l.noGrad()
			l.ks = append(l.ks, countNonzero(t)...) // slicing the buffer by it
			l.nonzero(t)                            // hidden_states[mask]
			l.copy(chosen, d)                       // its tokens gathered
			l.last().Grad, l.last().Table = GradGather, t
			l.copy(chosen, d) // and copied into the buffer's first rows
			l.linear(per, d, ff, false)
			if e := l.act(c.Act, per, ff); e != nil {
				err = e
			}
			drop(l, per, ff) // each expert is a DenseActDense, dropout before wo
			l.linear(per, ff, d, false)
			// next_states[mask] = buffer[:num_chosen]: the slice reads the
			// count again (.item(), a synchronisation), the mask's nonzero
			l.ks = append(l.ks, Kernel{Op: OpSync, Grad: GradNone})
			l.nonzero(t)
			l.copy(chosen, d) // its rows put back
			l.last().Grad, l.last().Table = GradIndexPut, t
		}
		l.ew("mul", t, d, 2) // × router probability
		// the probability, one a token, broadcast over the width: its
		// gradient summed back over it (a view: GradExpand)
		l.copy(t, d)
		l.last().View, l.last().Grad, l.last().GradReduce = true, GradExpand, d
		drop(l, t, d)
		l.residual(t, d)
	}
	layers := func(name string, n, step int, cross bool) []Block {
		var out []Block
		for _, sp := range []bool{false, true} {
			count := 0
			for i := range n {
				if dnn.SparseLayer(i, step) == sp {
					count++
				}
			}
			if count == 0 {
				continue
			}
			l := &lowering{}
			attn(l, true)
			if cross {
				attn(l, false)
			}
			kind := "dense"
			if sp {
				sparse(l)
				kind = "sparse"
			} else {
				dense(l)
			}
			out = append(out, Block{name + " " + kind, count, l.ks})
		}
		return out
	}
	// each stack's position bias, made by its first layer and passed to
	// the others: the relative-position embedding looked up for every
	// pair of tokens ([seq, seq] buckets of a table of heads-wide rows)
	// and the mask added, for the decoder also cross-attention's zeros
	// plus the mask (the buckets' own arithmetic, on [seq, seq] integers,
	// is left out)
	bias := func(l *lowering, cross bool) {
		hs := batch * c.Heads * seq
		l.gather(seq*seq, c.Heads, c.Buckets)
		l.ew("add", hs, seq, 2)
		if cross {
			l.ew("copy", c.Heads*seq, seq, 0)
			l.ew("add", hs, seq, 2)
		}
	}
	enc, dec, head := &lowering{}, &lowering{}, &lowering{}
	enc.gather(t, d, c.Vocab)
	drop(enc, t, d)
	bias(enc, false)
	final := &lowering{}
	norm(final) // the encoder's final layer norm
	drop(final, t, d)
	dec.gather(t, d, c.Vocab) // the table shared with the encoder's
	drop(dec, t, d)
	bias(dec, true)
	norm(head) // the decoder's
	drop(head, t, d)
	if c.Tied {
		head.ew("mulu", t, d, 1) // × d^-0.5 before the tied head
	}
	head.linear(t, d, c.Vocab, false)
	blocks := []Block{{"embeddings", 1, enc.ks}}
	blocks = append(blocks, layers("encoder", c.EncLayers, c.EncStep, false)...)
	blocks = append(blocks, Block{"encoder norm", 1, final.ks}, Block{"decoder embeddings", 1, dec.ks})
	blocks = append(blocks, layers("decoder", c.Layers, c.DecStep, true)...)
	blocks = append(blocks, Block{"head", 1, head.ks})
	return blocks, err
}

// Backward is the kernels the backward pass of k launches, derived from its
// forward shape: a product's two gradient products (data and weights) and
// its bias's reduction; the gradient of an elementwise op, softmax or layer
// norm; an embedding's dense gradient.
func Backward(k Kernel) []Kernel {
	var out []Kernel
	if k.Loss {
		// the cross-entropy's gradient: nll_loss's zeroed gradient (its
		// scatter of one value a row left out), then log-softmax's
		// backward, reading that and the saved output, writing one
		out = append(out, Kernel{Op: "copy", Rows: k.M, Width: k.N, Outputs: 1},
			Kernel{Op: neusight.Softmax, Rows: k.M, Width: k.N, Extra: 1})
	}
	out = append(out, backward(k)...)
	if k.Grad != GradNone {
		in := k.Rows * k.Width // the input's size
		if k.Op == neusight.Linear {
			in = k.M * k.K
		}
		for range k.Sums {
			out = append(out, Kernel{Op: "add", Rows: 1, Width: in, Inputs: 2, Outputs: 1})
		}
	}
	if k.AccRows > 0 {
		out = append(out, Kernel{Op: "add", Rows: k.AccRows, Width: k.AccWidth, Inputs: 2, Outputs: 1})
	}
	for range k.AccVecs {
		out = append(out, Kernel{Op: "add", Rows: 1, Width: k.AccVecWidth, Inputs: 2, Outputs: 1})
	}
	return out
}

// countNonzero is torch.count_nonzero over a mask of n values read by the
// host: a count reduced, then a synchronisation.
func countNonzero(n int) []Kernel {
	return []Kernel{
		{Op: "sum", Rows: 1, Width: n, Inputs: 1, Outputs: 1, Reduce: n, Grad: GradNone},
		{Op: OpSync, Grad: GradNone},
	}
}

// nonzero is torch.nonzero over a mask of n values, as a boolean index
// runs it: the count (countNonzero), then the true positions selected
// and laid out as indices.
func nonzero(n int) []Kernel {
	return append(countNonzero(n),
		Kernel{Op: "copy", Rows: n, Width: 1, Inputs: 1, Outputs: 1, Grad: GradNone},
		Kernel{Op: "copy", Rows: n, Width: 1, Inputs: 1, Outputs: 1, Grad: GradNone})
}

// backward is Backward without the gradients' accumulation.
func backward(k Kernel) []Kernel {
	switch k.Grad {
	case GradNone:
		return nil
	case GradWhere:
		return []Kernel{{Op: k.Op, Rows: k.Rows, Width: k.Width, Inputs: k.Inputs, Outputs: 1}}
	case GradScaled:
		// the product's own gradients, each then multiplied by the constant
		k.Grad = GradOfOp
		prods := backward(k)
		out := slices.Clone(prods)
		for _, g := range prods {
			out = append(out, Kernel{Op: "mulu", Rows: g.Batch * g.M, Width: g.N, Inputs: 1, Outputs: 1})
		}
		return out
	case GradCopy:
		return []Kernel{{Op: "copy", Rows: k.Rows, Width: k.Width, Inputs: 1, Outputs: 1}}
	case GradOne:
		return []Kernel{{Op: "mul", Rows: k.Rows, Width: k.Width, Inputs: 2, Outputs: 1}}
	case GradGather:
		out := nonzero(k.Table)
		return append(out,
			Kernel{Op: "copy", Rows: k.Table, Width: k.Width, Outputs: 1},          // zeros of the whole tensor
			Kernel{Op: "copy", Rows: k.Rows, Width: 1, Inputs: 1, Outputs: 1},      // the indices sorted (index_put_with_sort)
			Kernel{Op: "copy", Rows: k.Rows, Width: 1, Inputs: 1, Outputs: 1},      // and their order
			Kernel{Op: "add", Rows: k.Rows, Width: k.Width, Inputs: 2, Outputs: 1}) // the rows' gradients added in
	case GradIndexPut:
		out := append(nonzero(k.Table), nonzero(k.Table)...)
		return append(out,
			Kernel{Op: "copy", Rows: k.Table, Width: k.Width, Inputs: 1, Outputs: 1}, // the gradient cloned
			Kernel{Op: "copy", Rows: k.Rows, Width: k.Width, Outputs: 1},             // zeros_like(values)
			Kernel{Op: "copy", Rows: k.Rows, Width: k.Width, Inputs: 1, Outputs: 1},  // put into the clone's rows
			Kernel{Op: "copy", Rows: k.Rows, Width: k.Width, Inputs: 1, Outputs: 1})  // the values' gradient gathered
	case GradRMS:
		rows, width := k.Rows, k.Width
		return []Kernel{
			{Op: "mulu", Rows: rows, Width: width, Inputs: 1, Outputs: 1},                          // mean's: g/d expanded
			{Op: "copy", Rows: rows, Width: width, Inputs: 1, Outputs: 1},                          // x.pow(1)
			{Op: "mulu", Rows: rows, Width: width, Inputs: 1, Outputs: 1},                          // × 2
			{Op: "mul", Rows: rows, Width: width, Inputs: 2, Outputs: 1},                           // × the gradient
			{Op: "sum", Rows: 1, Width: rows * width, Inputs: 1, Outputs: 1, Reduce: width},        // rsqrt's gradient, a row's sum
			{Op: "sum", Rows: 1, Width: rows * width, Inputs: 1, Outputs: 1, Reduce: max(rows, 1)}, // the scale's, over the tokens
		}
	case GradRotate:
		rows, half := k.Rows, k.Width/2
		return []Kernel{
			{Op: "mulu", Rows: rows, Width: half, Inputs: 1, Outputs: 1}, // −: negated back
			{Op: "copy", Rows: rows, Width: k.Width, Outputs: 1},         // x1's slice: zeros of x
			{Op: "copy", Rows: rows, Width: half, Inputs: 1, Outputs: 1}, // and its half copied in
			{Op: "copy", Rows: rows, Width: k.Width, Outputs: 1},         // x2's
			{Op: "copy", Rows: rows, Width: half, Inputs: 1, Outputs: 1},
		}
	case GradScatter:
		return []Kernel{
			{Op: "copy", Rows: k.Rows, Width: k.Width, Outputs: 1},      // zeros of the input's size
			{Op: "copy", Rows: k.Rows, Width: 1, Inputs: 1, Outputs: 1}, // the selected values' gradients scattered in
		}
	case GradExpand:
		if k.GradReduce <= 1 {
			return nil
		}
		return []Kernel{{Op: "sum", Rows: 1, Width: k.Rows * k.Width, Inputs: 1, Outputs: 1, Reduce: k.GradReduce}}
	case GradMaximum:
		rows, width := k.Rows, k.Width
		return []Kernel{
			{Op: "divu", Rows: rows, Width: width, Inputs: 1, Outputs: 1}, // g / 2
			{Op: "addu", Rows: rows, Width: width, Inputs: 1, Outputs: 1}, // x == c
			{Op: "add", Rows: rows, Width: width, Inputs: 2, Outputs: 1},  // where(…, g/2, g)
			{Op: "addu", Rows: rows, Width: width, Inputs: 1, Outputs: 1}, // x < c
			{Op: "mul", Rows: rows, Width: width, Inputs: 2, Outputs: 1},  // masked_fill_
		}
	}
	switch k.Op {
	case neusight.Linear:
		out := []Kernel{
			{Op: neusight.Linear, Batch: 1, M: k.M, K: k.N, N: k.K},       // dX = dY·W
			{Op: neusight.Linear, Batch: k.Batch, M: k.N, K: k.M, N: k.K}, // dW = dYᵀ·X
		}
		if k.Bias {
			// the bias's gradient: the output gradient's M rows summed
			out = append(out, Kernel{Op: "sum", Rows: 1, Width: k.M * k.N, Inputs: 1, Outputs: 1, Reduce: k.M})
		}
		return out
	case neusight.BMM:
		return []Kernel{
			{Op: neusight.BMM, Batch: k.Batch, M: k.M, K: k.N, N: k.K}, // dA = dC·Bᵀ
			{Op: neusight.BMM, Batch: k.Batch, M: k.K, K: k.M, N: k.N}, // dB = Aᵀ·dC
		}
	case neusight.Softmax:
		// one kernel: reads the output and its gradient, writes one
		return []Kernel{{Op: neusight.Softmax, Rows: k.Rows, Width: k.Width, Extra: 1}}
	case neusight.LN:
		// the input's gradient, then the scale's and shift's
		return []Kernel{{Op: neusight.LN, Rows: k.Rows, Width: k.Width}, {Op: neusight.LN, Rows: k.Rows, Width: k.Width}}
	case "embedding":
		// autograd's dense gradient of the table: zeroed, then the
		// tokens' gradients added into their rows
		out := []Kernel{{Op: "embedding", Rows: k.Rows, Width: k.Width, Inputs: 2, Outputs: 1}}
		if k.Table > 0 {
			out = append([]Kernel{{Op: "copy", Rows: k.Table, Width: k.Width, Outputs: 1}}, out...)
		}
		return out
	case "add", "addu", "copy":
		if k.ReadStride > 1 {
			// a bias shared by the layers (Switch's position bias):
			// autograd adds this layer's gradient of it to the others'
			return []Kernel{{Op: "add", Rows: k.Rows, Width: k.Width, Inputs: 2, Outputs: 1}}
		}
		return nil // the gradient passes through
	case "mul", "div", "pow":
		// a gradient for each operand
		return []Kernel{{Op: "mul", Rows: k.Rows, Width: k.Width, Inputs: 2, Outputs: 1}, {Op: "mul", Rows: k.Rows, Width: k.Width, Inputs: 2, Outputs: 1}}
	case "mulu", "divu":
		return []Kernel{{Op: "mulu", Rows: k.Rows, Width: k.Width, Inputs: 1, Outputs: 1}}
	case "powu":
		// pow_backward: g · (e · x^(e−1)), three kernels
		return []Kernel{
			{Op: "powu", Rows: k.Rows, Width: k.Width, Inputs: 1, Outputs: 1},
			{Op: "mulu", Rows: k.Rows, Width: k.Width, Inputs: 1, Outputs: 1},
			{Op: "mul", Rows: k.Rows, Width: k.Width, Inputs: 2, Outputs: 1},
		}
	case "dropout":
		// the gradient times the mask
		return []Kernel{{Op: "mul", Rows: k.Rows, Width: k.Width, Inputs: 2, Outputs: 1}}
	}
	// unary functions: the gradient times the derivative at the input
	return []Kernel{{Op: k.Op, Rows: k.Rows, Width: k.Width, Inputs: 2, Outputs: 1}}
}
