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

// addScaled8 adds w times the n int8s at row (a multiple of 8) to the n
// float32s at v, in AVX2 (dot_amd64.s): each lane converted, multiplied
// and added as the scalar loop does (no fused multiply-add), so the
// result is the scalar loop's bit for bit.
//
//go:noescape
func addScaled8(v *float32, row *int8, w float32, n int)
