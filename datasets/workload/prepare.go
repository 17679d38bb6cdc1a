package workload

import (
	"cmp"
	"math/rand/v2"
	"slices"

	"github.com/wb-sim/wb/scheduler"
)

// Sample returns n of jobs drawn uniformly without replacement with r, in
// their order in jobs, as the PAI v2020 simulator samples num_jobs of its
// table (it shuffles with Python's generator, so the two samples differ
// for the same seed); a copy of every job when n ≤ 0 or n ≥ len(jobs).
// jobs is not changed.
func Sample(jobs []scheduler.Job, n int, r *rand.Rand) []scheduler.Job {
	if n <= 0 || n >= len(jobs) {
		return slices.Clone(jobs)
	}
	idx := SampleIndices(len(jobs), n, r)
	out := make([]scheduler.Job, n)
	for i, k := range idx {
		out[i] = jobs[k]
	}
	return out
}

// SampleIndices is Sample's draw: the indices, in increasing order, of n
// of size items drawn uniformly without replacement with r (the same
// draws as Sample of as many jobs); every index when n ≤ 0 or n ≥ size.
func SampleIndices(size, n int, r *rand.Rand) []int {
	idx := make([]int, size)
	for i := range idx {
		idx[i] = i
	}
	if n <= 0 || n >= size {
		return idx
	}
	// A partial Fisher–Yates shuffle of the indices: the first n are the
	// sample.
	for i := 0; i < n; i++ {
		k := i + r.IntN(len(idx)-i)
		idx[i], idx[k] = idx[k], idx[i]
	}
	idx = idx[:n]
	slices.Sort(idx)
	return idx
}

// Retime gives jobs new submit times as the PAI v2020 simulator's
// arrival_rate does: in (submit, id) order, the k-th job (from 0) arrives
// at ⌊k / rate⌋ × interval (60 s when interval is not positive, the
// simulator's arrival_interval). jobs is sorted in that order in place.
// rate must be positive.
func Retime(jobs []scheduler.Job, rate int, interval scheduler.Time) {
	if interval <= 0 {
		interval = 60
	}
	slices.SortStableFunc(jobs, func(a, b scheduler.Job) int { return RetimeOrder(&a, &b) })
	for k := range jobs {
		jobs[k].Submit = scheduler.Time(k/rate) * interval
	}
}

// RetimeOrder is the order Retime re-times jobs in, as a comparison: by
// submit time, then id (Retime's sort is stable: ties keep their order).
func RetimeOrder(a, b *scheduler.Job) int {
	return cmp.Or(cmp.Compare(a.Submit, b.Submit), cmp.Compare(a.ID, b.ID))
}
