package figures

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// ECDF returns the points of the empirical cumulative distribution function
// of values: x holds the distinct values in increasing order and y[i] is the
// fraction of values ≤ x[i], so the last y is 1. Drawn as a post-step line
// (the [CDF] kind) the points give the exact ECDF.
//
// When maxPoints > 0 and there are more distinct values than maxPoints, the
// curve is thinned to at most maxPoints points, evenly spaced in y: for
// k = 0 … maxPoints−1 it keeps the first point whose y reaches k/(maxPoints−1).
// The first and last points are always kept and, away from genuine jumps, the
// thinned step curve lies within 1/(maxPoints−1) of the exact one vertically,
// which at a few hundred points is below a pixel of a printed figure.
// A maxPoints of 1 is treated as 2. maxPoints ≤ 0 keeps every point.
//
// values is not modified. NaN values sort first and are kept, so that
// [Render] refuses them rather than a NaN disappearing from the plot.
func ECDF(values []float64, maxPoints int) (x, y []float64) {
	n := len(values)
	if n == 0 {
		return nil, nil
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)

	// Collapse ties: one point per distinct value, counting the values ≤ it.
	xs := make([]float64, 0, n)
	cum := make([]int, 0, n)
	for i, v := range sorted {
		if i+1 < n && sorted[i+1] == v {
			continue
		}
		xs = append(xs, v)
		cum = append(cum, i+1)
	}

	if maxPoints > 0 && len(xs) > maxPoints {
		m := max(maxPoints, 2)
		keepX := make([]float64, 0, m)
		keepC := make([]int, 0, m)
		j := 0
		for k := range m {
			// Smallest count reaching the level k/(m-1), in integers:
			// ceil(k*n/(m-1)).
			target := (k*n + m - 2) / (m - 1)
			for j < len(cum)-1 && cum[j] < target {
				j++
			}
			if len(keepC) > 0 && keepC[len(keepC)-1] == cum[j] {
				continue // the level was already reached by a jump
			}
			keepX = append(keepX, xs[j])
			keepC = append(keepC, cum[j])
		}
		xs, cum = keepX, keepC
	}

	y = make([]float64, len(cum))
	for i, c := range cum {
		y[i] = float64(c) / float64(n)
	}
	return xs, y
}

// CI95 returns the sample mean of xs and the half-width of the two-sided 95%
// confidence interval of the mean, t(0.975, n−1)·s/√n, where s is the sample
// standard deviation (n−1 denominator) and t the Student t quantile with n−1
// degrees of freedom. The interval assumes independent replicas with roughly
// normal means (reasonable for replicas of a simulation with different seeds).
//
// With fewer than two values the half-width is 0 (no spread can be estimated);
// with none the mean is NaN, which [Render] refuses.
func CI95(xs []float64) (mean, half float64) {
	n := len(xs)
	if n == 0 {
		return math.NaN(), 0
	}
	var sum float64
	for _, v := range xs {
		sum += v
	}
	mean = sum / float64(n)
	if n < 2 {
		return mean, 0
	}
	var ss float64
	for _, v := range xs {
		d := v - mean
		ss += d * d
	}
	sd := math.Sqrt(ss / float64(n-1))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
	return mean, t * sd / math.Sqrt(float64(n))
}

// CIName names [MeanCI]'s interval for n values: "95% bootstrap CI" from
// six values on; below, what it can cover. An interval within the values'
// range misses the mean whenever all of them fall on one side of it, so
// for n symmetric values it covers it at most 1 − 2^(1−n) of the time (50%
// at 2, 75% at 3, 87% at 4, 93% at 5), whatever its nominal level: "bootstrap
// CI (nominal 95%, at most 93% with 5)".
func CIName(n int) string {
	if n >= 6 || n < 2 {
		return "95% bootstrap CI"
	}
	return fmt.Sprintf("bootstrap CI (nominal 95%%, at most %d%% with %d)", int(100*(1-math.Pow(2, float64(1-n)))), n)
}

// Bootstraps is the number of resamples of [MeanCI].
const Bootstraps = 2000

// MeanCI returns the sample mean of xs and the 95% expanded
// percentile-bootstrap interval of the mean (Hesterberg, "What teachers
// should know about the bootstrap", The American Statistician 69(4), 2015):
// percentiles of the means of Bootstraps resamples of xs with replacement,
// taken at α′/2 and 1 − α′/2 where α′/2 = Φ(−√(n/(n−1)) · t(0.975, n−1)).
// The plain percentile interval (2.5th and 97.5th) is too narrow for a
// few replicas: it covers the mean of normal replicas about 85% of the time
// at n = 5; the expanded one widens it as a t-interval widens, about 93%
// at n = 5 (the most an interval within the values can reach there, as
// all five fall on one side of the mean 6% of the time). The interval lies
// within [min(xs), max(xs)], so it never leaves the metric's range (a
// bounded slowdown stays ≥ 1, a wait ≥ 0), which a symmetric t-interval of
// a few replicas of a skewed metric does. The resamples are drawn with a
// fixed seed from the values in sorted order, so the same values give the
// same interval in any order. It is widened, if
// need be, to hold the mean.
//
// With fewer than two values, or values all equal, the interval is the
// mean alone; with none the mean is NaN, which [Render] refuses.
func MeanCI(xs []float64) (mean, lo, hi float64) {
	n := len(xs)
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	var sum float64
	for _, v := range xs {
		sum += v
	}
	mean = sum / float64(n)
	if n < 2 || slices.Min(xs) == slices.Max(xs) {
		return mean, mean, mean
	}
	rng := rand.New(rand.NewPCG(0x5eed, uint64(n)))
	// resampled from the values in order, so that the interval is the
	// values', whatever order the replicas came in
	sorted := slices.Sorted(slices.Values(xs))
	means := make([]float64, Bootstraps)
	for b := range means {
		var s float64
		for range n {
			s += sorted[rng.IntN(n)]
		}
		means[b] = s / float64(n)
	}
	slices.Sort(means)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
	tail := distuv.UnitNormal.CDF(-math.Sqrt(float64(n)/float64(n-1)) * t)
	k := int(tail * Bootstraps)
	// within the values' range, despite rounding of the resampled sums
	lo = max(means[k], slices.Min(xs))
	hi = min(means[Bootstraps-1-k], slices.Max(xs))
	return mean, min(lo, mean), max(hi, mean)
}
