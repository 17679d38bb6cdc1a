package cuda

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/profiler"
)

// TestLSTMForZoo reads every LSTM of the zoo in every precision: the
// sequences hold the values dnn says the layer reads and writes, the
// states are [layers, N, H], the RNN descriptor is PyTorch's for
// nn.LSTM, and the precisions map as PyTorch maps them (half computes in
// float with tensor cores; float without TF32 in FMA).
func TestLSTMForZoo(t *testing.T) {
	const batch = 3
	n := zooLayers(t, func(name string, l dnn.Layer, d dnn.Desc) {
		for _, prec := range dnn.Precisions {
			p, err := LSTMFor(d, batch, prec)
			if err != nil {
				t.Errorf("%s %s: %v", name, prec, err)
				return
			}
			size := map[string]int64{}
			for _, b := range p.Buffers(dnn.BackwardData) {
				size[b.Name] = b.Elems
			}
			states := int64(d.Attr[dnn.AttrLayers]) * batch * int64(d.Attr[dnn.AttrHidden])
			if size["x"] != batch*d.In[0].Elems() || size["y"] != batch*d.Out.Elems() || size["dx"] != size["x"] || size["dy"] != size["y"] ||
				size["hx"] != states || size["dcx"] != states {
				t.Errorf("%s: buffers %v", name, size)
			}
			r := p.RNNDesc()
			if r.Algo != cudnnRNNAlgoStandard || r.CellMode != cudnnLSTM || r.BiasMode != cudnnRNNDoubleBias || r.DirMode != cudnnUnidirectional ||
				r.InputMode != cudnnLinearInput || r.InputSize != int32(d.In[0][1]) || r.HiddenSize != int32(d.Attr[dnn.AttrHidden]) ||
				r.ProjSize != r.HiddenSize || r.NumLayers != int32(d.Attr[dnn.AttrLayers]) || r.AuxFlags != cudnnRNNPaddedIOEnabled || r.MathPrec != cudnnDataFloat {
				t.Errorf("%s: RNN descriptor %+v", name, r)
			}
			if p.StateDims() != [3]int32{int32(d.Attr[dnn.AttrLayers]), batch, int32(d.Attr[dnn.AttrHidden])} ||
				p.StateStrides() != [3]int32{batch * int32(d.Attr[dnn.AttrHidden]), int32(d.Attr[dnn.AttrHidden]), 1} {
				t.Errorf("%s: states %v %v", name, p.StateDims(), p.StateStrides())
			}
			if s := p.SeqLengths(); len(s) != batch || slices.ContainsFunc(s, func(v int32) bool { return v != int32(d.In[0][0]) }) {
				t.Errorf("%s: sequence lengths %v", name, s)
			}
		}
	}, "lstm")
	if n == 0 {
		t.Fatal("no LSTM in the zoo")
	}
	d := dnn.Desc{Op: "lstm", In: []dnn.Shape{{35, 200}}, Out: dnn.Shape{35, 200}, Attr: dnn.Attrs{"hidden": 200, "layers": 2}}
	for _, tc := range []struct {
		prec       dnn.Precision
		data, math int32
	}{
		{dnn.FP32, cudnnDataFloat, cudnnFMAMath},
		{dnn.TF32, cudnnDataFloat, cudnnDefaultMath},
		{dnn.FP16, cudnnDataHalf, cudnnTensorOpMath},
		{dnn.BF16, cudnnDataBFloat16, cudnnTensorOpMath},
	} {
		p, err := LSTMFor(d, 20, tc.prec)
		if err != nil || p.DataType != tc.data || p.MathType != tc.math || p.MathPrec != cudnnDataFloat {
			t.Errorf("%s: %+v %v", tc.prec, p, err)
		}
	}
	p, _ := LSTMFor(d, 20, dnn.FP32)
	if len(p.Buffers(dnn.Forward)) != 6 || len(p.Buffers(dnn.BackwardWeights)) != 12 || p.Buffers(dnn.Update) != nil {
		t.Error("buffers per pass")
	}
	if p.Routine(dnn.BackwardWeights) != "cudnnRNNBackwardWeights_v8 LSTM (WGRAD_MODE_ADD into zeroed dw)" || p.Routine(dnn.Forward) != "cudnnRNNForward LSTM TRAINING" {
		t.Error("routines")
	}
}

func TestLSTMForRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    dnn.Desc
		says string
	}{
		{"not an lstm", dnn.Desc{Op: "linear"}, `op "linear" is not lstm`},
		{"no hidden", dnn.Desc{Op: "lstm", In: []dnn.Shape{{35, 200}}, Out: dnn.Shape{35, 200}, Attr: dnn.Attrs{"layers": 2}}, `attribute "hidden" missing`},
		{"output disagrees", dnn.Desc{Op: "lstm", In: []dnn.Shape{{35, 200}}, Out: dnn.Shape{35, 100}, Attr: dnn.Attrs{"hidden": 200, "layers": 2}}, "lstm of"},
		{"a vector input", dnn.Desc{Op: "lstm", In: []dnn.Shape{{200}}, Out: dnn.Shape{200}, Attr: dnn.Attrs{"hidden": 200, "layers": 1}}, "lstm of"},
	} {
		if _, err := LSTMFor(tc.d, 2, dnn.FP32); err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.says)
		}
	}
	big := dnn.Desc{Op: "lstm", In: []dnn.Shape{{1 << 16, 1 << 10}}, Out: dnn.Shape{1 << 16, 8}, Attr: dnn.Attrs{"hidden": 8, "layers": 1}}
	if _, err := LSTMFor(big, 64, dnn.FP32); !errors.Is(err, profiler.ErrUnsupported) {
		t.Errorf("2³² values: %v", err)
	}
}

// TestEmbeddingAndInstanceNorm pins the two ops' problems: an embedding
// is N = batch·T ids into a [vocab, dim] table, its bwd-weights the dense
// table's gradient (an fp32 accumulator for 16-bit tables), none for a
// frozen table; an instance norm is batch norm over [1, N·C, H, W]
// without running statistics.
func TestEmbeddingAndInstanceNorm(t *testing.T) {
	emb := dnn.Desc{Op: "embedding", In: []dnn.Shape{{128}}, Out: dnn.Shape{128, 768}, Attr: dnn.Attrs{"vocab": 30522, "dim": 768}}
	p, err := OpFor(emb, 4, dnn.BF16)
	if err != nil {
		t.Fatal(err)
	}
	if p.Kind != Embedding || p.Rows != 512 || p.Width != 768 || p.Vocab != 30522 || p.XElems() != 512 || p.YElems() != 512*768 || p.TableElems() != 30522*768 {
		t.Errorf("embedding %+v", p)
	}
	for _, tc := range []struct {
		pass  dnn.Pass
		names string
		bytes int64
	}{
		{dnn.Forward, "ids table y", 512*8 + 30522*768*2 + 512*768*2},
		{dnn.BackwardWeights, "ids dy dtable dtable_acc", 512*8 + 512*768*2 + 30522*768*(2+4)},
		{dnn.BackwardData, "", 0},
	} {
		var names []string
		for _, b := range p.Buffers(tc.pass) {
			names = append(names, b.Name)
		}
		if got := strings.Join(names, " "); got != tc.names || p.Bytes(tc.pass, dnn.BF16) != tc.bytes {
			t.Errorf("embedding %s: %q, %d B; want %q, %d B", tc.pass, got, p.Bytes(tc.pass, dnn.BF16), tc.names, tc.bytes)
		}
	}
	if l := p.PrepLaunches(dnn.Forward); len(l) != 1 || l[0].Kernel != "wb_fill_ids" || l[0].Args[2] != int64(30522) {
		t.Errorf("ids %+v", l)
	}
	if l := p.Launches(dnn.Forward); len(l) != 1 || l[0].Grid != [3]uint32{1536, 1, 1} || l[0].Args[3] != int64(512) || l[0].Args[4] != int32(768) {
		t.Errorf("gather %+v", l)
	}
	if r := p.Routine(dnn.BackwardWeights); r != "NVRTC wb_embedding_bwd_bf16 + wb_cast_f32_to_bf16" {
		t.Errorf("routine %q", r)
	}
	p32, _ := OpFor(emb, 4, dnn.FP32)
	if l := p32.Launches(dnn.BackwardWeights); len(l) != 1 || l[0].Args[2] != "dtable" || l[0].Zero[0] != "dtable" {
		t.Errorf("fp32 scatter %+v", l)
	}
	frozen := emb
	frozen.Attr = dnn.Attrs{dnn.AttrVocab: 512, dnn.AttrDim: 768, dnn.AttrFrozen: 1}
	pf, _ := OpFor(frozen, 4, dnn.FP32)
	if pf.Buffers(dnn.BackwardWeights) != nil || pf.Launches(dnn.BackwardWeights) != nil || pf.PrepLaunches(dnn.BackwardWeights) != nil {
		t.Error("a frozen table has a gradient")
	}
	bad := emb
	bad.Out = dnn.Shape{128, 512}
	if _, err := OpFor(bad, 1, dnn.FP32); err == nil {
		t.Error("an embedding of the wrong output accepted")
	}

	in := dnn.Desc{Op: "instancenorm", In: []dnn.Shape{{64, 128, 128}}, Out: dnn.Shape{64, 128, 128}}
	q, err := OpFor(in, 2, dnn.FP16)
	if err != nil {
		t.Fatal(err)
	}
	if q.Kind != BatchNorm || q.X != [4]int32{1, 128, 128, 128} || q.ParamElems != 128 || !q.NoRunningStats || q.BNMode != cudnnBatchNormSpatial {
		t.Errorf("instance norm %+v", q)
	}
	var names []string
	for _, b := range q.Buffers(dnn.BackwardData) {
		names = append(names, b.Name)
	}
	if got := strings.Join(names, " "); got != "x dy dx scale dscale dbias save_mean save_inv_var bias" {
		t.Errorf("instance norm bwd-data buffers %q", got)
	}
	if r := q.Routine(dnn.Forward); r != "cudnnBatchNormalizationForwardTraining SPATIAL over [1, N·C, H, W] (instance norm)" {
		t.Errorf("routine %q", r)
	}
}
