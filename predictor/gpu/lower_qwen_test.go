package gpu

import (
	"fmt"
	"testing"

	"github.com/wb-sim/wb/datasets/neusight"
	"github.com/wb-sim/wb/dnn"
)

// Qwen2's attention has biases on q, k and v and none on its output
// projection: the lowering's products say so, as its parameter count does
// (dnn.TestHFLlamaKin); a Llama with attention_bias has all four.
func TestLowerQwen2Biases(t *testing.T) {
	const cfg = `{"model_type":"%s","hidden_size":896,"intermediate_size":4864,"num_attention_heads":14,"num_hidden_layers":2,"num_key_value_heads":2,"vocab_size":1000,"attention_bias":true}`
	for typ, wantOut := range map[string]bool{"qwen2": false, "llama": true} {
		c, err := dnn.ParseHFConfig([]byte(fmt.Sprintf(cfg, typ)), typ+".json")
		if err != nil {
			t.Fatal(err)
		}
		p, err := Lower(c, 16, 1, false)
		if err != nil {
			t.Fatal(err)
		}
		// the layer's 896 → 896 products: q first, then o after the attention;
		// k and v are 896 → 128
		var square []bool
		kv := 0
		for _, b := range p.Blocks {
			if b.Repeat < 2 {
				continue // embeddings and head
			}
			for _, k := range b.Kernels {
				switch {
				case k.Op != neusight.Linear || k.K != 896: // K: the reduction, the input's width
				case k.N == 896:
					square = append(square, k.Bias)
				case k.N == 128:
					kv++
					if !k.Bias {
						t.Errorf("%s: k or v without a bias", typ)
					}
				}
			}
		}
		if len(square) != 2 || !square[0] || square[1] != wantOut || kv != 2 {
			t.Errorf("%s: q and o biases %v, %d k and v; want q's, o's %v, and 2", typ, square, kv, wantOut)
		}
	}
}

// OPT-350M's post-norm layout (do_layer_norm_before false): each layer's
// two norms after its residual sums, the first layer reading the
// embeddings' sum, and no final norm; the same kernels otherwise, one norm
// fewer than the pre-norm layout's, and the program marked post-norm as
// BERT's is.
func TestLowerOPTPostNorm(t *testing.T) {
	const cfg = `{"model_type":"opt","do_layer_norm_before":%v,"ffn_dim":4096,"hidden_size":1024,"max_position_embeddings":2048,"num_attention_heads":16,"num_hidden_layers":2,"vocab_size":50272,"word_embed_proj_dim":512}`
	progs := map[bool]*Program{}
	for _, before := range []bool{true, false} {
		c, err := dnn.ParseHFConfig([]byte(fmt.Sprintf(cfg, before)), "opt.json")
		if err != nil {
			t.Fatal(err)
		}
		if progs[before], err = Lower(c, 128, 2, true); err != nil {
			t.Fatal(err)
		}
	}
	norms := func(ks []Kernel) (n, first, last int) {
		first, last = -1, -1
		for i, k := range ks {
			if k.Op == neusight.LN {
				n++
				if first < 0 {
					first = i
				}
				last = i
			}
		}
		return n, first, last
	}
	pre, post := progs[true], progs[false]
	if post.Count() != pre.Count()-1 || !post.PostNorm || pre.PostNorm {
		t.Errorf("post-norm: %d kernels (pre-norm %d), PostNorm %v; want one fewer, and marked", post.Count(), pre.Count(), post.PostNorm)
	}
	for b := range post.Blocks {
		n, first, last := norms(post.Blocks[b].Kernels)
		switch post.Blocks[b].Name {
		case "layer":
			ks := post.Blocks[b].Kernels
			if n != 2 || first == 0 || last != len(ks)-1 {
				t.Errorf("post-norm layer: %d norms, the first at %d, the last at %d of %d; want 2, not first, last", n, first, last, len(ks))
			}
			if pn, pf, _ := norms(pre.Blocks[b].Kernels); pn != 2 || pf != 0 {
				t.Errorf("pre-norm layer: %d norms, the first at %d; want 2, first", pn, pf)
			}
		case "head":
			if n != 0 {
				t.Errorf("post-norm head: %d norms, want none (no final_layer_norm)", n)
			}
		}
	}
}
