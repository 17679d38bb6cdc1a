package onednn_test

import (
	"sync"
	"testing"
	"time"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/profiler"
	"github.com/wb-sim/wb/profiler/onednn"
)

var (
	machineOnce sync.Once
	machine     profiler.Machine
	machineErr  error
)

// measured is the machine's measured peak, once per process.
func measured(b *testing.B, be *onednn.Backend) profiler.Machine {
	machineOnce.Do(func() { machine, machineErr = be.MeasureMachine() })
	if machineErr != nil {
		b.Fatal(machineErr)
	}
	return machine
}

// benchPass times one pass of l at batch and reports its FLOP/s and the
// share of the machine's measured peak it reaches (of the 256-bit FMA peak
// too where the widest is AVX-512: OpenBLAS runs 256-bit kernels where
// OPENBLAS_CORETYPE says Haswell).
func benchPass(b *testing.B, l dnn.Layer, batch int, pass dnn.Pass) {
	be := newBackend(b)
	m := measured(b, be)
	k, err := be.Prepare(l, batch, pass, dnn.FP32)
	if err != nil {
		b.Fatal(err)
	}
	defer k.Close()
	if _, err := k.Time(3); err != nil { // warm up
		b.Fatal(err)
	}
	b.ResetTimer()
	var total time.Duration
	best := time.Duration(1<<63 - 1)
	for range b.N {
		ds, err := k.Time(1)
		if err != nil {
			b.Fatal(err)
		}
		total += ds[0]
		best = min(best, ds[0])
	}
	flops := float64(l.Work(batch, pass, dnn.FP32).FLOPs)
	b.ReportMetric(flops/best.Seconds()/1e9, "GFLOP/s-best")
	b.ReportMetric(100*flops/best.Seconds()/m.PeakFLOPs, "%peak-best")
	if m.PeakFLOPs256 > 0 {
		b.ReportMetric(100*flops/best.Seconds()/m.PeakFLOPs256, "%peak256-best")
	}
	b.ReportMetric(flops/(total.Seconds()/float64(b.N))/1e9, "GFLOP/s")
}

// BenchmarkGEMM: a 1024×1024 by 1024×1024 product, as a linear layer's
// forward pass over 1,024 rows (OpenBLAS sgemm).
func BenchmarkGEMM(b *testing.B) {
	n, err := dnn.BERT("gemm", 1, 1024, 16, 512) // 512 tokens × batch 2
	if err != nil {
		b.Fatal(err)
	}
	for _, nd := range n.Nodes {
		if f := nd.Layer.Work(2, dnn.Forward, dnn.FP32).FLOPs; nd.Layer.Op() == "linear" && f >= 2<<30 && f < 2.01*(1<<30) {
			benchPass(b, nd.Layer, 2, dnn.Forward)
			return
		}
	}
	b.Fatal("no 1024×1024×1024 linear layer")
}

// BenchmarkConv3x3: ResNet-50's first 3×3 convolution (64 → 64 channels on
// 56×56) at batch 8, forward (oneDNN, with PyTorch's reorders).
func BenchmarkConv3x3(b *testing.B) {
	benchPass(b, layer(b, "resnet50", "layer1.0.conv2"), 8, dnn.Forward)
}
