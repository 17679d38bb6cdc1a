package experiments

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/wb-sim/wb/scheduler"
)

// Column sets of the per-run CSV files. A processor pool (SWF) speaks of
// processors; a cluster of nodes of CPU milli-cores, memory and GPU milli.
var (
	poolJobColumns = []string{"id", "user", "submit", "start", "end", "wait", "run", "estimate", "procs", "bounded_slowdown", "status"}
	nodeJobColumns = []string{"id", "user", "name", "submit", "start", "end", "wait", "run", "estimate", "cpu_milli", "mem_mib", "gpu_milli", "gpus", "replicas", "bounded_slowdown", "status"}
	poolSeriesCols = []string{"time", "procs_used", "queue", "running"}
	nodeSeriesCols = []string{"time", "cpu_milli_used", "mem_mib_used", "gpu_milli_used", "queue", "running"}
)

// csvLine builds one CSV line in a reused buffer.
type csvLine struct{ b []byte }

func (l *csvLine) sep() {
	if len(l.b) > 0 {
		l.b = append(l.b, ',')
	}
}
func (l *csvLine) int(v int64) { l.sep(); l.b = strconv.AppendInt(l.b, v, 10) }
func (l *csvLine) float(v float64) {
	l.sep()
	if math.IsNaN(v) || math.IsInf(v, 0) {
		panic(fmt.Sprintf("experiments: %v written to a CSV", v))
	}
	if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
		l.b = strconv.AppendInt(l.b, int64(v), 10) // the same digits, faster
		return
	}
	// The shortest decimal that reads back as v, never in exponent form.
	l.b = strconv.AppendFloat(l.b, v, 'f', -1, 64)
}
func (l *csvLine) str(s string) {
	l.sep()
	if needsQuote(s) {
		l.b = append(l.b, '"')
		l.b = append(l.b, strings.ReplaceAll(s, `"`, `""`)...)
		l.b = append(l.b, '"')
		return
	}
	l.b = append(l.b, s...)
}
func (l *csvLine) end(w io.Writer) error {
	l.b = append(l.b, '\n')
	_, err := w.Write(l.b)
	l.b = l.b[:0]
	return err
}

func needsQuote(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ',', '"', '\n', '\r':
			return true
		}
	}
	return false
}

func writeHeader(w io.Writer, cols []string) error {
	var l csvLine
	for _, c := range cols {
		l.str(c)
	}
	return l.end(w)
}

// WriteJobs writes one CSV row per job.
func WriteJobs(w io.Writer, r *scheduler.Result) error {
	pool := r.Cluster.Pool
	if err := writeHeader(w, jobColumns(pool)); err != nil {
		return err
	}
	var l csvLine
	for i := range r.Jobs {
		if err := jobRow(w, &l, &r.Jobs[i], pool); err != nil {
			return err
		}
	}
	return nil
}

func jobColumns(pool bool) []string {
	if pool {
		return poolJobColumns
	}
	return nodeJobColumns
}

// jobRow writes j's row of jobs.csv.
func jobRow(w io.Writer, l *csvLine, j *scheduler.JobResult, pool bool) error {
	l.int(j.ID)
	l.str(j.User)
	if !pool {
		l.str(j.Name)
	}
	l.int(int64(j.Submit))
	l.int(int64(j.Start))
	l.int(int64(j.End))
	l.int(int64(j.Wait))
	l.int(int64(j.Run))
	l.int(int64(j.Estimate))
	if pool {
		l.int(int64(j.CPU / scheduler.MilliPerCore))
	} else {
		l.int(int64(j.CPU))
		l.int(int64(j.Mem))
		l.int(int64(j.GPU))
		l.int(int64(j.GPUs))
		l.int(int64(j.Replicas))
	}
	l.float(j.Slowdown)
	l.str(j.Status.String())
	return l.end(w)
}

// WriteSeries writes one CSV row per sample of the cluster's use.
func WriteSeries(w io.Writer, r *scheduler.Result) error {
	pool := r.Cluster.Pool
	if err := writeHeader(w, seriesColumns(pool)); err != nil {
		return err
	}
	var l csvLine
	for i := range r.Series {
		if err := seriesRow(w, &l, &r.Series[i], pool); err != nil {
			return err
		}
	}
	return nil
}

func seriesColumns(pool bool) []string {
	if pool {
		return poolSeriesCols
	}
	return nodeSeriesCols
}

// seriesRow writes s's row of timeseries.csv.
func seriesRow(w io.Writer, l *csvLine, s *scheduler.Sample, pool bool) error {
	l.int(int64(s.Time))
	if pool {
		l.int(int64(s.CPU / scheduler.MilliPerCore))
	} else {
		l.int(int64(s.CPU))
		l.int(int64(s.Mem))
		l.int(int64(s.GPU))
	}
	l.int(int64(s.Queue))
	l.int(int64(s.Running))
	return l.end(w)
}
