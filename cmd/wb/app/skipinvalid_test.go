package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --skip-invalid says which lines it skipped and why, not only how many.
func TestSkipInvalidListsLines(t *testing.T) {
	var b strings.Builder
	b.WriteString("; MaxProcs: 8\n")
	for i := 1; i <= 30; i++ {
		if i%3 == 0 {
			fmt.Fprintf(&b, "%d %d 0 x 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n", i, 10*i) // a run time that is no number
			continue
		}
		fmt.Fprintf(&b, "%d %d 0 50 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n", i, 10*i)
	}
	trace := filepath.Join(t.TempDir(), "bad.swf")
	if err := os.WriteFile(trace, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := wb(t, "simulate", "--trace", trace, "--skip-invalid")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"20 simulated", "10 malformed lines skipped", "malformed lines skipped", "bad.swf:4: field 4", "bad.swf:31: field 4"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
