package share

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/memory"
)

// TestPushAsksTheRemote: a push compares with what the remote holds now,
// not with a tracking ref from an earlier fetch: memory the remote lost
// since (its ref deleted by another clone) is pushed again rather than
// reported as "nothing to push".
func TestPushAsksTheRemote(t *testing.T) {
	testgit.Setenv(t)
	remote, _ := bareRemote(t)
	a, b, c := newClone(t, remote, "a"), newClone(t, remote, "b"), newClone(t, remote, "c")
	mustSave(t, a, "The release job deploys from the main branch")
	if _, err := Push(a.repo, "origin"); err != nil {
		t.Fatal(err)
	}
	if _, err := Fetch(b.repo, "origin"); err != nil {
		t.Fatal(err)
	}
	// c removes the shared memory; b's tracking ref still names it.
	c.Git("push", "-q", "origin", ":"+RemoteRef)
	res, err := Push(b.repo, "origin")
	if err != nil {
		t.Fatal(err)
	}
	local, _ := b.repo.ReadRef(memory.Ref)
	got := strings.TrimSpace(a.Git("ls-remote", "origin", RemoteRef))
	if !res.Pushed || !strings.HasPrefix(got, res.Commit.String()) {
		t.Fatalf("push from a stale tracking ref: pushed %v, remote %q, local %s", res.Pushed, got, local)
	}
}

// TestPushRetriesLockRace: a remote whose ref moves between the lease
// check and the locked update answers "cannot lock ref ...: is at X but
// expected Y"; the push treats it as the remote having moved, merges and
// tries again, and succeeds.
func TestPushRetriesLockRace(t *testing.T) {
	testgit.Setenv(t)
	remote, _ := bareRemote(t)
	a, b := newClone(t, remote, "a"), newClone(t, remote, "b")
	mustSave(t, a, "Deploys go through the release job")
	if _, err := Push(a.repo, "origin"); err != nil {
		t.Fatal(err)
	}
	mustSave(t, b, "The cache is warmed after every deploy")
	// The next push into the remote finds its ref moved by another writer
	// while receive-pack holds the new objects: once.
	hook := filepath.Join(remote, "hooks", "pre-receive")
	script := "#!/bin/sh\nunset GIT_QUARANTINE_PATH\n[ -e moved-once ] && exit 0\ntouch moved-once\n" +
		"tip=$(git rev-parse " + RemoteRef + ")\n" +
		"next=$(git commit-tree \"$tip^{tree}\" -p \"$tip\" -m moved)\n" +
		"git update-ref " + RemoteRef + " \"$next\" \"$tip\"\ncat >/dev/null\nexit 0\n"
	if err := os.WriteFile(hook, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := Push(b.repo, "origin")
	if err != nil {
		t.Fatalf("push lost the lock race: %v", err)
	}
	if _, err := os.Stat(filepath.Join(remote, "moved-once")); err != nil || !res.Pushed || res.Merges == 0 {
		t.Fatalf("the race did not happen as staged: %+v %v", res, err)
	}
	if _, err := Fetch(a.repo, "origin"); err != nil {
		t.Fatal(err)
	}
	live, _ := liveIDs(t, a)
	if len(live) != 2 {
		t.Fatalf("after the retried push a sees %d memories, want 2", len(live))
	}
}
