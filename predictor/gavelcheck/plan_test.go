package gavelcheck_test

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wb-sim/wb/experiments"
	"github.com/wb-sim/wb/predictor/gavelcheck"
)

// TestPlanNoise holds configs/plan.yaml's sensitivity workload to the
// validation it quotes: it draws its noise with the spread of log(predicted
// / measured time) of wb predict --validate gavel --gpu-model (two
// decimals), and each GPU's run times it names with that GPU's spread.
func TestPlanNoise(t *testing.T) {
	v := gavelcheck.GPUModelValidation(t)
	_, sd := v.LogError()
	byGPU := v.LogErrorByGPU()
	c, err := experiments.LoadConfig(filepath.Join("..", "..", "configs", "plan.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	noisy := 0
	for _, w := range c.Workloads {
		if w.RunNoise > 0 {
			noisy++
			if want := math.Round(100*sd) / 100; w.RunNoise != want {
				t.Errorf("plan.yaml %s: run_noise %g, the validation's σ is %.2f: set it", w.Name, w.RunNoise, want)
			}
			for g, s := range w.RunNoiseGPUs {
				e, ok := byGPU[strings.ToLower(g)]
				if want := math.Round(100*e[1]) / 100; !ok || s != want {
					t.Errorf("plan.yaml %s: run_noise_gpus.%s %g, the validation's σ on that GPU is %.2f: set it", w.Name, g, s, want)
				}
			}
		}
	}
	if noisy == 0 {
		t.Error("plan.yaml has no workload with run_noise: the check checks nothing")
	}
}
