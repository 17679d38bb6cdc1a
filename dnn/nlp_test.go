package dnn

import (
	"strings"
	"testing"
)

// only builds a network of one layer on an input of shape in, failing the
// test on an error, and returns the layer.
func only(t *testing.T, in Shape, add func(b *Builder, x T)) Layer {
	t.Helper()
	b, x := NewBuilder("t", in)
	add(b, x)
	n, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return n.Nodes[len(n.Nodes)-1].Layer
}

// checkWork compares a layer's work in every pass with want (a pass
// missing from want does nothing).
func checkWork(t *testing.T, l Layer, batch int, prec Precision, want map[Pass]Work) {
	t.Helper()
	for _, p := range Passes {
		if got := l.Work(batch, p, prec); got != want[p] {
			t.Errorf("%s %v: %+v, want %+v", l.Op(), p, got, want[p])
		}
	}
}

// TestNLPLayerWork checks each layer's work by hand on small shapes. The
// update pass is SGD with momentum on fp32 masters: 4 FLOPs, 12 bytes
// read and 8 written per parameter.
func TestNLPLayerWork(t *testing.T) {
	upd := func(p float64) Work { return Work{FLOPs: Flops(4 * p), Read: Bytes(12 * p), Written: Bytes(8 * p)} }

	t.Run("embedding", func(t *testing.T) {
		// 3 tokens, batch 2 (6 ids of 8 bytes), rows of 4, fp16; table 10×4.
		l := only(t, Shape{3}, func(b *Builder, x T) { b.Embedding("e", x, 10, 4) })
		if l.Params() != 40 {
			t.Errorf("params %d, want 40", l.Params())
		}
		checkWork(t, l, 2, FP16, map[Pass]Work{
			Forward:         {Read: 6*8 + 24*2, Written: 24 * 2},
			BackwardWeights: {FLOPs: 24, Read: 6*8 + 24*2, Written: 40 * 2},
			Update:          upd(40),
		})
	})
	t.Run("layernorm", func(t *testing.T) {
		// [3, 4], batch 2: 24 values, 8 parameters, fp32.
		l := only(t, Shape{3, 4}, func(b *Builder, x T) { b.LayerNorm("ln", x) })
		if l.Params() != 8 {
			t.Errorf("params %d, want 8", l.Params())
		}
		checkWork(t, l, 2, FP32, map[Pass]Work{
			Forward:      {FLOPs: 7 * 24, Read: 2*24*4 + 8*4, Written: 24 * 4},
			BackwardData: {FLOPs: 10 * 24, Read: 4*24*4 + 8*4, Written: 24*4 + 8*4},
			Update:       upd(8),
		})
	})
	t.Run("softmax", func(t *testing.T) {
		// [2, 3, 3], batch 1: 18 values, fp32.
		l := only(t, Shape{2, 3, 3}, func(b *Builder, x T) { b.Softmax("s", x) })
		checkWork(t, l, 1, FP32, map[Pass]Work{
			Forward:      {FLOPs: 8 * 18, Read: 2 * 18 * 4, Written: 18 * 4},
			BackwardData: {FLOPs: 4 * 18, Read: 2 * 18 * 4, Written: 18 * 4},
		})
		// With the attention scale and a causal mask: 2 FLOPs more a value.
		l = only(t, Shape{2, 3, 3}, func(b *Builder, x T) { b.softmax("s", x, true, true) })
		checkWork(t, l, 1, FP32, map[Pass]Work{
			Forward:      {FLOPs: 10 * 18, Read: 2 * 18 * 4, Written: 18 * 4},
			BackwardData: {FLOPs: 4 * 18, Read: 2 * 18 * 4, Written: 18 * 4},
		})
	})
	t.Run("dropout", func(t *testing.T) {
		// [5], batch 2: 10 values of 2 bytes, masks of 1 byte.
		l := only(t, Shape{5}, func(b *Builder, x T) { b.Dropout("d", x, 0.1) })
		checkWork(t, l, 2, FP16, map[Pass]Work{
			Forward:      {FLOPs: 20, Read: 10 * 2, Written: 10*2 + 10},
			BackwardData: {FLOPs: 10, Read: 10*2 + 10, Written: 10 * 2},
		})
	})
	t.Run("matmul", func(t *testing.T) {
		// [2, 3, 4] × [2, 5, 4]ᵀ → [2, 3, 5], batch 2: 4 GEMMs of 3×4×5,
		// fp32. A is 4×12 values, B 4×20, C 4×15.
		b, x := NewBuilder("t", Shape{2, 3, 4})
		y := b.Reshape("y", b.Linear("lin", x, 5, false), Shape{2, 3, 5})
		y = b.Linear("y2", b.Reshape("y1", y, Shape{2, 5, 3}), 4, false)
		b.MatMul("mm", x, y, true)
		n, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		l := n.Nodes[len(n.Nodes)-1].Layer
		if got := l.Out().String(); got != "[2×3×5]" {
			t.Errorf("output %s, want [2×3×5]", got)
		}
		const a, bb, c = 4 * 12 * 4, 4 * 20 * 4, 4 * 15 * 4
		checkWork(t, l, 2, FP32, map[Pass]Work{
			Forward:      {FLOPs: 2 * 4 * 3 * 4 * 5, Read: a + bb, Written: c, Matrix: true},
			BackwardData: {FLOPs: 4 * 4 * 3 * 4 * 5, Read: 2*c + a + bb, Written: a + bb, Matrix: true},
		})
	})
	t.Run("lstm", func(t *testing.T) {
		// [T=3, D=4] → 2 layers of H=2 (G=8 gates), batch 1, fp32.
		// Layer 0: 4·2·(4+2) + 8·2 = 64 parameters, GEMMs 2·3·8·6 = 288.
		// Layer 1: 4·2·(2+2) + 16 = 48 parameters, GEMMs 2·3·8·4 = 192.
		// The cell: 30 FLOPs × 3 steps × 2 units = 180 a layer.
		l := only(t, Shape{3, 4}, func(b *Builder, x T) { b.LSTM("lstm", x, 2, 2) })
		if l.Params() != 112 {
			t.Errorf("params %d, want 112", l.Params())
		}
		if got := l.Out().String(); got != "[3×2]" {
			t.Errorf("output %s, want [3×2]", got)
		}
		// Values moved, per layer (N = 3 steps):
		//   forward read  N(D+H) + P + N(G+H): 18+64+30, 12+48+30
		//   forward write N·G + 2NH:           24+12,    24+12
		//   bwd-data read N(G+3H) + N·G + P:   42+24+64, 42+24+48
		//   bwd-data write N(G+H) + N(D+H):    30+18,    30+12
		//   bwd-wts read  N(G+D+H):            42,       36
		//   bwd-wts write P:                   64,       48
		checkWork(t, l, 1, FP32, map[Pass]Work{
			Forward:         {FLOPs: 288 + 180 + 192 + 180, Read: (112 + 90) * 4, Written: (36 + 36) * 4, Matrix: true},
			BackwardData:    {FLOPs: 288 + 180 + 192 + 180, Read: (130 + 114) * 4, Written: (48 + 42) * 4, Matrix: true},
			BackwardWeights: {FLOPs: 288 + 24 + 192 + 24, Read: (42 + 36) * 4, Written: 112 * 4, Matrix: true},
			Update:          upd(112),
		})
	})
	t.Run("select", func(t *testing.T) {
		// [4, 3] → [3], batch 2, fp32.
		l := only(t, Shape{4, 3}, func(b *Builder, x T) { b.SelectToken("s", x, 0) })
		checkWork(t, l, 2, FP32, map[Pass]Work{
			Forward:      {Read: 6 * 4, Written: 6 * 4},
			BackwardData: {Read: 6 * 4, Written: 24 * 4},
		})
	})
	t.Run("tied linear", func(t *testing.T) {
		// [2, 3] → [2, 5] on a 3×5 weight it does not own, batch 1, fp32:
		// a linear layer's work but the update, which is the bias's only.
		l := only(t, Shape{2, 3}, func(b *Builder, x T) { b.TiedLinear("p", x, 5, false) })
		if l.Params() != 0 {
			t.Errorf("params %d, want 0", l.Params())
		}
		checkWork(t, l, 1, FP32, map[Pass]Work{
			Forward:         {FLOPs: 2 * 2 * 3 * 5, Read: (6 + 15) * 4, Written: 10 * 4, Matrix: true},
			BackwardData:    {FLOPs: 2 * 2 * 3 * 5, Read: (10 + 15) * 4, Written: 6 * 4, Matrix: true},
			BackwardWeights: {FLOPs: 2 * 2 * 3 * 5, Read: (10 + 6) * 4, Written: 15 * 4, Matrix: true},
		})
		l = only(t, Shape{2, 3}, func(b *Builder, x T) { b.TiedLinear("p", x, 5, true) })
		if l.Params() != 5 {
			t.Errorf("params with bias %d, want 5", l.Params())
		}
		if got := l.Work(1, Update, FP32); got != upd(5) {
			t.Errorf("update with bias %+v, want %+v", got, upd(5))
		}
	})
}

// TestEmbeddingTables checks that tied and frozen lookups own no
// parameters, and that a frozen one has no gradient.
func TestEmbeddingTables(t *testing.T) {
	b, x := NewBuilder("t", Shape{3})
	b.lookup("tied", x, 10, 4, tiedTable)
	b.lookup("frozen", x, 10, 4, frozenTable)
	n, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	tied, frozen := n.Nodes[0].Layer, n.Nodes[1].Layer
	if tied.Params() != 0 || frozen.Params() != 0 {
		t.Errorf("params %d and %d, want 0", tied.Params(), frozen.Params())
	}
	if w := tied.Work(1, BackwardWeights, FP32); w.Written != 40*4 {
		t.Errorf("tied table's gradient: wrote %v bytes, want %v", w.Written, 40*4)
	}
	for _, p := range []Pass{BackwardData, BackwardWeights, Update} {
		if w := frozen.Work(1, p, FP32); w != (Work{}) {
			t.Errorf("frozen table %v: %+v, want nothing", p, w)
		}
	}
	if tied.Work(1, Update, FP32) != (Work{}) {
		t.Errorf("tied table updated")
	}
	if tied.Key() == frozen.Key() {
		t.Errorf("tied and frozen tables share the key %q", tied.Key())
	}
}

// TestAttention checks the composition of multi-head attention and of the
// transformer layers: the layers added, their shapes, parameters and
// multiply-adds, counted by hand for width 8, 2 heads, 4 tokens.
func TestAttention(t *testing.T) {
	b, x := NewBuilder("t", Shape{4, 8})
	y := b.Attention("a.", x, 8, 2, true)
	n, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, nd := range n.Nodes {
		ops = append(ops, nd.Name+":"+string(nd.Layer.Op()))
	}
	want := "a.q:linear a.k:linear a.v:linear a.q.heads:reshape a.k.heads:reshape a.v.heads:reshape " +
		"a.scores:matmul a.softmax:softmax a.context:matmul a.merge:reshape a.out:linear"
	if got := strings.Join(ops, " "); got != want {
		t.Errorf("layers\n%s\nwant\n%s", got, want)
	}
	if got := y.Shape().String(); got != "[4×8]" {
		t.Errorf("output %s, want [4×8]", got)
	}
	for _, nd := range n.Nodes {
		if nd.Name == "a.scores" && nd.Layer.Out().String() != "[2×4×4]" {
			t.Errorf("scores %v, want [2×4×4]", nd.Layer.Out())
		}
	}
	// 4 projections of 8×8 + 8; 4 projections × 4 tokens × 64 MACs (and
	// their bias adds, 4×4×8 FLOPs, which MACs counts as halves), and 2
	// heads × 4×4×4 for the scores and again for the context.
	if p := n.Params(); p != 4*(64+8) {
		t.Errorf("params %d, want %d", p, 4*(64+8))
	}
	if m, want := n.MACs(), 4*4*64+4*4*8/2+2*2*4*4*4.0; m != want {
		t.Errorf("MACs %v, want %v", m, want)
	}

	// An encoder layer adds two layer norms (2×8 each) and the
	// feed-forward network 8→16→8.
	for _, pre := range []bool{false, true} {
		b, x := NewBuilder("t", Shape{4, 8})
		b.TransformerEncoderLayer("l.", x, 8, 2, 16, "gelu", pre)
		n, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		if p, want := n.Params(), int64(4*(64+8)+16+(8*16+16)+(16*8+8)+16); p != want {
			t.Errorf("preNorm %v: params %d, want %d", pre, p, want)
		}
		first, last := n.Nodes[0].Name, n.Nodes[len(n.Nodes)-1].Name
		if pre && (first != "l.ln1" || last != "l.add2") || !pre && (first != "l.attn.q" || last != "l.ln2") {
			t.Errorf("preNorm %v: layers run from %s to %s", pre, first, last)
		}
	}

	// A decoder layer has causal self-attention, cross-attention over a
	// memory of another length and three layer norms.
	b, x = NewBuilder("t", Shape{6})
	mem := b.Embedding("mem", x, 10, 8)
	tgt := b.Embedding("tgt", x, 10, 8)
	tgt = b.Reshape("tgt4", b.Linear("shrink", b.Reshape("flip", tgt, Shape{8, 6}), 4, false), Shape{4, 8})
	out := b.DecoderLayer("d.", tgt, mem, TransformerConfig{Dim: 8, Heads: 2, FF: 16, Act: "relu", Dropout: 0.1})
	n, err = b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if out.Shape().String() != "[4×8]" {
		t.Errorf("decoder output %v, want [4×8]", out.Shape())
	}
	found := map[string]string{}
	for _, nd := range n.Nodes {
		found[nd.Name] = nd.Layer.Key()
	}
	for name, key := range map[string]string{
		"d.self.softmax":  "softmax shape=[2×4×4] scaled=true causal=true",
		"d.cross.softmax": "softmax shape=[2×4×6] scaled=true causal=false",
		"d.cross.dropout": "dropout shape=[2×4×6]",
		"d.ln3":           "layernorm shape=[4×8]",
	} {
		if found[name] != key {
			t.Errorf("%s: key %q, want %q", name, found[name], key)
		}
	}
}

// TestNLPShapeErrors checks that misuse is reported, naming the layer and
// what is wrong, and that layers after a failed one stay quiet.
func TestNLPShapeErrors(t *testing.T) {
	b, x := NewBuilder("bad", Shape{4, 6})
	y := b.Linear("y", x, 5, false) // [4, 5]
	b.MatMul("k", x, y, false)      // K 6 against 4
	b.MatMul("kt", x, y, true)      // K 6 against 5
	z := b.Reshape("z", b.Linear("z0", x, 8, false), Shape{2, 4, 4})
	b.MatMul("batch", z, b.Reshape("w", x, Shape{4, 6}), false)
	v := b.Reshape("v", x, Shape{24})
	l := b.LSTM("lstm1d", v, 8, 1)
	b.ReLU("after", l) // skipped
	b.LSTM("lstm0", x, 0, 1)
	b.Embedding("emb2d", x, 10, 4)
	b.Attention("heads.", x, 6, 4, false)
	b.Attention("width.", x, 8, 2, false)
	b.Dropout("p", x, 1)
	b.SelectToken("sel", x, 4)
	b.softmax("causal", y, true, true)
	b.TransformerEncoderLayer("ff.", x, 6, 2, 0, "relu", false)
	b.TransformerEncoderLayer("act.", x, 6, 2, 12, "swish", false)
	_, err := b.Build()
	for _, want := range []string{
		"bad: layer k: matmul: inner dimensions differ: [4×6] has K=6, [4×5] as [..., K, N] has K=4",
		"bad: layer kt: matmul: inner dimensions differ: [4×6] has K=6, [4×5] as [..., N, K] (transposed) has K=5",
		"bad: layer batch: matmul: batch dimensions of [2×4×4] and [4×6] differ",
		"bad: layer lstm1d: lstm wants a [T, D] input, got [24]",
		"bad: layer lstm0: lstm: 0 hidden units, 1 layers: want positive sizes",
		"bad: layer emb2d: embedding wants a [T] input of token ids, got [4×6]",
		"bad: layer heads.q: attention: 4 heads do not divide width 6",
		"bad: layer width.q: attention of width 8 wants [T, 8] queries, got [4×6]",
		"bad: layer p: dropout probability 1: want 0 ≤ p < 1",
		"bad: layer sel: select-token: position 4 outside a sequence of 4",
		"bad: layer causal: a causal mask wants square [..., T, T] scores, got [4×5]",
		"bad: layer ff.ffn.fc1: feed-forward width 0: want a positive width",
		`bad: layer act.ffn.act: unknown activation "swish"`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("errors lack %q:\n%v", want, err)
		}
	}
	if err != nil && strings.Contains(err.Error(), "after") {
		t.Errorf("a layer after a failed one reported an error too:\n%v", err)
	}
}
