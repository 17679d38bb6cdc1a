//go:build plancheck

package experiments

import (
	"context"
	"path/filepath"
	"testing"
)

// TestPlanTargets is the capacity-planning check with its targets (make
// plan-check; not part of make test, whose tests hold wb to what it does,
// while this holds it to what it should): on the GPUs Gavel measured,
// every cluster's mean JCT with predicted throughputs within 10% of the
// simulation with measured ones, and the clusters ranked alike (τ ≥ 0.8).
func TestPlanTargets(t *testing.T) {
	c, err := LoadConfig(filepath.Join("..", "configs", "plan.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	c.Out = t.TempDir()
	rep, err := Run(context.Background(), c, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + rep.Plan.String())
	if !rep.Plan.Met() {
		t.Error("targets not met")
	}
}
