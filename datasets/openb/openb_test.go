package openb

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/wb-sim/wb/datasets"
	"github.com/wb-sim/wb/datasets/internal/readcheck"
	"github.com/wb-sim/wb/scheduler"
)

const data = "../data/openb/"

// Facts from the trace's documentation and the FGD paper (1,523 nodes,
// 1,213 with GPUs, 6,212 GPUs, 107,018,000 mCPU on the GPU nodes).
func TestReadNodesBundled(t *testing.T) {
	tests := []struct {
		file                 string
		nodes, withGPU, gpus int
		gpuNodeCPU           scheduler.MilliCPU
		models               map[string]int // nodes per model
	}{
		{"openb_node_list_all_node.csv", 1523, 1213, 6212, 107018000,
			map[string]int{"": 310, "G2": 549, "T4": 404, "P100": 134, "V100M16": 55, "G3": 39, "V100M32": 30, "A10": 2}},
		{"openb_node_list_gpu_node.csv", 1213, 1213, 6212, 107018000,
			map[string]int{"G2": 549, "T4": 404, "P100": 134, "V100M16": 55, "G3": 39, "V100M32": 30, "A10": 2}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			rows, err := ReadNodes(data + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			c := Cluster(rows)
			if err := c.Validate(); err != nil {
				t.Fatal(err)
			}
			withGPU, gpus := 0, 0
			var cpu scheduler.MilliCPU
			models := map[string]int{}
			for _, n := range c.Nodes {
				models[n.Model]++
				if n.GPUs > 0 {
					withGPU++
					gpus += n.GPUs
					cpu += n.CPU
				}
			}
			if len(c.Nodes) != tt.nodes || withGPU != tt.withGPU || gpus != tt.gpus || cpu != tt.gpuNodeCPU {
				t.Errorf("nodes %d, with GPUs %d, GPUs %d, GPU-node CPU %d; want %d, %d, %d, %d",
					len(c.Nodes), withGPU, gpus, cpu, tt.nodes, tt.withGPU, tt.gpus, tt.gpuNodeCPU)
			}
			if !reflect.DeepEqual(models, tt.models) {
				t.Errorf("nodes per model = %v, want %v", models, tt.models)
			}
		})
	}
}

// The default list's class counts are the README's; the others were counted
// with Python's csv module.
func TestReadPodsBundled(t *testing.T) {
	tests := []struct {
		file                              string
		pods, cpuOnly, shared, one, multi int
		withSpec                          int
		jobs                              int
		dropped                           datasets.Dropped
	}{
		{"openb_pod_list_default.csv.gz", 8152, 1088, 3078, 3911, 75, 0, 7255,
			datasets.Dropped{{Reason: DropUnscheduled, Count: 897, First: "line 63 (openb-pod-0061)"}}},
		{"openb_pod_list_gpushare100.csv.gz", 8152, 1088, 7064, 0, 0, 0, 8152 - 1209,
			datasets.Dropped{{Reason: DropUnscheduled, Count: 1209, First: "line 10 (openb-pod-0008)"}}},
		{"openb_pod_list_gpuspec33.csv.gz", 8152, 1088, 3078, 3911, 75, 2388, 7255,
			datasets.Dropped{{Reason: DropUnscheduled, Count: 897, First: "line 63 (openb-pod-0061)"}}},
		{"openb_pod_list_cpu050.csv.gz", 7439, 375, 3078, 3911, 75, 0, 7439 - 878,
			datasets.Dropped{{Reason: DropUnscheduled, Count: 878, First: "line 49 (openb-pod-0047)"}}},
		// The multigpu lists have no times: no pod becomes a timed job.
		{"openb_pod_list_multigpu50.csv.gz", 9061, 1088, 3078, 3911, 984, 0, 0,
			datasets.Dropped{{Reason: DropNoCreation, Count: 9061, First: "line 2 (openb-pod-0000)"}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			pods, err := ReadPods(data + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			var cpuOnly, shared, one, multi, withSpec int
			for i := range pods {
				r := pods[i].Request()
				switch {
				case r.GPUs == 0:
					cpuOnly++
				case r.Shared():
					shared++
				case r.GPUs == 1:
					one++
				default:
					multi++
				}
				if len(r.Models) > 0 {
					withSpec++
				}
			}
			got := []int{len(pods), cpuOnly, shared, one, multi, withSpec}
			want := []int{tt.pods, tt.cpuOnly, tt.shared, tt.one, tt.multi, tt.withSpec}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("pods, CPU-only, sharing, one GPU, multi-GPU, with spec = %v, want %v", got, want)
			}
			jobs, dropped, err := Jobs(pods)
			if err != nil {
				t.Fatal(err)
			}
			if len(jobs) != tt.jobs || !reflect.DeepEqual(dropped, tt.dropped) {
				t.Errorf("%d jobs, dropped %v; want %d, %v", len(jobs), dropped, tt.jobs, tt.dropped)
			}
			for i := range jobs {
				if err := jobs[i].Validate(); err != nil {
					t.Fatal(err)
				}
				if i > 0 && jobs[i].Submit < jobs[i-1].Submit {
					t.Fatalf("jobs not sorted by submit time at %d", i)
				}
			}
		})
	}
}

func TestReadNodes(t *testing.T) {
	rows, err := ReadNodes("testdata/nodes.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := &scheduler.Cluster{Name: "openb", Nodes: []scheduler.Node{
		{Name: "n-0", CPU: 32000, Mem: 262144},
		{Name: "n-1", CPU: 128000, Mem: 786432, GPUs: 8, Model: "G3"},
		{Name: "n-2", CPU: 96000, Mem: 786432, GPUs: 2, Model: "V100M32"},
		{Name: "n-3", CPU: 16000, Mem: 65536},
	}}
	if got := Cluster(rows); !reflect.DeepEqual(got, want) {
		t.Errorf("cluster =\n%+v\nwant\n%+v", got, want)
	}
	if rows[2].Line != 4 {
		t.Errorf("line of the third node = %d, want 4", rows[2].Line)
	}
}

func TestPodJobs(t *testing.T) {
	pods, err := ReadPods("testdata/pods.csv")
	if err != nil {
		t.Fatal(err)
	}
	jobs, dropped, err := Jobs(pods)
	if err != nil {
		t.Fatal(err)
	}
	task := func(r scheduler.Request) []scheduler.Task { return []scheduler.Task{{Replicas: 1, Request: r}} }
	want := []scheduler.Job{
		// a name with no number: the one after the highest any name has
		// (openb-pod-0037), so it collides with none
		{ID: 38, Name: "special", Submit: 100, Run: 40,
			Tasks: task(scheduler.Request{CPU: 1000, Mem: 1024, GPUs: 1, GPUMilli: 500, Models: []string{"T4"}})},
		{ID: 17, Name: "openb-pod-0017", Submit: 9437497, Run: 10769854 - 9437497,
			Tasks: task(scheduler.Request{CPU: 88000, Mem: 327680, GPUs: 8})},
		{ID: 22, Name: "openb-pod-0022", Submit: 9679175, Run: 9973826 - 9679175,
			Tasks: task(scheduler.Request{CPU: 4000, Mem: 15258, GPUs: 1, GPUMilli: 220})},
		{ID: 35, Name: "openb-pod-0035", Submit: 9967058, Run: 9968575 - 9967063,
			Tasks: task(scheduler.Request{CPU: 16000, Mem: 32768, GPUs: 1, Models: []string{"V100M16", "V100M32"}})},
	}
	if !reflect.DeepEqual(jobs, want) {
		t.Errorf("jobs =\n%+v\nwant\n%+v", jobs, want)
	}
	wantDropped := datasets.Dropped{{Reason: DropUnscheduled, Count: 1, First: "line 5 (openb-pod-0036)"}, {Reason: DropNegativeRun, Count: 1, First: "line 6 (openb-pod-0037)"}}
	if !reflect.DeepEqual(dropped, wantDropped) {
		t.Errorf("dropped = %v, want %v", dropped, wantDropped)
	}
	if p := pods[3]; p.Scheduled != NoTime || p.QoS != "LS" || p.Phase != "Pending" || p.Line != 5 {
		t.Errorf("pending pod = %+v", p)
	}
}

func TestPodsWithoutTimes(t *testing.T) {
	pods, err := ReadPods("testdata/multigpu.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := []PodRow{
		{Line: 2, Name: "openb-pod-0000", CPUMilli: 12000, MemoryMiB: 16384, NumGPU: 1, GPUMilli: 1000,
			Creation: NoTime, Deletion: NoTime, Scheduled: NoTime},
		{Line: 3, Name: "openb-pod-0001", CPUMilli: 6000, MemoryMiB: 12288, NumGPU: 2, GPUMilli: 1000,
			Creation: NoTime, Deletion: NoTime, Scheduled: NoTime},
	}
	if !reflect.DeepEqual(pods, want) {
		t.Errorf("pods =\n%+v\nwant\n%+v", pods, want)
	}
}

func TestDuplicateIDs(t *testing.T) {
	pods := []PodRow{{Line: 2, Name: "a-7"}, {Line: 3, Name: "b-7"}}
	_, _, err := Jobs(pods)
	if want := `line 3: pod "b-7" has ID 7, as "a-7" on line 2 has: rename one (a pod's ID is the number its name ends in)`; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
}

const podHeader = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"

// A GPU share above a whole GPU is clipped to it, as the FGD paper's
// simulator reads openb traces (gpu_milli clipped to (0, 1000]).
func TestReadPodsClipsMilli(t *testing.T) {
	pods, err := ReadPodsFrom(strings.NewReader(podHeader+"p-1,1,1,1,1500,,LS,Running,0,1,0\n"), "p.csv")
	if err != nil || len(pods) != 1 || pods[0].GPUMilli != 1000 {
		t.Errorf("pods %+v, error %v: want gpu_milli 1000", pods, err)
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name  string
		nodes bool
		in    string
		want  string
	}{
		{"bad number", false, podHeader + "p-1,abc,1,0,0,,LS,Running,0,1,0\n", `p.csv:2: cpu_milli: "abc" is not an integer`},
		{"empty number", false, podHeader + "p-1,1,,0,0,,LS,Running,0,1,0\n", `p.csv:2: memory_mib: empty; want an integer`},
		{"negative", false, podHeader + "p-1,1,1,0,0,,LS,Running,0,1,0\np-2,1,1,-1,0,,LS,Running,0,1,0\n", `p.csv:3: num_gpu: -1 is less than 0`},
		{"negative time", false, podHeader + "p-1,1,1,0,0,,LS,Running,-5,1,0\n", `p.csv:2: creation_time: -5 is less than 0`},
		{"time past the horizon", false, podHeader + "p-1,1,1,0,0,,LS,Running,0,9223372036854775807,0\n", `p.csv:2: deletion_time: 9223372036854775807 is more than 1125899906842624 (the simulator's time horizon, 2^50 s)`},
		{"node of 5e18 CPUs", true, "sn,cpu_milli,memory_mib,gpu,model\nn,5000000000000000000,1,0,\n", `p.csv:2: cpu_milli: 5000000000000000000 is more than 1099511627776 (the simulator's bound on a capacity or request)`},
		{"float time", false, podHeader + "p-1,1,1,0,0,,LS,Running,1.5,1,0\n", `p.csv:2: creation_time: "1.5" is not an integer`},
		{"milli without GPU", false, podHeader + "p-1,1,1,0,500,,LS,Running,0,1,0\n", `p.csv:2: gpu_milli: 500 for a pod without GPUs`},
		{"milli zero", false, podHeader + "p-1,1,1,1,0,,LS,Running,0,1,0\n", `p.csv:2: gpu_milli: 0; want 1 to 1000`},
		{"shared multi-GPU", false, podHeader + "p-1,1,1,2,500,,LS,Running,0,1,0\n", `p.csv:2: gpu_milli: 500 with 2 GPUs; only a one-GPU pod shares its GPU`},
		{"too many GPUs", false, podHeader + "p-1,1,1,17,1000,,LS,Running,0,1,0\n", `p.csv:2: num_gpu: 17 GPUs; a node holds at most 16`},
		{"duplicate pod", false, podHeader + "p-1,1,1,0,0,,LS,Running,0,1,0\np-1,1,1,0,0,,LS,Running,0,1,0\n", `p.csv:3: name: pod "p-1" already on line 2`},
		{"field count", false, podHeader + "p-1,1,1,0,0\n", `p.csv:2: wrong number of fields: want 11`},
		{"missing column", false, "name,cpu_milli,num_gpu,gpu_milli\n", `p.csv:1: missing column(s) memory_mib (header name,cpu_milli,num_gpu,gpu_milli)`},
		{"column twice", false, "name,cpu_milli,memory_mib,num_gpu,gpu_milli,name\n", `p.csv:1: name: column named twice`},
		// a header of every name in another case is a header, its columns missing
		{"header in capitals", false, "NAME,CPU_MILLI,MEMORY_MIB,NUM_GPU,GPU_MILLI\n", `p.csv:1: missing column(s) name, cpu_milli, memory_mib, num_gpu, gpu_milli (header NAME,CPU_MILLI,MEMORY_MIB,NUM_GPU,GPU_MILLI)`},
		// a list without its header: its first row is not read as names given twice
		{"no header", false, "p-1,0,0,0,0,,LS,Running,0,1,0\np-2,1,1,0,0,,LS,Running,0,1,0\n", `p.csv:1: no header: none of the columns name, cpu_milli, memory_mib, num_gpu, gpu_milli is named on the first line (p-1,0,0,0,0,,LS,Running,0,1,0); the first line names the columns`},
		{"bare quote", false, podHeader + "p\"1,1,1,0,0,,LS,Running,0,1,0\n", `p.csv:2: bare " in non-quoted-field`},
		// a quote left open is blamed where it opens, not where the file ends
		{"open quote", false, podHeader + "p-1,1,1,1,1000,\"V100,LS,Running,0,100,0\n" + strings.Repeat("p-2,1,1,0,0,,LS,Running,0,1,0\n", 50), `p.csv:2: extraneous or missing " in quoted-field`},
		// a column misspelt beside the one it should have been
		{"column misspelt", false, strings.Replace(podHeader, "creation_time", "Creation_Time", 1) + "p-1,1,1,0,0,,LS,Running,0,1,0\n", `p.csv:1: Creation_Time: not a column of this table, and creation_time is absent: name the column creation_time (column names are exact)`},
		{"column with a dash", false, strings.Replace(podHeader, "gpu_spec", "GPU-Spec", 1) + "p-1,1,1,0,0,,LS,Running,0,1,0\n", `p.csv:1: GPU-Spec: not a column of this table, and gpu_spec is absent`},
		{"empty file", false, "", `p.csv: empty file: no header`},
		{"GPUs without model", true, "sn,cpu_milli,memory_mib,gpu,model\nn,1,1,2,nan\n", `p.csv:2: model: empty for a node with 2 GPUs`},
		{"model without GPUs", true, "sn,cpu_milli,memory_mib,gpu,model\nn,1,1,0,T4\n", `p.csv:2: model: "T4" on a node without GPUs`},
		{"duplicate node", true, "sn,cpu_milli,memory_mib,gpu,model\nn,1,1,0,\nn,1,1,0,\n", `p.csv:3: sn: node "n" already on line 2`},
		// a field that fails is blamed once, not again by the checks across fields
		{"negative milli", false, podHeader + "p-1,1,1,1,-500,,LS,Running,0,1,0\n", `p.csv:2: gpu_milli: -500 is less than 0`},
		{"too many GPUs beside a bad time", false, podHeader + "p-1,1,1,20,1000,,LS,Running,x,1,0\n", "p.csv:2: creation_time: \"x\" is not an integer\np.csv:2: num_gpu: 20 GPUs; a node holds at most 16"},
		{"negative GPUs with a model", true, "sn,cpu_milli,memory_mib,gpu,model\nn,1,1,-1,V100\n", `p.csv:2: gpu: -1 is less than 0`},
		{"two errors", true, "sn,cpu_milli,memory_mib,gpu,model\nn,x,1,0,\n,1,1,0,\n", "p.csv:2: cpu_milli: \"x\" is not an integer\np.csv:3: sn: empty node name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.nodes {
				_, err = ReadNodesFrom(strings.NewReader(tt.in), "p.csv")
			} else {
				_, err = ReadPodsFrom(strings.NewReader(tt.in), "p.csv")
			}
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error = %v, want %q", err, tt.want)
			}
			if strings.Contains(tt.name, "empty file") {
				return
			}
			var cerr *datasets.ColumnError
			if !errors.As(err, &cerr) {
				t.Errorf("error is not a *datasets.ColumnError")
			}
		})
	}
}

func seeds(f *testing.F, paths ...string) {
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// checkErr fails unless err names the file and, when it is about a line,
// is a *datasets.ColumnError.
func checkErr(t *testing.T, err error) { readcheck.Error(t, err, "f.csv") }

func FuzzReadNodes(f *testing.F) {
	seeds(f, "testdata/nodes.csv")
	f.Add([]byte("sn,cpu_milli,memory_mib,gpu,model\nn,1,1,2,nan\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		rows, err := ReadNodesFrom(bytes.NewReader(in), "f.csv")
		if err != nil {
			checkErr(t, err)
			return
		}
		if c := Cluster(rows); len(c.Nodes) > 0 {
			for _, n := range c.Nodes {
				if n.CPU < 0 || n.Mem < 0 || n.GPUs < 0 || n.GPUs > scheduler.MaxGPUsPerNode {
					t.Fatalf("invalid node %+v", n)
				}
			}
		}
	})
}

func FuzzReadPods(f *testing.F) {
	seeds(f, "testdata/pods.csv", "testdata/multigpu.csv")
	f.Add([]byte(podHeader + "p-1,1,1,2,500,,LS,Running,0,1,0\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		pods, err := ReadPodsFrom(bytes.NewReader(in), "f.csv")
		if err != nil {
			checkErr(t, err)
			return
		}
		jobs, _, err := Jobs(pods)
		if err != nil {
			if !strings.Contains(err.Error(), " has ID ") {
				t.Fatalf("Jobs: %v", err)
			}
			return
		}
		for i := range jobs {
			if err := jobs[i].Validate(); err != nil {
				t.Fatalf("Jobs let through an invalid job: %v", err)
			}
		}
	})
}

// TestReadSpreadsheetHeader: a header as a spreadsheet exports it, CRLF
// line ends, spaces around names and unnamed trailing columns (two or
// more), and GPU counts as pandas writes a column with a gap ("1.0"),
// read as the plain ones do.
func TestReadSpreadsheetHeader(t *testing.T) {
	row := "p-1,1,1,1,1000,V100M16,LS,Running,0,100,0"
	want, err := ReadPodsFrom(strings.NewReader(podHeader+row+"\n"), "p.csv")
	if err != nil {
		t.Fatal(err)
	}
	spaced := strings.ReplaceAll(strings.TrimSuffix(podHeader, "\n"), ",", " , ") + ",host,qps" // columns of its own, read past
	pandas := strings.Replace(row, ",1,1000,", ",1.0,1000.0,", 1) + ",h1,7"
	got, err := ReadPodsFrom(strings.NewReader(spaced+",,\r\n"+pandas+",,\r\n"), "p.csv")
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("read %+v, %v; want %+v", got, err, want)
	}
}

// TestReadLoneCR: a table whose lines end in CR alone is refused as such,
// at the line of the first lone CR (it read as one line, whose repeated
// values said "column named twice"); CRLF, and a CR ending the file, read.
func TestReadLoneCR(t *testing.T) {
	row := "p-1,1,1,1,1000,V100M16,LS,Running,0,100,0"
	in := strings.ReplaceAll(podHeader, "\n", "\r") + row + "\r" + row + "\r"
	_, err := ReadPodsFrom(strings.NewReader(in), "p.csv")
	if want := "p.csv:1: a carriage return not followed by a line feed"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("CR line ends: %v, want %q", err, want)
	}
	_, err = ReadPodsFrom(strings.NewReader(podHeader+row+"\n"+row+"\rp-2"), "p.csv")
	if want := "p.csv:3: a carriage return"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a lone CR on line 3: %v, want %q", err, want)
	}
	for _, in := range []string{strings.ReplaceAll(podHeader, "\n", "\r\n") + row + "\r\n", podHeader + row + "\r"} {
		if got, err := ReadPodsFrom(strings.NewReader(in), "p.csv"); err != nil || len(got) != 1 {
			t.Errorf("%q: %d pods, %v", in, len(got), err)
		}
	}
}

// TestReadNotATable: a text file whose lines hold different numbers of
// fields under a first line naming none of the columns is said to be no
// table of this kind (it said "wrong number of fields: want 1": a
// reviewer's find).
func TestReadNotATable(t *testing.T) {
	_, err := ReadNodesFrom(strings.NewReader("# wb\n\nA tool, for researchers.\nIt has, two, commas\n"), "README.md")
	if want := `README.md:1: not a table of this kind: its first line names none of the columns`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
}

// TestReadHostileBytes: a UTF-8 byte-order mark before the header is not
// part of the first column's name (it once read as a missing column); a
// truncated compressed table says so; a line longer than csvtab.MaxLine is
// refused at once.
func TestReadHostileBytes(t *testing.T) {
	rows, err := ReadNodesFrom(strings.NewReader("\uFEFFsn,cpu_milli,memory_mib,gpu,model\nn,1000,1,0,\n"), "bom.csv")
	if err != nil || len(rows) != 1 || rows[0].Name != "n" {
		t.Errorf("header after a BOM: %v %v", rows, err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	io.WriteString(zw, "sn,cpu_milli,memory_mib,gpu,model\n")
	for i := range 5000 {
		fmt.Fprintf(zw, "node-%d,%d,1,0,\n", i, 1000+i)
	}
	zw.Close()
	if _, err := ReadNodesFrom(bytes.NewReader(buf.Bytes()[:buf.Len()/2]), "n.csv.gz"); err == nil || !strings.Contains(err.Error(), "unexpected end of compressed data: the file is truncated") {
		t.Errorf("truncated: %v", err)
	}
	long := "sn,cpu_milli,memory_mib,gpu,model\nn,1000,1,0,\n\"" + strings.Repeat("x", 1<<20+10) + "\"\n"
	if _, err := ReadNodesFrom(strings.NewReader(long), "n.csv"); err == nil || !strings.Contains(err.Error(), "n.csv:3: line longer than") {
		t.Errorf("long line: %v", err)
	}
}

// TestScheduledBeforeCreated: a pod scheduled before it was created would
// run, from its arrival, for longer than it existed; it is dropped and
// counted, not simulated.
func TestScheduledBeforeCreated(t *testing.T) {
	pods := []PodRow{
		{Line: 2, Name: "p-1", CPUMilli: 1000, Creation: 100, Scheduled: 50, Deletion: 400},
		{Line: 3, Name: "p-2", CPUMilli: 1000, Creation: 100, Scheduled: 150, Deletion: 400},
	}
	jobs, dropped, err := Jobs(pods)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 1 || jobs[0].ID != 2 || jobs[0].Run != 250 {
		t.Errorf("jobs %+v; want only p-2, running 250 s", jobs)
	}
	if want := (datasets.Dropped{{Reason: DropEarlyStart, Count: 1, First: "line 2 (p-1)"}}); !reflect.DeepEqual(dropped, want) {
		t.Errorf("dropped %v, want %v", dropped, want)
	}
}
