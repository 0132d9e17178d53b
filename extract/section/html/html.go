// Package html sections HTML pages (.html, .htm) by their headings.
//
// Only what a reader sees is kept: scripts, styles, templates, embedded
// objects and navigation chrome (<nav>, role="navigation", a page-level
// <header> or <footer>, hidden elements) are dropped; the text is
// whitespace-collapsed into Markdown-like lines, links are kept as
// references ("[text](href)") and images as "![alt](src)", so that the
// pages and files a document points at stay findable.
//
// The page is read with golang.org/x/net/html's tokenizer, not its tree
// builder: the tokenizer is a single linear pass with no nesting stack,
// so 50 MB of nested <div>s costs what 50 MB of text does, and broken
// markup never fails. Each section runs from its heading to the line
// before the next heading (an HTML page written on one line gives
// sections that share it).
package html

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/memory"
)

// Kind and Parser of the results.
const (
	Kind   = "html"
	Parser = "html"
)

// PathSep joins the headings of a heading path (as Markdown does).
const PathSep = " > "

// Untitled names a heading that has no text.
const Untitled = "untitled"

// dropped elements: never visible text, or navigation chrome.
var dropped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Nav: true, atom.Iframe: true, atom.Object: true, atom.Svg: true,
	atom.Canvas: true, atom.Button: true, atom.Select: true, atom.Datalist: true,
}

// chromeRoles are ARIA landmark roles of navigation chrome.
var chromeRoles = map[string]bool{"navigation": true, "banner": true, "contentinfo": true, "search": true}

// blocks maps block-level elements to the newlines around them (2: a
// blank line, as between paragraphs).
var blocks = map[atom.Atom]int{
	atom.P: 2, atom.Pre: 2, atom.Table: 2, atom.Ul: 2, atom.Ol: 2, atom.Dl: 2,
	atom.Blockquote: 2, atom.Figure: 2, atom.Hr: 2, atom.Details: 2,
	atom.Div: 1, atom.Section: 1, atom.Article: 1, atom.Main: 1, atom.Header: 1,
	atom.Footer: 1, atom.Aside: 1, atom.Li: 1, atom.Dt: 1, atom.Dd: 1, atom.Tr: 1,
	atom.Caption: 1, atom.Figcaption: 1, atom.Address: 1, atom.Summary: 1,
	atom.Fieldset: 1, atom.Legend: 1, atom.Form: 1, atom.Br: 1, atom.Body: 1,
}

// void elements have no end tag.
var void = map[atom.Atom]bool{
	atom.Area: true, atom.Base: true, atom.Br: true, atom.Col: true, atom.Embed: true,
	atom.Hr: true, atom.Img: true, atom.Input: true, atom.Link: true, atom.Meta: true,
	atom.Source: true, atom.Track: true, atom.Wbr: true,
}

// part is one section being collected.
type part struct {
	symbol string // title, preamble, heading
	level  int
	name   string
	start  int // byte offset where it starts
	first  int // byte offset of its first visible text (-1: none yet)
	text   textBuf
}

// Split sections an HTML page: a "title" section (the <title> and the
// meta description), the visible text before the first heading
// ("preamble"), then one section per heading <h1>..<h6> (Symbol
// "heading", Name its text, QName and Anchor the heading path, "#2" for a
// repeated path). Split never fails; a panic in the tokenizer (none is
// known) becomes a result without sections and a warning.
func Split(in section.Input) (res section.Result, err error) {
	res = section.Result{Kind: Kind, Language: in.Language, Parser: Parser}
	defer func() {
		if r := recover(); r != nil {
			res = section.Result{Kind: Kind, Language: in.Language, Parser: Parser,
				Fallback: "html-error", Warnings: []string{fmt.Sprintf("html: tokenizer panic: %v", r)}}
			err = fmt.Errorf("html tokenizer panic: %v", r)
		}
	}()
	src := section.StripBOM(in.Content)
	lines := section.Lines(src)

	var (
		title, desc  strings.Builder
		inTitle      bool
		parts        []*part
		cur          = &part{symbol: "preamble", first: -1}
		titleAt      = -1      // offset of <title>
		skip         int       // depth inside a dropped element
		skipAtom     atom.Atom // the dropped element
		skipName     string    // its name, for elements without an atom
		content      int       // depth inside <article>/<main>: headers there are content
		heading      *part     // the heading being read, if any
		headingName  strings.Builder
		href         string // open link's target
		linkWritten  bool
		off          int
		z            = html.NewTokenizer(bytes.NewReader(src))
		headingCount int
	)
	parts = append(parts, cur)
	closeLink := func() {
		if href != "" {
			if linkWritten {
				cur.text.suffix("](" + href + ")")
			} else {
				cur.text.open = strings.TrimSuffix(cur.text.open, "[")
			}
		}
		href, linkWritten = "", false
	}
	endHeading := func() {
		if heading == nil {
			return
		}
		closeLink()
		heading.name = strings.Join(strings.Fields(headingName.String()), " ")
		if heading.name == "" {
			heading.name = Untitled
		}
		heading = nil
		cur.text.open = "" // a heading without text: no "## " before the body
		cur.text.block(2)
	}
	for {
		tt := z.Next()
		raw := z.Raw()
		start := off
		off += len(raw)
		if tt == html.ErrorToken {
			break // io.EOF, or a read error of the in-memory reader (none)
		}
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			nameB, hasAttr := z.TagName()
			a := atom.Lookup(nameB)
			if skip > 0 {
				if tt == html.StartTagToken && sameTag(a, nameB, skipAtom, skipName) {
					skip++
				}
				continue
			}
			var attrs map[string]string
			if hasAttr {
				attrs = readAttrs(z)
			}
			if a == atom.Title {
				inTitle = true
				if titleAt < 0 {
					titleAt = start
				}
				continue
			}
			if a == atom.Meta && strings.EqualFold(attrs["name"], "description") {
				desc.WriteString(attrs["content"])
				continue
			}
			if tt == html.StartTagToken && !void[a] && isDropped(a, attrs, content) {
				skip, skipAtom, skipName = 1, a, string(nameB)
				continue
			}
			if a == atom.Article || a == atom.Main {
				content++
			}
			if level := headingLevel(a); level > 0 {
				endHeading()
				closeLink()
				headingCount++
				cur = &part{symbol: "heading", level: level, start: start, first: start}
				parts = append(parts, cur)
				heading = cur
				headingName.Reset()
				cur.text.open = strings.Repeat("#", level) + " "
				continue
			}
			if n := blocks[a]; n > 0 {
				cur.text.block(n)
			}
			switch a {
			case atom.Pre:
				cur.text.openPre()
			case atom.Li:
				cur.text.open += "- "
			case atom.Td, atom.Th:
				cur.text.space = true
			case atom.A:
				closeLink()
				if h := cleanRef(attrs["href"]); h != "" {
					href = h
					cur.text.open += "["
				}
			case atom.Img:
				alt := strings.Join(strings.Fields(attrs["alt"]), " ")
				if src := cleanRef(attrs["src"]); src != "" || alt != "" {
					cur.text.word("![" + alt + "](" + src + ")")
					if heading != nil {
						headingName.WriteString(" " + alt + " ")
					}
				}
			}
		case html.EndTagToken:
			nameB, _ := z.TagName()
			a := atom.Lookup(nameB)
			if skip > 0 {
				if sameTag(a, nameB, skipAtom, skipName) {
					skip--
				}
				continue
			}
			switch {
			case a == atom.Title:
				inTitle = false
			case headingLevel(a) > 0:
				endHeading()
			case a == atom.A:
				closeLink()
			case a == atom.Pre:
				cur.text.closePre()
			case a == atom.Article || a == atom.Main:
				if content > 0 {
					content--
				}
			}
			if n := blocks[a]; n > 0 {
				cur.text.block(n)
			}
		case html.TextToken:
			if skip > 0 {
				continue
			}
			t := string(z.Text())
			if inTitle {
				title.WriteString(t)
				continue
			}
			if cur.text.write(t) {
				if cur.first < 0 {
					cur.first = start
				}
				if href != "" {
					linkWritten = true
				}
			}
			if heading != nil {
				headingName.WriteString(t)
			}
		}
	}
	endHeading()
	closeLink()
	if skip > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("html: <%s> never closed; the rest of the page was dropped", skipName))
	}

	var anchors section.AnchorSet
	add := func(s memory.Section) {
		s.Kind, s.Parser, s.Language = Kind, Parser, in.Language
		s.Anchor = anchors.Add(s.Anchor)
		res.Sections = append(res.Sections, s)
	}
	total := max(lines.Count(), 1)
	if t := oneLine(title.String()); t != "" || oneLine(desc.String()) != "" {
		body := t
		if d := oneLine(desc.String()); d != "" {
			body = strings.TrimSpace(body + "\n\n" + d)
		}
		line := min(lines.Line(max(titleAt, 0)), total)
		add(memory.Section{Anchor: "title", Symbol: "title", Name: t, StartLine: line, EndLine: line, Content: body})
	}
	type open struct {
		level int
		name  string
	}
	var stack []open
	for i, p := range parts {
		startLine := min(lines.Line(max(p.first, p.start)), total)
		endLine := total
		if i+1 < len(parts) {
			endLine = max(startLine, lines.Line(parts[i+1].start)-1)
		}
		body := strings.TrimSpace(p.text.String())
		if p.symbol == "preamble" {
			if body == "" {
				continue
			}
			add(memory.Section{Anchor: "preamble", Symbol: "preamble", StartLine: startLine, EndLine: endLine, Content: body})
			continue
		}
		for len(stack) > 0 && stack[len(stack)-1].level >= p.level {
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, open{p.level, p.name})
		names := make([]string, len(stack))
		for j, o := range stack {
			names[j] = o.name
		}
		qname := strings.Join(names, PathSep)
		add(memory.Section{Anchor: qname, Symbol: "heading", Name: p.name, QName: qname,
			Signature: "h" + strconv.Itoa(p.level), StartLine: startLine, EndLine: endLine, Content: body})
	}
	return res, nil
}

func isDropped(a atom.Atom, attrs map[string]string, content int) bool {
	if dropped[a] {
		return true
	}
	if _, hidden := attrs["hidden"]; hidden || strings.EqualFold(attrs["aria-hidden"], "true") {
		return true
	}
	if chromeRoles[strings.ToLower(strings.TrimSpace(attrs["role"]))] && content == 0 {
		return true
	}
	// A page-level header or footer is chrome; inside <article> or <main>
	// it belongs to the content.
	return (a == atom.Header || a == atom.Footer) && content == 0
}

func sameTag(a atom.Atom, name []byte, skipAtom atom.Atom, skipName string) bool {
	if a != 0 || skipAtom != 0 {
		return a == skipAtom
	}
	return string(name) == skipName
}

func headingLevel(a atom.Atom) int {
	switch a {
	case atom.H1:
		return 1
	case atom.H2:
		return 2
	case atom.H3:
		return 3
	case atom.H4:
		return 4
	case atom.H5:
		return 5
	case atom.H6:
		return 6
	}
	return 0
}

// maxAttrs bounds the attributes read from one tag.
const maxAttrs = 64

func readAttrs(z *html.Tokenizer) map[string]string {
	m := make(map[string]string, 4)
	for i := 0; i < maxAttrs; i++ {
		k, v, more := z.TagAttr()
		key := string(k)
		if _, seen := m[key]; !seen {
			m[key] = string(v)
		}
		if !more {
			break
		}
	}
	return m
}

// cleanRef keeps a link target worth a reference: not empty, not a
// script, not a bare fragment of the same page; at most 2 KB.
func cleanRef(h string) string {
	h = strings.TrimSpace(h)
	low := strings.ToLower(h)
	if h == "" || strings.HasPrefix(h, "#") || strings.HasPrefix(low, "javascript:") || strings.HasPrefix(low, "data:") || len(h) > 2048 {
		return ""
	}
	return strings.Join(strings.Fields(h), "%20")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// textBuf collects visible text: whitespace collapsed outside <pre>,
// block boundaries as newlines (at most one blank line).
type textBuf struct {
	b        strings.Builder
	space    bool   // a space is due before the next word
	nl       int    // newlines due before the next word
	pre      int    // depth inside <pre>
	preStart bool   // nothing written since <pre> opened
	open     string // text due right before the next word ("[", "- ")
}

func (t *textBuf) block(n int) {
	if n > t.nl {
		t.nl = n
	}
}

// sep writes the separator due before a word.
func (t *textBuf) sep() {
	if t.b.Len() > 0 {
		switch {
		case t.nl >= 2:
			t.b.WriteString("\n\n")
		case t.nl == 1:
			t.b.WriteByte('\n')
		case t.space:
			t.b.WriteByte(' ')
		}
	}
	t.nl, t.space = 0, false
	if t.open != "" {
		t.b.WriteString(t.open)
		t.open = ""
	}
}

// suffix appends s to the last word, keeping the separator that is due.
func (t *textBuf) suffix(s string) {
	t.b.WriteString(s)
}

// word writes one word after the due separator and asks for a space after it.
func (t *textBuf) word(s string) {
	t.sep()
	t.b.WriteString(s)
	t.space = true
}

// openPre starts preformatted text, fenced as in Markdown.
func (t *textBuf) openPre() {
	t.pre++
	if t.pre == 1 {
		t.block(2)
		t.sep()
		t.b.WriteString("```\n")
		t.preStart = true
	}
}

func (t *textBuf) closePre() {
	if t.pre == 0 {
		return
	}
	t.pre--
	if t.pre == 0 {
		if s := t.b.String(); !strings.HasSuffix(s, "\n") {
			t.b.WriteByte('\n')
		}
		t.b.WriteString("```")
		t.preStart = false
		t.nl, t.space = 0, false
		t.block(2)
	}
}

// write adds a text token; it reports whether anything visible was written.
func (t *textBuf) write(s string) bool {
	if t.pre > 0 {
		if t.preStart {
			// As browsers do: a newline right after <pre> is not content.
			s = strings.TrimPrefix(strings.TrimPrefix(s, "\r"), "\n")
			t.preStart = false
		}
		if s == "" {
			return false
		}
		t.b.WriteString(t.open)
		t.open = ""
		t.b.WriteString(s)
		return strings.TrimSpace(s) != ""
	}
	wrote := false
	for i := 0; i < len(s); {
		if isSpace(s[i]) {
			t.space = true
			i++
			continue
		}
		j := i
		for j < len(s) && !isSpace(s[j]) {
			j++
		}
		t.sep()
		t.b.WriteString(s[i:j])
		wrote = true
		i = j
	}
	return wrote
}

func (t *textBuf) String() string { return t.b.String() }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }
