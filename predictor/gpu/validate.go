package gpu

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/wb-sim/wb/datasets/neusight"
	"github.com/wb-sim/wb/dnn"
)

// LabelPrediction is one label's measured and predicted iteration.
type LabelPrediction struct {
	Label     neusight.Label
	Predicted float64 // ms
	Forward   float64 // ms
	Backward  float64 // ms
	Kernels   int
	// Held says how the GPU was kept out of the model that predicted it:
	// "leave-one-gpu-out" (its ops were in the data, and a model trained
	// without them predicted it) or "unseen" (no ops of it anywhere).
	Held string
	// Skipped gives the reason a label was not predicted ("" when it was).
	Skipped string
}

// Error is the signed relative error, predicted / measured − 1.
func (p *LabelPrediction) Error() float64 { return p.Predicted/p.Label.E2E - 1 }

// Validation is the outcome of predicting every label of a folder.
type Validation struct {
	Labels []LabelPrediction
}

// ValidateLabels predicts every single-GPU, unfused label of dir. For a GPU
// whose ops are in samples it trains a model without that GPU; for any
// other GPU it uses full, the model trained on all of samples. progress,
// when not nil, hears of each model trained.
func ValidateLabels(dir *neusight.Dir, samples []Sample, specs map[string]Spec, full *Model, p Params, progress func(string)) (*Validation, error) {
	models := map[string]*Model{}
	seen := map[string]bool{}
	for i := range samples {
		seen[samples[i].GPU] = true
	}
	v := &Validation{}
	configs := map[string]*dnn.HFConfig{}
	for _, l := range dir.Labels {
		lp := LabelPrediction{Label: l}
		switch {
		case l.Fused:
			lp.Skipped = "fused (torch.compile)"
		case l.GPUs > 1:
			lp.Skipped = "multi-GPU"
		}
		if lp.Skipped != "" {
			v.Labels = append(v.Labels, lp)
			continue
		}
		m := full
		lp.Held = "unseen"
		if seen[l.GPU] {
			lp.Held = "leave-one-gpu-out"
			if models[l.GPU] == nil {
				if progress != nil {
					progress(l.GPU)
				}
				mm, err := Train(samples, specs, []string{l.GPU}, p)
				if err != nil {
					return nil, err
				}
				models[l.GPU] = mm
			}
			m = models[l.GPU]
		}
		cfg := configs[l.Model]
		if cfg == nil {
			c, err := dnn.ReadHFConfig(dir.ModelPath(l.Model))
			if err != nil {
				return nil, fmt.Errorf("label %s/%s: %w", l.GPU, l.Model, err)
			}
			configs[l.Model], cfg = c, c
		}
		spec := SpecOf(dir.Devices[l.GPU])
		prog, err := Lower(cfg, l.Seq, l.Batch, l.Mode == neusight.Training)
		if err != nil {
			return nil, fmt.Errorf("label %s/%s: %w", l.GPU, l.Model, err)
		}
		it := m.Iteration(spec, prog, l.Mode == neusight.Training)
		lp.Predicted, lp.Forward, lp.Backward, lp.Kernels = it.Total()*1e3, it.Forward*1e3, it.Backward*1e3, it.Kernels
		v.Labels = append(v.Labels, lp)
	}
	return v, nil
}

// Group is the error of the predicted labels of one GPU and mode.
type GroupError struct {
	GPU  string
	Mode neusight.Mode
	Held string
	N    int
	MAE  float64 // mean |error|, %
	Max  float64 // largest |error|, %
	Bias float64 // mean signed error, %
}

// Groups summarises the predicted labels per GPU and mode, sorted.
func (v *Validation) Groups() []GroupError {
	m := map[string]*GroupError{}
	var keys []string
	for i := range v.Labels {
		p := &v.Labels[i]
		if p.Skipped != "" {
			continue
		}
		k := p.Label.GPU + "\x00" + string(p.Label.Mode)
		g := m[k]
		if g == nil {
			g = &GroupError{GPU: p.Label.GPU, Mode: p.Label.Mode, Held: p.Held}
			m[k] = g
			keys = append(keys, k)
		}
		e := 100 * p.Error()
		g.N++
		g.MAE += math.Abs(e)
		g.Bias += e
		g.Max = max(g.Max, math.Abs(e))
	}
	slices.Sort(keys)
	out := make([]GroupError, 0, len(keys))
	for _, k := range keys {
		g := m[k]
		g.MAE /= float64(g.N)
		g.Bias /= float64(g.N)
		out = append(out, *g)
	}
	return out
}

// WriteCSV writes one row per label: gpu, model, mode, seq, batch,
// measured and predicted ms, the error, how the GPU was held out, and why
// a label was skipped.
func (v *Validation) WriteCSV(w io.Writer) error {
	var b strings.Builder
	b.WriteString("gpu,model,mode,seq,batch,measured_ms,predicted_ms,forward_ms,backward_ms,error_pct,kernels,held,skipped\n")
	for _, p := range v.Labels {
		l := p.Label
		if p.Skipped != "" {
			fmt.Fprintf(&b, "%s,%s,%s,%d,%d,%.4f,,,,,,,%s\n", l.GPU, l.Model, l.Mode, l.Seq, l.Batch, l.E2E, p.Skipped)
			continue
		}
		fmt.Fprintf(&b, "%s,%s,%s,%d,%d,%.4f,%.4f,%.4f,%.4f,%.2f,%d,%s,\n", l.GPU, l.Model, l.Mode, l.Seq, l.Batch, l.E2E,
			p.Predicted, p.Forward, p.Backward, 100*p.Error(), p.Kernels, p.Held)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
