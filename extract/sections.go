package extract

import (
	"bytes"
	"path"

	"github.com/go-enry/go-enry/v2"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/extract/section/asciidoc"
	"github.com/konteks/git-konteks/extract/section/code"
	"github.com/konteks/git-konteks/extract/section/data"
	"github.com/konteks/git-konteks/extract/section/fallback"
	"github.com/konteks/git-konteks/extract/section/markdown"
	"github.com/konteks/git-konteks/extract/section/media"
	"github.com/konteks/git-konteks/extract/section/org"
	"github.com/konteks/git-konteks/extract/section/rst"
	"github.com/konteks/git-konteks/extract/section/text"
	"github.com/konteks/git-konteks/memory"
)

// detectLanguage names a file's language (linguist names) cheaply: by file
// name, then by extension, then by shebang. When an extension is shared by
// several languages (.h, .m, .s, .pl) linguist's content heuristics pick
// one; enry's Bayesian classifier is never run: it cost a third of a full
// extraction's CPU on the Go tree and decides few files that matter.
func detectLanguage(p string, data []byte) string {
	base := path.Base(p)
	if l, safe := enry.GetLanguageByFilename(base); safe && l != "" {
		return l
	}
	head := data
	if len(head) > 8<<10 {
		head = head[:8<<10]
	}
	cands := enry.GetLanguagesByExtension(base, nil, nil)
	if len(cands) == 1 {
		return cands[0]
	}
	if len(cands) > 1 {
		if byContent := enry.GetLanguagesByContent(base, head, cands); len(byContent) > 0 {
			return byContent[0]
		}
		return cands[0]
	}
	if bytes.HasPrefix(data, []byte("#!")) {
		if l, _ := enry.GetLanguageByShebang(head); l != "" {
			return l
		}
	}
	if l, safe := enry.GetLanguageByModeline(head); safe && l != "" {
		return l
	}
	return ""
}

// fileKind maps a language to the record kind that picks its sectioner.
func fileKind(lang string) string {
	switch lang {
	case "Markdown", "MDX", "RMarkdown":
		return "markdown"
	case "JSON", "JSON with Comments", "JSON5", "JSONLD", "GeoJSON", "TopoJSON", "Jupyter Notebook":
		return "json"
	case "YAML":
		return "yaml"
	case "TOML":
		return "toml"
	case "reStructuredText":
		return rst.Kind
	case "AsciiDoc":
		return asciidoc.Kind
	case "Org":
		return org.Kind
	}
	if lang != "" && enry.GetLanguageType(lang) == enry.Programming {
		return "code"
	}
	return "text"
}

// buildRecord sections one file's content into its memory record.
func buildRecord(p string, blob string, data []byte) *memory.File {
	lang := detectLanguage(p, data)
	in := section.Input{Path: p, Language: lang, Content: data}
	res := splitSections(in)
	f := makeRecord(p, blob, data, res)
	if len(data) >= budgetCheckMin && recordSize(f) > RecordBudget {
		f = trimRecord(p, blob, data, in, res)
	}
	return f
}

// makeRecord assembles a record from a sectioning result.
func makeRecord(p, blob string, data []byte, res section.Result) *memory.File {
	f := &memory.File{
		Version:  memory.RecordVersion,
		Blob:     blob,
		Size:     int64(len(data)),
		Lines:    countLines(data),
		Kind:     res.Kind,
		Language: res.Language,
		Parser:   res.Parser,
		Fallback: res.Fallback,
		Topics:   res.Topics,
		Sections: res.Sections,
		Warnings: res.Warnings,
	}
	derive(f, p)
	return f
}

// Fallback reasons for structured files that do not parse.
const (
	reasonBadJSON = "json-error"
	reasonBadYAML = "yaml-error"
	reasonBadTOML = "toml-error"
)

// splitSections picks the sectioner for a file by its shape: tree-sitter
// where a grammar fits the language, declaration lines for other code (or
// when the parse fails), titles for Markdown, reStructuredText, AsciiDoc
// and Org, structure for JSON/YAML/TOML, and one
// file-level section for everything else. Every result goes through
// section.Finish.
func splitSections(in section.Input) section.Result {
	var res section.Result
	kind := fileKind(in.Language)
	switch {
	case code.LanguageFor(in.Path, in.Language) != "":
		r, ok, reason := code.Split(in)
		if ok {
			res = r
		} else {
			res = fallback.Split(in, reason)
		}
	case formatOf(in.Path, in.Language) != "": // HTML, PDF, notebooks, media (formats.go)
		res = splitFormat(in)
	case kind == "code":
		res = fallback.Split(in, code.ReasonNoGrammar)
	case kind == "markdown":
		res = markdown.Split(in)
	case kind == rst.Kind:
		res = rst.Split(in)
	case kind == asciidoc.Kind:
		res = asciidoc.Split(in)
	case kind == org.Kind:
		res = org.Split(in)
	case kind == "json":
		res = structured(in, data.SplitJSON, reasonBadJSON)
	case kind == "yaml":
		res = structured(in, data.SplitYAML, reasonBadYAML)
	case kind == "toml":
		res = structured(in, data.SplitTOML, reasonBadTOML)
	default:
		res = text.Split(in)
	}
	section.Finish(&res, in)
	return res
}

// structured runs a data sectioner; a file that does not parse is kept
// whole as text, with the reason recorded.
func structured(in section.Input, split func(section.Input) (section.Result, error), reason string) section.Result {
	res, err := split(in)
	if err == nil {
		return res
	}
	res = text.Split(in)
	res.Fallback = reason
	return res
}

// repathRecord re-derives, from scratch, the parts of a record that depend
// on its path and its set of sections (topics, retrieval-text hashes): for
// a record reused at a new path by a rename or copy, and for a media
// record whose references or description changed. Sectioning itself does
// not depend on the path as long as the extension is the same, which
// reuse requires (see sameShape).
func repathRecord(f *memory.File, p string) {
	res := section.Result{Kind: f.Kind, Language: f.Language, Parser: f.Parser, Fallback: f.Fallback, Sections: f.Sections}
	for i := range res.Sections {
		s := &res.Sections[i]
		s.Topics, s.LexHash, s.EmbHash, s.Chunks = nil, "", "", nil
	}
	section.Finish(&res, section.Input{Path: p, Language: f.Language})
	f.Topics, f.Sections = res.Topics, res.Sections
	derive(f, p)
}

// sameShape reports whether a record made for path a can serve path b:
// the sectioner is chosen by name and extension, so those must agree.
func sameShape(a, b string) bool {
	ea, eb := path.Ext(a), path.Ext(b)
	if ea != eb {
		return false
	}
	if media.Class(a) != "" {
		return false // a media section names its file
	}
	return ea != "" || path.Base(a) == path.Base(b)
}

// countLines counts lines the way editors number them: a final line
// without a newline still counts.
func countLines(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	n := bytes.Count(b, []byte{'\n'})
	if b[len(b)-1] != '\n' {
		n++
	}
	return n
}
