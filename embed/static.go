package embed

import (
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/konteks/git-konteks/text"
)

// The static model: a table of token vectors trained by this project
// (make model; docs/model.md) and compiled into the binary. A text's vector
// is the normalised sum of its tokens' rows, each counted 1+ln(tf) times;
// the rows carry the tokens' weights in their length. It needs no network,
// server or cgo, and costs a table lookup per token.
//
// The file (little-endian):
//
//	magic "KSTM" | version u32 | dim u32 | n u32
//	n × u32   end offset of each token in the token bytes (tokens sorted)
//	u32 length of the token bytes, then the bytes
//	n × f32   row scale
//	n × dim × i8  rows
//	16 bytes      the first half of the SHA-256 of all that precedes
//
// The trailing hash names the model (ID) without hashing 18 MB at every
// process start.
//
//go:embed static/model.bin
var staticModelFile []byte

const staticMagic = "KSTM"

// StaticPrefix begins the id of every static model.
const StaticPrefix = "konteks-static-"
const staticVersion = 1

// StaticModel is a decoded model file. Its methods are safe for concurrent
// use.
//
// Its arrays are the file's own bytes, read in place (see decodeStatic):
// ends and scales are little-endian 32-bit values read one at a time
// (end, scale), the rows int8s.
type StaticModel struct {
	id     string
	dim    int
	n      int    // tokens
	ends   []byte // n little-endian u32s: token i is tokens[end(i-1):end(i)]
	tokens []byte
	scales []byte // n little-endian f32s, one per row
	rows   []int8

	searches  atomic.Int64 // lookups of many made by binary search
	indexOnce sync.Once
	index     map[string]int32
}

// ErrNoModel is returned when the binary holds no static model.
var ErrNoModel = errors.New("no static model in this build (make model)")

var builtin struct {
	once sync.Once
	m    *StaticModel
	err  error
}

// BuiltinStatic returns the model compiled into the binary.
//
// Its bytes are fixed when the binary is built, so what DecodeStatic
// checks value by value (the token offsets, in order and within the
// token bytes) is checked once, by TestBuiltinStatic, not at every
// process start: the file's layout alone is checked here, which reads
// none of its arrays. Nothing is copied either, so a command pages in
// only the parts of the 18 MB its lookups touch (a query's binary
// searches, a one-file update's rows), not the 512 KB of offsets and
// scales DecodeStatic used to copy out (4.5 ms of a one-file run).
func BuiltinStatic() (*StaticModel, error) {
	builtin.once.Do(func() {
		if len(staticModelFile) == 0 {
			builtin.err = ErrNoModel
			return
		}
		builtin.m, builtin.err = decodeStatic(staticModelFile, false)
	})
	return builtin.m, builtin.err
}

// EncodeStatic writes a model: tokens (any order) with their rows of dim
// float32 each.
func EncodeStatic(dim int, tokens []string, rows [][]float32) ([]byte, error) {
	if len(tokens) != len(rows) {
		return nil, fmt.Errorf("static model: %d tokens, %d rows", len(tokens), len(rows))
	}
	order := make([]int, len(tokens))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return tokens[order[a]] < tokens[order[b]] })
	var buf bytes.Buffer
	buf.WriteString(staticMagic)
	put := func(v uint32) { binary.Write(&buf, binary.LittleEndian, v) }
	put(staticVersion)
	put(uint32(dim))
	put(uint32(len(tokens)))
	end := uint32(0)
	for i, o := range order {
		if i > 0 && tokens[o] == tokens[order[i-1]] {
			return nil, fmt.Errorf("static model: token %q twice", tokens[o])
		}
		end += uint32(len(tokens[o]))
		put(end)
	}
	put(end)
	for _, o := range order {
		buf.WriteString(tokens[o])
	}
	q := make([]int8, 0, len(tokens)*dim)
	for _, o := range order {
		r := rows[o]
		if len(r) != dim {
			return nil, fmt.Errorf("static model: row of %q has %d values, want %d", tokens[o], len(r), dim)
		}
		var m float64
		for _, x := range r {
			m = math.Max(m, math.Abs(float64(x)))
		}
		scale := float32(m / 127)
		binary.Write(&buf, binary.LittleEndian, scale)
		for _, x := range r {
			v := 0.0
			if scale > 0 {
				v = math.Round(float64(x) / float64(scale))
			}
			q = append(q, int8(max(-127, min(127, v))))
		}
	}
	for _, v := range q {
		buf.WriteByte(byte(v))
	}
	sum := sha256.Sum256(buf.Bytes())
	buf.Write(sum[:16])
	return buf.Bytes(), nil
}

// DecodeStatic reads a model file and checks all of it; its arrays are
// used in place, so b must not change while the model is in use.
func DecodeStatic(b []byte) (*StaticModel, error) { return decodeStatic(b, true) }

// decodeStatic reads a model file: its layout always, every token offset
// too when full (a file from anywhere but this binary).
func decodeStatic(b []byte, full bool) (*StaticModel, error) {
	bad := func(what string) error { return fmt.Errorf("static model: %s", what) }
	if len(b) < 16 || string(b[:4]) != staticMagic {
		return nil, bad("not a model file")
	}
	le := binary.LittleEndian
	if v := le.Uint32(b[4:]); v != staticVersion {
		return nil, bad(fmt.Sprintf("version %d, want %d", v, staticVersion))
	}
	dim, n := int(le.Uint32(b[8:])), int(le.Uint32(b[12:]))
	if dim <= 0 || dim > 4096 || n <= 0 || n > 1<<24 {
		return nil, bad("bad dimensions")
	}
	off := 16
	need := func(k int) error {
		if k < 0 || off+k > len(b) {
			return bad("truncated")
		}
		return nil
	}
	if err := need(4*n + 4); err != nil {
		return nil, err
	}
	m := &StaticModel{dim: dim, n: n, ends: b[off : off+4*n]}
	off += 4 * n
	if full {
		for i := 1; i < n; i++ {
			if m.end(i) < m.end(i-1) {
				return nil, bad("token offsets out of order")
			}
		}
	}
	tlen := int(le.Uint32(b[off:]))
	off += 4
	if tlen != int(m.end(n-1)) {
		return nil, bad("token bytes disagree with offsets")
	}
	if err := need(tlen + 4*n + n*dim + 16); err != nil {
		return nil, err
	}
	m.tokens = b[off : off+tlen]
	off += tlen
	m.scales = b[off : off+4*n]
	off += 4 * n
	m.rows = bytesAsInt8(b[off : off+n*dim])
	off += n * dim
	if off+16 != len(b) {
		return nil, bad("trailing bytes")
	}
	m.id = StaticPrefix + hex.EncodeToString(b[off:off+6])
	return m, nil
}

// ID names the model and its weights: it changes whenever the file does.
func (m *StaticModel) ID() string { return m.id }

// Dim is the length of the model's vectors.
func (m *StaticModel) Dim() int { return m.dim }

// Len is the number of tokens the model knows.
func (m *StaticModel) Len() int { return m.n }

// end is the end of token i in the token bytes. The offsets (and the
// scales) are read where they lie in the file, value by value: the
// scales' place depends on the length of the token bytes, so they are
// not aligned for a []float32 view, and a little-endian load is one
// instruction where the machine is little-endian and still right where
// it is not.
func (m *StaticModel) end(i int) uint32 { return binary.LittleEndian.Uint32(m.ends[4*i:]) }

// scale is row i's scale.
func (m *StaticModel) scale(i int32) float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(m.scales[4*int(i):]))
}

// span is where token i lies in the token bytes. A full decode has
// checked that the offsets are in order; the built-in model's test has.
func (m *StaticModel) span(i int) (start, end uint32) {
	if i > 0 {
		start = m.end(i - 1)
	}
	return start, m.end(i)
}

func (m *StaticModel) token(i int) string {
	start, end := m.span(i)
	return string(m.tokens[start:end])
}

// tokenView is token i without a copy: the model's bytes never change.
func (m *StaticModel) tokenView(i int) string {
	start, end := m.span(i)
	if start == end {
		return ""
	}
	return unsafe.String(&m.tokens[start:end][0], int(end-start))
}

// mapAfter is the number of lookups of many after which they go through
// a map: building it costs about as much as that many binary searches.
const mapAfter = 1 << 15

// lookup returns the row of tok, or -1. Few lookups (a query, the
// vectors of a one-file update) search the sorted tokens; many (a
// build) build a map once, after their first mapAfter searches.
func (m *StaticModel) lookup(tok string, many bool) int32 {
	if many && m.searches.Load() >= mapAfter || many && m.searches.Add(1) > mapAfter {
		m.indexOnce.Do(func() {
			m.index = make(map[string]int32, m.n)
			for i := range m.n {
				m.index[m.tokenView(i)] = int32(i)
			}
		})
		if i, ok := m.index[tok]; ok {
			return i
		}
		return -1
	}
	i := sort.Search(m.n, func(i int) bool { return m.tokenView(i) >= tok })
	if i < m.n && m.tokenView(i) == tok {
		return int32(i)
	}
	return -1
}

// Vector embeds one text (unit length, or zero when no token is known).
func (m *StaticModel) Vector(text string) []float32 { return m.vector(text, false) }

func (m *StaticModel) vector(text string, many bool) []float32 {
	counts := map[int32]int{}
	var order []int32
	ModelTokens(text, func(tok string) {
		i := m.lookup(tok, many)
		if i < 0 {
			return
		}
		if counts[i] == 0 {
			order = append(order, i)
		}
		counts[i]++
	})
	return m.sum(order, func(i int32) int { return counts[i] })
}

// sum is the vector of rows (in the order given: the order of the sum is
// part of the result) each counted count(i) times.
func (m *StaticModel) sum(rows []int32, count func(i int32) int) []float32 {
	v := make([]float32, m.dim)
	for _, i := range rows {
		w := m.scale(i) * countWeight(count(i))
		addScaled(v, m.rows[int(i)*m.dim:(int(i)+1)*m.dim], w)
	}
	return Normalize(v)
}

// countWeight is a token's weight for its count in a text, 1+ln(count),
// from a table for the counts most tokens have.
func countWeight(c int) float32 {
	if c < len(countWeights) {
		return countWeights[c]
	}
	return float32(1 + math.Log(float64(c)))
}

var countWeights = func() (t [64]float32) {
	for c := range t {
		t[c] = float32(1 + math.Log(float64(c)))
	}
	return t
}()

// addScaled adds w times row to v: in AVX2 where the CPU has it, else a
// plain loop. Each v[j] takes the same rounded product and sum either
// way, so vectors are bit for bit the same on every machine.
func addScaled(v []float32, row []int8, w float32) {
	v = v[:len(row)]
	if n := len(row) &^ 7; haveDot16 && n > 0 {
		addScaled8(&v[0], &row[0], w, n)
		v, row = v[n:], row[n:]
	}
	for j, q := range row {
		v[j] += w * float32(q)
	}
}

// Static is the built-in embedder backed by the static model.
type Static struct{ m *StaticModel }

// NewStatic returns the embedder of the model compiled into the binary.
func NewStatic() (*Static, error) {
	m, err := BuiltinStatic()
	if err != nil {
		return nil, err
	}
	return &Static{m: m}, nil
}

// StaticOf returns an embedder of m.
func StaticOf(m *StaticModel) *Static { return &Static{m: m} }

// Model implements Embedder.
func (s *Static) Model() string { return s.m.id }

// Dim implements Embedder.
func (s *Static) Dim() int { return s.m.dim }

// Embed implements Embedder.
func (s *Static) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if i%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out[i] = s.m.vector(t, len(texts) > 8)
	}
	return out, nil
}

// NewVectorizer implements InProcess.
func (s *Static) NewVectorizer() Vectorizer { return newStaticVectorizer(s.m) }

// staticVectorizer embeds texts one after another, keeping what it
// learnt of each distinct word: the model rows of its tokens. Source text
// repeats its words endlessly, and splitting, lowercasing, stemming and
// looking up a word's tokens cost more than adding its rows (on
// prometheus' cold build, embedding took a quarter of the CPU, most of it
// tokens). Counts are kept in a dense array by row. The vectors are those
// of StaticModel.Vector: the same rows, in the same order, with the same
// counts.
type staticVectorizer struct {
	m      *StaticModel
	words  map[string][]int32 // word -> rows of its known tokens
	counts []int32            // per row, in the text being embedded
	order  []int32            // rows in first-seen order
	wt     wordTokens
}

// maxVectorizerWords bounds a vectorizer's word cache, whatever a
// text holds. A build holds one vectorizer per CPU: at 2^17 words each
// the Go tree's cold build peaked 40 MB higher, and 2^15 keeps the words
// that repeat.
const maxVectorizerWords = 1 << 15

func newStaticVectorizer(m *StaticModel) *staticVectorizer {
	return &staticVectorizer{m: m, words: map[string][]int32{}, counts: make([]int32, m.n)}
}

func (v *staticVectorizer) Vector(s string) []float32 {
	v.order = v.order[:0]
	text.Words(s, func(w string) {
		rows, ok := v.words[w]
		if !ok {
			rows = []int32{}
			v.wt.each(w, func(tok string) {
				if i := v.m.lookup(tok, true); i >= 0 {
					rows = append(rows, i)
				}
			})
			if len(v.words) >= maxVectorizerWords {
				clear(v.words)
			}
			v.words[strings.Clone(w)] = rows
		}
		for _, i := range rows {
			if v.counts[i] == 0 {
				v.order = append(v.order, i)
			}
			v.counts[i]++
		}
	})
	out := v.m.sum(v.order, func(i int32) int { return int(v.counts[i]) })
	for _, i := range v.order {
		v.counts[i] = 0
	}
	return out
}

// bytesAsInt8 views b as int8s without copying (the model's rows stay in
// the binary's read-only data).
func bytesAsInt8(b []byte) []int8 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*int8)(unsafe.Pointer(&b[0])), len(b))
}

// Export returns the model's tokens and rows (as their int8 values times
// the row scale): what EncodeStatic takes.
func (m *StaticModel) Export() ([]string, [][]float32) {
	toks := make([]string, m.n)
	rows := make([][]float32, m.n)
	for i := range toks {
		toks[i] = m.token(i)
		r := make([]float32, m.dim)
		for j, q := range m.rows[i*m.dim : (i+1)*m.dim] {
			r[j] = float32(q) * m.scale(int32(i))
		}
		rows[i] = r
	}
	return toks, rows
}
