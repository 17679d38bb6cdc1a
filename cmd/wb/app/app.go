package app

import (
	"fmt"
	"io"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/wb-sim/wb/internal/registry"
)

func newApp(stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:  "wb",
		Usage: "GPU runtime prediction and cluster scheduling workbench",
		Description: "wb predicts how long DNN training and inference take on GPUs and CPUs, and\n" +
			"simulates cluster schedulers with those predictions or with real traces.\n\n" +
			"Prediction: an analytical (Paleo-style) model per layer with a learned correction,\n" +
			"trained on layers profiled on this machine (wb profile, wb train) or, for GPUs, on\n" +
			"NeuSight's measurements of five GPUs (and a sixth's convolutions), reaching a GPU\n" +
			"never measured from its spec sheet (wb predict --device-spec).\n" +
			"Scheduling: FIFO, SJF, EASY and conservative backfill, gang scheduling, first-fit,\n" +
			"best-fit, Tetris, FGD and genetic-algorithm placement, SLO-aware GPU sharing, on the\n" +
			"Parallel Workloads Archive (SWF), Alibaba openb v2023 and PAI v2020 and Gavel/Philly\n" +
			"traces. Bundled data lives in datasets/data.\n\n" +
			"Start with:\n" +
			"   wb experiment configs/backfill.yaml     # CSVs, manifest and figures in results/backfill\n" +
			"   wb simulate --trace datasets/data/swf/KTH-SP2-1996-2.1-cln.swf.gz --backfill easy\n" +
			"   wb predict gpt3-2.7b --device-spec NVIDIA_H100_80GB_HBM3 --seq 2048 --batch 1 --mode train",
		Writer:               stdout,
		ErrWriter:            stderr,
		EnableBashCompletion: true,
		Version:              versionString(),
		Flags:                []cli.Flag{cli.HelpFlag},
		ExitErrHandler:       func(*cli.Context, error) {}, // main prints errors and exits
		Commands: []*cli.Command{
			simulateCommand(),
			experimentCommand(),
			datasetCommand(),
			plotCommand(),
			predictCommand(),
			trainCommand(),
			gpuTrainCommand(),
			evaluateCommand(),
			profileCommand(),
			devicesCommand(),
			versionCommand(),
			completionCommand(),
			helpCommand(),
		},
	}
	app.OnUsageError = usageError
	app.Action = func(c *cli.Context) error {
		if name := c.Args().First(); name != "" {
			return unknownCommand(c.App, name)
		}
		return cli.ShowAppHelp(c)
	}
	for _, c := range app.Commands {
		setCommandChecks(c)
		switch c.Name {
		case "predict", "train", "train-gpu", "evaluate", "dataset", "plot":
			stopOnInterrupt(c)
		}
	}
	return app
}

// stopOnInterrupt makes the first Ctrl-C (or SIGTERM) end a command, and
// its subcommands, that holds its work in memory until it writes its files
// at the end and so has no safe point to stop at of its own (wb train's
// cross-validation, wb predict --validate's trainings): they finished
// unasked, wrote their files and exited 0. Now wb ends at once, as at a
// second Ctrl-C, with an error (exit 130, 143 after SIGTERM): every file
// written by then is whole (each is written to a temporary file, then
// renamed), and one being written is left as it was, its temporary file
// removed (atomicfile.RemoveUnfinished, in main). simulate, experiment and profile stop at safe
// points of their own. Only under Main: through Run these commands run to
// their end whatever the context says.
func stopOnInterrupt(c *cli.Command) {
	for _, s := range c.Subcommands {
		stopOnInterrupt(s)
	}
	act := c.Action
	if act == nil {
		return
	}
	c.Action = func(ctx *cli.Context) error {
		if ctx.Context.Value(exitsOnInterrupt{}) == nil {
			// within a program of one's own (Run), nothing exits after
			// the return: the work runs to its end and says how it ended
			// (returning at once left it running, writing files after
			// Run had said it stopped: a reviewer's find)
			return act(ctx)
		}
		done := make(chan error, 1)
		go func() { done <- act(ctx) }()
		select {
		case err := <-done:
			return err
		case <-ctx.Context.Done():
			return fmt.Errorf("%s interrupted before it finished: stopped; each file it writes is whole, or as it was before (one it was writing is left as it was)", ctx.Command.HelpName)
		}
	}
}

// exitsOnInterrupt marks the context of Main, which ends the process as
// soon as a command returns after an interrupt: there a command that
// stopOnInterrupt holds may return before its work has ended.
type exitsOnInterrupt struct{}

// flagParseError matches the flag package's error for a value that does not
// parse, capturing the flag's name.
var flagParseError = regexp.MustCompile(`^invalid value ".*" for flag -([\w-]+): parse error$`)

// sliceParseError is a list flag's element that is not a whole number.
var sliceParseError = regexp.MustCompile(`^(invalid value ".*" for flag -[\w-]+: )strconv\.Parse(?:Int|Uint): parsing ".*": invalid syntax$`)

// singleDashFlag is a flag as Go's flag package names it in an error
// ("for flag -jobs", "not defined: -bogus", "needs an argument: -trace",
// "invalid boolean value "x" for -quiet"): a name of a letter and more,
// not a number (-12, given as a value, is no flag's name).
var singleDashFlag = regexp.MustCompile(`(for flag |not defined: |needs an argument: |" for )-([A-Za-z][\w-]+)`)

// usageError reports a flag that does not parse in one line that names the
// command's help, instead of cli's whole help above it.
func usageError(c *cli.Context, err error, _ bool) error {
	name := "wb"
	if c.Command != nil && c.Command.Name != "" {
		name = c.Command.HelpName
	}
	text := err.Error()
	// "invalid value "-1" for flag -seed: parse error": say what the flag takes
	if m := flagParseError.FindStringSubmatch(text); m != nil && c.Command != nil {
		for _, f := range c.Command.Flags {
			if !slices.Contains(f.Names(), m[1]) {
				continue
			}
			want := ""
			switch f.(type) {
			case *cli.IntFlag, *cli.Int64Flag:
				want = "a whole number"
			case *cli.UintFlag, *cli.Uint64Flag:
				want = "a whole number, 0 or more"
			case *cli.Float64Flag:
				want = "a number"
			case *cli.BoolFlag:
				want = "true or false"
			case *cli.DurationFlag:
				want = "a duration such as 90s or 2m"
			}
			if want != "" {
				text = strings.TrimSuffix(text, "parse error") + "want " + want
			}
		}
	}
	// a list flag's element: "invalid value "abc" for flag -fold-seeds:
	// strconv.ParseInt: parsing "abc": invalid syntax" (Go's internals)
	if m := sliceParseError.FindStringSubmatch(text); m != nil {
		text = m[1] + "want whole numbers, comma-separated"
	}
	// "invalid boolean value "x" for -quiet: parse error" likewise
	if strings.HasPrefix(text, "invalid boolean value ") {
		text = strings.TrimSuffix(text, "parse error") + "want true or false"
	}
	// Go's flag package names a flag with one dash; wb's help, with two
	text = singleDashFlag.ReplaceAllString(text, "$1--$2")
	// "-j1": a short flag and its value written together, as make takes
	// them; Go's flags take them apart (a reviewer's find)
	if m := joinedShortFlag.FindStringSubmatch(text); m != nil && c.Command != nil {
		for _, f := range c.Command.Flags {
			if slices.Contains(f.Names(), m[1]) {
				text += fmt.Sprintf("; a flag and its value go apart: -%s %s", m[1], m[2])
				break
			}
		}
	}
	msg := fmt.Sprintf("%s (%s --help lists the flags)", text, name)
	if name != "wb" {
		msg = strings.TrimPrefix(name, "wb ") + ": " + msg
	}
	return cli.Exit(msg, 2)
}

// setCommandChecks gives c and its subcommands the one-line usage error and
// the refusal of arguments a command does not take.
// joinedShortFlag is an undefined flag that is a one-letter flag's name
// followed by a number ("--j1").
var joinedShortFlag = regexp.MustCompile(`flag provided but not defined: -{1,2}([A-Za-z])([0-9]+)$`)

func setCommandChecks(c *cli.Command) {
	c.OnUsageError = usageError
	// (simulate says itself where its trace goes)
	if c.ArgsUsage == "" && c.Before == nil && c.Name != "help" && c.Name != "simulate" {
		// a command that names no arguments takes none: an extra word is
		// a mistake (a misspelt subcommand, a flag without its dashes)
		c.Before = func(ctx *cli.Context) error {
			if ctx.NArg() == 0 {
				return nil
			}
			first := ctx.Args().First()
			var names []string // the subcommands, not cli's own help
			for _, s := range c.Subcommands {
				if s.HasName(first) {
					return nil
				}
				if s.Name != "help" {
					names = append(names, s.Name)
				}
			}
			if len(names) > 0 {
				return fmt.Errorf("%s: unknown command %q (commands: %s)", c.Name, first, strings.Join(names, ", "))
			}
			return fmt.Errorf("%s takes no arguments, got %q", c.Name, strings.Join(ctx.Args().Slice(), " "))
		}
	}
	for _, s := range c.Subcommands {
		setCommandChecks(s)
	}
}

func init() {
	cli.VersionPrinter = func(c *cli.Context) { fmt.Fprintln(c.App.Writer, versionString()) }
	cli.VersionFlag = &cli.BoolFlag{Name: "version", Usage: "print wb's version, VCS commit and Go version", DisableDefaultText: true}
}

// unknownCommand refuses a command wb does not have, naming the nearest
// one where a typo is likely (cli's own answer was "No help topic").
func unknownCommand(app *cli.App, name string) error {
	msg := fmt.Sprintf("unknown command %q", name)
	// a typo: at most one edit in three letters (at least one), against
	// names of three letters or more (h, help's alias, is near anything)
	best, bestD := "", max(1, len(name)/3)+1
	for _, cmd := range app.Commands {
		for _, n := range cmd.Names() {
			if d := registry.Distance(name, n); len(n) >= 3 && d < bestD {
				best, bestD = cmd.Name, d
			}
		}
	}
	if best != "" {
		msg += fmt.Sprintf("; did you mean %q?", best)
	}
	return cli.Exit(msg+" (wb --help lists the commands)", 2)
}

// helpCommand is cli's help command, named in its own help (cli adds its
// own after naming the commands, so that `wb help --help` has no name).
func helpCommand() *cli.Command {
	return &cli.Command{
		Name:      "help",
		Aliases:   []string{"h"},
		Usage:     "show the commands, or one command's help",
		ArgsUsage: "[command]",
		Action: func(c *cli.Context) error {
			parent := c.Lineage()[1]
			if name := c.Args().First(); name != "" {
				if c.App.Command(name) == nil {
					return unknownCommand(c.App, name)
				}
				return cli.ShowCommandHelp(parent, name)
			}
			return cli.ShowAppHelp(parent)
		},
	}
}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print wb's version, VCS commit and Go version",
		Action: func(c *cli.Context) error {
			fmt.Fprintln(c.App.Writer, versionString())
			return nil
		},
	}
}

// versionString describes the running binary from its build information.
func versionString() string {
	version, commit, modified := "(devel)", "unknown", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					modified = " (modified)"
				}
			}
		}
	}
	return fmt.Sprintf("wb %s commit %s%s %s %s/%s", version, commit, modified, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script (bash, zsh or fish)",
		ArgsUsage: "bash|zsh|fish",
		Description: "Load completions for the current shell:\n" +
			"   source <(wb completion bash)\n" +
			"   source <(wb completion zsh)\n" +
			"   wb completion fish | source",
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				// (the rest was ignored, as no other command ignores them)
				return fmt.Errorf("completion: takes one shell, got %d arguments: %s", c.NArg(), strings.Join(c.Args().Slice(), " "))
			}
			switch shell := c.Args().First(); shell {
			case "bash":
				_, err := io.WriteString(c.App.Writer, bashCompletion)
				return err
			case "zsh":
				_, err := io.WriteString(c.App.Writer, zshCompletion)
				return err
			case "fish":
				s, err := c.App.ToFishCompletion()
				if err != nil {
					return err
				}
				_, err = io.WriteString(c.App.Writer, s)
				return err
			case "":
				return fmt.Errorf("completion: name the shell: wb completion bash, zsh or fish")
			default:
				return fmt.Errorf("completion: unknown shell %q (known: bash, zsh, fish)", shell)
			}
		},
	}
}

const bashCompletion = `# bash completion for wb
_wb_complete() {
  local cur words
  COMPREPLY=()
  cur="${COMP_WORDS[COMP_CWORD]}"
  if [[ "$cur" == "--" ]]; then
    # (a word "--" ends the flags: urfave/cli completes none after it)
    words=$("${COMP_WORDS[@]:0:$COMP_CWORD}" - --generate-bash-completion 2>/dev/null)
  elif [[ "$cur" == "-"* ]]; then
    words=$("${COMP_WORDS[@]:0:$COMP_CWORD}" "$cur" --generate-bash-completion 2>/dev/null)
  else
    words=$("${COMP_WORDS[@]:0:$COMP_CWORD}" --generate-bash-completion 2>/dev/null)
    # past the command's name: its subcommands (not the help one) and the
    # files a positional argument names (a config, a profile, a folder)
    if [[ $COMP_CWORD -gt 1 ]]; then
      words=$(printf '%s\n' $words | grep -vx -e help -e h)
      COMPREPLY=($(compgen -W "$words" -- "$cur") $(compgen -f -- "$cur"))
      return
    fi
  fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
  if [[ ${#COMPREPLY[@]} -eq 0 ]]; then
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -o filenames -F _wb_complete wb
`

const zshCompletion = `#compdef wb
_wb() {
  local -a opts
  local cur=${words[-1]}
  # (a word "--" ends the flags: urfave/cli completes none after it)
  [[ "$cur" == "--" ]] && cur="-"
  opts=("${(@f)$(${words[@]:0:#words[@]-1} $cur --generate-bash-completion 2>/dev/null)}")
  if [[ "$cur" != -* && $CURRENT -gt 2 ]]; then
    # past the command's name: its subcommands (not the help one) and files
    opts=(${opts:#(help|h)})
    [[ -n "${opts[1]}" ]] && _describe 'values' opts
    _files
  elif [[ -n "${opts[1]}" ]]; then
    _describe 'values' opts
  else
    _files
  fi
}
compdef _wb wb
`
