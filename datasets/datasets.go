// Package datasets is the root of wb's trace readers and writers and of the
// data bundled with wb.
//
// Each trace format has its own package, which reads the format's files into
// row types that mirror the files, validates them, and converts them to the
// scheduler's jobs and clusters:
//
//   - [github.com/wb-sim/wb/datasets/swf]: the Standard Workload Format of the
//     Parallel Workloads Archive (read and write);
//   - [github.com/wb-sim/wb/datasets/openb]: the Alibaba GPU cluster trace
//     v2023 (openb) of node and pod lists;
//   - [github.com/wb-sim/wb/datasets/pai]: the Alibaba PAI trace v2020
//     (machines, jobs, tasks, instances);
//   - [github.com/wb-sim/wb/datasets/gavel]: the Gavel (Philly-derived) deep
//     learning job traces and their measured throughputs;
//   - [github.com/wb-sim/wb/datasets/paisim]: the job table of the PAI v2020
//     simulator (pai-sim), derived from the PAI trace or generated.
//
// [github.com/wb-sim/wb/datasets/neusight] reads NeuSight's GPU measurements
// (op timings, whole-iteration labels, spec sheets, model configs), the
// GPU op model's training and validation data, not a trace.
//
// The bundled data lives under datasets/data (see SOURCES.md there for the
// origin, license and citation of every file); [DataDir] finds it. Readers of
// those packages read gzip-compressed files transparently.
//
// A conversion that leaves records out counts them by reason in a [Dropped];
// a record that cannot be read at all is an error that names its file and
// line.
package datasets

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Module is the module path whose root holds the bundled data.
const Module = "github.com/wb-sim/wb"

// EnvDataDir names the environment variable that, when set, gives the
// directory of the bundled data and overrides the search.
const EnvDataDir = "WB_DATA"

// DataDir returns the directory of the bundled data: $WB_DATA when set,
// otherwise datasets/data under the root of the wb module, found by walking
// up to the go.mod that declares [Module] from the working directory, then
// from the directory of the running executable (a clone's bin/wb finds its
// clone's data wherever it is run from).
func DataDir() (string, error) {
	if dir := os.Getenv(EnvDataDir); dir != "" {
		if fi, err := os.Stat(dir); err != nil {
			return "", fmt.Errorf("datasets: $%s: %w", EnvDataDir, err)
		} else if !fi.IsDir() {
			return "", fmt.Errorf("datasets: $%s: %s is not a directory", EnvDataDir, dir)
		}
		return dir, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("datasets: %w", err)
	}
	exe, err := os.Executable()
	if err == nil {
		exe, err = filepath.EvalSymlinks(exe)
	}
	if err != nil {
		exe = ""
	}
	return dataDirFrom(wd, exe)
}

// dataDirFrom is DataDir's search from the working directory wd, then from
// the directory of the executable exe (none where empty).
func dataDirFrom(wd, exe string) (string, error) {
	starts := []string{wd}
	if exe != "" && filepath.Dir(exe) != wd {
		starts = append(starts, filepath.Dir(exe))
	}
	for _, start := range starts {
		for dir := start; ; {
			if isModuleRoot(filepath.Join(dir, "go.mod")) {
				data := filepath.Join(dir, "datasets", "data")
				if _, err := os.Stat(data); err != nil {
					return "", fmt.Errorf("datasets: %w", err)
				}
				return data, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", fmt.Errorf("datasets: bundled data not found: no go.mod of %s above %s: set $%s to a clone's datasets/data, "+
		"run inside the clone, or run the wb that `make build` put in its bin/", Module, strings.Join(starts, " or "), EnvDataDir)
}

// isModuleRoot reports whether the go.mod file at path declares [Module].
func isModuleRoot(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "module" && strings.Trim(f[1], `"`) == Module {
			return true
		}
	}
	return false
}

// Dropped counts the records a conversion left out, by reason, in the order
// the reasons were first met. Reasons are short, stable names such as
// "procs>machine"; each package documents its own. A count is of jobs
// unless it says it is of tasks ([DropCount.Tasks]: a task row of a trace
// whose jobs are another table, such as PAI's task without a job).
type Dropped []DropCount

// DropCount is the number of records left out for one reason.
type DropCount struct {
	Reason string
	Count  int
	Tasks  bool // the count is of task rows, not of jobs
	// First describes the first record left out, where the reason alone
	// would not let a user find it (a line and what was wrong there); ""
	// for none.
	First string
}

// Add counts one more job left out for reason.
func (d *Dropped) Add(reason string) { d.add(reason, 1, false) }

// AddTask counts one more task row left out for reason.
func (d *Dropped) AddTask(reason string) { d.add(reason, 1, true) }

// AddFirst counts one more job left out for reason, described by first
// if it is the first ([DropCount.First]).
func (d *Dropped) AddFirst(reason, first string) {
	d.add(reason, 1, false)
	d.first(reason, first)
}

// first sets reason's first record where it has none yet.
func (d Dropped) first(reason, first string) {
	for i := range d {
		if d[i].Reason == reason && d[i].First == "" {
			d[i].First = first
		}
	}
}

// AddTaskFirst counts one more task row left out for reason, described
// by first if it is the first.
func (d *Dropped) AddTaskFirst(reason, first string) {
	d.add(reason, 1, true)
	d.first(reason, first)
}

// AddCount adds c's count to the same reason's (and its first record,
// where that reason has none yet).
func (d *Dropped) AddCount(c DropCount) {
	d.add(c.Reason, c.Count, c.Tasks)
	d.first(c.Reason, c.First)
}

func (d *Dropped) add(reason string, n int, tasks bool) {
	for i := range *d {
		if (*d)[i].Reason == reason {
			(*d)[i].Count += n
			return
		}
	}
	*d = append(*d, DropCount{Reason: reason, Count: n, Tasks: tasks})
}

// Count returns the records left out for reason.
func (d Dropped) Count(reason string) int {
	for _, c := range d {
		if c.Reason == reason {
			return c.Count
		}
	}
	return 0
}

// Total returns the jobs left out for any reason; task rows left out
// ([DropCount.Tasks]) are not jobs and are not counted.
func (d Dropped) Total() int {
	n := 0
	for _, c := range d {
		if !c.Tasks {
			n += c.Count
		}
	}
	return n
}

// String lists the counts as "reason: n, reason: n tasks", or "none"; a
// reason's first record, where it has one, follows its count ("reason: n,
// the first line 3: ...").
func (d Dropped) String() string {
	if len(d) == 0 {
		return "none"
	}
	var b strings.Builder
	for i, c := range d {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s: %d", c.Reason, c.Count)
		if c.Tasks {
			b.WriteString(" tasks")
		}
		if c.First != "" {
			b.WriteString(", the first " + c.First)
		}
	}
	return b.String()
}

// ColumnError is a bad value in a line of a CSV trace file. Column names the
// column, or is empty when the line as a whole is wrong.
type ColumnError struct {
	File   string
	Line   int // 1-based
	Column string
	Msg    string
}

func (e *ColumnError) Error() string {
	if e.Column == "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Column, e.Msg)
}

// LoneCR says that a file's lines end in a carriage return alone, which
// wb reads as one long line, and how to convert the file named name (a
// compressed one kept compressed): the SWF reader and the CSV tables say
// it alike.
func LoneCR(name string) string {
	conv := `tr '\r' '\n' < FILE > FILE.lf`
	if strings.HasSuffix(name, ".gz") {
		conv = `zcat FILE | tr '\r' '\n' | gzip > FILE.lf.gz`
	}
	return "the file's lines end in CR alone? wb reads lines ending in LF or CRLF; convert it with " + conv
}
