package scheduler

// UserMean estimates a job's run time online from its user's finished
// jobs, as the Alibaba PAI v2020 simulator does for traces without
// precomputed durations (Weng et al., NSDI 2022): the mean run time of the
// user's last UserMeanWindow jobs to end, rounded up; 0 while the user has
// none, so that with SJF a new user's job is served first. A job that
// outlives its estimate is not re-estimated.
type UserMean struct {
	runs map[string]*userRuns
}

// UserMeanWindow is the number of a user's latest jobs UserMean averages.
const UserMeanWindow = 10

type userRuns struct {
	last [UserMeanWindow]Time // a ring of the latest run times
	n    int                  // jobs seen, up to the window
	next int                  // where the next run time goes
	sum  Time
}

// Name implements Estimator.
func (*UserMean) Name() string { return "user-mean" }

// Estimate implements Estimator.
func (u *UserMean) Estimate(j *Job) Time {
	r := u.runs[j.User]
	if r == nil || r.n == 0 {
		return 0
	}
	n := Time(r.n)
	return (r.sum + n - 1) / n
}

// Observe implements Observer.
func (u *UserMean) Observe(j *Job, start, end Time) {
	if u.runs == nil {
		u.runs = map[string]*userRuns{}
	}
	r := u.runs[j.User]
	if r == nil {
		r = &userRuns{}
		u.runs[j.User] = r
	}
	run := end - start
	if r.n == UserMeanWindow {
		r.sum -= r.last[r.next]
	} else {
		r.n++
	}
	r.last[r.next] = run
	r.sum += run
	r.next = (r.next + 1) % UserMeanWindow
}

var (
	_ Estimator = (*UserMean)(nil)
	_ Observer  = (*UserMean)(nil)
)
