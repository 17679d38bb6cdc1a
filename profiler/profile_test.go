package profiler_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/internal/buildid"
	"github.com/wb-sim/wb/profiler"
	"github.com/wb-sim/wb/profiler/nvml"
)

// quick is a rule that measures a fake layer in a few Time calls.
var quick = profiler.Rule{WarmupTime: time.Nanosecond}

// predictAll predicts 2 ms for every pass of every layer.
func predictAll(n *dnn.Network, batch int, prec dnn.Precision) ([][4]float64, error) {
	out := make([][4]float64, len(n.Nodes))
	for i := range out {
		out[i] = [4]float64{2e-3, 2e-3, 2e-3, 2e-3}
	}
	return out, nil
}

func TestRunDedup(t *testing.T) {
	// Three layers of key a, two of key b (forward MFLOPs 1 and 2 per
	// sample: 1 and 2 ms per run), one relu without backward work.
	b2 := layer("conv2d", "b")
	b2.work[0].FLOPs = 2e6
	relu := layer("relu", "r")
	relu.work[dnn.BackwardWeights] = dnn.Work{}
	net := network(layer("conv2d", "a"), b2, layer("conv2d", "a"), relu, layer("conv2d", "a"), b2)
	be := &fakeBackend{}
	p, err := profiler.Run(context.Background(), be, net, profiler.Options{Rule: quick, Predict: predictAll, Batches: []int{1, 4}})
	if err != nil {
		t.Fatal(err)
	}
	// Per batch: keys a, b × 3 passes, r × 2 passes (bwd-weights does no work).
	want := map[string]int{"a fwd": 2, "a bwd-data": 2, "a bwd-weights": 2, "b fwd": 2, "b bwd-data": 2, "b bwd-weights": 2, "r fwd": 2, "r bwd-data": 2}
	if !reflect.DeepEqual(be.prepares, want) {
		t.Errorf("Prepare calls by key and pass = %v, want %v", be.prepares, want)
	}
	if be.closes != be.totalPrepares() {
		t.Errorf("%d kernels closed of %d", be.closes, be.totalPrepares())
	}
	if len(p.Records) != 2*7*3 {
		t.Fatalf("%d rows, want 42", len(p.Records))
	}
	c := p.Meta.Counts
	if c.Measured != 16 || c.Shared != 18 || c.Skipped != 8 || c.OK != 34 || c.Rows != 42 {
		t.Errorf("counts %+v", c)
	}
	for _, r := range p.Records {
		var wantShared string
		switch {
		case r.Status == profiler.Skipped:
		case r.Layer == "n2" || r.Layer == "n4":
			wantShared = "n0"
		case r.Layer == "n5":
			wantShared = "n1"
		}
		if r.SharedWith != wantShared {
			t.Errorf("%s %s: shared with %q, want %q", r.Layer, r.Pass, r.SharedWith, wantShared)
		}
		if r.Status != profiler.OK {
			if (r.Layer != "in" && (r.Layer != "n3" || r.Pass != "bwd-weights")) || r.Status != profiler.Skipped || r.Predicted.OK {
				t.Errorf("%s %s: status %s", r.Layer, r.Pass, r.Status)
			}
			continue
		}
		// A fake run takes 1 ms per forward MFLOP per sample, whatever the batch.
		wantMedian := 1e-3
		if r.Key == "b" {
			wantMedian = 2e-3
		}
		if r.Median.V != wantMedian || r.Reps != 10 || r.Stop != "converged" || r.CV.V != 0 {
			t.Errorf("%s %s: median %v after %d runs (%s, cv %v)", r.Layer, r.Pass, r.Median, r.Reps, r.Stop, r.CV)
		}
		if r.Ratio.V != wantMedian/2e-3 {
			t.Errorf("%s %s: ratio %v", r.Layer, r.Pass, r.Ratio)
		}
		const rel = 1e-12 // a division
		if wantF := r.FLOPs / wantMedian; math.Abs(r.FLOPS.V-wantF) > rel*wantF {
			t.Errorf("%s %s: %v FLOP/s, want %v", r.Layer, r.Pass, r.FLOPS.V, wantF)
		}
	}
}

func TestRunSkipsInputGradient(t *testing.T) {
	// A layer reading the network's input has no backward-data pass.
	net := &dnn.Network{Name: "x", Input: dnn.Shape{1}, Nodes: []dnn.Node{{Name: "stem", Layer: layer("conv2d", "a"), Inputs: []int{-1}}}}
	be := &fakeBackend{}
	p, err := profiler.Run(context.Background(), be, net, profiler.Options{Rule: quick})
	if err != nil {
		t.Fatal(err)
	}
	if r := p.Records[1]; r.Pass != "bwd-data" || r.Status != profiler.Skipped || r.Reason != "no input needs a gradient" {
		t.Errorf("bwd-data row %+v", r)
	}
	if want := map[string]int{"a fwd": 1, "a bwd-weights": 1}; !reflect.DeepEqual(be.prepares, want) {
		t.Errorf("prepared %v, want %v", be.prepares, want)
	}
}

func TestRunCache(t *testing.T) {
	dir := t.TempDir()
	cache, err := profiler.OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	net := network(layer("conv2d", "a"), layer("unsupported", "u"), layer("linear", "l"))
	o := profiler.Options{Rule: quick, Cache: cache, Batches: []int{2}}
	first, err := profiler.Run(context.Background(), &fakeBackend{}, net, o)
	if err != nil {
		t.Fatal(err)
	}
	be := &fakeBackend{}
	second, err := profiler.Run(context.Background(), be, net, o)
	if err != nil {
		t.Fatal(err)
	}
	if n := be.totalPrepares(); n != 0 {
		t.Errorf("re-profiling prepared %d kernels, want 0: %v", n, be.prepares)
	}
	if second.Meta.Counts.Cached != 9 || second.Meta.Counts.Measured != 0 {
		t.Errorf("second profile counts %+v", second.Meta.Counts)
	}
	for i := range first.Records {
		a, b := first.Records[i], second.Records[i]
		if !b.Cached && b.Status != profiler.Skipped {
			t.Errorf("row %d not from the cache", i)
		}
		b.Cached = false
		if !reflect.DeepEqual(a, b) {
			t.Errorf("row %d:\nmeasured %+v\ncached   %+v", i, a, b)
		}
	}
	// Every entry names the build that measured it (buildid.ID), part of
	// its key: a rebuilt wb, its kernels perhaps changed, measures again
	// (a shared cache served a batch norm's time from before its kernel
	// was rewritten).
	entries, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, f := range entries {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), `"build":"`+buildid.ID()+`"`) {
			t.Errorf("cache entry %s names no build %s: %s", filepath.Base(f), buildid.ID(), b)
		}
	}
	if len(entries) == 0 {
		t.Error("no cache entries")
	}
	// Another batch, backend version or precision is another key.
	o.Batches = []int{3}
	if _, err := profiler.Run(context.Background(), be, net, o); err != nil {
		t.Fatal(err)
	}
	if n := be.totalPrepares(); n != 9 {
		t.Errorf("a new batch prepared %d kernels, want 9", n)
	}
	// So is another measurement method: rounds, a minimum time.
	for _, m := range []func(*profiler.Options){
		func(o *profiler.Options) { o.Rounds = 2 },
		func(o *profiler.Options) { o.Rule.MinTime = time.Millisecond },
	} {
		o2 := o
		m(&o2)
		be := &fakeBackend{}
		if _, err := profiler.Run(context.Background(), be, net, o2); err != nil {
			t.Fatal(err)
		}
		if n := be.prepares["a fwd"]; n != o2.Rounds+max(0, 1-o2.Rounds) {
			t.Errorf("%+v: prepared a fwd %d times: %v", o2, n, be.prepares)
		}
	}
	// An entry from before wb kept the fastest run is measured again.
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	stale := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if old := minField.ReplaceAllString(string(b), ""); old != string(b) {
			os.WriteFile(f, []byte(old), 0o644)
			stale++
		}
	}
	be = &fakeBackend{}
	if _, err := profiler.Run(context.Background(), be, net, o); err != nil {
		t.Fatal(err)
	}
	if stale == 0 || be.totalPrepares() != 6 { // a and l, 3 passes; u's unsupported entries have no time
		t.Errorf("%d entries without a min, %d measured again, want 6", stale, be.totalPrepares())
	}
}

var minField = regexp.MustCompile(`"Min":[0-9.e-]+,`)

func TestRunUnsupportedAndOOM(t *testing.T) {
	net := network(layer("conv2d", "a"), layer("unsupported", "u"), layer("oom", "o"), layer("linear", "l"))
	cache, err := profiler.OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	o := profiler.Options{Rule: quick, Passes: []dnn.Pass{dnn.Forward}, Cache: cache, Predict: predictAll}
	be := &fakeBackend{}
	p, err := profiler.Run(context.Background(), be, net, o)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range p.Records {
		got = append(got, r.Layer+" "+string(r.Status)+" "+r.Reason)
		if (r.Status == profiler.Unsupported || r.Status == profiler.OOM) && (r.Median.OK || r.Ratio.OK || !r.Predicted.OK) {
			t.Errorf("%s: %s row with median %v ratio %v predicted %v", r.Layer, r.Status, r.Median, r.Ratio, r.Predicted)
		}
	}
	want := []string{
		"in skipped no work in this pass",
		"n0 ok ",
		"n1 unsupported fake: unsupported: not supported by this backend",
		"n2 oom fake: 1 TB of buffers: out of memory",
		"n3 ok ",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if c := p.Meta.Counts; c.Unsupported != 1 || c.OOM != 1 || c.OK != 2 {
		t.Errorf("counts %+v", c)
	}
	// Out of memory depends on what else holds memory, so it is tried again.
	be2 := &fakeBackend{}
	if _, err := profiler.Run(context.Background(), be2, net, o); err != nil {
		t.Fatal(err)
	}
	if want := map[string]int{"o fwd": 1}; !reflect.DeepEqual(be2.prepares, want) {
		t.Errorf("second profile prepared %v, want %v", be2.prepares, want)
	}
}

func TestRunOptionsErrors(t *testing.T) {
	_, err := profiler.Run(context.Background(), &fakeBackend{}, network(layer("conv2d", "a")),
		profiler.Options{Batches: []int{0, -3}, Passes: []dnn.Pass{7}, Precision: "int8"})
	for _, want := range []string{"batch 0: want a positive batch size", "batch -3", "unknown pass Pass(7)", `unknown precision "int8"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
}

func TestParse(t *testing.T) {
	passes, err := profiler.ParsePasses("update,bwd,fwd")
	if want := []dnn.Pass{dnn.Forward, dnn.BackwardData, dnn.BackwardWeights, dnn.Update}; err != nil || !reflect.DeepEqual(passes, want) {
		t.Errorf("ParsePasses = %v, %v", passes, err)
	}
	if _, err := profiler.ParsePasses("fwd,back"); err == nil || !strings.Contains(err.Error(), `unknown pass "back" (known: fwd, bwd, bwd-data, bwd-weights, update)`) {
		t.Errorf("ParsePasses(back): %v", err)
	}
	b, err := profiler.ParseBatches("1, 8,8")
	if err != nil || !reflect.DeepEqual(b, []int{1, 8}) {
		t.Errorf("ParseBatches = %v, %v", b, err)
	}
	for in, want := range map[string]string{"0": "batch 0: want a positive batch size", "x": `batch "x": not a number`, "": `batch "": not a number`} {
		if _, err := profiler.ParseBatches(in); err == nil || err.Error() != want {
			t.Errorf("ParseBatches(%q): %v, want %s", in, err, want)
		}
	}
}

func TestRunCancel(t *testing.T) {
	net := network(layer("conv2d", "a"), layer("conv2d", "b"), layer("conv2d", "c"), layer("conv2d", "d"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := profiler.Options{Rule: quick, Progress: func(done, total int, r *profiler.Record) {
		if done == 8 {
			cancel() // Ctrl-C after five rows
		}
	}}
	p, err := profiler.Run(ctx, &fakeBackend{}, net, o)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "interrupted after 8 of 15 rows") {
		t.Fatalf("error %v", err)
	}
	if p == nil || len(p.Records) != 8 || !p.Meta.Interrupted || p.Meta.Counts.Rows != 8 {
		t.Fatalf("profile after cancel: %+v", p)
	}
	path := filepath.Join(t.TempDir(), "out.csv")
	if err := profiler.Write(path, p); err != nil {
		t.Fatal(err)
	}
	back, err := profiler.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Records) != 8 || !back.Meta.Interrupted {
		t.Errorf("read back %v rows, interrupted %v: %v", len(back.Records), back.Meta.Interrupted, err)
	}

	// Cancelled inside the third measurement: its row is dropped, the
	// three skipped rows of "in" and two measured are kept.
	ctx2, cancel2 := context.WithCancel(context.Background())
	be := &cancellingBackend{fakeBackend: &fakeBackend{}, cancel: cancel2, at: 3}
	p, err = profiler.Run(ctx2, be, net, profiler.Options{Rule: quick})
	if !errors.Is(err, context.Canceled) || len(p.Records) != 5 || !p.Meta.Interrupted {
		t.Errorf("cancel in measurement: %d rows, %v", len(p.Records), err)
	}
}

// A backend that fails part of the way stops the profile as an interrupt
// does: the rows so far kept, the profile marked interrupted (so that wb
// train refuses it), the error said.
func TestRunBackendFails(t *testing.T) {
	net := network(layer("conv2d", "a"), layer("conv2d", "b"), layer("conv2d", "c"), layer("conv2d", "d"))
	be := &failingBackend{fakeBackend: &fakeBackend{}, at: 3}
	p, err := profiler.Run(context.Background(), be, net, profiler.Options{Rule: quick})
	if err == nil || !strings.Contains(err.Error(), "device lost") || errors.Is(err, context.Canceled) {
		t.Fatalf("error %v", err)
	}
	if p == nil || !p.Meta.Interrupted || len(p.Records) == 0 {
		t.Fatalf("profile after a backend's failure: %+v", p)
	}
}

// failingBackend fails its at-th Prepare with an error of its own.
type failingBackend struct {
	*fakeBackend
	at, n int
}

func (b *failingBackend) Prepare(l dnn.Layer, batch int, pass dnn.Pass, prec dnn.Precision) (profiler.Kernel, error) {
	if b.n++; b.n == b.at {
		return nil, errors.New("device lost")
	}
	return b.fakeBackend.Prepare(l, batch, pass, prec)
}

// cancellingBackend cancels its context during the at-th measurement.
type cancellingBackend struct {
	*fakeBackend
	cancel func()
	at, n  int
}

func (b *cancellingBackend) Prepare(l dnn.Layer, batch int, pass dnn.Pass, prec dnn.Precision) (profiler.Kernel, error) {
	b.n++
	k, err := b.fakeBackend.Prepare(l, batch, pass, prec)
	if b.n == b.at {
		b.cancel()
	}
	return k, err
}

func sampleRows() []profiler.Record {
	return []profiler.Record{
		{
			Model: "m", Layer: "conv1", Op: "conv2d", Key: "conv2d in=[3×224×224] k=7", Pass: "fwd", Batch: 8, Precision: "fp32",
			Backend: "cpu", Device: "cpu: Test CPU, 2 cores", Status: profiler.OK,
			Median: profiler.Some(1.25e-3), Min: profiler.Some(1.125e-3), P10: profiler.Some(1.2e-3), P90: profiler.Some(1.4e-3), Reps: 37, CV: profiler.Some(0.0731),
			CIRel: profiler.Some(0.0149), Stop: "converged", FLOPs: 1.888e9, Bytes: 3.2e7, FLOPS: profiler.Some(1.888e9 / 1.25e-3),
			Algo: "cudnnConvolutionForward IMPLICIT_PRECOMP_GEMM, math 1", WorkspaceBytes: profiler.Some(4096),
			GBps: profiler.Some(3.2e7 / 1.25e-3 / 1e9), Matrix: true, Predicted: profiler.Some(1e-3), Ratio: profiler.Some(1.25),
			Telemetry: profiler.Telemetry{GPU: "NVIDIA H100 80GB HBM3", GPUUUID: "GPU-1234", Samples: 3, SMClockMHz: profiler.Some(1980),
				PowerW: profiler.Some(312.5), PowerMaxW: profiler.Some(350), TempMaxC: profiler.Some(61)},
		},
		{Model: "m", Layer: "conv2", Op: "conv2d", Key: "k, with \"quotes\"", Pass: "bwd-data", Batch: 8, Precision: "fp32", Backend: "cpu",
			Device: "cpu", Status: profiler.Unsupported, Reason: "grouped, dilated: not supported", Predicted: profiler.Some(2e-3)},
		{Model: "m", Layer: "conv3", Op: "conv2d", Key: "conv2d in=[3×224×224] k=7", Pass: "fwd", Batch: 8, Precision: "fp32", Backend: "cpu", Device: "cpu",
			Status: profiler.OK, SharedWith: "conv1", Cached: true, Median: profiler.Some(1.25e-3), P10: profiler.Some(1.2e-3), P90: profiler.Some(1.4e-3),
			Reps: 10, CV: profiler.Some(0), CIRel: profiler.Some(0), Stop: "budget"},
		{Model: "m", Layer: "flat", Op: "reshape", Key: "r", Pass: "update", Batch: 8, Precision: "fp32", Backend: "cpu", Device: "cpu",
			Status: profiler.Skipped, Reason: "no work in this pass"},
	}
}

func TestCSVRoundTrip(t *testing.T) {
	rows := sampleRows()
	var b bytes.Buffer
	if err := profiler.WriteCSV(&b, rows); err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(b.String(), "\n")
	wantHeader := "model,layer,op,key,pass,batch,precision,backend,device,status,reason,shared_with,cached," +
		"median_s,p10_s,p90_s,reps,cv,ci_rel,stop,flops,bytes,achieved_flops,achieved_gbps,matrix,predicted_s,ratio," +
		"gpu,gpu_uuid,tel_samples,sm_clock_mhz,mem_clock_mhz,power_w,power_max_w,temp_max_c,mem_used_max_bytes,util_gpu_pct,util_mem_pct," +
		"algo,workspace_bytes,min_s"
	if header != wantHeader {
		t.Errorf("header\n%s\nwant\n%s", header, wantHeader)
	}
	// Absent numbers are empty fields, not zeros.
	if !strings.Contains(b.String(), "skipped,no work in this pass,,false,,,,0,,,,0,0,,,false,,,,,0,,,,,,,,") {
		t.Errorf("skipped row's empty columns:\n%s", b.String())
	}
	back, err := profiler.ReadCSV(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, rows) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back, rows)
	}

	var empty bytes.Buffer
	if err := profiler.WriteCSV(&empty, nil); err != nil || !strings.HasPrefix(empty.String(), "model,layer,") {
		t.Errorf("no rows: %q, %v", empty.String(), err)
	}
	// a header without rows is not a profile to learn from: refused
	if back, err := profiler.ReadCSV(&empty); !errors.Is(err, profiler.ErrNoRows) {
		t.Errorf("reading no rows: %v, %v", back, err)
	}
}

// TestCSVReadsOlderColumns reads a profile written before the algo and
// workspace_bytes columns (the header of the bundled CPU profiles): the
// row reads, with both empty.
func TestCSVReadsOlderColumns(t *testing.T) {
	const old = "model,layer,op,key,pass,batch,precision,backend,device,status,reason,shared_with,cached," +
		"median_s,p10_s,p90_s,reps,cv,ci_rel,stop,flops,bytes,achieved_flops,achieved_gbps,matrix,predicted_s,ratio," +
		"gpu,gpu_uuid,tel_samples,sm_clock_mhz,mem_clock_mhz,power_w,power_max_w,temp_max_c,mem_used_max_bytes,util_gpu_pct,util_mem_pct\n" +
		"resnet50,conv1,conv2d,k,fwd,1,fp32,cpu,\"cpu: AMD EPYC, 2 cores\",ok,,,false,0.0122,0.0120,0.0123,12,0.02,0.011,converged," +
		"236027904,3851008,1.93e+10,0.315,true,0.00142,8.59,,,0,,,,,,,,\n"
	rows, err := profiler.ReadCSV(strings.NewReader(old))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Median.V != 0.0122 || rows[0].Algo != "" || rows[0].WorkspaceBytes.OK || rows[0].Min.OK {
		t.Errorf("read %+v", rows)
	}
}

// TestChooserAlgorithmInRows: a kernel that says which algorithm it runs
// fills the algo and workspace_bytes columns of its rows, the rows that
// share its measurement and those read back from the cache.
func TestChooserAlgorithmInRows(t *testing.T) {
	cache, err := profiler.OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	net := network(layer("chosen", "c"), layer("chosen", "c"), layer("conv2d", "plain"))
	for _, round := range []string{"measured", "cached"} {
		p, err := profiler.Run(context.Background(), &fakeBackend{}, net, profiler.Options{Rule: quick, Cache: cache, Passes: []dnn.Pass{dnn.Forward}})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range p.Records {
			switch {
			case r.Op == "chosen" && (r.Algo != "ALGO_fwd" || r.WorkspaceBytes != profiler.Some(4096)):
				t.Errorf("%s: %s: algo %q, workspace %v", round, r.Layer, r.Algo, r.WorkspaceBytes)
			case r.Op != "chosen" && (r.Algo != "" || r.WorkspaceBytes.OK):
				t.Errorf("%s: %s: algo %q, workspace %v from a kernel that does not say", round, r.Layer, r.Algo, r.WorkspaceBytes)
			}
		}
	}
}

func TestCSVRefusesBadRows(t *testing.T) {
	tests := []struct {
		name string
		edit func(r *profiler.Record)
		want string
	}{
		{"NaN", func(r *profiler.Record) { r.Ratio = profiler.Some(math.NaN()) }, "NaN is not a finite number"},
		{"ok without time", func(r *profiler.Record) { r.Median = profiler.Num{} }, "median_s: empty in a row of status ok"},
		{"unknown status", func(r *profiler.Record) { r.Status = "maybe" }, `status "maybe"`},
		{"bad pass", func(r *profiler.Record) { r.Pass = "sideways" }, `unknown pass "sideways"`},
		{"min above median", func(r *profiler.Record) { r.Min = profiler.Some(2e-3) }, "min_s 0.002: want between 0 and the median"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := sampleRows()
			tt.edit(&rows[0])
			err := profiler.WriteCSV(&bytes.Buffer{}, rows)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
	const head = "model,layer,op,key,pass,batch,precision,backend,device,status,shared_with,median_s,reps,stop,flops,bytes,matrix,predicted_s\n"
	_, err := profiler.ReadCSV(strings.NewReader(head + "m,l,relu,k,fwd,1,fp32,cpu,cpu,ok,,abc,1,budget,0,0,false,\n"))
	if err == nil || !strings.Contains(err.Error(), `line 2, column 12 (median_s): `) || !strings.Contains(err.Error(), `"abc" is not a number`) {
		t.Errorf("reading a bad number: %v", err)
	}
	_, err = profiler.ReadCSV(strings.NewReader(head + "m,l,relu,k,fwd,1,fp32,cpu,cpu,ok,,0.1,1,budget,0,0,false,\nm,l,relu,k,fwd,x,fp32,cpu,cpu,ok,,0.1,1,budget,0,0,false,\n"))
	if err == nil || !strings.HasPrefix(err.Error(), `line 3, column 6 (batch): `) {
		t.Errorf("reading a bad batch: %v", err)
	}
	// A CSV that is not a profile (no op column) is refused by its header,
	// not read as rows of empty fields.
	_, err = profiler.ReadCSV(strings.NewReader("model,layer,pass,batch,median_s\nm,l,fwd,1,0.1\n"))
	if err == nil || !strings.Contains(err.Error(), "line 1: missing column(s) op, key, precision, backend, device, status") {
		t.Errorf("no op column: %v", err)
	}
}

func TestSidecar(t *testing.T) {
	net := network(layer("conv2d", "a"), layer("conv2d", "a"))
	cache, err := profiler.OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p, err := profiler.Run(context.Background(), &fakeBackend{}, net, profiler.Options{
		Rule: profiler.Rule{MaxReps: 500, MaxTime: 3 * time.Second, WarmupTime: time.Nanosecond}, Cache: cache,
		Batches: []int{1, 8}, Passes: []dnn.Pass{dnn.Forward, dnn.Update}, Precision: dnn.FP16,
	})
	if err != nil {
		t.Fatal(err)
	}
	p.Meta.WB = "wb test"
	path := filepath.Join(t.TempDir(), "profiles", "fake-test-device-fake.csv")
	if err := profiler.Write(path, p); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"model": "fake", "device": "fake: test device", "predictor_device": "cpu", "backend": "fake",
		"wb_version": "wb test", "versions": `{"fake":"v1"}`,
		"options": `{"batches":[1,8],"cache":` + jsonString(cache.Dir) + `,"max_reps":500,"max_time":"3s","min_reps":10,"passes":["fwd","update"],"precision":"fp16","rel_ci":0.02,"warmup":2,"warmup_time":"1ns"}`,
		"counts":  `{"budget":0,"cached":0,"converged":2,"measured":2,"ok":4,"oom":0,"rows":12,"shared":2,"skipped":8,"unsupported":0}`,
	} {
		got, _ := json.Marshal(m[key])
		if s, ok := m[key].(string); ok {
			got = []byte(s)
		}
		if string(got) != want {
			t.Errorf("sidecar %s = %s, want %s", key, got, want)
		}
	}
	for _, key := range []string{"host", "start", "end"} {
		if m[key] == "" || m[key] == nil {
			t.Errorf("sidecar lacks %s", key)
		}
	}
	timing := m["timing"].(map[string]any)
	if timing["wall_s"].(float64) <= 0 || timing["run_s"].(float64) <= 0 {
		t.Errorf("timing %v", timing)
	}
	if math.Abs(p.Meta.Timing.RunS-24e-3) > 1e-12 { // each key: 2 warm-up + 10 runs of 1 ms; tolerance: ns to s conversion
		t.Errorf("run time %v s, want 0.024", p.Meta.Timing.RunS)
	}
	back, err := profiler.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Records, p.Records) || back.Meta.Start.Compare(p.Meta.Start) != 0 {
		t.Errorf("read back differs")
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestSlugAndPath(t *testing.T) {
	for in, want := range map[string]string{
		"cpu: AMD EPYC 7R13, 2 cores": "cpu-amd-epyc-7r13-2-cores",
		"h100-sxm":                    "h100-sxm",
		"  ":                          "device",
	} {
		if got := profiler.Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
	t.Setenv("WB_CACHE", "/tmp/wbc")
	o := profiler.Options{Batches: []int{1, 8}, Passes: []dnn.Pass{dnn.Forward, dnn.BackwardData}, Precision: dnn.FP32}
	if got, err := profiler.DefaultPath("cpu: Xeon", "onednn", "resnet50", o); err != nil || got != filepath.Join("/tmp/wbc", "results", "cpu-xeon-resnet50-onednn-b1_8-fwd_bwd-data-fp32.csv") {
		t.Errorf("DefaultPath = %s, %v; want it under $WB_CACHE/results", got, err)
	}
}

// fakeSource is NVML as a test script: GPU 0 reads 1000, 1100, 1200, ...
// MHz and 100, 200, ... W, and reports no utilisation.
type fakeSource struct {
	n      int
	closed bool
}

func (s *fakeSource) Devices() ([]nvml.Info, error) {
	return []nvml.Info{{Index: 0, Name: "NVIDIA H100 80GB HBM3", UUID: "GPU-fake", MemoryBytes: 80 << 30, Driver: "550.54.15", CUDA: "12.4",
		Power: nvml.PowerInstant}}, nil
}

func (s *fakeSource) Sample(i int) (nvml.Sample, error) {
	s.n++
	k := float64(s.n)
	return nvml.Sample{SMClockMHz: 900 + 100*k, MemClockMHz: 2619, PowerW: 100 * k, TempC: 40 + k, MemUsedBytes: 1e9 * k,
		UtilGPU: math.NaN(), UtilMem: math.NaN()}, nil
}

func (s *fakeSource) Close() error { s.closed = true; return nil }

func TestTelemetryInRows(t *testing.T) {
	src := &fakeSource{}
	dev := profiler.DeviceInfo{Name: "h100-sxm", Predictor: "h100-sxm"}
	mon, note, closeNVML := nvml.ForProfile(func() (nvml.Source, error) { return src, nil }, dev)
	if mon == nil || note != "telemetry: NVML, GPU 0 NVIDIA H100 80GB HBM3 (GPU-fake), every 10ms; power: "+nvml.PowerInstant {
		t.Fatalf("ForProfile: %v %q", mon, note)
	}
	defer closeNVML()
	// Spinning 30 ms per run, 2 warm-up + 10 runs: ≥ 0.36 s of 10 ms ticks.
	be := &fakeBackend{spin: 30 * time.Millisecond}
	p, err := profiler.Run(context.Background(), be, network(layer("conv2d", "a")), profiler.Options{
		Rule: profiler.Rule{WarmupTime: time.Nanosecond, MaxReps: 10}, Passes: []dnn.Pass{dnn.Forward}, Monitor: mon,
	})
	if err != nil {
		t.Fatal(err)
	}
	r := p.Records[1]
	n := float64(r.Samples)
	// Samples k = 1..n: means 900 + 100(n+1)/2 MHz and 100(n+1)/2 W; maxima at k = n.
	if r.Samples < 10 || r.Samples != src.n || r.GPU != "NVIDIA H100 80GB HBM3" || r.GPUUUID != "GPU-fake" ||
		math.Abs(r.SMClockMHz.V-(900+50*(n+1))) > 1e-9 || r.MemClockMHz.V != 2619 ||
		math.Abs(r.PowerW.V-50*(n+1)) > 1e-9 || r.PowerMaxW.V != 100*n || r.TempMaxC.V != 40+n || r.MemUsedMaxB.V != 1e9*n ||
		r.UtilGPU.OK || r.UtilMem.OK {
		t.Errorf("telemetry %+v", r.Telemetry)
	}
	if g := p.Meta.GPU; g == nil || g.Driver != "550.54.15" || g.CUDA != "12.4" || g.Power != nvml.PowerInstant {
		t.Errorf("sidecar GPU %+v", g)
	}
	if err := closeNVML(); err != nil || !src.closed {
		t.Errorf("close: %v %v", err, src.closed)
	}
}

func TestNoNVML(t *testing.T) {
	open := func() (nvml.Source, error) { return nil, errors.New("libnvidia-ml.so.1 not found (no NVIDIA driver)") }
	mon, note, closeNVML := nvml.ForProfile(open, profiler.DeviceInfo{Name: "h100-sxm", Predictor: "h100-sxm"})
	if mon != nil || note != "telemetry: none: NVML not available: libnvidia-ml.so.1 not found (no NVIDIA driver)" || closeNVML() != nil {
		t.Fatalf("ForProfile without NVML: %v %q", mon, note)
	}
	p, err := profiler.Run(context.Background(), &fakeBackend{}, network(layer("conv2d", "a")), profiler.Options{Rule: quick, Monitor: mon})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := profiler.WriteCSV(&b, p.Records); err != nil {
		t.Fatal(err)
	}
	// Empty telemetry, then the empty algo and workspace_bytes of a
	// kernel that does not say what it runs, then the fastest run.
	if lines := strings.Split(strings.TrimSpace(b.String()), "\n"); !strings.HasSuffix(lines[len(lines)-1], ",,,0,,,,,,,,,,,0.001") {
		t.Errorf("telemetry columns not empty: %s", lines[len(lines)-1])
	}
	// NVML present, but the CPU backend's runs are not a GPU's.
	mon, note, _ = nvml.ForProfile(func() (nvml.Source, error) { return &fakeSource{}, nil }, profiler.DeviceInfo{Name: "cpu: x", Predictor: "cpu"})
	if mon != nil || !strings.Contains(note, "backend runs on the CPU") {
		t.Errorf("CPU backend: %v %q", mon, note)
	}
}

func TestSummarize(t *testing.T) {
	b2 := layer("linear", "b")
	b2.work[0].FLOPs = 2e6
	net := network(layer("conv2d", "a"), b2, layer("unsupported", "u"))
	p, err := profiler.Run(context.Background(), &fakeBackend{}, net, profiler.Options{Rule: quick, Predict: predictAll})
	if err != nil {
		t.Fatal(err)
	}
	s := profiler.Summarize(p.Records)
	if len(s) != 1 || s[0].Batch != 1 {
		t.Fatalf("summaries %+v", s)
	}
	top := s[0].Layers[0]
	// n1: 3 passes of 2 ms against 3 predicted 2 ms.
	if top.Name != "n1" || top.Measured != 6e-3 || top.Predicted != 6e-3 || top.Ratio() != 1 || top.OK != 3 {
		t.Errorf("top layer %+v", top)
	}
	if u := s[0].Layers[3]; u.Name != "n2" || u.Unsupported != 3 || u.Measured != 0 {
		t.Errorf("unsupported layer %+v", u)
	}
	if len(s[0].Passes) != 3 || s[0].Passes[0].Name != "fwd" || s[0].Passes[0].Measured != 3e-3 || s[0].Passes[0].Predicted != 4e-3 {
		t.Errorf("passes %+v", s[0].Passes)
	}
	if tot := s[0].Total; tot.OK != 6 || tot.Unsupported != 3 || tot.Skipped != 3 || math.Abs(tot.Measured-9e-3) > 1e-15 { // tolerance: sums of 1e-3
		t.Errorf("total %+v", tot)
	}
	if ops := s[0].Ops; len(ops) != 4 || ops[0].Name != "linear" {
		t.Errorf("ops %+v", ops)
	}
}

// TestIteration: with Options.Iteration a profile also times the whole
// iteration end to end: every layer pass once per run (9 here, 1 ms
// each), its buffers freed after, and the rows summed beside it.
func TestIteration(t *testing.T) {
	b := &fakeBackend{spin: time.Millisecond}
	n := network(layer("a", "ka"), layer("b", "kb"), layer("c", "kc"))
	p, err := profiler.Run(context.Background(), b, n, profiler.Options{
		Rule: profiler.Rule{MaxReps: 3, MinReps: 1, Warmup: 1}, Iteration: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Meta.Iterations) != 1 {
		t.Fatalf("iterations %+v, want one", p.Meta.Iterations)
	}
	it, rows := p.Meta.Iterations[0], len(p.Records)
	if it.Kernels != 9 || it.Runs < 3 || it.Batch != 1 || len(it.Passes) != 3 {
		t.Errorf("iteration %+v: want 9 kernels, 3 passes, at least 3 runs", it)
	}
	if it.Min < 9e-3 || it.Median < it.Min || it.Median > 0.5 {
		t.Errorf("iteration of nine 1 ms kernels: median %g s, fastest %g s", it.Median, it.Min)
	}
	if it.RowsMedian < 9e-3 || it.RowsMedian > 0.1 {
		t.Errorf("rows summed %g s, want about 9 ms", it.RowsMedian)
	}
	if b.closes != b.totalPrepares() {
		t.Errorf("%d kernels prepared, %d closed", b.totalPrepares(), b.closes)
	}
	// an iteration whose buffers do not fit is a note, not an error
	p, err = profiler.Run(context.Background(), &fakeBackend{}, network(layer("a", "ka"), layer("oom", "ko")),
		profiler.Options{Rule: profiler.Rule{MaxReps: 3, MinReps: 1}, Iteration: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Meta.Iterations) != 0 || !strings.Contains(strings.Join(p.Meta.Notes, "\n"), "whole iteration not measured") {
		t.Errorf("iterations %+v, notes %q", p.Meta.Iterations, p.Meta.Notes)
	}
	// Ctrl-C while the whole iteration is timed (its kernels prepared
	// after the rows') interrupts the profile, every row kept: not a note
	// in a profile that then passes for complete
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cb := &cancellingBackend{fakeBackend: &fakeBackend{}, cancel: cancel, at: 9 + 2}
	p, err = profiler.Run(ctx, cb, n, profiler.Options{Rule: profiler.Rule{MaxReps: 3, MinReps: 1, Warmup: 1}, Iteration: true})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "during the whole iteration of batch 1") {
		t.Fatalf("interrupted in the whole iteration: error %v", err)
	}
	if !p.Meta.Interrupted || len(p.Records) != rows || len(p.Meta.Iterations) != 0 {
		t.Errorf("interrupted in the whole iteration: interrupted %v, %d rows (want %d), iterations %+v", p.Meta.Interrupted, len(p.Records), rows, p.Meta.Iterations)
	}
}

// TestIterationRounds: in rounds the whole iteration is prepared after the
// first round, held beside the passes being measured, and timed after
// every round: its runs (iterationRuns' 20 for a fast one, 7 a round)
// pooled.
func TestIterationRounds(t *testing.T) {
	b := &fakeBackend{}
	n := network(layer("a", "ka"), layer("b", "kb"), layer("c", "kc"))
	var atRound []int // Time calls so far at each round's start
	p, err := profiler.Run(context.Background(), b, n, profiler.Options{
		Rule: quick, Rounds: 3, Iteration: true,
		RoundProgress: func(r profiler.RoundReport) {
			if r.Done == 0 {
				b.mu.Lock()
				atRound = append(atRound, len(b.timed))
				b.mu.Unlock()
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Meta.Iterations) != 1 {
		t.Fatalf("iterations %+v, want one", p.Meta.Iterations)
	}
	if it := p.Meta.Iterations[0]; it.Runs != 21 || it.Kernels != 9 || it.Min <= 0 || it.Median < it.Min {
		t.Errorf("iteration %+v: want 21 runs (7 after each of 3 rounds) of 9 kernels", it)
	}
	// a Time call with the iteration's 9 kernels open and no other is one
	// of its runs (a pass measured holds one kernel: 1 open, 10 while the
	// iteration's are held)
	whole := func(from, to int) int {
		c := 0
		for _, open := range b.timed[from:to] {
			if open == 9 {
				c++
			}
		}
		return c
	}
	if len(atRound) != 3 {
		t.Fatalf("round starts %v, want 3", atRound)
	}
	// warm-up and 7 runs of 9 kernels after rounds 1 and 2, 7 after 3
	if w1, w2, w3 := whole(0, atRound[1]), whole(atRound[1], atRound[2]), whole(atRound[2], len(b.timed)); w1 != 8*9 || w2 != 7*9 || w3 != 7*9 {
		t.Errorf("iteration kernels timed before round 2 %d, during it %d, after %d: want 72, 63, 63", w1, w2, w3)
	}
	if b.maxOpen != 10 {
		t.Errorf("at most %d kernels open: want 10: the iteration's 9 held while passes are measured", b.maxOpen)
	}
	if b.closes != b.totalPrepares() || b.open != 0 {
		t.Errorf("%d kernels prepared, %d closed", b.totalPrepares(), b.closes)
	}
}

// TestIterationEstimate: a profile in rounds tells, as it prepares each
// batch's whole iteration after the first round, how long the iterations
// from it on should take: per batch nine 1 ms passes, a whole iteration
// taken as 1.5× their sum (13.5 ms), timed in a warm-up and 20 runs (the
// most MeasureIteration makes under a second) shared out over the 2
// rounds, 283.5 ms, plus the fake's negligible preparing. During the first
// round it tells the iterations the passes timed so far make; at the second
// round's start what is left of the iterations prepared: each
// batch's 10 runs of the last round, at its warm-up's time (nine kernels
// spinning 1 ms: about 9 ms).
func TestIterationEstimate(t *testing.T) {
	n := network(layer("a", "ka"), layer("b", "kb"), layer("c", "kc"))
	var ahead []time.Duration
	type told struct{ batch, i, n int }
	var iters []told
	var left []time.Duration
	_, err := profiler.Run(context.Background(), &fakeBackend{}, n, profiler.Options{
		Rule: quick, Rounds: 2, Batches: []int{1, 2}, Iteration: true,
		IterationsAhead: func(d time.Duration) { ahead = append(ahead, d) },
		IterationProgress: func(batch, i, n int, l time.Duration) {
			iters = append(iters, told{batch, i, n})
			left = append(left, l)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	const one = 21 * 13.5e-3 // seconds a batch
	near := func(d time.Duration, batches int) bool {
		want := float64(batches) * one
		return d.Seconds() >= want-1e-9 && d.Seconds() < want+0.05
	}
	if !slices.Equal(iters, []told{{1, 1, 2}, {2, 2, 2}}) || !near(left[0], 2) || !near(left[1], 1) {
		t.Errorf("iterations told %v with %v left, want batches 1 and 2 with about %.4g s and %.4g s", iters, left, 2*one, one)
	}
	// the spinning kernels are timed by the wall clock, which a loaded
	// machine stretches (a warm-up preempted for 280 ms told 5.8 s where
	// about 180 ms is right, in a clean clone's CI run beside other
	// work): the run is tried up to four times, 1, 2 and 4 s apart (three
	// tries back to back all failed beside a whole other go test run on
	// 2 cores), and fails if none of them tells what it should
	spun := func() []string {
		ahead = nil
		t0 := time.Now()
		_, err := profiler.Run(context.Background(), &fakeBackend{spin: time.Millisecond}, n, profiler.Options{
			Rule: quick, Rounds: 2, Batches: []int{1, 2}, Iteration: true,
			IterationsAhead: func(d time.Duration) { ahead = append(ahead, d) },
		})
		if err != nil {
			t.Fatal(err)
		}
		// during the first round, after a pass at most once a second, the
		// whole job's iterations as the passes timed so far make them (2
		// batches × 21 runs × 1.5 × nine 1 ms passes; the 18 passes here take
		// well under a second: told once, or once more a second a loaded
		// machine takes); at the second round's start what is left of the
		// iterations prepared
		if most := 3 + int(time.Since(t0).Seconds()); len(ahead) < 2 || len(ahead) > most {
			return []string{fmt.Sprintf("rounds told iterations ahead %d times (%v), want once or twice in the first round and once at the second's start", len(ahead), ahead)}
		}
		var bad []string
		for i, d := range ahead[:len(ahead)-1] {
			// a batch none of whose passes is timed yet counts nothing
			if d < 21*13*time.Millisecond || d > 2*21*45*time.Millisecond {
				bad = append(bad, fmt.Sprintf("first round, report %d: told %v ahead, want about %v a batch timed", i+1, d, 21*27*time.Millisecond/2))
			}
		}
		if last := ahead[len(ahead)-1]; last < 2*10*9*time.Millisecond || last > 2*10*30*time.Millisecond {
			bad = append(bad, fmt.Sprintf("at the second round's start told %v, want about %v", last, 2*10*9*time.Millisecond))
		}
		return bad
	}
	var bad []string
	for try := 0; try < 4; try++ {
		if try > 0 {
			time.Sleep(time.Second << (try - 1))
		}
		if bad = spun(); len(bad) == 0 {
			break
		}
		t.Logf("try %d: %s", try+1, strings.Join(bad, "; "))
	}
	for _, b := range bad {
		t.Error(b)
	}

	// one round: told after each pass measured, the passes not yet timed
	// counted as the timed ones; a batch with a pass that cannot run
	// (its iteration fails) counts nothing
	ahead = nil
	_, err = profiler.Run(context.Background(), &fakeBackend{}, n, profiler.Options{
		Rule: quick, Batches: []int{1}, Iteration: true,
		IterationsAhead: func(d time.Duration) { ahead = append(ahead, d) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(ahead) != 9 || !near(ahead[0], 1) || !near(ahead[8], 1) {
		t.Errorf("one round told %v, want 9 estimates of about %.4g s", ahead, one)
	}
	ahead = nil
	_, err = profiler.Run(context.Background(), &fakeBackend{}, network(layer("a", "ka"), layer("oom", "ko")), profiler.Options{
		Rule: quick, Batches: []int{1}, Iteration: true,
		IterationsAhead: func(d time.Duration) { ahead = append(ahead, d) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(ahead) == 0 || ahead[len(ahead)-1] != 0 {
		t.Errorf("a batch with a pass out of memory: told %v, want 0 at the end", ahead)
	}
}

// TestRunSeesOthers: a profile made beside another process's busy loop
// says what that process took of wb's CPUs (the gate's probe, microseconds
// long, fits within its time slices and sees nothing: a reviewer's find),
// in the sidecar's others, per key and over the profile, and leaves the
// keys it disturbed out of the cache.
func TestRunSeesOthers(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/stat is Linux's")
	}
	// a busy loop a CPU (up to 8): one loop beside the other test
	// binaries of a 2-core CI machine got half a CPU, and one of the two
	// keys read undisturbed
	for range min(runtime.NumCPU(), 8) {
		busy := exec.Command("sh", "-c", "while :; do :; done")
		if err := busy.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { busy.Process.Kill(); busy.Wait() }()
	}
	time.Sleep(50 * time.Millisecond)
	cache, err := profiler.OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// keys of 60 runs of 5 ms: 30 ticks each, over the judged least
	net := network(layer("conv2d", "a"), layer("linear", "l"))
	p, err := profiler.Run(context.Background(), &fakeBackend{spin: 5 * time.Millisecond}, net,
		profiler.Options{Rule: profiler.Rule{MinReps: 60, MaxReps: 60, WarmupTime: time.Nanosecond}, Batches: []int{1}, Passes: []dnn.Pass{dnn.Forward}, Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	o := p.Meta.Others
	// the busy loops run on the CPUs wb may use (they inherit the
	// affinity): at least one CPU taken, whatever the machine's size
	if o == nil || !(o.CPUs >= 0.6) || o.Judged != 2 || o.Keys != 2 || o.Threshold != profiler.OthersThreshold || !o.Disturbed() {
		t.Fatalf("others %+v, want about a CPU taken and both keys judged disturbed beside a busy loop", o)
	}
	if !slices.ContainsFunc(p.Meta.Notes, func(n string) bool { return strings.Contains(n, "other processes (or the hypervisor) took") }) {
		t.Errorf("no note of the others' load: %q", p.Meta.Notes)
	}
	if files, _ := filepath.Glob(filepath.Join(cache.Dir, "*.json")); len(files) != 0 {
		t.Errorf("%d disturbed keys cached", len(files))
	}
	// unless asked to (--cache-disturbed)
	if _, err := profiler.Run(context.Background(), &fakeBackend{spin: 5 * time.Millisecond}, net,
		profiler.Options{Rule: profiler.Rule{MinReps: 60, MaxReps: 60, WarmupTime: time.Nanosecond}, Batches: []int{1}, Passes: []dnn.Pass{dnn.Forward}, Cache: cache, CacheDisturbed: true}); err != nil {
		t.Fatal(err)
	}
	if files, _ := filepath.Glob(filepath.Join(cache.Dir, "*.json")); len(files) != 2 {
		t.Errorf("%d keys cached with CacheDisturbed, want 2", len(files))
	}
}

// TestRunCacheMachine: a measurement cached keeps the machine as its
// profile measured it; a later profile that takes it while the machine
// measures otherwise (the peak 1.75× apart, as the 2-core VM's sittings a
// day apart were) counts it and says so, where one of the same machine
// does not (the sidecar's figures were now's, the rows' times not: a
// reviewer's find).
func TestRunCacheMachine(t *testing.T) {
	cache, err := profiler.OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	then := &profiler.Machine{Threads: 2, ISA: "avx512", PeakFLOPs: 476e9, MemBandwidth: 33e9}
	net := network(layer("conv2d", "a"), layer("linear", "l"))
	run := func(m *profiler.Machine) *profiler.Profile {
		p, err := profiler.Run(context.Background(), &fakeBackend{}, net, profiler.Options{Rule: quick, Cache: cache, Batches: []int{1}, Machine: m})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if p := run(then); p.Meta.Counts.Measured == 0 || p.Meta.Counts.CachedElsewhen != 0 {
		t.Fatalf("first profile counts %+v", p.Meta.Counts)
	}
	same := *then
	same.PeakFLOPs *= 1.05
	if p := run(&same); p.Meta.Counts.Cached == 0 || p.Meta.Counts.CachedElsewhen != 0 {
		t.Errorf("the same machine (peak 5%% apart): counts %+v", p.Meta.Counts)
	}
	now := *then
	now.PeakFLOPs, now.MemBandwidth = 272e9, 13.8e9
	p := run(&now)
	if c := p.Meta.Counts; c.Cached == 0 || c.CachedElsewhen != c.Cached {
		t.Errorf("the machine measuring otherwise: counts %+v", c)
	}
	if !slices.ContainsFunc(p.Meta.Notes, func(n string) bool {
		return strings.Contains(n, "keys taken from the cache were measured while the machine measured otherwise than now")
	}) {
		t.Errorf("no note: %q", p.Meta.Notes)
	}
}
