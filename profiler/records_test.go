package profiler_test

import (
	"bytes"
	stdcsv "encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wb-sim/wb/profiler"
)

// TestReadCSVNotAProfile: a gzip-compressed trace or a CSV whose header
// does not parse is named as not a wb profile.
func TestReadCSVNotAProfile(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"\x1f\x8b\x08\x00rest", "gzip-compressed: not a wb profile"},
		{"a,\"b\nc\n", "line 1: header"},
		{"job,submit\n1,2\n", "missing column(s)"},
	} {
		_, err := profiler.ReadCSV(strings.NewReader(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "not a wb profile") {
			t.Errorf("%q: %v", tt.in, err)
		}
	}
}

// profileCSV is sampleRows written as a profile CSV: its header and rows.
func profileCSV(t *testing.T) (header string, rows []string) {
	t.Helper()
	var b bytes.Buffer
	if err := profiler.WriteCSV(&b, sampleRows()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	return lines[0], lines[1:]
}

// dropColumn removes the column named col from a CSV of simple fields
// (no quoted commas in the first rows' col, which sampleRows' lack).
func dropColumn(t *testing.T, csv, col string) string {
	t.Helper()
	recs, err := stdcsv.NewReader(strings.NewReader(csv)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.Index(recs[0], col)
	if i < 0 {
		t.Fatalf("no column %s", col)
	}
	var b bytes.Buffer
	w := stdcsv.NewWriter(&b)
	for _, r := range recs {
		w.Write(slices.Delete(slices.Clone(r), i, i+1))
	}
	w.Flush()
	return b.String()
}

// TestReadCSVRequiresColumns: a profile without a column training reads
// (flops, bytes, predicted_s, ...) is refused naming it, not read as zeros
// or empty; so is a column named twice.
func TestReadCSVRequiresColumns(t *testing.T) {
	head, rows := profileCSV(t)
	whole := head + "\n" + strings.Join(rows, "\n") + "\n"
	if _, err := profiler.ReadCSV(strings.NewReader(whole)); err != nil {
		t.Fatal(err)
	}
	for _, col := range []string{"flops", "bytes", "predicted_s", "key", "backend", "shared_with", "matrix", "reps", "stop"} {
		_, err := profiler.ReadCSV(strings.NewReader(dropColumn(t, whole, col)))
		if err == nil || !strings.Contains(err.Error(), "line 1: missing column(s) "+col+":") {
			t.Errorf("without %s: %v", col, err)
		}
	}
	// the optional columns of older profiles may be absent
	if _, err := profiler.ReadCSV(strings.NewReader(dropColumn(t, dropColumn(t, whole, "algo"), "min_s"))); err != nil {
		t.Errorf("without algo and min_s: %v", err)
	}
	dup := strings.Replace(whole, ",ratio,", ",flops,", 1)
	if _, err := profiler.ReadCSV(strings.NewReader(dup)); err == nil || !strings.Contains(err.Error(), "line 1: column 27, flops, is column 21 again") {
		t.Errorf("flops twice: %v", err)
	}
}

// TestReadCSVRefusesImplausibleRows: a measured row's times must be
// positive, finite and under a day, its op one wb knows; each error names
// the line and the column.
func TestReadCSVRefusesImplausibleRows(t *testing.T) {
	head, rows := profileCSV(t)
	cols := strings.Split(head, ",")
	// rows[2] is conv3: ok, no quoted fields
	set := func(col, v string) string {
		cells := strings.Split(rows[2], ",")
		cells[slices.Index(cols, col)] = v
		return head + "\n" + rows[0] + "\n" + strings.Join(cells, ",") + "\n"
	}
	for _, tt := range []struct{ col, v, want string }{
		{"median_s", "1e300", "line 3: median_s 1e+300: want a time in seconds above 0 and at most a day"},
		{"median_s", "0", "line 3: median_s 0: want a time in seconds above 0"},
		{"median_s", "-0.001", "line 3: median_s -0.001: want a time in seconds above 0"},
		{"median_s", "", "line 3: median_s: empty in a row of status ok"},
		{"p90_s", "1e9", "line 3: p90_s 1e+09: want a time in seconds above 0 and at most a day"},
		{"reps", "0", "line 3: reps 0: want 1 or more"},
		{"op", "conv3d", `line 3: op "conv3d": not an op wb knows (known: conv2d, linear,`},
	} {
		_, err := profiler.ReadCSV(strings.NewReader(set(tt.col, tt.v)))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %q: %v, want %q", tt.col, tt.v, err, tt.want)
		}
	}
	if _, err := profiler.ReadCSV(strings.NewReader(set("median_s", "0.5"))); err != nil {
		t.Errorf("a plausible row: %v", err)
	}
	// a time of 0 is written, not thrown away with the profile: reading
	// refuses it at its line
	recs, err := profiler.ReadCSV(strings.NewReader(head + "\n" + rows[2] + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	recs[0].Min.V, recs[0].Min.OK = 0, true
	var b strings.Builder
	if err := profiler.WriteCSV(&b, recs); err != nil {
		t.Fatalf("a measured time of 0 not written: %v", err)
	}
	if _, err := profiler.ReadCSV(strings.NewReader(b.String())); err == nil || !strings.Contains(err.Error(), "line 2: min_s 0: want a time in seconds above 0") {
		t.Errorf("a time of 0 written, read back: %v", err)
	}
}

// TestReadCSVNoRows: an empty file, or a header alone, is no profile.
func TestReadCSVNoRows(t *testing.T) {
	head, _ := profileCSV(t)
	for _, in := range []string{"", "\n", head + "\n", "\ufeff" + head} {
		if _, err := profiler.ReadCSV(strings.NewReader(in)); !errors.Is(err, profiler.ErrNoRows) || !strings.Contains(err.Error(), "no rows: not a finished profile?") {
			t.Errorf("%q: %v", in, err)
		}
	}
}

// TestReadCSVByteOrderMark: a spreadsheet's UTF-8 byte-order mark before
// the header is skipped, not read into the first column's name.
func TestReadCSVByteOrderMark(t *testing.T) {
	head, rows := profileCSV(t)
	got, err := profiler.ReadCSV(strings.NewReader("\ufeff" + head + "\n" + strings.Join(rows, "\n") + "\n"))
	if err != nil || len(got) != len(rows) || got[0].Model != "m" {
		t.Errorf("with a byte-order mark: %d rows, %v", len(got), err)
	}
}

// writeProfile writes sampleRows and meta as a profile at dir/name.
func writeProfile(t *testing.T, dir, name string, meta profiler.Meta) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := profiler.Write(path, &profiler.Profile{Records: sampleRows(), Meta: meta}); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReadRefusesAnotherSidecar: a sidecar whose model, device or backend
// is not the rows' is another profile's; the error names both files and
// the field.
func TestReadRefusesAnotherSidecar(t *testing.T) {
	dir := t.TempDir()
	own := profiler.Meta{Model: "m", Backend: "cpu"} // sampleRows' devices differ: the sidecar's left empty
	path := writeProfile(t, dir, "p.csv", own)
	if _, err := profiler.Read(path); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		meta  profiler.Meta
		field string
	}{
		{profiler.Meta{Model: "lm", Backend: "cpu"}, `model "m", but its sidecar ` + path + `.json says model "lm"`},
		{profiler.Meta{Model: "m", Backend: "onednn"}, `backend "cpu", but its sidecar ` + path + `.json says backend "onednn"`},
		{profiler.Meta{Model: "m", Device: "cpu: Other CPU, 4 cores"}, `device "cpu: Test CPU, 2 cores", but its sidecar`},
	} {
		b, _ := json.Marshal(tt.meta)
		if err := os.WriteFile(profiler.SidecarPath(path), b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := profiler.Read(path)
		if err == nil || !strings.Contains(err.Error(), path+": line 2: "+tt.field) || !strings.Contains(err.Error(), "the sidecar is another profile's") {
			t.Errorf("%+v: %v", tt.meta, err)
		}
	}
}

// TestReadRefusesEditedRows: a CSV cut short or with a row added (fewer
// or more rows than its sidecar counts), a row at a batch its sidecar did
// not measure, and a layer pass at a batch twice are refused, by line.
func TestReadRefusesEditedRows(t *testing.T) {
	dir := t.TempDir()
	rows := len(sampleRows())
	meta := profiler.Meta{Model: "m", Counts: profiler.Counts{Rows: rows}, Options: profiler.MetaOptions{Batches: []int{8}}}
	path := writeProfile(t, dir, "p.csv", meta)
	if _, err := profiler.Read(path); err != nil {
		t.Fatal(err)
	}
	csvText, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(csvText), "\n"), "\n")
	setMeta := func(m profiler.Meta) {
		b, _ := json.Marshal(m)
		if err := os.WriteFile(profiler.SidecarPath(path), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name, csv string
		meta      profiler.Meta
		want      string
	}{
		{"cut short", strings.Join(lines[:len(lines)-1], ""), meta, fmt.Sprintf(": %d rows, but its sidecar %s.json counts %d: the CSV was cut short or edited", rows-1, path, rows)},
		{"another batch", string(csvText), profiler.Meta{Model: "m", Options: profiler.MetaOptions{Batches: []int{1, 2}}}, ": line 2: batch 8, but its sidecar " + path + ".json says the profile measured batches [1 2]"},
		{"a row twice", string(csvText) + lines[1], profiler.Meta{Model: "m", Counts: profiler.Counts{Rows: rows + 1}}, fmt.Sprintf(": line %d: layer conv1 fwd at batch 8 again (line 2 has it)", rows+2)},
		// a reviewer's finds, edited by hand: each was trained on silently
		{"no model", lines[0] + strings.Replace(lines[1], "m,conv1,", ",conv1,", 1) + strings.Join(lines[2:], ""), meta, ": line 2: model: empty"},
		{"another precision", lines[0] + strings.Replace(lines[1], ",fp32,", ",tf32,", 1) + strings.Join(lines[2:], ""),
			profiler.Meta{Model: "m", Options: profiler.MetaOptions{Precision: "fp32"}}, `: line 2: precision "tf32", but its sidecar ` + path + `.json says the profile ran "fp32"`},
		{"fp16 on a CPU", strings.ReplaceAll(string(csvText), ",fp32,", ",fp16,"), profiler.Meta{Model: "m", Backend: "cpu"}, ": line 2: precision fp16 on the cpu backend, which computes fp32"},
		{"shared with nothing", strings.Replace(string(csvText), ",conv1,true,", ",conv9,true,", 1), meta, `: line 4: shared_with "conv9": no layer of that name measured the same work`},
	} {
		if err := os.WriteFile(path, []byte(tt.csv), 0o644); err != nil {
			t.Fatal(err)
		}
		setMeta(tt.meta)
		if _, err := profiler.Read(path); err == nil || !strings.Contains(err.Error(), path+tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

// TestReadRefusesEditedIterations: a sidecar's whole iteration at a batch
// the profile did not measure, or of no positive time, or a median below
// its minimum, is refused by field (each once changed the fitted cold
// traffic silently: a reviewer's find).
func TestReadRefusesEditedIterations(t *testing.T) {
	dir := t.TempDir()
	path := writeProfile(t, dir, "p.csv", profiler.Meta{Model: "m"})
	good := profiler.IterationTime{Batch: 8, Median: 0.2, Min: 0.1, Runs: 3}
	for _, tt := range []struct {
		it   profiler.IterationTime
		want string
	}{
		{good, ""},
		{profiler.IterationTime{Batch: 7, Median: 0.2, Min: 0.1}, ".json: iterations[0].batch: 7, not one of the batches the profile measured [8]"},
		{profiler.IterationTime{Batch: 8, Median: 0.2, Min: -1}, ".json: iterations[0].min_s: -1: want the fastest run's positive seconds"},
		{profiler.IterationTime{Batch: 8, Median: 0.05, Min: 0.1}, ".json: iterations[0].median_s: 0.05, below its min_s 0.1"},
	} {
		b, _ := json.Marshal(profiler.Meta{Model: "m", Options: profiler.MetaOptions{Batches: []int{8}}, Iterations: []profiler.IterationTime{tt.it}})
		if err := os.WriteFile(profiler.SidecarPath(path), b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := profiler.Read(path)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), path+tt.want)) {
			t.Errorf("%+v: %v, want %q", tt.it, err, tt.want)
		}
	}
}

// TestWriteSidecarFolder: where the sidecar's path is a folder, Write
// fails before anything is written: no CSV without its sidecar, and an
// earlier CSV at the path stays.
func TestWriteSidecarFolder(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "z.csv")
	if err := os.Mkdir(profiler.SidecarPath(path), 0o755); err != nil {
		t.Fatal(err)
	}
	err := profiler.Write(path, &profiler.Profile{Records: sampleRows()})
	if err == nil || !strings.Contains(err.Error(), profiler.SidecarPath(path)+": a folder") {
		t.Errorf("sidecar a folder: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("files left: %v", ents)
	}
}
