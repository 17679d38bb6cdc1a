package figures

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// MinFill is the least share of an axis that the data may span before
// [Figure.Check] calls the axis badly scaled.
const MinFill = 0.2

// NearShare is how close, as a share of the Y data's span, two series of
// the same X must stay everywhere for [Figure.NoteCoincident] to say they
// are drawn over each other.
const NearShare = 0.005

// NoteCoincident adds to f's note the series that are drawn identically,
// which the eye sees as one ("EASY = conservative"), and the pairs that
// stay within NearShare of the Y span of each other ("A ≈ B (within
// 0.07)"), so that a reader knows where the others went. It returns the
// identical groups it named.
func (f *Figure) NoteCoincident() [][]string {
	defer f.noteNear()
	groups := f.coincident()
	// bars stand side by side: equal, not drawn over each other
	how := "drawn on top of each other"
	if f.Kind == Bar {
		how = "bars of equal height"
	}
	for _, g := range groups {
		s := strings.Join(g, " = ") + " (" + how + ")"
		if len(g) == len(f.Series) {
			s = fmt.Sprintf("all %d series are identical, %s", len(g), how)
		}
		if f.Note == "" {
			f.Note = s
		} else {
			f.Note += "; " + s
		}
	}
	return groups
}

// coincident groups the labels of series whose points (and intervals)
// are all equal, in series order; groups of one are left out.
func (f *Figure) coincident() [][]string {
	var groups [][]string
	used := make([]bool, len(f.Series))
	for i := range f.Series {
		if used[i] {
			continue
		}
		g := []string{f.Series[i].Label}
		for k := i + 1; k < len(f.Series); k++ {
			if !used[k] && sameSeries(&f.Series[i], &f.Series[k]) {
				used[k] = true
				g = append(g, f.Series[k].Label)
			}
		}
		if len(g) > 1 {
			groups = append(groups, g)
		}
	}
	return groups
}

func sameSeries(a, b *Series) bool {
	return slices.Equal(a.X, b.X) && slices.Equal(a.Y, b.Y) && slices.Equal(a.Lo, b.Lo) && slices.Equal(a.Hi, b.Hi)
}

// Check reports what a reviewer would send back about a valid figure,
// beyond what [Figure.Validate] refuses:
//   - series drawn identically whose labels the note does not name (see
//     [Figure.NoteCoincident]);
//   - an axis whose data spans less than MinFill of it (on a log axis, of
//     its decades): the data squeezed into a corner;
//   - on a bar figure, a category whose tallest bar (or interval) reaches
//     less than MinFill of the axis, hidden beside another's: draw the
//     categories as separate figures.
func (f *Figure) Check() error {
	if err := f.Validate(); err != nil {
		return err
	}
	var errs []error
	for _, g := range f.coincident() {
		if len(g) == len(f.Series) && strings.Contains(f.Note, fmt.Sprintf("all %d series are identical", len(g))) {
			continue
		}
		for _, l := range g {
			if !strings.Contains(f.Note, l) {
				errs = append(errs, fmt.Errorf("series %s are drawn identically and the note does not say so", strings.Join(g, ", ")))
				break
			}
		}
	}
	p, _, err := f.plot()
	if err != nil {
		return err
	}
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range f.Series {
		for j := range s.X {
			xmin, xmax = min(xmin, s.X[j]), max(xmax, s.X[j])
			lo, hi := s.Y[j], s.Y[j]
			if s.Lo != nil {
				lo, hi = s.Lo[j], s.Hi[j]
			}
			ymin, ymax = min(ymin, lo), max(ymax, hi)
		}
	}
	fill := func(lo, hi, amin, amax float64, log bool) float64 {
		if log {
			lo, hi, amin, amax = math.Log10(lo), math.Log10(hi), math.Log10(amin), math.Log10(amax)
		}
		if amax <= amin {
			return 1
		}
		return (hi - lo) / (amax - amin)
	}
	if f.Kind == Bar {
		for c := range f.Categories {
			top := 0.0
			for _, s := range f.Series {
				for j := range s.X {
					if int(s.X[j]) == c {
						v := s.Y[j]
						if s.Hi != nil {
							v = s.Hi[j]
						}
						top = max(top, v)
					}
				}
			}
			if r := fill(p.Y.Min, top, p.Y.Min, p.Y.Max, f.LogY); p.Y.Max > 0 && r < MinFill {
				errs = append(errs, fmt.Errorf("category %s: its tallest bar reaches %.0f%% of the axis, hidden beside the others", f.Categories[c], 100*r))
			}
		}
		return errors.Join(errs...)
	}
	if xmax > xmin {
		if r := fill(xmin, xmax, p.X.Min, p.X.Max, f.LogX); r < MinFill {
			errs = append(errs, fmt.Errorf("x axis: the data span %.0f%% of it", 100*r))
		}
	}
	if ymax > ymin {
		if r := fill(ymin, ymax, p.Y.Min, p.Y.Max, f.LogY); r < MinFill {
			errs = append(errs, fmt.Errorf("y axis: the data span %.0f%% of it", 100*r))
		}
	}
	return errors.Join(errs...)
}

// noteNear adds to the note the pairs of series, not identical, that stay
// within NearShare of the Y span of each other at every shared X.
func (f *Figure) noteNear() {
	if f.Kind == Bar {
		return
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range f.Series {
		for _, y := range s.Y {
			lo, hi = min(lo, y), max(hi, y)
		}
	}
	if !(hi > lo) {
		return
	}
	for i := range f.Series {
		for k := i + 1; k < len(f.Series); k++ {
			a, b := &f.Series[i], &f.Series[k]
			if !slices.Equal(a.X, b.X) || slices.Equal(a.Y, b.Y) || len(a.Y) == 0 {
				continue
			}
			d := 0.0
			for j := range a.Y {
				d = max(d, math.Abs(a.Y[j]-b.Y[j]))
			}
			if d <= NearShare*(hi-lo) {
				s := fmt.Sprintf("%s ≈ %s (within %.2g)", a.Label, b.Label, d)
				if f.Note == "" {
					f.Note = s
				} else {
					f.Note += "; " + s
				}
			}
		}
	}
}
