package figures

import (
	"cmp"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// plot builds the gonum plot of a validated figure and its legend entries.
func (f *Figure) plot() (*plot.Plot, []legendEntry, error) {
	p := plot.New()
	p.BackgroundColor = nil // the canvas is filled white first
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		// Only the font changes: plot.New set the alignments. The axis
		// labels are drawn by Figure.draw.
		a.Tick.Label.Font = font.From(sans, tickFontSize)
		a.Tick.Marker = niceTicks{}
		a.Tick.Length = vg.Points(3)
		a.Tick.LineStyle.Width = vg.Points(0.5)
		a.LineStyle.Width = vg.Points(0.5)
		a.Padding = vg.Points(2)
	}
	if f.LogX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicks{}
	}
	if f.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
	}

	grid := plotter.NewGrid()
	grid.Vertical.Color = gridColor
	grid.Vertical.Width = vg.Points(0.4)
	grid.Horizontal.Color = gridColor
	grid.Horizontal.Width = vg.Points(0.4)
	if f.Kind == Bar {
		grid.Vertical.Color = nil // lines between bar groups are clutter
	}
	p.Add(grid)

	var entries []legendEntry
	add := func(s Series, thumbs ...plot.Thumbnailer) {
		if s.Label != "" {
			entries = append(entries, legendEntry{label: s.Label, thumbs: thumbs})
		}
	}
	switch f.Kind {
	case Line:
		for i, s := range f.Series {
			xys := xyPoints(s)
			l, sc, err := plotter.NewLinePoints(xys)
			if err != nil {
				return nil, nil, err
			}
			l.LineStyle = draw.LineStyle{Color: palette[i], Width: lineWidth}
			sc.GlyphStyle = draw.GlyphStyle{Color: palette[i], Radius: vg.Points(2.2), Shape: glyphs[i]}
			var eb *plotter.YErrorBars
			if hasWidth(s) {
				eb, err = plotter.NewYErrorBars(errPoints{xys, s.Lo, s.Hi})
				if err != nil {
					return nil, nil, err
				}
				eb.LineStyle = draw.LineStyle{Color: palette[i], Width: vg.Points(0.75)}
				eb.CapWidth = vg.Points(4)
			}
			if dodge := lineDodge(f.Series, i); dodge != 0 {
				p.Add(dodged{eb: eb, l: l, sc: sc, dx: dodge})
			} else {
				if eb != nil {
					p.Add(eb)
				}
				p.Add(l, sc)
			}
			add(s, l, sc)
		}
	case CDF, TimeSeries:
		for i, s := range f.Series {
			if hasWidth(s) {
				band, err := plotter.NewPolygon(bandPoints(s))
				if err != nil {
					return nil, nil, err
				}
				r, g, b, _ := palette[i].RGBA()
				band.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 0x40}
				band.LineStyle.Width = 0
				p.Add(band)
			}
			l, err := plotter.NewLine(xyPoints(s))
			if err != nil {
				return nil, nil, err
			}
			l.LineStyle = draw.LineStyle{Color: palette[i], Width: lineWidth}
			if f.Kind == CDF {
				l.StepStyle = plotter.PostStep
				l.LineStyle.Dashes = dashes[i]
			} else {
				l.LineStyle.Width = vg.Points(0.75)
			}
			p.Add(l)
			add(s, l)
		}
		if f.Kind == CDF {
			p.Y.Min, p.Y.Max = 0, 1
		}
	case Scatter:
		lo, hi := math.Inf(1), math.Inf(-1)
		var names []int // the series whose points carry names
		for i, s := range f.Series {
			sc, err := plotter.NewScatter(xyPoints(s))
			if err != nil {
				return nil, nil, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: palette[i], Radius: vg.Points(cmp.Or(f.MarkerPt, 1.2)), Shape: glyphs[i]}
			p.Add(sc)
			add(s, sc)
			if slices.ContainsFunc(s.Names, func(n string) bool { return n != "" }) {
				names = append(names, i)
			}
			for j := range s.X {
				lo = min(lo, s.X[j], s.Y[j])
				hi = max(hi, s.X[j], s.Y[j])
			}
		}
		if err := addNames(p, f, names); err != nil {
			return nil, nil, err
		}
		if f.Diagonal && lo < hi {
			d, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}})
			if err != nil {
				return nil, nil, err
			}
			d.LineStyle = draw.LineStyle{Color: color.Gray{Y: 0x70}, Width: vg.Points(0.75), Dashes: []vg.Length{vg.Points(3), vg.Points(2)}}
			p.Add(d)
		}
	case Bar:
		n := len(f.Series)
		const groupWidth = 0.8 // of the unit spacing between categories
		w := groupWidth / float64(n)
		base := 0.0
		if f.LogY {
			base = logBase(f.Series)
		}
		for i, s := range f.Series {
			b := &bars{
				series: s,
				offset: -groupWidth/2 + (float64(i)+0.5)*w,
				width:  w,
				fill:   palette[i],
				base:   base,
			}
			p.Add(b)
			add(s, b)
		}
		ticks := make([]plot.Tick, len(f.Categories))
		for i, c := range f.Categories {
			ticks[i] = plot.Tick{Value: float64(i), Label: c}
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		p.X.Tick.Length = 0
		p.X.Min, p.X.Max = -0.5, float64(len(f.Categories))-0.5
		p.Y.Min = base
		p.Y.Padding = 0
		p.X.Padding = 0
	}
	// A log axis over one value (every wait the same) gets a decade around
	// it: gonum widens an empty range by ±1, which reaches 0 from 1.
	for _, a := range []struct {
		log bool
		ax  *plot.Axis
	}{{f.LogX, &p.X}, {f.LogY, &p.Y}} {
		if a.log && a.ax.Min == a.ax.Max && a.ax.Min > 0 {
			a.ax.Min, a.ax.Max = a.ax.Min/math.Sqrt(10), a.ax.Max*math.Sqrt(10)
		}
	}
	// A linear Y axis over one value (a queue empty throughout, bars all 0)
	// starts at 0: gonum widens an empty range by ±1, below 0 for counts
	// and shares that cannot be negative.
	if !f.LogY && f.Kind != CDF && p.Y.Min == p.Y.Max {
		switch v := p.Y.Min; {
		case v > 0:
			p.Y.Min, p.Y.Max = 0, 2*v
		case v < 0:
			p.Y.Min, p.Y.Max = 2*v, 0
		default:
			p.Y.Min, p.Y.Max = 0, 1
		}
	}
	// Leave a little headroom above the data on linear Y axes so that the
	// highest point or error bar does not sit on the frame.
	if f.Kind != CDF && !f.LogY {
		p.Y.Max += 0.04 * (p.Y.Max - p.Y.Min)
	}
	return p, entries, nil
}

// addNames writes the names of the points of f's series names beside
// them, in each series' colour: right of a point in the left half of the
// x axis's span, left of one in the right half, so that none runs off the
// plot. Where that name would cover another point's marker or a name
// already written, it goes on the side (of six: a little up or down,
// right or left, above, below) that covers the least of them within the
// room the plot keeps for names, so that a name does not sit on a
// neighbour it does not name (a reviewer's find: EASY's name drawn on
// FIFO's marker).
func addNames(p *plot.Plot, f *Figure, names []int) error {
	if len(names) == 0 {
		return nil
	}
	pos := func(x float64) float64 { // where x lies on the axis's scale
		if f.LogX {
			return math.Log(x)
		}
		return x
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	ns := &pointNames{radius: vg.Points(cmp.Or(f.MarkerPt, 1.2))}
	for _, s := range f.Series {
		for k, x := range s.X {
			lo, hi = min(lo, pos(x)), max(hi, pos(x))
			ns.marks = append(ns.marks, plotter.XY{X: x, Y: s.Y[k]})
		}
	}
	mid := (lo + hi) / 2
	for _, i := range names {
		s := f.Series[i]
		sty := text.Style{Font: font.From(sans, tickFontSize-1), Color: palette[i], Handler: plot.DefaultTextHandler}
		for k, n := range s.Names {
			if n != "" {
				ns.xys = append(ns.xys, plotter.XY{X: s.X[k], Y: s.Y[k]})
				ns.names = append(ns.names, n)
				ns.left = append(ns.left, pos(s.X[k]) > mid)
				ns.styles = append(ns.styles, sty)
			}
		}
	}
	p.Add(ns)
	return nil
}

// pointNames draws names beside points (see addNames).
type pointNames struct {
	xys    plotter.XYs
	names  []string
	left   []bool // the name goes left of its point first
	styles []text.Style
	marks  plotter.XYs // every marker of the figure
	radius vg.Length   // a marker's
}

// nameSpot is one side of a point a name may take: its offset (in points)
// from the point and the text's alignment there.
type nameSpot struct {
	dx, dy float64
	xa     text.XAlignment
	ya     text.YAlignment
	spaced bool // the offset grows with the marker (above and below)
}

// The sides tried, in order, the first the one drawn where nothing is in
// the way: right (left) of the point a little up, the same a little down,
// above, below, the other side up and down.
var (
	rightSpots = []nameSpot{
		{5, 2, text.XLeft, text.YBottom, false}, {5, -2, text.XLeft, text.YTop, false},
		{0, 2, text.XCenter, text.YBottom, true}, {0, -2, text.XCenter, text.YTop, true},
		{-5, 2, text.XRight, text.YBottom, false}, {-5, -2, text.XRight, text.YTop, false},
	}
	leftSpots = []nameSpot{rightSpots[4], rightSpots[5], rightSpots[2], rightSpots[3], rightSpots[0], rightSpots[1]}
)

// spots are the sides name i tries, in order.
func (l *pointNames) spots(i int) []nameSpot {
	if l.left[i] {
		return leftSpots
	}
	return rightSpots
}

// at is the text's anchor and style for name i at spot sp beside pt, and
// the rectangle the name covers.
func (l *pointNames) at(i int, sp nameSpot, pt vg.Point) (vg.Point, text.Style, vg.Rectangle) {
	off := vg.Point{X: vg.Points(sp.dx), Y: vg.Points(sp.dy)}
	if sp.spaced {
		off.Y += vg.Length(math.Copysign(float64(l.radius), sp.dy))
	}
	sty := l.styles[i]
	sty.XAlign, sty.YAlign = sp.xa, sp.ya
	a := pt.Add(off)
	return a, sty, sty.Rectangle(l.names[i]).Add(a)
}

// overlap is the area two rectangles share.
func overlap(a, b vg.Rectangle) float64 {
	w := min(a.Max.X, b.Max.X) - max(a.Min.X, b.Min.X)
	h := min(a.Max.Y, b.Max.Y) - max(a.Min.Y, b.Min.Y)
	if w <= 0 || h <= 0 {
		return 0
	}
	return float64(w) * float64(h)
}

// Plot implements plot.Plotter.
func (l *pointNames) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	pt := func(xy plotter.XY) vg.Point { return vg.Point{X: trX(xy.X), Y: trY(xy.Y)} }
	// the room for names: the data's, and what the plot's padding keeps
	// for each name on its first side
	room := c.Rectangle
	for i := range l.names {
		if q := pt(l.xys[i]); c.Contains(q) {
			_, _, r := l.at(i, l.spots(i)[0], q)
			room = vg.Rectangle{Min: vg.Point{X: min(room.Min.X, r.Min.X), Y: min(room.Min.Y, r.Min.Y)},
				Max: vg.Point{X: max(room.Max.X, r.Max.X), Y: max(room.Max.Y, r.Max.Y)}}
		}
	}
	var marks []vg.Rectangle
	pad := l.radius + vg.Points(2) // (a name kept clear of a neighbour, not only off it)
	for _, m := range l.marks {
		q := pt(m)
		marks = append(marks, vg.Rectangle{Min: vg.Point{X: q.X - pad, Y: q.Y - pad}, Max: vg.Point{X: q.X + pad, Y: q.Y + pad}})
	}
	// the highest point's name first, so that names of points close
	// together stack as their points do (the upper one's name up, the
	// lower one's down)
	order := make([]int, len(l.names))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		qa, qb := pt(l.xys[a]), pt(l.xys[b])
		return cmp.Or(cmp.Compare(qb.Y, qa.Y), cmp.Compare(qa.X, qb.X))
	})
	var written []vg.Rectangle
	for _, i := range order {
		name := l.names[i]
		q := pt(l.xys[i])
		if !c.Contains(q) {
			continue
		}
		// the cost of a side: what it covers of other markers and names,
		// and (far dearer) what lies outside the room
		cost := func(r vg.Rectangle) float64 {
			v := float64(r.Size().X*r.Size().Y) - overlap(r, room)
			v *= 100
			for k, m := range marks {
				if l.marks[k] != l.xys[i] {
					v += overlap(r, m)
				}
			}
			for _, w := range written {
				v += overlap(r, w)
			}
			return v
		}
		var best vg.Point
		var bestSty text.Style
		var bestRect vg.Rectangle
		least := math.Inf(1)
		for _, sp := range l.spots(i) {
			a, sty, r := l.at(i, sp, q)
			if v := cost(r); v < least {
				best, bestSty, bestRect, least = a, sty, r, v
			}
			if least == 0 {
				break
			}
		}
		written = append(written, bestRect)
		c.FillText(bestSty, best, name)
	}
}

// DataRange implements plot.DataRanger.
func (l *pointNames) DataRange() (xmin, xmax, ymin, ymax float64) {
	return plotter.XYRange(l.xys)
}

// GlyphBoxes implements plot.GlyphBoxer: each name on its first side, for
// which the plot's padding keeps room.
func (l *pointNames) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	bs := make([]plot.GlyphBox, len(l.names))
	for i := range l.names {
		_, _, r := l.at(i, l.spots(i)[0], vg.Point{})
		bs[i] = plot.GlyphBox{X: p.X.Norm(l.xys[i].X), Y: p.Y.Norm(l.xys[i].Y), Rectangle: r}
	}
	return bs
}

func xyPoints(s Series) plotter.XYs {
	xys := make(plotter.XYs, len(s.X))
	for i := range s.X {
		xys[i] = plotter.XY{X: s.X[i], Y: s.Y[i]}
	}
	return xys
}

// errPoints gives points their intervals as Y errors, for
// plotter.NewYErrorBars.
type errPoints struct {
	plotter.XYs
	lo, hi []float64
}

func (e errPoints) YError(i int) (float64, float64) {
	return e.XYs[i].Y - e.lo[i], e.hi[i] - e.XYs[i].Y
}

// bandPoints is the outline of s's band: the upper ends left to right,
// then the lower ends back.
func bandPoints(s Series) plotter.XYs {
	n := len(s.X)
	out := make(plotter.XYs, 0, 2*n)
	for j := range n {
		out = append(out, plotter.XY{X: s.X[j], Y: s.Hi[j]})
	}
	for j := n - 1; j >= 0; j-- {
		out = append(out, plotter.XY{X: s.X[j], Y: s.Lo[j]})
	}
	return out
}

// hasWidth reports whether any interval of s has a width to draw.
func hasWidth(s Series) bool {
	for j := range s.Lo {
		if s.Hi[j] > s.Lo[j] {
			return true
		}
	}
	return false
}

// bars draws one series of a grouped bar chart, in data units, with
// optional error bars.
type bars struct {
	series Series
	offset float64 // of the bar centre from the category, in category units
	width  float64 // in category units
	fill   color.Color
	base   float64 // where the bars start: 0, or on a log axis logBase's
}

// logBase is where bars start on a log Y axis, which has no 0: the
// largest power of ten at or below every value and interval end of
// series, so that a bar's height still grows with its value and the
// smallest one is a bar, not a sliver (all positive: Validate sees to it).
func logBase(series []Series) float64 {
	lo := math.Inf(1)
	for _, s := range series {
		for j := range s.Y {
			lo = min(lo, s.Y[j])
			if s.Lo != nil {
				lo = min(lo, s.Lo[j])
			}
		}
	}
	if !(lo > 0) || math.IsInf(lo, 1) {
		return 1
	}
	b := math.Pow(10, math.Floor(math.Log10(lo)))
	if b == lo { // a value on the base would have no bar at all
		b /= 10
	}
	return b
}

var (
	_ plot.Plotter     = (*bars)(nil)
	_ plot.DataRanger  = (*bars)(nil)
	_ plot.Thumbnailer = (*bars)(nil)
)

var barOutline = draw.LineStyle{Color: color.Black, Width: vg.Points(0.5)}

func (b *bars) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	s := b.series
	for j := range s.X {
		x := s.X[j] + b.offset
		x0, x1 := trX(x-b.width/2), trX(x+b.width/2)
		y0, y1 := trY(b.base), trY(s.Y[j])
		rect := []vg.Point{{X: x0, Y: y0}, {X: x0, Y: y1}, {X: x1, Y: y1}, {X: x1, Y: y0}}
		c.FillPolygon(b.fill, c.ClipPolygonY(rect))
		c.StrokeLines(barOutline, c.ClipLinesY(append(rect, rect[0]))...)
	}
	if !hasWidth(s) {
		return
	}
	// Black error bars on a thin white halo, visible on every fill
	// including the black of the first series.
	halo := draw.LineStyle{Color: color.White, Width: vg.Points(1.75)}
	errStyle := draw.LineStyle{Color: color.Black, Width: vg.Points(0.75)}
	capw := min(vg.Points(4), (trX(b.width)-trX(0))*0.6)
	for _, sty := range []draw.LineStyle{halo, errStyle} {
		for j := range s.X {
			if s.Hi[j] == s.Lo[j] {
				continue
			}
			x := trX(s.X[j] + b.offset)
			lo, hi := trY(s.Lo[j]), trY(s.Hi[j])
			c.StrokeLines(sty, c.ClipLinesY(
				[]vg.Point{{X: x, Y: lo}, {X: x, Y: hi}},
				[]vg.Point{{X: x - capw/2, Y: lo}, {X: x + capw/2, Y: lo}},
				[]vg.Point{{X: x - capw/2, Y: hi}, {X: x + capw/2, Y: hi}},
			)...)
		}
	}
}

func (b *bars) DataRange() (xmin, xmax, ymin, ymax float64) {
	s := b.series
	xmin, xmax = math.Inf(1), math.Inf(-1)
	ymin, ymax = b.base, b.base
	for j := range s.X {
		x := s.X[j] + b.offset
		xmin = math.Min(xmin, x-b.width/2)
		xmax = math.Max(xmax, x+b.width/2)
		lo, hi := s.Y[j], s.Y[j]
		if s.Lo != nil {
			lo, hi = s.Lo[j], s.Hi[j]
		}
		ymin = math.Min(ymin, lo)
		ymax = math.Max(ymax, hi)
	}
	return xmin, xmax, ymin, ymax
}

func (b *bars) Thumbnail(c *draw.Canvas) {
	h := c.Max.Y - c.Min.Y
	side := h * 0.8
	x0 := c.Min.X + (c.Max.X-c.Min.X-side)/2
	y0 := c.Min.Y + (h-side)/2
	rect := []vg.Point{{X: x0, Y: y0}, {X: x0, Y: y0 + side}, {X: x0 + side, Y: y0 + side}, {X: x0 + side, Y: y0}}
	c.FillPolygon(b.fill, rect)
	c.StrokeLines(barOutline, append(rect, rect[0]))
}

// dodgeStep is the horizontal distance between the error bars of series
// that share X values on a line figure, and dodgeSpan the most the
// outermost two may lie apart: a shift on the page reads as a shift in X,
// which on a log axis is a large factor.
const (
	dodgeStep = 2.5 // points
	dodgeSpan = 6.0 // points
)

// lineDodge returns the horizontal shift of series i of a line figure:
// the series with error bars to draw are spread around their true X, at
// most dodgeSpan apart in all, so that bars at the same X do not hide
// each other (as ggplot's position_dodge does); the others do not move.
func lineDodge(series []Series, i int) vg.Length {
	if !hasWidth(series[i]) {
		return 0
	}
	n, k := 0, 0
	for j, s := range series {
		if hasWidth(s) {
			if j < i {
				k++
			}
			n++
		}
	}
	if n < 2 {
		return 0
	}
	step := min(dodgeStep, dodgeSpan/float64(n-1))
	return vg.Points(step * (float64(k) - float64(n-1)/2))
}

// dodged draws a line series (error bars, line, markers) shifted
// horizontally by dx on the page.
type dodged struct {
	eb *plotter.YErrorBars // nil without error bars
	l  *plotter.Line
	sc *plotter.Scatter
	dx vg.Length
}

func (d dodged) Plot(c draw.Canvas, plt *plot.Plot) {
	shifted := c
	shifted.Min.X += d.dx
	shifted.Max.X += d.dx
	if d.eb != nil {
		d.eb.Plot(shifted, plt)
	}
	d.l.Plot(shifted, plt)
	d.sc.Plot(shifted, plt)
}

func (d dodged) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax, ymin, ymax = d.sc.DataRange()
	if d.eb != nil {
		_, _, ymin, ymax = d.eb.DataRange()
	}
	return xmin, xmax, ymin, ymax
}

func (d dodged) GlyphBoxes(plt *plot.Plot) []plot.GlyphBox {
	boxes := d.sc.GlyphBoxes(plt)
	if d.eb != nil {
		boxes = append(boxes, d.eb.GlyphBoxes(plt)...)
	}
	for i := range boxes {
		boxes[i].Rectangle = boxes[i].Rectangle.Add(vg.Point{X: d.dx})
	}
	return boxes
}
