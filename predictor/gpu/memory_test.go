package gpu

import (
	"path/filepath"
	"testing"

	"github.com/wb-sim/wb/datasets/neusight"
	"github.com/wb-sim/wb/dnn"
)

// TestActivationsCounted: a tensor two kernels keep counts once, counted
// by hand on a block of three projections of one input, a softmax read by
// the next product, and a dropout's output that is a tensor of its own.
func TestActivationsCounted(t *testing.T) {
	const rows, d, heads, seq = 64, 32, 4, 16
	p := &Program{Blocks: []Block{{Name: "layer", Repeat: 3, Kernels: []Kernel{
		{Op: neusight.Linear, Batch: 1, M: rows, K: d, N: d},                              // input kept
		{Op: neusight.Linear, Batch: 1, M: rows, K: d, N: d, SharedInput: true},           // same input
		{Op: neusight.Linear, Batch: 1, M: rows, K: d, N: d, SharedInput: true},           // same input
		{Op: neusight.Softmax, Rows: heads * seq, Width: seq},                             // its output kept
		{Op: neusight.BMM, Batch: heads, M: seq, K: seq, N: d / heads, SharedInput: true}, // that output, and the values
		{Op: neusight.Softmax, Rows: heads * seq, Width: seq},                             // its output kept
		{Op: "dropout", Rows: 1, Width: heads * seq * seq, Inputs: 1, Outputs: 1},         // kept by the product
		{Op: neusight.BMM, Batch: heads, M: seq, K: seq, N: d / heads},                    // both operands
		{Op: "gelu", Rows: 1, Width: rows * d, Inputs: 1, Outputs: 1},                     // kept by no product
		{Op: neusight.Linear, Batch: 1, M: rows, K: d, N: 4 * d},                          // its input kept
	}}}}
	perLayer := 4.0 * (rows*d + heads*seq*seq + seq*d + heads*seq*seq + heads*seq*seq + seq*d + rows*d)
	if got, want := p.Activations(true), 3*perLayer; got != want {
		t.Errorf("training: %g bytes, want %g", got, want)
	}
	// inference: the largest live set, the last linear's input and output
	if got, want := p.Activations(false), 4.0*(rows*d+rows*4*d); got != want {
		t.Errorf("inference: %g bytes, want %g", got, want)
	}
}

// TestActivationsLlama counts Llama 2 7B's training activations by hand at
// 1 × 512 tokens (t tokens, width d = 32 heads × 128, ff 11,008): per
// layer the queries' projection input (keys and values share it), the
// scores' two operands and the weighted sum's values (t·d each), the
// softmax's output (heads × 512²; the weighted sum reads it itself: no
// dropout), the output projection's, gate's (up shares it) and down
// projection's inputs; and the head's input once.
func TestActivationsLlama(t *testing.T) {
	cfg, err := dnn.ReadHFConfig(filepath.Join(bundledDir(t), "models", "llama2_7b.json"))
	if err != nil {
		t.Fatal(err)
	}
	const tok, d, ff, heads, layers = 512, 4096, 11008, 32, 32
	p, err := Lower(cfg, tok, 1, true)
	if err != nil {
		t.Fatal(err)
	}
	perLayer := 4.0 * (tok*d + 3*tok*d + heads*tok*tok + tok*d + tok*d + tok*ff)
	if got, want := p.Activations(true), layers*perLayer+4.0*tok*d; got != want {
		t.Errorf("llama2-7b training, 512 tokens: %.6g bytes kept, want %.6g", got, want)
	}
}

// TestActivationsFitLabels: every configuration NeuSight measured ran, so
// its weights (and, training, their gradients) and the activations
// counted must fit its GPU's memory; and what cannot run is said so.
func TestActivationsFitLabels(t *testing.T) {
	dir := bundledDir(t)
	d, err := neusight.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, l := range d.Labels {
		if l.Fused || l.GPUs > 1 {
			continue
		}
		cfg, err := dnn.ReadHFConfig(filepath.Join(dir, "models", l.Model+".json"))
		if err != nil {
			t.Fatal(err)
		}
		train := l.Mode == neusight.Training
		p, err := Lower(cfg, l.Seq, l.Batch, train)
		if err != nil {
			t.Fatal(err)
		}
		need := float64(cfg.Params()) * 4
		if train {
			need *= 2
		}
		need += p.Activations(train)
		if have := SpecOf(d.Devices[l.GPU]).Memory; need > have {
			t.Errorf("%s %s %s seq %d batch %d ran, but %.1f GiB are counted of its %.1f GiB", l.GPU, l.Model, l.Mode, l.Seq, l.Batch, need/(1<<30), have/(1<<30))
		}
		checked++
	}
	if checked < 40 {
		t.Errorf("%d labels checked, want the 40 unfused single-GPU ones", checked)
	}

	// GPT-2 large's logits at batch 4 × 1024 tokens: the head's input and
	// its 50,257-wide output, the largest tensors of inference
	cfg, err := dnn.ReadHFConfig(filepath.Join(dir, "models", "gpt2_large.json"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Lower(cfg, 1024, 4, false)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Activations(false), 4.0*4096*(1280+50257); got != want {
		t.Errorf("gpt2-large inference, 4 × 1024 tokens: %g bytes live, want %g (the head's input and logits)", got, want)
	}
	// GPT-3 2.7B training at 8 × 2048 tokens: each layer keeps its attention
	// probabilities twice (the softmax's output, the dropout's that the
	// product reads), 32 layers × 32 heads × 8 × 2048² floats each: more
	// than an 80 GB H100 holds
	cfg, err = dnn.ReadHFConfig(filepath.Join(dir, "models", "gpt3_27.json"))
	if err != nil {
		t.Fatal(err)
	}
	if p, err = Lower(cfg, 2048, 8, true); err != nil {
		t.Fatal(err)
	}
	probs := 2 * 32 * 32 * 8 * 2048 * 2048 * 4.0
	if got := p.Activations(true); got < probs || got > 1.5*probs {
		t.Errorf("gpt3-2.7b training, 8 × 2048 tokens: %.4g bytes kept, want the probabilities' %.4g and less than half as much again", got, probs)
	}
}
