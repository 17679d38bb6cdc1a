package neusight

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wb-sim/wb/internal/readcap"
)

func bundled(t testing.TB) *Dir {
	t.Helper()
	p, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	d, err := ReadDir(p)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The bundled copy holds what its README says: nine spec sheets, 40 plain
// labels on five GPUs (and 4 fused ones), and ops of 16 families on five GPUs.
func TestBundled(t *testing.T) {
	d := bundled(t)
	if len(d.Devices) != 9 {
		t.Errorf("%d spec sheets, want 9", len(d.Devices))
	}
	plain, fused, train := 0, 0, 0
	gpus := map[string]bool{}
	for _, l := range d.Labels {
		gpus[l.GPU] = true
		if l.Fused {
			fused++
			continue
		}
		plain++
		if l.Mode == Training {
			train++
			if l.Back <= 0 || math.Abs(l.Forward+l.Back-l.E2E) > 1e-6*l.E2E {
				t.Errorf("%+v: forward + backward is not e2e", l)
			}
		}
	}
	if plain != 40 || fused != 4 || train != 3 || len(gpus) != 5 {
		t.Errorf("%d plain labels (%d training), %d fused, on %d GPUs; want 40 (3), 4, 5", plain, train, fused, len(gpus))
	}
	for _, fam := range Families() {
		g, err := d.OpGPUs(fam)
		if err != nil {
			t.Fatal(err)
		}
		if len(g) != 5 {
			t.Errorf("%s: ops on %v, want five GPUs", fam, g)
		}
	}
	h := d.Devices["NVIDIA_H100_80GB_HBM3"]
	if h.SMs != 132 || h.LanesPerSM != 128 || h.FP32GFLOPs != 66908 || h.BandwidthGB != 3430 {
		t.Errorf("H100 spec sheet %+v", h)
	}
}

// Reading every op file: the row counts of the source (256,509 rows in all, counted with Python's csv module)
// and each row's device name matches its file's GPU.
func TestReadOps(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 256k rows")
	}
	d := bundled(t)
	total := 0
	for _, fam := range Families() {
		gpus, _ := d.OpGPUs(fam)
		for _, g := range gpus {
			ops, err := d.Ops(fam, g)
			if err != nil {
				t.Fatal(err)
			}
			total += len(ops)
			for i := range ops {
				o := &ops[i]
				if strings.ReplaceAll(o.Device, " ", "_") != g {
					t.Fatalf("%s/%s line %d: device %q", fam, g, o.Line, o.Device)
				}
				if !(o.FLOPs() > 0) || !(o.Latency > 0) {
					t.Fatalf("%s/%s line %d: %+v", fam, g, o.Line, o)
				}
			}
		}
	}
	if total != 256509 {
		t.Errorf("%d op rows, want 256,509", total)
	}
}

func TestReadOpsErrors(t *testing.T) {
	for _, c := range []struct{ in, fam, want string }{
		{"OPName,Latency,B,M,N,K\nlinear,0.1,1,2,3,0\n", Linear, "x.csv:2: K: 0 is outside [1, 1048576]"},
		{"OPName,Latency,B,M,N,K\nbmm,0.1,1,2,3,4\n", Linear, `x.csv:2: OPName: "bmm" in a file of linear ops`},
		{"OPName,Latency,B,M,N\nlinear,0.1,1,2,3\n", Linear, "missing column(s) K"},
		{"OPName,Latency,B,H\nadd,-1,1,2\n", "add", "x.csv:2: Latency: -1 ms: want a positive time"},
		{"OPName,Latency,B,H\nadd,NaN,1,2\n", "add", "x.csv:2: Latency"},
		{"OPName,Latency,B,H\nadd,1,1,2\n", "sub", `unknown op family "sub"`},
		{"OPName,Latency,B,Input_Channel,Output_Channel,Kernel_Szie,Input_Size,Stride,Padding\nconv,1,1,3,8,9,4,1,1\n", Conv, "kernel 9 larger than the padded input 6"},
	} {
		_, err := ReadOpsFrom(strings.NewReader(c.in), "x.csv", c.fam)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
	}
}

func TestLabelName(t *testing.T) {
	l, err := ParseLabelName("gpt3_27-train-2048-8-fusion.json")
	if err != nil || l.Model != "gpt3_27" || l.Mode != Training || l.Seq != 2048 || l.Batch != 8 || !l.Fused || l.GPUs != 1 {
		t.Errorf("%+v %v", l, err)
	}
	l, err = ParseLabelName("gpt2_large-train-1024-4-dp4.json")
	if err != nil || l.GPUs != 4 || l.DP != 4 || l.TP != 1 || l.PP != 1 {
		t.Errorf("%+v %v", l, err)
	}
	// NeuSight's pipeline-parallel labels: stages _ micro-batches
	l, err = ParseLabelName("gpt2_large-train-1024-16-pp4_8.json")
	if err != nil || l.GPUs != 4 || l.PP != 4 || l.DP != 1 || l.MicroBatches != 8 || l.Variant != "" {
		t.Errorf("%+v %v", l, err)
	}
	l, err = ParseLabelName("m-train-1-1-dp1024-tp1024-pp2_3.json")
	if err != nil || l.GPUs != 1024*1024 || l.DP != 1024 || l.TP != 1024 || l.PP != 1 || l.MicroBatches != 0 || l.Variant != "pp2_3" {
		t.Errorf("GPU count past MaxDim: %+v %v", l, err)
	}
	l, err = ParseLabelName("m-train-1-1-tp2-tp2.json")
	if err != nil || l.GPUs != 2 || l.TP != 2 || l.Variant != "tp2" {
		t.Errorf("a degree given twice: %+v %v", l, err)
	}
	l, err = ParseLabelName("m-train-1-1-dp1-dp4.json")
	if err != nil || l.GPUs != 1 || l.DP != 1 || l.Variant != "dp4" {
		t.Errorf("a degree given twice, the first 1: %+v %v", l, err)
	}
	l, err = ParseLabelName("gpt2_large-train-1024-16-dp0-tp2_3.json")
	if err != nil || l.GPUs != 1 || l.Variant != "dp0-tp2_3" {
		t.Errorf("%+v %v", l, err)
	}
	l, err = ParseLabelName("bert-inf-512-8-fast-x2.json")
	if err != nil || l.Variant != "fast-x2" || l.Fused {
		t.Errorf("%+v %v", l, err)
	}
	// a degree with a leading zero is no degree read: a variant
	l, err = ParseLabelName("bert-inf-512-8-tp02.json")
	if err != nil || l.GPUs != 1 || l.TP != 1 || l.Variant != "tp02" {
		t.Errorf("tp02: %+v %v", l, err)
	}
	for _, bad := range []string{"x.csv", "bert-inf-512.json", "bert-eval-512-8.json", "bert-inf-0-8.json", "-inf-1-1.json", "bert-inf-512-99999999999.json",
		"bert-inf-0512-8.json", "bert-inf-512-08.json"} {
		if _, err := ParseLabelName(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestParseDevice(t *testing.T) {
	good := `{"Device":"X","Dev_Mem":16,"Mem_Bw":900,"Num_Sm":80,"Core_Per_SM":64,"Freq":1370,"SingleFLOPs":14029,"L2Cache":6}`
	if _, err := ParseDevice([]byte(good), "x.json"); err != nil {
		t.Fatal(err)
	}
	// counts written as whole floats, as Python and pandas write them, read
	// as the counts; in a folder's sheet (other fields beside) too
	whole := strings.Replace(strings.Replace(good, `"Num_Sm":80`, `"Num_Sm":80.0`, 1), `"Core_Per_SM":64`, `"Core_Per_SM":6.4e1`, 1)
	if d, err := ParseDevice([]byte(whole), "x.json"); err != nil || d.SMs != 80 || d.LanesPerSM != 64 {
		t.Errorf("whole floats: %+v, %v", d, err)
	}
	if d, extra, err := parseDeviceLoose([]byte(strings.Replace(whole, `}`, `,"TDP":250}`, 1)), "x.json"); err != nil || d.SMs != 80 || len(extra) != 1 {
		t.Errorf("whole floats beside another field: %+v, %v", d, err)
	}
	// a sheet with a field wb does not read says every figure of the
	// wrong type too (it said the first alone)
	two := strings.Replace(strings.Replace(good, `"Mem_Bw":900`, `"Mem_Bw":"900"`, 1), `"Freq":1370`, `"Freq":"1370"`, 1)
	if _, _, err := parseDeviceLoose([]byte(strings.Replace(two, `}`, `,"TDP":250}`, 1)), "x.json"); err == nil ||
		!strings.Contains(err.Error(), "Mem_Bw: a JSON string, want a number\nx.json:1:72: Freq: a JSON string") {
		t.Errorf("two strings beside another field: %v", err)
	}
	for _, c := range []struct{ in, want string }{
		{strings.Replace(good, `"Freq"`, `"Freqq"`, 1), `x.json:1:70: unknown field "Freqq"`},
		{strings.Replace(good, `14029`, `28000`, 1), "Num_Sm × Core_Per_SM × 2 × Freq / 1000 is 14029: the fp32 peak must lie within 10% of it (a tensor-core"},
		{strings.Replace(good, `14029`, `14.029`, 1), "(a figure in TFLOP/s? SingleFLOPs is in GFLOP/s: multiply by 1000)"},
		{strings.Replace(good, `14029`, `11000`, 1), "(check Num_Sm, Core_Per_SM (fp32 lanes, not tensor cores) and Freq"},
		{strings.Replace(good, `900`, `-1`, 1), "Mem_Bw: -1"},
		// figures in the wrong unit: L2 in KB, memory in MB
		{strings.Replace(good, `"L2Cache":6`, `"L2Cache":6144`, 1), "x.json:1:102: L2Cache: 6144: want the L2 cache in MB"},
		{strings.Replace(good, `"Dev_Mem":16`, `"Dev_Mem":16384`, 1), "Dev_Mem: 16384: want the device memory in GB"},
		{strings.Replace(good, `"L2Cache":6`, `"L2Cache":4096`, 1), "L2Cache: 4096: want the L2 cache in MB"},
		{strings.Replace(good, `"Mem_Bw":900`, `"Mem_Bw":0.9`, 1), "Mem_Bw: 0.9: want the memory bandwidth in GB/s"},
		{good + good, "more than one JSON value"},
		// a field left out is named as missing, not as a zero figure; a
		// figure of the wrong JSON type by its field
		{strings.Replace(good, `"Freq":1370,`, ``, 1), "x.json: no Freq (a spec sheet has the fields Device, Dev_Mem"},
		{strings.Replace(strings.Replace(good, `"Freq":1370,`, ``, 1), `,"L2Cache":6`, ``, 1), "x.json: no Freq, L2Cache ("},
		{strings.Replace(good, `"Freq":1370`, `"Freq":"1370"`, 1), `x.json:1:70: Freq: a JSON string, want a number`},
		{strings.Replace(good, `"Num_Sm":80`, `"Num_Sm":79.5`, 1), `x.json:1:41: Num_Sm: a JSON number 79.5, want a whole number`},
		{strings.Replace(good, `"Core_Per_SM":64`, `"Core_Per_SM":1e300`, 1), `Core_Per_SM: a JSON number 1e+300, want a whole number`},
		{strings.Replace(good, `"Num_Sm":80`, `"Num_Sm":"80"`, 1), `x.json:1:41: Num_Sm: a JSON string, want a whole number`},
		// every figure of the wrong type, each at its place (the first
		// alone was said)
		{strings.Replace(strings.Replace(good, `"Mem_Bw":900`, `"Mem_Bw":"900"`, 1), `"Freq":1370`, `"Freq":true`, 1), "Mem_Bw: a JSON string, want a number\nx.json:1:72: Freq: a JSON bool, want a number"},
		{strings.Replace(strings.Replace(good, `"Device":"X"`, `"Device":5`, 1), `"Num_Sm":80`, `"Num_Sm":[80]`, 1), "Device: a JSON number, want a string"},
		{strings.Replace(strings.Replace(good, `"Mem_Bw":900`, `"Mem_Bw":1e999`, 1), `"Freq":1370`, `"Freq":"1370"`, 1), "Mem_Bw: a JSON number 1e999, out of range\nx.json:1:72: Freq: a JSON string"},
		{strings.Replace(good, `"Mem_Bw":900`, `"Mem_Bw":1e999`, 1), "Mem_Bw: a JSON number 1e999, out of range"},
		// a count with a fraction beside a figure of the wrong type: both
		// (the fraction was met only after mending the other)
		{strings.Replace(strings.Replace(good, `"Mem_Bw":900`, `"Mem_Bw":"900"`, 1), `"Num_Sm":80`, `"Num_Sm":79.5`, 1), "Mem_Bw: a JSON string, want a number\nx.json:1:43: Num_Sm: a JSON number 79.5, want a whole number"},
		{"[" + good + "]", `x.json: a JSON array, want an object with the fields Device, Dev_Mem`},
		// a figure given as null, or twice in two cases (encoding/json
		// would keep the last)
		{strings.Replace(good, `"L2Cache":6`, `"L2Cache":null`, 1), `x.json: L2Cache: null: want a figure`},
		{strings.Replace(good, `"Num_Sm":80`, `"Num_Sm":80,"num_sm":36`, 1), `x.json:1:53: num_sm: given twice (first as "Num_Sm", at line 1, column 41;`},
		{strings.Replace(good, `"Num_Sm":80`, `"Num_Sm":60,"Num_Sm":80`, 1), `x.json:1:53: Num_Sm: given twice (first at line 1, column 41;`},
	} {
		_, err := ParseDevice([]byte(c.in), "x.json")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "x.json:") {
			t.Errorf("%s: error %v, want %q", c.in, err, c.want)
		}
	}
}

// ReadDevice reads a sheet as a folder's sheets are read: other tools'
// fields ignored and named (ReadDeviceNotes), a missing field an error
// that names what the sheet has instead.
func TestReadDeviceLenient(t *testing.T) {
	dir := t.TempDir()
	good := `{"Device":"X","Dev_Mem":16,"Mem_Bw":900,"Num_Sm":80,"Core_Per_SM":64,"Freq":1370,"SingleFLOPs":14029,"L2Cache":6`
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	d, extra, err := ReadDeviceNotes(write("extra.json", good+`,"TDP":250,"Arch":"volta"}`))
	if err != nil || d.ClockMHz != 1370 || strings.Join(extra, " ") != "Arch TDP" {
		t.Errorf("extra fields: %+v %v %v", d, extra, err)
	}
	if _, err := ReadDevice(write("typo.json", strings.Replace(good, `"Freq"`, `"Frequency"`, 1)+"}")); err == nil ||
		!strings.Contains(err.Error(), "no Freq (") || !strings.Contains(err.Error(), "it has Frequency, which wb does not read") {
		t.Errorf("a misspelt field: %v", err)
	}
	if _, err := ReadDevice(write("twice.json", strings.Replace(good, `"Num_Sm":80`, `"Num_Sm":80,"NUM_SM":36`, 1)+`,"TDP":1}`)); err == nil ||
		!strings.Contains(err.Error(), `twice.json:1:53: NUM_SM: given twice (first as "Num_Sm", at line 1, column 41;`) {
		t.Errorf("a figure given twice beside an extra field: %v", err)
	}
	if _, err := ReadDevice(write("str.json", strings.Replace(good, `"Freq":1370`, `"Freq":"1370"`, 1)+`,"TDP":1}`)); err == nil ||
		!strings.Contains(err.Error(), "Freq: a JSON string, want a number") {
		t.Errorf("a string figure beside an extra field: %v", err)
	}
	if _, err := ReadDevice(write("frac.json", strings.Replace(good, `"Num_Sm":80`, `"Num_Sm":79.5`, 1)+`,"TDP":1}`)); err == nil ||
		!strings.Contains(err.Error(), "frac.json:1:41: Num_Sm: a JSON number 79.5, want a whole number") {
		t.Errorf("a count with a fraction beside an extra field: %v", err)
	}
	if _, err := ReadDevice(write("both.json", strings.Replace(strings.Replace(good, `"Num_Sm":80`, `"Num_Sm":79.5`, 1), `"Freq":1370`, `"Freq":"1370"`, 1)+`,"TDP":1}`)); err == nil ||
		!strings.Contains(err.Error(), "both.json:1:41: Num_Sm: a JSON number 79.5, want a whole number") || !strings.Contains(err.Error(), "Freq: a JSON string, want a number") {
		t.Errorf("a count with a fraction beside a string figure: %v", err)
	}
}

func TestReadDirErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadDir(dir); err == nil || !strings.Contains(err.Error(), "no spec sheets") {
		t.Errorf("empty folder: %v", err)
	}
	os.MkdirAll(filepath.Join(dir, "devices"), 0o755)
	os.MkdirAll(filepath.Join(dir, "labels", "G"), 0o755)
	os.WriteFile(filepath.Join(dir, "devices", "H.json"), []byte(`{"Device":"H","Dev_Mem":16,"Mem_Bw":900,"Num_Sm":80,"Core_Per_SM":64,"Freq":1370,"SingleFLOPs":14029,"L2Cache":6}`), 0o644)
	os.WriteFile(filepath.Join(dir, "labels", "G", "bert-inf-512-8.json"), []byte(`{"num_layer":24,"e2e_latency":1}`), 0o644)
	os.WriteFile(filepath.Join(dir, "labels", "G", "notes.json"), []byte(`{}`), 0o644)
	os.WriteFile(filepath.Join(dir, "labels", "G", "bert-inf-512-16.json"), []byte(`{"e2e_latency":`), 0o644)
	d, err := ReadDir(dir)
	if err != nil || len(d.Labels) != 1 || d.Labels[0].GPU != "G" {
		t.Errorf("a label without a spec sheet is kept: %v %+v", err, d)
	}
	if d != nil && (len(d.Unread) != 2 || !strings.Contains(strings.Join(d.Unread, "\n"), `labels/G: label "notes.json"`)) {
		t.Errorf("unread labels: %q", d.Unread)
	}
	// a folder that is not there, or a file, is said to be so
	if _, err := ReadDir(filepath.Join(dir, "nope")); err == nil || !strings.Contains(err.Error(), "nope: no such folder") {
		t.Errorf("missing folder: %v", err)
	}
	if _, err := ReadDir(filepath.Join(dir, "devices", "H.json")); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("a file: %v", err)
	}
}

// TestParseLabelDuplicates: a latency given twice (in any case, as
// encoding/json matches the fields) is refused with its line and key, not
// scored as the last.
func TestParseLabelDuplicates(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"{\"num_layer\": 24,\n \"e2e_latency\": 10,\n \"e2e_latency\": 20}", "G/m-inf-1-1.json:3:2: e2e_latency: given twice (first at line 2, column 2;"},
		{`{"e2e_latency": 10, "E2E_Latency": 20}`, `G/m-inf-1-1.json:1:21: E2E_Latency: given twice (first as "e2e_latency", at line 1, column 2;`},
		// an iteration's time is positive, whichever way it is not: the
		// same words for 0 and -5 (0 read as allowed by one, refused by
		// the other, a reviewer's find)
		{`{"e2e_latency": 0}`, "G/m-inf-1-1.json: e2e_latency 0: want a positive time up to 1e9 ms"},
		{`{"e2e_latency": -5}`, "G/m-inf-1-1.json: e2e_latency -5: want a positive time up to 1e9 ms"},
		{`{"e2e_latency": 1, "bwall_latency": -1}`, "G/m-inf-1-1.json: bwall_latency -1: want a finite time in [0, 1e9] ms"},
	} {
		if l, err := ParseLabel([]byte(c.in), "G", "m-inf-1-1.json"); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %+v, %v, want %q", c.in, l, err, c.want)
		}
	}
}

// TestReadDirSameRun: a label is scored once: a name with a leading zero
// is not read, one that names a run another label names (by its shape,
// fusion and split) is listed unread, the shortest name scored.
func TestReadDirSameRun(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "devices"), 0o755)
	os.MkdirAll(filepath.Join(dir, "labels", "G"), 0o755)
	os.WriteFile(filepath.Join(dir, "devices", "G.json"), []byte(`{"Device":"G","Dev_Mem":16,"Mem_Bw":900,"Num_Sm":80,"Core_Per_SM":64,"Freq":1370,"SingleFLOPs":14029,"L2Cache":6}`), 0o644)
	for _, f := range []string{"bert-inf-512-8.json", "bert-inf-0512-8.json", "bert-inf-512-8-dp1.json", "bert-inf-512-8-fusion.json",
		"bert-inf-512-8-fusion-fusion.json", "bert-train-512-8-dp2-tp2.json", "bert-train-512-8-tp2-dp2.json", "bert-inf-512-8-tp02.json"} {
		os.WriteFile(filepath.Join(dir, "labels", "G", f), []byte(`{"e2e_latency":1}`), 0o644)
	}
	d, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range d.Labels {
		got = append(got, fmt.Sprintf("%s %d×%d fused %v gpus %d %s", l.Mode, l.Seq, l.Batch, l.Fused, l.GPUs, l.Variant))
	}
	want := []string{"inf 512×8 fused false gpus 1 ", "inf 512×8 fused false gpus 1 tp02", "inf 512×8 fused true gpus 1 ", "train 512×8 fused false gpus 4 "}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("labels read: %q, want %q", got, want)
	}
	unread := strings.Join(d.Unread, "\n")
	for _, w := range []string{
		`labels/G: label "bert-inf-0512-8.json": sequence length: "0512": a leading zero: write 512`,
		`labels/G: label "bert-inf-512-8-dp1.json": the same run as "bert-inf-512-8.json" (bert, inf, sequence 512, batch 8): scored once`,
		`labels/G: label "bert-inf-512-8-fusion-fusion.json": the same run as "bert-inf-512-8-fusion.json" (bert, inf, sequence 512, batch 8, fused)`,
		`labels/G: label "bert-train-512-8-tp2-dp2.json": the same run as "bert-train-512-8-dp2-tp2.json" (bert, train, sequence 512, batch 8, dp2 tp2 pp1)`,
	} {
		if !strings.Contains(unread, w) {
			t.Errorf("unread: no %q in\n%s", w, unread)
		}
	}
	if len(d.Unread) != 4 {
		t.Errorf("%d unread: %q", len(d.Unread), d.Unread)
	}
}

// padded writes body followed by spaces to name in dir, past the cap on a
// JSON file's size: valid JSON, but too large to be a sheet or a label.
func padded(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, append([]byte(body), bytes.Repeat([]byte(" "), readcap.JSON)...), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestReadCapped: a spec sheet or a label past readcap.JSON bytes (one that
// never ends: /dev/zero) is refused naming the file and the cap, not read
// until memory runs out; in a folder, the others are still read.
func TestReadCapped(t *testing.T) {
	dir := t.TempDir()
	sheet := `{"Device":"H","Dev_Mem":16,"Mem_Bw":900,"Num_Sm":80,"Core_Per_SM":64,"Freq":1370,"SingleFLOPs":14029,"L2Cache":6}`
	big := padded(t, dir, filepath.Join("devices", "Big.json"), sheet)
	if _, err := ReadDevice(big); err == nil || !strings.Contains(err.Error(), big+": more than 8 MiB") {
		t.Errorf("a sheet past the cap: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "devices", "H.json"), []byte(sheet), 0o644)
	label := padded(t, dir, filepath.Join("labels", "H", "m-inf-1-1.json"), `{"e2e_latency":1}`)
	if _, err := ReadLabel(label); err == nil || !strings.Contains(err.Error(), label+": more than 8 MiB") {
		t.Errorf("a label past the cap: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "labels", "H", "m-inf-1-2.json"), []byte(`{"e2e_latency":1}`), 0o644)
	d, err := ReadDir(dir)
	if err != nil || len(d.Labels) != 1 || len(d.Unread) != 1 || !strings.Contains(d.Unread[0], "more than 8 MiB") ||
		!strings.Contains(d.BadDevices["Big"], "more than 8 MiB") {
		t.Errorf("a folder of files past the cap: %v %+v", err, d)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := ReadDevice("/dev/zero"); err == nil || !strings.Contains(err.Error(), "/dev/zero: more than 8 MiB") {
			t.Errorf("/dev/zero: %v", err)
		}
	}
}

// NeuSight's scripts write their labels to label/, and write null for a
// fused run that ran out of memory: a folder without labels under labels/
// is read from label/ (noted), and a null label is said to be one; a model
// named with '-' (NeuSight names a label by its config file) is read whole.
// With labels under both, both are read (label/ was passed over without a
// word beside labels/), a run under both scored once; .json files outside
// <folder>/<GPU>/ are counted in a note.
func TestReadDirNeuSightLabelFolder(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "devices"), 0o755)
	os.MkdirAll(filepath.Join(dir, "label", "H"), 0o755)
	os.WriteFile(filepath.Join(dir, "devices", "H.json"), []byte(`{"Device":"H","Dev_Mem":16,"Mem_Bw":900,"Num_Sm":80,"Core_Per_SM":64,"Freq":1370,"SingleFLOPs":14029,"L2Cache":6}`), 0o644)
	os.WriteFile(filepath.Join(dir, "label", "H", "bert_large-inf-512-8.json"), []byte(`{"num_layer":24,"e2e_latency":10}`), 0o644)
	os.WriteFile(filepath.Join(dir, "label", "H", "bert_large-inf-512-16-fusion.json"), []byte("null\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "label", "H", "gpt2-large-inf-512-8.json"), []byte(`{"e2e_latency":1}`), 0o644)
	os.WriteFile(filepath.Join(dir, "label", "H", "bert-larg-inf-x-8.json"), []byte(`{"e2e_latency":1}`), 0o644)
	d, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Labels) != 2 || d.Labels[0].GPU != "H" || d.Labels[0].Model != "bert_large" || d.Labels[1].Model != "gpt2-large" ||
		d.Labels[1].Seq != 512 || d.Labels[1].Folder != "label" || d.LabelsDir != "label" || len(d.Notes) != 1 || !strings.Contains(d.Notes[0], "read label/") {
		t.Errorf("labels %+v from %q, notes %q", d.Labels, d.LabelsDir, d.Notes)
	}
	unread := strings.Join(d.Unread, "\n")
	if len(d.Unread) != 2 || !strings.Contains(unread, "H/bert_large-inf-512-16-fusion.json: null, not a measurement") ||
		!strings.Contains(unread, `label/H: label "bert-larg-inf-x-8.json": mode "larg": want inf or train`) {
		t.Errorf("unread %q", d.Unread)
	}
	// an empty labels/ beside label/: label/ read
	os.MkdirAll(filepath.Join(dir, "labels"), 0o755)
	if d, err := ReadDir(dir); err != nil || len(d.Labels) != 2 || d.LabelsDir != "label" {
		t.Errorf("empty labels/ beside label/: %v %+v", err, d)
	}
	// labels under both: both read, the run under both scored once (as
	// labels/'s), the loose and deeper .json files counted
	os.MkdirAll(filepath.Join(dir, "labels", "H", "deeper"), 0o755)
	os.MkdirAll(filepath.Join(dir, "labels", "G"), 0o755)
	os.WriteFile(filepath.Join(dir, "labels", "H", "bert_large-inf-512-8.json"), []byte(`{"num_layer":24,"e2e_latency":11}`), 0o644)
	os.WriteFile(filepath.Join(dir, "labels", "G", "bert_large-inf-512-4.json"), []byte(`{"num_layer":24,"e2e_latency":5}`), 0o644)
	os.WriteFile(filepath.Join(dir, "labels", "loose.json"), []byte(`{}`), 0o644)
	os.WriteFile(filepath.Join(dir, "labels", "H", "deeper", "trace1.json"), []byte(`{}`), 0o644)
	d, err = ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range d.Labels {
		got = append(got, fmt.Sprintf("%s/%s/%s-%d-%g", l.Folder, l.GPU, l.Model, l.Batch, l.E2E))
	}
	if want := "labels/G/bert_large-4-5 labels/H/bert_large-8-11 label/H/gpt2-large-8-1"; strings.Join(got, " ") != want {
		t.Errorf("labels %q, want %q", got, want)
	}
	notes, unread := strings.Join(d.Notes, "\n"), strings.Join(d.Unread, "\n")
	if !strings.Contains(notes, "read labels/ (2 files) and label/ (4 files)") ||
		!strings.Contains(notes, "2 .json files under labels/ outside labels/<GPU>/ not read as labels") {
		t.Errorf("notes %q", d.Notes)
	}
	if !strings.Contains(unread, `label/H: label "bert_large-inf-512-8.json": the same run as "labels/H/bert_large-inf-512-8.json"`) {
		t.Errorf("unread %q", d.Unread)
	}
	// labels and no sheets: noted (a caller may have sheets for them);
	// neither: an error
	os.RemoveAll(filepath.Join(dir, "devices"))
	if d, err := ReadDir(dir); err != nil || len(d.Labels) != 3 || !strings.Contains(strings.Join(d.Notes, "\n"), "no spec sheets (devices/*.json)") {
		t.Errorf("no sheets: %v %+v", err, d)
	}
	if _, err := ReadDir(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no spec sheets (devices/*.json) and no labels") {
		t.Errorf("an empty folder: %v", err)
	}
}

// TestReadDirJSONCase: labels, sheets and model configs saved as .JSON
// (any case) are read as .json ones are (a reviewer's find: they were
// passed over without a word, and a bundled sheet taken for the folder's
// own).
func TestReadDirJSONCase(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"devices", "labels/H", "models"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(p)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, body string) {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(p)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("devices/H.JSON", `{"Device":"H","Dev_Mem":16,"Mem_Bw":900,"Num_Sm":80,"Core_Per_SM":64,"Freq":1370,"SingleFLOPs":14029,"L2Cache":6}`)
	write("labels/H/bert_large-inf-512-8.Json", `{"num_layer":24,"e2e_latency":10}`)
	write("labels/H/bert_large-inf-512-16.json", `{"num_layer":24,"e2e_latency":20}`)
	write("labels/H/notes.txt", "x")
	write("models/bert_large.JSON", "{}")
	d, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := d.Devices["H"]; !ok || len(d.Labels) != 2 || len(d.Unread) != 0 {
		t.Errorf("sheets %v, labels %+v, unread %q: want H's sheet and both labels", d.Devices, d.Labels, d.Unread)
	}
	if got, want := d.ModelPath("bert_large"), filepath.Join(dir, "models", "bert_large.JSON"); got != want {
		t.Errorf("model path %q, want %q", got, want)
	}
	if got, want := d.ModelPath("gpt2_large"), filepath.Join(dir, "models", "gpt2_large.json"); got != want {
		t.Errorf("model path of a model not there %q, want %q", got, want)
	}
	if l, err := ParseLabelName("gpt2_large-train-1024-4.JSON"); err != nil || l.Model != "gpt2_large" || l.Batch != 4 {
		t.Errorf("ParseLabelName of .JSON: %+v, %v", l, err)
	}
}

// TestReadDirLenient: a folder as others may hand it over loses no GPU's
// labels to another's sheet or to its own name: a sheet that cannot be read
// costs its own GPU alone (said why), a sheet's fields for other tools are
// ignored (noted), a label folder named as its GPU's "Device" or with
// another case takes that sheet (noted), a folder path with glob
// characters is read as named, a label with a byte-order mark or num_layer
// written 24.0 is read, and labels of one shape split three ways sort
// apart.
func TestReadDirLenient(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs[1]")
	sheet := `{"Device":"NVIDIA L4","Dev_Mem":24,"Mem_Bw":300,"Num_Sm":60,"Core_Per_SM":128,"Freq":2040,"SingleFLOPs":31334,"L2Cache":48%s}`
	for name, body := range map[string]string{
		"devices/NVIDIA_L4.json":                         fmt.Sprintf(sheet, `,"TensorFLOPs":121000,"TDP":72`),
		"devices/AMD_Instinct_MI250.json":                `{"Device":"AMD Instinct MI250","Dev_Mem":128,"Mem_Bw":3277,"Num_Sm":208,"Core_Per_SM":64,"Freq":1700,"SingleFLOPsMM":90500,"SingleFLOPsVEC":45300,"L2Cache":16}`,
		"devices/NVIDIA_H100_80GB_HBM3_TP.json":          `{"Device":"NVIDIA H100 80GB HBM3","Dev_Mem":80,"Mem_Bw":3430,"Num_Sm":132,"Core_Per_SM":128,"Freq":1980,"SingleFLOPs":1979000,"L2Cache":50}`,
		"labels/NVIDIA L4/bert_large-inf-512-8.json":     "\ufeff" + `{"num_layer":24.0,"e2e_latency":100}`,
		"labels/nvidia_l4/bert_large-inf-512-16.json":    `{"e2e_latency":200}`,
		"labels/AMD_Instinct_MI250/gpt2-inf-1024-4.json": `{"e2e_latency":50}`,
		"labels/X/gpt2_large-train-1024-4-tp4.json":      `{"e2e_latency":1}`,
		"labels/X/gpt2_large-train-1024-4-dp4.json":      `{"e2e_latency":1}`,
		"labels/X/gpt2_large-train-1024-4-pp4_1.json":    `{"e2e_latency":1}`,
		"labels/X/gpt2_large-train-1024-4-pp4_2.json":    `{"num_layer":24.5,"e2e_latency":1}`,
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := d.Devices["NVIDIA_L4"]; !ok || len(d.BadDevices) != 2 ||
		!strings.Contains(d.BadDevices["AMD_Instinct_MI250"], "SingleFLOPs") || !strings.Contains(d.BadDevices["NVIDIA_H100_80GB_HBM3_TP"], "SingleFLOPs: 1.979e+06") {
		t.Errorf("sheets %v, not read %q", d.Devices, d.BadDevices)
	}
	for _, g := range []string{"NVIDIA L4", "nvidia_l4"} {
		if dev, ok := d.Devices[g]; !ok || dev.SMs != 60 || d.Sheet(g) != "NVIDIA_L4" {
			t.Errorf("label folder %q: no sheet (%+v), or not known as NVIDIA_L4 (%q)", g, d.Devices, d.Sheet(g))
		}
	}
	if d.Sheet("X") != "X" {
		t.Errorf("a folder with no sheet is %q", d.Sheet("X"))
	}
	notes := strings.Join(d.Notes, "\n")
	for _, want := range []string{"fields TDP, TensorFLOPs ignored", "labels/NVIDIA L4: no devices/NVIDIA L4.json; took devices/NVIDIA_L4.json", "labels/nvidia_l4:"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q, want %q", notes, want)
		}
	}
	if len(d.Labels) != 6 || len(d.Unread) != 1 || !strings.Contains(d.Unread[0], "num_layer 24.5: want a whole number") {
		t.Errorf("%d labels, unread %q", len(d.Labels), d.Unread)
	}
	var order []string
	for _, l := range d.Labels {
		if l.GPU == "X" {
			order = append(order, fmt.Sprintf("dp%d tp%d pp%d", l.DP, l.TP, l.PP))
		}
	}
	if got := strings.Join(order, ", "); got != "dp1 tp1 pp4, dp1 tp4 pp1, dp4 tp1 pp1" {
		t.Errorf("splits of one shape sort %s", got)
	}
	for _, l := range d.Labels {
		if l.GPU == "NVIDIA L4" && (l.Layers != 24 || l.E2E != 100) {
			t.Errorf("%+v", l)
		}
	}
	// a folder whose name matches two sheets takes neither, and says so;
	// one whose only match could not be read takes that sheet's reason
	for name, body := range map[string]string{
		"devices/Tesla_T4.json":                       `{"Device":"Tesla T4","Dev_Mem":15,"Mem_Bw":320,"Num_Sm":40,"Core_Per_SM":64,"Freq":1590,"SingleFLOPs":8141,"L2Cache":4}`,
		"devices/T4_copy.json":                        `{"Device":"Tesla T4","Dev_Mem":15,"Mem_Bw":320,"Num_Sm":40,"Core_Per_SM":64,"Freq":1590,"SingleFLOPs":8141,"L2Cache":4}`,
		"labels/Tesla T4/bert_large-inf-512-8.json":   `{"e2e_latency":1}`,
		"labels/Tesla T4/bert_large-inf-512-16.json":  `{"e2e_latency":1}`,
		"labels/amd instinct mi250/gpt2-inf-1-1.json": `{"e2e_latency":1}`,
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if d, err = ReadDir(dir); err != nil {
		t.Fatal(err)
	}
	notes = strings.Join(d.Notes, "\n")
	if _, ok := d.Devices["Tesla T4"]; ok || strings.Count(notes, "labels/Tesla T4: no devices/Tesla T4.json, and the names of 2 sheets match it") != 1 {
		t.Errorf("ambiguous folder: sheet %v, notes %q", d.Devices["Tesla T4"], notes)
	}
	if why := d.BadDevices["amd instinct mi250"]; !strings.Contains(why, "SingleFLOPs") {
		t.Errorf("a folder matching an unreadable sheet: %q", why)
	}
}

func FuzzReadOps(f *testing.F) {
	f.Add([]byte("OPName,Latency,B,M,N,K\nlinear,0.1,1,2,3,4\n"), 0)
	f.Add([]byte("OPName,Latency,B,H\nsoftmax,0.1,1,2\n"), 4)
	f.Add([]byte("OPName,Latency,B,Input_Channel,Output_Channel,Kernel_Szie,Input_Size,Stride,Padding\nconv,1,1,3,8,3,4,1,1\n"), 1)
	fams := Families()
	f.Fuzz(func(t *testing.T, in []byte, fi int) {
		fam := fams[((fi%len(fams))+len(fams))%len(fams)]
		ops, err := ReadOpsFrom(bytes.NewReader(in), "f.csv", fam)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.csv") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		for _, o := range ops {
			if o.Op != fam || !(o.Latency > 0) || math.IsInf(o.Latency, 0) {
				t.Fatalf("accepted %+v", o)
			}
			if fl := o.FLOPs(); !(fl > 0) || math.IsInf(fl, 0) {
				t.Fatalf("%+v: FLOPs %v", o, fl)
			}
		}
	})
}

func FuzzParseLabel(f *testing.F) {
	f.Add([]byte(`{"num_layer":24,"e2e_latency":234.2,"fw_latency":82.9,"bwall_latency":151.3}`), "bert_large-train-512-2.json")
	f.Add([]byte(`{"e2e_latency":1}`), "m-inf-1-1-fusion.json")
	f.Add([]byte(`{"e2e_latency":1}`), "m-train-1-4-dp2-pp4_8-tp2-pp2.json")
	f.Fuzz(func(t *testing.T, in []byte, file string) {
		l, err := ParseLabel(in, "G", file)
		if err != nil {
			if file != "" && !strings.Contains(err.Error(), file) && !strings.Contains(err.Error(), strconv.Quote(file)) {
				t.Fatalf("error %v does not name the file %q", err, file)
			}
			return
		}
		if !(l.E2E > 0) || l.Seq < 1 || l.Batch < 1 || l.GPUs < 1 || (l.Mode != Inference && l.Mode != Training) {
			t.Fatalf("accepted %+v", l)
		}
		// the GPUs are the degrees' product, within bounds
		if l.DP < 1 || l.TP < 1 || l.PP < 1 || l.GPUs != l.DP*l.TP*l.PP || l.GPUs > MaxDim || l.MicroBatches < 0 || l.MicroBatches > MaxDim {
			t.Fatalf("degrees %+v", l)
		}
		b, _ := json.Marshal(l)
		if len(b) == 0 {
			t.Fatal("unmarshalable")
		}
	})
}

func FuzzParseDevice(f *testing.F) {
	f.Add([]byte(`{"Device":"X","Dev_Mem":16,"Mem_Bw":900,"Num_Sm":80,"Core_Per_SM":64,"Freq":1370,"SingleFLOPs":14029,"L2Cache":6}`))
	f.Add([]byte(`{"Device":"X","Dev_Mem":"16","Mem_Bw":900,"Num_Sm":80,"Core_Per_SM":64,"Freq":"1370","freq":1,"SingleFLOPs":true,"L2Cache":6}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		d, err := ParseDevice(in, "f.json")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.json:") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		// what is accepted is a GPU within the bounds, and it writes back
		// to a sheet that reads the same
		if !(d.FP32GFLOPs >= 1) || d.SMs < 1 || d.LanesPerSM < 1 || !(d.MemGB >= 0.25) || !(d.L2MB >= 0.05) || !(d.BandwidthGB >= 10) {
			t.Fatalf("accepted %+v", d)
		}
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseDevice(b, "back.json")
		if err != nil || back != d {
			t.Fatalf("%+v writes %s, which reads %+v, %v", d, b, back, err)
		}
	})
}

// FuzzParseDeviceLoose: a folder's sheet reader accepts what ParseDevice
// accepts, alike, and beyond it only sheets whose eight fields ParseDevice
// would accept alone, naming the fields it ignored; its errors name the file.
func FuzzParseDeviceLoose(f *testing.F) {
	f.Add([]byte(`{"Device":"X","Dev_Mem":16,"Mem_Bw":900,"Num_Sm":80,"Core_Per_SM":64,"Freq":1370,"SingleFLOPs":14029,"L2Cache":6}`))
	f.Add([]byte(`{"Device":"X","Dev_Mem":16,"Mem_Bw":900,"Num_Sm":80,"Core_Per_SM":64,"Freq":1370,"SingleFLOPs":14029,"L2Cache":6,"TDP":250}`))
	f.Add([]byte(`{"Device":5,"Dev_Mem":"16","Mem_Bw":1e999,"Num_Sm":[80],"Core_Per_SM":64,"Freq":"1370","SingleFLOPs":14029,"L2Cache":6,"TDP":250}`))
	f.Add([]byte(`{"Device":"A","Dev_Mem":128,"Mem_Bw":3277,"Num_Sm":208,"Core_Per_SM":64,"Freq":1700,"SingleFLOPsMM":90500,"L2Cache":16}`))
	f.Add([]byte("\ufeff" + `{"device":"X","dev_mem":16,"Mem_Bw":900,"Num_Sm":80,"Core_Per_SM":64,"Freq":1370,"SingleFLOPs":14029,"L2Cache":6}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		d, extra, err := parseDeviceLoose(in, "f.json")
		strict, serr := ParseDevice(in, "f.json")
		if serr == nil && (err != nil || d != strict || len(extra) != 0) {
			t.Fatalf("ParseDevice reads %+v, the folder's reader %+v %v %v", strict, d, extra, err)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.json") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if serr != nil && len(extra) == 0 {
			t.Fatalf("accepted %+v with no field ignored where ParseDevice says %v", d, serr)
		}
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		if back, err := ParseDevice(b, "back.json"); err != nil || back != d {
			t.Fatalf("%+v: its eight fields alone read %+v, %v", d, back, err)
		}
	})
}
