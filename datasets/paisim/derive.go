package paisim

import (
	"cmp"
	"container/heap"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/wb-sim/wb/datasets"
	"github.com/wb-sim/wb/datasets/internal/csvtab"
	"github.com/wb-sim/wb/datasets/internal/gzfile"
	"github.com/wb-sim/wb/datasets/pai"
	"github.com/wb-sim/wb/scheduler"
)

// GroupRow is one row of the raw trace's pai_group_tag_table: the semantic
// group of a job (instances with the same group tag are repeats of one
// job: same entry script, parameters, data).
type GroupRow struct {
	Line   int
	InstID string
	User   string
	Group  string
}

type rawGroup struct {
	InstID      string `csv:"inst_id"`
	User        string `csv:"user"`
	GPUTypeSpec string `csv:"gpu_type_spec"`
	Group       string `csv:"group"`
	Workload    string `csv:"workload"`
}

// ReadGroups reads pai_group_tag_table (no header; columns inst_id, user,
// gpu_type_spec, group, workload) from the file at path.
func ReadGroups(path string) ([]GroupRow, error) { return gzfile.ReadFile(path, ReadGroupsFrom) }

// ReadGroupsFrom reads pai_group_tag_table from r; name names it in errors.
func ReadGroupsFrom(r io.Reader, name string) ([]GroupRow, error) {
	var raw []rawGroup
	_, lines, err := csvtab.Table{Columns: []string{"inst_id", "user", "gpu_type_spec", "group", "workload"}}.Read(r, name, &raw)
	if err != nil {
		return nil, err
	}
	p := csvtab.Parser{File: name}
	rows := make([]GroupRow, len(raw))
	seen := make(map[string]int, len(raw)) // inst_id → its first row
	for i := range raw {
		rows[i] = GroupRow{Line: lines[i], InstID: strings.TrimSpace(raw[i].InstID), User: strings.TrimSpace(raw[i].User),
			Group: strings.TrimSpace(raw[i].Group)}
		if rows[i].InstID == "" && !p.Full() {
			p.Errorf(lines[i], "inst_id", "empty")
		} else if first, dup := seen[rows[i].InstID]; dup && rows[first].Group != rows[i].Group && !p.Full() {
			// two groups for one instance: Derive took the last, unsaid (a
			// reviewer's find); the same row again is harmless
			p.Errorf(lines[i], "group", "instance %q in group %q here and %q on line %d: one group an instance", rows[i].InstID, rows[i].Group, rows[first].Group, rows[first].Line)
		} else if !dup {
			seen[rows[i].InstID] = i
		}
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	return rows, nil
}

// Derive builds the simulator's job table from the raw trace's job and
// task tables and, when given, its group tag table (nil: the table has no
// group_dur and group_gpu_dur columns). The simulator's own table was made
// by its authors with a duration predictor they did not publish; Derive
// follows its columns with rules of its own, stated here:
//
//   - the jobs are those [pai.Jobs] keeps (ended, with a task that
//     started, GPUs per instance a share of one or whole), numbered from 0
//     in (submit, job_name) order: job_id follows submission;
//   - submit_time = the job's start_time, less the first job's (so the
//     table starts at 0); duration = end_time − its tasks' first start;
//   - one task stands for the job: the one asking the most GPU over its
//     instances (then the most CPU, then the first); num_gpu, num_cpu and
//     num_inst are its plan_gpu/100, plan_cpu/100 and inst_num, gpu_type
//     its gpu_type (a plan above 0 and under 0.5 counted as 1%); a job
//     whose main task asks neither GPU nor CPU (memory alone) is left out
//     as no-request, as [Jobs] would leave it out;
//   - group is the job's group tag (by inst_id), "" where it has none;
//   - the estimates use only the past: user_dur is the mean duration of
//     the user's other jobs that ended by the job's submission (earlier
//     rows only, where one ends as another is submitted), group_dur that of
//     the jobs with the same (group, user), group_gpu_dur the same (group,
//     user, gpu_type); each falls back to the next coarser key (group_gpu →
//     group → user → every job) where its key has no finished job yet, and
//     is 0 where no job at all has finished.
func Derive(jobs []pai.JobRow, tasks []pai.TaskRow, groups []GroupRow) ([]Row, datasets.Dropped, error) {
	sj, dropped, err := pai.Jobs(jobs, tasks)
	if err != nil {
		return nil, nil, err
	}
	group := map[string]string{}
	for i := range groups {
		group[groups[i].InstID] = groups[i].Group
	}
	// pai.Jobs numbers jobs by their row in the job table; find the
	// task rows each kept job was built from.
	byName := map[string][]*pai.TaskRow{}
	for i := range tasks {
		byName[tasks[i].JobName] = append(byName[tasks[i].JobName], &tasks[i])
	}
	slices.SortStableFunc(sj, func(a, b scheduler.Job) int {
		return cmp.Or(cmp.Compare(a.Submit, b.Submit), strings.Compare(a.Name, b.Name))
	})
	// a job whose main task asks neither GPU nor CPU (memory alone) is
	// left out, as [Jobs] would leave it out of a simulation (it was
	// written, and dropped by every simulation: a reviewer's find)
	mains := make([]*pai.TaskRow, 0, len(sj))
	kept := sj[:0]
	for i := range sj {
		t := mainTask(byName[sj[i].Name])
		if percent(t.PlanGPU) == 0 && percent(t.PlanCPU) == 0 {
			dropped.AddFirst(DropNothingAsked, fmt.Sprintf("job %q: its task %q asks no GPU and no CPU", sj[i].Name, t.TaskName))
			continue
		}
		kept, mains = append(kept, sj[i]), append(mains, t)
	}
	sj = kept
	rows := make([]Row, 0, len(sj))
	groupOf := make([]string, 0, len(sj))
	ends := make([]scheduler.Time, 0, len(sj))
	var t0 scheduler.Time
	if len(sj) > 0 {
		t0 = sj[0].Submit
	}
	for i := range sj {
		j, t := &sj[i], mains[i]
		rows = append(rows, Row{
			ID: int64(i), User: j.User, Submit: j.Submit - t0, Duration: max(j.Run, 1),
			GPUPct: percent(t.PlanGPU), CPUPct: percent(t.PlanCPU),
			Inst: t.InstNum, GPUType: t.GPUType,
		})
		groupOf = append(groupOf, group[jobs[j.ID].InstID])
		ends = append(ends, jobs[j.ID].End-t0)
	}
	Estimate(rows, groupOf, ends, groups != nil)
	return rows, dropped, nil
}

// percent rounds a plan_gpu or plan_cpu to a whole percent, a share above
// 0 to at least 1 (plan_gpu 0.4 was written as 0: a GPU job with no GPU).
func percent(plan float64) int64 {
	p := int64(math.RoundToEven(plan))
	if p == 0 && plan > 0 {
		return 1
	}
	return p
}

// mainTask is the task that stands for a job: the most GPU over its
// instances, then the most CPU, then the first.
func mainTask(ts []*pai.TaskRow) *pai.TaskRow {
	best := ts[0]
	for _, t := range ts[1:] {
		g, bg := float64(t.InstNum)*t.PlanGPU, float64(best.InstNum)*best.PlanGPU
		if g > bg || g == bg && float64(t.InstNum)*t.PlanCPU > float64(best.InstNum)*best.PlanCPU {
			best = t
		}
	}
	return best
}

// cents rounds an estimate to hundredths of a second, as tables are
// written.
func cents(v float64) float64 { return math.Round(v*100) / 100 }

// Estimate fills the rows' estimate columns as [Derive] says (to
// hundredths of a second), from each
// row's group and the time it ended (ends, in the rows' clock); rows must
// be in submit order. Without groups only user_dur is filled.
func Estimate(rows []Row, groups []string, ends []scheduler.Time, withGroups bool) {
	type mean struct{ sum, n float64 }
	stats := map[string]*mean{}
	add := func(k string, d float64) {
		m := stats[k]
		if m == nil {
			m = &mean{}
			stats[k] = m
		}
		m.sum += d
		m.n++
	}
	get := func(k string) (float64, bool) {
		if m := stats[k]; m != nil {
			return m.sum / m.n, true
		}
		return 0, false
	}
	keys := func(i int) (all, user, grp, gpu string) {
		r := &rows[i]
		user = "u\x00" + r.User
		grp = "g\x00" + groups[i] + "\x00" + r.User
		return "all", user, grp, grp + "\x00" + r.GPUType
	}
	var done endHeap
	for i := range rows {
		heap.Push(&done, endAt{ends[i], i})
	}
	for i := range rows {
		// ended by the job's submission, the job itself aside: one that
		// ends as it is submitted (run 0) was its own estimate (a
		// reviewer's find); the heap is in (end, row) order
		for done.Len() > 0 && (done[0].end < rows[i].Submit || done[0].end == rows[i].Submit && done[0].row < i) {
			k := heap.Pop(&done).(endAt).row
			d := float64(rows[k].Duration)
			all, user, grp, gpu := keys(k)
			add(all, d)
			add(user, d)
			add(grp, d)
			add(gpu, d)
		}
		all, user, grp, gpu := keys(i)
		first := func(ks ...string) float64 {
			for _, k := range ks {
				if v, ok := get(k); ok {
					return v
				}
			}
			return 0
		}
		rows[i].Estimates = map[string]float64{"user_dur": cents(first(user, all))}
		if withGroups {
			rows[i].Estimates["group_dur"] = cents(first(grp, user, all))
			rows[i].Estimates["group_gpu_dur"] = cents(first(gpu, grp, user, all))
		}
	}
}

type endAt struct {
	end scheduler.Time
	row int
}

type endHeap []endAt

func (h endHeap) Len() int { return len(h) }
func (h endHeap) Less(i, j int) bool {
	return h[i].end < h[j].end || h[i].end == h[j].end && h[i].row < h[j].row
}
func (h endHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *endHeap) Push(x any)   { *h = append(*h, x.(endAt)) }
func (h *endHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
