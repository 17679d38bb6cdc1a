package app

import (
	"os"
	"testing"
)

// TestMain keeps the locks of the results directories the tests write in
// a folder of their own, removed at the end ($XDG_RUNTIME_DIR, where wb
// keeps them: a run of the package left hundreds of lock files in the
// user's folder of locks). A subprocess the tests start (WB_TEST_MAIN)
// inherits it.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "wb-app-test-runtime-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_RUNTIME_DIR", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
