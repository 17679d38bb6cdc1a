package workload

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wb-sim/wb/scheduler"
)

func data(rel string) string { return filepath.Join("..", "data", rel) }

func TestLoadBundled(t *testing.T) {
	tests := []struct {
		trace, cluster string
		format         string
		jobs, dropped  int
		nodes          int
		pool           bool
	}{
		// Counts from the readers' own tests (datasets/*).
		{data("swf/KTH-SP2-1996-2.1-cln.swf.gz"), "", "swf", 27992, 0, 1, true},
		{data("swf/HPC2N-2002-2.1-cln.swf.gz"), "", "swf", 202876, 0, 1, true},
		{"openb:" + data("openb/openb_pod_list_default.csv.gz"), "", "openb", 7255, 897, 1213, false},
		{data("openb/openb_pod_list_default.csv.gz"), "openb-all", "openb", 7255, 897, 1523, false},
		{data("gavel/small_test.trace"), "nodes:4x4:V100", "gavel", 20, 0, 4, false},
		{"../pai/testdata/pai_job_table.csv", "pai", "pai", 3, 7, 1897, false},
		{data("pai/pai_sim_jobs_synthetic.csv.gz"), "", "pai-sim", 20000, 0, 1, false},
		{"pai-sim:../paisim/testdata/pai_sim_jobs.csv", "pool:8:100", "pai-sim", 6, 0, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.trace, func(t *testing.T) {
			w, err := Load(Options{Trace: tt.trace, Cluster: tt.cluster})
			if err != nil {
				t.Fatal(err)
			}
			if w.Format != tt.format || len(w.Jobs) != tt.jobs || w.Dropped.Total() != tt.dropped {
				t.Errorf("format %s, %d jobs, %d dropped; want %s, %d, %d", w.Format, len(w.Jobs), w.Dropped.Total(), tt.format, tt.jobs, tt.dropped)
			}
			if len(w.Cluster.Nodes) != tt.nodes || w.Cluster.Pool != tt.pool {
				t.Errorf("cluster of %d nodes (pool %v), want %d (pool %v)", len(w.Cluster.Nodes), w.Cluster.Pool, tt.nodes, tt.pool)
			}
			if err := w.Cluster.Validate(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestProcsOverride(t *testing.T) {
	w, err := Load(Options{Trace: data("swf/KTH-SP2-1996-2.1-cln.swf.gz"), Procs: 64})
	if err != nil {
		t.Fatal(err)
	}
	cpu, _, _ := w.Cluster.Capacity()
	if cpu != 64*scheduler.MilliPerCore {
		t.Errorf("pool of %d milli, want 64 processors", cpu)
	}
	// Jobs wider than 64 processors are dropped and counted.
	if w.Dropped.Count("procs>machine") == 0 || len(w.Jobs)+w.Dropped.Total() != 27992 {
		t.Errorf("dropped %s with %d jobs kept", w.Dropped, len(w.Jobs))
	}
}

// A trace whose header gives no machine size, loaded and streamed: the
// error names the file once and says how to give the size, on the command
// line and in a config (the stream leaves it to Load); with the size given
// it loads.
func TestNoMachineSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nosize.swf")
	if err := os.WriteFile(path, []byte("; Version: 2.2\n1 0 10 100 4 -1 -1 4 100 -1 1 1 1 1 1 -1 -1 -1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := path + ": header has neither MaxProcs nor MaxNodes; give the machine's processors: --procs N (wb simulate) or procs: N (a config's workload), or a cluster pool:N"
	if _, err := Load(Options{Trace: path}); err == nil || err.Error() != want {
		t.Errorf("Load: %v\nwant %s", err, want)
	}
	// the stream declines (a comment further on may give the size), and
	// Load, which the simulation falls back to, says what is wrong
	if st, err := OpenStream(Options{Trace: path}, false); st != nil || err != nil {
		t.Errorf("OpenStream: %v, %v; want neither a stream nor an error", st, err)
	}
	if w, err := Load(Options{Trace: path, Procs: 8}); err != nil || len(w.Jobs) != 1 {
		t.Errorf("with procs 8: %v", err)
	}
	// a cluster pool:N is the machine: its size sizes the trace's too (a
	// job wider than it dropped as such)
	if w, err := Load(Options{Trace: path, Cluster: "pool:8"}); err != nil || len(w.Jobs) != 1 {
		t.Errorf("on pool:8: %v", err)
	}
	if w, err := Load(Options{Trace: path, Cluster: "pool:2"}); err == nil || !strings.Contains(err.Error(), "no jobs to simulate (dropped: procs>machine") {
		t.Errorf("on pool:2: %v, %+v", err, w)
	}
}

func TestParseCluster(t *testing.T) {
	good := []struct {
		spec        string
		nodes, gpus int
		cpu         scheduler.MilliCPU
	}{
		{"pool:100", 1, 0, 100_000},
		{"pool:512:11889", 1, 512, 11_889_000},
		{"nodes:16x8:V100", 16, 128, 16 * 64_000},
		{"nodes:2x4:T4:32:256", 2, 8, 2 * 32_000},
		{"nodes:3x0:", 3, 0, 3 * 64_000},
		{"nodes:2x4:K80+3x8:V100:32:128", 5, 32, 2*64_000 + 3*32_000},
		{"openb", 1213, 6212, 107_018_000},
		{"pai", 1897, 6742, -1},
	}
	for _, tt := range good {
		c, _, err := ParseCluster(tt.spec)
		if err != nil {
			t.Errorf("%s: %v", tt.spec, err)
			continue
		}
		cpu, _, gpu := c.Capacity()
		if len(c.Nodes) != tt.nodes || int(gpu/scheduler.MilliPerGPU) != tt.gpus || (tt.cpu >= 0 && cpu != tt.cpu) {
			t.Errorf("%s: %d nodes, %d GPUs, %d milli CPU; want %d, %d, %d", tt.spec, len(c.Nodes), gpu/1000, cpu, tt.nodes, tt.gpus, tt.cpu)
		}
	}
	bad := []struct{ spec, want string }{
		{"pool:0", "want pool:N"},
		{"pool:x", "want pool:N"},
		{"nodes:4:V100", "want nodes:NxG:MODEL"},
		{"nodes:4x99:V100", "G from 0 to 16"},
		{"nodes:9999999x8:V100", "N from 1 to 1048576"},
		{"pool:99999999999", "want pool:N"},
		{"pool:0:10", "want pool:G:C"},
		{"pool:16777217:1", "want pool:G:C"},
		{"pool:8:-1", "want pool:G:C"},
		{"pool:4:0", "0 < C"}, // every job unschedulable (a reviewer's find)
		{"nodes:4x8:", "no GPU model"},
		{"nodes:2x0:V100", "0 GPUs a node, yet a GPU model (V100); nodes without GPUs name none: \"nodes:2x0:\" (quoted in YAML"},
		{"nodes:4x8:V100:0:1", "positive"},
		{"openb:/no/such/file.csv", "no such file"},
		{"mesos", "unknown; one of"},
		{"nodes:2x4:K80+", "wrong number of parts"},
		// refused by the second group, not after eight of 2^20 nodes were built (2.9 GB)
		{"nodes:" + strings.TrimSuffix(strings.Repeat("1048576x1:A+", 8), "+"), "more than 1048576 nodes by group 2"},
	}
	for _, tt := range bad {
		_, _, err := ParseCluster(tt.spec)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.spec, err, tt.want)
		}
	}
}

func TestSplitTrace(t *testing.T) {
	tests := []struct{ in, format, path string }{
		{"x/KTH.swf", "swf", "x/KTH.swf"},
		{"x/KTH.SWF.gz", "swf", "x/KTH.SWF.gz"},
		{"openb_pod_list_default.csv.gz", "openb", "openb_pod_list_default.csv.gz"},
		{"msr/0e4a51.trace.gz", "gavel", "msr/0e4a51.trace.gz"},
		{"pai_job_table.csv", "pai", "pai_job_table.csv"},
		{"traces/pai_job_duration_estimate_100K.csv", "pai-sim", "traces/pai_job_duration_estimate_100K.csv"},
		{"pai_sim_jobs.csv.gz", "pai-sim", "pai_sim_jobs.csv.gz"},
		{"pai-sim:jobs.csv", "pai-sim", "jobs.csv"},
		{"swf:jobs.log", "swf", "jobs.log"},
		{"gavel:c:/x.txt", "gavel", "c:/x.txt"},
	}
	for _, tt := range tests {
		f, p, err := splitTrace(tt.in)
		if err != nil || f != tt.format || p != tt.path {
			t.Errorf("splitTrace(%q) = %q, %q, %v; want %q, %q", tt.in, f, p, err, tt.format, tt.path)
		}
	}
	for _, in := range []string{"", "jobs.log", "csv:jobs.csv"} {
		if _, _, err := splitTrace(in); err == nil {
			t.Errorf("splitTrace(%q): no error", in)
		}
	}
	// An unknown format before a name wb would recognise: the format is
	// what is wrong, not the file (it once said "no such file").
	for _, in := range []string{"csv:/tmp/KTH.swf", "SWF2:x.swf.gz"} {
		if _, _, err := splitTrace(in); err == nil || !strings.Contains(err.Error(), "unknown trace format") {
			t.Errorf("splitTrace(%q): %v", in, err)
		}
	}
	// A file whose name has a colon is still read by its name.
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("run:1.swf", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if f, p, err := splitTrace("run:1.swf"); err != nil || f != "swf" || p != "run:1.swf" {
		t.Errorf("a file named run:1.swf: %q %q %v", f, p, err)
	}
}

func TestPlacementOnlyPodList(t *testing.T) {
	_, err := Load(Options{Trace: data("openb/openb_pod_list_multigpu50.csv.gz")})
	if err == nil || !strings.Contains(err.Error(), "no creation or deletion times") {
		t.Fatalf("error = %v", err)
	}
	// a pod list of a header alone has no pods, not pods without times
	empty := filepath.Join(t.TempDir(), "openb_pod_list_empty.csv")
	if err := os.WriteFile(empty, []byte("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(Options{Trace: "openb:" + empty}); err == nil || !strings.Contains(err.Error(), "no pods: the pod list holds a header and no rows") {
		t.Fatalf("a header alone: %v", err)
	}
}

// TestGavelUnmeasuredGPU: a Gavel trace on a GPU Gavel never measured is
// refused (its jobs would run at the V100's pace there), alone or beside
// measured ones, unless the caller times the jobs itself.
func TestGavelUnmeasuredGPU(t *testing.T) {
	for _, cluster := range []string{"nodes:4x4:A100-40", "nodes:2x4:V100+2x4:H100-SXM"} {
		_, err := Load(Options{Trace: data("gavel/small_test.trace"), Cluster: cluster})
		if err == nil || !strings.Contains(err.Error(), "Gavel measured its jobs on k80, p100, v100 only, not on ") ||
			!strings.Contains(err.Error(), "throughputs: predicted") {
			t.Errorf("%s: error = %v", cluster, err)
		}
		if _, err := Load(Options{Trace: data("gavel/small_test.trace"), Cluster: cluster, OwnRunTimes: true}); err != nil {
			t.Errorf("%s, run times the caller's: %v", cluster, err)
		}
	}
	if _, err := Load(Options{Trace: data("gavel/small_test.trace"), Cluster: "nodes:2x4:K80+2x4:P100"}); err != nil {
		t.Errorf("measured GPUs: %v", err)
	}
}

func TestGavelGPUType(t *testing.T) {
	_, err := Load(Options{Trace: data("gavel/small_test.trace"), GPUType: "a100"})
	if err == nil || !strings.Contains(err.Error(), `no throughputs for GPU type "a100" (known: `) || strings.Contains(err.Error(), "lower case") {
		t.Fatalf("error = %v", err)
	}
	// a cluster spec's spelling (K80) is answered with Gavel's (k80)
	if _, err := Load(Options{Trace: data("gavel/small_test.trace"), GPUType: "K80"}); err == nil || !strings.HasSuffix(err.Error(), "; Gavel's GPU types are lower case: k80") {
		t.Errorf("K80: %v", err)
	}
	k80, err := Load(Options{Trace: data("gavel/small_test.trace"), GPUType: "k80"})
	if err != nil {
		t.Fatal(err)
	}
	v100, err := Load(Options{Trace: data("gavel/small_test.trace")})
	if err != nil {
		t.Fatal(err)
	}
	// A K80 is slower than a V100 on every job type Gavel measured.
	var sk, sv scheduler.Time
	for i := range k80.Jobs {
		sk += k80.Jobs[i].Run
	}
	for i := range v100.Jobs {
		sv += v100.Jobs[i].Run
	}
	if sk <= sv {
		t.Errorf("total run time on k80 %d ≤ on v100 %d", sk, sv)
	}
}

// FuzzParseCluster: any spec gives a valid cluster or an error, never a
// panic.
func FuzzParseCluster(f *testing.F) {
	for _, s := range []string{"pool:100", "nodes:16x8:V100", "nodes:2x4:T4:32:256", "nodes:1x16:A:1:1", "pool:-1", "nodes:x:", "openb:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		if strings.HasPrefix(spec, "openb") || strings.HasPrefix(spec, "pai") {
			return // file paths: covered by the readers' own fuzz tests
		}
		c, _, err := ParseCluster(spec)
		if err != nil {
			return
		}
		if verr := c.Validate(); verr != nil {
			t.Fatalf("%q: accepted an invalid cluster: %v", spec, verr)
		}
	})
}

// TestPresetsDocumented: the cluster help names every bundled preset, and
// each preset loads and is recognised as one.
func TestPresetsDocumented(t *testing.T) {
	for _, name := range presets.Names() {
		if !strings.Contains(Clusters, name) {
			t.Errorf("Clusters does not name the preset %q", name)
		}
		if !IsPreset(name) {
			t.Errorf("IsPreset(%q) is false", name)
		}
		c, _, err := ParseCluster(name)
		if err != nil || len(c.Nodes) == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
	if !IsOpenbCluster("openb:x.csv") || !IsOpenbCluster("openb-all") || IsOpenbCluster("pai") || IsOpenbCluster("pool:4") {
		t.Error("IsOpenbCluster")
	}
}

// TestStreamable: SWF traces stream from StreamAbove bytes; a gzip file
// whose trailer does not tell its length (wrapped past 4 GiB) is judged by
// its size on disk; other formats never stream.
func TestStreamable(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.swf")
	if err := os.WriteFile(small, []byte("1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 1 -1 -1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if Streamable(Options{Trace: small}) {
		t.Error("a one-line trace streams")
	}
	big := filepath.Join(dir, "big.swf")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(StreamAbove); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if !Streamable(Options{Trace: big}) {
		t.Error("a trace of StreamAbove bytes does not stream")
	}
	if Streamable(Options{Trace: "openb:" + big}) {
		t.Error("an openb list streams")
	}
	// gzip magic, a body of StreamAbove/16 bytes and a trailer claiming 1
	// byte: the length wrapped round
	wrapped := filepath.Join(dir, "wrapped.swf.gz")
	b := make([]byte, StreamAbove/16)
	b[0], b[1] = 0x1f, 0x8b
	b[len(b)-4] = 1
	if err := os.WriteFile(wrapped, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if !Streamable(Options{Trace: wrapped}) {
		t.Error("a gzip trace of unknown length, 4 MiB on disk, does not stream")
	}
}

// TestPAISimPrepared: a PAI simulator table on a processor pool is
// refused; sampled and re-timed, it is what Sample and Retime say.
func TestPAISimPrepared(t *testing.T) {
	trace := data("pai/pai_sim_jobs_synthetic.csv.gz")
	if _, err := Load(Options{Trace: trace, Cluster: "pool:512"}); err == nil || !strings.Contains(err.Error(), "pool:G:CORES") {
		t.Errorf("on a processor pool: %v", err)
	}
	w, err := Load(Options{Trace: trace, Cluster: "pool:512:11889", Sample: 1000, SampleSeed: 3, ArrivalRate: 100, ArrivalInterval: 30})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 1000 {
		t.Fatalf("%d jobs, want the sample of 1000", len(w.Jobs))
	}
	for k, j := range w.Jobs {
		if want := scheduler.Time(k/100) * 30; j.Submit != want || (k > 0 && j.ID <= w.Jobs[k-1].ID) {
			t.Fatalf("job %d (id %d) arrives at %d, want %d, in id order", k, j.ID, j.Submit, want)
		}
	}
	again, err := Load(Options{Trace: trace, Cluster: "pool:512:11889", Sample: 1000, SampleSeed: 3, ArrivalRate: 100, ArrivalInterval: 30})
	if err != nil || !reflect.DeepEqual(again.Jobs, w.Jobs) {
		t.Errorf("the same seed gave another sample (%v)", err)
	}
}

// TestSample: a sample is n distinct jobs in the trace's order, every job
// about equally likely, the input unchanged.
func TestSample(t *testing.T) {
	jobs := make([]scheduler.Job, 50)
	for i := range jobs {
		jobs[i].ID = int64(i)
	}
	counts := make([]int, len(jobs))
	r := rand.New(rand.NewPCG(1, 1))
	for range 2000 {
		s := Sample(jobs, 10, r)
		if len(s) != 10 {
			t.Fatalf("%d jobs", len(s))
		}
		for i := range s {
			if i > 0 && s[i].ID <= s[i-1].ID {
				t.Fatalf("sample out of order or repeated: %v", s)
			}
			counts[s[i].ID]++
		}
	}
	for id, c := range counts {
		if c < 300 || c > 500 { // expected 400, sd 18
			t.Errorf("job %d sampled %d times in 2000 draws of 10 of 50", id, c)
		}
		if jobs[id].ID != int64(id) {
			t.Fatal("the input changed")
		}
	}
	if got := Sample(jobs, 0, r); len(got) != 50 || &got[0] == &jobs[0] {
		t.Error("n = 0 is not a copy of every job")
	}
}

// TestSkipInvalidSWFOnly: only the SWF reader skips malformed lines; asked
// of another format, the flag is refused, not silently ignored.
func TestSkipInvalidSWFOnly(t *testing.T) {
	_, err := Load(Options{Trace: "../data/gavel/msr/0e4a51.trace.gz", SkipInvalid: true})
	if err == nil || !strings.Contains(err.Error(), "skipping malformed lines is for SWF traces") {
		t.Errorf("--skip-invalid on a Gavel trace: %v", err)
	}
}

// TestGavelZeroThroughputModels: a Gavel job measured at 0 on K80s (it
// did not fit) may run on the P100s and V100s of a cluster, not its K80s;
// on a pool, or where the caller times the jobs, on any GPU.
func TestGavelZeroThroughputModels(t *testing.T) {
	restricted := func(w *Workload) int {
		n := 0
		for _, j := range w.Jobs {
			if ms := j.Tasks[0].Request.Models; len(ms) > 0 {
				if !reflect.DeepEqual(ms, []string{"p100", "v100"}) || j.Name != "ResNet-50 (batch size 128)" || j.Replicas() < 2 {
					t.Fatalf("%s on %d GPUs: models %v", j.Name, j.Replicas(), ms)
				}
				n++
			}
		}
		return n
	}
	trace := data("gavel/msr/0e4a51.trace.gz")
	for _, tc := range []struct {
		cluster string
		own     bool
		some    bool
	}{
		{"nodes:2x4:K80+2x4:V100", false, true},
		{"nodes:2x4:K80", false, true},
		{"pool:8:64", false, false},
		{"nodes:2x4:K80", true, false},
	} {
		w, err := Load(Options{Trace: trace, Cluster: tc.cluster, OwnRunTimes: tc.own})
		if err != nil {
			t.Fatal(err)
		}
		if n := restricted(w); (n > 0) != tc.some {
			t.Errorf("%s (caller's run times %v): %d jobs kept off K80s", tc.cluster, tc.own, n)
		}
	}
}

// TestMalformedSWFSaysSkip: a malformed record line is refused naming what
// leaves such lines out (--skip-invalid), read whole or streamed; with it
// the line is skipped and counted.
func TestMalformedSWFSaysSkip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.swf")
	body := "; MaxProcs: 8\n1 0 10 100 4 -1 -1 4 100 -1 1 1 1 1 1 -1 -1 -1\n2 5 10\n3 9 10 100 4 -1 -1 4 100 -1 1 1 1 1 1 -1 -1 -1\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	hint := "(--skip-invalid, or skip_invalid: true in a config's workload, leaves malformed record lines out and counts them)"
	if _, err := Load(Options{Trace: path}); err == nil || !strings.HasPrefix(err.Error(), path+":3: ") || !strings.Contains(err.Error(), hint) {
		t.Errorf("Load: %v", err)
	}
	st, err := OpenStream(Options{Trace: path}, false)
	if err != nil || st == nil {
		t.Fatalf("OpenStream: %v, %v", st, err)
	}
	defer st.Close()
	for {
		if _, err = st.Next(); err != nil {
			break
		}
	}
	if err == nil || !strings.Contains(err.Error(), hint) {
		t.Errorf("streamed: %v", err)
	}
	if w, err := Load(Options{Trace: path, SkipInvalid: true}); err != nil || len(w.Jobs) != 2 || w.Skipped == 0 {
		t.Errorf("with SkipInvalid: %v", err)
	}
	// no hint where it cannot help: a line too long to read ends the
	// reading with or without it, and a file of no record at all under
	// it says what its skipped lines were (a reviewer's finds: a README
	// read as a trace said "no jobs to simulate (dropped: none)")
	long := filepath.Join(t.TempDir(), "long.swf")
	if err := os.WriteFile(long, []byte("; MaxProcs: 8\n"+strings.Repeat("1", 70000)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, skip := range []bool{false, true} {
		if _, err := Load(Options{Trace: long, SkipInvalid: skip}); err == nil || !strings.HasSuffix(err.Error(), "line longer than 65536 bytes: not an SWF trace?") {
			t.Errorf("a line too long, skip %v: %v", skip, err)
		}
	}
	prose := filepath.Join(t.TempDir(), "prose.swf")
	if err := os.WriteFile(prose, []byte("# A title\n\nSome words.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(Options{Trace: prose, SkipInvalid: true, Procs: 8}); err == nil ||
		!strings.Contains(err.Error(), "no jobs to simulate: 2 malformed lines skipped (the first, "+prose+":1: field 1: ") || strings.Contains(err.Error(), hint) {
		t.Errorf("a file of no record under SkipInvalid: %v", err)
	}
	// records all dropped and a line skipped: a trace, whose drops come
	// first (a reviewer's find: it was asked whether it was one)
	mixed := filepath.Join(t.TempDir(), "mixed.swf")
	if err := os.WriteFile(mixed, []byte("; MaxProcs: 8\n1 0 10 -1 4 -1 -1 4 100 -1 1 1 1 1 1 -1 -1 -1\nbad line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(Options{Trace: mixed, SkipInvalid: true}); err == nil || !strings.Contains(err.Error(), "no jobs to simulate (dropped: ") ||
		!strings.Contains(err.Error(), "; 1 malformed lines skipped, the first, ") || strings.Contains(err.Error(), "not an SWF trace?") {
		t.Errorf("records dropped and a line skipped: %v", err)
	}
}

// TestDamagedGzip: a compressed trace damaged in its middle decompresses
// to garbage before its checksum fails at the end; the error says the file
// is damaged, whether the damage first reads as a bad line (loaded or
// streamed) or, with --skip-invalid, as the checksum.
func TestDamagedGzip(t *testing.T) {
	var lines strings.Builder
	lines.WriteString("; MaxProcs: 64\n")
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&lines, "%d %d 10 %d 4 -1 -1 4 100 -1 1 %d 1 -1 1 1 -1 -1\n", i, 3*i, 50+i%300, i%17)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(lines.String()))
	zw.Close()
	b := gz.Bytes()
	for i := len(b) / 2; i < len(b)/2+40; i++ {
		b[i] ^= 0x55
	}
	path := filepath.Join(t.TempDir(), "d.swf.gz")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, skip := range []bool{false, true} {
		opts := Options{Trace: path, SkipInvalid: skip}
		_, err := Load(opts)
		if err == nil || !strings.Contains(err.Error(), "the gzip-compressed file is damaged") {
			t.Errorf("Load, skipping %v: %v; want the file called damaged", skip, err)
		}
		st, err := OpenStream(opts, false)
		if err != nil || st == nil {
			continue // (a stream that cannot start says so through Load)
		}
		for err == nil {
			_, err = st.Next()
		}
		st.Close()
		if errors.Is(err, ErrNotStreamable) {
			continue // the caller loads it whole, and Load says it is damaged (above)
		}
		if err != io.EOF && !strings.Contains(err.Error(), "the gzip-compressed file is damaged") {
			t.Errorf("stream, skipping %v: %v; want the file called damaged", skip, err)
		}
		if err == io.EOF {
			t.Errorf("stream, skipping %v: read to its end without an error", skip)
		}
	}
}

// ClusterSpecs names every spec Clusters documents.
func TestClusterSpecsDocumented(t *testing.T) {
	for _, s := range ClusterSpecs {
		if !strings.Contains(Clusters, s) {
			t.Errorf("%s is not in Clusters", s)
		}
	}
	for _, line := range strings.Split(Clusters, "\n") {
		if line != "" && line[0] != ' ' {
			spec, _, _ := strings.Cut(line, " ")
			if !slices.Contains(ClusterSpecs, spec) {
				t.Errorf("Clusters documents %s, ClusterSpecs lacks it", spec)
			}
		}
	}
}
