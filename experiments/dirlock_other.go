//go:build !unix

package experiments

import (
	"errors"
	"os"
)

// errLockBusy is never returned where no lock is taken.
var errLockBusy = errors.New("lock busy")

// flock takes no lock where flock(2) is not.
func flock(*os.File, bool) error { return nil }

// ownFolder takes any folder where the owner is not known.
func ownFolder(string) error { return nil }

// openNoFollow opens (or makes) a lock file.
func openNoFollow(name string) (*os.File, error) {
	return os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
}
