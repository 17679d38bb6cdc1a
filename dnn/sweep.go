package dnn

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// SweepPrefix starts the names of sweep networks: "sweep:OP:N[:SEED]" is N
// layers of op OP (one of SweepOps: linear, lstm, conv2d, matmul, the
// row-wise softmax, layernorm and dropout, the vision ops batchnorm,
// maxpool, avgpool, globalavgpool and concat, and embedding) with shapes
// drawn at random (seed SEED, default 1), each reading its own
// free sources (a product of two activations, two), so a profile of it
// measures every pass of every layer. Sweeps are training data for the
// learned predictor, as Habitat's are: they cover shapes no model in the
// zoo has (a 20,000-wide product at batch 32, a one-step LSTM), which a
// predictor held out by shape otherwise never sees.
const SweepPrefix = "sweep:"

// SweepOps are the ops a sweep can draw, sorted.
var SweepOps = slices.Sorted(maps.Keys(sweepDraws))

// maxSweepLayers bounds N in a sweep's name.
const maxSweepLayers = 10000

// IsSweep says whether a model name names a sweep.
func IsSweep(model string) bool { return strings.HasPrefix(model, SweepPrefix) }

// sweepModel builds the sweep named name ("sweep:OP:N[:SEED]").
func sweepModel(name string) (*Network, error) {
	parts := strings.Split(strings.TrimPrefix(name, SweepPrefix), ":")
	bad := func(why string) error {
		return fmt.Errorf("model %q: %s; want sweep:OP:N[:SEED] with OP one of %s, e.g. sweep:linear:100",
			name, why, strings.Join(SweepOps, ", "))
	}
	if len(parts) < 2 || len(parts) > 3 {
		return nil, bad("wrong number of fields")
	}
	draw, ok := sweepDraws[parts[0]]
	if !ok {
		return nil, bad(fmt.Sprintf("unknown op %q", parts[0]))
	}
	n, err := strconv.Atoi(parts[1])
	if err != nil || n <= 0 || n > maxSweepLayers {
		return nil, bad(fmt.Sprintf("N %q is not a count from 1 to %d", parts[1], maxSweepLayers))
	}
	seed := uint64(1)
	if len(parts) == 3 {
		if seed, err = strconv.ParseUint(parts[2], 10, 64); err != nil {
			return nil, bad(fmt.Sprintf("SEED %q is not a non-negative integer", parts[2]))
		}
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b, x := NewBuilder(name, Shape{1})
	for i := range n {
		ins, add := draw(rng)
		srcs := make([]T, len(ins))
		for j, in := range ins {
			src := fmt.Sprintf("src%d", i)
			if j > 0 {
				src += string(rune('a' + j)) // src7b: the second operand of a product
			}
			srcs[j] = b.Add(src, func([]Shape) (Layer, error) { return &source{out: in}, nil }, x)
		}
		add(b, fmt.Sprintf("l%d", i), srcs)
	}
	return b.Build()
}

// logUniform draws an integer from lo to hi, uniform in its logarithm.
func logUniform(rng *rand.Rand, lo, hi int) int {
	l, h := math.Log(float64(lo)), math.Log(float64(hi)+1)
	return min(hi, max(lo, int(math.Exp(l+rng.Float64()*(h-l)))))
}

// roundWidth keeps a drawn width w as it is half the time, and otherwise
// rounds it to a multiple of 64 (of 16 below 256, of 8 below 64), as most
// models' widths are: products of such widths run whole vector kernels and
// tiles, and a sweep of odd widths alone teaches a predictor that every
// product runs at the speed of ragged ones.
func roundWidth(rng *rand.Rand, w int) int {
	if rng.Float64() < 0.5 {
		return w
	}
	q := 8
	switch {
	case w >= 256:
		q = 64
	case w >= 64:
		q = 16
	}
	return max(q, (w+q/2)/q*q)
}

// sweepDraw draws one layer: its inputs' shapes (one source each) and how
// to add it.
type sweepDraw func(rng *rand.Rand) ([]Shape, func(b *Builder, name string, xs []T))

// one input: a draw of a layer that reads one tensor.
func oneInput(in Shape, add func(b *Builder, name string, x T)) ([]Shape, func(*Builder, string, []T)) {
	return []Shape{in}, func(b *Builder, name string, xs []T) { add(b, name, xs[0]) }
}

// The ranges cover the zoo's layers and beyond (the widest product is
// gpt2's 50,257-word head), and cap a layer's forward work at one sample,
// 1.5e8 FLOPs (an LSTM's second layer counted as if its input were the
// first's, so up to 1.5× that), so a sweep profiles in minutes on a CPU:
// about 50 ms a pass at 25 GFLOP/s and batch 8. The bundled sweeps'
// profiles were made of these draws: changing them changes the shapes a
// name stands for.
var sweepDraws = map[string]sweepDraw{
	"linear": func(rng *rand.Rand) ([]Shape, func(*Builder, string, []T)) {
		for {
			t := 1
			if rng.Float64() < 0.5 {
				t = logUniform(rng, 2, 512)
			}
			k, n := roundWidth(rng, logUniform(rng, 16, 32768)), roundWidth(rng, logUniform(rng, 16, 65536))
			if 2*float64(t)*float64(k)*float64(n) > 1.5e8 || k*n > 1<<25 {
				continue
			}
			bias := rng.Float64() < 0.5
			in := Shape{k}
			if t > 1 {
				in = Shape{t, k}
			}
			return oneInput(in, func(b *Builder, name string, x T) { b.Linear(name, x, n, bias) })
		}
	},
	"lstm": func(rng *rand.Rand) ([]Shape, func(*Builder, string, []T)) {
		for {
			t := logUniform(rng, 1, 64)
			d, h := logUniform(rng, 16, 1024), logUniform(rng, 16, 1024)
			layers := 1 + rng.IntN(2)
			if 8*float64(t)*float64(d+h)*float64(h)*float64(layers) > 1.5e8 {
				continue
			}
			return oneInput(Shape{t, d}, func(b *Builder, name string, x T) { b.LSTM(name, x, h, layers) })
		}
	},
	"conv2d": func(rng *rand.Rand) ([]Shape, func(*Builder, string, []T)) {
		kernels := []int{1, 3, 3, 5, 7}
		for {
			cin, cout := logUniform(rng, 1, 512), logUniform(rng, 8, 512)
			hw := logUniform(rng, 4, 224)
			k := kernels[rng.IntN(len(kernels))]
			stride := 1 + rng.IntN(2)
			pad := k / 2
			if rng.Float64() < 0.25 {
				pad = 0
			}
			if hw+2*pad < k {
				continue
			}
			out := (hw+2*pad-k)/stride + 1
			if 2*float64(cin*k*k)*float64(cout)*float64(out*out) > 1.5e8 {
				continue
			}
			c := Conv{Out: cout, Kernel: k, Stride: stride, Pad: pad, Bias: rng.Float64() < 0.5}
			return oneInput(Shape{cin, hw, hw}, func(b *Builder, name string, x T) { b.Conv2D(name, x, c) })
		}
	},
	// Batched products of two activations, as attention's scores (Q·Kᵀ,
	// transposed) and context (P·V) are: G products a sample of M×K by
	// K×N. The zoo's run 8–12 heads of 64 over 20–128 tokens.
	"matmul": func(rng *rand.Rand) ([]Shape, func(*Builder, string, []T)) {
		for {
			g := logUniform(rng, 1, 64)
			m, k, n := roundWidth(rng, logUniform(rng, 1, 1024)), roundWidth(rng, logUniform(rng, 8, 1024)), roundWidth(rng, logUniform(rng, 1, 1024))
			if 2*float64(g)*float64(m)*float64(k)*float64(n) > 1.5e8 {
				continue
			}
			transB := rng.Float64() < 0.5
			bs := Shape{g, k, n}
			if transB {
				bs = Shape{g, n, k}
			}
			return []Shape{{g, m, k}, bs}, func(b *Builder, name string, xs []T) { b.MatMul(name, xs[0], xs[1], transB) }
		}
	},
	// Row-wise ops over the last dimension: ROWS rows of WIDTH a sample, as
	// a transformer's layer norms (tokens × model width) and softmaxes
	// (heads × tokens rows of tokens, or tokens of a vocabulary) are.
	"softmax": func(rng *rand.Rand) ([]Shape, func(*Builder, string, []T)) {
		rows, width := rowsWidth(rng, 65536)
		return oneInput(Shape{rows, width}, func(b *Builder, name string, x T) { b.Softmax(name, x) })
	},
	"layernorm": func(rng *rand.Rand) ([]Shape, func(*Builder, string, []T)) {
		rows, width := rowsWidth(rng, 8192)
		return oneInput(Shape{rows, width}, func(b *Builder, name string, x T) { b.LayerNorm(name, x) })
	},
	// The vision ops draw per-sample [C, H, W] maps of at most 2^20 values
	// (resnet50's first batch norm has 802,816, inception_v3's 710,432),
	// the channels rounded as a model's are; pooling's kernels, strides and
	// pads are the zoo's CNNs' and more.
	"batchnorm": func(rng *rand.Rand) ([]Shape, func(*Builder, string, []T)) {
		c, h := mapShape(rng, 2048, 160)
		return oneInput(Shape{c, h, h}, func(b *Builder, name string, x T) { b.BatchNorm(name, x) })
	},
	"maxpool": poolDraw(OpMaxPool),
	"avgpool": poolDraw(OpAvgPool),
	"globalavgpool": func(rng *rand.Rand) ([]Shape, func(*Builder, string, []T)) {
		c, h := mapShape(rng, 2048, 32)
		return oneInput(Shape{c, h, h}, func(b *Builder, name string, x T) { b.GlobalAvgPool(name, x) })
	},
	// Concatenations of two to four maps along their channels, as
	// Inception's blocks join their branches.
	"concat": func(rng *rand.Rand) ([]Shape, func(*Builder, string, []T)) {
		for {
			n, h := 2+rng.IntN(3), logUniform(rng, 1, 64)
			ins := make([]Shape, n)
			total := 0
			for i := range ins {
				c := roundWidth(rng, logUniform(rng, 1, 512))
				ins[i] = Shape{c, h, h}
				total += c * h * h
			}
			if total <= 1<<20 {
				return ins, func(b *Builder, name string, xs []T) { b.Concat(name, xs...) }
			}
		}
	},
	"dropout": func(rng *rand.Rand) ([]Shape, func(*Builder, string, []T)) {
		rows, width := rowsWidth(rng, 65536)
		return oneInput(Shape{rows, width}, func(b *Builder, name string, x T) { b.Dropout(name, x, 0.1) })
	},
	// Embeddings of 1–512 tokens in tables of 100–60,000 rows of 16–1,024,
	// at most 2^25 values (bert-base's 30,522×768 has 23 million).
	"embedding": func(rng *rand.Rand) ([]Shape, func(*Builder, string, []T)) {
		for {
			tokens, vocab := logUniform(rng, 1, 512), logUniform(rng, 100, 60000)
			dim := roundWidth(rng, logUniform(rng, 16, 1024))
			if vocab*dim <= 1<<25 {
				return oneInput(Shape{tokens}, func(b *Builder, name string, x T) { b.Embedding(name, x, vocab, dim) })
			}
		}
	},
}

// poolDraw draws a max or average pooling: 2×2 or 3×3 windows, stride 1
// or 2, a 3×3 window padded by one half the time.
func poolDraw(op Op) sweepDraw {
	return func(rng *rand.Rand) ([]Shape, func(*Builder, string, []T)) {
		for {
			c, h := mapShape(rng, 1024, 160)
			k, stride, pad := 2+rng.IntN(2), 1+rng.IntN(2), 0
			if k == 3 && rng.Float64() < 0.5 {
				pad = 1
			}
			if h+2*pad < k {
				continue
			}
			return oneInput(Shape{c, h, h}, func(b *Builder, name string, x T) {
				if op == OpMaxPool {
					b.MaxPool(name, x, k, stride, pad)
				} else {
					b.AvgPool(name, x, k, stride, pad)
				}
			})
		}
	}
}

// mapShape draws a [C, H, H] map's channels (1 to maxC, rounded as
// roundWidth does) and side (1 to maxH), at most 2^20 values.
func mapShape(rng *rand.Rand, maxC, maxH int) (c, h int) {
	for {
		c, h = roundWidth(rng, logUniform(rng, 1, maxC)), logUniform(rng, 1, maxH)
		if c*h*h <= 1<<20 {
			return c, h
		}
	}
}

// rowsWidth draws a row-wise op's rows (1–4,096) and width (2 to
// maxWidth), at most 2^22 values a sample.
func rowsWidth(rng *rand.Rand, maxWidth int) (rows, width int) {
	for {
		rows, width = logUniform(rng, 1, 4096), roundWidth(rng, logUniform(rng, 2, maxWidth))
		if rows*width <= 1<<22 {
			return rows, width
		}
	}
}

// source is a sweep layer's input: free, of any shape. Its passes have no
// work, so profiles skip them; the layer reading it is not on the
// network's input, so its backward-data pass is measured.
type source struct{ out Shape }

func (l *source) Op() Op                         { return OpSource }
func (l *source) Out() Shape                     { return l.out }
func (l *source) Params() int64                  { return 0 }
func (l *source) Key() string                    { return fmt.Sprintf("source %v", l.out) }
func (l *source) Work(int, Pass, Precision) Work { return Work{} }
