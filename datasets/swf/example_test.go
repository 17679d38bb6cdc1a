package swf_test

import (
	"fmt"
	"log"
	"os"

	"github.com/wb-sim/wb/datasets/swf"
	"github.com/wb-sim/wb/scheduler"
)

func ExampleJobs() {
	tr, err := swf.ReadFile("../data/swf/KTH-SP2-1996-2.1-cln.swf.gz")
	if err != nil {
		log.Fatal(err)
	}
	procs, err := swf.MachineProcs(tr)
	if err != nil {
		log.Fatal(err)
	}
	jobs, dropped, err := swf.Jobs(tr, procs)
	if err != nil {
		log.Fatal(err)
	}
	cluster := scheduler.NewPool("KTH-SP2", procs)
	fmt.Println(len(cluster.Nodes), "pool of", procs, "processors")
	fmt.Println(len(jobs), "jobs; dropped:", dropped)
	fmt.Printf("first: job %d of user %s at %d s, %d s on %d processors\n",
		jobs[0].ID, jobs[0].User, jobs[0].Submit, jobs[0].Run, jobs[0].Tasks[0].Request.CPU/scheduler.MilliPerCore)
	// Output:
	// 1 pool of 100 processors
	// 27992 jobs; dropped: none
	// first: job 15 of user 12 at 599850 s, 3477 s on 4 processors
}

func ExampleFromSchedule() {
	tr, err := swf.ReadFile("testdata/small.swf")
	if err != nil {
		log.Fatal(err)
	}
	orig := tr.ByID()
	out, err := swf.FromSchedule(tr.Header[:1], []swf.ScheduledJob{
		{ID: 1, Submit: 0, Start: 30, End: 130, Procs: 4, Original: orig[1]},
		{ID: 2, Submit: 5, Start: 5, End: 5, Procs: 2},
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := swf.Write(os.Stdout, out); err != nil {
		log.Fatal(err)
	}
	// Output:
	// ; Version: 2.2
	//     1        0     30    100    4   98.5    -1    4    200    -1  1   3   1  -1 -1 -1 -1 -1
	//     2        5      0      0    2     -1    -1   -1     -1    -1  1  -1  -1  -1 -1 -1 -1 -1
}
