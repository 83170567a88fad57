package vector

import (
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/cpu"
)

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

type nibbleKernel struct {
	name string
	fn   func(q []int8, codes []uint8, out []int32)
}

// nibbleKernels lists every 4-bit kernel this CPU can run, generic included.
func nibbleKernels() []nibbleKernel {
	ks := []nibbleKernel{{"generic", dotNibbleRowsGeneric}}
	if cpu.X86.HasAVX2 {
		ks = append(ks, nibbleKernel{"avx2", dotNibbleRowsAVX2})
	}
	if hasVNNI {
		ks = append(ks, nibbleKernel{"avx512vnni", dotNibbleRowsVNNI})
	}
	return ks
}

// TestKernelHonoursGODEBUG checks that GODEBUG=cpu.avx2=off and
// cpu.avx512f=off (read by x/sys/cpu) force the lower kernel tiers, which is
// how `make test` runs the index tests on the kernels this CPU would not
// pick: the generic one everywhere, and AVX2 on an AVX-512 machine.
func TestKernelHonoursGODEBUG(t *testing.T) {
	debug := os.Getenv("GODEBUG")
	t.Logf("GODEBUG=%q: kernel %s, 4-bit kernel %s", debug, Kernel(), nibbleKernelName)
	switch {
	case strings.Contains(debug, "cpu.avx2=off"):
		if Kernel() != "generic" || nibbleKernelName != "generic" {
			t.Errorf("cpu.avx2=off: kernels %s, %s, want generic", Kernel(), nibbleKernelName)
		}
	case strings.Contains(debug, "cpu.avx512f=off"):
		if Kernel() != "avx2" && Kernel() != "generic" || nibbleKernelName == "avx512vnni" {
			t.Errorf("cpu.avx512f=off: kernels %s, %s, want avx2", Kernel(), nibbleKernelName)
		}
	}
}
