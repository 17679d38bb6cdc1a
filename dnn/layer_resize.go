package dnn

import (
	"fmt"
	"strings"
)

// resize is nearest-neighbour up-sampling or zero padding of [C, H, W]: a
// copy, whose backward copies (padding) or sums (up-sampling) the
// gradient back.
type resize struct {
	op      Op
	in, out Shape
	key     string
	fold    float64 // output values summed into each input value backward
}

// Describe: op "upsample" with attribute f (the factor of both sides), or
// op "pad" with attributes left, right, top and bottom (the zero columns
// and rows added).
func (l *resize) Describe() Desc {
	d := Desc{Op: l.op, In: []Shape{l.in}, Out: l.out, Attr: Attrs{}}
	switch l.op {
	case "upsample":
		d.Attr[AttrF] = l.out[1] / l.in[1]
	case "pad":
		// zeroPad keeps the sides in the key only: "pad in=... l=L r=R t=T b=B".
		var left, right, top, bottom int
		_, rest, ok := strings.Cut(l.key, " l=")
		if _, err := fmt.Sscanf(rest, "%d r=%d t=%d b=%d", &left, &right, &top, &bottom); !ok || err != nil {
			panic(fmt.Sprintf("dnn: pad key %q does not name its sides", l.key))
		}
		d.Attr[AttrLeft], d.Attr[AttrRight], d.Attr[AttrTop], d.Attr[AttrBottom] = left, right, top, bottom
	}
	return d
}

func (l *resize) Op() Op { return l.op }

func (l *resize) Out() Shape { return l.out }

func (l *resize) Params() int64 { return 0 }

func (l *resize) Key() string { return l.key }

func (l *resize) Work(batch int, p Pass, prec Precision) Work {
	in := float64(l.in.Elems()) * float64(batch)
	out := float64(l.out.Elems()) * float64(batch)
	sz := prec.Size()
	switch p {
	case Forward:
		return Work{Read: Bytes(in) * sz, Written: Bytes(out) * sz}
	case BackwardData:
		return Work{FLOPs: Flops(in * (l.fold - 1)), Read: Bytes(in*l.fold) * sz, Written: Bytes(in) * sz}
	}
	return Work{}
}
