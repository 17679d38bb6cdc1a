// Peak fp32 FMA throughput of the cores, measured: each thread runs
// independent chains of fused multiply-adds on registers (no memory
// traffic), as many chains as keep both FMA pipes busy through their
// latency, for a fixed number of iterations; all threads start together
// (each waits for a flag the spawning thread sets once all are made),
// and each reads the clock itself around its own work: the span from the
// first start to the last end is the time (the spawning thread, with every
// core busy, may read the clock late, which made the rate too high).
// The gate's probe takes the longest thread's own span instead: how fast
// the slowest core ran its chains, without the threads' skew in starting,
// which on a 2-core VM is most of the span of a 20 µs run.
#include "peak.h"

#if defined(__x86_64__)
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <immintrin.h>

#define CHAINS 12

__attribute__((target("avx512f"))) static float fma512(int64_t iters) {
    __m512 b = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-7f);
    __m512 a[CHAINS];
    for (int j = 0; j < CHAINS; j++) a[j] = _mm512_set1_ps(1.0f + (float)j * 1e-3f);
    for (int64_t i = 0; i < iters; i++) {
#pragma GCC unroll 12
        for (int j = 0; j < CHAINS; j++) a[j] = _mm512_fmadd_ps(a[j], b, c);
    }
    __m512 s = a[0];
    for (int j = 1; j < CHAINS; j++) s = _mm512_add_ps(s, a[j]);
    return _mm512_reduce_add_ps(s);
}

__attribute__((target("avx2,fma"))) static float fma256(int64_t iters) {
    __m256 b = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-7f);
    __m256 a[CHAINS];
    for (int j = 0; j < CHAINS; j++) a[j] = _mm256_set1_ps(1.0f + (float)j * 1e-3f);
    for (int64_t i = 0; i < iters; i++) {
#pragma GCC unroll 12
        for (int j = 0; j < CHAINS; j++) a[j] = _mm256_fmadd_ps(a[j], b, c);
    }
    __m256 s = a[0];
    for (int j = 1; j < CHAINS; j++) s = _mm256_add_ps(s, a[j]);
    float out[8];
    _mm256_storeu_ps(out, s);
    return out[0] + out[1] + out[2] + out[3] + out[4] + out[5] + out[6] + out[7];
}

// start: 0 while the threads are being made, 1 to run, -1 to leave
// without running (a thread could not be made).
typedef struct {
    int width;
    int64_t iters;
    volatile float sink;
    int *start;
    int *after; // where not NULL, the thread starts once this is set (the previous thread's done)
    int done;
    struct timespec t0, t1;
} job;

static void *run_job(void *p) {
    job *j = (job *)p;
    int go;
    while ((go = __atomic_load_n(j->start, __ATOMIC_ACQUIRE)) == 0) _mm_pause();
    if (go < 0) return NULL;
    if (j->after)
        while (!__atomic_load_n(j->after, __ATOMIC_ACQUIRE)) _mm_pause();
    clock_gettime(CLOCK_MONOTONIC, &j->t0);
    j->sink = j->width == 512 ? fma512(j->iters) : fma256(j->iters);
    clock_gettime(CLOCK_MONOTONIC, &j->t1);
    __atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static double secs(struct timespec t) { return (double)t.tv_sec + (double)t.tv_nsec * 1e-9; }

int wb_isa(void) {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return 512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 256;
    return 0;
}

double wb_probe_secs_in_turn(int width, int threads, int64_t iters, double *span, int in_turn) {
    if (threads < 1 || threads > 256 || (width != 512 && width != 256)) return -1;
    pthread_t t[256];
    job jobs[256];
    int start = 0;
    for (int i = 0; i < threads; i++) {
        jobs[i].width = width;
        jobs[i].iters = iters;
        jobs[i].start = &start;
        jobs[i].done = 0;
        jobs[i].after = in_turn && i > 0 ? &jobs[i - 1].done : NULL;
        if (pthread_create(&t[i], NULL, run_job, &jobs[i]) != 0) {
            // the threads made so far leave without running
            __atomic_store_n(&start, -1, __ATOMIC_RELEASE);
            for (int k = 0; k < i; k++) pthread_join(t[k], NULL);
            return -1;
        }
    }
    __atomic_store_n(&start, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    double first = secs(jobs[0].t0), last = secs(jobs[0].t1), longest = 0;
    for (int i = 0; i < threads; i++) {
        if (secs(jobs[i].t0) < first) first = secs(jobs[i].t0);
        if (secs(jobs[i].t1) > last) last = secs(jobs[i].t1);
        if (secs(jobs[i].t1) - secs(jobs[i].t0) > longest) longest = secs(jobs[i].t1) - secs(jobs[i].t0);
    }
    if (span) *span = last - first;
    return longest;
}

double wb_probe_secs(int width, int threads, int64_t iters, double *span) {
    return wb_probe_secs_in_turn(width, threads, iters, span, 0);
}

double wb_peak_secs(int width, int threads, int64_t iters) {
    double span;
    if (wb_probe_secs(width, threads, iters, &span) < 0) return -1;
    return span;
}

double wb_peak(int width, int threads, int64_t iters) {
    double s = wb_peak_secs(width, threads, iters);
    if (s <= 0) return -1;
    return (double)threads * (double)iters * CHAINS * (width / 32) * 2 / s;
}
#else
int wb_isa(void) { return 0; }
double wb_probe_secs(int width, int threads, int64_t iters, double *span) { return -1; }
double wb_probe_secs_in_turn(int width, int threads, int64_t iters, double *span, int in_turn) { return -1; }
double wb_peak_secs(int width, int threads, int64_t iters) { return -1; }
double wb_peak(int width, int threads, int64_t iters) { return -1; }
#endif
