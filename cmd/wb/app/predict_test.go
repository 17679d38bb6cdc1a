package app

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/wb-sim/wb/predictor"
	"github.com/wb-sim/wb/predictor/gpu"
	"github.com/wb-sim/wb/profiler/cpu"
)

// A prediction of a job with work no figure times says so, in text and
// in JSON; one without says nothing.
func TestPredictUntimed(t *testing.T) {
	out, err := wb(t, "predict", "a3c", "--device", "v100", "--batch", "20")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "not timed: the Atari emulator's steps") || !strings.Contains(out, "the iteration is a lower bound") {
		t.Errorf("a3c without its untimed work:\n%s", out)
	}
	out, err = wbOut(t, "predict", "a3c", "--device", "v100", "--batch", "20", "--json")
	var p struct {
		Untimed string `json:"untimed"`
	}
	if err != nil || json.Unmarshal([]byte(out), &p) != nil || !strings.Contains(p.Untimed, "Atari") {
		t.Errorf("--json untimed %q (%v)", p.Untimed, err)
	}
	if out, err := wb(t, "predict", "resnet50", "--device", "v100"); err != nil || strings.Contains(out, "not timed") {
		t.Errorf("resnet50: %v\n%s", err, out)
	}
}

func TestPredict(t *testing.T) {
	out, err := wb(t, "predict", "resnet50", "--device", "v100", "--batch", "128", "--precision", "fp32", "--gpus", "8", "--interconnect", "nvlink")
	if err != nil {
		t.Fatal(err)
	}
	// the roofline alone says the GPU op model exists (the two can rank
	// GPUs differently)
	for _, want := range []string{"resnet50 on 8 × NVIDIA V100", "layer4.0.conv2", "iteration", "ring all-reduce of 102.2 MB", "samples/s",
		"timed by the analytical model (roofline); --gpu-model times the passes it covers with the GPU op model"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, err = wbOut(t, "predict", "gpt2", "--device", "h100", "--batch", "4", "--precision", "bf16", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Iteration        float64 `json:"iteration_s"`
		SamplesPerSecond float64 `json:"samples_per_s"`
		HostPerOperator  float64 `json:"host_per_operator_s"`
		Layers           []struct {
			Name   string  `json:"name"`
			TotalS float64 `json:"total_s"`
			Bound  string  `json:"bound"`
		} `json:"layers"`
	}
	if err := json.Unmarshal([]byte(out), &p); err != nil || p.Iteration <= 0 || len(p.Layers) == 0 || p.SamplesPerSecond <= 0 {
		t.Errorf("--json: %v %+v", err, p)
	}
	// the host's cost per operator applied is printed, not the option's 0
	if p.HostPerOperator != predictor.DefaultKernelOverhead(predictor.KindGPU) {
		t.Errorf("--json: host per operator %v s, want the default %v s", p.HostPerOperator, predictor.DefaultKernelOverhead(predictor.KindGPU))
	}
	sum := 0.0
	for _, l := range p.Layers {
		sum += l.TotalS
		if l.Bound != "compute" && l.Bound != "memory" && l.Bound != "host" {
			t.Errorf("--json: layer %s bound %q", l.Name, l.Bound)
		}
	}
	if sum <= 0 || sum > p.Iteration*(1+1e-9) {
		t.Errorf("--json: layers sum to %v s, iteration %v s", sum, p.Iteration)
	}
}

// TestPredictGPUModel checks that --gpu-model times ResNet-50's
// convolutions with the GPU op model: the prediction differs from the
// analytical one and stays within a factor of two of it.
func TestPredictGPUModel(t *testing.T) {
	iter := func(args ...string) float64 {
		out, err := wbOut(t, append([]string{"predict", "resnet50", "--device", "v100", "--batch", "64", "--json"}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		var p struct {
			Iteration float64 `json:"iteration_s"`
		}
		if err := json.Unmarshal([]byte(out), &p); err != nil || !(p.Iteration > 0) {
			t.Fatalf("--json: %v %+v", err, p)
		}
		return p.Iteration
	}
	a, m := iter(), iter("--gpu-model")
	if a == m || m > 2*a || m < a/2 {
		t.Errorf("iteration %g s with --gpu-model, %g s analytical: want a different figure within 2×", m, a)
	}
	// the K80's kernels are scaled as the model estimate scales them, and
	// the output says so; the V100's are not
	for dev, scaled := range map[string]bool{"k80": true, "v100": false} {
		out, err := wb(t, "predict", "resnet50", "--device", dev, "--batch", "64", "--gpu-model")
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(out, fmt.Sprintf("device time × %.2f", gpu.DeviceScales["k80"])); got != scaled {
			t.Errorf("%s: device scale line shown %v, want %v:\n%s", dev, got, scaled, out)
		}
		// the header says which model timed it, as --json does
		if !strings.Contains(out, "\ntimed by the GPU op model (learned from NeuSight's measured GPU ops, fp32)") {
			t.Errorf("%s: the output does not say the GPU op model timed it:\n%s", dev, out)
		}
	}
	out, err := wbOut(t, "predict", "resnet50", "--device", "v100", "--batch", "64", "--json")
	if err != nil || !strings.Contains(out, `"timed_by": "the analytical model (roofline)"`) {
		t.Errorf("--json of the analytical model: %v\n%.400s", err, out)
	}
}

func TestPredictErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"predict", "resnet51"}, `unknown model "resnet51" (known: `},
		{[]string{"predict", "resnet50", "--device", "tpu"}, `unknown device "tpu" (known: `},
		{[]string{"predict", "bert-large", "--list"}, "--list lists every model and device; it takes no model (bert-large)"},
		{[]string{"predict", "resnet50", "--device", "rtx4090"}, `; a GPU the table lacks is predicted from its spec sheet: --device-spec FILE.json`},
		{[]string{"predict", "resnet50", "--batch", "0"}, "--batch 0: want 1 to 16777216"},
		{[]string{"predict", "resnet50", "--gpus", "-2"}, "--gpus -2: want 1 to 1048576"},
		{[]string{"predict", "resnet50", "--precision", "int8"}, `unknown precision "int8"`},
		{[]string{"predict", "resnet50", "--device", "t4", "--interconnect", "nvlink", "--gpus", "2"}, "has no NVLink"},
		{[]string{"predict"}, "want one model"},
		{[]string{"predict", "--validate", "mlperf"}, `unknown validation "mlperf"`},
		{[]string{"predict", "resnet50", "--gpu-model", "--precision", "fp16"}, "--gpu-model predicts fp32 alone"},
		{[]string{"predict", "bert-large", "--device-spec", "NVIDIA_L4", "--precision", "bf16"}, "--precision bf16: the GPU op model learned from fp32 kernels only"},
		{[]string{"predict", "resnet50", "--gpu-model", "--device", "cpu"}, "--gpu-model: gpu: "},
		{[]string{"predict", "resnet50", "--interconnect", "pcie"}, "--interconnect sets how data-parallel GPUs work together: it needs --gpus 2 or more"},
		{[]string{"predict", "resnet50", "--allreduce-gbps", "10"}, "--allreduce-gbps sets how data-parallel GPUs"},
		{[]string{"predict", "resnet50", "--comm", "tree"}, "--comm sets how data-parallel GPUs"},
		{[]string{"predict", "resnet50", "--device", "cpu", "--gpus", "2"}, "has no link between devices to exchange gradients over"},
	}
	for _, tt := range tests {
		_, err := wb(t, tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("wb %s: error %v, want %q", strings.Join(tt.args, " "), err, tt.want)
		}
	}
}

func TestPredictList(t *testing.T) {
	out, err := wb(t, "predict", "--list")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"resnet50", "vgg16", "alexnet", "inception_v3", "bert-base", "gpt2", "transformer", "lm", "recommendation", "a3c", "cyclegan", "resnet18-cifar", "k80", "v100", "h100-sxm", "h200-sxm"} {
		if !strings.Contains(out, "\n"+want+" ") && !strings.HasPrefix(out, want) {
			t.Errorf("--list lacks %s", want)
		}
	}
}

func TestPredictValidate(t *testing.T) {
	out, err := wb(t, "predict", "--validate", "gavel")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "all 78") || !strings.Contains(out, "ResNet-50 (batch size 128)") {
		t.Errorf("validation output:\n%s", out)
	}
}

// TestOtherMachineNote: a CPU correction learned on another machine warns,
// and a GPU correction applied to another GPU; one learned here, on the GPU
// predicted (named as the table or as CUDA names it) and one that does not
// say are silent.
func TestOtherMachineNote(t *testing.T) {
	cpuDev := predictor.LocalCPU()
	gpuDev, err := predictor.LookupDevice("v100")
	if err != nil {
		t.Fatal(err)
	}
	l := &predictor.Learned{}
	if n := otherMachineNote(l, &cpuDev); n != "" {
		t.Errorf("no devices recorded: %q", n)
	}
	l.Train.Devices = []string{cpu.DeviceName()}
	if n := otherMachineNote(l, &cpuDev); n != "" {
		t.Errorf("learned here: %q", n)
	}
	l.Train.Devices = []string{"cpu: Elsewhere 9000, 64 cores"}
	if n := otherMachineNote(l, &cpuDev); !strings.Contains(n, "cpu: Elsewhere 9000, 64 cores") || !strings.Contains(n, cpu.DeviceName()) ||
		!strings.Contains(n, "it records none of that machine's figures: this machine's fp32 peak and memory bandwidth stand in") {
		t.Errorf("learned elsewhere, no machine recorded: %q", n)
	}
	l.CPU = &predictor.ProfiledCPU{PeakFLOPs: 9e11, MemBandwidth: 5e10}
	if n := otherMachineNote(l, &cpuDev); !strings.Contains(n, "it predicts that machine, from the peak and bandwidth its profiles measured") {
		t.Errorf("learned elsewhere, its machine recorded: %q", n)
	}
	l.CPU = nil
	l.Train.Devices = []string{"v100"}
	if n := otherMachineNote(l, gpuDev); n != "" {
		t.Errorf("learned on the V100, predicting it: %q", n)
	}
	l.Train.Devices = []string{"cuda: " + gpuDev.CUDANames[0]}
	if n := otherMachineNote(l, gpuDev); n != "" {
		t.Errorf("learned on the V100 as CUDA names it, predicting it: %q", n)
	}
	k80, err := predictor.LookupDevice("k80")
	if err != nil {
		t.Fatal(err)
	}
	if n := otherMachineNote(l, k80); !strings.Contains(n, "warning: learned from profiles of cuda: "+gpuDev.CUDANames[0]+", not of k80") {
		t.Errorf("learned on the V100, predicting the K80: %q", n)
	}
}
