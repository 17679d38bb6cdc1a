package main

import (
	"os"
	"path/filepath"
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
	for _, want := range []string{"1178 rows of 3 models and 1 sweeps (learned from, not scored: 218 rows of models scored)", "min times", "analytical", "tree", "knn", "linear", "chosen", "wrote " + out} {
		if !strings.Contains(got, want) {
			t.Errorf("train output lacks %q:\n%s", want, got)
		}
	}
	l, err := predictor.LoadLearned(out)
	if err != nil {
		t.Fatal(err)
	}
	if l.Version != 1 || len(l.Features) == 0 || l.CV["tree"].Rows != 218 {
		t.Errorf("predictor %d %v %+v", l.Version, l.Features, l.CV)
	}

	evalDir := filepath.Join(t.TempDir(), "eval")
	got, err = wb(t, append([]string{"evaluate", out, "--out", evalDir}, profiles...)...)
	if err != nil {
		t.Fatal(err, got)
	}
	for _, want := range []string{"min times (as the predictor learned)", "held out by layer shape", "held out by batch size", "conv2d", "corrected MAPE", "iteration MAPE",
		"repeatability: 2 pairs of independent measurements", "predictions.csv",
		"sweeps (training data, not in the scores above): 960 rows"} {
		if !strings.Contains(got, want) {
			t.Errorf("evaluate output lacks %q:\n%s", want, got)
		}
	}
	// predictions.csv: a header and every held-out row of both splits (218
	// by shape, the batch split's test rows).
	data, err := os.ReadFile(filepath.Join(evalDir, "predictions.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if lines[0] != "split,model,layer,op,pass,batch,precision,device,measured_s,analytical_s,corrected_s" ||
		strings.Count(string(data), "\nshape,") != 218 || strings.Count(string(data), "\nbatch,") == 0 {
		t.Errorf("predictions.csv: header %q, %d lines", lines[0], len(lines))
	}
	for _, f := range []string{"predicted-vs-measured-shape", "predicted-vs-measured-batch", "error-cdf"} {
		for _, ext := range []string{".png", ".pdf", ".svg"} {
			if st, err := os.Stat(filepath.Join(evalDir, "figures", f+ext)); err != nil || st.Size() == 0 {
				t.Errorf("figure %s%s: %v", f, ext, err)
			}
		}
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
	// learned on CPU profiles: never applied to a GPU
	if _, err := wb(t, "predict", "alexnet", "--device", "v100", "--predictor", out); err == nil ||
		!strings.Contains(err.Error(), "learned on cpu profiles and does not apply to v100, a gpu") {
		t.Errorf("a CPU correction on a GPU: %v", err)
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
		{[]string{"train", empty, "--out", filepath.Join(dir, "out.json")}, "no ok rows"},
		{[]string{"train", empty, "--time", "mean"}, `train: --time: unknown time statistic "mean" (known: median, min)`},
		{[]string{"evaluate", pred}, "want a predictor JSON and at least one profile CSV"},
		{[]string{"evaluate", filepath.Join(dir, "missing.json"), empty}, "no such file"},
		{[]string{"evaluate", pred, empty}, "not a complete"},
		{[]string{"predict", "alexnet", "--predictor", filepath.Join(dir, "missing.json")}, "no such file"},
	}
	for _, tc := range tests {
		out, err := wb(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("wb %v: %v, want an error with %q\n%s", tc.args, err, tc.want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out.json")); err == nil {
		t.Error("train wrote a predictor from no rows")
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
	got, err := wb(t, append([]string{"evaluate", pred, "--out", "", "--fold-seeds", "1,2"}, profiles...)...)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"held out by layer shape (5 folds, seed 1)", "under 2 fold assignments", "\n      1 ", "\n      2 ", "\n  range "} {
		if !strings.Contains(got, want) {
			t.Errorf("evaluate --fold-seeds 1,2: no %q in\n%s", want, got)
		}
	}
	one, err := wb(t, append([]string{"evaluate", pred, "--out", ""}, profiles...)...)
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
