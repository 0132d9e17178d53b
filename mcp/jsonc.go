package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// JSONC (JSON with // and /* */ comments and trailing commas) is what VS
// Code, Cursor and Zed read their settings from. Writing such a file
// through a JSON decoder and encoder would lose every comment and the
// user's layout; instead the file is parsed to find where values sit, and
// only the server's entry is replaced or inserted as text. Everything
// else stays byte for byte.

// jsonValue is a parsed value with its span [start, end) in the source.
type jsonValue struct {
	start, end int
	kind       byte // '{', '[', '"', or 'v' for numbers and literals
	members    []jsonMember
}

// jsonMember is one member of an object.
type jsonMember struct {
	key      string
	keyStart int
	value    *jsonValue
}

type jsoncParser struct {
	src []byte
	pos int
}

// parseJSONC parses a JSONC document; the error says where it is broken.
func parseJSONC(src []byte) (*jsonValue, error) {
	p := &jsoncParser{src: src}
	if err := p.space(); err != nil {
		return nil, err
	}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.pos != len(src) {
		return nil, p.errorf("unexpected %q after the document", src[p.pos])
	}
	return v, nil
}

func (p *jsoncParser) errorf(format string, args ...any) error {
	line := 1 + bytes.Count(p.src[:min(p.pos, len(p.src))], []byte("\n"))
	return fmt.Errorf("line %d: %s", line, fmt.Sprintf(format, args...))
}

// space skips white space and comments.
func (p *jsoncParser) space() error {
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.pos++
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '/':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '*':
			end := bytes.Index(p.src[p.pos+2:], []byte("*/"))
			if end < 0 {
				return p.errorf("comment not closed")
			}
			p.pos += end + 4
		default:
			return nil
		}
	}
	return nil
}

const maxJSONCDepth = 200

func (p *jsoncParser) value(depth int) (*jsonValue, error) {
	if depth > maxJSONCDepth {
		return nil, p.errorf("nested too deeply")
	}
	if p.pos >= len(p.src) {
		return nil, p.errorf("unexpected end of the document")
	}
	v := &jsonValue{start: p.pos}
	switch c := p.src[p.pos]; {
	case c == '{':
		v.kind = '{'
		p.pos++
		for {
			if err := p.space(); err != nil {
				return nil, err
			}
			if p.pos < len(p.src) && p.src[p.pos] == '}' {
				p.pos++
				break
			}
			ks := p.pos
			if p.pos >= len(p.src) || p.src[p.pos] != '"' {
				return nil, p.errorf("want a quoted key or }")
			}
			key, err := p.str()
			if err != nil {
				return nil, err
			}
			if err := p.space(); err != nil {
				return nil, err
			}
			if p.pos >= len(p.src) || p.src[p.pos] != ':' {
				return nil, p.errorf("want : after key %q", key)
			}
			p.pos++
			if err := p.space(); err != nil {
				return nil, err
			}
			mv, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			v.members = append(v.members, jsonMember{key: key, keyStart: ks, value: mv})
			if err := p.space(); err != nil {
				return nil, err
			}
			if p.pos < len(p.src) && p.src[p.pos] == ',' {
				p.pos++
				continue
			}
			if p.pos < len(p.src) && p.src[p.pos] == '}' {
				p.pos++
				break
			}
			return nil, p.errorf("want , or } after the value of %q", key)
		}
	case c == '[':
		v.kind = '['
		p.pos++
		for {
			if err := p.space(); err != nil {
				return nil, err
			}
			if p.pos < len(p.src) && p.src[p.pos] == ']' {
				p.pos++
				break
			}
			if _, err := p.value(depth + 1); err != nil {
				return nil, err
			}
			if err := p.space(); err != nil {
				return nil, err
			}
			if p.pos < len(p.src) && p.src[p.pos] == ',' {
				p.pos++
				continue
			}
			if p.pos < len(p.src) && p.src[p.pos] == ']' {
				p.pos++
				break
			}
			return nil, p.errorf("want , or ] in a list")
		}
	case c == '"':
		v.kind = '"'
		if _, err := p.str(); err != nil {
			return nil, err
		}
	default:
		v.kind = 'v'
		for p.pos < len(p.src) && strings.IndexByte("+-.0123456789eEtruefalsn", p.src[p.pos]) >= 0 {
			p.pos++
		}
		var x any
		if p.pos == v.start || json.Unmarshal(p.src[v.start:p.pos], &x) != nil {
			p.pos = v.start
			return nil, p.errorf("unexpected %q", c)
		}
	}
	v.end = p.pos
	return v, nil
}

// str reads a string literal and returns its value.
func (p *jsoncParser) str() (string, error) {
	start := p.pos
	p.pos++
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case '\\':
			p.pos += 2
			continue
		case '"':
			p.pos++
			var s string
			if err := json.Unmarshal(p.src[start:p.pos], &s); err != nil {
				return "", p.errorf("bad string: %v", err)
			}
			return s, nil
		case '\n':
			return "", p.errorf("string not closed")
		}
		p.pos++
	}
	return "", p.errorf("string not closed")
}

func (v *jsonValue) member(key string) *jsonMember {
	for i := range v.members {
		if v.members[i].key == key {
			return &v.members[i]
		}
	}
	return nil
}

// setJSONCMember sets doc[outer][name] = entry in the JSONC document src,
// keeping everything else as written. changed is false when the entry
// already held the same value.
func setJSONCMember(src []byte, outer, name string, entry any) (out []byte, changed bool, err error) {
	if len(bytes.TrimSpace(src)) == 0 {
		b, err := marshalJSON(map[string]any{outer: map[string]any{name: entry}})
		return b, true, err
	}
	root, err := parseJSONC(src)
	if err != nil {
		return nil, false, err
	}
	if root.kind != '{' {
		return nil, false, fmt.Errorf("the document is not an object")
	}
	unit := indentUnit(src)
	om := root.member(outer)
	if om == nil {
		text, err := indented(map[string]any{name: entry}, lineIndent(src, root.start)+unit, unit)
		if err != nil {
			return nil, false, err
		}
		return insertMember(src, root, outer, text, unit), true, nil
	}
	if om.value.kind != '{' {
		return nil, false, fmt.Errorf("%q is not an object", outer)
	}
	if nm := om.value.member(name); nm != nil {
		var old, want any
		if err := json.Unmarshal(stripJSONC(src[nm.value.start:nm.value.end]), &old); err == nil {
			b, _ := json.Marshal(entry)
			json.Unmarshal(b, &want)
			if jsonEqual(old, want) {
				return src, false, nil
			}
		}
		text, err := indented(entry, lineIndent(src, nm.keyStart), unit)
		if err != nil {
			return nil, false, err
		}
		out := append([]byte{}, src[:nm.value.start]...)
		out = append(out, text...)
		return append(out, src[nm.value.end:]...), true, nil
	}
	text, err := indented(entry, lineIndent(src, om.keyStart)+unit, unit)
	if err != nil {
		return nil, false, err
	}
	return insertMember(src, om.value, name, text, unit), true, nil
}

// insertMember inserts "key": text as the last member of obj.
func insertMember(src []byte, obj *jsonValue, key, text, unit string) []byte {
	k, _ := json.Marshal(key)
	close := obj.end - 1 // the closing brace
	ind := lineIndent(src, obj.start) + unit
	if len(obj.members) > 0 {
		ind = lineIndent(src, obj.members[0].keyStart)
	}
	var b bytes.Buffer
	if len(obj.members) == 0 {
		b.Write(src[:obj.start+1])
		b.WriteString("\n" + ind + string(k) + ": " + text + "\n" + lineIndent(src, obj.start))
		b.Write(src[close:])
		return b.Bytes()
	}
	lastEnd := obj.members[len(obj.members)-1].value.end
	p := &jsoncParser{src: src, pos: lastEnd}
	p.space()
	hasComma := p.pos < close && src[p.pos] == ','
	ins := lastEnd
	if hasComma {
		ins = p.pos + 1 // a trailing comma is kept
	}
	// A comment that ends the member's line stays with it.
	if eol := bytes.IndexByte(src[ins:close], '\n'); eol >= 0 {
		if rest := bytes.TrimSpace(src[ins : ins+eol]); len(rest) == 0 || bytes.HasPrefix(rest, []byte("//")) {
			ins += eol
		}
	}
	b.Write(src[:lastEnd])
	if !hasComma {
		b.WriteString(",")
	}
	b.Write(src[lastEnd:ins])
	b.WriteString("\n" + ind + string(k) + ": " + text)
	b.Write(src[ins:])
	return b.Bytes()
}

// indented renders v as JSON whose lines after the first are indented by
// prefix, in steps of unit.
func indented(v any, prefix, unit string) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, unit)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimRight(buf.String(), "\n"), nil
}

// lineIndent is the white space that starts the line holding pos.
func lineIndent(src []byte, pos int) string {
	start := bytes.LastIndexByte(src[:pos], '\n') + 1
	end := start
	for end < len(src) && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	return string(src[start:end])
}

// indentUnit guesses the file's indentation step: a tab, or the smallest
// run of leading spaces (two by default).
func indentUnit(src []byte) string {
	best := 0
	for _, l := range bytes.Split(src, []byte("\n")) {
		if len(l) > 0 && l[0] == '\t' {
			return "\t"
		}
		n := len(l) - len(bytes.TrimLeft(l, " "))
		if n > 0 && n < len(l) && (best == 0 || n < best) {
			best = n
		}
	}
	if best == 0 {
		best = 2
	}
	return strings.Repeat(" ", best)
}

// stripJSONC removes comments and trailing commas from a JSONC value so
// encoding/json reads it.
func stripJSONC(src []byte) []byte {
	var out []byte
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			out = append(out, src[i:min(j+1, len(src))]...)
			i = j
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := bytes.Index(src[i+2:], []byte("*/"))
			if end < 0 {
				return out
			}
			i += end + 3
		case c == ',':
			j := i + 1
			for j < len(src) && strings.IndexByte(" \t\r\n", src[j]) >= 0 {
				j++
			}
			if j < len(src) && (src[j] == '}' || src[j] == ']') {
				continue
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
