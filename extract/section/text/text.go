// Package text sections a file as a whole: prose, logs, licences and
// anything else without a structure worth splitting by. It is also where
// malformed structured files (a JSON file that does not parse) end up.
package text

import (
	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/memory"
)

// Split returns one file-level section (Symbol and Anchor "file", Kind
// "text", Parser "whole") spanning every line of the file. An empty or
// whitespace-only file has no sections.
func Split(in section.Input) section.Result {
	res := section.Result{Kind: "text", Language: in.Language, Parser: "whole"}
	src := section.StripBOM(in.Content)
	lines := section.Lines(src)
	if from, to := lines.TrimBlank(src, 1, lines.Count()); to < from {
		return res
	}
	res.Sections = []memory.Section{{
		Anchor:    "file",
		Kind:      "text",
		Symbol:    "file",
		Language:  in.Language,
		Parser:    "whole",
		StartLine: 1,
		EndLine:   lines.Count(),
		Content:   lines.Text(src, 1, lines.Count()),
	}}
	return res
}
