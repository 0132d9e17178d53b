package durable

import (
	"errors"
	"testing"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/memref"
)

// as opens the repository with the given author as its git identity.
func as(t *testing.T, dir, name string) *gitstore.Repo {
	t.Helper()
	t.Setenv("GIT_AUTHOR_NAME", name)
	t.Setenv("GIT_AUTHOR_EMAIL", name+"@example.invalid")
	repo, err := gitstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

// TestPurgeDeletesOnlyItsAuthorsText: a purge tombstone (as a hostile or
// mistaken peer could write one) deletes nothing another author wrote,
// neither a memory nor a skill's versions; the author's own purge does,
// and purging someone else's skill is refused outright.
func TestPurgeDeletesOnlyItsAuthorsText(t *testing.T) {
	r := testgit.New(t)
	r.Write("a.txt", "hello\n")
	r.Commit("init")
	alice := as(t, r.Dir, "alice")
	note, _, err := Save(alice, Entry{Type: TypeMemory, Kind: "note", Text: "Alice's note on how releases are cut and tagged"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := AddSkill(alice, Skill{Name: "deploy", Description: "Ship it.", Body: "make release"}); err != nil {
		t.Fatal(err)
	}
	mallory := as(t, r.Dir, "mallory")
	if _, err := RemoveSkillPurge(mallory, "deploy", "mine now"); !errors.Is(err, ErrRejected) {
		t.Fatalf("purging another author's skill: %v", err)
	}
	// Mallory's purge tombstones, written as a peer's would be.
	if _, _, err := Save(mallory, Entry{Type: TypeTombstone, Kind: TypeMemory, Forgets: note.ID, Reason: "gone", Purge: true}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := writeSkill(mallory, Skill{Type: TypeTombstone, Name: "deploy", Reason: "gone", Purge: true},
		func(*Skill) (bool, error) { return true, nil }, "purge skill deploy"); err != nil {
		t.Fatal(err)
	}
	mem, err := memref.Read(mallory, "refs/konteks")
	if err != nil {
		t.Fatal(err)
	}
	if paths, err := PurgePaths(mallory, mem.Tree); err != nil || len(paths) != 0 {
		t.Fatalf("another author's purges would delete %v (%v)", paths, err)
	}
	// Alice's own purge deletes her note.
	alice = as(t, r.Dir, "alice")
	if _, err := ForgetPurge(alice, note.ID, "a credential hint"); err != nil {
		t.Fatal(err)
	}
	items, err := LoadRef(alice)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if it.ID == note.ID {
			t.Fatalf("the author's purge left the note: %+v", it)
		}
	}
}
