package gitstore

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/konteks/git-konteks/internal/testgit"
)

// TestRefsWithPrefixBesideALockFile: another process updating a ref holds
// an empty <ref>.lock file for a moment; listing refs must not take it for
// a broken ref (go-git's walk of refs/ does).
func TestRefsWithPrefixBesideALockFile(t *testing.T) {
	r := testgit.New(t)
	r.Write("a.txt", "a\n")
	head := r.Commit("a")
	r.Git("update-ref", "refs/konteks-remotes/origin/main", head)
	lock := filepath.Join(r.Dir, ".git", "refs", "konteks-remotes", "origin", "other.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	repo, err := Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	refs, names, err := repo.RefsWithPrefix("refs/konteks-remotes/")
	if err != nil {
		t.Fatalf("a lock file broke the listing: %v", err)
	}
	if len(names) != 1 || names[0] != "refs/konteks-remotes/origin/main" || refs[names[0]].String() != head {
		t.Fatalf("refs: %v %v", names, refs)
	}
}
