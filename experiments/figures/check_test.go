package figures

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
)

// TestCheck: each class of figure a reviewer sends back is found, and
// nothing is found in a good figure.
func TestCheck(t *testing.T) {
	line := func(ys ...[]float64) *Figure {
		f := &Figure{Kind: Line}
		for i, y := range ys {
			f.Series = append(f.Series, Series{Label: string(rune('A' + i)), X: []float64{1, 2, 3}, Y: y})
		}
		return f
	}
	good := line([]float64{1, 2, 3}, []float64{2, 3, 5})
	if err := good.Check(); err != nil {
		t.Errorf("a good figure: %v", err)
	}

	same := line([]float64{1, 2, 3}, []float64{1, 2, 3}, []float64{2, 3, 5}, []float64{2, 3, 5})
	err := same.Check()
	if err == nil || !strings.Contains(err.Error(), "series A, B are drawn identically") || !strings.Contains(err.Error(), "series C, D") {
		t.Errorf("identical series: %v", err)
	}
	if g := same.NoteCoincident(); len(g) != 2 || same.Note != "A = B (drawn on top of each other); C = D (drawn on top of each other)" {
		t.Errorf("note %q, groups %v", same.Note, g)
	}
	if err := same.Check(); err != nil {
		t.Errorf("after NoteCoincident: %v", err)
	}
	// bars stand side by side: the note does not say they overlap
	bars := &Figure{Kind: Bar, Categories: []string{"x", "y"}, Series: []Series{{Label: "A", X: []float64{0, 1}, Y: []float64{1, 2}}, {Label: "B", X: []float64{0, 1}, Y: []float64{1, 2}}}}
	if bars.NoteCoincident(); bars.Note != "all 2 series are identical, bars of equal height" {
		t.Errorf("bar note %q", bars.Note)
	}

	cdf := &Figure{Kind: CDF, Series: []Series{{Label: "a", X: []float64{1, 2, 3}, Y: []float64{0.96, 0.98, 1}}}}
	if err := cdf.Check(); err == nil || !strings.Contains(err.Error(), "y axis: the data span 4% of it") {
		t.Errorf("a CDF squeezed at the top: %v", err)
	}

	bar := &Figure{Kind: Bar, Categories: []string{"KTH", "HPC2N"}, Series: []Series{
		{Label: "FCFS", X: []float64{0, 1}, Y: []float64{600000, 10000}},
		{Label: "EASY", X: []float64{0, 1}, Y: []float64{80000, 5000}},
	}}
	if err := bar.Check(); err == nil || !strings.Contains(err.Error(), "category HPC2N: its tallest bar reaches 2% of the axis") {
		t.Errorf("a hidden category: %v", err)
	}
	bar.LogY = true // on a log axis HPC2N's bars rise from the base, 10^3, to 10^4: visible
	if err := bar.Check(); err != nil {
		t.Errorf("a log axis: %v", err)
	}
	bar.LogY = false
	bar.Series[0].Y[0], bar.Series[1].Y[0] = 20000, 15000
	if err := bar.Check(); err != nil {
		t.Errorf("comparable categories: %v", err)
	}
}

// TestLogBars: on a log Y axis bars rise from the largest power of ten
// at or below every value and interval end (a tenth of it where one sits
// on it), the axis starts there, and the drawing is made.
func TestLogBars(t *testing.T) {
	for _, c := range []struct {
		y, lo []float64
		base  float64
	}{
		{[]float64{600000, 10000}, nil, 1000},
		{[]float64{3.5, 250}, []float64{0.2, 100}, 0.1},
		{[]float64{0.05, 1}, nil, 0.01},
		{[]float64{100, 400}, nil, 10}, // 100 on the base would be no bar
	} {
		s := Series{Label: "a", X: []float64{0, 1}, Y: c.y}
		if c.lo != nil {
			s.Lo, s.Hi = c.lo, []float64{c.y[0] * 2, c.y[1] * 2}
		}
		f := &Figure{Kind: Bar, LogY: true, YLabel: "mean wait", Categories: []string{"KTH", "HPC2N"}, Series: []Series{s}}
		if got := logBase(f.Series); got != c.base {
			t.Errorf("%v (lo %v): base %v, want %v", c.y, c.lo, got, c.base)
		}
		p, _, err := f.plot()
		if err != nil {
			t.Fatal(err)
		}
		if p.Y.Min != c.base || !(p.Y.Max >= slices.Max(c.y)) {
			t.Errorf("%v: y axis [%v, %v], want from %v", c.y, p.Y.Min, p.Y.Max, c.base)
		}
		if _, err := Render(f, filepath.Join(t.TempDir(), "bar"), nil); err != nil {
			t.Errorf("%v: %v", c.y, err)
		}
	}
}

// TestWrap: a note is cut at spaces into lines no wider than the width,
// a word wider than the width on a line of its own.
func TestWrap(t *testing.T) {
	width := func(s string) vg.Length { return vg.Length(len(s)) }
	got := wrap("all 8 series are identical, drawn on top of each other", width, 20)
	want := []string{"all 8 series are", "identical, drawn on", "top of each other"}
	if !slices.Equal(got, want) {
		t.Errorf("wrap: %q, want %q", got, want)
	}
	if got := wrap("a verylongwordindeed b", width, 5); !slices.Equal(got, []string{"a", "verylongwordindeed", "b"}) {
		t.Errorf("long word: %q", got)
	}
	if got := wrap("", width, 5); got != nil {
		t.Errorf("empty: %q", got)
	}
}

// TestLineDodge: series with error bars spread at most dodgeSpan apart in
// all, whatever their number; series without bars stay at their X.
func TestLineDodge(t *testing.T) {
	with := Series{X: []float64{1}, Y: []float64{2}, Lo: []float64{1}, Hi: []float64{3}}
	without := Series{X: []float64{1}, Y: []float64{2}}
	series := []Series{with, without, with, with, with, with, with, with, with}
	lo, hi := vg.Length(0), vg.Length(0)
	for i := range series {
		d := lineDodge(series, i)
		lo, hi = min(lo, d), max(hi, d)
		if i == 1 && d != 0 {
			t.Errorf("a series without bars moved by %v", d)
		}
	}
	if span := hi - lo; span > vg.Points(dodgeSpan)+1e-9 || span < vg.Points(dodgeSpan)-1e-9 {
		t.Errorf("8 series with bars spread over %v, want %v", span, vg.Points(dodgeSpan))
	}
	if d := lineDodge([]Series{with, without}, 0); d != 0 {
		t.Errorf("one series with bars moved by %v", d)
	}
}
