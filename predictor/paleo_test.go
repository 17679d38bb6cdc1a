package predictor

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/wb-sim/wb/dnn"
)

// toy is a device with round numbers: 100 TFLOP/s matrix, 10 TFLOP/s
// vector, 1 TB/s memory, 100 GB/s NVLink, 10 GB/s PCIe.
func toy() *Device {
	return &Device{
		Name: "toy", Display: "toy", Kind: "gpu",
		PeakVector:   map[Precision]float64{Precision(dnn.FP32): 10e12},
		PeakMatrix:   map[Precision]float64{Precision(dnn.FP32): 100e12},
		MemBandwidth: 1e12, NVLinkBandwidth: 100e9, PCIeBandwidth: 10e9,
	}
}

var unit = &Efficiency{Matrix: 1, Vector: 1, Memory: 1, Network: 1}

func linearNet(t *testing.T) *dnn.Network {
	b, x := dnn.NewBuilder("toy-linear", dnn.Shape{1024})
	y := b.Linear("fc", x, 1024, false)
	b.ReLU("relu", y)
	n, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPredictHandComputed: a 1024×1024 linear layer and a ReLU, batch 256,
// fp32, on the toy device at full efficiency.
func TestPredictHandComputed(t *testing.T) {
	p, err := Predict(linearNet(t), toy(), Options{Batch: 256, Efficiency: unit, KernelOverhead: -1})
	if err != nil {
		t.Fatal(err)
	}
	const B, K, N = 256.0, 1024.0, 1024.0
	gemm := 2 * B * K * N / 100e12 // each GEMM pass: 5.37e-6 s, compute-bound
	// fc forward: reads 256×1024 + 1024×1024 values, writes 256×1024: 6.3 MB
	// / 1 TB/s = 6.3e-6 s > 5.37e-6 s: memory-bound. fc backward-data is
	// skipped (fc reads the network's input). Backward-weights reads 2×256
	// ×1024, writes 1024²: the same traffic.
	fcBytes := 4 * (B*K + K*N + B*N) / 1e12
	update := 4 * K * N * 5 / 1e12 // 5 accesses of 4 bytes per weight
	relu := 4 * B * N * 2 / 1e12   // forward: read + write
	reluBack := 4 * B * N * 3 / 1e12
	want := math.Max(gemm, fcBytes)*2 + update + relu + reluBack
	if math.Abs(p.Iteration-want)/want > 1e-12 {
		t.Errorf("iteration %.6g s, want %.6g", p.Iteration, want)
	}
	if math.Abs(p.SamplesPerSecond-B/want) > 1e-6*B/want {
		t.Errorf("throughput %.6g, want %.6g", p.SamplesPerSecond, B/want)
	}
	// With Paleo's sum the GEMM passes add their compute and memory time.
	s, _ := Predict(linearNet(t), toy(), Options{Batch: 256, Efficiency: unit, Combine: Sum, KernelOverhead: -1})
	// ... and so do the vector passes: the update's 4 FLOPs per weight and
	// the ReLU's 1 per value, at 10 TFLOP/s.
	wantSum := (gemm+fcBytes)*2 + update + 4*K*N/10e12 + relu + reluBack + 2*B*N/10e12
	if math.Abs(s.Iteration-wantSum)/wantSum > 1e-12 {
		t.Errorf("sum: iteration %.6g s, want %.6g", s.Iteration, wantSum)
	}
}

// TestBatchLinear: the compiled (intercept + slope) work gives the same
// prediction as the layers' own work at any batch.
func TestBatchLinear(t *testing.T) {
	n, err := dnn.ResNet("resnet18-check", [4]int{2, 2, 2, 2}, false, 64, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []int{1, 3, 64, 1000} {
		p, err := Predict(n, toy(), Options{Batch: b, Efficiency: unit, KernelOverhead: -1})
		if err != nil {
			t.Fatal(err)
		}
		var flops dnn.Flops
		for _, node := range n.Nodes {
			for _, pass := range dnn.Passes {
				if pass == dnn.BackwardData && node.Inputs[0] == -1 {
					continue
				}
				flops += node.Layer.Work(b, pass, dnn.FP32).FLOPs
			}
		}
		var got dnn.Flops
		for _, l := range p.Layers {
			got += l.FLOPs
		}
		if math.Abs(float64(got-flops)) > 1e-9*float64(flops) {
			t.Errorf("batch %d: %g FLOPs predicted, %g counted", b, got, flops)
		}
	}
}

// TestKernelFloor: a pass shorter than the kernel overhead takes the
// overhead; the update launches two kernels.
func TestKernelFloor(t *testing.T) {
	p, err := Predict(linearNet(t), toy(), Options{Batch: 1, Efficiency: unit, KernelOverhead: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	// fc (no bias): forward, backward-weights (1 operator each), update
	// (4: SGD with momentum's zero, scale, add and step of the weight);
	// relu: forward and backward-data; every one far below 1 ms.
	if want := 8e-3; math.Abs(p.Iteration-want) > 1e-12 {
		t.Errorf("iteration %g s, want %g", p.Iteration, want)
	}
}

func TestCommunication(t *testing.T) {
	const s, bw = 100e6, 100e9 // 100 MB over 100 GB/s: 1 ms a pass
	tests := []struct {
		scheme Comm
		g      int
		want   float64
	}{
		{Ring, 8, 2*7.0/8*1e-3 + 2*7*LinkLatency},
		{Ring, 2, 1e-3 + 2*LinkLatency},
		{Tree, 8, 2 * 3 * (1e-3 + LinkLatency)},
		{ParameterServer, 4, 8e-3 + 2*LinkLatency},
	}
	for _, tt := range tests {
		if got := commTime(s, tt.g, bw, tt.scheme); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s over %d: %g s, want %g", tt.scheme, tt.g, got, tt.want)
		}
	}
	// Weak scaling: 8 GPUs, each its batch; the all-reduce of the 4 MB of
	// fp32 gradients goes over NVLink by default, over PCIe when asked.
	one, _ := Predict(linearNet(t), toy(), Options{Batch: 256, Efficiency: unit, KernelOverhead: -1})
	nv, _ := Predict(linearNet(t), toy(), Options{Batch: 256, GPUs: 8, Efficiency: unit, KernelOverhead: -1})
	pcie, _ := Predict(linearNet(t), toy(), Options{Batch: 256, GPUs: 8, Interconnect: "pcie", Efficiency: unit, KernelOverhead: -1})
	grad := 4.0 * 1024 * 1024
	if want := commTime(grad, 8, 100e9, Ring); math.Abs(nv.Communication-want) > 1e-15 {
		t.Errorf("nvlink all-reduce %g s, want %g", nv.Communication, want)
	}
	if pcie.Communication <= nv.Communication || math.Abs(nv.Iteration-one.Iteration-nv.Communication) > 1e-15 {
		t.Errorf("pcie %g, nvlink %g, iteration %g vs %g", pcie.Communication, nv.Communication, nv.Iteration, one.Iteration)
	}
	if math.Abs(nv.SamplesPerSecond-8*256/nv.Iteration) > 1e-6 {
		t.Errorf("weak scaling throughput %g", nv.SamplesPerSecond)
	}
	// a measured bus bandwidth of 2 GB/s replaces the link's, whatever the
	// interconnect; on one GPU it changes nothing
	for _, ic := range []string{"", "nvlink", "pcie"} {
		bus, _ := Predict(linearNet(t), toy(), Options{Batch: 256, GPUs: 8, Interconnect: ic, AllReduce: 2e9, Efficiency: unit, KernelOverhead: -1})
		if want := 2*7.0/8*grad/2e9 + 2*7*LinkLatency; math.Abs(bus.Communication-want) > 1e-15 {
			t.Errorf("%q at 2 GB/s bus bandwidth: %g s, want %g", ic, bus.Communication, want)
		}
	}
	if alone, _ := Predict(linearNet(t), toy(), Options{Batch: 256, AllReduce: 2e9, Efficiency: unit, KernelOverhead: -1}); alone.Iteration != one.Iteration {
		t.Errorf("one GPU: %g s with an all-reduce bandwidth, %g without", alone.Iteration, one.Iteration)
	}
	strong, _ := Predict(linearNet(t), toy(), Options{Batch: 256, GPUs: 8, StrongScaling: true, Efficiency: unit, KernelOverhead: -1})
	if strong.Iteration >= nv.Iteration || math.Abs(strong.SamplesPerSecond-256/strong.Iteration) > 1e-6 {
		t.Errorf("strong scaling: iteration %g, throughput %g", strong.Iteration, strong.SamplesPerSecond)
	}
}

func TestBadOptions(t *testing.T) {
	noNV := toy()
	noNV.NVLinkBandwidth = 0
	_, err := Predict(linearNet(t), noNV, Options{Batch: 0, GPUs: -1, Interconnect: "nvlink", Comm: "gossip", Combine: "min", Precision: "fp8", AllReduce: -1, DeviceScale: math.NaN()})
	for _, want := range []string{"batch 0", "-1 GPUs", "has no NVLink", `communication "gossip"`, `combine "min"`, `unknown precision "fp8"`, "all-reduce bandwidth -1 B/s", "device scale NaN"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
}

func BenchmarkPredictResNet50(b *testing.B) {
	n, err := dnn.ResNet("resnet50", [4]int{3, 4, 6, 3}, true, 224, 1000)
	if err != nil {
		b.Fatal(err)
	}
	d := toy()
	o := Options{Batch: 128, GPUs: 8}
	if _, err := Predict(n, d, o); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		Predict(n, d, o)
	}
}

// An LSTM dispatches one operator per pass and launches two kernels per
// time step and layer: its forward floor is one operator plus the rest at
// LibraryLaunch.
func TestLSTMLaunches(t *testing.T) {
	n, err := dnn.Model("lm")
	if err != nil {
		t.Fatal(err)
	}
	for _, node := range n.Nodes {
		if node.Layer.Op() != "lstm" {
			continue
		}
		d := node.Layer.(dnn.Describer).Describe()
		steps, layers := d.In[0][0], d.Attr[dnn.AttrLayers]
		if k := kernelsOf(node.Layer, dnn.Forward); k != layers*(1+2*steps) {
			t.Errorf("forward kernels %d, want %d", k, layers*(1+2*steps))
		}
		if o := opsOf(node.Layer, dnn.Forward); o != 1 {
			t.Errorf("forward operators %d, want 1", o)
		}
		return
	}
	t.Fatal("lm has no LSTM")
}

// fixedLayers times every conv2d pass but the update at 1 ms and covers
// nothing else.
type fixedLayers struct{}

func (fixedLayers) LayerPass(d dnn.Desc, p dnn.Pass, batch int, dev *Device) (float64, bool) {
	return 1e-3, d.Op == dnn.OpConv2D && p != dnn.Update
}

// TestLayerModel checks that a layer model replaces the analytical time of
// the passes it covers, and only those, and that the host's floor still
// holds under it.
func TestLayerModel(t *testing.T) {
	n, dev := modelOn(t, "resnet18-cifar", "v100")
	base, err := Predict(n, dev, Options{Batch: 16})
	if err != nil {
		t.Fatal(err)
	}
	with, err := Predict(n, dev, Options{Batch: 16, Layers: fixedLayers{}})
	if err != nil {
		t.Fatal(err)
	}
	convs := 0
	for i, l := range with.Layers {
		for p := range l.Time {
			got, was := l.Time[p], base.Layers[i].Time[p]
			switch {
			case l.Op == "conv2d" && dnn.Pass(p) != dnn.Update && was > 0:
				convs++
				if got != 1e-3 {
					t.Errorf("%s %v: %g s, want the layer model's 1 ms", l.Name, dnn.Pass(p), got)
				}
			case got != was:
				t.Errorf("%s %v: %g s with the layer model, %g without: only conv2d's passes may change", l.Name, dnn.Pass(p), got, was)
			}
		}
	}
	if convs == 0 {
		t.Error("no conv2d pass timed by the layer model")
	}
	// a pass the layer model times below the host's floor takes the floor
	tiny, err := Predict(n, dev, Options{Batch: 16, Layers: tinyLayers{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range tiny.Layers {
		if l.Op == "conv2d" && l.Time[dnn.Forward] != DefaultKernelOverhead(KindGPU) {
			t.Errorf("%s forward: %g s, want the host floor %g", l.Name, l.Time[dnn.Forward], DefaultKernelOverhead(KindGPU))
		}
	}
	// a layer model times fp32: another precision is refused, not mixed
	if _, err := Predict(n, dev, Options{Batch: 16, Precision: dnn.FP16, Layers: fixedLayers{}}); err == nil || !strings.Contains(err.Error(), "fp32") {
		t.Errorf("fp16 with a layer model: err %v, want a refusal naming fp32", err)
	}
}

// TestRetime: a prediction retimed with another device scale and host cost
// per operator is the prediction made with them, on the analytical path and
// with a layer model, on one GPU and on several (LM's LSTMs have library
// launches, the recommendation job's input pipeline host work of its own);
// a prediction whose analytical passes a learned correction timed cannot be
// retimed.
func TestRetime(t *testing.T) {
	dev, err := LookupDevice("k80")
	if err != nil {
		t.Fatal(err)
	}
	for _, model := range []string{"resnet18-cifar", "lm", "recommendation"} {
		n, err := dnn.Model(model)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []Options{{Batch: 16}, {Batch: 64, GPUs: 4, Layers: fixedLayers{}, DeviceScale: 1.5}} {
			p, err := PredictRetimable(n, dev, o)
			if err != nil {
				t.Fatal(err)
			}
			if plain, err := Predict(n, dev, o); err != nil || plain.Iteration != p.Iteration || !math.IsNaN(plain.Retime(1, 54e-6)) {
				t.Errorf("%s %+v: Predict %v (err %v), PredictRetimable %v: want the same iteration, and NaN retimed without the passes", model, o, plain.Iteration, err, p.Iteration)
			}
			base := max(o.DeviceScale, 1)
			for _, scale := range []float64{0.5, 1, 2.37} {
				for _, launch := range []float64{0, 1e-6, 54e-6, 200e-6} {
					o2 := o
					o2.DeviceScale, o2.KernelOverhead = base*scale, launch
					if launch == 0 {
						o2.KernelOverhead = -1
					}
					want, err := Predict(n, dev, o2)
					if err != nil {
						t.Fatal(err)
					}
					if got := p.Retime(scale, launch); math.Abs(got/want.Iteration-1) > 1e-12 {
						t.Errorf("%s %+v retimed ×%g, %g s/op: %g s, predicted %g s", model, o, scale, launch, got, want.Iteration)
					}
				}
			}
		}
	}
	n, _ := dnn.Model("resnet18-cifar")
	p, err := PredictRetimable(n, dev, Options{Batch: 16, Corrector: constFactor(1.1)})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Retime(1, 54e-6); !math.IsNaN(got) {
		t.Errorf("retimed with a learned correction: %g, want NaN", got)
	}
}

// constFactor is a correction of one factor for every pass.
type constFactor float64

func (c constFactor) Factor(FeatureRow) float64 { return float64(c) }

// tinyLayers times every conv2d forward at 1 ns.
type tinyLayers struct{}

func (tinyLayers) LayerPass(d dnn.Desc, p dnn.Pass, batch int, dev *Device) (float64, bool) {
	return 1e-9, d.Op == dnn.OpConv2D && p == dnn.Forward
}

// TestInputPipeline: a network whose input pipeline dispatches operators
// on the host (Gavel's LM: two per sample) pays the host's cost for each,
// per sample on each GPU, in the iteration; one whose pipeline does work
// of its own on the host (the recommendation job's collation) pays that
// per sample on each GPU, whatever the cost per operator; others pay
// nothing.
func TestInputPipeline(t *testing.T) {
	dev, err := LookupDevice("v100")
	if err != nil {
		t.Fatal(err)
	}
	lm, err := dnn.Model("lm")
	if err != nil {
		t.Fatal(err)
	}
	if lm.HostOpsPerSample != 2 {
		t.Fatalf("lm dispatches %d operators per sample, want 2 (its two torch.cat)", lm.HostOpsPerSample)
	}
	rn, err := dnn.Model("resnet18-cifar")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := dnn.Model("recommendation")
	if err != nil {
		t.Fatal(err)
	}
	h := rec.HostSecondsPerSample
	if !(h > 5e-6 && h < 50e-6) || rec.HostOpsPerSample != 0 || lm.HostSecondsPerSample != 0 || rn.HostSecondsPerSample != 0 {
		t.Fatalf("host work per sample: recommendation %g s (%d operators), lm %g s, resnet18-cifar %g s; want recoder's collation (tens of µs) alone",
			h, rec.HostOpsPerSample, lm.HostSecondsPerSample, rn.HostSecondsPerSample)
	}
	for _, c := range []struct {
		n    *dnn.Network
		o    Options
		want float64
	}{
		{lm, Options{Batch: 20}, 2 * 20 * 53e-6},
		{lm, Options{Batch: 20, KernelOverhead: 40e-6}, 2 * 20 * 40e-6},
		{lm, Options{Batch: 80, GPUs: 4, StrongScaling: true, KernelOverhead: 40e-6}, 2 * 20 * 40e-6},
		{lm, Options{Batch: 20, KernelOverhead: -1}, 0},
		{rn, Options{Batch: 20}, 0},
		{rec, Options{Batch: 1024}, 1024 * h},
		{rec, Options{Batch: 1024, KernelOverhead: -1}, 1024 * h},
		{rec, Options{Batch: 4096, GPUs: 4, StrongScaling: true}, 1024 * h},
	} {
		p, err := Predict(c.n, dev, c.o)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(p.Input-c.want) > 1e-15 {
			t.Errorf("%s %+v: input %g s, want %g s", c.n.Name, c.o, p.Input, c.want)
		}
		if sum := p.Forward + p.Backward + p.Update + p.Communication + p.Input; math.Abs(sum/p.Iteration-1) > 1e-12 {
			t.Errorf("%s %+v: iteration %g s, its parts sum to %g s", c.n.Name, c.o, p.Iteration, sum)
		}
	}
}

// TestBoundSplit: compute-, memory- and host-bound time split the layers'
// time exactly; at batch 1 on a V100 the host's floor sets nearly all of
// ResNet-50's passes (tiny kernels), at batch 256 little of them.
func TestBoundSplit(t *testing.T) {
	n, d := modelOn(t, "resnet50", "v100")
	host := map[int]float64{}
	for _, batch := range []int{1, 256} {
		p, err := Predict(n, d, Options{Batch: batch})
		if err != nil {
			t.Fatal(err)
		}
		layers := p.Forward + p.Backward + p.Update
		if sum := p.Compute + p.Memory + p.Host; math.Abs(sum-layers) > 1e-9*layers {
			t.Errorf("batch %d: compute %v + memory %v + host %v = %v, want the layers' %v", batch, p.Compute, p.Memory, p.Host, sum, layers)
		}
		hostLayers := 0
		for _, l := range p.Layers {
			if l.HostBound {
				hostLayers++
			}
		}
		host[batch] = p.Host / layers
		t.Logf("batch %d: host-bound %.0f%% of the layers' time, %d of %d layers", batch, 100*host[batch], hostLayers, len(p.Layers))
		if batch == 1 && (host[1] < 0.9 || hostLayers < len(p.Layers)/2) {
			t.Errorf("batch 1: host-bound share %.2f, %d layers: want nearly all", host[1], hostLayers)
		}
	}
	if host[256] > 0.2 {
		t.Errorf("batch 256: host-bound share %.2f, want little", host[256])
	}
}

// TestStrongScalingUneven: a batch the GPUs do not divide takes as long as
// one of ⌈batch/GPUs⌉ samples on each (the GPUs with one more set the
// step), and the throughput counts the samples there are.
func TestStrongScalingUneven(t *testing.T) {
	n, d := modelOn(t, "lm", "v100")
	p10, err := Predict(n, d, Options{Batch: 10, GPUs: 3, StrongScaling: true})
	if err != nil {
		t.Fatal(err)
	}
	p12, err := Predict(n, d, Options{Batch: 12, GPUs: 3, StrongScaling: true})
	if err != nil {
		t.Fatal(err)
	}
	if p10.Iteration != p12.Iteration {
		t.Errorf("10 samples over 3 GPUs: %v s, 12: %v s; want the same (4 on the GPUs that set the step)", p10.Iteration, p12.Iteration)
	}
	if got, want := p10.SamplesPerSecond, 10/p10.Iteration; math.Abs(got-want) > 1e-9*want {
		t.Errorf("throughput %v samples/s, want %v", got, want)
	}
}

// modelOn is a zoo network and a device of the table.
func modelOn(t *testing.T, model, device string) (*dnn.Network, *Device) {
	t.Helper()
	n, err := dnn.Model(model)
	if err != nil {
		t.Fatal(err)
	}
	d, err := LookupDevice(device)
	if err != nil {
		t.Fatal(err)
	}
	return n, d
}

// implFactor is a correction whose features include the implementation a
// library picks: it doubles the passes whose Impl says "slow" and counts
// the rows it saw with one.
type implFactor struct{ named *int }

func (c implFactor) Factor(r FeatureRow) float64 {
	if r.Impl != "" {
		*c.named++
	}
	if r.Impl == "slow" {
		return 2
	}
	return 1
}
func (implFactor) NeedsImpl() bool { return true }

// A correction that needs the library's choice of kernel refuses to
// predict on a CPU without an ImplQuery, and with one sees each
// convolution pass's answer (and no other op's: the query says "" for
// those); on a GPU nothing is asked.
func TestPredictImpl(t *testing.T) {
	n, _ := dnn.Model("resnet18-cifar")
	var named int
	gpu, err := LookupDevice("v100")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Predict(n, gpu, Options{Batch: 4, Corrector: implFactor{&named}, Impl: func(dnn.Desc, int, dnn.Pass) (string, error) {
		t.Error("asked oneDNN for a GPU's convolution")
		return "", nil
	}}); err != nil || named != 0 {
		t.Errorf("on a GPU: %v, %d passes named", err, named)
	}
	dev, err := LookupDevice("cpu")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Predict(n, dev, Options{Batch: 4, Corrector: implFactor{&named}}); err == nil || !strings.Contains(err.Error(), "oneDNN") {
		t.Fatalf("no ImplQuery: %v", err)
	}
	convPasses := 0
	asked := map[dnn.Op]int{}
	query := func(impl string) ImplQuery {
		return func(d dnn.Desc, batch int, p dnn.Pass) (string, error) {
			asked[d.Op]++
			if d.Op != dnn.OpConv2D || p == dnn.Update {
				return "", nil
			}
			if batch != 4 {
				t.Errorf("asked at batch %d", batch)
			}
			return impl, nil
		}
	}
	fast, err := Predict(n, dev, Options{Batch: 4, Corrector: implFactor{&named}, Impl: query("fast")})
	if err != nil {
		t.Fatal(err)
	}
	convPasses, named = named, 0
	slow, err := Predict(n, dev, Options{Batch: 4, Corrector: implFactor{&named}, Impl: query("slow")})
	if err != nil {
		t.Fatal(err)
	}
	if convPasses == 0 || named != convPasses || asked[dnn.OpConv2D] == 0 || asked[dnn.OpLinear] == 0 {
		t.Errorf("convolution passes named %d then %d; asked %v", convPasses, named, asked)
	}
	var fc, sc float64
	for i, l := range fast.Layers {
		if l.Op == string(dnn.OpConv2D) {
			fc += l.Total - l.Time[dnn.Update]
			sc += slow.Layers[i].Total - slow.Layers[i].Time[dnn.Update]
		} else if l.Total != slow.Layers[i].Total {
			t.Errorf("%s: %g s, then %g s", l.Name, l.Total, slow.Layers[i].Total)
		}
	}
	if math.Abs(sc/fc-2) > 1e-9 {
		t.Errorf("convolutions' passes %g s fast, %g s slow: want twice", fc, sc)
	}
	if _, err := Predict(n, dev, Options{Batch: 4, Corrector: implFactor{&named}, Impl: func(dnn.Desc, int, dnn.Pass) (string, error) {
		return "", errors.New("no library")
	}}); err == nil || !strings.Contains(err.Error(), "no library") {
		t.Errorf("a failing query: %v", err)
	}
}

// Reviewers' finds in the analytical path: the compiled work is cached by
// the graph, not by the network's name alone; a tied layer steps only its
// own bias; data parallelism needs a link.
func TestPaleoGraphKeyTiedUpdateNoLink(t *testing.T) {
	d := toy()
	a, err := dnn.BERT("same-name", 2, 128, 2, 64)
	if err != nil {
		t.Fatal(err)
	}
	b, err := dnn.BERT("same-name", 2, 128, 2, 512)
	if err != nil {
		t.Fatal(err)
	}
	pa, err := Predict(a, d, Options{Batch: 64, KernelOverhead: -1})
	if err != nil {
		t.Fatal(err)
	}
	pb, err := Predict(b, d, Options{Batch: 64, KernelOverhead: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !(pb.Iteration > 4*pa.Iteration) {
		t.Errorf("sequence 512 predicted %g s, sequence 64 %g s: the second took the first's compiled work", pb.Iteration, pa.Iteration)
	}

	// two poolings of one output shape and name, different windows
	pool := func(k, pad int) *dnn.Network {
		b, x := dnn.NewBuilder("same-pool", dnn.Shape{64, 56, 56})
		b.MaxPool("pool", x, k, 2, pad)
		n, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	c3 := compile(pool(3, 1), dnn.FP32)
	c2 := compile(pool(2, 0), dnn.FP32)
	if f3, f2 := c3.layers[0].pass[dnn.Forward].flops1, c2.layers[0].pass[dnn.Forward].flops1; f3 == f2 {
		t.Errorf("a 2×2 pooling took the 3×3 one's work: %g FLOPs a sample both", f2)
	}

	lm, err := dnn.WordLanguageModel("tied-lm", 1000, 200, 200, 2, 35, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, node := range lm.Nodes {
		if node.Name == "decoder" {
			if k := kernelsOf(node.Layer, dnn.Update); k != 4 {
				t.Errorf("the tied decoder's update: %d kernels, want 4 (its bias)", k)
			}
			if k := kernelsOf(node.Layer, dnn.BackwardWeights); k != 2 {
				t.Errorf("the tied decoder's weight gradients: %d kernels, want 2 (the shared weight's, the bias's)", k)
			}
		}
	}

	cpu := *d
	cpu.Name, cpu.PCIeBandwidth, cpu.NVLinkBandwidth = "a cpu", 0, 0
	if _, err := Predict(a, &cpu, Options{Batch: 4, GPUs: 2}); err == nil || !strings.Contains(err.Error(), "no link between devices") {
		t.Errorf("two devices without a link: %v", err)
	}
	if p, err := Predict(a, &cpu, Options{Batch: 4, GPUs: 2, AllReduce: 10e9}); err != nil || math.IsInf(p.Iteration, 0) {
		t.Errorf("with a measured all-reduce: %v, %v", p, err)
	}
}

// Gavel's CycleGAN calls each network three times a step at batch 1: its
// graph at batch 3 pays the host's cost per operator three times in every
// pass but the update, and Retime agrees with Predict.
func TestCallsPayTheHostEachTime(t *testing.T) {
	gan, err := dnn.Model("cyclegan")
	if err != nil {
		t.Fatal(err)
	}
	if gan.Calls != 3 {
		t.Fatalf("cyclegan: %d calls a step, want 3", gan.Calls)
	}
	v100, err := LookupDevice("v100")
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Batch: 3, KernelOverhead: 53e-6}
	three, err := PredictRetimable(gan, v100, o)
	if err != nil {
		t.Fatal(err)
	}
	once := *gan
	once.Calls = 0
	one, err := Predict(&once, v100, o)
	if err != nil {
		t.Fatal(err)
	}
	if !(three.Iteration > 1.05*one.Iteration) || !(three.Host > one.Host) {
		t.Errorf("three calls: iteration %g s, host-bound %g s; one call: %g s, %g s", three.Iteration, three.Host, one.Iteration, one.Host)
	}
	if r := three.Retime(1, 53e-6); math.Abs(r-three.Iteration) > 1e-9*three.Iteration {
		t.Errorf("Retime %g s, Predict %g s", r, three.Iteration)
	}
}

// A CPU has no host floor: no library launch is charged either (an LSTM's
// steps, a convolution's bias), and Retime with no launch cost has none.
func TestNoLibraryFloorOnCPU(t *testing.T) {
	lm, err := dnn.Model("lm")
	if err != nil {
		t.Fatal(err)
	}
	cpu, err := LookupDevice("cpu")
	if err != nil {
		t.Fatal(err)
	}
	p, err := PredictRetimable(lm, cpu, Options{Batch: 1})
	if err != nil {
		t.Fatal(err)
	}
	if p.Host != 0 {
		t.Errorf("lm on the CPU: %g s host-bound", p.Host)
	}
	v100, _ := LookupDevice("v100")
	g, err := PredictRetimable(lm, v100, Options{Batch: 1})
	if err != nil {
		t.Fatal(err)
	}
	var device float64
	for _, c := range g.passes {
		device += c.device
	}
	if r := g.Retime(1, 0); math.Abs(r-(g.Communication+g.inputHost+device)) > 1e-12 {
		t.Errorf("Retime without a launch cost %g s, the device time alone %g s", r, g.Communication+g.inputHost+device)
	}
}
