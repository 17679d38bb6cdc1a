package experiments

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/wb-sim/wb/experiments/figures"
	"github.com/wb-sim/wb/internal/registry"
)

// Kind is a kind of experiment: what its config must hold beyond the
// common fields, how its runs are made and merged, and how its figures are
// drawn. A config is of the first registered kind that claims it (Claims),
// else a queue simulation. A new kind is a file with its Kind, its config
// section and one Register call in kinds.
type Kind interface {
	Name() string
	// Claims reports whether c is of this kind (its section is set).
	Claims(c *Config) bool
	// Validate reports the kind's own problems with c through bad.
	Validate(c *Config, bad func(path, format string, args ...any))
	// Run runs c's runs not yet done and writes its results.
	Run(ctx context.Context, c *Config, opts RunOptions) (*Report, error)
	// Plot redraws c's figures from the results in dir; it returns the
	// files written and what the figures' check found.
	Plot(c *Config, dir string) (files, findings []string, err error)
	// Array reports whether the runs can go to a Slurm array, or why not.
	Array(c *Config) error
}

// kinds are the experiment kinds, in the order they claim a config; the
// queue simulation, the default, claims what no other does.
var kinds = func() *registry.Registry[Kind] {
	r := registry.New[Kind]("experiment kind")
	r.MustRegister("inflation", inflationKind{})
	r.MustRegister("queue", queueKind{})
	return r
}()

// Kind is the kind of experiment c is.
func (c *Config) Kind() Kind {
	for _, name := range kinds.Ordered() {
		k, _ := kinds.Get(name)
		if k.Claims(c) {
			return k
		}
	}
	k, _ := kinds.Get("queue")
	return k
}

// queueKind is the queue simulation: workloads × schedulers × sweep
// points × replicas through the scheduler (or, for schedulers with a
// sharing policy, package sharing).
type queueKind struct{}

func (queueKind) Name() string          { return "queue" }
func (queueKind) Claims(c *Config) bool { return true }
func (queueKind) Validate(c *Config, bad func(path, format string, args ...any)) {
	c.validateSharing(bad)
	c.validatePlan(bad)
	if len(c.Figures) > 0 && len(c.Schedulers) > figures.MaxSeries {
		bad("schedulers", "%d schedulers; the figures, one series each, tell at most %d apart (split the config, or drop its figures)",
			len(c.Schedulers), figures.MaxSeries)
	}
}
func (queueKind) Run(ctx context.Context, c *Config, opts RunOptions) (*Report, error) {
	return c.runQueue(ctx, opts)
}
func (queueKind) Plot(c *Config, dir string) ([]string, []string, error) {
	if len(c.Figures) == 0 {
		// (wb plot reads the copy the results keep, not c.path, the original)
		return nil, nil, fmt.Errorf("%s: the config lists no figures: add them to the figures section of the copy wb plot reads there (or to %s, and run the experiment again)",
			filepath.Join(dir, ConfigCopy), c.path)
	}
	return c.DrawFigures(dir)
}
func (queueKind) Array(*Config) error { return nil }

// inflationKind is the FGD paper's workload-inflation replay.
type inflationKind struct{}

func (inflationKind) Name() string          { return "inflation" }
func (inflationKind) Claims(c *Config) bool { return c.Inflation != nil }
func (inflationKind) Validate(c *Config, bad func(path, format string, args ...any)) {
	c.validateInflation(bad)
	c.validateSharing(bad)
}
func (inflationKind) Run(ctx context.Context, c *Config, opts RunOptions) (*Report, error) {
	return c.runInflation(ctx, opts)
}
func (inflationKind) Plot(c *Config, dir string) ([]string, []string, error) {
	paths, err := c.drawInflation(dir)
	return paths, nil, err
}
func (inflationKind) Array(*Config) error {
	return fmt.Errorf("an inflation experiment runs whole on one machine (a few seconds), not as a Slurm array")
}
