//go:build cgo

package onednn

// LinearCheck is linearCheck, for the external tests.
var LinearCheck = linearCheck
