//go:build !amd64

package embed

const haveDot16 = false

func dot16(a, b *int8, n int) int32 { panic("dot16 without vector instructions") }

func addScaled8(v *float32, row *int8, w float32, n int) {
	panic("addScaled8 without vector instructions")
}
