package code

import (
	"strings"
	"testing"
	"time"

	"github.com/konteks/git-konteks/extract/section"
)

// TestQueriesCompile compiles every grammar's query and keeps an eye on
// how long that takes: some grammars make tree-sitter's query analysis
// blow up (a Swift pattern with two fields took 20 s).
func TestQueriesCompile(t *testing.T) {
	for _, g := range grammars {
		start := time.Now()
		if err := g.load(); err != nil {
			t.Errorf("%s: %v", g.key, err)
			continue
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%s: query took %v to compile", g.key, d)
		}
	}
}

func TestLanguages(t *testing.T) {
	want := []string{"Go", "Python", "JavaScript", "TypeScript", "TSX", "Java", "Rust", "C", "C++", "C#", "Ruby", "PHP",
		"Kotlin", "Swift", "Scala", "Shell", "Lua", "Elixir", "OCaml", "Protocol Buffer", "SQL", "HCL"}
	have := map[string]bool{}
	for _, l := range Languages() {
		have[l] = true
	}
	for _, l := range want {
		if !have[l] {
			t.Errorf("Languages() lacks %q", l)
		}
		if LanguageFor("x", l) == "" {
			t.Errorf("LanguageFor(%q) = \"\"", l)
		}
	}
	if len(have) != len(want) {
		t.Errorf("Languages() = %v", Languages())
	}
	for _, c := range []struct{ path, lang, key string }{
		{"a/b.tsx", "", "tsx"},
		{"a/b.tsx", "TypeScript", "tsx"},
		{"a/b.tsx", "TSX", "tsx"},
		{"a/b.ts", "", "typescript"},
		{"a/b.h", "", "c"},
		{"a/b.h", "C++", "cpp"},
		{"a/b.h", "Objective-C", ""},
		{"run.sh", "", "bash"},
		{"run.bash", "", "bash"},
		{"run", "Shell", "bash"},
		{"main.tf", "", "hcl"},
		{"x.proto", "", "protobuf"},
		{"README.md", "Markdown", ""},
		{"README.md", "", ""},
		{"Rakefile", "", "ruby"},
		{"lib.mli", "", ""},
		{"lib.mli", "OCaml", ""},
	} {
		if got := LanguageFor(c.path, c.lang); got != c.key {
			t.Errorf("LanguageFor(%q, %q) = %q, want %q", c.path, c.lang, got, c.key)
		}
	}
}

// TestMaxStartDepth: the start-depth limit reaches the C cursor (the
// binding's layout is what depth.go expects) and keeps every section.
func TestMaxStartDepth(t *testing.T) {
	if !cursorLayoutOK {
		t.Fatal("sitter.QueryCursor layout changed: the query start-depth limit is off; check depth.go")
	}
	src := []byte("package p\n\nfunc F() {\n\ttype inner struct{}\n\tvar g = func() {}\n\t_ = g\n}\n\ntype T struct{}\n")
	res := mustSplit(t, section.Input{Path: "p.go", Language: "Go", Content: src})
	var got []string
	for _, s := range res.Sections {
		got = append(got, s.Anchor)
	}
	if strings.Join(got, " ") != "preamble func:F struct:T" {
		t.Errorf("sections %v", got)
	}
}
