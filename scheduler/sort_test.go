package scheduler

import "sort"

func sortSlice[T any](s []T, less func(a, b T) bool) {
	sort.SliceStable(s, func(i, k int) bool { return less(s[i], s[k]) })
}
