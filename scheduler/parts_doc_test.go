package scheduler

import (
	"os"
	"strings"
	"testing"
)

// TestDocNamesParts: the package documentation names every registered
// queue order, backfill rule and estimate, so that it cannot fall behind
// the registry (it once listed 5 placements where there were 12; it now
// sends readers to the registry for those).
func TestDocNamesParts(t *testing.T) {
	b, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	p := DefaultParts()
	for _, names := range [][]string{p.Orders.Names(), p.Backfills.Names(), p.Estimators.Names()} {
		for _, n := range names {
			if !strings.Contains(doc, " "+n) {
				t.Errorf("doc.go does not name %q", n)
			}
		}
	}
}
