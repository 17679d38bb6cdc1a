package experiments

import (
	"slices"
	"strings"
	"testing"
)

func TestProgressCurve(t *testing.T) {
	// Capacity 4 GPUs. Job 0 runs [0, 10) on 2 GPUs, job 1 [0, 5) on 1,
	// job 2 [5, 20) on 2 (job 1 has left when it starts), job 3 [10, 10)
	// on 0.5 (job 0 has left; a job ending at 10 leaves before those
	// starting at 10), job 4 [10, 30) on 1 (job 3, started at 10, is
	// still counted).
	jobs := []progressJob{
		{0, 10, 2, 0}, {0, 5, 1, 1}, {5, 20, 2, 2}, {10, 10, 0.5, 3}, {10, 30, 1, 4},
	}
	got := progressOf(jobs, 4).Util
	want := []float64{2.0 / 4, 3.0 / 4, 4.0 / 4, 2.5 / 4, 3.5 / 4}
	if !slices.Equal(got, want) {
		t.Errorf("curve %v, want %v", got, want)
	}
	if m := (ProgressCurve{Util: want}).Mean(); m != (2+3+4+2.5+3.5)/4/5 {
		t.Errorf("mean %v", m)
	}
}

func TestProgressFigureValidation(t *testing.T) {
	cfg := `name: p
workloads: [{trace: x.swf}]
schedulers: [{placement: ga, ga: {population: 1}}, {placement: tetris, ga: {}}]
outputs: {jobs: none}
figures: [{kind: progress, metric: queue}]
`
	_, err := ParseConfig([]byte(cfg), "p.yaml")
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		"figures[0].metric: want util",
		"figures[0]: a progress figure needs jobs.csv",
		"schedulers[0].ga: ga: population 1",
		`schedulers[1].ga: parameters of placement ga, but the placement is "tetris"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}
