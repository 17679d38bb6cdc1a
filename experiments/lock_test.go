//go:build unix

package experiments

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDirLock: while one wb writes a results directory, another run,
// collect or simulation into it is refused, naming the lock, and nothing
// of the first's is cleared; Slurm tasks (--run-index) share it with one
// another, not with a run alone (the second's claim cleared the first's
// stored runs: a reviewer's find). The lock goes with its holder, and
// names the directory however it is reached (a link to it).
func TestDirLock(t *testing.T) {
	dir := t.TempDir()
	held, err := lockDir(dir, false)
	if err != nil || held == nil {
		t.Fatalf("lockDir: %v %v", held, err)
	}
	_, err = Run(context.Background(), loadSmall(t, dir), RunOptions{Jobs: 1})
	if err == nil || !strings.Contains(err.Error(), "another wb command is writing there now") {
		t.Errorf("a run into a locked directory: %v", err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	if _, err := lockDir(filepath.Join(link, "."), true); err == nil {
		t.Error("the directory through a link: locked again")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("%d files written into the locked directory", len(ents))
	}
	held.unlock()
	a, err := lockDir(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	b, err := lockDir(dir, true)
	if err != nil {
		t.Errorf("two tasks' shared locks: %v", err)
	}
	if _, err := lockDir(dir, false); err == nil || !strings.Contains(err.Error(), "another wb command is writing") {
		t.Errorf("alone beside tasks: %v", err)
	}
	a.unlock()
	b.unlock()
	if l, err := lockDir(dir, false); err != nil {
		t.Errorf("once let go: %v", err)
	} else {
		l.unlock()
	}
	if _, err := Run(context.Background(), loadSmall(t, dir), RunOptions{Jobs: 1}); err != nil {
		t.Errorf("a run once the lock is let go: %v", err)
	}
}

// TestSimulateAfterKill: the temporary files of a wb simulate killed as it
// wrote them are its own: the next simulation into the folder removes them
// and writes (it refused the folder, calling them another's files), and
// anything else there is still refused.
func TestSimulateAfterKill(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{".jobs.csv.tmp114027097", ".schedule.swf.tmp22", "..wb-results.json.tmp3"} {
		os.WriteFile(filepath.Join(dir, n), []byte("half"), 0o644)
	}
	if err := checkSimulateDir(dir); err != nil {
		t.Fatalf("a killed simulation's temporary files: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left %d files", len(ents))
	}
	os.WriteFile(filepath.Join(dir, ".notes.txt.tmp1"), []byte("mine"), 0o644)
	if err := checkSimulateDir(dir); err == nil || !strings.Contains(err.Error(), "holds files wb did not write (.notes.txt.tmp1)") {
		t.Errorf("another's file: %v", err)
	}
}

// TestConfigNeverEnds: a config that never ends (a device named by
// mistake) is refused at the cap, not read until memory runs out.
func TestConfigNeverEnds(t *testing.T) {
	if _, err := LoadConfig("/dev/zero"); err == nil || !strings.Contains(err.Error(), "/dev/zero: more than 8 MiB") {
		t.Errorf("LoadConfig(/dev/zero): %v", err)
	}
}
