package gpu

import (
	"maps"
	"math"
	"testing"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/predictor"
)

// TestLayerKernels checks the lowering of the zoo's layers against dnn's
// own accounting: a product's kernels do the layer pass's FLOPs (within the
// bias's), and every pass of the Gavel models' covered layers lowers.
func TestLayerKernels(t *testing.T) {
	const batch = 8
	for _, name := range []string{"resnet50", "resnet18-cifar", "transformer-translation", "lm", "cyclegan", "recommendation"} {
		n, err := dnn.Model(name)
		if err != nil {
			t.Fatal(err)
		}
		covered := 0
		for _, node := range n.Nodes {
			ds, ok := node.Layer.(dnn.Describer)
			if !ok {
				continue
			}
			d := ds.Describe()
			for _, p := range []dnn.Pass{dnn.Forward, dnn.BackwardData, dnn.BackwardWeights} {
				ks, ok := LayerKernels(d, p, batch)
				if !ok {
					continue
				}
				covered++
				for _, k := range ks {
					if k.FLOPs() < 0 || k.Bytes() <= 0 && k.Op != "embedding" {
						t.Errorf("%s %s %v: kernel %+v: FLOPs %g, bytes %g", name, node.Name, p, k, k.FLOPs(), k.Bytes())
					}
				}
				switch d.Op {
				case dnn.OpConv2D, dnn.OpLinear, dnn.OpMatMul, dnn.OpLSTM:
				default:
					continue
				}
				var got float64
				for _, k := range ks {
					if kindOf(k.Op) == kindGEMM {
						got += 2 * fl(k.Batch) * fl(k.M) * fl(k.N) * fl(k.K)
					}
				}
				want := float64(node.Layer.Work(batch, p, dnn.FP32).FLOPs)
				if d.Op == dnn.OpLSTM {
					continue // dnn counts the gates' arithmetic too; checked below
				}
				if math.Abs(got-want) > 0.02*want {
					t.Errorf("%s %s %v: the kernels' product FLOPs %g, the layer's %g", name, node.Name, p, got, want)
				}
			}
		}
		if covered == 0 {
			t.Errorf("%s: no layer pass lowered", name)
		}
	}
}

// TestLSTMKernels counts an LSTM's kernels as cuDNN launches them: per
// layer one input product and two kernels per step, forward and backward.
func TestLSTMKernels(t *testing.T) {
	d := dnn.Desc{Op: "lstm", In: []dnn.Shape{{35, 200}}, Attr: dnn.Attrs{"hidden": 200, "layers": 2}}
	for p, want := range map[dnn.Pass]int{dnn.Forward: 2 * (1 + 2*35), dnn.BackwardData: 2 * (1 + 2*35), dnn.BackwardWeights: 4} {
		ks, ok := LayerKernels(d, p, 20)
		if !ok || len(ks) != want {
			t.Errorf("%v: %d kernels (ok %v), want %d", p, len(ks), ok, want)
		}
	}
	if _, ok := LayerKernels(d, dnn.Update, 20); ok {
		t.Error("the update pass lowered: want it left to the analytical model")
	}
}

// TestImplicitConvs: NeuSight measured 3×3 convolutions of stride 1 alone
// (cuDNN ran most as Winograd), so every pass of such a layer, padded or
// not, takes the convolution family's correction, and every pass of any
// other layer (1×1, 7×7, 4×4, strided) is marked Implicit and takes the
// correction of the product its implicit GEMM computes: a 1×1 convolution
// of stride 1, whose implicit GEMM reads exactly its input, is timed as the
// linear layer of the same M, N and K (4,096 output channels: beyond the
// convolutions' largest smaller side learned, within the linear layers',
// so the products' bound applies), and a weight gradient reduced in groups
// as the batched product.
func TestImplicitConvs(t *testing.T) {
	conv := func(k, stride, pad int) dnn.Desc {
		os := (28+2*pad-k)/stride + 1
		return dnn.Desc{Op: dnn.OpConv2D, In: []dnn.Shape{{64, 28, 28}}, Out: dnn.Shape{128, os, os},
			Attr: dnn.Attrs{dnn.AttrOut: 128, dnn.AttrKH: k, dnn.AttrKW: k, dnn.AttrStride: stride, dnn.AttrPH: pad, dnn.AttrPW: pad, dnn.AttrGroups: 1}}
	}
	for _, c := range []struct {
		k, stride, pad int
		implicit       bool
	}{{3, 1, 1, false}, {3, 1, 0, false}, {1, 1, 0, true}, {7, 2, 3, true}, {3, 2, 1, true}, {4, 2, 1, true}} {
		for _, p := range []dnn.Pass{dnn.Forward, dnn.BackwardData, dnn.BackwardWeights} {
			ks, ok := LayerKernels(conv(c.k, c.stride, c.pad), p, 32)
			if !ok || len(ks) == 0 || ks[0].Op != "conv" {
				t.Fatalf("%d×%d stride %d %v: kernels %+v (ok %v)", c.k, c.k, c.stride, p, ks, ok)
			}
			if ks[0].Implicit != c.implicit {
				t.Errorf("%d×%d stride %d padding %d %v: Implicit %v, want %v", c.k, c.k, c.stride, c.pad, p, ks[0].Implicit, c.implicit)
			}
		}
	}
	if ConvKernel(8, 64, 64, 3, 28, 1, 1).Implicit || !ConvKernel(8, 64, 64, 1, 28, 1, 0).Implicit {
		t.Error("ConvKernel: a measured 3×3 stride-1 convolution marked Implicit, or a 1×1 not")
	}
	m, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	var s Spec
	for _, d := range predictor.Devices() {
		if d.Name == "v100" {
			if s, err = SpecOfDevice(&d); err != nil {
				t.Fatal(err)
			}
		}
	}
	if s.SMs == 0 {
		t.Fatal("no v100 in the device table")
	}
	wide := conv(1, 1, 0)
	wide.Out[0], wide.Attr[dnn.AttrOut] = 4096, 4096
	one, ok := LayerKernels(wide, dnn.Forward, 32)
	if !ok {
		t.Fatal("1×1 convolution not lowered")
	}
	c := one[0]
	if small := min(c.M, c.N); !(small > m.Groups["conv"].MaxSmall && small <= m.Groups["linear"].MaxSmall) {
		t.Fatalf("the 1×1 convolution's smaller side %d is not between the convolutions' bound %d and the linear layers' %d", small, m.Groups["conv"].MaxSmall, m.Groups["linear"].MaxSmall)
	}
	lin := Kernel{Op: "linear", Batch: 1, M: c.M, N: c.N, K: c.K}
	if got, want := m.Kernel(s, &c), m.Kernel(s, &lin); !(got > 0) || math.Abs(got/want-1) > 1e-12 {
		t.Errorf("1×1 convolution %g s, the linear layer of its implicit GEMM %g s", got, want)
	}
	measured := c
	measured.Implicit = false
	if m.Kernel(s, &measured) == m.Kernel(s, &c) {
		t.Error("the convolution family's correction and the linear layer's agree exactly: the test tells nothing")
	}
	grouped := Kernel{Op: "conv", Batch: 4, M: 64 * 9, N: 128, K: 8 * 28 * 28, Images: 32, Size: 28, Kern: 3, Stride: 2, Pad: 1, InC: 64, OutC: 128, Implicit: true}
	bmm := Kernel{Op: "bmm", Batch: 4, M: grouped.M, N: grouped.N, K: grouped.K}
	ta, _ := analyse(s, &grouped)
	tb, _ := analyse(s, &bmm)
	kg, kb := m.Kernel(s, &grouped), m.Kernel(s, &bmm)
	if peak := grouped.FLOPs() / (s.FP32 * issueShare(s)); !(kg > peak && kb > peak) {
		t.Fatalf("the fp32 peak bounds the grouped gradient (%g s, %g s, peak %g s): the test tells nothing", kg, kb, peak)
	}
	if got, want := kg/ta, kb/tb; math.Abs(got/want-1) > 1e-9 {
		t.Errorf("a grouped weight gradient corrected by ×%g, the batched product of its GEMM by ×%g", got, want)
	}
}

// TestSwitchTraining: in training each expert drops out before its second
// product, as SwitchTransformersDenseActDense does, and the router
// multiplies its input by jitter noise unless router_jitter_noise is 0;
// in inference neither.
func TestSwitchTraining(t *testing.T) {
	const base = `"model_type":"switch_transformers","d_ff":64,"d_kv":8,"d_model":32,"expert_capacity":4,"num_experts":4,"num_heads":4,"num_layers":2,"num_decoder_layers":2,"num_sparse_encoder_layers":1,"num_sparse_decoder_layers":1,"vocab_size":100`
	count := func(js string, train bool) (drops, jitter int) {
		t.Helper()
		c, err := dnn.ParseHFConfig([]byte("{"+js+"}"), "c.json")
		if err != nil {
			t.Fatal(err)
		}
		p, err := Lower(c, 8, 2, train)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range p.Blocks {
			for _, k := range b.Kernels {
				if k.Op == "dropout" && k.Width == 64 && k.Rows < 16 {
					drops += b.Repeat // the experts' (the feed-forward width, on their tokens alone)
				}
				if k.Op == "relu" && k.Width == 32 {
					jitter += b.Repeat // the jitter's draw over the hidden states
				}
			}
		}
		return drops, jitter
	}
	if d, j := count(base, true); d != 2*4 || j != 2 {
		t.Errorf("training: %d expert dropouts (want 8: 4 experts × 2 sparse layers), %d jitter draws (want 2)", d, j)
	}
	if d, j := count(base+`,"router_jitter_noise":0`, true); d != 8 || j != 0 {
		t.Errorf("training without jitter: %d dropouts, %d jitter draws", d, j)
	}
	if d, j := count(base, false); d != 0 || j != 0 {
		t.Errorf("inference: %d dropouts, %d jitter draws", d, j)
	}
}

// TestSwitchPositionBias: every self-attention adds the relative-position
// bias read across its layout (heads innermost, the scores heads
// outermost), each cross-attention its zeros plus the mask in order; each
// stack looks the bias up once. A strided add costs a sector a value once
// one head's plane of scores and the sectors it reads outgrow L2, and
// nothing more while they fit.
func TestSwitchPositionBias(t *testing.T) {
	const heads, seq, batch = 4, 8, 2
	c, err := dnn.ParseHFConfig([]byte(`{"model_type":"switch_transformers","d_ff":64,"d_kv":8,"d_model":32,"expert_capacity":4,"num_experts":4,"num_heads":4,"num_layers":3,"num_decoder_layers":2,"num_sparse_encoder_layers":1,"num_sparse_decoder_layers":1,"vocab_size":100,"relative_attention_num_buckets":16}`), "c.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Lower(c, seq, batch, false)
	if err != nil {
		t.Fatal(err)
	}
	var strided, inOrder, lookups int
	for _, b := range p.Blocks {
		for _, k := range b.Kernels {
			if k.Op == "add" && k.Rows == batch*heads*seq && k.Width == seq {
				if k.ReadStride == heads && k.Plane == seq*seq {
					strided += b.Repeat
				} else {
					inOrder += b.Repeat
				}
			}
			if k.Op == "embedding" && k.Rows == seq*seq && k.Width == heads && k.Table == 16 {
				lookups += b.Repeat
			}
		}
	}
	// 3 encoder and 2 decoder self-attentions; 2 cross-attentions and each
	// stack's mask added to its bias once (the decoder's twice: its
	// self-attention's and cross-attention's)
	if strided != 3+2 || inOrder != 2+1+2 || lookups != 2 {
		t.Errorf("%d strided bias adds (want 5), %d in order (want 5), %d bias lookups (want 2)", strided, inOrder, lookups)
	}

	// an A100's 40 MB L2: 512 tokens of 32 heads fit a plane (10.5 MB with
	// the sectors), 2,048 do not (168 MB), and then the add moves its 12
	// bytes a value and a 32-byte sector for the bias's 4: 40/12
	a100 := Spec{Name: "a100", SMs: 108, LanesPerSM: 64, ClockMHz: 1410, FP32: 19.5e12, Bandwidth: 1555e9, L2: 40 << 20, Memory: 40 << 30}
	for _, c := range []struct {
		seq  int
		want float64
	}{{512, 1}, {2048, 40.0 / 12}} {
		k := Kernel{Op: "add", Rows: 32 * c.seq, Width: c.seq, Inputs: 2, Outputs: 1, ReadStride: 32, Plane: c.seq * c.seq}
		if got := stridedFactor(a100, &k); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%d tokens: strided factor %g, want %g", c.seq, got, c.want)
		}
		plain := k
		plain.ReadStride, plain.Plane = 0, 0
		m := shippedModel(t)
		if got, want := m.Kernel(a100, &k), c.want*m.Kernel(a100, &plain); math.Abs(got-want) > 1e-9*want {
			t.Errorf("%d tokens: strided add %g s, want %g (the add in order × %g)", c.seq, got, want, c.want)
		}
	}
	// a 6 MB L2 (the V100's) does not hold even 512 tokens' plane
	v100 := a100
	v100.L2 = 6 << 20
	if k := (Kernel{Op: "add", Rows: 32 * 512, Width: 512, Inputs: 2, Outputs: 1, ReadStride: 32, Plane: 512 * 512}); stridedFactor(v100, &k) <= 1 {
		t.Error("a 6 MB L2 holds a 512-token plane of 32 heads")
	}
	// two heads: a sector holds 4 of the bias's columns, each read brings 8
	// bytes, not 32
	if k := (Kernel{Op: "add", Rows: 2 * 2048, Width: 2048, Inputs: 2, Outputs: 1, ReadStride: 2, Plane: 2048 * 2048}); math.Abs(stridedFactor(v100, &k)-16.0/12) > 1e-12 {
		t.Errorf("a stride of 2: factor %g, want 16/12", stridedFactor(v100, &k))
	}

	// compiled, the add folds into the softmax, which still reads the bias
	// across its layout
	folded := 0
	for _, b := range Fuse(p).Blocks {
		for _, k := range b.Kernels {
			if k.Op == "add" && k.ReadStride > 0 {
				t.Errorf("fused: a strided add left in %s", b.Name)
			}
			if k.Op == "softmax" && k.ReadStride == heads && k.Plane == seq*seq {
				folded += b.Repeat
			}
		}
	}
	if folded != 3+2 {
		t.Errorf("fused: %d softmaxes reading the bias across its layout, want 5", folded)
	}

	// in training each self-attention adds its gradient of the shared bias
	// to the others' (an add of the scores' size, read in order); the
	// cross-attentions' bias needs none
	p, err = Lower(c, seq, batch, true)
	if err != nil {
		t.Fatal(err)
	}
	sums := 0
	for _, b := range p.Blocks {
		for _, k := range b.Kernels {
			for _, g := range Backward(k) {
				if g.Op == "add" && g.Rows == batch*heads*seq && g.Width == seq && g.ReadStride == 0 {
					sums += b.Repeat
				}
			}
		}
	}
	if sums != 3+2 {
		t.Errorf("%d sums of the bias's gradients, want 5 (one per self-attention)", sums)
	}
}

// TestMemo checks that Memo's times are the model's to the bit, asked
// twice over (the second from memory), on two GPUs, and that layers that
// differ in a shape or an attribute are told apart.
func TestMemo(t *testing.T) {
	m, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	memo := Memo(m)
	var devs []*predictor.Device
	for _, name := range []string{"v100", "k80"} {
		d, err := predictor.LookupDevice(name)
		if err != nil {
			t.Fatal(err)
		}
		devs = append(devs, d)
	}
	keys := map[string]dnn.Desc{}
	hits := 0
	for _, name := range []string{"resnet50", "transformer-translation", "lm"} {
		n, err := dnn.Model(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, node := range n.Nodes {
			ds, ok := node.Layer.(dnn.Describer)
			if !ok {
				continue
			}
			d := ds.Describe()
			keys[descKey(d)] = d
			for round := range 2 {
				for _, dev := range devs {
					for _, batch := range []int{1, 16} {
						for _, p := range []dnn.Pass{dnn.Forward, dnn.BackwardData, dnn.BackwardWeights} {
							want, wok := m.LayerPass(d, p, batch, dev)
							got, gok := memo.LayerPass(d, p, batch, dev)
							if math.Float64bits(got) != math.Float64bits(want) || gok != wok {
								t.Fatalf("%s %s %v batch %d on %s, round %d: memo %v %v, model %v %v", name, node.Name, p, batch, dev.Name, round, got, gok, want, wok)
							}
							hits += round
						}
					}
				}
			}
		}
	}
	if hits == 0 || len(memo.(*memoModel).times) == 0 {
		t.Fatal("nothing remembered")
	}
	// a key names its description: equal keys, equal descriptions
	for k, d := range keys {
		d2 := dnn.Desc{Op: d.Op, In: d.In, Out: append(dnn.Shape{}, d.Out...), Attr: maps.Clone(d.Attr)}
		if len(d2.Out) > 0 {
			d2.Out[0]++
			if descKey(d2) == k {
				t.Errorf("%s: a larger output has the same key", k)
			}
			d2.Out[0]--
		}
		for a := range d.Attr {
			d2.Attr[a]++
			if descKey(d2) == k {
				t.Errorf("%s: attribute %s changed, same key", k, a)
			}
			d2.Attr[a]--
		}
		if descKey(d2) != k {
			t.Errorf("%s: a copy's key is %s", k, descKey(d2))
		}
	}
}

// TestOneByOneConvOnDies: on sheets of a training GPU's die at other
// clocks and bandwidths (boards of the device table, NeuSight's A100 80GB
// PCIe sheet, a T4 sheet at 0.6× its bandwidth) a 1×1 stride-1
// convolution is timed exactly as the linear layer of its implicit GEMM,
// and a 7×7 stride-2 one never slows as the bandwidth rises (a reviewer's
// finds: the 1×1 layer up to 5.4% off its linear layer on the A100 80GB
// SXM4 once the convolution's envelope ratio was read at the training
// GPU's sheet and the product's at its own; the 7×7 layer 2% slower with
// 5% more bandwidth on a T4 sheet before that).
func TestOneByOneConvOnDies(t *testing.T) {
	m, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	var sheets []Spec
	for _, name := range []string{"a100-80", "a100-80-pcie", "a100-40", "v100", "p100", "p100-pcie", "t4"} {
		sheets = append(sheets, boardSpec(t, name))
	}
	slow := bundledSpec(t, "Tesla_T4")
	slow.Name, slow.Bandwidth = "test", slow.Bandwidth*0.6
	sheets = append(sheets, bundledSpec(t, "NVIDIA_A100_80GB_PCIe"), slow)
	checked := 0
	for _, s := range sheets {
		if m.Sibling(s) == "" {
			t.Fatalf("%s: not a training GPU's die", s.Name)
		}
		for _, c := range [][3]int{{1, 64, 256}, {8, 256, 1024}, {32, 2048, 512}, {2, 512, 2048}} {
			images, in, out := c[0], c[2], c[1]
			conv := ConvKernel(images, in, out, 1, 7, 1, 0)
			lin := Kernel{Op: "linear", Batch: 1, M: conv.M, N: conv.N, K: conv.K}
			if !conv.Implicit {
				t.Fatalf("%+v: a 1×1 convolution not implicit", conv)
			}
			if got, want := m.Kernel(s, &conv), m.Kernel(s, &lin); !(got > 0) || math.Abs(got/want-1) > 1e-12 {
				t.Errorf("%s: 1×1 convolution %d×%d·%d %.6g s, its linear layer %.6g s", s.Name, lin.M, lin.N, lin.K, got, want)
			}
			checked++
		}
	}
	if checked != 4*len(sheets) {
		t.Fatalf("%d comparisons", checked)
	}
	t4 := bundledSpec(t, "Tesla_T4")
	k := ConvKernel(2, 128, 512, 7, 7, 2, 3)
	prev := math.Inf(1)
	for bw := 0.5 * t4.Bandwidth; bw <= 1.5*t4.Bandwidth; bw *= 1.01 {
		s := t4
		s.Name, s.Bandwidth = "test", bw
		kk := k
		if got := m.Kernel(s, &kk); got > prev*(1+1e-12) {
			t.Errorf("7×7 stride-2 convolution on a T4 sheet of %.0f GB/s: %.5g s, slower than with 1%% less", bw/1e9, got)
		}
		prev = m.Kernel(s, &kk)
	}
}

// TestDieChipNearest: of two training GPUs of one die measured in a group,
// a sheet takes the one nearest it in fp32 peak and bandwidth (a sheet a
// step from the second had taken the first's figures: a reviewer's note),
// a sheet of another group's GPU or of another die takes none, and a
// training GPU's own sheet is not scaled (dieSheet's ok false).
func TestDieChipNearest(t *testing.T) {
	const l2 = 4 << 20
	m := &Model{Chips: []Chip{
		{GPU: "slow", SMs: 40, LanesPerSM: 64, ClockMHz: 1000, L2: l2, FP32: 5e12, Bandwidth: 200e9, Measured: []string{"linear"}},
		{GPU: "fast", SMs: 40, LanesPerSM: 64, ClockMHz: 1600, L2: l2, FP32: 8e12, Bandwidth: 320e9, Measured: []string{"conv", "linear"}},
	}}
	sheet := func(fp32, bw float64) Spec {
		return Spec{Name: "test", SMs: 40, LanesPerSM: 64, ClockMHz: fp32 / 5e9, L2: l2, FP32: fp32, Bandwidth: bw}
	}
	for _, c := range []struct {
		s      Spec
		g      string
		want   string
		scaled bool
	}{
		{sheet(7.9e12, 321e9), "linear", "fast", true},
		{sheet(5.1e12, 199e9), "linear", "slow", true},
		{sheet(5.1e12, 199e9), "conv", "fast", true}, // the one measured in convolutions
		{m.Chips[1].sheet(), "linear", "fast", false},
		{m.Chips[0].sheet(), "linear", "slow", false},
		{sheet(8e12, 320e9), "softmax", "", false}, // neither measured in it
	} {
		got, want := m.dieChip(c.g, c.s), c.want
		if name := func() string {
			if got == nil {
				return ""
			}
			return got.GPU
		}(); name != want {
			t.Errorf("%s %.3g FLOP/s %.3g B/s: die chip %q, want %q", c.g, c.s.FP32, c.s.Bandwidth, name, want)
		}
		if at, ok := m.dieSheet(c.g, c.s); ok != c.scaled || ok && at.Name != want {
			t.Errorf("%s %.3g FLOP/s %.3g B/s: dieSheet %q %v, want %q %v", c.g, c.s.FP32, c.s.Bandwidth, at.Name, ok, want, c.scaled)
		}
	}
	other := sheet(8e12, 320e9)
	other.SMs = 41
	if c := m.dieChip("linear", other); c != nil {
		t.Errorf("a sheet of 41 SMs: die chip %q", c.GPU)
	}
}

// TestOwnSheet: a training GPU's bundled sheet is its own; the same name
// at another clock, or another name with its figures, is not.
func TestOwnSheet(t *testing.T) {
	m, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	t4 := bundledSpec(t, "Tesla_T4")
	fast := t4
	fast.ClockMHz, fast.FP32 = t4.ClockMHz*1.25, t4.FP32*1.25
	renamed := t4
	renamed.Name = "my T4"
	if !m.OwnSheet(t4) || m.OwnSheet(fast) || m.OwnSheet(renamed) || (*Model)(nil).OwnSheet(t4) {
		t.Errorf("own sheet: the T4 %v, at 25%% more clock %v, renamed %v", m.OwnSheet(t4), m.OwnSheet(fast), m.OwnSheet(renamed))
	}
	if a := bundledSpec(t, "NVIDIA_A100-PCIE-40GB"); !m.OwnSheet(a) {
		t.Errorf("the A100 PCIe 40GB's sheet not its own")
	}
}
