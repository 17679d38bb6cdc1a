// wb's own CUDA kernels, for the ops cuDNN's legacy API has no routine for,
// or runs otherwise than PyTorch: the gelu (tanh approximation) and
// leaky-relu activations, layer normalisation over the last dimension, the
// embedding's gather and scatter-add, dropout, concatenation, token
// selection, nearest up-sampling and zero padding, the optimiser's step
// (torch.optim.SGD with momentum, foreach or fused), a linear layer's bias
// gradient after the weights' product, a convolution's bias gradient, and
// the pseudo-random values every buffer is filled with at preparation. NVRTC compiles this file at run
// time (it is embedded in the Go package); it includes no header, so it
// compiles without the CUDA toolkit's include folder: half and bfloat16
// values are 16-bit integers converted with PTX instructions, and the
// transcendentals are PTX's approximate ex2 and rsqrt.
//
// Every kernel is extern "C" (its name is the symbol cuModuleGetFunction
// looks up), one per op, pass and type: _f32 (float), _f16 (IEEE half),
// _bf16 (bfloat16). Arithmetic is in float. Elementwise kernels loop over
// their n values with a grid stride; layer-norm kernels take one row per
// block (256 threads) for the statistics and the input's gradient, and a
// column per thread, rows in chunks per block, for the parameters'
// gradients, accumulated in float with atomic adds.

typedef unsigned short u16;
typedef unsigned char u8;
struct h16 { u16 v; };
struct b16 { u16 v; };

__device__ __forceinline__ float to_f(float x) { return x; }
__device__ __forceinline__ float to_f(h16 x) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(x.v));
    return f;
}
__device__ __forceinline__ float to_f(b16 x) {
    float f;
    unsigned u = ((unsigned)x.v) << 16;
    asm("mov.b32 %0, %1;" : "=f"(f) : "r"(u));
    return f;
}
__device__ __forceinline__ void from_f(float f, float *out) { *out = f; }
__device__ __forceinline__ void from_f(float f, h16 *out) {
    u16 v;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(v) : "f"(f));
    out->v = v;
}
__device__ __forceinline__ void from_f(float f, b16 *out) {
    unsigned u;
    asm("mov.b32 %0, %1;" : "=r"(u) : "f"(f));
    u += 0x7fffu + ((u >> 16) & 1u); // round to nearest even
    out->v = (u16)(u >> 16);
}

__device__ __forceinline__ float ex2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
__device__ __forceinline__ float rsqrt_f(float x) {
    float y;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
__device__ __forceinline__ void atomic_add_f(float *p, float v) {
    asm volatile("red.global.add.f32 [%0], %1;" :: "l"(p), "f"(v) : "memory");
}
// tanh(x) = 1 − 2 / (e^{2x} + 1), e^{2x} = 2^{2x·log2(e)}.
__device__ __forceinline__ float tanh_f(float x) {
    return 1.0f - 2.0f / (ex2(2.8853900817779268f * x) + 1.0f);
}

// gelu, tanh approximation: y = x/2 · (1 + tanh(k(x + 0.044715x³))),
// k = √(2/π).
__device__ __forceinline__ float gelu_f(float x) {
    const float k = 0.7978845608028654f;
    return 0.5f * x * (1.0f + tanh_f(k * (x + 0.044715f * x * x * x)));
}
__device__ __forceinline__ float gelu_grad_f(float x) {
    const float k = 0.7978845608028654f;
    float t = tanh_f(k * (x + 0.044715f * x * x * x));
    return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * k * (1.0f + 3.0f * 0.044715f * x * x);
}
// leaky relu, PyTorch's default slope 0.01.
__device__ __forceinline__ float leaky_f(float x) { return x > 0.0f ? x : 0.01f * x; }
__device__ __forceinline__ float leaky_grad_f(float x) { return x > 0.0f ? 1.0f : 0.01f; }

#define GRID_STRIDE(i, n) \
    for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (long)blockDim.x * gridDim.x)

// y = f(x); dx = dy · f'(x).
#define ACTIVATION(NAME, F, GRAD, T, SUFFIX)                                                     \
    extern "C" __global__ void wb_##NAME##_fwd_##SUFFIX(const T *x, T *y, long n) {              \
        GRID_STRIDE(i, n) { from_f(F(to_f(x[i])), &y[i]); }                                      \
    }                                                                                            \
    extern "C" __global__ void wb_##NAME##_bwd_##SUFFIX(const T *dy, const T *x, T *dx, long n) { \
        GRID_STRIDE(i, n) { from_f(to_f(dy[i]) * GRAD(to_f(x[i])), &dx[i]); }                    \
    }

#define LN_THREADS 256

// Sums a and b over the block's LN_THREADS threads; every thread gets the sums.
__device__ __forceinline__ void block_sum2(float *a, float *b) {
    __shared__ float sa[LN_THREADS], sb[LN_THREADS];
    sa[threadIdx.x] = *a;
    sb[threadIdx.x] = *b;
    __syncthreads();
    for (int s = LN_THREADS / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            sa[threadIdx.x] += sa[threadIdx.x + s];
            sb[threadIdx.x] += sb[threadIdx.x + s];
        }
        __syncthreads();
    }
    *a = sa[0];
    *b = sb[0];
    __syncthreads();
}

// Layer normalisation over rows of d values: one block per row.
// Forward: y = (x − mean)·rstd·gamma + beta, saving mean and rstd per row.
// Backward (input): dx = rstd·(g − mean(g) − x̂·mean(g·x̂)), g = dy·gamma.
// Backward (parameters): dgamma += Σ_rows dy·x̂, dbeta += Σ_rows dy over
// chunk rows per block (dgamma and dbeta zeroed before).
#define LAYERNORM(T, SUFFIX)                                                                     \
    extern "C" __global__ void wb_layernorm_fwd_##SUFFIX(const T *x, const T *gamma, const T *beta, \
                                                         T *y, float *mean, float *rstd, int d,  \
                                                         float eps) {                            \
        const T *xr = x + (long)blockIdx.x * d;                                                  \
        T *yr = y + (long)blockIdx.x * d;                                                        \
        float s = 0.0f, ss = 0.0f;                                                               \
        for (int j = threadIdx.x; j < d; j += LN_THREADS) {                                      \
            float v = to_f(xr[j]);                                                               \
            s += v;                                                                              \
            ss += v * v;                                                                         \
        }                                                                                        \
        block_sum2(&s, &ss);                                                                     \
        float mu = s / d;                                                                        \
        float var = ss / d - mu * mu;                                                            \
        float r = rsqrt_f((var > 0.0f ? var : 0.0f) + eps);                                      \
        if (threadIdx.x == 0) {                                                                  \
            mean[blockIdx.x] = mu;                                                               \
            rstd[blockIdx.x] = r;                                                                \
        }                                                                                        \
        for (int j = threadIdx.x; j < d; j += LN_THREADS) {                                      \
            from_f((to_f(xr[j]) - mu) * r * to_f(gamma[j]) + to_f(beta[j]), &yr[j]);             \
        }                                                                                        \
    }                                                                                            \
    extern "C" __global__ void wb_layernorm_bwd_##SUFFIX(const T *dy, const T *x, const T *gamma, \
                                                         const float *mean, const float *rstd,   \
                                                         T *dx, int d) {                         \
        long off = (long)blockIdx.x * d;                                                         \
        float mu = mean[blockIdx.x], r = rstd[blockIdx.x];                                       \
        float sg = 0.0f, sgx = 0.0f;                                                             \
        for (int j = threadIdx.x; j < d; j += LN_THREADS) {                                      \
            float g = to_f(dy[off + j]) * to_f(gamma[j]);                                        \
            sg += g;                                                                             \
            sgx += g * (to_f(x[off + j]) - mu) * r;                                              \
        }                                                                                        \
        block_sum2(&sg, &sgx);                                                                   \
        sg /= d;                                                                                 \
        sgx /= d;                                                                                \
        for (int j = threadIdx.x; j < d; j += LN_THREADS) {                                      \
            float xh = (to_f(x[off + j]) - mu) * r;                                              \
            float g = to_f(dy[off + j]) * to_f(gamma[j]);                                        \
            from_f(r * (g - sg - xh * sgx), &dx[off + j]);                                       \
        }                                                                                        \
    }                                                                                            \
    extern "C" __global__ void wb_layernorm_bwd_params_##SUFFIX(const T *dy, const T *x,         \
                                                                const float *mean,               \
                                                                const float *rstd, float *dgamma, \
                                                                float *dbeta, int rows, int d,   \
                                                                int chunk) {                     \
        int j = blockIdx.x * blockDim.x + threadIdx.x;                                           \
        if (j >= d) return;                                                                      \
        int first = blockIdx.y * chunk;                                                          \
        int last = first + chunk < rows ? first + chunk : rows;                                  \
        float sg = 0.0f, sb = 0.0f;                                                              \
        for (int i = first; i < last; i++) {                                                     \
            float g = to_f(dy[(long)i * d + j]);                                                 \
            sg += g * (to_f(x[(long)i * d + j]) - mean[i]) * rstd[i];                            \
            sb += g;                                                                             \
        }                                                                                        \
        atomic_add_f(&dgamma[j], sg);                                                            \
        atomic_add_f(&dbeta[j], sb);                                                             \
    }

// Embedding: a [vocab, dim] table, n token ids (int64, as PyTorch indexes).
// Forward gathers the ids' rows into y [n, dim] (PyTorch's index_select):
// a thread per value of y. Backward (weights) adds each row of dy into its
// token's row of the table's gradient, accumulated in float with atomic
// adds into acc ([vocab, dim], zeroed before): the dense gradient of
// PyTorch's embedding_dense_backward, which accumulates in float too.
#define EMBEDDING(T, SUFFIX)                                                                     \
    extern "C" __global__ void wb_embedding_fwd_##SUFFIX(const long *ids, const T *table, T *y,   \
                                                         long n, int dim) {                      \
        GRID_STRIDE(i, n * dim) {                                                                \
            long t = i / dim;                                                                    \
            y[i] = table[ids[t] * dim + (i - t * dim)];                                          \
        }                                                                                        \
    }                                                                                            \
    extern "C" __global__ void wb_embedding_bwd_##SUFFIX(const long *ids, const T *dy,           \
                                                         float *acc, long n, int dim) {          \
        GRID_STRIDE(i, n * dim) {                                                                \
            long t = i / dim;                                                                    \
            atomic_add_f(&acc[ids[t] * dim + (i - t * dim)], to_f(dy[i]));                       \
        }                                                                                        \
    }

// A linear layer's bias gradient, db = Σ_rows dy over rows of n values,
// after dW's product, as eager PyTorch sums grad_output apart from the
// product (not cuBLASLt's BGRADB epilogue): a thread per column, chunk
// rows per block, summed in float and added into acc (zeroed before) with
// atomic adds.
#define BIASGRAD(T, SUFFIX)                                                                      \
    extern "C" __global__ void wb_bias_grad_##SUFFIX(const T *dy, float *acc, int rows, int n,   \
                                                     int chunk) {                                \
        int j = blockIdx.x * blockDim.x + threadIdx.x;                                           \
        if (j >= n) return;                                                                      \
        int first = blockIdx.y * chunk;                                                          \
        int last = first + chunk < rows ? first + chunk : rows;                                  \
        float s = 0.0f;                                                                          \
        for (int i = first; i < last; i++) s += to_f(dy[(long)i * n + j]);                       \
        atomic_add_f(&acc[j], s);                                                                \
    }

// splitmix64's finaliser of i·φ + seed (φ the golden ratio's 2⁶⁴
// fraction): a well-mixed 64-bit hash of an index, the same on every run.
__device__ __forceinline__ unsigned long long hash64(long seed, long i) {
    unsigned long long z = (unsigned long long)i * 0x9e3779b97f4a7c15ull + (unsigned long long)seed;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// Dropout as PyTorch's native_dropout runs it on CUDA (not cuDNN's, which
// has no bfloat16): forward keeps each value with probability 1 − p,
// scaled by 1/(1 − p), and writes the mask, a byte per value (PyTorch's
// bool mask); backward is dx = dy · mask · scale (PyTorch's masked_scale).
// Each value's uniform draw is splitmix64's finaliser of its index and the
// seed, where PyTorch draws from Philox: the same traffic, a different
// generator.
__device__ __forceinline__ float uniform_f(long seed, long i) {
    return (float)(hash64(seed, i) >> 40) * (1.0f / 16777216.0f);
}
#define DROPOUT(T, SUFFIX)                                                                       \
    extern "C" __global__ void wb_dropout_fwd_##SUFFIX(const T *x, T *y, u8 *mask, float p,      \
                                                       float scale, long n, long seed) {         \
        GRID_STRIDE(i, n) {                                                                      \
            u8 keep = uniform_f(seed, i) >= p;                                                   \
            mask[i] = keep;                                                                      \
            from_f(keep ? to_f(x[i]) * scale : 0.0f, &y[i]);                                     \
        }                                                                                        \
    }                                                                                            \
    extern "C" __global__ void wb_dropout_bwd_##SUFFIX(const T *dy, const u8 *mask, T *dx,       \
                                                       float scale, long n) {                    \
        GRID_STRIDE(i, n) { from_f(mask[i] ? to_f(dy[i]) * scale : 0.0f, &dx[i]); }              \
    }

// A convolution's bias gradient, db = Σ dy over N, H and W of an NCHW dy,
// as PyTorch computes it after cuDNN's filter gradient (grad_output.sum
// over {0, 2, 3}, its own reduction): a block per channel and per slice of
// the work (gridDim.y of them), so that a few channels of large planes
// still spread over the GPU. Planes of LN_THREADS values or more are cut
// into chunks of chunk values, the block's threads striding over each of
// its chunks; smaller planes are read LN_THREADS / hw at a time, thread t
// summing value t % hw of plane t / hw of every group of planes its block
// takes (a plane of 49 values with 256 threads a plane left four fifths
// of them idle). Summed in float, the block's sum added into acc[c]
// (zeroed before).
#define CONVBIASGRAD(T, SUFFIX)                                                                  \
    extern "C" __global__ void wb_conv_bias_grad_##SUFFIX(const T *dy, float *acc, int n, int c, \
                                                          long hw, long chunk) {                 \
        int ch = blockIdx.x;                                                                     \
        float s = 0.0f, unused = 0.0f;                                                           \
        if (hw < LN_THREADS) {                                                                   \
            int per = LN_THREADS / (int)hw, p = threadIdx.x / (int)hw, j = threadIdx.x % (int)hw; \
            if (p < per)                                                                         \
                for (long m = (long)blockIdx.y * per + p; m < n; m += (long)gridDim.y * per)     \
                    s += to_f(dy[(m * c + ch) * hw + j]);                                        \
        } else {                                                                                 \
            long chunks = (hw + chunk - 1) / chunk, items = (long)n * chunks;                    \
            for (long w = blockIdx.y; w < items; w += gridDim.y) {                               \
                long m = w / chunks, off = (w % chunks) * chunk;                                 \
                long end = off + chunk < hw ? off + chunk : hw;                                  \
                const T *plane = dy + ((long)m * c + ch) * hw;                                   \
                for (long j = off + threadIdx.x; j < end; j += LN_THREADS) s += to_f(plane[j]);  \
            }                                                                                    \
        }                                                                                        \
        block_sum2(&s, &unused);                                                                 \
        if (threadIdx.x == 0) atomic_add_f(&acc[ch], s);                                         \
    }

// Copies: rows of cols values from src (a row every src_ld values, from
// src_off) to dst (every dst_ld, from dst_off), a thread per value. A
// concatenation's forward copies each input into its columns of the output
// (torch.cat), its backward each input's columns of the gradient back out
// (the slices autograd takes); a selected token's forward copies its row
// (x[:, t]), its backward into the zeroed gradient (select_backward).
#define COPY2D(T, SUFFIX)                                                                        \
    extern "C" __global__ void wb_copy2d_##SUFFIX(const T *src, T *dst, long rows, long cols,     \
                                                  long src_ld, long src_off, long dst_ld,        \
                                                  long dst_off) {                                \
        GRID_STRIDE(i, rows * cols) {                                                            \
            long r = i / cols, c = i - r * cols;                                                 \
            dst[dst_off + r * dst_ld + c] = src[src_off + r * src_ld + c];                        \
        }                                                                                        \
    }

// Nearest up-sampling by f and zero padding (top, left) of planes of h × w
// into ho × wo (f = 1 for padding, top = left = 0 for up-sampling), as
// PyTorch's upsample_nearest2d and constant_pad_nd run them. Forward: a
// thread per output value, reading its source (zero outside the input);
// backward: a thread per input value, the sum of its f × f outputs'
// gradients (one for padding), so no atomics are needed.
#define RESIZE(T, SUFFIX)                                                                        \
    extern "C" __global__ void wb_resize_fwd_##SUFFIX(const T *x, T *y, long planes, int h, int w, \
                                                      int ho, int wo, int f, int top, int left) { \
        GRID_STRIDE(i, planes * ho * wo) {                                                       \
            long p = i / ((long)ho * wo);                                                        \
            int r = (int)(i / wo % ho), c = (int)(i % wo);                                       \
            int sr = (r - top) / f, sc = (c - left) / f;                                         \
            bool in = r >= top && c >= left && sr < h && sc < w;                                 \
            from_f(in ? to_f(x[(p * h + sr) * w + sc]) : 0.0f, &y[i]);                           \
        }                                                                                        \
    }                                                                                            \
    extern "C" __global__ void wb_resize_bwd_##SUFFIX(const T *dy, T *dx, long planes, int h,     \
                                                      int w, int ho, int wo, int f, int top,     \
                                                      int left) {                                \
        GRID_STRIDE(i, planes * h * w) {                                                         \
            long p = i / ((long)h * w);                                                          \
            int r = (int)(i / w % h), c = (int)(i % w);                                          \
            float s = 0.0f;                                                                      \
            for (int a = 0; a < f; a++)                                                          \
                for (int b = 0; b < f; b++)                                                      \
                    s += to_f(dy[(p * ho + top + r * f + a) * wo + left + c * f + b]);           \
            from_f(s, &dx[i]);                                                                   \
        }                                                                                        \
    }

// An fp32 accumulator written out in a 16-bit precision.
#define CAST(T, SUFFIX)                                                                          \
    extern "C" __global__ void wb_cast_f32_to_##SUFFIX(const float *src, T *dst, long n) {       \
        GRID_STRIDE(i, n) { from_f(src[i], &dst[i]); }                                           \
    }

#define ALL_TYPES(M, ...) \
    M(__VA_ARGS__, float, f32) \
    M(__VA_ARGS__, h16, f16)   \
    M(__VA_ARGS__, b16, bf16)

ALL_TYPES(ACTIVATION, gelu, gelu_f, gelu_grad_f)
ALL_TYPES(ACTIVATION, leakyrelu, leaky_f, leaky_grad_f)
LAYERNORM(float, f32)
LAYERNORM(h16, f16)
LAYERNORM(b16, bf16)
EMBEDDING(float, f32)
EMBEDDING(h16, f16)
EMBEDDING(b16, bf16)
BIASGRAD(float, f32)
BIASGRAD(h16, f16)
BIASGRAD(b16, bf16)
DROPOUT(float, f32)
DROPOUT(h16, f16)
DROPOUT(b16, bf16)
CONVBIASGRAD(float, f32)
CONVBIASGRAD(h16, f16)
CONVBIASGRAD(b16, bf16)
COPY2D(float, f32)
COPY2D(h16, f16)
COPY2D(b16, bf16)
RESIZE(float, f32)
RESIZE(h16, f16)
RESIZE(b16, bf16)
CAST(h16, f16)
CAST(b16, bf16)

// An embedding's token ids, set once at preparation: splitmix64's
// finaliser of each position, modulo the vocabulary, so that a batch's
// tokens spread over the table as real text's do rather than hitting one
// row.
extern "C" __global__ void wb_fill_ids(long *ids, long n, long vocab) {
    GRID_STRIDE(i, n) { ids[i] = (long)(hash64(0x632be59bd9b4e019l, i) % (unsigned long long)vocab); }
}

// A buffer's values, set once at preparation, in place of PyTorch's
// torch.randn inputs: tensor cores draw less power on predictable data
// (constant or zero operands flip few bits), so under a power cap a
// product of constants runs faster than one of random values, and a
// constant fill timed GEMMs and convolutions low against PyTorch's. Each
// value is a hash of its index and the buffer's seed (hash64), the sum of
// its four 16-bit quarters (Irwin–Hall: four uniforms), centred and scaled
// to unit variance: about a standard normal's spread (within ±2√3), as
// randn's, and the same values on every run.
__device__ __forceinline__ float randn_f(long seed, long i) {
    unsigned long long z = hash64(seed, i);
    float s = (float)(z & 0xffff) + (float)((z >> 16) & 0xffff) + (float)((z >> 32) & 0xffff) +
              (float)(z >> 48);
    // four uniforms on 0..65535: mean 4·32767.5, standard deviation 65536/√3
    return (s - 131070.0f) * (1.7320508075688772f / 65536.0f);
}
#define FILL(T, SUFFIX)                                                                          \
    extern "C" __global__ void wb_fill_##SUFFIX(T *p, long n, long seed) {                       \
        GRID_STRIDE(i, n) { from_f(randn_f(seed, i), &p[i]); }                                   \
    }
FILL(float, f32)
FILL(h16, f16)
FILL(b16, bf16)

// The optimiser's step, SGD with momentum on fp32 master weights, as
// torch.optim.SGD runs it on CUDA (no dampening, weight decay or
// Nesterov). foreach (PyTorch's default, _multi_tensor_sgd): three passes,
// torch._foreach_mul_(bufs, momentum), torch._foreach_add_(bufs, grads),
// torch._foreach_add_(params, bufs, alpha=-lr), each a multi-tensor-apply
// kernel; here each is a grid-stride kernel over the layer's parameters,
// held in one buffer per tensor list: x ← a·x, x ← x + a·y.
extern "C" __global__ void wb_foreach_mul_f32(float *x, float a, long n) {
    GRID_STRIDE(i, n) { x[i] *= a; }
}
extern "C" __global__ void wb_foreach_add_f32(float *x, const float *y, float a, long n) {
    GRID_STRIDE(i, n) { x[i] += a * y[i]; }
}
// fused (torch.optim.SGD(fused=True), torch._fused_sgd_): one pass,
// v ← μ·v + g, w ← w − lr·v.
extern "C" __global__ void wb_sgd_fused_f32(float *w, const float *g, float *v, float mu, float lr,
                                            long n) {
    GRID_STRIDE(i, n) {
        float m = mu * v[i] + g[i];
        v[i] = m;
        w[i] -= lr * m;
    }
}

// The stream's hold while the host queues a batch of timed runs (hold.go):
// one thread spins until the host has released batch `batch` (the count at
// release[0], in page-locked host memory mapped into the device, reaches
// it), or until timeout_ns nanoseconds of the global timer have passed,
// when it writes the batch to release[1] to say so. So the timed runs start
// back to back once all of them are queued, whatever the host's cost of
// queueing each (NVIDIA nvbench's blocking kernel does the same).
extern "C" __global__ void wb_hold(volatile long *release, long batch, long timeout_ns) {
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    while (release[0] < batch) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if ((long)(now - start) > timeout_ns) {
            release[1] = batch;
            asm volatile("membar.sys;" ::: "memory");
            return;
        }
    }
}
