package workload

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/wb-sim/wb/scheduler"
)

// TestStreamedJobs: a streamed trace gives the jobs Load gives, in order,
// across many of its reader's batches; each job's record comes back in
// that order, and only then; dropped and skipped counts agree at the end.
func TestStreamedJobs(t *testing.T) {
	opts := Options{Trace: data("swf/KTH-SP2-1996-2.1-cln.swf.gz"), Procs: 64} // a narrow machine drops jobs
	w, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) < 4*streamBatch || w.Dropped.Total() == 0 {
		t.Fatalf("%d jobs, %d dropped: the case tests no batches or no drops", len(w.Jobs), w.Dropped.Total())
	}
	for _, records := range []bool{false, true} {
		st, err := OpenStream(opts, records)
		if err != nil || st == nil {
			t.Fatalf("OpenStream: %v, %v", st, err)
		}
		for i := range w.Jobs {
			j, err := st.Next()
			if err != nil {
				t.Fatalf("job %d: %v", i, err)
			}
			if !reflect.DeepEqual(*j, w.Jobs[i]) {
				t.Fatalf("job %d streamed %+v, loaded %+v", i, *j, w.Jobs[i])
			}
			if !records {
				continue
			}
			if i%2 == 1 { // records come back late, and in order
				for _, k := range []int{i - 1, i} {
					r, err := st.Record(w.Jobs[k].ID)
					if err != nil || r.JobID != w.Jobs[k].ID {
						t.Fatalf("record of job %d: %v, %v", w.Jobs[k].ID, r, err)
					}
				}
			}
			if _, err := st.Record(w.Jobs[i].ID + 1); err == nil {
				t.Fatalf("job %d's record given back out of order", w.Jobs[i].ID+1)
			}
		}
		for range 2 {
			if _, err := st.Next(); err != io.EOF {
				t.Fatalf("after the last job: %v, want io.EOF", err)
			}
		}
		if !reflect.DeepEqual(st.Dropped, w.Dropped) || st.Skipped != w.Skipped {
			t.Errorf("dropped %v, skipped %d; loaded whole %v, %d", st.Dropped, st.Skipped, w.Dropped, w.Skipped)
		}
		if err := st.Close(); err != nil {
			t.Error(err)
		}
		if err := st.Close(); !errors.Is(err, os.ErrClosed) {
			t.Errorf("closed twice: %v", err)
		}
	}
}

// TestStreamedClose: a stream closed part of the way through stops its
// reader, which waits ahead of the simulation, and leaves no goroutine.
func TestStreamedClose(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 5 {
		st, err := OpenStream(Options{Trace: data("swf/KTH-SP2-1996-2.1-cln.swf.gz")}, true)
		if err != nil || st == nil {
			t.Fatalf("OpenStream: %v, %v", st, err)
		}
		for range 10 {
			if _, err := st.Next(); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Next(); !errors.Is(err, os.ErrClosed) {
			t.Fatalf("Next after Close: %v, want os.ErrClosed", err)
		}
	}
	// the decompressor's goroutine ends on its own once the file closes
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after closing, %d before", n, before)
	}
}

// FuzzStreamed: a trace that streams to its end gives the jobs, drops and
// skipped lines that loading it whole gives, and a malformed line the
// same error; any other way it fails is ErrNotStreamable (loaded whole,
// then, by the caller).
func FuzzStreamed(f *testing.F) {
	f.Add([]byte("; MaxProcs: 8\n1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 -1 1 1 -1 -1\n2 5 -1 3 9 -1 -1 9 5 -1 1 2 1 -1 1 1 -1 -1\n3 5 -1 0 1 -1 -1 1 -1 -1 1 1 1 -1 1 1 -1 -1\n"), false)
	f.Add([]byte("; MaxProcs: 4\n1 0 -1 10 2 -1 -1 2 20 -1 1 1 1 -1 1 1 -1 -1\nnot a record\n; a comment\n2 1 -1 10 2 -1 -1 2 20 -1 1 1 1 -1 1 1 -1 -1\n"), true)
	f.Add([]byte("; MaxNodes: 2\n2 0 -1 10 2 -1 -1 2 20 -1 1 1 1 -1 1 1 -1 -1\n1 3 -1 10 1 -1 -1 1 20 -1 1 1 1 -1 1 1 -1 -1\n"), false)
	f.Add([]byte("; MaxProcs: 4\n1 9 -1 10 2 -1 -1 2 20 -1 1 1 1 -1 1 1 -1 -1\n2 1 -1 10 2 -1 -1 -1 20 -1 1 1 1 -1 1 1 -1 -1\n3 2 -1 -4 2 -1 -1 2 20 -1 1 1 1 -1 1 1 -1 -1\n"), true)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, in []byte, skip bool) {
		path := filepath.Join(dir, "fuzz.swf")
		if err := os.WriteFile(path, in, 0o644); err != nil {
			t.Fatal(err)
		}
		opts := Options{Trace: "swf:" + path, SkipInvalid: skip}
		w, werr := Load(opts)
		st, err := OpenStream(opts, true)
		if err != nil || st == nil {
			return // Load reads it, or says what is wrong
		}
		defer st.Close()
		var jobs []scheduler.Job
		var serr error
		for {
			j, err := st.Next()
			if err != nil {
				serr = err
				break
			}
			jobs = append(jobs, *j)
			if r, err := st.Record(j.ID); err != nil || r.JobID != j.ID {
				t.Fatalf("record of job %d: %v, %v", j.ID, r, err)
			}
		}
		switch {
		case errors.Is(serr, ErrNotStreamable):
		case serr != io.EOF:
			if werr == nil || werr.Error() != serr.Error() {
				t.Fatalf("streamed: %v; loaded whole: %v", serr, werr)
			}
		case werr != nil:
			t.Fatalf("streamed to its end; loaded whole: %v", werr)
		case !reflect.DeepEqual(jobs, w.Jobs) || !reflect.DeepEqual(st.Dropped, w.Dropped) || st.Skipped != w.Skipped:
			t.Fatalf("streamed %d jobs, dropped %v, skipped %d; loaded whole %d, %v, %d", len(jobs), st.Dropped, st.Skipped, len(w.Jobs), w.Dropped, w.Skipped)
		}
	})
}
