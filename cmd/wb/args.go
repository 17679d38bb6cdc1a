package main

import (
	"strings"

	"github.com/urfave/cli/v2"
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
