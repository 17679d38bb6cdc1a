// Package scheduler is wb's discrete-event simulator of cluster schedulers.
//
// Time is simulated integer seconds ([Time]). A [Cluster] is a list of
// nodes, each with CPU (milli-cores), memory (MiB) and up to [MaxGPUsPerNode]
// GPUs of one model, every GPU holding 1000 milli of capacity so that several
// pods can share one GPU (as in the Alibaba openb trace). A Parallel
// Workloads Archive (SWF) machine is a one-node cluster of processors, built
// by [NewPool]; the Alibaba PAI v2020 simulator's cluster is one node whose
// GPUs are a single quantity ([Node.PoolGPUs]), built by [NewGPUPool].
//
// A [Job] has one or more tasks, each a number of replicas with the same
// per-replica [Request]. All replicas of a job start together or none does
// (gang semantics).
//
// A scheduler is composed of four parts, each a small interface with a name
// in an explicit [Registry]: the queue order ([Order]: fifo, sjf), the
// backfill rule ([Backfill]: none, easy, conservative, greedy), the placement policy
// ([Placement]: the names [DefaultParts] registers, from first-fit to fgd
// and ga; `wb simulate --help` lists them) and the source of runtime
// estimates ([Estimator]: exact, user, history, user-mean, noisy, and
// user-dur, group-dur, group-gpu-dur from the PAI simulator's job table;
// experiments.Parts adds model, the predictor's ModelEstimator). A test lists every registered name, so this list
// cannot fall behind the code.
//
// Events at one time stamp are handled in a fixed order: every completion
// frees its resources, then every arrival joins the queue in (submit, id)
// order, then a scheduling pass runs (and another where a job it started
// ran 0 s and ended at once, until none does: scheduler/internal/reference
// does the same). The package's contract for the
// backfill rules on a processor pool is written out in [EASY] and
// [Conservative]; the simulator is deterministic: the same jobs, cluster and
// parts give the same schedule, byte for byte.
package scheduler
