package code

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/extract/section/sectiontest"
	"github.com/konteks/git-konteks/memory"
)

// TestGoParserMatchesTreeSitter proves that sectioning Go with go/parser
// gives exactly the sections tree-sitter and queries/go.scm give (names,
// kinds, line ranges, docs, signatures, content, anchors), on every Go
// file of $GOROOT/src/go (all of $GOROOT/src with KONTEKS_GOPARSER_ALL=1).
// Only the parser each section names differs.
func TestGoParserMatchesTreeSitter(t *testing.T) {
	root := sectiontest.GoRoot()
	if root == "" {
		t.Skip("no GOROOT")
	}
	dir := filepath.Join(root, "src", "go")
	if os.Getenv("KONTEKS_GOPARSER_ALL") != "" {
		dir = filepath.Join(root, "src")
	}
	if testing.Short() {
		dir = filepath.Join(root, "src", "go", "ast")
	}
	defer func(v bool) { useGoParser = v }(useGoParser)
	var files, same, tsOnly, goOnly, fellBack int
	var bytesGo int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil || len(src) > MaxSize {
			return err
		}
		files++
		in := section.Input{Path: p, Language: "Go", Content: src}
		useGoParser = false
		ts, tsOK, _ := Split(in)
		useGoParser = true
		gp, gpOK := splitGo(trimBOM(src), "Go")
		switch {
		case !gpOK:
			fellBack++ // Split gives tree-sitter's sections
			return nil
		case !tsOK:
			tsOnly++ // tree-sitter could not use its parse; go/parser could
			t.Logf("%s: tree-sitter fell back, go/parser did not", p)
			return nil
		}
		bytesGo += int64(len(src))
		if diff := diffSections(ts.Sections, gp.Sections); diff != "" {
			goOnly++
			t.Errorf("%s: %s", p, diff)
			return nil
		}
		same++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d files: %d identical (%.1f MB), %d sent to tree-sitter by splitGo, %d only go/parser could use, %d differ",
		files, same, float64(bytesGo)/1e6, fellBack, tsOnly, goOnly)
	if same == 0 {
		t.Fatal("no file compared")
	}
}

func trimBOM(b []byte) []byte {
	if len(b) >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf {
		return b[3:]
	}
	return b
}

// diffSections describes the first difference between two section lists,
// ignoring the parser.
func diffSections(a, b []memory.Section) string {
	if len(a) != len(b) {
		var an, bn []string
		for _, s := range a {
			an = append(an, s.Anchor)
		}
		for _, s := range b {
			bn = append(bn, s.Anchor)
		}
		return fmt.Sprintf("%d sections vs %d:\n  ts %v\n  go %v", len(a), len(b), an, bn)
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Parser != ParserTreeSitter || y.Parser != ParserGo {
			return fmt.Sprintf("section %d parsers %q / %q", i, x.Parser, y.Parser)
		}
		x.Parser, y.Parser = "", ""
		if !reflect.DeepEqual(x, y) {
			return fmt.Sprintf("section %d differs:\n  ts %+v\n  go %+v", i, brief(x), brief(y))
		}
	}
	return ""
}

func brief(s memory.Section) string {
	c := s.Content
	if len(c) > 200 {
		c = c[:200]
	}
	return fmt.Sprintf("anchor=%s sym=%s name=%q q=%q lines=%d-%d sig=%q doc=%q content=%q", s.Anchor, s.Symbol, s.Name, s.QName, s.StartLine, s.EndLine, s.Signature, s.Doc, c)
}
