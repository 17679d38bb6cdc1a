package scheduler

import (
	"errors"
	"fmt"
	"math/bits"
	"strings"
)

// Ask is one replica's request resolved against a cluster: its GPU models
// turned into a set of the cluster's model indices.
type Ask struct {
	CPU    MilliCPU
	Mem    MiB
	GPUs   int      // GPUs touched: whole GPUs, or 1 for a shared one
	Milli  MilliGPU // per GPU: 1000 for whole GPUs
	Shared bool
	// models has bit m set for each allowed model index m of the cluster;
	// allModels when the request names none.
	models uint64
	// gangCPU, gangMem and gangGPUs, where gangGPUs > 0, are what a node
	// must have free to hold a whole gang of such replicas (of whole GPUs)
	// besides this one's own ask: placeOnOne asks the placement for one
	// replica so, the placement scoring nodes by the replica and Fits
	// holding only where the gang fits whole (Scheduler.Consolidate).
	gangCPU  MilliCPU
	gangMem  MiB
	gangGPUs int
}

const allModels = ^uint64(0)

// nodeFree is what remains free on one node.
type nodeFree struct {
	cpu  MilliCPU
	mem  MiB
	pool MilliGPU               // free milli of a GPU pool
	gpu  [MaxGPUsPerNode]uint16 // free milli per GPU
}

// nodeInfo is what does not change on a node.
type nodeInfo struct {
	cpu   MilliCPU
	mem   MiB
	gpus  int
	pool  MilliGPU // a GPU pool's capacity; 0 on a node of devices
	model uint64   // bit of the node's model; 0 when it has no GPUs
	name  string   // the node's GPU model as the cluster names it; "" when it has no GPUs
}

// Slot is where one replica runs: a node, its CPU and memory, and either
// whole GPUs (a bit per GPU index), a share of one GPU, or milli of a GPU
// pool.
type Slot struct {
	Node   int32
	Shared int8   // index of the shared GPU, -1 for none
	Whole  uint16 // bit i set: GPU i taken whole
	Milli  uint16 // the share of GPU Shared
	Pool   uint16 // milli taken from the node's GPU pool (at most MaxGPUsPerNode GPUs' worth)
	CPU    MilliCPU
	Mem    MiB
}

// GPUs is the number of GPUs the slot touches; from a pool, the GPUs its
// milli would fill, the last one partly.
func (s *Slot) GPUs() int {
	switch {
	case s.Shared >= 0:
		return 1
	case s.Pool > 0:
		return wholeGPUs(int(s.Pool))
	}
	return bits.OnesCount16(s.Whole)
}

// wholeGPUs is milli thousandths of a GPU rounded up to whole GPUs.
func wholeGPUs(milli int) int { return (milli + int(MilliPerGPU) - 1) / int(MilliPerGPU) }

// State is the free capacity of every node of a cluster at one moment.
// Placement policies read it; the simulator changes it.
type State struct {
	info []nodeInfo
	free []nodeFree
	// idle marks the simulator's empty cluster, on which it checks that a
	// job fits at all: a placement that tracks the jobs running now
	// (GpuClustering's tags) sees none there.
	idle bool
}

// NodeFree is one node's free capacity as placement policies see it.
type NodeFree struct {
	CPU      MilliCPU
	Mem      MiB
	GPU      MilliGPU // summed over the node's GPUs
	FullGPUs int      // GPUs with nothing allocated
}

// Len is the number of nodes.
func (s *State) Len() int { return len(s.free) }

// Capacity is node i's total capacity; a GPU pool counts as its whole
// GPUs' worth.
func (s *State) Capacity(i int) NodeFree {
	n := &s.info[i]
	return NodeFree{CPU: n.cpu, Mem: n.mem, GPU: MilliGPU(n.gpus)*MilliPerGPU + n.pool,
		FullGPUs: n.gpus + int(n.pool/MilliPerGPU)}
}

// Free is node i's free capacity; a GPU pool's free milli count as their
// whole GPUs' worth.
func (s *State) Free(i int) NodeFree {
	f := &s.free[i]
	out := NodeFree{CPU: f.cpu, Mem: f.mem, GPU: f.pool, FullGPUs: int(f.pool / MilliPerGPU)}
	for g := 0; g < s.info[i].gpus; g++ {
		out.GPU += MilliGPU(f.gpu[g])
		if MilliGPU(f.gpu[g]) == MilliPerGPU {
			out.FullGPUs++
		}
	}
	return out
}

// GPUFree is the free milli of GPU g of node i.
func (s *State) GPUFree(i, g int) MilliGPU { return MilliGPU(s.free[i].gpu[g]) }

// GPUCount is the number of GPU devices of node i: 0 for a GPU pool.
func (s *State) GPUCount(i int) int { return s.info[i].gpus }

// GPUModel is node i's GPU model as the cluster names it ("V100"; a
// placement compares it ignoring case, as asks do), "" on a node without
// GPUs.
func (s *State) GPUModel(i int) string { return s.info[i].name }

// poolNeed is the milli one replica asking a takes from a GPU pool.
func poolNeed(a *Ask) MilliGPU { return MilliGPU(a.GPUs) * a.Milli }

// Fits reports whether one replica asking a fits on node i now.
func (s *State) Fits(i int, a *Ask) bool {
	f := &s.free[i]
	if a.CPU > f.cpu || a.Mem > f.mem {
		return false
	}
	if a.gangGPUs > 0 && (a.gangCPU > f.cpu || a.gangMem > f.mem) {
		return false
	}
	if a.GPUs == 0 {
		return true
	}
	n := &s.info[i]
	if n.model&a.models == 0 {
		return false
	}
	if n.pool > 0 {
		return max(poolNeed(a), MilliGPU(a.gangGPUs)*a.Milli) <= f.pool
	}
	if a.Milli > MilliPerGPU {
		return false // more than one GPU as one quantity: a pool's only
	}
	if a.Shared {
		for g := 0; g < n.gpus; g++ {
			if MilliGPU(f.gpu[g]) >= a.Milli {
				return true
			}
		}
		return false
	}
	full := 0
	for g := 0; g < n.gpus; g++ {
		if f.gpu[g] == uint16(MilliPerGPU) {
			full++
		}
	}
	return full >= max(a.GPUs, a.gangGPUs)
}

// take allocates a on node i, which must fit, choosing GPUs: for a share,
// the GPU with the least free capacity that holds it (lowest index on a
// tie); whole GPUs lowest index first.
func (s *State) take(i int, a *Ask) Slot { return s.takeGPU(i, a, -1) }

// takeGPU is take with the GPU of a share given (g ≥ 0, which must hold
// it) or chosen by take's rule (g < 0).
func (s *State) takeGPU(i int, a *Ask, g int) Slot {
	f := &s.free[i]
	sl := Slot{Node: int32(i), Shared: -1, CPU: a.CPU, Mem: a.Mem}
	f.cpu -= a.CPU
	f.mem -= a.Mem
	n := s.info[i].gpus
	switch {
	case a.GPUs == 0:
	case s.info[i].pool > 0:
		need := poolNeed(a)
		if need > f.pool {
			panic(fmt.Sprintf("scheduler: take: %d milli do not fit the GPU pool of node %d", need, i))
		}
		f.pool -= need
		sl.Pool = uint16(need)
	case a.Shared:
		best := g
		if best < 0 {
			best = TightestGPU(f.gpu[:n], a.Milli)
		}
		if best < 0 || best >= n || MilliGPU(f.gpu[best]) < a.Milli {
			panic(fmt.Sprintf("scheduler: take: share of %d milli does not fit node %d", a.Milli, i))
		}
		f.gpu[best] -= uint16(a.Milli)
		sl.Shared = int8(best)
		sl.Milli = uint16(a.Milli)
	default:
		need := a.GPUs
		for g := 0; g < n && need > 0; g++ {
			if f.gpu[g] == uint16(MilliPerGPU) {
				f.gpu[g] = 0
				sl.Whole |= 1 << g
				need--
			}
		}
		if need > 0 {
			panic(fmt.Sprintf("scheduler: take: %d whole GPUs do not fit node %d", a.GPUs, i))
		}
	}
	if f.cpu < 0 || f.mem < 0 {
		panic(fmt.Sprintf("scheduler: take: node %d over-allocated", i))
	}
	return sl
}

// apply allocates a slot again (on a copy of the state it was taken from).
func (s *State) apply(sl *Slot) {
	f := &s.free[sl.Node]
	f.cpu -= sl.CPU
	f.mem -= sl.Mem
	f.pool -= MilliGPU(sl.Pool)
	if sl.Shared >= 0 {
		f.gpu[sl.Shared] -= sl.Milli
	}
	for w := sl.Whole; w != 0; w &= w - 1 {
		f.gpu[bits.TrailingZeros16(w)] = 0
	}
}

// fitsSlot says whether s has sl free: its CPU, memory and pool milli,
// its share of GPU Shared, and each of its whole GPUs untouched.
func (s *State) fitsSlot(sl *Slot) bool {
	f := &s.free[sl.Node]
	if f.cpu < sl.CPU || f.mem < sl.Mem || f.pool < MilliGPU(sl.Pool) || sl.Shared >= 0 && f.gpu[sl.Shared] < sl.Milli {
		return false
	}
	for w := sl.Whole; w != 0; w &= w - 1 {
		if f.gpu[bits.TrailingZeros16(w)] != uint16(MilliPerGPU) {
			return false
		}
	}
	return true
}

// release frees a slot.
func (s *State) release(sl *Slot) {
	f := &s.free[sl.Node]
	f.cpu += sl.CPU
	f.mem += sl.Mem
	f.pool += MilliGPU(sl.Pool)
	if sl.Shared >= 0 {
		f.gpu[sl.Shared] += sl.Milli
	}
	for w := sl.Whole; w != 0; w &= w - 1 {
		f.gpu[bits.TrailingZeros16(w)] = uint16(MilliPerGPU)
	}
}

// copyFrom makes s a copy of o (same cluster).
func (s *State) copyFrom(o *State) {
	s.info = o.info
	s.free = append(s.free[:0], o.free...)
	s.idle = o.idle
}

// minFree lowers every free quantity of a to b's where b's is smaller, node
// by node (info gives each node's GPU count).
func minFree(a, b []nodeFree, info []nodeInfo) {
	for i := range a {
		a, b := &a[i], &b[i]
		a.cpu = min(a.cpu, b.cpu)
		a.mem = min(a.mem, b.mem)
		a.pool = min(a.pool, b.pool)
		for g := 0; g < info[i].gpus; g++ {
			a.gpu[g] = min(a.gpu[g], b.gpu[g])
		}
	}
}

// newNodeState returns node n's fixed and free state, numbering its GPU
// model in models by first appearance (at most 64 models).
func newNodeState(n *Node, models map[string]int) (nodeInfo, nodeFree, error) {
	pool := MilliGPU(n.PoolGPUs) * MilliPerGPU
	info := nodeInfo{cpu: n.CPU, mem: n.Mem, gpus: n.GPUs, pool: pool}
	free := nodeFree{cpu: n.CPU, mem: n.Mem, pool: pool}
	if n.GPUs == 0 && n.PoolGPUs == 0 {
		return info, free, nil
	}
	// GPU model names ignore case, as run times by model do (Job.RunOn)
	k, ok := models[strings.ToLower(n.Model)]
	if !ok {
		k = len(models)
		if k == 64 {
			return info, free, errors.New("more than 64 GPU models")
		}
		models[strings.ToLower(n.Model)] = k
	}
	info.model, info.name = 1<<k, n.Model
	for g := 0; g < n.GPUs; g++ {
		free.gpu[g] = uint16(MilliPerGPU)
	}
	return info, free, nil
}
