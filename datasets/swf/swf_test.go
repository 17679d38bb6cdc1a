package swf

import (
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	goldenfile "github.com/wb-sim/wb/internal/golden"

	"github.com/wb-sim/wb/datasets"
	"github.com/wb-sim/wb/datasets/internal/gzfile"
	"github.com/wb-sim/wb/scheduler"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

const (
	kth   = "../data/swf/KTH-SP2-1996-2.1-cln.swf.gz"
	hpc2n = "../data/swf/HPC2N-2002-2.1-cln.swf.gz"
	small = "testdata/small.swf"
)

// The counts come from the files themselves (zcat | grep -vc '^;') and
// their headers; the first records are the files' first job lines.
func TestReadBundled(t *testing.T) {
	tests := []struct {
		name               string
		path               string
		records            int
		maxProcs, maxNodes int64
		headerLines        int
		first              Record
	}{
		{
			name: "KTH-SP2", path: kth, records: 27992, maxProcs: 100, maxNodes: 100, headerLines: 24,
			first: Record{JobID: 15, Submit: 599850, Wait: 192180, Run: 3477, AllocProcs: 4, AvgCPU: -1,
				UsedMem: -1, ReqProcs: 4, ReqTime: 53940, ReqMem: -1, Status: 1, UserID: 12, GroupID: 12,
				Executable: -1, Queue: -1, Partition: -1, PrecedingJob: -1, ThinkTime: -1},
		},
		{
			name: "HPC2N", path: hpc2n, records: 202876, maxProcs: 240, maxNodes: 240, headerLines: 29,
			first: Record{JobID: 1, Submit: 0, Wait: 308434, Run: 31405, AllocProcs: 30, AvgCPU: 31405,
				UsedMem: -1, ReqProcs: 30, ReqTime: 37980, ReqMem: -1, Status: 1, UserID: 1, GroupID: 1,
				Executable: -1, Queue: -1, Partition: 1, PrecedingJob: -1, ThinkTime: -1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := ReadFile(tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(tr.Records); got != tt.records {
				t.Errorf("records = %d, want %d", got, tt.records)
			}
			if tr.MaxProcs != tt.maxProcs || tr.MaxNodes != tt.maxNodes {
				t.Errorf("MaxProcs, MaxNodes = %d, %d, want %d, %d", tr.MaxProcs, tr.MaxNodes, tt.maxProcs, tt.maxNodes)
			}
			if got := len(tr.Header); got != tt.headerLines {
				t.Errorf("header lines = %d, want %d", got, tt.headerLines)
			}
			if tr.Records[0] != tt.first {
				t.Errorf("first record = %+v, want %+v", tr.Records[0], tt.first)
			}
			// Every job of both cleaned logs fits its machine and has a run
			// time: nothing is dropped.
			jobs, dropped, err := Jobs(tr, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(jobs) != tt.records || dropped.Total() != 0 {
				t.Errorf("Jobs: %d jobs, dropped %v; want %d, none", len(jobs), dropped, tt.records)
			}
			for i := range jobs {
				if err := jobs[i].Validate(); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func TestReadSmall(t *testing.T) {
	tr, err := ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	wantHeader := []string{"; Version: 2.2", "; Computer: test machine", "; MaxNodes: 8", "; MaxProcs: 16", ";"}
	if !reflect.DeepEqual(tr.Header, wantHeader) {
		t.Errorf("header = %q, want %q", tr.Header, wantHeader)
	}
	if tr.MaxProcs != 16 || tr.MaxNodes != 8 {
		t.Errorf("MaxProcs, MaxNodes = %d, %d, want 16, 8", tr.MaxProcs, tr.MaxNodes)
	}
	if len(tr.Records) != 6 {
		t.Fatalf("records = %d, want 6", len(tr.Records))
	}
	// Field 6 is a number: decimals and exponents are read exactly.
	for i, want := range map[int]float64{0: 98.5, 1: -1, 5: 10} {
		if got := tr.Records[i].AvgCPU; got != want {
			t.Errorf("record %d: AvgCPU = %v, want %v", i, got, want)
		}
	}
	// Tabs separate fields as spaces do.
	if r := tr.Records[3]; r.JobID != 4 || r.Status != 5 || r.UserID != 5 {
		t.Errorf("tab-separated record = %+v", r)
	}
}

func TestReadCRLF(t *testing.T) {
	tr, err := ReadFile("testdata/crlf.swf")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Header[0] != "; MaxProcs: 4" || tr.MaxProcs != 4 || len(tr.Records) != 1 || tr.Records[0].ThinkTime != -1 {
		t.Errorf("got %+v", tr)
	}
}

// TestReadLoneCR: a file whose lines end in CR alone is one line to the
// reader; it is refused as such, even with SkipInvalid, by Read and the
// Scanner alike (it was read as one header comment holding every record:
// "no jobs to simulate").
func TestReadLoneCR(t *testing.T) {
	const want = "t.swf:1: a carriage return inside the line"
	for _, in := range []string{
		"; MaxProcs: 10\r" + line18 + "\r" + line18 + "\r",
		line18 + "\r" + line18 + "\n",
		// a trace of any size is one line longer than MaxLine: said as
		// lone CRs, not as a line too long (the reviewer's 5,000 records)
		"; MaxProcs: 10\r" + strings.Repeat(line18+"\r", 5000),
	} {
		for _, skip := range []bool{false, true} {
			o := ReadOptions{SkipInvalid: skip}
			if _, err := o.Read(strings.NewReader(in), "t.swf"); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Read %q, skip %v: %v, want %q", in[:min(len(in), 80)], skip, err, want)
			}
			sc := o.NewScanner(strings.NewReader(in), "t.swf")
			for sc.Scan() {
			}
			if err := sc.Err(); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Scanner %q, skip %v: %v, want %q", in[:min(len(in), 80)], skip, err, want)
			}
		}
	}
	// the conversion said keeps a compressed trace compressed
	if _, err := Read(strings.NewReader(line18+"\r"+line18+"\n"), "t.swf.gz"); err == nil || !strings.Contains(err.Error(), "zcat FILE | tr '\\r' '\\n' | gzip > FILE.lf.gz") {
		t.Errorf("a .gz trace: %v", err)
	}
}

const line18 = "1 0 1 2 1 -1 -1 1 5 -1 1 1 1 -1 -1 -1 -1 -1"

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"too few fields", "; MaxProcs: 4\n1 0 1 2 1 -1 -1 1 5\n", "t.swf:2: field 10: missing: the line has 9 of 18 fields"},
		{"too many fields", line18 + " 7\n", `t.swf:1: field 19: unexpected "7": a record has 18 fields`},
		{"not a number", ";\n;\n" + strings.Replace(line18, " 5 ", " abc ", 1) + "\n", `t.swf:3: field 9: "abc" is not an integer`},
		{"decimal in a count field", strings.Replace(line18, "1 0 1 2 1", "1 0 1 2 1.5", 1), `t.swf:1: field 5: "1.5" is not an integer`},
		{"NaN in a time field", strings.Replace(line18, "1 0 1 2", "1 0 1 NaN", 1), `t.swf:1: field 4: "NaN" is not an integer`},
		{"bad AvgCPU", strings.Replace(line18, "1 -1 -1 1 5", "1 x -1 1 5", 1), `t.swf:1: field 6: "x" is not a finite number`},
		{"NaN AvgCPU", strings.Replace(line18, "1 -1 -1 1 5", "1 NaN -1 1 5", 1), `t.swf:1: field 6: "NaN" is not a finite number`},
		{"overflow", "99999999999999999999" + line18[1:], `t.swf:1: field 1: "99999999999999999999" is out of range`},
		{"lone sign", "- " + line18[2:], `t.swf:1: field 1: "-" is not an integer`},
		{"bad MaxProcs", "; MaxProcs: many\n", `t.swf:1: header MaxProcs: "many" is not an integer`},
		{"empty MaxNodes", ";\n; MaxNodes:\n", `t.swf:2: header MaxNodes: no value`},
		// the format's only negative value is -1 and its statuses are -1 to 5:
		// another is refused, not read as unknown or as a job that ran
		{"negative procs", strings.Replace(line18, "1 0 1 2 1", "1 0 1 2 -3", 1), `t.swf:1: field 5: -3: the format's only negative value is -1 (unknown)`},
		{"negative decimal run", strings.Replace(line18, "1 0 1 2", "1 0 1 -0.4", 1), `t.swf:1: field 4: "-0.4" is a negative time: the format's only negative value is -1 (unknown)`},
		{"undefined status", strings.Replace(line18, "5 -1 1 1 1", "5 -1 9 1 1", 1), `t.swf:1: field 11: status 9: the format's are 0 (failed), 1 (completed), 2 to 4 (partial executions), 5 (cancelled) and -1 (unknown)`},
		{"huge decimal time", strings.Replace(line18, "1 0 1 2", "1 0 1 1e300", 1), `t.swf:1: field 4: "1e300" s is past the simulator's horizon of 1125899906842624 s (2^50)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tt.in), "t.swf")
			var serr *SyntaxError
			if !errors.As(err, &serr) {
				t.Fatalf("error %v is not a *SyntaxError", err)
			}
			if err.Error() != tt.want {
				t.Errorf("error = %q, want %q", err, tt.want)
			}
		})
	}
}

func TestSkipInvalid(t *testing.T) {
	in := "; MaxProcs: 4\n" + line18 + "\n1 2 3\n" + strings.Replace(line18, "1 0", "2 x", 1) + "\n" + strings.Replace(line18, "1 0", "3 0", 1) + "\n"
	tr, err := ReadOptions{SkipInvalid: true}.Read(strings.NewReader(in), "t.swf")
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Records) != 2 || tr.Skipped != 2 || len(tr.SkipErrors) != 2 {
		t.Fatalf("records %d, skipped %d (%v); want 2, 2", len(tr.Records), tr.Skipped, tr.SkipErrors)
	}
	if got, want := tr.SkipErrors[1].Error(), `t.swf:4: field 2: "x" is not an integer`; got != want {
		t.Errorf("second skip error = %q, want %q", got, want)
	}
	// a header that is not read is an error still: the machine rests on it
	bad := strings.Replace(in, "MaxProcs: 4", "MaxProcs: abc", 1)
	want := `t.swf:1: header MaxProcs: "abc" is not an integer`
	if _, err := (ReadOptions{SkipInvalid: true}).Read(strings.NewReader(bad), "t.swf"); err == nil || err.Error() != want {
		t.Errorf("a bad header, skipping invalid records: %v, want %q", err, want)
	}
	sc := ReadOptions{SkipInvalid: true}.NewScanner(strings.NewReader(bad), "t.swf")
	for sc.Scan() {
	}
	if err := sc.Err(); err == nil || err.Error() != want {
		t.Errorf("a bad header, scanned skipping invalid records: %v, want %q", err, want)
	}
}

// Gzip is recognised by its magic bytes, whatever the file's name.
func TestReadGzipByContent(t *testing.T) {
	plain, err := os.ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write(plain)
	zw.Close()
	dir := t.TempDir()
	files := map[string][]byte{
		"zipped.swf":   zipped.Bytes(),
		"plain.swf.gz": plain,
	}
	want, err := Read(bytes.NewReader(plain), "x")
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got.Records, want.Records) || !reflect.DeepEqual(got.Header, want.Header) {
			t.Errorf("%s: read differently from the plain text", name)
		}
	}
	// A truncated gzip stream is an error naming the line reached.
	_, err = Read(bytes.NewReader(zipped.Bytes()[:zipped.Len()-10]), "cut.swf")
	if err == nil || !strings.HasPrefix(err.Error(), "cut.swf:") {
		t.Errorf("truncated gzip: error %v", err)
	}
}

func TestJobs(t *testing.T) {
	tr, err := ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	task := func(procs int) []scheduler.Task {
		return []scheduler.Task{{Replicas: 1, Request: scheduler.Request{CPU: scheduler.MilliCPU(procs) * scheduler.MilliPerCore}}}
	}
	tests := []struct {
		name        string
		machine     int
		maxProcs    int64
		maxNodes    int64
		wantIDs     []int64
		wantDropped datasets.Dropped
		wantErr     string
	}{
		{
			name: "header MaxProcs", machine: 0, maxProcs: 16, maxNodes: 8,
			wantIDs:     []int64{1, 6, 2},
			wantDropped: datasets.Dropped{{Reason: DropTooWide, Count: 1, First: "job 3"}, {Reason: DropNegativeRun, Count: 1, First: "job 4"}, {Reason: DropNoProcs, Count: 1, First: "job 5"}},
		},
		{
			name: "header MaxNodes", machine: 0, maxNodes: 8,
			wantIDs:     []int64{1, 6, 2},
			wantDropped: datasets.Dropped{{Reason: DropTooWide, Count: 1, First: "job 3"}, {Reason: DropNegativeRun, Count: 1, First: "job 4"}, {Reason: DropNoProcs, Count: 1, First: "job 5"}},
		},
		{
			// Job 1 asks for 4 processors, job 6 for 8 (field 8 is 0, so
			// field 5).
			name: "small machine", machine: 3,
			wantIDs:     []int64{2},
			wantDropped: datasets.Dropped{{Reason: DropTooWide, Count: 3, First: "job 1"}, {Reason: DropNegativeRun, Count: 1, First: "job 4"}, {Reason: DropNoProcs, Count: 1, First: "job 5"}},
		},
		{
			name: "wide machine", machine: 64,
			wantIDs:     []int64{1, 6, 2, 3},
			wantDropped: datasets.Dropped{{Reason: DropNegativeRun, Count: 1, First: "job 4"}, {Reason: DropNoProcs, Count: 1, First: "job 5"}},
		},
		{name: "no machine", wantErr: "testdata/small.swf: header has neither MaxProcs nor MaxNodes; give the machine's processors"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := *tr
			tr.MaxProcs, tr.MaxNodes = tt.maxProcs, tt.maxNodes
			jobs, dropped, err := Jobs(&tr, tt.machine)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ids []int64
			for _, j := range jobs {
				ids = append(ids, j.ID)
			}
			if !reflect.DeepEqual(ids, tt.wantIDs) {
				t.Errorf("job ids = %v, want %v", ids, tt.wantIDs)
			}
			if !reflect.DeepEqual(dropped, tt.wantDropped) {
				t.Errorf("dropped = %v, want %v", dropped, tt.wantDropped)
			}
		})
	}

	// The conversion of each field, on the header's machine.
	jobs, _, err := Jobs(tr, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []scheduler.Job{
		{ID: 1, User: "3", Submit: 0, Run: 100, UserEstimate: 200, Tasks: task(4)},
		{ID: 6, User: "6", Submit: 1, Run: 20, UserEstimate: 100, Tasks: task(8)},
		{ID: 2, User: "4", Submit: 5, Run: 0, UserEstimate: 0, Tasks: task(2)},
	}
	if !reflect.DeepEqual(jobs, want) {
		t.Errorf("jobs =\n%+v\nwant\n%+v", jobs, want)
	}
}

// TestJobsInParts: converting the records in parts, each in its goroutine
// (as Jobs does for large traces), gives the jobs and drop counts, in the
// order first met, of one pass.
func TestJobsInParts(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	tr := &Trace{Name: "t.swf", MaxProcs: 64}
	for i := range 5000 {
		r := unknownRecord()
		r.JobID, r.Submit = int64(i+1), int64(i/3)
		r.Run, r.ReqProcs, r.ReqTime = rng.Int64N(1000), rng.Int64N(80), rng.Int64N(2000)-100
		r.UserID = rng.Int64N(40)
		switch rng.IntN(50) {
		case 0:
			r.Run = -1
		case 1:
			r.Submit = -1
		}
		tr.Records = append(tr.Records, r)
	}
	want, wantDropped, err := jobsInParts(tr, 64, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 3000 || len(wantDropped) != 4 {
		t.Fatalf("%d jobs, dropped %v: want every kind of record", len(want), wantDropped)
	}
	for _, parts := range []int{2, 3, 8} {
		got, dropped, err := jobsInParts(tr, 64, parts)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(dropped, wantDropped) {
			t.Errorf("%d parts: %d jobs, dropped %v; one pass: %d, %v", parts, len(got), dropped, len(want), wantDropped)
		}
	}
}

func TestJobsDuplicateIDs(t *testing.T) {
	// a comment and a blank line among the records: the message names the
	// file's lines, not the records' numbers
	in := "; MaxProcs: 4\n" + line18 + "\n; a note\n\n" + line18 + "\n"
	tr, err := Read(strings.NewReader(in), "dup.swf")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = Jobs(tr, 0)
	if want := "dup.swf:5: job 1: duplicated (first at line 2); job numbers must be unique: remove the repeated line or renumber field 1 (--skip-invalid skips malformed lines, not this: which of the two is the job is not for wb to guess)"; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
}

// TestTraceLine checks Trace.Line against the file's own lines, on a trace
// long enough to be read in several chunks, with comments, blank lines and
// skipped lines among its records.
func TestTraceLine(t *testing.T) {
	var b strings.Builder
	b.WriteString("; MaxProcs: 64\n;\n")
	var want []int // the line of each record
	line := 2
	for i := 1; i <= 3*chunkSize+7; i++ {
		switch {
		case i%997 == 0:
			b.WriteString("; between\n")
			line++
		case i%1499 == 0:
			b.WriteString("\n\n")
			line += 2
		case i%2003 == 0:
			b.WriteString("1 2 3\n") // too few fields: skipped
			line++
		}
		fmt.Fprintf(&b, "%d %d 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n", i, i)
		line++
		want = append(want, line)
	}
	tr, err := ReadOptions{SkipInvalid: true}.Read(strings.NewReader(b.String()), "l.swf")
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Records) != len(want) {
		t.Fatalf("%d records, want %d", len(tr.Records), len(want))
	}
	for i, w := range want {
		if got := tr.Line(i); got != w {
			t.Fatalf("record %d (job %d): line %d, want %d", i, tr.Records[i].JobID, got, w)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for _, path := range []string{small, "testdata/crlf.swf", kth} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want, err := ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := Write(&buf, want); err != nil {
				t.Fatal(err)
			}
			got, err := Read(&buf, want.Name)
			if err != nil {
				t.Fatal(err)
			}
			if !sameContent(got, want) {
				t.Errorf("write then read changed the trace")
			}
		})
	}
}

func TestWriteGolden(t *testing.T) {
	tr, err := ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, tr); err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/small.golden", buf.Bytes())
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	goldenfile.Check(t, path, got, *update)
}

func TestWriteRefuses(t *testing.T) {
	tests := []struct {
		name string
		tr   Trace
		want string
	}{
		{"header not a comment", Trace{Header: []string{"MaxProcs: 3"}}, `swf: header line 1 is not a comment line: "MaxProcs: 3"`},
		{"header with newline", Trace{Header: []string{"; a\nb"}}, `swf: header line 1 is not a comment line: "; a\nb"`},
		{"NaN", Trace{Records: []Record{{JobID: 7, AvgCPU: nan()}}}, "swf: job 7: average CPU time NaN is not finite"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Write(&bytes.Buffer{}, &tt.tr)
			if err == nil || err.Error() != tt.want {
				t.Errorf("error = %v, want %q", err, tt.want)
			}
		})
	}
}

func nan() float64 {
	zero := 0.0
	return zero / zero
}

func TestWriteAddsMaxProcs(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, &Trace{Header: []string{"; Note: x"}, MaxProcs: 12}); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), "; Note: x\n; MaxProcs: 12\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestFromSchedule(t *testing.T) {
	orig, err := ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	byID := orig.ByID()
	sched := []ScheduledJob{
		{ID: 1, Submit: 0, Start: 7, End: 107, Procs: 4, Original: byID[1]},
		{ID: 99, Submit: 3, Start: 3, End: 10, Procs: 2},
	}
	tr, err := FromSchedule(orig.Header, sched)
	if err != nil {
		t.Fatal(err)
	}
	if tr.MaxProcs != 16 || tr.MaxNodes != 8 {
		t.Errorf("MaxProcs, MaxNodes = %d, %d, want 16, 8", tr.MaxProcs, tr.MaxNodes)
	}
	want1 := *byID[1]
	want1.Wait, want1.Run = 7, 100
	want2 := Record{JobID: 99, Submit: 3, Wait: 0, Run: 7, AllocProcs: 2, AvgCPU: -1, UsedMem: -1,
		ReqProcs: -1, ReqTime: -1, ReqMem: -1, Status: 1, UserID: -1, GroupID: -1, Executable: -1,
		Queue: -1, Partition: -1, PrecedingJob: -1, ThinkTime: -1}
	if !reflect.DeepEqual(tr.Records, []Record{want1, want2}) {
		t.Errorf("records =\n%+v\nwant\n%+v", tr.Records, []Record{want1, want2})
	}
	var buf bytes.Buffer
	if err := Write(&buf, tr); err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/schedule.golden", buf.Bytes())
	back, err := Read(&buf, tr.Name)
	if err != nil {
		t.Fatal(err)
	}
	if !sameContent(back, tr) {
		t.Errorf("write then read changed the schedule's trace")
	}
	// The original record is not modified.
	if byID[1].Wait != 10 {
		t.Errorf("original record modified: %+v", byID[1])
	}

	bad := []struct {
		name string
		job  ScheduledJob
		want string
	}{
		{"start before submit", ScheduledJob{ID: 5, Submit: 10, Start: 9, End: 20, Procs: 1}, "swf: job 5: starts at 9 before its submission at 10"},
		{"end before start", ScheduledJob{ID: 5, Submit: 10, Start: 12, End: 11, Procs: 1}, "swf: job 5: ends at 11 before its start at 12"},
		{"no procs", ScheduledJob{ID: 5, Submit: 10, Start: 12, End: 13}, "swf: job 5: 0 processors"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FromSchedule(nil, []ScheduledJob{tt.job})
			if err == nil || err.Error() != tt.want {
				t.Errorf("error = %v, want %q", err, tt.want)
			}
		})
	}
}

func FuzzRead(f *testing.F) {
	for _, path := range []string{small, "testdata/crlf.swf"} {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(line18 + " 7\n"))
	f.Add([]byte("; MaxProcs: 1x\n1 2"))
	f.Add([]byte("\x1f\x8b"))
	f.Fuzz(func(t *testing.T, in []byte) {
		tr, err := Read(bytes.NewReader(in), "fuzz.swf")
		for _, o := range []ReadOptions{{}, {SkipInvalid: true}} {
			want, werr := o.Read(bytes.NewReader(in), "fuzz.swf")
			got, gerr := scanAll(in, o)
			if fmt.Sprint(werr) != fmt.Sprint(gerr) {
				t.Fatalf("%+v: Read: %v; Scanner: %v", o, werr, gerr)
			}
			if werr == nil && !sameContent(got, want) {
				t.Fatalf("%+v: Scanner read\n%+v\nRead read\n%+v", o, got, want)
			}
		}
		if err != nil {
			var serr *SyntaxError
			if !errors.As(err, &serr) && !strings.HasPrefix(err.Error(), "fuzz.swf:") {
				t.Fatalf("error %q is neither a *SyntaxError nor names the input", err)
			}
			return
		}
		// What reads, writes and reads back the same.
		var buf bytes.Buffer
		if err := Write(&buf, tr); err != nil {
			t.Fatal(err)
		}
		back, err := Read(&buf, tr.Name)
		if err != nil {
			t.Fatalf("reading what was written: %v\n%s", err, buf.Bytes())
		}
		if !sameContent(back, tr) {
			t.Fatalf("round trip changed the trace:\n%+v\n%+v", tr, back)
		}
		if _, _, err := Jobs(tr, 100); err != nil && !strings.Contains(err.Error(), "duplicated") {
			t.Fatalf("Jobs: %v", err)
		}
		for _, procs := range []int{0, 100} {
			if msg := readJobsAgrees(in, ReadOptions{}, procs); msg != "" {
				t.Fatal(msg)
			}
		}
	})
}

// readJobsAgrees returns "" when readJobs on data gives what Read and then
// Jobs give, or what differs.
func readJobsAgrees(data []byte, o ReadOptions, procs int) string {
	zr, err := gzfile.NewReader(bytes.NewReader(data))
	if err != nil {
		return ""
	}
	defer zr.Close()
	gt, gjobs, gdrop, gerr := o.readJobs(zr, "t.swf", int64(len(data)), procs)
	wt, werr := o.Read(bytes.NewReader(data), "t.swf")
	var wjobs []scheduler.Job
	var wdrop datasets.Dropped
	if werr == nil {
		p := procs
		if p <= 0 {
			p, werr = MachineProcs(wt)
		}
		if werr == nil {
			wjobs, wdrop, werr = Jobs(wt, p)
		}
	}
	switch {
	case fmt.Sprint(gerr) != fmt.Sprint(werr):
		return fmt.Sprintf("procs %d: readJobs: %v; Read and Jobs: %v", procs, gerr, werr)
	case werr != nil:
		return ""
	case !reflect.DeepEqual(gt, wt):
		return fmt.Sprintf("procs %d: readJobs read another trace", procs)
	case !reflect.DeepEqual(gjobs, wjobs):
		return fmt.Sprintf("procs %d: readJobs made %d jobs, Jobs %d, or they differ", procs, len(gjobs), len(wjobs))
	case !reflect.DeepEqual(gdrop, wdrop):
		return fmt.Sprintf("procs %d: readJobs dropped %v, Jobs %v", procs, gdrop, wdrop)
	}
	return ""
}

// TestReadJobs: reading and converting at once gives what reading and
// then converting gives, over many batches: in order, with comment lines
// among the records, records dropped, submit times out of order,
// duplicated job numbers, a machine size from the header, from the
// caller, missing, or changed by a header line after the first records,
// and malformed lines kept out.
func TestReadJobs(t *testing.T) {
	gen := func(n int, f func(b *bytes.Buffer, i int)) []byte {
		var b bytes.Buffer
		for i := 1; i <= n; i++ {
			f(&b, i)
		}
		return b.Bytes()
	}
	rec := func(b *bytes.Buffer, id, submit, procs int) {
		fmt.Fprintf(b, "%d %d 0 %d %d -1 -1 %d %d -1 1 %d 1 1 1 1 -1 -1\n", id, submit, 1+id%977, procs, procs, 10+id%5000, id%40)
	}
	cases := map[string][]byte{
		"in order, comments among them": gen(30000, func(b *bytes.Buffer, i int) {
			if i == 1 {
				b.WriteString("; MaxProcs: 64\n")
			}
			if i%7000 == 0 {
				b.WriteString("; a comment among the records\n")
			}
			rec(b, i, i*3, i%70) // some with 0 or more than 64 processors: dropped
		}),
		"out of order": gen(20000, func(b *bytes.Buffer, i int) {
			if i == 1 {
				b.WriteString("; MaxNodes: 128\n")
			}
			rec(b, i, (i*7919)%20000, 1+i%100)
		}),
		"duplicated numbers": gen(9000, func(b *bytes.Buffer, i int) {
			if i == 1 {
				b.WriteString("; MaxProcs: 64\n")
			}
			rec(b, i%8500, i, 1+i%64)
		}),
		"no machine size": gen(9000, func(b *bytes.Buffer, i int) { rec(b, i, i, 1+i%64) }),
		"size changed after the first records": gen(20000, func(b *bytes.Buffer, i int) {
			if i == 1 {
				b.WriteString("; MaxProcs: 16\n")
			}
			if i == 15000 {
				b.WriteString("; MaxProcs: 64\n")
			}
			rec(b, i, i, 1+i%64)
		}),
		"size only after the first records": gen(20000, func(b *bytes.Buffer, i int) {
			if i == 10000 {
				b.WriteString("; MaxProcs: 64\n")
			}
			rec(b, i, i, 1+i%64)
		}),
		"malformed lines": gen(12000, func(b *bytes.Buffer, i int) {
			if i == 1 {
				b.WriteString("; MaxProcs: 64\n")
			}
			if i%5000 == 0 {
				b.WriteString("1 2 x\n")
			}
			rec(b, i, i, 1+i%64)
		}),
		"empty": nil,
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(cases["out of order"])
	zw.Close()
	cases["gzip"] = z.Bytes()
	for name, data := range cases {
		for _, o := range []ReadOptions{{}, {SkipInvalid: true}} {
			for _, procs := range []int{0, 32} {
				if msg := readJobsAgrees(data, o, procs); msg != "" {
					t.Errorf("%s, %+v: %s", name, o, msg)
				}
			}
		}
	}
	tr, jobs, _, err := ReadOptions{}.ReadJobsFile(hpc2n, 0)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := ReadFile(hpc2n)
	if err != nil {
		t.Fatal(err)
	}
	wjobs, _, err := Jobs(wt, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(tr, wt) || !reflect.DeepEqual(jobs, wjobs) {
		t.Errorf("ReadJobsFile(%s) differs from ReadFile and Jobs", hpc2n)
	}
}

// BenchmarkReadHPC2N reads the bundled HPC2N trace (202,876 records, 3 MB
// gzip, 19 MB of text) from its file ("gzip") and, to time the parser alone,
// decompressed from memory ("plain").
func BenchmarkReadHPC2N(b *testing.B) {
	check := func(tr *Trace, err error) {
		if err != nil {
			b.Fatal(err)
		}
		if len(tr.Records) != 202876 {
			b.Fatal(len(tr.Records))
		}
	}
	b.Run("gzip", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			check(ReadFile(hpc2n))
		}
	})
	b.Run("plain", func(b *testing.B) {
		z, err := os.ReadFile(hpc2n)
		if err != nil {
			b.Fatal(err)
		}
		zr, err := gzip.NewReader(bytes.NewReader(z))
		if err != nil {
			b.Fatal(err)
		}
		plain, err := io.ReadAll(zr)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(plain)))
		b.ReportAllocs()
		for b.Loop() {
			check(Read(bytes.NewReader(plain), "HPC2N"))
		}
	})
}

func TestFinder(t *testing.T) {
	for _, ids := range [][]int64{{1, 2, 3, 5, 8}, {5, 3, 8, 1, 2}, {1, 2, 2, 3}} {
		tr := &Trace{}
		for i, id := range ids {
			tr.Records = append(tr.Records, Record{JobID: id, Submit: int64(i)})
		}
		find := tr.Finder()
		// Look up in a scrambled order, then in order, then a miss.
		for _, id := range append(append([]int64{ids[len(ids)-1], ids[0]}, ids...), 4) {
			r := find(id)
			want := -1
			for i, x := range ids {
				if x == id {
					want = i // the last record with the number wins
				}
			}
			switch {
			case want < 0 && r != nil:
				t.Errorf("ids %v: find(%d) = record %d, want none", ids, id, r.JobID)
			case want >= 0 && (r == nil || r.Submit != int64(want)):
				t.Errorf("ids %v: find(%d) = %v, want record %d", ids, id, r, want)
			}
		}
	}
}

// TestFinderPartial: a job's own record (its summary line) is found, not
// the partial executions' lines that share its number, before or after it,
// in sorted and unsorted traces alike (a schedule once copied the last
// partial line's status and user, and read back lost the job); a job of
// partial lines alone is found by its last.
func TestFinderPartial(t *testing.T) {
	for _, recs := range [][][3]int64{ // job, status, submit (which record)
		{{1, 1, 0}, {2, 1, 1}, {2, 2, 2}, {2, 4, 3}, {3, 1, 4}},
		{{2, 2, 0}, {2, 1, 1}, {2, 3, 2}, {1, 1, 3}},
		{{1, 1, 0}, {2, 2, 1}, {2, 4, 2}},
	} {
		tr := &Trace{}
		for _, r := range recs {
			tr.Records = append(tr.Records, Record{JobID: r[0], Status: r[1], Submit: r[2]})
		}
		want := map[int64]int64{}
		for _, r := range recs {
			if old, ok := want[r[0]]; !ok || r[1] < 2 || r[1] > 4 || partial(&tr.Records[old]) {
				want[r[0]] = r[2]
			}
		}
		find, byID := tr.Finder(), tr.ByID()
		for _, id := range []int64{2, 1, 2, 3} {
			w, ok := want[id]
			if !ok {
				continue
			}
			if r := find(id); r == nil || r.Submit != w {
				t.Errorf("%v: find(%d) = %+v, want the record submitted at %d", recs, id, r, w)
			}
			if r := byID[id]; r == nil || r.Submit != w {
				t.Errorf("%v: ByID[%d] = %+v, want the record submitted at %d", recs, id, r, w)
			}
		}
	}
}

// TestBounds: times past the simulator's horizon and processor counts past
// its largest machine are refused with the line and field (they once
// overflowed the engine's sums and panicked), and so is a header count
// that is not a count.
func TestBounds(t *testing.T) {
	rec := func(submit, run, procs string) string {
		return "; MaxProcs: 100\n1 " + submit + " 0 " + run + " " + procs + " -1 -1 " + procs + " 100 -1 1 1 1 1 1 1 -1 -1\n"
	}
	for _, c := range []struct{ in, want string }{
		{rec("9223372036854775000", "10", "4"), "t.swf:2: field 2: 9223372036854775000 s is past the simulator's horizon"},
		{rec("0", "9223372036854775807", "4"), "t.swf:2: field 4: 9223372036854775807 s is past"},
		{rec("0", "10", "18446744073709552"), "t.swf:2: field 5: 18446744073709552 processors: at most"},
		{"; MaxProcs: -5\n", "t.swf:1: header MaxProcs: -5: want 1 to"},
		{"; MaxNodes: 5000000000000000000\n", "header MaxNodes: 5000000000000000000: want 1 to"},
	} {
		_, err := Read(strings.NewReader(c.in), "t.swf")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
	// Each bounded field alone past its bound.
	for _, c := range []struct {
		field int
		want  string
	}{
		{3, "s is past the simulator's horizon"}, {9, "s is past the simulator's horizon"},
		{18, "s is past the simulator's horizon"}, {8, "processors: at most"},
	} {
		f := strings.Fields("1 0 0 10 4 -1 -1 4 100 -1 1 1 1 1 1 1 -1 -1")
		f[c.field-1] = "9223372036854775000"
		_, err := Read(strings.NewReader("; MaxProcs: 100\n"+strings.Join(f, " ")+"\n"), "t.swf")
		if want := fmt.Sprintf("t.swf:2: field %d: 9223372036854775000 %s", c.field, c.want); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("field %d: %v, want %q", c.field, err, want)
		}
	}
	// At the bounds: read.
	if tr, err := Read(strings.NewReader(rec("1125899906842624", "1125899906842624", "4")+"; MaxNodes: -1\n"), "t.swf"); err != nil || len(tr.Records) != 1 {
		t.Errorf("times at the horizon: %v", err)
	}
}

// TestTruncatedAndLongLines: a truncated compressed trace says so (it once
// read as a missing field), and a line past MaxLine is refused at once
// (/dev/zero once grew without bound).
func TestTruncatedAndLongLines(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	for i := 1; i <= 2000; i++ {
		fmt.Fprintf(zw, "%d %d 0 10 4 -1 -1 4 100 -1 1 1 1 1 1 1 -1 -1\n", i, i)
	}
	zw.Close()
	cut := buf.Bytes()[:buf.Len()/2]
	_, err := Read(bytes.NewReader(cut), "t.swf.gz")
	if err == nil || !strings.Contains(err.Error(), "unexpected end of compressed data: the file is truncated") {
		t.Errorf("truncated gzip: %v", err)
	}
	long := "; MaxProcs: 8\n1 0 0 10 4 -1 -1 4 100 -1 1 1 1 1 1 1 -1 -1" + strings.Repeat(" ", MaxLine) + "\n"
	_, err = Read(strings.NewReader(long), "t.swf")
	if err == nil || !strings.Contains(err.Error(), "t.swf:2: line longer than") {
		t.Errorf("long line: %v", err)
	}
}

// TestSizeHint: a size hint, right or wrong, changes how records are
// buffered, never what is read. A trace of 30,000 records with comment
// lines among them is read with no hint, the right one, a hint 100× too
// small and one 10× too large, and through ReadFile (plain and gzip), which take
// the file's own hint.
func TestSizeHint(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("; MaxProcs: 64\n")
	for i := 1; i <= 30000; i++ {
		if i%7000 == 0 {
			b.WriteString("; a comment among the records\n")
		}
		fmt.Fprintf(&b, "%d %d 0 %d %d -1 -1 %d %d -1 1 %d 1 1 1 1 -1 -1\n", i, i*3, 1+i%977, 1+i%64, 1+i%64, 10+i%5000, i%40)
	}
	data := b.Bytes()
	want, err := ReadOptions{}.readSized(bytes.NewReader(data), "t", 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Records) != 30000 {
		t.Fatalf("%d records, want 30000", len(want.Records))
	}
	for _, size := range []int64{int64(len(data)), int64(len(data)) / 100, int64(len(data)) * 10, 1} {
		var handed []Record
		got, err := ReadOptions{}.readSized(bytes.NewReader(data), "t", size, func(_ *Trace, recs []Record) {
			handed = append(handed, recs...)
		})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("hint %d bytes: the trace read differs from the one read without a hint", size)
		}
		if !slices.Equal(handed, want.Records) {
			t.Errorf("hint %d bytes: the batches handed over hold %d records, not the %d read in order", size, len(handed), len(want.Records))
		}
	}
	dir := t.TempDir()
	plain, zipped := filepath.Join(dir, "t.swf"), filepath.Join(dir, "t.swf.gz")
	if err := os.WriteFile(plain, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(data)
	zw.Close()
	if err := os.WriteFile(zipped, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{plain, zipped} {
		got, err := ReadOptions{}.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		got.Name = "t"
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the trace read differs from the one read without a hint", p)
		}
	}
}

// scanAll reads in with a Scanner into a Trace, as Read reads it.
// sameContent reports whether two traces hold the same header, records and
// counts, wherever their comments fell among the records (Write puts them
// all first).
func sameContent(a, b *Trace) bool {
	x, y := *a, *b
	x.gaps, y.gaps = nil, nil
	return reflect.DeepEqual(&x, &y)
}

func scanAll(in []byte, o ReadOptions) (*Trace, error) {
	zr, err := gzfile.NewReader(bytes.NewReader(in))
	if err != nil {
		return nil, fmt.Errorf("fuzz.swf: %w", err)
	}
	defer zr.Close()
	sc := o.NewScanner(zr, "fuzz.swf")
	for sc.Scan() {
		sc.Records = append(sc.Records, *sc.Record())
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	t := sc.Trace
	return &t, nil
}

// TestScannerMatchesRead: scanning the bundled traces record by record
// gives the records, header and counts that reading them whole gives.
func TestScannerMatchesRead(t *testing.T) {
	for _, path := range []string{small, "testdata/crlf.swf", kth} {
		in, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Read(bytes.NewReader(in), "fuzz.swf")
		if err != nil {
			t.Fatal(err)
		}
		got, err := scanAll(in, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(want.Records) == 0 || !sameContent(got, want) {
			t.Fatalf("%s: the scanner read %d records, Read %d, or their fields differ", path, len(got.Records), len(want.Records))
		}
	}
}

// TestReadMatchesScanner: a trace of several megabytes (past the first
// size estimate and into chunks) reads whole as the Scanner reads it line
// by line (records, header values, skipped lines and errors with their
// line numbers): clean, with malformed lines far in, a line too long, a
// header value changed half-way, and truncated gzip.
func TestReadMatchesScanner(t *testing.T) {
	var b strings.Builder
	b.WriteString("; MaxProcs: 64\n")
	for i := 1; i <= 60000; i++ {
		fmt.Fprintf(&b, "%d %d 10 %d 4 -1 -1 4 100 -1 1 %d 1 -1 1 1 -1 -1\n", i, 3*i, 50+i%300, i%17)
		if i%7919 == 0 {
			b.WriteString("; a comment among the records\n\n")
		}
		if i == 30000 {
			b.WriteString("; MaxProcs: 64\n") // the same size again, among the records
		}
	}
	clean := b.String()
	lines := strings.SplitAfter(clean, "\n")
	with := func(edit func(l []string)) []byte {
		l := slices.Clone(lines)
		edit(l)
		return []byte(strings.Join(l, ""))
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(clean))
	zw.Close()
	cases := map[string][]byte{
		"clean":     []byte(clean),
		"malformed": with(func(l []string) { l[25000] = "1 2 x\n"; l[51000] = "7 8\n" }),
		// a header among the records that cannot be read: an error either way
		"bad-header": with(func(l []string) { l[55000] = "; MaxNodes: zero\n" }),
		// two machine sizes: an error either way, not the last one taken
		"two-sizes": with(func(l []string) { l[45000] = "; MaxProcs: 128\n" }),
		"long":      with(func(l []string) { l[40000] = strings.Repeat("9", MaxLine+5) + "\n" }),
		"long-last": []byte(clean + strings.Repeat("1 ", MaxLine)),
		"truncated": gz.Bytes()[:gz.Len()*2/3],
		"gzip":      gz.Bytes(),
	}
	for name, in := range cases {
		for _, o := range []ReadOptions{{}, {SkipInvalid: true}} {
			want, werr := scanAll(in, o)
			got, gerr := o.Read(bytes.NewReader(in), "fuzz.swf")
			if fmt.Sprint(werr) != fmt.Sprint(gerr) {
				t.Fatalf("%s %+v: Read: %v; Scanner: %v", name, o, gerr, werr)
			}
			if werr == nil && !sameContent(got, want) {
				t.Fatalf("%s %+v: Read read %d records, %d skipped, MaxProcs %d; Scanner %d, %d, %d",
					name, o, len(got.Records), got.Skipped, got.MaxProcs, len(want.Records), want.Skipped, want.MaxProcs)
			}
			if name == "malformed" && o.SkipInvalid && (werr != nil || got.Skipped != 2) {
				t.Fatalf("malformed, skipping: %v, %d skipped", werr, got.Skipped)
			}
			if name == "bad-header" && (werr == nil || !strings.Contains(werr.Error(), `header MaxNodes: "zero"`)) {
				t.Fatalf("bad-header %+v: %v", o, werr)
			}
			if name == "two-sizes" && (werr == nil || !strings.Contains(werr.Error(), "header MaxProcs: 128, where line 1 gave 64")) {
				t.Fatalf("two-sizes %+v: %v", o, werr)
			}
		}
	}
}

// BenchmarkJobsHPC2N converts HPC2N's 202,876 kept records to jobs.
func BenchmarkJobsHPC2N(b *testing.B) {
	tr, err := ReadFile(hpc2n)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, err := Jobs(tr, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDecimalTimes: the format allows floating point in time fields
// (submit, wait, run, requested and think time); they are read as whole
// seconds, rounded.
func TestDecimalTimes(t *testing.T) {
	tr, err := Read(strings.NewReader("1 10.4 0.5 20.5 1 -1 -1 1 59.9 -1 1 1 1 -1 -1 -1 -1 2.49\n"), "t.swf")
	if err != nil {
		t.Fatal(err)
	}
	r := tr.Records[0]
	if r.Submit != 10 || r.Wait != 1 || r.Run != 21 || r.ReqTime != 60 || r.ThinkTime != 2 {
		t.Errorf("record %+v: want submit 10, wait 1, run 21, requested 60, think 2", r)
	}
}

// TestPartialAndWide: a checkpointed job's partial-execution lines (status
// 2, 3, 4) share its number and are left out, counted; a job that asked for
// more processors than the machine has but was allocated fewer runs on
// those.
func TestPartialAndWide(t *testing.T) {
	in := "; MaxProcs: 8\n" +
		"1 0 5 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1\n" + // job 1's summary
		"1 0 5 60 4 -1 -1 4 200 -1 2 1 1 -1 -1 -1 -1 -1\n" + // its partial executions
		"1 70 5 40 4 -1 -1 4 200 -1 3 1 1 -1 -1 -1 -1 -1\n" +
		"2 10 0 50 4 -1 -1 16 100 -1 1 1 1 -1 -1 -1 -1 -1\n" // asked 16, ran on 4
	tr, err := Read(strings.NewReader(in), "t.swf")
	if err != nil {
		t.Fatal(err)
	}
	jobs, dropped, err := Jobs(tr, 8)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 || dropped.Count(DropPartial) != 2 || jobs[1].Tasks[0].Request.CPU != 4*scheduler.MilliPerCore {
		t.Errorf("jobs %+v, dropped %v: want jobs 1 and 2 (2 on 4 processors), 2 partial executions", jobs, dropped)
	}
}

// A trace with no job record says so, rather than asking for the machine's
// size it would have nothing to run on; with records, the missing size is
// what is wrong.
func TestReadJobsNoRecords(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{"empty.swf": "", "header.swf": "; Version: 2.2\n; Computer: none\n"} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(data), 0o644)
		if _, _, _, err := (ReadOptions{}).ReadJobsFile(p, 0); err == nil || !strings.Contains(err.Error(), name+": no job records") {
			t.Errorf("%s: %v", name, err)
		}
	}
	p := filepath.Join(dir, "unsized.swf")
	os.WriteFile(p, []byte("1 0 0 10 1 -1 -1 1 20 -1 1 1 1 1 1 1 -1 -1\n"), 0o644)
	if _, _, _, err := (ReadOptions{}).ReadJobsFile(p, 0); !errors.Is(err, ErrNoMachineSize) {
		t.Errorf("records without a machine size: %v", err)
	}
}

// TestReadBOM: a UTF-8 byte-order mark before the first line is skipped,
// by Read and the Scanner alike.
func TestReadBOM(t *testing.T) {
	body := "\ufeff; MaxProcs: 4\n" + line18 + "\n"
	tr, err := Read(strings.NewReader(body), "bom.swf")
	if err != nil || tr.MaxProcs != 4 || len(tr.Records) != 1 {
		t.Fatalf("Read: %v %+v", err, tr)
	}
	sc := ReadOptions{}.NewScanner(strings.NewReader("\ufeff"+line18+"\n"), "bom.swf")
	n := 0
	for sc.Scan() {
		n++
	}
	if sc.Err() != nil || n != 1 {
		t.Errorf("Scanner: %d records, %v", n, sc.Err())
	}
}

// TestUnknownUser: a record's user -1 names no user (""), which no
// estimator of a user's history pools with others; known users keep
// their decimal names.
// TestDecimalUnknown: -1.0 in a time field is the format's unknown, as -1.
func TestDecimalUnknown(t *testing.T) {
	tr, err := Read(strings.NewReader(strings.Replace(line18, "1 0 1 2", "1 0 -1.0 2", 1)), "t.swf")
	if err != nil || len(tr.Records) != 1 || tr.Records[0].Wait != -1 {
		t.Errorf("-1.0 as a wait: %v, %+v", err, tr)
	}
}

func TestUnknownUser(t *testing.T) {
	u := Users{}
	if got := u.Name(-1); got != "" {
		t.Errorf("user -1 named %q, want \"\"", got)
	}
	if got := u.Name(12); got != "12" {
		t.Errorf("user 12 named %q, want \"12\"", got)
	}
}
