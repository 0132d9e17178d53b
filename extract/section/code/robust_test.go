package code

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/memory"
)

func byAnchor(secs []memory.Section) map[string]memory.Section {
	m := make(map[string]memory.Section, len(secs))
	for _, s := range secs {
		m[s.Anchor] = s
	}
	return m
}

// TestDocsAndSignatures pins the doc, signature and content extraction on
// a few sections of the fixtures.
func TestDocsAndSignatures(t *testing.T) {
	cases := []struct {
		path, lang, anchor, sig, doc string
	}{
		{"go/server.go", "Go", "struct:Server", "type Server struct", "Server serves HTTP requests.\n\nIt is safe for concurrent use."},
		{"go/server.go", "Go", "func:Server.Start", "func (s *Server) Start() error", "Start starts the server."},
		{"go/server.go", "Go", "func:handle", "var handle = func(w http.ResponseWriter, r *http.Request)", ""},
		{"python/greeter.py", "Python", "func:Greeter.greet", "def greet(self) -> str", "Return the greeting."},
		{"python/greeter.py", "Python", "class:Greeter", "class Greeter(Base)", "Greets people by name.\n\nKeeps the greeting."},
		{"python/greeter.py", "Python", "func:lookup", "def lookup(name: str, default: Optional[str] = None) -> str", ""},
		{"javascript/cart.js", "JavaScript", "class:Cart", "export class Cart", "Cart holds line items."},
		{"typescript/shapes.ts", "TypeScript", "func:Circle.area", "area(): number", "area computes the area."},
		{"java/Account.java", "Java", "func:Account.deposit", "public void deposit(long amount)", "Deposits money.\n@param amount cents"},
		{"rust/store.rs", "Rust", "struct:Store", "pub struct Store", "Store keeps values by key."},
		{"rust/store.rs", "Rust", "func:Store.get", "pub fn get(&self, key: &str) -> Option<&String>", "Gets a value."},
		{"c/list.c", "C", "func:find", "static struct node *find(list *l, int v)", "find returns the node holding v."},
		{"cpp/shape.cpp", "C++", "func:Circle.area", "double Circle::area() const", "Circle's area, defined out of line."},
		{"csharp/Inventory.cs", "C#", "func:Inventory.Add", "public void Add(string sku, int n)", "Adds items."},
		{"ruby/library.rb", "Ruby", "class:Library.Shelf", "class Shelf < Base", "Shelf holds books."},
		{"php/Cart.php", "PHP", "func:money", "function money(int $cents): string", "Formats money."},
		{"kotlin/Repo.kt", "Kotlin", "func:String.slug", "fun String.slug(): String", "Top-level helper."},
		{"swift/Counter.swift", "Swift", "func:Counter.init", "init(start: Int)", "Creates a counter."},
		{"scala/Shapes.scala", "Scala", "func:Circle.area", "def area: Double", "Area of the circle."},
		{"bash/deploy.sh", "Shell", "func:log", "log()", "log prints a timestamped message."},
		{"lua/stack.lua", "Lua", "func:Stack.new", "function Stack.new()", "Creates a stack."},
		{"elixir/account.ex", "Elixir", "func:Bank.Account.deposit", "def deposit(%__MODULE__{} = acc, amount) when amount > 0", "Deposits an amount."},
		{"elixir/account.ex", "Elixir", "module:Bank.Account", "defmodule Bank.Account", "Accounts hold money."},
		{"ocaml/queue.ml", "OCaml", "func:push", "let push x q", "[push x q] adds [x] at the back."},
		{"protobuf/user.proto", "Protocol Buffer", "message:User.Address", "message Address", "Address of a user."},
		{"sql/schema.sql", "SQL", "table:customers", "CREATE TABLE customers", "Customers of the shop."},
		{"hcl/main.tf", "HCL", "resource:aws_instance.web", `resource "aws_instance" "web"`, "Web server."},
	}
	for _, c := range cases {
		res := mustSplit(t, section.Input{Path: c.path, Language: c.lang, Content: readFixture(t, c.path)})
		s, ok := byAnchor(res.Sections)[c.anchor]
		if !ok {
			t.Errorf("%s: no section %s", c.path, c.anchor)
			continue
		}
		if s.Signature != c.sig {
			t.Errorf("%s %s: signature %q, want %q", c.path, c.anchor, s.Signature, c.sig)
		}
		if s.Doc != c.doc {
			t.Errorf("%s %s: doc %q, want %q", c.path, c.anchor, s.Doc, c.doc)
		}
	}
}

// TestDirectivesAreNoDoc: //go: directives stay in the content, not the doc.
func TestDirectivesAreNoDoc(t *testing.T) {
	src := []byte("package p\n\n// F is fast.\n//\n//go:noinline\nfunc F() {}\n")
	res := mustSplit(t, section.Input{Path: "p.go", Language: "Go", Content: src})
	f := byAnchor(res.Sections)["func:F"]
	if f.Doc != "F is fast." || f.StartLine != 3 || !strings.Contains(f.Content, "//go:noinline") {
		t.Errorf("doc %q start %d content %q", f.Doc, f.StartLine, f.Content)
	}
}

// TestContainerContent: a class keeps its header and fields; each method
// is cut out and leaves one indented marker line.
func TestContainerContent(t *testing.T) {
	res := mustSplit(t, section.Input{Path: "python/greeter.py", Language: "Python", Content: readFixture(t, "python/greeter.py")})
	secs := byAnchor(res.Sections)
	want := `# Greeter says hello.
class Greeter(Base):
    """Greets people by name.

    Keeps the greeting.
    """

    greeting: str = DEFAULT

    ...

    ...

    ...`
	if got := secs["class:Greeter"].Content; got != want {
		t.Errorf("class content:\n%s\nwant:\n%s", got, want)
	}
	wantInner := "    class Config:\n        verbose = False\n\n        ..."
	if got := secs["class:Greeter.Config"].Content; got != wantInner {
		t.Errorf("nested class content:\n%q\nwant:\n%q", got, wantInner)
	}
	// The nested function shout stays inside greet.
	if got := secs["func:Greeter.greet"].Content; !strings.Contains(got, "def shout(s):") {
		t.Errorf("greet lost its nested function:\n%s", got)
	}
	if _, ok := secs["func:Greeter.greet.shout"]; ok {
		t.Error("function nested in a method became a section")
	}
	wantPre := `"""Greeting helpers."""
import os
from typing import Optional

DEFAULT = "hello"

if __name__ == "__main__":
    print(Greeter("you").greet)`
	if got := secs["preamble"].Content; got != wantPre {
		t.Errorf("preamble:\n%s\nwant:\n%s", got, wantPre)
	}
}

// TestAnchorsStable: inserting lines above (a new import, a new
// function) changes line numbers but not the anchors, names or contents of
// the other sections.
func TestAnchorsStable(t *testing.T) {
	cases := []struct{ path, lang, after, insert string }{
		{"go/server.go", "Go", "package server\n", "\n// Extra is new.\nfunc Extra() {\n\tprintln(1)\n}\n"},
		{"python/greeter.py", "Python", "import os\n", "import sys\n\n\ndef added():\n    return 1\n"},
		{"java/Account.java", "Java", "import java.util.List;\n", "import java.util.Map;\n\nclass Added {\n    void a() {}\n}\n"},
		{"rust/store.rs", "Rust", "use std::fmt;\n", "use std::io;\n\nfn added() {}\n"},
		{"typescript/shapes.ts", "TypeScript", "import { Logger } from \"./logger\";\n", "\nexport function added(): void {}\n"},
	}
	for _, c := range cases {
		src := readFixture(t, c.path)
		i := bytes.Index(src, []byte(c.after))
		if i < 0 {
			t.Fatalf("%s: %q not found", c.path, c.after)
		}
		at := i + len(c.after)
		edited := append(append(append([]byte{}, src[:at]...), c.insert...), src[at:]...)
		shift := strings.Count(c.insert, "\n")
		before := mustSplit(t, section.Input{Path: c.path, Language: c.lang, Content: src})
		after := byAnchor(mustSplit(t, section.Input{Path: c.path, Language: c.lang, Content: edited}).Sections)
		for _, s := range before.Sections {
			if s.Symbol == "preamble" {
				continue
			}
			n, ok := after[s.Anchor]
			if !ok {
				t.Errorf("%s: anchor %s gone after inserting lines above", c.path, s.Anchor)
				continue
			}
			if n.QName != s.QName || n.Name != s.Name || n.Symbol != s.Symbol || n.Content != s.Content || n.Doc != s.Doc || n.Signature != s.Signature {
				t.Errorf("%s: section %s changed", c.path, s.Anchor)
			}
			if n.StartLine != s.StartLine+shift || n.EndLine != s.EndLine+shift {
				t.Errorf("%s: %s lines %d-%d, want %d-%d", c.path, s.Anchor, n.StartLine, n.EndLine, s.StartLine+shift, s.EndLine+shift)
			}
		}
	}
}

// TestDuplicateAnchors: overloads and redefinitions are told apart by
// #2, #3 in source order, never by line numbers.
func TestDuplicateAnchors(t *testing.T) {
	src := []byte(`def f():
    return 1


def f():
    return 2


class A:
    def m(self):
        pass

    def m(self, x):
        pass


def f():
    return 3
`)
	res := mustSplit(t, section.Input{Path: "dup.py", Language: "Python", Content: src})
	var got []string
	for _, s := range res.Sections {
		got = append(got, fmt.Sprintf("%s@%d", s.Anchor, s.StartLine))
	}
	want := "func:f@1 func:f#2@5 class:A@9 func:A.m@10 func:A.m#2@13 func:f#3@17"
	if strings.Join(got, " ") != want {
		t.Errorf("anchors %v, want %s", got, want)
	}
}

// TestMalformed: a syntax error in one function still gives sections for
// the rest; a file that is mostly not code is refused.
func TestMalformed(t *testing.T) {
	src := []byte(`package p

// A is fine.
func A() int {
	return 1
}

func B( {
	x := 
}

// C is fine too.
func C() string {
	return "c"
}
`)
	res, ok, reason := Split(section.Input{Path: "p.go", Language: "Go", Content: src})
	if !ok {
		t.Fatalf("ok=false %s", reason)
	}
	m := byAnchor(res.Sections)
	for _, a := range []string{"func:A", "func:C"} {
		if _, ok := m[a]; !ok {
			t.Errorf("no %s in %v", a, res.Sections)
		}
	}
	if m["func:C"].StartLine != 12 || m["func:C"].EndLine != 15 {
		t.Errorf("C at %d-%d", m["func:C"].StartLine, m["func:C"].EndLine)
	}

	prose := bytes.Repeat([]byte("This is not Go at all; it is prose, with (unbalanced parens and \"quotes.\n"), 50)
	if _, ok, reason := Split(section.Input{Path: "notes.go", Language: "Go", Content: prose}); ok || reason != ReasonParseError {
		t.Errorf("prose as Go: ok=%v reason=%q, want parse-error", ok, reason)
	}
}

func TestRefusals(t *testing.T) {
	if _, ok, reason := Split(section.Input{Path: "README.md", Language: "Markdown", Content: []byte("# hi\n")}); ok || reason != ReasonNoGrammar {
		t.Errorf("markdown: ok=%v reason=%q", ok, reason)
	}
	if _, ok, reason := Split(section.Input{Path: "x.unknown", Content: []byte("x")}); ok || reason != ReasonNoGrammar {
		t.Errorf("unknown: ok=%v reason=%q", ok, reason)
	}
	big := bytes.Repeat([]byte("// filler line of a big file\n"), MaxSize/28+10)
	if _, ok, reason := Split(section.Input{Path: "big.go", Language: "Go", Content: big}); ok || reason != ReasonTooLarge {
		t.Errorf("big: ok=%v reason=%q", ok, reason)
	}
	// Empty and blank files: fine, no sections.
	for _, c := range []string{"", "\n\n  \n"} {
		res, ok, _ := Split(section.Input{Path: "e.go", Language: "Go", Content: []byte(c)})
		if !ok || len(res.Sections) != 0 {
			t.Errorf("blank file %q: ok=%v sections=%d", c, ok, len(res.Sections))
		}
	}
}

// TestTimeout: a parse that runs out of time gives "timeout", and the
// pooled parser works normally afterwards.
func TestTimeout(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("package p\n")
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&b, "func f%d(a, b int) int { if a > b { return a - b }; return b * %d }\n", i, i)
	}
	// Go files are read by go/parser (gosplit.go), which has no timeout:
	// it is linear and bounds nesting. Time tree-sitter's parse here.
	defer func(v bool) { useGoParser = v }(useGoParser)
	useGoParser = false
	old := parseTimeout
	parseTimeout = time.Microsecond
	_, ok, reason := Split(section.Input{Path: "t.go", Language: "Go", Content: b.Bytes()})
	parseTimeout = old
	if ok || reason != ReasonTimeout {
		t.Fatalf("ok=%v reason=%q, want timeout", ok, reason)
	}
	src := readFixture(t, "go/server.go")
	for i := 0; i < 4; i++ { // every pooled parser must be usable
		res := mustSplit(t, section.Input{Path: "go/server.go", Language: "Go", Content: src})
		if len(res.Sections) != len(fixtures[0].sections) {
			t.Fatalf("after a timeout: %d sections", len(res.Sections))
		}
	}
}

// TestPanicRecovered: a panic inside Split becomes ok=false "panic".
func TestPanicRecovered(t *testing.T) {
	testHook = func() { panic("boom") }
	defer func() { testHook = nil }()
	if _, ok, reason := Split(section.Input{Path: "a.go", Language: "Go", Content: []byte("package a\n")}); ok || reason != ReasonPanic {
		t.Errorf("ok=%v reason=%q", ok, reason)
	}
}

// TestEncodings: CRLF, a BOM and invalid UTF-8 give the same sections and
// line numbers as the clean file; contents carry no CR and are valid UTF-8.
func TestEncodings(t *testing.T) {
	for _, fx := range fixtures {
		src := readFixture(t, fx.path)
		clean := mustSplit(t, section.Input{Path: fx.path, Language: fx.language, Content: src})
		variants := map[string][]byte{
			"crlf":     bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n")),
			"bom":      append([]byte("\xef\xbb\xbf"), src...),
			"bom+crlf": append([]byte("\xef\xbb\xbf"), bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n"))...),
		}
		for name, v := range variants {
			res := mustSplit(t, section.Input{Path: fx.path, Language: fx.language, Content: v})
			if len(res.Sections) != len(clean.Sections) {
				t.Errorf("%s %s: %d sections, want %d", fx.path, name, len(res.Sections), len(clean.Sections))
				continue
			}
			for i, s := range res.Sections {
				c := clean.Sections[i]
				if s.Anchor != c.Anchor || s.StartLine != c.StartLine || s.EndLine != c.EndLine ||
					s.Content != c.Content || s.Doc != c.Doc || s.Signature != c.Signature {
					t.Errorf("%s %s: section %d differs:\n got  %s %d-%d %q\n want %s %d-%d %q", fx.path, name, i,
						s.Anchor, s.StartLine, s.EndLine, s.Signature, c.Anchor, c.StartLine, c.EndLine, c.Signature)
				}
			}
		}
	}

	// Invalid UTF-8 in strings and comments.
	src := []byte("package p\n\n// Bad \xff\xfe comment.\nfunc Bad() string {\n\treturn \"\xc3\x28 \xa0\xa1\"\n}\n\nfunc Good() {}\n")
	res := mustSplit(t, section.Input{Path: "bad.go", Language: "Go", Content: src})
	m := byAnchor(res.Sections)
	if m["func:Bad"].StartLine != 3 || m["func:Bad"].EndLine != 6 || m["func:Good"].StartLine != 8 {
		t.Errorf("invalid UTF-8: sections %+v", res.Sections)
	}
	for _, s := range res.Sections {
		if !strings.Contains(s.Content, "\ufffd") && s.Anchor == "func:Bad" {
			t.Errorf("invalid bytes not replaced: %q", s.Content)
		}
	}
	checkValid(t, res)
}

func checkValid(t *testing.T, res section.Result) {
	t.Helper()
	for _, s := range res.Sections {
		if strings.ContainsRune(s.Content, '\r') || !isValidUTF8(s.Content) || !isValidUTF8(s.Doc) || !isValidUTF8(s.Signature) || !isValidUTF8(s.Name) {
			t.Errorf("%s: CR or invalid UTF-8", s.Anchor)
		}
	}
}

// TestHugeInputs: a 1 MB minified line, a 10,000-line file and deeply
// nested code finish quickly, never duplicate text, and keep sections.
func TestHugeInputs(t *testing.T) {
	var minified bytes.Buffer
	for i := 0; minified.Len() < 1<<20; i++ {
		fmt.Fprintf(&minified, "function f%d(a){return a+%d}var v%d=[1,2,3].map(function(x){return x*%d});", i, i, i, i)
	}
	var long bytes.Buffer
	long.WriteString("package p\n\n")
	for i := 0; long.Len() == 0 || strings.Count(long.String(), "\n") < 10000; i++ {
		fmt.Fprintf(&long, "// F%d does things.\nfunc F%d(a int) int {\n\treturn a + %d\n}\n\n", i, i, i)
	}
	var deep bytes.Buffer
	deep.WriteString("x = ")
	deep.WriteString(strings.Repeat("[", 5000))
	deep.WriteString(strings.Repeat("]", 5000))
	deep.WriteString("\n\ndef after():\n    pass\n")
	// 50 levels: the Python grammar's indent scanner gives up past ~62.
	var nested bytes.Buffer
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&nested, "%sclass C%d:\n", strings.Repeat("    ", i), i)
	}
	fmt.Fprintf(&nested, "%sdef leaf(self):\n%s    pass\n", strings.Repeat("    ", 50), strings.Repeat("    ", 50))
	// Nesting that makes the query's in-progress states pile up: without
	// the start-depth bound this took seconds (quadratic).
	var deepJS bytes.Buffer
	for i := 0; i < 8000; i++ {
		fmt.Fprintf(&deepJS, "class K%d { m%d() { return {a: [", i, i)
	}
	for i := 0; i < 8000; i++ {
		deepJS.WriteString("]} } }\n")
	}
	var deepJava bytes.Buffer
	for i := 0; i < 8000; i++ {
		fmt.Fprintf(&deepJava, "class K%d { void m%d() {}\n", i, i)
	}
	deepJava.WriteString(strings.Repeat("}\n", 8000))

	cases := []struct {
		name, path, lang string
		src              []byte
		minSections      int
	}{
		{"minified", "min.js", "JavaScript", minified.Bytes(), 1000},
		{"10k-lines", "long.go", "Go", long.Bytes(), 2000},
		{"deep-brackets", "deep.py", "Python", deep.Bytes(), 2},
		{"nested-classes", "nested.py", "Python", nested.Bytes(), 51},
		{"deep-js", "deep.js", "JavaScript", deepJS.Bytes(), 2},
		{"deep-java", "Deep.java", "Java", deepJava.Bytes(), 100},
	}
	for _, c := range cases {
		start := time.Now()
		res, ok, reason := Split(section.Input{Path: c.path, Language: c.lang, Content: c.src})
		d := time.Since(start)
		t.Logf("%s: %d bytes, %d sections, %v", c.name, len(c.src), len(res.Sections), d)
		if !ok && reason == ReasonTimeout && d < ParseTimeout+3*time.Second {
			// On a loaded machine the parse deadline may fire first: a
			// clean, bounded timeout is what the caller needs here.
			t.Logf("%s: clean timeout after %v", c.name, d)
			continue
		}
		if !ok {
			t.Errorf("%s: ok=false %s", c.name, reason)
			continue
		}
		if len(res.Sections) < c.minSections {
			t.Errorf("%s: %d sections, want at least %d", c.name, len(res.Sections), c.minSections)
		}
		var total int
		for _, s := range res.Sections {
			total += len(s.Content)
		}
		if total > len(c.src)+len(res.Sections)*(len(Marker)+500) {
			t.Errorf("%s: sections hold %d bytes of a %d-byte file", c.name, total, len(c.src))
		}
		if d > 5*time.Second {
			t.Errorf("%s: took %v", c.name, d)
		}
		checkValid(t, res)
	}
	// The deepest nested method is qualified by all its classes.
	res := mustSplit(t, section.Input{Path: "nested.py", Language: "Python", Content: nested.Bytes()})
	last := res.Sections[len(res.Sections)-1]
	if !strings.HasPrefix(last.QName, "C0.C1.C2.") || !strings.HasSuffix(last.QName, ".C49.leaf") || last.Symbol != "method" {
		t.Errorf("deep method: %s %s", last.Symbol, last.QName)
	}
}

// TestConcurrent runs Split on every fixture from several goroutines (run
// with -race): parsers are pooled, queries shared.
func TestConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < 3; r++ {
				for _, fx := range fixtures {
					src := readFixture(t, fx.path)
					res, ok, reason := Split(section.Input{Path: fx.path, Language: fx.language, Content: src})
					if !ok || len(res.Sections) != len(fx.sections) {
						select {
						case errs <- fmt.Sprintf("%s: ok=%v %s, %d sections", fx.path, ok, reason, len(res.Sections)):
						default:
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func isValidUTF8(s string) bool { return utf8.ValidString(s) }
