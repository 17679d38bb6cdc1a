package scheduler

var (
	_ Estimator          = User{}
	_ PlacementEstimator = User{}
	_ SpanningEstimator  = User{}
	_ PlacementFree      = User{}
)

// User takes the user's estimate (SWF field 9), or the actual run time
// where the trace has none: then on a heterogeneous cluster the run time on
// the GPUs the job got, as Exact takes it, for a user's estimate names no
// GPU model and its absence must not make one up.
type User struct{}

// Name implements Estimator.
func (User) Name() string { return "user" }

// Estimate implements Estimator.
func (User) Estimate(j *Job) Time {
	if j.UserEstimate > 0 {
		return j.UserEstimate
	}
	return j.Run
}

// EstimateOn implements PlacementEstimator: the user's estimate wherever
// the job runs, else Exact's.
func (u User) EstimateOn(j *Job, model string, gpus int) Time {
	if j.UserEstimate > 0 {
		return j.UserEstimate
	}
	return Exact{}.EstimateOn(j, model, gpus)
}

// EstimateSpanning implements SpanningEstimator: the user's estimate
// wherever the job runs, else Exact's.
func (u User) EstimateSpanning(j *Job, model string, gpus int) Time {
	if j.UserEstimate > 0 {
		return j.UserEstimate
	}
	return Exact{}.EstimateSpanning(j, model, gpus)
}

// PlacementFree implements PlacementFree: a user's estimate names no GPU,
// and nor does the run time of a job that has one run time wherever it
// runs (no Job.RunOn or Job.RunSpanning).
func (User) PlacementFree(j *Job) bool { return j.UserEstimate > 0 || oneRunTime(j) }

// oneRunTime reports whether j's run time is the same wherever it runs.
func oneRunTime(j *Job) bool { return len(j.RunOn) == 0 && len(j.RunSpanning) == 0 }
