package cpu_test

import (
	"fmt"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/profiler/cpu"
)

// Time ResNet-50's first 3×3 convolution, forward, at batch 2.
func Example() {
	net, err := dnn.Model("resnet50")
	if err != nil {
		panic(err)
	}
	var conv dnn.Layer
	for _, n := range net.Nodes {
		if n.Name == "layer1.0.conv2" {
			conv = n.Layer
		}
	}
	b, err := cpu.New()
	if err != nil {
		panic(err)
	}
	k, err := b.Prepare(conv, 2, dnn.Forward, dnn.FP32)
	if err != nil {
		panic(err)
	}
	defer k.Close()
	runs, err := k.Time(3)
	if err != nil {
		panic(err)
	}
	fmt.Println(b.Name(), b.Device().Predictor, len(runs), "runs of", conv.Key())
	// Output: cpu cpu 3 runs of conv2d in=[64×56×56] out=64 k=3x3 s=1 p=1 d=1 g=1 bias=false
}
