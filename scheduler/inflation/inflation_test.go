package inflation

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wb-sim/wb/scheduler"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func nodes(n, gpus int, model string) []scheduler.Node {
	var ns []scheduler.Node
	for i := range n {
		ns = append(ns, scheduler.Node{Name: fmt.Sprintf("%s-%d", model, i), CPU: 64000, Mem: 1 << 18, GPUs: gpus, Model: model})
	}
	return ns
}

func prepare(t *testing.T, ns []scheduler.Node, pods []Pod, opts Options) *Trace {
	t.Helper()
	tr, err := Prepare(&scheduler.Cluster{Name: "t", Nodes: ns}, pods, opts)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func demand(tr *Trace, arrival []int32) int64 {
	var s int64
	for _, i := range arrival {
		s += int64(tr.pods[i].Demand())
	}
	return s
}

func TestOrderClones(t *testing.T) {
	// 10 GPUs: T = 1.3 × 10000 = 13000. One 8-GPU pod: S = 8000 < T.
	// A clone's per-GPU milli (1000) is what the stopping rule adds:
	// 8000 + 1000 ≤ T, so one clone (S = 16000, past T); then 16000 + 1000
	// > T stops.
	tr := prepare(t, nodes(5, 2, "A"), []Pod{{Name: "p", CPU: 1000, GPUs: 8, Milli: 1000}}, Options{})
	arrival, _, clones, removed := tr.Order(1)
	if clones != 1 || removed != 0 || len(arrival) != 2 || demand(tr, arrival) != 16000 {
		t.Errorf("arrival %v, clones %d, removed %d; want 2 pods, 1 clone, S = 16000", arrival, clones, removed)
	}

	// Shares: every clone keeps S ≤ T; the originals come first, shuffled,
	// the clones after them.
	var pods []Pod
	for i := range 20 {
		pods = append(pods, Pod{Name: fmt.Sprintf("p%02d", i), CPU: 100, GPUs: 1, Milli: scheduler.MilliGPU(100 + 37*i)})
	}
	pods = append(pods, Pod{Name: "cpu", CPU: 100})
	tr = prepare(t, nodes(8, 4, "A"), pods, Options{})
	for seed := range uint64(5) {
		arrival, perm, clones, removed := tr.Order(seed)
		n := len(pods)
		if removed != 0 || clones != len(arrival)-n {
			t.Fatalf("seed %d: clones %d, removed %d, %d pods", seed, clones, removed, len(arrival))
		}
		head := slices.Clone(arrival[:n])
		slices.Sort(head)
		for i := range head {
			if head[i] != int32(i) {
				t.Fatalf("seed %d: the first %d arrivals are not the trace shuffled: %v", seed, n, arrival[:n])
			}
		}
		if s := demand(tr, arrival); s > 41600 || s+1000 <= 41600 && clones == 0 {
			t.Errorf("seed %d: S = %d, T = 41600", seed, s)
		}
		if !slices.Equal(slices.Sorted(slices.Values(perm)), []int{0, 1, 2, 3, 4, 5, 6, 7}) {
			t.Errorf("seed %d: node order %v is not a permutation", seed, perm)
		}
		a2, p2, _, _ := tr.Order(seed)
		if !slices.Equal(arrival, a2) || !slices.Equal(perm, p2) {
			t.Errorf("seed %d: two orders differ", seed)
		}
	}
}

func TestOrderRemoves(t *testing.T) {
	// 2 GPUs: T = 2600. Five 1-GPU pods: S = 5000 > T; pods leave until S
	// ≤ T: three of them.
	var pods []Pod
	for i := range 5 {
		pods = append(pods, Pod{Name: fmt.Sprintf("p%d", i), CPU: 100, GPUs: 1, Milli: 1000})
	}
	tr := prepare(t, nodes(1, 2, "A"), pods, Options{})
	for seed := range uint64(10) {
		arrival, _, clones, removed := tr.Order(seed)
		if clones != 0 || removed != 3 || len(arrival) != 2 {
			t.Fatalf("seed %d: arrival %v, clones %d, removed %d; want 2 pods left, 3 removed", seed, arrival, clones, removed)
		}
		// The survivors keep the shuffled order: replay the draws.
		rng := rand.New(rand.NewPCG(seed, 0))
		want := []int32{0, 1, 2, 3, 4}
		rng.Shuffle(5, func(i, j int) { want[i], want[j] = want[j], want[i] })
		for range 3 {
			k := rng.IntN(len(want))
			want = slices.Delete(want, k, k+1)
		}
		if !slices.Equal(arrival, want) {
			t.Errorf("seed %d: arrival %v, want %v", seed, arrival, want)
		}
	}
}

func TestTieBreakOrder(t *testing.T) {
	// Identical empty nodes: every score ties, so the first pod goes to
	// the first node of the seed's permutation, whatever the policy.
	tr := prepare(t, nodes(6, 2, "A"), []Pod{{Name: "a", CPU: 1000, GPUs: 1, Milli: 300}}, Options{Ratio: 0.03}) // T = 360: no clone
	for seed := range uint64(4) {
		_, perm, _, _ := tr.Order(seed)
		for _, pol := range Policies() {
			if pol == Random {
				continue
			}
			r, err := tr.Run(pol, seed)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Events[0].Node; got != int32(perm[0]) {
				t.Errorf("%s, seed %d: node %d, want %d (first of %v)", pol, seed, got, perm[0], perm)
			}
		}
	}
}

func TestGPUChoice(t *testing.T) {
	// One node with 2 GPUs; pods a (400 milli), b (300), c (600), a seed
	// where a arrives first and b second. Typical classes: one pod each,
	// all three kept, p = 1/3. a goes to GPU 0 under every policy (both
	// GPUs are alike): [600, 1000]. b (300): tightest-fit takes the
	// GPU with 600 free. FGD: onto the 600 GPU → [300, 1000]: fragments
	// (400: 300, 300: 0, 600: 300) → Frag 200; onto the full GPU → [600,
	// 700]: fragments (0, 0, 0) → Frag 0. Before: [600, 1000] → 0. So
	// FGD's scores 100·σ(−0.2) = 45 and 50: the full GPU.
	pods := []Pod{{Name: "a", CPU: 10, GPUs: 1, Milli: 400}, {Name: "b", CPU: 10, GPUs: 1, Milli: 300}, {Name: "c", CPU: 10, GPUs: 1, Milli: 600}}
	tr := prepare(t, nodes(1, 2, "A"), pods, Options{Ratio: 0.5}) // T = 1000 < S = 1300: c or others removed
	for seed := range uint64(20) {
		arrival, _, _, _ := tr.Order(seed)
		if len(arrival) < 2 || arrival[0] != 0 || arrival[1] != 1 {
			continue // want a, then b
		}
		for _, tt := range []struct {
			pol  string
			want int8
		}{{FGD, 1}, {BestFit, 0}, {GpuPacking, 0}, {DotProd, 0}, {GpuClustering, 0}} {
			r, err := tr.Run(tt.pol, seed)
			if err != nil {
				t.Fatal(err)
			}
			if r.Events[0].GPU != 0 || r.Events[1].GPU != tt.want {
				t.Errorf("%s: a on GPU %d, b on GPU %d; want 0, %d", tt.pol, r.Events[0].GPU, r.Events[1].GPU, tt.want)
			}
		}
		return
	}
	t.Fatal("no seed of 20 orders a before b")
}

// checkInvariants replays r's placements on the cluster: no node over its
// capacity, arrived ≥ allocated, both non-decreasing, and the recorded
// fragment equal to the fragment of the nodes rebuilt from the events
// (to rounding: the run sums it incrementally).
func checkInvariants(t *testing.T, tr *Trace, r *Result) {
	t.Helper()
	n := len(tr.nodes)
	cpu, mem := slices.Clone(tr.cpu), slices.Clone(tr.mem)
	gpu := make([][scheduler.MaxGPUsPerNode]int, n)
	for i := range n {
		for g := range int(tr.ngpu[i]) {
			gpu[i][g] = 1000
		}
	}
	var prev Event
	for k, e := range r.Events {
		p := &tr.pods[e.Pod]
		if e.Arrived < e.Allocated || e.Arrived < prev.Arrived || e.Allocated < prev.Allocated {
			t.Fatalf("%s: event %d: arrived %d allocated %d after %d %d", r.Policy, k, e.Arrived, e.Allocated, prev.Arrived, prev.Allocated)
		}
		if e.Arrived-prev.Arrived != p.Demand() {
			t.Fatalf("%s: event %d: arrived grew by %d, the pod asks %d", r.Policy, k, e.Arrived-prev.Arrived, p.Demand())
		}
		placed := e.Allocated - prev.Allocated
		if (e.Node < 0) != (placed == 0 && p.Demand() > 0) && p.Demand() > 0 {
			t.Fatalf("%s: event %d: node %d, allocated grew by %d", r.Policy, k, e.Node, placed)
		}
		prev = e
		if e.Node < 0 {
			continue
		}
		i := e.Node
		cpu[i] -= int64(p.CPU)
		mem[i] -= int64(p.Mem)
		if cpu[i] < 0 || mem[i] < 0 {
			t.Fatalf("%s: event %d: node %d over-allocated", r.Policy, k, i)
		}
		if p.GPUs > 0 && model(tr, int(i))&tr.shapes[e.Pod].models == 0 {
			t.Fatalf("%s: event %d: pod %s on a %s node", r.Policy, k, p.Name, tr.nodes[i].Model)
		}
		switch {
		case p.GPUs == 1 && p.Milli < 1000:
			gpu[i][e.GPU] -= int(p.Milli)
			if gpu[i][e.GPU] < 0 {
				t.Fatalf("%s: event %d: GPU %d of node %d over-allocated", r.Policy, k, e.GPU, i)
			}
		default:
			need := p.GPUs
			for g := 0; g < int(tr.ngpu[i]) && need > 0; g++ {
				if gpu[i][g] == 1000 {
					gpu[i][g] = 0
					need--
				}
			}
			if need > 0 {
				t.Fatalf("%s: event %d: node %d lacks %d whole GPUs", r.Policy, k, i, need)
			}
		}
	}
	frag := 0.0
	for i := range n {
		g := make([]uint16, tr.ngpu[i])
		for k := range g {
			g[k] = uint16(gpu[i][k])
		}
		v := scheduler.NodeView{CPU: scheduler.MilliCPU(cpu[i]), Model: tr.model[i], GPU: g}
		frag += tr.typical.Frag(&v)
	}
	if last := r.Events[len(r.Events)-1].Frag; abs(last-frag) > 1e-6*float64(tr.gpuCap) {
		t.Errorf("%s: final fragment %v, rebuilt %v", r.Policy, last, frag)
	}
}

func model(tr *Trace, i int) uint64 { return tr.model[i] }

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// synthetic is a small heterogeneous cluster and a mixed trace.
func synthetic(seed uint64) ([]scheduler.Node, []Pod) {
	ns := append(append(nodes(6, 8, "G2"), nodes(6, 2, "T4")...), nodes(3, 4, "V100")...)
	for i := range ns {
		ns[i].CPU = scheduler.MilliCPU(32000 + 16000*(i%3))
	}
	rng := rand.New(rand.NewPCG(seed, 9))
	var pods []Pod
	for i := range 120 {
		p := Pod{Name: fmt.Sprintf("pod-%03d", i), CPU: scheduler.MilliCPU(1000 * (1 + rng.IntN(16))), Mem: scheduler.MiB(1024 * (1 + rng.IntN(8)))}
		switch rng.IntN(6) {
		case 0: // CPU only
		case 1, 2:
			p.GPUs, p.Milli = 1, scheduler.MilliGPU(100*(1+rng.IntN(9)))
		case 3:
			p.GPUs, p.Milli = 1, 1000
		case 4:
			p.GPUs, p.Milli = []int{2, 4, 8}[rng.IntN(3)], 1000
		case 5:
			p.GPUs, p.Milli, p.Spec = 1, scheduler.MilliGPU(250*(1+rng.IntN(4))), []string{"T4", "V100|T4", "G2", "P100"}[rng.IntN(4)]
		}
		pods = append(pods, p)
	}
	return ns, pods
}

func TestRunsInvariantsAndNaive(t *testing.T) {
	ns, pods := synthetic(1)
	fast := prepare(t, ns, pods, Options{})
	naive := prepare(t, ns, pods, Options{Naive: true})
	for _, pol := range Policies() {
		for seed := range uint64(3) {
			a, err := fast.Run(pol, seed)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := fast.Run(pol, seed)
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("%s seed %d: two runs differ", pol, seed)
			}
			c, _ := naive.Run(pol, seed)
			if !reflect.DeepEqual(a, c) {
				for k := range a.Events {
					if a.Events[k] != c.Events[k] {
						t.Fatalf("%s seed %d: event %d: incremental %+v, naive %+v", pol, seed, k, a.Events[k], c.Events[k])
					}
				}
				t.Fatalf("%s seed %d: results differ", pol, seed)
			}
			checkInvariants(t, fast, a)
		}
	}
}

func TestRunRefuses(t *testing.T) {
	ns, pods := synthetic(2)
	tr := prepare(t, ns, pods, Options{})
	if _, err := tr.Run("worst-fit", 1); err == nil {
		t.Error("unknown policy accepted")
	}
	for _, tt := range []struct {
		name string
		pods []Pod
	}{
		{"no pods", nil},
		{"twice", []Pod{{Name: "a", CPU: 1}, {Name: "a", CPU: 1}}},
		{"milli without GPU", []Pod{{Name: "a", Milli: 5}}},
		{"multi-GPU share", []Pod{{Name: "a", GPUs: 2, Milli: 500}}},
		{"too much", []Pod{{Name: "a", GPUs: 1, Milli: 1001}}},
		{"negative", []Pod{{Name: "a", CPU: -1}}},
	} {
		if _, err := Prepare(&scheduler.Cluster{Name: "t", Nodes: ns}, tt.pods, Options{}); err == nil {
			t.Errorf("%s: accepted", tt.name)
		}
	}
	if _, err := Prepare(&scheduler.Cluster{Name: "t", Nodes: []scheduler.Node{{Name: "c", CPU: 1}}}, pods, Options{}); err == nil {
		t.Error("a cluster without GPUs accepted")
	}
	// pods that ask for no GPU never reach the target demand: refused (the
	// clones were drawn until memory ran out: a reviewer's find)
	cpuOnly := []Pod{{Name: "a", CPU: 1000, Mem: 1}, {Name: "b", CPU: 2000, Mem: 1}}
	if _, err := Prepare(&scheduler.Cluster{Name: "t", Nodes: ns}, cpuOnly, Options{}); err == nil || !strings.Contains(err.Error(), "no pod asks for a GPU (2 pods") {
		t.Errorf("CPU pods alone: %v", err)
	}
}

// TestGolden pins a small run of every policy: pod, node, GPU, arrived,
// allocated and fragment after each pod.
func TestGolden(t *testing.T) {
	ns, pods := synthetic(3)
	tr := prepare(t, ns, pods, Options{})
	var b bytes.Buffer
	fmt.Fprintln(&b, "policy,seed,event,pod,node,gpu,arrived,allocated,frag")
	for _, pol := range Policies() {
		r, err := tr.Run(pol, 42)
		if err != nil {
			t.Fatal(err)
		}
		for k, e := range r.Events {
			fmt.Fprintf(&b, "%s,%d,%d,%s,%d,%d,%d,%d,%.3f\n", pol, r.Seed, k, tr.pods[e.Pod].Name, e.Node, e.GPU, e.Arrived, e.Allocated, e.Frag)
		}
	}
	path := filepath.Join("testdata", "small.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		got := bytes.Split(b.Bytes(), []byte("\n"))
		exp := bytes.Split(want, []byte("\n"))
		for i := range min(len(got), len(exp)) {
			if !bytes.Equal(got[i], exp[i]) {
				t.Fatalf("line %d:\n got  %s\n want %s\n(go test -update rewrites it)", i+1, got[i], exp[i])
			}
		}
		t.Fatalf("%d lines, want %d", len(got), len(exp))
	}
}

// FuzzRun checks that any small trace either is refused by Prepare or
// runs every policy within the invariants.
func FuzzRun(f *testing.F) {
	f.Add(uint64(1), "T4|V100", uint16(500), uint8(1), uint16(4000))
	f.Add(uint64(7), "", uint16(1000), uint8(8), uint16(64000))
	f.Add(uint64(3), "|nope| T4 ", uint16(1), uint8(1), uint16(0))
	f.Fuzz(func(t *testing.T, seed uint64, spec string, milli uint16, gpus uint8, cpu uint16) {
		ns, pods := synthetic(seed % 4)
		pods = append(pods, Pod{Name: "fuzz", CPU: scheduler.MilliCPU(cpu), GPUs: int(gpus), Milli: scheduler.MilliGPU(milli), Spec: spec})
		tr, err := Prepare(&scheduler.Cluster{Name: "f", Nodes: ns}, pods, Options{})
		if err != nil {
			return
		}
		for _, pol := range Policies() {
			r, err := tr.Run(pol, seed)
			if err != nil {
				t.Fatal(err)
			}
			checkInvariants(t, tr, r)
		}
	})
}

// TestEngineAgrees runs the six policies both on the replay's bookkeeping
// and through the scheduler's placements (scheduler.Sequence), which the
// simulator uses in every other experiment: same nodes, same GPUs.
func TestEngineAgrees(t *testing.T) {
	for _, ds := range []uint64{1, 4} {
		ns, pods := synthetic(ds)
		fast := prepare(t, ns, pods, Options{})
		eng := prepare(t, ns, pods, Options{Engine: true})
		for _, pol := range Policies() {
			for seed := range uint64(3) {
				a, err := fast.Run(pol, seed)
				if err != nil {
					t.Fatal(err)
				}
				b, err := eng.Run(pol, seed)
				if err != nil {
					t.Fatal(err)
				}
				for k := range a.Events {
					if a.Events[k] != b.Events[k] {
						t.Fatalf("trace %d, %s, seed %d: event %d: replay %+v, engine %+v", ds, pol, seed, k, a.Events[k], b.Events[k])
					}
				}
			}
		}
	}
}

func TestOtherPlacements(t *testing.T) {
	ns, pods := synthetic(5)
	tr := prepare(t, ns, pods, Options{})
	for _, pol := range []string{"first-fit", "best-fit", "tetris", "round-robin", "ga"} {
		a, err := tr.Run(pol, 7)
		if err != nil {
			t.Fatalf("%s: %v", pol, err)
		}
		b, _ := tr.Run(pol, 7)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: two runs differ", pol)
		}
		checkInvariants(t, tr, a)
	}
	if _, err := tr.Run("worst-fit", 1); err == nil {
		t.Error("unknown placement accepted")
	}
}
