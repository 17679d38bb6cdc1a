package experiments

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// gaConfig is configs/ga-pai.yaml's workload on 3,000-pod windows at load
// 5000, where queues form, with GA on 1 and 3 workers.
const gaConfig = `name: ga-test
seed: 7
replicas: 2
workloads:
  - name: openb-on-PAI
    trace: ../datasets/data/openb/openb_pod_list_gpuspec33.csv.gz
    cluster: pai
    window: 3000
    gpu_models: {A10: T4, G2: MISC, G3: MISC, V100M16: V100, V100M32: V100M32, P100: P100, T4: T4}
schedulers:
  - {name: GA, placement: ga, estimate: exact}
  - {name: GA3, placement: ga, estimate: exact, ga: {workers: 3}}
  - {name: FF, placement: first-fit, estimate: exact}
sweep:
  load: [5000]
outputs: {timeseries_points: -1}
figures:
  - {kind: progress, metric: util}
`

// TestGAExperimentDeterministic: GA's results do not depend on its
// workers nor on the runner's parallelism, and the progress figure is
// drawn.
func TestGAExperimentDeterministic(t *testing.T) {
	var sums [][]byte
	for _, jobs := range []int{1, 2} {
		c, err := ParseConfig([]byte(gaConfig), filepath.Join("..", "configs", "ga-test.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		c.Out = t.TempDir()
		rep, err := Run(context.Background(), c, RunOptions{Jobs: jobs})
		if err != nil {
			t.Fatal(err)
		}
		files := readAll(t, c.Out)
		sums = append(sums, append(files[SummaryFile], files[JobsFile]...))
		n := 0
		for _, f := range rep.Files {
			if strings.Contains(f, "progress-util-openb-on-PAI.") {
				n++
			}
		}
		if n != 3 {
			t.Errorf("%d progress figure files, want 3 (png, pdf, svg): %v", n, rep.Files)
		}
		// GA's rows with 1 and with 3 workers are the same but for the
		// scheduler's name.
		var ga, ga3 []string
		for _, line := range strings.Split(string(files[JobsFile]), "\n") {
			f := strings.Split(line, ",")
			if len(f) < 3 {
				continue
			}
			key := strings.Join(append([]string{f[1]}, f[3:]...), ",")
			switch f[2] {
			case "GA":
				ga = append(ga, key)
			case "GA3":
				ga3 = append(ga3, key)
			}
		}
		if len(ga) == 0 || strings.Join(ga, "\n") != strings.Join(ga3, "\n") {
			t.Errorf("jobs.csv: GA with 1 worker (%d rows) and 3 workers (%d rows) differ", len(ga), len(ga3))
		}
	}
	if !bytes.Equal(sums[0], sums[1]) {
		t.Error("summary.csv and jobs.csv differ between --jobs 1 and --jobs 2")
	}
}
