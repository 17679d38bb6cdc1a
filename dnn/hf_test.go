package dnn

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wb-sim/wb/internal/readcap"
)

func bundledConfig(t testing.TB, name string) *HFConfig {
	t.Helper()
	c, err := ReadHFConfig(filepath.Join("..", "datasets", "data", "neusight", "models", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Parameter counts against Hugging Face's, each figure from the source
// named beside it.
func TestHFParams(t *testing.T) {
	for _, c := range []struct {
		file   string
		want   float64
		source string
	}{
		// BertModel.from_pretrained("bert-large-uncased").num_parameters(), with the pooler
		{"bert_large", 335_141_888, "Hugging Face bert-large-uncased, BertModel.num_parameters()"},
		// GPT2LMHeadModel.from_pretrained("gpt2-large").num_parameters() (tied head)
		{"gpt2_large", 774_030_080, "Hugging Face gpt2-large, GPT2LMHeadModel.num_parameters()"},
		// OPTForCausalLM.from_pretrained("facebook/opt-1.3b").num_parameters()
		{"opt_13", 1_315_758_080, "Hugging Face facebook/opt-1.3b, OPTForCausalLM.num_parameters()"},
		// LlamaForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf").num_parameters()
		{"llama2_7b", 6_738_415_616, "Hugging Face meta-llama/Llama-2-7b-hf, LlamaForCausalLM.num_parameters()"},
		// GPT-2 medium and XL (GPT2LMHeadModel, tied): 354,823,168 and 1,557,611,200
		{"gpt2_med", 354_823_168, "Hugging Face gpt2-medium, GPT2LMHeadModel.num_parameters()"},
		{"gpt2_xl", 1_557_611_200, "Hugging Face gpt2-xl, GPT2LMHeadModel.num_parameters()"},
	} {
		got := float64(bundledConfig(t, c.file).Params())
		if math.Abs(got/c.want-1) > 0.01 {
			t.Errorf("%s: %.0f parameters, %s gives %.0f (%.2f%% off)", c.file, got, c.source, c.want, 100*(got/c.want-1))
		}
	}
}

// The GPT-3 configs are GPT-2 configs: their counts follow GPT-2's layout,
// 12·d² + 13·d per layer plus the tables, which the test works out apart.
func TestHFParamsGPT3(t *testing.T) {
	for _, name := range []string{"gpt3_xl", "gpt3_27"} {
		c := bundledConfig(t, name)
		d, L := int64(c.Dim), int64(c.Layers)
		want := L*(12*d*d+13*d) + int64(c.Vocab)*d + int64(c.Positions)*d + 2*d
		if c.Params() != want {
			t.Errorf("%s: %d parameters, want %d", name, c.Params(), want)
		}
	}
	if p := bundledConfig(t, "gpt3_27").Params(); p < 2.6e9 || p > 2.7e9 {
		t.Errorf("gpt3_27: %d parameters, want GPT-3 2.7B's ~2.65 B", p)
	}
	// Hugging Face's own count of the models built from these configs:
	// sum(p.numel() for p in GPT2LMHeadModel/OPTForCausalLM.parameters())
	// under transformers 5.17, recorded with each measured label
	// (datasets/data/h200/labels/NVIDIA_H200/*-inf-*.json, "parameters").
	for name, want := range map[string]int64{"gpt3_xl": 2_879_554_560, "gpt3_27": 2_651_553_280, "gpt2_large": 774_030_080, "opt_13": 1_315_758_080} {
		if p := bundledConfig(t, name).Params(); p != want {
			t.Errorf("%s: %d parameters, transformers 5.17 counts %d", name, p, want)
		}
	}
}

// model_type of another type is said to be of that type, not missing too.
func TestHFConfigModelTypeType(t *testing.T) {
	_, err := ParseHFConfig([]byte(`{"model_type":5}`), "c.json")
	if err == nil || !strings.Contains(err.Error(), "model_type: 5: want a string, not a number") || strings.Contains(err.Error(), "missing") {
		t.Errorf("model_type 5: %v", err)
	}
}

func TestHFConfigErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"model_type":"t5"}`, `model_type: "t5": not supported`},
		{`{}`, "model_type: missing"},
		{`{"model_type":"gpt2","n_layer":2,"n_embd":100,"n_head":3,"vocab_size":10}`, "width 100 (n_embd) is not a multiple of the 3 heads (n_head)"},
		{`{"model_type":"gpt2","n_layer":-2,"n_embd":96,"n_head":3,"vocab_size":10}`, "n_layer: -2"},
		{`{"model_type":"gpt2","n_layer":"2"}`, `n_layer: "2": want a whole number in [0, 2^24], not a string`},
		{`{"model_type":"opt","num_hidden_layers":2,"hidden_size":64,"num_attention_heads":2,"ffn_dim":8,"vocab_size":5,"do_layer_norm_before":"no"}`, `do_layer_norm_before: "no": want true or false, not a string`},
		{`[1]`, "a JSON array, want an object: a Hugging Face config.json"},
		{`{"model_type":"opt","num_hidden_layers":2,"hidden_size":64,"num_attention_heads":2,"ffn_dim":8,"vocab_size":5,"enable_bias":false}`, "enable_bias: false"},
		{`{"model_type":"opt","num_hidden_layers":2,"hidden_size":64,"num_attention_heads":2,"ffn_dim":8,"vocab_size":5,"layer_norm_elementwise_affine":false}`, "layer_norm_elementwise_affine: false"},
		{`{"model_type":"switch_transformers","num_layers":2,"d_model":8,"num_heads":2,"d_ff":16,"vocab_size":10,"num_experts":2,"expert_capacity":4,"encoder_sparse_step":null}`, "encoder_sparse_step: null"},
		{`{"model_type":"gpt2","n_layer":2,"n_embd":96,"n_head":3,"vocab_size":10,"attn_pdrop":-0.1}`, "attn_pdrop: -0.1: want a probability"},
		// a reviewer's finds: the type said, not a range; the family's keys
		{`{"model_type":"gpt2","n_layer":2,"n_embd":96,"n_head":3,"vocab_size":10,"resid_pdrop":"0.1"}`, `resid_pdrop: "0.1": want a probability in [0, 1), a number, not a string`},
		{`{"model_type":"gpt2","n_layer":2,"n_embd":96,"n_head":3,"vocab_size":10,"tie_word_embeddings":"false"}`, `tie_word_embeddings: "false": want true or false, not a string`},
		{`{"model_type":"llama","num_hidden_layers":2,"hidden_size":2016,"num_attention_heads":32,"intermediate_size":64,"vocab_size":10}`, "per-head width 63: odd; rotary embedding needs an even one"},
		{`{"model_type":"gpt2","n_layer":2,"n_embd":96,"n_head":3,"vocab_size":10,"reorder_and_upcast_attn":true}`, "reorder_and_upcast_attn: true"},
		{`{"model_type":"llama","num_hidden_layers":2,"hidden_size":64,"num_attention_heads":2,"intermediate_size":64,"vocab_size":10,"pretraining_tp":2}`, "pretraining_tp: 2"},
		// the config classes' aliases (attribute_map), which Hugging Face
		// reads and wb does not: Switch's num_hidden_layers once left the
		// default 12 layers, silently (a reviewer's find)
		{`{"model_type":"switch_transformers","d_model":8,"num_heads":2,"d_ff":16,"vocab_size":10,"num_hidden_layers":24}`, "num_hidden_layers: a switch_transformers config names it num_layers"},
		{`{"model_type":"gpt2","n_layer":2,"n_embd":96,"n_head":3,"vocab_size":10,"max_position_embeddings":64}`, "max_position_embeddings: a gpt2 config names it n_positions"},
		// an activation wb cannot lower, with its key (it was said without)
		{`{"model_type":"gpt2","n_layer":2,"n_embd":96,"n_head":3,"vocab_size":10,"activation_function":"quick_gelu"}`, `activation_function: activation "quick_gelu" not supported`},
		{`{"model_type":"llama","num_hidden_layers":2,"hidden_size":64,"num_attention_heads":2,"intermediate_size":64,"vocab_size":10,"hidden_act":"mish"}`, `hidden_act: activation "mish" not supported`},
		{`{"model_type":"switch_transformers","num_layers":2,"d_model":8,"num_heads":2,"d_ff":16,"vocab_size":10,"dense_act_fn":"gelu_10"}`, `dense_act_fn: activation "gelu_10" not supported`},
	} {
		_, err := ParseHFConfig([]byte(c.in), "c.json")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "c.json:") {
			t.Errorf("%s: error %v, want %q", c.in, err, c.want)
		}
	}
	// a width not a multiple of the heads is said alone: its quotient, cut
	// (4,001 / 32 = 125), is no width of the model's to call odd
	_, err := ParseHFConfig([]byte(`{"model_type":"llama","num_hidden_layers":2,"hidden_size":4001,"num_attention_heads":32,"intermediate_size":64,"vocab_size":10}`), "c.json")
	if err == nil || !strings.Contains(err.Error(), "width 4001 (hidden_size) is not a multiple of the 32 heads") || strings.Contains(err.Error(), "odd") {
		t.Errorf("width 4001 over 32 heads: %v", err)
	}
}

func FuzzParseHFConfig(f *testing.F) {
	f.Add([]byte(`{"model_type":"gpt2","n_layer":2,"n_embd":96,"n_head":3,"vocab_size":10,"n_positions":16}`))
	f.Add([]byte(`{"model_type":"switch_transformers","num_layers":2,"d_model":8,"num_heads":2,"d_kv":4,"d_ff":16,"vocab_size":10,"num_experts":2,"expert_capacity":4}`))
	f.Add([]byte(`{"model_type":"llama","num_hidden_layers":2,"hidden_size":8,"num_attention_heads":2,"num_key_value_heads":1,"intermediate_size":16,"vocab_size":10}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		c, err := ParseHFConfig(in, "f.json")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.json:") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if c.Layers < 1 || c.Dim < 1 || c.Heads < 1 || c.FF < 1 || c.Vocab < 1 || c.HeadDim < 0 {
			t.Fatalf("accepted %+v", c)
		}
		if p := c.Params(); p <= 0 {
			t.Fatalf("%+v: %d parameters", c, p)
		}
	})
}

// The graphs built from configs hold Hugging Face's parameters: within 1%
// of the published counts (TestHFParams' sources) and equal to
// HFConfig.Params.
func TestHFNetwork(t *testing.T) {
	for _, c := range []struct {
		file string
		seq  int
		want float64
	}{
		{"bert_large", 512, 335_141_888},
		{"gpt2_large", 1024, 774_030_080},
		{"opt_13", 2048, 1_315_758_080},
		{"gpt3_27", 2048, 0},
	} {
		cfg := bundledConfig(t, c.file)
		n, err := cfg.Network(c.seq)
		if err != nil {
			t.Fatal(err)
		}
		if n.Params() != cfg.Params() {
			t.Errorf("%s: the graph has %d parameters, the config %d", c.file, n.Params(), cfg.Params())
		}
		if c.want > 0 && math.Abs(float64(n.Params())/c.want-1) > 0.01 {
			t.Errorf("%s: %d parameters, Hugging Face %.0f", c.file, n.Params(), c.want)
		}
		if !(n.MACs() > 0) {
			t.Errorf("%s: no work", c.file)
		}
	}
	if _, err := bundledConfig(t, "llama2_7b").Network(128); err == nil || !strings.Contains(err.Error(), "not built yet") {
		t.Errorf("llama graph: %v", err)
	}
	if _, err := bundledConfig(t, "bert_large").Network(1024); err == nil || !strings.Contains(err.Error(), "longer than its 512 positions") {
		t.Errorf("bert at 1024 tokens: %v", err)
	}
}

// TestHFConfigErrorsNameKeys: a missing figure is named by the config's own
// key, and an activation left out takes Hugging Face's default for the
// model type.
func TestHFConfigErrorsNameKeys(t *testing.T) {
	for body, want := range map[string]string{
		`{"model_type":"gpt2","n_embd":64,"n_head":4,"vocab_size":10}`:                                          "n_layer (layers): 0",
		`{"model_type":"llama","num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,"vocab_size":10}`: "intermediate_size (feed-forward width): 0",
		`{"model_type":"opt","num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,"vocab_size":10}`:   "ffn_dim (feed-forward width): 0",
	} {
		_, err := ParseHFConfig([]byte(body), "c.json")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", body, err, want)
		}
	}
	c, err := ParseHFConfig([]byte(`{"model_type":"llama","num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,"intermediate_size":128,"vocab_size":10}`), "c.json")
	if err != nil {
		t.Fatal(err)
	}
	if c.Act != "silu" {
		t.Errorf("llama without hidden_act: activation %q, want Hugging Face's default silu", c.Act)
	}
}

// TestHFDefaults: a config.json that leaves a key out gets Hugging Face's
// default for it (from the model type's Config class), and Llama's
// head_dim, attention_bias and mlp_bias are read.
func TestHFDefaults(t *testing.T) {
	params := func(js string) int64 {
		t.Helper()
		c, err := ParseHFConfig([]byte(js), "c.json")
		if err != nil {
			t.Fatal(err)
		}
		return c.Params()
	}
	for _, c := range []struct {
		name, js string
		want     int64
	}{
		// the published counts of gpt2, bert-base-uncased (BertModel with
		// its pooler) and facebook/opt-125m, their position tables (1,024,
		// 512 and 2,048 + 2) and BERT's 2 token types left to the defaults
		{"gpt2", `{"model_type":"gpt2","n_embd":768,"n_head":12,"n_layer":12,"vocab_size":50257}`, 124439808},
		// the same behind a byte-order mark, as some editors save it
		{"gpt2 with a BOM", "\ufeff" + `{"model_type":"gpt2","n_embd":768,"n_head":12,"n_layer":12,"vocab_size":50257}`, 124439808},
		{"bert", `{"model_type":"bert","hidden_size":768,"num_attention_heads":12,"num_hidden_layers":12,"intermediate_size":3072,"vocab_size":30522}`, 109482240},
		{"opt", `{"model_type":"opt","hidden_size":768,"num_attention_heads":12,"num_hidden_layers":12,"ffn_dim":3072,"vocab_size":50272,"word_embed_proj_dim":768}`, 125239296},
		// by hand: q 2,048 → 16 × 256, k and v 2,048 → 4 × 256, o back,
		// 3 × 2,048 × 8,192 of MLP, 2 norms, a layer; two layers, untied
		// 32,000 × 2,048 embedding and head, the final norm
		{"llama head_dim", `{"model_type":"llama","hidden_size":2048,"intermediate_size":8192,"num_attention_heads":16,"num_hidden_layers":2,"num_key_value_heads":4,"head_dim":256,"vocab_size":32000,"tie_word_embeddings":false}`,
			2*(2048*4096+2*2048*1024+4096*2048+3*2048*8192+2*2048) + 2*32000*2048 + 2048},
		// Llama-2 7B (6,738,415,616) with q, k, v, o and gate, up, down biases
		{"llama biases", `{"model_type":"llama","hidden_size":4096,"intermediate_size":11008,"num_attention_heads":32,"num_hidden_layers":32,"vocab_size":32000,"attention_bias":true,"mlp_bias":true}`,
			6738415616 + 32*(4*4096+2*11008+4096)},
	} {
		if got := params(c.js); got != c.want {
			t.Errorf("%s: %d parameters, want %d", c.name, got, c.want)
		}
	}
	// Switch Transformers: 3 sparse layers of each stack, d_kv 64 and 12
	// encoder layers where the file does not say
	sw := `"model_type":"switch_transformers","d_ff":3072,"d_model":768,"expert_capacity":64,"num_experts":8,"num_heads":12,"vocab_size":32128`
	if a, b := params(`{`+sw+`,"d_kv":64,"num_layers":12,"num_decoder_layers":12}`), params(`{`+sw+`,"d_kv":64,"num_layers":12,"num_decoder_layers":12,"num_sparse_encoder_layers":3,"num_sparse_decoder_layers":3}`); a != b {
		t.Errorf("switch without num_sparse_*_layers: %d parameters, with 3 written %d", a, b)
	}
	if a, b := params(`{`+sw+`,"num_layers":12}`), params(`{`+sw+`,"num_layers":12,"d_kv":64}`); a != b {
		t.Errorf("switch without d_kv: %d parameters, with 64 written %d", a, b)
	}
	c, err := ParseHFConfig([]byte(`{`+sw+`,"d_kv":64,"num_decoder_layers":6}`), "c.json")
	if err != nil || c.EncLayers != 12 || c.Layers != 6 {
		t.Errorf("switch without num_layers: %+v, %v; want 12 encoder layers", c, err)
	}
	// head_dim frees the width from being a multiple of the heads
	if _, err := ParseHFConfig([]byte(`{"model_type":"llama","hidden_size":1000,"intermediate_size":2048,"num_attention_heads":16,"num_hidden_layers":2,"head_dim":64,"vocab_size":1000}`), "c.json"); err != nil {
		t.Errorf("llama with head_dim and a width not a multiple of the heads: %v", err)
	}
	if _, err := ParseHFConfig([]byte(`{"model_type":"llama","hidden_size":1000,"intermediate_size":2048,"num_attention_heads":16,"num_hidden_layers":2,"vocab_size":1000}`), "c.json"); err == nil {
		t.Error("llama without head_dim and a width not a multiple of the heads: accepted")
	}
}

// The dropouts a config sets, Hugging Face's defaults where it sets none;
// a dropout of 0 is no layer (PyTorch runs no kernel for it): OPT has none
// on its attention probabilities (attention_dropout 0) nor on its
// embeddings (OPTDecoder has no such dropout).
func TestHFDropouts(t *testing.T) {
	count := func(n *Network) (attn, all int) {
		for _, node := range n.Nodes {
			if node.Layer.Op() == OpDropout {
				all++
				if strings.Contains(node.Name, "attn.") {
					attn++
				}
			}
		}
		return attn, all
	}
	for _, c := range []struct {
		file            string
		layers          int
		attn, dropouts  int
		p, pAttn, pEmbd float64
	}{
		{"bert_large", 24, 24, 1 + 24*3, 0.1, 0.1, 0.1},
		{"gpt2_large", 36, 36, 1 + 36*3, 0.1, 0.1, 0.1},
		{"opt_13", 24, 0, 24 * 2, 0.1, 0, 0},
	} {
		cfg := bundledConfig(t, c.file)
		if cfg.Dropout != c.p || cfg.AttnDropout != c.pAttn || cfg.EmbedDropout != c.pEmbd {
			t.Errorf("%s: dropouts %v, %v, %v; want %v, %v, %v", c.file, cfg.Dropout, cfg.AttnDropout, cfg.EmbedDropout, c.p, c.pAttn, c.pEmbd)
		}
		n, err := cfg.Network(64)
		if err != nil {
			t.Fatal(err)
		}
		if attn, all := count(n); attn != c.attn || all != c.dropouts {
			t.Errorf("%s: %d attention dropouts of %d, want %d of %d", c.file, attn, all, c.attn, c.dropouts)
		}
	}
	// a BERT with no attention dropout, and a bad probability
	c, err := ParseHFConfig([]byte(`{"model_type":"bert","vocab_size":100,"num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,"intermediate_size":256,"attention_probs_dropout_prob":0}`), "b.json")
	if err != nil {
		t.Fatal(err)
	}
	n, err := c.Network(16)
	if err != nil {
		t.Fatal(err)
	}
	if attn, all := count(n); attn != 0 || all != 1+2*2 {
		t.Errorf("bert without attention dropout: %d attention dropouts of %d", attn, all)
	}
	if _, err := ParseHFConfig([]byte(`{"model_type":"gpt2","vocab_size":100,"n_layer":2,"n_embd":64,"n_head":4,"resid_pdrop":1.5}`), "g.json"); err == nil || !strings.Contains(err.Error(), "resid_pdrop: 1.5: want a probability in [0, 1)") {
		t.Errorf("a dropout of 1.5: %v", err)
	}
}

// Switch's relative-position tables hold relative_attention_num_buckets
// rows per head, in the first self-attention layer of each stack.
func TestHFSwitchBuckets(t *testing.T) {
	body := `{"model_type":"switch_transformers","num_layers":2,"d_model":8,"num_heads":2,"d_ff":16,"vocab_size":10,"num_experts":2,"expert_capacity":4%s}`
	p := func(extra string) int64 {
		c, err := ParseHFConfig([]byte(fmt.Sprintf(body, extra)), "s.json")
		if err != nil {
			t.Fatal(err)
		}
		return c.Params()
	}
	if d := p(`,"relative_attention_num_buckets":64`) - p(""); d != 2*(64-32)*2 {
		t.Errorf("64 buckets against the default 32: %d parameters more, want %d", d, 2*(64-32)*2)
	}
}

// Llama's kin, read as llama: Mistral (its sliding window a mask) and Qwen2
// (biases on q, k and v, none on o), their parameter counts Hugging Face's,
// each read with a note that says so.
func TestHFLlamaKin(t *testing.T) {
	for _, c := range []struct {
		cfg    string
		want   int64
		source string
	}{
		// mistralai/Mistral-7B-v0.1's config.json; MistralForCausalLM.num_parameters() 7,241,732,096
		{`{"model_type":"mistral","hidden_size":4096,"intermediate_size":14336,"num_attention_heads":32,"num_hidden_layers":32,"num_key_value_heads":8,"vocab_size":32000,"max_position_embeddings":32768,"sliding_window":4096,"rope_theta":10000.0,"tie_word_embeddings":false}`,
			7_241_732_096, "Hugging Face mistralai/Mistral-7B-v0.1, MistralForCausalLM.num_parameters()"},
		// Qwen/Qwen2-0.5B's config.json; Qwen2ForCausalLM.num_parameters() 494,032,768 (tied head)
		{`{"model_type":"qwen2","hidden_size":896,"intermediate_size":4864,"num_attention_heads":14,"num_hidden_layers":24,"num_key_value_heads":2,"vocab_size":151936,"max_position_embeddings":32768,"tie_word_embeddings":true,"use_sliding_window":false,"sliding_window":32768,"max_window_layers":24,"rope_theta":1000000.0}`,
			494_032_768, "Hugging Face Qwen/Qwen2-0.5B, Qwen2ForCausalLM.num_parameters()"},
	} {
		h, err := ParseHFConfig([]byte(c.cfg), "config.json")
		if err != nil {
			t.Fatal(err)
		}
		if got := h.Params(); got != c.want || h.ModelType != "llama" || len(h.Notes) != 1 || !strings.Contains(h.Notes[0], "read as llama") {
			t.Errorf("%s: %d parameters as %s, notes %q; want %d (%s)", c.source, got, h.ModelType, h.Notes, c.want, c.source)
		}
	}
}

// OPT-350M's post-norm layout and RoBERTa (read as BERT, said so), their
// parameter counts Hugging Face's; Mistral-Nemo's sliding_window null is
// said as no window.
func TestHFPostNormAndRoBERTa(t *testing.T) {
	// facebook/opt-350m's config.json; OPTForCausalLM.num_parameters()
	// 331,196,416: no final_layer_norm where do_layer_norm_before is false
	opt, err := ParseHFConfig([]byte(`{"model_type":"opt","activation_function":"relu","do_layer_norm_before":false,"dropout":0.1,"ffn_dim":4096,"hidden_size":1024,"max_position_embeddings":2048,"num_attention_heads":16,"num_hidden_layers":24,"vocab_size":50272,"word_embed_proj_dim":512}`), "opt-350m.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := opt.Params(); got != 331_196_416 || !opt.PostNorm {
		t.Errorf("opt-350m: %d parameters, post-norm %v; want 331,196,416 (Hugging Face facebook/opt-350m, OPTForCausalLM.num_parameters())", got, opt.PostNorm)
	}
	// its graph (the analytical path) alike: no final norm
	if n, err := opt.Network(128); err != nil {
		t.Error(err)
	} else if n.Params() != opt.Params() {
		t.Errorf("opt-350m graph: %d parameters; want the config's", n.Params())
	}
	// roberta-base's config.json; RobertaModel.num_parameters() 124,645,632
	// (with its pooler, as BertModel)
	rb, err := ParseHFConfig([]byte(`{"model_type":"roberta","attention_probs_dropout_prob":0.1,"hidden_act":"gelu","hidden_dropout_prob":0.1,"hidden_size":768,"intermediate_size":3072,"max_position_embeddings":514,"num_attention_heads":12,"num_hidden_layers":12,"type_vocab_size":1,"vocab_size":50265}`), "roberta-base.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := rb.Params(); got != 124_645_632 || rb.ModelType != "bert" || len(rb.Notes) != 1 || !strings.Contains(rb.Notes[0], "read as bert") {
		t.Errorf("roberta-base: %d parameters as %s, notes %q; want 124,645,632 (Hugging Face roberta-base, RobertaModel.num_parameters())", got, rb.ModelType, rb.Notes)
	}
	// its positions count from padding_idx + 1 (RobertaEmbeddings'
	// create_position_ids_from_input_ids): 512 tokens, where 513 index past
	// the table of 514 (it was taken)
	if rb.MaxSeq() != 512 {
		t.Errorf("roberta-base serves %d tokens, want 512", rb.MaxSeq())
	}
	if _, err := rb.Network(512); err != nil {
		t.Errorf("roberta-base at 512 tokens: %v", err)
	}
	if _, err := rb.Network(513); err == nil || !strings.Contains(err.Error(), "sequence of 513 tokens is longer than its 512 positions (max_position_embeddings 514, of which the first 2 come before") {
		t.Errorf("roberta-base at 513 tokens: %v", err)
	}
	// a padding index that leaves no position to a token is refused, not
	// read as no position table at all
	if _, err := ParseHFConfig([]byte(`{"model_type":"roberta","hidden_size":768,"intermediate_size":3072,"max_position_embeddings":514,"num_attention_heads":12,"num_hidden_layers":12,"vocab_size":50265,"pad_token_id":600}`), "r.json"); err == nil || !strings.Contains(err.Error(), "pad_token_id 600: RoBERTa numbers positions from pad_token_id + 1") {
		t.Errorf("roberta with pad_token_id 600: %v", err)
	}
	nemo, err := ParseHFConfig([]byte(`{"model_type":"mistral","hidden_size":5120,"head_dim":128,"intermediate_size":14336,"num_attention_heads":32,"num_hidden_layers":40,"num_key_value_heads":8,"vocab_size":131072,"sliding_window":null,"tie_word_embeddings":false}`), "nemo.json")
	if err != nil || len(nemo.Notes) != 1 || !strings.Contains(nemo.Notes[0], "with no sliding window") {
		t.Errorf("Mistral-Nemo: %v, notes %q", err, nemo.Notes)
	}
}

// A key wb does not read within two letters of one it does is noted (a typo
// would predict another model); keys Hugging Face writes that wb has no use
// for are not; architecture keys wb does not model are refused.
func TestHFConfigNearMisses(t *testing.T) {
	base := `"model_type":"llama","hidden_size":2048,"intermediate_size":5632,"num_attention_heads":32,"num_hidden_layers":22,"vocab_size":32000,"rms_norm_eps":1e-5,"torch_dtype":"bfloat16","bos_token_id":1,"initializer_range":0.02`
	h, err := ParseHFConfig([]byte(`{`+base+`,"num_key_value_head":4}`), "tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Notes) != 1 || h.Notes[0] != "num_key_value_head: not a key wb reads; did you mean num_key_value_heads? (the model is predicted without it)" {
		t.Errorf("notes %q", h.Notes)
	}
	if h, err := ParseHFConfig([]byte(`{`+base+`,"num_key_value_heads":4}`), "tiny.json"); err != nil || len(h.Notes) != 0 {
		t.Errorf("a config wb reads whole: %v, notes %q", err, h.Notes)
	}
	for cfg, want := range map[string]string{
		`{` + base + `,"num_local_experts":8}`: "num_local_experts: 8 (a mixture of experts in each layer, as Mixtral's) is not modelled",
		`{"model_type":"gpt2","n_layer":2,"n_embd":96,"n_head":3,"vocab_size":10,"add_cross_attention":true}`:                                                                   "add_cross_attention: true",
		`{"model_type":"bert","num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,"intermediate_size":128,"vocab_size":10,"position_embedding_type":"relative_key"}`: `position_embedding_type: "relative_key" (relative positions in the attention scores) is not modelled`,
		`{"model_type":"switch_transformers","num_layers":2,"d_model":64,"num_heads":4,"d_kv":0,"d_ff":128,"vocab_size":10}`:                                                    "d_kv: 0: want a positive per-head width",
	} {
		if _, err := ParseHFConfig([]byte(cfg), "c.json"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", cfg, err, want)
		}
	}
	// a misspelt required key: the missing figure's error says which key is near
	if _, err := ParseHFConfig([]byte(`{"model_type":"llama","hidden_size":64,"intermediate_size":128,"num_attention_heads":4,"num_hiden_layers":2,"vocab_size":10}`), "t.json"); err == nil ||
		!strings.Contains(err.Error(), "num_hidden_layers (layers): 0") || !strings.Contains(err.Error(), "num_hiden_layers: not a key wb reads; did you mean num_hidden_layers?") {
		t.Errorf("a misspelt required key: %v", err)
	}
	// a rotary model's trained positions bound no table
	if h, err := ParseHFConfig([]byte(`{`+base+`,"max_position_embeddings":2048}`), "tiny.json"); err != nil || h.Positions != 0 || h.TrainedPositions != 2048 {
		t.Errorf("llama positions: %v %+v", err, h)
	}
}

// A model's folder reads as its config.json; a folder without one is said
// so.
func TestReadHFConfigFolder(t *testing.T) {
	dir := t.TempDir()
	raw, err := os.ReadFile(filepath.Join("..", "datasets", "data", "neusight", "models", "gpt2_large.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := ReadHFConfig(dir)
	if err != nil || c.Name != filepath.Join(dir, "config.json") || c.Layers != 36 {
		t.Errorf("a model's folder: %+v, %v", c, err)
	}
	if _, err := ReadHFConfig(t.TempDir()); err == nil || !strings.Contains(err.Error(), "a folder with no config.json") {
		t.Errorf("a folder without config.json: %v", err)
	}
}

// A config.json past readcap.JSON bytes (one that never ends: /dev/zero)
// is refused naming the file and the cap, not read until memory runs out.
func TestReadHFConfigCapped(t *testing.T) {
	dir := t.TempDir()
	body := `{"model_type":"gpt2","n_layer":2,"n_embd":96,"n_head":3,"vocab_size":10}`
	p := filepath.Join(dir, "config.json")
	if err := os.WriteFile(p, append([]byte(body), bytes.Repeat([]byte(" "), readcap.JSON)...), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{p, dir} {
		if _, err := ReadHFConfig(path); err == nil || !strings.Contains(err.Error(), p+": more than 8 MiB") {
			t.Errorf("%s: %v", path, err)
		}
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := ReadHFConfig("/dev/zero"); err == nil || !strings.Contains(err.Error(), "/dev/zero: more than 8 MiB") {
			t.Errorf("/dev/zero: %v", err)
		}
	}
}

// A key given twice in a config.json is refused with its line and key, not
// read as its last value (as Python's json and encoding/json read it).
func TestHFConfigDuplicateKeys(t *testing.T) {
	in := "{\"model_type\":\"llama\",\"num_hidden_layers\":2,\"hidden_size\":64,\"num_attention_heads\":16,\n\"num_key_value_heads\":8,\n\"num_key_value_heads\":16,\"intermediate_size\":16,\"vocab_size\":10}"
	if c, err := ParseHFConfig([]byte(in), "c.json"); err == nil || !strings.HasPrefix(err.Error(), "c.json:3:1: num_key_value_heads: given twice (first at line 2, column 1;") {
		t.Errorf("a key given twice: %+v, %v", c, err)
	}
	// the same key in two objects is no duplicate
	in = `{"model_type":"gpt2","n_layer":2,"n_embd":96,"n_head":3,"vocab_size":10,"task_specific_params":{"a":{"x":1},"b":{"x":1}}}`
	if _, err := ParseHFConfig([]byte(in), "c.json"); err != nil {
		t.Errorf("a key in two objects: %v", err)
	}
}

// A figure given as 0 where Hugging Face builds nothing of 0 (a position
// table of no rows, no key/value heads, a per-head width of 0) is refused,
// naming the file and the key, not read as absent; left out, or null, the
// default is taken.
func TestHFConfigGivenZero(t *testing.T) {
	gpt2 := `{"model_type":"gpt2","n_layer":2,"n_embd":96,"n_head":3,"vocab_size":10%s}`
	bert := `{"model_type":"bert","num_hidden_layers":2,"hidden_size":64,"num_attention_heads":2,"intermediate_size":8,"vocab_size":10%s}`
	opt := `{"model_type":"opt","num_hidden_layers":2,"hidden_size":64,"num_attention_heads":2,"ffn_dim":8,"vocab_size":5%s}`
	llama := `{"model_type":"llama","num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,"intermediate_size":16,"vocab_size":10%s}`
	for _, c := range []struct{ base, extra, want string }{
		{gpt2, `,"n_positions":0`, "c.json: n_positions: 0: want a positive number of positions"},
		{gpt2, `,"n_inner":0`, "c.json: n_inner: 0: want a positive feed-forward width"},
		{bert, `,"max_position_embeddings":0`, "c.json: max_position_embeddings: 0: want a positive number of positions"},
		{bert, `,"type_vocab_size":0`, "c.json: type_vocab_size: 0: want a positive number of token types"},
		{opt, `,"max_position_embeddings":0`, "c.json: max_position_embeddings: 0: want a positive number of positions"},
		{opt, `,"word_embed_proj_dim":0`, "c.json: word_embed_proj_dim: 0: want a positive width of the word embeddings"},
		{llama, `,"num_key_value_heads":0`, "c.json: num_key_value_heads: 0: want a positive number of key/value heads"},
		{llama, `,"head_dim":0`, "c.json: head_dim: 0: want a positive per-head width"},
	} {
		in := fmt.Sprintf(c.base, c.extra)
		if cfg, err := ParseHFConfig([]byte(in), "c.json"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %+v, %v, want %q", in, cfg, err, c.want)
		}
	}
	// absent or null: Hugging Face's defaults
	for _, c := range []struct {
		in   string
		want func(*HFConfig) bool
	}{
		{fmt.Sprintf(gpt2, ""), func(c *HFConfig) bool { return c.Positions == 1024 && c.FF == 4*96 }},
		{fmt.Sprintf(gpt2, `,"n_inner":null`), func(c *HFConfig) bool { return c.FF == 4*96 }},
		{fmt.Sprintf(opt, ""), func(c *HFConfig) bool { return c.Positions == 2048 && c.EmbedProj == 64 }},
		{fmt.Sprintf(llama, `,"num_key_value_heads":null`), func(c *HFConfig) bool { return c.KVHeads == 4 && c.HeadDim == 16 }},
	} {
		if cfg, err := ParseHFConfig([]byte(c.in), "c.json"); err != nil || !c.want(cfg) {
			t.Errorf("%s: %+v, %v", c.in, cfg, err)
		}
	}
}

// A config names its model by its file, or, a config.json, by its folder
// (a hub snapshot's by its repository), in the graph built and wherever
// wb names the model.
func TestHFConfigModelName(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "datasets", "data", "neusight", "models", "gpt2_large.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	for _, c := range []struct{ name, model, file string }{
		{"models/gpt2_large.json", "gpt2_large", "gpt2_large.json"},
		{"Llama-3.1-8B/config.json", "Llama-3.1-8B", "Llama-3.1-8B/config.json"},
		{"hub/models--meta-llama--Llama-3.1-8B/snapshots/0e9e39f/config.json", "Llama-3.1-8B", "Llama-3.1-8B/config.json"},
		{"hub/models--gpt2/snapshots/607a30d/config.json", "gpt2", "gpt2/config.json"},
		{"config.json", filepath.Base(dir), filepath.Base(dir) + "/config.json"},
	} {
		cfg := &HFConfig{Name: c.name}
		if m, f := cfg.Model(), cfg.File(); m != c.model || f != c.file {
			t.Errorf("%s: model %q, file %q; want %q, %q", c.name, m, f, c.model, c.file)
		}
	}
	os.MkdirAll("GPT2-Large", 0o755)
	os.WriteFile(filepath.Join("GPT2-Large", "config.json"), raw, 0o644)
	cfg, err := ReadHFConfig("GPT2-Large")
	if err != nil {
		t.Fatal(err)
	}
	net, err := cfg.Network(128)
	if err != nil || net.Name != "GPT2-Large" {
		t.Errorf("the graph of GPT2-Large/config.json: %v, %v", net.Name, err)
	}
}
