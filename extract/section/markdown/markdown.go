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
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	gmtext "github.com/yuin/goldmark/text"

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

	base := lines.Start(bodyLine)
	body := src[base:]
	doc := blockParser.Parse(gmtext.NewReader(body))
	var hs []heading
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
		line := lines.Line(base + pos)
		if len(hs) > 0 && line <= hs[len(hs)-1].line {
			continue // cannot happen for block nodes; keep ranges ordered
		}
		hs = append(hs, heading{line: line, level: h.Level, name: headingText(h, body)})
	}

	firstHeading := total + 1
	if len(hs) > 0 {
		firstHeading = hs[0].line
	}
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

// headingText returns a heading's text without its markup: code spans,
// emphasis and links become their text, images their alt text, raw HTML
// is dropped.
func headingText(h *ast.Heading, src []byte) string {
	var raw []byte
	segs := h.Lines()
	for i := 0; i < segs.Len(); i++ {
		seg := segs.At(i)
		if i > 0 {
			raw = append(raw, ' ')
		}
		raw = append(raw, bytes.TrimRight(seg.Value(src), "\r\n")...)
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return Untitled
	}
	// Parse the text again as a one-line heading with inline parsers, so
	// the inline markup is resolved exactly as a renderer would.
	line := append([]byte("# "), raw...)
	doc := inlineParser.Parse(gmtext.NewReader(line))
	var b strings.Builder
	if hn, ok := doc.FirstChild().(*ast.Heading); ok {
		_ = ast.Walk(hn, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if !entering {
				return ast.WalkContinue, nil
			}
			switch t := n.(type) {
			case *ast.Text:
				b.Write(t.Segment.Value(line))
				if t.SoftLineBreak() || t.HardLineBreak() {
					b.WriteByte(' ')
				}
			case *ast.String:
				b.Write(t.Value)
			case *ast.AutoLink:
				b.Write(t.Label(line))
				return ast.WalkSkipChildren, nil
			case *ast.RawHTML:
				return ast.WalkSkipChildren, nil
			}
			return ast.WalkContinue, nil
		})
	} else {
		b.Write(raw)
	}
	name := strings.Join(strings.Fields(b.String()), " ")
	if name == "" {
		return Untitled
	}
	return name
}
