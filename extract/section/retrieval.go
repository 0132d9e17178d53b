package section

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/text"
)

// Retrieval texts. Each section is indexed in two voices, produced by one
// deterministic function each, so that the hash of the text identifies what
// was indexed and a vector can be reused whenever its text is unchanged:
//
//   - LexicalText feeds the BM25 index. It repeats the identifiers of the
//     section in split form ("parseHTTPRequest parse http request") so a
//     query word matches a part of a compound name, and carries the topics
//     and summary.
//   - EmbeddingText feeds the embedder. It is a short header (where the
//     section is and what it is called) followed by the content, bounded to
//     one chunk's worth; a large section is represented in full by its
//     chunks, each with ChunkEmbeddingText.

// LexicalText returns the text a section is indexed under for keyword
// search: path and its word parts, kind and symbol, qualified name and its
// word parts, signature, doc, topics, summary, then the content.
func LexicalText(path string, s memory.Section) string {
	// The bytes are the string's own: no copy.
	b := appendLexical(nil, path, string(text.AppendSplit(nil, path)), &s)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// appendLexical appends LexicalText(path, *s) to b; pathSplit is the
// path's word parts joined by spaces, computed once per file by Finish.
func appendLexical(b []byte, path, pathSplit string, s *memory.Section) []byte {
	b = slices.Grow(b, len(path)+len(pathSplit)+2*len(s.QName)+len(s.Signature)+len(s.Doc)+len(s.Summary)+len(s.Content)+256)
	b = appendLine(b, path)
	b = appendLine(b, pathSplit)
	b = appendLine(b, s.Kind, s.Language, s.Symbol)
	name := s.QName
	if name == "" {
		name = s.Name
	}
	if s.Name != "" && s.Name != name {
		b = appendLine(b, name, s.Name)
	} else {
		b = appendLine(b, name)
	}
	b = appendSplitLine(b, name)
	b = appendLine(b, s.Signature)
	b = appendLine(b, s.Doc)
	b = appendJoinLine(b, s.Topics)
	b = appendLine(b, s.Summary)
	return append(b, s.Content...)
}

// appendLine appends the non-empty parts joined by spaces and a newline,
// or nothing when every part is empty.
func appendLine(b []byte, parts ...string) []byte {
	start := len(b)
	for _, p := range parts {
		if p == "" {
			continue
		}
		if len(b) > start {
			b = append(b, ' ')
		}
		b = append(b, p...)
	}
	if len(b) > start {
		b = append(b, '\n')
	}
	return b
}

// appendJoinLine appends strings.Join(parts, " ") and a newline, or
// nothing when that is empty.
func appendJoinLine(b []byte, parts []string) []byte {
	if len(parts) == 0 || len(parts) == 1 && parts[0] == "" {
		return b
	}
	for i, p := range parts {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, p...)
	}
	return append(b, '\n')
}

// appendSplitLine appends the word parts of s joined by spaces and a
// newline, or nothing when s has none.
func appendSplitLine(b []byte, s string) []byte {
	start := len(b)
	b = text.AppendSplit(b, s)
	if len(b) > start {
		b = append(b, '\n')
	}
	return b
}

// embeddingHeader appends the short header every embedding text starts
// with.
func embeddingHeader(b []byte, path string, s *memory.Section) []byte {
	b = append(b, path...)
	b = append(b, '\n')
	b = append(b, s.Kind...)
	if s.Language != "" && !strings.EqualFold(s.Language, s.Kind) {
		b = append(b, ' ')
		b = append(b, s.Language...)
	}
	if s.Symbol != "" {
		b = append(b, ' ')
		b = append(b, s.Symbol...)
	}
	name := s.QName
	if name == "" {
		name = s.Name
	}
	if name != "" {
		b = append(b, ": "...)
		b = append(b, name...)
	}
	return append(b, '\n')
}

// EmbeddingText returns the text a section is embedded as: a header with
// path, kind and name, then the content, bounded to MaxChunkLines lines and
// MaxChunkBytes bytes. A section with chunks is fully covered by its chunks'
// texts; its own text embeds its start.
func EmbeddingText(path string, s memory.Section) string {
	return string(appendEmbedding(nil, path, &s))
}

func appendEmbedding(b []byte, path string, s *memory.Section) []byte {
	body := head(s.Content)
	b = slices.Grow(b, len(path)+len(s.Kind)+len(s.Language)+len(s.Symbol)+len(s.QName)+len(s.Name)+len(body)+16)
	b = embeddingHeader(b, path, s)
	b = append(b, '\n')
	return append(b, body...)
}

// ChunkEmbeddingText returns the embedding text of one chunk of a large
// section: the section's header, the chunk's line range, then the chunk's
// lines of content (bounded to MaxChunkBytes; a chunk is one over-long line
// at most that long).
func ChunkEmbeddingText(path string, s memory.Section, c memory.Chunk) string {
	rest := s.Content
	for n := s.StartLine; n < c.StartLine && rest != ""; n++ {
		k := strings.IndexByte(rest, '\n')
		if k < 0 {
			rest = ""
			break
		}
		rest = rest[k+1:]
	}
	end := 0
	for n := c.StartLine; n <= c.EndLine && end < len(rest); n++ {
		k := strings.IndexByte(rest[end:], '\n')
		if k < 0 {
			end = len(rest)
			break
		}
		end += k + 1
	}
	return string(appendChunk(nil, path, &s, c, strings.TrimSuffix(rest[:end], "\n")))
}

// EachEmbeddingText calls fn with every text section s is embedded as and
// the hash it is stored under: its chunks' texts when it has chunks, else
// its own text. The texts are built in buf (grown and returned), which fn
// must not keep; chunks are walked once, where ChunkEmbeddingText walks the
// content from its start for each.
func EachEmbeddingText(buf []byte, path string, s *memory.Section, fn func(hash string, text []byte)) []byte {
	if len(s.Chunks) == 0 {
		buf = appendEmbedding(buf[:0], path, s)
		fn(s.EmbHash, buf)
		return buf
	}
	eachChunkBody(s, func(c *memory.Chunk, body string) {
		buf = appendChunk(buf[:0], path, s, *c, body)
		fn(c.EmbHash, buf)
	})
	return buf
}

// HashBytes is Hash of a text held in a byte slice.
func HashBytes(text []byte) string { return hashBytes(text) }

func appendChunk(b []byte, path string, s *memory.Section, c memory.Chunk, body string) []byte {
	body = CutBytes(body, MaxChunkBytes)
	b = slices.Grow(b, len(path)+len(s.Kind)+len(s.Language)+len(s.Symbol)+len(s.QName)+len(s.Name)+len(body)+48)
	b = embeddingHeader(b, path, s)
	b = append(b, "lines "...)
	b = strconv.AppendInt(b, int64(c.StartLine), 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, int64(c.EndLine), 10)
	b = append(b, "\n\n"...)
	return append(b, body...)
}

// Hash is the hash retrieval texts are keyed by: the first 16 bytes of the
// text's SHA-256, in lowercase hex (32 characters).
func Hash(text string) string {
	return hashBytes([]byte(text))
}

func hashBytes(text []byte) string {
	sum := sha256.Sum256(text)
	var dst [32]byte
	hex.Encode(dst[:], sum[:16])
	return string(dst[:])
}
