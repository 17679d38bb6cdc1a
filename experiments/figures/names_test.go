package figures

import (
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// TestPointNamesPlacement: a point's name goes on its first side where
// nothing is there (right of it, a little up), on another where that
// would cover a neighbour's marker (a reviewer's find: EASY's name drawn
// on FIFO's marker in the Pareto figure), and names of points close
// together stack as their points do.
func TestPointNamesPlacement(t *testing.T) {
	// data coordinates are the canvas's points: a 100 × 100 pt canvas, axes 0 to 100
	draw1 := func(xys plotter.XYs, names []string, marks plotter.XYs) map[string]vg.Point {
		t.Helper()
		p := plot.New()
		p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 100, 0, 100
		l := &pointNames{xys: xys, names: names, marks: marks, radius: 3}
		for range names {
			l.left = append(l.left, false)
			l.styles = append(l.styles, text.Style{Font: font.From(sans, tickFontSize-1), Handler: plot.DefaultTextHandler})
		}
		rec := new(recorder.Canvas)
		c := draw.Canvas{Canvas: rec, Rectangle: vg.Rectangle{Max: vg.Point{X: 100, Y: 100}}}
		l.Plot(c, p)
		at := map[string]vg.Point{}
		for _, a := range rec.Actions {
			if fs, ok := a.(*recorder.FillString); ok {
				at[fs.String] = fs.Point
			}
		}
		return at
	}
	alone := plotter.XYs{{X: 20, Y: 50}}
	if got := draw1(alone, []string{"EASY"}, alone); got["EASY"].X < 25 || got["EASY"].Y < 52 {
		t.Errorf("a name with nothing beside it drawn at %v: want right of its point, a little up (25, 52)", got["EASY"])
	}
	// FIFO's marker up and right of EASY's, where EASY's name would go
	marks := plotter.XYs{{X: 20, Y: 50}, {X: 27, Y: 54}}
	got := draw1(marks[:1], []string{"EASY"}, marks)
	if p := got["EASY"]; p.X >= 20 && p.X < 32 && p.Y > 50 {
		t.Errorf("EASY's name drawn at %v, over FIFO's marker at (27, 54)", p)
	}
	// two names of points 4 pt apart, the upper one's drawn above the lower's
	two := plotter.XYs{{X: 20, Y: 46}, {X: 21, Y: 50}}
	got = draw1(two, []string{"SJF", "EASY"}, two)
	if !(got["EASY"].Y > got["SJF"].Y) {
		t.Errorf("EASY (point at y 50) drawn at %v, SJF (y 46) at %v: want EASY's name above SJF's", got["EASY"], got["SJF"])
	}
}
