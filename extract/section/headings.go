package section

import (
	"strings"

	"github.com/konteks/git-konteks/memory"
)

// HeadingPathSep joins the titles of a heading path ("Install > From
// source"), in every document format.
const HeadingPathSep = " > "

// UntitledHeading names a title that has no text.
const UntitledHeading = "untitled"

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

// HeadingSections makes the sections of a document from its titles, as
// the Markdown sectioner does: the text from line from to the first title
// is the preamble (Symbol "preamble", blank lines trimmed); each title's
// section runs to the line before the next title of any level, so no
// line is indexed twice; its QName and Anchor are the heading path, with
// "#2", "#3", ... for a repeated path. Headings must be in line order,
// each at or after from; one that is not is ignored. Kind and Parser are
// left to the caller.
func HeadingSections(src []byte, lines *LineIndex, from int, hs []Heading, lang string) []memory.Section {
	total := lines.Count()
	if from < 1 {
		from = 1
	}
	out := make([]memory.Section, 0, len(hs)+1)
	var anchors AnchorSet
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
			name = UntitledHeading
		}
		stack = append(stack, open{h.Level, name})
		path = path[:0]
		for _, o := range stack {
			path = append(path, o.name)
		}
		qname := strings.Join(path, HeadingPathSep)
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
