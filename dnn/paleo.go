package dnn

import (
	"bytes"
	"container/heap"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/wb-sim/wb/internal/jsonpos"
)

// ReadPaleo reads a network in the JSON format of Paleo (Qi, Sparks and
// Talwalkar, ICLR 2017; github.com/TalwalkarLab/paleo, nets/README.md): a
// "name" and a "layers" object of named layers, each with a "type" and its
// "parents", shapes in NHWC order. name names the network and prefixes
// errors; empty, the file's "name" is used. Every error names its layer.
//
// Layers are placed in topological order by their parents, ties broken by
// their order in the file. Blocks are flattened, their layers named
// "block/layer", and a block's name as a parent means its endpoint, as in
// Paleo.
//
// Types and how they read:
//
//   - Input: "tensor" [N, H, W, C] or [N, D]; the batch N is not part of a
//     Network and is dropped.
//   - Convolution: "filter" [h, w, in, out] (in may be -1: the input's
//     channels), "strides" [1, s, s, 1], "padding" "SAME", "VALID" or
//     [ph, pw]. It has a bias unless "normalizer_fn" is "batch_norm", which
//     adds a BatchNorm node "<layer>/BatchNorm" (TF-slim's convention;
//     Paleo itself counts a bias either way). "activation_fn" (default
//     "relu", null for none) adds an activation node "<layer>/<fn>"; Paleo
//     folds it into the convolution as free.
//   - Pooling (max) and AvgPool: "ksize" [1, k, k, 1], "strides",
//     "padding" "SAME" or "VALID".
//   - InnerProduct: "num_outputs", with a bias; a [C, H, W] input is
//     flattened first by a node "<layer>/flatten".
//   - Concatenate (or Concat): along the channels, "dim" 3 (NHWC) or -1.
//   - Elementwise: a sum. ReLU, Sigmoid, TanH: activations. LRN:
//     "local_size" (Caffe) or "depth_radius" r (TensorFlow, size 2r+1),
//     default 5.
//   - Dropout and Softmax add no node (no parameters, negligible work): a
//     layer reading them reads their parent.
//
// SAME padding must be symmetric (an even total), as wb's convolutions and
// pooling pad both sides alike; model-parallel blocks ("ModelParallel")
// and blocks inside blocks are not supported.
func ReadPaleo(r io.Reader, name string) (*Network, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	n, err := readPaleo(data, name)
	if err != nil {
		return nil, locatePaleo(data, err)
	}
	return n, nil
}

// locatePaleo adds to each of err's errors that names a layer ("NET: layer
// L: …", "layer L: …") the line and column of L's key in data, so that a
// net of hundreds of layers says where to look.
func locatePaleo(data []byte, err error) error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, locatePaleo(data, e))
		}
		return errors.Join(out...)
	}
	msg := err.Error()
	net, rest, ok := strings.Cut(msg, ": layer ")
	if !ok {
		if rest, ok = strings.CutPrefix(msg, "layer "); !ok {
			return err
		}
		net = ""
	} else if strings.Contains(net, " ") {
		return err // not a net's name: the layer is named further in
	}
	layer, _, _ := strings.Cut(rest, ":")
	layer, _, _ = strings.Cut(layer, "/") // an activation's node: its layer
	line, col, found := jsonpos.Key(data, layer)
	if !found {
		return err
	}
	if net == "" {
		return fmt.Errorf("line %d, column %d: %w", line, col, err)
	}
	return &jsonpos.Error{File: net, Line: line, Col: col, Err: errors.New("layer " + rest)}
}

func readPaleo(data []byte, name string) (*Network, error) {
	var f paleoFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, jsonpos.At(paleoName(name, ""), data, err)
	}
	name = paleoName(name, f.Name)
	if f.Layers == nil {
		return nil, fmt.Errorf("%s: no layers", name)
	}
	nodes, err := flattenPaleo(name, f.Layers)
	if err != nil {
		return nil, err
	}
	order, input, err := sortPaleo(name, nodes)
	if err != nil {
		return nil, err
	}
	return buildPaleo(name, nodes, order, input)
}

func paleoName(name, fileName string) string {
	switch {
	case name != "":
		return name
	case fileName != "":
		return fileName
	}
	return "paleo"
}

type paleoFile struct {
	Name   string      `json:"name"`
	Layers paleoLayers `json:"layers"`
}

// paleoLayers is a JSON object of layers, in the file's order.
type paleoLayers []paleoEntry

type paleoEntry struct {
	name string
	spec paleoSpec
}

type paleoSpec struct {
	Type         string          `json:"type"`
	Parents      []string        `json:"parents"`
	Tensor       []int           `json:"tensor"`
	Filter       []int           `json:"filter"`
	Strides      []int           `json:"strides"`
	Ksize        []int           `json:"ksize"`
	Padding      json.RawMessage `json:"padding"`
	NumOutputs   int             `json:"num_outputs"`
	NumClasses   *int            `json:"num_classes"`
	Dim          *int            `json:"dim"`
	ActivationFn json.RawMessage `json:"activation_fn"`
	NormalizerFn *string         `json:"normalizer_fn"`
	LocalSize    int             `json:"local_size"`
	DepthRadius  *int            `json:"depth_radius"`
	Endpoint     string          `json:"endpoint"`
	Layers       paleoLayers     `json:"layers"`
}

// UnmarshalJSON reads the object key by key, keeping the file's order.
func (ls *paleoLayers) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		*ls = nil
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("layers: want an object of named layers")
	}
	seen := map[string]bool{}
	out := paleoLayers{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return fmt.Errorf("layer %s: %w", key, err)
		}
		if seen[key] {
			return fmt.Errorf("layer %s: defined twice", key)
		}
		seen[key] = true
		e := paleoEntry{name: key}
		if err := json.Unmarshal(raw, &e.spec); err != nil {
			return fmt.Errorf("layer %s: %w", key, err)
		}
		out = append(out, e)
	}
	*ls = out
	return nil
}

// paleoNode is a layer after blocks are flattened.
type paleoNode struct {
	name    string
	spec    *paleoSpec
	parents []int
}

// flattenPaleo expands blocks and resolves parents to indices.
func flattenPaleo(net string, layers paleoLayers) ([]paleoNode, error) {
	var (
		nodes     []paleoNode
		parents   [][]string
		endpoints = map[string]string{}
		errs      []error
	)
	fail := func(layer, format string, a ...any) {
		errs = append(errs, fmt.Errorf("%s: layer %s: %s", net, layer, fmt.Sprintf(format, a...)))
	}
	for i := range layers {
		e := &layers[i]
		switch e.spec.Type {
		case "ModelParallel":
			fail(e.name, "model-parallel blocks are not supported")
		case "Block":
			if e.spec.Endpoint != "" {
				endpoints[e.name] = e.name + "/" + e.spec.Endpoint
			}
			for j := range e.spec.Layers {
				s := &e.spec.Layers[j]
				full := e.name + "/" + s.name
				if s.spec.Type == "Block" || s.spec.Type == "ModelParallel" {
					fail(full, "blocks inside blocks are not supported")
					continue
				}
				ps := e.spec.Parents
				if len(s.spec.Parents) > 0 {
					ps = make([]string, len(s.spec.Parents))
					for k, p := range s.spec.Parents {
						ps[k] = e.name + "/" + p
					}
				}
				nodes = append(nodes, paleoNode{name: full, spec: &s.spec})
				parents = append(parents, ps)
			}
		default:
			nodes = append(nodes, paleoNode{name: e.name, spec: &e.spec})
			parents = append(parents, e.spec.Parents)
		}
	}
	index := map[string]int{}
	for i, n := range nodes {
		if _, dup := index[n.name]; dup {
			fail(n.name, "defined twice")
			continue
		}
		index[n.name] = i
	}
	for i := range nodes {
		for _, p := range parents[i] {
			if ep, ok := endpoints[p]; ok {
				p = ep
			}
			j, ok := index[p]
			if !ok {
				fail(nodes[i].name, "unknown parent %q", p)
				continue
			}
			nodes[i].parents = append(nodes[i].parents, j)
		}
	}
	return nodes, errors.Join(errs...)
}

// sortPaleo orders the nodes topologically, the earliest in the file first
// among those ready, and finds the input.
func sortPaleo(net string, nodes []paleoNode) (order []int, input int, err error) {
	input = -1
	pending := make([]int, len(nodes))
	children := make([][]int, len(nodes))
	var ready indexHeap
	for i, n := range nodes {
		if n.spec.Type == "Input" {
			if len(n.parents) > 0 {
				return nil, 0, fmt.Errorf("%s: layer %s: an input has no parents", net, n.name)
			}
			if input >= 0 {
				return nil, 0, fmt.Errorf("%s: layer %s: a second input (the first is %s)", net, n.name, nodes[input].name)
			}
			input = i
		} else if len(n.parents) == 0 {
			return nil, 0, fmt.Errorf("%s: layer %s: no parents", net, n.name)
		}
		pending[i] = len(n.parents)
		for _, p := range n.parents {
			children[p] = append(children[p], i)
		}
		if pending[i] == 0 {
			ready = append(ready, i)
		}
	}
	if input < 0 {
		return nil, 0, fmt.Errorf("%s: no layer of type Input", net)
	}
	heap.Init(&ready)
	for ready.Len() > 0 {
		i := heap.Pop(&ready).(int)
		order = append(order, i)
		for _, c := range children[i] {
			if pending[c]--; pending[c] == 0 {
				heap.Push(&ready, c)
			}
		}
	}
	if len(order) < len(nodes) {
		var stuck []string
		for i := range nodes {
			if pending[i] > 0 {
				stuck = append(stuck, nodes[i].name)
			}
		}
		return nil, 0, fmt.Errorf("%s: layers in a cycle or after one: %s", net, strings.Join(stuck, ", "))
	}
	return order, input, nil
}

// indexHeap is a min-heap of node indices.
type indexHeap []int

func (h indexHeap) Len() int           { return len(h) }
func (h indexHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h indexHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *indexHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *indexHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// paleoTypes are the layer types ReadPaleo reads, for error messages.
const paleoTypes = "AvgPool, Block, Concat, Concatenate, Convolution, Dropout, Elementwise, InnerProduct, Input, LRN, Pooling, ReLU, Sigmoid, Softmax, TanH"

// buildPaleo builds the network from the sorted nodes.
func buildPaleo(net string, nodes []paleoNode, order []int, input int) (*Network, error) {
	in, err := paleoShape(nodes[input].spec.Tensor)
	if err != nil {
		return nil, fmt.Errorf("%s: layer %s: %w", net, nodes[input].name, err)
	}
	b, x := NewBuilder(net, in)
	out := make([]T, len(nodes))
	out[input] = x
	for _, i := range order {
		if i == input {
			continue
		}
		n := nodes[i]
		xs := make([]T, len(n.parents))
		bad := false
		for k, p := range n.parents {
			xs[k] = out[p]
			bad = bad || xs[k].bad
		}
		if bad {
			out[i] = T{bad: true}
			continue
		}
		y, err := addPaleo(b, n.name, n.spec, xs)
		if err != nil {
			// Among the builder's, in the order of the layers.
			b.errs = append(b.errs, fmt.Errorf("%s: layer %s: %w", net, n.name, err))
			y = T{bad: true}
		}
		out[i] = y
	}
	return b.Build()
}

// paleoShape converts an NHWC or ND tensor to a per-sample shape.
func paleoShape(t []int) (Shape, error) {
	switch len(t) {
	case 4:
		return Shape{t[3], t[1], t[2]}, nil
	case 2:
		return Shape{t[1]}, nil
	}
	return nil, fmt.Errorf("tensor %v: want [N, H, W, C] or [N, D]", t)
}

// addPaleo adds the nodes of one Paleo layer; errors the builder does not
// report are returned.
func addPaleo(b *Builder, name string, s *paleoSpec, xs []T) (T, error) {
	single := func() (T, error) {
		if len(xs) != 1 {
			return T{}, fmt.Errorf("%s takes one parent, got %d", s.Type, len(xs))
		}
		return xs[0], nil
	}
	switch s.Type {
	case "Convolution":
		x, err := single()
		if err != nil {
			return x, err
		}
		return paleoConv(b, name, s, x)
	case "Pooling", "AvgPool":
		x, err := single()
		if err != nil {
			return x, err
		}
		return paleoPool(b, name, s, x)
	case "InnerProduct":
		x, err := single()
		if err != nil {
			return x, err
		}
		if s.NumOutputs <= 0 {
			return T{}, fmt.Errorf("num_outputs %d: want a positive number", s.NumOutputs)
		}
		if len(x.Shape()) != 1 {
			x = b.Flatten(name+"/flatten", x)
		}
		return b.Linear(name, x, s.NumOutputs, true), nil
	case "Concatenate", "Concat":
		if s.Dim == nil {
			return T{}, fmt.Errorf("no dim")
		}
		if len(xs) > 0 {
			r := len(xs[0].Shape())
			if d := *s.Dim; d != -1 && d != r {
				return T{}, fmt.Errorf("concatenation along dim %d of [N, %s]: only the channels (dim %d or -1) are supported", d, nhwc(r), r)
			}
		}
		return b.Concat(name, xs...), nil
	case "Elementwise":
		return b.Sum(name, xs...), nil
	case "ReLU", "Sigmoid", "TanH":
		x, err := single()
		if err != nil {
			return x, err
		}
		return b.Activation(name, x, strings.ToLower(s.Type)), nil
	case "LRN":
		x, err := single()
		if err != nil {
			return x, err
		}
		size := 5
		switch {
		case s.LocalSize != 0:
			size = s.LocalSize
		case s.DepthRadius != nil:
			size = 2**s.DepthRadius + 1
		}
		return b.LRN(name, x, size), nil
	case "Dropout":
		return single()
	case "Softmax":
		x, err := single()
		if err != nil {
			return x, err
		}
		if s.NumClasses != nil && int64(*s.NumClasses) != x.Shape().Elems() {
			return T{}, fmt.Errorf("softmax over %d classes of a %v input", *s.NumClasses, x.Shape())
		}
		return x, nil
	case "":
		return T{}, fmt.Errorf("no type")
	}
	return T{}, fmt.Errorf("unknown layer type %q (known: %s)", s.Type, paleoTypes)
}

// nhwc names the per-sample dimensions of a rank-r shape in Paleo's order.
func nhwc(r int) string {
	if r == 3 {
		return "H, W, C"
	}
	return "D"
}

// paleoConv adds a convolution and its normalisation and activation.
func paleoConv(b *Builder, name string, s *paleoSpec, x T) (T, error) {
	in := x.Shape()
	if len(in) != 3 {
		return T{}, fmt.Errorf("convolution of a %v input: want [H, W, C]", in)
	}
	f := s.Filter
	if len(f) != 4 {
		return T{}, fmt.Errorf("filter %v: want [h, w, in, out]", f)
	}
	if f[0] <= 0 || f[1] <= 0 || f[3] <= 0 {
		return T{}, fmt.Errorf("filter %v: want positive sizes", f)
	}
	if f[2] != -1 && f[2] != in[0] {
		return T{}, fmt.Errorf("filter %v for an input of %d channels", f, in[0])
	}
	stride, err := paleoStride(s.Strides)
	if err != nil {
		return T{}, err
	}
	ph, pw, err := paleoPadding(s.Padding, in, f[0], f[1], stride, true)
	if err != nil {
		return T{}, err
	}
	norm := ""
	if s.NormalizerFn != nil {
		norm = *s.NormalizerFn
		if norm != "batch_norm" {
			return T{}, fmt.Errorf("normalizer_fn %q: only batch_norm is known", norm)
		}
	}
	act := "relu"
	if len(s.ActivationFn) > 0 {
		var a *string
		if err := json.Unmarshal(s.ActivationFn, &a); err != nil {
			return T{}, fmt.Errorf("activation_fn: %w", err)
		}
		act = ""
		if a != nil {
			act = *a
		}
	}
	y := convHW(b, name, x, Conv{Out: f[3], Kernel: f[0], KernelW: f[1], Stride: stride, Bias: norm == ""}, ph, pw)
	if norm != "" {
		y = b.BatchNorm(name+"/BatchNorm", y)
	}
	if act != "" {
		y = b.Activation(name+"/"+act, y, act)
	}
	return y, nil
}

// paleoPool adds max or average pooling.
func paleoPool(b *Builder, name string, s *paleoSpec, x T) (T, error) {
	in := x.Shape()
	if len(in) != 3 {
		return T{}, fmt.Errorf("pooling of a %v input: want [H, W, C]", in)
	}
	k := s.Ksize
	if len(k) != 4 || k[0] != 1 || k[3] != 1 || k[1] != k[2] || k[1] <= 0 {
		return T{}, fmt.Errorf("ksize %v: want [1, k, k, 1], k > 0", k)
	}
	stride, err := paleoStride(s.Strides)
	if err != nil {
		return T{}, err
	}
	pad, padW, err := paleoPadding(s.Padding, in, k[1], k[2], stride, false)
	if err != nil {
		return T{}, err
	}
	if pad != padW {
		return T{}, fmt.Errorf("SAME padding of a %v input: %d rows but %d columns, which wb's pooling cannot do", in, pad, padW)
	}
	if s.Type == "AvgPool" {
		return b.AvgPool(name, x, k[1], stride, pad), nil
	}
	return b.MaxPool(name, x, k[1], stride, pad), nil
}

// paleoStride reads strides [1, s, s, 1].
func paleoStride(st []int) (int, error) {
	if len(st) != 4 || st[0] != 1 || st[3] != 1 || st[1] != st[2] || st[1] <= 0 {
		return 0, fmt.Errorf("strides %v: want [1, s, s, 1], s > 0", st)
	}
	return st[1], nil
}

// paleoPadding reads "VALID", "SAME" (TensorFlow's: the output is the
// input divided by the stride, rounded up) or, where explicit is true,
// [ph, pw], and returns the padding of each side in height and width.
func paleoPadding(raw json.RawMessage, in Shape, kh, kw, stride int, explicit bool) (ph, pw int, err error) {
	if len(raw) == 0 {
		return 0, 0, fmt.Errorf("no padding")
	}
	var mode string
	if err := json.Unmarshal(raw, &mode); err != nil {
		var hw []int
		if !explicit || json.Unmarshal(raw, &hw) != nil || len(hw) != 2 {
			want := `"SAME" or "VALID"`
			if explicit {
				want += " or [ph, pw]"
			}
			return 0, 0, fmt.Errorf("padding %s: want %s", raw, want)
		}
		if hw[0] < 0 || hw[1] < 0 {
			return 0, 0, fmt.Errorf("padding %v: want sizes ≥ 0", hw)
		}
		return hw[0], hw[1], nil
	}
	switch mode {
	case "VALID":
		return 0, 0, nil
	case "SAME":
		same := func(size, k int) (int, error) {
			out := (size-1)/stride + 1
			total := max((out-1)*stride+k-size, 0)
			if total%2 != 0 {
				return 0, fmt.Errorf("SAME padding of a %d kernel, stride %d, over %d needs %d values, which wb cannot split evenly", k, stride, size, total)
			}
			return total / 2, nil
		}
		if ph, err = same(in[1], kh); err != nil {
			return 0, 0, err
		}
		if pw, err = same(in[2], kw); err != nil {
			return 0, 0, err
		}
		return ph, pw, nil
	}
	return 0, 0, fmt.Errorf("padding %q: want SAME or VALID", mode)
}
