//go:build !cgo

package nvml

import "errors"

// Open fails: go-nvml needs cgo, and this wb was built without it.
func Open() (Source, error) {
	return nil, errors.New("wb was built without cgo (CGO_ENABLED=0), which NVML needs")
}
