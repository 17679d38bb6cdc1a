package profiler

import (
	"context"
	"time"
)

// Gate holds each measurement back while the machine runs slower than it
// can. On a shared machine (a cloud VM whose cores a neighbour's work
// shares) the same kernel runs at two speeds for stretches of a tenth of a
// second to seconds: on the 2-core VM wb's profiles are made on, every
// compute-bound pass took 1.9–2.1× its time while they lasted (resnet50's
// first 1×1 convolution 141 µs or 264 µs, both with fresh buffers), a
// state no pass's own repetitions can see. Before a measurement the gate
// times Probe, a short fixed computation; while it takes more than
// Threshold × the fastest probe seen, the gate waits (Pause between
// probes), at most Budget per measurement, after which the measurement
// goes ahead and is counted contended. The zero Gate (no Probe) holds
// nothing back.
type Gate struct {
	// Probe times the probe computation once (the fastest of a few runs).
	Probe     func() (time.Duration, error)
	Threshold float64       // default 1.6
	Budget    time.Duration // default 2 s
	Pause     time.Duration // default 20 ms

	best  time.Duration
	err   error // the probe's failure, which turned the gate off
	Stats GateStats
}

// GateStats counts what a gate did, for a profile's sidecar.
type GateStats struct {
	// BestProbe is the fastest probe seen, seconds: the machine's own
	// speed, as the threshold measures it.
	BestProbe float64 `json:"best_probe_s"`
	Threshold float64 `json:"threshold"`
	// Probes timed, Held the measurements that waited for the machine,
	// Waited their waits in all (seconds), Contended those that went
	// ahead after the budget with the machine still slow.
	Probes    int     `json:"probes"`
	Held      int     `json:"held"`
	Waited    float64 `json:"waited_s"`
	Contended int     `json:"contended"`
}

// calibrationProbes is how many probes, Pause apart, set the first
// fastest probe.
const calibrationProbes = 10

func (g *Gate) defaults() {
	if g.Threshold <= 1 {
		g.Threshold = 1.6
	}
	if g.Budget <= 0 {
		g.Budget = 2 * time.Second
	}
	if g.Pause <= 0 {
		g.Pause = 20 * time.Millisecond
	}
}

func (g *Gate) probe() (time.Duration, error) {
	d, err := g.Probe()
	if err != nil {
		return 0, err
	}
	g.Stats.Probes++
	if g.best == 0 || d < g.best {
		g.best = d
		g.Stats.BestProbe = d.Seconds()
	}
	return d, nil
}

// Wait returns when the machine runs at its own speed, or when the budget
// is spent (the measurement then counted contended), or with ctx's error.
// A gate without Probe returns at once; a probe that fails turns the gate
// off (Err says why).
func (g *Gate) Wait(ctx context.Context) error {
	if g == nil || g.Probe == nil {
		return nil
	}
	g.defaults()
	g.Stats.Threshold = g.Threshold
	if g.best == 0 {
		for i := range calibrationProbes {
			if i > 0 {
				if err := sleep(ctx, g.Pause); err != nil {
					return err
				}
			}
			if _, err := g.probe(); err != nil {
				g.Probe, g.err = nil, err
				return nil
			}
		}
	}
	var waited time.Duration
	for {
		d, err := g.probe()
		if err != nil {
			g.Probe, g.err = nil, err
			return nil
		}
		if float64(d) <= g.Threshold*float64(g.best) {
			break
		}
		if waited >= g.Budget {
			g.Stats.Contended++
			break
		}
		if waited == 0 {
			g.Stats.Held++
		}
		if err := sleep(ctx, g.Pause); err != nil {
			return err
		}
		waited += g.Pause
	}
	g.Stats.Waited += waited.Seconds()
	return nil
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Err is the probe's failure that turned the gate off, if one did.
func (g *Gate) Err() error {
	if g == nil {
		return nil
	}
	return g.err
}
