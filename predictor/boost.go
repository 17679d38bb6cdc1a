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
//
// The exact greedy search: every feature's rows in its sorted order, every
// cut between two distinct values. Each feature's list carries its rows'
// values, targets and weights beside their indices, so the scan reads one
// array in order; a node's children take their lists from one buffer per
// depth (siblings share a level's buffer, each in its parent's span), so
// growing a tree allocates nothing per node. A feature that is constant
// over a node's rows has no cut there or below: its list is neither
// scanned nor handed down (one-hot features soon are). The sums are formed
// in the order fitEnsembleTreeRef forms them: the trees are the same,
// split for split and bit for bit.
func fitEnsembleTree(X [][]float64, y []float64, w []int, sorted [][]int, o growOpts) *TreeNode {
	return newTreeScratch(X, sorted).fit(y, w, o)
}

// treeEntry is one row in one feature's sorted list: its value of the
// feature, its target, its weight and its index.
type treeEntry struct {
	x, y float64
	c    float32 // the row's weight, a small integer (exact in a float32)
	i    int32
}

// treeScratch grows trees on one X: its presorted orders and values in
// them, and the lists, one buffer per depth, reused from tree to tree.
type treeScratch struct {
	sorted [][]int
	xs     [][]float64 // by feature, X's values in the feature's order
	levels [][]treeEntry
	// live[d] are the features whose lists the nodes of depth d hold, in
	// that order (feature 0 first, always: a node's sums run in its
	// order); at[d][f] is f's place among them, or −1
	live, at [][]int
	side     []bool
	feats    []int
}

// newTreeScratch prepares to grow trees on X, whose presorted orders are
// sorted.
func newTreeScratch(X [][]float64, sorted [][]int) *treeScratch {
	xs := make([][]float64, len(sorted))
	for f, order := range sorted {
		xs[f] = make([]float64, len(order))
		for j, i := range order {
			xs[f][j] = X[i][f]
		}
	}
	return &treeScratch{sorted: sorted, xs: xs}
}

// fit grows one tree on targets y with weights w.
func (s *treeScratch) fit(y []float64, w []int, o growOpts) *TreeNode {
	sorted := s.sorted
	p := len(sorted)
	var n0 int
	for _, c := range w {
		if c > 0 {
			n0++
		}
	}
	if len(s.levels) < o.depth+1 {
		s.levels = make([][]treeEntry, o.depth+1)
		s.live, s.at = make([][]int, o.depth+1), make([][]int, o.depth+1)
	}
	for d := range o.depth + 1 {
		if cap(s.levels[d]) < p*n0 {
			s.levels[d] = make([]treeEntry, p*n0)
		}
		s.levels[d] = s.levels[d][:p*n0]
		if len(s.at[d]) != p {
			s.live[d], s.at[d] = make([]int, 0, p), make([]int, p)
		}
	}
	if len(s.side) < len(y) {
		s.side = make([]bool, len(y)) // true when a row goes left
	}
	side := s.side
	if len(s.feats) != p {
		s.feats = make([]int, p)
	}
	feats := s.feats
	for f := range feats {
		feats[f] = f
	}
	// Each feature's sorted list restricted to the rows in the sample:
	// feature f's n0 entries from f*n0 in the top level.
	top := s.levels[0]
	s.live[0] = s.live[0][:0]
	for f := range p {
		s.live[0] = append(s.live[0], f)
		k := f * n0
		xs := s.xs[f]
		for j, i := range sorted[f] {
			if c := w[i]; c > 0 {
				top[k] = treeEntry{x: xs[j], y: y[i], c: float32(c), i: int32(i)}
				k++
			}
		}
	}
	// grow splits the node whose lists are the n entries per feature from
	// off in level depth's buffer (the j-th of live[level] at off+j*n).
	var grow func(level, off, n, depth int) *TreeNode
	grow = func(level, off, n, depth int) *TreeNode {
		live, at := s.live[level], s.at[level]
		buf := s.levels[level][off : off+len(live)*n]
		var sum, sq, cnt float64
		for _, e := range buf[:n] {
			c := float64(e.c)
			sum += c * e.y
			sq += c * e.y * e.y
			cnt += c
		}
		node := &TreeNode{Value: sum / cnt}
		if depth <= 0 || cnt < float64(2*o.minLeaf) {
			return node
		}
		try := feats
		if o.mtry > 0 && o.mtry < p {
			o.rng.Shuffle(len(feats), func(a, b int) { feats[a], feats[b] = feats[b], feats[a] })
			try = slices.Clone(feats[:o.mtry])
			slices.Sort(try)
		}
		for f := range at {
			at[f] = -1
		}
		for j, f := range live {
			at[f] = j
		}
		best := sq - sum*sum/cnt
		bestF, bestT := -1, 0.0
		minLeaf := float64(o.minLeaf)
		for _, f := range try {
			if at[f] < 0 {
				continue // constant above: no cut
			}
			order := buf[at[f]*n : (at[f]+1)*n]
			if order[0].x == order[n-1].x {
				continue // constant here
			}
			var ls, lq, nl float64
			for k := 0; k < len(order)-1; k++ {
				e := &order[k]
				c := float64(e.c)
				ls += c * e.y
				lq += c * e.y * e.y
				nl += c
				nr := cnt - nl
				if nl < minLeaf || nr < minLeaf {
					continue
				}
				a, b := e.x, order[k+1].x
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
		nl, cl := 0, 0.0
		for _, e := range buf[at[bestF]*n : (at[bestF]+1)*n] {
			side[e.i] = e.x < bestT
			if side[e.i] {
				nl++
				cl += float64(e.c)
			}
		}
		// The children hold the lists of feature 0 and of the features
		// not constant here; children that are leaves only feature 0's
		// (their values are its sums). Every list splits alike: nl
		// entries left, the rest right, in the next level's buffer within
		// this node's span.
		leaf := func(c float64) bool { return depth-1 <= 0 || c < float64(2*o.minLeaf) }
		leaves := leaf(cl) && leaf(cnt-cl)
		down := s.live[level+1][:0]
		for j, f := range live {
			if f == 0 || !leaves && buf[j*n].x != buf[j*n+n-1].x {
				down = append(down, f)
			}
		}
		s.live[level+1] = down
		m, nr := len(down), n-nl
		next := s.levels[level+1][off : off+m*n]
		left, right := next[:m*nl], next[m*nl:]
		for k, f := range down {
			l, r := left[k*nl:(k+1)*nl], right[k*nr:(k+1)*nr]
			li, ri := 0, 0
			for _, e := range buf[at[f]*n : (at[f]+1)*n] {
				if side[e.i] {
					l[li] = e
					li++
				} else {
					r[ri] = e
					ri++
				}
			}
		}
		node.Feature, node.Threshold = bestF, bestT
		node.Left = grow(level+1, off, nl, depth-1)
		node.Right = grow(level+1, off+m*nl, nr, depth-1)
		return node
	}
	return grow(0, 0, n0, o.depth)
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
	scratch := newTreeScratch(X, sorted)
	for range bp.Trees {
		drawn := 0
		for i := range y {
			r[i] = y[i] - f[i]
			w[i] = 1
			if bp.Subsample > 0 && bp.Subsample < 1 && rng.Float64() >= bp.Subsample {
				w[i] = 0
			}
			drawn += w[i]
		}
		if drawn == 0 {
			// a subsample of a few rows may draw none: a tree of no rows
			// would be 0/0; it takes one row instead
			w[rng.IntN(len(y))] = 1
		}
		t := scratch.fit(r, w, growOpts{depth: bp.Depth, minLeaf: bp.MinLeaf})
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
	scratch := newTreeScratch(X, sorted)
	for range fp.Trees {
		clear(w)
		for range y {
			w[rng.IntN(len(y))]++
		}
		trees = append(trees, scratch.fit(y, w, growOpts{depth: fp.Depth, minLeaf: fp.MinLeaf, mtry: mtry, rng: rng}))
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
