package neusight

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/wb-sim/wb/datasets/internal/gzfile"
)

// Node is one node of a label's torch.fx graph
// (labels/<GPU>/<label>.csv.gz): one layer of the model with its
// embeddings and head, each node's latency measured on the label's GPU.
type Node struct {
	Name   string
	Op     string  // placeholder, call_function, call_method, call_module, output
	Target string  // "<built-in method addmm of type object at …>", "transformer.h.0.ln_1", "view"
	Inputs [][]int // the input tensors' shapes ([1] for a scalar operand, as torch.fx records it)
	Output []int   // the output's shape; nil where it is not one tensor
	// InputContiguous says, input by input, whether the tensor was laid
	// out contiguously (the file's input_contiguous: "[True, False]"); nil
	// where the file has no such column.
	InputContiguous []bool
	// Meta is torch.fx's node metadata as the file writes it (the module
	// stack the node ran in); "" where the file has no meta column.
	Meta string
	// Forward and Backward are the node's measured latencies, ms (0 where
	// none was measured: Backward in an inference graph).
	Forward, Backward float64
}

// Elems is the number of elements of a shape (1 for a scalar's []).
func Elems(shape []int) float64 {
	e := 1.0
	for _, d := range shape {
		e *= float64(d)
	}
	return e
}

// ReadGraph reads a label's graph file (gzip or plain CSV).
func ReadGraph(path string) ([]Node, error) {
	f, err := gzfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseGraph(f, path)
}

// graphColumns are the columns ParseGraph reads.
var graphColumns = []string{"op", "target", "input_shapes", "output_shape", "fw_latency", "bw_latency", "Name"}

// ParseGraph reads graph rows from r; name names r in errors. Shapes are
// lists of non-negative integers, at most MaxDim each; latencies finite, in
// [0, 1e6] ms. A row that breaks these is an error with its line.
func ParseGraph(r io.Reader, name string) ([]Node, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty: want a header with %s", name, strings.Join(graphColumns, ", "))
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.TrimPrefix(h, "\ufeff")] = i
	}
	var missing []string
	for _, c := range graphColumns {
		if _, ok := col[c]; !ok {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s: missing column(s) %s", name, strings.Join(missing, ", "))
	}
	var nodes []Node
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nodes, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		n := Node{Name: rec[col["Name"]], Op: rec[col["op"]], Target: rec[col["target"]]}
		if i, ok := col["meta"]; ok {
			n.Meta = rec[i]
		}
		if n.Inputs, err = parseShapes(rec[col["input_shapes"]]); err != nil {
			return nil, fmt.Errorf("%s:%d: input_shapes: %w", name, line, err)
		}
		if i, ok := col["input_contiguous"]; ok {
			if n.InputContiguous, err = parseBools(rec[i]); err != nil {
				return nil, fmt.Errorf("%s:%d: input_contiguous: %w", name, line, err)
			}
		}
		if out := strings.TrimSpace(rec[col["output_shape"]]); strings.HasPrefix(out, "(") && !strings.Contains(out[1:], "(") {
			// one tensor's shape, a tuple: "(4, 1024, 1280)"; anything else
			// (a tuple of tuples, a size, empty) is not one tensor
			if n.Output, err = parseShape(strings.TrimSuffix(strings.TrimPrefix(out, "("), ")")); err != nil {
				return nil, fmt.Errorf("%s:%d: output_shape: %w", name, line, err)
			}
		}
		for _, f := range []struct {
			col string
			v   *float64
		}{{"fw_latency", &n.Forward}, {"bw_latency", &n.Backward}} {
			s := strings.TrimSpace(rec[col[f.col]])
			if s == "" {
				continue
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(v) || v < 0 || v > 1e6 {
				return nil, fmt.Errorf("%s:%d: %s %q: want a time in [0, 1e6] ms", name, line, f.col, s)
			}
			*f.v = v
		}
		nodes = append(nodes, n)
	}
}

// parseBools reads "[True, False]": a list of Python booleans ("[]" or
// nothing: none).
func parseBools(s string) ([]bool, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "[]" {
		return nil, nil
	}
	if !strings.HasPrefix(s, "[") || !strings.HasSuffix(s, "]") {
		return nil, fmt.Errorf("%q: want a list of True and False, [True, …]", s)
	}
	var out []bool
	for _, f := range strings.Split(s[1:len(s)-1], ",") {
		switch strings.TrimSpace(f) {
		case "True":
			out = append(out, true)
		case "False":
			out = append(out, false)
		default:
			return nil, fmt.Errorf("%q: want a list of True and False, [True, …]", s)
		}
	}
	return out, nil
}

// parseShapes reads "[[4, 1024], [1]]": a list of shapes.
func parseShapes(s string) ([][]int, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "[]" {
		return nil, nil
	}
	if !strings.HasPrefix(s, "[") || !strings.HasSuffix(s, "]") {
		return nil, fmt.Errorf("%q: want a list of shapes, [[…], …]", s)
	}
	inner := strings.TrimSpace(s[1 : len(s)-1])
	var out [][]int
	for inner != "" {
		if inner[0] != '[' {
			return nil, fmt.Errorf("%q: want a list of shapes, [[…], …]", s)
		}
		end := strings.IndexByte(inner, ']')
		if end < 0 {
			return nil, fmt.Errorf("%q: a shape is not closed", s)
		}
		shape, err := parseShape(inner[1:end])
		if err != nil {
			return nil, err
		}
		out = append(out, shape)
		inner = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(inner[end+1:]), ","))
	}
	return out, nil
}

// parseShape reads "4, 1024, 1280" (a trailing comma allowed: "(8,)").
func parseShape(s string) ([]int, error) {
	shape := []int{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil || !Digits(f) || v > MaxDim {
			return nil, fmt.Errorf("dimension %q: want an integer in [0, %d]", f, MaxDim)
		}
		shape = append(shape, v)
	}
	return shape, nil
}
