package experiments

import (
	"bytes"
	"strings"
	"testing"

	"github.com/wb-sim/wb/predictor"
)

// TestValidateGavel pins the uncalibrated analytical model's errors against
// Gavel's measured solo throughputs (testdata/gavel-validation.golden;
// rerun with -update after a deliberate change to the model or the zoo),
// and checks the part of the data the model should get right: large-batch
// convolutional training on the P100 and V100, where the GPU is busy,
// within 25% — the error roofline models reach on GPU-bound layers in the
// literature (Paleo reports 10–30% per network; Qi et al., ICLR 2017).
func TestValidateGavel(t *testing.T) {
	v, err := ValidateGavel(predictor.Roofline)
	if err != nil {
		t.Fatal(err)
	}
	// 26 job types at scale factor 1 on 3 GPUs, each measured alone.
	if len(v.Rows) != 78 {
		t.Errorf("%d rows, want 78", len(v.Rows))
	}
	for _, r := range v.Rows {
		if (r.Model == "resnet50" && r.Batch >= 64 && r.GPU != "k80") || (r.Model == "resnet18-cifar" && r.Batch >= 128 && r.GPU != "k80") {
			if r.Error > 0.25 {
				t.Errorf("%s on %s: predicted %.3f it/s, measured %.3f (%.0f%% off)", r.JobType, r.GPU, r.Predicted, r.Measured, 100*r.Error)
			}
		}
	}
	var b bytes.Buffer
	if err := v.Print(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "all 78") {
		t.Errorf("no overall line:\n%s", b.String())
	}
	golden(t, "gavel-validation.golden", b.Bytes())
}
