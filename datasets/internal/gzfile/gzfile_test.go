package gzfile

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

func TestNewReader(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	big := make([]byte, 3*blockSize+17) // several blocks and a partial one
	for i := range big {
		big[i] = byte('a' + rng.IntN(3))
	}
	tests := []struct {
		name string
		in   []byte
		want []byte
	}{
		{"empty", nil, nil},
		{"one byte", []byte{0x1f}, []byte{0x1f}},
		{"plain", []byte("hello\n"), []byte("hello\n")},
		{"gzip", gz([]byte("hello\n")), []byte("hello\n")},
		{"gzip of nothing", gz(nil), nil},
		{"big gzip", gz(big), big},
		{"two members", append(gz([]byte("a")), gz([]byte("b"))...), []byte("ab")},
		// zeros after the last member are padding, as gzip -d reads them; a
		// member after them is read too (gzip -d stops at the zeros)
		{"zero padding", append(gz([]byte("a")), make([]byte, 3*blockSize)...), []byte("a")},
		{"padding between members", append(append(gz([]byte("a")), 0, 0), gz([]byte("b"))...), []byte("ab")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewReader(bytes.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tt.want) {
				t.Errorf("read %d bytes, want %d", len(got), len(tt.want))
			}
			if err := r.Close(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestTruncated(t *testing.T) {
	z := gz(bytes.Repeat([]byte("0123456789"), 100000))
	r, err := NewReader(bytes.NewReader(z[:len(z)/2]))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := io.ReadAll(r); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("error = %v, want io.ErrUnexpectedEOF", err)
	}
}

// Bytes after the last member that are neither zeros nor another member
// are an error, after what came before; a file cut inside the next
// member's header is truncated.
func TestTrailing(t *testing.T) {
	for _, tail := range [][]byte{[]byte("hello"), {0, 0, 7}} {
		r, err := NewReader(bytes.NewReader(append(gz([]byte("abc")), tail...)))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if !errors.Is(err, ErrTrailing) || string(got) != "abc" {
			t.Errorf("tail %q: read %q, %v; want abc and ErrTrailing", tail, got, err)
		}
		r.Close()
	}
	second := gz([]byte("def"))
	r, err := NewReader(bytes.NewReader(append(gz([]byte("abc")), second[:5]...)))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got, err := io.ReadAll(r); !errors.Is(err, ErrTruncated) || string(got) != "abc" {
		t.Errorf("cut in the second member's header: read %q, %v; want abc and ErrTruncated", got, err)
	}
}

// Closing before the end stops the decompressing goroutine.
func TestCloseEarly(t *testing.T) {
	z := gz(bytes.Repeat([]byte("0123456789"), 1000000))
	r, err := NewReader(bytes.NewReader(z))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 10)
	if _, err := io.ReadFull(r, buf); err != nil || string(buf) != "0123456789" {
		t.Fatalf("read %q, %v", buf, err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.txt") // gzip despite the name
	if err := os.WriteFile(path, gz([]byte("x")), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(r)
	if err != nil || string(b) != "x" {
		t.Errorf("read %q, %v", b, err)
	}
	if err := r.Close(); err != nil {
		t.Error(err)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("opening a missing file: no error")
	}
	// a gzip header that cannot be read is said, naming the file
	bad := filepath.Join(t.TempDir(), "bad.swf.gz")
	if err := os.WriteFile(bad, []byte("\x1f\x8bhello"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(bad); err == nil || !strings.HasPrefix(err.Error(), bad+": starts as gzip does, but its gzip header cannot be read") {
		t.Errorf("a broken gzip header: %v", err)
	}
}

// TestSizeHint: a plain file's hint is its size, a gzip file's the length
// its trailer records; a missing file or a gzip file too short for a
// trailer gives 0.
func TestSizeHint(t *testing.T) {
	dir := t.TempDir()
	content := bytes.Repeat([]byte("1 2 3 4 5\n"), 5000)
	plain, zipped, short := filepath.Join(dir, "a"), filepath.Join(dir, "a.gz"), filepath.Join(dir, "short.gz")
	for p, b := range map[string][]byte{plain: content, zipped: gz(content), short: {0x1f, 0x8b, 8}} {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for p, want := range map[string]int64{plain: int64(len(content)), zipped: int64(len(content)), short: 0, filepath.Join(dir, "missing"): 0} {
		if got := SizeHint(p); got != want {
			t.Errorf("SizeHint(%s) = %d, want %d", filepath.Base(p), got, want)
		}
	}
}

// A named pipe has no size to hint, and is not opened to find out: opening
// one waits for a writer (which, once a reader is done, never comes).
func TestSizeHintPipe(t *testing.T) {
	p := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	done := make(chan int64, 1)
	go func() { done <- SizeHint(p) }()
	select {
	case n := <-done:
		if n != 0 {
			t.Errorf("SizeHint of a pipe = %d, want 0", n)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("SizeHint of a pipe with no writer still waits after 5 s")
	}
}

// TestDamaged: a whole gzip file and a file not compressed are not
// damaged; one whose middle was changed is, and says so with advice.
func TestDamaged(t *testing.T) {
	dir := t.TempDir()
	var lines bytes.Buffer
	for i := range 20000 {
		fmt.Fprintf(&lines, "%d 1 2 3\n", i)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(lines.Bytes())
	zw.Close()
	whole, plain, bad := filepath.Join(dir, "w.gz"), filepath.Join(dir, "p.txt"), filepath.Join(dir, "b.gz")
	b := bytes.Clone(gz.Bytes())
	for i := len(b) / 2; i < len(b)/2+40; i++ {
		b[i] ^= 0x55
	}
	for p, data := range map[string][]byte{whole: gz.Bytes(), plain: lines.Bytes(), bad: b} {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := Damaged(whole); err != nil {
		t.Errorf("whole: %v", err)
	}
	if err := Damaged(plain); err != nil {
		t.Errorf("not compressed: %v", err)
	}
	if err := Damaged(filepath.Join(dir, "none")); err != nil {
		t.Errorf("missing: %v", err)
	}
	if err := Damaged(bad); err == nil || !strings.Contains(err.Error(), "damaged") || !strings.Contains(err.Error(), "gzip -t") {
		t.Errorf("damaged: %v", err)
	}
}
