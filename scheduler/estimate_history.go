package scheduler

var (
	_ Estimator   = (*History)(nil)
	_ Observer    = (*History)(nil)
	_ Reestimator = (*History)(nil)

	_ SpanningEstimator = (*History)(nil)
	_ PlacementFree     = (*History)(nil)
)

// History predicts a job's run time from its user's history (Tsafrir,
// Etsion and Feitelson, "Backfilling using system-generated predictions
// rather than user runtime estimates", IEEE TPDS 2007): the mean of the
// run times of the user's last two completed jobs, never above the job's
// own user estimate; the user estimate (or the run time, when the trace
// has none) while the user has fewer than two completed jobs, and always
// for a job of no user (Job.User "": an SWF record's user -1, a Gavel
// job), whose jobs are no one user's history. A job that outlives its
// prediction is re-estimated at its user estimate.
type History struct {
	last map[string][2]Time // the user's last two run times, newest first
	n    map[string]int
}

// Name implements Estimator.
func (*History) Name() string { return "history" }

// Estimate implements Estimator.
func (h *History) Estimate(j *Job) Time {
	user := User{}.Estimate(j)
	if h.n[j.User] < 2 {
		return user
	}
	l := h.last[j.User]
	p := (l[0] + l[1] + 1) / 2 // rounded up: a prediction of 0 s would start nothing later
	if j.UserEstimate > 0 && p > j.UserEstimate {
		p = j.UserEstimate
	}
	return p
}

// EstimateOn implements PlacementEstimator: until the user has a history,
// the user's estimate or, where the trace has none, the run time on the
// GPUs the job got (User's); then the history's, which names no GPU.
func (h *History) EstimateOn(j *Job, model string, gpus int) Time {
	if h.n[j.User] < 2 {
		return User{}.EstimateOn(j, model, gpus)
	}
	return h.Estimate(j)
}

// EstimateSpanning implements SpanningEstimator, as EstimateOn.
func (h *History) EstimateSpanning(j *Job, model string, gpus int) Time {
	if h.n[j.User] < 2 {
		return User{}.EstimateSpanning(j, model, gpus)
	}
	return h.Estimate(j)
}

// PlacementFree implements PlacementFree: a user's estimate or history
// names no GPU (nor a job's one run time, User's).
func (h *History) PlacementFree(j *Job) bool {
	return j.UserEstimate > 0 || oneRunTime(j) || h.n[j.User] >= 2
}

// Observe implements Observer.
func (h *History) Observe(j *Job, start, end Time) {
	if j.User == "" {
		return // no user's history (Estimate: never two jobs)
	}
	if h.last == nil {
		h.last, h.n = map[string][2]Time{}, map[string]int{}
	}
	l := h.last[j.User]
	h.last[j.User] = [2]Time{end - start, l[0]}
	h.n[j.User]++
}

// Reestimate implements Reestimator: the user's estimate.
func (h *History) Reestimate(j *Job, current, elapsed Time) Time {
	return User{}.Estimate(j)
}
