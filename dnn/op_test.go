package dnn

import (
	"slices"
	"testing"
)

// TestOpsListed: every op and attribute a zoo model's layers report is one
// of the declared constants (Ops, the Attr* keys), so that backends and the
// predictor, which switch on them, have one list to follow; and every
// declared op but source, pad, upsample and lrn (which only some models
// have) appears in the zoo.
func TestOpsListed(t *testing.T) {
	known := map[AttrKey]bool{}
	for _, k := range []AttrKey{AttrK, AttrN, AttrM, AttrG, AttrTransB, AttrBias, AttrTied, AttrOut, AttrKH, AttrKW,
		AttrStride, AttrPH, AttrPW, AttrPad, AttrDilation, AttrGroups, AttrHidden, AttrLayers, AttrVocab, AttrDim,
		AttrFrozen, AttrScaled, AttrCausal, AttrSize, AttrF, AttrLeft, AttrRight, AttrTop, AttrBottom} {
		if known[k] {
			t.Errorf("attribute %q declared twice", k)
		}
		known[k] = true
	}
	seen := map[Op]bool{}
	for _, e := range Zoo() {
		n, err := Model(e.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, node := range n.Nodes {
			op := node.Layer.Op()
			seen[op] = true
			if !slices.Contains(Ops(), op) {
				t.Errorf("%s/%s: op %q is not in Ops()", e.Name, node.Name, op)
			}
			d, ok := node.Layer.(Describer)
			if !ok {
				continue
			}
			desc := d.Describe()
			if desc.Op != op {
				t.Errorf("%s/%s: Describe says %q, Op %q", e.Name, node.Name, desc.Op, op)
			}
			for k := range desc.Attr {
				if !known[k] {
					t.Errorf("%s/%s: attribute %q is not declared", e.Name, node.Name, k)
				}
			}
		}
	}
	for _, op := range Ops() {
		if !seen[op] && op != OpSource && op != OpLRN && op != OpSigmoid && op != OpSiLU {
			t.Errorf("op %q is declared but no zoo model has it", op)
		}
	}
}
