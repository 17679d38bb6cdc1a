//go:build cgo

package onednn_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/wb-sim/wb/dnn"
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

// TestMatmulComputes checks a batched product's forward and backward
// (both inputs' gradients, as wb_matmul computes them in bwd-data)
// against plain double sums, with b as stored and transposed (attention's
// q·kᵀ).
func TestMatmulComputes(t *testing.T) {
	newBackend(t)
	for _, pass := range []dnn.Pass{dnn.Forward, dnn.BackwardData} {
		for _, transB := range []bool{false, true} {
			for _, s := range [][4]int{{1, 3, 5, 7}, {12, 16, 16, 8}, {2, 33, 17, 65}} {
				d, err := onednn.MatmulCheck(pass, s[0], s[1], s[2], s[3], transB)
				if err != nil {
					t.Fatal(err)
				}
				if d > 1e-5 {
					t.Errorf("matmul %v %d×[%d×%d·%d×%d] transB %v: off by %.3g (relative)", pass, s[0], s[1], s[3], s[3], s[2], transB, d)
				}
			}
		}
	}
}

// TestBatchNormComputes checks a batch norm's forward (the batch's mean
// and 1/σ, and y) and backward (dx, dw, db) against the formulas in double,
// on one thread (one channel) and on the team (ATen's grain over channels
// is one), with planes shorter than a vector (ATen's slow reduction), with
// a partial last vector (49 values: 6 and 1) and with whole ones.
func TestBatchNormComputes(t *testing.T) {
	newBackend(t)
	for _, pass := range []dnn.Pass{dnn.Forward, dnn.BackwardData} {
		for _, s := range [][3]int{{3, 1, 50}, {1, 3, 5}, {2, 64, 49}, {4, 16, 1024}} {
			d, err := onednn.BnormCheck(pass, s[0], s[1], s[2])
			if err != nil {
				t.Fatal(err)
			}
			if d > 1e-4 {
				t.Errorf("batch norm %v %d×%d×%d: off by %.3g (relative)", pass, s[0], s[1], s[2], d)
			}
		}
	}
}

// TestLSTMComputes checks an LSTM stack's forward (every layer's outputs
// and cells at every step) against torch.nn.LSTM's recurrence in double,
// its backward data (every layer's pre-activation and input gradients,
// from the forward's saved values) against backpropagation through time in
// double, and its backward weights (dW_ih, dW_hh, the bias's gradient)
// against sums in double: one layer, two (the second reading the
// first's outputs) and eight, the most the shim holds.
func TestLSTMComputes(t *testing.T) {
	newBackend(t)
	for _, pass := range []dnn.Pass{dnn.Forward, dnn.BackwardData, dnn.BackwardWeights} {
		for _, s := range [][5]int{{1, 1, 3, 2, 1}, {5, 3, 7, 6, 1}, {4, 2, 16, 12, 2}, {3, 2, 5, 4, 8}} { // eight layers: the most the shim holds
			d, err := onednn.LSTMCheck(pass, s[0], s[1], s[2], s[3], s[4])
			if err != nil {
				t.Fatal(err)
			}
			if d > 1e-5 {
				t.Errorf("LSTM %v, %d steps × %d, %d → %d, %d layers: off by %.3g (relative)", pass, s[0], s[1], s[2], s[3], s[4], d)
			}
		}
	}
}

// TestMaxPoolComputes checks max pooling's forward (each output the first
// maximum of its window, and its index) and backward (each output's
// gradient added at that index) against ATen's rule in double, on values
// with ties: resnet's 3×3 stride 2 padding 1, overlapping windows on one
// plane, and a plane count over the team's grain.
func TestMaxPoolComputes(t *testing.T) {
	newBackend(t)
	for _, pass := range []dnn.Pass{dnn.Forward, dnn.BackwardData} {
		for _, s := range [][10]int{
			{1, 3, 9, 9, 3, 3, 2, 2, 1, 1},
			{1, 1, 7, 5, 3, 2, 1, 1, 0, 0},
			{2, 64, 16, 16, 2, 2, 2, 2, 0, 0},
		} {
			d, err := onednn.MaxpoolCheck(pass, s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9])
			if err != nil {
				t.Fatal(err)
			}
			if d > 1e-6 {
				t.Errorf("max pooling %v %v: off by %.3g (relative; 1 for a wrong index)", pass, s, d)
			}
		}
	}
}

// TestGlobalAvgPoolComputes checks global average pooling's forward as
// ATen's mean (each plane's mean), on one thread (under ATen's grain) and
// on the team (above it: 2×64×16×16 is 32,768 values).
func TestGlobalAvgPoolComputes(t *testing.T) {
	newBackend(t)
	for _, s := range [][4]int{{1, 3, 7, 7}, {1, 5, 1, 13}, {2, 64, 16, 16}, {1, 2048, 7, 7}} {
		d, err := onednn.GAPCheck(s[0], s[1], s[2], s[3])
		if err != nil {
			t.Fatal(err)
		}
		if d > 1e-5 {
			t.Errorf("global average pooling %v: off by %.3g (relative)", s, d)
		}
	}
}

// TestDropoutComputes checks a dropout's forward (a noise of zeros and
// 1/(1 − p), p of it zeros, multiplied in) and backward (the gradient times
// the noise), on one thread (under ATen's grain) and on the team (above it).
func TestDropoutComputes(t *testing.T) {
	newBackend(t)
	for _, pass := range []dnn.Pass{dnn.Forward, dnn.BackwardData} {
		for _, n := range []int{7, 4096, 200000} {
			d, err := onednn.DropoutCheck(pass, n)
			if err != nil {
				t.Fatal(err)
			}
			if d > 1e-6 {
				t.Errorf("dropout %v of %d values: off by %.3g (relative; 1e9: a bad noise)", pass, n, d)
			}
		}
	}
}

// TestActivationComputes checks ReLU, leaky ReLU (slope 0.2), GELU (tanh
// approximation), tanh, sigmoid and SiLU, forward and backward, as ATen
// computes them, against the formulas in double over −10 … 10, on one
// thread and on the team.
func TestActivationComputes(t *testing.T) {
	newBackend(t)
	for alg, name := range map[int]string{0: "leakyrelu", 1: "gelu", 2: "tanh", 3: "sigmoid", 4: "silu", 5: "relu"} {
		for _, pass := range []dnn.Pass{dnn.Forward, dnn.BackwardData} {
			for _, n := range []int{9, 4001, 100000} {
				d, err := onednn.ActCheck(alg, pass, n)
				if err != nil {
					t.Fatal(err)
				}
				if d > 2e-6 {
					t.Errorf("%s %v of %d values: off by %.3g (relative)", name, pass, n, d)
				}
				t.Logf("%s %v of %d values: off by %.3g", name, pass, n, d)
			}
		}
	}
}

// TestLayerNormComputes checks a layer norm's forward (each row's mean,
// 1/σ and outputs) and backward (dx, dγ, dβ) against sums in double: rows
// shorter than a vector, with a tail, of several chunks (the cascade),
// one row and many.
func TestLayerNormComputes(t *testing.T) {
	newBackend(t)
	for _, pass := range []dnn.Pass{dnn.Forward, dnn.BackwardData} {
		for _, s := range [][2]int{{1, 5}, {3, 37}, {128, 768}, {2, 8200}} {
			d, err := onednn.LnormCheck(pass, s[0], s[1])
			if err != nil {
				t.Fatal(err)
			}
			if d > 1e-5 {
				t.Errorf("layer norm %v %d×%d: off by %.3g (relative)", pass, s[0], s[1], d)
			}
			t.Logf("layer norm %v %d×%d: off by %.3g", pass, s[0], s[1], d)
		}
	}
}

// TestSoftmaxComputes checks a softmax over the last dimension, forward
// (Sleef's exp, the sum, the product) and backward, against the formulas
// in double: rows shorter than a vector, with a tail, few rows and many.
func TestSoftmaxComputes(t *testing.T) {
	newBackend(t)
	for _, pass := range []dnn.Pass{dnn.Forward, dnn.BackwardData} {
		for _, s := range [][3]int{{1, 1, 5}, {2, 3, 37}, {12, 128, 128}, {1, 35, 3000}} {
			d, err := onednn.SoftmaxCheck(pass, s[0], s[1], s[2])
			if err != nil {
				t.Fatal(err)
			}
			if d > 1e-5 {
				t.Errorf("softmax %v %d×%d×%d: off by %.3g (relative)", pass, s[0], s[1], s[2], d)
			}
			t.Logf("softmax %v %d×%d×%d: off by %.3g", pass, s[0], s[1], s[2], d)
		}
	}
}

// TestComputesUnderThreadLimit runs the compute checks again in a process
// whose OpenMP regions get one thread (OMP_THREAD_LIMIT=1) while wb asks
// for two: the ATen-style loops must still cover every value (their
// chunks were sized for the team asked, not got, and left values
// unwritten) and OpenBLAS's OpenMP build must not wait for threads that
// never come (a linear layer's product hung so: wb now holds its threads
// to the limit). A reviewer's finds.
func TestComputesUnderThreadLimit(t *testing.T) {
	if os.Getenv("WB_THREAD_LIMIT_CHILD") != "" {
		t.Skip("(the child process: the checks themselves run)")
	}
	newBackend(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "-test.run", "^(TestLinearComputes|TestActivationComputes|TestLayerNormComputes|TestBatchNormComputes)$", "-test.count=1")
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1", "GOMAXPROCS=2", "WB_THREAD_LIMIT_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PASS") {
		t.Errorf("the compute checks under OMP_THREAD_LIMIT=1: %v\n%s", err, out)
	}
}

// TestMT19937KnownAnswer: the dropout's generator is mt19937 (std::mt19937,
// PyTorch's CPU generator): seeded 5489, its first number is 3499211612
// and its 10,000th 4123659995 (the C++ standard's check, [rand.predef]),
// through several twists of its state.
func TestMT19937KnownAnswer(t *testing.T) {
	newBackend(t)
	if got := onednn.MTNth(5489, 1); got != 3499211612 {
		t.Errorf("first number %d, want 3499211612", got)
	}
	if got := onednn.MTNth(5489, 10000); got != 4123659995 {
		t.Errorf("10,000th number %d, want 4123659995", got)
	}
}
