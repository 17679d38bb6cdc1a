package scheduler

import (
	"fmt"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A part whose answer breaks its contract (a placement choosing a node
// where the replica does not fit, or no node at all), or that panics,
// ends the simulation with an error naming the part and the job, not with
// a panic deep in the engine nor with a schedule built on the bad answer. The engine checks
// each answer where it takes it and panics with a violation; Simulate and
// Stream recover it, once, at their boundary (catch). So a check costs the
// hot path a comparison, and no error is threaded through every what-if
// placement of the backfill rules.

// violation is a part's answer that the engine refuses.
type violation struct {
	kind string // the part's kind: "placement", "estimator"
	node int    // the node the answer names, or -1
	what string // what the part did: "chose node 9 for a replica, ..."
}

func (v *violation) Error() string { return v.kind + " " + v.what }

// notANode is the violation of a placement that answered i, below -1 (no
// node), for what.
func notANode(s *State, i int, what string) *violation {
	return &violation{"placement", -1, fmt.Sprintf("answered %d for %s: want a node, 0 to %d, or -1 where none fits", i, what, s.Len()-1)}
}

// misplaced is the violation of a placement that chose node i of s for
// what ("a replica", asking a), where it may not go.
func misplaced(s *State, i int, a *Ask, what string) *violation {
	if i >= s.Len() {
		return &violation{"placement", -1, fmt.Sprintf("chose node %d for %s, and the cluster's nodes are 0 to %d", i, what, s.Len()-1)}
	}
	return &violation{"placement", i, fmt.Sprintf("chose node %d for %s, where it does not fit: %s", i, what, whyNot(s, i, a))}
}

// whyNot says why a replica asking a does not fit node i of s.
func whyNot(s *State, i int, a *Ask) string {
	f, n := &s.free[i], &s.info[i]
	switch {
	case a.CPU > f.cpu:
		return fmt.Sprintf("it asks %d milli-cores and %d are free", a.CPU, f.cpu)
	case a.Mem > f.mem:
		return fmt.Sprintf("it asks %d MiB and %d are free", a.Mem, f.mem)
	case a.gangGPUs > 0 && (a.gangCPU > f.cpu || a.gangMem > f.mem):
		return fmt.Sprintf("the node does not hold the whole gang of %d GPUs", a.gangGPUs)
	case a.GPUs == 0:
		return "it fits" // not reached: Fits holds
	case n.model == 0:
		return "it asks for GPUs and the node has none"
	case n.model&a.models == 0:
		return "the node's GPU model is not one the replica allows"
	case n.pool == 0 && a.Milli > MilliPerGPU:
		return fmt.Sprintf("it asks %d milli of GPU as one quantity, which only a GPU pool holds", a.Milli)
	case a.gangGPUs > 0:
		return fmt.Sprintf("the node does not hold the whole gang of %d GPUs", a.gangGPUs)
	case a.Shared:
		return fmt.Sprintf("no GPU of the node has %d milli free", a.Milli)
	}
	return fmt.Sprintf("it asks %d GPUs of %d milli, more than the node has free", a.GPUs, a.Milli)
}

// catch, deferred at the simulation's boundary, turns a violation, or a
// panic raised in one of a part's methods (panicking), into *err: the
// scheduler, the part, the job the parts were being asked about (m.cur),
// and the node a violation named. A panic raised outside every part's
// methods is the engine's own defect: it goes on.
func (m *sim) catch(err *error) {
	v := recover()
	if v == nil {
		return
	}
	job := ""
	if m.cur != nil {
		job = fmt.Sprintf(" (job %d)", m.cur.Job.ID)
	}
	vi, ok := v.(*violation)
	if !ok {
		kind, name := m.panicking()
		if kind == "" {
			panic(v)
		}
		*err = partPanic(fmt.Sprintf("scheduler %s: %s %s%s", m.sched.Name(), kind, name, job), v)
		return
	}
	node := ""
	if vi.node >= 0 && vi.node < len(m.cl.Nodes) {
		n := &m.cl.Nodes[vi.node]
		node = fmt.Sprintf("; node %d is %q", vi.node, n.Name)
		if n.GPUs > 0 || n.PoolGPUs > 0 {
			node += ", of " + n.Model + " GPUs"
		}
		if n.PoolGPUs > 0 {
			node += " (a pool)"
		}
	}
	*err = fmt.Errorf("scheduler %s: %s %s%s %s%s", m.sched.Name(), vi.kind, m.partName(vi.kind), job, vi.what, node)
}

// panicking names the part whose method a panic was raised in: the kind
// and name of the part with an exported method on the innermost such
// frame of the panicking goroutine's stack (catch runs on top of it). The
// built-in backfill rules' methods, unexported, are the engine's. "" when
// no part's method is on the stack.
func (m *sim) panicking() (kind, name string) {
	kinds := []string{"placement", "estimator", "queue order", "backfill"}
	var backfill any = m.sched.Backfill
	if r, ok := m.sched.Backfill.(ruleBackfill); ok {
		backfill = r.r
	}
	i := onStack(m.sched.Placement, m.sched.Estimator, m.sched.Order, backfill)
	if i < 0 {
		return "", ""
	}
	return kinds[i], m.partName(kinds[i])
}

// onStack is the index of the first of parts with an exported method on
// the innermost frame of the calling goroutine's stack that has one (a
// deferred recover runs on top of the panicking goroutine's stack), or −1.
func onStack(parts ...any) int {
	pcs := make([]uintptr, 256)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	for {
		f, more := frames.Next()
		for i, p := range parts {
			if exportedMethodOf(f.Function, p) {
				return i
			}
		}
		if !more {
			return -1
		}
	}
}

// partPanic is the error of panic value v raised in the part what names.
func partPanic(what string, v any) *PartPanic {
	e, ok := v.(error)
	if !ok {
		e = fmt.Errorf("%v", v)
	}
	return &PartPanic{Err: fmt.Errorf("%s panicked: %w", what, e), Stack: debug.Stack()}
}

// PartPanic is the error Simulate and Stream return where a part panicked:
// the part and the job named, and the panicking goroutine's stack, which
// says where it was raised (in the part's code, or in the engine's called
// back from the part: a Pass's method given what it was not meant to be).
type PartPanic struct {
	Err   error
	Stack []byte
}

func (p *PartPanic) Error() string { return p.Err.Error() }
func (p *PartPanic) Unwrap() error { return p.Err }

// exportedMethodOf reports whether fn, a function's name as the runtime
// gives it ("path/pkg.(*T).Choose", "path/pkg.T.Choose.func1"), is an
// exported method of p's named type (or a function literal in one).
func exportedMethodOf(fn string, p any) bool {
	t := reflect.TypeOf(p)
	if t == nil {
		return false
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Name() == "" {
		return false
	}
	rest, ok := strings.CutPrefix(fn, t.PkgPath()+".")
	if !ok {
		return false
	}
	if rest, ok = strings.CutPrefix(rest, t.Name()+"."); !ok {
		if rest, ok = strings.CutPrefix(rest, "(*"+t.Name()+")."); !ok {
			return false
		}
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return unicode.IsUpper(r)
}

// partName is the name of the scheduler's part of kind.
func (m *sim) partName(kind string) string {
	switch kind {
	case "placement":
		return m.sched.Placement.Name()
	case "estimator":
		return m.sched.Estimator.Name()
	case "backfill":
		return m.sched.Backfill.Name()
	case "queue order":
		return m.sched.Order.Name()
	}
	return "?"
}
