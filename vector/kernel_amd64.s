#include "textflag.h"

// int8 dot-product kernels for amd64, counterparts of dotInt8RowsGeneric.
// Each computes out[i] = q · row i of codes (rows of len(q) bytes) for
// i < len(out). Go assembler order: sources first, destination last; a
// slice argument is {ptr, len, cap}, so codes starts at +24(FP) and out at
// +48(FP).
//
// AVX2: VPMOVSXBW widens 16 signed bytes to 16 words, VPMADDWD multiplies
// word pairs and adds adjacent products into 8 dwords (no overflow:
// 2*128*128 < 2^31). Two accumulators, 32 bytes per iteration, then one
// 16-byte step and a scalar tail.
//
// AVX-512BW: the same with ZMM registers (32 bytes widened per instruction)
// and a zero-masked load for the tail instead of scalar code.
//
// AVX-512 VNNI: VPDPBUSD multiplies unsigned by signed bytes and adds groups
// of four products into dwords, 64 bytes per instruction. Codes are signed,
// so each row is flipped to unsigned with XOR 0x80 (c+128) and the excess
// 128·Σq, computed once per call with a ones vector, is subtracted:
// Σ(c+128)·q − 128·Σq = Σc·q. The tail uses zero-masked loads of both
// operands, so no byte past either slice is read.

// REDUCE16(z, y, x, out) sums the 16 dword lanes of z into the 32-bit out.
#define REDUCE16(z, y, x, out) \
	VEXTRACTI64X4 $1, z, Y15 \
	VPADDD        Y15, y, Y15 \
	VEXTRACTI128  $1, Y15, X14 \
	VPADDD        X14, X15, X15 \
	VPSHUFD       $0x4e, X15, X14 \
	VPADDD        X14, X15, X15 \
	VPSHUFD       $0xb1, X15, X14 \
	VPADDD        X14, X15, X15 \
	VMOVD         X15, out

// func dotInt8RowsAVX2(q, codes []int8, out []int32)
TEXT ·dotInt8RowsAVX2(SB), NOSPLIT, $0-72
	MOVQ q_base+0(FP), SI
	MOVQ q_len+8(FP), DX
	MOVQ codes_base+24(FP), DI
	MOVQ out_base+48(FP), R8
	MOVQ out_len+56(FP), R9
	TESTQ R9, R9
	JZ   avx2_done
	MOVQ DX, R10
	ANDQ $-32, R10 // bytes covered by the 32-byte loop
	MOVQ DX, R11
	ANDQ $-16, R11 // bytes covered by the 16-byte step

avx2_row:
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	XORQ  AX, AX

avx2_loop32:
	CMPQ      AX, R10
	JGE       avx2_step16
	VPMOVSXBW (SI)(AX*1), Y2
	VPMOVSXBW (DI)(AX*1), Y3
	VPMADDWD  Y2, Y3, Y3
	VPADDD    Y3, Y0, Y0
	VPMOVSXBW 16(SI)(AX*1), Y4
	VPMOVSXBW 16(DI)(AX*1), Y5
	VPMADDWD  Y4, Y5, Y5
	VPADDD    Y5, Y1, Y1
	ADDQ      $32, AX
	JMP       avx2_loop32

avx2_step16:
	CMPQ      AX, R11
	JGE       avx2_reduce
	VPMOVSXBW (SI)(AX*1), Y2
	VPMOVSXBW (DI)(AX*1), Y3
	VPMADDWD  Y2, Y3, Y3
	VPADDD    Y3, Y0, Y0
	ADDQ      $16, AX

avx2_reduce:
	VPADDD       Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4e, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xb1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, BX

avx2_scalar:
	CMPQ    AX, DX
	JGE     avx2_store
	MOVBQSX (SI)(AX*1), R12
	MOVBQSX (DI)(AX*1), R13
	IMULQ   R13, R12
	ADDL    R12, BX
	INCQ    AX
	JMP     avx2_scalar

avx2_store:
	MOVL BX, (R8)
	ADDQ $4, R8
	ADDQ DX, DI
	DECQ R9
	JNZ  avx2_row
	VZEROUPPER

avx2_done:
	RET

// func dotInt8RowsAVX512BW(q, codes []int8, out []int32)
TEXT ·dotInt8RowsAVX512BW(SB), NOSPLIT, $0-72
	MOVQ q_base+0(FP), SI
	MOVQ q_len+8(FP), DX
	MOVQ codes_base+24(FP), DI
	MOVQ out_base+48(FP), R8
	MOVQ out_len+56(FP), R9
	TESTQ R9, R9
	JZ   bw_done
	MOVQ DX, R10
	ANDQ $-64, R10 // bytes covered by the 64-byte loop
	MOVQ DX, R11
	ANDQ $-32, R11 // bytes covered by the 32-byte step
	MOVQ DX, CX
	ANDQ $31, CX
	MOVQ $1, R12
	SHLQ CX, R12
	DECQ R12
	KMOVD R12, K1 // tail mask: the last len(q)%32 bytes

bw_row:
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	XORQ   AX, AX

bw_loop64:
	CMPQ      AX, R10
	JGE       bw_step32
	VPMOVSXBW (SI)(AX*1), Z2
	VPMOVSXBW (DI)(AX*1), Z3
	VPMADDWD  Z2, Z3, Z3
	VPADDD    Z3, Z0, Z0
	VPMOVSXBW 32(SI)(AX*1), Z4
	VPMOVSXBW 32(DI)(AX*1), Z5
	VPMADDWD  Z4, Z5, Z5
	VPADDD    Z5, Z1, Z1
	ADDQ      $64, AX
	JMP       bw_loop64

bw_step32:
	CMPQ      AX, R11
	JGE       bw_tail
	VPMOVSXBW (SI)(AX*1), Z2
	VPMOVSXBW (DI)(AX*1), Z3
	VPMADDWD  Z2, Z3, Z3
	VPADDD    Z3, Z0, Z0
	ADDQ      $32, AX

bw_tail:
	VPMOVSXBW.Z (SI)(AX*1), K1, Z2
	VPMOVSXBW.Z (DI)(AX*1), K1, Z3
	VPMADDWD    Z2, Z3, Z3
	VPADDD      Z3, Z1, Z1
	VPADDD      Z1, Z0, Z0
	REDUCE16(Z0, Y0, X0, BX)
	MOVL BX, (R8)
	ADDQ $4, R8
	ADDQ DX, DI
	DECQ R9
	JNZ  bw_row
	VZEROUPPER

bw_done:
	RET

// func dotInt8RowsVNNI(q, codes []int8, out []int32)
TEXT ·dotInt8RowsVNNI(SB), NOSPLIT, $0-72
	MOVQ q_base+0(FP), SI
	MOVQ q_len+8(FP), DX
	MOVQ codes_base+24(FP), DI
	MOVQ out_base+48(FP), R8
	MOVQ out_len+56(FP), R9
	TESTQ R9, R9
	JZ   vnni_done
	MOVQ DX, R10
	ANDQ $-128, R10 // bytes covered by the 128-byte loop
	MOVQ DX, R11
	ANDQ $-64, R11 // bytes covered by the 64-byte step
	MOVQ DX, CX
	ANDQ $63, CX
	MOVQ $1, R12
	SHLQ CX, R12
	DECQ R12
	KMOVQ R12, K1 // tail mask: the last len(q)%64 bytes
	MOVL  $0x80808080, AX
	VPBROADCASTD AX, Z7
	MOVL  $0x01010101, AX
	VPBROADCASTD AX, Z6

	// BX = 128 * Σq
	VPXORD Z0, Z0, Z0
	XORQ   AX, AX

vnni_sumq:
	CMPQ     AX, R11
	JGE      vnni_sumq_tail
	VPDPBUSD (SI)(AX*1), Z6, Z0
	ADDQ     $64, AX
	JMP      vnni_sumq

vnni_sumq_tail:
	VMOVDQU8.Z (SI)(AX*1), K1, Z1
	VPDPBUSD   Z1, Z6, Z0
	REDUCE16(Z0, Y0, X0, BX)
	SHLL $7, BX

vnni_row:
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	XORQ   AX, AX

vnni_loop128:
	CMPQ     AX, R10
	JGE      vnni_step64
	VPXORD   (DI)(AX*1), Z7, Z2
	VPDPBUSD (SI)(AX*1), Z2, Z0
	VPXORD   64(DI)(AX*1), Z7, Z3
	VPDPBUSD 64(SI)(AX*1), Z3, Z1
	ADDQ     $128, AX
	JMP      vnni_loop128

vnni_step64:
	CMPQ     AX, R11
	JGE      vnni_tail
	VPXORD   (DI)(AX*1), Z7, Z2
	VPDPBUSD (SI)(AX*1), Z2, Z0
	ADDQ     $64, AX

vnni_tail:
	CMPQ       AX, DX
	JGE        vnni_reduce
	VMOVDQU8.Z (DI)(AX*1), K1, Z2
	VPXORD     Z7, Z2, Z2
	VMOVDQU8.Z (SI)(AX*1), K1, Z3
	VPDPBUSD   Z3, Z2, Z1

vnni_reduce:
	VPADDD     Z1, Z0, Z0
	REDUCE16(Z0, Y0, X0, R13)
	SUBL BX, R13
	MOVL R13, (R8)
	ADDQ $4, R8
	ADDQ DX, DI
	DECQ R9
	JNZ  vnni_row
	VZEROUPPER

vnni_done:
	RET

// 4-bit kernels: rows of len(q)/2 bytes, len(q) a multiple of 128; byte i
// of 64-byte block b holds dimension 128b+i in its low nibble and 128b+64+i
// in its high nibble (packNibbles). The nibbles are unsigned 0..15 and q
// signed, which is what VPDPBUSD (VNNI) and VPMADDUBSW (AVX2: pairs of
// products of at most 2·15·128 in magnitude, no saturation) multiply.

// func dotNibbleRowsVNNI(q []int8, codes []uint8, out []int32)
TEXT ·dotNibbleRowsVNNI(SB), NOSPLIT, $0-72
	MOVQ q_base+0(FP), SI
	MOVQ q_len+8(FP), DX
	MOVQ codes_base+24(FP), DI
	MOVQ out_base+48(FP), R8
	MOVQ out_len+56(FP), R9
	TESTQ R9, R9
	JZ   nv_done
	MOVQ DX, R10
	SHRQ $1, R10 // bytes per row
	MOVL $0x0f0f0f0f, AX
	VPBROADCASTD AX, Z7

nv_row:
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	XORQ   AX, AX
	MOVQ   SI, BX

nv_loop:
	CMPQ      AX, R10
	JGE       nv_reduce
	VMOVDQU64 (DI)(AX*1), Z2
	VPSRLW    $4, Z2, Z3
	VPANDD    Z7, Z2, Z2
	VPANDD    Z7, Z3, Z3
	VPDPBUSD  (BX), Z2, Z0
	VPDPBUSD  64(BX), Z3, Z1
	ADDQ      $64, AX
	ADDQ      $128, BX
	JMP       nv_loop

nv_reduce:
	VPADDD Z1, Z0, Z0
	REDUCE16(Z0, Y0, X0, R13)
	MOVL R13, (R8)
	ADDQ $4, R8
	ADDQ R10, DI
	DECQ R9
	JNZ  nv_row
	VZEROUPPER

nv_done:
	RET

// func dotNibbleRowsAVX2(q []int8, codes []uint8, out []int32)
TEXT ·dotNibbleRowsAVX2(SB), NOSPLIT, $0-72
	MOVQ q_base+0(FP), SI
	MOVQ q_len+8(FP), DX
	MOVQ codes_base+24(FP), DI
	MOVQ out_base+48(FP), R8
	MOVQ out_len+56(FP), R9
	TESTQ R9, R9
	JZ   an_done
	MOVQ DX, R10
	SHRQ $1, R10 // bytes per row
	MOVL $0x0f0f0f0f, AX
	VMOVD AX, X7
	VPBROADCASTD X7, Y7
	MOVL $0x00010001, AX
	VMOVD AX, X6
	VPBROADCASTD X6, Y6

an_row:
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	XORQ  AX, AX
	MOVQ  SI, BX

an_loop:
	CMPQ       AX, R10
	JGE        an_reduce
	VMOVDQU    (DI)(AX*1), Y2
	VPSRLW     $4, Y2, Y3
	VPAND      Y7, Y2, Y2
	VPAND      Y7, Y3, Y3
	VPMADDUBSW (BX), Y2, Y2
	VPMADDWD   Y6, Y2, Y2
	VPADDD     Y2, Y0, Y0
	VPMADDUBSW 64(BX), Y3, Y3
	VPMADDWD   Y6, Y3, Y3
	VPADDD     Y3, Y1, Y1
	VMOVDQU    32(DI)(AX*1), Y4
	VPSRLW     $4, Y4, Y5
	VPAND      Y7, Y4, Y4
	VPAND      Y7, Y5, Y5
	VPMADDUBSW 32(BX), Y4, Y4
	VPMADDWD   Y6, Y4, Y4
	VPADDD     Y4, Y0, Y0
	VPMADDUBSW 96(BX), Y5, Y5
	VPMADDWD   Y6, Y5, Y5
	VPADDD     Y5, Y1, Y1
	ADDQ       $64, AX
	ADDQ       $128, BX
	JMP        an_loop

an_reduce:
	VPADDD       Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4e, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xb1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, R13
	MOVL         R13, (R8)
	ADDQ         $4, R8
	ADDQ         R10, DI
	DECQ         R9
	JNZ          an_row
	VZEROUPPER

an_done:
	RET
