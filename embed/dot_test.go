package embed

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestDotInt8 checks the vector dot product against the plain one: every
// length up to a few blocks past 256 (the tails of 16 and 32), at odd
// offsets, and at the extremes of int8.
func TestDotInt8(t *testing.T) {
	if !haveDot16 {
		t.Log("no vector instructions here: the plain loop runs")
	}
	r := rand.New(rand.NewPCG(1, 2))
	a, b := make([]int8, 400), make([]int8, 400)
	for i := range a {
		a[i], b[i] = int8(r.IntN(256)-128), int8(r.IntN(256)-128)
	}
	for n := 0; n <= 300; n++ {
		for _, off := range []int{0, 1, 7, 33} {
			x, y := a[off:off+n], b[99-off%50:99-off%50+n]
			if got, want := DotInt8(x, y), dotInt8(x, y); got != want {
				t.Fatalf("length %d offset %d: %d, want %d", n, off, got, want)
			}
		}
	}
	for _, v := range []int8{-128, 127} {
		for _, w := range []int8{-128, 127} {
			x, y := make([]int8, 320), make([]int8, 320)
			for i := range x {
				x[i], y[i] = v, w
			}
			if got, want := DotInt8(x, y), int32(v)*int32(w)*320; got != want {
				t.Fatalf("%d·%d over 320: %d, want %d", v, w, got, want)
			}
		}
	}
}

func BenchmarkDotInt8(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	q, rows := make([]int8, 256), make([]int8, 256*4000)
	for i := range q {
		q[i] = int8(r.IntN(255) - 127)
	}
	for i := range rows {
		rows[i] = int8(r.IntN(255) - 127)
	}
	var s int32
	for b.Loop() {
		for i := 0; i < 4000; i++ {
			s += DotInt8(q, rows[i*256:(i+1)*256])
		}
	}
	_ = s
}

// TestAddScaled: the vector kernel adds what the plain loop adds, bit for
// bit, at every length and alignment and for weights of every magnitude
// (the index compares vectors made on different machines).
func TestAddScaled(t *testing.T) {
	if !haveDot16 {
		t.Log("no vector instructions here: the plain loop runs")
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 3))
	row := make([]int8, 300)
	for i := range row {
		row[i] = int8(r.IntN(256) - 128)
	}
	row[0], row[1] = -128, 127
	for n := 0; n <= 270; n++ {
		for _, off := range []int{0, 1, 7, 13} {
			w := float32(r.NormFloat64() * math.Pow(10, float64(r.IntN(12)-6)))
			got, want := make([]float32, n+1), make([]float32, n+1)
			for i := range got {
				got[i] = float32(r.NormFloat64())
				want[i] = got[i]
			}
			addScaled(got[1:], row[off:off+n], w)
			for j, q := range row[off : off+n] {
				want[1+j] += w * float32(q)
			}
			for j := range got {
				if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
					t.Fatalf("length %d offset %d weight %g: component %d is %g, want %g", n, off, w, j, got[j], want[j])
				}
			}
		}
	}
}

func TestCountWeight(t *testing.T) {
	for c := 1; c < 200; c++ {
		if got, want := countWeight(c), float32(1+math.Log(float64(c))); got != want {
			t.Fatalf("countWeight(%d) = %g, want %g", c, got, want)
		}
	}
}
