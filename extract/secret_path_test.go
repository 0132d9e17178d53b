package extract

import (
	"bytes"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/memref"
	"github.com/konteks/git-konteks/secret"
)

// reachableHolds lists the objects reachable from refs/konteks that hold
// needle (zstd frames decoded; tree objects hold their entries' names).
func reachableHolds(t *testing.T, r *testgit.Repo, needle string) []string {
	t.Helper()
	dec, _ := zstd.NewReader(nil)
	defer dec.Close()
	var hits []string
	for _, o := range r.Objects("refs/konteks") {
		texts := [][]byte{o.Data}
		if raw, err := dec.DecodeAll(o.Data, nil); err == nil {
			texts = append(texts, raw)
		}
		for _, txt := range texts {
			if bytes.Contains(txt, []byte(needle)) {
				hits = append(hits, o.Type+" "+o.ID)
			}
		}
	}
	return hits
}

// TestNoCredentialInPaths: a token in a file's name or a directory's name
// reaches no object of memory: the files are skipped (secret-path), the
// skip list holds a hash of the path instead of the path, and history
// leaves the path out of the commits that changed it. Ordinary files
// beside them are remembered, and the skip entry goes when the file does.
func TestNoCredentialInPaths(t *testing.T) {
	var token string
	for _, s := range secret.Samples() {
		if s.Kind == "github-pat" && len(s.Parts) > 0 && strings.HasPrefix(s.Text, "token: ghp_") {
			token = strings.TrimPrefix(s.Text, "token: ")
		}
	}
	if token == "" || !secret.ContainsString("docs/"+token+".md") {
		t.Fatal("no GitHub token sample the detector finds in a path")
	}
	r := testgit.New(t)
	repo := openRepo(t, r)
	r.Write("README.md", "# tool\n\nA tool that does things.\n")
	r.Write("main.go", "package main\n\nfunc main() {}\n")
	r.Write("docs/"+token+".md", "# notes\n\nWhat the token was for.\n")
	r.Write("keys/"+token+"/readme.txt", "a directory named after a token\n")
	r.Commit("add notes")
	runExtract(t, repo, "")
	r.Write("docs/"+token+".md", "# notes\n\nWhat the token was for, again.\n")
	r.Commit("edit notes")
	runExtract(t, repo, "")

	if hits := reachableHolds(t, r, token); len(hits) > 0 {
		t.Fatalf("the token in a path reached memory: %v", hits)
	}
	if hits := reachableHolds(t, r, "A tool that does things"); len(hits) == 0 {
		t.Fatal("the scan misses ordinary text")
	}
	mem, err := memref.Read(repo, "refs/konteks")
	if err != nil {
		t.Fatal(err)
	}
	skipped, err := memref.Skipped(repo, mem.Tree)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for p, why := range skipped {
		if why == SkipSecretPath {
			n++
			if !strings.HasPrefix(p, memref.SkipPathPrefix) {
				t.Errorf("skip list key %q", p)
			}
		}
	}
	if n != 2 || mem.Manifest.Totals.Skipped[SkipSecretPath] != 2 {
		t.Fatalf("secret paths skipped: %d in the list, %d counted; want 2 (%v)", n, mem.Manifest.Totals.Skipped[SkipSecretPath], skipped)
	}

	// Removed, the files leave no skip entry behind (changed and full runs).
	r.Git("rm", "-q", "docs/"+token+".md")
	r.Commit("drop notes")
	runExtract(t, repo, "")
	r.Git("rm", "-q", "-r", "keys")
	r.Commit("drop keys")
	runExtract(t, repo, ModeFull)
	mem, _ = memref.Read(repo, "refs/konteks")
	if skipped, _ = memref.Skipped(repo, mem.Tree); len(skipped) != 0 || mem.Manifest.Totals.Skipped[SkipSecretPath] != 0 {
		t.Fatalf("skip list after the files went: %v %v", skipped, mem.Manifest.Totals.Skipped)
	}
}
