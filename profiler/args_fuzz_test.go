package profiler_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/profiler"
)

// FuzzParseBatches: --batch reads to positive sizes, each once, that read
// back the same when written as the flag takes them.
func FuzzParseBatches(f *testing.F) {
	for _, s := range []string{"1,8,32", " 8 , 1", "1,1", "0", "-1", "+4", "9223372036854775807", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := profiler.ParseBatches(s)
		if err != nil {
			return
		}
		if len(b) == 0 {
			t.Fatalf("%q: no batch and no error", s)
		}
		var w []string
		for i, v := range b {
			if v < 1 || slices.Contains(b[:i], v) {
				t.Fatalf("%q: %v", s, b)
			}
			w = append(w, strconv.Itoa(v))
		}
		if back, err := profiler.ParseBatches(strings.Join(w, ",")); err != nil || !slices.Equal(back, b) {
			t.Fatalf("%q: %v writes back as %v, %v", s, b, back, err)
		}
	})
}

// FuzzParsePasses: --pass reads to passes in training order, each once,
// that read back the same.
func FuzzParsePasses(f *testing.F) {
	for _, s := range []string{"fwd", "fwd,bwd", "bwd-data, update", "bwd,bwd-data", "", ",", "FWD"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := profiler.ParsePasses(s)
		if err != nil {
			return
		}
		if len(p) == 0 {
			t.Fatalf("%q: no pass and no error", s)
		}
		var w []string
		for i, v := range p {
			if i > 0 && v <= p[i-1] || !slices.Contains(dnn.Passes, v) {
				t.Fatalf("%q: %v", s, p)
			}
			w = append(w, v.String())
		}
		if back, err := profiler.ParsePasses(strings.Join(w, ",")); err != nil || !slices.Equal(back, p) {
			t.Fatalf("%q: %v writes back as %v, %v", s, p, back, err)
		}
	})
}
