package app

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileInputs is the hostile-input suite: one case per class of
// careless or hostile input found by hand, each run through the
// command line as a user would. Every case must end in an error that names
// what is wrong (and where: file, line, field or flag) or succeed, never
// panic (a panic fails the test binary), and never change or delete a file
// it did not write: each case's files are hashed before and after.
func TestHostileInputs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gz := func(name, content string) string {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(content))
		zw.Close()
		return write(name, b.String())
	}
	swfLine := func(id int, submit, run, procs string) string {
		return fmt.Sprintf("%d %s 0 %s %s -1 -1 %s 100 -1 1 1 1 1 1 1 -1 -1\n", id, submit, run, procs, procs)
	}
	var swf strings.Builder
	swf.WriteString("; MaxProcs: 16\n")
	for i := 1; i <= 3000; i++ {
		swf.WriteString(swfLine(i, fmt.Sprint(i*10), "100", "4"))
	}
	full := gz("full.swf.gz", swf.String())
	fullBytes, _ := os.ReadFile(full)
	truncated := write("cut.swf.gz", string(fullBytes[:len(fullBytes)/2]))

	// A project folder with a runs/ and a summary.csv of someone else's.
	project := filepath.Join(dir, "project")
	write("project/runs/mine.dat", "precious")
	write("project/summary.csv", "my,own\n")

	config := func(name, body string) string {
		return write(name, "name: same\nseed: 1\nreplicas: 1\nworkloads:\n  - {name: t, trace: "+full+"}\n"+body)
	}
	cfgA := config("a.yaml", "schedulers:\n  - {name: FCFS, backfill: none}\n")
	cfgB := config("b.yaml", "schedulers:\n  - {name: EASY, backfill: easy}\n")
	shared := filepath.Join(dir, "shared")

	// A predictor file whose weights would make every prediction NaN.
	if _, err := wb(t, "train", "--out", filepath.Join(dir, "p.json"), "datasets/profiles/cpu-resnet18-cifar.csv", "datasets/profiles/cpu-alexnet.csv"); err != nil {
		t.Fatal(err)
	}
	var pj map[string]any
	b, _ := os.ReadFile(filepath.Join(dir, "p.json"))
	if err := json.Unmarshal(b, &pj); err != nil {
		t.Fatal(err)
	}
	pj["model"], pj["weights"], pj["intercept"] = "linear", make([]float64, len(pj["features"].([]any))), 0.0
	pj["weights"].([]float64)[0] = 1e308
	b, _ = json.Marshal(pj)
	nanPredictor := write("nan.json", string(b))

	// (its one row counted, as the sidecar of a profile of one row would)
	write("one.csv.json", strings.Replace(readTestFile(t, filepath.Join(repoRoot, "datasets/profiles/cpu-lm.csv.json")), `"rows": 48,`, `"rows": 1,`, 1))
	write("a3c.csv.json", readTestFile(t, filepath.Join(repoRoot, "datasets/profiles/cpu-lm.csv.json"))) // another profile's
	cut := readTestFile(t, filepath.Join(repoRoot, "datasets/profiles/cpu-lm.csv"))
	write("cut.csv", strings.Join(strings.SplitAfter(cut, "\n")[:10], "")) // cut short, its own sidecar beside it
	write("cut.csv.json", readTestFile(t, filepath.Join(repoRoot, "datasets/profiles/cpu-lm.csv.json")))
	// A --validate --out folder of someone's files of wb's names.
	valOut := filepath.Join(dir, "valout")
	write("valout/ops.csv.gz", "mine\n")
	write("valout/figures/fig1.png", "x\n")
	gpt2 := readTestFile(t, filepath.Join(repoRoot, "datasets/data/neusight/models/gpt2_large.json"))
	cases := []struct {
		name string
		args []string
		want string // in the error; "" for success
	}{
		// Data loss.
		{"out into a folder of someone else's files", []string{"experiment", cfgA, "--out", project, "-q"}, "holds files wb did not write (runs/mine.dat, summary.csv)"},
		{"first config of a name", []string{"experiment", cfgA, "--out", shared, "-q"}, ""},
		{"second config of the same name", []string{"experiment", cfgB, "--out", shared, "-q"}, "holds the results of another config"},
		{"resume of another config", []string{"experiment", cfgB, "--out", shared, "--resume", "-q"}, "continue only the config that wrote them"},
		{"simulate into an experiment's results", []string{"simulate", "--trace", full, "--out", shared}, "holds the results of an experiment (same"},
		{"simulate into a folder of someone else's files", []string{"simulate", "--trace", full, "--out", project}, "holds files wb did not write (runs/mine.dat, summary.csv)"},
		{"validate into a folder of someone's files of wb's names", []string{"predict", "--validate", "neusight", "--out", valOut}, "did not write (figures/fig1.png, ops.csv.gz)"},
		// Overflow and impossible values.
		{"SWF submit near 2^63", []string{"simulate", "--trace", write("big.swf", "; MaxProcs: 8\n"+swfLine(1, "9223372036854775000", "10", "4"))}, "big.swf:2: field 2: 9223372036854775000 s is past the simulator's horizon"},
		{"SWF run time 2^63-1", []string{"simulate", "--backfill", "conservative", "--trace", write("run.swf", "; MaxProcs: 8\n"+swfLine(1, "0", "9223372036854775807", "4"))}, "run.swf:2: field 4"},
		{"SWF machine size in a comment after the first record", []string{"simulate", "--trace", write("late.swf", swfLine(1, "0", "10", "4")+"; MaxProcs: 8\n"+swfLine(2, "5", "10", "4"))}, ""},
		{"SWF header MaxProcs -5", []string{"simulate", "--trace", write("neg.swf", "; MaxProcs: -5\n"+swfLine(1, "0", "10", "4"))}, "neg.swf:1: header MaxProcs: -5: want 1 to"},
		{"procs that overflow", []string{"simulate", "--trace", full, "--procs", "18446744073709552"}, "--procs 18446744073709552: want 1 to 1099511627"},
		{"procs of 2^63-1", []string{"simulate", "--trace", full, "--procs", "9223372036854775807"}, "--procs 9223372036854775807: want 1 to 1099511627"},
		{"openb node of 5e18 CPUs", []string{"simulate", "--trace", "openb:" + write("openb_pod_list_x.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\np-1,1000,1,0,0,,LS,Running,0,10,0\n"),
			"--cluster", "openb:" + write("nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nn,5000000000000000000,1,0,\n")}, "nodes.csv:2: cpu_milli: 5000000000000000000 is more than"},
		{"openb deletion time 2^63-1", []string{"simulate", "--trace", "openb:" + write("openb_pod_list_y.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\np-1,1000,1,0,0,,LS,Running,0,9223372036854775807,0\n")}, "deletion_time: 9223372036854775807 is more than"},
		{"predictor of 1e308 weights", []string{"predict", "resnet50", "--device", "cpu", "--predictor", nanPredictor}, "weight 1e+308 out of range"},
		{"--top -1", []string{"predict", "resnet50", "--top", "-1"}, "--top -1: want 0 or more"},
		{"--gpus 0", []string{"predict", "resnet50", "--gpus", "0"}, "--gpus 0: want 1 to 1048576"},
		{"--batch of 10^12", []string{"predict", "resnet50", "--batch", "1000000000000"}, "--batch 1000000000000: want 1 to 16777216"},
		{"--allreduce-gbps -3", []string{"predict", "lm", "--gpus", "8", "--allreduce-gbps", "-3"}, "--allreduce-gbps -3: want the all-reduce's bus bandwidth in GB/s"},
		{"--allreduce-gbps NaN", []string{"predict", "lm", "--gpus", "8", "--allreduce-gbps", "NaN"}, "--allreduce-gbps NaN: want"},
		{"--allreduce-gbps 1e-300", []string{"predict", "lm", "--gpus", "8", "--allreduce-gbps", "1e-300"}, "--allreduce-gbps 1e-300: want the all-reduce's bus bandwidth in GB/s, from 0.01 to 100000"},
		{"--jobs -1", []string{"experiment", cfgA, "--jobs", "-1"}, "--jobs -1: want 1 or more"},
		{"--run-index -5", []string{"experiment", cfgA, "--run-index", "-5"}, "--run-index -5: want 0 or more"},
		{"train --out onto its input", []string{"train", write("victim.csv", readTestFile(t, filepath.Join(repoRoot, "datasets/profiles/cpu-a3c.csv"))), "--out", filepath.Join(dir, "victim.csv")}, "the predictor would overwrite a profile"},
		{"train --out a profile's sidecar", []string{"train", filepath.Join(repoRoot, "datasets/profiles/cpu-a3c.csv"), "--out", filepath.Join(dir, "one.csv.json")}, "the name of a profile's sidecar"},
		{"profile --out over someone's CSV", []string{"profile", "gemm:80", "--out", write("mine.csv", "my,own\n")}, "mine.csv exists and is not a wb profile"},
		{"a profile beside another's sidecar", []string{"train", write("a3c.csv", readTestFile(t, filepath.Join(repoRoot, "datasets/profiles/cpu-a3c.csv"))), "--out", filepath.Join(dir, "z.json")}, `a3c.csv: line 2: model "a3c", but its sidecar`},
		{"a sweep point twice", []string{"experiment", config("dup.yaml", "schedulers:\n  - {name: F}\nsweep: {load: [1, 2, 1]}\n"), "--out", filepath.Join(dir, "dup")}, "sweep.load[2]: 1 again (sweep.load[0])"},
		{"--dry-run without --slurm", []string{"experiment", cfgA, "--dry-run", "--out", filepath.Join(dir, "dry")}, "--dry-run is an option of --slurm"},
		{"--jobs with --slurm", []string{"experiment", cfgA, "--slurm", "--dry-run", "--jobs", "4", "--out", filepath.Join(dir, "dry")}, "--jobs runs here; with --slurm each array task runs its own run"},
		{"--run-index past the runs", []string{"experiment", cfgA, "--run-index", "5", "--out", filepath.Join(dir, "ri")}, "run index 5: the config has runs 0 to 0"},
		{"sweep load 1e-300", []string{"experiment", config("load.yaml", "schedulers:\n  - {name: F}\nsweep: {load: [1e-300]}\n")}, "sweep.load[0]: 1e-300: want an arrival-rate multiplier"},
		{"profile CSV with no op column", []string{"train", write("noop.csv", "model,layer,pass,batch,median_s\nm,l,fwd,1,0.1\n"), "--out", filepath.Join(dir, "x.json")}, "line 1: missing column(s) op"},
		{"train on a profile cut short", []string{"train", filepath.Join(dir, "cut.csv"), filepath.Join(repoRoot, "datasets/profiles/cpu-a3c.csv"), "--out", filepath.Join(dir, "y.json")},
			"but its sidecar " + filepath.Join(dir, "cut.csv.json") + " counts 48: the CSV was cut short or edited"},
		{"train on one row", []string{"train", write("one.csv", strings.Join(strings.SplitN(readTestFile(t, filepath.Join(repoRoot, "datasets/profiles/cpu-lm.csv")), "\n", 3)[:2], "\n")+"\n"), "--out", filepath.Join(dir, "y.json")}, "cross-validation needs at least 10"},
		// Memory.
		{"a billion replicas", []string{"experiment", write("billion.yaml", "name: billion\nreplicas: 1000000000\nworkloads:\n  - {name: t, trace: "+full+"}\nschedulers:\n  - {name: F}\n")}, "makes 1e+09 runs (workloads × schedulers × sweep points × replicas): at most 1000000"},
		{"SWF of one endless line", []string{"simulate", "--trace", "swf:" + write("long.swf", strings.Repeat("1", 1<<17))}, "long.swf:1: line longer than"},
		{"a spec sheet that never ends", []string{"predict", "bert-large", "--device-spec", "/dev/zero"}, "/dev/zero: more than 8 MiB"},
		{"a config.json that never ends", []string{"predict", "--model-config", "/dev/zero", "--device-spec", "NVIDIA_H200"}, "/dev/zero: more than 8 MiB"},
		// Messages that mislead.
		{"truncated gzip", []string{"simulate", "--trace", truncated}, "unexpected end of compressed data: the file is truncated"},
		{"predict --mode on the analytical path", []string{"predict", "resnet50", "--mode", "inf"}, "--mode does not apply to the analytical path"},
		{"predict --gpus with a spec sheet", []string{"predict", "gpt2-large", "--device-spec", "NVIDIA_L4", "--gpus", "8"}, "--gpus does not apply to --device-spec"},
		{"predict --seq on a zoo network", []string{"predict", "gpt2", "--seq", "2048"}, "--seq: gpt2 is wb's own network, built for 1024 byte-pair tokens"},
		{"predict --seq on a CNN", []string{"predict", "resnet50", "--seq", "128"}, "--seq: resnet50 is wb's own network, built for 3×224×224 ImageNet images"},
		{"predict --out without --validate", []string{"predict", "resnet50", "--out", filepath.Join(dir, "pred")}, "--out does not apply to the analytical path"},
		{"unknown format prefix", []string{"simulate", "--trace", "csv:" + full}, `unknown trace format "csv"`},
		{"a config key given twice", []string{"predict", "--model-config", write("twice.json", strings.Replace(gpt2, `"n_layer": 36,`, "\"n_layer\": 36,\n\"n_layer\": 12,", 1)), "--device-spec", "NVIDIA_H200"}, "n_layer: given twice"},
		{"a config's n_positions 0", []string{"predict", "--model-config", write("nopos.json", strings.Replace(gpt2, `"n_positions": 1024`, `"n_positions": 0`, 1)), "--device-spec", "NVIDIA_H200", "--seq", "4096"}, "n_positions: 0: want a positive number of positions"},
		{"a sequence past n_positions", []string{"predict", "--model-config", filepath.Join(repoRoot, "datasets/data/neusight/models/gpt2_large.json"), "--device-spec", "NVIDIA_H200", "--seq", "4096"}, "sequence of 4096 tokens is longer than its 1024 positions"},
		{"three mistakes at once", []string{"experiment", write("three.yaml", "name: three\nreplicas: -2\nworkloads:\n  - {name: t, trace: "+full+", windw: 5}\nschedulers:\n  - {name: F, backfill: easey}\n")}, "windw: unknown field"},
		// The PAI simulator's pieces.
		{"pai-sim table with a text job id", []string{"simulate", "--trace", "pai-sim:" + write("pai1.csv", "job_id,num_gpu,submit_time,duration\nabc,1,0,10\n"), "--cluster", "pool:8:100"}, `pai1.csv:2: job_id: "abc" is not a whole number`},
		{"pai-sim table without duration", []string{"simulate", "--trace", "pai-sim:" + write("pai2.csv", "job_id,num_gpu,submit_time\n1,1,0\n")}, "pai2.csv:1: missing column(s) duration"},
		{"pai-sim table on a processor pool", []string{"simulate", "--trace", "pai-sim:" + write("pai3.csv", "job_id,num_gpu,submit_time,duration\n1,1,0,10\n"), "--cluster", "pool:8"}, "a PAI simulator job table runs on a GPU pool"},
		{"GPU pool of 0 GPUs", []string{"simulate", "--trace", "pai-sim:" + write("pai4.csv", "job_id,num_gpu,submit_time,duration\n1,1,0,10\n"), "--cluster", "pool:0:10"}, "want pool:G:C with 0 < G"},
		{"GPU pool past the bound", []string{"simulate", "--trace", "pai-sim:" + write("pai5.csv", "job_id,num_gpu,submit_time,duration\n1,1,0,10\n"), "--cluster", "pool:99999999999:10"}, "want pool:G:C with 0 < G ≤ 16777216"},
		{"group-dur without the column", []string{"simulate", "--trace", "pai-sim:" + write("pai6.csv", "job_id,num_gpu,submit_time,duration\n1,1,0,10\n"), "--cluster", "pool:8:100", "--estimate", "group-dur"}, "estimate group-dur needs the trace's group_dur column"},
		{"--sample 0", []string{"simulate", "--trace", full, "--sample", "0"}, "--sample 0: want 1 or more"},
		{"--arrival-rate -3", []string{"simulate", "--trace", full, "--arrival-rate", "-3"}, "--arrival-rate -3: want 1 or more"},
		{"--arrival-interval 0", []string{"simulate", "--trace", full, "--arrival-rate", "5", "--arrival-interval", "0"}, "--arrival-interval 0: want 1 to"},
		{"sample larger than the trace", []string{"simulate", "--trace", full, "--sample", "999999", "--backfill", "greedy"}, ""},
		{"sample and window", []string{"experiment", write("sw.yaml", "name: sw\nworkloads:\n  - {name: t, trace: "+full+", window: 10, sample: 10}\nschedulers:\n  - {name: F}\n")}, "a replica is a window or a sample of the trace, not both"},
		{"raw PAI tables missing", []string{"dataset", "pai-sim", "--jobs", filepath.Join(dir, "nope_job.csv"), "--tasks", filepath.Join(dir, "nope_task.csv"), "--out", filepath.Join(dir, "o.csv")}, "--jobs " + filepath.Join(dir, "nope_job.csv") + ": no such file"},
		{"a count for the job table", []string{"dataset", "pai-sim", "--jobs", "20000", "--tasks", filepath.Join(dir, "nope_task.csv"), "--out", filepath.Join(dir, "o.csv")}, "--jobs 20000: no such file"},
		{"a sample of no table", []string{"dataset", "pai-sim-sample", "--table", filepath.Join(dir, "nope.csv"), "--jobs", "5", "--out", filepath.Join(dir, "o.csv")}, "--table " + filepath.Join(dir, "nope.csv") + ": no such file"},
		{"a table to standard output", []string{"dataset", "pai-sim-synthetic", "--jobs", "5", "--out", "-"}, "--out -: wb dataset writes a file, not standard output"},
		{"a table under a file", []string{"dataset", "pai-sim-synthetic", "--jobs", "5", "--out", filepath.Join(write("blocker", "x"), "sub", "t.csv")}, "no folder"},
		{"synthetic table of 0 jobs", []string{"dataset", "pai-sim-synthetic", "--jobs", "0", "--out", filepath.Join(dir, "s.csv")}, "--jobs 0: want 1 to"},
		{"synthetic table arriving at once", []string{"dataset", "pai-sim-synthetic", "--jobs", "5", "--mean-interarrival", "0", "--out", filepath.Join(dir, "s.csv")}, "--mean-interarrival 0: want a mean above 0"},
		{"YAML merge keys", []string{"experiment", write("merge.yaml", "name: merge\nreplicas: 1\nworkloads:\n  - &w {name: t, trace: "+full+", window: 100}\n  - <<: *w\n    name: t2\nschedulers:\n  - {name: F}\n"), "--out", filepath.Join(dir, "merge"), "-q"}, ""},
	}
	hashes := func() map[string]string {
		out := map[string]string{}
		filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
			switch {
			case err != nil:
			case info.Mode().IsRegular():
				b, _ := os.ReadFile(p)
				out[p] = string(b)
			case info.IsDir():
				out[p] = "a directory"
			}
			return nil
		})
		return out
	}
	for _, c := range cases {
		before := hashes()
		_, err := wb(t, c.args...)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
		if c.want == "" {
			continue // a success writes its results
		}
		after := hashes()
		for p, h := range before {
			if after[p] != h {
				t.Errorf("%s: %s changed or deleted by a refused command", c.name, p)
			}
		}
		for p := range after {
			if _, ok := before[p]; !ok {
				t.Errorf("%s: %s created by a refused command", c.name, p)
			}
		}
	}
	if c := cases[0]; !strings.Contains(c.name, "someone else") {
		t.Fatal("the suite's first case moved")
	}
	// The three mistakes are all reported.
	_, err := wb(t, "experiment", filepath.Join(dir, "three.yaml"))
	for _, want := range []string{"windw: unknown field", "replicas: -2 is negative", `backfill: unknown "easey"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("three mistakes: %v lacks %q", err, want)
		}
	}
}

// TestRunIndexFailedExits: a run that fails under --run-index (what a
// Slurm array task runs) makes wb exit with an error, so the task fails
// with it; the run is stored as failed.
func TestRunIndexFailedExits(t *testing.T) {
	dir := t.TempDir()
	writeTestFile(t, filepath.Join(dir, "bad.swf"), "; MaxProcs: 8\n1 0 0 ten 4 -1 -1 4 100 -1 1 1 1 1 1 1 -1 -1\n")
	writeTestFile(t, filepath.Join(dir, "c.yaml"), "name: failing\nworkloads:\n  - trace: bad.swf\nschedulers: [{backfill: easy}]\n")
	out := filepath.Join(dir, "out")
	_, err := wb(t, "experiment", filepath.Join(dir, "c.yaml"), "--run-index", "0", "--out", out, "-q")
	if err == nil || !strings.Contains(err.Error(), "run 0 failed: ") || !strings.Contains(err.Error(), "stored in "+out+" as failed") {
		t.Errorf("a failed run under --run-index: %v", err)
	}
}
