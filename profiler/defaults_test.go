package profiler

import "testing"

func TestAutoDefaults(t *testing.T) {
	if AutoRounds("cpu") != CPURounds || AutoMinTime("cpu") != CPUMinTime {
		t.Errorf("cpu: %d rounds, %v", AutoRounds("cpu"), AutoMinTime("cpu"))
	}
	for _, k := range []string{"cuda", "onednn-gpu", ""} {
		if AutoRounds(k) != 1 || AutoMinTime(k) != 0 {
			t.Errorf("%q: %d rounds, %v", k, AutoRounds(k), AutoMinTime(k))
		}
	}
}
