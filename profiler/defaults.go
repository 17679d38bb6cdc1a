package profiler

import "time"

// CPURounds is --rounds auto where the layers run on the CPU. On the
// 2-core machines the bundled profiles come from, 8 interleaved rounds
// brought the share of passes whose times two profiles agree on within
// ±10% from 40% to about 90% (datasets/profiles/README.md): a shared
// CPU's load drifts within seconds.
const CPURounds = 8

// CPUMinTime is --min-time auto on the CPU: a pass is repeated for at
// least this long.
const CPUMinTime = 200 * time.Millisecond

// AutoRounds is the number of interleaved rounds a profile of a backend
// of this kind takes by default: CPURounds on the CPU ("cpu"), one on a
// GPU, whose clocks hold steady within a run.
func AutoRounds(kind string) int {
	if kind == "cpu" {
		return CPURounds
	}
	return 1
}

// AutoMinTime is the least time a pass is repeated for by default:
// CPUMinTime on the CPU, none on a GPU (the rule's repetitions suffice).
func AutoMinTime(kind string) time.Duration {
	if kind == "cpu" {
		return CPUMinTime
	}
	return 0
}
