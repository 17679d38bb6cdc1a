package figures_test

import (
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"

	"github.com/wb-sim/wb/experiments/figures"
)

// A metric against offered load, one series per scheduler, with 95%
// confidence intervals over replicas as error bars.
func Example() {
	dir, err := os.MkdirTemp("", "figures")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// Bounded slowdown of three replicas at each load, per scheduler. Keep
	// the scheduler order fixed so that each scheduler gets the same
	// colour and marker in every figure.
	replicas := map[string][][]float64{
		"FCFS": {{2.1, 2.4, 2.2}, {9.5, 11.2, 10.1}, {80, 95, 88}},
		"EASY": {{1.6, 1.7, 1.8}, {4.1, 4.6, 4.4}, {20, 24, 21}},
	}
	fig := &figures.Figure{
		Kind:   figures.Line,
		XLabel: "offered load (× trace)",
		YLabel: "mean bounded slowdown",
		LogY:   true,
		Note:   "mean and 95% bootstrap CI over 3 replicas",
		YRange: &[2]float64{1, math.Inf(1)}, // a bounded slowdown is at least 1
	}
	for _, name := range []string{"FCFS", "EASY"} {
		s := figures.Series{Label: name}
		for i, load := range []float64{0.7, 0.9, 1.1} {
			mean, lo, hi := figures.MeanCI(replicas[name][i])
			s.X = append(s.X, load)
			s.Y = append(s.Y, mean)
			s.Lo, s.Hi = append(s.Lo, lo), append(s.Hi, hi)
		}
		fig.Series = append(fig.Series, s)
	}

	paths, err := figures.Render(fig, filepath.Join(dir, "slowdown"), nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range paths {
		fmt.Println(filepath.Base(p))
	}
	// Output:
	// slowdown.png
	// slowdown.pdf
	// slowdown.svg
}
