package mcp

import (
	"strings"
	"testing"
)

// TestRecallFiles checks the recall tool's files, path and tests options:
// one entry per file with its best sections and why, and filters that
// leave out what they exclude.
func TestRecallFiles(t *testing.T) {
	_, cs := served(t)
	var out RecallOutput
	text, err := call(t, cs, ToolRecall, map[string]any{"task": "key value store", "files": true, "limit": 3}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Files) == 0 || len(out.Files) > 3 || len(out.Hits) != 0 {
		t.Fatalf("files answer: %d files, %d hits", len(out.Files), len(out.Hits))
	}
	seen := map[string]bool{}
	for _, f := range out.Files {
		if seen[f.Path] || len(f.Sections) == 0 || f.Why == "" {
			t.Fatalf("file entry %+v", f)
		}
		seen[f.Path] = true
		if !strings.Contains(text, f.Path+"  ("+f.Why+")") {
			t.Fatalf("text does not list %s with why:\n%s", f.Path, text)
		}
	}
	var md RecallOutput
	if _, err := call(t, cs, ToolRecall, map[string]any{"task": "key value store", "path": []string{"*.md"}}, &md); err != nil {
		t.Fatal(err)
	}
	for _, h := range md.Hits {
		if !strings.HasSuffix(h.Path, ".md") {
			t.Fatalf("path *.md let %s through", h.Path)
		}
	}
	var nomd RecallOutput
	if _, err := call(t, cs, ToolRecall, map[string]any{"task": "key value store", "path": []string{"!*.md"}, "tests": "exclude"}, &nomd); err != nil {
		t.Fatal(err)
	}
	for _, h := range nomd.Hits {
		if strings.HasSuffix(h.Path, ".md") || strings.HasSuffix(h.Path, "_test.go") {
			t.Fatalf("path !*.md, tests exclude let %s through", h.Path)
		}
	}
	if _, err := call(t, cs, ToolRecall, map[string]any{"task": "key value store", "tests": "sometimes"}, nil); err == nil {
		t.Fatal("a bad tests value was accepted")
	}
}
