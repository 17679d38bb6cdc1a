package experiments

import (
	"github.com/wb-sim/wb/predictor"
	"github.com/wb-sim/wb/scheduler"
)

// Parts returns the scheduler parts every command and config can name:
// the scheduler package's, and the "model" runtime estimate of deep-
// learning jobs from the analytical predictor.
func Parts() *scheduler.Parts {
	p := scheduler.DefaultParts()
	if err := p.Estimators.Register("model", func() scheduler.Estimator { return &predictor.ModelEstimator{} }); err != nil {
		panic("experiments: " + err.Error())
	}
	return p
}
