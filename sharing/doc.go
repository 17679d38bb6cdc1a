// Package sharing simulates several deep-learning training jobs sharing
// GPUs, with interference between co-runners, under SLO-aware policies
// that an operator can switch between during a run (Kwon, An and Kim,
// KETI, "adaptive multi-tenant GPU scheduling"; docs/specs/seeds.md).
//
// # Sharing model
//
// A GPU holds up to Options.MaxPerGPU jobs, job m with a share s_m in
// (0, 1] (an SM fraction, MIG- or MPS-like); the shares on a GPU never sum
// above 1. Job m progresses at its effective throughput
//
//	T_eff(m) = T_solo(m, s_m) × Π_{k on m's GPU, k≠m} (1 − ρ_mk × φ(s_m, s_k))
//
// steps per second, where, for Gavel's measured co-location throughputs
// (simulation_throughputs.json: per GPU type, each job type's steps/s
// alone and next to each partner, both jobs running on one GPU at once):
//
//   - T_solo(m, s) = T_meas(m) × min(1, 2s)^γ: the measured solo
//     throughput, unchanged down to half a GPU and scaled by (2s)^γ below
//     it (γ = Model.ShareExponent, default 1: linear). Gavel's pairs keep
//     a median 68% of their solo throughput each, 136% together: a job of
//     this era leaves much of a V100 idle, so half a GPU is taken as enough
//     to run at the solo pace, and the rest of the slowdown of a pair is
//     interference.
//   - ρ_mk = 1 − T_pair(m | k) / T_meas(m): the share of its solo
//     throughput m loses next to k, as measured. Gavel writes 0 for a pair
//     that could not run together (out of memory): such a pair is
//     incompatible and no policy co-locates it; so is a pair with no
//     measurement.
//   - φ(s_m, s_k) = s_k / max(s_m, s_k): the overlap of the two shares as m
//     feels it. At equal shares it is 1, so a pair at half a GPU each runs
//     exactly at Gavel's measured pair throughputs; a partner holding a
//     smaller share than m presses on m's memory system in proportion
//     (three quarters against a quarter: the larger job loses ρ/3 of its
//     pace, the smaller one ρ), and φ never exceeds 1.
//
// A job of several GPUs (Gavel's scale factor) runs on whole GPUs of its
// own (Gavel measured co-location within a scale factor only for gangs on
// the same GPUs, which wb does not model).
//
// # Simulation
//
// Time is float seconds ([Seconds]). Events are arrivals, completions,
// policy rounds (every Options.Round) and scheduled policy switches. At one
// time: completions, then arrivals, then round and switch work, then one
// call of the policy's Place. Whenever the co-runners or shares of a GPU
// change, the rates of its jobs and their completion times are computed
// again. A job completes at the exact time its remaining steps reach zero
// at its current rate; its completed steps are then set to its total (the
// floating-point residue is recorded and checked in tests). When a job
// leaves a GPU, the shares of those left are scaled up to fill it.
//
// # Policies
//
// Each is a name in [Policies]: exclusive, packing, jct, slo and goodput;
// see their types. Policies see predictions, not the truth: the solo
// throughput of each job type is known to them up to a lognormal error
// (Options.PredictionSigma, drawn once per type from the run's *rand.Rand)
// that is corrected from the progress observed of running jobs of the type.
//
// # SLOs
//
// Job m's SLO is a completion deadline D_m = submit + f × its solo run time
// (f = Options.SLOFactor, or Options.CriticalSLOFactor for the jobs drawn
// critical with probability Options.CriticalFraction). Its attainment at
// time t, SLO_actual_m(t) = min(1, (D_m − t)⁺ × r_m / R_m), is the share of
// its R_m remaining steps it would complete by the deadline at its current
// rate r_m (for a waiting job, its predicted solo rate). SLO attainment of a
// run is the share of jobs that finished by their deadline.
//
// With Options.SLO = SLOThroughput the SLO is one of throughput instead:
// once started, a job trains at 1/f of its solo throughput or more on
// average, so its deadline is start + f × its solo run time (while it
// waits, now + that: waiting does not count against it).
package sharing
