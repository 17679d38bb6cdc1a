package paisim

import (
	"compress/gzip"
	"encoding/csv"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/wb-sim/wb/datasets"
	"github.com/wb-sim/wb/datasets/pai"
	"github.com/wb-sim/wb/internal/atomicfile"
	"github.com/wb-sim/wb/internal/pyrand"
)

// Write writes rows as a job table with a header: the columns of
// [Columns], less the estimate columns no row has. Reading it back gives
// the rows (less their lines).
func Write(w io.Writer, rows []Row) error {
	cols := Columns[:8:8]
	for _, c := range EstimateColumns {
		for i := range rows {
			if _, ok := rows[i].Estimates[c]; ok {
				cols = append(cols, c)
				break
			}
		}
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(cols); err != nil {
		return err
	}
	rec := make([]string, len(cols))
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	for i := range rows {
		r := &rows[i]
		rec = append(rec[:0], strconv.FormatInt(r.ID, 10), r.User, num(float64(r.GPUPct)/100), num(float64(r.CPUPct)/100),
			strconv.FormatInt(int64(r.Submit), 10), strconv.FormatInt(int64(r.Duration), 10), strconv.Itoa(r.Inst), r.GPUType)
		for _, c := range cols[8:] {
			v, ok := r.Estimates[c]
			if !ok {
				rec = append(rec, "")
				continue
			}
			rec = append(rec, num(v))
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteFile writes rows as a job table to path, atomically (a file that
// is there stays whole until the new one is), gzip-compressed when path
// ends in .gz.
func WriteFile(path string, rows []Row) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		if !strings.HasSuffix(path, ".gz") {
			return Write(w, rows)
		}
		zw := gzip.NewWriter(w)
		if err := Write(zw, rows); err != nil {
			return err
		}
		return zw.Close()
	})
}

// DeriveFiles reads the raw trace's job and task tables and, when
// groupsPath is not empty, its group tag table, and derives the job table
// (see [Derive]).
func DeriveFiles(jobsPath, tasksPath, groupsPath string) ([]Row, datasets.Dropped, error) {
	jobs, err := pai.ReadJobs(jobsPath)
	if err != nil {
		return nil, nil, err
	}
	tasks, err := pai.ReadTasks(tasksPath)
	if err != nil {
		return nil, nil, err
	}
	var groups []GroupRow
	if groupsPath != "" {
		if groups, err = ReadGroups(groupsPath); err != nil {
			return nil, nil, err
		}
	}
	return Derive(jobs, tasks, groups)
}

// SimulatorSample is the sample of n jobs the PAI v2020 simulator draws
// from a table with random seed seed (its random_seed, 42 by default):
// it reads the first 10n + 1 rows, shuffles them with Python's generator
// (random.seed, random.shuffle) and keeps the first n, all of them when
// the table has no more. The sample is returned in the table's order.
// Given it as a table of its own, with no sampling, wb simulates what the
// simulator simulates on the whole table.
func SimulatorSample(rows []Row, n int, seed uint64) []Row {
	if n <= 0 {
		return nil
	}
	rows = rows[:min(len(rows), 10*n+1)]
	if n >= len(rows) {
		return slices.Clone(rows)
	}
	idx := make([]int, len(rows))
	for i := range idx {
		idx[i] = i
	}
	pyrand.New(seed).Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
	idx = idx[:n]
	slices.Sort(idx)
	out := make([]Row, n)
	for i, k := range idx {
		out[i] = rows[k]
	}
	return out
}
