package experiments

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func sharingConfig(t testing.TB, dir string) *Config {
	t.Helper()
	trace, err := filepath.Abs(data("gavel/small_test.trace"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := `name: sharing-small
seed: 7
replicas: 2
workloads:
  - {name: small, trace: ` + trace + `, cluster: "nodes:1x2:V100"}
sharing: {critical_fraction: 0.3, prediction_sigma: 0.3, round: 60}
schedulers:
  - {sharing: exclusive}
  - {sharing: packing}
  - {sharing: goodput}
  - sharing: jct
    switches: [{at: 60, to: slo}]
metrics: [mean_jct, slo_attainment, goodput]
figures:
  - {kind: bar, metric: slo_attainment}
  - {kind: cdf, metric: jct}
`
	p := filepath.Join(dir, "sharing.yaml")
	if err := os.WriteFile(p, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSharingExperiment: sharing schedulers run through wb experiment,
// their columns in summary.csv, byte-identical whatever the parallelism.
func TestSharingExperiment(t *testing.T) {
	dir := t.TempDir()
	var outs []map[string][]byte
	for _, jobs := range []int{1, 3} {
		c := sharingConfig(t, dir)
		c.Out = filepath.Join(dir, "out"+strconv.Itoa(jobs))
		rep, err := Run(context.Background(), c, RunOptions{Jobs: jobs})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Runs != 8 {
			t.Errorf("%d runs, want 4 schedulers × 2 replicas", rep.Runs)
		}
		outs = append(outs, readAll(t, c.Out))
	}
	for f, b := range outs[0] {
		if !bytes.Equal(b, outs[1][f]) {
			t.Errorf("%s differs between --jobs 1 and 3", f)
		}
	}
	tab, err := readTable(filepath.Join(dir, "out1", SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range tab {
		if row["status"] != "ok" {
			t.Fatalf("row %d: %s: %s", i, row["status"], row["error"])
		}
		for _, col := range []string{"slo_attainment", "goodput", "util_gpu"} {
			v, err := tab.float("summary.csv", i, col)
			if err != nil || v < 0 || v > 1 {
				t.Errorf("row %d %s: %v %v; want a share", i, col, v, err)
			}
		}
		if row["completed"] != row["jobs"] {
			t.Errorf("row %d: %s of %s jobs completed", i, row["completed"], row["jobs"])
		}
	}
	// a sharing scheduler keeps no placements: nodes_touched is empty
	jobs, err := readTable(filepath.Join(dir, "out1", JobsFile))
	if err != nil || len(jobs) == 0 {
		t.Fatalf("jobs.csv: %d rows, %v", len(jobs), err)
	}
	for i, row := range jobs {
		if v, ok := row["nodes_touched"]; !ok || v != "" {
			t.Fatalf("jobs.csv row %d: nodes_touched %q (present %v), want empty", i, v, ok)
		}
	}
	if got := tab[6]["scheduler"]; got != "jct→slo" {
		t.Errorf("switching scheduler labelled %q, want jct→slo", got)
	}
	if got := tab[6]["policy_switches"]; got != "1" {
		t.Errorf("policy_switches %q, want 1", got)
	}
}

// TestSharingJobsSLO: a config with a sharing scheduler adds each job's
// SLO to jobs.csv (critical, deadline, met_slo, shared): per run of a
// sharing scheduler the share of its jobs that met their deadline is the
// summary's slo_attainment and its critical jobs are critical_jobs, every
// deadline at least its submit plus its solo run time (the estimate); a
// queue scheduler's run beside them leaves the four cells empty.
func TestSharingJobsSLO(t *testing.T) {
	dir := t.TempDir()
	sharingConfig(t, dir) // writes dir/sharing.yaml
	body, err := os.ReadFile(filepath.Join(dir, "sharing.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	mixed := strings.Replace(string(body), "schedulers:\n", "schedulers:\n  - {name: FIFO}\n", 1)
	if err := os.WriteFile(filepath.Join(dir, "mixed.yaml"), []byte(mixed), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(filepath.Join(dir, "mixed.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	c.Out = filepath.Join(dir, "out")
	if _, err := Run(context.Background(), c, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	sum, err := readTable(filepath.Join(c.Out, SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := readTable(filepath.Join(c.Out, JobsFile))
	if err != nil {
		t.Fatal(err)
	}
	type tally struct{ n, met, critical int }
	by := map[string]*tally{}
	for i, row := range jobs {
		if row["scheduler"] == "FIFO" {
			if row["critical"]+row["deadline"]+row["met_slo"]+row["shared"] != "" {
				t.Fatalf("jobs.csv row %d: a FIFO job with SLO cells %q %q %q %q", i, row["critical"], row["deadline"], row["met_slo"], row["shared"])
			}
			continue
		}
		tl := by[row["run"]]
		if tl == nil {
			tl = &tally{}
			by[row["run"]] = tl
		}
		deadline, err1 := jobs.float(JobsFile, i, "deadline")
		submit, err2 := jobs.float(JobsFile, i, "submit")
		solo, err3 := jobs.float(JobsFile, i, "estimate")
		end, err4 := jobs.float(JobsFile, i, "end")
		if err := errors.Join(err1, err2, err3, err4); err != nil || deadline < submit+solo-1 || (row["met_slo"] != "true" && row["met_slo"] != "false") {
			t.Fatalf("jobs.csv row %d: deadline %v, submit %v, solo %v, met_slo %q: %v", i, deadline, submit, solo, row["met_slo"], err)
		}
		// the row agrees with itself: end and deadline rounded alike
		// (a deadline of 30695.957 beside an end of 30696 read as missed)
		if met := row["met_slo"] == "true"; (met && end > deadline) || (!met && end < deadline) || deadline != math.Round(deadline) {
			t.Fatalf("jobs.csv row %d: end %v, deadline %v, met_slo %v", i, end, deadline, met)
		}
		tl.n++
		if row["met_slo"] == "true" {
			tl.met++
		}
		if row["critical"] == "true" {
			tl.critical++
		}
	}
	if len(by) == 0 {
		t.Fatal("no sharing run in jobs.csv")
	}
	for i, row := range sum {
		tl := by[row["run"]]
		if tl == nil {
			continue // a FIFO run, or one jobs.csv keeps no rows of
		}
		att, err := sum.float(SummaryFile, i, "slo_attainment")
		if err != nil || math.Abs(float64(tl.met)/float64(tl.n)-att) > 1e-12 || strconv.Itoa(tl.critical) != row["critical_jobs"] {
			t.Errorf("run %s: %d of %d jobs met their SLO, %d critical; summary: slo_attainment %v, critical_jobs %s (%v)", row["run"], tl.met, tl.n, tl.critical, att, row["critical_jobs"], err)
		}
	}
}

func TestSharingConfigErrors(t *testing.T) {
	cfg := `name: x
workloads:
  - {trace: a.swf}
sharing:
  slo_factor: 0.5
  alpha: -1
schedulers:
  - {sharing: fifo}
  - sharing: jct
    backfill: easy
    switches: [{to: slo}, {at: 10, to: nope}, {at: -5, to: slo}]
  - backfill: easy
    switches: [{at: 5, to: slo}]
`
	_, err := ParseConfig([]byte(cfg), "bad.yaml")
	if err == nil {
		t.Fatal("bad config accepted")
	}
	for _, want := range []string{
		"bad.yaml:3: workloads[0].trace: sharing schedulers run Gavel traces",
		"bad.yaml:5: sharing.slo_factor: 0.5; a deadline below the solo run time",
		"bad.yaml:6: sharing.alpha: -1 is not in [0, 100]",
		`bad.yaml:8: schedulers[0].sharing: unknown "fifo" (known: exclusive, goodput, jct, packing, slo)`,
		"bad.yaml:9: schedulers[1].sharing: a sharing scheduler has no order, backfill",
		"bad.yaml:11: schedulers[1].switches[0]: want one of at (a time) or below",
		`bad.yaml:11: schedulers[1].switches[1].to: unknown "nope"`,
		"bad.yaml:11: schedulers[1].switches[2].at: -5 is not a time",
		"bad.yaml:13: schedulers[2].switches: only a sharing scheduler switches policies",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("errors lack %q", want)
		}
	}
	if t.Failed() {
		t.Logf("all errors:\n%v", err)
	}
	if _, err := ParseConfig([]byte("name: x\nworkloads: [{trace: a.swf}]\nschedulers: [{backfill: easy}]\nmetrics: [goodput]\n"), "b.yaml"); err == nil ||
		!strings.Contains(err.Error(), `b.yaml:4: metrics[0]: "goodput" is a column of sharing schedulers only`) {
		t.Errorf("sharing metric without sharing schedulers: %v", err)
	}
}

// BenchmarkSharingYAML is one run of configs/sharing.yaml: the goodput
// policy on the ed69ec trace (951 jobs, 20 V100s), replica 0.
func BenchmarkSharingYAML(b *testing.B) {
	c, err := LoadConfig(filepath.Join("..", "configs", "sharing.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	idx := -1
	for _, k := range c.Runs() {
		if c.WorkloadName(k.Workload) == "ed69ec" && c.SchedulerName(k.Scheduler) == "goodput" && k.Replica == 0 {
			idx = k.Index
		}
	}
	if idx < 0 {
		b.Fatal("no ed69ec goodput run in configs/sharing.yaml")
	}
	c.Out = b.TempDir()
	for b.Loop() {
		if _, err := Run(context.Background(), c, RunOptions{Jobs: 1, Only: []int{idx}}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSharingClusterModel: a sharing scheduler runs the jobs at the
// throughputs of the cluster's GPUs (a K80 cluster ran them at V100 speed),
// and refuses a cluster of several GPU models, or of nodes that could hold
// no replica's cores and memory (it shares GPUs alone).
func TestSharingClusterModel(t *testing.T) {
	trace, err := filepath.Abs(data("gavel/small_test.trace"))
	if err != nil {
		t.Fatal(err)
	}
	jct := map[string]float64{}
	for _, cluster := range []string{"nodes:2x4:V100", "nodes:2x4:K80", "nodes:1x4:K80+1x4:V100", "nodes:2x4:V100:1:1"} {
		body := "name: m\nworkloads:\n  - {name: small, trace: " + trace + ", cluster: \"" + cluster + "\"}\nschedulers:\n  - {sharing: exclusive}\n"
		if strings.Contains(cluster, "+") {
			// refused as the config is read
			if _, err := ParseConfig([]byte(body), "c.yaml"); err == nil || !strings.Contains(err.Error(), "c.yaml:3: workloads[0].cluster: cluster nodes:1x4:K80+1x4:V100 has GPUs of 2 models (k80, v100); the sharing simulator times jobs on GPUs of one") {
				t.Errorf("%s: %v", cluster, err)
			}
			continue
		}
		dir := t.TempDir()
		rep, err := runBody(t, dir, body)
		if strings.HasSuffix(cluster, ":1:1") { // 1 core, 1 GiB a node
			if err == nil || !strings.Contains(err.Error(), "more than any node of nodes:2x4:V100:1:1 has") {
				t.Errorf("%s: %v", cluster, err)
			}
			continue
		}
		if err != nil || len(rep.Failed) > 0 {
			t.Fatal(cluster, err, rep.Failed)
		}
		rows := readCSV(t, filepath.Join(dir, "out", SummaryFile))
		jct[cluster], _ = strconv.ParseFloat(rows[1][slices.Index(rows[0], "mean_jct")], 64)
		// what the sharing simulator has no figure for is empty, not 0
		for _, col := range []string{"util_cpu", "util_mem", "passed_over", "mean_jct_replicas", "mean_wait_replicas", "critical_slo_attainment"} {
			if v := rows[1][slices.Index(rows[0], col)]; v != "" {
				t.Errorf("%s: %s %q, want empty", cluster, col, v)
			}
		}
	}
	if !(jct["nodes:2x4:K80"] > 1.5*jct["nodes:2x4:V100"]) {
		t.Errorf("mean JCT on K80s %.0f s, on V100s %.0f s: want the K80s slower", jct["nodes:2x4:K80"], jct["nodes:2x4:V100"])
	}
}

// TestSharingUnmeasured: a job Gavel did not measure on the cluster's GPU
// at its scale (ResNet-50 at batch 128 on 2-8 K80s: 0 steps/s) is
// unschedulable under a sharing scheduler, as under a queue scheduler, where
// it failed the whole run; its deadline is empty. A cluster of no GPUs is
// refused at its line.
func TestSharingUnmeasured(t *testing.T) {
	trace, err := filepath.Abs(data("gavel/msr/0e4a51.trace.gz"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rep, err := runBody(t, dir, "name: u\nworkloads:\n  - {name: w, trace: "+trace+", cluster: \"nodes:5x4:K80\"}\n"+
		"schedulers:\n  - {name: S, sharing: exclusive}\n  - {name: F, placement: first-fit}\n")
	if err != nil || len(rep.Failed) > 0 {
		t.Fatal(err, rep.Failed)
	}
	sum, err := readTable(filepath.Join(dir, "out", SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	unsched := map[string]string{}
	for _, row := range sum {
		unsched[row["scheduler"]] = row["unschedulable"]
	}
	if unsched["S"] != unsched["F"] || unsched["S"] == "0" || unsched["S"] == "" {
		t.Errorf("unschedulable: sharing %q, first-fit %q; want the same jobs, some", unsched["S"], unsched["F"])
	}
	jobs, err := readTable(filepath.Join(dir, "out", JobsFile))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i, row := range jobs {
		if row["scheduler"] == "S" && row["status"] == "unschedulable" {
			n++
			if row["deadline"] != "" || row["met_slo"] != "" || row["start"] != "" && row["start"] != "-1" {
				t.Fatalf("jobs.csv row %d: an unschedulable sharing job with deadline %q, met_slo %q, start %q", i, row["deadline"], row["met_slo"], row["start"])
			}
		}
	}
	if strconv.Itoa(n) != unsched["S"] {
		t.Errorf("%d unschedulable sharing rows in jobs.csv, summary says %s", n, unsched["S"])
	}

	_, err = ParseConfig([]byte("name: p\nworkloads:\n  - {trace: x.trace, cluster: nodes:1x2:V100}\nschedulers:\n  - {sharing: jct, ga: {population: 10}}\n"), "ga.yaml")
	if err == nil || !strings.Contains(err.Error(), "ga.yaml:5: schedulers[0].ga: parameters of placement ga, but a sharing scheduler (sharing: jct) has no placement") {
		t.Errorf("a sharing scheduler with ga parameters: %v", err)
	}
	_, err = ParseConfig([]byte("name: p\nworkloads:\n  - {trace: x.trace, cluster: \"pool:8\"}\nschedulers:\n  - {sharing: exclusive}\n"), "pool.yaml")
	if err == nil || !strings.Contains(err.Error(), "pool.yaml:3: workloads[0].cluster: pool:8 has no GPUs, and sharing schedulers share GPUs") {
		t.Errorf("a sharing scheduler on a pool of processors: %v", err)
	}
}

// A 0 written is not the default: refused where it means nothing (and γ
// where it would speed a job on part of a GPU), kept where it does.
func TestSharingZeroes(t *testing.T) {
	trace, err := filepath.Abs(data("gavel/msr/ed69ec.trace.gz"))
	if err != nil {
		t.Fatal(err)
	}
	head := "name: x\nworkloads:\n  - {trace: " + trace + ", cluster: nodes:2x4:V100, sample: 300}\n"
	cfg := head + `sharing:
  slo_factor: 0
  slo_target: 0
  share_exponent: -2
  reserved_fraction: 1
schedulers: [{sharing: slo}]
sweep: {sigma: [0, 0.5]}
`
	_, err = ParseConfig([]byte(cfg), "z.yaml")
	for _, want := range []string{
		"z.yaml:5: sharing.slo_factor: 0: want at least 1 (leave it out for 2)",
		"z.yaml:6: sharing.slo_target: 0: want in (0, 1]",
		"z.yaml:7: sharing.share_exponent: -2: want γ above 0 and at most 10",
		"z.yaml:8: sharing.reserved_fraction: 1 is not in [0, 1)",
		"z.yaml:10: sweep.sigma: no scheduler's estimate takes σ (estimate: noisy); a sharing scheduler's error of prediction is sharing.prediction_sigma",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("errors lack %q:\n%v", want, err)
		}
	}
	for _, g := range []string{".nan", "1e9", "0"} {
		if _, err := ParseConfig([]byte(head+"sharing: {share_exponent: "+g+"}\nschedulers: [{sharing: packing}]\n"), "g.yaml"); err == nil || !strings.Contains(err.Error(), "g.yaml:4: sharing.share_exponent") {
			t.Errorf("share_exponent %s: %v", g, err)
		}
	}
	if _, err := ParseConfig([]byte(head+"sharing: {reserved_fraction: 0.2}\nschedulers: [{sharing: slo}]\n"), "r.yaml"); err == nil || !strings.Contains(err.Error(), "no job is critical") {
		t.Errorf("a reservation without critical jobs: %v", err)
	}
	// max_interference 0 lets no co-location slow a job: fewer jobs share
	// than at 0.001, and at the default 0.5 more
	shared := map[string]float64{}
	for _, mi := range []string{"0", "0.001", ""} {
		s := ""
		if mi != "" {
			s = "sharing: {max_interference: " + mi + "}\n"
		}
		c, err := ParseConfig([]byte(head+s+"schedulers: [{sharing: jct}]\n"), "m.yaml")
		if err != nil {
			t.Fatal(err)
		}
		c.Out = t.TempDir()
		if _, err := Run(context.Background(), c, RunOptions{Jobs: 1}); err != nil {
			t.Fatal(err)
		}
		tab, err := readTable(filepath.Join(c.Out, SummaryFile))
		if err != nil {
			t.Fatal(err)
		}
		if shared[mi], err = tab.float("summary.csv", 0, "shared_jobs"); err != nil {
			t.Fatal(err)
		}
	}
	if !(shared["0"] <= shared["0.001"] && shared["0.001"] < shared[""]) {
		t.Errorf("jobs shared at max_interference 0, 0.001 and the default: %v, %v, %v", shared["0"], shared["0.001"], shared[""])
	}
}
