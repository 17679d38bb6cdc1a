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
// extern "C" kernel and its parameter types: kernels written in macros
// (ACTIVATION, LAYERNORM, EMBEDDING, ...) instantiated per type directly
// or through ALL_TYPES, and kernels written out.
func kernelSignatures(t *testing.T, src string) map[string]kernelSignature {
	t.Helper()
	src = strings.ReplaceAll(src, "\\\n", " ")
	type macro struct {
		params []string
		body   string
	}
	defs := map[string]macro{}
	kernel := regexp.MustCompile(`extern "C" __global__ void ([\w#]+)\(([^)]*)\)`)
	var plain []string // the source without its macro definitions
	for _, line := range strings.Split(src, "\n") {
		m := regexp.MustCompile(`^#define (\w+)\(([^)]*)\)(.*)$`).FindStringSubmatch(line)
		switch {
		case m == nil:
			plain = append(plain, line)
		case kernel.MatchString(m[3]):
			defs[m[1]] = macro{splitArgs(m[2]), m[3]}
		}
	}
	if len(defs) < 5 {
		t.Fatalf("kernels.cu: kernel macros %v", defs)
	}
	types := [][2]string{{"float", "f32"}, {"h16", "f16"}, {"b16", "bf16"}}
	var calls [][]string // macro name, then its arguments
	for _, line := range plain {
		if m := regexp.MustCompile(`^ALL_TYPES\((\w+), ([^)]*)\)$`).FindStringSubmatch(line); m != nil {
			for _, ty := range types {
				calls = append(calls, append(append([]string{m[1]}, splitArgs(m[2])...), ty[0], ty[1]))
			}
		} else if m := regexp.MustCompile(`^(\w+)\(([^)]*)\)$`).FindStringSubmatch(line); m != nil {
			if _, ok := defs[m[1]]; !ok {
				t.Fatalf("kernels.cu: %s instantiates no kernel macro", line)
			}
			calls = append(calls, append([]string{m[1]}, splitArgs(m[2])...))
		}
	}
	sigs := map[string]kernelSignature{}
	word := regexp.MustCompile(`\w+`)
	signature := func(params string) kernelSignature {
		var sig kernelSignature
		for _, p := range strings.Split(params, ",") {
			p = strings.TrimSpace(p)
			sig = append(sig, strings.TrimSpace(p[:strings.LastIndexAny(p, " *")+1]))
		}
		return sig
	}
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
			sigs[sub(k[1])] = signature(sub(k[2]))
		}
	}
	for _, k := range kernel.FindAllStringSubmatch(strings.Join(plain, "\n"), -1) {
		sigs[k[1]] = signature(k[2])
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

// nvrtcProblems are the ops wb runs with its own kernels, at every
// precision, and the update pass in both modes.
func nvrtcProblems(t *testing.T) []OpProblem {
	var ps []OpProblem
	for _, d := range []dnn.Desc{
		{Op: "gelu", In: []dnn.Shape{{128, 3072}}, Out: dnn.Shape{128, 3072}},
		{Op: "leakyrelu", In: []dnn.Shape{{64, 32, 32}}, Out: dnn.Shape{64, 32, 32}},
		{Op: "layernorm", In: []dnn.Shape{{128, 768}}, Out: dnn.Shape{128, 768}},
		{Op: "embedding", In: []dnn.Shape{{128}}, Out: dnn.Shape{128, 768}, Attr: dnn.Attrs{"vocab": 30522, "dim": 768}},
		{Op: "dropout", In: []dnn.Shape{{128, 768}}, Out: dnn.Shape{128, 768}},
		{Op: "concat", In: []dnn.Shape{{64, 35, 35}, {96, 35, 35}, {32, 35, 35}}, Out: dnn.Shape{192, 35, 35}},
		{Op: "select", In: []dnn.Shape{{128, 768}}, Out: dnn.Shape{768}},
		{Op: "upsample", In: []dnn.Shape{{256, 16, 16}}, Out: dnn.Shape{256, 32, 32}, Attr: dnn.Attrs{"f": 2}},
		{Op: "pad", In: []dnn.Shape{{3, 256, 256}}, Out: dnn.Shape{3, 262, 262}, Attr: dnn.Attrs{"left": 3, "right": 3, "top": 3, "bottom": 3}},
	} {
		for _, prec := range dnn.Precisions {
			p, err := OpFor(d, 4, prec)
			if err != nil {
				t.Fatal(err)
			}
			ps = append(ps, p)
		}
	}
	for _, m := range []UpdateMode{UpdateForeach, UpdateFused} {
		p, err := UpdateFor(1000, m)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	return ps
}

// passWrites are the buffers each NVRTC pass writes: what its launches
// may pass to a non-const pointer, and must pass to one at least once.
// Everything else they read through const pointers.
var passWrites = map[OpKind]map[dnn.Pass][]string{
	Elementwise: {dnn.Forward: {"y"}, dnn.BackwardData: {"dx"}},
	LayerNorm:   {dnn.Forward: {"y", "mean", "rstd"}, dnn.BackwardData: {"dx", "dgamma", "dbeta"}},
	Embedding:   {dnn.Forward: {"y"}, dnn.BackwardWeights: {"dtable", "dtable_acc"}},
	Update:      {dnn.Update: {"v", "w"}},
	Dropout:     {dnn.Forward: {"y", "mask"}, dnn.BackwardData: {"dx"}},
	Concat:      {dnn.Forward: {"y"}, dnn.BackwardData: {"dx0", "dx1", "dx2"}},
	Select:      {dnn.Forward: {"y"}, dnn.BackwardData: {"dx"}},
	Resize:      {dnn.Forward: {"y"}, dnn.BackwardData: {"dx"}},
}

// prepWrites are the buffers each kind's preparation launches write: an
// embedding's ids, the mask (and dx, its forward run's output) that
// dropout's backward pass reads.
var prepWrites = map[OpKind][]string{Embedding: {"ids"}, Dropout: {"mask", "dx"}}

// checkLaunches checks launches against kernels.cu's signatures: each
// names a kernel and passes arguments of its parameters' types (a
// pointer is a buffer of bufs of the kernel's element type: float* an
// fp32 buffer, long* an index buffer, T* one in the precision of elem;
// long an int64, int an int32, float a float32), buffers outside writes
// only to const pointers and every buffer of writes (that bufs has) to a
// non-const one; zeroed buffers are float.
func checkLaunches(t *testing.T, what string, sigs map[string]kernelSignature, ls []Launch, bufs map[string]OpBuffer, elem string, writes []string, launched map[string]bool) {
	t.Helper()
	written := map[string]bool{}
	for _, l := range ls {
		launched[l.Kernel] = true
		sig, ok := sigs[l.Kernel]
		if !ok {
			t.Errorf("%s: kernel %s not in kernels.cu", what, l.Kernel)
			continue
		}
		if len(sig) != len(l.Args) {
			t.Errorf("%s: %s: %d arguments for %d parameters %v", what, l.Kernel, len(l.Args), len(sig), sig)
			continue
		}
		for i, a := range l.Args {
			want := sig[i]
			var got string
			switch v := a.(type) {
			case string:
				b, ok := bufs[v]
				if !ok {
					t.Errorf("%s: %s: argument %d, buffer %q not among the pass's buffers", what, l.Kernel, i, v)
					continue
				}
				switch {
				case b.Index:
					got = "long *"
				case b.Mask:
					got = "u8 *"
				case b.Param:
					got = "float *"
				default:
					got = elem + " *"
				}
				isConst := strings.HasPrefix(want, "const ")
				if !isConst {
					written[v] = true
				}
				if !isConst && !slices.Contains(writes, v) {
					t.Errorf("%s: %s: argument %d, buffer %q (read only) to a parameter %q", what, l.Kernel, i, v, want)
				}
				want = strings.TrimPrefix(strings.TrimPrefix(want, "const "), "volatile ")
			case int64:
				got = "long"
			case int32:
				got = "int"
			case float32:
				got = "float"
			}
			if strings.ReplaceAll(got, " ", "") != strings.ReplaceAll(want, " ", "") {
				t.Errorf("%s: %s: argument %d is %v (%s), the kernel takes %s", what, l.Kernel, i, a, got, sig[i])
			}
		}
		for _, z := range l.Zero {
			// zero bytes are 0.0 in every float format, not a token id or a mask
			if b, ok := bufs[z]; !ok || b.Index || b.Mask {
				t.Errorf("%s: %s zeroes %q, not a buffer of values of the pass", what, l.Kernel, z)
			}
		}
		if l.Block[0]*l.Block[1]*l.Block[2] > 1024 || l.Grid[0] == 0 || l.Grid[0] > maxGridX || l.Grid[1] == 0 || l.Grid[1] > 65535 || l.Grid[2] != 1 {
			t.Errorf("%s: %s: grid %v, block %v", what, l.Kernel, l.Grid, l.Block)
		}
	}
	for _, w := range writes {
		if _, ok := bufs[w]; ok && !written[w] {
			t.Errorf("%s: no launch writes %q", what, w)
		}
	}
}

// TestLaunchesMatchKernels: every launch of every NVRTC op, pass and
// precision (and the bias gradient's) names a kernel of kernels.cu and
// passes it arguments of its parameters' types, const-ness included;
// every kernel of the file is launched by some problem.
func TestLaunchesMatchKernels(t *testing.T) {
	sigs := kernelSignatures(t, kernelSource)
	if len(sigs) != 58 {
		t.Errorf("%d kernels in kernels.cu, want 58 (gelu and leakyrelu fwd and bwd, layernorm fwd, bwd and bwd_params, "+
			"embedding fwd and bwd, bias_grad, dropout fwd and bwd, conv_bias_grad, copy2d, resize fwd and bwd, fill: 3 types each; "+
			"2 casts; fill_ids; foreach mul and add, fused sgd; the stream's hold)", len(sigs))
	}
	launched := map[string]bool{}
	elemOf := map[int32]string{cudnnDataFloat: "float", cudnnDataHalf: "h16", cudnnDataBFloat16: "b16"}
	for _, p := range nvrtcProblems(t) {
		any := false
		for _, pass := range dnn.Passes {
			bufs := map[string]OpBuffer{}
			for _, b := range p.Buffers(pass) {
				bufs[b.Name] = b
			}
			ls := p.Launches(pass)
			if len(ls) == 0 {
				continue
			}
			any = true
			what := fmt.Sprintf("%s %s %s", p.Op, pass, typeSuffix(p.DataType))
			checkLaunches(t, what, sigs, ls, bufs, elemOf[p.DataType], passWrites[p.Kind][pass], launched)
			if pl := p.PrepLaunches(pass); len(pl) > 0 {
				checkLaunches(t, what+" (preparation)", sigs, pl, bufs, elemOf[p.DataType], prepWrites[p.Kind], launched)
			}
		}
		if !any {
			t.Errorf("%s: no launch", p.Op)
		}
	}
	for dt, elem := range elemOf {
		acc := "db"
		bufs := map[string]OpBuffer{"dy": {Name: "dy"}, "db": {Name: "db"}}
		if dt != cudnnDataFloat {
			acc = "db_acc"
			bufs[acc] = OpBuffer{Name: acc, Param: true}
		}
		checkLaunches(t, "bias grad "+elem, sigs, BiasGradLaunches(dt, 4096, 768, "dy", acc, "db"), bufs, elem, []string{"db", "db_acc"}, launched)
		checkLaunches(t, "conv bias grad "+elem, sigs, ConvBiasGradLaunches(dt, 8, 64, 56*56, "dy", acc, "db"), bufs, elem, []string{"db", "db_acc"}, launched)
		checkLaunches(t, "fill "+elem, sigs, []Launch{FillLaunch(dt, "x", 1000, 7)}, map[string]OpBuffer{"x": {Name: "x"}}, elem, []string{"x"}, launched)
	}
	// the stream's hold: its words are two longs, which the kernel writes
	checkLaunches(t, "hold", sigs, []Launch{holdLaunch(3)}, map[string]OpBuffer{"release": {Name: "release", Index: true}}, "float",
		[]string{"release"}, launched)
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
	ptrs, bufs := cStrings([]string{"--gpu-architecture=sm_90", "-x"})
	if len(ptrs) != 2 || string(bufs[0]) != "--gpu-architecture=sm_90\x00" || unsafe.Pointer(ptrs[1]) != unsafe.Pointer(&bufs[1][0]) {
		t.Errorf("cStrings: %q", bufs)
	}
}

// TestCompilePlans: machine code for the device first, its PTX as the
// fallback; PTX for the newest architecture NVRTC knows where it does not
// know the device's.
func TestCompilePlans(t *testing.T) {
	cuda126 := []int32{50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90}
	for _, tc := range []struct {
		name         string
		major, minor int32
		supported    []int32
		want         string
	}{
		{"H100", 9, 0, cuda126, "[--gpu-architecture=sm_90] [--gpu-architecture=compute_90]"},
		{"A100", 8, 0, cuda126, "[--gpu-architecture=sm_80] [--gpu-architecture=compute_80]"},
		{"L4", 8, 9, cuda126, "[--gpu-architecture=sm_89] [--gpu-architecture=compute_89]"},
		{"unknown list", 7, 5, nil, "[--gpu-architecture=sm_75] [--gpu-architecture=compute_75]"},
		{"device newer than NVRTC (B200 on 12.6)", 10, 0, cuda126, "[--gpu-architecture=compute_90]"},
		{"device older than NVRTC", 3, 7, cuda126, "[--gpu-architecture=sm_37] [--gpu-architecture=compute_37]"},
	} {
		var got []string
		for _, p := range compilePlans(tc.major, tc.minor, tc.supported) {
			got = append(got, fmt.Sprint(p.Options()))
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("%s: plans %s, want %s", tc.name, g, tc.want)
		}
	}
	if s := (compilePlan{Arch: 90, Cubin: true}).String(); s != "sm_90 cubin" {
		t.Errorf("plan %q", s)
	}
	if s := (compilePlan{Arch: 86}).String(); s != "compute_86 PTX" {
		t.Errorf("plan %q", s)
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
		if os.Getenv("CI") != "" {
			t.Fatal("no clang to compile kernels.cu: .ci/run installs clang-14")
		}
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

// TestCopyLaunches pins the copies' arguments: a concatenation's inputs
// at their offsets in each sample's output (and the gradient's slices
// back), a selected token's row out of its sample's T·D values (and the
// gradient into the zeroed input gradient), up-sampling's factor and
// padding's top and left.
func TestCopyLaunches(t *testing.T) {
	cat, err := OpFor(dnn.Desc{Op: "concat", In: []dnn.Shape{{64, 35, 35}, {96, 35, 35}, {32, 35, 35}}, Out: dnn.Shape{192, 35, 35}}, 2, dnn.BF16)
	if err != nil {
		t.Fatal(err)
	}
	const plane = 35 * 35
	fwd, bwd := cat.Launches(dnn.Forward), cat.Launches(dnn.BackwardData)
	if len(fwd) != 3 || len(bwd) != 3 {
		t.Fatalf("concat: %d and %d launches", len(fwd), len(bwd))
	}
	for i, off := range []int64{0, 64 * plane, 160 * plane} {
		part := cat.Parts[i]
		want := []any{fmt.Sprintf("in%d", i), "y", int64(2), part, part, int64(0), int64(192 * plane), off}
		if fmt.Sprint(fwd[i].Args) != fmt.Sprint(want) {
			t.Errorf("concat fwd %d: %v, want %v", i, fwd[i].Args, want)
		}
		want = []any{"dy", fmt.Sprintf("dx%d", i), int64(2), part, int64(192 * plane), off, part, int64(0)}
		if fmt.Sprint(bwd[i].Args) != fmt.Sprint(want) {
			t.Errorf("concat bwd %d: %v, want %v", i, bwd[i].Args, want)
		}
	}
	sel, err := OpFor(dnn.Desc{Op: "select", In: []dnn.Shape{{128, 768}}, Out: dnn.Shape{768}}, 4, dnn.FP32)
	if err != nil {
		t.Fatal(err)
	}
	if l := sel.Launches(dnn.Forward); fmt.Sprint(l[0].Args) != fmt.Sprint([]any{"x", "y", int64(4), int64(768), int64(128 * 768), int64(0), int64(768), int64(0)}) {
		t.Errorf("select fwd: %v", l[0].Args)
	}
	if l := sel.Launches(dnn.BackwardData); fmt.Sprint(l[0].Args) != fmt.Sprint([]any{"dy", "dx", int64(4), int64(768), int64(768), int64(0), int64(128 * 768), int64(0)}) ||
		!slices.Equal(l[0].Zero, []string{"dx"}) {
		t.Errorf("select bwd: %+v", l[0])
	}
	up, err := OpFor(dnn.Desc{Op: "upsample", In: []dnn.Shape{{256, 16, 16}}, Out: dnn.Shape{256, 32, 32}, Attr: dnn.Attrs{"f": 2}}, 3, dnn.FP16)
	if err != nil {
		t.Fatal(err)
	}
	if l := up.Launches(dnn.Forward); fmt.Sprint(l[0].Args) != fmt.Sprint([]any{"x", "y", int64(3 * 256), int32(16), int32(16), int32(32), int32(32), int32(2), int32(0), int32(0)}) {
		t.Errorf("upsample fwd: %v", l[0].Args)
	}
	pad, err := OpFor(dnn.Desc{Op: "pad", In: []dnn.Shape{{3, 256, 256}}, Out: dnn.Shape{3, 263, 261},
		Attr: dnn.Attrs{"left": 2, "right": 3, "top": 4, "bottom": 3}}, 1, dnn.FP32)
	if err != nil {
		t.Fatal(err)
	}
	if l := pad.Launches(dnn.BackwardData); fmt.Sprint(l[0].Args) != fmt.Sprint([]any{"dy", "dx", int64(3), int32(256), int32(256), int32(263), int32(261), int32(1), int32(4), int32(2)}) {
		t.Errorf("pad bwd: %v", l[0].Args)
	}
	if _, err := OpFor(dnn.Desc{Op: "pad", In: []dnn.Shape{{3, 256, 256}}, Out: dnn.Shape{3, 262, 262},
		Attr: dnn.Attrs{"left": 2, "right": 3, "top": 4, "bottom": 3}}, 1, dnn.FP32); err == nil {
		t.Error("a padding its output does not match accepted")
	}
}

// TestConvBiasGradCoverage walks wb_conv_bias_grad's indexing as
// kernels.cu writes it, for the grid ConvBiasGradLaunches gives: every
// value of a channel's n planes is summed by exactly one thread, small
// planes by several planes a block step, and no slice (a block of a
// channel) sums much less than convBiasChunk values where the channel has
// that many (a block a 7×7 plane made 131,072 blocks of 49 values).
func TestConvBiasGradCoverage(t *testing.T) {
	for _, c := range []struct{ n, hw int64 }{{256, 49}, {1, 1}, {3, 1}, {300, 1}, {8, 255}, {8, 256}, {5, 3136}, {2, 65536}, {4096, 4}, {7, 100}} {
		ls := ConvBiasGradLaunches(cudnnDataFloat, c.n, 1, c.hw, "dy", "db", "db")
		y := int64(ls[0].Grid[1])
		count := make([]int, c.n*c.hw)
		perSlice := make([]int64, y)
		for by := int64(0); by < y; by++ {
			for tx := int64(0); tx < lnThreads; tx++ {
				if c.hw < lnThreads {
					per, p, j := lnThreads/c.hw, tx/c.hw, tx%c.hw
					if p < per {
						for m := by*per + p; m < c.n; m += y * per {
							count[m*c.hw+j]++
							perSlice[by]++
						}
					}
					continue
				}
				chunk := int64(convBiasChunk)
				chunks := (c.hw + chunk - 1) / chunk
				for w := by; w < c.n*chunks; w += y {
					m, off := w/chunks, (w%chunks)*chunk
					end := min(off+chunk, c.hw)
					for j := off + tx; j < end; j += lnThreads {
						count[m*c.hw+j]++
						perSlice[by]++
					}
				}
			}
		}
		for i, k := range count {
			if k != 1 {
				t.Fatalf("n %d, hw %d: value %d summed %d times (grid y %d)", c.n, c.hw, i, k, y)
			}
		}
		if y > convBiasSlices || y < 1 {
			t.Errorf("n %d, hw %d: %d slices", c.n, c.hw, y)
		}
		if total := c.n * c.hw; total >= convBiasChunk && slices.Min(perSlice) < convBiasChunk/2 {
			t.Errorf("n %d, hw %d: a slice of %d values (grid y %d)", c.n, c.hw, slices.Min(perSlice), y)
		}
	}
}
