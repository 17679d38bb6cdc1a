// Package atomicfile writes files so that a reader, or a run interrupted
// half-way, never sees one half-written: the content goes to a temporary
// file in the same directory, which is renamed over the target only once it
// is complete and synced.
package atomicfile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write creates or replaces path with what fill writes. When fill fails,
// the previous file at path, if any, is left as it was. The file is synced
// to disk before it replaces the old one.
func Write(path string, fill func(w io.Writer) error) error {
	return write(path, fill, true)
}

// WriteUnsynced is Write without the sync: a process killed at any moment
// still leaves either the old file or the whole new one, but a machine
// that loses power may not. For intermediate files that can be made again.
func WriteUnsynced(path string, fill func(w io.Writer) error) error {
	return write(path, fill, false)
}

func write(path string, fill func(w io.Writer) error, sync bool) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<16)
	if err := fill(bw); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if sync {
		if err := f.Sync(); err != nil {
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
