package datasets

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestDataDir(t *testing.T) {
	dir, err := DataDir()
	if err != nil {
		t.Fatal(err)
	}
	want, err := filepath.Abs("data")
	if err != nil {
		t.Fatal(err)
	}
	if dir != want {
		t.Errorf("DataDir = %q, want %q", dir, want)
	}

	tmp := t.TempDir()
	t.Setenv(EnvDataDir, tmp)
	if dir, err := DataDir(); err != nil || dir != tmp {
		t.Errorf("with $%s: DataDir = %q, %v; want %q", EnvDataDir, dir, err, tmp)
	}
	t.Setenv(EnvDataDir, filepath.Join(tmp, "missing"))
	if _, err := DataDir(); err == nil {
		t.Errorf("with $%s naming no directory: no error", EnvDataDir)
	}
}

// TestDataDirFromExecutable: outside the module, the search goes on from
// the executable's directory (a clone's bin/wb run from anywhere finds its
// clone's data); with neither under the module, the error names where it
// looked and what to do; a module root without its data is an error, not
// a search past it.
func TestDataDirFromExecutable(t *testing.T) {
	want, err := filepath.Abs("data")
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(want)
	elsewhere := t.TempDir()
	if dir, err := dataDirFrom(elsewhere, filepath.Join(root, "bin", "wb")); err != nil || dir != want {
		t.Errorf("from the clone's bin/wb: %q, %v; want %q", dir, err, want)
	}
	if dir, err := dataDirFrom(filepath.Join(root, "cmd"), filepath.Join(elsewhere, "wb")); err != nil || dir != want {
		t.Errorf("from inside the clone: %q, %v; want %q", dir, err, want)
	}
	_, err = dataDirFrom(elsewhere, filepath.Join(elsewhere, "go", "bin", "wb"))
	if err == nil || !strings.Contains(err.Error(), elsewhere) || !strings.Contains(err.Error(), "$"+EnvDataDir) ||
		!strings.Contains(err.Error(), "bin/") {
		t.Errorf("from neither: %v", err)
	}
	if _, err := dataDirFrom(elsewhere, ""); err == nil {
		t.Error("no executable, outside the module: no error")
	}
	bare := t.TempDir()
	if err := os.WriteFile(filepath.Join(bare, "go.mod"), []byte("module "+Module+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := dataDirFrom(bare, filepath.Join(root, "bin", "wb")); err == nil {
		t.Error("a module root without datasets/data: no error")
	}
}

// Every bundled file has its entry in SOURCES.md.
func TestSourcesListsEveryFile(t *testing.T) {
	sources, err := os.ReadFile("data/SOURCES.md")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir("data", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "SOURCES.md" {
			return err
		}
		rel, _ := filepath.Rel("data", path)
		if !strings.Contains(string(sources), "`"+filepath.ToSlash(rel)+"`") {
			t.Errorf("SOURCES.md does not list `%s`", filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestDropped(t *testing.T) {
	var d Dropped
	if d.String() != "none" || d.Total() != 0 {
		t.Errorf("empty: %q, %d", d.String(), d.Total())
	}
	for _, r := range []string{"b", "a", "b", "b"} {
		d.Add(r)
	}
	want := Dropped{{Reason: "b", Count: 3}, {Reason: "a", Count: 1}}
	if !reflect.DeepEqual(d, want) {
		t.Errorf("Dropped = %v, want %v", d, want)
	}
	if d.Count("b") != 3 || d.Count("c") != 0 || d.Total() != 4 || d.String() != "b: 3, a: 1" {
		t.Errorf("Count, Total, String = %d, %d, %d, %q", d.Count("b"), d.Count("c"), d.Total(), d.String())
	}
}

func TestColumnError(t *testing.T) {
	tests := []struct {
		err  ColumnError
		want string
	}{
		{ColumnError{File: "a.csv", Line: 3, Column: "gpu", Msg: "bad"}, "a.csv:3: gpu: bad"},
		{ColumnError{File: "a.csv", Line: 3, Msg: "bad"}, "a.csv:3: bad"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}
