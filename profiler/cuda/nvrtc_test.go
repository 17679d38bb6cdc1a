package cuda

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"unsafe"

	"github.com/wb-sim/wb/dnn"
)

// kernelSignature is a kernel of kernels.cu: its parameters' C types.
type kernelSignature []string

// kernelSignatures expands kernels.cu's macros far enough to list every
// extern "C" kernel and its parameter types: the kernels are written as
// ACTIVATION and LAYERNORM macros, instantiated per type directly or
// through ALL_TYPES.
func kernelSignatures(t *testing.T, src string) map[string]kernelSignature {
	t.Helper()
	src = strings.ReplaceAll(src, "\\\n", " ")
	defs := map[string]struct {
		params []string
		body   string
	}{}
	for _, m := range regexp.MustCompile(`(?m)^#define (ACTIVATION|LAYERNORM)\(([^)]*)\)(.*)$`).FindAllStringSubmatch(src, -1) {
		defs[m[1]] = struct {
			params []string
			body   string
		}{splitArgs(m[2]), m[3]}
	}
	if len(defs) != 2 {
		t.Fatalf("kernels.cu: macros %v, want ACTIVATION and LAYERNORM", defs)
	}
	types := [][2]string{{"float", "f32"}, {"h16", "f16"}, {"b16", "bf16"}}
	var calls [][]string // macro name, then its arguments
	for _, m := range regexp.MustCompile(`(?m)^ALL_TYPES\((\w+), ([^)]*)\)$`).FindAllStringSubmatch(src, -1) {
		for _, ty := range types {
			calls = append(calls, append(append([]string{m[1]}, splitArgs(m[2])...), ty[0], ty[1]))
		}
	}
	for _, m := range regexp.MustCompile(`(?m)^(LAYERNORM|ACTIVATION)\(([^)]*)\)$`).FindAllStringSubmatch(src, -1) {
		calls = append(calls, append([]string{m[1]}, splitArgs(m[2])...))
	}
	sigs := map[string]kernelSignature{}
	kernel := regexp.MustCompile(`extern "C" __global__ void ([\w#]+)\(([^)]*)\)`)
	word := regexp.MustCompile(`\w+`)
	for _, c := range calls {
		def := defs[c[0]]
		if len(def.params) != len(c)-1 {
			t.Fatalf("%s takes %d arguments, given %v", c[0], len(def.params), c[1:])
		}
		sub := func(s string) string {
			s = word.ReplaceAllStringFunc(s, func(w string) string {
				if i := slices.Index(def.params, w); i >= 0 {
					return c[1+i]
				}
				return w
			})
			return strings.ReplaceAll(s, "##", "")
		}
		for _, k := range kernel.FindAllStringSubmatch(def.body, -1) {
			var sig kernelSignature
			for _, p := range strings.Split(sub(k[2]), ",") {
				p = strings.TrimSpace(p)
				sig = append(sig, strings.TrimSpace(p[:strings.LastIndexAny(p, " *")+1]))
			}
			sigs[sub(k[1])] = sig
		}
	}
	return sigs
}

func splitArgs(s string) []string {
	var out []string
	for _, a := range strings.Split(s, ",") {
		out = append(out, strings.TrimSpace(a))
	}
	return out
}

// nvrtcProblems are the NVRTC ops at every precision.
func nvrtcProblems(t *testing.T) []OpProblem {
	var ps []OpProblem
	for _, d := range []dnn.Desc{
		{Op: "gelu", In: []dnn.Shape{{128, 3072}}, Out: dnn.Shape{128, 3072}},
		{Op: "leakyrelu", In: []dnn.Shape{{64, 32, 32}}, Out: dnn.Shape{64, 32, 32}},
		{Op: "layernorm", In: []dnn.Shape{{128, 768}}, Out: dnn.Shape{128, 768}},
	} {
		for _, prec := range dnn.Precisions {
			p, err := OpFor(d, 4, prec)
			if err != nil {
				t.Fatal(err)
			}
			ps = append(ps, p)
		}
	}
	return ps
}

// TestLaunchesMatchKernels: every launch names a kernel of kernels.cu
// and passes it arguments of its parameters' types: a pointer is a
// buffer of the pass, of the kernel's element type (float* a float
// buffer, T* one in the precision); long an int64, int an int32, float a
// float32. Every kernel of the file is launched by some problem.
func TestLaunchesMatchKernels(t *testing.T) {
	sigs := kernelSignatures(t, kernelSource)
	if len(sigs) != 21 {
		t.Errorf("%d kernels in kernels.cu, want 21 (gelu and leakyrelu fwd and bwd, layernorm fwd, bwd and bwd_params; 3 types)", len(sigs))
	}
	launched := map[string]bool{}
	for _, p := range nvrtcProblems(t) {
		for _, pass := range []dnn.Pass{dnn.Forward, dnn.BackwardData} {
			bufs := map[string]OpBuffer{}
			for _, b := range p.Buffers(pass) {
				bufs[b.Name] = b
			}
			elem := map[int32]string{cudnnDataFloat: "float", cudnnDataHalf: "h16", cudnnDataBFloat16: "b16"}[p.DataType]
			ls := p.Launches(pass)
			if len(ls) == 0 {
				t.Errorf("%s %s: no launch", p.Op, pass)
			}
			for _, l := range ls {
				launched[l.Kernel] = true
				sig, ok := sigs[l.Kernel]
				if !ok {
					t.Errorf("%s %s: kernel %s not in kernels.cu", p.Op, pass, l.Kernel)
					continue
				}
				if len(sig) != len(l.Args) {
					t.Errorf("%s: %d arguments for %d parameters %v", l.Kernel, len(l.Args), len(sig), sig)
					continue
				}
				for i, a := range l.Args {
					want := sig[i]
					var got string
					switch v := a.(type) {
					case string:
						b, ok := bufs[v]
						if !ok {
							t.Errorf("%s: argument %d, buffer %q not among the pass's buffers", l.Kernel, i, v)
							continue
						}
						got = elem + " *"
						if b.Param {
							got = "float *"
						}
						// What a pass writes goes to a non-const pointer, what it reads to a const one.
						writes := map[dnn.Pass][]string{dnn.Forward: {"y", "mean", "rstd"}, dnn.BackwardData: {"dx", "dgamma", "dbeta"}}[pass]
						if slices.Contains(writes, v) == strings.HasPrefix(want, "const ") {
							t.Errorf("%s: argument %d, buffer %q, to a parameter %q", l.Kernel, i, v, want)
						}
						want = strings.TrimPrefix(want, "const ")
					case int64:
						got = "long"
					case int32:
						got = "int"
					case float32:
						got = "float"
					}
					if strings.ReplaceAll(got, " ", "") != strings.ReplaceAll(want, " ", "") {
						t.Errorf("%s: argument %d is %v (%s), the kernel takes %s", l.Kernel, i, a, got, sig[i])
					}
				}
				for _, z := range l.Zero {
					if b, ok := bufs[z]; !ok || !b.Param {
						t.Errorf("%s: zeroes %q, not a float buffer of the pass", l.Kernel, z)
					}
				}
				if l.Block[0]*l.Block[1]*l.Block[2] > 1024 || l.Grid[0] == 0 || l.Grid[1] == 0 || l.Grid[1] > 65535 || l.Grid[2] != 1 {
					t.Errorf("%s: grid %v, block %v", l.Kernel, l.Grid, l.Block)
				}
			}
		}
	}
	for name := range sigs {
		if !launched[name] {
			t.Errorf("kernel %s is never launched", name)
		}
	}
}

// TestLaunchShapes pins the grids: elementwise kernels stop at 2²⁰
// blocks and stride over the rest; layer-norm runs a block per row, and
// its parameters' gradients 64 rows per block, more where the rows would
// need more than 65535 blocks.
func TestLaunchShapes(t *testing.T) {
	g, _ := OpFor(dnn.Desc{Op: "gelu", In: []dnn.Shape{{1000}}, Out: dnn.Shape{1000}}, 3, dnn.FP32)
	if l := g.Launches(dnn.Forward); len(l) != 1 || l[0].Grid != [3]uint32{12, 1, 1} || l[0].Block != [3]uint32{256, 1, 1} || l[0].Args[2] != int64(3000) {
		t.Errorf("gelu of 3000 values: %+v", l)
	}
	big, _ := OpFor(dnn.Desc{Op: "gelu", In: []dnn.Shape{{1 << 20}}, Out: dnn.Shape{1 << 20}}, 1024, dnn.FP16)
	if l := big.Launches(dnn.BackwardData); l[0].Grid[0] != 1<<20 || l[0].Kernel != "wb_gelu_bwd_f16" {
		t.Errorf("gelu of 2³⁰ values: %+v", l)
	}
	ln, _ := OpFor(dnn.Desc{Op: "layernorm", In: []dnn.Shape{{1024, 768}}, Out: dnn.Shape{1024, 768}}, 32, dnn.BF16)
	l := ln.Launches(dnn.BackwardData)
	if len(l) != 2 || l[0].Grid != [3]uint32{32768, 1, 1} || l[1].Grid != [3]uint32{3, 512, 1} || l[1].Args[8] != int32(64) {
		t.Errorf("layernorm of 32768 rows of 768: %+v", l)
	}
	if lnChunk(10_000_000) != 153 || lnChunk(100) != 64 {
		t.Errorf("chunks %d, %d", lnChunk(10_000_000), lnChunk(100))
	}
	if fwd := ln.Launches(dnn.Forward); fwd[0].Args[7] != float32(1e-5) || fwd[0].Args[6] != int32(768) {
		t.Errorf("layernorm fwd arguments %v", fwd[0].Args)
	}
	if ln.Launches(dnn.BackwardWeights) != nil || ln.Launches(dnn.Update) != nil {
		t.Error("launches for passes without work")
	}
}

// TestKernelParams: cuLaunchKernel reads each argument through a pointer
// to its value, in its C width.
func TestKernelParams(t *testing.T) {
	p, err := kernelParams([]any{"x", int64(-3), int32(-2), float32(1.5)}, map[string]uint64{"x": 0xdead0000})
	if err != nil {
		t.Fatal(err)
	}
	if *(*uint64)(p.ptrs[0]) != 0xdead0000 || *(*int64)(p.ptrs[1]) != -3 || *(*int32)(p.ptrs[2]) != -2 || *(*float32)(p.ptrs[3]) != 1.5 {
		t.Errorf("values %#v", p.vals)
	}
	if _, err := kernelParams([]any{"y"}, map[string]uint64{}); err == nil || !strings.Contains(err.Error(), `no buffer "y"`) {
		t.Errorf("missing buffer: %v", err)
	}
	if _, err := kernelParams([]any{3.0}, nil); err == nil {
		t.Error("a float64 argument accepted")
	}
	ptrs, bufs := cStrings([]string{"--gpu-architecture=compute_90", "-x"})
	if len(ptrs) != 2 || string(bufs[0]) != "--gpu-architecture=compute_90\x00" || unsafe.Pointer(ptrs[1]) != unsafe.Pointer(&bufs[1][0]) {
		t.Errorf("cStrings: %q", bufs)
	}
	if o := nvrtcOptions(9, 0); len(o) != 1 || o[0] != "--gpu-architecture=compute_90" {
		t.Errorf("options %v", o)
	}
}

// TestKernelsCompile compiles kernels.cu to PTX with clang's CUDA front
// end, where clang with the NVPTX target is installed (Debian's
// clang-14 is), as NVRTC will on a GPU machine: a check of the source
// without the CUDA toolkit. The few definitions NVRTC builds in
// (__global__, threadIdx, ...) come from a prelude. Skipped without
// clang.
func TestKernelsCompile(t *testing.T) {
	var clang string
	for _, c := range []string{"clang", "clang-19", "clang-18", "clang-17", "clang-16", "clang-15", "clang-14"} {
		if p, err := exec.LookPath(c); err == nil {
			clang = p
			break
		}
	}
	if clang == "" {
		t.Skip("no clang to compile kernels.cu (apt-get install clang-14); NVRTC compiles it on a GPU machine")
	}
	dir := t.TempDir()
	prelude := filepath.Join(dir, "prelude.h")
	if err := os.WriteFile(prelude, []byte(`#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __forceinline__ __inline__ __attribute__((always_inline))
#include "__clang_cuda_builtin_vars.h"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	ptx := filepath.Join(dir, "kernels.ptx")
	for _, arch := range []string{"sm_52", "sm_80"} {
		out, err := exec.Command(clang, "-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib", "--cuda-gpu-arch="+arch,
			"-Wall", "-Werror", "-include", prelude, "-S", "-o", ptx, "kernels.cu").CombinedOutput()
		if err != nil {
			if strings.Contains(string(out), "Unknown target") || strings.Contains(string(out), "unsupported") && strings.Contains(string(out), "nvptx") {
				t.Skipf("%s lacks the NVPTX target: %s", clang, out)
			}
			t.Fatalf("%s (%s): %v\n%s", clang, arch, err, out)
		}
		b, err := os.ReadFile(ptx)
		if err != nil {
			t.Fatal(err)
		}
		var entries []string
		for _, m := range regexp.MustCompile(`\.visible \.entry (\w+)\(`).FindAllStringSubmatch(string(b), -1) {
			entries = append(entries, m[1])
		}
		var want []string
		for k := range kernelSignatures(t, kernelSource) {
			want = append(want, k)
		}
		sort.Strings(entries)
		sort.Strings(want)
		if fmt.Sprint(entries) != fmt.Sprint(want) {
			t.Errorf("%s: PTX entries\n%v\nwant\n%v", arch, entries, want)
		}
	}
}
