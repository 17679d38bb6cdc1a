package scheduler

import (
	"errors"
	"strings"
	"testing"
)

// Parts written outside the package (a reviewer's walkthrough of
// docs/writing-a-policy.md).

// settledRule is an outside backfill rule with settings and a requirement.
type settledRule struct {
	max  int
	seed uint64
	req  error
}

func (*settledRule) Name() string   { return "settled" }
func (*settledRule) Backfill(*Pass) {}
func (r *settledRule) Configure(a Args, run Run) error {
	r.seed = run.Seed
	var set struct {
		Max int `yaml:"max"`
	}
	err := a.Decode("settled", &set)
	r.max = set.Max
	return err
}
func (r *settledRule) Require(*Job) error { return r.req }

// An outside backfill rule takes its settings through Configure and its
// requirement through Require, as every other part does (RuleBackfill's
// wrapper had hidden both: "settled takes no arguments").
func TestOutsideBackfillPowers(t *testing.T) {
	rule := &settledRule{}
	p := DefaultParts()
	if err := p.Backfills.Register("settled", func() Backfill { return RuleBackfill(rule) }); err != nil {
		t.Fatal(err)
	}
	s, err := p.Build(Spec{Backfill: "settled", BackfillArgs: Args{"max": 3}, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if rule.max != 3 || rule.seed != 7 {
		t.Errorf("Configure gave max %d, seed %d; want 3, 7", rule.max, rule.seed)
	}
	rule.req = errors.New("every job refused")
	jobs := []Job{{ID: 1, Run: 10, Tasks: []Task{{Replicas: 1, Request: Request{CPU: 1000}}}}}
	if _, err := Simulate(NewPool("p", 4), jobs, s); err == nil || !strings.Contains(err.Error(), "every job refused") {
		t.Errorf("Simulate with a rule that requires what no job has: %v", err)
	}
}

// hugeEstimate estimates every job past the simulator's horizon.
type hugeEstimate struct{}

func (hugeEstimate) Name() string       { return "huge" }
func (hugeEstimate) Estimate(*Job) Time { return Time(1<<63 - 1) }

// An estimate past MaxTime ends the run with an error naming the
// estimator, under every backfill rule (conservative had panicked indexing
// its profile; EASY had overflowed start + estimate into a schedule of 1 s
// estimates).
func TestEstimatePastHorizon(t *testing.T) {
	jobs := []Job{
		{ID: 1, Run: 10, Tasks: []Task{{Replicas: 1, Request: Request{CPU: 4000}}}},
		{ID: 2, Submit: 1, Run: 10, Tasks: []Task{{Replicas: 1, Request: Request{CPU: 4000}}}},
		{ID: 3, Submit: 2, Run: 10, Tasks: []Task{{Replicas: 1, Request: Request{CPU: 1000}}}},
	}
	for _, b := range []Backfill{NoBackfill{}, EASY{}, Conservative{}} {
		_, err := Simulate(NewPool("p", 4), jobs, Scheduler{Order: FIFO{}, Backfill: b, Placement: FirstFit{}, Estimator: hugeEstimate{}})
		if err == nil || !strings.Contains(err.Error(), "estimator") || !strings.Contains(err.Error(), "past the simulator's horizon") {
			t.Errorf("%s: %v; want the estimator named, past the horizon", b.Name(), err)
		}
	}
}

// answerPlacement answers every ask with node.
type answerPlacement struct{ node int }

func (answerPlacement) Name() string              { return "answer" }
func (p answerPlacement) Choose(*State, *Ask) int { return p.node }

// A placement answering below -1 ends the run with an error, as the
// contract says of any answer but a node or -1; one that places nothing
// leaves its gangs unschedulable and counted as refused by it, not as too
// big for the cluster.
func TestPlacementAnswers(t *testing.T) {
	c := &Cluster{Name: "c", Nodes: []Node{
		{Name: "n0", CPU: 4000, Mem: 4096, GPUs: 2, Model: "V100"},
		{Name: "n1", CPU: 4000, Mem: 4096, GPUs: 2, Model: "V100"}}}
	gang := Job{ID: 1, Run: 10, Tasks: []Task{{Replicas: 2, Request: Request{CPU: 100, GPUs: 1}}}}
	_, err := Simulate(c, []Job{gang}, Scheduler{Order: FIFO{}, Backfill: NoBackfill{}, Placement: answerPlacement{-2}, Estimator: User{}})
	if err == nil || !strings.Contains(err.Error(), "answered -2") {
		t.Errorf("a placement answering -2: %v", err)
	}
	r, err := Simulate(c, []Job{gang}, Scheduler{Order: FIFO{}, Backfill: NoBackfill{}, Placement: answerPlacement{-1}, Estimator: User{}})
	if err != nil {
		t.Fatal(err)
	}
	if sm := r.Summary; sm.Unschedulable != 1 || sm.PlacementRefused != 1 {
		t.Errorf("a placement placing nothing: %d unschedulable, %d refused by it; want 1 and 1", sm.Unschedulable, sm.PlacementRefused)
	}
}
