package cuda

import (
	"fmt"
)

// cuDeviceAttributeL2CacheSize is CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE
// (cuda.h's CUdevice_attribute): the L2 cache's size in bytes.
const cuDeviceAttributeL2CacheSize int32 = 38

// DefaultFlushBytes is the L2 flush buffer where the driver does not say
// the L2 cache's size: 256 MiB, more than any GPU's L2 so far (H100: 50
// MiB; B200: 126 MiB).
const DefaultFlushBytes = 256 << 20

// FlushSize is the size of the buffer written between runs under
// --cold-cache: override when positive (Options.FlushBytes), else twice
// the L2 cache's size l2 (so that whatever the cache's replacement
// policy, none of a run's data survives the write), rounded up to a
// whole MiB, or DefaultFlushBytes when l2 is unknown (0 or negative).
func FlushSize(l2, override int64) int64 {
	if override > 0 {
		return override
	}
	if l2 <= 0 {
		return DefaultFlushBytes
	}
	const mib = 1 << 20
	return (2*l2 + mib - 1) / mib * mib
}

// openFlush, under Options.ColdCache, reads the L2 cache's size and
// allocates the buffer Time writes before each run; the size joins the
// device's description ("cold_cache" in Versions), so measurements with
// and without flushing never share a cache entry.
func (b *Backend) openFlush() error {
	if !b.opts.ColdCache {
		return nil
	}
	leave, err := b.enter()
	if err != nil {
		return err
	}
	defer leave()
	var l2 int32
	if err := check(Driver, "cuDeviceGetAttribute", b.drv.cuDeviceGetAttribute(&l2, cuDeviceAttributeL2CacheSize, b.dev)); err != nil {
		l2 = 0 // unknown: FlushSize's default
	}
	b.l2Bytes = int64(l2)
	b.flushBytes = FlushSize(b.l2Bytes, b.opts.FlushBytes)
	if err := check(Driver, "cuMemAlloc_v2", b.drv.cuMemAlloc(&b.flush, uintptr(b.flushBytes))); err != nil {
		return fmt.Errorf("cold cache: L2 flush buffer of %d bytes: %w", b.flushBytes, err)
	}
	b.info.Versions["cold_cache"] = coldCacheNote(b.l2Bytes, b.flushBytes)
	return nil
}

// coldCacheNote describes the flush in the device's versions.
func coldCacheNote(l2, flush int64) string {
	if l2 <= 0 {
		return fmt.Sprintf("L2 size unknown, %d B written before each run", flush)
	}
	return fmt.Sprintf("L2 %d B, %d B written before each run", l2, flush)
}

// flushL2 enqueues the write of the flush buffer on the stream: a memset
// of a different byte from the last flush's, so no driver or hardware
// shortcut can skip it.
func (b *Backend) flushL2() error {
	b.flushes++
	return check(Driver, "cuMemsetD8Async", b.drv.cuMemsetD8Async(b.flush, uint8(b.flushes), uintptr(b.flushBytes), b.stream))
}

// timingEvents says how Time places its events for n runs: warm, one
// event before the first run and one after each (n+1, run i between
// events i and i+1, back to back); cold, a pair around each run (2n, run
// i between 2i and 2i+1), the flush enqueued before each pair's first,
// outside the timed span.
func timingEvents(n int, cold bool) (count int, start, stop func(i int) int) {
	if cold {
		return 2 * n, func(i int) int { return 2 * i }, func(i int) int { return 2*i + 1 }
	}
	return n + 1, func(i int) int { return i }, func(i int) int { return i + 1 }
}
