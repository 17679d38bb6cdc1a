package dnn

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestZooCounts checks each model's parameters and forward MACs against
// the published figures, within 1%.
func TestZooCounts(t *testing.T) {
	tests := []struct {
		name   string
		params float64
		gmacs  float64
		source string
	}{
		// torchvision's model tables (docs.pytorch.org/vision/stable/models,
		// "Params" and "GFLOPS", which counts multiply-adds).
		{"resnet18", 11_689_512, 1.81, "torchvision ResNet18_Weights.IMAGENET1K_V1"},
		{"resnet50", 25_557_032, 4.09, "torchvision ResNet50_Weights.IMAGENET1K_V1"},
		{"vgg16", 138_357_544, 15.47, "torchvision VGG16_Weights.IMAGENET1K_V1"},
		{"alexnet", 61_100_840, 0.71, "torchvision AlexNet_Weights.IMAGENET1K_V1"},
		// torchvision's 27,161,264 counts the auxiliary classifier, which
		// its 5.71 GFLOPS (measured in eval mode) does not run; without
		// it, 27,161,264 less the classifier's 3,326,696 (1×1 conv
		// 768→128 and its BN: 98,560; 5×5 conv 128→768 and its BN:
		// 2,459,136; fc 768→1000: 769,000) is 23,834,568, the "23.8 M"
		// usually quoted.
		{"inception_v3", 23_834_568, 5.71, "torchvision Inception_V3_Weights.IMAGENET1K_V1, less AuxLogits"},
		{"inception_v3_aux", 27_161_264, 5.71, "torchvision Inception_V3_Weights.IMAGENET1K_V1"},
		// kuangliu/pytorch-cifar's ResNet18: 11,173,962 parameters
		// (11.17 M, torchsummary) and 0.56 G MACs (thop and ptflops
		// count 0.56 G on 32×32 inputs).
		{"resnet18-cifar", 11_173_962, 0.56, "kuangliu/pytorch-cifar models/resnet.py ResNet18"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := Model(tt.name)
			if err != nil {
				t.Fatal(err)
			}
			if p := float64(n.Params()); !within(p, tt.params, 0.01) {
				t.Errorf("%d parameters, %s: %.0f (±1%%)", n.Params(), tt.source, tt.params)
			}
			if g := n.MACs() / 1e9; !within(g, tt.gmacs, 0.01) {
				t.Errorf("%.4f G MACs, %s: %.2f (±1%%)", g, tt.source, tt.gmacs)
			}
		})
	}
}

// TestZooExactParams checks the counts the sources give to the unit, which
// wb reproduces exactly.
func TestZooExactParams(t *testing.T) {
	for name, want := range map[string]int64{
		"resnet18":         11_689_512,
		"resnet50":         25_557_032,
		"vgg16":            138_357_544,
		"alexnet":          61_100_840,
		"inception_v3":     23_834_568,
		"inception_v3_aux": 27_161_264,
		"resnet18-cifar":   11_173_962,
	} {
		n, err := Model(name)
		if err != nil {
			t.Fatal(err)
		}
		if n.Params() != want {
			t.Errorf("%s: %d parameters, want %d", name, n.Params(), want)
		}
	}
}

// TestZooBuilds builds every model of the zoo and checks that it does work
// in every pass and precision.
func TestZooBuilds(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range Zoo() {
		if seen[e.Name] {
			t.Errorf("%s: registered twice", e.Name)
		}
		seen[e.Name] = true
		if e.Description == "" || e.Input == "" || e.Batch <= 0 || e.Build == nil {
			t.Errorf("%s: incomplete entry %+v", e.Name, e)
			continue
		}
		n, err := e.Build()
		if err != nil {
			t.Errorf("%s: %v", e.Name, err)
			continue
		}
		if n.Name != e.Name {
			t.Errorf("%s: the network is called %q", e.Name, n.Name)
		}
		for _, prec := range Precisions {
			for _, p := range Passes {
				w := n.Work(e.Batch, p, prec)
				if w.FLOPs <= 0 || w.Read <= 0 || w.Written <= 0 {
					t.Errorf("%s: %v %v: %+v", e.Name, p, prec, w)
				}
			}
		}
	}
}

func TestModelUnknown(t *testing.T) {
	_, err := Model("resnet51")
	names := ModelNames()
	if !slices.IsSorted(names) || len(names) < len(visionZoo()) {
		t.Fatalf("names %v", names)
	}
	want := `unknown model "resnet51" (known: ` + strings.Join(names, ", ") + ")"
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
	for _, e := range visionZoo() {
		if _, ok := slices.BinarySearch(names, e.Name); !ok {
			t.Errorf("%s missing from %v", e.Name, names)
		}
	}
}

// TestResNet50Keys checks that keys deduplicate ResNet-50's convolutions.
// Of its 53 (the stem, 16 bottlenecks × 3, 4 down-sampling shortcuts),
// 23 differ: the stem; in stage 1, the first block's 1×1 64→64, 3×3 and
// 1×1 64→256 (its shortcut, 1×1 64→256 at 56×56, is the same) and the
// later blocks' 1×1 256→64 (their 3×3 and last 1×1 repeat the first
// block's): 4; in stages 2-4, the first block's 1×1 reduction, strided
// 3×3 and shortcut, the later blocks' 1×1 reduction and 3×3, and the 1×1
// expansion all blocks share: 6 each.
func TestResNet50Keys(t *testing.T) {
	n, err := Model("resnet50")
	if err != nil {
		t.Fatal(err)
	}
	convs, keys := 0, map[string]bool{}
	for _, nd := range n.Nodes {
		if nd.Layer.Op() == "conv2d" {
			convs++
			keys[nd.Layer.Key()] = true
		}
	}
	if convs != 53 || len(keys) != 23 {
		t.Errorf("%d convolutions with %d keys, want 53 with 23", convs, len(keys))
	}
}

func ExampleModel() {
	n, err := Model("resnet50")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %.2f M parameters, %.2f G MACs\n", n.Name, float64(n.Params())/1e6, n.MACs()/1e9)
	// Output: resnet50: 25.56 M parameters, 4.09 G MACs
}
