package workload

import (
	"reflect"
	"strings"
	"testing"

	"github.com/wb-sim/wb/scheduler"
)

// paiModels is the mapping configs/ga-pai.yaml uses.
var paiModels = map[string]string{"A10": "T4", "G2": "MISC", "G3": "MISC", "V100M16": "V100", "V100M32": "V100M32", "P100": "P100", "T4": "T4"}

func TestMapGPUModels(t *testing.T) {
	c := &scheduler.Cluster{Name: "c", Nodes: []scheduler.Node{
		{Name: "a", GPUs: 2, Model: "T4"}, {Name: "b", GPUs: 8, Model: "MISC"}, {Name: "c", GPUs: 8, Model: "V100"},
	}}
	jobs := []scheduler.Job{
		{ID: 1, Tasks: []scheduler.Task{{Replicas: 1, Request: scheduler.Request{GPUs: 1, Models: []string{"A10", "T4"}}}}},
		{ID: 2, Tasks: []scheduler.Task{{Replicas: 1, Request: scheduler.Request{GPUs: 1, Models: []string{"G2", "G3", "V100M16"}}}}},
		{ID: 3, Tasks: []scheduler.Task{{Replicas: 1, Request: scheduler.Request{GPUs: 1}}}},
		{ID: 4, Tasks: []scheduler.Task{{Replicas: 1, Request: scheduler.Request{GPUs: 1, Models: []string{"K80"}}}}},
	}
	m := map[string]string{"A10": "T4", "G2": "MISC", "G3": "MISC", "V100M16": "V100"}
	if err := MapGPUModels(jobs, c, m); err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for _, j := range jobs {
		got = append(got, j.Tasks[0].Request.Models)
	}
	want := [][]string{{"T4"}, {"MISC", "V100"}, nil, {"K80"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("models %q, want %q", got, want)
	}
	err := MapGPUModels(jobs, c, map[string]string{"A10": "A100", "G2": "MISC"})
	if err == nil || !strings.Contains(err.Error(), "A10 → A100") || !strings.Contains(err.Error(), "MISC, T4, V100") {
		t.Errorf("map onto a model the cluster lacks: error %v", err)
	}
}

// TestOpenbOnPAI loads the openb gpuspec33 pods on the PAI cluster with
// configs/ga-pai.yaml's mapping: no pod is left unable to fit for want
// of its model, and the cluster is PAI's 1,897 machines and 6,742 GPUs of
// five models.
func TestOpenbOnPAI(t *testing.T) {
	w, err := Load(Options{Trace: data("openb/openb_pod_list_gpuspec33.csv.gz"), Cluster: "pai", GPUModels: paiModels})
	if err != nil {
		t.Fatal(err)
	}
	models := map[string]int{}
	gpus := 0
	for _, n := range w.Cluster.Nodes {
		if n.GPUs > 0 {
			models[n.Model] += n.GPUs
		}
		gpus += n.GPUs
	}
	if len(w.Cluster.Nodes) != 1897 || gpus != 6742 || len(models) != 5 {
		t.Errorf("PAI cluster: %d machines, %d GPUs, models %v; want 1897, 6742 and five", len(w.Cluster.Nodes), gpus, models)
	}
	for _, j := range w.Jobs {
		for _, m := range j.Tasks[0].Request.Models {
			if models[m] == 0 {
				t.Fatalf("job %d asks for %q, which PAI does not have", j.ID, m)
			}
		}
	}
}

// TestMapGPUModelsUnasked: a key of the map that no job asks for (a typo,
// or another trace's name) is refused, naming the models the jobs ask for.
func TestMapGPUModelsUnasked(t *testing.T) {
	c := &scheduler.Cluster{Name: "c", Nodes: []scheduler.Node{{Name: "a", GPUs: 2, Model: "T4"}}}
	jobs := []scheduler.Job{
		{ID: 1, Tasks: []scheduler.Task{{Replicas: 1, Request: scheduler.Request{GPUs: 1, Models: []string{"A10"}}}}},
	}
	err := MapGPUModels(jobs, c, map[string]string{"a10": "T4"})
	if err == nil || !strings.Contains(err.Error(), "a10: no job asks for it") || !strings.Contains(err.Error(), "(the jobs ask for: A10)") {
		t.Errorf("a key no job asks for: error %v", err)
	}
	if jobs[0].Tasks[0].Request.Models[0] != "A10" {
		t.Errorf("a refused map renamed %q", jobs[0].Tasks[0].Request.Models)
	}
	jobs[0].Tasks[0].Request.Models = nil
	err = MapGPUModels(jobs, c, map[string]string{"A10": "T4"})
	if err == nil || !strings.Contains(err.Error(), "none: every job runs on any GPU") {
		t.Errorf("a map over jobs that ask for no model: error %v", err)
	}
}

// TestGavelOnPoolNoted: a Gavel trace on GPUs of no model (a GPU pool)
// runs at the GPU type's measured throughputs, and the workload says so
// (it ran at the V100's unsaid: a reviewer's find); on the GPUs it names,
// no note.
func TestGavelOnPoolNoted(t *testing.T) {
	tr := data("gavel/msr/0e4a51.trace.gz")
	w, err := Load(Options{Trace: tr, Cluster: "pool:64:2000", GPUType: "p100"})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Notes) != 1 || !strings.Contains(w.Notes[0], "at the P100's measured throughputs") {
		t.Errorf("notes %q", w.Notes)
	}
	w, err = Load(Options{Trace: tr, Cluster: "nodes:4x4:P100", GPUType: "p100"})
	if err != nil || len(w.Notes) != 0 {
		t.Errorf("on P100 nodes: %v, notes %q", err, w.Notes)
	}
}
