package scheduler

import "fmt"

// frac is x/c, or 0 for a dimension the node does not have.
func frac(x, c int64) float64 {
	if c <= 0 {
		return 0
	}
	return float64(x) / float64(c)
}

// placeJob places every replica of j on s (gang: all or none), recording
// the slots in out. It returns false, with s unchanged, when some replica
// does not fit. gc is p as a GPUChooser, nil when it is none (the caller
// looks once, not at every placement).
func placeJob(s *State, p Placement, gc GPUChooser, consolidate bool, asks []Ask, reps []int, out []Slot) bool {
	if consolidate && placeOnOne(s, p.Choose, asks, reps, out) {
		return true
	}
	return placeEach(s, p.Choose, gc, asks, reps, out)
}

// gang is a gang's replica's ask that fits only a node holding the whole
// gang (see Ask.gangGPUs, Scheduler.Consolidate): false for a job that is
// not several replicas of one ask of whole GPUs.
func gang(asks []Ask, reps []int) (Ask, bool) {
	if len(asks) != 1 || reps[0] < 2 || asks[0].GPUs == 0 || asks[0].Shared || asks[0].Milli != MilliPerGPU {
		return Ask{}, false
	}
	g := asks[0]
	n := reps[0]
	g.gangCPU, g.gangMem, g.gangGPUs = g.CPU*MilliCPU(n), g.Mem*MiB(n), g.GPUs*n
	return g, true
}

// placeOnOne places a gang's replicas on the node choose gives for one of
// them among the nodes that hold them all (gang: the placement scores the
// nodes by the replica it places, as it would without), and reports
// whether it did: false, with s unchanged, where the job is no gang or no
// node holds it whole.
func placeOnOne(s *State, choose func(*State, *Ask) int, asks []Ask, reps []int, out []Slot) bool {
	g, ok := gang(asks, reps)
	if !ok {
		return false
	}
	want := g // g as it was: a placement may not change the ask it is given
	i := choose(s, &g)
	if i < -1 {
		panic(notANode(s, i, fmt.Sprintf("a gang of %d replicas", reps[0])))
	}
	if i < 0 {
		return false
	}
	if i >= s.Len() || !s.Fits(i, &want) {
		panic(misplaced(s, i, &want, fmt.Sprintf("a gang of %d replicas", reps[0])))
	}
	for k := range reps[0] {
		if !s.Fits(i, &asks[0]) {
			panic(fmt.Sprintf("scheduler: node %d holds a gang of %d but not its replica %d", i, reps[0], k))
		}
		out[k] = s.take(i, &asks[0])
	}
	return true
}

// placeEach places the replicas one by one where choose says, and the
// share of a GPU on a node of devices on the GPU gc says (when not nil).
// Each answer is checked before it is taken: a node out of range, or one
// where the replica does not fit (its capacity or its GPU model), is the
// placement's violation, and so is a GPU that does not hold the share.
// The placement is given the engine's own ask, not a copy (a copy would
// escape to the heap at every call): the ask is put back after each
// answer, so that a placement that changes it (which it must not) changes
// neither what is checked nor what is taken.
func placeEach(s *State, choose func(*State, *Ask) int, gc GPUChooser, asks []Ask, reps []int, out []Slot) bool {
	k := 0
	for t := range asks {
		a := &asks[t]
		ask := *a
		for r := 0; r < reps[t]; r++ {
			i := choose(s, a)
			*a = ask
			if i < -1 {
				panic(notANode(s, i, "a replica"))
			}
			if i < 0 {
				for k > 0 {
					k--
					s.release(&out[k])
				}
				return false
			}
			if i >= s.Len() || !s.Fits(i, a) {
				panic(misplaced(s, i, a, "a replica"))
			}
			g := -1
			if gc != nil && a.Shared && s.info[i].pool == 0 { // a pool has no devices to choose
				g = gc.ChooseGPU(s, i, a)
				*a = ask
				if g >= s.info[i].gpus || g >= 0 && MilliGPU(s.free[i].gpu[g]) < a.Milli {
					panic(&violation{"placement", i, fmt.Sprintf("chose GPU %d of node %d for a share of %d milli, %s", g, i, a.Milli,
						whichGPU(s, i, g))})
				}
			}
			out[k] = s.takeGPU(i, a, g)
			k++
		}
	}
	return true
}

// whichGPU says why GPU g of node i of s does not hold a share.
func whichGPU(s *State, i, g int) string {
	if g >= s.info[i].gpus {
		return fmt.Sprintf("and the node's GPUs are 0 to %d", s.info[i].gpus-1)
	}
	return fmt.Sprintf("which has %d milli free", s.free[i].gpu[g])
}
