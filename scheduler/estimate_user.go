package scheduler

var _ Estimator = User{}

// User takes the user's estimate (SWF field 9), or the actual run time
// where the trace has none.
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
