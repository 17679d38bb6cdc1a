package cuda

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/profiler"
	"github.com/wb-sim/wb/profiler/cpu"
	"github.com/wb-sim/wb/profiler/nvml"
)

// noEnv reads every variable as unset.
func noEnv(string) string { return "" }

// TestNewWithoutLibraries opens on an empty file system: New fails with
// the discovery's message, not a panic.
func TestNewWithoutLibraries(t *testing.T) {
	root := t.TempDir()
	b, err := New(Options{Root: root, Getenv: noEnv, LibPath: "/opt/cuda/lib"})
	if err == nil {
		b.Close()
		t.Fatal("New opened with no libraries")
	}
	var nf *NotFoundError
	if !errors.As(err, &nf) || nf.Library.Key != "cuda" {
		t.Fatalf("error %v is not a *NotFoundError for libcuda", err)
	}
	for _, want := range []string{"libcuda.so.1 not found", "--cuda-lib-path", "WB_CUDA_LIB_PATH"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// TestNewOnThisMachine opens the backend the way wb does. Without a
// driver (CI, this repository's development machines) it must fail
// cleanly, naming what it searched; with a GPU it opens and says what.
func TestNewOnThisMachine(t *testing.T) {
	b, err := New(Options{})
	if err == nil {
		defer b.Close()
		d := b.Device()
		t.Logf("opened %s (predictor %q): %s", d.Name, d.Predictor, d.VersionString())
		return
	}
	t.Logf("no CUDA here: %v", err)
	var nf *NotFoundError
	var ce *Error
	switch {
	case errors.As(err, &nf):
		if !strings.Contains(err.Error(), "WB_CUDA_LIB_PATH") {
			t.Errorf("error %q does not say how to point wb at the libraries", err)
		}
	case errors.As(err, &ce):
		// libcuda is there but no device is (CUDA_ERROR_NO_DEVICE, a stub).
	default:
		if !strings.Contains(err.Error(), "loading ") && !strings.Contains(err.Error(), "lacks ") {
			t.Errorf("unexpected error %v", err)
		}
	}
}

// TestAutoFallsBackToCPU registers cuda before cpu, as wb does, with a
// cuda that cannot find its libraries: "auto" takes cpu and says why.
func TestAutoFallsBackToCPU(t *testing.T) {
	root := t.TempDir()
	var r profiler.Registry
	if err := r.Register("cuda", func() (profiler.Backend, error) {
		b, err := New(Options{Root: root, Getenv: noEnv})
		if err != nil {
			return nil, err
		}
		return b, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := r.Register("cpu", func() (profiler.Backend, error) {
		b, err := cpu.New()
		if err != nil {
			return nil, err
		}
		return b, nil
	}); err != nil {
		t.Fatal(err)
	}
	b, why, err := r.Open("auto")
	if err != nil {
		t.Fatal(err)
	}
	if b.Name() != "cpu" {
		t.Errorf("auto opened %s, want cpu", b.Name())
	}
	if want := "backend cpu (cuda: libcuda.so.1 not found)"; why != want {
		t.Errorf("why %q, want the one short line %q", why, want)
	}
	if _, _, err := r.Open("cuda"); err == nil || !strings.Contains(err.Error(), "backend cuda: libcuda.so.1 not found") {
		t.Errorf("asking for cuda: %v", err)
	}
}

// TestPrepareUnsupported checks the preparations that touch no library:
// ops without a CUDA kernel, ops whose library did not load, the update
// pass, and passes with nothing to do.
func TestPrepareUnsupported(t *testing.T) {
	b := &Backend{dnnErr: errors.New("libcudnn.so.9 not found"), ltErr: errors.New("libcublasLt.so.13 or libcublasLt.so.12 not found"),
		advErr: errors.New("libcudnn.so.9 not found"), rtcErr: errors.New("libnvrtc.so.13 or libnvrtc.so.12 not found")}
	byOp := map[dnn.Op]dnn.Layer{}
	for _, model := range []string{"resnet50", "lm", "bert-base", "cyclegan"} {
		net, err := dnn.Model(model)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range net.Nodes {
			if _, ok := byOp[n.Layer.Op()]; !ok {
				byOp[n.Layer.Op()] = n.Layer
			}
		}
	}
	for _, tc := range []struct {
		op   dnn.Op
		pass dnn.Pass
		says string
	}{
		{"conv2d", dnn.Forward, "cuDNN is unavailable: libcudnn.so.9 not found"},
		{"linear", dnn.BackwardData, "cuBLASLt is unavailable"},
		{"relu", dnn.Forward, "cuDNN is unavailable: libcudnn.so.9 not found"},
		{"maxpool", dnn.BackwardData, "cuDNN is unavailable: libcudnn.so.9 not found"},
		{"conv2d", dnn.Update, "NVRTC is unavailable: libnvrtc.so.13 or libnvrtc.so.12 not found"},
		{"linear", dnn.Update, "NVRTC is unavailable: libnvrtc.so.13 or libnvrtc.so.12 not found"},
		{"lstm", dnn.Forward, "cuDNN's RNN API is unavailable: libcudnn.so.9 not found"},
		{"lstm", dnn.BackwardWeights, "cuDNN's RNN API is unavailable"},
		{"embedding", dnn.Forward, "NVRTC is unavailable"},
		{"embedding", dnn.BackwardWeights, "NVRTC is unavailable"},
		{"instancenorm", dnn.Forward, "cuDNN is unavailable: libcudnn.so.9 not found"},
	} {
		l, ok := byOp[tc.op]
		if !ok {
			t.Fatalf("the models have no %s layer", tc.op)
		}
		_, err := b.Prepare(l, 2, tc.pass, dnn.FP32)
		if !errors.Is(err, profiler.ErrUnsupported) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s %s: error %v, want ErrUnsupported saying %q", tc.op, tc.pass, err, tc.says)
		}
	}
	// cuDNN loaded but its operations API did not bind: the ops it runs
	// say so (the convolutions would run).
	partial := &Backend{dnn: &cudnnAPI{}, opsErr: errors.New("libcudnn lacks cudnnPoolingForward"),
		rtcErr: errors.New("libnvrtc.so.13 or libnvrtc.so.12 not found")}
	if _, err := partial.Prepare(byOp["relu"], 2, dnn.Forward, dnn.FP32); !errors.Is(err, profiler.ErrUnsupported) ||
		!strings.Contains(err.Error(), "cuDNN's operations API is unavailable: libcudnn lacks cudnnPoolingForward") {
		t.Errorf("relu without the operations API: %v", err)
	}
	// Ops wb runs with its own kernels need NVRTC.
	bert, err := dnn.Model("bert-base")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range bert.Nodes {
		if op := n.Layer.Op(); op == dnn.OpGELU || op == dnn.OpLayerNorm {
			_, err := partial.Prepare(n.Layer, 2, dnn.Forward, dnn.FP16)
			if !errors.Is(err, profiler.ErrUnsupported) || !strings.Contains(err.Error(), "NVRTC is unavailable: libnvrtc.so.13 or libnvrtc.so.12 not found") {
				t.Errorf("%s: %v", op, err)
			}
		}
	}
	// relu has no weights: its bwd-weights does nothing, and prepares.
	k, err := b.Prepare(byOp["relu"], 2, dnn.BackwardWeights, dnn.FP32)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := k.Time(3)
	if err != nil || len(ds) != 3 || ds[0] != 0 {
		t.Errorf("a pass with nothing to do timed %v, %v", ds, err)
	}
	if err := k.Close(); err != nil {
		t.Error(err)
	}
	if _, err := b.Prepare(byOp["relu"], 0, dnn.Forward, dnn.FP32); err == nil {
		t.Error("batch 0 prepared")
	}
	if _, err := b.Prepare(byOp["relu"], 1, dnn.Forward, "fp8"); err == nil {
		t.Error("an unknown precision prepared")
	}
}

func TestDeviceFor(t *testing.T) {
	for _, tc := range []struct{ gpu, name, predictor string }{
		{"NVIDIA H100 80GB HBM3", "h100-sxm", "h100-sxm"},
		{"NVIDIA H100 PCIe", "h100-pcie", "h100-pcie"},
		{"NVIDIA H200", "h200-sxm", "h200-sxm"},
		{"NVIDIA A100-SXM4-80GB", "a100-80", "a100-80"},
		{"NVIDIA A100-PCIE-40GB", "a100-40-pcie", "a100-40-pcie"},
		{"Tesla V100-PCIE-32GB", "v100-pcie", "v100-pcie"},
		{"Tesla V100-PCIE-16GB", "cuda: Tesla V100-PCIE-16GB", "v100-pcie"},
		{"Tesla P100-PCIE-16GB", "p100-pcie", "p100-pcie"},
		{"Tesla V100-SXM2-16GB", "v100-16", "v100-16"},
		{"Tesla T4", "t4", "t4"},
		{"NVIDIA L4", "l4", "l4"},
		{"NVIDIA A10", "a10", "a10"},
		{"NVIDIA RTX 6000 Ada Generation", "cuda: NVIDIA RTX 6000 Ada Generation", ""},
	} {
		name, pred := deviceFor(tc.gpu)
		if name != tc.name || pred != tc.predictor {
			t.Errorf("deviceFor(%q) = %q, %q; want %q, %q", tc.gpu, name, pred, tc.name, tc.predictor)
		}
	}
}

func TestVersions(t *testing.T) {
	for _, tc := range []struct {
		v    int64
		want string
	}{{90100, "9.1.0"}, {91002, "9.10.2"}, {120405, "12.4.5"}, {130001, "13.0.1"}} {
		if got := version10000(tc.v); got != tc.want {
			t.Errorf("version10000(%d) = %q, want %q", tc.v, got, tc.want)
		}
	}
	const proc = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024\nGCC version:  gcc version 12.3.0\n"
	if got := parseDriverVersion(proc); got != "550.54.15" {
		t.Errorf("parseDriverVersion = %q", got)
	}
	const open = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release Build\n"
	if got := parseDriverVersion(open); got != "570.86.15" {
		t.Errorf("parseDriverVersion(open module) = %q", got)
	}
	if got := kernelDriverVersion(os.DevNull + "/missing"); got != "" {
		t.Errorf("missing file gave %q", got)
	}
	if got := cString([]byte("Tesla T4\x00\x00junk")); got != "Tesla T4" {
		t.Errorf("cString = %q", got)
	}
	if convAlgoName(dnn.Forward, 1) != "IMPLICIT_PRECOMP_GEMM" || convAlgoName(dnn.BackwardWeights, 3) != "ALGO_3" || convAlgoName(dnn.BackwardData, 42) != "algo 42" {
		t.Error("conv algorithm names")
	}
}

// TestFormatUUID: cuDeviceGetUuid's 16 bytes written as NVML writes the
// GPU's UUID, under the key the NVML package reads, so that telemetry
// samples the device the profile runs on.
func TestFormatUUID(t *testing.T) {
	u := [16]byte{0x5a, 0x3c, 0x0b, 0x5e, 0x2b, 0x7a, 0x11, 0xee, 0x80, 0x01, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x42}
	const want = "GPU-5a3c0b5e-2b7a-11ee-8001-deadbeef0042"
	if got := FormatUUID(u); got != want || len(got) != 40 { // NVML_DEVICE_UUID_ASCII_LEN 41, with the NUL
		t.Errorf("FormatUUID = %q, want %q", got, want)
	}
	if VersionUUID != nvml.DeviceUUIDKey {
		t.Errorf("the CUDA backend writes the UUID under %q, NVML reads %q", VersionUUID, nvml.DeviceUUIDKey)
	}
	for _, s := range []string{want, "GPU-5A3C0B5E-2B7A-11EE-8001-DEADBEEF0042", "MIG-5a3c0b5e-2b7a-11ee-8001-deadbeef0042"} {
		if !nvml.SameUUID(FormatUUID(u), s) {
			t.Errorf("%s is not the same device as %s", s, FormatUUID(u))
		}
	}
	if nvml.SameUUID(FormatUUID(u), FormatUUID([16]byte{})) {
		t.Error("two devices matched")
	}
}

// TestNewClosesOnError: New, once it has retained the primary context and
// created the stream, gives both back when a later step fails (the
// compute capability unreadable: they leaked), and opens on the driver
// alone where no other library is found, its Close giving them back too.
// libcuda is the recording fake; the file system is empty.
func TestNewClosesOnError(t *testing.T) {
	for _, tc := range []struct {
		name string
		fail map[string]int32
		err  string
	}{
		{"the compute capability unreadable", map[string]int32{"cuDeviceGetAttribute": 101}, "cuDeviceGetAttribute: CUDA_ERROR_INVALID_DEVICE"},
		{"no other library", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &Backend{opts: Options{Root: t.TempDir(), Getenv: noEnv}}
			lib := newFakeLibs(t)
			for k, v := range tc.fail {
				lib.fail[k] = v
			}
			for _, s := range b.drv.symbols() {
				lib.bind(s)
			}
			disc, fsys, root := b.opts.discover()
			got, err := b.open(disc, fsys, root)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || got != nil {
					t.Fatalf("open: %v, %v; want an error saying %q", got, err, tc.err)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if v := got.Device().Versions; v["cublaslt"] != "unavailable" || v["nvrtc"] != "unavailable" || v[VersionFill] != fillConstant {
					t.Errorf("versions %v", v)
				}
				if err := got.Close(); err != nil {
					t.Fatal(err)
				}
			}
			n := map[string]int{}
			for _, c := range lib.calls {
				n[c.name]++
			}
			if n["cuStreamCreate"] != 1 || n["cuStreamDestroy_v2"] != 1 || n["cuDevicePrimaryCtxRetain"] != 1 || n["cuDevicePrimaryCtxRelease_v2"] != 1 {
				t.Errorf("stream created %d, destroyed %d; context retained %d, released %d", n["cuStreamCreate"], n["cuStreamDestroy_v2"],
					n["cuDevicePrimaryCtxRetain"], n["cuDevicePrimaryCtxRelease_v2"])
			}
		})
	}
}
