package dnn

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wb-sim/wb/internal/jsonpos"
	"github.com/wb-sim/wb/internal/readcap"
	"github.com/wb-sim/wb/internal/registry"
)

// HFConfig is the part of a Hugging Face config.json that sets a
// transformer's shapes, under one set of names whatever the model family
// calls them (hidden_size, n_embd, d_model ...).
type HFConfig struct {
	Name      string // the file, or the zoo name
	ModelType string // bert, gpt2, opt, llama, switch_transformers

	Layers     int // decoder (or encoder-only) layers
	EncLayers  int // encoder layers of an encoder-decoder (switch_transformers)
	Dim        int // model width
	Heads      int
	KVHeads    int // key/value heads (llama's grouped-query attention); Heads when absent
	HeadDim    int // per-head width: Dim / Heads, or d_kv
	FF         int // feed-forward width
	Vocab      int
	Positions  int // learned position table (0: none, as with rotary embeddings)
	TokenTypes int // BERT's segment table
	Act        string
	// Tied says whether the output projection shares the token embedding
	// (no parameters of its own).
	Tied bool
	// OPT's word_embed_proj_dim (a projection around the decoder when it
	// differs from Dim).
	EmbedProj int
	// PostNorm is OPT's do_layer_norm_before false (OPT-350M): each layer
	// normalises after its residual sums, as BERT does, and the decoder
	// has no final norm.
	PostNorm bool
	// Llama's attention_bias (q, k, v and o with biases: AttnBias and
	// OutBias; Qwen2's q, k and v alone) and mlp_bias (gate, up and down
	// with biases).
	AttnBias, OutBias, MLPBias bool

	// Switch Transformers' mixture of experts: Experts feed-forward networks,
	// each taking at most Capacity tokens of a sequence, in the encoder's and
	// decoder's sparse layers (SparseLayer).
	Experts, Capacity int
	EncStep, DecStep  int // encoder_sparse_step, decoder_sparse_step
	// Buckets is relative_attention_num_buckets (32): the relative-position
	// table of the first self-attention layer of each stack, per head.
	Buckets int
	// RouterJitter: the router multiplies its input by uniform noise in
	// training (router_jitter_noise not 0; SwitchTransformersConfig's
	// default is 0.01).
	RouterJitter bool

	// Dropout probabilities in training, Hugging Face's defaults where the
	// file has none: on the attention probabilities (BERT's
	// attention_probs_dropout_prob, GPT-2's attn_pdrop, OPT's and Llama's
	// attention_dropout, Switch's dropout_rate), on each sub-layer's
	// output (hidden_dropout_prob, resid_pdrop, OPT's dropout,
	// dropout_rate) and on the embeddings (BERT's hidden_dropout_prob,
	// GPT-2's embd_pdrop, Switch's dropout_rate; OPT and Llama have none).
	// PyTorch runs no kernel for a dropout of 0.
	AttnDropout, Dropout, EmbedDropout float64
	// NoAttnScale is GPT-2's scale_attn_weights false (the scores not
	// divided by √d); ScaleByLayer its scale_attn_by_inverse_layer_idx
	// (the scores divided by the layer's index + 1 as well).
	NoAttnScale, ScaleByLayer bool

	// TrainedPositions is a rotary model's max_position_embeddings (Llama):
	// the sequence it was trained for, which bounds no table (Positions
	// is 0), so a longer one runs.
	TrainedPositions int
	// PositionOffset is the positions of the table before the first
	// token's: RoBERTa's padding_idx + 1 (2 with pad_token_id 1), whose
	// 514 positions serve sequences of 512 (MaxSeq).
	PositionOffset int

	// Notes are what reading the file took on trust: a key wb does not
	// read that is a near miss of one it does (a typo would leave the
	// model predicted without it), a model type read as another.
	Notes []string

	// keys names the config.json key each checked figure came from, for
	// the errors (layers: "n_layer" in a GPT-2 config).
	keys map[string]string
	// headDimSet: a llama config gave head_dim (so the width need not be a
	// multiple of the heads).
	headDimSet bool
}

// hfKeys are the config.json keys of the checked figures, by model type:
// layers, width, heads, feed-forward width.
var hfKeys = map[string][4]string{
	"bert":                {"num_hidden_layers", "hidden_size", "num_attention_heads", "intermediate_size"},
	"gpt2":                {"n_layer", "n_embd", "n_head", "n_inner, by default 4 × n_embd"},
	"opt":                 {"num_hidden_layers", "hidden_size", "num_attention_heads", "ffn_dim"},
	"llama":               {"num_hidden_layers", "hidden_size", "num_attention_heads", "intermediate_size"},
	"switch_transformers": {"num_decoder_layers or num_layers", "d_model", "num_heads", "d_ff"},
}

// hfActKeys name each family's activation key.
var hfActKeys = map[string]string{"bert": "hidden_act", "gpt2": "activation_function", "opt": "activation_function",
	"llama": "hidden_act", "switch_transformers": "dense_act_fn"}

// hfAliases are the aliases each family's config class maps to its own
// keys (attribute_map in transformers' GPT2Config and
// SwitchTransformersConfig), which a config.json written by hand may use.
var hfAliases = map[string]map[string]string{
	"gpt2":                {"hidden_size": "n_embd", "max_position_embeddings": "n_positions", "num_attention_heads": "n_head", "num_hidden_layers": "n_layer"},
	"switch_transformers": {"hidden_size": "d_model", "num_attention_heads": "num_heads", "num_hidden_layers": "num_layers"},
}

// hfActs are Hugging Face's default activations, where a config names none
// (BertConfig's hidden_act, GPT2Config's and OPTConfig's
// activation_function, LlamaConfig's hidden_act, SwitchTransformersConfig's
// dense_act_fn).
var hfActs = map[string]string{"bert": "gelu", "gpt2": "gelu_new", "opt": "relu", "llama": "silu", "switch_transformers": "relu"}

// ReadHFConfig reads a config.json; path may be a model's folder (as
// from_pretrained takes one, a hub snapshot), whose config.json is read.
func ReadHFConfig(path string) (*HFConfig, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		p := filepath.Join(path, "config.json")
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("%s: a folder with no config.json: want a Hugging Face model's config.json, or the folder that holds it", path)
		}
		path = p
	}
	b, err := readcap.ReadFile(path, readcap.JSON)
	if err != nil {
		return nil, err
	}
	return ParseHFConfig(b, path)
}

// ParseHFConfig parses a config.json; name names it in errors. It knows the
// model types bert, gpt2, opt, llama and switch_transformers.
func ParseHFConfig(b []byte, name string) (*HFConfig, error) {
	// a byte-order mark, as some editors write (labels and spec sheets
	// take it too)
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field == "" {
			return nil, fmt.Errorf("%s: a JSON %s, want an object: a Hugging Face config.json", name, te.Value)
		}
		return nil, jsonpos.At(name, b, err)
	}
	// a key given twice would be read as its last value, as Python's json
	// reads it, without a word: the figure meant is unknown
	if err := jsonpos.Duplicates(name, b, false); err != nil {
		return nil, err
	}
	c := &HFConfig{Name: name}
	var errs []error
	read := map[string]bool{"model_type": true} // the keys wb looked for
	wrongType := map[string]bool{}              // keys given a value of another type
	get := func(key string) (any, bool) {
		read[key] = true
		v, ok := raw[key]
		return v, ok
	}
	str := func(key string) string {
		v, ok := get(key)
		if !ok || v == nil {
			return ""
		}
		s, ok := v.(string)
		if !ok {
			errs = append(errs, fmt.Errorf("%s: %s: want a string, not %s", key, jsonOf(v), jsonKind(v)))
			wrongType[key] = true // (given: not said to be missing as well)
		}
		return s
	}
	num := func(keys ...string) int {
		for _, k := range keys {
			v, ok := get(k)
			if !ok || v == nil {
				continue
			}
			f, ok := v.(float64)
			if !ok {
				errs = append(errs, fmt.Errorf("%s: %s: want a whole number in [0, 2^24], not %s", k, jsonOf(v), jsonKind(v)))
				return 0
			}
			if f != float64(int64(f)) || f < 0 || f > 1<<24 {
				errs = append(errs, fmt.Errorf("%s: %v: want a whole number in [0, 2^24]", k, v))
				return 0
			}
			return int(f)
		}
		return 0
	}
	// numOr is num with Hugging Face's default where the file has none of
	// keys (a config.json saved by transformers has every key; one written
	// by hand may not)
	numOr := func(def int, keys ...string) int {
		for _, k := range keys {
			if v, ok := get(k); ok && v != nil {
				return num(keys...)
			}
		}
		return def
	}
	// prob is a dropout probability, def where the file has none of keys
	prob := func(def float64, keys ...string) float64 {
		for _, k := range keys {
			v, ok := get(k)
			if !ok || v == nil {
				continue
			}
			f, ok := v.(float64)
			if !ok {
				errs = append(errs, fmt.Errorf("%s: %s: want a probability in [0, 1), a number, not %s", k, jsonOf(v), jsonKind(v)))
				return def
			}
			if !(f >= 0 && f < 1) {
				errs = append(errs, fmt.Errorf("%s: %v: want a probability in [0, 1)", k, v))
				return def
			}
			return f
		}
		return def
	}
	// given0 refuses key given as 0 where Hugging Face builds nothing of
	// 0 (a table of no rows, no heads) or fails: left out (or null), the
	// default is taken, but a 0 is no default
	given0 := func(what string, keys ...string) {
		for _, k := range keys {
			if v, ok := raw[k]; ok && v == 0.0 {
				errs = append(errs, fmt.Errorf("%s: 0: want a positive %s (leave the key out for Hugging Face's default)", k, what))
			}
		}
	}
	boolean := func(key string, def bool) bool {
		v, ok := get(key)
		if !ok || v == nil {
			return def
		}
		bv, ok := v.(bool)
		if !ok {
			errs = append(errs, fmt.Errorf("%s: %s: want true or false, not %s", key, jsonOf(v), jsonKind(v)))
		}
		return bv
	}
	c.ModelType = str("model_type")
	c.Vocab = num("vocab_size")
	// Llama's kin, as eager Hugging Face runs them: Mistral's sliding
	// window is a mask over the same scores (its cost Llama's), Qwen2 adds
	// biases to q, k and v alone
	family := c.ModelType
	switch c.ModelType {
	case "mistral", "qwen2":
		how := map[string]string{"mistral": "its sliding window a mask over the same attention scores", "qwen2": "with biases on q, k and v"}[c.ModelType]
		if v, ok := raw["sliding_window"]; c.ModelType == "mistral" && ok && v == nil {
			how = "with no sliding window"
		}
		c.Notes = append(c.Notes, fmt.Sprintf("model_type %q: read as llama (%s)", c.ModelType, how))
		family = "llama"
	case "roberta":
		// RobertaModel is BertModel's layers, embeddings and pooler; its
		// positions start after the padding index, a table of
		// max_position_embeddings (514) all the same
		c.Notes = append(c.Notes, `model_type "roberta": read as bert (its layers, embeddings and pooler are BERT's)`)
		family = "bert"
		// RobertaEmbeddings numbers a sequence's positions from
		// padding_idx + 1: a table of 514 serves 512 tokens, and 513
		// index past it
		c.PositionOffset = numOr(1, "pad_token_id") + 1
		if c.PositionOffset < 1 || c.PositionOffset >= numOr(514, "max_position_embeddings") {
			errs = append(errs, fmt.Errorf("pad_token_id %d: RoBERTa numbers positions from pad_token_id + 1, which leaves none of its %d (max_position_embeddings) to a token", c.PositionOffset-1, numOr(514, "max_position_embeddings")))
		}
	}
	// architecture keys wb does not model, which would change the model
	if v, _ := get("add_cross_attention"); v == true {
		errs = append(errs, errors.New("add_cross_attention: true (a decoder's cross-attention to an encoder) is not modelled"))
	}
	if n := numOr(0, "num_local_experts"); n > 1 {
		errs = append(errs, fmt.Errorf("num_local_experts: %d (a mixture of experts in each layer, as Mixtral's) is not modelled: of experts, wb models switch_transformers", n))
	}
	switch family {
	case "bert":
		// relative position embeddings add a product of the queries (and
		// keys) by a distance table to every head's scores
		if pe := str("position_embedding_type"); pe != "" && pe != "absolute" {
			errs = append(errs, fmt.Errorf("position_embedding_type: %q (relative positions in the attention scores) is not modelled: wb models BERT's absolute position embeddings", pe))
		}
		c.Layers, c.Dim, c.Heads, c.FF = num("num_hidden_layers"), num("hidden_size"), num("num_attention_heads"), num("intermediate_size")
		c.Positions, c.TokenTypes, c.Act = numOr(512, "max_position_embeddings"), numOr(2, "type_vocab_size"), str("hidden_act")
		given0("number of positions", "max_position_embeddings")
		given0("number of token types", "type_vocab_size")
		c.Tied = true
		c.AttnDropout, c.Dropout = prob(0.1, "attention_probs_dropout_prob"), prob(0.1, "hidden_dropout_prob")
		c.EmbedDropout = c.Dropout
	case "gpt2":
		c.Layers, c.Dim, c.Heads, c.FF = num("n_layer"), num("n_embd"), num("n_head"), num("n_inner")
		if c.FF == 0 {
			c.FF = 4 * c.Dim
		}
		c.Positions, c.Act, c.Tied = numOr(1024, "n_positions"), str("activation_function"), boolean("tie_word_embeddings", true)
		given0("number of positions", "n_positions")
		given0("feed-forward width", "n_inner")
		c.AttnDropout, c.Dropout, c.EmbedDropout = prob(0.1, "attn_pdrop"), prob(0.1, "resid_pdrop"), prob(0.1, "embd_pdrop")
		// GPT2Attention's switches of the scores' scaling
		c.NoAttnScale = !boolean("scale_attn_weights", true)
		c.ScaleByLayer = boolean("scale_attn_by_inverse_layer_idx", false)
		if boolean("reorder_and_upcast_attn", false) {
			errs = append(errs, errors.New("reorder_and_upcast_attn: true (the scores by torch.baddbmm, upcast) is not modelled: set it to false for eager GPT-2's path"))
		}
	case "opt":
		c.Layers, c.Dim, c.Heads, c.FF = num("num_hidden_layers"), num("hidden_size"), num("num_attention_heads"), num("ffn_dim")
		c.Positions, c.Act, c.Tied = numOr(2048, "max_position_embeddings"), str("activation_function"), boolean("tie_word_embeddings", true)
		c.EmbedProj = num("word_embed_proj_dim")
		given0("number of positions", "max_position_embeddings")
		given0("width of the word embeddings", "word_embed_proj_dim")
		c.AttnDropout, c.Dropout = prob(0, "attention_dropout"), prob(0.1, "dropout") // OPTDecoder: no dropout on the embeddings
		// activation_dropout is read (OPTConfig has it) but OPTDecoderLayer
		// never applies it: fc1, the activation, fc2, then dropout (a
		// reviewer's reading of modeling_opt.py)
		prob(0, "activation_dropout")
		c.PostNorm = !boolean("do_layer_norm_before", true)
		// OPTConfig's switches that change the weights wb counts
		if !boolean("enable_bias", true) {
			errs = append(errs, errors.New("enable_bias: false (products without biases) is not supported"))
		}
		if !boolean("layer_norm_elementwise_affine", true) {
			errs = append(errs, errors.New("layer_norm_elementwise_affine: false (norms without weights) is not supported"))
		}
	case "llama":
		c.Layers, c.Dim, c.Heads, c.FF = num("num_hidden_layers"), num("hidden_size"), num("num_attention_heads"), num("intermediate_size")
		c.KVHeads, c.Act, c.Tied = num("num_key_value_heads"), str("hidden_act"), boolean("tie_word_embeddings", false)
		// rotary positions have no table: a longer sequence runs
		c.TrainedPositions = numOr(0, "max_position_embeddings")
		// LlamaConfig: head_dim, where given, sets the heads' width (q is
		// heads × head_dim wide, whatever hidden_size is); biases on the
		// attention's and the MLP's products where asked
		c.HeadDim = num("head_dim")
		c.headDimSet = c.HeadDim > 0
		given0("number of key/value heads", "num_key_value_heads")
		given0("per-head width", "head_dim")
		c.AttnBias, c.MLPBias = boolean("attention_bias", false), boolean("mlp_bias", false)
		c.OutBias = c.AttnBias
		if c.ModelType == "qwen2" {
			c.AttnBias, c.OutBias = true, false
		}
		for _, k := range []string{"sliding_window", "use_sliding_window", "max_window_layers", "rope_theta", "rope_scaling"} {
			read[k] = true // change the mask or the positions' values, not the work
		}
		c.AttnDropout = prob(0, "attention_dropout")
		// older LlamaModel code splits its products into pretraining_tp
		// slices (many more, smaller kernels)
		if n := numOr(1, "pretraining_tp"); n > 1 {
			errs = append(errs, fmt.Errorf("pretraining_tp: %d (products split into slices, as Hugging Face's code before 4.45 runs them) is not modelled: set it to 1", n))
		}
	case "switch_transformers":
		// SwitchTransformersConfig's defaults: 12 layers, the decoder as
		// many as the encoder, d_kv 64, 3 sparse layers of each
		c.EncLayers = numOr(12, "num_layers")
		c.Layers = numOr(c.EncLayers, "num_decoder_layers")
		c.Dim, c.Heads, c.HeadDim, c.FF = num("d_model"), num("num_heads"), numOr(64, "d_kv"), num("d_ff")
		if v, _ := get("d_kv"); v == 0.0 {
			errs = append(errs, errors.New("d_kv: 0: want a positive per-head width")) // not taken for d_model / num_heads
		}
		c.Act, c.Tied = str("dense_act_fn"), boolean("tie_word_embeddings", true)
		c.Experts, c.Capacity = numOr(8, "num_experts"), numOr(64, "expert_capacity") // SwitchTransformersConfig's defaults
		c.Buckets = numOr(32, "relative_attention_num_buckets")
		for _, k := range []string{"encoder_sparse_step", "decoder_sparse_step"} {
			if v, ok := raw[k]; ok && v == nil {
				errs = append(errs, fmt.Errorf("%s: null: give a whole number (0: no sparse layer), or leave the key out for the default", k))
			}
		}
		c.Dropout = prob(0.1, "dropout_rate")
		c.AttnDropout, c.EmbedDropout = c.Dropout, c.Dropout
		c.RouterJitter = true
		if v, ok := raw["router_jitter_noise"].(float64); ok && v == 0 {
			c.RouterJitter = false
		}
		// SwitchTransformersConfig: a step absent from the file follows
		// from the number of sparse layers (the layers when there are none)
		step := func(key, sparse string, layers int) int {
			if _, ok := raw[key]; ok {
				return num(key)
			}
			if n := numOr(3, sparse); n > 0 {
				return layers / n
			}
			return layers
		}
		c.EncStep = step("encoder_sparse_step", "num_sparse_encoder_layers", c.EncLayers)
		c.DecStep = step("decoder_sparse_step", "num_sparse_decoder_layers", c.Layers)
	case "":
		if !wrongType["model_type"] {
			errs = append(errs, errors.New("model_type: missing (want bert, gpt2, opt, llama or switch_transformers)"))
		}
	default:
		errs = append(errs, fmt.Errorf("model_type: %q: not supported (known: bert, gpt2, opt, llama, switch_transformers; roberta read as bert, mistral and qwen2 as llama)", c.ModelType))
	}
	if k, ok := hfKeys[family]; ok {
		c.keys = map[string]string{"layers": k[0], "width": k[1], "heads": k[2], "feed-forward width": k[3]}
		if c.Act == "" {
			c.Act = hfActs[family]
		}
	}
	// an activation wb cannot lower, said with the key that names it
	if _, err := hfActivation(c.Act); err != nil && hfActKeys[family] != "" {
		errs = append(errs, fmt.Errorf("%s: %w", hfActKeys[family], err))
	}
	c.ModelType = family
	// an alias of a key (the config class's attribute_map), which Hugging
	// Face reads as that key and wb does not: refused with the key to write
	// (Switch's num_hidden_layers left 12 layers predicted, silently)
	for _, k := range slices.Sorted(maps.Keys(hfAliases[family])) {
		if _, given := raw[k]; given && !read[k] {
			to := hfAliases[family][k]
			errs = append(errs, fmt.Errorf("%s: a %s config names it %s (Hugging Face reads %s as an alias of it; wb reads %s alone): write %s", k, family, to, k, to, to))
		}
	}
	// a key wb does not read within two letters of one it does: a typo
	// that would leave the model predicted without it
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		if read[k] {
			continue
		}
		for _, r := range slices.Sorted(maps.Keys(read)) {
			if _, given := raw[r]; !given && registry.Distance(k, r) <= 2 {
				c.Notes = append(c.Notes, fmt.Sprintf("%s: not a key wb reads; did you mean %s? (the model is predicted without it)", k, r))
				break
			}
		}
	}
	if len(errs) == 0 {
		if c.KVHeads == 0 {
			c.KVHeads = c.Heads
		}
		if c.HeadDim == 0 && c.Heads > 0 {
			c.HeadDim = c.Dim / c.Heads
		}
		if c.EmbedProj == 0 {
			c.EmbedProj = c.Dim
		}
		errs = append(errs, c.validate())
	}
	if err := errors.Join(errs...); err != nil {
		msg := strings.ReplaceAll(err.Error(), "\n", "; ")
		for _, n := range c.Notes {
			if strings.Contains(n, "did you mean") {
				msg += "; " + n // a misspelt key is often why one is missing
			}
		}
		return nil, fmt.Errorf("%s: %s", name, msg)
	}
	return c, nil
}

// Model names the model: its file's name without .json ("gpt2_large"),
// or, for a config.json, its folder's, as Hugging Face names a model by
// its folder ("Llama-3.1-8B"; a hub snapshot's
// models--meta-llama--Llama-3.1-8B/snapshots/HASH/config.json too).
func (c *HFConfig) Model() string {
	base := filepath.Base(c.Name)
	if base != "config.json" {
		return strings.TrimSuffix(base, ".json")
	}
	dir := filepath.Dir(c.Name)
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if filepath.Base(filepath.Dir(dir)) == "snapshots" {
		if repo, ok := strings.CutPrefix(filepath.Base(filepath.Dir(filepath.Dir(dir))), "models--"); ok {
			if i := strings.LastIndex(repo, "--"); i >= 0 {
				repo = repo[i+len("--"):] // models--OWNER--NAME
			}
			if repo != "" {
				return repo
			}
		}
	}
	if d := filepath.Base(dir); d != "." && d != string(filepath.Separator) {
		return d
	}
	return "config"
}

// File names the config's file for a line about the model: its base name
// ("gpt2_large.json"), a config.json with its folder
// ("Llama-3.1-8B/config.json", as [HFConfig.Model] names it).
func (c *HFConfig) File() string {
	if base := filepath.Base(c.Name); base != "config.json" {
		return base
	}
	return c.Model() + "/config.json"
}

func (c *HFConfig) validate() error {
	var errs []error
	for _, f := range []struct {
		name string
		v    int
	}{{"layers", c.Layers}, {"width", c.Dim}, {"heads", c.Heads}, {"feed-forward width", c.FF}, {"vocab_size", c.Vocab}} {
		if f.v < 1 {
			name := f.name
			if k, ok := c.keys[name]; ok {
				name = fmt.Sprintf("%s (%s)", k, name)
			}
			errs = append(errs, fmt.Errorf("%s: %d: want a positive number (missing, or 0)", name, f.v))
		}
	}
	if c.Heads > 0 && c.ModelType != "switch_transformers" && !c.headDimSet && c.Dim%c.Heads != 0 {
		errs = append(errs, fmt.Errorf("width %d (%s) is not a multiple of the %d heads (%s)", c.Dim, c.keys["width"], c.Heads, c.keys["heads"]))
	}
	if c.KVHeads > 0 && c.Heads%c.KVHeads != 0 {
		errs = append(errs, fmt.Errorf("%d heads are not a multiple of the %d key/value heads", c.Heads, c.KVHeads))
	}
	f := func(i int) float64 { return float64(max(i, 1)) }
	if est := f(c.Layers+c.EncLayers+1)*(3*f(c.Dim)*f(c.FF)*f(c.Experts)+4*f(c.Dim)*f(c.Heads)*f(c.HeadDim)+2*f(c.Dim)*f(c.KVHeads)*f(c.HeadDim)) +
		2*(f(c.Vocab)+f(c.Positions)+2)*f(c.Dim)*f(c.EmbedProj); est > 1e15 {
		errs = append(errs, fmt.Errorf("about %.1e parameters: more than 10^15", est))
	}
	if c.ModelType == "switch_transformers" && (c.Experts < 1 || c.Capacity < 1) {
		errs = append(errs, fmt.Errorf("num_experts %d, expert_capacity %d: want positive numbers", c.Experts, c.Capacity))
	}
	if c.HeadDim < 1 {
		how := "width / heads"
		switch c.ModelType {
		case "switch_transformers":
			how = "d_kv"
		case "llama":
			how = "head_dim, or width / heads"
		}
		errs = append(errs, fmt.Errorf("per-head width %d (%s): want a positive width", c.HeadDim, how))
	}
	// rotary embedding pairs a head's values: LlamaRotaryEmbedding's
	// cos and sin are 2 × ⌈width / 2⌉ wide, and q · cos fails for an
	// odd width (Hugging Face raises)
	// (a width not a multiple of the heads is said above: its quotient,
	// cut, would be no width of the model's)
	if c.ModelType == "llama" && c.HeadDim > 0 && c.HeadDim%2 != 0 && (c.headDimSet || c.Heads > 0 && c.Dim%c.Heads == 0) {
		errs = append(errs, fmt.Errorf("per-head width %d: odd; rotary embedding needs an even one (Hugging Face fails on it)", c.HeadDim))
	}
	return errors.Join(errs...)
}

// Params counts the parameters of the model as Hugging Face builds it for
// its architecture (the *LMHeadModel / *ForCausalLM class; BertModel with
// its pooler; SwitchTransformersForConditionalGeneration).
func (c *HFConfig) Params() int64 {
	d, ff, v := int64(c.Dim), int64(c.FF), int64(c.Vocab)
	ln := 2 * d // a layer norm's scale and shift
	switch c.ModelType {
	case "bert":
		attn := 4 * (d*d + d)
		layer := attn + ln + (d*ff + ff) + (ff*d + d) + ln
		emb := (v+int64(c.Positions)+int64(c.TokenTypes))*d + ln
		return emb + int64(c.Layers)*layer + d*d + d // pooler
	case "gpt2":
		layer := ln + (d*3*d + 3*d) + (d*d + d) + ln + (d*ff + ff) + (ff*d + d)
		p := (v+int64(c.Positions))*d + int64(c.Layers)*layer + ln
		if !c.Tied {
			p += v * d
		}
		return p
	case "opt":
		layer := 4*(d*d+d) + ln + (d*ff + ff) + (ff*d + d) + ln
		e := int64(c.EmbedProj)
		p := v*e + (int64(c.Positions)+2)*d + int64(c.Layers)*layer
		if !c.PostNorm {
			p += ln // the decoder's final norm
		}
		if e != d {
			p += 2 * e * d // project_in and project_out, no bias
		}
		if !c.Tied {
			p += v * e
		}
		return p
	case "llama":
		kv, inner := int64(c.KVHeads)*int64(c.HeadDim), int64(c.Heads)*int64(c.HeadDim)
		layer := d*inner + 2*d*kv + inner*d + 3*d*ff + 2*d // q, k, v, o; gate, up, down; two RMS norms
		if c.AttnBias {
			layer += inner + 2*kv
		}
		if c.OutBias {
			layer += d
		}
		if c.MLPBias {
			layer += 2*ff + d
		}
		p := v*d + int64(c.Layers)*layer + d
		if !c.Tied {
			p += v * d
		}
		return p
	case "switch_transformers":
		inner := int64(c.Heads) * int64(c.HeadDim)
		attn := 4 * d * inner
		dense := 2 * d * ff
		moe := int64(c.Experts)*2*d*ff + d*int64(c.Experts) // experts and router
		var p int64
		ff := func(i, step int) int64 {
			if SparseLayer(i, step) {
				return moe
			}
			return dense
		}
		for i := range c.EncLayers {
			p += attn + d + d // self-attention, two RMS norms
			p += ff(i, c.EncStep)
		}
		for i := range c.Layers {
			p += 2*attn + 3*d // self and cross attention, three RMS norms
			p += ff(i, c.DecStep)
		}
		// shared embedding, two final norms, the relative-position tables of
		// the first layers, and the LM head unless tied
		p += v*d + 2*d + 2*int64(c.Buckets)*int64(c.Heads)
		if !c.Tied {
			p += v * d
		}
		return p
	}
	return 0
}

// SparseLayer reports whether Switch Transformers' layer i (from 0) of a
// stack with sparse step step is a mixture of experts, as
// SwitchTransformersStack decides: i % step == 1, every layer with step 1,
// none with step 0.
func SparseLayer(i, step int) bool {
	return step > 0 && (step == 1 || i%step == 1)
}

// hfActivation maps Hugging Face's activation names to the builder's.
func hfActivation(a string) (string, error) {
	switch a {
	case "gelu", "gelu_new", "gelu_fast", "gelu_python", "gelu_pytorch_tanh":
		return "gelu", nil
	case "relu", "silu", "tanh":
		return a, nil
	case "swish":
		return "silu", nil
	}
	return "", fmt.Errorf("activation %q not supported (known: gelu and its variants, relu, silu, tanh)", a)
}

// MaxSeq is the longest sequence the model's position table serves (0: no
// table, as with rotary positions): its positions less those before the
// first token's (PositionOffset).
func (c *HFConfig) MaxSeq() int {
	if c.Positions <= 0 {
		return 0
	}
	return c.Positions - c.PositionOffset
}

// CheckSeq refuses a sequence longer than the position table serves
// (MaxSeq).
func (c *HFConfig) CheckSeq(seq int) error {
	n := c.MaxSeq()
	if n <= 0 || seq <= n {
		return nil
	}
	if c.PositionOffset > 0 {
		return fmt.Errorf("%s: sequence of %d tokens is longer than its %d positions (max_position_embeddings %d, of which the first %d come before the first token's: its positions count from padding_idx + 1)",
			c.Name, seq, n, c.Positions, c.PositionOffset)
	}
	return fmt.Errorf("%s: sequence of %d tokens is longer than its %d positions", c.Name, seq, n)
}

// Network builds the model as a dnn graph for sequences of seq tokens, as
// Hugging Face's class for the config defines it: BertModel with its pooler
// (bert), GPT2LMHeadModel (gpt2, the GPT-3 sizes) and OPTForCausalLM (opt),
// with the config's dropouts (none of probability 0). Llama (RMS norms, gated
// feed-forward, rotary positions) and Switch Transformers (experts) are not
// built as graphs yet: the GPU op model (predictor/gpu) lowers them.
func (c *HFConfig) Network(seq int) (*Network, error) {
	if seq < 1 {
		return nil, fmt.Errorf("%s: sequence of %d tokens: want a positive length", c.Name, seq)
	}
	if err := c.CheckSeq(seq); err != nil {
		return nil, err
	}
	act, err := hfActivation(c.Act)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name, err)
	}
	b, x := NewBuilder(c.Model(), Shape{seq})
	tc := TransformerConfig{Dim: c.Dim, Heads: c.Heads, FF: c.FF, Act: act, Dropout: c.Dropout, AttnDropout: c.AttnDropout, OwnAttnDropout: true}
	dropout := func(name string, h T, p float64) T {
		if p > 0 {
			return b.Dropout(name, h, p)
		}
		return h
	}
	switch c.ModelType {
	case "bert":
		h := b.Sum("embeddings.add",
			b.Embedding("embeddings.word", x, c.Vocab, c.Dim),
			b.Embedding("embeddings.position", x, c.Positions, c.Dim),
			b.Embedding("embeddings.token_type", x, max(c.TokenTypes, 1), c.Dim))
		h = b.LayerNorm("embeddings.ln", h)
		h = dropout("embeddings.dropout", h, c.EmbedDropout)
		for i := range c.Layers {
			h = b.EncoderLayer(fmt.Sprintf("encoder.%d.", i), h, tc)
		}
		p := b.SelectToken("pooler.first", h, 0)
		p = b.Linear("pooler.dense", p, c.Dim, true)
		b.Activation("pooler.tanh", p, "tanh")
	case "gpt2", "opt":
		// OPT-350M normalises after each residual sum, as BERT's layers
		// do, and has no final norm
		tc.PreNorm, tc.Causal = !c.PostNorm, true
		emb := c.EmbedProj
		tok := b.Embedding("wte", x, c.Vocab, emb)
		if emb != c.Dim {
			tok = b.Linear("project_in", tok, c.Dim, false)
		}
		positions := c.Positions
		if c.ModelType == "opt" {
			positions += 2 // OPTLearnedPositionalEmbedding's offset
		}
		h := b.Sum("add", tok, b.Embedding("wpe", x, positions, c.Dim))
		h = dropout("drop", h, c.EmbedDropout)
		for i := range c.Layers {
			h = b.EncoderLayer(fmt.Sprintf("h.%d.", i), h, tc)
		}
		if !c.PostNorm {
			h = b.LayerNorm("ln_f", h)
		}
		if emb != c.Dim {
			h = b.Linear("project_out", h, emb, false)
		}
		if c.Tied {
			b.TiedLinear("lm_head", h, c.Vocab, false)
		} else {
			b.Linear("lm_head", h, c.Vocab, false)
		}
	default:
		return nil, fmt.Errorf("%s: a dnn graph of %s is not built yet (the GPU op model predicts it: wb predict --model-config %s --device-spec GPU)", c.Name, c.ModelType, c.Name)
	}
	return b.Build()
}

// jsonOf is a decoded JSON value as the file wrote it.
func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// jsonKind names a decoded JSON value's type: "a string", "an array"...
func jsonKind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "a number"
}
