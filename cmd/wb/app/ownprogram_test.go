package app_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wb-sim/wb/cmd/wb/app"
	"github.com/wb-sim/wb/examples/lastfit"
	"github.com/wb-sim/wb/experiments"
)

// registerLastFit registers docs/writing-a-policy.md's placement, held in
// a package of its own (examples/lastfit) as a program's would be.
var registerLastFit = sync.OnceValue(func() error { return experiments.RegisterParts(lastfit.Register) })

// TestOwnProgram is a program of one's own, written as a module outside wb
// would write it (this package uses wb's exported API alone): it registers
// a placement and runs wb's commands through app.Run, which name it as
// they name wb's own, its settings from --arg, a typo in them refused.
func TestOwnProgram(t *testing.T) {
	// once in the process, as a program's main does (a second
	// registration of the name is refused: go test -count=2)
	if err := registerLastFit(); err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	trace := "gavel:" + filepath.Join(root, "datasets", "data", "gavel", "small_test.trace")
	// the GPU model of the first job simulate places, by its arguments
	firstModel := func(args ...string) (string, error) {
		out := filepath.Join(t.TempDir(), "out")
		var stdout, stderr bytes.Buffer
		err := app.Run(context.Background(), &stdout, &stderr, append([]string{"wb", "simulate", "--trace", trace,
			"--cluster", "nodes:2x4:K80+2x4:V100", "--out", out}, args...))
		if err != nil {
			return "", err
		}
		f, err := os.Open(filepath.Join(out, experiments.JobsFile))
		if err != nil {
			return "", err
		}
		defer f.Close()
		rows, err := csv.NewReader(f).ReadAll()
		if err != nil || len(rows) < 2 {
			return "", err
		}
		for c, name := range rows[0] {
			if name == "gpu_models" {
				return rows[1][c], nil
			}
		}
		t.Fatalf("jobs.csv has no gpu_models column: %v", rows[0])
		return "", nil
	}
	// the cluster lists the K80 nodes first: first-fit starts the first
	// job there, last-fit on the last V100 node, and last-fit preferring
	// K80s on the last K80 node
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--placement", "first-fit"}, "K80"},
		{[]string{"--placement", "last-fit"}, "V100"},
		{[]string{"--placement", "last-fit", "--arg", "placement.prefer=K80"}, "K80"},
	} {
		if got, err := firstModel(c.args...); err != nil || got != c.want {
			t.Errorf("wb simulate %s: the first job on %q (%v), want %s", strings.Join(c.args, " "), got, err, c.want)
		}
	}
	if _, err := firstModel("--placement", "last-fit", "--arg", "placement.prefr=K80"); err == nil || !strings.Contains(err.Error(), "prefr") {
		t.Errorf("a typo in last-fit's settings: %v", err)
	}
	// and wb experiment: a config names it, its settings under
	// placement_args, a typo in them said at its line
	dir := t.TempDir()
	cfg := filepath.Join(dir, "own.yaml")
	body := "name: own\nreplicas: 1\nworkloads:\n  - {name: w, trace: \"" + trace + "\", cluster: \"nodes:2x4:K80+2x4:V100\"}\n" +
		"schedulers:\n  - {name: last, placement: last-fit}\n  - {name: last-k80, placement: last-fit, placement_args: {prefer: K80}}\n"
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := app.Run(context.Background(), &stdout, &stderr, []string{"wb", "experiment", cfg, "--out", filepath.Join(dir, "out"), "--quiet"}); err != nil {
		t.Fatalf("wb experiment with last-fit: %v\n%s", err, stderr.String())
	}
	if b, err := os.ReadFile(filepath.Join(dir, "out", experiments.SummaryFile)); err != nil || strings.Count(string(b), ",w,") != 2 || !strings.Contains(string(b), ",w,last-k80,") {
		t.Errorf("summary.csv: %v\n%s", err, b)
	}
	if err := os.WriteFile(cfg, []byte(strings.Replace(body, "{prefer: K80}", "{prefr: K80}", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := app.Run(context.Background(), &stdout, &stderr, []string{"wb", "experiment", cfg, "--out", filepath.Join(dir, "out2")}); err == nil ||
		!strings.Contains(err.Error(), "own.yaml:7: schedulers[1].placement_args.prefr") {
		t.Errorf("a typo in last-fit's settings in a config: %v", err)
	}
	// wb's --help lists it beside wb's own placements
	var help bytes.Buffer
	if err := app.Run(context.Background(), &help, &help, []string{"wb", "simulate", "--help"}); err != nil || !strings.Contains(help.String(), "last-fit") {
		t.Errorf("wb simulate --help does not name last-fit (%v):\n%s", err, help.String())
	}
}
