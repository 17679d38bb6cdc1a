// Package profiler measures the layers of a network on a real device: the
// measurement method (warm-up, repetitions until the median is known to
// 2%, dispersion), the Backend interface that runs one layer pass on real
// buffers, the measurement records and their CSV files.
package profiler

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/internal/registry"
)

// Backend runs layers on one device.
type Backend interface {
	// Name is the registry name: "cpu", "cuda".
	Name() string
	// Device describes the device and the libraries the backend uses; it
	// is part of every cache key and CSV row.
	Device() DeviceInfo
	// Prepare allocates real buffers for one pass of layer l at a batch
	// size and precision, filled with deterministic values, and returns
	// the kernel that runs it. A layer, pass or precision the backend
	// cannot run gives an error wrapping ErrUnsupported; buffers that do
	// not fit the device's memory, one wrapping ErrOutOfMemory.
	Prepare(l dnn.Layer, batch int, pass dnn.Pass, prec dnn.Precision) (Kernel, error)
}

// Kernel is one prepared layer pass.
type Kernel interface {
	// Time runs the pass n times back to back and returns the duration of
	// each run, measured the backend's best way (the monotonic clock
	// around a synchronous run on CPUs, CUDA events on GPUs).
	Time(n int) ([]time.Duration, error)
	// Close frees the buffers.
	Close() error
}

// Algorithm is what a kernel runs where its backend chose among several
// ways: cuDNN's convolution algorithm, the cuBLASLt heuristic's pick, the
// library routine, with the workspace it runs with.
type Algorithm struct {
	Name           string
	WorkspaceBytes int64
}

// Chooser is a Kernel that says which algorithm it runs. It is optional:
// the CUDA backend's kernels are Choosers, the CPU backend's are not, and
// their rows leave the algo and workspace_bytes columns empty.
type Chooser interface {
	Algorithm() Algorithm
}

// DeviceInfo describes what a backend measures on.
type DeviceInfo struct {
	// Name is the device as the predictor's device table names it where
	// it is one of those ("v100", "h100-sxm"), else a description ("cpu:
	// AMD EPYC 7R13, 2 cores").
	Name string
	// Predictor is the predictor device table's name for the device, for
	// the analytical prediction of each row ("cpu" for the local CPU).
	Predictor string
	// Versions of the backend's libraries and drivers: "go", "gonum",
	// "cuda", "cudnn", "cublas", "driver"; and of settings that change
	// what is measured ("cold_cache"), so that they are part of the
	// cache key and the sidecar too.
	Versions map[string]string
}

// Clone copies d, its Versions map included.
func (d DeviceInfo) Clone() DeviceInfo {
	d.Versions = maps.Clone(d.Versions)
	return d
}

// VersionString lists the versions sorted by name: "go=go1.26.8 gonum=v0.16.0".
func (d DeviceInfo) VersionString() string {
	var keys []string
	for k := range d.Versions {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + d.Versions[k]
	}
	return strings.Join(parts, " ")
}

// Errors backends return, wrapped with what failed.
var (
	ErrUnsupported = errors.New("not supported by this backend")
	ErrOutOfMemory = errors.New("out of memory")
)

// Factory makes a backend, or says why it cannot (no device, libraries
// missing).
type Factory func() (Backend, error)

// Registry maps backend names to factories (a registry.Registry), in
// order of preference for "auto": the order of registration.
type Registry struct {
	r *registry.Registry[Factory]
}

// Register adds a backend; a name used twice is an error.
func (r *Registry) Register(name string, f Factory) error {
	if r.r == nil {
		r.r = registry.New[Factory]("backend")
	}
	if err := r.r.Register(name, f); err != nil {
		return fmt.Errorf("profiler: %w", err)
	}
	return nil
}

// Names lists the backends in order of preference.
func (r *Registry) Names() []string {
	if r.r == nil {
		return nil
	}
	return r.r.Ordered()
}

// Open makes the named backend. "auto" takes the first that opens, in
// order of preference, and says in why which it took and why the ones
// before it did not open.
func (r *Registry) Open(name string) (b Backend, why string, err error) {
	if name != "auto" {
		var f Factory
		var ok bool
		if r.r != nil {
			f, ok = r.r.Get(name)
		}
		if !ok {
			return nil, "", fmt.Errorf("unknown backend %q (known: auto, %s)", name, strings.Join(r.Names(), ", "))
		}
		b, err := f()
		if err != nil && strings.HasPrefix(err.Error(), name+": ") {
			return nil, "", fmt.Errorf("backend %w", err) // (it names itself)
		}
		if err != nil {
			return nil, "", fmt.Errorf("backend %s: %w", name, err)
		}
		return b, "backend " + name + " (asked for)", nil
	}
	// One short line: which backend runs and which were not available;
	// --backend NAME gives the whole reason.
	var skipped, short []string
	for _, n := range r.Names() {
		f, _ := r.r.Get(n)
		b, err := f()
		if err == nil {
			why := "backend " + n
			if len(short) > 0 {
				why += " (" + strings.Join(short, "; ") + ")"
			}
			return b, why, nil
		}
		msg := strings.TrimPrefix(err.Error(), n+": ") // (a backend's errors may name it already)
		skipped = append(skipped, n+" unavailable: "+msg)
		short = append(short, n+": "+firstClause(msg))
	}
	return nil, "", fmt.Errorf("no backend opens: %s", strings.Join(skipped, "; "))
}

// firstClause is an error message up to its first parenthesis or
// semicolon: what went wrong, without where it looked or what to do.
func firstClause(msg string) string {
	if i := strings.IndexAny(msg, "(;"); i > 0 {
		msg = msg[:i]
	}
	return strings.TrimSpace(msg)
}
