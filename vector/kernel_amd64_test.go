package vector

import "golang.org/x/sys/cpu"

type int8Kernel struct {
	name string
	fn   func(q, codes []int8, out []int32)
}

// int8Kernels lists every int8 kernel this CPU can run, the generic one
// included, so parity tests cover the ones not picked at start-up too.
func int8Kernels() []int8Kernel {
	ks := []int8Kernel{{"generic", dotInt8RowsGeneric}}
	if cpu.X86.HasAVX2 {
		ks = append(ks, int8Kernel{"avx2", dotInt8RowsAVX2})
	}
	if hasAVX512BW {
		ks = append(ks, int8Kernel{"avx512bw", dotInt8RowsAVX512BW})
	}
	if hasVNNI {
		ks = append(ks, int8Kernel{"avx512vnni", dotInt8RowsVNNI})
	}
	return ks
}
