package app

import (
	"bytes"
	"context"
	"fmt"
	"github.com/wb-sim/wb/experiments"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/wb-sim/wb/scheduler"
)

// repoRoot is the repository's root, found before any test changes the
// working directory.
var repoRoot, _ = filepath.Abs("../../..")

// wb runs the command in the repository root, as a user would.
func wb(t *testing.T, args ...string) (string, error) {
	t.Helper()
	if wd, _ := os.Getwd(); wd != repoRoot {
		t.Chdir(repoRoot)
	}
	var out bytes.Buffer
	err := run(context.Background(), &out, &out, append([]string{"wb"}, args...))
	return out.String(), err
}

func TestHelpTeaches(t *testing.T) {
	out, err := wb(t, "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"simulate", "version", "completion", "wb simulate --trace"} {
		if !strings.Contains(out, want) {
			t.Errorf("wb --help does not mention %q:\n%s", want, out)
		}
	}
	out, err = wb(t, "simulate", "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{strings.Join(scheduler.DefaultParts().Backfills.Names(), ", "), strings.Join(scheduler.DefaultParts().Placements.Names(), ", "), "nodes:NxG:MODEL", "--skip-invalid"} {
		if !strings.Contains(out, want) {
			t.Errorf("wb simulate --help does not mention %q", want)
		}
	}
}

func TestVersion(t *testing.T) {
	out, err := wb(t, "version")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^wb \S+ commit \S+.* go1\.\d+`).MatchString(out) {
		t.Errorf("wb version = %q", out)
	}
}

// TestNestedHelp: "wb help dataset pai-sim" shows the subcommand's page,
// not its parent's.
func TestNestedHelp(t *testing.T) {
	out, err := wb(t, "help", "dataset", "pai-sim")
	if err != nil || !strings.Contains(out, "wb dataset pai-sim - derive") || !strings.Contains(out, "--tasks") {
		t.Errorf("wb help dataset pai-sim: %v\n%s", err, out)
	}
	if out, err := wb(t, "help", "dataset"); err != nil || !strings.Contains(out, "wb dataset - derive") {
		t.Errorf("wb help dataset: %v\n%s", err, out)
	}
}

func TestCompletion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		out, err := wb(t, "completion", shell)
		if err != nil || !strings.Contains(out, "wb") {
			t.Errorf("completion %s: %v\n%s", shell, err, out)
		}
	}
	if _, err := wb(t, "completion", "tcsh"); err == nil || !strings.Contains(err.Error(), "known: bash, zsh, fish") {
		t.Errorf("unknown shell: error %v", err)
	}
	// an argument past the shell is refused, as every command refuses one
	if _, err := wb(t, "completion", "bash", "extra"); err == nil || !strings.Contains(err.Error(), "completion: takes one shell, got 2 arguments: bash extra") {
		t.Errorf("wb completion bash extra: %v", err)
	}
	if _, err := wb(t, "completion"); err == nil || !strings.Contains(err.Error(), "name the shell: wb completion bash, zsh or fish") {
		t.Errorf("no shell: error %v", err)
	}
}

func TestSimulateErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"simulate"}, `Required flag "trace" not set`},
		{[]string{"simulate", "--trace", "datasets/data/swf/KTH-SP2-1996-2.1-cln.swf.gz", "--backfill", "easey"}, `unknown backfill "easey" (known: conservative, easy, greedy, none)`},
		{[]string{"simulate", "--trace", "missing.swf"}, "missing.swf"},
		{[]string{"simulate", "--trace", "datasets/data/swf/KTH-SP2-1996-2.1-cln.swf.gz", "extra"}, "unexpected argument extra"},
		{[]string{"simulate", "--trace", "datasets/data/gavel/small_test.trace", "--placement", "ga", "--consolidate"}, "consolidate: placement ga places a pass's jobs together"},
		{[]string{"simulate", "--trace", "datasets/data/gavel/small_test.trace", "--estimate", "noisy"}, "--estimate noisy needs --sigma"},
		{[]string{"simulate", "--trace", "datasets/data/gavel/small_test.trace", "--sigma", "1"}, "--sigma is --estimate noisy's"},
		{[]string{"simulate", "--trace", "datasets/data/gavel/small_test.trace", "--cluster", "nodes:2x0:V100"}, "0 GPUs a node, yet a GPU model"},
		{[]string{"simulate", "--trace", "datasets/data/swf/KTH-SP2-1996-2.1-cln.swf.gz", "--cluster", "pool:64", "--procs", "100"}, "--procs sizes the trace's own pool, and --cluster pool:64 sets the machine"},
		{[]string{"simulate", "--trace", "datasets/data/gavel/small_test.trace", "--procs", "100"}, "a machine size in processors is for SWF traces; a gavel trace runs on its cluster"},
		{[]string{"simulate", "--trace", "datasets/data/swf/KTH-SP2-1996-2.1-cln.swf.gz", "--gpu-type", "k80"}, "a GPU type whose measured throughputs time the jobs is for Gavel traces"},
		{[]string{"simulate", "--trace", "datasets/data/swf/KTH-SP2-1996-2.1-cln.swf.gz", "--arrival-interval", "30"}, "an arrival interval re-times arrivals at an arrival rate: give the rate too"},
	}
	for _, tt := range tests {
		_, err := wb(t, tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("wb %s: error %v, want %q", strings.Join(tt.args, " "), err, tt.want)
		}
	}
}

// TestSimulateSigma: --sigma reaches the noisy estimate (σ 0 is exact; a
// σ of 1 schedules otherwise) and --seed its draws.
func TestSimulateSigma(t *testing.T) {
	wait := func(args ...string) string {
		t.Helper()
		out, err := wb(t, append([]string{"simulate", "--trace", "datasets/data/swf/KTH-SP2-1996-2.1-cln.swf.gz", "--backfill", "easy"}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		return regexp.MustCompile(`(?m)^wait .*$`).FindString(out)
	}
	exact := wait("--estimate", "exact")
	if got := wait("--estimate", "noisy", "--sigma", "0"); got != exact {
		t.Errorf("σ 0: %q, exact %q", got, exact)
	}
	one := wait("--estimate", "noisy", "--sigma", "1")
	if one == exact || wait("--estimate", "noisy", "--sigma", "1", "--seed", "7") == one {
		t.Errorf("σ 1 (%q) is exact's (%q), or another seed draws the same", one, exact)
	}
	// the results say which σ they ran at
	out := filepath.Join(t.TempDir(), "out")
	if _, err := wb(t, "simulate", "--trace", "datasets/data/gavel/small_test.trace", "--estimate", "noisy", "--sigma", "0.5", "--out", out); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"jobs.csv", "timeseries.csv"} {
		rows := readCSVFile(t, filepath.Join(out, f))
		col := slices.Index(rows[0], "sigma")
		if col < 0 || len(rows) < 2 || rows[1][col] != "0.5" {
			t.Errorf("%s: sigma column %d, first row %q: want 0.5", f, col, rows[min(1, len(rows)-1)])
		}
	}
}

// TestREADME runs every `wb simulate` command the README shows, and checks
// the output it prints for the first one.
func TestREADME(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	for _, line := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(line, "wb simulate ") {
			cmds = append(cmds, line)
		}
	}
	if len(cmds) < 5 {
		t.Fatalf("README shows %d wb simulate commands; expected the bundled traces", len(cmds))
	}
	for i, c := range cmds {
		args := strings.Fields(c)[1:]
		for k := range args {
			if args[k] == "--out" {
				args[k+1] = filepath.Join(t.TempDir(), "out")
			}
		}
		out, err := wb(t, args...)
		if err != nil {
			t.Errorf("%s: %v", c, err)
			continue
		}
		if strings.Contains(c, "pai_job_table") {
			// the README says what the PAI example simulates
			m := regexp.MustCompile(`(\d+) jobs simulated, (\d+) dropped`).FindStringSubmatch(string(readme))
			if m == nil || !strings.Contains(out, m[1]+" simulated, "+m[2]+" dropped") {
				t.Errorf("README's PAI example: it says %v; wb prints:\n%s", m, out)
			}
		}
		if i == 0 {
			block := regexp.MustCompile("(?s)prints\n\n```\n(.*?)```").FindStringSubmatch(string(readme))
			if block == nil {
				t.Fatal("README: no output block after the first command")
			}
			want := dropWrote(block[1])
			if got := dropWrote(out); got != want {
				t.Errorf("README's output of %q is stale:\n got:\n%s\nwant:\n%s", c, got, want)
			}
		}
	}
}

func dropWrote(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(l, "wrote") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// TestIntFlagBounds: an integer flag out of its range is refused with the
// flag's name before anything runs (once a panic, or silently accepted).
func TestIntFlagBounds(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"predict", "resnet50", "--top", "-1"}, "--top -1: want 0 or more"},
		{[]string{"predict", "resnet50", "--gpus", "0"}, "--gpus 0: want 1 to 1048576"},
		{[]string{"predict", "resnet50", "--batch", "0"}, "--batch 0: want 1 to 16777216"},
		{[]string{"profile", "gemm:8", "--top", "-3"}, "--top -3: want 0 or more"},
		{[]string{"profile", "gemm:8", "--max-reps", "0"}, "--max-reps 0: want 1 or more"},
		{[]string{"experiment", "configs/backfill.yaml", "--jobs", "-1"}, "--jobs -1: want 1 or more"},
		{[]string{"experiment", "configs/backfill.yaml", "--run-index", "-5"}, "--run-index -5: want 0 or more"},
		{[]string{"simulate", "--trace", "datasets/data/swf/KTH-SP2-1996-2.1-cln.swf.gz", "--procs", "0"}, "--procs 0: want 1 to 1099511627"},
	} {
		_, err := wb(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("wb %s: %v, want %q", strings.Join(c.args, " "), err, c.want)
		}
	}
}

// TestVersionAndHelp: --version prints what `wb version` prints; `wb help
// --help` and `wb help CMD` name what they describe; the top-level help
// speaks of prediction as well as scheduling; --procs shows its real
// default.
func TestVersionAndHelp(t *testing.T) {
	run := func(args ...string) string {
		t.Helper()
		var out, errs bytes.Buffer
		if err := newApp(&out, &errs).Run(append([]string{"wb"}, args...)); err != nil {
			t.Fatalf("wb %v: %v\n%s", args, err, errs.String())
		}
		return out.String()
	}
	if v, w := run("--version"), run("version"); v != w || !strings.HasPrefix(v, "wb ") {
		t.Errorf("--version printed %q, version %q", v, w)
	}
	if h := run("help", "--help"); !strings.Contains(h, "NAME:\n   wb") {
		t.Errorf("wb help --help has no name:\n%s", h)
	}
	if h := run("help", "simulate"); !strings.Contains(h, "wb simulate - run one scheduler") {
		t.Errorf("wb help simulate:\n%s", h)
	}
	if h := run("--help"); !strings.Contains(h, "predicts how long DNN training") || !strings.Contains(h, "EASY") {
		t.Errorf("the top-level help does not name both halves:\n%s", h)
	}
	if h := run("simulate", "--help"); !strings.Contains(h, "(default: the header's MaxProcs)") || strings.Contains(h, "(default: 0)") {
		t.Errorf("--procs' default:\n%s", h)
	}
	if l := run("predict", "--list"); !strings.Contains(l, "\ncpu ") {
		t.Errorf("predict --list omits cpu:\n%s", l)
	}
}

// TestREADMENotebooks: every notebook make test executes is named in the
// README's set-up, and the figures and files the README and docs/*.md link
// to exist.
func TestREADMENotebooks(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join(repoRoot, "scripts", "notebook-test.sh"))
	if err != nil {
		t.Fatal(err)
	}
	nbs := regexp.MustCompile(`notebooks/(\w+\.ipynb)`).FindAllStringSubmatch(regexp.MustCompile(`NOTEBOOKS=\(([^)]*)\)`).FindString(string(script)), -1)
	if len(nbs) < 3 {
		t.Fatalf("the notebook script lists %d notebooks", len(nbs))
	}
	setup := string(readme[:strings.Index(string(readme), "## wb experiment")])
	for _, nb := range nbs {
		if !strings.Contains(setup, nb[1]) {
			t.Errorf("README's set-up does not name %s, which make test executes", nb[1])
		}
	}
	image := regexp.MustCompile(`\]\(([^)]+\.png)\)`)
	for _, m := range image.FindAllStringSubmatch(string(readme), -1) {
		if _, err := os.Stat(filepath.Join(repoRoot, m[1])); err != nil {
			t.Errorf("README shows %s: %v", m[1], err)
		}
	}
	// the documents the README links to, their figures and their links to
	// one another (a relative link resolves from docs/)
	docs, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil || len(docs) < 3 {
		t.Fatalf("docs/*.md: %v, %d files", err, len(docs))
	}
	link := regexp.MustCompile(`\]\(([^)#:]+)\)`)
	for _, m := range link.FindAllStringSubmatch(string(readme), -1) {
		if _, err := os.Stat(filepath.Join(repoRoot, m[1])); err != nil {
			t.Errorf("README links to %s: %v", m[1], err)
		}
	}
	for _, d := range docs {
		b, err := os.ReadFile(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			if _, err := os.Stat(filepath.Join(filepath.Dir(d), m[1])); err != nil {
				t.Errorf("%s links to %s: %v", filepath.Base(d), m[1], err)
			}
		}
	}
}

// TestUsageErrorOneLine: a flag that does not parse is reported in one line
// that names the command's help, not under a page of it.
func TestUsageErrorOneLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"predict", "resnet50", "--batch", "1e9"}, `predict: invalid value "1e9" for flag --batch: want a whole number (wb predict --help lists the flags)`},
		{[]string{"simulate", "--seed", "-1", "--trace", "x.swf"}, `simulate: invalid value "-1" for flag --seed: want a whole number, 0 or more (wb simulate --help lists the flags)`},
		// a list's element, said so (Go's strconv error showed: a reviewer's find)
		{[]string{"evaluate", "p.json", "x.csv", "--fold-seeds", "abc"}, `evaluate: invalid value "abc" for flag --fold-seeds: want whole numbers, comma-separated (wb evaluate --help lists the flags)`},
		{[]string{"dataset", "pai-sim-synthetic", "--jobs", "x"}, `dataset pai-sim-synthetic: invalid value "x" for flag --jobs`},
		{[]string{"--bogus"}, "flag provided but not defined: --bogus (wb --help lists the flags)"},
		{[]string{"simulate", "--trace"}, "simulate: flag needs an argument: --trace"},
		{[]string{"experiment", "--quiet=x", "configs/backfill.yaml"}, `experiment: invalid boolean value "x" for --quiet: want true or false`},
		{[]string{"predict", "resnet50", "-12"}, "flag provided but not defined: -12 "}, // a number, not a flag's name
		{[]string{"experiment", "configs/backfill.yaml", "-j1"}, "flag provided but not defined: --j1; a flag and its value go apart: -j 1 (wb experiment --help lists the flags)"},
		{[]string{"version", "extra"}, `version takes no arguments, got "extra"`},
		{[]string{"dataset", "nosuch"}, `dataset: unknown command "nosuch" (commands: pai-sim, pai-sim-sample, pai-sim-synthetic)`},
		{[]string{"experiment", "--explain", "backfill"}, `experiment: --explain documents every field of every kind of config and takes no argument ("backfill" given)`},
	} {
		out, err := wb(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
		if strings.Contains(out, "USAGE") || strings.Contains(out, "OPTIONS") {
			t.Errorf("%v: printed the help:\n%s", c.args, out)
		}
	}
}

// TestUnknownCommand: a misspelt command is refused as one, with the
// nearest command where it is a typo away (cli answered "No help topic").
func TestUnknownCommand(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"experimnt", "configs/backfill.yaml"}, `unknown command "experimnt"; did you mean "experiment"?`},
		{[]string{"help", "simulat"}, `unknown command "simulat"; did you mean "simulate"?`},
		{[]string{"frobnicate"}, `unknown command "frobnicate" (wb --help lists the commands)`},
		// short words are not help's alias h two edits away
		{[]string{"ls"}, `unknown command "ls" (wb --help lists the commands)`},
		{[]string{"x"}, `unknown command "x" (wb --help lists the commands)`},
	} {
		_, err := wb(t, tt.args...)
		if err == nil || err.Error() != tt.want && !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("wb %s: %v, want %q", strings.Join(tt.args, " "), err, tt.want)
		}
	}
	if out, err := wb(t); err != nil || !strings.Contains(out, "USAGE:") {
		t.Errorf("wb alone: %v\n%s", err, out)
	}
}

// TestSpecSheetsListed: wb predict --list names every spec sheet
// --device-spec takes by name, as its error for an unknown one does.
func TestSpecSheetsListed(t *testing.T) {
	list, err := wb(t, "predict", "--list")
	if err != nil {
		t.Fatal(err)
	}
	listed := regexp.MustCompile(`GPU spec sheets bundled \([^)]*\): (.*)`).FindStringSubmatch(list)
	_, err = wb(t, "predict", "gpt2-large", "--device-spec", "NVIDIA_H100")
	named := regexp.MustCompile(`bundled spec sheet \(([^)]*)\)`).FindStringSubmatch(fmt.Sprint(err))
	if listed == nil || named == nil || listed[1] != named[1] || !strings.Contains(listed[1], "NVIDIA_H200") {
		t.Errorf("--list: %q; the error: %q", listed, named)
	}
}

// TestOutNotOverwritten: --out of wb evaluate, wb predict --validate
// neusight, wb profile and wb train does not replace what is not theirs:
// a folder of other files or an experiment's results, a predictor named as
// a profile's CSV or a profile named as a predictor's JSON.
func TestOutNotOverwritten(t *testing.T) {
	foreign := t.TempDir()
	mine := filepath.Join(foreign, "predictions.csv")
	for _, f := range []string{mine, filepath.Join(foreign, "notes.txt")} {
		if err := os.WriteFile(f, []byte("mine\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exp := t.TempDir()
	if err := os.WriteFile(filepath.Join(exp, experiments.MarkerFile), []byte(`{"config_hash": "x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"predict", "--validate", "neusight", "--out", foreign}, "holds files wb predict --validate neusight did not write (notes.txt, predictions.csv)"},
		{[]string{"predict", "--validate", "neusight", "--out", exp}, "holds the results of wb experiment or wb simulate"},
		{[]string{"profile", "alexnet", "--out", filepath.Join(foreign, "p.json")}, "a profile is written as a csv file: name it *.csv"},
		{[]string{"train", "datasets/profiles/cpu-alexnet.csv", "--out", filepath.Join(foreign, "p.csv")}, "a predictor is written as a json file: name it *.json"},
	} {
		_, err := wb(t, tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("wb %s: %v, want %q", strings.Join(tt.args, " "), err, tt.want)
		}
	}
	if b, _ := os.ReadFile(mine); string(b) != "mine\n" {
		t.Errorf("predictions.csv changed: %q", b)
	}
	if _, err := outFolder(mine, evaluateOut); err == nil || !strings.Contains(err.Error(), "predictions.csv is a file") {
		t.Errorf("--out naming a file: %v", err)
	}
	// a folder holding only what the command writes is its earlier results
	prev := t.TempDir()
	if err := os.MkdirAll(filepath.Join(prev, "figures"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := outFolder(prev, evaluateOut); err != nil {
		t.Errorf("earlier results: %v", err)
	}
	// a run killed while writing its predictions left its temporary file
	if err := os.WriteFile(filepath.Join(prev, ".predictions.csv.tmp123"), []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := outFolder(prev, evaluateOut); err != nil {
		t.Errorf("a killed run's temporary file: %v", err)
	}
	if _, err := outFolder(filepath.Join(prev, "new"), evaluateOut); err != nil {
		t.Errorf("a new folder: %v", err)
	}
	// make blind-check trains the predictor into the folder it evaluates
	// into: the predictor there is not foreign to wb evaluate
	blind := t.TempDir()
	pred := filepath.Join(blind, "predictor.json")
	if err := os.WriteFile(pred, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := wb(t, "evaluate", pred, "datasets/profiles/cpu-alexnet.csv", "--out", blind)
	if err == nil || strings.Contains(err.Error(), "did not write") || !strings.Contains(err.Error(), "not a wb predictor") {
		t.Errorf("evaluate into the predictor's folder: %v", err)
	}
	if err := os.WriteFile(filepath.Join(blind, "notes.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := wb(t, "evaluate", pred, "datasets/profiles/cpu-alexnet.csv", "--out", blind); err == nil || !strings.Contains(err.Error(), "holds files wb evaluate did not write (notes.txt)") {
		t.Errorf("evaluate into a folder of other files: %v", err)
	}
}

// TestPredictCaveats: decoding (products of a few rows) is said to be an
// upper bound, with the time a stream of the weights would take, on one
// GPU and split over several, and a strong-scaling batch that does not
// split over the GPUs is refused.
func TestPredictCaveats(t *testing.T) {
	for _, batch := range []string{"1", "4"} {
		out, err := wb(t, "predict", "llama2-7b", "--device-spec", "NVIDIA_H100_80GB_HBM3", "--seq", "1", "--batch", batch)
		if err != nil || !strings.Contains(out, "or fewer rows, decoding's shape, which stream their weights") || !strings.Contains(out, "treat this figure as an upper bound") ||
			!strings.Contains(out, "GB streamed at 0.8 of the bandwidth would take") {
			t.Errorf("seq 1, batch %s: %v\n%s", batch, err, out)
		}
	}
	for _, args := range [][]string{
		{"predict", "gpt2-large", "--device-spec", "NVIDIA_A100-SXM4-40GB", "--mode", "train", "--seq", "1", "--batch", "4", "--parallel", "dp2"},
		// the analytical path's, with the GPU op model (it was lost there
		// for a while: a reviewer's find)
		{"predict", "--model-config", "datasets/data/neusight/models/gpt2_large.json", "--seq", "1", "--batch", "1", "--device", "h100-sxm", "--gpu-model"},
	} {
		if out, err := wb(t, args...); err != nil || !strings.Contains(out, "at sequence 1 every product is a matrix-vector product") {
			t.Errorf("%v: %v\n%s", args, err, out)
		}
	}
	// the roofline's products are not the op model's: no such note
	if out, err := wb(t, "predict", "--model-config", "datasets/data/neusight/models/gpt2_large.json", "--seq", "1", "--batch", "1", "--device", "h100-sxm"); err != nil || strings.Contains(out, "every product is a matrix-vector product") {
		t.Errorf("the analytical path at sequence 1: %v\n%s", err, out)
	}
	// in training, the weight gradients over the token's reduction too:
	// their bytes (a weight-sized gradient written, another read) tripled
	// the stream, where the products alone were counted
	out, err := wb(t, "predict", "llama2-7b", "--device-spec", "NVIDIA_H100_80GB_HBM3", "--seq", "1", "--batch", "1", "--mode", "train")
	if err != nil || !regexp.MustCompile(`their (7[5-9]|8[0-5])\.\d\d GB streamed`).MatchString(out) {
		t.Errorf("training at sequence 1: %v\n%s", err, out)
	}
	if out, err := wb(t, "predict", "llama2-7b", "--device-spec", "NVIDIA_H100_80GB_HBM3", "--seq", "128", "--batch", "1"); err != nil || strings.Contains(out, "upper bound") {
		t.Errorf("seq 128: %v\n%s", err, out)
	}
	if _, err := wb(t, "predict", "resnet50", "--device", "v100", "--batch", "64", "--gpus", "3", "--strong"); err == nil || !strings.Contains(err.Error(), "--batch 64 does not split over --gpus 3") {
		t.Errorf("--strong 64 over 3: %v", err)
	}
}

// TestSimulateSampleBeyondTrace: a sample larger than the trace is said
// to run it whole; one within it says nothing.
func TestSimulateSampleBeyondTrace(t *testing.T) {
	out, err := wb(t, "simulate", "--trace", "datasets/data/gavel/small_test.trace", "--sample", "100000")
	if err != nil || !regexp.MustCompile(`note +--sample 100000, but the trace holds \d+ jobs: the run simulates them all`).MatchString(out) {
		t.Errorf("%v\n%s", err, out)
	}
	if out, err := wb(t, "simulate", "--trace", "datasets/data/gavel/small_test.trace", "--sample", "3"); err != nil || strings.Contains(out, "--sample 3") {
		t.Errorf("--sample 3: %v\n%s", err, out)
	}
}

// TestSimulatePartArgs: --arg PART.KEY=VALUE hands a part a setting, read
// as YAML; the part refuses one it does not know, naming itself, and a
// malformed --arg, a part that is none, a key given twice and noisy's σ
// are said before anything runs.
func TestSimulatePartArgs(t *testing.T) {
	trace := "gavel:" + filepath.Join(repoRoot, "datasets", "data", "gavel", "small_test.trace")
	base := []string{"simulate", "--trace", trace, "--cluster", "nodes:2x4:V100", "--placement", "ga"}
	summary := func(args ...string) string {
		out := filepath.Join(t.TempDir(), "o")
		if text, err := wb(t, append(append(base, args...), "--out", out)...); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, text)
		}
		b, err := os.ReadFile(filepath.Join(out, "summary.csv"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// a GA of a population of 2 for a generation places otherwise than the
	// paper's defaults
	if summary() == summary("--arg", "placement.population=2", "--arg", "placement.generations=1", "--arg", "placement.no_seed=true") {
		t.Error("ga with --arg population=2, generations=1, no_seed=true: the same summary as without")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--arg", "placement.popl=4"}, "ga: arguments popl=4: popl is not a setting of ga (its settings: population, generations,"},
		{[]string{"--arg", "placement.population=lots"}, "ga: arguments population=lots: population: lots: want a whole number"},
		{[]string{"--arg", "placement.population=10.7"}, "ga: arguments population=10.7: population: 10.7: want a whole number"},
		{[]string{"--arg", "population=4"}, `--arg "population=4": want PART.KEY=VALUE`},
		{[]string{"--arg", "placement.population"}, `--arg "placement.population": want PART.KEY=VALUE`},
		{[]string{"--arg", "gpu.x=1"}, `"gpu" is not a part: order, backfill, placement or estimate`},
		{[]string{"--arg", "placement.population=4", "--arg", "placement.population=5"}, "placement.population given twice"},
		{[]string{"--arg", "backfill.depth=2"}, "none takes no arguments (given depth=2)"},
		{[]string{"--estimate", "noisy", "--sigma", "1", "--arg", "estimate.sigma=2"}, "--estimate noisy's setting is --sigma"},
	} {
		text, err := wb(t, append(append(base, c.args...), "--out", filepath.Join(t.TempDir(), "o"))...)
		if err == nil || !strings.Contains(err.Error()+text, c.want) {
			t.Errorf("%v: %v\n%s\nwant %q", c.args, err, text, c.want)
		}
	}
}

// TestDatasetOutKeepsInputs: wb dataset refuses, before any work, an
// --out that is its own input or an existing file that is no job table,
// and leaves both as they were (a sample written over its table, a
// derived table over the raw task table: a reviewer's find); a job table
// it wrote before is replaced.
func TestDatasetOutKeepsInputs(t *testing.T) {
	dir := t.TempDir()
	table := filepath.Join(dir, "t.csv")
	if _, err := wb(t, "dataset", "pai-sim-synthetic", "--jobs", "50", "--seed", "1", "--out", table); err != nil {
		t.Fatal(err)
	}
	// a folder --out names and that is not there is made, as wb profile
	// and wb train make theirs (it was refused)
	if _, err := wb(t, "dataset", "pai-sim-synthetic", "--jobs", "5", "--out", filepath.Join(dir, "new", "sub", "t.csv")); err != nil {
		t.Errorf("--out in a folder to make: %v", err)
	}
	before, _ := os.ReadFile(table)
	if _, err := wb(t, "dataset", "pai-sim-sample", "--table", table, "--jobs", "10", "--out", table); err == nil || !strings.Contains(err.Error(), "is the --table input") {
		t.Errorf("--out the input table: %v", err)
	}
	notes := filepath.Join(dir, "notes.csv")
	os.WriteFile(notes, []byte("my notes\n"), 0o644)
	if _, err := wb(t, "dataset", "pai-sim-sample", "--table", table, "--jobs", "10", "--out", notes); err == nil || !strings.Contains(err.Error(), "exists and is not a job table") {
		t.Errorf("--out a file of one's own: %v", err)
	}
	if after, _ := os.ReadFile(table); !bytes.Equal(before, after) {
		t.Error("the input table changed")
	}
	if b, _ := os.ReadFile(notes); string(b) != "my notes\n" {
		t.Errorf("notes.csv now %q", b)
	}
	sample := filepath.Join(dir, "s.csv")
	for _, n := range []string{"10", "5"} {
		if out, err := wb(t, "dataset", "pai-sim-sample", "--table", table, "--jobs", n, "--out", sample); err != nil || !strings.Contains(out, "wrote "+sample+": "+n+" jobs") {
			t.Errorf("a sample of %s over a job table: %v\n%s", n, err, out)
		}
	}
	// a link as --out is refused (the file was renamed over the link, its
	// target left stale, "wrote" said: a reviewer's find), a dangling one
	// too; the target is as it was
	link := filepath.Join(dir, "link.csv")
	if err := os.Symlink(sample, link); err != nil {
		t.Fatal(err)
	}
	was, _ := os.ReadFile(sample)
	if _, err := wb(t, "dataset", "pai-sim-synthetic", "--jobs", "7", "--out", link); err == nil || !strings.Contains(err.Error(), "--out "+link+" is a symbolic link (to "+sample+")") {
		t.Errorf("--out a link: %v", err)
	}
	if now, _ := os.ReadFile(sample); !bytes.Equal(was, now) {
		t.Error("the link's target changed")
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	// a table of a header alone is said to be one (its note had said
	// "all of them written" and "not written" at once)
	empty := filepath.Join(dir, "empty.csv")
	os.WriteFile(empty, []byte("job_id,user,num_gpu,num_cpu,submit_time,duration,num_inst,gpu_type,user_dur,group_dur,group_gpu_dur\n"), 0o644)
	if _, err := wb(t, "dataset", "pai-sim-sample", "--table", empty, "--jobs", "10", "--out", filepath.Join(dir, "x.csv")); err == nil || !strings.Contains(err.Error(), "--table "+empty+" holds no jobs (a header alone)") {
		t.Errorf("a header-only table: %v", err)
	}
}

// TestPlacementOnOneNode: a placement given for an SWF trace's processor
// pool, one node, is said to change nothing, where it does not (placements
// on KTH differed in name alone: a reviewer's find); the default says
// nothing, nor a node of GPUs, where fgd and random choose a shared job's
// GPU.
func TestPlacementOnOneNode(t *testing.T) {
	swfTrace := filepath.Join(repoRoot, "datasets", "data", "swf", "KTH-SP2-1996-2.1-cln.swf.gz")
	gavel := "gavel:" + filepath.Join(repoRoot, "datasets", "data", "gavel", "small_test.trace")
	for _, c := range []struct {
		args []string
		note bool
	}{
		{[]string{"--trace", swfTrace, "--sample", "200", "--placement", "tetris"}, true},
		{[]string{"--trace", swfTrace, "--sample", "200"}, false},
		{[]string{"--trace", gavel, "--cluster", "nodes:1x8:V100", "--placement", "tetris"}, false},
	} {
		out, err := wb(t, append([]string{"simulate", "--out", t.TempDir()}, c.args...)...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", c.args, err, out)
		}
		if got := strings.Contains(out, "note: --placement tetris chooses among nodes, and the processor pool of"); got != c.note {
			t.Errorf("%v: note %v, want %v:\n%s", c.args, got, c.note, out)
		}
	}
	// --consolidate on a pool changes nothing and is said so (its name
	// alone changed: a reviewer's find); on GPU nodes nothing is said
	for _, c := range []struct {
		args []string
		note bool
	}{
		{[]string{"--trace", swfTrace, "--sample", "200", "--consolidate"}, true},
		{[]string{"--trace", gavel, "--cluster", "nodes:2x4:V100", "--consolidate"}, false},
	} {
		out, err := wb(t, append([]string{"simulate", "--out", t.TempDir()}, c.args...)...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", c.args, err, out)
		}
		if got := strings.Contains(out, "note: --consolidate keeps a data-parallel job's GPU replicas on one node, and the processor pool of"); got != c.note {
			t.Errorf("%v: note %v, want %v:\n%s", c.args, got, c.note, out)
		}
	}
}
