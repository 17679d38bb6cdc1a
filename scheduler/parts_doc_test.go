package scheduler

import (
	"os"
	"slices"
	"strings"
	"testing"
	"unicode"
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

// TestFrameworkDocNamesParts: the list that opens framework.go names every
// interface the file declares (each optional power among them) and every
// registered backfill rule (it left out greedy, and two powers of a
// PlacementEstimator).
func TestFrameworkDocNamesParts(t *testing.T) {
	b, err := os.ReadFile("framework.go")
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	head := src[:strings.Index(src, "\ntype ")]
	words := strings.FieldsFunc(head, func(r rune) bool { return !unicode.IsLetter(r) })
	for _, line := range strings.Split(src, "\n") {
		if name, ok := strings.CutPrefix(line, "type "); ok && strings.HasSuffix(line, " interface {") {
			if name = strings.TrimSuffix(name, " interface {"); !slices.Contains(words, name) {
				t.Errorf("framework.go's opening list does not name %s", name)
			}
		}
	}
	for _, n := range DefaultParts().Backfills.Names() {
		if !slices.Contains(words, n) {
			t.Errorf("framework.go's opening list does not name the backfill rule %q", n)
		}
	}
}
