package dnn

import (
	"fmt"
)

// Concat adds the concatenation of its inputs along their first dimension:
// the channels of [C, H, W] tensors, which must agree on every other
// dimension (Inception's branches). It is a memory copy: forward reads
// every input and writes the output; backward-data reads the gradient once
// and writes each input's slice of it.
func (b *Builder) Concat(name string, xs ...T) T {
	return b.Add(name, newConcat, xs...)
}

func newConcat(in []Shape) (Layer, error) {
	if len(in) < 2 {
		return nil, fmt.Errorf("concat of %d inputs", len(in))
	}
	first := in[0]
	if len(first) == 0 {
		return nil, fmt.Errorf("concat of scalars")
	}
	out := append(Shape(nil), first...)
	out[0] = 0
	for _, s := range in {
		if len(s) != len(first) || s[1:].String() != first[1:].String() {
			return nil, fmt.Errorf("concat of shapes %v and %v: all dimensions but the first must agree", first, s)
		}
		out[0] += s[0]
	}
	return &concat{in: append([]Shape(nil), in...), out: out}, nil
}

var (
	_ Layer = (*concat)(nil)
	_ Layer = (*lrn)(nil)
)

// LRN adds local response normalisation across size neighbouring channels
// (the first dimension). Work, per value, as wb counts it: forward, the
// window's sum of squares (2·size), the scale k + α/n·s (2), its power (4,
// a transcendental as the package counts exp) and the product (1),
// reading x and writing y; backward-data, the window's sum of dy·y/scale
// (2·size + 2), the power (4) and the two products and a subtraction (3),
// reading dy, x and y and writing dx. torchvision's AlexNet has no LRN, so
// the zoo does not use it; Paleo's JSON can name it.
func (b *Builder) LRN(name string, x T, size int) T {
	return b.Add(name, func(in []Shape) (Layer, error) {
		s, err := one(in)
		if err != nil {
			return nil, err
		}
		if len(s) == 0 || size <= 0 {
			return nil, fmt.Errorf("lrn: input %v, size %d", s, size)
		}
		return &lrn{shape: s, size: size}, nil
	}, x)
}

// convHW adds a convolution padded by padH rows and padW columns on each
// side; c.Pad is ignored.
func convHW(b *Builder, name string, x T, c Conv, padH, padW int) T {
	c.Pad, c.PadH, c.PadW = 0, padH, padW
	if padH == padW {
		c.Pad, c.PadH, c.PadW = padH, 0, 0
	}
	return b.Conv2D(name, x, c)
}

// AlexNet builds torchvision's AlexNet for 224×224 images: the "one weird
// trick" channel counts (Krizhevsky, 2014: 64, 192, 384, 256, 256) in one
// tower, no local response normalisation. The adaptive 6×6 average pooling
// before the classifier is the identity at 224×224 and is left out, as are
// the dropouts (no parameters, negligible work).
func AlexNet(classes int) (*Network, error) {
	b, x := NewBuilder("alexnet", Shape{3, 224, 224})
	for i, c := range []struct{ out, k, stride, pad int }{
		{64, 11, 4, 2}, {192, 5, 1, 2}, {384, 3, 1, 1}, {256, 3, 1, 1}, {256, 3, 1, 1},
	} {
		p := fmt.Sprintf("features.conv%d", i+1)
		x = b.Conv2D(p, x, Conv{Out: c.out, Kernel: c.k, Stride: c.stride, Pad: c.pad, Bias: true})
		x = b.ReLU(p+".relu", x)
		if i == 0 || i == 1 || i == 4 {
			x = b.MaxPool(fmt.Sprintf("features.pool%d", i+1), x, 3, 2, 0)
		}
	}
	x = b.Flatten("flatten", x)
	x = b.Linear("classifier.fc1", x, 4096, true)
	x = b.ReLU("classifier.relu1", x)
	x = b.Linear("classifier.fc2", x, 4096, true)
	x = b.ReLU("classifier.relu2", x)
	b.Linear("classifier.fc3", x, classes, true)
	return b.Build()
}

// VGG16 builds torchvision's VGG-16 (Simonyan and Zisserman, 2015,
// configuration D) without batch normalisation, for 224×224 images. The
// adaptive 7×7 average pooling is the identity at 224×224 and is left out,
// as are the dropouts.
func VGG16(classes int) (*Network, error) {
	b, x := NewBuilder("vgg16", Shape{3, 224, 224})
	for stage, s := range []struct{ width, convs int }{{64, 2}, {128, 2}, {256, 3}, {512, 3}, {512, 3}} {
		for i := range s.convs {
			p := fmt.Sprintf("features.conv%d_%d", stage+1, i+1)
			x = b.Conv2D(p, x, Conv{Out: s.width, Kernel: 3, Pad: 1, Bias: true})
			x = b.ReLU(p+".relu", x)
		}
		x = b.MaxPool(fmt.Sprintf("features.pool%d", stage+1), x, 2, 2, 0)
	}
	x = b.Flatten("flatten", x)
	x = b.Linear("classifier.fc1", x, 4096, true)
	x = b.ReLU("classifier.relu1", x)
	x = b.Linear("classifier.fc2", x, 4096, true)
	x = b.ReLU("classifier.relu2", x)
	b.Linear("classifier.fc3", x, classes, true)
	return b.Build()
}

// CIFARResNet builds the ResNets of kuangliu/pytorch-cifar, which Gavel's
// CIFAR-10 image-classification job trains: torchvision's blocks after a
// 3×3, stride-1 first convolution without max pooling, for 32×32 images.
// Its 4×4 average pooling is global at 32×32.
func CIFARResNet(name string, blocks [4]int, bottleneck bool, classes int) (*Network, error) {
	b, x := NewBuilder(name, Shape{3, 32, 32})
	x = b.Conv2D("conv1", x, Conv{Out: 64, Kernel: 3, Pad: 1})
	x = b.BatchNorm("bn1", x)
	x = b.ReLU("relu", x)
	in := 64
	for stage, n := range blocks {
		width := 64 << stage
		for i := range n {
			stride := 1
			if i == 0 && stage > 0 {
				stride = 2
			}
			x, in = resBlock(b, fmt.Sprintf("layer%d.%d.", stage+1, i), x, in, width, stride, bottleneck)
		}
	}
	x = b.GlobalAvgPool("avgpool", x)
	b.Linear("linear", x, classes, true)
	return b.Build()
}

// InceptionV3 builds torchvision's Inception v3 (Szegedy et al., CVPR 2016)
// for 299×299 images, with the auxiliary classifier on Mixed_6e if aux (it
// runs in training only). Every convolution is torchvision's BasicConv2d:
// no bias, batch normalisation, ReLU. The dropout before the classifier is
// left out.
func InceptionV3(classes int, aux bool) (*Network, error) {
	name := "inception_v3"
	if aux {
		name = "inception_v3_aux"
	}
	b, x := NewBuilder(name, Shape{3, 299, 299})
	x = basicConv(b, "Conv2d_1a_3x3", x, 32, 3, 3, 2, 0, 0)
	x = basicConv(b, "Conv2d_2a_3x3", x, 32, 3, 3, 1, 0, 0)
	x = basicConv(b, "Conv2d_2b_3x3", x, 64, 3, 3, 1, 1, 1)
	x = b.MaxPool("maxpool1", x, 3, 2, 0)
	x = basicConv(b, "Conv2d_3b_1x1", x, 80, 1, 1, 1, 0, 0)
	x = basicConv(b, "Conv2d_4a_3x3", x, 192, 3, 3, 1, 0, 0)
	x = b.MaxPool("maxpool2", x, 3, 2, 0)
	x = inceptionA(b, "Mixed_5b.", x, 32)
	x = inceptionA(b, "Mixed_5c.", x, 64)
	x = inceptionA(b, "Mixed_5d.", x, 64)
	x = inceptionB(b, "Mixed_6a.", x)
	x = inceptionC(b, "Mixed_6b.", x, 128)
	x = inceptionC(b, "Mixed_6c.", x, 160)
	x = inceptionC(b, "Mixed_6d.", x, 160)
	x = inceptionC(b, "Mixed_6e.", x, 192)
	if aux {
		a := b.AvgPool("AuxLogits.avgpool", x, 5, 3, 0)
		a = basicConv(b, "AuxLogits.conv0", a, 128, 1, 1, 1, 0, 0)
		a = basicConv(b, "AuxLogits.conv1", a, 768, 5, 5, 1, 0, 0)
		a = b.GlobalAvgPool("AuxLogits.pool", a)
		b.Linear("AuxLogits.fc", a, classes, true)
	}
	x = inceptionD(b, "Mixed_7a.", x)
	x = inceptionE(b, "Mixed_7b.", x)
	x = inceptionE(b, "Mixed_7c.", x)
	x = b.GlobalAvgPool("avgpool", x)
	b.Linear("fc", x, classes, true)
	return b.Build()
}

// basicConv adds torchvision's BasicConv2d: a kh×kw convolution without
// bias, padded ph×pw, batch normalisation and a ReLU.
func basicConv(b *Builder, name string, x T, out, kh, kw, stride, ph, pw int) T {
	x = convHW(b, name+".conv", x, Conv{Out: out, Kernel: kh, KernelW: kw, Stride: stride}, ph, pw)
	x = b.BatchNorm(name+".bn", x)
	return b.ReLU(name+".relu", x)
}

func inceptionA(b *Builder, p string, x T, poolFeatures int) T {
	b1 := basicConv(b, p+"branch1x1", x, 64, 1, 1, 1, 0, 0)
	b5 := basicConv(b, p+"branch5x5_1", x, 48, 1, 1, 1, 0, 0)
	b5 = basicConv(b, p+"branch5x5_2", b5, 64, 5, 5, 1, 2, 2)
	b3 := basicConv(b, p+"branch3x3dbl_1", x, 64, 1, 1, 1, 0, 0)
	b3 = basicConv(b, p+"branch3x3dbl_2", b3, 96, 3, 3, 1, 1, 1)
	b3 = basicConv(b, p+"branch3x3dbl_3", b3, 96, 3, 3, 1, 1, 1)
	bp := b.AvgPool(p+"avgpool", x, 3, 1, 1)
	bp = basicConv(b, p+"branch_pool", bp, poolFeatures, 1, 1, 1, 0, 0)
	return b.Concat(p+"concat", b1, b5, b3, bp)
}

func inceptionB(b *Builder, p string, x T) T {
	b3 := basicConv(b, p+"branch3x3", x, 384, 3, 3, 2, 0, 0)
	bd := basicConv(b, p+"branch3x3dbl_1", x, 64, 1, 1, 1, 0, 0)
	bd = basicConv(b, p+"branch3x3dbl_2", bd, 96, 3, 3, 1, 1, 1)
	bd = basicConv(b, p+"branch3x3dbl_3", bd, 96, 3, 3, 2, 0, 0)
	bp := b.MaxPool(p+"maxpool", x, 3, 2, 0)
	return b.Concat(p+"concat", b3, bd, bp)
}

func inceptionC(b *Builder, p string, x T, c7 int) T {
	b1 := basicConv(b, p+"branch1x1", x, 192, 1, 1, 1, 0, 0)
	b7 := basicConv(b, p+"branch7x7_1", x, c7, 1, 1, 1, 0, 0)
	b7 = basicConv(b, p+"branch7x7_2", b7, c7, 1, 7, 1, 0, 3)
	b7 = basicConv(b, p+"branch7x7_3", b7, 192, 7, 1, 1, 3, 0)
	bd := basicConv(b, p+"branch7x7dbl_1", x, c7, 1, 1, 1, 0, 0)
	bd = basicConv(b, p+"branch7x7dbl_2", bd, c7, 7, 1, 1, 3, 0)
	bd = basicConv(b, p+"branch7x7dbl_3", bd, c7, 1, 7, 1, 0, 3)
	bd = basicConv(b, p+"branch7x7dbl_4", bd, c7, 7, 1, 1, 3, 0)
	bd = basicConv(b, p+"branch7x7dbl_5", bd, 192, 1, 7, 1, 0, 3)
	bp := b.AvgPool(p+"avgpool", x, 3, 1, 1)
	bp = basicConv(b, p+"branch_pool", bp, 192, 1, 1, 1, 0, 0)
	return b.Concat(p+"concat", b1, b7, bd, bp)
}

func inceptionD(b *Builder, p string, x T) T {
	b3 := basicConv(b, p+"branch3x3_1", x, 192, 1, 1, 1, 0, 0)
	b3 = basicConv(b, p+"branch3x3_2", b3, 320, 3, 3, 2, 0, 0)
	b7 := basicConv(b, p+"branch7x7x3_1", x, 192, 1, 1, 1, 0, 0)
	b7 = basicConv(b, p+"branch7x7x3_2", b7, 192, 1, 7, 1, 0, 3)
	b7 = basicConv(b, p+"branch7x7x3_3", b7, 192, 7, 1, 1, 3, 0)
	b7 = basicConv(b, p+"branch7x7x3_4", b7, 192, 3, 3, 2, 0, 0)
	bp := b.MaxPool(p+"maxpool", x, 3, 2, 0)
	return b.Concat(p+"concat", b3, b7, bp)
}

func inceptionE(b *Builder, p string, x T) T {
	b1 := basicConv(b, p+"branch1x1", x, 320, 1, 1, 1, 0, 0)
	b3 := basicConv(b, p+"branch3x3_1", x, 384, 1, 1, 1, 0, 0)
	b3 = b.Concat(p+"branch3x3",
		basicConv(b, p+"branch3x3_2a", b3, 384, 1, 3, 1, 0, 1),
		basicConv(b, p+"branch3x3_2b", b3, 384, 3, 1, 1, 1, 0))
	bd := basicConv(b, p+"branch3x3dbl_1", x, 448, 1, 1, 1, 0, 0)
	bd = basicConv(b, p+"branch3x3dbl_2", bd, 384, 3, 3, 1, 1, 1)
	bd = b.Concat(p+"branch3x3dbl",
		basicConv(b, p+"branch3x3dbl_3a", bd, 384, 1, 3, 1, 0, 1),
		basicConv(b, p+"branch3x3dbl_3b", bd, 384, 3, 1, 1, 1, 0))
	bp := b.AvgPool(p+"avgpool", x, 3, 1, 1)
	bp = basicConv(b, p+"branch_pool", bp, 192, 1, 1, 1, 0, 0)
	return b.Concat(p+"concat", b1, b3, bd, bp)
}

// visionZoo lists the vision models of the zoo. The batches are the
// per-GPU defaults of the training scripts the models come with:
// torchvision's references/classification (32) and kuangliu/pytorch-cifar's
// main.py (128).
func visionZoo() []ZooEntry {
	return []ZooEntry{
		{
			Name:        "resnet18",
			Description: "ResNet-18 as torchvision builds it (He et al., CVPR 2016)",
			Input:       "3×224×224 ImageNet images, 1000 classes",
			Batch:       32,
			Build:       func() (*Network, error) { return ResNet("resnet18", [4]int{2, 2, 2, 2}, false, 224, 1000) },
		},
		{
			Name:        "resnet50",
			Description: "ResNet-50 v1.5 as torchvision builds it; Gavel's ImageNet image-classification job",
			Input:       "3×224×224 ImageNet images, 1000 classes",
			Batch:       32,
			Build:       func() (*Network, error) { return ResNet("resnet50", [4]int{3, 4, 6, 3}, true, 224, 1000) },
		},
		{
			Name:        "resnet18-cifar",
			Description: "ResNet-18 of kuangliu/pytorch-cifar (3×3 stride-1 first convolution, no max pooling); Gavel's CIFAR-10 image-classification job",
			Input:       "3×32×32 CIFAR-10 images, 10 classes",
			Batch:       128,
			Build:       func() (*Network, error) { return CIFARResNet("resnet18-cifar", [4]int{2, 2, 2, 2}, false, 10) },
		},
		{
			Name:        "vgg16",
			Description: "VGG-16 (configuration D) without batch normalisation, as torchvision builds it",
			Input:       "3×224×224 ImageNet images, 1000 classes",
			Batch:       32,
			Build:       func() (*Network, error) { return VGG16(1000) },
		},
		{
			Name:        "alexnet",
			Description: "AlexNet as torchvision builds it (one tower, \"one weird trick\" channels, no LRN)",
			Input:       "3×224×224 ImageNet images, 1000 classes",
			Batch:       32,
			Build:       func() (*Network, error) { return AlexNet(1000) },
		},
		{
			Name:        "inception_v3",
			Description: "Inception v3 as torchvision builds it, without the auxiliary classifier",
			Input:       "3×299×299 ImageNet images, 1000 classes",
			Batch:       32,
			Build:       func() (*Network, error) { return InceptionV3(1000, false) },
		},
		{
			Name:        "inception_v3_aux",
			Description: "Inception v3 as torchvision trains it, with the auxiliary classifier on Mixed_6e",
			Input:       "3×299×299 ImageNet images, 1000 classes",
			Batch:       32,
			Build:       func() (*Network, error) { return InceptionV3(1000, true) },
		},
	}
}
