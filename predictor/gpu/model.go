package gpu

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/wb-sim/wb/datasets/neusight"
	"github.com/wb-sim/wb/predictor"
)

// Version is the format of a saved [Model] (9: the groups each chip was
// measured in; 8: a chip's fp32 peak and
// bandwidth kept, its sheet whole; 7: a product group's largest
// batch, larger side and reduction learned; 6: products planned with split-K, and its
// slices a feature).
const Version = 9

// Params are the learned correction's settings, fixed before any score was
// looked at (see [DefaultParams]).
type Params struct {
	Boost predictor.BoostParams
	// PerGPU caps the rows of one op on one GPU that training takes (a
	// seeded draw), so that every GPU and op weighs alike.
	PerGPU int
	Seed   uint64
}

// DefaultParams are the settings wb ships with: 100 trees of depth 6,
// shrinkage 0.1, leaves of ≥ 20 rows, 80% of the rows per tree, at most
// 1,500 rows per op and GPU. They were fixed before the first evaluation
// (then 300 trees and 3,000 rows, cut to these to train in seconds), never
// chosen by the scores they produce.
func DefaultParams() Params {
	return Params{
		Boost:  predictor.BoostParams{Trees: 100, Depth: 6, MinLeaf: 20, Shrinkage: 0.1, Subsample: 0.8, Seed: 1},
		PerGPU: 1500,
		Seed:   1,
	}
}

// Sample is one measured op: its kernel, where it ran and how long it took.
type Sample struct {
	GPU     string // the measurements' folder name, a key of the spec sheets
	Kernel  Kernel
	Seconds float64
	// Floor is the host's cost of launching and timing one op of this
	// family on this GPU: the plateau its fastest measurements sit on (see
	// [FloorOf]). No measurement of the op is shorter, however little the
	// kernel does.
	Floor float64
	// Overlap is the part of the floor that the kernel's own time overlaps:
	// the host's time from launching the kernel to recording the event that
	// closes the timing. A measurement is max(Floor, Floor − Overlap +
	// kernel) ([Measured]); see [OverlapOf].
	Overlap float64
	// Borrowed: the GPU had no elementwise op to fit its overlap on, and
	// Overlap is the other GPUs' mean, which Train takes again over the
	// GPUs it trains on (so that a GPU left out reaches no fold through it).
	Borrowed bool
	// Scale, where not 0, divides the kernel's own time when the model
	// learns from it (see [Calibrate]): the measurement, its floor and
	// which rows are learned from stay as measured.
	Scale float64
}

// Measured is what timing one kernel of t seconds alone shows on a host
// with this floor and overlap: the floor, until the kernel outlasts the
// host's work after launching it.
//
// NeuSight's ops were timed with CUDA events around one PyTorch call. The
// GPU records the opening event, waits for the host to dispatch the
// kernel (Floor − Overlap after it), runs the kernel, and records the
// closing event, which the host enqueues Floor after the opening one:
// max(Floor, Floor − Overlap + t). With t an elementwise op's bytes at a
// bandwidth fitted per op, this has an rms log error of 0.01–0.08 on 54 of
// the 55 elementwise ops of the five GPUs (the A100's powu 0.14) where
// Floor + t has 0.14–0.21; it puts the bandwidths at 89–96% of the
// sheet's on the V100, 83–87% on the A100 and 72–77% on the others, where
// Floor + t needed the V100, A100 and P100 to beat their sheets (see
// OverlapOf).
func Measured(t, floor, overlap float64) float64 {
	return max(floor, floor-overlap+t)
}

// FloorShare: a measurement counts towards the learned kernel time only if
// it is at least this many floors long; shorter ones are mostly the
// host's launch and timing, which differ from host to host (26–128 µs over
// the five GPUs' hosts) and tell nothing about the GPU.
const FloorShare = 1.5

// LoadOps reads every op measurement of the folder, with each op's floor
// and each GPU's overlap.
func LoadOps(d *neusight.Dir) ([]Sample, error) { return loadOps(d, nil) }

// loadOps is LoadOps; with skip not nil, a file of a GPU without a spec
// sheet, or one that cannot be read, is left out and skip hears why (a
// folder to validate on, whose other files are still scored), where
// LoadOps fails.
func loadOps(d *neusight.Dir, skip func(why string)) ([]Sample, error) {
	// every file read first, so that the samples (256,509 of a few hundred
	// bytes each in the bundled data) take one allocation
	type part struct {
		gpu, file string // the GPU (its sheet's stem) and its ops file's name
		ops       []neusight.Op
	}
	var parts []part
	var fams []string
	for _, fam := range neusight.Families() {
		gpus, err := d.OpGPUs(fam)
		if err != nil {
			return nil, err
		}
		// in a folder to validate on, a file named as its sheet's device
		// ("NVIDIA L4"), or its stem otherwise written, is that GPU's: one
		// file a family and GPU, the one of the sheet's own name first
		read := map[string]string{} // sheet stem → the file read for it
		for _, g := range gpus {
			if _, ok := d.Devices[g]; ok {
				read[g] = g
			}
		}
		for _, g := range gpus {
			stem := g
			if _, ok := d.Devices[g]; !ok {
				err := fmt.Errorf("%s: ops/%s/%s has no spec sheet devices/%s.json", d.Path, fam, g, g)
				if skip == nil {
					return nil, err
				}
				if stem, ok = d.SheetNamed(g); !ok {
					skip(err.Error() + " (name the file as a sheet is named)")
					continue
				}
				if f, taken := read[stem]; taken {
					skip(fmt.Sprintf("%s: ops/%s/%s: left out for ops/%s/%s, read for %s", d.Path, fam, g, fam, f, stem))
					continue
				}
				read[stem] = g
			}
			parts, fams = append(parts, part{gpu: stem, file: g}), append(fams, fam)
		}
	}
	// the files read side by side (decompressing and parsing is most of
	// the time), their samples kept in this order
	errs := make([]error, len(parts))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(parts)) {
		wg.Go(func() {
			for i := range next {
				parts[i].ops, errs[i] = d.Ops(fams[i], parts[i].file)
			}
		})
	}
	for i := range parts {
		next <- i
	}
	close(next)
	wg.Wait()
	n := 0
	for i := range parts {
		if errs[i] != nil {
			if skip == nil {
				return nil, errs[i]
			}
			skip(errs[i].Error())
			parts[i].ops = nil
		}
		n += len(parts[i].ops)
	}
	out := make([]Sample, 0, n)
	for _, p := range parts {
		from := len(out)
		for i := range p.ops {
			out = append(out, Sample{GPU: p.gpu, Kernel: FromOp(&p.ops[i]), Seconds: p.ops[i].Latency / 1e3})
		}
		// every elementwise op of a GPU is one file of its own, so the
		// floor is per op
		floor := FloorOf(out[from:])
		for i := from; i < len(out); i++ {
			out[i].Floor = floor
		}
	}
	if len(out) == 0 {
		out = nil // as before: no samples is a nil slice
	}
	setOverlaps(out, func(g string) Spec { return SpecOf(d.Devices[g]) })
	return out, nil
}

// FloorBand: the measurements of an op within this factor of its fastest
// are its floor's plateau.
const FloorBand = 1.3

// FloorOf is the floor of samples, measurements of one op on one GPU: the
// median of those within 30% of the fastest ([FloorBand]). The fastest
// alone can be an outlier: GELU's fastest on the V100 took 31 µs, where
// hundreds of the smallest took 38; an op with no such plateau (NeuSight
// timed few convolutions small enough to reach one) gets a floor near its
// fastest.
func FloorOf(samples []Sample) float64 {
	if len(samples) == 0 {
		return 0
	}
	secs := make([]float64, len(samples))
	for i := range samples {
		secs[i] = samples[i].Seconds
	}
	slices.Sort(secs)
	n := 1
	for n < len(secs) && secs[n] <= FloorBand*secs[0] {
		n++
	}
	return predictor.MedianOf(secs[:n])
}

// OverlapOf is the overlap of one GPU's host, from its elementwise ops:
// for each op, the Overlap and bandwidth efficiency whose [Measured] fits
// the op's times best (least squares on their logarithms, kernels of at
// most 2 ms), then the median over the ops. Elementwise ops are timed
// alone well by their bytes at a bandwidth, which leaves the floor's
// overlap to the fit; 0 when samples hold none.
//
// Over NeuSight's five GPUs it comes to 16.5–25.5 µs (their elementwise
// floors are 26–58 µs): timing one elementwise op alone hides a kernel of
// up to that long.
func OverlapOf(s Spec, samples []Sample) float64 {
	byOp := map[string][][2]float64{} // (analytical, measured) per op
	floors := map[string]float64{}
	var ops []string
	for i := range samples {
		x := &samples[i]
		if !neusight.IsElementwise(x.Kernel.Op) {
			continue
		}
		t := Analytical(s, &x.Kernel)
		if t > 2e-3 {
			continue
		}
		if _, ok := byOp[x.Kernel.Op]; !ok {
			ops = append(ops, x.Kernel.Op)
		}
		byOp[x.Kernel.Op] = append(byOp[x.Kernel.Op], [2]float64{t, x.Seconds})
		floors[x.Kernel.Op] = x.Floor
	}
	if len(ops) == 0 {
		return 0
	}
	slices.Sort(ops)
	var fits []float64
	for _, op := range ops {
		fits = append(fits, fitOverlap(byOp[op], floors[op]))
	}
	slices.Sort(fits)
	return predictor.MedianOf(fits)
}

// fitOverlap fits max(floor, floor − overlap + k·t) to rows of (t,
// measured): overlap from 0 to the floor (at most MaxOverlap), k (the
// inverse of the bandwidth's efficiency) from 0.5 to 4, least squares on
// the logarithms. A grid of 100 overlap steps (2 µs when the floor is
// under 200 µs) and 5% steps of k, then one eight times finer around its
// best. Rows are thinned to at most 500, evenly, for speed.
func fitOverlap(rows [][2]float64, floor float64) float64 {
	if step := len(rows)/500 + 1; step > 1 {
		thin := make([][2]float64, 0, len(rows)/step+1)
		for i := 0; i < len(rows); i += step {
			thin = append(thin, rows[i])
		}
		rows = thin
	}
	logs := make([]float64, len(rows))
	for i, r := range rows {
		logs[i] = math.Log(r[1])
	}
	sse := func(o, k float64) float64 {
		var e float64
		for i, r := range rows {
			d := logs[i] - math.Log(Measured(k*r[0], floor, o))
			e += d * d
		}
		return e
	}
	hi := min(floor, MaxOverlap)
	bestO, bestK, bestErr := 0.0, 1.0, math.Inf(1)
	grid := func(o0, o1, oStep, k0, k1, kStep float64) {
		for i := 0; ; i++ {
			o := max(o0, 0) + float64(i)*oStep
			if o > min(o1, hi)*(1+1e-12) {
				break
			}
			for k := max(k0, 0.5); k <= min(k1, 4); k *= kStep {
				if e := sse(o, k); e < bestErr {
					bestO, bestK, bestErr = o, k, e
				}
			}
		}
	}
	step := max(2e-6, hi/100)
	grid(0, hi, step, 0.5, 4, 1.05)
	grid(bestO-step, bestO+step, step/8, bestK/1.05, bestK*1.05, 1.01)
	return bestO
}

// MaxOverlap bounds the overlap a fit may find, seconds: a host's time from
// a kernel's launch to the closing event is tens of µs.
const MaxOverlap = 1e-3

// setOverlaps sets every sample's Overlap to its GPU's [OverlapOf]; a GPU
// with no elementwise op (the A100 80GB's convolutions) gets the mean of
// the others'.
func setOverlaps(samples []Sample, spec func(gpu string) Spec) {
	gpus := GPUsOf(samples)
	// each GPU's elementwise ops, all that OverlapOf reads
	own := make([][]Sample, len(gpus))
	for i := range samples {
		if neusight.IsElementwise(samples[i].Kernel.Op) {
			k, _ := slices.BinarySearch(gpus, samples[i].GPU)
			own[k] = append(own[k], samples[i])
		}
	}
	// each GPU's fit is independent of the others': one goroutine each
	fits := make([]float64, len(gpus))
	var wg sync.WaitGroup
	for k, g := range gpus {
		s := spec(g)
		wg.Go(func() { fits[k] = OverlapOf(s, own[k]) })
	}
	wg.Wait()
	var sum float64
	var n int
	for _, o := range fits {
		if o > 0 {
			sum += o
			n++
		}
	}
	borrowed := make([]bool, len(gpus))
	for k, o := range fits {
		if o == 0 && n > 0 {
			fits[k], borrowed[k] = sum/fl(n), true
		}
	}
	for i := range samples {
		k, _ := slices.BinarySearch(gpus, samples[i].GPU)
		samples[i].Overlap, samples[i].Borrowed = fits[k], borrowed[k]
	}
}

// Group is the booster that corrects an op: one per family, one for all
// elementwise ops.
func Group(op string) string {
	if neusight.IsElementwise(op) || op == "copy" || op == "dropout" || op == "sum" {
		return "elementwise"
	}
	return op
}

// Booster is one group's boosted trees.
type Booster struct {
	Features  []string              `json:"features"`
	Base      float64               `json:"base"`
	Shrinkage float64               `json:"shrinkage"`
	Trees     []*predictor.TreeNode `json:"trees"`
	Rows      int                   `json:"rows"`
	// MaxRows, MaxWidth and MaxElements bound, for a bandwidth-bound group
	// (elementwise ops, softmax, layer norm), the kernels it learned from:
	// a kernel beyond them is corrected as one within them (see
	// Model.Kernel).
	MaxRows     int     `json:"max_rows,omitempty"`
	MaxWidth    int     `json:"max_width,omitempty"`
	MaxElements float64 `json:"max_elements,omitempty"`
	// MaxBatch, MaxSmall, MaxLarge and MaxK bound, for a product group, the
	// batches, the smaller and the larger output sides (min and max of M
	// and N) and the reductions (K) of the kernels it learned from: a
	// product beyond them is corrected as one cut to them (see
	// Booster.within).
	MaxBatch int `json:"max_batch,omitempty"`
	MaxSmall int `json:"max_small,omitempty"`
	MaxLarge int `json:"max_large,omitempty"`
	MaxK     int `json:"max_k,omitempty"`

	// flat is Trees laid out for prediction (flatten), built on the first
	// prediction: Trees and Shrinkage must not change after it (a change
	// would not be seen).
	flat     flatTrees
	flatOnce sync.Once
}

// maxFlatDepth bounds the trees flatten lays out as complete trees (2^depth
// leaves each): deeper ones (none that training grows; a model file may
// hold them, up to checkTree's 64) are walked by their pointers.
const maxFlatDepth = 16

// flatTrees are a booster's trees as complete binary trees of one depth,
// one after another: each tree's splits in heap order (the children of
// split j at 2j+1 and 2j+2), then its leaves' values times the booster's
// shrinkage (the product predict adds, computed once). A leaf above the
// full depth becomes splits whose leaves all hold its value. A walk takes
// depth steps with no branch to mispredict, and the walks of successive
// trees overlap in the processor: two thirds of a whole iteration's
// prediction was the pointer walk of Trees.
type flatTrees struct {
	depth  int
	splits []flatSplit // 2^depth − 1 a tree
	leaves []float64   // 2^depth a tree
}

type flatSplit struct {
	threshold float64
	feature   int32
}

// flatten lays trees out as flatTrees; none (depth −1) where a tree is
// deeper than maxFlatDepth.
func flatten(trees []*predictor.TreeNode, shrinkage float64) flatTrees {
	var f flatTrees
	for _, t := range trees {
		f.depth = max(f.depth, treeDepth(t))
	}
	if f.depth > maxFlatDepth {
		return flatTrees{depth: -1}
	}
	ns, nl := 1<<f.depth-1, 1<<f.depth
	f.splits = make([]flatSplit, ns*len(trees))
	f.leaves = make([]float64, nl*len(trees))
	var place func(t *predictor.TreeNode, splits []flatSplit, leaves []float64, j, d int)
	place = func(n *predictor.TreeNode, splits []flatSplit, leaves []float64, j, d int) {
		if d == f.depth {
			leaves[j-ns] = shrinkage * n.Value
			return
		}
		if n.Left == nil {
			// a leaf above the full depth: any way down ends at its value
			splits[j] = flatSplit{threshold: math.Inf(1)}
			place(n, splits, leaves, 2*j+1, d+1)
			place(n, splits, leaves, 2*j+2, d+1)
			return
		}
		splits[j] = flatSplit{threshold: n.Threshold, feature: int32(n.Feature)}
		place(n.Left, splits, leaves, 2*j+1, d+1)
		place(n.Right, splits, leaves, 2*j+2, d+1)
	}
	for i, t := range trees {
		place(t, f.splits[i*ns:(i+1)*ns], f.leaves[i*nl:(i+1)*nl], 0, 0)
	}
	return f
}

// treeDepth is the most splits on a path from n to a leaf.
func treeDepth(n *predictor.TreeNode) int {
	if n.Left == nil {
		return 0
	}
	return 1 + max(treeDepth(n.Left), treeDepth(n.Right))
}

// predict is the booster's correction at features x: Base plus Shrinkage
// times each tree's leaf, added in the trees' order (the same floats as
// walking Trees, from the flattened layout).
func (b *Booster) predict(x []float64) float64 {
	b.flatOnce.Do(func() { b.flat = flatten(b.Trees, b.Shrinkage) })
	f := &b.flat
	if f.depth < 0 {
		v := b.Base
		for _, t := range b.Trees {
			v += b.Shrinkage * t.Predict(x)
		}
		return v
	}
	ns, nl := 1<<f.depth-1, 1<<f.depth
	v := b.Base
	n := len(b.Trees)
	i := 0
	// four trees walked side by side: their loads overlap, where one
	// tree's walk waits on each load in turn (the sum keeps the trees'
	// order)
	for ; i+4 <= n; i += 4 {
		s0, s1, s2, s3 := f.splits[i*ns:], f.splits[(i+1)*ns:], f.splits[(i+2)*ns:], f.splits[(i+3)*ns:]
		j0, j1, j2, j3 := 0, 0, 0, 0
		for range f.depth {
			j0 = 2*j0 + 2 - b2i(x[s0[j0].feature] < s0[j0].threshold)
			j1 = 2*j1 + 2 - b2i(x[s1[j1].feature] < s1[j1].threshold)
			j2 = 2*j2 + 2 - b2i(x[s2[j2].feature] < s2[j2].threshold)
			j3 = 2*j3 + 2 - b2i(x[s3[j3].feature] < s3[j3].threshold)
		}
		v += f.leaves[i*nl+j0-ns]
		v += f.leaves[(i+1)*nl+j1-ns]
		v += f.leaves[(i+2)*nl+j2-ns]
		v += f.leaves[(i+3)*nl+j3-ns]
	}
	for ; i < n; i++ {
		splits := f.splits[i*ns:]
		j := 0
		for range f.depth {
			// the left child where x is below the threshold (as
			// TreeNode.Predict: NaN goes right)
			j = 2*j + 2 - b2i(x[splits[j].feature] < splits[j].threshold)
		}
		v += f.leaves[i*nl+j-ns]
	}
	return v
}

// Model is the trained GPU op model: a booster per op group, and the GPUs
// its training data came from.
type Model struct {
	Version   int                 `json:"version"`
	TrainedOn []string            `json:"trained_on"`
	Params    Params              `json:"params"`
	Groups    map[string]*Booster `json:"groups"`
	// Floors is each op's measurement floor, the mean over the training
	// GPUs: what timing one op alone adds on a typical host.
	Floors map[string]float64 `json:"floors"`
	// Overlap is the training GPUs' mean [Sample.Overlap], seconds: how
	// much of the floor a kernel's own time overlaps on a typical host.
	Overlap float64 `json:"overlap"`
	// Chips are the training GPUs' compute configurations and, per product
	// group, the mean residual of the correction on their rows: a GPU of
	// the same chip at the same clocks (an A100 80GB beside an A100 40GB)
	// runs products as that GPU does, whatever its memory.
	Chips []Chip `json:"chips,omitempty"`
	// Calibration is the factor each training GPU's linear measurements'
	// kernel time was divided by in training (see [Calibration]); none
	// where the model was trained on the measurements as they are.
	Calibration Calibration `json:"calibration,omitempty"`
}

// Chip is a training GPU's sheet and its residuals.
type Chip struct {
	GPU        string             `json:"gpu"`
	SMs        int                `json:"sms"`
	LanesPerSM int                `json:"lanes_per_sm"`
	ClockMHz   float64            `json:"clock_mhz"`
	L2         float64            `json:"l2"`
	FP32       float64            `json:"fp32"`      // FLOP/s
	Bandwidth  float64            `json:"bandwidth"` // bytes/s
	Residual   map[string]float64 `json:"residual"`  // by group: mean log(measured/predicted)
	Measured   []string           `json:"measured"`  // the groups it has measurements of, sorted
}

// sheet is the training GPU's spec sheet, as far as the features read it.
func (c *Chip) sheet() Spec {
	return Spec{Name: c.GPU, SMs: c.SMs, LanesPerSM: c.LanesPerSM, ClockMHz: c.ClockMHz, FP32: c.FP32, Bandwidth: c.Bandwidth, L2: c.L2}
}

// chipGroups are the groups whose time a chip's compute configuration sets.
var chipGroups = []string{neusight.Linear, neusight.BMM, neusight.Conv}

// near reports whether a is within 1% of b.
func near(a, b float64) bool { return math.Abs(a-b) <= 0.01*math.Abs(b) }

// sameDie reports whether s has c's SMs, lanes and L2 (sameL2): its
// chip, at whatever clock.
func (c *Chip) sameDie(s Spec) bool {
	return SameChip(Spec{SMs: c.SMs, LanesPerSM: c.LanesPerSM, L2: c.L2}, s)
}

// sameL2 reports whether two sheets' L2 sizes are one chip's: within 5%,
// as NeuSight's sheets write an L2 in MiB rounded (a V100's 6) and a sheet
// in true megabytes the same cache 4.9% larger (6.29). Held to 1%, a V100
// sheet of 6.29 lost the V100's residual and was predicted 10–13% slower
// (a reviewer's find).
func sameL2(a, b float64) bool { return math.Abs(a-b) <= 0.05*math.Max(a, b) }

// ChipAtOtherClock is the training GPU with s's SMs, lanes and L2
// (sameL2) at another clock, and that clock; "" when none.
func (m *Model) ChipAtOtherClock(s Spec) (string, float64) {
	if m == nil {
		return "", 0
	}
	for i := range m.Chips {
		if c := &m.Chips[i]; c.sameDie(s) && !near(s.ClockMHz, c.ClockMHz) {
			return c.GPU, c.ClockMHz
		}
	}
	return "", 0
}

// dieOf is the training GPU whose die s is (Chip.sameDie) and which has a
// residual of group g (a product group), or nil.
//
// Such a sheet's products are corrected as that GPU's were where it was
// measured: the trees read at the training GPU's own sheet, its residual
// added, times the analytical time on s. Read at s, the trees stepped as
// its clock or bandwidth moved the features across their splits, so that
// a faster board of a training die was predicted slower than the
// training board: the V100 SXM2 (1,530 MHz) 12% slower than the V100
// PCIe (1,380 MHz) on Llama-2 7B's decoding step, the A100 SXM4 80GB
// 0.4% slower than the A100 PCIe 80GB; up to 3.3% a step as the clock
// rose through a training sheet's. The analytical time falls as the clock
// (and the fp32 peak with it) or the bandwidth rises, so such a sheet's
// products now do too.
func (m *Model) dieOf(g string, s Spec) *Chip {
	if !slices.Contains(chipGroups, g) {
		return nil
	}
	if c := m.dieChip(g, s); c != nil {
		if _, ok := c.Residual[g]; ok {
			return c
		}
	}
	return nil
}

// dieSheet is the sheet of the training GPU whose die s is
// (Chip.sameDie) and which was measured in group g (dieChip), carrying s's
// level; ok false where there is none, or s is that GPU's sheet
// (Chip.isSheet).
func (m *Model) dieSheet(g string, s Spec) (Spec, bool) {
	c := m.dieChip(g, s)
	if c == nil || c.isSheet(s) {
		return Spec{}, false
	}
	at := c.sheet()
	at.Level = s.Level
	return at, true
}

// dieChip is the training GPU whose die s is (Chip.sameDie) and which was
// measured in group g, or nil; of two such, the one nearest s in fp32 peak
// and bandwidth (the sum of the two |log ratio|s; the first in the model's
// order on a tie), so that a sheet a step from one is timed as that one.
func (m *Model) dieChip(g string, s Spec) *Chip {
	if m == nil {
		return nil
	}
	var best *Chip
	far := math.Inf(1)
	for i := range m.Chips {
		c := &m.Chips[i]
		if !c.sameDie(s) || !slices.Contains(c.Measured, g) {
			continue
		}
		if d := math.Abs(math.Log(s.FP32/c.FP32)) + math.Abs(math.Log(s.Bandwidth/c.Bandwidth)); d < far {
			best, far = c, d
		}
	}
	return best
}

// isSheet reports whether s is c's own sheet: its SMs and lanes, and its
// clock, fp32 peak, bandwidth and L2 within one part in a million.
func (c *Chip) isSheet(s Spec) bool {
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Abs(b) }
	return c.sameDie(s) && near(s.ClockMHz, c.ClockMHz) && near(s.FP32, c.FP32) && near(s.Bandwidth, c.Bandwidth) && near(s.L2, c.L2)
}

// OwnSheet reports whether s is a training GPU's own sheet: that GPU's
// name (spaces as underscores, as NeuSight's folders write it) and its
// figures (Chip.isSheet). A
// sheet of that name with other figures is another board of its die (a
// reviewer's find: a "Tesla T4" sheet at 25% more clock was said to be
// timed from its own measurements).
func (m *Model) OwnSheet(s Spec) bool {
	if m == nil {
		return false
	}
	name := strings.ReplaceAll(s.Name, " ", "_")
	for i := range m.Chips {
		if m.Chips[i].GPU == name && m.Chips[i].isSheet(s) {
			return true
		}
	}
	return false
}

// Sibling is the training GPU whose chip s shares, at any clock, or "".
func (m *Model) Sibling(s Spec) string {
	if m == nil {
		return ""
	}
	for i := range m.Chips {
		if m.Chips[i].sameDie(s) {
			return m.Chips[i].GPU
		}
	}
	return ""
}

// Predict is the time of the kernel timed alone, as the op measurements
// are: [Measured] with the op's floor and the overlap on a typical host
// (the kernel's own time for an op that no measurement covers).
func (m *Model) Predict(s Spec, k *Kernel) float64 {
	return m.timedAlone(k.Op, m.Kernel(s, k))
}

// timedAlone is [Measured] for kernels of op family op that take t seconds
// on the GPU, launched and timed as one op on a typical host (t itself for
// an op that no measurement covers).
func (m *Model) timedAlone(op string, t float64) float64 {
	if m == nil || m.Floors[op] == 0 {
		return t
	}
	return Measured(t, m.Floors[op], m.Overlap)
}

// Kernel is the kernel's own time on s, seconds, as it runs in a stream of
// kernels: the analytical time times the learned correction of its group
// (none for ops no measurement covers, such as embedding lookups), and for a
// product never less than its FLOPs at the GPU's fp32 peak (times
// DualIssue on SMs of 128 lanes); an elementwise op reading an input across
// its layout (Kernel.ReadStride) takes longer by its extra sectors
// (stridedFactor).
//
// A convolution unlike those measured (Kernel.Implicit) takes the
// correction of the product its implicit GEMM computes, applied to its own
// analytical time: a linear layer's of the same M, N and K (a batched
// product's for a weight gradient reduced in groups). The convolution
// family's trees learned 3×3 stride-1 layers that cuDNN runs mostly as
// Winograd, with fewer multiplications than the GEMM counts; a 1×1, 7×7,
// 4×4 or strided layer runs as the GEMM.
func (m *Model) Kernel(s Spec, k *Kernel) float64 {
	if k.Op == OpSync {
		return m.SyncGap()
	}
	return m.kernel(s, k) * stridedFactor(s, k)
}

// SyncGap is the GPU's idle time at a host synchronisation (OpSync):
// the host's time from regaining control to launching the next kernel,
// which the op measurements give as an add's floor less the part of it the
// kernel overlaps (Floor − Overlap: the host's time before the launch,
// about 12 µs on the training GPUs' hosts); a GPU's own launch cost
// (Launch) for a model without floors.
func (m *Model) SyncGap() float64 {
	if m == nil || m.Floors["add"] == 0 {
		return Launch
	}
	return max(Launch, m.Floors["add"]-m.Overlap)
}

// A product's time never falls as its rows grow: the trees' corrections
// step between the shapes they learned from, so that, read at each row
// count, a product of more rows could take less time (an L4's 4,096 ×
// 4,096 layer 32% less at 208 rows than at 192, Llama-2 7B 23% less at
// sequence 208; on the training GPUs steps of up to 1.35×; a one-in-five
// row count of the common layers' above some larger one), where a GPU
// runs no product of fewer rows slower than one of more. kernel reads a
// linear layer's or batched product's time off its row curve at the row
// counts of rowsAt (every count to 32, then 16 a doubling), each the least
// time of the same product at that grid count or any larger one (the
// curve's suffix minimum, envelope), and between two grid counts
// interpolates: a time that never falls with the rows and meets the
// model at every grid count where no larger product is faster.

// rowsAt is the i-th row count of the grid (i ≥ 0): i+1 up to 32, then
// 32 × 2^((i−31)/16) rounded, 4.4% apart.
func rowsAt(i int) int {
	if i < 32 {
		return i + 1
	}
	return int(math.Round(32 * math.Exp2(float64(i-31)/16)))
}

// rowsIndex is the last grid index whose row count is at most rows (≥ 1).
func rowsIndex(rows int) int {
	if rows <= 32 {
		return rows - 1
	}
	i := 31 + int(16*math.Log2(float64(rows)/32))
	for rowsAt(i+1) <= rows {
		i++
	}
	for rowsAt(i) > rows {
		i--
	}
	return i
}

// kernel is Kernel for the kernel's reads in order, a linear layer's or
// batched product's time held never to fall with its rows (above).
func (m *Model) kernel(s Spec, k *Kernel) float64 {
	if d, ok := dotProduct(k); ok && m != nil {
		return m.kernel(s, &d)
	}
	if e, ok := implicitProduct(k); ok && m != nil {
		// a convolution corrected as its implicit GEMM's product is timed
		// as that product is, held to its rows' envelope, times its own
		// time over the product's (its bytes are not the GEMM's): a 1×1
		// layer exactly as its linear layer. On a training GPU's die that
		// ratio is read at the training GPU's sheet, as its correction
		// is: read at s, it moved with the bandwidth against the
		// product's envelope, and a T4 sheet's 7×7 stride-2 layer took 2%
		// longer with 5% more bandwidth (a reviewer's find)
		at := s
		if d, ok := m.dieSheet(Group(e.Op), s); ok {
			at = d
		}
		return m.kernel(s, &e) * m.kernelAt(at, k) / m.kernelAt(at, &e)
	}
	if m == nil || m.Groups[Group(k.Op)] == nil {
		return m.kernelAt(s, k)
	}
	if kindOf(k.Op) != kindGEMM {
		return m.l2Envelope(s, k)
	}
	if k.Op != neusight.Linear && k.Op != neusight.BMM || k.M < 1 {
		return m.kernelAt(s, k)
	}
	// past last, every product is corrected as the one at the group's
	// bounds (Booster.within), the same correction for any rows, so its
	// time grows with the rows as the analytical time does
	b := m.Groups[Group(k.Op)]
	last := rowsIndex(max(b.MaxSmall, b.MaxLarge)) + 1
	i := rowsIndex(k.M)
	if i >= last {
		return m.kernelAt(s, k)
	}
	hi := m.envelope(s, k, i+1, last)
	d := *k
	d.M = rowsAt(i)
	lo := min(m.kernelAt(s, &d), hi)
	if d.M == k.M {
		return lo
	}
	return lo + (hi-lo)*float64(k.M-d.M)/float64(rowsAt(i+1)-d.M)
}

// l2Envelope is a bandwidth-bound kernel's time held never to grow with
// the GPU's L2: the least of its time on s and on s with half, a quarter
// ... of its L2, and with the least L2 of a training GPU, below which no
// L2 is taken (a sheet of less is timed as with that least: the trees
// cannot extrapolate there). A GPU with more cache runs a kernel no slower
// (it may keep what a smaller one spills); the trees, whose only big-L2
// GPU was the A100, learned its own costs as the effect of data fitting
// its L2, and timed a V100's 8 MB relu 67% slower with twice its L2, an
// H100's elementwise ops up to 52% slower with its own L2 than with half
// of it. Decided on that physics, before any figure. Exact where the L2s
// compared differ by a power of two.
func (m *Model) l2Envelope(s Spec, k *Kernel) float64 {
	least := math.Inf(1)
	for i := range m.Chips {
		least = min(least, m.Chips[i].L2)
	}
	if math.IsInf(least, 1) {
		return m.kernelAt(s, k)
	}
	d := s
	d.L2 = max(s.L2, least)
	best := m.kernelAt(d, k)
	for half := s.L2 / 2; d.L2 > least; half /= 2 {
		d.L2 = max(half, least)
		best = min(best, m.kernelAt(d, k))
	}
	return best
}

// envelope is the least time of k at the grid's row counts from index i
// to last: a count whose FLOPs alone take longer at the GPU's peak than
// the least time yet (the floor kernelAt holds a product to), and all
// those after it, cannot take less.
func (m *Model) envelope(s Spec, k *Kernel, i, last int) float64 {
	d := *k
	d.M = rowsAt(i)
	best := m.kernelAt(s, &d)
	peak := s.FP32 * issueShare(s)
	for i++; i <= last; i++ {
		d.M = rowsAt(i)
		if d.FLOPs()/peak >= best {
			break
		}
		best = min(best, m.kernelAt(s, &d))
	}
	return best
}

// dotProduct is the reduction a product of one row and one column runs as
// (ok false for any other kernel): a batch of dot products, each reading a
// row and a column of K values and writing one sum, which is what its
// memory traffic and its parallelism are; timed as a product, each dot
// product was a whole tile of SM work (planGEMM's smallest, 32 × 32, over
// the whole reduction), so that single-head attention's scores at
// sequence 1, 1,280 deep on the H200's sheet, took 114 µs where their
// 10 KB take a few. No product NeuSight measured has fewer than two rows
// or columns, so no correction learned from products reaches these; the
// elementwise group's reductions (sums) are the nearest kernels measured.
func dotProduct(k *Kernel) (Kernel, bool) {
	if k.Op != neusight.Linear && k.Op != neusight.BMM || k.M != 1 || k.N != 1 || k.K < 1 {
		return Kernel{}, false
	}
	// (a linear layer's bias, one value a sum, is left out)
	return Kernel{Op: "sum", Rows: 1, Width: max(k.Batch, 1) * k.K, Inputs: 2, Outputs: 1, Reduce: k.K}, true
}

// implicitProduct is the product whose correction a convolution unlike
// those measured (Kernel.Implicit) takes: a linear layer of its implicit
// GEMM's M, N and K, or a batched product for a weight gradient reduced in
// groups (ok false for any other kernel).
func implicitProduct(k *Kernel) (Kernel, bool) {
	if k.Op != neusight.Conv || !k.Implicit {
		return Kernel{}, false
	}
	if k.Batch > 1 {
		return Kernel{Op: neusight.BMM, Batch: k.Batch, M: k.M, N: k.N, K: k.K}, true
	}
	return Kernel{Op: neusight.Linear, Batch: 1, M: k.M, N: k.N, K: k.K}, true
}

// kernelAt is kernel, the product's rows as they are.
func (m *Model) kernelAt(s Spec, k *Kernel) float64 {
	t, x := analyse(s, k)
	if m == nil {
		return t
	}
	// a level read off the GPU's own measurements scales the kernel (see
	// Level)
	if s.Level != (Level{}) {
		if kindOf(k.Op) == kindGEMM {
			t *= math.Exp(s.Level.Products)
		} else {
			t *= math.Exp(s.Level.Bandwidth)
		}
	}
	g := Group(k.Op)
	if e, ok := implicitProduct(k); ok {
		k = &e
		g = Group(k.Op)
		_, x = analyse(s, k)
	}
	b := m.Groups[g]
	if b == nil {
		return t
	}
	// a sheet of a training GPU's die (its SMs, lanes and L2) reads its
	// product's correction where that GPU was measured, its own sheet, and
	// adds its residual: the correction is that die's efficiency, and the
	// analytical time carries the sheet's clock and bandwidth (see
	// Model.dieOf)
	at, res, die := s, 0.0, m.dieOf(g, s)
	if die != nil {
		at, res = die.sheet(), die.Residual[g]
		_, x = analyse(at, k)
	}
	if r, ok := b.within(k); ok {
		// beyond the kernels learned from, a bandwidth-bound kernel's time
		// grows with its bytes, and a product's with its waves, at the
		// efficiency it reached there: the trees, which cannot
		// extrapolate, would take a ratio from other GPUs' (a kernel
		// beyond this GPU's measured sizes has features only GPUs of
		// fewer SMs reached)
		_, x = analyse(at, &r)
	}
	v := b.predict(x) + res
	// a correction is bounded to ×/÷ 20: the trees never saw more
	t *= math.Exp(max(-3, min(3, v)))
	if kindOf(k.Op) == kindGEMM {
		// and no product runs faster than the GPU's peak allows its
		// instruction stream (see DualIssue)
		t = max(t, k.FLOPs()/(s.FP32*issueShare(s)))
	}
	return t
}

// LevelOf is the level of the GPU of spec s read off its own op
// measurements among samples, as two probes timed on it would give it (a
// large add, a large batched product): the median of
// log(measured kernel time / the model's from the sheet) over its adds of
// the large measurements SheetShares reads (largeOf), and over its batched
// products; n counts each (a level with no measurement behind it stays 0).
func (m *Model) LevelOf(samples []Sample, gpu string, s Spec) (lv Level, n [2]int) {
	s.Level = Level{}
	var adds, bmms []float64
	for i := range samples {
		x := &samples[i]
		if x.GPU != gpu {
			continue
		}
		switch c, t := largeOf(x, s); {
		case c == largeElementwise && x.Kernel.Op == "add":
			adds = append(adds, math.Log(t/m.Kernel(s, &x.Kernel)))
		case c == largeBMM:
			bmms = append(bmms, math.Log(t/m.Kernel(s, &x.Kernel)))
		}
	}
	return Level{Products: medianOr0(bmms), Bandwidth: medianOr0(adds)}, [2]int{len(bmms), len(adds)}
}

// medianOr0 sorts v and returns its median, 0 when v is empty.
func medianOr0(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	return predictor.MedianOf(v)
}

// within is k cut to the kernels b learned from, for a bandwidth-bound
// kernel beyond them (ok true): an elementwise op, whose time its shape
// does not set, keeps its elements, up to the most learned, in rows no
// more than the most learned (widened where need be, to the widest); a
// norm or softmax keeps its width, up to the widest, in as many of its
// rows as the most rows and elements learned allow.
//
// A product beyond the most learned in its batch, its smaller or its
// larger output side, or its reduction is cut to the most learned in each
// such dimension, each cut alone (a convolution cut in its rows keeps the
// images that make them; its batch, the groups of a weight gradient, and
// its reduction are not cut: its images set both). Its correction is that
// of the product at the bounds, so that its time grows with its waves,
// continuously across each bound and never less as a dimension grows. The
// trees cannot extrapolate, and beyond the products learned the only ones
// of as many waves ran on GPUs of fewer SMs, the low-power boards whose
// long sweeps ran ever slower: uncut, an A100's 131,072-token linear layer
// (5,120 → 1,280) took 1.42× its analytical time and 524,288 tokens 3.1×,
// where 65,536 took 1.10×.
func (b *Booster) within(k *Kernel) (Kernel, bool) {
	kind := kindOf(k.Op)
	if kind == kindGEMM {
		r := *k
		conv := k.Images > 0
		if b.MaxBatch >= 1 && r.Batch > b.MaxBatch && !conv {
			r.Batch = b.MaxBatch
		}
		if b.MaxSmall >= 1 && min(r.M, r.N) > b.MaxSmall {
			if r.M <= r.N {
				r.cutRows(b.MaxSmall)
			} else {
				r.cutCols(b.MaxSmall)
			}
		}
		if b.MaxLarge >= 1 && max(r.M, r.N) > b.MaxLarge {
			if r.M >= r.N {
				r.cutRows(b.MaxLarge)
			} else {
				r.cutCols(b.MaxLarge)
			}
		}
		if b.MaxK >= 1 && r.K > b.MaxK && !conv {
			r.K = b.MaxK
		}
		return r, r != *k
	}
	if b.MaxElements < 1 || b.MaxRows < 1 || b.MaxWidth < 1 || (kind != kindElementwise && kind != kindNorm && kind != kindSoftmax) {
		return Kernel{}, false
	}
	if k.Rows <= b.MaxRows && k.Width <= b.MaxWidth && k.elems() <= b.MaxElements {
		return Kernel{}, false
	}
	r := *k
	if kind == kindElementwise {
		// the elements kept, up to the most learned, in rows as wide as
		// the rows learned need
		e := min(k.elems(), b.MaxElements)
		w := max(1, min(b.MaxWidth, max(k.Width, int(math.Ceil(e/fl(b.MaxRows))))))
		r.Rows = max(1, min(b.MaxRows, int(math.Ceil(e/fl(w)))))
		r.Width = max(1, min(w, int(e/fl(r.Rows))))
		return r, true
	}
	r.Width = max(1, min(r.Width, b.MaxWidth))
	r.Rows = max(1, min(b.MaxRows, int(min(fl(k.Rows), b.MaxElements/fl(r.Width)))))
	return r, true
}

// cutRows cuts a product's M to m (a convolution keeps the images that
// make its rows).
func (k *Kernel) cutRows(m int) {
	if k.Images > 0 {
		k.Images = max(1, int(fl(k.Images)*fl(m)/fl(k.M)))
	}
	k.M = m
}

// cutCols cuts a product's N to n (a convolution's output channels too).
func (k *Kernel) cutCols(n int) {
	k.N = n
	if k.OutC > 0 {
		k.OutC = n
	}
}

// Train fits the model on the samples of every GPU but those in exclude.
// specs gives each GPU's spec sheet.
func Train(samples []Sample, specs map[string]Spec, exclude []string, p Params) (*Model, error) {
	return trainScaled(samples, nil, nil, specs, exclude, p)
}

// trainScaled is Train on the samples of the groups in only (every group
// where nil) with c's factors set as [Calibrate] sets them: the model
// Train fits on Calibrate's copy of those samples, without the copy (a
// quarter of a million samples with strings in each, copied and scanned
// by the collector at every calibrated fit). A group left out drops its
// (op, GPU) cells whole; the cells kept hold their rows in the same order
// and draw from them as they did.
func trainScaled(samples []Sample, c Calibration, only []string, specs map[string]Spec, exclude []string, p Params) (*Model, error) {
	byGroup := map[string][]int{}
	// the rows of one (op, GPU), drawn with the seed
	cells := map[[2]string][]int{}
	var keys [][2]string
	for i := range samples {
		s := &samples[i]
		if only != nil && !slices.Contains(only, Group(s.Kernel.Op)) {
			continue
		}
		if slices.Contains(exclude, s.GPU) {
			continue
		}
		if _, ok := specs[s.GPU]; !ok {
			return nil, fmt.Errorf("gpu: no spec sheet for %s", s.GPU)
		}
		key := [2]string{s.Kernel.Op, s.GPU}
		if _, ok := cells[key]; !ok {
			keys = append(keys, key)
		}
		cells[key] = append(cells[key], i)
	}
	slices.SortFunc(keys, func(a, b [2]string) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	gpus := map[string]bool{}
	overlaps := map[string]float64{}
	borrowed := map[string]bool{} // GPUs whose Sample.Overlap is borrowed
	floors := map[string][]float64{}
	for _, key := range keys {
		idx := cells[key]
		floors[key[0]] = append(floors[key[0]], samples[idx[0]].Floor)
		idx = slices.DeleteFunc(slices.Clone(idx), func(i int) bool { return samples[i].Seconds < FloorShare*samples[i].Floor })
		if p.PerGPU > 0 && len(idx) > p.PerGPU {
			rng := rand.New(rand.NewPCG(p.Seed, hash(key[0]+"/"+key[1])))
			rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
			idx = idx[:p.PerGPU]
			slices.Sort(idx)
		}
		g := Group(key[0])
		byGroup[g] = append(byGroup[g], idx...)
		gpus[key[1]] = true
		overlaps[key[1]] = samples[cells[key][0]].Overlap
		if samples[cells[key][0]].Borrowed {
			borrowed[key[1]] = true
		}
	}
	if len(byGroup) == 0 {
		return nil, errors.New("gpu: no training samples")
	}
	m := &Model{Version: Version, Params: p, Groups: map[string]*Booster{}, Floors: map[string]float64{}}
	for op, fs := range floors {
		var sum float64
		for _, f := range fs {
			sum += f
		}
		m.Floors[op] = sum / fl(len(fs))
	}
	for g := range gpus {
		m.TrainedOn = append(m.TrainedOn, g)
	}
	slices.Sort(m.TrainedOn)
	// a GPU whose overlap was borrowed takes the mean of the GPUs trained
	// on that have their own (summed in the order setOverlaps sums them)
	var own float64
	var nOwn int
	for _, g := range m.TrainedOn {
		if !borrowed[g] {
			own += overlaps[g]
			nOwn++
		}
	}
	if nOwn > 0 {
		for g := range borrowed {
			overlaps[g] = own / fl(nOwn)
		}
	}
	for _, g := range m.TrainedOn {
		m.Overlap += overlaps[g]
	}
	m.Overlap /= fl(len(m.TrainedOn))
	groups := make([]string, 0, len(byGroup))
	for g, idx := range byGroup {
		if len(idx) > 0 { // every row of a group may be floor-bound
			groups = append(groups, g)
		}
	}
	if len(groups) == 0 {
		return nil, fmt.Errorf("gpu: no op measurement is %g floors long or more: nothing to learn a kernel's time from", FloorShare)
	}
	slices.Sort(groups)
	// each group's trees are fitted on their own (its own seed, its own
	// rows), so the groups are fitted at once (predictor.Parallel) and
	// assembled in order: the same model as one after the other
	type fit struct {
		X     [][]float64
		y     []float64
		base  float64
		trees []*predictor.TreeNode
	}
	fits := make([]fit, len(groups))
	_ = predictor.Parallel(len(groups), func(gi int) error {
		g := groups[gi]
		idx := byGroup[g]
		X := make([][]float64, len(idx))
		y := make([]float64, len(idx))
		scaled := slices.Contains(CalibratedGroups, g)
		for j, i := range idx {
			s := &samples[i]
			f, calibrated := c[s.GPU]
			calibrated = calibrated && scaled
			borrowed := s.Borrowed && nOwn > 0
			if borrowed || calibrated {
				r := *s
				if borrowed {
					r.Overlap = overlaps[s.GPU] // the training GPUs' mean
				}
				if calibrated {
					r.Scale = f // as Calibrate sets it
				}
				s = &r
			}
			t, x := analyse(specs[s.GPU], &s.Kernel)
			X[j], y[j] = x, math.Log(s.kernel()/t)
		}
		bp := p.Boost
		bp.Seed = p.Boost.Seed ^ hash(g)
		base, trees := predictor.FitBoost(X, y, bp)
		fits[gi] = fit{X, y, base, trees}
		return nil
	})
	for gi, g := range groups {
		idx := byGroup[g]
		X, y, base, trees := fits[gi].X, fits[gi].y, fits[gi].base, fits[gi].trees
		b := &Booster{Features: FeatureNames(samples[idx[0]].Kernel.Op), Base: base, Shrinkage: p.Boost.Shrinkage, Trees: trees, Rows: len(idx)}
		if kindOf(samples[idx[0]].Kernel.Op) != kindGEMM {
			for _, i := range idx {
				k := &samples[i].Kernel
				b.MaxRows, b.MaxWidth, b.MaxElements = max(b.MaxRows, k.Rows), max(b.MaxWidth, k.Width), max(b.MaxElements, k.elems())
			}
		} else {
			for _, i := range idx {
				k := &samples[i].Kernel
				b.MaxBatch, b.MaxSmall, b.MaxLarge = max(b.MaxBatch, k.Batch), max(b.MaxSmall, min(k.M, k.N)), max(b.MaxLarge, max(k.M, k.N))
				b.MaxK = max(b.MaxK, k.K)
			}
		}
		m.Groups[g] = b
		measured := map[string]bool{}
		for _, i := range idx {
			measured[samples[i].GPU] = true
		}
		for _, gpu := range slices.Sorted(maps.Keys(measured)) {
			c := m.chip(gpu, specs[gpu])
			c.Measured = append(c.Measured, g)
			slices.Sort(c.Measured)
		}
		if slices.Contains(chipGroups, g) {
			res, n := map[string]float64{}, map[string]int{}
			for j, i := range idx {
				gpu := samples[i].GPU
				res[gpu] += y[j] - b.predict(X[j])
				n[gpu]++
			}
			for gpu, r := range res {
				m.chip(gpu, specs[gpu]).Residual[g] = r / fl(n[gpu])
			}
		}
	}
	slices.SortFunc(m.Chips, func(a, b Chip) int { return strings.Compare(a.GPU, b.GPU) })
	return m, nil
}

// chip returns the model's entry for a training GPU, adding it.
func (m *Model) chip(gpu string, s Spec) *Chip {
	for i := range m.Chips {
		if m.Chips[i].GPU == gpu {
			return &m.Chips[i]
		}
	}
	m.Chips = append(m.Chips, Chip{GPU: gpu, SMs: s.SMs, LanesPerSM: s.LanesPerSM, ClockMHz: s.ClockMHz, L2: s.L2,
		FP32: s.FP32, Bandwidth: s.Bandwidth, Residual: map[string]float64{}})
	return &m.Chips[len(m.Chips)-1]
}

// hash is FNV-1a, to derive per-group seeds.
func hash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// Marshal is the model's JSON.
func (m *Model) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	if err := e.Encode(m); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Unmarshal reads a model's JSON; name names it in errors. Every tree must
// be well formed and every value finite.
func Unmarshal(b []byte, name string) (*Model, error) {
	var m Model
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if m.Version != Version {
		return nil, fmt.Errorf("%s: GPU model version %d, want %d (train it again with wb train-gpu)", name, m.Version, Version)
	}
	if len(m.Groups) == 0 {
		return nil, fmt.Errorf("%s: no op groups", name)
	}
	if !finite(m.Overlap) || m.Overlap < 0 || m.Overlap > MaxOverlap {
		return nil, fmt.Errorf("%s: overlap %v s: want a finite value in [0, 1 ms]", name, m.Overlap)
	}
	if err := m.Calibration.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for _, op := range slices.Sorted(maps.Keys(m.Floors)) { // the first bad one, whatever the map's order
		if f := m.Floors[op]; !finite(f) || f < 0 || f > 1 {
			return nil, fmt.Errorf("%s: floor of %s %v s: want a finite time in [0, 1 s]", name, op, f)
		}
	}
	for _, c := range m.Chips {
		if c.SMs < 1 || c.LanesPerSM < 1 || !(c.ClockMHz > 0) || !(c.L2 > 0) || !(c.FP32 > 0) || !(c.Bandwidth > 0) ||
			math.IsInf(c.ClockMHz+c.L2+c.FP32+c.Bandwidth, 0) {
			return nil, fmt.Errorf("%s: chip %q: SMs, lanes, clock, L2, fp32 peak and bandwidth must be positive and finite", name, c.GPU)
		}
		if len(c.Measured) == 0 || !slices.IsSorted(c.Measured) {
			return nil, fmt.Errorf("%s: chip %q: measured groups %q: want the groups it has measurements of, sorted", name, c.GPU, c.Measured)
		}
		for _, g := range c.Measured {
			if m.Groups[g] == nil {
				return nil, fmt.Errorf("%s: chip %q: measured in group %q, which the model has not", name, c.GPU, g)
			}
		}
		for g, r := range c.Residual {
			if !finite(r) || math.Abs(r) > 3 {
				return nil, fmt.Errorf("%s: chip %q: residual of %s %v: want a finite value within ±3", name, c.GPU, g, r)
			}
		}
	}
	for g, b := range m.Groups {
		if b == nil {
			return nil, fmt.Errorf("%s: group %q: empty", name, g)
		}
		want := len(FeatureNames(opOfGroup(g)))
		if len(b.Features) != want {
			return nil, fmt.Errorf("%s: group %q: %d features, want %d", name, g, len(b.Features), want)
		}
		if !finite(b.MaxElements) || b.MaxElements < 0 || b.MaxRows < 0 || b.MaxWidth < 0 || b.MaxSmall < 0 ||
			b.MaxBatch < 0 || b.MaxLarge < 0 || b.MaxK < 0 {
			return nil, fmt.Errorf("%s: group %q: max_rows %d, max_width %d, max_elements %v, max_batch %d, max_small %d, max_large %d, max_k %d: want counts ≥ 0",
				name, g, b.MaxRows, b.MaxWidth, b.MaxElements, b.MaxBatch, b.MaxSmall, b.MaxLarge, b.MaxK)
		}
		if !finite(b.Base) || !finite(b.Shrinkage) {
			return nil, fmt.Errorf("%s: group %q: base or shrinkage not finite", name, g)
		}
		for i, t := range b.Trees {
			if err := checkTree(t, want, 0); err != nil {
				return nil, fmt.Errorf("%s: group %q: tree %d: %w", name, g, i, err)
			}
		}
	}
	return &m, nil
}

func opOfGroup(g string) string {
	if g == "elementwise" {
		return "add"
	}
	return g
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func checkTree(t *predictor.TreeNode, features, depth int) error {
	if t == nil {
		return errors.New("missing node")
	}
	if depth > 64 {
		return errors.New("deeper than 64")
	}
	if !finite(t.Value) || !finite(t.Threshold) {
		return errors.New("value not finite")
	}
	if (t.Left == nil) != (t.Right == nil) {
		return errors.New("a node with one child")
	}
	if t.Left == nil {
		return nil
	}
	if t.Feature < 0 || t.Feature >= features {
		return fmt.Errorf("feature %d of %d", t.Feature, features)
	}
	if err := checkTree(t.Left, features, depth+1); err != nil {
		return err
	}
	return checkTree(t.Right, features, depth+1)
}

// FamilyScore is the error of predictions of one op family: over all its
// measurements, and over those at least KernelBound floors long, whose
// time is the GPU's rather than the host's.
type FamilyScore struct {
	Family               string // an op family; "elementwise" for the eleven elementwise ops
	N, KernelN           int
	MAPE, KernelMAPE     float64 // mean |predicted − measured| / measured, %
	Within, KernelWithin float64 // share within ±10%, %
}

// KernelBound is how many measurement floors long a measurement is at least
// for FamilyScores to count it as kernel-bound.
const KernelBound = 3

// measuredKernel is the kernel's own time in the measurement: the
// measurement less the host's part ([Measured]).
func (s *Sample) measuredKernel() float64 { return s.Seconds - s.Floor + s.Overlap }

// kernel is the sample's own kernel time as the model learns it: its
// measuredKernel divided by its Scale.
func (s *Sample) kernel() float64 {
	t := s.measuredKernel()
	if s.Scale > 0 {
		t /= s.Scale
	}
	return t
}

// kernelBound says whether the measurement is at least KernelBound floors
// long: the kernel's time, not the host's, sets it.
func (s *Sample) kernelBound() bool { return s.Seconds >= KernelBound*s.Floor }

// FamilyScores scores predictions pred of samples per op family, sorted by
// family.
func FamilyScores(samples []Sample, pred []float64) []FamilyScore {
	m := map[string]*FamilyScore{}
	var fams []string
	for i := range samples {
		s := &samples[i]
		f := Group(s.Kernel.Op)
		a := m[f]
		if a == nil {
			a = &FamilyScore{Family: f}
			m[f] = a
			fams = append(fams, f)
		}
		e := math.Abs(pred[i]-s.Seconds) / s.Seconds
		in := 0.0
		if e <= 0.1 {
			in = 1
		}
		a.N++
		a.MAPE += e
		a.Within += in
		if s.kernelBound() {
			a.KernelN++
			a.KernelMAPE += e
			a.KernelWithin += in
		}
	}
	slices.Sort(fams)
	out := make([]FamilyScore, 0, len(fams))
	pct := func(x float64, n int) float64 { return 100 * x / fl(max(n, 1)) }
	for _, f := range fams {
		a := *m[f]
		a.MAPE, a.Within = pct(a.MAPE, a.N), pct(a.Within, a.N)
		a.KernelMAPE, a.KernelWithin = pct(a.KernelMAPE, a.KernelN), pct(a.KernelWithin, a.KernelN)
		out = append(out, a)
	}
	return out
}

// GPUBias is how far off one GPU's kernel-bound measurements of one op
// family are predicted: the median of predicted / measured over those of at
// least KernelBound floors. Above 1, the GPU ran them faster than the
// model expected.
type GPUBias struct {
	GPU, Family string
	N           int
	Median      float64
}

// GPUBiases is each GPU's bias per op family (those with a kernel-bound
// measurement), sorted by GPU, then family.
func GPUBiases(samples []Sample, pred []float64) []GPUBias {
	ratios := map[[2]string][]float64{}
	for i := range samples {
		s := &samples[i]
		if s.kernelBound() {
			k := [2]string{s.GPU, Group(s.Kernel.Op)}
			ratios[k] = append(ratios[k], pred[i]/s.Seconds)
		}
	}
	keys := slices.SortedFunc(maps.Keys(ratios), func(a, b [2]string) int {
		return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1]))
	})
	out := make([]GPUBias, 0, len(keys))
	for _, k := range keys {
		r := ratios[k]
		slices.Sort(r)
		out = append(out, GPUBias{GPU: k[0], Family: k[1], N: len(r), Median: predictor.MedianOf(r)})
	}
	return out
}

// SheetShare is how much of its own spec sheet a GPU reached in its op
// measurements: the medians, over its large kernel-bound ones, of the
// kernel's time (the measurement less the host's part, see [Measured])
// against the sheet's bandwidth (elementwise ops of at least SheetShareL2s
// times its L2) and fp32 peak (products of at least SheetShareFLOPs,
// batched and linear apart). 0 where no measurement qualifies. No field of
// a sheet gives these: a model that reads only the sheet predicts a GPU it
// never saw at what the other GPUs reached.
type SheetShare struct {
	GPU                    string
	Bandwidth, BMM, Linear float64
	N                      [3]int // the measurements behind each
}

// The measurements SheetShares reads: elementwise ops moving at least
// SheetShareL2s × the GPU's L2, products of at least SheetShareFLOPs.
const (
	SheetShareL2s   = 4
	SheetShareFLOPs = 1 << 36
)

// The kinds of large measurement largeOf tells apart (SheetShare's
// columns).
const (
	largeNone = iota - 1
	largeElementwise
	largeBMM
	largeLinear
)

// largeOf is which of the large measurements SheetShares and LevelOf read
// the sample is on a GPU of spec s (largeNone for any other), and its
// kernel's own time: kernel-bound elementwise ops moving at least
// SheetShareL2s × the L2, products of at least SheetShareFLOPs.
func largeOf(x *Sample, s Spec) (kind int, kernel float64) {
	t := x.measuredKernel()
	if !x.kernelBound() || !(t > 0) {
		return largeNone, t
	}
	k := &x.Kernel
	switch g := Group(k.Op); {
	case g == "elementwise" && k.Bytes() >= SheetShareL2s*s.L2:
		return largeElementwise, t
	case g == neusight.BMM && k.FLOPs() >= SheetShareFLOPs:
		return largeBMM, t
	case g == neusight.Linear && k.FLOPs() >= SheetShareFLOPs:
		return largeLinear, t
	}
	return largeNone, t
}

// SheetShares is SheetShare of every GPU of samples with a sheet in specs
// and a measurement that qualifies, sorted by GPU.
func SheetShares(samples []Sample, specs map[string]Spec) []SheetShare {
	by := map[string]*[3][]float64{} // bandwidth, bmm, linear shares
	for i := range samples {
		x := &samples[i]
		spec, ok := specs[x.GPU]
		if !ok {
			continue
		}
		c, t := largeOf(x, spec)
		if c == largeNone {
			continue
		}
		share := x.Kernel.FLOPs() / t / spec.FP32
		if c == largeElementwise {
			share = x.Kernel.Bytes() / t / spec.Bandwidth
		}
		a := by[x.GPU]
		if a == nil {
			a = new([3][]float64)
			by[x.GPU] = a
		}
		a[c] = append(a[c], share)
	}
	out := make([]SheetShare, 0, len(by))
	for _, g := range slices.Sorted(maps.Keys(by)) {
		a := by[g]
		out = append(out, SheetShare{GPU: g, Bandwidth: medianOr0(a[0]), BMM: medianOr0(a[1]), Linear: medianOr0(a[2]),
			N: [3]int{len(a[0]), len(a[1]), len(a[2])}})
	}
	return out
}

// LevelRemoved is pred with each GPU's level taken out: every prediction of
// a GPU and op family divided by that GPU's median predicted / measured on
// the family (GPUBiases), so that what is left of the error is what the
// shapes miss, not how fast a GPU runs everything. A diagnostic, never a
// prediction: the medians come from the measurements being scored.
func LevelRemoved(samples []Sample, pred []float64) []float64 {
	median := map[[2]string]float64{}
	for _, b := range GPUBiases(samples, pred) {
		median[[2]string{b.GPU, b.Family}] = b.Median
	}
	out := make([]float64, len(pred))
	for i := range samples {
		out[i] = pred[i]
		if m := median[[2]string{samples[i].GPU, Group(samples[i].Kernel.Op)}]; m > 0 {
			out[i] = pred[i] / m
		}
	}
	return out
}

// GPUsOf lists the GPUs the samples were measured on, sorted.
func GPUsOf(samples []Sample) []string {
	var out []string
	for i := range samples {
		if !slices.Contains(out, samples[i].GPU) {
			out = append(out, samples[i].GPU)
		}
	}
	slices.Sort(out)
	return out
}

// LeaveOneGPUOut predicts every sample of d with a model trained on the
// other GPUs' samples, calibrated by their labels ([Data.Train]), and
// returns the predictions in sample order. progress, when not nil, hears
// of each GPU as its model is trained.
func (d *Data) LeaveOneGPUOut(p Params, progress func(gpu string)) ([]float64, error) {
	return d.leaveOut(d.Samples, d.Specs, p, progress)
}

// leaveOut predicts each of samples, of GPUs the training data has ops
// of, on its GPU's sheet in specs with the model trained without that GPU.
func (d *Data) leaveOut(samples []Sample, specs map[string]Spec, p Params, progress func(gpu string)) ([]float64, error) {
	pred := make([]float64, len(samples))
	for _, g := range GPUsOf(samples) {
		if progress != nil {
			progress(g)
		}
		m, err := d.Train([]string{g}, p)
		if err != nil {
			return nil, err
		}
		for i := range samples {
			if samples[i].GPU == g {
				pred[i] = m.Predict(specs[g], &samples[i].Kernel)
			}
		}
	}
	return pred, nil
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
