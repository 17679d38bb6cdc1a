// Package figures renders the figures of an experiment — a metric against a
// sweep axis, CDFs, time series, grouped bars and scatter plots — as publication-quality
// PNG (300 dpi), PDF and SVG files, using gonum/plot.
//
// Every figure kind shares one style, chosen for a single-column paper figure
// (3.5 in × 2.6 in by default, taller where a long legend or note would
// leave the plot under 1.7 in): Liberation Sans (metric-compatible with
// Helvetica/Arial) at 8 pt for ticks and legend and 9 pt for axis labels,
// the colour-blind-safe Okabe–Ito palette, a distinct marker per series on
// line plots, light grey major grid lines, and the legend in a row above the
// data so that it never covers it.
//
// Series are styled by their position in [Figure.Series]: the i-th series
// always gets the i-th colour, marker and dash pattern, whatever the figure
// kind. Callers that want one scheduler to look the same in every figure of a
// paper must therefore pass the series in a stable order (for example the
// order of the schedulers in the experiment config), not in map order or
// sorted by result.
//
// Input is checked, never repaired: NaN and ±Inf values, mismatched lengths
// and non-positive values on a log axis are errors.
//
// Output is deterministic: rendering the same Figure twice gives
// byte-identical PNG, SVG and PDF files (the PDF creation and modification
// dates, which the PDF library takes from the clock, are fixed to
// 2000-01-01).
package figures

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/wb-sim/wb/internal/atomicfile"
)

// Kind is the type of a figure.
type Kind string

// The figure kinds.
const (
	// Line plots a metric against a sweep axis (offered load, cluster
	// size, …): lines with a marker at every point, and error bars where
	// the series has Err.
	Line Kind = "line"
	// CDF plots empirical CDFs as step lines; Y must lie in [0, 1]. Build
	// the points with [ECDF].
	CDF Kind = "cdf"
	// TimeSeries plots many-point series as plain lines, without markers.
	TimeSeries Kind = "timeseries"
	// Bar plots grouped bars: one group per category, one bar per series,
	// with error bars where the series has Err. The X values of a series
	// are indices into [Figure.Categories].
	Bar Kind = "bar"
	// Scatter plots every point as a small marker, unjoined: predicted
	// against measured, one series per model. [Figure.Diagonal] adds the
	// y = x line.
	Scatter Kind = "scatter"
)

// Series is one line, curve or group of bars of a figure.
type Series struct {
	// Label names the series in the legend; series with an empty label
	// get no legend entry.
	Label string
	// X and Y are the points, of equal length.
	X, Y []float64
	// Lo and Hi, when set, are the ends of an interval at each point (for
	// example [MeanCI]'s), of the length of Y, with Lo ≤ Y ≤ Hi. Line and
	// Bar figures draw them as error bars (an interval of no width is not
	// drawn), TimeSeries figures as a translucent band.
	Lo, Hi []float64
	// Names, when set on a Scatter figure's series, are written beside its
	// points ("" for none), of the length of X: which scheduler a point
	// is, where the legend names only the series.
	Names []string
}

// Figure describes one figure. The zero values of the optional fields are
// documented defaults.
type Figure struct {
	Kind Kind
	// Title is drawn above the plot; leave it empty for paper figures,
	// whose caption is the title.
	Title string
	// XLabel and YLabel name the axes, with units: "offered load (× trace)",
	// "mean bounded slowdown", "wait (s)".
	XLabel, YLabel string
	// LogX and LogY make an axis logarithmic; every value on it (and, on
	// a log Y axis, every error bar's lower end) must then be positive.
	// Bar figures support neither.
	LogX, LogY bool
	// Categories are the X tick labels of a Bar figure, required there
	// and refused elsewhere.
	Categories []string
	// Series are drawn in order, the i-th with the i-th style; see the
	// package documentation. At most MaxSeries series.
	Series []Series
	// Note is a line of small text under the figure saying what is drawn
	// ("mean and 95% bootstrap CI over 5 replicas", "replica 0 of 5").
	Note string
	// YRange, when set, is where the metric can lie ({1, +Inf} for a
	// bounded slowdown, {0, 1} for a utilisation): a value or interval
	// end outside it is an error.
	YRange *[2]float64
	// Diagonal draws the line y = x across the data's range, in grey:
	// the perfect prediction of a predicted-vs-measured scatter. Scatter
	// figures only.
	Diagonal bool
	// MarkerPt is the radius of a Scatter figure's markers, in points;
	// default 1.2 (for many points; a handful reads better at 3).
	MarkerPt float64
	// Width and Height are the size of the figure; zero means a
	// single-column paper figure, 3.5 in × 2.6 in, its height grown where
	// the title, note and legend would leave the plot less than
	// minPlotHeight (1.7 in).
	Width, Height vg.Length
}

// Default figure size: one column of a two-column paper.
const (
	DefaultWidth  = 3.5 * vg.Inch
	DefaultHeight = 2.6 * vg.Inch
)

// DPI is the resolution of PNG output.
const DPI = 300

// Formats returns the output formats Render knows, in the order it writes
// them by default: png, pdf, svg.
func Formats() []string { return []string{"png", "pdf", "svg"} }

// fixedPDFDate is the creation and modification date written into every
// PDF, so that PDF output is reproducible to the byte.
var fixedPDFDate = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// Render draws f and writes it to base+".png", base+".pdf" and base+".svg",
// or to the formats listed (a subset of [Formats]; nil means all three). It
// returns the paths written, in the order of formats.
//
// f is validated first and nothing is written when it is invalid. Each file
// is written atomically: to a temporary file in the same directory, then
// renamed, so that an interrupted run leaves no half-written figure.
func Render(f *Figure, base string, formats []string) ([]string, error) {
	known := Formats()
	if formats == nil {
		formats = known
	}
	for _, ext := range formats {
		if !slices.Contains(known, ext) {
			return nil, fmt.Errorf("figures: unknown format %q (known: %s)", ext, strings.Join(known, ", "))
		}
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	w, h := f.size()
	var paths []string
	for _, ext := range formats {
		data, err := f.encode(ext, w, h)
		if err != nil {
			return paths, fmt.Errorf("figures: %s: %w", base+"."+ext, err)
		}
		path := base + "." + ext
		if err := writeAtomic(path, data); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// MaxSeries is the number of distinct series styles (the Okabe–Ito palette
// without its yellow, which is unreadable as a line on white, and a grey).
const MaxSeries = 8

// Validate reports every problem with f, joined with errors.Join, each with
// the path of the offending field (series[1].y[4]: NaN). Render calls it.
func (f *Figure) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("figures: "+format, args...))
	}
	switch f.Kind {
	case Line, CDF, TimeSeries, Bar, Scatter:
	default:
		bad("kind: unknown %q (known: %s, %s, %s, %s, %s)", f.Kind, Line, CDF, TimeSeries, Bar, Scatter)
	}
	if f.Diagonal && f.Kind != Scatter {
		bad("diagonal: only a scatter figure has the y = x line")
	}
	if len(f.Series) == 0 {
		bad("series: none")
	}
	if len(f.Series) > MaxSeries {
		bad("series: %d series, at most %d have distinct styles", len(f.Series), MaxSeries)
	}
	if f.Width < 0 || f.Height < 0 {
		bad("size: negative width or height")
	}
	if f.Kind == Bar {
		if len(f.Categories) == 0 {
			bad("categories: required for a bar figure")
		}
		if f.LogX {
			bad("log_x: a bar figure's x axis is its categories")
		}
	} else if len(f.Categories) > 0 {
		bad("categories: only a bar figure has categories")
	}
	for i, s := range f.Series {
		p := fmt.Sprintf("series[%d]", i)
		if len(s.X) != len(s.Y) {
			bad("%s: %d x values but %d y values", p, len(s.X), len(s.Y))
			continue
		}
		if len(s.Y) == 0 {
			bad("%s: no points", p)
		}
		if s.Names != nil && (f.Kind != Scatter || len(s.Names) != len(s.X)) {
			bad("%s: %d names for %d points (names are for scatter figures, one a point)", p, len(s.Names), len(s.X))
		}
		hasCI := s.Lo != nil || s.Hi != nil
		if hasCI {
			if f.Kind != Line && f.Kind != Bar && f.Kind != TimeSeries {
				bad("%s: intervals are drawn only on line, bar and time-series figures", p)
			} else if len(s.Lo) != len(s.Y) || len(s.Hi) != len(s.Y) {
				bad("%s: %d and %d interval ends for %d points", p, len(s.Lo), len(s.Hi), len(s.Y))
				hasCI = false
			}
		}
		for j := range s.Y {
			x, y := s.X[j], s.Y[j]
			if err := plotter.CheckFloats(x); err != nil {
				bad("%s.x[%d] = %g: %v", p, j, x, err)
			} else if f.LogX && x <= 0 {
				bad("%s.x[%d]: %g is not positive on a log axis", p, j, x)
			}
			if err := plotter.CheckFloats(y); err != nil {
				bad("%s.y[%d] = %g: %v", p, j, y, err)
			} else if f.LogY && y <= 0 {
				bad("%s.y[%d]: %g is not positive on a log axis", p, j, y)
			}
			if f.Kind == CDF && (y < 0 || y > 1) {
				bad("%s.y[%d]: %g is outside [0, 1] on a CDF", p, j, y)
			}
			if f.Kind == Bar && (x != math.Trunc(x) || x < 0 || int(x) >= len(f.Categories)) {
				bad("%s.x[%d]: %g is not a category index in [0, %d)", p, j, x, len(f.Categories))
			}
			if f.YRange != nil && (y < f.YRange[0] || y > f.YRange[1]) {
				bad("%s.y[%d]: %g is outside the metric's range [%g, %g]", p, j, y, f.YRange[0], f.YRange[1])
			}
			if hasCI {
				lo, hi := s.Lo[j], s.Hi[j]
				switch {
				case plotter.CheckFloats(lo, hi) != nil:
					bad("%s interval %d: [%g, %g] is not finite", p, j, lo, hi)
				case !(lo <= y && y <= hi):
					bad("%s interval %d: [%g, %g] does not hold the point's %g", p, j, lo, hi, y)
				case f.LogY && lo <= 0:
					bad("%s interval %d: reaches %g, not positive on a log axis", p, j, lo)
				case f.YRange != nil && (lo < f.YRange[0] || hi > f.YRange[1]):
					bad("%s interval %d: [%g, %g] leaves the metric's range [%g, %g]", p, j, lo, hi, f.YRange[0], f.YRange[1])
				}
			}
		}
		if f.Kind == Bar {
			seen := map[float64]bool{}
			for j, x := range s.X {
				if seen[x] {
					bad("%s.x[%d]: category %g appears twice", p, j, x)
				}
				seen[x] = true
			}
		}
	}
	return errors.Join(errs...)
}

func (f *Figure) size() (w, h vg.Length) {
	w, h = f.Width, f.Height
	if w == 0 {
		w = DefaultWidth
	}
	if h == 0 {
		// a default height grows where the title, note and legend would
		// leave the plot less than minPlotHeight (a legend of many rows, a
		// long note), so that the data area keeps its height
		h = max(DefaultHeight, f.chromeHeight(w)+minPlotHeight)
	}
	return w, h
}

// minPlotHeight is the least height a figure of the default height keeps
// for its plot (axes, their labels and the data area) below its title,
// note and legend.
const minPlotHeight = 1.7 * vg.Inch

// chromeHeight is the height the title, the note and the legend take on a
// canvas of width w, as draw lays them out (0 where the figure cannot be
// plotted: Render's draw says why).
func (f *Figure) chromeHeight(w vg.Length) vg.Length {
	_, entries, err := f.plot()
	if err != nil {
		return 0
	}
	var h vg.Length
	if f.Title != "" {
		h += textStyle(titleFontSize).Height(f.Title) + vg.Points(labelGap)
	}
	if f.Note != "" {
		sty := textStyle(tickFontSize)
		lines := wrap(f.Note, func(s string) vg.Length { return sty.Width(s) }, w-vg.Points(4))
		h += vg.Length(len(lines))*sty.Height("A") + vg.Points(2)
	}
	leg := legendRow{entries: entries, style: legendStyle()}
	return h + leg.height(w)
}

// encode draws f on a fresh canvas of the format ext and returns the file.
func (f *Figure) encode(ext string, w, h vg.Length) (data []byte, err error) {
	// gonum/plot reports some drawing failures by panicking; turn them
	// into errors with the figure's context.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("drawing: %v", r)
		}
	}()
	var c vg.CanvasWriterTo
	switch ext {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(DPI))}
	case "pdf":
		c = vgpdf.New(w, h)
	case "svg":
		c = vgsvg.New(w, h)
	}
	if err := f.draw(draw.New(c)); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	data = buf.Bytes()
	switch ext {
	case "png":
		data, err = setPNGDensity(data, DPI)
	case "pdf":
		data, err = fixPDFDates(data, fixedPDFDate)
	case "svg":
		// The SVG names its font without embedding it (that would add
		// ~0.5 MB); fall back to the metric-compatible Arial/Helvetica so
		// that text keeps the width it was laid out with.
		data = bytes.ReplaceAll(data, []byte("font-family:Liberation Sans;"),
			[]byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
	}
	return data, err
}

// draw draws the figure on c: the legend in a row at the top, the plot below.
//
// The axis labels are drawn here rather than by gonum/plot, which centres a
// label's layout box on the arithmetic mean of the axis range; on a log axis
// that box sticks out of the plot and gonum/plot shrinks the data area to
// make room for it (plot v0.17, axis.go GlyphBoxes). Here the labels are
// centred on the data area whatever the scale.
func (f *Figure) draw(c draw.Canvas) error {
	p, entries, err := f.plot()
	if err != nil {
		return err
	}
	c.FillPolygon(color.White, []vg.Point{ // opaque background in every format
		c.Min, {X: c.Min.X, Y: c.Max.Y}, c.Max, {X: c.Max.X, Y: c.Min.Y},
	})
	if f.Title != "" {
		sty := textStyle(titleFontSize)
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
		c.FillText(sty, vg.Point{X: c.Center().X, Y: c.Max.Y}, f.Title)
		c = draw.Crop(c, 0, 0, 0, -sty.Height(f.Title)-vg.Points(labelGap))
	}
	if f.Note != "" {
		sty := textStyle(tickFontSize)
		sty.Color = noteColor
		sty.XAlign, sty.YAlign = draw.XLeft, draw.YBottom
		lines := wrap(f.Note, func(s string) vg.Length { return sty.Width(s) }, c.Max.X-c.Min.X-vg.Points(4))
		h := sty.Height("A")
		for i := range lines {
			c.FillText(sty, vg.Point{X: c.Min.X + vg.Points(2), Y: c.Min.Y + vg.Points(1) + vg.Length(len(lines)-1-i)*h}, lines[i])
		}
		c = draw.Crop(c, 0, 0, vg.Length(len(lines))*h+vg.Points(2), 0)
	}
	leg := legendRow{entries: entries, style: legendStyle()}
	if lh := leg.height(c.Max.X - c.Min.X); lh > 0 {
		leg.draw(draw.Crop(c, 0, 0, c.Max.Y-c.Min.Y-lh, 0))
		c = draw.Crop(c, 0, 0, 0, -lh)
	}

	label := textStyle(labelFontSize)
	var left, bottom vg.Length
	if f.XLabel != "" {
		bottom = label.Height(f.XLabel) + vg.Points(labelGap)
	}
	// A Y label longer than the room beside the plot goes on as many lines
	// as it takes: centred on the data area (whose bottom is about two
	// tick labels above the X label), it may reach past the data area, not
	// past the canvas below the legend.
	top := p.Y.Tick.Label.Height("0")/2 + vg.Points(2) // room for the top Y tick label
	var ylines []string
	if f.YLabel != "" {
		mid := (c.Min.Y + bottom + 2*p.X.Tick.Label.Height("0") + c.Max.Y - top) / 2
		avail := 2 * min(mid-c.Min.Y, c.Max.Y-mid)
		ylines = []string{f.YLabel}
		if label.Width(f.YLabel) > avail {
			ylines = wrap(f.YLabel, func(s string) vg.Length { return label.Width(s) }, avail)
		}
		left = vg.Length(len(ylines))*label.Height(f.YLabel) + vg.Points(labelGap)
	}
	// Room on the right for the half of the last X tick label that sticks
	// out past the data area (below the legend, top, for the top Y tick
	// label).
	right := vg.Points(2)
	tickSty := p.X.Tick.Label
	for _, t := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		if t.Label != "" && p.X.Norm(t.Value) > 0.97 {
			right = max(right, tickSty.Width(t.Label)/2+vg.Points(1))
		}
	}
	pc := draw.Crop(c, left, -right, bottom+vg.Points(2), -top)
	p.Draw(pc)
	data := p.DataCanvas(pc)
	if f.YLabel != "" {
		sty := label
		sty.Rotation = math.Pi / 2
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
		for i, line := range ylines {
			c.FillText(sty, vg.Point{X: c.Min.X + vg.Length(i)*label.Height(f.YLabel), Y: data.Center().Y}, line)
		}
	}
	if f.XLabel != "" {
		sty := label
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YBottom
		c.FillText(sty, vg.Point{X: data.Center().X, Y: c.Min.Y + vg.Points(2)}, f.XLabel)
	}
	return nil
}

// writeAtomic writes data to path through a temporary file in the same
// directory and a rename.
func writeAtomic(path string, data []byte) error {
	// (a figure can be drawn again: no sync; an error names the figure,
	// not the temporary file, whose name the user never gave)
	return atomicfile.WriteUnsynced(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

var pdfDateRE = regexp.MustCompile(`/(CreationDate|ModDate) \(D:\d{14}\)`)

// fixPDFDates replaces the clock-derived dates of the PDF's info dictionary
// by t. The replacement has the same length, so the cross-reference offsets
// stay valid.
func fixPDFDates(pdf []byte, t time.Time) ([]byte, error) {
	if n := len(pdfDateRE.FindAllIndex(pdf, -1)); n != 2 {
		return nil, fmt.Errorf("pdf: found %d of the 2 date entries to make reproducible", n)
	}
	stamp := t.UTC().Format("20060102150405")
	return pdfDateRE.ReplaceAllFunc(pdf, func(m []byte) []byte {
		return fmt.Appendf(nil, "/%s (D:%s)", pdfDateRE.FindSubmatch(m)[1], stamp)
	}), nil
}

// wrap cuts text into lines no wider than width at spaces (a word wider
// than width gets a line of its own).
func wrap(text string, widthOf func(string) vg.Length, width vg.Length) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		next := w
		if line != "" {
			next = line + " " + w
		}
		if line != "" && widthOf(next) > width {
			lines = append(lines, line)
			next = w
		}
		line = next
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
