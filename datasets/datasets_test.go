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
