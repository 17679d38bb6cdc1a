package app

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wb-sim/wb/experiments"
	"github.com/wb-sim/wb/predictor/gpu"
)

// When WB_TEST_MAIN is set the test binary is wb itself: Main() with the
// arguments after "--".
func init() {
	if os.Getenv("WB_TEST_MAIN") == "" {
		return
	}
	for i, a := range os.Args {
		if a == "--" {
			os.Args = append([]string{"wb"}, os.Args[i+1:]...)
			break
		}
	}
	Main()
	os.Exit(0)
}

// The first interrupt lets the runs under way finish, and says that a
// second stops wb at once; the second does, with the signal's own ending.
func TestSecondInterruptStops(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a long simulation for a few seconds")
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "long.yaml")
	// one run of 400,000 jobs under conservative backfilling: minutes
	os.WriteFile(cfg, []byte("name: long\nseed: 1\nworkloads:\n  - name: syn\n    synthetic: {jobs: 400000, procs: 128, mean_interarrival: 1}\n"+
		"schedulers:\n  - {name: C, backfill: conservative}\n"), 0o644)
	cmd := exec.Command(os.Args[0], "-test.run=^$", "--", "experiment", cfg, "--out", filepath.Join(dir, "out"))
	cmd.Env = append(os.Environ(), "WB_TEST_MAIN=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// under way once the results directory is claimed (the handler is set
	// before that), and a moment more
	for i := 0; ; i++ {
		if _, err := os.Stat(filepath.Join(dir, "out", experiments.ConfigCopy)); err == nil {
			break
		}
		if i == 300 {
			cmd.Process.Kill()
			t.Fatalf("wb did not start its experiment in 30 s:\n%s", out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case err := <-done:
		t.Fatalf("the first interrupt ended the run under way: %v\n%s", err, out.String())
	case <-time.After(1500 * time.Millisecond):
	}
	cmd.Process.Signal(syscall.SIGINT)
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGINT {
			t.Errorf("after the second interrupt: %v", err)
		}
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("a second interrupt did not stop wb:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "interrupt again to stop at once") {
		t.Errorf("no word of the second interrupt:\n%s", out.String())
	}
}

// A command that holds its work in memory until it writes its files at
// the end (wb train-gpu: about 18 s of training on 2 cores) ends at the
// first interrupt, with the signal's exit status and nothing written: it
// had finished unasked, written its model and exited 0.
func TestInterruptEndsTraining(t *testing.T) {
	if testing.Short() {
		t.Skip("starts training the GPU op model")
	}
	for sig, code := range map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143} {
		dir := t.TempDir()
		out := filepath.Join(dir, "m.json.gz")
		cmd := exec.Command(os.Args[0], "-test.run=^$", "--", "train-gpu", "--out", out)
		cmd.Env = append(os.Environ(), "WB_TEST_MAIN=1")
		var buf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &buf, &buf
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(1500 * time.Millisecond)
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != code {
			t.Errorf("%v: ended with %v, want exit status %d\n%s", sig, err, code, buf.String())
		}
		if !strings.Contains(buf.String(), "wb train-gpu interrupted before it finished") {
			t.Errorf("%v: no word of the interrupt:\n%s", sig, buf.String())
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: %s written after the interrupt", sig, out)
		}
	}
}

// wb train-gpu checks --out before its training: a name that is not
// .json.gz, a folder that is missing, a file there that is not a GPU op
// model (it was replaced unasked, and the folder found wanting only after
// the training).
func TestTrainGPUOut(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "notes.json.gz")
	if err := os.WriteFile(other, []byte("notamodel\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for out, want := range map[string]string{
		filepath.Join(dir, "m.json"):            "the GPU op model is written as a json.gz file",
		filepath.Join(dir, "none", "m.json.gz"): "no folder",
		other:                                   "exists and is not a GPU op model wb train-gpu wrote",
	} {
		_, err := wb(t, "train-gpu", "--out", out)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--out %s: %v, want %q", out, err, want)
		}
	}
	if b, _ := os.ReadFile(other); string(b) != "notamodel\n" {
		t.Errorf("%s changed: %q", other, b)
	}
	// a model of an older version is what training again replaces
	old := filepath.Join(dir, "old.json.gz")
	z, _ := gpu.Compress([]byte(`{"version":1,"trained_on":["Tesla_T4"],"groups":{}}`))
	if err := os.WriteFile(old, z, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := gpuModelOut(old); err != nil {
		t.Errorf("an older model at --out: %v", err)
	}
}

// An interrupt while such a command writes its file leaves no temporary
// file and no output (62 MB of one were left behind): the file is as it
// was before.
func TestInterruptWhileWriting(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a million jobs")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$", "--", "dataset", "pai-sim-synthetic", "--jobs", "1000000", "--out", filepath.Join(dir, "jobs.csv.gz"))
	cmd.Env = append(os.Environ(), "WB_TEST_MAIN=1")
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	writing := false
	for i := 0; i < 600 && !writing; i++ { // the jobs are made first, then written
		time.Sleep(50 * time.Millisecond)
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			writing = writing || strings.Contains(e.Name(), ".tmp")
		}
	}
	if !writing {
		cmd.Process.Kill()
		t.Fatalf("no temporary file in 30 s:\n%s", buf.String())
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Errorf("ended with %v, want exit status 130\n%s", err, buf.String())
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("left in the folder: %v\n%s", entries, buf.String())
	}
}

// Through Run (a program of one's own, where no exit follows), a command
// with no safe point to stop at runs to its end whatever the context says,
// and says how it ended: it returned at once, said it had stopped, and
// went on in the background, writing its files after (a reviewer's find).
func TestRunFinishesWithoutSafePoint(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	err := Run(ctx, &stdout, &stderr, []string{"wb", "predict", "resnet50", "--device", "v100", "--batch", "64"})
	if err != nil || !strings.Contains(stdout.String(), "iteration") {
		t.Fatalf("error %v\n%s%s", err, stdout.String(), stderr.String())
	}
}

// A shell's completion of a flag after a positional argument, and of a
// bare "-", offers the command's flags (it offered nothing: the flag that
// asks for completion was moved before the argument and parsed as an
// unknown flag).
func TestCompletionAfterArgument(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"predict", "resnet50", "--dev", "--generate-bash-completion"}, "--device-spec"},
		{[]string{"experiment", "configs/backfill.yaml", "--re", "--generate-bash-completion"}, "--resume"},
		{[]string{"simulate", "-", "--generate-bash-completion"}, "--trace"},
	} {
		cmd := exec.Command(os.Args[0], append([]string{"-test.run=^$", "--"}, c.args...)...)
		cmd.Env = append(os.Environ(), "WB_TEST_MAIN=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), c.want) {
			t.Errorf("%v: %v\n%s", c.args, err, out)
		}
	}
}

// Past a command's name, an empty word completes to files (a profile, a
// config, a folder) beside the command's subcommands, not to its help
// command alone (the bash script's file fallback never ran once urfave/cli
// listed "help h").
func TestCompletionScriptFiles(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	bin := filepath.Join(t.TempDir(), "wb")
	script := `source <("$WB" completion bash)
PATH=$(dirname "$WB"):$PATH
cd "$DIR"
COMP_WORDS=(wb train a.csv ""); COMP_CWORD=3; _wb_complete; echo "train: ${COMPREPLY[*]}"
COMP_WORDS=(wb experiment ""); COMP_CWORD=2; _wb_complete; echo "experiment: ${COMPREPLY[*]}"
`
	if err := os.Symlink(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "p.csv"), nil, 0o644)
	cmd := exec.Command("bash", "-c", script)
	cmd.Env = append(os.Environ(), "WB_TEST_MAIN=1", "WB="+bin, "DIR="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"train: p.csv\n", "experiment: collect p.csv\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("want %q in\n%s", want, out)
		}
	}
}
