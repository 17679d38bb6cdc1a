// Package app is the wb command (cmd/wb) as a library: Main is the whole
// program, so that a program of one's own can register scheduling parts
// (experiments.RegisterParts) and then run wb with them, every command and
// config naming them, as the Kubernetes scheduler's app takes plugins:
//
//	func main() {
//		if err := experiments.RegisterParts(myParts); err != nil {
//			log.Fatal(err)
//		}
//		app.Main()
//	}
//
// docs/writing-a-policy.md writes one.
package app

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/wb-sim/wb/internal/atomicfile"
)

// Main runs wb with os.Args and exits: 0 when the command succeeds, 1 with
// its error on stderr, 130 or 143 when an interrupt or SIGTERM stopped it
// (the first asks the command to stop at its next safe point, a second
// ends wb at once).
func Main() {
	// wb is a batch tool whose heap is mostly long-lived trace data:
	// collecting less often saves a quarter of a simulation's time. GOGC
	// in the environment still decides when set.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(context.Background())
	var got os.Signal // the first signal; read once run has returned (or the process is ending)
	var once sync.Once
	stop := func() {
		once.Do(func() {
			// the first Ctrl-C asks the command to stop at its next safe
			// point (files whole, a profile's rows kept); a second one
			// ends wb at once, as the signal's default does (every file
			// wb writes is written whole or not at all)
			signal.Reset(os.Interrupt, syscall.SIGTERM)
			cancel()
		})
	}
	go func() {
		if s, ok := <-sigs; ok {
			got = s
			stop()
		}
	}()
	err := run(context.WithValue(ctx, exitsOnInterrupt{}, true), os.Stdout, os.Stderr, os.Args)
	interrupted := ctx.Err() != nil // (before stop, which cancels it too)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "wb:", err)
		if interrupted {
			// a command stopped without a safe point of its own
			// (stopOnInterrupt) may be writing a file still: it is
			// left as it was, its temporary file removed
			atomicfile.RemoveUnfinished()
			// as a shell reports a command its signal ended: 130 after
			// Ctrl-C, 143 after SIGTERM
			code := 130
			if s, ok := got.(syscall.Signal); ok {
				code = 128 + int(s)
			}
			os.Exit(code)
		}
		os.Exit(1)
	}
}

// Run runs the command args (args[0] the program's name) with its
// streams and context passed in, as Main does without the signals and the
// exit: for tests, and for a program that runs wb within itself. Cancelling
// ctx stops simulate, experiment and profile at their next safe point;
// predict, train, train-gpu, evaluate, dataset and plot, which have none
// (Main ends the process under them), run to their end.
func Run(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	return run(ctx, stdout, stderr, args)
}

// run is the whole command, with its streams and arguments passed in so
// that tests can call it.
func run(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	app := newApp(stdout, stderr)
	return app.RunContext(ctx, flagsFirst(app, nestedHelp(args)))
}

// nestedHelp turns "wb help dataset pai-sim" into "wb dataset pai-sim
// --help": urfave/cli's help command shows the first command's page
// whatever follows it (the parent's page for a subcommand, a reviewer's
// find).
func nestedHelp(args []string) []string {
	if len(args) < 4 || args[1] != "help" && args[1] != "h" {
		return args
	}
	for _, a := range args[2:] {
		if strings.HasPrefix(a, "-") {
			return args
		}
	}
	return append(append([]string{args[0]}, args[2:]...), "--help")
}

// between is an integer flag's check: a value outside [min, max] is
// refused with the flag's name and why (urfave/cli runs it only for flags
// given).
func between(name string, min, max int, why string) func(*cli.Context, int) error {
	return func(_ *cli.Context, v int) error {
		switch {
		case v >= min && v <= max:
			return nil
		case max == math.MaxInt:
			return fmt.Errorf("--%s %d: want %d or more", name, v, min)
		}
		return fmt.Errorf("--%s %d: want %d to %d (%s)", name, v, min, max, why)
	}
}

// atLeast is an integer flag's check with no upper bound.
func atLeast(name string, min int) func(*cli.Context, int) error {
	return between(name, min, math.MaxInt, "")
}
