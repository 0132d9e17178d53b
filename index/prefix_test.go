package index

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/embed"
	"github.com/konteks/git-konteks/internal/testgit"
)

// PrefixTerms counts the sections that hold each term, as DocFreq does.
// Past a term held by one section (which a merged segment stores in one
// word, zap's "1-hit" encoding), bleve's dictionary walk reported every
// later term as held by one section: on testdata/sections, 256 of 772
// terms; on the Java repository gson, "error" (176 sections) as 1. Query
// expansion then took the first terms in order instead of the most
// frequent, and an updated index expanded otherwise than a rebuilt one.
func TestPrefixTermsCountSections(t *testing.T) {
	r := testgit.New(t)
	root := filepath.Join("..", "testdata", "sections")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err == nil {
			rel, _ := filepath.Rel(root, p)
			r.Write(filepath.ToSlash(rel), string(b))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	r.Commit("init")
	repo := extractAt(t, r)
	// Segments of a few hundred sections, which the build merges.
	defer func(n int) { flushPostings = n }(flushPostings)
	flushPostings = 2000
	ix := open(t, repo, Options{Model: embed.LocalModel})
	terms := 0
	for _, p := range strings.Fields("a b c d e f g h i l m n o p r s t u w") {
		for _, tc := range ix.PrefixTerms(p, 200) {
			terms++
			if n := ix.DocFreq(tc.Term); n != tc.Count || n == 0 {
				t.Errorf("PrefixTerms(%q): %q in %d sections, DocFreq %d", p, tc.Term, tc.Count, n)
			}
		}
	}
	if terms < 500 {
		t.Fatalf("%d terms: the corpus is too small to test the walk", terms)
	}
}
