package app

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/wb-sim/wb/datasets/neusight"
	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/predictor/gpu"
)

// specArgs splits --device-spec into the GPUs it names: a file that
// exists is one sheet, whatever its name holds; otherwise a list of
// sheets, bundled sheets' names and table GPUs, separated by commas
// ("h100-sxm,h200-sxm,NVIDIA_L4").
func specArgs(arg string) []string {
	if fi, err := os.Stat(arg); err == nil && !fi.IsDir() {
		return []string{arg}
	}
	var out []string
	for _, a := range strings.Split(arg, ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return []string{arg}
	}
	return out
}

// opModelWords says in a few words what the op model learned of spec's
// chip: its own measurements, another GPU's of its die, or none.
func opModelWords(m *gpu.Model, spec gpu.Spec) string {
	switch g := m.Sibling(spec); {
	case g == strings.ReplaceAll(spec.Name, " ", "_") && m.OwnSheet(spec):
		return "its own measurements"
	case g != "":
		return "its chip's (" + g + ")"
	}
	return "none of its chip"
}

// comparedGPU is one GPU's row of a comparison (--json).
type comparedGPU struct {
	Device      string        `json:"device"`
	DeviceName  string        `json:"device_name"`
	Iteration   gpu.Iteration `json:"iteration"`
	ForwardS    float64       `json:"forward_s"`
	BackwardS   float64       `json:"backward_s"`
	IterationS  float64       `json:"iteration_s"`
	SamplesPerS float64       `json:"samples_per_s"`
	Memory      memoryFloor   `json:"memory"`
	MemoryAdam  *memoryFloor  `json:"memory_with_adam,omitempty"`
	Trust       string        `json:"trust"`
}

// compareGPUs predicts one iteration of cfg on each GPU of args (two or
// more) with the shipped GPU op model and prints them side by side: the
// question a researcher brings before buying one. Each row is what `wb
// predict` prints for that GPU alone.
func compareGPUs(c *cli.Context, cfg *dnn.HFConfig, args []string, mode neusight.Mode, bundled string) error {
	if c.IsSet("parallel") {
		return fmt.Errorf("predict: --device-spec names %d GPUs (%s): --parallel splits an iteration over GPUs of one sheet; name one", len(args), strings.Join(args, ", "))
	}
	for i, a := range args {
		if j := slices.Index(args, a); j < i {
			return fmt.Errorf("predict: --device-spec names %s twice (GPUs %d and %d of %s): name each GPU once", a, j+1, i+1, strings.Join(args, ","))
		}
	}
	train := mode == neusight.Training
	prog, err := gpu.Lower(cfg, c.Int("seq"), c.Int("batch"), train)
	if err != nil {
		return fmt.Errorf("predict: %w", err)
	}
	m, err := gpu.Shipped()
	if err != nil {
		return err
	}
	specs := make([]gpu.Spec, len(args))
	for i, a := range args {
		if specs[i], err = gpuSpec(a, c.App.ErrWriter); err != nil {
			return err
		}
	}
	name := cfg.Model()
	rows := make([]comparedGPU, len(args))
	best := 0
	for i, spec := range specs {
		it := m.Iteration(spec, prog, train)
		var note strings.Builder
		decodingNote(&note, m, spec, prog, train, it.Total())
		fmt.Fprint(c.App.ErrWriter, strings.Replace(note.String(), "note: ", "note: "+spec.Name+": ", 1))
		mem := memoryFloor{Precision: dnn.FP32, Weights: float64(cfg.Params()) * 4, Activations: prog.Activations(train)}
		if train {
			mem.Gradients = mem.Weights
		}
		mem = newMemoryFloor(mem, spec.Memory)
		adam := withAdam(mem, mode, cfg.Params(), spec.Memory)
		memoryWarnings(c.App.ErrWriter, name, spec.Name, mem, adam)
		rows[i] = comparedGPU{Device: deviceArgOf(args[i]), DeviceName: spec.Name, Iteration: it, ForwardS: it.Forward, BackwardS: it.Backward,
			IterationS: it.Total(), SamplesPerS: float64(prog.Batch) / it.Total(), Memory: mem, MemoryAdam: adam, Trust: trust(m, spec, gpu.TrainedSpecs(bundled), mode)}
		if rows[i].IterationS < rows[best].IterationS {
			best = i
		}
	}
	if c.Bool("json") {
		return writeJSON(c.App.Writer, struct {
			Model     string        `json:"model"`
			Type      string        `json:"model_type"`
			Params    int64         `json:"params"`
			Seq       int           `json:"seq"`
			Batch     int           `json:"batch"`
			Precision dnn.Precision `json:"precision"`
			Mode      neusight.Mode `json:"mode"`
			Notes     []string      `json:"notes,omitempty"`
			TimedBy   string        `json:"timed_by"`
			Compared  []comparedGPU `json:"compared"`
		}{name, cfg.ModelType, cfg.Params(), prog.Seq, prog.Batch, dnn.FP32, mode, jsonNotes(c, cfg, prog.Seq), specTimedBy, rows})
	}
	w := c.App.Writer
	fmt.Fprintf(w, "%s (%s, %.3f B parameters), %s, sequence %d, batch %d, fp32, on %d GPUs from their spec sheets\n", cfg.File(), cfg.ModelType,
		float64(cfg.Params())/1e9, modeWords[mode], prog.Seq, prog.Batch, len(rows))
	if train {
		fmt.Fprintln(w, "(forward and backward, as NeuSight timed its training labels: no optimizer step; memory with Adam's two moments)")
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	passes := ""
	if train {
		passes = "FORWARD ms\tBACKWARD ms\t"
	}
	fmt.Fprintln(tw, "GPU\tITERATION ms\t"+passes+"SAMPLES/S\tTIME / FASTEST\tMEMORY: NEEDS / HAS\tOP MODEL LEARNED FROM")
	for i, r := range rows {
		need := r.Memory
		if r.MemoryAdam != nil {
			need = *r.MemoryAdam
		}
		fit := size(need.Need) + " / " + size(need.GPU)
		if need.Fits != nil && !*need.Fits {
			fit += " (does not fit)"
		}
		passes := ""
		if train {
			passes = fmt.Sprintf("%.2f\t%.2f\t", 1e3*r.ForwardS, 1e3*r.BackwardS)
		}
		fmt.Fprintf(tw, "%s\t%.2f\t%s%.1f\t%.2f×\t%s\t%s\n", r.DeviceName, 1e3*r.IterationS, passes, r.SamplesPerS,
			r.IterationS/rows[best].IterationS, fit, opModelWords(m, specs[i]))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%s%s\nA GPU of a chip wb never measured can expect as much, more where its sheet lies beyond the training GPUs' sheets; wb predict with --device-spec GPU alone says how the op model learned its chip.\n", howFar(mode), unseenWords(mode))
	trained := gpu.TrainedSpecs(bundled)
	for i, spec := range specs {
		if o := gpu.OutsideNote(spec, trained); o != "" {
			fmt.Fprintf(w, "%s: %s.\n", rows[i].DeviceName, o)
		}
	}
	return nil
}
