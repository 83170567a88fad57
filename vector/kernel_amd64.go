package vector

import "golang.org/x/sys/cpu"

// The kernels below are implemented in kernel_amd64.s. Each computes
// out[i] = q · codes[i*len(q):(i+1)*len(q)] for every i < len(out); the Go
// wrappers check that codes holds len(out) rows.

//go:noescape
func dotInt8RowsAVX2(q, codes []int8, out []int32)

//go:noescape
func dotInt8RowsAVX512BW(q, codes []int8, out []int32)

//go:noescape
func dotInt8RowsVNNI(q, codes []int8, out []int32)

// The 4-bit kernels compute out[i] = q · the unpacked row i of codes
// (len(q)/2 bytes per row, len(q) a multiple of 128; see packNibbles).

//go:noescape
func dotNibbleRowsAVX2(q []int8, codes []uint8, out []int32)

//go:noescape
func dotNibbleRowsVNNI(q []int8, codes []uint8, out []int32)

// hasAVX512BW and hasVNNI report the AVX-512 features the kernels need;
// x/sys/cpu checks that the OS saves the ZMM and opmask state and honours
// GODEBUG=cpu.avx512=off.
var (
	hasAVX512BW = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW
	hasVNNI     = hasAVX512BW && cpu.X86.HasAVX512VNNI
)

// kernelName and dotInt8Rows are the int8 kernel chosen once for this CPU,
// nibbleKernelName and dotNibbleRows the 4-bit one.
var (
	kernelName, dotInt8Rows         = pickKernel()
	nibbleKernelName, dotNibbleRows = pickNibbleKernel()
)

func pickNibbleKernel() (string, func(q []int8, codes []uint8, out []int32)) {
	switch {
	case hasVNNI:
		return "avx512vnni", dotNibbleRowsVNNI
	case cpu.X86.HasAVX2:
		return "avx2", dotNibbleRowsAVX2
	}
	return "generic", dotNibbleRowsGeneric
}

func pickKernel() (string, func(q, codes []int8, out []int32)) {
	switch {
	case hasVNNI:
		return "avx512vnni", dotInt8RowsVNNI
	case hasAVX512BW:
		return "avx512bw", dotInt8RowsAVX512BW
	case cpu.X86.HasAVX2:
		return "avx2", dotInt8RowsAVX2
	}
	return "generic", dotInt8RowsGeneric
}
