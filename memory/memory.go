// Package memory holds the data model of git konteks memory — file records
// and their sections — together with its codec and the paths it lives under
// in the memory ref.
//
// Records are portable: they are written by one clone and read by another,
// so everything decoded here is treated as untrusted input (bounded
// decompression, validated paths, clear errors).
package memory

// RecordVersion is the version of the file record format and of the
// extraction that fills it. Bump it whenever a change to sectioning or to
// the record shape would make old records wrong; memory written with another
// version is rebuilt rather than mixed.
const RecordVersion = 2

// File is the memory record of one included source file, stored zstd
// compressed at files/<source path> in the memory ref. The path itself is
// the tree path, so a renamed file can reuse its record unchanged.
type File struct {
	Version  int    `json:"v"`
	Blob     string `json:"blob"`               // source blob id the record was made from
	Size     int64  `json:"size"`               // source size in bytes
	Lines    int    `json:"lines"`              // number of lines in the source
	Kind     string `json:"kind"`               // code, markdown, json, yaml, toml, text
	Language string `json:"language,omitempty"` // linguist language name, e.g. "Go"
	Parser   string `json:"parser"`             // tree-sitter, fallback, structural, whole
	// Fallback says why a parser-backed sectioner was not used, when Parser
	// is "fallback" (no grammar, parse error, too large, ...).
	Fallback string    `json:"fallback,omitempty"`
	Topics   []string  `json:"topics,omitempty"`
	Sections []Section `json:"sections"`
}

// Section is one meaningful part of a file: a function, a type, a Markdown
// heading's text, a top-level config key, or the whole file.
type Section struct {
	// Anchor identifies the section within its file and stays the same
	// across runs while the section's identity does (symbol path, heading
	// path, JSON path; line-based only for fallback sections).
	Anchor    string   `json:"anchor"`
	Kind      string   `json:"kind"`   // code, markdown, json, yaml, toml, text
	Symbol    string   `json:"symbol"` // function, method, class, type, interface, enum, heading, key, preamble, frontmatter, file, block, ...
	Language  string   `json:"language,omitempty"`
	Parser    string   `json:"parser"` // tree-sitter, fallback, structural, whole
	Name      string   `json:"name,omitempty"`
	QName     string   `json:"qname,omitempty"` // qualified name: Type.Method, Install > From source, $.scripts
	Signature string   `json:"signature,omitempty"`
	Doc       string   `json:"doc,omitempty"`
	StartLine int      `json:"start_line"` // 1-based, inclusive
	EndLine   int      `json:"end_line"`   // 1-based, inclusive
	Summary   string   `json:"summary,omitempty"`
	Topics    []string `json:"topics,omitempty"`
	Content   string   `json:"content"`
	// Chunks split a very large section into bounded pieces for embedding
	// only; the section itself stays whole.
	Chunks []Chunk `json:"chunks,omitempty"`
	// LexHash and EmbHash are hashes of the section's lexical and embedding
	// retrieval texts; vectors are keyed by EmbHash.
	LexHash string `json:"lex_hash,omitempty"`
	EmbHash string `json:"emb_hash,omitempty"`
}

// Chunk is a bounded line range of a large section, embedded on its own.
type Chunk struct {
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	EmbHash   string `json:"emb_hash,omitempty"`
}
