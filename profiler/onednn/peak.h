#ifndef WB_PEAK_H
#define WB_PEAK_H
#include <stdint.h>
// wb_isa: the widest FMA the CPU has: 512 (AVX-512F), 256 (AVX2+FMA) or 0.
int wb_isa(void);
// wb_peak: fp32 FLOP/s of threads threads each running iters iterations of
// 12 independent FMA chains of the given width; -1 on bad arguments.
double wb_peak(int width, int threads, int64_t iters);
// wb_peak_secs: the seconds of the same run, from the first thread's start
// to the last one's end (the threads' creation is not in it); -1 on bad
// arguments.
double wb_peak_secs(int width, int threads, int64_t iters);
// wb_probe_secs: the same run, the longest thread's own span from its
// start to its end (how fast the slowest core ran the chains, without the
// threads' skew in starting), with the first-start-to-last-end span in
// *span where span is not NULL; -1 on bad arguments.
double wb_probe_secs(int width, int threads, int64_t iters, double *span);
// wb_probe_secs_in_turn: wb_probe_secs, with in_turn each thread starting
// only when the one before it is done (a skew in starting as long as a
// run, for the tests); -1 on bad arguments.
double wb_probe_secs_in_turn(int width, int threads, int64_t iters, double *span, int in_turn);
#endif
