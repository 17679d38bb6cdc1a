package app

import (
	"cmp"
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/wb-sim/wb/datasets/paisim"
)

func datasetCommand() *cli.Command {
	return &cli.Command{
		Name:  "dataset",
		Usage: "derive a trace wb reads from raw published tables, or generate one",
		Description: "The bundled traces (datasets/data) need none of this; it makes the PAI v2020 simulator's\n" +
			"job table from Alibaba's raw tables, its sample, or a synthetic one like the bundled:\n\n" +
			"   wb dataset pai-sim-synthetic --jobs 20000 --seed 2020 --out jobs.csv.gz\n" +
			"   wb dataset pai-sim --help     # where the raw tables are, and what it keeps",
		Subcommands: []*cli.Command{
			{
				Name:  "pai-sim",
				Usage: "derive the Alibaba PAI v2020 simulator's job table from the trace's raw job, task and group tables",
				Description: "The raw tables (100 MB to 2 GB; not bundled) are in alibaba/clusterdata,\n" +
					"cluster-trace-gpu-v2020: its README links pai_job_table.tar.gz, pai_task_table.tar.gz and\n" +
					"pai_group_tag_table.tar.gz (also at github.com/qzweng/clusterdata-cluster-trace-gpu-v2020-data);\n" +
					"unpack them and give their .csv files. The job table written has the simulator's columns\n" +
					"(job_id,user,num_gpu,num_cpu,submit_time,duration,num_inst,gpu_type,user_dur,group_dur,\n" +
					"group_gpu_dur); its estimates use only other jobs ended by each job's submission\n" +
					"(`go doc github.com/wb-sim/wb/datasets/paisim Derive` gives every rule).\n\n" +
					"Example:\n" +
					"   wb dataset pai-sim --jobs pai_job_table.csv --tasks pai_task_table.csv \\\n" +
					"      --groups pai_group_tag_table.csv --out pai_sim_jobs.csv.gz\n" +
					"   wb simulate --trace pai_sim_jobs.csv.gz --cluster pool:6500:150930 --sample 20000 \\\n" +
					"      --arrival-rate 1000 --order sjf --estimate group-gpu-dur --backfill greedy",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "jobs", Required: true, DefaultText: "none: required", Usage: "pai_job_table.csv (or .csv.gz): a file, not a count (--jobs of pai-sim-sample and pai-sim-synthetic are counts)"},
					&cli.StringFlag{Name: "tasks", Required: true, DefaultText: "none: required", Usage: "pai_task_table.csv (or .csv.gz)"},
					&cli.StringFlag{Name: "groups", Usage: "pai_group_tag_table.csv; without it the table has no group_dur and group_gpu_dur"},
					tableOut(),
				},
				Action: func(c *cli.Context) error {
					if err := checkTableOut(c, "jobs", "tasks", "groups"); err != nil {
						return err
					}
					rows, dropped, err := paisim.DeriveFiles(c.String("jobs"), c.String("tasks"), c.String("groups"))
					if err != nil {
						return err
					}
					return writeTable(c, rows, fmt.Sprintf("dropped: %s", dropped))
				},
			},
			{
				Name:  "pai-sim-sample",
				Usage: "write the sample of a job table that the PAI v2020 simulator draws (its num_jobs and random_seed)",
				Description: "The simulator reads the table's first 10 × JOBS + 1 rows, shuffles them with Python's\n" +
					"random.seed(SEED) and random.shuffle, and keeps the first JOBS; this writes those jobs, in the\n" +
					"table's order. Run wb on the sample without --sample, with the simulator's other settings, to\n" +
					"simulate what the simulator simulates on the whole table; its published table is on\n" +
					"pai_job_duration_estimate_100K.csv with 20000 jobs and seed 42:\n" +
					"   wb dataset pai-sim-sample --table pai_job_duration_estimate_100K.csv --jobs 20000 --seed 42 --out s.csv\n" +
					"   wb simulate --trace pai-sim:s.csv --cluster pool:6500:150930 --arrival-rate 1000 --order sjf --estimate exact --backfill greedy",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "table", Required: true, DefaultText: "none: required", Usage: "the job table (format pai-sim)"},
					&cli.IntFlag{Name: "jobs", Required: true, DefaultText: "none: required", Usage: "jobs to sample (the simulator's num_jobs)", Action: between("jobs", 1, 1<<24, "at most 2^24")},
					&cli.Uint64Flag{Name: "seed", Value: 42, Usage: "the simulator's random_seed"},
					tableOut(),
				},
				Action: func(c *cli.Context) error {
					if err := checkTableOut(c, "table"); err != nil {
						return err
					}
					rows, err := paisim.Read(c.String("table"))
					if err != nil {
						return err
					}
					if len(rows) == 0 {
						return fmt.Errorf("--table %s holds no jobs (a header alone); %s not written", c.String("table"), c.String("out"))
					}
					sample := paisim.SimulatorSample(rows, c.Int("jobs"), c.Uint64("seed"))
					note := fmt.Sprintf("of %d", len(rows))
					if len(sample) < c.Int("jobs") {
						// as wb simulate --sample says (it was written
						// whole without a word: a reviewer's find)
						note = fmt.Sprintf("of %d: the table holds fewer than the %d asked, all of them written", len(rows), c.Int("jobs"))
					}
					return writeTable(c, sample, note)
				},
			},
			{
				Name:  "pai-sim-synthetic",
				Usage: "generate a synthetic job table in the PAI v2020 simulator's format (the bundled one's generator)",
				Description: "The model is documented by `go doc github.com/wb-sim/wb/datasets/paisim Synthetic`;\n" +
					"it is shaped like the trace, not fitted to it. The bundled table is\n" +
					"   wb dataset pai-sim-synthetic --jobs 20000 --seed 2020 --out datasets/data/pai/pai_sim_jobs_synthetic.csv.gz",
				Flags: []cli.Flag{
					&cli.IntFlag{Name: "jobs", Required: true, DefaultText: "none: required", Usage: "number of jobs (about 0.5 GB of memory and 10 s a million on a 2-core VM)", Action: between("jobs", 1, 1<<24, "at most 2^24")},
					&cli.IntFlag{Name: "users", Value: 100, Usage: "number of users", Action: between("users", 1, 1<<20, "at most 2^20")},
					&cli.Float64Flag{Name: "mean-interarrival", Value: 30, Usage: "mean seconds between submissions (exponential), above 0",
						Action: func(_ *cli.Context, v float64) error {
							if !(v > 0 && v < 1e6) {
								return fmt.Errorf("--mean-interarrival %g: want a mean above 0 and below 10^6 s", v)
							}
							return nil
						}},
					&cli.Uint64Flag{Name: "seed", Usage: "seed of the draw"},
					tableOut(),
				},
				Action: func(c *cli.Context) error {
					if err := checkTableOut(c); err != nil {
						return err
					}
					r := paisim.SyntheticRand(c.Uint64("seed"))
					rows, err := paisim.Synthetic(paisim.SyntheticParams{Jobs: c.Int("jobs"), Users: c.Int("users"), MeanInterarrival: c.Float64("mean-interarrival")}, r)
					if err != nil {
						return err
					}
					return writeTable(c, rows, "")
				},
			},
		},
	}
}

// tableOut is a fresh --out flag of the commands that write a job table.
func tableOut() cli.Flag {
	return &cli.StringFlag{Name: "out", Aliases: []string{"o"}, Required: true, DefaultText: "none: required", Usage: "job table to write (gzip-compressed when it ends in .gz), its folder made where missing", Action: notADir("out")}
}

// notADir refuses a file flag that names a directory, before any work.
func notADir(name string) func(*cli.Context, string) error {
	return func(_ *cli.Context, v string) error {
		if fi, err := os.Stat(v); err == nil && fi.IsDir() {
			return fmt.Errorf("--%s %s is a directory: name the file to write", name, v)
		}
		return nil
	}
}

// checkTableOut refuses, before any work, an --out that is one of the
// command's inputs (the flags named), or an existing file that is not a
// job table (a raw PAI table, notes of one's own): writing would lose it
// (a sample written over its table, a derived table over the raw task
// table: a reviewer's find). A job table, as wb writes them, is replaced.
func checkTableOut(c *cli.Context, inputs ...string) error {
	out := c.String("out")
	if out == "-" {
		// as wb profile refuses it: a file named "-" was written
		return fmt.Errorf("--out -: wb dataset writes a file, not standard output; name the file")
	}
	// each input opens, or is named by its flag (an --jobs of 20000 given
	// to pai-sim, whose --jobs is a file, said "open 20000" alone)
	for _, f := range inputs {
		if p := c.String(f); p != "" {
			if fi, err := os.Stat(p); err != nil {
				return fmt.Errorf("--%s %s: %w", f, p, errors.Unwrap(err))
			} else if fi.IsDir() {
				return fmt.Errorf("--%s %s: a folder; name the table's file", f, p)
			}
		}
	}
	// its folder may be made (once there is a table to write: writeTable),
	// as wb profile and wb train make theirs
	if err := makeableOut("--out", out); err != nil {
		return err
	}
	fo, err := os.Stat(out)
	if err != nil {
		return nil // nothing there (or unreadable: the write says)
	}
	for _, f := range inputs {
		if p := c.String(f); p != "" {
			if fi, err := os.Stat(p); err == nil && os.SameFile(fi, fo) {
				return fmt.Errorf("--out %s is the --%s input: writing it would lose the input; name another file", out, f)
			}
		}
	}
	if _, err := paisim.Read(out); err != nil {
		return fmt.Errorf("--out %s exists and is not a job table wb could have written (%v): writing would lose it; name another file, or remove it first", out, err)
	}
	return nil
}

// writeTable writes rows to --out and says so, with a note in brackets.
func writeTable(c *cli.Context, rows []paisim.Row, note string) error {
	if len(rows) == 0 {
		return fmt.Errorf("no jobs to write (%s); %s not written", cmp.Or(note, "the input has none"), c.String("out"))
	}
	if err := writableOut("--out", c.String("out"), true, true); err != nil {
		return err
	}
	if err := paisim.WriteFile(c.String("out"), rows); err != nil {
		return err
	}
	if note != "" {
		note = " (" + note + ")"
	}
	fmt.Fprintf(c.App.Writer, "wrote %s: %d jobs%s\n", c.String("out"), len(rows), note)
	return nil
}
