package experiments

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wb-sim/wb/scheduler/inflation"
)

// writeInflationInputs writes a small openb node list (12 nodes) and pod
// list (150 pods) into dir.
func writeInflationInputs(t *testing.T, dir string) {
	t.Helper()
	var nodes strings.Builder
	nodes.WriteString("sn,cpu_milli,memory_mib,gpu,model\n")
	for i := range 12 {
		model, gpus := "T4", 2
		if i%3 == 0 {
			model, gpus = "V100", 8
		}
		fmt.Fprintf(&nodes, "node-%02d,%d,262144,%d,%s\n", i, 32000+16000*(i%2), gpus, model)
	}
	var pods strings.Builder
	pods.WriteString("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n")
	for i := range 150 {
		gpus, milli, spec := 1, 100+(i*137)%900, ""
		switch i % 7 {
		case 0:
			gpus, milli = 0, 0
		case 1:
			milli = 1000
		case 2:
			gpus, milli = 2+(i%3)*2, 1000
		case 3:
			spec = "T4"
		}
		fmt.Fprintf(&pods, "pod-%03d,%d,%d,%d,%d,%s\n", i, 1000+(i%8)*1000, 1024*(1+i%4), gpus, milli, spec)
	}
	for name, s := range map[string]string{"openb_node_list_small.csv": nodes.String(), "openb_pod_list_small.csv": pods.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const inflationConfig = `name: infl
inflation:
  seeds: [1, 2, 3]
workloads:
  - {name: small, trace: openb_pod_list_small.csv, cluster: openb:openb_node_list_small.csv}
schedulers:
  - {name: BestFit, placement: best-fit-fgd}
  - {name: FGD, placement: fgd}
  - {name: GA, placement: ga}
`

func TestInflationExperiment(t *testing.T) {
	dir := t.TempDir()
	writeInflationInputs(t, dir)
	path := filepath.Join(dir, "infl.yaml")
	if err := os.WriteFile(path, []byte(inflationConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	files := []string{InflationSummaryFile, InflationCurveFile, InflationFailedFile,
		"figures/alloc-small.png", "figures/frag-small.svg", "figures/unallocated.pdf"}
	var first map[string][]byte
	for _, jobs := range []int{1, 3} {
		c, err := LoadConfig(path)
		if err != nil {
			t.Fatal(err)
		}
		c.Out = filepath.Join(dir, fmt.Sprintf("out%d", jobs))
		rep, err := Run(context.Background(), c, RunOptions{Jobs: jobs})
		if err != nil {
			t.Fatal(err)
		}
		checkOwned(t, c.Out)
		// the manifest names the streams the replay draws from
		if m, err := os.ReadFile(filepath.Join(c.Out, ManifestFile)); err != nil || !strings.Contains(string(m), fmt.Sprintf("random placement from rand.NewPCG(s, %#x)", inflation.RandomStream)) {
			t.Errorf("manifest's streams (%v):\n%s", err, m)
		}
		if rep.Runs != 9 || !strings.Contains(rep.Table, "FGD") {
			t.Errorf("%d runs, table:\n%s", rep.Runs, rep.Table)
		}
		got := map[string][]byte{}
		for _, f := range files {
			b, err := os.ReadFile(filepath.Join(c.Out, f))
			if err != nil {
				t.Fatal(err)
			}
			got[f] = b
		}
		if first == nil {
			first = got
			continue
		}
		for _, f := range files {
			if !bytes.Equal(first[f], got[f]) {
				t.Errorf("%s differs between --jobs 1 and 3", f)
			}
		}
		// wb plot redraws the figures from the CSVs, to the same bytes.
		if err := os.Remove(filepath.Join(c.Out, "figures/alloc-small.png")); err != nil {
			t.Fatal(err)
		}
		if _, _, err := Plot(c.Out); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(filepath.Join(c.Out, "figures/alloc-small.png")); !bytes.Equal(b, first["figures/alloc-small.png"]) {
			t.Error("wb plot drew another alloc-small.png")
		}
		// its figures are recorded as wb's, as the queue kind's are (they
		// were not, so never replaced nor removed: a reviewer's find),
		// and a picture of the user's beside them stays
		rec, err := os.ReadFile(filepath.Join(c.Out, FiguresDir, FiguresRecord))
		if err != nil || !strings.Contains(string(rec), "alloc-small.png\n") || !strings.Contains(string(rec), "unallocated.pdf\n") {
			t.Errorf("the inflation figures' record: %q, %v", rec, err)
		}
		put(t, c.Out, "figures/alloc-annotated.png", "mine")
		recordAlso(t, filepath.Join(c.Out, FiguresDir), "frag-gone.png")
		put(t, c.Out, "figures/frag-gone.png", "an old drawing")
		if _, _, err := Plot(c.Out); err != nil {
			t.Fatal(err)
		}
		if !exists(c.Out, "figures/alloc-annotated.png") || exists(c.Out, "figures/frag-gone.png") {
			t.Errorf("after a plot: the user's picture there %v, a stale drawing there %v", exists(c.Out, "figures/alloc-annotated.png"), exists(c.Out, "figures/frag-gone.png"))
		}
	}
	sum := string(first[InflationSummaryFile])
	if !strings.HasPrefix(sum, "workload,scheduler,placement,seed,pods,") || strings.Count(sum, "\n") != 10 {
		t.Errorf("summary.csv:\n%s", sum)
	}
	// curve.csv: per scheduler, arrived percentages rising from 0 to at
	// most 130, each the mean of 1 to 3 seeds.
	rows := strings.Split(strings.TrimSpace(string(first[InflationCurveFile])), "\n")[1:]
	last := map[string]int{}
	for _, row := range rows {
		var w, s string
		var x, n int
		f := strings.Split(row, ",")
		w, s = f[0], f[1]
		fmt.Sscan(f[2], &x)
		fmt.Sscan(f[7], &n)
		if prev, ok := last[s]; w != "small" || (ok && x <= prev) || x > 130 || n < 1 || n > 3 {
			t.Fatalf("curve.csv row %q", row)
		}
		last[s] = x
	}
	if len(last) != 3 || last["FGD"] < 120 {
		t.Errorf("curve.csv ends at %v", last)
	}
	if !strings.Contains(string(first[InflationFailedFile]), "small,GA,3,share-gpu,") {
		t.Errorf("failed.csv:\n%.400s", first[InflationFailedFile])
	}
	// result files cut short or edited are refused by wb plot, naming the
	// file and what is missing (an emptied summary.csv stopped at a NaN in
	// the plotting library's words: a reviewer's find)
	out := filepath.Join(dir, "out3")
	sumLines := strings.SplitAfter(sum, "\n")
	for name, c := range map[string]struct{ file, body, want string }{
		"summary emptied":   {InflationSummaryFile, "", "summary.csv: no row of 9 of the config's 9 runs (the first: workload small, scheduler"},
		"summary row gone":  {InflationSummaryFile, sumLines[0] + strings.Join(sumLines[2:], ""), "summary.csv: no row of 1 of the config's 9 runs"},
		"summary row twice": {InflationSummaryFile, sum + sumLines[1], "again: each run has one row"},
		"curve cut":         {InflationCurveFile, strings.Join(strings.SplitAfter(string(first[InflationCurveFile]), "\n")[:2], ""), "curve.csv: no point of workload small, scheduler"},
	} {
		if err := os.WriteFile(filepath.Join(out, c.file), []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := Plot(out); err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "NaN") {
			t.Errorf("%s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(out, c.file), first[c.file], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// one seed: its values, and no interval said or shown
	one := strings.Replace(inflationConfig, "seeds: [1, 2, 3]", "seeds: [1]", 1)
	if err := os.WriteFile(path, []byte(one), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	c.Out = filepath.Join(dir, "one")
	rep, err := Run(context.Background(), c, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(rep.Table, "one seed: the values, no interval") || strings.Contains(rep.Table, "±") {
		t.Errorf("table of one seed:\n%s", rep.Table)
	}
}

// An interrupted replay says it wrote nothing, and is a cancellation:
// before any run, with the folder not made (its pod lists are read before
// it is claimed); as its first run ends, with no result file; and a
// replay's folder has no runs to collect.
func TestInflationInterrupted(t *testing.T) {
	dir := t.TempDir()
	writeInflationInputs(t, dir)
	path := filepath.Join(dir, "infl.yaml")
	os.WriteFile(path, []byte(inflationConfig), 0o644)
	c, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	c.Out = filepath.Join(dir, "out")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Run(ctx, c, RunOptions{Jobs: 1})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "interrupted before any run began: nothing written") {
		t.Errorf("error %v", err)
	}
	if _, err := os.Stat(c.Out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the folder was made (%v)", err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	_, err = Run(ctx, c, RunOptions{Jobs: 1, Progress: cancelOnWrite{cancel}})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "so none of this run's were written (any earlier results of this config there are as they were); run it again") {
		t.Errorf("error %v", err)
	}
	if _, err := os.Stat(filepath.Join(c.Out, InflationSummaryFile)); err == nil {
		t.Error("an interrupted replay wrote its summary")
	}
	// a replay stores no run one by one: collect has nothing to merge, and
	// says so (it said the runs were not complete)
	if _, err := Collect(context.Background(), c.Out, ""); err == nil || !strings.Contains(err.Error(), "nothing to collect: an inflation experiment runs whole") {
		t.Errorf("collect: %v", err)
	}
}

func TestInflationConfigErrors(t *testing.T) {
	cfg := `name: bad
seed: 4
inflation:
  ratio: -1
  coverage: 1.5
  seeds: [1, 1]
workloads:
  - {trace: swf:x.swf, window: 10}
  - {trace: openb_pod_list_a.csv, cluster: pool:10}
schedulers:
  - {placement: fgd, backfill: easy}
  - {name: none}
sweep:
  load: [1]
`
	_, err := ParseConfig([]byte(cfg), "bad.yaml")
	if err == nil {
		t.Fatal("bad config accepted")
	}
	for _, want := range []string{
		"bad.yaml:4: inflation.ratio: -1: want a positive multiple",
		"bad.yaml:5: inflation.coverage: 1.5: want a share in (0, 1]",
		"bad.yaml:6: inflation.seeds[1]: seed 1 already at seeds[0]",
		"bad.yaml:8: workloads[0]: an inflation experiment takes a trace and a cluster only",
		`bad.yaml:8: workloads[0].trace: "swf:x.swf": an inflation experiment replays openb pod lists`,
		`bad.yaml:9: workloads[1].cluster: "pool:10": an inflation experiment runs on an openb node list`,
		"bad.yaml:11: schedulers[0]: an inflation experiment has no queue",
		"bad.yaml:12: schedulers[1].placement: required",
		"bad.yaml:2: seed: not used by an inflation experiment",
		"bad.yaml:14: sweep: not used by an inflation experiment",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("errors lack %q", want)
		}
	}
	if t.Failed() {
		t.Logf("all errors:\n%v", err)
	}
	if e := Explain(); !strings.Contains(e, "\ninflation.ratio ") || !strings.Contains(e, "\ninflation.seeds ") {
		t.Error("--explain lacks the inflation fields")
	}
}

// TestKinds: a config is of the kind that claims it; the inflation kind
// refuses a Slurm array with its reason; every registered kind has a name
// and the queue kind is the default.
func TestKinds(t *testing.T) {
	dir := t.TempDir()
	writeInflationInputs(t, dir)
	path := filepath.Join(dir, "infl.yaml")
	if err := os.WriteFile(path, []byte(inflationConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	if k := c.Kind().Name(); k != "inflation" {
		t.Errorf("inflation config is of kind %q", k)
	}
	if _, err := SubmitSlurm(context.Background(), c, path, SlurmOptions{}); err == nil || !strings.Contains(err.Error(), "not as a Slurm array") {
		t.Errorf("Slurm array of an inflation experiment: %v", err)
	}
	if k := loadSmall(t, t.TempDir()).Kind().Name(); k != "queue" {
		t.Errorf("small.yaml is of kind %q", k)
	}
	if got := kinds.Names(); !slices.Equal(got, []string{"inflation", "queue"}) {
		t.Errorf("kinds %v", got)
	}
}

// TestInflationEditedCopySaid: an inflation experiment run again over an
// edited copy of its config says the copy was moved aside without
// progress (wb experiment -q) too, as a queue experiment does (its claim
// dropped the notes' writer: a reviewer's find).
func TestInflationEditedCopySaid(t *testing.T) {
	dir := t.TempDir()
	writeInflationInputs(t, dir)
	path := filepath.Join(dir, "infl.yaml")
	if err := os.WriteFile(path, []byte(strings.Replace(inflationConfig, "seeds: [1, 2, 3]", "seeds: [1]", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	load := func() *Config {
		c, err := LoadConfig(path)
		if err != nil {
			t.Fatal(err)
		}
		c.Out = filepath.Join(dir, "out")
		return c
	}
	if _, err := Run(context.Background(), load(), RunOptions{}); err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(dir, "out", ConfigCopy)
	b, err := os.ReadFile(cp)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cp, append(b, "# edited\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	var said strings.Builder
	if _, err := Run(context.Background(), load(), RunOptions{Notes: &said}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cp + ".edited"); err != nil || !strings.Contains(said.String(), "kept as "+cp+".edited") {
		t.Errorf("the edited copy: %v; said %q", err, said.String())
	}
}
