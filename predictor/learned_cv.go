package predictor

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/wb-sim/wb/profiler"
)

// Cross-validation by model. A model's layers resemble each other (its
// blocks repeat, and one shape recurs at every batch size), so rows held out
// by layer shape (KeyFolds) still have the rest of their model in training.
// Here a model is held out whole: every row of it (all its batch sizes),
// with every row of any model or sweep that has one of its layer shapes
// (keys) left out of training. Sweeps are training data only: they are
// never held out, nor scored.

// Candidate is one configuration Train chooses among: a family, the depth
// of its trees (tree, boost, forest; the median's boosted trees, its
// forest at forestDepth; 0 for KNN and ridge) and a numeric feature set
// (FeatureSets).
type Candidate struct {
	Family   string `json:"family"`
	Depth    int    `json:"depth,omitempty"`
	Features string `json:"features"`
	// numeric are the features where they are no named set's (a loaded
	// predictor's, Learned.Candidate); nil: Features'.
	numeric []string
}

// String reads "boost depth 6, all features".
func (c Candidate) String() string {
	s := c.Family
	if c.Depth > 0 {
		s += fmt.Sprintf(" depth %d", c.Depth)
	}
	f := c.Features
	if f == "" {
		f = fmt.Sprintf("%d numeric", len(c.numeric))
	}
	return s + ", " + f + " features"
}

// GridScore is one configuration's cross-validated scores.
type GridScore struct {
	Candidate Candidate `json:"candidate"`
	Scores    Scores    `json:"scores"`
}

// Grid is every family on every feature set: the tree at each of
// treeDepths, the boosted trees at each of boostDepths, the forest at
// its default depth (forestDepth), KNN and ridge, and the median of the
// boosted trees (at each of boostDepths), KNN and the forest, in
// Families' order within each set.
func Grid(sets []string, treeDepths, boostDepths []int) []Candidate {
	var g []Candidate
	for _, f := range sets {
		for _, d := range treeDepths {
			g = append(g, Candidate{Family: "tree", Depth: d, Features: f})
		}
		g = append(g, Candidate{Family: "knn", Features: f}, Candidate{Family: "linear", Features: f})
		for _, d := range boostDepths {
			g = append(g, Candidate{Family: "boost", Depth: d, Features: f})
		}
		g = append(g, Candidate{Family: "forest", Depth: forestDepth, Features: f})
		for _, d := range boostDepths {
			g = append(g, Candidate{Family: "median", Depth: d, Features: f})
		}
	}
	return g
}

// Candidate is the predictor's configuration, to refit it on other rows
// (HeldOutModels): its family, depth and numeric features.
func (l *Learned) Candidate() Candidate {
	return Candidate{Family: l.Model, Depth: l.Depth, Features: l.FeatureSet, numeric: slices.Clone(l.Featurizer.numericList())}
}

// with is st set to fit c.
func (st settings) with(c Candidate) (settings, error) {
	fam, ok := families.Get(c.Family)
	if !ok {
		return st, fmt.Errorf("predictor: unknown model family %q (known: %v)", c.Family, Families)
	}
	if c.Depth > 0 && fam.depth != nil {
		*fam.depth(&st) = c.Depth
	}
	if c.numeric != nil {
		st.numeric = c.numeric
		return st, nil
	}
	n, err := featureSet(c.Features)
	st.numeric = n
	return st, err
}

// fitCandidate fits c on the samples idx.
func fitCandidate(s []Sample, idx []int, c Candidate, st settings) (*Learned, error) {
	st, err := st.with(c)
	if err != nil {
		return nil, err
	}
	tr := make([]Sample, len(idx))
	for k, i := range idx {
		tr[k] = s[i]
	}
	return fit(tr, c.Family, st)
}

// ModelFolds are the samples' models (not sweeps), sorted, and the rows of
// each: all its layer passes at every batch size, copies and whole
// iterations included.
func ModelFolds(s []Sample) (models []string, folds [][]int) {
	at := map[string]int{}
	for i := range s {
		if !s[i].Sweep() {
			if _, ok := at[s[i].Record.Model]; !ok {
				at[s[i].Record.Model] = 0
				models = append(models, s[i].Record.Model)
			}
		}
	}
	slices.Sort(models)
	for k, m := range models {
		at[m] = k
	}
	folds = make([][]int, len(models))
	for i := range s {
		if !s[i].Sweep() {
			k := at[s[i].Record.Model]
			folds[k] = append(folds[k], i)
		}
	}
	return models, folds
}

// ModelSplitTrain is what a model trained while the test rows' models are
// held out learns from: the learnable rows (Sample.Learnable) among pool
// (nil: every sample) of no held-out model, of no layer shape (key) that
// any test row has and of no work identical to a test row's (the same
// feature row: what the regressor sees), so that a shape of a held-out
// model is never learned from, whichever model or sweep it was measured
// in, nor its work under another name (a ReLU of 64×112×112 values and
// one of 256×56×56 are one flat kernel over as many elements, with
// feature rows alike: a reviewer found 34 of the bundled profiles' 1,941
// scored rows with such a twin in their fold's training rows); and the
// whole iterations of the other models, which ColdTraffic is fitted to,
// but for those with a layer of such a shape or work (an iteration's
// Layers sums its layers' measured times: a held-out shape's would be
// learned there).
func ModelSplitTrain(s []Sample, pool, test []int) []int {
	models := map[string]bool{}
	for _, i := range test {
		models[s[i].Record.Model] = true
	}
	held := heldShapes(s, test)
	// iterations with a held-out shape or work among their layers
	tainted := iterationsWith(s, held)
	ok := func(i int) bool {
		if s[i].Iteration && tainted[iterationKey(&s[i].Record)] {
			return false
		}
		return (s[i].Learnable() || s[i].Iteration) && !models[s[i].Record.Model] && !held(&s[i])
	}
	var train []int
	if pool == nil {
		for i := range s {
			if ok(i) {
				train = append(train, i)
			}
		}
		return train
	}
	for _, i := range pool {
		if ok(i) {
			train = append(train, i)
		}
	}
	return train
}

// heldShapes reports whether a sample is of a layer shape (key) of the
// test rows, or of work identical to a test row's (a layer pass of the
// same feature row: what a regressor sees); held out with them.
func heldShapes(s []Sample, test []int) func(*Sample) bool {
	keys, work := map[string]bool{}, map[FeatureRow]bool{}
	for _, i := range test {
		keys[sampleKey(&s[i])] = true
		if !s[i].Iteration {
			work[s[i].Row] = true
		}
	}
	return func(x *Sample) bool { return keys[sampleKey(x)] || !x.Iteration && work[x.Row] }
}

// cvFold is one fold of a cross-validation: the models held out, their
// rows (test) and what the others' learn from (train).
type cvFold struct {
	held        []string
	test, train []int
}

// cvFit is a fit of a cross-validation by model, as settings.observe is
// told of it: the stage ("train": Train's choice; "inner": Nested's inner
// loop; "outer": its outer loop), the model the outer loop holds out
// ("" in Train), the models held out of this fit, and its training rows.
type cvFit struct {
	stage, outer string
	held         []string
	train        []int
}

// modelCV deals the models of the pool's rows (not sweeps) to k folds in
// an order rng shuffles (k ≤ 0, or more than the models: one model a fold)
// and splits the pool: each fold's rows are held out, and the other rows
// it may learn from are ModelSplitTrain's. Sweeps are never held out.
func modelCV(s []Sample, pool []int, k int, rng *rand.Rand) []cvFold {
	var models []string
	for _, i := range pool {
		if !s[i].Sweep() && !slices.Contains(models, s[i].Record.Model) {
			models = append(models, s[i].Record.Model)
		}
	}
	slices.Sort(models)
	rng.Shuffle(len(models), func(i, j int) { models[i], models[j] = models[j], models[i] })
	if k <= 0 || k > len(models) {
		k = len(models)
	}
	folds := make([]cvFold, k)
	foldOf := map[string]int{}
	for i, m := range models {
		folds[i%k].held = append(folds[i%k].held, m)
		foldOf[m] = i % k
	}
	for _, i := range pool {
		if !s[i].Sweep() {
			f := foldOf[s[i].Record.Model]
			folds[f].test = append(folds[f].test, i)
		}
	}
	for f := range folds {
		slices.Sort(folds[f].held)
		folds[f].train = ModelSplitTrain(s, pool, folds[f].test)
	}
	return folds
}

// shapeCV is KeyFolds as folds of a cross-validation, for rows of one
// model with no sweep: each fold learns from the other folds' rows.
func shapeCV(s []Sample, k int) []cvFold {
	keyFolds := KeyFolds(s, k)
	folds := make([]cvFold, len(keyFolds))
	for f, test := range keyFolds {
		folds[f].test = test
		for g, other := range keyFolds {
			if g != f {
				for _, i := range other {
					if s[i].Learnable() {
						folds[f].train = append(folds[f].train, i)
					}
				}
			}
		}
		slices.Sort(folds[f].train)
	}
	return folds
}

// Parallel runs f(0) … f(n−1), as many at once as there are processors,
// and joins their errors, each message once (the folds of a fit that a
// profile's figure fails fail alike). Each must write only its own
// results, so that nothing depends on the order they finish in.
func Parallel(n int, f func(int) error) error {
	errs := make([]error, n)
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for j := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			errs[j] = f(j)
		}()
	}
	wg.Wait()
	seen := map[string]bool{}
	kept := errs[:0]
	for _, err := range errs {
		if err != nil && !seen[err.Error()] {
			seen[err.Error()] = true
			kept = append(kept, err)
		}
	}
	return errors.Join(kept...)
}

// cvRun is one cross-validation of every configuration of a grid: its
// folds, each configuration's predictions of the folds' rows (pred[c], of
// every sample; analytical where not held out) and scores.
type cvRun struct {
	outer  string // the model Nested's outer loop holds out; "" in Train
	folds  []cvFold
	pred   [][]float64
	scores []Scores
}

// crossValidate fits every configuration of st.grid on every fold of the
// runs (a median whose members are in the grid takes the middle of their
// fold predictions instead: medianMemberIndices) and scores each
// configuration's predictions of the folds' rows, fitting side by side
// (all runs' fits at once). A fold with nothing to learn from keeps the
// analytical times of its rows for every configuration.
func crossValidate(s []Sample, runs []*cvRun, stage string, st settings) error {
	type job struct{ run, fold, cand int }
	var jobs []job
	an := Analytical(s)
	members := medianMemberIndices(st.grid, st.forest.Depth)
	for r, run := range runs {
		run.pred = make([][]float64, len(st.grid))
		for c := range st.grid {
			run.pred[c] = slices.Clone(an)
		}
		for f := range run.folds {
			if !anyLearnable(s, run.folds[f].train) {
				continue
			}
			for c := range st.grid {
				if members[c] == nil {
					jobs = append(jobs, job{r, f, c})
				}
			}
		}
	}
	var mu sync.Mutex
	err := Parallel(len(jobs), func(j int) error {
		jb := jobs[j]
		run, fold := runs[jb.run], &runs[jb.run].folds[jb.fold]
		if st.observe != nil {
			mu.Lock()
			st.observe(cvFit{stage: stage, outer: run.outer, held: fold.held, train: fold.train})
			mu.Unlock()
		}
		l, err := fitCandidate(s, fold.train, st.grid[jb.cand], st)
		if err != nil {
			return err
		}
		predictRows(run.pred[jb.cand], s, fold.test, l)
		return nil
	})
	if err != nil {
		return err
	}
	for _, run := range runs {
		// A median's fold predictions are the middle of its members' on
		// the same fold, as fitting it would give: its fit is theirs, and
		// the bound on a correction and the base's scale keep the middle
		// one the middle (a whole iteration's cold traffic is the same for
		// every family).
		for c, m := range members {
			for _, f := range run.folds {
				if m == nil || len(f.train) == 0 {
					continue
				}
				for _, i := range f.test {
					run.pred[c][i] = median3(run.pred[m[0]][i], run.pred[m[1]][i], run.pred[m[2]][i])
				}
			}
		}
		var test []int
		for _, f := range run.folds {
			test = append(test, f.test...)
		}
		slices.Sort(test)
		run.scores = make([]Scores, len(st.grid))
		for c := range st.grid {
			run.scores[c] = ScoreRows(s, run.pred[c], test)
		}
	}
	return nil
}

// medianMemberIndices gives, for each median candidate of grid whose
// members (medianMembers) are all in grid, their indices; nil for every
// other candidate, which is fitted.
func medianMemberIndices(grid []Candidate, forestDepth int) [][]int {
	out := make([][]int, len(grid))
	for c, cand := range grid {
		if cand.Family != "median" || cand.numeric != nil {
			continue
		}
		var idx []int
		for _, want := range medianMembers(cand, forestDepth) {
			if j := slices.IndexFunc(grid, func(g Candidate) bool {
				return g.Family == want.Family && g.Depth == want.Depth && g.Features == want.Features && g.numeric == nil
			}); j >= 0 {
				idx = append(idx, j)
			}
		}
		if len(idx) == 3 {
			out[c] = idx
		}
	}
	return out
}

// best is the index in grid of the configuration of the family (any, for
// "") with the lowest MAPE, the first in grid order of those tied; -1 where
// the grid has none of the family.
func best(grid []Candidate, scores []Scores, family string) int {
	b := -1
	for c := range grid {
		if family != "" && grid[c].Family != family {
			continue
		}
		if b < 0 || scores[c].MAPE < scores[b].MAPE {
			b = c
		}
	}
	return b
}

// MinTrainShapes is the fewest distinct layer shapes Train learns from:
// with fewer, its cross-validation has folds with nothing to learn from
// or nothing to score.
const MinTrainShapes = 10

// Train chooses a configuration (a family, its trees' depth and a feature
// set: the candidates of Grid) by cross-validation by model: ModelCVFolds
// folds of whole models, each predicted by a fit on the other models' rows
// and the sweeps', less every row of a layer shape a held-out model has
// (ModelSplitTrain). It keeps the configuration with the lowest MAPE on
// the models' distinct measurements (copies are neither learned from nor
// scored; sweeps are learned from, not scored) and fits it on every
// learnable row. Profiles of one model with no sweep are split by layer
// shape instead (CVFolds folds). devices maps a row's Device field to its
// predictor device; st is the time learned.
//
// The scores that chose the configuration flatter it; Nested scores the
// choice honestly, on models it never saw.
func Train(rows []profiler.Record, devices map[string]*Device, st Stat) (*Learned, error) {
	return train(rows, devices, st, defaults)
}

// train is Train with the settings set.
func train(rows []profiler.Record, devices map[string]*Device, st Stat, set settings) (*Learned, error) {
	s, err := Samples(rows, devices, st)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(s, func(x Sample) bool { return x.Learnable() }) {
		return nil, errors.New("predictor: no ok rows with an analytical time to learn from")
	}
	if !slices.ContainsFunc(s, func(x Sample) bool { return !x.Sweep() && x.Learnable() }) {
		return nil, errors.New("predictor: every row is a sweep's; sweeps are training data beside models' profiles, which the families are scored on: add at least one model's profile")
	}
	shapes := map[string]bool{}
	for i := range s {
		if s[i].Learnable() {
			shapes[sampleKey(&s[i])] = true
		}
	}
	if len(shapes) < MinTrainShapes {
		return nil, fmt.Errorf("predictor: %d distinct layer shape(s) measured; cross-validation needs at least %d to choose a configuration "+
			"(profile more: a model, or a sweep such as wb profile sweep:linear:40)", len(shapes), MinTrainShapes)
	}
	all := make([]int, len(s))
	for i := range all {
		all[i] = i
	}
	rng := rand.New(rand.NewPCG(set.seed, set.seed+1))
	run := &cvRun{folds: modelCV(s, all, set.modelFolds, rng)}
	split := fmt.Sprintf("%d folds by model", len(run.folds))
	if set.modelFolds <= 0 {
		split = fmt.Sprintf("leave one model out (%d models)", len(run.folds))
	}
	if !slices.ContainsFunc(run.folds, func(f cvFold) bool { return anyLearnable(s, f.train) }) {
		run.folds = shapeCV(s, set.folds)
		split = fmt.Sprintf("%d folds by layer shape (one model, no sweep: nothing to learn from with the model held out)", len(run.folds))
	}
	if err := crossValidate(s, []*cvRun{run}, "train", set); err != nil {
		return nil, err
	}
	cv := map[string]Scores{"analytical": Score(s, Analytical(s))}
	for _, fam := range Families {
		if b := best(set.grid, run.scores, fam); b >= 0 {
			cv[fam] = run.scores[b]
		}
	}
	pick := best(set.grid, run.scores, "")
	l, err := fitCandidate(s, all, set.grid[pick], set)
	if err != nil {
		return nil, err
	}
	l.CV, l.Stat, l.CVSplit = cv, st, split
	for c, cand := range set.grid {
		l.Grid = append(l.Grid, GridScore{Candidate: cand, Scores: run.scores[c]})
	}
	return l, nil
}

// HeldOutWith is HeldOut of the configuration c (Learned.Candidate: a
// predictor's family, depth and features), not the family's defaults.
func HeldOutWith(s []Sample, c Candidate, folds [][]int) ([]float64, error) {
	st, err := defaults.with(c)
	if err != nil {
		return nil, err
	}
	return heldOut(s, c.Family, folds, st)
}

// HeldOutSplitWith is HeldOutSplit of the configuration c.
func HeldOutSplitWith(s []Sample, c Candidate, train, test []int) ([]float64, error) {
	st, err := defaults.with(c)
	if err != nil {
		return nil, err
	}
	return heldOutSplit(s, c.Family, train, test, st)
}

// HeldOutModels predicts every model's rows (ModelFolds) with the
// configuration c fitted on the rest (ModelSplitTrain: the other models'
// and the sweeps' learnable rows, less every row of a layer shape the
// held-out model has). Sweeps' rows keep their analytical time. c is fixed,
// not chosen without the held-out model: a configuration Train chose on
// all the models has seen each; Nested chooses it without.
func HeldOutModels(s []Sample, c Candidate) ([]float64, error) {
	return heldOutModels(s, c, defaults)
}

// heldOutModels is HeldOutModels with the settings st.
func heldOutModels(s []Sample, c Candidate, st settings) ([]float64, error) {
	pred := Analytical(s)
	_, folds := ModelFolds(s)
	err := Parallel(len(folds), func(f int) error {
		train := ModelSplitTrain(s, nil, folds[f])
		if !anyLearnable(s, train) {
			return nil
		}
		l, err := fitCandidate(s, train, c, st)
		if err != nil {
			return err
		}
		predictRows(pred, s, folds[f], l)
		return nil
	})
	return pred, err
}

// NestedResult is a nested cross-validation: every model held out in turn
// (the outer loop), predicted by a configuration chosen without it.
type NestedResult struct {
	// Models are the models held out, sorted; Rows[i] are Models[i]'s
	// rows.
	Models []string
	Rows   [][]int
	// InnerFolds is the number of folds by model of the inner loop (0:
	// one model a fold).
	InnerFolds int
	// Picks[i] is the configuration the inner loop chose for Models[i]
	// over every family; FamilyPicks[f][i] the one it chose within the
	// family f.
	Picks       []Candidate
	FamilyPicks map[string][]Candidate
	// Pred are every sample's outer predictions, by family (each family's
	// pick) and "chosen" (the pick over every family): a model's rows as
	// the pick fitted without it predicts them; sweeps' rows analytical.
	Pred map[string][]float64
	// Scores are the outer scores (Score of Pred) by family, "chosen" and
	// "analytical".
	Scores map[string]Scores
}

// Nested scores Train's choice of configuration honestly, by nested
// cross-validation. The outer loop holds out each model in turn, with
// every row of its layer shapes (ModelSplitTrain); on what is left, the
// inner loop cross-validates every configuration as Train does (innerFolds
// folds by model, dealt by rng; ≤ 0: one model a fold) and picks the
// lowest MAPE, overall and within each family; each pick is then fitted on
// all that is left and predicts the held-out model. The inner loop never
// sees the held-out model nor any of its shapes. Only the outer
// predictions are scored. rng is drawn from in the models' order, so
// the result depends on it and the samples alone.
func Nested(s []Sample, innerFolds int, rng *rand.Rand) (*NestedResult, error) {
	set := defaults
	set.modelFolds = innerFolds
	return nested(s, set, rng)
}

// nested is Nested with the settings st (st.modelFolds inner folds).
func nested(s []Sample, st settings, rng *rand.Rand) (*NestedResult, error) {
	models, rows := ModelFolds(s)
	if len(models) == 0 {
		return nil, errors.New("predictor: nested cross-validation: no model's rows to hold out")
	}
	res := &NestedResult{Models: models, Rows: rows, InnerFolds: max(st.modelFolds, 0),
		FamilyPicks: map[string][]Candidate{}, Pred: map[string][]float64{}, Scores: map[string]Scores{}}
	runs := make([]*cvRun, len(models))
	outerTrain := make([][]int, len(models))
	for m := range models {
		outerTrain[m] = ModelSplitTrain(s, nil, rows[m])
		runs[m] = &cvRun{outer: models[m], folds: modelCV(s, outerTrain[m], st.modelFolds, rng)}
		// an inner fold with nothing to learn from scores every
		// configuration as the analytical model, and the pick is then the
		// grid's first, not a choice (a reviewer's find: two models and no
		// sweep were reported as a configuration "chosen")
		if len(runs[m].folds) == 0 {
			return nil, fmt.Errorf("predictor: nested cross-validation: holding out %s, no other model is left to cross-validate on, so no configuration can be chosen; give more models", models[m])
		}
		for _, f := range runs[m].folds {
			if !anyLearnable(s, f.train) {
				return nil, fmt.Errorf("predictor: nested cross-validation: holding out %s, the inner fold that holds out %s has no other model's or sweep's rows to learn from, so no configuration can be chosen there; give more models (each outer fold's inner loop needs at least two) or sweeps",
					models[m], strings.Join(f.held, ", "))
			}
		}
	}
	if err := crossValidate(s, runs, "inner", st); err != nil {
		return nil, err
	}
	var fams []string
	for _, f := range Families {
		if slices.ContainsFunc(st.grid, func(c Candidate) bool { return c.Family == f }) {
			fams = append(fams, f)
		}
	}
	for _, f := range fams {
		res.FamilyPicks[f] = make([]Candidate, len(models))
		res.Pred[f] = Analytical(s)
		for m, run := range runs {
			res.FamilyPicks[f][m] = st.grid[best(st.grid, run.scores, f)]
		}
	}
	for _, run := range runs {
		res.Picks = append(res.Picks, st.grid[best(st.grid, run.scores, "")])
	}
	// The outer fits: each model's family picks on all that is left. The
	// pick over every family is its family's pick (the same lowest MAPE,
	// the same tie-break), so its predictions are that family's.
	type job struct{ model, fam int }
	var jobs []job
	for m := range models {
		if !anyLearnable(s, outerTrain[m]) {
			continue
		}
		for f := range fams {
			jobs = append(jobs, job{m, f})
		}
	}
	var mu sync.Mutex
	err := Parallel(len(jobs), func(j int) error {
		m, fam := jobs[j].model, fams[jobs[j].fam]
		if st.observe != nil {
			mu.Lock()
			st.observe(cvFit{stage: "outer", outer: models[m], held: []string{models[m]}, train: outerTrain[m]})
			mu.Unlock()
		}
		l, err := fitCandidate(s, outerTrain[m], res.FamilyPicks[fam][m], st)
		if err != nil {
			return err
		}
		predictRows(res.Pred[fam], s, rows[m], l)
		return nil
	})
	if err != nil {
		return nil, err
	}
	chosen := Analytical(s)
	for m := range models {
		p := res.Pred[res.Picks[m].Family]
		for _, i := range rows[m] {
			chosen[i] = p[i]
		}
	}
	res.Pred["chosen"] = chosen
	for k, p := range res.Pred {
		res.Scores[k] = Score(s, p)
	}
	res.Scores["analytical"] = Score(s, Analytical(s))
	return res, nil
}

// PickCounts says how often the outer loop's overall pick was each
// configuration: "boost depth 6, all features ×9; forest …", most often
// first.
func (r *NestedResult) PickCounts() string {
	n := map[string]int{}
	var order []string
	for _, c := range r.Picks {
		k := c.String()
		if n[k] == 0 {
			order = append(order, k)
		}
		n[k]++
	}
	slices.SortStableFunc(order, func(a, b string) int { return n[b] - n[a] })
	parts := make([]string, len(order))
	for i, k := range order {
		parts[i] = fmt.Sprintf("%s ×%d", k, n[k])
	}
	return strings.Join(parts, "; ")
}

// anyLearnable says whether the rows idx of s hold a row to learn from: a
// fold of other models' whole iterations alone has none.
func anyLearnable(s []Sample, idx []int) bool {
	return slices.ContainsFunc(idx, func(i int) bool { return s[i].Learnable() })
}
