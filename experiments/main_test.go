package experiments

import (
	"os"
	"testing"
)

// TestMain keeps the tests' results-directory locks in a folder of their
// own, removed at the end (a run of the package left 160 lock files in
// the user's folder of locks).
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "wb-test-locks-")
	if err != nil {
		panic(err)
	}
	lockRoot = func() string { return dir + "/locks" }
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
