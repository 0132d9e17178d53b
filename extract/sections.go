package extract

import (
	"bytes"
	"path"
	"strings"

	"github.com/go-enry/go-enry/v2"

	"github.com/konteks/git-konteks/extract/section"
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
	res := splitSections(in, fileKind(lang))
	f := &memory.File{
		Version:  memory.RecordVersion,
		Blob:     blob,
		Size:     int64(len(data)),
		Lines:    countLines(data),
		Kind:     res.Kind,
		Language: lang,
		Parser:   res.Parser,
		Fallback: res.Fallback,
		Topics:   res.Topics,
		Sections: res.Sections,
	}
	return f
}

// repathRecord re-derives the parts of a record that depend on its path,
// for a record reused at a new path (rename or copy).
func repathRecord(f *memory.File, p string) {
	for i := range f.Sections {
		if f.Sections[i].Symbol == "file" {
			f.Sections[i].Name = path.Base(p)
		}
	}
}

// splitSections picks the sectioner for a file shape. This version keeps
// every file whole; the per-shape sectioners plug in here.
func splitSections(in section.Input, kind string) section.Result {
	return wholeFile(in, kind)
}

// wholeFile makes one section of the entire file.
func wholeFile(in section.Input, kind string) section.Result {
	text := strings.ToValidUTF8(string(bytes.TrimPrefix(in.Content, []byte("\xef\xbb\xbf"))), "\uFFFD")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	res := section.Result{Kind: kind, Language: in.Language, Parser: "whole"}
	if strings.TrimSpace(text) == "" {
		return res
	}
	res.Sections = []memory.Section{{
		Anchor:    "file",
		Kind:      kind,
		Symbol:    "file",
		Language:  in.Language,
		Parser:    "whole",
		Name:      path.Base(in.Path),
		StartLine: 1,
		EndLine:   countLines(in.Content),
		Content:   text,
	}}
	return res
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
