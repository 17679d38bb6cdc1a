// Package readcap reads a small input file (a spec sheet, a label, a
// model's config.json) whole, up to a cap: a file that never ends
// (/dev/zero, a pipe left open) or one far too large to be what it is
// named is refused once the cap is read, not read until memory runs out.
package readcap

import (
	"fmt"
	"io"
	"os"
)

// JSON is the cap on a JSON input file: its spec sheets, labels and
// Hugging Face configs are a few KB (a config with a large id2label map a
// few hundred).
const JSON = 8 << 20

// ReadFile reads the file at path, at most limit bytes of it: a longer one
// is an error naming the file and the cap.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: more than %s, the most wb reads of such a file: not the file meant (a device or a stream?)", path, size(limit))
	}
	return b, nil
}

// size writes n bytes as MiB, KiB or bytes, whichever is whole.
func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Lines is r, failing once a line runs past limit bytes: a table read
// from a device or a stream that never ends a line (/dev/zero) is refused
// at the cap, not read into memory until the process dies.
func Lines(r io.Reader, limit int) io.Reader { return &lines{r: r, limit: limit} }

type lines struct {
	r     io.Reader
	limit int
	run   int // bytes since the last newline
}

func (l *lines) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i, c := range p[:n] {
		if c == '\n' {
			l.run = 0
			continue
		}
		if l.run++; l.run > l.limit {
			return i, fmt.Errorf("a line longer than %s: not a table (a device or a stream?)", size(int64(l.limit)))
		}
	}
	return n, err
}
