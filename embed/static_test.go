package embed

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"
)

func TestStaticRoundTripAndLookup(t *testing.T) {
	toks := []string{"request", "pars", "http", "parsehttprequest"}
	rows := [][]float32{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 2}}
	b, err := EncodeStatic(4, toks, rows)
	if err != nil {
		t.Fatal(err)
	}
	m, err := DecodeStatic(b)
	if err != nil {
		t.Fatal(err)
	}
	if m.Len() != 4 || m.Dim() != 4 || !strings.HasPrefix(m.ID(), StaticPrefix) {
		t.Fatalf("decoded %d tokens of dim %d, id %s", m.Len(), m.Dim(), m.ID())
	}
	// A query's lookups search; a build's search until mapAfter, then
	// go through the map.
	for pass, many := range []bool{false, true, true} {
		if pass == 2 {
			m.searches.Store(mapAfter)
		}
		for i, tok := range toks {
			if got := m.lookup(tok, many); got < 0 || m.token(int(got)) != tok {
				t.Errorf("lookup(%q, many=%v) = %d", tok, many, got)
			}
			_ = i
		}
		if m.lookup("absent", many) >= 0 {
			t.Errorf("absent token found (many=%v)", many)
		}
		if (m.index != nil) != (pass == 2) {
			t.Errorf("pass %d: map built %v", pass, m.index != nil)
		}
	}
	// parseHTTPRequest reads as its whole form and its parts.
	v := m.Vector("parseHTTPRequest")
	if v[3] <= v[0] || v[0] <= 0 || v[1] <= 0 || v[2] <= 0 {
		t.Errorf("vector %v: want every token's row, the compound's largest", v)
	}
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if math.Abs(n-1) > 1e-3 {
		t.Errorf("vector norm² %f, want 1", n)
	}
	if z := m.Vector("nothing known here"); z[0] != 0 || z[1] != 0 || z[2] != 0 || z[3] != 0 {
		t.Errorf("unknown words gave %v, want zero", z)
	}
}

func TestDecodeStaticRejectsDamage(t *testing.T) {
	b, err := EncodeStatic(2, []string{"a1", "b2"}, [][]float32{{1, 2}, {3, 4}})
	if err != nil {
		t.Fatal(err)
	}
	// Token offsets out of order: the second token's end before the
	// first's (the length of the token bytes is the last end, kept).
	disorder := slices.Clone(b)
	binary.LittleEndian.PutUint32(disorder[16:], 5)
	for _, bad := range [][]byte{nil, b[:10], b[:len(b)-1], append([]byte("XXXX"), b[4:]...), disorder} {
		if _, err := DecodeStatic(bad); err == nil {
			t.Errorf("damaged model of %d bytes decoded", len(bad))
		}
	}
	if _, err := EncodeStatic(2, []string{"a", "a"}, [][]float32{{1, 2}, {3, 4}}); err == nil {
		t.Error("a token twice was encoded")
	}
}

// The model compiled into the binary: the built-in embedder, with the
// budgets of docs/model.md (a query in well under a millisecond).
func TestBuiltinStatic(t *testing.T) {
	m, err := BuiltinStatic()
	if err == ErrNoModel {
		t.Skip("this build holds no static model (make model)")
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(staticModelFile) > 64<<20 {
		t.Errorf("the model is %d bytes, over the 64 MiB budget", len(staticModelFile))
	}
	// What BuiltinStatic leaves to this test: the whole file passes
	// DecodeStatic's checks, and the model is the same. The tokens are
	// also strictly sorted, as the binary search needs (EncodeStatic
	// writes them so; DecodeStatic does not check it).
	full, err := DecodeStatic(staticModelFile)
	if err != nil {
		t.Fatalf("the built-in model fails the checks of a model file: %v", err)
	}
	if full.ID() != m.ID() || full.Dim() != m.Dim() || full.Len() != m.Len() {
		t.Fatalf("the built-in model is %s/%d/%d, decoded in full %s/%d/%d", m.ID(), m.Dim(), m.Len(), full.ID(), full.Dim(), full.Len())
	}
	for i := 1; i < m.Len(); i++ {
		if m.tokenView(i-1) >= m.tokenView(i) {
			t.Fatalf("tokens %d and %d out of order: %q, %q", i-1, i, m.tokenView(i-1), m.tokenView(i))
		}
	}
	// Nothing is copied out of the binary's bytes.
	for name, part := range map[string][]byte{"offsets": m.ends, "tokens": m.tokens, "scales": m.scales, "rows": unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(m.rows))), len(m.rows))} {
		lo, hi := uintptr(unsafe.Pointer(unsafe.SliceData(staticModelFile))), uintptr(unsafe.Pointer(unsafe.SliceData(staticModelFile)))+uintptr(len(staticModelFile))
		if p := uintptr(unsafe.Pointer(unsafe.SliceData(part))); p < lo || p+uintptr(len(part)) > hi {
			t.Errorf("the model's %s are a copy, not the binary's bytes", name)
		}
	}
	e := Builtin()
	if e.Model() != m.ID() || e.Dim() != m.Dim() {
		t.Fatalf("Builtin is %s/%d, want the static model %s/%d", e.Model(), e.Dim(), m.ID(), m.Dim())
	}
	if ComputedFor(m.ID()) == nil || StoredInRef(m.ID()) {
		t.Errorf("the static model's vectors must be computed locally, never stored in the ref")
	}
	q := "waiting for any of several futures to complete"
	vs, err := e.Embed(context.Background(), []string{q, q})
	if err != nil {
		t.Fatal(err)
	}
	// Compared before quantization: int8 rounding alone moves a vector's
	// cosine with itself by about 0.001, more or less with each model.
	if !slices.Equal(vs[0], vs[1]) {
		t.Error("the same text embedded twice differs")
	}
	if v := e.NewVectorizer().Vector(q); floatCosine(v, vs[0]) < 0.9999 {
		t.Error("the vectorizer and Embed disagree")
	}
	start := time.Now()
	const n = 200
	for i := 0; i < n; i++ {
		m.Vector(q)
	}
	per := time.Since(start) / n
	t.Logf("query embedding: %s", per)
	if per > 5*time.Millisecond { // budget 1 ms; loose for -race and load
		t.Errorf("a query takes %s to embed", per)
	}
}

func BenchmarkStaticQuery(b *testing.B) {
	m, err := BuiltinStatic()
	if err != nil {
		b.Skip(err)
	}
	for i := 0; i < b.N; i++ {
		m.Vector("where are durable memories merged when two clones push")
	}
}

// sourceTexts is this package's own source, in section-sized texts.
func sourceTexts() []string {
	srcs, _ := filepath.Glob("*.go")
	var texts []string
	for _, f := range srcs {
		data, _ := os.ReadFile(f)
		for len(data) > 0 {
			n := min(len(data), 1500)
			texts = append(texts, string(data[:n]))
			data = data[n:]
		}
	}
	return texts
}

// BenchmarkVectorizers compares the built-in embedders on this package's
// own source, a section-sized text at a time.
func BenchmarkVectorizers(b *testing.B) {
	texts := sourceTexts()
	var bytes int64
	for _, t := range texts {
		bytes += int64(len(t))
	}
	for _, e := range []InProcess{NewLocal(), Builtin()} {
		b.Run(e.Model(), func(b *testing.B) {
			v := e.NewVectorizer()
			b.SetBytes(bytes)
			for i := 0; i < b.N; i++ {
				for _, t := range texts {
					v.Vector(t)
				}
			}
		})
	}
}

// TestVectorizerIsExact: a vectorizer's vectors, made with its word
// cache warm, are StaticModel.Vector's bit for bit (the local vector
// cache and the index compare them across processes), on this package's
// own source a section at a time, texts seen again included.
func TestVectorizerIsExact(t *testing.T) {
	m, err := BuiltinStatic()
	if err == ErrNoModel {
		t.Skip("this build holds no static model (make model)")
	}
	if err != nil {
		t.Fatal(err)
	}
	texts := sourceTexts()
	texts = append(texts, "", "x", strings.Repeat("averyveryverylongidentifierthatisoverfortycharacters ", 3), texts[0])
	v := newStaticVectorizer(m)
	for i, s := range texts {
		if i == len(texts)/2 {
			clear(v.words) // as when the cache reaches its bound
		}
		got, want := v.Vector(s), m.Vector(s)
		if !slices.Equal(got, want) {
			t.Fatalf("text %d: the vectorizer's vector differs from Vector's", i)
		}
	}
}

func floatCosine(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}
