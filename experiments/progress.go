package experiments

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progress reports runs as they complete: a bar with an ETA on a terminal,
// a line per run otherwise.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	bar   *progressbar.ProgressBar
	total int
	n     int
	start time.Time
}

func newProgress(w io.Writer, terminal bool, total int) *progress {
	p := &progress{w: w, total: total, start: time.Now()}
	if w != nil && terminal {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription("runs"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionFullWidth(),
			progressbar.OptionClearOnFinish(),
		)
	}
	return p
}

func (p *progress) done(label string, r *runOutput) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	if p.bar != nil {
		p.bar.Add(1)
		if r.Status != "ok" {
			progressbar.Bprintln(p.bar, "failed:", label+":", r.Error)
		}
		return
	}
	status := fmt.Sprintf("%.0f ms", r.WallMS)
	if r.Status != "ok" {
		status = "FAILED: " + r.Error
	}
	fmt.Fprintf(p.w, "run %d/%d %s: %s\n", p.n, p.total, label, status)
}

func (p *progress) finish() {
	if p.bar != nil {
		p.bar.Finish()
	}
	if p.w != nil && p.total > 0 {
		fmt.Fprintf(p.w, "%d runs in %.1f s\n", p.n, time.Since(p.start).Seconds())
	}
}
