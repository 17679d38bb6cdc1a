package dnn

import (
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
)

// within reports whether got is within rel of want.
func within(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

// TestResNetCounts checks parameters and forward MACs at 224×224 against
// torchvision's published figures (docs.pytorch.org/vision/stable/models:
// "Params" and "GFLOPS", where the GFLOPS column counts multiply-adds):
// ResNet-50 25,557,032 params and 4.09 G; ResNet-18 11,689,512 and 1.81 G.
func TestResNetCounts(t *testing.T) {
	tests := []struct {
		name       string
		blocks     [4]int
		bottleneck bool
		params     int64
		gmacs      float64
	}{
		{"resnet50", [4]int{3, 4, 6, 3}, true, 25_557_032, 4.09},
		{"resnet18", [4]int{2, 2, 2, 2}, false, 11_689_512, 1.81},
	}
	for _, tt := range tests {
		n, err := ResNet(tt.name, tt.blocks, tt.bottleneck, 224, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if n.Params() != tt.params {
			t.Errorf("%s: %d parameters, torchvision %d", tt.name, n.Params(), tt.params)
		}
		if g := n.MACs() / 1e9; !within(g, tt.gmacs, 0.01) {
			t.Errorf("%s: %.3f G MACs, torchvision %.2f (±1%%)", tt.name, g, tt.gmacs)
		}
		if out := n.Output(); len(out) != 1 || out[0] != 1000 {
			t.Errorf("%s: output %v", tt.name, out)
		}
	}
}

// TestConvWork checks one convolution's work by hand: 64→64 channels, 3×3,
// 56×56, batch 2, fp16.
func TestConvWork(t *testing.T) {
	b, x := NewBuilder("t", Shape{64, 56, 56})
	b.Conv2D("c", x, Conv{Out: 64, Kernel: 3, Pad: 1})
	n, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	l := n.Nodes[0].Layer
	macs := 64.0 * 56 * 56 * 64 * 9 // per sample
	act := 64.0 * 56 * 56 * 2 * 2   // values × batch × 2 bytes
	wts := 64.0 * 64 * 9 * 2
	want := map[Pass]Work{
		Forward:         {FLOPs: Flops(2 * macs * 2), Read: Bytes(act + wts), Written: Bytes(act), Matrix: true},
		BackwardData:    {FLOPs: Flops(2 * macs * 2), Read: Bytes(act + wts), Written: Bytes(act), Matrix: true},
		BackwardWeights: {FLOPs: Flops(2 * macs * 2), Read: Bytes(2 * act), Written: Bytes(wts), Matrix: true},
		Update:          {FLOPs: Flops(4 * 64 * 64 * 9), Read: Bytes(3 * 64 * 64 * 9 * 4), Written: Bytes(2 * 64 * 64 * 9 * 4)},
	}
	for p, w := range want {
		if got := l.Work(2, p, FP16); got != w {
			t.Errorf("%v: %+v, want %+v", p, got, w)
		}
	}
}

func TestShapeErrors(t *testing.T) {
	b, x := NewBuilder("bad", Shape{3, 8, 8})
	y := b.Conv2D("big", x, Conv{Out: 4, Kernel: 11})
	b.ReLU("after", y) // skipped: reads a failed layer
	b.Conv2D("groups", x, Conv{Out: 4, Kernel: 1, Groups: 2})
	b.Conv2D("negative", x, Conv{Out: 3, Kernel: 1, Groups: -3})
	b.Sum("mismatch", x, b.MaxPool("pool", x, 2, 2, 0))
	b.Linear("big", x, 10, true)
	_, err := b.Build()
	for _, want := range []string{
		"bad: layer big: conv2d: kernel 11×11 (dilation 1) larger than the padded input 8×8",
		"bad: layer groups: conv2d: 2 groups do not divide 3 input and 4 output channels",
		"bad: layer negative: conv2d: -3 groups: want a positive count",
		"bad: layer mismatch: sum of shapes [3×8×8] and [3×4×4]",
		"bad: layer big: name used twice",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("errors lack %q:\n%v", want, err)
		}
	}
	if err != nil && strings.Contains(err.Error(), "after") {
		t.Errorf("a layer after a failed one reported an error too:\n%v", err)
	}
}

func TestGEMMModel(t *testing.T) {
	n, err := Model("gemm:4096")
	if err != nil {
		t.Fatal(err)
	}
	// At batch 4096 the forward pass is 2·4096³ FLOPs.
	if w := n.Work(4096, Forward, BF16); w.FLOPs != Flops(2*4096.0*4096*4096) {
		t.Errorf("forward FLOPs %g", w.FLOPs)
	}
	for _, bad := range []string{"gemm:", "gemm:0", "gemm:x"} {
		if _, err := Model(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// TestKept counts by hand what a training step keeps for the backward: the
// network's input (the convolution's), the convolution's output (the batch
// norm's input), the ReLU's output (flattened, a view) once though two
// linear layers read it; not the batch norm's output, which only the ReLU
// reads; the softmax's output, once. Batch 4, fp16.
func TestKept(t *testing.T) {
	b, x := NewBuilder("t", Shape{3, 8, 8})
	c := b.Conv2D("c", x, Conv{Out: 16, Kernel: 3, Pad: 1})
	r := b.ReLU("r", b.BatchNorm("bn", c))
	f := b.Flatten("f", r)
	b.Softmax("p", b.Sum("s", b.Linear("l1", f, 10, true), b.Linear("l2", f, 10, true)))
	n, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	want := float64(3*8*8+16*8*8+16*8*8+10) * 4 * 2
	if got := n.Kept(4, FP16); got != want {
		t.Errorf("kept %g bytes, want %g", got, want)
	}
}

// Autograd computes a layer's data gradient only where one of its inputs
// needs a gradient: not on the network's input, nor on what is computed
// from it alone (the recommendation job's normalisation and dropout noise
// before its first linear layer; CycleGAN's reflection pad before its
// first convolution).
func TestDataGradients(t *testing.T) {
	rec, err := Recoder("recommendation", 20108, 200)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for i, g := range rec.DataGradients() {
		got[rec.Nodes[i].Name] = g
	}
	want := map[string]bool{"normalize": false, "noise": false, "encoder": false, "tanh": true, "decoder": true}
	if !maps.Equal(got, want) {
		t.Errorf("recommendation: %v, want %v", got, want)
	}
	// the transformer's decoder looks its tokens up in the encoder's
	// table (shared, tied): the decoder's layers compute their inputs'
	// gradients, down to its embedding's sum with the positions
	tr, err := Model("transformer")
	if err != nil {
		t.Fatal(err)
	}
	tg := tr.DataGradients()
	checked := 0
	for i, node := range tr.Nodes {
		if strings.HasPrefix(node.Name, "decoder.") && node.Layer.Op() != OpEmbedding {
			checked++
			if !tg[i] {
				t.Errorf("transformer: %s has no data gradient", node.Name)
			}
		}
	}
	if checked == 0 {
		t.Error("transformer: no decoder layer")
	}
	// a norm and an LSTM on what needs no gradient still run their
	// data-gradient pass: it holds their weights' gradients (the norm's
	// scale and shift, the LSTM's recurrence)
	b0, x0 := NewBuilder("folds", Shape{4, 8})
	d0 := b0.Dropout("drop", x0, 0.1)
	b0.LayerNorm("ln", d0)
	b0.LSTM("lstm", d0, 8, 1)
	folds, err := b0.Build()
	if err != nil {
		t.Fatal(err)
	}
	if g := folds.DataGradients(); !slices.Equal(g, []bool{false, true, true}) {
		t.Errorf("norm and LSTM behind a dropout on the input: %v", g)
	}
	// a tied output layer without a bias trains (another layer's weight):
	// the norm before it keeps its output for the weight's gradient
	b, x := NewBuilder("tied", Shape{4, 8})
	d := b.Dropout("drop", x, 0.1)
	n := b.LayerNorm("ln", d)
	b.TiedLinear("head", n, 16, false)
	tied, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if g := tied.DataGradients(); !slices.Equal(g, []bool{false, true, true}) {
		t.Errorf("tied: %v", g)
	}
	// kept: the norm's input (its weights' gradient) and its output (the
	// head's), 32 values each
	if k := tied.Kept(1, FP32); k != 2*32*4 {
		t.Errorf("kept %v bytes, want %v", k, 2*32*4)
	}
}
