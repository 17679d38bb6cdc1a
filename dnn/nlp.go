package dnn

import "fmt"

// This file holds the builders of sequence models' layers: embeddings,
// layer normalisation, softmax, dropout, products of two activations,
// LSTMs, and the attention and transformer blocks composed from them. Each
// layer type, with its work and its Describe, is in its own layer_*.go.

// indexSize is the width of a token id: PyTorch indexes with int64.
const indexSize Bytes = 8

// tableKind says who owns a lookup's table.
type tableKind int

const (
	ownTable    tableKind = iota // trained, counted here
	tiedTable                    // trained, counted at another layer that shares it
	frozenTable                  // fixed (sinusoidal positions): no gradient
)

// Embedding adds a lookup table of vocab rows of dim values: an input of T
// token ids ([T], one value per token) becomes [T, dim]; vocab×dim
// parameters.
//
// Work, for N = T × batch tokens:
//   - forward gathers rows: reads the N ids (8 bytes each, int64) and N×dim
//     weights, writes N×dim values; no FLOPs.
//   - backward-data: none (ids have no gradient).
//   - backward-weights is PyTorch's dense embedding gradient
//     (embedding_dense_backward, sparse=False): reads the ids and the N×dim
//     output gradient, adds each row into its token's row (N×dim FLOPs), and
//     writes the whole vocab×dim gradient (zeros included).
//   - update is dense over the whole table, as SGD on a dense gradient is.
func (b *Builder) Embedding(name string, x T, vocab, dim int) T {
	return b.lookup(name, x, vocab, dim, ownTable)
}

// lookup adds an embedding whose table is owned, tied to another layer's
// (no parameters or update of its own; its gradient is still computed) or
// frozen (no parameters, gradient or update).
func (b *Builder) lookup(name string, x T, vocab, dim int, table tableKind) T {
	return b.Add(name, func(in []Shape) (Layer, error) {
		s, err := one(in)
		if err != nil {
			return nil, err
		}
		if len(s) != 1 {
			return nil, fmt.Errorf("embedding wants a [T] input of token ids, got %v", s)
		}
		if vocab <= 0 || dim <= 0 {
			return nil, fmt.Errorf("embedding: vocabulary %d, dimension %d: want positive sizes", vocab, dim)
		}
		return &embedding{vocab: vocab, dim: dim, tokens: s[0], table: table}, nil
	}, x)
}

// LayerNorm adds layer normalisation over the last dimension (D), with a
// scale and a shift per value of it: 2×D parameters. Its work is counted
// as BatchNorm's: forward 7 FLOPs per value, reading the input twice
// (statistics, then normalisation) and writing once; backward 10 FLOPs per
// value, reading the gradient and the input twice (the row reductions for
// the input's gradient and the column reductions for the parameters'),
// writing the input's gradient, with the parameters' gradients folded into
// backward-data.
func (b *Builder) LayerNorm(name string, x T) T {
	return b.Add(name, func(in []Shape) (Layer, error) {
		s, err := one(in)
		if err != nil {
			return nil, err
		}
		if len(s) == 0 {
			return nil, fmt.Errorf("layernorm on a scalar")
		}
		return &elementwise{op: OpLayerNorm, shape: s, params: 2 * int64(s[len(s)-1]),
			fwdFlops: 7, fwdRead: 2, fwdWrite: 1, bwdFlops: 10, bwdRead: 4, bwdWrite: 1}, nil
	}, x)
}

// Softmax adds a softmax over the last dimension. Forward, per value: the
// row maximum, a subtraction, an exponential (4 FLOPs, as the package
// counts transcendentals), the row sum and a multiplication by its
// reciprocal, 8 FLOPs; it reads the input twice (the max-and-sum pass, then
// the normalisation) and writes once. Backward computes dx = y ⊙ (dy −
// Σ y⊙dy): 4 FLOPs per value, reading y and dy, writing dx.
func (b *Builder) Softmax(name string, x T) T { return b.softmax(name, x, false, false) }

// softmax adds a softmax, optionally fused with the attention scale
// (1/√d, one multiplication per value) and a causal mask (one select per
// value), as fused attention kernels do.
func (b *Builder) softmax(name string, x T, scaled, causal bool) T {
	return b.Add(name, func(in []Shape) (Layer, error) {
		s, err := one(in)
		if err != nil {
			return nil, err
		}
		if len(s) == 0 {
			return nil, fmt.Errorf("softmax on a scalar")
		}
		if causal && (len(s) < 2 || s[len(s)-1] != s[len(s)-2]) {
			return nil, fmt.Errorf("a causal mask wants square [..., T, T] scores, got %v", s)
		}
		f := 8.0
		if scaled {
			f++
		}
		if causal {
			f++
		}
		return &softmax{elementwise: elementwise{op: OpSoftmax, shape: s,
			fwdFlops: f, fwdRead: 2, fwdWrite: 1, bwdFlops: 4, bwdRead: 2, bwdWrite: 1},
			scaled: scaled, causal: causal}, nil
	}, x)
}

// maskSize is the width of a dropout mask value: PyTorch keeps a bool.
const maskSize Bytes = 1

// Dropout adds dropout with probability p (0 ≤ p < 1). Forward compares a
// random number with p and scales the kept values (2 FLOPs per value;
// generating the random numbers is integer work, not counted), reads x,
// writes y and a 1-byte mask. Backward multiplies the gradient by the mask
// and the scale (1 FLOP per value), reads dy and the mask, writes dx. The
// work does not depend on p.
func (b *Builder) Dropout(name string, x T, p float64) T {
	return b.Add(name, func(in []Shape) (Layer, error) {
		s, err := one(in)
		if err != nil {
			return nil, err
		}
		if !(p >= 0 && p < 1) {
			return nil, fmt.Errorf("dropout probability %v: want 0 ≤ p < 1", p)
		}
		return &dropout{shape: s}, nil
	}, x)
}

// MatMul adds the product of two activations, batched over their leading
// dimensions: [..., M, K] × [..., K, N] → [..., M, N], or, with transB,
// [..., M, K] × [..., N, K]ᵀ. The leading (batch) dimensions must be equal.
// It has no parameters. Forward is a GEMM per batch entry (2·M·K·N FLOPs
// each), reading both operands and writing the product. Backward-data
// computes both inputs' gradients, dA = dC·Bᵀ and dB = Aᵀ·dC: twice the
// forward FLOPs, reading dC twice and each operand once, writing both
// gradients; backward-weights and update do nothing.
func (b *Builder) MatMul(name string, x, y T, transB bool) T {
	return b.Add(name, func(in []Shape) (Layer, error) {
		if len(in) != 2 {
			return nil, fmt.Errorf("matmul takes two inputs, got %d", len(in))
		}
		a, c := in[0], in[1]
		if len(a) < 2 || len(c) < 2 {
			return nil, fmt.Errorf("matmul wants matrices [..., M, K] and [..., K, N], got %v and %v", a, c)
		}
		if len(a) != len(c) || a[:len(a)-2].String() != c[:len(c)-2].String() {
			return nil, fmt.Errorf("matmul: batch dimensions of %v and %v differ", a, c)
		}
		m, k := a[len(a)-2], a[len(a)-1]
		kb, n := c[len(c)-2], c[len(c)-1]
		if transB {
			kb, n = n, kb
		}
		if k != kb {
			what := "[..., K, N]"
			if transB {
				what = "[..., N, K] (transposed)"
			}
			return nil, fmt.Errorf("matmul: inner dimensions differ: %v has K=%d, %v as %s has K=%d", a, k, c, what, kb)
		}
		out := append(append(Shape(nil), a[:len(a)-2]...), m, n)
		return &matmul{a: a, bs: c, out: out, transB: transB,
			g: a[:len(a)-2].Elems(), m: int64(m), k: int64(k), n: int64(n)}, nil
	}, x, y)
}

// lstmCellFlops is the elementwise work of one LSTM cell per hidden unit
// and step: the bias adds, three sigmoids and two tanhs (5 FLOPs each, as
// Activation counts them) and the products of c ← f⊙c + i⊙g, h ← o⊙tanh(c).
const lstmCellFlops = 30

// LSTM adds a stack of LSTM layers (layers of them, each of hidden units
// H, as PyTorch's nn.LSTM) run over the sequence: [T, D] → [T, H]. Each layer has PyTorch's parameters, 4H(D_l +
// H) weights and two bias vectors of 4H, where D_l is D for the first layer
// and H after. Dropout between layers is not counted.
//
// Work per layer, for N = T × batch steps and G = 4H gates:
//   - forward: the gate GEMMs, 2·N·G·(D_l + H) FLOPs (matrix work), reading
//     the inputs and the previous hidden states (N·(D_l + H) values) and the
//     weights once, writing the gates (N·G); then the cell, 30 FLOPs per
//     hidden unit and step, reading the gates and the previous cell state
//     (N·(G + H)) and writing the cell and hidden states (2·N·H).
//   - backward-data: the cell's backward (30 FLOPs per unit and step),
//     reading the saved gates and cell state and the incoming gradients of h
//     and c (N·(G + 3H)), writing the gates' and cell's gradients (N·(G +
//     H)); then the data GEMMs, 2·N·G·(D_l + H) FLOPs, reading the gates'
//     gradients (N·G) and the weights, writing the gradients of the inputs
//     and previous hidden states (N·(D_l + H)).
//   - backward-weights: the weight GEMMs, 2·N·G·(D_l + H) FLOPs, plus N·G
//     for the bias gradients, reading the gates' gradients and the inputs
//     and hidden states (N·(G + D_l + H)), writing the parameters'
//     gradients.
//   - update: over all parameters.
//
// Every pass is marked as matrix work: the GEMMs dominate it (the cell's
// FLOPs are under 2% of them at H = D = 200).
func (b *Builder) LSTM(name string, x T, hidden, layers int) T {
	return b.Add(name, func(in []Shape) (Layer, error) {
		s, err := one(in)
		if err != nil {
			return nil, err
		}
		if len(s) != 2 {
			return nil, fmt.Errorf("lstm wants a [T, D] input, got %v", s)
		}
		if hidden <= 0 || layers <= 0 {
			return nil, fmt.Errorf("lstm: %d hidden units, %d layers: want positive sizes", hidden, layers)
		}
		return &lstm{in: s, hidden: hidden, depth: layers}, nil
	}, x)
}

// SelectToken adds the selection of position i of a sequence, [T, D] → [D]
// (BERT's pooler reads the first token). Forward copies D values per
// sample; backward writes the whole [T, D] input gradient, zeros but one
// row, reading D values.
func (b *Builder) SelectToken(name string, x T, i int) T {
	return b.Add(name, func(in []Shape) (Layer, error) {
		s, err := one(in)
		if err != nil {
			return nil, err
		}
		if len(s) != 2 {
			return nil, fmt.Errorf("select-token wants a [T, D] input, got %v", s)
		}
		if i < 0 || i >= s[0] {
			return nil, fmt.Errorf("select-token: position %d outside a sequence of %d", i, s[0])
		}
		return &selectToken{in: s}, nil
	}, x)
}

// TiedLinear adds a linear layer whose weight is another layer's (GPT-2's
// and the Transformer's output projections reuse the target embedding):
// its work is a linear layer's, reading the shared weight and writing its
// gradient, but the weight, and so its update, is counted where it is
// owned; only the bias, if any, is this layer's.
func (b *Builder) TiedLinear(name string, x T, out int, bias bool) T {
	return b.Add(name, func(in []Shape) (Layer, error) {
		l, err := newLinear(in, out, bias)
		if err != nil {
			return nil, err
		}
		return &tiedLinear{*l}, nil
	}, x)
}

// TransformerConfig configures attention and transformer layers.
type TransformerConfig struct {
	// Dim is the model width; Heads divides it.
	Dim, Heads int
	// FF is the width of the feed-forward network's hidden layer.
	FF int
	// Act is the feed-forward activation ("relu", "gelu", ...).
	Act string
	// PreNorm puts the layer normalisation before each sub-layer, inside
	// the residual branch (GPT-2); otherwise it follows the residual sum
	// (Vaswani et al., BERT).
	PreNorm bool
	// Causal masks attention to earlier positions (a decoder's self-
	// attention; DecoderLayer sets it there itself).
	Causal bool
	// Dropout is the probability of the dropouts on the attention
	// probabilities and on each sub-layer's output; 0 leaves them out.
	Dropout float64
	// With OwnAttnDropout, AttnDropout is the attention probabilities'
	// instead (a Hugging Face config's own; 0 leaves it out).
	AttnDropout    float64
	OwnAttnDropout bool
}

// Attention adds multi-head self-attention over x ([T, dim]) with no
// dropout; see MultiHeadAttention.
func (b *Builder) Attention(prefix string, x T, dim, heads int, causal bool) T {
	return b.MultiHeadAttention(prefix, x, x, TransformerConfig{Dim: dim, Heads: heads, Causal: causal})
}

// MultiHeadAttention adds multi-head attention of the queries q ([T, Dim])
// over the keys and values kv ([S, Dim]; kv is q for self-attention), as
// primitive layers named prefix+name: q, k, v (Linear Dim→Dim with bias);
// q.heads, k.heads, v.heads (views as [Heads, T, Dim/Heads]: the head
// split's permutation is read in place by strided batched GEMMs, taken as
// free); scores (MatMul q·kᵀ, [Heads, T, S]); softmax (fused with the
// 1/√(Dim/Heads) scale and, if Causal, the mask); dropout (if Dropout >
// 0); context (MatMul with v, [Heads, T, Dim/Heads]); merge (a view back to
// [T, Dim], also taken as free); out (Linear Dim→Dim).
func (b *Builder) MultiHeadAttention(prefix string, q, kv T, c TransformerConfig) T {
	if !b.check(prefix+"q", c.attentionErr(q, kv), q, kv) {
		return T{bad: true}
	}
	t, s := q.shape[0], kv.shape[0]
	dh := c.Dim / c.Heads
	qp := b.Linear(prefix+"q", q, c.Dim, true)
	kp := b.Linear(prefix+"k", kv, c.Dim, true)
	vp := b.Linear(prefix+"v", kv, c.Dim, true)
	qh := b.Reshape(prefix+"q.heads", qp, Shape{c.Heads, t, dh})
	kh := b.Reshape(prefix+"k.heads", kp, Shape{c.Heads, s, dh})
	vh := b.Reshape(prefix+"v.heads", vp, Shape{c.Heads, s, dh})
	a := b.MatMul(prefix+"scores", qh, kh, true)
	a = b.softmax(prefix+"softmax", a, true, c.Causal)
	p := c.Dropout
	if c.OwnAttnDropout {
		p = c.AttnDropout
	}
	if p > 0 {
		a = b.Dropout(prefix+"dropout", a, p)
	}
	ctx := b.MatMul(prefix+"context", a, vh, false)
	ctx = b.Reshape(prefix+"merge", ctx, Shape{t, c.Dim})
	return b.Linear(prefix+"out", ctx, c.Dim, true)
}

// attentionErr says what is wrong with attention of q over kv, or nil.
func (c TransformerConfig) attentionErr(q, kv T) error {
	switch {
	case c.Dim <= 0 || c.Heads <= 0 || c.Dim%c.Heads != 0:
		return fmt.Errorf("attention: %d heads do not divide width %d", c.Heads, c.Dim)
	case len(q.shape) != 2 || q.shape[1] != c.Dim:
		return fmt.Errorf("attention of width %d wants [T, %d] queries, got %v", c.Dim, c.Dim, q.shape)
	case len(kv.shape) != 2 || kv.shape[1] != c.Dim:
		return fmt.Errorf("attention of width %d wants [S, %d] keys and values, got %v", c.Dim, c.Dim, kv.shape)
	case c.Causal && q.shape[0] != kv.shape[0]:
		return fmt.Errorf("causal attention wants as many queries as keys, got %d and %d", q.shape[0], kv.shape[0])
	}
	return nil
}

// check records err against layer name, unless an input failed before (its
// error is recorded already); it reports whether the caller may go on.
func (b *Builder) check(name string, err error, inputs ...T) bool {
	for _, x := range inputs {
		if x.bad {
			return false
		}
	}
	if err != nil {
		b.errs = append(b.errs, fmt.Errorf("%s: layer %s: %w", b.net.Name, name, err))
		return false
	}
	return true
}

// TransformerEncoderLayer adds a transformer encoder layer without dropout;
// see EncoderLayer.
func (b *Builder) TransformerEncoderLayer(prefix string, x T, dim, heads, ff int, act string, preNorm bool) T {
	return b.EncoderLayer(prefix, x, TransformerConfig{Dim: dim, Heads: heads, FF: ff, Act: act, PreNorm: preNorm})
}

// EncoderLayer adds a transformer encoder layer on x ([T, Dim]): self-
// attention (prefix+"attn.") and a feed-forward network (prefix+"ffn.":
// fc1 Dim→FF, the activation, fc2 FF→Dim), each with a residual sum and a
// layer normalisation, placed after the sum (post-norm: ln1 after the
// attention, ln2 after the network) or, with PreNorm, before the sub-layer
// (ln1, ln2 on its input). Sub-layer outputs are followed by dropout when
// Dropout > 0.
func (b *Builder) EncoderLayer(prefix string, x T, c TransformerConfig) T {
	x = b.subLayer(prefix, "1", x, c, func(h T) T { return b.MultiHeadAttention(prefix+"attn.", h, h, c) })
	return b.subLayer(prefix, "2", x, c, func(h T) T { return b.feedForward(prefix+"ffn.", h, c) })
}

// DecoderLayer adds a transformer decoder layer on x ([T, Dim]) reading
// the encoder's output mem ([S, Dim]): causal self-attention
// (prefix+"self."), attention over mem (prefix+"cross."), and the
// feed-forward network (prefix+"ffn."), each with its residual sum and
// layer normalisation (ln1, ln2, ln3) placed as in EncoderLayer.
func (b *Builder) DecoderLayer(prefix string, x, mem T, c TransformerConfig) T {
	self, cross := c, c
	self.Causal, cross.Causal = true, false
	x = b.subLayer(prefix, "1", x, c, func(h T) T { return b.MultiHeadAttention(prefix+"self.", h, h, self) })
	x = b.subLayer(prefix, "2", x, c, func(h T) T { return b.MultiHeadAttention(prefix+"cross.", h, mem, cross) })
	return b.subLayer(prefix, "3", x, c, func(h T) T { return b.feedForward(prefix+"ffn.", h, c) })
}

// subLayer adds f's sub-layer on x with its dropout, residual sum
// (prefix+"add"+i) and layer normalisation (prefix+"ln"+i).
func (b *Builder) subLayer(prefix, i string, x T, c TransformerConfig, f func(T) T) T {
	h := x
	if c.PreNorm {
		h = b.LayerNorm(prefix+"ln"+i, x)
	}
	y := f(h)
	if c.Dropout > 0 {
		y = b.Dropout(prefix+"dropout"+i, y, c.Dropout)
	}
	y = b.Sum(prefix+"add"+i, x, y)
	if !c.PreNorm {
		y = b.LayerNorm(prefix+"ln"+i, y)
	}
	return y
}

// feedForward adds the position-wise network fc1, activation, fc2.
func (b *Builder) feedForward(prefix string, x T, c TransformerConfig) T {
	if !b.check(prefix+"fc1", c.ffErr(), x) {
		return T{bad: true}
	}
	h := b.Linear(prefix+"fc1", x, c.FF, true)
	h = b.Activation(prefix+"act", h, c.Act)
	return b.Linear(prefix+"fc2", h, c.Dim, true)
}

func (c TransformerConfig) ffErr() error {
	if c.FF <= 0 {
		return fmt.Errorf("feed-forward width %d: want a positive width", c.FF)
	}
	return nil
}
