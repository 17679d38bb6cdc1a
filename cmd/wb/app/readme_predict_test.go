package app

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestREADMEPredictFigures runs the wb predict examples whose figures
// docs/prediction.md (the README's "wb predict" section in full) quotes in
// its prose, and checks that it quotes what wb prints now (rounded as it
// rounds them). The tables are held to their commands by the tests of the
// validations themselves.
func TestREADMEPredictFigures(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "docs", "prediction.md"))
	if err != nil {
		t.Fatal(err)
	}
	// the prose wraps anywhere: compare with single spaces
	readme := strings.Join(strings.Fields(string(b)), " ")
	iteration := regexp.MustCompile(`iteration ([0-9.]+) ms`)
	gpt2 := []string{"predict", "gpt2-large", "--device-spec", "NVIDIA_A100-SXM4-40GB", "--mode", "train", "--seq", "1024", "--batch", "4"}
	llama := []string{"predict", "llama2-7b", "--seq", "1", "--batch", "1", "--device-spec"}
	for _, c := range []struct {
		args []string
		// the README's phrase, %s the figure as it rounds it
		phrase string
		digits int
	}{
		{[]string{"predict", "gpt3-2.7b", "--device-spec", "NVIDIA_H100_80GB_HBM3", "--seq", "2048", "--batch", "1", "--mode", "train"},
			"fits the 80 GB H100 at batch 1 (%s ms an iteration)", 0},
		{slices.Concat(gpt2, []string{"--parallel", "tp4"}), "tensor parallel %s ms", 0},
		{slices.Concat(gpt2, []string{"--parallel", "dp4"}), "data parallel %s ms", 0},
		{slices.Concat(gpt2, []string{"--parallel", "pp4_1"}), "pipeline of one micro-batch %s ms", 0},
		{slices.Concat(gpt2, []string{"--parallel", "dp1"}), "as long as one GPU at the whole batch: %s ms", 0},
		{gpt2, "Hugging Face's eager GPT-2, without an optimizer step, %s ms", 0},
		{slices.Concat(llama, []string{"NVIDIA_L4"}), "is predicted in %s ms on an L4", 0},
		{slices.Concat(llama, []string{"NVIDIA_A100_80GB_PCIe"}), "%s ms on an A100 80GB PCIe", 1},
		{slices.Concat(llama, []string{"NVIDIA_H100_80GB_HBM3"}), "%s ms on an H100 SXM", 1},
	} {
		out, err := wb(t, c.args...)
		if err != nil {
			t.Errorf("wb %s: %v", strings.Join(c.args, " "), err)
			continue
		}
		m := iteration.FindStringSubmatch(out)
		if m == nil {
			t.Errorf("wb %s: no iteration time in:\n%s", strings.Join(c.args, " "), out)
			continue
		}
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf(c.phrase, thousands(v, c.digits))
		if !strings.Contains(readme, want) {
			t.Errorf("docs/prediction.md does not say %q, what wb %s prints now (%s ms)", want, strings.Join(c.args, " "), m[1])
		}
	}
	// the op-family split the README quotes, printed as it is
	out, err := wb(t, "predict", "bert-large", "--device-spec", "NVIDIA_L4", "--seq", "512", "--batch", "8", "--mode", "train")
	if err != nil {
		t.Fatal(err)
	}
	split := regexp.MustCompile(`by op family: [^\n]*`).FindString(out)
	if split == "" || !strings.Contains(readme, split) {
		t.Errorf("docs/prediction.md does not quote the L4's %q", split)
	}
}

// thousands formats v with digits decimals and commas between thousands,
// as the README writes figures (1,534).
func thousands(v float64, digits int) string {
	s := strconv.FormatFloat(v, 'f', digits, 64)
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if frac != "" {
		b.WriteString("." + frac)
	}
	return b.String()
}
