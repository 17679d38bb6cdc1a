package predictor

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/profiler"
)

// FeatureRow is what the learned correction knows of one layer pass: its
// op, pass, work, batch, precision and the device's peak and bandwidth.
type FeatureRow struct {
	Op        string
	Pass      dnn.Pass
	FLOPs     float64
	Bytes     float64
	Batch     int
	Precision dnn.Precision
	Matrix    bool
	// Peak is the device's FLOP/s for the row's precision and kind of work
	// (Device.Peak); Bandwidth its memory bandwidth in bytes/s.
	Peak, Bandwidth float64
}

// NewFeatureRow makes the feature row of a layer pass on device d.
func NewFeatureRow(op string, pass dnn.Pass, flops, bytes float64, batch int, prec dnn.Precision, d *Device, matrix bool) FeatureRow {
	if prec == "" {
		prec = dnn.FP32
	}
	return FeatureRow{Op: op, Pass: pass, FLOPs: flops, Bytes: bytes, Batch: batch, Precision: prec,
		Matrix: matrix, Peak: d.Peak(prec, matrix), Bandwidth: d.MemBandwidth}
}

// RecordFeatures is the feature row of a profile row measured on device d
// (the profile's predictor device). Only ok rows with an analytical time
// have one.
func RecordFeatures(r *profiler.Record, d *Device) (FeatureRow, error) {
	if r.Status != profiler.OK || !r.Median.OK || r.Median.V <= 0 {
		return FeatureRow{}, fmt.Errorf("row %s %s: not measured", r.Layer, r.Pass)
	}
	if !r.Predicted.OK || r.Predicted.V <= 0 {
		return FeatureRow{}, fmt.Errorf("row %s %s: no analytical time", r.Layer, r.Pass)
	}
	if d == nil {
		return FeatureRow{}, errors.New("no device")
	}
	p, err := dnn.ParsePass(r.Pass)
	if err != nil {
		return FeatureRow{}, err
	}
	prec, err := dnn.ParsePrecision(r.Precision)
	if err != nil {
		return FeatureRow{}, err
	}
	return NewFeatureRow(r.Op, p, r.FLOPs, r.Bytes, r.Batch, prec, d, r.Matrix), nil
}

// Target is the learned quantity of a row: log(measured / analytical).
func Target(r *profiler.Record) float64 { return math.Log(r.Median.V / r.Predicted.V) }

// Featurizer turns feature rows into vectors: one-hot op, pass and
// precision over the values seen in training, then the numeric features.
type Featurizer struct {
	Ops        []string `json:"ops"`
	Passes     []string `json:"passes"`
	Precisions []string `json:"precisions"`
}

// numericNames are the numeric features, in vector order after the one-hots.
var numericNames = []string{"log_flops", "log_bytes", "log_intensity", "batch", "log_batch", "matrix", "log_peak", "log_bandwidth"}

// NewFeaturizer collects the categories of rows, sorted.
func NewFeaturizer(rows []FeatureRow) *Featurizer {
	f := &Featurizer{}
	for _, r := range rows {
		if !slices.Contains(f.Ops, r.Op) {
			f.Ops = append(f.Ops, r.Op)
		}
		if !slices.Contains(f.Passes, r.Pass.String()) {
			f.Passes = append(f.Passes, r.Pass.String())
		}
		if !slices.Contains(f.Precisions, string(r.Precision)) {
			f.Precisions = append(f.Precisions, string(r.Precision))
		}
	}
	slices.Sort(f.Ops)
	slices.Sort(f.Passes)
	slices.Sort(f.Precisions)
	return f
}

// Names are the features' names in vector order.
func (f *Featurizer) Names() []string {
	var n []string
	for _, o := range f.Ops {
		n = append(n, "op="+o)
	}
	for _, p := range f.Passes {
		n = append(n, "pass="+p)
	}
	for _, p := range f.Precisions {
		n = append(n, "precision="+p)
	}
	return append(n, numericNames...)
}

// log1 is log(1+x): defined at zero work.
func log1(x float64) float64 { return math.Log1p(max(x, 0)) }

// Vector is r's feature vector. An op, pass or precision not seen in
// training has all its one-hot entries zero.
func (f *Featurizer) Vector(r FeatureRow) []float64 {
	v := make([]float64, 0, len(f.Ops)+len(f.Passes)+len(f.Precisions)+len(numericNames))
	hot := func(cats []string, c string) {
		for _, x := range cats {
			v = append(v, b2f(x == c))
		}
	}
	hot(f.Ops, r.Op)
	hot(f.Passes, r.Pass.String())
	hot(f.Precisions, string(r.Precision))
	v = append(v,
		log1(r.FLOPs), log1(r.Bytes), log1(r.FLOPs)-log1(r.Bytes),
		float64(r.Batch), math.Log(max(float64(r.Batch), 1)), b2f(r.Matrix),
		log1(r.Peak), log1(r.Bandwidth))
	return v
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
