package predictor

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// BenchmarkTrainBundled scores the learned correction on all the bundled
// CPU profiles with the shipped settings, in four parts (run one alone
// with -bench 'BenchmarkTrainBundled/nested$'):
//
//   - train: `wb train datasets/profiles/*.csv`: Train chooses among the
//     grid (18 configurations, the 4 medians scored from their members'
//     folds) by 3 folds by model and fits the pick;
//   - nested: `wb evaluate --split model --nested`, the honest score that
//     README.md leads with: each of the 13 models held out (all its batch
//     sizes; no row of any of its layer shapes learned from, whatever
//     profile has it), predicted by the configuration that an inner 3-fold
//     cross-validation by model of the other 12 chose; distinct
//     measurements only;
//   - shape: the split by layer shape (5 folds by key) of the
//     configuration Train chose, on distinct measurements; and shape-old,
//     the figure README.md quoted before: the same split with every copy
//     of an identical layer's measurement (shared_with) learned from and
//     scored as if measured;
//   - batch: trained on each model's smallest batch, tested on its
//     largest (`wb evaluate`'s batch split).
//
// Each reports <prefix>-MAPE-%, <prefix>-within10-% and
// <prefix>-iterMAPE-% (of summed layers) by family, and fails where they
// regress past the bounds below, which leave a margin of about 2 points
// over the figures measured when written. 10,660 ok rows of 13 models and
// 3 sweeps, 6,639 of them copies: 4,021 learned from, 1,941 distinct
// measurements scored, 25 iterations (row MAPE, within ±10%, iteration
// MAPE of summed layers; then against the whole iterations). With each
// pass's cold traffic capped at the machine's last-level cache where the
// iterations learned from say so (ColdLLC, chosen inside each fit, so
// inside the inner loop for the outer predictions; the sidecars record
// the 32 MiB L3), on 2026-11-29, 6 min 17 s: the rows' figures as below
// (the cap changes only what an iteration adds to its layers), and
// against the whole iterations: nested chosen 6.1% (was 7.9%), forest
// 6.2%, boost 6.3%, knn 7.0%, tree 9.9%, linear 15.5% (was 13.8%); train
// (3 folds by model, flattering) forest 6.8%; shape 5.5%; batch forest
// 4.9%. Per model, nested chosen: vgg16 11.4% (was 25.3%), alexnet 12.0%
// (18.5%), cyclegan 11.9%, transformer-translation 10.9%, lm 7.7%,
// inception_v3 6.7%, transformer 6.2%, recommendation 5.7%, the other
// five 0.9–3.4%.
//
// On all 23 profiles made again with the gate (profiler.Gate: each
// measurement held back while a probe says a neighbour slows the VM), on
// 2026-11-29, 5 min 28 s:
//
//	nested     chosen 14.5%, 69.4%, 4.5%, whole 6.6% (picks: forest depth
//	           12, all features ×11; knn, all ×2); by family: forest
//	           14.3%, 69.2%, 4.6%, 6.8%; boost 16.0%, 67.9%, 3.9%, 6.3%;
//	           knn 17.5%, 66.6%, 7.4%, 7.5%; tree 21.2%, 65.5%, 7.0%,
//	           8.2%; linear 44.3%, 20.8%, 19.6%, 16.6%; analytical
//	           505.6%, 6.2%, 53.5%, 20.0%
//	shape      9.3%, 76.8%, 3.3%, 6.2%; batch forest 9.3%, 74.0%, 4.3%, 5.6%
//
// Per model, nested chosen, whole iterations: alexnet 17.3%, cyclegan
// 12.7%, inception_v3 11.8%, transformer-translation 8.5%, lm 8.1%,
// bert-base 6.5%, resnet18-cifar 6.4%, transformer 5.0%, the other five
// 1.3–3.6%.
//
// On all 23 profiles made again with each whole iteration timed in rounds
// (its runs shared out over the 8 rounds, as the rows' are), later on
// 2026-11-29, 5 min 25 s:
//
//	nested     chosen 14.9%, 68.0%, 5.3%, whole 5.0% (4.96%; picks: forest
//	           depth 12, all features ×11; knn, all ×2); by family:
//	           forest 14.7%, 67.4%, 5.5%, 5.2%; boost 15.9%, 66.4%, 5.3%,
//	           5.0%; knn 17.9%, 65.4%, 8.4%, 7.3%; tree 21.8%, 64.8%, 7.0%,
//	           7.3%; linear 44.8%, 21.5%, 19.4%, 16.7%; analytical 534.0%,
//	           6.3%, 52.6%, 23.0%
//	train      forest 16.6%, 64.3%, 6.3%, whole 6.0% (3 folds, flattering)
//	shape      9.7%, 75.9%, 4.3%, 4.5%; batch forest 10.0%, 72.6%, 4.4%, 4.4%
//
// Per model, nested chosen, whole iterations: alexnet 15.2%, cyclegan
// 12.8%, resnet18-cifar 6.8%, inception_v3 5.0%, transformer-translation
// 4.9%, recommendation 4.8%, vgg16 4.4%, the other six 1.3–3.4%.
//
// After the six profiles with batch norms were made again with batch norm
// as ATen runs it (a team from two channels on, at::vec's partial vectors
// at each plane's end), later on 2026-11-29, 5 min 23 s:
//
//	nested     chosen 16.0%, 65.1%, 5.0%, whole 4.6% (picks: forest depth
//	           12, all features ×11; knn, all ×2); by family: forest
//	           15.7%, 64.6%, 5.1%, 4.8%; boost 17.6%, 62.9%, 4.2%, 4.5%;
//	           knn 19.0%, 64.5%, 8.1%, 6.9%; tree 23.7%, 58.6%, 8.3%, 6.9%;
//	           linear 44.0%, 22.0%, 19.7%, 16.9%; analytical 513.6%, 6.5%,
//	           53.5%, 22.8%
//	train      forest 17.5%, 58.5%, 7.0%, whole 6.0% (3 folds, flattering)
//	shape      10.1%, 74.0%, 4.1%, 4.2%; batch forest 10.3%, 70.6%, 3.5%, 3.8%
//
// Per model, nested chosen, whole iterations: alexnet 15.4%, cyclegan
// 12.6%, transformer-translation 5.4%, recommendation 5.1%, the other nine
// 0.8–4.2%. Models whose profiles were not remade moved too (alexnet's
// passes within ±10% 70.2% → 66.0%, transformer's 44.9% → 39.7%): the
// forests learn from every model's rows.
//
// With twelve more sweeps (batch norms, pooling, concatenations, dropout,
// embeddings, batched products, softmaxes, layer norms, a second draw of
// linear layers and convolutions: 15 sweeps, 8,627 rows learned from) and
// a norm's channels and plane, a row-wise op's row, among the shape
// features, later on 2026-11-29, 13 min 39 s (the twelve sweeps more than
// doubled the rows learned from):
//
//	nested     chosen 14.3%, 64.4%, 4.3%, whole 4.6% (picks: boost depth 6,
//	           all features ×10; knn, all ×2; forest depth 12, all ×1); by
//	           family: boost 13.6%, 64.9%, 4.1%, 4.7%; forest 15.5%, 63.8%,
//	           5.9%, 5.4%; knn 14.9%, 65.6%, 9.1%, 7.3%; tree 29.3%, 38.1%,
//	           9.3%, 8.2%; linear 49.9%, 21.4%, 21.3%, 18.2%; analytical
//	           513.6%, 6.5%, 53.5%, 22.8%
//	train      chose boost depth 6, all features: 14.7%, 60.4%, 5.7%,
//	           whole 5.0% (flattering)
//	shape      boost: 12.7%, 70.8%, 3.5%, 4.9%; shape-old 7.8%, 79.5%, 3.5%
//	batch      boost 9.6%, 71.3%, 5.7%, 6.6%; tree 10.6%, 69.8%, 4.8%
//
// With the median family (the middle of the boosted trees', the
// neighbours' and the forest's corrections; added after a trial of their
// means on these held-out folds, below), the same profiles, on a 2-core
// Intel Xeon VM (2026-11-29, 24 min 53 s; the analytical base is the
// training machine's, LocalCPU's (its peak from /proc/cpuinfo, 294
// GFLOP/s there), so the families' figures there differ from the EPYC's
// above by up to a point, the tree's by six):
//
//	nested     chosen 13.4%, 68.3%, 4.4%, whole 4.5% (picks: median depth
//	           6, all features ×13); by family: median the same; boost
//	           14.1%, 64.8%, 4.0%, 4.4%; knn 14.7%, 65.9%, 8.6%, 7.1%;
//	           forest 15.4%, 62.8%, 5.8%, 5.2%; tree 35.6%, 37.4%, 19.5%,
//	           15.7%; linear 50.0%, 21.0%, 21.1%, 18.2%
//	train      chose median depth 6, all features: 14.2%, 66.2%, 5.5%,
//	           whole 5.4% (boost 14.8%, 62.8%; flattering)
//	shape      median: 12.0%, 72.5%, 3.6%, 4.3%; shape-old 7.4%, 81.0%,
//	           3.8%, 4.1%
//	batch      median 9.5%, 73.2%, 5.4%, 6.3%; tree 10.5%, 71.2%, 4.9%
//
// With the analytical base on the machine profiled (ProfileDevice: the
// sidecars' measured peak, 234.7 GFLOP/s, best memory copy, 104.7 GB/s,
// and threads, in place of the training machine's /proc/cpuinfo peak and a
// 20 GB/s default), the same profiles and Xeon, 25 min 42 s:
//
//	nested     chosen 13.5%, 65.9%, 4.6%, whole 4.99% (picks: median
//	           depth 6, all features ×12; boost depth 6, all ×1); by
//	           family: median 13.4%, 67.1%, 4.6%, 4.97%; boost 13.9%,
//	           62.8%, 5.0%, 5.4%; knn 14.7%, 65.4%, 7.9%, 7.5%; forest
//	           15.3%, 63.4%, 5.9%, 5.6%; tree 20.1%, 59.8%, 9.3%, 8.2%;
//	           linear 50.4%, 20.2%, 23.1%, 19.9%; analytical 97.4%, 4.4%,
//	           46.3%, 26.3%
//	train      chose median depth 6, all features: 14.4%, 64.7%, 5.6%,
//	           whole 5.5% (flattering)
//	shape      median: 11.1%, 73.2%, 3.5%, 4.6%; shape-old 7.6%, 80.2%,
//	           3.9%, 4.5%
//	batch      median 9.7%, 73.5%, 4.7%, 5.6%; tree 11.5%, 72.0%, 6.4%
//
// The figures no longer depend on the machine that trains; the base's
// figures were fixed before the run (the most of each measured), not
// chosen by it. Per model, nested chosen, whole iterations: alexnet
// 23.3%, cyclegan 12.4%, the other eleven 1.6–3.8%.
//
// After a reviewer's finds of 2026-11-30 (a held-out model's shapes no
// longer reach the cold traffic through another model's whole iteration,
// which is left out of a fold when one of its layers has a held-out
// shape; global average pooling's window its plane, not the plane
// squared; the batch split trains on the sweeps' whole iterations), the
// same profiles and Xeon, 12 min 30 s (the machine shared with other work
// at times):
//
//	nested     chosen 13.2%, 67.0%, 4.5%, whole 4.7% (picks: median
//	           depth 6, all features ×11; boost depth 6, all ×2: lm's
//	           fold none, recommendation's and resnet50's); by family:
//	           median 13.2%, 67.7%, 4.5%, 4.7%; boost 13.3%, 65.2%, 4.2%,
//	           4.5%; knn 14.7%, 65.4%, 7.9%, 7.5%; forest 15.5%, 62.8%,
//	           6.0%, 5.7%; tree 20.1%, 59.8%, 9.3%, 8.3%; linear 50.4%,
//	           20.2%, 23.1%, 19.8%; analytical 97.4%, 4.4%, 46.3%, 26.3%
//	train      chose median depth 6, all features: 14.3%, 65.2%, 5.7%,
//	           whole 5.6% (flattering)
//	shape      median: 11.5%, 72.9%, 3.2%, 4.5%; shape-old 7.7%, 77.9%,
//	           3.7%, 4.3% (its bound lowered from 79% to 77%: the run
//	           that changed it is this one)
//	batch      median 9.7%, 71.6%, 4.7%, 5.7%; tree 11.5%, 72.0%, 6.4%
//
// Whole iterations, nested chosen: alexnet 23.4%, cyclegan 12.2%, the
// other eleven 1.0–4.2%.
//
// After a reviewer's finds of 2026-12-02 (work identical to a held-out
// row's under another key, a ReLU of 64×112×112 values and one of
// 256×56×56, is held out with it, and so is an iteration that sums it;
// the shape split deals such keys to one fold and fits its cold traffic
// on iterations with no layer of the fold), the same profiles and Xeon,
// 5 min 51 s:
//
//	nested     chosen 13.3%, 66.8%, 4.8%, whole 4.9% (picks: median
//	           depth 6, all features ×11; boost depth 6, all ×2); by
//	           family: median 13.3%, 68.0%, 4.7%, 5.0%; boost 13.5%,
//	           64.4%, 4.8%, 4.9%; knn 14.8%, 65.2%, 7.9%, 7.5%; forest
//	           15.5%, 63.2%, 6.0%, 5.7%; tree 19.9%, 60.4%, 9.4%, 8.2%;
//	           linear 50.4%, 20.1%, 23.1%, 19.8%; analytical unchanged
//	train      chose median depth 6, all features: 14.3%, 64.1%, 5.7%,
//	           whole 5.9% (flattering)
//	shape      median: 11.1%, 72.3%, 3.6%, 12.5% (the cold traffic fitted
//	           on next to no iteration); shape-old 7.2%, 80.4%, 4.0%, 12.6%
//	batch      median 9.7%, 71.6%, 4.7%, 5.7%; tree 11.5%, 72.0%, 6.4%
//
// Whole iterations, nested chosen: alexnet 23.4%, cyclegan 12.2%, the
// other eleven 1.5–4.2%.
//
// The trial that led to it (fixed configurations, each model held out,
// not nested; the same Xeon): boost depth 6 14.1%, 64.8%, 4.0%, whole
// 4.4%; knn 14.7%, 65.9%, 8.6%, 7.1%; forest 15.4%, 62.8%, 5.8%, 5.2%;
// the geometric mean of boost and knn 12.6%, 68.7%, 6.3%, 5.7% (knn's
// misses on recommendation's 20,108-wide products, 61.8% MAPE, carried
// into the mean: recommendation's whole iteration 4.9% → 17.2%); of all
// three 12.9%, 68.7%, 5.9%, 5.3%; their median 13.4%, 68.3%, 4.4%. The
// median was chosen over the means for its iterations, on those folds:
// the 68.3% is not blind to the choice; make blind-check is.
//
// After cpu-lm, cpu-a3c, cpu-a3c-b5 and cpu-sweep-lstm were made again with
// an LSTM's backward weights computed as PyTorch's autograd computes them
// (a product a step, added up), later on 2026-11-29, 6 min 8 s:
//
//	nested     chosen 15.8%, 64.3%, 5.8%, whole 5.7% (picks: forest depth
//	           12, all features ×11; knn, all ×2); by family: forest
//	           15.5%, 64.7%, 6.2%, 6.0%; boost 17.8%, 61.8%, 6.2%, 7.0%;
//	           knn 18.3%, 61.6%, 9.3%, 7.6%; tree 23.5%, 57.5%, 9.0%, 8.4%;
//	           linear 43.8%, 19.4%, 19.4%, 16.0%; analytical 529.2%, 7.4%,
//	           51.8%, 19.5%
//	train      chose forest depth 12, all features: 17.2%, 59.3%, 7.6%,
//	           whole 6.6% (these chose it: flattering)
//	shape      forest depth 12, all features: 10.1%, 74.4%, 4.9%, 5.7%
//	shape-old  7.9%, 80.0%, 5.2%, 5.7%
//	batch      forest 10.5%, 70.4%, 5.8%, 5.3%; tree 12.7%, 69.1%, 4.1%
//
// Per model, nested chosen, against the whole iterations: alexnet 12.0%,
// cyclegan 11.8%, vgg16 11.7%, transformer-translation 9.5%, transformer
// 7.1%, inception_v3 6.5%, the other seven 0.8–4.2% (lm 0.8%, 7.7% before).
//
// Then with cpu-bert-base, cpu-bert-base-b4, cpu-transformer and
// cpu-transformer-b4 made again too, an embedding's gradient table zeroed
// with ordinary stores as ATen's zero_ does (5 min 26 s):
//
//	nested     chosen 15.6%, 64.2%, 5.9%, whole 6.0% (picks: forest depth
//	           12, all features ×11; knn, all ×2); by family: forest
//	           15.2%, 64.5%, 6.2%, 6.3%; boost 17.6%, 64.8%, 6.3%, 7.2%;
//	           knn 18.7%, 61.5%, 9.6%, 8.3%; tree 23.6%, 58.1%, 9.2%, 8.6%;
//	           linear 44.4%, 20.0%, 19.9%, 16.4%; analytical 527.0%, 7.3%,
//	           51.5%, 19.6%
//	train      chose forest depth 12, all features: 17.4%, 59.0%, 8.1%,
//	           whole 7.0%
//	shape      10.3%, 74.2%, 5.1%, 5.7%; shape-old 8.0%, 80.9%, 5.0%, 6.0%
//	batch      forest 10.5%, 68.5%, 6.0%, 5.6%; tree 12.9%, 71.4%, 3.8%
//
// Per model, nested chosen, whole iterations: cyclegan 12.0%, vgg16 11.7%,
// alexnet 11.4%, transformer-translation 9.2%, bert-base 7.7% (2.9%
// before), inception_v3 7.2%, transformer 5.3%, the other six 0.7–4.0%.
//
// Tried on 2026-11-29 and not kept, after resnet50's and inception_v3's
// 1×1 convolutions of 1,024–2,048 channels on 7×7 and 8×8 maps were seen
// predicted 2–3× too fast held out (the conv sweep drew at most 512
// channels, independent of the map): a sweep of 120 convolutions of up to
// 2,048 channels, half drawn with the channels growing as the map
// shrinks, profiled afresh (5.5 min). Nested, it scored worse: chosen
// 16.2%, 61.5%, 5.9%, whole 5.9%; forest 15.6%, 62.0%; resnet50 held out
// 8.8%, 69.0% within ±10% (8.6%, 69.3% before), inception_v3 14.4%,
// 58.6% (14.2%, 61.8%).
//
// Before the cap, with the op's kind of kernel and, for convolutions,
// oneDNN's implementations among the features (KernelKind, implFeature),
// on the profiles remade late on 2026-11-28, 6 min 47 s:
//
//	nested     chosen 15.8%, 63.0%, 5.8%, whole 7.9% (picks: forest depth
//	           12, all features ×12; knn, all ×1); by family: forest
//	           15.2%, 63.2%, 6.0%, 7.8%; boost 17.5%, 63.3%, 5.6%, 8.4%;
//	           knn 18.5%, 61.2%, 8.7%, 9.4%; tree 29.8%, 54.9%, 10.4%,
//	           10.5%; linear 44.3%, 19.1%, 19.4%, 13.8%; analytical
//	           527.7%, 7.5%, 50.6%, 19.7%
//	train      chose forest depth 12, all features: 16.9%, 60.0%, 6.2%
//	           (knn 19.9%, 57.7%, 9.9%; these chose it: flattering)
//	shape      forest depth 12, all features: 10.2%, 73.8%, 4.4%, 7.9%
//	shape-old  the same, every copy learned from and scored (8,580 rows):
//	           7.8%, 81.1%, 5.5%
//	batch      forest 10.7%, 67.9%, 5.1%, 6.3%; tree 12.5%, 62.6%, 9.9%;
//	           analytical 534.3%, 7.4%, 40.2%
//
// Per model, nested chosen, against the whole iterations: vgg16 25.3%,
// alexnet 18.5%, cyclegan 12.7%, inception_v3 10.9%, recommendation 8.5%,
// transformer 7.2%, the other seven 0.8–4.7%.
//
// With the kinds alone, 6 min 17 s:
//
//	nested     chosen 17.1%, 60.9%, 6.9%, whole 7.7% (picks: forest depth
//	           12, all features ×10; knn, all ×2; tree depth 12, all ×1);
//	           by family: forest 16.7%, 61.4%, 7.1%, 8.2%; boost 19.1%,
//	           61.7%, 6.5%, 8.5%; knn 19.2%, 60.2%, 9.1%, 9.8%; tree
//	           29.1%, 56.9%, 9.4%, 9.0%; linear 52.9%, 16.7%, 24.2%,
//	           14.8%
//	train      chose forest depth 12, all features: 17.8%, 58.7%, 8.4%
//	shape      forest depth 12, all features: 10.9%, 72.0%, 5.2%, 8.5%
//	batch      forest 11.3%, 66.4%, 5.9%, 5.7%; tree 13.0%, 60.8%, 10.0%
//
// Before the kinds, on the same profiles (identical work repeats within
// ±10% in 91.7% of pairs), 5 min 28 s:
//
//	nested     chosen 20.7%, 59.8%, 7.1%, whole 8.6% (picks: forest depth
//	           12, all features ×11; tree depth 12, all ×2); by family:
//	           forest 17.9%, 60.4%, 6.7%, 8.4%; boost 19.9%, 59.5%, 5.5%,
//	           8.6%; knn 19.8%, 59.4%, 9.2%, 10.0%; tree 26.1%, 54.9%,
//	           9.8%, 10.0%; linear 53.3%, 16.6%, 24.2%, 14.8%; analytical
//	           527.7%, 7.5%, 50.6%, 19.7%
//	train      chose knn, all features: 18.5%, 57.1%, 12.2% (forest depth
//	           12: 18.6%, 57.3%, 7.5%, a near tie; these chose it:
//	           flattering)
//	shape      forest depth 12, all features: 11.4%, 70.6%, 5.3%, 8.2%
//	shape-old  the same, every copy learned from and scored (8,580 rows):
//	           8.2%, 79.9%, 5.6%
//	batch      forest 11.4%, 65.0%, 5.4%, 5.7%; tree 12.8%, 63.1%, 10.0%;
//	           analytical 534.3%, 7.4%, 40.2%
//
// A whole iteration took 1.02–1.65× its layers (median 1.24), and
// ColdTraffic on all 25 is 0.627. Per model, nested chosen, against the
// whole iterations: vgg16 25.3%, alexnet 19.4%, transformer 13.7%,
// cyclegan 13.0%, a3c 12.3%, inception_v3 9.8%, the other seven 0.6–5.5%.
//
// On the profiles made earlier on 2026-11-28 with OpenBLAS's OpenMP build
// (one thread pool; identical work repeats within ±10% in 90.1% of pairs,
// against 77.3% before), 5 min on the idle VM:
//
//	nested     chosen 20.2%, 60.9%, 7.3% (picks: forest depth 12, all
//	           features ×8; tree depth 12, all ×3; knn, all ×2); by
//	           family: forest 16.6%, 61.4%, 7.5%; boost 20.0%, 59.5%,
//	           6.5%; knn 19.3%, 59.5%, 9.4%; tree 23.8%, 63.3%, 9.9%;
//	           linear 48.2%, 17.6%, 22.6%; analytical 513.2%, 8.0%, 50.0%
//	train      chose forest depth 12, all features: 18.4%, 57.0%, 9.6%
//	           (these chose it: flattering)
//	shape      forest depth 12, all features: 11.2%, 70.3%, 5.7%
//	shape-old  the same, every copy learned from and scored (8,580 rows):
//	           9.7%, 77.5%, 6.3%
//
// (shape and shape-old were 13.3%, 68.2%, 6.6% and 20.8%, 74.9%, 7.5% while
// every whole iteration shared one key: giving each model's its own key
// dealt the same layer shapes to other folds (KeyFolds shuffles the
// keys), which moved these by 1–11 points.)
//
//	batch      929 distinct rows, 12 iterations: forest 11.5%, 63.8%,
//	           5.1%; tree 10.6%, 74.1%, 6.9%; analytical 520.3%, 8.7%,
//	           40.4%
//
// Against the 25 whole iterations measured end to end (MeasuredIterationMAPE,
// the wholeMAPE metric), nested: chosen 12.3%, forest 11.5%, boost 11.7%,
// knn 14.0%, tree 11.8%, linear 16.7%, analytical 20.2% (no cold traffic;
// shape 9.7%). Each whole iteration took 1.08–2.28× its layers measured
// one by one (median 1.26; with the pthreads build 1.2–4.3×, median 1.7);
// the corrections add ColdTraffic (fitted on the other models' whole
// iterations in the outer loop; 0.595 on all of them) × the iteration's
// bytes at the predictor device's bandwidth (LookupDevice("cpu"): the
// 20 GB/s default per socket, the same for every profile, so α × bytes /
// bandwidth is bytes at 34 GB/s on this one-socket VM). Without it (the layers
// summed alone): chosen 23.5%, forest 23.9%, boost 24.5%, knn 26.2%, tree
// 23.4%, linear 35.0%. Counting only the passes whose bytes fit the
// machine's 32 MiB L3 (one that moves more streams from memory when
// timed alone too) was tried and is worse here: with the layers as
// measured, one model left out, it gives 8.8% against 12.5% for all
// passes, but with the layers predicted, nested: chosen 13.9% (against
// 12.3%), forest 13.5%,
// boost 12.5%, tree 15.8%, knn 13.8%, linear 20.0%; it is not used.
// Per model, nested chosen, against whole iterations
// with it: alexnet 24.1%, inception_v3 26.0%, transformer 19.8%,
// recommendation 16.2%, vgg16 15.8%, cyclegan 15.5%, transformer-translation
// 9.2%, bert-base 7.2%, resnet18 7.2%, lm 5.8%, resnet50 5.1%, a3c 5.0%,
// resnet18-cifar 4.5%. Per model, nested chosen
// (logged): resnet18 8.0% (71.3% within ±10%), resnet50 9.1%, vgg16
// 11.8%, alexnet 12.6%, inception_v3 14.2%, resnet18-cifar 15.5%, lm
// 16.1%, bert-base 24.6%, transformer-translation 29.9%, a3c 31.5%,
// recommendation 40.1%, cyclegan 53.7%, transformer 103.3%.
//
// On the profiles of 2026-11-25 (OpenBLAS's pthreads build; 77.3%
// repeatable):
//
//	nested     chosen 22.0%, 45.7%, 8.0% (picks: forest depth 12, all
//	           features ×9; boost depth 6, all ×2; knn, all ×2); by
//	           family: forest 21.2%, 46.8%, 8.1%; boost 23.8%, 43.2%,
//	           7.9%; knn 23.6%, 47.7%, 10.5%; tree 28.2%, 47.8%, 8.4%;
//	           linear 52.6%, 16.1%, 30.2%; analytical 525.6%, 3.0%, 106.5%
//	train      chose forest depth 12, all features: 23.3%, 43.8%, 10.6%
//	           (these chose it: flattering)
//	shape      forest depth 12, all features: 15.4%, 54.8%, 6.1%
//	shape-old  the same, every copy learned from and scored (8,580 rows):
//	           18.3%, 62.1%, 6.3%
//	batch      929 distinct rows, 12 iterations: forest 16.8%, 47.7%,
//	           10.1%; tree 17.1%, 56.8%, 10.6%; analytical 528.1%, 3.1%,
//	           97.5%
//
// Against the 25 whole iterations measured end to end then, nested: chosen 43.6%, forest 42.3%, boost 43.3%,
// knn 43.9%, tree 41.0%, linear 51.3%, analytical 51.7%. Per model, nested
// chosen (logged): vgg16 10.9% (64.5% within ±10%), lm 11.7%, alexnet
// 12.3%, resnet18 13.2%, resnet50 14.2%, resnet18-cifar 16.9%, a3c 18.4%,
// inception_v3 24.4%, bert-base 29.7%, transformer-translation 29.7%,
// transformer 33.2%, cyclegan 51.9%, recommendation 82.9%.
//
// The profiles of 2026-11-24 before them (1,937 rows scored; linear
// forward with a oneDNN bias add): nested chosen 23.1%, 47.0%, 6.5%;
// train forest 25.0%, 44.6%, 7.8%; shape 16.0%, 55.4%, 4.3%. On the
// pure-Go profiles before those: nested chosen 15.6%, 74.8%, 5.8%.
//
// The whole run took 6 min 16 s on the 2-core VM, otherwise idle (13 min 39 s
// with the fifteen sweeps):
//
//	go test -v -run '^$' -bench '^BenchmarkTrainBundled$' -benchtime 1x -timeout 30m ./predictor
//
// The history of the split by layer shape, before the split by model (Train
// chose the family on 5 folds by layer shape, every copy learned from and
// scored). Measured when written (row MAPE, within ±10%, iteration MAPE):
// analytical 87.8%, 5.5%, 73.5%; tree 21.0%, 50.0%, 16.7%; knn 23.0%,
// 38.5%, 13.1%; linear 33.3%, 21.2%, 8.7%; boost 20.4%, 44.3%, 9.9%;
// forest 18.6%, 50.8%, 7.8%. With the 8 legacy
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
// iteration 4.3% and 4.5%. Restated when the unit tests were cut to a fifth
// of the rows: boost 4.9%, 90.0%, 4.5% (README.md), which shape-old
// reproduced.
//
// All of the above were the pure-Go backend's profiles. On the first
// oneDNN profiles (2026-11-24, superseded; targets over the predictor
// device's analytical time): analytical 543.8%, 2.5%, 104.6% (whole
// iterations measured end to end: 35.0%); train (3 folds by model) picks a
// forest of depth 12, its CV 25.0%, 44.6%, 7.8%; nested, leave one model
// out: chosen 23.1%, 47.0%, 6.5% (whole iterations 33.8%), tree 26.6%,
// 47.5%, 9.3%, knn 25.4%, 46.7%, 12.4%, linear 56.1%, 13.8%, 26.0%, boost
// 23.8%, 46.1%, 6.0%, forest 23.9%, 47.5%, 6.6%; shape 16.0%, 55.4%,
// 4.3%; shape-old 15.4%, 57.7%, 5.1%; batch: boost 13.6%, 59.4%, 6.9%.
// Identical work in those profiles repeats within ±10% in 75.7% of pairs,
// in the profiles of 2026-11-25 77.3% (TestBundledRepeatability), in the
// pure-Go ones 93.1%.
func BenchmarkTrainBundled(b *testing.B) {
	rows, devs := bundled(b)
	s, err := Samples(rows, devs, Min)
	if err != nil {
		b.Fatal(err)
	}
	report := func(b *testing.B, prefix string, sc Scores) {
		b.Logf("%s: %+v", prefix, sc)
		b.ReportMetric(sc.MAPE, prefix+"-MAPE-%")
		b.ReportMetric(100*sc.Within10, prefix+"-within10-%")
		b.ReportMetric(sc.IterationMAPE, prefix+"-iterMAPE-%")
		b.ReportMetric(sc.MeasuredIterationMAPE, prefix+"-wholeMAPE-%")
	}
	// check fails where sc regresses past w (upper bounds on the MAPEs,
	// a lower bound on Within10; a zero MeasuredIterationMAPE bound is
	// none).
	check := func(b *testing.B, name string, sc, w Scores) {
		if sc.MAPE > w.MAPE || sc.Within10 < w.Within10 || sc.IterationMAPE > w.IterationMAPE ||
			w.MeasuredIterationMAPE > 0 && sc.MeasuredIterationMAPE > w.MeasuredIterationMAPE {
			b.Errorf("%s: %+v, want MAPE ≤ %v, within ±10%% ≥ %v, iteration MAPE ≤ %v (against whole iterations ≤ %v)", name, sc, w.MAPE, w.Within10, w.IterationMAPE, w.MeasuredIterationMAPE)
		}
	}
	an := Score(s, Analytical(s))
	if an.Rows != 1941 || an.Copies != 6639 || an.Iterations != 25 || an.MeasuredIterations != 25 || an.MAPE < 60 || an.MAPE > 150 || an.Within10 > 0.10 || an.IterationMAPE < 35 {
		b.Errorf("analytical %+v: want 1,941 rows scored, 6,639 copies, 25 iterations, each also measured whole; MAPE ≈ 97%%, within ±10%% ≈ 4.4%%, iteration MAPE ≈ 46%%", an)
	}
	start := time.Now()
	defer func() { b.Logf("all parts: %v", time.Since(start)) }()
	// Train's pick, and the configuration the other splits score (the
	// median the nested loop picks for all 13 models).
	picked := Candidate{Family: "median", Depth: 6, Features: "all"}
	chosen := Candidate{Family: "median", Depth: 6, Features: "all"}
	b.Run("train", func(b *testing.B) {
		var l *Learned
		for b.Loop() {
			var err error
			if l, err = Train(rows, devs, Min); err != nil {
				b.Fatal(err)
			}
		}
		b.Logf("chose %s (%s); %d rows learned from, %d copies not, of %d models and %d sweeps", l.Candidate(), l.CVSplit, l.Train.Rows, l.Train.Copies, len(l.Train.Models)-l.Train.Sweeps(), l.Train.Sweeps())
		if l.Stat != Min || l.CV["analytical"] != an || l.Train.Rows != 8627 || l.Train.Copies != 6713 || len(l.Train.Models) != 28 || l.Train.Sweeps() != 15 || l.CVSplit != "3 folds by model" {
			b.Errorf("trained %s on %+v, cv %+v", l.Model, l.Train, l.CV)
		}
		if !l.ColdLLC {
			b.Error("trained on every bundled profile, the cold traffic is not capped at the last-level cache")
		}
		if l.Candidate().String() != picked.String() {
			b.Errorf("chose %s, want %s", l.Candidate(), picked)
		}
		for _, fam := range Families {
			report(b, fam, l.CV[fam])
		}
		check(b, "train, forest", l.CV["forest"], Scores{MAPE: 19, Within10: 0.58, IterationMAPE: 8.5})
	})
	b.Run("nested", func(b *testing.B) {
		var res *NestedResult
		for b.Loop() {
			var err error
			if res, err = Nested(s, ModelCVFolds, rand.New(rand.NewPCG(1, 2))); err != nil {
				b.Fatal(err)
			}
		}
		b.Logf("picks: %s", res.PickCounts())
		for m, name := range res.Models {
			b.Logf("%s: %s: %+v", name, res.Picks[m], ScoreRows(s, res.Pred["chosen"], res.Rows[m]))
		}
		want := map[string]Scores{ // upper bounds on MAPEs, lower on Within10
			"chosen": {MAPE: 15.5, Within10: 0.64, IterationMAPE: 6.5, MeasuredIterationMAPE: 6.5},
			"median": {MAPE: 15.5, Within10: 0.65, IterationMAPE: 6.5, MeasuredIterationMAPE: 6.5},
			"tree":   {MAPE: 23, Within10: 0.56, IterationMAPE: 11, MeasuredIterationMAPE: 10}, // 35.6% and 29.3% on a base that varied with the machine
			"knn":    {MAPE: 20.5, Within10: 0.59, IterationMAPE: 10.5, MeasuredIterationMAPE: 9},
			"linear": {MAPE: 52, Within10: 0.19, IterationMAPE: 23.5, MeasuredIterationMAPE: 20.5},
			"boost":  {MAPE: 19.5, Within10: 0.61, IterationMAPE: 7.5, MeasuredIterationMAPE: 8.5},
			"forest": {MAPE: 17.5, Within10: 0.61, IterationMAPE: 8, MeasuredIterationMAPE: 8},
		}
		for _, k := range append([]string{"chosen", "analytical"}, Families...) {
			sc := res.Scores[k]
			report(b, k, sc)
			if sc.Rows != an.Rows || sc.Copies != an.Copies {
				b.Errorf("%s: scored %d rows and %d copies", k, sc.Rows, sc.Copies)
			}
			if w, ok := want[k]; ok {
				check(b, "nested, "+k, sc, w)
			}
		}
	})
	b.Run("shape", func(b *testing.B) {
		var pred, old []float64
		for b.Loop() {
			var err error
			if pred, err = heldOut(s, chosen.Family, KeyFolds(s, CVFolds), defaults); err != nil {
				b.Fatal(err)
			}
			// As before: every copy learned from and scored.
			if old, err = heldOut(withCopies(s), chosen.Family, KeyFolds(s, CVFolds), defaults); err != nil {
				b.Fatal(err)
			}
		}
		sc, so := Score(s, pred), Score(withCopies(s), old)
		report(b, "shape", sc)
		report(b, "shape-old", so)
		// (its whole iterations' cold traffic is fitted on the iterations
		// with no layer of the fold's shapes: nearly none, since
		// 2026-12-02, so the bound on them is loose)
		check(b, "shape", sc, Scores{MAPE: 14, Within10: 0.66, IterationMAPE: 6.5, MeasuredIterationMAPE: 14})
		check(b, "shape-old", so, Scores{MAPE: 10, Within10: 0.77, IterationMAPE: 7.5})
		if so.Rows != 8580 {
			b.Errorf("shape-old scored %d rows, want 8,580", so.Rows)
		}
	})
	b.Run("batch", func(b *testing.B) {
		train, test := BatchSplit(s)
		if len(train) == 0 || len(test) == 0 {
			b.Fatal("no batch split")
		}
		a := batchScores(s, test, Analytical(s))
		report(b, "batch-analytical", a)
		var p, pt []float64
		for b.Loop() {
			var err error
			if p, err = HeldOutSplit(s, chosen.Family, train, test); err != nil {
				b.Fatal(err)
			}
			if pt, err = HeldOutSplit(s, "tree", train, test); err != nil {
				b.Fatal(err)
			}
		}
		report(b, "batch-"+chosen.Family, batchScores(s, test, p))
		c := batchScores(s, test, pt)
		report(b, "batch-tree", c)
		if c.MAPE >= a.MAPE/2 || c.IterationMAPE >= a.IterationMAPE/2 {
			b.Errorf("by batch: corrected %+v, analytical %+v", c, a)
		}
	})
}

// withCopies is s with no row flagged a copy: every copy learned from and
// scored as if measured, as wb did before the flag (for the old figure).
func withCopies(s []Sample) []Sample {
	out := slices.Clone(s)
	for i := range out {
		out[i].Shared = false
	}
	return out
}
