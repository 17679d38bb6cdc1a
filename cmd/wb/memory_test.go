package main

import (
	"strings"
	"testing"
)

// TestWarnMemory: a model whose state alone exceeds the GPU's memory is
// warned about, with both figures; one that fits, or a GPU of unknown
// memory, is not.
func TestWarnMemory(t *testing.T) {
	for _, c := range []struct {
		need, have float64
		want       string
	}{
		{54 << 30, 8 << 30, "take at least 54.0 GiB, more than the 8.0 GiB of the Tesla P4"},
		{7 << 30, 8 << 30, ""},
		{8 << 30, 8 << 30, ""},
		{53.9e9, 0, ""},
	} {
		var b strings.Builder
		warnMemory(&b, c.need, c.have, "Tesla P4", "its fp32 weights")
		if got := b.String(); (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("need %g, have %g: %q, want %q", c.need, c.have, got, c.want)
		}
	}
}
