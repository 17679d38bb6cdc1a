// The C side of the oneDNN/OpenBLAS backend: it loads the libraries with
// dlopen, builds each layer pass as a list of steps (oneDNN primitives with
// their arguments, or OpenBLAS products and plain loops) over buffers it
// allocates itself, and times the list. Go never hands it a Go pointer that
// it keeps.
#ifndef WB_ONEDNN_SHIM_H
#define WB_ONEDNN_SHIM_H

#include <stdint.h>

typedef struct wb_op wb_op;

// wb_load opens libdnnl and libopenblas (names tried in order, NULL-
// terminated lists), resolves every function, and makes the CPU engine and
// a stream. 0 on success, else -1 with the reason in err.
int wb_load(const char **dnnl_names, const char **blas_names, char *err, int errlen);
// Versions: "2.6.3", "OpenBLAS 0.3.21 ...".
const char *wb_dnnl_version(void);
const char *wb_blas_config(void);
const char *wb_blas_core(void);
// wb_blas_parallel is OpenBLAS's openblas_get_parallel: 0 sequential, 1
// its own pthreads pool, 2 OpenMP; -1 where the library lacks it.
int wb_blas_parallel(void);
// wb_threads sets the threads of both libraries (OpenMP's for oneDNN): n,
// or OpenMP's thread limit where that is lower; it returns the count set.
int wb_threads(int n);

// Passes, as dnn.Pass numbers them.
enum { WB_FORWARD = 0, WB_BACKWARD_DATA = 1, WB_BACKWARD_WEIGHTS = 2 };

// Every builder returns NULL with the reason in err; *oom is set when the
// reason is the buffer limit (bytes) and *unsup when oneDNN has no
// implementation.
typedef struct {
    int64_t limit;   // most bytes of buffers
    char *err;
    int errlen;
    int oom, unsup;
    // dry: a convolution's builder makes its primitive descriptors and
    // names their implementations (wb_impl) but allocates no buffer and
    // creates no primitive: what oneDNN would run, asked without running
    // it. The op it returns is only for wb_impl and wb_free.
    int dry;
} wb_ctx;

wb_op *wb_conv(wb_ctx *c, int pass, int n, int ic, int ih, int iw, int oc, int kh, int kw,
               int sh, int sw, int ph, int pw, int dh, int dw, int groups, int bias);
// alg: 0 relu (alpha: negative slope), 1 gelu (tanh), 2 tanh, 3 sigmoid, 4 silu.
wb_op *wb_eltwise(wb_ctx *c, int pass, int alg, float alpha, int64_t elems);
wb_op *wb_bnorm(wb_ctx *c, int pass, int n, int ch, int64_t spatial);
wb_op *wb_lnorm(wb_ctx *c, int pass, int64_t rows, int cols);
// scale multiplies the input first (1: none); causal adds −∞ above the
// diagonal of each rows×cols block (rows = cols).
wb_op *wb_softmax(wb_ctx *c, int pass, int64_t blocks, int rows, int cols, float scale, int causal);
// alg: 0 max, 1 average with padding counted.
wb_op *wb_pool(wb_ctx *c, int pass, int alg, int n, int ch, int ih, int iw, int kh, int kw,
               int sh, int sw, int ph, int pw);
wb_op *wb_add(wb_ctx *c, int pass, int inputs, int64_t elems);
// linear: rows×k inputs, weight [n, k] as PyTorch stores it.
wb_op *wb_linear(wb_ctx *c, int pass, int64_t rows, int k, int n, int bias);
// matmul: g products of a [m, k] by b [k, n] (transb: b stored [n, k]).
wb_op *wb_matmul(wb_ctx *c, int pass, int g, int m, int n, int k, int transb);
// lstm: layers of h hidden units over t steps of b samples, d inputs.
wb_op *wb_lstm(wb_ctx *c, int pass, int t, int b, int d, int h, int layers);
// dropout of probability p over elems values.
wb_op *wb_dropout(wb_ctx *c, int pass, int64_t elems, float p);
// update: SGD with momentum over params values, as torch.optim.SGD.
wb_op *wb_update(wb_ctx *c, int64_t params);

// wb_time runs the op n times and writes each run's seconds.
int wb_time(wb_op *op, int n, double *out, char *err, int errlen);
// wb_impl names what runs: oneDNN's implementations, "openblas sgemm".
const char *wb_impl(wb_op *op);
int64_t wb_bytes(wb_op *op);
void wb_free(wb_op *op);
// wb_linear_check runs a linear layer's forward (rows × k inputs, n
// outputs) on operands it sets and returns the largest difference of its
// output from x·Wᵀ + b summed in double, relative to the sum of the
// products' magnitudes (+1): for tests. −1 where it cannot build or run.
double wb_linear_check(int64_t rows, int k, int n, int bias);
// wb_matmul_check does the same for a batched product's pass (forward:
// y = a·b, b transposed where transb; backward: both inputs' gradients).
double wb_matmul_check(int pass, int g, int m, int n, int k, int transb);
// wb_bnorm_check does the same for a batch norm's pass (the batch's
// statistics, y; or the input's and the parameters' gradients).
double wb_bnorm_check(int pass, int n, int ch, int64_t hw);
// wb_lstm_check does the same for an LSTM stack's forward (every layer's
// outputs and cells).
double wb_lstm_check(int t, int b, int d, int h, int layers);
// wb_lstm_bwd_check does the same for its backward data (every layer's
// pre-activation and input gradients), from the forward's saved values.
double wb_lstm_bwd_check(int t, int b, int d, int h, int layers);
// wb_lstm_bww_check does the same for its backward weights (every layer's
// dW_ih, dW_hh and bias gradient).
double wb_lstm_bww_check(int t, int b, int d, int h, int layers);
// wb_maxpool_check does the same for a max pooling's pass (the outputs and
// their indices; the input's gradient).
double wb_maxpool_check(int pass, int n, int ch, int ih, int iw, int kh, int kw, int sh, int sw, int ph, int pw);
// wb_gap_check does the same for a global average pooling's forward (each
// plane's mean).
double wb_gap_check(int n, int ch, int ih, int iw);
// wb_mt_nth is the nth number (from 1) of an mt19937 seeded with seed, as
// the dropout's generator draws them: a known answer checks the twist.
uint32_t wb_mt_nth(uint32_t seed, int n);

// wb_dropout_check does the same for a dropout's pass (y = x · noise; the
// noise's values and share of zeros).
double wb_dropout_check(int pass, int64_t elems);
// wb_act_check does the same for an activation ATen computes itself (alg
// 0: leaky relu of slope 0.2; 1: gelu with the tanh approximation; 2:
// tanh; 3: sigmoid; 4: silu; 5: relu).
double wb_act_check(int alg, int pass, int64_t elems);
// wb_lnorm_check does the same for a layer norm's pass over rows × cols
// (forward: outputs, means and 1/σ; backward: dx, dγ, dβ).
double wb_lnorm_check(int pass, int64_t rows, int cols);
// wb_softmax_check does the same for a softmax's pass over blocks × rows
// × cols (no scale, no mask).
double wb_softmax_check(int pass, int64_t blocks, int rows, int cols);

#endif
