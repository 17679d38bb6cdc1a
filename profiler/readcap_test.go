package profiler

import (
	"strings"
	"testing"
)

// A profile that never ends a line (a device named by mistake) is refused
// at the cap, not read until memory runs out.
func TestReadCSVNeverEnds(t *testing.T) {
	if _, err := Read("/dev/zero"); err == nil || !strings.Contains(err.Error(), "a line longer than 1 MiB") {
		t.Errorf("Read(/dev/zero): %v", err)
	}
}
