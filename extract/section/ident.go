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
	var parts []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			parts = append(parts, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if len(cur) > 0 && unicode.IsUpper(r) {
			prev := cur[len(cur)-1]
			switch {
			case unicode.IsLower(prev) || unicode.IsDigit(prev):
				// fooBar, utf8Decode: a new hump starts here.
				flush()
			case unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
				// HTTPServer: the last capital of a run starts the next word.
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return parts
}

// words calls fn for each identifier-like run of letters, digits and
// underscores in s (any other byte separates runs). It does not allocate.
func words(s string, fn func(w string)) {
	start := -1
	for i := 0; i < len(s); {
		c := s[i]
		var wordy bool
		size := 1
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

// topicWord reports whether a lowercase word part is worth keeping as a
// topic: not a stop word or a ubiquitous keyword, not a number, a hash or a
// single letter.
func topicWord(w string) bool {
	if _, stop := keywords[w]; stop {
		return false
	}
	return nameWord(w)
}

// nameWord is topicWord for the words of a section's own name, where a
// programming keyword is what the section is called ("package", "type")
// and so is kept.
func nameWord(w string) bool {
	n := utf8.RuneCountInString(w)
	if n < 2 || n > 32 {
		return false
	}
	if _, stop := english[w]; stop {
		return false
	}
	letters, digits := 0, 0
	for _, r := range w {
		if unicode.IsDigit(r) {
			digits++
		} else {
			letters++
		}
	}
	// Numbers, hex hashes and version strings are noise as topics.
	if letters < 2 || digits > letters || digits > 0 && n >= 12 {
		return false
	}
	return true
}

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
