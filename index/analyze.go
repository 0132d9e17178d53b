package index

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/konteks/git-konteks/extract/section"
)

// The analyzer the index is built and queried with. It is ours rather than
// one of bleve's because code needs identifier handling bleve does not
// have, and because analysing in our own goroutines lets a cold build use
// every CPU (bleve's offline builder analyses on one):
//
//   - words are runs of letters, digits and underscores;
//   - a compound identifier (parseHTTPRequest, parse_http_request) gives its
//     lowercased whole form and each of its parts;
//   - parts are Porter-stemmed (requests → request, embedding → embed);
//   - English function words are dropped; words over maxTokenLen bytes
//     (hashes, base64) are dropped.
//
// Changing what this emits changes the index format: bump FormatVersion.

const maxTokenLen = 40

// analyzer carries caches; one per goroutine. Source text repeats its
// words endlessly, so each distinct word is analysed once: one map lookup
// per word gives the ids of all of its terms, and a document's term
// frequencies are counted in a dense array by id.
type analyzer struct {
	words  map[string][]int32 // word -> term ids
	vocab  []string           // term id -> term
	vbytes [][]byte           // term id -> term bytes (shared by documents, read only)
	ids    map[string]int32   // term -> id
	stems  map[string]string
	runes  []rune
	parts  []string
	lower  []byte
	counts []int32 // per term id, for the document being analysed
	order  []int32 // term ids in first-seen order

	// The whole file's counts, summed over its sections' fields (see
	// fileField); fileLost is set when a reset invalidated them.
	fcounts  []int32
	forder   []int32
	fileLost bool
}

// newAnalyzer makes an analyzer with empty caches: they grow with what it
// analyses (a query's few words, or a build's vocabulary), so that the
// analyzers of a query or of a package's start cost little.
func newAnalyzer() *analyzer {
	return &analyzer{
		words: map[string][]int32{},
		ids:   map[string]int32{},
		stems: map[string]string{},
	}
}

// maxCachedWords bounds the word cache and vocabulary of one analyzer.
const maxCachedWords = 1 << 19

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
	if len(w) <= maxTokenLen {
		a.parts = splitParts(w, a.parts[:0], &a.runes)
		if len(a.parts) > 1 {
			a.lower = appendLower(a.lower[:0], w)
			ts = append(ts, a.termID(string(a.lower)))
		}
		for _, p := range a.parts {
			if len(p) < 2 || stopWords[p] {
				continue
			}
			ts = append(ts, a.termID(a.stem(p)))
		}
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

func (a *analyzer) stem(p string) string {
	if s, ok := a.stems[p]; ok {
		return s
	}
	s := section.Stem(p)
	if len(a.stems) > 1<<17 {
		clear(a.stems)
	}
	a.stems[p] = s
	return s
}

// eachWord is section.EachWord: one tokenizer for the index and the graph.
func eachWord(s string, fn func(string)) { section.EachWord(s, fn) }

// splitParts splits an identifier into lowercased parts (see
// section.SplitIdentifier; this one reuses buffers): at underscores, humps,
// acronym ends and letter/digit boundaries (pypy310 → pypy 310). The whole
// compound is a term too, so int64 and sha256 still match exactly.
func splitParts(w string, parts []string, scratch *[]rune) []string {
	ascii := true
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return splitASCII(w, parts)
	}
	rs := (*scratch)[:0]
	for _, r := range w {
		rs = append(rs, r)
	}
	*scratch = rs
	start := 0
	emit := func(end int) {
		if end > start {
			out := make([]rune, end-start)
			for i, r := range rs[start:end] {
				out[i] = unicode.ToLower(r)
			}
			parts = append(parts, string(out))
		}
	}
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if r == '_' {
			emit(i)
			start = i + 1
			continue
		}
		if i > start && unicode.IsUpper(r) {
			prev := rs[i-1]
			if unicode.IsLower(prev) || unicode.IsDigit(prev) ||
				unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1]) {
				emit(i)
				start = i
			}
		}
	}
	emit(len(rs))
	return parts
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func splitASCII(w string, parts []string) []string {
	start := 0
	emit := func(end int) {
		if end <= start {
			return
		}
		s := w[start:end]
		lower := true
		for i := 0; i < len(s); i++ {
			if isUpper(s[i]) {
				lower = false
				break
			}
		}
		if !lower {
			b := []byte(s)
			for i, c := range b {
				if isUpper(c) {
					b[i] = c + 'a' - 'A'
				}
			}
			s = string(b)
		}
		parts = append(parts, s)
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c == '_' {
			emit(i)
			start = i + 1
			continue
		}
		if i > start {
			prev := w[i-1]
			switch {
			case isUpper(c) && (isLower(prev) || isDigit(prev) || isUpper(prev) && i+1 < len(w) && isLower(w[i+1])),
				isDigit(c) && !isDigit(prev),
				!isDigit(c) && isDigit(prev):
				emit(i)
				start = i
			}
		}
	}
	emit(len(w))
	return parts
}

func appendLower(b []byte, s string) []byte {
	for _, r := range s {
		if r < utf8.RuneSelf {
			c := byte(r)
			if isUpper(c) {
				c += 'a' - 'A'
			}
			b = append(b, c)
		} else {
			b = utf8.AppendRune(b, unicode.ToLower(r))
		}
	}
	return b
}

var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{"a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "do", "does",
		"for", "from", "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "of", "on", "or",
		"our", "so", "such", "than", "that", "the", "their", "them", "then", "there", "these", "they",
		"this", "those", "to", "was", "we", "were", "what", "when", "where", "which", "while", "who",
		"will", "with", "would", "you", "your"} {
		m[w] = true
	}
	return m
}()
