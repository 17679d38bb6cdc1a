package gpu

import (
	"path/filepath"
	"testing"

	"github.com/wb-sim/wb/datasets/neusight"
	"github.com/wb-sim/wb/dnn"
)

// TestActivationsCounted: a tensor two kernels keep counts once, counted
// by hand on a block of three side-by-side projections, a softmax read by
// the next product, and a softmax that is not.
func TestActivationsCounted(t *testing.T) {
	const rows, d, heads, seq = 64, 32, 4, 16
	p := &Program{Blocks: []Block{{Name: "layer", Repeat: 3, Kernels: []Kernel{
		{Op: neusight.Linear, Batch: 1, M: rows, K: d, N: d}, // input kept
		{Op: neusight.Linear, Batch: 1, M: rows, K: d, N: d}, // same input
		{Op: neusight.Linear, Batch: 1, M: rows, K: d, N: d}, // same input
		{Op: neusight.Softmax, Rows: heads * seq, Width: seq},
		{Op: neusight.BMM, Batch: heads, M: seq, K: seq, N: d / heads}, // keeps the softmax's output and the values
		{Op: neusight.Softmax, Rows: heads * seq, Width: seq},           // its own output kept
		{Op: "gelu", Rows: 1, Width: rows * d, Inputs: 1, Outputs: 1},  // kept by no product
		{Op: neusight.Linear, Batch: 1, M: rows, K: d, N: 4 * d},       // its input kept
	}}}}
	perLayer := 4.0 * (rows*d + heads*(seq*seq+seq*d/heads) + heads*seq*seq + rows*d)
	if got, want := p.Activations(true), 3*perLayer; got != want {
		t.Errorf("training: %g bytes, want %g", got, want)
	}
	// inference: the largest live set, the last linear's input and output
	if got, want := p.Activations(false), 4.0*(rows*d+rows*4*d); got != want {
		t.Errorf("inference: %g bytes, want %g", got, want)
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
