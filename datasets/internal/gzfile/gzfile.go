// Package gzfile opens trace files that may be gzip-compressed, telling them
// apart by the gzip magic bytes rather than by the file name, and
// decompresses ahead of the reader in a second goroutine so that parsing and
// decompression overlap.
package gzfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/klauspost/compress/gzip"
)

// ErrTruncated is the read error of a compressed file that ends before its
// compressed data does; it is an io.ErrUnexpectedEOF.
var ErrTruncated error = truncated{}

type truncated struct{}

func (truncated) Error() string { return "unexpected end of compressed data: the file is truncated" }
func (truncated) Unwrap() error { return io.ErrUnexpectedEOF }

// ErrTrailing is the read error of a compressed file with bytes after its
// last member that are neither another member nor zeros (the padding gzip
// -d ignores).
var ErrTrailing = errors.New("bytes after the compressed data that are neither another gzip member nor padding: the file was cut or appended to (check it with gzip -t)")

// Damaged says whether the gzip-compressed file at path is damaged (its
// data fail their checksum, it is truncated, or bytes follow its members)
// and how: a reader's error in the middle of such a file is the damage's,
// not the data's, as gzip hands out the bytes it decompresses before the
// checksum at the end can fail. nil for a file that is whole, is not
// gzip-compressed, is not a regular file, or cannot be opened (its reader
// said why).
func Damaged(path string) error {
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return nil // a pipe is read once (and opened again, waits for a writer)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	var head [len(magic)]byte
	_, err = io.ReadFull(f, head[:])
	f.Close()
	if err != nil || head != magic {
		return nil // not compressed: nothing to check
	}
	r, err := Open(path)
	if err != nil {
		return nil
	}
	defer r.Close()
	if _, err := io.Copy(io.Discard, r); err != nil {
		return fmt.Errorf("%s: the gzip-compressed file is damaged (%v): download it again, or check it with gzip -t", path, err)
	}
	return nil
}

// magic is the start of every gzip member (RFC 1952).
var magic = [2]byte{0x1f, 0x8b}

// Open opens the file at path for reading, decompressing it when it is
// gzip-compressed. The caller must Close the reader.
func Open(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r, err := NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &fileReader{ReadCloser: r, f: f}, nil
}

type fileReader struct {
	io.ReadCloser
	f *os.File
}

func (r *fileReader) Close() error {
	err := r.ReadCloser.Close()
	if ferr := r.f.Close(); err == nil {
		err = ferr
	}
	return err
}

// NewReader returns a reader of r's contents, decompressed when they start
// with the gzip magic bytes. Closing it stops the decompression; it does not
// close r.
func NewReader(r io.Reader) (io.ReadCloser, error) {
	br := bufio.NewReaderSize(r, 256<<10)
	head, err := br.Peek(len(magic))
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if len(head) < len(magic) || head[0] != magic[0] || head[1] != magic[1] {
		return io.NopCloser(br), nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("starts as gzip does, but its gzip header cannot be read (%v): the file is not whole; download it again, or check it with gzip -t", err)
	}
	zr.Multistream(false)
	return newReadahead(&members{zr: zr, br: br}), nil
}

// members reads a gzip file's members one after another, as gzip -d does,
// and zeros after the last member as padding, read past (gzip -d warns of
// them); a member after zeros is read too (gzip -d stops at the zeros,
// saying "trailing garbage ignored"); other bytes after a member are
// ErrTrailing, and a file that ends inside a member's header ErrTruncated.
type members struct {
	zr *gzip.Reader
	br *bufio.Reader
}

func (m *members) Read(p []byte) (int, error) {
	n, err := m.zr.Read(p)
	if err != io.EOF {
		return n, err
	}
	if err := m.next(); err != nil {
		return n, err // io.EOF at the end
	}
	return n, nil // another member follows
}

// next reads past the end of a member: nil where another member follows
// (the reader reset to it), io.EOF where the file ends (after zeros or
// not), ErrTrailing where other bytes follow.
func (m *members) next() error {
	for {
		if _, err := m.br.Peek(1); err != nil {
			return err // io.EOF at the end
		}
		b, _ := m.br.Peek(m.br.Buffered()) // (a byte at least)
		z := 0
		for z < len(b) && b[z] == 0 {
			z++
		}
		m.br.Discard(z)
		if z < len(b) {
			break // a byte other than zero
		}
	}
	head, _ := m.br.Peek(len(magic))
	if len(head) < len(magic) || head[0] != magic[0] || head[1] != magic[1] {
		return ErrTrailing
	}
	if err := m.zr.Reset(m.br); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return ErrTruncated // cut inside the next member's header
		}
		return fmt.Errorf("a second gzip member whose header cannot be read (%v): %w", err, ErrTrailing)
	}
	m.zr.Multistream(false)
	return nil
}

const (
	blockSize = 256 << 10
	blocks    = 4
)

// readahead reads its source in a goroutine, blocks ahead of its reader.
type readahead struct {
	full chan block
	free chan []byte
	done chan struct{}
	wg   sync.WaitGroup
	once sync.Once

	cur []byte // unread part of the current block
	buf []byte // the current block's buffer, to give back
	err error  // the error after the current block
}

type block struct {
	b   []byte
	err error
}

func newReadahead(src io.Reader) *readahead {
	r := &readahead{
		full: make(chan block, blocks),
		free: make(chan []byte, blocks),
		done: make(chan struct{}),
	}
	for range blocks {
		r.free <- make([]byte, blockSize)
	}
	r.wg.Add(1)
	go r.run(src)
	return r
}

func (r *readahead) run(src io.Reader) {
	defer r.wg.Done()
	for {
		var buf []byte
		select {
		case buf = <-r.free:
		case <-r.done:
			return
		}
		buf = buf[:cap(buf)]
		n := 0
		var err error
		for n < len(buf) && err == nil {
			var m int
			m, err = src.Read(buf[n:])
			n += m
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = ErrTruncated
		}
		select {
		case r.full <- block{b: buf[:n], err: err}:
		case <-r.done:
			return
		}
		if err != nil {
			return
		}
	}
}

func (r *readahead) Read(p []byte) (int, error) {
	for len(r.cur) == 0 {
		if r.buf != nil {
			r.free <- r.buf[:cap(r.buf)] // never blocks: free holds every buffer
			r.buf = nil
		}
		if r.err != nil {
			return 0, r.err
		}
		blk := <-r.full
		r.cur, r.buf, r.err = blk.b, blk.b, blk.err
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	return n, nil
}

// Close stops the decompression and waits for its goroutine to end. The
// reader must not be read after Close.
func (r *readahead) Close() error {
	r.once.Do(func() {
		close(r.done)
		r.wg.Wait()
	})
	return nil
}

// SizeHint guesses how many bytes reading the file at path yields: its
// size, or for a gzip file the length its trailer records (RFC 1952's
// ISIZE: the last member's length modulo 2^32, so only a hint). It
// returns 0 when it cannot tell. Readers use it to size their buffers once;
// a wrong hint must cost only speed.
func SizeHint(path string) int64 {
	// Only a regular file is opened: opening a named pipe waits for a
	// writer, and one that has finished never comes.
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return 0
	}
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return 0
	}
	var head [2]byte
	if _, err := io.ReadFull(f, head[:]); err != nil || head != magic {
		return st.Size()
	}
	var tail [4]byte
	if st.Size() < 18+4 {
		return 0
	}
	if _, err := f.ReadAt(tail[:], st.Size()-4); err != nil {
		return 0
	}
	n := int64(tail[0]) | int64(tail[1])<<8 | int64(tail[2])<<16 | int64(tail[3])<<24
	if n < st.Size() {
		// compressed data is rarely larger than its content: a length past
		// 4 GiB wrapped round, or a multi-member file
		return 0
	}
	return n
}

// ReadFile opens the file at path (gzip-compressed or not) and reads it
// with read, which names it path in its errors.
func ReadFile[T any](path string, read func(io.Reader, string) (T, error)) (T, error) {
	f, err := Open(path)
	if err != nil {
		var zero T
		return zero, err
	}
	defer f.Close()
	return read(f, path)
}
