package index

import (
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"strings"
	"unsafe"

	"github.com/konteks/git-konteks/text"
)

// The analyzer the index is built and queried with. It is ours rather than
// one of bleve's because code needs identifier handling bleve does not
// have, and because analysing in our own goroutines lets a cold build use
// every CPU. Its terms are those
// of package text (text.Words, then Analyzer.AppendTerms):
//
//   - words are runs of letters, digits and underscores;
//   - a compound identifier (parseHTTPRequest, parse_http_request) gives its
//     lowercased whole form and each of its parts;
//   - parts are Porter-stemmed (requests → request, embedding → embed);
//   - stop words are dropped; words over text.MaxTermLen bytes (hashes,
//     base64) are dropped.
//
// Changing what this emits changes the index format: bump FormatVersion.

// analyzer carries caches; one per goroutine. Source text repeats its
// words endlessly, so each distinct word is analysed once: one map lookup
// per word gives the ids of all of its terms, and a document's term
// frequencies are counted in a dense array by id.
type analyzer struct {
	words   map[string][]int32 // word -> term ids
	vocab   []string           // term id -> term
	vbytes  [][]byte           // term id -> term bytes (shared by documents, read only)
	ids     map[string]int32   // term -> id
	an      text.Analyzer
	scratch []string // scratch for one word's terms
	counts  []int32  // per term id, for the document being analysed
	order   []int32  // term ids in first-seen order

	// The whole file's counts, summed over its sections' fields (see
	// fileField); fileLost is set when a reset invalidated them.
	fcounts  []int32
	forder   []int32
	fileLost bool

	sum hash.Hash // for printOf, made at its first use
}

// newAnalyzer makes an analyzer with empty caches: they grow with what it
// analyses (a query's few words, or a build's vocabulary), so that the
// analyzers of a query or of a package's start cost little.
func newAnalyzer() *analyzer {
	return &analyzer{
		words: map[string][]int32{},
		ids:   map[string]int32{},
	}
}

// maxCachedWords bounds the word cache and vocabulary of one analyzer.
// A build runs one analyzer per CPU; on $GOROOT/src each held 30 MB
// at 2^19 words, at its peak a fifth of the build's live heap. At 2^16
// the most frequent words still hit (a word seen once is rarely seen
// again before the reset), a cold build peaks 40-50 MB lower and takes
// no more CPU.
const maxCachedWords = 1 << 16

func (a *analyzer) termID(t string) int32 {
	if id, ok := a.ids[t]; ok {
		return id
	}
	id := int32(len(a.vocab))
	a.vocab = append(a.vocab, t)
	a.vbytes = append(a.vbytes, []byte(t))
	a.counts = append(a.counts, 0)
	a.fcounts = append(a.fcounts, 0)
	a.ids[t] = id
	return id
}

// wordTerms returns the term ids of one word.
func (a *analyzer) wordTerms(w string) []int32 {
	if ts, ok := a.words[w]; ok {
		return ts
	}
	if len(a.words) >= maxCachedWords || len(a.vocab) >= maxCachedWords {
		// Keep memory bounded on pathological input. Ids stay valid for
		// the document being analysed: the vocabulary is only reset
		// between documents (see reset).
		clear(a.words)
	}
	var ts []int32
	a.scratch = a.an.AppendTerms(a.scratch[:0], w)
	for _, t := range a.scratch {
		ts = append(ts, a.termID(t))
	}
	a.words[strings.Clone(w)] = ts
	return ts
}

// reset drops the caches when they have grown past their bound; called
// between documents only.
func (a *analyzer) reset() {
	if len(a.vocab) >= maxCachedWords {
		clear(a.words)
		clear(a.ids)
		a.vocab, a.vbytes, a.counts = a.vocab[:0], a.vbytes[:0], a.counts[:0]
		a.fcounts, a.forder, a.fileLost = a.fcounts[:0], a.forder[:0], true
	}
}

// terms calls fn with every term of text, in order, repeats included.
func (a *analyzer) terms(text string, fn func(term string)) {
	a.reset()
	eachWord(text, func(w string) {
		for _, id := range a.wordTerms(w) {
			fn(a.vocab[id])
		}
	})
}

// Terms returns the distinct terms of text in first-seen order.
func Terms(text string) []string {
	a := analyzerPool.Get().(*analyzer)
	defer analyzerPool.Put(a)
	seen := map[string]bool{}
	var out []string
	a.terms(text, func(t string) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	})
	return out
}

// EachTerm calls fn with every term of text, in order, repeats included,
// until fn returns false.
func EachTerm(text string, fn func(term string) (more bool)) {
	a := analyzerPool.Get().(*analyzer)
	defer analyzerPool.Put(a)
	a.reset()
	done := false
	eachWord(text, func(w string) {
		if done {
			return
		}
		for _, id := range a.wordTerms(w) {
			if !fn(a.vocab[id]) {
				done = true
				return
			}
		}
	})
}

// eachWord is the tokenizer: text.Words.
func eachWord(s string, fn func(string)) { text.Words(s, fn) }

// docPrint is a section's document hashed: the first 16 bytes of the
// SHA-256 of its text, name and path fields. An update leaves where it is
// in the sections index a section of a changed file whose print the old generation
// holds under the same id (the document would be the same), so a one-line
// change re-indexes one section and the file, not the file's hundreds.
// SHA-256, not a faster hash: a record's author chooses both texts, and
// a collision would leave stale text searchable.
type docPrint [16]byte

// printOf is the print of a section document's fields.
func (a *analyzer) printOf(txt, name, path string) docPrint {
	if a.sum == nil {
		a.sum = sha256.New()
	}
	h := a.sum
	h.Reset()
	var n [binary.MaxVarintLen64]byte
	for _, s := range [3]string{txt, name, path} {
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
		h.Write(unsafe.Slice(unsafe.StringData(s), len(s)))
	}
	var sum [sha256.Size]byte
	var p docPrint
	copy(p[:], h.Sum(sum[:0]))
	return p
}
