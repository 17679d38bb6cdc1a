package dnn

import (
	"strings"
	"testing"
)

// TestConcatWork checks Inception's Mixed_5b concatenation by hand: 64, 64,
// 96 and 32 channels of 35×35, batch 2, fp16.
func TestConcatWork(t *testing.T) {
	b, x := NewBuilder("t", Shape{192, 35, 35})
	var xs []T
	for i, c := range []int{64, 64, 96, 32} {
		xs = append(xs, b.Conv2D(string(rune('a'+i)), x, Conv{Out: c, Kernel: 1}))
	}
	y := b.Concat("cat", xs...)
	n, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if got := y.Shape().String(); got != "[256×35×35]" {
		t.Errorf("shape %s", got)
	}
	l := n.Nodes[len(n.Nodes)-1].Layer
	v := Bytes(256 * 35 * 35 * 2 * 2) // values × batch × 2 bytes
	want := map[Pass]Work{
		Forward:         {Read: v, Written: v},
		BackwardData:    {Read: v, Written: v},
		BackwardWeights: {},
		Update:          {},
	}
	for p, w := range want {
		if got := l.Work(2, p, FP16); got != w {
			t.Errorf("%v: %+v, want %+v", p, got, w)
		}
	}
	if l.Params() != 0 || l.Op() != "concat" {
		t.Errorf("params %d, op %s", l.Params(), l.Op())
	}
	if k := l.Key(); k != "concat in=[64×35×35],[64×35×35],[96×35×35],[32×35×35]" {
		t.Errorf("key %s", k)
	}
}

func TestConcatErrors(t *testing.T) {
	b, x := NewBuilder("bad", Shape{3, 8, 8})
	p := b.MaxPool("pool", x, 2, 2, 0)
	b.Concat("sizes", x, p)
	b.Concat("alone", x)
	_, err := b.Build()
	for _, want := range []string{
		"bad: layer sizes: concat of shapes [3×8×8] and [3×4×4]: all dimensions but the first must agree",
		"bad: layer alone: concat of 1 inputs",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("errors lack %q:\n%v", want, err)
		}
	}
}

// TestConvHW checks a 1×7 convolution padded 0×3 (Inception's
// branch7x7_2) against the counts of a 7×7-padded-input convolution by
// hand: 160 → 160 channels on 17×17.
func TestConvHW(t *testing.T) {
	b, x := NewBuilder("t", Shape{160, 17, 17})
	y := convHW(b, "c", x, Conv{Out: 160, Kernel: 1, KernelW: 7}, 0, 3)
	z := convHW(b, "square", x, Conv{Out: 160, Kernel: 3}, 1, 1)
	n, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if y.Shape().String() != "[160×17×17]" || z.Shape().String() != "[160×17×17]" {
		t.Errorf("shapes %v, %v", y.Shape(), z.Shape())
	}
	l := n.Nodes[0].Layer
	if l.Params() != 160*160*7 {
		t.Errorf("%d parameters", l.Params())
	}
	macs := 160.0 * 17 * 17 * 160 * 7
	act := Bytes(160 * 17 * 17 * 4)
	wts := Bytes(160 * 160 * 7 * 4)
	want := map[Pass]Work{
		Forward:         {FLOPs: Flops(2 * macs), Read: act + wts, Written: act, Matrix: true},
		BackwardData:    {FLOPs: Flops(2 * macs), Read: act + wts, Written: act, Matrix: true},
		BackwardWeights: {FLOPs: Flops(2 * macs), Read: 2 * act, Written: wts, Matrix: true},
	}
	for p, w := range want {
		if got := l.Work(1, p, FP32); got != w {
			t.Errorf("%v: %+v, want %+v", p, got, w)
		}
	}
	if k := l.Key(); k != "conv2d in=[160×17×17] out=160 k=1x7 s=1 p=0x3 d=1 g=1 bias=false" {
		t.Errorf("key %s", k)
	}
	if _, ok := n.Nodes[1].Layer.(*conv2d); !ok {
		t.Errorf("equal paddings give %T, want a plain conv2d", n.Nodes[1].Layer)
	}
}

// TestLRNWork checks LRN's counts by hand: 5 channels, 96×55×55, batch 1.
func TestLRNWork(t *testing.T) {
	b, x := NewBuilder("t", Shape{96, 55, 55})
	b.LRN("lrn", x, 5)
	b.LRN("zero", x, 0)
	if _, err := b.Build(); err == nil || !strings.Contains(err.Error(), "t: layer zero: lrn: input [96×55×55], size 0") {
		t.Errorf("error %v", err)
	}
	b, x = NewBuilder("t", Shape{96, 55, 55})
	b.LRN("lrn", x, 5)
	n, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	l := n.Nodes[0].Layer
	v := 96.0 * 55 * 55
	if got, want := l.Work(1, Forward, FP32), (Work{FLOPs: Flops(17 * v), Read: Bytes(4 * v), Written: Bytes(4 * v)}); got != want {
		t.Errorf("forward %+v, want %+v", got, want)
	}
	if got, want := l.Work(1, BackwardData, FP32), (Work{FLOPs: Flops(19 * v), Read: Bytes(12 * v), Written: Bytes(4 * v)}); got != want {
		t.Errorf("backward %+v, want %+v", got, want)
	}
	if l.Key() != "lrn shape=[96×55×55] size=5" {
		t.Errorf("key %s", l.Key())
	}
}
