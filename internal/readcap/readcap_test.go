package readcap

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadFileCap: a file up to the cap reads whole; one past it, or one
// that never ends, is refused naming the file and the cap.
func TestReadFileCap(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.json")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(p, 10); err != nil || string(b) != "0123456789" {
		t.Errorf("at the cap: %q, %v", b, err)
	}
	if _, err := ReadFile(p, 9); err == nil || !strings.Contains(err.Error(), p+": more than 9 bytes") {
		t.Errorf("past the cap: %v", err)
	}
	if _, err := ReadFile("/dev/zero", 2<<20); err == nil || !strings.Contains(err.Error(), "/dev/zero: more than 2 MiB") {
		t.Errorf("/dev/zero: %v", err)
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "none.json"), 10); !os.IsNotExist(err) {
		t.Errorf("a missing file: %v", err)
	}
}

// Lines passes a table through and refuses a line past its cap.
func TestLines(t *testing.T) {
	b, err := io.ReadAll(Lines(strings.NewReader("a,b\n1,2\n"), 4))
	if err != nil || string(b) != "a,b\n1,2\n" {
		t.Errorf("a table: %q %v", b, err)
	}
	_, err = io.ReadAll(Lines(io.LimitReader(zeros{}, 1<<20), 1<<10))
	if err == nil || !strings.Contains(err.Error(), "a line longer than 1 KiB") {
		t.Errorf("endless zeros: %v", err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }
