package figures

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// palette is Okabe & Ito's colour-blind-safe palette ("Color Universal
// Design", 2008) without its yellow (#F0E442), which is too light for lines,
// then a mid grey for an eighth series (told from black by its marker and
// dashes).
var palette = []color.RGBA{
	{0x00, 0x00, 0x00, 0xff}, // black
	{0xE6, 0x9F, 0x00, 0xff}, // orange
	{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	{0x00, 0x9E, 0x73, 0xff}, // bluish green
	{0x00, 0x72, 0xB2, 0xff}, // blue
	{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	{0x88, 0x88, 0x88, 0xff}, // grey
}

// glyphs are the line-plot markers, one per palette entry, so that series
// stay distinguishable in greyscale print.
var glyphs = []draw.GlyphDrawer{
	draw.CircleGlyph{},
	draw.BoxGlyph{},
	draw.PyramidGlyph{},
	diamondGlyph{},
	draw.RingGlyph{},
	draw.CrossGlyph{},
	draw.PlusGlyph{},
	draw.TriangleGlyph{},
}

// dashes are the CDF line patterns, one per palette entry.
var dashes = [][]vg.Length{
	nil,
	{vg.Points(3), vg.Points(1.5)},
	{vg.Points(1), vg.Points(1)},
	{vg.Points(4), vg.Points(1.5), vg.Points(1), vg.Points(1.5)},
	{vg.Points(6), vg.Points(2)},
	{vg.Points(2), vg.Points(2)},
	{vg.Points(4), vg.Points(1), vg.Points(1), vg.Points(1), vg.Points(1), vg.Points(1)},
	{vg.Points(8), vg.Points(2), vg.Points(2), vg.Points(2)},
}

// Font sizes, readable at single-column width.
const (
	tickFontSize   = 8
	labelFontSize  = 9
	legendFontSize = 8
	titleFontSize  = 9

	labelGap = 3 // points between an axis label and the tick labels
)

var (
	// sans is the one font face of every figure: bold or italic text would
	// add a second font to the PDF, and the PDF library writes its fonts
	// in map order (vgpdf does not expose fpdf's SetCatalogSort), which
	// would make PDF output differ from run to run.
	sans      = font.Font{Typeface: "Liberation", Variant: "Sans"}
	gridColor = color.Gray{Y: 0xdd}
	// noteColor is the grey of a figure's note: legible, quieter than the data.
	noteColor = color.Gray{Y: 0x55}
	lineWidth = vg.Points(1)
)

func textStyle(size vg.Length) text.Style {
	return text.Style{
		Color:   color.Black,
		Font:    font.From(sans, size),
		Handler: plot.DefaultTextHandler,
	}
}

func legendStyle() text.Style { return textStyle(legendFontSize) }

// diamondGlyph is a filled diamond (a square rotated by 45°).
type diamondGlyph struct{}

func (diamondGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetColor(sty.Color)
	r := sty.Radius * math.Sqrt2 * 0.85 // same area feel as the box
	var p vg.Path
	p.Move(vg.Point{X: pt.X, Y: pt.Y + r})
	p.Line(vg.Point{X: pt.X + r, Y: pt.Y})
	p.Line(vg.Point{X: pt.X, Y: pt.Y - r})
	p.Line(vg.Point{X: pt.X - r, Y: pt.Y})
	p.Close()
	c.Fill(p)
}

// logTicks places ticks as plot.LogTicks does (a labelled tick at each power
// of ten, unlabelled ones at its multiples) and labels them as logLabel
// does, the same in every figure. When fewer than two powers of ten fall in
// the range, the 2× and 5× ticks are labelled too, so that the axis can be
// read.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	// plot.LogTicks starts at 10^trunc(log10 lo), which for lo < 1 is above
	// lo; start one decade lower and drop what is outside the range.
	all := plot.LogTicks{}.Ticks(lo/10, hi)
	var ticks []plot.Tick
	for _, t := range all {
		if t.Value >= lo*(1-1e-9) && t.Value <= hi*(1+1e-9) {
			ticks = append(ticks, t)
		}
	}
	// plot.LogTicks repeats each power of ten as an unlabelled minor tick.
	ticks = slices.CompactFunc(ticks, func(a, b plot.Tick) bool { return a.Value == b.Value })
	decades := 0
	for _, t := range ticks {
		if t.Label != "" {
			decades++
		}
	}
	for i, t := range ticks {
		e := math.Log10(t.Value)
		mant := t.Value / math.Pow10(int(math.Floor(e+1e-9)))
		isDecade := t.Label != ""
		labelMinor := decades < 2 && (math.Abs(mant-2) < 1e-6 || math.Abs(mant-5) < 1e-6)
		if !isDecade && !labelMinor {
			continue
		}
		ticks[i].Label = logLabel(t.Value)
	}
	return ticks
}

// logLabel is a log axis' label of v, the same in every figure whatever
// its range: plain from 0.001 to below 10,000 ("0.5", "1000"), else
// "1e4", "2e-4".
func logLabel(v float64) string {
	if v >= 1e-3*(1-1e-9) && v < 1e4*(1-1e-9) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return formatExp(v)
}

// formatExp formats v as "1e6" or "2e-3".
func formatExp(v float64) string {
	e := int(math.Floor(math.Log10(v) + 1e-9))
	m := v / math.Pow10(e)
	return strconv.FormatFloat(math.Round(m*1e6)/1e6, 'f', -1, 64) + "e" + strconv.Itoa(e)
}

// legendEntry is one entry of the legend row.
type legendEntry struct {
	label  string
	thumbs []plot.Thumbnailer
}

// legendRow lays legend entries out left to right above the plot, wrapping
// to further rows when they do not fit the width.
type legendRow struct {
	entries []legendEntry
	style   text.Style
}

const (
	thumbWidth = 14 // points
	thumbGap   = 3  // between thumbnail and its text
	entryGap   = 9  // between entries
)

// rows splits the entries into rows of at most width, returning the index
// ranges and each entry's width.
func (l legendRow) rows(width vg.Length) (rows [][2]int, widths []vg.Length) {
	start := 0
	var w vg.Length
	for i, e := range l.entries {
		ew := vg.Points(thumbWidth+thumbGap) + l.style.Width(e.label)
		widths = append(widths, ew)
		add := ew
		if i > start {
			add += vg.Points(entryGap)
		}
		if i > start && w+add > width {
			rows = append(rows, [2]int{start, i})
			start, w = i, ew
			continue
		}
		w += add
	}
	if start < len(l.entries) {
		rows = append(rows, [2]int{start, len(l.entries)})
	}
	return rows, widths
}

func (l legendRow) lineHeight() vg.Length {
	return l.style.Height("Xg") * 1.25
}

// height is the vertical space the legend needs at the given width,
// including a small margin; zero without entries.
func (l legendRow) height(width vg.Length) vg.Length {
	if len(l.entries) == 0 {
		return 0
	}
	rows, _ := l.rows(width - vg.Points(8))
	return vg.Length(len(rows))*l.lineHeight() + vg.Points(4)
}

// draw draws the legend centred in c, from its top.
func (l legendRow) draw(c draw.Canvas) {
	rows, widths := l.rows(c.Max.X - c.Min.X - vg.Points(8))
	lh := l.lineHeight()
	y := c.Max.Y - vg.Points(2)
	for _, r := range rows {
		var total vg.Length
		for i := r[0]; i < r[1]; i++ {
			total += widths[i]
		}
		total += vg.Points(entryGap) * vg.Length(r[1]-r[0]-1)
		x := c.Min.X + (c.Max.X-c.Min.X-total)/2
		for i := r[0]; i < r[1]; i++ {
			e := l.entries[i]
			thumb := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: x, Y: y - lh + vg.Points(1)},
				Max: vg.Point{X: x + vg.Points(thumbWidth), Y: y - vg.Points(1)},
			}}
			for _, t := range e.thumbs {
				t.Thumbnail(&thumb)
			}
			sty := l.style
			sty.YAlign = draw.YCenter
			c.FillText(sty, vg.Point{X: x + vg.Points(thumbWidth+thumbGap), Y: y - lh/2}, e.label)
			x += widths[i] + vg.Points(entryGap)
		}
		y -= lh
	}
}

// setPNGDensity records the resolution in the PNG's pHYs chunk, so that
// LaTeX and image viewers size the figure at its physical size.
func setPNGDensity(png []byte, dpi int) ([]byte, error) {
	const ihdrEnd = 8 + 8 + 13 + 4 // signature, IHDR header, data, CRC
	if len(png) < ihdrEnd || string(png[12:16]) != "IHDR" {
		return nil, errors.New("png: no IHDR chunk")
	}
	ppm := uint32(math.Round(float64(dpi) / 0.0254))
	chunk := make([]byte, 0, 21)
	chunk = binary.BigEndian.AppendUint32(chunk, 9)
	chunk = append(chunk, "pHYs"...)
	chunk = binary.BigEndian.AppendUint32(chunk, ppm)
	chunk = binary.BigEndian.AppendUint32(chunk, ppm)
	chunk = append(chunk, 1) // unit: metre
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(chunk[4:]))
	var out bytes.Buffer
	out.Grow(len(png) + len(chunk))
	out.Write(png[:ihdrEnd])
	out.Write(chunk)
	out.Write(png[ihdrEnd:])
	return out.Bytes(), nil
}

// niceTicks places about five labelled ticks on a linear axis at multiples
// of 1, 2, 2.5 or 5 times a power of ten, all labelled with the same number
// of decimals (0.00, 0.25, 0.50 rather than 0, 0.25, 0.5).
type niceTicks struct{}

func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	const target = 5
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 4, 64)}}
	}
	raw := (hi - lo) / target
	mag := math.Pow10(int(math.Floor(math.Log10(raw))))
	step := 10 * mag
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*mag >= raw*0.75 { // allow a few more ticks than the target
			step = m * mag
			break
		}
	}
	decimals := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	if math.Abs(step/math.Pow10(-decimals)-2.5) < 1e-9 { // 0.25, 2.5: one more digit
		decimals++
	}
	var ticks []plot.Tick
	for k := math.Ceil(lo/step - 1e-9); k*step <= hi+step*1e-9; k++ {
		v := k * step
		if math.Abs(v) < step*1e-9 {
			v = 0 // no "-0.00"
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', decimals, 64)})
	}
	return ticks
}
