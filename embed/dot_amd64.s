#include "textflag.h"

// func dot16(a, b *int8, n int) int32
TEXT ·dot16(SB), NOSPLIT, $0-28
	MOVQ  a+0(FP), SI
	MOVQ  b+8(FP), DI
	MOVQ  n+16(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y3, Y3, Y3

loop32:
	CMPQ      CX, $32
	JL        loop16
	VPMOVSXBW (SI), Y1
	VPMOVSXBW (DI), Y2
	VPMADDWD  Y1, Y2, Y1
	VPADDD    Y1, Y0, Y0
	VPMOVSXBW 16(SI), Y4
	VPMOVSXBW 16(DI), Y5
	VPMADDWD  Y4, Y5, Y4
	VPADDD    Y4, Y3, Y3
	ADDQ      $32, SI
	ADDQ      $32, DI
	SUBQ      $32, CX
	JMP       loop32

loop16:
	CMPQ      CX, $16
	JL        done
	VPMOVSXBW (SI), Y1
	VPMOVSXBW (DI), Y2
	VPMADDWD  Y1, Y2, Y1
	VPADDD    Y1, Y0, Y0

done:
	VPADDD       Y3, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4E, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xB1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, AX
	VZEROUPPER
	MOVL         AX, ret+24(FP)
	RET

// func addScaled8(v *float32, row *int8, w float32, n int)
TEXT ·addScaled8(SB), NOSPLIT, $0-32
	MOVQ         v+0(FP), DI
	MOVQ         row+8(FP), SI
	VBROADCASTSS w+16(FP), Y0
	MOVQ         n+24(FP), CX

loop16:
	CMPQ      CX, $16
	JL        loop8
	VPMOVSXBD (SI), Y1
	VPMOVSXBD 8(SI), Y2
	VCVTDQ2PS Y1, Y1
	VCVTDQ2PS Y2, Y2
	VMULPS    Y0, Y1, Y1
	VMULPS    Y0, Y2, Y2
	VADDPS    (DI), Y1, Y1
	VADDPS    32(DI), Y2, Y2
	VMOVUPS   Y1, (DI)
	VMOVUPS   Y2, 32(DI)
	ADDQ      $16, SI
	ADDQ      $64, DI
	SUBQ      $16, CX
	JMP       loop16

loop8:
	CMPQ      CX, $8
	JL        done8
	VPMOVSXBD (SI), Y1
	VCVTDQ2PS Y1, Y1
	VMULPS    Y0, Y1, Y1
	VADDPS    (DI), Y1, Y1
	VMOVUPS   Y1, (DI)

done8:
	VZEROUPPER
	RET
