//go:build cgo

package onednn

// The output checks (linearCheck and the others), for the external tests.
var (
	LinearCheck  = linearCheck
	MatmulCheck  = matmulCheck
	BnormCheck   = bnormCheck
	DropoutCheck = dropoutCheck
	ActCheck     = actCheck
	LnormCheck   = lnormCheck
	SoftmaxCheck = softmaxCheck
	LSTMCheck    = lstmCheck
	MaxpoolCheck = maxpoolCheck
	GAPCheck     = gapCheck
	MTNth        = mtNth
)

// ProbeRun, ProbeRunInTurn and ISAWidth, for TestProbe.
var (
	ProbeRun       = probeRun
	ProbeRunInTurn = probeRunInTurn
	ISAWidth       = isaWidth
)
