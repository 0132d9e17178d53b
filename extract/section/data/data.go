// Package data sections structured data files — JSON, YAML and TOML — by
// their top-level keys.
//
// Each top-level key becomes one section: Name is the key, QName and
// Anchor its JSON path ("$.scripts", or `$["lint-staged"]` for a key that
// needs quoting), Symbol "key", and the line range is exactly the key and
// its value. A document whose top level is not a mapping (an array, a
// scalar) is one section with Anchor "$" and Symbol "value".
//
// Each splitter returns an error when the file does not parse. The error
// names the format and the line; the caller then treats the file as plain
// text. Parsers are used only in ways that do not recurse without bound:
// deeply nested input yields an error, never a stack overflow.
package data

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/memory"
)

// Root is the JSON path of a whole document.
const Root = "$"

// KeyPath returns the JSON path of key under parent: parent.key for a key
// made of ASCII letters, digits and underscores that does not start with a
// digit, otherwise parent["key"] with the key as a JSON string.
func KeyPath(parent, key string) string {
	if isShorthand(key) {
		return parent + "." + key
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(key) // cannot fail for a string
	return parent + "[" + strings.TrimSuffix(b.String(), "\n") + "]"
}

func isShorthand(key string) bool {
	if key == "" {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// builder collects the sections of one file.
type builder struct {
	res     section.Result
	lang    string
	lines   int // line count of the file (at least 1)
	anchors section.AnchorSet
}

func newBuilder(kind string, in section.Input, lines *section.LineIndex) *builder {
	return &builder{
		res:   section.Result{Kind: kind, Language: in.Language, Parser: "structural"},
		lang:  in.Language,
		lines: max(lines.Count(), 1),
	}
}

// key adds the section of one top-level key; prefix is "" or a YAML
// document prefix such as "doc1:".
func (b *builder) key(prefix, key string, from, to int, content, doc string) {
	path := prefix + KeyPath(Root, key)
	b.add(memory.Section{
		Anchor:    path,
		Symbol:    "key",
		Name:      key,
		QName:     path,
		Doc:       doc,
		StartLine: from,
		EndLine:   to,
		Content:   content,
	})
}

// value adds the one section of a document that is not a mapping.
func (b *builder) value(prefix string, from, to int, content, doc string) {
	b.add(memory.Section{
		Anchor:    prefix + Root,
		Symbol:    "value",
		QName:     prefix + Root,
		Doc:       doc,
		StartLine: from,
		EndLine:   to,
		Content:   content,
	})
}

// grow makes room for n more sections (memory.Section is large; growing
// the slice step by step would copy it over and over).
func (b *builder) grow(n int) {
	b.res.Sections = slices.Grow(b.res.Sections, n)
}

func (b *builder) add(s memory.Section) {
	// Parsers may count lines differently from the line index (yaml.v3
	// breaks lines at a lone CR too); keep every range inside the file.
	s.StartLine = min(max(s.StartLine, 1), b.lines)
	s.EndLine = min(max(s.EndLine, s.StartLine), b.lines)
	s.Kind = b.res.Kind
	s.Parser = "structural"
	s.Language = b.lang
	s.Anchor = b.anchors.Add(s.Anchor)
	b.res.Sections = append(b.res.Sections, s)
}

// lineError is a parse error located at a line.
func lineError(format string, line int, err error) error {
	if line > 0 {
		return fmt.Errorf("%s: line %d: %w", format, line, err)
	}
	return fmt.Errorf("%s: %w", format, err)
}

// commentBlock returns the text of the comment lines (starting with
// marker after optional indentation) directly above line n, without their
// markers, or "" when line n-1 is not such a comment.
func commentBlock(src []byte, lines *section.LineIndex, n int, marker string) string {
	first := n
	for first > 1 && first > n-50 {
		l := bytes.TrimSpace(src[lines.Start(first-1):lines.End(first-1)])
		if !bytes.HasPrefix(l, []byte(marker)) {
			break
		}
		first--
	}
	if first == n {
		return ""
	}
	parts := make([]string, 0, n-first)
	for i := first; i < n; i++ {
		l := bytes.TrimSpace(src[lines.Start(i):lines.End(i)])
		parts = append(parts, strings.TrimSpace(string(bytes.TrimLeft(l, marker))))
	}
	return strings.Join(parts, "\n")
}

// recoverInto, deferred by a splitter with named results res and err,
// turns a parser panic into an error and a result without sections.
func (b *builder) recoverInto(res *section.Result, err *error) {
	if r := recover(); r != nil {
		*res, *err = b.res, fmt.Errorf("%s: parser panic: %v", b.res.Kind, r)
		res.Sections = nil
	}
}
