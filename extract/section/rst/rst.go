// Package rst sections reStructuredText documents by their section titles
// and by the titles of Sphinx object descriptions.
//
// A section title is, as docutils reads it, a one-line paragraph at the
// left margin underlined with a run of one punctuation character at least
// as long as the title (or four characters long), optionally with an
// identical overline above it, in which case the title may be inset. Title
// levels are not fixed by the character: the first style met is level 1,
// the next new one level 2, and so on, so "=" over "-" in one document and
// "-" over "=" in another both nest. Indented text (literal blocks,
// directive bodies, block quotes) never holds a title, and a run of
// punctuation between blank lines is a transition, not a title.
//
// Object descriptions (".. function:: url_for(endpoint, **values)",
// ".. autoclass:: flask.Flask", ".. py:method:: ...") are what API
// references are made of: each becomes a section (Symbol "directive")
// nested under the title it appears in, and inside the directive it is
// indented under, named by the object, with the directive line as its
// signature and the first paragraph of its body as its doc.
//
// Every section runs from its title to the line before the next one, so
// no line is indexed twice; its anchor is its heading path ("API >
// Application Object > Flask").
package rst

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
	Kind   = "rst"
	Parser = doc.Parser
)

// objectDirectives are the directives that describe one named object:
// Sphinx's Python, C, C++ and JavaScript domains, its standard domain's
// configuration values, options and environment variables, and autodoc.
// A domain prefix ("py:", "cpp:") is removed before the lookup.
var objectDirectives = map[string]bool{
	"function": true, "class": true, "method": true, "attribute": true, "data": true,
	"exception": true, "decorator": true, "decoratormethod": true, "classmethod": true,
	"staticmethod": true, "property": true, "type": true, "member": true, "macro": true,
	"struct": true, "union": true, "enum": true, "enumerator": true, "var": true,
	"namespace": true, "concept": true, "interface": true, "module": false,
	"confval": true, "option": true, "envvar": true, "program": true, "describe": true,
	"object": true, "setting": true, "directive": true, "role": true,
	"autofunction": true, "autoclass": true, "automethod": true, "autoattribute": true,
	"autodata": true, "autoexception": true, "autodecorator": true, "autoproperty": true,
	"automodule": true,
}

// reDirective matches an explicit markup line opening a directive:
// indentation, the directive's name and its argument text.
var reDirective = lazyre.New(`^([ \t]*)\.\.[ \t]+([A-Za-z][\w:+.-]*)::(?:[ \t]+(.*))?$`)

// style is a title adornment: its character and whether it has an
// overline.
type style struct {
	ch   byte
	over bool
}

// Split sections a reStructuredText document: the text before the first
// title (Symbol "preamble"), then one section per title (Symbol
// "heading") and per object description (Symbol "directive"), with
// QName and Anchor the heading path. Kind "rst", Parser "structural".
//
// Split never fails: if it panics on some input, the file becomes one
// whole-file section and Result.Fallback says why.
func Split(in section.Input) section.Result {
	return doc.Split(in, Kind, headings)
}

// headings finds the titles and object descriptions of a document, in
// line order.
func headings(src []byte, lines *section.LineIndex) []doc.Heading {
	n := lines.Count()
	line := func(i int) []byte {
		return bytes.TrimRight(src[lines.Start(i):lines.End(i)], " \t\r")
	}
	var styles []style
	levelOf := func(s style) int {
		for i, t := range styles {
			if t == s {
				return i + 1
			}
		}
		styles = append(styles, s)
		return len(styles)
	}
	type dir struct{ indent, level int }
	var dirs []dir  // open object descriptions, innermost last
	titleLevel := 0 // level of the title the text is under
	var out []doc.Heading
	canStart := true // the previous line ends a block: a title may begin here
	for i := 1; i <= n; i++ {
		l := line(i)
		if len(l) == 0 {
			canStart = true
			continue
		}
		if ind := indentOf(l); ind > 0 || isDirectiveLine(l) {
			if !bytes.HasPrefix(l[ind:], dots) {
				// no directive: skip the regular expression
			} else if m := reDirective.FindSubmatch(l); m != nil {
				if h, ok := directive(m, lines, src, i, n); ok {
					ind := len(m[1])
					for len(dirs) > 0 && dirs[len(dirs)-1].indent >= ind {
						dirs = dirs[:len(dirs)-1]
					}
					h.Level = titleLevel + 1
					if len(dirs) > 0 {
						h.Level = dirs[len(dirs)-1].level + 1
					}
					dirs = append(dirs, dir{ind, h.Level})
					out = append(out, h)
				}
			}
			// An indented block or explicit markup ends the paragraph
			// before it: the next line at the margin starts a new element.
			canStart = true
			continue
		}
		if !canStart {
			continue // a paragraph's continuation line
		}
		canStart = false
		if c, ok := adornment(l); ok {
			// An overline: a title line and an identical underline follow.
			if i+2 > n {
				continue
			}
			t, u := line(i+1), line(i+2)
			title := string(bytes.TrimSpace(t))
			if title == "" || !bytes.Equal(u, l) {
				continue
			}
			if _, adorned := adornment([]byte(title)); adorned {
				continue
			}
			if w := utf8.RuneCount(t); len(l) < w && len(l) < 4 {
				continue
			}
			lvl := levelOf(style{c, true})
			out = append(out, doc.Heading{Line: i, Level: lvl, Name: plain(title)})
			titleLevel, dirs = lvl, dirs[:0]
			i += 2
			canStart = true
			continue
		}
		// A one-line paragraph with an underline.
		if i+1 > n {
			continue
		}
		u := line(i + 1)
		c, ok := adornment(u)
		if !ok || isMarker(l) {
			continue
		}
		if w := utf8.RuneCount(l); len(u) < w && len(u) < 4 {
			continue
		}
		lvl := levelOf(style{c, false})
		out = append(out, doc.Heading{Line: i, Level: lvl, Name: plain(string(l))})
		titleLevel, dirs = lvl, dirs[:0]
		i++
		canStart = true
	}
	return out
}

func indentOf(l []byte) int {
	return len(l) - len(bytes.TrimLeft(l, " \t"))
}

var dots = []byte("..")

// isDirectiveLine reports whether a line at the margin is explicit markup
// (a directive, comment, target, footnote): never a title.
func isDirectiveLine(l []byte) bool {
	return bytes.HasPrefix(l, dots) && (len(l) == 2 || l[2] == ' ' || l[2] == '\t')
}

// isMarker reports whether a line starts a list item or a field, which
// docutils reads before it looks for an underline.
func isMarker(l []byte) bool {
	return len(l) >= 2 && strings.IndexByte("-*+", l[0]) >= 0 && (l[1] == ' ' || l[1] == '\t')
}

// adornment reports whether a line is a run of one punctuation character
// (spaces after it are already trimmed), and which.
func adornment(l []byte) (byte, bool) {
	if len(l) == 0 || string(l) == ".." || string(l) == "::" {
		return 0, false
	}
	c := l[0]
	if !isPunct(c) {
		return 0, false
	}
	for i := 1; i < len(l); i++ {
		if l[i] != c {
			return 0, false
		}
	}
	return c, true
}

// isPunct is docutils' set of adornment characters: printable 7-bit ASCII
// that is neither a letter, a digit nor a space.
func isPunct(c byte) bool {
	return c > ' ' && c < 0x7f && !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z')
}

// directive makes the heading of an object description at line i, whose
// match is m; ok is false for other directives and for descriptions
// without a name.
func directive(m [][]byte, lines *section.LineIndex, src []byte, i, n int) (doc.Heading, bool) {
	name := string(m[2])
	if k := strings.LastIndexByte(name, ':'); k >= 0 {
		name = name[k+1:]
	}
	if !objectDirectives[strings.ToLower(name)] {
		return doc.Heading{}, false
	}
	obj := objectName(string(m[3]))
	if obj == "" {
		return doc.Heading{}, false
	}
	return doc.Heading{
		Line: i, Symbol: "directive", Name: obj,
		Signature: strings.ToValidUTF8(string(bytes.TrimSpace(m[0])), "\uFFFD"),
		Doc:       plainDoc(bodyDoc(src, lines, i, n, len(m[1]))),
	}, true
}

// objectName is the name an object description's argument gives: the
// identifier before a parameter list ("Flask.route" of
// "Flask.route(rule, **options)", "PyType_GenericAlloc" of a C
// signature), else the first word ("--debug", "SECRET_KEY").
func objectName(arg string) string {
	arg = strings.TrimSpace(arg)
	if arg == "" {
		return ""
	}
	if k := strings.IndexAny(arg, "(<["); k > 0 {
		fs := strings.Fields(arg[:k])
		if len(fs) == 0 {
			return ""
		}
		return strings.Trim(fs[len(fs)-1], "*&")
	}
	fs := strings.Fields(arg)
	return strings.TrimRight(fs[0], ",:")
}

// bodyDoc is the first paragraph of a directive's body (its lines
// indented deeper than the directive, after its options), joined into
// one line.
func bodyDoc(src []byte, lines *section.LineIndex, i, n, indent int) string {
	var b strings.Builder
	started := false
	for j := i + 1; j <= n && j <= i+60; j++ {
		l := bytes.TrimRight(src[lines.Start(j):lines.End(j)], " \t\r")
		if len(l) == 0 {
			if started {
				break
			}
			continue
		}
		if indentOf(l) <= indent {
			break
		}
		t := bytes.TrimSpace(l)
		if !started && (t[0] == ':' || bytes.HasPrefix(t, dots)) {
			if bytes.HasPrefix(t, dots) {
				break // a nested directive before any text
			}
			continue // an option (":members:")
		}
		started = true
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.Write(t)
	}
	return strings.ToValidUTF8(b.String(), "\uFFFD")
}

// Inline markup of titles.
var (
	reRole     = lazyre.New(`:[A-Za-z][\w.+:-]*:` + "(`)")
	reLinkText = lazyre.New("`([^`<]*[^`<\\s])\\s*<[^`>]*>`")
	reLiteral  = lazyre.New("``([^`]+)``")
	reInterp   = lazyre.New("`([^`]+)`_{0,2}")
	reStrong   = lazyre.New(`\*\*([^*]+)\*\*`)
	reEmph     = lazyre.New(`(^|[\s(])\*([^*\s][^*]*)\*`)
)

// plainDoc is plain for a directive's doc text, which may be empty.
func plainDoc(t string) string {
	if t == "" {
		return ""
	}
	return plain(t)
}

// plain renders a title's inline markup as its text: roles, literals,
// interpreted text and hyperlink references become their text, emphasis
// loses its stars.
func plain(t string) string {
	if strings.ContainsAny(t, "`*\\") {
		t = reRole.ReplaceAllString(t, "$1")
		t = reLinkText.ReplaceAllString(t, "`$1`")
		t = reLiteral.ReplaceAllString(t, "$1")
		t = reInterp.ReplaceAllStringFunc(t, func(s string) string {
			s = strings.TrimRight(s, "_")
			return strings.TrimLeft(strings.Trim(s, "`"), "~!.")
		})
		t = reStrong.ReplaceAllString(t, "$1")
		t = reEmph.ReplaceAllString(t, "$1$2")
		t = strings.ReplaceAll(t, `\`, "")
	}
	t = strings.Join(strings.Fields(strings.ToValidUTF8(t, "\uFFFD")), " ")
	if t == "" {
		return doc.Untitled
	}
	return t
}
