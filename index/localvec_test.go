package index

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/konteks/git-konteks/embed"
)

// TestLocalVectorsComputedAndCached: the built-in model's vectors, which
// memory does not store, are computed by a cold build and kept in the
// local cache; a rebuild takes them all from there, an update after a
// one-file change computes only that file's, and a damaged cache only
// costs computing them again.
func TestLocalVectorsComputedAndCached(t *testing.T) {
	r, repo := fixture(t)
	ix := open(t, repo, Options{Model: embed.LocalModel})
	if ix.How != "build" || ix.Vectors() == 0 || ix.Vectors() < ix.Len() || ix.meta.Computed != ix.Vectors() || ix.meta.Cached != 0 {
		t.Fatalf("cold build: %s, %d vectors for %d sections, computed %d, cached %d", ix.How, ix.Vectors(), ix.Len(), ix.meta.Computed, ix.meta.Cached)
	}
	want := ix.Vectors()
	re, err := Open(context.Background(), repo, mem(t, repo), Options{Model: embed.LocalModel, Rebuild: true})
	if err != nil {
		t.Fatal(err)
	}
	defer re.Close()
	if re.Vectors() != want || re.meta.Computed != 0 || re.meta.Cached != want {
		t.Fatalf("rebuild: %d vectors, computed %d, cached %d (want all %d cached)", re.Vectors(), re.meta.Computed, re.meta.Cached, want)
	}
	// The same vectors either way (a rebuild takes every section's from
	// the cache without building its texts).
	for i := 0; i < re.vecs.n; i++ {
		d := re.vecs.dim
		if re.vecs.scales[i] != ix.vecs.scales[i] || re.vecs.docs[i] != ix.vecs.docs[i] || !slices.Equal(re.vecs.q[i*d:(i+1)*d], ix.vecs.q[i*d:(i+1)*d]) {
			t.Fatalf("vector %d differs between computed and cached", i)
		}
	}

	r.Write("web/page.go", "package web\n\n// RenderPage writes a page through its layout.\nfunc RenderPage(name string) string { return \"<main>\" + name }\n")
	r.Commit("page")
	extractAt(t, r)
	up := open(t, repo, Options{Model: embed.LocalModel})
	if up.How != "update" || up.meta.Computed == 0 || up.meta.Computed > 2 || up.Vectors() < up.Len() {
		t.Fatalf("update: %s, computed %d, %d vectors for %d sections", up.How, up.meta.Computed, up.Vectors(), up.Len())
	}

	p, err := cachePath(repo, embed.LocalModel)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("KVC1 damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	dmg, err := Open(context.Background(), repo, mem(t, repo), Options{Model: embed.LocalModel, Rebuild: true})
	if err != nil {
		t.Fatal(err)
	}
	defer dmg.Close()
	if dmg.Vectors() != up.Vectors() || dmg.meta.Computed != dmg.Vectors() {
		t.Fatalf("damaged cache: %d vectors (want %d), computed %d", dmg.Vectors(), up.Vectors(), dmg.meta.Computed)
	}
	if fi, err := os.Stat(p); err != nil || fi.Size() < int64(dmg.Vectors()*(20+embed.LocalDim)) {
		t.Fatalf("cache not rewritten: %v", err)
	}
	if filepath.Dir(p) != filepath.Join(r.Dir, ".git", "konteks", "vectors") {
		t.Fatalf("cache at %s", p)
	}
}
