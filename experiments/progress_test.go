package experiments

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestProgressLog: without a terminal, 250 runs over 60 s give a line for
// the first run, one every 5 s, one per failure and the total, not a line
// per run.
func TestProgressLog(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf, false, 250)
	clock := p.start
	p.now = func() time.Time { return clock }
	for i := range 250 {
		clock = clock.Add(240 * time.Millisecond)
		r := &runOutput{}
		r.Status = "ok"
		if i == 100 {
			r.Status, r.Error = "failed", "boom"
		}
		p.done("run", r)
	}
	p.finish()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) < 10 || len(lines) > 16 {
		t.Fatalf("%d lines for 250 runs in 60 s, want about 14:\n%s", len(lines), buf.String())
	}
	if !strings.HasPrefix(lines[0], "runs: 1 of 250 done") || !strings.Contains(lines[0], "left") {
		t.Errorf("first line %q", lines[0])
	}
	if !strings.Contains(buf.String(), "run 101/250 run: FAILED: boom") {
		t.Errorf("the failure is not reported:\n%s", buf.String())
	}
	if !strings.HasPrefix(lines[len(lines)-1], "250 runs in ") {
		t.Errorf("last line %q", lines[len(lines)-1])
	}
}
