package buildid

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"testing"
)

// TestID: the test binary's own hash, the same on every call.
func TestID(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(b)
	want := hex.EncodeToString(h[:])[:16]
	first := ID()
	if first != want {
		t.Errorf("ID %q, want %q", first, want)
	}
	if again := ID(); again != first {
		t.Errorf("ID %q, then %q", first, again)
	}
}
