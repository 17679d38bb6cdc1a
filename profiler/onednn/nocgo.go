//go:build !cgo

package onednn

import (
	"errors"
	"time"

	"github.com/wb-sim/wb/dnn"
)

var errNoCgo = errors.New("onednn: wb was built without cgo (CGO_ENABLED=0), so it cannot load oneDNN")

func load(dnnl, blas []string) (libInfo, error) { return libInfo{}, errNoCgo }
func setThreads(n int) int                      { return n }

type cOp struct{}

func build(opSpec, dnn.Pass, int64, bool) (*kernel, error) { return nil, errNoCgo }
func (*cOp) time(int) ([]float64, error)                   { return nil, errNoCgo }
func (*cOp) free()                                         {}

func measurePeak(width, threads int, run time.Duration) (float64, error) { return 0, errNoCgo }
func isaWidth() int                                                      { return 0 }
func probeRun(int, int, int64) (float64, float64)                        { return -1, -1 }
