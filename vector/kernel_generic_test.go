//go:build !amd64

package vector

type int8Kernel struct {
	name string
	fn   func(q, codes []int8, out []int32)
}

func int8Kernels() []int8Kernel { return []int8Kernel{{"generic", dotInt8RowsGeneric}} }

type nibbleKernel struct {
	name string
	fn   func(q []int8, codes []uint8, out []int32)
}

func nibbleKernels() []nibbleKernel { return []nibbleKernel{{"generic", dotNibbleRowsGeneric}} }
