//go:build cgo

package onednn_test

import (
	"testing"

	"github.com/wb-sim/wb/profiler/onednn"
)

// TestLinearComputes checks that the kernels a linear layer's forward is
// timed with compute it: y = x·Wᵀ + b against a plain double sum, with the
// bias copied on the calling thread (outputs under ATen's grain of 32,768
// values) and on the OpenMP team (above it), and without a bias. Until
// 2026-11-25 the sgemm ran with beta 0 after the bias was added, so y
// lacked it.
func TestLinearComputes(t *testing.T) {
	newBackend(t) // loads the libraries, or skips where they are missing
	for _, c := range []struct {
		rows, k, n int
		bias       bool
	}{
		{1, 2048, 1000, true}, // resnet50's classifier at batch 1: the copy on the calling thread
		{3, 5, 7, true},
		{128, 768, 768, true}, // bert-base's projections: 98,304 values, the copy on the team
		{33, 64, 1000, true},  // 33,000 values: just over the grain, rows split mid-row
		{128, 768, 768, false},
	} {
		d, err := onednn.LinearCheck(c.rows, c.k, c.n, c.bias)
		if err != nil {
			t.Fatal(err)
		}
		if d > 1e-5 {
			t.Errorf("linear %d×%d → %d, bias %v: output off x·Wᵀ + b by %.3g (relative)", c.rows, c.k, c.n, c.bias, d)
		}
	}
}
