// Package jsondec is a strict, hand-written JSON reader for the records
// memory keeps (file records, history commits). It decodes what
// encoding/json decodes into a struct, value for value, and refuses what
// it refuses: an empty list is empty, an absent or null one nil; a
// repeated key decodes into what the first one left; keys match
// case-insensitively; invalid UTF-8 and lone surrogates become U+FFFD;
// nesting stops at encoding/json's depth. Without reflection, a validating
// pre-scan or an allocation per value it is several times faster, which is
// what a cold build reads most of (records are untrusted: any input gives
// a value or an error, never a panic).
package jsondec

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// Parser is a strict JSON reader over one input (S). The first error
// stops it (Err); every method is a no-op once Err is set.
type Parser struct {
	S     string // the input
	I     int    // the next byte of S to read
	Err   error  // the first error
	depth int
	// Clone makes every string read by Text its own; else strings
	// without escapes share S. Shared says the last Str did.
	Clone  bool
	Shared bool
}

// ErrSyntax is wrapped by every error of a Parser.
var ErrSyntax = errors.New("bad JSON")

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

// Fail records the first error, at the current byte.
func (p *Parser) Fail(msg string) {
	if p.Err == nil {
		p.Err = fmt.Errorf("%w at byte %d: %s", ErrSyntax, p.I, msg)
	}
}

// WS skips white space.
func (p *Parser) WS() {
	for p.I < len(p.S) {
		switch p.S[p.I] {
		case ' ', '\t', '\n', '\r':
			p.I++
		default:
			return
		}
	}
}

// peek returns the next non-space byte (0 at the end).
func (p *Parser) Peek() byte {
	p.WS()
	if p.I >= len(p.S) {
		return 0
	}
	return p.S[p.I]
}

// Expect consumes the byte c, which must be next.
func (p *Parser) Expect(c byte) {
	if p.Err != nil {
		return
	}
	if p.Peek() != c {
		p.Fail(fmt.Sprintf("want %q", c))
		return
	}
	p.I++
}

// Null consumes a null literal if one is next.
func (p *Parser) Null() bool {
	if p.Err == nil && p.Peek() == 'n' {
		p.literal("null")
		return true
	}
	return false
}

func (p *Parser) literal(lit string) {
	if strings.HasPrefix(p.S[p.I:], lit) {
		p.I += len(lit)
		return
	}
	p.Fail("bad literal")
}

// Object calls fn with each key of an object (fn must consume the value).
// A null object is no keys.
func (p *Parser) Object(fn func(key string)) {
	p.container('{', '}', func() {
		if p.Peek() != '"' {
			p.Fail("want key")
			return
		}
		k := p.Str()
		p.Expect(':')
		if p.Err != nil {
			return
		}
		fn(k)
	})
}

// Array calls fn for each element (fn must consume it). A null array is
// no elements.
func (p *Parser) Array(fn func()) { p.container('[', ']', fn) }

// container reads an object or an array, from open to close, calling elem
// for each member or element; a null one has none. Nesting is bounded by
// maxDepth.
func (p *Parser) container(open, close byte, elem func()) {
	if p.Err != nil || p.Null() {
		return
	}
	p.depth++
	if p.depth > maxDepth {
		p.Fail("too deep")
		return
	}
	p.Expect(open)
	if p.Err == nil && p.Peek() == close {
		p.I++
		p.depth--
		return
	}
	for p.Err == nil {
		elem()
		if p.Err != nil {
			return
		}
		switch p.Peek() {
		case ',':
			p.I++
		case close:
			p.I++
			p.depth--
			return
		default:
			p.Fail("want , or " + string(close))
		}
	}
}

// Str reads a string (an object's key, or a value text has checked).
// Invalid UTF-8 and lone surrogates become U+FFFD, as encoding/json makes
// them. A string without escapes shares p.S, and str sets p.Shared.
func (p *Parser) Str() string {
	p.Shared = false
	if p.Err != nil {
		return ""
	}
	if p.Peek() != '"' {
		p.Fail("want string")
		return ""
	}
	p.I++
	start := p.I
	// Fast path: no escapes, ASCII or valid UTF-8.
	ascii := true
	for p.I < len(p.S) {
		c := p.S[p.I]
		if c == '"' {
			v := p.S[start:p.I]
			p.I++
			if !ascii && !utf8.ValidString(v) {
				return fixUTF8(v)
			}
			p.Shared = true
			return v
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			p.Fail("control character in string")
			return ""
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
		p.I++
	}
	if p.I >= len(p.S) {
		p.Fail("unterminated string")
		return ""
	}
	// Slow path: unescape into a string of its own. Unescaped, the text
	// is no longer than it is raw (an escape is at least as long as what
	// it stands for), so its bytes are allocated once, at the raw length
	// up to the closing quote, and become the string without a copy.
	end := p.I
	for end < len(p.S) && p.S[end] != '"' {
		if p.S[end] == '\\' {
			end++
		}
		end++
	}
	b := make([]byte, 0, min(end, len(p.S))-start)
	b = append(b, p.S[start:p.I]...)
	for p.I < len(p.S) {
		run := p.I
		for run < len(p.S) {
			if c := p.S[run]; c == '"' || c == '\\' || c < 0x20 {
				break
			}
			run++
		}
		b = append(b, p.S[p.I:run]...)
		if p.I = run; p.I >= len(p.S) {
			break
		}
		c := p.S[p.I]
		switch {
		case c == '"':
			p.I++
			if !utf8.Valid(b) {
				return fixUTF8(string(b))
			}
			return unsafe.String(unsafe.SliceData(b), len(b))
		case c < 0x20:
			p.Fail("control character in string")
			return ""
		}
		if p.I+1 >= len(p.S) {
			break
		}
		e := p.S[p.I+1]
		p.I += 2
		switch e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				p.Fail("bad \\u escape")
				return ""
			}
			if utf16.IsSurrogate(r) {
				// A pair makes one rune; anything else is U+FFFD (and the
				// next escape is read on its own).
				if strings.HasPrefix(p.S[p.I:], `\u`) {
					save := p.I
					p.I += 2
					r2, ok := p.hex4()
					if ok {
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							b = utf8.AppendRune(b, d)
							continue
						}
					}
					p.I = save
				}
				r = utf8.RuneError
			}
			b = utf8.AppendRune(b, r)
		default:
			p.Fail("bad escape")
			return ""
		}
	}
	p.Fail("unterminated string")
	return ""
}

// fixUTF8 replaces each byte of s that is not part of valid UTF-8 with
// U+FFFD, as encoding/json does.
func fixUTF8(s string) string {
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = utf8.AppendRune(b, utf8.RuneError)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return string(b)
}

func (p *Parser) hex4() (rune, bool) {
	if p.I+4 > len(p.S) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(p.S[p.I : p.I+4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	p.I += 4
	return r, true
}

// Number scans a JSON number and returns its text.
func (p *Parser) Number() string {
	p.WS()
	start := p.I
	if p.I < len(p.S) && p.S[p.I] == '-' {
		p.I++
	}
	digits := func() int {
		n := 0
		for p.I < len(p.S) && p.S[p.I] >= '0' && p.S[p.I] <= '9' {
			p.I++
			n++
		}
		return n
	}
	if p.I < len(p.S) && p.S[p.I] == '0' {
		p.I++
	} else if digits() == 0 {
		p.Fail("bad number")
		return ""
	}
	if p.I < len(p.S) && p.S[p.I] == '.' {
		p.I++
		if digits() == 0 {
			p.Fail("bad number")
			return ""
		}
	}
	if p.I < len(p.S) && (p.S[p.I] == 'e' || p.S[p.I] == 'E') {
		p.I++
		if p.I < len(p.S) && (p.S[p.I] == '+' || p.S[p.I] == '-') {
			p.I++
		}
		if digits() == 0 {
			p.Fail("bad number")
			return ""
		}
	}
	return p.S[start:p.I]
}

// Int reads an integer. Fractions, exponents and values out of int64's
// range are errors, as encoding/json has them.
func (p *Parser) Int() int64 {
	if p.Err != nil {
		return 0
	}
	c := p.Peek()
	if c != '-' && (c < '0' || c > '9') {
		p.Fail("want number")
		return 0
	}
	t := p.Number()
	if p.Err != nil {
		return 0
	}
	neg := t[0] == '-'
	if neg {
		t = t[1:]
	}
	var v uint64
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c < '0' || c > '9' {
			p.Fail("not an integer")
			return 0
		}
		if v > (1<<63)/10 {
			p.Fail("integer out of range")
			return 0
		}
		v = v*10 + uint64(c-'0')
	}
	if !neg && v > 1<<63-1 || neg && v > 1<<63 {
		p.Fail("integer out of range")
		return 0
	}
	if neg {
		return -int64(v)
	}
	return int64(v)
}

// Skip consumes any value.
func (p *Parser) Skip() {
	if p.Err != nil {
		return
	}
	switch c := p.Peek(); {
	case c == '{':
		p.Object(func(string) { p.Skip() })
	case c == '[':
		p.Array(p.Skip)
	case c == '"':
		p.skipStr()
	case c == 't':
		p.literal("true")
	case c == 'f':
		p.literal("false")
	case c == 'n':
		p.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		p.Number()
	default:
		p.Fail("want value")
	}
}

// skipStr checks and consumes a string without building it.
func (p *Parser) skipStr() {
	p.I++ // '"'
	for p.I < len(p.S) {
		c := p.S[p.I]
		switch {
		case c == '"':
			p.I++
			return
		case c < 0x20:
			p.Fail("control character in string")
			return
		case c == '\\':
			if p.I+1 >= len(p.S) {
				p.Fail("unterminated string")
				return
			}
			e := p.S[p.I+1]
			p.I += 2
			switch e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if _, ok := p.hex4(); !ok {
					p.Fail("bad \\u escape")
					return
				}
			default:
				p.Fail("bad escape")
				return
			}
		default:
			p.I++
		}
	}
	p.Fail("unterminated string")
}

// Text reads a string into *dst; null leaves *dst as it was.
func (p *Parser) Text(dst *string) {
	if p.Err != nil || p.Null() {
		return
	}
	if p.Peek() != '"' {
		p.Fail("want string")
		return
	}
	v := p.Str()
	if p.Clone && p.Shared {
		v = strings.Clone(v)
	}
	*dst = v
}

// Integer reads an integer into *dst; null leaves *dst as it was.
func (p *Parser) Integer(dst *int) {
	if p.Err != nil || p.Null() {
		return
	}
	v := p.Int()
	if int64(int(v)) != v {
		p.Fail("integer out of range")
		return
	}
	*dst = int(v)
}

// Integer64 reads an integer into *dst; null leaves *dst as it was.
func (p *Parser) Integer64(dst *int64) {
	if p.Err != nil || p.Null() {
		return
	}
	*dst = p.Int()
}

// List reads an array into *dst as encoding/json reads one into a slice:
// null makes it nil, [] empty; elements are decoded into the slice's
// elements in place (a repeated key updates what the first one decoded,
// up to its capacity), and the slice ends at the last element read.
func List[T any](p *Parser, dst *[]T, elem func(*T)) {
	if p.Err != nil {
		return
	}
	if p.Null() {
		*dst = nil
		return
	}
	if p.Peek() != '[' {
		p.Fail("want array")
		return
	}
	s, n := *dst, 0
	p.Array(func() {
		if n >= len(s) {
			if n < cap(s) {
				s = s[:n+1]
			} else {
				var zero T
				s = append(s, zero)
			}
		}
		elem(&s[n])
		n++
	})
	if p.Err != nil {
		return
	}
	if n == 0 {
		s = make([]T, 0)
	}
	*dst = s[:n]
}

// Fields reads an object into a struct: read reads the value of a key it
// knows and reports whether it did. null leaves the struct as it was.
func (p *Parser) Fields(what string, known []string, read func(string) bool) {
	if p.Err != nil {
		return
	}
	if c := p.Peek(); c != '{' && c != 'n' {
		p.Fail(what + " is not an object")
		return
	}
	p.Object(func(k string) { p.field(k, known, read) })
}

// canonical returns the key of known that k names: k itself, or the one
// it matches case-insensitively (as encoding/json matches field names,
// with Unicode's simple case folding), or k when none does.
func canonical(k string, known []string) string {
	f := foldName(k)
	for _, n := range known {
		if foldName(n) == f {
			return n
		}
	}
	return k
}

// foldName is encoding/json's: upper-case ASCII, and every other rune as
// the smallest rune of its case-folding orbit.
func foldName(s string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		if r < utf8.RuneSelf {
			if 'a' <= r && r <= 'z' {
				r -= 'a' - 'A'
			}
			b = append(b, byte(r))
			continue
		}
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			r = min(r, f)
		}
		b = utf8.AppendRune(b, r)
	}
	return string(b)
}

// field reads the value of key k with read, which reports whether it
// knows k; a key it does not know is tried again as the known key it
// matches case-insensitively, else its value is skipped.
func (p *Parser) field(k string, known []string, read func(string) bool) {
	if read(k) {
		return
	}
	if c := canonical(k, known); c != k && read(c) {
		return
	}
	p.Skip()
}

// Float64 reads a number into *dst as encoding/json reads one into a
// float64; null leaves *dst as it was.
func (p *Parser) Float64(dst *float64) {
	if p.Err != nil || p.Null() {
		return
	}
	c := p.Peek()
	if c != '-' && (c < '0' || c > '9') {
		p.Fail("want number")
		return
	}
	t := p.Number()
	if p.Err != nil {
		return
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		p.Fail("number out of range")
		return
	}
	*dst = v
}

// End checks that nothing but space is left.
func (p *Parser) End() {
	if p.Err == nil {
		p.WS()
		if p.I != len(p.S) {
			p.Fail("trailing data")
		}
	}
}
