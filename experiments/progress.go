package experiments

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progress reports runs as they complete: a bar with an ETA on a terminal;
// otherwise (a log, CI) a line for the first run, then one every
// progressEvery with the count and the time left, and a line for each
// failed run whose error no run before it had (the runs of a trace that
// cannot be read all fail alike: finish counts the repeats).
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	bar   *progressbar.ProgressBar
	total int
	n     int
	start time.Time
	last  time.Time // of the last line
	now   func() time.Time
	// errs counts the failed runs by error, in the order first seen
	errs  map[string]int
	order []string
	ok    int // runs that did not fail
}

// progressEvery is how often a log hears of progress.
const progressEvery = 5 * time.Second

func newProgress(w io.Writer, terminal bool, total int) *progress {
	p := &progress{w: w, total: total, start: time.Now(), now: time.Now}
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
	repeat := false
	if r.Status != "ok" {
		if p.errs == nil {
			p.errs = map[string]int{}
		}
		if p.errs[r.Error]++; p.errs[r.Error] == 1 {
			p.order = append(p.order, r.Error)
		}
		repeat = p.errs[r.Error] > 1
	}
	if p.bar != nil {
		p.bar.Add(1)
		if r.Status != "ok" && !repeat {
			progressbar.Bprintln(p.bar, "failed:", label+":", r.Error)
		}
		return
	}
	if r.Status != "ok" {
		if !repeat {
			fmt.Fprintf(p.w, "run %d/%d %s: FAILED: %s\n", p.n, p.total, label, r.Error)
		}
		return
	}
	p.ok++
	now := p.now()
	if p.n == p.total || p.n > 1 && now.Sub(p.last) < progressEvery {
		return // finish says when all are done
	}
	p.last = now
	el := now.Sub(p.start)
	if p.ok == 1 {
		// the first run to end read the workloads and shared the CPUs
		// with the others under way: its time foretells nothing
		fmt.Fprintf(p.w, "runs: %d of %d done, %s; the time left follows from the next ones\n", p.n, p.total, el.Round(time.Second))
		return
	}
	left := time.Duration(float64(el) / float64(p.n) * float64(p.total-p.n))
	fmt.Fprintf(p.w, "runs: %d of %d done, %s, about %s left\n", p.n, p.total, el.Round(time.Second), left.Round(time.Second))
}

// say writes a line of its own among the progress, under the lock the
// runs' reports take (the line of an interrupt was written beside a
// worker's report with none: a reviewer's race).
func (p *progress) say(msg string) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		progressbar.Bprintln(p.bar, msg)
		return
	}
	fmt.Fprintln(p.w, msg)
}

func (p *progress) finish() {
	if p.bar != nil {
		p.bar.Finish()
	}
	if p.w != nil && p.total > 0 {
		if p.n < p.total {
			// (interrupted: the runs done of those asked)
			fmt.Fprintf(p.w, "%d of %d runs in %.1f s\n", p.n, p.total, time.Since(p.start).Seconds())
		} else {
			fmt.Fprintf(p.w, "%d runs in %.1f s\n", p.n, time.Since(p.start).Seconds())
		}
		for _, e := range p.order {
			if n := p.errs[e]; n > 1 {
				fmt.Fprintf(p.w, "%d more runs failed as the first did: %s\n", n-1, e)
			}
		}
	}
}
