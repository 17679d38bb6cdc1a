package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wb-sim/wb/profiler"
	"github.com/wb-sim/wb/profiler/nvml"
	"github.com/wb-sim/wb/profiler/onednn"
)

func TestProfileErrors(t *testing.T) {
	t.Setenv("WB_CACHE", t.TempDir())
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"profile"}, "want one model"},
		{[]string{"profile", "resnet51"}, `unknown model "resnet51" (known: `},
		{[]string{"profile", "resnet50", "--batch", "0"}, "batch 0: want a positive batch size"},
		{[]string{"profile", "resnet50", "--batch", "1,-4"}, "batch -4: want a positive batch size"},
		{[]string{"profile", "resnet50", "--batch", "eight"}, `batch "eight": not a number`},
		{[]string{"profile", "resnet50", "--pass", "fwd,back"}, `unknown pass "back" (known: fwd, bwd, bwd-data, bwd-weights, update)`},
		{[]string{"profile", "resnet50", "--precision", "int8"}, `unknown precision "int8" (known: fp32, tf32, fp16, bf16)`},
		{[]string{"profile", "resnet50", "--backend", "tpu"}, `unknown backend "tpu" (known: auto, cuda, onednn, cpu)`},
		{[]string{"profile", "resnet50", "--max-reps", "0"}, "--max-reps 0: want 1 or more"},
		{[]string{"profile", "resnet50", "--max-time", "-1s"}, "--max-time -1s: want a positive duration"},
		{[]string{"profile", "resnet50", "--backend", "cpu", "--min-time", "soon"}, `--min-time "soon": want auto or a duration such as 200ms`},
		{[]string{"profile", "resnet50", "--backend", "cpu", "--rounds", "0"}, `--rounds "0": want auto or a count of 1 or more`},
		{[]string{"profile", "resnet50", "--backend", "cpu", "--cuda-lib-path", "/no/such/folder"}, "--cuda-lib-path: /no/such/folder is not a folder"},
		{[]string{"profile", "resnet50", "--backend", "cpu", "--min-time", "5s", "--max-time", "100ms"}, "--min-time 5s is more than --max-time 100ms"},
		{[]string{"profile", "resnet50", "--backend", "cpu", "--rounds", "9", "--max-reps", "8"}, "--rounds 9: more than --max-reps 8"},
	}
	for _, tt := range tests {
		_, err := wb(t, tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("wb %s: error %v, want %q", strings.Join(tt.args, " "), err, tt.want)
		}
	}
}

// TestProfile profiles a small model on the CPU backend with a small
// budget, then again from the cache.
func TestProfile(t *testing.T) {
	if testing.Short() {
		t.Skip("measures layers on the CPU for a few seconds")
	}
	t.Setenv("WB_CACHE", t.TempDir())
	out := filepath.Join(t.TempDir(), "p.csv")
	// (--cache-disturbed: go test runs other packages' tests beside this
	// one, which take a CPU; their passes would otherwise not be cached)
	args := []string{"profile", "resnet18-cifar", "--backend", "cpu", "--pass", "fwd,bwd", "--max-time", "10ms", "--max-reps", "20", "--min-time", "10ms", "--rounds", "2", "--cache-disturbed", "--out", out}
	text, err := wb(t, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	for _, want := range []string{
		"backend cpu (asked for): cpu: ", "telemetry: ", "resnet18-cifar on cpu: ", "measured ms", "predicted ms",
		"layer4.0.conv2", "conv2d", "batchnorm", "bwd-weights", "total", "harness overhead", "wrote " + out,
		"round 1 of 2: every layer pass in a shuffled order", "round 2 of 2: every layer pass in order", "ms, fastest ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	if n := strings.Count(text, "telemetry:"); n != 1 {
		t.Errorf("%d telemetry lines, want 1:\n%s", n, text)
	}
	if _, err := nvml.Open(); err != nil && !strings.Contains(text, "NVML not available: ") {
		t.Errorf("no NVML here, and the output does not say so:\n%s", text)
	}
	p, err := profiler.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Records) != 67*3 || p.Meta.Backend != "cpu" || p.Meta.Counts.OK == 0 || p.Meta.WB == "" || p.Meta.Options.Rounds != 2 || p.Meta.Options.MinTime != "10ms" {
		t.Errorf("profile: %d rows, meta %+v", len(p.Records), p.Meta)
	}
	// the pure-Go backend's rows are predicted from the machine measured,
	// as oneDNN's are, where the processor has the FMAs to measure it with
	if onednn.CanMeasure() && (p.Meta.Machine == nil || p.Meta.Machine.PeakFLOPs <= 0 || !strings.Contains(text, "machine: measured fp32 peak")) {
		t.Errorf("no machine measured for the cpu backend: %+v", p.Meta.Machine)
	}
	for _, r := range p.Records {
		if r.Status == profiler.OK && (r.Reps < 2 || r.Reps > 20 || !r.Predicted.OK || r.GPU != "" || !r.Min.OK || r.Min.V > r.Median.V) {
			t.Errorf("row %+v", r)
		}
	}

	// again, all from the cache (without the whole iteration, which is
	// timed afresh each time and took most of this run's time)
	text, err = wb(t, append(args, "--iteration=false")...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, " 0 keys measured, 57 from the cache") || !strings.Contains(text, "no layer pass measured") {
		t.Errorf("second profile not from the cache:\n%s", text)
	}
}

// TestProfileInterrupted: Ctrl-C before any layer is measured writes
// nothing (an earlier interrupted profile, which holds rows, stays as it
// is), nor into the current directory; an interrupted profile is refused
// by wb train.
func TestProfileInterrupted(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("WB_CACHE", cache)
	cwd := t.TempDir()
	t.Chdir(cwd)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // Ctrl-C before the first layer
	results := filepath.Join(cache, "results")
	var b bytes.Buffer
	err := run(ctx, &b, &b, []string{"wb", "profile", "alexnet", "--quiet"})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "nothing written") {
		t.Fatalf("error %v", err)
	}
	// nothing into the current directory, nor beside the cache
	if entries, _ := os.ReadDir(cwd); len(entries) != 0 {
		t.Errorf("the current directory got %v", entries)
	}
	if matches, _ := filepath.Glob(filepath.Join(results, "*.csv")); len(matches) != 0 {
		t.Fatalf("an interrupt before any layer wrote %v", matches)
	}
	// an interrupted profile of rows, left by an earlier run, is kept
	// through another interrupt, and wb train refuses it
	partial := filepath.Join(t.TempDir(), "alexnet.interrupted.csv")
	copyProfile(t, "cpu-alexnet", partial)
	side := readTestFile(t, profiler.SidecarPath(partial))
	writeTestFile(t, profiler.SidecarPath(partial), strings.Replace(side, `"interrupted": false`, `"interrupted": true`, 1))
	before := readTestFile(t, partial) + readTestFile(t, profiler.SidecarPath(partial))
	if err := run(ctx, &b, &b, []string{"wb", "profile", "alexnet", "--quiet", "--out", strings.Replace(partial, ".interrupted", "", 1)}); !errors.Is(err, context.Canceled) {
		t.Fatalf("second interrupted run: %v", err)
	}
	if got := readTestFile(t, partial) + readTestFile(t, profiler.SidecarPath(partial)); got != before {
		t.Errorf("the earlier interrupted profile was replaced")
	}
	if _, err := wb(t, "train", partial, "--out", filepath.Join(t.TempDir(), "p.json")); err == nil || !strings.Contains(err.Error(), "an interrupted profile (its sidecar says so)") {
		t.Errorf("train on an interrupted profile: %v", err)
	}
}

// A profile whose every pass runs out of memory exits with an error saying
// so, and an --out that cannot be written is refused before any work.
func TestProfileNothingMeasured(t *testing.T) {
	t.Setenv("WB_CACHE", t.TempDir())
	out := filepath.Join(t.TempDir(), "oom.csv")
	copyProfile(t, "cpu-alexnet", out)
	before := readTestFile(t, out)
	if _, err := wb(t, "profile", "alexnet", "--batch", "99999999999", "--no-cache", "--quiet", "--out", out); err == nil ||
		!strings.Contains(err.Error(), "no layer pass fit in memory") || !strings.Contains(err.Error(), "nothing written") {
		t.Errorf("every pass out of memory: %v", err)
	}
	if got := readTestFile(t, out); got != before {
		t.Errorf("a profile of nothing measured replaced %s", out)
	}
	// a refused flag is said alone: what --out would replace is said once
	// every flag is checked (it came first, a reviewer's find)
	lm := filepath.Join(t.TempDir(), "lm.csv")
	copyProfile(t, "cpu-lm", lm)
	if text, err := wb(t, "profile", "gemm:80", "--no-cache", "--quiet", "--min-time", "5s", "--max-time", "100ms", "--out", lm); err == nil ||
		!strings.Contains(err.Error(), "--min-time 5s is more than --max-time 100ms") || strings.Contains(text, "replaced") {
		t.Errorf("a refused --min-time: %v\n%s", err, text)
	}
	// every pass skipped (a product's input needs no gradient): said why,
	// and nothing written, where a profile of skipped rows was written
	// with rc 0 (a reviewer's find)
	none := filepath.Join(t.TempDir(), "none.csv")
	if _, err := wb(t, "profile", "gemm:80", "--pass", "bwd-data", "--no-cache", "--quiet", "--out", none); err == nil ||
		!strings.Contains(err.Error(), "no layer pass measured of the 1 asked for: 1 skipped (no input needs a gradient); nothing written") {
		t.Errorf("every pass skipped: %v", err)
	}
	if _, err := os.Stat(none); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a profile of nothing measured was written: %v", err)
	}
	blocker := filepath.Join(t.TempDir(), "file")
	writeTestFile(t, blocker, "")
	if _, err := wb(t, "profile", "alexnet", "--no-cache", "--quiet", "--out", filepath.Join(blocker, "x.csv")); err == nil ||
		!strings.Contains(err.Error(), "--out "+filepath.Join(blocker, "x.csv")+": cannot make its folder") {
		t.Errorf("--out under a file: %v", err)
	}
	// no --out, and $WB_CACHE a file: the default path is named, and
	// WB_CACHE, not a flag never given (a reviewer's find)
	t.Setenv("WB_CACHE", blocker)
	if _, err := wb(t, "profile", "alexnet", "--no-cache", "--quiet"); err == nil || !strings.Contains(err.Error(), "the default path "+filepath.Join(blocker, "results")) ||
		strings.Contains(err.Error(), "--out "+blocker) || !strings.Contains(err.Error(), "under $WB_CACHE ("+blocker+"): set WB_CACHE to a folder wb can write") {
		t.Errorf("$WB_CACHE a file: %v", err)
	}
}

// copyProfile copies the bundled profile name (and its sidecar) to path.
func copyProfile(t *testing.T, name, path string) {
	t.Helper()
	src := filepath.Join(repoRoot, "datasets/profiles", name+".csv")
	writeTestFile(t, path, readTestFile(t, src))
	writeTestFile(t, profiler.SidecarPath(path), readTestFile(t, profiler.SidecarPath(src)))
}

// fakeGPUs is NVML listing one H100.
type fakeGPUs struct{}

func (fakeGPUs) Devices() ([]nvml.Info, error) {
	return []nvml.Info{{Index: 0, Name: "NVIDIA H100 80GB HBM3", MemoryBytes: 80 << 30, SMClockMaxMHz: 1980, MemClockMaxMHz: 2619, Driver: "550.54.15", CUDA: "12.4"}}, nil
}
func (fakeGPUs) Sample(int) (nvml.Sample, error) { return nvml.Sample{}, nil }
func (fakeGPUs) Close() error                    { return nil }

func TestDevices(t *testing.T) {
	text, err := wb(t, "devices")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"GPUs:", "CPU: ", "FP32 TFLOP/S", "peak fp32: "} {
		if !strings.Contains(text, want) {
			t.Errorf("wb devices lacks %q:\n%s", want, text)
		}
	}
	var b bytes.Buffer
	if err := printDevices(&b, func() (nvml.Source, error) { return fakeGPUs{}, nil }); err != nil {
		t.Fatal(err)
	}
	// The H100 SXM's table entry: 66.9 TFLOP/s fp32, 494.7/989.4/989.4 dense tensor TFLOP/s, 3350 GB/s.
	for _, want := range []string{"NVIDIA H100 80GB HBM3", "80.0", "1980/2619", "550.54.15", "12.4", "h100-sxm"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("devices with an H100 lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := printDevices(&b, func() (nvml.Source, error) { return nil, errors.New("libnvidia-ml.so.1 not found") }); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "NVML not available: libnvidia-ml.so.1 not found") {
		t.Errorf("devices without NVML:\n%s", b.String())
	}
}

// TestProfileColdCacheOnCPU: --cold-cache is a GPU setting; on the CPU
// backend the profile goes on, warm, and says so on stderr and in the
// sidecar.
func TestProfileColdCacheOnCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("measures layers on the CPU")
	}
	t.Setenv("WB_CACHE", t.TempDir())
	out := filepath.Join(t.TempDir(), "p.csv")
	text, err := wb(t, "profile", "resnet18-cifar", "--backend", "cpu", "--cold-cache", "--pass", "fwd", "--max-time", "5ms", "--max-reps", "3", "--quiet", "--out", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	const note = "cold cache: the cpu backend does not flush caches; measured warm"
	if !strings.Contains(text, note) {
		t.Errorf("output lacks %q:\n%s", note, text)
	}
	p, err := profiler.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(p.Meta.Notes, note) {
		t.Errorf("sidecar notes %q lack %q", p.Meta.Notes, note)
	}
}

// TestProfileProgress drives the progress display as a profile in three
// rounds does: on a terminal one bar over the whole profile; off one, a
// line per round, with the whole profile's ETA, and per measured row.
func TestProfileProgress(t *testing.T) {
	rows := []profiler.Record{
		{Layer: "in", Pass: "fwd", Batch: 1, Status: profiler.Skipped},
		{Layer: "conv1", Pass: "fwd", Batch: 1, Status: profiler.OK, Median: profiler.Some(2e-3), Min: profiler.Some(1.5e-3), Reps: 30, CIRel: profiler.Some(0.01), Stop: "converged"},
		{Layer: "conv2", Pass: "fwd", Batch: 1, Status: profiler.OK, SharedWith: "conv1", Median: profiler.Some(2e-3), Reps: 30},
	}
	drive := func(p *profileProgress) {
		p.row(1, 3, &rows[0])
		for round := 1; round <= 3; round++ {
			if round > 1 {
				p.iterationsAhead(time.Duration(round) * 5 * time.Second)
			}
			// 6 s of whole iterations timed after each round
			spent := time.Duration(round-1) * 6 * time.Second
			p.round(profiler.RoundReport{Round: round, Rounds: 3, Total: 1, Iterations: spent})
			if round < 3 {
				p.round(profiler.RoundReport{Round: round, Rounds: 3, Done: 1, Total: 1, Iterations: spent})
			}
			if round == 1 {
				p.iteration(4, 1, 2, 9*time.Second)
			}
		}
		p.row(2, 3, &rows[1])
		p.row(3, 3, &rows[2])
		p.finish()
	}
	var plain bytes.Buffer
	pp := newProfileProgress(&plain, false)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pp.start, pp.now = t0, func() time.Time { return t0.Add(30 * time.Second) }
	drive(pp)
	// after round 1, a third of the passes in 30 s: 60 s to go for them and
	// 9 s for the whole iterations just prepared;
	// after a third of the passes in 30 s, 6 of them whole iterations,
	// 48 s to go for the passes and 10 s for the whole iterations; after
	// two thirds (12 s of whole iterations), 9 s and 15 s
	want := "round 1 of 3: every layer pass in a shuffled order\n" +
		"whole iteration 1 of 2 (batch 4), prepared, and timed end to end after every round from now on (30s so far; about 1m9s more)\n" +
		"round 2 of 3: every layer pass in a shuffled order (30s so far; about 58s more, 10s of it the whole iterations)\n" +
		"round 3 of 3: every layer pass in order, recording the rows (30s so far; about 24s more, 15s of it the whole iterations)\n" +
		"[2/3] conv1 fwd batch 1: 2 ms, fastest 1.5 ms (30 runs, ±1.0%, converged)\n"
	if plain.String() != want {
		t.Errorf("plain progress:\n%s\nwant\n%s", plain.String(), want)
	}
	var term bytes.Buffer
	drive(newProfileProgress(&term, true))
	for _, s := range []string{"round 1/3", "round 2/3", "rows of 3", "whole iteration 1/2"} {
		if !strings.Contains(term.String(), s) {
			t.Errorf("terminal progress lacks %q: %q", s, term.String())
		}
	}
}

// TestProfileBarCoversIterations: on a terminal the bar is the whole job,
// the whole iterations to come included: with every row recorded after
// 30 s and 15 s of whole iterations ahead, it stands at two thirds, and it
// moves on as they are timed.
func TestProfileBarCoversIterations(t *testing.T) {
	var term bytes.Buffer
	p := newProfileProgress(&term, true)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	el := 30 * time.Second
	p.start, p.now = t0, func() time.Time { return t0.Add(el) }
	p.iterationsAhead(15 * time.Second)
	p.round(profiler.RoundReport{Round: 2, Rounds: 2, Total: 4})
	p.row(4, 4, &profiler.Record{Status: profiler.OK})
	if got := p.bar.State().CurrentNum; got != progressUnits*2/3 {
		t.Errorf("rows done, 15 s of iterations ahead: bar at %d of %d, want two thirds", got, progressUnits)
	}
	el = 40 * time.Second
	p.iteration(1, 2, 2, 10*time.Second)
	if got := p.bar.State().CurrentNum; got != progressUnits*4/5 {
		t.Errorf("40 s in, 10 s left: bar at %d of %d, want four fifths", got, progressUnits)
	}
	// a longer estimate does not move the bar back
	p.iteration(2, 2, 2, 40*time.Second)
	if got := p.bar.State().CurrentNum; got != progressUnits*4/5 {
		t.Errorf("40 s in, 40 s left after 10 s: bar at %d of %d, want it kept at four fifths", got, progressUnits)
	}

	// in rounds, a whole iteration prepared after the first of three:
	// the bar stays where the passes put it (a third: 30 s of 30 + 60, and
	// with the iterations' 9 s it would go back, which it never does),
	// not where the iterations' estimate alone would take it (30 of 39)
	r := newProfileProgress(&term, true)
	el = 30 * time.Second
	r.start, r.now = t0, func() time.Time { return t0.Add(el) }
	r.round(profiler.RoundReport{Round: 1, Rounds: 3, Done: 1, Total: 1})
	r.iteration(1, 1, 1, 9*time.Second)
	if got, want := r.bar.State().CurrentNum, int64(progressUnits/3); got < want-2 || got > want+2 {
		t.Errorf("in rounds, a whole iteration prepared after the first: bar at %d of %d, want %d", got, progressUnits, want)
	}

	// one round, off a terminal: each row line says what is left, the
	// whole iterations included
	var plain bytes.Buffer
	pl := newProfileProgress(&plain, false)
	el = 30 * time.Second
	pl.start, pl.now = t0, func() time.Time { return t0.Add(el) }
	pl.iterationsAhead(5 * time.Second)
	pl.row(1, 4, &profiler.Record{Layer: "conv1", Pass: "fwd", Batch: 1, Status: profiler.OK, Median: profiler.Some(2e-3), Reps: 30, CIRel: profiler.Some(0.01), Stop: "converged"})
	if want := "[1/4] conv1 fwd batch 1: 2 ms (30 runs, ±1.0%, converged) (30s so far; about 1m35s more)\n"; plain.String() != want {
		t.Errorf("one round, plain: %q, want %q", plain.String(), want)
	}

	// one round (the GPU default): the estimate comes with the rows
	var one bytes.Buffer
	q := newProfileProgress(&one, true)
	el = 30 * time.Second
	q.start, q.now = t0, func() time.Time { return t0.Add(el) }
	q.iterationsAhead(30 * time.Second)
	q.row(2, 2, &profiler.Record{Status: profiler.OK})
	if got := q.bar.State().CurrentNum; got != progressUnits/2 {
		t.Errorf("one round, rows done in 30 s, 30 s of iterations ahead: bar at %d of %d, want half", got, progressUnits)
	}
}

func TestBLASNote(t *testing.T) {
	avx512 := profiler.Machine{ISA: "avx512"}
	t.Setenv("OPENBLAS_CORETYPE", "Haswell")
	if n := blasNote(avx512, "Haswell"); !strings.Contains(n, "256-bit") || !strings.Contains(n, "OPENBLAS_CORETYPE=Haswell") {
		t.Errorf("Haswell kernels on AVX-512: note %q", n)
	}
	t.Setenv("OPENBLAS_CORETYPE", "")
	if n := blasNote(avx512, "Zen"); !strings.Contains(n, "did not recognise") {
		t.Errorf("Zen kernels, no override: note %q", n)
	}
	// the generic SSE kernels OpenBLAS falls back to where it knows no
	// better (an Intel Xeon VM of 2026-11-30: 19% of the FMA peak, 89%
	// with OPENBLAS_CORETYPE=SkylakeX)
	if n := blasNote(avx512, "Prescott"); !strings.Contains(n, "128-bit SSE") || !strings.Contains(n, "OPENBLAS_CORETYPE=SkylakeX") {
		t.Errorf("Prescott kernels on AVX-512: note %q", n)
	}
	if n := blasNote(profiler.Machine{ISA: "avx2"}, "Nehalem"); !strings.Contains(n, "OPENBLAS_CORETYPE=Haswell") {
		t.Errorf("Nehalem kernels on AVX2: note %q", n)
	}
	for _, c := range []struct {
		isa, core string
	}{{"avx512", "SkylakeX"}, {"avx512", "Cooperlake"}, {"avx2", "Haswell"}, {"avx512", ""}, {"sse", "Prescott"}} {
		if n := blasNote(profiler.Machine{ISA: c.isa}, c.core); n != "" {
			t.Errorf("%s kernels on %s: note %q, want none", c.core, c.isa, n)
		}
	}
}

func TestThreadingNote(t *testing.T) {
	if n := threadingNote("pthreads", "pthreads"); !strings.Contains(n, "libopenblas0-openmp") {
		t.Errorf("pthreads: %q", n)
	}
	// the OpenMP build where PyTorch's libopenblas.so.0 is the pthreads
	// one: these timings are PyTorch's on the other build
	if n := threadingNote("openmp", "pthreads"); !strings.Contains(n, "libopenblas.so.0, which PyTorch links, is the pthreads build on this machine") {
		t.Errorf("openmp beside a pthreads default: %q", n)
	}
	for _, th := range []string{"openmp", "sequential", "", "unknown"} {
		if n := threadingNote(th, "openmp"); n != "" {
			t.Errorf("%q: %q, want no note", th, n)
		}
	}
}

// TestProfileOutChecked: wb profile --out refuses, before the backend
// opens, a name not *.csv, a file that is not a wb profile (at the path or
// at its interrupted twin), a folder where the sidecar goes and a JSON
// there that is no profile's sidecar, changing nothing; bad --rounds and
// --min-time are refused as early. --backend cuda, which does not open
// here, shows the order: each error comes before the backend's.
func TestProfileOutChecked(t *testing.T) {
	t.Setenv("WB_CACHE", t.TempDir())
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.csv")
	writeTestFile(t, notes, "my,own\nnotes,here\n")
	writeTestFile(t, filepath.Join(dir, "b.interrupted.csv"), "my,own\n")
	if err := os.Mkdir(filepath.Join(dir, "z.csv.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(dir, "pred.csv.json"), `{"version":3,"model":"tree"}`)
	copyProfile(t, "cpu-lm", filepath.Join(dir, "lm.csv"))
	writeTestFile(t, filepath.Join(dir, "lm-only.csv"), readTestFile(t, filepath.Join(repoRoot, "datasets/profiles/cpu-lm.csv")))
	files := func() map[string]string {
		out := map[string]string{}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if e.IsDir() {
				out[e.Name()] = "a folder"
				continue
			}
			out[e.Name()] = readTestFile(t, filepath.Join(dir, e.Name()))
		}
		return out
	}
	before := files()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", filepath.Join(dir, "x.json")}, "--out " + filepath.Join(dir, "x.json") + ": a profile is written as a csv file: name it *.csv"},
		{[]string{"--out", notes}, notes + " exists and is not a wb profile (its first line is not a profile's header); wb profile replaces only its own profiles"},
		{[]string{"--out", filepath.Join(dir, "b.csv")}, filepath.Join(dir, "b.interrupted.csv") + " exists and is not a wb profile"},
		{[]string{"--out", filepath.Join(dir, "z.csv")}, filepath.Join(dir, "z.csv.json") + " is a folder, where the profile's sidecar goes"},
		{[]string{"--out", filepath.Join(dir, "pred.csv")}, filepath.Join(dir, "pred.csv.json") + " exists and is not a wb profile's sidecar"},
		{[]string{"--out", filepath.Join(dir, "lm-only.csv")}, "lm-only.csv exists and is not a whole wb profile (" + filepath.Join(dir, "lm-only.csv") + ": no sidecar"},
		{[]string{"--rounds", "0", "--out", filepath.Join(dir, "n.csv")}, `--rounds "0": want auto or a count of 1 or more`},
		{[]string{"--rounds", "9", "--max-reps", "8", "--out", filepath.Join(dir, "n.csv")}, "--rounds 9: more than --max-reps 8"},
		{[]string{"--min-time", "foo", "--out", filepath.Join(dir, "n.csv")}, `--min-time "foo": want auto or a duration`},
	} {
		_, err := wb(t, append([]string{"profile", "gemm:80", "--backend", "cuda"}, tt.args...)...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("wb profile %v: %v, want %q", tt.args, err, tt.want)
		}
	}
	if after := files(); !maps.Equal(after, before) {
		t.Errorf("files changed by refused profiles:\n%v\nwant\n%v", slices.Sorted(maps.Keys(after)), slices.Sorted(maps.Keys(before)))
	}
	// a profile refused once its backend has opened (fp16 on the CPU)
	// leaves no folder made for --out
	if _, err := wb(t, "profile", "gemm:80", "--backend", "cpu", "--precision", "fp16", "--out", filepath.Join(dir, "made", "sub", "x.csv")); err == nil || !strings.Contains(err.Error(), "computes in fp32 only") {
		t.Fatalf("fp16 on the CPU backend: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "made")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused profile made --out's folder: %v", err)
	}
	// a wb profile there is replaced, saying so, naming another model
	var w strings.Builder
	if err := profileOut(&w, "--out", filepath.Join(dir, "lm.csv"), "alexnet", true); err != nil || !strings.Contains(w.String(), "lm.csv holds a profile of another model, lm, measured 2026-11-29") {
		t.Errorf("another model's profile: %v %q", err, w.String())
	}
	w.Reset()
	if err := profileOut(&w, "--out", filepath.Join(dir, "lm.csv"), "lm", true); err != nil || !strings.Contains(w.String(), "lm.csv holds an earlier profile of lm, measured 2026-11-29") {
		t.Errorf("the same model's profile: %v %q", err, w.String())
	}
	w.Reset()
	if err := profileOut(&w, "--out", filepath.Join(dir, "new", "p.csv"), "lm", true); err != nil || w.Len() > 0 {
		t.Errorf("a new path: %v %q", err, w.String())
	}
}

// TestGPUFlagNotes: each GPU flag given to a backend on the CPU is said to
// do nothing there; on a GPU only --cold-cache's note is given.
func TestGPUFlagNotes(t *testing.T) {
	cpu := profiler.DeviceInfo{Name: "cpu: Test", Predictor: "cpu"}
	got := gpuFlagNotes("onednn", cpu, true, true, true)
	want := []string{
		"cold cache: the onednn backend does not flush caches; measured warm",
		"unheld: the onednn backend runs on the CPU, where no stream is held; --unheld does nothing there",
		"cuda-lib-path: the onednn backend runs on the CPU and loads no CUDA library; --cuda-lib-path does nothing there",
	}
	if !slices.Equal(got, want) {
		t.Errorf("on the CPU: %q\nwant %q", got, want)
	}
	if got := gpuFlagNotes("onednn", cpu, false, false, false); len(got) != 0 {
		t.Errorf("no flags: %q", got)
	}
	gpu := profiler.DeviceInfo{Name: "h100-sxm", Predictor: "h100-sxm", Versions: map[string]string{"cold_cache": "flushed 100 MB"}}
	if got := gpuFlagNotes("cuda", gpu, true, true, true); !slices.Equal(got, []string{"cold cache: flushed 100 MB"}) {
		t.Errorf("on a GPU: %q", got)
	}
}

// TestProfileOMPThreads: OMP_NUM_THREADS, which the CPU backends do not
// read (they run GOMAXPROCS threads), is said to be ignored, with what to
// set instead, on the terminal and in the sidecar (it was ignored without
// a word: a reviewer's find).
func TestProfileOMPThreads(t *testing.T) {
	t.Setenv("OMP_NUM_THREADS", "7")
	out := filepath.Join(t.TempDir(), "g.csv")
	text, err := wb(t, "profile", "gemm:64", "--pass", "fwd", "--no-cache", "--rounds", "1", "--max-time", "20ms", "--iteration=false", "--out", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	want := fmt.Sprintf("OMP_NUM_THREADS=7 is not read: wb's CPU backends run as many threads as GOMAXPROCS (%d); set GOMAXPROCS=7 to profile on 7", runtime.GOMAXPROCS(0))
	if !strings.Contains(text, want) {
		t.Errorf("no note %q in:\n%s", want, text)
	}
	m, err := profiler.ReadMeta(out)
	if err != nil || !slices.Contains(m.Notes, want) {
		t.Errorf("sidecar notes %q (%v), want %q", m.Notes, err, want)
	}
}

// fakeMeter measures a machine in 300 ms of sleep, counting its calls.
type fakeMeter struct{ calls int }

func (f *fakeMeter) MeasureMachine() (profiler.Machine, error) {
	f.calls++
	time.Sleep(300 * time.Millisecond)
	return profiler.Machine{PeakFLOPs: 1e11, Threads: 1}, nil
}

// TestMeasureMachineUnderLoad: while another process takes a CPU, the
// machine is measured again a second later, up to machineTries times, and
// the load is returned to be warned of (a busy loop at the start had read
// the peak and bandwidth low, every row's prediction skewed, unseen: a
// reviewer's find).
func TestMeasureMachineUnderLoad(t *testing.T) {
	busy := exec.Command("sh", "-c", "while :; do :; done")
	if err := busy.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { busy.Process.Kill(); busy.Wait() }()
	f := &fakeMeter{}
	m, load, err := measureMachine(context.Background(), f)
	if err != nil || m.PeakFLOPs != 1e11 || m.MemBandwidth <= 0 {
		t.Fatalf("machine %+v, %v", m, err)
	}
	if f.calls != machineTries || load < profiler.OthersThreshold {
		t.Errorf("measured %d times, others took %.2f CPUs: want %d tries and at least %v", f.calls, load, machineTries, profiler.OthersThreshold)
	}
	// interrupted, it stops trying
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f.calls = 0
	if _, _, err := measureMachine(ctx, f); err != nil || f.calls != 0 {
		t.Errorf("cancelled: %d tries, %v", f.calls, err)
	}
}

// TestWriteProfileOutChecksAgain: a file of the user's put at --out while
// the profile ran is left as it is, the profile written beside it
// (NAME.new.csv); a profile of wb's there is replaced. And a profile of
// skipped rows alone holds no measurement (an interrupt after a sweep's
// skipped source rows had replaced an earlier interrupted profile of
// measured rows with it: a reviewer's find).
func TestWriteProfileOutChecksAgain(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.csv")
	copyProfile(t, "cpu-alexnet", src)
	p, err := profiler.Read(src)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "p.csv")
	writeTestFile(t, out, "precious user data\n")
	if err := writeProfileOut(out, p); err == nil || !strings.Contains(err.Error(), "the profile is in "+filepath.Join(dir, "p.new.csv")+" instead") {
		t.Errorf("a user's file at --out: %v", err)
	}
	if got := readTestFile(t, out); got != "precious user data\n" {
		t.Errorf("the user's file now %q", got)
	}
	if q, err := profiler.Read(filepath.Join(dir, "p.new.csv")); err != nil || len(q.Records) != len(p.Records) {
		t.Errorf("the profile beside it: %v", err)
	}
	// again: the earlier fallback's profile is kept, this one beside it
	if err := writeProfileOut(out, p); err == nil || !strings.Contains(err.Error(), "the profile is in "+filepath.Join(dir, "p.new.2.csv")+" instead") {
		t.Errorf("beside an earlier fallback: %v", err)
	}
	// a sidecar alone takes the name; the next is taken
	other := filepath.Join(dir, "q.csv")
	writeTestFile(t, other, "mine\n")
	writeTestFile(t, profiler.SidecarPath(filepath.Join(dir, "q.new.csv")), "{}\n")
	if keep, ok := besideFree(other); !ok || keep != filepath.Join(dir, "q.new.2.csv") {
		t.Errorf("beside q.new.csv's sidecar: %q, %v", keep, ok)
	}
	// a wb profile at --out is replaced
	if err := writeProfileOut(src, p); err != nil {
		t.Errorf("over a profile: %v", err)
	}
	if noRowMeasured(p) {
		t.Error("alexnet's profile: no row measured")
	}
	skipped := &profiler.Profile{Records: []profiler.Record{{Layer: "src0", Status: profiler.Skipped}, {Layer: "src0", Pass: "bwd-data", Status: profiler.Skipped}}}
	if !noRowMeasured(skipped) {
		t.Error("a profile of skipped rows: some row measured")
	}
}

// TestProfileRoundLines: off a terminal, a round in progress says how far
// it is every roundLineEvery (a sweep's first round ran 44 s without a
// line: a reviewer's find), and not more often.
func TestProfileRoundLines(t *testing.T) {
	var plain bytes.Buffer
	p := newProfileProgress(&plain, false)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	p.start, p.now = t0, func() time.Time { return now }
	p.round(profiler.RoundReport{Round: 1, Rounds: 2, Total: 10})
	for done := 1; done < 10; done++ {
		now = t0.Add(time.Duration(done) * 4 * time.Second) // a pass every 4 s
		p.round(profiler.RoundReport{Round: 1, Rounds: 2, Done: done, Total: 10})
	}
	// lines at 12 s (3 done: 3/20 of the passes in 12 s, 68 s to go) and
	// 24 s (6 done: 56 s to go), 36 s (9 done: 44 s to go)
	want := "round 1 of 2: every layer pass in a shuffled order\n" +
		"round 1 of 2: 3 of 10 layer passes (12s so far; about 1m8s more)\n" +
		"round 1 of 2: 6 of 10 layer passes (24s so far; about 56s more)\n" +
		"round 1 of 2: 9 of 10 layer passes (36s so far; about 44s more)\n"
	if plain.String() != want {
		t.Errorf("round lines:\n%s\nwant\n%s", plain.String(), want)
	}
}
