package experiments

import (
	"context"
	"path/filepath"
	"testing"
)

// TestBackfillFiguresPass: the figures of configs/backfill.yaml (the demo)
// pass the figures' check: no interval leaves its metric's range (Render
// refuses those), no data squeezed into a corner of an axis, no category
// hidden beside another, no identical series without a note.
func TestBackfillFiguresPass(t *testing.T) {
	c, err := LoadConfig(filepath.Join("..", "configs", "backfill.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	c.Out = t.TempDir()
	rep, err := Run(context.Background(), c, RunOptions{Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Files) < 20 {
		t.Fatalf("%d files written", len(rep.Files))
	}
	for _, f := range rep.FigureFindings {
		t.Errorf("figure check: %s", f)
	}
}
