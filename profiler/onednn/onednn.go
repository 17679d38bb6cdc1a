// Package onednn is the profiler backend that runs layers on the CPU with
// the libraries PyTorch runs them with there: oneDNN (Intel's deep-learning
// kernels, which PyTorch calls for fp32 convolutions) and OpenBLAS (the BLAS
// behind its matrix products). Both are loaded at run time (dlopen of
// libdnnl.so.2 and libopenblas.so.0; Debian's libdnnl-dev and
// libopenblas-dev), so wb builds without them; where they are missing New
// says so and the profiler falls back to the pure-Go backend (package cpu).
//
// # What it runs
//
// Each pass is what PyTorch 1.13 runs for it on the CPU, on buffers laid out
// as PyTorch lays them out (NCHW, rows × features):
//
//   - conv2d: oneDNN's direct convolution with its preferred ("any")
//     layouts, the NCHW input and OIHW weights reordered into them and the
//     result reordered back on every run, as PyTorch's ideep does for plain
//     tensors; the three passes (forward training, backward data,
//     backward weights with the bias's gradient).
//
//   - linear: addmm — the bias copied into every row of the output (on the
//     calling thread under ATen's grain of 32,768 values, else on the
//     OpenMP team), then one sgemm x·Wᵀ with β = 1 (W stored [out, in]);
//     backward data dY·W; backward weights dYᵀ·X and the bias's column sums.
//
//   - matmul: one sgemm per product of the batch, as PyTorch's bmm does
//     with a BLAS; backward data both inputs' gradients.
//
//   - batchnorm (training: batch statistics) as ATen's own kernel for
//     contiguous NCHW tensors (PyTorch does not call oneDNN for it): per
//     channel the mean and the variance in scalar double sums, then the
//     normalised output in a second region over the N·C planes; backward Σdy, then Σ(x − mean)·dy, then dx, with
//     the parameters' gradients, in AVX2 vectors with one vector of partial
//     sums (Debian's PyTorch runs its AVX2 kernels), each plane's last
//     values through at::vec's partial loads and stores and its horizontal
//     sums as at::vec adds them; in C, channels shared by the OpenMP team
//     that oneDNN uses (GOMP_parallel, as ATen's parallel_for with its
//     grain of one channel: a team from two channels on). On resnet50's
//     planes (batch 1, two threads) the backward takes 0.85–0.90× ATen's
//     kernel called directly, and the forward 0.75–0.94× while it wrote the
//     output in the statistics' region (not timed since); before the grain
//     and the partial vectors, 512×7×7's backward took 0.62×, on one thread.
//
//   - layernorm with scale and shift as ATen's LayerNormKernelImpl (rows
//     on the OpenMP team; forward RowwiseMoments' vector Welford update and
//     cascade, then the affine map; backward each thread's sums of the
//     parameters' gradients in a zeroed buffer, then dx, then the buffers
//     summed by column; the parameters' gradients in backward data, as dnn
//     counts them).
//
//   - the attention scale (1/8) and causal mask as separate oneDNN steps
//     before the softmax (as the models' code writes them); avgpool
//     counting padding (oneDNN).
//
//   - globalavgpool's forward as nn.AdaptiveAvgPool2d(1) runs it: ATen's
//     mean over each plane (its sums on the OpenMP team from ATen's grain
//     on, then div_; oneDNN's pooling took 1.37× PyTorch's time on
//     resnet50's 2048×7×7, ATen's mean 1.11×); its backward oneDNN's
//     (0.76× PyTorch's broadcast division; a fill of each plane, 0.19×).
//
//   - softmax over the last dimension as ATen's _vec_softmax_lastdim: per
//     row the maximum, exp(x − max) as Sleef's expf (u10) and the sum, the
//     product by its inverse; backward Σdy·y, then (dy − Σ)·y; rows on the
//     OpenMP team under the grain 32,768 / (16 · the row's length).
//
//   - relu, add of n inputs (n − 1 adds, each into a new tensor), maxpool
//     (with indices; the backward zeroes the input's gradient, then adds
//     each output's gradient at its maximum, the indices made once) as
//     ATen's own loops (PyTorch calls oneDNN for none of them): in C, on
//     the calling thread under ATen's grain (32,768 values), else on a team
//     of one thread per grain, at most the pool's (at::parallel_for).
//
//   - gelu (tanh approximation), tanh, sigmoid (their backward from the
//     output), silu and leakyrelu (slope 0.2) as ATen's loops too, tanh
//     computed as the Sleef_tanhf8_u10 that ATen's Vectorized<float>::tanh
//     calls (double-float e^|x| and a double-float division, with FMA where
//     the processor has it), exp as Sleef's expf (u10), on every thread
//     past 16,384 values for GELU (its own rule), under the grain for the
//     others. Through oneDNN's JIT, bert-base's GELU took 0.29× PyTorch's
//     time.
//
//   - update: torch.optim.SGD with momentum as its three ATen kernels, in
//     place, each under the same grain rule: v ← 0.9v, v ← v + g,
//     w ← w − 10⁻³v.
//
//   - lstm: as torch.nn.LSTM computes it on the CPU (no cuDNN, no oneDNN
//     RNN in PyTorch 1.13's training path): per layer one sgemm of the
//     whole sequence's inputs with W_ih, then per step the recurrent sgemm
//     with W_hh and the cell (in C, one loop where PyTorch dispatches about
//     ten elementwise ops); backward data per step the cell's backward and
//     an sgemm with W_hh, then the inputs' gradient in one sgemm; backward
//     weights as autograd computes them through ATen's FullLayer: W_ih's
//     in one sgemm over the sequence, W_hh's in one a step (rank B), each
//     added into the gradient so far (an ATen add of 4H×H values a step),
//     and the biases' sums likewise.
//
//   - dropout (p = 0.1) as PyTorch 1.13 runs it on a CPU without MKL: a
//     noise tensor drawn by bernoulli_ from an mt19937, two 32-bit draws per value (random64)
//     and serially, divided by 1 − p, then multiplied in; its backward one
//     product with the noise (the division and the products as ATen's
//     loops, on the OpenMP team above its grain, like relu's).
//
// In linear's forward the bias goes into the output in an OpenMP region
// (PyTorch's parallel broadcast copy) before the sgemm, and in its
// weights' gradient the bias's sum is an OpenMP reduction after it. With
// OpenBLAS's pthreads build, the OpenMP threads spinning after a region
// meet OpenBLAS's own threads, which on a machine with no core to spare
// doubles the product's time in PyTorch (bert's 35×200 by 200×33278
// product: 13 ms, 5.2 ms with GOMP_SPINCOUNT=0); wb loads the OpenMP build
// first (below), whose GEMMs run on the same team, so its timings are
// PyTorch's on that build, and wb profile says so where the
// libopenblas.so.0 PyTorch links is the pthreads build.
//
// Every other op (embedding, concat, select, upsample, pad,
// lrn, instancenorm, normalize) runs the pure-Go backend's kernel; a row's
// algo column says which ran: oneDNN's implementation names ("jit:avx2",
// reorders as "simple:any"), "openblas sgemm", or "go".
//
// Both libraries run on their own threads (OpenMP's for oneDNN, OpenBLAS's
// pthreads), as many as GOMAXPROCS; a kernel's runs are timed in C on the
// monotonic clock, on one locked OS thread, since OpenMP keeps its thread
// count per calling thread. Buffers are allocated by the C side (oneDNN or
// posix_memalign), never Go memory, and filled from a fixed generator, so
// two preparations hold the same values. fp32 only; tf32 runs as fp32.
package onednn

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/profiler"
	"github.com/wb-sim/wb/profiler/cpu"
)

// Libraries are the file names tried, in order. OpenBLAS's OpenMP build
// comes first (Debian's and Ubuntu's libopenblas0-openmp, in its own
// directory; Fedora's libopenblaso): it runs its GEMMs on the same libgomp
// team as oneDNN and the ATen-style loops. The pthreads build, what
// libopenblas.so.0 is by default there, keeps a second pool whose workers
// spin after each GEMM while OpenMP's team waits at its barriers for the
// cores they hold: measured on the 2-core VM, bert-base's training
// iteration at batch 1 took 1.59 s end to end against 0.84 s of its layers
// timed one by one, and 0.47 s against 0.48 s with the OpenMP build (a
// PyTorch 1.13 training step of 12 encoder layers: 1.4–2.2 s and 0.55 s).
var (
	DNNLNames = []string{"libdnnl.so.2"}
	BLASNames = append(multiarch("openblas-openmp/libopenblas.so.0"), "libopenblaso.so.0", "libopenblas.so.0", "libopenblas.so")
)

// multiarch is name under Debian's multiarch library directories of this
// architecture (none where Go's architecture has no triplet here).
func multiarch(name string) []string {
	triplet := map[string]string{"amd64": "x86_64-linux-gnu", "arm64": "aarch64-linux-gnu", "ppc64le": "powerpc64le-linux-gnu",
		"s390x": "s390x-linux-gnu", "riscv64": "riscv64-linux-gnu"}[runtime.GOARCH]
	if triplet == "" {
		return nil
	}
	return []string{"/usr/lib/" + triplet + "/" + name, "/lib/" + triplet + "/" + name}
}

// SystemBLAS is the threading of the OpenBLAS that libopenblas.so.0, the
// library a PyTorch build links, resolves to on this machine (Debian's
// alternatives: "pthreads" or "openmp"; "" where it cannot tell).
func SystemBLAS() string {
	for _, p := range multiarch("libopenblas.so.0") {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue
		}
		switch {
		case strings.Contains(real, "openblas-pthread"):
			return "pthreads"
		case strings.Contains(real, "openblas-openmp"):
			return "openmp"
		}
		return ""
	}
	return ""
}

// BLASThreading names OpenBLAS's threading as openblas_get_parallel
// reports it.
func BLASThreading(parallel int) string {
	switch parallel {
	case 0:
		return "sequential"
	case 1:
		return "pthreads"
	case 2:
		return "openmp"
	}
	return "unknown"
}

// Backend runs layer passes with oneDNN and OpenBLAS.
type Backend struct {
	// MemLimit is the most bytes of buffers one preparation may allocate;
	// New takes the pure-Go backend's (half the machine's memory).
	MemLimit int64

	threads int
	info    profiler.DeviceInfo
	fall    *cpu.Backend
}

var _ profiler.Backend = (*Backend)(nil)

var (
	loadOnce sync.Once
	loadErr  error
	libs     libInfo
)

// libInfo names the libraries' versions and the kernels OpenBLAS chose for
// this processor (its core name: OPENBLAS_CORETYPE overrides it, and
// Haswell's 256-bit kernels reach about half an AVX-512 machine's peak).
// threading is OpenBLAS's (BLASThreading).
type libInfo struct{ dnnl, blas, core, threading string }

// New loads the libraries (once per process) and makes the backend, with
// as many library threads as GOMAXPROCS. Without the libraries it fails
// with what is missing and how to install it.
func New() (*Backend, error) {
	loadOnce.Do(func() { libs, loadErr = load(DNNLNames, BLASNames) })
	if loadErr != nil {
		return nil, fmt.Errorf("%w (Debian/Ubuntu: apt-get install libdnnl-dev libopenblas-dev libopenblas0-openmp)", loadErr)
	}
	fall, err := cpu.New()
	if err != nil {
		return nil, err
	}
	b := &Backend{MemLimit: fall.MemLimit, threads: runtime.GOMAXPROCS(0), fall: fall}
	b.threads = setThreads(b.threads) // (OMP_THREAD_LIMIT may hold it lower)
	fi := fall.Device()
	b.info = profiler.DeviceInfo{
		Name:      fi.Name,
		Predictor: "cpu",
		Versions: map[string]string{
			"onednn":   libs.dnnl,
			"openblas": libs.blas,
			"threads":  fmt.Sprint(b.threads),
			"go":       fi.Versions["go"],
			"gonum":    fi.Versions["gonum"],
		},
	}
	if libs.core != "" {
		b.info.Versions["openblas_core"] = libs.core
	}
	b.info.Versions["openblas_threading"] = libs.threading
	return b, nil
}

// Name is "onednn".
func (b *Backend) Name() string { return "onednn" }

// Device names the processor as the pure-Go backend does, with the
// libraries' versions and the thread count.
func (b *Backend) Device() profiler.DeviceInfo { return b.info.Clone() }

// Prepare builds one pass of l (see the package documentation).
func (b *Backend) Prepare(l dnn.Layer, batch int, pass dnn.Pass, prec dnn.Precision) (profiler.Kernel, error) {
	op := l.Op()
	switch prec {
	case dnn.FP32, dnn.TF32:
	case dnn.FP16, dnn.BF16:
		return nil, fmt.Errorf("onednn: %s %s in %s: %w: the backend computes in fp32 only", op, pass, prec, profiler.ErrUnsupported)
	default:
		return nil, fmt.Errorf("onednn: %s %s: unknown precision %q", op, pass, prec)
	}
	if batch < 1 {
		return nil, fmt.Errorf("onednn: %s %s: batch %d, want at least 1", op, pass, batch)
	}
	dl, ok := l.(dnn.Describer)
	if !ok || l.Work(batch, pass, prec) == (dnn.Work{}) {
		return b.goKernel(l, batch, pass, prec)
	}
	limit := b.MemLimit
	if limit <= 0 {
		limit = cpu.DefaultMemLimit
	}
	var spec opSpec
	var err error
	if pass == dnn.Update {
		spec = opSpec{kind: kUpdate, i64: []int64{l.Params()}}
	} else {
		spec, err = specOf(dl.Describe(), batch, pass)
	}
	if errors.Is(err, errGo) {
		return b.goKernel(l, batch, pass, prec)
	}
	if err != nil {
		return nil, fmt.Errorf("onednn: %s %s: %w", op, pass, err)
	}
	k, err := build(spec, pass, limit, false)
	if err != nil {
		return nil, fmt.Errorf("onednn: %s %s at batch %d: %w", op, pass, batch, err)
	}
	k.name = string(op) + " " + pass.String()
	return k, nil
}

// Impl names what the backend runs for pass of the layer described by d at
// the batch, as a profile's algo column does, by asking oneDNN without
// allocating or running anything: for a convolution, oneDNN's
// implementations of its layout reorders and of the convolution, in the
// order they run; "" for every other op, whose kernels wb picks itself
// whatever the shape. A learned correction trained on those names
// (predictor.ImplQuery) asks it of layers it never saw profiled.
func (b *Backend) Impl(d dnn.Desc, batch int, pass dnn.Pass) (string, error) {
	if d.Op != dnn.OpConv2D || pass == dnn.Update {
		return "", nil
	}
	if batch < 1 {
		return "", fmt.Errorf("onednn: conv2d %s: batch %d, want at least 1", pass, batch)
	}
	spec, err := specOf(d, batch, pass)
	if err != nil {
		return "", fmt.Errorf("onednn: conv2d %s: %w", pass, err)
	}
	k, err := build(spec, pass, 0, true)
	if err != nil {
		return "", fmt.Errorf("onednn: conv2d %s at batch %d: %w", pass, batch, err)
	}
	k.op.free()
	return k.impl, nil
}

// goKernel runs the pure-Go backend's kernel for the pass.
func (b *Backend) goKernel(l dnn.Layer, batch int, pass dnn.Pass, prec dnn.Precision) (profiler.Kernel, error) {
	b.fall.MemLimit = b.MemLimit
	k, err := b.fall.Prepare(l, batch, pass, prec)
	if err != nil {
		return nil, err
	}
	return goKernel{k}, nil
}

// goKernel is a pure-Go kernel, named so in the algo column.
type goKernel struct{ profiler.Kernel }

func (goKernel) Algorithm() profiler.Algorithm { return profiler.Algorithm{Name: "go"} }

// errGo marks a pass the libraries do not run: the pure-Go kernel does.
var errGo = errors.New("run in Go")

// op kinds for build.
const (
	kConv = iota
	kEltwise
	kBNorm
	kLNorm
	kSoftmax
	kPool
	kAdd
	kLinear
	kMatMul
	kUpdate
	kLSTM
	kDropout
)

// opSpec is a pass's shape for the C builders: ints and 64-bit counts in
// each builder's argument order.
type opSpec struct {
	kind  int
	ints  []int
	i64   []int64
	alpha float32
}

// activations maps dnn's activations to the C side's numbers and alphas.
var activations = map[dnn.Op]struct {
	alg   int
	alpha float32
}{"relu": {0, 0}, "leakyrelu": {0, 0.2}, "gelu": {1, 0}, "tanh": {2, 0}, "sigmoid": {3, 0}, "silu": {4, 1}}

// specOf reads a layer's description into the C builder's arguments;
// errGo for what the libraries do not run.
func specOf(d dnn.Desc, batch int, pass dnn.Pass) (opSpec, error) {
	attr := func(names ...dnn.AttrKey) ([]int, error) {
		v := make([]int, len(names))
		for i, n := range names {
			x, ok := d.Attr[n]
			if !ok {
				return nil, fmt.Errorf("%s: no attribute %q", d.Op, n)
			}
			v[i] = x
		}
		return v, nil
	}
	in0 := func() (dnn.Shape, error) {
		if len(d.In) == 0 || len(d.In[0]) == 0 {
			return nil, fmt.Errorf("%s: no input shape", d.Op)
		}
		return d.In[0], nil
	}
	switch d.Op {
	case dnn.OpConv2D:
		s, err := in0()
		if err != nil {
			return opSpec{}, err
		}
		v, err := attr(dnn.AttrOut, dnn.AttrKH, dnn.AttrKW, dnn.AttrStride, dnn.AttrPH, dnn.AttrPW, dnn.AttrDilation, dnn.AttrGroups, dnn.AttrBias)
		if err != nil {
			return opSpec{}, err
		}
		if len(s) != 3 || v[7] < 1 || s[0]%v[7] != 0 || v[0]%v[7] != 0 {
			return opSpec{}, fmt.Errorf("conv2d: input %v, attributes %v", s, d.Attr)
		}
		return opSpec{kind: kConv, ints: []int{batch, s[0], s[1], s[2], v[0], v[1], v[2], v[3], v[3], v[4], v[5], v[6], v[6], v[7], v[8]}}, nil
	case dnn.OpReLU, dnn.OpLeakyReLU, dnn.OpGELU, dnn.OpTanh, dnn.OpSigmoid, dnn.OpSiLU:
		s, err := in0()
		if err != nil {
			return opSpec{}, err
		}
		a := activations[d.Op]
		return opSpec{kind: kEltwise, ints: []int{a.alg}, alpha: a.alpha, i64: []int64{int64(batch) * s.Elems()}}, nil
	case dnn.OpBatchNorm:
		s, err := in0()
		if err != nil {
			return opSpec{}, err
		}
		return opSpec{kind: kBNorm, ints: []int{batch, s[0]}, i64: []int64{s.Elems() / int64(s[0])}}, nil
	case dnn.OpLayerNorm:
		s, err := in0()
		if err != nil {
			return opSpec{}, err
		}
		cols := s[len(s)-1]
		return opSpec{kind: kLNorm, ints: []int{cols}, i64: []int64{int64(batch) * s.Elems() / int64(cols)}}, nil
	case dnn.OpSoftmax:
		s := d.Out
		if len(s) == 0 {
			return opSpec{}, fmt.Errorf("softmax on a scalar")
		}
		cols := s[len(s)-1]
		rows := int64(batch) * s.Elems() / int64(cols)
		scale := float32(1)
		if d.Attr[dnn.AttrScaled] == 1 {
			scale = 0.125 // 1/√64, the head width of the zoo's transformers (as package cpu)
		}
		causal := d.Attr[dnn.AttrCausal] == 1
		if causal {
			if rows%int64(cols) != 0 {
				return opSpec{}, errGo
			}
			return opSpec{kind: kSoftmax, ints: []int{cols, cols, 1}, i64: []int64{rows / int64(cols)}, alpha: scale}, nil
		}
		if rows > 1<<31-1 {
			return opSpec{}, errGo
		}
		return opSpec{kind: kSoftmax, ints: []int{int(rows), cols, 0}, i64: []int64{1}, alpha: scale}, nil
	case dnn.OpMaxPool, dnn.OpAvgPool, dnn.OpGlobalAvgPool:
		s, err := in0()
		if err != nil {
			return opSpec{}, err
		}
		if len(s) != 3 {
			return opSpec{}, fmt.Errorf("%s wants one [C, H, W] input, got %v", d.Op, d.In)
		}
		k, st, pd, alg := s[1], 1, 0, 1
		if d.Op != dnn.OpGlobalAvgPool {
			v, err := attr(dnn.AttrK, dnn.AttrStride, dnn.AttrPad)
			if err != nil {
				return opSpec{}, err
			}
			k, st, pd = v[0], v[1], v[2]
			if d.Op == dnn.OpMaxPool {
				alg = 0
			}
		}
		kh, kw := k, k
		if d.Op == dnn.OpGlobalAvgPool {
			kh, kw = s[1], s[2]
			if pass == dnn.Forward {
				alg = 2 // ATen's mean
			}
		}
		return opSpec{kind: kPool, ints: []int{alg, batch, s[0], s[1], s[2], kh, kw, st, st, pd, pd}}, nil
	case dnn.OpAdd:
		if len(d.In) < 2 || len(d.In) > 8 || pass != dnn.Forward {
			return opSpec{}, errGo
		}
		return opSpec{kind: kAdd, ints: []int{len(d.In)}, i64: []int64{int64(batch) * d.Out.Elems()}}, nil
	case dnn.OpLinear:
		s, err := in0()
		if err != nil {
			return opSpec{}, err
		}
		v, err := attr(dnn.AttrK, dnn.AttrN)
		if err != nil {
			return opSpec{}, err
		}
		if v[0] < 1 || s.Elems()%int64(v[0]) != 0 {
			return opSpec{}, fmt.Errorf("linear: input %v, k %d", s, v[0])
		}
		return opSpec{kind: kLinear, ints: []int{v[0], v[1], d.Attr[dnn.AttrBias]}, i64: []int64{int64(batch) * s.Elems() / int64(v[0])}}, nil
	case dnn.OpDropout:
		if pass == dnn.BackwardWeights {
			return opSpec{}, errGo
		}
		return opSpec{kind: kDropout, i64: []int64{int64(batch) * d.Out.Elems()}, alpha: 0.1}, nil
	case dnn.OpLSTM:
		v, err := attr(dnn.AttrHidden, dnn.AttrLayers)
		if err != nil {
			return opSpec{}, err
		}
		if len(d.In) != 1 || len(d.In[0]) != 2 || v[0] < 1 || v[1] < 1 || v[1] > 8 {
			return opSpec{}, fmt.Errorf("lstm of %v, hidden %d, layers %d", d.In, v[0], v[1])
		}
		return opSpec{kind: kLSTM, ints: []int{d.In[0][0], batch, d.In[0][1], v[0], v[1]}}, nil
	case dnn.OpMatMul:
		v, err := attr(dnn.AttrG, dnn.AttrM, dnn.AttrN, dnn.AttrK, dnn.AttrTransB)
		if err != nil {
			return opSpec{}, err
		}
		return opSpec{kind: kMatMul, ints: []int{batch * v[0], v[1], v[2], v[3], v[4]}}, nil
	}
	return opSpec{}, errGo
}

// kernel is a prepared pass on the C side.
type kernel struct {
	name string
	op   *cOp
	impl string
}

// Time runs the pass n times on one locked OS thread.
func (k *kernel) Time(n int) ([]time.Duration, error) {
	if k.op == nil {
		return nil, fmt.Errorf("onednn: %s: kernel used after Close", k.name)
	}
	if n < 0 {
		return nil, fmt.Errorf("onednn: %s: %d runs", k.name, n)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	secs, err := k.op.time(n)
	if err != nil {
		return nil, fmt.Errorf("onednn: %s: %w", k.name, err)
	}
	ds := make([]time.Duration, n)
	for i, s := range secs {
		ds[i] = time.Duration(s * 1e9)
	}
	return ds, nil
}

// Algorithm names what runs: oneDNN's implementations joined by "+", or
// "openblas sgemm".
func (k *kernel) Algorithm() profiler.Algorithm { return profiler.Algorithm{Name: k.impl} }

// Close frees the C side's buffers.
func (k *kernel) Close() error {
	if k.op != nil {
		k.op.free()
		k.op = nil
	}
	return nil
}

// shortVersion is OpenBLAS's version from its configuration string
// ("OpenBLAS 0.3.21 NO_AFFINITY USE_OPENMP Haswell MAX_THREADS=64").
func shortVersion(config string) string {
	f := strings.Fields(config)
	if len(f) >= 2 && f[0] == "OpenBLAS" {
		return f[1]
	}
	return config
}

// Meter measures the machine as MeasureMachine does, on threads threads,
// without opening oneDNN (the FMA chains are wb's own C): for the pure-Go
// backend, whose rows are then predicted with the same measured figures
// as this backend's, not the device table's.
func Meter(threads int) profiler.MachineMeter { return &Backend{threads: threads} }

// CanMeasure says whether Meter can measure this machine: wb built with cgo,
// on a processor of AVX2 or AVX-512 FMAs.
func CanMeasure() bool { return isaWidth() > 0 }

// MeasureMachine measures the processor as the backend runs on it: the
// fp32 peak of its widest FMA on the backend's threads (register-only FMA
// chains, best of five runs of about 100 ms, so at the clock the cores
// really hold under that load), and the same for 256-bit FMAs where the
// widest is AVX-512 (OpenBLAS's Haswell kernels use those).
func (b *Backend) MeasureMachine() (profiler.Machine, error) {
	m := profiler.Machine{Threads: b.threads, Method: "fp32 FMA chains in registers on every thread, best of 5 runs of ~100 ms"}
	w := isaWidth()
	switch w {
	case 512:
		m.ISA = "avx512"
	case 256:
		m.ISA = "avx2"
	default:
		return m, fmt.Errorf("onednn: no AVX2/AVX-512 FMA to measure a peak with")
	}
	var err error
	if m.PeakFLOPs, err = measurePeak(w, b.threads, 100*time.Millisecond); err != nil {
		return m, err
	}
	if w == 512 {
		if m.PeakFLOPs256, err = measurePeak(256, b.threads, 100*time.Millisecond); err != nil {
			return m, err
		}
	}
	return m, nil
}

// probeIters is the FMA chain steps of one probe run: about 40 µs a run
// at 2 × 117 GFLOP/s with AVX-512 (12 chains of 16 lanes a step).
const probeIters = 12000

// Probe times the gate's probe (profiler.Gate): the FMA chains of
// MeasureMachine on every library thread for about 20–40 µs, each thread
// timing its own chains, the slowest thread's time, the fastest of three
// runs (3 × 0.1 ms with the threads' creation). It slows as the
// compute-bound passes do where a neighbour shares the cores (on the
// 2-core VM ~2× both). The time from the first thread's start to the last
// one's end, which it took until 2026-11-30, adds the threads' skew in
// starting: on the 2-core EPYC VM that span ran at a median 1.89× its
// fastest and over 1.6× in 63% of probes, the slowest thread's own time at
// 1.02× and over 1.6× in none of 942, and the span's slow probes fell on a
// 0.8 ms run's slow samples no more often than chance (101 of 257, where
// 110 were to be expected), so the gate held 783 of a resnet50 profile's
// measurements for 51 s on nothing.
func (b *Backend) Probe() (time.Duration, error) {
	w := isaWidth()
	if w == 0 {
		return 0, fmt.Errorf("onednn: no AVX2/AVX-512 FMA to probe with")
	}
	best := math.Inf(1)
	for range 3 {
		s, _ := probeRun(w, b.threads, probeIters)
		if s <= 0 {
			return 0, fmt.Errorf("onednn: probe failed (%d-bit FMA, %d threads)", w, b.threads)
		}
		best = min(best, s)
	}
	return time.Duration(best * 1e9), nil
}
