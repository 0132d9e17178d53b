package section

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/konteks/git-konteks/memory"
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
	var b strings.Builder
	b.Grow(len(path) + len(s.QName) + len(s.Signature) + len(s.Doc) + len(s.Summary) + len(s.Content) + 256)
	line := func(parts ...string) {
		start := b.Len()
		for _, p := range parts {
			if p == "" {
				continue
			}
			if b.Len() > start {
				b.WriteByte(' ')
			}
			b.WriteString(p)
		}
		if b.Len() > start {
			b.WriteByte('\n')
		}
	}
	line(path)
	line(strings.Join(SplitIdentifier(path), " "))
	line(s.Kind, s.Language, s.Symbol)
	name := s.QName
	if name == "" {
		name = s.Name
	}
	if s.Name != "" && s.Name != name {
		line(name, s.Name)
	} else {
		line(name)
	}
	line(strings.Join(SplitIdentifier(name), " "))
	line(s.Signature)
	line(s.Doc)
	line(strings.Join(s.Topics, " "))
	line(s.Summary)
	b.WriteString(s.Content)
	return b.String()
}

// embeddingHeader is the short header every embedding text starts with.
func embeddingHeader(b *strings.Builder, path string, s memory.Section) {
	b.WriteString(path)
	b.WriteByte('\n')
	b.WriteString(s.Kind)
	if s.Language != "" && !strings.EqualFold(s.Language, s.Kind) {
		b.WriteByte(' ')
		b.WriteString(s.Language)
	}
	if s.Symbol != "" {
		b.WriteByte(' ')
		b.WriteString(s.Symbol)
	}
	name := s.QName
	if name == "" {
		name = s.Name
	}
	if name != "" {
		b.WriteString(": ")
		b.WriteString(name)
	}
	b.WriteByte('\n')
}

// EmbeddingText returns the text a section is embedded as: a header with
// path, kind and name, then the content, bounded to MaxChunkLines lines and
// MaxChunkBytes bytes. A section with chunks is fully covered by its chunks'
// texts; its own text embeds its start.
func EmbeddingText(path string, s memory.Section) string {
	var b strings.Builder
	body := head(s.Content)
	b.Grow(len(path) + len(s.QName) + len(body) + 64)
	embeddingHeader(&b, path, s)
	b.WriteByte('\n')
	b.WriteString(body)
	return b.String()
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
	return chunkText(path, &s, c, strings.TrimSuffix(rest[:end], "\n"))
}

func chunkText(path string, s *memory.Section, c memory.Chunk, body string) string {
	body = cutBytes(body, MaxChunkBytes)
	var b strings.Builder
	b.Grow(len(path) + len(s.QName) + len(body) + 96)
	embeddingHeader(&b, path, *s)
	b.WriteString("lines ")
	b.WriteString(strconv.Itoa(c.StartLine))
	b.WriteByte('-')
	b.WriteString(strconv.Itoa(c.EndLine))
	b.WriteString("\n\n")
	b.WriteString(body)
	return b.String()
}

// Hash is the hash retrieval texts are keyed by: the first 16 bytes of the
// text's SHA-256, in lowercase hex (32 characters).
func Hash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:16])
}
