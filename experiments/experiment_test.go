package experiments

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wb-sim/wb/datasets"
)

func loadSmall(t *testing.T, out string) *Config {
	t.Helper()
	c, err := LoadConfig(filepath.Join("testdata", "small.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	c.Out = out
	return c
}

// runBundled runs configs/name as a fresh clone would, into a temporary
// folder, checks that its figures pass their check, and returns the
// config, its report and its summary.csv (with the file's path).
func runBundled(t *testing.T, name string) (*Config, *Report, table, string) {
	t.Helper()
	c, err := LoadConfig(filepath.Join("..", "configs", name))
	if err != nil {
		t.Fatal(err)
	}
	rep := runInTemp(t, c, 2)
	if len(rep.FigureFindings) > 0 {
		t.Errorf("%s: figure check: %v", name, rep.FigureFindings)
	}
	path := filepath.Join(c.Out, SummaryFile)
	rows, err := readTable(path)
	if err != nil {
		t.Fatal(err)
	}
	return c, rep, rows, path
}

// runInTemp runs c on jobs workers into a temporary folder (c.Out).
func runInTemp(t *testing.T, c *Config, jobs int) *Report {
	t.Helper()
	c.Out = t.TempDir()
	rep, err := Run(context.Background(), c, RunOptions{Jobs: jobs})
	if err != nil {
		t.Fatal(err)
	}
	checkOwned(t, c.Out)
	return rep
}

// checkOwned fails t for any file in dir that a fresh run into it would
// not clear (clearOwned): a file wb writes there must be one it owns, or
// a later run's folder would keep an earlier one's.
func checkOwned(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		sub, name := filepath.Split(rel)
		sub = strings.TrimSuffix(sub, string(filepath.Separator))
		if re, ok := ownedIn[sub]; ok && re.MatchString(name) || sub == "" && slices.Contains(ownedTop, name) {
			return nil
		}
		t.Errorf("%s: %s is not among the files wb owns there (ownedTop, ownedIn): a fresh run would not clear it", dir, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func readAll(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	for _, f := range []string{SummaryFile, JobsFile, SeriesFile} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		m[f] = b
	}
	return m
}

func TestSmallExperimentGolden(t *testing.T) {
	out := t.TempDir()
	c := loadSmall(t, out)
	if n := len(c.Runs()); n != 16 {
		t.Fatalf("%d runs, want 2 workloads × 2 schedulers × 2 loads × 2 replicas = 16", n)
	}
	rep, err := Run(context.Background(), c, RunOptions{Jobs: 4})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Runs != 16 || len(rep.Failed) != 0 {
		t.Fatalf("report %+v", rep)
	}
	got := readAll(t, out)
	golden(t, "small-summary.golden", got[SummaryFile])
	// jobs: all → every run's jobs; KTH windows of 500 jobs, 20 gavel jobs.
	if n := bytes.Count(got[JobsFile], []byte("\n")) - 1; n != 8*500+8*20 {
		t.Errorf("jobs.csv has %d rows, want %d", n, 8*500+8*20)
	}
	if n := bytes.Count(got[SeriesFile], []byte("\n")) - 1; n != 16*10 {
		t.Errorf("timeseries.csv has %d rows, want %d", n, 16*10)
	}
}

// TestDeterministicParallel: one worker or four, the same bytes.
func TestDeterministicParallel(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	if _, err := Run(context.Background(), loadSmall(t, a), RunOptions{Jobs: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), loadSmall(t, b), RunOptions{Jobs: 4}); err != nil {
		t.Fatal(err)
	}
	ra, rb := readAll(t, a), readAll(t, b)
	for f := range ra {
		if !bytes.Equal(ra[f], rb[f]) {
			t.Errorf("%s differs between --jobs 1 and --jobs 4", f)
		}
	}
}

// TestReplicasDiffer: replicas draw different windows, the same for every
// scheduler and load of a replica (common random numbers).
func TestReplicasDiffer(t *testing.T) {
	out := t.TempDir()
	c := loadSmall(t, out)
	if _, err := Run(context.Background(), c, RunOptions{Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	starts := map[int]map[int]bool{} // replica → window starts
	for _, k := range c.Runs() {
		if k.Workload != 0 {
			continue
		}
		r, err := c.readRun(out, k.Index)
		if err != nil {
			t.Fatal(err)
		}
		if starts[k.Replica] == nil {
			starts[k.Replica] = map[int]bool{}
		}
		starts[k.Replica][r.WindowStart] = true
	}
	if len(starts[0]) != 1 || len(starts[1]) != 1 {
		t.Fatalf("a replica's runs use different windows: %v", starts)
	}
	for s := range starts[0] {
		if starts[1][s] {
			t.Errorf("replicas 0 and 1 both start at job %d", s)
		}
	}
}

// TestResume: after an interrupted run (some runs missing, one half
// written), --resume runs only what is missing and gives the same bytes.
func TestResume(t *testing.T) {
	full, part := t.TempDir(), t.TempDir()
	if _, err := Run(context.Background(), loadSmall(t, full), RunOptions{Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), loadSmall(t, part), RunOptions{Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	// Kill: runs 3 and 9 never completed (9 left a temporary file behind),
	// and the merged files were never written.
	for _, i := range []int{3, 9} {
		os.Remove(runPath(part, i))
	}
	os.WriteFile(filepath.Join(part, runsDir, ".000009.run.tmp123"), []byte("{half"), 0o644)
	for _, f := range []string{SummaryFile, JobsFile, SeriesFile} {
		os.Remove(filepath.Join(part, f))
	}
	var progress bytes.Buffer
	if _, err := Run(context.Background(), loadSmall(t, part), RunOptions{Jobs: 2, Resume: true, Progress: &progress}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(progress.String(), "\n2 runs in ") && !strings.Contains(progress.String(), "\n2 runs in ") {
		t.Errorf("resume did not run the 2 missing runs:\n%s", progress.String())
	}
	if n := len(loadSmall(t, part).Runs()); !strings.HasPrefix(progress.String(), fmt.Sprintf("resume: %d of %d runs kept, 2 to run (2 not run yet)\n", n-2, n)) {
		t.Errorf("resume does not say what it kept:\n%s", progress.String())
	}
	ra, rb := readAll(t, full), readAll(t, part)
	for f := range ra {
		if !bytes.Equal(ra[f], rb[f]) {
			t.Errorf("%s differs after resume", f)
		}
	}
}

// TestInterrupted: a cancelled experiment stops and says how to go on:
// cancelled before it began, with nothing written; resumed, keeping the
// runs kept.
func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	_, err := Run(ctx, loadSmall(t, dir), RunOptions{Jobs: 1})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "nothing written; run again to start") || strings.Contains(err.Error(), "context canceled") {
		t.Fatalf("error = %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("%d files written", len(ents))
	}
	_, err = Run(ctx, loadSmall(t, dir), RunOptions{Jobs: 1, Resume: true})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "run again with --resume to finish") {
		t.Fatalf("resumed: error = %v", err)
	}
	// cancelled as the first run ends: that run kept, the rest not run
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	_, err = Run(ctx, loadSmall(t, dir), RunOptions{Jobs: 1, Progress: cancelOnWrite{cancel}})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "completed runs are kept; run again with --resume to finish") {
		t.Fatalf("cancelled as a run ended: error = %v", err)
	}
	if runs, _ := os.ReadDir(filepath.Join(dir, runsDir)); len(runs) == 0 || len(runs) >= len(loadSmall(t, dir).Runs()) {
		t.Errorf("%d runs stored, want some but not all", len(runs))
	}
}

// cancelOnWrite cancels a context at its first write.
type cancelOnWrite struct{ cancel context.CancelFunc }

func (c cancelOnWrite) Write(b []byte) (int, error) { c.cancel(); return len(b), nil }

// TestFailedRunRecorded: a run that fails is recorded with its error, the
// others complete, and the experiment reports the failure; a trace that is
// not there is refused before any run.
func TestFailedRunRecorded(t *testing.T) {
	dir := t.TempDir()
	src := t.TempDir() // the config and its malformed trace
	bad := filepath.Join(src, "no-such-trace.swf")
	if err := os.WriteFile(bad, []byte("; MaxProcs: 8\n1 0 0 ten 4 -1 -1 4 100 -1 1 1 1 1 1 1 -1 -1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	kth, err := filepath.Abs(data("swf/KTH-SP2-1996-2.1-cln.swf.gz"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := `name: failing
workloads:
  - trace: ` + kth + `
    window: 100
  - name: missing
    trace: no-such-trace.swf
schedulers: [{backfill: easy}]
`
	p := filepath.Join(src, "failing.yaml")
	if err := os.WriteFile(p, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	// a local run reads every trace before it claims the directory: the
	// malformed one is refused, nothing written (every run of it failed
	// alike, after the directory was claimed: a reviewer's find)
	c.Out = dir
	if _, err := Run(context.Background(), c, RunOptions{}); err == nil || errors.Is(err, ErrRunsFailed) ||
		!strings.Contains(err.Error(), `failing.yaml:6: workloads[1].trace, read as an swf trace: `) || !strings.Contains(err.Error(), `no-such-trace.swf:2: field 4: "ten" is not an integer`) {
		t.Errorf("a malformed trace, run locally: error %v", err)
	}
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 0 {
		t.Errorf("a malformed trace, run locally: the results directory holds %d files (%v)", len(ents), err)
	}
	// a directory the claim refuses is refused first, before the traces
	// are read (a refusal once waited on them, and on the held-out
	// training: 18 s for plan.yaml)
	foreignDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(foreignDir, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.Out = foreignDir
	if _, err := Run(context.Background(), c, RunOptions{}); err == nil || !strings.Contains(err.Error(), "holds files wb did not write (notes.txt)") {
		t.Errorf("a foreign directory: error %v", err)
	}
	c.Out = dir
	// a Slurm array's tasks (--run-index) record the run that failed, and
	// the collect merges it as failed
	for i := range c.Runs() {
		rep, err := Run(context.Background(), c, RunOptions{Only: []int{i}})
		if err != nil {
			t.Fatalf("task %d: %v", i, err)
		}
		if want := i == 1; (len(rep.Failed) == 1) != want || want && !strings.Contains(rep.Failed[0].Error, "no-such-trace.swf") {
			t.Fatalf("task %d: failed runs: %+v", i, rep.Failed)
		}
		// named as the config names it: the same error in every checkout
		if len(rep.Failed) == 1 && strings.Contains(rep.Failed[0].Error, src) {
			t.Errorf("the failed run's error names the resolved path: %s", rep.Failed[0].Error)
		}
	}
	if _, err := Collect(context.Background(), dir, ""); !errors.Is(err, ErrRunsFailed) {
		t.Errorf("collect: error = %v, want ErrRunsFailed", err)
	}
	sum, _ := os.ReadFile(filepath.Join(dir, SummaryFile))
	if !strings.Contains(string(sum), ",ok,") || !strings.Contains(string(sum), ",failed,") {
		t.Errorf("summary.csv does not record both runs:\n%s", sum)
	}
	if err := os.Remove(bad); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	c.Out = out
	if _, err := Run(context.Background(), c, RunOptions{}); err == nil || !strings.Contains(err.Error(), "workloads[1].trace: ") ||
		!strings.Contains(err.Error(), "no-such-trace.swf: no such file") {
		t.Errorf("a missing trace: error %v", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing trace: the results directory was made (%v)", err)
	}
}

// TestCollectMatchesLocal runs every run as a separate "array task" and
// collects them: the merged files equal a local run's.
func TestCollectMatchesLocal(t *testing.T) {
	local, array := t.TempDir(), t.TempDir()
	if _, err := Run(context.Background(), loadSmall(t, local), RunOptions{}); err != nil {
		t.Fatal(err)
	}
	c := loadSmall(t, array)
	if _, err := Collect(context.Background(), array, "test"); err == nil {
		t.Fatal("collect of an empty directory succeeded")
	}
	for i := len(c.Runs()) - 1; i >= 1; i-- { // any order
		if _, err := Run(context.Background(), loadSmall(t, array), RunOptions{Only: []int{i}}); err != nil {
			t.Fatal(err)
		}
	}
	// a run missing: collect says how to run it, with the config's own path
	// (it said CONFIG: a reviewer's find)
	abs, _ := filepath.Abs(filepath.Join("testdata", "small.yaml"))
	if _, err := Collect(context.Background(), array, "test"); err == nil || !strings.Contains(err.Error(), "1 of 16 runs are not complete (first: 0, ") ||
		!strings.Contains(err.Error(), "wb experiment "+abs+" --out "+array+" --resume") {
		t.Errorf("collect with run 0 missing: %v", err)
	}
	if _, err := Run(context.Background(), loadSmall(t, array), RunOptions{Only: []int{0}}); err != nil {
		t.Fatal(err)
	}
	if _, err := Collect(context.Background(), array, "test"); err != nil {
		t.Fatal(err)
	}
	ra, rb := readAll(t, local), readAll(t, array)
	for f := range ra {
		if !bytes.Equal(ra[f], rb[f]) {
			t.Errorf("%s differs between a local run and collected array tasks", f)
		}
	}
}

func TestSlurmScripts(t *testing.T) {
	dir := t.TempDir()
	c := loadSmall(t, dir)
	// the tasks run a copy of the wb that submitted them (a rebuild while
	// they queue mixed two builds' runs, which the merge refused: a
	// reviewer's find), with the data folder and working directory set
	// (a site that does not pass the environment into jobs)
	wb := filepath.Join(t.TempDir(), "opt wb", "wb")
	os.MkdirAll(filepath.Dir(wb), 0o755)
	os.WriteFile(wb, []byte("#!/bin/sh\necho this wb\n"), 0o755)
	job, err := SubmitSlurm(context.Background(), c, filepath.Join("testdata", "small.yaml"), SlurmOptions{Partition: "gpu", Time: "00:05:00", CPUsPerTask: 2, WB: wb})
	if err != nil {
		t.Fatal(err)
	}
	copyWB := filepath.Join(dir, slurmDir, slurmWB)
	if b, err := os.ReadFile(copyWB); err != nil || string(b) != "#!/bin/sh\necho this wb\n" {
		t.Errorf("the copy of wb: %q, %v", b, err)
	} else if fi, _ := os.Stat(copyWB); fi.Mode()&0o111 == 0 {
		t.Errorf("the copy of wb is not executable: %v", fi.Mode())
	}
	data, _ := datasets.DataDir()
	a, _ := os.ReadFile(job.ArrayScript)
	for _, want := range []string{"#SBATCH --array=0-15", "#SBATCH --partition=gpu", "#SBATCH --time=00:05:00", "#SBATCH --cpus-per-task=2",
		"#SBATCH --chdir=" + dir + "\n", "#SBATCH --output=" + filepath.Join(dir, slurmDir, "run-%A_%a.out") + "\n", "export WB_DATA=" + shq(data) + "\n",
		copyWB + ` experiment --quiet --jobs 1 --out ` + dir + ` --run-index "$SLURM_ARRAY_TASK_ID" `} {
		if !strings.Contains(string(a), want) {
			t.Errorf("array script lacks %q:\n%s", want, a)
		}
	}
	col, _ := os.ReadFile(job.CollectScript)
	if !strings.Contains(string(col), copyWB+" experiment collect "+dir) || !strings.Contains(string(col), "export WB_DATA=") {
		t.Errorf("collect script:\n%s", col)
	}
	// Submission through a fake sbatch that records its arguments.
	fake := filepath.Join(t.TempDir(), "sbatch")
	log := fake + ".log"
	os.WriteFile(fake, []byte("#!/bin/sh\necho \"$@\" >> "+log+"\necho 4242\n"), 0o755)
	job, err = SubmitSlurm(context.Background(), loadSmall(t, dir), filepath.Join("testdata", "small.yaml"), SlurmOptions{Submit: true, Sbatch: fake, WB: wb})
	if err != nil {
		t.Fatal(err)
	}
	calls, _ := os.ReadFile(log)
	if job.Array != "4242" || !strings.Contains(string(calls), "--dependency=afterany:4242 "+job.CollectScript) {
		t.Errorf("job %+v; sbatch calls:\n%s", job, calls)
	}
}

// TestSlurmSubmissionSafety: a submission that cannot go through (no
// sbatch, or one whose --test-only refuses the array's directives) leaves
// a directory of complete results as it was; a results path holding # is
// refused; a collect job sbatch refuses names the array already
// submitted; and the tasks run the copy of the config the directory keeps,
// so that an edit after submission changes nothing.
func TestSlurmSubmissionSafety(t *testing.T) {
	dir := t.TempDir()
	if _, err := Run(context.Background(), loadSmall(t, dir), RunOptions{}); err != nil {
		t.Fatal(err)
	}
	before := readAll(t, dir)
	bin := t.TempDir()
	refusing := filepath.Join(bin, "sbatch-refusing")
	os.WriteFile(refusing, []byte("#!/bin/sh\nfor a; do [ \"$a\" = --test-only ] && { echo 'sbatch: error: invalid partition specified: typo' >&2; exit 1; }; done\necho 4242\n"), 0o755)
	for name, sb := range map[string]string{"no sbatch": filepath.Join(bin, "no-such-sbatch"), "refused": refusing} {
		_, err := SubmitSlurm(context.Background(), loadSmall(t, dir), filepath.Join("testdata", "small.yaml"), SlurmOptions{Submit: true, Force: true, Partition: "typo", Sbatch: sb})
		if err == nil {
			t.Fatalf("%s: submitted", name)
		}
		after := readAll(t, dir)
		if len(after) != len(before) {
			t.Fatalf("%s (%v): %d files in the results directory, %d before", name, err, len(after), len(before))
		}
		for f, b := range before {
			if !bytes.Equal(after[f], b) {
				t.Errorf("%s: %s changed", name, f)
			}
		}
	}
	hash := filepath.Join(t.TempDir(), "a#b")
	if _, err := SubmitSlurm(context.Background(), loadSmall(t, hash), filepath.Join("testdata", "small.yaml"), SlurmOptions{}); err == nil || !strings.Contains(err.Error(), "# or %") {
		t.Errorf("a results path holding #: %v", err)
	}
	// the collect job refused: the array's id is said
	noCollect := filepath.Join(bin, "sbatch-no-collect")
	os.WriteFile(noCollect, []byte("#!/bin/sh\nfor a; do case \"$a\" in --dependency*) echo 'sbatch: error: QOSMaxSubmitJobPerUserLimit' >&2; exit 1;; esac; done\necho 77\n"), 0o755)
	out := t.TempDir()
	_, err := SubmitSlurm(context.Background(), loadSmall(t, out), filepath.Join("testdata", "small.yaml"), SlurmOptions{Submit: true, Sbatch: noCollect})
	if err == nil || !strings.Contains(err.Error(), "the job array was submitted (job 77)") || !strings.Contains(err.Error(), "QOSMaxSubmitJobPerUserLimit") {
		t.Errorf("collect refused: %v", err)
	}
	// the tasks run the directory's copy of the config, which loads as the
	// experiment's config: a run stored from it is the submitted config's
	script, err := os.ReadFile(filepath.Join(out, slurmDir, "array.sbatch"))
	if err != nil || !strings.Contains(string(script), filepath.Join(out, ConfigCopy)) {
		t.Fatalf("array script runs another config (%v):\n%s", err, script)
	}
	stored, err := LoadConfig(filepath.Join(out, ConfigCopy))
	if err != nil {
		t.Fatal(err)
	}
	if want := loadSmall(t, out); stored.Hash() != want.Hash() || stored.path != want.path {
		t.Errorf("the stored copy loads as %s (%s), want %s (%s)", stored.path, stored.Hash(), want.path, want.Hash())
	}
	stored.Out = out
	if _, err := Run(context.Background(), stored, RunOptions{Only: []int{0}}); err != nil {
		t.Errorf("a task run from the stored copy: %v", err)
	}
	// a second submission while the first's jobs are queued is refused,
	// clearing nothing; once squeue lists none of them, it goes through
	queued, gone, ok := filepath.Join(bin, "squeue-queued"), filepath.Join(bin, "squeue-gone"), filepath.Join(bin, "sbatch-ok")
	os.WriteFile(queued, []byte("#!/bin/sh\necho 77\n"), 0o755)
	os.WriteFile(gone, []byte("#!/bin/sh\nexit 0\n"), 0o755)
	os.WriteFile(ok, []byte("#!/bin/sh\necho 78\n"), 0o755)
	run0 := filepath.Join(out, runsDir, "000000.run")
	if _, err := SubmitSlurm(context.Background(), loadSmall(t, out), filepath.Join("testdata", "small.yaml"), SlurmOptions{Submit: true, Sbatch: ok, Squeue: queued}); err == nil ||
		!strings.Contains(err.Error(), "its last submission (jobs 77) is still queued or running") {
		t.Errorf("a second submission while the first is queued: %v", err)
	}
	if _, err := os.Stat(run0); err != nil {
		t.Errorf("the refused submission cleared a run: %v", err)
	}
	if job, err := SubmitSlurm(context.Background(), loadSmall(t, out), filepath.Join("testdata", "small.yaml"), SlurmOptions{Submit: true, Sbatch: ok, Squeue: gone}); err != nil || job.Array != "78" {
		t.Errorf("a submission after the first ended: %+v, %v", job, err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, slurmDir, jobsFile)); string(b) != "78 78\n" {
		t.Errorf("jobs recorded %q", b)
	}
}

// A dry run writes its scripts and nothing else: a directory of complete
// results keeps every file (it cleared them, a reviewer's find); with
// --resume the tasks skip runs stored complete.
func TestSlurmDryRunKeepsResults(t *testing.T) {
	dir := t.TempDir()
	if _, err := Run(context.Background(), loadSmall(t, dir), RunOptions{}); err != nil {
		t.Fatal(err)
	}
	before := map[string][]byte{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			before[p], _ = os.ReadFile(p)
		}
		return err
	})
	for _, resume := range []bool{false, true} {
		job, err := SubmitSlurm(context.Background(), loadSmall(t, dir), filepath.Join("testdata", "small.yaml"), SlurmOptions{WB: fakeProgram(t), Resume: resume})
		if err != nil {
			t.Fatal(err)
		}
		for p, b := range before {
			if got, err := os.ReadFile(p); err != nil || !bytes.Equal(got, b) {
				t.Errorf("dry run (resume %v): %s changed or gone (%v)", resume, p, err)
			}
		}
		if resume {
			// every run stored complete: no array, only the collect
			if job.ArrayScript != "" || job.Tasks != 0 || job.Kept != job.Runs {
				t.Errorf("resume with every run complete: %+v", job)
			}
			if _, err := os.Stat(filepath.Join(dir, slurmDir, "array.sbatch")); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("resume with every run complete left an array script (%v)", err)
			}
			continue
		}
		a, _ := os.ReadFile(job.ArrayScript)
		if strings.Contains(string(a), "--resume") {
			t.Errorf("the tasks resume:\n%s", a)
		}
	}
	// and a dry run into another config's results refuses, as a run would
	other := loadSmall(t, dir)
	other.Name = "other"
	other.raw = append(slices.Clone(other.raw), []byte("\n# another\n")...)
	if _, err := SubmitSlurm(context.Background(), other, filepath.Join("testdata", "small.yaml"), SlurmOptions{WB: fakeProgram(t)}); err == nil || !strings.Contains(err.Error(), "holds the results of another config") {
		t.Errorf("dry run over another config's results: %v", err)
	}
}

// --resume on Slurm asks for the tasks of the runs left alone (it
// resubmitted the whole array, each task skipping its run), and with none
// left submits the collect job alone.
func TestSlurmResumeRunsLeft(t *testing.T) {
	dir := t.TempDir()
	if _, err := Run(context.Background(), loadSmall(t, dir), RunOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{1, 2, 5} {
		if err := os.Remove(runPath(dir, i)); err != nil {
			t.Fatal(err)
		}
	}
	if left, why := loadSmall(t, dir).runsLeft(dir, loadSmall(t, dir).Runs()); len(left) != 3 || why != " (3 not run yet)" {
		t.Fatalf("runs left %v%s", left, why)
	}
	bin := t.TempDir()
	args := filepath.Join(bin, "args")
	sbatch := filepath.Join(bin, "sbatch")
	os.WriteFile(sbatch, []byte("#!/bin/sh\necho \"$@\" >> "+args+"\ncat \"$2\" >> "+args+" 2>/dev/null\necho 42\n"), 0o755)
	job, err := SubmitSlurm(context.Background(), loadSmall(t, dir), filepath.Join("testdata", "small.yaml"), SlurmOptions{WB: fakeProgram(t), Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(job.ArrayScript)
	if job.Runs != 16 || job.Kept != 13 || job.Tasks != 3 || !strings.Contains(string(a), "#SBATCH --array=1-2,5\n") ||
		!strings.Contains(string(a), "--jobs 1 --resume --out") {
		t.Errorf("resume with runs 1, 2 and 5 missing: %+v\n%s", job, a)
	}
	// submitted: the array, then the collect after it
	job, err = SubmitSlurm(context.Background(), loadSmall(t, dir), filepath.Join("testdata", "small.yaml"), SlurmOptions{WB: fakeProgram(t), Resume: true, Submit: true, Sbatch: sbatch})
	if err != nil || job.Array != "42" || job.Collect != "42" {
		t.Fatalf("resume submitted: %+v, %v", job, err)
	}
	b, _ := os.ReadFile(args)
	if !strings.Contains(string(b), "--array=1-2,5") || !strings.Contains(string(b), "--dependency=afterany:42") {
		t.Errorf("sbatch was given:\n%s", b)
	}
	// every run complete: the collect alone, with no dependency
	if _, err := Run(context.Background(), loadSmall(t, dir), RunOptions{Resume: true}); err != nil {
		t.Fatal(err)
	}
	os.Remove(args)
	job, err = SubmitSlurm(context.Background(), loadSmall(t, dir), filepath.Join("testdata", "small.yaml"), SlurmOptions{WB: fakeProgram(t), Resume: true, Submit: true, Sbatch: sbatch})
	if err != nil || job.Array != "" || job.Collect != "42" || job.ArrayScript != "" {
		t.Fatalf("resume with nothing left: %+v, %v", job, err)
	}
	b, _ = os.ReadFile(args)
	if strings.Contains(string(b), "dependency") || strings.Contains(string(b), "--array") || !strings.Contains(string(b), "collect.sbatch") {
		t.Errorf("sbatch was given, with nothing left to run:\n%s", b)
	}
	if ids, _ := os.ReadFile(filepath.Join(dir, slurmDir, jobsFile)); string(ids) != "42\n" {
		t.Errorf("jobs recorded %q", ids)
	}
}

func TestArraySpec(t *testing.T) {
	for _, c := range []struct {
		ids  []int
		want string
	}{{nil, ""}, {[]int{0}, "0"}, {[]int{0, 1, 2, 3}, "0-3"}, {[]int{0, 2, 3, 7, 9, 10}, "0,2-3,7,9-10"}} {
		if got := arraySpec(c.ids); got != c.want {
			t.Errorf("arraySpec(%v) = %q, want %q", c.ids, got, c.want)
		}
	}
}

// TestInterruptedWhileReading: an interrupt while the traces are read,
// before the results directory is claimed, stops there: nothing written,
// the results there untouched even with --force (the reads went on to
// claim and clear the directory, and the run reported runs kept: a
// reviewer's find).
func TestInterruptedWhileReading(t *testing.T) {
	dir := t.TempDir()
	c := loadSmall(t, dir)
	if _, err := Run(context.Background(), c, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	runsBefore, err := os.ReadDir(filepath.Join(dir, runsDir))
	if err != nil || len(runsBefore) == 0 {
		t.Fatalf("%d runs stored (%v)", len(runsBefore), err)
	}
	other := loadSmall(t, dir)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Run(ctx, other, RunOptions{Force: true})
	if err == nil || !strings.Contains(err.Error(), "interrupted before any run began: nothing written") {
		t.Errorf("error %v", err)
	}
	if after, err := os.ReadFile(filepath.Join(dir, SummaryFile)); err != nil || !bytes.Equal(after, before) {
		t.Errorf("the results there changed (%v)", err)
	}
	// (a fresh run's claim clears the stored runs: they are all there)
	if runs, err := os.ReadDir(filepath.Join(dir, runsDir)); err != nil || len(runs) != len(runsBefore) {
		t.Errorf("%d runs stored after the interrupt, %d before (%v)", len(runs), len(runsBefore), err)
	}
}

// TestConfigNamesOneLine: a workload's or scheduler's name holding a line
// feed or another control character is refused (it split the printed
// table's rows: a reviewer's find).
func TestConfigNamesOneLine(t *testing.T) {
	cfg := "name: x\nworkloads:\n  - {name: \"KTH\\nx\", trace: x.swf}\nschedulers:\n  - {name: \"EASY\\t2\", backfill: easy}\n"
	_, err := ParseConfig([]byte(cfg), "n.yaml")
	for _, want := range []string{`n.yaml:3: workloads[0].name: "KTH\nx" holds a control character`, `n.yaml:5: schedulers[0].name: "EASY\t2" holds a control character`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	cfg := `name: bad/name
replicas: -1
seed: 1
workloads:
  - trace: ""
    window: -5
    widnow: 3
  - {name: a, trace: x.swf}
  - {name: a, trace: y.swf}
schedulers:
  - {backfill: easy}
  - {order: lifo}
  - {backfill: easey, placement: zz-no-such-fit}
sweep:
  load: [1, 0, -2, 1e-300]
  procs: [0]
outputs:
  jobs: some
figures:
  - {kind: pie}
  - {kind: line, metric: nonsense, x: seed}
  - {kind: cdf, metric: util}
  - {kind: timeseries, metric: util, load: 3}
  - {kind: bar}
`
	_, err := ParseConfig([]byte(cfg), "bad.yaml")
	if err == nil {
		t.Fatal("bad config accepted")
	}
	// Unknown fields are reported beside every other mistake (they once
	// stopped the parse before the semantic checks).
	for _, want := range []string{
		"bad.yaml:7: workloads[0].widnow: unknown field (known: allreduce_gavel, allreduce_gbps, arrival_interval, arrival_rate, cluster, gpu_models, gpu_specs, gpu_type, held_out, interconnect, internode_gbps, name, price, prices, procs, run_noise, run_noise_by, run_noise_gpus, sample, skip_invalid, synthetic, throughputs, trace, window)",
		"bad.yaml:2: replicas: -1 is negative",
		`bad.yaml:13: schedulers[2].backfill: unknown "easey"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("errors lack %q:\n%v", want, err)
		}
	}
	// Without it, every semantic problem at once, with its line and path.
	cfg = strings.Replace(cfg, "    widnow: 3\n", "", 1)
	_, err = ParseConfig([]byte(cfg), "bad.yaml")
	for _, want := range []string{
		`bad.yaml:1: name: "bad/name" is not a plain name`,
		"bad.yaml:2: replicas: -1 is negative",
		"bad.yaml:5: workloads[0].trace: required",
		"bad.yaml:6: workloads[0].window: -5 is negative",
		`bad.yaml:8: workloads[2].name: "a" already names workloads[1]`,
		// (the parts registered, whatever a program of one's own adds)
		`bad.yaml:11: schedulers[1].order: unknown "lifo" (known: ` + strings.Join(Parts().Orders.Names(), ", ") + `)`,
		`bad.yaml:12: schedulers[2].backfill: unknown "easey" (known: ` + strings.Join(Parts().Backfills.Names(), ", ") + `)`,
		`bad.yaml:12: schedulers[2].placement: unknown "zz-no-such-fit" (known: ` + strings.Join(Parts().Placements.Names(), ", ") + `)`,
		"bad.yaml:14: sweep.load[1]: 0 is not a positive arrival-rate multiplier",
		"bad.yaml:14: sweep.load[2]: -2 is not a positive",
		"bad.yaml:14: sweep.load[3]: 1e-300: want an arrival-rate multiplier from 1e-6 to 1e6",
		"bad.yaml:15: sweep.procs[0]: 0: want 1 to 1099511627 processors (the simulator's bound of 2^40 milli-cores)",
		`bad.yaml:17: outputs.jobs: unknown "some" (known: all, first-replica, none)`,
		`bad.yaml:19: figures[0].kind: unknown "pie" (known: bar, cdf, line, pareto, progress, timeseries)`,
		`bad.yaml:20: figures[1].metric: unknown "nonsense" (known: completed,`,
		`bad.yaml:20: figures[1].x: unknown "seed" (known: load, procs, sigma)`,
		`bad.yaml:21: figures[2].metric: unknown "util" (known: jct, slowdown, wait)`,
		`bad.yaml:22: figures[3].load: 3 is not one of the sweep's loads [1 0 -2 1e-300]`,
		`bad.yaml:23: figures[4].metric: required: a summary.csv column`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("errors lack %q", want)
		}
	}
	if t.Failed() {
		t.Logf("all errors:\n%v", err)
	}
	// NaN is not a point (and not a point given twice)
	if _, err := ParseConfig([]byte("name: x\nsweep: {load: [.nan], sigma: [.nan]}\n"), "bad.yaml"); err == nil ||
		!strings.Contains(err.Error(), "sweep.load[0]: NaN is not a positive") || strings.Contains(err.Error(), "again") {
		t.Errorf("a NaN sweep point: %v", err)
	}
	for _, bad := range []struct{ cfg, want string }{
		{"", "empty config"},
		{"name: [", "bad.yaml"},
		{"- a\n- b\n", "want a mapping"},
		{"name: x\nworkloads: {trace: a}\n", "workloads: want a list"},
		{"name: x\nreplicas: many\nseed: -1\n", "bad.yaml:2: replicas: many: want a whole number"},
		{"name: x\nreplicas: 1\nseed: -1\n", "bad.yaml:3: seed: -1: want a whole number, 0 or more"},
		{"name: x\nseed: 1.5\n", "bad.yaml:2: seed: 1.5: want a whole number"},
		{"name: x\nseed: 99999999999999999999999\n", "bad.yaml:2: seed: 99999999999999999999999: want a whole number from 0 to 18446744073709551615"},
		// a second document would be dropped unread, its unknown keys too
		{"name: x\nreplicas: 1\n---\nreplicas: 7\nbogus: 1\n", "bad.yaml:4: a second YAML document (after ---)"},
		{"name: x\n---\n---\n\n[oops\n", "bad.yaml:5: not YAML"},
		{"name: x\nworkloads:\n  - trace: a.swf\n\t  window: 3\n", "bad.yaml:4: not YAML: found a tab character that violates indentation (YAML indents with spaces only"},
		{"name: x\nworkloads: [{trace: a.swf}]\nschedulers: [{placement: fgd}, {consolidate: true}]\n",
			"bad.yaml:3: schedulers[0].placement: fgd: every workload runs on one node"},
		{"name: x\nworkloads: [{trace: a.swf}]\nschedulers: [{placement: fgd}, {consolidate: true}]\n",
			"bad.yaml:3: schedulers[1].consolidate: every workload runs on one node"},
		{"name: x\nworkloads: {}\n", "bad.yaml:2: workloads: want a list\n"},
		{"name: x\nschedulers:\n  - {name: F, bogus: 1, sigma: high, estimate: user}\n", "bad.yaml:3: schedulers[0].sigma: high: want a number"},
		{"a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n" +
			"d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n", "unknown field"},
	} {
		_, err := ParseConfig([]byte(bad.cfg), "bad.yaml")
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want %q", bad.cfg, err, bad.want)
		}
		// the config's words, not the decoder's Go types
		if err != nil && (strings.Contains(err.Error(), "cannot unmarshal") || strings.Contains(err.Error(), "experiments.")) {
			t.Errorf("%q: error %v names Go types", bad.cfg, err)
		}
	}
}

// More mistakes a config is refused for at once, each at its line: a trace
// of an unknown format or missing, beside a mistake of another field; a
// missing openb cluster file; "synthetic" named as a trace; a value of the
// right kind quoted into a string; and keys given twice, said alone (the
// decoder stops in that mapping, so what it leaves unset is not the
// config's mistake).
func TestConfigErrorsFiles(t *testing.T) {
	cfg := `name: files
seed: 1
replicas: "2"
workloads:
  - {name: a, trace: swff:x.swf}
  - {name: b, trace: no-such.swf}
  - {name: c, trace: synthetic}
  - {name: d, trace: openb:pods.csv, cluster: openb:no-nodes.csv}
  - {name: e, trace: swf:sub}
  - {name: f, trace: empty.swf, cluster: banana}
schedulers:
  - {backfill: easey}
  - {backfill: easy, kill_at_user_limit: "false"}
`
	dir := t.TempDir()
	path := filepath.Join(dir, "files.yaml")
	os.WriteFile(path, []byte(cfg), 0o644)
	os.WriteFile(filepath.Join(dir, "pods.csv"), []byte("name\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "empty.swf"), nil, 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	_, err := LoadConfig(path)
	if err == nil {
		t.Fatal("bad config accepted")
	}
	for _, want := range []string{
		`files.yaml:3: replicas: "2" is quoted, so a string: want a whole number, without the quotes`,
		`files.yaml:5: workloads[0].trace: swff:x.swf: unknown trace format "swff" (formats: gavel, openb, pai, pai-sim, swf)`,
		`files.yaml:6: workloads[1].trace: ` + filepath.Join(dir, "no-such.swf") + `: no such file`,
		`files.yaml:7: workloads[2].trace: synthetic: a generated workload is a section of its own`,
		`files.yaml:8: workloads[3].cluster: ` + filepath.Join(dir, "no-nodes.csv") + `: no such file`,
		`files.yaml:9: workloads[4].trace: ` + filepath.Join(dir, "sub") + `: a folder; want a trace file`,
		`files.yaml:10: workloads[5].trace: ` + filepath.Join(dir, "empty.swf") + `: an empty file`,
		`files.yaml:10: workloads[5].cluster: cluster "banana": unknown (known: pool:N, pool:G:C, nodes:NxG:MODEL[:C:M], openb:PATH, pai:PATH, openb, openb-all, pai;`,
		`files.yaml:12: schedulers[0].backfill: unknown "easey"`,
		`files.yaml:13: schedulers[1].kill_at_user_limit: "false" is quoted, so a string: want true or false, without the quotes`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("errors lack %q", want)
		}
	}
	if strings.Contains(err.Error(), "workloads[3].trace") {
		t.Errorf("a trace that is there reported: %v", err)
	}
	if t.Failed() {
		t.Logf("all errors:\n%v", err)
	}
	// a number beyond a float64 is a string to YAML: not said to be quoted
	_, err = ParseConfig([]byte("name: n\nworkloads:\n  - {trace: x.swf, price: 1e400}\nschedulers:\n  - {backfill: easy}\n"), "n.yaml")
	if err == nil || strings.Contains(err.Error(), "quoted") || !strings.Contains(err.Error(), "n.yaml:3: workloads[0].price: 1e400 is beyond a float64's range: want a number") {
		t.Errorf("price: 1e400: %v", err)
	}
	// nan and inf are strings to YAML, unquoted: not said to be quoted
	_, err = ParseConfig([]byte("name: n\nseed: nan\nworkloads:\n  - {trace: x.swf}\nschedulers:\n  - {backfill: easy}\n"), "n.yaml")
	if err == nil || strings.Contains(err.Error(), "quoted") || !strings.Contains(err.Error(), "n.yaml:2: seed: nan: want a whole number, 0 or more") {
		t.Errorf("seed: nan: %v", err)
	}
	_, err = ParseConfig([]byte("name: dup\nreplicas: 2\nreplicas: 3\nworkloads:\n  - {trace: x.swf}\nschedulers:\n  - {backfill: easy}\n"), "dup.yaml")
	if err == nil || err.Error() != `dup.yaml:3: replicas: given again (first at line 2): give it once` {
		t.Errorf("a key given twice: %v", err)
	}
	// every key given twice, at any depth, said at once
	_, err = ParseConfig([]byte("name: dup\nreplicas: 2\nworkloads:\n  - trace: x.swf\n    window: 5\n    window: 6\nschedulers:\n  - {backfill: easy}\nreplicas: 3\n"), "dup.yaml")
	if err == nil || err.Error() != "dup.yaml:6: workloads[0].window: given again (first at line 5): give it once\ndup.yaml:9: replicas: given again (first at line 2): give it once" {
		t.Errorf("keys given twice at two depths: %v", err)
	}
	// and a map's keys (prices), alone or beside a field's
	for _, extra := range []string{"", "replicas: 3\n"} {
		_, err = ParseConfig([]byte("name: dup\nreplicas: 2\nworkloads:\n  - trace: x.swf\n    prices: {V100: 1, V100: 2}\nschedulers:\n  - {backfill: easy}\n"+extra), "dup.yaml")
		if err == nil || !strings.Contains(err.Error(), "dup.yaml:5: workloads[0].prices.V100: given again (first at line 5): give it once") {
			t.Errorf("a map's key given twice (%q): %v", extra, err)
		}
	}
}

// TestConfigAnchors: YAML anchors, aliases and merge keys are valid YAML and
// read as written (they were refused with misleading errors); a typo in a
// merged mapping is still caught, and an alias bomb refused.
func TestConfigAnchors(t *testing.T) {
	cfg := `name: anchors
workloads:
  - &kth {name: KTH, trace: ../../datasets/data/swf/KTH-SP2-1996-2.1-cln.swf.gz, window: 200}
  - <<: *kth
    name: KTH2
schedulers:
  - &fcfs {name: FCFS, backfill: none}
  - <<: [*fcfs]
    name: FCFS2
    backfill: easy
`
	c, err := ParseConfig([]byte(cfg), filepath.Join("testdata", "anchors.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Workloads) != 2 || c.Workloads[1].Name != "KTH2" || c.Workloads[1].Window != 200 || c.Workloads[1].Trace != c.Workloads[0].Trace ||
		c.Schedulers[1].Name != "FCFS2" || c.Schedulers[1].Backfill != "easy" {
		t.Errorf("merged: %+v %+v", c.Workloads, c.Schedulers)
	}
	bad := strings.Replace(cfg, "window: 200", "windw: 200", 1)
	if _, err := ParseConfig([]byte(bad), "a.yaml"); err == nil || !strings.Contains(err.Error(), "a.yaml:3: workloads[0].windw: unknown field") ||
		!strings.Contains(err.Error(), "workloads[1].windw: unknown field") {
		t.Errorf("typo in an anchored mapping: %v", err)
	}
	bomb := "name: x\nx0: &x0 {name: a}\n"
	for i := 1; i <= 8; i++ { // each mapping merges the one before ten times: 10⁸ once expanded
		bomb += fmt.Sprintf("x%d: &x%d {<<: [%s]}\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*x%d, ", i-1), 10), ", "))
	}
	if _, err := ParseConfig([]byte(bomb+"workloads: [*x8]\n"), "bomb.yaml"); err == nil ||
		!strings.Contains(err.Error(), "aliases are expanded: refused") {
		t.Errorf("alias bomb: %v", err)
	}
}

// TestExplainCoversEveryField: --explain documents every field.
func TestExplainCoversEveryField(t *testing.T) {
	e := Explain()
	for _, f := range []string{"name", "seed", "replicas", "workloads[].window", "schedulers[].backfill", "sweep.load", "outputs.jobs", "figures[].log_y", "out"} {
		if !strings.Contains(e, "\n"+f+" ") && !strings.HasPrefix(e, f+" ") {
			t.Errorf("--explain lacks %s", f)
		}
	}
	// a part's field names every part a config may take
	for field, part := range map[string]string{"schedulers[].order": "sjf", "schedulers[].backfill": "conservative",
		"schedulers[].placement": "gpu-clustering", "schedulers[].estimate": "model"} {
		_, line, _ := strings.Cut(e, "\n"+field+" ")
		line, _, _ = strings.Cut(line, "\n")
		if !strings.Contains(line, "one of ") || !strings.Contains(line, part) {
			t.Errorf("--explain's %s does not list %s: %q", field, part, line)
		}
	}
	_, fields, _ := strings.Cut(e, "\n\n") // after the preamble
	for _, line := range strings.Split(strings.TrimSpace(fields), "\n") {
		if len(strings.Fields(line)) < 2 {
			t.Errorf("field without documentation: %q", line)
		}
	}
}

// TestBundledConfigsValid: every config in configs/ loads.
func TestBundledConfigsValid(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "configs", "*.yaml"))
	if len(files) == 0 {
		t.Fatal("no configs")
	}
	for _, f := range files {
		if _, err := LoadConfig(f); err != nil {
			t.Error(err)
		}
	}
}

// TestFigures: the small config's figures are drawn, one file per format
// (and per workload for line, cdf and timeseries), and wb plot redraws the
// same bytes from the CSVs.
func TestFigures(t *testing.T) {
	out := t.TempDir()
	rep, err := Run(context.Background(), loadSmall(t, out), RunOptions{Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	var figs []string
	for _, f := range rep.Files {
		if strings.Contains(f, string(filepath.Separator)+FiguresDir+string(filepath.Separator)) {
			figs = append(figs, f)
		}
	}
	// (line, cdf, timeseries, bar) × 2 workloads, × 3 formats: the bar
	// figure is split per workload, since gavel's CPU utilisation (under
	// 20% of KTH's) would hide beside KTH's.
	if len(figs) != 4*2*3 || !slices.Contains(figs, filepath.Join(out, FiguresDir, "bar-util_cpu-gavel.png")) {
		t.Fatalf("%d figure files, want 24 with bar-util_cpu per workload: %v", len(figs), figs)
	}
	if len(rep.FigureFindings) > 0 {
		t.Errorf("figure check: %v", rep.FigureFindings)
	}
	before := map[string][]byte{}
	for _, f := range figs {
		b, err := os.ReadFile(f)
		if err != nil || len(b) < 1000 {
			t.Fatalf("%s: %d bytes, %v", f, len(b), err)
		}
		before[f] = b
		os.Remove(f)
	}
	again, _, err := Plot(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != len(figs) {
		t.Fatalf("wb plot wrote %d files, the experiment %d", len(again), len(figs))
	}
	for _, f := range again {
		b, _ := os.ReadFile(f)
		if !bytes.Equal(b, before[f]) {
			t.Errorf("%s differs when redrawn", f)
		}
	}
	if _, _, err := Plot(t.TempDir()); err == nil || !strings.Contains(err.Error(), "results directory of wb experiment") {
		t.Errorf("plot of an empty directory: %v", err)
	}
}

// TestSyntheticWorkload: a generated workload runs, differs between
// replicas, and is refused together with a trace.
func TestSyntheticWorkload(t *testing.T) {
	cfg := "name: syn\nreplicas: 2\nseed: 3\nworkloads:\n  - synthetic: {jobs: 300, procs: 32}\nschedulers: [{backfill: easy}]\n"
	c, err := ParseConfig([]byte(cfg), filepath.Join(t.TempDir(), "syn.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	c.Out = t.TempDir()
	if _, err := Run(context.Background(), c, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	r0, _ := c.readRun(c.Out, 0)
	r1, _ := c.readRun(c.Out, 1)
	if r0.Jobs != 300 || r0.Summary.MeanWait == r1.Summary.MeanWait {
		t.Errorf("replicas: %d jobs; mean waits %v and %v", r0.Jobs, r0.Summary.MeanWait, r1.Summary.MeanWait)
	}
	bad := "name: syn\nworkloads:\n  - trace: x.swf\n    synthetic: {jobs: 0, procs: 32}\nschedulers: [{}]\n"
	_, err = ParseConfig([]byte(bad), "syn.yaml")
	for _, want := range []string{"syn.yaml:4: workloads[0].synthetic: a workload is a trace or synthetic"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
	_, err = ParseConfig([]byte(strings.Replace(bad, "  - trace: x.swf\n    synthetic", "  - synthetic", 1)), "syn.yaml")
	if err == nil || !strings.Contains(err.Error(), "workloads[0].synthetic: jobs: 0; want 1 to 10,000,000") {
		t.Errorf("error %v", err)
	}
	// a 0 written is refused, not taken for the default (a reviewer's
	// find: mean_interarrival: 0 drew the default 600 s without a word)
	zero := "name: syn\nworkloads:\n  - synthetic: {jobs: 10, procs: 8, mean_interarrival: 0, min_runtime: 0, max_runtime: 0, estimate_factor: 0}\nschedulers: [{}]\n"
	_, err = ParseConfig([]byte(zero), "syn.yaml")
	for _, want := range []string{"syn.yaml:3: workloads[0].synthetic.mean_interarrival: 0: want a positive number of seconds (leave it out for 600)",
		"workloads[0].synthetic.min_runtime: 0: want at least 1 s", "workloads[0].synthetic.max_runtime: 0: want at least min_runtime",
		"workloads[0].synthetic.estimate_factor: 0: want 1 (exact) or more"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("synthetic zeroes: %v lacks %q", err, want)
		}
	}
}

func TestMetricsTable(t *testing.T) {
	rep, err := Run(context.Background(), loadSmall(t, t.TempDir()), RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(rep.Table), "\n")
	// what the figures are, header, 2 workloads × 2 schedulers × 2 loads
	if len(lines) != 10 || !strings.HasPrefix(lines[0], "mean [bootstrap CI (nominal 95%, at most 50% with 2)] over 2 replicas") ||
		!strings.HasPrefix(lines[1], "workload  scheduler  load  mean_wait") {
		t.Fatalf("table:\n%s", rep.Table)
	}
	if !strings.Contains(rep.Table, " [") {
		t.Errorf("no confidence interval over 2 replicas:\n%s", rep.Table)
	}
	if strings.Contains(rep.Table, "e-1") {
		t.Errorf("a spread of rounding error is printed:\n%s", rep.Table)
	}
}

// TestMetricsTablePartial: a row some of whose replicas failed says over
// how many it is (the header's count is the config's).
func TestMetricsTablePartial(t *testing.T) {
	c, err := ParseConfig([]byte(`name: part
seed: 7
replicas: 12
workloads:
  - {name: a, trace: ../datasets/data/gavel/msr/0e4a51.trace.gz, gpu_type: k80, sample: 3, cluster: "nodes:1x1:V100", throughputs: measured}
schedulers:
  - {name: FIFO, backfill: none, estimate: exact}
`), "part.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c.Out = t.TempDir()
	rep, err := Run(context.Background(), c, RunOptions{Jobs: 1})
	if err == nil {
		t.Fatal("no run failed: want replica 10's 3 jobs too large for the one GPU")
	}
	if want := "note: a under FIFO at load 1: 1 of its 12 replicas failed; its row is of the 11 that completed"; rep == nil || !strings.Contains(rep.Table, want) {
		t.Errorf("table without %q:\n%v", want, rep)
	}
}

// TestPanickingRunRecorded: a run that panics is recorded as failed with
// the panic and its stack; the runner goes on.
func TestPanickingRunRecorded(t *testing.T) {
	c := loadSmall(t, t.TempDir())
	r := c.runOne(nil, c.Runs()[0]) // no workload cache: the run panics
	if r.Status != "failed" || !strings.HasPrefix(r.Error, "panic: ") || !strings.Contains(r.Stack, "runOne") {
		t.Fatalf("status %q, error %q, stack %d bytes", r.Status, r.Error, len(r.Stack))
	}
}

// TestDefaultMetricsUtil: the table's default utilisation is the first
// workload's resource: GPUs for a Gavel trace on GPU nodes, processors for
// an SWF trace.
func TestDefaultMetricsUtil(t *testing.T) {
	for trace, want := range map[string]string{
		data("gavel/small_test.trace"):          "util_gpu",
		data("swf/KTH-SP2-1996-2.1-cln.swf.gz"): "util_cpu",
	} {
		rep := runOneWorkload(t, t.TempDir(), trace, "window: 200")
		head := strings.SplitN(rep.Table, "\n", 3)[1]
		if !strings.HasSuffix(strings.TrimSpace(head), want) {
			t.Errorf("%s: table header %q, want it to end in %s", trace, head, want)
		}
	}
}

// TestSlurmRefusesBadLines: a partition, time limit or results directory
// that an #SBATCH line cannot carry as given (a newline would add a
// directive of its own; a space ends --output; % is expanded) is refused
// before anything is written.
func TestSlurmRefusesBadLines(t *testing.T) {
	for _, c := range []struct {
		opts SlurmOptions
		out  string
		want string
	}{
		{SlurmOptions{Partition: "gpu\n#SBATCH --mem=1"}, "a", "--partition"},
		{SlurmOptions{Time: "banana"}, "b", "--time \"banana\""},
		{SlurmOptions{Time: "10:00:00:00"}, "c", "--time"},
		{SlurmOptions{}, "with space", "cannot hold spaces"},
		{SlurmOptions{}, "100%", "cannot hold"},
	} {
		base := t.TempDir()
		cfg := loadSmall(t, filepath.Join(base, c.out))
		_, err := SubmitSlurm(context.Background(), cfg, filepath.Join("testdata", "small.yaml"), c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v into %q: error %v, want %q", c.opts, c.out, err, c.want)
		}
		if ents, _ := os.ReadDir(base); len(ents) != 0 {
			t.Errorf("%+v into %q: wrote %v", c.opts, c.out, ents)
		}
	}
	for _, ok := range []string{"30", "10:00", "01:00:00", "2-00", "2-12:30", "1-00:00:00"} {
		if err := (SlurmOptions{Time: ok, Partition: "gpu,cpu"}).validate(); err != nil {
			t.Errorf("--time %s: %v", ok, err)
		}
	}
}

// TestPlotRefusesMissingColumn: a summary.csv whose metric's column was
// taken out or renamed by hand is refused, and the drawings stay (the
// figure was dropped as if its runs had failed, its drawings deleted,
// exit 0: a reviewer's find).
func TestPlotRefusesMissingColumn(t *testing.T) {
	dir := t.TempDir()
	if _, err := Run(context.Background(), loadSmall(t, dir), RunOptions{}); err != nil {
		t.Fatal(err)
	}
	sum := filepath.Join(dir, SummaryFile)
	b, err := os.ReadFile(sum)
	if err != nil {
		t.Fatal(err)
	}
	head, rest, _ := strings.Cut(string(b), "\n")
	if err := os.WriteFile(sum, []byte(strings.Replace(head, "mean_bounded_slowdown,", "mean_bounded_slowdwn,", 1)+"\n"+rest), 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := filepath.Glob(filepath.Join(dir, FiguresDir, "line-mean_bounded_slowdown*"))
	if _, _, err := Plot(dir); err == nil || !strings.Contains(err.Error(), "summary.csv has no column mean_bounded_slowdown (the file was edited?)") {
		t.Errorf("plot: %v", err)
	}
	if after, _ := filepath.Glob(filepath.Join(dir, FiguresDir, "line-mean_bounded_slowdown*")); len(before) == 0 || len(after) != len(before) {
		t.Errorf("its drawings: %d before, %d after", len(before), len(after))
	}
}

// TestPlotRemovesStaleFigures: plotting again draws every figure the
// config names and removes the figure files of one it no longer names; a
// table that cannot be read fails each of its figures with that reason.
func TestPlotRemovesStaleFigures(t *testing.T) {
	dir := t.TempDir()
	c := loadSmall(t, dir)
	if _, err := Run(context.Background(), c, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, FiguresDir, "bar-gone.png")
	mine := filepath.Join(dir, FiguresDir, "notes.txt")
	picture := filepath.Join(dir, FiguresDir, "bar-annotated-for-paper.png") // the user's, named like wb's
	for _, p := range []string{stale, mine, picture} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	recordAlso(t, filepath.Join(dir, FiguresDir), "bar-gone.png") // drawn by an earlier config
	written, _, err := Plot(dir)
	if err != nil || len(written) == 0 {
		t.Fatalf("plot: %d files, %v", len(written), err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a figure the config does not name is still there (%v)", err)
	}
	// a picture of the user's in figures/ is left alone (every .png there
	// was taken for wb's and deleted: a reviewer's find)
	for _, p := range []string{mine, picture} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("a file not wb's was removed: %v", err)
		}
	}
	rec, err := os.ReadFile(filepath.Join(dir, FiguresDir, FiguresRecord))
	if err != nil || strings.Contains(string(rec), "bar-gone.png") || strings.Contains(string(rec), "annotated") || !strings.Contains(string(rec), filepath.Base(written[0])+"\n") {
		t.Errorf("the record after the plot: %q, %v", rec, err)
	}
	for _, p := range written {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("drawn figure %s: %v", p, err)
		}
	}
	// a summary.csv edited so that figures would draw it wrong is refused
	sum := filepath.Join(dir, SummaryFile)
	orig, err := os.ReadFile(sum)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(orig), "\n")
	for name, edited := range map[string]string{
		"a row twice":   string(orig) + lines[1],
		"a status typo": lines[0] + strings.Replace(lines[1], ",ok,", ",okk,", 1) + strings.Join(lines[2:], ""),
	} {
		if err := os.WriteFile(sum, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := Plot(dir); err == nil || !strings.Contains(err.Error(), sum+":") || !(strings.Contains(err.Error(), "again (line 2 has it)") || strings.Contains(err.Error(), `status "okk"`)) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// a run's row missing (cut short, or deleted), or the file emptied:
	// refused, where the figures drew the rest as all of it (a reviewer's
	// find), and every figure refused, those of the other tables too
	for name, edited := range map[string]string{
		"a row deleted": lines[0] + strings.Join(lines[2:], ""),
		"emptied":       "",
	} {
		if err := os.WriteFile(sum, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		written, _, err := Plot(dir)
		if err == nil || !strings.Contains(err.Error(), sum+": no row of ") || !strings.Contains(err.Error(), "the file was cut short or edited") || len(written) != 0 {
			t.Errorf("%s: %d files drawn, %v", name, len(written), err)
		}
	}
	if err := os.WriteFile(sum, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	// the config copy edited since the runs: a workload renamed, a load
	// added to the sweep (the runs renumbered), a scheduler's definition
	// changed under its name (which no row of summary.csv tells: the
	// manifest's config does); with the manifest gone, the rows tell
	// what they can
	cfgPath := filepath.Join(dir, ConfigCopy)
	cfg, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(cfg), "backfill: easy") {
		t.Fatalf("the config has no EASY to redefine:\n%s", cfg)
	}
	manifest := filepath.Join(dir, ManifestFile)
	for name, c := range map[string]struct{ old, new, want string }{
		"renamed":   {"name: KTH\n", "name: KTHX\n", `config.yaml: its "workloads" section differs from that of the config the runs were made with`},
		"swept":     {"load: [1, 2]", "load: [1, 2, 3]", `config.yaml: its "sweep" section differs`},
		"redefined": {"backfill: easy", "backfill: conservative", `config.yaml: its "schedulers" section differs`},
		// timeseries.csv's bins are the runs' (refused as "cut short": a
		// reviewer's find)
		"rebinned": {"timeseries_points: 10", "timeseries_points: 20", `config.yaml: its "outputs" section differs`},
	} {
		if err := os.WriteFile(cfgPath, []byte(strings.Replace(string(cfg), c.old, c.new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := Plot(dir); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "was the config copy (config.yaml) edited since the runs?") {
			t.Errorf("config %s: %v", name, err)
		}
	}
	mb, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(manifest); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct{ old, new, want string }{
		"renamed": {"name: KTH\n", "name: KTHX\n", `run 0 has workload "KTH" where the config has "KTHX"`},
		"swept":   {"load: [1, 2]", "load: [1, 2, 3]", `run 4 has scheduler "EASY" where the config has "FCFS" (KTH FCFS load=3 replica=0)`},
	} {
		if err := os.WriteFile(cfgPath, []byte(strings.Replace(string(cfg), c.old, c.new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := Plot(dir); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "was the config copy (config.yaml) edited since the runs?") {
			t.Errorf("config %s, no manifest: %v", name, err)
		}
	}
	if err := os.WriteFile(manifest, mb, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfgPath, cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	// a run's time series short of its points (the file's last rows gone)
	seriesPath := filepath.Join(dir, SeriesFile)
	restore := keepLines(t, seriesPath, func(n int) int { return n - 4 })
	if _, _, err := Plot(dir); err == nil || !strings.Contains(err.Error(), seriesPath+": 7 rows of run ") || !strings.Contains(err.Error(), "each run has 10 (outputs.timeseries_points)") {
		t.Errorf("timeseries.csv cut short: %v", err)
	}
	restore()
	// a jobs.csv cut short is refused, not drawn as if whole
	jobsPath := filepath.Join(dir, JobsFile)
	keepLines(t, jobsPath, func(n int) int { return n / 2 })
	if _, _, err := Plot(dir); err == nil || !strings.Contains(err.Error(), jobsPath+": ") || !strings.Contains(err.Error(), "the file was cut short or edited") {
		t.Errorf("jobs.csv cut short: %v", err)
	}
	if err := os.Remove(sum); err != nil {
		t.Fatal(err)
	}
	_, _, err = Plot(dir)
	if err == nil || strings.Contains(err.Error(), "no points") || !strings.Contains(err.Error(), SummaryFile) {
		t.Errorf("plot without summary.csv: %v", err)
	}
}

// keepLines cuts the file at path to its first keep(n) of its n lines
// (the pieces after each newline), and returns what puts it back.
func keepLines(t *testing.T, path string, keep func(n int) int) (restore func()) {
	t.Helper()
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(orig), "\n")
	if err := os.WriteFile(path, []byte(strings.Join(lines[:keep(len(lines))], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := os.WriteFile(path, orig, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTableNotesUnschedulable: jobs larger than the cluster are named
// under the table, whose means are of the others.
func TestTableNotesUnschedulable(t *testing.T) {
	dir := t.TempDir()
	rep := runOneWorkload(t, dir, data("gavel/small_test.trace"), `cluster: "nodes:1x1:V100"`)
	if !strings.Contains(rep.Table, "note: w under FIFO: up to 3 of 20 jobs could never run on the cluster") {
		t.Errorf("table:\n%s", rep.Table)
	}
}

// runOneWorkload runs, into dir/out, a config of one workload of trace
// (with the workload's further fields) under FIFO, one replica.
func runOneWorkload(t *testing.T, dir, trace, fields string) *Report {
	t.Helper()
	abs, err := filepath.Abs(trace)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := runBody(t, dir, "name: m\nreplicas: 1\nworkloads:\n  - {name: w, trace: "+abs+", "+fields+"}\nschedulers:\n  - {name: FIFO}\n")
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// runBody runs the config body, written as dir/c.yaml, into dir/out.
func runBody(t *testing.T, dir, body string) (*Report, error) {
	t.Helper()
	cfg := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.Out = filepath.Join(dir, "out")
	return Run(context.Background(), c, RunOptions{})
}

// TestConfigWholeFloats: a whole number written as a float is the number
// (replicas: 1e1 is 10 replicas; only 1.5 is refused).
func TestConfigWholeFloats(t *testing.T) {
	c, err := ParseConfig([]byte("name: x\nreplicas: 1e1\nseed: 10.0\nworkloads:\n  - {name: t, trace: k.swf}\nschedulers:\n  - {name: F}\n"), "ok.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if c.Replicas != 10 || c.Seed != 10 {
		t.Errorf("replicas %d, seed %d: want 10 and 10", c.Replicas, c.Seed)
	}
}

// TestResumeInputsChanged: a run made before a file the config reads
// changed (its trace, a spec sheet) is not resumed, and a results
// directory's stored config reads its relative inputs where the original
// config is, as collect and plot redo what the run did.
func TestResumeInputsChanged(t *testing.T) {
	src := t.TempDir()
	copyFile := func(from, to string) {
		t.Helper()
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	repo, _ := filepath.Abs("..")
	copyFile(filepath.Join(repo, "datasets/data/gavel/msr/0e4a51.trace.gz"), filepath.Join(src, "t.trace.gz"))
	os.Mkdir(filepath.Join(src, "specs"), 0o755)
	copyFile(filepath.Join(repo, "datasets/data/neusight/devices/Tesla_T4.json"), filepath.Join(src, "specs", "g.json"))
	cfg := filepath.Join(src, "c.yaml")
	os.WriteFile(cfg, []byte("name: c\nseed: 3\nworkloads:\n"+
		"  - {name: w, trace: t.trace.gz, gpu_type: k80, sample: 15, cluster: \"nodes:2x4:MYGPU\", throughputs: predicted, gpu_specs: {MYGPU: specs/g.json}}\n"+
		"schedulers:\n  - {name: F, backfill: none, estimate: exact}\n"), 0o644)
	run := func(out string, resume bool) []byte {
		t.Helper()
		c, err := LoadConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		c.Out = out
		if _, err := Run(context.Background(), c, RunOptions{Jobs: 1, Resume: resume}); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(out, SummaryFile))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	out := t.TempDir()
	before := run(out, false)
	// collect and plot read the stored config with the original folder's
	// relative paths (specs/g.json is not in the results directory)
	if _, err := Collect(context.Background(), out, "test"); err != nil {
		t.Fatalf("collect: %v", err)
	}
	if _, _, err := Plot(out); err == nil || !strings.HasPrefix(err.Error(), filepath.Join(out, ConfigCopy)+": the config lists no figures") {
		t.Fatalf("plot: %v, want only that the config lists no figures, naming the copy wb plot reads", err)
	}
	// another trace under the same name: resuming runs it again
	copyFile(filepath.Join(repo, "datasets/data/gavel/msr/ed69ec.trace.gz"), filepath.Join(src, "t.trace.gz"))
	resumed, fresh := run(out, true), run(t.TempDir(), false)
	if !bytes.Equal(resumed, fresh) || bytes.Equal(resumed, before) {
		t.Errorf("after the trace changed, resumed:\n%s\nfresh:\n%s\nbefore:\n%s", resumed, fresh, before)
	}
	// a spec sheet changed: the same
	b, _ := os.ReadFile(filepath.Join(src, "specs", "g.json"))
	os.WriteFile(filepath.Join(src, "specs", "g.json"), bytes.Replace(b, []byte(`"Mem_Bw":320`), []byte(`"Mem_Bw":160`), 1), 0o644)
	before = resumed
	resumed, fresh = run(out, true), run(t.TempDir(), false)
	if !bytes.Equal(resumed, fresh) || bytes.Equal(resumed, before) {
		t.Errorf("after the spec sheet changed, resumed:\n%s\nfresh:\n%s", resumed, fresh)
	}
}

// TestSlurmLargeArray: more runs than Slurm's default MaxArraySize allows
// are spread over 1,000 tasks, each running every 1,000th run from its own
// index, and every run is some task's.
func TestSlurmLargeArray(t *testing.T) {
	dir := t.TempDir()
	c, err := ParseConfig([]byte("name: big\nseed: 1\nreplicas: 1200\nworkloads:\n  - {name: s, synthetic: {jobs: 5, procs: 8}}\nschedulers:\n  - {name: F}\n"), "big.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fakeWB := filepath.Join(t.TempDir(), "wb")
	log := fakeWB + ".log"
	os.WriteFile(fakeWB, []byte("#!/bin/sh\nwhile [ $# -gt 0 ]; do if [ \"$1\" = --run-index ]; then echo \"$2\" >> "+log+"; fi; shift; done\n"), 0o755)
	c.Out = dir
	job, err := SubmitSlurm(context.Background(), c, "big.yaml", SlurmOptions{WB: fakeWB})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(job.ArrayScript)
	if !strings.Contains(string(a), "#SBATCH --array=0-999\n") {
		t.Fatalf("array script:\n%s", a)
	}
	for _, task := range []string{"0", "199", "200", "999"} {
		cmd := exec.Command("sh", job.ArrayScript)
		cmd.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID="+task)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("task %s: %v\n%s", task, err, out)
		}
	}
	got, _ := os.ReadFile(log)
	if want := "0\n1000\n199\n1199\n200\n999\n"; string(got) != want {
		t.Errorf("run indices %q, want %q", got, want)
	}
}

// TestConfigSyntaxLine: a config that is not YAML is reported at the line
// of the mistake (yaml.v3 names a parser's problem a line early, and a tab
// at the node before it), as file:line like every other config error.
func TestConfigSyntaxLine(t *testing.T) {
	for _, tt := range []struct{ body, want string }{
		{"name: x\nreplicas: 2\n\tseed: 3\n", "c.yaml:3: not YAML: found a tab character"},
		{"name: x\nreplicas: 2\nschedulers:\n  - {name: FCFS, backfill: none\n  - {name: EASY}\n", "c.yaml:4: not YAML: did not find expected ',' or '}'"},
		{"name: x\nworkloads: [a, b\nschedulers: x\n", "c.yaml:2: not YAML: did not find expected ',' or ']'"},
		{"name: x\nreplicas: 2\nfoo: bar: baz\n", "c.yaml:3: not YAML: mapping values are not allowed"},
		// a problem inside a block: yaml.v3 names the line the block began
		{"name: x\nworkloads:\n  - name: a\n    trace: a.swf\n  - name: b\n    trace: b.swf\n  -name: c\nseed: 1\n", "c.yaml:7: not YAML: did not find expected '-' indicator"},
		{"name: x\nsweep:\n  load: [1,\n    2]\nschedulers:\n  - {name: A}\n  -{name: B}\n", "c.yaml:7: not YAML: did not find expected '-' indicator"},
		{"name: x\noutputs:\n  jobs: all\n  timeseries_points: 3\n bad: 1\n", "c.yaml:5: not YAML: did not find expected key"},
		{"name: x\nworkloads:\n  - {name: a, trace: a.swf}\n  -name: b", "c.yaml:4: not YAML: did not find expected '-' indicator"}, // no newline at its end
		// a scanner's problem, which yaml.v3 counts from 1 already
		{"name: x\nreplicas: 2\nc: &\n", "c.yaml:3: not YAML: did not find expected alphabetic or numeric character"},
		{"name: x\nreplicas: 2\nc: |x\n", "c.yaml:3: not YAML: did not find expected comment or line break"},
	} {
		_, err := ParseConfig([]byte(tt.body), "c.yaml")
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.body, err, tt.want)
		}
	}
}

// TestFigureAxesPinned: a figure refuses a config that sweeps an axis it
// does not plot over several values (it would average over them), an x
// that is not swept, and a cost pareto of no priced workload; two figures
// of one default name are told to name one.
func TestFigureAxesPinned(t *testing.T) {
	base := "name: x\nworkloads:\n  - {name: k, trace: k.swf}\nschedulers:\n  - {name: F}\n"
	for _, tt := range []struct{ cfg, want string }{
		{base + "sweep:\n  load: [1, 1.5]\n  procs: [100, 200]\nfigures:\n  - {kind: line, metric: mean_wait, x: procs}\n",
			"figures[0]: the config sweeps load over 2 values, which this line figure does not plot and would average over"},
		{base + "sweep:\n  load: [1, 1.5]\n  procs: [100, 200]\nfigures:\n  - {kind: line, metric: mean_wait}\n",
			"figures[0]: the config sweeps procs over 2 values, which this line figure does not plot"},
		{base + "sweep:\n  sigma: [0.5, 1]\nfigures:\n  - {kind: cdf, metric: wait}\n",
			"figures[0]: the config sweeps sigma over 2 values, which this cdf figure does not plot"},
		{base + "figures:\n  - {kind: line, metric: mean_wait, x: procs}\n", "figures[0].x: procs is not swept (sweep.procs)"},
		{base + "figures:\n  - {kind: pareto, metric: mean_jct}\n", "figures[0]: a pareto figure draws cost against mean_jct, and none of its workloads has a price"},
		{base + "figures:\n  - {kind: bar, metric: mean_wait}\n  - {kind: bar, metric: mean_wait}\n", `figures[1]: draws what figures[0] draws: remove one`},
		{base + "figures:\n  - {kind: bar, metric: mean_wait, log_x: true}\n", `figures[0].log_x: a bar figure's x axis is its workloads`},
		{base + "figures:\n  - {kind: bar, metric: mean_wait, log_y: true}\n  - {kind: bar, metric: mean_wait}\n", `figures[1].name: "bar-mean_wait" already names figures[0]: name one of them (name: ...)`},
		{base + "figures:\n  - {kind: bar, metric: mean_wait, name: bar-mean_wait-load1}\n  - {kind: bar, metric: mean_wait}\n  - {kind: bar, metric: mean_wait, load: 1}\n", `figures[2].name: "bar-mean_wait-load1" already names figures[0]: name one of them (name: ...)`},
		{"name: x\nworkloads:\n  - {name: g, trace: g.trace, cluster: \"nodes:2x4:V100\"}\nschedulers:\n  - {name: F}\nsweep:\n  procs: [64, 128]\n",
			"sweep.procs: resizes an SWF trace's pool of processors, and workloads[0] runs on nodes:2x4:V100"},
		{"name: x\nworkloads:\n  - {name: k, trace: k.swf, cluster: \"pool:2\"}\nschedulers:\n  - {name: F}\nsweep:\n  procs: [4, 8]\n",
			"sweep.procs: resizes the trace's own pool, and workloads[0] sets its machine (cluster: pool:2): drop the one or the other"},
		{base + "figures:\n  - {kind: bar, metric: cost}\n", "figures[0].metric: cost is a column of priced workloads only, and no workload has a price"},
		{base + "figures:\n  - {kind: bar, metric: util_gpu}\n", "figures[0].metric: util_gpu is the GPUs' utilisation, and every workload runs on a pool of processors, which has none"},
		{base + "figures:\n  - {kind: bar, metric: util_mem}\n", "figures[0].metric: util_mem is the memory's utilisation, and every workload runs on a pool"},
		{base + "figures:\n  - {kind: bar, metric: mean_wait, name: ../../escaped}\n", `figures[0].name: "../../escaped": a figure's name is the name of its files in figures/`},
		{base + "figures:\n  - {kind: bar, metric: mean_wait, name: /tmp/abs}\n", `figures[0].name: "/tmp/abs": a figure's name`},
		{"name: x\nworkloads:\n  - {name: g, trace: g.trace, skip_invalid: true, procs: 8}\nschedulers:\n  - {name: F}\n",
			"workloads[0].skip_invalid: skips an SWF trace's malformed lines; a gavel trace is read whole"},
		{"name: x\nworkloads:\n  - {name: g, trace: g.trace, cluster: \"nodes:2x4:H100\"}\nschedulers:\n  - {name: F}\n",
			"workloads[0].cluster: Gavel measured its jobs on k80, p100, v100 only, not on h100"},
		{"name: x\nworkloads:\n  - {name: k, trace: k.swf, gpu_type: k80}\nschedulers:\n  - {name: F}\n",
			"workloads[0].gpu_type: names the GPU whose measured throughputs time a Gavel trace's jobs; a swf trace has its own run times"},
		{"name: x\nworkloads:\n  - {name: k, trace: k.swf}\nschedulers:\n  - {name: E, estimate: exact, sigma: 0.5}\n",
			"schedulers[0].sigma: is the noisy estimate's σ; estimate exact has no error to scale"},
		// a workload's load, and a part's name in capitals, say where the
		// one goes and how the other is spelt (a reviewer's finds)
		{"name: x\nworkloads:\n  - {name: k, trace: k.swf, load: 2}\nschedulers:\n  - {name: N}\n",
			"workloads[0].load: unknown field (known: allreduce_gavel, "},
		{"name: x\nworkloads:\n  - {name: k, trace: k.swf, load: 2}\nschedulers:\n  - {name: N}\n",
			"; the load is swept for every workload: sweep: {load: [1]}"},
		{"name: x\nworkloads:\n  - {name: k, trace: k.swf, sigma: 0.3}\nschedulers:\n  - {name: N}\n",
			"; noise on a workload's run times is run_noise (σ); a noisy estimate's σ is a scheduler's sigma"},
		{"name: x\nworkloads:\n  - {name: k, trace: k.swf}\nschedulers:\n  - {name: N, backfill: EASY}\n",
			`schedulers[0].backfill: unknown "EASY" (known: conservative, easy, greedy, none): names are lower case, easy`},
		// a noisy estimate without its σ ran exact (a reviewer's find);
		// sigma: 0 given, or sweep.sigma, is the user's choice
		{"name: x\nworkloads:\n  - {name: k, trace: k.swf}\nschedulers:\n  - {name: N, estimate: noisy}\n",
			"schedulers[0].estimate: noisy needs sigma, the σ of its lognormal error"},
		{"name: x\nworkloads:\n  - {name: g, trace: g.trace, procs: 8}\nschedulers:\n  - {name: F}\n",
			"workloads[0].procs: sizes an SWF trace's pool of processors; a gavel trace runs on its cluster"},
		{"name: x\nworkloads:\n  - {name: k, trace: k.swf, cluster: \"pool:2\", procs: 4}\nschedulers:\n  - {name: F}\n",
			"workloads[0].procs: sizes the trace's own pool, and the workload sets its machine (cluster: pool:2): drop the one or the other"},
		{base + "figures:\n  - {kind: progress, metric: util}\n", "figures[0]: a progress figure draws GPU utilisation, and workload k runs on a pool of processors, which has no GPUs"},
		{"name: x\nworkloads:\n  - {name: k, trace: k.swf, price: 3}\nschedulers:\n  - {name: F}\n",
			"workloads[0].price: prices GPU-hours, and the workload runs on a pool of processors (the SWF trace's own), which has none"},
	} {
		_, err := ParseConfig([]byte(tt.cfg), "c.yaml")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.cfg, err, tt.want)
		}
	}
	// one value of every axis a figure does not plot: accepted
	ok := base + "sweep:\n  load: [1, 2]\nfigures:\n  - {kind: line, metric: mean_wait, x: load}\n  - {kind: bar, metric: mean_wait, load: 1}\n"
	if _, err := ParseConfig([]byte(ok), "c.yaml"); err != nil && strings.Contains(err.Error(), "figures[") {
		t.Errorf("a figure of each axis pinned: %v", err)
	}
}

// TestFigureNameSetsApart: a figure whose default name a figure before it
// has takes its x and load into its own, so figures that differ in them
// need no name: given.
func TestFigureNameSetsApart(t *testing.T) {
	body := "name: x\nworkloads:\n  - {name: k, trace: k.swf}\nschedulers:\n  - {name: F}\nsweep:\n  load: [1, 1.5]\n" +
		"figures:\n  - {kind: cdf, metric: wait, load: 1}\n  - {kind: cdf, metric: wait, load: 1.5}\n  - {kind: line, metric: mean_wait, x: load}\n  - {kind: bar, metric: mean_wait}\n"
	c, err := ParseConfig([]byte(body), "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := range c.Figures {
		got = append(got, c.FigureName(i))
	}
	if want := []string{"cdf-wait", "cdf-wait-load1.5", "line-mean_wait", "bar-mean_wait"}; !slices.Equal(got, want) {
		t.Errorf("names %q, want %q", got, want)
	}
	// a figure at the default load (the last, 1.5) after one at load 1
	body = strings.Replace(body, "{kind: cdf, metric: wait, load: 1.5}", "{kind: cdf, metric: wait}", 1)
	if c, err = ParseConfig([]byte(body), "c.yaml"); err != nil {
		t.Fatal(err)
	}
	if got := c.FigureName(1); got != "cdf-wait-load1.5" {
		t.Errorf("a cdf at the default load after one at load 1: %q, want cdf-wait-load1.5", got)
	}
}

// TestSigmaColumnUnswept: a noisy estimate's own sigma, unswept, is what
// the results' sigma column says (it said 0, as exact's would).
func TestSigmaColumnUnswept(t *testing.T) {
	dir := t.TempDir()
	trace, err := filepath.Abs(filepath.Join("..", "datasets", "data", "gavel", "small_test.trace"))
	if err != nil {
		t.Fatal(err)
	}
	body := "name: s\nworkloads:\n  - {name: g, trace: " + trace + "}\nschedulers:\n  - {name: N, estimate: noisy, sigma: 0.5}\n  - {name: E, estimate: exact}\noutputs: {jobs: all}\n"
	if _, err := runBody(t, dir, body); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{SummaryFile, JobsFile} {
		rows := readCSV(t, filepath.Join(dir, "out", f))
		sc, sg := slices.Index(rows[0], "scheduler"), slices.Index(rows[0], "sigma")
		seen := map[string]string{}
		for _, r := range rows[1:] {
			seen[r[sc]] = r[sg]
		}
		if seen["N"] != "0.5" || seen["E"] != "0" {
			t.Errorf("%s: sigma by scheduler %v: want N 0.5, E 0", f, seen)
		}
	}
}

// readCSV reads a CSV file whole.
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil || len(rows) == 0 {
		t.Fatalf("%s: %v", path, err)
	}
	return rows
}

// TestFiguresEdges: a figure of a metric summary.csv leaves empty for
// some workloads (util_gpu on a pool of processors) draws the others; a
// log axis leaves out zeros with a note, where the run failed before; a
// CDF counts killed jobs, as summary.csv does; a line figure's load is
// refused.
func TestFiguresEdges(t *testing.T) {
	kth, _ := filepath.Abs(filepath.Join("..", "datasets", "data", "swf", "KTH-SP2-1996-2.1-cln.swf.gz"))
	gav, _ := filepath.Abs(filepath.Join("..", "datasets", "data", "gavel", "small_test.trace"))
	base := "name: edges\nseed: 7\nreplicas: 2\nworkloads:\n  - {name: KTH, trace: " + kth + ", window: 300}\n" +
		"  - {name: gavel, trace: " + gav + ", cluster: \"nodes:2x4:V100\"}\n" +
		"schedulers:\n  - {name: FCFS, backfill: none}\n  - {name: Kill, backfill: easy, estimate: noisy, sigma: 1, kill_factor: 1}\n" +
		"outputs:\n  jobs: all\n  timeseries_points: 20\n"
	c, err := ParseConfig([]byte(base+"figures:\n  - {kind: bar, metric: util_gpu}\n  - {kind: timeseries, metric: queue, log_y: true}\n  - {kind: cdf, metric: wait}\n"+
		"  - {kind: bar, metric: killed, log_y: true}\n"), filepath.Join(t.TempDir(), "edges.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	rep := runInTemp(t, c, 2)
	has := func(name string) bool { return slices.Contains(rep.Files, filepath.Join(c.Out, FiguresDir, name)) }
	if !has("bar-util_gpu-gavel.png") || has("bar-util_gpu-KTH.png") || !has("timeseries-queue-KTH.png") || !has("cdf-wait-KTH.png") || !has("bar-killed.png") {
		t.Fatalf("figures written: %v", rep.Files)
	}
	// on a log axis FCFS's bars of 0 killed are left out, and the note says so
	load := func(name string) (table, error) { return readTable(filepath.Join(c.Out, name)) }
	figs, err := c.figure(3, load)
	if err != nil || len(figs) != 1 {
		t.Fatal(err, len(figs))
	}
	if f := figs[0].fig; !strings.Contains(f.Note, "means of 0 not drawn (log axis)") || !f.LogY {
		t.Errorf("log bars of killed jobs: note %q", f.Note)
	}
	// the killed jobs are in the CDF: as many points as jobs that ran
	jobs, err := readTable(filepath.Join(c.Out, JobsFile))
	if err != nil {
		t.Fatal(err)
	}
	killed := 0
	for _, r := range jobs {
		if r["status"] == "killed" {
			killed++
		}
	}
	if killed == 0 {
		t.Fatal("no job killed: the case is not tested")
	}
	vals, never, err := c.jobValues(jobs, 0, 1, 1, "wait")
	if err != nil || never != 0 {
		t.Fatal(err, never)
	}
	ran := 0
	for _, r := range jobs {
		if r["workload"] == "KTH" && r["scheduler"] == "Kill" && r["replica"] == "0" && r["status"] != "unschedulable" {
			ran++
		}
	}
	if len(vals) != ran {
		t.Errorf("CDF of %d waits, %d jobs ran (%d killed in all)", len(vals), ran, killed)
	}
	_, err = ParseConfig([]byte(base+"sweep:\n  load: [1, 2]\nfigures:\n  - {kind: line, metric: mean_wait, load: 2}\n"), "x.yaml")
	if err == nil || !strings.Contains(err.Error(), "figures[0].load: a line figure draws every load it plots") {
		t.Errorf("a line figure's load: %v", err)
	}
}

// TestResumeRefreshesCopy: resumed from its config, an experiment whose
// copy was edited (a comment here; figures for wb plot) keeps its runs,
// makes the copy the config resumed again (the figures drawn are that
// config's), and says so; a Slurm dry run replaces nothing.
func TestResumeRefreshesCopy(t *testing.T) {
	out := t.TempDir()
	if _, err := Run(context.Background(), loadSmall(t, out), RunOptions{Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(out, ConfigCopy)
	orig, err := os.ReadFile(copyPath)
	if err != nil {
		t.Fatal(err)
	}
	edited := append([]byte("# edited for wb plot\n"), orig...)
	if err := os.WriteFile(copyPath, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := loadSmall(t, out).claimDir(out, RunOptions{checkOnly: true}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(copyPath); !bytes.Equal(b, edited) {
		t.Error("a dry run's claim replaced the copy")
	}
	var progress bytes.Buffer
	if _, err := Run(context.Background(), loadSmall(t, out), RunOptions{Jobs: 2, Resume: true, Progress: &progress}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(copyPath); !bytes.Equal(b, orig) || !strings.Contains(progress.String(), "differed from") || !strings.Contains(progress.String(), " runs kept, 0 to run") {
		t.Errorf("resumed from the config: copy %q, progress:\n%s", b[:min(len(b), 40)], progress.String())
	}
}

// fakeProgram is an executable file standing in for wb in Slurm scripts.
func fakeProgram(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "wb")
	if err := os.WriteFile(p, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSlurmQueuedAndPending (a reviewer's finds on a real Slurm): a local
// run into a directory whose array still queues is refused (it cleared the
// runs the tasks were writing; a task, --run-index, goes on); a partition
// whose nodes are all drained does not stop a submission (sbatch queues
// it; --test-only answers only "not available"), said so; an array pending
// for a time limit above the partition's is said at once.
func TestSlurmQueuedAndPending(t *testing.T) {
	dir := t.TempDir()
	if _, err := Run(context.Background(), loadSmall(t, dir), RunOptions{}); err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	queued := filepath.Join(bin, "squeue-queued")
	os.WriteFile(queued, []byte("#!/bin/sh\necho 91\n"), 0o755)
	if err := os.MkdirAll(filepath.Join(dir, slurmDir), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, slurmDir, jobsFile), []byte("91 92\n"), 0o644)
	defer func(s string) { squeueCommand = s }(squeueCommand)
	squeueCommand = queued
	if _, err := Run(context.Background(), loadSmall(t, dir), RunOptions{}); err == nil || !strings.Contains(err.Error(), "its last submission (jobs 91, 92) is still queued or running") {
		t.Errorf("a local run while the array queues: %v", err)
	}
	if _, err := Run(context.Background(), loadSmall(t, dir), RunOptions{Only: []int{0}}); err != nil {
		t.Errorf("an array task while the array queues: %v", err)
	}
	// nor is a dry run: it would replace the copy of wb the tasks run
	if _, err := SubmitSlurm(context.Background(), loadSmall(t, dir), filepath.Join("testdata", "small.yaml"), SlurmOptions{Squeue: queued, WB: fakeProgram(t)}); err == nil ||
		!strings.Contains(err.Error(), "is still queued or running") {
		t.Errorf("a dry run while the array queues: %v", err)
	}
	// a relative WB_DATA is written absolute: the tasks run in the results
	// directory
	t.Setenv("WB_DATA", filepath.Join("..", "datasets", "data"))
	rel := t.TempDir()
	job0, err := SubmitSlurm(context.Background(), loadSmall(t, rel), filepath.Join("testdata", "small.yaml"), SlurmOptions{WB: fakeProgram(t)})
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(filepath.Join("..", "datasets", "data"))
	if a, _ := os.ReadFile(job0.ArrayScript); !strings.Contains(string(a), "export WB_DATA="+shq(abs)+"\n") {
		t.Errorf("a relative WB_DATA in the script:\n%s", a)
	}

	drained := filepath.Join(bin, "sbatch-drained")
	os.WriteFile(drained, []byte("#!/bin/sh\nfor a; do [ \"$a\" = --test-only ] && { echo 'sbatch: error: Batch job submission failed: Requested node configuration is not available' >&2; exit 1; }; done\necho 93\n"), 0o755)
	pending := filepath.Join(bin, "squeue-pending")
	os.WriteFile(pending, []byte("#!/bin/sh\ncase \"$*\" in *%r*) echo PartitionTimeLimit;; esac\n"), 0o755)
	drainedNodes, idleNodes := filepath.Join(bin, "sinfo-drained"), filepath.Join(bin, "sinfo-idle")
	os.WriteFile(drainedNodes, []byte("#!/bin/sh\nprintf 'drained\\ndown*\\n'\n"), 0o755)
	os.WriteFile(idleNodes, []byte("#!/bin/sh\nprintf 'idle\\ndrained\\n'\n"), 0o755)
	out := t.TempDir()
	// where a node is up, "not available" is a request no node holds
	// (--cpus-per-task above any node's): refused before the directory is
	// claimed, losing nothing (a reviewer's find: it cleared the runs)
	if _, err := Run(context.Background(), loadSmall(t, out), RunOptions{}); err != nil {
		t.Fatal(err)
	}
	before := readAll(t, out)
	if _, err := SubmitSlurm(context.Background(), loadSmall(t, out), filepath.Join("testdata", "small.yaml"), SlurmOptions{Submit: true, Sbatch: drained, Sinfo: idleNodes, Partition: "short", WB: fakeProgram(t)}); err == nil ||
		!strings.Contains(err.Error(), "refuses the job array, so nothing was submitted") {
		t.Errorf("not available, a node up: %v", err)
	}
	if after := readAll(t, out); len(after) != len(before) {
		t.Errorf("the refused submission left %d files of %d", len(after), len(before))
	}
	job, err := SubmitSlurm(context.Background(), loadSmall(t, out), filepath.Join("testdata", "small.yaml"), SlurmOptions{Submit: true, Sbatch: drained, Sinfo: drainedNodes, Squeue: pending, Partition: "short", WB: fakeProgram(t)})
	if err != nil || job.Array != "93" {
		t.Fatalf("a submission to drained nodes: %+v, %v", job, err)
	}
	notes := strings.Join(job.Notes, "\n")
	if !strings.Contains(notes, "found no node to run the array now") || !strings.Contains(notes, "sinfo -p short") ||
		!strings.Contains(notes, "pending with reason PartitionTimeLimit") || !strings.Contains(notes, "scancel 93") {
		t.Errorf("notes:\n%s", notes)
	}
}

// TestSlurmDryRunEditedConfig: a dry run into the results of its own
// config as it was before an edit says so, as a submission does (it said
// "another config": a reviewer's find).
func TestSlurmDryRunEditedConfig(t *testing.T) {
	dir := t.TempDir()
	body, err := os.ReadFile(filepath.Join("testdata", "small.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := filepath.Abs(filepath.Join("..", "datasets"))
	body = []byte(strings.ReplaceAll(string(body), "../../datasets", data)) // (read from another folder)
	cfg := filepath.Join(t.TempDir(), "small.yaml")
	if err := os.WriteFile(cfg, body, 0o644); err != nil {
		t.Fatal(err)
	}
	load := func() *Config {
		c, err := LoadConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		c.Out = dir
		return c
	}
	if _, err := Run(context.Background(), load(), RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, append(body, []byte("\n# edited\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = SubmitSlurm(context.Background(), load(), cfg, SlurmOptions{WB: fakeProgram(t)})
	if err == nil || !strings.Contains(err.Error(), "as it was before it changed") || !strings.Contains(err.Error(), "a dry run replaces nothing") {
		t.Errorf("a dry run of the edited config: %v", err)
	}
}

// A trace that every run fails to read is named where the config names
// it, with the format it was read as (a reviewer gave an SWF trace as
// gavel:, and the runs' error named the trace's line alone).
func TestTraceLoadErrorNamesConfig(t *testing.T) {
	dir := t.TempDir()
	swf, err := filepath.Abs(filepath.Join("..", "datasets", "data", "swf", "KTH-SP2-1996-2.1-cln.swf.gz"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = runBody(t, dir, "name: g\nworkloads:\n  - {name: a, trace: \"gavel:"+swf+"\"}\nschedulers:\n  - {backfill: none}\n")
	if err == nil || !strings.Contains(err.Error(), "c.yaml:3: workloads[0].trace, read as a gavel trace: "+swf+":1:") {
		t.Errorf("a trace read as the wrong format: %v", err)
	}
}

// A GPU model map that names a model no job asks for (a typo's case) is
// named where the config gives the map, not the trace, and says what the
// jobs ask for; a trace read as an SWF or openb one says "an".
func TestModelMapErrorNamesConfig(t *testing.T) {
	openb, err := filepath.Abs(filepath.Join("..", "datasets", "data", "openb", "openb_pod_list_gpuspec33.csv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = runBody(t, t.TempDir(), "name: g\nworkloads:\n  - trace: "+openb+"\n    cluster: pai\n    gpu_models: {A10: T4, g2: MISC}\nschedulers:\n  - {placement: first-fit}\n")
	if err == nil || !strings.Contains(err.Error(), "c.yaml:5: workloads[0].gpu_models: GPU model map: g2: no job asks for it (the jobs ask for: A10, G2, G3, P100, T4, V100M16, V100M32)") {
		t.Errorf("a model map's typo: %v", err)
	}
	_, err = runBody(t, t.TempDir(), "name: g\nworkloads:\n  - {trace: \"swf:"+openb+"\"}\nschedulers:\n  - {backfill: none}\n")
	if err == nil || !strings.Contains(err.Error(), "c.yaml:3: workloads[0].trace, read as an swf trace: ") {
		t.Errorf("an openb trace read as SWF: %v", err)
	}
}

// A value of the wrong type inside a flow mapping (plan.yaml writes every
// workload on one line) is named by its own field, not the list's, and
// the checks of the value left unset do not add a second, misleading
// error (a reviewer's finds: "workloads: want a whole number", then
// "cluster: required with throughputs").
func TestFlowStyleTypeErrors(t *testing.T) {
	cfg := "name: f\nworkloads:\n  - {name: a, trace: x.trace, sample: [50], gpu_type: [k80], cluster: [nodes:8x4:V100], throughputs: predicted}\nschedulers:\n  - {name: F, backfill: [none]}\n" +
		"  - {name: G, backfill: none, ga: [1]}\nfigures:\n  - {kind: line, metric: mean_wait, log_y: [x]}\n"
	_, err := ParseConfig([]byte(cfg), "f.yaml")
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{
		"f.yaml:3: workloads[0].sample: want a whole number",
		"f.yaml:3: workloads[0].gpu_type: want a string",
		"f.yaml:3: workloads[0].cluster: want a string",
		"f.yaml:5: schedulers[0].backfill: want a string",
		// pointer fields: named as the type they point to (a reviewer's find)
		"f.yaml:6: schedulers[1].ga: want a mapping of fields",
		"f.yaml:8: figures[0].log_y: want true or false",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("no %q in:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "required") || strings.Contains(err.Error(), "f.yaml:3: workloads: ") || strings.Contains(err.Error(), ": schedulers: ") || strings.Contains(err.Error(), ": figures: ") {
		t.Errorf("a misleading error:\n%v", err)
	}
}

// TestExtensionFields: a top-level key beginning x- is a place for anchors
// that workloads merge (a reviewer's find: the README says merge keys work,
// and a holder of the anchor was an unknown field); elsewhere x- keys are
// unknown fields as any.
func TestExtensionFields(t *testing.T) {
	c, err := ParseConfig([]byte("name: a\nx-base: &b {trace: k.swf, window: 100}\nworkloads:\n  - {<<: *b, name: a}\nschedulers:\n  - {name: F}\n"), "c.yaml")
	if err != nil || c.Workloads[0].Trace != "k.swf" || c.Workloads[0].Window != 100 {
		t.Errorf("merged from x-base: %v, %+v", err, c)
	}
	_, err = ParseConfig([]byte("name: a\nworkloads:\n  - {trace: k.swf, x-note: 1}\nschedulers:\n  - {name: F}\n"), "c.yaml")
	if err == nil || !strings.Contains(err.Error(), "workloads[0].x-note: unknown field") {
		t.Errorf("x- inside a workload: %v", err)
	}
}

// TestTraceNotes: a Gavel trace on a GPU pool, whose GPUs name no model,
// runs at gpu_type's measured throughputs, and the experiment's report
// says so as wb simulate's does (a reviewer's find: only wb simulate did).
func TestTraceNotes(t *testing.T) {
	tr, err := filepath.Abs(filepath.Join("..", "datasets", "data", "gavel", "msr", "0e4a51.trace.gz"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := runBody(t, t.TempDir(), "name: g\nworkloads:\n  - {name: g, trace: "+tr+", cluster: \"pool:8:200\", gpu_type: p100, sample: 20}\nschedulers:\n  - {name: F}\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.TraceNotes) != 1 || rep.TraceNotes[0] != "g: the cluster's GPUs name no model: Gavel's jobs run on them at the P100's measured throughputs (--gpu-type, gpu_type)" {
		t.Errorf("trace notes %q", rep.TraceNotes)
	}
}

// overlapWriter cancels a context at its first write and records whether
// two writes were ever under way at once (each takes a while).
type overlapWriter struct {
	cancel   context.CancelFunc
	inFlight atomic.Int32
	overlap  atomic.Bool
	once     sync.Once
	mu       sync.Mutex
	buf      bytes.Buffer
}

func (w *overlapWriter) Write(b []byte) (int, error) {
	if w.inFlight.Add(1) > 1 {
		w.overlap.Store(true)
	}
	defer w.inFlight.Add(-1)
	w.once.Do(w.cancel)
	time.Sleep(50 * time.Millisecond)
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(b)
}

// TestInterruptedLineNotBesideReports: the line an interrupt prints is
// written under the lock the runs' reports take, never beside one (it was
// written with none while workers still reported: a reviewer's race, and
// on a terminal a report after the line).
func TestInterruptedLineNotBesideReports(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &overlapWriter{cancel: cancel}
	_, err := Run(ctx, loadSmall(t, t.TempDir()), RunOptions{Jobs: 2, Progress: w})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v", err)
	}
	if w.overlap.Load() {
		t.Errorf("two writes of the progress at once:\n%s", w.buf.String())
	}
	if !strings.Contains(w.buf.String(), "interrupted: finishing the runs under way") {
		t.Errorf("no word of the interrupt:\n%s", w.buf.String())
	}
}

// TestConfigErrorsInFileOrder: a config's problems are listed in the
// file's order, an unknown field (found as the YAML is walked) among the
// values' problems (found after), not before them all.
func TestConfigErrorsInFileOrder(t *testing.T) {
	cfg := `name: order
replicas: -1
workloads:
  - {name: w, trace: x.swf}
schedulers:
  - {order: lifo}
sweep:
  lod: [1]
`
	_, err := ParseConfig([]byte(cfg), "o.yaml")
	if err == nil {
		t.Fatal("accepted")
	}
	var lines []int
	for _, e := range strings.Split(err.Error(), "\n") {
		var n int
		if _, err := fmt.Sscanf(e, "o.yaml:%d:", &n); err == nil {
			lines = append(lines, n)
		}
	}
	if len(lines) < 3 || !slices.IsSorted(lines) {
		t.Errorf("lines %v, want at least 3 in order:\n%v", lines, err)
	}
}
