package index

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"github.com/konteks/git-konteks/internal/mmap"
)

// Segmented indexes: the index's own inverted indexes (of sections, and
// of whole files, see files.go), in place of bleve's. Their documents
// arrive analysed (a term and its frequency per field), so an index is
// little more than sorted postings; bleve spent a quarter of a cold
// build on making, merging and persisting segments of them, and a
// one-file update opened, copied and rewrote its bolt store.
//
// An index is a directory of immutable segments (N.kxs) and
// segments.json, which lists them with the documents deleted from each.
// A generation hard-links the previous generation's segments, adds one
// segment of its new documents and merges the small ones (updateSegs).
// Scores are bleve's BM25 to the bit (score): the ranker's weights were
// fitted on them.

// maxFields is the most fields a segmented index has (the sections':
// text, name and path).
const maxFields = 3

// docEntry is a document on its way into a segmented index: an id
// (a section's id, a file's path), and per field its analysed length
// (terms, repeats included) and its terms.
type docEntry struct {
	id    string
	lens  [maxFields]uint32
	terms [maxFields][]fileTerm
}

// fileTerm is a term of a document's field and how often it holds it.
type fileTerm struct {
	term string
	freq uint32
}

// segMagic opens and closes a segment file. A segment: the magic and the
// number of fields (u32); the postings (per term, uvarint pairs of
// document delta and frequency); the ids, then the terms, back to back;
// u32 arrays of id offsets (docs+1), lengths (docs×fields), documents in
// id order (docs), term offsets (terms+1), postings offsets (terms+1)
// and each term's document count (terms); then a footer of the number of
// documents and terms (u32), the postings' size (u64), the ids' and the
// terms' sizes (u32), and the magic. Documents are numbered in the order
// they were added; a term of an index of several fields is its field's
// number (one byte) then the term, so that the terms of a field sort
// together. Integers are little-endian.
//
// The footer lets a merge write the postings as it reads them. Offsets
// are checked when they are read, not when a segment opens: a query of
// a CLI call touches a few pages of a large segment, not all of its
// tables.
const segMagic = "KXS1"

const segFooter = 4 + 4 + 8 + 4 + 4 + 4

// segsManifest names an index's segments.
const segsManifest = "segments.json"

// segInfo is a segment in segments.json.
type segInfo struct {
	Name    string   `json:"name"`
	Docs    int      `json:"docs"`
	Deleted []uint32 `json:"deleted,omitempty"` // ordinals, ascending
	// Len is the total length of the segment's documents' first field,
	// deleted ones included: with the deleted documents' own, the live
	// length the merge policy weighs (see updateSegs).
	Len int64 `json:"len"`
}

type posting struct{ doc, freq uint32 }

// segBuilder collects documents and writes them as one segment. Its
// postings go, as they come, into chunks of a fixed size (each with its
// term's number), and are sorted by term when the segment is written: a
// slice per term grew by copying, and was a heap object of its own.
type segBuilder struct {
	nf     int
	ids    []string
	lens   []uint32 // nf per document
	terms  [maxFields]map[string]int32
	key    []string // per term number
	field  []uint8
	count  []uint32 // postings of each term
	chunks [][]termPosting
	npost  int
}

// termPosting is a posting of the term numbered term.
type termPosting struct{ term, doc, freq uint32 }

const postingChunk = 1 << 15

func newSegBuilder(nf int) *segBuilder {
	b := &segBuilder{nf: nf}
	for f := 0; f < nf; f++ {
		b.terms[f] = map[string]int32{}
	}
	return b
}

func (b *segBuilder) add(e *docEntry) {
	d := uint32(len(b.ids))
	b.ids = append(b.ids, e.id)
	b.lens = append(b.lens, e.lens[:b.nf]...)
	for f := 0; f < b.nf; f++ {
		m := b.terms[f]
		for _, t := range e.terms[f] {
			// A term is often a substring of the text it was found in
			// (see analyzer.wordTerms): the builder, which holds its
			// terms until it writes, keeps a copy, once.
			n, ok := m[t.term]
			if !ok {
				n = int32(len(b.key))
				b.key = append(b.key, strings.Clone(t.term))
				b.field = append(b.field, uint8(f))
				b.count = append(b.count, 0)
				m[b.key[n]] = n
			}
			b.count[n]++
			last := len(b.chunks) - 1
			if last < 0 || len(b.chunks[last]) == postingChunk {
				b.chunks = append(b.chunks, make([]termPosting, 0, postingChunk))
				last++
			}
			b.chunks[last] = append(b.chunks[last], termPosting{uint32(n), d, t.freq})
		}
		b.npost += len(e.terms[f])
	}
}

func (b *segBuilder) docs() int { return len(b.ids) }

// write writes the segment to path and returns its info: a document
// whose id a later one of the builder's repeats is deleted (the last
// wins, as bleve's batches).
func (b *segBuilder) write(path string) (segInfo, error) {
	byID := make([]uint32, len(b.ids))
	for i := range byID {
		byID[i] = uint32(i)
	}
	slices.SortStableFunc(byID, func(x, y uint32) int { return strings.Compare(b.ids[x], b.ids[y]) })
	info := segInfo{Name: filepath.Base(path), Docs: len(b.ids)}
	for i := 1; i < len(byID); i++ {
		if b.ids[byID[i]] == b.ids[byID[i-1]] {
			info.Deleted = append(info.Deleted, byID[i-1])
		}
	}
	slices.Sort(info.Deleted)
	for d := range b.ids {
		info.Len += int64(b.lens[d*b.nf])
	}
	// The terms in key order (field first), and each one's postings
	// gathered in that order: a counting sort, documents ascending
	// within a term as they were added.
	order := make([]int32, len(b.key))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(x, y int32) int {
		if b.field[x] != b.field[y] {
			return int(b.field[x]) - int(b.field[y])
		}
		return strings.Compare(b.key[x], b.key[y])
	})
	start := make([]uint32, len(b.key)+1)
	at := uint32(0)
	for _, n := range order {
		start[n] = at
		at += b.count[n]
	}
	sorted := make([]posting, at)
	next := slices.Clone(start[:len(b.key)])
	for i, c := range b.chunks {
		for _, p := range c {
			sorted[next[p.term]] = posting{p.doc, p.freq}
			next[p.term]++
		}
		b.chunks[i] = nil
	}
	err := mmap.Replace(path, func(w *bufio.Writer) error {
		sw := newSegWriter(w, b.nf)
		for _, n := range order {
			sw.startTerm(int(b.field[n]), b.key[n])
			for _, p := range sorted[start[n] : start[n]+b.count[n]] {
				sw.add(p.doc, p.freq)
			}
			sw.endTerm()
		}
		return sw.finish(len(b.ids), func(i int) string { return b.ids[i] }, b.lens, byID)
	})
	return info, err
}

// segWriter writes a segment: the postings as they come, term by term,
// then the tables.
type segWriter struct {
	w       *bufio.Writer
	nf      int
	size    uint64 // postings written
	keys    []byte
	keyOff  []uint32
	postOff []uint32
	df      []uint32
	// the term being written
	key0    int
	prev, n uint32
	err     error
	buf     [2 * binary.MaxVarintLen64]byte
}

func newSegWriter(w *bufio.Writer, nf int) *segWriter {
	w.WriteString(segMagic)
	sw := &segWriter{w: w, nf: nf, keyOff: []uint32{0}, postOff: []uint32{0}}
	sw.u32(uint32(nf))
	return sw
}

func (sw *segWriter) u32(v uint32) {
	var u [4]byte
	binary.LittleEndian.PutUint32(u[:], v)
	sw.w.Write(u[:])
}

// startTerm starts term of field f (see termKey).
func (sw *segWriter) startTerm(f int, term string) {
	sw.startKey("")
	if sw.nf > 1 {
		sw.keys = append(sw.keys, byte(f))
	}
	sw.keys = append(sw.keys, term...)
}

// add adds a posting of the current term; documents ascend.
func (sw *segWriter) add(doc, freq uint32) {
	k := binary.PutUvarint(sw.buf[:], uint64(doc-sw.prev))
	k += binary.PutUvarint(sw.buf[k:], uint64(freq))
	sw.w.Write(sw.buf[:k])
	sw.size += uint64(k)
	sw.prev = doc
	sw.n++
}

// endTerm ends the current term; a term without postings is dropped.
func (sw *segWriter) endTerm() {
	if sw.n == 0 {
		sw.keys = sw.keys[:sw.key0]
		return
	}
	if sw.size > math.MaxUint32 || len(sw.keys) > math.MaxUint32 {
		sw.err = errors.New("index: segment past 4 GiB")
	}
	sw.keyOff = append(sw.keyOff, uint32(len(sw.keys)))
	sw.postOff = append(sw.postOff, uint32(sw.size))
	sw.df = append(sw.df, sw.n)
}

// finish writes the tables and the footer.
func (sw *segWriter) finish(docs int, id func(int) string, lens []uint32, byID []uint32) error {
	if sw.err != nil {
		return sw.err
	}
	idLen := 0
	idOff := make([]uint32, 0, docs+1)
	idOff = append(idOff, 0)
	for i := 0; i < docs; i++ {
		s := id(i)
		sw.w.WriteString(s)
		idLen += len(s)
		if idLen > math.MaxUint32 {
			return errors.New("index: segment past 4 GiB")
		}
		idOff = append(idOff, uint32(idLen))
	}
	sw.w.Write(sw.keys)
	for _, a := range [][]uint32{idOff, lens, byID, sw.keyOff, sw.postOff, sw.df} {
		sw.w.Write(leBytes(a))
	}
	sw.u32(uint32(docs))
	sw.u32(uint32(len(sw.df)))
	var u [8]byte
	binary.LittleEndian.PutUint64(u[:], sw.size)
	sw.w.Write(u[:])
	sw.u32(uint32(idLen))
	sw.u32(uint32(len(sw.keys)))
	_, err := sw.w.WriteString(segMagic)
	return err
}

// seg is a mapped segment.
type seg struct {
	data  []byte
	unmap func() error
	nf    int
	docs  int
	terms int
	// byte offsets of the blobs and arrays in data, and the blobs' sizes
	postb, idb, keyb                       int
	postLen, idLen, keyLen                 int
	idOff, lens, byID, keyOff, postOff, df int
}

var errSegs = fmt.Errorf("%w: search index", errTable)

func openSeg(path string, nf int) (*seg, error) {
	data, unmap, err := mmap.File(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errSegs, err)
	}
	s := &seg{data: data, unmap: unmap}
	if err := s.parse(nf); err != nil {
		unmap()
		return nil, fmt.Errorf("%w: %s: %v", errSegs, filepath.Base(path), err)
	}
	return s, nil
}

// parse reads the footer and checks that the tables fill the file.
func (s *seg) parse(nf int) error {
	d := s.data
	if len(d) < 8+segFooter || string(d[:4]) != segMagic || string(d[len(d)-4:]) != segMagic {
		return errors.New("not a segment")
	}
	if got := int(binary.LittleEndian.Uint32(d[4:])); got != nf {
		return fmt.Errorf("%d fields, not %d", got, nf)
	}
	s.nf = nf
	f := d[len(d)-segFooter:]
	docs := uint64(binary.LittleEndian.Uint32(f))
	terms := uint64(binary.LittleEndian.Uint32(f[4:]))
	postLen := binary.LittleEndian.Uint64(f[8:])
	idLen := uint64(binary.LittleEndian.Uint32(f[16:]))
	keyLen := uint64(binary.LittleEndian.Uint32(f[20:]))
	arrays := (docs + 1) + docs*uint64(nf) + docs + (terms+1)*2 + terms
	if postLen > math.MaxUint32 || 8+postLen+idLen+keyLen+4*arrays+segFooter != uint64(len(d)) {
		return errors.New("size does not match its tables")
	}
	s.docs, s.terms = int(docs), int(terms)
	s.postLen, s.idLen, s.keyLen = int(postLen), int(idLen), int(keyLen)
	s.postb = 8
	s.idb = s.postb + s.postLen
	s.keyb = s.idb + s.idLen
	s.idOff = s.keyb + s.keyLen
	s.lens = s.idOff + 4*(s.docs+1)
	s.byID = s.lens + 4*s.docs*nf
	s.keyOff = s.byID + 4*s.docs
	s.postOff = s.keyOff + 4*(s.terms+1)
	s.df = s.postOff + 4*(s.terms+1)
	return nil
}

func (s *seg) u32(at, i int) uint32 {
	return binary.LittleEndian.Uint32(s.data[at+4*i:])
}

// span is the i-th range of a blob of size limit by the offsets at offs,
// or ok false when the offsets are out of order or range.
func (s *seg) span(offs, i, limit int) (lo, hi int, ok bool) {
	l, h := s.u32(offs, i), s.u32(offs, i+1)
	if l > h || int(h) > limit {
		return 0, 0, false
	}
	return int(l), int(h), true
}

// str is a string over the mapped bytes, valid while the segment is;
// "" when the offsets are damaged.
func (s *seg) str(base, offs, i, limit int) string {
	lo, hi, ok := s.span(offs, i, limit)
	if !ok || lo == hi {
		return ""
	}
	return unsafe.String(&s.data[base+lo], hi-lo)
}

func (s *seg) id(d int) string  { return s.str(s.idb, s.idOff, d, s.idLen) }
func (s *seg) key(t int) string { return s.str(s.keyb, s.keyOff, t, s.keyLen) }
func (s *seg) length(d, f int) uint32 {
	return s.u32(s.lens, d*s.nf+f)
}

// idAt is the document at place i of id order, or -1 when the table is
// damaged.
func (s *seg) idAt(i int) int {
	if d := s.u32(s.byID, i); int(d) < s.docs {
		return int(d)
	}
	return -1
}

func (s *seg) postings(t int) ([]byte, bool) {
	lo, hi, ok := s.span(s.postOff, t, s.postLen)
	if !ok {
		return nil, false
	}
	return s.data[s.postb+lo : s.postb+hi], true
}

// findKey returns the index of a term key, or -1.
func (s *seg) findKey(key string) int {
	i := sort.Search(s.terms, func(i int) bool { return s.key(i) >= key })
	if i < s.terms && s.key(i) == key {
		return i
	}
	return -1
}

// findID calls fn with each document whose id is id (a damaged entry of
// the id order, which reads as "", is none).
func (s *seg) findID(id string, fn func(d int)) {
	at := func(i int) string {
		if d := s.idAt(i); d >= 0 {
			return s.id(d)
		}
		return ""
	}
	for i := sort.Search(s.docs, func(i int) bool { return at(i) >= id }); i < s.docs && at(i) == id; i++ {
		if d := s.idAt(i); d >= 0 {
			fn(d)
		}
	}
}

// eachPosting calls fn with each document and frequency of term t.
func (s *seg) eachPosting(t int, fn func(doc, freq uint32)) error {
	b, ok := s.postings(t)
	if !ok {
		return errSegs
	}
	doc := uint64(0)
	for n := s.u32(s.df, t); n > 0; n-- {
		delta, k := binary.Uvarint(b)
		if k <= 0 {
			return errSegs
		}
		freq, j := binary.Uvarint(b[k:])
		if j <= 0 {
			return errSegs
		}
		b = b[k+j:]
		if doc += delta; doc >= uint64(s.docs) || freq > math.MaxUint32 {
			return errSegs
		}
		fn(uint32(doc), uint32(freq))
	}
	return nil
}

// termKey is the key of term in field f of an index of nf fields.
func termKey(nf, f int, term string) string {
	if nf == 1 {
		return term
	}
	return string(rune(f)) + term
}

// segIndex is an open segmented index: its segments and what is deleted
// in each.
type segIndex struct {
	nf   int
	segs []*seg
	info []segInfo
	dead [][]bool // per segment; nil when nothing is deleted
	live int
}

// openSegs opens the segmented index of nf fields in dir.
func openSegs(dir string, nf int) (*segIndex, error) {
	mb, err := os.ReadFile(filepath.Join(dir, segsManifest))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errSegs, err)
	}
	x := &segIndex{nf: nf}
	if err := json.Unmarshal(mb, &x.info); err != nil {
		return nil, fmt.Errorf("%w: %v", errSegs, err)
	}
	seen := make(map[string]bool, len(x.info))
	for _, in := range x.info {
		if strings.ContainsAny(in.Name, `/\`) || !strings.HasSuffix(in.Name, ".kxs") || seen[in.Name] {
			x.close()
			return nil, fmt.Errorf("%w: segment name %q", errSegs, in.Name)
		}
		seen[in.Name] = true
		s, err := openSeg(filepath.Join(dir, in.Name), nf)
		if err != nil {
			x.close()
			return nil, err
		}
		x.segs = append(x.segs, s)
		if s.docs != in.Docs {
			x.close()
			return nil, fmt.Errorf("%w: %s holds %d documents, not %d", errSegs, in.Name, s.docs, in.Docs)
		}
		var dead []bool
		for _, d := range in.Deleted {
			if int(d) >= s.docs {
				x.close()
				return nil, fmt.Errorf("%w: %s: deleted document %d of %d", errSegs, in.Name, d, s.docs)
			}
			if dead == nil {
				dead = make([]bool, s.docs)
			}
			if !dead[d] {
				dead[d] = true
				x.live--
			}
		}
		x.dead = append(x.dead, dead)
		x.live += s.docs
	}
	return x, nil
}

func (x *segIndex) close() error {
	if x == nil {
		return nil
	}
	var err error
	for _, s := range x.segs {
		if e := s.unmap(); err == nil {
			err = e
		}
	}
	x.segs = nil
	return err
}

func (x *segIndex) isDead(si int, doc uint32) bool {
	return x.dead[si] != nil && x.dead[si][doc]
}

// count is the number of live documents holding term t of segment si.
func (x *segIndex) count(si, t int) (int, error) {
	s := x.segs[si]
	if x.dead[si] == nil {
		return int(s.u32(s.df, t)), nil
	}
	n := 0
	err := s.eachPosting(t, func(doc, _ uint32) {
		if !x.isDead(si, doc) {
			n++
		}
	})
	return n, err
}

// docFreq is the number of live documents whose field f holds term.
func (x *segIndex) docFreq(f int, term string) int {
	key := termKey(x.nf, f, term)
	n := 0
	for si, s := range x.segs {
		if t := s.findKey(key); t >= 0 {
			c, _ := x.count(si, t)
			n += c
		}
	}
	return n
}

// prefixTerms lists up to limit terms of field f that start with prefix
// and that a live document holds, in term order, with their counts.
func (x *segIndex) prefixTerms(f int, prefix string, limit int) []TermCount {
	key := termKey(x.nf, f, prefix)
	skip := len(key) - len(prefix)
	at := make([]int, len(x.segs))
	for si, s := range x.segs {
		at[si] = sort.Search(s.terms, func(i int) bool { return s.key(i) >= key })
	}
	var out []TermCount
	for len(out) < limit {
		// The least key with the prefix over the segments' next ones.
		least := ""
		found := false
		for si, s := range x.segs {
			if at[si] < s.terms {
				if k := s.key(at[si]); strings.HasPrefix(k, key) && (!found || k < least) {
					least, found = k, true
				}
			}
		}
		if !found {
			break
		}
		n := 0
		for si, s := range x.segs {
			if at[si] < s.terms && s.key(at[si]) == least {
				c, _ := x.count(si, at[si])
				n += c
				at[si]++
			}
		}
		if n > 0 {
			out = append(out, TermCount{Term: strings.Clone(least[skip:]), Count: n})
		}
	}
	return out
}

// segsTo writes documents to a new segmented index, a segment whenever
// the postings held reach flushAt (so that a build's memory is bounded),
// writing one segment while the next fills; close merges them.
type segsTo struct {
	dir     string
	nf      int
	flushAt int
	b       *segBuilder
	info    []segInfo
	next    int
	writing chan segWritten // the segment being written, if any
}

type segWritten struct {
	in  segInfo
	err error
}

func newSegsTo(dir string, nf, flushAt int) (*segsTo, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return &segsTo{dir: dir, nf: nf, flushAt: flushAt, b: newSegBuilder(nf), next: 1}, nil
}

func (o *segsTo) add(e *docEntry) error {
	o.b.add(e)
	if o.b.npost >= o.flushAt {
		return o.flush()
	}
	return nil
}

// flush starts writing the builder's documents as a segment.
func (o *segsTo) flush() error {
	if err := o.wait(); err != nil {
		return err
	}
	if o.b.docs() == 0 {
		return nil
	}
	b, name := o.b, strconv.Itoa(o.next)+".kxs"
	o.next++
	o.b = newSegBuilder(o.nf)
	o.writing = make(chan segWritten, 1)
	go func() {
		in, err := b.write(filepath.Join(o.dir, name))
		o.writing <- segWritten{in, err}
	}()
	return nil
}

// wait waits for the segment being written and adds it to the index.
func (o *segsTo) wait() error {
	if o.writing == nil {
		return nil
	}
	w := <-o.writing
	o.writing = nil
	if w.err == nil {
		o.info = append(o.info, w.in)
	}
	return w.err
}

// close writes the last segment, merges the segments into one when
// there are several, and writes the manifest.
func (o *segsTo) close() error {
	if err := o.flush(); err != nil {
		o.wait()
		return err
	}
	if err := o.wait(); err != nil {
		return err
	}
	if len(o.info) > 1 {
		x := &segIndex{nf: o.nf, info: o.info}
		defer x.close()
		for _, in := range o.info {
			s, err := openSeg(filepath.Join(o.dir, in.Name), o.nf)
			if err != nil {
				return err
			}
			x.segs = append(x.segs, s)
		}
		name := strconv.Itoa(o.next) + ".kxs"
		in, err := mergeSegs(filepath.Join(o.dir, name), x.segs, x.info)
		if err != nil {
			return err
		}
		for _, old := range o.info {
			os.Remove(filepath.Join(o.dir, old.Name))
		}
		o.info = []segInfo{in}
	}
	if o.info == nil {
		o.info = []segInfo{}
	}
	return writeSegsManifest(o.dir, o.info)
}

func writeSegsManifest(dir string, info []segInfo) error {
	return mmap.Replace(filepath.Join(dir, segsManifest), func(w *bufio.Writer) error {
		return json.NewEncoder(w).Encode(info)
	})
}

// tailSegments is how many segments updates add after the first before
// they are merged. Merged at every update, the tail was rewritten by
// every one-file run; merged every eighth time, each segment is
// rewritten about once, and a query visits up to eight more small
// segments.
var tailSegments = 8

// tailShare: the tail merges with the first segment once its live length
// is a tailShare-th of the first's, so that the first stays most of the
// index and a query visits few segments past it (0: never).
var tailShare int64 = 8 // a variable for the tests only

// updateSegs writes to dir the segmented index of oldDir less the live
// documents whose ids are in gone, plus fresh. The old segments are
// hard-linked, fresh becomes a segment of its own, and the segments
// after the first are merged once there are tailSegments of them, or
// with the first once they hold an eighth of its live length.
func updateSegs(oldDir, dir string, nf int, gone []string, fresh []*docEntry) error {
	old, err := openSegs(oldDir, nf)
	if err != nil {
		return err
	}
	defer old.close()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	info := make([]segInfo, len(old.info))
	next := 1
	for i, in := range old.info {
		s := old.segs[i]
		del := slices.Clone(in.Deleted)
		for _, id := range gone {
			s.findID(id, func(d int) {
				if !old.isDead(i, uint32(d)) {
					del = append(del, uint32(d))
				}
			})
		}
		slices.Sort(del)
		info[i] = in
		info[i].Deleted = slices.Compact(del)
		if err := linkFile(filepath.Join(oldDir, in.Name), filepath.Join(dir, in.Name)); err != nil {
			return err
		}
		if k, err := strconv.Atoi(strings.TrimSuffix(in.Name, ".kxs")); err == nil && k >= next {
			next = k + 1
		}
	}
	segs := slices.Clone(old.segs)
	if len(fresh) > 0 {
		b := newSegBuilder(nf)
		for _, e := range fresh {
			b.add(e)
		}
		name := strconv.Itoa(next) + ".kxs"
		next++
		in, err := b.write(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		s, err := openSeg(filepath.Join(dir, name), nf)
		if err != nil {
			return err
		}
		defer s.unmap()
		segs = append(segs, s)
		info = append(info, in)
	}
	// What to merge: the tail once it is long, everything once the tail
	// is large.
	liveLen := func(i int) int64 {
		n := info[i].Len
		for _, d := range info[i].Deleted {
			n -= int64(segs[i].length(int(d), 0))
		}
		return n
	}
	from := -1
	if len(segs) > 1 {
		tail := int64(0)
		for i := 1; i < len(segs); i++ {
			tail += liveLen(i)
		}
		switch {
		case tail*tailShare > liveLen(0):
			from = 0
		case len(segs)-1 >= tailSegments:
			from = 1
		}
	}
	if from >= 0 {
		name := strconv.Itoa(next) + ".kxs"
		in, err := mergeSegs(filepath.Join(dir, name), segs[from:], info[from:])
		if err != nil {
			return err
		}
		for _, old := range info[from:] {
			os.Remove(filepath.Join(dir, old.Name))
		}
		info = append(info[:from], in)
	}
	return writeSegsManifest(dir, info)
}

// mergeSegs writes the live documents of segs to one segment at path,
// in segment order, and returns its info. Of documents with the same id
// in several segments, the last segment's is kept.
func mergeSegs(path string, segs []*seg, info []segInfo) (segInfo, error) {
	nf := segs[0].nf
	drop := make([][]bool, len(segs))
	for si, s := range segs {
		drop[si] = make([]bool, s.docs)
		for _, d := range info[si].Deleted {
			if int(d) < s.docs {
				drop[si][d] = true
			}
		}
	}
	// Walk the ids of every segment in order at once: of an id that
	// several hold, the earlier segments' documents go.
	type place struct {
		seg int32
		doc uint32
	}
	cur := make([]int, len(segs))
	var order []place // the kept documents in id order
	// Opening checks none of the id order, and the merge reads all of
	// it: ids that do not ascend (an entry repeated or out of place)
	// are damage, refused rather than written into a segment that hides
	// it (see the count below).
	prev := ""
	next := func(si int) int {
		s := segs[si]
		for ; cur[si] < s.docs; cur[si]++ {
			if d := s.idAt(cur[si]); d < 0 {
				return -2
			} else if !drop[si][d] {
				return d
			}
		}
		return -1
	}
	for {
		least, lsi, ld := "", -1, -1
		for si := range segs {
			d := next(si)
			if d == -2 {
				return segInfo{}, errSegs
			}
			if d < 0 {
				continue
			}
			id := segs[si].id(d)
			switch {
			case lsi < 0 || id < least:
				least, lsi, ld = id, si, d
			case id == least:
				drop[lsi][ld] = true // a later segment's wins
				cur[lsi]++
				lsi, ld = si, d
			}
		}
		if lsi < 0 {
			break
		}
		if len(order) > 0 && least <= prev {
			return segInfo{}, errSegs
		}
		prev = least
		order = append(order, place{int32(lsi), uint32(ld)})
		cur[lsi]++
	}
	// Ordinals in segment order.
	newOrd := make([][]int32, len(segs))
	var byOrd []place
	var lens []uint32
	out := segInfo{Name: filepath.Base(path)}
	for si, s := range segs {
		newOrd[si] = make([]int32, s.docs)
		for d := 0; d < s.docs; d++ {
			if drop[si][d] {
				newOrd[si][d] = -1
				continue
			}
			newOrd[si][d] = int32(len(byOrd))
			byOrd = append(byOrd, place{int32(si), uint32(d)})
			for f := 0; f < nf; f++ {
				lens = append(lens, s.length(d, f))
			}
			out.Len += int64(s.length(d, 0))
		}
	}
	out.Docs = len(byOrd)
	// Each kept document once in id order: an entry missing from the
	// order leaves it shorter than the documents.
	if len(order) != len(byOrd) {
		return segInfo{}, errSegs
	}
	byID := make([]uint32, len(order))
	for i, p := range order {
		o := newOrd[p.seg][p.doc]
		if o < 0 {
			return segInfo{}, errSegs
		}
		byID[i] = uint32(o)
	}
	err := mmap.Replace(path, func(w *bufio.Writer) error {
		sw := newSegWriter(w, nf)
		at := make([]int, len(segs))
		for {
			least, found := "", false
			for si, s := range segs {
				if at[si] < s.terms {
					if k := s.key(at[si]); !found || k < least {
						least, found = k, true
					}
				}
			}
			if !found {
				break
			}
			// The key's bytes are the writer's own: it copies them.
			sw.startKey(least)
			for si, s := range segs {
				if at[si] >= s.terms || s.key(at[si]) != least {
					continue
				}
				no := newOrd[si]
				err := s.eachPosting(at[si], func(doc, freq uint32) {
					if o := no[doc]; o >= 0 {
						sw.add(uint32(o), freq)
					}
				})
				if err != nil {
					return err
				}
				at[si]++
			}
			sw.endTerm()
		}
		return sw.finish(len(byOrd), func(i int) string { return segs[byOrd[i].seg].id(int(byOrd[i].doc)) }, lens, byID)
	})
	return out, err
}

// startKey starts a term by its key, field byte included.
func (sw *segWriter) startKey(key string) {
	sw.key0 = len(sw.keys)
	sw.keys = append(sw.keys, key...)
	sw.prev, sw.n = 0, 0
}

// linkFile hard-links src to dst, or copies it where links fail. An
// existing dst is an error: it may be a link to src's own inode, which a
// copy would truncate.
func linkFile(src, dst string) error {
	err := os.Link(src, dst)
	if err == nil || errors.Is(err, os.ErrExist) {
		return err
	}
	return copyFile(src, dst)
}
