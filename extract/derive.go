package extract

import (
	"path"
	"strconv"
	"strings"
	"unicode"

	"github.com/konteks/git-konteks/extract/section/code"
	"github.com/konteks/git-konteks/graph"
	"github.com/konteks/git-konteks/internal/lazyre"
	"github.com/konteks/git-konteks/memory"
)

// MaxAbstract bounds a file or directory abstract (L0) in characters.
const MaxAbstract = 256

// derive fills what a record says beyond its sections: the abstract, the
// skeleton, the entities it defines, and its imports as written (resolved
// by the graph package when read, so a record depends only on its file).
func derive(f *memory.File, p string) {
	f.Abstract = abstractOf(f, p)
	var imports []string
	if f.Kind == "code" {
		imports = graph.Imports(f)
	}
	if f.Parser == code.ParserTreeSitter || f.Parser == code.ParserGo {
		f.Skeleton = skeletonOf(f, imports)
	}
	fileID := "file:" + p
	f.Entities = append(f.Entities[:0], memory.Entity{ID: fileID, Kind: "file", Name: p, Aliases: []string{path.Base(p)}})
	if f.Kind == "code" {
		dir := path.Dir(p)
		if dir == "." {
			dir = ""
		}
		f.Edges = append(f.Edges[:0], memory.Edge{From: "dir:" + dir, To: fileID, Kind: "contains"})
	} else {
		f.Edges = f.Edges[:0]
	}
	for _, s := range f.Sections {
		if s.Symbol == "preamble" || s.Symbol == "file" || s.Name == "" || f.Kind != "code" {
			continue
		}
		id := "sym:" + p + "#" + s.Anchor
		name := s.QName
		if name == "" {
			name = s.Name
		}
		e := memory.Entity{ID: id, Kind: s.Symbol, Name: name, Anchor: s.Anchor}
		if s.Name != name {
			e.Aliases = []string{s.Name}
		}
		f.Entities = append(f.Entities, e)
		f.Edges = append(f.Edges, memory.Edge{From: fileID, To: id, Kind: "defines"})
	}
	if f.Kind == "code" {
		seen := map[string]bool{}
		for _, imp := range imports {
			if !seen[imp] {
				seen[imp] = true
				f.Edges = append(f.Edges, memory.Edge{From: fileID, Kind: "imports", Raw: imp})
			}
		}
	}
}

// abstractOf makes a file's one-sentence abstract.
func abstractOf(f *memory.File, p string) string {
	var s string
	switch f.Kind {
	case "code":
		s = leadingDoc(graph.Preamble(f))
		if s == "" && len(f.Sections) > 0 && f.Sections[0].Symbol != "preamble" {
			s = f.Sections[0].Doc
		}
		if s == "" {
			var names []string
			for _, sec := range f.Sections {
				if sec.Name != "" && sec.Symbol != "preamble" && len(names) < 4 {
					names = append(names, sec.Name)
				}
			}
			lang := f.Language
			if lang == "" {
				lang = "Code"
			}
			if len(names) > 0 {
				s = lang + " file defining " + strings.Join(names, ", ")
			} else {
				s = lang + " file " + path.Base(p)
			}
		}
	case "markdown", "rst", "asciidoc", "org":
		for _, sec := range f.Sections {
			if sec.Symbol == "frontmatter" {
				continue
			}
			if sec.Symbol == "directive" && sec.Doc != "" {
				s = sec.Doc
				break
			}
			if t := proseOf(untitled(f.Kind, sec)); t != "" {
				s = t
				break
			}
		}
	case "json", "yaml", "toml":
		var keys []string
		for _, sec := range f.Sections {
			if sec.Name == "description" {
				if t := proseOf(strings.SplitN(sec.Content, ":", 2)[len(strings.SplitN(sec.Content, ":", 2))-1]); t != "" {
					s = strings.Trim(t, `",`)
					break
				}
			}
			if sec.Name != "" && len(keys) < 5 {
				keys = append(keys, sec.Name)
			}
		}
		if s == "" && len(keys) > 0 {
			s = strings.ToUpper(f.Kind) + " with " + strings.Join(keys, ", ")
		}
	default:
		if len(f.Sections) > 0 {
			s = proseOf(f.Sections[0].Content)
		}
	}
	return firstSentence(s, MaxAbstract)
}

// leadingDoc returns the comment text at the top of a preamble (a package
// or module doc), comment markers removed.
func leadingDoc(pre string) string {
	var b strings.Builder
	inBlock, inDoc := false, false
	for _, line := range strings.Split(pre, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case inDoc:
			if i := strings.Index(t, `"""`); i >= 0 {
				b.WriteString(t[:i])
				return b.String()
			}
			b.WriteString(t + " ")
			continue
		case strings.HasPrefix(t, `"""`) || strings.HasPrefix(t, `'''`):
			body := t[3:]
			if i := strings.Index(body, t[:3]); i >= 0 {
				return body[:i]
			}
			b.WriteString(body + " ")
			inDoc = true
			continue
		case inBlock:
			if i := strings.Index(t, "*/"); i >= 0 {
				b.WriteString(strings.TrimLeft(t[:i], "* "))
				inBlock = false
				continue
			}
			b.WriteString(strings.TrimLeft(t, "* ") + " ")
			continue
		case strings.HasPrefix(t, "/*"):
			inBlock = !strings.Contains(t, "*/")
			b.WriteString(strings.TrimSuffix(strings.TrimLeft(t, "/* "), "*/") + " ")
			continue
		case strings.HasPrefix(t, "//go:") || strings.HasPrefix(t, "#!") || strings.HasPrefix(t, "// +build") || strings.HasPrefix(t, "# -*-"):
			continue
		case strings.HasPrefix(t, "//") || (strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "#include")) || strings.HasPrefix(t, "--"):
			b.WriteString(strings.TrimSpace(strings.TrimLeft(t, "/#-!")) + " ")
			continue
		case t == "":
			if b.Len() > 0 {
				if !isLicense(b.String()) {
					return b.String()
				}
				b.Reset() // a licence header: the doc may follow
			}
			continue
		}
		break
	}
	if isLicense(b.String()) {
		return ""
	}
	return b.String()
}

// isLicense spots copyright and licence headers, which say nothing about
// what a file does.
func isLicense(s string) bool {
	l := strings.ToLower(s)
	return strings.Contains(l, "copyright") || strings.Contains(l, "spdx-license") || strings.Contains(l, "license") && strings.Contains(l, "permission") ||
		strings.Contains(l, "licensed under") || strings.Contains(l, "all rights reserved")
}

// reAttrLine matches an AsciiDoc attribute entry or an reStructuredText
// field (":toc:", ":members:"), which is no prose.
var reAttrLine = lazyre.New(`^:[\w-]+:(\s|$)`)

// untitled returns a document section's content without its title lines
// (a reStructuredText title and its adornments, an AsciiDoc or Org title
// line), which proseOf would take for prose; Markdown titles proseOf
// knows.
func untitled(kind string, sec memory.Section) string {
	c := sec.Content
	if kind == "markdown" || sec.Symbol != "heading" {
		return c
	}
	if kind == "asciidoc" && strings.HasPrefix(c, "= ") {
		// The document header: title, author and revision lines and
		// attribute entries, up to the first blank line.
		if i := strings.Index(c, "\n\n"); i >= 0 {
			return c[i+2:]
		}
		return ""
	}
	drop := 1
	if kind == "rst" || kind == "asciidoc" {
		ls := strings.SplitN(c, "\n", 4)
		switch {
		case kind == "rst" && len(ls) >= 3 && isAdornment(ls[0]):
			drop = 3
		case len(ls) >= 2 && isAdornment(ls[1]):
			drop = 2
		}
	}
	for ; drop > 0 && c != ""; drop-- {
		_, c, _ = strings.Cut(c, "\n")
	}
	return c
}

// isAdornment reports whether a line is a run of one punctuation
// character: a title's underline or overline.
func isAdornment(l string) bool {
	l = strings.TrimSpace(l)
	if l == "" || unicode.IsLetter(rune(l[0])) || unicode.IsDigit(rune(l[0])) || l[0] >= 0x80 {
		return false
	}
	return strings.Count(l, l[:1]) == len(l)
}

// proseOf returns the first paragraph of prose in Markdown or text,
// skipping headings, front matter, badges, HTML and code fences.
func proseOf(s string) string {
	var b strings.Builder
	fence := false
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
			continue
		}
		if fence || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "<") || strings.HasPrefix(t, "[![") || strings.HasPrefix(t, "!") ||
			t == ".." || strings.HasPrefix(t, ".. ") || reAttrLine.MatchString(t) ||
			strings.HasPrefix(t, "---") || strings.HasPrefix(t, "===") || strings.HasPrefix(t, "|") {
			if b.Len() > 0 {
				break
			}
			continue
		}
		if t == "" {
			if b.Len() > 0 {
				break
			}
			continue
		}
		b.WriteString(t + " ")
	}
	return strings.TrimSpace(b.String())
}

// firstSentence cuts s at its first sentence end, bounded to max runes.
func firstSentence(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	for i, r := range s {
		if (r == '.' || r == '!' || r == '?') && (i+1 == len(s) || s[i+1] == ' ') && i > 10 {
			s = s[:i+1]
			break
		}
	}
	if rs := []rune(s); len(rs) > max {
		s = strings.TrimRightFunc(string(rs[:max-1]), unicode.IsSpace) + "…"
	}
	return s
}

// skeletonOf renders imports plus each symbol's signature and first doc
// sentence, in source order, bounded by memory.MaxSkeleton.
func skeletonOf(f *memory.File, imports []string) string {
	var b strings.Builder
	for _, imp := range imports {
		b.WriteString("import " + strings.TrimPrefix(imp, "mod:") + "\n")
		if b.Len() > memory.MaxSkeleton/4 {
			b.WriteString("import …\n")
			break
		}
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	for i, s := range f.Sections {
		if s.Symbol == "preamble" || s.Symbol == "file" {
			continue
		}
		line := s.Signature
		if line == "" {
			line = s.Symbol + " " + s.QName
		}
		indent := ""
		if s.Symbol == "method" || strings.Contains(s.QName, ".") && s.Symbol != "class" {
			indent = "    "
		}
		if d := firstSentence(s.Doc, 160); d != "" {
			line += "  // " + d
		}
		if b.Len()+len(line) > memory.MaxSkeleton-40 {
			b.WriteString("… " + strconv.Itoa(len(f.Sections)-i) + " more symbols\n")
			break
		}
		b.WriteString(indent + line + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}
