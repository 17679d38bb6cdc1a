package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/wb-sim/wb/experiments"
	"github.com/wb-sim/wb/internal/atomicfile"
)

// flagsFirst reorders a command line so that the flags of a command written
// after its positional arguments (`wb experiment CONFIG --slurm`) come
// before them, which is where urfave/cli looks for them. "--" ends the
// reordering.
func flagsFirst(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	out := []string{args[0]}
	cmds, flags := app.Commands, app.Flags
	var fl, pos []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			pos = append(pos, args[i:]...)
			i = len(args)
		case strings.HasPrefix(a, "-") && a != "-":
			fl = append(fl, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") {
				if f := findFlag(flags, name); f != nil && takesValue(f) && i+1 < len(args) {
					i++
					fl = append(fl, args[i])
				}
			}
		case len(pos) == 0 && findCommand(cmds, a) != nil:
			c := findCommand(cmds, a)
			out = append(append(out, fl...), a)
			fl = nil
			cmds, flags = c.Subcommands, c.Flags
		default:
			pos = append(pos, a)
		}
	}
	return append(append(out, fl...), pos...)
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.Name == name {
			return c
		}
		for _, a := range c.Aliases {
			if a == name {
				return c
			}
		}
	}
	return nil
}

func findFlag(flags []cli.Flag, name string) cli.Flag {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}

func takesValue(f cli.Flag) bool {
	if d, ok := f.(cli.DocGenerationFlag); ok {
		return d.TakesValue()
	}
	return true
}

// writableOut says, before any work is done, whether the file at path can
// be written as its writer writes it, naming flag: atomic (a temporary file
// in its folder renamed over it: the folder, made where mkdir, must take a
// new file) or in place (os.WriteFile: an existing file must open for
// writing, a new one be created in its folder). path is not a folder.
func writableOut(flag, path string, atomic, mkdir bool) error {
	if path == "" {
		return fmt.Errorf("%s: empty; name a file", flag)
	}
	fi, statErr := os.Stat(path)
	if statErr == nil && fi.IsDir() {
		return fmt.Errorf("%s %s: a folder; name a file", flag, path)
	}
	dir := filepath.Dir(path)
	if mkdir {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("%s %s: cannot make its folder: %w", flag, path, err)
		}
	} else if di, err := os.Stat(dir); err != nil || !di.IsDir() {
		return fmt.Errorf("%s %s: no folder %s to write it in", flag, path, dir)
	}
	if !atomic && statErr == nil {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("%s %s: cannot write it: %w", flag, path, errors.Unwrap(err))
		}
		return f.Close()
	}
	f, err := os.CreateTemp(dir, ".wb-write-check-*")
	if err != nil {
		return fmt.Errorf("%s %s: cannot write in %s: %w", flag, path, dir, errors.Unwrap(err))
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// outFolder claims dir for a command that writes files into it (wb
// evaluate --out, wb predict --validate neusight --out): a new or empty
// folder, one holding only what such a command writes (its earlier
// results), never an experiment's or a simulation's results nor a folder
// of other files, which the command would otherwise overwrite or mix in
// silently. writes are the names the command writes into dir.
func outFolder(dir, command string, writes ...string) error {
	if err := checkOutFolder(dir, command, writes...); err != nil {
		return err
	}
	return os.MkdirAll(dir, 0o755)
}

// checkOutFolder is outFolder's check alone: it makes no folder, so that
// a command may refuse a bad --out before reading its inputs and make the
// folder only once they have read.
func checkOutFolder(dir, command string, writes ...string) error {
	if err := experiments.NotAFile(dir); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(dir, experiments.MarkerFile)); err == nil {
		return fmt.Errorf("--out %s holds the results of wb experiment or wb simulate, which %s would mix its files into: choose another folder", dir, command)
	}
	ents, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("--out %s: %w", dir, err)
	}
	var foreign []string
	for _, e := range ents {
		if of, ok := atomicfile.TempOf(e.Name()); ok && slices.Contains(writes, of) {
			continue // the command killed while writing it left it
		}
		if !slices.Contains(writes, e.Name()) {
			foreign = append(foreign, e.Name())
		}
	}
	if len(foreign) > 0 {
		if len(foreign) > 3 {
			foreign = append(foreign[:3], "...")
		}
		return fmt.Errorf("--out %s holds files %s does not write (%s): choose a new or empty folder, or one of its earlier results", dir, command, strings.Join(foreign, ", "))
	}
	return nil
}

// wantExt refuses an --out whose name does not end in ext: a profile
// written over a predictor, or a predictor over a profile's CSV, is lost
// work.
func wantExt(flag, path, ext, what string) error {
	if path != "" && !strings.HasSuffix(strings.ToLower(path), ext) {
		return fmt.Errorf("%s %s: %s is written as a %s file: name it *%s", flag, path, what, strings.TrimPrefix(ext, "."), ext)
	}
	return nil
}
