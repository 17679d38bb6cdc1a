package predictor

import (
	"math"
	"sort"
)

// TreeNode is a node of a CART regression tree: a leaf when Left is nil,
// else a split sending x[Feature] < Threshold left.
type TreeNode struct {
	Feature   int       `json:"f,omitempty"`
	Threshold float64   `json:"t,omitempty"`
	Value     float64   `json:"v"`
	Left      *TreeNode `json:"l,omitempty"`
	Right     *TreeNode `json:"r,omitempty"`
}

// Predict walks the tree to x's leaf.
//
// The child is picked from the pair by the comparison's 0 or 1, not by a
// branch: which way a row goes is a coin toss to the processor, and a
// missed guess at every level cost more than the walk (fitting boosted
// trees predicts every row left out of each tree's sample).
func (n *TreeNode) Predict(x []float64) float64 {
	for n.Left != nil {
		kids := [2]*TreeNode{n.Right, n.Left}
		n = kids[b2i(x[n.Feature] < n.Threshold)]
	}
	return n.Value
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// FitTree grows a CART regression tree (squared-error splits) on X, y:
// splits stop at maxDepth, below 2·minLeaf rows, or when no split leaves
// minLeaf rows on each side and lowers the squared error.
func FitTree(X [][]float64, y []float64, maxDepth, minLeaf int) *TreeNode {
	idx := make([]int, len(y))
	for i := range idx {
		idx[i] = i
	}
	return grow(X, y, idx, maxDepth, max(minLeaf, 1))
}

func grow(X [][]float64, y []float64, idx []int, depth, minLeaf int) *TreeNode {
	var sum, sq float64
	for _, i := range idx {
		sum += y[i]
		sq += y[i] * y[i]
	}
	n := float64(len(idx))
	node := &TreeNode{Value: sum / n}
	if depth <= 0 || len(idx) < 2*minLeaf {
		return node
	}
	best := sq - sum*sum/n // the node's squared error
	bestF, bestT := -1, 0.0
	order := make([]int, len(idx))
	for f := range X[idx[0]] {
		copy(order, idx)
		sort.SliceStable(order, func(a, b int) bool { return X[order[a]][f] < X[order[b]][f] })
		var ls, lq float64
		for k := 0; k < len(order)-1; k++ {
			yi := y[order[k]]
			ls += yi
			lq += yi * yi
			nl := float64(k + 1)
			if k+1 < minLeaf || len(order)-k-1 < minLeaf {
				continue
			}
			a, b := X[order[k]][f], X[order[k+1]][f]
			if a == b {
				continue
			}
			rs, rq, nr := sum-ls, sq-lq, n-nl
			sse := lq - ls*ls/nl + rq - rs*rs/nr
			if sse < best-1e-12 {
				best, bestF, bestT = sse, f, between(a, b)
			}
		}
	}
	if bestF < 0 {
		return node
	}
	var l, r []int
	for _, i := range idx {
		if X[i][bestF] < bestT {
			l = append(l, i)
		} else {
			r = append(r, i)
		}
	}
	node.Feature, node.Threshold = bestF, bestT
	node.Left = grow(X, y, l, depth-1, minLeaf)
	node.Right = grow(X, y, r, depth-1, minLeaf)
	return node
}

// knnPredict averages the targets of x's k nearest points (Euclidean),
// ties broken by index so that a prediction is deterministic: the k
// smallest (distance, index) pairs, summed nearest first. They are kept
// in a sorted buffer of k as the points are scanned, not by sorting every
// distance (the same points in the same order, at a fraction of the cost).
func knnPredict(X [][]float64, y []float64, k int, x []float64) float64 {
	type nd struct {
		d float64
		i int
	}
	k = min(k, len(X))
	if k <= 0 {
		return math.NaN() // no points: as the mean of none
	}
	near := make([]nd, 0, k)
	bound := math.Inf(1) // the k-th distance kept, once k are
	for i, p := range X {
		var s float64
		for j := range p {
			d := p[j] - x[j]
			s += d * d
			// the sum only grows: a point already as far as the k-th
			// kept is not kept
			if s >= bound {
				break
			}
		}
		if s != s { // NaN (from a file's degenerate scaling): farthest
			s = math.Inf(1)
		}
		// Points come in index order, so a later point displaces a
		// kept one only at a strictly smaller distance.
		if len(near) == k && !(s < near[k-1].d) {
			continue
		}
		if len(near) < k {
			near = append(near, nd{})
		}
		at := len(near) - 1
		for at > 0 && s < near[at-1].d {
			near[at] = near[at-1]
			at--
		}
		near[at] = nd{s, i}
		if len(near) == k {
			bound = near[k-1].d
		}
	}
	var s float64
	for _, e := range near {
		s += y[e.i]
	}
	return s / float64(k)
}

// fitRidge solves (XᵀX + λI)w = Xᵀy with an unpenalised intercept on
// standardised X; it returns the intercept and the weights.
func fitRidge(X [][]float64, y []float64, lambda float64) (float64, []float64) {
	p := len(X[0]) + 1
	A := make([][]float64, p)
	for i := range A {
		A[i] = make([]float64, p+1)
	}
	for r, x := range X {
		row := append([]float64{1}, x...)
		for i := 0; i < p; i++ {
			for j := 0; j < p; j++ {
				A[i][j] += row[i] * row[j]
			}
			A[i][p] += row[i] * y[r]
		}
	}
	for i := 1; i < p; i++ {
		A[i][i] += lambda
	}
	// Gaussian elimination with partial pivoting.
	for c := 0; c < p; c++ {
		piv := c
		for r := c + 1; r < p; r++ {
			if math.Abs(A[r][c]) > math.Abs(A[piv][c]) {
				piv = r
			}
		}
		A[c], A[piv] = A[piv], A[c]
		if math.Abs(A[c][c]) < 1e-12 {
			continue
		}
		for r := 0; r < p; r++ {
			if r == c {
				continue
			}
			f := A[r][c] / A[c][c]
			for k := c; k <= p; k++ {
				A[r][k] -= f * A[c][k]
			}
		}
	}
	w := make([]float64, p)
	for i := range w {
		if math.Abs(A[i][i]) >= 1e-12 {
			w[i] = A[i][p] / A[i][i]
		}
	}
	return w[0], w[1:]
}

// between is the split threshold between feature values a < b: their
// midpoint, or b where the midpoint rounds down to a (adjacent floats),
// so that x < threshold always sends a left and b right.
func between(a, b float64) float64 {
	if m := a + (b-a)/2; m > a {
		return m
	}
	return b
}
