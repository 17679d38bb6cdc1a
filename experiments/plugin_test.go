package experiments

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wb-sim/wb/examples/lastfit"
	"github.com/wb-sim/wb/scheduler"
)

// registerLastFit registers docs/writing-a-policy.md's placement
// (examples/lastfit), once in the process.
var registerLastFit = sync.OnceValue(func() error { return RegisterParts(lastfit.Register) })

// needsSetting is a placement that cannot run without its setting gpu.
type needsSetting struct {
	scheduler.FirstFit
	GPU    int  `yaml:"gpu"`
	Strict bool `yaml:"strict"`
}

func (*needsSetting) Name() string { return "needs-setting" }

func (n *needsSetting) Configure(args scheduler.Args, _ scheduler.Run) error {
	if err := args.Decode("needs-setting", n); err != nil {
		return err
	}
	if n.GPU == 0 {
		return fmt.Errorf("needs-setting: setting gpu is required")
	}
	return nil
}

// registerNeedsSetting registers needsSetting, once in the process.
var registerNeedsSetting = sync.OnceValue(func() error {
	return RegisterParts(func(p *scheduler.Parts) error {
		return p.Placements.Register("needs-setting", func() scheduler.Placement { return &needsSetting{} })
	})
})

// TestPartsOfOnesOwn: a placement registered with RegisterParts is named
// by a config like wb's own, takes its settings from placement_args and
// places as it says; a setting it does not know, settings for a part
// that takes none, and a name taken already are refused, each said where
// it is.
func TestPartsOfOnesOwn(t *testing.T) {
	if err := registerLastFit(); err != nil {
		t.Fatal(err)
	}
	if err := registerNeedsSetting(); err != nil {
		t.Fatal(err)
	}
	if err := RegisterParts(func(p *scheduler.Parts) error {
		return p.Placements.Register("last-fit", func() scheduler.Placement { return &lastfit.LastFit{} })
	}); err == nil || !strings.Contains(err.Error(), "last-fit") {
		t.Errorf("last-fit registered twice: %v", err)
	}
	if !strings.Contains(strings.Join(Parts().Placements.Names(), ","), "last-fit") {
		t.Fatalf("placements %v", Parts().Placements.Names())
	}
	trace, err := filepath.Abs(data("gavel/small_test.trace"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	body := fmt.Sprintf(`name: own
replicas: 1
workloads:
  - {name: w, trace: %s, cluster: "nodes:2x4:K80+2x4:V100"}
schedulers:
  - {name: first, placement: first-fit}
  - {name: last, placement: last-fit}
  - name: last-k80
    placement: last-fit
    placement_args: {prefer: K80}
outputs:
  jobs: all
`, trace)
	if _, err := runBody(t, dir, body); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "out", JobsFile))
	if err != nil {
		t.Fatal(err)
	}
	first := map[string]string{} // scheduler → the GPU model of its first job
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if f := strings.Split(line, ","); i > 0 && len(f) > 22 && first[f[2]] == "" {
			first[f[2]] = f[22]
		}
	}
	// the cluster lists the K80 nodes first: first-fit starts the first
	// job there, last-fit on the last V100 node, and last-fit preferring
	// the K80 on the last K80 node
	if want := map[string]string{"first": "K80", "last": "V100", "last-k80": "K80"}; !maps.Equal(first, want) {
		t.Errorf("the first job's GPU model by scheduler: %v, want %v", first, want)
	}

	// in the FGD paper's replay too (its own bookkeeping for the paper's
	// placements, scheduler.Sequence for any other), settings and all
	openb, err := filepath.Abs(data("openb/openb_pod_list_default.csv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	inf := t.TempDir()
	if _, err := runBody(t, inf, "name: own-inflation\ninflation: {ratio: 0.3, seeds: [42]}\nworkloads:\n  - {name: d, trace: "+openb+", cluster: openb}\n"+
		"schedulers:\n  - {name: last, placement: last-fit}\n  - {name: last-t4, placement: last-fit, placement_args: {prefer: T4}}\n"); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(inf, "out", SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSpace(string(sum)), "\n")
	if len(rows) != 3 || !strings.HasPrefix(rows[1], "d,last,last-fit,42,") || !strings.HasPrefix(rows[2], "d,last-t4,last-fit,42,") {
		t.Fatalf("summary.csv:\n%s", sum)
	}
	if strings.SplitN(rows[1], ",", 3)[2] == strings.SplitN(rows[2], ",", 3)[2] {
		t.Errorf("preferring T4 placed as last-fit does: the setting was not used\n%s", sum)
	}

	for _, c := range []struct{ sched, want string }{
		{"{placement: last-fit, placement_args: {prefr: K80}}", "c.yaml:5: schedulers[0].placement_args.prefr: last-fit: arguments prefr=K80: prefr is not a setting of last-fit (its settings: prefer)"},
		{"{placement: last-fit, placement_args: {prefer: [1]}}", "c.yaml:5: schedulers[0].placement_args.prefer: last-fit: arguments prefer=[1]: prefer: [1]: want a string"},
		// each setting at its own line, with the part's name (a list for a
		// string lost both, on a line of its own)
		{"name: x\n    placement: last-fit\n    placement_args:\n      extra: 1\n      prefer: [K80]", "c.yaml:8: schedulers[0].placement_args.extra: last-fit: arguments extra=1, prefer=[K80]: extra is not a setting of last-fit (its settings: prefer)"},
		{"name: x\n    placement: last-fit\n    placement_args:\n      extra: 1\n      prefer: [K80]", "c.yaml:9: schedulers[0].placement_args.prefer: last-fit: arguments extra=1, prefer=[K80]: prefer: [K80]: want a string"},
		// a part that needs a setting is told its settings where the
		// config gives none: refused here, not in every run
		{"{placement: needs-setting}", "c.yaml:5: schedulers[0].placement_args: needs-setting: setting gpu is required"},
		{"{placement: needs-setting, order_args: {x: 1}}", "c.yaml:5: schedulers[0].placement_args: needs-setting: setting gpu is required"},
		{"{placement: needs-setting, placement_args: {gpu: 1.5}}", "c.yaml:5: schedulers[0].placement_args.gpu: needs-setting: arguments gpu=1.5: gpu: 1.5: want a whole number"},
		{"{placement: needs-setting, placement_args: {gpu: 2, strict: \"on\"}}", "schedulers[0].placement_args.strict: needs-setting: arguments gpu=2, strict=on: strict: on: want true or false"},
		// the setting named first in the message, whatever the map's order
		{"{placement: needs-setting, placement_args: {gpu: strict, strict: true}}", "schedulers[0].placement_args.gpu: needs-setting: arguments gpu=strict, strict=true: gpu: strict: want a whole number"},
		{"{placement: worstfit}", "schedulers[0].placement: unknown \"worstfit\" (known: "},
		{"{placement: frist-fit}", ": did you mean first-fit?"},
		{"{placement: first-fit, placement_arg: {x: 1}}", "schedulers[0].placement_arg: unknown field (known: "},
		{"{placement: first-fit, placement_arg: {x: 1}}", "; did you mean placement_args?"},
		{"{placement: first-fit, placement_args: {prefer: K80}}", "c.yaml:5: schedulers[0].placement_args: first-fit takes no arguments (given prefer=K80)"},
		{"{placement: random, placement_args: {x: 1}}", "c.yaml:5: schedulers[0].placement_args: random: takes no arguments (given x=1)"},
		{"{backfill: easy, backfill_args: {depth: 2}}", "c.yaml:5: schedulers[0].backfill_args: easy takes no arguments"},
		{"{estimate: noisy, estimate_args: {sigma: 1}}", "c.yaml:5: schedulers[0].estimate_args: estimate noisy's setting is its σ"},
		{"{estimate: noisy, estimate_args: {sigma: 1}, order_args: {x: 1}}", "c.yaml:5: schedulers[0].order_args: fifo takes no arguments"},
		{"{placement: ga, placement_args: {population: 10}}", "c.yaml:5: schedulers[0].placement_args: placement ga's settings are its section ga"},
		{"name: x\n    placement: last-fit\n    placement_args:\n      prefer: K80\n      prefr: x", "c.yaml:9: schedulers[0].placement_args.prefr: last-fit: arguments prefer=K80, prefr=x: prefr is not a setting of last-fit (its settings: prefer)"},
	} {
		cfg := filepath.Join(dir, "c.yaml")
		os.WriteFile(cfg, []byte("name: own\nworkloads:\n  - {name: w, trace: "+trace+", cluster: \"nodes:2x4:K80+2x4:V100\"}\nschedulers:\n  - "+c.sched+"\n"), 0o644)
		if _, err := LoadConfig(cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v\nwant %q", c.sched, err, c.want)
		}
	}
}
