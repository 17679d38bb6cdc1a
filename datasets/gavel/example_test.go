package gavel_test

import (
	"fmt"
	"log"

	"github.com/wb-sim/wb/datasets/gavel"
)

func ExampleJobs() {
	rows, err := gavel.ReadTrace("../data/gavel/small_test.trace")
	if err != nil {
		log.Fatal(err)
	}
	tp, err := gavel.ReadThroughputs("../data/gavel/simulation_throughputs.json.gz")
	if err != nil {
		log.Fatal(err)
	}
	jobs, dropped, err := gavel.Jobs(rows, tp, "v100")
	if err != nil {
		log.Fatal(err)
	}
	j := jobs[0]
	fmt.Printf("%d jobs (dropped: %v); first: %s, %d steps on %d GPUs: %d s\n",
		len(jobs), dropped, j.Name, rows[j.ID].TotalSteps, j.Tasks[0].Replicas, j.Run)
	// Output:
	// 20 jobs (dropped: none); first: Transformer (batch size 128), 346 steps on 2 GPUs: 35 s
}
