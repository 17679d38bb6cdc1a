#ifndef WB_PEAK_H
#define WB_PEAK_H
#include <stdint.h>
// wb_isa: the widest FMA the CPU has: 512 (AVX-512F), 256 (AVX2+FMA) or 0.
int wb_isa(void);
// wb_peak: fp32 FLOP/s of threads threads each running iters iterations of
// 12 independent FMA chains of the given width; -1 on bad arguments.
double wb_peak(int width, int threads, int64_t iters);
// wb_chains: the FMA chains each wb_peak thread runs.
int wb_chains(void);
#endif
