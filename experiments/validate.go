package experiments

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/wb-sim/wb/datasets"
	"github.com/wb-sim/wb/datasets/gavel"
	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/predictor"
)

// gavelGPUs maps Gavel's GPU names to the device table's.
var gavelGPUs = map[string]string{"k80": "k80", "p100": "p100", "v100": "v100"}

// ValidationRow is one (job type, GPU) of Gavel's measurements beside the
// prediction.
type ValidationRow struct {
	JobType, Model, GPU string
	Batch               int
	Measured, Predicted float64 // iterations per second
	Error               float64 // |predicted − measured| / measured
}

// Validation compares the analytical model with Gavel's measured solo
// throughputs (one GPU, fp32, as Gavel ran them).
type Validation struct {
	Combine predictor.Combine
	Rows    []ValidationRow
	// MAPE per model family and over all rows.
	PerFamily map[string]float64
	Overall   float64
}

// ValidateGavel predicts every Gavel job type on one K80, P100 and V100
// with the uncalibrated analytical model and compares with the bundled
// measured throughputs.
func ValidateGavel(combine predictor.Combine) (*Validation, error) {
	dir, err := datasets.DataDir()
	if err != nil {
		return nil, err
	}
	tp, err := gavel.ReadThroughputs(filepath.Join(dir, "gavel", "simulation_throughputs.json.gz"))
	if err != nil {
		return nil, err
	}
	v := &Validation{Combine: combine, PerFamily: map[string]float64{}}
	nets := map[string]*dnn.Network{}
	counts := map[string]int{}
	var gpus []string
	for g := range gavelGPUs {
		gpus = append(gpus, g)
	}
	slices.Sort(gpus)
	for _, g := range gpus {
		dev, err := predictor.LookupDevice(gavelGPUs[g])
		if err != nil {
			return nil, err
		}
		var keys []gavel.JobKey
		for k, t := range tp[g] {
			if k.ScaleFactor == 1 && t.Solo > 0 {
				keys = append(keys, k)
			}
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i].JobType < keys[j].JobType })
		for _, k := range keys {
			model, batch := gavel.ZooModel(k.JobType)
			if model == "" {
				return nil, fmt.Errorf("gavel job type %q: no model in the zoo", k.JobType)
			}
			family, _, _ := strings.Cut(k.JobType, " (")
			net := nets[model]
			if net == nil {
				if net, err = dnn.Model(model); err != nil {
					return nil, err
				}
				nets[model] = net
			}
			p, err := predictor.Predict(net, dev, predictor.Options{Batch: batch, Precision: dnn.FP32, Combine: combine})
			if err != nil {
				return nil, fmt.Errorf("%s on %s: %w", k.JobType, g, err)
			}
			meas := tp[g][k].Solo
			pred := 1 / p.Iteration
			e := math.Abs(pred-meas) / meas
			v.Rows = append(v.Rows, ValidationRow{JobType: k.JobType, Model: model, GPU: g, Batch: batch, Measured: meas, Predicted: pred, Error: e})
			v.PerFamily[family] += e
			counts[family]++
			v.Overall += e
		}
	}
	for f, n := range counts {
		v.PerFamily[f] /= float64(n)
	}
	if len(v.Rows) > 0 {
		v.Overall /= float64(len(v.Rows))
	}
	return v, nil
}

// Print writes the comparison: every row, then the MAPE per family and
// overall.
func (v *Validation) Print(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "job type\tmodel\tGPU\tmeasured it/s\tpredicted it/s\terror")
	for _, r := range v.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.3f\t%.3f\t%+.0f%%\n", r.JobType, r.Model, r.GPU, r.Measured, r.Predicted, 100*(r.Predicted-r.Measured)/r.Measured)
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "family\tMAPE")
	var fams []string
	for f := range v.PerFamily {
		fams = append(fams, f)
	}
	slices.Sort(fams)
	for _, f := range fams {
		fmt.Fprintf(tw, "%s\t%.1f%%\n", f, 100*v.PerFamily[f])
	}
	fmt.Fprintf(tw, "all %d\t%.1f%%\n", len(v.Rows), 100*v.Overall)
	return tw.Flush()
}
