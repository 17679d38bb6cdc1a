package profiler

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/wb-sim/wb/internal/atomicfile"
	"github.com/wb-sim/wb/internal/jsonpos"
)

// DefaultPath is where a profile goes unless told: beside the measurement
// cache, never in the current directory:
// $WB_CACHE/results/<device>-<model>-<backend>-b<batches>-<passes>-<precision>.csv
// (cpu-amd-epyc-2-cores-a3c-onednn-b1_8-fwd_bwd-data_bwd-weights-fp32.csv),
// or wb/results under the user's cache directory, the names made file names
// by Slug: a profile of another backend, batches, passes or precision does
// not replace it.
func DefaultPath(device, backend, model string, o Options) (string, error) {
	dir, err := DefaultCacheDir()
	if err != nil {
		return "", err
	}
	var batches []string // sorted, once each: --batch 8,1 is --batch 1,8
	for _, b := range slices.Compact(slices.Sorted(slices.Values(o.Batches))) {
		batches = append(batches, strconv.Itoa(b))
	}
	passes := make([]string, len(o.Passes))
	for i, p := range o.Passes {
		passes[i] = p.String()
	}
	variant := "b" + strings.Join(batches, "_") + "-" + strings.Join(passes, "_") + "-" + string(o.Precision)
	return filepath.Join(filepath.Dir(dir), "results", Slug(device)+"-"+Slug(model)+"-"+Slug(backend)+"-"+Slug(variant)+".csv"), nil
}

// Slug lowers s and turns every run of characters other than letters,
// digits, '.' and '_' into one '-': "cpu: AMD EPYC 7R13, 2 cores" →
// "cpu-amd-epyc-7r13-2-cores".
func Slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	if b.Len() == 0 {
		return "device"
	}
	return b.String()
}

// SidecarPath is the JSON sidecar of the profile CSV at path.
func SidecarPath(path string) string { return path + ".json" }

// Write writes the profile's CSV at path and its sidecar beside it, each
// atomically, making the directory where missing.
func Write(path string, p *Profile) error {
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	if err := atomicfile.Write(path, func(w io.Writer) error { return WriteCSV(w, p.Records) }); err != nil {
		return err
	}
	return atomicfile.Write(SidecarPath(path), func(w io.Writer) error {
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		return e.Encode(p.Meta)
	})
}

// Read reads the profile at path and its sidecar.
func Read(path string) (*Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := ReadCSV(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p := &Profile{Records: rows}
	b, err := os.ReadFile(SidecarPath(path))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: no sidecar %s beside it: wb profile writes the two together (it names the device the "+
			"rows were measured on); copy it with the CSV", path, SidecarPath(path))
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &p.Meta); err != nil {
		return nil, jsonpos.At(SidecarPath(path), b, err)
	}
	return p, nil
}
