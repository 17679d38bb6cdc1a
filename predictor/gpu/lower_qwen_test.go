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
