package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestIsDocPath(t *testing.T) {
	for p, want := range map[string]bool{
		"CHANGELOG.md":                true,
		"actionview/CHANGELOG.md":     true,
		"HISTORY.rst":                 true,
		"History.rdoc":                true,
		"NEWS":                        true,
		"docs/changes.txt":            true,
		"RELEASE_NOTES.md":            true,
		"history/history.go":          false,
		"internal/release.rs":         false,
		"lib/news_feed.rb":            false,
		"src/changes/detector.py":     false,
		"activerecord/lib/changes.rb": false,
	} {
		if got := isDocPath(p); got != want {
			t.Errorf("isDocPath(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestIssueSets checks the committed issue sets: every line parses, names
// a full commit and a title, carries the reporter's text, and no issue is
// listed twice in a repository.
func TestIssueSets(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("issues", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no issue sets under scripts/eval/issues")
	}
	hex := regexp.MustCompile(`^[0-9a-f]{40}$`)
	total := 0
	for _, f := range files {
		if !strings.Contains(filepath.Base(f), "+") {
			t.Errorf("%s: an issue set is named owner+name.jsonl", f)
		}
		issues, err := readIssues(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(issues) == 0 {
			t.Errorf("%s: empty issue set", f)
		}
		seen := map[int]bool{}
		for _, is := range issues {
			if seen[is.Issue] {
				t.Errorf("%s: issue #%d listed twice", f, is.Issue)
			}
			seen[is.Issue] = true
			if !hex.MatchString(is.Commit) {
				t.Errorf("%s #%d: commit %q is not 40 lower-case hex digits", f, is.Issue, is.Commit)
			}
			if strings.TrimSpace(is.Text) == "" {
				t.Errorf("%s #%d: no reporter text", f, is.Issue)
			}
		}
		total += len(issues)
	}
	t.Logf("%d issues in %d sets", total, len(files))
}
