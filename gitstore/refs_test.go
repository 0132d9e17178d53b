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

// TestRefsWithPrefixWithoutProcess: where no ref can be under the prefix
// (no directory of loose refs, no packed line) the answer needs no git
// process; a loose ref, a packed one and a lock file of one being
// written each send the question to git. The repository's git is
// replaced by one that does not exist: a call that runs it fails.
func TestRefsWithPrefixWithoutProcess(t *testing.T) {
	r := testgit.New(t)
	r.Write("a.txt", "a\n")
	head := r.Commit("a")
	const prefix = "refs/konteks-remotes/"
	list := func() ([]string, error) {
		t.Helper()
		repo, err := Open(r.Dir)
		if err != nil {
			t.Fatal(err)
		}
		repo.gitCLI = filepath.Join(t.TempDir(), "no-git")
		_, names, err := repo.RefsWithPrefix(prefix)
		return names, err
	}
	if names, err := list(); err != nil || len(names) != 0 {
		t.Fatalf("no refs under the prefix: %v %v, want none without running git", names, err)
	}
	// A packed-refs file without the prefix still needs no process.
	r.Git("update-ref", "refs/konteks/x", head)
	r.Git("pack-refs", "--all")
	if names, err := list(); err != nil || len(names) != 0 {
		t.Fatalf("packed refs elsewhere: %v %v, want none without running git", names, err)
	}
	// A loose ref under the prefix: git is asked (and, absent, fails).
	r.Git("update-ref", prefix+"origin/main", head)
	if _, err := list(); err == nil {
		t.Fatal("a loose ref under the prefix was answered without git")
	}
	// The same ref packed, its directory gone.
	r.Git("pack-refs", "--all")
	if err := os.RemoveAll(filepath.Join(r.Dir, ".git", "refs", "konteks-remotes")); err != nil {
		t.Fatal(err)
	}
	if _, err := list(); err == nil {
		t.Fatal("a packed ref under the prefix was answered without git")
	}
	// With git, the packed ref is listed.
	repo, err := Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	refs, names, err := repo.RefsWithPrefix(prefix)
	if err != nil || len(names) != 1 || refs[prefix+"origin/main"].String() != head {
		t.Fatalf("packed ref: %v %v %v", names, refs, err)
	}
	// A ref being written: its lock file's directory exists.
	r.Git("update-ref", "-d", prefix+"origin/main")
	if err := os.MkdirAll(filepath.Join(r.Dir, ".git", "refs", "konteks-remotes", "origin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.Dir, ".git", "refs", "konteks-remotes", "origin", "main.lock"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := list(); err == nil {
		t.Fatal("a ref being written was answered without git")
	}
}
