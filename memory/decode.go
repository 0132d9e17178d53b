package memory

import (
	"fmt"
	"unsafe"

	"github.com/konteks/git-konteks/internal/jsondec"
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
	return decode(b, &parser{Parser: jsondec.Parser{Clone: true}})
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
		p.S = unsafe.String(&raw[0], len(raw))
	}
	var f File
	p.file(&f)
	p.End()
	if p.Err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, p.Err)
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return &f, nil
}

// parser reads one record: a jsondec.Parser, and the sinks a lean parse
// checks the fields DecodeSections drops into.
type parser struct {
	jsondec.Parser
	lean      bool
	sinkStr   string
	sinkStrs  []string
	sinkEnts  []Entity
	sinkEdges []Edge
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

func (p *parser) file(f *File) {
	if p.Err == nil && p.Peek() != '{' && p.Peek() != 'n' {
		p.Fail("record is not an object")
		return
	}
	// What a lean parse checks and drops goes to the sinks.
	parser, fallback, abstract, skeleton := &f.Parser, &f.Fallback, &f.Abstract, &f.Skeleton
	warnings, entities, edges := &f.Warnings, &f.Entities, &f.Edges
	if p.lean {
		parser, fallback, abstract, skeleton = &p.sinkStr, &p.sinkStr, &p.sinkStr, &p.sinkStr
		warnings, entities, edges = &p.sinkStrs, &p.sinkEnts, &p.sinkEdges
	}
	p.Fields("record", fileKeys, func(k string) bool {
		switch k {
		case "v":
			p.Integer(&f.Version)
		case "blob":
			p.Text(&f.Blob)
		case "size":
			p.Integer64(&f.Size)
		case "lines":
			p.Integer(&f.Lines)
		case "kind":
			p.Text(&f.Kind)
		case "language":
			p.Text(&f.Language)
		case "parser":
			p.Text(parser)
		case "fallback":
			p.Text(fallback)
		case "topics":
			jsondec.List(&p.Parser, &f.Topics, p.Text)
		case "abstract":
			p.Text(abstract)
		case "skeleton":
			p.Text(skeleton)
		case "sections":
			jsondec.List(&p.Parser, &f.Sections, p.section)
		case "warnings":
			jsondec.List(&p.Parser, warnings, p.Text)
		case "entities":
			jsondec.List(&p.Parser, entities, p.entity)
		case "edges":
			jsondec.List(&p.Parser, edges, p.edge)
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
	p.Fields("section", sectionKeys, func(k string) bool {
		switch k {
		case "anchor":
			p.Text(&s.Anchor)
		case "kind":
			p.Text(&s.Kind)
		case "symbol":
			p.Text(&s.Symbol)
		case "language":
			p.Text(&s.Language)
		case "parser":
			p.Text(parser)
		case "name":
			p.Text(&s.Name)
		case "qname":
			p.Text(&s.QName)
		case "signature":
			p.Text(&s.Signature)
		case "doc":
			p.Text(&s.Doc)
		case "start_line":
			p.Integer(&s.StartLine)
		case "end_line":
			p.Integer(&s.EndLine)
		case "summary":
			p.Text(&s.Summary)
		case "topics":
			jsondec.List(&p.Parser, &s.Topics, p.Text)
		case "content":
			p.Text(&s.Content)
		case "chunks":
			jsondec.List(&p.Parser, &s.Chunks, p.chunk)
		case "lex_hash":
			p.Text(&s.LexHash)
		case "emb_hash":
			p.Text(&s.EmbHash)
		default:
			return false
		}
		return true
	})
}

func (p *parser) chunk(c *Chunk) {
	p.Fields("chunk", chunkKeys, func(k string) bool {
		switch k {
		case "start_line":
			p.Integer(&c.StartLine)
		case "end_line":
			p.Integer(&c.EndLine)
		case "emb_hash":
			p.Text(&c.EmbHash)
		default:
			return false
		}
		return true
	})
}

func (p *parser) entity(e *Entity) {
	p.Fields("entity", entityKeys, func(k string) bool {
		switch k {
		case "id":
			p.Text(&e.ID)
		case "kind":
			p.Text(&e.Kind)
		case "name":
			p.Text(&e.Name)
		case "aliases":
			jsondec.List(&p.Parser, &e.Aliases, p.Text)
		case "anchor":
			p.Text(&e.Anchor)
		default:
			return false
		}
		return true
	})
}

func (p *parser) edge(e *Edge) {
	p.Fields("edge", edgeKeys, func(k string) bool {
		switch k {
		case "from":
			p.Text(&e.From)
		case "to":
			p.Text(&e.To)
		case "kind":
			p.Text(&e.Kind)
		case "raw":
			p.Text(&e.Raw)
		default:
			return false
		}
		return true
	})
}
