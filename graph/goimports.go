package graph

import "strings"

// goImports lists the imports of a Go preamble: those of every import
// block first, then the single-line ones, each in order. It is a scanner
// for what the regular expressions
//
//	(?s)\bimport\s*\((.*?)\)             blocks, and in each
//	(?m)^\s*(?:[\w.]+\s+)?"([^"]+)"      its lines
//	(?m)^\s*import\s+(?:[\w.]+\s+)?"([^"]+)"   single imports
//
// match (goimports_test.go checks they agree), at a tenth of their cost:
// they were 70% of deriving a record's entities, skeleton and abstract on
// the Go toolchain's tree.
func goImports(pre string) []string {
	var out []string
	for i := 0; i < len(pre); {
		k := strings.Index(pre[i:], "import")
		if k < 0 {
			break
		}
		k += i
		j := k + len("import")
		i = j
		if k > 0 && isWordByte(pre[k-1]) {
			continue
		}
		m := j
		for m < len(pre) && isSpaceByte(pre[m]) {
			m++
		}
		if m >= len(pre) || pre[m] != '(' {
			continue
		}
		end := strings.IndexByte(pre[m+1:], ')')
		if end < 0 {
			break
		}
		block := pre[m+1 : m+1+end]
		for len(block) > 0 {
			line := block
			if nl := strings.IndexByte(block, '\n'); nl >= 0 {
				line, block = block[:nl], block[nl+1:]
			} else {
				block = ""
			}
			if p, ok := importSpec(line); ok {
				out = append(out, p)
			}
		}
		i = m + 1 + end + 1
	}
	for rest := pre; len(rest) > 0; {
		line := rest
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			line, rest = rest[:nl], rest[nl+1:]
		} else {
			rest = ""
		}
		line = strings.TrimLeft(line, " \t\r\f")
		after, ok := strings.CutPrefix(line, "import")
		if !ok || after == "" || !isSpaceByte(after[0]) {
			continue
		}
		if p, ok := importSpec(after); ok {
			out = append(out, p)
		}
	}
	return out
}

// importSpec reads `[name] "path"` at the start of a line (after
// whitespace), the rest ignored.
func importSpec(line string) (string, bool) {
	line = strings.TrimLeft(line, " \t\r\f")
	if line == "" {
		return "", false
	}
	if line[0] != '"' {
		n := 0
		for n < len(line) && (isWordByte(line[n]) || line[n] == '.') {
			n++
		}
		if n == 0 || n == len(line) || !isSpaceByte(line[n]) {
			return "", false
		}
		line = strings.TrimLeft(line[n:], " \t\r\f")
		if line == "" || line[0] != '"' {
			return "", false
		}
	}
	end := strings.IndexByte(line[1:], '"')
	if end <= 0 {
		return "", false
	}
	return line[1 : 1+end], true
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }
