// Package neusight reads the GPU measurements of NeuSight (Lee, Phanishayee,
// Mahajan, "Forecasting GPU Performance for Deep Learning Training and
// Inference", ASPLOS 2025; MIT license), bundled under datasets/data/neusight:
//
//   - ops/<op>/<GPU>.csv.gz: one forward call of one op per row, its
//     latency in ms and its dimensions ([Op]);
//   - labels/<GPU>/<model>-<inf|train>-<seq>-<batch>[-fusion].json: the
//     measured latency of one whole iteration ([Label]);
//   - devices/<GPU>.json: a GPU's spec sheet ([Device]);
//   - models/<model>.json: a model's Hugging Face config.json, read by
//     [github.com/wb-sim/wb/dnn.ReadHFConfig].
//
// <GPU> is torch.cuda.get_device_name with spaces as underscores
// ("Tesla_V100-PCIE-32GB"). Readers decompress gzip transparently; errors name
// the file, line and column.
package neusight

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/wb-sim/wb/datasets"
	"github.com/wb-sim/wb/datasets/internal/csvtab"
	"github.com/wb-sim/wb/datasets/internal/gzfile"
	"github.com/wb-sim/wb/internal/jsonpos"
	"github.com/wb-sim/wb/internal/readcap"
)

// Op families as the ops/ folders name them.
const (
	Linear  = "linear"  // B, M, N, K: (B·M × N)·(N × K) plus bias; N is the reduction
	BMM     = "bmm"     // B, M, N, K: B products (M × N)·(N × K)
	Conv    = "conv"    // B, InC, OutC, Kernel, Size, Stride, Padding
	LN      = "ln"      // B rows of H
	Softmax = "softmax" // B rows of H
)

// Elementwise lists the elementwise ops, each over B×H elements; a "u" suffix
// is the op with a scalar operand.
var Elementwise = []string{"add", "addu", "div", "divu", "gelu", "mul", "mulu", "pow", "powu", "relu", "tanh"}

// Families lists every op folder name.
func Families() []string {
	return append([]string{BMM, Conv, Linear, LN, Softmax}, Elementwise...)
}

// IsElementwise reports whether op is one of [Elementwise].
func IsElementwise(op string) bool { return slices.Contains(Elementwise, op) }

// Op is one measured forward call of one op.
type Op struct {
	Line    int
	Op      string  // the family: linear, bmm, conv, ln, softmax or an elementwise op
	Latency float64 // ms
	Device  string  // as the row names it: "Tesla T4"

	// Dimensions; which are set depends on Op (see the package comment).
	B, M, N, K int
	H          int
	// Convolution: square input Size×Size and kernel Kernel×Kernel.
	InC, OutC, Kernel, Size, Stride, Padding int

	KernelName string // the op's longest kernel, as measured
}

// opRow mirrors the columns the reader uses.
type opRow struct {
	OPName  string `csv:"OPName"`
	Latency string `csv:"Latency"`
	Device  string `csv:"Device"`
	Kernel  string `csv:"Kernel Name"`
	B       string `csv:"B"`
	M       string `csv:"M"`
	N       string `csv:"N"`
	K       string `csv:"K"`
	H       string `csv:"H"`
	InC     string `csv:"Input_Channel"`
	OutC    string `csv:"Output_Channel"`
	KSize   string `csv:"Kernel_Szie"`
	Size    string `csv:"Input_Size"`
	Stride  string `csv:"Stride"`
	Padding string `csv:"Padding"`
}

// MaxDim bounds every dimension: a product of three of them (the FLOPs of a
// GEMM) stays far inside a float64's exact integers and an int64.
const MaxDim = 1 << 20

// dims returns the dimension columns family needs.
func dims(family string) ([]string, error) {
	switch {
	case family == Linear || family == BMM:
		return []string{"B", "M", "N", "K"}, nil
	case family == Conv:
		return []string{"B", "Input_Channel", "Output_Channel", "Kernel_Szie", "Input_Size", "Stride", "Padding"}, nil
	case family == LN || family == Softmax || IsElementwise(family):
		return []string{"B", "H"}, nil
	}
	return nil, fmt.Errorf("unknown op family %q (known: %s)", family, strings.Join(Families(), ", "))
}

// ReadOps reads the op file at path; its family is the name of its folder
// (ops/linear/Tesla_T4.csv.gz holds linear ops).
func ReadOps(path string) ([]Op, error) {
	f, err := gzfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadOpsFrom(f, path, filepath.Base(filepath.Dir(path)))
}

// ReadOpsFrom reads op rows of family from r; name names r in errors. Every
// row's OPName must be the family, its latency a positive finite number of
// ms, and its dimensions integers in [1, MaxDim] (stride ≥ 1, padding ≥ 0,
// the kernel no larger than the padded input).
func ReadOpsFrom(r io.Reader, name, family string) ([]Op, error) {
	cols, err := dims(family)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var rows []opRow
	t := csvtab.Table{Columns: append([]string{"OPName", "Latency"}, cols...), Required: append([]string{"OPName", "Latency"}, cols...), Header: true}
	_, lines, err := t.Read(r, name, &rows)
	if err != nil {
		return nil, err
	}
	p := &csvtab.Parser{File: name}
	out := make([]Op, 0, len(rows))
	dim := func(line int, col, s string, min int64) int {
		v := p.Int(line, col, s)
		if v < min || v > MaxDim {
			p.Errorf(line, col, "%d is outside [%d, %d]", v, min, MaxDim)
			return int(min)
		}
		return int(v)
	}
	for i, row := range rows {
		if p.Full() {
			break
		}
		line := lines[i]
		if strings.TrimSpace(row.OPName) != family {
			p.Errorf(line, "OPName", "%q in a file of %s ops", row.OPName, family)
			continue
		}
		o := Op{Line: line, Op: family, Device: row.Device, KernelName: row.Kernel}
		o.Latency = p.Float(line, "Latency", row.Latency)
		if o.Latency <= 0 {
			p.Errorf(line, "Latency", "%v ms: want a positive time", o.Latency)
		}
		switch {
		case family == Linear || family == BMM:
			o.B = dim(line, "B", row.B, 1)
			o.M = dim(line, "M", row.M, 1)
			o.N = dim(line, "N", row.N, 1)
			o.K = dim(line, "K", row.K, 1)
		case family == Conv:
			o.B = dim(line, "B", row.B, 1)
			o.InC = dim(line, "Input_Channel", row.InC, 1)
			o.OutC = dim(line, "Output_Channel", row.OutC, 1)
			o.Kernel = dim(line, "Kernel_Szie", row.KSize, 1)
			o.Size = dim(line, "Input_Size", row.Size, 1)
			o.Stride = dim(line, "Stride", row.Stride, 1)
			o.Padding = dim(line, "Padding", row.Padding, 0)
			if o.Kernel > o.Size+2*o.Padding {
				p.Errorf(line, "Kernel_Szie", "kernel %d larger than the padded input %d", o.Kernel, o.Size+2*o.Padding)
			}
		default:
			o.B = dim(line, "B", row.B, 1)
			o.H = dim(line, "H", row.H, 1)
		}
		out = append(out, o)
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// FLOPs is the op's arithmetic: 2 per multiply-add of a product, one per
// element of the elementwise ops (several per element of layer norm and
// softmax: see the body).
func (o *Op) FLOPs() float64 {
	switch {
	case o.Op == Linear:
		// bias: one add per output
		return 2*f(o.B)*f(o.M)*f(o.N)*f(o.K) + f(o.B)*f(o.M)*f(o.K)
	case o.Op == BMM:
		return 2 * f(o.B) * f(o.M) * f(o.N) * f(o.K)
	case o.Op == Conv:
		out := f(o.OutSize())
		return 2 * f(o.B) * f(o.OutC) * out * out * f(o.InC) * f(o.Kernel) * f(o.Kernel)
	case o.Op == LN:
		return 8 * f(o.B) * f(o.H) // mean, variance, normalise, scale and shift
	case o.Op == Softmax:
		return 5 * f(o.B) * f(o.H) // max, exp, sum, divide
	}
	return f(o.B) * f(o.H)
}

// OutSize is a convolution's output width (and height).
func (o *Op) OutSize() int {
	return (o.Size+2*o.Padding-o.Kernel)/o.Stride + 1
}

func f(i int) float64 { return float64(i) }

// Device is a GPU's spec sheet (devices/<GPU>.json).
type Device struct {
	Name        string  `json:"Device"`      // "NVIDIA H100 80GB HBM3"
	MemGB       float64 `json:"Dev_Mem"`     // GB of device memory
	BandwidthGB float64 `json:"Mem_Bw"`      // GB/s of memory bandwidth
	SMs         int     `json:"Num_Sm"`      // streaming multiprocessors
	LanesPerSM  int     `json:"Core_Per_SM"` // fp32 lanes per SM
	ClockMHz    float64 `json:"Freq"`        // boost clock
	FP32GFLOPs  float64 `json:"SingleFLOPs"` // fp32 peak, GFLOP/s
	L2MB        float64 `json:"L2Cache"`     // MB of L2 cache
}

// sheet is a Device as a sheet's JSON holds it: its counts read as numbers
// and taken where whole, as Python and pandas write them (128.0).
type sheet struct {
	Name        string  `json:"Device"`
	MemGB       float64 `json:"Dev_Mem"`
	BandwidthGB float64 `json:"Mem_Bw"`
	SMs         float64 `json:"Num_Sm"`
	LanesPerSM  float64 `json:"Core_Per_SM"`
	ClockMHz    float64 `json:"Freq"`
	FP32GFLOPs  float64 `json:"SingleFLOPs"`
	L2MB        float64 `json:"L2Cache"`
}

// countFields are the sheet's fields that count (a whole number).
var countFields = []string{"Num_Sm", "Core_Per_SM"}

// device is the sheet's Device; a count with a fraction is an error at
// its field of b, the sheet named name.
func (s *sheet) device(name string, b []byte) (Device, error) {
	var errs []error
	count := func(field string, v float64) int {
		// beyond 2^31 is beyond any bound Validate allows, and an int's
		if v != math.Trunc(v) || math.Abs(v) > 1<<31 {
			errs = append(errs, fmt.Errorf("%s: a JSON number %v, want a whole number", field, v))
			return 0
		}
		return int(v)
	}
	d := Device{Name: s.Name, MemGB: s.MemGB, BandwidthGB: s.BandwidthGB, SMs: count("Num_Sm", s.SMs), LanesPerSM: count("Core_Per_SM", s.LanesPerSM),
		ClockMHz: s.ClockMHz, FP32GFLOPs: s.FP32GFLOPs, L2MB: s.L2MB}
	if err := errors.Join(errs...); err != nil {
		return Device{}, jsonpos.Fields(name, b, err)
	}
	return d, nil
}

// deviceFields are a spec sheet's fields, as [Device] names them.
var deviceFields = []string{"Device", "Dev_Mem", "Mem_Bw", "Num_Sm", "Core_Per_SM", "Freq", "SingleFLOPs", "L2Cache"}

// ReadDevice reads a spec sheet from path, as a folder's sheets are read:
// fields beyond the eight (other tools' figures) are ignored, a missing one
// is an error.
func ReadDevice(path string) (Device, error) {
	d, _, err := ReadDeviceNotes(path)
	return d, err
}

// ReadDeviceNotes is ReadDevice, and the fields it ignored, sorted.
func ReadDeviceNotes(path string) (Device, []string, error) {
	b, err := readcap.ReadFile(path, readcap.JSON)
	if err != nil {
		return Device{}, nil, err
	}
	return parseDeviceLoose(b, path)
}

// decodeError is a sheet's JSON error, positioned: a figure of the wrong
// JSON type named by its field (a clock given as a string, a count with a
// fraction), any other with the fields a sheet has.
func decodeError(name string, b []byte, err error) error {
	pos := jsonpos.At(name, b, err)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field == "" {
		return fmt.Errorf("%s: a JSON %s, want an object with the fields %s", name, te.Value, strings.Join(deviceFields, ", "))
	}
	if errors.As(err, &te) && te.Field != "" && te.Type != nil {
		field := te.Field[strings.LastIndex(te.Field, ".")+1:]
		want := "a number"
		switch {
		case te.Type.Kind() == reflect.Int || te.Type.Kind() == reflect.Int64 || slices.Contains(countFields, field):
			want = "a whole number"
		case te.Type.Kind() == reflect.String:
			want = "a string"
		}
		msg := fmt.Errorf("%s: a JSON %s, want %s", field, te.Value, want)
		if want == "a number" && strings.HasPrefix(te.Value, "number") {
			msg = fmt.Errorf("%s: a JSON %s, out of range", field, te.Value) // (1e999)
		}
		if pe := (*jsonpos.Error)(nil); errors.As(pos, &pe) {
			return &jsonpos.Error{File: pe.File, Line: pe.Line, Col: pe.Col, Err: msg}
		}
		return fmt.Errorf("%s: %w", name, msg)
	}
	return fmt.Errorf("%w (want the fields %s)", pos, strings.Join(deviceFields, ", "))
}

// typeProblems reports every field of the sheet b whose JSON value is of
// the wrong type (a string for a figure, a number for the name; a count
// with a fraction too), each at its line, where more than one is (nil
// otherwise: decodeError says the one): a sheet of two figures written as strings was refused for the
// first alone, and the second met after mending it (a reviewer's find).
func typeProblems(name string, b []byte) error {
	var fields map[string]json.RawMessage
	if json.Unmarshal(b, &fields) != nil {
		return nil
	}
	var errs []error
	for i, f := range deviceFields {
		k := ""
		for _, key := range slices.Sorted(maps.Keys(fields)) {
			if strings.EqualFold(f, key) {
				k = key
			}
		}
		raw := bytes.TrimSpace(fields[k])
		if k == "" || len(raw) == 0 || raw[0] == 'n' { // (null: fieldProblems says so)
			continue
		}
		kind := map[byte]string{'"': "string", 't': "bool", 'f': "bool", '[': "array", '{': "object"}[raw[0]]
		want := "a number"
		if slices.Contains(countFields, deviceFields[i]) {
			want = "a whole number"
		}
		switch {
		case deviceFields[i] == "Device" && kind != "string":
			if kind == "" {
				kind = "number"
			}
			errs = append(errs, fmt.Errorf("%s: a JSON %s, want a string", k, kind))
		case deviceFields[i] != "Device" && kind != "":
			errs = append(errs, fmt.Errorf("%s: a JSON %s, want %s", k, kind, want))
		case deviceFields[i] != "Device":
			v, err := strconv.ParseFloat(string(raw), 64)
			switch {
			case err != nil:
				errs = append(errs, fmt.Errorf("%s: a JSON number %s, out of range", k, raw))
			case want == "a whole number" && (v != math.Trunc(v) || math.Abs(v) > 1<<31):
				// (as sheet.device says it once the types are right)
				errs = append(errs, fmt.Errorf("%s: a JSON number %v, want a whole number", k, v))
			}
		}
	}
	if len(errs) < 2 {
		return nil
	}
	return jsonpos.Fields(name, b, errors.Join(errs...))
}

// fieldProblems reports a sheet's key given twice, in any case (encoding/json
// matches a field's name in any case and keeps the last: jsonpos.Duplicates,
// at the second's line and column), or a field given as null (read as 0,
// which the bounds would blame).
func fieldProblems(name string, b []byte, fields map[string]json.RawMessage) error {
	if err := jsonpos.Duplicates(name, b, true); err != nil {
		return err
	}
	var errs []error
	for _, f := range deviceFields {
		for _, k := range slices.Sorted(maps.Keys(fields)) {
			if strings.EqualFold(k, f) && strings.TrimSpace(string(fields[k])) == "null" {
				errs = append(errs, fmt.Errorf("%s: null: want a figure (a spec sheet has the fields %s)", k, strings.Join(deviceFields, ", ")))
			}
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%s: %w", name, errors.Join(errs...))
}

// missingFields are the sheet's fields absent from fields (its keys, in
// any case, as encoding/json matches them), in the sheet's order; extra
// names the keys it has that wb does not read.
func missingFields(name string, fields map[string]json.RawMessage, extra []string) error {
	var missing []string
	for _, f := range deviceFields {
		if !slices.ContainsFunc(slices.Collect(maps.Keys(fields)), func(k string) bool { return strings.EqualFold(k, f) }) {
			missing = append(missing, f)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	err := fmt.Errorf("%s: no %s (a spec sheet has the fields %s)", name, strings.Join(missing, ", "), strings.Join(deviceFields, ", "))
	if len(extra) > 0 {
		err = fmt.Errorf("%w; it has %s, which wb does not read", err, strings.Join(extra, ", "))
	}
	return err
}

// ParseDevice parses a spec sheet; name names it in errors. Unknown fields
// are refused (a typo would otherwise leave a figure at zero); every figure
// must be positive and finite, and the fp32 peak within 10% of
// SMs × lanes × 2 × clock.
func ParseDevice(b []byte, name string) (Device, error) {
	b = bytes.TrimPrefix(b, []byte("\ufeff")) // a byte-order mark, as some editors write
	var s sheet
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		if err := typeProblems(name, b); err != nil {
			return Device{}, err // every figure of the wrong type, not the first alone
		}
		return Device{}, decodeError(name, b, err)
	}
	if dec.More() {
		return Device{}, fmt.Errorf("%s: more than one JSON value", name)
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(b, &fields) == nil {
		if err := fieldProblems(name, b, fields); err != nil {
			return Device{}, err
		}
		if err := missingFields(name, fields, nil); err != nil {
			return Device{}, err
		}
	}
	d, err := s.device(name, b)
	if err != nil {
		return Device{}, err
	}
	if err := d.Validate(); err != nil {
		return Device{}, jsonpos.Fields(name, b, err)
	}
	return d, nil
}

// Validate checks a spec sheet's figures.
func (d *Device) Validate() error {
	var errs []error
	if strings.TrimSpace(d.Name) == "" {
		errs = append(errs, errors.New("Device: empty name"))
	}
	// the bounds lie far beyond any GPU's on both sides, near enough to
	// catch most figures in the wrong unit (an L2 of 6144 given in KB,
	// bandwidth in TB/s); Num_Sm × Core_Per_SM × Freq is checked against
	// SingleFLOPs below
	in := func(field string, v float64, what string, lo, hi float64) {
		if !(v >= lo) || v > hi || math.IsInf(v, 0) {
			errs = append(errs, fmt.Errorf("%s: %v: want %s, from %g to %g", field, v, what, lo, hi))
		}
	}
	in("Dev_Mem", d.MemGB, "the device memory in GB", 0.25, 1024)
	in("Mem_Bw", d.BandwidthGB, "the memory bandwidth in GB/s", 10, 1e5)
	in("Num_Sm", float64(d.SMs), "the number of SMs", 1, 1e4)
	in("Core_Per_SM", float64(d.LanesPerSM), "the fp32 lanes per SM", 1, 1024)
	in("Freq", d.ClockMHz, "the boost clock in MHz", 100, 1e4)
	in("SingleFLOPs", d.FP32GFLOPs, "the fp32 peak in GFLOP/s", 1, 1e8)
	in("L2Cache", d.L2MB, "the L2 cache in MB", 0.05, 1024)
	if len(errs) == 0 {
		want := float64(d.SMs) * float64(d.LanesPerSM) * 2 * d.ClockMHz / 1e3
		if r := d.FP32GFLOPs / want; r < 0.9 || r > 1.1 {
			hint := "check Num_Sm, Core_Per_SM (fp32 lanes, not tensor cores) and Freq (the boost clock in MHz)"
			switch {
			case r > 0.0009 && r < 0.0011:
				hint = "a figure in TFLOP/s? SingleFLOPs is in GFLOP/s: multiply by 1000"
			case r > 1.5:
				hint = "a tensor-core (TF32, FP16) figure? SingleFLOPs is the fp32 peak of the CUDA cores; or " + hint
			}
			errs = append(errs, fmt.Errorf("SingleFLOPs: %v GFLOP/s, but Num_Sm × Core_Per_SM × 2 × Freq / 1000 is %.0f: the fp32 peak must lie within 10%% of it (%s)", d.FP32GFLOPs, want, hint))
		}
	}
	return errors.Join(errs...)
}

// Mode is what a label's iteration runs.
type Mode string

const (
	Inference Mode = "inf"   // forward only
	Training  Mode = "train" // forward and backward
)

// Label is the measured latency of one whole iteration of one model.
type Label struct {
	GPU   string // the folder: "Tesla_V100-PCIE-32GB"
	Model string // "bert_large", a file of models/
	Mode  Mode
	Seq   int // tokens per sequence
	Batch int
	Fused bool // run with operator fusion (torch.compile)
	// GPUs counts the GPUs of a multi-GPU label (a file name with a
	// parallelism suffix); 1 otherwise.
	GPUs int
	// DP, TP and PP are its data-, tensor- and pipeline-parallel degrees
	// (GPUs is their product); 1 where the name gives none.
	DP, TP, PP int
	// MicroBatches of a pipeline-parallel label ("-pp4_8": 8); 0 otherwise.
	MicroBatches int
	// Variant holds name suffixes the reader does not know ("-" joined);
	// such a label is read, and a predictor may skip it.
	Variant string

	// Folder is the folder of DIR the label was read from: "labels", or
	// "label" as NeuSight's scripts name it ("" where not read from one).
	Folder string `json:"-"`

	Layers  int     `json:"num_layer"`     // transformer layers run
	E2E     float64 `json:"e2e_latency"`   // ms per iteration
	Forward float64 `json:"fw_latency"`    // ms
	Back    float64 `json:"bwall_latency"` // ms
}

// ParseLabelName reads a label's file name (without folder):
// <model>-<inf|train>-<seq>-<batch>[-fusion].json, the model's name
// possibly holding '-'. A further suffix marks a
// multi-GPU run ("-dp4", "-tp2", "-pp4_8": 4 stages, 8 micro-batches), whose
// GPU count it reads; any other suffix is kept in Variant.
func ParseLabelName(file string) (Label, error) {
	base := trimJSON(file)
	if base == file {
		return Label{}, fmt.Errorf("label %q: want a .json file", file)
	}
	parts := strings.Split(base, "-")
	if len(parts) < 4 {
		return Label{}, fmt.Errorf("label %q: want <model>-<inf|train>-<seq>-<batch>[-fusion].json", file)
	}
	// a model's name may hold '-' (NeuSight's scripts name a label by its
	// config file's name, "gpt2-large.json" giving "gpt2-large-inf-..."):
	// the model is what comes before the first inf or train followed by
	// two numbers
	for i := 2; i+2 < len(parts); i++ {
		if m := Mode(parts[i]); m == Inference || m == Training {
			if _, err := positive(parts[i+1]); err == nil {
				if _, err := positive(parts[i+2]); err == nil {
					parts = append([]string{strings.Join(parts[:i], "-")}, parts[i:]...)
					break
				}
			}
		}
	}
	l := Label{Model: parts[0], Mode: Mode(parts[1]), GPUs: 1, DP: 1, TP: 1, PP: 1}
	if l.Model == "" {
		return Label{}, fmt.Errorf("label %q: empty model name", file)
	}
	if l.Mode != Inference && l.Mode != Training {
		return Label{}, fmt.Errorf("label %q: mode %q: want inf or train", file, parts[1])
	}
	var err error
	if l.Seq, err = positive(parts[2]); err != nil {
		return Label{}, fmt.Errorf("label %q: sequence length: %w", file, err)
	}
	if l.Batch, err = positive(parts[3]); err != nil {
		return Label{}, fmt.Errorf("label %q: batch: %w", file, err)
	}
	seen := map[string]bool{} // the degrees given
	for _, s := range parts[4:] {
		degree, micro, _ := strings.Cut(s, "_") // pp4_8: 4 stages, 8 micro-batches
		switch {
		case s == "fusion":
			l.Fused = true
		case len(degree) > 2 && (degree[:2] == "dp" || degree[:2] == "tp" || degree[:2] == "pp"):
			n, err := positive(degree[2:])
			mb := 0
			if err == nil && micro != "" {
				mb, err = positive(micro)
			}
			deg := map[string]*int{"dp": &l.DP, "tp": &l.TP, "pp": &l.PP}[degree[:2]]
			// a micro-batch count off a pipeline, too many GPUs or a degree
			// given twice: kept as a variant
			if err != nil || (micro != "" && degree[:2] != "pp") || l.GPUs*n > MaxDim || seen[degree[:2]] {
				l.addVariant(s)
				continue
			}
			seen[degree[:2]] = true
			l.GPUs *= n
			*deg = n
			if mb > 0 {
				l.MicroBatches = mb
			}
		default:
			l.addVariant(s)
		}
	}
	return l, nil
}

func (l *Label) addVariant(s string) {
	if l.Variant != "" {
		l.Variant += "-"
	}
	l.Variant += s
}

// Digits reports whether s is decimal digits alone (no sign, no space), as
// label names and graphs write their numbers.
func Digits(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }

// positive reads a label name's number: digits without a leading zero (a
// "0512" beside a "512" would read as a second label of one run).
func positive(s string) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil || !Digits(s) || v < 1 || v > MaxDim {
		return 0, fmt.Errorf("%q: want an integer in [1, %d]", s, MaxDim)
	}
	if s[0] == '0' {
		return 0, fmt.Errorf("%q: a leading zero: write %d", s, v)
	}
	return v, nil
}

// ReadLabel reads the label file at path (labels/<GPU>/<name>.json).
func ReadLabel(path string) (Label, error) {
	b, err := readcap.ReadFile(path, readcap.JSON)
	if err != nil {
		return Label{}, err
	}
	return ParseLabel(b, filepath.Base(filepath.Dir(path)), filepath.Base(path))
}

// ParseLabel parses a label's JSON; gpu and file are its folder and file
// names. The latencies must be finite and non-negative with e2e positive.
func ParseLabel(b []byte, gpu, file string) (Label, error) {
	l, err := ParseLabelName(file)
	if err != nil {
		return Label{}, fmt.Errorf("labels/%s: %w", gpu, err)
	}
	l.GPU = gpu
	var v struct {
		Layers  *float64 `json:"num_layer"` // 24 or 24.0
		E2E     *float64 `json:"e2e_latency"`
		Forward *float64 `json:"fw_latency"`
		Back    *float64 `json:"bwall_latency"`
	}
	// a UTF-8 byte-order mark, as some editors write, is not JSON
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	if err := json.Unmarshal(b, &v); err != nil {
		return Label{}, jsonpos.At(gpu+"/"+file, b, err)
	}
	// a latency given twice (in any case, as the fields are matched) would
	// be scored as the last
	if err := jsonpos.Duplicates(gpu+"/"+file, b, true); err != nil {
		return Label{}, err
	}
	if v.E2E == nil {
		if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
			// NeuSight's fusion collector writes null for a run that ran out of memory
			return Label{}, fmt.Errorf("%s/%s: null, not a measurement (NeuSight's collector writes null for a run that ran out of memory)", gpu, file)
		}
		return Label{}, fmt.Errorf("%s/%s: no e2e_latency", gpu, file)
	}
	l.E2E = *v.E2E
	if v.Layers != nil {
		if n := *v.Layers; n != math.Trunc(n) || n < 0 || n > MaxDim {
			return Label{}, fmt.Errorf("%s/%s: num_layer %v: want a whole number in [0, %d]", gpu, file, n, MaxDim)
		}
		l.Layers = int(*v.Layers)
	}
	if v.Forward != nil {
		l.Forward = *v.Forward
	}
	if v.Back != nil {
		l.Back = *v.Back
	}
	for _, x := range []struct {
		name string
		v    float64
	}{{"e2e_latency", l.E2E}, {"fw_latency", l.Forward}, {"bwall_latency", l.Back}} {
		if x.name == "e2e_latency" && !(x.v > 0 && x.v <= 1e9) {
			return Label{}, fmt.Errorf("%s/%s: e2e_latency %v: want a positive time up to 1e9 ms", gpu, file, x.v)
		}
		if math.IsNaN(x.v) || math.IsInf(x.v, 0) || x.v < 0 || x.v > 1e9 {
			return Label{}, fmt.Errorf("%s/%s: %s %v: want a finite time in [0, 1e9] ms", gpu, file, x.name, x.v)
		}
	}
	return l, nil
}

// Dir is a folder in the layout of the bundled data.
type Dir struct {
	Path string
	// Devices are the spec sheets by file stem (the GPU folder name), and
	// by the name of a label folder that has no sheet of its own name but
	// whose name is a sheet's "Device" or stem up to case and spaces
	// written as underscores ("NVIDIA L4", "nvidia_l4" for NVIDIA_L4.json).
	Devices map[string]Device
	// SheetOf names, for each label folder that took another's sheet so,
	// that sheet's stem: the GPU the folder's labels were measured on,
	// under the name the rest of wb knows it by (see [Dir.Sheet]).
	SheetOf map[string]string
	// BadDevices says, for each spec sheet that could not be read (by file
	// stem), why: its GPU's labels cannot be predicted, the folder's others
	// can.
	BadDevices map[string]string
	Labels     []Label // sorted by GPU, model, mode, seq, batch, fused
	// LabelsDir is the folder the labels were read from: "labels", or
	// "label" (NeuSight's scripts' name) where the folder has no labels/.
	LabelsDir string
	// Unread says, for each label file that could not be read, why.
	Unread []string
	// Notes are what reading the folder took on trust: the fields of a
	// spec sheet it ignored, a label folder it matched to a sheet of
	// another name.
	Notes []string
}

// ReadDir reads a folder's spec sheets and labels (not its ops, which
// [Dir.Ops] reads on demand). A label whose GPU has no spec sheet is kept:
// a predictor says it cannot predict it. A label file that cannot be read
// (a name not in the layout, bad JSON) is listed in Unread with the reason,
// and a spec sheet that cannot be read in BadDevices, not an error: the
// folder's other labels are still read. A sheet's fields beyond the eight
// of the layout are ignored (noted), as folders may hold sheets written for
// other tools; its eight are checked as [ParseDevice] checks them. A folder
// without any spec sheet file is noted (its labels' GPUs may have sheets
// elsewhere), and one with neither sheets nor label files is an error.
// Labels are read from labels/<GPU>/ and from label/<GPU>/, as NeuSight's
// scripts name the folder; .json files elsewhere under them are counted in
// a note.
func ReadDir(path string) (*Dir, error) {
	d := &Dir{Path: path, Devices: map[string]Device{}, SheetOf: map[string]string{}, BadDevices: map[string]string{}, LabelsDir: "labels"}
	if fi, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: no such folder", path)
	} else if err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("%s: not a folder: want one in the layout labels/<GPU>/*.json, devices/<GPU>.json, models/<model>.json", path)
	}
	// *.json in any case of the extension (a label saved as .JSON is read,
	// not passed over without a word), in the order of their paths
	glob := func(parts ...string) ([]string, error) {
		all, err := filepath.Glob(filepath.Join(append([]string{globEscape(path)}, parts...)...) + ".*")
		return slices.DeleteFunc(all, func(p string) bool { return !strings.EqualFold(filepath.Ext(p), ".json") }), err
	}
	devs, err := glob("devices", "*")
	if err != nil {
		return nil, err
	}
	for _, p := range devs {
		stem := trimJSON(filepath.Base(p))
		b, err := readcap.ReadFile(p, readcap.JSON)
		if err == nil {
			var extra []string
			var dev Device
			if dev, extra, err = parseDeviceLoose(b, p); err == nil {
				d.Devices[stem] = dev
				if len(extra) > 0 {
					d.Notes = append(d.Notes, fmt.Sprintf("%s: fields %s ignored (wb reads %s)", p, strings.Join(extra, ", "), strings.Join(deviceFields, ", ")))
				}
				continue
			}
		}
		d.BadDevices[stem] = err.Error()
	}
	// labels/<GPU>/*.json, and label/<GPU>/*.json, as NeuSight's scripts
	// name the folder: both where both are there (a folder of NeuSight's
	// label/ copied beside wb's labels/ had label/ passed over without a
	// word: a reviewer's find)
	files, err := glob("labels", "*", "*")
	if err != nil {
		return nil, err
	}
	alt, err := glob("label", "*", "*")
	if err != nil {
		return nil, err
	}
	switch {
	case len(alt) > 0 && len(files) > 0:
		d.Notes = append(d.Notes, fmt.Sprintf("%s: read labels/ (%d files) and label/ (%d files), as NeuSight's scripts name it", path, len(files), len(alt)))
	case len(alt) > 0:
		d.LabelsDir = "label"
		d.Notes = append(d.Notes, fmt.Sprintf("%s: no labels under labels/; read label/, as NeuSight's scripts name it", path))
	}
	files = append(files, alt...)
	// .json files elsewhere under the label folders (loose, or a folder
	// deeper, such as NeuSight's profiler traces) are not labels: counted
	// and said, not passed over without a word
	for _, top := range []string{"labels", "label"} {
		n := 0
		_ = filepath.WalkDir(filepath.Join(path, top), func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.EqualFold(filepath.Ext(p), ".json") {
				return nil
			}
			if rel, _ := filepath.Rel(filepath.Join(path, top), p); strings.Count(filepath.ToSlash(rel), "/") != 1 {
				n++
			}
			return nil
		})
		if n > 0 {
			d.Notes = append(d.Notes, fmt.Sprintf("%s: %d .json files under %s/ outside %s/<GPU>/ not read as labels (a label is %s/<GPU>/<model>-<inf|train>-<seq>-<batch>.json)", path, n, top, top, top))
		}
	}
	// two names of one run ("-fusion-fusion", "-dp1", "-tp2-dp2" beside
	// "-dp2-tp2"; one name under labels/ and label/) are scored once: as
	// the shortest name, the first of those as read (labels/ before
	// label/, each in its paths' order)
	scored := map[string]string{} // the path scored of each label, by its key
	labels := make([]Label, len(files))
	errs := make([]error, len(files))
	folder := func(p string) string { return filepath.Base(filepath.Dir(filepath.Dir(p))) }
	for i, p := range files {
		labels[i], errs[i] = ReadLabel(p)
		if errs[i] != nil {
			continue
		}
		labels[i].Folder = folder(p)
		k, name := labels[i].key(), filepath.Base(p)
		f, ok := scored[k]
		if !ok || len(name) < len(filepath.Base(f)) {
			scored[k] = p
		}
	}
	for i, p := range files {
		l, err := labels[i], errs[i]
		if f := scored[l.key()]; err == nil && f != p {
			other := filepath.Base(f)
			if folder(f) != folder(p) {
				other = folder(f) + "/" + l.GPU + "/" + other
			}
			err = fmt.Errorf("labels/%s: label %q: the same run as %q (%s, %s, sequence %d, batch %d%s): scored once, as %s",
				l.GPU, filepath.Base(p), other, l.Model, l.Mode, l.Seq, l.Batch, l.suffix(), other)
		}
		if err != nil {
			// one unreadable file does not cost the folder's other labels
			msg := err.Error()
			if top := folder(p); top != "labels" {
				msg = strings.Replace(msg, "labels/", top+"/", 1) // named by the folder it is in
			}
			d.Unread = append(d.Unread, msg)
			continue
		}
		d.Labels = append(d.Labels, l)
	}
	if len(devs) == 0 {
		// labels without sheets: a caller may have sheets of its own for
		// their GPUs (wb's bundled ones); a folder of neither is not one
		// of this layout
		if len(files) == 0 {
			return nil, fmt.Errorf("%s: no spec sheets (devices/*.json) and no labels: want the layout labels/<GPU>/*.json, devices/<GPU>.json, models/<model>.json", path)
		}
		d.Notes = append(d.Notes, fmt.Sprintf("%s: no spec sheets (devices/*.json)", path))
	}
	// a label folder named otherwise than its GPU's sheet
	norm := func(s string) string { return strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), " ", "_")) }
	stems := slices.Sorted(maps.Keys(d.Devices)) // the sheets' own, before any alias
	tried := map[string]bool{}                   // label folders looked up
	for _, l := range d.Labels {
		if _, ok := d.Devices[l.GPU]; ok || tried[l.GPU] {
			continue
		}
		tried[l.GPU] = true
		if _, bad := d.BadDevices[l.GPU]; bad {
			continue
		}
		var match []string
		for _, stem := range stems {
			if dev := d.Devices[stem]; norm(stem) == norm(l.GPU) || norm(dev.Name) == norm(l.GPU) {
				match = append(match, stem)
			}
		}
		switch {
		case len(match) == 1:
			d.Devices[l.GPU], d.SheetOf[l.GPU] = d.Devices[match[0]], match[0]
			d.Notes = append(d.Notes, fmt.Sprintf("%s/%s: no devices/%s.json; took devices/%s.json, whose name matches", cmp.Or(l.Folder, "labels"), l.GPU, l.GPU, match[0]))
		case len(match) > 1:
			d.Notes = append(d.Notes, fmt.Sprintf("%s/%s: no devices/%s.json, and the names of %d sheets match it (devices/%s.json): give it a sheet of its own name", cmp.Or(l.Folder, "labels"), l.GPU, l.GPU, len(match), strings.Join(match, ".json, devices/")))
		default:
			// a sheet of its spelling that could not be read: its reason
			for _, stem := range slices.Sorted(maps.Keys(d.BadDevices)) {
				if norm(stem) == norm(l.GPU) {
					d.BadDevices[l.GPU] = d.BadDevices[stem]
					break
				}
			}
		}
	}
	slices.SortFunc(d.Labels, func(a, b Label) int {
		return strings.Compare(a.key(), b.key())
	})
	return d, nil
}

// SheetNamed is the stem of the one sheet of d whose stem or device name
// is name up to case and spaces for underscores (an ops file named as the
// sheet's Device, "NVIDIA L4", as NeuSight's collection names them); ok
// false where none or several are.
func (d *Dir) SheetNamed(name string) (stem string, ok bool) {
	if _, ok := d.Devices[name]; ok {
		return name, true
	}
	norm := func(s string) string { return strings.ToLower(strings.ReplaceAll(strings.TrimSpace(s), " ", "_")) }
	for _, st := range slices.Sorted(maps.Keys(d.Devices)) {
		if dev := d.Devices[st]; norm(st) == norm(name) || norm(dev.Name) == norm(name) {
			if ok {
				return "", false
			}
			stem, ok = st, true
		}
	}
	return stem, ok
}

// Sheet is the stem of the spec sheet of label folder gpu: gpu itself, or
// the sheet whose name the folder matched ("Tesla V100-PCIE-32GB" for
// Tesla_V100-PCIE-32GB.json). A predictor that leaves a GPU out leaves it
// out by this name, whatever the folder is called.
func (d *Dir) Sheet(gpu string) string {
	if s, ok := d.SheetOf[gpu]; ok {
		return s
	}
	return gpu
}

// parseDeviceLoose is ParseDevice for a sheet in a folder: fields beyond the
// eight are returned, sorted, rather than refused.
func parseDeviceLoose(b []byte, name string) (Device, []string, error) {
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return Device{}, nil, decodeError(name, b, err)
	}
	var extra []string
	for k := range fields {
		// encoding/json matches a field's name in any case
		if !slices.ContainsFunc(deviceFields, func(n string) bool { return strings.EqualFold(n, k) }) {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	if len(extra) == 0 {
		d, err := ParseDevice(b, name)
		return d, nil, err
	}
	if err := fieldProblems(name, b, fields); err != nil {
		return Device{}, nil, err
	}
	if err := missingFields(name, fields, extra); err != nil {
		return Device{}, nil, err
	}
	var s sheet
	if err := json.Unmarshal(b, &s); err != nil {
		if err := typeProblems(name, b); err != nil {
			return Device{}, nil, err
		}
		return Device{}, nil, decodeError(name, b, err)
	}
	d, err := s.device(name, b)
	if err != nil {
		return Device{}, nil, err
	}
	if err := d.Validate(); err != nil {
		return Device{}, nil, jsonpos.Fields(name, b, err)
	}
	return d, extra, nil
}

// globEscape escapes the characters filepath.Glob reads as a pattern, so a
// folder named "runs[1]" is taken as named.
func globEscape(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// suffix says what a label's name adds to its shape: fusion, its split,
// its variant (", fused, dp2 tp2"); "" where nothing.
func (l *Label) suffix() string {
	var s string
	if l.Fused {
		s += ", fused"
	}
	if l.GPUs > 1 {
		s += fmt.Sprintf(", dp%d tp%d pp%d", l.DP, l.TP, l.PP)
		if l.MicroBatches > 0 {
			s += fmt.Sprintf(" with %d micro-batches", l.MicroBatches)
		}
	}
	if l.Variant != "" {
		s += ", " + l.Variant
	}
	return s
}

func (l *Label) key() string {
	fused := 0
	if l.Fused {
		fused = 1
	}
	// the split's degrees too: dp4, tp4 and pp4 of one shape are distinct
	return fmt.Sprintf("%s\x00%s\x00%s\x00%09d\x00%09d\x00%d\x00%09d\x00%09d\x00%09d\x00%09d\x00%09d\x00%s",
		l.GPU, l.Model, l.Mode, l.Seq, l.Batch, fused, l.GPUs, l.DP, l.TP, l.PP, l.MicroBatches, l.Variant)
}

// ModelPath is the path of a model's config.json in the folder:
// models/<model>.json, or the same name with .JSON (any case) where only
// that is there.
func (d *Dir) ModelPath(model string) string {
	p := filepath.Join(d.Path, "models", model+".json")
	if _, err := os.Stat(p); err != nil {
		if all, _ := filepath.Glob(filepath.Join(globEscape(d.Path), "models", globEscape(model)+".*")); len(all) > 0 {
			for _, q := range all {
				if trimJSON(filepath.Base(q)) == model {
					return q
				}
			}
		}
	}
	return p
}

// trimJSON is name without its .json extension, in any case (name itself
// where it has none).
func trimJSON(name string) string {
	if ext := filepath.Ext(name); strings.EqualFold(ext, ".json") {
		return name[:len(name)-len(ext)]
	}
	return name
}

// OpGPUs lists the GPUs with op measurements of family, sorted.
func (d *Dir) OpGPUs(family string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(globEscape(d.Path), "ops", family, "*.csv*"))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range files {
		b := filepath.Base(p)
		if g := b[:strings.Index(b, ".csv")]; !slices.Contains(out, g) {
			out = append(out, g) // X.csv and X.csv.gz are one GPU's
		}
	}
	slices.Sort(out)
	return out, nil
}

// Ops reads the ops of family measured on gpu.
func (d *Dir) Ops(family, gpu string) ([]Op, error) {
	for _, ext := range []string{".csv.gz", ".csv"} {
		p := filepath.Join(d.Path, "ops", family, gpu+ext)
		if _, err := os.Stat(p); err == nil {
			return ReadOps(p)
		}
	}
	return nil, fmt.Errorf("%s: no ops/%s/%s.csv.gz", d.Path, family, gpu)
}

// BundledSheet is the path of the bundled spec sheet named name (its file
// stem, any case: "NVIDIA_L4", or the board's name: "NVIDIA L4"), in any folder of the bundled data
// (datasets/data/*/devices), and the names of them all.
func BundledSheet(name string) (path string, names []string, ok bool) {
	dir, err := datasets.DataDir()
	if err != nil {
		return "", nil, false
	}
	files, _ := filepath.Glob(filepath.Join(globEscape(dir), "*", "devices", "*.json"))
	for _, f := range files {
		n := strings.TrimSuffix(filepath.Base(f), ".json")
		names = append(names, n)
		// the board's name as CUDA reports it ("NVIDIA L4") names its sheet
		// too, as NeuSight's folders name GPUs by it, spaces as underscores
		if !ok && (strings.EqualFold(n, name) || strings.EqualFold(n, strings.ReplaceAll(name, " ", "_"))) {
			path, ok = f, true
		}
	}
	return path, names, ok
}

// Bundled returns the path of the bundled copy (datasets/data/neusight).
func Bundled() (string, error) {
	dir, err := datasets.DataDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "neusight"), nil
}
