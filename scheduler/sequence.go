package scheduler

import (
	"fmt"
	"strings"
)

// Sequence places replicas one at a time on a cluster where nothing ever
// ends, with any placement: the FGD paper's replay (package
// scheduler/inflation) for the placements it has no fast path for. The
// placement's optional powers are used as the simulator uses them: a
// GPUChooser picks a share's GPU, a Tracker and a Committer hear of every
// replica placed, and a BatchPlacement is handed a queue of the one
// replica.
type Sequence struct {
	st     State
	p      Placement
	batch  BatchPlacement
	gc     GPUChooser
	track  Tracker
	commit Committer
	models map[string]int
	job    Job
	asks   [1]Ask
	reps   [1]int
	handed [1]Ask // asks as handed to the batch placement: a copy
	nodes  [1]int32
	slot   [1]Slot
	placed int // replicas asked for so far
}

// NewSequence returns an empty sequence on c placed by p. GPU models are
// numbered as the simulator numbers them: by first appearance in c.Nodes.
func NewSequence(c *Cluster, p Placement) (*Sequence, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("cluster %s: %w", c.Name, err)
	}
	if err := gaOnPool(c, p); err != nil {
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	q := &Sequence{p: p, models: map[string]int{}}
	q.batch, _ = p.(BatchPlacement)
	q.gc, _ = p.(GPUChooser)
	q.track, _ = p.(Tracker)
	q.commit, _ = p.(Committer)
	for i := range c.Nodes {
		n := &c.Nodes[i]
		info, free, err := newNodeState(n, q.models)
		if err != nil {
			return nil, fmt.Errorf("cluster %s: %w", c.Name, err)
		}
		q.st.info = append(q.st.info, info)
		q.st.free = append(q.st.free, free)
	}
	return q, nil
}

// Place places one replica asking r, returning its slot, or false when it
// fits nowhere (the sequence is then unchanged). A placement that answers
// with a node the replica does not fit, or that panics in one of its
// methods, is an error naming the placement and the replica, as in the
// simulator (violation.go); the sequence is not to be used after it.
func (q *Sequence) Place(r Request) (sl Slot, ok bool, err error) {
	q.placed++
	defer q.catch(&err)
	if r.GPUs > 0 && r.GPUMilli == 0 {
		r.GPUMilli = MilliPerGPU
	}
	if r.GPUs > 1 && r.GPUMilli != MilliPerGPU {
		panic(fmt.Sprintf("scheduler: sequence: %d GPUs of %d milli", r.GPUs, r.GPUMilli))
	}
	q.asks[0] = resolve(&r, q.models)
	q.reps[0] = 1
	if q.batch != nil {
		q.job = Job{ID: q.job.ID + 1, Tasks: []Task{{Replicas: 1, Request: r}}}
		q.handed = q.asks
		q.nodes[0] = -1
		q.batch.PlaceBatch(&q.st, []Waiting{{Job: &q.job, Asks: q.handed[:], Reps: q.reps[:]}}, q.nodes[:])
		if i := int(q.nodes[0]); i >= 0 {
			if i >= q.st.Len() || !q.st.Fits(i, &q.asks[0]) {
				panic(misplaced(&q.st, i, &q.asks[0], "a replica"))
			}
			q.slot[0] = q.st.take(i, &q.asks[0])
			ok = true
		}
	} else {
		ok = placeJob(&q.st, q.p, q.gc, false, q.asks[:], q.reps[:], q.slot[:])
	}
	if !ok {
		return Slot{}, false, nil
	}
	if q.track != nil {
		q.track.Placed(&q.slot[0])
	}
	if q.commit != nil {
		q.commit.Commit(int(q.slot[0].Node))
	}
	return q.slot[0], true, nil
}

// catch, deferred in Place, turns a violation, or a panic raised in one of
// the placement's methods, into *err: the placement, the replica (its
// number in the sequence) and the node a violation named. Any other panic
// is the sequence's own defect: it goes on.
func (q *Sequence) catch(err *error) {
	v := recover()
	if v == nil {
		return
	}
	if vi, ok := v.(*violation); ok {
		*err = fmt.Errorf("placement %s (replica %d of the sequence) %s", q.p.Name(), q.placed, vi.what)
		return
	}
	if onStack(q.p) < 0 {
		panic(v)
	}
	*err = partPanic(fmt.Sprintf("placement %s (replica %d of the sequence)", q.p.Name(), q.placed), v)
}

// View is node i now, as the scores see it.
func (q *Sequence) View(i int) NodeView { return q.st.view(i) }

// ModelBit is the bit of GPU model name in NodeView.Model and in the model
// sets of requests; 0 for a model the cluster does not have.
func (q *Sequence) ModelBit(name string) uint64 {
	if k, ok := q.models[strings.ToLower(name)]; ok {
		return 1 << k
	}
	return 0
}
