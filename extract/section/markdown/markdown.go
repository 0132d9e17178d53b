// Package markdown sections Markdown by its headings.
//
// Headings are found in goldmark's CommonMark AST, not by matching lines:
// a "# line" inside a fenced or indented code block, an HTML block or a
// front matter block is not a heading, while a setext heading (a line
// underlined with === or ---) is one, as every CommonMark renderer agrees.
// Only headings at the top level of the document count; one nested in a
// block quote or a list item stays part of its section's text.
//
// Each heading's section runs from the heading to the line before the next
// heading of any level, so no line is indexed twice; its qualified name and
// anchor are the heading path ("Install > From source"), which stays the
// same when unrelated parts of the document change.
package markdown

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	gmtext "github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/extract/section/text"
	"github.com/konteks/git-konteks/memory"
)

// PathSep joins the headings of a heading path.
const PathSep = " > "

// Untitled names a heading that has no text ("#" alone).
const Untitled = "untitled"

// blockParser parses the block structure only: headings, code blocks,
// lists, quotes, HTML blocks, paragraphs. Inline markup inside paragraphs
// is never needed, and skipping it roughly halves the cost of a large
// document; heading text is parsed inline on its own (inlineParser).
var blockParser = parser.NewParser(
	parser.WithBlockParsers(parser.DefaultBlockParsers()...),
)

// inlineParser renders one heading's inline markup (code spans, links,
// emphasis) to its plain text.
var inlineParser = parser.NewParser(
	parser.WithBlockParsers(parser.DefaultBlockParsers()...),
	parser.WithInlineParsers(parser.DefaultInlineParsers()...),
)

type heading struct {
	line  int
	level int
	name  string
}

// Split sections a Markdown file: an optional front matter section
// (Symbol "frontmatter"), the text before the first heading (Symbol
// "preamble"), then one section per top-level heading (Symbol "heading",
// Name the heading text, QName and Anchor the heading path, with "#2",
// "#3", ... for repeated paths). Kind is "markdown", Parser "structural".
//
// Split never fails: if the parser panics on some input, the file becomes
// one whole-file section and Result.Fallback says why.
func Split(in section.Input) (res section.Result) {
	defer func() {
		if r := recover(); r != nil {
			res = text.Split(in)
			res.Kind = "markdown"
			res.Fallback = fmt.Sprintf("markdown parser panic: %v", r)
			for i := range res.Sections {
				res.Sections[i].Kind = "markdown"
			}
		}
	}()
	res = section.Result{Kind: "markdown", Language: in.Language, Parser: "structural"}
	src := section.StripBOM(in.Content)
	lines := section.Lines(src)
	total := lines.Count()
	var anchors section.AnchorSet
	add := func(s memory.Section) {
		s.Kind = "markdown"
		s.Parser = "structural"
		if s.Language == "" {
			s.Language = in.Language
		}
		s.Anchor = anchors.Add(s.Anchor)
		res.Sections = append(res.Sections, s)
	}

	bodyLine := 1 // first line after front matter
	if end, lang := frontMatter(src, lines); end > 0 {
		add(memory.Section{
			Anchor:    "frontmatter",
			Symbol:    "frontmatter",
			Language:  lang,
			Name:      "frontmatter",
			StartLine: 1,
			EndLine:   end,
			Content:   lines.Text(src, 1, end),
		})
		bodyLine = end + 1
	}
	if bodyLine > total {
		return res
	}

	body := src[lines.Start(bodyLine):]
	// lineOf maps an offset in the parsed text to a line of the file.
	lineOf := func(off int) int { return lines.Line(lines.Start(bodyLine) + off) }
	if tamed, ok := tame(body); ok {
		body = tamed
		tl := section.Lines(body)
		lineOf = func(off int) int { return bodyLine - 1 + tl.Line(off) }
	}
	doc := blockParser.Parse(gmtext.NewReader(body))
	var hs []heading
	var raws [][]byte
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.Heading)
		if !ok {
			continue
		}
		pos := h.Pos()
		if pos < 0 && h.Lines().Len() > 0 {
			pos = h.Lines().At(0).Start
		}
		if pos < 0 {
			continue
		}
		line := lineOf(pos)
		if len(hs) > 0 && line <= hs[len(hs)-1].line {
			continue // cannot happen for block nodes; keep ranges ordered
		}
		hs = append(hs, heading{line: line, level: h.Level})
		raws = append(raws, rawHeading(h, body))
	}
	for i, name := range headingNames(raws) {
		hs[i].name = name
	}

	firstHeading := total + 1
	if len(hs) > 0 {
		firstHeading = hs[0].line
	}
	res.Sections = slices.Grow(res.Sections, len(hs)+1)
	if from, to := lines.TrimBlank(src, bodyLine, firstHeading-1); from <= to {
		add(memory.Section{
			Anchor:    "preamble",
			Symbol:    "preamble",
			StartLine: from,
			EndLine:   to,
			Content:   lines.Text(src, from, to),
		})
	}

	type open struct {
		level int
		name  string
	}
	var stack []open
	var path []string
	for i, h := range hs {
		for len(stack) > 0 && stack[len(stack)-1].level >= h.level {
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, open{h.level, h.name})
		path = path[:0]
		for _, o := range stack {
			path = append(path, o.name)
		}
		qname := strings.Join(path, PathSep)

		end := total
		if i+1 < len(hs) {
			end = hs[i+1].line - 1
		}
		// The heading line is never blank, so this keeps at least it.
		_, end = lines.TrimBlank(src, h.line, end)
		end = max(end, h.line)
		add(memory.Section{
			Anchor:    qname,
			Symbol:    "heading",
			Name:      h.name,
			QName:     qname,
			StartLine: h.line,
			EndLine:   end,
			Content:   lines.Text(src, h.line, end),
		})
	}
	return res
}

// Nesting limits of tame.
const (
	maxMarkers = 32  // container markers (>, -, 1.) at the start of a line
	maxIndent  = 256 // columns of leading whitespace and markers
)

// tame bounds how deeply a line can nest block containers. goldmark's cost
// grows with the square of the nesting depth, so a line of 50,000 "> " or
// "- " (or thousands of ever deeper indented list items) would take
// seconds. Only top-level headings matter here and none can sit at such a
// depth, so each line whose container prefix is longer than maxMarkers
// markers or maxIndent columns loses the excess of its prefix. Lines are
// never added or removed, so heading line numbers are unchanged. It
// returns the tamed copy, or false when no line needed it (the common
// case, which allocates nothing).
func tame(body []byte) ([]byte, bool) {
	var out []byte
	last := 0 // end of the part of body already handled
	for start := 0; start < len(body); {
		end := bytes.IndexByte(body[start:], '\n')
		if end < 0 {
			end = len(body)
		} else {
			end += start
		}
		if cut, over := prefixCut(body[start:end]); over {
			if out == nil {
				out = make([]byte, 0, len(body))
			}
			out = append(out, body[last:start+cut.keep]...)
			last = start + cut.skip
		}
		start = end + 1
	}
	if out == nil {
		return body, false
	}
	return append(out, body[last:]...), true
}

type cut struct{ keep, skip int }

// prefixCut measures a line's container prefix and, when it is too deep,
// says which part of it to keep (line[:keep]) and where the rest of the
// line resumes (line[skip:]).
func prefixCut(line []byte) (cut, bool) {
	markers, cols, keep := 0, 0, -1
	i := 0
	for i < len(line) {
		c := line[i]
		n := 0 // length of a marker at i
		switch {
		case c == ' ':
			cols++
			i++
		case c == '\t':
			cols += 4
			i++
		case c == '>':
			n = 1
		case (c == '-' || c == '*' || c == '+') && i+1 < len(line) && (line[i+1] == ' ' || line[i+1] == '\t'):
			n = 1
		case c >= '0' && c <= '9':
			j := i
			for j < len(line) && j-i < 9 && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			if j < len(line) && (line[j] == '.' || line[j] == ')') && j+1 < len(line) && (line[j+1] == ' ' || line[j+1] == '\t') {
				n = j + 1 - i
			}
		}
		if c == ' ' || c == '\t' {
			if keep < 0 && cols > maxIndent {
				keep = i - 1
			}
			continue
		}
		if n == 0 {
			break
		}
		markers++
		cols += n
		i += n
		if keep < 0 && (markers > maxMarkers || cols > maxIndent) {
			keep = i - n
		}
	}
	if keep < 0 {
		return cut{}, false
	}
	return cut{keep: keep, skip: i}, true
}

// frontMatter finds a YAML (--- ... --- or ...) or TOML (+++ ... +++)
// front matter block opening on line 1 and returns its last line and
// language, or 0 when there is none (including when it is never closed).
func frontMatter(src []byte, lines *section.LineIndex) (int, string) {
	if lines.Count() < 2 {
		return 0, ""
	}
	first := fmLine(src, lines, 1)
	var closers []string
	var lang string
	switch first {
	case "---":
		closers, lang = []string{"---", "..."}, "YAML"
	case "+++":
		closers, lang = []string{"+++"}, "TOML"
	default:
		return 0, ""
	}
	for n := 2; n <= lines.Count(); n++ {
		l := fmLine(src, lines, n)
		for _, c := range closers {
			if l == c {
				return n, lang
			}
		}
	}
	return 0, ""
}

func fmLine(src []byte, lines *section.LineIndex, n int) string {
	s, e := lines.Start(n), lines.End(n)
	if e-s > 8 {
		return "" // cannot be a delimiter; don't copy long lines
	}
	return string(bytes.TrimRight(src[s:e], " \t\r"))
}

// rawHeading returns a heading's source text, its lines joined by spaces.
func rawHeading(h *ast.Heading, src []byte) []byte {
	var raw []byte
	segs := h.Lines()
	for i := 0; i < segs.Len(); i++ {
		seg := segs.At(i)
		if i > 0 {
			raw = append(raw, ' ')
		}
		raw = append(raw, bytes.TrimRight(seg.Value(src), "\r\n")...)
	}
	return bytes.TrimSpace(raw)
}

// headingNames turns raw heading texts into names without markup: code
// spans, emphasis and links become their text, images their alt text, raw
// HTML is dropped. Texts with markup characters are parsed inline together,
// in one document of one ATX heading per line, so that markup is resolved
// exactly as a renderer would at the cost of a single parse.
func headingNames(raws [][]byte) []string {
	names := make([]string, len(raws))
	var doc []byte
	var marked []int
	for i, raw := range raws {
		switch {
		case len(raw) == 0:
			names[i] = Untitled
		case !bytes.ContainsAny(raw, "\\`*_[]<>!&"):
			names[i] = strings.Join(strings.Fields(string(raw)), " ")
		default:
			marked = append(marked, i)
			doc = append(doc, "# "...)
			doc = append(doc, bytes.ReplaceAll(raw, []byte("\n"), []byte(" "))...)
			doc = append(doc, '\n')
		}
	}
	if len(marked) == 0 {
		return names
	}
	root := inlineParser.Parse(gmtext.NewReader(doc))
	k := 0
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok && k < len(marked) {
			names[marked[k]] = plainText(h, doc)
			k++
		}
	}
	for _, i := range marked[k:] {
		// Cannot happen (every line is a heading); keep the raw text.
		names[i] = strings.Join(strings.Fields(string(raws[i])), " ")
	}
	for i, n := range names {
		if n == "" {
			names[i] = Untitled
		}
	}
	return names
}

func plainText(h *ast.Heading, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(h, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := n.(type) {
		case *ast.Text:
			v := t.Segment.Value(src)
			if _, code := t.Parent().(*ast.CodeSpan); !code {
				// As a renderer would: \# is #, &amp; is &.
				v = util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(v)))
			}
			b.Write(v)
			if t.SoftLineBreak() || t.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		case *ast.AutoLink:
			b.Write(t.Label(src))
			return ast.WalkSkipChildren, nil
		case *ast.RawHTML:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return strings.Join(strings.Fields(b.String()), " ")
}
