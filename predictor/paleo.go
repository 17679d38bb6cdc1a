package predictor

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"weak"

	"github.com/wb-sim/wb/dnn"
)

// Efficiency is the share of a device's peak the analytical model assumes
// a layer reaches: matrix work (GEMMs, convolutions) of the matrix peak,
// vector work of the vector peak, memory traffic of the bandwidth, and
// communication of the interconnect's bandwidth. Calibration (a learned
// correction, or a fit to measurements) replaces these defaults.
type Efficiency struct {
	Matrix  float64 `json:"matrix"`
	Vector  float64 `json:"vector"`
	Memory  float64 `json:"memory"`
	Network float64 `json:"network"`
}

// DefaultEfficiency is the efficiency assumed for a device kind ("gpu",
// "cpu") before any calibration: cuBLAS/cuDNN reach 60–80% of peak on the
// large GEMMs of training and much less on small ones, and about 80% of
// memory bandwidth on streaming kernels; NCCL's ring all-reduce reaches
// about 80% of link bandwidth on large messages.
func DefaultEfficiency(kind string) Efficiency {
	if kind == "cpu" {
		return Efficiency{Matrix: 0.5, Vector: 0.3, Memory: 0.6, Network: 0.5}
	}
	return Efficiency{Matrix: 0.6, Vector: 0.5, Memory: 0.8, Network: 0.8}
}

// Combine says how a layer's compute and memory times make its time.
type Combine string

// The ways to combine them.
const (
	// Roofline takes the larger of compute and memory time: a kernel
	// overlaps its loads with its arithmetic, so the slower of the two
	// bounds it. The default.
	Roofline Combine = "max"
	// Sum adds them, as Paleo (Qi et al., ICLR 2017) does.
	Sum Combine = "sum"
)

// Comm is a gradient-exchange scheme for data-parallel training.
type Comm string

// The schemes.
const (
	// Ring all-reduce (NCCL's): each GPU sends and receives 2(G−1)/G of
	// the gradients.
	Ring Comm = "ring"
	// Tree all-reduce: reduce then broadcast along a binary tree,
	// 2·⌈log2 G⌉ steps of the whole gradient.
	Tree Comm = "tree"
	// ParameterServer: every worker pushes its gradients to one server and
	// pulls the weights back, through the server's link.
	ParameterServer Comm = "ps"
)

// Options are one prediction's settings. Zero values are the defaults.
type Options struct {
	// Batch is the batch size per GPU (weak scaling) or in all
	// (StrongScaling). Required.
	Batch int
	// Precision of training; default fp32.
	Precision dnn.Precision
	// GPUs is the number of data-parallel devices; default 1.
	GPUs int
	// Interconnect between them: "nvlink", "pcie"; default the best the
	// device has.
	Interconnect string
	// Comm is the gradient exchange; default ring.
	Comm Comm
	// AllReduce, when positive, is the all-reduce's bus bandwidth in
	// bytes/s (what nccl-tests reports as busbw on the cluster): a ring
	// then takes 2(G−1)/G × the gradients / AllReduce, and the tree and
	// parameter-server formulas take it as their link's bandwidth, in
	// place of the interconnect's bandwidth × the network efficiency.
	AllReduce float64
	// StrongScaling splits Batch over the GPUs instead of giving each GPU
	// Batch samples; where it does not divide, the GPUs with ⌈Batch/GPUs⌉
	// samples set the step.
	StrongScaling bool
	// Combine of compute and memory time; default Roofline.
	Combine Combine
	// Efficiency overrides the device kind's default.
	Efficiency *Efficiency
	// KernelOverhead, when positive, overrides the device kind's time to
	// issue one kernel (DefaultKernelOverhead); negative turns it off.
	KernelOverhead float64
	// DeviceScale, when positive, multiplies every layer pass's device
	// time (learned or analytical; before the host floor, which stays as
	// it is): how much slower the GPU runs the kernels than the model of
	// them says, such as the scales predictor/gpu fits to Gavel's measured
	// iterations (gpu.DeviceScales). 0 is 1.
	DeviceScale float64
	// Corrector, when not nil, multiplies each layer pass's analytical
	// time (after the kernel-overhead floor) by its Factor: a learned
	// correction (*Learned). Nil leaves the times as they are.
	Corrector Corrector `json:"-"`
	// Impl, when not nil, names what a CPU library runs for a layer pass
	// (FeatureRow.Impl), for a Corrector whose features include it
	// (ImplCorrector); such a Corrector without Impl is an error.
	Impl ImplQuery `json:"-"`
	// Layers, when not nil, times the layer passes it covers on the
	// devices it covers (predictor/gpu's model, learned from measured
	// GPU ops), in place of the analytical compute and memory time; the
	// host's dispatch floor still applies. Others stay analytical. fp32
	// only.
	Layers LayerModel `json:"-"`
}

// LayerModel times one pass of a layer at a batch on a device, seconds:
// the kernels' own time, without the host's cost of dispatching them. ok
// false leaves the pass to the analytical model.
type LayerModel interface {
	LayerPass(d dnn.Desc, p dnn.Pass, batch int, dev *Device) (seconds float64, ok bool)
}

// Corrector gives the factor by which a layer pass's analytical time is
// multiplied, from the pass's features: its op, its work at the per-device
// batch, the device and the layer's shape.
type Corrector interface {
	Factor(r FeatureRow) float64
}

// ImplQuery names what the CPU backend would run for a pass of the layer
// described by d at the batch, as a profile's algo column does: for a
// convolution, oneDNN's implementations (profiler/onednn's Backend.Impl,
// which asks oneDNN without running anything); "" where wb picks the
// kernel itself.
type ImplQuery func(d dnn.Desc, batch int, pass dnn.Pass) (string, error)

// ImplCorrector is a Corrector that says whether its features include the
// implementation a library picks (FeatureRow.Impl): a prediction with it
// needs Options.Impl. *Learned is one.
type ImplCorrector interface {
	Corrector
	NeedsImpl() bool
}

// IterationCorrector is a Corrector that also knows what a whole
// iteration takes beyond its layer passes timed one by one: the passes'
// operands are cold in the iteration (another layer ran in between) and
// warm when one pass is timed again and again. IterationTraffic is that
// extra time per second of the corrected passes' bytes at the device's
// memory bandwidth (*Learned: its ColdTraffic); Predict adds it to the
// iteration as Prediction.Cold.
type IterationCorrector interface {
	Corrector
	IterationTraffic() float64
	// ColdBytes is what of a pass's bytes counts in that traffic on a
	// device whose last-level cache holds cache bytes (0: unknown).
	ColdBytes(bytes, cache float64) float64
}

// DefaultKernelOverhead is the host's time to dispatch one operator on a
// device kind: a layer pass never runs faster than its operators × this
// (plus LibraryLaunch per further kernel a library launches), because the
// host issues them one by one while the device runs them. On GPUs it is
// 53 µs, fitted to Gavel's measured iteration times of PyTorch 1.x
// training jobs on its K80, P100 PCIe and V100 hosts (GavelDevices), in
// the families wb can see (CycleGAN, LM, ResNet-18, ResNet-50,
// Transformer; wb predict --validate gavel scores it leaving each family
// out, and a test holds the fit to this figure). It is more than a bare launch (~5 µs) because an eager
// training step dispatches each operator through Python, the autograd
// engine and the allocator. On CPUs, where the operator runs on the issuing
// thread, there is no separate floor.
func DefaultKernelOverhead(kind string) float64 {
	if kind == "cpu" {
		return 0
	}
	return 53e-6
}

// LayerTime is one layer's predicted time in one training iteration.
type LayerTime struct {
	Name  string
	Op    string
	Time  [4]float64 // seconds, by dnn.Pass
	Total float64
	// MemoryBound is true when memory time exceeds compute time summed
	// over the layer's passes.
	MemoryBound bool
	// HostBound is true when the host's floor (dispatching the layer's
	// operators) sets more of the layer's time than the device does.
	HostBound bool
	FLOPs     dnn.Flops
	Bytes     dnn.Bytes
}

// Bound is what sets the layer's time: "host", "memory" or "compute".
func (l *LayerTime) Bound() string {
	switch {
	case l.HostBound:
		return "host"
	case l.MemoryBound:
		return "memory"
	}
	return "compute"
}

// Prediction is a training iteration's predicted time.
type Prediction struct {
	Model, Device string
	Options       Options
	Layers        []LayerTime
	// Times in seconds. Input is the host's time in the input pipeline
	// between steps: dispatching its operators
	// (dnn.Network.HostOpsPerSample × the samples per GPU × the host's
	// cost per operator) and its own work
	// (dnn.Network.HostSecondsPerSample × the samples per GPU), in
	// Iteration.
	// Cold is what a learned correction adds to the iteration beyond its
	// layer passes (IterationCorrector), in Iteration; 0 without one.
	Forward, Backward, Update, Communication, Input, Cold, Iteration float64
	// Compute, Memory and Host split the iteration's layer time by what
	// bounds each layer pass: the device's arithmetic, its memory, or the
	// host's floor of dispatching the pass's operators (when that is longer
	// than the device's time).
	Compute, Memory, Host float64
	// SamplesPerSecond over all GPUs.
	SamplesPerSecond float64
	// Untimed is the network's work that no figure here times
	// (dnn.Network.Untimed): where set, the iteration is a lower bound.
	Untimed string
	// GradientBytes is what each iteration exchanges per GPU.
	GradientBytes dnn.Bytes
	// KernelOverhead is the host's cost per operator the prediction used
	// (Options.KernelOverhead, or the device kind's default), seconds;
	// AllReduceBandwidth the all-reduce's bandwidth in bytes/s (0 on one
	// GPU) and Efficiency the efficiencies it applied.
	KernelOverhead, AllReduceBandwidth float64
	Efficiency                         Efficiency

	passes    []passCost // for Retime
	inputOps  float64    // the input pipeline's operators, for Retime
	inputHost float64    // the input pipeline's own host seconds, for Retime
	retimable bool       // made by PredictRetimable
	corrected bool       // a learned correction timed some pass
}

// compiled is a network's per-layer work as a function of the batch:
// every count is intercept + slope × batch (exact for dnn's layers, whose
// work is linear in the batch).
type compiled struct {
	name   string
	params int64
	layers []compiledLayer
}

type compiledLayer struct {
	name string
	op   dnn.Op
	pass [4]linWork
	// desc describes the layer, for a Corrector's shape features; hasDesc
	// is false for a layer that cannot describe itself.
	desc    dnn.Desc
	hasDesc bool
}

type linWork struct {
	flops0, flops1 float64 // intercept, slope
	bytes0, bytes1 float64
	matrix         bool
	kernels        int // kernels the pass launches (see kernelsOf)
	ops            int // framework operators that launch them (see opsOf)
}

// kernelsOf is the number of kernels a layer's pass launches in an eager
// framework (PyTorch with cuDNN and cuBLAS):
//   - forward: one per op, and a bias's own kernel after a convolution;
//     an LSTM, per layer, one product over all time steps for the inputs
//     and, per time step, a product for the recurrence and a fused
//     elementwise kernel (cuDNN's RNN steps one launch pair at a time);
//     dropout draws its mask and applies it (two);
//   - backward-data: one per op (a product's two inputs two; an addition's
//     gradient passes through, none); an LSTM per layer and step a product
//     and an elementwise kernel, and one more for the inputs;
//   - backward-weights: one product per weight, one reduction per bias; an
//     embedding zeroes and scatters its table (two); an LSTM two per layer;
//   - update: SGD with momentum without foreach (PyTorch 1.x, as Gavel ran
//     it) zeroes the gradient, scales the momentum, adds the gradient and
//     steps the weight: four kernels per parameter tensor.
func kernelsOf(l dnn.Layer, p dnn.Pass) int {
	ds, ok := l.(dnn.Describer)
	if !ok {
		if p == dnn.Update {
			return 8
		}
		return 1
	}
	d := ds.Describe()
	tensors := 1
	if d.Attr[dnn.AttrBias] == 1 {
		tensors = 2
	}
	switch d.Op {
	case dnn.OpLSTM:
		layers, steps := max(d.Attr[dnn.AttrLayers], 1), 1
		if len(d.In) > 0 && len(d.In[0]) > 0 {
			steps = d.In[0][0]
		}
		switch p {
		case dnn.Forward:
			return layers * (1 + 2*steps)
		case dnn.BackwardData:
			return layers * (1 + 2*steps)
		case dnn.BackwardWeights:
			return 2 * layers
		default:
			return 4 * 4 * layers // w_ih, w_hh, b_ih, b_hh
		}
	case dnn.OpConv2D:
		if p == dnn.Forward || p == dnn.BackwardWeights {
			return tensors
		}
	case dnn.OpLinear:
		if p == dnn.BackwardWeights {
			return tensors
		}
	case dnn.OpBatchNorm, dnn.OpLayerNorm, dnn.OpInstanceNorm:
		tensors = 2
	case dnn.OpEmbedding:
		if p == dnn.BackwardWeights {
			return 2
		}
	case dnn.OpMatMul:
		if p == dnn.BackwardData {
			return 2
		}
	case dnn.OpAdd:
		if p == dnn.BackwardData {
			return 0
		}
	case dnn.OpDropout:
		if p == dnn.Forward {
			return 2
		}
	}
	if p == dnn.Update {
		if d.Attr[dnn.AttrTied] == 1 {
			// the weight is another layer's, stepped there: its own
			// parameter is the bias, if any
			tensors = d.Attr[dnn.AttrBias]
		}
		return 4 * tensors
	}
	return 1
}

// LibraryLaunch is the host's cost of one kernel that a library launches
// from C++ inside an operator (cuDNN's RNN launches two per time step):
// the CUDA launch alone, about 5 µs, without the framework's dispatch.
const LibraryLaunch = 5e-6

// opsOf is the number of framework operators a layer's pass dispatches:
// one per kernel, except an LSTM, whose pass is one cuDNN operator however
// many kernels it launches, and a convolution with a bias, whose bias is
// added inside the convolution's operator (aten::_convolution adds it
// after cuDNN's kernel) and its gradient summed inside the backward's.
func opsOf(l dnn.Layer, p dnn.Pass) int {
	switch {
	case l.Op() == dnn.OpLSTM && p != dnn.Update:
		return min(kernelsOf(l, p), 1)
	case l.Op() == dnn.OpConv2D && (p == dnn.Forward || p == dnn.BackwardWeights):
		return min(kernelsOf(l, p), 1)
	}
	return kernelsOf(l, p)
}

var cache sync.Map // compileKey → *compiled

type compileKey struct {
	name string
	prec dnn.Precision
	fp   uint64
}

// fingerprint hashes what a network's compiled work depends on beside its
// name: its input's shape and, per node, its name, op, inputs, output
// shape, weights and layer key. Two networks of one name (a Hugging Face
// config at two sequence lengths, poolings of two windows) differ in it;
// the same network built again does not.
func fingerprint(n *dnn.Network) uint64 {
	wp := weak.Make(n)
	if v, ok := fingerprints.Load(wp); ok {
		return v.(uint64)
	}
	fp := fingerprintOf(n)
	if _, loaded := fingerprints.LoadOrStore(wp, fp); !loaded {
		runtime.AddCleanup(n, func(wp weak.Pointer[dnn.Network]) { fingerprints.Delete(wp) }, wp)
	}
	return fp
}

// fingerprints caches each network's fingerprint while it lives (a
// network's graph does not change once built): keyed by a weak pointer,
// the entry goes when the network does.
var fingerprints sync.Map // weak.Pointer[dnn.Network] → uint64

// fingerprintOf computes fingerprint: the nodes' names and layer keys
// (which carry every attribute: a pooling's window and stride, a table's
// kind) beside the shapes and weights.
func fingerprintOf(n *dnn.Network) uint64 {
	const prime = 1099511628211 // FNV-1a's, a word at a time
	h := uint64(14695981039346656037)
	word := func(v uint64) { h = (h ^ v) * prime }
	text := func(s string) {
		word(uint64(len(s)))
		for i := 0; i < len(s); i++ {
			word(uint64(s[i]))
		}
	}
	shape := func(s dnn.Shape) {
		word(uint64(len(s)))
		for _, d := range s {
			word(uint64(d))
		}
	}
	shape(n.Input)
	for i := range n.Nodes {
		node := &n.Nodes[i]
		for _, c := range []byte(node.Layer.Op()) {
			word(uint64(c))
		}
		word(uint64(len(node.Inputs)))
		for _, in := range node.Inputs {
			word(uint64(in))
		}
		shape(node.Layer.Out())
		word(uint64(node.Layer.Params()))
		text(node.Name)
		text(node.Layer.Key())
	}
	return h
}

func compile(n *dnn.Network, prec dnn.Precision) *compiled {
	key := compileKey{n.Name, prec, fingerprint(n)}
	if c, ok := cache.Load(key); ok {
		return c.(*compiled)
	}
	c := &compiled{name: n.Name, params: n.Params()}
	grads := n.DataGradients()
	for i, node := range n.Nodes {
		cl := compiledLayer{name: node.Name, op: node.Layer.Op()}
		if ds, ok := node.Layer.(dnn.Describer); ok {
			cl.desc, cl.hasDesc = ds.Describe(), true
		}
		// Frameworks compute no gradient for the network's input (images,
		// token ids), nor for what is computed from it alone: a layer
		// none of whose inputs needs a gradient skips backward-data.
		for _, p := range dnn.Passes {
			if p == dnn.BackwardData && !grads[i] {
				continue
			}
			w1, w2 := node.Layer.Work(1, p, prec), node.Layer.Work(2, p, prec)
			slope := float64(w2.FLOPs - w1.FLOPs)
			bslope := float64(w2.Bytes() - w1.Bytes())
			cl.pass[p] = linWork{
				flops0: float64(w1.FLOPs) - slope, flops1: slope,
				bytes0: float64(w1.Bytes()) - bslope, bytes1: bslope,
				matrix: w1.Matrix, kernels: kernelsOf(node.Layer, p), ops: opsOf(node.Layer, p),
			}
		}
		c.layers = append(c.layers, cl)
	}
	actual, _ := cache.LoadOrStore(key, c)
	return actual.(*compiled)
}

// Predict predicts one training iteration of network n on device d.
func Predict(n *dnn.Network, d *Device, o Options) (*Prediction, error) {
	return predict(n, d, o, false)
}

// PredictRetimable is Predict keeping each pass's device time and host
// floor, which Retime needs (and Predict does not keep: it costs half
// again the time of a prediction).
func PredictRetimable(n *dnn.Network, d *Device, o Options) (*Prediction, error) {
	return predict(n, d, o, true)
}

func predict(n *dnn.Network, d *Device, o Options, retimable bool) (*Prediction, error) {
	o, err := o.withDefaults(d)
	if err != nil {
		return nil, err
	}
	c := compile(n, o.Precision)
	eff := DefaultEfficiency(d.Kind)
	if o.Efficiency != nil {
		eff = *o.Efficiency
	}
	perGPU, samples := float64(o.PerGPU()), float64(o.Batch*o.GPUs)
	if o.StrongScaling {
		samples = float64(o.Batch)
	}
	pr := &Prediction{Model: n.Name, Device: d.Name, Options: o, Layers: make([]LayerTime, len(c.layers)), retimable: retimable, Untimed: n.Untimed}
	if retimable {
		pr.passes = make([]passCost, 0, len(dnn.Passes)*len(c.layers))
	}
	launch := DefaultKernelOverhead(d.Kind)
	if o.KernelOverhead != 0 {
		launch = max(o.KernelOverhead, 0)
	}
	pr.KernelOverhead, pr.Efficiency = launch, eff
	matrixPeak := d.Peak(Precision(o.Precision), true) * eff.Matrix
	vectorPeak := d.Peak(Precision(o.Precision), false) * eff.Vector
	bw := d.MemBandwidth * eff.Memory
	if matrixPeak <= 0 || vectorPeak <= 0 || bw <= 0 {
		return nil, fmt.Errorf("device %s has no peak or bandwidth for %s", d.Name, o.Precision)
	}
	// the whole samples per GPU that the layer model and the corrector see
	batch := max(1, int(math.Round(perGPU)))
	// oneDNN's kernels are a CPU's: a GPU's convolutions named none in
	// training either
	ic, needsImpl := o.Corrector.(ImplCorrector)
	needsImpl = needsImpl && ic.NeedsImpl() && d.Kind == KindCPU
	if needsImpl && o.Impl == nil {
		return nil, errors.New("predictor: the learned correction's features include the kernels oneDNN picks for each convolution (impl_*), and nothing asks oneDNN here: predict where wb's oneDNN backend loads (libdnnl), as wb predict --predictor does")
	}
	var corrBytes float64 // the corrected passes' bytes, for the cold traffic
	cold, _ := o.Corrector.(IterationCorrector)
	for i := range c.layers {
		cl := &c.layers[i]
		lt := &pr.Layers[i]
		lt.Name, lt.Op = cl.name, string(cl.op)
		var comp, mem, host float64
		for p := range cl.pass {
			w := &cl.pass[p]
			f := w.flops0 + w.flops1*perGPU
			b := w.bytes0 + w.bytes1*perGPU
			peak := vectorPeak
			if w.matrix {
				peak = matrixPeak
			}
			if f == 0 && b == 0 {
				continue // no kernel: a view, or a pass the layer has not
			}
			tc, tm := f/peak, b/bw
			var t float64
			if o.Combine == Sum {
				t = tc + tm
			} else {
				t = math.Max(tc, tm)
			}
			learned := false
			if o.Layers != nil && cl.hasDesc {
				if lp, ok := o.Layers.LayerPass(cl.desc, dnn.Pass(p), batch, d); ok {
					t, learned = lp, true
				}
			}
			if o.DeviceScale > 0 {
				t *= o.DeviceScale
			}
			// the host dispatches each operator (launch) and a library
			// launches the kernels beyond one per operator (cuDNN's RNN
			// steps) at LibraryLaunch each
			extra := LibraryLaunch * float64(max(w.kernels-w.ops, 0))
			if launch == 0 {
				extra = 0 // a device without a host floor (a CPU) launches nothing
			}
			ops := float64(w.ops)
			if n.Calls > 1 && dnn.Pass(p) != dnn.Update {
				// the step calls the network Calls times (dnn.Network.Calls)
				ops, extra = ops*float64(n.Calls), extra*float64(n.Calls)
			}
			corrected := o.Corrector != nil && !learned
			if corrected {
				pr.corrected = true
			} else if retimable {
				pr.passes = append(pr.passes, passCost{device: t, ops: ops, extra: extra})
			}
			floor := launch*ops + extra
			hostBound := floor > t
			t = math.Max(t, floor)
			if corrected {
				r := NewFeatureRow(string(cl.op), dnn.Pass(p), f, b, batch, o.Precision, d, w.matrix)
				if cl.hasDesc {
					r.Shape = ShapeOf(cl.desc, batch, dnn.Pass(p))
				}
				if needsImpl && cl.hasDesc {
					impl, err := o.Impl(cl.desc, batch, dnn.Pass(p))
					if err != nil {
						return nil, fmt.Errorf("predictor: layer %s %s: %w", cl.name, dnn.Pass(p), err)
					}
					r.Impl = impl
				}
				k := o.Corrector.Factor(r)
				if !(k > 0) || math.IsInf(k, 0) {
					return nil, fmt.Errorf("predictor: layer %s %s: the learned correction gives %v, not a positive factor (a damaged predictor file?)",
						cl.name, dnn.Pass(p), k)
				}
				t *= k
				if cold != nil {
					corrBytes += cold.ColdBytes(b, d.CacheBytes)
				}
			}
			lt.Time[p] = t
			lt.Total += t
			lt.FLOPs += dnn.Flops(f)
			lt.Bytes += dnn.Bytes(b)
			comp += tc
			mem += tm
			switch {
			case hostBound:
				pr.Host += t
				host += t
			case tm > tc:
				pr.Memory += t
			default:
				pr.Compute += t
			}
		}
		lt.MemoryBound = mem > comp
		lt.HostBound = host > lt.Total/2
		pr.Forward += lt.Time[dnn.Forward]
		pr.Backward += lt.Time[dnn.BackwardData] + lt.Time[dnn.BackwardWeights]
		pr.Update += lt.Time[dnn.Update]
	}
	if o.GPUs > 1 {
		grad := dnn.Bytes(c.params) * o.Precision.Size()
		pr.GradientBytes = grad
		bw := o.nodeAllReduce(d, o.GPUs, eff)
		pr.Communication = commTime(float64(grad), o.GPUs, bw, o.Comm)
		pr.AllReduceBandwidth = bw
	}
	pr.inputOps = float64(n.HostOpsPerSample) * perGPU
	pr.inputHost = n.HostSecondsPerSample * perGPU
	pr.Input = launch*pr.inputOps + pr.inputHost
	if cold != nil && corrBytes > 0 {
		pr.Cold = cold.IterationTraffic() * corrBytes / d.MemBandwidth
	}
	pr.Iteration = pr.Forward + pr.Backward + pr.Update + pr.Communication + pr.Input + pr.Cold
	pr.SamplesPerSecond = samples / pr.Iteration
	return pr, nil
}

// passCost is one layer pass of a prediction, for Retime: its device time
// (after DeviceScale) and its host floor's terms.
type passCost struct {
	device, ops, extra float64 // seconds; operators; library launches' seconds
}

// Retime is the iteration time the prediction would have with every pass's
// device time × scale (on top of its own DeviceScale) and launch seconds
// of host cost per operator (KernelOverhead; 0 turns the floor off): what
// Predict gives with those options, without predicting again, so that
// fitting the two constants to measurements is cheap. It is NaN for a
// prediction not made by PredictRetimable, and for one with a learned
// correction on analytical passes, whose factors depend on the floor.
func (p *Prediction) Retime(scale, launch float64) float64 {
	if !p.retimable || p.corrected {
		return math.NaN()
	}
	t := p.Communication + launch*p.inputOps + p.inputHost
	for _, c := range p.passes {
		floor := 0.0
		if launch > 0 { // no host floor at all, the library's launches included
			floor = launch*c.ops + c.extra
		}
		t += math.Max(c.device*scale, floor)
	}
	return t
}

// LinkLatency is the per-message latency of a collective step (NCCL's
// is a few microseconds per hop).
const LinkLatency = 5e-6

// CommTime is the time to exchange s bytes among g workers over links of
// bandwidth bw (bytes/s) by scheme: a ring all-reduce takes
// 2(g−1)/g · s / bw plus 2(g−1) steps' latency.
func CommTime(s float64, g int, bw float64, scheme Comm) float64 { return commTime(s, g, bw, scheme) }

// commTime is CommTime.
func commTime(s float64, g int, bw float64, scheme Comm) float64 {
	n := float64(g)
	switch scheme {
	case Tree:
		steps := math.Ceil(math.Log2(n))
		return 2 * steps * (s/bw + LinkLatency)
	case ParameterServer:
		// Push g gradients into the server, pull g copies of the weights.
		return 2*n*s/bw + 2*LinkLatency
	default:
		return 2*(n-1)/n*s/bw + 2*(n-1)*LinkLatency
	}
}

// NodeAllReduce is the bus bandwidth, bytes/s, at which a prediction with
// o times the all-reduce of gpus of d: o.AllReduce where given, else the
// link's bandwidth (o.Interconnect, or the best d has for that many) × the
// network efficiency (o.Efficiency's, else d's kind's default).
func (o Options) NodeAllReduce(d *Device, gpus int) float64 {
	eff := DefaultEfficiency(d.Kind)
	if o.Efficiency != nil {
		eff = *o.Efficiency
	}
	return o.nodeAllReduce(d, gpus, eff)
}

func (o Options) nodeAllReduce(d *Device, gpus int, eff Efficiency) float64 {
	if o.AllReduce > 0 {
		return o.AllReduce
	}
	return linkBandwidth(d, o.Interconnect, gpus) * eff.Network
}

func linkBandwidth(d *Device, ic string, gpus int) float64 {
	if ic == "nvlink" || (ic == "" && d.NVLinkJoins(gpus)) {
		return d.NVLinkBandwidth
	}
	return d.PCIeBandwidth
}

// PerGPU is the samples each GPU runs a step: the batch, or under strong
// scaling the batch split as evenly as it goes over the GPUs, whose
// GPUs with one sample more set the step.
func (o Options) PerGPU() int {
	if o.StrongScaling && o.GPUs > 1 {
		return (o.Batch + o.GPUs - 1) / o.GPUs
	}
	return o.Batch
}

func (o Options) withDefaults(d *Device) (Options, error) {
	var errs []error
	if o.Batch <= 0 {
		errs = append(errs, fmt.Errorf("batch %d: want a positive batch size", o.Batch))
	}
	if o.Precision == "" {
		o.Precision = dnn.FP32
	} else if _, err := dnn.ParsePrecision(string(o.Precision)); err != nil {
		errs = append(errs, err)
	}
	if o.Layers != nil && o.Precision != dnn.FP32 {
		errs = append(errs, fmt.Errorf("a layer model times fp32 passes, not %s", o.Precision))
	}
	if o.GPUs == 0 {
		o.GPUs = 1
	}
	if o.GPUs < 0 {
		errs = append(errs, fmt.Errorf("%d GPUs: want at least 1", o.GPUs))
	}
	if o.StrongScaling && o.GPUs > 0 && o.Batch > 0 && o.Batch < o.GPUs {
		errs = append(errs, fmt.Errorf("strong scaling of a batch of %d over %d GPUs leaves some without a sample", o.Batch, o.GPUs))
	}
	switch o.Interconnect {
	case "", "pcie":
	case "nvlink":
		if d.NVLinkBandwidth <= 0 {
			errs = append(errs, fmt.Errorf("device %s has no NVLink (use pcie)", d.Name))
		} else if o.AllReduce == 0 && o.GPUs > 1 && !d.NVLinkJoins(o.GPUs) {
			// a PCIe card's NVLink bridge joins it to one other card
			errs = append(errs, fmt.Errorf("device %s: its NVLink is a bridge that joins two cards, not %d: they exchange gradients over PCIe (leave out nvlink), or give their measured all-reduce bandwidth", d.Name, o.GPUs))
		}
	default:
		errs = append(errs, fmt.Errorf("interconnect %q: want nvlink or pcie", o.Interconnect))
	}
	if !(o.AllReduce >= 0) || math.IsInf(o.AllReduce, 1) {
		errs = append(errs, fmt.Errorf("all-reduce bandwidth %g B/s: want a finite, non-negative figure", o.AllReduce))
	} else if o.GPUs > 1 && o.AllReduce == 0 && linkBandwidth(d, o.Interconnect, o.GPUs) <= 0 && !(o.Interconnect == "nvlink" && d.NVLinkBandwidth <= 0) {
		// (a missing NVLink is said above)
		errs = append(errs, fmt.Errorf("%d devices: %s has no link between devices to exchange gradients over; give a measured all-reduce bandwidth (--allreduce-gbps), or one device", o.GPUs, d.Name))
	}
	if !(o.DeviceScale >= 0) || math.IsInf(o.DeviceScale, 1) {
		errs = append(errs, fmt.Errorf("device scale %g: want a finite, positive factor (0 for none)", o.DeviceScale))
	}
	switch o.Comm {
	case "":
		o.Comm = Ring
	case Ring:
	case Tree, ParameterServer:
		if o.AllReduce > 0 {
			// a measured all-reduce bandwidth is a ring's bus bandwidth
			// (nccl-tests' busbw): 2(g−1)/g of the bytes over it, whatever
			// the algorithm; the other schemes time a link's bandwidth
			errs = append(errs, fmt.Errorf("communication %s with an all-reduce bandwidth: the bandwidth given is a ring's bus bandwidth (nccl-tests' busbw), which times the exchange as it is; give the ring, or the link's bandwidth through the device (no all-reduce bandwidth)", o.Comm))
		}
	default:
		errs = append(errs, fmt.Errorf("communication %q: want ring, tree or ps", o.Comm))
	}
	switch o.Combine {
	case "":
		o.Combine = Roofline
	case Roofline, Sum:
	default:
		errs = append(errs, fmt.Errorf("combine %q: want max or sum", o.Combine))
	}
	return o, errors.Join(errs...)
}

// TopLayers returns the n layers with the longest predicted time, longest
// first (ties by name).
func (p *Prediction) TopLayers(n int) []LayerTime {
	s := slices.Clone(p.Layers)
	sort.SliceStable(s, func(i, j int) bool {
		if s[i].Total != s[j].Total {
			return s[i].Total > s[j].Total
		}
		return strings.Compare(s[i].Name, s[j].Name) < 0
	})
	return s[:min(n, len(s))]
}
