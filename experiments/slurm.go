package experiments

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/wb-sim/wb/datasets"
	"github.com/wb-sim/wb/internal/atomicfile"
)

// SlurmOptions are the sbatch settings of an experiment's job array.
type SlurmOptions struct {
	Partition   string // --partition; empty: the cluster's default
	Time        string // --time limit per array task (one run, or several past SlurmMaxArray), e.g. "00:10:00"; empty: the default
	CPUsPerTask int    // --cpus-per-task; 0: 1
	// WB is the wb binary the array tasks run; empty: this executable.
	WB string
	// Sbatch is the sbatch command; empty: "sbatch" from $PATH.
	Sbatch string
	// Sinfo is the sinfo command, asked whether a partition's nodes are
	// all drained ("" for sinfo).
	Sinfo string
	// Squeue is the squeue command, asked whether the directory's last
	// submission is still queued or running; empty: "squeue" from $PATH
	// (not asked where there is none).
	Squeue string
	// Submit submits the scripts; otherwise they are only written.
	Submit bool
	// Force lets the experiment replace another config's results in its
	// directory (RunOptions.Force).
	Force bool
	// Resume keeps the runs already complete in the directory: the array
	// has tasks for the runs left alone, and they skip any run stored
	// complete by then (RunOptions.Resume).
	Resume bool
}

// SlurmJob is a submitted (or written) experiment.
type SlurmJob struct {
	Array, Collect string // job ids; empty when not submitted
	// ArrayScript is empty where no run is left to run (--resume): the
	// collect job is then all there is.
	ArrayScript, CollectScript string
	Runs                       int // the config's runs
	Kept                       int // of them, stored complete and kept (--resume)
	Tasks                      int // the array's tasks
	// Notes are what the submission found worth saying beside its ids
	// (nodes drained, a time limit the partition will not run).
	Notes []string
}

// slurmWB is the copy of wb an experiment's Slurm scripts run, in its
// slurm folder: a rebuilt wb (make build while the array queues) would
// otherwise run some tasks and the collect, whose merge refuses runs of
// another build.
const slurmWB = "wb"

// slurmDir holds an experiment's Slurm scripts and logs.
const slurmDir = "slurm"

// SubmitSlurm writes an sbatch job array with one task per run, each
// running `wb experiment CONFIG --run-index $SLURM_ARRAY_TASK_ID` into the
// results directory, and a collect job that runs once they all ended
// (afterany: it says which are missing) and merges them (`wb experiment collect DIR`), exactly as a local run
// does. With opts.Submit it submits both.
func SubmitSlurm(ctx context.Context, c *Config, configPath string, opts SlurmOptions) (*SlurmJob, error) {
	if err := c.Kind().Array(c); err != nil {
		return nil, fmt.Errorf("%s: %w", configPath, err)
	}
	if err := errors.Join(opts.validate(), c.checkTraces()); err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(c.OutDir())
	if err != nil {
		return nil, err
	}
	lk, err := lockDir(dir, false)
	if err != nil {
		return nil, err
	}
	defer lk.unlock()
	// an #SBATCH line is one line of words, and --output expands %
	// (Slurm ends a directive's value at #)
	if strings.ContainsAny(dir, " \t\n\r%\"'\\#") {
		return nil, fmt.Errorf("results directory %q: wb writes it into #SBATCH --output as one word, which cannot hold spaces, quotes, backslashes, # or %%; choose another --out", dir)
	}
	cfgAbs, err := filepath.Abs(configPath)
	if err != nil {
		return nil, err
	}
	wb := opts.WB
	if wb == "" {
		if wb, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	c.Out = dir
	sbatch := cmp.Or(opts.Sbatch, "sbatch")
	if opts.Submit {
		// before the directory is claimed (cleared, for a fresh run): a
		// submission that cannot go through loses nothing
		if _, err := exec.LookPath(sbatch); err != nil {
			return nil, fmt.Errorf("%s is not on PATH: load Slurm (module load slurm, or the cluster's way), or write the scripts with --dry-run", sbatch)
		}
	}
	// a dry run too: it would replace the copy of wb the queued tasks run
	if err := stillQueued(ctx, cmp.Or(opts.Squeue, "squeue"), dir); err != nil {
		return nil, err
	}
	runs := c.Runs()
	n := len(runs)
	job := &SlurmJob{
		Runs:          n,
		ArrayScript:   filepath.Join(dir, slurmDir, "array.sbatch"),
		CollectScript: filepath.Join(dir, slurmDir, "collect.sbatch"),
	}
	// the array's task ids: task i runs run i (and i + SlurmMaxArray, ...
	// past SlurmMaxArray runs); with --resume only the tasks of runs left
	tasks := min(n, SlurmMaxArray)
	ids := make([]int, 0, tasks)
	if opts.Resume {
		left, _ := c.runsLeft(dir, runs)
		job.Kept = n - len(left)
		for _, k := range left {
			ids = append(ids, k.Index%tasks)
		}
		slices.Sort(ids)
		ids = slices.Compact(ids)
	} else {
		for i := range tasks {
			ids = append(ids, i)
		}
	}
	job.Tasks = len(ids)
	// the bundled data's folder, found here, is the tasks' too: a site
	// that does not copy the environment into jobs (--export=NONE), or a
	// node whose working directory differs, finds it all the same
	dataDir, _ := datasets.DataDir()
	if dataDir != "" {
		// (a relative WB_DATA would be read from the results directory,
		// the tasks' working directory)
		if abs, err := filepath.Abs(dataDir); err == nil {
			dataDir = abs
		}
	}
	header := func(b *strings.Builder, name, output string) {
		fmt.Fprintf(b, "#!/bin/sh\n#SBATCH --job-name=%s\n#SBATCH --output=%s\n#SBATCH --chdir=%s\n", name, output, dir)
		if opts.Partition != "" {
			fmt.Fprintf(b, "#SBATCH --partition=%s\n", opts.Partition)
		}
		if opts.Time != "" {
			fmt.Fprintf(b, "#SBATCH --time=%s\n", opts.Time)
		}
	}
	env := func(b *strings.Builder) {
		if dataDir != "" {
			fmt.Fprintf(b, "export WB_DATA=%s\n", shq(dataDir))
		}
	}
	// the scripts run the copy of wb made at submission (slurmWB)
	wbRun := filepath.Join(dir, slurmDir, slurmWB)
	var a strings.Builder
	name := slurmName.ReplaceAllString(c.Name, "-")
	// each array's logs apart: a resubmission (--resume) keeps the last
	// one's failures
	header(&a, "wb-"+name, filepath.Join(dir, slurmDir, "run-%A_%a.out"))
	resume := "" // each task skips a run stored complete
	if opts.Resume {
		resume = " --resume"
	}
	fmt.Fprintf(&a, "#SBATCH --array=%s\n#SBATCH --cpus-per-task=%d\n", arraySpec(ids), max(opts.CPUsPerTask, 1))
	env(&a)
	// the tasks run the copy the results directory keeps of the config as
	// it claimed the directory, at submission or at the dry run (an edit
	// while they queue changes nothing)
	taskConfig := filepath.Join(dir, ConfigCopy)
	named := strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(cfgAbs) // (a comment is one line)
	if job.Kept > 0 {
		fmt.Fprintf(&a, "# --resume: %d of the %d runs were stored complete at submission; the tasks run the others.\n", job.Kept, n)
	}
	if tasks == n {
		fmt.Fprintf(&a, "# One task per run of %s (%d runs); wb writes run $SLURM_ARRAY_TASK_ID to %s/runs.\n", named, n, dir)
		fmt.Fprintf(&a, "exec %s experiment --quiet --jobs 1%s --out %s --run-index \"$SLURM_ARRAY_TASK_ID\" %s\n", shq(wbRun), resume, shq(dir), shq(taskConfig))
	} else {
		// Slurm's default MaxArraySize (1001) refuses larger arrays: each
		// task runs every SlurmMaxArray-th run from its own index
		fmt.Fprintf(&a, "# %d runs of %s over %d tasks (Slurm's default MaxArraySize is 1001): task i runs i, i + %d, ...; wb writes each to %s/runs.\n",
			n, named, tasks, tasks, dir)
		// a failed run does not stop the task's others; the task fails
		fmt.Fprintf(&a, "i=$SLURM_ARRAY_TASK_ID\nrc=0\nwhile [ \"$i\" -lt %d ]; do\n\t%s experiment --quiet --jobs 1%s --out %s --run-index \"$i\" %s || rc=1\n\ti=$((i + %d))\ndone\nexit $rc\n",
			n, shq(wbRun), resume, shq(dir), shq(taskConfig), tasks)
	}
	var col strings.Builder
	header(&col, "wb-"+name+"-collect", filepath.Join(dir, slurmDir, "collect.out"))
	env(&col)
	fmt.Fprintf(&col, "# Merges the runs into %s, as a local run does.\n", dir)
	fmt.Fprintf(&col, "exec %s experiment collect %s\n", shq(wbRun), shq(dir))
	// runSbatch runs sbatch with args, stdin its standard input where not
	// nil: its output, or an error with what it said on stderr
	runSbatch := func(stdin io.Reader, args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, sbatch, args...)
		var out, errb bytes.Buffer
		cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &out, &errb
		if err := cmd.Run(); err != nil {
			if msg := strings.TrimSpace(errb.String()); msg != "" {
				err = fmt.Errorf("%w: %s", err, msg)
			}
			return "", err
		}
		return out.String(), nil
	}
	if opts.Submit && job.Tasks > 0 {
		// sbatch --test-only checks the array's directives (a partition
		// that is not there, a time limit above the partition's) without
		// submitting: before the directory is claimed
		if _, err := runSbatch(strings.NewReader(a.String()), "--test-only"); err != nil {
			// every node of the partition drained or down: sbatch itself
			// queues the array, which waits for them (and --test-only says
			// so only as this)
			if !strings.Contains(err.Error(), "Requested node configuration is not available") || !allDrained(ctx, cmp.Or(opts.Sinfo, "sinfo"), opts.Partition) {
				return nil, fmt.Errorf("%s --test-only refuses the job array, so nothing was submitted and %s is as it was: %w", sbatch, dir, err)
			}
			sinfo := "sinfo"
			if opts.Partition != "" {
				sinfo += " -p " + opts.Partition
			}
			job.Notes = append(job.Notes, fmt.Sprintf("%s --test-only found no node to run the array now (%v): submitted all the same, it waits for nodes; %s says which are drained or down",
				sbatch, err, sinfo))
		}
	}
	// a dry run (opts.Submit false) writes its scripts and clears nothing:
	// the config's own results are kept, another's refused
	var said strings.Builder // what the claim says (an edited copy kept aside), among the job's notes
	if err := c.claimDir(dir, RunOptions{Force: opts.Force, Resume: opts.Resume, checkOnly: !opts.Submit, Progress: &said}); err != nil {
		return nil, err
	}
	for _, line := range strings.Split(strings.TrimSpace(said.String()), "\n") {
		if line != "" {
			job.Notes = append(job.Notes, strings.TrimPrefix(line, "note: "))
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, slurmDir), 0o755); err != nil {
		return nil, err
	}
	if err := copyExecutable(wb, wbRun); err != nil {
		return nil, fmt.Errorf("copying %s for the tasks to run: %w", wb, err)
	}
	scripts := []struct{ path, body string }{{job.ArrayScript, a.String()}, {job.CollectScript, col.String()}}
	if job.Tasks == 0 {
		// every run stored complete: an array script of no task left from
		// before would run them all again
		if err := os.Remove(job.ArrayScript); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		job.ArrayScript, scripts = "", scripts[1:]
	}
	for _, f := range scripts {
		if err := atomicfile.Write(f.path, func(w io.Writer) error { _, err := io.WriteString(w, f.body); return err }); err != nil {
			return nil, err
		}
	}
	if !opts.Submit {
		return job, nil
	}
	// the array's tasks share the directory, and may start as soon as
	// they are submitted: the lock is let go first
	lk.unlock()
	submit := func(args ...string) (string, error) {
		out, err := runSbatch(nil, append([]string{"--parsable"}, args...)...)
		if err != nil {
			return "", fmt.Errorf("%s %s: %w", sbatch, strings.Join(args, " "), err)
		}
		id, _, _ := strings.Cut(strings.TrimSpace(out), ";") // "id;cluster"
		if id == "" {
			return "", fmt.Errorf("%s printed no job id", sbatch)
		}
		return id, nil
	}
	// the ids, so that a second submission while these run is refused
	// (stillQueued)
	record := func() error {
		ids := strings.TrimSpace(job.Array + " " + job.Collect)
		err := atomicfile.Write(filepath.Join(dir, slurmDir, jobsFile), func(w io.Writer) error { _, err := io.WriteString(w, ids+"\n"); return err })
		if err != nil {
			return fmt.Errorf("jobs %s were submitted, but their ids could not be recorded (a second submission will not see them): %w", ids, err)
		}
		return nil
	}
	if job.Tasks == 0 {
		// nothing to run: the collect merges the runs stored
		if job.Collect, err = submit(job.CollectScript); err != nil {
			return nil, err
		}
		return job, record()
	}
	if job.Array, err = submit(job.ArrayScript); err != nil {
		return nil, err
	}
	// a time limit above the partition's leaves the array pending for
	// ever where Slurm does not enforce partition limits at submission (its
	// default): said now, where squeue gives the reason
	if out, err := exec.CommandContext(ctx, cmp.Or(opts.Squeue, "squeue"), "-h", "-o", "%r", "-j", job.Array).Output(); err == nil {
		for _, r := range []struct{ why, what string }{
			{"PartitionTimeLimit", "--time is above the partition's limit, so it will not start: scancel " + job.Array + " and submit with a shorter --time (sinfo -o '%P %l' gives the limits)"},
			{"ReqNodeNotAvail", "no node of the partition is available now; it starts when one is"},
		} {
			if strings.Contains(string(out), r.why) {
				job.Notes = append(job.Notes, fmt.Sprintf("the array is pending with reason %s: %s", r.why, r.what))
				break
			}
		}
	}
	// afterany: a task that failed or ran out of time must not leave the
	// collect pending for ever; collect names the runs missing
	if job.Collect, err = submit("--dependency=afterany:"+job.Array, job.CollectScript); err != nil {
		return job, errors.Join(fmt.Errorf("%w; the job array was submitted (job %s) and runs: merge its runs once it ends with wb experiment collect %s, "+
			"or cancel it (scancel %s)", err, job.Array, shq(dir), job.Array), record())
	}
	return job, record()
}

// allDrained says whether sinfo lists the partition's nodes (every
// partition's, for "") and every one is drained, down or failing: then
// sbatch queues an array --test-only refuses as "not available" (it waits
// for them); a request no node could ever hold is refused alike, and
// loses nothing.
func allDrained(ctx context.Context, sinfo, partition string) bool {
	args := []string{"-h", "-o", "%T"}
	if partition != "" {
		args = append(args, "-p", partition)
	}
	out, err := exec.CommandContext(ctx, sinfo, args...).Output()
	states := strings.Fields(string(out))
	if err != nil || len(states) == 0 {
		return false
	}
	for _, st := range states {
		st = strings.TrimRight(strings.ToLower(st), "*~#!%$@^-")
		if !strings.HasPrefix(st, "drain") && !strings.HasPrefix(st, "down") && !strings.HasPrefix(st, "fail") && st != "maint" && st != "reserved" {
			return false
		}
	}
	return true
}

// arraySpec writes sorted task ids as sbatch --array takes them, runs of
// consecutive ids as ranges: "0-3,7,9-10".
func arraySpec(ids []int) string {
	var b strings.Builder
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		if j > i {
			fmt.Fprintf(&b, "%d-%d", ids[i], ids[j])
		} else {
			fmt.Fprintf(&b, "%d", ids[i])
		}
		i = j + 1
	}
	return b.String()
}

// copyExecutable copies the program at src to dst, executable, atomically
// (nothing where src is dst: a wb run from the copy itself).
func copyExecutable(src, dst string) error {
	if sameFile(src, dst) {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := atomicfile.Write(dst, func(w io.Writer) error { _, err := io.Copy(w, in); return err }); err != nil {
		return err
	}
	return os.Chmod(dst, 0o755)
}

// jobsFile, in a results directory's slurm folder, holds the job ids of
// its last submission.
const jobsFile = "jobs.txt"

// stillQueued refuses a submission, or a local run, into dir while its
// last submission's jobs are queued or running (squeue lists them): it
// would clear or rewrite the runs and logs the tasks are writing, and both
// would merge. Where squeue is not on PATH, or cannot answer, it says
// nothing.
func stillQueued(ctx context.Context, squeue, dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, slurmDir, jobsFile))
	if err != nil {
		return nil
	}
	ids := strings.Fields(string(b))
	if len(ids) == 0 {
		return nil
	}
	if _, err := exec.LookPath(squeue); err != nil {
		return nil
	}
	out, err := exec.CommandContext(ctx, squeue, "-h", "-o", "%i", "-j", strings.Join(ids, ",")).Output()
	if err != nil {
		return nil // (squeue fails on ids it no longer knows)
	}
	if live := strings.Fields(string(out)); len(live) > 0 {
		return fmt.Errorf("%s: its last submission (jobs %s) is still queued or running; a new submission or a run here would clear or rewrite the runs its tasks are writing: "+
			"wait for it to end (squeue -j %s), or cancel it (scancel %s), then run again", dir, strings.Join(ids, ", "), strings.Join(ids, ","), strings.Join(ids, " "))
	}
	return nil
}

// SlurmMaxArray is the most array tasks wb asks Slurm for, within its
// default MaxArraySize of 1001 (task indices 0 to 1000); an experiment of
// more runs gives each task several.
const SlurmMaxArray = 1000

// shq quotes a word for sh.
func shq(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`;&|<>()*?[]#~!{}") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// slurmName matches what a job name leaves out of a config's name;
// slurmPartition and slurmTime what --partition and --time may be (a
// partition or a comma-separated list; minutes, MM:SS, HH:MM:SS, D-HH,
// D-HH:MM, D-HH:MM:SS).
var (
	slurmName      = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)
	slurmPartition = regexp.MustCompile(`^[A-Za-z0-9_.-]+(,[A-Za-z0-9_.-]+)*$`)
	slurmTime      = regexp.MustCompile(`^(\d+|\d+:\d{1,2}|\d+:\d{1,2}:\d{1,2}|\d+-\d{1,2}(:\d{1,2}){0,2})$`)
)

// validate checks the options an #SBATCH line carries: a partition (or a
// comma-separated list of them) and a time limit in one of Slurm's forms.
func (o SlurmOptions) validate() error {
	var errs []error
	if o.Partition != "" && !slurmPartition.MatchString(o.Partition) {
		errs = append(errs, fmt.Errorf("--partition %q: want a partition name (letters, digits, _ . -) or a comma-separated list", o.Partition))
	}
	if o.Time != "" && o.Time != "UNLIMITED" && o.Time != "INFINITE" && !slurmTime.MatchString(o.Time) {
		errs = append(errs, fmt.Errorf("--time %q: want a Slurm time limit: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS or UNLIMITED", o.Time))
	}
	return errors.Join(errs...)
}
