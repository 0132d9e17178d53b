package graph

import (
	"os"
	"reflect"
	"regexp"
	"testing"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// The regular expressions goImports replaced: the reference it must agree with.
var (
	refBlock = regexp.MustCompile(`(?s)\bimport\s*\((.*?)\)`)
	refOne   = regexp.MustCompile(`(?m)^\s*import\s+(?:[\w.]+\s+)?"([^"]+)"`)
	refLine  = regexp.MustCompile(`(?m)^\s*(?:[\w.]+\s+)?"([^"]+)"`)
)

func refGoImports(pre string) []string {
	var out []string
	for _, m := range refBlock.FindAllStringSubmatch(pre, -1) {
		for _, l := range refLine.FindAllStringSubmatch(m[1], -1) {
			out = append(out, l[1])
		}
	}
	for _, m := range refOne.FindAllStringSubmatch(pre, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestGoImportsAgreesWithRegexps(t *testing.T) {
	cases := []string{
		"package x\n\nimport (\n\t\"fmt\"\n\tst \"example.com/m/store\"\n\t. \"dot/imp\"\n\t_ \"embed\"\n)\n",
		"package x\n\nimport \"fmt\"\nimport alias \"a/b\"\n",
		"package x\n// The import (of nothing) matters\nimport (\"one\"; \"two\")\n",
		"package x\n\nimport(\n\"a\"\n// \"commented\"\n\n  \"b\" // trailing\n)\nimport (\n\t\"c\"\n)\n",
		"package x\nreimport (\"no\")\nimports (\"no\")\n",
		"package x\nimport (\n",
		"package x\nimport \"\"\n",
		"package x\n\timport\t\"tabbed\"\n",
		"",
	}
	for _, c := range cases {
		if got, want := goImports(c), refGoImports(c); !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\n got %q\nwant %q", c, got, want)
		}
	}
	// On a real tree when one is given: every Go record's preamble.
	dir := os.Getenv("KONTEKS_BENCH_REPO")
	if dir == "" {
		return
	}
	repo, err := gitstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	mem, err := memref.Read(repo, memory.Ref)
	if err != nil || mem == nil {
		t.Fatal(err)
	}
	refs, err := memref.Records(repo, mem.Tree)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range refs {
		f, err := memref.DecodeRecord(repo, r.Blob, r.Path)
		if err != nil || f.Language != "Go" {
			continue
		}
		n++
		pre := Preamble(f)
		if got, want := goImports(pre), refGoImports(pre); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", r.Path, got, want)
		}
	}
	t.Logf("%d Go files agree", n)
}
