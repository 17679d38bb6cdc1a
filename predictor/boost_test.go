package predictor

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// fitEnsembleTreeRef grows the tree fitEnsembleTree must grow, the plain
// way: at each node, the rows sorted afresh by each feature (ties by
// index, as presort orders them), every cut between two distinct values
// scored, the sums formed in that order.
//
// A feature with a NaN has no order by value (a NaN is neither below nor
// above one): its rows take presort's order (the stable sort's, see
// TestPresortStable). And a feature whose first and last values in a
// node's order are equal is taken as constant there and below, as
// fitEnsembleTree takes it: so it is, in an order by value; with a NaN,
// values may differ between two equal ones.
func fitEnsembleTreeRef(X [][]float64, y []float64, w []int, o growOpts) *TreeNode {
	p := len(X[0])
	place := make([][]int, p) // by feature, a row's place in presort's order
	for f, order := range presort(X) {
		place[f] = make([]int, len(X))
		for j, i := range order {
			place[f][i] = j
		}
	}
	nan := make([]bool, p)
	for _, x := range X {
		for f, v := range x {
			nan[f] = nan[f] || math.IsNaN(v)
		}
	}
	byFeature := func(rows []int, f int) []int {
		r := slices.Clone(rows)
		if nan[f] {
			slices.SortFunc(r, func(a, b int) int { return place[f][a] - place[f][b] })
		} else {
			slices.SortFunc(r, func(a, b int) int { return cmp.Or(cmp.Compare(X[a][f], X[b][f]), a-b) })
		}
		return r
	}
	feats := make([]int, p)
	for f := range feats {
		feats[f] = f
	}
	var grow func(rows []int, depth int, live []bool) *TreeNode
	grow = func(rows []int, depth int, live []bool) *TreeNode {
		var sum, sq, n float64
		for _, i := range byFeature(rows, 0) {
			c := float64(w[i])
			sum += c * y[i]
			sq += c * y[i] * y[i]
			n += c
		}
		node := &TreeNode{Value: sum / n}
		if depth <= 0 || n < float64(2*o.minLeaf) {
			return node
		}
		try := feats
		if o.mtry > 0 && o.mtry < p {
			o.rng.Shuffle(len(feats), func(a, b int) { feats[a], feats[b] = feats[b], feats[a] })
			try = slices.Sorted(slices.Values(feats[:o.mtry]))
		}
		best, bestF, bestT := sq-sum*sum/n, -1, 0.0
		constant := make([]bool, p) // first and last values equal
		for f := range p {
			order := byFeature(rows, f)
			constant[f] = X[order[0]][f] == X[order[len(order)-1]][f]
		}
		for _, f := range try {
			if !live[f] || constant[f] {
				continue
			}
			order := byFeature(rows, f)
			var ls, lq, nl float64
			for k := range len(order) - 1 {
				i, next := order[k], order[k+1]
				c := float64(w[i])
				ls, lq, nl = ls+c*y[i], lq+c*y[i]*y[i], nl+c
				a, b := X[i][f], X[next][f]
				if nl < float64(o.minLeaf) || n-nl < float64(o.minLeaf) || a == b {
					continue
				}
				if sse := lq - ls*ls/nl + (sq - lq) - (sum-ls)*(sum-ls)/(n-nl); sse < best-1e-12 {
					best, bestF, bestT = sse, f, between(a, b)
					if !(a < bestT) {
						bestT = b
					}
				}
			}
		}
		if bestF < 0 {
			return node
		}
		var left, right []int
		for _, i := range rows {
			if X[i][bestF] < bestT {
				left = append(left, i)
			} else {
				right = append(right, i)
			}
		}
		below := slices.Clone(live)
		for f := 1; f < p; f++ {
			below[f] = live[f] && !constant[f]
		}
		node.Feature, node.Threshold = bestF, bestT
		node.Left, node.Right = grow(left, depth-1, below), grow(right, depth-1, below)
		return node
	}
	var rows []int
	for i := range y {
		if w[i] > 0 {
			rows = append(rows, i)
		}
	}
	live := make([]bool, p)
	for f := range live {
		live[f] = true
	}
	return grow(rows, o.depth, live)
}

// sameTree reports whether a and b split alike and hold the same values, bit
// for bit.
func sameTree(a, b *TreeNode) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Feature == b.Feature && math.Float64bits(a.Threshold) == math.Float64bits(b.Threshold) &&
		math.Float64bits(a.Value) == math.Float64bits(b.Value) && sameTree(a.Left, b.Left) && sameTree(a.Right, b.Right)
}

// TestEnsembleTreeMatchesReference: the ensemble tree of the flat lists is
// the reference's, split for split and bit for bit, over random data with
// ties (few distinct values; binary features, which nodes soon hold
// constant), weights of 0 to 3 (subsamples, bootstraps),
// features tried at random (the forest's), depths and leaf sizes; one
// scratch grows three trees on each X, as FitBoost reuses it.
func TestEnsembleTreeMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 500 {
		n, p := 1+rng.IntN(300), 1+rng.IntN(6)
		// distinct values per feature: ties; a third of the features
		// binary (one-hot), constant over many nodes
		levels := make([]int, p)
		for f := range levels {
			levels[f] = 2 + rng.IntN(40)
			if rng.IntN(3) == 0 {
				levels[f] = 2
			}
		}
		X := make([][]float64, n)
		y := make([]float64, n)
		w := make([]int, n)
		for i := range n {
			X[i] = make([]float64, p)
			for f := range p {
				X[i][f] = float64(rng.IntN(levels[f])) / 3
			}
			y[i] = math.Sin(X[i][0]) + rng.NormFloat64()
			w[i] = rng.IntN(4)
		}
		if trial%5 == 0 {
			for i := range w {
				w[i] = 1
			}
		}
		sorted := presort(X)
		s := newTreeScratch(X, sorted)
		for tree := range 3 {
			o := growOpts{depth: rng.IntN(8), minLeaf: 1 + rng.IntN(10)}
			o, want := fitBoth(t, s, X, y, w, o, trial%3 == 0, rng, trial, tree)
			if o.mtry == 0 && !sameTree(fitEnsembleTree(X, y, w, sorted, o), want) {
				t.Fatalf("trial %d, tree %d: a fresh scratch grows another tree", trial, tree)
			}
			// the next tree: other targets and weights
			for i := range n {
				y[i] = 0.5*y[i] + rng.NormFloat64()
				w[i] = rng.IntN(4)
			}
		}
	}
}

// TestEnsembleTreeSpecialValues: the ensemble tree is the reference's, split
// for split and bit for bit, on features of NaNs, zeros of both signs,
// infinities, the least subnormals (next to the zeros: a cut's threshold
// may be a zero, with its sign) and values so far apart that the midpoint
// of a cut between them is infinite.
func TestEnsembleTreeSpecialValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 23))
	pool := []float64{math.NaN(), math.Inf(-1), math.Inf(1), math.Copysign(0, -1), 0,
		5e-324, -5e-324, 1, 2, 3, -1e308, 1e308}
	for trial := range 400 {
		n, p := 2+rng.IntN(120), 1+rng.IntN(5)
		X := make([][]float64, n)
		y := make([]float64, n)
		w := make([]int, n)
		for i := range n {
			X[i] = make([]float64, p)
			for f := range p {
				vals := pool[1:] // feature 0 and odd trials: no NaN
				if f > 0 && trial%2 == 0 {
					vals = pool
				}
				X[i][f] = vals[rng.IntN(len(vals))]
				if f == p-1 && trial%3 == 0 {
					X[i][f] = pool[3+rng.IntN(4)] // zeros and subnormals only
				}
			}
			y[i] = rng.NormFloat64()
			w[i] = 1
			if trial%4 == 1 {
				w[i] = rng.IntN(3)
			}
		}
		w[rng.IntN(n)] = 1
		sorted := presort(X)
		s := newTreeScratch(X, sorted)
		for tree := range 2 {
			fitBoth(t, s, X, y, w, growOpts{depth: 1 + rng.IntN(6), minLeaf: 1 + rng.IntN(4)}, trial%5 == 2, rng, trial, tree)
			for i := range n {
				y[i] = rng.NormFloat64()
			}
		}
	}
}

// TestPresortStable: presort's orders are the stable sort's by value (ties
// by index), over columns with ties, zeros of both signs, infinities and,
// in some, NaNs.
func TestPresortStable(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	values := []float64{math.Copysign(0, -1), 0, 1, -1, 2.5, math.Inf(1), math.Inf(-1), math.NaN()}
	for trial := range 200 {
		n, p := 1+rng.IntN(200), 1+rng.IntN(5)
		X := make([][]float64, n)
		for i := range X {
			X[i] = make([]float64, p)
			for f := range p {
				X[i][f] = values[rng.IntN(len(values)-1)]
				if f == 0 && trial%4 == 0 && rng.IntN(10) == 0 {
					X[i][f] = math.NaN()
				}
				if f == 1 {
					X[i][f] = rng.NormFloat64()
				}
			}
		}
		got := presort(X)
		for f := range p {
			want := make([]int, n)
			for i := range want {
				want[i] = i
			}
			slices.SortStableFunc(want, func(a, b int) int {
				switch {
				case X[a][f] < X[b][f]:
					return -1
				case X[a][f] > X[b][f]:
					return 1
				}
				return 0
			})
			if !slices.Equal(got[f], want) {
				t.Fatalf("trial %d, feature %d: order %v, want %v", trial, f, got[f], want)
			}
		}
	}
}

// TestBoostTreeMatchesReference: boosting's trees, whose weights are all 0
// or 1 (the lists' all 1), are the reference's, split for split and bit
// for bit, and the value each row of the sample takes from the fit is the
// one Predict walks it to; rows out of the sample keep theirs.
func TestBoostTreeMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 17))
	for trial := range 300 {
		n, p := 1+rng.IntN(400), 1+rng.IntN(6)
		X := make([][]float64, n)
		y := make([]float64, n)
		w := make([]int, n)
		for i := range n {
			X[i] = make([]float64, p)
			for f := range p {
				X[i][f] = float64(rng.IntN(2+rng.IntN(60))) / 7
			}
			y[i] = math.Cos(X[i][0]) + rng.NormFloat64()
		}
		s := newTreeScratch(X, presort(X))
		values := make([]float64, n)
		for tree := range 3 {
			for i := range n {
				w[i] = 1
				if trial%2 == 0 && rng.IntN(5) == 0 {
					w[i] = 0
				}
				values[i] = -1
			}
			w[rng.IntN(n)] = 1
			o := growOpts{depth: rng.IntN(8), minLeaf: rng.IntN(12)}
			want := fitEnsembleTreeRef(X, y, w, o)
			o.values = values
			got := s.fit(y, w, o)
			if !sameTree(got, want) {
				t.Fatalf("trial %d, tree %d (n %d, p %d, %+v): the tree differs from the reference's", trial, tree, n, p, o)
			}
			for i := range n {
				if v := got.Predict(X[i]); w[i] > 0 && math.Float64bits(values[i]) != math.Float64bits(v) {
					t.Fatalf("trial %d, tree %d: row %d takes %v from the fit, its leaf is %v", trial, tree, i, values[i], v)
				}
				if w[i] == 0 && values[i] != -1 {
					t.Fatalf("trial %d, tree %d: row %d, out of the sample, took %v", trial, tree, i, values[i])
				}
			}
			for i := range n {
				y[i] = 0.5*y[i] + rng.NormFloat64()
			}
		}
	}
}

// BenchmarkFitBoost fits the GPU op model's trees (100 of depth 6, leaves
// of ≥ 20 rows, 80% of the rows each) on 7,500 rows of 11 features, the
// size of one op family's training set.
func BenchmarkFitBoost(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 5))
	n, p := 7500, 11
	X := make([][]float64, n)
	y := make([]float64, n)
	for i := range n {
		X[i] = make([]float64, p)
		for f := range p {
			X[i][f] = math.Round(rng.NormFloat64()*100) / 10
		}
		y[i] = math.Tanh(X[i][0]) + 0.3*X[i][1]*X[i][2]/10 + 0.1*rng.NormFloat64()
	}
	bp := BoostParams{Trees: 100, Depth: 6, MinLeaf: 20, Shrinkage: 0.1, Subsample: 0.8, Seed: 1}
	for b.Loop() {
		FitBoost(X, y, bp)
	}
}

// BenchmarkKNN predicts 500 points from 8,000 of 24 features (the CPU
// correction's size), k = 5.
func BenchmarkKNN(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 2))
	X := make([][]float64, 8000)
	y := make([]float64, len(X))
	for i := range X {
		X[i] = make([]float64, 24)
		for j := range X[i] {
			X[i][j] = rng.NormFloat64()
		}
		y[i] = rng.Float64()
	}
	for b.Loop() {
		for q := range 500 {
			knnPredict(X, y, 5, X[q*7])
		}
	}
}

// A subsample of a few rows may draw none for a tree: the tree then takes
// one row, and the prediction stays a number (it was 0/0, NaN, from the
// first such tree on).
func TestBoostTinySubsample(t *testing.T) {
	X := [][]float64{{1}, {2}, {3}}
	y := []float64{0.1, 0.2, 0.3}
	for seed := range uint64(20) {
		base, trees := FitBoost(X, y, BoostParams{Trees: 200, Depth: 2, MinLeaf: 1, Shrinkage: 0.1, Subsample: 0.3, Seed: seed})
		for _, x := range X {
			if v := boostPredict(base, 0.1, trees, x); math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("seed %d: prediction %v at %v", seed, v, x)
			}
		}
	}
}

// fitBoth fits a tree with o on s and with the reference fitter, with
// mtry features drawn per split (from the same seed for both) where
// drawn, and fails the test where the trees differ; it returns o as
// fitted and the reference's tree.
func fitBoth(t *testing.T, s *treeScratch, X [][]float64, y []float64, w []int, o growOpts, drawn bool, rng *rand.Rand, trial, tree int) (growOpts, *TreeNode) {
	t.Helper()
	var want *TreeNode
	if drawn {
		o.mtry = 1 + rng.IntN(len(X[0]))
		seed := rng.Uint64()
		o.rng = rand.New(rand.NewPCG(seed, 1))
		want = fitEnsembleTreeRef(X, y, w, o)
		o.rng = rand.New(rand.NewPCG(seed, 1))
	} else {
		want = fitEnsembleTreeRef(X, y, w, o)
	}
	if got := s.fit(y, w, o); !sameTree(got, want) {
		t.Fatalf("trial %d, tree %d (n %d, p %d, %+v): the tree differs from the reference's", trial, tree, len(X), len(X[0]), o)
	}
	return o, want
}
