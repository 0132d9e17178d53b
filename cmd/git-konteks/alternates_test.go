package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/internal/testgit"
)

// looseObjects counts the loose objects of a git dir's own object store.
func looseObjects(t *testing.T, gitDir string) int {
	t.Helper()
	n := 0
	dirs, _ := filepath.Glob(filepath.Join(gitDir, "objects", "??"))
	for _, d := range dirs {
		files, _ := os.ReadDir(d)
		n += len(files)
	}
	return n
}

// Repositories that borrow objects from another (`git clone --shared`,
// `--reference`, a hand-written relative objects/info/alternates) are read
// through their alternates, and what memory writes goes to their own store.
func TestAlternates(t *testing.T) {
	t.Parallel()
	src := recallRepo(t)
	src.Git("gc", "-q") // the source's objects are packed: the clone has none of its own
	srcLoose := looseObjects(t, filepath.Join(src.Dir, ".git"))

	base := t.TempDir()
	shared := filepath.Join(base, "shared")
	ref := filepath.Join(base, "reference")
	rel := filepath.Join(base, "relative")
	testgit.At(t, base).Git("clone", "-q", "--shared", src.Dir, shared)
	testgit.At(t, base).Git("clone", "-q", "--reference", src.Dir, "file://"+src.Dir, ref)
	// A relative entry is relative to the objects directory naming it.
	testgit.At(t, base).Git("clone", "-q", "--shared", src.Dir, rel)
	relPath, err := filepath.Rel(filepath.Join(rel, ".git", "objects"), filepath.Join(src.Dir, ".git", "objects"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(rel, ".git", "objects", "info", "alternates"), []byte("# borrowed\n"+relPath+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	for _, dir := range []string{shared, ref, rel} {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			if n := looseObjects(t, filepath.Join(dir, ".git")); n != 0 {
				t.Fatalf("the clone holds %d objects of its own before extraction", n)
			}
			rep := extractJSON(t, dir)
			if rep.Manifest.Totals.Included != 3 {
				t.Fatalf("extraction in a clone with alternates: %+v", rep.Manifest.Totals)
			}
			hits := recallJSON(t, dir, "retry delay doubling")
			if len(hits) == 0 || hits[0].Path != "fetch/fetch.go" {
				t.Fatalf("recall: %+v", hits)
			}
			run(t, dir, "remember", "--kind", "decision", "Retries back off exponentially")
			if out := run(t, dir, "memories", "list"); !strings.Contains(out, "back off exponentially") {
				t.Fatalf("memories list:\n%s", out)
			}
			// Memory's objects are in the clone; the borrowed store is untouched.
			clone := testgit.At(t, dir)
			memTree := clone.Git("rev-parse", "refs/konteks^{tree}")
			if looseObjects(t, filepath.Join(dir, ".git")) == 0 {
				t.Fatal("memory objects were not written to the clone's own store")
			}
			if _, err := src.TryGit("cat-file", "-e", memTree); err == nil {
				t.Fatal("memory's tree landed in the borrowed object store")
			}
			if n := looseObjects(t, filepath.Join(src.Dir, ".git")); n != srcLoose {
				t.Fatalf("the borrowed store changed: %d loose objects, was %d", n, srcLoose)
			}
			if out := clone.Git("fsck", "--connectivity-only", "refs/konteks"); strings.Contains(out, "missing") {
				t.Fatalf("fsck: %s", out)
			}
		})
	}
}

// A SHA-256 repository gets one plain sentence, not go-git's
// "unknown extension: objectformat".
func TestSHA256Repository(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := testgit.At(t, dir)
	r.Git("init", "-q", "--object-format=sha256", "-b", "main")
	r.Write("a.go", "package a\n")
	r.Commit("init")
	for _, args := range [][]string{{"extract"}, {"status"}, {"recall", "x"}} {
		_, errOut, err := tryRun(dir, nil, args...)
		if err == nil || strings.TrimSpace(errOut) != "git-konteks: SHA-256 repositories are not supported yet" {
			t.Fatalf("%v: err %v, stderr %q", args, err, errOut)
		}
	}
}
