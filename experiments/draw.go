package experiments

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gocarina/gocsv"

	"github.com/wb-sim/wb/experiments/figures"
	"github.com/wb-sim/wb/internal/atomicfile"
	"github.com/wb-sim/wb/internal/readcap"
)

// FiguresDir is where an experiment's figures go, under its results.
const FiguresDir = "figures"

// table is a results CSV read by column name.
type table []map[string]string

func readTable(path string) (table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := gocsv.CSVToMaps(readcap.Lines(f, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rows, nil
}

func (t table) float(path string, i int, col string) (float64, error) {
	v, err := strconv.ParseFloat(t[i][col], 64)
	if err != nil {
		return 0, fmt.Errorf("%s: row %d: %s: %q is not a number", path, i+2, col, t[i][col])
	}
	return v, nil
}

// metricLabel is an axis label, with units, for a results column.
var metricLabel = map[string]string{
	"mean_bounded_slowdown": "mean bounded slowdown",
	"max_bounded_slowdown":  "max bounded slowdown",
	"mean_wait":             "mean wait (s)",
	"median_wait":           "median wait (s)",
	"p95_wait":              "95th percentile wait (s)",
	"max_wait":              "max wait (s)",
	"mean_jct":              "mean job completion time (s)",
	"makespan":              "makespan (s)",
	"util_cpu":              "CPU utilisation",
	"util_gpu":              "GPU utilisation",
	"util_mem":              "memory utilisation",
	"completed":             "jobs completed",
	"killed":                "jobs killed",
	"unschedulable":         "jobs unschedulable",
	"passed_over":           "jobs passed over more than 10 times",
	"mean_jct_replicas":     "mean JCT over replicas (s)",
	"mean_wait_replicas":    "mean wait over replicas (s)",
	"gpus":                  "GPUs",
	"cost":                  "cost ($)",
	"cost_per_job":          "cost per job ($)",
	"jobs":                  "jobs",
	"dropped":               "jobs dropped",
	"left_out":              "jobs left out (the cluster cannot run them)",
	"skipped_lines":         "trace lines skipped",
	"wait":                  "wait (s)",
	"slowdown":              "bounded slowdown",
	"jct":                   "job completion time (s)",
	"util":                  "utilisation",
	"queue":                 "queued jobs",
	"running":               "running jobs",
	"load":                  "load (× trace arrival rate)",
	"sigma":                 "σ of the estimate's lognormal error",
	"procs":                 "processors",
	// Sharing schedulers' columns.
	"median_jct":              "median job completion time (s)",
	"p95_jct":                 "p95 job completion time (s)",
	"slo_attainment":          "SLO attainment (deadlines met)",
	"critical_slo_attainment": "SLO attainment of critical jobs",
	"critical_jobs":           "critical jobs",
	"goodput":                 "goodput (SLO-met work / GPU-s)",
	"throughput":              "throughput (work / GPU-s)",
	"shared_jobs":             "jobs that shared a GPU",
	"policy_switches":         "policy switches",
}

// metricRange is where a metric can lie, for the figures' checks: a
// bounded slowdown is at least 1, a share within [0, 1], any other metric
// of this table at least 0.
func metricRange(metric string) *[2]float64 {
	switch {
	case strings.Contains(metric, "slowdown"):
		return &[2]float64{1, math.Inf(1)}
	case strings.HasPrefix(metric, "util") || strings.Contains(metric, "attainment"):
		return &[2]float64{0, 1}
	case metricLabel[metric] != "":
		return &[2]float64{0, math.Inf(1)}
	}
	return nil
}

// replicaNote says what a figure's points and bars are.
func (c *Config) replicaNote() string {
	if n := c.Replicas; n > 1 {
		return fmt.Sprintf("mean and %s over %d replicas", figures.CIName(n), n)
	}
	return "one replica: no interval"
}

// counted tracks how many replicas a figure's points are over.
type counted struct{ lo, hi int }

func (n *counted) add(k int) {
	if n.hi == 0 || k < n.lo {
		n.lo = k
	}
	n.hi = max(n.hi, k)
}

// replicas says how many replicas the points are over, of want: "5
// replicas", or "3–5 replicas" where runs failed.
func (n counted) replicas(want int) string {
	switch {
	case n.hi == 0 || n.lo == want && n.hi == want:
		return fmt.Sprintf("%d replica%s", want, plural(want))
	case n.lo == n.hi:
		return fmt.Sprintf("%d replica%s (of %d: the others failed)", n.lo, plural(n.lo), want)
	}
	return fmt.Sprintf("%d–%d replicas (of %d: the others failed)", n.lo, n.hi, want)
}

// replicaNoteOf is replicaNote for points over n's replicas: the interval
// named for the fewest.
func (c *Config) replicaNoteOf(n counted) string {
	if c.Replicas <= 1 || n.hi == 0 || n.lo == c.Replicas && n.hi == c.Replicas {
		return c.replicaNote()
	}
	if n.hi <= 1 {
		return fmt.Sprintf("%s: no interval", n.replicas(c.Replicas))
	}
	return fmt.Sprintf("mean and %s over %s", figures.CIName(max(n.lo, 2)), n.replicas(c.Replicas))
}

// firstReplicaNote says that a figure draws the first replica's jobs or
// samples (jobs.csv and timeseries.csv hold those of replica 0).
func (c *Config) firstReplicaNote() string {
	if c.Replicas > 1 {
		return fmt.Sprintf("replica 0 of %d", c.Replicas)
	}
	return "one replica"
}

// checkSummaryRows refuses a summary.csv that is not as wb wrote it, where
// a figure would draw it wrong without a word: a run's row twice (its
// values counted twice in a mean), a status other than ok or failed (a row
// read as failed and left out).
func checkSummaryRows(path string, t table) error {
	seen := map[string]int{}
	for k, row := range t {
		if s := row["status"]; s != "ok" && s != "failed" {
			return fmt.Errorf("%s:%d: status %q: want ok or failed (the file was edited?); run the experiment again, or mend the row", path, k+2, s)
		}
		run := row["run"]
		if run == "" {
			continue // (a table without the column: nothing to tell rows apart by)
		}
		if j, ok := seen[run]; ok {
			return fmt.Errorf("%s:%d: run %s again (line %d has it): each run has one row; remove the copy, or run the experiment again", path, k+2, run, j+2)
		}
		seen[run] = k
	}
	return nil
}

// checkSummaryRuns refuses a summary.csv that lacks a run of the config,
// has one it does not (a run number past its runs), or has a run's row
// under another workload, scheduler, sweep point or replica than the
// config gives that run (the file cut short or edited, or the config copy
// edited since the runs): a figure would draw some runs' values as all of
// them, or none, and say that runs failed. A table without the run column
// (written by hand) is not checked.
func (c *Config) checkSummaryRuns(path string, t table) error {
	if len(t) > 0 {
		if _, ok := t[0]["run"]; !ok {
			return nil
		}
	}
	runs := c.Runs()
	got := make([]int, len(runs)) // each run's line, 0 for none
	for k, row := range t {
		i, err := strconv.Atoi(row["run"])
		if err != nil || i < 0 || i >= len(runs) {
			return fmt.Errorf("%s:%d: run %q: the config's runs are numbered 0 to %d; was the config copy (%s) edited since the runs? Run the experiment again, or mend the file",
				path, k+2, row["run"], len(runs)-1, ConfigCopy)
		}
		r := runs[i]
		type col struct {
			name, want string
			num        float64 // a number's value, compared as one (NaN: not a number)
		}
		cols := []col{
			{"workload", c.WorkloadName(r.Workload), math.NaN()}, {"scheduler", c.SchedulerName(r.Scheduler), math.NaN()},
			{"load", fmtFloat(r.Load), r.Load}, {"replica", strconv.Itoa(r.Replica), math.NaN()},
		}
		// the swept axes' values (unswept, the columns hold what the
		// workload resolved)
		if len(c.Sweep.Procs) > 0 {
			cols = append(cols, col{"procs", strconv.Itoa(r.Procs), float64(r.Procs)})
		}
		if len(c.Sweep.Sigma) > 0 {
			cols = append(cols, col{"sigma", fmtFloat(r.Sigma), r.Sigma})
		}
		for _, col := range cols {
			v, ok := row[col.name]
			if !ok || v == col.want {
				continue
			}
			if f, err := strconv.ParseFloat(v, 64); err == nil && f == col.num {
				continue // the same number, written otherwise
			}
			return fmt.Errorf("%s:%d: run %d has %s %q where the config has %q (%s): was the config copy (%s) edited since the runs? Run the experiment again, or mend the file",
				path, k+2, i, col.name, v, col.want, c.label(r), ConfigCopy)
		}
		got[i] = k + 2
	}
	var missing []int
	for i, line := range got {
		if line == 0 {
			missing = append(missing, i)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s: no row of %d of the config's %d runs (the first: run %d, %s): the file was cut short or edited; run the experiment again (--resume keeps its runs)",
			path, len(missing), len(runs), missing[0], c.label(runs[missing[0]]))
	}
	return nil
}

// checkSeriesRows refuses a timeseries.csv whose rows of a run that is ok
// in summary.csv are neither none (a run with no event) nor the config's
// points a run (a file cut short, or edited).
func (c *Config) checkSeriesRows(path string, series, sum table) error {
	n := c.seriesPoints()
	rows := map[string]int{}
	for _, row := range series {
		rows[row["run"]]++
	}
	for _, row := range sum {
		if got := rows[row["run"]]; row["status"] == "ok" && got != 0 && got != n {
			return fmt.Errorf("%s: %d rows of run %s, where each run has %d (outputs.timeseries_points): the file was cut short or edited; run the experiment again (--resume keeps its runs)",
				path, got, row["run"], n)
		}
	}
	return nil
}

// checkJobRows refuses a jobs.csv whose rows of a run are not as many as
// the run's jobs in summary.csv (a file cut short, or edited): a figure of
// its jobs would draw a part of them as the whole.
func checkJobRows(path string, jobs, sum table) error {
	rows := map[string]int{}
	for _, row := range jobs {
		rows[row["run"]]++
	}
	for _, row := range sum {
		n, kept := rows[row["run"]]
		if !kept || row["jobs"] == "" || row["status"] != "ok" {
			continue // its jobs not kept (outputs.jobs), or a run that failed
		}
		if want, err := strconv.Atoi(row["jobs"]); err == nil && n != want {
			return fmt.Errorf("%s: %d rows of run %s, whose summary.csv row counts %d jobs: the file was cut short or edited; run the experiment again (--resume keeps its runs)",
				path, n, row["run"], want)
		}
	}
	return nil
}

// DrawFigures draws the config's figures from the result files in dir,
// into dir/figures, and returns the files written.
//
// Series drawn identically are named in the figure's note; what
// [figures.Figure.Check] finds (data squeezed into a corner of an axis, a
// category hidden beside others) comes back as findings, one line each.
func (c *Config) DrawFigures(dir string) (written, findings []string, err error) {
	if len(c.Figures) == 0 {
		return nil, nil, nil
	}
	fdir := filepath.Join(dir, FiguresDir)
	if err := os.MkdirAll(fdir, 0o755); err != nil {
		return nil, nil, err
	}
	var errs []error
	type loaded struct {
		t   table
		err error
	}
	tables := map[string]loaded{}
	var load func(name string) (table, error)
	load = func(name string) (table, error) {
		// a table that failed to load fails every figure of it the same way
		if l, ok := tables[name]; ok {
			return l.t, l.err
		}
		path := filepath.Join(dir, name)
		t, err := readTable(path)
		switch {
		case err != nil:
		case name == SummaryFile:
			if err = checkSummaryRows(path, t); err == nil {
				err = c.checkSummaryRuns(path, t)
			}
		case name == SeriesFile, name == JobsFile:
			// summary.csv is the index of the runs: a figure of the others
			// is drawn only where it holds; then each run's rows, where it
			// kept any, are its series or its jobs, all of them
			sum, serr := load(SummaryFile)
			switch {
			case serr != nil:
				err = serr
			case name == SeriesFile:
				err = c.checkSeriesRows(path, t, sum)
			default:
				err = checkJobRows(path, t, sum)
			}
		}
		tables[name] = loaded{t, err}
		return t, err
	}
	// the figures built first, then drawn and recorded (drawRecorded)
	var items []pendingFigure
	for i := range c.Figures {
		figs, err := c.figure(i, load)
		if err != nil {
			errs = append(errs, fmt.Errorf("figures[%d] (%s): %w", i, c.FigureName(i), err))
			continue
		}
		scaleTime(figs)
		for _, f := range figs {
			if left := dropUndrawn(f.fig); left != "" {
				findings = append(findings, f.name+": "+left)
			}
			if len(f.fig.Series) == 0 {
				continue // not drawn: said in findings; an old drawing of it goes
			}
			noteAgreeing(f.fig)
			f.fig.NoteCoincident()
			items = append(items, pendingFigure{label: fmt.Sprintf("figures[%d] (%s)", i, f.name), name: f.name, fig: f.fig})
		}
	}
	written, drawn, derrs := drawRecorded(fdir, items, len(errs) == 0)
	errs = append(errs, derrs...)
	for k, it := range items {
		if !drawn[k] {
			continue
		}
		if err := it.fig.Check(); err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				findings = append(findings, it.name+": "+line)
			}
		}
	}
	return written, findings, errors.Join(errs...)
}

// pendingFigure is a figure to draw into a results directory's figures/:
// its name there (without extension) and how an error names it.
type pendingFigure struct {
	label, name string
	fig         *figures.Figure
}

// drawRecorded draws the figures into fdir, recorded in its FiguresRecord
// before they are drawn (a draw killed part of the way leaves no file of
// wb's unrecorded, taken for the user's ever after), each refused where a
// file wb did not draw (a file of the user's) or another figure of this
// draw holds its name (it was drawn over: reviewers' finds). With clean
// (nothing failed before) and every figure drawn, the figure files of
// figures no longer drawn go; the record then names what is there of
// wb's. drawn[k] says figure k was drawn.
func drawRecorded(fdir string, items []pendingFigure, clean bool) (written []string, drawn []bool, errs []error) {
	drawn = make([]bool, len(items))
	owned, err := figuresOwned(fdir)
	if err != nil {
		return nil, drawn, []error{err}
	}
	var planned []string
	by := map[string]int{} // a file's name → the figure of this draw that takes it
	ok := make([]bool, len(items))
	for k, it := range items {
		var paths []string
		theirs := ""
		for _, ext := range figures.Formats() {
			p := filepath.Join(fdir, it.name+"."+ext)
			paths = append(paths, p)
			if j, taken := by[filepath.Base(p)]; taken && theirs == "" {
				theirs = fmt.Sprintf("%s is %s's too: two figures of one name; rename one (its name:, or the workload its name is made from)", p, items[j].label)
			}
			if fi, err := os.Lstat(p); err == nil && !owned(filepath.Base(p)) && theirs == "" {
				theirs = p + " is not a figure wb drew (a file of yours?): drawing would replace it; move the file, or name the figure otherwise (its name:, or its workload)"
				if !fi.Mode().IsRegular() {
					theirs = p + " is not a file wb drew: drawing would replace it; move it, or name the figure otherwise (its name:, or its workload)"
				}
			}
		}
		if theirs != "" {
			errs = append(errs, fmt.Errorf("%s: %s", it.label, theirs))
			continue
		}
		for _, p := range paths {
			by[filepath.Base(p)] = k
		}
		planned = append(planned, paths...)
		ok[k] = true
	}
	if err := recordFigures(fdir, planned); err != nil {
		return nil, drawn, append(errs, err)
	}
	for k, it := range items {
		if !ok[k] {
			continue
		}
		paths, err := figures.Render(it.fig, filepath.Join(fdir, it.name), nil)
		written = append(written, paths...)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", it.label, err))
			continue
		}
		drawn[k] = true
	}
	if clean && len(errs) == 0 {
		// every figure drawn: those of figures no longer drawn go
		errs = append(errs, removeStaleFigures(fdir, written))
	}
	if err := recordFigures(fdir, written); err != nil {
		errs = append(errs, err)
	}
	return written, drawn, slices.DeleteFunc(errs, func(e error) bool { return e == nil })
}

// FiguresRecord is the file in a results directory's figures/ naming, a
// line each, the figure files wb drew there: the only ones it deletes (a
// picture of the user's put there is theirs; every .png, .pdf and .svg
// there was taken for wb's and deleted at the next draw, merge or run: a
// reviewer's find). A folder drawn before the record (none there) is
// taken as wb's figure files all, as it was.
const FiguresRecord = ".wb-figures"

// figuresOwned is the predicate of the figure files in fdir that wb drew
// (FiguresRecord's names; without a record, every figure file's, in a
// directory from before the record). The record itself is none of them.
func figuresOwned(fdir string) (func(name string) bool, error) {
	figure := func(name string) bool { return name != FiguresRecord && ownedIn[FiguresDir].MatchString(name) }
	b, err := os.ReadFile(filepath.Join(fdir, FiguresRecord))
	if errors.Is(err, fs.ErrNotExist) {
		if m, _, err := readMarker(filepath.Dir(fdir)); err == nil && m != nil && m.FiguresRecorded {
			// recorded, and nothing drawn yet (a config of no figures, a
			// Slurm array before its collect), or the record deleted:
			// none of the figure files there is wb's
			return func(string) bool { return false }, nil
		}
		return figure, nil // a directory from before the record
	}
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if line != "" {
			names[line] = true
		}
	}
	return func(name string) bool { return names[name] && figure(name) }, nil
}

// recordFigures writes fdir's FiguresRecord: the files written (paths in
// fdir) and those fdir holds of wb's (figuresOwned: a figure that failed
// to draw this time keeps its old drawing, still wb's; in a directory
// from before the record, every figure file there).
func recordFigures(fdir string, written []string) error {
	if len(written) == 0 {
		if _, err := os.Stat(fdir); errors.Is(err, fs.ErrNotExist) {
			return nil // nothing drawn, no folder made
		}
	}
	owned, err := figuresOwned(fdir)
	if err != nil {
		return err
	}
	var names []string
	for _, p := range written {
		names = append(names, filepath.Base(p))
	}
	ents, err := os.ReadDir(fdir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.Type().IsRegular() && owned(e.Name()) {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	return atomicfile.Write(filepath.Join(fdir, FiguresRecord), func(w io.Writer) error {
		for _, name := range names {
			if _, err := io.WriteString(w, name+"\n"); err != nil {
				return err
			}
		}
		return nil
	})
}

// logNote says what a log Y axis left out: means of 0 not drawn, and
// intervals reaching 0 drawn from the mean up ("" for none).
func logNote(skipped, halved int) string {
	var s string
	if skipped > 0 {
		s += fmt.Sprintf("; %d means of 0 not drawn (log axis)", skipped)
	}
	if halved > 0 {
		s += fmt.Sprintf("; %d intervals reaching 0 drawn from the mean up", halved)
	}
	return s
}

// total is the sum of counts.
func total(counts []int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

// dropUndrawn takes out of f the series with no value to draw (no point,
// or no value that is a number: the runs failed, and wb experiment listed
// why; summary.csv leaves the metric empty for them; or a log axis left
// out their zeros), and says what it left out: each such series, or the
// whole figure when none is left ("" when nothing).
func dropUndrawn(f *figures.Figure) (left string) {
	kept := f.Series[:0]
	var names []string
	for _, s := range f.Series {
		if slices.ContainsFunc(s.Y, func(y float64) bool { return !math.IsNaN(y) }) {
			kept = append(kept, s)
			continue
		}
		names = append(names, strconv.Quote(s.Label))
	}
	f.Series = kept
	switch {
	case len(names) == 0:
		return ""
	case len(kept) == 0:
		return "not drawn: no value to draw (its runs failed, or summary.csv leaves the metric empty for them, where it does not apply, or, on a log axis, its values are 0)"
	}
	return fmt.Sprintf("series %s not drawn: no value to draw (its runs failed, or the metric does not apply to them, or, on a log axis, its values are 0)", strings.Join(names, ", "))
}

// removeStaleFigures deletes the figure files wb drew in fdir
// (figuresOwned) that are not in written.
func removeStaleFigures(fdir string, written []string) error {
	owned, err := figuresOwned(fdir)
	if err != nil {
		return err
	}
	ents, err := os.ReadDir(fdir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		p := filepath.Join(fdir, e.Name())
		if e.Type().IsRegular() && owned(e.Name()) && !slices.Contains(written, p) {
			if err := os.Remove(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// scaleTime puts the time axis of figures drawn in seconds into the unit
// that reads best for their largest value (minutes from 2 min, hours
// from 2 h, days from 2 days), the same for every figure of one config
// entry.
func scaleTime(figs []namedFigure) {
	const sec = " (s)"
	peak := 0.0
	axisOf := func(f *figures.Figure) (label *string, onX bool) {
		switch {
		case (f.Kind == figures.CDF || f.Kind == figures.TimeSeries) && strings.Contains(f.XLabel, sec):
			return &f.XLabel, true
		case f.Kind != figures.CDF && strings.Contains(f.YLabel, sec):
			return &f.YLabel, false
		}
		return nil, false
	}
	for _, nf := range figs {
		if l, onX := axisOf(nf.fig); l != nil {
			for _, s := range nf.fig.Series {
				vs := s.Y
				if onX {
					vs = s.X
				}
				for i, v := range vs {
					peak = max(peak, math.Abs(v))
					if s.Hi != nil {
						peak = max(peak, math.Abs(s.Hi[i]))
					}
				}
			}
		}
	}
	unit, div := "", 1.0
	switch {
	case peak >= 2*86400:
		unit, div = " (days)", 86400
	case peak >= 2*3600:
		unit, div = " (h)", 3600
	case peak >= 2*60:
		unit, div = " (min)", 60
	default:
		return
	}
	scale := func(vs []float64) {
		for i := range vs {
			vs[i] /= div
		}
	}
	for _, nf := range figs {
		f := nf.fig
		l, onX := axisOf(f)
		if l == nil {
			continue
		}
		*l = strings.Replace(*l, sec, unit, 1)
		for i := range f.Series {
			s := &f.Series[i]
			if onX {
				s.X = slices.Clone(s.X)
				scale(s.X)
				continue
			}
			s.Y, s.Lo, s.Hi = slices.Clone(s.Y), slices.Clone(s.Lo), slices.Clone(s.Hi)
			scale(s.Y)
			scale(s.Lo)
			scale(s.Hi)
		}
	}
}

// noteAgreeing adds to a figure with intervals that some have no width
// (the replicas agree), where no bar is drawn.
func noteAgreeing(f *figures.Figure) {
	for _, s := range f.Series {
		for j := range s.Lo {
			if s.Lo[j] == s.Hi[j] && strings.Contains(f.Note, "replicas") {
				if strings.Contains(f.Note, "the others failed") {
					f.Note += "; no bar where the replicas agree, or one alone completed"
				} else {
					f.Note += "; no bar where the replicas agree"
				}
				return
			}
		}
	}
}

type namedFigure struct {
	name string
	fig  *figures.Figure
}

// slug makes a label usable in a file name.
func slug(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// figureLoad is the load a cdf, timeseries or bar figure draws.
func (c *Config) figureLoad(i int) float64 {
	if l := c.Figures[i].Load; l != 0 {
		return l
	}
	loads := c.Loads()
	return loads[len(loads)-1]
}

func (c *Config) figure(i int, load func(string) (table, error)) ([]namedFigure, error) {
	fc := &c.Figures[i]
	name := c.FigureName(i)
	at := c.figureLoad(i)
	atNote := ""
	if len(c.Loads()) > 1 {
		atNote = ", load " + fmtFloat(at)
	}
	switch fc.Kind {
	case "line":
		return c.lineFigures(i, load)
	case "bar":
		t, err := load(SummaryFile)
		if err != nil {
			return nil, err
		}
		f := &figures.Figure{Kind: figures.Bar, YLabel: metricLabel[fc.Metric] + atNote, LogY: fc.LogY,
			YRange: metricRange(fc.Metric)} // its note once the replicas are counted
		for w := range c.Workloads {
			f.Categories = append(f.Categories, c.WorkloadName(w))
		}
		var reps counted
		perWorkload := make([]counted, len(c.Workloads)) // for a figure per workload
		// on a log axis, per workload: means of 0 left out, intervals reaching 0
		skipped, halved := make([]int, len(c.Workloads)), make([]int, len(c.Workloads))
		for s := range c.Schedulers {
			ser := figures.Series{Label: c.SchedulerName(s)}
			for w := range c.Workloads {
				vals, err := c.summaryValues(t, w, s, "load", at, fc.Metric)
				if err != nil {
					return nil, err
				}
				m, lo, hi := figures.MeanCI(vals)
				switch {
				case fc.LogY && len(vals) > 0 && m <= 0:
					skipped[w]++ // a log axis cannot show it; the note says so
					m, lo, hi = math.NaN(), math.NaN(), math.NaN()
					vals = nil
				case fc.LogY && lo <= 0:
					lo = m // drawn from the mean up; the note says so
					halved[w]++
				}
				if len(vals) > 0 {
					reps.add(len(vals))
					perWorkload[w].add(len(vals))
				}
				ser.X, ser.Y, ser.Lo, ser.Hi = append(ser.X, float64(w)), append(ser.Y, m), append(ser.Lo, lo), append(ser.Hi, hi)
			}
			f.Series = append(f.Series, ser)
		}
		f.Note = c.replicaNoteOf(reps) + logNote(total(skipped), total(halved))
		// the series of a scheduler none of whose runs completed are left
		// out when it is drawn (dropUndrawn): they split nothing
		probe := *f
		probe.Series = slices.Clone(f.Series)
		if dropUndrawn(&probe); len(probe.Series) == 0 || probe.Check() == nil || len(f.Categories) == 1 {
			return []namedFigure{{name, f}}, nil
		}
		// One workload's bars would hide another's: a figure per workload,
		// each on its own scale.
		var out []namedFigure
		for w, cat := range f.Categories {
			g := *f
			g.Categories, g.Series = []string{cat}, nil
			g.Note = c.replicaNoteOf(perWorkload[w]) + logNote(skipped[w], halved[w])
			for _, ser := range f.Series {
				one := figures.Series{Label: ser.Label, X: []float64{0}, Y: ser.Y[w : w+1]}
				if ser.Lo != nil {
					one.Lo, one.Hi = ser.Lo[w:w+1], ser.Hi[w:w+1]
				}
				g.Series = append(g.Series, one)
			}
			out = append(out, namedFigure{name + "-" + slug(cat), &g})
		}
		return out, nil
	case "cdf":
		t, err := load(JobsFile)
		if err != nil {
			return nil, err
		}
		var out []namedFigure
		for w := range c.Workloads {
			f := &figures.Figure{Kind: figures.CDF, XLabel: metricLabel[fc.Metric], YLabel: "fraction of jobs", LogX: fc.LogX,
				Title: c.WorkloadName(w) + atNote, Note: c.firstReplicaNote()}
			raised, never := false, 0
			for s := range c.Schedulers {
				vals, n, err := c.jobValues(t, w, s, at, fc.Metric)
				if err != nil {
					return nil, err
				}
				never += n
				if fc.LogX {
					for k := range vals {
						if vals[k] < 1 {
							vals[k], raised = 1, true
						}
					}
				}
				x, y := figures.ECDF(vals, 400)
				f.Series = append(f.Series, figures.Series{Label: c.SchedulerName(s), X: x, Y: y})
			}
			if raised {
				// raised before the axis is scaled to minutes, hours or days
				if fc.Metric == "slowdown" {
					f.Note += "; values < 1 drawn at 1"
				} else {
					f.Note += "; values under 1 s drawn at 1 s"
				}
			}
			if never > 0 {
				f.Note += fmt.Sprintf("; %d unschedulable jobs (over its schedulers) not drawn", never)
			}
			out = append(out, namedFigure{name + "-" + slug(c.WorkloadName(w)), f})
		}
		return out, nil
	case "pareto":
		return c.paretoFigure(i, load)
	case "progress":
		return c.progressFigures(i, load)
	case "timeseries":
		t, err := load(SeriesFile)
		if err != nil {
			return nil, err
		}
		var out []namedFigure
		for w := range c.Workloads {
			f := &figures.Figure{Kind: figures.TimeSeries, XLabel: "time (s)", YLabel: metricLabel[fc.Metric], LogY: fc.LogY,
				Title: c.WorkloadName(w) + atNote, Note: c.firstReplicaNote(), YRange: metricRange(fc.Metric)}
			offLog := 0
			for s := range c.Schedulers {
				ser := figures.Series{Label: c.SchedulerName(s)}
				for k := range t {
					if !c.rowIs(t[k], w, s, at) || t[k]["replica"] != "0" {
						continue
					}
					tm, err := t.float(c.resultFile(SeriesFile), k, "time")
					if err != nil {
						return nil, err
					}
					v, err := t.float(c.resultFile(SeriesFile), k, fc.Metric)
					if err != nil {
						return nil, err
					}
					ser.X, ser.Y = append(ser.X, tm), append(ser.Y, v) // in the unit scaleTime picks
				}
				f.Series = append(f.Series, ser)
			}
			floor := math.Inf(1)
			if fc.LogY {
				// a log axis cannot show 0: drawn at a floor, half the least
				// value above it, so that a line does not bridge an empty
				// queue; the note says so
				for _, ser := range f.Series {
					for _, v := range ser.Y {
						if v > 0 {
							floor = min(floor, v/2)
						}
					}
				}
				for k := range f.Series {
					ser := &f.Series[k]
					for j, v := range ser.Y {
						switch {
						case v > 0:
						case math.IsInf(floor, 1):
							ser.Y[j] = math.NaN() // nothing above 0 anywhere: not drawn (dropUndrawn)
						default:
							ser.Y[j] = floor
							offLog++
						}
					}
				}
			}
			if offLog > 0 {
				f.Note += fmt.Sprintf("; %d values of 0 drawn at %.3g, half the least other (log axis)", offLog, floor)
			}
			out = append(out, namedFigure{name + "-" + slug(c.WorkloadName(w)), f})
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown kind %q", fc.Kind)
}

// lineFigures draws a summary metric against a sweep axis, one figure per
// workload, the mean and its bootstrap CI (figures.CIName) over replicas (on a log
// axis, means of 0 are left out and intervals reaching 0 drawn from the
// mean up, as the note says).
func (c *Config) lineFigures(i int, load func(string) (table, error)) ([]namedFigure, error) {
	fc := &c.Figures[i]
	t, err := load(SummaryFile)
	if err != nil {
		return nil, err
	}
	axis := fc.X
	if axis == "" {
		axis = "load"
	}
	var xs []float64
	switch axis {
	case "load":
		xs = c.Loads()
	case "sigma":
		xs = c.Sweep.Sigma
	default:
		for _, p := range c.Sweep.Procs {
			xs = append(xs, float64(p))
		}
	}
	if len(xs) == 0 {
		return nil, fmt.Errorf("x: %s is not swept", axis)
	}
	var out []namedFigure
	for w := range c.Workloads {
		skipped, halved, offX := 0, 0, 0
		var reps counted
		f := &figures.Figure{Kind: figures.Line, XLabel: metricLabel[axis], YLabel: metricLabel[fc.Metric],
			LogX: fc.LogX, LogY: fc.LogY, Title: c.WorkloadName(w), YRange: metricRange(fc.Metric)}
		for s := range c.Schedulers {
			ser := figures.Series{Label: c.SchedulerName(s)}
			for _, x := range xs {
				vals, err := c.summaryValues(t, w, s, axis, x, fc.Metric)
				if err != nil {
					return nil, err
				}
				m, lo, hi := figures.MeanCI(vals)
				switch {
				case len(vals) == 0:
					continue
				case fc.LogX && !(x > 0):
					offX++ // a log axis cannot show it; the note says so
					continue
				case fc.LogY && m <= 0:
					skipped++ // a log axis cannot show it; the note says so
					continue
				case fc.LogY && lo <= 0:
					lo = m // drawn from the mean up; the note says so
					halved++
				}
				reps.add(len(vals))
				ser.X, ser.Y, ser.Lo, ser.Hi = append(ser.X, x), append(ser.Y, m), append(ser.Lo, lo), append(ser.Hi, hi)
			}
			f.Series = append(f.Series, ser)
		}
		f.Note = c.replicaNoteOf(reps)
		if offX > 0 {
			f.Note += fmt.Sprintf("; %d points at %s 0 not drawn (log axis)", offX, axis)
		}
		if skipped > 0 {
			f.Note += fmt.Sprintf("; %d means of 0 not drawn (log axis)", skipped)
		}
		if halved > 0 {
			f.Note += fmt.Sprintf("; %d intervals reaching 0 drawn from the mean up", halved)
		}
		out = append(out, namedFigure{c.FigureName(i) + "-" + slug(c.WorkloadName(w)), f})
	}
	return out, nil
}

// rowIs reports whether a results row belongs to workload w, scheduler s
// and load at.
func (c *Config) rowIs(row map[string]string, w, s int, at float64) bool {
	if row["workload"] != c.WorkloadName(w) || row["scheduler"] != c.SchedulerName(s) {
		return false
	}
	l, err := strconv.ParseFloat(row["load"], 64)
	return err == nil && l == at
}

// summaryValues is a metric over the replicas that completed, for workload
// w, scheduler s and axis = x.
func (c *Config) summaryValues(t table, w, s int, axis string, x float64, metric string) ([]float64, error) {
	var vals []float64
	err := c.eachSummary(t, w, s, axis, x, metric, func(_ map[string]string, v float64) { vals = append(vals, v) })
	return vals, err
}

// eachSummary calls f with every ok summary row of workload w and
// scheduler s at axis = x, in the table's order, and its metric.
func (c *Config) eachSummary(t table, w, s int, axis string, x float64, metric string, f func(row map[string]string, v float64)) error {
	for k := range t {
		row := t[k]
		if row["workload"] != c.WorkloadName(w) || row["scheduler"] != c.SchedulerName(s) || row["status"] != "ok" {
			continue
		}
		ax, err := t.float(c.resultFile(SummaryFile), k, axis)
		if err != nil {
			return err
		}
		if ax != x {
			continue
		}
		cell, has := row[metric]
		if !has {
			// a column absent is no empty cell: the figure would be
			// dropped as if its runs had failed, its old drawing deleted,
			// exit 0 (a reviewer's find)
			return fmt.Errorf("%s has no column %s (the file was edited?): run the experiment again (--resume keeps its runs), or mend the header", c.resultFile(SummaryFile), metric)
		}
		if cell == "" {
			continue // the metric does not apply to the run (util_gpu on a pool of processors): summary.csv leaves it empty
		}
		v, err := t.float(c.resultFile(SummaryFile), k, metric)
		if err != nil {
			return err
		}
		f(row, v)
	}
	return nil
}

// jobValues is a per-job quantity over the jobs of replica 0 that ran
// (done or killed, as summary.csv counts them completed), and the number
// that never could (unschedulable).
func (c *Config) jobValues(t table, w, s int, at float64, metric string) ([]float64, int, error) {
	var vals []float64
	never := 0
	for k := range t {
		row := t[k]
		if !c.rowIs(row, w, s, at) || row["replica"] != "0" {
			continue
		}
		if row["status"] == "unschedulable" {
			never++
		}
		if row["status"] != "done" && row["status"] != "killed" {
			continue
		}
		var v float64
		var err error
		switch metric {
		case "wait":
			v, err = t.float(c.resultFile(JobsFile), k, "wait")
		case "slowdown":
			v, err = t.float(c.resultFile(JobsFile), k, "bounded_slowdown")
		case "jct":
			var end, sub float64
			if end, err = t.float(c.resultFile(JobsFile), k, "end"); err == nil {
				sub, err = t.float(c.resultFile(JobsFile), k, "submit")
				v = end - sub
			}
		}
		if err != nil {
			return nil, 0, err
		}
		vals = append(vals, v)
	}
	return vals, never, nil
}
