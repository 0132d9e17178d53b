// Package pdf sections PDF documents: by outline (bookmark) headings when
// the document has an outline, else page by page; page numbers are in
// every anchor ("page:3:Design > Storage", "page:7"). A first "document"
// section holds the title, author, subject and page count, and says which
// pages have no text layer (scanned or drawn pages), so that an agent
// knows what it cannot see.
//
// The reader is written for this package rather than taken from a
// library: the pure-Go PDF text extractors (rsc.io/pdf and its forks
// ledongthuc/pdf and dslipak/pdf) follow cyclic object graphs without
// bound (an outline whose /First points back at itself recurses until
// Go's stack overflows, which no recover can catch; a /Prev cycle in the
// cross-reference chain loops forever) and decompress streams without a
// limit, and pdfcpu, while robust, does not extract text. Here nothing
// from the file is trusted: the body is scanned for objects instead of
// following xref offsets (so broken xref tables do not matter), every
// graph walk keeps a visited set and a count limit, nesting is bounded,
// decompression has a per-stream and a per-document budget, and content
// interpretation stops after a fixed number of operators. It reads
// FlateDecode, LZW, ASCII85, ASCIIHex and RunLength streams, object
// streams, ToUnicode CMaps, the standard encodings with /Differences,
// Unicode-keyed CJK CMaps, and form XObjects. Encrypted documents are
// described, not read.
package pdf

import (
	"errors"
	"fmt"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/memory"
)

// Kind and Parser of the results.
const (
	Kind   = "pdf"
	Parser = "pdf"
)

// Fallback reasons.
const (
	ReasonError     = "pdf-error"
	ReasonEncrypted = "pdf-encrypted"
)

// PathSep joins outline titles into a heading path.
const PathSep = " > "

type page struct {
	dict dict
	res  dict
}

// Split sections one PDF. The result is always usable: a file that cannot
// be read gets a "document" section saying why, with Result.Fallback set,
// and the error is returned alongside.
func Split(in section.Input) (res section.Result, err error) {
	res = section.Result{Kind: Kind, Language: in.Language, Parser: Parser}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("pdf reader panic: %v", r)
			res = failed(in, ReasonError, err)
		}
	}()
	d, err := load(in.Content)
	if err != nil {
		reason := ReasonError
		if errors.Is(err, errEncrypted) {
			reason = ReasonEncrypted
		}
		out := failed(in, reason, err)
		if d != nil {
			out.Sections[0].Content += d.infoText()
		}
		return out, err
	}
	pages := d.pages()
	x := newExtractor(d)
	texts := make([][]line, len(pages))
	var empty []int
	for i, p := range pages {
		texts[i] = x.page(p.dict, p.res)
		if len(texts[i]) == 0 {
			empty = append(empty, i+1)
		}
	}
	var anchors section.AnchorSet
	add := func(s memory.Section) {
		s.Kind, s.Parser, s.Language = Kind, Parser, in.Language
		s.StartLine, s.EndLine = 1, 1 // a PDF has no source lines worth citing: pages are in the anchors
		s.Anchor = anchors.Add(s.Anchor)
		res.Sections = append(res.Sections, s)
	}

	// The document section.
	title := d.infoString("Title")
	var b strings.Builder
	b.WriteString(d.infoText())
	fmt.Fprintf(&b, "%s\n", plural(len(pages), "page"))
	switch {
	case len(pages) > 0 && len(empty) == len(pages):
		fmt.Fprintf(&b, "No page has a text layer: a scanned or image-only document; its text is not in memory.\n")
		res.Warnings = append(res.Warnings, "pdf: no page has text (scanned or image-only)")
	case len(empty) > 0:
		fmt.Fprintf(&b, "Pages without a text layer (scanned or drawn): %s\n", pageList(empty))
		res.Warnings = append(res.Warnings, fmt.Sprintf("pdf: %d of %d pages have no text", len(empty), len(pages)))
	}
	name := title
	if name == "" {
		name = path.Base(in.Path)
	}
	add(memory.Section{Anchor: "document", Symbol: "document", Name: name,
		Signature: "PDF, " + plural(len(pages), "page"), Content: strings.TrimSpace(b.String())})

	if len(empty) < len(pages) {
		if entries := d.outline(pages); len(entries) > 0 {
			byOutline(add, entries, texts)
		} else {
			byPage(add, texts)
		}
	}
	res.Warnings = append(res.Warnings, d.warnings...)
	return res, nil
}

func failed(in section.Input, reason string, err error) section.Result {
	msg := "This PDF could not be read: " + err.Error() + "."
	if reason == ReasonEncrypted {
		msg = "This PDF is encrypted; its text is not in memory."
	}
	return section.Result{
		Kind: Kind, Language: in.Language, Parser: Parser, Fallback: reason,
		Warnings: []string{"pdf: " + err.Error()},
		Sections: []memory.Section{{
			Anchor: "document", Kind: Kind, Symbol: "document", Parser: Parser, Language: in.Language,
			Name: path.Base(in.Path), StartLine: 1, EndLine: 1, Content: msg + "\n",
		}},
	}
}

func pageList(ps []int) string {
	var parts []string
	for i := 0; i < len(ps); {
		j := i
		for j+1 < len(ps) && ps[j+1] == ps[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, strconv.Itoa(ps[i])+"-"+strconv.Itoa(ps[j]))
		} else {
			parts = append(parts, strconv.Itoa(ps[i]))
		}
		i = j + 1
		if len(parts) == 50 && i < len(ps) {
			parts = append(parts, "...")
			break
		}
	}
	return strings.Join(parts, ", ")
}

// byPage makes one section per page; a page without text gets a section
// that says so.
func byPage(add func(memory.Section), texts [][]line) {
	for i, ls := range texts {
		n := strconv.Itoa(i + 1)
		s := memory.Section{Anchor: "page:" + n, Symbol: "page", Name: "page " + n}
		if len(ls) == 0 {
			s.Signature = "no text"
			s.Content = "Page " + n + " has no text layer: it is probably a scanned image or a drawing."
		} else {
			s.Content = joinLines(ls)
		}
		add(s)
	}
}

func joinLines(ls []line) string {
	var b strings.Builder
	for i, l := range ls {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l.text)
	}
	return b.String()
}

// entry is one outline item.
type entry struct {
	title, path string
	page        int     // 0-based
	top         float64 // NaN: the top of the page
	order       int
}

// byOutline assigns every line to the outline entry it follows (by page,
// then by the entry's destination height on its page) and makes one
// section per entry with text, plus one for text before the first entry.
func byOutline(add func(memory.Section), entries []entry, texts [][]line) {
	sort.SliceStable(entries, func(i, j int) bool {
		a, b := entries[i], entries[j]
		if a.page != b.page {
			return a.page < b.page
		}
		at, bt := a.top, b.top
		if math.IsNaN(at) {
			at = math.Inf(1)
		}
		if math.IsNaN(bt) {
			bt = math.Inf(1)
		}
		return at > bt
	})
	type part struct {
		e     *entry
		lines []string
		first int // first page with text
		last  int
	}
	parts := make([]*part, len(entries)+1) // parts[0]: before the first entry
	for i := range parts {
		parts[i] = &part{first: -1}
		if i > 0 {
			parts[i].e = &entries[i-1]
		}
	}
	const tol = 6 // points a heading's baseline may sit above its destination
	carry := 0    // the part in force at the top of the current page
	k := 0        // entries[:k] start on earlier pages
	for p, ls := range texts {
		for k < len(entries) && entries[k].page < p {
			k++
			carry = k
		}
		onPage := k
		for onPage < len(entries) && entries[onPage].page == p {
			onPage++
		}
		for _, l := range ls {
			owner := carry
			for j := k; j < onPage; j++ {
				if math.IsNaN(entries[j].top) || l.y <= entries[j].top+tol {
					owner = j + 1
				}
			}
			pt := parts[owner]
			if pt.first < 0 {
				pt.first = p
			} else if p != pt.last {
				pt.lines = append(pt.lines, "[page "+strconv.Itoa(p+1)+"]")
			}
			pt.last = p
			pt.lines = append(pt.lines, l.text)
		}
		if onPage > k {
			carry = onPage
		}
	}
	for _, pt := range parts {
		if len(pt.lines) == 0 {
			continue
		}
		pages := "p. " + strconv.Itoa(pt.first+1)
		if pt.last > pt.first {
			pages += "-" + strconv.Itoa(pt.last+1)
		}
		s := memory.Section{Signature: pages, Content: strings.Join(pt.lines, "\n")}
		if pt.e == nil {
			s.Anchor, s.Symbol = "page:"+strconv.Itoa(pt.first+1), "preamble"
		} else {
			s.Anchor = "page:" + strconv.Itoa(pt.e.page+1) + ":" + pt.e.path
			s.Symbol, s.Name, s.QName = "heading", pt.e.title, pt.e.path
		}
		add(s)
	}
}

// pages walks the page tree in order, inheriting resources.
func (d *doc) pages() []page {
	root := d.dict(d.trailer["Root"])
	type item struct {
		node object
		res  dict
	}
	var out []page
	seen := map[ref]bool{}
	stack := []item{{root["Pages"], nil}}
	for visits := 0; len(stack) > 0 && visits < maxPageNodes && len(out) < maxPages; visits++ {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if r, ok := it.node.(ref); ok {
			if seen[r] {
				continue
			}
			seen[r] = true
		}
		nd := d.dict(it.node)
		if nd == nil {
			continue
		}
		res := it.res
		if r := d.dict(nd["Resources"]); r != nil {
			res = r
		}
		kids := d.array(nd["Kids"])
		if t, _ := d.get(nd["Type"]).(name); t == "Page" || (t != "Pages" && kids == nil) {
			out = append(out, page{nd, res})
			continue
		}
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, item{kids[i], res})
		}
	}
	if len(out) >= maxPages {
		d.warn("pdf: more than %d pages; the rest are left out", maxPages)
	}
	return out
}

func (d *doc) infoString(key name) string {
	info := d.dict(d.trailer["Info"])
	s, _ := d.get(info[key]).([]byte)
	return clean(textString(s))
}

// infoText renders the document information dictionary.
func (d *doc) infoText() string {
	var b strings.Builder
	for _, k := range []name{"Title", "Author", "Subject", "Keywords"} {
		if v := d.infoString(k); v != "" {
			fmt.Fprintf(&b, "%s: %s\n", k, v)
		}
	}
	return b.String()
}

// clean makes text one line without control characters, at most 1 KB.
func clean(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, ""))
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 1024 {
		s = strings.ToValidUTF8(s[:1024], "") + "…"
	}
	return s
}

// outline reads the outline into entries whose destination is a page,
// with their heading paths.
func (d *doc) outline(pages []page) []entry {
	root := d.dict(d.trailer["Root"])
	ol := d.dict(root["Outlines"])
	if ol == nil {
		return nil
	}
	pageOf := map[any]int{}
	for i, p := range pages {
		pageOf[fmt.Sprintf("%p", p.dict)] = i
	}
	var named map[string]object
	resolve := func(dest object) (int, float64) {
		dest = d.get(dest)
		switch v := dest.(type) {
		case []byte, name:
			if named == nil {
				named = d.namedDests(root)
			}
			key := ""
			if s, ok := v.([]byte); ok {
				key = string(s)
			} else {
				key = string(v.(name))
			}
			dest = d.get(named[key])
			if dd, ok := dest.(dict); ok {
				dest = d.get(dd["D"])
			}
		}
		a, _ := dest.(array)
		if len(a) == 0 {
			return -1, math.NaN()
		}
		p := -1
		switch v := a[0].(type) {
		case ref:
			if pd, ok := d.get(v).(dict); ok {
				if i, ok := pageOf[fmt.Sprintf("%p", pd)]; ok {
					p = i
				}
			}
		case int64:
			if v >= 0 && v < int64(len(pages)) {
				p = int(v)
			}
		}
		top := math.NaN()
		if len(a) >= 4 {
			if t, _ := d.get(a[1]).(name); t == "XYZ" {
				if y, ok := d.num(a[3]); ok {
					top = y
				}
			}
		}
		if len(a) >= 3 {
			if t, _ := d.get(a[1]).(name); t == "FitH" || t == "FitBH" {
				if y, ok := d.num(a[2]); ok {
					top = y
				}
			}
		}
		return p, top
	}
	type item struct {
		node  object
		trail []string
	}
	var out []entry
	seen := map[any]bool{}
	stack := []item{{ol["First"], nil}}
	for visits := 0; len(stack) > 0 && visits < maxOutline; visits++ {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		node := it.node
		key := any(nil)
		if r, ok := node.(ref); ok {
			key = r
		}
		nd := d.dict(node)
		if nd == nil {
			continue
		}
		if key != nil {
			if seen[key] {
				continue
			}
			seen[key] = true
		}
		s, _ := d.get(nd["Title"]).([]byte)
		title := clean(textString(s))
		if title == "" {
			title = "untitled"
		}
		trail := append(append([]string(nil), it.trail...), title)
		if len(trail) > 16 {
			trail = trail[len(trail)-16:]
		}
		dest := nd["Dest"]
		if dest == nil {
			if a := d.dict(nd["A"]); a != nil && d.get(a["S"]) == name("GoTo") {
				dest = a["D"]
			}
		}
		if p, top := resolve(dest); p >= 0 {
			out = append(out, entry{title: title, path: strings.Join(trail, PathSep), page: p, top: top, order: len(out)})
		}
		// Next sibling after the children: push it first.
		if next := nd["Next"]; next != nil {
			stack = append(stack, item{next, it.trail})
		}
		if first := nd["First"]; first != nil {
			stack = append(stack, item{first, trail})
		}
	}
	return out
}

// namedDests collects named destinations from /Dests and the /Names tree.
func (d *doc) namedDests(root dict) map[string]object {
	out := map[string]object{}
	for k, v := range d.dict(root["Dests"]) {
		if len(out) < maxNameTree {
			out[string(k)] = v
		}
	}
	seen := map[any]bool{}
	stack := []object{d.dict(root["Names"])["Dests"]}
	for visits := 0; len(stack) > 0 && visits < maxNameTree && len(out) < maxNameTree; visits++ {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if r, ok := n.(ref); ok {
			if seen[r] {
				continue
			}
			seen[r] = true
		}
		nd := d.dict(n)
		if nd == nil {
			continue
		}
		names := d.array(nd["Names"])
		for i := 0; i+1 < len(names); i += 2 {
			if k, ok := d.get(names[i]).([]byte); ok {
				out[string(k)] = names[i+1]
			}
		}
		stack = append(stack, d.array(nd["Kids"])...)
	}
	return out
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
