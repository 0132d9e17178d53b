package gitstore

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// TestReadRefAsGit: ReadRef answers what `git rev-parse` answers for
// loose refs, packed ones, a loose ref over a packed one, refs that do
// not exist (beside a packed-refs of many tags), a symbolic ref, and
// after packed-refs is rewritten or a ref deleted by git.
func TestReadRefAsGit(t *testing.T) {
	r := testgit.New(t)
	r.Write("a.txt", "a\n")
	a := r.Commit("a")
	r.Write("a.txt", "b\n")
	b := r.Commit("b")
	for i := 0; i < 300; i++ {
		r.Git("tag", fmt.Sprintf("v1.%d", i), a)
	}
	r.Git("tag", "-a", "-m", "annotated", "v2", b)
	r.Git("update-ref", "refs/konteks", a)
	r.Git("update-ref", "refs/konteks-shared/v2/main", b)
	r.Git("pack-refs", "--all")
	r.Git("update-ref", "refs/konteks", b) // loose, over the packed line
	r.Git("update-ref", "refs/konteks-remotes/origin/main", a)
	r.Git("symbolic-ref", "refs/konteks-alias", "refs/konteks-shared/v2/main")
	repo, err := Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	check := func(when string, names ...string) {
		t.Helper()
		for _, name := range names {
			got, err := repo.ReadRef(name)
			if err != nil {
				t.Errorf("%s: ReadRef(%s): %v", when, name, err)
				continue
			}
			cmd := exec.Command("git", "rev-parse", "-q", "--verify", name)
			cmd.Dir = r.Dir
			out, _ := cmd.Output() // exit 1: no such ref
			want := strings.TrimSpace(string(out))
			if want == "" {
				want = ZeroHash.String()
			}
			if got.String() != want {
				t.Errorf("%s: ReadRef(%s) = %s, git says %s", when, name, got, want)
			}
		}
	}
	names := []string{"refs/konteks", "refs/konteks-shared/v2/main", "refs/konteks-remotes/origin/main",
		"refs/konteks-alias", "refs/tags/v1.7", "refs/tags/v1.299", "refs/tags/v2", "refs/konteks-checkpoint",
		"refs/konteks/sub", "refs/heads/main", "refs/heads/absent"}
	check("at first", names...)
	r.Git("update-ref", "refs/konteks-shared/v2/main", a) // loose now, the packed line stays
	r.Git("update-ref", "-d", "refs/tags/v1.7")           // rewrites packed-refs
	check("after an update and a deletion", names...)
	r.Git("pack-refs", "--all")
	r.Git("update-ref", "-d", "refs/konteks")
	check("after packing again and a deletion", names...)
}
