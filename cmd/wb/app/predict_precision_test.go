package app

import (
	"strings"
	"testing"
)

// A precision the device has no arithmetic of is computed at its fp32 rate,
// and said to be (a V100 has no bf16); one it has is not noted. NVLink
// asked of a GPU without it is one error, not two that disagree.
func TestPredictPrecisionFallbackNoted(t *testing.T) {
	out, err := wb(t, "predict", "resnet50", "--device", "v100", "--batch", "8", "--precision", "bf16")
	if err != nil || !strings.Contains(out, "note: v100 has no bf16 arithmetic: computed at its fp32 rate, with bf16's bytes") {
		t.Errorf("bf16 on a V100: %v\n%s", err, out)
	}
	if out, err := wb(t, "predict", "resnet50", "--device", "v100", "--batch", "8", "--precision", "fp16"); err != nil || strings.Contains(out, "note:") {
		t.Errorf("fp16 on a V100: %v\n%s", err, out)
	}
	_, err = wb(t, "predict", "resnet50", "--device", "k80", "--gpus", "2", "--interconnect", "nvlink")
	if err == nil || !strings.Contains(err.Error(), "device k80 has no NVLink (use pcie)") || strings.Contains(err.Error(), "no link between devices") {
		t.Errorf("NVLink on a K80: %v", err)
	}
	// a PCIe card's NVLink bridge joins two cards (4 were timed at its
	// 240 GB/s); a measured bus bandwidth is a ring's; an empty --comm is
	// not the ring; --interconnect beside --allreduce-gbps went unused
	for args, want := range map[string]string{
		"--device h100-pcie --gpus 4 --interconnect nvlink":               "its NVLink is a bridge that joins two cards, not 4",
		"--device v100 --gpus 8 --allreduce-gbps 100 --comm tree":         "communication tree with an all-reduce bandwidth",
		"--device v100 --gpus 8 --comm=":                                  "--comm is empty",
		"--device v100 --gpus 4 --interconnect pcie --allreduce-gbps 100": "--interconnect and --allreduce-gbps both set",
	} {
		_, err := wb(t, append([]string{"predict", "resnet50", "--batch", "8"}, strings.Fields(args)...)...)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", args, err, want)
		}
	}
	if _, err := wb(t, "predict", "resnet50", "--batch", "8", "--device", "h100-pcie", "--gpus", "2", "--interconnect", "nvlink"); err != nil {
		t.Errorf("two bridged cards: %v", err)
	}
}

// More GPUs than a node holds are timed on the node's link unless
// --allreduce-gbps says otherwise: said; --top 0 prints no layer table.
func TestPredictBeyondANode(t *testing.T) {
	out, err := wb(t, "predict", "resnet50", "--device", "v100", "--gpus", "16")
	if err != nil || !strings.Contains(out, "note: 16 GPUs are more than a node's 8") {
		t.Errorf("16 GPUs: %v\n%s", err, out)
	}
	// --json carries it too (a script reads only stdout)
	if out, err := wb(t, "predict", "resnet50", "--device", "v100", "--gpus", "16", "--json"); err != nil || !strings.Contains(out, `"notes": [`) || !strings.Contains(out, "16 GPUs are more than a node's 8") {
		t.Errorf("16 GPUs, --json: %v\n%s", err, out)
	}
	if out, err := wb(t, "predict", "resnet50", "--device", "v100", "--gpus", "16", "--allreduce-gbps", "10"); err != nil || strings.Contains(out, "more than a node's") {
		t.Errorf("16 GPUs with --allreduce-gbps: %v\n%s", err, out)
	}
	if out, err := wb(t, "predict", "resnet50", "--device", "v100", "--top", "0"); err != nil || strings.Contains(out, "fwd ms") || !strings.Contains(out, "iteration") {
		t.Errorf("--top 0: %v\n%s", err, out)
	}
}
