package dnn

import "fmt"

// reshape changes the shape without moving data.
type reshape struct {
	in, out Shape
}

// Describe: no attributes; a reshape moves no data.
func (l *reshape) Describe() Desc {
	return Desc{Op: OpReshape, In: []Shape{l.in}, Out: l.out, Attr: Attrs{}}
}

func (l *reshape) Op() Op { return OpReshape }

func (l *reshape) Out() Shape { return l.out }

func (l *reshape) Params() int64 { return 0 }

func (l *reshape) Key() string { return fmt.Sprintf("reshape %v→%v", l.in, l.out) }

func (l *reshape) Work(int, Pass, Precision) Work { return Work{} }
