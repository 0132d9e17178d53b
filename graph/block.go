package graph

import (
	"encoding/binary"
	"fmt"
	"strings"
	"unsafe"

	"github.com/konteks/git-konteks/memory"
)

// A block is one file's entities and edges in the cache, self-contained
// so that an update copies the blocks of unchanged files as they are:
//
//	str language, str package (Java-like, for import resolution), byte code
//	uvarint entities; each: ref id, str kind, str name, uvarint aliases, str..., str anchor
//	uvarint edges; each: ref from, ref to, str kind, str raw
//
// A str is a uvarint length and bytes; a ref is a tag byte — 0: a str
// follows; 1: "file:<path>"; 2: "sym:<path>#" and a str — since nearly
// every id names the block's own file.

type ref struct {
	tag byte
	s   string
}

func (r ref) str(p string) string {
	switch r.tag {
	case 1:
		return "file:" + p
	case 2:
		return "sym:" + p + "#" + r.s
	}
	return r.s
}

// is compares without building the string.
func (r ref) is(p, want string) bool {
	switch r.tag {
	case 1:
		return len(want) == 5+len(p) && strings.HasPrefix(want, "file:") && want[5:] == p
	case 2:
		return len(want) == 5+len(p)+len(r.s) && strings.HasPrefix(want, "sym:") && strings.HasPrefix(want[4:], p) &&
			want[4+len(p)] == '#' && want[5+len(p):] == r.s
	}
	return r.s == want
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendRef(b []byte, p, s string) []byte {
	if s == "file:"+p {
		return append(b, 1)
	}
	if rest, ok := strings.CutPrefix(s, "sym:"+p+"#"); ok {
		return appendStr(append(b, 2), rest)
	}
	return appendStr(append(b, 0), s)
}

// blockHead is what a block says about its file.
type blockHead struct {
	lang, pkg string
	code      bool
}

func encodeBlock(p string, h blockHead, ents []memory.Entity, edges []memory.Edge) []byte {
	b := appendStr(nil, h.lang)
	b = appendStr(b, h.pkg)
	if h.code {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(ents)))
	for _, e := range ents {
		b = appendRef(b, p, e.ID)
		b = appendStr(b, e.Kind)
		b = appendStr(b, e.Name)
		b = binary.AppendUvarint(b, uint64(len(e.Aliases)))
		for _, a := range e.Aliases {
			b = appendStr(b, a)
		}
		b = appendStr(b, e.Anchor)
	}
	b = binary.AppendUvarint(b, uint64(len(edges)))
	for _, e := range edges {
		b = appendRef(b, p, e.From)
		b = appendRef(b, p, e.To)
		b = appendStr(b, e.Kind)
		b = appendStr(b, e.Raw)
	}
	return b
}

// rawEntity and rawEdge are a block's rows, their strings pointing into
// the block.
type rawEntity struct {
	id          ref
	kind, name  string
	aliases     []string
	anchor      string
	aliasesFrom int
}

type rawEdge struct {
	from, to  ref
	kind, raw string
}

// blockReader decodes a block without copying its strings.
type blockReader struct {
	b   []byte
	err error
}

func (r *blockReader) uv() int {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 || v > uint64(len(r.b)) {
		r.err = fmt.Errorf("%w: block", errCache)
		return 0
	}
	r.b = r.b[n:]
	return int(v)
}

func (r *blockReader) byte1() byte {
	if r.err != nil || len(r.b) == 0 {
		r.err = fmt.Errorf("%w: block", errCache)
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *blockReader) str() string {
	n := r.uv()
	if r.err != nil || n > len(r.b) {
		r.err = fmt.Errorf("%w: block string", errCache)
		return ""
	}
	s := r.b[:n]
	r.b = r.b[n:]
	if n == 0 {
		return ""
	}
	return unsafe.String(&s[0], n)
}

func (r *blockReader) ref() ref {
	switch t := r.byte1(); t {
	case 1:
		return ref{tag: 1}
	case 0, 2:
		return ref{tag: t, s: r.str()}
	default:
		r.err = fmt.Errorf("%w: block ref", errCache)
	}
	return ref{}
}

// decodedBlock is a parsed block; its slices are reused between blocks.
type decodedBlock struct {
	head    blockHead
	ents    []rawEntity
	aliases []string
	edges   []rawEdge
}

// parse decodes block b into d (strings point into b).
func (d *decodedBlock) parse(b []byte) error {
	r := &blockReader{b: b}
	d.head.lang, d.head.pkg = r.str(), r.str()
	d.head.code = r.byte1() == 1
	d.ents, d.aliases, d.edges = d.ents[:0], d.aliases[:0], d.edges[:0]
	n := r.uv()
	for i := 0; i < n && r.err == nil; i++ {
		e := rawEntity{id: r.ref(), kind: r.str(), name: r.str()}
		na := r.uv()
		start := len(d.aliases)
		for j := 0; j < na && r.err == nil; j++ {
			d.aliases = append(d.aliases, r.str())
		}
		e.aliasesFrom = start
		e.anchor = r.str()
		d.ents = append(d.ents, e)
	}
	// Slices into d.aliases are taken after it stops growing.
	for i := range d.ents {
		next := len(d.aliases)
		if i+1 < len(d.ents) {
			next = d.ents[i+1].aliasesFrom
		}
		d.ents[i].aliases = d.aliases[d.ents[i].aliasesFrom:next]
	}
	n = r.uv()
	for i := 0; i < n && r.err == nil; i++ {
		d.edges = append(d.edges, rawEdge{from: r.ref(), to: r.ref(), kind: r.str(), raw: r.str()})
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = fmt.Errorf("%w: block trailing bytes", errCache)
	}
	return r.err
}

// entity copies a raw entity out of the block.
func (e *rawEntity) entity(p string) memory.Entity {
	out := memory.Entity{ID: strings.Clone(e.id.str(p)), Kind: strings.Clone(e.kind), Name: strings.Clone(e.name), Anchor: strings.Clone(e.anchor)}
	for _, a := range e.aliases {
		out.Aliases = append(out.Aliases, strings.Clone(a))
	}
	return out
}

// fakeRecord is enough of a record for the Resolver: the language and,
// for Java-like files, the package clause.
func fakeRecord(h blockHead) *memory.File {
	f := &memory.File{Kind: "code", Language: h.lang}
	if h.pkg != "" {
		f.Sections = []memory.Section{{Symbol: "preamble", Content: "package " + h.pkg + ";\n"}}
	}
	return f
}
