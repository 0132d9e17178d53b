package asciidoc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/konteks/git-konteks/extract/section"
)

const fixtures = "../../../testdata/sections/asciidoc"

type want struct {
	anchor     string
	start, end int
}

// split runs Split and Finish and checks the invariants every result keeps.
func split(t testing.TB, content []byte) section.Result {
	t.Helper()
	in := section.Input{Path: "docs/guide.adoc", Language: "AsciiDoc", Content: content}
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

func TestGuide(t *testing.T) {
	content, err := os.ReadFile(filepath.Join(fixtures, "guide.adoc"))
	if err != nil {
		t.Fatal(err)
	}
	res := split(t, content)
	ws := []want{
		{"Widget Guide", 1, 5},
		// The listing block's "== not a title" stays in it.
		{"Widget Guide > Install", 7, 15},
		// Symmetric marks and emphasis are dropped; the comment block
		// hides its title.
		{"Widget Guide > Install > From source", 17, 25},
		// A "== " line inside a paragraph is text.
		{"Widget Guide > Usage", 26, 28},
		// Two-line titles.
		{"Widget Guide > Old Style Title", 30, 33},
		{"Widget Guide > Old Style Title > Sub Level", 35, 38},
		{"Widget Guide > Code", 40, 47},
		{"Widget Guide > Markdown-style title", 49, 51},
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
		if s.Symbol != "heading" || s.QName != s.Anchor || s.Summary != s.QName {
			t.Errorf("section %d symbol %q qname %q summary %q", i, s.Symbol, s.QName, s.Summary)
		}
	}
	if n := res.Sections[2].Name; n != "From source" {
		t.Errorf("name %q", n)
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
		{"title only", "= T", []string{"T"}},
		{"levels", "= A\n\n== B\n\n=== C\n\n== D\n", []string{"A", "A > B", "A > B > C", "A > D"}},
		{"section before document title", "== B\n\n= A\n", []string{"B", "A"}},
		{"seven marks", "======= x\n", []string{"preamble"}},
		{"no space", "==x\n", []string{"preamble"}},
		{"unclosed block", "----\n== hidden\n", []string{"preamble"}},
		{"underline too long", "Tit\n----------\n", []string{"preamble"}},
		{"example block", "====\n== hidden\n====\n\n== Shown\n", []string{"preamble", "Shown"}},
		{"open block", "--\n== hidden\n--\n", []string{"preamble"}},
		{"table", "|===\n| == x\n|===\n", []string{"preamble"}},
		{"links and xrefs", "== See https://x.org[the site] and <<install,Install>>\n", []string{"See the site and Install"}},
		{"C++ stays", "== C++ and a_b\n", []string{"C++ and a_b"}},
		{"crlf", "= T\r\n\r\n== S\r\nbody\r\n", []string{"T", "T > S"}},
		{"invalid utf8", "= Ti\xfftle\n", []string{"Ti\uFFFDtle"}},
		{"many titles", strings.Repeat("== x\n\n", 50000), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			res := split(t, []byte(tt.in))
			if d := time.Since(start); d > slow*5*time.Second {
				t.Errorf("took %v", d)
			}
			if tt.name == "many titles" {
				if len(res.Sections) != 50000 || res.Sections[1].Anchor != "x#2" {
					t.Errorf("%d sections", len(res.Sections))
				}
				return
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

func FuzzAsciiDoc(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(fixtures, "*.adoc"))
	for _, p := range files {
		b, _ := os.ReadFile(p)
		f.Add(b)
	}
	f.Add([]byte("= T\n\n----\n== x\n----\nA\n-\n"))
	f.Add([]byte("== *a* _b_ `c` +d+ #e#\n"))
	f.Fuzz(func(t *testing.T, content []byte) {
		split(t, content)
	})
}
