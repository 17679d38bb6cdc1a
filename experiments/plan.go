package experiments

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/wb-sim/wb/datasets/neusight"
	"github.com/wb-sim/wb/datasets/workload"
	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/predictor"
	"github.com/wb-sim/wb/scheduler"
)

// Capacity planning: a deep-learning workload (a Gavel trace: each job a
// model, a batch and its steps) on candidate clusters, each a workload of
// the config with its cluster, its GPUs' price and where its jobs' run times
// come from: measured (Gavel's throughputs, on the GPUs it measured) or
// predicted (wb's GPU predictor, on any GPU of the device table).

// Where a workload's run times come from (WorkloadConfig.Throughputs).
const (
	ThroughputsMeasured  = "measured"
	ThroughputsPredicted = "predicted"
)

// Reasons for which a planned workload leaves a job out.
const (
	DropNoPrediction = "no-prediction" // the predictor has no model of the job or no such GPU
	DropNotMeasured  = "not-measured"  // no measured throughput on one of the cluster's GPU models
)

// The summary.csv columns of a config whose workloads have a price, after
// the others.
var planMetricColumns = []string{"gpus", "cost", "cost_per_job"}

// hasPrice reports whether some workload has a price per GPU-hour.
func (c *Config) hasPrice() bool {
	return slices.ContainsFunc(c.Workloads, func(w WorkloadConfig) bool { return w.Price > 0 })
}

// planMetric is a cost column of a run; false for another column.
func planMetric(r *RunResult, col string) (float64, bool) {
	switch col {
	case "gpus":
		return float64(r.GPUs), true
	case "cost":
		return r.Cost, true
	case "cost_per_job":
		if r.Summary.Completed == 0 {
			return 0, true
		}
		return r.Cost / float64(r.Summary.Completed), true
	}
	return 0, false
}

// writePlanMetrics writes a run's planMetricColumns (empty for a failed run).
func writePlanMetrics(l *csvLine, r *RunResult) {
	for _, col := range planMetricColumns {
		if r.Status != "ok" {
			l.sep()
			continue
		}
		v, _ := planMetric(r, col)
		l.float(v)
	}
}

// clusterGPUs is the cluster's GPUs, devices and pools together.
func clusterGPUs(c *scheduler.Cluster) int {
	_, _, g := c.Capacity()
	return int(g / scheduler.MilliPerGPU)
}

// cost is what renting the cluster's GPUs for the run's makespan costs at
// price per GPU-hour.
func cost(c *scheduler.Cluster, s *scheduler.Summary, price float64) float64 {
	return float64(clusterGPUs(c)) * float64(s.Makespan) / 3600 * price
}

// planThroughputs gives w's jobs their run times on the cluster's GPU
// models as the workload's throughputs say, leaving out (and counting) the
// jobs that have none there:
//
//   - measured: each job's measured run time on each model (Job.RunOn);
//     Run is that on the cluster's first model;
//   - predicted: the predictor's (the scheduler's model estimate: the
//     shipped GPU op model for the layers, the rest analytical), data
//     parallel over the job's replicas, on each model.
//
// w's jobs are replaced, not changed in place.
func planThroughputs(w *workload.Workload, mode, interconnect string, allReduceGBps float64, specs map[string]string) error {
	if mode == "" {
		return nil
	}
	models := workload.GPUModels(w.Cluster)
	if len(models) == 0 {
		return fmt.Errorf("cluster %s has no GPUs for throughputs: %s", w.Cluster.Name, mode)
	}
	var est *predictor.ModelEstimator
	if mode == ThroughputsPredicted {
		var err error
		if est, err = gpuModelEstimator(predictor.Options{Interconnect: interconnect, AllReduce: allReduceGBps * 1e9}); err != nil {
			return err
		}
		for name, path := range specs {
			d, err := specDevice(name, path)
			if err != nil {
				return err
			}
			if est.Devices == nil {
				est.Devices = map[string]*predictor.Device{}
			}
			est.Devices[strings.ToLower(name)] = d
		}
	}
	jobs := make([]scheduler.Job, 0, len(w.Jobs))
	for _, j := range w.Jobs {
		runOn := make(map[string]scheduler.Time, len(models))
		reason := ""
		for _, m := range models {
			var t scheduler.Time
			ok := false
			if est != nil {
				t, ok = est.Predict(&j, m, j.Replicas())
				if !ok {
					reason = DropNoPrediction
				}
			} else if t, ok = j.RunOn[m]; !ok {
				reason = DropNotMeasured
			}
			if !ok {
				break
			}
			runOn[m] = t
		}
		if reason != "" {
			w.Dropped.Add(reason)
			continue
		}
		j.RunOn, j.Run = runOn, runOn[models[0]]
		jobs = append(jobs, j)
	}
	if len(jobs) == 0 {
		return fmt.Errorf("%s: no job has %s throughputs on %s (dropped: %s)", w.Name, mode, strings.Join(models, ", "), w.Dropped)
	}
	w.Jobs = jobs
	return nil
}

// specDevice is the GPU of a spec sheet (NeuSight's format) as the
// predictor's device table would hold it, under name (lower case): fp32
// peak, memory and its bandwidth, SMs, lanes, clock and L2 from the sheet;
// no tensor cores for fp32 (as every GPU of the table), and, since a sheet
// names no link, PCIe 4.0 x16 and no NVLink.
func specDevice(name, path string) (*predictor.Device, error) {
	s, err := neusight.ReadDevice(path)
	if err != nil {
		return nil, err
	}
	return &predictor.Device{
		Name: strings.ToLower(name), Display: s.Name, Kind: predictor.KindGPU,
		PeakVector:   map[predictor.Precision]float64{dnn.FP32: s.FP32GFLOPs * 1e9},
		MemBandwidth: s.BandwidthGB * 1e9, MemBytes: s.MemGB * 1e9,
		SMs: s.SMs, LanesPerSM: s.LanesPerSM, L2Bytes: s.L2MB * (1 << 20),
		SpecSheet: s.Name, BoostClockMHz: s.ClockMHz,
		PCIeGen: 4, PCIeBandwidth: 16 * 16e9 * 128 / 130 / 8,
		Sources: []string{path},
	}, nil
}

// addRunNoise multiplies each job's run times (Run and every RunOn) by
// exp(σZ), Z drawn per job from r; a run time stays at least 1 s. The
// jobs' RunOn maps are replaced, not changed (the workload shares them).
func addRunNoise(jobs []scheduler.Job, sigma float64, r *rand.Rand) {
	scale := func(t scheduler.Time, f float64) scheduler.Time {
		return scheduler.Time(min(max(math.Round(float64(t)*f), 1), float64(scheduler.MaxTime)))
	}
	for i := range jobs {
		j := &jobs[i]
		f := math.Exp(sigma * r.NormFloat64())
		j.Run = scale(j.Run, f)
		if j.RunOn != nil {
			on := make(map[string]scheduler.Time, len(j.RunOn))
			for m, t := range j.RunOn {
				on[m] = scale(t, f)
			}
			j.RunOn = on
		}
	}
}

// validatePlan checks the workloads' throughputs and prices.
func (c *Config) validatePlan(bad func(path, format string, args ...any)) {
	for i, w := range c.Workloads {
		p := fmt.Sprintf("workloads[%d]", i)
		if !(w.Price >= 0) || math.IsInf(w.Price, 0) {
			bad(p+".price", "%v: want a price per GPU-hour ≥ 0", w.Price)
		}
		if !(w.RunNoise >= 0 && w.RunNoise <= 3) {
			bad(p+".run_noise", "%v: want a σ from 0 to 3", w.RunNoise)
		}
		switch {
		case w.Interconnect != "" && w.Throughputs != ThroughputsPredicted:
			bad(p+".interconnect", "is for throughputs: predicted (measured throughputs were measured on their own links)")
		case w.Interconnect != "" && w.Interconnect != "nvlink" && w.Interconnect != "pcie":
			bad(p+".interconnect", "unknown %q (known: nvlink, pcie)", w.Interconnect)
		}
		switch {
		case w.AllReduceGBps != 0 && w.Throughputs != ThroughputsPredicted:
			bad(p+".allreduce_gbps", "is for throughputs: predicted (measured throughputs were measured on their own links)")
		case !(w.AllReduceGBps >= 0) || w.AllReduceGBps > 1e6:
			bad(p+".allreduce_gbps", "%g GB/s: want a bandwidth between 0 and 10^6 GB/s", w.AllReduceGBps)
		}
		switch w.Throughputs {
		case "":
			continue
		case ThroughputsMeasured, ThroughputsPredicted:
		default:
			bad(p+".throughputs", "unknown %q (known: %s, %s)", w.Throughputs, ThroughputsMeasured, ThroughputsPredicted)
			continue
		}
		if w.Synthetic != nil || !strings.HasPrefix(w.Trace, "gavel:") && !strings.HasSuffix(strings.TrimSuffix(w.Trace, ".gz"), ".trace") {
			bad(p+".throughputs", "is for Gavel traces (jobs with a model, batch and steps)")
			continue
		}
		if w.Cluster == "" {
			bad(p+".cluster", "required with throughputs: the GPUs the jobs run on (nodes:NxG:MODEL)")
			continue
		}
		cl, _, err := workload.ParseCluster(c.resolve(w.Cluster))
		if err != nil {
			continue // reported with the cluster
		}
		specs := map[string]bool{}
		for name, path := range w.GPUSpecs {
			specs[strings.ToLower(name)] = true
			if w.Throughputs != ThroughputsPredicted {
				bad(p+".gpu_specs", "is for throughputs: predicted")
			} else if _, err := neusight.ReadDevice(c.resolve(path)); err != nil {
				bad(p+".gpu_specs."+name, "%v", err)
			} else if !slices.Contains(workload.GPUModels(cl), strings.ToLower(name)) {
				bad(p+".gpu_specs."+name, "the cluster has no GPU %q", name)
			}
		}
		for _, m := range workload.GPUModels(cl) {
			if m == "" {
				bad(p+".cluster", "%q: its GPUs have no model; throughputs need GPU nodes of a model, nodes:NxG:MODEL", w.Cluster)
				break
			}
			if w.Throughputs == ThroughputsPredicted {
				if _, err := predictor.LookupDevice(m); err != nil && !specs[m] {
					bad(p+".cluster", "GPU %q: %v (or give its spec sheet: gpu_specs)", m, err)
				}
			} else if !slices.Contains([]string{"k80", "p100", "v100"}, m) {
				bad(p+".cluster", "GPU %q: Gavel measured K80, P100 and V100 only; use throughputs: predicted", m)
			}
		}
	}
}
