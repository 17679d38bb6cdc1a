package predictor

import "github.com/wb-sim/wb/dnn"

// TrainingMemoryFloor is what a training step of n at perGPU samples a GPU
// surely holds, bytes, as eager PyTorch runs it with SGD and momentum (no
// activation checkpointing or offloading): the weights, their gradients
// and the momentum, three copies at prec, and the activations the backward
// pass cannot do without (dnn.Network.Kept). wb predict warns by the same
// floor; a job above a GPU's memory cannot run there.
func TrainingMemoryFloor(n *dnn.Network, perGPU int, prec dnn.Precision) float64 {
	return 3*float64(n.Params())*float64(prec.Size()) + n.Kept(perGPU, prec)
}
