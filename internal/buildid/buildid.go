// Package buildid names the running build of wb: what a stored result
// (an experiment's run, a profile's cached measurement) was made by, so
// that another build's is never taken for this one's.
package buildid

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"sync"
)

// ID identifies the running executable: the first 16 hex digits of the
// SHA-256 of its file, or "unknown" when it cannot be read. Another build
// (a rebuilt binary, a changed kernel, model or constant) may measure or
// simulate the same thing otherwise.
var ID = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return "unknown"
	}
	f, err := os.Open(exe)
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unknown"
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
})
