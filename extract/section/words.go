package section

import (
	"unicode"
	"unicode/utf8"

	porter "github.com/blevesearch/go-porterstemmer"
)

// EachWord calls fn with every word of s: a run of letters, digits and
// underscores (identifiers stay whole), in order. It is the tokenizer of
// the search index's analyzer and of the graph's references.
func EachWord(s string, fn func(word string)) {
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

// Stem is the Porter stem of a lowercase ASCII word of 3 or more letters,
// and the word itself otherwise (the stemmer is not defensive about odd
// input: a panic also gives the word back). The search index and the
// local embedder stem alike through it.
func Stem(p string) (s string) {
	if len(p) < 3 {
		return p
	}
	for i := 0; i < len(p); i++ {
		if p[i] < 'a' || p[i] > 'z' {
			return p
		}
	}
	defer func() {
		if recover() != nil {
			s = p
		}
	}()
	return string(porter.StemWithoutLowerCasing([]rune(p)))
}
