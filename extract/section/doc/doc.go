// Package doc holds what the sectioners of documents with titles
// (reStructuredText, AsciiDoc, Org) share: turning the titles a sectioner
// found into sections named by their heading paths, and the guard that
// keeps a file whole when a sectioner fails on it.
package doc

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/extract/section/text"
	"github.com/konteks/git-konteks/memory"
)

// PathSep joins the titles of a heading path ("Install > From
// source"), in every document format.
const PathSep = " > "

// Untitled names a title that has no text.
const Untitled = "untitled"

// Heading is one title a document sectioner found: the line its section
// starts on (an overline or the title itself), its nesting level (1 is the
// outermost; levels need not be consecutive) and its plain-text name.
// Symbol is "heading" unless the sectioner says otherwise ("directive" for
// a reStructuredText object description); Signature and Doc are copied to
// the section.
type Heading struct {
	Line      int
	Level     int
	Name      string
	Symbol    string
	Signature string
	Doc       string
}

// Sections makes the sections of a document from its titles, as
// the Markdown sectioner does: the text from line from to the first title
// is the preamble (Symbol "preamble", blank lines trimmed); each title's
// section runs to the line before the next title of any level, so no
// line is indexed twice; its QName and Anchor are the heading path, with
// "#2", "#3", ... for a repeated path. Headings must be in line order,
// each at or after from; one that is not is ignored. Kind and Parser are
// left to the caller.
func Sections(src []byte, lines *section.LineIndex, from int, hs []Heading, lang string) []memory.Section {
	total := lines.Count()
	if from < 1 {
		from = 1
	}
	out := make([]memory.Section, 0, len(hs)+1)
	var anchors section.AnchorSet
	firstHeading := total + 1
	if len(hs) > 0 {
		firstHeading = hs[0].Line
	}
	if a, b := lines.TrimBlank(src, from, min(firstHeading-1, total)); a <= b {
		out = append(out, memory.Section{
			Anchor: anchors.Add("preamble"), Symbol: "preamble", Language: lang,
			StartLine: a, EndLine: b, Content: lines.Text(src, a, b),
		})
	}
	type open struct {
		level int
		name  string
	}
	var stack []open
	path := make([]string, 0, 8)
	last := from - 1
	for i, h := range hs {
		if h.Line <= last || h.Line > total {
			continue
		}
		last = h.Line
		for len(stack) > 0 && stack[len(stack)-1].level >= h.Level {
			stack = stack[:len(stack)-1]
		}
		name := h.Name
		if name == "" {
			name = Untitled
		}
		stack = append(stack, open{h.Level, name})
		path = path[:0]
		for _, o := range stack {
			path = append(path, o.name)
		}
		qname := strings.Join(path, PathSep)
		end := total
		for _, next := range hs[i+1:] {
			if next.Line > h.Line {
				end = min(next.Line-1, total)
				break
			}
		}
		// The title line is never blank, so this keeps at least it.
		_, end = lines.TrimBlank(src, h.Line, end)
		end = max(end, h.Line)
		sym := h.Symbol
		if sym == "" {
			sym = "heading"
		}
		out = append(out, memory.Section{
			Anchor: anchors.Add(qname), Symbol: sym, Language: lang,
			Name: name, QName: qname, Signature: h.Signature, Doc: h.Doc,
			StartLine: h.Line, EndLine: end, Content: lines.Text(src, h.Line, end),
		})
	}
	return out
}

// Split sections a document by the titles find finds in it (content
// without its byte order mark, and its line index): a preamble and one
// section per title (see Sections), every section of the given kind and
// Parser "structural". If find panics on some input, the file becomes one
// whole-file section of that kind and Result.Fallback says why: a
// sectioner never fails an extraction.
func Split(in section.Input, kind string, find func(src []byte, lines *section.LineIndex) []Heading) (res section.Result) {
	defer func() {
		if r := recover(); r != nil {
			res = text.Split(in)
			res.Kind = kind
			res.Fallback = fmt.Sprintf("%s sectioner panic: %v", kind, r)
			for i := range res.Sections {
				res.Sections[i].Kind = kind
			}
		}
	}()
	src := section.StripBOM(in.Content)
	lines := section.Lines(src)
	res = section.Result{Kind: kind, Language: in.Language, Parser: Parser}
	res.Sections = Sections(src, lines, 1, find(src, lines), in.Language)
	for i := range res.Sections {
		res.Sections[i].Kind, res.Sections[i].Parser = kind, Parser
	}
	return res
}

// Parser is the Parser of document sectioners' results.
const Parser = "structural"

// Unmark removes inline emphasis marks from a title: re matches a marked
// span as (before)(mark)(text)(mark)(after), and a span whose two marks
// are the same character loses them. Nested spans ("*_word_*") take a
// few rounds; at most four are made.
func Unmark(re *regexp.Regexp, t string) string {
	for range 4 {
		u := re.ReplaceAllStringFunc(t, func(s string) string {
			m := re.FindStringSubmatch(s)
			if m[2] != m[4] {
				return s
			}
			return m[1] + m[3] + m[5]
		})
		if u == t {
			break
		}
		t = u
	}
	return t
}
