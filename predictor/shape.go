package predictor

import (
	"sync"

	"github.com/wb-sim/wb/dnn"
)

// LayerShape is what the learned correction knows of a layer's shape in
// one pass at one batch size, beyond its work: the dimensions of the matrix
// product it runs, if any, and its window, stride, channels and tensor
// sizes. A kernel's efficiency depends on these (a GEMM with a small inner
// dimension or a thin output runs far below peak, a 1×1 convolution is a
// plain GEMM, a 7×7 one is not), which FLOPs and bytes alone do not show.
//
// The zero LayerShape (Known false) is an unknown shape: a layer that
// cannot describe itself, or a profile row whose layer is not in the zoo.
type LayerShape struct {
	Known bool
	// M, N, K are the pass's matrix product C[M×N] = A[M×K]·B[K×N] in the
	// way an im2col/GEMM backend runs it, and G the number of such products
	// (groups, heads × batch); zero where the pass is no matrix product.
	M, N, K, G float64
	// In and Out are the elements of the layer's input (all inputs) and
	// output over the batch.
	In, Out float64
	// Window is a convolution's or pooling's window area kh·kw, a batch or
	// instance norm's plane H·W, a layer norm's or softmax's row; Stride
	// its stride; Cin and Cout its input and output channels (a linear
	// layer's input and output features; a norm's channels).
	Window, Stride, Cin, Cout float64
}

// ShapeOf is the shape of a layer described by d, in pass p at the batch.
func ShapeOf(d dnn.Desc, batch int, p dnn.Pass) LayerShape {
	b := float64(max(batch, 1))
	s := LayerShape{Known: true, Out: b * float64(d.Out.Elems())}
	for _, in := range d.In {
		s.In += b * float64(in.Elems())
	}
	at := func(k dnn.AttrKey) float64 { return float64(d.Attr[k]) }
	gemm := func(m, n, k, g float64) {
		switch p {
		case dnn.Forward:
			s.M, s.N, s.K = m, n, k
		case dnn.BackwardData: // dX[M×K] = dY[M×N]·Wᵀ
			s.M, s.N, s.K = m, k, n
		case dnn.BackwardWeights: // dW[N×K] = dYᵀ·X, summed over M
			s.M, s.N, s.K = n, k, m
		default: // the update is elementwise over the weights
			return
		}
		s.G = g
	}
	switch d.Op {
	case dnn.OpConv2D:
		g := max(at("groups"), 1)
		s.Window, s.Stride = at("kh")*at("kw"), at("stride")
		if len(d.In) > 0 && len(d.In[0]) == 3 {
			s.Cin = float64(d.In[0][0])
		}
		s.Cout = at("out")
		var hw float64 = 1
		if len(d.Out) == 3 {
			hw = float64(d.Out[1] * d.Out[2])
		}
		gemm(b*hw, s.Cout/g, s.Cin/g*s.Window, g)
	case dnn.OpLinear:
		k, n := at("k"), at("n")
		s.Cin, s.Cout = k, n
		rows := b
		if len(d.In) > 0 && k > 0 {
			rows = b * float64(d.In[0].Elems()) / k
		}
		gemm(rows, n, k, 1)
	case dnn.OpMatMul:
		gemm(at("m"), at("n"), at("k"), b*max(at("g"), 1))
	case dnn.OpLSTM:
		h := at("hidden")
		var t, dIn float64 = 1, 0
		if len(d.In) > 0 && len(d.In[0]) == 2 {
			t, dIn = float64(d.In[0][0]), float64(d.In[0][1])
		}
		s.Cin, s.Cout = dIn, h
		// One step's gates: [B × (D+H)]·[(D+H) × 4H], T steps in sequence.
		gemm(b, 4*h, dIn+h, t*max(at("layers"), 1))
	case dnn.OpEmbedding:
		s.Cout = at("dim")
	case dnn.OpBatchNorm, dnn.OpInstanceNorm:
		// statistics per channel over each image's plane: ATen runs a
		// team over the channels, and vectors along each plane with a
		// partial one at its end, so a norm of many small planes runs far
		// slower per value than one of a few large ones
		if len(d.In) > 0 && len(d.In[0]) >= 2 {
			s.Cin = float64(d.In[0][0])
			s.Cout, s.Window = s.Cin, float64(d.In[0].Elems())/s.Cin
		}
	case dnn.OpLayerNorm, dnn.OpSoftmax:
		// rows of the last dimension, each a reduction and then a pass
		if len(d.In) > 0 && len(d.In[0]) > 0 {
			s.Window = float64(d.In[0][len(d.In[0])-1])
		}
	case dnn.OpMaxPool, dnn.OpAvgPool, dnn.OpGlobalAvgPool:
		s.Window, s.Stride = float64(at("k")*at("k")), at("stride")
		if d.Op == dnn.OpGlobalAvgPool {
			s.Window = float64(at("k")) // k is the plane's H×W already
		}
		if len(d.In) > 0 && len(d.In[0]) == 3 {
			s.Cin = float64(d.In[0][0])
		}
		s.Cout = s.Cin
	}
	return s
}

// layerShapes finds the shape of a zoo model's layer by name, for training
// rows that name their model and layer: the descriptions of every zoo model
// a profile names, built once.
var layerShapes struct {
	sync.Mutex
	byModel map[string]map[string]layerEntry
}

type layerEntry struct {
	key  string
	desc dnn.Desc
}

// zooDesc is the description of layer in the zoo's model, when the model
// is in the zoo, has the layer and the layer's key is key (a profile taken
// of another definition of the model matches nothing).
func zooDesc(model, layer, key string) (dnn.Desc, bool) {
	layerShapes.Lock()
	defer layerShapes.Unlock()
	if layerShapes.byModel == nil {
		layerShapes.byModel = map[string]map[string]layerEntry{}
	}
	m, ok := layerShapes.byModel[model]
	if !ok {
		if n, err := dnn.Model(model); err == nil {
			m = map[string]layerEntry{}
			for _, node := range n.Nodes {
				if ds, ok := node.Layer.(dnn.Describer); ok {
					m[node.Name] = layerEntry{key: node.Layer.Key(), desc: ds.Describe()}
				}
			}
		}
		layerShapes.byModel[model] = m // nil: not in the zoo
	}
	e, ok := m[layer]
	if !ok || (key != "" && e.key != key) {
		return dnn.Desc{}, false
	}
	return e.desc, true
}
