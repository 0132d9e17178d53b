package code

import (
	"bytes"
	"strings"

	"github.com/konteks/git-konteks/extract/section"
)

// cleanName collapses whitespace in a captured name and strips quotes
// around it (HCL labels, SQL quoted identifiers).
func cleanName(b []byte) string {
	if len(b) > 4*maxName {
		b = b[:4*maxName]
	}
	n := collapseSpace(b)
	if len(n) >= 2 {
		switch {
		case n[0] == '"' && n[len(n)-1] == '"', n[0] == '\'' && n[len(n)-1] == '\'',
			n[0] == '`' && n[len(n)-1] == '`', n[0] == '[' && n[len(n)-1] == ']':
			n = n[1 : len(n)-1]
		}
	}
	return section.CutBytes(n, maxName)
}

// splitQualified splits a qualified name (C++ Foo::bar, Lua M:bar, Ruby
// Foo::Bar, Elixir Foo.Bar, SQL schema.table) into its last part and the
// qualifier, both dot-separated. A name joined from several captures (HCL
// block labels) is kept whole.
func splitQualified(name string, parts int, key string) (string, string) {
	if parts > 1 {
		return name, ""
	}
	if strings.Contains(name, "::") {
		name = strings.ReplaceAll(name, "::", ".")
	}
	if key == "lua" {
		name = strings.ReplaceAll(name, ":", ".")
	}
	depth := 0
	for i := len(name) - 1; i > 0; i-- {
		switch name[i] {
		case ')', ']', '>':
			depth++
		case '(', '[', '<':
			depth--
		case '.':
			if depth == 0 && i < len(name)-1 {
				return name[i+1:], strings.Trim(name[:i], ".")
			}
		}
	}
	return name, ""
}

// stripGenerics drops type arguments from a qualifier: List[T] -> List,
// Foo<int>.Bar -> Foo.Bar.
func stripGenerics(s string) string {
	if !strings.ContainsAny(s, "<[") {
		return s
	}
	var b strings.Builder
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '<', '[':
			depth++
		case '>', ']':
			if depth > 0 {
				depth--
			}
		default:
			if depth == 0 {
				b.WriteByte(c)
			}
		}
	}
	return b.String()
}

var (
	blockOpen  = []string{"/**", "/*!", "/*", "(**", "(*", "{-", "--[==[", "--[=[", "--[[", "<!--", "=begin"}
	blockClose = []string{"*/", "*)", "-}", "]==]", "]=]", "]]", "-->", "=end"}
	lineMarks  = []string{"///", "//!", "//", "---", "--", "##", "#!", "#", ";;", "%"}
)

// commentText is a comment with its markers stripped: //, ///, #, --,
// /* */, (* *), leading * of block lines.
func commentText(raw []byte) string {
	s := cleanText(string(raw))
	lines := strings.Split(s, "\n")
	block := false
	t0 := strings.TrimSpace(lines[0])
	for _, o := range blockOpen {
		if strings.HasPrefix(t0, o) {
			block = true
			lines[0] = strings.TrimPrefix(t0, o)
			break
		}
	}
	if block {
		last := len(lines) - 1
		tl := strings.TrimRight(lines[last], " \t")
		for _, c := range blockClose {
			if strings.HasSuffix(tl, c) {
				lines[last] = strings.TrimSuffix(tl, c)
				break
			}
		}
	}
	out := make([]string, 0, len(lines))
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if block {
			if i > 0 && strings.HasPrefix(t, "*") {
				t = strings.TrimPrefix(t, "*")
			}
		} else {
			for _, m := range lineMarks {
				if strings.HasPrefix(t, m) {
					t = strings.TrimPrefix(t, m)
					break
				}
			}
		}
		out = append(out, strings.TrimRight(strings.TrimPrefix(t, " "), " \t"))
	}
	t := trimBlankLines(out)
	if strings.Contains(t, "summary>") { // C# XML doc
		t = strings.TrimSpace(strings.NewReplacer("<summary>", "", "</summary>", "").Replace(t))
	}
	return t
}

// isDirective reports whether a comment is a tool directive (//go:noinline,
// //nolint, // +build, //export), which stays in the content but is no doc.
func isDirective(raw []byte) bool {
	for _, p := range []string{"//go:", "//nolint", "// +build", "//export ", "//line ", "# noqa", "# type:", "# pylint:"} {
		if bytes.HasPrefix(raw, []byte(p)) {
			return true
		}
	}
	return false
}

// isCommentStart reports whether raw begins with a comment marker.
func isCommentStart(raw []byte) bool {
	t := strings.TrimSpace(string(raw[:min(len(raw), 8)]))
	for _, m := range blockOpen {
		if strings.HasPrefix(t, m) {
			return true
		}
	}
	for _, m := range lineMarks {
		if strings.HasPrefix(t, m) {
			return true
		}
	}
	return false
}

// docstringText is a string literal used as documentation (Python
// docstring, Elixir @doc heredoc) without quotes, prefix and common
// indentation.
func docstringText(raw []byte) string {
	s := strings.TrimSpace(cleanText(string(raw)))
	if strings.HasPrefix(s, "~") && len(s) > 2 { // Elixir sigil ~S"""
		s = s[2:]
	}
	s = strings.TrimLeft(s, "rRuUbBfF")
	for _, q := range []string{`"""`, `'''`, `"`, `'`} {
		if strings.HasPrefix(s, q) && strings.HasSuffix(s, q) && len(s) >= 2*len(q) {
			s = s[len(q) : len(s)-len(q)]
			break
		}
	}
	lines := strings.Split(s, "\n")
	// Common indentation of the lines after the first.
	indent := -1
	for _, l := range lines[1:] {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	for i := range lines {
		if i > 0 && indent > 0 && len(lines[i]) >= indent {
			lines[i] = lines[i][indent:]
		}
		lines[i] = strings.TrimRight(lines[i], " \t")
	}
	lines[0] = strings.TrimSpace(lines[0])
	return trimBlankLines(lines)
}

// attrDocText is the documentation held by an attribute (Elixir @doc
// "...", @moduledoc, @typedoc), "" for other attributes.
func attrDocText(raw []byte) string {
	t := bytes.TrimSpace(raw)
	for _, k := range []string{"@doc", "@moduledoc", "@typedoc"} {
		if bytes.HasPrefix(t, []byte(k)) && len(t) > len(k) && isSpace(t[len(k)]) {
			rest := bytes.TrimSpace(t[len(k):])
			if string(rest) == "false" {
				return ""
			}
			return docstringText(rest)
		}
	}
	return ""
}

func trimBlankLines(lines []string) string {
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}
