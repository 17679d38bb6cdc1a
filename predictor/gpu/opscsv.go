package gpu

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
)

// OpColumns are the columns of [WriteOpsCSV]: the GPU and op family, how
// the GPU was held from the model that predicts it, the kernel as wb times
// it (a product is Batch products of (M × K)·(K × N), K the reduction; a
// row-wise or elementwise op Rows × Width values; a convolution Images
// square inputs of Size, a Kern × Kern kernel at Stride with Pad, InC → OutC
// channels; a field an op does not have is 0), the measured and predicted
// time of the op timed alone, the host's floor on that GPU, whether the
// measurement is kernel-bound (at least KernelBound floors) and the error
// (predicted / measured − 1, in percent).
var OpColumns = []string{"gpu", "op", "held", "batch", "m", "n", "k", "rows", "width", "images", "size", "kern", "stride", "pad", "in_c", "out_c",
	"measured_ms", "predicted_ms", "floor_ms", "kernel_bound", "error_pct"}

// WriteOpsCSV writes one row per op measurement (see [OpColumns]) with
// its prediction pred[i]; held names how each GPU was held out of the
// model that predicted it ("leave-one-gpu-out", "unseen").
func WriteOpsCSV(w io.Writer, samples []Sample, pred []float64, held func(gpu string) string) error {
	if len(pred) != len(samples) {
		return fmt.Errorf("gpu: %d predictions of %d ops", len(pred), len(samples))
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(OpColumns); err != nil {
		return err
	}
	ms := func(s float64) string { return strconv.FormatFloat(s*1e3, 'g', 6, 64) }
	row := make([]string, len(OpColumns))
	for i := range samples {
		s := &samples[i]
		k := &s.Kernel
		row = row[:0]
		row = append(row, s.GPU, k.Op, held(s.GPU))
		for _, v := range []int{k.Batch, k.M, k.N, k.K, k.Rows, k.Width, k.Images, k.Size, k.Kern, k.Stride, k.Pad, k.InC, k.OutC} {
			row = append(row, strconv.Itoa(v))
		}
		row = append(row, ms(s.Seconds), ms(pred[i]), ms(s.Floor), strconv.FormatBool(s.kernelBound()),
			strconv.FormatFloat(100*(pred[i]/s.Seconds-1), 'f', 2, 64))
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
