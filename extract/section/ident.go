package section

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// SplitIdentifier splits an identifier or a phrase into its lowercase word
// parts: camelCase and PascalCase humps ("parseHTTPRequest" → parse, http,
// request), snake_case, kebab-case, dotted and slashed paths and any other
// non-alphanumeric separator. Digits stay with the letters before them
// ("utf8Decode" → utf8, decode). Empty parts are dropped; the result is nil
// when s has no letters or digits.
func SplitIdentifier(s string) []string {
	b := appendSplit(nil, s)
	if len(b) == 0 {
		return nil
	}
	return strings.Split(string(b), " ")
}

// appendSplit appends the parts SplitIdentifier(s) returns to b, joined by
// single spaces (a part never holds one).
func appendSplit(b []byte, s string) []byte {
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
		if inPart && unicode.IsUpper(c) {
			// fooBar, utf8Decode: a new hump starts here.
			split := unicode.IsLower(prev) || unicode.IsDigit(prev)
			if !split && unicode.IsUpper(prev) && i+size < len(s) {
				// HTTPServer: the last capital of a run starts the next word.
				next, _ := utf8.DecodeRuneInString(s[i+size:])
				split = unicode.IsLower(next)
			}
			if split {
				inPart = false
			}
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

// stopWords marks the words of english and keywords, so that one lookup
// answers both.
var stopWords = func() map[string]uint8 {
	m := make(map[string]uint8, len(english)+len(keywords))
	for w := range english {
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

// english are English function words and filler.
var english = wordSet(`
a about above after again against all also am an and any are as at be because
been before being below between both but by can could did do does doing done
down during each either else few for from further had has have having he her
here hers him his how however i if in into is it its itself just may me might
more most must my no nor not now of off on once only or other our ours out over
own same shall she should so some such than that the their theirs them then
there these they this those through to too under until up upon us very via was
we were what when where which while who whom why will with within without would
yes yet you your yours one two use used using like get set see etc eg ie
http https www com org`)

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
