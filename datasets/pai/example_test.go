package pai_test

import (
	"fmt"
	"log"

	"github.com/wb-sim/wb/datasets/pai"
)

func ExampleCluster() {
	machines, err := pai.ReadMachineSpec("../data/pai/pai_machine_spec.csv")
	if err != nil {
		log.Fatal(err)
	}
	c := pai.Cluster(machines)
	cpu, mem, gpu := c.Capacity()
	fmt.Println(len(c.Nodes), "machines,", cpu/1000, "cores,", mem/1024, "GiB,", gpu/1000, "GPUs")
	// Output:
	// 1897 machines, 156576 cores, 948224 GiB, 6742 GPUs
}

func ExampleJobs() {
	jobs, err := pai.ReadJobs("testdata/pai_job_table.csv")
	if err != nil {
		log.Fatal(err)
	}
	tasks, err := pai.ReadTasks("testdata/pai_task_table.csv")
	if err != nil {
		log.Fatal(err)
	}
	out, dropped, err := pai.Jobs(jobs, tasks)
	if err != nil {
		log.Fatal(err)
	}
	for _, j := range out {
		fmt.Printf("%s: submit %d, run %d, %d replicas\n", j.Name, j.Submit, j.Run, j.Replicas())
	}
	fmt.Println("jobs dropped:", dropped.Total())
	fmt.Println("task rows without a job:", dropped.Count(pai.DropOrphanTask))
	// Output:
	// j9: submit 10, run 188, 1 replicas
	// j3: submit 60, run 935, 1 replicas
	// j1: submit 100, run 595, 3 replicas
	// jobs dropped: 7
	// task rows without a job: 1
}
