package golden

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCheck(t *testing.T) {
	p := filepath.Join(t.TempDir(), "out.golden")
	Check(t, p, []byte("a\nb\n"), true)
	if b, err := os.ReadFile(p); err != nil || string(b) != "a\nb\n" {
		t.Fatalf("update wrote %q, %v", b, err)
	}
	Check(t, p, []byte("a\nb\n"), false)
	if d := LineDiff("a\nb\n", "a\nc\n"); d != "line 2:\n- b\n+ c\n" {
		t.Errorf("LineDiff = %q", d)
	}
}
