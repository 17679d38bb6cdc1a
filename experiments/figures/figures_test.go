package figures

import (
	"bytes"
	"flag"
	"image"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/cmpimg"
	"gonum.org/v1/plot/vg"
)

var update = flag.Bool("update", false, "rewrite the golden PNGs in testdata")

var schedulers = []string{"FCFS", "EASY backfill", "conservative backfill"}

// sampleFigures are realistic figures of each kind, built from seeded
// synthetic data; they are the golden images' inputs.
func sampleFigures() map[string]*Figure {
	rng := rand.New(rand.NewPCG(1, 2))

	// line: mean bounded slowdown vs offered load, 5 replicas per point.
	loads := []float64{0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2}
	line := &Figure{
		Kind:   Line,
		XLabel: "offered load (× trace)",
		YLabel: "mean bounded slowdown",
		LogY:   true,
	}
	for i, name := range schedulers {
		s := Series{Label: name}
		for _, load := range loads {
			base := 1 + 0.6*math.Exp((load-0.6)*float64(9-2*i)) // saturates sooner without backfill
			reps := make([]float64, 5)
			for r := range reps {
				reps[r] = base * math.Exp(0.25*rng.NormFloat64())
			}
			m, lo, hi := MeanCI(reps)
			s.X, s.Y, s.Lo, s.Hi = append(s.X, load), append(s.Y, m), append(s.Lo, lo), append(s.Hi, hi)
		}
		line.Series = append(line.Series, s)
	}

	// cdf: wait times, log-normal with a scheduler-dependent median.
	cdf := &Figure{
		Kind:   CDF,
		XLabel: "wait (s)",
		YLabel: "fraction of jobs",
		LogX:   true,
	}
	for i, name := range schedulers {
		waits := make([]float64, 5000)
		for j := range waits {
			waits[j] = min(1e6, 1+math.Exp(8-1.2*float64(i)+2.2*rng.NormFloat64()))
		}
		x, y := ECDF(waits, 400)
		cdf.Series = append(cdf.Series, Series{Label: name, X: x, Y: y})
	}

	// timeseries: utilisation over 30 days, hourly.
	ts := &Figure{
		Kind:   TimeSeries,
		XLabel: "time (days)",
		YLabel: "GPU utilisation",
	}
	for i, name := range schedulers {
		s := Series{Label: name}
		u := 0.6
		for h := range 30 * 24 {
			day := float64(h) / 24
			target := 0.55 + 0.1*float64(i) + 0.15*math.Sin(2*math.Pi*day)
			u += 0.3*(target-u) + 0.05*rng.NormFloat64()
			u = min(1, max(0, u))
			s.X, s.Y = append(s.X, day), append(s.Y, u)
		}
		ts.Series = append(ts.Series, s)
	}

	// bar: mean wait per scheduler for two traces, with 95% CIs.
	bar := &Figure{
		Kind:       Bar,
		YLabel:     "mean wait (h)",
		Categories: []string{"KTH-SP2", "SDSC-SP2"},
	}
	for i, name := range schedulers {
		s := Series{Label: name}
		for t := range bar.Categories {
			reps := make([]float64, 10)
			for r := range reps {
				reps[r] = (6 - 1.8*float64(i)) * (1 + 0.6*float64(t)) * math.Exp(0.15*rng.NormFloat64())
			}
			m, lo, hi := MeanCI(reps)
			s.X, s.Y, s.Lo, s.Hi = append(s.X, float64(t)), append(s.Y, m), append(s.Lo, lo), append(s.Hi, hi)
		}
		bar.Series = append(bar.Series, s)
	}

	// scatter: predicted vs measured layer times, log-log, two predictors.
	sc := &Figure{
		Kind:     Scatter,
		XLabel:   "measured (s)",
		YLabel:   "predicted (s)",
		LogX:     true,
		LogY:     true,
		Diagonal: true,
	}
	for i, name := range []string{"analytical", "corrected"} {
		s := Series{Label: name}
		for range 300 {
			m := math.Exp(-12 + 8*rng.Float64())
			p := m * math.Exp(0.8/float64(1+3*i)*rng.NormFloat64()-0.5/float64(1+4*i))
			s.X, s.Y = append(s.X, m), append(s.Y, p)
		}
		sc.Series = append(sc.Series, s)
	}

	return map[string]*Figure{"line": line, "cdf": cdf, "timeseries": ts, "bar": bar, "scatter": sc}
}

// TestRenderKinds renders every kind to PNG, PDF and SVG, checks the files
// are non-empty and of the right format, and compares the PNG with the
// golden image in testdata (rewritten with -update).
func TestRenderKinds(t *testing.T) {
	for name, f := range sampleFigures() {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			paths, err := Render(f, filepath.Join(dir, name), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(paths) != 3 {
				t.Fatalf("wrote %v, want 3 files", paths)
			}
			magic := map[string]string{".png": "\x89PNG", ".pdf": "%PDF", ".svg": "<?xml"}
			for _, p := range paths {
				data, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.HasPrefix(data, []byte(magic[filepath.Ext(p)])) {
					t.Errorf("%s: does not start with %q", p, magic[filepath.Ext(p)])
				}
			}
			pdf, err := os.ReadFile(paths[1])
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cmpimg.Equal("pdf", pdf, pdf); err != nil {
				t.Errorf("PDF does not parse: %v", err)
			}
			if n := bytes.Count(pdf, []byte("Date (D:20000101000000)")); n != 2 {
				t.Errorf("PDF has %d fixed dates, want CreationDate and ModDate", n)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 3 {
				t.Errorf("directory holds %d entries, want the 3 figures (no temporary files left)", len(entries))
			}

			got, err := os.ReadFile(paths[0])
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(got))
			if err != nil {
				t.Fatal(err)
			}
			// 3.5 in × 2.6 in at 300 dpi.
			if b := img.Bounds(); b.Dx() != 1050 || b.Dy() != 780 {
				t.Errorf("PNG is %d×%d px, want 1050×780", b.Dx(), b.Dy())
			}
			golden := filepath.Join("testdata", name+".png")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if frac, err := pixelDiff(got, want); err != nil {
				t.Fatal(err)
			} else if frac > maxDiffFraction {
				failed := filepath.Join(t.TempDir(), name+".png")
				os.WriteFile(failed, got, 0o644)
				t.Errorf("%.3f%% of pixels differ from %s (tolerance %.3f%%); got image: %s",
					100*frac, golden, 100*maxDiffFraction, failed)
			}
		})
	}
}

// Golden PNG tolerance. Text and lines are rasterised in pure Go from the
// embedded Liberation fonts, so the same code gives the same pixels on any
// machine, except for floating-point contraction (FMA) on some
// architectures, which moves anti-aliased edges by a fraction of a pixel.
// A pixel counts as different when a channel differs by more than 64/255
// (a change of anti-aliasing shade stays below); at most 0.1% of the
// 819,000 pixels (≈ 800) may differ, well under one missing 0.75 pt line
// (≈ 3,000 px) or a moved legend entry.
const (
	maxChannelDiff  = 64
	maxDiffFraction = 0.001
)

// pixelDiff returns the fraction of pixels that differ noticeably between
// two PNGs of the same size.
func pixelDiff(a, b []byte) (float64, error) {
	ia, err := png.Decode(bytes.NewReader(a))
	if err != nil {
		return 0, err
	}
	ib, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return 0, err
	}
	if ia.Bounds() != ib.Bounds() {
		return 1, nil
	}
	bounds := ia.Bounds()
	var diff int
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			if colourDiff(ia, ib, x, y) > maxChannelDiff {
				diff++
			}
		}
	}
	return float64(diff) / float64(bounds.Dx()*bounds.Dy()), nil
}

func colourDiff(a, b image.Image, x, y int) int {
	r1, g1, b1, _ := a.At(x, y).RGBA()
	r2, g2, b2, _ := b.At(x, y).RGBA()
	d := 0
	for _, p := range [][2]uint32{{r1, r2}, {g1, g2}, {b1, b2}} {
		d = max(d, int(max(p[0], p[1])-min(p[0], p[1]))>>8)
	}
	return d
}

// TestRenderDeterministic renders each figure twice and requires
// byte-identical PNG, PDF and SVG files.
func TestRenderDeterministic(t *testing.T) {
	for name, f := range sampleFigures() {
		t.Run(name, func(t *testing.T) {
			a, err := Render(f, filepath.Join(t.TempDir(), name), nil)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Render(f, filepath.Join(t.TempDir(), name), nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := range a {
				da, _ := os.ReadFile(a[i])
				db, _ := os.ReadFile(b[i])
				if !bytes.Equal(da, db) {
					t.Errorf("%s: two renders differ", filepath.Ext(a[i]))
				}
			}
		})
	}
}

// TestPNGDensity checks the PNG records 300 dpi (11811 px/m) in pHYs.
func TestPNGDensity(t *testing.T) {
	paths, err := Render(sampleFigures()["line"], filepath.Join(t.TempDir(), "f"), []string{"png"})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(paths[0])
	want := []byte("pHYs\x00\x00\x2e\x23\x00\x00\x2e\x23\x01")
	if !bytes.Contains(data, want) {
		t.Error("no pHYs chunk with 11811 px/m")
	}
	if _, err := png.Decode(bytes.NewReader(data)); err != nil {
		t.Errorf("PNG with pHYs does not decode: %v", err)
	}
}

// TestRenderRefuses checks that invalid figures are refused with an error
// naming the offending field, and that nothing is written.
func TestRenderRefuses(t *testing.T) {
	ok := func() Series { return Series{Label: "a", X: []float64{1, 2}, Y: []float64{1, 2}} }
	tests := []struct {
		name string
		fig  Figure
		want string
	}{
		{"NaN y", Figure{Kind: Line, Series: []Series{{X: []float64{1, 2}, Y: []float64{1, math.NaN()}}}}, "series[0].y[1] = NaN"},
		{"Inf x", Figure{Kind: TimeSeries, Series: []Series{{X: []float64{math.Inf(1), 2}, Y: []float64{1, 2}}}}, "series[0].x[0] = +Inf"},
		{"NaN interval", Figure{Kind: Line, Series: []Series{{X: []float64{1, 2}, Y: []float64{1, 2}, Lo: []float64{1, math.NaN()}, Hi: []float64{1, 2}}}}, "series[0] interval 1: [NaN, 2] is not finite"},
		{"unknown kind", Figure{Kind: "pie", Series: []Series{ok()}}, `kind: unknown "pie"`},
		{"no series", Figure{Kind: Line}, "series: none"},
		{"length mismatch", Figure{Kind: Line, Series: []Series{{X: []float64{1}, Y: []float64{1, 2}}}}, "1 x values but 2 y values"},
		{"interval length", Figure{Kind: Line, Series: []Series{{X: []float64{1, 2}, Y: []float64{1, 2}, Lo: []float64{1}, Hi: []float64{1, 2}}}}, "series[0]: 1 and 2 interval ends for 2 points"},
		{"interval without its point", Figure{Kind: Line, Series: []Series{{X: []float64{1, 2}, Y: []float64{1, 2}, Lo: []float64{1, 2.5}, Hi: []float64{1, 3}}}}, "series[0] interval 1: [2.5, 3] does not hold the point's 2"},
		{"interval out of range", Figure{Kind: Line, YRange: &[2]float64{1, math.Inf(1)}, Series: []Series{{X: []float64{1, 2}, Y: []float64{1, 2}, Lo: []float64{0.2, 2}, Hi: []float64{3, 2}}}}, "series[0] interval 0: [0.2, 3] leaves the metric's range [1, +Inf]"},
		{"point out of range", Figure{Kind: Line, YRange: &[2]float64{0, 1}, Series: []Series{{X: []float64{1, 2}, Y: []float64{1, 2}}}}, "series[0].y[1]: 2 is outside the metric's range [0, 1]"},
		{"zero on log x", Figure{Kind: CDF, LogX: true, Series: []Series{{X: []float64{0, 2}, Y: []float64{0.5, 1}}}}, "series[0].x[0]: 0 is not positive on a log axis"},
		{"interval below zero on log y", Figure{Kind: Line, LogY: true, Series: []Series{{X: []float64{1, 2}, Y: []float64{1, 2}, Lo: []float64{0, 2}, Hi: []float64{2, 2}}}}, "series[0] interval 0: reaches 0, not positive on a log axis"},
		{"cdf above 1", Figure{Kind: CDF, Series: []Series{{X: []float64{1, 2}, Y: []float64{0.5, 1.5}}}}, "series[0].y[1]: 1.5 is outside [0, 1]"},
		{"interval on cdf", Figure{Kind: CDF, Series: []Series{{X: []float64{1, 2}, Y: []float64{0.5, 1}, Lo: []float64{0.5, 1}, Hi: []float64{0.5, 1}}}}, "series[0]: intervals are drawn only on line, bar and time-series figures"},
		{"bar without categories", Figure{Kind: Bar, Series: []Series{{X: []float64{0}, Y: []float64{1}}}}, "categories: required"},
		{"bar index", Figure{Kind: Bar, Categories: []string{"a"}, Series: []Series{{X: []float64{1}, Y: []float64{1}}}}, "series[0].x[0]: 1 is not a category index in [0, 1)"},
		{"bar duplicate", Figure{Kind: Bar, Categories: []string{"a"}, Series: []Series{{X: []float64{0, 0}, Y: []float64{1, 2}}}}, "category 0 appears twice"},
		{"bar log x", Figure{Kind: Bar, LogX: true, Categories: []string{"a"}, Series: []Series{{X: []float64{0}, Y: []float64{1}}}}, "log_x: a bar figure's x axis is its categories"},
		{"bar log y of 0", Figure{Kind: Bar, LogY: true, Categories: []string{"a"}, Series: []Series{{X: []float64{0}, Y: []float64{0}}}}, "not positive on a log axis"},
		{"categories on line", Figure{Kind: Line, Categories: []string{"a"}, Series: []Series{ok()}}, "only a bar figure has categories"},
		{"diagonal on line", Figure{Kind: Line, Diagonal: true, Series: []Series{ok()}}, "only a scatter figure has the y = x line"},
		{"interval on scatter", Figure{Kind: Scatter, Series: []Series{{X: []float64{1, 2}, Y: []float64{1, 2}, Lo: []float64{1, 2}, Hi: []float64{1, 2}}}}, "series[0]: intervals are drawn only on line, bar and time-series figures"},
		{"too many series", Figure{Kind: Line, Series: []Series{ok(), ok(), ok(), ok(), ok(), ok(), ok(), ok(), ok()}}, "9 series, at most 8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			_, err := Render(&tt.fig, filepath.Join(dir, "f"), nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("wrote %d files for an invalid figure", len(entries))
			}
		})
	}
}

// TestRenderFormats checks that only the requested formats are written and
// that an unknown format is refused.
func TestRenderFormats(t *testing.T) {
	f := sampleFigures()["timeseries"]
	base := filepath.Join(t.TempDir(), "ts")
	paths, err := Render(f, base, []string{"svg"})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 1 || paths[0] != base+".svg" {
		t.Errorf("paths = %v, want [%s.svg]", paths, base)
	}
	if _, err := Render(f, base, []string{"eps"}); err == nil || !strings.Contains(err.Error(), `unknown format "eps"`) {
		t.Errorf("err = %v, want unknown format", err)
	}
}

// TestRenderStress renders a crowded figure (the most series, long labels)
// and checks that rendering succeeds and the legend wraps.
func TestRenderStress(t *testing.T) {
	f := &Figure{Kind: Line, LogY: true, XLabel: "cluster size (GPUs)", YLabel: "mean JCT (s)"}
	for i := range MaxSeries {
		s := Series{Label: []string{"FIFO", "SJF", "EASY backfill", "Tetris packing", "Gavel heterogeneity-aware", "FGD", "genetic algorithm", "SLO-aware sharing"}[i]}
		for j, n := range []float64{64, 128, 256, 512} {
			s.X = append(s.X, n)
			s.Y = append(s.Y, 300+float64(i*40)+5000/float64(j+1))
		}
		f.Series = append(f.Series, s)
	}
	leg := legendRow{style: legendStyle()}
	for _, s := range f.Series {
		leg.entries = append(leg.entries, legendEntry{label: s.Label})
	}
	if rows, _ := leg.rows(DefaultWidth); len(rows) < 2 {
		t.Errorf("7 long legend entries fit in %d row at single-column width, want wrapping", len(rows))
	}
	if _, err := Render(f, filepath.Join(t.TempDir(), "stress"), nil); err != nil {
		t.Fatal(err)
	}
	// a crowded figure of the default height grows to keep its plot's
	// height (the legend's rows and a long note took it); a plain one does not
	f.Note = strings.Repeat("a note long enough to wrap over several lines of the figure's width; ", 6)
	w, h := f.size()
	if h <= DefaultHeight || h-f.chromeHeight(w) < minPlotHeight-vg.Points(0.01) {
		t.Errorf("crowded figure %v high, %v of it title, note and legend: want it grown past %v, its plot %v or more",
			h, f.chromeHeight(w), DefaultHeight, minPlotHeight)
	}
	plain := &Figure{Kind: Line, Series: f.Series[:2]}
	if _, h := plain.size(); h != DefaultHeight {
		t.Errorf("a figure of two series is %v high, want the default %v", h, DefaultHeight)
	}
	if _, err := Render(f, filepath.Join(t.TempDir(), "crowded"), []string{"png"}); err != nil {
		t.Fatal(err)
	}
}

// TestStyleTables checks there is a colour, marker and dash per series.
func TestStyleTables(t *testing.T) {
	if len(palette) != MaxSeries || len(glyphs) != MaxSeries || len(dashes) != MaxSeries {
		t.Errorf("palette %d, glyphs %d, dashes %d; want %d each", len(palette), len(glyphs), len(dashes), MaxSeries)
	}
}

func TestLogTicks(t *testing.T) {
	tests := []struct {
		name     string
		lo, hi   float64
		labelled []string
	}{
		{"plain decades", 1.1, 300, []string{"10", "100"}},
		{"below one", 0.05, 20, []string{"0.1", "1", "10"}},
		{"exponent form from 1e4", 2, 1e6, []string{"10", "100", "1000", "1e4", "1e5", "1e6"}},
		// a value has one label in every figure, whatever the range
		{"10000 alone", 2000, 30000, []string{"2000", "5000", "1e4", "2e4"}},
		{"10000 with smaller", 20, 20000, []string{"100", "1000", "1e4"}},
		{"under two decades labels 2 and 5", 150, 900, []string{"200", "500"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			seen := map[float64]bool{}
			for _, tk := range (logTicks{}).Ticks(tt.lo, tt.hi) {
				if seen[tk.Value] {
					t.Errorf("tick %g repeated", tk.Value)
				}
				seen[tk.Value] = true
				if tk.Value < tt.lo || tk.Value > tt.hi {
					t.Errorf("tick %g outside [%g, %g]", tk.Value, tt.lo, tt.hi)
				}
				if tk.Label != "" {
					got = append(got, tk.Label)
				}
			}
			if strings.Join(got, " ") != strings.Join(tt.labelled, " ") {
				t.Errorf("labels %q, want %q", got, tt.labelled)
			}
		})
	}
}

func TestNiceTicks(t *testing.T) {
	tests := []struct {
		lo, hi float64
		want   string
	}{
		{0.6, 1.2, "0.6 0.7 0.8 0.9 1.0 1.1 1.2"},
		{0, 29.96, "0 5 10 15 20 25"},
		{0, 1, "0.0 0.2 0.4 0.6 0.8 1.0"},
		{0, 10.4, "0 2 4 6 8 10"},
		{-1, 1, "-1.0 -0.5 0.0 0.5 1.0"},
		{0, 0.75, "0.0 0.2 0.4 0.6"},
		{0, 0.3, "0.00 0.05 0.10 0.15 0.20 0.25 0.30"},
	}
	for _, tt := range tests {
		var got []string
		for _, tk := range (niceTicks{}).Ticks(tt.lo, tt.hi) {
			got = append(got, tk.Label)
		}
		if s := strings.Join(got, " "); s != tt.want {
			t.Errorf("Ticks(%g, %g) = %q, want %q", tt.lo, tt.hi, s, tt.want)
		}
	}
}

// TestLogAxisOneValue: a log axis over one value (every job waited the
// same) is drawn a decade around it; gonum's widening by ±1 reached 0.
func TestLogAxisOneValue(t *testing.T) {
	x, y := ECDF([]float64{1, 1, 1}, 400)
	for _, f := range []*Figure{
		{Kind: CDF, LogX: true, XLabel: "wait", YLabel: "fraction of jobs", Series: []Series{{Label: "a", X: x, Y: y}}},
		{Kind: Line, LogY: true, XLabel: "load", YLabel: "mean wait", Series: []Series{{Label: "a", X: []float64{1, 2}, Y: []float64{5, 5}}}},
	} {
		if _, err := Render(f, filepath.Join(t.TempDir(), "f"), nil); err != nil {
			t.Errorf("%v: %v", f.Kind, err)
		}
	}
}

// TestScatterNames: a scatter figure's points may carry names, drawn
// beside them; names elsewhere, or not one a point, are refused.
func TestScatterNames(t *testing.T) {
	s := Series{Label: "a", X: []float64{1, 10}, Y: []float64{5, 1}, Names: []string{"FIFO", ""}}
	if _, err := Render(&Figure{Kind: Scatter, XLabel: "cost", YLabel: "jct", Series: []Series{s}}, filepath.Join(t.TempDir(), "s"), nil); err != nil {
		t.Errorf("named scatter: %v", err)
	}
	s.Names = s.Names[:1]
	if _, err := Render(&Figure{Kind: Scatter, XLabel: "cost", YLabel: "jct", Series: []Series{s}}, filepath.Join(t.TempDir(), "s"), nil); err == nil || !strings.Contains(err.Error(), "1 names for 2 points") {
		t.Errorf("one name for two points: %v", err)
	}
	s.Names = []string{"a", "b"}
	if _, err := Render(&Figure{Kind: Line, XLabel: "load", YLabel: "jct", Series: []Series{s}}, filepath.Join(t.TempDir(), "s"), nil); err == nil {
		t.Error("names on a line figure: no error")
	}
}

// TestLinearAxisOneValue: a linear Y axis over one value starts at 0,
// not at the value less 1 (a queue empty throughout drew -1 to 1).
func TestLinearAxisOneValue(t *testing.T) {
	for _, v := range []float64{0, 3} {
		f := &Figure{Kind: TimeSeries, XLabel: "time (s)", YLabel: "queued jobs", Series: []Series{{Label: "a", X: []float64{0, 10}, Y: []float64{v, v}}}}
		p, _, err := f.plot()
		if err != nil {
			t.Fatal(err)
		}
		if p.Y.Min != 0 || !(p.Y.Max > v) {
			t.Errorf("all %v: y axis [%v, %v], want from 0 above %v", v, p.Y.Min, p.Y.Max, v)
		}
	}
}
