package index

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/konteks/git-konteks/memory"
)

// decodeRecord decodes a memory record (zstd-compressed JSON, see
// memory.EncodeFile) into the fields the index reads: the file's version,
// blob, size and line count, and per section everything but its parser;
// entities, edges, skeleton, abstract and warnings are checked for syntax
// and skipped. It accepts and rejects what memory.DecodeFile does on every
// record memory writes, and gives the same values for the fields it reads
// (TestDecodeRecordMatches); it is here because encoding/json, with its
// reflection, its validating pre-scan and an allocation per string, was a
// third of a cold build's CPU. Records are untrusted: any input gives a
// record or an error wrapping memory.ErrCorrupt, never a panic
// (FuzzDecodeRecord), and decompression stays bounded by
// memory.Decompress.
//
// Strings without escapes share the decompressed buffer (which is never
// written again); callers that keep a string beyond the record's life
// clone it.
func decodeRecord(b []byte) (*memory.File, error) {
	raw, err := memory.Decompress(b)
	if err != nil {
		return nil, err
	}
	return parseRecord(raw)
}

func parseRecord(raw []byte) (*memory.File, error) {
	var s string
	if len(raw) > 0 {
		s = unsafe.String(&raw[0], len(raw))
	}
	p := &jparser{s: s}
	var f memory.File
	p.file(&f)
	if p.err == nil {
		p.ws()
		if p.i != len(p.s) {
			p.fail("trailing data")
		}
	}
	if p.err != nil {
		return nil, fmt.Errorf("%w: %v", memory.ErrCorrupt, p.err)
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return &f, nil
}

// jparser is a strict JSON reader over one record. The first error stops
// it; every method is a no-op once err is set.
type jparser struct {
	s     string
	i     int
	err   error
	depth int
	buf   []byte
}

var errSyntax = errors.New("bad JSON")

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

func (p *jparser) fail(msg string) {
	if p.err == nil {
		p.err = fmt.Errorf("%w at byte %d: %s", errSyntax, p.i, msg)
	}
}

func (p *jparser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte (0 at the end).
func (p *jparser) peek() byte {
	p.ws()
	if p.i >= len(p.s) {
		return 0
	}
	return p.s[p.i]
}

func (p *jparser) expect(c byte) {
	if p.err != nil {
		return
	}
	if p.peek() != c {
		p.fail(fmt.Sprintf("want %q", c))
		return
	}
	p.i++
}

// null consumes a null literal if one is next.
func (p *jparser) null() bool {
	if p.err == nil && p.peek() == 'n' {
		p.literal("null")
		return true
	}
	return false
}

func (p *jparser) literal(lit string) {
	if strings.HasPrefix(p.s[p.i:], lit) {
		p.i += len(lit)
		return
	}
	p.fail("bad literal")
}

// object calls fn with each key of an object (fn must consume the value).
// A null object is no keys.
func (p *jparser) object(fn func(key string)) {
	p.container('{', '}', func() {
		if p.peek() != '"' {
			p.fail("want key")
			return
		}
		k := p.str()
		p.expect(':')
		if p.err != nil {
			return
		}
		fn(k)
	})
}

// array calls fn for each element (fn must consume it). A null array is
// no elements.
func (p *jparser) array(fn func()) { p.container('[', ']', fn) }

// container reads an object or an array, from open to close, calling elem
// for each member or element; a null one has none. Nesting is bounded by
// maxDepth.
func (p *jparser) container(open, close byte, elem func()) {
	if p.err != nil || p.null() {
		return
	}
	p.depth++
	if p.depth > maxDepth {
		p.fail("too deep")
		return
	}
	p.expect(open)
	if p.err == nil && p.peek() == close {
		p.i++
		p.depth--
		return
	}
	for p.err == nil {
		elem()
		if p.err != nil {
			return
		}
		switch p.peek() {
		case ',':
			p.i++
		case close:
			p.i++
			p.depth--
			return
		default:
			p.fail("want , or " + string(close))
		}
	}
}

// str reads a string; null reads as "". Invalid UTF-8 and lone surrogates
// become U+FFFD, as encoding/json makes them.
func (p *jparser) str() string {
	if p.err != nil || p.null() {
		return ""
	}
	if p.peek() != '"' {
		p.fail("want string")
		return ""
	}
	p.i++
	start := p.i
	// Fast path: no escapes, ASCII or valid UTF-8.
	ascii := true
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '"' {
			v := p.s[start:p.i]
			p.i++
			if ascii || utf8.ValidString(v) {
				return v
			}
			return fixUTF8(v)
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			p.fail("control character in string")
			return ""
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
		p.i++
	}
	if p.i >= len(p.s) {
		p.fail("unterminated string")
		return ""
	}
	// Slow path: unescape into buf.
	b := append(p.buf[:0], p.s[start:p.i]...)
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			p.buf = b
			if !utf8.Valid(b) {
				return fixUTF8(string(b))
			}
			return string(b)
		case c < 0x20:
			p.fail("control character in string")
			return ""
		case c != '\\':
			b = append(b, c)
			p.i++
			continue
		}
		if p.i+1 >= len(p.s) {
			break
		}
		e := p.s[p.i+1]
		p.i += 2
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
				p.fail("bad \\u escape")
				return ""
			}
			if utf16.IsSurrogate(r) {
				// A pair makes one rune; anything else is U+FFFD (and the
				// next escape is read on its own).
				if strings.HasPrefix(p.s[p.i:], `\u`) {
					save := p.i
					p.i += 2
					r2, ok := p.hex4()
					if ok {
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							b = utf8.AppendRune(b, d)
							continue
						}
					}
					p.i = save
				}
				r = utf8.RuneError
			}
			b = utf8.AppendRune(b, r)
		default:
			p.fail("bad escape")
			return ""
		}
	}
	p.fail("unterminated string")
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

func (p *jparser) hex4() (rune, bool) {
	if p.i+4 > len(p.s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(p.s[p.i : p.i+4]) {
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
	p.i += 4
	return r, true
}

// number scans a JSON number and returns its text.
func (p *jparser) number() string {
	p.ws()
	start := p.i
	if p.i < len(p.s) && p.s[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.i < len(p.s) && p.s[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		p.fail("bad number")
		return ""
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if digits() == 0 {
			p.fail("bad number")
			return ""
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			p.fail("bad number")
			return ""
		}
	}
	return p.s[start:p.i]
}

// int reads an integer; null reads as 0. Fractions, exponents and values
// out of int64's range are errors, as encoding/json has them.
func (p *jparser) int() int64 {
	if p.err != nil || p.null() {
		return 0
	}
	c := p.peek()
	if c != '-' && (c < '0' || c > '9') {
		p.fail("want number")
		return 0
	}
	t := p.number()
	if p.err != nil {
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
			p.fail("not an integer")
			return 0
		}
		if v > (1<<63)/10 {
			p.fail("integer out of range")
			return 0
		}
		v = v*10 + uint64(c-'0')
	}
	if !neg && v > 1<<63-1 || neg && v > 1<<63 {
		p.fail("integer out of range")
		return 0
	}
	if neg {
		return -int64(v)
	}
	return int64(v)
}

// skip consumes any value.
func (p *jparser) skip() {
	if p.err != nil {
		return
	}
	switch c := p.peek(); {
	case c == '{':
		p.object(func(string) { p.skip() })
	case c == '[':
		p.array(p.skip)
	case c == '"':
		p.skipStr()
	case c == 't':
		p.literal("true")
	case c == 'f':
		p.literal("false")
	case c == 'n':
		p.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		p.number()
	default:
		p.fail("want value")
	}
}

// skipStr checks and consumes a string without building it.
func (p *jparser) skipStr() {
	p.i++ // '"'
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return
		case c < 0x20:
			p.fail("control character in string")
			return
		case c == '\\':
			if p.i+1 >= len(p.s) {
				p.fail("unterminated string")
				return
			}
			e := p.s[p.i+1]
			p.i += 2
			switch e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if _, ok := p.hex4(); !ok {
					p.fail("bad \\u escape")
					return
				}
			default:
				p.fail("bad escape")
				return
			}
		default:
			p.i++
		}
	}
	p.fail("unterminated string")
}

func (p *jparser) strs() []string {
	var out []string
	p.array(func() { out = append(out, p.str()) })
	return out
}

func toInt(v int64, p *jparser) int {
	if int64(int(v)) != v {
		p.fail("integer out of range")
	}
	return int(v)
}

var (
	fileKeys    = []string{"v", "blob", "size", "lines", "kind", "language", "topics", "sections"}
	sectionKeys = []string{"anchor", "kind", "symbol", "language", "parser", "name", "qname", "signature", "doc",
		"start_line", "end_line", "summary", "topics", "content", "chunks", "lex_hash", "emb_hash"}
	chunkKeys = []string{"start_line", "end_line", "emb_hash"}
)

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
func (p *jparser) field(k string, known []string, read func(string) bool) {
	if read(k) {
		return
	}
	if c := canonical(k, known); c != k && read(c) {
		return
	}
	p.skip()
}

func (p *jparser) file(f *memory.File) {
	if p.err == nil && p.peek() != '{' {
		p.fail("record is not an object")
		return
	}
	field := func(k string) bool {
		switch k {
		case "v":
			f.Version = toInt(p.int(), p)
		case "blob":
			f.Blob = p.str()
		case "size":
			f.Size = p.int()
		case "lines":
			f.Lines = toInt(p.int(), p)
		case "kind":
			f.Kind = p.str()
		case "language":
			f.Language = p.str()
		case "topics":
			f.Topics = p.strs()
		case "sections":
			f.Sections = f.Sections[:0]
			p.array(func() {
				var s memory.Section
				p.section(&s)
				f.Sections = append(f.Sections, s)
			})
		default:
			return false
		}
		return true
	}
	p.object(func(k string) { p.field(k, fileKeys, field) })
}

func (p *jparser) section(s *memory.Section) {
	if p.err == nil && p.peek() != '{' && p.peek() != 'n' {
		p.fail("section is not an object")
		return
	}
	field := func(k string) bool {
		switch k {
		case "anchor":
			s.Anchor = p.str()
		case "kind":
			s.Kind = p.str()
		case "symbol":
			s.Symbol = p.str()
		case "language":
			s.Language = p.str()
		case "parser":
			s.Parser = p.str()
		case "name":
			s.Name = p.str()
		case "qname":
			s.QName = p.str()
		case "signature":
			s.Signature = p.str()
		case "doc":
			s.Doc = p.str()
		case "start_line":
			s.StartLine = toInt(p.int(), p)
		case "end_line":
			s.EndLine = toInt(p.int(), p)
		case "summary":
			s.Summary = p.str()
		case "topics":
			s.Topics = p.strs()
		case "content":
			s.Content = p.str()
		case "chunks":
			s.Chunks = nil
			p.array(func() {
				var c memory.Chunk
				if p.err == nil && p.peek() != '{' && p.peek() != 'n' {
					p.fail("chunk is not an object")
					return
				}
				p.object(func(k string) {
					p.field(k, chunkKeys, func(k string) bool {
						switch k {
						case "start_line":
							c.StartLine = toInt(p.int(), p)
						case "end_line":
							c.EndLine = toInt(p.int(), p)
						case "emb_hash":
							c.EmbHash = p.str()
						default:
							return false
						}
						return true
					})
				})
				s.Chunks = append(s.Chunks, c)
			})
		case "lex_hash":
			s.LexHash = p.str()
		case "emb_hash":
			s.EmbHash = p.str()
		default:
			return false
		}
		return true
	}
	p.object(func(k string) { p.field(k, sectionKeys, field) })
}
