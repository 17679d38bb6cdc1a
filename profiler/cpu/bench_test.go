package cpu

import (
	"fmt"
	"runtime"
	"testing"

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

// BenchmarkSGEMM runs gonum's blas32.Gemm, C = A·B without transposes, on
// the M×N×K of each BenchmarkConv3x3 case.
func BenchmarkSGEMM(b *testing.B) {
	for _, cv := range resnet3x3 {
		for _, batch := range cv.batches {
			m, n, k := gemmShape(cv.c, cv.hw, batch)
			b.Run(fmt.Sprintf("%s/b=%d/%dx%dx%d", cv.name, batch, m, n, k), func(b *testing.B) {
				a := &arena{limit: 1 << 40}
				x, y, z := a.floats("a", m, k), a.floats("b", k, n), a.floats("c", m, n)
				a.fill()
				gemm(false, false, m, n, k, 1, x, k, y, n, 0, z, n)
				b.ResetTimer()
				for range b.N {
					gemm(false, false, m, n, k, 1, x, k, y, n, 0, z, n)
				}
				b.ReportMetric(2*float64(m)*float64(n)*float64(k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
