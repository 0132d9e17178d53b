package html

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/extract/section/sectiontest"
	"github.com/konteks/git-konteks/memory"
)

const fixtures = "../../../testdata/sections/html"

type want struct {
	symbol, name, anchor string
	start, end           int
}

func split(t testing.TB, content []byte) section.Result {
	t.Helper()
	in := section.Input{Path: "docs/guide.html", Language: "HTML", Content: content}
	res, err := Split(in)
	if err != nil {
		t.Fatalf("Split: %v", err)
	}
	section.Finish(&res, in)
	if err := section.Validate(res, in); err != nil {
		t.Fatal(err)
	}
	if res.Kind != Kind || res.Parser != Parser {
		t.Fatalf("kind %q parser %q", res.Kind, res.Parser)
	}
	return res
}

func check(t *testing.T, res section.Result, wants []want) {
	t.Helper()
	sectiontest.Check(t, res, wants, func(s memory.Section) want { return want{s.Symbol, s.Name, s.Anchor, s.StartLine, s.EndLine} })
}

func TestGuide(t *testing.T) {
	res := split(t, sectiontest.Read(t, fixtures, "guide.html"))
	check(t, res, []want{
		{"title", "Widget Guide", "title", 5, 5},
		{"preamble", "", "preamble", 16, 16},
		{"heading", "Widget", "Widget", 17, 22},
		{"heading", "Install", "Widget > Install", 23, 31},
		{"heading", "From source", "Widget > Install > From source", 32, 35},
		{"heading", "Usage", "Widget > Usage", 36, 37},
		{"heading", "Install", "Widget > Install#2", 38, 39},
		{"heading", Untitled, "Widget > untitled", 40, 46},
	})
	all := ""
	for _, s := range res.Sections {
		all += s.Content + "\n"
	}
	// Scripts, styles, navigation, page header/footer and hidden elements are dropped.
	for _, gone := range []string{"trackingSecretVariable", "font-family", "Docs index", "Blog", "Copyright footer", "hidden", "never"} {
		if strings.Contains(all, gone) {
			t.Errorf("dropped text %q is in the sections", gone)
		}
	}
	// Links are references, images keep alt text and source, <pre> stays as is.
	for _, kept := range []string{
		"[project page](https://example.invalid/widget)",
		"the install notes", // a fragment link keeps its text only
		"![Architecture diagram](img/architecture.png)",
		"[notes](docs/windows.md)",
		"```\nmake install\n  widget --version\n```",
		"- Linux & macOS",
		"How to install and run the widget server.",
	} {
		if !strings.Contains(all, kept) {
			t.Errorf("sections lack %q:\n%s", kept, all)
		}
	}
	if got := res.Sections[2].Content; !strings.HasPrefix(got, "# Widget\n\nThe widget serves small files over HTTP.") {
		t.Errorf("Widget section = %q", got)
	}
}

func TestOneLine(t *testing.T) {
	res := split(t, sectiontest.Read(t, fixtures, "oneline.html"))
	check(t, res, []want{
		{"title", "One line", "title", 1, 1},
		{"heading", "Alpha", "Alpha", 1, 1},
		{"heading", "Beta", "Alpha > Beta", 1, 1},
	})
	if got := res.Sections[2].Content; got != "## Beta\n\nSecond [link](b.html)." {
		t.Errorf("Beta = %q", got)
	}
}

func TestNoHeadings(t *testing.T) {
	res := split(t, sectiontest.Read(t, fixtures, "fragment.html"))
	check(t, res, []want{{"preamble", "", "preamble", 1, 2}})
	if got := res.Sections[0].Content; got != "Text only, no headings at all.\n\nSecond paragraph." {
		t.Errorf("content %q", got)
	}
}

func TestEmptyAndBroken(t *testing.T) {
	for _, in := range []string{"", "   \n", "<", "<html><script>", "<h1", "<h2>unclosed", "</h3>", "<nav><h1>x</h1>",
		"<pre>", "</pre></pre>x", "<a href='x'><a href='y'>t</a>", "<plaintext><h1>x</h1>", "\xff\xfe<h1>\x00</h1>",
		"<h1><h2>a</h1>b</h2>", "<svg><h1>x</h1></svg><h1>y</h1>", "<title>t</title><title>u"} {
		split(t, []byte(in))
	}
	res := split(t, []byte("<nav><h1>menu</h1>"))
	if len(res.Sections) != 0 || len(res.Warnings) != 1 {
		t.Errorf("unclosed nav: %d sections, warnings %q", len(res.Sections), res.Warnings)
	}
}

func TestCRLFAndBOM(t *testing.T) {
	src := "\uFEFF<h1>A</h1>\r\n<p>one\r\ntwo</p>\r\n<h2>B</h2>\r\n<pre>x\r\ny</pre>\r\n"
	res := split(t, []byte(src))
	check(t, res, []want{{"heading", "A", "A", 1, 3}, {"heading", "B", "A > B", 4, 6}})
	if got := res.Sections[1].Content; got != "## B\n\n```\nx\ny\n```" {
		t.Errorf("B = %q", got)
	}
}

// TestNestedDivs is the hostile page of the issue: 50 MB of nested
// <div>s around a little text must section in linear time.
func TestNestedDivs(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("<html><body><h1>Deep</h1>")
	unit := "<div class=\"x\">"
	for b.Len() < bigHTML/2 {
		b.WriteString(unit)
	}
	b.WriteString("<p>bottom text</p><h2>Inner</h2>")
	for b.Len() < bigHTML {
		b.WriteString("</div>")
	}
	start := time.Now()
	res := split(t, b.Bytes())
	if d := time.Since(start); d > 20*time.Second*slow {
		t.Fatalf("%d MB of nested divs took %v", b.Len()>>20, d)
	}
	check(t, res, []want{{"heading", "Deep", "Deep", 1, 1}, {"heading", "Inner", "Deep > Inner", 1, 1}})
	if !strings.Contains(res.Sections[0].Content, "bottom text") {
		t.Errorf("deep text lost: %q", res.Sections[0].Content)
	}
}

// TestManyLines checks a large page of many headings stays fast.
func TestManyHeadings(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 20000; i++ {
		b.WriteString("<h2>Part</h2>\n<p>Some text about the part with a <a href=\"p.html\">link</a>.</p>\n")
	}
	start := time.Now()
	res := split(t, []byte(b.String()))
	if len(res.Sections) != 20000 || res.Sections[19999].Anchor != "Part#20000" {
		t.Fatalf("%d sections, last %q", len(res.Sections), res.Sections[len(res.Sections)-1].Anchor)
	}
	if d := time.Since(start); d > 10*time.Second*slow {
		t.Fatalf("took %v", d)
	}
}

func FuzzHTML(f *testing.F) {
	sectiontest.Fuzz(f, split, filepath.Join(fixtures, "*.html"),
		"<h1>a<a href=x>b</a></h1><pre>\n c</pre><nav><nav></nav>",
		"<title>x<h1>y")
}
