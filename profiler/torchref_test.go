package profiler_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/wb-sim/wb/profiler"
)

// TestTorchReferenceStatistics checks the statistics scripts/torch_reference.py
// compares wb's profiles with (make torch-check): its 10th percentile is the
// one wb's profiles write as p10_s (profiler.StatsOf), its fastest and median
// are the plain ones, and over several sittings the 10th percentile is the
// lowest sitting's (a statistic that the number of runs does not lower) while
// the fastest and the median pool the sittings' runs. The script's own
// functions run under python3, without torch (it is imported by main only).
func TestTorchReferenceStatistics(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("python3 is missing; .ci/run installs it")
		}
		t.Skip("python3 not installed: the check of scripts/torch_reference.py needs it")
	}
	rng := rand.New(rand.NewPCG(7, 18))
	// three sittings of different lengths (25 runs as PyTorch's, more as wb's)
	var sittings [][]float64
	for _, n := range []int{25, 3, 400} {
		s := make([]float64, n)
		for i := range s {
			s[i] = 1e-4 * (1 + rng.ExpFloat64())
		}
		sittings = append(sittings, s)
	}
	in, err := json.Marshal(sittings)
	if err != nil {
		t.Fatal(err)
	}
	const prog = `
import json, sys
sys.path.insert(0, sys.argv[1])
import torch_reference as t
s = json.loads(sys.argv[2])
one = {st: [t.summarize(x, st) for x in s] for st in ("p10", "min", "median")}
many = {st: t.summarize(t.Sittings(s), st) for st in ("p10", "min", "median")}
pooled = t.pool_runs([{("k", "fwd", 1, "fp32"): x} for x in s] + [{("k", "fwd", 1, "fp32"): t.Skip("not here")}])
fin = t.finish(None, pooled[("k", "fwd", 1, "fp32")], "p10")
marg = t.summarize(t.Sittings([(x, [v / 2 for v in x]) for x in s]), "p10")
print(json.dumps({"one": one, "many": many, "finish": list(fin), "marginal": marg}))
`
	out, err := exec.Command(py, "-c", prog, filepath.Join("..", "scripts"), string(in)).CombinedOutput()
	if err != nil {
		t.Fatalf("python3: %v\n%s", err, out)
	}
	var got struct {
		One      map[string][]float64
		Many     map[string]float64
		Finish   []float64
		Marginal float64
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Abs(b) }
	lowest := math.Inf(1)
	var all []float64
	for i, s := range sittings {
		st := profiler.StatsOf(s)
		if !near(got.One["p10"][i], st.P10) || !near(got.One["min"][i], st.Min) || !near(got.One["median"][i], st.Median) {
			t.Errorf("sitting %d (%d runs): the script's p10, min, median %v %v %v, wb's %v %v %v", i, len(s),
				got.One["p10"][i], got.One["min"][i], got.One["median"][i], st.P10, st.Min, st.Median)
		}
		lowest = min(lowest, st.P10)
		all = append(all, s...)
	}
	pool := profiler.StatsOf(all)
	if !near(got.Many["p10"], lowest) {
		t.Errorf("p10 over sittings %v, want the lowest sitting's %v", got.Many["p10"], lowest)
	}
	if got.Many["p10"] == pool.P10 {
		t.Errorf("p10 over sittings equals the pooled runs' %v: the sittings were not kept apart", pool.P10)
	}
	if !near(got.Many["min"], pool.Min) || !near(got.Many["median"], pool.Median) {
		t.Errorf("min, median over sittings %v %v, want the pooled runs' %v %v", got.Many["min"], got.Many["median"], pool.Min, pool.Median)
	}
	if len(got.Finish) != 2 || !near(got.Finish[0], lowest) || got.Finish[1] != float64(len(all)) {
		t.Errorf("finish over sittings (one skipped) = %v, want [%v %d]", got.Finish, lowest, len(all))
	}
	if !near(got.Marginal, lowest/2) {
		t.Errorf("a marginal cost's p10 over sittings %v, want %v (each sitting's p10 of more minus less, the lowest)", got.Marginal, lowest/2)
	}
}

// TestTorchReferenceCUDARows checks which rows of a CUDA profile
// scripts/torch_reference.py times with PyTorch (cuda_parse, without
// torch): every op wb's CUDA backend runs, with each pass PyTorch has, and
// the update of every layer with parameters; the rest are skipped with a
// reason, which the comparison counts and lists (they were dropped without
// a word).
func TestTorchReferenceCUDARows(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("python3 is missing; .ci/run installs it")
		}
		t.Skip("python3 not installed: the check of scripts/torch_reference.py needs it")
	}
	cases := []struct {
		Op   string `json:"op"`
		Key  string `json:"key"`
		Pass string `json:"pass"`
		want string
	}{
		{"conv2d", "conv2d in=[3×224×224] out=64 k=7x7 s=2 p=3 d=1 g=1 bias=false", "bwd-weights", "conv_pass"},
		{"conv2d", "conv2d in=[3×224×224] out=64 k=7x7 s=2 p=3 d=1 g=1 bias=false", "update", "update_pass"},
		{"linear", "linear in=[2048] out=1000 bias=true", "update", "update_pass"},
		{"batchnorm", "batchnorm shape=[64×112×112]", "bwd-data", "elementwise_pass"},
		{"batchnorm", "batchnorm shape=[64×112×112]", "update", "update_pass"},
		{"layernorm", "layernorm shape=[128×768]", "update", "update_pass"},
		{"instancenorm", "instancenorm shape=[64×256×256]", "fwd", "rownorm_pass"},
		{"instancenorm", "instancenorm shape=[64×256×256]", "bwd-data", "rownorm_pass"},
		{"embedding", "embedding tokens=128 vocab=30522 dim=768", "fwd", "embedding_pass"},
		{"embedding", "embedding tokens=128 vocab=30522 dim=768", "bwd-weights", "embedding_pass"},
		{"embedding", "embedding tokens=128 vocab=30522 dim=768", "update", "update_pass"},
		{"embedding", "embedding tokens=512 vocab=512 dim=768 frozen", "bwd-weights", "skip: embedding bwd-weights: no such pass in PyTorch"},
		{"embedding", "embedding tokens=128 vocab=30522 dim=768 tied", "update", "skip: update: a tied or frozen table has no update of its own"},
		{"lstm", "lstm in=[35×200] hidden=200 layers=2", "fwd", "lstm_pass"},
		{"lstm", "lstm in=[35×200] hidden=200 layers=2", "bwd-data", "lstm_pass"},
		{"lstm", "lstm in=[35×200] hidden=200 layers=2", "bwd-weights", "lstm_pass"},
		{"lstm", "lstm in=[35×200] hidden=200 layers=2", "update", "update_pass"},
		{"select", "select in=[128×768]", "fwd", "select_pass"},
		{"select", "select in=[128×768]", "bwd-data", "select_pass"},
		{"concat", "concat in=[64×35×35],[64×35×35],[96×35×35],[32×35×35]", "fwd", "concat_pass"},
		{"concat", "concat in=[64×35×35],[64×35×35],[96×35×35],[32×35×35]", "bwd-data", "concat_pass"},
		{"upsample", "upsample in=[256×64×64] f=2", "bwd-data", "upsample_pass"},
		{"pad", "pad in=[512×16×16] l=1 r=0 t=1 b=0", "fwd", "pad_pass"},
		{"softmax", "softmax shape=[12×128×128] scaled=true causal=false", "bwd-data", "softmax_pass"},
		{"lrn", "lrn shape=[64×55×55] size=5", "fwd", "skip: op lrn: no PyTorch equivalent in this script for 'lrn shape=[64×55×55] size=5'"},
	}
	in, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	const prog = `
import json, sys
sys.path.insert(0, sys.argv[1])
import torch_reference as t
out = []
for c in json.loads(sys.argv[2]):
    try:
        f, _ = t.cuda_parse(c["op"], c["key"], c["pass"])
        out.append(f.__name__)
    except t.Skip as e:
        out.append("skip: " + str(e))
print(json.dumps(out))
`
	b, err := exec.Command(py, "-c", prog, filepath.Join("..", "scripts"), string(in)).CombinedOutput()
	if err != nil {
		t.Fatalf("python3: %v\n%s", err, b)
	}
	var got []string
	if err := json.Unmarshal(b, &got); err != nil || len(got) != len(cases) {
		t.Fatalf("%v: %s", err, b)
	}
	for i, c := range cases {
		if got[i] != c.want {
			t.Errorf("%s %s (%s): %s, want %s", c.Op, c.Pass, c.Key, got[i], c.want)
		}
	}
}
