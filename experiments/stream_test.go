package experiments

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wb-sim/wb/datasets/workload"
	"github.com/wb-sim/wb/scheduler"
)

// simulateBoth runs opts loaded whole and streamed and fails unless the
// four files are the same bytes; it returns the streamed outcome.
func simulateBoth(t *testing.T, opts SimulateOptions, wantStream bool) *Outcome {
	t.Helper()
	dirs := map[Streaming]string{}
	var streamed *Outcome
	for _, mode := range []Streaming{StreamNever, StreamAlways} {
		o := opts
		o.Stream, o.Out = mode, t.TempDir()
		out, err := Simulate(context.Background(), o)
		if err != nil {
			t.Fatalf("%v: %v", mode, err)
		}
		dirs[mode] = o.Out
		if mode == StreamAlways {
			streamed = out
		}
	}
	if got := streamed.Result.Jobs == nil; got != wantStream {
		t.Fatalf("%s: streamed = %v, want %v", opts.Workload.Trace, got, wantStream)
	}
	for _, name := range []string{JobsFile, SummaryFile, SeriesFile, ScheduleFile} {
		a, err := os.ReadFile(filepath.Join(dirs[StreamNever], name))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dirs[StreamAlways], name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Fatalf("%s %+v: %s differs streamed (%d bytes) and loaded whole (%d bytes)", opts.Workload.Trace, opts.Spec, name, len(b), len(a))
		}
		if len(a) == 0 {
			t.Fatalf("%s is empty", name)
		}
	}
	// with no files to write (wb simulate without --out), the summary
	// printed is the same either way
	var summaries [2]bytes.Buffer
	for i, mode := range []Streaming{StreamNever, StreamAlways} {
		o := opts
		o.Stream, o.Out = mode, ""
		out, err := Simulate(context.Background(), o)
		if err != nil {
			t.Fatalf("%v, no files: %v", mode, err)
		}
		if mode == StreamAlways && (out.Result.Jobs == nil) != wantStream {
			t.Fatalf("%s, no files: streamed = %v, want %v", opts.Workload.Trace, out.Result.Jobs == nil, wantStream)
		}
		if err := PrintSummary(&summaries[i], out); err != nil {
			t.Fatal(err)
		}
	}
	if summaries[0].String() != summaries[1].String() || summaries[0].Len() == 0 {
		t.Fatalf("%s %+v, no files: summary loaded whole\n%s\nstreamed\n%s", opts.Workload.Trace, opts.Spec, &summaries[0], &summaries[1])
	}
	return streamed
}

// TestStreamSameFiles: streaming an SWF trace writes the same four files,
// byte for byte, as loading it whole, under every backfill rule, with
// estimates of every kind, a given machine size that drops jobs, another
// cluster, and malformed lines skipped.
func TestStreamSameFiles(t *testing.T) {
	t.Parallel() // (long: overlaps the package's other long tests on a second core)
	kth := data("swf/KTH-SP2-1996-2.1-cln.swf.gz")
	for _, bf := range []string{"none", "easy", "conservative"} {
		simulateBoth(t, SimulateOptions{Workload: workload.Options{Trace: kth}, Spec: scheduler.Spec{Backfill: bf, Estimate: "user"}}, true)
	}
	simulateBoth(t, SimulateOptions{Workload: workload.Options{Trace: kth}, Spec: scheduler.Spec{Backfill: "easy", Order: "sjf", Estimate: "history"}}, true)
	o := simulateBoth(t, SimulateOptions{Workload: workload.Options{Trace: kth, Procs: 64}, Spec: scheduler.Spec{Backfill: "easy"}}, true)
	if o.Workload.Dropped.Total() == 0 {
		t.Error("a 64-processor machine dropped no KTH job: the case tests nothing")
	}
	simulateBoth(t, SimulateOptions{Workload: workload.Options{Trace: kth, Cluster: "nodes:10x4:V100"}, Spec: scheduler.Spec{Backfill: "easy"}}, true)
	// sampled or re-timed jobs are loaded whole, which applies them
	simulateBoth(t, SimulateOptions{Workload: workload.Options{Trace: kth, Sample: 500, SampleSeed: 3}, Spec: scheduler.Spec{Backfill: "easy"}}, false)
	simulateBoth(t, SimulateOptions{Workload: workload.Options{Trace: kth, ArrivalRate: 20, ArrivalInterval: 60}, Spec: scheduler.Spec{Backfill: "easy"}}, false)

	// malformed lines among the records, skipped; with comments among
	// them too, found only once streaming has begun, the trace is loaded
	// whole (a schedule's header is written first), with the same files
	dir := t.TempDir()
	var b strings.Builder
	for _, comments := range []bool{false, true} {
		p := filepath.Join(dir, fmt.Sprintf("bad-%v.swf", comments))
		b.Reset()
		b.WriteString("; MaxProcs: 8\n; a comment\n")
		for i := 1; i <= 300; i++ {
			fmt.Fprintf(&b, "%d %d -1 %d %d -1 -1 %d %d -1 1 %d -1 -1 -1 -1 -1 -1\n", i, 7*i, 5+i%50, 1+i%8, 1+i%8, 30+i%70, i%5)
			if i%97 == 0 {
				b.WriteString("this line is not a record\n")
				if comments {
					b.WriteString("; a comment among the records\n")
				}
			}
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		o = simulateBoth(t, SimulateOptions{Workload: workload.Options{Trace: p, SkipInvalid: true}, Spec: scheduler.Spec{Backfill: "conservative"}}, !comments)
		if o.Workload.Skipped != 3 {
			t.Errorf("skipped %d lines, want 3", o.Workload.Skipped)
		}
		if _, err := Simulate(context.Background(), SimulateOptions{Workload: workload.Options{Trace: p}, Stream: StreamAlways, Out: t.TempDir()}); err == nil || !strings.Contains(err.Error(), p+":100: field 1") {
			t.Errorf("a malformed line without --skip-invalid: %v", err)
		}
	}

	// job numbers out of order: loaded whole, with the same files
	q := filepath.Join(dir, "unsorted.swf")
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	lines[5], lines[6] = lines[6], lines[5]
	if err := os.WriteFile(q, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	simulateBoth(t, SimulateOptions{Workload: workload.Options{Trace: q, SkipInvalid: true}, Spec: scheduler.Spec{Backfill: "easy"}}, false)
}

// TestStreamLeavesNothingOnError: a streamed run stopped by a cancelled
// context leaves the folder's earlier results (an earlier simulation's) as
// they were and no temporary file.
func TestStreamLeavesNothingOnError(t *testing.T) {
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, JobsFile), []byte("earlier\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := markSimulateDir(out, "earlier.swf"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Simulate(ctx, SimulateOptions{Workload: workload.Options{Trace: data("swf/KTH-SP2-1996-2.1-cln.swf.gz")},
		Spec: scheduler.Spec{Backfill: "easy"}, Out: out, Stream: StreamAlways})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	// and on nodes under FGD, which reads the stream whole before it
	// simulates (it ran to the end, and wrote its files)
	_, err = Simulate(ctx, SimulateOptions{Workload: workload.Options{Trace: data("swf/KTH-SP2-1996-2.1-cln.swf.gz"), Cluster: "nodes:4x1:V100:25:512"},
		Spec: scheduler.Spec{Backfill: "conservative", Placement: "fgd"}, Out: out, Stream: StreamAlways})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("on nodes under FGD: error %v, want context.Canceled", err)
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 2 {
		t.Fatalf("%d entries in the folder, want only the earlier jobs.csv and its marker", len(entries))
	}
	if b, _ := os.ReadFile(filepath.Join(out, JobsFile)); string(b) != "earlier\n" {
		t.Fatalf("jobs.csv now reads %q", b)
	}
	// a folder the run made (and those above it) goes again when nothing
	// was committed; one that was there stays (an empty one was left: a
	// reviewer's find)
	made := filepath.Join(t.TempDir(), "a", "b")
	_, err = Simulate(ctx, SimulateOptions{Workload: workload.Options{Trace: data("swf/KTH-SP2-1996-2.1-cln.swf.gz")},
		Spec: scheduler.Spec{Backfill: "easy"}, Out: made, Stream: StreamAlways})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if _, err := os.Stat(filepath.Dir(made)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the folders the run made are still there (%v)", err)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("the folder that was there went: %v", err)
	}
}

// A trace in a pipe can be read only once: it is loaded whole, even when
// streaming is asked for (`wb simulate` asks), with the result of the same
// trace in a file.
func TestStreamPipeLoads(t *testing.T) {
	text := []byte("; MaxProcs: 8\n1 0 -1 10 4 -1 -1 4 20 -1 1 1 -1 -1 -1 -1 -1 -1\n" +
		"2 5 -1 30 8 -1 -1 8 40 -1 1 2 -1 -1 -1 -1 -1 -1\n3 6 -1 5 2 -1 -1 2 5 -1 1 1 -1 -1 -1 -1 -1 -1\n")
	dir := t.TempDir()
	file, fifo := filepath.Join(dir, "t.swf"), filepath.Join(dir, "pipe.swf")
	if err := os.WriteFile(file, text, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	go func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.Write(text)
			f.Close()
		}
	}()
	var outs [2]bytes.Buffer
	for i, p := range []string{file, fifo} {
		o, err := Simulate(context.Background(), SimulateOptions{Workload: workload.Options{Trace: "swf:" + p}, Spec: scheduler.Spec{Backfill: "easy"}, Stream: StreamAlways})
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if (o.Result.Jobs == nil) != (i == 0) {
			t.Errorf("%s: streamed = %v", p, o.Result.Jobs == nil)
		}
		if err := PrintSummary(&outs[i], o); err != nil {
			t.Fatal(err)
		}
	}
	a, b := strings.ReplaceAll(outs[0].String(), "t.swf", "X"), strings.ReplaceAll(outs[1].String(), "pipe.swf", "X")
	if a != b || len(a) == 0 {
		t.Errorf("file:\n%s\npipe:\n%s", a, b)
	}
}

// TestStreamFallsBack: a trace read once as it is simulated that turns
// out, late, not to stream as it would load (job numbers or submit times
// out of order, a comment after the records) is simulated again loaded
// whole, with the same files as loading it whole from the start; one whose
// every job is dropped fails as loading it whole does.
func TestStreamFallsBack(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, edit func(lines []string) []string) string {
		lines := []string{"; MaxProcs: 8"}
		for i := 1; i <= 400; i++ {
			lines = append(lines, fmt.Sprintf("%d %d -1 %d %d -1 -1 %d %d -1 1 %d -1 -1 -1 -1 -1 -1", i, 7*i, 5+i%50, 1+i%8, 1+i%8, 30+i%70, i%5))
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Join(edit(lines), "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for name, edit := range map[string]func([]string) []string{
		"ids.swf": func(l []string) []string { l[390], l[391] = l[391], l[390]; return l },
		"submit.swf": func(l []string) []string {
			l[395] = strings.Replace(l[395], " 2765 ", " 10 ", 1) // job 395 submitted at 10
			return l
		},
		"comment.swf": func(l []string) []string { return append(l, "; a comment after the records") },
	} {
		p := write(name, edit)
		for _, bf := range []string{"easy", "conservative"} {
			simulateBoth(t, SimulateOptions{Workload: workload.Options{Trace: p}, Spec: scheduler.Spec{Backfill: bf}}, false)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "submit.swf")); !strings.Contains(string(b), "\n395 10 ") {
		t.Fatal("the submit case edits nothing")
	}

	// every run time unknown: every job dropped
	p := write("dropped.swf", func(l []string) []string {
		for k := 1; k < len(l); k++ {
			f := strings.Fields(l[k])
			f[3] = "-1"
			l[k] = strings.Join(f, " ")
		}
		return l
	})
	var errs [2]error
	for i, mode := range []Streaming{StreamNever, StreamAlways} {
		_, errs[i] = Simulate(context.Background(), SimulateOptions{Workload: workload.Options{Trace: p}, Spec: scheduler.Spec{Backfill: "easy"}, Stream: mode, Out: t.TempDir()})
	}
	if errs[0] == nil || errs[1] == nil || errs[0].Error() != errs[1].Error() {
		t.Errorf("every job dropped: loaded whole %v, streamed %v", errs[0], errs[1])
	}
}
