package embed

import (
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/text"
)

// refVector is the featurizer's arithmetic written the plain way (Go maps,
// as the model was first written): the optimised vector must give
// the same bits.
func refVector(f *featurizer, s string) []float32 {
	// (f is used only for the words' features.)
	feats := map[uint64]float32{}
	counts := map[string]int32{}
	var order []string
	text.Words(s, func(w string) {
		if c, ok := counts[w]; ok {
			counts[w] = c + 1
			return
		}
		counts[w] = 1
		order = append(order, w)
	})
	for _, w := range order {
		f.cur = f.cur[:0]
		f.word(w)
		c := float32(counts[w])
		for _, x := range f.cur {
			feats[x.h] += x.w * c
		}
	}
	vec := make([]float64, LocalDim)
	var keys []uint64
	for h := range feats {
		keys = append(keys, h)
	}
	slices.Sort(keys)
	for _, h := range keys {
		v := math.Log1p(float64(feats[h]))
		i1 := h % LocalDim
		i2 := (h >> 20) % LocalDim
		s1, s2 := 1.0, 1.0
		if h>>63 != 0 {
			s1 = -1
		}
		if (h>>62)&1 != 0 {
			s2 = -1
		}
		vec[i1] += s1 * v * math.Sqrt2 / 2
		vec[i2] += s2 * v * math.Sqrt2 / 2
	}
	out := make([]float32, LocalDim)
	var n float64
	for _, x := range vec {
		n += x * x
	}
	if n == 0 {
		return out
	}
	inv := 1 / math.Sqrt(n)
	for i, x := range vec {
		out[i] = float32(x * inv)
	}
	return out
}

// TestVectorMatchesReference embeds real texts (pieces of the Go tree's
// own source, small and large, repeated) with one featurizer, as a worker
// does, and compares every bit with refVector.
func TestVectorMatchesReference(t *testing.T) {
	root := filepath.Join(runtime.GOROOT(), "src", "strings")
	if testing.Short() {
		root = filepath.Join(runtime.GOROOT(), "src", "unicode", "utf8")
	}
	var texts []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		s := string(b)
		texts = append(texts, s)
		for _, piece := range strings.Split(s, "\n\n") {
			texts = append(texts, piece)
		}
		return nil
	})
	texts = append(texts, "", "   ", "α β γ ünïcödé", strings.Repeat("x", 100), "parseHTTPRequest parse_http_request")
	// A large text: thousands of features (the radix-sorted path).
	texts = append(texts, strings.Join(texts, "\n"))
	if len(texts) < 10 {
		t.Skip("no Go source")
	}
	f, ref := newFeaturizer(), newFeaturizer()
	for round := 0; round < 2; round++ {
		for i, text := range texts {
			got, want := f.vector(text), refVector(ref, text)
			for j := range want {
				if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
					t.Fatalf("text %d (%d bytes): component %d is %v, want %v", i, len(text), j, got[j], want[j])
				}
			}
		}
	}
}
