package app

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wb-sim/wb/predictor"
)

// smallProfiles are a few bundled profiles, enough for every part of train
// and evaluate (two batch sizes of one model, identical work measured
// twice, a sweep) in seconds; the whole set's figures are pinned in the
// predictor package's tests.
func smallProfiles(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, n := range []string{"cpu-a3c", "cpu-a3c-b5", "cpu-lm", "cpu-alexnet", "cpu-sweep-linear"} {
		out = append(out, filepath.Join(repoRoot, "datasets/profiles", n+".csv"))
	}
	return out
}

func TestTrainEvaluatePredict(t *testing.T) {
	profiles := smallProfiles(t)
	out := filepath.Join(t.TempDir(), "predictor.json")
	got, err := wb(t, append([]string{"train", "--out", out}, profiles...)...)
	if err != nil {
		t.Fatal(err, got)
	}
	for _, want := range []string{"1170 rows learned from, of 3 models and 1 sweeps (learned from, not scored), 8 ops, min times",
		"12 rows copy an identical layer's measurement (shared_with): neither learned from nor scored",
		"configuration chosen by cross-validation, 3 folds by model: MAPE of 210 distinct measurements of models",
		"learned against the machine profiled (cpu: AMD EPYC, 2 cores): fp32 peak 234.", "analytical", "tree depth", "knn, all features", "linear", "chosen", "flatter it: wb evaluate --split model --nested", "wrote " + out} {
		if !strings.Contains(got, want) {
			t.Errorf("train output lacks %q:\n%s", want, got)
		}
	}
	l, err := predictor.LoadLearned(out)
	if err != nil {
		t.Fatal(err)
	}
	if l.Version != predictor.LearnedVersion || !l.NeedsImpl() || len(l.Features) == 0 || l.CV["tree"].Rows != 210 || l.CV["tree"].Copies != 12 || l.CVSplit != "3 folds by model" || len(l.Grid) != 18 {
		t.Errorf("predictor %d %v %+v %q", l.Version, l.Features, l.CV, l.CVSplit)
	}

	evalDir := filepath.Join(t.TempDir(), "eval")
	got, err = wb(t, append([]string{"evaluate", out, "--out", evalDir}, profiles...)...)
	if err != nil {
		t.Fatal(err, got)
	}
	for _, want := range []string{"min times (as the predictor learned); the predictor's configuration: " + l.Candidate().String(),
		"210 distinct measurements of models scored; 12 rows copy an identical layer's (shared_with): not scored",
		"held out by model (leave one model out, none of its layer shapes learned from)", "per model:", "\n  alexnet    94 ",
		"held out by layer shape", "held out by batch size", "conv2d", "corrected MAPE", "iteration MAPE (summed layers) over 6 model iterations",
		"repeatability: 2 pairs of independent measurements", "predictions.csv",
		"sweeps (training data, not in the scores above): 960 rows"} {
		if !strings.Contains(got, want) {
			t.Errorf("evaluate output lacks %q:\n%s", want, got)
		}
	}
	// a batch split asked of profiles of one batch size a model scores
	// nothing: refused, no folder made (it exited 0 with an empty folder:
	// a reviewer's find); among the default splits it is left out, said so
	one := filepath.Join(t.TempDir(), "one")
	a3c := filepath.Join(repoRoot, "datasets/profiles/cpu-a3c.csv") // batch 1 alone
	if got, err := wb(t, "evaluate", out, "--split", "batch", "--out", one, a3c); err == nil ||
		!strings.Contains(got+err.Error(), "--split batch: the profiles have one batch size per model") {
		t.Errorf("a batch split of one batch size a model: %v\n%s", err, got)
	}
	if _, err := os.Stat(one); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the refused evaluation made its folder (%v)", err)
	}

	// predictions.csv: a header and every held-out layer pass of the three
	// splits (222 by model and by shape, copies among them, marked; the
	// batch split's test rows).
	data, err := os.ReadFile(filepath.Join(evalDir, "predictions.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if lines[0] != "split,model,layer,op,pass,batch,precision,device,measured_s,analytical_s,corrected_s,shared_with,scored" ||
		!strings.Contains(string(data), ",false\n") || !strings.Contains(string(data), ",true\n") ||
		strings.Count(string(data), "\nmodel,") != 222 || strings.Count(string(data), "\nshape,") != 222 || strings.Count(string(data), "\nbatch,") == 0 ||
		!strings.Contains(string(data), "\nmodel,alexnet,") {
		t.Errorf("predictions.csv: header %q, %d lines", lines[0], len(lines))
	}
	for _, f := range []string{"predicted-vs-measured-model", "predicted-vs-measured-shape", "predicted-vs-measured-batch", "error-cdf"} {
		for _, ext := range []string{".png", ".pdf", ".svg"} {
			if st, err := os.Stat(filepath.Join(evalDir, "figures", f+ext)); err != nil || st.Size() == 0 {
				t.Errorf("figure %s%s: %v", f, ext, err)
			}
		}
	}
	// each file it wrote is listed as its own (.wb-out.json): the folder
	// is its earlier results, which a rerun may replace
	if m, err := readOutMarker(evalDir); err != nil || m == nil || m.Command != "wb evaluate" || len(m.Files) != 1+4*3 || m.Files["figures/error-cdf.svg"] == "" {
		t.Errorf("evaluate's list of its files: %+v, %v", m, err)
	}
	if err := checkOutFolder(evalDir, evaluateOut); err != nil {
		t.Errorf("evaluate's own results: %v", err)
	}

	plain, err := wb(t, "predict", "alexnet", "--device", "cpu", "--batch", "4")
	if err != nil {
		t.Fatal(err)
	}
	corr, err := wb(t, "predict", "alexnet", "--device", "cpu", "--batch", "4", "--predictor", out)
	if err != nil {
		t.Fatal(err)
	}
	if plain == corr || !strings.Contains(corr, "iteration") {
		t.Errorf("--predictor changed nothing:\n%s", corr)
	}
	// its corrections are ratios to the machine profiled: the prediction
	// is of that machine, and says so
	if !strings.Contains(corr, "cpu: AMD EPYC, 2 cores (the machine profiled)") {
		t.Errorf("--predictor on a CPU does not name the machine profiled:\n%s", corr)
	}
	// learned on CPU profiles: never applied to a GPU
	if _, err := wb(t, "predict", "alexnet", "--device", "v100", "--predictor", out); err == nil ||
		!strings.Contains(err.Error(), "learned on cpu profiles and does not apply to v100, a gpu") {
		t.Errorf("a CPU correction on a GPU: %v", err)
	}
	// learned on fp32 profiles: never applied to another precision
	if l.Train.Precisions == nil || strings.Join(l.Train.Precisions, " ") != "fp32" {
		t.Errorf("precisions learned %v, want fp32", l.Train.Precisions)
	}
	if _, err := wb(t, "predict", "alexnet", "--device", "cpu", "--precision", "bf16", "--predictor", out); err == nil ||
		!strings.Contains(err.Error(), "learned on fp32 profiles and does not apply at bf16") {
		t.Errorf("an fp32 correction at bf16: %v", err)
	}
	// learned as ratios to the roofline's max: not applied to Paleo's sum
	if _, err := wb(t, "predict", "alexnet", "--device", "cpu", "--combine", "sum", "--predictor", out); err == nil ||
		!strings.Contains(err.Error(), "--combine sum with --predictor: the learned corrections are ratios to the roofline's max") {
		t.Errorf("a correction on --combine sum: %v", err)
	}
}

func TestTrainErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.csv")
	// A profile with its header and sidecar but no rows.
	header, _, _ := strings.Cut(readTestFile(t, filepath.Join(repoRoot, "datasets/profiles/cpu-lm.csv")), "\n")
	writeTestFile(t, empty, header+"\n")
	writeTestFile(t, empty+".json", readTestFile(t, filepath.Join(repoRoot, "datasets/profiles/cpu-lm.csv.json")))
	pred := filepath.Join(dir, "p.json")
	writeTestFile(t, pred, `{"version":1,"model":"tree"}`)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"train"}, "want at least one profile CSV"},
		{[]string{"train", filepath.Join(dir, "missing.csv")}, "no such file"},
		{[]string{"train", empty, "--out", filepath.Join(dir, "out.json")}, "empty.csv: no rows: not a finished profile?"},
		{[]string{"train", empty, "--time", "mean"}, `train: --time: unknown time statistic "mean" (known: median, min)`},
		{[]string{"evaluate", pred}, "want a predictor JSON and at least one profile CSV"},
		{[]string{"evaluate", filepath.Join(dir, "missing.json"), empty}, "no such file"},
		{[]string{"evaluate", pred, empty}, "not a complete"},
		{[]string{"evaluate", pred, empty, "--split", "model,bogus"}, `--split: unknown split "bogus" (known: model, shape, batch)`},
		{[]string{"evaluate", pred, empty, "--split", "shape", "--nested"}, "--nested is a way of scoring the model split: add --split model"},
		{[]string{"evaluate", pred, empty, "--inner-folds", "2"}, "--inner-folds is the inner loop's: add --nested"},
		{[]string{"evaluate", pred, empty, "--split", "batch", "--fold-seeds", "1,2"}, "--fold-seeds draws the shape split's folds: add --split shape"},
		{[]string{"evaluate", pred, empty, "--nested", "--inner-folds", "1"}, "--inner-folds 1: want 0 (one model a fold) or at least 2"},
		{[]string{"predict", "alexnet", "--predictor", filepath.Join(dir, "missing.json")}, "no such file"},
	}
	// a profile whose rows are bad, named by file and line: a NaN count of
	// work, a measured row without its fastest run's time
	lm := readTestFile(t, filepath.Join(repoRoot, "datasets/profiles/cpu-lm.csv"))
	lmMeta := readTestFile(t, filepath.Join(repoRoot, "datasets/profiles/cpu-lm.csv.json"))
	head, rest, _ := strings.Cut(lm, "\n")
	row, rest, _ := strings.Cut(rest, "\n")
	cells := strings.Split(row, ",")
	nanFlops := slices.Clone(cells)
	nanFlops[slices.Index(strings.Split(head, ","), "flops")+1] = "NaN" // the device cell holds one comma
	noMin := slices.Clone(cells)
	noMin[len(noMin)-1] = ""
	bad := map[string]string{"nan.csv": strings.Join(nanFlops, ","), "nomin.csv": strings.Join(noMin, ",")}
	for name, r := range bad {
		writeTestFile(t, filepath.Join(dir, name), head+"\n"+r+"\n"+rest)
		writeTestFile(t, filepath.Join(dir, name+".json"), lmMeta)
	}
	tests = append(tests, []struct {
		args []string
		want string
	}{
		{[]string{"train", filepath.Join(dir, "nan.csv"), "--out", filepath.Join(dir, "o.json")}, "nan.csv: line 2: flops NaN, bytes"},
		// refused: the folder --out would go in is not made
		{[]string{"train", filepath.Join(dir, "nan.csv"), "--out", filepath.Join(dir, "unmade", "o.json")}, "nan.csv: line 2: flops NaN, bytes"},
		{[]string{"train", filepath.Join(dir, "nomin.csv"), "--out", filepath.Join(dir, "o.json")}, "nomin.csv:2: encoder fwd batch 5: no min time (the min_s column empty or absent"},
		// an --out that cannot be written is said before the training
		{[]string{"train", filepath.Join(repoRoot, "datasets/profiles/cpu-lm.csv"), "--out", filepath.Join(dir, "nan.csv", "sub", "p.json")}, "--out " + filepath.Join(dir, "nan.csv", "sub", "p.json") + ": no folder"},
		{[]string{"train", filepath.Join(repoRoot, "datasets/profiles/cpu-lm.csv"), "--out", ""}, "--out: empty; name a file"},
		{[]string{"train", filepath.Join(repoRoot, "datasets/profiles/cpu-lm.csv"), "--out", dir}, "--out " + dir + ": a folder; name a file"},
	}...)
	for _, tc := range tests {
		out, err := wb(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("wb %v: %v, want an error with %q\n%s", tc.args, err, tc.want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out.json")); err == nil {
		t.Error("train wrote a predictor from no rows")
	}
	if _, err := os.Stat(filepath.Join(dir, "unmade")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused train made --out's folder: %v", err)
	}
}

func readTestFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeTestFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestEvaluateFoldSeeds scores three Gavel models' profiles under two fold
// assignments: one row per seed and their range, the per-op table the first
// seed's; a negative seed is refused.
func TestEvaluateFoldSeeds(t *testing.T) {
	var profiles []string
	for _, m := range []string{"lm", "a3c", "a3c-b5", "recommendation"} {
		profiles = append(profiles, filepath.Join(repoRoot, "datasets/profiles/cpu-"+m+".csv"))
	}
	pred := filepath.Join(t.TempDir(), "p.json")
	if _, err := wb(t, append([]string{"train", "--out", pred}, profiles...)...); err != nil {
		t.Fatal(err)
	}
	got, err := wb(t, append([]string{"evaluate", pred, "--out", "", "--split", "shape,batch", "--fold-seeds", "1,2"}, profiles...)...)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"held out by layer shape (5 folds, seed 1;", "under 2 fold assignments", "\n      1 ", "\n      2 ", "\n  range "} {
		if !strings.Contains(got, want) {
			t.Errorf("evaluate --fold-seeds 1,2: no %q in\n%s", want, got)
		}
	}
	one, err := wb(t, append([]string{"evaluate", pred, "--out", "", "--split", "shape,batch"}, profiles...)...)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(one, "fold assignments") {
		t.Errorf("one seed printed a spread:\n%s", one)
	}
	// The first seed's table is the default's.
	table := func(s string) string {
		a, _, _ := strings.Cut(s, "held out by batch")
		a, _, _ = strings.Cut(a, "held out by layer shape under")
		return a
	}
	if table(got) != table(one) {
		t.Errorf("seed 1's table differs from the default's:\n%s\n---\n%s", table(got), table(one))
	}
	if _, err := wb(t, append([]string{"evaluate", pred, "--out", "", "--fold-seeds", "-1"}, profiles...)...); err == nil || !strings.Contains(err.Error(), "--fold-seeds: -1 is negative") {
		t.Errorf("negative seed: %v", err)
	}
}

// TestEvaluateNested scores three small Gavel models' profiles by nested
// cross-validation (two inner folds: one model each): the outer scores by
// family, the picks, per op and per model; --help teaches the splits.
func TestEvaluateNested(t *testing.T) {
	var profiles []string
	for _, m := range []string{"lm", "a3c", "recommendation"} {
		profiles = append(profiles, filepath.Join(repoRoot, "datasets/profiles/cpu-"+m+".csv"))
	}
	pred := filepath.Join(t.TempDir(), "p.json")
	if _, err := wb(t, append([]string{"train", "--out", pred}, profiles...)...); err != nil {
		t.Fatal(err)
	}
	got, err := wb(t, append([]string{"evaluate", pred, "--out", "", "--split", "model", "--nested", "--inner-folds", "2"}, profiles...)...)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"held out by model, nested (3 models, each predicted by the configuration that 2-fold cross-validation by model of\nthe others chose",
		"\n      chosen ", "\n       boost ", "\n  analytical ", "picks (over every family): ", "per op, chosen:", "per model, chosen:", "\n  recommendation ", "  whole iteration MAPE  "} {
		if !strings.Contains(got, want) {
			t.Errorf("evaluate --nested: no %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "held out by layer shape") || strings.Contains(got, "held out by batch") {
		t.Errorf("--split model printed other splits:\n%s", got)
	}
	help, err := wb(t, "evaluate", "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--split", "leave one model out", "--nested", "--inner-folds", "Only distinct measurements are scored", "summed layers", "measured whole iterations end to end"} {
		if !strings.Contains(help, want) {
			t.Errorf("wb evaluate --help does not mention %q:\n%s", want, help)
		}
	}
}

// Profiles of two machines record no one machine's figures: wb train says
// so, where a predictor would otherwise start from the predicting
// machine's figures unsaid.
func TestTrainTwoMachines(t *testing.T) {
	dir := t.TempDir()
	lm := filepath.Join(dir, "cpu-lm-other.csv")
	other := func(s string) string {
		return strings.ReplaceAll(s, "cpu: AMD EPYC, 2 cores", "cpu: Other CPU, 4 cores")
	}
	writeTestFile(t, lm, other(readTestFile(t, filepath.Join(repoRoot, "datasets/profiles/cpu-lm.csv"))))
	meta := other(readTestFile(t, filepath.Join(repoRoot, "datasets/profiles/cpu-lm.csv.json")))
	writeTestFile(t, lm+".json", strings.Replace(meta, `"peak_flops": 234`, `"peak_flops": 534`, 1))
	out := filepath.Join(dir, "made", "sub", "p.json") // its folder made once trained
	got, err := wb(t, "train", filepath.Join(repoRoot, "datasets/profiles/cpu-a3c.csv"), filepath.Join(repoRoot, "datasets/profiles/cpu-alexnet.csv"), lm, "--out", out)
	if err != nil {
		t.Fatal(err, got)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("--out in a folder to make: %v", err)
	}
	if !strings.Contains(got, "warning: the profiles record no one machine's peak and bandwidth (cpu: AMD EPYC, 2 cores; cpu: Other CPU, 4 cores") ||
		strings.Contains(got, "learned against the machine profiled") {
		t.Errorf("two machines:\n%s", got)
	}
}

// TestTrainTwoCaches: profiles of one device name that record different
// last-level caches are refused, naming both profiles (the error had named
// the second alone, as if its figure were the odd one: a reviewer's find).
func TestTrainTwoCaches(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a-other.csv")
	writeTestFile(t, a, readTestFile(t, filepath.Join(repoRoot, "datasets/profiles/cpu-a3c.csv")))
	writeTestFile(t, a+".json", strings.Replace(readTestFile(t, filepath.Join(repoRoot, "datasets/profiles/cpu-a3c.csv.json")), `"llc_bytes": 33554432`, `"llc_bytes": 67108864`, 1))
	// both in one folder: profiles are read in the order of their
	// absolute paths, and the repository's may sort before the temporary
	// folder's or after it (CI's clone lies under /check)
	lm := filepath.Join(dir, "b-lm.csv")
	writeTestFile(t, lm, readTestFile(t, filepath.Join(repoRoot, "datasets/profiles/cpu-lm.csv")))
	writeTestFile(t, lm+".json", readTestFile(t, filepath.Join(repoRoot, "datasets/profiles/cpu-lm.csv.json")))
	got, err := wb(t, "train", lm, a, "--out", filepath.Join(dir, "p.json"))
	if err == nil || !strings.Contains(err.Error(), lm+`: device "cpu: AMD EPYC, 2 cores": profiles record a last-level cache of 67108864 and of 33554432 bytes`) ||
		!strings.Contains(err.Error(), "(the first figure is "+a+"'s, the second this profile's)") {
		t.Errorf("two caches under one name: %v\n%s", err, got)
	}
}

// TestLoadProfilesWarns: profiles of two backends, or of one device name
// whose measured peaks lie far apart, are warned of.
func TestLoadProfilesWarns(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(repoRoot, "datasets/profiles/cpu-alexnet.csv")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	// profiled on the pure-Go backend: its rows and sidecar say so
	b = []byte(strings.ReplaceAll(string(b), ",onednn,", ",cpu,"))
	if err := os.WriteFile(filepath.Join(dir, "a.csv"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	side, err := os.ReadFile(src + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var meta map[string]any
	if err := json.Unmarshal(side, &meta); err != nil {
		t.Fatal(err)
	}
	meta["backend"] = "cpu"
	m := meta["machine"].(map[string]any)
	m["peak_flops"] = 2 * m["peak_flops"].(float64)
	if side, err = json.Marshal(meta); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.csv.json"), side, 0o644); err != nil {
		t.Fatal(err)
	}
	var warn strings.Builder
	if _, _, err := loadProfiles(&warn, []string{filepath.Join(dir, "a.csv"), filepath.Join(repoRoot, "datasets/profiles/cpu-vgg16.csv")}, predictor.Min, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(warn.String(), "2 backends, which run different kernels: cpu (a.csv); onednn (cpu-vgg16.csv)") || !strings.Contains(warn.String(), "measured fp32 peaks from") {
		t.Errorf("warnings:\n%s", warn.String())
	}
	warn.Reset()
	if _, _, err := loadProfiles(&warn, []string{src, filepath.Join(repoRoot, "datasets/profiles/cpu-vgg16.csv")}, predictor.Min, ""); err != nil ||
		strings.Contains(warn.String(), "warning") || !strings.Contains(warn.String(), "measured memory copies from 53.2 to 74.3 GB/s (the most in cpu-alexnet.csv)") {
		t.Errorf("the bundled profiles (no warning; a note of their memory copies' spread): %v\n%s", err, warn.String())
	}
}

// TestTrainOutNotAProfilesSidecar: wb train --out refuses a profile's
// sidecar name (PROFILE.csv.json) and an existing file that is not a wb
// predictor, before training, changing neither; an earlier predictor is
// replaced.
func TestTrainOutNotAProfilesSidecar(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "rec.csv")
	copyProfile(t, "cpu-recommendation", rec)
	side := readTestFile(t, rec+".json")
	notes := filepath.Join(dir, "notes.json")
	writeTestFile(t, notes, `{"mine": true}`)
	lm := filepath.Join(repoRoot, "datasets/profiles/cpu-lm.csv")
	for _, tt := range []struct{ out, want string }{
		{rec + ".json", "--out " + rec + ".json: the name of a profile's sidecar"},
		{filepath.Join(dir, "NEW.CSV.JSON"), "the name of a profile's sidecar"},
		{notes, "--out " + notes + ": exists and is not a wb predictor (the JSON wb train writes)"},
	} {
		if _, err := wb(t, "train", lm, "--out", tt.out); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("--out %s: %v, want %q", tt.out, err, tt.want)
		}
	}
	if readTestFile(t, rec+".json") != side || readTestFile(t, notes) != `{"mine": true}` {
		t.Error("a refused train changed a file")
	}
	if _, err := os.Stat(filepath.Join(dir, "NEW.CSV.JSON")); err == nil {
		t.Error("a refused train wrote its --out")
	}
	old := filepath.Join(dir, "old.json")
	writeTestFile(t, old, `{"version": 1, "model": "tree", "features": []}`)
	if err := predictorOut(old); err != nil {
		t.Errorf("an earlier predictor: %v", err)
	}
}

// TestLoadProfilesChecksRows: a CSV beside another profile's sidecar, and
// rows whose stop column says interrupted under a sidecar that says
// otherwise, are refused, naming the file and line.
func TestLoadProfilesChecksRows(t *testing.T) {
	dir := t.TempDir()
	a3c := filepath.Join(dir, "a3c.csv")
	writeTestFile(t, a3c, readTestFile(t, filepath.Join(repoRoot, "datasets/profiles/cpu-a3c.csv")))
	writeTestFile(t, a3c+".json", readTestFile(t, filepath.Join(repoRoot, "datasets/profiles/cpu-lm.csv.json")))
	if _, _, err := loadProfiles(io.Discard, []string{a3c}, predictor.Min, ""); err == nil ||
		!strings.Contains(err.Error(), a3c+`: line 2: model "a3c", but its sidecar `+a3c+`.json says model "lm"`) {
		t.Errorf("another profile's sidecar: %v", err)
	}
	lm := filepath.Join(dir, "lm.csv")
	copyProfile(t, "cpu-lm", lm)
	if _, _, err := loadProfiles(io.Discard, []string{lm}, predictor.Min, ""); err != nil {
		t.Fatal(err)
	}
	// the first row (an ok row) marked as an interrupted profile's
	head, rest, _ := strings.Cut(readTestFile(t, lm), "\n")
	row, rest, _ := strings.Cut(rest, "\n")
	if !strings.Contains(row, ",ok,") || strings.Count(row, ",budget,") != 1 {
		t.Fatalf("first row %q", row)
	}
	writeTestFile(t, lm, head+"\n"+strings.Replace(row, ",budget,", ",interrupted,", 1)+"\n"+rest)
	if _, _, err := loadProfiles(io.Discard, []string{lm}, predictor.Min, ""); err == nil ||
		!strings.Contains(err.Error(), lm+":2: encoder fwd batch 5: stop interrupted: a row of an interrupted profile") {
		t.Errorf("an interrupted row: %v", err)
	}
}

// TestEvaluateOutAfterInputs: wb evaluate --out makes its folder only once
// its inputs have read: a refused input leaves no empty folder.
func TestEvaluateOutAfterInputs(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "eval")
	lm := filepath.Join(repoRoot, "datasets/profiles/cpu-lm.csv")
	for _, args := range [][]string{
		{"evaluate", filepath.Join(dir, "missing.json"), lm, "--out", out},
		{"evaluate", lm + ".json", lm, "--out", out}, // a sidecar, not a predictor
	} {
		if _, err := wb(t, args...); err == nil {
			t.Errorf("wb %v: no error", args)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("wb %v: made %s", args, out)
		}
	}
}

// TestLoadProfilesOrder: profiles given in any order are read in one
// (their paths' byte order), so that train and evaluate learn the same
// predictor from them however a shell's glob sorted them.
func TestLoadProfilesOrder(t *testing.T) {
	var paths []string
	for _, m := range []string{"cpu-lm.csv", "cpu-a3c.csv", "cpu-recommendation.csv"} {
		paths = append(paths, filepath.Join(repoRoot, "datasets/profiles", m))
	}
	want, _, err := loadProfiles(io.Discard, paths, predictor.Min, "--time median")
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(paths)
	got, _, err := loadProfiles(io.Discard, paths, predictor.Min, "--time median")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Error("the profiles in reverse order read as other rows")
	}
	if got[0].Model != "a3c" {
		t.Errorf("first row of %s, want a3c's (the paths in order)", got[0].Model)
	}
}
