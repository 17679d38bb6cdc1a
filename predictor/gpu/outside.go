package gpu

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/wb-sim/wb/datasets/neusight"
)

// sheetFigure is one figure of a spec sheet, as Outside compares it.
type sheetFigure struct {
	name, unit string
	of         func(Spec) float64
}

var sheetFigures = []sheetFigure{
	{"SMs", "", func(s Spec) float64 { return fl(s.SMs) }},
	{"fp32 lanes per SM", "", func(s Spec) float64 { return fl(s.LanesPerSM) }},
	{"clock", " MHz", func(s Spec) float64 { return s.ClockMHz }},
	{"fp32 peak", " TFLOP/s", func(s Spec) float64 { return s.FP32 / 1e12 }},
	{"bandwidth", " GB/s", func(s Spec) float64 { return s.Bandwidth / 1e9 }},
	{"L2", " MB", func(s Spec) float64 { return s.L2 / (1 << 20) }},
	{"fp32 FLOPs per byte of bandwidth", "", func(s Spec) float64 { return s.FP32 / s.Bandwidth }},
}

// Outside lists the figures of s (SMs, lanes, clock, fp32 peak, bandwidth,
// L2, FLOPs per byte) that lie more than 1% outside the range of the
// training GPUs' sheets, each as "name value unit (lo–hi)": where the op model,
// whose features are built from them, extrapolates.
func Outside(s Spec, trained []Spec) []string {
	if len(trained) == 0 {
		return nil
	}
	var out []string
	for _, f := range sheetFigures {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, t := range trained {
			lo, hi = min(lo, f.of(t)), max(hi, f.of(t))
		}
		if v := f.of(s); v < lo*0.99 || v > hi*1.01 {
			r := num(lo) + "–" + num(hi)
			if lo == hi {
				r = num(lo)
			}
			out = append(out, fmt.Sprintf("%s %s%s (%s)", f.name, num(v), f.unit, r))
		}
	}
	return out
}

// num writes a figure to three significant digits, whole from 1,000 up.
func num(v float64) string {
	if math.Abs(v) >= 999.5 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// OutsideNote says where s lies outside the training GPUs' sheets
// (Outside), "" where it lies within them.
func OutsideNote(s Spec, trained []Spec) string {
	out := Outside(s, trained)
	if len(out) == 0 {
		return ""
	}
	return fmt.Sprintf("its sheet lies outside the training GPUs' (their range in brackets) in %s: there the model extrapolates", strings.Join(out, ", "))
}

// TrainedSpecs are the spec sheets, read from dir (NeuSight's layout), of
// the GPUs whose op measurements the transformer kernels learn from: those
// whose labels [LeaveOneOut] scores, not the A100 80GB PCIe, whose
// measurements are convolutions alone. They are the range Outside compares
// a sheet with; a sheet dir lacks is left out.
func TrainedSpecs(dir string) []Spec {
	var specs []Spec
	seen := map[string]bool{}
	for _, g := range LeaveOneOut {
		if seen[g.GPU] {
			continue
		}
		seen[g.GPU] = true
		d, err := neusight.ReadDevice(filepath.Join(dir, "devices", g.GPU+".json"))
		if err != nil {
			continue
		}
		specs = append(specs, SpecOf(d))
	}
	return specs
}

// SameChip reports whether a and b describe one chip: the same SMs, fp32
// lanes per SM and L2 (sameL2: in MiB or in MB), whatever the boards'
// clocks and memory (a P100 PCIe beside an SXM2).
func SameChip(a, b Spec) bool {
	return a.SMs == b.SMs && a.LanesPerSM == b.LanesPerSM && sameL2(a.L2, b.L2)
}
