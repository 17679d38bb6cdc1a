package predictor

import (
	"fmt"
	"math"
	"slices"
)

// Repeat is how well a profile agrees with itself: pairs of independent
// measurements of identical work.
type Repeat struct {
	// Pairs is the number of pairs of measurements.
	Pairs int
	// Errors are |a/b − 1| for every ordered pair (each pair twice, once
	// predicting either measurement by the other), sorted.
	Errors []float64
	// Within10 is the share of Errors within ±10%, MAPE their mean in
	// percent.
	Within10, MAPE float64
}

// Repeatability finds, among the samples, independent measurements of the
// same work — rows of the same op, pass, FLOPs, bytes, batch, precision
// and device but of a different layer shape or model, so measured
// separately — and scores each as a prediction of the other (whole
// iterations are not layer passes and are left out). Rows that
// repeat one measurement (a network's identical layers, which a profile
// measures once) count once. It bounds what any predictor can score on
// these profiles: a predictor cannot be closer to a measurement than
// another measurement of the same work is.
func Repeatability(s []Sample) Repeat {
	type work struct {
		op, pass, prec, dev string
		flops, bytes        float64
		batch               int
	}
	type meas struct {
		model, key string
		v          float64
	}
	groups := map[work][]meas{}
	var order []work
	for i := range s {
		if s[i].Iteration {
			continue // a whole iteration carries no work figures: every model's would match
		}
		r := &s[i].Record
		w := work{r.Op, r.Pass, r.Precision, r.Device, r.FLOPs, r.Bytes, r.Batch}
		m := meas{r.Model, r.Key, s[i].Measured}
		if m.key == "" {
			m.key = r.Layer
		}
		if slices.Contains(groups[w], m) {
			continue
		}
		if _, ok := groups[w]; !ok {
			order = append(order, w)
		}
		groups[w] = append(groups[w], m)
	}
	var rep Repeat
	for _, w := range order {
		g := groups[w]
		for i := range g {
			for j := i + 1; j < len(g); j++ {
				if g[i].model == g[j].model && g[i].key == g[j].key {
					continue // the same layer measured twice in one profile: not independent of its copy
				}
				rep.Pairs++
				rep.Errors = append(rep.Errors, math.Abs(g[i].v/g[j].v-1), math.Abs(g[j].v/g[i].v-1))
			}
		}
	}
	slices.Sort(rep.Errors)
	for _, e := range rep.Errors {
		rep.MAPE += e
		if e <= 0.10 {
			rep.Within10++
		}
	}
	if n := float64(len(rep.Errors)); n > 0 {
		rep.MAPE *= 100 / n
		rep.Within10 /= n
	}
	return rep
}

// String summarises the repeatability in one line.
func (r Repeat) String() string {
	if r.Pairs == 0 {
		return "no two independent measurements of identical work"
	}
	return fmt.Sprintf("%d pairs of independent measurements of identical work agree within ±10%% in %.1f%% of predictions of one by the other (MAPE %.1f%%, median deviation %.1f%%)",
		r.Pairs, 100*r.Within10, r.MAPE, 100*r.Errors[len(r.Errors)/2])
}
