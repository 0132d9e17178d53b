// Package code sections source files with tree-sitter: one section per
// function, method, type, class, interface, trait, enum and module (where a
// language has them), plus one preamble section for everything outside
// them (package clause, imports, top-level statements).
//
// What a definition is in each language is said by a tags-style query,
// queries/<grammar>.scm (see queries/README.md), not by a walk over node
// type names. The queries are compiled once and shared; parsers are pooled
// per grammar because they are not goroutine-safe.
//
// Ownership of text is by byte: every byte of the file belongs to exactly
// one section, so nothing is indexed twice. A container (class, impl,
// module, ...) keeps its header, fields and closing lines; each member that
// is a section of its own is cut out of the container's Content and
// replaced by one marker line, the member's indentation followed by "...".
// The container's StartLine/EndLine still span its full text. Definitions
// nested inside a function or method (closures, local classes) are part of
// that function and get no section of their own.
//
// A section's range is widened to whole lines when only blanks (and a
// trailing ; or ,) share its first and last lines, and starts at its doc
// comment, attributes or decorators when those stand right above it.
//
// Anchors are "<prefix>:<qualified name>", the prefix "func" for functions
// and methods and the symbol kind otherwise (class:Outer.Inner,
// struct:Server, resource:aws_instance.web); a name defined again in the
// same file (overloads, redefinitions, function clauses) gets #2, #3 in
// source order. Anchors hold no line numbers, so they survive edits
// elsewhere in the file. The preamble's anchor is "preamble".
//
// Throughput is bounded by tree-sitter's parse, which takes ~85% of Split's
// time on Go code; see BenchmarkSplitGo. Go files are therefore read with
// go/parser instead, with identical sections (gosplit.go). The query costs little because,
// for grammars whose definitions sit near the root, it does not descend
// into function bodies (depth.go).
package code

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/memory"
)

const (
	// MaxSize is the largest file Split parses; larger ones get
	// ok=false, "too-large".
	MaxSize = 2 << 20
	// ParseTimeout bounds one parse; on expiry Split gives "timeout".
	ParseTimeout = 2 * time.Second
	// maxErrorShare is the share of the file that may lie inside ERROR
	// nodes before the parse is called unusable ("parse-error").
	maxErrorShare = 0.5

	// maxStartDepth bounds how deep in the syntax tree a definition may
	// start (for grammars without a smaller limit). Real code nests far
	// less; without a bound, the query's in-progress states grow with the
	// nesting and deeply nested input takes quadratic time. Text below the
	// bound stays in its enclosing section.
	maxStartDepth = 128

	maxSignature = 300
	maxDoc       = 4000
	maxName      = 200
	// Marker replaces each member cut out of its container's content.
	Marker = "..."
)

var (
	// parseTimeout is ParseTimeout; tests shorten it.
	parseTimeout = ParseTimeout
	// testHook, when set, runs inside Split (tests inject a panic).
	testHook func()
	// repanic lets the fuzz target see a panic with its stack.
	repanic bool
)

// Parsers named in results and sections.
const (
	ParserTreeSitter = "tree-sitter"
	ParserGo         = "go/parser" // Go files (gosplit.go)
)

// Fallback reasons returned by Split with ok=false.
const (
	ReasonNoGrammar  = "no-grammar"
	ReasonTooLarge   = "too-large"
	ReasonTimeout    = "timeout"
	ReasonParseError = "parse-error"
	ReasonQuery      = "query-error"
	ReasonPanic      = "panic"
)

// Split sections one source file with tree-sitter. ok=false means no grammar
// fits the language or the parse is unusable (too many error nodes,
// timeout); reason says why ("no-grammar", "parse-error", "too-large",
// "timeout", "query-error", "panic") and the caller then uses a
// declaration-line fallback.
func Split(in section.Input) (res section.Result, ok bool, reason string) {
	defer func() {
		if r := recover(); r != nil {
			if repanic {
				panic(r)
			}
			res, ok, reason = section.Result{}, false, ReasonPanic
		}
	}()
	if testHook != nil {
		testHook()
	}
	key := LanguageFor(in.Path, in.Language)
	if key == "" {
		return section.Result{}, false, ReasonNoGrammar
	}
	g := byKey[key]
	if len(in.Content) > MaxSize {
		return section.Result{}, false, ReasonTooLarge
	}
	language := in.Language
	if language == "" {
		language = g.language
	}
	src := bytes.TrimPrefix(in.Content, []byte("\xef\xbb\xbf"))
	if key == "go" && useGoParser {
		// Before the grammar loads: compiling the Go query is ~5 ms a
		// process, most of a one-file run's sectioning.
		if res, ok := splitGo(src, language); ok {
			return res, true, ""
		}
	}
	if err := g.load(); err != nil {
		return section.Result{}, false, ReasonQuery
	}

	p := g.parsers.Get().(*sitter.Parser)
	p.SetOperationLimit(int(parseTimeout / time.Microsecond))
	tree, err := p.ParseCtx(context.Background(), nil, src)
	if err != nil || tree == nil {
		// A halted parse resumes on the next call unless reset.
		p.Reset()
		g.parsers.Put(p)
		return section.Result{}, false, ReasonTimeout
	}
	g.parsers.Put(p)
	defer tree.Close()
	root := tree.RootNode()
	if root == nil {
		return section.Result{}, false, ReasonParseError
	}
	if root.HasError() && float64(errorBytes(root)) > maxErrorShare*float64(len(src)) {
		return section.Result{}, false, ReasonParseError
	}

	s := splitter{g: g, src: src, lines: lineStarts(src), lang: language, parser: ParserTreeSitter}
	if !s.collect(root, time.Now().Add(parseTimeout)) {
		return section.Result{}, false, ReasonTimeout
	}
	s.arrange()
	res = section.Result{Kind: "code", Language: language, Parser: ParserTreeSitter}
	res.Sections = s.sections()
	return res, true, ""
}

// errorBytes is the number of bytes inside top-most ERROR nodes.
func errorBytes(root *sitter.Node) int {
	if root.IsError() {
		return int(root.EndByte() - root.StartByte())
	}
	c := sitter.NewTreeCursor(root)
	defer c.Close()
	total, depth := 0, 0
	if !c.GoToFirstChild() {
		return 0
	}
	depth++
	for {
		n := c.CurrentNode()
		if n.IsError() {
			total += int(n.EndByte() - n.StartByte())
		} else if n.HasError() && c.GoToFirstChild() {
			depth++
			continue
		}
		for !c.GoToNextSibling() {
			if !c.GoToParent() {
				return total
			}
			depth--
			if depth == 0 {
				return total
			}
		}
	}
}

// span is a byte range [lo, hi).
type span struct{ lo, hi int }

// def is one definition found by the query.
type def struct {
	node      span // the captured definition node
	lo, hi    int  // owned range: wrappers, doc, attributes, whole lines
	kind      string
	name      string
	receiver  string
	body      int // start byte of the body, -1 if none
	doc       string
	docNode   span // docstring node inside the definition, if any
	parent    int
	qname     string
	dropped   bool
	nameParts int
	pattern   uint16 // query pattern that matched; earlier patterns are more specific
	outer     int    // start of the widest wrapper taken, for the signature
}

type splitter struct {
	g      *grammar
	src    []byte
	lines  []int // byte offset of each line start
	lang   string
	parser string // what found the definitions: ParserTreeSitter or ParserGo

	defs     []def
	comments []span // comment and attribute ranges, sorted
	attrs    []bool // parallel to comments: true for an attribute
	wrappers []span
}

// collect runs the grammar's query over the tree; false when it is still
// running at the deadline (a backstop: the start-depth bound keeps queries
// linear, see depth.go).
func (s *splitter) collect(root *sitter.Node, deadline time.Time) bool {
	g := s.g
	qc := sitter.NewQueryCursor()
	defer qc.Close()
	depth := uint32(maxStartDepth)
	if g.maxDepth > 0 {
		depth = g.maxDepth
	}
	setMaxStartDepth(qc, depth)
	qc.Exec(g.query, root)
	seen := map[span]int{}
	var names []string
	var skip []span
	for n := 0; ; n++ {
		m, more := qc.NextMatch()
		if !more {
			break
		}
		if n&255 == 255 && time.Now().After(deadline) {
			return false
		}
		if !s.predicatesHold(m) {
			continue
		}
		var d def
		d.body, d.parent, d.outer = -1, -1, -1
		var defNode *sitter.Node
		hasBody := false
		names = names[:0]
		for _, c := range m.Captures {
			if int(c.Index) >= len(g.caps) {
				continue
			}
			r := g.caps[c.Index]
			sp := s.trim(int(c.Node.StartByte()), int(c.Node.EndByte()))
			switch r.role {
			case "def":
				defNode = c.Node
				d.node, d.kind = sp, r.kind
			case "name":
				names = append(names, cleanName(s.src[sp.lo:sp.hi]))
			case "receiver":
				d.receiver = cleanName(s.src[sp.lo:sp.hi])
			case "body":
				d.body, hasBody = sp.lo, true
			case "kind":
				d.kind = cleanName(s.src[sp.lo:sp.hi])
			case "doc":
				d.docNode = sp
			case "comment":
				s.comments = append(s.comments, sp)
				s.attrs = append(s.attrs, false)
			case "attr":
				s.comments = append(s.comments, sp)
				s.attrs = append(s.attrs, true)
			case "wrapper":
				s.wrappers = append(s.wrappers, sp)
			case "skip":
				skip = append(skip, sp)
			}
		}
		if defNode == nil || len(names) == 0 {
			continue
		}
		d.name = strings.Join(names, ".")
		d.nameParts = len(names)
		if d.name == "" || d.kind == "" {
			continue
		}
		d.pattern = m.PatternIndex
		if !hasBody {
			if b := defNode.ChildByFieldName("body"); b != nil {
				d.body = int(b.StartByte())
			}
		}
		if i, dup := seen[d.node]; dup {
			// The same node matched by another pattern: the earlier
			// pattern in the query is the more specific one.
			o := &s.defs[i]
			if d.pattern < o.pattern {
				if d.docNode.hi == 0 {
					d.docNode = o.docNode
				}
				*o = d
			} else if o.docNode.hi == 0 {
				o.docNode = d.docNode
			}
			continue
		}
		seen[d.node] = len(s.defs)
		s.defs = append(s.defs, d)
	}
	// Nodes another pattern covers already (a C struct inside its
	// typedef) are no definitions of their own.
	if len(skip) > 0 {
		drop := make(map[span]bool, len(skip))
		for _, k := range skip {
			drop[k] = true
		}
		kept := s.defs[:0]
		for _, d := range s.defs {
			if !drop[d.node] {
				kept = append(kept, d)
			}
		}
		s.defs = kept
	}
	return true
}

// trim narrows a node's range to its text without surrounding blanks
// (some grammars, Lua's, put leading whitespace into nodes).
func (s *splitter) trim(lo, hi int) span {
	if hi > len(s.src) {
		hi = len(s.src)
	}
	for lo < hi && isSpace(s.src[lo]) {
		lo++
	}
	for hi > lo && isSpace(s.src[hi-1]) {
		hi--
	}
	return span{lo, hi}
}

func (s *splitter) predicatesHold(m *sitter.QueryMatch) bool {
	preds := s.g.preds[m.PatternIndex]
	for i := range preds {
		p := &preds[i]
		for _, c := range m.Captures {
			if c.Index == p.capture {
				if !p.holds(s.src[c.Node.StartByte():c.Node.EndByte()]) {
					return false
				}
			}
		}
	}
	return true
}

// arrange widens each definition to its wrappers, doc comment and whole
// lines, nests definitions, drops those inside functions and computes
// qualified names.
func (s *splitter) arrange() {
	defs := s.defs
	for i := range defs {
		defs[i].lo, defs[i].hi = defs[i].node.lo, defs[i].node.hi
	}
	s.applyWrappers()
	sortSpans(s.comments, s.attrs)
	for i := range defs {
		s.attachDoc(&defs[i])
		defs[i].lo, defs[i].hi = s.wholeLines(defs[i].lo, defs[i].hi)
	}
	sort.SliceStable(defs, func(i, j int) bool {
		if defs[i].lo != defs[j].lo {
			return defs[i].lo < defs[j].lo
		}
		return defs[i].hi > defs[j].hi
	})
	var stack []int
	for i := range defs {
		d := &defs[i]
		for len(stack) > 0 && defs[stack[len(stack)-1]].hi <= d.lo {
			stack = stack[:len(stack)-1]
		}
		d.parent = -1
		if len(stack) > 0 {
			top := stack[len(stack)-1]
			t := &defs[top]
			if d.hi > t.hi || (d.lo == t.lo && d.hi == t.hi) {
				// Partial overlap (error recovery) or the same text
				// twice: keep the first.
				d.dropped = true
				continue
			}
			d.parent = top
			if t.dropped || callable[t.kind] {
				d.dropped = true
			}
		}
		stack = append(stack, i)
		if d.dropped {
			continue
		}
		name, recv := splitQualified(d.name, d.nameParts, s.g.key)
		d.name = name
		if d.receiver == "" {
			d.receiver = recv
		} else if recv != "" {
			d.receiver += "." + recv
		}
		d.receiver = stripGenerics(d.receiver)
		q := d.name
		if d.receiver != "" {
			q = d.receiver + "." + q
		}
		if d.parent >= 0 {
			pk := defs[d.parent].kind
			if d.kind == "function" && typeKinds[pk] {
				d.kind = "method"
			}
			q = defs[d.parent].qname + "." + q
		}
		d.qname = q
	}
}

// callable kinds own everything nested in them.
var callable = map[string]bool{"function": true, "method": true, "constructor": true, "macro": true}

// typeKinds make a function inside them a method.
var typeKinds = map[string]bool{
	"class": true, "struct": true, "interface": true, "trait": true, "impl": true, "enum": true,
	"object": true, "record": true, "protocol": true, "extension": true, "union": true, "actor": true,
}

// applyWrappers widens a definition to a wrapper node (decorators, export,
// template, a Go type declaration of one spec) when it is the only
// top-level definition inside that wrapper.
func (s *splitter) applyWrappers() {
	if len(s.wrappers) == 0 {
		return
	}
	ws := s.wrappers
	sort.Slice(ws, func(i, j int) bool {
		if ws[i].hi-ws[i].lo != ws[j].hi-ws[j].lo {
			return ws[i].hi-ws[i].lo < ws[j].hi-ws[j].lo
		}
		return ws[i].lo < ws[j].lo
	})
	// Definitions by start, to find those inside a wrapper quickly.
	order := make([]int, len(s.defs))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return s.defs[order[a]].node.lo < s.defs[order[b]].node.lo })
	for _, w := range ws {
		k := sort.Search(len(order), func(i int) bool { return s.defs[order[i]].node.lo >= w.lo })
		best := -1
		for ; k < len(order); k++ {
			d := &s.defs[order[k]]
			if d.node.lo >= w.hi {
				break
			}
			if d.hi > w.hi {
				best = -1
				break
			}
			if best >= 0 && d.node.lo < s.defs[best].hi {
				continue // nested in the candidate
			}
			if best >= 0 {
				best = -1 // a second top-level definition: not a sole wrapper
				break
			}
			best = order[k]
		}
		if best >= 0 {
			d := &s.defs[best]
			if w.lo < d.lo {
				d.lo = w.lo
				// The signature starts at a wrapper on the same line
				// (export, type, var), not at decorators above.
				if s.lineOf(w.lo) == s.lineOf(d.node.lo) {
					d.outer = w.lo
				}
			}
			if w.hi > d.hi {
				d.hi = w.hi
			}
		}
	}
}

// attachDoc glues the comments and attributes standing right above a
// definition to it and takes the comments as its doc (or its docstring).
func (s *splitter) attachDoc(d *def) {
	src := s.src
	lo := d.lo
	var docs []span
	var attrDoc string
	i := sort.Search(len(s.comments), func(i int) bool { return s.comments[i].hi > lo }) - 1
	for ; i >= 0; i-- {
		c := s.comments[i]
		if c.hi > lo || c.lo < 0 {
			break
		}
		// Only blanks and at most one line break between it and the
		// definition (or the comment glued before).
		if !blankGap(src[c.hi:lo]) {
			break
		}
		// A comment trailing code on its line documents that code.
		if !blankBefore(src, c.lo) {
			break
		}
		lo = c.lo
		if s.attrs[i] {
			if t := attrDocText(src[c.lo:c.hi]); t != "" && attrDoc == "" {
				attrDoc = t
			}
		} else if !isDirective(src[c.lo:c.hi]) {
			docs = append(docs, c)
		}
	}
	d.lo = lo
	switch {
	case d.docNode.hi > d.docNode.lo:
		raw := src[d.docNode.lo:d.docNode.hi]
		if isCommentStart(raw) {
			d.doc = commentText(raw)
		} else {
			d.doc = docstringText(raw)
		}
	case attrDoc != "":
		d.doc = attrDoc
	}
	if d.doc == "" && len(docs) > 0 {
		var b strings.Builder
		for j := len(docs) - 1; j >= 0; j-- {
			t := commentText(src[docs[j].lo:docs[j].hi])
			if j < len(docs)-1 {
				b.WriteByte('\n')
			}
			b.WriteString(t)
			if b.Len() > maxDoc {
				break
			}
		}
		d.doc = trimBlankLines(strings.Split(b.String(), "\n"))
	}
	d.doc = section.CutBytes(d.doc, maxDoc)
}

// wholeLines widens [lo, hi) to whole lines when only blanks stand before
// lo on its line and only blanks, ';' or ',' after hi on its line.
func (s *splitter) wholeLines(lo, hi int) (int, int) {
	src := s.src
	for hi > lo && isSpace(src[hi-1]) {
		hi--
	}
	if blankBefore(src, lo) {
		lo = s.lineStartOf(lo)
	}
	// Only blanks, ';' or ',' (and a trailing comment) after hi: take the
	// rest of the line. Scans stop at the first other byte, so a 1 MB
	// minified line costs no more than a short one.
	le := s.lineEnd(hi)
	p := skipTrail(src, hi, le)
	if p < le {
		// A comment trailing the definition's last line belongs to it.
		if k := sort.Search(len(s.comments), func(i int) bool { return s.comments[i].lo >= p }); k < len(s.comments) &&
			s.comments[k].lo == p && !s.attrs[k] && s.comments[k].hi <= le {
			p = skipTrail(src, s.comments[k].hi, le)
		}
	}
	if p >= le {
		hi = le
		// Keep a CR that ends the line out of the range.
		for hi > lo && src[hi-1] == '\r' {
			hi--
		}
	}
	return lo, hi
}

// sections builds the memory sections: preamble first, then definitions in
// source order (a container before its members).
func (s *splitter) sections() []memory.Section {
	defs := s.defs
	children := make([][]int, len(defs))
	var top []span
	for i := range defs {
		if defs[i].dropped {
			continue
		}
		if p := defs[i].parent; p >= 0 {
			children[p] = append(children[p], i)
		} else {
			top = append(top, span{defs[i].lo, defs[i].hi})
		}
	}
	out := make([]memory.Section, 0, len(defs)+1)
	if pre, ok := s.preamble(top); ok {
		out = append(out, pre)
	}
	count := map[string]int{}
	for i := range defs {
		d := &defs[i]
		if d.dropped {
			continue
		}
		anchor := anchorPrefix(d.kind) + ":" + d.qname
		count[anchor]++
		if n := count[anchor]; n > 1 {
			anchor = fmt.Sprintf("%s#%d", anchor, n)
		}
		out = append(out, memory.Section{
			Anchor:    anchor,
			Kind:      "code",
			Symbol:    d.kind,
			Language:  s.lang,
			Parser:    s.parser,
			Name:      d.name,
			QName:     d.qname,
			Signature: s.signature(d),
			Doc:       d.doc,
			StartLine: s.lineOf(d.lo) + 1,
			EndLine:   s.lineOf(max(d.hi-1, d.lo)) + 1,
			Content:   s.content(d, children[i]),
		})
	}
	return out
}

// anchorPrefix is "func" for functions and methods (a function that
// becomes a method keeps its anchor prefix), the symbol kind otherwise.
func anchorPrefix(kind string) string {
	if kind == "function" || kind == "method" {
		return "func"
	}
	return kind
}

// content is the definition's text with its member sections cut out, each
// replaced by its indentation and the marker.
func (s *splitter) content(d *def, kids []int) string {
	src := s.src
	var b strings.Builder
	b.Grow(d.hi - d.lo)
	at := d.lo
	for _, k := range kids {
		c := &s.defs[k]
		if c.lo < at {
			continue
		}
		b.Write(src[at:c.lo])
		if c.lo == 0 || src[c.lo-1] == '\n' {
			// Indentation of the member's first code line.
			j := c.lo
			for j < c.hi && (src[j] == ' ' || src[j] == '\t') {
				j++
			}
			b.Write(src[c.lo:j])
		}
		b.WriteString(Marker)
		at = c.hi
	}
	b.Write(src[at:d.hi])
	return cleanText(b.String())
}

// preamble is everything outside the top-level definitions, blank runs
// collapsed; ok=false when that is all blank.
func (s *splitter) preamble(top []span) (memory.Section, bool) {
	src := s.src
	first, last := -1, -1
	var b strings.Builder
	at := 0
	emit := func(lo, hi int) {
		seg := src[lo:hi]
		if i := bytes.IndexFunc(seg, notSpace); i >= 0 {
			if first < 0 {
				first = lo + i
			}
			last = lo + bytes.LastIndexFunc(seg, notSpace)
		}
		b.Write(seg)
	}
	for _, t := range top {
		if t.lo > at {
			emit(at, t.lo)
		}
		at = max(at, t.hi)
	}
	if at < len(src) {
		emit(at, len(src))
	}
	if first < 0 {
		return memory.Section{}, false
	}
	// Collapse blank-line runs left by the cut definitions.
	text := cleanText(b.String())
	lines := strings.Split(text, "\n")
	kept := lines[:0]
	blank := true
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			if blank {
				continue
			}
			blank = true
			kept = append(kept, "")
			continue
		}
		blank = false
		kept = append(kept, strings.TrimRight(l, " \t"))
	}
	for len(kept) > 0 && kept[len(kept)-1] == "" {
		kept = kept[:len(kept)-1]
	}
	return memory.Section{
		Anchor:    "preamble",
		Kind:      "code",
		Symbol:    "preamble",
		Language:  s.lang,
		Parser:    s.parser,
		StartLine: s.lineOf(first) + 1,
		EndLine:   s.lineOf(last) + 1,
		Content:   strings.Join(kept, "\n"),
	}, true
}

// signature is the declaration header up to the body, whitespace
// collapsed and bounded; without a body, the first line of the definition.
func (s *splitter) signature(d *def) string {
	src := s.src
	lo, hi := d.node.lo, d.node.hi
	if d.outer >= 0 && d.outer < lo {
		lo = d.outer
	}
	// A doc comment the grammar puts inside the node is not signature.
	if d.docNode.lo == lo && d.docNode.hi > lo && d.docNode.hi < hi {
		lo = d.docNode.hi
		for lo < hi && isSpace(src[lo]) {
			lo++
		}
	}
	if d.body > lo && d.body <= hi {
		hi = d.body
	} else if nl := bytes.IndexByte(src[lo:hi], '\n'); nl >= 0 {
		hi = lo + nl
	}
	if hi-lo > 4*maxSignature {
		hi = lo + 4*maxSignature
	}
	// Comments inside the header (before the body) are not signature.
	raw := src[lo:hi]
	if k := sort.Search(len(s.comments), func(i int) bool { return s.comments[i].hi > lo }); k < len(s.comments) && s.comments[k].lo < hi {
		buf := make([]byte, 0, hi-lo)
		at := lo
		for ; k < len(s.comments) && s.comments[k].lo < hi; k++ {
			c := s.comments[k]
			if s.attrs[k] || c.lo < at {
				continue
			}
			buf = append(buf, src[at:c.lo]...)
			buf = append(buf, ' ')
			at = min(c.hi, hi)
		}
		raw = append(buf, src[at:hi]...)
	}
	sig := collapseSpace(raw)
	sig = strings.TrimRight(sig, " {(:=;")
	sig = strings.TrimSuffix(sig, " do")
	sig = strings.TrimSuffix(sig, " where")
	return section.CutBytes(strings.TrimSpace(sig), maxSignature)
}

// lineStarts indexes the byte offset of every line start; lines end at
// '\n' (a CRLF's '\r' is part of its line and stripped from content).
func lineStarts(src []byte) []int {
	n := bytes.Count(src, []byte{'\n'})
	ls := make([]int, 1, n+1)
	for i, c := range src {
		if c == '\n' {
			ls = append(ls, i+1)
		}
	}
	return ls
}

// lineOf is the 0-based line of byte offset off.
func (s *splitter) lineOf(off int) int {
	return sort.Search(len(s.lines), func(i int) bool { return s.lines[i] > off }) - 1
}

func (s *splitter) lineStartOf(off int) int { return s.lines[s.lineOf(off)] }

// lineEnd is the offset of the '\n' ending off's line, or len(src).
func (s *splitter) lineEnd(off int) int {
	if l := s.lineOf(off); l+1 < len(s.lines) {
		return s.lines[l+1] - 1
	}
	return len(s.src)
}

// blankBefore reports whether only blanks stand between the start of
// off's line and off.
func blankBefore(src []byte, off int) bool {
	for i := off - 1; i >= 0 && src[i] != '\n'; i-- {
		if !isSpace(src[i]) {
			return false
		}
	}
	return true
}

// blankGap reports whether gap is blanks with at most one line break.
func blankGap(gap []byte) bool {
	nl := 0
	for _, c := range gap {
		if c == '\n' {
			if nl++; nl > 1 {
				return false
			}
		} else if !isSpace(c) {
			return false
		}
	}
	return true
}

// skipTrail skips blanks, ';' and ',' from p up to le.
func skipTrail(src []byte, p, le int) int {
	for p < le {
		switch src[p] {
		case ' ', '\t', '\r', '\f', '\v', ';', ',':
			p++
		default:
			return p
		}
	}
	return p
}

func sortSpans(sp []span, attrs []bool) {
	if sort.SliceIsSorted(sp, func(i, j int) bool { return sp[i].lo < sp[j].lo }) {
		return
	}
	idx := make([]int, len(sp))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return sp[idx[i]].lo < sp[idx[j]].lo })
	sp2 := make([]span, len(sp))
	at2 := make([]bool, len(sp))
	for i, k := range idx {
		sp2[i], at2[i] = sp[k], attrs[k]
	}
	copy(sp, sp2)
	copy(attrs, at2)
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func notSpace(r rune) bool {
	return !(r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v')
}

// cleanText strips carriage returns and makes the text valid UTF-8.
func cleanText(t string) string {
	if strings.IndexByte(t, '\r') >= 0 {
		t = strings.ReplaceAll(t, "\r", "")
	}
	if !utf8.ValidString(t) {
		t = strings.ToValidUTF8(t, "\uFFFD")
	}
	return t
}

// collapseSpace joins the words of b with single spaces.
func collapseSpace(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b))
	space := false
	for _, c := range b {
		if isSpace(c) {
			space = sb.Len() > 0
			continue
		}
		if space {
			sb.WriteByte(' ')
			space = false
		}
		sb.WriteByte(c)
	}
	return cleanText(sb.String())
}
