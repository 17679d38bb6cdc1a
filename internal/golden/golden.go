// Package golden compares test output with a golden file, or rewrites the
// file when the test runs with -update after a deliberate change.
package golden

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
)

// Check fails t unless got equals the file at path, listing the lines that
// differ; with update it writes got to path instead.
func Check(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it after a deliberate change):\n%s", path, LineDiff(string(want), string(got)))
	}
}

// LineDiff lists the lines that differ between want and got.
func LineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, c string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			c = g[i]
		}
		if a != c {
			fmt.Fprintf(&b, "line %d:\n- %s\n+ %s\n", i+1, a, c)
		}
	}
	return b.String()
}
