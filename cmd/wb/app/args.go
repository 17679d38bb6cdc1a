package app

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/wb-sim/wb/internal/atomicfile"
)

// flagsFirst reorders a command line so that the flags of a command written
// after its positional arguments (`wb experiment CONFIG --slurm`) come
// before them, which is where urfave/cli looks for them. "--" ends the
// reordering.
func flagsFirst(app *cli.App, args []string) []string {
	if len(args) < 2 || args[len(args)-1] == "--generate-bash-completion" {
		// a shell's completion asks with its flag last, where urfave/cli
		// looks for it (moved before a positional argument, it was parsed
		// as an unknown flag: no completion after one, a reviewer's find);
		// the word completed is read off os.Args, as typed
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

// makeableOut is writableOut (atomic) where path's folder exists; where it
// does not, whether it can be made: its nearest existing ancestor must be a
// folder. It makes nothing, so that work refused or interrupted after it
// leaves no folder behind; writableOut with mkdir makes it once there is
// something to write.
func makeableOut(flag, path string) error {
	if path == "" {
		return fmt.Errorf("%s: empty; name a file", flag)
	}
	dir := filepath.Dir(path)
	if _, err := os.Stat(dir); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return writableOut(flag, path, true, false)
	}
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		switch {
		case err == nil && fi.IsDir():
			return nil
		case err == nil:
			return fmt.Errorf("%s %s: cannot make its folder %s: %s is a file", flag, path, dir, d)
		case !errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("%s %s: cannot make its folder %s: %w", flag, path, dir, err)
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
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
	// a file renamed over a link replaces the link, its target left as it
	// was, while wb said it wrote it (a reviewer's find): name the target
	if li, err := os.Lstat(path); atomic && err == nil && li.Mode()&os.ModeSymlink != 0 {
		to, _ := os.Readlink(path)
		return fmt.Errorf("%s %s is a symbolic link (to %s): wb writes a new file in its place, not through it, and the link's target would stay as it was; name the file itself", flag, path, to)
	}
	dir := filepath.Dir(path)
	if mkdir {
		if err := atomicfile.MkdirAll(dir, 0o755); err != nil {
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

// wantExt refuses an --out whose name does not end in ext: a profile
// written over a predictor, or a predictor over a profile's CSV, is lost
// work.
func wantExt(flag, path, ext, what string) error {
	if path != "" && !strings.HasSuffix(strings.ToLower(path), ext) {
		return fmt.Errorf("%s %s: %s is written as a %s file: name it *%s", flag, path, what, strings.TrimPrefix(ext, "."), ext)
	}
	return nil
}
