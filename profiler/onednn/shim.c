// See shim.h. oneDNN's C API of major version 2 (include/, as Debian 12
// ships it) and OpenBLAS's cblas_sgemm,
// openblas_set_num_threads, openblas_get_config and openblas_get_corename, all resolved with dlsym
// into pointers typed from the prototypes, so the compiler checks each call.
#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "oneapi/dnnl/dnnl.h"
#include "shim.h"

// OpenBLAS's CBLAS interface (cblas.h), declared here so that the build
// needs no BLAS headers.
enum CBLAS_ORDER { CblasRowMajor = 101, CblasColMajor = 102 };
enum CBLAS_TRANSPOSE { CblasNoTrans = 111, CblasTrans = 112 };
void cblas_sgemm(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE, int, int, int,
                 float, const float *, int, const float *, int, float, float *, int);
void openblas_set_num_threads(int);
char *openblas_get_config(void);
char *openblas_get_corename(void);
int openblas_get_parallel(void);
void omp_set_num_threads(int);
int omp_get_thread_num(void);
int omp_get_num_threads(void);
int omp_get_thread_limit(void);
void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned int flags);

#define FN(name) static __typeof__(name) *p_##name
FN(dnnl_version);
FN(dnnl_engine_create);
FN(dnnl_stream_create);
FN(dnnl_stream_wait);
FN(dnnl_memory_desc_init_by_tag);
FN(dnnl_memory_desc_get_size);
FN(dnnl_memory_desc_equal);
FN(dnnl_memory_create);
FN(dnnl_memory_get_data_handle);
FN(dnnl_memory_destroy);
FN(dnnl_primitive_desc_create);
FN(dnnl_primitive_desc_query_md);
FN(dnnl_primitive_desc_query);
FN(dnnl_primitive_desc_destroy);
FN(dnnl_primitive_create);
FN(dnnl_primitive_execute);
FN(dnnl_primitive_destroy);
FN(dnnl_reorder_primitive_desc_create);
FN(dnnl_binary_desc_init);
FN(dnnl_dilated_convolution_forward_desc_init);
FN(dnnl_dilated_convolution_backward_data_desc_init);
FN(dnnl_dilated_convolution_backward_weights_desc_init);
FN(dnnl_eltwise_forward_desc_init);
FN(dnnl_eltwise_backward_desc_init);
FN(dnnl_batch_normalization_forward_desc_init);
FN(dnnl_batch_normalization_backward_desc_init);
FN(dnnl_layer_normalization_forward_desc_init);
FN(dnnl_layer_normalization_backward_desc_init);
FN(dnnl_softmax_v2_forward_desc_init);
FN(dnnl_softmax_v2_backward_desc_init);
FN(dnnl_pooling_v2_forward_desc_init);
FN(dnnl_pooling_v2_backward_desc_init);
FN(cblas_sgemm);
FN(openblas_set_num_threads);
FN(openblas_get_config);
FN(openblas_get_corename);
FN(openblas_get_parallel);
FN(omp_set_num_threads);
FN(omp_get_thread_num);
FN(omp_get_num_threads);
FN(omp_get_thread_limit);
FN(GOMP_parallel);

struct lstm;
struct bn {
    int pass, n, c;
    int64_t hw;
    float *x, *y, *dy, *dx, *w, *b, *mean, *invstd, *dw, *db;
};

struct mp {
    int pass;
    int64_t planes; // batch × channels
    int ih, iw, oh, ow, kh, kw, sh, sw, ph, pw;
    float *x, *y, *dy, *dx;
    int64_t *idx; // of each output's maximum in its input plane, as ATen keeps them
};
struct gap {
    int pass;
    int64_t planes, hw; // batch × channels, height × width
    float *x, *y;
};
static dnnl_engine_t eng;
static dnnl_stream_t strm;
static int nthreads = 1;
static char dnnl_ver[64], dnnl_file[256], blas_file[256];

// mt19937, the generator of PyTorch's CPU bernoulli_ (without MKL,
// serially: at::bernoulli_distribution<double>, whose uniform draw is
// random64(), two 32-bit numbers a value).
typedef struct {
    uint32_t mt[624];
    int i;
} mt19937;

static void mt_seed(mt19937 *g, uint32_t seed) {
    g->mt[0] = seed;
    for (int i = 1; i < 624; i++) g->mt[i] = 1812433253u * (g->mt[i - 1] ^ (g->mt[i - 1] >> 30)) + (uint32_t)i;
    g->i = 624;
}

// mt_twist is mt19937's next state, in ATen's loops (MT19937RNGEngine.h's
// next_state: two runs and the last word, no index wrapped by a modulo),
// the same numbers as the textbook's.
static inline uint32_t mt_mix(uint32_t u, uint32_t v) {
    uint32_t y = (u & 0x80000000u) | (v & 0x7fffffffu);
    return (y >> 1) ^ ((v & 1u) ? 0x9908b0dfu : 0u);
}
static void mt_twist(mt19937 *g) {
    uint32_t *p = g->mt;
    int k = 0;
    for (; k < 624 - 397; k++) p[k] = p[k + 397] ^ mt_mix(p[k], p[k + 1]);
    for (; k < 623; k++) p[k] = p[k + 397 - 624] ^ mt_mix(p[k], p[k + 1]);
    p[623] = p[396] ^ mt_mix(p[623], p[0]);
    g->i = 0;
}

static uint32_t mt_next(mt19937 *g) {
    if (g->i >= 624) mt_twist(g);
    uint32_t y = g->mt[g->i++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
}

static mt19937 gen; // seeded in wb_load

// c_bern is PyTorch 1.13's bernoulli_ of a value without MKL: random64()
// (two draws, the first the high word), its low 53 bits a double in
// [0, 1) (uniform_real_distribution<double>), below p. It drew one 32-bit
// number a value before, half PyTorch's serial work (a reviewer's reading).
static inline void c_bern(float *c, int64_t i, float p) {
    uint64_t hi = mt_next(&gen), lo = mt_next(&gen);
    double u = (double)(((hi << 32) | lo) & ((1ull << 53) - 1)) * (1.0 / 9007199254740992.0);
    c[i] = u < (double)p ? 1.0f : 0.0f;
}


// open_first opens the first of names that loads and writes its name into
// which; when none does, which lists them all (", "-separated).
static void *open_first(const char **names, char *which, int whichlen) {
    which[0] = 0;
    for (const char **n = names; *n; n++) {
        void *h = dlopen(*n, RTLD_NOW | RTLD_GLOBAL);
        if (h) {
            snprintf(which, whichlen, "%s", *n);
            return h;
        }
    }
    for (const char **n = names; *n; n++) {
        size_t l = strlen(which);
        snprintf(which + l, whichlen - l, "%s%s", n == names ? "" : ", ", *n);
    }
    return NULL;
}

#define SYM(h, name)                                                              \
    do {                                                                          \
        p_##name = (__typeof__(p_##name))dlsym(h, #name);                         \
        if (!p_##name) {                                                          \
            snprintf(err, errlen, "%s has no %s: not oneDNN 2.x / OpenBLAS", lib, #name); \
            return -1;                                                            \
        }                                                                         \
    } while (0)

int wb_load(const char **dnnl_names, const char **blas_names, char *err, int errlen) {
    void *d = open_first(dnnl_names, dnnl_file, sizeof dnnl_file);
    if (!d) {
        snprintf(err, errlen, "cannot open oneDNN (tried %s): %s", dnnl_file, dlerror());
        return -1;
    }
    void *b = open_first(blas_names, blas_file, sizeof blas_file);
    if (!b) {
        snprintf(err, errlen, "cannot open OpenBLAS (tried %s): %s", blas_file, dlerror());
        return -1;
    }
    const char *lib = dnnl_file;
    SYM(d, dnnl_version);
    const dnnl_version_t *v = p_dnnl_version();
    if (v->major != DNNL_VERSION_MAJOR) {
        snprintf(err, errlen, "%s is oneDNN %d.%d.%d; wb is built against the C API of %d.x", dnnl_file,
                 v->major, v->minor, v->patch, DNNL_VERSION_MAJOR);
        return -1;
    }
    if (v->cpu_runtime != DNNL_RUNTIME_OMP) {
        snprintf(err, errlen, "%s runs on CPU runtime %u, not OpenMP: wb cannot set its threads", dnnl_file,
                 v->cpu_runtime);
        return -1;
    }
    snprintf(dnnl_ver, sizeof dnnl_ver, "%d.%d.%d", v->major, v->minor, v->patch);
    SYM(d, dnnl_engine_create);
    SYM(d, dnnl_stream_create);
    SYM(d, dnnl_stream_wait);
    SYM(d, dnnl_memory_desc_init_by_tag);
    SYM(d, dnnl_memory_desc_get_size);
    SYM(d, dnnl_memory_desc_equal);
    SYM(d, dnnl_memory_create);
    SYM(d, dnnl_memory_get_data_handle);
    SYM(d, dnnl_memory_destroy);
    SYM(d, dnnl_primitive_desc_create);
    SYM(d, dnnl_primitive_desc_query_md);
    SYM(d, dnnl_primitive_desc_query);
    SYM(d, dnnl_primitive_desc_destroy);
    SYM(d, dnnl_primitive_create);
    SYM(d, dnnl_primitive_execute);
    SYM(d, dnnl_primitive_destroy);
    SYM(d, dnnl_reorder_primitive_desc_create);
    SYM(d, dnnl_binary_desc_init);
    SYM(d, dnnl_dilated_convolution_forward_desc_init);
    SYM(d, dnnl_dilated_convolution_backward_data_desc_init);
    SYM(d, dnnl_dilated_convolution_backward_weights_desc_init);
    SYM(d, dnnl_eltwise_forward_desc_init);
    SYM(d, dnnl_eltwise_backward_desc_init);
    SYM(d, dnnl_batch_normalization_forward_desc_init);
    SYM(d, dnnl_batch_normalization_backward_desc_init);
    SYM(d, dnnl_layer_normalization_forward_desc_init);
    SYM(d, dnnl_layer_normalization_backward_desc_init);
    SYM(d, dnnl_softmax_v2_forward_desc_init);
    SYM(d, dnnl_softmax_v2_backward_desc_init);
    SYM(d, dnnl_pooling_v2_forward_desc_init);
    SYM(d, dnnl_pooling_v2_backward_desc_init);
    SYM(d, omp_set_num_threads); // libgomp, which libdnnl links
    SYM(d, omp_get_thread_num);
    SYM(d, omp_get_num_threads);
    SYM(d, omp_get_thread_limit);
    SYM(d, GOMP_parallel); // what gcc's #pragma omp parallel calls: ATen's team is oneDNN's
    lib = blas_file;
    SYM(b, cblas_sgemm);
    SYM(b, openblas_set_num_threads);
    SYM(b, openblas_get_config);
    p_openblas_get_corename = (__typeof__(p_openblas_get_corename))dlsym(b, "openblas_get_corename"); // optional: the kernels OpenBLAS chose (OPENBLAS_CORETYPE overrides)
    p_openblas_get_parallel = (__typeof__(p_openblas_get_parallel))dlsym(b, "openblas_get_parallel"); // optional: 0 sequential, 1 its own pthreads, 2 OpenMP
    mt_seed(&gen, 5489u);
    dnnl_status_t s = p_dnnl_engine_create(&eng, dnnl_cpu, 0);
    if (s == dnnl_success) s = p_dnnl_stream_create(&strm, eng, dnnl_stream_default_flags);
    if (s != dnnl_success) {
        snprintf(err, errlen, "oneDNN: no CPU engine (status %d)", (int)s);
        return -1;
    }
    return 0;
}

const char *wb_dnnl_version(void) { return dnnl_ver; }
const char *wb_blas_config(void) { return p_openblas_get_config(); }
const char *wb_blas_core(void) { return p_openblas_get_corename ? p_openblas_get_corename() : ""; }
int wb_blas_parallel(void) { return p_openblas_get_parallel ? p_openblas_get_parallel() : -1; }

int wb_threads(int n) {
    nthreads = n < 1 ? 1 : n;
    // no more than OpenMP's limit (OMP_THREAD_LIMIT): OpenBLAS's OpenMP
    // build, asked for more threads than a region gets, waits for the
    // missing ones for ever (a linear layer's product hung so)
    int limit = p_omp_get_thread_limit();
    if (limit > 0 && nthreads > limit) nthreads = limit;
    p_openblas_set_num_threads(nthreads);
    p_omp_set_num_threads(nthreads);
    return nthreads;
}

// A step of a pass: a oneDNN primitive with its arguments, a batch of
// sgemms, or a loop.
enum {
    ELT_RELU, ELT_RELU_BWD, ELT_ADD, ELT_SCALE, ELT_AXPY, ELT_COLSUM, ELT_BCAST, ELT_MUL, ELT_GELU, ELT_GELU_BWD, ELT_TANH, ELT_TANH_BWD,
    ELT_LRELU, ELT_LRELU_BWD, ELT_SIGMOID, ELT_SIGMOID_BWD, ELT_SILU, ELT_SILU_BWD
};
enum { STEP_PRIM, STEP_GEMM, STEP_LSTM, STEP_BERNOULLI, STEP_BN, STEP_MAXPOOL, STEP_ELT, STEP_LN, STEP_SM, STEP_GAP };

typedef struct {
    int kind;
    dnnl_primitive_t prim;
    int nargs;
    dnnl_exec_arg_t args[12];
    // STEP_GEMM: count products, each offset by sa, sb, sc.
    int ta, tb, m, n, k, lda, ldb, ldc, count;
    int64_t sa, sb, sc;
    float alpha, beta;
    float *a, *b, *c;
    void *data;  // STEP_LSTM, STEP_BN, STEP_MAXPOOL, STEP_LN, STEP_SM, STEP_GAP: the step's own struct (owned_step)
    int64_t len; // loops (STEP_BERNOULLI, STEP_ELT): values
    int elt;     // STEP_ELT: which (ELT_*), c ← f(a, b[, alpha])
    int team;    // STEP_ELT: the workers its values are split over (range_of)
} step;

#define MAXSTEPS 16
#define MAXLAYERS 8
#define MAXMEM (4 + 9 * MAXLAYERS) /* an LSTM of MAXLAYERS layers: up to 1 + 9 per layer */
#define MAXPD 16

struct wb_op {
    step st[MAXSTEPS];
    int nst;
    dnnl_memory_t mem[MAXMEM];
    int nmem;
    float *raw[MAXMEM];
    int nraw;
    dnnl_primitive_desc_t pd[MAXPD];
    int npd;
    int64_t bytes;
    char impl[512];
    long tid; // the thread that built it: oneDNN sizes its scratchpad per thread
};

static void fail(wb_ctx *c, const char *what, dnnl_status_t s) {
    if (s == dnnl_unimplemented) c->unsup = 1;
    snprintf(c->err, c->errlen, "oneDNN %s: status %d%s", what, (int)s,
             s == dnnl_unimplemented ? " (no implementation)" : "");
}

// FILL_BLOCK is the floats fill draws; the rest of a buffer repeats them.
#define FILL_BLOCK 4099

// fill writes deterministic values: uniform in [lo, lo + 2) from a 64-bit
// LCG seeded by the buffer's number, for the first FILL_BLOCK floats (a
// prime count, so rows and channels of power-of-two sizes do not line up
// with the repeats), then copies of them: the generator's dependent
// multiply held a buffer's filling to about 1 GB/s, which made preparing
// a whole iteration's kernels take seconds (float arithmetic runs no
// faster or slower on repeated values).
static void fill(float *p, int64_t n, uint64_t seed, float lo) {
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    int64_t m = n < FILL_BLOCK ? n : FILL_BLOCK;
    for (int64_t i = 0; i < m; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        p[i] = lo + (float)(x >> 40) * (2.0f / 16777216.0f);
    }
    for (int64_t i = m; i < n; i += m) {
        int64_t k = n - i < m ? n - i : m;
        memcpy(p + i, p, (size_t)k * sizeof(float));
    }
}

static int reserve(wb_ctx *c, wb_op *op, int64_t bytes) {
    if (op->bytes + bytes > c->limit) {
        c->oom = 1;
        snprintf(c->err, c->errlen, "buffers of at least %.4g GB, limit %.4g GB",
                 (double)(op->bytes + bytes) / 1e9, (double)c->limit / 1e9);
        return -1;
    }
    op->bytes += bytes;
    return 0;
}

// mem allocates memory of md in oneDNN and fills it (values from lo).
static dnnl_memory_t mem(wb_ctx *c, wb_op *op, const dnnl_memory_desc_t *md, float lo) {
    if (op->nmem == MAXMEM) {
        snprintf(c->err, c->errlen, "too many buffers");
        return NULL;
    }
    size_t sz = p_dnnl_memory_desc_get_size(md);
    if (!c->dry && reserve(c, op, (int64_t)sz) < 0) return NULL;
    dnnl_memory_t m;
    dnnl_status_t s = p_dnnl_memory_create(&m, md, eng, c->dry ? DNNL_MEMORY_NONE : DNNL_MEMORY_ALLOCATE);
    if (s != dnnl_success) {
        fail(c, "memory", s);
        return NULL;
    }
    op->mem[op->nmem++] = m;
    void *h = NULL;
    p_dnnl_memory_get_data_handle(m, &h);
    if (h && sz) fill((float *)h, (int64_t)(sz / sizeof(float)), (uint64_t)op->nmem, lo);
    return m;
}

// raw allocates a plain float buffer for the BLAS steps.
static float *raw(wb_ctx *c, wb_op *op, int64_t n, float lo) {
    if (op->nraw == MAXMEM) {
        snprintf(c->err, c->errlen, "too many buffers");
        return NULL;
    }
    if (reserve(c, op, n * 4) < 0) return NULL;
    float *p = NULL;
    if (posix_memalign((void **)&p, 64, (size_t)(n > 0 ? n : 1) * 4) != 0) {
        c->oom = 1;
        snprintf(c->err, c->errlen, "cannot allocate %.4g GB", (double)n * 4 / 1e9);
        return NULL;
    }
    op->raw[op->nraw++] = p;
    fill(p, n, (uint64_t)(100 + op->nraw), lo);
    return p;
}

static dnnl_memory_desc_t md_tag(int nd, const int64_t *dims, dnnl_format_tag_t tag) {
    dnnl_memory_desc_t md;
    dnnl_dims_t d;
    for (int i = 0; i < nd; i++) d[i] = dims[i];
    p_dnnl_memory_desc_init_by_tag(&md, nd, d, dnnl_f32, tag);
    return md;
}

static void note_impl(wb_op *op, const char *s) {
    size_t l = strlen(op->impl);
    snprintf(op->impl + l, sizeof op->impl - l, "%s%s", l ? "+" : "", s);
}

// keep stores a primitive descriptor for wb_free; one over MAXPD is
// destroyed and refused.
static int keep(wb_ctx *c, wb_op *op, dnnl_primitive_desc_t pd) {
    if (op->npd == MAXPD) {
        p_dnnl_primitive_desc_destroy(pd);
        snprintf(c->err, c->errlen, "too many primitives");
        return -1;
    }
    op->pd[op->npd++] = pd;
    return 0;
}

// pdesc makes a primitive descriptor and keeps it for free.
static dnnl_primitive_desc_t pdesc(wb_ctx *c, wb_op *op, const void *desc, const_dnnl_primitive_desc_t hint, const char *what) {
    dnnl_primitive_desc_t pd;
    dnnl_status_t s = p_dnnl_primitive_desc_create(&pd, desc, NULL, eng, hint);
    if (s != dnnl_success) {
        fail(c, what, s);
        return NULL;
    }
    return keep(c, op, pd) == 0 ? pd : NULL;
}

static step *add_step(wb_ctx *c, wb_op *op) {
    if (op->nst == MAXSTEPS) {
        snprintf(c->err, c->errlen, "too many steps");
        return NULL;
    }
    step *s = &op->st[op->nst++];
    memset(s, 0, sizeof *s);
    return s;
}

// owned_step adds a step of kind that runs on a zeroed struct of size
// bytes, which the step owns (wb_free frees it); NULL when out of steps
// or memory.
static void *owned_step(wb_ctx *c, wb_op *op, int kind, size_t size) {
    void *data = calloc(1, size);
    step *s = data ? add_step(c, op) : NULL;
    if (!s) {
        free(data);
        return NULL;
    }
    s->kind = kind, s->data = data;
    return data;
}

// prim adds a primitive of pd with its arguments (pairs of arg, memory,
// ending at the first arg of -1: an optional argument goes last, as
// "cond ? ARG : -1, mem").
static int prim(wb_ctx *c, wb_op *op, dnnl_primitive_desc_t pd, ...) {
    const char *impl = NULL;
    if (p_dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl) == dnnl_success && impl) note_impl(op, impl);
    if (c->dry) return 0; // named, nothing created (wb_ctx.dry)
    step *s = add_step(c, op);
    if (!s) return -1;
    s->kind = STEP_PRIM;
    dnnl_status_t st = p_dnnl_primitive_create(&s->prim, pd);
    if (st != dnnl_success) {
        op->nst--;
        fail(c, "primitive", st);
        return -1;
    }
    va_list ap;
    va_start(ap, pd);
    for (;;) {
        int arg = va_arg(ap, int);
        if (arg < 0) break;
        dnnl_memory_t m = va_arg(ap, dnnl_memory_t);
        s->args[s->nargs].arg = arg;
        s->args[s->nargs].memory = m;
        s->nargs++;
    }
    va_end(ap);
    return 0;
}

// reorder adds a reorder of src (in md sm) into dst (in md dm).
static int reorder(wb_ctx *c, wb_op *op, dnnl_memory_t src, const dnnl_memory_desc_t *sm, dnnl_memory_t dst, const dnnl_memory_desc_t *dm) {
    dnnl_primitive_desc_t pd;
    dnnl_status_t s = p_dnnl_reorder_primitive_desc_create(&pd, sm, eng, dm, eng, NULL);
    if (s != dnnl_success) {
        fail(c, "reorder", s);
        return -1;
    }
    if (keep(c, op, pd) < 0) return -1;
    return prim(c, op, pd, DNNL_ARG_FROM, src, DNNL_ARG_TO, dst, -1);
}

// in gives user memory in the layout want, reordering it first where the
// layouts differ (as ideep's reorder_if_differ_in does for PyTorch).
static dnnl_memory_t in(wb_ctx *c, wb_op *op, dnnl_memory_t user, const dnnl_memory_desc_t *um, const dnnl_memory_desc_t *want) {
    if (p_dnnl_memory_desc_equal(um, want)) return user;
    dnnl_memory_t m = mem(c, op, want, -1);
    if (!m || reorder(c, op, user, um, m, want) < 0) return NULL;
    return m;
}

// out gives memory in the layout want for a result that then goes to user
// (the caller adds the reorder after the primitive with out_done).
static dnnl_memory_t out(wb_ctx *c, wb_op *op, dnnl_memory_t user, const dnnl_memory_desc_t *um, const dnnl_memory_desc_t *want) {
    if (p_dnnl_memory_desc_equal(um, want)) return user;
    return mem(c, op, want, -1);
}

static int out_done(wb_ctx *c, wb_op *op, dnnl_memory_t got, const dnnl_memory_desc_t *gm, dnnl_memory_t user, const dnnl_memory_desc_t *um) {
    if (got == user) return 0;
    return reorder(c, op, got, gm, user, um);
}

static wb_op *new_op(void) {
    // OpenMP's thread count is a property of the calling thread, and
    // oneDNN sizes a primitive's threads when it builds it: set it on the
    // building thread too, not only where wb_threads ran (a reviewer's
    // reading: a convolution built elsewhere took libgomp's default)
    p_omp_set_num_threads(nthreads);
    wb_op *op = (wb_op *)calloc(1, sizeof(wb_op));
    if (op) op->tid = syscall(SYS_gettid);
    return op;
}

#define CHECK(x)          \
    do {                  \
        if (!(x)) {       \
            wb_free(op);  \
            return NULL;  \
        }                 \
    } while (0)

wb_op *wb_conv(wb_ctx *c, int pass, int n, int ic, int ih, int iw, int oc, int kh, int kw,
               int sh, int sw, int ph, int pw, int dh, int dw, int groups, int bias) {
    wb_op *op = new_op();
    int64_t oh = (ih + 2 * ph - dh * (kh - 1) - 1) / sh + 1, ow = (iw + 2 * pw - dw * (kw - 1) - 1) / sw + 1;
    int64_t sd[4] = {n, ic, ih, iw}, dd[4] = {n, oc, oh, ow}, bd[1] = {oc};
    int64_t wd[5] = {groups, oc / groups, ic / groups, kh, kw};
    int wn = groups > 1 ? 5 : 4;
    const int64_t *wdp = groups > 1 ? wd : wd + 1;
    dnnl_format_tag_t wt = groups > 1 ? dnnl_goihw : dnnl_oihw;
    dnnl_memory_desc_t usrc = md_tag(4, sd, dnnl_nchw), udst = md_tag(4, dd, dnnl_nchw), uwei = md_tag(wn, wdp, wt),
                       ubias = md_tag(1, bd, dnnl_a);
    dnnl_memory_desc_t asrc = md_tag(4, sd, dnnl_format_tag_any), adst = md_tag(4, dd, dnnl_format_tag_any),
                       awei = md_tag(wn, wdp, dnnl_format_tag_any);
    dnnl_dims_t strides = {sh, sw}, dil = {dh - 1, dw - 1}, pl = {ph, pw};
    dnnl_dims_t pr = {(oh - 1) * sh + (int64_t)(kh - 1) * dh + 1 - ih - ph, (ow - 1) * sw + (int64_t)(kw - 1) * dw + 1 - iw - pw};
    dnnl_convolution_desc_t fd;
    dnnl_status_t s = p_dnnl_dilated_convolution_forward_desc_init(&fd, dnnl_forward_training, dnnl_convolution_direct,
                                                                   &asrc, &awei, bias ? &ubias : NULL, &adst, strides, dil, pl, pr);
    if (s != dnnl_success) {
        fail(c, "convolution", s);
        CHECK(0);
    }
    dnnl_primitive_desc_t fpd = pdesc(c, op, &fd, NULL, "convolution forward");
    CHECK(fpd);
    if (pass == WB_FORWARD) {
        const dnnl_memory_desc_t *ps = p_dnnl_primitive_desc_query_md(fpd, dnnl_query_src_md, 0),
                                 *pwm = p_dnnl_primitive_desc_query_md(fpd, dnnl_query_weights_md, 0),
                                 *pdm = p_dnnl_primitive_desc_query_md(fpd, dnnl_query_dst_md, 0);
        dnnl_memory_t src = mem(c, op, &usrc, -1), wei, b = NULL, dst, s2, w2, d2;
        CHECK(src);
        CHECK(wei = mem(c, op, &uwei, -1));
        if (bias) CHECK(b = mem(c, op, &ubias, -1));
        CHECK(dst = mem(c, op, &udst, -1));
        CHECK(s2 = in(c, op, src, &usrc, ps));
        CHECK(w2 = in(c, op, wei, &uwei, pwm));
        CHECK(d2 = out(c, op, dst, &udst, pdm));
        CHECK(prim(c, op, fpd, DNNL_ARG_SRC, s2, DNNL_ARG_WEIGHTS, w2, DNNL_ARG_DST, d2, bias ? DNNL_ARG_BIAS : -1, b, -1) == 0);
        CHECK(out_done(c, op, d2, pdm, dst, &udst) == 0);
        return op;
    }
    if (pass == WB_BACKWARD_DATA) {
        dnnl_convolution_desc_t bd_;
        s = p_dnnl_dilated_convolution_backward_data_desc_init(&bd_, dnnl_convolution_direct, &asrc, &awei, &adst, strides, dil, pl, pr);
        if (s != dnnl_success) {
            fail(c, "convolution backward data", s);
            CHECK(0);
        }
        dnnl_primitive_desc_t bpd = pdesc(c, op, &bd_, fpd, "convolution backward data");
        CHECK(bpd);
        const dnnl_memory_desc_t *pds = p_dnnl_primitive_desc_query_md(bpd, dnnl_query_diff_src_md, 0),
                                 *pwm = p_dnnl_primitive_desc_query_md(bpd, dnnl_query_weights_md, 0),
                                 *pdd = p_dnnl_primitive_desc_query_md(bpd, dnnl_query_diff_dst_md, 0);
        dnnl_memory_t ddst, wei, dsrc, dd2, w2, ds2;
        CHECK(ddst = mem(c, op, &udst, -1));
        CHECK(wei = mem(c, op, &uwei, -1));
        CHECK(dsrc = mem(c, op, &usrc, -1));
        CHECK(dd2 = in(c, op, ddst, &udst, pdd));
        CHECK(w2 = in(c, op, wei, &uwei, pwm));
        CHECK(ds2 = out(c, op, dsrc, &usrc, pds));
        CHECK(prim(c, op, bpd, DNNL_ARG_DIFF_DST, dd2, DNNL_ARG_WEIGHTS, w2, DNNL_ARG_DIFF_SRC, ds2, -1) == 0);
        CHECK(out_done(c, op, ds2, pds, dsrc, &usrc) == 0);
        return op;
    }
    dnnl_convolution_desc_t wd_;
    s = p_dnnl_dilated_convolution_backward_weights_desc_init(&wd_, dnnl_convolution_direct, &asrc, &awei, bias ? &ubias : NULL, &adst,
                                                              strides, dil, pl, pr);
    if (s != dnnl_success) {
        fail(c, "convolution backward weights", s);
        CHECK(0);
    }
    dnnl_primitive_desc_t wpd = pdesc(c, op, &wd_, fpd, "convolution backward weights");
    CHECK(wpd);
    const dnnl_memory_desc_t *ps = p_dnnl_primitive_desc_query_md(wpd, dnnl_query_src_md, 0),
                             *pdw = p_dnnl_primitive_desc_query_md(wpd, dnnl_query_diff_weights_md, 0),
                             *pdd = p_dnnl_primitive_desc_query_md(wpd, dnnl_query_diff_dst_md, 0);
    dnnl_memory_t src, ddst, dwei, db = NULL, s2, dd2, dw2;
    CHECK(src = mem(c, op, &usrc, -1));
    CHECK(ddst = mem(c, op, &udst, -1));
    CHECK(dwei = mem(c, op, &uwei, -1));
    if (bias) CHECK(db = mem(c, op, &ubias, -1));
    CHECK(s2 = in(c, op, src, &usrc, ps));
    CHECK(dd2 = in(c, op, ddst, &udst, pdd));
    CHECK(dw2 = out(c, op, dwei, &uwei, pdw));
    CHECK(prim(c, op, wpd, DNNL_ARG_SRC, s2, DNNL_ARG_DIFF_DST, dd2, DNNL_ARG_DIFF_WEIGHTS, dw2, bias ? DNNL_ARG_DIFF_BIAS : -1, db, -1) == 0);
    CHECK(out_done(c, op, dw2, pdw, dwei, &uwei) == 0);
    return op;
}

// elt adds an elementwise step dst ← f(a, b, alpha) over n values (for
// ELT_COLSUM, n columns), into a new buffer where dst is NULL; it returns
// the step, or NULL.
static step *elt(wb_ctx *c, wb_op *op, int kind, int64_t n, float *a, float *b, float *dst, float alpha) {
    step *s = add_step(c, op);
    if (!s) return NULL;
    s->kind = STEP_ELT, s->elt = kind, s->len = n, s->a = a, s->b = b, s->alpha = alpha;
    s->c = dst ? dst : raw(c, op, n, -1);
    return s->c ? s : NULL;
}

wb_op *wb_eltwise(wb_ctx *c, int pass, int alg, float alpha, int64_t elems) {
    wb_op *op = new_op();
    if (alg == 0 && alpha == 0) { // relu: ATen's own kernel, not oneDNN's
        float *x;
        CHECK(x = raw(c, op, elems, -1));
        if (pass == WB_FORWARD) {
            CHECK(elt(c, op, ELT_RELU, elems, x, NULL, NULL, 0));
        } else {
            float *dy;
            CHECK(dy = raw(c, op, elems, -1));
            CHECK(elt(c, op, ELT_RELU_BWD, elems, x, dy, NULL, 0));
        }
        note_impl(op, "relu as ATen's, in C on the OpenMP team");
        return op;
    }
    // the others as ATen's own kernels too: leaky relu (alg 0 with a
    // slope), gelu (tanh), tanh, sigmoid, silu
    static const int fwd[] = {ELT_LRELU, ELT_GELU, ELT_TANH, ELT_SIGMOID, ELT_SILU};
    static const int bwd[] = {ELT_LRELU_BWD, ELT_GELU_BWD, ELT_TANH_BWD, ELT_SIGMOID_BWD, ELT_SILU_BWD};
    static const char *names[] = {"leaky relu", "gelu (tanh)", "tanh", "sigmoid", "silu"};
    if (alg >= 0 && alg <= 4) {
        char note[96];
        float *x;
        CHECK(x = raw(c, op, elems, -1));
        float slope = alg == 0 ? alpha : 0;
        if (pass == WB_FORWARD) {
            CHECK(elt(c, op, fwd[alg], elems, x, NULL, NULL, slope));
        } else {
            float *dy;
            CHECK(dy = raw(c, op, elems, -1));
            CHECK(elt(c, op, bwd[alg], elems, x, dy, NULL, slope));
        }
        snprintf(note, sizeof note, "%s as ATen's, in C on the OpenMP team", names[alg]);
        note_impl(op, note);
        return op;
    }
    snprintf(c->err, c->errlen, "unknown activation %d", alg);
    c->unsup = 1;
    CHECK(0);
    return op;
}

wb_op *wb_bnorm(wb_ctx *c, int pass, int n, int ch, int64_t spatial) {
    wb_op *op = new_op();
    struct bn *s;
    CHECK(s = (struct bn *)owned_step(c, op, STEP_BN, sizeof *s));
    s->pass = pass, s->n = n, s->c = ch, s->hw = spatial;
    int64_t all = (int64_t)n * ch * spatial;
    CHECK(s->x = raw(c, op, all, -1));
    CHECK(s->w = raw(c, op, ch, -1));
    CHECK(s->mean = raw(c, op, ch, -1));
    CHECK(s->invstd = raw(c, op, ch, 0.5f));
    if (pass == WB_FORWARD) {
        CHECK(s->b = raw(c, op, ch, -1));
        CHECK(s->y = raw(c, op, all, -1));
    } else {
        CHECK(s->dy = raw(c, op, all, -1));
        CHECK(s->dx = raw(c, op, all, -1));
        CHECK(s->dw = raw(c, op, ch, -1));
        CHECK(s->db = raw(c, op, ch, -1));
    }
    note_impl(op, "batch norm as ATen's, in C on the OpenMP team");
    return op;
}

// struct ln is a layer norm's forward as ATen's LayerNormKernelImpl runs
// it (PyTorch 1.13 calls oneDNN for none of it): rows shared by the
// OpenMP team, each row's mean and variance by RowwiseMoments (Welford's
// update on vectors of 8, chunks of 16 vectors merged in a cascade), then
// y = (x·rstd − rstd·mean)·γ + β.
struct ln {
    int pass;
    int64_t rows;
    int cols;
    float *x, *g, *b, *y, *mean, *rstd;
    // backward: the output's gradient, the input's, γ's and β's, and
    // each thread's partial sums of the last two (ATen's buffer)
    float *dy, *dx, *dg, *db, *buf;
    int nbuf; // threads the buffer has room for (the pool's when built)
    int team, cteam; // the workers the rows, and the columns summed, are split over (range_of)
};

wb_op *wb_lnorm(wb_ctx *c, int pass, int64_t rows, int cols) {
    wb_op *op = new_op();
    struct ln *l;
    CHECK(l = (struct ln *)owned_step(c, op, STEP_LN, sizeof *l));
    l->pass = pass, l->rows = rows, l->cols = cols;
    CHECK(l->x = raw(c, op, rows * cols, -1));
    CHECK(l->g = raw(c, op, cols, -1));
    CHECK(l->mean = raw(c, op, rows, -1));
    CHECK(l->rstd = raw(c, op, rows, 0.5f));
    if (pass == WB_FORWARD) {
        CHECK(l->y = raw(c, op, rows * cols, -1));
        CHECK(l->b = raw(c, op, cols, -1));
    } else {
        CHECK(l->dy = raw(c, op, rows * cols, -1));
        CHECK(l->dx = raw(c, op, rows * cols, -1));
        CHECK(l->dg = raw(c, op, cols, -1));
        CHECK(l->db = raw(c, op, cols, -1));
        l->nbuf = nthreads;
        CHECK(l->buf = raw(c, op, 2 * (int64_t)l->nbuf * cols, 0));
    }
    note_impl(op, "layer norm as ATen's, in C on the OpenMP team");
    return op;
}

// scaled adds y ← scale·x as a oneDNN eltwise (linear) primitive.
static int scaled(wb_ctx *c, wb_op *op, dnnl_memory_desc_t *md, dnnl_memory_t x, dnnl_memory_t y, float scale) {
    dnnl_eltwise_desc_t ed;
    dnnl_status_t s = p_dnnl_eltwise_forward_desc_init(&ed, dnnl_forward_inference, dnnl_eltwise_linear, md, scale, 0);
    if (s != dnnl_success) {
        fail(c, "eltwise linear", s);
        return -1;
    }
    dnnl_primitive_desc_t pd = pdesc(c, op, &ed, NULL, "eltwise linear");
    if (!pd) return -1;
    return prim(c, op, pd, DNNL_ARG_SRC, x, DNNL_ARG_DST, y, -1);
}

// struct sm is a softmax over the last dimension as ATen's
// _vec_softmax_lastdim and _vec_host_softmax_backward_lastdim run it
// (PyTorch 1.13 calls oneDNN for neither): per row the maximum, exp(x −
// max) with Sleef's expf (u10) and their sum, then a product by 1/sum;
// backward Σdy·y, then dx = (dy − Σ)·y. Rows shared by the OpenMP team.
struct sm {
    int pass;
    int64_t rows;
    int cols;
    float *x, *y, *dy, *dx;
    int team; // the workers the rows are split over (range_of)
};

// sm_handle is the data of a oneDNN memory (the softmax's step reads the
// scale's and the mask's output in place).
static float *sm_handle(dnnl_memory_t m) {
    void *h = NULL;
    p_dnnl_memory_get_data_handle(m, &h);
    return (float *)h;
}

// sm_step adds the softmax's own step over the memories given.
static struct sm *sm_step(wb_ctx *c, wb_op *op, int pass, int64_t rows, int cols) {
    struct sm *m = (struct sm *)owned_step(c, op, STEP_SM, sizeof *m);
    if (m) m->pass = pass, m->rows = rows, m->cols = cols;
    return m;
}

wb_op *wb_softmax(wb_ctx *c, int pass, int64_t blocks, int rows, int cols, float scale, int causal) {
    wb_op *op = new_op();
    int64_t d[3] = {blocks, rows, cols}, mdims[3] = {1, rows, cols};
    dnnl_memory_desc_t md = md_tag(3, d, dnnl_abc), mm = md_tag(3, mdims, dnnl_abc);
    dnnl_status_t s;
    note_impl(op, "softmax as ATen's, in C on the OpenMP team");
    if (pass == WB_FORWARD) {
        dnnl_memory_t x, y, t = NULL;
        CHECK(x = mem(c, op, &md, -1));
        CHECK(y = mem(c, op, &md, -1));
        dnnl_memory_t cur = x;
        if (scale != 1) {
            CHECK(t = mem(c, op, &md, -1));
            CHECK(scaled(c, op, &md, cur, t, scale) == 0);
            cur = t;
        }
        if (causal) {
            dnnl_memory_t mask, t2;
            CHECK(mask = mem(c, op, &mm, 0));
            void *h = NULL;
            p_dnnl_memory_get_data_handle(mask, &h);
            float *mp = (float *)h;
            for (int i = 0; i < rows; i++)
                for (int j = 0; j < cols; j++) mp[(int64_t)i * cols + j] = j > i ? -1e4f : 0;
            CHECK(t2 = mem(c, op, &md, -1));
            dnnl_binary_desc_t bd;
            s = p_dnnl_binary_desc_init(&bd, dnnl_binary_add, &md, &mm, &md);
            if (s != dnnl_success) {
                fail(c, "binary add", s);
                CHECK(0);
            }
            dnnl_primitive_desc_t bpd = pdesc(c, op, &bd, NULL, "binary add");
            CHECK(bpd);
            CHECK(prim(c, op, bpd, DNNL_ARG_SRC_0, cur, DNNL_ARG_SRC_1, mask, DNNL_ARG_DST, t2, -1) == 0);
            cur = t2;
        }
        struct sm *m;
        CHECK(m = sm_step(c, op, pass, blocks * rows, cols));
        m->x = sm_handle(cur), m->y = sm_handle(y);
        return op;
    }
    dnnl_memory_t y, dy, dx;
    CHECK(y = mem(c, op, &md, 0));
    CHECK(dy = mem(c, op, &md, -1));
    CHECK(dx = mem(c, op, &md, -1));
    struct sm *m;
    CHECK(m = sm_step(c, op, pass, blocks * rows, cols));
    m->y = sm_handle(y), m->dy = sm_handle(dy), m->dx = sm_handle(dx);
    if (scale != 1) {
        dnnl_memory_t dxs;
        CHECK(dxs = mem(c, op, &md, -1));
        CHECK(scaled(c, op, &md, dx, dxs, scale) == 0);
    }
    return op;
}

static void mp_run(struct mp *s, int pass);

// maxpool is max pooling as PyTorch 1.13 runs it for a tensor that needs
// a gradient (max_pool2d_with_indices; aten/src/ATen/native/cpu/
// MaxPoolKernel.cpp, cpu_max_pool and cpu_max_pool_backward on contiguous
// NCHW): not oneDNN's pooling, which ATen uses only for mkldnn tensors.
static wb_op *maxpool(wb_ctx *c, int pass, int n, int ch, int ih, int iw, int kh, int kw, int sh, int sw, int ph, int pw) {
    wb_op *op = new_op();
    struct mp *s;
    CHECK(s = (struct mp *)owned_step(c, op, STEP_MAXPOOL, sizeof *s));
    s->pass = pass, s->planes = (int64_t)n * ch, s->ih = ih, s->iw = iw, s->kh = kh, s->kw = kw;
    s->sh = sh, s->sw = sw, s->ph = ph, s->pw = pw;
    s->oh = (ih + 2 * ph - kh) / sh + 1, s->ow = (iw + 2 * pw - kw) / sw + 1;
    int64_t in = s->planes * ih * iw, out = s->planes * s->oh * s->ow;
    CHECK(s->x = raw(c, op, in, -1));
    CHECK(s->idx = (int64_t *)raw(c, op, 2 * out, 0)); // int64 indices in 2 floats each
    if (pass == WB_FORWARD) {
        CHECK(s->y = raw(c, op, out, -1));
    } else {
        CHECK(s->dy = raw(c, op, out, -1));
        CHECK(s->dx = raw(c, op, in, -1));
        CHECK(s->y = raw(c, op, out, -1));
        mp_run(s, WB_FORWARD); // the indices the backward scatters by (not timed)
    }
    note_impl(op, "max pooling as ATen's, in C on the OpenMP team");
    return op;
}

// gap is global average pooling's forward as PyTorch 1.13 runs
// nn.AdaptiveAvgPool2d to 1×1 (adaptive_avg_pool2d: input.mean({-1, -2},
// keepdim), which mean_out runs as sum_out then div_; aten/src/ATen/native/
// AdaptiveAveragePooling.cpp, ReduceOps.cpp): each plane's sum, over the
// OpenMP team when the input reaches ATen's grain (the reduction's
// foreach_reduced_elt splits the planes, grain 1), then the sums divided
// by H·W, a TensorIterator op under the same rule. Not oneDNN's pooling,
// which ATen uses only for mkldnn tensors. (Its backward, mean_backward's
// grad.expand(input) / (H·W), is a broadcast division whose TensorIterator
// loops over rows of H·W values: a fill of each plane in C took 0.19×
// PyTorch's time on resnet50's 2048×7×7, oneDNN's pooling backward 0.76×,
// which wb_pool runs.)
static wb_op *gap(wb_ctx *c, int pass, int n, int ch, int ih, int iw) {
    wb_op *op = new_op();
    if (pass != WB_FORWARD) {
        snprintf(c->err, c->errlen, "global average pooling as ATen's mean: forward alone, pass %d", pass);
        c->unsup = 1;
        CHECK(0);
    }
    struct gap *s;
    CHECK(s = (struct gap *)owned_step(c, op, STEP_GAP, sizeof *s));
    s->pass = pass, s->planes = (int64_t)n * ch, s->hw = (int64_t)ih * iw;
    CHECK(s->x = raw(c, op, s->planes * s->hw, -1));
    CHECK(s->y = raw(c, op, s->planes, -1));
    note_impl(op, "global average pooling as ATen's mean, in C on the OpenMP team");
    return op;
}

wb_op *wb_pool(wb_ctx *c, int pass, int alg, int n, int ch, int ih, int iw, int kh, int kw,
               int sh, int sw, int ph, int pw) {
    if (alg == 0) return maxpool(c, pass, n, ch, ih, iw, kh, kw, sh, sw, ph, pw);
    if (alg == 2) return gap(c, pass, n, ch, ih, iw);
    wb_op *op = new_op();
    int64_t oh = (ih + 2 * ph - kh) / sh + 1, ow = (iw + 2 * pw - kw) / sw + 1;
    int64_t sd[4] = {n, ch, ih, iw}, dd[4] = {n, ch, oh, ow};
    dnnl_memory_desc_t sm = md_tag(4, sd, dnnl_nchw), dm = md_tag(4, dd, dnnl_nchw);
    dnnl_dims_t strides = {sh, sw}, kern = {kh, kw}, dil = {0, 0}, pl = {ph, pw};
    dnnl_dims_t pr = {(oh - 1) * sh + kh - ih - ph, (ow - 1) * sw + kw - iw - pw};
    dnnl_alg_kind_t a = alg == 0 ? dnnl_pooling_max : dnnl_pooling_avg_include_padding;
    dnnl_pooling_v2_desc_t fd;
    dnnl_status_t s = p_dnnl_pooling_v2_forward_desc_init(&fd, dnnl_forward_training, a, &sm, &dm, strides, kern, dil, pl, pr);
    if (s != dnnl_success) {
        fail(c, "pooling", s);
        CHECK(0);
    }
    dnnl_primitive_desc_t fpd = pdesc(c, op, &fd, NULL, "pooling forward");
    CHECK(fpd);
    const dnnl_memory_desc_t *wsm = p_dnnl_primitive_desc_query_md(fpd, dnnl_query_workspace_md, 0);
    int ws = wsm && p_dnnl_memory_desc_get_size(wsm) > 0;
    dnnl_memory_t src, dst, w = NULL;
    CHECK(src = mem(c, op, &sm, -1));
    CHECK(dst = mem(c, op, &dm, -1));
    if (ws) CHECK(w = mem(c, op, wsm, 0));
    CHECK(prim(c, op, fpd, DNNL_ARG_SRC, src, DNNL_ARG_DST, dst, ws ? DNNL_ARG_WORKSPACE : -1, w, -1) == 0);
    if (pass == WB_FORWARD) return op;
    // backward: run the forward once for max pooling's workspace, then
    // time only the backward
    if (ws) {
        p_dnnl_primitive_execute(op->st[0].prim, strm, op->st[0].nargs, op->st[0].args);
        p_dnnl_stream_wait(strm);
    }
    p_dnnl_primitive_destroy(op->st[0].prim);
    op->nst = 0;
    op->impl[0] = 0;
    dnnl_pooling_v2_desc_t bd;
    s = p_dnnl_pooling_v2_backward_desc_init(&bd, a, &sm, &dm, strides, kern, dil, pl, pr);
    if (s != dnnl_success) {
        fail(c, "pooling backward", s);
        CHECK(0);
    }
    dnnl_primitive_desc_t bpd = pdesc(c, op, &bd, fpd, "pooling backward");
    CHECK(bpd);
    dnnl_memory_t dy, dx;
    CHECK(dy = mem(c, op, &dm, -1));
    CHECK(dx = mem(c, op, &sm, -1));
    CHECK(prim(c, op, bpd, DNNL_ARG_DIFF_DST, dy, DNNL_ARG_DIFF_SRC, dx, ws ? DNNL_ARG_WORKSPACE : -1, w, -1) == 0);
    return op;
}

wb_op *wb_add(wb_ctx *c, int pass, int inputs, int64_t elems) {
    wb_op *op = new_op();
    if (pass != WB_FORWARD || inputs < 2 || inputs > 8) {
        snprintf(c->err, c->errlen, "add of %d inputs, pass %d", inputs, pass);
        c->unsup = 1;
        CHECK(0);
    }
    // as PyTorch's a + b + c: ATen's add once per input after the first,
    // each into a new tensor
    float *acc;
    CHECK(acc = raw(c, op, elems, -1));
    for (int i = 1; i < inputs; i++) {
        float *x;
        CHECK(x = raw(c, op, elems, -1));
        step *st;
        CHECK(st = elt(c, op, ELT_ADD, elems, acc, x, NULL, 0));
        acc = st->c;
    }
    note_impl(op, "add as ATen's, in C on the OpenMP team");
    return op;
}

static int gemm(wb_ctx *c, wb_op *op, int ta, int tb, int m, int n, int k, float *a, int lda, float *b, int ldb,
                float beta, float *cc, int ldc, int count, int64_t sa, int64_t sb, int64_t sc) {
    step *s = add_step(c, op);
    if (!s) return -1;
    s->kind = STEP_GEMM;
    s->ta = ta, s->tb = tb, s->m = m, s->n = n, s->k = k;
    s->a = a, s->b = b, s->c = cc, s->lda = lda, s->ldb = ldb, s->ldc = ldc;
    s->alpha = 1, s->beta = beta, s->count = count, s->sa = sa, s->sb = sb, s->sc = sc;
    if (!strstr(op->impl, "openblas sgemm")) note_impl(op, "openblas sgemm");
    return 0;
}

wb_op *wb_linear(wb_ctx *c, int pass, int64_t rows, int k, int n, int bias) {
    wb_op *op = new_op();
    if (rows > 2147483647) {
        snprintf(c->err, c->errlen, "%lld rows: more than BLAS's int", (long long)rows);
        c->oom = 1;
        CHECK(0);
    }
    int r = (int)rows;
    if (pass == WB_FORWARD) {
        // y = x·Wᵀ + b as addmm runs it: b copied into every row of y
        // (result.copy_(self), a TensorIterator copy: on the calling thread
        // under ATen's grain of 32,768 values, else shared by the OpenMP
        // team, whose threads then spin for a while and meet OpenBLAS's, as
        // in PyTorch), then one sgemm with beta 1.
        float *x, *w, *y;
        CHECK(x = raw(c, op, rows * k, -1));
        CHECK(w = raw(c, op, (int64_t)n * k, -1));
        CHECK(y = raw(c, op, rows * n, -1));
        if (bias) {
            float *b;
            step *st;
            CHECK(b = raw(c, op, n, -1));
            CHECK(st = elt(c, op, ELT_BCAST, rows * n, b, NULL, y, 0));
            st->m = n;
            note_impl(op, "bias copy as ATen's");
        }
        CHECK(gemm(c, op, 0, 1, r, n, k, x, k, w, k, bias ? 1 : 0, y, n, 1, 0, 0, 0) == 0);
        return op;
    }
    if (pass == WB_BACKWARD_DATA) { // dx = dy·W
        float *dy, *w, *dx;
        CHECK(dy = raw(c, op, rows * n, -1));
        CHECK(w = raw(c, op, (int64_t)n * k, -1));
        CHECK(dx = raw(c, op, rows * k, -1));
        CHECK(gemm(c, op, 0, 0, r, k, n, dy, n, w, k, 0, dx, k, 1, 0, 0, 0) == 0);
        return op;
    }
    // dW = dyᵀ·x (sgemm), then db = Σ rows dy as PyTorch's sum(0): ATen's
    // reduction over the outer dimension, the columns shared by the team
    float *dy, *x, *dw;
    CHECK(dy = raw(c, op, rows * n, -1));
    CHECK(x = raw(c, op, rows * k, -1));
    CHECK(dw = raw(c, op, (int64_t)n * k, -1));
    CHECK(gemm(c, op, 1, 0, n, k, r, dy, n, x, k, 0, dw, k, 1, 0, 0, 0) == 0);
    if (bias) { // even of one row: PyTorch's AddmmBackward0 sums it all the same
        step *st;
        CHECK(st = elt(c, op, ELT_COLSUM, n, dy, NULL, NULL, 0));
        st->m = r;
        note_impl(op, "bias sum as ATen's");
    }
    return op;
}

wb_op *wb_matmul(wb_ctx *c, int pass, int g, int m, int n, int k, int transb) {
    wb_op *op = new_op();
    int64_t sa = (int64_t)m * k, sb = (int64_t)k * n, sy = (int64_t)m * n;
    float *a, *b, *y;
    CHECK(a = raw(c, op, g * sa, -1));
    CHECK(b = raw(c, op, g * sb, -1));
    CHECK(y = raw(c, op, g * sy, -1));
    int ldb = transb ? k : n;
    if (pass == WB_FORWARD) {
        CHECK(gemm(c, op, 0, transb, m, n, k, a, k, b, ldb, 0, y, n, g, sa, sb, sy) == 0);
        return op;
    }
    // backward: both inputs' gradients from dy (y's buffer)
    float *da, *db;
    CHECK(da = raw(c, op, g * sa, -1));
    CHECK(db = raw(c, op, g * sb, -1));
    if (!transb) {
        CHECK(gemm(c, op, 0, 1, m, k, n, y, n, b, n, 0, da, k, g, sy, sb, sa) == 0); // da = dy·bᵀ
        CHECK(gemm(c, op, 1, 0, k, n, m, a, k, y, n, 0, db, n, g, sa, sy, sb) == 0); // db = aᵀ·dy
    } else {
        CHECK(gemm(c, op, 0, 0, m, k, n, y, n, b, k, 0, da, k, g, sy, sb, sa) == 0); // da = dy·b
        CHECK(gemm(c, op, 1, 0, n, k, m, y, n, a, k, 0, db, k, g, sy, sa, sb) == 0); // db = dyᵀ·a
    }
    return op;
}

wb_op *wb_dropout(wb_ctx *c, int pass, int64_t elems, float p) {
    wb_op *op = new_op();
    float *x, *noise, *y;
    CHECK(x = raw(c, op, elems, -1));
    CHECK(noise = raw(c, op, elems, 0));
    CHECK(y = raw(c, op, elems, -1));
    if (pass == WB_FORWARD) {
        // as PyTorch 1.13's CPU dropout: noise = empty_like(x).bernoulli_(1 - p);
        // noise.div_(1 - p); y = x * noise
        step *st = add_step(c, op);
        CHECK(st);
        st->kind = STEP_BERNOULLI, st->c = noise, st->len = elems, st->alpha = 1 - p;
        // noise.div_(1 - p): ATen's kernel, as a product by the reciprocal
        CHECK(elt(c, op, ELT_SCALE, elems, NULL, NULL, noise, 1 / (1 - p)));
    }
    // forward: y = x · noise; backward data: dx = dy · noise; ATen's mul,
    // on the OpenMP team above its grain
    CHECK(elt(c, op, ELT_MUL, elems, x, noise, y, 0));
    note_impl(op, pass == WB_FORWARD ? "mt19937 bernoulli, then div and mul as ATen's, in C on the OpenMP team" : "mul as ATen's, in C on the OpenMP team");
    return op;
}

// wb_update is torch.optim.SGD(momentum=0.9) on the CPU as PyTorch 1.13
// runs it (foreach off): buf.mul_(0.9); buf.add_(grad); param.add_(buf,
// alpha=-lr), three ATen kernels, each on the calling thread under ATen's
// grain and on the OpenMP team above it.
wb_op *wb_update(wb_ctx *c, int64_t params) {
    wb_op *op = new_op();
    float *w, *v, *g;
    CHECK(w = raw(c, op, params, -1));
    CHECK(v = raw(c, op, params, -1));
    CHECK(g = raw(c, op, params, -1));
    CHECK(elt(c, op, ELT_SCALE, params, v, NULL, v, 0.9f));
    CHECK(elt(c, op, ELT_ADD, params, v, g, v, 0));
    CHECK(elt(c, op, ELT_AXPY, params, w, v, w, -1e-3f));
    note_impl(op, "sgd as ATen's three kernels, in C on the OpenMP team");
    return op;
}

// An LSTM stack as PyTorch's CPU implementation computes it (torch.nn.LSTM
// without cuDNN or oneDNN): per layer one product of the whole sequence's
// inputs with W_ih, then per step the recurrent product with W_hh and the
// cell; backward data per step the cell's backward and the product with
// W_hh, then the inputs' gradient in one product; backward weights as
// autograd computes them through ATen's FullLayer, which applies linear_ih
// to the whole sequence at once and linear_hh once a step: W_ih's gradient
// one product and b_ih's one sum over the sequence, W_hh's and b_hh's a
// product and a sum a step, from the last step back, each added into the
// gradient so far (autograd's InputBuffer keeps the first and adds the
// others in place, an ATen add). Weights as PyTorch stores them:
// W_ih [4H, in], W_hh [4H, H]; gates i, f, g, o; time-major [T, B, ·].
struct lstm {
    int pass, t, b, d, h, layers;
    float *x, *dy;        // the input [T, B, D]; the top layer's output gradient
    float *dh, *dc, *tmp; // [B, H] carried gradients; [B, 4H] scratch
    struct {
        int in;
        float *wih, *whh, *bias, *h0, *c0;
        float *gates, *c, *hs;  // [T, B, 4H] activations, [T, B, H] cells and outputs
        float *dg, *dx;         // [T, B, 4H] pre-activation gradients; [T, B, in]
        float *dwih, *dwhh, *db, *hprev; // weight gradients (db: b_ih's); [T, B, H] previous hidden states
        float *dbhh, *wtmp, *btmp;       // b_hh's gradient; one step's W_hh and b_hh gradients
    } l[MAXLAYERS];
};

// sum_rows sets dst to the column sums of src's rows × cols values (a
// bias's gradient: the gates' gradient summed over its rows).
static void sum_rows(float *dst, const float *src, int64_t rows, int cols) {
    memset(dst, 0, (size_t)cols * 4);
    for (int64_t r = 0; r < rows; r++)
        for (int j = 0; j < cols; j++) dst[j] += src[r * cols + j];
}

// add_into is ATen's dst.add_(src) over n values (TensorIterator's rule:
// the OpenMP team above the grain).
static void elt_run(step *s);
static void add_into(float *dst, float *src, int64_t n) {
    step a = {0};
    a.kind = STEP_ELT, a.elt = ELT_ADD, a.len = n, a.a = dst, a.b = src, a.c = dst;
    elt_run(&a);
}

static float sigm(float x) { return 1.0f / (1.0f + expf(-x)); }

static void lstm_run(struct lstm *s) {
    int T = s->t, B = s->b, H = s->h, G = 4 * s->h;
    int64_t rows = (int64_t)T * B;
    if (s->pass == WB_FORWARD) {
        for (int li = 0; li < s->layers; li++) {
            float *in = li == 0 ? s->x : s->l[li - 1].hs;
            int D = s->l[li].in;
            float *gates = s->l[li].gates;
            for (int64_t r = 0; r < rows; r++) memcpy(gates + r * G, s->l[li].bias, (size_t)G * 4);
            p_cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)rows, G, D, 1, in, D, s->l[li].wih, D, 1, gates, G);
            for (int t = 0; t < T; t++) {
                const float *hp = t == 0 ? s->l[li].h0 : s->l[li].hs + (int64_t)(t - 1) * B * H;
                const float *cp = t == 0 ? s->l[li].c0 : s->l[li].c + (int64_t)(t - 1) * B * H;
                float *gt = gates + (int64_t)t * B * G, *ct = s->l[li].c + (int64_t)t * B * H, *ht = s->l[li].hs + (int64_t)t * B * H;
                p_cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, B, G, H, 1, hp, H, s->l[li].whh, H, 1, gt, G);
                for (int b = 0; b < B; b++) {
                    float *g = gt + (int64_t)b * G;
                    for (int j = 0; j < H; j++) {
                        float i = sigm(g[j]), f = sigm(g[H + j]), gg = tanhf(g[2 * H + j]), o = sigm(g[3 * H + j]);
                        float c = f * cp[(int64_t)b * H + j] + i * gg;
                        g[j] = i, g[H + j] = f, g[2 * H + j] = gg, g[3 * H + j] = o;
                        ct[(int64_t)b * H + j] = c;
                        ht[(int64_t)b * H + j] = o * tanhf(c);
                    }
                }
            }
        }
        return;
    }
    if (s->pass == WB_BACKWARD_DATA) {
        for (int li = s->layers - 1; li >= 0; li--) {
            float *dy = li == s->layers - 1 ? s->dy : s->l[li + 1].dx;
            float *gates = s->l[li].gates, *dg = s->l[li].dg;
            memset(s->dh, 0, (size_t)B * H * 4);
            memset(s->dc, 0, (size_t)B * H * 4);
            for (int t = T - 1; t >= 0; t--) {
                const float *cp = t == 0 ? s->l[li].c0 : s->l[li].c + (int64_t)(t - 1) * B * H;
                const float *ct = s->l[li].c + (int64_t)t * B * H, *dyt = dy + (int64_t)t * B * H;
                const float *gt = gates + (int64_t)t * B * G;
                float *dgt = dg + (int64_t)t * B * G;
                for (int b = 0; b < B; b++)
                    for (int j = 0; j < H; j++) {
                        int64_t k = (int64_t)b * H + j;
                        const float *g = gt + (int64_t)b * G;
                        float i = g[j], f = g[H + j], gg = g[2 * H + j], o = g[3 * H + j];
                        float dh = dyt[k] + s->dh[k], tc = tanhf(ct[k]);
                        float dc = s->dc[k] + dh * o * (1 - tc * tc);
                        float *d = dgt + (int64_t)b * G;
                        d[j] = dc * gg * i * (1 - i);
                        d[H + j] = dc * cp[k] * f * (1 - f);
                        d[2 * H + j] = dc * i * (1 - gg * gg);
                        d[3 * H + j] = dh * tc * o * (1 - o);
                        s->dc[k] = dc * f;
                    }
                // the gradient carried to the previous step: dG_t · W_hh
                p_cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, H, G, 1, dgt, G, s->l[li].whh, H, 0, s->dh, H);
            }
            // the inputs' gradient, one product over the sequence
            p_cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)rows, s->l[li].in, G, 1, dg, G, s->l[li].wih, s->l[li].in, 0,
                          s->l[li].dx, s->l[li].in);
        }
        return;
    }
    for (int li = 0; li < s->layers; li++) { // backward weights
        float *in = li == 0 ? s->x : s->l[li - 1].hs;
        int D = s->l[li].in;
        float *dg = s->l[li].dg;
        // linear_ih, once over the sequence
        p_cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, G, D, (int)rows, 1, dg, G, in, D, 0, s->l[li].dwih, D);
        sum_rows(s->l[li].db, dg, rows, G);
        // linear_hh, once a step: the last step's gradient kept, each
        // earlier one added into it
        for (int t = T - 1; t >= 0; t--) {
            const float *dgt = dg + (int64_t)t * B * G, *hp = s->l[li].hprev + (int64_t)t * B * H;
            int first = t == T - 1;
            float *w = first ? s->l[li].dwhh : s->l[li].wtmp, *bb = first ? s->l[li].dbhh : s->l[li].btmp;
            p_cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, G, H, B, 1, dgt, G, hp, H, 0, w, H);
            sum_rows(bb, dgt, B, G);
            if (!first) {
                add_into(s->l[li].dwhh, w, (int64_t)G * H);
                add_into(s->l[li].dbhh, bb, G);
            }
        }
    }
}

wb_op *wb_lstm(wb_ctx *c, int pass, int t, int b, int d, int h, int layers) {
    wb_op *op = new_op();
    if (layers < 1 || layers > MAXLAYERS) {
        snprintf(c->err, c->errlen, "%d LSTM layers (at most %d)", layers, MAXLAYERS);
        c->unsup = 1;
        CHECK(0);
    }
    struct lstm *s;
    CHECK(s = (struct lstm *)owned_step(c, op, STEP_LSTM, sizeof *s));
    s->pass = pass, s->t = t, s->b = b, s->d = d, s->h = h, s->layers = layers;
    int64_t rows = (int64_t)t * b, G = 4 * (int64_t)h;
    int top = layers - 1;
    if (pass == WB_FORWARD || pass == WB_BACKWARD_WEIGHTS) CHECK(s->x = raw(c, op, rows * d, -1));
    if (pass == WB_BACKWARD_DATA) {
        CHECK(s->dy = raw(c, op, rows * h, -1));
        CHECK(s->dh = raw(c, op, (int64_t)b * h, 0));
        CHECK(s->dc = raw(c, op, (int64_t)b * h, 0));
    }
    for (int li = 0; li < layers; li++) {
        int in = li == 0 ? d : h;
        s->l[li].in = in;
        switch (pass) {
        case WB_FORWARD:
            CHECK(s->l[li].wih = raw(c, op, G * in, -1));
            CHECK(s->l[li].whh = raw(c, op, G * h, -1));
            CHECK(s->l[li].bias = raw(c, op, G, -1));
            CHECK(s->l[li].h0 = raw(c, op, (int64_t)b * h, -1));
            CHECK(s->l[li].c0 = raw(c, op, (int64_t)b * h, -1));
            CHECK(s->l[li].gates = raw(c, op, rows * G, -1));
            CHECK(s->l[li].c = raw(c, op, rows * h, -1));
            CHECK(s->l[li].hs = raw(c, op, rows * h, -1));
            break;
        case WB_BACKWARD_DATA:
            CHECK(s->l[li].wih = raw(c, op, G * in, -1));
            CHECK(s->l[li].whh = raw(c, op, G * h, -1));
            CHECK(s->l[li].c0 = raw(c, op, (int64_t)b * h, -1));
            CHECK(s->l[li].gates = raw(c, op, rows * G, 0)); // saved activations, in (0, 2)
            CHECK(s->l[li].c = raw(c, op, rows * h, -1));
            CHECK(s->l[li].dg = raw(c, op, rows * G, -1));
            CHECK(s->l[li].dx = raw(c, op, rows * in, -1));
            break;
        default:
            if (li < top) CHECK(s->l[li].hs = raw(c, op, rows * h, -1));
            CHECK(s->l[li].dg = raw(c, op, rows * G, -1));
            CHECK(s->l[li].hprev = raw(c, op, rows * h, -1));
            CHECK(s->l[li].dwih = raw(c, op, G * in, -1));
            CHECK(s->l[li].dwhh = raw(c, op, G * h, -1));
            CHECK(s->l[li].db = raw(c, op, G, -1));
            CHECK(s->l[li].dbhh = raw(c, op, G, -1));
            CHECK(s->l[li].wtmp = raw(c, op, G * h, -1));
            CHECK(s->l[li].btmp = raw(c, op, G, -1));
        }
    }
    note_impl(op, "openblas sgemm+lstm cell in C");
    return op;
}

// range splits n among the calling OpenMP team: this thread's [lo, hi).
static void range(int64_t n, int64_t *lo, int64_t *hi) {
    int t = p_omp_get_thread_num(), nt = p_omp_get_num_threads();
    int64_t per = (n + nt - 1) / nt;
    *lo = t * per < n ? t * per : n;
    *hi = *lo + per < n ? *lo + per : n;
}

// range_of is the calling thread's share of n items split over team
// workers, as at::parallel_for's OpenMP backend splits them: every thread
// of the pool enters the region (PyTorch 1.13 opens a full team, no
// num_threads clause, for GOMP's pool's sake, pytorch#32008), the chunks
// are ⌈n / team⌉ long, and the threads past the team's get none. A team
// smaller than the pool asked of GOMP_parallel made libgomp end the pool's
// spare threads and the next full team start them again (a reviewer
// measured 417 clone() calls in 205 runs of a linear layer with a bias on
// 4 threads).
static void range_of(int64_t n, int team, int64_t *lo, int64_t *hi) {
    // (the team the region really got where libgomp gave fewer threads
    // than asked, OMP_THREAD_LIMIT, OMP_DYNAMIC or a nested region, as
    // invoke_parallel takes min(omp_get_num_threads(), ⌈n / grain⌉): a
    // chunk sized for more threads left values unwritten, a reviewer found)
    int t = p_omp_get_thread_num(), nt = p_omp_get_num_threads();
    if (team > nt) team = nt;
    if (team < 1) team = 1;
    int64_t per = (n + team - 1) / team;
    *lo = t * per < n ? t * per : n;
    *hi = *lo + per < n ? *lo + per : n;
}

// The loops below are ATen's vectorized loops (at::vec): compiled for AVX2
// and for the baseline, the one for this processor picked at load (GCC's
// target_clones). Debian's PyTorch 1.13 runs its AVX2 kernels on AVX-512
// processors too ("CPU capability usage: AVX2" in torch.__config__.show()),
// and its reductions (vec::reduce_all, map2_reduce_all) keep one vector of
// 8 partial sums, as these do.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define VEC __attribute__((target_clones("avx2", "default")))
#else
#define VEC
#endif

VEC static void vaffine(const float *x, float *y, float a, float b, int64_t n) {
    for (int64_t i = 0; i < n; i++) y[i] = x[i] * a + b;
}

// Vectors of 8 in GCC's vector extensions, for the loops GCC does not
// vectorize by itself (selections, conversions); the helpers are always
// inlined, so the ABI of passing 32-byte vectors, which GCC warns of where
// AVX is off (lib.go passes -Wno-psabi), never applies.
typedef float v8f __attribute__((vector_size(32)));
typedef int v8i __attribute__((vector_size(32)));
static inline __attribute__((always_inline)) v8f vsel(v8i m, v8f a, v8f b) { return (v8f)((m & (v8i)a) | (~m & (v8i)b)); }
static inline __attribute__((always_inline)) v8f load8(const float *p) {
    v8f v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline __attribute__((always_inline)) void store8(float *p, v8f v) { memcpy(p, &v, sizeof v); }
// loadn and storen move the first k ≤ 8 values (the rest of a loaded
// vector is 0): a loop's last, partial vector goes through the same
// formula as the others.
static inline __attribute__((always_inline)) v8f loadn(const float *p, int64_t k) {
    if (k == 8) return load8(p);
    v8f v = {0};
    memcpy(&v, p, (size_t)k * sizeof(float));
    return v;
}
static inline __attribute__((always_inline)) void storen(float *p, v8f v, int64_t k) {
    if (k == 8) store8(p, v);
    else memcpy(p, &v, (size_t)k * sizeof(float));
}
// EACH8 runs its body for i = 0, 8, 16 … < n, with k the values at i (8,
// or fewer at the end).
#define EACH8(n) for (int64_t i = 0, k = (n) < 8 ? (n) : 8; i < (n); i += 8, k = (n) - i < 8 ? (n) - i : 8)

// ATen's relu (clamp_min 0), its backward (threshold_backward on the
// result: dy where y > 0, else 0, a blend on vectors) and add (c = a + b,
// into a new tensor).
VEC static void vrelu(const float *x, float *y, int64_t n) {
    for (int64_t i = 0; i < n; i++) y[i] = x[i] < 0 ? 0 : x[i];
}

VEC static void vrelu_bwd(const float *y, const float *dy, float *dx, int64_t n) {
    EACH8(n) storen(dx + i, vsel(loadn(y + i, k) <= 0, (v8f){0}, loadn(dy + i, k)), k);
}

VEC static void vadd(const float *a, const float *b, float *c, int64_t n) {
    for (int64_t i = 0; i < n; i++) c[i] = a[i] + b[i];
}

// Sleef's functions, which ATen's Vectorized<float> calls, on 8 values at
// once (v8f): the loops below are Sleef's vector code in shape.
#define AI static inline __attribute__((always_inline))
typedef struct {
    v8f x, y;
} v8f2;
// Sleef's double-float arithmetic (df.h, its FMA form: a product's
// rounding error is a·b − (a·b) fused; GCC contracts a*b - s into an FMA
// where the clone has one).
AI v8f2 df(v8f x, v8f y) { return (v8f2){x, y}; }
AI v8f2 dfneg(v8f2 a) { return df(-a.x, -a.y); }
AI v8f2 dfadd2_ff(v8f2 a, v8f b) {
    v8f s = a.x + b, v = s - a.x;
    return df(s, (a.x - (s - v)) + (b - v) + a.y);
}
AI v8f2 dfadd2(v8f2 a, v8f2 b) {
    v8f s = a.x + b.x, v = s - a.x;
    return df(s, (a.x - (s - v)) + (b.x - v) + (a.y + b.y));
}
AI v8f2 dfadd_f(v8f a, v8f2 b) {
    v8f s = a + b.x;
    return df(s, a - s + b.x + b.y);
}
AI v8f2 dfmul_f(v8f2 a, v8f b) {
    v8f s = a.x * b;
    return df(s, (a.x * b - s) + a.y * b);
}
AI v8f2 dfmul(v8f2 a, v8f2 b) {
    v8f s = a.x * b.x;
    return df(s, (a.x * b.x - s) + a.x * b.y + a.y * b.x);
}
AI v8f2 dfsqu(v8f2 a) {
    v8f s = a.x * a.x;
    return df(s, (a.x * a.x - s) + (a.x + a.x) * a.y);
}
AI v8f2 dfrec(v8f2 d) {
    v8f s = 1 / d.x;
    return df(s, s * ((1 - d.x * s) - d.y * s));
}
AI v8f2 dfdiv(v8f2 n, v8f2 d) {
    v8f t = 1 / d.x, s = n.x * t;
    v8f u = n.x * t - s, v = (1 - d.x * t) - d.y * t;
    return df(s, s * v + (n.y * t + u));
}
AI v8f pow2i(v8i q) { return (v8f)((q + 127) << 23); }

// expk2f is Sleef's e^d in double-float (d ≥ 0 here): d = q·ln 2 + s, a
// polynomial in s, the result scaled by 2^q in two halves.
AI v8f2 expk2f(v8f2 d) {
    v8i q = __builtin_convertvector((d.x + d.y) * 1.442695040888963407359924681001892137f + 0.5f, v8i);
    v8f qf = __builtin_convertvector(q, v8f);
    v8f2 s = dfadd2_ff(d, qf * -0.693145751953125f);
    s = dfadd2_ff(s, qf * -1.428606765330187045e-06f);
    v8f u = 0.1980960224e-3f * s.x + 0.1394256484e-2f;
    u = u * s.x + 0.8333456703e-2f;
    u = u * s.x + 0.4166637361e-1f;
    v8f2 t = dfadd2_ff(dfmul_f(s, u), (v8f){0} + 0.166666659414234244790680580464e+0f);
    t = dfadd2_ff(dfmul(s, t), (v8f){0} + 0.5f);
    t = dfadd2(s, dfmul(dfsqu(s), t));
    t = dfadd_f((v8f){0} + 1, t);
    v8i h = q >> 1;
    v8f p = pow2i(h) * pow2i(q - h);
    return df(t.x * p, t.y * p);
}

// tanh_v is Sleef_tanhf8_u10, which ATen's Vectorized<float>::tanh calls:
// (e^|x| − e^−|x|) / (e^|x| + e^−|x|) in double-float, 1 past 8.66, the
// sign put back.
AI v8f tanh_v(v8f x) {
    const v8i signbit = (v8i){0} + (int)0x80000000;
    v8i sign = (v8i)x & signbit;
    v8f a = (v8f)((v8i)x & ~signbit);
    v8f y = vsel(a < 9.0f, a, (v8f){0} + 9.0f);
    v8f2 d = expk2f(df(y, (v8f){0}));
    v8f2 e = dfrec(d);
    d = dfdiv(dfadd2(d, dfneg(e)), dfadd2(d, e));
    y = d.x + d.y;
    y = vsel(a > 8.664339742f, (v8f){0} + 1.0f, y);
    return (v8f)((v8i)y | sign);
}

// ATen's GELU with approximate='tanh' (GeluKernelImpl, GeluBackwardKernelImpl
// in PyTorch 1.13): y = x/2 · (1 + tanh(√(2/π)·(x + 0.044715x³))), and its
// derivative from x and the same tanh; tanh's backward from its output.
#define GELU_BETA 0.7978845608028654f
#define GELU_KAPPA 0.044715f
// Each loop is compiled twice, for AVX2 with FMA and for the baseline,
// and the one for this processor taken at run time (target_clones would
// take its "arch=haswell" clone on Intel's Haswell and later alone).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define FMA_LOOPS(name, params, args, ...)                                                   \
    AI void name##_body params __VA_ARGS__                                                   \
    __attribute__((target("avx2,fma"))) static void name##_fma params { name##_body args; } \
    static void name##_base params { name##_body args; }                                     \
    static void name params {                                                                \
        static int fma = -1;                                                                 \
        if (fma < 0) fma = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); \
        if (fma) name##_fma args;                                                            \
        else name##_base args;                                                               \
    }
#else
#define FMA_LOOPS(name, params, args, ...) static void name params __VA_ARGS__
#endif

FMA_LOOPS(vgelu, (const float *x, float *y, int64_t n), (x, y, n), {
    EACH8(n) {
        v8f v = loadn(x + i, k), inner = GELU_BETA * (v + GELU_KAPPA * v * v * v);
        storen(y + i, 0.5f * v * (1 + tanh_v(inner)), k);
    }
})

FMA_LOOPS(vgelu_bwd, (const float *x, const float *dy, float *dx, int64_t n), (x, dy, dx, n), {
    EACH8(n) {
        v8f v = loadn(x + i, k), sq = v * v, t = tanh_v(GELU_BETA * (v + GELU_KAPPA * sq * v));
        v8f dinner = GELU_BETA * (1 + 3 * GELU_KAPPA * sq);
        storen(dx + i, loadn(dy + i, k) * (0.5f * (1 + t) + 0.5f * v * (1 - t * t) * dinner), k);
    }
})

FMA_LOOPS(vtanh, (const float *x, float *y, int64_t n), (x, y, n), { EACH8(n) storen(y + i, tanh_v(loadn(x + i, k)), k); })

// ATen's utils::RowwiseMoments (PyTorch 1.13): Welford's update on
// vectors of 8 within chunks of 16 vectors, the chunks' moments merged in
// a cascade (AddMomentsVec), the lanes and the tail merged last in
// scalars; the variance is the population's.
AI void add_moments_vec(int64_t m0_add, v8f m1_add, v8f m2_add, int64_t *m0, v8f *m1, v8f *m2) {
    int64_t n = *m0 + m0_add;
    float c = n == 0 ? 0 : (float)m0_add / (float)n;
    v8f delta = m1_add - *m1;
    *m1 += delta * c;
    *m2 += m2_add + delta * delta * c * (float)*m0;
    *m0 = n;
}

AI void add_moments(int64_t m0_add, float m1_add, float m2_add, int64_t *m0, float *m1, float *m2) {
    int64_t n = *m0 + m0_add;
    float c = n == 0 ? 0 : (float)m0_add / (float)n;
    float delta = m1_add - *m1;
    *m1 += c * delta;
    *m2 += m2_add + delta * delta * c * (float)*m0;
    *m0 = n;
}

AI void rowwise_moments(const float *x, int64_t N, float *mean, float *var) {
    enum { CHUNK = 16, DEPTH = 48 };
    // 1/(j + 1) for each step of a chunk, a table as ATen's c_vecs
    static const float recip[CHUNK] = {1.f / 1,  1.f / 2,  1.f / 3,  1.f / 4,  1.f / 5,  1.f / 6,  1.f / 7,  1.f / 8,
                                       1.f / 9,  1.f / 10, 1.f / 11, 1.f / 12, 1.f / 13, 1.f / 14, 1.f / 15, 1.f / 16};
    int64_t n = N / 8, m = (n + CHUNK - 1) / CHUNK, depth = 0;
    while (((int64_t)1 << depth) < m) depth++;
    int64_t m0s[DEPTH] = {0};
    v8f m1s[DEPTH], m2s[DEPTH];
    for (int j = 0; j < DEPTH; j++) m1s[j] = (v8f){0}, m2s[j] = (v8f){0};
    for (int64_t i = 0; i < m; i++) {
        const float *p = x + i * CHUNK * 8;
        int64_t m0 = n - i * CHUNK < CHUNK ? n - i * CHUNK : CHUNK;
        v8f m1 = {0}, m2 = {0};
        for (int64_t j = 0; j < m0; j++) {
            v8f v = load8(p + j * 8), delta = v - m1;
            m1 += delta * recip[j];
            m2 += delta * (v - m1);
        }
        add_moments_vec(m0, m1, m2, &m0s[0], &m1s[0], &m2s[0]);
        int64_t mask = i + 1;
        for (int64_t j = 1; j < depth && (mask & 1) == 0; j++) {
            add_moments_vec(m0s[j - 1], m1s[j - 1], m2s[j - 1], &m0s[j], &m1s[j], &m2s[j]);
            m0s[j - 1] = 0, m1s[j - 1] = (v8f){0}, m2s[j - 1] = (v8f){0};
            mask >>= 1;
        }
    }
    for (int64_t j = 1; j < depth; j++) add_moments_vec(m0s[j], m1s[j], m2s[j], &m0s[0], &m1s[0], &m2s[0]);
    float a1[8], a2[8];
    memcpy(a1, &m1s[0], sizeof a1);
    memcpy(a2, &m2s[0], sizeof a2);
    int64_t m0 = 0;
    float m1 = 0, m2 = 0;
    for (int64_t i = n * 8; i < N; i++) {
        float delta = x[i] - m1;
        m0++;
        m1 += delta / (float)m0;
        m2 += delta * (x[i] - m1);
    }
    for (int j = 0; j < 8; j++) add_moments(m0s[0], a1[j], a2[j], &m0, &m1, &m2);
    *mean = m1, *var = m2 / (float)N;
}

FMA_LOOPS(ln_rows, (struct ln *s, int64_t lo, int64_t hi), (s, lo, hi), {
    int64_t N = s->cols;
    for (int64_t r = lo; r < hi; r++) {
        const float *x = s->x + r * N;
        float *y = s->y + r * N, mean, var;
        rowwise_moments(x, N, &mean, &var);
        float rstd = 1 / sqrtf(var + 1e-5f), scale = rstd, bias = -rstd * mean;
        int64_t j = 0;
        for (; j + 8 <= N; j += 8)
            store8(y + j, (load8(x + j) * scale + bias) * load8(s->g + j) + load8(s->b + j));
        for (; j < N; j++) y[j] = (x[j] * scale + bias) * s->g[j] + s->b[j];
        s->mean[r] = mean, s->rstd[r] = rstd;
    }
})

// ln_bwd_rows is LayerNormBackwardKernelImplInternal's loop over rows
// [lo, hi) on thread tid: γ's and β's gradients summed into the thread's
// buffer, then Σdy·x·γ and Σdy·γ (vector sums) and dx = a·dy·γ + b·x + c.
FMA_LOOPS(ln_bwd_rows, (struct ln *s, int64_t lo, int64_t hi, int tid), (s, lo, hi, tid), {
    int64_t N = s->cols;
    float *dgb = s->buf + (int64_t)tid * N, *dbb = s->buf + ((int64_t)s->nbuf + tid) * N;
    const float scale = 1.0f / (float)N;
    for (int64_t r = lo; r < hi; r++) {
        const float *x = s->x + r * N, *dy = s->dy + r * N, *g = s->g;
        float *dx = s->dx + r * N;
        float a = s->rstd[r], b = -a * s->mean[r];
        int64_t j = 0;
        for (; j + 8 <= N; j += 8) store8(dgb + j, load8(dgb + j) + load8(dy + j) * (a * load8(x + j) + b));
        for (; j < N; j++) dgb[j] += dy[j] * (a * x[j] + b);
        for (j = 0; j + 8 <= N; j += 8) store8(dbb + j, load8(dbb + j) + load8(dy + j));
        for (; j < N; j++) dbb[j] += dy[j];
        v8f vs = {0}, vb = {0};
        for (j = 0; j + 8 <= N; j += 8) vs += load8(dy + j) * load8(x + j) * load8(g + j);
        float ds = 0, db = 0;
        for (int k = 0; k < 8; k++) ds += vs[k];
        for (; j < N; j++) ds += dy[j] * x[j] * g[j];
        for (j = 0; j + 8 <= N; j += 8) vb += load8(dy + j) * load8(g + j);
        for (int k = 0; k < 8; k++) db += vb[k];
        for (; j < N; j++) db += dy[j] * g[j];
        float bb = (db * s->mean[r] - ds) * a * a * a * scale, cc = -bb * s->mean[r] - db * a * scale;
        for (j = 0; j + 8 <= N; j += 8) store8(dx + j, a * load8(dy + j) * load8(g + j) + bb * load8(x + j) + cc);
        for (; j < N; j++) dx[j] = a * dy[j] * g[j] + bb * x[j] + cc;
    }
})

static void ln_part(void *p) {
    struct ln *s = (struct ln *)p;
    int64_t lo, hi;
    range_of(s->rows, s->team, &lo, &hi);
    if (s->pass == WB_FORWARD)
        ln_rows(s, lo, hi);
    else
        ln_bwd_rows(s, lo, hi, p_omp_get_thread_num());
}

// ln_sum is the threads' buffers summed into γ's and β's gradients, the
// columns shared by the team.
static void ln_sum(void *p) {
    struct ln *s = (struct ln *)p;
    int64_t lo, hi, N = s->cols;
    range_of(N, s->cteam, &lo, &hi);
    for (int64_t j = lo; j < hi; j++) {
        float dg = 0, db = 0;
        for (int t = 0; t < s->nbuf; t++) dg += s->buf[(int64_t)t * N + j], db += s->buf[((int64_t)s->nbuf + t) * N + j];
        s->dg[j] = dg, s->db[j] = db;
    }
}

// ln_run is at::parallel_for over the rows with a grain of one: a team of
// as many threads as rows, at most the pool's.
static void ln_run(struct ln *s) {
    unsigned team = s->rows < nthreads ? (unsigned)s->rows : (unsigned)nthreads;
    if (s->pass != WB_FORWARD) { // at::zeros of the threads' buffers
        if (team > (unsigned)s->nbuf) team = (unsigned)s->nbuf;
        memset(s->buf, 0, sizeof(float) * 2 * (size_t)s->nbuf * (size_t)s->cols);
    }
    s->team = (int)team;
    if (team > 1)
        p_GOMP_parallel(ln_part, s, (unsigned)nthreads, 0);
    else if (s->pass == WB_FORWARD)
        ln_rows(s, 0, s->rows);
    else
        ln_bwd_rows(s, 0, s->rows, 0);
    if (s->pass == WB_FORWARD) return;
    unsigned cteam = s->cols < nthreads ? (unsigned)s->cols : (unsigned)nthreads;
    s->cteam = (int)cteam;
    if (cteam > 1)
        p_GOMP_parallel(ln_sum, s, (unsigned)nthreads, 0);
    else
        ln_sum(s);
}

// expf_v is Sleef's expf (u10), which ATen's Vectorized<float>::exp calls:
// d = q·ln 2 + s, a degree-6 polynomial in s, scaled by 2^q; 0 below −104.
AI v8f expf_v(v8f d) {
    v8f t = d * 1.442695040888963407359924681001892137f;
    v8i q = __builtin_convertvector(t + vsel(t < 0, (v8f){0} - 0.5f, (v8f){0} + 0.5f), v8i);
    v8f qf = __builtin_convertvector(q, v8f);
    v8f r = qf * -0.693145751953125f + d;
    r = qf * -1.428606765330187045e-06f + r;
    v8f u = 0.000198527617612853646278381f * r + 0.00139304355252534151077271f;
    u = u * r + 0.00833336077630519866943359f;
    u = u * r + 0.0416664853692054748535156f;
    u = u * r + 0.166666671633720397949219f;
    u = u * r + 0.5f;
    u = 1.0f + (r * r * u + r);
    v8i h = q >> 1;
    u = u * pow2i(h) * pow2i(q - h);
    return (v8f)((v8i)u & ~(d < -104.0f));
}

AI float hmax8(v8f v) {
    float m = v[0];
    for (int k = 1; k < 8; k++) m = v[k] > m ? v[k] : m;
    return m;
}

AI float hsum8(v8f v) {
    float t = 0;
    for (int k = 0; k < 8; k++) t += v[k];
    return t;
}

FMA_LOOPS(sm_rows, (struct sm *s, int64_t lo, int64_t hi), (s, lo, hi), {
    int64_t N = s->cols;
    for (int64_t r = lo; r < hi; r++) {
        int64_t j;
        if (s->pass == WB_FORWARD) {
            const float *x = s->x + r * N;
            float *y = s->y + r * N;
            float mx = -INFINITY;
            if (N >= 8) {
                v8f vm = load8(x);
                for (j = 8; j + 8 <= N; j += 8) {
                    v8f v = load8(x + j);
                    vm = vsel(v > vm, v, vm);
                }
                mx = hmax8(vm);
            } else
                j = 0;
            for (; j < N; j++) mx = x[j] > mx ? x[j] : mx;
            for (j = 0; j + 8 <= N; j += 8) store8(y + j, expf_v(load8(x + j) - mx));
            for (; j < N; j++) y[j] = expf(x[j] - mx);
            v8f vs = {0};
            for (j = 0; j + 8 <= N; j += 8) vs += load8(y + j);
            float sum = hsum8(vs);
            for (; j < N; j++) sum += y[j];
            float inv = 1 / sum;
            for (j = 0; j + 8 <= N; j += 8) store8(y + j, load8(y + j) * inv);
            for (; j < N; j++) y[j] *= inv;
        } else {
            const float *y = s->y + r * N, *dy = s->dy + r * N;
            float *dx = s->dx + r * N;
            v8f vs = {0};
            for (j = 0; j + 8 <= N; j += 8) vs += load8(dy + j) * load8(y + j);
            float dot = hsum8(vs);
            for (; j < N; j++) dot += dy[j] * y[j];
            for (j = 0; j + 8 <= N; j += 8) store8(dx + j, (load8(dy + j) - dot) * load8(y + j));
            for (; j < N; j++) dx[j] = (dy[j] - dot) * y[j];
        }
    }
})

static void sm_part(void *p) {
    struct sm *s = (struct sm *)p;
    int64_t lo, hi;
    range_of(s->rows, s->team, &lo, &hi);
    sm_rows(s, lo, hi);
}

// sm_run is at::parallel_for over the rows with the softmax's grain,
// GRAIN_SIZE / (16 · the row's length), at least one row.
static void sm_run(struct sm *s) {
    int64_t grain = 32768 / (16 * (int64_t)s->cols);
    if (grain < 1) grain = 1;
    int64_t want = (s->rows + grain - 1) / grain;
    unsigned team = want < nthreads ? (unsigned)want : (unsigned)nthreads;
    s->team = (int)team;
    if (team > 1)
        p_GOMP_parallel(sm_part, s, (unsigned)nthreads, 0);
    else
        sm_rows(s, 0, s->rows);
}

// ATen's sigmoid, (1 + e^−x)⁻¹, and SiLU, x / (1 + e^−x), with Sleef's
// expf; their backward from the output (sigmoid) and from the input
// (SiLU: dy·σ·(1 + x·(1 − σ))).
FMA_LOOPS(vsigmoid, (const float *x, float *y, int64_t n), (x, y, n), {
    EACH8(n) storen(y + i, 1.0f / (1.0f + expf_v(-loadn(x + i, k))), k);
})

FMA_LOOPS(vsilu, (const float *x, float *y, int64_t n), (x, y, n), {
    EACH8(n) {
        v8f v = loadn(x + i, k);
        storen(y + i, v / (1.0f + expf_v(-v)), k);
    }
})

FMA_LOOPS(vsilu_bwd, (const float *x, const float *dy, float *dx, int64_t n), (x, dy, dx, n), {
    EACH8(n) {
        v8f v = loadn(x + i, k), sg = 1.0f / (1.0f + expf_v(-v));
        storen(dx + i, loadn(dy + i, k) * sg * (1.0f + v * (1.0f - sg)), k);
    }
})

VEC static void vsigmoid_bwd(const float *y, const float *dy, float *dx, int64_t n) {
    for (int64_t i = 0; i < n; i++) dx[i] = dy[i] * (1 - y[i]) * y[i];
}

// ATen's leaky_relu (x where x > 0, else slope·x: a blend of both) and its
// backward from the input, on vectors (GCC leaves the scalar select
// unvectorized).
VEC static void vlrelu(const float *x, float *y, float slope, int64_t n) {
    EACH8(n) {
        v8f v = loadn(x + i, k);
        storen(y + i, vsel(v > 0, v, v * slope), k);
    }
}

VEC static void vlrelu_bwd(const float *x, const float *dy, float *dx, float slope, int64_t n) {
    EACH8(n) {
        v8f g = loadn(dy + i, k);
        storen(dx + i, vsel(loadn(x + i, k) > 0, g, g * slope), k);
    }
}

VEC static void vtanh_bwd(const float *y, const float *dy, float *dx, int64_t n) {
    for (int64_t i = 0; i < n; i++) dx[i] = dy[i] * (1 - y[i] * y[i]);
}

// ATen's mul of two tensors (dropout's x · noise and its backward).
VEC static void vmul(const float *a, const float *b, float *c, int64_t n) {
    for (int64_t i = 0; i < n; i++) c[i] = a[i] * b[i];
}

// The SGD step's kernels, in place: buf.mul_(momentum) and
// param.add_(buf, alpha=-lr) (buf.add_(grad) is vadd).
VEC static void vscale(float *a, float alpha, int64_t n) {
    for (int64_t i = 0; i < n; i++) a[i] *= alpha;
}

// vdivs is a ← a / b (ATen's div_ by a scalar divides, as at::vec does).
VEC static void vdivs(float *a, float b, int64_t n) {
    for (int64_t i = 0; i < n; i++) a[i] /= b;
}

VEC static void vaxpy(float *a, const float *b, float alpha, int64_t n) {
    for (int64_t i = 0; i < n; i++) a[i] += alpha * b[i];
}

// vbcast is values [lo, hi) of a matrix of n columns whose every row is the
// vector a (a broadcast copy).
static void vbcast(const float *a, float *c, int64_t n, int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi;) {
        int64_t j = i % n, m = n - j < hi - i ? n - j : hi - i;
        memcpy(c + i, a + j, (size_t)m * sizeof(float));
        i += m;
    }
}

// vcolsum is columns [lo, hi) of sum(0) of a [rows, ld] matrix: each row
// added into the output, vectorized along it.
VEC static void vcolsum(const float *a, float *out, int rows, int64_t ld, int64_t lo, int64_t hi) {
    for (int64_t j = lo; j < hi; j++) out[j] = 0;
    for (int i = 0; i < rows; i++) {
        const float *r = a + (int64_t)i * ld;
        for (int64_t j = lo; j < hi; j++) out[j] += r[j];
    }
}

// Batch norm in training as PyTorch 1.13 computes it on contiguous NCHW
// tensors (aten/src/ATen/native/cpu/batch_norm_kernel.cpp): forward,
// batch_norm_cpu_collect_stats_contiguous_impl's scalar loops, each
// channel's mean and then its variance summed in double (acc_type of float
// on the CPU), channels shared by the team, then the saved statistics in a
// region of their own over the channels (batch_norm_cpu_update_stats_
// template's), then, in a third parallel region over the N·C planes, batch_norm_cpu_contiguous_impl's vectorized
// y = x·a + b (at a large batch x comes from memory again; one region that
// wrote y while x was in cache ran at 0.75–0.94× PyTorch's time: a
// reviewer's reading);
// backward, batch_norm_cpu_backward_contiguous_impl's vectorized Σdy, then
// Σ(x − mean)·dy, then dx, with the weight's and bias's gradients. Channels
// are shared by the OpenMP team (at::parallel_for over channels).

static void bn_fwd(void *p) {
    struct bn *s = (struct bn *)p;
    int64_t lo, hi;
    range(s->c, &lo, &hi);
    double count = (double)s->n * (double)s->hw;
    for (int64_t c = lo; c < hi; c++) {
        double sum = 0;
        for (int n = 0; n < s->n; n++) {
            const float *x = s->x + ((int64_t)n * s->c + c) * s->hw;
            for (int64_t i = 0; i < s->hw; i++) sum += x[i];
        }
        float mean = (float)(sum / count);
        double var = 0;
        for (int n = 0; n < s->n; n++) {
            const float *x = s->x + ((int64_t)n * s->c + c) * s->hw;
            for (int64_t i = 0; i < s->hw; i++) var += (double)((x[i] - mean) * (x[i] - mean));
        }
        s->mean[c] = mean, s->invstd[c] = (float)(var / count); // the variance until bn_update
    }
}

// bn_update is batch_norm_cpu_update_stats_template's loop over the
// channels, its own parallel region: the saved 1/σ from the variance (and
// PyTorch's running statistics, which wb keeps none of).
static void bn_update(void *p) {
    struct bn *s = (struct bn *)p;
    int64_t lo, hi;
    range(s->c, &lo, &hi);
    for (int64_t c = lo; c < hi; c++) s->invstd[c] = 1.0f / sqrtf(s->invstd[c] + 1e-5f);
}

// bn_apply is y = x·a + b over the planes (n, c) of the team's share,
// a = invstd·w and b = bias − mean·a of the plane's channel.
static void bn_apply(void *p) {
    struct bn *s = (struct bn *)p;
    int64_t lo, hi;
    range((int64_t)s->n * s->c, &lo, &hi);
    for (int64_t i = lo; i < hi; i++) {
        int64_t c = i % s->c;
        float a = s->invstd[c] * s->w[c], bb = s->b[c] - s->mean[c] * a;
        vaffine(s->x + i * s->hw, s->y + i * s->hw, a, bb, s->hw);
    }
}

// at::vec's Vectorized<float> as Debian's PyTorch 1.13 compiles it for
// AVX2 (ATen/cpu/vec/vec256/vec256_float.h, functional_base.h): a partial
// load zeroes a vector's worth of memory and copies the values into it, a
// partial store goes out through one; Vec::set blends the first count
// lanes in; vec_reduce_all adds the halves, then pairs, then neighbours
// (its SIMD path), or, for fewer values than a vector, lane by lane (its
// slow path). A loop's last values thus cost more than their share where
// a plane is short: resnet50's 7×7 planes are 6 vectors and 1 value.
static inline __attribute__((always_inline)) v8f at_loadu(const float *p, int64_t count) {
    if (count == 8) return load8(p);
    float tmp[8] __attribute__((aligned(32)));
    for (int i = 0; i < 8; i++) tmp[i] = 0;
    memcpy(tmp, p, (size_t)count * sizeof(float));
    return load8(tmp);
}
static inline __attribute__((always_inline)) void at_store(float *p, v8f v, int64_t count) {
    if (count == 8) {
        store8(p, v);
    } else if (count > 0) {
        float tmp[8];
        store8(tmp, v);
        memcpy(p, tmp, (size_t)count * sizeof(float));
    }
}
static inline __attribute__((always_inline)) v8f at_set(v8f a, v8f b, int64_t count) {
    v8i lane = {0, 1, 2, 3, 4, 5, 6, 7};
    return vsel(lane < (int)count, b, a);
}
static inline __attribute__((always_inline)) float at_hsum(v8f v) {
    v = v + __builtin_shuffle(v, (v8i){4, 5, 6, 7, 0, 1, 2, 3});
    v = v + __builtin_shuffle(v, (v8i){2, 3, 0, 1, 6, 7, 4, 5});
    v = v + __builtin_shuffle(v, (v8i){1, 0, 3, 2, 5, 4, 7, 6});
    return v[0];
}
// at_hsum_n is vec_reduce_all's slow path over the first n lanes.
static inline __attribute__((always_inline)) float at_hsum_n(v8f v, int64_t n) {
    for (int64_t i = 1; i < n; i++) {
        float next[8] = {0};
        float cur[8];
        store8(cur, v);
        next[0] = cur[i];
        v = v + load8(next);
    }
    return v[0];
}

// vec::reduce_all(x + y) over dy.
VEC static float at_sum(const float *x, int64_t n) {
    if (n < 8) return at_hsum_n(at_loadu(x, n), n);
    v8f acc = load8(x);
    int64_t d = 8;
    for (; d < n - n % 8; d += 8) acc = acc + load8(x + d);
    if (n - d > 0) acc = at_set(acc, acc + at_loadu(x + d, n - d), n - d);
    return at_hsum(acc);
}

// vec::map2_reduce_all((x − mean)·dy, x + y).
VEC static float at_dot(const float *x, const float *dy, float mean, int64_t n) {
    v8f m = {mean, mean, mean, mean, mean, mean, mean, mean};
    if (n < 8) return at_hsum_n((at_loadu(x, n) - m) * at_loadu(dy, n), n);
    v8f acc = (load8(x) - m) * load8(dy);
    int64_t d = 8;
    for (; d < n - n % 8; d += 8) acc = acc + (load8(x + d) - m) * load8(dy + d);
    if (n - d > 0) acc = at_set(acc, acc + (at_loadu(x + d, n - d) - m) * at_loadu(dy + d, n - d), n - d);
    return at_hsum(acc);
}

// vec::map2 of batch norm's input gradient, (dy − grad_mean − (x − mean)·k)
// · invstd · w.
VEC static void at_bn_dx(const float *x, const float *dy, float *dx, float mean, float k, float gm, float invstd, float w, int64_t n) {
    int64_t d = 0;
    for (; d < n - n % 8; d += 8) {
        v8f v = load8(x + d), g = load8(dy + d);
        store8(dx + d, (g - gm - (v - mean) * k) * invstd * w);
    }
    if (n - d > 0) {
        v8f v = at_loadu(x + d, n - d), g = at_loadu(dy + d, n - d);
        at_store(dx + d, (g - gm - (v - mean) * k) * invstd * w, n - d);
    }
}

static void bn_bwd(void *p) {
    struct bn *s = (struct bn *)p;
    int64_t lo, hi;
    range(s->c, &lo, &hi);
    int64_t count = (int64_t)s->n * s->hw;
    for (int64_t c = lo; c < hi; c++) {
        float mean = s->mean[c], invstd = s->invstd[c], w = s->w[c];
        double sum = 0, dot = 0;
        for (int n = 0; n < s->n; n++) {
            int64_t o = ((int64_t)n * s->c + c) * s->hw;
            sum += at_sum(s->dy + o, s->hw);
            dot += at_dot(s->x + o, s->dy + o, mean, s->hw);
        }
        // scalar_t k = (scalar_t) dotp * invstd * invstd / N; grad_mean = sum / N
        float k = (float)dot * invstd * invstd / (float)count, gm = (float)(sum / (double)count);
        for (int n = 0; n < s->n; n++) {
            int64_t o = ((int64_t)n * s->c + c) * s->hw;
            at_bn_dx(s->x + o, s->dy + o, s->dx + o, mean, k, gm, invstd, w, s->hw);
        }
        s->dw[c] = (float)(dot * invstd);
        s->db[c] = (float)sum;
    }
}

// bn_run is at::parallel_for over the channels with a grain of one, as
// both passes' kernels run it: a team whenever there are two channels.
static void bn_run(struct bn *s) {
    void (*fn)(void *) = s->pass == WB_FORWARD ? bn_fwd : bn_bwd;
    if (nthreads > 1 && s->c > 1)
        p_GOMP_parallel(fn, s, (unsigned)nthreads, 0);
    else
        fn(s);
    if (s->pass != WB_FORWARD) return;
    if (nthreads > 1 && s->c > 1)
        p_GOMP_parallel(bn_update, s, (unsigned)nthreads, 0);
    else
        bn_update(s);
    if (nthreads > 1 && (int64_t)s->n * s->c > 1)
        p_GOMP_parallel(bn_apply, s, (unsigned)nthreads, 0);
    else
        bn_apply(s);
}

// mp_fwd is cpu_max_pool: the planes (batch × channels) shared by the team,
// each output the first maximum of its window, or a NaN, with its index.
static void mp_fwd(void *p) {
    struct mp *s = (struct mp *)p;
    int64_t lo, hi;
    range(s->planes, &lo, &hi);
    for (int64_t c = lo; c < hi; c++) {
        const float *x = s->x + c * s->ih * s->iw;
        float *y = s->y + c * s->oh * s->ow;
        int64_t *ix = s->idx + c * s->oh * s->ow;
        for (int oh = 0; oh < s->oh; oh++) {
            int h0 = oh * s->sh - s->ph, h1 = h0 + s->kh < s->ih ? h0 + s->kh : s->ih;
            while (h0 < 0) h0++;
            for (int ow = 0; ow < s->ow; ow++) {
                int w0 = ow * s->sw - s->pw, w1 = w0 + s->kw < s->iw ? w0 + s->kw : s->iw;
                while (w0 < 0) w0++;
                int64_t mi = (int64_t)h0 * s->iw + w0;
                float mv = -INFINITY;
                for (int h = h0; h < h1; h++)
                    for (int w = w0; w < w1; w++) {
                        int64_t i = (int64_t)h * s->iw + w;
                        float v = x[i];
                        if (v > mv || isnan(v)) mv = v, mi = i;
                    }
                y[oh * s->ow + ow] = mv;
                ix[oh * s->ow + ow] = mi;
            }
        }
    }
}

// mp_zero is the backward's grad_input.zero_() (a fill over the team).
static void mp_zero(void *p) {
    struct mp *s = (struct mp *)p;
    int64_t lo, hi;
    range(s->planes * s->ih * s->iw, &lo, &hi);
    memset(s->dx + lo, 0, (size_t)(hi - lo) * sizeof(float));
}

// mp_bwd is cpu_max_pool_backward: each output's gradient added at its
// maximum's index.
static void mp_bwd(void *p) {
    struct mp *s = (struct mp *)p;
    int64_t lo, hi, per = (int64_t)s->oh * s->ow;
    range(s->planes, &lo, &hi);
    for (int64_t c = lo; c < hi; c++) {
        float *dx = s->dx + c * s->ih * s->iw;
        const float *dy = s->dy + c * per;
        const int64_t *ix = s->idx + c * per;
        for (int64_t i = 0; i < per; i++)
            if (ix[i] != -1) dx[ix[i]] += dy[i];
    }
}

static void mp_run(struct mp *s, int pass) {
    int team = nthreads > 1;
    if (pass == WB_FORWARD) {
        if (team && s->planes > 1) p_GOMP_parallel(mp_fwd, s, (unsigned)nthreads, 0);
        else mp_fwd(s);
        return;
    }
    if (team && s->planes * s->ih * s->iw >= 32768) p_GOMP_parallel(mp_zero, s, (unsigned)nthreads, 0); // ATen's grain
    else mp_zero(s);
    if (team && s->planes > 1) p_GOMP_parallel(mp_bwd, s, (unsigned)nthreads, 0);
    else mp_bwd(s);
}

// gap_sum is the forward's sums: the calling thread's planes.
static void gap_sum(void *p) {
    struct gap *s = (struct gap *)p;
    int64_t lo, hi;
    range_of(s->planes, nthreads, &lo, &hi);
    for (int64_t i = lo; i < hi; i++) s->y[i] = at_sum(s->x + i * s->hw, s->hw);
}

// gap_div is the forward's div_ of the sums by H·W.
static void gap_div(void *p) {
    struct gap *s = (struct gap *)p;
    int64_t lo, hi;
    range_of(s->planes, nthreads, &lo, &hi);
    vdivs(s->y + lo, (float)s->hw, hi - lo);
}

static void gap_run(struct gap *s) {
    int team = nthreads > 1;
    if (team && s->planes * s->hw >= 32768 && s->planes > 1) p_GOMP_parallel(gap_sum, s, (unsigned)nthreads, 0);
    else gap_sum(s);
    if (team && s->planes >= 32768) p_GOMP_parallel(gap_div, s, (unsigned)nthreads, 0);
    else gap_div(s);
}

// elt_part runs one OpenMP thread's contiguous part of an elementwise step.
static void elt_part(void *p) {
    step *s = (step *)p;
    int64_t lo, hi;
    range_of(s->len, s->team, &lo, &hi);
    switch (s->elt) {
    case ELT_RELU:
        vrelu(s->a + lo, s->c + lo, hi - lo);
        break;
    case ELT_RELU_BWD:
        vrelu_bwd(s->a + lo, s->b + lo, s->c + lo, hi - lo);
        break;
    case ELT_SCALE:
        vscale(s->c + lo, s->alpha, hi - lo);
        break;
    case ELT_AXPY:
        vaxpy(s->c + lo, s->b + lo, s->alpha, hi - lo);
        break;
    case ELT_COLSUM: // len columns of an m-row matrix
        vcolsum(s->a, s->c, s->m, s->len, lo, hi);
        break;
    case ELT_BCAST: // len values, rows of m columns
        vbcast(s->a, s->c, s->m, lo, hi);
        break;
    case ELT_MUL:
        vmul(s->a + lo, s->b + lo, s->c + lo, hi - lo);
        break;
    case ELT_GELU:
        vgelu(s->a + lo, s->c + lo, hi - lo);
        break;
    case ELT_GELU_BWD:
        vgelu_bwd(s->a + lo, s->b + lo, s->c + lo, hi - lo);
        break;
    case ELT_TANH:
        vtanh(s->a + lo, s->c + lo, hi - lo);
        break;
    case ELT_TANH_BWD:
        vtanh_bwd(s->a + lo, s->b + lo, s->c + lo, hi - lo);
        break;
    case ELT_LRELU:
        vlrelu(s->a + lo, s->c + lo, s->alpha, hi - lo);
        break;
    case ELT_LRELU_BWD:
        vlrelu_bwd(s->a + lo, s->b + lo, s->c + lo, s->alpha, hi - lo);
        break;
    case ELT_SIGMOID:
        vsigmoid(s->a + lo, s->c + lo, hi - lo);
        break;
    case ELT_SIGMOID_BWD:
        vsigmoid_bwd(s->a + lo, s->b + lo, s->c + lo, hi - lo);
        break;
    case ELT_SILU:
        vsilu(s->a + lo, s->c + lo, hi - lo);
        break;
    case ELT_SILU_BWD:
        vsilu_bwd(s->a + lo, s->b + lo, s->c + lo, hi - lo);
        break;
    default:
        vadd(s->a + lo, s->b + lo, s->c + lo, hi - lo);
    }
}

// elt_run runs an elementwise step as ATen's TensorIterator does: on the
// calling thread under its grain (32,768 values), else on a team of one
// thread per grain, at most the pool's (at::parallel_for).
static void elt_run(step *s) {
    int64_t work = s->elt == ELT_COLSUM ? s->len * s->m : s->len;
    int64_t want = (work + 32767) / 32768;
    if (s->elt == ELT_GELU || s->elt == ELT_GELU_BWD) // GELU's own rule: every thread past 16,384 values
        want = work > 16384 ? nthreads : 1;
    unsigned team = want < nthreads ? (unsigned)want : (unsigned)nthreads;
    s->team = (int)team;
    if (team > 1)
        p_GOMP_parallel(elt_part, s, (unsigned)nthreads, 0);
    else
        elt_part(s);
}

static int run(wb_op *op) {
    for (int i = 0; i < op->nst; i++) {
        step *s = &op->st[i];
        switch (s->kind) {
        case STEP_PRIM: {
            dnnl_status_t st = p_dnnl_primitive_execute(s->prim, strm, s->nargs, s->args);
            if (st != dnnl_success) return (int)st;
            break;
        }
        case STEP_GEMM:
            for (int j = 0; j < s->count; j++)
                p_cblas_sgemm(CblasRowMajor, s->ta ? CblasTrans : CblasNoTrans, s->tb ? CblasTrans : CblasNoTrans, s->m, s->n, s->k,
                              s->alpha, s->a + j * s->sa, s->lda, s->b + j * s->sb, s->ldb, s->beta, s->c + j * s->sc, s->ldc);
            break;
        case STEP_LSTM:
            lstm_run((struct lstm *)s->data);
            break;
        case STEP_BERNOULLI: // c[i] ← 1 with probability alpha, else 0 (bernoulli_: serial)
            for (int64_t i = 0; i < s->len; i++) c_bern(s->c, i, s->alpha);
            break;
        case STEP_BN:
            bn_run((struct bn *)s->data);
            break;
        case STEP_LN:
            ln_run((struct ln *)s->data);
            break;
        case STEP_SM:
            sm_run((struct sm *)s->data);
            break;
        case STEP_MAXPOOL:
            mp_run((struct mp *)s->data, ((struct mp *)s->data)->pass);
            break;
        case STEP_GAP:
            gap_run((struct gap *)s->data);
            break;
        case STEP_ELT:
            elt_run(s);
            break;
        }
    }
    p_dnnl_stream_wait(strm);
    return 0;
}

int wb_time(wb_op *op, int n, double *out, char *err, int errlen) {
    // oneDNN's scratchpad is per thread and sized by the primitives built
    // on it: run on another thread, a primitive overruns that thread's.
    if (syscall(SYS_gettid) != op->tid) {
        snprintf(err, errlen, "run on thread %ld, built on %ld: a kernel runs on the thread that built it (runtime.LockOSThread)",
                 (long)syscall(SYS_gettid), op->tid);
        return -1;
    }
    // OpenMP's thread count is a property of the calling thread.
    p_omp_set_num_threads(nthreads);
    for (int i = 0; i < n; i++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        int st = run(op);
        clock_gettime(CLOCK_MONOTONIC, &b);
        if (st != 0) {
            snprintf(err, errlen, "oneDNN execute: status %d", st);
            return -1;
        }
        out[i] = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
    }
    return 0;
}

const char *wb_impl(wb_op *op) { return op->impl; }
int64_t wb_bytes(wb_op *op) { return op->bytes; }

void wb_free(wb_op *op) {
    if (!op) return;
    for (int i = 0; i < op->nst; i++)
        if (op->st[i].kind == STEP_PRIM && op->st[i].prim) p_dnnl_primitive_destroy(op->st[i].prim);
    for (int i = 0; i < op->npd; i++) p_dnnl_primitive_desc_destroy(op->pd[i]);
    for (int i = 0; i < op->nmem; i++) p_dnnl_memory_destroy(op->mem[i]);
    for (int i = 0; i < op->nraw; i++) free(op->raw[i]);
    for (int i = 0; i < op->nst; i++) free(op->st[i].data);
    free(op);
}

// el is element (i, j) of a row-major matrix of logical shape [rows, cols],
// stored transposed ([cols, rows]) where t.
static double el(const float *p, int t, int rows, int cols, int i, int j) {
    return t ? p[(int64_t)j * rows + i] : p[(int64_t)i * cols + j];
}

// worst_of is the larger of worst and d, a NaN counted as infinite (so
// that it stays the largest).
static double worst_of(double worst, double d) { return d <= worst ? worst : isnan(d) ? INFINITY : d; }

// worse is worst_of worst and got's difference from want relative to
// want's size (+1).
static double worse(double worst, double got, double want) { return worst_of(worst, fabs(got - want) / (fabs(want) + 1)); }

// prod_err is the larger of worst and the largest difference of c (rows ×
// cols, stored transposed where tc) from bias + p·q, p rows × inner and q
// inner × cols (each stored transposed where its flag says; bias, if not
// NULL, one value per column), summed in double, relative to the sum of
// the products' magnitudes (+1) (worst_of).
static double prod_err(double worst, const float *c, int tc, const float *bias, const float *p, int tp, const float *q,
                       int tq, int rows, int cols, int inner) {
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            double want = bias ? bias[j] : 0, scale = 1;
            for (int r = 0; r < inner; r++) {
                double v = el(p, tp, rows, inner, i, r) * el(q, tq, inner, cols, r, j);
                want += v, scale += fabs(v);
            }
            worst = worst_of(worst, fabs(el(c, tc, rows, cols, i, j) - want) / scale);
        }
    return worst;
}

// wb_linear_check and wb_matmul_check set the operands of a pass (values
// that sgemm computes exactly enough to compare), fill its output with
// 1e30, run it and return prod_err over its outputs.
double wb_linear_check(int64_t rows, int k, int n, int bias) {
    char err[256] = "";
    wb_ctx c = {.limit = (int64_t)1 << 40, .err = err, .errlen = sizeof err};
    wb_op *op = wb_linear(&c, WB_FORWARD, rows, k, n, bias);
    if (!op) return -1;
    step *g = &op->st[bias ? 1 : 0];
    float *x = g->a, *w = g->b, *y = g->c, *b = bias ? op->st[0].a : NULL;
    for (int64_t i = 0; i < rows * k; i++) x[i] = (float)((i * 7) % 13 - 6) / 8;
    for (int64_t i = 0; i < (int64_t)n * k; i++) w[i] = (float)((i * 5) % 11 - 5) / 16;
    if (b)
        for (int j = 0; j < n; j++) b[j] = (float)(j % 3 - 1);
    for (int64_t i = 0; i < rows * n; i++) y[i] = 1e30f; // what the layer must not leave
    double worst = run(op) == 0 ? prod_err(0, y, 0, b, x, 0, w, 1, (int)rows, n, k) : -1; // y = x·Wᵀ + b, W [n, k]
    wb_free(op);
    return worst;
}

double wb_matmul_check(int pass, int g, int m, int n, int k, int transb) {
    char err[256] = "";
    wb_ctx c = {.limit = (int64_t)1 << 40, .err = err, .errlen = sizeof err};
    wb_op *op = wb_matmul(&c, pass, g, m, n, k, transb);
    if (!op) return -1;
    // buffers in the order wb_matmul takes them: a [m, k], b [k, n] (or
    // [n, k] where transb), y [m, n] (dy in the backward), then da, db
    int64_t sa = (int64_t)m * k, sb = (int64_t)k * n, sy = (int64_t)m * n;
    float *a = op->raw[0], *b = op->raw[1], *y = op->raw[2];
    for (int64_t i = 0; i < g * sa; i++) a[i] = (float)((i * 7) % 13 - 6) / 8;
    for (int64_t i = 0; i < g * sb; i++) b[i] = (float)((i * 5) % 11 - 5) / 16;
    for (int64_t i = 0; i < g * sy; i++) y[i] = pass == WB_FORWARD ? 1e30f : (float)((i * 3) % 7 - 3) / 4;
    if (pass != WB_FORWARD) { // the gradients must be written, not accumulated
        for (int64_t i = 0; i < g * sa; i++) op->raw[3][i] = 1e30f;
        for (int64_t i = 0; i < g * sb; i++) op->raw[4][i] = 1e30f;
    }
    double worst = -1;
    if (run(op) == 0) {
        worst = 0;
        for (int64_t q = 0; q < g; q++) {
            const float *aq = a + q * sa, *bq = b + q * sb, *yq = y + q * sy;
            if (pass == WB_FORWARD) {
                worst = prod_err(worst, yq, 0, NULL, aq, 0, bq, transb, m, n, k); // y = a·op(b)
                continue;
            }
            // da = dy·op(b)ᵀ; the gradient of op(b) = aᵀ·dy, stored as b is
            worst = prod_err(worst, op->raw[3] + q * sa, 0, NULL, yq, 0, bq, !transb, m, k, n);
            worst = prod_err(worst, op->raw[4] + q * sb, transb, NULL, aq, 1, yq, 0, k, n, m);
        }
    }
    wb_free(op);
    return worst;
}

// wb_bnorm_check runs a batch norm's pass (training: the batch's
// statistics) on n × ch × hw values it sets and returns the largest
// difference from the formulas in double, relative to the value's size
// (+1): forward the mean, 1/σ and y = (x − mean)/σ · w + b; backward
// (from the mean and 1/σ of x) db = Σdy, dw = Σdy·x̂ and
// dx = w/σ · (dy − db/N − x̂·dw/N), x̂ = (x − mean)/σ, N = n·hw.
double wb_bnorm_check(int pass, int n, int ch, int64_t hw) {
    char err[256] = "";
    wb_ctx c = {.limit = (int64_t)1 << 40, .err = err, .errlen = sizeof err};
    wb_op *op = wb_bnorm(&c, pass, n, ch, hw);
    if (!op) return -1;
    struct bn *s = (struct bn *)op->st[0].data;
    int64_t all = (int64_t)n * ch * hw;
    double cnt = (double)n * (double)hw, worst = -1;
    double *mean = calloc((size_t)ch, sizeof(double)), *inv = calloc((size_t)ch, sizeof(double));
    if (!mean || !inv) goto done;
    for (int64_t i = 0; i < all; i++) s->x[i] = (float)((i * 7) % 23) / 8 - 1;
    for (int j = 0; j < ch; j++) s->w[j] = 0.5f + (float)(j % 5) / 4;
    for (int j = 0; j < ch; j++) { // the batch's statistics, in double
        double sum = 0, var = 0;
        for (int q = 0; q < n; q++)
            for (int64_t i = 0; i < hw; i++) sum += s->x[((int64_t)q * ch + j) * hw + i];
        mean[j] = sum / cnt;
        for (int q = 0; q < n; q++)
            for (int64_t i = 0; i < hw; i++) {
                double d = s->x[((int64_t)q * ch + j) * hw + i] - mean[j];
                var += d * d;
            }
        inv[j] = 1 / sqrt(var / cnt + 1e-5);
    }
    if (pass == WB_FORWARD) {
        for (int j = 0; j < ch; j++) s->b[j] = (float)(j % 3 - 1);
        for (int64_t i = 0; i < all; i++) s->y[i] = 1e30f;
    } else {
        for (int j = 0; j < ch; j++) s->mean[j] = (float)mean[j], s->invstd[j] = (float)inv[j];
        for (int64_t i = 0; i < all; i++) s->dy[i] = (float)((i * 5) % 11 - 5) / 4, s->dx[i] = 1e30f;
    }
    if (run(op) != 0) goto done;
    worst = 0;
    for (int j = 0; j < ch; j++) {
        double db = 0, dw = 0;
        if (pass == WB_FORWARD) {
            worst = worse(worst, s->mean[j], mean[j]);
            worst = worse(worst, s->invstd[j], inv[j]);
        }
        for (int q = 0; q < n; q++)
            for (int64_t i = 0; i < hw; i++) {
                int64_t o = ((int64_t)q * ch + j) * hw + i;
                double xh = (s->x[o] - mean[j]) * inv[j];
                if (pass == WB_FORWARD)
                    worst = worse(worst, s->y[o], xh * s->w[j] + s->b[j]);
                else
                    db += s->dy[o], dw += s->dy[o] * xh;
            }
        if (pass == WB_FORWARD) continue;
        worst = worse(worst, s->db[j], db);
        worst = worse(worst, s->dw[j], dw);
        for (int q = 0; q < n; q++)
            for (int64_t i = 0; i < hw; i++) {
                int64_t o = ((int64_t)q * ch + j) * hw + i;
                double xh = (s->x[o] - mean[j]) * inv[j];
                worst = worse(worst, s->dx[o], s->w[j] * inv[j] * (s->dy[o] - db / cnt - xh * dw / cnt));
            }
    }
done:
    free(mean);
    free(inv);
    wb_free(op);
    return worst;
}

static double sigd(double x) { return 1 / (1 + exp(-x)); }

// lstm_set sets a forward LSTM's input, weights, biases and first states
// to fixed values, for the checks below.
static void lstm_set(struct lstm *s) {
    int64_t G = 4 * (int64_t)s->h, bh = (int64_t)s->b * s->h;
    for (int64_t i = 0; i < (int64_t)s->t * s->b * s->d; i++) s->x[i] = (float)((i * 7) % 13 - 6) / 8;
    for (int li = 0; li < s->layers; li++) {
        for (int64_t i = 0; i < G * s->l[li].in; i++) s->l[li].wih[i] = (float)((i * 5 + li) % 11 - 5) / 16;
        for (int64_t i = 0; i < G * s->h; i++) s->l[li].whh[i] = (float)((i * 3 + li) % 7 - 3) / 16;
        for (int64_t j = 0; j < G; j++) s->l[li].bias[j] = (float)(j % 5 - 2) / 8;
        for (int64_t i = 0; i < bh; i++) s->l[li].h0[i] = (float)(i % 3 - 1) / 4, s->l[li].c0[i] = (float)(i % 5 - 2) / 4;
    }
}

// wb_lstm_check runs an LSTM stack's forward (t steps of b sequences, d
// inputs, h hidden units, layers layers) on weights it sets and returns
// the largest difference of every layer's outputs and cells from
// torch.nn.LSTM's recurrence in double (gates i, f, g, o of
// x·W_ihᵀ + h·W_hhᵀ + bias; c = f·c + i·g; h = o·tanh(c)), relative to
// the value's size (+1).
double wb_lstm_check(int t, int b, int d, int h, int layers) {
    char err[256] = "";
    wb_ctx c = {.limit = (int64_t)1 << 40, .err = err, .errlen = sizeof err};
    wb_op *op = wb_lstm(&c, WB_FORWARD, t, b, d, h, layers);
    if (!op) return -1;
    struct lstm *s = (struct lstm *)op->st[0].data;
    int G = 4 * h;
    lstm_set(s);
    double worst = -1, *hc = calloc((size_t)b * h * 2, sizeof(double)), *gate = calloc((size_t)G, sizeof(double));
    if (!hc || !gate || run(op) != 0) goto done;
    worst = 0;
    for (int li = 0; li < layers; li++) {
        int in = s->l[li].in;
        const float *x = li == 0 ? s->x : s->l[li - 1].hs; // the layer below's outputs, as computed
        double *hd = hc, *cd = hc + (int64_t)b * h;
        for (int64_t i = 0; i < (int64_t)b * h; i++) hd[i] = s->l[li].h0[i], cd[i] = s->l[li].c0[i];
        for (int st = 0; st < t; st++)
            for (int q = 0; q < b; q++) {
                const float *xt = x + ((int64_t)st * b + q) * in;
                for (int j = 0; j < G; j++) {
                    double v = s->l[li].bias[j];
                    for (int r = 0; r < in; r++) v += (double)xt[r] * s->l[li].wih[(int64_t)j * in + r];
                    for (int r = 0; r < h; r++) v += hd[(int64_t)q * h + r] * s->l[li].whh[(int64_t)j * h + r];
                    gate[j] = v;
                }
                for (int j = 0; j < h; j++) { // h of this sequence is read above before it is written here
                    double cn = sigd(gate[h + j]) * cd[(int64_t)q * h + j] + sigd(gate[j]) * tanh(gate[2 * h + j]);
                    double hn = sigd(gate[3 * h + j]) * tanh(cn);
                    int64_t o = ((int64_t)st * b + q) * h + j;
                    worst = worse(worse(worst, s->l[li].c[o], cn), s->l[li].hs[o], hn);
                    cd[(int64_t)q * h + j] = cn;
                }
                for (int j = 0; j < h; j++) hd[(int64_t)q * h + j] = sigd(gate[3 * h + j]) * tanh(cd[(int64_t)q * h + j]);
            }
    }
done:
    free(hc);
    free(gate);
    wb_free(op);
    return worst;
}

// wb_lstm_bwd_check runs an LSTM stack's forward, hands its saved
// activations (gates after their nonlinearities, cells) and weights to the
// backward-data pass, runs that on an output gradient it sets, and returns
// the largest difference of every layer's pre-activation gradients and
// input gradients from backpropagation through time in double, relative to
// the value's size (+1).
double wb_lstm_bwd_check(int t, int b, int d, int h, int layers) {
    char err[256] = "";
    wb_ctx c = {.limit = (int64_t)1 << 40, .err = err, .errlen = sizeof err};
    wb_op *fw = wb_lstm(&c, WB_FORWARD, t, b, d, h, layers), *bw = wb_lstm(&c, WB_BACKWARD_DATA, t, b, d, h, layers);
    double worst = -1, *dh = NULL, *dc = NULL, *dg = NULL, *dx = NULL, *dyd = NULL;
    if (!fw || !bw) goto done;
    struct lstm *f = (struct lstm *)fw->st[0].data, *s = (struct lstm *)bw->st[0].data;
    int G = 4 * h;
    int64_t rows = (int64_t)t * b, bh = (int64_t)b * h, wide = d > h ? d : h;
    lstm_set(f);
    if (run(fw) != 0) goto done;
    for (int li = 0; li < layers; li++) { // what autograd saves for the backward
        int in = f->l[li].in;
        memcpy(s->l[li].wih, f->l[li].wih, (size_t)G * in * 4);
        memcpy(s->l[li].whh, f->l[li].whh, (size_t)G * h * 4);
        memcpy(s->l[li].c0, f->l[li].c0, (size_t)bh * 4);
        memcpy(s->l[li].gates, f->l[li].gates, (size_t)(rows * G) * 4);
        memcpy(s->l[li].c, f->l[li].c, (size_t)(rows * h) * 4);
        for (int64_t i = 0; i < rows * G; i++) s->l[li].dg[i] = 1e30f;
        for (int64_t i = 0; i < rows * in; i++) s->l[li].dx[i] = 1e30f;
    }
    for (int64_t i = 0; i < rows * h; i++) s->dy[i] = (float)((i * 3) % 7 - 3) / 4;
    dh = calloc((size_t)bh, sizeof(double)), dc = calloc((size_t)bh, sizeof(double));
    dg = calloc((size_t)(rows * G), sizeof(double)), dx = calloc((size_t)(rows * wide), sizeof(double));
    dyd = calloc((size_t)(rows * wide), sizeof(double));
    if (!dh || !dc || !dg || !dx || !dyd || run(bw) != 0) goto done;
    worst = 0;
    for (int64_t i = 0; i < rows * h; i++) dyd[i] = s->dy[i];
    for (int li = layers - 1; li >= 0; li--) {
        int in = s->l[li].in;
        const float *gates = s->l[li].gates, *cs = s->l[li].c;
        memset(dh, 0, (size_t)bh * sizeof(double));
        memset(dc, 0, (size_t)bh * sizeof(double));
        for (int st = t - 1; st >= 0; st--) {
            for (int q = 0; q < b; q++)
                for (int j = 0; j < h; j++) {
                    int64_t k = (int64_t)q * h + j, o = (int64_t)st * bh + k;
                    const float *g = gates + ((int64_t)st * b + q) * G;
                    double i = g[j], fg = g[h + j], gg = g[2 * h + j], og = g[3 * h + j];
                    double cp = st == 0 ? s->l[li].c0[k] : cs[o - bh], tc = tanh(cs[o]);
                    double dhk = dyd[o] + dh[k], dck = dc[k] + dhk * og * (1 - tc * tc);
                    double *dgo = dg + ((int64_t)st * b + q) * G;
                    dgo[j] = dck * gg * i * (1 - i);
                    dgo[h + j] = dck * cp * fg * (1 - fg);
                    dgo[2 * h + j] = dck * i * (1 - gg * gg);
                    dgo[3 * h + j] = dhk * tc * og * (1 - og);
                    dc[k] = dck * fg;
                }
            for (int q = 0; q < b; q++) // dh ← dG_t · W_hh
                for (int r = 0; r < h; r++) {
                    double v = 0;
                    for (int j = 0; j < G; j++) v += dg[((int64_t)st * b + q) * G + j] * s->l[li].whh[(int64_t)j * h + r];
                    dh[(int64_t)q * h + r] = v;
                }
        }
        for (int64_t r = 0; r < rows; r++) // dx = dG · W_ih
            for (int p = 0; p < in; p++) {
                double v = 0;
                for (int j = 0; j < G; j++) v += dg[r * G + j] * s->l[li].wih[(int64_t)j * in + p];
                dx[r * in + p] = v;
            }
        for (int64_t i = 0; i < rows * G; i++) worst = worse(worst, s->l[li].dg[i], dg[i]);
        for (int64_t i = 0; i < rows * in; i++) {
            worst = worse(worst, s->l[li].dx[i], dx[i]);
            dyd[i] = dx[i]; // the layer below's output gradient
        }
    }
done:
    free(dh), free(dc), free(dg), free(dx), free(dyd);
    wb_free(fw);
    wb_free(bw);
    return worst;
}

// wb_maxpool_check runs a max pooling's pass on n × ch planes of ih × iw
// values it sets (with ties) and returns the largest difference from
// ATen's cpu_max_pool in double: forward each output the first maximum of
// its window in row-major order, and its index; backward each output's
// gradient added at that index. Relative to the value's size (+1); a
// wrong index counts as 1.
double wb_maxpool_check(int pass, int n, int ch, int ih, int iw, int kh, int kw, int sh, int sw, int ph, int pw) {
    char err[256] = "";
    wb_ctx c = {.limit = (int64_t)1 << 40, .err = err, .errlen = sizeof err};
    wb_op *op = wb_pool(&c, pass, 0, n, ch, ih, iw, kh, kw, sh, sw, ph, pw);
    if (!op) return -1;
    struct mp *s = (struct mp *)op->st[0].data;
    int64_t plane = (int64_t)ih * iw, per = (int64_t)s->oh * s->ow, in = s->planes * plane;
    double worst = -1, *dx = NULL;
    for (int64_t i = 0; i < in; i++) s->x[i] = (float)((i * 7) % 5); // five values: ties in most windows, the first maximum wins
    if (pass == WB_FORWARD) {
        for (int64_t i = 0; i < s->planes * per; i++) s->y[i] = 1e30f, s->idx[i] = -7;
    } else {
        mp_run(s, WB_FORWARD); // the indices, as the builder takes them
        for (int64_t i = 0; i < s->planes * per; i++) s->dy[i] = (float)((i * 5) % 11 - 5) / 4;
        for (int64_t i = 0; i < in; i++) s->dx[i] = 1e30f;
        if (!(dx = calloc((size_t)in, sizeof(double)))) goto done;
    }
    if (run(op) != 0) goto done;
    worst = 0;
    for (int64_t q = 0; q < s->planes; q++)
        for (int oh = 0; oh < s->oh; oh++)
            for (int ow = 0; ow < s->ow; ow++) {
                int h0 = oh * sh - ph, w0 = ow * sw - pw, h1 = h0 + kh < ih ? h0 + kh : ih, w1 = w0 + kw < iw ? w0 + kw : iw;
                h0 = h0 < 0 ? 0 : h0, w0 = w0 < 0 ? 0 : w0;
                int64_t best = -1, o = q * per + (int64_t)oh * s->ow + ow;
                for (int y = h0; y < h1; y++)
                    for (int x = w0; x < w1; x++)
                        if (best < 0 || s->x[q * plane + (int64_t)y * iw + x] > s->x[q * plane + best]) best = (int64_t)y * iw + x;
                if (pass == WB_FORWARD) {
                    worst = worse(worst, s->y[o], s->x[q * plane + best]);
                    if (s->idx[o] != best) worst = worst_of(worst, 1);
                } else {
                    dx[q * plane + best] += s->dy[o];
                }
            }
    if (pass != WB_FORWARD)
        for (int64_t i = 0; i < in; i++) worst = worse(worst, s->dx[i], dx[i]);
done:
    free(dx);
    wb_free(op);
    return worst;
}

// wb_gap_check runs a global average pooling's forward (as ATen's mean)
// on n × ch planes of ih × iw values it sets and returns the largest
// difference (relative, +1) from the mean of each plane in double.
double wb_gap_check(int n, int ch, int ih, int iw) {
    char err[256] = "";
    wb_ctx c = {.limit = (int64_t)1 << 40, .err = err, .errlen = sizeof err};
    wb_op *op = wb_pool(&c, WB_FORWARD, 2, n, ch, ih, iw, ih, iw, 1, 1, 0, 0);
    if (!op) return -1;
    struct gap *s = (struct gap *)op->st[0].data;
    int64_t in = s->planes * s->hw;
    double worst = -1;
    for (int64_t i = 0; i < in; i++) s->x[i] = (float)((i * 7) % 13 - 6) / 4;
    for (int64_t i = 0; i < s->planes; i++) s->y[i] = 1e30f;
    if (run(op) != 0) goto done;
    worst = 0;
    for (int64_t q = 0; q < s->planes; q++) {
        double sum = 0;
        for (int64_t i = 0; i < s->hw; i++) sum += s->x[q * s->hw + i];
        worst = worse(worst, s->y[q], sum / (double)s->hw);
    }
done:
    wb_free(op);
    return worst;
}

// wb_lstm_bww_check runs an LSTM stack's backward weights on
// pre-activation gradients, inputs and previous hidden states it sets and
// returns the largest difference (prod_err) of every layer's
// dW_ih = dGᵀ·input, dW_hh = dGᵀ·h_prev (summed a step at a time) and
// db_ih = db_hh = Σ dG from sums in double.
double wb_lstm_bww_check(int t, int b, int d, int h, int layers) {
    char err[256] = "";
    wb_ctx c = {.limit = (int64_t)1 << 40, .err = err, .errlen = sizeof err};
    wb_op *op = wb_lstm(&c, WB_BACKWARD_WEIGHTS, t, b, d, h, layers);
    if (!op) return -1;
    struct lstm *s = (struct lstm *)op->st[0].data;
    int G = 4 * h, rows = t * b;
    float *ones = malloc((size_t)rows * sizeof(float));
    double worst = -1;
    if (!ones) goto done;
    for (int r = 0; r < rows; r++) ones[r] = 1;
    for (int64_t i = 0; i < (int64_t)rows * d; i++) s->x[i] = (float)((i * 7) % 13 - 6) / 8;
    for (int li = 0; li < layers; li++) {
        if (li < layers - 1)
            for (int64_t i = 0; i < (int64_t)rows * h; i++) s->l[li].hs[i] = (float)((i * 3 + li) % 7 - 3) / 4;
        for (int64_t i = 0; i < (int64_t)rows * G; i++) s->l[li].dg[i] = (float)((i * 5 + li) % 11 - 5) / 16;
        for (int64_t i = 0; i < (int64_t)rows * h; i++) s->l[li].hprev[i] = (float)((i * 2 + li) % 9 - 4) / 4;
        for (int64_t i = 0; i < (int64_t)G * s->l[li].in; i++) s->l[li].dwih[i] = 1e30f;
        for (int64_t i = 0; i < (int64_t)G * h; i++) s->l[li].dwhh[i] = 1e30f;
        for (int j = 0; j < G; j++) s->l[li].db[j] = s->l[li].dbhh[j] = 1e30f;
    }
    if (run(op) != 0) goto done;
    worst = 0;
    for (int li = 0; li < layers; li++) {
        const float *in = li == 0 ? s->x : s->l[li - 1].hs;
        int D = s->l[li].in;
        worst = prod_err(worst, s->l[li].dwih, 0, NULL, s->l[li].dg, 1, in, 0, G, D, rows);
        worst = prod_err(worst, s->l[li].dwhh, 0, NULL, s->l[li].dg, 1, s->l[li].hprev, 0, G, h, rows);
        worst = prod_err(worst, s->l[li].db, 0, NULL, s->l[li].dg, 1, ones, 0, G, 1, rows);   // b_ih: Σ rows dG
        worst = prod_err(worst, s->l[li].dbhh, 0, NULL, s->l[li].dg, 1, ones, 0, G, 1, rows); // b_hh: Σ steps Σ rows dG
    }
done:
    free(ones);
    wb_free(op);
    return worst;
}

uint32_t wb_mt_nth(uint32_t seed, int n) {
    mt19937 g;
    mt_seed(&g, seed);
    uint32_t v = 0;
    for (int i = 0; i < n; i++) v = mt_next(&g);
    return v;
}

// wb_dropout_check runs a dropout's pass (p = 0.1) over elems values and
// returns the largest relative difference of its output from x · noise
// (forward: every noise value must be 0 or 1/(1 − p), and the share of
// zeros within 0.02 of p where there are at least 10,000 values; else 1e9),
// −1 where it did not build or run.
double wb_dropout_check(int pass, int64_t elems) {
    char err[256] = "";
    wb_ctx c = {.limit = (int64_t)1 << 40, .err = err, .errlen = sizeof err};
    const float p = 0.1f;
    wb_op *op = wb_dropout(&c, pass, elems, p);
    if (!op) return -1;
    step *m = &op->st[op->nst - 1]; // the product: c ← a · b
    for (int64_t i = 0; i < elems; i++) m->a[i] = (float)((i * 7) % 23) / 8 - 1, m->c[i] = 1e30f;
    if (pass != WB_FORWARD)
        for (int64_t i = 0; i < elems; i++) m->b[i] = (float)(i % 3) / 2;
    double worst = -1;
    if (run(op) == 0) {
        worst = 0;
        int64_t zeros = 0;
        for (int64_t i = 0; i < elems; i++) {
            float k = m->b[i];
            if (pass == WB_FORWARD) {
                if (k == 0) zeros++;
                else if (fabsf(k - 1 / (1 - p)) > 1e-6f) worst = 1e9;
            }
            worst = worse(worst, m->c[i], (double)m->a[i] * k);
        }
        if (pass == WB_FORWARD && elems >= 10000 && fabs((double)zeros / elems - p) > 0.02) worst = 1e9;
    }
    wb_free(op);
    return worst;
}

// wb_act_check runs an activation's pass (alg as wb_eltwise's: 0 leaky
// relu of slope 0.2, 1 gelu with the tanh approximation, 2 tanh, 3
// sigmoid, 4 silu; 5 relu) over elems values and returns the largest
// relative difference from the formula in double (tanh's and sigmoid's
// backward from their output), −1 where it did not build or run.
double wb_act_check(int alg, int pass, int64_t elems) {
    char err[256] = "";
    wb_ctx c = {.limit = (int64_t)1 << 40, .err = err, .errlen = sizeof err};
    float slope = alg == 0 ? 0.2f : alg == 4 ? 1 : 0;
    wb_op *op = wb_eltwise(&c, pass, alg == 5 ? 0 : alg, slope, elems); // 5: relu
    if (!op) return -1;
    step *e = &op->st[0];
    if (op->nst != 1 || e->kind != STEP_ELT) {
        wb_free(op);
        return -1;
    }
    for (int64_t i = 0; i < elems; i++) {
        e->a[i] = (float)((i * 37) % 4001 - 2000) / 200; // −10 … 10
        if (alg == 2 && pass != WB_FORWARD) e->a[i] = (float)tanh(e->a[i]);
        if (alg == 3 && pass != WB_FORWARD) e->a[i] = (float)(1 / (1 + exp(-e->a[i])));
        if (alg == 5 && pass != WB_FORWARD && e->a[i] < 0) e->a[i] = 0; // an output of relu
        if (e->b) e->b[i] = (float)((i * 5) % 11 - 5) / 4;
        e->c[i] = 1e30f;
    }
    double worst = -1;
    if (run(op) == 0) {
        worst = 0;
        const double beta = sqrt(2 / M_PI), kappa = 0.044715;
        for (int64_t i = 0; i < elems; i++) {
            double x = e->a[i], want;
            if (alg == 1) {
                double t = tanh(beta * (x + kappa * x * x * x));
                want = pass == WB_FORWARD ? 0.5 * x * (1 + t)
                                          : e->b[i] * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * beta * (1 + 3 * kappa * x * x));
            } else if (alg == 2) {
                want = pass == WB_FORWARD ? tanh(x) : e->b[i] * (1 - x * x);
            } else if (alg == 5) {
                want = pass == WB_FORWARD ? (x < 0 ? 0 : x) : (x <= 0 ? 0 : e->b[i]);
            } else if (alg == 0) {
                want = pass == WB_FORWARD ? (x > 0 ? x : 0.2 * x) : (x > 0 ? e->b[i] : 0.2 * e->b[i]);
            } else if (alg == 3) {
                want = pass == WB_FORWARD ? 1 / (1 + exp(-x)) : e->b[i] * (1 - x) * x;
            } else {
                double sg = 1 / (1 + exp(-x));
                want = pass == WB_FORWARD ? x * sg : e->b[i] * sg * (1 + x * (1 - sg));
            }
            worst = worse(worst, e->c[i], want);
        }
    }
    wb_free(op);
    return worst;
}

// lnorm_bwd_check runs a layer norm's backward over rows × cols (each
// row's mean and 1/σ given) and returns the largest relative difference
// of dx, dγ and dβ from the formulas in double.
static double lnorm_bwd_check(int64_t rows, int cols) {
    char err[256] = "";
    wb_ctx c = {.limit = (int64_t)1 << 40, .err = err, .errlen = sizeof err};
    wb_op *op = wb_lnorm(&c, WB_BACKWARD_DATA, rows, cols);
    if (!op) return -1;
    struct ln *l = (struct ln *)op->st[0].data;
    for (int64_t i = 0; i < rows * cols; i++)
        l->x[i] = (float)((i * 7) % 23) / 8 - 1, l->dy[i] = (float)((i * 5) % 11 - 5) / 4, l->dx[i] = 1e30f;
    for (int j = 0; j < cols; j++) l->g[j] = 0.5f + (float)(j % 5) / 4, l->dg[j] = l->db[j] = 1e30f;
    for (int64_t r = 0; r < rows; r++) l->mean[r] = (float)(r % 3) / 4, l->rstd[r] = 0.5f + (float)(r % 4) / 8;
    double worst = -1;
    double *dg = calloc((size_t)cols, sizeof(double)), *db = calloc((size_t)cols, sizeof(double));
    if (dg && db && run(op) == 0) {
        worst = 0;
        for (int64_t r = 0; r < rows; r++) {
            const float *x = l->x + r * cols, *dy = l->dy + r * cols;
            double a = l->rstd[r], m = l->mean[r], ds = 0, dsum = 0;
            for (int j = 0; j < cols; j++) {
                dg[j] += dy[j] * (x[j] - m) * a, db[j] += dy[j];
                ds += (double)dy[j] * x[j] * l->g[j], dsum += (double)dy[j] * l->g[j];
            }
            double b = (dsum * m - ds) * a * a * a / cols, cc = -b * m - dsum * a / cols;
            for (int j = 0; j < cols; j++) worst = worse(worst, l->dx[r * cols + j], a * dy[j] * l->g[j] + b * x[j] + cc);
        }
        for (int j = 0; j < cols; j++) {
            worst = worse(worst, l->dg[j], dg[j]);
            worst = worse(worst, l->db[j], db[j]);
        }
    }
    free(dg);
    free(db);
    wb_free(op);
    return worst;
}

// wb_lnorm_check runs a layer norm's forward over rows × cols and returns
// the largest relative difference of its outputs, means and 1/σ from the
// formulas in double, −1 where it did not build or run.
double wb_lnorm_check(int pass, int64_t rows, int cols) {
    if (pass != WB_FORWARD) return lnorm_bwd_check(rows, cols);
    char err[256] = "";
    wb_ctx c = {.limit = (int64_t)1 << 40, .err = err, .errlen = sizeof err};
    wb_op *op = wb_lnorm(&c, WB_FORWARD, rows, cols);
    if (!op) return -1;
    struct ln *l = (struct ln *)op->st[0].data;
    for (int64_t i = 0; i < rows * cols; i++) l->x[i] = (float)((i * 7) % 23) / 8 - 1 + (float)(i / cols % 5), l->y[i] = 1e30f;
    for (int j = 0; j < cols; j++) l->g[j] = 0.5f + (float)(j % 5) / 4, l->b[j] = (float)(j % 3 - 1);
    double worst = -1;
    if (run(op) == 0) {
        worst = 0;
        for (int64_t r = 0; r < rows; r++) {
            const float *x = l->x + r * cols;
            double sum = 0, var = 0;
            for (int j = 0; j < cols; j++) sum += x[j];
            double mean = sum / cols;
            for (int j = 0; j < cols; j++) var += (x[j] - mean) * (x[j] - mean);
            double rstd = 1 / sqrt(var / cols + 1e-5);
            worst = worse(worst, l->mean[r], mean);
            worst = worse(worst, l->rstd[r], rstd);
            for (int j = 0; j < cols; j++) worst = worse(worst, l->y[r * cols + j], (x[j] - mean) * rstd * l->g[j] + l->b[j]);
        }
    }
    wb_free(op);
    return worst;
}

// wb_softmax_check runs a softmax's pass over blocks × rows × cols (no
// scale, no mask) and returns the largest relative difference from the
// formulas in double (backward from a softmax's output), −1 where it did
// not build or run.
double wb_softmax_check(int pass, int64_t blocks, int rows, int cols) {
    char err[256] = "";
    wb_ctx c = {.limit = (int64_t)1 << 40, .err = err, .errlen = sizeof err};
    wb_op *op = wb_softmax(&c, pass, blocks, rows, cols, 1, 0);
    if (!op) return -1;
    struct sm *m = NULL;
    for (int i = 0; i < op->nst; i++)
        if (op->st[i].kind == STEP_SM) m = (struct sm *)op->st[i].data;
    if (!m) {
        wb_free(op);
        return -1;
    }
    int64_t R = m->rows, N = m->cols;
    for (int64_t r = 0; r < R; r++) {
        double sum = 0;
        for (int64_t j = 0; j < N; j++) {
            float v = (float)((r * 131 + j * 7) % 41) / 4 - 5; // −5 … 5
            if (pass == WB_FORWARD) m->x[r * N + j] = v, m->y[r * N + j] = 1e30f;
            else m->y[r * N + j] = (float)exp(v), sum += exp(v);
        }
        if (pass != WB_FORWARD)
            for (int64_t j = 0; j < N; j++)
                m->y[r * N + j] = (float)(m->y[r * N + j] / sum), m->dy[r * N + j] = (float)((r + j * 5) % 11 - 5) / 4, m->dx[r * N + j] = 1e30f;
    }
    double worst = -1;
    if (run(op) == 0) {
        worst = 0;
        for (int64_t r = 0; r < R; r++) {
            if (pass == WB_FORWARD) {
                double mx = -INFINITY, sum = 0;
                for (int64_t j = 0; j < N; j++) mx = fmax(mx, m->x[r * N + j]);
                for (int64_t j = 0; j < N; j++) sum += exp(m->x[r * N + j] - mx);
                for (int64_t j = 0; j < N; j++) worst = worse(worst, m->y[r * N + j], exp(m->x[r * N + j] - mx) / sum);
            } else {
                double dot = 0;
                for (int64_t j = 0; j < N; j++) dot += (double)m->dy[r * N + j] * m->y[r * N + j];
                for (int64_t j = 0; j < N; j++) worst = worse(worst, m->dx[r * N + j], (m->dy[r * N + j] - dot) * m->y[r * N + j]);
            }
        }
    }
    wb_free(op);
    return worst;
}
