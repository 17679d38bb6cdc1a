//go:build cgo

package onednn

// LinearCheck and MatmulCheck are linearCheck and matmulCheck, for the
// external tests.
var (
	LinearCheck = linearCheck
	MatmulCheck = matmulCheck
)
