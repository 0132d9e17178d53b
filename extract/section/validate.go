package section

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Validate checks the invariants every finished result keeps, whatever
// sectioner made it: each section has a Kind and a Parser, a non-empty
// anchor unique in the file, 1-based lines within the file
// (StartLine <= EndLine <= line count), valid UTF-8 in every string, and
// chunks that lie inside their section, in order. Tests and fuzz targets
// of every sectioner use it; it returns the first violation found.
func Validate(res Result, in Input) error {
	n := max(Lines(StripBOM(in.Content)).Count(), 1)
	seen := make(map[string]bool, len(res.Sections))
	for _, s := range []string{res.Kind, res.Language, res.Parser, res.Fallback} {
		if !utf8.ValidString(s) {
			return fmt.Errorf("result field %q is not valid UTF-8", s)
		}
	}
	for _, t := range res.Topics {
		if !utf8.ValidString(t) || t == "" {
			return fmt.Errorf("file topic %q is empty or not valid UTF-8", t)
		}
	}
	for i, s := range res.Sections {
		at := fmt.Sprintf("section %d (%q)", i, s.Anchor)
		switch {
		case s.Anchor == "":
			return fmt.Errorf("%s: empty anchor", at)
		case seen[s.Anchor]:
			return fmt.Errorf("%s: duplicate anchor", at)
		case s.Kind == "" || s.Parser == "":
			return fmt.Errorf("%s: kind %q, parser %q", at, s.Kind, s.Parser)
		case s.StartLine < 1 || s.EndLine < s.StartLine || s.EndLine > n:
			return fmt.Errorf("%s: lines %d-%d outside 1-%d", at, s.StartLine, s.EndLine, n)
		}
		seen[s.Anchor] = true
		for _, f := range []string{s.Anchor, s.Kind, s.Symbol, s.Language, s.Parser, s.Name,
			s.QName, s.Signature, s.Doc, s.Summary, s.Content, s.LexHash, s.EmbHash} {
			if !utf8.ValidString(f) || strings.ContainsRune(f, '\r') || strings.HasPrefix(f, "\uFEFF") {
				return fmt.Errorf("%s: field %.80q is not clean UTF-8 text", at, f)
			}
		}
		if strings.ContainsRune(s.Summary, '\n') || utf8.RuneCountInString(s.Summary) > MaxSummary {
			return fmt.Errorf("%s: summary %.80q is not one line of at most %d runes", at, s.Summary, MaxSummary)
		}
		for _, t := range s.Topics {
			if !utf8.ValidString(t) || t == "" {
				return fmt.Errorf("%s: topic %q is empty or not valid UTF-8", at, t)
			}
		}
		next := s.StartLine
		for j, c := range s.Chunks {
			if c.StartLine != next || c.EndLine < c.StartLine {
				return fmt.Errorf("%s: chunk %d lines %d-%d, want a range from %d", at, j, c.StartLine, c.EndLine, next)
			}
			next = c.EndLine + 1
		}
	}
	return nil
}
