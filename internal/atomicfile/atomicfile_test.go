package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteReplacesAtOnce(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.csv")
	if err := Write(p, func(w io.Writer) error { _, err := io.WriteString(w, "one\n"); return err }); err != nil {
		t.Fatal(err)
	}
	// A failing writer leaves the old content and no temporary file.
	boom := errors.New("boom")
	err := Write(p, func(w io.Writer) error { io.WriteString(w, "half"); return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("error = %v, want boom", err)
	}
	b, _ := os.ReadFile(p)
	if string(b) != "one\n" {
		t.Fatalf("content after failed write = %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("directory holds %d entries, want only out.csv", len(entries))
	}
}

// TestCreateCommitAbort: a File changes its target only on Commit; Abort
// leaves the old content and no temporary file.
func TestCreateCommitAbort(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.csv")
	if err := os.WriteFile(p, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("new\n")
	if b, _ := os.ReadFile(p); string(b) != "old\n" {
		t.Fatalf("before Commit the target reads %q", b)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new\n" {
		t.Fatalf("after Commit the target reads %q", b)
	}
	if f.Commit() == nil {
		t.Error("a second Commit succeeded")
	}
	g, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	g.WriteString("lost\n")
	g.Flush()
	g.Abort()
	g.Abort() // twice is harmless
	if b, _ := os.ReadFile(p); string(b) != "new\n" {
		t.Fatalf("after Abort the target reads %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("directory holds %d entries after Abort, want only out.csv", len(entries))
	}
}

// TestCommitAll: files committed together all replace their targets; when
// one cannot be committed, none does and no temporary file is left.
func TestCommitAll(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for _, n := range []string{"a.csv", "b.csv", "c.csv"} {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	create := func() []*File {
		var fs []*File
		for _, p := range paths {
			f, err := Create(p)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("new " + filepath.Base(p) + "\n")
			fs = append(fs, f)
		}
		return fs
	}
	check := func(want func(p string) string) {
		t.Helper()
		for _, p := range paths {
			if b, _ := os.ReadFile(p); string(b) != want(p) {
				t.Errorf("%s reads %q, want %q", p, b, want(p))
			}
		}
		if entries, _ := os.ReadDir(dir); len(entries) != len(paths) {
			t.Errorf("directory holds %d entries, want the %d targets", len(entries), len(paths))
		}
	}
	// one of them aborted already: nothing changes
	fs := create()
	fs[1].Abort()
	if err := CommitAll(fs...); err == nil {
		t.Error("CommitAll with an aborted file succeeded")
	}
	check(func(string) string { return "old\n" })
	fs = create()
	if err := CommitAll(fs...); err != nil {
		t.Fatal(err)
	}
	check(func(p string) string { return "new " + filepath.Base(p) + "\n" })
	if err := CommitAll(fs...); err == nil {
		t.Error("a second CommitAll succeeded")
	}
}

// TestTempOf: the temporary file Write writes through names its file.
func TestTempOf(t *testing.T) {
	dir := t.TempDir()
	f, err := create(filepath.Join(dir, "predictions.csv"), false)
	if err != nil {
		t.Fatal(err)
	}
	defer f.f.Close()
	if of, ok := TempOf(filepath.Base(f.f.Name())); !ok || of != "predictions.csv" {
		t.Errorf("TempOf(%q) = %q, %v", filepath.Base(f.f.Name()), of, ok)
	}
	for _, n := range []string{"predictions.csv", ".predictions.csv", ".x.tmp", "x.tmp12"} {
		if _, ok := TempOf(n); ok {
			t.Errorf("%q taken for a temporary file", n)
		}
	}
}

// A path that cannot be written is said by its own name, not the temporary
// file's; an empty one names no file.
func TestCreateErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no", "x.csv")
	if _, err := Create(missing); err == nil || err.Error() != "cannot write "+missing+": no such file or directory" {
		t.Errorf("a missing folder: %v", err)
	}
	if _, err := Create(""); err == nil || err.Error() != `"": no file name to write` {
		t.Errorf("an empty path: %v", err)
	}
}

// A failure to put the file in place names the target, not the temporary
// file (whose name the user never gave).
func TestErrorNamesTarget(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.csv")
	if err := os.MkdirAll(filepath.Join(target, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := Write(target, func(w io.Writer) error { _, err := io.WriteString(w, "a,b\n"); return err })
	if err == nil || !strings.HasPrefix(err.Error(), "cannot write "+target+": ") || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("rename over a folder: %v", err)
	}
}

// MkdirAll says what a symbolic link in the way is: one leading nowhere,
// or round in a loop (os.MkdirAll said "file exists").
func TestMkdirAllLinks(t *testing.T) {
	dir := t.TempDir()
	dangle := filepath.Join(dir, "dangle")
	os.Symlink(filepath.Join(dir, "nowhere"), dangle)
	if err := MkdirAll(filepath.Join(dangle, "sub"), 0o755); err == nil || !strings.Contains(err.Error(), dangle+" is a symbolic link to "+filepath.Join(dir, "nowhere")+", which is not there") {
		t.Errorf("a link to nothing: %v", err)
	}
	loop := filepath.Join(dir, "loop")
	os.Symlink(loop, loop)
	if err := MkdirAll(loop, 0o755); err == nil || !strings.Contains(err.Error(), "which leads round in a loop") {
		t.Errorf("a loop: %v", err)
	}
	if err := MkdirAll(filepath.Join(dir, "a", "b"), 0o755); err != nil {
		t.Errorf("a plain folder: %v", err)
	}
}

// A symbolic link at the target is replaced by the file, its target left
// as it was: inside a results directory a link would otherwise carry the
// writes of one run into another directory wb never claimed (a
// reviewer's find, against a change that followed links).
func TestWriteReplacesLink(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "other.json"), filepath.Join(dir, "out.json")
	os.WriteFile(target, []byte("old"), 0o644)
	os.Symlink(target, link)
	if err := Write(link, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the link not replaced: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "old" {
		t.Errorf("the link's target holds %q", b)
	}
}
