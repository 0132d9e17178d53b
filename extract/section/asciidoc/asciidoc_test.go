package asciidoc

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/extract/section/sectiontest"
)

const fixtures = "../../../testdata/sections/asciidoc"

var input = section.Input{Path: "docs/guide.adoc", Language: "AsciiDoc"}

var split = sectiontest.Bind(Split, input, Kind, Parser)

func TestGuide(t *testing.T) {
	content := sectiontest.Read(t, fixtures, "guide.adoc")
	res := split(t, content)
	sectiontest.CheckRanges(t, res, content, []sectiontest.Range{
		sectiontest.R("Widget Guide", 1, 5),
		// The listing block's "== not a title" stays in it.
		sectiontest.R("Widget Guide > Install", 7, 15),
		// Symmetric marks and emphasis are dropped; the comment block
		// hides its title.
		sectiontest.R("Widget Guide > Install > From source", 17, 25),
		// A "== " line inside a paragraph is text.
		sectiontest.R("Widget Guide > Usage", 26, 28),
		// Two-line titles.
		sectiontest.R("Widget Guide > Old Style Title", 30, 33),
		sectiontest.R("Widget Guide > Old Style Title > Sub Level", 35, 38),
		sectiontest.R("Widget Guide > Code", 40, 47),
		sectiontest.R("Widget Guide > Markdown-style title", 49, 51),
	})
	for i, s := range res.Sections {
		if s.Symbol != "heading" || s.QName != s.Anchor || s.Summary != s.QName {
			t.Errorf("section %d symbol %q qname %q summary %q", i, s.Symbol, s.QName, s.Summary)
		}
	}
	if n := res.Sections[2].Name; n != "From source" {
		t.Errorf("name %q", n)
	}
}

func TestEdgeCases(t *testing.T) {
	sectiontest.Cases(t, Split, input, Kind, Parser, slow*5*time.Second, []sectiontest.Case{
		sectiontest.C("empty", ""),
		sectiontest.C("text only", "just text\n", "preamble"),
		sectiontest.C("title only", "= T", "T"),
		sectiontest.C("levels", "= A\n\n== B\n\n=== C\n\n== D\n", "A", "A > B", "A > B > C", "A > D"),
		sectiontest.C("section before document title", "== B\n\n= A\n", "B", "A"),
		sectiontest.C("seven marks", "======= x\n", "preamble"),
		sectiontest.C("no space", "==x\n", "preamble"),
		sectiontest.C("unclosed block", "----\n== hidden\n", "preamble"),
		sectiontest.C("underline too long", "Tit\n----------\n", "preamble"),
		sectiontest.C("example block", "====\n== hidden\n====\n\n== Shown\n", "preamble", "Shown"),
		sectiontest.C("open block", "--\n== hidden\n--\n", "preamble"),
		sectiontest.C("table", "|===\n| == x\n|===\n", "preamble"),
		sectiontest.C("links and xrefs", "== See https://x.org[the site] and <<install,Install>>\n", "See the site and Install"),
		sectiontest.C("C++ stays", "== C++ and a_b\n", "C++ and a_b"),
		sectiontest.C("crlf", "= T\r\n\r\n== S\r\nbody\r\n", "T", "T > S"),
		sectiontest.C("invalid utf8", "= Ti\xfftle\n", "Ti\uFFFDtle"),
	})
}

func TestManyTitles(t *testing.T) {
	res := split(t, []byte(strings.Repeat("== x\n\n", 50000)))
	if len(res.Sections) != 50000 || res.Sections[1].Anchor != "x#2" {
		t.Errorf("%d sections", len(res.Sections))
	}
}

func FuzzAsciiDoc(f *testing.F) {
	sectiontest.Fuzz(f, split, filepath.Join(fixtures, "*.adoc"),
		"= T\n\n----\n== x\n----\nA\n-\n",
		"== *a* _b_ `c` +d+ #e#\n")
}
