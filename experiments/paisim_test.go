package experiments

import (
	"strconv"
	"strings"
	"testing"
)

// TestPAISimConfig runs configs/pai-sim.yaml as a fresh clone would: every
// run completes on its sample of 5,000 re-timed jobs, the figures pass
// their check, and the policies rank as the PAI simulator's published
// table does (SJF first, the estimate-ordered policies between it and
// FIFO, SJU the worst of them), in every replica.
func TestPAISimConfig(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the whole config (about 3 s)")
	}
	_, _, rows, path := runBundled(t, "pai-sim.yaml")
	jct := map[string]map[string]float64{} // replica → scheduler → mean JCT
	for i, r := range rows {
		if r["status"] != "ok" || r["jobs"] != "5000" || r["completed"] != "5000" {
			t.Fatalf("run %s: status %s, %s jobs, %s completed", r["run"], r["status"], r["jobs"], r["completed"])
		}
		if r["util_mem"] != "" || r["util_gpu"] == "" {
			t.Fatalf("run %s: util_mem %q, util_gpu %q: a pool of GPUs holds no memory (empty), and GPUs", r["run"], r["util_mem"], r["util_gpu"])
		}
		v, err := rows.float(path, i, "mean_jct")
		if err != nil {
			t.Fatal(err)
		}
		if jct[r["replica"]] == nil {
			jct[r["replica"]] = map[string]float64{}
		}
		jct[r["replica"]][r["scheduler"]] = v
	}
	if len(jct) != 3 {
		t.Fatalf("%d replicas", len(jct))
	}
	for rep, m := range jct {
		for _, pair := range [][2]string{{"SJF", "SJG"}, {"SJF", "SJGG"}, {"SJG", "SJU"}, {"SJGG", "SJU"}, {"SJU", "FIFO"}} {
			if !(m[pair[0]] < m[pair[1]]) {
				t.Errorf("replica %s: %s mean JCT %.0f s, %s %.0f s: want %[2]s first", rep, pair[0], m[pair[0]], pair[1], m[pair[1]])
			}
		}
	}
}

// TestPrepareValidation: the workload-preparation fields are checked with
// the config's line.
func TestPrepareValidation(t *testing.T) {
	base := "name: x\nworkloads:\n  - trace: ../datasets/data/pai/pai_sim_jobs_synthetic.csv.gz\n    cluster: pool:64:1486\n"
	for _, c := range []struct{ extra, want string }{
		{"    sample: -1\n", "workloads[0].sample: -1 is negative"},
		{"    sample: 10\n    window: 10\n", "a replica is a window or a sample of the trace, not both"},
		{"    arrival_rate: -5\n", "workloads[0].arrival_rate: -5 is negative"},
		{"    arrival_interval: 30\n", "arrival_interval: has no effect without arrival_rate"},
	} {
		_, err := ParseConfig([]byte(base+c.extra+"schedulers:\n  - {backfill: greedy}\n"), "x.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err %v, want %q", c.extra, err, c.want)
		}
	}
	// Nine schedulers and a figure: the figure could not tell them apart.
	var s strings.Builder
	for i := range 9 {
		s.WriteString("  - {name: s" + strconv.Itoa(i) + "}\n")
	}
	_, err := ParseConfig([]byte(base+"schedulers:\n"+s.String()+"figures:\n  - {kind: bar, metric: mean_jct}\n"), "x.yaml")
	if err == nil || !strings.Contains(err.Error(), "9 schedulers; the figures, one series each, tell at most 8 apart") {
		t.Errorf("nine schedulers: %v", err)
	}
}
