package share

import (
	"os"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/durable"
	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// team is three clones of one remote, each with its own author (set in
// git config, as people set user.email): alice, bob and carol. alice
// has saved a memory and pushed it; bob and carol have fetched it.
type team struct {
	remote             string
	alice, bob, carol  *clone
	memory             durable.Item
	aliceID, aliceName string
}

// as makes c write memory as name <name@example.invalid> (git config
// user.name and user.email; the test environment's GIT_AUTHOR_* would
// win over them, so they are cleared for the test).
func as(c *clone, name string) {
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL"} {
		c.T.Setenv(k, "")
		os.Unsetenv(k)
	}
	c.Git("config", "user.name", name)
	c.Git("config", "user.email", name+"@example.invalid")
	reopen(c)
}

func newTeam(t *testing.T) *team {
	t.Helper()
	testgit.Setenv(t)
	remote, _ := bareRemote(t)
	tm := &team{remote: remote, alice: newClone(t, remote, "alice"), bob: newClone(t, remote, "bob"), carol: newClone(t, remote, "carol")}
	for _, c := range []*clone{tm.alice, tm.bob, tm.carol} {
		as(c, c.name)
		if _, err := ConfigureRemote(c.repo, "origin"); err != nil {
			t.Fatal(err)
		}
	}
	tm.memory = mustSave(t, tm.alice, "alice's decision: releases are cut from the release branch only")
	if !strings.Contains(tm.memory.Author, "alice@") {
		t.Fatalf("saved as %q, not alice", tm.memory.Author)
	}
	mustPush(t, tm.alice)
	mustFetch(t, tm.bob)
	mustFetch(t, tm.carol)
	return tm
}

func mustPush(t *testing.T, c *clone) PushResult {
	t.Helper()
	res, err := Push(c.repo, "origin")
	if err != nil {
		t.Fatalf("%s: push: %v", c.name, err)
	}
	return res
}

func mustFetch(t *testing.T, c *clone) Outcome {
	t.Helper()
	out, err := Fetch(c.repo, "origin")
	if err != nil {
		t.Fatalf("%s: fetch: %v", c.name, err)
	}
	return out
}

// holdsFile reports whether c's memory tree holds the file of entry it.
func holdsFile(t *testing.T, c *clone, it durable.Item) bool {
	t.Helper()
	m, err := memref.Read(c.repo, memory.Ref)
	if err != nil {
		t.Fatal(err)
	}
	_, _, ok, err := c.repo.Lookup(m.Tree, it.Path)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// remoteHolds reports whether the remote's shared memory holds path.
func remoteHolds(t *testing.T, tm *team, path string) bool {
	t.Helper()
	out := testgit.At(t, tm.remote).Git("ls-tree", "-r", "--name-only", RemoteRef)
	return strings.Contains("\n"+out+"\n", "\n"+path+"\n")
}

// impersonate makes c write memory as another clone's author, as
// `git -c user.email=… konteks memories forget` does.
func impersonate(c, victim *clone) {
	c.Git("config", "user.name", victim.name)
	c.Git("config", "user.email", victim.name+"@example.invalid")
	reopen(c)
}

// TestForgedPurgeDeletesNoOneElsesCopy: bob, claiming to be alice, purges
// alice's memory and pushes. No other clone deletes its copy: carol
// keeps the file (the memory is forgotten there at most), alice keeps it
// live, and the remote and a new clone end up holding it again. A purge
// in a memory commit signed by alice's trusted key does delete carol's
// copy.
func TestForgedPurgeDeletesNoOneElsesCopy(t *testing.T) {
	tm := newTeam(t)
	it := tm.memory
	impersonate(tm.bob, tm.alice)
	if _, err := durable.ForgetPurge(tm.bob.repo, it.ID, "gone"); err != nil {
		t.Fatal(err)
	}
	if _, err := Purge(tm.bob.repo); err != nil {
		t.Fatal(err)
	}
	if remoteHolds(t, tm, it.Path) {
		t.Fatal("setup: the forged purge did not reach the remote")
	}

	out := mustFetch(t, tm.carol)
	if !holdsFile(t, tm.carol, it) {
		t.Fatalf("a purge claimed in alice's name deleted carol's copy: %+v", out)
	}
	if notes := strings.Join(out.Notes, "\n"); !strings.Contains(notes, it.ID[:10]) || !strings.Contains(notes, "purge") {
		t.Fatalf("the outcome does not say the purge was declined: %q", notes)
	}
	mustPush(t, tm.carol)
	if !remoteHolds(t, tm, it.Path) {
		t.Fatal("carol's push did not bring the memory back to the remote")
	}

	out = mustFetch(t, tm.alice)
	if status(t, tm.alice, it.ID) != durable.StatusLive {
		t.Fatalf("alice's memory is no longer live on her clone: %+v", out)
	}
	mustPush(t, tm.alice)
	dave := newClone(t, tm.remote, "dave")
	as(dave, "dave")
	mustFetch(t, dave)
	for _, c := range []*clone{tm.alice, tm.carol, dave} {
		mustFetch(t, c)
		if !holdsFile(t, c, it) || status(t, c, it.ID) != durable.StatusLive {
			t.Fatalf("%s: alice's memory is %s (file held: %v), want live", c.name, status(t, c, it.ID), holdsFile(t, c, it))
		}
	}
	// And on every merge after that: bob's clone, which wrote the purge,
	// merges the others' copy without deleting it again.
	mustFetch(t, tm.bob)
	mustPush(t, tm.bob)
	if !remoteHolds(t, tm, it.Path) {
		t.Fatal("bob's next push deleted the memory from the remote again")
	}
}

// TestSignedPurgeDeletesTrustingClonesCopies: alice's purge in a memory
// commit signed by her key deletes the copy of a clone that trusts the
// key.
func TestSignedPurgeDeletesTrustingClonesCopies(t *testing.T) {
	tm := newTeam(t)
	it := tm.memory
	s := newSigner(t, "alice@example.invalid")
	s.signs(tm.alice)
	s.trustedBy(tm.carol)
	if _, err := durable.ForgetPurge(tm.alice.repo, it.ID, "it named a host we do not publish"); err != nil {
		t.Fatal(err)
	}
	if res, err := Purge(tm.alice.repo); err != nil || len(res.Pushed) != 1 {
		t.Fatalf("purge: %+v %v", res, err)
	}
	out := mustFetch(t, tm.carol)
	if holdsFile(t, tm.carol, it) {
		t.Fatalf("a purge signed by alice's trusted key left carol's copy: %+v", out)
	}
	mustPush(t, tm.carol)
	if remoteHolds(t, tm, it.Path) {
		t.Fatal("the remote holds the purged memory")
	}
}

// TestDeclinedTombstoneStaysShared: alice declines a tombstone bob wrote
// in her name. The tombstone stays in shared memory with alice's decline,
// so every clone, a new one included, sees her memory live, and further
// pushes by anyone do not change that.
func TestDeclinedTombstoneStaysShared(t *testing.T) {
	tm := newTeam(t)
	it := tm.memory
	impersonate(tm.bob, tm.alice)
	tomb, err := durable.Forget(tm.bob.repo, it.ID, "obsolete")
	if err != nil {
		t.Fatal(err)
	}
	as(tm.bob, "bob")
	mustPush(t, tm.bob)

	out := mustFetch(t, tm.alice)
	if status(t, tm.alice, it.ID) != durable.StatusLive {
		t.Fatalf("a tombstone in alice's name, unsigned, forgot her memory: %+v", out)
	}
	mustPush(t, tm.alice)
	if !remoteHolds(t, tm, tomb.Path) {
		t.Fatal("alice's push erased bob's tombstone from shared memory")
	}
	dave := newClone(t, tm.remote, "dave")
	as(dave, "dave")
	for round := 0; round < 2; round++ {
		for _, c := range []*clone{tm.alice, tm.bob, tm.carol, dave} {
			mustFetch(t, c)
			if got := status(t, c, it.ID); got != durable.StatusLive {
				t.Fatalf("round %d: %s sees alice's memory %s, want live", round, c.name, got)
			}
			mustPush(t, c)
			if !remoteHolds(t, tm, tomb.Path) {
				t.Fatalf("round %d: %s's push erased the tombstone from shared memory", round, c.name)
			}
		}
	}
}

// TestForgedSkillPurgeKeepsOthersCopies: bob, claiming to be alice,
// purges alice's skill and pushes. Carol's merge removes the skill, as
// its claimed author asks, but keeps its versions' files, and so does
// shared memory after her push.
func TestForgedSkillPurgeKeepsOthersCopies(t *testing.T) {
	tm := newTeam(t)
	sk, _, err := durable.AddSkill(tm.alice.repo, durable.Skill{Name: "deploy", Description: "Ship a release.", Body: "Run make release, then tag."})
	if err != nil {
		t.Fatal(err)
	}
	mustPush(t, tm.alice)
	mustFetch(t, tm.bob)
	mustFetch(t, tm.carol)
	impersonate(tm.bob, tm.alice)
	if _, err := durable.RemoveSkillPurge(tm.bob.repo, "deploy", "gone"); err != nil {
		t.Fatal(err)
	}
	if _, err := Purge(tm.bob.repo); err != nil {
		t.Fatal(err)
	}
	if remoteHolds(t, tm, sk.Path) {
		t.Fatal("setup: the forged purge did not reach the remote")
	}
	out := mustFetch(t, tm.carol)
	if !holdsFile(t, tm.carol, durable.Item{Path: sk.Path}) {
		t.Fatalf("a skill purge claimed in alice's name deleted carol's copy: %+v", out)
	}
	if notes := strings.Join(out.Notes, "\n"); !strings.Contains(notes, "skill deploy") {
		t.Fatalf("the outcome does not say the purge was declined: %q", notes)
	}
	mustPush(t, tm.carol)
	mustFetch(t, tm.bob)
	mustPush(t, tm.bob)
	if !remoteHolds(t, tm, sk.Path) {
		t.Fatal("shared memory lost alice's skill version")
	}
}
