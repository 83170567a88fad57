//go:build !amd64

package vector

type int8Kernel struct {
	name string
	fn   func(q, codes []int8, out []int32)
}

func int8Kernels() []int8Kernel { return []int8Kernel{{"generic", dotInt8RowsGeneric}} }
