package experiments

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzPlotTables: wb plot reads the results CSVs a user may have edited
// (summary.csv, jobs.csv, timeseries.csv); whatever they hold, it draws or
// refuses without panicking, and a refusal names the file it could not
// draw from (or the config copy it checks them against).
func FuzzPlotTables(f *testing.F) {
	base := f.TempDir()
	c, err := LoadConfig(filepath.Join("testdata", "small.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	c.Out = base
	if _, err := Run(context.Background(), c, RunOptions{}); err != nil {
		f.Fatal(err)
	}
	files := []string{SummaryFile, JobsFile, SeriesFile}
	orig := map[string][]byte{}
	for _, name := range files {
		b, err := os.ReadFile(filepath.Join(base, name))
		if err != nil {
			f.Fatal(err)
		}
		orig[name] = b
		f.Add(uint8(len(orig)-1), b)
		f.Add(uint8(len(orig)-1), b[:len(b)/2])
	}
	sum := string(orig[SummaryFile])
	f.Add(uint8(0), []byte(strings.Replace(sum, ",ok,", ",NaN,", 1)))
	f.Add(uint8(0), []byte(strings.ReplaceAll(sum, ",", ",\"")))
	f.Add(uint8(1), []byte("run,workload\n0,KTH\n"))
	f.Add(uint8(2), []byte("\xef\xbb\xbf"+string(orig[SeriesFile])))
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		dir := t.TempDir()
		ents, err := os.ReadDir(base)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if e.IsDir() {
				continue
			}
			b, err := os.ReadFile(filepath.Join(base, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.MkdirAll(filepath.Join(dir, FiguresDir), 0o755); err != nil {
			t.Fatal(err)
		}
		name := files[int(which)%len(files)]
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err = Plot(dir)
		if err != nil && !strings.Contains(err.Error(), dir) {
			t.Fatalf("%s edited: the error names no file of the results: %v", name, err)
		}
	})
}
