package gitstore_test

import (
	"testing"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/testgit"
)

// TestReadsSurviveRepack: another process's `git gc` moves loose objects
// into a new pack and deletes old packs while a Repo is open (auto-gc
// after a commit, while the post-commit extraction runs); reads must still
// find every object.
func TestReadsSurviveRepack(t *testing.T) {
	r := testgit.New(t)
	r.WriteFiles(map[string]string{"a.txt": "one\n", "d/b.txt": "two\n"})
	first := r.Commit("first")
	r.Git("gc", "-q") // a first pack
	r.WriteFiles(map[string]string{"c.txt": "three\n"})
	second := r.Commit("second") // loose objects
	repo := open(t, r)
	for _, rev := range []string{first, second} {
		if _, err := repo.Resolve(rev); err != nil { // loads the pack list
			t.Fatal(err)
		}
	}
	blob := r.Git("rev-parse", second+":c.txt")

	// Everything into one new pack; the old pack and the loose objects go.
	r.Git("repack", "-a", "-d", "-q")
	r.Git("prune-packed")

	for _, rev := range []string{first, second} {
		c, err := repo.Resolve(rev)
		if err != nil {
			t.Fatalf("after repack, resolve %s: %v", rev, err)
		}
		if _, err := repo.Tree(c.TreeHash); err != nil {
			t.Fatalf("after repack, tree of %s: %v", rev, err)
		}
	}
	b, err := repo.BlobBytes(gitstore.ParseHash(blob), 1<<20)
	if err != nil || string(b) != "three\n" {
		t.Fatalf("after repack, blob: %q %v", b, err)
	}
}
