package openb_test

import (
	"fmt"
	"log"

	"github.com/wb-sim/wb/datasets/openb"
)

func Example() {
	nodes, err := openb.ReadNodes("../data/openb/openb_node_list_gpu_node.csv")
	if err != nil {
		log.Fatal(err)
	}
	cluster := openb.Cluster(nodes)
	_, _, gpu := cluster.Capacity()
	fmt.Println(len(cluster.Nodes), "nodes,", gpu/1000, "GPUs")

	pods, err := openb.ReadPods("../data/openb/openb_pod_list_default.csv.gz")
	if err != nil {
		log.Fatal(err)
	}
	jobs, dropped, err := openb.Jobs(pods)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(pods), "pods,", len(jobs), "jobs; dropped:", dropped)
	r := jobs[0].Tasks[0].Request
	fmt.Printf("first: %s at %d s for %d s: %d mCPU, %d MiB, %d GPU(s) of %d milli\n",
		jobs[0].Name, jobs[0].Submit, jobs[0].Run, r.CPU, r.Mem, r.GPUs, r.GPUTotal())
	// Output:
	// 1213 nodes, 6212 GPUs
	// 8152 pods, 7255 jobs; dropped: unscheduled: 897, the first line 63 (openb-pod-0061)
	// first: openb-pod-0000 at 0 s for 12537496 s: 12000 mCPU, 16384 MiB, 1 GPU(s) of 1000 milli
}
