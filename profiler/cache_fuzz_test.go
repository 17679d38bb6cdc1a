package profiler

import (
	"os"
	"testing"
)

// FuzzCacheGet: a cache entry Get accepts, whatever its file holds, fills
// a row that a profile can write (Record.validate as written) and read
// back (Record.Validate).
func FuzzCacheGet(f *testing.F) {
	k := CacheKey{Device: "d", Backend: "b", Key: "linear in=[8] out=8", Batch: 4, Pass: "fwd", Precision: "fp32"}
	dir := f.TempDir()
	c, err := OpenCache(dir)
	if err != nil {
		f.Fatal(err)
	}
	for _, o := range []Outcome{
		{Status: OK, Stats: Stats{Reps: 10, Median: 2e-3, P10: 1e-3, P90: 3e-3, Min: 1e-3, CV: 0.1, CILo: 1.9e-3, CIHi: 2.1e-3}, Stop: Converged},
		{Status: Unsupported, Reason: "no kernel"},
		{Status: Skipped, Reason: "no work"},
	} {
		if err := c.Put(k, o, nil); err != nil {
			f.Fatal(err)
		}
		b, err := os.ReadFile(c.path(k))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if err := os.WriteFile(c.path(k), in, 0o644); err != nil {
			t.Fatal(err)
		}
		o, _, hit := c.Get(k)
		if !hit {
			return
		}
		r := Record{Model: "m", Layer: "l", Op: "linear", Key: k.Key, Pass: k.Pass, Batch: k.Batch, Precision: k.Precision,
			Backend: k.Backend, Device: k.Device, FLOPs: 64, Bytes: 64}
		r.Cached = true
		r.fill(o)
		if err := r.validate(false); err != nil {
			t.Fatalf("cached %+v: the row cannot be written: %v", o, err)
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("cached %+v: the row is written, then refused: %v", o, err)
		}
	})
}
