//go:build cgo

package onednn

// LinearCheck, MatmulCheck and BnormCheck are linearCheck, matmulCheck
// and bnormCheck, for the external tests.
var (
	LinearCheck = linearCheck
	MatmulCheck = matmulCheck
	BnormCheck  = bnormCheck
)
