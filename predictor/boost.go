package predictor

import (
	"math/rand/v2"
	"slices"
)

// Tree ensembles: gradient-boosted regression trees and a random forest,
// both on the log ratio. They are deterministic: every random draw comes
// from a PCG stream with a fixed seed.

// BoostParams are the settings of gradient boosting (squared loss).
type BoostParams struct {
	Trees     int     // boosting rounds
	Depth     int     // depth of each tree
	MinLeaf   int     // rows a leaf holds at least
	Shrinkage float64 // learning rate
	Subsample float64 // share of rows each tree is fitted on (1: all)
	Seed      uint64
}

// ForestParams are the settings of the random forest.
type ForestParams struct {
	Trees    int
	Depth    int
	MinLeaf  int
	Features float64 // share of the features tried at each split
	Seed     uint64
}

// growOpts are the settings of one ensemble tree.
type growOpts struct {
	depth, minLeaf int
	mtry           int        // features tried per split; 0: all
	rng            *rand.Rand // draws the features tried; nil with mtry 0
}

// presort is, for every feature, the row indices sorted by its value (ties
// by index).
func presort(X [][]float64) [][]int {
	p := len(X[0])
	out := make([][]int, p)
	for f := range p {
		o := make([]int, len(X))
		for i := range o {
			o[i] = i
		}
		slices.SortStableFunc(o, func(a, b int) int {
			switch {
			case X[a][f] < X[b][f]:
				return -1
			case X[a][f] > X[b][f]:
				return 1
			}
			return 0
		})
		out[f] = o
	}
	return out
}

// fitEnsembleTree grows a squared-error regression tree on the rows with a
// positive weight w (a multiplicity: bootstrap counts, or 0/1 for a
// subsample), given the presorted orders of X.
func fitEnsembleTree(X [][]float64, y []float64, w []int, sorted [][]int, o growOpts) *TreeNode {
	p := len(sorted)
	// Each feature's sorted list restricted to the rows in the sample.
	lists := make([][]int, p)
	for f := range p {
		l := make([]int, 0, len(y))
		for _, i := range sorted[f] {
			if w[i] > 0 {
				l = append(l, i)
			}
		}
		lists[f] = l
	}
	side := make([]bool, len(y)) // scratch: true when a row goes left
	feats := make([]int, p)
	for f := range feats {
		feats[f] = f
	}
	var grow func(lists [][]int, depth int) *TreeNode
	grow = func(lists [][]int, depth int) *TreeNode {
		var sum, sq, n float64
		for _, i := range lists[0] {
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
			try = slices.Clone(feats[:o.mtry])
			slices.Sort(try)
		}
		best := sq - sum*sum/n
		bestF, bestT := -1, 0.0
		for _, f := range try {
			order := lists[f]
			var ls, lq, nl float64
			for k := 0; k < len(order)-1; k++ {
				i := order[k]
				c := float64(w[i])
				ls += c * y[i]
				lq += c * y[i] * y[i]
				nl += c
				nr := n - nl
				if nl < float64(o.minLeaf) || nr < float64(o.minLeaf) {
					continue
				}
				a, b := X[i][f], X[order[k+1]][f]
				if a == b {
					continue
				}
				rs, rq := sum-ls, sq-lq
				sse := lq - ls*ls/nl + rq - rs*rs/nr
				if sse < best-1e-12 {
					best, bestF, bestT = sse, f, between(a, b)
					if !(a < bestT) { // a and b adjacent floats
						bestT = b
					}
				}
			}
		}
		if bestF < 0 {
			return node
		}
		nl := 0
		for _, i := range lists[0] {
			side[i] = X[i][bestF] < bestT
			if side[i] {
				nl++
			}
		}
		// Every feature's list splits alike: nl rows left, the rest
		// right, each side's lists cut from one array.
		nr := len(lists[0]) - nl
		lbuf, rbuf := make([]int, p*nl), make([]int, p*nr)
		left, right := make([][]int, p), make([][]int, p)
		for f := range p {
			l, r := lbuf[f*nl:f*nl:(f+1)*nl], rbuf[f*nr:f*nr:(f+1)*nr]
			for _, i := range lists[f] {
				if side[i] {
					l = append(l, i)
				} else {
					r = append(r, i)
				}
			}
			left[f], right[f] = l, r
		}
		node.Feature, node.Threshold = bestF, bestT
		node.Left = grow(left, depth-1)
		node.Right = grow(right, depth-1)
		return node
	}
	return grow(lists, o.depth)
}

// FitBoost fits gradient-boosted trees with squared loss: it returns the
// initial value (the targets' mean) and the trees, whose outputs are summed
// times the shrinkage.
func FitBoost(X [][]float64, y []float64, bp BoostParams) (float64, []*TreeNode) {
	var base float64
	for _, v := range y {
		base += v
	}
	base /= float64(len(y))
	sorted := presort(X)
	rng := rand.New(rand.NewPCG(bp.Seed, 0x9e3779b97f4a7c15))
	f := make([]float64, len(y))
	for i := range f {
		f[i] = base
	}
	r := make([]float64, len(y))
	w := make([]int, len(y))
	var trees []*TreeNode
	for range bp.Trees {
		for i := range y {
			r[i] = y[i] - f[i]
			w[i] = 1
			if bp.Subsample > 0 && bp.Subsample < 1 && rng.Float64() >= bp.Subsample {
				w[i] = 0
			}
		}
		t := fitEnsembleTree(X, r, w, sorted, growOpts{depth: bp.Depth, minLeaf: bp.MinLeaf})
		trees = append(trees, t)
		for i := range y {
			f[i] += bp.Shrinkage * t.Predict(X[i])
		}
	}
	return base, trees
}

// boostPredict is the boosted prediction at x.
func boostPredict(base, shrinkage float64, trees []*TreeNode, x []float64) float64 {
	v := base
	for _, t := range trees {
		v += shrinkage * t.Predict(x)
	}
	return v
}

// FitForest fits a random forest: every tree on a bootstrap sample of the
// rows, trying a random share of the features at each split.
func FitForest(X [][]float64, y []float64, fp ForestParams) []*TreeNode {
	sorted := presort(X)
	rng := rand.New(rand.NewPCG(fp.Seed, 0x2545f4914f6cdd1d))
	p := len(X[0])
	mtry := max(1, int(fp.Features*float64(p)+0.5))
	w := make([]int, len(y))
	var trees []*TreeNode
	for range fp.Trees {
		clear(w)
		for range y {
			w[rng.IntN(len(y))]++
		}
		trees = append(trees, fitEnsembleTree(X, y, w, sorted, growOpts{depth: fp.Depth, minLeaf: fp.MinLeaf, mtry: mtry, rng: rng}))
	}
	return trees
}

// forestPredict is the trees' mean at x.
func forestPredict(trees []*TreeNode, x []float64) float64 {
	var v float64
	for _, t := range trees {
		v += t.Predict(x)
	}
	return v / float64(len(trees))
}

// treeFeaturesBelow reports whether every split of the tree uses a feature
// index below p (a loaded predictor must not index past its vectors).
func treeFeaturesBelow(n *TreeNode, p int) bool {
	if n == nil {
		return false
	}
	if n.Left == nil {
		return true
	}
	return n.Feature >= 0 && n.Feature < p && n.Right != nil &&
		treeFeaturesBelow(n.Left, p) && treeFeaturesBelow(n.Right, p)
}
