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

// TestLockFileRemoved: a holder alone removes its lock's file as it lets
// it go (one empty file a results directory ever written had accumulated
// in the folder of locks), a holder of a shared lock never (taking it
// alone to remove it refused a task starting then); a process that opened the file before it was
// removed, and locks it after, takes the lock afresh on the name's new
// file, so that two never hold one directory alone at once.
func TestLockFileRemoved(t *testing.T) {
	root := filepath.Join(t.TempDir(), "locks")
	saved := lockRoot
	defer func() { lockRoot = saved }()
	lockRoot = func() string { return root }
	count := func() int {
		ents, _ := os.ReadDir(root)
		return len(ents)
	}
	dir := t.TempDir()
	l, err := lockDir(dir, false)
	if err != nil || count() != 1 {
		t.Fatalf("lockDir: %v, %d files", err, count())
	}
	name := l.name
	// another process opened the file, and will lock it once let go
	stale, err := openNoFollow(name)
	if err != nil {
		t.Fatal(err)
	}
	defer stale.Close()
	l.unlock()
	if count() != 0 {
		t.Errorf("the file of a lock let go: %d files left", count())
	}
	if err := flock(stale, false); err != nil {
		t.Fatalf("the removed file: %v", err)
	}
	// the stale holder does not hold the directory: a lock on its name
	// is the new file's
	a, err := lockDir(dir, false)
	if err != nil {
		t.Fatalf("beside a lock on a removed file: %v", err)
	}
	if _, err := lockDir(dir, false); err == nil {
		t.Error("locked twice alone")
	}
	a.unlock()
	s1, err := lockDir(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := lockDir(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	s1.unlock()
	if count() != 1 {
		t.Errorf("a shared lock let go while another holds it: %d files", count())
	}
	if _, err := lockDir(dir, false); err == nil {
		t.Error("alone beside a shared holder, after another shared holder let go")
	}
	s2.unlock()
	if count() != 1 {
		t.Errorf("the last shared holder let go: %d files, want its file left for a holder alone", count())
	}
	// shared holders starting and ending side by side never refuse one
	// another (an unlock that took the lock alone to remove its file did)
	done := make(chan int)
	for range 2 {
		go func() {
			refused := 0
			for range 2000 {
				l, err := lockDir(dir, true)
				if err != nil {
					refused++
					continue
				}
				l.unlock()
			}
			done <- refused
		}()
	}
	if r := <-done + <-done; r > 0 {
		t.Errorf("%d of 4,000 shared locks refused beside other shared holders", r)
	}
	if l, err := lockDir(dir, false); err != nil {
		t.Fatal(err)
	} else {
		l.unlock()
	}
	if count() != 0 {
		t.Errorf("a holder alone let go after the shared ones: %d files left", count())
	}
	// between this process's open and its lock, the holder lets go
	// (removing the file) and a third process locks the name's new file:
	// this one finds its file no longer the name's and is refused by the
	// third's lock, where it would have held the removed file alone
	held, err := lockDir(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	var third *dirLock
	defer func() { lockOpened = func(string) {} }()
	lockOpened = func(string) {
		lockOpened = func(string) {}
		held.unlock()
		if third, err = lockDir(dir, false); err != nil {
			t.Fatalf("the third: %v", err)
		}
	}
	if l, err := lockDir(dir, false); err == nil || !strings.Contains(err.Error(), "another wb command is writing there now") {
		t.Errorf("a lock taken on a removed file: %v %v", l, err)
	}
	third.unlock()
}
