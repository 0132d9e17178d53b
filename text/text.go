// Package text is how git konteks reads words: the one tokenizer, the one
// identifier splitter, the one stemmer and the one stop list that the
// search index, the built-in embedder, the extraction's topics and
// retrieval texts, and the history's message search all use. It sits at
// the ground floor: it imports nothing of the project.
//
// What it emits is part of stored and cached formats: the search index
// holds its terms, the built-in embedder's vectors are functions of its
// parts, and records hold retrieval texts made of its splits. A change to
// its output therefore moves index.FormatVersion and embed.LocalModel (and
// memory.RecordVersion when SplitIdentifier's output moves); the golden
// test in this package fails until that is done.
//
// The functions are written for hot loops: words are passed to a callback
// as substrings of the input, parts are appended to a caller's slice and
// are substrings of the word when no lowercasing was needed, and Analyzer
// caches stems so a long run stems each distinct part once.
package text

import (
	"strings"
	"unicode"
	"unicode/utf8"

	porter "github.com/blevesearch/go-porterstemmer"
)

// MaxTermLen is the longest word, in bytes, that gives search terms;
// longer runs are hashes, base64 or data.
const MaxTermLen = 40

// Words calls fn with every word of s, in order: a maximal run of
// letters, digits and underscores, so identifiers stay whole. Words are
// substrings of s.
func Words(s string, fn func(word string)) {
	start := -1
	for i := 0; i < len(s); {
		c := s[i]
		size := 1
		var wordy bool
		if c < utf8.RuneSelf {
			wordy = c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			wordy = unicode.IsLetter(r) || unicode.IsDigit(r)
		}
		if wordy {
			if start < 0 {
				start = i
			}
		} else if start >= 0 {
			fn(s[start:i])
			start = -1
		}
		i += size
	}
	if start >= 0 {
		fn(s[start:])
	}
}

// Digit handling of AppendParts.
const (
	// KeepDigits keeps digits with the letters around them: utf8 and
	// int64 are one part each.
	KeepDigits = false
	// SplitDigits splits at every letter/digit boundary: pypy310 gives
	// pypy and 310.
	SplitDigits = true
)

// AppendParts appends the lowercased parts of the word w (as Words gives
// it) to dst and returns the extended slice. Parts are split at
// underscores, where a lowercase letter or a digit meets a capital
// (parseRequest, utf8Decode), at the last capital of an acronym
// (HTTPServer → http, server) and, with SplitDigits, at every letter/digit
// boundary. Empty parts are dropped. A part is a substring of w unless
// lowercasing changed it.
func AppendParts(dst []string, w string, digits bool) []string {
	start := 0
	prev := rune(-1) // the rune before i in the current part; -1 at its start
	for i := 0; i < len(w); {
		c, size := rune(w[i]), 1
		if c >= utf8.RuneSelf {
			c, size = utf8.DecodeRuneInString(w[i:])
		}
		if c == '_' {
			dst = appendPart(dst, w[start:i])
			start, prev = i+size, -1
			i += size
			continue
		}
		if prev >= 0 {
			var split bool
			if isUpper(c) {
				split = isLower(prev) || isDigit(prev) || isUpper(prev) && lowerAt(w, i+size)
			} else if digits {
				split = isDigit(c) != isDigit(prev)
			}
			if split {
				dst = appendPart(dst, w[start:i])
				start = i
			}
		}
		prev = c
		i += size
	}
	return appendPart(dst, w[start:])
}

// appendPart appends p, lowercased, unless it is empty.
func appendPart(dst []string, p string) []string {
	if p == "" {
		return dst
	}
	for i := 0; i < len(p); i++ {
		if c := p[i]; c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			var buf [64]byte
			return append(dst, string(AppendLower(buf[:0], p)))
		}
	}
	return append(dst, p)
}

func isUpper(r rune) bool {
	if r < utf8.RuneSelf {
		return 'A' <= r && r <= 'Z'
	}
	return unicode.IsUpper(r)
}

func isLower(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z'
	}
	return unicode.IsLower(r)
}

func isDigit(r rune) bool {
	if r < utf8.RuneSelf {
		return '0' <= r && r <= '9'
	}
	return unicode.IsDigit(r)
}

// lowerAt reports whether the rune at byte i of s is a lowercase letter.
func lowerAt(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	c := rune(s[i])
	if c >= utf8.RuneSelf {
		c, _ = utf8.DecodeRuneInString(s[i:])
	}
	return isLower(c)
}

// AppendLower appends s, lowercased rune by rune, to b.
func AppendLower(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		b = utf8.AppendRune(b, unicode.ToLower(r))
		i += size
	}
	return b
}

// SplitIdentifier splits an identifier or a phrase into its lowercase
// parts: the parts (KeepDigits) of each of its words, so camelCase and
// PascalCase humps, snake_case, kebab-case, dotted and slashed paths and
// any other separator all split ("parseHTTPRequest" → parse, http,
// request; "utf8Decode" → utf8, decode). The result is nil when s has no
// letters or digits.
func SplitIdentifier(s string) []string {
	b := AppendSplit(nil, s)
	if len(b) == 0 {
		return nil
	}
	return strings.Split(string(b), " ")
}

// AppendSplit appends the parts SplitIdentifier(s) returns to b, joined by
// single spaces (a part never holds one). It is SplitIdentifier without
// the slice, in one pass.
func AppendSplit(b []byte, s string) []byte {
	start := len(b)
	inPart := false
	var prev rune
	for i := 0; i < len(s); {
		c, size := rune(s[i]), 1
		if c >= utf8.RuneSelf {
			c, size = utf8.DecodeRuneInString(s[i:])
		}
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			inPart = false
			i += size
			continue
		}
		if inPart && isUpper(c) && (isLower(prev) || isDigit(prev) || isUpper(prev) && lowerAt(s, i+size)) {
			inPart = false // fooBar, utf8Decode, HTTP|Server: a new part
		}
		if !inPart {
			if len(b) > start {
				b = append(b, ' ')
			}
			inPart = true
		}
		if c < utf8.RuneSelf {
			l := byte(c)
			if 'A' <= l && l <= 'Z' {
				l += 'a' - 'A'
			}
			b = append(b, l)
		} else {
			b = utf8.AppendRune(b, unicode.ToLower(c))
		}
		prev = c
		i += size
	}
	return b
}

// Stem is the Porter stem of a lowercase ASCII word of 3 or more letters,
// and the word itself otherwise (the stemmer is not defensive about odd
// input: a panic also gives the word back).
func Stem(p string) (s string) {
	if !stemmable(p) {
		return p
	}
	defer func() {
		if recover() != nil {
			s = p
		}
	}()
	return string(porter.StemWithoutLowerCasing([]rune(p)))
}

// IsStop reports whether the lowercase word w is on the stop list:
// English function words, which say nothing about what a text is about.
func IsStop(w string) bool {
	_, ok := stop[w]
	return ok
}

// StopWords returns the stop list, in no particular order.
func StopWords() []string {
	out := make([]string, 0, len(stop))
	for w := range stop {
		out = append(out, w)
	}
	return out
}

// stop is the stop list. It is deliberately short: a word dropped here
// can never be searched for, and in code (get, set, not, all, new) many
// English filler words are names.
var stop = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, w := range strings.Fields(`a an and are as at be been but by do does
	for from has have how i if in into is it its of on or our so such than
	that the their them then there these they this those to was we were what
	when where which while who will with would you your`) {
		m[w] = struct{}{}
	}
	return m
}()

// Analyzer turns words into search terms. It caches stems, so that a long
// run stems each distinct part once; it is not safe for concurrent use.
// The zero value is ready to use.
type Analyzer struct {
	parts []string
	lower []byte
	stems map[string]string
}

// maxStems bounds an Analyzer's stem cache.
const maxStems = 1 << 17

// AppendTerms appends the search terms of the word w (as Words gives it)
// to dst: nothing when w is longer than MaxTermLen bytes; else the whole
// word lowercased when it has more than one part (so int64 and sha256
// still match exactly), then each part (SplitDigits) of two or more bytes
// that is not a stop word, Porter-stemmed.
func (a *Analyzer) AppendTerms(dst []string, w string) []string {
	if len(w) > MaxTermLen {
		return dst
	}
	a.parts = AppendParts(a.parts[:0], w, SplitDigits)
	if len(a.parts) > 1 {
		a.lower = AppendLower(a.lower[:0], w)
		dst = append(dst, string(a.lower))
	}
	for _, p := range a.parts {
		if len(p) < 2 || IsStop(p) {
			continue
		}
		dst = append(dst, a.Stem(p))
	}
	return dst
}

// Stem is Stem(p), cached. The cache holds no reference into the text p
// came from.
func (a *Analyzer) Stem(p string) string {
	if !stemmable(p) {
		return p
	}
	if s, ok := a.stems[p]; ok {
		return s
	}
	s := Stem(p)
	if a.stems == nil || len(a.stems) >= maxStems {
		a.stems = make(map[string]string)
	}
	key := s // a new string, equal to p when the stemmer left it alone
	if s != p {
		key = strings.Clone(p)
	}
	a.stems[key] = s
	return s
}

// stemmable reports whether the stemmer applies to p (see Stem).
func stemmable(p string) bool {
	if len(p) < 3 {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] < 'a' || p[i] > 'z' {
			return false
		}
	}
	return true
}

// Terms returns the search terms of s, in order, repeats included.
func Terms(s string) []string {
	var a Analyzer
	var out []string
	Words(s, func(w string) { out = a.AppendTerms(out, w) })
	return out
}
