package profiler

import (
	"cmp"
	"slices"

	"github.com/wb-sim/wb/dnn"
)

// Line is a group of rows summed: a layer, an op type or a pass. Measured
// and Predicted sum the rows measured (status ok) only, so their ratio
// compares like with like; the other counts say what is missing.
type Line struct {
	Name                          string // layer, op or pass
	Op                            string // the layer's op (layer lines)
	Measured                      float64
	Predicted                     float64 // 0 when a measured row has no prediction
	FLOPs                         float64 // of the rows measured
	OK, Unsupported, OOM, Skipped int
	predictedAll                  bool
}

// Ratio is Measured / Predicted, or 0 without a prediction.
func (l Line) Ratio() float64 {
	if l.Predicted <= 0 {
		return 0
	}
	return l.Measured / l.Predicted
}

// FLOPS is the achieved FLOP/s over the rows measured.
func (l Line) FLOPS() float64 {
	if l.Measured <= 0 {
		return 0
	}
	return l.FLOPs / l.Measured
}

func (l *Line) add(r *Record) {
	switch r.Status {
	case OK:
		if l.OK == 0 {
			l.predictedAll = true
		}
		l.OK++
		l.Measured += r.Median.V
		l.FLOPs += r.FLOPs
		if r.Predicted.OK {
			l.Predicted += r.Predicted.V
		} else {
			l.predictedAll = false
		}
	case Unsupported:
		l.Unsupported++
	case OOM:
		l.OOM++
	case Skipped:
		l.Skipped++
	}
}

func (l *Line) done() {
	if !l.predictedAll {
		l.Predicted = 0
	}
}

// Summary sums one batch size's rows.
type Summary struct {
	Batch int
	// Layers, longest measured first (ties by name); Ops likewise.
	Layers, Ops []Line
	// Passes in training order, then Total.
	Passes []Line
	Total  Line
}

// Summarize sums rows per batch size (in the order they first appear): per
// layer, per op type and per pass.
func Summarize(rows []Record) []Summary {
	var out []Summary
	for _, batch := range batches(rows) {
		s := Summary{Batch: batch}
		layers, ops, passes := map[string]*Line{}, map[string]*Line{}, map[string]*Line{}
		var layerOrder []string
		for i := range rows {
			r := &rows[i]
			if r.Batch != batch {
				continue
			}
			l := layers[r.Layer]
			if l == nil {
				l = &Line{Name: r.Layer, Op: r.Op}
				layers[r.Layer] = l
				layerOrder = append(layerOrder, r.Layer)
			}
			l.add(r)
			o := ops[r.Op]
			if o == nil {
				o = &Line{Name: r.Op, Op: r.Op}
				ops[r.Op] = o
			}
			o.add(r)
			p := passes[r.Pass]
			if p == nil {
				p = &Line{Name: r.Pass}
				passes[r.Pass] = p
			}
			p.add(r)
			s.Total.add(r)
		}
		for _, name := range layerOrder {
			layers[name].done()
			s.Layers = append(s.Layers, *layers[name])
		}
		for _, o := range ops {
			o.done()
			s.Ops = append(s.Ops, *o)
		}
		for _, p := range dnn.Passes {
			if l := passes[p.String()]; l != nil {
				l.done()
				s.Passes = append(s.Passes, *l)
			}
		}
		s.Total.Name = "total"
		s.Total.done()
		longest := func(a, b Line) int {
			return cmp.Or(cmp.Compare(b.Measured, a.Measured), cmp.Compare(a.Name, b.Name))
		}
		slices.SortStableFunc(s.Layers, longest)
		slices.SortFunc(s.Ops, longest)
		out = append(out, s)
	}
	return out
}

func batches(rows []Record) []int {
	var b []int
	for i := range rows {
		if !slices.Contains(b, rows[i].Batch) {
			b = append(b, rows[i].Batch)
		}
	}
	return b
}
