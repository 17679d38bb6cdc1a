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
	// values, where not nil, takes the value of its leaf at the index of
	// every row of a positive weight (the others' are left as they are)
	values []float64
}

// presort is, for every feature, the row indices sorted by its value (ties
// by index).
//
// Each feature's values are sorted beside their indices, by value and
// then index: with no NaN that is a total order, whose one sorted result
// is the stable sort's by value, found without the stable sort's merges
// and without reaching into X's rows at every comparison. A NaN is
// neither below nor above any value, which no such order can say: a
// feature with one is sorted stably by value, as it always was.
func presort(X [][]float64) [][]int {
	p := len(X[0])
	out := make([][]int, p)
	type keyed struct {
		x float64
		i int
	}
	ks := make([]keyed, len(X))
	for f := range p {
		nan := false
		for i, row := range X {
			ks[i] = keyed{row[f], i}
			nan = nan || row[f] != row[f]
		}
		o := make([]int, len(X))
		if !nan {
			slices.SortFunc(ks, func(a, b keyed) int {
				switch {
				case a.x < b.x:
					return -1
				case a.x > b.x:
					return 1
				}
				return a.i - b.i
			})
			for j, k := range ks {
				o[j] = k.i
			}
			out[f] = o
			continue
		}
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
// targets and the classes of their values (equal where the values are)
// beside their indices, so the scan reads one array in order; a node's
// children take their lists from two buffers, one for the even depths
// and one for the odd (siblings share their depth's buffer, each in its
// parent's span), so growing a tree allocates nothing per node. A feature
// that is constant over a node's rows (its first and last values in order
// are equal) has no cut there or below: its list is neither scanned nor
// handed down (one-hot features soon are). The sums are formed in the
// order fitEnsembleTreeRef forms them: the trees are the same, split for
// split and bit for bit.
func fitEnsembleTree(X [][]float64, y []float64, w []int, sorted [][]int, o growOpts) *TreeNode {
	return newTreeScratch(X, sorted).fit(y, w, o)
}

// treeEntry is one row in one feature's sorted list: its target, the class
// of its value of the feature (see treeScratch.vs) and its index.
//
// The lists are most of what growing a tree reads and writes (megabytes
// at the top levels on an op family's rows, more than the cache holds),
// and an entry is 16 bytes where the value and the weight beside it made
// 24: the scan compares values only for equality, which their classes
// tell; the cut's two values, and a row's weight, are looked up by row.
type treeEntry struct {
	y float64
	v int32
	i int32
}

// treeScratch grows trees on one X: its presorted orders and the classes
// of the values in them, and the lists' two buffers, reused from tree to
// tree.
type treeScratch struct {
	X      [][]float64 // read for a cut's two values (and its rows' where a NaN is)
	sorted [][]int
	// vs[f][j] is the class of the j-th value in feature f's order: two
	// values are of one class where they are equal (==, so −0 and 0 are
	// too), and a NaN, equal to nothing, is of a class of its own
	vs  [][]int32
	nan []bool // nan[f]: feature f has a NaN
	// bufs[d%2] holds the lists of the nodes of depth d. A node's lists
	// are read last when it hands them down to its children, and each
	// child writes its own children's over them, within its span: its
	// sibling's lists, in the other buffer or beyond its span in this
	// one, are left whole until the sibling's turn. Two buffers are the
	// cache's to keep where one per depth were not (megabytes each on an
	// op family's rows).
	bufs [2][]treeEntry
	// live[d] are the features whose lists the nodes of depth d hold, in
	// that order (feature 0 first, always: a node's sums run in its
	// order); at[d][f] is f's place among them, or −1
	live, at [][]int
	side     []uint8
	feats    []int
	cw       []float32 // by row, the tree's weights: small integers, exact in a float32
}

// newTreeScratch prepares to grow trees on X, whose presorted orders are
// sorted.
func newTreeScratch(X [][]float64, sorted [][]int) *treeScratch {
	vs := make([][]int32, len(sorted))
	nan := make([]bool, len(sorted))
	for f, order := range sorted {
		vs[f] = make([]int32, len(order))
		for _, i := range order {
			nan[f] = nan[f] || X[i][f] != X[i][f]
		}
		if !nan[f] {
			// in order, equal values are neighbours
			var v int32
			for j, i := range order {
				if j > 0 && X[i][f] != X[order[j-1]][f] {
					v++
				}
				vs[f][j] = v
			}
			continue
		}
		// a NaN is neither below nor above a value, and the stable
		// sort may leave equal values apart around one; a map's keys
		// are told apart by == (−0 finds 0's class, a NaN none)
		class := map[float64]int32{}
		for j, i := range order {
			v, ok := class[X[i][f]]
			if !ok {
				v = int32(len(class))
				class[X[i][f]] = v
			}
			vs[f][j] = v
		}
	}
	return &treeScratch{X: X, sorted: sorted, vs: vs, nan: nan}
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
	for b := range s.bufs {
		if cap(s.bufs[b]) < p*n0+1 {
			// with an eighth to spare: boosting's subsamples and the
			// forest's bootstraps draw a few rows more or fewer from
			// tree to tree, and a buffer just the size of the largest
			// draw so far was made anew at every new largest (tens of
			// MB on an op family's rows, cleared each time); and one
			// entry more, which the top level's lists are written
			// through
			s.bufs[b] = make([]treeEntry, p*min(len(y), n0+n0/8)+1)
		}
		s.bufs[b] = s.bufs[b][:p*n0]
	}
	if len(s.live) < o.depth+1 {
		s.live, s.at = make([][]int, o.depth+1), make([][]int, o.depth+1)
	}
	for d := range o.depth + 1 {
		if len(s.at[d]) != p {
			s.live[d], s.at[d] = make([]int, 0, p), make([]int, p)
		}
	}
	if len(s.side) < len(y) {
		s.side = make([]uint8, len(y)) // 1 when a row goes left, else 0
	}
	if len(s.cw) < len(y) {
		s.cw = make([]float32, len(y))
	}
	cw := s.cw
	for i, c := range w {
		cw[i] = float32(c)
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
	// feature f's n0 entries from f*n0 in the top level. Every row is
	// written and only a row in the sample is kept (the next one written
	// over it where not): a subsample's rows are a coin toss each, and a
	// branch on the weight missed a guess for every few rows. The last
	// feature's last row written may fall past its list: on the entry
	// the buffer holds beyond the level's.
	top := s.bufs[0][:p*n0+1]
	s.live[0] = s.live[0][:0]
	for f := range p {
		s.live[0] = append(s.live[0], f)
		k := f * n0
		vs := s.vs[f]
		for j, i := range sorted[f] {
			c := w[i]
			top[k] = treeEntry{y: y[i], v: vs[j], i: int32(i)}
			if c > 0 {
				k++
			}
		}
	}
	// grow splits the node whose lists are the n entries per feature from
	// off in its level's buffer, bufs[level%2] (the j-th of live[level] at
	// off+j*n).
	var grow func(level, off, n, depth int) *TreeNode
	grow = func(level, off, n, depth int) *TreeNode {
		live, at := s.live[level], s.at[level]
		buf := s.bufs[level%2][off : off+len(live)*n]
		var sum, sq, cnt float64
		for _, e := range buf[:n] {
			c := float64(cw[e.i])
			sum += c * e.y
			sq += c * e.y * e.y
			cnt += c
		}
		node := &TreeNode{Value: sum / cnt}
		if depth <= 0 || cnt < float64(2*o.minLeaf) {
			leafValues(o.values, buf[:n], node.Value)
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
		// every weight is 1 where they sum to the count of rows (each is
		// at least 1): boosting's rows, a bootstrap's rows drawn once
		unit := cnt == float64(n)
		best := sq - sum*sum/cnt
		bestF, bestK := -1, 0
		for _, f := range try {
			if at[f] < 0 {
				continue // constant above: no cut
			}
			order := buf[at[f]*n : (at[f]+1)*n]
			if order[0].v == order[n-1].v {
				continue // constant here
			}
			var k int
			if unit {
				best, k = bestCutUnit(order, sum, sq, cnt, o.minLeaf, best)
			} else {
				best, k = bestCut(order, cw, sum, sq, cnt, o.minLeaf, best)
			}
			if k >= 0 {
				bestF, bestK = f, k
			}
		}
		if bestF < 0 {
			leafValues(o.values, buf[:n], node.Value)
			return node
		}
		cut := buf[at[bestF]*n : (at[bestF]+1)*n]
		X := s.X
		a, b := X[cut[bestK].i][bestF], X[cut[bestK+1].i][bestF]
		bestT := between(a, b)
		if !(a < bestT) { // a and b adjacent floats
			bestT = b
		}
		// The rows below the threshold go left. In a list in order those
		// are the entries up to the cut's (a < bestT ≤ b), unless a NaN
		// is among them or the threshold passed b (between(a, b) is +Inf
		// where b − a is): then each row's value is compared.
		inOrder := !s.nan[bestF] && b >= bestT
		nl, cl := 0, 0.0
		for k, e := range cut {
			left := k <= bestK
			if !inOrder {
				left = X[e.i][bestF] < bestT
			}
			if left {
				side[e.i] = 1
				nl++
				cl += float64(cw[e.i])
			} else {
				side[e.i] = 0
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
			if f == 0 || !leaves && buf[j*n].v != buf[j*n+n-1].v {
				down = append(down, f)
			}
		}
		s.live[level+1] = down
		m, nr := len(down), n-nl
		next := s.bufs[(level+1)%2][off : off+m*n]
		for k, f := range down {
			splitList(buf[at[f]*n:(at[f]+1)*n], next, k*nl, m*nl+k*nr, side)
		}
		node.Feature, node.Threshold = bestF, bestT
		node.Left = grow(level+1, off, nl, depth-1)
		node.Right = grow(level+1, off+m*nl, nr, depth-1)
		return node
	}
	return grow(0, 0, n0, o.depth)
}

// bestCut scans one feature's list of a node (sum, sq and cnt its
// weighted sums of y, y² and 1) for the cut that lowers the squared error
// below best by more than 1e-12, leaving minLeaf rows (weights) on either
// side: it gives the cut's error and the index of the last entry left of
// it, or best and −1 where no cut does. A cut is between two entries of
// distinct values; the first of two equal errors wins.
func bestCut(order []treeEntry, cw []float32, sum, sq, cnt float64, minLeaf int, best float64) (float64, int) {
	cut := -1
	ml := float64(minLeaf)
	var ls, lq, nl float64
	for k := 0; k < len(order)-1; k++ {
		e := &order[k]
		c := float64(cw[e.i])
		ls += c * e.y
		lq += c * e.y * e.y
		nl += c
		nr := cnt - nl
		if nr < ml {
			break // nr only falls from here on
		}
		if nl < ml {
			continue
		}
		if e.v == order[k+1].v {
			continue
		}
		rs, rq := sum-ls, sq-lq
		sse := lq - ls*ls/nl + rq - rs*rs/nr
		if sse < best-1e-12 {
			best, cut = sse, k
		}
	}
	return best, cut
}

// bestCutUnit is bestCut on a list whose weights are all 1, as every list
// of boosting's trees is: the sums take y and y·y where bestCut takes 1·y
// and 1·y·y, the same floats (multiplying by 1 is exact), and the counts
// are the entries' (k+1 left: adding 1s to a whole float is exact), so
// the cuts that leave minLeaf rows on either side are a range of k, not a
// test per entry. The errors are bestCut's, bit for bit, and so the cut.
func bestCutUnit(order []treeEntry, sum, sq, cnt float64, minLeaf int, best float64) (float64, int) {
	cut := -1
	n := len(order)
	// nl = k+1 ≥ minLeaf and nr = n−k−1 ≥ minLeaf; at least 1 each
	lo, hi := max(minLeaf, 1)-1, n-1-max(minLeaf, 1)
	var ls, lq float64
	for _, e := range order[:lo] {
		ls += e.y
		lq += e.y * e.y
	}
	for k := lo; k <= hi; k++ {
		e := &order[k]
		ls += e.y
		lq += e.y * e.y
		if e.v == order[k+1].v {
			continue
		}
		nl := float64(k + 1)
		nr := cnt - nl
		rs, rq := sum-ls, sq-lq
		sse := lq - ls*ls/nl + rq - rs*rs/nr
		if sse < best-1e-12 {
			best, cut = sse, k
		}
	}
	return best, cut
}

// splitList copies list's entries, in order, to next: those whose row
// goes left (side 1) from li on, the others from ri on.
//
// Each entry goes to the one place or the other without a branch: which
// side a row takes is a coin toss to the processor in every list but the
// cut's, and a missed guess per entry cost more than the copy. A function
// of its own, the loop keeps its indices in registers (in grow's closure
// they were spilled and reloaded at every entry).
func splitList(list, next []treeEntry, li, ri int, side []uint8) {
	for _, e := range list {
		g := int(side[e.i])
		j := ri
		if g != 0 {
			j = li
		}
		next[j] = e
		li += g
		ri += 1 - g
	}
}

// leafValues sets values[i], where values is not nil, to a leaf's value v
// for every row i in its list.
func leafValues(values []float64, list []treeEntry, v float64) {
	if values == nil {
		return
	}
	for _, e := range list {
		values[e.i] = v
	}
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
	v := make([]float64, len(y))
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
		t := scratch.fit(r, w, growOpts{depth: bp.Depth, minLeaf: bp.MinLeaf, values: v})
		trees = append(trees, t)
		// a row the tree was fitted on takes its leaf's value from the
		// fit, the leaf Predict walks it to (the fit sent it down by the
		// same x < threshold); only the rows left out walk the tree
		for i := range y {
			if w[i] > 0 {
				f[i] += bp.Shrinkage * v[i]
			} else {
				f[i] += bp.Shrinkage * t.Predict(X[i])
			}
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
