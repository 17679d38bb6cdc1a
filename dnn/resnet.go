package dnn

import "fmt"

// ResNet builds a residual network (He et al., CVPR 2016) as torchvision
// defines it: blocks per stage, bottleneck blocks (ResNet-50 and deeper) or
// basic blocks (ResNet-18/34), for classes classes on size×size images.
// The stride of a bottleneck's down-sampling sits on its 3×3 convolution
// (torchvision's "ResNet v1.5").
func ResNet(name string, blocks [4]int, bottleneck bool, size, classes int) (*Network, error) {
	b, x := NewBuilder(name, Shape{3, size, size})
	x = b.Conv2D("conv1", x, Conv{Out: 64, Kernel: 7, Stride: 2, Pad: 3})
	x = b.BatchNorm("bn1", x)
	x = b.ReLU("relu", x)
	x = b.MaxPool("maxpool", x, 3, 2, 1)
	in := 64
	for stage, n := range blocks {
		width := 64 << stage
		for i := range n {
			stride := 1
			if i == 0 && stage > 0 {
				stride = 2
			}
			p := fmt.Sprintf("layer%d.%d.", stage+1, i)
			x, in = resBlock(b, p, x, in, width, stride, bottleneck)
		}
	}
	x = b.GlobalAvgPool("avgpool", x)
	b.Linear("fc", x, classes, true)
	return b.Build()
}

// resBlock adds one residual block and returns its output and channels.
func resBlock(b *Builder, p string, x T, in, width, stride int, bottleneck bool) (T, int) {
	out := width
	var y T
	if bottleneck {
		out = 4 * width
		y = b.Conv2D(p+"conv1", x, Conv{Out: width, Kernel: 1})
		y = b.BatchNorm(p+"bn1", y)
		y = b.ReLU(p+"relu1", y)
		y = b.Conv2D(p+"conv2", y, Conv{Out: width, Kernel: 3, Stride: stride, Pad: 1})
		y = b.BatchNorm(p+"bn2", y)
		y = b.ReLU(p+"relu2", y)
		y = b.Conv2D(p+"conv3", y, Conv{Out: out, Kernel: 1})
		y = b.BatchNorm(p+"bn3", y)
	} else {
		y = b.Conv2D(p+"conv1", x, Conv{Out: width, Kernel: 3, Stride: stride, Pad: 1})
		y = b.BatchNorm(p+"bn1", y)
		y = b.ReLU(p+"relu1", y)
		y = b.Conv2D(p+"conv2", y, Conv{Out: width, Kernel: 3, Pad: 1})
		y = b.BatchNorm(p+"bn2", y)
	}
	short := x
	if stride != 1 || in != out {
		short = b.Conv2D(p+"downsample.0", x, Conv{Out: out, Kernel: 1, Stride: stride})
		short = b.BatchNorm(p+"downsample.1", short)
	}
	y = b.Sum(p+"add", y, short)
	return b.ReLU(p+"relu", y), out
}
