package gpu

import (
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/wb-sim/wb/datasets/neusight"
	"github.com/wb-sim/wb/dnn"
)

// LabelPrediction is one label's measured and predicted iteration.
type LabelPrediction struct {
	Label     neusight.Label
	Predicted float64 // ms
	Forward   float64 // ms
	Backward  float64 // ms
	Kernels   int
	// Held says how the GPU was kept out of the model that predicted it:
	// [LeaveOneGPUOut] (its ops were in the data, and a model trained
	// without them predicted it; ", chip of GPU" follows where that model
	// learned another GPU of its chip) or "unseen" (no ops of it anywhere;
	// also ", chip of GPU"); after [ValidateLabelsInSample], "in sample"
	// for the first.
	Held string
	// Skipped gives the reason a label was not predicted ("" when it was).
	Skipped string
	// Link is the interconnect a multi-GPU label was predicted over.
	Link string
}

// LeaveOneGPUOut is [LabelPrediction.Held] of a GPU whose ops were in the
// data, predicted by a model trained without them.
const LeaveOneGPUOut = "leave-one-gpu-out"

// IsLeftOut says whether held is [LeaveOneGPUOut]'s (with or without a
// chip named after it).
func IsLeftOut(held string) bool { return strings.HasPrefix(held, LeaveOneGPUOut) }

// Error is the signed relative error, predicted / measured − 1.
func (p *LabelPrediction) Error() float64 { return p.Predicted/p.Label.E2E - 1 }

// Validation is the outcome of predicting every label of a folder.
type Validation struct {
	Labels []LabelPrediction
	// Notes are what the validation took on trust: a label's model config
	// taken from wb's bundled ones for want of the folder's own.
	Notes []string
	// Depths, after ValidateLabelsNested, is the tree depth chosen for
	// each GPU left out, with the inner scores it was chosen by.
	Depths []DepthChoice
}

// DepthChoice is the tree depth nested cross-validation chose for the
// model that leaves GPU out, and every candidate's inner score: the mean
// over the other GPUs, each left out in turn, of their op families' mean
// MAPE (see [ChooseDepth]).
type DepthChoice struct {
	GPU    string
	Depth  int
	Scores map[int]float64 // depth → inner score, %
}

// ChooseDepth chooses the boosted trees' depth among depths by
// leave-one-GPU-out cross-validation over the GPUs of samples not in
// exclude: for each such GPU, a model of each depth trained without it and
// without exclude, on the ops as measured (uncalibrated: no label reaches
// the choice, so that the depth a label's GPU is predicted at did not see
// the label's network, which calibrated models would have learned from
// on the other GPUs: a reviewer's find), predicts its ops as they were
// timed ([Model.Predict]),
// scored by the mean over op families of their MAPE (each family alike);
// the depth with the lowest mean over GPUs wins, the shallower on a tie.
// progress, when not nil, hears of each model trained.
func ChooseDepth(data *Data, exclude []string, p Params, depths []int, progress func(held string, depth int)) (DepthChoice, error) {
	samples, specs := data.Samples, data.Specs
	var inner []string
	for _, g := range GPUsOf(samples) {
		if !slices.Contains(exclude, g) {
			inner = append(inner, g)
		}
	}
	if len(depths) == 0 || len(inner) < 2 {
		return DepthChoice{}, fmt.Errorf("gpu: choosing a depth needs candidates and two GPUs to cross-validate over (%d depths, %d GPUs)", len(depths), len(inner))
	}
	c := DepthChoice{Scores: map[int]float64{}}
	for _, d := range depths {
		q := p
		q.Boost.Depth = d
		var sum float64
		for _, h := range inner {
			if progress != nil {
				progress(h, d)
			}
			m, err := data.trainMeasured(append(slices.Clone(exclude), h), q)
			if err != nil {
				return DepthChoice{}, err
			}
			var own []Sample
			var pred []float64
			for i := range samples {
				if samples[i].GPU == h {
					own = append(own, samples[i])
					pred = append(pred, m.Predict(specs[h], &samples[i].Kernel))
				}
			}
			var fam float64
			scores := FamilyScores(own, pred)
			for _, f := range scores {
				fam += f.MAPE
			}
			sum += fam / float64(len(scores))
		}
		c.Scores[d] = sum / float64(len(inner))
	}
	best := math.Inf(1)
	for _, d := range slices.Sorted(maps.Keys(c.Scores)) {
		if c.Scores[d] < best {
			best, c.Depth = c.Scores[d], d
		}
	}
	return c, nil
}

// NestedDepths are the tree depths `wb predict --validate neusight
// --nested` chooses among: the shipped model's 6, fixed before any score,
// and a shallower 3.
var NestedDepths = []int{3, 6}

// ValidateLabelsNested is [ValidateLabels] with the trees' depth of each
// leave-one-GPU-out model chosen among depths by [ChooseDepth] over the
// other GPUs alone, so that no figure it reports looked at its own GPU.
// It trains (GPUs − 1) × len(depths) + 1 models per GPU with labels.
func ValidateLabelsNested(dir *neusight.Dir, models string, data *Data, full *Model, p Params, depths []int, progress func(string)) (*Validation, error) {
	var choices []DepthChoice
	v, err := validateLabels(dir, models, data, full, func(g string) (*Model, error) {
		c, err := ChooseDepth(data, []string{g}, p, depths, func(h string, d int) {
			if progress != nil {
				progress(fmt.Sprintf("%s, depth %d, inner fold without %s", g, d, h))
			}
		})
		if err != nil {
			return nil, err
		}
		c.GPU = g
		choices = append(choices, c)
		q := p
		q.Boost.Depth = c.Depth
		if progress != nil {
			progress(fmt.Sprintf("%s at depth %d", g, c.Depth))
		}
		return data.Train([]string{g}, q)
	})
	if err != nil {
		return nil, err
	}
	v.Depths = choices
	return v, nil
}

// ValidateLabels predicts every label of dir: on one GPU, eager or fused
// by torch.compile (Fuse), and a multi-GPU training label as Megatron-LM
// splits it (ParallelIterate). For a GPU whose ops are in samples it
// trains a model without that GPU; for any other GPU it uses full, the
// model trained on all of samples (data.Train(nil, full.Params)); either
// way with the label's network's labels left out of the calibration
// (Data.WithoutNetwork). progress, when not nil, hears of each model
// trained without a GPU.
//
// A label wb cannot predict is skipped with the reason, never an error that
// loses the others: an unknown name variant, a model with no config in
// dir/models nor among models (the bundled configs' folder, "" for none),
// a config wb does not know, a sequence longer than the model's positions,
// multi-GPU inference or torch.compile, a split that does not divide the
// model or the batch.
func ValidateLabels(dir *neusight.Dir, models string, data *Data, full *Model, p Params, progress func(string)) (*Validation, error) {
	return validateLabels(dir, models, data, full, func(g string) (*Model, error) {
		if progress != nil {
			progress(g)
		}
		return data.Train([]string{g}, p)
	})
}

// ValidateLabelsInSample predicts every label of dir as ValidateLabels
// does, but with full for every GPU, its calibration by every label (Held
// "in sample" for a training GPU; a GPU of no op measured is unseen still,
// "(network calibrated)"). Not a result: the model learned from these GPUs' ops
// and was calibrated by these labels; beside the held-out figures it
// separates what a spec sheet cannot give (each GPU's level of efficiency,
// the gap between the two) from what the lowering and the model's
// structure miss (the error left in sample).
func ValidateLabelsInSample(dir *neusight.Dir, models string, data *Data, full *Model) (*Validation, error) {
	v, err := validateLabelsAt(dir, models, data, full, func(string) (*Model, error) { return full, nil }, nil, &networkModels{inSample: true})
	if err != nil {
		return nil, err
	}
	for i := range v.Labels {
		switch h := v.Labels[i].Held; {
		case IsLeftOut(h):
			v.Labels[i].Held = "in sample"
		case h != "":
			// a GPU of no op measured: unseen still, but its network's
			// labels on the training GPUs calibrated the model
			v.Labels[i].Held = h + " (network calibrated)"
		}
	}
	return v, nil
}

// validateLabels is ValidateLabels with train giving the model that leaves
// a GPU out (called once per GPU with labels and ops).
func validateLabels(dir *neusight.Dir, models string, data *Data, full *Model, train func(gpu string) (*Model, error)) (*Validation, error) {
	return validateLabelsAt(dir, models, data, full, train, nil, &networkModels{})
}

// networkModels are the models that leave a label's network out of the
// calibration too (by GPU and network), and the uncalibrated ones their
// factors are measured with (by GPU): validations of one folder with the
// same GPU-out models share them.
type networkModels struct {
	byNetwork, uncalibrated map[string]*Model
	// inSample keeps every network in the calibration: model gives m
	inSample bool
}

// model is m, the model trained without GPU g, with network's labels left
// out of its calibration too ([Data.WithoutNetwork]), made once per GPU and
// network; an uncalibrated m is m.
func (nm *networkModels) model(data *Data, m *Model, g, network string) (*Model, error) {
	if m == nil || len(m.Calibration) == 0 || nm.inSample {
		return m, nil
	}
	if nm.byNetwork == nil {
		nm.byNetwork, nm.uncalibrated = map[string]*Model{}, map[string]*Model{}
	}
	key := g + "\x00" + network
	if out, ok := nm.byNetwork[key]; ok {
		return out, nil
	}
	exclude := leftOut(g)
	if !calibrates(data.Dir, m, exclude, network) {
		// no label of network calibrates m: m's calibration is already
		// without it (WithoutNetwork would give m, after training the
		// model it measures the factors with)
		nm.byNetwork[key] = m
		return m, nil
	}
	u := nm.uncalibrated[g]
	if u == nil {
		var err error
		if u, err = data.trainMeasured(exclude, m.Params); err != nil {
			return nil, err
		}
		nm.uncalibrated[g] = u
	}
	out, err := data.WithoutNetwork(m, exclude, network, u)
	if err != nil {
		return nil, err
	}
	nm.byNetwork[key] = out
	return out, nil
}

// leftOut is the GPUs a model that leaves out g is trained without: none
// for "" (the model trained on every GPU).
func leftOut(g string) []string {
	if g == "" {
		return nil
	}
	return []string{g}
}

// LeaveOut returns the models validation scores a GPU's label with: trained
// without the GPU ([Data.Train]; "": a GPU the data has no op of, trained on
// every GPU) and without the label's network's labels in the calibration,
// each made once.
func (d *Data) LeaveOut(p Params) func(gpu, network string) (*Model, error) {
	trained, nm := map[string]*Model{}, &networkModels{}
	return func(g, network string) (*Model, error) {
		if trained[g] == nil {
			m, err := d.Train(leftOut(g), p)
			if err != nil {
				return nil, err
			}
			trained[g] = m
		}
		return nm.model(d, trained[g], g, network)
	}
}

// validateLabelsAt is validateLabels with each label's spec passed through
// level (with the model that predicts it) where level is not nil.
func validateLabelsAt(dir *neusight.Dir, models string, data *Data, full *Model, train func(gpu string) (*Model, error),
	level func(gpu string, m *Model, s Spec) Spec, nm *networkModels) (*Validation, error) {
	trained := map[string]*Model{}
	seen := map[string]bool{}
	for i := range data.Samples {
		seen[data.Samples[i].GPU] = true
	}
	v := &Validation{}
	var bundledConfigs []string // models whose config the folder lacks
	defer func() {
		if len(bundledConfigs) > 0 {
			slices.Sort(bundledConfigs)
			v.Notes = append(v.Notes, fmt.Sprintf("%s: no models/<model>.json for %s: took wb's bundled configs (%s)", dir.Path, strings.Join(bundledConfigs, ", "), models))
		}
	}()
	configs := map[string]*dnn.HFConfig{}
	cfgErr := map[string]string{}
	for _, l := range dir.Labels {
		lp := LabelPrediction{Label: l}
		switch {
		case l.GPUs > 1 && l.Mode != neusight.Training:
			lp.Skipped = fmt.Sprintf("multi-GPU inference (%d GPUs): Megatron-LM's schedules are modelled for training", l.GPUs)
		case l.GPUs > 1 && l.Fused:
			lp.Skipped = fmt.Sprintf("multi-GPU (%d GPUs) with torch.compile: not modelled", l.GPUs)
		case l.Variant != "":
			lp.Skipped = "unknown variant " + l.Variant
		default:
			if _, ok := dir.Devices[l.GPU]; !ok {
				lp.Skipped = "no spec sheet devices/" + l.GPU + ".json"
				if why, bad := dir.BadDevices[l.GPU]; bad {
					lp.Skipped = "spec sheet not read: " + why
				}
			}
		}
		if lp.Skipped != "" {
			v.Labels = append(v.Labels, lp)
			continue
		}
		m := full
		// the GPU by its sheet's name: a training GPU's labels in a folder
		// named otherwise are still left out of the model that scores them
		g := dir.Sheet(l.GPU)
		if seen[l.GPU] {
			g = l.GPU // a training GPU's folder with a sheet of another name
		}
		lp.Held = "unseen"
		if sib := full.Sibling(SpecOf(dir.Devices[l.GPU])); sib != "" && !seen[g] {
			lp.Held = "unseen, chip of " + sib
		}
		if !seen[g] {
			// the model trained on every GPU, with the label's network
			// out of its calibration, as for a training GPU below
			var err error
			if m, err = nm.model(data, full, "", l.Model); err != nil {
				return nil, err
			}
		} else {
			lp.Held = LeaveOneGPUOut
			if trained[g] == nil {
				mm, err := train(g)
				if err != nil {
					return nil, err
				}
				trained[g] = mm
			}
			// a GPU of another's chip (the A100 80GB, held out for its
			// convolutions, beside the A100 40GB) says so
			if sib := trained[g].Sibling(SpecOf(dir.Devices[l.GPU])); sib != "" && sib != g {
				lp.Held += ", chip of " + sib
			}
			// and the label's network out of the calibration: no label of
			// it, on any GPU, reaches the model that scores it
			var err error
			if m, err = nm.model(data, trained[g], g, l.Model); err != nil {
				return nil, err
			}
		}
		cfg, ok := configs[l.Model]
		if !ok {
			path := dir.ModelPath(l.Model)
			own := true
			if _, err := os.Stat(path); err != nil && models != "" {
				path, own = filepath.Join(models, l.Model+".json"), false
			}
			c, err := dnn.ReadHFConfig(path)
			if err != nil {
				c = nil
				cfgErr[l.Model] = err.Error()
				if !own && errors.Is(err, fs.ErrNotExist) {
					cfgErr[l.Model] = fmt.Sprintf("no models/%s.json in %s, nor among wb's bundled configs", l.Model, dir.Path)
				}
			} else if !own {
				bundledConfigs = append(bundledConfigs, l.Model)
			}
			configs[l.Model], cfg = c, c
		}
		if cfg == nil {
			lp.Skipped, lp.Held = "model config: "+cfgErr[l.Model], ""
			v.Labels = append(v.Labels, lp)
			continue
		}
		// a label of fewer (or more) layers than its config, as its
		// num_layer says (NeuSight's name the config's), times that many
		if l.Layers > 0 && l.Layers != cfg.Layers+cfg.EncLayers {
			if cfg.EncLayers > 0 {
				lp.Skipped, lp.Held = fmt.Sprintf("num_layer %d of an encoder-decoder of %d + %d layers: which stack it cuts is not said", l.Layers, cfg.EncLayers, cfg.Layers), ""
				v.Labels = append(v.Labels, lp)
				continue
			}
			v.Notes = append(v.Notes, fmt.Sprintf("%s/%s: %s %s at %d × %d: num_layer %d, where models/%s.json has %d: predicted with %d layers",
				cmp.Or(l.Folder, "labels"), l.GPU, l.Model, l.Mode, l.Seq, l.Batch, l.Layers, l.Model, cfg.Layers, l.Layers))
			cut := *cfg
			cut.Layers = l.Layers
			cfg = &cut
		}
		spec := SpecOf(dir.Devices[l.GPU])
		if level != nil {
			// a training GPU's ops are named by its sheet; a folder's own
			// ops, of a GPU the training data lacks, as its labels' folder
			name := l.GPU
			if seen[g] {
				name = g
			}
			spec = level(name, m, spec)
		}
		if l.GPUs > 1 {
			// NeuSight ran these through accelerate's Megatron-LM plugin
			// on one node (ParallelIterate)
			it, err := parallelLabel(m, spec, cfg, l)
			if err != nil {
				lp.Skipped, lp.Held = strings.TrimPrefix(err.Error(), "gpu: "), ""
			} else {
				lp.Predicted, lp.Kernels, lp.Link = it.Total*1e3, it.Kernels, it.Link
				for _, st := range it.Stages {
					lp.Forward += 1e3 * st.Forward * float64(it.Parallel.MicroBatches)
					lp.Backward += 1e3 * st.Backward * float64(it.Parallel.MicroBatches)
				}
			}
			v.Labels = append(v.Labels, lp)
			continue
		}
		prog, err := Lower(cfg, l.Seq, l.Batch, l.Mode == neusight.Training)
		if err != nil {
			lp.Skipped, lp.Held = strings.TrimPrefix(err.Error(), "gpu: "), ""
			v.Labels = append(v.Labels, lp)
			continue
		}
		if l.Fused {
			prog = Fuse(prog)
		}
		it := m.Iteration(spec, prog, l.Mode == neusight.Training)
		lp.Predicted, lp.Forward, lp.Backward, lp.Kernels = it.Total()*1e3, it.Forward*1e3, it.Backward*1e3, it.Kernels
		v.Labels = append(v.Labels, lp)
	}
	return v, nil
}

// parallelLabel predicts a multi-GPU label over the link of its GPU.
func parallelLabel(m *Model, spec Spec, cfg *dnn.HFConfig, l neusight.Label) (*ParallelIteration, error) {
	if l.GPUs > NodeGPUs {
		// the bus bandwidth between nodes is the cluster's, which no sheet
		// or label gives
		return nil, fmt.Errorf("%d GPUs span more than one node of %d: their link between nodes is not in the folder", l.GPUs, NodeGPUs)
	}
	link, err := LinkOf(spec, "", 0, l.GPUs)
	if err != nil {
		return nil, err
	}
	return m.ParallelIterate(spec, cfg, l.Seq, l.Batch, ParallelOf(l), link)
}

// GroupError is the error of the predicted labels of one GPU and mode,
// run eagerly or fused by torch.compile, on one GPU or split over several
// one way (Parallel: "dp4", "tp4", "pp4_1"; "" for one GPU).
type GroupError struct {
	GPU      string
	Mode     neusight.Mode
	Fused    bool
	Parallel string
	Held     string
	N        int
	MAE      float64 // mean |error|, %
	Max      float64 // largest |error|, %
	Bias     float64 // mean signed error, %
}

// Key names the group: its GPU, mode, fusion and split, in an order that
// sorts the groups by them.
func (g GroupError) Key() string {
	return fmt.Sprintf("%s\x00%s\x00%v\x00%s", g.GPU, g.Mode, g.Fused, g.Parallel)
}

// Groups summarises the predicted labels per GPU, mode and fusion, sorted.
func (v *Validation) Groups() []GroupError {
	m := map[string]*GroupError{}
	var keys []string
	for i := range v.Labels {
		p := &v.Labels[i]
		if p.Skipped != "" {
			continue
		}
		par := ""
		if p.Label.GPUs > 1 {
			par = ParallelOf(p.Label).String()
		}
		key := GroupError{GPU: p.Label.GPU, Mode: p.Label.Mode, Fused: p.Label.Fused, Parallel: par}
		k := key.Key()
		g := m[k]
		if g == nil {
			key.Held = p.Held
			g = &key
			m[k] = g
			keys = append(keys, k)
		}
		e := 100 * p.Error()
		g.N++
		g.MAE += math.Abs(e)
		g.Bias += e
		g.Max = max(g.Max, math.Abs(e))
	}
	slices.Sort(keys)
	out := make([]GroupError, 0, len(keys))
	for _, k := range keys {
		g := m[k]
		g.MAE /= float64(g.N)
		g.Bias /= float64(g.N)
		out = append(out, *g)
	}
	return out
}

// WriteCSV writes one row per label: gpu, model, mode, seq, batch,
// measured and predicted ms, the error, whether torch.compile fused it,
// how the GPU was held out, and why a label was skipped.
func (v *Validation) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"gpu", "model", "mode", "seq", "batch", "measured_ms", "predicted_ms", "forward_ms", "backward_ms", "error_pct", "kernels", "fused", "held", "skipped", "parallel", "link"})
	f := func(x float64, prec int) string { return strconv.FormatFloat(x, 'f', prec, 64) }
	for _, p := range v.Labels {
		l := p.Label
		row := []string{l.GPU, l.Model, string(l.Mode), strconv.Itoa(l.Seq), strconv.Itoa(l.Batch), f(l.E2E, 4)}
		fused := strconv.FormatBool(l.Fused)
		if p.Skipped != "" {
			row = append(row, "", "", "", "", "", fused, "", p.Skipped)
		} else {
			row = append(row, f(p.Predicted, 4), f(p.Forward, 4), f(p.Backward, 4), f(100*p.Error(), 2), strconv.Itoa(p.Kernels), fused, p.Held, "")
		}
		par := ""
		if l.GPUs > 1 {
			par = ParallelOf(l).String()
		}
		row = append(row, par, p.Link)
		_ = cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// LeaveOneOut is how far wb's whole iterations were from NeuSight's
// measured ones on each GPU of the bundled data with that GPU left out of
// training, and the label's network out of the calibration: mean |error|
// over the GPU's single-GPU labels, % (wb predict --validate neusight;
// TestValidateLabels holds these figures to the bundled data). The
// model's structure was chosen with these GPUs' held-out figures in view
// (docs/prediction.md), so they are what a GPU wb has never measured can expect only
// in so far as those choices carry over.
var LeaveOneOut = []GroupError{
	{GPU: "NVIDIA_A100-PCIE-40GB", Mode: neusight.Inference, MAE: 5.6, Max: 12.3},
	{GPU: "NVIDIA_A100-PCIE-40GB", Mode: neusight.Inference, Fused: true, MAE: 1.8, Max: 4.2},
	{GPU: "Tesla_P100-PCIE-16GB", Mode: neusight.Inference, MAE: 13.8, Max: 17.3},
	{GPU: "Tesla_P4", Mode: neusight.Inference, MAE: 12.9, Max: 19.0},
	{GPU: "Tesla_T4", Mode: neusight.Inference, MAE: 12.9, Max: 20.1},
	{GPU: "Tesla_V100-PCIE-32GB", Mode: neusight.Inference, MAE: 22.7, Max: 34.1},
	{GPU: "Tesla_V100-PCIE-32GB", Mode: neusight.Training, MAE: 21.2, Max: 23.8},
}

// LeaveOneOutRange is, over the groups of [LeaveOneOut] in mode run
// eagerly (as a model is predicted from its config, without
// torch.compile), the smallest and largest mean |error|, the largest
// single label's, and the number of groups (0: none, the rest 0).
func LeaveOneOutRange(mode neusight.Mode) (lo, hi, worst float64, n int) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, g := range LeaveOneOut {
		if g.Mode != mode || g.Fused || g.Parallel != "" {
			continue
		}
		lo, hi, worst = min(lo, g.MAE), max(hi, g.MAE), max(worst, g.Max)
		n++
	}
	if n == 0 {
		return 0, 0, 0, 0
	}
	return lo, hi, worst, n
}

// Unseen is how far the shipped model's whole iterations were from those
// measured on GPUs no model of wb was trained on, predicted from their spec
// sheets: mean and largest |error| over the GPU's labels, % (wb predict
// --validate neusight datasets/data/h200; TestValidateH200 holds these
// figures to the data). The H200 is of an architecture (Hopper) none of the
// training GPUs is.
var Unseen = []GroupError{
	{GPU: "NVIDIA_H200", Mode: neusight.Inference, Held: "unseen", N: 10, MAE: 6.5, Max: 9.8},
	{GPU: "NVIDIA_H200", Mode: neusight.Training, Held: "unseen", N: 7, MAE: 3.1, Max: 5.2},
}

// GPULevel is the level one GPU's labels were predicted at (see
// [ValidateLabelsLeveled]) and the measurements it was read from.
type GPULevel struct {
	GPU   string
	Level Level
	N     [2]int // batched products, adds
}

// Leveled is the labels predicted at each GPU's probed level: both parts
// of it, and each alone (the other left at the sheet's), beside the same
// models' predictions from the sheet alone.
type Leveled struct {
	Sheet, Both, Products, Bandwidth *Validation
	Levels                           []GPULevel // sorted by GPU
}

// ValidateLabelsLeveled is [ValidateLabels] with each GPU's level measured
// as its probes would measure it: read off the GPU's own large adds and
// batched products ([Model.LevelOf]) by the model that predicts its labels
// (the one trained without it, or the full model for a GPU of the folder
// that the training data lacks, from the folder's ops), so that the labels
// are predicted from the sheet and two numbers measured on the GPU, never
// its labels. A GPU with no such measurement is predicted from its sheet
// alone. Each model is trained once for the four validations.
func ValidateLabelsLeveled(dir *neusight.Dir, models string, data *Data, full *Model, p Params, progress func(string)) (*Leveled, error) {
	unseen, _, _, err := UnseenOps(dir, data, nil)
	if err != nil {
		return nil, err
	}
	trained := map[string]*Model{}
	train := func(g string) (*Model, error) {
		if m, ok := trained[g]; ok {
			return m, nil
		}
		if progress != nil {
			progress(g)
		}
		m, err := data.Train([]string{g}, p)
		trained[g] = m
		return m, err
	}
	levels := map[string]GPULevel{}
	at := func(part func(Level) Level) func(g string, m *Model, s Spec) Spec {
		return func(g string, m *Model, s Spec) Spec {
			lv, ok := levels[g]
			if !ok {
				samples := data.Samples
				if !slices.Contains(data.GPUs(), g) {
					samples = unseen
				}
				lv.GPU = g
				lv.Level, lv.N = m.LevelOf(samples, g, s)
				levels[g] = lv
			}
			s.Level = part(lv.Level)
			return s
		}
	}
	out, nm := &Leveled{}, &networkModels{}
	for _, r := range []struct {
		v    **Validation
		part func(Level) Level
	}{
		{&out.Sheet, func(Level) Level { return Level{} }},
		{&out.Both, func(l Level) Level { return l }},
		{&out.Products, func(l Level) Level { return Level{Products: l.Products} }},
		{&out.Bandwidth, func(l Level) Level { return Level{Bandwidth: l.Bandwidth} }},
	} {
		if *r.v, err = validateLabelsAt(dir, models, data, full, train, at(r.part), nm); err != nil {
			return nil, err
		}
	}
	for _, g := range slices.Sorted(maps.Keys(levels)) {
		out.Levels = append(out.Levels, levels[g])
	}
	return out, nil
}

// FolderOps are a folder's op measurements, read once: unseen those of
// GPUs the training data has none of, trained those of GPUs it has ops of
// (an A100 80GB's linear layers beside its bundled convolutions, say).
// Their floors and overlaps, which say which measurements are
// kernel-bound, are the folder's own ([LoadOps]). A file that cannot be
// read, or of a GPU without a spec sheet, is left out, and skipped says
// why.
func FolderOps(dir *neusight.Dir, data *Data) (unseen, trained []Sample, skipped []string, err error) {
	all, err := loadOps(dir, func(why string) { skipped = append(skipped, why) })
	if err != nil {
		return nil, nil, nil, err
	}
	gpus := data.GPUs()
	for _, s := range all {
		if slices.Contains(gpus, s.GPU) {
			trained = append(trained, s)
		} else {
			unseen = append(unseen, s)
		}
	}
	return unseen, trained, skipped, nil
}

// UnseenOps are FolderOps' unseen samples, each predicted by m as an op
// timed alone ([Model.Predict]: the kernel from the GPU's spec sheet, the
// floor and overlap of the training GPUs' hosts, nothing of the folder's);
// with m nil, the samples alone.
func UnseenOps(dir *neusight.Dir, data *Data, m *Model) (samples []Sample, pred []float64, skipped []string, err error) {
	samples, _, skipped, err = FolderOps(dir, data)
	if err != nil || m == nil {
		return samples, nil, skipped, err
	}
	return samples, PredictOps(dir, m, samples), skipped, nil
}

// PredictOps predicts each of a folder's op measurements as an op timed
// alone by m, on its GPU's sheet in the folder.
func PredictOps(dir *neusight.Dir, m *Model, samples []Sample) []float64 {
	pred := make([]float64, len(samples))
	for i := range samples {
		pred[i] = m.Predict(SpecOf(dir.Devices[samples[i].GPU]), &samples[i].Kernel)
	}
	return pred
}

// LeftOutOps predicts FolderOps' trained samples, each as an op timed
// alone by the model trained without its GPU ([Data.Train] leaving it
// out, with p), as its labels are.
func LeftOutOps(dir *neusight.Dir, data *Data, trained []Sample, p Params) ([]float64, error) {
	specs := map[string]Spec{}
	for _, g := range GPUsOf(trained) {
		specs[g] = SpecOf(dir.Devices[g])
	}
	return data.leaveOut(trained, specs, p, nil)
}
