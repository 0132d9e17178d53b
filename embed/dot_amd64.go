package embed

import "golang.org/x/sys/cpu"

// haveDot16 says whether dot16 can run here (AVX2).
var haveDot16 = cpu.X86.HasAVX2

// dot16 is the dot product of the n components (a multiple of 16) at a
// and b, in AVX2 (dot_amd64.s): sign-extended to 16 bits, multiplied and
// summed in pairs into 32-bit lanes, which cannot overflow for int8
// vectors shorter than 65,536 components.
//
//go:noescape
func dot16(a, b *int8, n int) int32
