package experiments

import (
	"context"
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/wb-sim/wb/datasets/workload"
	"github.com/wb-sim/wb/scheduler"
)

// TestAgainstPythonReference compares wb job by job with the plain Python
// implementation of the same contract (scripts/swf_reference.py) on all of
// KTH-SP2, under EASY and conservative backfilling (with compression) with
// user estimates.
func TestAgainstPythonReference(t *testing.T) {
	t.Parallel() // (long: overlaps the package's other long tests on a second core)
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("python3 is missing; .ci/run installs it")
		}
		t.Skip("python3 not installed: the cross-check against scripts/swf_reference.py needs it")
	}
	if testing.Short() {
		t.Skip("-short: the Python reference takes seconds")
	}
	trace := data("swf/KTH-SP2-1996-2.1-cln.swf.gz")
	for _, c := range []struct{ policy, backfill, estimate string }{
		{"easy", "easy", "user"},
		{"conservative", "conservative", "user"},
	} {
		out := filepath.Join(t.TempDir(), "starts.csv")
		cmd := exec.Command(py, filepath.Join("..", "scripts", "swf_reference.py"), "--policy", c.policy, "--estimate", c.estimate, "--starts", out, trace)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", cmd, err, b)
		}
		want := readStarts(t, out)
		o, err := Simulate(context.Background(), SimulateOptions{
			Workload: workload.Options{Trace: trace},
			Spec:     scheduler.Spec{Backfill: c.backfill, Estimate: c.estimate},
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(want) != len(o.Result.Jobs) {
			t.Fatalf("%s/%s: Python scheduled %d jobs, wb %d", c.policy, c.estimate, len(want), len(o.Result.Jobs))
		}
		diff := 0
		for _, j := range o.Result.Jobs {
			if s, ok := want[j.ID]; !ok || s != int64(j.Start) {
				if diff < 5 {
					t.Errorf("%s/%s: job %d starts at %d in wb, %d in Python", c.policy, c.estimate, j.ID, j.Start, s)
				}
				diff++
			}
		}
		if diff > 0 {
			t.Errorf("%s/%s: %d of %d jobs differ", c.policy, c.estimate, diff, len(want))
		}
	}
}

func readStarts(t *testing.T, path string) map[int64]int64 {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	m := map[int64]int64{}
	for _, r := range rows[1:] {
		id, err1 := strconv.ParseInt(r[0], 10, 64)
		s, err2 := strconv.ParseInt(r[1], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: bad row %v", path, r)
		}
		m[id] = s
	}
	return m
}
