//go:build ignore && amd64 && !purego

#include "textflag.h"

// func putStr(p *byte, s string) bool
//
// Encode's fast path copies each string with it: one pass of SSE2 over s
// that stores 16 bytes and compares them with zero, where memmove and
// IndexByte each pass over s. A length of 16 or more is copied in blocks
// of 16, the last one overlapping the one before; shorter lengths as two
// overlapping words of 8 or 4 bytes, or 1 to 3 bytes one at a time. Every
// load is inside s and every store inside p[:len(s)+1].
TEXT ·putStr(SB), NOSPLIT, $0-25
	MOVQ	p+0(FP), DI
	MOVQ	s_base+8(FP), SI
	MOVQ	s_len+16(FP), CX
	MOVB	$0, (DI)(CX*1)
	PXOR	X0, X0
	CMPQ	CX, $16
	JAE	blocks
	CMPQ	CX, $8
	JAE	words8
	CMPQ	CX, $4
	JAE	words4
	TESTQ	CX, CX
	JEQ	none
	// 1 to 3 bytes: the first, middle and last cover them.
	MOVQ	CX, DX
	SHRQ	$1, DX
	MOVBLZX	(SI), AX
	MOVBLZX	(SI)(DX*1), BX
	MOVBLZX	-1(SI)(CX*1), R8
	MOVB	AX, (DI)
	MOVB	BX, (DI)(DX*1)
	MOVB	R8, -1(DI)(CX*1)
	TESTL	AX, AX
	JEQ	zero
	TESTL	BX, BX
	JEQ	zero
	TESTL	R8, R8
	JEQ	zero
none:
	MOVB	$1, ret+24(FP)
	RET

words4:
	// 4 to 7 bytes: two overlapping words of 4, tested as one of 8.
	MOVL	(SI), AX
	MOVL	-4(SI)(CX*1), BX
	MOVL	AX, (DI)
	MOVL	BX, -4(DI)(CX*1)
	SHLQ	$32, BX
	ORQ	BX, AX
	MOVQ	AX, X1
	PCMPEQB	X0, X1
	PMOVMSKB X1, AX
	TESTL	$0xff, AX // the upper 8 bytes of X1 are zero
	JNE	zero
	MOVB	$1, ret+24(FP)
	RET

words8:
	// 8 to 15 bytes: two overlapping words of 8.
	MOVQ	(SI), X1
	MOVQ	-8(SI)(CX*1), X2
	MOVQ	X1, (DI)
	MOVQ	X2, -8(DI)(CX*1)
	PUNPCKLQDQ X2, X1
	PCMPEQB	X0, X1
	PMOVMSKB X1, AX
	TESTL	AX, AX
	JNE	zero
	MOVB	$1, ret+24(FP)
	RET

blocks:
	// The last 16 bytes; X2 gathers the zero bytes seen.
	MOVOU	-16(SI)(CX*1), X2
	MOVOU	X2, -16(DI)(CX*1)
	PCMPEQB	X0, X2
	CMPQ	CX, $32
	JA	long
	// 16 to 32 bytes: the first 16 and the last.
	MOVOU	(SI), X1
	MOVOU	X1, (DI)
	PCMPEQB	X0, X1
	POR	X1, X2
	JMP	done

long:
	// More than 32 bytes: the 16 before the last, then 32 at a time from
	// the start while they end before those.
	MOVOU	-32(SI)(CX*1), X1
	MOVOU	X1, -32(DI)(CX*1)
	PCMPEQB	X0, X1
	POR	X1, X2
	SUBQ	$32, CX
	XORL	AX, AX
loop:
	MOVOU	(SI)(AX*1), X1
	MOVOU	16(SI)(AX*1), X3
	MOVOU	X1, (DI)(AX*1)
	MOVOU	X3, 16(DI)(AX*1)
	PCMPEQB	X0, X1
	PCMPEQB	X0, X3
	POR	X1, X2
	POR	X3, X2
	ADDQ	$32, AX
	CMPQ	AX, CX
	JB	loop

done:
	PMOVMSKB X2, AX
	TESTL	AX, AX
	JNE	zero
	MOVB	$1, ret+24(FP)
	RET

zero:
	MOVB	$0, ret+24(FP)
	RET
