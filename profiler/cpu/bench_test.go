package cpu

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"

	"github.com/wb-sim/wb/dnn"
)

// resnet3x3 are ResNet-50's 3×3 convolutions at the two ends of the
// network: layer1's 64→64 on 56×56 and layer3's 256→256 on 14×14.
var resnet3x3 = []struct {
	name    string
	c, hw   int
	batches []int
}{
	{"layer1.0.conv2", 64, 56, []int{1, 8}},
	{"layer3.1.conv2", 256, 14, []int{1, 8}},
}

// gemmShape is the SGEMM a 3×3 convolution amounts to: M output channels,
// N = batch·H·W output pixels, K = C·9.
func gemmShape(c, hw, batch int) (m, n, k int) { return c, batch * hw * hw, 9 * c }

// BenchmarkConv3x3 runs the forward pass of ResNet-50's 3×3 convolutions
// through the backend, reporting GFLOP/s (2·M·N·K per run), with samples
// gathered into one product up to convCols columns (the default) and with
// one product per sample (cols=1), for comparison with BenchmarkSGEMM on
// the same M×N×K.
func BenchmarkConv3x3(b *testing.B) {
	saved := convCols
	defer func() { convCols = saved }()
	for _, cv := range resnet3x3 {
		l := layerOf(b, dnn.Shape{cv.c, cv.hw, cv.hw}, func(bb *dnn.Builder, x dnn.T) {
			bb.Conv2D("conv", x, dnn.Conv{Out: cv.c, Kernel: 3, Pad: 1})
		})
		for _, batch := range cv.batches {
			for _, cols := range []int{saved, 1} {
				for _, pass := range []dnn.Pass{dnn.Forward, dnn.BackwardData, dnn.BackwardWeights} {
					if cols == 1 && pass != dnn.Forward {
						continue
					}
					label := fmt.Sprintf("%s/b=%d/%v", cv.name, batch, pass)
					if cols != saved {
						label += "/cols=1"
					}
					b.Run(label, func(b *testing.B) {
						convCols = cols
						k := prepare(b, l, batch, pass)
						p := newPool(runtime.GOMAXPROCS(0))
						defer p.stop()
						k.run(p) // warm-up
						b.ResetTimer()
						for range b.N {
							k.run(p)
						}
						m, n, kk := gemmShape(cv.c, cv.hw, batch)
						b.ReportMetric(2*float64(m)*float64(n)*float64(kk)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
					})
				}
			}
		}
	}
}

// BenchmarkSGEMM runs C = A·B without transposes on the M×N×K of each
// BenchmarkConv3x3 case two ways: through gemm on the backend's pool
// (pool) and through gonum's own parallel blas32.Gemm, which starts a
// goroutine per 64×64 block of C (gonum).
func BenchmarkSGEMM(b *testing.B) {
	for _, cv := range resnet3x3 {
		for _, batch := range cv.batches {
			m, n, k := gemmShape(cv.c, cv.hw, batch)
			for _, how := range []string{"pool", "gonum"} {
				b.Run(fmt.Sprintf("%s/b=%d/%dx%dx%d/%s", cv.name, batch, m, n, k, how), func(b *testing.B) {
					a := &arena{limit: 1 << 40}
					x, y, z := a.floats("a", m, k), a.floats("b", k, n), a.floats("c", m, n)
					a.fill()
					p := newPool(runtime.GOMAXPROCS(0))
					defer p.stop()
					run := func() { gemm(p, false, false, m, n, k, 1, x, k, y, n, 0, z, n) }
					if how == "gonum" {
						run = func() {
							blas32.Gemm(blas.NoTrans, blas.NoTrans, 1,
								blas32.General{Rows: m, Cols: k, Stride: k, Data: x},
								blas32.General{Rows: k, Cols: n, Stride: n, Data: y},
								0, blas32.General{Rows: m, Cols: n, Stride: n, Data: z})
						}
					}
					run()
					b.ResetTimer()
					for range b.N {
						run()
					}
					b.ReportMetric(2*float64(m)*float64(n)*float64(k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				})
			}
		}
	}
}

// BenchmarkReLU runs ReLU's forward pass on tensors from 200 KB to 13 MB
// through the backend's worker pool, reporting besides the mean the
// fastest run and the spread of the runs (90th over 10th percentile): a
// pool that leaves its share of a loop to a sleeping goroutine shows as
// runs falling into two modes, one and all cores.
func BenchmarkReLU(b *testing.B) {
	for _, elems := range []int{50176, 200704, 802816, 3211264} {
		l := layerOf(b, dnn.Shape{elems}, func(bb *dnn.Builder, x dnn.T) { bb.ReLU("relu", x) })
		b.Run(fmt.Sprintf("elems=%d", elems), func(b *testing.B) {
			k := prepare(b, l, 1, dnn.Forward)
			p := newPool(runtime.GOMAXPROCS(0))
			defer p.stop()
			k.run(p) // warm-up
			ds := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				start := time.Now()
				k.run(p)
				ds = append(ds, time.Since(start))
			}
			b.StopTimer()
			slices.Sort(ds)
			b.ReportMetric(float64(ds[0].Nanoseconds()), "min-ns")
			b.ReportMetric(float64(ds[len(ds)*9/10])/float64(max(ds[len(ds)/10], 1)), "p90/p10")
		})
	}
}
