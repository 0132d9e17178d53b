package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// TOML tables and Markdown blocks are edited as lines: everything outside
// the table or block git konteks owns is kept byte for byte (comments,
// other tables, blank lines).

// tomlString quotes s as a TOML basic string (JSON escapes are valid TOML
// escapes for everything json.Marshal emits without HTML escaping).
func tomlString(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSpace(buf.String())
}

// tomlTable renders [header] with its keys, in order.
func tomlTable(header string, keys [][2]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s]\n", header)
	for _, kv := range keys {
		fmt.Fprintf(&b, "%s = %s\n", kv[0], kv[1])
	}
	return b.String()
}

// tomlSpan finds the table whose header line is one of headers: the
// index of its header line and of the first line after it (the next
// table's header or the end).
func tomlSpan(lines []string, headers ...string) (start, end int) {
	start, end = -1, len(lines)
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if start < 0 {
			for _, h := range headers {
				if t == h {
					start = i
				}
			}
			continue
		}
		if strings.HasPrefix(t, "[") {
			return start, i
		}
	}
	return start, end
}

func splitLines(doc string) []string {
	lines := strings.SplitAfter(doc, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	return lines
}

// mergeTOMLTable sets the keys of table (a rendered [header] table) in the
// document, or appends the table; other keys of the table, its subtables
// (such as env), other tables and comments are kept as written.
func mergeTOMLTable(doc, table string, headers ...string) string {
	lines := splitLines(doc)
	start, end := tomlSpan(lines, headers...)
	if start < 0 {
		if doc != "" && !strings.HasSuffix(doc, "\n") {
			doc += "\n"
		}
		if doc != "" {
			doc += "\n"
		}
		return doc + table
	}
	want := strings.SplitAfter(table, "\n")[1:]
	ours := map[string]bool{}
	for _, l := range want {
		if k, _, ok := strings.Cut(l, "="); ok {
			ours[strings.TrimSpace(k)] = true
		}
	}
	var body []string
	for i := start + 1; i < end; i++ {
		t := strings.TrimSpace(lines[i])
		key, _, isKey := strings.Cut(t, "=")
		if key = strings.TrimSpace(key); isKey && ours[key] {
			// Drop it (a multi-line array up to its closing bracket).
			depth := strings.Count(t, "[") - strings.Count(t, "]")
			for depth > 0 && i+1 < end {
				i++
				depth += strings.Count(lines[i], "[") - strings.Count(lines[i], "]")
			}
			continue
		}
		body = append(body, lines[i])
	}
	var out strings.Builder
	out.WriteString(strings.Join(lines[:start+1], ""))
	if !strings.HasSuffix(lines[start], "\n") {
		out.WriteString("\n")
	}
	out.WriteString(strings.Join(want, ""))
	out.WriteString(strings.Join(body, ""))
	out.WriteString(strings.Join(lines[end:], ""))
	return out.String()
}

// removeTOMLTable removes the table and the blank line that separated it
// from what came before (as mergeTOMLTable appends it).
func removeTOMLTable(doc string, headers ...string) string {
	lines := splitLines(doc)
	start, end := tomlSpan(lines, headers...)
	if start < 0 {
		return doc
	}
	// Its subtables ([header.env]) go with it.
	for end < len(lines) {
		t := strings.TrimSpace(lines[end])
		sub := false
		for _, h := range headers {
			if strings.HasPrefix(t, strings.TrimSuffix(h, "]")+".") {
				sub = true
			}
		}
		if !sub {
			break
		}
		_, e := tomlSpan(lines[end:], t)
		end += e
	}
	from := start
	if from > 0 && strings.TrimSpace(lines[from-1]) == "" {
		from--
	}
	return strings.Join(lines[:from], "") + strings.Join(lines[end:], "")
}

// The marked block git konteks keeps in AGENTS.md, CLAUDE.md or GEMINI.md.
const (
	blockBegin = "<!-- git-konteks:begin (written by `git konteks init --agent`; remove with `--remove`) -->"
	blockEnd   = "<!-- git-konteks:end -->"
)

// setBlock puts body between the markers: in place of the block when the
// document has one, else at its end after a blank line.
func setBlock(doc, body string) string {
	block := blockBegin + "\n" + strings.TrimRight(body, "\n") + "\n" + blockEnd + "\n"
	if i, j, ok := findBlock(doc); ok {
		return doc[:i] + block + doc[j:]
	}
	switch {
	case doc == "":
		return block
	case strings.HasSuffix(doc, "\n\n"):
	case strings.HasSuffix(doc, "\n"):
		doc += "\n"
	default:
		doc += "\n\n"
	}
	return doc + block
}

// removeBlock removes the block and the blank line before it.
func removeBlock(doc string) string {
	i, j, ok := findBlock(doc)
	if !ok {
		return doc
	}
	head := doc[:i]
	if j == len(doc) && strings.HasSuffix(head, "\n\n") {
		head = head[:len(head)-1]
	}
	return head + doc[j:]
}

// findBlock locates the block: from its begin marker's line to after its
// end marker's line.
func findBlock(doc string) (int, int, bool) {
	begin := strings.Index(doc, "<!-- git-konteks:begin")
	if begin < 0 || (begin > 0 && doc[begin-1] != '\n') {
		return 0, 0, false
	}
	rel := strings.Index(doc[begin:], blockEnd)
	if rel < 0 {
		return 0, 0, false
	}
	end := begin + rel + len(blockEnd)
	if end < len(doc) && doc[end] == '\n' {
		end++
	}
	return begin, end, true
}
