package synthetic

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/wb-sim/wb/scheduler"
)

func TestGenerateProperties(t *testing.T) {
	p := Params{Jobs: 20000, Procs: 128}
	jobs, err := Generate(p, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	var pow2, sumGap float64
	for i, j := range jobs {
		if err := j.Validate(); err != nil {
			t.Fatal(err)
		}
		procs := int(j.Tasks[0].Request.CPU / scheduler.MilliPerCore)
		if procs < 1 || procs > 128 {
			t.Fatalf("job %d: %d procs", j.ID, procs)
		}
		if bits.OnesCount(uint(procs)) == 1 {
			pow2++
		}
		if j.Run < 10 || j.Run > 86400 || j.UserEstimate < j.Run || float64(j.UserEstimate) > 5*float64(j.Run)+1 {
			t.Fatalf("job %d: run %d, estimate %d", j.ID, j.Run, j.UserEstimate)
		}
		if i > 0 {
			if j.Submit < jobs[i-1].Submit {
				t.Fatal("submit times decrease")
			}
			sumGap += float64(j.Submit - jobs[i-1].Submit)
		}
	}
	// 75% powers of two plus the uniform draws that happen to be one
	// (8 of 128): 0.75 + 0.25 × 8/128 = 0.7656; 4 standard errors ≈ 0.012.
	if f := pow2 / float64(len(jobs)); math.Abs(f-0.7656) > 0.012 {
		t.Errorf("power-of-two share %.4f, want 0.7656 ± 0.012", f)
	}
	// Exponential gaps of mean 600 s (truncation to whole seconds lowers
	// the mean by about 0.5 s); standard error 600/√20000 ≈ 4.2 s.
	if m := sumGap / float64(len(jobs)-1); math.Abs(m-599.5) > 17 {
		t.Errorf("mean inter-arrival %.1f s, want 599.5 ± 17", m)
	}
}

func TestDeterministic(t *testing.T) {
	p := Params{Jobs: 100, Procs: 64}
	a, _ := Generate(p, rand.New(rand.NewPCG(7, 0)))
	b, _ := Generate(p, rand.New(rand.NewPCG(7, 0)))
	c, _ := Generate(p, rand.New(rand.NewPCG(7, 1)))
	if !reflect.DeepEqual(a, b) {
		t.Error("same stream, different workloads")
	}
	if reflect.DeepEqual(a, c) {
		t.Error("different streams, same workload")
	}
}

func TestExactEstimates(t *testing.T) {
	jobs, err := Generate(Params{Jobs: 100, Procs: 8, EstimateFactor: 1}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range jobs {
		if j.UserEstimate != j.Run {
			t.Fatalf("job %d: estimate %d, run %d", j.ID, j.UserEstimate, j.Run)
		}
	}
}

func TestValidate(t *testing.T) {
	neg := -0.5
	err := Params{Jobs: 0, Procs: -1, MeanInterarrival: -1, MinRuntime: 100, MaxRuntime: 10, PowerOfTwo: &neg, EstimateFactor: 0.5}.Validate()
	for _, want := range []string{"jobs: 0", "procs: -1", "mean_interarrival: -1", "min_runtime 100, max_runtime 10", "power_of_two: -0.5", "estimate_factor: 0.5"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("errors lack %q: %v", want, err)
		}
	}
}
