package experiments

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// dirLock is a lock on a results directory held while a wb process writes
// there, so that two wb commands writing one directory at once do not
// undo each other's work: each checks the directory and then writes,
// and the second's claim cleared the first's stored runs, or both said
// they wrote the files only one of them had (a reviewer's find). A local
// run, a collect, a Slurm submission and wb simulate hold it alone; a
// Slurm task (--run-index) shares it with the others, which write runs of
// their own.
//
// The lock is a file in the user's own folder of locks (lockRoot), named
// by the directory's absolute path, its links resolved, locked with
// flock(2) (dirlock_unix.go; elsewhere none is taken): it knows the
// processes of one machine, and the kernel lets it go when its process
// ends, however. A holder alone removes the file as it lets the lock go
// (unlock), so that the folder of locks does not fill with one file per
// directory ever written (a Slurm array's tasks, sharing it, leave it to
// their collect); a process that locked a file so removed finds the name
// gone or another file's, and locks afresh.
type dirLock struct {
	f      *os.File
	name   string
	shared bool
}

// lockDir takes the lock of dir, shared or alone, or says who holds it.
func lockDir(dir string, shared bool) (*dirLock, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	// the deepest folder that is there, its links resolved, then the rest
	base, rest := abs, ""
	for {
		if r, err := filepath.EvalSymlinks(base); err == nil {
			abs = filepath.Join(r, rest)
			break
		}
		parent := filepath.Dir(base)
		if parent == base {
			break
		}
		rest = filepath.Join(filepath.Base(base), rest)
		base = parent
	}
	sum := sha256.Sum256([]byte(abs))
	locks := lockRoot()
	if err := os.MkdirAll(locks, 0o700); err != nil {
		return nil, fmt.Errorf("%s: cannot make the folder of wb's locks %s: %w (set $XDG_RUNTIME_DIR to a folder of your own)", dir, locks, err)
	}
	// the folder the user's own, open to no one else: another user who
	// made it first could hold a lock forever or plant links (a
	// reviewer's find)
	if err := ownFolder(locks); err != nil {
		return nil, fmt.Errorf("%s: the folder of wb's locks %s: %w; remove it, or set $XDG_RUNTIME_DIR to a folder of your own", dir, locks, err)
	}
	name := filepath.Join(locks, hex.EncodeToString(sum[:8])+".lock")
	for try := 0; ; try++ {
		f, err := openNoFollow(name)
		if err != nil {
			return nil, fmt.Errorf("%s: its lock %s: %w", dir, name, err)
		}
		lockOpened(name)
		if err := flock(f, shared); err != nil {
			f.Close()
			if !errors.Is(err, errLockBusy) {
				// a file system that keeps no such locks (ENOLCK): the
				// directory's own checks stand alone, as before there was one
				return nil, nil
			}
			how := "another wb command is writing"
			if shared {
				how = "a wb command that writes it alone is writing"
			}
			return nil, fmt.Errorf("%s: %s there now (its lock %s is held): wait for it to end, or choose another --out", dir, how, name)
		}
		// the file locked is still the one the name gives: its last
		// holder may have removed it between the open and the lock
		if a, err := f.Stat(); err == nil {
			if b, err := os.Lstat(name); err == nil && os.SameFile(a, b) {
				return &dirLock{f, name, shared}, nil
			}
		}
		f.Close()
		if try == 100 {
			return nil, fmt.Errorf("%s: its lock %s was removed under wb 100 times as it took it: is another program removing the files of %s?", dir, name, locks)
		}
	}
}

// lockRoot is the folder of the user's locks: $XDG_RUNTIME_DIR/wb-locks
// (the user's own, on the machine), else /tmp/wb-locks-UID; one place
// whatever $TMPDIR says (a Slurm job's own TMPDIR put a second lock
// beside the first). Tests point it elsewhere.
var lockRoot = func() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "wb-locks")
	}
	return filepath.Join("/tmp", fmt.Sprintf("wb-locks-%d", os.Getuid()))
}

// lockOpened is called between a lock file's open and its lock (a test's
// hook: another process may let the lock go and remove the file there).
var lockOpened = func(name string) {}

// unlock lets the lock go (nil: none held), a holder alone removing its
// file. A shared holder (a Slurm array's task) leaves it: to remove it, it
// would take the lock alone first, and a task starting in that moment
// would be refused as if a command writing alone held the directory (a
// reviewer's find: 2,559 of 40,000 such starts); the array's collect,
// which holds it alone, removes it.
func (l *dirLock) unlock() {
	if l == nil || l.f == nil {
		return
	}
	if !l.shared {
		os.Remove(l.name)
	}
	l.f.Close()
	l.f = nil
}
