package predictor

import (
	"math"
	"slices"

	"github.com/wb-sim/wb/internal/registry"
)

// family is one regressor a learned correction can be: how it is fitted,
// how it predicts, which of the settings is its depth (nil: none) and
// whether a loaded model of it is complete. Each is registered once in
// families; Train, Correct, LoadLearned and the cross-validation look
// families up there rather than switching on their names (but for the
// cross-validation's shortcut for a median: medianMemberIndices).
type family struct {
	// depth is the settings' depth of this family, or nil.
	depth func(st *settings) *int
	// fit sets l's fitted fields from X (raw features), Z (standardised)
	// and the log-ratio targets y.
	fit func(l *Learned, X, Z [][]float64, y []float64, st settings)
	// predict is the log ratio l predicts for raw features x.
	predict func(l *Learned, x []float64) float64
	// complete reports whether a loaded l has every fitted field, for p
	// features.
	complete func(l *Learned, p int) bool
}

// families are the regressors, in the order Train's cross-validation
// tries them (Families).
var families = func() *registry.Registry[family] {
	r := registry.New[family]("model family")
	r.MustRegister("tree", family{
		depth: func(st *settings) *int { return &st.treeDepth },
		fit: func(l *Learned, X, _ [][]float64, y []float64, st settings) {
			l.Tree = FitTree(X, y, st.treeDepth, st.treeMinLeaf)
		},
		predict:  func(l *Learned, x []float64) float64 { return l.Tree.Predict(x) },
		complete: func(l *Learned, p int) bool { return treeFeaturesBelow(l.Tree, p) },
	})
	r.MustRegister("knn", family{
		fit:      func(l *Learned, _, Z [][]float64, y []float64, st settings) { l.fitKNN(Z, y, st) },
		predict:  (*Learned).knnLog,
		complete: knnComplete,
	})
	r.MustRegister("linear", family{
		fit: func(l *Learned, _, Z [][]float64, y []float64, st settings) {
			l.Intercept, l.Weights = fitRidge(Z, y, st.ridgeLambda)
			if len(y) > 0 {
				l.Range = [2]float64{slices.Min(y), slices.Max(y)}
			}
		},
		predict: func(l *Learned, x []float64) float64 {
			z := l.standardise(x)
			v := l.Intercept
			for j := range z {
				v += l.Weights[j] * z[j]
			}
			if l.Range != [2]float64{} {
				v = min(max(v, l.Range[0]), l.Range[1])
			}
			return v
		},
		complete: func(l *Learned, _ int) bool { return len(l.Weights) == len(l.Features) },
	})
	r.MustRegister("boost", family{
		depth:    func(st *settings) *int { return &st.boost.Depth },
		fit:      func(l *Learned, X, _ [][]float64, y []float64, st settings) { l.fitBoost(X, y, st) },
		predict:  (*Learned).boostLog,
		complete: boostComplete,
	})
	r.MustRegister("forest", family{
		depth:    func(st *settings) *int { return &st.forest.Depth },
		fit:      func(l *Learned, X, _ [][]float64, y []float64, st settings) { l.Trees = FitForest(X, y, st.forest) },
		predict:  func(l *Learned, x []float64) float64 { return forestPredict(l.Trees, x) },
		complete: func(l *Learned, p int) bool { return treesBelow(l.Trees, p) },
	})
	// median: the median of the boosted trees' (at the depth set), the
	// neighbours' and the forest's log ratios, each fitted as its own
	// family is. Each of the three misses where the others do not: the
	// neighbours average shapes unlike a large layer's (recommendation's
	// 20,108-wide products), the trees cut in steps; the median follows
	// the two that agree.
	r.MustRegister("median", family{
		depth: func(st *settings) *int { return &st.boost.Depth },
		fit: func(l *Learned, X, Z [][]float64, y []float64, st settings) {
			l.fitBoost(X, y, st)
			l.fitKNN(Z, y, st)
			l.Forest = FitForest(X, y, st.forest)
		},
		predict: func(l *Learned, x []float64) float64 {
			return median3(l.boostLog(x), l.knnLog(x), forestPredict(l.Forest, x))
		},
		complete: func(l *Learned, p int) bool {
			return boostComplete(l, p) && knnComplete(l, p) && treesBelow(l.Forest, p)
		},
	})
	return r
}()

// medianMembers are the configurations whose predictions the median c
// takes the middle of: the boosted trees at its depth, the neighbours and
// the forest at forestDepth (the settings' depth its own forest is fitted
// at), on its features.
func medianMembers(c Candidate, forestDepth int) [3]Candidate {
	return [3]Candidate{
		{Family: "boost", Depth: c.Depth, Features: c.Features},
		{Family: "knn", Features: c.Features},
		{Family: "forest", Depth: forestDepth, Features: c.Features},
	}
}

// fitBoost and fitKNN fit the boosted trees and the neighbours into l,
// for their own families and the median's.
func (l *Learned) fitBoost(X [][]float64, y []float64, st settings) {
	l.Shrinkage = st.boost.Shrinkage
	l.Intercept, l.Trees = FitBoost(X, y, st.boost)
}

func (l *Learned) fitKNN(Z [][]float64, y []float64, st settings) {
	l.K, l.Points, l.Targets = st.knnK, Z, y
}

// boostLog and knnLog are the log ratios l's boosted trees and neighbours
// predict for raw features x.
func (l *Learned) boostLog(x []float64) float64 {
	return boostPredict(l.Intercept, l.Shrinkage, l.Trees, x)
}

func (l *Learned) knnLog(x []float64) float64 {
	return knnPredict(l.Points, l.Targets, l.K, l.standardise(x))
}

// boostComplete reports whether l has boosted trees splitting on p features.
func boostComplete(l *Learned, p int) bool { return l.Shrinkage > 0 && treesBelow(l.Trees, p) }

// median3 is the middle of three values.
func median3(a, b, c float64) float64 {
	return max(min(a, b), min(max(a, b), c))
}

// knnComplete reports whether l has neighbours of p features and k.
func knnComplete(l *Learned, p int) bool {
	return l.K > 0 && l.K <= len(l.Points) && len(l.Points) == len(l.Targets) && len(l.Points) > 0 &&
		!slices.ContainsFunc(l.Points, func(x []float64) bool { return len(x) != p })
}

// treesBelow reports whether there are trees and every split of each uses
// one of p features.
func treesBelow(trees []*TreeNode, p int) bool {
	for _, t := range trees {
		if !treeFeaturesBelow(t, p) {
			return false
		}
	}
	return len(trees) > 0
}

// correctionBound bounds a predicted log ratio: corrections are at most
// e^±8.
const correctionBound = 8

func boundCorrection(v float64) float64 {
	return math.Exp(math.Max(-correctionBound, math.Min(correctionBound, v)))
}
