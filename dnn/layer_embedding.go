package dnn

import "fmt"

// embedding is a table lookup: token ids → rows of a vocab×dim table.
type embedding struct {
	vocab, dim, tokens int
	table              tableKind
}

// Describe: input [T] of token ids, output [T, dim]; attributes vocab,
// dim, tied (1: the table is trained but owned by another layer) and
// frozen (1: the table is fixed and has no gradient).
func (l *embedding) Describe() Desc {
	return Desc{Op: OpEmbedding, In: []Shape{{l.tokens}}, Out: l.Out(), Attr: Attrs{
		AttrVocab: l.vocab, AttrDim: l.dim,
		AttrTied: b2i(l.table == tiedTable), AttrFrozen: b2i(l.table == frozenTable),
	}}
}

func (l *embedding) Op() Op { return OpEmbedding }

func (l *embedding) Out() Shape { return Shape{l.tokens, l.dim} }

func (l *embedding) Params() int64 {
	if l.table != ownTable {
		return 0
	}
	return l.size()
}

func (l *embedding) size() int64 { return int64(l.vocab) * int64(l.dim) }

func (l *embedding) Key() string {
	k := fmt.Sprintf("embedding tokens=%d vocab=%d dim=%d", l.tokens, l.vocab, l.dim)
	switch l.table {
	case tiedTable:
		k += " tied"
	case frozenTable:
		k += " frozen"
	}
	return k
}

func (l *embedding) Work(batch int, p Pass, prec Precision) Work {
	n := float64(l.tokens) * float64(batch)
	rows := n * float64(l.dim)
	sz := prec.Size()
	switch {
	case p == Forward:
		return Work{Read: Bytes(n)*indexSize + Bytes(rows)*sz, Written: Bytes(rows) * sz}
	case p == BackwardWeights && l.table != frozenTable:
		return Work{FLOPs: Flops(rows), Read: Bytes(n)*indexSize + Bytes(rows)*sz, Written: Bytes(l.size()) * sz}
	case p == Update && l.table == ownTable:
		return updateWork(l.Params())
	}
	return Work{}
}
