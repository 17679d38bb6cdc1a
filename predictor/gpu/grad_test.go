package gpu

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wb-sim/wb/datasets/neusight"
	"github.com/wb-sim/wb/dnn"
)

// backwardOps lists, per block, the ops of the backward kernels training
// launches for the forward kernels whose op is op and whose width is w.
func backwardOps(p *Program, op string, w int) [][]string {
	var out [][]string
	for _, b := range p.Blocks {
		for i := range b.Kernels {
			k := &b.Kernels[i]
			if k.Op != op || k.Width != w {
				continue
			}
			var ops []string
			for _, g := range Backward(*k) {
				ops = append(ops, g.Op)
			}
			out = append(out, ops)
		}
	}
	return out
}

// Backward passes as autograd runs them for what a forward pass masks,
// clamps and looks up (reviewers' finds against Hugging Face's code and
// torch 1.13's profiler).
func TestBackwardAsAutograd(t *testing.T) {
	const seq, batch = 64, 2

	// GPT-2's causal torch.where: one kernel back over the scores
	gpt2 := bundledConfig(t, "gpt2_large")
	p, err := Lower(gpt2, seq, batch, true)
	if err != nil {
		t.Fatal(err)
	}
	var where int
	for _, ops := range backwardOps(p, "add", seq) {
		if strings.Join(ops, ",") == "add" {
			where++
		}
	}
	if where != 1 {
		t.Errorf("gpt2: %d torch.where kernels with a one-kernel backward in the layer block, want 1", where)
	}
	// its embeddings: the table's dense gradient zeroed, then the
	emb := p.Blocks[0].Kernels[0]
	// tokens' rows added, and the result added into the table's gradient
	// of the runs before (NeuSight's loop never zeroes it)
	if g := Backward(emb); len(g) != 3 || g[0].Op != "copy" || g[0].Rows != gpt2.Vocab || g[0].Bytes() != 4*float64(gpt2.Vocab)*float64(gpt2.Dim) ||
		g[2].Op != "add" || g[2].Inputs != 2 || g[2].Rows != gpt2.Vocab || g[2].Width != gpt2.Dim {
		t.Errorf("gpt2's word embedding's backward: %+v", g)
	}

	// OPT: torch.max with the dtype's minimum backs up through five
	// kernels over the scores; the masks built from the attention mask
	// need no gradient
	opt := bundledConfig(t, "opt_13")
	p, err = Lower(opt, seq, batch, true)
	if err != nil {
		t.Fatal(err)
	}
	var five, masks, maskGrads int
	for _, ops := range backwardOps(p, "add", seq) {
		if len(ops) == 5 {
			five++
		}
	}
	for _, k := range p.Blocks[0].Kernels {
		if k.Op == "relu" && k.Width == seq {
			masks++
			maskGrads += len(Backward(k))
		}
	}
	if five != 1 || masks != 4 || maskGrads != 0 {
		t.Errorf("opt: %d torch.max kernels with five backward kernels (want 1); %d masks (want 4) with %d backward kernels (want 0)", five, masks, maskGrads)
	}
	// a bias's gradient reads the output's gradient and writes one row
	lin := Kernel{Op: neusight.Linear, Batch: 1, M: 4096, K: 1024, N: 2048, Bias: true}
	g := Backward(lin)
	if len(g) != 3 || g[2].Op != "sum" || g[2].Bytes() != 4*(4096*2048+2048) {
		t.Errorf("the bias's gradient: %+v, %g bytes", g[len(g)-1], g[len(g)-1].Bytes())
	}
}

// A convolution's weight gradient split over groups of images reads every
// group's output gradient and writes every group's partial sum.
func TestConvGroupBytes(t *testing.T) {
	d := dnn.Desc{Op: dnn.OpConv2D, In: []dnn.Shape{{64, 56, 56}}, Out: dnn.Shape{256, 56, 56},
		Attr: dnn.Attrs{dnn.AttrOut: 256, dnn.AttrKH: 1, dnn.AttrKW: 1, dnn.AttrStride: 1, dnn.AttrGroups: 1}}
	ks, ok := LayerKernels(d, dnn.BackwardWeights, 64)
	if !ok || len(ks) != 2 || ks[0].Batch < 2 {
		t.Fatalf("%+v", ks)
	}
	k := ks[0]
	in := 64.0 * 64 * 56 * 56              // the images' input, read once
	dy := 64.0 * 256 * 56 * 56             // the output's gradient, every group's
	partial := float64(k.Batch) * 64 * 256 // a partial gradient per group
	if want := 4 * (in + dy + partial); k.Bytes() != want {
		t.Errorf("%d groups: %g bytes, want %g", k.Batch, k.Bytes(), want)
	}
	if s := ks[1]; s.Op != "sum" || s.Bytes() != 4*(partial+64*256) {
		t.Errorf("the groups' sum: %+v, %g bytes", s, s.Bytes())
	}
}

// BERT normalises after each residual sum: fused, the norm writes its
// output only, where a pre-norm model's writes the sum too.
func TestFusePostNorm(t *testing.T) {
	for name, want := range map[string]bool{"bert_large": false, "gpt2_large": true} {
		c := bundledConfig(t, name)
		p, err := Lower(c, 128, 2, false)
		if err != nil {
			t.Fatal(err)
		}
		written := false
		for _, b := range Fuse(p).Blocks {
			for _, k := range b.Kernels {
				if k.Op == neusight.LN && k.Extra >= 2 {
					written = true
				}
			}
		}
		if written != want {
			t.Errorf("%s: a fused norm writes the residual sum: %v, want %v", name, written, want)
		}
	}
}

// A graph that is there but cannot be read is an error, not a label
// silently left unscored.
func TestValidateNodesBadGraph(t *testing.T) {
	src := bundledDir(t)
	dir := t.TempDir()
	for _, p := range []string{"devices", "models", "labels/Tesla_T4"} {
		os.MkdirAll(filepath.Join(dir, p), 0o755)
	}
	for _, f := range []string{"devices/Tesla_T4.json", "models/gpt2_large.json", "labels/Tesla_T4/gpt2_large-inf-1024-4.json"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, f), b, 0o644)
	}
	os.WriteFile(filepath.Join(dir, "labels/Tesla_T4/gpt2_large-inf-1024-4.csv.gz"), []byte("op,target\nnot,a graph\n"), 0o644)
	nd, err := neusight.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	full, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	d := bundledData(t)
	_, err = ValidateNodes(nd, d.Samples, d.Specs, func(string, string) (*Model, error) { return full, nil }, nil)
	if err == nil || !strings.Contains(err.Error(), "gpt2_large-inf-1024-4.csv.gz") {
		t.Errorf("a corrupt graph: %v", err)
	}
}

// Training runs the dropouts the config sets and none of probability 0
// (PyTorch launches no kernel for it): OPT's attention has none unless its
// attention_dropout says so.
func TestLowerDropoutsFromConfig(t *testing.T) {
	scoreDropouts := func(c *dnn.HFConfig) int {
		p, err := Lower(c, 64, 2, true)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, b := range p.Blocks {
			for _, k := range b.Kernels {
				if k.Op == "dropout" && k.Width == 64 && k.Rows == 2*c.Heads*64 {
					n += b.Repeat
				}
			}
		}
		return n
	}
	opt := bundledConfig(t, "opt_13")
	if n := scoreDropouts(opt); n != 0 {
		t.Errorf("opt_13 (attention_dropout 0): %d dropouts over the scores", n)
	}
	opt.AttnDropout = 0.1
	if n := scoreDropouts(opt); n != opt.Layers {
		t.Errorf("opt_13 with attention_dropout 0.1: %d dropouts over the scores, want %d", n, opt.Layers)
	}
	gpt2 := bundledConfig(t, "gpt2_large")
	if n := scoreDropouts(gpt2); n != gpt2.Layers {
		t.Errorf("gpt2_large: %d dropouts over the scores, want %d", n, gpt2.Layers)
	}
	gpt2.AttnDropout = 0
	if n := scoreDropouts(gpt2); n != 0 {
		t.Errorf("gpt2_large with attn_pdrop 0: %d dropouts over the scores", n)
	}
}

// A training program's backward adds every parameter's gradient into the
// gradient of the runs before it, one add a tensor, as NeuSight's loop
// (which never zeroes them) times it: the values added are the model's
// parameters (Hugging Face's count, dnn.HFConfig.Params), a tied table
// once for each kernel that uses it; an inference program adds none; a
// layer adds one gradient a tensor.
func TestAccumulatedGradients(t *testing.T) {
	for _, e := range []struct {
		name        string
		tableUses   int // kernels beyond the first that read the word table
		tensorCount int // parameter tensors of one layer block repeat (0: not checked)
	}{
		// BertForPreTraining: the masked-LM head's transform, its norm and
		// its decoder's bias beyond BertModel's count; its pooler and
		// next-sentence head, which the loss never reaches, none
		{"bert_large", 1, 16},
		{"gpt2_large", 1, 12}, // ln_1, c_attn, c_proj, ln_2, c_fc, c_proj: a weight and a bias each
		{"opt_13", 1, 16},     // q, k, v, out, fc1, fc2 and two norms: a weight and a bias each
		{"switchxl4", 2, 0},   // the encoder's and decoder's lookups and the tied head
		{"llama2_7b", 0, 9},   // two norms, q, k, v, o, gate, up, down; its head untied
	} {
		c := bundledConfig(t, e.name)
		train, err := Lower(c, 64, 2, true)
		if err != nil {
			t.Fatal(err)
		}
		var values int64
		for _, b := range train.Blocks {
			for _, k := range b.Kernels {
				values += int64(b.Repeat) * int64(k.AccRows*k.AccWidth+k.AccVecs*k.AccVecWidth)
				n := k.AccVecs
				if k.AccRows > 0 {
					n++
				}
				if g := Backward(k); len(g) < n {
					t.Errorf("%s: %s's backward %d kernels, fewer than its %d adds", e.name, k.Op, len(g), n)
				}
			}
		}
		want := c.Params() + int64(e.tableUses)*int64(c.Vocab)*int64(c.Dim)
		if c.ModelType == "bert" {
			d := int64(c.Dim)
			want += (d*d + d) + 2*d + int64(c.Vocab) - (d*d + d) // transform, its norm, the decoder's bias; less the pooler
		}
		if values != want {
			t.Errorf("%s: %d values added into gradients, want %d (%d parameters, the word table %d more times)", e.name, values, want, c.Params(), e.tableUses)
		}
		if e.tensorCount > 0 {
			var layer Block
			for _, b := range train.Blocks {
				if b.Name == "layer" {
					layer = b
				}
			}
			var n int
			for _, k := range layer.Kernels {
				n += k.AccVecs
				if k.AccRows > 0 {
					n++
				}
			}
			if n != e.tensorCount {
				t.Errorf("%s: a layer adds %d gradients, want %d", e.name, n, e.tensorCount)
			}
		}
		inf, err := Lower(c, 64, 2, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range inf.Blocks {
			for _, k := range b.Kernels {
				if k.AccRows+k.AccVecs != 0 {
					t.Errorf("%s inference: %s accumulates", e.name, k.Op)
				}
			}
		}
	}
}

// The cross-entropy's backward runs inside the timed loss.backward() of
// NeuSight's training labels: a training program's logits product, and
// only it, carries it (a fill of the logits' gradient and a log-softmax
// backward over tokens × vocabulary); an inference program none.
func TestLossBackward(t *testing.T) {
	const seq, batch = 64, 2
	for _, name := range []string{"bert_large", "gpt2_large", "opt_13", "switchxl4", "llama2_7b"} {
		c := bundledConfig(t, name)
		for _, train := range []bool{false, true} {
			p, err := Lower(c, seq, batch, train)
			if err != nil {
				t.Fatal(err)
			}
			var n int
			for _, b := range p.Blocks {
				for _, k := range b.Kernels {
					if !k.Loss {
						continue
					}
					n += b.Repeat
					g := Backward(k)
					if k.M != seq*batch || k.N != c.Vocab || len(g) < 2 || g[0].Op != "copy" || g[0].Rows*g[0].Width != seq*batch*c.Vocab ||
						g[1].Op != neusight.Softmax || g[1].Rows != seq*batch || g[1].Width != c.Vocab {
						t.Errorf("%s: loss on %+v, backward %+v", name, k, g)
					}
				}
			}
			if want := map[bool]int{false: 0, true: 1}[train]; n != want {
				t.Errorf("%s train %v: %d kernels carry the loss's backward, want %d", name, train, n, want)
			}
		}
	}
}

// bundledConfig reads a bundled model's config (datasets/data/neusight/models).
func bundledConfig(t *testing.T, name string) *dnn.HFConfig {
	t.Helper()
	c, err := dnn.ReadHFConfig(filepath.Join(bundledDir(t), "models", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// layerBlocks are the training program's blocks named name (or, for
// Switch, starting with it).
func layerBlocks(p *Program, prefix string) []Block {
	var out []Block
	for _, b := range p.Blocks {
		if strings.HasPrefix(b.Name, prefix) {
			out = append(out, b)
		}
	}
	return out
}

// Autograd's InputBuffer sums the gradients of a tensor read by several
// kernels, one add of its size for each reader beyond the first: the
// input of three separate query, key and value projections (two), a
// residual stream read by its sub-layer and the residual add (one an add),
// an RMS norm's input read by its pow and its multiply, rotary's input
// read by its two products, a gate's input read by the up projection. And
// each copy that split attention's heads for torch.matmul or merged them
// is copied back in the backward pass (four a layer). None in inference.
func TestAutogradSumsAndCopies(t *testing.T) {
	const seq, batch = 64, 2
	for _, e := range []struct {
		name       string
		sums       int // adds of a summed gradient in one layer block's backward
		headCopies int
	}{
		{"bert_large", 4, 4}, // q, k, v read the stream (2); the two residual adds
		{"gpt2_large", 4, 5}, // one c_attn; the two residual adds; gelu_new's x read thrice (2); the split's gradients joined (a cat)
		{"opt_13", 4, 4},     // q, k, v (2); the residual adds
		{"llama2_7b", 11, 4}, // q, k, v (2); residuals (2); two RMS norms; rotary of q and k (2 each: x·cos and its halves); up beside the gate
	} {
		c := bundledConfig(t, e.name)
		for _, train := range []bool{true, false} {
			p, err := Lower(c, seq, batch, train)
			if err != nil {
				t.Fatal(err)
			}
			layer := layerBlocks(p, "layer")[0]
			var sums, copies, copiesBack int
			for _, k := range layer.Kernels {
				sums += k.Sums
				if k.Grad == GradCopy {
					copies++
					if g := Backward(k); len(g) == 1 && g[0].Op == "copy" && g[0].Rows == k.Rows && g[0].Width == k.Width {
						copiesBack++
					}
				}
			}
			if sums != e.sums || copies != e.headCopies || copiesBack != copies {
				t.Errorf("%s (train %v): %d gradient sums, %d head copies (%d copied back), want %d and %d", e.name, train, sums, copies, copiesBack, e.sums, e.headCopies)
			}
		}
	}
	// the sums' adds are of the input's size: a product's M × K
	lin := Kernel{Op: neusight.Linear, Batch: 1, M: 128, K: 1024, N: 4096, Sums: 1}
	if g := Backward(lin); len(g) != 3 || g[2].Op != "add" || g[2].Width*g[2].Rows != 128*1024 || g[2].Inputs != 2 {
		t.Errorf("a shared product input's sum: %+v", g)
	}
	lin.Grad = GradNone
	if g := Backward(lin); len(g) != 0 {
		t.Errorf("no gradient, yet %+v", g)
	}
}

// torch.matmul reshapes attention's permuted heads to three dimensions,
// which copies them unless the batch dimensions merge into a view: one
// sequence (or one token). Then no copy runs in the forward pass, and the
// gradient is copied back all the same (the view's backward reshapes a
// permuted gradient). Keys and values repeated over the heads
// (repeat_kv) are views at any batch, and the repeat's backward sums the
// copies back. OPT makes its copies itself (contiguous()).
func TestMatmulViews(t *testing.T) {
	m, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	h100 := neusight.Device{Name: "h100", SMs: 132, LanesPerSM: 128, ClockMHz: 1980, FP32GFLOPs: 66908, BandwidthGB: 3430, L2MB: 50, MemGB: 80}
	for _, e := range []struct {
		name  string
		views int // q, k, v
	}{{"bert_large", 3}, {"gpt2_large", 3}, {"switchxl4", 3}, {"opt_13", 0}} {
		c := bundledConfig(t, e.name)
		forward := map[int]int{}
		backward := map[int]int{}
		for _, batch := range []int{1, 2} {
			p, err := Lower(c, 128, batch, true)
			if err != nil {
				t.Fatal(err)
			}
			it := layerBlocks(p, p.Blocks[1].Name)[0]
			var views int
			for _, k := range it.Kernels {
				if k.View && k.Rows == 128*batch*c.Heads {
					views++
				}
				if k.Op == "copy" && !k.View {
					forward[batch]++
				}
				for _, g := range Backward(k) {
					if g.Op == "copy" {
						backward[batch]++
					}
				}
			}
			want := 0
			if batch == 1 {
				want = e.views
			}
			if views != want {
				t.Errorf("%s at batch %d: %d head reshapes are views, want %d", e.name, batch, views, want)
			}
			// the forward's kernels as an iteration times them
			inf, err := Lower(c, 128, batch, false)
			if err != nil {
				t.Fatal(err)
			}
			if it := m.Iteration(SpecOf(h100), inf, false); it.Kernels != inf.Count() {
				t.Errorf("%s at batch %d: an iteration times %d kernels, Count says %d", e.name, batch, it.Kernels, inf.Count())
			}
		}
		if forward[1] != forward[2]-e.views || backward[1] != backward[2] {
			t.Errorf("%s: forward copies %d at batch 1, %d at 2; backward copies %d and %d: want %d fewer forward at batch 1 and the same backward",
				e.name, forward[1], forward[2], backward[1], backward[2], e.views)
		}
	}
	// one token a sequence: BERT's and Switch's heads (projected apart) are
	// views for matmul at any batch, GPT-2's (split from c_attn, a token's
	// q, k and v 3 × width apart) only at one sequence; the explicit
	// contiguous() copies (the heads merged; OPT's q, k and v) find their
	// tensor contiguous; and no gradient is copied back (the permuted
	// gradient is laid out as the reshape wants it)
	for _, e := range []struct {
		name  string
		batch int
		views int
	}{{"bert_large", 2, 4}, {"switchxl4", 2, 4}, {"gpt2_large", 2, 1}, {"gpt2_large", 1, 4}, {"opt_13", 2, 4}} {
		c := bundledConfig(t, e.name)
		p, err := Lower(c, 1, e.batch, true)
		if err != nil {
			t.Fatal(err)
		}
		var views, back int
		for _, k := range p.Blocks[1].Kernels {
			if k.Rows == e.batch*c.Heads && k.Width == c.HeadDim && k.Op == "copy" {
				if k.View {
					views++
				}
				back += len(Backward(k))
			}
		}
		if views != e.views || back != 0 {
			t.Errorf("%s at one token, batch %d: %d head reshapes are views (want %d), %d backward kernels (want none)", e.name, e.batch, views, e.views, back)
		}
	}
	// grouped-query attention: k and v are views at any batch, q only at one
	l3 := bundledConfig(t, "llama2_7b")
	l3.KVHeads = l3.Heads / 4
	p, err := Lower(l3, 128, 2, true)
	if err != nil {
		t.Fatal(err)
	}
	var views, expands int
	for _, k := range layerBlocks(p, "layer")[0].Kernels {
		if k.View {
			views++
		}
		if k.Grad == GradExpand {
			expands++
			g := Backward(k)
			if len(g) != 1 || g[0].Op != "sum" || g[0].Reduce != 4 || g[0].Width*g[0].Rows != k.Rows*k.Width || k.Reduce != 0 {
				t.Errorf("repeat_kv's backward: %+v", g)
			}
		}
	}
	if views != 2 || expands != 1 {
		t.Errorf("grouped-query attention at batch 2: %d views (want k and v), %d repeats", views, expands)
	}
	// multi-query attention: repeat_kv's reshape is a view at one sequence
	// (no forward kernel, its gradient still summed over the heads), a
	// copy (torch.matmul's) at more
	l3.KVHeads = 1
	for _, batch := range []int{1, 2} {
		p, err := Lower(l3, 128, batch, true)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range layerBlocks(p, "layer")[0].Kernels {
			if k.Grad == GradExpand && (k.View != (batch == 1) || len(Backward(k)) != 1 || Backward(k)[0].Reduce != l3.Heads) {
				t.Errorf("multi-query repeat_kv at batch %d: view %v, backward %+v", batch, k.View, Backward(k))
			}
		}
	}
}

// pow(x, e) backward is autograd's pow_backward, g · (e · x^(e−1)): three
// kernels (GPT-2's gelu_new, x³).
func TestPowBackward(t *testing.T) {
	g := Backward(Kernel{Op: "powu", Rows: 8, Width: 16, Inputs: 1, Outputs: 1})
	if len(g) != 3 || g[0].Op != "powu" || g[1].Op != "mulu" || g[2].Op != "mul" || g[2].Inputs != 2 {
		t.Errorf("pow's backward: %+v", g)
	}
}

// Switch's experts as NeuSight's MoE forward runs them: every expert on
// Capacity × batch rows, its tokens gathered by a boolean mask (whose
// nonzero, and the count_nonzero that slices the buffer twice, the host
// reads: four synchronisations an expert), put back by the mask. In training
// the gather's backward zeroes a gradient of all the tokens and adds the
// rows into it, the put's clones the gradient and gathers the rows (three
// more nonzeros); the normed states' gradients from the router, the clone
// and the experts' gathers are summed.
func TestSwitchDispatch(t *testing.T) {
	c := bundledConfig(t, "switchxl4")
	const batch = 2
	// at 64 tokens a sequence the experts' buffer (Capacity rows a
	// sequence) is larger than the tokens shared out (16 an expert)
	for _, seq := range []int{512, 64} {
		testSwitchDispatch(t, c, seq, batch)
	}
}

func testSwitchDispatch(t *testing.T, c *dnn.HFConfig, seq, batch int) {
	tokens, per := seq*batch, c.Capacity*batch
	chosen := min(per, (tokens+c.Experts-1)/c.Experts)
	for _, train := range []bool{false, true} {
		p, err := Lower(c, seq, batch, train)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range layerBlocks(p, "encoder sparse") {
			var experts, fwdSyncs, bwdSyncs, gathers, puts, sums int
			for _, k := range b.Kernels {
				if k.Op == neusight.Linear && k.M == per && k.K == c.Dim && k.N == c.FF {
					experts++
				}
				if k.Op == OpSync {
					fwdSyncs++
				}
				sums += k.Sums
				g := Backward(k)
				for _, x := range g {
					if x.Op == OpSync {
						bwdSyncs++
					}
				}
				switch k.Grad {
				case GradGather:
					gathers++
					if k.Rows != chosen || k.Table != tokens || g[len(g)-1].Op != "add" || g[len(g)-1].Rows != chosen || g[4].Rows != tokens {
						t.Errorf("a gather's backward: %+v", g)
					}
				case GradIndexPut:
					puts++
				}
			}
			wantBwd := 0
			if train {
				wantBwd = 3 * c.Experts
			}
			// the block's sums: attention's q, k, v (2), its norm and the
			// experts' (x read by pow and by the multiply, 1 each), the
			// two residual adds, and the normed states' E + 1
			if want := 2 + 2 + 2 + c.Experts + 1; experts != c.Experts || fwdSyncs != 4*c.Experts || gathers != c.Experts || puts != c.Experts || sums != want {
				t.Errorf("seq %d, train %v: %d experts on %d rows, %d host synchronisations, %d gathers, %d puts, %d sums; want %d, %d, %d, %d, %d",
					seq, train, experts, per, fwdSyncs, gathers, puts, sums, c.Experts, 4*c.Experts, c.Experts, c.Experts, want)
			}
			if train && bwdSyncs != wantBwd {
				t.Errorf("%d synchronisations in the backward pass, want %d", bwdSyncs, wantBwd)
			}
		}
	}
}

// A host synchronisation costs the GPU the host's time to reach its next
// launch: an add's floor less what the kernel overlaps of it, from the op
// measurements; a GPU's launch cost without them.
func TestSyncGap(t *testing.T) {
	m, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	g := m.SyncGap()
	if want := m.Floors["add"] - m.Overlap; g != want || g < 5e-6 || g > 30e-6 {
		t.Errorf("sync gap %g s, want the add's floor less the overlap, %g s, between 5 and 30 µs", g, want)
	}
	s := SpecOf(neusight.Device{Name: "x", SMs: 80, LanesPerSM: 64, ClockMHz: 1530, FP32GFLOPs: 15670, BandwidthGB: 900, L2MB: 6, MemGB: 32})
	if k := (Kernel{Op: OpSync}); m.Kernel(s, &k) != g {
		t.Errorf("a sync kernel takes %g s, not the gap", m.Kernel(s, &k))
	}
	var none *Model
	if none.SyncGap() != Launch {
		t.Error("no model: the gap is not the launch cost")
	}
}

// An RMS norm's backward as autograd runs it (T5's and Llama's
// x·rsqrt(mean(x²) + ε)·w): the two multiplies' gradients (two kernels
// each), the mean's expanded (one), pow's (x.pow(1), × 2, × the gradient:
// three), the row sums of the rsqrt's gradient and the token sums of the
// scale's (two reductions over the input), and the input's two gradients
// summed (one): eleven kernels of the input's size, where the norm's four
// forward kernels once gave seven.
func TestRMSNormBackward(t *testing.T) {
	for _, name := range []string{"llama2_7b", "switchxl4"} {
		p, err := Lower(bundledConfig(t, name), 64, 2, true)
		if err != nil {
			t.Fatal(err)
		}
		var norms int
		for _, b := range p.Blocks {
			ks := b.Kernels
			for i := 1; i+2 < len(ks); i++ {
				if ks[i].Grad != GradRMS {
					continue
				}
				norms++
				if ks[i-1].Op != "powu" || ks[i-1].Grad != GradNone || ks[i+1].Op != "mul" || ks[i+2].Op != "mul" {
					t.Fatalf("%s: an RMS norm's kernels %s, %s, %s, %s", name, ks[i-1].Op, ks[i].Op, ks[i+1].Op, ks[i+2].Op)
				}
				n := 0
				for _, k := range ks[i-1 : i+3] {
					for _, g := range Backward(k) {
						if g.Rows*g.Width == ks[i].Rows*ks[i].Width { // of the input's size: not the scale's accumulation
							n++
						}
					}
				}
				if n != 11 {
					t.Errorf("%s: an RMS norm's backward launches %d kernels of its input's size, want 11", name, n)
				}
			}
		}
		if norms == 0 {
			t.Errorf("%s: no RMS norm", name)
		}
	}
}

// Config switches that change the kernels (a reviewer's finds): GPT-2's
// scale_attn_weights false drops the scores' division,
// scale_attn_by_inverse_layer_idx adds one; OPT's activation_dropout,
// which OPTDecoderLayer never applies, adds nothing (a second reviewer's
// reading of modeling_opt.py).
func TestConfigSwitchesLowered(t *testing.T) {
	count := func(name string, extra map[string]any, train bool, op string, rows, width int) int {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(bundledDir(t), "models", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var raw map[string]any
		if err := json.Unmarshal(b, &raw); err != nil {
			t.Fatal(err)
		}
		maps.Copy(raw, extra)
		b, _ = json.Marshal(raw)
		c, err := dnn.ParseHFConfig(b, name+".json")
		if err != nil {
			t.Fatal(err)
		}
		p, err := Lower(c, 64, 2, train)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, k := range layerBlocks(p, "layer")[0].Kernels {
			if k.Op == op && k.Rows == rows && k.Width == width {
				n++
			}
		}
		return n
	}
	g := bundledConfig(t, "gpt2_large")
	scores := 2 * g.Heads * 64
	if n := count("gpt2_large", nil, false, "divu", scores, 64); n != 1 {
		t.Errorf("gpt2: %d divisions of the scores, want 1", n)
	}
	if n := count("gpt2_large", map[string]any{"scale_attn_weights": false}, false, "divu", scores, 64); n != 0 {
		t.Errorf("scale_attn_weights false: %d divisions of the scores, want 0", n)
	}
	if n := count("gpt2_large", map[string]any{"scale_attn_by_inverse_layer_idx": true}, false, "divu", scores, 64); n != 2 {
		t.Errorf("scale_attn_by_inverse_layer_idx: %d divisions of the scores, want 2", n)
	}
	o := bundledConfig(t, "opt_13")
	for _, e := range []struct {
		p     float64
		train bool
		want  int
	}{{0, true, 0}, {0.1, true, 0}, {0.1, false, 0}} {
		if n := count("opt_13", map[string]any{"activation_dropout": e.p}, e.train, "dropout", 128, o.FF); n != e.want {
			t.Errorf("activation_dropout %g, train %v: %d dropouts after the activation, want %d", e.p, e.train, n, e.want)
		}
	}
}

// Switch's router probability in training (a reviewer's reading of
// autograd): max().values backward is zeros and a scatter, and the
// probability, broadcast over the width into the experts' output, has its
// gradient summed back over the width.
func TestSwitchRouterBackward(t *testing.T) {
	c := bundledConfig(t, "switchxl4")
	const seq, batch = 64, 2
	p, err := Lower(c, seq, batch, true)
	if err != nil {
		t.Fatal(err)
	}
	var scatters, sums int
	for _, k := range layerBlocks(p, "encoder sparse")[0].Kernels {
		g := Backward(k)
		switch {
		case k.Grad == GradScatter:
			scatters++
			if len(g) != 2 || g[0].Rows*g[0].Width != seq*batch*c.Experts || g[1].Rows != seq*batch || g[1].Width != 1 {
				t.Errorf("max().values backward: %+v", g)
			}
		case k.View && k.Grad == GradExpand:
			sums++
			if len(g) != 1 || g[0].Op != "sum" || g[0].Reduce != c.Dim || g[0].Width != seq*batch*c.Dim {
				t.Errorf("the probability's broadcast backward: %+v", g)
			}
		}
	}
	if scatters != 1 || sums != 1 {
		t.Errorf("%d max().values, %d broadcast probabilities in a sparse layer, want 1 and 1", scatters, sums)
	}
}
