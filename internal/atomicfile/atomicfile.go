// Package atomicfile writes files so that a reader, or a run interrupted
// half-way, never sees one half-written: the content goes to a temporary
// file in the same directory, which is renamed over the target only once it
// is complete and synced.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
)

// tempName matches the name of the temporary file Write writes NAME
// through (".NAME.tmpDIGITS").
var tempName = regexp.MustCompile(`^\.(.+)\.tmp[0-9]+$`)

// TempOf is the name of the file whose temporary file name is, and
// whether it is one: what a process killed while writing leaves behind.
func TempOf(name string) (string, bool) {
	if m := tempName.FindStringSubmatch(name); m != nil {
		return m[1], true
	}
	return "", false
}

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

func write(path string, fill func(w io.Writer) error, sync bool) error {
	f, err := create(path, sync)
	if err != nil {
		return err
	}
	if err := fill(f); err != nil {
		f.Abort()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Commit()
}

// File is a file being written that replaces its target only when
// committed, for content written piece by piece over a long run.
type File struct {
	*bufio.Writer
	f    *os.File
	path string
	sync bool
	done bool
}

// Create starts writing path: nothing at path changes until Commit.
func Create(path string) (*File, error) { return create(path, true) }

func create(path string, sync bool) (*File, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if base == "" {
		return nil, fmt.Errorf("%q: no file name to write", path)
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return nil, cannotWrite(path, err)
	}
	file := &File{Writer: bufio.NewWriterSize(f, 1<<16), f: f, path: path, sync: sync}
	unfinished.Lock()
	unfinished.temps[file] = f.Name()
	unfinished.Unlock()
	return file, nil
}

// unfinished holds the temporary file of every File neither committed nor
// aborted (RemoveUnfinished).
var unfinished = struct {
	sync.Mutex
	temps map[*File]string
}{temps: map[*File]string{}}

// settled takes f out of the unfinished files.
func (f *File) settled() {
	unfinished.Lock()
	delete(unfinished.temps, f)
	unfinished.Unlock()
}

// RemoveUnfinished removes the temporary file of every File not yet
// committed or aborted, for a process about to exit while another
// goroutine may still write one (wb's first Ctrl-C in a command that has
// no safe point of its own): their targets stay as they were, and a
// temporary file removed is not renamed over its target afterwards (the
// rename fails). Safe to call while they are written.
func RemoveUnfinished() {
	unfinished.Lock()
	defer unfinished.Unlock()
	for _, name := range unfinished.temps {
		os.Remove(name)
	}
}

// Commit flushes and syncs the content and puts it at the target path.
func (f *File) Commit() error {
	if err := f.prepare(); err != nil {
		return err
	}
	return f.finish()
}

// CommitAll commits files, their flushes and syncs side by side (a sync
// waits on the disk, not the CPU), then puts them at their targets in
// order. When one fails to sync, none replaces its target and all are
// aborted; when a rename fails, the files before it have been committed and
// those after it are aborted.
func CommitAll(files ...*File) error {
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	for i, f := range files {
		wg.Go(func() { errs[i] = f.prepare() })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, f := range files {
			f.Abort()
		}
		return err
	}
	for i, f := range files {
		if err := f.finish(); err != nil {
			for _, g := range files[i+1:] {
				g.Abort()
			}
			return err
		}
	}
	return nil
}

// prepare flushes, syncs and closes the temporary file; on failure it
// aborts.
func (f *File) prepare() (err error) {
	if f.done {
		return fmt.Errorf("%s: committed or aborted already", f.path)
	}
	defer func() {
		if err != nil {
			f.Abort()
			err = f.named(err)
		}
	}()
	if err := f.Flush(); err != nil {
		return err
	}
	if f.sync {
		if err := f.f.Sync(); err != nil {
			return err
		}
	}
	if err := f.f.Close(); err != nil {
		return err
	}
	return os.Chmod(f.f.Name(), 0o644)
}

// finish renames the prepared file over its target; on failure it
// removes it.
func (f *File) finish() error {
	defer f.settled()
	if err := os.Rename(f.f.Name(), f.path); err != nil {
		f.done = true
		os.Remove(f.f.Name())
		return f.named(err)
	}
	f.done = true
	return nil
}

// named is err of writing f said of f's target (cannotWrite).
func (f *File) named(err error) error { return cannotWrite(f.path, err) }

// cannotWrite is err of writing path, said of path and not of the
// temporary file its own path names ("write .p.csv.tmp35468: no space
// left on device" named no file the user asked for: a reviewer's find).
func cannotWrite(path string, err error) error {
	var pe *os.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return fmt.Errorf("cannot write %s: %w", path, err)
}

// Abort drops what was written, leaving the target as it was. It does
// nothing after Commit.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.f.Close()
	os.Remove(f.f.Name())
	f.settled()
}

// MkdirAll is os.MkdirAll with its "file exists" said: a symbolic link
// whose target is not there, or that leads round in a loop, where a folder
// is to be made (os.MkdirAll said only "mkdir DIR: file exists": a
// reviewer's find).
func MkdirAll(dir string, perm os.FileMode) error {
	err := os.MkdirAll(dir, perm)
	if err == nil || !errors.Is(err, fs.ErrExist) {
		return err
	}
	// the first part of dir that is a link leading nowhere
	for p := dir; ; p = filepath.Dir(p) {
		if fi, lerr := os.Lstat(p); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			if _, serr := os.Stat(p); serr != nil {
				target, _ := os.Readlink(p)
				why := "which is not there"
				if errors.Is(serr, syscall.ELOOP) {
					why = "which leads round in a loop"
				}
				return fmt.Errorf("cannot make the folder %s: %s is a symbolic link to %s, %s", dir, p, target, why)
			}
		}
		if filepath.Dir(p) == p {
			return err
		}
	}
}
