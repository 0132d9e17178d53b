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
// version is rebuilt rather than mixed. Records hold retrieval texts and
// topics made of text.SplitIdentifier's parts: a change to its output is a
// change of this version. One line per change:
//
//	1: first record format.
//	2: records from the real sectioners.
//	3: abstracts, skeletons, graph entities and edges (the project map).
//	4: HTML, PDF, notebooks and media.
//	5: abstracts skip licence headers.
//	6: Go read with go/parser beside tree-sitter's sections.
//	7: reStructuredText, AsciiDoc and Org documents are sectioned by their
//	   titles (they were one text section each), document abstracts skip
//	   titles and directives; memory format 2 (manifest schema 2).
const RecordVersion = 7

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
	Parser   string `json:"parser"`             // tree-sitter, go/parser, fallback, structural, whole
	// Fallback says why a parser-backed sectioner was not used, when Parser
	// is "fallback" (no grammar, parse error, too large, ...).
	Fallback string   `json:"fallback,omitempty"`
	Topics   []string `json:"topics,omitempty"`
	// Abstract is one sentence on what the file is (its package or module
	// doc, a README's first sentence, else its main symbols); directory
	// summaries are built from these.
	Abstract string `json:"abstract,omitempty"`
	// Skeleton is the file at a glance: imports, then each symbol's
	// signature and first doc sentence in source order (parser-backed code
	// only; bounded by MaxSkeleton).
	Skeleton string    `json:"skeleton,omitempty"`
	Sections []Section `json:"sections"`
	// Warnings say what the sectioner could not do (a PDF page without
	// text, a font without Unicode, a budget reached).
	Warnings []string `json:"warnings,omitempty"`
	// Entities are the symbols this file defines that others can refer to;
	// Edges its links (imports) to other files or packages.
	Entities []Entity `json:"entities,omitempty"`
	Edges    []Edge   `json:"edges,omitempty"`
}

// MaxSkeleton bounds a file's skeleton in bytes.
const MaxSkeleton = 12000

// Entity is a named thing in the project graph.
type Entity struct {
	ID      string   `json:"id"`   // e.g. "sym:internal/store/store.go#Store.Get", "file:a/b.go", "pkg:internal/store", "ext:github.com/x/y"
	Kind    string   `json:"kind"` // file, function, method, class, type, ..., package, module, command, config, doc, external
	Name    string   `json:"name"`
	Aliases []string `json:"aliases,omitempty"`
	Anchor  string   `json:"anchor,omitempty"` // section anchor, for symbols
}

// Edge links two entities.
type Edge struct {
	From string `json:"from"`
	To   string `json:"to"`
	Kind string `json:"kind"`          // contains, defines, imports, references
	Raw  string `json:"raw,omitempty"` // the import as written, when resolved elsewhere
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
	Parser    string   `json:"parser"` // tree-sitter, go/parser, fallback, structural, whole
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

// Directory summaries live at dirs/<dir>/.dir (the root's at dirs/.dir).
const (
	DirsDir    = "dirs"
	DirFile    = ".dir"
	ModulesDir = "modules"
	// ProjectPath is the project portrait.
	ProjectPath = "project.json"
)

// DirSummaryPath is the memory tree path of a source directory's summary.
func DirSummaryPath(dir string) string {
	if dir == "" {
		return DirsDir + "/" + DirFile
	}
	return DirsDir + "/" + dir + "/" + DirFile
}

// DirSummary is the summary of one source directory: L0 is one sentence,
// L1 an overview built only from its children's L0 text.
type DirSummary struct {
	Path       string     `json:"path"`
	L0         string     `json:"l0"`
	L1         string     `json:"l1"`
	Children   []DirChild `json:"children"` // the sampled children, by name
	Freshness  Freshness  `json:"freshness"`
	Summarizer string     `json:"summarizer"`
}

// DirChild is a child's abstract as the summary last saw it.
type DirChild struct {
	Name string `json:"name"`
	Dir  bool   `json:"dir,omitempty"`
	L0   string `json:"l0"`
}

// Freshness says how complete a summary is: how many direct children it
// has, how many it read (above 32 a stable sample), and how many changes
// were deferred since it was last refreshed.
type Freshness struct {
	Total     int `json:"total"`
	Sampled   int `json:"sampled"`
	Unsampled int `json:"unsampled"`
	Pending   int `json:"pending"`
}
