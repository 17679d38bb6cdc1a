package gpu

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wb-sim/wb/datasets/neusight"
)

// TestNodeKernel maps the nodes of GPT-2 Large's graph (V100, batch 4,
// sequence 1024) to the kernels the op model times.
func TestNodeKernel(t *testing.T) {
	nodes, err := neusight.ReadGraph(filepath.Join(bundledDir(t), "labels", "Tesla_V100-PCIE-32GB", "gpt2_large-inf-1024-4.csv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Kernel{}
	for _, n := range nodes {
		if k, ok := NodeKernel(n); ok {
			got[n.Name] = k
		}
	}
	for name, want := range map[string]Kernel{
		"addmm":                {Op: "linear", Batch: 1, M: 4096, K: 1280, N: 3840, Bias: true},
		"matmul":               {Op: "bmm", Batch: 80, M: 1024, K: 64, N: 1024},
		"softmax":              {Op: "softmax", Rows: 81920, Width: 1024},
		"truediv":              {Op: "divu", Rows: 81920, Width: 1024, Inputs: 1, Outputs: 1},
		"where":                {Op: "add", Rows: 81920, Width: 1024, Inputs: 1, Outputs: 1},
		"add_10":               {Op: "add", Rows: 4096, Width: 1280, Inputs: 2, Outputs: 1},
		"tanh":                 {Op: "tanh", Rows: 4096, Width: 5120, Inputs: 1, Outputs: 1},
		"transformer_h_0_ln_1": {Op: "ln", Rows: 4096, Width: 1280},
		"lm_head":              {Op: "linear", Batch: 1, M: 4096, K: 1280, N: 50257},
	} {
		if k, ok := got[name]; !ok || k != want {
			t.Errorf("%s: %+v (%v), want %+v", name, k, ok, want)
		}
	}
	// views, copies, embeddings and dropout are not mapped
	for _, name := range []string{"view", "transformer_wte", "transformer_drop", "size", "contiguous"} {
		if k, ok := got[name]; ok {
			t.Errorf("%s mapped to %+v", name, k)
		}
	}
}

// TestValidateNodes: each GPU's kernel-bound nodes are scored by the model
// train gives for that GPU and the label's network.
func TestValidateNodes(t *testing.T) {
	d := bundledData(t)
	m, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	gpus, asked := map[string]bool{}, 0
	scores, err := ValidateNodes(d.Dir, d.Samples, d.Specs, func(g, network string) (*Model, error) {
		gpus[g] = true
		asked++
		return m, nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(gpus) != 5 || asked <= len(gpus) {
		t.Errorf("models asked for %v (%d times), want the five GPUs with labels, a model per network", gpus, asked)
	}
	fams := map[string]int{}
	for _, s := range scores {
		fams[s.Family] += s.N
		if s.N < 1 || !(s.MAPE >= 0) || s.Within < 0 || s.Within > 100 || !(s.Median > 0) {
			t.Errorf("%+v", s)
		}
	}
	// in sample the V100's elementwise nodes are timed within a few percent
	for _, s := range scores {
		if s.GPU == "Tesla_V100-PCIE-32GB" && s.Family == "elementwise" && !(s.MAPE < 15) {
			t.Errorf("V100 elementwise in sample: %+v", s)
		}
	}
	for _, f := range []string{"linear", "bmm", "softmax", "ln", "elementwise"} {
		if fams[f] == 0 {
			t.Errorf("no %s node scored (%v)", f, fams)
		}
	}
}

// A GPU of no training measurement has its graphs scored too, by the model
// trained on every GPU (asked for as ""), with its own folder's sheet,
// whether the graph is gzipped or, as NeuSight's scripts write it, not.
func TestValidateNodesUnseen(t *testing.T) {
	d := bundledData(t)
	nd := l4Folder(t, map[string]string{"bert_large-inf-512-8": ".csv.gz", "gpt2_large-inf-1024-4": ".csv"})
	m, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	asked := map[string]bool{}
	scores, err := ValidateNodes(nd, d.Samples, d.Specs, func(g, network string) (*Model, error) {
		asked[g+"/"+network] = true
		return m, nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 2 || !asked["/bert_large"] || !asked["/gpt2_large"] {
		t.Errorf("models asked for %v, want the one trained on every GPU for each network", asked)
	}
	n := 0
	for _, s := range scores {
		if s.GPU != "NVIDIA_L4" || !s.Unseen {
			t.Errorf("%+v: want the L4's, unseen", s)
		}
		n += s.N
	}
	// the two graphs' nodes, each scored on the L4's sheet, not the T4's
	one := func(stem string) int {
		ss, err := ValidateNodes(l4Folder(t, map[string]string{stem: ".csv.gz"}), d.Samples, d.Specs, func(string, string) (*Model, error) { return m, nil }, nil)
		if err != nil {
			t.Fatal(err)
		}
		k := 0
		for _, s := range ss {
			k += s.N
		}
		return k
	}
	if a, b := one("bert_large-inf-512-8"), one("gpt2_large-inf-1024-4"); a == 0 || b == 0 || n != a+b {
		t.Errorf("%d nodes scored, want the gzipped graph's %d and the plain one's %d", n, a, b)
	}
}

// l4Folder is a folder of NeuSight's layout holding the L4's spec sheet and,
// under labels/NVIDIA_L4, the T4's labels of each stem of graphs with their
// graphs, written gzipped (".csv.gz") or plain (".csv") as graphs says.
func l4Folder(t *testing.T, graphs map[string]string) *neusight.Dir {
	t.Helper()
	src, dir := bundledDir(t), t.TempDir()
	put := func(from, to string) {
		b, err := os.ReadFile(filepath.Join(src, from))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(from, ".gz") && !strings.HasSuffix(to, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if b, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		to = filepath.Join(dir, to)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("devices/NVIDIA_L4.json", "devices/NVIDIA_L4.json")
	for stem, ext := range graphs {
		put("labels/Tesla_T4/"+stem+".json", "labels/NVIDIA_L4/"+stem+".json")
		put("labels/Tesla_T4/"+stem+".csv.gz", "labels/NVIDIA_L4/"+stem+ext)
	}
	nd, err := neusight.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return nd
}

// TestNodeCopies: GPT-2's attention products reshape the heads' permuted
// views, copying them inside the node (both operands of the scores'
// product, the values of the second); OPT's torch.bmm takes its keys'
// transposed view as it is, its queries made contiguous by a node of
// their own.
func TestNodeCopies(t *testing.T) {
	for _, c := range []struct {
		graph string
		want  map[string]int // product node → copies
	}{
		{"Tesla_V100-PCIE-32GB/gpt2_large-inf-1024-4", map[string]int{"matmul": 2, "matmul_1": 1}},
		{"NVIDIA_A100-PCIE-40GB/opt_13-inf-2048-2", map[string]int{"bmm": 0, "bmm_1": 0}},
	} {
		nodes, err := neusight.ReadGraph(filepath.Join(bundledDir(t), "labels", c.graph+".csv.gz"))
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		for _, n := range nodes {
			want, ok := c.want[n.Name]
			if !ok {
				continue
			}
			seen++
			k, ok := NodeKernel(n)
			cs := NodeCopies(n, k)
			if !ok || len(cs) != want {
				t.Errorf("%s %s: %d copies, want %d", c.graph, n.Name, len(cs), want)
			}
			for _, cp := range cs {
				if cp.Op != "copy" || cp.Inputs != 1 || cp.Rows*cp.Width != k.Batch*k.M*k.K && cp.Rows*cp.Width != k.Batch*k.K*k.N {
					t.Errorf("%s %s: copy %+v of no operand of %+v", c.graph, n.Name, cp, k)
				}
			}
		}
		if seen != len(c.want) {
			t.Errorf("%s: %d of the products %v found", c.graph, seen, c.want)
		}
	}
	// a node of no product, or a file without the column, copies nothing
	if cs := NodeCopies(neusight.Node{Inputs: [][]int{{2, 3, 4, 5}}}, Kernel{Op: neusight.BMM}); cs != nil {
		t.Errorf("no input_contiguous column: %v", cs)
	}
}

// TestFolderSkipsBadFiles: in a folder to validate on, a graph or an ops
// file that cannot be read is left out with its reason and the others are
// scored (one bad file had ended --nodes and --ops for the whole folder);
// an ops file named as its sheet's device ("NVIDIA L4") is that GPU's.
func TestFolderSkipsBadFiles(t *testing.T) {
	d := bundledData(t)
	nd := l4Folder(t, map[string]string{"bert_large-inf-512-8": ".csv.gz", "gpt2_large-inf-1024-4": ".csv.gz"})
	write := func(rel string, b []byte) {
		p := filepath.Join(nd.Path, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("labels/NVIDIA_L4/gpt2_large-inf-1024-4.csv.gz", []byte("op,Name\n"))
	adds, err := os.ReadFile(filepath.Join(bundledDir(t), "ops/add/Tesla_T4.csv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	write("ops/add/NVIDIA L4.csv.gz", adds)
	write("ops/ln/NVIDIA_L4.csv.gz", []byte("junk\n"))
	nd, err = neusight.ReadDir(nd.Path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	var skipped []string
	scores, err := ValidateNodes(nd, d.Samples, d.Specs, func(string, string) (*Model, error) { return m, nil },
		func(why string) { skipped = append(skipped, why) })
	if err != nil || len(scores) == 0 || len(skipped) != 1 || !strings.Contains(skipped[0], "gpt2_large-inf-1024-4.csv.gz") {
		t.Errorf("nodes: %d scores, skipped %q, %v; want BERT's scored and GPT-2's graph skipped", len(scores), skipped, err)
	}
	if _, err := ValidateNodes(nd, d.Samples, d.Specs, func(string, string) (*Model, error) { return m, nil }, nil); err == nil {
		t.Error("nodes without skip: a graph that cannot be read is no error")
	}
	samples, pred, skipped, err := UnseenOps(nd, d, m)
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) == 0 || len(pred) != len(samples) || len(skipped) != 1 || !strings.Contains(skipped[0], "ops/ln/NVIDIA_L4.csv.gz") {
		t.Errorf("ops: %d samples, skipped %q; want the adds read and the ln file skipped", len(samples), skipped)
	}
	for i := range samples {
		if samples[i].GPU != "NVIDIA_L4" || samples[i].Kernel.Op != "add" {
			t.Fatalf("sample %d: %s %s; want NVIDIA_L4's adds", i, samples[i].GPU, samples[i].Kernel.Op)
		}
	}
}
