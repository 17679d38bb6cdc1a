package gpu

import (
	"math"
	"slices"
)

// TimingCurve shows how one op was timed alone on one GPU: its
// measurements binned by the analytical time of their kernel (bins of a
// third of a doubling, kernels of at most 2 ms), each bin's median and
// 10th and 90th percentiles, and what the two timing models make of each
// bin's centre with the kernel's time a fitted multiple of the analytical
// time: [Measured] (max(floor, floor − overlap + k·t)) and floor + k·t.
type TimingCurve struct {
	GPU, Op          string
	Floor, Overlap   float64   // seconds
	T                []float64 // bin centres: analytical kernel time, s
	Median, P10, P90 []float64 // measured, s
	Max, Additive    []float64 // the two models at T, s
	KMax, KAdditive  float64   // their fitted multiples of the analytical time
	// RMSMax and RMSAdditive are the two fits' rms log errors over every
	// measurement (not the bins).
	RMSMax, RMSAdditive float64
}

// Timing is the [TimingCurve] of op on gpu over samples (specs gives the
// spec sheets); ok is false when no measurement of op on gpu has a kernel
// of at most 2 ms.
func Timing(samples []Sample, specs map[string]Spec, gpu, op string) (c TimingCurve, ok bool) {
	c = TimingCurve{GPU: gpu, Op: op}
	type row struct{ t, s float64 }
	var rows []row
	for i := range samples {
		s := &samples[i]
		if s.GPU != gpu || s.Kernel.Op != op {
			continue
		}
		c.Floor, c.Overlap = s.Floor, s.Overlap
		if t := Analytical(specs[gpu], &s.Kernel); t <= 2e-3 {
			rows = append(rows, row{t, s.Seconds})
		}
	}
	if len(rows) == 0 {
		return c, false
	}
	// the multiple k of the analytical time that fits best, and the rms
	// log error at it
	fit := func(model func(kt float64) float64) (k, rms float64) {
		best := math.Inf(1)
		for c := 0.5; c <= 4; c *= 1.01 {
			var e float64
			for _, r := range rows {
				d := math.Log(r.s) - math.Log(model(c*r.t))
				e += d * d
			}
			if e < best {
				best, k = e, c
			}
		}
		return k, math.Sqrt(best / float64(len(rows)))
	}
	c.KMax, c.RMSMax = fit(func(kt float64) float64 { return Measured(kt, c.Floor, c.Overlap) })
	c.KAdditive, c.RMSAdditive = fit(func(kt float64) float64 { return c.Floor + kt })
	bins := map[int][]float64{}
	for _, r := range rows {
		b := int(math.Round(3 * math.Log2(r.t)))
		bins[b] = append(bins[b], r.s)
	}
	keys := make([]int, 0, len(bins))
	for b := range bins {
		keys = append(keys, b)
	}
	slices.Sort(keys)
	for _, b := range keys {
		v := bins[b]
		slices.Sort(v)
		t := math.Exp2(float64(b) / 3)
		c.T = append(c.T, t)
		c.Median = append(c.Median, v[len(v)/2])
		c.P10 = append(c.P10, v[len(v)/10])
		c.P90 = append(c.P90, v[(9*len(v))/10])
		c.Max = append(c.Max, Measured(c.KMax*t, c.Floor, c.Overlap))
		c.Additive = append(c.Additive, c.Floor+c.KAdditive*t)
	}
	return c, true
}
