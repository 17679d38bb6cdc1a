package scheduler

var (
	_ Estimator          = Exact{}
	_ PlacementEstimator = Exact{}
	_ SpanningEstimator  = Exact{}
)

// Exact is the oracle estimator: the actual run time.
type Exact struct{}

// Name implements Estimator.
func (Exact) Name() string { return "exact" }

// Estimate implements Estimator.
func (Exact) Estimate(j *Job) Time { return j.Run }

// EstimateOn implements PlacementEstimator: on a heterogeneous cluster the
// oracle knows the run time on the GPUs the job got (Job.RunOn).
func (Exact) EstimateOn(j *Job, model string, gpus int) Time {
	if t, ok := j.RunOnModel(model, false); ok {
		return t
	}
	return j.Run
}

// EstimateSpanning implements SpanningEstimator: the run time on GPUs of
// model on more than one node (Job.RunSpanning), else EstimateOn's.
func (Exact) EstimateSpanning(j *Job, model string, gpus int) Time {
	if t, ok := j.RunOnModel(model, true); ok {
		return t
	}
	return j.Run
}
