package section

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/text"
)

// Bounds applied by Finish.
const (
	// MaxTopics is how many topics a section or a file keeps.
	MaxTopics = 12
	// MaxSummary is the longest summary in runes.
	MaxSummary = 200
	// MaxChunkLines and MaxChunkBytes bound one embedding chunk, and the
	// content part of a section's own embedding text. A section whose
	// content exceeds either bound is given chunks; it stays one section.
	MaxChunkLines = 60
	MaxChunkBytes = 4096
)

// Finish is the step every sectioner's result goes through before it is
// stored. It makes the result safe and complete:
//
//   - every string is valid UTF-8 (invalid bytes become U+FFFD) without a
//     byte order mark or carriage returns, so records are valid JSON text;
//   - every section has a Kind, Parser and Language (from the result when
//     the sectioner left them empty), sane 1-based line numbers and a
//     non-empty anchor that is unique in the file;
//   - Topics and Summary are filled where the sectioner left them empty;
//   - sections too large to embed whole get Chunks;
//   - LexHash, EmbHash and each chunk's EmbHash are set from the retrieval
//     texts, so vectors can be reused by hash;
//   - res.Topics holds the file's topics.
//
// Finish is deterministic: the same input always gives the same result.
func Finish(res *Result, in Input) {
	path := cleanString(in.Path)
	res.Kind = cleanString(res.Kind)
	res.Parser = cleanString(res.Parser)
	res.Fallback = oneLine(cleanString(res.Fallback))
	if res.Language == "" {
		res.Language = in.Language
	}
	res.Language = cleanString(res.Language)

	f := getFinisher()
	defer putFinisher(f)
	f.setPath(pathTopics(path))
	pathSplit := string(text.AppendSplit(nil, path))
	var anchors AnchorSet
	for i := range res.Sections {
		s := &res.Sections[i]
		normalise(s)
		if s.Kind == "" {
			s.Kind = res.Kind
		}
		if s.Parser == "" {
			s.Parser = res.Parser
		}
		if s.Language == "" {
			s.Language = res.Language
		}
		if s.StartLine < 1 {
			s.StartLine = 1
		}
		if s.EndLine < s.StartLine {
			s.EndLine = s.StartLine + max(0, countLines(s.Content)-1)
		}
		if s.Anchor == "" {
			s.Anchor = defaultAnchor(s)
		}
		s.Anchor = anchors.Add(s.Anchor)

		if len(s.Topics) == 0 {
			s.Topics = f.sectionTopics(s)
		} else {
			s.Topics = cleanTopics(s.Topics)
		}
		if s.Summary == "" {
			s.Summary = summarize(s)
		}
		s.Summary = bound(oneLine(s.Summary), MaxSummary)

		s.Chunks = chunks(s)
		// The retrieval texts are built in one reused buffer and hashed
		// there; LexicalText and EmbeddingText build the same bytes.
		f.text = appendLexical(f.text[:0], path, pathSplit, s)
		s.LexHash = hashBytes(f.text)
		f.text = appendEmbedding(f.text[:0], path, s)
		s.EmbHash = hashBytes(f.text)
		if len(s.Chunks) > 0 {
			eachChunkBody(s, func(c *memory.Chunk, body string) {
				f.text = appendChunk(f.text[:0], path, s, *c, body)
				c.EmbHash = hashBytes(f.text)
			})
		}
	}
	res.Topics = f.fileTopics(res.Sections, res.Topics)
}

// eachChunkBody calls fn with each chunk of s and the chunk's lines of
// content. Chunks are consecutive, so the content is walked once.
func eachChunkBody(s *memory.Section, fn func(c *memory.Chunk, body string)) {
	rest := s.Content
	line := s.StartLine
	for j := range s.Chunks {
		c := &s.Chunks[j]
		for line < c.StartLine && rest != "" {
			k := strings.IndexByte(rest, '\n')
			if k < 0 {
				rest = ""
				break
			}
			rest = rest[k+1:]
			line++
		}
		body := rest
		for n := c.StartLine; n <= c.EndLine; n++ {
			k := strings.IndexByte(rest, '\n')
			if k < 0 {
				rest = rest[len(rest):]
				break
			}
			rest = rest[k+1:]
		}
		line = c.EndLine + 1
		fn(c, strings.TrimSuffix(body[:len(body)-len(rest)], "\n"))
	}
}

func defaultAnchor(s *memory.Section) string {
	switch {
	case s.QName != "":
		return s.QName
	case s.Name != "":
		return s.Name
	}
	return "line:" + strconv.Itoa(s.StartLine)
}

// cleanString makes s valid UTF-8 (U+FFFD for invalid bytes) without a
// leading byte order mark or carriage returns.
func cleanString(s string) string {
	s = strings.TrimPrefix(s, "\uFEFF")
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(s, "\r", "")
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return s
}

func normalise(s *memory.Section) {
	for _, p := range []*string{&s.Anchor, &s.Kind, &s.Symbol, &s.Language, &s.Parser,
		&s.Name, &s.QName, &s.Signature, &s.Doc, &s.Summary, &s.Content} {
		*p = cleanString(*p)
	}
	s.Anchor = oneLine(s.Anchor)
	s.Name = oneLine(s.Name)
	s.QName = oneLine(s.QName)
}

// oneLine folds every run of whitespace, newlines included, into one space.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\n\t\v\f") && !strings.Contains(s, "  ") &&
		strings.TrimSpace(s) == s {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// bound cuts s to at most n runes, ending in "…" when it was cut.
func bound(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i, count := 0, 0
	for i < len(s) {
		if count == n-1 {
			return s[:i] + "…"
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		count++
	}
	return s
}

func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// ---- summary ----

// summarize picks one line that says what a section is: the first sentence
// of its doc comment, else its signature, else its heading path, else its
// first content line that has a letter or digit in it.
func summarize(s *memory.Section) string {
	if d := firstSentence(s.Doc); d != "" {
		return d
	}
	if sig := oneLine(s.Signature); sig != "" {
		return sig
	}
	if s.Symbol == "heading" && s.QName != "" {
		return s.QName
	}
	rest := s.Content
	for rest != "" {
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		if strings.IndexFunc(line, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			return oneLine(bound(line, 4*MaxSummary))
		}
	}
	if s.QName != "" {
		return s.QName
	}
	return s.Name
}

// firstSentence returns the first sentence of a doc comment's first
// paragraph (at most 21 lines of it), with comment markers removed and
// runs of white space folded into one space.
func firstSentence(doc string) string {
	var buf [256]byte
	b := buf[:0]
	lines, checked := 0, 0
	for rest := doc; ; {
		line, more := rest, false
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line, rest, more = rest[:i], rest[i+1:], true
		}
		if line = stripCommentMarker(line); line != "" {
			b = appendFields(b, line)
			lines++
			// A sentence ends at '.', '!' or '?' before a space or at the
			// end of the text. What follows the current end is a space or
			// nothing, so the end of the text so far counts too.
			for ; checked < len(b); checked++ {
				switch b[checked] {
				case '.', '!', '?':
					if checked+1 == len(b) || b[checked+1] == ' ' {
						return string(b[:checked+1])
					}
				}
			}
		} else if lines > 0 {
			break
		}
		if !more || lines > 20 {
			break
		}
	}
	return string(b)
}

// appendFields appends the white-space separated fields of s to b (which
// holds fields already, or nothing), each preceded by one space unless b
// is empty: strings.Join(strings.Fields(s), " ") without the allocations.
func appendFields(b []byte, s string) []byte {
	inField := false
	for i := 0; i < len(s); {
		c, size := rune(s[i]), 1
		if c >= utf8.RuneSelf {
			c, size = utf8.DecodeRuneInString(s[i:])
		}
		if unicode.IsSpace(c) {
			inField = false
		} else {
			if !inField && len(b) > 0 {
				b = append(b, ' ')
			}
			inField = true
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return b
}

func stripCommentMarker(line string) string {
	line = strings.TrimSpace(line)
	for _, m := range []string{"///", "//!", "//", "/**", "/*!", "/*", "#", "--", ";;", "*", `"""`, `'''`} {
		if strings.HasPrefix(line, m) {
			line = line[len(m):]
			break
		}
	}
	for _, m := range []string{"*/", `"""`, `'''`} {
		line = strings.TrimSuffix(strings.TrimSpace(line), m)
	}
	return strings.TrimSpace(line)
}

// ---- chunks ----

// chunks splits a section's content into consecutive line ranges of at most
// MaxChunkLines lines and MaxChunkBytes bytes, when the content exceeds
// either bound. A single line longer than MaxChunkBytes (minified code, a
// generated table row) is one chunk of its own: chunks never split a line,
// and its embedding text is cut to the byte bound instead.
func chunks(s *memory.Section) []memory.Chunk {
	if len(s.Content) <= MaxChunkBytes && strings.Count(s.Content, "\n") < MaxChunkLines {
		return nil
	}
	var out []memory.Chunk
	rest := s.Content
	line := s.StartLine
	for rest != "" {
		n, size := 0, 0
		for rest != "" && n < MaxChunkLines {
			k := strings.IndexByte(rest, '\n')
			l := len(rest)
			if k >= 0 {
				l = k + 1
			}
			if n > 0 && size+l > MaxChunkBytes {
				break
			}
			size += l
			n++
			rest = rest[l:]
		}
		out = append(out, memory.Chunk{StartLine: line, EndLine: line + n - 1})
		line += n
	}
	if len(out) < 2 {
		// Only bytes were too many, on one line: nothing to split.
		return nil
	}
	return out
}

// head returns the leading part of content that fits one chunk: at most
// MaxChunkLines lines and MaxChunkBytes bytes, cut at a line end when it can
// be and at a rune boundary when a single line is longer than the bound.
func head(content string) string {
	end, n := 0, 0
	for end < len(content) && n < MaxChunkLines {
		k := strings.IndexByte(content[end:], '\n')
		next := len(content)
		if k >= 0 {
			next = end + k + 1
		}
		if next > MaxChunkBytes {
			if n == 0 {
				return CutBytes(content, MaxChunkBytes)
			}
			break
		}
		end = next
		n++
	}
	return strings.TrimSuffix(content[:end], "\n")
}

// CutBytes cuts s to at most n bytes at a rune boundary.
func CutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
