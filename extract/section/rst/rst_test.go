package rst

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/extract/section/sectiontest"
	"github.com/konteks/git-konteks/memory"
)

const fixtures = "../../../testdata/sections/rst"

type want struct {
	symbol, name, anchor string
	start, end           int
}

var input = section.Input{Path: "docs/api.rst", Language: "reStructuredText"}

var split = sectiontest.Bind(Split, input, Kind, Parser)

func TestFixtures(t *testing.T) {
	tests := map[string][]want{
		"api.rst": {
			{"preamble", "", "preamble", 1, 1},
			// Overlined, inset title.
			{"heading", "API", "API", 3, 9},
			{"heading", "Application Object", "API > Application Object", 11, 12},
			{"directive", "Flask", "API > Application Object > Flask", 14, 16},
			{"heading", "Incoming Request Data", "API > Incoming Request Data", 18, 19},
			{"directive", "request", "API > Incoming Request Data > request", 21, 26},
			{"heading", "Useful Functions and Classes", "API > Useful Functions and Classes", 28, 29},
			{"directive", "url_for", "API > Useful Functions and Classes > url_for", 31, 33},
			{"directive", "Config", "API > Useful Functions and Classes > Config", 35, 37},
			// Nested by indentation under the class it is in.
			{"directive", "from_envvar", "API > Useful Functions and Classes > Config > from_envvar", 39, 41},
			{"directive", "root_path", "API > Useful Functions and Classes > Config > root_path", 43, 45},
			// The literal block's underline and the transition are text.
			{"heading", "Signals", "API > Signals", 47, 57},
			{"heading", "Deep code and flask.Flask title", "API > Signals > Deep code and flask.Flask title", 59, 62},
			{"heading", "API", "API > API", 64, 67},
			{"heading", "API", "API > API#2", 69, 70},
		},
		"styles.rst": {
			{"heading", "Chapter", "Chapter", 1, 2},
			// A two-line paragraph, an underline too short, a list item:
			// none is a title.
			{"heading", "Section one", "Chapter > Section one", 4, 12},
			{"heading", "Hi", "Chapter > Section one > Hi", 14, 15},
			{"heading", "Section two", "Chapter > Section two", 17, 21},
			{"heading", "Back at chapter level", "Back at chapter level", 23, 24},
		},
		"crlf.rst": {
			{"heading", "Title", "Title", 1, 4},
		},
		"unterminated.rst": {
			{"preamble", "", "preamble", 1, 4},
		},
	}
	for name, ws := range tests {
		t.Run(name, func(t *testing.T) {
			content := sectiontest.Read(t, fixtures, name)
			res := split(t, content)
			if res.Kind != Kind || res.Parser != Parser || res.Fallback != "" {
				t.Errorf("result %q %q %q", res.Kind, res.Parser, res.Fallback)
			}
			sectiontest.Check(t, res, ws, func(s memory.Section) want { return want{s.Symbol, s.Name, s.Anchor, s.StartLine, s.EndLine} })
			lines := sectiontest.Lines(content)
			for i, w := range ws {
				s := res.Sections[i]
				if wantContent := strings.Join(lines[w.start-1:w.end], "\n"); s.Content != wantContent {
					t.Errorf("section %d content %q\nwant %q", i, s.Content, wantContent)
				}
				if s.Symbol == "heading" && s.QName != s.Anchor && !strings.Contains(s.Anchor, "#") {
					t.Errorf("section %d qname %q anchor %q", i, s.QName, s.Anchor)
				}
			}
		})
	}
}

func TestDirectiveDocAndSignature(t *testing.T) {
	res := split(t, sectiontest.Read(t, fixtures, "api.rst"))
	byAnchor := map[string]int{}
	for i, s := range res.Sections {
		byAnchor[s.Anchor] = i
	}
	req := res.Sections[byAnchor["API > Incoming Request Data > request"]]
	if req.Signature != ".. data:: request" {
		t.Errorf("signature %q", req.Signature)
	}
	if req.Doc != "A proxy to the request data for the current request. It is only available when a request context is active." {
		t.Errorf("doc %q", req.Doc)
	}
	if req.Summary != "A proxy to the request data for the current request." {
		t.Errorf("summary %q", req.Summary)
	}
	if f := res.Sections[byAnchor["API > Application Object > Flask"]]; f.Doc != "" {
		t.Errorf("options became doc: %q", f.Doc)
	}
	if h := res.Sections[byAnchor["API > Signals"]]; h.Summary != "API > Signals" {
		t.Errorf("heading summary %q", h.Summary)
	}
}

func TestAnchorsStableAcrossUnrelatedEdits(t *testing.T) {
	orig := string(sectiontest.Read(t, fixtures, "api.rst"))
	before := split(t, []byte(orig))
	edited := strings.Replace(orig, "This part of the documentation covers all the interfaces of Flask.",
		"This part of the documentation covers all the interfaces of Flask.\n\nMore:\n\n    code\n    ----\n", 1)
	after := split(t, []byte(edited))
	if len(before.Sections) != len(after.Sections) {
		t.Fatalf("%d sections before, %d after", len(before.Sections), len(after.Sections))
	}
	for i := range before.Sections {
		b, a := before.Sections[i], after.Sections[i]
		if b.Anchor != a.Anchor {
			t.Errorf("anchor %q became %q", b.Anchor, a.Anchor)
		}
		if changed := b.Anchor == "API"; changed == (b.EmbHash == a.EmbHash) {
			t.Errorf("%q: hash changed %v, content changed %v", b.Anchor, b.EmbHash != a.EmbHash, changed)
		}
	}
}

func TestEdgeCases(t *testing.T) {
	sectiontest.Cases(t, Split, input, Kind, Parser, slow*5*time.Second, []sectiontest.Case{
		sectiontest.C("empty", ""),
		sectiontest.C("blank", "\n  \n\t\n"),
		sectiontest.C("text only", "just text\n", "preamble"),
		sectiontest.C("title only", "T\n=", "T"),
		sectiontest.C("underline at end", "T\n", "preamble"),
		sectiontest.C("overline at end", "===\nT\n", "preamble"),
		sectiontest.C("overline mismatch", "=====\nTitle\n-----\n", "preamble"),
		sectiontest.C("comment is no title", "..\n==\n", "preamble"),
		sectiontest.C("directive is no title", ".. note:: x\n-----------\n", "preamble"),
		sectiontest.C("level order by first use", "A\n-\nB\n=\nC\n-\n", "A", "A > B", "C"),
		sectiontest.C("indented is no title", "x\n\n  T\n  =\n", "preamble"),
		sectiontest.C("directive without name", ".. function::\n", "preamble"),
		sectiontest.C("directive in preamble", ".. function:: f(x)\n\n   Doc.\n\nT\n=\n", "f", "T"),
		sectiontest.C("roles and links", "The `site <https://x.org>`_ and ``a < b``\n==========================================\n", "The site and a < b"),
		sectiontest.C("invalid utf8", "Ti\xfftle\n======\nbody \xfe\n", "Ti\uFFFDtle"),
		sectiontest.C("long line", strings.Repeat("word ", 2000)+"\n"+strings.Repeat("=", 10000), strings.TrimSpace(strings.Repeat("word ", 2000))),
		sectiontest.C("many adornments", strings.Repeat("=\n", 100000), "preamble"),
	})
}

func TestManyDirectives(t *testing.T) {
	res := split(t, []byte(strings.Repeat(".. function:: f()\n   .. method:: g()\n", 20000)))
	if len(res.Sections) != 40000 {
		t.Errorf("%d sections", len(res.Sections))
	}
}

func FuzzRST(f *testing.F) {
	sectiontest.Fuzz(f, split, filepath.Join(fixtures, "*.rst"),
		"===\nT\n===\n",
		"  .. class:: A\n.. method:: b\n    .. attribute:: c\n",
		"T\n-\n\n::\n\n  x\n  -\n")
}

// generated returns about size bytes of a realistic API reference.
func generated(size int) []byte {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		t := fmt.Sprintf("Section %d", i)
		ch := "=-~"[i%3 : i%3+1]
		fmt.Fprintf(&b, "%s\n%s\n\nSome prose about :class:`Thing%d` and ``code``.\n\n", t, strings.Repeat(ch, len(t)), i)
		fmt.Fprintf(&b, ".. function:: func%d(a, b=None)\n\n   Does a thing.\n\n   .. code-block:: python\n\n      func%d(1)\n\n", i, i)
	}
	return []byte(b.String())
}

func BenchmarkRST(b *testing.B) {
	content := generated(1 << 20)
	in := section.Input{Path: "docs/api.rst", Language: "reStructuredText", Content: content}
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	for b.Loop() {
		Split(in)
	}
}
