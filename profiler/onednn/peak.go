//go:build cgo

package onednn

/*
#include "peak.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"time"
)

// measurePeak is the best fp32 FLOP/s of threads threads over five runs of
// about run each, with the FMA width given (512 or 256).
func measurePeak(width, threads int, run time.Duration) (float64, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	iters := int64(1 << 16)
	for { // calibrate: grow the iterations until one run takes a tenth of run
		start := time.Now()
		if C.wb_peak(C.int(width), C.int(threads), C.int64_t(iters)) < 0 {
			return 0, fmt.Errorf("onednn: peak measurement failed (%d-bit FMA, %d threads)", width, threads)
		}
		if el := time.Since(start); el >= run/10 || iters > 1<<40 {
			iters = int64(float64(iters) * float64(run) / float64(max(el, time.Microsecond)))
			break
		}
		iters *= 4
	}
	best := 0.0
	for range 5 {
		best = max(best, float64(C.wb_peak(C.int(width), C.int(threads), C.int64_t(max(iters, 1)))))
	}
	return best, nil
}

func isaWidth() int { return int(C.wb_isa()) }

// probeRun is one run of the machine probe: iters steps of the FMA chains on
// threads threads. each is the longest thread's own span, seconds, from its
// start to its end: how fast the slowest core ran; span is from the first
// thread's start to the last one's end, which adds the threads' skew in
// starting (the threads' creation is in neither). each is negative where
// the run failed.
func probeRun(width, threads int, iters int64) (each, span float64) {
	return probeRunInTurn(width, threads, iters, false)
}

// probeRunInTurn is probeRun, with inTurn each thread starting only when
// the one before it is done: a skew in starting that span holds and each
// does not.
func probeRunInTurn(width, threads int, iters int64, inTurn bool) (each, span float64) {
	turn := 0
	if inTurn {
		turn = 1
	}
	var s C.double
	e := C.wb_probe_secs_in_turn(C.int(width), C.int(threads), C.int64_t(iters), &s, C.int(turn))
	return float64(e), float64(s)
}
