package profiler_test

import (
	"strings"
	"testing"

	"github.com/wb-sim/wb/profiler"
)

// TestReadCSVNotAProfile: a gzip-compressed trace or a CSV whose header
// does not parse is named as not a wb profile.
func TestReadCSVNotAProfile(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"\x1f\x8b\x08\x00rest", "gzip-compressed: not a wb profile"},
		{"a,\"b\nc\n", "line 1: header"},
		{"job,submit\n1,2\n", "missing column(s)"},
	} {
		_, err := profiler.ReadCSV(strings.NewReader(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "not a wb profile") {
			t.Errorf("%q: %v", tt.in, err)
		}
	}
}
