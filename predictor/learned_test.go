package predictor

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/profiler"
)

// bundled reads the bundled CPU profiles and their predictor devices.
func bundled(t testing.TB) ([]profiler.Record, map[string]*Device) {
	t.Helper()
	paths, _ := filepath.Glob("../datasets/profiles/*.csv")
	if len(paths) == 0 {
		t.Skip("no bundled profiles")
	}
	var rows []profiler.Record
	devs := map[string]*Device{}
	for _, p := range paths {
		pr, err := profiler.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		d, err := LookupDevice(pr.Meta.PredictorDevice)
		if err != nil {
			t.Fatal(err)
		}
		devs[pr.Meta.Device] = d
		rows = append(rows, pr.Records...)
	}
	return rows, devs
}

func bundledSamples(t testing.TB) []Sample {
	t.Helper()
	rows, devs := bundled(t)
	s, err := Samples(rows, devs, Min)
	if err != nil {
		t.Fatal(err)
	}
	if len(s) < 1000 {
		t.Fatalf("%d samples from the bundled profiles", len(s))
	}
	return s
}

func TestKeyFoldsKeepKeysTogether(t *testing.T) {
	s := bundledSamples(t)
	// KeyFolds is seed 1; another seed deals the keys otherwise, under the
	// same invariants.
	if !reflect.DeepEqual(KeyFolds(s, CVFolds), KeyFoldsSeed(s, CVFolds, 1)) {
		t.Error("KeyFolds differs from KeyFoldsSeed(…, 1)")
	}
	if reflect.DeepEqual(KeyFolds(s, CVFolds), KeyFoldsSeed(s, CVFolds, 2)) {
		t.Error("seeds 1 and 2 give the same folds")
	}
	for _, seed := range []uint64{1, 2} {
		checkKeyFolds(t, s, KeyFoldsSeed(s, CVFolds, seed))
	}
	// Deterministic.
	folds, again := KeyFoldsSeed(s, CVFolds, 2), KeyFoldsSeed(s, CVFolds, 2)
	if !reflect.DeepEqual(folds, again) {
		t.Fatal("folds differ between calls")
	}
}

// checkKeyFolds checks that the folds partition the samples, none empty,
// every key in one fold.
func checkKeyFolds(t *testing.T, s []Sample, folds [][]int) {
	t.Helper()
	if len(folds) != CVFolds {
		t.Fatalf("%d folds", len(folds))
	}
	foldOf := map[string]int{}
	seen := make([]bool, len(s))
	for f, idx := range folds {
		if len(idx) == 0 {
			t.Errorf("fold %d is empty", f)
		}
		for _, i := range idx {
			if seen[i] {
				t.Fatalf("sample %d in two folds", i)
			}
			seen[i] = true
			k := s[i].Record.Key
			if g, ok := foldOf[k]; ok && g != f {
				t.Fatalf("key %q in folds %d and %d", k, g, f)
			}
			foldOf[k] = f
		}
	}
	for i, ok := range seen {
		if !ok {
			t.Fatalf("sample %d in no fold", i)
		}
	}
}

// TestCorrectedBeatsAnalytical checks the held-out figures on the bundled
// CPU profiles (5 folds by layer shape); the bounds leave a margin of about
// 2 points so that a regression fails. Measured when written (row MAPE,
// within ±10%, iteration MAPE): analytical 87.8%, 5.5%, 73.5%; tree 21.0%,
// 50.0%, 16.7%; knn 23.0%, 38.5%, 13.1%; linear 33.3%, 21.2%, 8.7%; boost
// 20.4%, 44.3%, 9.9%; forest 18.6%, 50.8%, 7.8%. With the 8 legacy
// features the tree had 20.7%, 50.1%, 18.1%, boost 20.1%, 47.0%, 9.9% and
// forest 19.2%, 49.6%, 9.6%. The boost and forest settings are textbook
// defaults fixed before these runs, not tuned on the folds.
//
// With the layer-shape features (LayerShape) added: tree 21.4%, 48.9%,
// 14.5%; knn 23.5%, 39.5%, 7.7%; linear 33.0%, 21.4%, 12.5%; boost 19.4%,
// 47.0%, 13.9%; forest 18.3%, 53.1%, 10.6%. Iteration MAPE over 11
// iterations swings with the fold assignment: averaged over four fold seeds
// the forest had 17.9%, 51.0%, 10.1% without the shape features and 17.4%,
// 52.2%, 12.0% with them.
//
// With six more models profiled (resnet18, vgg16, inception_v3, bert-base,
// transformer, cyclegan: 4,963 rows of 13 models) the figures are: analytical
// 94.9%, 4.0%, 75.5%; tree 17.2%, 57.7%, 16.4%; knn 19.6%, 52.6%, 9.6%;
// linear 36.5%, 23.2%, 18.0%; boost 14.4%, 53.3%, 13.0%; forest 14.8%,
// 54.2%, 11.8%. The same data read in another order (the forest's bootstrap
// draws follow the rows) moved the forest to 14.4%, 56.6%, 11.6%: two
// points is the noise of these figures.
//
// The 13 models profiled again with 8 interleaved rounds and learned on
// the fastest run (min_s) instead of the median: analytical 107.1%, 4.7%,
// 77.2%; tree 14.0%, 65.7%, 9.9%; knn 14.5%, 59.7%, 6.0%; linear 32.2%,
// 33.9%, 10.4%; boost 11.9%, 63.8%, 7.6%; forest 11.0%, 68.8%, 7.7%. With
// seven of them at a second batch size too (8,576 rows, 25 iterations):
// analytical 108.7%, 4.7%, 77.9%; tree 13.9%, 60.1%, 7.3%; knn 14.2%,
// 61.6%, 5.2%; linear 31.8%, 31.5%, 9.4%; boost 11.7%, 60.3%, 7.0%; forest
// 10.6%, 68.7%, 5.8% (read in the order of the files' names; with the
// seven added last, boost 12.1%, 62.3%, 6.6% and forest 10.7%, 67.6%,
// 5.5%).
//
// All 20 profiles measured again after the CPU backend's workers stopped
// sleeping between loops (the same commands; 93.0% repeatability against
// 79.0%): analytical 142.4%, 0.3%, 75.2%; tree 6.4%, 82.9%, 7.1%; knn
// 7.0%, 85.9%, 5.9%; linear 29.6%, 38.5%, 10.6%; boost 6.0%, 87.8%, 7.5%;
// forest 6.2%, 83.5%, 6.9%. With the tiling features (tile_fill,
// wave_fill, log_tiles_per_unit): tree 6.2%, 82.6%, 11.3%; knn 6.9%, 86.3%,
// 6.2%; linear 29.3%, 41.8%, 10.8%; boost 5.4%, 90.3%, 8.8%; forest 5.9%,
// 85.2%, 6.4%. Other fold seeds move these by up to 5 points: boost had
// 90.0% and 85.1% within ±10% with seeds 3 and 5.
//
// With the three sweeps (2,080 rows of random linear, LSTM and convolution
// shapes, learned from but not scored), the k_fill and align features and
// boosted trees of depth 6 (was 4): tree 6.2%, 87.3%, 3.6%; knn 5.9%,
// 88.0%, 4.2%; linear 29.5%, 41.0%, 8.4%; boost 4.9%, 90.7%, 4.6%; forest
// 5.4%, 87.4%, 4.4%; boost with fold seeds 3 and 5: 89.8% and 91.8%,
// iteration 4.3% and 4.5%. The bounds below are these, with the margin.
// trainedBundled is Train on the bundled profiles, run once for the tests
// that read its cross-validated scores (every family over five folds).
func trainedBundled(t *testing.T) *Learned {
	t.Helper()
	rows, devs := bundled(t)
	trained.Do(func() { trained.l, trained.err = Train(rows, devs, Min) })
	if trained.err != nil {
		t.Fatal(trained.err)
	}
	return trained.l
}

var trained struct {
	sync.Once
	l   *Learned
	err error
}

func TestCorrectedBeatsAnalytical(t *testing.T) {
	s := bundledSamples(t)
	// Train's cross-validation: each family held out by key (KeyFolds,
	// CVFolds folds), scored on the models' rows.
	l := trainedBundled(t)
	an := l.CV["analytical"]
	if an.MAPE < 120 || an.Within10 > 0.02 || an.IterationMAPE < 70 {
		t.Errorf("analytical %+v: want MAPE ≈ 142%%, within ±10%% ≈ 0.3%%, iteration MAPE ≈ 75%%", an)
	}
	want := map[string]Scores{ // upper bounds on MAPEs, lower on Within10
		"tree":   {MAPE: 7.5, Within10: 0.85, IterationMAPE: 5.5},
		"knn":    {MAPE: 7.5, Within10: 0.86, IterationMAPE: 6},
		"linear": {MAPE: 32, Within10: 0.39, IterationMAPE: 10.5},
		"boost":  {MAPE: 6, Within10: 0.89, IterationMAPE: 6},
		"forest": {MAPE: 6.5, Within10: 0.85, IterationMAPE: 6},
	}
	for _, fam := range Families {
		sc := l.CV[fam]
		t.Logf("%s: %+v", fam, sc)
		w := want[fam]
		if sc.MAPE > w.MAPE || sc.Within10 < w.Within10 || sc.IterationMAPE > w.IterationMAPE {
			t.Errorf("%s held out by key: %+v, want MAPE ≤ %v, within ±10%% ≥ %v, iteration MAPE ≤ %v", fam, sc, w.MAPE, w.Within10, w.IterationMAPE)
		}
	}
	// By batch size: trained on the small batches, tested on the large.
	train, test := BatchSplit(s)
	if len(train) == 0 || len(test) == 0 {
		t.Fatal("no batch split")
	}
	p, err := HeldOutSplit(s, "tree", train, test)
	if err != nil {
		t.Fatal(err)
	}
	sub := func(pred []float64) Scores {
		ss, pp := make([]Sample, len(test)), make([]float64, len(test))
		for k, i := range test {
			ss[k], pp[k] = s[i], pred[i]
		}
		return Score(ss, pp)
	}
	a, c := sub(Analytical(s)), sub(p)
	if c.MAPE >= a.MAPE/2 || c.IterationMAPE >= a.IterationMAPE/2 {
		t.Errorf("by batch: corrected %+v, analytical %+v", c, a)
	}
}

func TestTrainAndRoundTrip(t *testing.T) {
	l := trainedBundled(t)
	// Scored: the models' rows only; learned from: the sweeps' too.
	if l.Stat != Min || l.CV["analytical"].Rows != 8576 || l.Train.Rows != 10656 || len(l.Train.Models) != 16 || l.Train.Sweeps() != 3 {
		t.Errorf("trained %s on %+v, cv %+v", l.Model, l.Train, l.CV)
	}
	for _, fam := range Families { // the chosen family has the lowest MAPE (boost on the bundled profiles)
		if l.CV[fam].MAPE < l.CV[l.Model].MAPE {
			t.Errorf("chose %s (MAPE %.2f%%) over %s (%.2f%%)", l.Model, l.CV[l.Model].MAPE, fam, l.CV[fam].MAPE)
		}
	}
	if r := l.Ranking(); r[len(r)-1] != "analytical" {
		t.Errorf("ranking %v", r)
	}
	s := bundledSamples(t)
	for _, fam := range Families {
		l, err := Fit(s, fam)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), fam+".json")
		if err := l.Save(path); err != nil {
			t.Fatal(err)
		}
		back, err := LoadLearned(path)
		if err != nil {
			t.Fatal(err)
		}
		for i := range s {
			if a, b := l.Correct(s[i].Row), back.Correct(s[i].Row); a != b {
				t.Fatalf("%s: row %d factor %v before saving, %v after", fam, i, a, b)
			}
		}
	}
}

func TestLearnedErrors(t *testing.T) {
	if _, err := Train(nil, nil, Min); err == nil || !strings.Contains(err.Error(), "no ok rows") {
		t.Errorf("no rows: %v", err)
	}
	rows, devs := bundled(t)
	if _, err := Train(rows[:10], map[string]*Device{}, Min); err == nil || !strings.Contains(err.Error(), "no predictor device") {
		t.Errorf("no device: %v", err)
	}
	if _, err := Train(rows, devs, "mean"); err == nil || !strings.Contains(err.Error(), `unknown time statistic "mean"`) {
		t.Errorf("unknown statistic: %v", err)
	}
	// A profile written before min_s existed trains on the median only.
	old := slices.Clone(rows)
	for i := range old {
		old[i].Min = profiler.Num{}
	}
	if _, err := Train(old, devs, Min); err == nil || !strings.Contains(err.Error(), "has no min time (min_s is empty in profiles written before") {
		t.Errorf("older profile trained on min: %v", err)
	}
	if l, err := Train(old[:400], devs, Median); err != nil || l.Stat != Median {
		t.Errorf("older profile on the median: %v", err)
	}
	s := bundledSamples(t)
	if _, err := Fit(s, "bogus"); err == nil {
		t.Error("unknown family fitted")
	}
	if _, err := LoadLearned(filepath.Join(t.TempDir(), "none.json")); err == nil {
		t.Error("loaded a missing file")
	}
	l, _ := Fit(s[:50], "tree")
	l.Version = 2
	path := filepath.Join(t.TempDir(), "v2.json")
	l.Save(path)
	if _, err := LoadLearned(path); err == nil || !strings.Contains(err.Error(), "version 2") {
		t.Errorf("version 2: %v", err)
	}
	// Trees that index past the feature vector, or a feature this build
	// does not know, are refused.
	l, _ = Fit(s[:50], "boost")
	l.Trees[0] = &TreeNode{Feature: len(l.Features), Left: &TreeNode{}, Right: &TreeNode{}}
	path = filepath.Join(t.TempDir(), "bad.json")
	l.Save(path)
	if _, err := LoadLearned(path); err == nil || !strings.Contains(err.Error(), "not a complete") {
		t.Errorf("bad tree: %v", err)
	}
	l, _ = Fit(s[:50], "forest")
	l.Featurizer.Numeric[0] = "no_such_feature"
	l.Features = l.Featurizer.Names()
	l.Save(path)
	if _, err := LoadLearned(path); err == nil || !strings.Contains(err.Error(), "unknown feature") {
		t.Errorf("unknown feature: %v", err)
	}
}

// A version 1 predictor saved before Featurizer.Numeric existed (no
// "numeric" key) still loads, with the 8 legacy features.
func TestLoadLegacyV1(t *testing.T) {
	s := bundledSamples(t)
	l, err := Fit(s, "tree")
	if err != nil {
		t.Fatal(err)
	}
	// Refit on the legacy features, as the old code did.
	saved := numericNames
	numericNames = legacyNumeric
	old, err := Fit(s, "tree")
	numericNames = saved
	if err != nil {
		t.Fatal(err)
	}
	old.Featurizer.Numeric = nil
	path := filepath.Join(t.TempDir(), "v1.json")
	if err := old.Save(path); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); strings.Contains(string(b), `"numeric"`) {
		t.Fatal("legacy file has a numeric key")
	}
	back, err := LoadLearned(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Stat != Median { // no "stat" key: trained on medians, before min_s
		t.Errorf("legacy file's statistic %q", back.Stat)
	}
	if n := len(back.Featurizer.Vector(s[0].Row)); n != len(old.Features) || n >= len(l.Features) {
		t.Errorf("legacy vector of %d features, file names %d, new %d", n, len(old.Features), len(l.Features))
	}
	for i := range s {
		if a, b := old.Correct(s[i].Row), back.Correct(s[i].Row); a != b {
			t.Fatalf("row %d: %v before saving, %v after", i, a, b)
		}
	}
}

// Boosting and the forest are deterministic, and learn a simple function.
func TestEnsembles(t *testing.T) {
	var X [][]float64
	var y []float64
	for i := range 200 {
		a, b := float64(i%20), float64(i%7)
		X = append(X, []float64{a, b, float64(i % 3)})
		v := 0.0
		if a >= 10 {
			v = 2
		}
		y = append(y, v+0.1*b)
	}
	bp := BoostParams{Trees: 100, Depth: 3, MinLeaf: 5, Shrinkage: 0.1, Subsample: 0.8, Seed: 1}
	base, trees := FitBoost(X, y, bp)
	base2, trees2 := FitBoost(X, y, bp)
	fp := ForestParams{Trees: 50, Depth: 8, MinLeaf: 2, Features: 0.67, Seed: 1}
	forest, forest2 := FitForest(X, y, fp), FitForest(X, y, fp)
	for i := range X {
		b := boostPredict(base, bp.Shrinkage, trees, X[i])
		f := forestPredict(forest, X[i])
		if b != boostPredict(base2, bp.Shrinkage, trees2, X[i]) || f != forestPredict(forest2, X[i]) {
			t.Fatal("ensembles differ between fits")
		}
		if math.Abs(b-y[i]) > 0.1 || math.Abs(f-y[i]) > 0.3 {
			t.Errorf("row %d: boost %v, forest %v, want %v", i, b, f, y[i])
		}
	}
}

// constCorrector multiplies matrix work by m and the rest by v, and
// records the batches it was asked about and the layers' shapes.
type constCorrector struct {
	m, v    float64
	batches map[int]bool
	unknown int                 // rows without a shape
	mnk     map[[3]float64]bool // the GEMMs of forward rows
}

func (c *constCorrector) Factor(r FeatureRow) float64 {
	c.batches[r.Batch] = true
	if !r.Shape.Known {
		c.unknown++
	}
	if r.Pass == dnn.Forward && r.Shape.M > 0 {
		c.mnk[[3]float64{r.Shape.M, r.Shape.N, r.Shape.K}] = true
	}
	if r.Matrix {
		return c.m
	}
	return c.v
}

func TestCorrectorHook(t *testing.T) {
	net, err := dnn.Model("resnet50")
	if err != nil {
		t.Fatal(err)
	}
	d, _ := LookupDevice("v100")
	o := Options{Batch: 64, GPUs: 2, StrongScaling: true}
	base, err := Predict(net, d, o)
	if err != nil {
		t.Fatal(err)
	}
	c := &constCorrector{m: 2, v: 3, batches: map[int]bool{}, mnk: map[[3]float64]bool{}}
	o.Corrector = c
	got, err := Predict(net, d, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.batches) != 1 || !c.batches[32] {
		t.Errorf("corrector asked about batches %v, want the per-GPU 32", c.batches)
	}
	// Every zoo layer describes itself: the corrector sees each shape, at
	// the per-GPU batch (conv1 forward: 32·112·112 × 64 × 3·7·7; fc: 32 ×
	// 1000 × 2048).
	if c.unknown != 0 {
		t.Errorf("%d layer passes reached the corrector without a shape", c.unknown)
	}
	for _, g := range [][3]float64{{32 * 112 * 112, 64, 147}, {32, 1000, 2048}} {
		if !c.mnk[g] {
			t.Errorf("corrector never saw the forward GEMM %v", g)
		}
	}
	comp := compile(net, dnn.FP32)
	for i, l := range got.Layers {
		for p := range l.Time {
			want := base.Layers[i].Time[p] * c.v
			if comp.layers[i].pass[p].matrix {
				want = base.Layers[i].Time[p] * c.m
			}
			if math.Abs(l.Time[p]-want) > 1e-12*math.Max(1, want) {
				t.Fatalf("%s pass %d: %v, want %v", l.Name, p, l.Time[p], want)
			}
		}
	}
	if got.Communication != base.Communication {
		t.Errorf("communication changed: %v → %v", base.Communication, got.Communication)
	}
	if got.Iteration <= 2*base.Forward+2*base.Backward+2*base.Update+base.Communication-1e-12 {
		t.Errorf("iteration %v not at least doubled from %v", got.Iteration, base.Iteration)
	}
	// A Learned is a Corrector.
	var _ Corrector = (*Learned)(nil)
}

func TestCART(t *testing.T) {
	var X [][]float64
	var y []float64
	for i := range 40 {
		x := float64(i)
		X = append(X, []float64{x, 0})
		if x < 20 {
			y = append(y, 1)
		} else {
			y = append(y, 5)
		}
	}
	tr := FitTree(X, y, 3, 2)
	if tr.Feature != 0 || tr.Threshold != 19.5 || tr.Predict([]float64{3, 0}) != 1 || tr.Predict([]float64{30, 0}) != 5 {
		t.Errorf("tree %+v", tr)
	}
	if tr := FitTree(X, y, 0, 1); tr.Left != nil || tr.Value != 3 {
		t.Errorf("depth 0: %+v", tr)
	}
	// KNN ties resolve by index: deterministic.
	if v := knnPredict([][]float64{{0}, {2}, {-2}}, []float64{1, 2, 3}, 2, []float64{0}); v != 1.5 {
		t.Errorf("knn %v, want 1.5", v)
	}
	// Ridge with a tiny λ recovers y = 2 + 3a − b.
	var Z [][]float64
	var yz []float64
	for i := range 30 {
		a, b := float64(i%7), float64(i%5)
		Z = append(Z, []float64{a, b})
		yz = append(yz, 2+3*a-b)
	}
	c, w := fitRidge(Z, yz, 1e-9)
	if math.Abs(c-2) > 1e-6 || math.Abs(w[0]-3) > 1e-6 || math.Abs(w[1]+1) > 1e-6 {
		t.Errorf("ridge %v %v", c, w)
	}
}

// TestTreeSplitBetweenAdjacentFloats: a split between two adjacent
// floats, whose midpoint rounds to the lower, still sends each side its
// rows (it once left the left side empty, and its leaf's value NaN).
func TestTreeSplitBetweenAdjacentFloats(t *testing.T) {
	a := 1.0
	b := math.Nextafter(a, 2)
	if (a+b)/2 != a {
		t.Fatalf("the midpoint of %v and %v does not round down here", a, b)
	}
	X := [][]float64{{a}, {a}, {b}, {b}}
	y := []float64{0, 0, 1, 1}
	for _, tr := range []*TreeNode{FitTree(X, y, 3, 1), fitEnsembleTree(X, y, []int{1, 1, 1, 1}, presort(X), growOpts{depth: 3, minLeaf: 1})} {
		if tr.Left == nil || tr.Predict([]float64{a}) != 0 || tr.Predict([]float64{b}) != 1 {
			t.Errorf("tree %+v: predicts %v and %v", tr, tr.Predict([]float64{a}), tr.Predict([]float64{b}))
		}
	}
}

// TestSweepsLearnedNotScored: sweeps' rows are training data. Score leaves
// them out, the batch split trains on all of them (less any of a model's
// shape), and Train refuses profiles that are all sweeps.
func TestSweepsLearnedNotScored(t *testing.T) {
	mk := func(model, key string, batch int, meas, pred float64) Sample {
		return Sample{Record: profiler.Record{Model: model, Key: key, Batch: batch, Precision: "fp32", Device: "cpu"}, Measured: meas, Target: math.Log(meas / pred)}
	}
	s := []Sample{
		mk("m", "a", 1, 1, 1),
		mk("m", "b", 4, 2, 2.1),
		mk("sweep:linear:2", "c", 1, 1, 5), // a sweep row far off
		mk("sweep:linear:2", "c", 8, 3, 9),
		mk("sweep:linear:2", "b", 8, 3, 3), // a model's shape
	}
	pred := []float64{1, 2.1, 5, 9, 3}
	sc := Score(s, pred)
	if sc.Rows != 2 || sc.Iterations != 2 || math.Abs(sc.MAPE-2.5) > 1e-9 || sc.Within10 != 1 {
		t.Errorf("score %+v: want the 2 model rows only, MAPE 2.5%%, all within ±10%%", sc)
	}
	// The sweeps' errors: 400%, 200% and 0%.
	if sw := SweepScore(s, pred); sw.Rows != 3 || math.Abs(sw.MAPE-200) > 1e-9 || math.Abs(sw.Within10-1.0/3) > 1e-12 {
		t.Errorf("sweep score %+v: want the 3 sweep rows, MAPE 200%%, a third within ±10%%", sw)
	}
	train, test := BatchSplit(s)
	if !slices.Equal(train, []int{0, 2, 3}) || !slices.Equal(test, []int{1}) {
		t.Errorf("batch split: train %v, test %v; want [0 2 3], [1]", train, test)
	}
	rows, devs := bundled(t)
	var sweeps []profiler.Record
	for _, r := range rows {
		if dnn.IsSweep(r.Model) {
			sweeps = append(sweeps, r)
		}
	}
	if len(sweeps) == 0 {
		t.Fatal("no sweep rows bundled")
	}
	if _, err := Train(sweeps, devs, Min); err == nil || !strings.Contains(err.Error(), "every row is a sweep's") {
		t.Errorf("sweeps alone: %v", err)
	}
}

func TestAppliesTo(t *testing.T) {
	v100, _ := LookupDevice("v100")
	cpu, _ := LookupDevice("cpu")
	old := &Learned{} // a file from before the kinds were recorded: CPU profiles
	if err := old.AppliesTo(v100); err == nil || !strings.Contains(err.Error(), "learned on cpu profiles and does not apply to v100, a gpu") {
		t.Errorf("old file on a GPU: %v", err)
	}
	if err := old.AppliesTo(cpu); err != nil {
		t.Errorf("old file on the CPU: %v", err)
	}
	gpu := &Learned{Train: TrainInfo{Kinds: []string{KindGPU}}}
	if err := gpu.AppliesTo(v100); err != nil {
		t.Errorf("GPU correction on a GPU: %v", err)
	}
	if err := gpu.AppliesTo(cpu); err == nil {
		t.Error("GPU correction applied to the CPU")
	}
}

// HeldOut fits its folds side by side: the same predictions as one by one,
// whatever the processors (run with -race to check the sharing).
func TestHeldOutParallel(t *testing.T) {
	s := bundledSamples(t)
	s = s[:min(len(s), 400)]
	folds := KeyFolds(s, 5)
	a, err := HeldOut(s, "tree", folds)
	if err != nil {
		t.Fatal(err)
	}
	old := runtime.GOMAXPROCS(1)
	b, err := HeldOut(s, "tree", folds)
	runtime.GOMAXPROCS(old)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a, b) {
		t.Error("predictions depend on how many folds ran at once")
	}
}
