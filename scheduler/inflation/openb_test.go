package inflation_test

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/wb-sim/wb/datasets/openb"
	"github.com/wb-sim/wb/scheduler"
	"github.com/wb-sim/wb/scheduler/inflation"
)

// dataDir is the bundled openb data.
func dataDir(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "datasets", "data", "openb")
}

// openbTrace prepares a bundled pod list on the openb GPU cluster.
func openbTrace(t testing.TB, list string, opts inflation.Options) *inflation.Trace {
	t.Helper()
	dir := dataDir(t)
	nodes, err := openb.ReadNodes(filepath.Join(dir, "openb_node_list_gpu_node.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := openb.ReadPods(filepath.Join(dir, "openb_pod_list_"+list+".csv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := inflation.Prepare(openb.Cluster(nodes), podsOf(rows), opts)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func podsOf(rows []openb.PodRow) []inflation.Pod {
	pods := make([]inflation.Pod, len(rows))
	for i, r := range rows {
		pods[i] = inflation.Pod{Name: r.Name, CPU: scheduler.MilliCPU(r.CPUMilli), Mem: scheduler.MiB(r.MemoryMiB),
			GPUs: r.NumGPU, Milli: scheduler.MilliGPU(r.GPUMilli), Spec: r.GPUSpec}
	}
	return pods
}

// BenchmarkRun is one inflation run of each policy: the default trace,
// seed 42, to 130% of the GPUs (the budget: 2 s on two cores).
func BenchmarkRun(b *testing.B) {
	for _, pol := range inflation.Policies() {
		b.Run(pol, func(b *testing.B) {
			tr := openbTrace(b, "default", inflation.Options{})
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := tr.Run(pol, 42); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestOpenbSubsetNaive checks the incremental scores against the scheduler
// package's functions and placements, on part of the real cluster and
// trace: every 8th node and every 4th pod of the gpuspec33 list (GPU model
// constraints).
func TestOpenbSubsetNaive(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	dir := dataDir(t)
	nodes, err := openb.ReadNodes(filepath.Join(dir, "openb_node_list_gpu_node.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := openb.ReadPods(filepath.Join(dir, "openb_pod_list_gpuspec33.csv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	var ns []openb.NodeRow
	for i := 0; i < len(nodes); i += 8 {
		ns = append(ns, nodes[i])
	}
	var ps []openb.PodRow
	for i := 0; i < len(rows); i += 4 {
		ps = append(ps, rows[i])
	}
	c := openb.Cluster(ns)
	fast, err := inflation.Prepare(c, podsOf(ps), inflation.Options{})
	if err != nil {
		t.Fatal(err)
	}
	naive, _ := inflation.Prepare(c, podsOf(ps), inflation.Options{Naive: true})
	eng, _ := inflation.Prepare(c, podsOf(ps), inflation.Options{Engine: true})
	for _, pol := range inflation.Policies() {
		a, _ := fast.Run(pol, 42)
		for _, other := range []*inflation.Trace{naive, eng} {
			b, err := other.Run(pol, 42)
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Events) != len(b.Events) {
				t.Fatalf("%s: %d events, other %d", pol, len(a.Events), len(b.Events))
			}
			for k := range a.Events {
				if a.Events[k] != b.Events[k] {
					t.Fatalf("%s: event %d: incremental %+v, naive or engine %+v", pol, k, a.Events[k], b.Events[k])
				}
			}
		}
	}
}

// TestFGDAllocatesMost checks the paper's claim on the default trace with
// seed 42: FGD's allocation at 100% and 130% arrived is the highest of the
// six policies.
func TestFGDAllocatesMost(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	tr := openbTrace(t, "default", inflation.Options{})
	best := map[int]string{}
	top := map[int]float64{}
	for _, pol := range inflation.Policies() {
		r, err := tr.Run(pol, 42)
		if err != nil {
			t.Fatal(err)
		}
		c := r.Curve(130, r.AllocPct)
		for _, x := range []int{100, 130} {
			if c[x] > top[x] {
				top[x], best[x] = c[x], pol
			}
		}
	}
	for _, x := range []int{100, 130} {
		if best[x] != inflation.FGD {
			t.Errorf("at %d%% arrived %s allocates the most (%.2f%%), not fgd", x, best[x], top[x])
		}
	}
}
