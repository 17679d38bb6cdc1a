package profiler

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/wb-sim/wb/internal/atomicfile"
)

// Cache keeps measurements on disk, one small JSON file per key, so that
// profiling a layer again on the same device, backend and libraries is
// instant. Unsupported outcomes are kept too (they depend only on the
// backend); out-of-memory ones are not (they depend on what else holds
// memory).
type Cache struct {
	Dir string
}

// CacheKey is what a measurement depends on.
type CacheKey struct {
	Device    string `json:"device"`
	Backend   string `json:"backend"`
	Versions  string `json:"versions"` // DeviceInfo.VersionString
	Key       string `json:"key"`      // the layer's dnn Key
	Batch     int    `json:"batch"`
	Pass      string `json:"pass"`
	Precision string `json:"precision"`
	// Method is how the runs were gathered where it changes what the
	// figures mean: "rounds=8 min_time=200ms" (Options.Rounds,
	// Rule.MinTime, and the stopping rule's limits where they are not the
	// defaults: "max_time=100ms"); empty for one sitting by the default
	// rule.
	Method string `json:"method,omitempty"`
	// Build is the wb that measured (buildid.ID): its own kernels (the
	// pure-Go backend's, the C loops beside oneDNN, the CUDA sources it
	// compiles) are part of what is timed, so a rebuilt wb measures
	// again (a cache shared across builds served a batch norm's time from
	// before its kernel was rewritten, 1.8× the new one's: a reviewer's
	// find).
	Build string `json:"build,omitempty"`
}

// DefaultCacheDir is $WB_CACHE/profiles, or wb/profiles under the user's
// cache directory (os.UserCacheDir) when WB_CACHE is unset.
func DefaultCacheDir() (string, error) {
	if d := os.Getenv("WB_CACHE"); d != "" {
		return filepath.Join(d, "profiles"), nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("profile cache: %w (set WB_CACHE)", err)
	}
	return filepath.Join(d, "wb", "profiles"), nil
}

// OpenCache makes the cache directory where missing.
func OpenCache(dir string) (*Cache, error) {
	if err := atomicfile.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("profile cache: %w", err)
	}
	return &Cache{Dir: dir}, nil
}

type cacheEntry struct {
	Key     CacheKey `json:"key"`
	Outcome Outcome  `json:"outcome"`
	// Machine is the processor as measured by the profile that measured
	// the outcome (Options.Machine), where it was: a profile that takes
	// the outcome later may find the machine measuring otherwise.
	Machine *Machine `json:"machine,omitempty"`
}

// path names a key's file by the SHA-256 of the key; the file repeats the
// key, which Get checks.
func (c *Cache) path(k CacheKey) string {
	b, err := json.Marshal(k)
	if err != nil {
		panic("profiler: " + err.Error())
	}
	h := sha256.Sum256(b)
	return filepath.Join(c.Dir, hex.EncodeToString(h[:16])+".json")
}

// Get returns the outcome cached for k, and the machine as the profile
// that measured it measured it (nil where it recorded none). A missing,
// unreadable or mismatched entry is a miss (and is replaced by the next
// Put), and so is a measurement from before wb kept the fastest run
// (Stats.Min).
func (c *Cache) Get(k CacheKey) (Outcome, *Machine, bool) {
	b, err := os.ReadFile(c.path(k))
	if err != nil {
		return Outcome{}, nil, false
	}
	var e cacheEntry
	if err := json.Unmarshal(b, &e); err != nil || e.Key != k || e.Outcome.Status == "" {
		return Outcome{}, nil, false
	}
	if e.Outcome.Status == OK && e.Outcome.Stats.Min <= 0 {
		return Outcome{}, nil, false
	}
	// an entry Put would not have written (edited, or another wb's): a row
	// filled from it must be one the profile can write and read back
	r := Record{Layer: "cached", Pass: k.Pass, Precision: k.Precision, Batch: k.Batch}
	r.fill(e.Outcome)
	if e.Outcome.Status == OOM || e.Outcome.Stop == Interrupted || r.Validate() != nil {
		return Outcome{}, nil, false
	}
	return e.Outcome, e.Machine, true
}

// Put stores an outcome atomically, with the machine as the measuring
// profile measured it (nil: none).
func (c *Cache) Put(k CacheKey, o Outcome, m *Machine) error {
	if o.Status == OOM {
		return errors.New("profiler: out-of-memory outcomes are not cached")
	}
	return atomicfile.WriteUnsynced(c.path(k), func(w io.Writer) error {
		return json.NewEncoder(w).Encode(cacheEntry{Key: k, Outcome: o, Machine: m})
	})
}
