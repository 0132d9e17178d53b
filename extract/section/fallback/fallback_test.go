package fallback

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/extract/section/sectiontest"
)

const fixtures = "../../../testdata/sections/fallback"

type want struct {
	anchor, name, symbol string
	start, end           int
}

func split(t testing.TB, path string, content []byte) section.Result {
	t.Helper()
	in := section.Input{Path: path, Language: "Lang", Content: content}
	res := Split(in, "no grammar for Lang")
	section.Finish(&res, in)
	if err := section.Validate(res, in); err != nil {
		t.Fatal(err)
	}
	if res.Kind != "code" || res.Parser != "fallback" || res.Fallback != "no grammar for Lang" {
		t.Fatalf("result %q %q %q", res.Kind, res.Parser, res.Fallback)
	}
	last := 0
	for _, s := range res.Sections {
		if s.StartLine <= last {
			t.Fatalf("section %q at %d overlaps the previous (ends %d)", s.Anchor, s.StartLine, last)
		}
		if s.Kind != "code" || s.Parser != "fallback" || s.Language != "Lang" {
			t.Fatalf("section %q: %q %q %q", s.Anchor, s.Kind, s.Parser, s.Language)
		}
		last = s.EndLine
	}
	return res
}

func TestFixtures(t *testing.T) {
	tests := map[string][]want{
		"Main.java": {
			{"preamble", "", "preamble", 1, 3},
			{"decl:Main", "Main", "class", 5, 8},
			{"decl:Main.toString", "toString", "method", 9, 12},
			{"decl:Main.main", "main", "method", 14, 19},
		},
		"app.js": {
			{"preamble", "", "preamble", 1, 2},
			{"decl:index", "index", "function", 4, 7},
			{"decl:handler", "handler", "function", 9, 11},
			{"decl:Router", "Router", "class", 13, 13},
			{"decl:Router.route", "route", "method", 14, 21},
		},
		"deploy.sh": {
			{"preamble", "", "preamble", 1, 2},
			{"decl:build", "build", "function", 4, 6},
			{"decl:deploy", "deploy", "function", 8, 13},
		},
		"server.go": {
			{"preamble", "", "preamble", 1, 4},
			{"decl:Server", "Server", "type", 6, 9},
			{"decl:Handler", "Handler", "interface", 11, 14},
			{"decl:New", "New", "function", 16, 19},
			{"decl:Server.Start", "Start", "method", 21, 23},
			{"decl:Map", "Map", "function", 25, 27},
		},
		"shapes.rs": {
			{"preamble", "", "preamble", 1, 1},
			{"decl:Point", "Point", "type", 3, 8},
			{"decl:impl Point", "Point", "impl", 10, 10},
			{"decl:Point.new", "new", "method", 11, 13},
			{"decl:Point.norm", "norm", "method", 15, 18},
			{"decl:impl fmt::Display for Point", "fmt::Display for Point", "impl", 20, 20},
			{"decl:Point.fmt", "fmt", "method", 21, 24},
			{"decl:load", "load", "function", 26, 26},
		},
		"stack.py": {
			{"preamble", "", "preamble", 1, 3},
			{"decl:Stack", "Stack", "class", 6, 7},
			{"decl:Stack.__init__", "__init__", "method", 9, 10},
			{"decl:Stack.push", "push", "method", 12, 15},
			{"decl:Stack.pop", "pop", "method", 17, 18},
			{"decl:main", "main", "function", 21, 27},
		},
		"util.c": {
			{"preamble", "", "preamble", 1, 4},
			{"decl:add", "add", "function", 6, 10},
			{"decl:make_node", "make_node", "function", 12, 20},
			{"decl:Widget.draw", "draw", "method", 22, 24},
		},
		"view.ts": {
			{"preamble", "", "preamble", 1, 1},
			{"decl:Props", "Props", "interface", 3, 5},
			{"decl:View", "View", "class", 7, 8},
			{"decl:View.render", "render", "method", 10, 12},
			{"decl:View.size", "size", "method", 14, 17},
			{"decl:Maybe", "Maybe", "type", 19, 19},
		},
		"widget.rb": {
			{"preamble", "", "preamble", 1, 1},
			{"decl:Shop", "Shop", "module", 3, 3},
			{"decl:Shop.Widget", "Widget", "class", 4, 5},
			{"decl:Shop.Widget.initialize", "initialize", "method", 6, 8},
			{"decl:Shop.Widget.build", "build", "method", 10, 12},
			{"decl:Shop.Widget.sold?", "sold?", "method", 14, 18},
		},
	}
	for file, ws := range tests {
		t.Run(file, func(t *testing.T) {
			content := sectiontest.Read(t, fixtures, file)
			res := split(t, file, content)
			if len(res.Sections) != len(ws) {
				for _, s := range res.Sections {
					t.Logf("got %q %d-%d", s.Anchor, s.StartLine, s.EndLine)
				}
				t.Fatalf("%d sections, want %d", len(res.Sections), len(ws))
			}
			lines := strings.Split(string(content), "\n")
			for i, w := range ws {
				s := res.Sections[i]
				if got := (want{s.Anchor, s.Name, s.Symbol, s.StartLine, s.EndLine}); got != w {
					t.Errorf("section %d = %+v, want %+v", i, got, w)
				}
				if c := strings.Join(lines[w.start-1:w.end], "\n"); s.Content != c {
					t.Errorf("section %d content %q, want %q", i, s.Content, c)
				}
			}
		})
	}
}

func TestDocSignatureSummary(t *testing.T) {
	read := func(name string) []byte { return sectiontest.Read(t, fixtures, name) }
	tests := []struct {
		file, anchor, doc, sig, summary string
	}{
		{"server.go", "decl:New", "New makes a Server.", "func New() *Server", "New makes a Server."},
		{"server.go", "decl:Server.Start", "", "func (s *Server) Start(addr string) error", "func (s *Server) Start(addr string) error"},
		{"stack.py", "decl:Stack", "LIFO stack of items.", "class Stack:", "LIFO stack of items."},
		{"stack.py", "decl:Stack.push", "Push adds an item on top.", "def push(self, item):", "Push adds an item on top."},
		{"shapes.rs", "decl:Point", "A point in the plane.", "pub struct Point", "A point in the plane."},
		{"util.c", "decl:add", "Adds two numbers.", "int add(int a, int b)", "Adds two numbers."},
		{"Main.java", "decl:Main", "Entry point.", "public class Main", "Entry point."},
	}
	for _, tt := range tests {
		res := split(t, tt.file, read(tt.file))
		found := false
		for _, s := range res.Sections {
			if s.Anchor != tt.anchor {
				continue
			}
			found = true
			if s.Doc != tt.doc || s.Signature != tt.sig || s.Summary != tt.summary {
				t.Errorf("%s %s: doc %q sig %q summary %q", tt.file, tt.anchor, s.Doc, s.Signature, s.Summary)
			}
		}
		if !found {
			t.Errorf("%s: no section %q", tt.file, tt.anchor)
		}
	}
}

func TestEdgeCases(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		anchors string
	}{
		{"empty", "", ""},
		{"blank", "\n\n  \n", ""},
		{"no declarations", "x = 1\nprint(x)\n", "file"},
		{"overloads", "int f(int a) {\n}\nint f(double a) {\n}\n", "decl:f|decl:f#2"},
		{"prototype is no definition", "int f(int a);\nint g(void) {\n}\n", "preamble|decl:g"},
		{"calls are no definitions", "main()\nfoo(1, 2)\nresult = compute(3)\n", "file"},
		{"deep indentation ignored", "def a():\n" + strings.Repeat(" ", 12) + "def hidden():\n", "decl:a"},
		{"sql", "CREATE TABLE users (\n  id int\n);\ncreate or replace view v as select 1;\n", "decl:users|decl:v"},
		{"crlf bom", "\uFEFFfunc A() {\r\n}\r\n\r\nfunc B() {\r\n}\r\n", "decl:A|decl:B"},
		{"invalid utf8", "def f\xff():\n  pass\n", "decl:f"},
		{"kotlin", "data class P(val x: Int)\nfun P.norm(): Int = x\n", "decl:P|decl:P.norm"},
		{"elixir", "defmodule App.Web do\n  def index(conn) do\n  end\n  defp helper, do: 1\nend\n", "decl:App.Web|decl:App.Web.index|decl:App.Web.helper"},
		{"lua", "local function f()\nend\nfunction M.g()\nend\n", "decl:f|decl:M.g"},
		{"perl", "sub handler {\n}\n", "decl:handler"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := split(t, "x", []byte(tt.in))
			var got []string
			for _, s := range res.Sections {
				got = append(got, s.Anchor)
			}
			if strings.Join(got, "|") != tt.anchors {
				t.Errorf("anchors %q, want %q", strings.Join(got, "|"), tt.anchors)
			}
		})
	}
}

func TestAnchorsStable(t *testing.T) {
	content, _ := os.ReadFile(filepath.Join(fixtures, "stack.py"))
	edited := strings.Replace(string(content), "        self.items = []", "        self.items = []\n        self.limit = 10\n        self.count = 0", 1)
	a, b := split(t, "stack.py", content), split(t, "stack.py", []byte(edited))
	if len(a.Sections) != len(b.Sections) {
		t.Fatalf("%d vs %d sections", len(a.Sections), len(b.Sections))
	}
	for i := range a.Sections {
		if a.Sections[i].Anchor != b.Sections[i].Anchor {
			t.Errorf("anchor %q became %q", a.Sections[i].Anchor, b.Sections[i].Anchor)
		}
	}
}

func TestLargeInputs(t *testing.T) {
	// A minified bundle: one 2 MB line.
	minified := "function a(){" + strings.Repeat("var x=1;", 250_000) + "}"
	// 20,000 small functions.
	var b strings.Builder
	for i := 0; i < 20_000; i++ {
		fmt.Fprintf(&b, "func f%d() {\n\treturn\n}\n\n", i)
	}
	for name, content := range map[string]string{"minified": minified, "many": b.String()} {
		start := time.Now()
		res := split(t, "big.js", []byte(content))
		if d := time.Since(start); d > slow*10*time.Second {
			t.Errorf("%s: took %v", name, d)
		}
		if len(res.Sections) == 0 {
			t.Errorf("%s: no sections", name)
		}
		if _, err := json.Marshal(res); err != nil {
			t.Error(err)
		}
	}
}

func FuzzFallback(f *testing.F) {
	sectiontest.Seed(f, filepath.Join(fixtures, "*"),
		"class A:\n  def b(): pass\n\tdef c(): pass\nimpl<T> X for Y<T> {\n    fn z() {}\n}\n")
	f.Fuzz(func(t *testing.T, content []byte) {
		split(t, "fuzz", content)
	})
}

func BenchmarkFallback(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < 1<<20; i++ {
		fmt.Fprintf(&sb, "// f%d does things.\nfunc f%d(a int) int {\n\tif a > 0 {\n\t\treturn a * %d\n\t}\n\treturn 0\n}\n\n", i, i, i)
	}
	content := []byte(sb.String())
	in := section.Input{Path: "big.go", Content: content}
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		Split(in, "bench")
	}
}
