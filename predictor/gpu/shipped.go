package gpu

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/wb-sim/wb/datasets/neusight"
	"github.com/wb-sim/wb/predictor"
)

// ShippedFile is the shipped model's path in the repository, which
// `wb train-gpu` writes.
const ShippedFile = "predictor/gpu/model.json.gz"

//go:embed model.json.gz
var shipped []byte

// Shipped is the model wb ships: trained with [DefaultParams] on every op
// of the bundled NeuSight data.
func Shipped() (*Model, error) {
	zr, err := gzip.NewReader(bytes.NewReader(shipped))
	if err != nil {
		return nil, fmt.Errorf("gpu: shipped model: %w", err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("gpu: shipped model: %w", err)
	}
	return Unmarshal(b, ShippedFile)
}

// ShippedMemo is the shipped model decoded once per process, as a layer
// model that remembers each layer pass it timed ([Memo]: the same times,
// to the bit): the scheduler's "model" estimate, a plan's predicted
// throughputs and the Gavel check's GPUs without a held-out chip all
// time the same layers with it.
var ShippedMemo = sync.OnceValues(func() (predictor.LayerModel, error) {
	m, err := Shipped()
	if err != nil {
		return nil, err
	}
	return Memo(m), nil
})

// ShippedScales is [DeviceScalesFor] the shipped model, once per process.
var ShippedScales = sync.OnceValues(func() (map[string]float64, error) {
	m, err := Shipped()
	if err != nil {
		return nil, err
	}
	return DeviceScalesFor(m), nil
})

// HostOverhead and DeviceScales are what the shipped model needs, beside
// the layers it times, to predict a PyTorch training iteration on the GPUs
// Gavel measured (predictor.Options.KernelOverhead and DeviceScale; the
// scheduler's "model" estimate and a plan's predicted throughputs use
// them): the host's cost per operator, and how much slower than the model
// says a GPU runs its kernels, by device-table name (absent: 1). They are
// fitted to Gavel's measured iterations of the job families wb can see
// (`wb predict --validate gavel --gpu-model`, which scores them leaving
// each family out), each GPU's layers timed there by the op model trained
// without that GPU's chip (for the K80, whose chip was never measured,
// that is this model), with a GPU scaled only where nested cross-validation
// finds that scaling it predicts a left-out family better: the K80, whose
// Kepler chip (192 lanes per SM, clocks between 562 and 875 MHz on a board
// of two sharing 300 W) no op measurement covers, and the V100, which
// streams at more of its sheet than the GPUs it is predicted from (see
// SheetShares). A test holds these figures to the fit.
const HostOverhead = 53e-6

// DeviceScales: see [HostOverhead]. Steps of the fit's grid: the K80 1.83,
// the V100 0.92. They stand for a GPU's level that an op model trained
// without its chip misses: a model that learned the chip carries its level
// in the chip's residual, and takes no scale ([DeviceScalesFor]).
var DeviceScales = map[string]float64{"k80": math.Exp2(7.0 / 8), "v100": math.Exp2(-1.0 / 8)}

// DeviceScalesFor is [DeviceScales] less the GPUs whose chip m learned (the
// die of one of its training GPUs, at any clock: the V100 SXM2 beside the
// V100 PCIe), which m's residual for that chip times: scaled too, the
// V100's speed would count twice.
func DeviceScalesFor(m *Model) map[string]float64 {
	out := make(map[string]float64, len(DeviceScales))
	for name, v := range DeviceScales {
		if d, err := predictor.LookupDevice(name); err == nil {
			if s, err := SpecOfDevice(d); err == nil && m.Sibling(s) != "" {
				continue
			}
		}
		out[name] = v
	}
	return out
}

// Compress gzips a model's JSON with no name or time in the header, so that
// the same model gives the same bytes.
func Compress(js []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(js); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Data is the training data: the op samples and every spec sheet of a
// folder. Its fields are not changed once loaded: the models trained on
// it are kept ([Data.Train]), each made once however often it is asked
// for.
type Data struct {
	Dir     *neusight.Dir
	Samples []Sample
	Specs   map[string]Spec

	mu      sync.Mutex
	trained map[trainKey]*trainedModel
}

// trainKey names a model trained on a Data: the GPUs left out (sorted,
// joined), its settings, and whether it is calibrated.
type trainKey struct {
	exclude    string
	p          Params
	calibrated bool
}

// trainedModel is one model of a Data, trained once.
type trainedModel struct {
	once sync.Once
	m    *Model
	err  error
}

// memo returns the model of key k, training it with train the first time
// it is asked for (concurrent callers wait for that one training).
// Training is deterministic and a Model is never changed once made, so
// every caller may share it.
func (d *Data) memo(exclude []string, p Params, calibrated bool, train func() (*Model, error)) (*Model, error) {
	k := trainKey{strings.Join(slices.Sorted(slices.Values(exclude)), "\x00"), p, calibrated}
	d.mu.Lock()
	if d.trained == nil {
		d.trained = map[trainKey]*trainedModel{}
	}
	t := d.trained[k]
	if t == nil {
		t = &trainedModel{}
		d.trained[k] = t
	}
	d.mu.Unlock()
	t.once.Do(func() { t.m, t.err = train() })
	return t.m, t.err
}

// trainMeasured is [Train] on d's samples as measured (uncalibrated),
// made once per exclude set and settings.
func (d *Data) trainMeasured(exclude []string, p Params) (*Model, error) {
	return d.memo(exclude, p, false, func() (*Model, error) { return Train(d.Samples, d.Specs, exclude, p) })
}

// LoadData reads a folder's ops and spec sheets.
func LoadData(path string) (*Data, error) {
	d, err := neusight.ReadDir(path)
	if err != nil {
		return nil, err
	}
	if len(d.Devices) == 0 {
		// (ReadDir takes a folder of labels alone, for a validation's
		// sheets from elsewhere; training needs the ops' GPUs' sheets)
		return nil, fmt.Errorf("%s: no spec sheets (devices/*.json): training needs each measured GPU's sheet; want the layout ops/<op>/<GPU>.csv.gz, devices/<GPU>.json", path)
	}
	s, err := LoadOps(d)
	if err != nil {
		return nil, err
	}
	specs := map[string]Spec{}
	for k, v := range d.Devices {
		specs[k] = SpecOf(v)
	}
	return &Data{Dir: d, Samples: s, Specs: specs}, nil
}

// LoadBundled reads the bundled data (datasets/data/neusight), once per
// folder and process: every call returns the same Data, so that the models
// trained on it (Train, the leave-one-GPU-out folds of validation) are
// trained once however many callers ask. Callers must not change it.
func LoadBundled() (*Data, error) {
	p, err := neusight.Bundled()
	if err != nil {
		return nil, err
	}
	v, _ := bundledLoads.LoadOrStore(p, &bundledLoad{})
	l := v.(*bundledLoad)
	l.once.Do(func() { l.d, l.err = LoadData(p) })
	return l.d, l.err
}

// bundledLoads holds LoadBundled's Data by folder.
var bundledLoads sync.Map

type bundledLoad struct {
	once sync.Once
	d    *Data
	err  error
}

// GPUs lists the GPUs with op samples, sorted.
func (d *Data) GPUs() []string { return GPUsOf(d.Samples) }

// HostTiming is how a GPU's host timed one op alone (see [Measured]): its
// ops' floors, the lowest and highest, and its overlap, seconds. Fitted
// tells whether the overlap is the GPU's own (it has elementwise ops)
// rather than the other GPUs' mean.
type HostTiming struct {
	GPU                string
	MinFloor, MaxFloor float64
	Overlap            float64
	Fitted             bool
}

// Hosts is each GPU's [HostTiming], by GPU.
func (d *Data) Hosts() []HostTiming {
	var out []HostTiming
	for _, g := range d.GPUs() {
		h := HostTiming{GPU: g, MinFloor: math.Inf(1)}
		for i := range d.Samples {
			if s := &d.Samples[i]; s.GPU == g {
				h.MinFloor, h.MaxFloor, h.Overlap = min(h.MinFloor, s.Floor), max(h.MaxFloor, s.Floor), s.Overlap
				h.Fitted = h.Fitted || neusight.IsElementwise(s.Kernel.Op)
			}
		}
		out = append(out, h)
	}
	return out
}

// SameDie lists the GPUs of d's samples whose chip is s's: the same SMs,
// fp32 lanes per SM and L2, whatever the board's clocks and memory (a P100
// PCIe beside an SXM2). A model scored on s honestly is trained without
// them.
func (d *Data) SameDie(s Spec) []string {
	var out []string
	for _, g := range d.GPUs() {
		if SameChip(d.Specs[g], s) {
			out = append(out, g)
		}
	}
	return out
}
