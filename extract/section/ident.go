package section

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/konteks/git-konteks/text"
)

// topicWord reports whether a lowercase word part is worth keeping as a
// topic: not a stop word or a ubiquitous keyword, not a number, a hash or a
// single letter.
func topicWord(w string) bool {
	return wordShape(w) && stopWords[w] == 0
}

// nameWord is topicWord for the words of a section's own name, where a
// programming keyword is what the section is called ("package", "type")
// and so is kept.
func nameWord(w string) bool {
	return wordShape(w) && stopWords[w]&stopEnglish == 0
}

// wordShape reports whether w looks like a word: 2 to 32 runes, at least
// two letters, and not a number, a hex hash or a version string (more
// digits than letters, or digits in a word of 12 runes or more).
func wordShape(w string) bool {
	n, letters, digits := 0, 0, 0
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf {
			return unicodeWordShape(w)
		}
		n++
		if '0' <= c && c <= '9' {
			digits++
		} else {
			letters++
		}
	}
	return shapeOK(n, letters, digits)
}

func unicodeWordShape(w string) bool {
	n, letters, digits := 0, 0, 0
	for _, r := range w {
		n++
		if unicode.IsDigit(r) {
			digits++
		} else {
			letters++
		}
	}
	return shapeOK(n, letters, digits)
}

func shapeOK(n, letters, digits int) bool {
	if n < 2 || n > 32 {
		return false
	}
	// Numbers, hex hashes and version strings are noise as topics.
	return letters >= 2 && digits <= letters && (digits == 0 || n < 12)
}

// stopWords marks the stop list and filler (stopEnglish) and keywords
// (stopKeyword), so that one lookup answers both.
var stopWords = func() map[string]uint8 {
	m := make(map[string]uint8, 256)
	for _, w := range text.StopWords() {
		m[w] |= stopEnglish
	}
	for w := range filler {
		m[w] |= stopEnglish
	}
	for w := range keywords {
		m[w] |= stopKeyword
	}
	return m
}()

const (
	stopEnglish = 1 << iota
	stopKeyword
)

// filler are English words that, besides the stop list (text.IsStop),
// say nothing about what a section is about.
var filler = wordSet(`
about above after again against all also am any because before being below
between both can could did doing done down during each either else few
further had having he her here hers him his however itself just may me might
more most must my no nor not now off once only other ours out over own same
shall she should some theirs through too under until up upon us very via
whom why within without yes yet yours one two use used using like get set
see etc eg ie http https www com org`)

// keywords are keywords and type names so common across programming and
// config languages that they say nothing about what a section is about.
var keywords = wordSet(`abstract and as assert async await bool boolean break byte case catch char
class const continue def default defer del delete do double elif else end
endif enum err error except export extends false final finally float fn for
func function go goto if impl implements import in instanceof int int32 int64
interface is lambda len let long loop match mod module mut new nil none not
null object of or package pass private protected pub public raise ref return
self short static str string struct super switch this throw throws trait true
try type typeof uint uint32 uint64 undefined unsafe use val var void where
while with yield ok fmt args arg argv kwargs params param tmp val value values
printf sprintf fprintf errorf println print printf sprint`)

func wordSet(list string) map[string]struct{} {
	m := make(map[string]struct{}, 256)
	for _, w := range strings.Fields(list) {
		m[w] = struct{}{}
	}
	return m
}
