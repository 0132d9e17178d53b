package gitstore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/testgit"
)

// TestDiffStreamListsAsLog: each commit handed to a DiffStream is diffed
// as `git log -M` (Log with NoWalk) diffs it, renames and line counts
// included; a commit whose blob is missing stops the stream with
// ErrMissingObjects and what came before it is delivered whole.
func TestDiffStreamListsAsLog(t *testing.T) {
	r := testgit.New(t)
	r.Write("a.go", "package a\n\nfunc A() {}\n\nfunc B() {}\n\nfunc C() {}\n")
	r.Write("b.txt", "one\ntwo\n")
	c1 := r.Commit("add a and b")
	r.Git("mv", "a.go", "renamed.go")
	r.Write("renamed.go", "package a\n\nfunc A() {}\n\nfunc B() {}\n\nfunc C() { println() }\n")
	r.Remove("b.txt")
	r.Write("c.txt", "three\n")
	c2 := r.Commit("rename a.go, replace b by c")
	r.Write("c.txt", "three\nfour\n")
	c3 := r.Commit("grow c")
	repo := open(t, r)
	hs := []gitstore.Hash{gitstore.ParseHash(c1), gitstore.ParseHash(c2), gitstore.ParseHash(c3)}
	for _, counts := range []bool{false, true} {
		var want []*gitstore.LogCommit
		if err := repo.Log(context.Background(), gitstore.LogOptions{Include: hs, NoWalk: true, Counts: true, RenamesOnly: !counts}, func(lc *gitstore.LogCommit) error {
			want = append(want, lc)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		var got []*gitstore.LogCommit
		d, err := repo.StartDiff(context.Background(), counts, func(lc *gitstore.LogCommit) error {
			got = append(got, lc)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hs {
			if err := d.Add(h); err != nil {
				t.Fatal(err)
			}
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("counts %v: stream listed\n%+v\nlog listed\n%+v", counts, got, want)
		}
		renamed := false
		for _, ch := range got[1].Changes {
			renamed = renamed || ch.Kind == 'R' && ch.OldPath == "a.go" && ch.Path == "renamed.go"
		}
		if !renamed {
			t.Fatalf("rename not detected: %+v", got[1].Changes)
		}
	}

	// A missing blob: git stops at c3 (c.txt's grown blob is gone).
	blob := r.Git("rev-parse", c3+":c.txt")
	if err := os.Remove(filepath.Join(r.Dir, ".git", "objects", blob[:2], blob[2:])); err != nil {
		t.Fatal(err)
	}
	var got []string
	d, err := repo.StartDiff(context.Background(), true, func(lc *gitstore.LogCommit) error {
		got = append(got, lc.Hash.String())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hs {
		_ = d.Add(h) // may fail once git has stopped
	}
	err = d.Close()
	if !errors.Is(err, gitstore.ErrMissingObjects) {
		t.Fatalf("Close = %v, want ErrMissingObjects", err)
	}
	if strings.Join(got, " ") != c1+" "+c2 {
		t.Fatalf("delivered %v, want the two commits before the damaged one", got)
	}
}
