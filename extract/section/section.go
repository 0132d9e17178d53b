// Package section splits one file's content into memory sections. Each file
// shape has its sectioner in a subpackage (code, markdown, structured data,
// text); Split picks one by the file's kind and language.
package section

import "github.com/konteks/git-konteks/memory"

// Input is one file to section. Content is the raw blob; sectioners must
// cope with invalid UTF-8, CRLF, a BOM and malformed syntax without
// panicking or hanging.
type Input struct {
	Path     string // slash-separated path in the source tree
	Language string // linguist language name from go-enry ("Go", "Markdown", ...), may be empty
	Content  []byte
}

// Result is what a sectioner made of one file.
type Result struct {
	Kind     string // code, markdown, json, yaml, toml, text
	Language string
	Parser   string // tree-sitter, fallback, structural, whole
	Fallback string // why a parser-backed sectioner was not used
	Topics   []string
	Sections []memory.Section
	// Warnings are what a sectioner could not do for this file (a PDF page
	// without text, a budget reached); counted in the manifest, not stored.
	Warnings []string
}
