package pyrand

import (
	"slices"
	"testing"
)

// TestMatchesCPython: draws and shuffles equal CPython 3.11's, printed by
//
//	python3 -c "import random
//	random.seed(42); x=list(range(100)); random.shuffle(x); print(x[:12])
//	random.seed(42); print([random.getrandbits(32) for _ in range(3)])
//	random.seed(2**40+5); y=list(range(1000)); random.shuffle(y); print(y[:8])
//	random.seed(0); z=list(range(20000)); random.shuffle(z); print(z[:5], z[-3:])"
func TestMatchesCPython(t *testing.T) {
	shuffled := func(seed uint64, size int) []int {
		x := make([]int, size)
		for i := range x {
			x[i] = i
		}
		New(seed).Shuffle(len(x), func(i, j int) { x[i], x[j] = x[j], x[i] })
		return x
	}
	if got, want := shuffled(42, 100)[:12], []int{42, 41, 91, 9, 65, 50, 1, 70, 15, 78, 73, 10}; !slices.Equal(got, want) {
		t.Errorf("seed 42, shuffle of 100: %v, want %v", got, want)
	}
	r := New(42)
	for _, want := range []uint32{2746317213, 478163327, 107420369} {
		if got := r.Getrandbits(32); got != want {
			t.Errorf("seed 42, getrandbits(32) = %d, want %d", got, want)
		}
	}
	if got, want := shuffled(1<<40+5, 1000)[:8], []int{207, 690, 542, 290, 700, 351, 177, 707}; !slices.Equal(got, want) {
		t.Errorf("seed 2^40+5 (two key words): %v, want %v", got, want)
	}
	z := shuffled(0, 20000)
	if got, want := append(z[:5:5], z[len(z)-3:]...), []int{6006, 7577, 12158, 9612, 16295, 1326, 13781, 12623}; !slices.Equal(got, want) {
		t.Errorf("seed 0, shuffle of 20,000: %v, want %v", got, want)
	}
}
