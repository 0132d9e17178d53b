package pdf

import (
	"bytes"
	"errors"
	"strconv"
)

// The PDF object model, as parsed here.
type (
	name  string
	dict  map[name]object
	array []object
	ref   struct{ num, gen int }
	// keyword is a bare word: an operator in a content stream, or obj,
	// endobj, stream, R, ... in the file body.
	keyword string
	// stream is a stream object: its dictionary and its still-encoded bytes.
	stream struct {
		dict dict
		raw  []byte
	}
	object any // nil, bool, int64, float64, []byte (string), name, dict, array, ref, keyword, *stream
)

// maxNesting bounds nested arrays and dictionaries.
const maxNesting = 64

var errSyntax = errors.New("pdf syntax error")

// lexer reads PDF tokens and objects from a byte slice.
type lexer struct {
	b   []byte
	pos int
}

func isWhite(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

func isDelim(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

func (l *lexer) skipSpace() {
	for l.pos < len(l.b) {
		c := l.b[l.pos]
		if isWhite(c) {
			l.pos++
			continue
		}
		if c == '%' {
			for l.pos < len(l.b) && l.b[l.pos] != '\n' && l.b[l.pos] != '\r' {
				l.pos++
			}
			continue
		}
		return
	}
}

// token reads one token: a number, string, name, keyword, or one of the
// delimiters "[", "]", "<<", ">>" (as keywords). ok is false at the end.
func (l *lexer) token() (object, bool) {
	l.skipSpace()
	if l.pos >= len(l.b) {
		return nil, false
	}
	c := l.b[l.pos]
	switch {
	case c == '(':
		return l.literal(), true
	case c == '<':
		if l.pos+1 < len(l.b) && l.b[l.pos+1] == '<' {
			l.pos += 2
			return keyword("<<"), true
		}
		return l.hex(), true
	case c == '>':
		if l.pos+1 < len(l.b) && l.b[l.pos+1] == '>' {
			l.pos += 2
			return keyword(">>"), true
		}
		l.pos++
		return keyword(">"), true
	case c == '[' || c == ']' || c == '{' || c == '}':
		l.pos++
		return keyword(string(c)), true
	case c == ')':
		l.pos++
		return keyword(")"), true
	case c == '/':
		return l.name(), true
	}
	start := l.pos
	for l.pos < len(l.b) && !isWhite(l.b[l.pos]) && !isDelim(l.b[l.pos]) {
		l.pos++
	}
	w := l.b[start:l.pos]
	if n, ok := number(w); ok {
		return n, true
	}
	switch string(w) {
	case "true":
		return true, true
	case "false":
		return false, true
	case "null":
		return nil, true
	}
	return keyword(w), true
}

// number parses an integer or real ("12", "-3", ".5", "4."); PDF has no
// exponents.
func number(w []byte) (object, bool) {
	if len(w) == 0 || len(w) > 32 {
		return nil, false
	}
	real := false
	for i, c := range w {
		switch {
		case c >= '0' && c <= '9':
		case (c == '-' || c == '+') && i == 0:
		case c == '.' && !real:
			real = true
		default:
			return nil, false
		}
	}
	if real {
		f, err := strconv.ParseFloat(string(w), 64)
		if err != nil {
			if string(w) == "-." || string(w) == "." || string(w) == "+." {
				return float64(0), true
			}
			return nil, false
		}
		return f, true
	}
	n, err := strconv.ParseInt(string(w), 10, 64)
	if err != nil {
		if len(w) == 1 { // a lone sign
			return nil, false
		}
		return float64(0), true // out of range: treat as a number anyway
	}
	return n, true
}

func (l *lexer) literal() []byte {
	l.pos++ // (
	var out []byte
	depth := 1
	for l.pos < len(l.b) {
		c := l.b[l.pos]
		l.pos++
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return out
			}
		case '\\':
			if l.pos >= len(l.b) {
				return out
			}
			e := l.b[l.pos]
			l.pos++
			switch e {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case '\r':
				if l.pos < len(l.b) && l.b[l.pos] == '\n' {
					l.pos++
				}
				continue
			case '\n':
				continue
			default:
				if e >= '0' && e <= '7' {
					v := int(e - '0')
					for k := 0; k < 2 && l.pos < len(l.b) && l.b[l.pos] >= '0' && l.b[l.pos] <= '7'; k++ {
						v = v*8 + int(l.b[l.pos]-'0')
						l.pos++
					}
					c = byte(v)
				} else {
					c = e
				}
			}
		}
		out = append(out, c)
	}
	return out
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

func (l *lexer) hex() []byte {
	l.pos++ // <
	var out []byte
	var hi byte
	half := false
	for l.pos < len(l.b) {
		c := l.b[l.pos]
		l.pos++
		if c == '>' {
			break
		}
		v, ok := unhex(c)
		if !ok {
			continue
		}
		if half {
			out = append(out, hi<<4|v)
		} else {
			hi = v
		}
		half = !half
	}
	if half {
		out = append(out, hi<<4)
	}
	return out
}

func (l *lexer) name() name {
	l.pos++ // /
	start := l.pos
	for l.pos < len(l.b) && !isWhite(l.b[l.pos]) && !isDelim(l.b[l.pos]) {
		l.pos++
	}
	w := l.b[start:l.pos]
	if bytes.IndexByte(w, '#') < 0 {
		return name(w)
	}
	out := make([]byte, 0, len(w))
	for i := 0; i < len(w); i++ {
		if w[i] == '#' && i+2 < len(w) {
			h, ok1 := unhex(w[i+1])
			lo, ok2 := unhex(w[i+2])
			if ok1 && ok2 {
				out = append(out, h<<4|lo)
				i += 2
				continue
			}
		}
		out = append(out, w[i])
	}
	return name(out)
}

// object reads one object, resolving "n g R" into a ref and nesting
// arrays and dictionaries up to maxNesting. Keywords other than those are
// returned as keywords.
func (l *lexer) object(depth int) (object, error) {
	if depth > maxNesting {
		return nil, errSyntax
	}
	t, ok := l.token()
	if !ok {
		return nil, errSyntax
	}
	switch v := t.(type) {
	case int64:
		// "n g R"?
		save := l.pos
		if t2, ok := l.token(); ok {
			if g, ok := t2.(int64); ok {
				if t3, ok := l.token(); ok && t3 == keyword("R") && v >= 0 && g >= 0 && v < 1<<31 && g < 1<<31 {
					return ref{int(v), int(g)}, nil
				}
			}
		}
		l.pos = save
		return v, nil
	case keyword:
		switch v {
		case "[":
			var a array
			for {
				l.skipSpace()
				if l.pos >= len(l.b) {
					return a, errSyntax
				}
				if l.b[l.pos] == ']' {
					l.pos++
					return a, nil
				}
				o, err := l.object(depth + 1)
				if err != nil {
					return a, err
				}
				if k, isKw := o.(keyword); isKw && (k == ">>" || k == "endobj" || k == "stream") {
					return a, errSyntax
				}
				a = append(a, o)
			}
		case "<<":
			d := dict{}
			for {
				l.skipSpace()
				if l.pos >= len(l.b) {
					return d, errSyntax
				}
				if l.b[l.pos] == '>' && l.pos+1 < len(l.b) && l.b[l.pos+1] == '>' {
					l.pos += 2
					return d, nil
				}
				k, ok := l.token()
				if !ok {
					return d, errSyntax
				}
				key, isName := k.(name)
				if !isName {
					if kw, isKw := k.(keyword); isKw && (kw == "endobj" || kw == "stream") {
						return d, errSyntax
					}
					continue // garbage in a dictionary: skip it
				}
				o, err := l.object(depth + 1)
				if err != nil {
					return d, err
				}
				if kw, isKw := o.(keyword); isKw && kw == ">>" {
					d[key] = nil
					return d, nil
				}
				d[key] = o
			}
		}
	}
	return t, nil
}
