package app

import (
	"io"
	"slices"
	"strings"
	"testing"
)

// FuzzFlagsFirst: reordering a command line so that a command's flags come
// before its positional arguments keeps every argument (the same ones, as
// many times), keeps the program's name first and the flags' order, leaves
// everything after a "--" that ends the flags as it was, and changes
// nothing once done.
func FuzzFlagsFirst(f *testing.F) {
	for _, s := range []string{
		"wb experiment configs/backfill.yaml --slurm --partition gpu",
		"wb simulate --trace swf:a.swf --backfill easy",
		"wb predict resnet50 --device v100 -b 64",
		"wb predict -- --device",
		"wb profile resnet50 --out=x.csv --batch 1,8 -",
		"wb --help experiment",
		"wb experiment configs/plan.yaml --jobs",
		"wb dataset pai-sim a b c --out d",
		"wb simulate --out -- x --backfill easy",
	} {
		f.Add(s)
	}
	app := newApp(io.Discard, io.Discard)
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		if len(args) == 0 {
			return
		}
		out := flagsFirst(app, args)
		if len(out) != len(args) || out[0] != args[0] {
			t.Fatalf("%q → %q: arguments lost, added or the program moved", args, out)
		}
		a, b := slices.Clone(args), slices.Clone(out)
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) {
			t.Fatalf("%q → %q: not the same arguments", args, out)
		}
		// (a -- right after a flag may be its value, as Go's flags read
		// --out --: only one after a word that is no flag ends them)
		if i := slices.Index(args[1:], "--"); i >= 0 && (i == 0 || !strings.HasPrefix(args[i], "-") || strings.Contains(args[i], "=")) {
			tail := args[1+i:]
			if len(out) < len(tail) || !slices.Equal(out[len(out)-len(tail):], tail) {
				t.Fatalf("%q → %q: what follows -- was reordered", args, out)
			}
		}
		flags := func(s []string) []string {
			var fl []string
			for _, x := range s[1:] {
				if x == "--" {
					break
				}
				if strings.HasPrefix(x, "-") && x != "-" {
					fl = append(fl, x)
				}
			}
			return fl
		}
		if !slices.Equal(flags(args), flags(out)) {
			t.Fatalf("%q → %q: the flags' order changed", args, out)
		}
		if again := flagsFirst(app, out); !slices.Equal(again, out) {
			t.Fatalf("%q → %q → %q: not settled after one pass", args, out, again)
		}
	})
}
