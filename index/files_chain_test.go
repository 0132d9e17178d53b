package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/embed"
)

// filesOf is every file Files ranks for each query, scores included.
func filesOf(t *testing.T, ix *Index, queries []string, scale float64) map[string][]FileHit {
	t.Helper()
	out := map[string][]FileHit{}
	for _, q := range queries {
		fs, err := ix.Files(context.Background(), QueryTerms(q), 100000, scale)
		if err != nil {
			t.Fatal(err)
		}
		out[q] = fs
	}
	return out
}

// sectionsOf is every section Lexical ranks for each query (by id, with
// its score, under two boosts and length scales), and the vocabulary
// PrefixTerms lists for a few prefixes with DocFreq's count of each.
func sectionsOf(t *testing.T, ix *Index, queries []string) map[string][]string {
	t.Helper()
	out, err := lexicalOf(ix, queries)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// lexicalOf is sectionsOf for any goroutine.
func lexicalOf(ix *Index, queries []string) (map[string][]string, error) {
	out := map[string][]string{}
	for _, q := range queries {
		for _, b := range []Boosts{DefaultBoosts, {Name: 2.5, Path: 0, LengthScale: 0.4786}} {
			hs, err := ix.Lexical(context.Background(), QueryTerms(q), b, 100000)
			if err != nil {
				return nil, err
			}
			k := fmt.Sprint(q, b)
			for _, h := range hs {
				out[k] = append(out[k], fmt.Sprint(ix.Doc(h.Doc).ID, " ", h.Score))
			}
		}
	}
	for _, p := range []string{"t", "w", "q", "p", "r", "n", "l", "o"} {
		for _, tc := range ix.PrefixTerms(p, 1000) {
			out["prefix "+p] = append(out["prefix "+p], fmt.Sprint(tc.Term, " ", tc.Count, " ", ix.DocFreq(tc.Term)))
		}
	}
	return out, nil
}

// A chain of updates (edits keeping most sections, a file deleted then
// added again, a rename, a record that loses all of its sections and
// gets them back, many files at once) ranks whole files, and sections,
// as a rebuilt index of the same memory does, to the bit; its
// vocabulary and counts are the rebuild's too.
func TestUpdateChainFilesAsRebuild(t *testing.T) {
	// Large files the updates leave alone: the base segment stays more
	// than eight times the tail, so updates delete from it and add
	// segments rather than merge everything.
	r, repo := withLargeFiles(t, 300)
	ix := open(t, repo, Options{Model: embed.LocalModel})
	ix.Close()
	queries := []string{"parse header", "thing number", "other thing", "backoff attempt", "render page template",
		"quokka wombat", "notes words", "renamed function", "package", "installing guide", "pkg3 thing3", "func return"}
	big := func(i int) string {
		var b strings.Builder
		b.WriteString("package fetch\n\nimport \"time\"\n\n")
		for k := 0; k < 3; k++ {
			fmt.Fprintf(&b, "// Wait%d waits for quokka number %d.\nfunc Wait%d() time.Duration { return %d }\n\n", k, k, k, k+i*(k%2))
		}
		return b.String()
	}
	steps := []func(i int){
		func(i int) { r.Write("fetch/big.go", big(i)) },
		func(i int) { r.Write("notes/notes.txt", "notes words about a wombat\n") },
		func(i int) { r.Write("notes/notes.txt", "   \n\n") }, // no sections
		func(i int) { r.Remove("web/page.go") },
		func(i int) {
			from, to := "pkg1/file.go", "pkg1/renamed.go"
			if i >= 10 {
				from, to = to, from
			}
			b, err := os.ReadFile(filepath.Join(r.Dir, from))
			if err != nil {
				t.Fatal(err)
			}
			r.Remove(from)
			r.Write(to, string(b))
		},
		func(i int) {
			r.Write("web/page.go", "package web\n\n// RenderPage writes a page through its template again.\nfunc RenderPage(name string) string { return name }\n")
		},
		func(i int) { r.Write("notes/notes.txt", "notes words again, quokka\n") },
		func(i int) {
			for k := 0; k < 24; k += 2 {
				r.Write(fmt.Sprintf("pkg%d/file.go", k), fmt.Sprintf("package pkg%d\n\n// Other%d does another thing %d.\nfunc Other%d() {}\n", k, k, i, k))
			}
		},
		func(i int) { r.Remove("pkg3/file.go") },
		func(i int) {
			r.Write("pkg3/file.go", "package pkg3\n\n// Thing3 is back.\nfunc Thing3() int { return 3 }\n")
		},
	}
	for i := 0; i < 2*len(steps); i++ {
		steps[i%len(steps)](i)
		r.Write("fetch/big.go", big(i))
		r.Commit(fmt.Sprint("step ", i))
		up := updated(t, r, repo)
		t.Logf("step %d: files %v sections %v", i, up.fx.info, up.sx.info)
		up.Close()
	}
	up := open(t, repo, Options{Model: embed.LocalModel})
	if up.How != "current" {
		t.Fatalf("how %q", up.How)
	}
	t.Logf("segments %v, manifest %v, live %d", segFiles(t, up, filesDir), up.fx.info, up.fx.live)
	fu := filesOf(t, up, queries, 1)
	fu2 := filesOf(t, up, queries, 0.4786)
	su := sectionsOf(t, up, queries)
	live, slive := up.fx.live, up.sx.live
	re := rebuilt(t, repo)
	sameGeneration(t, up, re)
	if live != re.fx.live || live != re.files {
		t.Fatalf("update holds %d files, rebuild %d (meta %d)", live, re.fx.live, re.files)
	}
	if slive != re.sx.live || slive != re.Len() {
		t.Fatalf("update holds %d sections, rebuild %d (docs %d)", slive, re.sx.live, re.Len())
	}
	if len(up.sx.segs) < 2 {
		t.Errorf("the updates left %d sections segment(s): the chain does not test deletions across segments", len(up.sx.segs))
	}
	if sr := sectionsOf(t, re, queries); !reflect.DeepEqual(su, sr) {
		for k := range sr {
			if !reflect.DeepEqual(su[k], sr[k]) {
				t.Errorf("%s: updated and rebuilt sections differ:\n%v\n%v", k, su[k], sr[k])
			}
		}
	}
	fr, fr2 := filesOf(t, re, queries, 1), filesOf(t, re, queries, 0.4786)
	for _, q := range queries {
		if len(fr[q]) == 0 && q != "quokka wombat" {
			t.Errorf("%q: no file", q)
		}
		if !reflect.DeepEqual(fu[q], fr[q]) || !reflect.DeepEqual(fu2[q], fr2[q]) {
			t.Errorf("%q: updated and rebuilt rank files differently:\n%v\n%v", q, fu[q], fr[q])
		}
	}
}

// A reader keeps ranking whole files, and sections, as its generation
// did while updates make new generations from it (hard-linking its
// segments, merging them) and prune it, and while it queries in another
// goroutine.
func TestFilesReaderDuringUpdates(t *testing.T) {
	r, repo := withPackages(t, 12)
	// Merge at every update: the tail's segments are rewritten and
	// their links removed while the reader maps them.
	defer func(n int) { tailSegments = n }(tailSegments)
	tailSegments = 1
	old := open(t, repo, Options{Model: embed.LocalModel})
	queries := []string{"thing number", "parse header", "render page template", "package"}
	want := filesOf(t, old, queries, 1)
	wantSecs := sectionsOf(t, old, queries)
	done := make(chan struct{})
	errc := make(chan error, 1)
	go func() {
		defer close(errc)
		for {
			select {
			case <-done:
				return
			default:
			}
			for _, q := range queries {
				fs, err := old.Files(context.Background(), QueryTerms(q), 100000, 1)
				if err != nil || !reflect.DeepEqual(fs, want[q]) {
					errc <- fmt.Errorf("%q: %v %v, want %v", q, fs, err, want[q])
					return
				}
			}
			if got, err := lexicalOf(old, queries); err != nil || !reflect.DeepEqual(got, wantSecs) {
				errc <- fmt.Errorf("sections: %v %v, want %v", got, err, wantSecs)
				return
			}
		}
	}()
	for i := 0; i < 12; i++ {
		r.Write(fmt.Sprintf("pkg%d/file.go", i), fmt.Sprintf("package pkg%d\n\n// Thing%d does number %d again.\nfunc Thing%d() {}\n", i, i, i, i))
		r.Remove(fmt.Sprintf("pkg%d/file.go", (i+5)%12))
		r.Commit(fmt.Sprint("edit ", i))
		up := updated(t, r, repo)
		up.Close()
	}
	close(done)
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if got := filesOf(t, old, queries, 1); !reflect.DeepEqual(got, want) {
		t.Fatalf("after the updates: %v, want %v", got, want)
	}
	if got := sectionsOf(t, old, queries); !reflect.DeepEqual(got, wantSecs) {
		t.Fatalf("sections after the updates: %v, want %v", got, wantSecs)
	}
}
