package index

import (
	"bufio"
	"cmp"
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

// The files index: one document per file, whose terms are those of all of
// the file's sections' text plus its path (see fileField), ranked by BM25
// (Files). It is the index's own rather than a bleve index: bleve spent
// about a seventh of a cold build's CPU on it (prometheus: 0.6-0.8 s of
// 4.9 s), building and merging segments of one field whose documents
// arrive analysed. Its scores are bleve's BM25 to the bit
// (TestFilesScoreAsBleve): the ranker's weights were fitted on them.
//
// It lives in the generation's files/ directory as segments (N.kxf) and
// segments.json, which lists them with the documents an update deleted
// from each. A segment is never modified: an update hard-links the old
// generation's segments, adds one of the changed files and merges small
// ones (see updateFiles), as bleve's segments are handled.

// fileEntry is a whole file's document on its way into the files index.
type fileEntry struct {
	path   string
	length int // analysed terms, repeats included
	terms  []fileTerm
}

// fileTerm is a term of a file and how often the file holds it.
type fileTerm struct {
	term string
	freq uint32
}

// fileSegMagic starts a segment file. A segment: the magic; the number of
// documents and of terms (u32); then u32 arrays: path offsets (docs+1),
// analysed lengths (docs), term offsets (terms+1), postings offsets
// (terms+1) and each term's document count (terms); then the paths, the
// terms and the postings (per term, uvarint pairs of document delta and
// frequency). Documents are in path order, terms in byte order, all
// integers little-endian.
const fileSegMagic = "KXF1"

// filesManifest names a files index's segments.
const filesManifest = "segments.json"

// fileSegInfo is a segment in segments.json.
type fileSegInfo struct {
	Name    string   `json:"name"`
	Docs    int      `json:"docs"`
	Deleted []uint32 `json:"deleted,omitempty"` // ordinals, ascending
}

type filePosting struct{ doc, freq uint32 }

// fileBuilder collects documents and postings and writes one segment.
// Documents may arrive in any order; the segment holds them by path.
type fileBuilder struct {
	paths []string
	lens  []uint32
	post  map[string]*[]filePosting
}

func newFileBuilder() *fileBuilder {
	return &fileBuilder{post: map[string]*[]filePosting{}}
}

func (b *fileBuilder) addDoc(path string, length int) uint32 {
	b.paths = append(b.paths, path)
	b.lens = append(b.lens, uint32(length))
	return uint32(len(b.paths) - 1)
}

func (b *fileBuilder) addPosting(term string, doc, freq uint32) {
	// A term is often a substring of the text it was found in (see
	// analyzer.wordTerms): the builder, which holds its terms through a
	// build, keeps a copy. It is never stored again: a map assignment
	// would replace the key with the string assigned.
	ps := b.post[term]
	if ps == nil {
		ps = new([]filePosting)
		b.post[strings.Clone(term)] = ps
	}
	*ps = append(*ps, filePosting{doc, freq})
}

// add adds a file's document.
func (b *fileBuilder) add(e *fileEntry) {
	d := b.addDoc(e.path, e.length)
	for _, t := range e.terms {
		b.addPosting(t.term, d, t.freq)
	}
}

// write writes the segment to path.
func (b *fileBuilder) write(path string) error {
	order := make([]uint32, len(b.paths))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(x, y uint32) int { return strings.Compare(b.paths[x], b.paths[y]) })
	rank := make([]uint32, len(order))
	for r, d := range order {
		rank[d] = uint32(r)
	}
	terms := make([]string, 0, len(b.post))
	for t := range b.post {
		terms = append(terms, t)
	}
	sort.Strings(terms)
	var postings []byte
	postOff := make([]uint32, 0, len(terms)+1)
	df := make([]uint32, 0, len(terms))
	for _, t := range terms {
		ps := *b.post[t]
		for i := range ps {
			ps[i].doc = rank[ps[i].doc]
		}
		slices.SortFunc(ps, func(x, y filePosting) int { return cmp.Compare(x.doc, y.doc) })
		postOff = append(postOff, uint32(len(postings)))
		df = append(df, uint32(len(ps)))
		prev := uint32(0)
		for _, p := range ps {
			postings = binary.AppendUvarint(postings, uint64(p.doc-prev))
			postings = binary.AppendUvarint(postings, uint64(p.freq))
			prev = p.doc
		}
	}
	postOff = append(postOff, uint32(len(postings)))
	pathLen, termLen := 0, 0
	for _, p := range b.paths {
		pathLen += len(p)
	}
	for _, t := range terms {
		termLen += len(t)
	}
	if uint64(pathLen)|uint64(termLen)|uint64(len(postings)) > math.MaxUint32 {
		return fmt.Errorf("index: files segment past 4 GiB")
	}
	return mmap.Replace(path, func(w *bufio.Writer) error {
		var u [4]byte
		put := func(v uint32) {
			binary.LittleEndian.PutUint32(u[:], v)
			w.Write(u[:])
		}
		w.WriteString(fileSegMagic)
		put(uint32(len(order)))
		put(uint32(len(terms)))
		off := uint32(0)
		put(0)
		for _, d := range order {
			off += uint32(len(b.paths[d]))
			put(off)
		}
		for _, d := range order {
			put(b.lens[d])
		}
		off = 0
		put(0)
		for _, t := range terms {
			off += uint32(len(t))
			put(off)
		}
		for _, o := range postOff {
			put(o)
		}
		for _, n := range df {
			put(n)
		}
		for _, d := range order {
			w.WriteString(b.paths[d])
		}
		for _, t := range terms {
			w.WriteString(t)
		}
		_, err := w.Write(postings)
		return err
	})
}

// fileSeg is a mapped segment.
type fileSeg struct {
	data  []byte
	unmap func() error
	docs  int
	terms int
	// byte offsets of the arrays and blobs in data
	pathOff, lens, termOff, postOff, df int
	pathb, termb, postb                 int
}

var errFiles = fmt.Errorf("%w: files index", errTable)

func openFileSeg(path string) (*fileSeg, error) {
	data, unmap, err := mmap.File(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errFiles, err)
	}
	s := &fileSeg{data: data, unmap: unmap}
	if err := s.parse(); err != nil {
		unmap()
		return nil, fmt.Errorf("%w: %s: %v", errFiles, filepath.Base(path), err)
	}
	return s, nil
}

// parse checks the segment's layout: every offset in range and in order,
// so that lookups need no checks but the postings' own.
func (s *fileSeg) parse() error {
	d := s.data
	if len(d) < 12 || string(d[:4]) != fileSegMagic {
		return errors.New("not a files segment")
	}
	s.docs = int(binary.LittleEndian.Uint32(d[4:]))
	s.terms = int(binary.LittleEndian.Uint32(d[8:]))
	arrays := uint64(s.docs+1) + uint64(s.docs) + uint64(s.terms+1)*2 + uint64(s.terms)
	if 12+4*arrays > uint64(len(d)) {
		return errors.New("truncated")
	}
	s.pathOff = 12
	s.lens = s.pathOff + 4*(s.docs+1)
	s.termOff = s.lens + 4*s.docs
	s.postOff = s.termOff + 4*(s.terms+1)
	s.df = s.postOff + 4*(s.terms+1)
	s.pathb = s.df + 4*s.terms
	ascending := func(at, n int) (uint32, bool) {
		prev := uint32(0)
		for i := 0; i <= n; i++ {
			v := s.u32(at, i)
			if v < prev || i == 0 && v != 0 {
				return 0, false
			}
			prev = v
		}
		return prev, true
	}
	pl, ok1 := ascending(s.pathOff, s.docs)
	tl, ok2 := ascending(s.termOff, s.terms)
	ql, ok3 := ascending(s.postOff, s.terms)
	if !ok1 || !ok2 || !ok3 {
		return errors.New("offsets out of order")
	}
	s.termb = s.pathb + int(pl)
	s.postb = s.termb + int(tl)
	if uint64(s.pathb)+uint64(pl)+uint64(tl)+uint64(ql) != uint64(len(d)) {
		return errors.New("size does not match its tables")
	}
	return nil
}

func (s *fileSeg) u32(at, i int) uint32 {
	return binary.LittleEndian.Uint32(s.data[at+4*i:])
}

// str is a string over the mapped bytes, valid while the segment is.
func (s *fileSeg) str(base, offs, i int) string {
	lo, hi := s.u32(offs, i), s.u32(offs, i+1)
	if lo == hi {
		return ""
	}
	return unsafe.String(&s.data[base+int(lo)], int(hi-lo))
}

func (s *fileSeg) path(i int) string   { return s.str(s.pathb, s.pathOff, i) }
func (s *fileSeg) term(i int) string   { return s.str(s.termb, s.termOff, i) }
func (s *fileSeg) length(i int) uint32 { return s.u32(s.lens, i) }

func (s *fileSeg) postings(t int) []byte {
	return s.data[s.postb+int(s.u32(s.postOff, t)) : s.postb+int(s.u32(s.postOff, t+1))]
}

// findTerm returns the index of term, or -1.
func (s *fileSeg) findTerm(term string) int {
	i := sort.Search(s.terms, func(i int) bool { return s.term(i) >= term })
	if i < s.terms && s.term(i) == term {
		return i
	}
	return -1
}

// findPath returns the ordinal of path's document, or -1.
func (s *fileSeg) findPath(path string) int {
	i := sort.Search(s.docs, func(i int) bool { return s.path(i) >= path })
	if i < s.docs && s.path(i) == path {
		return i
	}
	return -1
}

// eachPosting calls fn with each document and frequency of term t.
func (s *fileSeg) eachPosting(t int, fn func(doc, freq uint32)) error {
	b := s.postings(t)
	doc := uint64(0)
	for n := s.u32(s.df, t); n > 0; n-- {
		delta, k := binary.Uvarint(b)
		if k <= 0 {
			return errFiles
		}
		freq, j := binary.Uvarint(b[k:])
		if j <= 0 {
			return errFiles
		}
		b = b[k+j:]
		if doc += delta; doc >= uint64(s.docs) || freq > math.MaxUint32 {
			return errFiles
		}
		fn(uint32(doc), uint32(freq))
	}
	return nil
}

// fileIndex is an open files index: its segments and what is deleted in
// each.
type fileIndex struct {
	segs []*fileSeg
	info []fileSegInfo
	dead [][]bool // per segment; nil when nothing is deleted
	live int
}

// openFiles opens the files index in dir.
func openFiles(dir string) (*fileIndex, error) {
	mb, err := os.ReadFile(filepath.Join(dir, filesManifest))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errFiles, err)
	}
	fx := &fileIndex{}
	if err := json.Unmarshal(mb, &fx.info); err != nil {
		return nil, fmt.Errorf("%w: %v", errFiles, err)
	}
	seen := make(map[string]bool, len(fx.info))
	for _, in := range fx.info {
		if strings.ContainsAny(in.Name, `/\`) || !strings.HasSuffix(in.Name, ".kxf") || seen[in.Name] {
			fx.close()
			return nil, fmt.Errorf("%w: segment name %q", errFiles, in.Name)
		}
		seen[in.Name] = true
		s, err := openFileSeg(filepath.Join(dir, in.Name))
		if err != nil {
			fx.close()
			return nil, err
		}
		fx.segs = append(fx.segs, s)
		if s.docs != in.Docs {
			fx.close()
			return nil, fmt.Errorf("%w: %s holds %d documents, not %d", errFiles, in.Name, s.docs, in.Docs)
		}
		var dead []bool
		for _, d := range in.Deleted {
			if int(d) >= s.docs {
				fx.close()
				return nil, fmt.Errorf("%w: %s: deleted document %d of %d", errFiles, in.Name, d, s.docs)
			}
			if dead == nil {
				dead = make([]bool, s.docs)
			}
			if !dead[d] {
				dead[d] = true
				fx.live--
			}
		}
		fx.dead = append(fx.dead, dead)
		fx.live += s.docs
	}
	return fx, nil
}

func (fx *fileIndex) close() error {
	if fx == nil {
		return nil
	}
	var err error
	for _, s := range fx.segs {
		if e := s.unmap(); err == nil {
			err = e
		}
	}
	fx.segs = nil
	return err
}

func (fx *fileIndex) isDead(seg int, doc uint32) bool {
	return fx.dead[seg] != nil && fx.dead[seg][doc]
}

// BM25's parameters, as bleve's (search.BM25_k1, search.BM25_b).
var bm25K1, bm25B = 1.2, 0.75

// search ranks the files for terms by BM25 as bleve's disjunction of
// term queries (boosted by each term's weight) scores them, over docTotal
// documents of card terms in all: each term's score is
//
//	idf · √tf·k1 / (√tf + k1·(1 − b + b·len/avg)) · (weight·idf·norm)
//
// where idf = ln(1 + (N − df + 0.5)/(df + 0.5)), avg is ⌈card/N⌉, len is
// the document's length as bleve stores it (through a float32 of
// 1/√len), and norm is 1/√Σ(weight·idf)² over the query's terms; a
// document's score is the sum of its terms' (in the order bleve sums
// them, see termsByCount) times the share of the query's terms it holds.
// Ties break by path.
func (fx *fileIndex) search(terms []Term, docTotal, card, n int) ([]FileHit, error) {
	if docTotal <= 0 || card < 0 || len(terms) == 0 || n <= 0 {
		return nil, nil
	}
	N := float64(uint64(docTotal))
	// Of no length at all (card 0), bleve's average is 0 and it scores
	// by TF-IDF instead: tf·norm·idf with idf = 1 + ln(N/(df+1)).
	avg := math.Ceil(float64(card) / float64(uint64(docTotal)))
	bm25 := avg > 0
	// First each term's document count, from the segments' tables where
	// nothing is deleted (the postings are read once, to score, unless
	// a segment has deletions to count past).
	nseg := len(fx.segs)
	at := make([]int, len(terms)*nseg) // term i's index in segment si, or -1
	counts := make([]int, len(terms))
	idf := make([]float64, len(terms))
	for i, t := range terms {
		for si, s := range fx.segs {
			ti := s.findTerm(t.Text)
			at[i*nseg+si] = ti
			if ti < 0 {
				continue
			}
			if fx.dead[si] == nil {
				counts[i] += int(s.u32(s.df, ti))
				continue
			}
			err := s.eachPosting(ti, func(doc, freq uint32) {
				if !fx.isDead(si, doc) {
					counts[i]++
				}
			})
			if err != nil {
				return nil, err
			}
		}
		df := float64(uint64(counts[i]))
		if bm25 {
			idf[i] = math.Log(1 + (N-df+0.5)/(df+0.5))
		} else {
			idf[i] = 1.0 + math.Log(N/float64(uint64(counts[i])+1))
		}
	}
	// bleve's disjunction orders its terms by their document counts
	// with sort.Sort, and sums in that order; the same sort of the same
	// sequence gives the same order, ties included.
	order := termsByCount{idx: make([]int, len(terms)), counts: counts}
	for i := range order.idx {
		order.idx[i] = i
	}
	sort.Sort(order)
	sumSq := 0.0
	for _, i := range order.idx {
		w := terms[i].Weight * idf[i]
		sumSq += w * w
	}
	qnorm := 1.0 / math.Sqrt(sumSq)
	acc := make([][]float64, nseg)
	cnt := make([][]int32, nseg)
	for si, s := range fx.segs {
		acc[si] = make([]float64, s.docs)
		cnt[si] = make([]int32, s.docs)
	}
	for _, i := range order.idx {
		qw := terms[i].Weight * idf[i] * qnorm
		for si, s := range fx.segs {
			ti := at[i*nseg+si]
			if ti < 0 {
				continue
			}
			err := s.eachPosting(ti, func(doc, freq uint32) {
				if fx.isDead(si, doc) {
					return
				}
				var tf float64
				if freq < uint32(len(sqrtCache)) {
					tf = sqrtCache[freq]
				} else {
					tf = math.Sqrt(float64(freq))
				}
				norm := float64(float32(1.0 / math.Sqrt(float64(s.length(int(doc))))))
				var score float64
				if bm25 {
					fieldLength := 1 / (norm * norm)
					score = idf[i] * (tf * bm25K1) /
						(tf + bm25K1*(1-bm25B+(bm25B*fieldLength/avg)))
				} else {
					score = tf * norm * idf[i]
				}
				if qw != 1.0 {
					score = score * qw
				}
				acc[si][doc] += score
				cnt[si][doc]++
			})
			if err != nil {
				return nil, err
			}
		}
	}
	type scored struct {
		score float64
		path  string
	}
	var all []scored
	for si, s := range fx.segs {
		for d, c := range cnt[si] {
			if c > 0 {
				coord := float64(c) / float64(len(terms))
				all = append(all, scored{acc[si][d] * coord, s.path(d)})
			}
		}
	}
	slices.SortFunc(all, func(a, b scored) int {
		if a.score != b.score {
			return cmp.Compare(b.score, a.score)
		}
		return strings.Compare(a.path, b.path)
	})
	out := make([]FileHit, 0, min(n, len(all)))
	for _, a := range all[:min(n, len(all))] {
		out = append(out, FileHit{Path: strings.Clone(a.path), Score: a.score})
	}
	return out, nil
}

// termsByCount sorts query terms by their document counts, as bleve's
// OrderedSearcherList sorts its term searchers.
type termsByCount struct {
	idx    []int
	counts []int // each term's live documents
}

func (o termsByCount) Len() int { return len(o.idx) }
func (o termsByCount) Less(i, j int) bool {
	return o.count(o.idx[i]) < o.count(o.idx[j])
}
func (o termsByCount) Swap(i, j int)   { o.idx[i], o.idx[j] = o.idx[j], o.idx[i] }
func (o termsByCount) count(t int) int { return o.counts[t] }

// sqrtCache is bleve's table of square roots of small frequencies
// (scorer.SqrtCache): the same values math.Sqrt gives.
var sqrtCache = func() []float64 {
	c := make([]float64, 64)
	for i := range c {
		c[i] = math.Sqrt(float64(i))
	}
	return c
}()

// writeFiles writes a files index of one segment, from a builder, to dir.
func writeFiles(dir string, b *fileBuilder) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	const name = "1.kxf"
	if err := b.write(filepath.Join(dir, name)); err != nil {
		return err
	}
	return writeFilesManifest(dir, []fileSegInfo{{Name: name, Docs: len(b.paths)}})
}

func writeFilesManifest(dir string, info []fileSegInfo) error {
	return mmap.Replace(filepath.Join(dir, filesManifest), func(w *bufio.Writer) error {
		return json.NewEncoder(w).Encode(info)
	})
}

// updateFiles writes to dir the files index of oldDir less the documents
// of the paths in gone, plus fresh (whose paths are all in gone). The old
// segments are hard-linked, fresh becomes a segment of its own, and the
// segments after the first are merged once there are tailSegments of
// them, or with the first once they hold an eighth of its live terms.
func updateFiles(oldDir, dir string, gone map[string]bool, fresh []*fileEntry) error {
	old, err := openFiles(oldDir)
	if err != nil {
		return err
	}
	defer old.close()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	info := make([]fileSegInfo, len(old.info))
	next := 1
	for i, in := range old.info {
		s := old.segs[i]
		del := slices.Clone(in.Deleted)
		for p := range gone {
			if d := s.findPath(p); d >= 0 && !old.isDead(i, uint32(d)) {
				del = append(del, uint32(d))
			}
		}
		slices.Sort(del)
		info[i] = fileSegInfo{Name: in.Name, Docs: in.Docs, Deleted: slices.Compact(del)}
		if err := linkFile(filepath.Join(oldDir, in.Name), filepath.Join(dir, in.Name)); err != nil {
			return err
		}
		if k, err := strconv.Atoi(strings.TrimSuffix(in.Name, ".kxf")); err == nil && k >= next {
			next = k + 1
		}
	}
	segs := slices.Clone(old.segs)
	if len(fresh) > 0 {
		b := newFileBuilder()
		for _, e := range fresh {
			b.add(e)
		}
		name := strconv.Itoa(next) + ".kxf"
		next++
		if err := b.write(filepath.Join(dir, name)); err != nil {
			return err
		}
		s, err := openFileSeg(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		defer s.unmap()
		segs = append(segs, s)
		info = append(info, fileSegInfo{Name: name, Docs: len(b.paths)})
	}
	// What to merge: the tail once it is long, everything once the tail
	// is large.
	liveLen := func(i int) int {
		n := 0
		for d := 0; d < segs[i].docs; d++ {
			n += int(segs[i].length(d))
		}
		for _, d := range info[i].Deleted { // ascending, once each
			n -= int(segs[i].length(int(d)))
		}
		return n
	}
	from := -1
	if len(segs) > 1 {
		tail := 0
		for i := 1; i < len(segs); i++ {
			tail += liveLen(i)
		}
		switch {
		case tail*8 > liveLen(0):
			from = 0
		case len(segs)-1 >= tailSegments:
			from = 1
		}
	}
	if from >= 0 {
		name := strconv.Itoa(next) + ".kxf"
		n, err := mergeFileSegs(filepath.Join(dir, name), segs[from:], info[from:])
		if err != nil {
			return err
		}
		for _, in := range info[from:] {
			os.Remove(filepath.Join(dir, in.Name))
		}
		info = append(info[:from], fileSegInfo{Name: name, Docs: n})
	}
	return writeFilesManifest(dir, info)
}

// mergeFileSegs writes the live documents of segs to one segment at path
// and returns how many there are.
func mergeFileSegs(path string, segs []*fileSeg, info []fileSegInfo) (int, error) {
	b := newFileBuilder()
	for i, s := range segs {
		ord := make([]int64, s.docs)
		for _, d := range info[i].Deleted {
			ord[d] = -1
		}
		for d := range ord {
			if ord[d] >= 0 {
				ord[d] = int64(b.addDoc(s.path(d), int(s.length(d))))
			}
		}
		for t := 0; t < s.terms; t++ {
			term := s.term(t) // addPosting keeps a copy
			err := s.eachPosting(t, func(doc, freq uint32) {
				if ord[doc] >= 0 {
					b.addPosting(term, uint32(ord[doc]), freq)
				}
			})
			if err != nil {
				return 0, err
			}
		}
	}
	return len(b.paths), b.write(path)
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
