package sharing

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/wb-sim/wb/datasets/gavel"
)

// Seconds is simulated time.
type Seconds float64

// Kind is a job type on one GPU type: Gavel's (job type, scale factor).
type Kind struct {
	Name string
	GPUs int     // the job's GPUs (Gavel's scale factor)
	Solo float64 // T_meas: steps per second alone on whole GPUs
}

// Model is the sharing model of one GPU type: the job kinds and the
// interference coefficients of their pairs.
type Model struct {
	Kinds []Kind
	// ShareExponent is γ of T_solo(m, s) = T_meas(m) × min(1, 2s)^γ; 0 is
	// taken as the default 1.
	ShareExponent float64
	rho           [][]float64 // rho[m][k]; -1: m and k cannot share a GPU
	index         map[string]int
}

// NewModel builds a model from its kinds and ρ: rho[m][k] in [0, 1), or
// a negative value for a pair that cannot share a GPU. rho must be square,
// of len(kinds), and symmetric in compatibility.
func NewModel(kinds []Kind, rho [][]float64) (*Model, error) {
	if len(rho) != len(kinds) {
		return nil, fmt.Errorf("sharing: %d kinds but %d rows of ρ", len(kinds), len(rho))
	}
	m := &Model{Kinds: slices.Clone(kinds), rho: make([][]float64, len(kinds)), index: map[string]int{}}
	for i, k := range kinds {
		if !(k.Solo > 0) || math.IsInf(k.Solo, 0) || k.GPUs < 1 {
			return nil, fmt.Errorf("sharing: kind %q: solo throughput %v on %d GPUs; want a positive throughput on at least one GPU", k.Name, k.Solo, k.GPUs)
		}
		if _, dup := m.index[k.Name]; dup {
			return nil, fmt.Errorf("sharing: kind %q given twice", k.Name)
		}
		m.index[k.Name] = i
		if len(rho[i]) != len(kinds) {
			return nil, fmt.Errorf("sharing: row %d of ρ has %d entries; want %d", i, len(rho[i]), len(kinds))
		}
		m.rho[i] = slices.Clone(rho[i])
		for j, r := range rho[i] {
			if math.IsNaN(r) || r >= 1 {
				return nil, fmt.Errorf("sharing: ρ[%s][%s] = %v; want [0, 1) or negative (cannot share)", k.Name, kinds[j].Name, r)
			}
		}
	}
	for i := range kinds {
		for j := range kinds {
			if (m.rho[i][j] < 0) != (m.rho[j][i] < 0) {
				return nil, fmt.Errorf("sharing: %s can share with %s but not the reverse", kinds[i].Name, kinds[j].Name)
			}
		}
	}
	return m, nil
}

// Kind returns the index of the kind named name.
func (m *Model) Kind(name string) (int, bool) {
	i, ok := m.index[name]
	return i, ok
}

// Rho is ρ_ab, and whether a and b can share a GPU at all.
func (m *Model) Rho(a, b int) (float64, bool) {
	r := m.rho[a][b]
	return max(r, 0), r >= 0
}

// Phi is φ(s_m, s_k) = s_k / max(s_m, s_k), the overlap of two shares as
// the job with share s_m feels it: 1 at equal shares, never above 1.
func Phi(sm, sk float64) float64 {
	if sm <= 0 || sk <= 0 {
		return 0
	}
	return sk / max(sm, sk)
}

// ShareScale is min(1, 2s)^γ, the factor of T_solo(m, s) over the
// measured solo throughput.
func ShareScale(s, gamma float64) float64 {
	if gamma == 0 {
		gamma = 1
	}
	return math.Pow(math.Min(1, 2*s), gamma)
}

// Solo is T_solo(a, s).
func (m *Model) Solo(a int, s float64) float64 {
	return m.Kinds[a].Solo * ShareScale(s, m.ShareExponent)
}

// Slot is a job's place on a GPU: its kind and share.
type Slot struct {
	Kind  int
	Share float64
}

// Eff is T_eff of slots[i] among the slots of one GPU: T_solo(m, s_m) ×
// Π_{k≠m} (1 − ρ_mk × φ(s_m, s_k)). Pairs that cannot share count as
// ρ = 1 (no progress); policies never make them.
func (m *Model) Eff(slots []Slot, i int) float64 {
	me := slots[i]
	t := m.Solo(me.Kind, me.Share)
	for k, o := range slots {
		if k == i {
			continue
		}
		r, ok := m.Rho(me.Kind, o.Kind)
		if !ok {
			r = 1
		}
		t *= 1 - r*Phi(me.Share, o.Share)
	}
	return t
}

// GavelStats counts what [FromGavel] made of the measurements.
type GavelStats struct {
	Pairs        int // measured pairs with both throughputs positive
	Incompatible int // pairs measured at 0 (did not fit) or not measured
}

// FromGavel builds the model of one GPU type from Gavel's throughputs:
// every (job type, scale factor) with a positive solo throughput is a
// kind (sorted by name, then GPUs); ρ_mk = 1 − T_pair(m|k)/T_meas(m),
// measured pairs at 0 and unmeasured pairs cannot share. gamma is the
// model's ShareExponent, above 0 and at most 10 (0: the default 1).
func FromGavel(tp gavel.Throughputs, gpuType string, gamma float64) (*Model, GavelStats, error) {
	var st GavelStats
	if gamma != 0 && !(gamma > 0 && gamma <= 10) {
		// γ < 0 runs a job on part of a GPU faster than on all of it; a
		// large one stops it (0 steps/s)
		return nil, st, fmt.Errorf("sharing: share exponent γ %v: want above 0 and at most 10 (0: the default 1)", gamma)
	}
	byJob, ok := tp[gpuType]
	if !ok {
		return nil, st, fmt.Errorf("sharing: no throughputs for GPU type %q (known: %s)", gpuType, strings.Join(tp.GPUs(), ", "))
	}
	var keys []gavel.JobKey
	for k, t := range byJob {
		if t.Solo > 0 {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b gavel.JobKey) int {
		if c := strings.Compare(a.JobType, b.JobType); c != 0 {
			return c
		}
		return a.ScaleFactor - b.ScaleFactor
	})
	kinds := make([]Kind, len(keys))
	rho := make([][]float64, len(keys))
	for i, k := range keys {
		kinds[i] = Kind{Name: KindName(k), GPUs: k.ScaleFactor, Solo: byJob[k].Solo}
		rho[i] = make([]float64, len(keys))
		for j, p := range keys {
			pair, ok := byJob[k].Pairs[p]
			if !ok || pair[0] <= 0 || pair[1] <= 0 {
				rho[i][j] = -1
				if i < j {
					st.Incompatible++
				}
				continue
			}
			if i < j {
				st.Pairs++
			}
			// Measured throughputs never exceed the solo one in the bundled
			// data; a pair that did would have no interference.
			rho[i][j] = max(0, 1-pair[0]/byJob[k].Solo)
			if rho[i][j] >= 1 {
				rho[i][j] = -1
			}
		}
	}
	// A pair is compatible only when measured both ways.
	for i := range rho {
		for j := range rho {
			if rho[i][j] < 0 || rho[j][i] < 0 {
				rho[i][j], rho[j][i] = -1, -1
			}
		}
	}
	m, err := NewModel(kinds, rho)
	if err != nil {
		return nil, st, err
	}
	m.ShareExponent = gamma
	return m, st, nil
}

// KindName names a Gavel job key as a kind: the job type, with "×N" for
// N GPUs when N > 1.
func KindName(k gavel.JobKey) string {
	if k.ScaleFactor == 1 {
		return k.JobType
	}
	return fmt.Sprintf("%s ×%d", k.JobType, k.ScaleFactor)
}
