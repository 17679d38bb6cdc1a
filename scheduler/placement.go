package scheduler

// frac is x/c, or 0 for a dimension the node does not have.
func frac(x, c int64) float64 {
	if c <= 0 {
		return 0
	}
	return float64(x) / float64(c)
}

// placeJob places every replica of j on s (gang: all or none), recording
// the slots in out. It returns false, with s unchanged, when some replica
// does not fit. A JobPlacement (bound to the simulation) places with the
// job in view.
func placeJob(s *State, p Placement, asks []Ask, reps []int, out []Slot) bool {
	if b, ok := p.(*boundPlacement); ok {
		return b.place(s, asks, reps, out)
	}
	if gc, ok := p.(GPUChooser); ok {
		return placeEachGPU(s, p.Choose, gc, asks, reps, out)
	}
	return placeEach(s, p.Choose, asks, reps, out)
}

// placeEach places the replicas one by one where choose says.
func placeEach(s *State, choose func(*State, *Ask) int, asks []Ask, reps []int, out []Slot) bool {
	return placeEachGPU(s, choose, nil, asks, reps, out)
}

// placeEachGPU is placeEach with the GPU of each share chosen by gc (when
// not nil).
func placeEachGPU(s *State, choose func(*State, *Ask) int, gc GPUChooser, asks []Ask, reps []int, out []Slot) bool {
	k := 0
	for t := range asks {
		a := &asks[t]
		for r := 0; r < reps[t]; r++ {
			i := choose(s, a)
			if i < 0 {
				for k > 0 {
					k--
					s.release(&out[k])
				}
				return false
			}
			g := -1
			if gc != nil && a.Shared && s.info[i].pool == 0 { // a pool has no devices to choose
				g = gc.ChooseGPU(s, i, a)
			}
			out[k] = s.takeGPU(i, a, g)
			k++
		}
	}
	return true
}
