package registry

import (
	"slices"
	"strings"
	"testing"
)

func TestRegistry(t *testing.T) {
	r := New[int]("placement")
	for i, n := range []string{"first-fit", "best-fit", "tetris"} {
		if err := r.Register(n, i); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Register("best-fit", 9); err == nil || err.Error() != `placement "best-fit" registered twice` {
		t.Errorf("duplicate: %v", err)
	}
	if err := r.Register("", 9); err == nil {
		t.Error("an empty name was registered")
	}
	if v, err := r.Lookup("tetris"); err != nil || v != 2 {
		t.Errorf("Lookup(tetris) = %d, %v", v, err)
	}
	if _, err := r.Lookup("tetrs"); err == nil || err.Error() != `unknown placement "tetrs" (known: best-fit, first-fit, tetris)` {
		t.Errorf("unknown: %v", err)
	}
	if !slices.Equal(r.Ordered(), []string{"first-fit", "best-fit", "tetris"}) || r.Len() != 3 {
		t.Errorf("ordered %v", r.Ordered())
	}
	names := r.Names()
	names[0] = "changed"
	if r.Names()[0] != "best-fit" {
		t.Error("Names shares its slice with the registry")
	}
	defer func() {
		if p := recover(); p == nil || !strings.Contains(p.(error).Error(), "registered twice") {
			t.Errorf("MustRegister of a duplicate: %v", p)
		}
	}()
	r.MustRegister("tetris", 5)
}

// TestDistance: the edits between two names, a typo's.
func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"experiment", "experiment", 0}, {"experimnt", "experiment", 1}, {"simulat", "simulate", 1},
		{"hidden_sise", "hidden_size", 1}, {"ls", "h", 2}, {"abc", "", 3}, {"kitten", "sitting", 3},
	} {
		if got := Distance(tt.a, tt.b); got != tt.want || Distance(tt.b, tt.a) != got {
			t.Errorf("Distance(%q, %q) = %d, want %d either way", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestClosest: a typo of a name is answered with the name (a dash for an
// underscore, a letter dropped or doubled, case), and nothing where no name
// is near or two are equally near.
func TestClosest(t *testing.T) {
	names := []string{"first-fit", "best-fit", "worst-fit", "largest-first", "fifo", "sjf", "placement_args"}
	for _, c := range []struct{ in, want string }{
		{"worstfit", "worst-fit"},
		{"largest_first", "largest-first"},
		{"Best-Fit", "best-fit"},
		{"frist-fit", "first-fit"},
		{"placement_arg", "placement_args"},
		{"fifo", ""},   // a name itself
		{"lifo", ""},   // a name of 4 bytes: one edit makes another word
		{"tetris", ""}, // nothing near
		{"bst-fit", "best-fit"},
	} {
		if got := Closest(c.in, names); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := Closest("ab-fit", []string{"aa-fit", "ac-fit"}); got != "" {
		t.Errorf("two names one edit away: %q, want none", got)
	}
}
