package sharing

import (
	"math"
	"slices"
)

// Metrics are a run's figures, over its completed jobs.
type Metrics struct {
	Jobs, Completed, Unschedulable int
	Shared                         int // jobs that shared a GPU at some time
	// Makespan is from the first submit to the last end of the jobs that
	// ran (an unschedulable job's submit is not counted).
	Makespan        Seconds
	MeanWait        float64
	MeanJCT, P95JCT float64 // p95 nearest rank
	MedianJCT       float64 // nearest rank
	SLOAttainment   float64 // share of the jobs that ran (not Unschedulable) that ended by their deadline
	CriticalSLO     float64 // the same over critical jobs; 0 when none
	CriticalJobs    int
	UtilGPU         float64 // GPU shares held over GPUs × makespan
	Throughput      float64 // GPUs × solo run time of all jobs over GPUs × makespan
	Goodput         float64 // the same over the jobs that met their SLO
	MaxResidue      float64 // largest |Residue| / Steps of a job
	PolicySwitches  int
}

// nearestRank is the p-quantile of sorted xs by nearest rank.
func nearestRank(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	k := int(math.Ceil(p*float64(len(xs)))) - 1
	return xs[min(max(k, 0), len(xs)-1)]
}

func computeMetrics(r *Result, gpus int) Metrics {
	m := Metrics{Jobs: len(r.Jobs), PolicySwitches: len(r.Switches)}
	var jcts []float64
	var wait, met, work, good float64
	first, last := math.Inf(1), math.Inf(-1)
	crit, critMet := 0, 0
	for i := range r.Jobs {
		j := &r.Jobs[i]
		if j.Status == Unschedulable {
			m.Unschedulable++
			continue
		}
		m.Completed++
		first, last = math.Min(first, float64(j.Submit)), math.Max(last, float64(j.End))
		jcts = append(jcts, float64(j.JCT()))
		wait += float64(j.Start - j.Submit)
		w := float64(j.GPUs) * float64(j.SoloTime)
		work += w
		if j.MetSLO {
			met++
			good += w
		}
		if j.Critical {
			crit++
			if j.MetSLO {
				critMet++
			}
		}
		if j.Shared {
			m.Shared++
		}
		m.MaxResidue = math.Max(m.MaxResidue, math.Abs(j.Residue)/j.Steps)
	}
	if m.Completed == 0 {
		return m
	}
	n := float64(m.Completed)
	m.Makespan = Seconds(last - first)
	m.MeanWait = wait / n
	sum := 0.0
	for _, x := range jcts {
		sum += x
	}
	m.MeanJCT = sum / n
	slices.Sort(jcts)
	m.P95JCT = nearestRank(jcts, 0.95)
	m.MedianJCT = nearestRank(jcts, 0.5)
	m.SLOAttainment = met / n
	m.CriticalJobs = crit
	if crit > 0 {
		m.CriticalSLO = float64(critMet) / float64(crit)
	}
	if span := float64(m.Makespan) * float64(gpus); span > 0 {
		// Allocated shares, integrated over the samples (each holds until
		// the next).
		alloc := 0.0
		for k := 0; k+1 < len(r.Series); k++ {
			alloc += r.Series[k].Allocated * float64(r.Series[k+1].Time-r.Series[k].Time)
		}
		m.UtilGPU = alloc / span
		m.Throughput = work / span
		m.Goodput = good / span
	}
	return m
}
