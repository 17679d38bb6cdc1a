//go:build cgo

package onednn

/*
#cgo CFLAGS: -I${SRCDIR}/include -O3 -std=gnu11 -Wno-psabi
#cgo LDFLAGS: -ldl -lm
#include <stdio.h>
#include <stdlib.h>
#include "shim.h"

static wb_op *wb_build(wb_ctx *c, int kind, int pass, const int *v, const int64_t *w, float alpha) {
	switch (kind) {
	case 0: return wb_conv(c, pass, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12], v[13], v[14]);
	case 1: return wb_eltwise(c, pass, v[0], alpha, w[0]);
	case 2: return wb_bnorm(c, pass, v[0], v[1], w[0]);
	case 3: return wb_lnorm(c, pass, w[0], v[0]);
	case 4: return wb_softmax(c, pass, w[0], v[0], v[1], alpha, v[2]);
	case 5: return wb_pool(c, pass, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10]);
	case 6: return wb_add(c, pass, v[0], w[0]);
	case 7: return wb_linear(c, pass, w[0], v[0], v[1], v[2]);
	case 8: return wb_matmul(c, pass, v[0], v[1], v[2], v[3], v[4]);
	case 9: return wb_update(c, w[0]);
	case 10: return wb_lstm(c, pass, v[0], v[1], v[2], v[3], v[4]);
	case 11: return wb_dropout(c, pass, w[0], alpha);
	}
	snprintf(c->err, c->errlen, "unknown op kind %d", kind);
	return NULL;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/profiler"
)

func cstrings(names []string) (**C.char, func()) {
	arr := C.malloc(C.size_t(len(names)+1) * C.size_t(unsafe.Sizeof(uintptr(0))))
	s := unsafe.Slice((**C.char)(arr), len(names)+1)
	for i, n := range names {
		s[i] = C.CString(n)
	}
	s[len(names)] = nil
	return (**C.char)(arr), func() {
		for _, p := range s[:len(names)] {
			C.free(unsafe.Pointer(p))
		}
		C.free(arr)
	}
}

func load(dnnl, blas []string) (libInfo, error) {
	d, fd := cstrings(dnnl)
	defer fd()
	b, fb := cstrings(blas)
	defer fb()
	var buf [512]C.char
	if C.wb_load(d, b, &buf[0], C.int(len(buf))) != 0 {
		return libInfo{}, errors.New("onednn: " + C.GoString(&buf[0]))
	}
	return libInfo{
		dnnl:      C.GoString(C.wb_dnnl_version()),
		blas:      shortVersion(C.GoString(C.wb_blas_config())),
		core:      C.GoString(C.wb_blas_core()),
		threading: BLASThreading(int(C.wb_blas_parallel())),
	}, nil
}

func setThreads(n int) int { return int(C.wb_threads(C.int(n))) }

// cOp is a pass built on the C side.
type cOp struct{ p *C.wb_op }

// build builds a pass of s on the C side with buffers of at most limit
// bytes; dry, it only asks oneDNN what would run (wb_ctx.dry): the kernel
// then names its implementation and cannot run.
func build(s opSpec, pass dnn.Pass, limit int64, dry bool) (*kernel, error) {
	const errlen = 512
	ebuf := (*C.char)(C.calloc(errlen, 1))
	defer C.free(unsafe.Pointer(ebuf))
	ctx := (*C.wb_ctx)(C.calloc(1, C.size_t(unsafe.Sizeof(C.wb_ctx{}))))
	defer C.free(unsafe.Pointer(ctx))
	ctx.limit, ctx.err, ctx.errlen = C.int64_t(limit), ebuf, errlen
	if dry {
		ctx.dry = 1
	}
	v := make([]C.int, 16)
	for i, x := range s.ints {
		if x < -1<<31 || x > 1<<31-1 {
			return nil, fmt.Errorf("%w: size %d is more than the libraries' int", profiler.ErrOutOfMemory, x)
		}
		v[i] = C.int(x)
	}
	w := make([]C.int64_t, 4)
	for i, x := range s.i64 {
		w[i] = C.int64_t(x)
	}
	cv := (*C.int)(C.malloc(C.size_t(len(v)) * C.size_t(unsafe.Sizeof(C.int(0)))))
	defer C.free(unsafe.Pointer(cv))
	cw := (*C.int64_t)(C.malloc(C.size_t(len(w)) * 8))
	defer C.free(unsafe.Pointer(cw))
	copy(unsafe.Slice(cv, len(v)), v)
	copy(unsafe.Slice(cw, len(w)), w)
	p := C.wb_build(ctx, C.int(s.kind), C.int(pass), cv, cw, C.float(s.alpha))
	if p == nil {
		msg := C.GoString(ebuf)
		switch {
		case ctx.oom != 0:
			return nil, fmt.Errorf("%w: %s (the profiler's memory limit, half the machine's memory unless set)", profiler.ErrOutOfMemory, msg)
		case ctx.unsup != 0:
			return nil, fmt.Errorf("%w: %s", profiler.ErrUnsupported, msg)
		}
		return nil, errors.New(msg)
	}
	return &kernel{op: &cOp{p}, impl: C.GoString(C.wb_impl(p))}, nil
}

func (o *cOp) time(n int) ([]float64, error) {
	if n == 0 {
		return nil, nil
	}
	out := (*C.double)(C.malloc(C.size_t(n) * 8))
	defer C.free(unsafe.Pointer(out))
	var buf [256]C.char
	if C.wb_time(o.p, C.int(n), out, &buf[0], C.int(len(buf))) != 0 {
		return nil, errors.New(C.GoString(&buf[0]))
	}
	secs := make([]float64, n)
	for i, x := range unsafe.Slice(out, n) {
		secs[i] = float64(x)
	}
	return secs, nil
}

func (o *cOp) free() { C.wb_free(o.p) }

// checked is a wb_*_check's result: its largest difference, or, where it
// is negative (the kernel did not build or run), an error naming what
// (format and args).
func checked(d C.double, format string, args ...any) (float64, error) {
	if d < 0 {
		return 0, fmt.Errorf("onednn: "+format+" did not build or run", args...)
	}
	return float64(d), nil
}

// linearCheck runs a linear layer's forward through the C side on set
// operands and returns the largest relative difference of its output from
// x·Wᵀ + b (wb_linear_check): that the kernels the profiler times compute
// the layer.
func linearCheck(rows, k, n int, bias bool) (float64, error) {
	b := 0
	if bias {
		b = 1
	}
	return checked(C.wb_linear_check(C.int64_t(rows), C.int(k), C.int(n), C.int(b)), "linear %d×%d → %d", rows, k, n)
}

// matmulCheck is linearCheck for a batched product's pass
// (wb_matmul_check): g products of [m, k] by [k, n], b stored [n, k] where
// transB.
func matmulCheck(pass dnn.Pass, g, m, n, k int, transB bool) (float64, error) {
	t := 0
	if transB {
		t = 1
	}
	return checked(C.wb_matmul_check(C.int(pass), C.int(g), C.int(m), C.int(n), C.int(k), C.int(t)), "matmul %v %d×[%d×%d·%d×%d]", pass, g, m, k, k, n)
}

// bnormCheck is linearCheck for a batch norm's pass in training
// (wb_bnorm_check): n × ch × hw values.
func bnormCheck(pass dnn.Pass, n, ch, hw int) (float64, error) {
	return checked(C.wb_bnorm_check(C.int(pass), C.int(n), C.int(ch), C.int64_t(hw)), "batch norm %v %d×%d×%d", pass, n, ch, hw)
}

// mtNth is the nth number (from 1) of the dropout's mt19937 seeded with
// seed (wb_mt_nth).
func mtNth(seed uint32, n int) uint32 { return uint32(C.wb_mt_nth(C.uint32_t(seed), C.int(n))) }

// dropoutCheck is linearCheck for a dropout's pass (wb_dropout_check):
// elems values.
func dropoutCheck(pass dnn.Pass, elems int) (float64, error) {
	return checked(C.wb_dropout_check(C.int(pass), C.int64_t(elems)), "dropout %v of %d values", pass, elems)
}

// actCheck is linearCheck for an activation's pass (wb_act_check): alg 0
// leaky relu (slope 0.2), 1 gelu (tanh), 2 tanh, 3 sigmoid, 4 silu, 5
// relu, over elems values.
func actCheck(alg int, pass dnn.Pass, elems int) (float64, error) {
	return checked(C.wb_act_check(C.int(alg), C.int(pass), C.int64_t(elems)), "activation %d %v of %d values", alg, pass, elems)
}

// lnormCheck is linearCheck for a layer norm's pass (wb_lnorm_check):
// rows × cols values.
func lnormCheck(pass dnn.Pass, rows, cols int) (float64, error) {
	return checked(C.wb_lnorm_check(C.int(pass), C.int64_t(rows), C.int(cols)), "layer norm %v %d×%d", pass, rows, cols)
}

// softmaxCheck is linearCheck for a softmax's pass (wb_softmax_check):
// blocks × rows × cols values.
func softmaxCheck(pass dnn.Pass, blocks, rows, cols int) (float64, error) {
	return checked(C.wb_softmax_check(C.int(pass), C.int64_t(blocks), C.int(rows), C.int(cols)), "softmax %v %d×%d×%d", pass, blocks, rows, cols)
}

// maxpoolCheck is linearCheck for a max pooling's pass
// (wb_maxpool_check): n × ch planes of ih × iw, window kh × kw, strides sh,
// sw, padding ph, pw.
func maxpoolCheck(pass dnn.Pass, n, ch, ih, iw, kh, kw, sh, sw, ph, pw int) (float64, error) {
	return checked(C.wb_maxpool_check(C.int(pass), C.int(n), C.int(ch), C.int(ih), C.int(iw), C.int(kh), C.int(kw),
		C.int(sh), C.int(sw), C.int(ph), C.int(pw)), "max pooling %v %d×%d×%d×%d", pass, n, ch, ih, iw)
}

// gapCheck is linearCheck for a global average pooling's forward
// (wb_gap_check).
func gapCheck(n, ch, ih, iw int) (float64, error) {
	return checked(C.wb_gap_check(C.int(n), C.int(ch), C.int(ih), C.int(iw)), "global average pooling %d×%d×%d×%d", n, ch, ih, iw)
}

// lstmCheck is linearCheck for an LSTM stack's forward (wb_lstm_check),
// backward data (wb_lstm_bwd_check) or backward weights
// (wb_lstm_bww_check): t steps of b sequences, d inputs, h hidden units.
func lstmCheck(pass dnn.Pass, t, b, d, h, layers int) (float64, error) {
	var e C.double
	switch pass {
	case dnn.BackwardData:
		e = C.wb_lstm_bwd_check(C.int(t), C.int(b), C.int(d), C.int(h), C.int(layers))
	case dnn.BackwardWeights:
		e = C.wb_lstm_bww_check(C.int(t), C.int(b), C.int(d), C.int(h), C.int(layers))
	default:
		e = C.wb_lstm_check(C.int(t), C.int(b), C.int(d), C.int(h), C.int(layers))
	}
	return checked(e, "LSTM %v of %d layers, %d steps × %d, %d → %d", pass, layers, t, b, d, h)
}
