// Package asciidoc sections AsciiDoc documents by their section titles.
//
// A title is a line at the margin opening with one to six "=" (or, as
// Asciidoctor also reads them, "#") and a space: "= Document title",
// "== Section", "=== Subsection"; a closing run of the same marks is
// dropped. The older two-line form, a title underlined with "=", "-", "~",
// "^" or "+" (levels 0 to 4) about as long as the title (within two
// characters, as Asciidoctor requires), is read too: it is what older
// documents, git's manual pages among them, are written in.
//
// Delimited blocks (listing "----", literal "....", example "====",
// sidebar "****", quote "____", passthrough "++++", comment "////", open
// "--", tables "|===") hold no titles, and a title needs a block boundary
// before it (a blank line, an attribute line, another title), so a
// paragraph line that happens to start with "= " stays text.
//
// Every section runs from its title to the line before the next one, so
// no line is indexed twice; its anchor is its heading path ("Guide >
// Install > From source").
package asciidoc

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/extract/section/doc"
	"github.com/konteks/git-konteks/internal/lazyre"
)

// Kind and Parser of the results.
const (
	Kind   = "asciidoc"
	Parser = doc.Parser
)

// underlines are the two-line title marks by level.
const underlines = "=-~^+"

// Split sections an AsciiDoc document: the text before the first title
// (Symbol "preamble"), then one section per title (Symbol "heading",
// QName and Anchor the heading path). Kind "asciidoc", Parser
// "structural".
//
// Split never fails: if it panics on some input, the file becomes one
// whole-file section and Result.Fallback says why.
func Split(in section.Input) section.Result {
	return doc.Split(in, Kind, headings)
}

// headings finds the titles of a document, in line order.
func headings(src []byte, lines *section.LineIndex) []doc.Heading {
	n := lines.Count()
	line := func(i int) []byte {
		return bytes.TrimRight(src[lines.Start(i):lines.End(i)], " \t\r")
	}
	var out []doc.Heading
	var fence []byte // the delimiter of the block the line is in
	boundary := true // a block may start on this line
	for i := 1; i <= n; i++ {
		l := line(i)
		if fence != nil {
			if bytes.Equal(l, fence) {
				fence, boundary = nil, true
			}
			continue
		}
		switch {
		case len(l) == 0:
			boundary = true
			continue
		case isDelimiter(l):
			fence, boundary = l, false
			continue
		case bytes.HasPrefix(l, []byte("//")):
			continue // a line comment: no text, no boundary change
		case l[0] == '[' && l[len(l)-1] == ']', l[0] == ':' && bytes.IndexByte(l[1:], ':') > 0, l[0] == '.' && len(l) > 1 && l[1] != '.' && l[1] != ' ':
			// Block attributes, anchors, attribute entries and block
			// titles sit between blocks.
			boundary = true
			continue
		}
		if !boundary {
			continue
		}
		if lvl, name, ok := oneLine(l); ok {
			out = append(out, doc.Heading{Line: i, Level: lvl + 1, Name: name})
			boundary = true
			continue
		}
		if i < n {
			if lvl, ok := underline(l, line(i+1)); ok {
				out = append(out, doc.Heading{Line: i, Level: lvl + 1, Name: plain(string(l))})
				i++
				boundary = true
				continue
			}
		}
		boundary = false
	}
	return out
}

// oneLine reads an "== Title" line: its level (0 for the document title)
// and its name.
func oneLine(l []byte) (int, string, bool) {
	c := l[0]
	if c != '=' && c != '#' {
		return 0, "", false
	}
	k := 0
	for k < len(l) && l[k] == c {
		k++
	}
	if k > 6 || k >= len(l) || l[k] != ' ' && l[k] != '\t' {
		return 0, "", false
	}
	t := bytes.TrimSpace(l[k:])
	if i := bytes.LastIndexAny(t, " \t"); i >= 0 && len(bytes.Trim(t[i+1:], string(c))) == 0 {
		t = bytes.TrimSpace(t[:i]) // "== Title ==" (symmetric marks)
	}
	if len(t) == 0 {
		return 0, "", false
	}
	return k - 1, plain(string(t)), true
}

// underline reads a two-line title: l underlined by u.
func underline(l, u []byte) (int, bool) {
	if len(u) < 2 {
		return 0, false
	}
	lvl := strings.IndexByte(underlines, u[0])
	if lvl < 0 || bytes.Count(u, u[:1]) != len(u) {
		return 0, false
	}
	if l[0] == ' ' || l[0] == '\t' || isDelimiter(l) || !hasWordChar(l) {
		return 0, false
	}
	if d := utf8.RuneCount(l) - len(u); d < -2 || d > 2 {
		return 0, false
	}
	return lvl, true
}

func hasWordChar(l []byte) bool {
	return bytes.IndexFunc(l, func(r rune) bool {
		return r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= 0x80
	}) >= 0
}

// isDelimiter reports whether a line opens (or closes) a delimited block.
func isDelimiter(l []byte) bool {
	switch {
	case string(l) == "--":
		return true
	case bytes.HasPrefix(l, []byte("|===")), bytes.HasPrefix(l, []byte(",===")), bytes.HasPrefix(l, []byte(":===")), bytes.HasPrefix(l, []byte("!===")):
		return len(l) >= 4
	case bytes.HasPrefix(l, []byte("```")):
		return true
	}
	if len(l) < 4 {
		return false
	}
	c := l[0]
	if strings.IndexByte("-.=*_+/", c) < 0 {
		return false
	}
	return bytes.Count(l, l[:1]) == len(l)
}

// Inline markup of titles.
var (
	reLink    = lazyre.New(`\b(?:https?|link|xref|mailto):[^\s\[]*\[([^\]]*)\]`)
	reXref    = lazyre.New(`<<[^,>]*,\s*([^>]+)>>`)
	reXrefID  = lazyre.New(`<<([^,>]+)>>`)
	reAnchor  = lazyre.New(`\[\[[^\]]*\]\]|\[#[^\]]*\]`)
	reConstrd = lazyre.New("(^|[\\s(\\[])([*_`#+])(\\S(?:.*?\\S)?)([*_`#+])($|[\\s),.;:!?\\]])")
)

// plain renders a title's inline markup as its text: links and cross
// references become their text, anchors are dropped, and emphasis,
// monospace and passthrough marks around words are removed.
func plain(t string) string {
	if strings.ContainsAny(t, "*_`#+<[:") {
		t = reAnchor.ReplaceAllString(t, "")
		t = reLink.ReplaceAllString(t, "$1")
		t = reXref.ReplaceAllString(t, "$1")
		t = reXrefID.ReplaceAllString(t, "$1")
		t = strings.NewReplacer("**", "", "__", "", "``", "").Replace(t)
		t = doc.Unmark(reConstrd.Re(), t)
	}
	t = strings.Join(strings.Fields(strings.ToValidUTF8(t, "\uFFFD")), " ")
	if t == "" {
		return doc.Untitled
	}
	return t
}
