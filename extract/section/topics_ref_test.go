package section

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/text"
)

// The reference implementation: topics, identifier splitting and the
// lexical text written the plain way (as they were before Finish was
// optimised). The optimised code must give exactly the same results.

func refSplitIdentifier(s string) []string {
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
				flush()
			case unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return parts
}

func refWords(s string, fn func(w string)) {
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

func refTopicWord(w string) bool {
	if _, stop := keywords[w]; stop {
		return false
	}
	return refNameWord(w)
}

func refNameWord(w string) bool {
	n := utf8.RuneCountInString(w)
	if n < 2 || n > 32 {
		return false
	}
	if _, stop := filler[w]; stop || text.IsStop(w) {
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
	if letters < 2 || digits > letters || digits > 0 && n >= 12 {
		return false
	}
	return true
}

type refCounter map[string]int

func (tc refCounter) add(text string, w int, once bool, keep func(string) bool) {
	seen := map[string]bool{}
	refWords(text, func(tok string) {
		for _, p := range refSplitIdentifier(tok) {
			if !keep(p) || once && seen[p] {
				continue
			}
			seen[p] = true
			tc[p] += w
		}
	})
}

func (tc refCounter) top(n int) []string {
	if len(tc) == 0 {
		return nil
	}
	ws := make([]string, 0, len(tc))
	for w := range tc {
		ws = append(ws, w)
	}
	sort.Slice(ws, func(i, j int) bool {
		if tc[ws[i]] != tc[ws[j]] {
			return tc[ws[i]] > tc[ws[j]]
		}
		return ws[i] < ws[j]
	})
	if len(ws) > n {
		ws = ws[:n]
	}
	return ws
}

func refPathTopics(path string) []string {
	dir, base := "", path
	if i := strings.LastIndexByte(path, '/'); i >= 0 {
		dir, base = path[:i], path[i+1:]
	}
	if i := strings.IndexByte(base[min(1, len(base)):], '.'); i >= 0 {
		base = base[:i+min(1, len(base))]
	}
	var out []string
	seen := map[string]bool{}
	for _, w := range refSplitIdentifier(dir + "/" + base) {
		if refTopicWord(w) && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func refSectionTopics(pathWords []string, s *memory.Section) []string {
	tc := refCounter{}
	for _, w := range pathWords {
		tc[w]++
	}
	name := s.QName
	if name == "" || s.Symbol == "key" || s.Symbol == "value" {
		name = s.Name
	}
	tc.add(name, 4, true, refNameWord)
	tc.add(s.Signature, 2, true, refTopicWord)
	tc.add(s.Doc, 2, true, refTopicWord)
	tc.add(s.Content, 1, false, refTopicWord)
	return tc.top(MaxTopics)
}

func refFileTopics(pathWords []string, secs []memory.Section) []string {
	tc := refCounter{}
	for _, w := range pathWords {
		tc[w] += MaxTopics
	}
	for _, s := range secs {
		for r, t := range s.Topics {
			tc[t] += MaxTopics - r
		}
	}
	return tc.top(MaxTopics)
}

func refLexicalText(path string, s memory.Section) string {
	var b strings.Builder
	line := func(parts ...string) {
		start := b.Len()
		for _, p := range parts {
			if p == "" {
				continue
			}
			if b.Len() > start {
				b.WriteByte(' ')
			}
			b.WriteString(p)
		}
		if b.Len() > start {
			b.WriteByte('\n')
		}
	}
	line(path)
	line(strings.Join(refSplitIdentifier(path), " "))
	line(s.Kind, s.Language, s.Symbol)
	name := s.QName
	if name == "" {
		name = s.Name
	}
	if s.Name != "" && s.Name != name {
		line(name, s.Name)
	} else {
		line(name)
	}
	line(strings.Join(refSplitIdentifier(name), " "))
	line(s.Signature)
	line(s.Doc)
	line(strings.Join(s.Topics, " "))
	line(s.Summary)
	b.WriteString(s.Content)
	return b.String()
}

func refFirstSentence(doc string) string {
	var para []string
	for _, line := range strings.Split(doc, "\n") {
		line = stripCommentMarker(line)
		if line == "" {
			if len(para) > 0 {
				break
			}
			continue
		}
		para = append(para, line)
		if len(para) > 20 {
			break
		}
	}
	text := strings.Join(strings.Fields(strings.Join(para, " ")), " ")
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '.', '!', '?':
			if i+1 == len(text) || text[i+1] == ' ' {
				return text[:i+1]
			}
		}
	}
	return text
}

// tricky are strings that exercise every splitting rule.
var tricky = []string{
	"", "_", "__init__", "a", "ab", "parseHTTPRequest", "XMLHttpRequest", "HTTPServer", "IOError",
	"utf8Decode", "getV2Config", "V2", "ABC", "ABCd", "aBC", "a1B2c3", "snake_case_NAME", "kebab-case",
	"ÜberGröße", "straßeHTTPÄrger", "ǅemal", "ǄEMAL", "日本語テキスト", "日本Go語", "İstanbul", "ΣΊΣΥΦΟΣ",
	"x\xffy", "\xff\xfeABC", "a\u00a0b", "Ⅻroman", "٣٤abc", "abc١٢٣", "ÀÉÎõü_ß", "ﬁle", "a_b_c_dd",
	"thisIsAVeryLongIdentifierNameThatGoesOnAndOnForMoreThanThirtyTwoRunes",
	"abcdefghijklmnopqrstuvwxyzabcdefg", "abcdefghijklmnopqrstuvwxyzabcdef", "deadbeef12", "v1beta1",
	"0x1F", "12ab", "ab12cd34ef56", "func (s *Server) ServeHTTP(w ResponseWriter, r *Request)",
	"// Package http provides HTTP client and server implementations.",
	"if err != nil { return fmt.Errorf(\"read config: %w\", err) }",
	"// Done. Really!\n// More", "/* x.y */", "a.\u00a0b", "a?\u2003b", "end.", "...", "#  Title  \n\n  # body.",
}

func TestSplitIdentifierMatchesReference(t *testing.T) {
	words := []string{"x1", "ab", "a1b", "12ab", "v1beta1", "abcdefghijk1", "abcdefghij1", "ü1ä", "١٢ab", "ⅫⅫ"}
	for w := range stopWords {
		words = append(words, w, w+"s", w+"1")
	}
	for _, s := range tricky {
		got, want := text.SplitIdentifier(s), refSplitIdentifier(s)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("text.SplitIdentifier(%q) = %q, want %q", s, got, want)
		}
		words = append(words, got...)
	}
	for _, w := range words {
		if nameWord(w) != refNameWord(w) || topicWord(w) != refTopicWord(w) {
			t.Errorf("%q: nameWord %v topicWord %v, want %v %v", w, nameWord(w), topicWord(w), refNameWord(w), refTopicWord(w))
		}
	}
}

// checkAgainstReference finishes secs at path and compares topics and
// lexical texts with the reference implementation.
func checkAgainstReference(t *testing.T, path string, secs []memory.Section) {
	t.Helper()
	path = cleanString(path) // as Finish does
	pathWords := refPathTopics(path)
	if got := pathTopics(path); !reflect.DeepEqual(got, pathWords) {
		t.Fatalf("pathTopics(%q) = %q, want %q", path, got, pathWords)
	}
	res := Result{Kind: "code", Parser: "fallback", Sections: secs}
	Finish(&res, Input{Path: path, Language: "Go"})
	for i := range res.Sections {
		s := res.Sections[i]
		s.Topics = nil
		want := refSectionTopics(pathWords, &s)
		if got := res.Sections[i].Topics; !reflect.DeepEqual(got, want) {
			t.Fatalf("%s section %d (%.60q): topics %q, want %q", path, i, s.Content, got, want)
		}
		s.Topics = want
		for _, doc := range []string{s.Doc, s.Content} {
			if got, want := firstSentence(doc), refFirstSentence(doc); got != want {
				t.Fatalf("firstSentence(%.80q) = %q, want %q", doc, got, want)
			}
		}
		if got, want := LexicalText(path, s), refLexicalText(path, s); got != want {
			t.Fatalf("%s section %d: lexical text\n%q\nwant\n%q", path, i, got, want)
		}
		if Hash(refLexicalText(path, s)) != res.Sections[i].LexHash {
			t.Fatalf("%s section %d: LexHash is not the hash of the lexical text", path, i)
		}
		if Hash(EmbeddingText(path, s)) != res.Sections[i].EmbHash {
			t.Fatalf("%s section %d: EmbHash is not the hash of the embedding text", path, i)
		}
	}
	if want := refFileTopics(pathWords, res.Sections); !reflect.DeepEqual(res.Topics, want) {
		t.Fatalf("%s: file topics %q, want %q", path, res.Topics, want)
	}
}

// sectionsOf cuts content into sections of 7 lines, named after their
// first line, the way FuzzFinish does.
func sectionsOf(content []byte) []memory.Section {
	lines := Lines(content)
	var secs []memory.Section
	for from := 1; from <= lines.Count(); from += 7 {
		to := min(from+6, lines.Count())
		text := lines.Text(content, from, to)
		name, _, _ := strings.Cut(text, "\n")
		if len(name) > 40 {
			name = name[:40]
		}
		secs = append(secs, memory.Section{Anchor: name, Name: name, QName: name, Doc: text[:len(text)/3], Signature: name,
			StartLine: from, EndLine: to, Content: text})
	}
	return secs
}

func TestTopicsMatchReference(t *testing.T) {
	var b strings.Builder
	for i, s := range tricky {
		b.WriteString(s)
		b.WriteString([]string{"\n", " ", ".", "_", "", "\t"}[i%6])
	}
	checkAgainstReference(t, "pkg/ÜberGröße/HTTPServer_test.go", sectionsOf([]byte(strings.Repeat(b.String()+"\n", 3))))
	checkAgainstReference(t, "a.go", []memory.Section{{Content: b.String(), Name: "x", QName: "$.a.b", Symbol: "key"}})
	checkAgainstReference(t, "", []memory.Section{{}})

	// Real code, when the Go tree is at hand.
	paths, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", "net", "http", "*.go"))
	if len(paths) > 12 {
		paths = paths[:12]
	}
	for _, p := range paths {
		content, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		checkAgainstReference(t, "net/http/"+filepath.Base(p), sectionsOf(content))
	}
}

// FuzzTopics checks the optimised topics, splitting and lexical text
// against the reference on arbitrary text.
func FuzzTopics(f *testing.F) {
	for _, s := range tricky {
		f.Add("dir/"+s+".go", s)
	}
	f.Fuzz(func(t *testing.T, path, content string) {
		if got, want := text.SplitIdentifier(content), refSplitIdentifier(content); !reflect.DeepEqual(got, want) {
			t.Fatalf("text.SplitIdentifier(%q) = %q, want %q", content, got, want)
		}
		checkAgainstReference(t, path, sectionsOf([]byte(content)))
	})
}

// TestTopicsWordBoundaries checks parts of every length up to past the
// 32-byte key, at every alignment to the 8-byte loads, in every case
// shape, at the start, middle and end of a text.
func TestTopicsWordBoundaries(t *testing.T) {
	const letters = "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz"
	shapes := []func(string) string{
		func(w string) string { return w },
		strings.ToUpper,
		func(w string) string { return strings.ToUpper(w[:1]) + w[1:] },
		func(w string) string { return strings.ToUpper(w[:len(w)/2]) + w[len(w)/2:] },
		func(w string) string { return w[:len(w)/2] + "7" + w[len(w)/2:] },
	}
	for n := 1; n <= 40; n++ {
		var secs []memory.Section
		for _, shape := range shapes {
			w := shape(letters[n%7 : n%7+n])
			for pad := 0; pad < 9; pad++ {
				p := strings.Repeat(" ", pad)
				secs = append(secs,
					memory.Section{Content: p + w},
					memory.Section{Content: p + w + " " + w + "_x"},
					memory.Section{Content: "x" + p + w + "Zz9" + w, Signature: w, Name: w + p})
			}
		}
		checkAgainstReference(t, "dir/words.go", secs)
	}
}
