package scheduler

import (
	"fmt"
	"math"
	"strings"
)

// TableEstimate takes a job's run-time estimate from a column of its trace
// (Job.Estimates), as the Alibaba PAI v2020 simulator's estimate-ordered
// policies do (Weng et al., NSDI 2022): with the sjf order, user_dur is its
// SJU, group_dur its SJG and group_gpu_dur its SJGG. The scheduler plans
// with the estimate rounded up to a whole second; the queue order compares
// the estimates as written (Entry.Fine), so that two jobs whose estimates
// differ by less than a second are served in the simulator's order.
type TableEstimate struct {
	// Part is the estimator's name, Column the Job.Estimates key it reads.
	Part, Column string
}

// The estimators of the PAI simulator's job table.
var (
	UserDur     = TableEstimate{Part: "user-dur", Column: "user_dur"}
	GroupDur    = TableEstimate{Part: "group-dur", Column: "group_dur"}
	GroupGPUDur = TableEstimate{Part: "group-gpu-dur", Column: "group_gpu_dur"}
)

// Name implements Estimator.
func (e TableEstimate) Name() string { return e.Part }

// Estimate implements Estimator: the column's value rounded up.
func (e TableEstimate) Estimate(j *Job) Time {
	return Time(math.Ceil(j.Estimates[e.Column]))
}

// Fine implements FineEstimator: the column's value.
func (e TableEstimate) Fine(j *Job) float64 { return j.Estimates[e.Column] }

// Require implements Requirer: the job must have the column.
func (e TableEstimate) Require(j *Job) error {
	if _, ok := j.Estimates[e.Column]; !ok {
		// where the column comes from: the group columns need the group
		// table, the user's not (it said --groups for both: a reviewer's
		// find)
		from := "a PAI simulator job table has it: wb dataset pai-sim derives it"
		if strings.HasPrefix(e.Column, "group") {
			from = "a PAI simulator job table has it where wb dataset pai-sim derived it with --groups (pai_group_tag_table.csv)"
		}
		return fmt.Errorf("job %d: estimate %s needs the trace's %s column, which this job lacks (%s, or the table came with it)", j.ID, e.Part, e.Column, from)
	}
	return nil
}

var (
	_ Estimator     = TableEstimate{}
	_ FineEstimator = TableEstimate{}
	_ Requirer      = TableEstimate{}
)
