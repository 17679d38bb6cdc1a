package gpu

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/wb-sim/wb/datasets/neusight"
	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/predictor"
)

var (
	dataOnce sync.Once
	data     *Data
	dataErr  error
)

// bundledData reads the bundled ops once per test binary.
func bundledData(t testing.TB) *Data {
	t.Helper()
	dataOnce.Do(func() { data, dataErr = LoadBundled() })
	if dataErr != nil {
		t.Fatal(dataErr)
	}
	return data
}

func bundledDir(t testing.TB) string {
	p, err := neusight.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// graphLayer reads a label's torch.fx graph of one layer and returns the
// FLOPs of its products (linear modules, matmul, bmm, addmm) inside the
// layer, and its softmax and layer-norm nodes.
func graphLayer(t *testing.T, path string) (gemm float64, softmax, norms int) {
	nodes, err := neusight.ReadGraph(path)
	if err != nil {
		t.Fatal(err)
	}
	linearName := regexp.MustCompile(`\.(query|key|value|dense|q_proj|k_proj|v_proj|out_proj|fc1|fc2)$`)
	inLayer := regexp.MustCompile(`\.(layer|h|layers)\.0\.`)
	for _, n := range nodes {
		if !inLayer.MatchString(n.Meta) && !inLayer.MatchString(n.Target) {
			continue
		}
		switch target := n.Target; {
		case n.Op == "call_module" && linearName.MatchString(target):
			gemm += 2 * neusight.Elems(n.Inputs[0]) * float64(n.Output[len(n.Output)-1])
		case strings.Contains(target, "method matmul") || strings.Contains(target, "method bmm"):
			a, b := n.Inputs[0], n.Inputs[1]
			gemm += 2 * neusight.Elems(a) * float64(b[len(b)-1])
		case strings.Contains(target, "method addmm"):
			a, b := n.Inputs[1], n.Inputs[2]
			gemm += 2 * neusight.Elems(a) * float64(b[len(b)-1])
		case strings.Contains(target, "softmax"):
			softmax++
		case strings.Contains(strings.ToLower(target), "norm") || strings.Contains(target, "ln_"):
			norms++
		}
	}
	return gemm, softmax, norms
}

// The lowering launches the products, softmaxes and layer norms that the
// labels' own torch.fx graphs of one layer hold, with the same FLOPs.
func TestLowerMatchesGraphs(t *testing.T) {
	dir := bundledDir(t)
	for _, c := range []struct {
		label      string
		model      string
		seq, batch int
		train      bool
	}{
		{"NVIDIA_A100-PCIE-40GB/bert_large-inf-512-8", "bert_large", 512, 8, false},
		{"NVIDIA_A100-PCIE-40GB/gpt2_large-inf-1024-4", "gpt2_large", 1024, 4, false},
		{"NVIDIA_A100-PCIE-40GB/opt_13-inf-2048-2", "opt_13", 2048, 2, false},
		{"NVIDIA_A100-PCIE-40GB/gpt3_xl-inf-2048-8", "gpt3_xl", 2048, 8, false},
		{"Tesla_V100-PCIE-32GB/bert_large-train-512-2", "bert_large", 512, 2, true},
	} {
		gemm, sm, ln := graphLayer(t, filepath.Join(dir, "labels", c.label+".csv.gz"))
		cfg, err := dnn.ReadHFConfig(filepath.Join(dir, "models", c.model+".json"))
		if err != nil {
			t.Fatal(err)
		}
		p, err := Lower(cfg, c.seq, c.batch, c.train)
		if err != nil {
			t.Fatal(err)
		}
		var layer *Block
		for i := range p.Blocks {
			if p.Blocks[i].Name == "layer" {
				layer = &p.Blocks[i]
			}
		}
		var got float64
		gotSM, gotLN := 0, 0
		for _, k := range layer.Kernels {
			switch k.Op {
			case neusight.Linear, neusight.BMM:
				got += 2 * fl(k.Batch) * fl(k.M) * fl(k.N) * fl(k.K)
			case neusight.Softmax:
				gotSM++
			case neusight.LN:
				gotLN++
			}
		}
		if math.Abs(got/gemm-1) > 1e-9 || gotSM != sm || gotLN != ln {
			t.Errorf("%s: lowered layer: %.4g GEMM FLOPs, %d softmax, %d layer norms; the graph: %.4g, %d, %d", c.label, got, gotSM, gotLN, gemm, sm, ln)
		}
		if p.Blocks[1].Repeat != cfg.Layers {
			t.Errorf("%s: %d layers, want %d", c.label, p.Blocks[1].Repeat, cfg.Layers)
		}
	}
}

// A product's backward pass is two products of its own size: twice its
// FLOPs, for every shape.
func TestBackwardFLOPs(t *testing.T) {
	for _, k := range []Kernel{
		{Op: neusight.Linear, Batch: 1, M: 4096, K: 1024, N: 3072, Bias: true},
		{Op: neusight.BMM, Batch: 64, M: 512, K: 64, N: 512},
		{Op: neusight.BMM, Batch: 3, M: 7, K: 5, N: 11},
	} {
		var fw, bw float64
		fw = 2 * fl(k.Batch) * fl(k.M) * fl(k.N) * fl(k.K)
		for _, g := range Backward(k) {
			if kindOf(g.Op) == kindGEMM {
				bw += 2 * fl(g.Batch) * fl(g.M) * fl(g.N) * fl(g.K)
			}
		}
		if bw != 2*fw {
			t.Errorf("%+v: backward products %.0f FLOPs, want %.0f", k, bw, 2*fw)
		}
	}
	if n := len(Backward(Kernel{Op: "add", Rows: 1, Width: 10, Inputs: 2})); n != 0 {
		t.Errorf("add's gradient launches %d kernels, want none", n)
	}
}

// Training again from the bundled data gives the shipped model, byte for
// byte.
func TestShippedReproduces(t *testing.T) {
	t.Parallel() // (long: overlaps the package's other long tests on a second core)
	d := bundledData(t)
	m, err := d.Train(nil, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	js, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	z, err := Compress(js)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(z, shipped) {
		t.Fatalf("training again gives %d bytes, the shipped model is %d: run wb train-gpu --out %s", len(z), len(shipped), ShippedFile)
	}
	s, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	js2, _ := s.Marshal()
	if !bytes.Equal(js, js2) {
		t.Fatal("the shipped model does not round-trip through its JSON")
	}
}

// Leave one GPU out on the labels: each GPU's figures as measured when the
// model was built (the README's table), within a small margin.
func TestValidateLabels(t *testing.T) {
	t.Parallel() // (long: overlaps the package's other long tests on a second core)
	if testing.Short() {
		t.Skip("trains five models")
	}
	d := bundledData(t)
	full, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	v, err := ValidateLabels(d.Dir, "", d, full, DefaultParams(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]GroupError{} // GPU/mode → mean and largest |error| %, pinned
	for _, g := range LeaveOneOut {
		want[groupKey(g)] = g
	}
	groups := v.Groups()
	if len(groups) != len(want) {
		t.Errorf("%d GPU × mode groups, want %d", len(groups), len(want))
	}
	for _, g := range groups {
		k := groupKey(g)
		if w, ok := want[k]; !ok || math.Abs(g.MAE-w.MAE) > 0.5 || math.Abs(g.Max-w.Max) > 0.5 {
			t.Errorf("%s: mean |error| %.2f%%, largest %.2f%%; pinned %.1f%% and %.1f%%", k, g.MAE, g.Max, w.MAE, w.Max)
		}
		// the A100 40GB's fold keeps the A100 80GB's convolutions, a GPU
		// of its chip, and says so
		want := LeaveOneGPUOut
		if g.GPU == "NVIDIA_A100-PCIE-40GB" {
			want += ", chip of NVIDIA_A100_80GB_PCIe"
		}
		if g.Held != want {
			t.Errorf("%s: held %q, want %q", k, g.Held, want)
		}
	}
	var buf bytes.Buffer
	if err := v.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0][:7], ",") != "gpu,model,mode,seq,batch,measured_ms,predicted_ms" || len(rows) != 45 {
		t.Errorf("predictions.csv: header %v, %d rows; want 44 labels", rows[0], len(rows)-1)
	}
}

// A folder of GPUs wb has no op of is predicted from the spec sheets alone,
// with the full model.
func TestValidateUnseenGPU(t *testing.T) {
	t.Parallel() // (long: overlaps the package's other long tests on a second core)
	d := bundledData(t)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "devices"), 0o755)
	os.MkdirAll(filepath.Join(dir, "models"), 0o755)
	os.MkdirAll(filepath.Join(dir, "labels", "NVIDIA_L4"), 0o755)
	src := bundledDir(t)
	cp := func(from, to string) {
		b, err := os.ReadFile(filepath.Join(src, from))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, to), b, 0o644)
	}
	cp("devices/NVIDIA_L4.json", "devices/NVIDIA_L4.json")
	cp("models/gpt2_large.json", "models/gpt2_large.json")
	// a made-up measurement: only the prediction is checked
	os.WriteFile(filepath.Join(dir, "labels", "NVIDIA_L4", "gpt2_large-train-1024-1.json"), []byte(`{"num_layer":36,"e2e_latency":1000,"fw_latency":300,"bwall_latency":700}`), 0o644)
	nd, err := neusight.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	full, _ := Shipped()
	v, err := ValidateLabels(nd, "", d, full, DefaultParams(), func(g string) { t.Errorf("trained a model without %s", g) })
	if err != nil {
		t.Fatal(err)
	}
	p := v.Labels[0]
	if p.Held != "unseen" || !(p.Predicted > 0) || !(p.Backward > p.Forward) {
		t.Errorf("%+v", p)
	}

	// labels wb cannot predict are skipped with their reason, the rest kept;
	// a model missing from the folder is taken from the bundled configs
	for name, body := range map[string]string{
		"gpt2_large-train-1024-1-zero3.json":  `{"e2e_latency":1}`,
		"bert_large-inf-2048-1.json":          `{"e2e_latency":1}`,
		"llama9-inf-128-1.json":               `{"e2e_latency":1}`,
		"opt_13-inf-128-1.json":               `{"e2e_latency":1}`,
		"gpt2_large-train-1024-16-pp4_8.json": `{"e2e_latency":1}`,
		"gpt2_large-inf-1024-8-dp2.json":      `{"e2e_latency":1}`,
		"gpt2_large-train-1024-4-tp3.json":    `{"e2e_latency":1}`,
	} {
		os.WriteFile(filepath.Join(dir, "labels", "NVIDIA_L4", name), []byte(body), 0o644)
	}
	os.MkdirAll(filepath.Join(dir, "labels", "NVIDIA_X"), 0o755)
	os.WriteFile(filepath.Join(dir, "labels", "NVIDIA_X", "opt_13-inf-64-1.json"), []byte(`{"e2e_latency":1}`), 0o644)
	nd, err = neusight.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	v, err = ValidateLabels(nd, filepath.Join(src, "models"), d, full, DefaultParams(), nil)
	if err != nil {
		t.Fatal(err)
	}
	why := map[string]string{}
	for _, p := range v.Labels {
		k := p.Label.Model + "/" + strconv.Itoa(p.Label.Seq)
		if p.Label.Batch > 1 {
			k += "/" + strconv.Itoa(p.Label.Batch)
		}
		why[k] = p.Skipped
	}
	for k, want := range map[string]string{
		"gpt2_large/1024": "unknown variant zero3", "bert_large/2048": "longer than its 512 positions",
		"llama9/128": "model config: no models/llama9.json in ", "opt_13/128": "", "gpt2_large/1024/16": "",
		"gpt2_large/1024/8": "multi-GPU inference (2 GPUs)", "gpt2_large/1024/4": "tensor-parallel degree 3 must divide its 20 heads",
		"opt_13/64": "no spec sheet devices/NVIDIA_X.json",
	} {
		if got := why[k]; (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%s: skipped %q, want %q", k, got, want)
		}
	}
	var buf bytes.Buffer
	if err := v.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil || len(rows) != 10 {
		t.Fatalf("predictions.csv: %d rows, %v", len(rows), err)
	}
	// the pipeline-parallel label: predicted over the L4's PCIe link, and
	// a group of its own
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	found := false
	for _, r := range rows[1:] {
		if r[col["parallel"]] == "pp4_8" {
			found = true
			if r[col["link"]] != "PCIe 4.0 x16" || r[col["predicted_ms"]] == "" || r[col["skipped"]] != "" {
				t.Errorf("pp4_8 row %q", r)
			}
		}
	}
	if !found {
		t.Error("no pp4_8 row")
	}
	var groups []string
	for _, g := range v.Groups() {
		groups = append(groups, fmt.Sprintf("%s/%s/%s", g.GPU, g.Mode, g.Parallel))
	}
	if want := []string{"NVIDIA_L4/inf/", "NVIDIA_L4/train/", "NVIDIA_L4/train/pp4_8"}; !slices.Equal(groups, want) {
		t.Errorf("groups %q, want %q", groups, want)
	}
}

func TestUnmarshalRefuses(t *testing.T) {
	s, _ := Shipped()
	js, _ := s.Marshal()
	var raw map[string]any
	json.Unmarshal(js, &raw)
	for _, c := range []struct{ edit, want string }{
		{`{"version":2}`, "version 2, want 9"},
		{`{"version":9,"groups":{}}`, "no op groups"},
		{`{"version":9,"groups":{"ln":{"features":["a"],"trees":[]}}}`, "1 features, want"},
		{`{"version":9,"groups":{"ln":{"features":["a","b","c","d","e","f","g"],"trees":[{"f":9,"l":{"v":1},"r":{"v":2}}]}}}`, "feature 9 of 7"},
		{`{"version":9,"groups":{"ln":{"features":["a","b","c","d","e","f","g"],"trees":[{"l":{"v":1}}]}}}`, "one child"},
		{`{"version":9,"overlap":-1e-6,"groups":{"ln":{"features":["a","b","c","d","e","f","g"],"trees":[]}}}`, "overlap"},
		{`{"version":9,"overlap":1,"groups":{"ln":{"features":["a","b","c","d","e","f","g"],"trees":[]}}}`, "overlap"},
		{`{"version":9,"groups":{"ln":{"features":["a","b","c","d","e","f","g"],"max_elements":-1,"trees":[]}}}`, "max_elements -1"},
		{`{"version":9,"calibration":{"Tesla_T4":0},"groups":{"ln":{"features":["a","b","c","d","e","f","g"],"trees":[]}}}`, "calibration of \"Tesla_T4\" 0"},
		{`{"version":9,"chips":[{"gpu":"T4","sms":40,"lanes_per_sm":64,"clock_mhz":1590,"l2":4194304}],"groups":{"ln":{"features":["a","b","c","d","e","f","g"],"trees":[]}}}`, "fp32 peak and bandwidth must be positive"},
		{`{"version":9,"chips":[{"gpu":"T4","sms":40,"lanes_per_sm":64,"clock_mhz":1590,"l2":4194304,"fp32":8e12,"bandwidth":3e11}],"groups":{"ln":{"features":["a","b","c","d","e","f","g"],"trees":[]}}}`, "measured groups []: want"},
		{`{"version":9,"chips":[{"gpu":"T4","sms":40,"lanes_per_sm":64,"clock_mhz":1590,"l2":4194304,"fp32":8e12,"bandwidth":3e11,"measured":["softmax"]}],"groups":{"ln":{"features":["a","b","c","d","e","f","g"],"trees":[]}}}`, "measured in group \"softmax\", which the model has not"},
		{`{"version":9,"floors":{"add":-2e-5},"groups":{"ln":{"features":["a","b","c","d","e","f","g"],"trees":[]}}}`, "floor of add -2e-05 s"},
	} {
		_, err := Unmarshal([]byte(c.edit), "m.json")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.edit, err, c.want)
		}
	}
}

func FuzzUnmarshal(f *testing.F) {
	f.Add([]byte(`{"version":8,"groups":{"ln":{"features":["a","b","c","d","e","f","g"],"base":0.1,"shrinkage":0.1,"max_rows":10,"max_width":100,"max_elements":1000,"trees":[{"f":1,"t":0.5,"l":{"v":1},"r":{"v":2}}]}}}`))
	spec := Spec{Name: "x", SMs: 80, LanesPerSM: 64, ClockMHz: 1370, FP32: 14e12, Bandwidth: 900e9, L2: 6 << 20}
	f.Fuzz(func(t *testing.T, in []byte) {
		m, err := Unmarshal(in, "f.json")
		if err != nil {
			return
		}
		for _, k := range []Kernel{{Op: "ln", Rows: 100, Width: 1024}, {Op: "linear", Batch: 1, M: 10, N: 10, K: 10}, {Op: "add", Rows: 1, Width: 10, Inputs: 2}} {
			if v := m.Predict(spec, &k); !(v > 0) || math.IsInf(v, 0) {
				t.Fatalf("%+v: predicted %v", k, v)
			}
		}
	})
}

// BenchmarkIterationGPT3 predicts a whole GPT-3 2.7B training iteration
// (sequence 2048, batch 8) on an H100 from its spec sheet.
func BenchmarkIterationGPT3(b *testing.B) {
	dir := bundledDir(b)
	cfg, err := dnn.ReadHFConfig(filepath.Join(dir, "models", "gpt3_27.json"))
	if err != nil {
		b.Fatal(err)
	}
	dev, err := neusight.ReadDevice(filepath.Join(dir, "devices", "NVIDIA_H100_80GB_HBM3.json"))
	if err != nil {
		b.Fatal(err)
	}
	m, _ := Shipped()
	spec := SpecOf(dev)
	b.ResetTimer()
	for range b.N {
		p, err := Lower(cfg, 2048, 8, true)
		if err != nil {
			b.Fatal(err)
		}
		if it := m.Iteration(spec, p, true); !(it.Total() > 0) {
			b.Fatal(it)
		}
	}
}

// A GPU of a training GPU's chip at its clocks (the A100 80GB PCIe and
// SXM4 40GB beside the A100 PCIe 40GB) runs products with that GPU's
// residual; other GPUs (H100, L4) with none.
func TestSiblingChips(t *testing.T) {
	d := bundledData(t)
	m, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	for gpu, want := range map[string]string{
		"NVIDIA_A100_80GB_PCIe": "NVIDIA_A100-PCIE-40GB", "NVIDIA_A100-SXM4-40GB": "NVIDIA_A100-PCIE-40GB",
		"NVIDIA_H100_80GB_HBM3": "", "NVIDIA_L4": "", "Tesla_T4": "Tesla_T4",
	} {
		if got := m.Sibling(d.Specs[gpu]); got != want {
			t.Errorf("%s: sibling %q, want %q", gpu, got, want)
		}
	}
	// the A100 80GB's products are corrected as the A100 40GB's were, on
	// its sheet, with its residual (Model.dieOf): the same ratio to the
	// analytical time as on that sheet, where the model without the
	// chips' residuals is that residual off
	own := d.Specs["NVIDIA_A100-PCIE-40GB"]
	bare := *m
	bare.Chips = nil
	var r float64
	for _, c := range m.Chips {
		if c.GPU == "NVIDIA_A100-PCIE-40GB" {
			r = c.Residual[neusight.Linear]
		}
	}
	for _, k := range []Kernel{
		{Op: neusight.Linear, Batch: 1, M: 8192, K: 4096, N: 4096, Bias: true},
		{Op: neusight.Linear, Batch: 1, M: 4, K: 4096, N: 11008}, // bandwidth-bound
	} {
		spec := d.Specs["NVIDIA_A100_80GB_PCIe"]
		with, at := m.kernelAt(spec, &k), m.kernelAt(own, &k)
		if want := at * Analytical(spec, &k) / Analytical(own, &k); math.Abs(with/want-1) > 1e-9 {
			t.Errorf("A100 80GB linear %d×%d·%d: %g, want %g (the A100 40GB's %g × the analytical ratio)", k.M, k.N, k.K, with, want, at)
		}
		if without := bare.kernelAt(own, &k); r == 0 || math.Abs(at/without-math.Exp(r)) > 1e-9 {
			t.Errorf("A100 40GB linear %d×%d·%d: %g with the chip's residual %g, %g without", k.M, k.N, k.K, at, r, without)
		}
	}
}

// FamilyScores on hand-made predictions: the eleven elementwise ops pool,
// measurements under KernelBound floors count only in the whole figures.
func TestFamilyScores(t *testing.T) {
	s := []Sample{
		{Kernel: Kernel{Op: "add"}, Seconds: 1, Floor: 0.1},
		{Kernel: Kernel{Op: "relu"}, Seconds: 1, Floor: 0.5}, // 2 floors: not kernel-bound
		{Kernel: Kernel{Op: neusight.Linear}, Seconds: 2, Floor: 0.1},
	}
	pred := []float64{1.05, 1.5, 1}
	got := FamilyScores(s, pred)
	if len(got) != 2 || got[0].Family != "elementwise" || got[1].Family != neusight.Linear {
		t.Fatalf("%+v", got)
	}
	e := got[0]
	if e.N != 2 || math.Abs(e.MAPE-27.5) > 1e-9 || e.Within != 50 || e.KernelN != 1 || math.Abs(e.KernelMAPE-5) > 1e-9 || e.KernelWithin != 100 {
		t.Errorf("elementwise %+v", e)
	}
	if l := got[1]; l.N != 1 || l.MAPE != 50 || l.Within != 0 {
		t.Errorf("linear %+v", l)
	}
}

// Fusion as Inductor does it: GPT-2's eight GELU kernels become one that
// reads x once; a residual add folds into the layer norm after it; products
// stay; copies vanish; nothing else is lost.
func TestFuse(t *testing.T) {
	cfg, err := dnn.ReadHFConfig(filepath.Join(bundledDir(t), "models", "gpt2_large.json"))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := Lower(cfg, 1024, 4, false)
	f := Fuse(p)
	count := func(p *Program, pred func(k Kernel) bool) (n int) {
		for _, b := range p.Blocks {
			for _, k := range b.Kernels {
				if pred(k) {
					n += b.Repeat
				}
			}
		}
		return n
	}
	gemm := func(k Kernel) bool { return kindOf(k.Op) == kindGEMM }
	if a, b := count(p, gemm), count(f, gemm); a != b || a == 0 {
		t.Errorf("products %d → %d", a, b)
	}
	if n := count(f, func(k Kernel) bool { return k.Op == "copy" }); n != 0 {
		t.Errorf("%d copies left", n)
	}
	var layer Block
	for _, b := range f.Blocks {
		if b.Name == "layer" {
			layer = b
		}
	}
	// ln_1, c_attn, bmm, [div, where] → softmax, bmm, c_proj, [add] → ln_2,
	// c_fc, [gelu's 8], c_proj, [add]
	var ops []string
	for _, k := range layer.Kernels {
		op := k.Op
		if transcendental(op) == 1 {
			op = "transcendental"
		}
		ops = append(ops, op)
	}
	// the layer's closing residual add folds into the next layer's ln_1
	want := []string{"ln", "linear", "bmm", "softmax", "bmm", "linear", "ln", "linear", "transcendental", "linear"}
	if strings.Join(ops, " ") != strings.Join(want, " ") {
		t.Fatalf("fused layer %v, want %v", ops, want)
	}
	if g := layer.Kernels[8]; g.Inputs != 1 || g.Outputs != 1 {
		t.Errorf("fused GELU reads %d tensors, writes %d; want 1, 1", g.Inputs, g.Outputs)
	}
	for _, i := range []int{0, 6} {
		if ln := layer.Kernels[i]; ln.Extra != 2 {
			t.Errorf("layer norm %d after a residual add: %d extra tensors, want 2 (the residual read, the sum written)", i, ln.Extra)
		}
	}
}

// Bad input is an error, not a panic: no kernel-bound row to learn from;
// a sequence and batch whose scores overflow.
func TestRefuses(t *testing.T) {
	specs := map[string]Spec{"G": {Name: "G", SMs: 80, LanesPerSM: 64, ClockMHz: 1370, FP32: 14e12, Bandwidth: 900e9, L2: 6 << 20}}
	s := []Sample{{GPU: "G", Kernel: Kernel{Op: "add", Rows: 1, Width: 128, Inputs: 2}, Seconds: 1e-5, Floor: 1e-5}}
	if _, err := Train(s, specs, nil, DefaultParams()); err == nil || !strings.Contains(err.Error(), "nothing to learn") {
		t.Errorf("floor-bound rows only: %v", err)
	}
	cfg, err := dnn.ReadHFConfig(filepath.Join(bundledDir(t), "models", "llama2_7b.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range [][2]int{{1 << 20, 1 << 20}, {0, 1}, {1, 1 << 21}} {
		if _, err := Lower(cfg, c[0], c[1], false); err == nil {
			t.Errorf("sequence %d, batch %d lowered", c[0], c[1])
		}
	}
	if p, err := Lower(cfg, 4096, 1, true); err != nil || p.Count() == 0 {
		t.Errorf("llama at 4096 tokens: %v", err)
	}
}

// No product is predicted faster than its GPU's fp32 peak, whatever the
// trees say (the shipped model put a 4096³ product on the V100 at 110% of
// it before the bound): 1,000 random shapes on every bundled spec sheet.
func TestProductsWithinPeak(t *testing.T) {
	d := bundledData(t)
	m, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	side := func() int { return 1 << rng.IntN(15) * (1 + rng.IntN(3)) }
	bounded := 0
	for name, s := range d.Specs {
		for range 1000 {
			k := Kernel{Op: []string{neusight.Linear, neusight.BMM}[rng.IntN(2)], Batch: 1 + rng.IntN(4), M: side(), N: side(), K: side()}
			got := m.Kernel(s, &k)
			if floor := k.FLOPs() / (s.FP32 * issueShare(s)); got < floor*(1-1e-12) {
				t.Fatalf("%s: %+v in %g s, under its peak time %g s", name, k, got, floor)
			} else if got == floor {
				bounded++
			}
		}
	}
	if bounded == 0 {
		t.Error("no shape met the bound: the test no longer reaches it")
	}
}

// The timing model recovers what made the measurements: ops timed as
// max(floor, floor − overlap + k·t) with a 30 µs floor, an 18 µs overlap
// and the bandwidth at 1/1.1 of the sheet's, on three elementwise ops of
// 400 sizes each (plus 2% noise, about what the measured plateaus show), give back the overlap within 1 µs; the
// same ops timed as floor + t give back none of it (under 3 µs).
func TestOverlapOf(t *testing.T) {
	spec := Spec{Name: "G", SMs: 80, LanesPerSM: 64, ClockMHz: 1370, FP32: 14e12, Bandwidth: 900e9, L2: 6 << 20}
	rng := rand.New(rand.NewPCG(1, 2))
	gen := func(additive bool) []Sample {
		var s []Sample
		for _, op := range []string{"add", "relu", "mul"} {
			var own []Sample
			for i := range 400 {
				k := Kernel{Op: op, Rows: 1, Width: int(math.Exp2(8 + 18*float64(i)/400)), Inputs: ElementwiseInputs(op), Outputs: 1}
				ts := 1.1 * Analytical(spec, &k)
				m := Measured(ts, 30e-6, 18e-6)
				if additive {
					m = 30e-6 + ts
				}
				own = append(own, Sample{GPU: "G", Kernel: k, Seconds: m * math.Exp(0.02*rng.NormFloat64())})
			}
			f := FloorOf(own)
			if !additive && math.Abs(f-30e-6) > 1e-6 {
				t.Errorf("%s: floor %.1f µs, want 30", op, f*1e6)
			}
			for i := range own {
				own[i].Floor = f
			}
			s = append(s, own...)
		}
		return s
	}
	if o := OverlapOf(spec, gen(false)); math.Abs(o-18e-6) > 1e-6 {
		t.Errorf("overlap %.2f µs, want 18", o*1e6)
	}
	if o := OverlapOf(spec, gen(true)); o > 3e-6 {
		t.Errorf("floor + t: overlap %.2f µs, want about 0", o*1e6)
	}
	if o := OverlapOf(spec, []Sample{{GPU: "G", Kernel: Kernel{Op: neusight.Linear, Batch: 1, M: 64, N: 64, K: 64}, Seconds: 1e-4, Floor: 1e-4}}); o != 0 {
		t.Errorf("no elementwise op: overlap %g", o)
	}
	// a folder timed in hours (a hostile or broken one) costs the fit no
	// more than one timed in µs, and finds at most MaxOverlap
	huge := make([]Sample, 1000)
	for i := range huge {
		huge[i] = Sample{GPU: "G", Kernel: Kernel{Op: "add", Rows: 1, Width: 256 << (i % 12), Inputs: 2, Outputs: 1}, Seconds: 3600, Floor: 3600}
	}
	if o := OverlapOf(spec, huge); o < 0 || o > MaxOverlap {
		t.Errorf("floors of an hour: overlap %g", o)
	}
}

// A floor is the plateau of an op's fastest measurements, not an outlier
// below it, and the fastest where there is no plateau.
func TestFloorOf(t *testing.T) {
	sec := func(v ...float64) []Sample {
		var s []Sample
		for _, x := range v {
			s = append(s, Sample{Seconds: x})
		}
		return s
	}
	for _, c := range []struct {
		s    []Sample
		want float64
	}{
		{sec(31, 38, 38.1, 37.9, 38, 38.2, 80, 200), 38},
		{sec(60, 100, 200, 400), 60},
		{sec(5), 5},
		{nil, 0},
	} {
		if got := FloorOf(c.s); got != c.want {
			t.Errorf("%v: floor %g, want %g", c.s, got, c.want)
		}
	}
	if got := Measured(10e-6, 30e-6, 18e-6); got != 30e-6 {
		t.Errorf("a 10 µs kernel under a 30 µs floor measured %g", got)
	}
	if got := Measured(100e-6, 30e-6, 18e-6); math.Abs(got-112e-6) > 1e-12 {
		t.Errorf("a 100 µs kernel measured %g, want 112 µs", got)
	}
}

// Every host of the bundled data has an overlap of 10–30 µs, under each of
// its floors; the one GPU with no elementwise op (the A100 80GB's
// convolutions) borrows the others' mean.
func TestBundledTiming(t *testing.T) {
	d := bundledData(t)
	var sum float64
	var n int
	var borrowed *HostTiming
	hs := d.Hosts()
	for i, h := range hs {
		if h.Overlap < 10e-6 || h.Overlap > 30e-6 || h.Overlap >= h.MinFloor || h.MinFloor > h.MaxFloor {
			t.Errorf("%+v", h)
		}
		if h.Fitted {
			sum += h.Overlap
			n++
		} else {
			borrowed = &hs[i]
		}
	}
	if borrowed == nil || borrowed.GPU != "NVIDIA_A100_80GB_PCIe" || n != 5 || math.Abs(borrowed.Overlap-sum/5) > 1e-12 {
		t.Errorf("borrowed %+v, %d fitted (mean %g)", borrowed, n, sum/float64(max(n, 1)))
	}
}

// The timing model fits how NeuSight's elementwise ops were measured far
// better than floor + kernel: for each GPU and op, the kernel taken as its
// bytes at a bandwidth fitted to that op, max(floor, floor − overlap +
// kernel) has an rms log error under 0.14 (median under 0.04) and below
// floor + kernel's on every one of the 55, and the bandwidth it implies
// never beats the spec sheet's.
func TestTimingModelFitsOps(t *testing.T) {
	d := bundledData(t)
	var rmss []float64
	for _, g := range d.GPUs() {
		for _, op := range neusight.Elementwise {
			c, ok := Timing(d.Samples, d.Specs, g, op)
			if !ok {
				continue
			}
			rmss = append(rmss, c.RMSMax)
			if c.RMSMax > 0.14 || c.RMSMax >= c.RMSAdditive || c.KMax < 1 {
				t.Errorf("%s %s: rms %.3f (floor + kernel %.3f), bandwidth at 1/%.2f of the sheet's", g, op, c.RMSMax, c.RMSAdditive, c.KMax)
			}
		}
	}
	slices.Sort(rmss)
	if len(rmss) != 55 || rmss[len(rmss)/2] > 0.04 {
		t.Errorf("%d GPU × op cells, median rms %.3f", len(rmss), rmss[len(rmss)/2])
	}
}

// FuzzTiming: whatever the measurements (any positive times, any sizes),
// the floor lies between the fastest and FloorBand times it, and the
// overlap in [0, min(floor, MaxOverlap)]; nothing panics.
func FuzzTiming(f *testing.F) {
	f.Add(uint64(1), 30e-6, 1.1, 18e-6, uint8(50))
	f.Add(uint64(2), 3600.0, 0.5, 0.0, uint8(3))
	f.Add(uint64(3), 1e-9, 4.0, 1e-3, uint8(200))
	spec := Spec{Name: "G", SMs: 80, LanesPerSM: 64, ClockMHz: 1370, FP32: 14e12, Bandwidth: 900e9, L2: 6 << 20}
	f.Fuzz(func(t *testing.T, seed uint64, floor, k, overlap float64, n uint8) {
		if !(floor > 0) || floor > 1e6 || !(k > 0) || k > 1e3 || !(overlap >= 0) || overlap > 1e6 || n == 0 {
			t.Skip()
		}
		r := rand.New(rand.NewPCG(seed, 1))
		s := make([]Sample, n)
		for i := range s {
			ker := Kernel{Op: []string{"add", "relu", "gelu"}[r.IntN(3)], Rows: 1 + r.IntN(4096), Width: 1 + r.IntN(1<<16), Inputs: 1 + r.IntN(2), Outputs: 1}
			s[i] = Sample{GPU: "G", Kernel: ker, Seconds: Measured(k*Analytical(spec, &ker), floor, min(overlap, floor)) * math.Exp(0.1*r.NormFloat64())}
		}
		fl := FloorOf(s)
		fastest := slices.MinFunc(s, func(a, b Sample) int { return cmp.Compare(a.Seconds, b.Seconds) }).Seconds
		if fl < fastest || fl > FloorBand*fastest {
			t.Fatalf("floor %g, fastest %g", fl, fastest)
		}
		for i := range s {
			s[i].Floor = fl
		}
		if o := OverlapOf(spec, s); o < 0 || o > min(fl, MaxOverlap)*(1+1e-9) || math.IsNaN(o) {
			t.Fatalf("overlap %g with floor %g", o, fl)
		}
	})
}

// The V100's add, binned: the timing model follows the measured medians
// (mean |log| gap under 0.03) where floor + k·t does not (over 0.08), and
// it needs the bandwidth at 85–100% of the sheet's where floor + k·t needs
// more than the sheet's; the bins rise, each median within its
// percentiles.
func TestTimingCurve(t *testing.T) {
	d := bundledData(t)
	c, ok := Timing(d.Samples, d.Specs, "Tesla_V100-PCIE-32GB", "add")
	if !ok || len(c.T) < 20 {
		t.Fatalf("%d bins, ok %v", len(c.T), ok)
	}
	var gapMax, gapAdd float64
	for i := range c.T {
		if i > 0 && c.T[i] <= c.T[i-1] || c.P10[i] > c.Median[i] || c.Median[i] > c.P90[i] {
			t.Errorf("bin %d: t %g, p10 %g, median %g, p90 %g", i, c.T[i], c.P10[i], c.Median[i], c.P90[i])
		}
		gapMax += math.Abs(math.Log(c.Max[i] / c.Median[i]))
		gapAdd += math.Abs(math.Log(c.Additive[i] / c.Median[i]))
	}
	n := float64(len(c.T))
	if gapMax/n > 0.03 || gapAdd/n < 0.08 || c.KMax < 1 || c.KMax > 1/0.85 || c.KAdditive >= 1 {
		t.Errorf("mean |log| gap %.3f (floor + k·t %.3f); k %.2f (floor + k·t %.2f)", gapMax/n, gapAdd/n, c.KMax, c.KAdditive)
	}
	if _, ok := Timing(d.Samples, d.Specs, "Tesla_V100-PCIE-32GB", "embedding"); ok {
		t.Error("an op with no measurement has a curve")
	}
}

// ChooseDepth scores every candidate over every GPU not excluded and picks
// the lowest; it refuses to cross-validate over fewer than two GPUs. Small
// models (20 trees, 200 rows per op and GPU) keep it fast.
func TestChooseDepth(t *testing.T) {
	t.Parallel() // (long: overlaps the package's other long tests on a second core)
	d := bundledData(t)
	p := DefaultParams()
	p.PerGPU, p.Boost.Trees = 200, 20
	var calls []string
	c, err := ChooseDepth(d, []string{"Tesla_T4"}, p, []int{2, 4}, func(h string, depth int) {
		calls = append(calls, fmt.Sprint(h, depth))
		if h == "Tesla_T4" {
			t.Errorf("the excluded GPU was an inner fold")
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 2*5 || len(c.Scores) != 2 {
		t.Fatalf("%d models trained, %d scores", len(calls), len(c.Scores))
	}
	for d, s := range c.Scores {
		if !(s > 0 && s < 100) || s < c.Scores[c.Depth] {
			t.Errorf("depth %d scored %.2f%%, chosen %d at %.2f%%", d, s, c.Depth, c.Scores[c.Depth])
		}
	}
	all := d.GPUs()
	if _, err := ChooseDepth(d, all[1:], p, []int{2, 4}, nil); err == nil {
		t.Error("one GPU left to cross-validate over, no error")
	}
	// no label reaches the choice (the inner models are uncalibrated), so
	// the same ops without any label choose alike (a reviewer's find: a
	// network's labels, through the calibration, moved a GPU's depth)
	bare := &Data{Samples: d.Samples, Specs: d.Specs}
	b, err := ChooseDepth(bare, []string{"Tesla_T4"}, p, []int{2, 4}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if b.Depth != c.Depth || !maps.Equal(b.Scores, c.Scores) {
		t.Errorf("without labels: depth %d, scores %v; with them %d, %v", b.Depth, b.Scores, c.Depth, c.Scores)
	}
}

// TestGPUBiases: the median of predicted / measured per GPU and op family,
// over kernel-bound measurements only.
// biasSamples are two GPUs' measurements of two families and predictions
// of them, one too short to count (2 floors).
func biasSamples() ([]Sample, []float64) {
	return []Sample{
		{GPU: "b", Kernel: Kernel{Op: neusight.Linear}, Seconds: 1, Floor: 0.1},
		{GPU: "a", Kernel: Kernel{Op: "add"}, Seconds: 1, Floor: 0.1},
		{GPU: "a", Kernel: Kernel{Op: "relu"}, Seconds: 2, Floor: 0.1},
		{GPU: "a", Kernel: Kernel{Op: "mul"}, Seconds: 1, Floor: 0.1},
		{GPU: "a", Kernel: Kernel{Op: "add"}, Seconds: 1, Floor: 0.5}, // 2 floors: left out
		{GPU: "b", Kernel: Kernel{Op: neusight.Linear}, Seconds: 4, Floor: 0.1},
	}, []float64{1.5, 1.2, 1, 0.9, 9, 2}
}

func TestGPUBiases(t *testing.T) {
	s, pred := biasSamples()
	got := GPUBiases(s, pred)
	want := []GPUBias{{"a", "elementwise", 3, 0.9}, {"b", neusight.Linear, 2, 1}}
	if len(got) != len(want) {
		t.Fatalf("%+v", got)
	}
	for i := range want {
		if got[i].GPU != want[i].GPU || got[i].Family != want[i].Family || got[i].N != want[i].N || math.Abs(got[i].Median-want[i].Median) > 1e-12 {
			t.Errorf("%d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestLevelRemoved: each GPU and family's predictions divided by its median
// ratio, short measurements with them; after it the kernel-bound medians
// are 1; a family without a kernel-bound measurement keeps its predictions.
func TestLevelRemoved(t *testing.T) {
	s, pred := biasSamples()                                                                  // the short add is divided, not counted
	s = append(s, Sample{GPU: "b", Kernel: Kernel{Op: neusight.BMM}, Seconds: 1, Floor: 0.5}) // no kernel-bound bmm on b
	pred = append(pred, 3)
	got := LevelRemoved(s, pred)
	want := []float64{1.5, 1.2 / 0.9, 1 / 0.9, 1, 10, 2, 3}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("%d: %g, want %g", i, got[i], want[i])
		}
	}
	for _, b := range GPUBiases(s, got) {
		if math.Abs(b.Median-1) > 1e-12 {
			t.Errorf("%s %s: median %g after the level is removed", b.GPU, b.Family, b.Median)
		}
	}
	if pred[1] != 1.2 {
		t.Error("LevelRemoved changed its input")
	}
}

// The H200 (datasets/data/h200): 17 iterations measured by wb on a GPU of no
// architecture the op model has seen (Hopper; its sheet beyond the training
// GPUs' in every figure), predicted from its spec sheet by the shipped model.
// Pinned: inference 4.7% mean |error| (largest 9.6%), training 4.6% (6.7%),
// NeuSight's published errors on the H100 being 6.1% and 6.6%. The H200 is
// a test set: nothing is trained on it. The model was first trained before
// the measurement was made (5.2% and 5.6% then); products planned with
// split-K came after, chosen by their fit to the training GPUs' own linear
// measurements, but after these labels had been looked at, so the figures
// are not blind to that change.
func TestValidateH200(t *testing.T) {
	t.Parallel() // (long: overlaps the package's other long tests on a second core)
	d := bundledData(t)
	dir, err := neusight.ReadDir(filepath.Join(bundledDir(t), "..", "h200"))
	if err != nil {
		t.Fatal(err)
	}
	full, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	v, err := ValidateLabels(dir, filepath.Join(bundledDir(t), "models"), d, full, DefaultParams(), func(g string) { t.Errorf("trained a model without %s", g) })
	if err != nil {
		t.Fatal(err)
	}
	want := map[neusight.Mode][2]float64{}
	for _, g := range Unseen {
		want[g.Mode] = [2]float64{g.MAE, g.Max}
	}
	groups := v.Groups()
	if len(groups) != 2 {
		t.Fatalf("%d groups, want inference and training: %+v", len(groups), groups)
	}
	for _, g := range groups {
		w := want[g.Mode]
		if g.GPU != "NVIDIA_H200" || g.Held != "unseen" || g.N == 0 {
			t.Errorf("%+v", g)
		}
		if math.Abs(g.MAE-w[0]) > 0.051 || math.Abs(g.Max-w[1]) > 0.051 { // (Unseen's figures, as wb predict quotes them, to 0.1)
			t.Errorf("H200 %s: mean |error| %.2f%%, largest %.2f%%; pinned %.1f%% and %.1f%%", g.Mode, g.MAE, g.Max, w[0], w[1])
		}
	}
	if n := len(v.Labels); n != 17 {
		t.Errorf("%d labels, want 17", n)
	}
	// the folder has no model configs: that is said once, naming them
	if len(v.Notes) != 1 || !strings.Contains(v.Notes[0], "no models/<model>.json for bert_large, gpt2_large, gpt3_27, gpt3_xl, opt_13: took wb's bundled configs") {
		t.Errorf("notes %q", v.Notes)
	}

	// Its 960 ops, predicted by the shipped model as timed alone: pinned
	// on the kernel-bound ones (≥ 3 of the H200 host's floors), MAPE %.
	samples, pred, skipped, err := UnseenOps(dir, d, full)
	if len(skipped) > 0 {
		t.Errorf("ops files not read: %q", skipped)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 960 {
		t.Fatalf("%d H200 ops, want 960", len(samples))
	}
	type pin struct {
		n    int
		mape float64
	}
	kernel := map[string]pin{"bmm": {30, 25.8}, "conv": {45, 22.1}, "elementwise": {60, 10.7}, "linear": {39, 13.1}, "ln": {8, 14.4}, "softmax": {3, 44.0}}
	fams := FamilyScores(samples, pred)
	if len(fams) != len(kernel) {
		t.Errorf("%d op families, want %d", len(fams), len(kernel))
	}
	for _, f := range fams {
		w, ok := kernel[f.Family]
		if !ok || f.KernelN != w.n || math.Abs(f.KernelMAPE-w.mape) > 0.051 {
			t.Errorf("H200 %s: kernel-bound MAPE %.1f%% over %d, pinned %.1f%% over %d", f.Family, f.KernelMAPE, f.KernelN, w.mape, w.n)
		}
	}
}

// TestSheetShares: a GPU's share of its sheet from kernel times (the
// measurement less the host's part), over the large kernel-bound
// measurements alone, products batched and linear apart; then the bundled
// GPUs' levels that the leave-one-GPU-out biases come from: the V100
// reached more of its sheet's bandwidth than any other (89–96% of it per
// op, see Measured) and the low-power boards less of their fp32 peak on
// batched products than the others.
func TestSheetShares(t *testing.T) {
	spec := Spec{Name: "g", SMs: 1, LanesPerSM: 1, ClockMHz: 1, FP32: 1e12, Bandwidth: 1e9, L2: 1 << 20}
	big := Kernel{Op: "add", Rows: 1 << 20, Width: 4, Inputs: 2, Outputs: 1} // 48 MiB: ≥ 4× the L2
	bytes := big.Bytes()
	gemm := Kernel{Op: neusight.BMM, Batch: 1, M: 4096, N: 4096, K: 4096}
	lin := Kernel{Op: neusight.Linear, Batch: 1, M: 4096, N: 4096, K: 4096, Bias: true}
	s := []Sample{
		{GPU: "g", Kernel: big, Seconds: bytes/1e9/0.8 + 1e-4 - 2e-5, Floor: 1e-4, Overlap: 2e-5},       // 0.8 of the bandwidth
		{GPU: "g", Kernel: big, Seconds: bytes/1e9/0.6 + 1e-4 - 2e-5, Floor: 1e-4, Overlap: 2e-5},       // 0.6
		{GPU: "g", Kernel: big, Seconds: bytes/1e9/0.7 + 1e-4 - 2e-5, Floor: 1e-4, Overlap: 2e-5},       // 0.7: the median
		{GPU: "g", Kernel: Kernel{Op: "add", Rows: 1024, Width: 4, Inputs: 2}, Seconds: 1, Floor: 1e-4}, // within the L2
		{GPU: "g", Kernel: gemm, Seconds: gemm.FLOPs() / 1e12 / 0.5, Floor: 1e-4, Overlap: 1e-4},
		{GPU: "g", Kernel: lin, Seconds: lin.FLOPs() / 1e12 / 0.25, Floor: 1e-4, Overlap: 1e-4},
		{GPU: "g", Kernel: gemm, Seconds: 2.9e-4, Floor: 1e-4},                                                      // under 3 floors
		{GPU: "h", Kernel: gemm, Seconds: 1, Floor: 1e-4},                                                           // no sheet
		{GPU: "c", Kernel: Kernel{Op: neusight.Conv, Batch: 1, M: 1 << 12, N: 64, K: 576}, Seconds: 1, Floor: 1e-4}, // nothing that qualifies
	}
	got := SheetShares(s, map[string]Spec{"g": spec, "c": spec})
	if len(got) != 1 || got[0].GPU != "g" || got[0].N != [3]int{3, 1, 1} {
		t.Fatalf("%+v", got)
	}
	if g := got[0]; math.Abs(g.Bandwidth-0.7) > 1e-9 || math.Abs(g.BMM-0.5) > 1e-9 || math.Abs(g.Linear-0.25) > 1e-9 {
		t.Errorf("%+v, want bandwidth 0.7, bmm 0.5, linear 0.25", g)
	}

	d := bundledData(t)
	shares := map[string]SheetShare{}
	for _, sh := range SheetShares(d.Samples, d.Specs) {
		shares[sh.GPU] = sh
	}
	v100 := shares["Tesla_V100-PCIE-32GB"]
	if len(shares) != 5 || v100.Bandwidth < 0.85 || v100.Bandwidth > 0.96 {
		t.Fatalf("%+v", shares)
	}
	for g, sh := range shares {
		if g != v100.GPU && sh.Bandwidth >= v100.Bandwidth {
			t.Errorf("%s reached %.2f of its sheet's bandwidth, the V100 %.2f", g, sh.Bandwidth, v100.Bandwidth)
		}
		if sh.N[0] < 100 || sh.N[1] < 100 || sh.N[2] < 100 {
			t.Errorf("%s: too few measurements %v", g, sh.N)
		}
	}
	for _, low := range []string{"Tesla_T4", "Tesla_P4"} {
		for _, dc := range []string{"NVIDIA_A100-PCIE-40GB", "Tesla_P100-PCIE-16GB", "Tesla_V100-PCIE-32GB"} {
			if shares[low].BMM >= shares[dc].BMM {
				t.Errorf("%s's batched products reached %.2f of its peak, %s's %.2f", low, shares[low].BMM, dc, shares[dc].BMM)
			}
		}
	}
}

// TestSplitK: a single product of few tiles and a long reduction is planned
// in slices (each at most K/MinSplitK of them), which makes it faster than
// its plain plan and pays the sum of the partial tiles; a batched product,
// a convolution of the kind measured and a product too short to slice are
// never split; a plan without slices pays no sum; an implicit convolution
// is planned as the product its GEMM computes.
func TestSplitK(t *testing.T) {
	s := Spec{Name: "g", SMs: 80, LanesPerSM: 64, ClockMHz: 1370, FP32: 14e12, Bandwidth: 900e9, L2: 6 << 20}
	lin := Kernel{Op: neusight.Linear, Batch: 1, M: 128, N: 1024, K: 16384, Bias: true}
	split := planGEMM(s, 1, lin.M, lin.N, lin.K, splitK(&lin))
	plain := planGEMM(s, 1, lin.M, lin.N, lin.K, false)
	if split.split < 2 || split.split > lin.K/MinSplitK || plain.split != 1 {
		t.Fatalf("split %d, plain %d: want 2 to %d slices, and none", split.split, plain.split, lin.K/MinSplitK)
	}
	if !(split.compute < plain.compute) {
		t.Errorf("split %g s, plain %g s: the split plan must finish first", split.compute, plain.compute)
	}
	// the sum of the partial tiles is paid: the waves alone take less
	waves := fl(split.waves) * 2 * fl(split.t.m) * fl(split.t.n) * fl(ceilDiv(lin.K, split.split)) * fl(split.t.perSM) /
		(s.FP32 / fl(s.SMs) * split.t.eff)
	sum := fl(2*split.split+1)*fl(lin.M)*fl(lin.N)*4/s.Bandwidth + Launch
	if math.Abs(split.compute-(waves+sum)) > 1e-12*split.compute {
		t.Errorf("split plan %g s, want its waves %g s plus the sum %g s", split.compute, waves, sum)
	}
	if split.tiles%split.split != 0 || split.fill <= 0 || split.fill > 1 {
		t.Errorf("blocks %d of %d slices, last wave %.2f", split.tiles, split.split, split.fill)
	}
	for _, k := range []Kernel{
		{Op: neusight.BMM, Batch: 1, M: 128, N: 1024, K: 16384},  // a batched product, even of one
		{Op: neusight.Linear, Batch: 1, M: 128, N: 1024, K: 255}, // too short for two slices
		ConvKernel(1, 512, 64, 3, 4, 1, 1),                       // 3×3 stride 1: measured, not an implicit GEMM
		{Op: neusight.Linear, Batch: 1, M: 0, N: 1024, K: 16384}, // nothing to plan
	} {
		if g := planGEMM(s, k.Batch, k.M, k.N, k.K, splitK(&k)); g.split != 1 {
			t.Errorf("%+v: %d slices, want none", k, g.split)
		}
	}
	// no slices, no sum: the plain plan is the waves alone
	if p := plain; math.Abs(p.compute-fl(p.waves)*2*fl(p.t.m)*fl(p.t.n)*fl(lin.K)*fl(p.t.perSM)/(s.FP32/fl(s.SMs)*p.t.eff)) > 1e-12*p.compute {
		t.Errorf("plain plan %g s is more than its waves", p.compute)
	}
	conv := ConvKernel(2, 2048, 512, 1, 7, 1, 0) // a 1×1 convolution over 2 × 7×7 pixels: M 98, N 512, K 2048
	eq := Kernel{Op: neusight.Linear, Batch: 1, M: conv.M, N: conv.N, K: conv.K}
	if !conv.Implicit || planGEMM(s, 1, conv.M, conv.N, conv.K, splitK(&conv)) != planGEMM(s, 1, eq.M, eq.N, eq.K, splitK(&eq)) {
		t.Errorf("implicit convolution %+v planned unlike its product", conv)
	}
}

// TestIterationFamilies: the op families split the iteration's time and
// kernels exactly, longest first; BERT-Large's inference is mostly its
// linear layers, and its training adds the backward to the same families.
func TestIterationFamilies(t *testing.T) {
	m := shippedModel(t)
	cfg, err := dnn.ReadHFConfig(filepath.Join(bundledDir(t), "models", "bert_large.json"))
	if err != nil {
		t.Fatal(err)
	}
	s := bundledSpec(t, "NVIDIA_A100-PCIE-40GB")
	for _, train := range []bool{false, true} {
		p, err := Lower(cfg, 512, 8, train)
		if err != nil {
			t.Fatal(err)
		}
		it := m.Iteration(s, p, train)
		var fw, bw float64
		var n int
		for i, f := range it.Families {
			fw, bw, n = fw+f.Forward, bw+f.Backward, n+f.Kernels
			if i > 0 && f.Forward+f.Backward > it.Families[i-1].Forward+it.Families[i-1].Backward {
				t.Errorf("train %v: %s after a shorter family", train, f.Family)
			}
			if !train && f.Backward != 0 {
				t.Errorf("inference: %s has backward time", f.Family)
			}
		}
		if math.Abs(fw-it.Forward) > 1e-9*it.Forward || math.Abs(bw-it.Backward) > 1e-9*max(it.Backward, 1e-9) || n != it.Kernels {
			t.Errorf("train %v: families %g + %g s, %d kernels; iteration %g + %g s, %d kernels", train, fw, bw, n, it.Forward, it.Backward, it.Kernels)
		}
		if len(it.Families) < 5 || it.Families[0].Family != neusight.Linear || (it.Families[0].Forward+it.Families[0].Backward) < 0.5*it.Total() {
			t.Errorf("train %v: %+v", train, it.Families)
		}
	}
}

// shippedModel is the shipped model, or the test's end.
func shippedModel(t testing.TB) *Model {
	t.Helper()
	m, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestValidateRenamedTrainingGPU: a training GPU's labels in a folder
// named as torch names the GPU ("Tesla V100-PCIE-32GB", which takes the
// sheet Tesla_V100-PCIE-32GB.json) are still predicted leaving that GPU
// out, as under its own name, not by the model trained on it.
func TestValidateRenamedTrainingGPU(t *testing.T) {
	d := bundledData(t)
	src := bundledDir(t)
	dir := t.TempDir()
	const gpu = "Tesla_V100-PCIE-32GB"
	for _, p := range []string{"devices", "labels/Tesla V100-PCIE-32GB"} {
		os.MkdirAll(filepath.Join(dir, filepath.FromSlash(p)), 0o755)
	}
	b0, err := os.ReadFile(filepath.Join(src, "devices", gpu+".json"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "devices", gpu+".json"), b0, 0o644)
	const label = "bert_large-inf-512-8.json"
	var b []byte
	if b, err = os.ReadFile(filepath.Join(src, "labels", gpu, label)); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "labels", "Tesla V100-PCIE-32GB", label), b, 0o644)
	v, trained := validateTrained(t, dir, src, d)
	full, _ := Shipped()
	// the same label under the GPU's own name
	own := t.TempDir()
	for _, p := range []string{"devices", "labels/" + gpu} {
		os.MkdirAll(filepath.Join(own, filepath.FromSlash(p)), 0o755)
	}
	os.WriteFile(filepath.Join(own, "devices", gpu+".json"), b0, 0o644)
	os.WriteFile(filepath.Join(own, "labels", gpu, label), b, 0o644)
	on, err := neusight.ReadDir(own)
	if err != nil {
		t.Fatal(err)
	}
	w, err := ValidateLabels(on, filepath.Join(src, "models"), d, full, DefaultParams(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := w.Labels[0].Predicted
	if p := v.Labels[0]; len(v.Labels) != 1 || p.Held != "leave-one-gpu-out" || p.Predicted != want || !(want > 0) || !slices.Equal(trained, []string{gpu}) {
		t.Errorf("%+v (trained without %v); want left out: %g ms", p, trained, want)
	}
	// and the folder under the GPU's own name with a sheet of another name
	// ("V100.json", the same GPU by its Device field)
	other := t.TempDir()
	for _, p := range []string{"devices", "labels/" + gpu} {
		os.MkdirAll(filepath.Join(other, filepath.FromSlash(p)), 0o755)
	}
	os.WriteFile(filepath.Join(other, "devices", "V100.json"), b0, 0o644)
	os.WriteFile(filepath.Join(other, "labels", gpu, label), b, 0o644)
	od, err := neusight.ReadDir(other)
	if err != nil {
		t.Fatal(err)
	}
	if od.Sheet(gpu) != "V100" {
		t.Fatalf("the folder %s did not take devices/V100.json: %q (notes %q)", gpu, od.Sheet(gpu), od.Notes)
	}
	ov, err := ValidateLabels(od, filepath.Join(src, "models"), d, full, DefaultParams(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := ov.Labels[0]; p.Held != "leave-one-gpu-out" || p.Predicted != want {
		t.Errorf("%s's labels with devices/V100.json: %+v; want left out, %g ms", gpu, p, want)
	}
}

// In sample: every label predicted by the shipped model itself, as wb
// predict does with the GPU's sheet, at the figures docs/prediction.md's
// table gives in its last column.
func TestValidateLabelsInSample(t *testing.T) {
	d := bundledData(t)
	full, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	v, err := ValidateLabelsInSample(d.Dir, "", d, full)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]float64{ // GPU/mode → mean and largest |error| %
		"NVIDIA_A100-PCIE-40GB/inf": {4.3, 6.7}, "NVIDIA_A100-PCIE-40GB/inf+compile": {2.2, 4.4},
		"Tesla_P100-PCIE-16GB/inf": {3.0, 6.4}, "Tesla_P4/inf": {14.7, 25.8}, "Tesla_T4/inf": {4.9, 8.8},
		"Tesla_V100-PCIE-32GB/inf": {2.6, 4.3}, "Tesla_V100-PCIE-32GB/train": {0.4, 0.7},
	}
	groups := v.Groups()
	if len(groups) != len(want) {
		t.Errorf("%d GPU × mode groups, want %d", len(groups), len(want))
	}
	for _, g := range groups {
		k := groupKey(g)
		if w, ok := want[k]; !ok || math.Abs(g.MAE-w[0]) > 0.5 || math.Abs(g.Max-w[1]) > 0.5 || g.Held != "in sample" {
			t.Errorf("%s: mean |error| %.2f%%, largest %.2f%%, held %q; pinned %.1f%% and %.1f%%, in sample", k, g.MAE, g.Max, g.Held, w[0], w[1])
		}
	}
	// the shipped model as it is: a label predicted directly with it
	for _, p := range v.Labels {
		l := p.Label
		if p.Skipped != "" || l.Fused || l.GPUs > 1 {
			continue
		}
		cfg, err := dnn.ReadHFConfig(d.Dir.ModelPath(l.Model))
		if err != nil {
			t.Fatal(err)
		}
		prog, err := Lower(cfg, l.Seq, l.Batch, l.Mode == neusight.Training)
		if err != nil {
			t.Fatal(err)
		}
		it := full.Iteration(SpecOf(d.Dir.Devices[l.GPU]), prog, l.Mode == neusight.Training)
		if got := it.Total() * 1e3; got != p.Predicted {
			t.Errorf("%s %s %s %d × %d: %v ms in the validation, %v ms from the shipped model", l.GPU, l.Model, l.Mode, l.Seq, l.Batch, p.Predicted, got)
		}
	}
}

// groupKey names a validation group as the tests' pins do: GPU/mode, and
// +compile for torch.compile's.
func groupKey(g GroupError) string {
	k := g.GPU + "/" + string(g.Mode)
	if g.Fused {
		k += "+compile"
	}
	return k
}

// TestFlatTreesMatchWalk: the flattened trees (Booster.predict) add the
// same floats as walking each tree's nodes, on the shipped model's
// boosters and on trees of uneven depth, for features drawn from the
// trees' own thresholds, between them, and NaN, ±Inf and ±0.
func TestFlatTreesMatchWalk(t *testing.T) {
	m, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	walk := func(b *Booster, x []float64) float64 {
		v := b.Base
		for _, tr := range b.Trees {
			v += b.Shrinkage * tr.Predict(x)
		}
		return v
	}
	leaf := func(v float64) *predictor.TreeNode { return &predictor.TreeNode{Value: v} }
	uneven := &Booster{Base: 0.25, Shrinkage: 0.3, Features: []string{"a", "b"}, Trees: []*predictor.TreeNode{
		leaf(1.5),
		{Feature: 1, Threshold: 2, Left: leaf(-1), Right: &predictor.TreeNode{Feature: 0, Threshold: -1, Left: leaf(3), Right: &predictor.TreeNode{Feature: 1, Threshold: 5, Left: leaf(0.1), Right: leaf(7)}}},
		{Feature: 0, Threshold: 0, Left: leaf(2), Right: leaf(-2)},
		leaf(-0.5), leaf(0.75),
	}}
	// a chain of 40 splits, deeper than maxFlatDepth (a model file may hold
	// one up to checkTree's 64): walked by its pointers, where laid out
	// complete it would take 2^40 leaves
	chain := leaf(0.5)
	for d := range 40 {
		chain = &predictor.TreeNode{Feature: d % 2, Threshold: float64(d), Left: leaf(float64(-d)), Right: chain}
	}
	deep := &Booster{Base: 1, Shrinkage: 0.1, Features: []string{"a", "b"}, Trees: []*predictor.TreeNode{leaf(1), chain}}
	boosters := map[string]*Booster{"uneven": uneven, "deep": deep}
	for g, b := range m.Groups {
		boosters[g] = b
	}
	rng := rand.New(rand.NewPCG(7, 11))
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1)}
	for g, b := range boosters {
		var thresholds []float64
		var collect func(n *predictor.TreeNode)
		collect = func(n *predictor.TreeNode) {
			if n.Left != nil {
				thresholds = append(thresholds, n.Threshold)
				collect(n.Left)
				collect(n.Right)
			}
		}
		for _, tr := range b.Trees {
			collect(tr)
		}
		x := make([]float64, len(b.Features))
		for trial := range 3000 {
			for i := range x {
				switch r := rng.IntN(10); {
				case r == 0:
					x[i] = special[rng.IntN(len(special))]
				case r < 5:
					x[i] = thresholds[rng.IntN(len(thresholds))]
				default:
					a, c := thresholds[rng.IntN(len(thresholds))], thresholds[rng.IntN(len(thresholds))]
					x[i] = a + rng.Float64()*(c-a)
				}
			}
			if got, want := b.predict(x), walk(b, x); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("%s, trial %d, x %v: flattened %v, walked %v", g, trial, x, got, want)
			}
		}
	}
}

// TestOpFamilyScores pins the op families' errors with each GPU left out,
// as `wb predict --validate neusight --ops` prints them and the README's
// trust table quotes them (MAPE over all measurements, %): bmm 25.6,
// conv 25.3, elementwise 18.0, linear 28.0, layer norm 16.5, softmax 20.8.
// The models are the labels' leave-one-GPU-out models (Data.Train, memoised).
func TestOpFamilyScores(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("trains five models")
	}
	d := bundledData(t)
	pred, err := d.LeaveOneGPUOut(DefaultParams(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"bmm": 25.6, "conv": 25.3, "elementwise": 18.0, "linear": 28.0, "ln": 16.5, "softmax": 20.8}
	scores := FamilyScores(d.Samples, pred)
	if len(scores) != len(want) {
		t.Errorf("%d families, want %d", len(scores), len(want))
	}
	for _, f := range scores {
		if w, ok := want[f.Family]; !ok || math.Abs(f.MAPE-w) > 0.15 {
			t.Errorf("%s: MAPE %.2f%%, pinned %.1f%%", f.Family, f.MAPE, w)
		}
	}
}

// TestValidateSiblingHeldOut: a GPU left out for the ops it has (the A100
// 80GB's convolutions) whose chip a training GPU shares (the A100 40GB)
// says so beside "leave-one-gpu-out", as an unseen GPU of a training GPU's
// chip says "unseen, chip of" (a reviewer's find: it read as if no A100
// had been trained on).
func TestValidateSiblingHeldOut(t *testing.T) {
	d := bundledData(t)
	src := bundledDir(t)
	dir := t.TempDir()
	const gpu, sib = "NVIDIA_A100_80GB_PCIe", "NVIDIA_A100-PCIE-40GB"
	for _, p := range []string{"devices", "labels/" + gpu} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(p)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sheet, err := os.ReadFile(filepath.Join(src, "devices", gpu+".json"))
	if err != nil {
		t.Fatal(err)
	}
	const label = "bert_large-inf-512-8.json"
	b, err := os.ReadFile(filepath.Join(src, "labels", sib, label))
	if err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(os.WriteFile(filepath.Join(dir, "devices", gpu+".json"), sheet, 0o644),
		os.WriteFile(filepath.Join(dir, "labels", gpu, label), b, 0o644)); err != nil {
		t.Fatal(err)
	}
	v, trained := validateTrained(t, dir, src, d)
	if p := v.Labels[0]; len(v.Labels) != 1 || p.Held != LeaveOneGPUOut+", chip of "+sib || !IsLeftOut(p.Held) || !slices.Equal(trained, []string{gpu}) {
		t.Errorf("%+v (trained without %v); want left out, chip of %s", p, trained, sib)
	}
}

// validateTrained validates the labels of the folder dir (its models those
// of the bundled folder src) with the shipped model, and lists the GPUs a
// model was trained without.
func validateTrained(t *testing.T, dir, src string, d *Data) (*Validation, []string) {
	t.Helper()
	nd, err := neusight.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	full, _ := Shipped()
	var trained []string
	v, err := ValidateLabels(nd, filepath.Join(src, "models"), d, full, DefaultParams(), func(g string) { trained = append(trained, g) })
	if err != nil {
		t.Fatal(err)
	}
	return v, trained
}

// TestFewRows: decoding's products (a few rows) and, in training, their
// gradients are counted, and nothing of a model at a long sequence, not
// Switch's router either, whose data gradient reduces over its 4 experts
// (counted once: a reviewer's find).
func TestFewRows(t *testing.T) {
	dir := bundledDir(t)
	m, _ := Shipped()
	spec := bundledSpec(t, "Tesla_V100-PCIE-32GB")
	for _, c := range []struct {
		model       string
		seq         int
		train       bool
		least, most float64 // share of the iteration
	}{
		{"switchxl4", 128, true, 0, 0},
		{"gpt2_large", 512, true, 0, 0},
		{"gpt2_large", 1, false, 0.5, 1},
		{"gpt2_large", 1, true, 0.4, 1},
	} {
		cfg, err := dnn.ReadHFConfig(filepath.Join(dir, "models", c.model+".json"))
		if err != nil {
			t.Fatal(err)
		}
		p, err := Lower(cfg, c.seq, 1, c.train)
		if err != nil {
			t.Fatal(err)
		}
		sec, bytes := m.FewRows(spec, p, c.train, 8)
		share := sec / m.Iteration(spec, p, c.train).Total()
		if share < c.least || share > c.most || (sec > 0) != (bytes > 0) {
			t.Errorf("%s at sequence %d (train %v): %.3f of the iteration in products of few rows (%.3g B), want %g to %g", c.model, c.seq, c.train, share, bytes, c.least, c.most)
		}
	}
}
