package gpu

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"slices"

	"github.com/wb-sim/wb/datasets/neusight"
	"github.com/wb-sim/wb/dnn"
)

// CalibratedGroups are the groups whose op measurements [Calibrate]
// rescales: the linear layers, whose sweeps ran slower than the labels'
// iterations on the low-power boards and most of the labels' time is
// spent in. The bmm sweeps did not: in the labels' own graphs the batched
// products ran as fast as the bmm sweeps predict them, or faster, on
// every GPU (0.57–1.15 of the uncalibrated model's time in sample, where
// the T4's and P4's linear layers took 1.04–2.31 of it).
var CalibratedGroups = []string{"linear"}

// MinCalibratedShare is the least share of a label's measured time that must
// be left for its calibrated kernels once the rest's predicted time is
// taken off, for the label to calibrate them: below it the label says
// little about them and much about the rest's error.
const MinCalibratedShare = 0.2

// Calibration is, per training GPU, how much slower its op measurements ran
// its linear layers than its whole iterations did: the geometric mean over
// its labels of predicted / measured time of those layers (see
// [CalibrationOf]). Above 1 the op sweeps ran slower than the labels'
// iterations.
//
// Why: NeuSight timed each GPU's ops in long sweeps and its whole models
// apart. On the low-power boards the linear sweeps ran slower than the
// iterations did. The Tesla T4 (70 W) ran the linear sweep's 1024–8192-wide
// products at 2.9–3.3 TFLOP/s, and the graph of its GPT-2 Large label timed
// the same shapes at 4.5–7.4 (8192×1280·1280 in 3.6 ms). The Tesla P4
// (75 W) ran the linear sweep ever slower the longer it went (2.1 TFLOP/s
// at 1–4 GFLOP, 0.84 past 1 TFLOP, while its bmm sweep held 3.0). Trained
// on such sweeps, the correction learns a throttled GPU's condition as if
// a spec sheet set it, and passes it to every GPU it predicts: left out,
// the V100 was predicted 27% slow. Scaling each training GPU's linear
// measurements to what its own labels show keeps the sweeps' shapes and
// takes the level from the conditions wb predicts (whole iterations).
// Calibrate rescales only the training GPUs' data; a held-out GPU's labels
// are never read. One factor a GPU is a simplification: per label it also
// takes in the model's size-dependent error (on the T4 it grows with the
// batch, as longer kernels ran slower in the sweeps).
type Calibration map[string]float64

// CalibrationOf measures each GPU's factor with m, a model trained on the
// uncalibrated samples: for every single-GPU, unfused label in labels of a
// GPU m was trained on (and not in exclude), the predicted time of its
// kernels of CalibratedGroups over the measured time less the rest's
// predicted time, where that leaves them at least MinCalibratedShare of
// it. GPUs without such a label get no factor.
func CalibrationOf(m *Model, specs map[string]Spec, labels *neusight.Dir, exclude []string) (Calibration, error) {
	return calibrationOf(m, specs, labels, exclude, "")
}

// calibrationOf is CalibrationOf with the labels of the network skip ("" for
// none) left out too.
func calibrationOf(m *Model, specs map[string]Spec, labels *neusight.Dir, exclude []string, skip string) (Calibration, error) {
	if labels == nil {
		return nil, nil
	}
	logs := map[string][]float64{}
	configs := map[string]*dnn.HFConfig{}
	for _, l := range labels.Labels {
		if !calibratesWith(l, m, exclude) || l.Model == skip {
			continue
		}
		s, ok := specs[l.GPU]
		if !ok {
			continue
		}
		cfg, seen := configs[l.Model]
		if !seen {
			// a label without a config calibrates nothing, as validation
			// skips it; a config that cannot be read is an error: it
			// would change the factors unnoticed
			c, err := dnn.ReadHFConfig(labels.ModelPath(l.Model))
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("gpu: calibrating %s with %s: %w", l.GPU, labelFile(l), err)
			}
			configs[l.Model], cfg = c, c
		}
		if cfg == nil {
			continue
		}
		train := l.Mode == neusight.Training
		p, err := Lower(cfg, l.Seq, l.Batch, train)
		if err != nil {
			continue // a sequence longer than the model's positions ...
		}
		lin, rest := m.calibratedTime(s, p, train)
		measured := l.E2E * 1e-3
		if !(lin > 0) || measured-rest < MinCalibratedShare*measured {
			continue
		}
		logs[l.GPU] = append(logs[l.GPU], math.Log(lin/(measured-rest)))
	}
	c := Calibration{}
	for g, ls := range logs {
		var sum float64
		for _, v := range ls {
			sum += v
		}
		c[g] = math.Exp(sum / fl(len(ls)))
	}
	return c, nil
}

// calibratedTime is an iteration of p on s split in two: the kernels of
// CalibratedGroups (the linear layers) and the rest, seconds.
func (m *Model) calibratedTime(s Spec, p *Program, train bool) (calibrated, rest float64) {
	for _, b := range p.Blocks {
		r := fl(b.Repeat)
		eachKernel(b.Kernels, train, func(k *Kernel, _ bool) {
			if t := r * m.Kernel(s, k); slices.Contains(CalibratedGroups, Group(k.Op)) {
				calibrated += t
			} else {
				rest += t
			}
		})
	}
	return calibrated, rest
}

// Calibrate returns a copy of samples with each calibrated GPU's
// measurements of CalibratedGroups scaled by its factor (Sample.Scale):
// the model learns their kernel time (the measurement less the host's
// part, see [Measured]) divided by it. The rows learned from and their
// draw stay those of the measurements. Training fits on the samples as
// Calibrate returns them without making the copy ([trainScaled]).
func Calibrate(samples []Sample, c Calibration) []Sample {
	out := slices.Clone(samples)
	for i := range out {
		s := &out[i]
		if f, ok := c[s.GPU]; ok && slices.Contains(CalibratedGroups, Group(s.Kernel.Op)) {
			s.Scale = f
		}
	}
	return out
}

// Train fits the model wb ships on d's op samples of every GPU but those in
// exclude, calibrated by d's labels ([Calibration]): a model on the
// samples as measured measures each training GPU's factor on its own
// labels, and the model is fitted again on the calibrated samples. The
// factors are kept in the model. Each model is trained once per exclude
// set and settings, and shared by every caller that asks for it again.
func (d *Data) Train(exclude []string, p Params) (*Model, error) {
	return d.memo(exclude, p, true, func() (*Model, error) { return d.train(exclude, p) })
}

// train is [Data.Train] without the memo.
func (d *Data) train(exclude []string, p Params) (*Model, error) {
	m0, err := d.trainMeasured(exclude, p)
	if err != nil {
		return nil, err
	}
	c, err := CalibrationOf(m0, d.Specs, d.Dir, exclude)
	if err != nil {
		return nil, err
	}
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("gpu: %w", err)
	}
	if len(c) == 0 {
		return m0, nil
	}
	m, err := trainScaled(d.Samples, c, nil, d.Specs, exclude, p) // Train(Calibrate(d.Samples, c), …), without the copy
	if err != nil {
		return nil, err
	}
	m.Calibration = c
	return m, nil
}

// calibratesWith reports whether label l may calibrate a model trained on
// m's GPUs without those of exclude: a single-GPU eager run of a GPU it
// learned from.
func calibratesWith(l neusight.Label, m *Model, exclude []string) bool {
	return l.GPUs <= 1 && !l.Fused && l.Variant == "" && !slices.Contains(exclude, l.GPU) && slices.Contains(m.TrainedOn, l.GPU)
}

// calibrates reports whether some label of network may calibrate m
// trained without the GPUs of exclude: where none does, leaving network
// out of the calibration leaves m as it is.
func calibrates(labels *neusight.Dir, m *Model, exclude []string, network string) bool {
	return labels != nil && slices.ContainsFunc(labels.Labels, func(l neusight.Label) bool {
		return l.Model == network && calibratesWith(l, m, exclude)
	})
}

// WithoutNetwork is m, trained by [Data.Train] without the GPUs of exclude,
// with its calibration measured again without the labels of network too,
// so that a label of network scored by it is of a network the model never
// read a label of, as well as of a GPU it never read anything of: the
// factors come from the training GPUs' other networks, and the linear
// group, the only one they scale (CalibratedGroups), is fitted again on
// them (the other groups' trees, on rows the factors do not touch, are
// m's). uncalibrated gives the model trained on the samples as measured
// without the GPUs of exclude, with m's settings (the model the factors
// are measured with). A network none of whose labels calibrates gives m.
func (d *Data) WithoutNetwork(m *Model, exclude []string, network string, uncalibrated *Model) (*Model, error) {
	c, err := calibrationOf(uncalibrated, d.Specs, d.Dir, exclude, network)
	if err != nil {
		return nil, err
	}
	if err := c.check(); err != nil {
		return nil, fmt.Errorf("gpu: %w", err)
	}
	if maps.Equal(c, m.Calibration) {
		return m, nil
	}
	// fitted on the calibrated groups' rows alone, calibrated (as
	// Train(Calibrate(rows, c), …) on a copy of those rows fits)
	part, err := trainScaled(d.Samples, c, CalibratedGroups, d.Specs, exclude, m.Params)
	if err != nil {
		return nil, err
	}
	out := *m
	out.Calibration = c
	out.Groups = maps.Clone(m.Groups)
	out.Chips = slices.Clone(m.Chips)
	for _, g := range CalibratedGroups {
		out.Groups[g] = part.Groups[g]
		for i := range out.Chips {
			out.Chips[i].Residual = maps.Clone(out.Chips[i].Residual)
			delete(out.Chips[i].Residual, g)
			for _, pc := range part.Chips {
				if r, ok := pc.Residual[g]; ok && pc.GPU == out.Chips[i].GPU {
					out.Chips[i].Residual[g] = r
				}
			}
		}
	}
	return &out, nil
}

// GPUs lists the calibrated GPUs, sorted.
func (c Calibration) GPUs() []string { return slices.Sorted(maps.Keys(c)) }

// check bounds the factors: finite, within ×/÷ 10.
func (c Calibration) check() error {
	for _, g := range c.GPUs() {
		if f := c[g]; !finite(f) || f < 0.1 || f > 10 {
			return fmt.Errorf("calibration of %q %v: want a factor in [0.1, 10]", g, f)
		}
	}
	if _, ok := c[""]; ok {
		return errors.New("calibration of an unnamed GPU")
	}
	return nil
}
