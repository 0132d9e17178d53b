package code

import (
	"fmt"
	"os"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/konteks/git-konteks/extract/section"
)

// TestDump prints the syntax tree of a file: KONTEKS_DUMP=go:/path/file.go
func TestDump(t *testing.T) {
	spec := os.Getenv("KONTEKS_DUMP")
	if spec == "" {
		t.Skip()
	}
	key, path, _ := strings.Cut(spec, ":")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p := sitter.NewParser()
	p.SetLanguage(byKey[key].get())
	tree := p.Parse(nil, src)
	var walk func(n *sitter.Node, depth int, field string)
	walk = func(n *sitter.Node, depth int, field string) {
		txt := ""
		if n.ChildCount() == 0 || n.Type() == "identifier" {
			txt = " " + strings.ReplaceAll(n.Content(src), "\n", "\\n")
			if len(txt) > 40 {
				txt = txt[:40]
			}
		}
		f := ""
		if field != "" {
			f = field + ": "
		}
		named := ""
		if !n.IsNamed() {
			named = "'"
		}
		fmt.Printf("%s%s%s%s [%d-%d]%s\n", strings.Repeat("  ", depth), f, named, n.Type(), n.StartPoint().Row+1, n.EndPoint().Row+1, txt)
		for i := 0; i < int(n.ChildCount()); i++ {
			c := n.Child(i)
			if !c.IsNamed() && os.Getenv("KONTEKS_DUMP_ALL") == "" {
				continue
			}
			walk(c, depth+1, n.FieldNameForChild(i))
		}
	}
	walk(tree.RootNode(), 0, "")
}

// TestShow prints the sections of a file: KONTEKS_SPLIT=/path/file.go
func TestShow(t *testing.T) {
	path := os.Getenv("KONTEKS_SPLIT")
	if path == "" {
		t.Skip()
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	res, ok, reason := Split(section.Input{Path: path, Language: os.Getenv("KONTEKS_LANG"), Content: src})
	fmt.Println("ok", ok, reason)
	if os.Getenv("KONTEKS_WANT") != "" {
		for _, s := range res.Sections {
			fmt.Printf("\t\t{%q, %q, %q, %q, %d, %d},\n", s.Anchor, s.Symbol, s.Name, s.QName, s.StartLine, s.EndLine)
		}
		return
	}
	for _, s := range res.Sections {
		fmt.Printf("== %s [%d-%d] sym=%s name=%q qname=%q\n   sig=%q\n   doc=%q\n", s.Anchor, s.StartLine, s.EndLine, s.Symbol, s.Name, s.QName, s.Signature, s.Doc)
		if os.Getenv("KONTEKS_CONTENT") != "" {
			fmt.Println(s.Content)
		}
	}
}
