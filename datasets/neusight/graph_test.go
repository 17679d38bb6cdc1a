package neusight

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadGraph(t *testing.T) {
	root, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := ReadGraph(filepath.Join(root, "labels", "Tesla_V100-PCIE-32GB", "gpt2_large-inf-1024-4.csv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Node{}
	var sum float64
	for _, n := range nodes {
		byName[n.Name] = n
		sum += n.Forward
	}
	// the query-key-value product, as the graph records it: 2.929 ms,
	// addmm of a bias [3840], the input [4096, 1280] and the weight
	// [1280, 3840]
	if n := byName["addmm"]; n.Op != "call_function" || !strings.Contains(n.Target, "addmm") || len(n.Inputs) != 3 ||
		n.Inputs[1][0] != 4096 || n.Inputs[2][1] != 3840 || math.Abs(n.Forward-2.929) > 0.001 || Elems(n.Output) != 4096*3840 {
		t.Errorf("addmm: %+v", n)
	}
	if n := byName["lm_head"]; n.Op != "call_module" || math.Abs(n.Forward-38.867) > 0.001 {
		t.Errorf("lm_head: %+v", n)
	}
	// attention's first product reads the queries and the keys' transpose
	// as views of the projections: neither contiguous
	if n := byName["matmul"]; !strings.Contains(n.Target, "matmul") || len(n.InputContiguous) != 2 || n.InputContiguous[0] || n.InputContiguous[1] {
		t.Errorf("matmul: %+v", n)
	}
	if n := byName["addmm"]; len(n.InputContiguous) != 3 || !n.InputContiguous[1] {
		t.Errorf("addmm's operands' layout: %v", n.InputContiguous)
	}
	// one layer, the embeddings and the head: 60.2 ms
	if math.Abs(sum-60.206) > 0.01 || len(nodes) != 125 {
		t.Errorf("%d nodes summing to %.3f ms", len(nodes), sum)
	}
}

func TestParseGraphErrors(t *testing.T) {
	head := "op,target,input_shapes,output_shape,fw_latency,bw_latency,Name\n"
	for _, c := range []struct{ in, want string }{
		{"", "empty: want a header"},
		{"op,target\n", "missing column(s) input_shapes, output_shape, fw_latency, bw_latency, Name"},
		{head + `call_function,add,"[[4, x]]","(4,)",0.1,0,add` + "\n", `g.csv:2: input_shapes: dimension "x"`},
		{head + `call_function,add,"[[4, -1]]","(4,)",0.1,0,add` + "\n", `dimension "-1"`},
		{head + `call_function,add,"[[4]","(4,)",0.1,0,add` + "\n", "a shape is not closed"},
		{head + `call_function,add,"[4]","(4,)",0.1,0,add` + "\n", "want a list of shapes"},
		{head + `call_function,add,"[[4]]","(4,)",NaN,0,add` + "\n", `g.csv:2: fw_latency "NaN"`},
		{head + `call_function,add,"[[4]]","(4,)",0.1,-2,add` + "\n", `bw_latency "-2"`},
		{"op,target,input_shapes,input_contiguous,output_shape,fw_latency,bw_latency,Name\n" + `call_function,add,"[[4]]","[true]","(4,)",0.1,0,add` + "\n",
			`g.csv:2: input_contiguous: "[true]": want a list of True and False`},
	} {
		_, err := ParseGraph(strings.NewReader(c.in), "g.csv")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
	}
	// a tuple of shapes or a size is not one tensor's output
	nodes, err := ParseGraph(strings.NewReader(head+`call_method,split,"[[4, 6]]","((4, 2), (4, 2))",0.01,,split`+"\n"+`call_method,size,"[[4, 6]]",,0.01,,size`+"\n"), "g.csv")
	if err != nil || len(nodes) != 2 || nodes[0].Output != nil || nodes[1].Output != nil || nodes[0].Backward != 0 {
		t.Errorf("%+v %v", nodes, err)
	}
}

func FuzzParseGraph(f *testing.F) {
	head := "op,target,input_shapes,output_shape,fw_latency,bw_latency,Name\n"
	f.Add(head + `call_function,<built-in method addmm>,"[[3840], [4096, 1280], [1280, 3840]]","(4096, 3840)",2.9,0,addmm` + "\n")
	f.Add(head + `call_method,split,"[[4, 6]]","((4, 2), (4, 2))",0.01,,split` + "\n")
	f.Add("op,target,input_shapes,input_contiguous,output_shape,fw_latency,bw_latency,Name\n" + `call_function,matmul,"[[2, 4, 8], [2, 8, 4]]","[False, True]","(2, 4, 4)",0.2,0,matmul` + "\n")
	f.Fuzz(func(t *testing.T, in string) {
		nodes, err := ParseGraph(strings.NewReader(in), "g.csv")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "g.csv") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		for _, n := range nodes {
			if !(n.Forward >= 0 && n.Forward <= 1e6) || !(n.Backward >= 0 && n.Backward <= 1e6) {
				t.Fatalf("latencies %+v", n)
			}
			for _, s := range append(n.Inputs, n.Output) {
				for _, d := range s {
					if d < 0 || d > MaxDim {
						t.Fatalf("shape %v", s)
					}
				}
			}
		}
	})
}
