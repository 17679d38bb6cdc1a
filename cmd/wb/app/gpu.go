package app

import (
	"cmp"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"
	"gonum.org/v1/plot/vg"

	"github.com/wb-sim/wb/datasets"
	"github.com/wb-sim/wb/datasets/neusight"
	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/experiments/figures"
	"github.com/wb-sim/wb/internal/atomicfile"
	"github.com/wb-sim/wb/predictor"
	"github.com/wb-sim/wb/predictor/gpu"
)

// gpuModels are the zoo names of the bundled Hugging Face configs.
var gpuModels = map[string]string{
	"bert-large": "bert_large", "gpt2-large": "gpt2_large", "gpt3-xl": "gpt3_xl", "gpt3-2.7b": "gpt3_27",
	"opt-1.3b": "opt_13", "switch-xl4": "switchxl4", "llama2-7b": "llama2_7b",
}

// bundledConfig is the path of a bundled model's config.json, by its zoo
// name ("gpt3-2.7b") or its file name ("gpt3_27"); ok says it exists.
func bundledConfig(bundled, name string) (path string, ok bool) {
	if f, ok := gpuModels[strings.ToLower(name)]; ok {
		name = f
	}
	path = filepath.Join(bundled, "models", name+".json")
	_, err := os.Stat(path)
	return path, err == nil
}

// bundledHFConfig reads the bundled config of a GPU zoo name ("gpt3-2.7b"):
// ok is false for a name that is not one; err says why a name that is one
// could not be read (the bundled data missing, say).
func bundledHFConfig(name string) (cfg *dnn.HFConfig, ok bool, err error) {
	if _, ok := gpuModels[strings.ToLower(name)]; !ok {
		return nil, false, nil
	}
	bundled, err := neusight.Bundled()
	if err != nil {
		return nil, true, err
	}
	p, found := bundledConfig(bundled, name)
	if !found {
		return nil, true, fmt.Errorf("%s: no such file in the bundled data", p)
	}
	cfg, err = dnn.ReadHFConfig(p)
	return cfg, true, err
}

// configNotes prints what reading a config took on trust (dnn.HFConfig's
// Notes), and a sequence beyond the positions a rotary model was trained
// for.
func configNotes(w io.Writer, cfg *dnn.HFConfig, seq int) {
	for _, n := range configNoteLines(cfg, seq) {
		fmt.Fprintf(w, "note: %s: %s\n", cfg.Name, n)
	}
}

// noteRecorder passes what is written to w and keeps its lines, the notes
// and warnings a command's --json carries too.
type noteRecorder struct {
	w     io.Writer
	lines []string
	part  string
}

func (r *noteRecorder) Write(p []byte) (int, error) {
	r.part += string(p)
	for {
		line, rest, ok := strings.Cut(r.part, "\n")
		if !ok {
			break
		}
		r.lines, r.part = append(r.lines, line), rest
	}
	return r.w.Write(p)
}

// jsonNotes are --json's notes: the config's (configNoteLines), then what
// the terminal got on stderr since (c.App.ErrWriter a noteRecorder), each
// without its "note: ".
func jsonNotes(c *cli.Context, cfg *dnn.HFConfig, seq int) []string {
	notes := configNoteLines(cfg, seq)
	if r, ok := c.App.ErrWriter.(*noteRecorder); ok {
		for _, l := range r.lines {
			notes = append(notes, strings.TrimPrefix(l, "note: "))
		}
	}
	return notes
}

// configNoteLines are configNotes' notes, which --json carries too.
func configNoteLines(cfg *dnn.HFConfig, seq int) []string {
	notes := slices.Clone(cfg.Notes)
	if cfg.TrainedPositions > 0 && seq > cfg.TrainedPositions {
		notes = append(notes, fmt.Sprintf("a sequence of %d tokens is longer than the %d positions it was trained for (max_position_embeddings): its rotary positions run it all the same", seq, cfg.TrainedPositions))
	}
	return notes
}

// decodingShape is the note of a split training iteration at sequence 1,
// whose products all stream their weights (one GPU's iteration has
// decodingNote, with its figures).
const decodingShape = "at sequence 1 every product is a matrix-vector product streaming its weights, which the op model learned from hardly any measurement of: treat the figure as an upper bound"

// gpuConfig resolves --model-config or a zoo name of the GPU model to a
// config.json path.
func gpuConfig(c *cli.Context, bundled string) (string, error) {
	if p := c.String("model-config"); p != "" {
		return p, nil
	}
	p, ok := bundledConfig(bundled, c.Args().First())
	if !ok {
		if _, zoo := gpuModels[strings.ToLower(c.Args().First())]; zoo {
			// a zoo name whose config is not in the data found (a stale
			// WB_DATA): said so, not "no config for" the name it lists
			return "", fmt.Errorf("predict: %s: no such file in the bundled data (%s; is $%s, or the clone it is found in, whole?)", p, bundled, datasets.EnvDataDir)
		}
		known := slices.Sorted(maps.Keys(gpuModels))
		return "", fmt.Errorf("predict: no Hugging Face config for %q (with --device-spec: --model-config PATH/config.json, or one of %s)", c.Args().First(), strings.Join(known, ", "))
	}
	return p, nil
}

// gpuSpec reads --device-spec: a file, the name of a bundled spec sheet
// ("NVIDIA_H100_80GB_HBM3", any case: NeuSight's, beside it wb's measured
// H200's), or a GPU of the device table ("h100-sxm", "a100-80-pcie").
//
// A file's fields beyond a spec sheet's eight (other tools' figures) are
// ignored, and named on note where it is not nil.
func gpuSpec(arg string, note io.Writer) (gpu.Spec, error) {
	if fi, err := os.Stat(arg); err == nil && !fi.IsDir() { // a folder of that name (labels/Tesla_T4) is not a sheet
		d, extra, err := neusight.ReadDeviceNotes(arg)
		if err != nil {
			return gpu.Spec{}, fmt.Errorf("predict: --device-spec: %w", err)
		}
		if len(extra) > 0 && note != nil {
			fmt.Fprintf(note, "note: %s: %s ignored (not a field of NeuSight's spec sheets)\n", arg, strings.Join(extra, ", "))
		}
		return gpu.SpecOf(d), nil
	}
	f, names, ok := neusight.BundledSheet(arg)
	if fi, err := os.Stat(arg); err == nil && fi.IsDir() && !ok {
		return gpu.Spec{}, fmt.Errorf("predict: --device-spec %s: a folder; want a spec sheet, FILE.json (a folder's devices/GPU.json), or a bundled sheet's name (wb predict --list)", arg)
	}
	if ok {
		d, err := neusight.ReadDevice(f)
		if err != nil {
			return gpu.Spec{}, err
		}
		return gpu.SpecOf(d), nil
	}
	if d, err := predictor.LookupDevice(arg); err == nil && d.Kind == predictor.KindGPU {
		s, err := gpu.SpecOfDevice(d)
		if err == nil && note != nil {
			sheetDiffers(note, arg, d, s)
		}
		return s, err
	}
	slices.Sort(names)
	return gpu.Spec{}, fmt.Errorf("predict: --device-spec %s: no such file, bundled spec sheet (%s) or GPU of the device table (wb predict --list); "+
		"for another GPU write its sheet as JSON, e.g. {\"Device\":\"Tesla T4\",\"Dev_Mem\":15,\"Mem_Bw\":320,\"Num_Sm\":40,\"Core_Per_SM\":64,\"Freq\":1590,\"SingleFLOPs\":8141,\"L2Cache\":4} "+
		"(memory GiB, bandwidth GB/s, SMs, fp32 lanes per SM, boost clock MHz, fp32 GFLOP/s, L2 MB), and give its path", arg, strings.Join(names, ", "))
}

// sheetDiffers notes where the device table's entry for arg and the
// bundled spec sheet of the same board disagree (TestSpecSheetsAgree lists
// why), so that a user knows which figures the prediction used.
func sheetDiffers(note io.Writer, arg string, d *predictor.Device, s gpu.Spec) {
	if d.SpecSheet == "" {
		return
	}
	f, _, ok := neusight.BundledSheet(d.SpecSheet)
	if !ok {
		return
	}
	sheet, err := neusight.ReadDevice(f)
	if err != nil {
		return
	}
	o := gpu.SpecOf(sheet)
	var diff []string
	for _, c := range []struct {
		what       string
		table, her float64
		format     string
	}{
		{"SMs", float64(s.SMs), float64(o.SMs), "%.0f"}, {"fp32 lanes per SM", float64(s.LanesPerSM), float64(o.LanesPerSM), "%.0f"},
		{"clock (MHz)", s.ClockMHz, o.ClockMHz, "%.0f"}, {"fp32 peak (TFLOP/s)", s.FP32 / 1e12, o.FP32 / 1e12, "%.1f"},
		{"bandwidth (GB/s)", s.Bandwidth / 1e9, o.Bandwidth / 1e9, "%.0f"}, {"L2 (MB)", s.L2 / (1 << 20), o.L2 / (1 << 20), "%.0f"},
	} {
		if math.Abs(c.table/c.her-1) > 0.01 {
			diff = append(diff, fmt.Sprintf("%s "+c.format+" (the sheet's "+c.format+")", c.what, c.table, c.her))
		}
	}
	if len(diff) > 0 {
		fmt.Fprintf(note, "note: %s is wb's device table's %s, whose figures this prediction takes: %s; --device-spec %s takes the bundled spec sheet's figures instead\n",
			arg, d.Display, strings.Join(diff, ", "), strings.TrimSuffix(filepath.Base(f), ".json"))
	}
}

// predictGPU predicts an iteration of a Hugging Face model on a GPU from its
// spec sheet with the shipped GPU model.
func predictGPU(c *cli.Context) error {
	bundled, err := neusight.Bundled()
	if err != nil {
		return err
	}
	cfgPath, err := gpuConfig(c, bundled)
	if err != nil {
		return err
	}
	cfg, err := dnn.ReadHFConfig(cfgPath)
	if err != nil {
		return fmt.Errorf("predict: %w", err)
	}
	configNotes(c.App.ErrWriter, cfg, c.Int("seq"))
	// what the terminal gets on stderr from here on, --json's notes too
	rec := &noteRecorder{w: c.App.ErrWriter}
	c.App.ErrWriter = rec
	defer func() { c.App.ErrWriter = rec.w }()
	mode := neusight.Mode(c.String("mode"))
	if mode != neusight.Inference && mode != neusight.Training {
		return fmt.Errorf("predict: --mode %q: want inf (forward) or train (forward + backward)", mode)
	}
	if v := c.Int("batch"); v > neusight.MaxDim { // (--seq's flag bound is the op model's)
		return fmt.Errorf("predict: --batch %d: the GPU op model takes 1 to %d", v, neusight.MaxDim)
	}
	args := specArgs(c.String("device-spec"))
	if len(args) > 1 {
		return compareGPUs(c, cfg, args, mode, bundled)
	}
	spec, err := gpuSpec(args[0], c.App.ErrWriter)
	if err != nil {
		return err
	}
	if c.IsSet("parallel") {
		return predictParallel(c, cfg, spec, mode, bundled)
	}
	prog, err := gpu.Lower(cfg, c.Int("seq"), c.Int("batch"), mode == neusight.Training)
	if err != nil {
		return fmt.Errorf("predict: %w", err)
	}
	m, err := gpu.Shipped()
	if err != nil {
		return err
	}
	it := m.Iteration(spec, prog, mode == neusight.Training)
	decodingNote(c.App.ErrWriter, m, spec, prog, mode == neusight.Training, it.Total())
	w := c.App.Writer
	mem := memoryFloor{Precision: dnn.FP32, Weights: float64(cfg.Params()) * 4, Activations: prog.Activations(mode == neusight.Training)}
	if mode == neusight.Training {
		mem.Gradients = mem.Weights
	}
	mem = newMemoryFloor(mem, spec.Memory)
	name := cfg.Model()
	// The training iteration timed is NeuSight's: forward and backward, no
	// optimizer, so it holds no optimizer state. A training run holds Adam's
	// two moments too (8 bytes a weight): said where that does not fit.
	adam := withAdam(mem, mode, cfg.Params(), spec.Memory)
	memoryWarnings(c.App.ErrWriter, name, spec.Name, mem, adam)
	if c.Bool("json") {
		// the names the analytical path's --json gives where both say the
		// same thing (model, device, device_name, batch, gpus, iteration_s)
		return writeJSON(w, struct {
			gpuJSONHead
			Iteration  gpu.Iteration `json:"iteration"`
			ForwardS   float64       `json:"forward_s"`
			BackwardS  float64       `json:"backward_s"`
			IterationS float64       `json:"iteration_s"`
			Memory     memoryFloor   `json:"memory"`
			// MemoryAdam is Memory with Adam's two moments (training): what a
			// training run holds, where the iteration timed has no optimizer
			MemoryAdam *memoryFloor `json:"memory_with_adam,omitempty"`
			Trust      string       `json:"trust"`
		}{gpuJSONHead{name, cfg.ModelType, deviceArg(c), spec.Name, cfg.Params(), prog.Seq, prog.Batch, false, 1, dnn.FP32, mode, jsonNotes(c, cfg, prog.Seq), specTimedBy},
			it, it.Forward, it.Backward, it.Total(), mem, adam, trust(m, spec, gpu.TrainedSpecs(bundled), mode)})
	}
	fmt.Fprintf(w, "%s (%s, %.3f B parameters) on %s, %s, sequence %d, batch %d, fp32\n", cfg.File(), cfg.ModelType,
		float64(cfg.Params())/1e9, spec.Name, modeWords[mode], prog.Seq, prog.Batch)
	if mode == neusight.Training {
		step := ""
		if cfg.ModelType == "gpt2" {
			step = "; --parallel dp1 times Adam's too"
		}
		fmt.Fprintf(w, "(forward and backward, as NeuSight timed its training labels: no optimizer step%s)\n", step)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "block\trepeats\tkernels\tforward ms\tbackward ms\tshare\t")
	for _, b := range it.Blocks {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\t%.2f\t%.1f%%\t\n", b.Name, b.Repeat, b.Kernels, 1e3*b.Forward, 1e3*b.Backward, 100*(b.Forward+b.Backward)/it.Total())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\niteration %.2f ms = forward %.2f ms + backward %.2f ms (%d kernels)\n", 1e3*it.Total(), 1e3*it.Forward, 1e3*it.Backward, it.Kernels)
	fmt.Fprintln(w, familyShares(it))
	fmt.Fprintln(w, trust(m, spec, gpu.TrainedSpecs(bundled), mode))
	return nil
}

// familyShares is the iteration's time by op family, longest first, as
// one line.
func familyShares(it gpu.Iteration) string {
	parts := make([]string, 0, len(it.Families))
	for _, f := range it.Families {
		parts = append(parts, fmt.Sprintf("%s %.1f%%", f.Family, 100*(f.Forward+f.Backward)/it.Total()))
	}
	return "by op family: " + strings.Join(parts, ", ")
}

// gpuJSONHead opens the --json of both GPU paths, under the names the
// analytical path's --json gives what it says too.
type gpuJSONHead struct {
	Model      string        `json:"model"`
	Type       string        `json:"model_type"`
	Device     string        `json:"device"`
	DeviceName string        `json:"device_name"`
	Params     int64         `json:"params"`
	Seq        int           `json:"seq"`
	Batch      int           `json:"batch"`
	BatchInAll bool          `json:"batch_in_all"` // the batch is over all the GPUs (a split's global batch)
	GPUs       int           `json:"gpus"`
	Precision  dnn.Precision `json:"precision"`
	Mode       neusight.Mode `json:"mode"`
	// Notes are the config's notes, the sheet's and the warnings: what the
	// terminal gets on stderr
	Notes []string `json:"notes,omitempty"`
	// TimedBy is what timed it, as the analytical path's --json says
	TimedBy string `json:"timed_by"`
}

// decodingNote says, where a quarter or more of the iteration is in
// products of at most eight rows, or in training their weight gradients
// (decoding's shape: a token a sequence; FewRows),
// that the op measurements hardly cover them and what a weight stream
// would take: the label errors the trust line quotes are of products of
// hundreds of rows, and decoding is timed well above a stream of the
// weights (docs/prediction.md).
func decodingNote(w io.Writer, m *gpu.Model, spec gpu.Spec, prog *gpu.Program, train bool, total float64) {
	const rows = 8
	t, b := m.FewRows(spec, prog, train, rows)
	if !(t >= total/4) || !(t > 0) {
		return
	}
	grads := ""
	if train {
		grads = " and their weight gradients"
	}
	fmt.Fprintf(w, "note: %.0f%% of this iteration (%.2f ms) is in products of %d or fewer rows%s, decoding's shape, which stream their weights, timed at %.2f of the sheet's bandwidth: "+
		"NeuSight measured a handful of such products (none of fewer than three rows; the largest ran at 0.46 of the T4's sheet bandwidth and 0.57 of the V100's, the others at less), and the label errors below are of products of hundreds of rows; "+
		"their %.2f GB streamed at 0.8 of the bandwidth would take %.2f ms: treat this figure as an upper bound (docs/prediction.md, decoding)\n",
		100*t/total, 1e3*t, rows, grads, b/t/spec.Bandwidth, b/1e9, 1e3*b/(0.8*spec.Bandwidth))
}

// specTimedBy is what times a prediction from a spec sheet.
const specTimedBy = "the GPU op model (learned from NeuSight's measured GPU ops, fp32), kernel by kernel from the spec sheet"

// deviceArg is the GPU as the command line named it: --device-spec's
// sheet, a bundled sheet's name (as its file names it, however given) or a
// file's name without its folder and .json.
func deviceArg(c *cli.Context) string { return deviceArgOf(specArgs(c.String("device-spec"))[0]) }

// deviceArgOf is deviceArg for one GPU's argument.
func deviceArgOf(arg string) string {
	if f, _, ok := neusight.BundledSheet(arg); ok {
		arg = f // "NVIDIA L4" names NVIDIA_L4.json
	}
	base := filepath.Base(arg)
	if ext := filepath.Ext(base); strings.EqualFold(ext, ".json") {
		base = base[:len(base)-len(ext)] // (X.JSON names X, as the folder's sheets do)
	}
	return base
}

// writeJSON writes v as indented JSON, as --json prints.
func writeJSON(w io.Writer, v any) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(v)
}

// predictParallel predicts a training iteration split over GPUs as
// Megatron-LM splits it (--parallel).
func predictParallel(c *cli.Context, cfg *dnn.HFConfig, spec gpu.Spec, mode neusight.Mode, bundled string) error {
	if mode != neusight.Training {
		return errors.New("predict: --parallel splits a training iteration: add --mode train")
	}
	if c.Int("seq") == 1 {
		fmt.Fprintln(c.App.ErrWriter, "note: "+decodingShape)
	}
	par, err := gpu.ParseParallel(c.String("parallel"))
	if err == nil {
		err = par.CheckSplit(cfg, c.Int("batch"))
	}
	if err == nil {
		err = par.CheckNodes() // before the link, which more than a node's GPUs need
	}
	if err != nil {
		return fmt.Errorf("predict: --parallel: %w", err)
	}
	g := c.Float64("allreduce-gbps")
	if !(g >= 0) || math.IsInf(g, 0) || (c.IsSet("allreduce-gbps") && g < 0.01) || g > 1e5 {
		return cli.Exit(fmt.Sprintf("predict: --allreduce-gbps %g: want the all-reduce's bus bandwidth in GB/s, from 0.01 to 100000", g), 2)
	}
	link, err := gpu.LinkOf(spec, c.String("interconnect"), g, par.GPUs())
	if err != nil {
		return fmt.Errorf("predict: %w", err)
	}
	if link.Assumed && par.GPUs() > 1 {
		fmt.Fprintf(c.App.ErrWriter, "note: %s is not in wb's device table (wb predict --list), which knows boards' links: its GPUs are taken to talk over PCIe 4.0 x16 (all-reduce bus bandwidth %.0f GB/s); --allreduce-gbps gives the data-parallel all-reduce's, as nccl-tests measures it\n",
			spec.Name, link.Bandwidth/1e9)
	}
	m, err := gpu.Shipped()
	if err != nil {
		return err
	}
	it, err := m.ParallelIterate(spec, cfg, c.Int("seq"), c.Int("batch"), par, link)
	if err != nil {
		return fmt.Errorf("predict: %w", err)
	}
	// the weights of the model Megatron builds, which the split times (a
	// pipeline's end stages both hold the tied embedding: counted once)
	one, err := gpu.LowerMegatron(cfg, c.Int("seq"), 1, 1)
	if err != nil {
		return fmt.Errorf("predict: %w", err)
	}
	params := one.Weights()
	// accelerate hands Megatron-LM a GPT-2 config's layers, width, heads,
	// positions and vocabulary: what it builds otherwise is said
	var differ []string
	if cfg.FF != 4*cfg.Dim {
		differ = append(differ, fmt.Sprintf("a feed-forward width of 4 × %d (this config: %d)", cfg.Dim, cfg.FF))
	}
	if !cfg.Tied {
		differ = append(differ, "an output layer tied to the embedding (this config's is not)")
	}
	if len(differ) > 0 {
		fmt.Fprintf(c.App.ErrWriter, "note: %s: Megatron-LM's GPT, as accelerate builds it from a GPT-2 config, has %s; the split model is Megatron's, its weights per GPU below\n",
			cfg.Name, strings.Join(differ, " and "))
	}
	w := c.App.Writer
	model := cfg.Model()
	// the GPU that needs the most: its weights, their fp32 gradients,
	// Adam's moments and the activations its micro-batches in flight keep
	busiest := it.Stages[0]
	for _, st := range it.Stages {
		if st.MemoryFloor() > busiest.MemoryFloor() {
			busiest = st
		}
	}
	mem := newMemoryFloor(memoryFloor{Precision: dnn.FP32, Weights: 4 * busiest.Params, Gradients: 4 * busiest.Params, Adam: 8 * busiest.Params,
		Activations: busiest.Activations, how: "as Megatron-LM runs it by default (no activation recomputation, no distributed optimizer)"}, spec.Memory)
	warnMemory(c.App.ErrWriter, model, spec.Name, mem)
	if c.Bool("json") {
		// the analytical path's names (batch_in_all: the batch is the global
		// one); the memory one GPU of the busiest stage holds with Adam's
		// moments, under the name one GPU's training run gives the same
		return writeJSON(w, struct {
			gpuJSONHead
			Parallel   string                 `json:"parallel"`
			Iteration  *gpu.ParallelIteration `json:"iteration"`
			IterationS float64                `json:"iteration_s"`
			MemoryAdam memoryFloor            `json:"memory_with_adam"`
			Trust      string                 `json:"trust"`
		}{gpuJSONHead{model, cfg.ModelType, deviceArg(c), spec.Name, int64(params), c.Int("seq"), c.Int("batch"), true, par.GPUs(), dnn.FP32, mode, jsonNotes(c, cfg, c.Int("seq")), specTimedBy},
			par.String(), it, it.Total, mem, trust(m, spec, gpu.TrainedSpecs(bundled), mode)})
	}
	over := fmt.Sprintf("over %s (all-reduce bus bandwidth %.0f GB/s)", link.Name, link.Bandwidth/1e9)
	if g > 0 {
		switch {
		case par.GPUs() > gpu.NodeGPUs:
			over += ", between nodes " + link.DataName
		case par.DP > 1:
			over += ", the gradients' all-reduce at " + link.DataName
		default: // one node, one replica: no data-parallel all-reduce to time
			fmt.Fprintf(c.App.ErrWriter, "note: --allreduce-gbps unused: %s on one node has no data-parallel all-reduce (its tensor-parallel all-reduces and pipeline sends stay on the node's link)\n", par)
		}
	}
	fmt.Fprintf(w, "%s (%.3f B parameters) on %d × %s, %s (Megatron-LM), training, sequence %d, global batch %d (%d a micro-batch), fp32, %s\n\n",
		model, params/1e9, par.GPUs(), spec.Name, par, c.Int("seq"), c.Int("batch"), it.MicroBatch, over)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "stage\tlayers\tforward ms\tbackward ms\ttensor-parallel all-reduce ms\tweights per GPU (M)\t")
	for i, st := range it.Stages {
		fmt.Fprintf(tw, "%d\t%d\t%.2f\t%.2f\t%.2f\t%.1f\t\n", i, st.Layers, 1e3*st.Forward, 1e3*st.Backward, 1e3*st.Comm, st.Params/1e6)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	mbs := fmt.Sprintf("%d micro-batches", par.MicroBatches)
	if par.MicroBatches == 1 {
		mbs = "1 micro-batch"
	}
	fmt.Fprintf(w, "(each stage's figures are one micro-batch's; its tensor-parallel all-reduces the part waited for)\n\niteration %.2f ms = pipeline %.2f ms (%s; idle on the slowest stage %.2f ms, sends %.2f ms) + gradients accumulated %.2f ms + synchronised after the backward (checked, divided, all-reduced) %.2f ms + optimizer %.2f ms\n",
		1e3*it.Total, 1e3*it.Pipeline, mbs, 1e3*it.Bubble, 1e3*it.PipelineSends, 1e3*it.Accumulate, 1e3*it.GradientAllReduce, 1e3*it.Optimizer)
	if it.HiddenComm > 0 {
		fmt.Fprintf(w, "the backward's tensor-parallel all-reduces also run %.2f ms while their products' weight gradients are computed (hidden)\n", 1e3*it.HiddenComm)
	}
	fmt.Fprintln(w, "The bundled data has no multi-GPU iteration to score this on; the kernels are timed as on one GPU:")
	fmt.Fprintln(w, trust(m, spec, gpu.TrainedSpecs(bundled), mode))
	return nil
}

// trust says how far a prediction on spec in mode may be from a
// measurement: the leave-one-GPU-out errors of that mode, unless the
// shipped model learned from this GPU's chip, and where spec lies outside
// the training GPUs' sheets (trained), where the model extrapolates.
func trust(m *gpu.Model, spec gpu.Spec, trained []gpu.Spec, mode neusight.Mode) string {
	outside := ""
	if o := gpu.OutsideNote(spec, trained); o != "" {
		outside = "\nIts" + strings.TrimPrefix(o, "its") + "."
	}
	how := howFar(mode) + unseenWords(mode)
	// the ops measured are forward passes: a training iteration's backward
	// kernels are derived, on any GPU
	derived := ""
	if mode == neusight.Training {
		derived = "\nIts backward kernels are derived from forward shapes (the ops were measured forward only). " + how
	}
	// the left-out figure of GPU g's own labels of this mode, when it has
	// some
	ownLabels := func(g, whose string) string {
		for _, e := range gpu.LeaveOneOut {
			if e.GPU == g && e.Mode == mode && !e.Fused && e.Parallel == "" {
				return fmt.Sprintf(" Left out of training, %s %s labels were predicted %.1f%% off per iteration on average (worst label %.1f%%; wb predict --validate neusight): what a GPU like it that wb never measured can expect.",
					whose, modeWords[mode], e.MAE, e.Max)
			}
		}
		return ""
	}
	switch g := m.Sibling(spec); {
	case g == strings.ReplaceAll(spec.Name, " ", "_") && m.OwnSheet(spec):
		return "The op model learned from this GPU's own measurements." + ownLabels(g, "its own") + derived
	case g != "":
		at := "at these clocks"
		if o, mhz := m.ChipAtOtherClock(spec); o == g {
			at = fmt.Sprintf("at another clock (%.0f MHz against %.0f here: its products' corrections are carried over, the clock taken from this sheet)", mhz, spec.ClockMHz)
		}
		return fmt.Sprintf("The op model learned from measurements of %s, a GPU of this chip %s.%s%s%s", g, at, ownLabels(g, g+"'s"), derived, outside)
	}
	return "wb has no measurement of this GPU's chip.\n" + how + outside
}

// howFar says how far predictions of mode were off on the GPUs left out
// of training in turn.
func howFar(mode neusight.Mode) string {
	lo, hi, worst, n := gpu.LeaveOneOutRange(mode)
	switch {
	case n == 1:
		return fmt.Sprintf("Left out of training, the one GPU with measured %s iterations was predicted %.1f%% off per iteration on average (worst label %.1f%%; wb predict --validate neusight).", modeWords[mode], lo, worst)
	case n > 1:
		return fmt.Sprintf("Left out of training in turn, the GPUs with measured %s iterations were predicted %.1f–%.1f%% off per iteration on average (worst label %.1f%%; wb predict --validate neusight).", modeWords[mode], lo, hi, worst)
	}
	return fmt.Sprintf("No GPU has measured %s iterations to score the model on.", modeWords[mode])
}

// unseenWords says, a line each, how far predictions of mode were off on
// the GPUs wb measured that no training GPU's architecture has (the H200).
func unseenWords(mode neusight.Mode) string {
	var b strings.Builder
	for _, u := range gpu.Unseen {
		if u.Mode == mode {
			fmt.Fprintf(&b, "\nOn the %s, of an architecture no training GPU has, measured by wb and predicted from its sheet alone, it was %.1f%% off (worst label %.1f%%; wb predict --validate neusight datasets/data/h200).",
				strings.TrimPrefix(u.GPU, "NVIDIA_"), u.MAE, u.Max)
		}
	}
	return b.String()
}

// modeWords name a mode's measurements.
var modeWords = map[neusight.Mode]string{neusight.Inference: "inference", neusight.Training: "training"}

// takeBundledSheets gives a GPU of the folder's labels with no sheet there
// wb's bundled sheet of its name, as a model with no config takes wb's
// config, noted.
func takeBundledSheets(dir *neusight.Dir) error {
	for _, l := range dir.Labels {
		_, has := dir.Devices[l.GPU]
		_, bad := dir.BadDevices[l.GPU]
		if has || bad {
			continue
		}
		if f, _, ok := neusight.BundledSheet(l.GPU); ok {
			d, err := neusight.ReadDevice(f)
			if err != nil {
				return err
			}
			// the sheet's name, which training GPU's a label folder spelt
			// otherwise is ("Tesla V100-PCIE-32GB") says, as ReadDir's
			// name matching does: its labels are still held out
			dir.Devices[l.GPU], dir.SheetOf[l.GPU] = d, strings.TrimSuffix(filepath.Base(f), ".json")
			dir.Notes = append(dir.Notes, fmt.Sprintf("%s/%s: no devices/%s.json in %s: took wb's bundled sheet (%s)", cmp.Or(l.Folder, "labels"), l.GPU, l.GPU, dir.Path, f))
		}
	}
	return nil
}

// validateNeuSight predicts every label of a NeuSight-layout folder and
// prints each GPU × mode's error.
func validateNeuSight(c *cli.Context) (err error) {
	w := c.App.Writer
	bundled, err := neusight.Bundled()
	if err != nil {
		return err
	}
	dirPath := c.Args().First()
	if dirPath == "" {
		dirPath = bundled
	}
	dir, err := neusight.ReadDir(dirPath)
	if err != nil {
		return fmt.Errorf("predict --validate neusight: %w", err)
	}
	if err := takeBundledSheets(dir); err != nil {
		return err
	}
	if len(dir.Labels) == 0 {
		why := ""
		if len(dir.Unread) > 0 {
			why = fmt.Sprintf(": %d label files not read, the first: %s", len(dir.Unread), dir.Unread[0])
		}
		return fmt.Errorf("predict --validate neusight: %s: no labels to predict (want labels/<GPU>/<model>-<inf|train>-<seq>-<batch>.json)%s", dirPath, why)
	}
	out := c.String("out")
	var outs *outFiles // what this command wrote into out, nil without it
	if out != "" {
		// before the minutes of work, not after
		if outs, err = outFolder(out, validateOut); err != nil {
			return fmt.Errorf("predict --validate neusight: %w", err)
		}
		defer func() {
			if err == nil {
				err = outs.done()
			}
		}()
	}
	data, err := gpu.LoadBundled()
	if err != nil {
		return err
	}
	full, err := gpu.Shipped()
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.ErrWriter, "training data: %d op measurements on %s\n", len(data.Samples), strings.Join(data.GPUs(), ", "))
	for _, h := range data.Hosts() {
		from := ""
		if !h.Fitted {
			from = " (the others' overlap: no elementwise op measured)"
		}
		fmt.Fprintf(c.App.ErrWriter, "  %s: an op timed alone takes max(floor, floor − %.1f µs + kernel), floors %.0f–%.0f µs%s\n", h.GPU, h.Overlap*1e6, h.MinFloor*1e6, h.MaxFloor*1e6, from)
	}
	progress := func(g string) { fmt.Fprintf(c.App.ErrWriter, "training without %s ...\n", g) }
	models := filepath.Join(bundled, "models")
	var v *gpu.Validation
	var lv *gpu.Leveled
	if c.Bool("probe-level") {
		// the same models predict the labels from the sheet alone (lv.Sheet)
		// and at each GPU's level
		if lv, err = gpu.ValidateLabelsLeveled(dir, models, data, full, full.Params, progress); err != nil {
			return err
		}
		v = lv.Sheet
	}
	switch {
	case c.Bool("nested"):
		v, err = gpu.ValidateLabelsNested(dir, models, data, full, full.Params, gpu.NestedDepths, progress)
	case v == nil:
		v, err = gpu.ValidateLabels(dir, models, data, full, full.Params, progress)
	}
	if err != nil {
		return err
	}
	if err := printValidation(w, v, len(dir.Unread)); err != nil {
		return err
	}
	if out != "" {
		paths, err := writeNeuSightValidation(outs, v, data)
		if err != nil {
			return err
		}
		for _, p := range paths {
			fmt.Fprintf(c.App.ErrWriter, "wrote %s\n", p)
		}
	}
	printOutside(w, v, dir, gpu.TrainedSpecs(bundled))
	for _, d := range v.Depths {
		fmt.Fprintf(w, "depth chosen without %s: %d (inner score, mean op-family MAPE of the other GPUs left out in turn:", d.GPU, d.Depth)
		for _, k := range slices.Sorted(maps.Keys(d.Scores)) {
			fmt.Fprintf(w, " depth %d %.2f%%", k, d.Scores[k])
		}
		fmt.Fprintln(w, ")")
	}
	for _, e := range dir.Unread {
		fmt.Fprintf(w, "not read: %s\n", e)
	}
	for _, stem := range slices.Sorted(maps.Keys(dir.BadDevices)) {
		fmt.Fprintf(w, "spec sheet not read: %s\n", dir.BadDevices[stem])
	}
	for _, n := range append(slices.Clone(dir.Notes), v.Notes...) {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if lv != nil {
		fmt.Fprintln(w)
		if err := printLeveled(w, lv); err != nil {
			return err
		}
	}
	if c.Bool("in-sample") {
		in, err := gpu.ValidateLabelsInSample(dir, models, data, full)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "\nin sample (the shipped model, which learned from every training GPU's ops and was calibrated by their labels; not a result):\n")
		if err := printValidation(w, in, len(dir.Unread)); err != nil {
			return err
		}
	}
	if c.Bool("nodes") {
		fmt.Fprintf(c.App.ErrWriter, "graph nodes: training without each GPU in turn ...\n")
		// each training GPU left out (any other scored by the model trained
		// on every GPU), and the node's network out of the calibration
		scores, err := gpu.ValidateNodes(dir, data.Samples, data.Specs, data.LeaveOut(full.Params), func(why string) {
			fmt.Fprintf(c.App.ErrWriter, "graph not read: %s\n", why)
		})
		if err != nil {
			return err
		}
		fmt.Fprintln(w)
		if err := printNodeScores(w, scores); err != nil {
			return err
		}
	}
	if !slices.ContainsFunc(v.Labels, func(p gpu.LabelPrediction) bool { return p.Skipped == "" }) {
		return cli.Exit(fmt.Sprintf("predict --validate neusight: %s: no label predicted (each skipped or not read, above)", dirPath), 1)
	}
	if !c.Bool("ops") {
		// an earlier run's ops would read as this one's
		return outs.remove("ops.csv.gz")
	}
	unseen, trained, skipped, err := gpu.FolderOps(dir, data)
	if err != nil {
		return err
	}
	upred := gpu.PredictOps(dir, full, unseen)
	for _, why := range skipped {
		fmt.Fprintf(c.App.ErrWriter, "ops not read: %s\n", why)
	}
	// OUT/ops.csv.gz: every op scored, the unseen GPUs' then the left-out
	// ones'
	ops := opRows{samples: unseen, pred: upred, held: map[string]string{}}
	if err := printGPUOps(w, unseen, upred, ops.held, "unseen", "a GPU of no training measurement, predicted from its spec sheet by the shipped model"); err != nil {
		return err
	}
	// The leave-one-GPU-out op table is the bundled data's, however its
	// folder is named; another folder's ops of a training GPU are scored
	// as its labels are, by the model trained without it.
	if a, b := absPath(dirPath), absPath(bundled); a != b {
		tpred, err := gpu.LeftOutOps(dir, data, trained, full.Params)
		if err != nil {
			return err
		}
		if err := printGPUOps(w, trained, tpred, ops.held, "leave-one-gpu-out", "a GPU of the training data, predicted by the model trained without it"); err != nil {
			return err
		}
		ops.samples, ops.pred = append(slices.Clip(ops.samples), trained...), append(slices.Clip(ops.pred), tpred...)
		return ops.write(c.App.ErrWriter, outs)
	}
	fmt.Fprintf(c.App.ErrWriter, "op level: training without each GPU in turn ...\n")
	pred, err := data.LeaveOneGPUOut(full.Params, nil)
	if err != nil {
		return err
	}
	ops.samples, ops.pred = append(slices.Clip(ops.samples), data.Samples...), append(slices.Clip(ops.pred), pred...)
	for _, g := range data.GPUs() {
		ops.held[g] = "leave-one-gpu-out"
	}
	if err := ops.write(c.App.ErrWriter, outs); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if err := printOpScores(w, data.Samples, pred); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if err := printGPUBiases(w, data.Samples, pred); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if err := printSheetShares(w, data.Samples, data.Specs); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return printLevelRemoved(w, data.Samples, pred)
}

// printGPUOps prints the op scores of each GPU of samples (predicted
// pred), headed "ops of GPU, what", and records how each was held.
func printGPUOps(w io.Writer, samples []gpu.Sample, pred []float64, held map[string]string, how, what string) error {
	for _, g := range gpu.GPUsOf(samples) {
		held[g] = how
		var ss []gpu.Sample
		var ps []float64
		for i := range samples {
			if samples[i].GPU == g {
				ss, ps = append(ss, samples[i]), append(ps, pred[i])
			}
		}
		fmt.Fprintf(w, "\nops of %s, %s\n", g, what)
		if err := printOpScores(w, ss, ps); err != nil {
			return err
		}
	}
	return nil
}

// opRows are the op measurements --ops scored, their predictions and how
// each GPU was held from the model that predicted it.
type opRows struct {
	samples []gpu.Sample
	pred    []float64
	held    map[string]string
}

// write writes them to ops.csv.gz (gpu.OpColumns) in the --out folder
// outs, where there is one and a row, and says so on log.
func (o *opRows) write(log io.Writer, outs *outFiles) error {
	if outs == nil {
		return nil
	}
	p := filepath.Join(outs.dir, "ops.csv.gz")
	if len(o.samples) == 0 {
		// none scored: an earlier run's file would read as this one's
		if err := outs.remove("ops.csv.gz"); err != nil {
			return err
		}
		fmt.Fprintf(log, "no op measurement scored: no %s written\n", p)
		return nil
	}
	if err := outs.claim("ops.csv.gz"); err != nil {
		return err
	}
	err := atomicfile.Write(p, func(w io.Writer) error {
		z := gzip.NewWriter(w)
		if err := gpu.WriteOpsCSV(z, o.samples, o.pred, func(g string) string { return o.held[g] }); err != nil {
			return err
		}
		return z.Close()
	})
	if err == nil {
		err = outs.wrote("ops.csv.gz")
	}
	if err == nil {
		fmt.Fprintf(log, "wrote %s (%d ops)\n", p, len(o.samples))
	}
	return err
}

// printLeveled prints each GPU × mode's error from the sheet alone and at
// the GPU's probed level (both parts, and each alone), and the levels.
func printLeveled(w io.Writer, lv *gpu.Leveled) error {
	fmt.Fprintln(w, "each GPU at the level two probes would measure on it: the model that predicts its labels, times its")
	fmt.Fprintf(w, "median miss on the GPU's own adds of ≥ %d× its L2 (for bandwidth-bound kernels) and batched products of\n", gpu.SheetShareL2s)
	fmt.Fprintln(w, "≥ 2^36 FLOPs (for products); its labels are not looked at. Mean |error| per GPU and mode:")
	mae := func(v *gpu.Validation) map[string]float64 {
		out := map[string]float64{}
		for _, g := range v.Groups() {
			out[g.Key()] = g.MAE
		}
		return out
	}
	sheet, prod, bw := mae(lv.Sheet), mae(lv.Products), mae(lv.Bandwidth)
	cell := func(m map[string]float64, k string) string {
		if e, ok := m[k]; ok {
			return fmt.Sprintf("%.1f%%", e)
		}
		return "–"
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "GPU\tMODE\tLABELS\tSHEET ALONE\tPROBED\tMEAN ERROR\tPRODUCTS' LEVEL ONLY\tBANDWIDTH'S ONLY")
	var sums, counts [4]float64
	for _, g := range lv.Both.Groups() {
		k := g.Key()
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%.1f%%\t%+.1f%%\t%s\t%s\n", g.GPU, groupMode(g), g.N, cell(sheet, k), g.MAE, g.Bias, cell(prod, k), cell(bw, k))
		for i, m := range []map[string]float64{sheet, {k: g.MAE}, prod, bw} {
			if e, ok := m[k]; ok {
				sums[i] += e
				counts[i]++
			}
		}
	}
	if counts[1] > 0 {
		mean := func(i int) string {
			if counts[i] == 0 {
				return "–"
			}
			return fmt.Sprintf("%.1f%%", sums[i]/counts[i])
		}
		fmt.Fprintf(tw, "mean of the %.0f\t\t\t%s\t%s\t\t%s\t%s\n", counts[1], mean(0), mean(1), mean(2), mean(3))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "levels (× the kernel time the sheet alone gives; the measurements read):")
	level := func(x float64, n int) string {
		if n == 0 {
			return "none measured (the sheet's level)"
		}
		return fmt.Sprintf("×%.2f (%d)", math.Exp(x), n)
	}
	var unprobed []string
	for _, l := range lv.Levels {
		fmt.Fprintf(w, "  %s: products %s, bandwidth-bound %s\n", l.GPU, level(l.Level.Products, l.N[0]), level(l.Level.Bandwidth, l.N[1]))
		if l.N[0] == 0 && l.N[1] == 0 {
			unprobed = append(unprobed, l.GPU)
		}
	}
	if len(unprobed) > 0 {
		fmt.Fprintf(w, "no probe on %s (no op measurement in the folder's ops/ of a large add or batched product): PROBED is the sheet alone\n", strings.Join(unprobed, ", "))
	}
	return nil
}

// printSheetShares prints what each GPU reached of its own sheet in its
// measurements: the levels the biases above come from, which no sheet
// field gives.
func printSheetShares(w io.Writer, samples []gpu.Sample, specs map[string]gpu.Spec) error {
	fmt.Fprintf(w, "what each GPU reached of its own spec sheet in its measurements (medians of its kernel times, ≥ %d floors):\n", gpu.KernelBound)
	fmt.Fprintf(w, "the sheet's bandwidth on elementwise ops moving ≥ %d× its L2, its fp32 peak on products of ≥ 2^36 FLOPs\n", gpu.SheetShareL2s)
	fmt.Fprintln(w, "(no field of a sheet gives these; a GPU left out is predicted at what the others reached)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "GPU\tBANDWIDTH\tBMM\tLINEAR")
	cell := func(v float64, n int) string {
		if n == 0 {
			return "—"
		}
		return fmt.Sprintf("%.2f (%d)", v, n)
	}
	for _, s := range gpu.SheetShares(samples, specs) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.GPU, cell(s.Bandwidth, s.N[0]), cell(s.BMM, s.N[1]), cell(s.Linear, s.N[2]))
	}
	return tw.Flush()
}

// printLevelRemoved prints the kernel-bound op errors of each family with
// each held-out GPU's level (its median above) divided out beside them as
// they are: how much of an op's error is the GPU's level, which no spec
// sheet gives, and how much its shape. A diagnostic: the medians come from
// the held-out measurements themselves.
func printLevelRemoved(w io.Writer, samples []gpu.Sample, pred []float64) error {
	fmt.Fprintf(w, "the same (≥ %d floors) with each held-out GPU's median per family divided out: what is left without its level\n", gpu.KernelBound)
	fmt.Fprintln(w, "(a diagnostic, not a prediction: the medians are the held-out GPU's own)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "OP FAMILY\tMEASUREMENTS\tMAPE\tWITHIN ±10%\tLEVEL REMOVED: MAPE\tWITHIN ±10%")
	removed := gpu.FamilyScores(samples, gpu.LevelRemoved(samples, pred))
	for i, f := range gpu.FamilyScores(samples, pred) {
		r := removed[i]
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t%.1f%%\t%.1f%%\t%.1f%%\n", f.Family, f.KernelN, f.KernelMAPE, f.KernelWithin, r.KernelMAPE, r.KernelWithin)
	}
	return tw.Flush()
}

// absPath is p made absolute and clean (p itself where that fails).
func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// printNodeScores prints the op model's errors on the labels' graph
// nodes, each GPU left out of training.
func printNodeScores(w io.Writer, scores []gpu.NodeScore) error {
	fmt.Fprintln(w, "graph nodes of the labels (torch.fx, one layer with embeddings and head), kernel-bound (≥ 3 floors), each training GPU left out")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "GPU\tFAMILY\tNODES\tMAPE\tWITHIN ±10%\tMEDIAN PREDICTED / MEASURED")
	type pool struct {
		n           int
		ape, within float64
		lo, hi      float64 // the GPUs' medians
	}
	// "all" pools the training GPUs, each left out; "all unseen" the GPUs
	// of no training measurement
	all := map[string]*pool{}
	for _, s := range scores {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.1f%%\t%.1f%%\t%.2f\n", s.GPU, s.Family, s.N, s.MAPE, s.Within, s.Median)
		key := "all\t" + s.Family
		if s.Unseen {
			key = "all unseen\t" + s.Family
		}
		p := all[key]
		if p == nil {
			p = &pool{lo: math.Inf(1), hi: math.Inf(-1)}
			all[key] = p
		}
		p.n += s.N
		p.ape += s.MAPE * float64(s.N)
		p.within += s.Within * float64(s.N)
		p.lo, p.hi = min(p.lo, s.Median), max(p.hi, s.Median)
	}
	for _, k := range slices.Sorted(maps.Keys(all)) {
		p := all[k]
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t%.1f%%\t%.2f–%.2f\n", k, p.n, p.ape/float64(p.n), p.within/float64(p.n), p.lo, p.hi)
	}
	return tw.Flush()
}

// printGPUBiases prints, per held-out GPU and op family, the median of
// predicted / measured over the kernel-bound measurements: a GPU whose
// families all sit above 1 runs faster than the other GPUs taught the
// model to expect, whatever the op.
func printGPUBiases(w io.Writer, samples []gpu.Sample, pred []float64) error {
	bias := gpu.GPUBiases(samples, pred)
	var gpus, fams []string
	cell := map[[2]string]float64{}
	for _, b := range bias {
		if !slices.Contains(gpus, b.GPU) {
			gpus = append(gpus, b.GPU)
		}
		if !slices.Contains(fams, b.Family) {
			fams = append(fams, b.Family)
		}
		cell[[2]string{b.GPU, b.Family}] = b.Median
	}
	slices.Sort(fams)
	fmt.Fprintf(w, "median predicted / measured, left one GPU out, measurements of ≥ %d floors (above 1: predicted too slow)\n", gpu.KernelBound)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "GPU\t%s\n", strings.Join(fams, "\t"))
	for _, g := range gpus {
		fmt.Fprint(tw, g)
		for _, f := range fams {
			if v, ok := cell[[2]string{g, f}]; ok {
				fmt.Fprintf(tw, "\t%.2f", v)
			} else {
				fmt.Fprint(tw, "\t—")
			}
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// printOpScores prints each op family's leave-one-GPU-out error over all
// its measurements, and over those of ≥ 3 measurement floors (kernel-bound).
func printOpScores(w io.Writer, samples []gpu.Sample, pred []float64) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "OP FAMILY\tMEASUREMENTS\tMAPE\tWITHIN ±10%%\t≥ %d FLOORS\tMAPE\tWITHIN ±10%%\n", gpu.KernelBound)
	for _, f := range gpu.FamilyScores(samples, pred) {
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t%.1f%%\t%d\t%.1f%%\t%.1f%%\n", f.Family, f.N, f.MAPE, f.Within, f.KernelN, f.KernelMAPE, f.KernelWithin)
	}
	return tw.Flush()
}

// writeNeuSightValidation writes predictions.csv and the figures into the
// --out folder outs, recording each: predicted against measured iteration
// time per GPU (log-log), and the mean |error| per model. It returns the
// paths written (figures as base names).
func writeNeuSightValidation(outs *outFiles, v *gpu.Validation, data *gpu.Data) ([]string, error) {
	figDir := filepath.Join(outs.dir, "figures")
	if err := os.MkdirAll(figDir, 0o755); err != nil {
		return nil, err
	}
	csvPath := filepath.Join(outs.dir, "predictions.csv")
	if err := outs.claim("predictions.csv"); err != nil {
		return nil, err
	}
	if err := atomicfile.Write(csvPath, v.WriteCSV); err != nil {
		return nil, err
	}
	if err := outs.wrote("predictions.csv"); err != nil {
		return nil, err
	}
	// render draws f to figures/name.{png,pdf,svg}, of this command's own
	render := func(f *figures.Figure, name string) (string, error) {
		files := figureFiles("figures", name)
		if err := outs.claim(files...); err != nil {
			return "", err
		}
		base := filepath.Join(figDir, name)
		if _, err := figures.Render(f, base, nil); err != nil {
			return "", err
		}
		return base + ".{png,pdf,svg}", outs.wrote(files...)
	}
	var series []figures.Series // one a GPU
	bySeries := map[string]int{}
	models := map[string][]float64{}
	var names []string
	for _, p := range v.Labels {
		if p.Skipped != "" {
			continue
		}
		m := shortModel(p.Label.Model) + "\n" + string(p.Label.Mode)
		if p.Label.GPUs > 1 {
			m += " " + gpu.ParallelOf(p.Label).String() // a split is its own bar
		}
		if _, ok := models[m]; !ok {
			names = append(names, m)
		}
		models[m] = append(models[m], 100*math.Abs(p.Error()))
		label := shortGPU(p.Label.GPU)
		i, ok := bySeries[label]
		if !ok {
			i = len(series)
			bySeries[label] = i
			series = append(series, figures.Series{Label: label})
		}
		series[i].X = append(series[i].X, p.Label.E2E)
		series[i].Y = append(series[i].Y, p.Predicted)
	}
	if len(series) == 0 {
		return []string{csvPath}, nil
	}
	paths := []string{csvPath}
	// a figure's legend holds MaxSeries GPUs: more GPUs take more figures
	// (predicted-vs-measured-2, ...)
	for k := 0; k < len(series); k += figures.MaxSeries {
		sc := &figures.Figure{Kind: figures.Scatter, XLabel: "measured iteration (ms)", YLabel: "predicted iteration (ms)", LogX: true, LogY: true, Diagonal: true,
			Series: series[k:min(k+figures.MaxSeries, len(series))]}
		name := "predicted-vs-measured"
		if k > 0 {
			name += fmt.Sprintf("-%d", k/figures.MaxSeries+1)
		}
		p, err := render(sc, name)
		if err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	// predicted-vs-measured-N of an earlier run with more GPUs would stand
	// beside these as if of this one
	stale, _ := filepath.Glob(filepath.Join(figDir, "predicted-vs-measured-*"))
	for _, p := range stale {
		n, ok := strings.CutPrefix(strings.TrimSuffix(filepath.Base(p), filepath.Ext(p)), "predicted-vs-measured-")
		if k, err := strconv.Atoi(n); ok && err == nil && k > (len(series)+figures.MaxSeries-1)/figures.MaxSeries {
			if err := outs.remove("figures/" + filepath.Base(p)); err != nil {
				return nil, err
			}
		}
	}
	slices.Sort(names)
	// three quarters of an inch a bar, so that their names do not overprint
	width := max(6*vg.Inch, vg.Length(len(names))*vg.Inch*3/4)
	bar := &figures.Figure{Kind: figures.Bar, YLabel: "mean |error| of the iteration (%)", Categories: names, Width: width}
	held, unseen := false, false
	for _, p := range v.Labels {
		if p.Skipped == "" {
			held, unseen = held || gpu.IsLeftOut(p.Held), unseen || !gpu.IsLeftOut(p.Held)
		}
	}
	ser := figures.Series{Label: "wb, each GPU left out"}
	switch {
	case held && unseen:
		ser.Label = "wb, each training GPU left out, the others never measured"
	case unseen:
		ser.Label = "wb, GPUs never measured"
	}
	for i, n := range names {
		var sum float64
		for _, e := range models[n] {
			sum += e
		}
		ser.X = append(ser.X, float64(i))
		ser.Y = append(ser.Y, sum/float64(len(models[n])))
	}
	bar.Series = []figures.Series{ser}
	p, err := render(bar, "error-per-model")
	if err != nil {
		return nil, err
	}
	paths = append(paths, p)
	for _, g := range data.GPUs() {
		c, ok := gpu.Timing(data.Samples, data.Specs, g, "add")
		if !ok {
			continue
		}
		p, err := render(timingFigure(c), "op-timing-"+g)
		if err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// timingFigure draws how one op was timed alone on one GPU: the measured
// times (median and 10th–90th percentiles per bin of analytical kernel
// time) against the two timing models.
func timingFigure(c gpu.TimingCurve) *figures.Figure {
	us := func(v []float64) []float64 {
		out := make([]float64, len(v))
		for i, x := range v {
			out[i] = x * 1e6
		}
		return out
	}
	t := us(c.T)
	return &figures.Figure{
		Kind: figures.Line, XLabel: "kernel time, analytical (µs)", YLabel: "time measured (µs)", LogX: true, LogY: true,
		Series: []figures.Series{
			{Label: "measured", X: t, Y: us(c.Median), Lo: us(c.P10), Hi: us(c.P90)},
			{Label: fmt.Sprintf("max(floor, floor − %.0f µs + %.2f t)", c.Overlap*1e6, c.KMax), X: t, Y: us(c.Max)},
			{Label: fmt.Sprintf("floor + %.2f t", c.KAdditive), X: t, Y: us(c.Additive)},
		},
		Note:  fmt.Sprintf("NeuSight's %s on %s: median and 10th–90th percentile per bin; floor %.0f µs", c.Op, shortGPU(c.GPU), c.Floor*1e6),
		Width: 5 * vg.Inch, Height: 3.2 * vg.Inch,
	}
}

// shortModel names NeuSight's models briefly, for tick labels.
func shortModel(m string) string {
	if s, ok := map[string]string{"bert_large": "BERT-L", "bert": "BERT", "gpt2_large": "GPT2-L", "gpt2_med": "GPT2-M", "gpt2_xl": "GPT2-XL",
		"gpt3_xl": "GPT3-XL", "gpt3_27": "GPT3-2.7B", "gpt3_67": "GPT3-6.7B", "gpt3_13": "GPT3-13B", "opt": "OPT", "opt_13": "OPT-1.3B",
		"llama2_7b": "Llama2-7B", "switchxl4": "Switch-4"}[m]; ok {
		return s
	}
	return m
}

// shortGPU is a GPU folder name without its vendor prefix: "V100-PCIE-32GB".
func shortGPU(g string) string {
	for _, p := range []string{"NVIDIA_", "Tesla_"} {
		g = strings.TrimPrefix(g, p)
	}
	return g
}

// printValidation prints v's table and counts; unread label files, listed
// after it, are counted too.
func printValidation(w io.Writer, v *gpu.Validation, unread int) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "GPU\tMODE\tHELD OUT\tLABELS\tMEAN |ERROR|\tMAX |ERROR|\tMEAN ERROR")
	for _, g := range v.Groups() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%.1f%%\t%.1f%%\t%+.1f%%\n", g.GPU, groupMode(g), g.Held, g.N, g.MAE, g.Max, g.Bias)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	skipped := map[string]int{}
	n := 0
	for _, p := range v.Labels {
		if p.Skipped != "" {
			skipped[p.Skipped]++
		} else {
			n++
		}
	}
	fmt.Fprintf(w, "\n%d labels predicted", n)
	for _, k := range slices.Sorted(maps.Keys(skipped)) {
		fmt.Fprintf(w, "; %d skipped: %s", skipped[k], k)
	}
	if unread > 0 {
		fmt.Fprintf(w, "; %d label files not read (listed below)", unread)
	}
	fmt.Fprintln(w)
	return nil
}

// groupMode is a validation group's mode as the tables print it: inf or
// train, run eagerly or by torch.compile, on one GPU or split.
func groupMode(g gpu.GroupError) string {
	mode := string(g.Mode)
	if g.Fused {
		mode += " (torch.compile)"
	}
	if g.Parallel != "" {
		mode += ", " + g.Parallel + " (Megatron-LM)"
	}
	return mode
}

// printOutside names, for each GPU of the validation whose labels no model
// learned from (one never measured, or the A100 80GB, measured in
// convolutions alone), the figures of its sheet outside the training GPUs'
// sheets (trained): where its predictions extrapolate.
func printOutside(w io.Writer, v *gpu.Validation, dir *neusight.Dir, trained []gpu.Spec) {
	seen := map[string]bool{}
	labelled := map[string]bool{} // the GPUs whose labels the model learned from
	for _, g := range gpu.LeaveOneOut {
		labelled[g.GPU] = true
	}
	for _, g := range v.Groups() {
		d, ok := dir.Devices[g.GPU]
		// a GPU held out whose labels the model never learned from (the
		// A100 80GB, of which it has convolutions alone) is named too
		if seen[g.GPU] || !ok || !strings.HasPrefix(g.Held, "unseen") && labelled[dir.Sheet(g.GPU)] {
			continue
		}
		seen[g.GPU] = true
		if o := gpu.OutsideNote(gpu.SpecOf(d), trained); o != "" {
			fmt.Fprintf(w, "%s: %s\n", g.GPU, o)
		}
	}
}

func gpuTrainCommand() *cli.Command {
	return &cli.Command{
		Name:  "train-gpu",
		Usage: "train the GPU op model on NeuSight's op measurements (the model wb ships)",
		Description: "Trains the learned correction of the GPU op model on every op measurement of the\n" +
			"bundled NeuSight data (datasets/data/neusight) with the shipped settings and writes it\n" +
			"gzipped. Each GPU's linear-layer measurements are first scaled to the level its own\n" +
			"whole-model labels show (the low-power boards' linear sweeps ran 20-30% slower than\n" +
			"their iterations did); the factors are printed and kept in the model. Run from the\n" +
			"repository root, it rewrites the shipped model:\n\n" +
			"   wb train-gpu --out " + gpu.ShippedFile + "\n\n" +
			"Training again gives the same bytes (a test checks). The shipped model is built into\n" +
			"wb (go:embed): a model rewritten there takes effect once wb is built again (make build);\n" +
			"one written elsewhere is for reading, as no command loads a model from a file.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "data", Usage: "a folder in NeuSight's layout (default: the bundled data)"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "gpu-model.json.gz", Usage: "where to write the model"},
		},
		Action: func(c *cli.Context) error {
			// before the training, not after it
			if err := gpuModelOut(c.String("out")); err != nil {
				return fmt.Errorf("train-gpu: %w", err)
			}
			var data *gpu.Data
			var err error
			if p := c.String("data"); p != "" {
				data, err = gpu.LoadData(p)
			} else {
				data, err = gpu.LoadBundled()
			}
			if err != nil {
				return err
			}
			m, err := data.Train(nil, gpu.DefaultParams())
			if err != nil {
				return err
			}
			js, err := m.Marshal()
			if err != nil {
				return err
			}
			z, err := gpu.Compress(js)
			if err != nil {
				return err
			}
			out := c.String("out")
			if err := atomicfile.Write(out, func(w io.Writer) error { _, err := w.Write(z); return err }); err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "trained on %d op measurements of %s; wrote %s (%d bytes)\n", len(data.Samples), strings.Join(m.TrainedOn, ", "), out, len(z))
			for _, g := range m.Calibration.GPUs() {
				fmt.Fprintf(c.App.Writer, "  %s: linear layers as its labels ran them, the sweeps' times ÷ %.3f\n", g, m.Calibration[g])
			}
			return nil
		},
	}
}

// gpuModelOut checks wb train-gpu's --out before the training: a gzipped
// JSON file in a folder wb can write, absent or a GPU op model wb wrote
// (anything else there would be replaced unasked).
func gpuModelOut(out string) error {
	if err := wantExt("--out", out, ".json.gz", "the GPU op model"); err != nil {
		return err
	}
	if err := writableOut("--out", out, true, false); err != nil {
		return err
	}
	f, err := os.Open(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("--out %s: %w", out, err)
	}
	defer f.Close()
	notModel := fmt.Errorf("--out %s: exists and is not a GPU op model wb train-gpu wrote, which the model would replace: name another file, or move that one away first", out)
	zr, err := gzip.NewReader(f)
	if err != nil {
		return notModel
	}
	// a model of any version wb wrote (an older one is what training
	// again replaces): its header alone
	var head struct {
		Version   *int                       `json:"version"`
		TrainedOn []string                   `json:"trained_on"`
		Groups    map[string]json.RawMessage `json:"groups"`
	}
	if json.NewDecoder(zr).Decode(&head) != nil || head.Version == nil || *head.Version <= 0 || head.Groups == nil && head.TrainedOn == nil {
		return notModel
	}
	return nil
}

// memoryFloor is what one step of a model surely holds on a GPU, bytes,
// as eager PyTorch runs it (no activation checkpointing, no offloading):
// the floor wb warns by.
type memoryFloor struct {
	Precision   dnn.Precision `json:"precision"`
	Weights     float64       `json:"weights_bytes"`
	Gradients   float64       `json:"gradients_bytes,omitempty"` // training
	Momentum    float64       `json:"momentum_bytes,omitempty"`  // SGD with momentum's buffers
	Adam        float64       `json:"adam_moments_bytes,omitempty"`
	Activations float64       `json:"activations_floor_bytes"` // kept for the backward, or live in inference
	PerGPU      int           `json:"samples_per_device,omitempty"`
	Need        float64       `json:"need_at_least_bytes"`
	GPU         float64       `json:"gpu_memory_bytes,omitempty"` // absent: not a GPU, or unknown
	Fits        *bool         `json:"fits"`                       // null: not known
	// how says how the floor's program runs (default: as eager PyTorch).
	how string
}

// newMemoryFloor sums the parts and compares them with the GPU's memory
// (gpuBytes; 0 when there is no GPU or its memory is unknown: Fits nil).
func newMemoryFloor(m memoryFloor, gpuBytes float64) memoryFloor {
	m.Need = m.Weights + m.Gradients + m.Momentum + m.Adam + m.Activations
	if gpuBytes > 0 {
		fits := m.Need <= gpuBytes
		m.GPU, m.Fits = gpuBytes, &fits
	}
	return m
}

// withAdam is mem with Adam's two moments (8 bytes a weight of params) on
// a GPU of gpuBytes, in training; nil in inference.
func withAdam(mem memoryFloor, mode neusight.Mode, params int64, gpuBytes float64) *memoryFloor {
	if mode != neusight.Training {
		return nil
	}
	a := mem
	a.Adam = 8 * float64(params)
	a = newMemoryFloor(a, gpuBytes)
	return &a
}

// memoryWarnings says what warnMemory says of the iteration timed (mem),
// and where a training run with Adam (adam, nil in inference) needs more
// than the GPU has although the iteration fits, that; a note where the
// larger need fits within 3% of the GPU's memory.
func memoryWarnings(w io.Writer, model, gpuName string, mem memoryFloor, adam *memoryFloor) {
	switch {
	case adam == nil || mem.Fits == nil || !*mem.Fits:
		warnMemory(w, model, gpuName, mem)
	case !*adam.Fits:
		fmt.Fprintf(w, "warning: %s on the %s: the iteration timed (forward and backward, as NeuSight timed its labels: no optimizer step) needs at least %s, "+
			"which fits its %s; a training run with Adam holds its two moments too (%s) and needs at least %s, which does not\n",
			model, gpuName, size(mem.Need), size(mem.GPU), size(adam.Adam), size(adam.Need))
	default:
		warnMemory(w, model, gpuName, *adam)
	}
}

// warnMemory warns when m does not fit: the prediction that follows is then
// of a GPU with enough memory, which the one named is not.
//
// One that fits within 3% of the GPU's memory is noted: a sheet's memory
// is its datasheet's, of which CUDA sees less (the H200's 141 GB as 139.8
// GiB, its env.json in datasets/data/h200) and the CUDA context and the
// caching allocator keep some, so the run may not fit.
func warnMemory(w io.Writer, model, gpuName string, m memoryFloor) {
	if m.Fits != nil && *m.Fits && m.Need > 0.97*m.GPU {
		with := ""
		if m.Adam > 0 {
			with = " (a training run, with Adam's two moments)"
		}
		fmt.Fprintf(w, "note: %s on the %s needs at least %s%s of its %s, within 3%%: CUDA sees less than a datasheet's memory (the H200's 141 GB as 139.8 GiB) and its context and PyTorch's caching allocator keep some, so it may not fit\n",
			model, gpuName, size(m.Need), with, size(m.GPU))
	}
	if m.Fits == nil || *m.Fits {
		return
	}
	parts := []string{fmt.Sprintf("%s weights %s", m.Precision, size(m.Weights))}
	if m.Gradients > 0 {
		parts = append(parts, "their gradients "+size(m.Gradients))
	}
	if m.Momentum > 0 {
		parts = append(parts, "SGD's momentum "+size(m.Momentum))
	}
	if m.Adam > 0 {
		parts = append(parts, "Adam's two moments "+size(m.Adam))
	}
	acts := "activations its largest kernel holds " + size(m.Activations)
	if m.Gradients > 0 {
		acts = "activations its backward pass needs kept " + size(m.Activations)
	}
	if m.PerGPU > 0 {
		acts += fmt.Sprintf(" (%d samples per GPU)", m.PerGPU)
	}
	parts = append(parts, acts)
	all := strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
	how := m.how
	if how == "" {
		how = "as eager PyTorch runs it (no activation checkpointing, no offloading)"
	}
	fmt.Fprintf(w, "warning: %s on the %s needs at least %s (%s), more than its %s; run %s, it would not fit, "+
		"and the time below is that of a GPU like it with enough memory\n",
		model, gpuName, size(m.Need), all, size(m.GPU), how)
}

// size writes bytes in GiB, MiB or KiB: the largest unit of which the
// figure, rounded, is at least 1.
func size(b float64) string {
	switch {
	case b >= 0.95*(1<<30):
		return fmt.Sprintf("%.1f GiB", b/(1<<30))
	case b >= 0.95*(1<<20):
		return fmt.Sprintf("%.0f MiB", b/(1<<20))
	}
	return fmt.Sprintf("%.0f KiB", b/(1<<10))
}
