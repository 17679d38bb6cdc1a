package cuda

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"
)

// TestSignaturesAcceptedByPurego binds every function variable to a
// dummy address (never called): purego checks each Go signature's types
// and argument count when it binds, and panics on one it cannot call.
func TestSignaturesAcceptedByPurego(t *testing.T) {
	var d driverAPI
	var c cudnnAPI
	var l ltAPI
	var o cudnnOpsAPI
	var r nvrtcAPI
	var a cudnnAdvAPI
	var g cudnnGraphAPI
	for _, set := range []struct {
		lib  string
		syms []symbol
	}{{"libcuda", d.symbols()}, {"libcudnn", c.symbols()}, {"libcublasLt", l.symbols()}, {"libcudnn (operations)", o.symbols()}, {"libnvrtc", r.symbols()},
		{"libcudnn (RNN)", a.symbols()}, {"libcudnn (graph)", g.symbols()}} {
		seen := map[string]bool{}
		for _, s := range set.syms {
			if seen[s.name] {
				t.Errorf("%s: %s listed twice", set.lib, s.name)
			}
			seen[s.name] = true
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s: purego refuses the signature of %s: %v", set.lib, s.name, r)
					}
				}()
				purego.RegisterFunc(s.fn, 1)
			}()
		}
	}
	// Every field of the API structs is bound.
	for _, tc := range []struct {
		lib    string
		fields int
		syms   int
	}{
		{"libcuda", numFields(d), len(d.symbols())},
		{"libcudnn", numFields(c), len(c.symbols())},
		{"libcublasLt", numFields(l), len(l.symbols())},
		{"libcudnn (operations)", numFields(o), len(o.symbols())},
		{"libnvrtc", numFields(r), len(r.symbols())},
		{"libcudnn (RNN)", numFields(a), len(a.symbols())},
		{"libcudnn (graph)", numFields(g), len(g.symbols())},
	} {
		if tc.fields != tc.syms {
			t.Errorf("%s: %d functions, %d symbols", tc.lib, tc.fields, tc.syms)
		}
	}
}

// The C structs the libraries write, laid out as on 64-bit Linux.
func TestStructLayouts(t *testing.T) {
	var p convPerf
	var h ltHeuristic
	for _, tc := range []struct {
		what      string
		got, want uintptr
	}{
		{"sizeof(cudnnConvolutionFwdAlgoPerf_t)", unsafe.Sizeof(p), 48},
		{"offsetof(memory)", unsafe.Offsetof(p.Memory), 16},
		{"offsetof(determinism)", unsafe.Offsetof(p.Determinism), 24},
		{"offsetof(mathType)", unsafe.Offsetof(p.MathType), 28},
		{"sizeof(cublasLtMatmulAlgo_t)", unsafe.Sizeof(h.Algo), 64},
		{"sizeof(cublasLtMatmulHeuristicResult_t)", unsafe.Sizeof(h), 96},
		{"offsetof(workspaceSize)", unsafe.Offsetof(h.WorkspaceSize), 64},
		{"offsetof(state)", unsafe.Offsetof(h.State), 72},
		{"offsetof(wavesCount)", unsafe.Offsetof(h.WavesCount), 76},
	} {
		if tc.got != tc.want {
			t.Errorf("%s = %d, want %d", tc.what, tc.got, tc.want)
		}
	}
}

func numFields(v any) int { return reflect.TypeOf(v).NumField() }
