package markdown

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/extract/section/sectiontest"
	"github.com/konteks/git-konteks/memory"
)

const fixtures = "../../../testdata/sections/markdown"

type want struct {
	symbol, name, qname, anchor string
	start, end                  int
}

var split = sectiontest.Bind(Split, section.Input{Path: "docs/README.md", Language: "Markdown"}, "markdown", "structural")

func TestFixtures(t *testing.T) {
	tests := map[string][]want{
		"readme.md": {
			{"frontmatter", "frontmatter", "", "frontmatter", 1, 4},
			{"preamble", "", "", "preamble", 5, 5},
			{"heading", "Widget", "Widget", "Widget", 7, 9},
			{"heading", "Install", "Widget > Install", "Widget > Install", 11, 13},
			// The fenced "# not a heading" stays inside this section.
			{"heading", "From source", "Widget > Install > From source", "Widget > Install > From source", 15, 20},
			{"heading", "From source", "Widget > Install > From source", "Widget > Install > From source#2", 22, 24},
			// Setext heading.
			{"heading", "Usage", "Widget > Usage", "Widget > Usage", 26, 29},
			// Inline markup is resolved to text; indented code is no heading.
			{"heading", "Links and emphasis", "Widget > Links and emphasis", "Widget > Links and emphasis", 31, 33},
			{"heading", "untitled", "untitled", "untitled", 35, 37},
		},
		"unterminated.md": {
			{"heading", "Title", "Title", "Title", 1, 5},
		},
		"frontmatter-toml.md": {
			{"frontmatter", "frontmatter", "", "frontmatter", 1, 4},
			{"heading", "Post", "Post", "Post", 6, 8},
		},
		"nesting.md": {
			{"heading", "Early second level", "Early second level", "Early second level", 1, 3},
			// Headings in a block quote or a list item are text.
			{"heading", "Top", "Top", "Top", 5, 11},
			{"heading", "Deep", "Top > Deep", "Top > Deep", 13, 15},
			{"heading", "Next top", "Next top", "Next top", 17, 17},
		},
		"crlf-bom.md": {
			{"heading", "Title", "Title", "Title", 1, 3},
			{"heading", "Sub # escaped", "Title > Sub # escaped", "Title > Sub # escaped", 5, 6},
		},
		"adversarial.md": {
			// Tilde fence and HTML block hide their "#" lines.
			{"heading", "A", "A", "A", 1, 11},
			{"heading", "ATX right after a paragraph line", "ATX right after a paragraph line", "ATX right after a paragraph line", 12, 12},
			{"heading", "Setext two lines", "Setext two lines", "Setext two lines", 14, 18},
			{"heading", "one space indent still a heading", "one space indent still a heading", "one space indent still a heading", 20, 20},
		},
	}
	for name, ws := range tests {
		t.Run(name, func(t *testing.T) {
			content := sectiontest.Read(t, fixtures, name)
			res := split(t, content)
			if res.Kind != "markdown" || res.Parser != "structural" || res.Fallback != "" {
				t.Errorf("result %q %q %q", res.Kind, res.Parser, res.Fallback)
			}
			sectiontest.Check(t, res, ws, func(s memory.Section) want {
				return want{s.Symbol, s.Name, s.QName, s.Anchor, s.StartLine, s.EndLine}
			})
			lines := sectiontest.Lines(content)
			for i, w := range ws {
				s := res.Sections[i]
				if wantContent := strings.Join(lines[w.start-1:w.end], "\n"); s.Content != wantContent {
					t.Errorf("section %d content %q\nwant %q", i, s.Content, wantContent)
				}
				if s.Parser != "structural" {
					t.Errorf("section %d parser %q", i, s.Parser)
				}
			}
		})
	}
}

func TestFenceContentStaysInSection(t *testing.T) {
	res := split(t, sectiontest.Read(t, fixtures, "readme.md"))
	for _, s := range res.Sections {
		if strings.Contains(s.Name, "not a heading") {
			t.Errorf("fenced line became a heading: %q", s.Anchor)
		}
	}
	if s := res.Sections[4]; !strings.Contains(s.Content, "# not a heading") {
		t.Errorf("fenced line missing from its section: %q", s.Content)
	}
	if fm := res.Sections[0]; fm.Language != "YAML" || fm.Content != "---\ntitle: Widget\ntags: [cli, git]\n---" {
		t.Errorf("front matter %q %q", fm.Language, fm.Content)
	}
}

func TestSummaryAndTopics(t *testing.T) {
	res := split(t, sectiontest.Read(t, fixtures, "readme.md"))
	s := res.Sections[4]
	if s.Summary != "Widget > Install > From source" {
		t.Errorf("summary %q", s.Summary)
	}
	if len(s.Topics) == 0 || s.Topics[0] != "install" {
		t.Errorf("topics %q", s.Topics)
	}
	if p := res.Sections[1]; p.Summary != "Widget turns things into other things." {
		t.Errorf("preamble summary %q", p.Summary)
	}
}

func TestAnchorsStableAcrossUnrelatedEdits(t *testing.T) {
	before := split(t, sectiontest.Read(t, fixtures, "readme.md"))
	edited := strings.Replace(string(sectiontest.Read(t, fixtures, "readme.md")), "Use the package manager.",
		"Use the package manager.\n\nOr download a release:\n\n```\n# curl it\n```\n", 1)
	edited = strings.Replace(edited, "Run `widget --help`.", "Run `widget --help` for all flags.", 1)
	after := split(t, []byte(edited))
	if len(before.Sections) != len(after.Sections) {
		t.Fatalf("%d sections before, %d after", len(before.Sections), len(after.Sections))
	}
	for i := range before.Sections {
		b, a := before.Sections[i], after.Sections[i]
		if b.Anchor != a.Anchor {
			t.Errorf("anchor %q became %q", b.Anchor, a.Anchor)
		}
		changed := b.Anchor == "Widget > Install" || b.Anchor == "Widget > Usage"
		if changed == (b.EmbHash == a.EmbHash) {
			t.Errorf("%q: hash changed %v, content changed %v", b.Anchor, b.EmbHash != a.EmbHash, changed)
		}
	}
	if shift := after.Sections[4].StartLine - before.Sections[4].StartLine; shift != 7 {
		t.Errorf("later sections moved by %d lines, want 7", shift)
	}
}

func TestEdgeCases(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		anchors []string
	}{
		{"empty", "", nil},
		{"blank", "\n  \n\t\n", nil},
		{"text only", "just text\n", []string{"preamble"}},
		{"heading only", "# H", []string{"H"}},
		{"unclosed front matter", "---\ntitle: x\n# H\n", []string{"preamble", "H"}},
		{"front matter only", "---\na: 1\n---\n", []string{"frontmatter"}},
		{"level goes up", "### C\n## B\n# A\n#### D\n", []string{"C", "B", "A", "A > D"}},
		{"siblings", "# A\n## B\n## C\n### D\n## E\n", []string{"A", "A > B", "A > C", "A > C > D", "A > E"}},
		{"invalid utf8", "# Ti\xfftle\nbody \xfe\n", []string{"Ti\uFFFDtle"}},
		{"code span", "# The `a > b` rule\n", []string{"The a > b rule"}},
		{"image and html", "# ![logo](x.png) Name <sub>beta</sub>\n", []string{"logo Name beta"}},
		{"entities", "# Tom &amp; Jerry &#35;1\n", []string{"Tom & Jerry #1"}},
		{"lone CR", "# A\rB\n", []string{"A B"}},
		{"deep quotes", strings.Repeat(">", 100000) + " # x\n# After\n", []string{"preamble", "After"}},
		{"deep lists", strings.Repeat("- ", 100000) + "x\n# After\n", []string{"preamble", "After"}},
		{"long line", "# " + strings.Repeat("word ", 2000) + "\n" + strings.Repeat("x", 10000), []string{strings.TrimSpace(strings.Repeat("word ", 2000))}},
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

func TestDeepIndentedLists(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 1500; i++ {
		b.WriteString(strings.Repeat("  ", i) + "- item\n")
	}
	b.WriteString("\n# After\n")
	start := time.Now()
	res := split(t, []byte(b.String()))
	if d := time.Since(start); d > slow*5*time.Second {
		t.Errorf("took %v", d)
	}
	if last := res.Sections[len(res.Sections)-1]; last.Anchor != "After" || last.StartLine != 1502 {
		t.Errorf("last section %q at %d", last.Anchor, last.StartLine)
	}
}

func TestRecordsAreValidJSON(t *testing.T) {
	res := split(t, []byte("\xef\xbb\xbf# T\xc3\x28\r\n\x00body\xff\r\n"))
	b, err := json.Marshal(res.Sections)
	if err != nil || !json.Valid(b) {
		t.Fatalf("invalid JSON: %v %s", err, b)
	}
}

func FuzzMarkdown(f *testing.F) {
	sectiontest.Fuzz(f, split, filepath.Join(fixtures, "*.md"),
		"```\n# a\n",
		"---\n---\n+++\n",
		"a\n===\n> # b\n- # c\n")
}

// generated returns about size bytes of realistic Markdown: nested
// headings, prose, lists, fenced code and tables.
func generated(size int) []byte {
	r := rand.New(rand.NewSource(1))
	words := strings.Fields("the quick brown fox jumps over lazy dog install configure server client request response cache index memory section parser token")
	sentence := func() string {
		n := 6 + r.Intn(10)
		ws := make([]string, n)
		for i := range ws {
			ws[i] = words[r.Intn(len(words))]
		}
		return strings.Join(ws, " ") + "."
	}
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "%s Section %d `code` here\n\n", strings.Repeat("#", 1+i%4), i)
		for p := 0; p < 3; p++ {
			b.WriteString(sentence() + " " + sentence() + " *Emphasis* and [a link](https://example.com).\n\n")
		}
		b.WriteString("- " + sentence() + "\n- " + sentence() + "\n\n")
		b.WriteString("```go\n# not a heading\nfunc main() {}\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n")
	}
	return []byte(b.String())
}

func BenchmarkMarkdown(b *testing.B) {
	content := generated(1 << 20)
	in := section.Input{Path: "docs/guide.md", Language: "Markdown", Content: content}
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	for b.Loop() {
		Split(in)
	}
}

func BenchmarkMarkdownFinish(b *testing.B) {
	content := generated(1 << 20)
	in := section.Input{Path: "docs/guide.md", Language: "Markdown", Content: content}
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	for b.Loop() {
		res := Split(in)
		section.Finish(&res, in)
	}
}
