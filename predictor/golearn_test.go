package predictor

// Cross-checks of the regressors implemented here (see Learned for why they
// are not golearn's) against golearn's: on data where the answer is
// unambiguous, both must predict the same.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sjwhitworth/golearn/base"
	"github.com/sjwhitworth/golearn/knn"
	"github.com/sjwhitworth/golearn/linear_models"
	"github.com/sjwhitworth/golearn/trees"
	"gonum.org/v1/gonum/mat"
)

// golearnData is n rows of 3 features uniform in [0, 1) and a target, as
// golearn instances (read from a CSV, the class last).
func golearnData(t *testing.T, n int, f func(x []float64) float64) ([][]float64, []float64, base.FixedDataGrid) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 11))
	var b strings.Builder
	b.WriteString("x0,x1,x2,y\n")
	X, y := make([][]float64, n), make([]float64, n)
	for i := range X {
		X[i] = []float64{rng.Float64(), rng.Float64(), rng.Float64()}
		y[i] = f(X[i])
		fmt.Fprintf(&b, "%s,%s,%s,%s\n", g17(X[i][0]), g17(X[i][1]), g17(X[i][2]), g17(y[i]))
	}
	path := filepath.Join(t.TempDir(), "data.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	inst, err := base.ParseCSVToInstances(path, true)
	if err != nil {
		t.Fatal(err)
	}
	return X, y, inst
}

func g17(v float64) string { return strconv.FormatFloat(v, 'g', 17, 64) }

// Ridge with a vanishing penalty is least squares: golearn's
// LinearRegression must give the same predictions.
func TestRidgeMatchesGolearnLinearRegression(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	noise := make([]float64, 200)
	for i := range noise {
		noise[i] = 0.1 * rng.NormFloat64()
	}
	i := 0
	X, y, inst := golearnData(t, 200, func(x []float64) float64 {
		v := 2 + 1.5*x[0] - 0.7*x[1] + 0.2*x[2] + noise[i]
		i++
		return v
	})
	lr := linear_models.NewLinearRegression()
	if err := lr.Fit(inst); err != nil {
		t.Fatal(err)
	}
	out, err := lr.Predict(inst)
	if err != nil {
		t.Fatal(err)
	}
	b0, w := fitRidge(X, y, 1e-9)
	for r := range X {
		want, err := strconv.ParseFloat(base.GetClass(out, r), 64)
		if err != nil {
			t.Fatal(err)
		}
		got := b0 + w[0]*X[r][0] + w[1]*X[r][1] + w[2]*X[r][2]
		if math.Abs(got-want) > 1e-6 {
			t.Fatalf("row %d: ridge %v, golearn %v", r, got, want)
		}
	}
}

// KNN regression with distinct distances: the mean of the k nearest
// targets, as golearn's KNNRegressor computes it.
func TestKNNMatchesGolearn(t *testing.T) {
	X, y, _ := golearnData(t, 150, func(x []float64) float64 { return math.Sin(6*x[0]) + x[1]*x[2] })
	flat := make([]float64, 0, 3*len(X))
	for _, x := range X {
		flat = append(flat, x...)
	}
	kr := knn.NewKnnRegressor("euclidean")
	kr.Fit(y, flat, len(X), 3)
	rng := rand.New(rand.NewPCG(9, 9))
	for range 50 {
		q := []float64{rng.Float64(), rng.Float64(), rng.Float64()}
		for _, k := range []int{1, 3, 5} {
			want := kr.Predict(mat.NewDense(1, 3, q), k)
			if got := knnPredict(X, y, k, q); math.Abs(got-want) > 1e-12 {
				t.Fatalf("query %v, k %d: ours %v, golearn %v", q, k, got, want)
			}
		}
	}
}

// A two-level step function: both CART regression trees find its splits
// and predict every training row exactly.
func TestTreeMatchesGolearnCART(t *testing.T) {
	step := func(x []float64) float64 {
		v := 1.0
		if x[0] >= 0.5 {
			v = 3
		}
		if x[1] >= 0.3 {
			v += 0.5
		}
		return v
	}
	X, y, inst := golearnData(t, 300, step)
	gt := trees.NewDecisionTreeRegressor("mse", 3)
	if err := gt.Fit(inst); err != nil {
		t.Fatal(err)
	}
	want := gt.Predict(inst)
	ours := FitTree(X, y, 3, 1)
	for r := range X {
		if got := ours.Predict(X[r]); math.Abs(got-want[r]) > 1e-9 || math.Abs(got-y[r]) > 1e-9 {
			t.Fatalf("row %d %v: ours %v, golearn %v, target %v", r, X[r], got, want[r], y[r])
		}
	}
}
