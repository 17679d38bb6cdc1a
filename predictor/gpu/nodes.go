package gpu

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/wb-sim/wb/datasets/neusight"
	"github.com/wb-sim/wb/predictor"
)

// linearModule names the modules of the bundled models that are linear
// layers (BERT's, OPT's and Llama's projections, the language-model heads).
var linearModule = regexp.MustCompile(`\.(query|key|value|dense|q_proj|k_proj|v_proj|o_proj|out_proj|fc1|fc2|gate_proj|up_proj|down_proj|decoder)$|^lm_head$`)

// normModule names their layer norms.
var normModule = regexp.MustCompile(`(^|\.)(ln_\d|ln_f|LayerNorm|layer_norm|self_attn_layer_norm|final_layer_norm)$`)

// NodeKernel is the kernel a graph node launches, as the op model times
// it, for the nodes of the families the op measurements cover: linear
// layers (addmm, the models' linear modules), batched products (matmul,
// bmm), softmax, layer norm and the elementwise arithmetic (add, sub, mul,
// truediv, pow, tanh, where; a scalar operand makes it the op's scalar
// form). ok is false for any other node (views, copies, embeddings,
// dropout, host-side ops) and for shapes it cannot read.
func NodeKernel(n neusight.Node) (k Kernel, ok bool) {
	target := n.Target
	// the function or method it calls: "<built-in method addmm of type
	// object at 0x…>", "<built-in function add>", "<function softmax at
	// 0x…>", or a method's name
	fn := target
	for _, p := range []string{"<built-in method ", "<built-in function ", "<function "} {
		if rest, ok := strings.CutPrefix(target, p); ok {
			fn = strings.TrimSuffix(strings.Fields(rest + " >")[0], ">")
		}
	}
	last := func(s []int) int {
		if len(s) == 0 {
			return 1
		}
		return max(s[len(s)-1], 1)
	}
	lead := func(s []int) int { // the product of all but the last dimension
		e := 1
		for _, d := range s[:max(len(s)-1, 0)] {
			e *= max(d, 1)
		}
		return e
	}
	out := n.Output
	switch {
	case n.Op == "call_module" && linearModule.MatchString(target):
		if len(n.Inputs) != 1 || len(n.Inputs[0]) == 0 || len(out) == 0 {
			return Kernel{}, false
		}
		in := n.Inputs[0]
		return Kernel{Op: neusight.Linear, Batch: 1, M: lead(in), K: last(in), N: last(out), Bias: target != "lm_head"}, true
	case n.Op == "call_module" && normModule.MatchString(target):
		if len(out) == 0 {
			return Kernel{}, false
		}
		return Kernel{Op: neusight.LN, Rows: lead(out), Width: last(out)}, true
	case fn == "addmm" && len(n.Inputs) == 3 && len(n.Inputs[1]) == 2 && len(n.Inputs[2]) == 2:
		a, b := n.Inputs[1], n.Inputs[2]
		return Kernel{Op: neusight.Linear, Batch: 1, M: a[0], K: a[1], N: b[1], Bias: true}, true
	case (fn == "matmul" || fn == "bmm") && len(n.Inputs) == 2 && len(n.Inputs[0]) >= 3 && len(n.Inputs[1]) >= 3:
		a, b := n.Inputs[0], n.Inputs[1]
		batch := 1
		for _, d := range a[:len(a)-2] {
			batch *= max(d, 1)
		}
		return Kernel{Op: neusight.BMM, Batch: batch, M: a[len(a)-2], K: a[len(a)-1], N: b[len(b)-1]}, true
	case fn == "softmax" && len(n.Inputs) >= 1 && len(n.Inputs[0]) > 0:
		in := n.Inputs[0]
		return Kernel{Op: neusight.Softmax, Rows: lead(in), Width: last(in)}, true
	}
	ew := map[string][2]string{ // the op with two tensor operands, with a scalar
		"add": {"add", "addu"}, "sub": {"add", "addu"}, "mul": {"mul", "mulu"}, "truediv": {"div", "divu"},
		"pow": {"pow", "powu"}, "tanh": {"tanh", "tanh"}, "where": {"add", "add"},
	}
	ops, isEW := ew[fn]
	if !isEW || len(out) == 0 || n.Op == "call_method" {
		return Kernel{}, false
	}
	// the operands as large as the output are its traffic (a mask or bias
	// broadcast over it is not)
	full := 0
	for _, s := range n.Inputs {
		if neusight.Elems(s) == neusight.Elems(out) {
			full++
		}
	}
	op := ops[1]
	if full >= 2 {
		op = ops[0]
	}
	return Kernel{Op: op, Rows: lead(out), Width: last(out), Inputs: max(min(full, 2), 1), Outputs: 1}, true
}

// NodeCopies are the copies a batched product's node launches before its
// product: torch.matmul reshapes an operand of more than three dimensions
// to [batch, rows, columns], which takes a copy where the operand is not
// laid out contiguously (queries, keys and values split into heads are
// permuted views of their projections: BERT's and GPT-2's attention), and
// the graphs time the node with it. A three-dimensional operand goes to
// the product as it is (OPT's keys, transposed for torch.bmm, are a view
// the product reads transposed), and so does one whose leading dimensions
// have at most one above 1 (one sequence's heads: they merge into a view).
// None for any other node, or where the file does not say which inputs
// were contiguous.
func NodeCopies(n neusight.Node, k Kernel) []Kernel {
	if k.Op != neusight.BMM || len(n.InputContiguous) != len(n.Inputs) {
		return nil
	}
	var out []Kernel
	for i, in := range n.Inputs {
		lead := 0 // leading dimensions above 1
		for _, v := range in[:max(len(in)-2, 0)] {
			if v > 1 {
				lead++
			}
		}
		if len(in) > 3 && !n.InputContiguous[i] && lead > 1 {
			w := max(in[len(in)-1], 1)
			out = append(out, Kernel{Op: "copy", Rows: int(neusight.Elems(in)) / w, Width: w, Inputs: 1, Outputs: 1})
		}
	}
	return out
}

// NodeScore is the error of the op model on one GPU's graph nodes of one
// family, each node timed alone as the graphs measured it.
type NodeScore struct {
	GPU, Family string
	Unseen      bool // a GPU of no training measurement, scored by the model trained on every GPU
	N           int
	MAPE        float64 // mean |predicted − measured| / measured, %
	Within      float64 // share within ±10%, %
	Median      float64 // median predicted / measured
}

// ValidateNodes scores the op model on the graphs beside dir's labels
// (labels/<GPU>/<label>.csv.gz, or .csv as NeuSight's scripts write them):
// every node NodeKernel maps (with the copies NodeCopies says it runs) and
// whose forward latency is at least
// KernelBound of its op's floors (its time the GPU's, not the host's),
// predicted (Predict: timed alone, the floor of a typical host) by
// train(gpu, network), a model that never saw that GPU (and, as wb predict
// builds it, no label of the node's network in its calibration), asked
// for once per GPU and network: for a GPU whose ops are in samples, gpu is
// that GPU, for any other "" (the model trained on every GPU). A GPU with
// no spec sheet in dir or specs is passed over.
// With skip not nil, a graph that cannot be read is left out and skip
// hears why; with skip nil, it is an error.
func ValidateNodes(dir *neusight.Dir, samples []Sample, specs map[string]Spec, train func(gpu, network string) (*Model, error), skip func(why string)) ([]NodeScore, error) {
	seen := map[string]bool{}
	for i := range samples {
		seen[samples[i].GPU] = true
	}
	type acc struct {
		n, within int
		ape       float64
		ratios    []float64
	}
	accs := map[[2]string]*acc{}
	unseen := map[string]bool{}
	models := map[string]*Model{}
	for _, l := range dir.Labels {
		if l.Fused || l.GPUs > 1 {
			continue
		}
		// a training GPU's graphs are scored by the model that leaves it
		// out, any other GPU's by the model trained on every GPU ("")
		held := l.GPU
		if !seen[held] {
			held = dir.Sheet(l.GPU)
		}
		if !seen[held] {
			held = ""
		}
		s, ok := specs[held]
		if dev, own := dir.Devices[l.GPU]; own {
			s, ok = SpecOf(dev), true
		}
		if !ok {
			continue // no spec sheet: the labels' table says so
		}
		stem := filepath.Join(dir.Path, cmp.Or(l.Folder, dir.LabelsDir), l.GPU, strings.TrimSuffix(labelFile(l), ".json"))
		nodes, err := neusight.ReadGraph(stem + ".csv.gz")
		if errors.Is(err, fs.ErrNotExist) {
			// as NeuSight's scripts write it
			nodes, err = neusight.ReadGraph(stem + ".csv")
		}
		if errors.Is(err, fs.ErrNotExist) {
			continue // a label without a graph (Switch Transformers) has nothing to score
		}
		if err != nil && skip != nil {
			skip(err.Error()) // the other graphs are still scored
			continue
		}
		if err != nil {
			return nil, err
		}
		key := held + "\x00" + l.Model
		m := models[key]
		if m == nil {
			if m, err = train(held, l.Model); err != nil {
				return nil, err
			}
			models[key] = m
		}
		for _, n := range nodes {
			k, ok := NodeKernel(n)
			// kernel-bound nodes alone (KernelBound floors long): how the
			// graphs timed a node, its host's part differs from the op
			// measurements' (their floors)
			if !ok || !(n.Forward > 0) || n.Forward*1e-3 < KernelBound*m.Floors[k.Op] {
				continue
			}
			// the node's copies run before its kernel, timed with it
			kt := m.Kernel(s, &k)
			for _, c := range NodeCopies(n, k) {
				kt += m.Kernel(s, &c)
			}
			pred := m.timedAlone(k.Op, kt) * 1e3
			key := [2]string{l.GPU, Group(k.Op)}
			unseen[l.GPU] = held == ""
			a := accs[key]
			if a == nil {
				a = &acc{}
				accs[key] = a
			}
			e := math.Abs(pred-n.Forward) / n.Forward
			a.n++
			a.ape += e
			if e <= 0.1 {
				a.within++
			}
			a.ratios = append(a.ratios, pred/n.Forward)
		}
	}
	var out []NodeScore
	for key, a := range accs {
		slices.Sort(a.ratios)
		out = append(out, NodeScore{GPU: key[0], Family: key[1], Unseen: unseen[key[0]], N: a.n, MAPE: 100 * a.ape / float64(a.n),
			Within: 100 * float64(a.within) / float64(a.n), Median: predictor.MedianOf(a.ratios)})
	}
	slices.SortFunc(out, func(a, b NodeScore) int { return cmp.Or(cmp.Compare(a.GPU, b.GPU), cmp.Compare(a.Family, b.Family)) })
	return out, nil
}

// labelFile is a single-GPU label's file name.
func labelFile(l neusight.Label) string {
	return fmt.Sprintf("%s-%s-%d-%d.json", l.Model, l.Mode, l.Seq, l.Batch)
}
