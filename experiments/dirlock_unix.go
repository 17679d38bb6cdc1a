//go:build unix

package experiments

import (
	"os"
	"syscall"
)

// flock takes f's lock, shared or alone, without waiting.
func flock(f *os.File, shared bool) error {
	how := syscall.LOCK_EX
	if shared {
		how = syscall.LOCK_SH
	}
	return syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
}
