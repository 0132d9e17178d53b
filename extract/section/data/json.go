package data

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/konteks/git-konteks/extract/section"
)

// jsonSpan is one top-level key (or the whole value) as byte offsets.
type jsonSpan struct {
	key        string
	isKey      bool
	start, end int // start of the key (or value) and end of its value
}

// SplitJSON sections a JSON document by its top-level keys. JSON with
// comments and trailing commas (tsconfig.json, editor settings) is
// accepted too. Empty or whitespace-only input has no sections and no
// error.
//
// Only the top level is read token by token; each value is consumed with
// encoding/json's iterative scanner, which refuses nesting deeper than
// 10,000 levels with an error instead of recursing.
func SplitJSON(in section.Input) (section.Result, error) {
	src := section.StripBOM(in.Content)
	lines := section.Lines(src)
	b := newBuilder("json", in, lines)
	if len(bytes.TrimSpace(src)) == 0 {
		return b.res, nil
	}
	spans, err := scanJSON(src)
	jsonc := false
	if err != nil {
		// Offsets are preserved by stripJSONC, so spans found in the
		// stripped text are valid in src.
		if clean, changed := stripJSONC(src); changed {
			if s, err2 := scanJSON(clean); err2 == nil {
				spans, err, jsonc = s, nil, true
			}
		}
	}
	if err != nil {
		return b.res, jsonError(err, lines)
	}

	b.grow(len(spans))
	for i, sp := range spans {
		from, to := lines.Line(sp.start), lines.Line(sp.end-1)
		// Own whole lines unless a neighbour shares the first or last
		// one (minified JSON); then cut at the span itself.
		s, e := sp.start, sp.end
		if i == 0 || lines.Line(spans[i-1].end-1) != from {
			s = lines.Start(from)
		}
		if i == len(spans)-1 || lines.Line(spans[i+1].start) != to {
			e = lines.End(to)
		}
		content := string(src[s:e])
		doc := ""
		if jsonc {
			doc = commentBlock(src, lines, from, "//")
		}
		if sp.isKey {
			b.key("", sp.key, from, to, content, doc)
		} else {
			b.value("", from, to, content, doc)
		}
	}
	return b.res, nil
}

func jsonError(err error, lines *section.LineIndex) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return lineError("json", lines.Line(int(se.Offset)-1), err)
	}
	var te trailingError
	if errors.As(err, &te) {
		return lineError("json", lines.Line(te.offset), err)
	}
	return lineError("json", 0, err)
}

// trailingError reports data after the top-level value.
type trailingError struct{ offset int }

func (trailingError) Error() string { return "data after the top-level value" }

// scanJSON validates src as one JSON value and returns the spans of its
// top-level keys, or of the value itself when it is not an object or is an
// empty object.
func scanJSON(src []byte) ([]jsonSpan, error) {
	first := skipSpace(src, 0)
	if first < len(src) && src[first] == '{' {
		spans, end, err := scanObject(src)
		if err != nil {
			return nil, err
		}
		if len(spans) == 0 {
			spans = []jsonSpan{{start: first, end: end}}
		}
		if rest := skipSpace(src, end); rest != len(src) {
			return nil, trailingError{rest}
		}
		return spans, nil
	}
	dec := json.NewDecoder(bytes.NewReader(src))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, err
	}
	end := int(dec.InputOffset())
	if rest := skipSpace(src, end); rest != len(src) {
		return nil, trailingError{rest}
	}
	return []jsonSpan{{start: first, end: end}}, nil
}

func scanObject(src []byte) ([]jsonSpan, int, error) {
	dec := json.NewDecoder(bytes.NewReader(src))
	if _, err := dec.Token(); err != nil { // '{'
		return nil, 0, err
	}
	var spans []jsonSpan
	for dec.More() {
		prev := int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return nil, 0, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, 0, errors.New("object key is not a string")
		}
		start := prev
		for start < len(src) && (isSpace(src[start]) || src[start] == ',') {
			start++
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, 0, err
		}
		spans = append(spans, jsonSpan{key: key, isKey: true, start: start, end: int(dec.InputOffset())})
	}
	if _, err := dec.Token(); err != nil { // '}'
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, 0, err
	}
	return spans, int(dec.InputOffset()), nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(src []byte, i int) int {
	for i < len(src) && isSpace(src[i]) {
		i++
	}
	return i
}

// stripJSONC returns a copy of src in which // and /* */ comments and
// commas before a closing bracket are replaced by spaces (newlines are
// kept), so that byte offsets and lines are unchanged. It reports whether
// anything was replaced.
func stripJSONC(src []byte) ([]byte, bool) {
	out := bytes.Clone(src)
	changed := false
	blank := func(from, to int) {
		for i := from; i < to; i++ {
			if out[i] != '\n' {
				out[i] = ' '
			}
		}
		changed = true
	}
	lastComma := -1 // position of a comma not yet followed by a value
	for i := 0; i < len(out); i++ {
		switch c := out[i]; {
		case c == '"':
			lastComma = -1
			for i++; i < len(out) && out[i] != '"'; i++ {
				if out[i] == '\\' {
					i++
				}
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			j := bytes.IndexByte(out[i:], '\n')
			if j < 0 {
				j = len(out) - i
			}
			blank(i, i+j)
			i += j - 1
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			j := bytes.Index(out[i+2:], []byte("*/"))
			if j < 0 {
				blank(i, len(out))
				i = len(out)
				break
			}
			blank(i, i+2+j+2)
			i += 2 + j + 1
		case c == ',':
			lastComma = i
		case c == '}' || c == ']':
			if lastComma >= 0 {
				blank(lastComma, lastComma+1)
			}
			lastComma = -1
		case isSpace(c):
		default:
			lastComma = -1
		}
	}
	return out, changed
}
