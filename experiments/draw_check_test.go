package experiments

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wb-sim/wb/datasets"
	"github.com/wb-sim/wb/experiments/figures"
)

// TestBackfillFiguresPass: the figures of configs/backfill.yaml (the demo)
// pass the figures' check: no interval leaves its metric's range (Render
// refuses those), no data squeezed into a corner of an axis, no category
// hidden beside another, no identical series without a note.
func TestBackfillFiguresPass(t *testing.T) {
	t.Parallel() // (long: overlaps the package's other long tests on a second core)
	_, rep, _, _ := runBundled(t, "backfill.yaml")
	if len(rep.Files) < 20 {
		t.Fatalf("%d files written", len(rep.Files))
	}
	for _, f := range rep.FigureFindings {
		t.Errorf("figure check: %s", f)
	}
}

// TestSharedSimulations: under a σ sweep, the runs whose estimate does
// not use σ (user, history, exact) share one simulation per point, and the
// results are the bytes of every run simulated on its own: with 1 or 2
// workers, summary.csv is the same, and each shared run names the run it
// shares.
func TestSharedSimulations(t *testing.T) {
	var sums [][]byte
	for _, jobs := range []int{1, 2} {
		c, err := LoadConfig(filepath.Join("..", "configs", "prediction.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		c.Out = t.TempDir()
		if _, err := Run(context.Background(), c, RunOptions{Jobs: jobs}); err != nil {
			t.Fatal(err)
		}
		shared, noisy := 0, 0
		for _, k := range c.Runs() {
			b, err := os.ReadFile(runPath(c.Out, k.Index))
			if err != nil {
				t.Fatal(err)
			}
			var r RunResult
			if err := json.Unmarshal(b[:bytes.IndexByte(b, '\n')], &r); err != nil {
				t.Fatal(err)
			}
			est := c.Schedulers[k.Scheduler].Estimate
			switch {
			case r.SameAs != nil && est == "noisy":
				noisy++
			case r.SameAs != nil:
				shared++
				if first := c.Runs()[*r.SameAs]; c.simKey(first) != c.simKey(k) || first.Sigma == k.Sigma {
					t.Errorf("run %d shares run %d, a different simulation", k.Index, *r.SameAs)
				}
			}
		}
		sigmas := len(c.Sweep.Sigma)
		if want := len(c.Runs()) * 3 / 4 * (sigmas - 1) / sigmas; shared != want || noisy != 0 {
			t.Errorf("%d runs shared a simulation (want %d), %d noisy ones did", shared, want, noisy)
		}
		b, err := os.ReadFile(filepath.Join(c.Out, SummaryFile))
		if err != nil {
			t.Fatal(err)
		}
		sums = append(sums, b)
	}
	if !bytes.Equal(sums[0], sums[1]) {
		t.Error("summary.csv differs with 1 and 2 workers")
	}
}

// TestScaleTime: time axes in seconds take the unit their largest value
// reads best in, the same for every figure of one entry; other axes stay.
func TestScaleTime(t *testing.T) {
	a := &figures.Figure{Kind: figures.Bar, YLabel: "mean wait (s), load 1.2", Series: []figures.Series{
		{X: []float64{0}, Y: []float64{600000}, Lo: []float64{300000}, Hi: []float64{864000}}}}
	b := &figures.Figure{Kind: figures.CDF, XLabel: "wait (s)", Series: []figures.Series{{X: []float64{1, 8640}, Y: []float64{0.5, 1}}}}
	c := &figures.Figure{Kind: figures.Line, YLabel: "mean bounded slowdown", Series: []figures.Series{{X: []float64{1}, Y: []float64{5000}}}}
	scaleTime([]namedFigure{{"a", a}, {"b", b}, {"c", c}})
	if a.YLabel != "mean wait (days), load 1.2" || a.Series[0].Y[0] != 600000.0/86400 || a.Series[0].Hi[0] != 10 {
		t.Errorf("bar: %q %v %v", a.YLabel, a.Series[0].Y, a.Series[0].Hi)
	}
	if b.XLabel != "wait (days)" || b.Series[0].X[1] != 0.1 || b.Series[0].Y[1] != 1 {
		t.Errorf("cdf: %q %v %v", b.XLabel, b.Series[0].X, b.Series[0].Y)
	}
	if c.YLabel != "mean bounded slowdown" || c.Series[0].Y[0] != 5000 {
		t.Errorf("not a time: %q %v", c.YLabel, c.Series[0].Y)
	}
	short := &figures.Figure{Kind: figures.Line, YLabel: "mean wait (s)", Series: []figures.Series{{X: []float64{1}, Y: []float64{90}}}}
	scaleTime([]namedFigure{{"s", short}})
	if short.YLabel != "mean wait (s)" || short.Series[0].Y[0] != 90 {
		t.Errorf("90 s: %q %v", short.YLabel, short.Series[0].Y)
	}
}

// TestResumeRerunsStaleRuns: a stored run whose rows are in another
// schema (an older wb's), that another build of wb made, or whose file
// changed on disk since wb wrote it (a figure of its header, a byte of its
// rows, its checksum gone) is run again on --resume, never merged; the
// files are those of a fresh run.
func TestResumeRerunsStaleRuns(t *testing.T) {
	t.Parallel() // (long: overlaps the package's other long tests on a second core)
	fresh := t.TempDir()
	if _, err := Run(context.Background(), loadSmall(t, fresh), RunOptions{Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	replace := func(cur, old string) func([]byte) []byte {
		return func(b []byte) []byte { return bytes.Replace(b, []byte(cur), []byte(old), 1) }
	}
	for _, c := range []struct {
		name, why string
		change    func([]byte) []byte
	}{
		{"old schema", "schema", replace(fmt.Sprintf(`"schema":%d`, RowSchema), fmt.Sprintf(`"schema":%d`, RowSchema-1))},
		{"another build", "another build", replace(fmt.Sprintf(`"build":%q`, BuildID()), `"build":"0123456789abcdef"`)},
		{"no build recorded", "another build", replace(fmt.Sprintf(`,"build":%q`, BuildID()), ``)},
		{"a figure changed", "checksum", func(b []byte) []byte {
			// the run's mean wait, its first digit another
			i := bytes.Index(b, []byte(`"MeanWait":`)) + len(`"MeanWait":`)
			out := slices.Clone(b)
			out[i] = '1' + (b[i]-'0')%8
			return out
		}},
		{"a byte of its rows flipped", "checksum", func(b []byte) []byte {
			i := bytes.LastIndexAny(b, "123456789")
			out := slices.Clone(b)
			out[i] = '1' + (b[i]-'0')%8
			return out
		}},
		{"no checksum", "no checksum", func(b []byte) []byte {
			return regexp.MustCompile(`,"sha256":"[0-9a-f]{64}"`).ReplaceAll(b, nil)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			// a copy of the fresh run's folder (running the experiment
			// afresh for each case took most of this test's time)
			part := t.TempDir()
			if err := os.CopyFS(part, os.DirFS(fresh)); err != nil {
				t.Fatal(err)
			}
			p := runPath(part, 3)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := loadSmall(t, part).readRun(part, 3); err != nil {
				t.Fatalf("the run as written: %v", err)
			}
			old := c.change(b)
			if bytes.Equal(old, b) {
				t.Fatalf("the run file is unchanged")
			}
			if err := os.WriteFile(p, old, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := loadSmall(t, part).merge(part, time.Time{}, "test"); err == nil || !strings.Contains(err.Error(), "not complete") ||
				!strings.Contains(err.Error(), "000003.run: ") || !strings.Contains(err.Error(), c.why) {
				t.Errorf("merging the stale run: %v, want it refused as not complete, saying why", err)
			}
			var progress bytes.Buffer
			if _, err := Run(context.Background(), loadSmall(t, part), RunOptions{Jobs: 2, Resume: true, Progress: &progress}); err != nil {
				t.Fatal(err)
			}
			if !regexp.MustCompile(`^resume: 15 of 16 runs kept, 1 to run \(1 (made by another build of wb|from another config or its inputs as they were|written by an older wb|changed on disk|another run's file|unreadable)\)\n1 runs in `).Match(progress.Bytes()) {
				t.Errorf("resume did not run the stale run again:\n%s", progress.String())
			}
			for _, f := range []string{JobsFile, SeriesFile, SummaryFile} {
				a, _ := os.ReadFile(filepath.Join(fresh, f))
				c, _ := os.ReadFile(filepath.Join(part, f))
				if len(a) == 0 || !bytes.Equal(a, c) {
					t.Errorf("%s differs from a fresh run's", f)
				}
			}
		})
	}
}

// TestBundledInputsHashed: the bundled files a config's runs read without
// naming them (a cluster preset's node list, Gavel's throughputs) are
// inputs: listed under $WB_DATA/ (the same on every machine), and a change
// to one changes the run hash, so --resume runs again what was stored
// before it (it kept every run: a reviewer's find).
func TestBundledInputsHashed(t *testing.T) {
	root := t.TempDir()
	for _, rel := range []string{"pai/pai_machine_spec.csv", "gavel/simulation_throughputs.json.gz"} {
		b, err := os.ReadFile(data(rel))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(root, filepath.Dir(rel)), 0o755)
		if err := os.WriteFile(filepath.Join(root, rel), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(datasets.EnvDataDir, root)
	openb, _ := filepath.Abs(data("openb/openb_pod_list_gpuspec33.csv.gz"))
	gv, _ := filepath.Abs(data("gavel/small_test.trace"))
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(cfg, []byte("name: b\nworkloads:\n  - {name: o, trace: "+openb+", cluster: pai}\n  - {name: g, trace: "+gv+", cluster: \"nodes:2x4:V100\"}\n"+
		"schedulers:\n  - {name: f}\n"), 0o644)
	load := func() *Config {
		c, err := LoadConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := load()
	var named []string
	c.eachInput(func(n, _ string) { named = append(named, n) })
	for _, want := range []string{"$WB_DATA/gavel/simulation_throughputs.json.gz", "$WB_DATA/pai/pai_machine_spec.csv"} {
		if !slices.Contains(named, want) {
			t.Errorf("inputs %q lack %s", named, want)
		}
	}
	before := c.RunHash()
	f, err := os.OpenFile(filepath.Join(root, "pai", "pai_machine_spec.csv"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\n")
	f.Close()
	after := load().RunHash()
	if after == before {
		t.Error("the preset's node list changed and the run hash did not")
	}
	// the same data found elsewhere: the same hash (the resolved path was
	// hashed, and --resume ran everything again under another WB_DATA)
	moved := t.TempDir()
	if err := os.CopyFS(moved, os.DirFS(root)); err != nil {
		t.Fatal(err)
	}
	t.Setenv(datasets.EnvDataDir, moved)
	if load().RunHash() != after {
		t.Error("the same bundled data in another folder changed the run hash")
	}
}
