package app

import (
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wb-sim/wb/datasets/neusight"
	"github.com/wb-sim/wb/predictor/gpu"
)

func TestPredictGPU(t *testing.T) {
	train, err := wb(t, "predict", "gpt3-2.7b", "--device-spec", "NVIDIA_H100_80GB_HBM3", "--seq", "2048", "--batch", "8", "--mode", "train")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"gpt3_27.json (gpt2, 2.652 B parameters) on NVIDIA H100 80GB HBM3, training, sequence 2048, batch 8", "= forward", "kernels)",
		"\nby op family: linear "} {
		if !strings.Contains(train, want) {
			t.Errorf("output lacks %q:\n%s", want, train)
		}
	}
	inf, err := wb(t, "predict", "gpt3-2.7b", "--device-spec", "NVIDIA_H100_80GB_HBM3", "--seq", "2048", "--batch", "8")
	if err != nil {
		t.Fatal(err)
	}
	ms := func(s string) float64 {
		f := strings.Fields(s[strings.Index(s, "iteration ")+len("iteration "):])
		v, _ := strconv.ParseFloat(f[0], 64)
		return v
	}
	// training is forward + backward, two to four forward passes in all
	if r := ms(train) / ms(inf); r < 2 || r > 4 {
		t.Errorf("training %.1f ms is %.2f× inference %.1f ms", ms(train), r, ms(inf))
	}
	// a spec sheet on disk, and the same GPU named: the same prediction
	dir := t.TempDir()
	spec := filepath.Join(dir, "h100.json")
	b, _ := os.ReadFile(filepath.Join(repoRoot, "datasets", "data", "neusight", "devices", "NVIDIA_H100_80GB_HBM3.json"))
	os.WriteFile(spec, b, 0o644)
	again, err := wb(t, "predict", "gpt3-2.7b", "--device-spec", spec, "--seq", "2048", "--batch", "8")
	if err != nil || ms(again) != ms(inf) {
		t.Errorf("spec sheet file: %v %s", err, again)
	}
	// the device table's H100 SXM: its 3.35 TB/s against the sheet's 3.43 changes little
	table, err := wb(t, "predict", "gpt3-2.7b", "--device-spec", "h100", "--seq", "2048", "--batch", "8")
	if err != nil || math.Abs(ms(table)/ms(inf)-1) > 0.05 {
		t.Errorf("device table's h100: %v %s", err, table)
	}
	// how far to trust it: an unmeasured chip gets the leave-one-GPU-out
	// range, a sibling of a measured GPU and a measured GPU say so
	lo, hi, worst, _ := gpu.LeaveOneOutRange(neusight.Inference)
	var t4 float64
	for _, e := range gpu.LeaveOneOut {
		if e.GPU == "Tesla_T4" && e.Mode == neusight.Inference {
			t4 = e.MAE
		}
	}
	for gpuName, want := range map[string]string{
		"NVIDIA_H100_80GB_HBM3": fmt.Sprintf("predicted %.1f–%.1f%% off per iteration on average (worst label %.1f%%", lo, hi, worst),
		"NVIDIA_A100_80GB_PCIe": "learned from measurements of NVIDIA_A100-PCIE-40GB",
		"Tesla_T4":              fmt.Sprintf("learned from this GPU's own measurements. Left out of training, its own inference labels were predicted %.1f%% off", t4),
	} {
		out, err := wb(t, "predict", "gpt3-xl", "--device-spec", gpuName, "--seq", "512", "--batch", "1")
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("%s: want %q in:\n%s%v", gpuName, want, out, err)
		}
	}
}

// TestPredictParallel splits a training iteration over four GPUs: data
// parallel at four times the batch takes about as long as one GPU at the
// batch, and a pipeline of one micro-batch as long as one GPU at all of it.
func TestPredictParallel(t *testing.T) {
	iter := func(args ...string) float64 {
		t.Helper()
		out, err := wb(t, append([]string{"predict", "gpt2-large", "--device-spec", "NVIDIA_A100-SXM4-40GB", "--mode", "train", "--seq", "1024"}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		i := strings.Index(out, "\niteration ")
		if i < 0 {
			t.Fatalf("no iteration in:\n%s", out)
		}
		v, _ := strconv.ParseFloat(strings.Fields(out[i+len("\niteration "):])[0], 64)
		return v
	}
	one := iter("--batch", "1", "--parallel", "dp1")
	dp := iter("--batch", "4", "--parallel", "dp4")
	pp := iter("--batch", "4", "--parallel", "pp4_1")
	whole := iter("--batch", "4", "--parallel", "dp1")
	hf := iter("--batch", "4")
	// dp4: one GPU's batch of 1 and the all-reduce of 3.1 GB of gradients
	// over NVLink, about 19 ms
	if d := dp - one; d < 15 || d > 25 {
		t.Errorf("dp4 at global batch 4: %.1f ms, one GPU at batch 1 %.1f ms", dp, one)
	}
	// a pipeline of one micro-batch: one GPU's work in turn, a quarter of
	// Adam's on each
	if r := pp / whole; r < 0.95 || r > 1.05 {
		t.Errorf("pp4_1 at batch 4: %.1f ms, one GPU at batch 4 %.1f ms", pp, whole)
	}
	// Megatron-LM's GPT on one GPU against Hugging Face's eager GPT-2 (no
	// optimizer, more kernels): near each other
	if r := whole / hf; r < 0.85 || r > 1.15 {
		t.Errorf("Megatron-LM on one GPU %.1f ms, Hugging Face %.1f ms", whole, hf)
	}
	// a slow link shows; past one node the gradients cross at the bus
	// bandwidth given
	if slow := iter("--batch", "4", "--parallel", "dp4", "--allreduce-gbps", "1"); !(slow > dp+1000) {
		t.Errorf("dp4 at 1 GB/s: %.1f ms, over NVLink %.1f ms", slow, dp)
	}
	if two := iter("--batch", "16", "--parallel", "dp16", "--allreduce-gbps", "25"); !(two > dp) {
		t.Errorf("dp16 at 25 GB/s: %.1f ms, dp4 over NVLink %.1f ms", two, dp)
	}
	out, err := wb(t, "predict", "gpt2-large", "--device-spec", "NVIDIA_A100-SXM4-40GB", "--mode", "train", "--seq", "1024", "--batch", "8", "--parallel", "tp2-pp2_2", "--json")
	if err != nil || !strings.Contains(out, `"tp": 2`) || !strings.Contains(out, `"tensor_parallel_allreduce_s"`) ||
		!strings.Contains(out, `"mode": "train"`) || !strings.Contains(out, `"model_type": "gpt2"`) || !strings.Contains(out, `"iteration_s": `) {
		t.Errorf("--json: %v\n%s", err, out)
	}
	// a GPU's memory with Adam under the name one GPU's training run gives
	// it (memory_per_gpu before: a script reading both read two names)
	var mem struct {
		M struct {
			Adam float64 `json:"adam_moments_bytes"`
			Need float64 `json:"need_at_least_bytes"`
		} `json:"memory_with_adam"`
	}
	if i := strings.Index(out, "{"); i < 0 || json.Unmarshal([]byte(out[i:]), &mem) != nil || !(mem.M.Adam > 0) || !(mem.M.Need > mem.M.Adam) {
		t.Errorf("--parallel --json memory_with_adam %+v", mem)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--batch", "4", "--parallel", "dp4", "--mode", "inf"}, "--parallel splits a training iteration: add --mode train"},
		{[]string{"--batch", "4", "--parallel", "dq4"}, "--parallel: parallel \"dq4\""},
		{[]string{"--batch", "6", "--parallel", "dp4"}, "global batch 6 does not split into 4 data-parallel replicas"},
		{[]string{"--batch", "4", "--interconnect", "pcie"}, "with --device-spec they need --parallel"},
		{[]string{"--batch", "64", "--parallel", "dp16"}, "16 GPUs span more than one node of 8: give the all-reduce bus bandwidth"},
		// a degree no node holds is said first, not the bandwidth its GPUs would need
		{[]string{"--batch", "16", "--parallel", "tp16"}, "tensor parallelism over 16 GPUs: more than one node's 8"},
		{[]string{"--batch", "4", "--parallel", "dp4", "--allreduce-gbps", "0"}, "--allreduce-gbps 0"},
		{[]string{"--batch", "4", "--parallel", "dp4", "--allreduce-gbps", "1e-300"}, "from 0.01 to 100000"},
		{[]string{"--batch", "4", "--parallel", "dp4", "--allreduce-gbps", "-1"}, "--allreduce-gbps -1"},
		// a split the model's layers do not take is said before what a
		// link across nodes would need
		{[]string{"--batch", "4", "--parallel", "pp37_4"}, "36 layers do not split into 37 pipeline stages (stages that divide them: 2, 3, 4, 6, 9, 12, 18, 36)"},
	} {
		args := append([]string{"predict", "gpt2-large", "--device-spec", "NVIDIA_A100-SXM4-40GB", "--seq", "1024", "--mode", "train"}, c.args...)
		if _, err := wb(t, args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
	}
	// a bus bandwidth that times nothing (one node, one replica) is said
	// to be unused, not printed as the all-reduce's
	out, err = wb(t, "predict", "gpt2-large", "--device-spec", "NVIDIA_A100-SXM4-40GB", "--mode", "train", "--seq", "1024", "--batch", "4", "--parallel", "tp2", "--allreduce-gbps", "1")
	if err != nil || !strings.Contains(out, "note: --allreduce-gbps unused: tp2 on one node has no data-parallel all-reduce") || strings.Contains(out, "the gradients' all-reduce at") {
		t.Errorf("tp2 at 1 GB/s: %v\n%s", err, out)
	}
	// GPT-3 XL's 2.9 B weights, their gradients and Adam's moments are
	// 43 GB on every GPU of a data-parallel group: a 40 GB A100 is warned
	// of, a tensor-parallel split is not
	out, err = wb(t, "predict", "gpt3-xl", "--device-spec", "NVIDIA_A100-SXM4-40GB", "--mode", "train", "--seq", "2048", "--batch", "4", "--parallel", "dp4")
	if err != nil || !strings.Contains(out, "Adam's two moments 21.5 GiB") || !strings.Contains(out, "as Megatron-LM runs it by default") {
		t.Errorf("dp4 memory warning: %v %q", err, out)
	}
	if out, err := wb(t, "predict", "gpt3-xl", "--device-spec", "NVIDIA_A100-SXM4-40GB", "--mode", "train", "--seq", "2048", "--batch", "4", "--parallel", "tp4"); err != nil || strings.Contains(out, "warning") {
		t.Errorf("tp4 warned: %v %q", err, out)
	}
	if _, err := wb(t, "predict", "bert-large", "--device-spec", "Tesla_T4", "--mode", "train", "--batch", "4", "--parallel", "dp4"); err == nil ||
		!strings.Contains(err.Error(), "from GPT-2 configs") {
		t.Errorf("bert: %v", err)
	}
}

// A spec sheet file with other tools' fields is read, the fields named as
// ignored; one without a field the op model needs is refused, naming it; a
// folder named as a bundled sheet (a labels folder) is not taken for one.
func TestPredictSpecSheetFields(t *testing.T) {
	bundled, err := neusight.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("WB_DATA", filepath.Dir(bundled)) // the bundled data, from the folder the test moves to
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "Tesla_T4"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	if s, err := gpuSpec("Tesla_T4", nil); err != nil || s.Name != "Tesla T4" {
		t.Errorf("--device-spec Tesla_T4 beside a folder of that name: %+v %v", s, err)
	}
	sheet := `{"Device":"X","Dev_Mem":16,"Mem_Bw":900,"Num_Sm":80,"Core_Per_SM":64,"Freq":1370,"SingleFLOPs":14029,"L2Cache":6`
	extra, missing := filepath.Join(dir, "extra.json"), filepath.Join(dir, "missing.json")
	if err := os.WriteFile(extra, []byte(sheet+`,"TDP":250}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(missing, []byte(strings.Replace(sheet, `"Freq":1370,`, "", 1)+`,"Clock":1370}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := wb(t, "predict", "bert-large", "--device-spec", extra)
	if err != nil || !strings.Contains(out, "TDP ignored (not a field of NeuSight's spec sheets)") || !strings.Contains(out, "iteration") {
		t.Errorf("a sheet with TDP: %v\n%s", err, out)
	}
	if _, err := wb(t, "predict", "bert-large", "--device-spec", missing); err == nil || !strings.Contains(err.Error(), "no Freq (") || !strings.Contains(err.Error(), "it has Clock, which wb does not read") {
		t.Errorf("a sheet without Freq: %v", err)
	}
}

func TestPredictGPUErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"predict", "gpt3-2.7b", "--device-spec", "NVIDIA_B200"}, "no such file, bundled spec sheet (NVIDIA_A100-PCIE-40GB, NVIDIA_A100-SXM4-40GB, NVIDIA_A100_80GB_PCIe, NVIDIA_H100_80GB_HBM3, NVIDIA_H200"},
		{[]string{"predict", "gpt3-2.7b", "--device-spec", "rtx4090"}, "for another GPU write its sheet as JSON, e.g. {\"Device\":\"Tesla T4\",\"Dev_Mem\":15,"},
		{[]string{"predict", "gpt9", "--device-spec", "Tesla_T4"}, `no Hugging Face config for "gpt9"`},
		{[]string{"predict", "bert-large", "--device-spec", "Tesla_T4", "--mode", "eval"}, `--mode "eval": want inf`},
		{[]string{"predict", "bert-large", "--device-spec", "Tesla_T4", "--seq", "4096"}, "is longer than its 512 positions"},
		{[]string{"predict", "bert-large", "--device-spec", "Tesla_T4", "--batch", "16777216"}, "--batch 16777216: the GPU op model takes 1 to 1048576"},
		{[]string{"predict", "--model-config", "x.json"}, "x.json: no such file"},
		{[]string{"predict", "--model-config", "datasets/data/neusight/models/llama2_7b.json", "--device", "v100"}, "a dnn graph of llama is not built yet"},
		{[]string{"predict", "bert-large", "--device-spec", "datasets/data/neusight"}, "--device-spec datasets/data/neusight: a folder; want a spec sheet"},
		{[]string{"predict", "--validate", "neusight", "/nonexistent"}, "/nonexistent: no such folder"},
		{[]string{"predict", "--validate", "neusight", "datasets/data/neusight/README.md"}, "README.md: not a folder"},
		{[]string{"predict", "--validate", "paleo"}, `unknown validation "paleo" (known: gavel, neusight)`},
	} {
		_, err := wb(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
	}
}

// A folder with spec sheets and no label read is an error, not an empty
// table: it names what it wants, and the first label it could not read.
func TestValidateNeuSightNoLabels(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "devices"), 0o755)
	os.MkdirAll(filepath.Join(dir, "labels", "NVIDIA_L4"), 0o755)
	sheet, err := os.ReadFile(filepath.Join(repoRoot, "datasets", "data", "neusight", "devices", "NVIDIA_L4.json"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "devices", "NVIDIA_L4.json"), sheet, 0o644)
	if _, err := wb(t, "predict", "--validate", "neusight", dir); err == nil || !strings.Contains(err.Error(), "no labels to predict (want labels/<GPU>/") {
		t.Errorf("no labels: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "labels", "NVIDIA_L4", "gpt2-large-infer-1024-4.json"), []byte(`{"e2e_latency": 1}`), 0o644)
	if _, err := wb(t, "predict", "--validate", "neusight", dir); err == nil || !strings.Contains(err.Error(), `1 label files not read, the first: labels/NVIDIA_L4: label "gpt2-large-infer-1024-4.json": mode "large"`) {
		t.Errorf("no label read: %v", err)
	}
}

// A Hugging Face config through the analytical (Paleo) path.
func TestPredictModelConfigPaleo(t *testing.T) {
	out, err := wb(t, "predict", "--model-config", "datasets/data/neusight/models/bert_large.json", "--device", "v100", "--seq", "128", "--batch", "8")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "bert_large on 1 × NVIDIA V100 SXM2 32 GB, sequence 128, batch 8") || !strings.Contains(out, "iteration") {
		t.Errorf("output:\n%s", out)
	}
	// the bundled models' zoo names reach the analytical path too
	out, err = wb(t, "predict", "gpt3-2.7b", "--device", "a100-80", "--seq", "2048", "--batch", "2")
	if err != nil || !strings.Contains(out, "gpt3_27 on 1 × NVIDIA A100 SXM4 80 GB") {
		t.Errorf("gpt3-2.7b: %v\n%s", err, out)
	}
	if _, err := wb(t, "predict", "resnet51"); err == nil || !strings.Contains(err.Error(), `unknown model "resnet51"`) {
		t.Errorf("unknown model: %v", err)
	}
}

// --validate neusight on a folder of one GPU wb has no op of: predicted
// from the spec sheet with the shipped model, written to predictions.csv.
func TestValidateNeuSightUnseen(t *testing.T) {
	src := filepath.Join(repoRoot, "datasets", "data", "neusight")
	dir := unseenFolder(t, "labels/NVIDIA_H100_80GB_HBM3")
	// made-up measurements: the test checks the prediction's bookkeeping only
	os.WriteFile(filepath.Join(dir, "labels", "NVIDIA_H100_80GB_HBM3", "myopt-inf-2048-2.json"), []byte(`{"num_layer":24,"e2e_latency":300,"fw_latency":300,"bwall_latency":0}`), 0o644)
	os.WriteFile(filepath.Join(dir, "labels", "NVIDIA_H100_80GB_HBM3", "myopt-inf-2048-2-fusion.json"), []byte(`{"num_layer":24,"e2e_latency":250,"fw_latency":250,"bwall_latency":0}`), 0o644)
	// and three of its ops (made up too), which --ops scores and --out lists
	os.MkdirAll(filepath.Join(dir, "ops", "add"), 0o755)
	os.WriteFile(filepath.Join(dir, "ops", "add", "NVIDIA_H100_80GB_HBM3.csv"), []byte("OPName,Latency,B,H\nadd,0.03,4096,1024\nadd,0.5,65536,4096\nadd,0.02,8,8\n"), 0o644)
	out := filepath.Join(dir, "out")
	text, err := wb(t, "predict", "--validate", "neusight", dir, "--out", out, "--ops")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "ops of NVIDIA_H100_80GB_HBM3, a GPU of no training measurement") {
		t.Errorf("no op table for the H100:\n%s", text)
	}
	ops := readCSVFile(t, filepath.Join(out, "ops.csv.gz"))
	if len(ops) != 4 || strings.Join(ops[0], ",") != strings.Join(gpu.OpColumns, ",") {
		t.Fatalf("ops.csv.gz: %v", ops)
	}
	col := func(name string) int { return slices.Index(gpu.OpColumns, name) }
	for _, r := range ops[1:] {
		m, _ := strconv.ParseFloat(r[col("measured_ms")], 64)
		p, _ := strconv.ParseFloat(r[col("predicted_ms")], 64)
		e, _ := strconv.ParseFloat(r[col("error_pct")], 64)
		if r[col("gpu")] != "NVIDIA_H100_80GB_HBM3" || r[col("op")] != "add" || r[col("held")] != "unseen" || !(p > 0) || math.Abs(e-100*(p/m-1)) > 0.01+1e-4*math.Abs(e) {
			t.Errorf("ops.csv.gz row %v", r)
		}
	}
	if r := ops[2]; r[col("rows")]+"×"+r[col("width")] != "65536×4096" || r[col("kernel_bound")] != "true" || ops[3][col("kernel_bound")] != "false" {
		t.Errorf("ops.csv.gz: the 65536 × 4096 add %v, the 8 × 8 one %v", r, ops[3])
	}
	if !strings.Contains(text, "NVIDIA_H100_80GB_HBM3  inf                  unseen") || !strings.Contains(text, "inf (torch.compile)") || !strings.Contains(text, "2 labels predicted\n") {
		t.Errorf("output:\n%s", text)
	}
	// and where its sheet takes the model beyond the training GPUs'
	if !strings.Contains(text, "NVIDIA_H100_80GB_HBM3: its sheet lies outside the training GPUs' (their range in brackets) in SMs 132 (40–108)") {
		t.Errorf("no extrapolation line for the H100:\n%s", text)
	}
	rows := readCSVFile(t, filepath.Join(out, "predictions.csv"))
	if len(rows) != 3 || rows[1][0] != "NVIDIA_H100_80GB_HBM3" || rows[1][2] != "inf" || rows[1][5] != "300.0000" {
		t.Fatalf("predictions.csv: %v", rows)
	}
	if p, err := strconv.ParseFloat(rows[1][6], 64); err != nil || !(p > 0) {
		t.Errorf("predicted_ms %q", rows[1][6])
	}
	for _, f := range []string{"predicted-vs-measured", "error-per-model"} {
		for _, ext := range []string{".png", ".pdf", ".svg"} {
			if st, err := os.Stat(filepath.Join(out, "figures", f+ext)); err != nil || st.Size() == 0 {
				t.Errorf("figure %s%s: %v", f, ext, err)
			}
		}
	}
	// again without --ops, with more labels: the earlier run's ops are not
	// left to read as this one's; a label whose num_layer is not its
	// config's (a cut-down model timed) is predicted with its own layers
	// and said so; and a GPU with no sheet in the folder, which wb has one
	// of, takes wb's (TestTakeBundledSheets)
	sheet, _ := os.ReadFile(filepath.Join(src, "devices", "NVIDIA_H100_80GB_HBM3.json"))
	os.WriteFile(filepath.Join(dir, "devices", "H100_cut.json"), sheet, 0o644)
	os.MkdirAll(filepath.Join(dir, "labels", "H100_cut"), 0o755)
	os.WriteFile(filepath.Join(dir, "labels", "H100_cut", "myopt-inf-2048-2.json"), []byte(`{"num_layer":12,"e2e_latency":150}`), 0o644)
	os.MkdirAll(filepath.Join(dir, "labels", "NVIDIA_L4"), 0o755)
	os.WriteFile(filepath.Join(dir, "labels", "NVIDIA_L4", "myopt-inf-2048-2.json"), []byte(`{"num_layer":24,"e2e_latency":900}`), 0o644)
	text, err = wb(t, "predict", "--validate", "neusight", dir, "--out", out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "ops.csv.gz")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ops.csv.gz of the run before: %v", err)
	}
	if !strings.Contains(text, "labels/NVIDIA_L4: no devices/NVIDIA_L4.json in "+dir+": took wb's bundled sheet") || !strings.Contains(text, "4 labels predicted\n") {
		t.Errorf("the L4's labels, whose sheet is wb's:\n%s", text)
	}
	if !strings.Contains(text, "labels/H100_cut: myopt inf at 2048 × 2: num_layer 12, where models/myopt.json has 24: predicted with 12 layers") {
		t.Errorf("no note of the cut model:\n%s", text)
	}
	pred := map[string]float64{}
	for _, r := range readCSVFile(t, filepath.Join(out, "predictions.csv"))[1:] {
		if r[11] == "false" { // not the fused label
			pred[r[0]], _ = strconv.ParseFloat(r[6], 64)
		}
	}
	if r := pred["H100_cut"] / pred["NVIDIA_H100_80GB_HBM3"]; !(r > 0.45 && r < 0.55) {
		t.Errorf("12 layers %.1f ms, 24 layers %.1f ms: want about half", pred["H100_cut"], pred["NVIDIA_H100_80GB_HBM3"])
	}
	// a folder none of whose labels can be predicted fails
	none := filepath.Join(t.TempDir(), "none")
	os.MkdirAll(filepath.Join(none, "devices"), 0o755)
	os.WriteFile(filepath.Join(none, "devices", "NVIDIA_H100_80GB_HBM3.json"), sheet, 0o644)
	os.MkdirAll(filepath.Join(none, "labels", "NVIDIA_H100_80GB_HBM3"), 0o755)
	os.WriteFile(filepath.Join(none, "labels", "NVIDIA_H100_80GB_HBM3", "myopt-inf-2048-2-dp16.json"), []byte(`{"e2e_latency":300}`), 0o644)
	if _, err := wb(t, "predict", "--validate", "neusight", none); err == nil || !strings.Contains(err.Error(), "no label predicted") {
		t.Errorf("no label predicted: %v", err)
	}
}

// --validate neusight on a folder as another tool's may be: a sheet wb
// cannot read (an AMD GPU's fields) costs its own labels alone, a label
// folder named as torch names the GPU takes the sheet of that name, an
// unreadable label is counted, and an --out that cannot be a folder fails
// before any work.
func TestValidateNeuSightLenient(t *testing.T) {
	dir := unseenFolder(t, "labels/NVIDIA H100 80GB HBM3", "labels/AMD_Instinct_MI250")
	os.WriteFile(filepath.Join(dir, "devices", "AMD_Instinct_MI250.json"), []byte(`{"Device":"AMD Instinct MI250","Dev_Mem":128,"Mem_Bw":3277,"Num_Sm":208,"Core_Per_SM":64,"Freq":1700,"SingleFLOPsMM":90500,"SingleFLOPsVEC":45300,"L2Cache":16}`), 0o644)
	os.WriteFile(filepath.Join(dir, "labels", "NVIDIA H100 80GB HBM3", "myopt-inf-2048-2.json"), []byte(`{"e2e_latency":300}`), 0o644)
	os.WriteFile(filepath.Join(dir, "labels", "NVIDIA H100 80GB HBM3", "myopt-inf-2048-4.json"), []byte(`{"e2e_latency":null}`), 0o644)
	os.WriteFile(filepath.Join(dir, "labels", "AMD_Instinct_MI250", "myopt-inf-2048-2.json"), []byte(`{"e2e_latency":200}`), 0o644)
	if _, err := wb(t, "predict", "--validate", "neusight", dir, "--out", filepath.Join(dir, "models", "myopt.json")); err == nil || !strings.Contains(err.Error(), "--out") {
		t.Errorf("--out on a file: %v", err)
	}
	text, err := wb(t, "predict", "--validate", "neusight", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"NVIDIA H100 80GB HBM3  inf   unseen",
		"1 labels predicted; 1 skipped: spec sheet not read: ",
		"; 1 label files not read (listed below)",
		"not read: NVIDIA H100 80GB HBM3/myopt-inf-2048-4.json: no e2e_latency",
		"spec sheet not read: " + filepath.Join(dir, "devices", "AMD_Instinct_MI250.json"),
		"note: labels/NVIDIA H100 80GB HBM3: no devices/NVIDIA H100 80GB HBM3.json; took devices/NVIDIA_H100_80GB_HBM3.json",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
}

// TestTrust: what wb predict says of its own reliability follows what the
// shipped model learned from: a training GPU's chip at its clocks, the same
// chip at another clock, or a chip it never measured.
func TestTrust(t *testing.T) {
	m, err := gpu.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	bundled, err := neusight.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	trained := gpu.TrainedSpecs(bundled)
	if len(trained) != 5 {
		t.Fatalf("%d training GPUs' sheets read, want the five with labels", len(trained))
	}
	for arg, want := range map[string]string{
		"NVIDIA_A100_80GB_PCIe": "learned from measurements of NVIDIA_A100-PCIE-40GB, a GPU of this chip at these clocks. Left out of training, NVIDIA_A100-PCIE-40GB's inference labels were predicted ",
		"v100":                  "learned from measurements of Tesla_V100-PCIE-32GB, a GPU of this chip at another clock (1370 MHz against 1530 here: its products' corrections are carried over",
		// the H100 SXM's sheet: 132 SMs of 128 lanes at 1,980 MHz, 66.9
		// TFLOP/s, 3,430 GB/s, 50 MB of L2, beyond the training sheets'
		// 40–108 SMs of 64 lanes, 1,113–1,590 MHz, 5.7–19.5 TFLOP/s,
		// 192–1,555 GB/s and 2–40 MB
		"NVIDIA_H100_80GB_HBM3": "wb has no measurement of this GPU's chip",
		"NVIDIA_L4":             "fp32 FLOPs per byte of bandwidth 104 (",
	} {
		s, err := gpuSpec(arg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := trust(m, s, trained, neusight.Inference); !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q in it", arg, got, want)
		}
	}
	s, err := gpuSpec("NVIDIA_H100_80GB_HBM3", nil)
	if err != nil {
		t.Fatal(err)
	}
	out := gpu.Outside(s, trained)
	for _, want := range []string{"SMs 132 (40–108)", "fp32 lanes per SM 128 (64)", "clock 1980 MHz (", "fp32 peak 66.9 TFLOP/s (5.7–19.5)", "bandwidth 3430 GB/s (192–1555)", "L2 50 MB (2–40)"} {
		if !slices.ContainsFunc(out, func(o string) bool { return strings.HasPrefix(o, want) }) {
			t.Errorf("H100 outside the training sheets in %q, want %q among them", out, want)
		}
	}
	// the device table's V100 SXM2 lies within every range (its 1530 MHz
	// inside 1113–1590)
	if v, err := gpuSpec("v100", nil); err != nil || len(gpu.Outside(v, trained)) != 0 {
		t.Errorf("v100 outside the training sheets in %q (%v)", gpu.Outside(v, trained), err)
	}
	// training: the one GPU with training labels; a sibling of a training
	// GPU with more bandwidth than any is told that too
	tlo, _, tworst, _ := gpu.LeaveOneOutRange(neusight.Training)
	trainWords := fmt.Sprintf("the one GPU with measured training iterations was predicted %.1f%% off per iteration on average (worst label %.1f%%", tlo, tworst)
	for _, c := range []struct {
		arg  string
		mode neusight.Mode
		want string
	}{
		{"NVIDIA_H100_80GB_HBM3", neusight.Training, trainWords},
		{"NVIDIA_A100_80GB_PCIe", neusight.Inference, "bandwidth 1935 GB/s (192–1555)"},
		// a training GPU itself, training: the backward is derived, and
		// the training figure says how that went
		{"Tesla_T4", neusight.Training, "own measurements.\nIts backward kernels are derived from forward shapes (the ops were measured forward only). Left out of training, " + trainWords},
	} {
		s, err := gpuSpec(c.arg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := trust(m, s, trained, c.mode); !strings.Contains(got, c.want) {
			t.Errorf("%s, %s: %q, want %q in it", c.arg, c.mode, got, c.want)
		}
	}
}

// --validate neusight --probe-level on the H200's folder: its labels beside
// the level its own ops give, each part alone too; and --in-sample, the
// shipped model with the labels' networks in its calibration (the H200
// unseen still).
func TestValidateProbeLevel(t *testing.T) {
	text, err := wb(t, "predict", "--validate", "neusight", filepath.Join(repoRoot, "datasets", "data", "h200"), "--probe-level", "--in-sample")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"GPU            MODE   LABELS  SHEET ALONE  PROBED  MEAN ERROR  PRODUCTS' LEVEL ONLY  BANDWIDTH'S ONLY",
		"NVIDIA_H200    inf    10      6.5%         3.4%    -3.4%       3.5%                  6.4%",
		"NVIDIA_H200    train  7       3.1%         1.7%    +0.6%       1.7%                  3.0%",
		"mean of the 2",
		"NVIDIA_H200: products ×1.04 (3), bandwidth-bound ×1.01 (6)",
		"in sample (the shipped model",
		"NVIDIA_H200  inf    unseen (network calibrated)  10      6.5%",
		"NVIDIA_H200  train  unseen (network calibrated)  7       2.7%",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in:\n%s", want, text)
		}
	}
}

// The sheet's figures outside the training GPUs' are named for every GPU
// whose labels no model learned from: one never measured, and the A100
// 80GB, held out for its convolutions; not for a training GPU held out.
func TestPrintOutsideHeldOut(t *testing.T) {
	src := filepath.Join(repoRoot, "datasets", "data", "neusight")
	dir, err := neusight.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	label := func(g, held string) gpu.LabelPrediction {
		return gpu.LabelPrediction{Label: neusight.Label{GPU: g, Model: "bert_large", Mode: neusight.Inference, Seq: 512, Batch: 8, GPUs: 1, E2E: 10}, Predicted: 11, Held: held}
	}
	v := &gpu.Validation{Labels: []gpu.LabelPrediction{
		label("NVIDIA_A100_80GB_PCIe", "leave-one-gpu-out"),
		label("Tesla_V100-PCIE-32GB", "leave-one-gpu-out"),
		label("NVIDIA_L4", "unseen"),
	}}
	var b strings.Builder
	printOutside(&b, v, dir, gpu.TrainedSpecs(src))
	text := b.String()
	for _, want := range []string{"NVIDIA_A100_80GB_PCIe: its sheet lies outside the training GPUs' (their range in brackets) in bandwidth 1935 GB/s (192–1555)", "NVIDIA_L4: its sheet lies outside"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in:\n%s", want, text)
		}
	}
	if strings.Contains(text, "V100") {
		t.Errorf("a training GPU held out named:\n%s", text)
	}
}

// A single-GPU training iteration is NeuSight's (forward and backward, no
// optimizer): where it fits but a training run with Adam's moments would
// not, that is said, and --json carries both; a config whose feed-forward
// width Megatron-LM does not take is said to be built as Megatron's.
func TestPredictTrainingMemoryAdam(t *testing.T) {
	out, err := wb(t, "predict", "llama2-7b", "--device-spec", "NVIDIA_A100_80GB_PCIe", "--mode", "train", "--seq", "512", "--batch", "1")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"warning: llama2_7b on the NVIDIA A100 80GB PCIe: the iteration timed (forward and backward, as NeuSight timed its labels: no optimizer step) needs at least 53.4 GiB, which fits its 80.0 GiB; a training run with Adam holds its two moments too (50.2 GiB) and needs at least 103.6 GiB, which does not",
		"(forward and backward, as NeuSight timed its training labels: no optimizer step)"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	js, err := wb(t, "predict", "llama2-7b", "--device-spec", "NVIDIA_A100_80GB_PCIe", "--mode", "train", "--seq", "512", "--batch", "1", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Memory, MemoryAdam struct {
			Fits bool    `json:"fits"`
			Adam float64 `json:"adam_moments_bytes"`
		}
	}
	if i := strings.Index(js, "{"); i < 0 || json.Unmarshal([]byte(js[i:]), &struct {
		Memory     any `json:"memory"`
		MemoryAdam any `json:"memory_with_adam"`
	}{&v.Memory, &v.MemoryAdam}) != nil || !v.Memory.Fits || v.MemoryAdam.Fits || v.MemoryAdam.Adam != 8*6738415616 {
		t.Errorf("--json memory %+v:\n%s", v, js)
	}
	// inference holds no optimizer: nothing said
	if out, err := wb(t, "predict", "llama2-7b", "--device-spec", "NVIDIA_A100_80GB_PCIe", "--seq", "512", "--batch", "1"); err != nil || strings.Contains(out, "Adam") {
		t.Errorf("inference: %v\n%s", err, out)
	}
	cfg := filepath.Join(t.TempDir(), "g.json")
	b, _ := os.ReadFile(filepath.Join(repoRoot, "datasets", "data", "neusight", "models", "gpt2_large.json"))
	var m map[string]any
	json.Unmarshal(b, &m)
	m["n_inner"] = 2560
	b, _ = json.Marshal(m)
	os.WriteFile(cfg, b, 0o644)
	if out, err := wb(t, "predict", "--model-config", cfg, "--device-spec", "NVIDIA_A100-SXM4-40GB", "--parallel", "dp4", "--mode", "train", "--seq", "1024", "--batch", "4"); err != nil ||
		!strings.Contains(out, "has a feed-forward width of 4 × 1280 (this config: 2560)") {
		t.Errorf("Megatron's feed-forward width: %v\n%s", err, out)
	}
}

// readCSVFile reads a CSV file whole, gunzipped where its name ends .gz.
func readCSVFile(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		if r, err = gzip.NewReader(f); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := csv.NewReader(r).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestPredictJSONSharedNames checks that the three --json forms of wb
// predict (the analytical path, a spec sheet's, a split over GPUs) name
// what they share alike, so one script reads them all.
func TestPredictJSONSharedNames(t *testing.T) {
	shared := []string{"model", "device", "device_name", "seq", "batch", "batch_in_all", "gpus", "precision", "iteration_s", "timed_by"}
	for _, args := range [][]string{
		{"predict", "bert-large", "--device", "v100", "--seq", "128", "--batch", "8", "--json"},
		{"predict", "bert-large", "--device-spec", "NVIDIA_L4", "--seq", "128", "--batch", "2", "--precision", "fp32", "--json"},
		{"predict", "gpt2-large", "--device-spec", "NVIDIA_A100-SXM4-40GB", "--mode", "train", "--seq", "128", "--batch", "4", "--parallel", "dp2", "--json"},
	} {
		out, err := wb(t, args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		for _, k := range shared {
			if _, ok := m[k]; !ok {
				t.Errorf("%v: no %q in %v", args, k, slices.Sorted(maps.Keys(m)))
			}
		}
		if it, _ := m["iteration_s"].(float64); !(it > 0) {
			t.Errorf("%v: iteration_s %v", args, m["iteration_s"])
		}
		if m["model"] == "bert_large.json" {
			t.Errorf("%v: model named with its file's extension", args)
		}
	}
}

// TestPrintLeveledNoProbe: a GPU of no op measurement has no probe, and
// is said to have none (it printed ×1.00 (0)).
func TestPrintLeveledNoProbe(t *testing.T) {
	empty := &gpu.Validation{}
	lv := &gpu.Leveled{Sheet: empty, Both: empty, Products: empty, Bandwidth: empty,
		Levels: []gpu.GPULevel{{GPU: "A"}, {GPU: "B", Level: gpu.Level{Products: math.Log(1.25)}, N: [2]int{3, 0}}}}
	var b strings.Builder
	if err := printLeveled(&b, lv); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"A: products none measured (the sheet's level), bandwidth-bound none measured", "B: products ×1.25 (3), bandwidth-bound none measured",
		"no probe on A (no op measurement"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "no probe on A, B") {
		t.Errorf("B has a probe:\n%s", b.String())
	}
}

// TestPredictParallelUntied: a GPT-2 config whose output layer is not tied
// is split as the tied model Megatron-LM builds from it, which the note
// and the header's parameters say (the note listed the feed-forward width
// too, and the header counted the untied config's).
func TestPredictParallelUntied(t *testing.T) {
	dir := t.TempDir()
	cfg := `{"model_type": "gpt2", "n_embd": 768, "n_head": 12, "n_layer": 12, "n_positions": 1024, "vocab_size": 50257, "tie_word_embeddings": %v}`
	head := func(tied bool) (string, error) {
		p := filepath.Join(dir, fmt.Sprintf("m-%v.json", tied))
		os.WriteFile(p, fmt.Appendf(nil, cfg, tied), 0o644)
		return wb(t, "predict", "--model-config", p, "--device-spec", "NVIDIA_A100-SXM4-40GB", "--mode", "train", "--seq", "1024", "--batch", "8", "--parallel", "dp2")
	}
	untied, err := head(false)
	if err != nil {
		t.Fatal(err)
	}
	tied, err := head(true)
	if err != nil {
		t.Fatal(err)
	}
	params := regexp.MustCompile(`\(([0-9.]+) B parameters\)`)
	if a, b := params.FindStringSubmatch(untied), params.FindStringSubmatch(tied); a == nil || b == nil || a[1] != b[1] || a[1] != "0.124" {
		t.Errorf("parameters untied %q, tied %q: want Megatron's tied 0.124 B both", a, b)
	}
	if !strings.Contains(untied, "has an output layer tied to the embedding (this config's is not);") || strings.Contains(untied, "feed-forward") {
		t.Errorf("note:\n%s", untied)
	}
}

// TestDeviceSpecBoardName: a bundled sheet is named by its file's stem or
// by the board's name as CUDA reports it, alike.
func TestDeviceSpecBoardName(t *testing.T) {
	a, err := wb(t, "predict", "bert-large", "--device-spec", "NVIDIA H100 80GB HBM3", "--seq", "128", "--batch", "2")
	if err != nil {
		t.Fatal(err)
	}
	b, err := wb(t, "predict", "bert-large", "--device-spec", "NVIDIA_H100_80GB_HBM3", "--seq", "128", "--batch", "2")
	if err != nil || a != b {
		t.Errorf("by the board's name:\n%s\nby the sheet's:\n%s (%v)", a, b, err)
	}
}

// TestPredictParallelAssumedLink: a sheet of a board wb's device table
// does not know is split over PCIe 4.0, and said so.
func TestPredictParallelAssumedLink(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "datasets", "data", "neusight", "devices", "NVIDIA_H100_80GB_HBM3.json"))
	if err != nil {
		t.Fatal(err)
	}
	sheet := filepath.Join(t.TempDir(), "mine.json")
	os.WriteFile(sheet, []byte(strings.Replace(string(b), "NVIDIA H100 80GB HBM3", "My GPU", 1)), 0o644)
	out, err := wb(t, "predict", "gpt2-large", "--device-spec", sheet, "--mode", "train", "--seq", "1024", "--batch", "8", "--parallel", "tp4")
	if err != nil || !strings.Contains(out, "note: My GPU is not in wb's device table") || !strings.Contains(out, "over PCIe 4.0 x16") {
		t.Errorf("%v\n%s", err, out)
	}
	if out, err := wb(t, "predict", "gpt2-large", "--device-spec", "NVIDIA_A100-SXM4-40GB", "--mode", "train", "--seq", "1024", "--batch", "8", "--parallel", "tp4"); err != nil || strings.Contains(out, "not in wb's device table") {
		t.Errorf("a board of the table: %v\n%s", err, out)
	}
}

// TestTakeBundledSheets: a label folder with no sheet in its folder takes
// wb's bundled sheet of its name, and a training GPU's folder spelt as CUDA
// names the board is named as that GPU, so that its labels are still
// predicted by the model trained without it (they were once by the model
// that learned from them, as a GPU of its chip).
func TestTakeBundledSheets(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "devices"), 0o755)
	b, _ := os.ReadFile(filepath.Join(repoRoot, "datasets", "data", "neusight", "devices", "NVIDIA_L4.json"))
	os.WriteFile(filepath.Join(dir, "devices", "NVIDIA_L4.json"), b, 0o644)
	for _, g := range []string{"Tesla V100-PCIE-32GB", "NVIDIA_H100_80GB_HBM3", "Unknown_GPU"} {
		os.MkdirAll(filepath.Join(dir, "labels", g), 0o755)
		os.WriteFile(filepath.Join(dir, "labels", g, "bert_large-inf-512-8.json"), []byte(`{"e2e_latency":100}`), 0o644)
	}
	d, err := neusight.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := takeBundledSheets(d); err != nil {
		t.Fatal(err)
	}
	if _, ok := d.Devices["Tesla V100-PCIE-32GB"]; !ok || d.Sheet("Tesla V100-PCIE-32GB") != "Tesla_V100-PCIE-32GB" {
		t.Errorf("the V100's folder: sheet %q, devices %v", d.Sheet("Tesla V100-PCIE-32GB"), slices.Sorted(maps.Keys(d.Devices)))
	}
	if _, ok := d.Devices["NVIDIA_H100_80GB_HBM3"]; !ok {
		t.Error("the H100's folder took no sheet")
	}
	if _, ok := d.Devices["Unknown_GPU"]; ok {
		t.Error("a GPU wb has no sheet of took one")
	}
	if n := len(d.Notes); n < 2 {
		t.Errorf("notes %q: want one a sheet taken", d.Notes)
	}
}

// TestPredictJSONNotes: --json carries the notes the terminal gets on
// stderr.
func TestPredictJSONNotes(t *testing.T) {
	out, err := wb(t, "predict", "llama2-7b", "--device-spec", "NVIDIA_L4", "--seq", "1", "--batch", "1", "--json")
	if err != nil {
		t.Fatal(err)
	}
	// stderr's notes and the JSON share the output here
	var v struct {
		Notes []string `json:"notes"`
	}
	if err := json.NewDecoder(strings.NewReader(out[strings.Index(out, "{"):])).Decode(&v); err != nil {
		t.Fatal(err)
	}
	has := func(s string) bool {
		return slices.ContainsFunc(v.Notes, func(n string) bool { return strings.Contains(n, s) })
	}
	// decoding's, and the memory warning (25.1 GiB of weights on 24 GiB)
	if !has("treat this figure as an upper bound") || !has("warning: llama2_7b on the NVIDIA L4 needs at least") {
		t.Errorf("notes %q", v.Notes)
	}
	// and the sheet's
	sheet := filepath.Join(t.TempDir(), "x.json")
	os.WriteFile(sheet, []byte(`{"Device":"X","Dev_Mem":24,"Mem_Bw":900,"Num_Sm":80,"Core_Per_SM":64,"Freq":1380,"SingleFLOPs":14131,"L2Cache":6,"TDP":300}`), 0o644)
	if out, err = wb(t, "predict", "gpt2-large", "--device-spec", sheet, "--seq", "128", "--batch", "1", "--json"); err != nil {
		t.Fatal(err)
	}
	v.Notes = nil
	if err := json.NewDecoder(strings.NewReader(out[strings.Index(out, "{"):])).Decode(&v); err != nil || !has(sheet+": TDP ignored") {
		t.Errorf("notes %q (%v)", v.Notes, err)
	}
}

// TestDeviceSpecTableNote: a GPU of the device table whose figures its
// bundled spec sheet gives otherwise is predicted from the table's, and
// said so (the L4: 58 SMs in the table, 60 on NeuSight's sheet).
func TestDeviceSpecTableNote(t *testing.T) {
	out, err := wb(t, "predict", "bert-large", "--device-spec", "l4", "--seq", "128", "--batch", "2")
	if err != nil || !strings.Contains(out, "note: l4 is wb's device table's NVIDIA L4 24 GB, whose figures this prediction takes: SMs 58 (the sheet's 60)") || !strings.Contains(out, "--device-spec NVIDIA_L4 takes the bundled spec sheet's figures") {
		t.Errorf("%v\n%s", err, out)
	}
	if out, err := wb(t, "predict", "bert-large", "--device-spec", "NVIDIA_L4", "--seq", "128", "--batch", "2"); err != nil || strings.Contains(out, "device table's") {
		t.Errorf("the sheet itself: %v\n%s", err, out)
	}
}

// TestPredictConfigFolderName: a model given as its folder's config.json
// is named by its folder, on the analytical path, the GPU op model's and
// its split's, in the text and in --json (they said "config" and
// "config.json").
func TestPredictConfigFolderName(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoRoot, "datasets", "data", "neusight", "models", "gpt2_large.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "GPT2-Large")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "config.json")
	if err := os.WriteFile(cfg, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		text string // the first line's start, without --json
	}{
		{[]string{"predict", "--model-config", cfg, "--device", "v100", "--seq", "128", "--batch", "2"}, "GPT2-Large on 1 × "},
		{[]string{"predict", "--model-config", dir, "--device-spec", "NVIDIA_L4", "--seq", "128", "--batch", "2"}, "GPT2-Large/config.json (gpt2, "},
		{[]string{"predict", "--model-config", cfg, "--device-spec", "NVIDIA_L4", "--mode", "train", "--seq", "128", "--batch", "2", "--parallel", "dp2"}, "GPT2-Large (0.774 B parameters) on 2 × "},
	} {
		out, err := wb(t, c.args...)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if !strings.HasPrefix(out, c.text) && !strings.Contains(out, "\n"+c.text) {
			t.Errorf("%v: no line starting %q:\n%s", c.args, c.text, out)
		}
		out, err = wb(t, append(c.args, "--json")...)
		if err != nil {
			t.Fatalf("%v --json: %v", c.args, err)
		}
		var m struct{ Model string }
		if err := json.Unmarshal([]byte(out), &m); err != nil || m.Model != "GPT2-Large" {
			t.Errorf("%v --json: model %q, %v", c.args, m.Model, err)
		}
	}
}

// TestValidateOutOwnFiles: wb predict --validate neusight --out rewrites
// and removes only the files it wrote there (.wb-out.json lists them with
// their hashes): a folder holding a file of its names it did not write (a
// user's ops.csv.gz or predictions.csv, a figure of theirs in figures/),
// or one of its own changed since, is refused and left as it is; its own
// earlier results, and those of a wb that wrote no list (recognised by
// their content), are rewritten.
func TestValidateOutOwnFiles(t *testing.T) {
	dir := unseenFolder(t, "labels/NVIDIA_H100_80GB_HBM3", "ops/add")
	// made-up measurements: the test checks which files are written
	os.WriteFile(filepath.Join(dir, "labels", "NVIDIA_H100_80GB_HBM3", "myopt-inf-2048-2.json"), []byte(`{"num_layer":24,"e2e_latency":300}`), 0o644)
	os.WriteFile(filepath.Join(dir, "ops", "add", "NVIDIA_H100_80GB_HBM3.csv"), []byte("OPName,Latency,B,H\nadd,0.03,4096,1024\n"), 0o644)
	validate := func(out string, args ...string) error {
		_, err := wb(t, append([]string{"predict", "--validate", "neusight", dir, "--out", out}, args...)...)
		return err
	}
	write := func(p, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(p string) string { b, _ := os.ReadFile(p); return string(b) }
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }

	// its own results, written and rewritten; ops.csv.gz removed when not
	// scored
	out := filepath.Join(t.TempDir(), "out")
	if err := validate(out, "--ops"); err != nil {
		t.Fatal(err)
	}
	if !exists(filepath.Join(out, outMarker)) || !exists(filepath.Join(out, "ops.csv.gz")) || !exists(filepath.Join(out, "figures", "error-per-model.svg")) {
		t.Fatalf("the first run's files: %v", dirFiles(out))
	}
	if err := validate(out, "--ops"); err != nil {
		t.Errorf("its own earlier results: %v", err)
	}
	if err := validate(out); err != nil || exists(filepath.Join(out, "ops.csv.gz")) {
		t.Errorf("rerun without --ops: %v; ops.csv.gz left: %v", err, exists(filepath.Join(out, "ops.csv.gz")))
	}

	// files of its names that are not its own: refused, left as they are
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"a user's ops.csv.gz and figure", map[string]string{"ops.csv.gz": "mine\n", "figures/fig1.png": "x\n"}, "(figures/fig1.png, ops.csv.gz)"},
		{"a user's predictions.csv", map[string]string{"predictions.csv": "my,own\n1,2\n"}, "(predictions.csv)"},
		{"a figure of its name that is no figure", map[string]string{"figures/error-per-model.png": "not a PNG"}, "(figures/error-per-model.png)"},
	} {
		o := filepath.Join(t.TempDir(), "o")
		for f, content := range c.files {
			write(filepath.Join(o, f), content)
		}
		err := validate(o)
		if err == nil || !strings.Contains(err.Error(), "holds files wb predict --validate neusight did not write "+c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		for f, content := range c.files {
			if read(filepath.Join(o, f)) != content {
				t.Errorf("%s: %s changed or removed", c.name, f)
			}
		}
		if exists(filepath.Join(o, outMarker)) {
			t.Errorf("%s: %s written into a refused folder", c.name, outMarker)
		}
	}

	// its own results, changed since or beside another's file: refused
	pred := filepath.Join(out, "predictions.csv")
	mine := read(pred) + "my note\n"
	write(pred, mine)
	if err := validate(out); err == nil || !strings.Contains(err.Error(), "did not write (predictions.csv)") || read(pred) != mine {
		t.Errorf("its predictions.csv edited: %v", err)
	}
	write(pred, strings.TrimSuffix(mine, "my note\n"))
	fig := filepath.Join(out, "figures", "fig1.png")
	write(fig, "x\n")
	if err := validate(out); err == nil || !strings.Contains(err.Error(), "did not write (figures/fig1.png)") || read(fig) != "x\n" {
		t.Errorf("a user's figure in its figures/: %v", err)
	}
	os.Remove(fig)
	if err := validate(out, "--ops"); err != nil {
		t.Fatalf("its own results again: %v", err)
	}

	// a wb that wrote no list: its files are recognised by their content,
	// and listed once rewritten
	if err := os.Remove(filepath.Join(out, outMarker)); err != nil {
		t.Fatal(err)
	}
	if err := validate(out); err != nil {
		t.Errorf("an earlier wb's results: %v", err)
	}
	if m, err := readOutMarker(out); err != nil || m == nil || m.Files["predictions.csv"] == "" || m.Files["figures/error-per-model.png"] == "" {
		t.Errorf("the list after an earlier wb's results: %+v, %v", m, err)
	}

	// another command's results
	ev := t.TempDir()
	write(filepath.Join(ev, outMarker), `{"command": "wb evaluate", "files": {}}`)
	if err := validate(ev); err == nil || !strings.Contains(err.Error(), "holds the results of wb evaluate") {
		t.Errorf("wb evaluate's results: %v", err)
	}
}

// TestOutFilesRemoveOwnOnly: a file the command is to replace or remove
// that it did not write, put there after the folder was claimed, is left
// as it is.
func TestOutFilesRemoveOwnOnly(t *testing.T) {
	dir := t.TempDir()
	outs, err := outFolder(dir, validateOut)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "ops.csv.gz")
	if err := os.WriteFile(p, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := outs.remove("ops.csv.gz"); err == nil || !strings.Contains(err.Error(), "not what wb predict --validate neusight wrote there") {
		t.Errorf("remove: %v", err)
	}
	if err := outs.claim("ops.csv.gz"); err == nil {
		t.Error("claim: no error")
	}
	if b, _ := os.ReadFile(p); string(b) != "mine\n" {
		t.Errorf("ops.csv.gz: %q", b)
	}
	// once written by the command, it is its own
	if err := outs.wrote("ops.csv.gz"); err != nil {
		t.Fatal(err)
	}
	if err := outs.remove("ops.csv.gz"); err != nil {
		t.Errorf("its own: %v", err)
	}
	if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("its own ops.csv.gz left: %v", err)
	}
}

// TestOutFilesInterrupted: a run stopped after replacing a file and before
// recording it (an interrupt, a full disk on the next file) leaves a folder
// the next run takes as its own, not one it refuses as another's; a file
// of another name is still refused, and once a run has finished a file
// changed since is not its own.
func TestOutFilesInterrupted(t *testing.T) {
	dir := t.TempDir()
	if _, err := outFolder(dir, validateOut); err != nil {
		t.Fatal(err)
	}
	// written, not recorded: the run ends here
	if err := os.WriteFile(filepath.Join(dir, "predictions.csv"), []byte("gpu,model,mode,seq,batch,measured_ms,predicted_ms,x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outs, err := outFolder(dir, validateOut)
	if err != nil {
		t.Fatalf("the next run: %v", err)
	}
	if err := outs.wrote("predictions.csv"); err != nil {
		t.Fatal(err)
	}
	if err := outs.done(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "predictions.csv"), []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := outFolder(dir, validateOut); err == nil || !strings.Contains(err.Error(), "did not write (predictions.csv)") {
		t.Errorf("a file changed after a finished run: %v", err)
	}
	os.Remove(filepath.Join(dir, "predictions.csv"))
	if _, err := outFolder(dir, validateOut); err != nil { // (writing again)
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := outFolder(dir, validateOut); err == nil || !strings.Contains(err.Error(), "notes.txt") {
		t.Errorf("a file of another name after an interrupted run: %v", err)
	}
}

// dirFiles lists the files under dir, for a test's message.
func dirFiles(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// unseenFolder is a folder in NeuSight's layout of the H100's sheet and
// OPT-1.3B's config as myopt, a name no bundled label has (no label of it
// calibrates the model, which leaving it out then leaves as shipped: no
// training), and the further folders named (labels/GPU, ops/OP).
func unseenFolder(t *testing.T, folders ...string) string {
	t.Helper()
	src := filepath.Join(repoRoot, "datasets", "data", "neusight")
	dir := t.TempDir()
	for _, p := range append([]string{"devices", "models"}, folders...) {
		if err := os.MkdirAll(filepath.Join(dir, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeTestFile(t, filepath.Join(dir, "devices", "NVIDIA_H100_80GB_HBM3.json"), readTestFile(t, filepath.Join(src, "devices", "NVIDIA_H100_80GB_HBM3.json")))
	writeTestFile(t, filepath.Join(dir, "models", "myopt.json"), readTestFile(t, filepath.Join(src, "models", "opt_13.json")))
	return dir
}

// TestPredictZooSample: a zoo network's prediction and --list say what a
// sample is, a sequence model's tokens included (bert-base's 128 were in
// the code alone: a reviewer's find).
func TestPredictZooSample(t *testing.T) {
	out, err := wb(t, "predict", "bert-base", "--device", "v100", "--batch", "32", "--top", "0")
	if err != nil || !strings.HasPrefix(out, "bert-base on 1 × NVIDIA V100 SXM2 32 GB, sample: 128 WordPiece tokens (vocabulary 30,522), batch 32 per GPU, fp32\n") {
		t.Errorf("bert-base's header: %v\n%s", err, out)
	}
	out, err = wb(t, "predict", "--list")
	if err != nil || !regexp.MustCompile(`(?m)^gpt2 .*; a sample: 1024 byte-pair tokens \(vocabulary 50,257\)$`).MatchString(out) {
		t.Errorf("--list: %v\n%s", err, out)
	}
}
