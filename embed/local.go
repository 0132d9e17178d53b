package embed

import (
	"context"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/konteks/git-konteks/text"
)

// LocalModel is the model id of the built-in embedder. Its output for a
// text is frozen under this id: vectors are cached by text hash, so any
// change to the features, weights, hashing or dimension below, or to the
// output of package text, must come with a new id, which re-embeds memory
// once. The ids it has had:
//
//	konteks-local-v1: first model.
//	konteks-local-v2: package text's stop list (one for every package)
//	                  down-weights function words in place of the model's own.
const LocalModel = "konteks-local-v2"

// LocalDim is the dimension of the built-in embedder's vectors.
const LocalDim = 256

// Local is the built-in embedder: a deterministic projection of a text's
// features onto LocalDim dimensions by signed feature hashing. It needs no
// network, model file or server, and it adds to exact-word search what a
// bag of words misses:
//
//   - identifier parts: parseHTTPRequest, parse_http_request and
//     "parse HTTP request" share the features parse/http/request, and the
//     whole identifier is a feature of its own;
//   - morphology: words are Porter-stemmed (embedding, embedded, embeds →
//     emb), and character trigrams of each part let related forms and
//     abbreviations (config/configuration, auth/authenticate) overlap;
//   - weighting fixed in advance: English function words and the keywords
//     common to programming languages count for little.
//
// What depends on the repository — which terms co-occur in it — is
// deliberately NOT in stored vectors: a vector is reused forever under its
// text's hash, across clones whose corpora differ, so it must be a
// function of the text alone. Co-occurrence enters at query time instead
// (recall expands the query with terms that co-occur with it in this
// repository's index before embedding it).
type Local struct{}

// NewLocal returns the built-in embedder.
func NewLocal() *Local { return &Local{} }

// Model implements Embedder.
func (*Local) Model() string { return LocalModel }

// Dim implements Embedder.
func (*Local) Dim() int { return LocalDim }

// Embed implements Embedder. Large batches are spread over the CPUs.
func (l *Local) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	workers := runtime.GOMAXPROCS(0)
	if len(texts) < 32 || workers == 1 {
		f := newFeaturizer()
		for i, t := range texts {
			if i%256 == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			out[i] = f.vector(t)
		}
		return out, nil
	}
	var wg sync.WaitGroup
	var next int
	var mu sync.Mutex
	const step = 16
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := newFeaturizer()
			for {
				mu.Lock()
				i := next
				next += step
				mu.Unlock()
				if i >= len(texts) || ctx.Err() != nil {
					return
				}
				for j := i; j < min(i+step, len(texts)); j++ {
					out[j] = f.vector(texts[j])
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// Vectorizer computes vectors one text at a time on the calling goroutine,
// keeping its caches warm from one text to the next. It is not safe for
// concurrent use: make one per goroutine.
type Vectorizer interface {
	Vector(text string) []float32
}

// InProcess is implemented by embedders that compute vectors in this
// process, cheaply and without failing, with the same output as Embed.
// Extraction then embeds each file on the worker that sectioned it, while
// the other workers parse, instead of in a serial stage afterwards.
type InProcess interface {
	Embedder
	NewVectorizer() Vectorizer
}

// NewVectorizer implements InProcess.
func (*Local) NewVectorizer() Vectorizer { return newFeaturizer() }

// Vector implements Vectorizer: the same vector Embed gives the text.
func (f *featurizer) Vector(text string) []float32 { return f.vector(text) }

// Feature weights (part of the frozen model).
const (
	wholeIdentWeight = 0.7  // the whole compound identifier, lowercased
	trigramWeight    = 0.25 // each character trigram of a part
	stopWeight       = 0.1  // English function words
	keywordWeight    = 0.3  // words every program is full of
	maxWordLen       = 48   // longer runs are hashes, base64, data: skipped
)

// featurizer holds per-goroutine scratch space and caches: source text
// repeats its words endlessly, so each distinct word's features are
// computed once.
type featurizer struct {
	feats featTable
	keys  []uint64
	// words maps a word to its entry; entries carry the word's features
	// and its count in the text being analysed (valid when stamp is the
	// text's): one map lookup per word of a text.
	words   map[string]int32
	entries []wordEntry
	order   []int32 // entries of this text's words, first-seen order
	stamp   uint32
	keys2   []uint64 // scratch for sortKeys
	logs    [1024]logMemo
	cur     []feature     // features of the word being analysed
	an      text.Analyzer // stems, cached
	parts   []string
	lower   []byte
	vec     []float64
}

type feature struct {
	h uint64
	w float32
}

// logMemo remembers math.Log1p of one float32 weight: weights repeat
// (a trigram seen once weighs 0.25, a word once 1), and Log1p is exact
// and deterministic, so a hit returns the same bits.
type logMemo struct {
	w   uint32 // math.Float32bits of the weight, +1 (0: empty)
	log float64
}

func (f *featurizer) log1p(w float32) float64 {
	b := math.Float32bits(w)
	m := &f.logs[(b*0x9E3779B1)>>22]
	if m.w == b+1 {
		return m.log
	}
	v := math.Log1p(float64(w))
	if b != math.MaxUint32 {
		m.w, m.log = b+1, v
	}
	return v
}

// sortKeys sorts distinct feature hashes ascending: an LSD radix sort on
// bytes for the long lists (hashes are uniformly spread), the standard
// sort for short ones. Returns the sorted slice and the scratch one.
func sortKeys(a, scratch []uint64) ([]uint64, []uint64) {
	if len(a) < 256 {
		slices.Sort(a)
		return a, scratch
	}
	if cap(scratch) < len(a) {
		scratch = make([]uint64, len(a))
	}
	b := scratch[:len(a)]
	for shift := uint(0); shift < 64; shift += 8 {
		var count [257]int
		for _, k := range a {
			count[(k>>shift)&0xff+1]++
		}
		for i := 1; i < 257; i++ {
			count[i] += count[i-1]
		}
		for _, k := range a {
			d := (k >> shift) & 0xff
			b[count[d]] = k
			count[d]++
		}
		a, b = b, a
	}
	return a, b
}

type wordEntry struct {
	feats []feature
	stamp uint32
	count int32
}

// maxCachedWords bounds a featurizer's word cache. Extraction keeps one
// featurizer per worker for the whole run: with 131,072 words each they
// held ~90 MB on the Go tree (peak RSS 450-490 MB) for no CPU saved over
// 32,768 (peak RSS 350-390 MB).
const maxCachedWords = 1 << 15

func newFeaturizer() *featurizer {
	return &featurizer{words: map[string]int32{}, vec: make([]float64, LocalDim)}
}

// featTable sums the weights of a text's features: an open-addressing
// table over feature hashes (already well mixed), emptied in time
// proportional to what the last text put in, where clearing a Go map costs
// its largest size every time.
type featTable struct {
	slots []int32 // 1 + index in keys, 0 when empty
	keys  []uint64
	vals  []float32
	pos   []int32 // slot of each key, to empty them
}

func (t *featTable) reset() {
	for _, p := range t.pos {
		t.slots[p] = 0
	}
	t.keys, t.vals, t.pos = t.keys[:0], t.vals[:0], t.pos[:0]
}

// at returns the index of h's weight, adding h with weight 0 if absent.
func (t *featTable) at(h uint64) int {
	if 2*(len(t.keys)+1) > len(t.slots) {
		t.grow()
	}
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			t.keys = append(t.keys, h)
			t.vals = append(t.vals, 0)
			t.pos = append(t.pos, int32(i))
			t.slots[i] = int32(len(t.keys))
			return len(t.keys) - 1
		}
		if t.keys[s-1] == h {
			return int(s - 1)
		}
	}
}

// get returns h's index; h must be present.
func (t *featTable) get(h uint64) int {
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		if s := t.slots[i]; t.keys[s-1] == h {
			return int(s - 1)
		}
	}
}

func (t *featTable) grow() {
	n := max(256, 2*len(t.slots))
	t.slots = make([]int32, n)
	mask := uint64(n - 1)
	for k, h := range t.keys {
		i := h & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = int32(k + 1)
		t.pos[k] = int32(i)
	}
}

// Feature kinds, hashed in as a first byte so that a word, a stem and a
// trigram with the same letters are different features.
const (
	kindStem  = 's'
	kindIdent = 'i'
	kindGram  = 'g'
)

func hashFeature(kind byte, s string) uint64 {
	// FNV-1a, 64 bit.
	h := uint64(14695981039346656037)
	h ^= uint64(kind)
	h *= 1099511628211
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	// Final avalanche (splitmix64) so that low and high bits both mix.
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}

func (f *featurizer) add(kind byte, s string, w float32) {
	f.cur = append(f.cur, feature{hashFeature(kind, s), w})
}

// vector computes the unit vector of one text.
//
// The arithmetic is part of the frozen model: each feature's weight is
// summed in float32 over the text's distinct words in first-seen order
// (each word's features weighted by its count), then the features are
// projected in ascending hash order in float64.
func (f *featurizer) vector(s string) []float32 {
	if len(f.entries) >= maxCachedWords {
		clear(f.words)
		f.entries = f.entries[:0]
	}
	f.stamp++
	if f.stamp == 0 {
		for i := range f.entries {
			f.entries[i].stamp = 0
		}
		f.stamp = 1
	}
	// Count each distinct word once, then add its features weighted by
	// its count, words in first-seen order.
	f.order = f.order[:0]
	text.Words(s, func(w string) {
		i, ok := f.words[w]
		if !ok {
			f.cur = f.cur[:0]
			f.word(w)
			i = int32(len(f.entries))
			f.entries = append(f.entries, wordEntry{feats: append([]feature(nil), f.cur...)})
			f.words[strings.Clone(w)] = i
		}
		e := &f.entries[i]
		if e.stamp != f.stamp {
			e.stamp, e.count = f.stamp, 0
			f.order = append(f.order, i)
		}
		e.count++
	})
	t := &f.feats
	t.reset()
	for _, i := range f.order {
		e := &f.entries[i]
		c := float32(e.count)
		for _, x := range e.feats {
			k := t.at(x.h) // may grow t.vals: index it after
			t.vals[k] += x.w * c
		}
	}
	for i := range f.vec {
		f.vec[i] = 0
	}
	// Features in a fixed order (floating-point sums depend on it), then
	// sublinear term frequency and two signed projections per feature:
	// collisions in one are unlikely to repeat in the other.
	f.keys = append(f.keys[:0], t.keys...)
	f.keys, f.keys2 = sortKeys(f.keys, f.keys2)
	for _, h := range f.keys {
		w := t.vals[t.get(h)]
		v := f.log1p(w)
		i1 := h % LocalDim
		i2 := (h >> 20) % LocalDim
		s1, s2 := 1.0, 1.0
		if h>>63 != 0 {
			s1 = -1
		}
		if (h>>62)&1 != 0 {
			s2 = -1
		}
		f.vec[i1] += s1 * v * math.Sqrt2 / 2
		f.vec[i2] += s2 * v * math.Sqrt2 / 2
	}
	out := make([]float32, LocalDim)
	var n float64
	for _, x := range f.vec {
		n += x * x
	}
	if n == 0 {
		return out
	}
	inv := 1 / math.Sqrt(n)
	for i, x := range f.vec {
		out[i] = float32(x * inv)
	}
	return out
}

// word adds the features of one word of the text.
func (f *featurizer) word(w string) {
	if len(w) > maxWordLen {
		return
	}
	f.parts = text.AppendParts(f.parts[:0], w, text.KeepDigits)
	if len(f.parts) == 0 {
		return
	}
	if len(f.parts) > 1 {
		f.lower = text.AppendLower(f.lower[:0], w)
		f.add(kindIdent, string(f.lower), wholeIdentWeight)
	}
	for _, p := range f.parts {
		if len(p) < 2 || isDigits(p) {
			continue
		}
		wt := float32(1)
		switch {
		case text.IsStop(p):
			wt = stopWeight
		case codeWords[p]:
			wt = keywordWeight
		}
		f.add(kindStem, f.an.Stem(p), wt)
		if len(p) >= 4 && wt == 1 {
			g := "^" + p + "$"
			for i := 0; i+3 <= len(g); i++ {
				f.add(kindGram, g[i:i+3], trigramWeight)
			}
		}
	}
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// codeWords are part of the frozen model: words every program is full
// of. The stop words (text.IsStop) are too.
var codeWords = set("func", "return", "else", "var", "const", "type", "struct", "nil", "err", "error",
	"string", "int", "bool", "true", "false", "package", "import", "def", "self", "class", "let",
	"new", "null", "none", "function", "public", "private", "static", "void", "byte", "len",
	"range", "go", "value", "end", "case", "break", "continue", "switch", "default", "interface",
	"map", "make", "append", "fmt", "println", "printf", "int64", "int32", "uint64", "uint32",
	"float64", "this", "await", "async", "export", "from", "require", "module", "lambda", "pass",
	"elif", "try", "catch", "throw", "throws", "final", "override", "fn", "pub", "mut", "impl",
	"use", "match", "some", "ok", "args", "arg", "param", "params", "get", "set", "val", "data",
	"code", "lines", "line", "file", "test", "tests", "method", "markdown", "heading", "json",
	"yaml", "toml", "text", "block", "key", "declaration")

// StoredInRef reports whether the vectors of a model are kept in the
// memory ref. The built-in model's are not: a clone computes them (about
// 60 MB of text a second per core) faster than it could fetch them, and
// they would more than double what memory weighs. Vectors of a provider
// (a paid or slow HTTP model) are stored, where reuse by text hash saves
// every teammate the cost of computing them again.
// Earlier ids of the built-in models (konteks-local-v1, ...) are not
// stored either: memory that still holds their vectors is read as before,
// and nothing reads those vectors.
func StoredInRef(model string) bool { return model != "" && !isBuiltin(model) }

// localPrefix starts every id the hashing model has had.
const localPrefix = "konteks-local-"

// isBuiltin reports whether model is one of the built-in embedders'.
func isBuiltin(model string) bool {
	return strings.HasPrefix(model, localPrefix) || strings.HasPrefix(model, StaticPrefix)
}

// Builtin returns the built-in embedder: the static model compiled into
// the binary, or the hashing embedder when the build holds no model.
func Builtin() InProcess {
	if s, err := NewStatic(); err == nil {
		return s
	}
	return NewLocal()
}

// ComputedFor returns the in-process embedder that computes the vectors of
// model where the index is built, or nil when model's vectors come from
// the memory ref (or model is "").
func ComputedFor(model string) InProcess {
	switch {
	case model == LocalModel:
		return NewLocal()
	case strings.HasPrefix(model, StaticPrefix):
		if s, err := NewStatic(); err == nil && s.Model() == model {
			return s
		}
	}
	return nil
}
