package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/konteks/git-konteks/internal/testgit"
)

// waitForMemory polls until memory describes want (the background runner
// is asynchronous by design). The runner may go on (indexing) after
// memory moved: the test's end waits for it before its directory goes.
func waitForMemory(t *testing.T, r *testgit.Repo, want string) {
	t.Helper()
	t.Cleanup(func() { waitRunners(t, filepath.Dir(r.Dir)) })
	deadline := time.Now().Add(scaled(30 * time.Second))
	for time.Now().Before(deadline) {
		if out, _, err := tryRun(r.Dir, nil, "status", "--json"); err == nil && strings.Contains(out, `"source_commit": "`+want+`"`) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("memory never reached %s; runner log:\n%s", want, readLog(r))
}

func TestHooksKeepMemoryCurrent(t *testing.T) {
	t.Parallel()
	r := mixedRepo(t)
	// A user hook in a core.hooksPath directory must be kept and restored.
	hooksDir := filepath.Join(r.Dir, ".githooks")
	r.Git("config", "core.hooksPath", ".githooks")
	userHook := "#!/bin/sh\necho \"$@\" >> \"$(git rev-parse --git-dir)/user-hook.log\"\n"
	if err := os.MkdirAll(hooksDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(hooksDir, "post-commit"), []byte(userHook), 0o750); err != nil {
		t.Fatal(err)
	}
	out := run(t, r.Dir, "hooks", "install")
	if !strings.Contains(out, "runs your previous hook first") || !strings.Contains(out, ".githooks") {
		t.Fatalf("install:\n%s", out)
	}
	run(t, r.Dir, "hooks", "install") // idempotent: must not chain to itself

	r.Write("hooked.go", "package mixed\n\nfunc Hooked() {}\n")
	head := r.Commit("commit with hooks")
	waitForMemory(t, r, head)
	if b, _ := os.ReadFile(filepath.Join(r.Dir, ".git", "user-hook.log")); !strings.Contains(string(b), "\n") {
		t.Fatal("the user's post-commit hook did not run")
	}
	if rec := show(t, r.Dir, "hooked.go"); len(rec.Sections) == 0 {
		t.Fatal("hooked.go not extracted")
	}
	// The runner warms recall's caches after extracting: the first
	// question finds the index current.
	waitForLog(t, r, "caches warmed", 30*time.Second, "caches never warmed")
	memCommit := r.Git("rev-parse", "refs/konteks")
	if gen, _ := os.ReadFile(filepath.Join(r.Dir, ".git", "konteks", "index", "current")); !strings.HasSuffix(strings.TrimSpace(string(gen)), memCommit[:12]) {
		t.Fatalf("the current index generation %q is not of memory %s", gen, memCommit)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, ".git", "konteks", "graph", memCommit)); err != nil {
		t.Fatalf("no file graph for memory %s: %v", memCommit, err)
	}

	// A hook firing during a manual extraction waits, then catches up.
	lock := holdExtractLock(t, r.Dir)
	var heads []string
	for i := 0; i < 3; i++ { // several commits: requests coalesce
		r.Write("burst.txt", strings.Repeat("burst line\n", i+1))
		heads = append(heads, r.Commit("burst"))
	}
	// Once the runner the hooks started is running (it waits for the
	// lock), memory must not have moved.
	for deadline := time.Now().Add(scaled(30 * time.Second)); !runnerActive(t, r.Dir); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the hooks started no runner; log:\n%s", readLog(r))
		}
	}
	if out, _, _ := tryRun(r.Dir, nil, "status", "--json"); strings.Contains(out, `"source_commit": "`+heads[2]) {
		t.Fatal("memory moved while the extraction lock was held")
	}
	lock.Unlock()
	waitForMemory(t, r, heads[2])
	if n, _ := strconv.Atoi(r.Git("rev-list", "--count", "refs/konteks")); n > 4 {
		t.Fatalf("%d memory commits for 4 source commits: requests were not coalesced", n)
	}

	// Branch switches trigger too.
	r.Git("checkout", "-q", "-b", "side", "HEAD~2")
	side := r.Git("rev-parse", "HEAD")
	waitForMemory(t, r, side)

	// Uninstall restores the user's hook byte for byte, mode included.
	run(t, r.Dir, "hooks", "uninstall")
	b, err := os.ReadFile(filepath.Join(hooksDir, "post-commit"))
	fi, _ := os.Stat(filepath.Join(hooksDir, "post-commit"))
	if err != nil || string(b) != userHook || fi.Mode().Perm() != 0o750 {
		t.Fatalf("user hook not restored exactly: %q %v", b, fi.Mode())
	}
	for _, n := range []string{"post-merge", "post-rewrite", "post-checkout"} {
		if _, err := os.Stat(filepath.Join(hooksDir, n)); err == nil {
			t.Errorf("%s left behind", n)
		}
	}
}

func TestHookNeverFailsCommit(t *testing.T) {
	t.Parallel()
	r := mixedRepo(t)
	run(t, r.Dir, "hooks", "install")
	// Corrupt memory: the background extraction fails, the commit must not.
	r.Git("update-ref", "refs/konteks", r.Git("commit-tree", r.Git("write-tree"), "-m", "not memory"))
	r.Write("x.txt", "after corruption\n")
	start := time.Now()
	r.Commit("still commits")
	if d := time.Since(start); d > scaled(5*time.Second) {
		t.Fatalf("commit took %s", d)
	}
	waitForLog(t, r, "corrupt", 20*time.Second, "the runner did not log the failure")
}
