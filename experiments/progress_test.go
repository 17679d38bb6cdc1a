package experiments

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wb-sim/wb/experiments/figures"
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
	if !strings.HasPrefix(lines[0], "runs: 1 of 250 done") || !strings.Contains(lines[0], "the time left follows") || !strings.Contains(lines[1], "about") {
		t.Errorf("first line %q", lines[0])
	}
	if !strings.Contains(buf.String(), "run 101/250 run: FAILED: boom") {
		t.Errorf("the failure is not reported:\n%s", buf.String())
	}
	if !strings.HasPrefix(lines[len(lines)-1], "250 runs in ") {
		t.Errorf("last line %q", lines[len(lines)-1])
	}
}

// TestProgressRepeatedFailures: runs failing with the error of a run before
// them (an unreadable trace fails every run of it) get one line, and the
// total says how many more failed so.
func TestProgressRepeatedFailures(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf, false, 10)
	for i := range 10 {
		r := &runOutput{}
		r.Status, r.Error = "failed", "t.swf.gz:20: truncated"
		if i == 4 {
			r.Error = "other"
		}
		p.done("run", r)
	}
	p.finish()
	out := buf.String()
	if n := strings.Count(out, "FAILED: t.swf.gz:20: truncated"); n != 1 {
		t.Errorf("the repeated error printed %d times:\n%s", n, out)
	}
	if !strings.Contains(out, "run 5/10 run: FAILED: other") || !strings.Contains(out, "8 more runs failed as the first did: t.swf.gz:20: truncated") || strings.Contains(out, "more runs failed as the first did: other") {
		t.Errorf("output:\n%s", out)
	}
}

// TestDropUndrawn: a series none of whose runs completed (no point, or
// only NaN) is left out of its figure and named; a figure left with none
// is not drawn, and says so.
func TestDropUndrawn(t *testing.T) {
	nan := math.NaN()
	f := &figures.Figure{Series: []figures.Series{
		{Label: "FCFS", X: []float64{1, 2}, Y: []float64{3, 4}},
		{Label: "EASY"},
		{Label: "bar", X: []float64{0}, Y: []float64{nan}},
		{Label: "part", X: []float64{1, 2}, Y: []float64{nan, 5}},
	}}
	left := dropUndrawn(f)
	if len(f.Series) != 2 || f.Series[0].Label != "FCFS" || f.Series[1].Label != "part" {
		t.Errorf("kept %v", f.Series)
	}
	if left != `series "EASY", "bar" not drawn: no value to draw (its runs failed, or the metric does not apply to them, or, on a log axis, its values are 0)` {
		t.Errorf("said %q", left)
	}
	f = &figures.Figure{Series: []figures.Series{{Label: "EASY"}}}
	if left := dropUndrawn(f); len(f.Series) != 0 || !strings.HasPrefix(left, "not drawn: no value to draw (its runs failed, or summary.csv leaves the metric empty") {
		t.Errorf("all gone: %v, %q", f.Series, left)
	}
	f = &figures.Figure{Series: []figures.Series{{Label: "a", X: []float64{1}, Y: []float64{1}}}}
	if left := dropUndrawn(f); left != "" || len(f.Series) != 1 {
		t.Errorf("nothing to drop: %v, %q", f.Series, left)
	}
}

// TestBarFailedScheduler: a bar figure over two workloads where one
// scheduler's runs all failed is drawn once, without it, not split into a
// figure per workload by its missing bars.
func TestBarFailedScheduler(t *testing.T) {
	dir := t.TempDir()
	kth, err := filepath.Abs(data("swf/KTH-SP2-1996-2.1-cln.swf.gz"))
	if err != nil {
		t.Fatal(err)
	}
	hpc, err := filepath.Abs(data("swf/HPC2N-2002-2.1-cln.swf.gz"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := ParseConfig([]byte("name: b\nreplicas: 2\nworkloads:\n  - {name: a, trace: "+kth+"}\n  - {name: b, trace: "+hpc+
		"}\nschedulers:\n  - {name: FIFO}\n  - {name: EASY, backfill: easy}\nfigures:\n  - {kind: bar, metric: mean_wait}\n"), filepath.Join(dir, "c.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	csv := "workload,scheduler,load,replica,status,mean_wait\n" +
		"a,FIFO,1,0,ok,100\na,FIFO,1,1,ok,120\nb,FIFO,1,0,ok,90\nb,FIFO,1,1,ok,110\n" +
		"a,EASY,1,0,failed,\na,EASY,1,1,failed,\nb,EASY,1,0,failed,\nb,EASY,1,1,failed,\n"
	if err := os.WriteFile(filepath.Join(dir, SummaryFile), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	written, findings, err := c.DrawFigures(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(written, filepath.Join(dir, FiguresDir, "bar-mean_wait.png")) || len(written) != 3 {
		t.Errorf("written %v, want bar-mean_wait in three formats", written)
	}
	if len(findings) != 1 || findings[0] != `bar-mean_wait: series "EASY" not drawn: no value to draw (its runs failed, or the metric does not apply to them, or, on a log axis, its values are 0)` {
		t.Errorf("findings %q", findings)
	}
}

// TestReplicaCounts: a figure's note says over how many replicas its
// points are where runs failed, and names the interval for the fewest.
func TestReplicaCounts(t *testing.T) {
	c := &Config{Replicas: 5}
	var n counted
	if got := c.replicaNoteOf(n); got != c.replicaNote() {
		t.Errorf("no point: %q", got)
	}
	n.add(5)
	if got := c.replicaNoteOf(n); got != c.replicaNote() {
		t.Errorf("every replica: %q, want %q", got, c.replicaNote())
	}
	n.add(3)
	if got, want := c.replicaNoteOf(n), "mean and "+figures.CIName(3)+" over 3–5 replicas (of 5: the others failed)"; got != want {
		t.Errorf("3 to 5: %q, want %q", got, want)
	}
	one := counted{}
	one.add(1)
	if got := c.replicaNoteOf(one); got != "1 replica (of 5: the others failed): no interval" {
		t.Errorf("one: %q", got)
	}
}

// TestScaleTimeSeries: a time series' time axis takes the unit its span
// reads best in (a 10-minute run in minutes, where it was 0–0.007 days).
func TestScaleTimeSeries(t *testing.T) {
	f := &figures.Figure{Kind: figures.TimeSeries, XLabel: "time (s)", YLabel: "queued jobs",
		Series: []figures.Series{{Label: "a", X: []float64{0, 300, 600}, Y: []float64{1, 2, 0}}}}
	scaleTime([]namedFigure{{"ts", f}})
	if f.XLabel != "time (min)" || !slices.Equal(f.Series[0].X, []float64{0, 5, 10}) || !slices.Equal(f.Series[0].Y, []float64{1, 2, 0}) {
		t.Errorf("scaled: %q, x %v, y %v", f.XLabel, f.Series[0].X, f.Series[0].Y)
	}
}

// sayInterrupted says its message once the context is done before stop,
// and nothing where stop comes first.
func TestSayInterrupted(t *testing.T) {
	var b strings.Builder
	stop := sayInterrupted(context.Background(), &b, "msg")
	stop()
	if b.Len() != 0 {
		t.Errorf("said %q without an interrupt", b.String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &notifyWriter{wrote: make(chan string, 1)}
	stop = sayInterrupted(ctx, w, "msg")
	cancel()
	select {
	case got := <-w.wrote:
		if got != "msg\n" {
			t.Errorf("after an interrupt: %q", got)
		}
	case <-time.After(10 * time.Second):
		t.Error("nothing said after an interrupt")
	}
	stop()
}

// notifyWriter hands each write to a channel.
type notifyWriter struct{ wrote chan string }

func (w *notifyWriter) Write(p []byte) (int, error) {
	w.wrote <- string(p)
	return len(p), nil
}
