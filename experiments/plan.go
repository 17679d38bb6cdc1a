package experiments

import (
	"cmp"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/wb-sim/wb/datasets/neusight"
	"github.com/wb-sim/wb/datasets/workload"
	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/predictor"
	"github.com/wb-sim/wb/predictor/gavelcheck"
	"github.com/wb-sim/wb/predictor/gpu"
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
	DropNotMeasured  = "not-measured"  // no measured throughput on any of the cluster's GPU models
	DropNoMemory     = "over-memory"   // predicted: above the memory of every GPU model of the cluster
)

// The summary.csv columns of a config whose workloads have a price, after
// the others.
var planMetricColumns = []string{"gpus", "cost", "cost_per_job"}

// hasPrice reports whether some workload has a price per GPU-hour.
func (c *Config) hasPrice() bool {
	return slices.ContainsFunc(c.Workloads, func(w WorkloadConfig) bool { return w.priced() })
}

// priced reports whether w prices its GPUs (price or prices).
func (w *WorkloadConfig) priced() bool { return w.Price > 0 || len(w.Prices) > 0 }

// processorPool says whether the workload runs on a pool of processors: an
// SWF trace on its own machine or on pool:N, or a synthetic workload (the
// pools sweep.procs sizes).
func (w *WorkloadConfig) processorPool() bool {
	if w.Cluster != "" {
		n, ok := strings.CutPrefix(w.Cluster, "pool:")
		return ok && !strings.Contains(n, ":")
	}
	return w.Synthetic != nil || strings.HasPrefix(w.Trace, "swf:") || strings.HasSuffix(strings.TrimSuffix(w.Trace, ".gz"), ".swf")
}

// oneNode says whether w runs on a machine of one node, where a placement
// has nothing to choose: a pool of processors, or pool:G:C's GPUs held as
// one quantity.
func (w *WorkloadConfig) oneNode() bool {
	return w.processorPool() || strings.HasPrefix(w.Cluster, "pool:")
}

// hasValue reports whether w's runs have a value in column col: a cost
// column only where w prices its GPUs (no price is no cost, not a cost of
// 0).
func (w *WorkloadConfig) hasValue(col string) bool {
	return w.priced() || !slices.Contains(planMetricColumns, col)
}

// priceOf is w's price per GPU-hour of a GPU of model (any case): its
// prices' where it has them, else its price.
func (w *WorkloadConfig) priceOf(model string) float64 {
	for m, v := range w.Prices {
		if strings.EqualFold(m, model) {
			return v
		}
	}
	return w.Price
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

// writePlanMetrics writes a run's planMetricColumns (empty for a failed
// run, and for a workload with no price, whose cost is not known: not 0).
func writePlanMetrics(l *csvLine, r *RunResult, priced bool) {
	for _, col := range planMetricColumns {
		if r.Status != "ok" || !priced {
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

// cost is what renting the cluster's GPUs for the run's makespan costs,
// each GPU at its model's price per GPU-hour (a pool's GPUs at the price
// of its model, "" where it names none).
func cost(c *scheduler.Cluster, s *scheduler.Summary, price func(model string) float64) float64 {
	var perHour float64
	for i := range c.Nodes {
		n := &c.Nodes[i]
		perHour += float64(n.GPUs+n.PoolGPUs) * price(n.Model)
	}
	return perHour * float64(s.Makespan) / 3600
}

// planThroughputs gives w's jobs their run times on the cluster's GPU
// models as the workload's throughputs say, leaving out (and counting) the
// jobs that have none there:
//
//   - measured: each job's measured run time on each model (Job.RunOn);
//   - predicted: the predictor's (the scheduler's model estimate: the
//     shipped GPU op model for the layers, the rest analytical), data
//     parallel over the job's replicas, on each model, as pr says.
//
// Run, the time a scheduler's exact estimate gives a job before it is
// placed (SJF's order, EASY's reservations), is its time on the model it
// runs fastest on: what the cluster can do for it, whatever order the
// cluster lists its models in.
//
// w's jobs are replaced, not changed in place. Where the cluster leaves
// some out, the pool returned holds every job, so that a run samples or
// windows the same jobs on every cluster of a plan (runJobs); nil where
// none is left out.
func planThroughputs(w *workload.Workload, mode string, pr planPrediction, specs map[string]string) (*planPool, error) {
	if mode == "" {
		return nil, nil
	}
	models := workload.GPUModels(w.Cluster)
	if len(models) == 0 {
		return nil, fmt.Errorf("cluster %s has no GPUs for throughputs: %s", w.Cluster.Name, mode)
	}
	// estOf is the estimator of a job on a model, within a node or across
	// nodes; nil: measured
	var estOf func(j *scheduler.Job, m string, spans bool) (*predictor.ModelEstimator, error)
	if mode == ThroughputsPredicted {
		var err error
		if estOf, err = planEstimators(models, nodeGPUs(w.Cluster), pr, specs); err != nil {
			return nil, err
		}
	}
	jobs := make([]scheduler.Job, 0, len(w.Jobs))
	pool := &planPool{jobs: make([]scheduler.Job, 0, len(w.Jobs)), runnable: make([]bool, 0, len(w.Jobs))}
	floors := map[string]float64{} // a training step's memory floor by zoo model and batch
	for _, j := range w.Jobs {
		runOn := make(map[string]scheduler.Time, len(models))
		var spanning map[string]scheduler.Time // with internode_gbps: on GPUs of several nodes
		var over []string                      // the models whose memory the job's step exceeds
		var unmeasured []string                // measured: the models Gavel did not measure it on
		reason := ""
		for _, m := range models {
			var t scheduler.Time
			ok := false
			if estOf != nil {
				e, err := estOf(&j, m, false)
				if err != nil {
					return nil, err
				}
				if fits, err := fitsMemory(e, &j, m, floors); err != nil {
					return nil, err
				} else if !fits {
					over = append(over, m)
					continue
				}
				t, ok = e.Predict(&j, m, predictor.JobGPUs(&j))
				if !ok {
					reason = DropNoPrediction
				} else if pr.internode > 0 && j.Replicas() > 1 {
					if e, err = estOf(&j, m, true); err != nil {
						return nil, err
					}
					ts, ok := e.Predict(&j, m, predictor.JobGPUs(&j))
					if !ok { // a prediction of the same job, but for its link
						return nil, fmt.Errorf("%s: %s on %d GPUs of %s across nodes: no prediction", w.Name, j.Model, j.Replicas(), m)
					}
					if spanning == nil {
						spanning = make(map[string]scheduler.Time, len(models))
					}
					spanning[m] = ts
				}
			} else if t, ok = j.RunOn[m]; !ok {
				// it runs on the models that measured it, as wb simulate
				// runs it (a reviewer's find: a K80 and V100 mix left out
				// jobs its V100s could run)
				unmeasured = append(unmeasured, m)
				continue
			}
			if !ok {
				break
			}
			runOn[m] = t
		}
		if reason == "" && len(runOn) == 0 {
			reason = DropNoMemory
			if len(unmeasured) > 0 {
				reason = DropNotMeasured
			}
		}
		if reason != "" {
			w.Dropped.AddFirst(reason, fmt.Sprintf("job %d (%s)", j.ID, j.Model))
			pool.jobs, pool.runnable = append(pool.jobs, j), append(pool.runnable, false)
			continue
		}
		if len(over)+len(unmeasured) > 0 { // it runs on the others alone
			j.Tasks = slices.Clone(j.Tasks)
			for k := range j.Tasks {
				j.Tasks[k].Request.Models = slices.Sorted(maps.Keys(runOn))
			}
		}
		j.RunOn, j.RunSpanning, j.Run = runOn, spanning, slices.Min(slices.Collect(maps.Values(runOn)))
		jobs = append(jobs, j)
		pool.jobs, pool.runnable = append(pool.jobs, j), append(pool.runnable, true)
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("%s: no job has %s throughputs on %s (dropped: %s)", w.Name, mode, strings.Join(models, ", "), w.Dropped)
	}
	w.Jobs = jobs
	if len(jobs) == len(pool.jobs) {
		return nil, nil
	}
	return pool, nil
}

// planPool is a workload's jobs before its cluster left any out
// (planThroughputs), those it can run with their run times there: a run
// samples or windows these, so that every cluster of a plan draws the
// same jobs, and then leaves out those its cluster cannot run (runnable
// false; RunResult.LeftOut counts them).
type planPool struct {
	jobs     []scheduler.Job
	runnable []bool
}

// fitsMemory reports whether a training step of j fits the memory of a
// GPU of model m as e sees it (predictor.TrainingMemoryFloor, the floor wb
// predict warns by); true for a job of no zoo model, or a GPU of unknown
// memory. floors caches the floor by model and batch.
func fitsMemory(e *predictor.ModelEstimator, j *scheduler.Job, m string, floors map[string]float64) (bool, error) {
	if j.Model == "" {
		return true, nil
	}
	d, err := e.Device(m)
	if err != nil || d.MemBytes <= 0 {
		return true, nil // no such GPU: the prediction says so
	}
	key := j.Model + "/" + strconv.Itoa(j.Batch)
	need, ok := floors[key]
	if !ok {
		n, err := dnn.Model(j.Model)
		if err != nil {
			return true, nil // no such model: the prediction says so
		}
		need = predictor.TrainingMemoryFloor(n, max(j.Batch, 1), dnn.FP32)
		floors[key] = need
	}
	return need <= d.MemBytes, nil
}

// planPrediction is what a workload with predicted throughputs says of
// the prediction: the link its data-parallel jobs exchange gradients over
// (interconnect), a bus bandwidth in GB/s (allreduce_gbps) or Gavel's
// servers' (allreduce_gavel), the bandwidth between nodes of a job whose GPUs
// span them (internode_gbps), and whether to predict as on GPUs wb never
// measured (held_out).
type planPrediction struct {
	interconnect string
	gbps         float64
	internode    float64 // GB/s of a job whose GPUs span nodes; 0: the node's link
	gavel        bool
	heldOut      bool
}

// planEstimators returns the estimator of a job on one of models as pr
// says, on GPUs of one node or, where spans or the job needs more GPUs
// than a node of m holds, of several (the all-reduce at pr's internode
// bandwidth, where given): the scheduler's model estimate (the shipped GPU op model, the host
// cost and device scales fitted on every Gavel family), with held_out the
// one wb predict --validate gavel --gpu-model scores (heldOut), and with
// allreduce_gavel its all-reduce at the bandwidth Gavel's servers gave the
// job (gavelLinks). Estimators are made once per GPU model, job family and
// bandwidth.
func planEstimators(models []string, perNode map[string]int, pr planPrediction, specs map[string]string) (func(j *scheduler.Job, m string, spans bool) (*predictor.ModelEstimator, error), error) {
	var held *heldOutFit
	if pr.heldOut {
		var err error
		if held, err = heldOut(); err != nil {
			return nil, err
		}
	}
	families, err := gavelcheck.Families()
	if err != nil {
		return nil, err
	}
	sheets := map[string]*predictor.Device{}               // the spec sheets, read once
	for _, name := range slices.Sorted(maps.Keys(specs)) { // in order (validation refuses names alike but for case)
		if sheets[strings.ToLower(name)], err = specDevice(name, specs[name]); err != nil {
			return nil, err
		}
	}
	type key struct {
		model, family, also string
		bw                  float64
	}
	ests := map[key]*predictor.ModelEstimator{}
	// estFor is the estimator of a family's jobs on GPU m, held out: with
	// the constants fitted without family (and without also, where not "")
	estFor := func(m, family, also string, bw float64) (*predictor.ModelEstimator, error) {
		if !pr.heldOut {
			m, family, also = "", "", "" // the same constants for every model and family
		}
		k := key{m, family, also, bw}
		if e := ests[k]; e != nil {
			return e, nil
		}
		o := predictor.Options{Interconnect: pr.interconnect, AllReduce: bw}
		var e *predictor.ModelEstimator
		if pr.heldOut {
			e = held.estimator(m, family, also, o)
		} else {
			var err error
			if e, err = gpuModelEstimator(o); err != nil {
				return nil, err
			}
		}
		for name, d := range sheets {
			if e.Devices == nil {
				e.Devices = map[string]*predictor.Device{}
			}
			e.Devices[name] = d
		}
		ests[k] = e
		return e, nil
	}
	bwOf := func(*scheduler.Job, string) float64 { return pr.gbps * 1e9 }
	if pr.gavel {
		if bwOf, err = gavelLinks(models, families, estFor); err != nil {
			return nil, err
		}
	}
	return func(j *scheduler.Job, m string, spans bool) (*predictor.ModelEstimator, error) {
		bw := bwOf(j, m)
		if pr.internode > 0 && perNode[m] > 0 && (spans || j.Replicas() > perNode[m]) {
			// its GPUs span nodes: the ring crosses the network between
			// them and each node's own link, and runs at the slower (the
			// node's as the estimator times it: Gavel's "p100" is the
			// PCIe card)
			e, err := estFor(m, families[j.Model], "", bw)
			if err != nil {
				return nil, err
			}
			d, err := e.Device(m)
			if err != nil {
				return nil, err
			}
			node := e.Options.NodeAllReduce(d, perNode[m])
			bw = pr.internode * 1e9
			if node > 0 {
				bw = min(bw, node)
			}
		}
		return estFor(m, families[j.Model], "", bw)
	}, nil
}

// heldOutFit is what predicts Gavel's jobs as on GPUs wb never measured:
// per Gavel GPU, the GPU op model trained without its chip's measurements
// (gavelcheck.LayerModels), and per job family, the host cost and device
// scales fitted to Gavel's other families with those models
// (gavelcheck.Validation.Constants) — wb predict --validate gavel
// --gpu-model's predictions.
type heldOutFit struct {
	v      *gavelcheck.Validation
	layers map[string]predictor.LayerModel
}

var (
	heldOutOnce sync.Once
	heldOutV    *heldOutFit
	heldOutErr  error
)

// heldOut trains and fits the held-out predictor once per process (about
// 11 s on 2 cores: two op models, the K80's being the shipped one).
func heldOut() (*heldOutFit, error) {
	heldOutOnce.Do(func() {
		layers, err := gavelcheck.LayerModels(nil)
		if err != nil {
			heldOutErr = err
			return
		}
		v, err := gavelcheck.ValidateGavel(predictor.Roofline, layers)
		if err != nil {
			heldOutErr = err
			return
		}
		heldOutV = &heldOutFit{v: v, layers: layers}
	})
	return heldOutV, heldOutErr
}

// estimator is the held-out estimator of a family's jobs on Gavel GPU m,
// with o's link and the constants fitted without the family (and without
// also, where it is another family seen: gavelcheck.PairConstants); a family
// Gavel did not measure takes the constants fitted on every family.
func (h *heldOutFit) estimator(m, family, also string, o predictor.Options) *predictor.ModelEstimator {
	c, ok := h.v.Constants[family]
	if pc, pair := h.v.PairConstants[gavelcheck.PairKey(family, also)]; pair && also != "" {
		c, ok = pc, true // fitted without either
	}
	if !ok {
		c = gavelcheck.Constants{HostCost: h.v.Fitted, Scales: h.v.Scales} // fitted on every family seen
	}
	o.Layers, o.KernelOverhead = h.layers[m], c.HostCost
	e := &predictor.ModelEstimator{Options: o, Scales: c.Scales}
	addGavelDevices(e)
	return e
}

// gavelLinks returns, for the cluster's models (GPUs Gavel measured), the
// all-reduce bandwidth of a job on one of them: the bus bandwidth Gavel's
// servers gave that GPU and GPU count, fitted (gavelcheck.LinksOut) to the
// measured slowdowns of Gavel's data-parallel job types on it, each as
// estFor predicts its family there, leaving the job's own family (families:
// zoo model → Gavel's family) out; a family without data-parallel rows
// there (A3C, which wb cannot see; Recommendation, which Gavel measured on
// one GPU alone), and a GPU count Gavel
// did not measure, take the bandwidth fitted on every row of the GPU
// (count). 0 for a job on one GPU.
func gavelLinks(models []string, families map[string]string, estFor func(m, family, also string, bw float64) (*predictor.ModelEstimator, error)) (func(*scheduler.Job, string) float64, error) {
	type key struct {
		model string
		gpus  int
	}
	perFamily := map[key]map[string]float64{} // the fit without each family
	all := map[key]float64{}                  // with every family; gpus 0: every count
	for _, m := range models {
		rows, err := gavelcheck.DataParallel(m)
		if err != nil {
			return nil, err
		}
		// each row's iteration on one GPU, and on its GPUs without the
		// all-reduce and with it at 1 GB/s (the ring's time is its
		// traffic over the bandwidth plus a latency a step), as each fold
		// predicts it: the fold fitting family F's bandwidth predicts
		// another family's row with the constants fitted without both,
		// so that F's measurements reach neither ("": the fit on all)
		var fams []string
		for _, r := range rows {
			if !slices.Contains(fams, r.Family) {
				fams = append(fams, r.Family)
			}
		}
		type split struct{ one, rest, comm float64 }
		by := make([]map[string]split, len(rows))
		for i, r := range rows {
			by[i] = map[string]split{}
			for _, out := range append([]string{""}, fams...) {
				if out == r.Family {
					continue
				}
				est, err := estFor(m, r.Family, out, 0)
				if err != nil {
					return nil, err
				}
				probe, err := estFor(m, r.Family, out, 1e9)
				if err != nil {
					return nil, err
				}
				p1, err := est.Prediction(r.Model, m, r.Batch, 1)
				if err != nil {
					return nil, fmt.Errorf("allreduce_gavel: %s on %s: %w", r.JobType, m, err)
				}
				pn, err := probe.Prediction(r.Model, m, r.Batch, r.GPUs)
				if err != nil {
					return nil, fmt.Errorf("allreduce_gavel: %s on %d %s: %w", r.JobType, r.GPUs, m, err)
				}
				latency := 2 * float64(r.GPUs-1) * predictor.LinkLatency
				by[i][out] = split{p1.Iteration, pn.Iteration - pn.Communication + latency, pn.Communication - latency}
			}
		}
		fit := func(idx []int) (map[string]float64, float64) {
			sub := make([]gavelcheck.DataParallelRow, len(idx))
			for j, i := range idx {
				sub[j] = rows[i]
			}
			return gavelcheck.LinksOut(sub, func(j int, out string, bw float64) float64 {
				s := by[idx[j]][out]
				return (s.rest + s.comm*1e9/bw) / s.one
			})
		}
		byCount := map[int][]int{}
		var every []int
		for i, r := range rows {
			byCount[r.GPUs] = append(byCount[r.GPUs], i)
			every = append(every, i)
		}
		_, all[key{m, 0}] = fit(every)
		for n, idx := range byCount {
			perFamily[key{m, n}], all[key{m, n}] = fit(idx)
		}
	}
	return func(j *scheduler.Job, m string) float64 {
		n := j.Replicas()
		if n <= 1 {
			return 0
		}
		k := key{m, n}
		bw, ok := perFamily[k][families[j.Model]]
		if !ok {
			if bw, ok = all[k]; !ok {
				bw = all[key{m, 0}]
			}
		}
		return bw // 0 where m has no data-parallel measurement: the link's
	}, nil
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
		MemBandwidth: s.BandwidthGB * 1e9, MemBytes: s.MemGB * (1 << 30), // Dev_Mem counts GiB, as CUDA reports memory
		SMs: s.SMs, LanesPerSM: s.LanesPerSM, L2Bytes: s.L2MB * (1 << 20),
		SpecSheet: s.Name, BoostClockMHz: s.ClockMHz,
		PCIeGen: 4, PCIeBandwidth: 16 * 16e9 * 128 / 130 / 8,
		Sources: []string{path},
	}, nil
}

// The units run_noise draws its errors per (WorkloadConfig.RunNoiseBy).
const (
	NoiseByJobType = "job_type"
	NoiseByJob     = "job"
)

// addRunNoise multiplies each job's run times (Run, every RunOn and RunSpanning) by
// exp(σZ), Z drawn per job, or with byType once per job type (its Name,
// else its Model and Batch; every job of a type the same draw); a run time
// stays at least 1 s. With perGPU (σ by GPU model, any case) each GPU
// model's run times (RunOn and RunSpanning of that model) take their own
// draw with the model's σ (sigma for a model perGPU does not list), and
// Run becomes the fastest model's, as the prediction set it. The jobs'
// RunOn and RunSpanning maps are replaced, not changed (the workload shares
// them).
//
// Each Z is keyed, not drawn in sequence: r gives one number, and a job
// type's (or a job's, by its ID) Z on a GPU model is a draw of its own
// stream, seeded by that number and by the type (or job) and the model. So
// one replica's draws are the same for a type on a model whatever cluster
// it runs in and whatever else the workload holds (a predictor errs on a
// type on a GPU the same way wherever the GPU stands), and independent
// between models: in sequence, two one-model clusters of a plan, sampling
// the same jobs, drew the same Zs for their two GPUs (a reviewer's find).
func addRunNoise(jobs []scheduler.Job, sigma float64, perGPU map[string]float64, byType bool, r *rand.Rand) {
	scale := func(t scheduler.Time, f float64) scheduler.Time {
		return scheduler.Time(min(max(math.Round(float64(t)*f), 1), float64(scheduler.MaxTime)))
	}
	sigmaOf := func(model string) float64 {
		for m, s := range perGPU {
			if strings.EqualFold(m, model) {
				return s
			}
		}
		return sigma
	}
	base := r.Uint64()
	z := func(key string) float64 {
		h := fnv.New64a()
		h.Write([]byte(key))
		return rand.New(rand.NewPCG(base, h.Sum64())).NormFloat64()
	}
	byTypeDrawn := map[string]float64{} // a type's factor on a model ("" for every model alike)
	for i := range jobs {
		j := &jobs[i]
		unit := ""
		if byType {
			unit = j.Name
			if unit == "" && j.Model != "" {
				unit = fmt.Sprintf("%s\x00%d", j.Model, j.Batch)
			}
		}
		// a job of no type (an SWF trace's: no name, no model) draws its
		// own (it drew the one factor of every such job: a reviewer's find)
		typed := unit != ""
		drawn := map[string]float64{} // this job's factors
		factor := func(model string) float64 {
			if perGPU == nil || len(j.RunOn) == 0 {
				model = "" // one draw for every model
			}
			if f, ok := drawn[model]; ok {
				return f
			}
			f, ok := byTypeDrawn[unit+"\x00"+model]
			if !ok {
				s := sigma
				if model != "" {
					s = sigmaOf(model)
				}
				key := "type\x00" + unit + "\x00" + strings.ToLower(model)
				if !typed {
					key = fmt.Sprintf("job\x00%d\x00%s", j.ID, strings.ToLower(model))
				}
				f = math.Exp(s * z(key))
				if typed {
					byTypeDrawn[unit+"\x00"+model] = f
				}
			}
			drawn[model] = f
			return f
		}
		// the models: RunOn's, then RunSpanning's others, each sorted; a
		// copy of each map, every time scaled (nil stays nil)
		models := slices.Sorted(maps.Keys(j.RunOn))
		for _, m := range slices.Sorted(maps.Keys(j.RunSpanning)) {
			if _, ok := j.RunOn[m]; !ok {
				models = append(models, m)
			}
		}
		var on, spanning map[string]scheduler.Time
		if j.RunOn != nil {
			on = make(map[string]scheduler.Time, len(j.RunOn))
		}
		if j.RunSpanning != nil {
			spanning = make(map[string]scheduler.Time, len(j.RunSpanning))
		}
		for _, m := range models {
			if t, ok := j.RunOn[m]; ok {
				on[m] = scale(t, factor(m))
			}
			if t, ok := j.RunSpanning[m]; ok {
				spanning[m] = scale(t, factor(m))
			}
		}
		if _, own := drawn[""]; own || len(on) == 0 {
			j.Run = scale(j.Run, factor(""))
		} else {
			j.Run = slices.Min(slices.Collect(maps.Values(on)))
		}
		j.RunOn, j.RunSpanning = on, spanning
	}
}

// MaxPrice bounds a price per GPU-hour: far beyond any GPU's, and small
// enough that a cost (GPUs × hours × price) stays finite.
const MaxPrice = 1e6

// validatePlan checks the workloads' throughputs and prices.
func (c *Config) validatePlan(bad func(path, format string, args ...any)) {
	if len(c.planTwins()) > 0 {
		// the check compares the twins at one sweep point, the last load
		if len(c.Sweep.Procs) > 1 {
			bad("sweep.procs", "a measured-vs-predicted check (twin workloads) compares one point; sweep only load")
		}
		if len(c.Sweep.Sigma) > 1 {
			bad("sweep.sigma", "a measured-vs-predicted check (twin workloads) compares one point; sweep only load")
		}
	}
	for i, w := range c.Workloads {
		p := fmt.Sprintf("workloads[%d]", i)
		if !(w.Price >= 0 && w.Price <= MaxPrice) {
			bad(p+".price", "%v: want a price per GPU-hour above 0, at most %g (0, the default, means no price: no cost columns)", w.Price, MaxPrice)
		}
		pool := w.processorPool()
		if w.Price > 0 && pool {
			whose := "the SWF trace's own"
			if w.Synthetic != nil {
				whose = "the synthetic workload's, synthetic.procs"
			}
			bad(p+".price", "prices GPU-hours, and the workload runs on a pool of processors (%s), which has none", cmp.Or(w.Cluster, whose))
		}
		if len(c.Sweep.Procs) > 0 && !pool {
			bad("sweep.procs", "resizes an SWF trace's pool of processors, and %s runs on %s", p, cmp.Or(w.Cluster, "its trace's own cluster"))
		}
		// pool:N is the machine whatever procs says (procs then only drops
		// the jobs wider than it): one of the two
		if pool && w.Cluster != "" {
			if len(c.Sweep.Procs) > 0 {
				bad("sweep.procs", "resizes the trace's own pool, and %s sets its machine (cluster: %s): drop the one or the other", p, w.Cluster)
			}
			if w.Procs != 0 {
				bad(p+".procs", "sizes the trace's own pool, and the workload sets its machine (cluster: %s): drop the one or the other", w.Cluster)
			}
		}
		c.validatePrices(p, &w, bad)
		if !(w.RunNoise >= 0 && w.RunNoise <= 3) {
			bad(p+".run_noise", "%v: want a σ from 0 to 3", w.RunNoise)
		}
		c.validateNoiseGPUs(p, &w, bad)
		switch {
		case w.RunNoiseBy != "" && w.RunNoise == 0:
			bad(p+".run_noise_by", "is for run_noise: give run_noise: σ")
		case w.RunNoiseBy != "" && w.RunNoiseBy != NoiseByJobType && w.RunNoiseBy != NoiseByJob:
			bad(p+".run_noise_by", "unknown %q (known: %s, %s)", w.RunNoiseBy, NoiseByJobType, NoiseByJob)
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
		switch {
		case w.InternodeGBps != 0 && w.Throughputs != ThroughputsPredicted:
			bad(p+".internode_gbps", "is for throughputs: predicted (measured throughputs were measured on their own links)")
		case !(w.InternodeGBps >= 0) || w.InternodeGBps > 1e6:
			bad(p+".internode_gbps", "%g GB/s: want a bandwidth between 0 and 10^6 GB/s", w.InternodeGBps)
		case w.InternodeGBps != 0 && w.AllReduceGavel:
			bad(p+".internode_gbps", "and allreduce_gavel: Gavel's servers' bandwidth, fitted per GPU count, spans their nodes already: keep one")
		}
		switch {
		case w.AllReduceGavel && w.Throughputs != ThroughputsPredicted:
			bad(p+".allreduce_gavel", "is for throughputs: predicted (measured throughputs were measured on Gavel's links already)")
		case w.AllReduceGavel && w.AllReduceGBps != 0:
			bad(p+".allreduce_gavel", "and allreduce_gbps both set the all-reduce's bandwidth: keep one")
		}
		if w.HeldOut && w.Throughputs != ThroughputsPredicted {
			bad(p+".held_out", "is for throughputs: predicted")
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
		for _, name := range slices.Sorted(maps.Keys(w.GPUSpecs)) {
			path := w.GPUSpecs[name]
			if specs[strings.ToLower(name)] {
				// which sheet a GPU took would depend on the map's order
				bad(p+".gpu_specs."+name, "names a GPU another key names too (GPU names ignore case); give one")
			}
			specs[strings.ToLower(name)] = true
			if w.Throughputs != ThroughputsPredicted {
				bad(p+".gpu_specs", "is for throughputs: predicted")
			} else if _, err := neusight.ReadDevice(c.sheetPath(path)); errors.Is(err, fs.ErrNotExist) {
				continue // a run reads it, a plot does not: checkTraces says so
			} else if err != nil {
				bad(p+".gpu_specs."+name, "%v", err)
			} else if !slices.Contains(workload.GPUModels(cl), strings.ToLower(name)) {
				bad(p+".gpu_specs."+name, "the cluster has no GPU %q", name)
			} else if d, err := planDevice(name); err == nil {
				// a sheet would time the table's GPU as another, silently
				bad(p+".gpu_specs."+name, "%s is a GPU of wb's device table (%s): its own figures time it; a sheet is for a GPU the table lacks, under a name of its own (nodes:NxG:MYGPU)", name, d.Display)
			}
		}
		same := map[string]string{} // the table's name of each model → the cluster's
		for _, m := range workload.GPUModels(cl) {
			if m == "" {
				bad(p+".cluster", "%q: its GPUs have no model; throughputs need GPU nodes of a model, nodes:NxG:MODEL", w.Cluster)
				break
			}
			if d, err := planDevice(m); err == nil && !specs[m] {
				if o, dup := same[d.Name]; dup {
					bad(p+".cluster", "%q and %q are one GPU, the %s: name it once (its nodes as one model)", o, m, d.Display)
				}
				same[d.Name] = m
			}
			if w.AllReduceGavel && !slices.Contains(gavelcheck.GavelGPUs(), m) {
				bad(p+".allreduce_gavel", "GPU %q: Gavel measured data-parallel jobs on %s only", m, strings.Join(gavelcheck.GavelGPUs(), ", "))
			}
			if w.HeldOut && !slices.Contains(gavelcheck.GavelGPUs(), m) {
				bad(p+".held_out", "GPU %q: held_out predicts Gavel's jobs as its measurements of them are checked, on the GPUs it measured: %s", m, strings.Join(gavelcheck.GavelGPUs(), ", "))
			}
			if w.Throughputs == ThroughputsPredicted {
				d, err := planDevice(m)
				if err != nil && !specs[m] {
					bad(p+".cluster", "GPU %q: %v (or give its spec sheet: gpu_specs)", m, err)
				}
				if w.Interconnect == "nvlink" {
					switch {
					case specs[m]:
						bad(p+".interconnect", "nvlink: GPU %q is read from a spec sheet, which names no link (PCIe is assumed): drop interconnect (and give its link's all-reduce bandwidth as allreduce_gbps)", m)
					case err == nil && d.NVLinkBandwidth <= 0:
						bad(p+".interconnect", "nvlink: GPU %q (%s) has no NVLink in wb's device table: use pcie (or drop interconnect and give the link's all-reduce bandwidth as allreduce_gbps)", m, d.Display)
					case err == nil && !d.NVLinkJoins(nodeGPUs(cl)[m]):
						bad(p+".interconnect", "nvlink: GPU %q's NVLink is a bridge that joins two cards, and its nodes hold %d: their jobs exchange gradients over PCIe (use pcie, or give the all-reduce bandwidth as allreduce_gbps)", m, nodeGPUs(cl)[m])
					}
				}
			} else if !slices.Contains([]string{"k80", "p100", "v100"}, m) {
				bad(p+".cluster", "GPU %q: Gavel measured K80, P100 and V100 only; use throughputs: predicted", m)
			}
		}
	}
}

// planDevice is the device table's GPU a plan's cluster names: Gavel's
// GPUs as Gavel's (its "p100" the PCIe card, predictor.GavelDevices), as
// the predicted throughputs time them, so that the config's checks (one
// GPU named twice, NVLink) and notes speak of the GPU the runs time.
func planDevice(name string) (*predictor.Device, error) {
	if dev, ok := predictor.GavelDevices[strings.ToLower(name)]; ok {
		return predictor.LookupDevice(dev)
	}
	return predictor.LookupDevice(name)
}

// sheetPath is the spec sheet a gpu_specs entry names: a file (relative to
// the config's folder), or else a bundled sheet by name ("NVIDIA_L4"), as
// wb predict --device-spec takes them.
func (c *Config) sheetPath(p string) string {
	path := c.resolve(p)
	if _, err := os.Stat(path); err == nil || strings.ContainsAny(p, `/\`) {
		return path
	}
	if b, _, ok := neusight.BundledSheet(strings.TrimSuffix(p, ".json")); ok {
		return b
	}
	return path
}

// validateNoiseGPUs checks w's run_noise_gpus: beside run_noise (the σ of
// the models it does not list), a σ from 0 to 3 for GPU models of the
// cluster, each named once.
func (c *Config) validateNoiseGPUs(p string, w *WorkloadConfig, bad func(path, format string, args ...any)) {
	if len(w.RunNoiseGPUs) == 0 {
		return
	}
	if w.RunNoise == 0 {
		bad(p+".run_noise_gpus", "is for run_noise: give run_noise: σ (the σ of the GPU models it does not list)")
	}
	var models []string // the cluster's GPU models (none where it cannot be read: reported with it)
	if cl, _, err := workload.ParseCluster(c.resolve(w.Cluster)); err == nil && w.Cluster != "" {
		models = slices.DeleteFunc(workload.GPUModels(cl), func(m string) bool { return m == "" })
	}
	checkGPUKeys(p+".run_noise_gpus", "names", w.RunNoiseGPUs, models, bad, func(name string, v float64) {
		if !(v >= 0 && v <= 3) {
			bad(p+".run_noise_gpus."+name, "%v: want a σ from 0 to 3", v)
		}
	})
}

// checkGPUKeys checks a map of values by GPU model, at path: each model
// named once (case aside; verb says what a key does: "prices"), each one
// of models (lower case; not checked when there are none), and each value
// by value, in the keys' order. It returns the keys by their lower case.
func checkGPUKeys(path, verb string, m map[string]float64, models []string, bad func(path, format string, args ...any), value func(name string, v float64)) map[string]string {
	named := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(m)) {
		if other, dup := named[strings.ToLower(name)]; dup {
			// which of the two counted would depend on the map's order
			bad(path+"."+name, "%s %s again (as %s): GPU names ignore case; give one", verb, strings.ToUpper(name), other)
		}
		named[strings.ToLower(name)] = name
		value(name, m[name])
		if len(models) > 0 && !slices.Contains(models, strings.ToLower(name)) {
			bad(path+"."+name, "the cluster has no GPU %q (its GPUs: %s)", name, strings.Join(models, ", "))
		}
	}
	return named
}

// validatePrices checks w's prices: with no price beside them, one for
// each GPU model of its cluster and none for another, each ≥ 0.
func (c *Config) validatePrices(p string, w *WorkloadConfig, bad func(path, format string, args ...any)) {
	if len(w.Prices) == 0 {
		return
	}
	if w.Price != 0 {
		bad(p+".prices", "and price both price the GPUs: keep one (prices for a cluster of several GPU models)")
	}
	if w.Cluster == "" {
		bad(p+".prices", "need the workload's cluster (nodes:NxG:MODEL+...), whose GPU models they price")
		return
	}
	cl, _, err := workload.ParseCluster(c.resolve(w.Cluster))
	if err != nil {
		return // reported with the cluster
	}
	models := workload.GPUModels(cl)
	if slices.Contains(models, "") {
		bad(p+".prices", "%q: its GPUs have no model to price by (a pool or nodes without one); use price", w.Cluster)
		return
	}
	// lower case, as GPUModels names them → the key
	priced := checkGPUKeys(p+".prices", "prices", w.Prices, models, bad, func(name string, v float64) {
		if !(v > 0 && v <= MaxPrice) {
			// 0 would cost nothing here, where price: 0 is no price at all
			bad(p+".prices."+name, "%v: want a price per GPU-hour above 0, at most %g (price: 0 means no price; a mix is priced whole or not at all)", v, MaxPrice)
		}
	})
	for _, m := range models {
		if priced[m] == "" {
			bad(p+".prices", "no price for the cluster's %s GPUs", strings.ToUpper(m))
		}
	}
}

// lowerBounds counts jobs by zoo model whose iteration holds work that no
// prediction times (predictor.Untimed); nil for none.
func lowerBounds(jobs []scheduler.Job) map[string]int {
	var n map[string]int
	for i := range jobs {
		if m := jobs[i].Model; m != "" && predictor.Untimed(m) != "" {
			if n == nil {
				n = map[string]int{}
			}
			n[m]++
		}
	}
	return n
}

// nodeGPUs is, per GPU model of the cluster, the most GPUs one node of it
// holds.
func nodeGPUs(c *scheduler.Cluster) map[string]int {
	out := map[string]int{}
	for i := range c.Nodes {
		n := &c.Nodes[i]
		if n.Model != "" {
			out[strings.ToLower(n.Model)] = max(out[strings.ToLower(n.Model)], n.GPUs+n.PoolGPUs)
		}
	}
	return out
}

// spannedNodes counts the jobs of res that ran on GPUs of more than one
// node (across), and of those the ones a node of their GPU model could
// have held (split: placed replica by replica over several nodes).
func spannedNodes(res *scheduler.Result, c *scheduler.Cluster) (across, split int) {
	per := nodeGPUs(c)
	for i := range res.Jobs {
		jr := &res.Jobs[i]
		if scheduler.NodesTouched(jr.Slots) > 1 {
			across++
			if int(jr.Replicas) <= per[strings.ToLower(c.Nodes[jr.Slots[0].Node].Model)] {
				split++
			}
		}
	}
	return across, split
}

// spanningNotes says, one line per workload of predicted run times whose
// runs hold jobs that ran on GPUs of more than one node
// (RunResult.Spanning), how many a run (the mean over its runs that
// completed) and how they were timed: within a node where the workload
// gives no internode_gbps, else over the network, with how many of them
// one node could have held (RunResult.Split).
func (c *Config) spanningNotes(runs []RunKey, results []*storedRun) []string {
	n, split, of := map[int]int{}, map[int]int{}, map[int]int{}
	for i, k := range runs {
		r := &results[i].RunResult
		if r.Status != "ok" || c.Workloads[k.Workload].Throughputs != ThroughputsPredicted {
			continue
		}
		n[k.Workload] += r.Spanning
		split[k.Workload] += r.Split
		of[k.Workload]++
	}
	// consolidate is offered where a scheduler places replica by replica
	loose := slices.ContainsFunc(c.Schedulers, func(s SchedulerConfig) bool { return !s.Consolidate && s.Sharing == "" })
	by := map[string][]int{} // a note's text → its workloads
	for w := range n {
		if n[w] == 0 {
			continue
		}
		count := countText(float64(n[w]) / float64(of[w]))
		var text string
		switch {
		case c.Workloads[w].InternodeGBps == 0:
			text = count + " jobs a run (over its schedulers' runs) ran on GPUs of more than one node; their all-reduce is timed as within a node (its link, or allreduce_gbps where given): give internode_gbps, the network's, to time it between nodes"
			if loose && split[w] > 0 {
				text += " (and a scheduler's consolidate: true keeps on one node a job one node holds whole)"
			}
		default:
			text = count + " jobs a run (over its schedulers' runs) ran on GPUs of more than one node, their all-reduce timed over the network (internode_gbps)"
			if split[w] > 0 {
				text += "; " + countText(float64(split[w])/float64(of[w])) + " of them one node of their GPU model could have held"
				if loose {
					text += " (a scheduler's consolidate: true keeps such a job on one node where one has room)"
				} else {
					text += ": every scheduler consolidates, and no node had room when they started"
				}
			}
		}
		by[text] = append(by[text], w)
	}
	return c.grouped(by)
}

// outsideNotes says, one line per GPU model of the workloads of predicted
// run times, where its sheet lies outside the sheets of the GPUs the GPU
// op model learned from (gpu.Outside: SMs, lanes per SM, clock, fp32 peak,
// bandwidth, L2, FLOPs per byte), as wb predict says it: there the model
// extrapolates. A held-out workload's model was trained without the GPUs
// of its GPU's chip, so they leave its range. Nil where every predicted
// GPU lies within.
func (c *Config) outsideNotes() []string {
	dir, err := neusight.Bundled()
	if err != nil {
		return nil
	}
	trained := gpu.TrainedSpecs(dir)
	type key struct{ gpu, note string } // a GPU model and what its range says
	var order []key
	where := map[key][]string{}
	for w := range c.Workloads {
		wc := &c.Workloads[w]
		if wc.Throughputs != ThroughputsPredicted {
			continue
		}
		cl, _, err := workload.ParseCluster(c.resolve(wc.Cluster))
		if err != nil {
			continue
		}
		for _, m := range workload.GPUModels(cl) {
			var dev *predictor.Device
			sheet := false
			for name, path := range wc.GPUSpecs {
				if strings.EqualFold(name, m) {
					dev, err = specDevice(name, c.sheetPath(path))
					sheet = true
				}
			}
			if !sheet {
				dev, err = planDevice(m)
			}
			if err != nil {
				continue // refused or said elsewhere
			}
			s, err := gpu.SpecOfDevice(dev)
			if err != nil {
				continue
			}
			span := trained
			if wc.HeldOut {
				span = slices.DeleteFunc(slices.Clone(trained), func(t gpu.Spec) bool { return gpu.SameChip(t, s) })
			}
			note := gpu.OutsideNote(s, span)
			if note == "" {
				continue
			}
			if len(span) < len(trained) {
				note = "held out, its chip's GPUs left out of the range: " + note
			}
			k := key{dev.Display, note}
			if where[k] == nil {
				order = append(order, k)
			}
			if ws := where[k]; len(ws) == 0 || ws[len(ws)-1] != c.WorkloadName(w) {
				where[k] = append(ws, c.WorkloadName(w))
			}
		}
	}
	var lines []string
	for _, k := range order {
		lines = append(lines, fmt.Sprintf("%s, in %s: %s", k.gpu, strings.Join(where[k], ", "), k.note))
	}
	return lines
}

// lowerBoundNotes says, one line per zoo model, that the predicted run
// times of its jobs are lower bounds: in which workloads, how many jobs a
// run (the mean over the workload's runs), of how many, and what is not
// timed. Nil where no run has any.
func (c *Config) lowerBoundNotes(runs []RunKey, results []*storedRun) []string {
	predicted := 0 // workloads of predicted run times
	for i := range c.Workloads {
		if c.Workloads[i].Throughputs == ThroughputsPredicted {
			predicted++
		}
	}
	runsOf, jobsOf := map[int]int{}, map[int]int{} // by workload: its ok runs and their jobs
	bounded := map[string]map[int]int{}            // model → workload → jobs
	for i, k := range runs {
		r := &results[i].RunResult
		if r.Status != "ok" || c.Workloads[k.Workload].Throughputs != ThroughputsPredicted {
			continue
		}
		runsOf[k.Workload]++
		jobsOf[k.Workload] += r.Jobs
		for m, n := range r.LowerBounds {
			if bounded[m] == nil {
				bounded[m] = map[int]int{}
			}
			bounded[m][k.Workload] += n
		}
	}
	var lines []string
	for _, m := range slices.Sorted(maps.Keys(bounded)) {
		ws := slices.Sorted(maps.Keys(bounded[m]))
		var nruns, jobs, n int
		names := make([]string, len(ws))
		for i, w := range ws {
			nruns, jobs, n = nruns+runsOf[w], jobs+jobsOf[w], n+bounded[m][w]
			names[i] = c.WorkloadName(w)
		}
		where := "in every workload of predicted run times"
		if len(ws) < predicted {
			where = "in " + strings.Join(names, ", ")
		}
		lines = append(lines, fmt.Sprintf("%s: %s of %s jobs a run %s; not timed: %s",
			m, countText(float64(n)/float64(nruns)), countText(float64(jobs)/float64(nruns)), where, predictor.Untimed(m)))
	}
	return lines
}
