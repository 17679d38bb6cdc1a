//go:build unix

package experiments

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
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

// TestLockFolderOwn: a folder of locks open to others, or a link, is
// refused, saying what to do (another user who made it first could hold
// a lock forever, or make locking silently not happen); a lock file that
// is a link is not followed.
func TestLockFolderOwn(t *testing.T) {
	root := t.TempDir()
	saved := lockRoot
	defer func() { lockRoot = saved }()
	open := filepath.Join(root, "open")
	os.Mkdir(open, 0o777)
	os.Chmod(open, 0o777)
	lockRoot = func() string { return open }
	if _, err := lockDir(t.TempDir(), false); err == nil || !strings.Contains(err.Error(), "open to others") {
		t.Errorf("a folder open to others: %v", err)
	}
	link := filepath.Join(root, "link")
	os.Symlink(t.TempDir(), link)
	lockRoot = func() string { return link }
	if _, err := lockDir(t.TempDir(), false); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("a link as the folder: %v", err)
	}
	own := filepath.Join(root, "own")
	lockRoot = func() string { return own }
	l, err := lockDir(t.TempDir(), false)
	if err != nil {
		t.Fatalf("a folder of one's own: %v", err)
	}
	l.unlock()
	if fi, err := os.Stat(own); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the folder made: %v %v", fi, err)
	}
	// a lock file planted as a link
	dir := t.TempDir()
	abs, _ := filepath.EvalSymlinks(dir)
	sum := sha256.Sum256([]byte(abs))
	os.Symlink(filepath.Join(root, "elsewhere"), filepath.Join(own, hex.EncodeToString(sum[:8])+".lock"))
	if _, err := lockDir(dir, false); err == nil {
		t.Error("a lock file that is a link was followed")
	}
}
