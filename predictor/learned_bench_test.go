package predictor

import (
	"slices"
	"testing"
)

// BenchmarkTrainBundled is `wb train datasets/profiles/*.csv`: Train on all
// the bundled CPU profiles with the shipped settings (every family, CVFolds
// folds by layer shape), then the chosen family and the tree held out by
// batch size (`wb evaluate`'s second table). It reports the figures of
// README.md's "Learned correction" section: its table held out by layer
// shape (analytical 142.4%, 0.3%, 75.2%; boosted trees, chosen, 4.9%,
// 90.7%, 4.6%; forest, KNN, tree) as <family>-MAPE-%, <family>-within10-%
// and <family>-iterMAPE-%, and the sentence after it (held out by batch
// size, 4,068 passes, 12 iterations: boosted trees 2.8%, 95.6%, 3.6%) as
// batch-<family>-…; and it fails where they regress past the bounds below,
// which TestCorrectedBeatsAnalytical held them to when it trained on all
// the rows (it now cross-validates a fifth of them, with quick settings,
// in a few seconds). About 75 s on 2 cores (-v prints every figure):
//
//	go test -v -run '^$' -bench '^BenchmarkTrainBundled$' -benchtime 1x -timeout 20m ./predictor
//
// The bounds leave a margin of about 2 points so that a regression fails.
// Measured when written (row MAPE,
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
func BenchmarkTrainBundled(b *testing.B) {
	rows, devs := bundled(b)
	var l *Learned
	for b.Loop() {
		var err error
		if l, err = Train(rows, devs, Min); err != nil {
			b.Fatal(err)
		}
	}
	report := func(prefix string, sc Scores) {
		b.Logf("%s: %+v", prefix, sc)
		b.ReportMetric(sc.MAPE, prefix+"-MAPE-%")
		b.ReportMetric(100*sc.Within10, prefix+"-within10-%")
		b.ReportMetric(sc.IterationMAPE, prefix+"-iterMAPE-%")
	}
	b.Logf("chose %s; %d rows learned from, of %d models and %d sweeps", l.Model, l.Train.Rows, len(l.Train.Models)-l.Train.Sweeps(), l.Train.Sweeps())
	// Scored: the models' rows only; learned from: the sweeps' too.
	if l.Stat != Min || l.CV["analytical"].Rows != 8576 || l.Train.Rows != 10656 || len(l.Train.Models) != 16 || l.Train.Sweeps() != 3 {
		b.Errorf("trained %s on %+v, cv %+v", l.Model, l.Train, l.CV)
	}
	an := l.CV["analytical"]
	report("analytical", an)
	if an.MAPE < 120 || an.Within10 > 0.02 || an.IterationMAPE < 70 {
		b.Errorf("analytical %+v: want MAPE ≈ 142%%, within ±10%% ≈ 0.3%%, iteration MAPE ≈ 75%%", an)
	}
	want := map[string]Scores{ // upper bounds on MAPEs, lower on Within10
		"tree":   {MAPE: 7.5, Within10: 0.85, IterationMAPE: 5.5},
		"knn":    {MAPE: 7.5, Within10: 0.86, IterationMAPE: 6},
		"linear": {MAPE: 32, Within10: 0.39, IterationMAPE: 10.5},
		"boost":  {MAPE: 6, Within10: 0.89, IterationMAPE: 6},
		"forest": {MAPE: 6.5, Within10: 0.85, IterationMAPE: 6},
	}
	for _, fam := range Families {
		sc, w := l.CV[fam], want[fam]
		report(fam, sc)
		if sc.MAPE > w.MAPE || sc.Within10 < w.Within10 || sc.IterationMAPE > w.IterationMAPE {
			b.Errorf("%s held out by key: %+v, want MAPE ≤ %v, within ±10%% ≥ %v, iteration MAPE ≤ %v", fam, sc, w.MAPE, w.Within10, w.IterationMAPE)
		}
		if sc.MAPE < l.CV[l.Model].MAPE {
			b.Errorf("chose %s (MAPE %.2f%%) over %s (%.2f%%)", l.Model, l.CV[l.Model].MAPE, fam, sc.MAPE)
		}
	}
	if r := l.Ranking(); r[len(r)-1] != "analytical" {
		b.Errorf("ranking %v", r)
	}
	// By batch size: trained on the small batches, tested on the large;
	// the tree must halve the analytical errors.
	s, err := Samples(rows, devs, Min)
	if err != nil {
		b.Fatal(err)
	}
	train, test := BatchSplit(s)
	if len(train) == 0 || len(test) == 0 {
		b.Fatal("no batch split")
	}
	a := batchScores(s, test, Analytical(s))
	report("batch-analytical", a)
	for _, fam := range slices.Compact([]string{l.Model, "tree"}) {
		p, err := HeldOutSplit(s, fam, train, test)
		if err != nil {
			b.Fatal(err)
		}
		c := batchScores(s, test, p)
		report("batch-"+fam, c)
		if fam == "tree" && (c.MAPE >= a.MAPE/2 || c.IterationMAPE >= a.IterationMAPE/2) {
			b.Errorf("by batch: corrected %+v, analytical %+v", c, a)
		}
	}
}
