package memref_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/konteks/git-konteks/internal/memtest"
	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/memref"
)

// TestMeasureSizeWithAMissingObject: a historic blob missing from the clone
// costs the source figure only; memory's own figures are still measured.
func TestMeasureSizeWithAMissingObject(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	r := testgit.New(t)
	r.Write("old.txt", "a file that only history holds\n")
	r.Commit("old")
	blob := r.Git("rev-parse", "HEAD:old.txt")
	r.Git("rm", "-q", "old.txt")
	r.Write("main.go", "package main\n\nfunc main() {}\n")
	r.Commit("new")
	repo := memtest.Extract(t, r.Dir)
	obj := filepath.Join(r.Dir, ".git", "objects", blob[:2], blob[2:])
	if err := os.Remove(obj); err != nil {
		t.Fatal(err)
	}
	s, err := memref.MeasureSize(repo)
	if err != nil {
		t.Fatalf("a missing historic object failed the whole measure: %v", err)
	}
	if s.Unmeasured["source"] == "" || s.Local.Bytes == 0 || s.Tip.Bytes == 0 || s.Ratio != 0 {
		t.Fatalf("size: %+v", s)
	}
}
