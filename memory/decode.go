package memory

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// DecodeFile parses and validates a record read from a memory tree
// (zstd-compressed JSON, see EncodeFile). Every string of the record is
// its own, so a caller may keep any part of it.
//
// Records are untrusted: any input gives a valid record or an error
// wrapping ErrCorrupt, never a panic, and decompression stays bounded by
// Decompress. The parser is written by hand, for every reader of records
// (the index, the graph, the runner and recall's cold builds): with its
// reflection, its validating pre-scan and its allocations encoding/json
// was a third of a cold build's CPU. It decodes what encoding/json
// decodes into a File, value for value (an empty list is empty, an absent
// or null one nil; a repeated key decodes into what the first one left;
// keys match case-insensitively), and refuses what it refuses
// (FuzzDecodeLikeJSON).
func DecodeFile(b []byte) (*File, error) {
	return decode(b, &parser{clone: true})
}

// DecodeSections decodes a record for the readers of its sections (the
// index): the file's version, blob, size, line count, kind, language and
// topics, and every section but its parser. Its parser, fallback,
// abstract, skeleton, warnings, entities and edges are checked as
// DecodeFile checks them, then dropped. It accepts and refuses what
// DecodeFile does.
//
// Strings without escapes share the decompressed buffer (which is never
// written again): a caller that keeps a string beyond the record's life
// clones it, or the whole buffer stays alive.
func DecodeSections(b []byte) (*File, error) {
	return decode(b, &parser{lean: true})
}

func decode(b []byte, p *parser) (*File, error) {
	raw, err := Decompress(b)
	if err != nil {
		return nil, err
	}
	return p.record(raw)
}

// record parses raw, one record and nothing after it but space.
func (p *parser) record(raw []byte) (*File, error) {
	if len(raw) > 0 {
		p.s = unsafe.String(&raw[0], len(raw))
	}
	var f File
	p.file(&f)
	if p.err == nil {
		p.ws()
		if p.i != len(p.s) {
			p.fail("trailing data")
		}
	}
	if p.err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, p.err)
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return &f, nil
}

// parser is a strict JSON reader over one record. The first error stops
// it; every method is a no-op once err is set.
type parser struct {
	s     string
	i     int
	err   error
	depth int
	buf   []byte
	// clone makes every string of the record its own; else strings
	// without escapes share s. shared says the last str did.
	clone  bool
	shared bool
	// lean checks the fields DecodeSections drops without keeping them,
	// into the sinks.
	lean      bool
	sinkStr   string
	sinkStrs  []string
	sinkEnts  []Entity
	sinkEdges []Edge
}

var errSyntax = errors.New("bad JSON")

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

func (p *parser) fail(msg string) {
	if p.err == nil {
		p.err = fmt.Errorf("%w at byte %d: %s", errSyntax, p.i, msg)
	}
}

func (p *parser) ws() {
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
func (p *parser) peek() byte {
	p.ws()
	if p.i >= len(p.s) {
		return 0
	}
	return p.s[p.i]
}

func (p *parser) expect(c byte) {
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
func (p *parser) null() bool {
	if p.err == nil && p.peek() == 'n' {
		p.literal("null")
		return true
	}
	return false
}

func (p *parser) literal(lit string) {
	if strings.HasPrefix(p.s[p.i:], lit) {
		p.i += len(lit)
		return
	}
	p.fail("bad literal")
}

// object calls fn with each key of an object (fn must consume the value).
// A null object is no keys.
func (p *parser) object(fn func(key string)) {
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
func (p *parser) array(fn func()) { p.container('[', ']', fn) }

// container reads an object or an array, from open to close, calling elem
// for each member or element; a null one has none. Nesting is bounded by
// maxDepth.
func (p *parser) container(open, close byte, elem func()) {
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

// str reads a string (an object's key, or a value text has checked).
// Invalid UTF-8 and lone surrogates become U+FFFD, as encoding/json makes
// them. A string without escapes shares p.s, and str sets p.shared.
func (p *parser) str() string {
	p.shared = false
	if p.err != nil {
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
			if !ascii && !utf8.ValidString(v) {
				return fixUTF8(v)
			}
			p.shared = true
			return v
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

func (p *parser) hex4() (rune, bool) {
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
func (p *parser) number() string {
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

// int reads an integer. Fractions, exponents and values out of int64's
// range are errors, as encoding/json has them.
func (p *parser) int() int64 {
	if p.err != nil {
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
func (p *parser) skip() {
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
func (p *parser) skipStr() {
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

// text reads a string into *dst; null leaves *dst as it was.
func (p *parser) text(dst *string) {
	if p.err != nil || p.null() {
		return
	}
	if p.peek() != '"' {
		p.fail("want string")
		return
	}
	v := p.str()
	if p.clone && p.shared {
		v = strings.Clone(v)
	}
	*dst = v
}

// integer reads an integer into *dst; null leaves *dst as it was.
func (p *parser) integer(dst *int) {
	if p.err != nil || p.null() {
		return
	}
	v := p.int()
	if int64(int(v)) != v {
		p.fail("integer out of range")
		return
	}
	*dst = int(v)
}

func (p *parser) integer64(dst *int64) {
	if p.err != nil || p.null() {
		return
	}
	*dst = p.int()
}

// list reads an array into *dst as encoding/json reads one into a slice:
// null makes it nil, [] empty; elements are decoded into the slice's
// elements in place (a repeated key updates what the first one decoded,
// up to its capacity), and the slice ends at the last element read.
func list[T any](p *parser, dst *[]T, elem func(*T)) {
	if p.err != nil {
		return
	}
	if p.null() {
		*dst = nil
		return
	}
	if p.peek() != '[' {
		p.fail("want array")
		return
	}
	s, n := *dst, 0
	p.array(func() {
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
	if p.err != nil {
		return
	}
	if n == 0 {
		s = make([]T, 0)
	}
	*dst = s[:n]
}

// fields reads an object into a struct: read reads the value of a key it
// knows and reports whether it did. null leaves the struct as it was.
func (p *parser) fields(what string, known []string, read func(string) bool) {
	if p.err != nil {
		return
	}
	if c := p.peek(); c != '{' && c != 'n' {
		p.fail(what + " is not an object")
		return
	}
	p.object(func(k string) { p.field(k, known, read) })
}

var (
	fileKeys = []string{"v", "blob", "size", "lines", "kind", "language", "parser", "fallback", "topics",
		"abstract", "skeleton", "sections", "warnings", "entities", "edges"}
	sectionKeys = []string{"anchor", "kind", "symbol", "language", "parser", "name", "qname", "signature", "doc",
		"start_line", "end_line", "summary", "topics", "content", "chunks", "lex_hash", "emb_hash"}
	chunkKeys  = []string{"start_line", "end_line", "emb_hash"}
	entityKeys = []string{"id", "kind", "name", "aliases", "anchor"}
	edgeKeys   = []string{"from", "to", "kind", "raw"}
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
func (p *parser) field(k string, known []string, read func(string) bool) {
	if read(k) {
		return
	}
	if c := canonical(k, known); c != k && read(c) {
		return
	}
	p.skip()
}

func (p *parser) file(f *File) {
	if p.err == nil && p.peek() != '{' && p.peek() != 'n' {
		p.fail("record is not an object")
		return
	}
	// What a lean parse checks and drops goes to the sinks.
	parser, fallback, abstract, skeleton := &f.Parser, &f.Fallback, &f.Abstract, &f.Skeleton
	warnings, entities, edges := &f.Warnings, &f.Entities, &f.Edges
	if p.lean {
		parser, fallback, abstract, skeleton = &p.sinkStr, &p.sinkStr, &p.sinkStr, &p.sinkStr
		warnings, entities, edges = &p.sinkStrs, &p.sinkEnts, &p.sinkEdges
	}
	p.fields("record", fileKeys, func(k string) bool {
		switch k {
		case "v":
			p.integer(&f.Version)
		case "blob":
			p.text(&f.Blob)
		case "size":
			p.integer64(&f.Size)
		case "lines":
			p.integer(&f.Lines)
		case "kind":
			p.text(&f.Kind)
		case "language":
			p.text(&f.Language)
		case "parser":
			p.text(parser)
		case "fallback":
			p.text(fallback)
		case "topics":
			list(p, &f.Topics, p.text)
		case "abstract":
			p.text(abstract)
		case "skeleton":
			p.text(skeleton)
		case "sections":
			list(p, &f.Sections, p.section)
		case "warnings":
			list(p, warnings, p.text)
		case "entities":
			list(p, entities, p.entity)
		case "edges":
			list(p, edges, p.edge)
		default:
			return false
		}
		return true
	})
}

func (p *parser) section(s *Section) {
	parser := &s.Parser
	if p.lean {
		parser = &p.sinkStr
	}
	p.fields("section", sectionKeys, func(k string) bool {
		switch k {
		case "anchor":
			p.text(&s.Anchor)
		case "kind":
			p.text(&s.Kind)
		case "symbol":
			p.text(&s.Symbol)
		case "language":
			p.text(&s.Language)
		case "parser":
			p.text(parser)
		case "name":
			p.text(&s.Name)
		case "qname":
			p.text(&s.QName)
		case "signature":
			p.text(&s.Signature)
		case "doc":
			p.text(&s.Doc)
		case "start_line":
			p.integer(&s.StartLine)
		case "end_line":
			p.integer(&s.EndLine)
		case "summary":
			p.text(&s.Summary)
		case "topics":
			list(p, &s.Topics, p.text)
		case "content":
			p.text(&s.Content)
		case "chunks":
			list(p, &s.Chunks, p.chunk)
		case "lex_hash":
			p.text(&s.LexHash)
		case "emb_hash":
			p.text(&s.EmbHash)
		default:
			return false
		}
		return true
	})
}

func (p *parser) chunk(c *Chunk) {
	p.fields("chunk", chunkKeys, func(k string) bool {
		switch k {
		case "start_line":
			p.integer(&c.StartLine)
		case "end_line":
			p.integer(&c.EndLine)
		case "emb_hash":
			p.text(&c.EmbHash)
		default:
			return false
		}
		return true
	})
}

func (p *parser) entity(e *Entity) {
	p.fields("entity", entityKeys, func(k string) bool {
		switch k {
		case "id":
			p.text(&e.ID)
		case "kind":
			p.text(&e.Kind)
		case "name":
			p.text(&e.Name)
		case "aliases":
			list(p, &e.Aliases, p.text)
		case "anchor":
			p.text(&e.Anchor)
		default:
			return false
		}
		return true
	})
}

func (p *parser) edge(e *Edge) {
	p.fields("edge", edgeKeys, func(k string) bool {
		switch k {
		case "from":
			p.text(&e.From)
		case "to":
			p.text(&e.To)
		case "kind":
			p.text(&e.Kind)
		case "raw":
			p.text(&e.Raw)
		default:
			return false
		}
		return true
	})
}
