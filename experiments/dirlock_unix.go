//go:build unix

package experiments

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// errLockBusy is flock's error where another holds the lock.
var errLockBusy = syscall.EWOULDBLOCK

// flock takes f's lock, shared or alone, without waiting.
func flock(f *os.File, shared bool) error {
	how := syscall.LOCK_EX
	if shared {
		how = syscall.LOCK_SH
	}
	return syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
}

// ownFolder says what is wrong with dir as the folder of the user's
// locks: not a folder (a link), not the user's, or open to others.
func ownFolder(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return errors.New("not a folder")
	case ok && int(st.Uid) != os.Getuid():
		return fmt.Errorf("owned by user %d, not you", st.Uid)
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("open to others (mode %v)", fi.Mode().Perm())
	}
	return nil
}

// openNoFollow opens (or makes) a lock file, never through a link.
func openNoFollow(name string) (*os.File, error) {
	return os.OpenFile(name, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
}
