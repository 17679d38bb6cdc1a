package profiler

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/wb-sim/wb/internal/atomicfile"
	"github.com/wb-sim/wb/internal/jsonpos"
	"github.com/wb-sim/wb/internal/readcap"
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

// Write writes the profile's CSV at path and its sidecar beside it, making
// the directory where missing: both are written to temporary files first
// and renamed into place together, so a sidecar that cannot be written
// (a folder at its path) leaves no new CSV without it.
func Write(path string, p *Profile) error {
	if dir := filepath.Dir(path); dir != "." {
		if err := atomicfile.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	for _, f := range []string{path, SidecarPath(path)} {
		if fi, err := os.Stat(f); err == nil && fi.IsDir() {
			return fmt.Errorf("%s: a folder, where the profile's file goes: move it, or write the profile elsewhere", f)
		}
	}
	csvFile, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	if err := WriteCSV(csvFile, p.Records); err != nil {
		csvFile.Abort()
		return fmt.Errorf("%s: %w", path, err)
	}
	side, err := atomicfile.Create(SidecarPath(path))
	if err != nil {
		csvFile.Abort()
		return err
	}
	e := json.NewEncoder(side)
	e.SetIndent("", "  ")
	if err := e.Encode(p.Meta); err != nil {
		csvFile.Abort()
		side.Abort()
		return fmt.Errorf("%s: %w", SidecarPath(path), err)
	}
	return atomicfile.CommitAll(csvFile, side)
}

// ReadMeta reads the sidecar of the profile CSV at path.
func ReadMeta(path string) (*Meta, error) {
	side := SidecarPath(path)
	b, err := readcap.ReadFile(side, readcap.JSON)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: no sidecar %s beside it: wb profile writes the two together (it names the device the "+
			"rows were measured on); copy it with the CSV", path, side)
	}
	if err != nil {
		return nil, err
	}
	var m Meta
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, jsonpos.At(side, b, err)
	}
	return &m, nil
}

// Read reads the profile at path and its sidecar, and checks that the two
// belong together: the sidecar's model, device and backend are the rows'.
// A file of no rows is refused (ErrNoRows), saying so where its sidecar
// says the profile was interrupted.
func Read(path string) (*Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := ReadCSV(f)
	if errors.Is(err, ErrNoRows) {
		if m, merr := ReadMeta(path); merr == nil && m.Interrupted {
			return nil, fmt.Errorf("%s: no rows: an interrupted profile (its sidecar says so) stopped before its first row; profile it again", path)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m, err := ReadMeta(path)
	if err != nil {
		return nil, err
	}
	p := &Profile{Records: rows, Meta: *m}
	if err := p.checkSidecar(path); err != nil {
		return nil, err
	}
	return p, nil
}

// checkSidecar refuses a sidecar that is not the rows' own: one whose
// model, device or backend differs from a row's, or whose batches do not
// hold a row's (another profile's sidecar copied or renamed beside the
// CSV), naming both files, the line and the field (empty fields, in the
// sidecar or a row, are not compared); and rows that are not the ones wb
// profile wrote: fewer or more than the sidecar counts (a CSV cut short or
// edited), or a layer pass at a batch twice.
func (p *Profile) checkSidecar(path string) error {
	side := SidecarPath(path)
	type key struct {
		layer, pass, prec string
		batch             int
	}
	seen := make(map[key]int, len(p.Records))
	// each layer's key by pass and batch, for shared_with
	type at struct {
		layer, pass string
		batch       int
	}
	keys := make(map[at]string, len(p.Records))
	for i := range p.Records {
		r := &p.Records[i]
		keys[at{r.Layer, r.Pass, r.Batch}] = r.Key
	}
	cpu := p.Meta.Backend == "onednn" || p.Meta.Backend == "cpu"
	for i := range p.Records {
		r := &p.Records[i]
		if r.Model == "" {
			return fmt.Errorf("%s: line %d: model: empty (wb profile names the model on every row): the CSV was edited; restore it, or profile again", path, i+2)
		}
		if mp := p.Meta.Options.Precision; r.Precision != "" && mp != "" && r.Precision != mp {
			return fmt.Errorf("%s: line %d: precision %q, but its sidecar %s says the profile ran %q: the CSV was edited, or the sidecar is another profile's; restore it, or profile again",
				path, i+2, r.Precision, side, mp)
		}
		if cpu && (r.Precision == "fp16" || r.Precision == "bf16") {
			return fmt.Errorf("%s: line %d: precision %s on the %s backend, which computes fp32 (tf32 as fp32): wb profile writes no such row; restore the file, or profile again", path, i+2, r.Precision, p.Meta.Backend)
		}
		if r.SharedWith != "" {
			if k, ok := keys[at{r.SharedWith, r.Pass, r.Batch}]; !ok || k != r.Key {
				return fmt.Errorf("%s: line %d: shared_with %q: no layer of that name measured the same work (key %q) in this pass and batch: the CSV was edited; restore it, or profile again",
					path, i+2, r.SharedWith, r.Key)
			}
		}
		if bs := p.Meta.Options.Batches; len(bs) > 0 && !slices.Contains(bs, r.Batch) {
			return fmt.Errorf("%s: line %d: batch %d, but its sidecar %s says the profile measured batches %v: the sidecar is another profile's; "+
				"put the CSV's own sidecar beside it (wb profile writes the two together)", path, i+2, r.Batch, side, bs)
		}
		k := key{r.Layer, r.Pass, r.Precision, r.Batch}
		if j, ok := seen[k]; ok {
			return fmt.Errorf("%s: line %d: layer %s %s at batch %d again (line %d has it): a profile has one row per layer, pass and batch; "+
				"remove the copy, or profile again", path, i+2, r.Layer, r.Pass, r.Batch, j+2)
		}
		seen[k] = i
		for _, f := range []struct{ field, row, meta string }{
			{"model", r.Model, p.Meta.Model}, {"device", r.Device, p.Meta.Device}, {"backend", r.Backend, p.Meta.Backend},
		} {
			if f.row != "" && f.meta != "" && f.row != f.meta {
				return fmt.Errorf("%s: line %d: %s %q, but its sidecar %s says %s %q: the sidecar is another profile's; "+
					"put the CSV's own sidecar beside it (wb profile writes the two together)", path, i+2, f.field, f.row, side, f.field, f.meta)
			}
		}
	}
	// the whole iterations a fit learns the cold traffic from: each of a
	// batch the profile measured, its times positive and in order
	for i, it := range p.Meta.Iterations {
		f := fmt.Sprintf("iterations[%d]", i)
		switch bs := p.Meta.Options.Batches; {
		case len(bs) > 0 && !slices.Contains(bs, it.Batch):
			return fmt.Errorf("%s: %s.batch: %d, not one of the batches the profile measured %v: the sidecar was edited; restore it, or profile again", side, f, it.Batch, bs)
		case !(it.Min > 0) || math.IsInf(it.Min, 0):
			return fmt.Errorf("%s: %s.min_s: %v: want the fastest run's positive seconds: the sidecar was edited; restore it, or profile again", side, f, it.Min)
		case !(it.Median >= it.Min) || math.IsInf(it.Median, 0):
			return fmt.Errorf("%s: %s.median_s: %v, below its min_s %v: the sidecar was edited; restore it, or profile again", side, f, it.Median, it.Min)
		}
	}
	if n := p.Meta.Counts.Rows; n > 0 && n != len(p.Records) {
		return fmt.Errorf("%s: %d rows, but its sidecar %s counts %d: the CSV was cut short or edited since wb profile wrote it; "+
			"profile again (cached layers are instant), or restore the file", path, len(p.Records), side, n)
	}
	return nil
}
