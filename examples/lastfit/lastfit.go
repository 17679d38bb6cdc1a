// Package lastfit is the placement docs/writing-a-policy.md writes, as a
// program of one's own would hold it in a package of its own: each
// replica on the highest-numbered node that holds it, or, with the
// setting prefer, on a node of that GPU model first. wb's tests register
// it (experiments.RegisterParts(lastfit.Register)) and run it from configs,
// the replay and wb simulate, so that the page's code is compiled and run.
package lastfit

import (
	"strings"

	"github.com/wb-sim/wb/scheduler"
)

// Name is the placement's name in configs and on the command line.
const Name = "last-fit"

// LastFit is the placement; its one setting is prefer, a GPU model.
type LastFit struct{ prefer string }

// Name implements scheduler.Placement.
func (*LastFit) Name() string { return Name }

// Configure implements scheduler.Configurable: prefer, from placement_args
// or --arg placement.prefer=MODEL.
func (f *LastFit) Configure(args scheduler.Args, _ scheduler.Run) error {
	var a struct {
		Prefer string `yaml:"prefer"`
	}
	if err := args.Decode(Name, &a); err != nil {
		return err
	}
	f.prefer = a.Prefer
	return nil
}

// Choose implements scheduler.Placement.
func (f *LastFit) Choose(s *scheduler.State, a *scheduler.Ask) int {
	found := -1
	for i := s.Len() - 1; i >= 0; i-- {
		if s.Fits(i, a) {
			if f.prefer == "" || strings.EqualFold(s.GPUModel(i), f.prefer) {
				return i
			}
			if found < 0 {
				found = i
			}
		}
	}
	return found
}

// Register adds the placement to p: what experiments.RegisterParts takes.
func Register(p *scheduler.Parts) error {
	return p.Placements.Register(Name, func() scheduler.Placement { return &LastFit{} })
}
