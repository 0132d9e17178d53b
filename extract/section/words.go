package section

import (
	"unicode"
	"unicode/utf8"
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
