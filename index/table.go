package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/konteks/git-konteks/internal/mmap"
)

// Doc is one indexed section, as the docs table keeps it: enough to rank
// and to find the record it came from, not its text.
type Doc struct {
	ID        string // path + "#" + anchor: the sections index's document id
	Path      string
	Anchor    string
	Kind      string // code, markdown, json, yaml, toml, text
	Symbol    string // function, method, type, heading, key, file, ...
	Language  string
	Name      string
	QName     string
	StartLine int
	EndLine   int
	Topics    []string
	Summary   string // one line: what the section is
	Blob      string // source blob id of the file (hex), for its text

	lens [3]int // analysed length of the text, name and path fields
	// print is what the section's document is made of, hashed (see
	// printOf); zero when unknown.
	print docPrint
}

// docID is the document id of a section.
func docID(path, anchor string) string { return path + "#" + anchor }

// The docs table (docs.bin): every section of the memory, sorted by id, so
// a hit's id is found by binary search and a path's sections are one
// contiguous run. It is read through mmap: opening costs nothing however
// large the memory is.
//
//	"KXD1" | count uint32 | offsets [count+1]uint32 | records
//	record: uvarint pathLen | uvarint len+bytes for id, kind, symbol,
//	        language, name, qname, summary, blob | uvarint start, end,
//	        text, name and path lengths | 16 bytes print | uvarint
//	        nTopics, then len+bytes per topic
const docsMagic = "KXD4"

// appendDoc appends the record of one doc.
func appendDoc(data []byte, d *Doc) []byte {
	str := func(s string) {
		data = binary.AppendUvarint(data, uint64(len(s)))
		data = append(data, s...)
	}
	data = binary.AppendUvarint(data, uint64(len(d.Path)))
	str(d.ID)
	str(d.Kind)
	str(d.Symbol)
	str(d.Language)
	str(d.Name)
	str(d.QName)
	str(d.Summary)
	str(d.Blob)
	data = binary.AppendUvarint(data, uint64(d.StartLine))
	data = binary.AppendUvarint(data, uint64(d.EndLine))
	for _, l := range d.lens {
		data = binary.AppendUvarint(data, uint64(l))
	}
	data = append(data, d.print[:]...)
	data = binary.AppendUvarint(data, uint64(len(d.Topics)))
	for _, t := range d.Topics {
		str(t)
	}
	return data
}

// docFile is one docs file, its records by ordinal.
type docFile struct {
	buf  []byte
	n    int
	offs []byte // (n+1) little-endian uint32
	data []byte
}

// docTable is a generation's docs: a docs file alone, or a base file
// less some of its docs and an overlay file beside it (see layers.go).
// Its ordinals are the docs' ranks by id either way, so that every
// ranking, ties included, is the one a single table of the same docs
// gives.
type docTable struct {
	n    int
	base *docFile
	// over and order are the overlay and the ordinals' places: order[i]
	// is the base's ordinal of doc i, or overBit and the overlay's. nil
	// for a table of the base alone, every doc of it live.
	over  *docFile
	order []uint32
	unmap func() error
	// cached holds docs decoded already (see cachedDoc); nil until the
	// first.
	cached atomic.Pointer[docSlots]
}

// docSlots are the decoded docs of a table, by ordinal. A map, not an
// array of the table's length: a query decodes a couple of thousand docs
// scattered over the table, and an array of a pointer per doc (a
// megabyte on the Go tree) faulted in a fresh page at nearly every one
// it stored, more CPU than the decoding it saved.
type docSlots struct {
	mu   sync.RWMutex
	docs map[int]*Doc
}

// count is how many docs s holds.
func (s *docSlots) count() int64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return int64(len(s.docs))
}

// maxCachedDocs bounds the docs a table keeps decoded (about 500 bytes
// each): past it, it starts over. (A variable for the tests.)
var maxCachedDocs int64 = 1 << 15

var errTable = errors.New("index table is damaged")

// parseDocs reads a docs file as a table of its own.
func parseDocs(buf []byte) (*docTable, error) {
	f, err := parseDocFile(buf)
	if err != nil {
		return nil, err
	}
	return &docTable{n: f.n, base: f}, nil
}

func parseDocFile(buf []byte) (*docFile, error) {
	if len(buf) < 8 || string(buf[:4]) != docsMagic {
		return nil, fmt.Errorf("%w: docs header", errTable)
	}
	n := int(binary.LittleEndian.Uint32(buf[4:]))
	if n < 0 || 8+4*(n+1) > len(buf) {
		return nil, fmt.Errorf("%w: docs count", errTable)
	}
	f := &docFile{buf: buf, n: n, offs: buf[8 : 8+4*(n+1)], data: buf[8+4*(n+1):]}
	if int(f.off(n)) != len(f.data) {
		return nil, fmt.Errorf("%w: docs size", errTable)
	}
	return f, nil
}

func (f *docFile) off(i int) uint32 { return binary.LittleEndian.Uint32(f.offs[4*i:]) }

func (f *docFile) record(i int) []byte {
	if i < 0 || i >= f.n {
		return nil
	}
	a, b := f.off(i), f.off(i+1)
	if a > b || int(b) > len(f.data) {
		return nil
	}
	return f.data[a:b]
}

// idBytes is the id of the file's doc i (see docTable.idBytes).
func (f *docFile) idBytes(i int) []byte { return recordID(f.record(i)) }

// id is the id of the file's doc i.
func (f *docFile) id(i int) string { return string(f.idBytes(i)) }

// place is where doc i of the table is: in the overlay or the base, and
// its ordinal there (-1 out of range).
func (t *docTable) place(i int) (over bool, j int) {
	if i < 0 || i >= t.n {
		return false, -1
	}
	if t.order == nil {
		return false, i
	}
	o := t.order[i]
	return o&overBit != 0, int(o &^ overBit)
}

func (t *docTable) record(i int) []byte {
	over, j := t.place(i)
	if over {
		if t.over == nil {
			return nil
		}
		return t.over.record(j)
	}
	return t.base.record(j)
}

type reader struct {
	b   []byte
	bad bool
}

func (r *reader) uv() int {
	v, k := binary.Uvarint(r.b)
	if k <= 0 || v > uint64(len(r.b))+1<<31 {
		r.bad = true
		r.b = nil
		return 0
	}
	r.b = r.b[k:]
	return int(v)
}

// bytes reads a length-prefixed field as a slice of the reader's bytes.
func (r *reader) bytes() []byte {
	n := r.uv()
	if n > len(r.b) {
		r.bad = true
		r.b = nil
		return nil
	}
	b := r.b[:n]
	r.b = r.b[n:]
	return b
}

func (r *reader) str() string { return string(r.bytes()) }

// print reads a doc's print (zero in a short record).
func (r *reader) print() docPrint {
	var p docPrint
	if len(r.b) < len(p) {
		r.bad = true
		r.b = nil
		return p
	}
	copy(p[:], r.b)
	r.b = r.b[len(p):]
	return p
}

// id returns the id of doc i without decoding the rest.
func (t *docTable) id(i int) string { return string(t.idBytes(i)) }

// idBytes returns the id of doc i as it is in the table (not a copy: for
// comparisons only).
func (t *docTable) idBytes(i int) []byte { return recordID(t.record(i)) }

// recordID is the doc id in a record (see appendDoc: the path's length, then
// the id).
func recordID(rec []byte) []byte {
	r := reader{b: rec}
	r.uv()
	n := r.uv()
	if n > len(r.b) {
		return nil
	}
	return r.b[:n]
}

// startLine returns the start line of doc i without decoding the rest.
func (t *docTable) startLine(i int) int {
	r := reader{b: t.record(i)}
	r.uv()
	for k := 0; k < 8; k++ { // id, kind, symbol, language, name, qname, summary, blob
		n := r.uv()
		if n > len(r.b) {
			return 0
		}
		r.b = r.b[n:]
	}
	return r.uv()
}

// language returns the language of doc i without decoding the rest.
func (t *docTable) language(i int) string {
	r := reader{b: t.record(i)}
	r.uv()
	for k := 0; k < 3; k++ { // id, kind, symbol
		n := r.uv()
		if n > len(r.b) {
			return ""
		}
		r.b = r.b[n:]
	}
	return r.str()
}

// doc decodes doc i.
func (t *docTable) doc(i int) Doc { return decodeDoc(t.record(i)) }

// print returns the print of doc i without decoding the rest (zero when
// the record is short).
func (t *docTable) print(i int) docPrint {
	r := reader{b: t.record(i)}
	r.uv()
	for range 8 { // id, kind, symbol, language, name, qname, summary, blob
		r.bytes()
	}
	for range 5 { // start and end lines, three field lengths
		r.uv()
	}
	return r.print()
}

// decodeDoc decodes a record of the table (see appendDoc).
func decodeDoc(rec []byte) Doc {
	r := reader{b: rec}
	pl := r.uv()
	var d Doc
	d.ID = r.str()
	d.Kind, d.Symbol, d.Language, d.Name, d.QName = r.str(), r.str(), r.str(), r.str(), r.str()
	d.Summary, d.Blob = r.str(), r.str()
	d.StartLine, d.EndLine = r.uv(), r.uv()
	d.lens = [3]int{r.uv(), r.uv(), r.uv()}
	d.print = r.print()
	if n := r.uv(); n <= 64 {
		for j := 0; j < n; j++ {
			d.Topics = append(d.Topics, r.str())
		}
	}
	if pl <= len(d.ID) && len(d.ID) > pl && d.ID[pl] == '#' {
		d.Path, d.Anchor = d.ID[:pl], d.ID[pl+1:]
	}
	return d
}

// statDoc decodes of a doc record only what docStats reads: its path,
// language and field lengths, as strings that share rec (no copy; rec
// must outlive them and not change).
func statDoc(rec []byte) Doc {
	r := reader{b: rec}
	pl := r.uv()
	var d Doc
	id := r.view()
	r.view() // kind
	r.view() // symbol
	d.Language = r.view()
	for range 4 { // name, qualified name, summary, blob
		r.view()
	}
	r.uv() // start and end lines
	r.uv()
	d.lens = [3]int{r.uv(), r.uv(), r.uv()}
	if pl < len(id) && id[pl] == '#' {
		d.Path = id[:pl]
	}
	return d
}

// view is str without the copy: the string shares the reader's bytes.
func (r *reader) view() string {
	b := r.bytes()
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// cachedDoc is doc(i), decoded once: ranking one query reads the same
// couple of thousand docs several times over (fusion, boosts, graph and
// history signals, the hits), and a long-lived searcher (the MCP server)
// the same ones again for the next query. A table is one generation of
// the index and never changes, so what it decoded stays true for as long
// as the table is open. Safe for concurrent use.
func (t *docTable) cachedDoc(i int) Doc {
	if i < 0 || i >= t.n {
		return t.doc(i)
	}
	s := t.cached.Load()
	if s == nil {
		s = &docSlots{docs: map[int]*Doc{}}
		if !t.cached.CompareAndSwap(nil, s) {
			s = t.cached.Load()
			if s == nil {
				return t.doc(i)
			}
		}
	}
	s.mu.RLock()
	c := s.docs[i]
	s.mu.RUnlock()
	if c != nil {
		return *c
	}
	d := t.doc(i)
	// The topics are shared by every copy handed out: an append must not
	// write into them.
	d.Topics = slices.Clip(d.Topics)
	s.mu.Lock()
	if int64(len(s.docs)) >= maxCachedDocs {
		s.mu.Unlock()
		t.cached.CompareAndSwap(s, nil)
		return d
	}
	c = new(Doc)
	*c = d
	s.docs[i] = c
	s.mu.Unlock()
	return d
}

// find returns the ordinal of the doc with this id, or -1. (The
// comparisons of string(idBytes) do not copy.)
func (t *docTable) find(id string) int {
	i := sort.Search(t.n, func(i int) bool { return string(t.idBytes(i)) >= id })
	if i < t.n && string(t.idBytes(i)) == id {
		return i
	}
	return -1
}

// pathRange returns the ordinals [lo, hi) of a path's docs.
func (t *docTable) pathRange(path string) (int, int) {
	prefix := []byte(path + "#")
	lo := sort.Search(t.n, func(i int) bool { return bytes.Compare(t.idBytes(i), prefix) >= 0 })
	hi := lo
	for hi < t.n && bytes.HasPrefix(t.idBytes(hi), prefix) {
		hi++
	}
	return lo, hi
}

func (t *docTable) close() error {
	if t == nil || t.unmap == nil {
		return nil
	}
	return t.unmap()
}

// The vector table (vectors.bin): the quantized vectors of every doc, for
// nearest-neighbour search. A doc has one vector, or one per chunk for a
// large section. Each vector also has a ternary sketch — one bit set for
// each clearly positive component, one for each clearly negative one —
// that lets a search estimate every cosine with a few AND/POPCNT
// instructions and score exactly only the few thousand most promising.
// (Plain sign bits fail here: hashed text vectors are sparse, and zeros
// would dominate the Hamming distance.)
//
//	"KXV3" | dim uint32 | count uint32 | modelLen uint32 | model, padded to 8 |
//	docs [count]uint32 | scales [count]float32 | sketch [count*2*words]uint64 |
//	q [count*dim]int8          (words = (dim+63)/64; positive words, then negative)
const vecsMagic = "KXV3"

type vecTable struct {
	model  string
	dim    int
	words  int
	n      int
	docs   []uint32
	scales []float32
	bits   []uint64
	q      []int8
	buf    []byte // the whole file, as mapped
	// rawScales and rawBits are the scales' and sketches' bytes as the
	// file holds them (little-endian): an update copies them as they are.
	rawScales, rawBits []byte
	unmap              func() error
}

type vecRow struct {
	doc   uint32
	scale float32
	q     []int8
	bits  []uint64 // its sketch, when known already
}

// sketchLevel is the magnitude (of 127) a component needs to count in the
// sketch.
const sketchLevel = 8

// sketch appends the ternary sketch of q: the words of its positive bits,
// then the words of its negative bits.
func sketch(out []uint64, q []int8) []uint64 {
	words := (len(q) + 63) / 64
	start := len(out)
	out = append(out, make([]uint64, 2*words)...)
	pos, neg := out[start:start+words], out[start+words:]
	for w := 0; w < words; w++ {
		var p, n uint64
		for i, v := range q[w*64 : min(len(q), (w+1)*64)] {
			if v >= sketchLevel {
				p |= 1 << uint(i)
			} else if v <= -sketchLevel {
				n |= 1 << uint(i)
			}
		}
		pos[w], neg[w] = p, n
	}
	return out
}

func vecHeader(model string) int { return 16 + (len(model)+7)/8*8 }

// appendVecs writes the vector table of rows to w, section by section of
// the format, without a copy of the table in memory: on the Go tree the
// table is 38 MB, and a cold build wrote it at its peak of memory.
func appendVecs(w io.Writer, model string, dim int, rows []vecRow) error {
	hdr := make([]byte, vecHeader(model))
	copy(hdr, vecsMagic)
	binary.LittleEndian.PutUint32(hdr[4:], uint32(dim))
	binary.LittleEndian.PutUint32(hdr[8:], uint32(len(rows)))
	binary.LittleEndian.PutUint32(hdr[12:], uint32(len(model)))
	copy(hdr[16:], model)
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	words := (dim + 63) / 64
	var b []byte
	flush := func() error {
		_, err := w.Write(b)
		b = b[:0]
		return err
	}
	for _, r := range rows {
		b = binary.LittleEndian.AppendUint32(b, r.doc)
	}
	for _, r := range rows {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(r.scale))
	}
	if err := flush(); err != nil {
		return err
	}
	var bits []uint64
	for _, r := range rows {
		bits = r.bits
		if len(bits) != 2*words {
			bits = sketch(bits[:0], r.q)
		}
		if _, err := w.Write(leBytes(bits)); err != nil {
			return err
		}
	}
	for _, r := range rows {
		if _, err := w.Write(asBytes(r.q)); err != nil {
			return err
		}
	}
	return nil
}

func parseVecs(buf []byte, ndocs int) (*vecTable, error) {
	if len(buf) < 16 || string(buf[:4]) != vecsMagic {
		return nil, fmt.Errorf("%w: vectors header", errTable)
	}
	dim := int(binary.LittleEndian.Uint32(buf[4:]))
	n := int(binary.LittleEndian.Uint32(buf[8:]))
	ml := int(binary.LittleEndian.Uint32(buf[12:]))
	if dim < 0 || dim > 1<<16 || n < 0 || n > 1<<30 || ml > 1024 {
		return nil, fmt.Errorf("%w: vectors size", errTable)
	}
	hdr := 16 + (ml+7)/8*8
	words := (dim + 63) / 64
	if len(buf) < hdr || len(buf) != hdr+n*(8+16*words+dim) {
		return nil, fmt.Errorf("%w: vectors size", errTable)
	}
	t := &vecTable{model: string(buf[16 : 16+ml]), dim: dim, words: words, n: n, buf: buf}
	p := buf[hdr:]
	if n > 0 {
		off := 8 * n // a multiple of 8 after an 8-aligned header: the sketch is aligned
		t.rawScales, t.rawBits = p[4*n:8*n], p[off:off+16*words*n]
		if mmap.LittleEndian {
			t.docs = unsafe.Slice((*uint32)(unsafe.Pointer(&p[0])), n)
			t.scales = unsafe.Slice((*float32)(unsafe.Pointer(&p[4*n])), n)
			if words > 0 {
				t.bits = unsafe.Slice((*uint64)(unsafe.Pointer(&p[off])), 2*n*words)
			}
		} else {
			// The file is little-endian; this machine reads copies.
			t.docs, t.scales, t.bits = make([]uint32, n), make([]float32, n), make([]uint64, 2*n*words)
			for i := range t.docs {
				t.docs[i] = binary.LittleEndian.Uint32(p[4*i:])
				t.scales[i] = math.Float32frombits(binary.LittleEndian.Uint32(p[4*n+4*i:]))
			}
			for i := range t.bits {
				t.bits[i] = binary.LittleEndian.Uint64(p[off+8*i:])
			}
		}
		off += 16 * words * n
		if dim > 0 {
			t.q = unsafe.Slice((*int8)(unsafe.Pointer(&p[off])), n*dim)
		}
	}
	for _, d := range t.docs {
		if int(d) >= ndocs {
			return nil, fmt.Errorf("%w: vector of doc %d of %d", errTable, d, ndocs)
		}
	}
	return t, nil
}

func (t *vecTable) close() error {
	if t == nil || t.unmap == nil {
		return nil
	}
	return t.unmap()
}

// mapFile maps a table read-only. Tables are little-endian; a
// little-endian host reads their arrays in place, another reads copies
// (see parseVecs, leBytes).
var mapFile = mmap.File
