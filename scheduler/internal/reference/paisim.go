package reference

import (
	"errors"
	"slices"
)

// PAIJob is a job of the Alibaba PAI v2020 simulator (Weng et al., NSDI
// 2022) in its own units: GPU and CPU in percent per instance, a duration
// of at least 1 s, and the key its policy sorts the queue by.
type PAIJob struct {
	ID       int64
	Submit   int64
	Duration int64
	GPU, CPU int64 // percent per instance
	Inst     int64
	Key      float64
}

// PAISimulate runs jobs as that simulator's time loop does on its one-node
// cluster of gpu and cpu percent (no preemption, no service load), and
// returns each job's start time, in input order. Written from its
// description, as plainly as possible:
//
//   - time advances one second per tick while anything runs or waits;
//     with nothing running or waiting it jumps to the tick before the next
//     submission;
//   - in a tick at time t: jobs whose submit time is ≤ t have joined the
//     waiting list; the list is sorted by (Key, ID); it is walked in that
//     order and every job whose Inst × GPU and Inst × CPU fit what is idle
//     starts (takes them) and leaves the list;
//   - then the clock moves to t + 1: every running job has run one more
//     second; one that has run its Duration ends then and frees what it
//     took; jobs submitted by t + 1 join the list.
//
// It fails when a job can never start (it asks more than the cluster).
func PAISimulate(jobs []PAIJob, gpu, cpu int64) ([]int64, error) {
	for _, j := range jobs {
		if j.Inst*j.GPU > gpu || j.Inst*j.CPU > cpu || j.Duration < 1 {
			return nil, errors.New("reference: a job asks more than the cluster, or has no duration")
		}
	}
	start := make([]int64, len(jobs))
	onTime := make([]int64, len(jobs))
	future := make([]int, len(jobs)) // indices by submit, latest last popped first
	for i := range future {
		future[i] = i
	}
	slices.SortStableFunc(future, func(a, b int) int { return int(jobs[b].Submit - jobs[a].Submit) })
	var waiting, running []int
	idleG, idleC := gpu, cpu
	now := int64(0)
	retrieve := func() {
		for len(future) > 0 && jobs[future[len(future)-1]].Submit <= now {
			waiting = append(waiting, future[len(future)-1])
			future = future[:len(future)-1]
		}
	}
	retrieve()
	for {
		// Allocate.
		slices.SortStableFunc(waiting, func(a, b int) int {
			ja, jb := &jobs[a], &jobs[b]
			switch {
			case ja.Key < jb.Key:
				return -1
			case ja.Key > jb.Key:
				return 1
			case ja.ID < jb.ID:
				return -1
			case ja.ID > jb.ID:
				return 1
			}
			return 0
		})
		kept := waiting[:0]
		for _, k := range waiting {
			j := &jobs[k]
			if j.Inst*j.GPU <= idleG && j.Inst*j.CPU <= idleC {
				idleG -= j.Inst * j.GPU
				idleC -= j.Inst * j.CPU
				start[k] = now
				running = append(running, k)
				continue
			}
			kept = append(kept, k)
		}
		waiting = kept
		// Tick.
		switch {
		case len(running) > 0 || len(waiting) > 0:
			now++
			retrieve()
			still := running[:0]
			for _, k := range running {
				j := &jobs[k]
				if onTime[k]++; onTime[k] >= j.Duration {
					idleG += j.Inst * j.GPU
					idleC += j.Inst * j.CPU
					continue
				}
				still = append(still, k)
			}
			running = still
		case len(future) > 0:
			now = jobs[future[len(future)-1]].Submit - 1
			now++
			retrieve()
		default:
			return start, nil
		}
	}
}
