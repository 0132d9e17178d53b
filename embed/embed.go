// Package embed turns retrieval texts into vectors: the Embedder interface,
// the built-in local embedder (deterministic, no network, no model file),
// HTTP providers (OpenAI-compatible and Ollama), int8 quantization, and the
// shard format vectors are stored in under vectors/<model>/ in the memory
// ref.
//
// Stored vectors are keyed by the hash of the text they embed and reused
// forever, across runs, branches and clones. An embedder's output for a
// text must therefore never change while its Model() stays the same: any
// change to what a model computes needs a new model id.
package embed

import (
	"context"
	"errors"
	"math"
)

// Embedder computes vectors for texts.
type Embedder interface {
	// Model identifies the embedder and everything that shapes its output
	// (provider, model name, dimension). Vectors of different models are
	// never mixed.
	Model() string
	// Dim is the length of every vector Embed returns.
	Dim() int
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// ErrUnavailable wraps errors of a provider that cannot be reached (down,
// refusing, rate limited past every retry). Recall falls back to lexical
// search on it.
var ErrUnavailable = errors.New("embedding provider unavailable")

// Normalize scales v to unit length in place (a zero vector stays zero)
// and returns it.
func Normalize(v []float32) []float32 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
	return v
}

// Quantized is a vector stored as int8 components with one scale: the
// component i is Q[i]*Scale.
type Quantized struct {
	Scale float32
	Q     []int8
}

// Quantize normalizes a copy of v and maps it to int8 with a per-vector
// scale (the largest magnitude maps to 127). Rounding is to nearest, so the
// result is deterministic for a given input.
func Quantize(v []float32) Quantized {
	return QuantizeOwned(append([]float32(nil), v...))
}

// QuantizeOwned is Quantize for a vector the caller gives up: it is
// normalized in place instead of copied (the same arithmetic).
func QuantizeOwned(v []float32) Quantized {
	u := Normalize(v)
	var m float32
	for _, x := range u {
		if x < 0 {
			x = -x
		}
		if x > m {
			m = x
		}
	}
	q := make([]int8, len(u))
	if m == 0 || math.IsNaN(float64(m)) || math.IsInf(float64(m), 0) {
		return Quantized{Q: q}
	}
	scale := m / 127
	for i, x := range u {
		r := math.Round(float64(x / scale))
		if r > 127 {
			r = 127
		} else if r < -127 {
			r = -127
		}
		q[i] = int8(r)
	}
	return Quantized{Scale: scale, Q: q}
}

// DotInt8 is the integer dot product of two equally long int8 vectors.
// Where the CPU has them, vector instructions take 16 components at a
// time (a search scores thousands of vectors exactly; see dot16); the
// sum is exact either way.
func DotInt8(a, b []int8) int32 {
	b = b[:len(a)]
	var s int32
	if n := len(a) &^ 15; n > 0 && haveDot16 {
		s = dot16(&a[0], &b[0], n)
		a, b = a[n:], b[n:]
	}
	return s + dotInt8(a, b)
}

// dotInt8 is DotInt8 in plain Go.
func dotInt8(a, b []int8) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += int32(a[i]) * int32(b[i])
		s1 += int32(a[i+1]) * int32(b[i+1])
		s2 += int32(a[i+2]) * int32(b[i+2])
		s3 += int32(a[i+3]) * int32(b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += int32(a[i]) * int32(b[i])
	}
	return s0 + s1 + s2 + s3
}

// Cosine is the cosine similarity of two quantized unit vectors.
func Cosine(a, b Quantized) float32 {
	return float32(DotInt8(a.Q, b.Q)) * a.Scale * b.Scale
}
