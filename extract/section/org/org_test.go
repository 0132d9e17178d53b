package org

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/konteks/git-konteks/extract/section"
)

const fixtures = "../../../testdata/sections/org"

type want struct {
	anchor     string
	start, end int
}

// split runs Split and Finish and checks the invariants every result keeps.
func split(t testing.TB, content []byte) section.Result {
	t.Helper()
	in := section.Input{Path: "notes.org", Language: "Org", Content: content}
	res := Split(in)
	section.Finish(&res, in)
	if err := section.Validate(res, in); err != nil {
		t.Fatal(err)
	}
	last := 0
	for _, s := range res.Sections {
		if s.StartLine <= last {
			t.Fatalf("section %q starts at %d, inside the one before (ends %d)", s.Anchor, s.StartLine, last)
		}
		if s.Kind != Kind || s.Parser != Parser {
			t.Fatalf("section %q kind %q parser %q", s.Anchor, s.Kind, s.Parser)
		}
		last = s.EndLine
	}
	return res
}

func TestNotes(t *testing.T) {
	content, err := os.ReadFile(filepath.Join(fixtures, "notes.org"))
	if err != nil {
		t.Fatal(err)
	}
	res := split(t, content)
	ws := []want{
		{"preamble", 1, 4},
		{"Project", 6, 7},
		// Keyword, priority, statistics cookie and tags are dropped; the
		// escaped star in the source block is text.
		{"Project > Release", 8, 13},
		{"Project > Review the pull request", 14, 14},
		{"Project > Review the pull request > code and italic words", 15, 16},
		{"Project > Hidden draft", 17, 17},
		// Stars without a space are no headline.
		{"Another top", 18, 19},
		{"untitled", 20, 20},
	}
	if len(res.Sections) != len(ws) {
		for _, s := range res.Sections {
			t.Logf("got %q %d-%d", s.Anchor, s.StartLine, s.EndLine)
		}
		t.Fatalf("%d sections, want %d", len(res.Sections), len(ws))
	}
	lines := strings.Split(string(content), "\n")
	for i, w := range ws {
		s := res.Sections[i]
		if got := (want{s.Anchor, s.StartLine, s.EndLine}); got != w {
			t.Errorf("section %d = %+v, want %+v", i, got, w)
		}
		if s.Content != strings.Join(lines[w.start-1:w.end], "\n") {
			t.Errorf("section %d content %q", i, s.Content)
		}
	}
	if s := res.Sections[2]; s.Name != "Release" || s.Summary != "Project > Release" {
		t.Errorf("name %q summary %q", s.Name, s.Summary)
	}
}

func TestEdgeCases(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		anchors []string
	}{
		{"empty", "", nil},
		{"text only", "just text\n", []string{"preamble"}},
		{"headline only", "* H", []string{"H"}},
		{"levels", "** B\n* A\n*** C\n** D\n", []string{"B", "A", "A > C", "A > D"}},
		{"undeclared keyword", "* WAIT x\n", []string{"WAIT x"}},
		{"keyword only", "* TODO\n", []string{"untitled"}},
		{"tags only", "* :a:b:\n", []string{"untitled"}},
		{"indented star", " * x\n", []string{"preamble"}},
		{"crlf", "* A\r\n** B\r\ntext\r\n", []string{"A", "A > B"}},
		{"invalid utf8", "* Ti\xfftle\n", []string{"Ti\uFFFDtle"}},
		{"deep", strings.Repeat("*", 100000) + " deep\n", []string{"deep"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			res := split(t, []byte(tt.in))
			if d := time.Since(start); d > slow*5*time.Second {
				t.Errorf("took %v", d)
			}
			var got []string
			for _, s := range res.Sections {
				got = append(got, s.Anchor)
			}
			if strings.Join(got, "|") != strings.Join(tt.anchors, "|") {
				t.Errorf("anchors %q, want %q", got, tt.anchors)
			}
		})
	}
}

func FuzzOrg(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(fixtures, "*.org"))
	for _, p := range files {
		b, _ := os.ReadFile(p)
		f.Add(b)
	}
	f.Add([]byte("#+TODO: A B(b) | C\n* A [#B] x [1/2] :t:\n*** \n"))
	f.Fuzz(func(t *testing.T, content []byte) {
		split(t, content)
	})
}
