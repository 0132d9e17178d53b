package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/memory"
)

// teamRemote makes a bare remote with one commit of source and no memory,
// and returns it with the seed repository.
func teamRemote(t *testing.T) (string, *testgit.Repo) {
	t.Helper()
	seed := testgit.New(t)
	seed.Write("README.md", "# team\n\nA service the team works on.\n")
	seed.Write("main.go", "package main\n\n// Serve answers requests.\nfunc Serve() {}\n")
	seed.Commit("seed")
	seed.Git("branch", "-M", "main")
	return bareRemote(t, seed), seed
}

// bareRemote clones seed into a bare repository, the remote of the clones
// a test makes with cloneOf.
func bareRemote(t *testing.T, seed *testgit.Repo) string {
	t.Helper()
	remote := filepath.Join(t.TempDir(), "remote.git")
	seed.Git("clone", "-q", "--bare", seed.Dir, remote)
	return remote
}

func cloneOf(t *testing.T, remote, name string) *testgit.Repo {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	testgit.At(t, filepath.Dir(dir)).Git("clone", "-q", remote, dir)
	// The hooks' runner may still be writing when the test ends: let it
	// finish before the directory is removed.
	t.Cleanup(func() { waitRunners(t, filepath.Dir(dir)) })
	return testgit.At(t, dir)
}

// TestPlainGitWorksBeforeAndAfterMemory: init against a remote that has no
// memory must not break git fetch or git pull (the refspec has a wildcard
// source), and a teammate's later push arrives with the next plain fetch.
func TestPlainGitWorksBeforeAndAfterMemory(t *testing.T) {
	t.Parallel()
	remote, _ := teamRemote(t)
	a := cloneOf(t, remote, "a")
	run(t, a.Dir, "init", "--no-hooks")
	// Each of these fails (exit 128) with a refspec whose source is missing.
	a.Git("fetch", "origin")
	a.Git("pull", "--ff-only")
	a.Git("fetch", "--all")
	a.Git("remote", "update")

	b := cloneOf(t, remote, "b")
	run(t, b.Dir, "init", "--no-hooks")
	run(t, b.Dir, "remember", "--kind", "fact", "Serve lives in main.go")
	if out := run(t, b.Dir, "push"); !strings.Contains(out, "pushed memory to origin") {
		t.Fatalf("push: %s", out)
	}
	if out := run(t, b.Dir, "push"); !strings.Contains(out, "nothing to push") {
		t.Fatalf("second push should have nothing to push: %s", out)
	}
	a.Git("fetch", "origin")
	if got, want := a.Git("rev-parse", "refs/konteks-remotes/origin/main"), b.Git("rev-parse", "refs/konteks"); got != want {
		t.Fatalf("plain git fetch brought %s, want the teammate's memory %s", got, want)
	}
	// A read-only upstream without memory next to the team remote: fine too.
	up, _ := teamRemote(t)
	a.Git("remote", "add", "upstream", up)
	run(t, a.Dir, "init", "--no-hooks")
	a.Git("fetch", "--all")
}

// TestFormatOneRemoteIsMigrated: a clone set up by the previous format
// (exact refspec, tracking ref refs/konteks-remotes/origin, memory under
// refs/konteks-shared/main) is mended by the next konteks command: the
// old refspec goes, the teammate's memory is merged, and git fetch works
// against a remote without that ref.
func TestFormatOneRemoteIsMigrated(t *testing.T) {
	t.Parallel()
	remote, _ := teamRemote(t)
	old := cloneOf(t, remote, "old")
	run(t, old.Dir, "remember", "--kind", "fact", "Memory saved with the old format")
	// Publish it where format 1 did, and configure the clone as format 1 did.
	old.Git("push", "-q", "origin", "refs/konteks:refs/konteks-shared/main")
	c := cloneOf(t, remote, "c")
	c.Git("config", "--add", "remote.origin.fetch", "refs/konteks-shared/main:refs/konteks-remotes/origin")
	c.Git("fetch", "-q", "origin")
	if c.Git("rev-parse", "refs/konteks-remotes/origin") == "" {
		t.Fatal("setup: no legacy tracking ref")
	}
	run(t, c.Dir, "fetch")
	specs := c.Git("config", "--get-all", "remote.origin.fetch")
	if strings.Contains(specs, "refs/konteks-shared/main:") || !strings.Contains(specs, "+refs/konteks-shared/v2/*:refs/konteks-remotes/origin/*") {
		t.Fatalf("refspecs after migration:\n%s", specs)
	}
	if got := listMemories(t, c.Dir); len(got) != 1 || !strings.Contains(got[0].Text, "old format") {
		t.Fatalf("memory of the old format not carried over: %+v", got)
	}
	// Pushing publishes format 2 and leaves a signpost on the old ref: a
	// fast-forward whose manifest is of schema 2, so a clone still on the
	// old tool is told to upgrade and its plain git fetch keeps working.
	bare := testgit.At(t, remote)
	oldTip := bare.Git("rev-parse", "refs/konteks-shared/main")
	if out := run(t, c.Dir, "push"); !strings.Contains(out, "pushed memory") {
		t.Fatalf("first push after the migration: %s", out)
	}
	if got := bare.Git("rev-parse", "refs/konteks-shared/main^"); got != oldTip {
		t.Fatalf("the signpost is not a fast-forward of the format 1 memory: parent %s, want %s", got, oldTip)
	}
	var m struct{ Schema int }
	if err := json.Unmarshal([]byte(bare.Git("cat-file", "blob", "refs/konteks-shared/main:manifest.json")), &m); err != nil || m.Schema != 2 {
		t.Fatalf("signpost manifest: schema %d (%v)", m.Schema, err)
	}
	old.Git("fetch", "-q", "origin", "refs/konteks-shared/main:refs/konteks-remotes/origin-old")
	if out := run(t, c.Dir, "push"); !strings.Contains(out, "nothing to push") {
		t.Fatalf("second push: %s", out)
	}
	// The old ref may go away entirely: git fetch still works.
	bare.Git("update-ref", "-d", "refs/konteks-shared/main")
	c.Git("fetch", "origin")
}

// TestSyncOnDifferentHeadsSettles: two clones whose HEADs differ sync in
// turn; after the first round no run makes a merge commit, and the shared
// memory stays the default branch's.
func TestSyncOnDifferentHeadsSettles(t *testing.T) {
	t.Parallel()
	remote, _ := teamRemote(t)
	a := cloneOf(t, remote, "a")
	b := cloneOf(t, remote, "b")
	run(t, a.Dir, "init", "--no-hooks")
	run(t, a.Dir, "push")
	run(t, b.Dir, "init", "--no-hooks")
	// b works on a branch nobody else has.
	b.Git("checkout", "-q", "-b", "topic")
	b.Write("topic.go", "package main\n\n// Topic is b's work in progress.\nfunc Topic() {}\n")
	b.Commit("topic work")
	bare := testgit.At(t, remote)
	var tips []string
	for round := 0; round < 3; round++ {
		run(t, a.Dir, "sync")
		run(t, b.Dir, "sync")
		tips = append(tips, bare.Git("rev-parse", "refs/konteks-shared/v2/main"))
	}
	if tips[1] != tips[0] || tips[2] != tips[0] {
		t.Fatalf("shared memory keeps moving between two clones that changed nothing: %v", tips)
	}
	for _, c := range []*testgit.Repo{a, b} {
		if n := c.Git("rev-list", "--merges", "--count", "refs/konteks"); n != "0" {
			t.Fatalf("%s made %s merge commits while syncing unchanged memory", c.Dir, n)
		}
	}
	if out := run(t, b.Dir, "sync"); !strings.Contains(out, "nothing to push") {
		t.Fatalf("b's sync should push nothing:\n%s", out)
	}
}

// TestSyncOnTwoTopicBranchesSettles: two clones each on a branch of its
// own, neither on the remote's default branch, sync in turn; the shared
// memory stays the first pusher's instead of changing hands on every
// sync, and moves when that clone's memory describes a later commit of
// its line.
func TestSyncOnTwoTopicBranchesSettles(t *testing.T) {
	t.Parallel()
	remote, _ := teamRemote(t)
	a := cloneOf(t, remote, "a")
	b := cloneOf(t, remote, "b")
	for _, c := range []*testgit.Repo{a, b} {
		name := filepath.Base(c.Dir)
		c.Git("checkout", "-q", "-b", "topic-"+name)
		c.Write(name+".go", "package main\n\n// Work is "+name+"'s work in progress.\nfunc Work() {}\n")
		c.Commit(name + " work")
		run(t, c.Dir, "init", "--no-hooks")
	}
	run(t, a.Dir, "push")
	bare := testgit.At(t, remote)
	shared := func() string {
		t.Helper()
		var m struct {
			SourceCommit string `json:"source_commit"`
		}
		if err := json.Unmarshal([]byte(bare.Git("show", "refs/konteks-shared/v2/main:manifest.json")), &m); err != nil {
			t.Fatal(err)
		}
		return m.SourceCommit
	}
	first := bare.Git("rev-parse", "refs/konteks-shared/v2/main")
	for round := 0; round < 3; round++ {
		for _, c := range []*testgit.Repo{b, a} {
			out := run(t, c.Dir, "sync")
			if tip := bare.Git("rev-parse", "refs/konteks-shared/v2/main"); tip != first {
				t.Fatalf("round %d: %s's sync moved the shared memory of two clones that changed nothing (%s, then %s):\n%s", round, filepath.Base(c.Dir), first, tip, out)
			}
		}
	}
	if out := run(t, b.Dir, "sync"); !strings.Contains(out, "nothing was pushed") {
		t.Fatalf("b's sync should say why it pushed nothing:\n%s", out)
	}
	// a goes on along its line: its newer memory replaces its older one.
	a.Write("a2.go", "package main\n\n// More is a's next step.\nfunc More() {}\n")
	next := a.Commit("a more work")
	run(t, a.Dir, "extract")
	run(t, a.Dir, "sync")
	if got := shared(); got != next {
		t.Fatalf("shared memory describes %s, want a's later commit %s", got, next)
	}
}

// TestPlainFetchMergesOnRead: a teammate's memory brought by a plain
// `git fetch` is merged by the next command that reads memory, with no
// hook run for the fetched refs (a clone upgraded from a version that
// installed a reference-transaction hook loses it).
func TestPlainFetchMergesOnRead(t *testing.T) {
	t.Parallel()
	remote, _ := teamRemote(t)
	a := cloneOf(t, remote, "a")
	run(t, a.Dir, "init")
	if _, err := os.Stat(filepath.Join(a.Dir, ".git", "hooks", "reference-transaction")); !os.IsNotExist(err) {
		t.Fatalf("a reference-transaction hook is installed: %v", err)
	}
	b := cloneOf(t, remote, "b")
	run(t, b.Dir, "init", "--no-hooks")
	run(t, b.Dir, "remember", "--kind", "fact", "Deploys go through the release job")
	run(t, b.Dir, "push")
	a.Git("fetch", "-q", "origin")
	if got := listMemories(t, a.Dir); len(got) != 1 || !strings.Contains(got[0].Text, "release job") {
		t.Fatalf("the teammate's memory was not merged after git fetch: %+v; runner log:\n%s", got, readLog(a))
	}
	// An ordinary ref update (a commit) does not merge anything by itself,
	// and never fails because of the hook; its post-commit runner brings
	// memory to it.
	a.Write("x.go", "package main\n")
	head := a.Commit("x")
	waitUntil(t, "the post-commit runner extracted the commit", func() bool {
		var st struct {
			SourceCommit string `json:"source_commit"`
		}
		return json.Unmarshal([]byte(run(t, a.Dir, "status", "--json")), &st) == nil && st.SourceCommit == head
	}, a)
	// The runner goes on (history, the index) after memory moved: the
	// temporary directory is removed only once it is done.
	waitRunners(t, filepath.Dir(a.Dir))
}

func readLog(r *testgit.Repo) string {
	b, _ := os.ReadFile(logPath(r))
	return string(b)
}

// logPath is the hooks runner's log of r.
func logPath(r *testgit.Repo) string {
	out, _ := r.TryGit("rev-parse", "--git-common-dir")
	return filepath.Join(r.Dir, out, "konteks", "log")
}

// waitForLog polls the hooks runner's log of r until it holds want (the
// runner is asynchronous by design); after d (scaled) it fails the test,
// saying what did not happen, with the log.
func waitForLog(t *testing.T, r *testgit.Repo, want string, d time.Duration, what string) {
	t.Helper()
	p := logPath(r)
	for deadline := time.Now().Add(scaled(d)); ; time.Sleep(50 * time.Millisecond) {
		b, _ := os.ReadFile(p)
		if strings.Contains(string(b), want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s; runner log:\n%s", what, b)
		}
	}
}

// memoryRefs lists every memory ref of a repository: local, tracking,
// checkpoint and (on a bare remote) shared.
func memoryRefs(t *testing.T, r *testgit.Repo) []string {
	t.Helper()
	out := r.Git("for-each-ref", "--format=%(refname)", "refs/konteks", "refs/konteks-wip", "refs/konteks-remotes/", "refs/konteks-shared/")
	if out == "" {
		return nil
	}
	return strings.Split(out, "\n")
}

// reachableHolding returns the objects reachable from refs that contain
// needle, zstd frames decoded.
func reachableHolding(t *testing.T, r *testgit.Repo, needle string, refs []string) []string {
	t.Helper()
	if len(refs) == 0 {
		return nil
	}
	var hits []string
	for _, o := range r.Objects(refs...) {
		text := o.Data
		if bytes.HasPrefix(o.Data, []byte{0x28, 0xb5, 0x2f, 0xfd}) {
			if d, err := memory.Decompress(o.Data); err == nil {
				text = d
			}
		}
		if bytes.Contains(text, []byte(needle)) {
			hits = append(hits, o.Type+" "+o.ID)
		}
	}
	return hits
}

// sshKey makes an SSH signing key for principal and an allowed-signers
// file that lists it (what konteks.trust names).
func sshKey(t *testing.T, principal string) (key, allowed string) {
	t.Helper()
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("ssh-keygen not installed")
	}
	dir := t.TempDir()
	key = filepath.Join(dir, "id_ed25519")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", principal, "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v %s", err, out)
	}
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	allowed = filepath.Join(dir, "allowed_signers")
	if err := os.WriteFile(allowed, []byte(principal+` namespaces="git" `+strings.TrimSpace(string(pub))+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return key, allowed
}

// TestPurgeLeavesNoReachableCopy: a purged memory is in no object
// reachable from any memory ref of the purging clone, of the remote, and
// (after its next fetch) of a teammate that had fetched it and trusts the
// purging author's signing key; the commit messages never held it; the
// teammate cannot purge the author's memory themselves.
func TestPurgeLeavesNoReachableCopy(t *testing.T) {
	t.Parallel()
	const needle = "aws_secret_hint purge-needle-7f3a9"
	remote, _ := teamRemote(t)
	a := cloneOf(t, remote, "a")
	b := cloneOf(t, remote, "b")
	for _, c := range []*testgit.Repo{a, b} {
		run(t, c.Dir, "init", "--no-hooks")
	}
	// a is another person than b: a clone applies a peer's tombstone for
	// the peer's own entry, and one for its own user's entry only when a
	// trusted signer vouches for it (docs/trust.md).
	alice := []string{"GIT_AUTHOR_NAME=Alice", "GIT_AUTHOR_EMAIL=alice@example.invalid", "GIT_COMMITTER_NAME=Alice", "GIT_COMMITTER_EMAIL=alice@example.invalid"}
	asAlice := func(args ...string) string {
		t.Helper()
		out, errOut, err := tryRun(a.Dir, alice, args...)
		if err != nil {
			t.Fatalf("git-konteks %v: %v\n%s", args, err, errOut)
		}
		return out
	}
	// b deletes its copy only for a purge signed by alice's key, which b
	// trusts.
	key, allowed := sshKey(t, "alice@example.invalid")
	a.Git("config", "konteks.sign", "true")
	a.Git("config", "user.signingkey", key)
	b.Git("config", "konteks.trust", allowed)
	asAlice("remember", "--kind", "note", "Staging uses "+needle)
	asAlice("remember", "--kind", "fact", "Deploys go through the release job")
	for i := 0; i < 3; i++ { // a few pushes: the text is in older commits too
		a.Write(fmt.Sprintf("f%d.go", i), "package main\n")
		a.Commit("work")
		asAlice("extract")
		asAlice("push")
	}
	run(t, b.Dir, "fetch")
	if got := a.Git("log", "--format=%B", "refs/konteks"); strings.Contains(got, "purge-needle") {
		t.Fatalf("a memory commit's message holds the memory's text:\n%s", got)
	}
	id := ""
	for _, m := range listMemories(t, a.Dir) {
		if strings.Contains(m.Text, "purge-needle") {
			id = m.ID
		}
	}
	if hits := reachableHolding(t, testgit.At(t, remote), "purge-needle", memoryRefs(t, testgit.At(t, remote))); len(hits) == 0 {
		t.Fatal("setup: the remote does not hold the text before the purge")
	}
	// Someone else's memory: refused, with the reason and what to do.
	if _, errOut, err := tryRun(b.Dir, nil, "memories", "forget", id, "--reason", "not mine", "--purge"); err == nil ||
		!strings.Contains(errOut, "only its author can forget it") || !strings.Contains(errOut, "--supersedes") {
		t.Fatalf("b purged alice's memory: %v %s", err, errOut)
	}
	asAlice("memories", "forget", id, "--reason", "a credential hint", "--purge")
	for name, r := range map[string]*testgit.Repo{"a": a, "remote": testgit.At(t, remote)} {
		if hits := reachableHolding(t, r, "purge-needle", memoryRefs(t, r)); len(hits) > 0 {
			t.Fatalf("%s: purged text still reachable from memory refs in %v", name, hits)
		}
	}
	run(t, b.Dir, "fetch")
	if hits := reachableHolding(t, b, "purge-needle", memoryRefs(t, b)); len(hits) > 0 {
		t.Fatalf("b still reaches the purged text after fetching the purge: %v", hits)
	}
	if got := listMemories(t, b.Dir); len(got) != 1 || !strings.Contains(got[0].Text, "release job") {
		t.Fatalf("b's memories after the purge: %+v", got)
	}
	// The other memory survived everywhere, and a's next push is normal.
	if got := listMemories(t, a.Dir); len(got) != 1 {
		t.Fatalf("a's memories after the purge: %+v", got)
	}
	run(t, b.Dir, "push")
}

// TestGCBoundsOldHistory: memory written one commit per extraction (as
// format 1 did) is squashed to konteks.history.keep by gc, and status
// --size reports it against the source.
func TestGCBoundsOldHistory(t *testing.T) {
	t.Parallel()
	remote, _ := teamRemote(t)
	a := cloneOf(t, remote, "a")
	run(t, a.Dir, "extract")
	// Stack 12 commits as the old format did.
	tip := a.Git("rev-parse", "refs/konteks")
	tree := a.Git("rev-parse", "refs/konteks^{tree}")
	for i := 0; i < 12; i++ {
		tip = a.Git("commit-tree", "-p", tip, "-m", fmt.Sprintf("konteks: old extraction %d", i), tree)
	}
	a.Git("update-ref", "refs/konteks", tip)
	a.Git("config", "konteks.history.keep", "3")
	var res struct {
		Before, After struct {
			Chain int
			Local struct{ Bytes int64 }
		}
	}
	if err := json.Unmarshal([]byte(run(t, a.Dir, "gc", "--prune=now", "--json")), &res); err != nil {
		t.Fatal(err)
	}
	if res.Before.Chain != 13 || res.After.Chain != 3 {
		t.Fatalf("gc chain %d -> %d, want 13 -> 3", res.Before.Chain, res.After.Chain)
	}
	if n := a.Git("rev-list", "--count", "refs/konteks"); n != "3" {
		t.Fatalf("refs/konteks reaches %s commits after gc", n)
	}
	var st struct {
		Size struct {
			Chain  int
			Source struct{ Bytes int64 }
			Ratio  float64
		}
	}
	if err := json.Unmarshal([]byte(run(t, a.Dir, "status", "--size", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	if st.Size.Chain != 3 || st.Size.Source.Bytes == 0 || st.Size.Ratio <= 0 {
		t.Fatalf("status --size: %+v", st.Size)
	}
	if out := run(t, a.Dir, "status", "--size"); !strings.Contains(out, "source history") {
		t.Fatalf("status --size text:\n%s", out)
	}
	a.Git("config", "konteks.history.keep", "zero")
	if _, errOut, err := tryRun(a.Dir, nil, "gc"); err == nil || !strings.Contains(errOut, "konteks.history.keep") {
		t.Fatalf("a bad konteks.history.keep should be named: %v %s", err, errOut)
	}
}

// formatOneRepo is a repository whose memory the previous format wrote
// (testdata/format1), checked out at the commit that memory describes.
func formatOneRepo(t *testing.T) *testgit.Repo {
	t.Helper()
	r := testgit.New(t)
	bundle, err := filepath.Abs("../../testdata/format1/memory.bundle")
	if err != nil {
		t.Fatal(err)
	}
	r.Git("fetch", "-q", bundle, "main:refs/heads/old", "refs/konteks:refs/konteks")
	r.Git("checkout", "-q", "old")
	return r
}

// TestFormatOneMemoryIsCarriedOver: memory written by the previous format
// (testdata/format1) is rebuilt once on the first extraction, keeps its
// durable memories, tombstones and skills, and loses its long chain.
func TestFormatOneMemoryIsCarriedOver(t *testing.T) {
	t.Parallel()
	r := formatOneRepo(t)
	if n := r.Git("rev-list", "--count", "refs/konteks"); n == "1" {
		t.Fatal("setup: the fixture should hold a chain of memory commits")
	}
	rep := extractJSON(t, r.Dir)
	if rep.Manifest.Mode != "rebuild" {
		t.Fatalf("first extraction over format 1 memory: mode %q, want rebuild", rep.Manifest.Mode)
	}
	var m struct{ Schema int }
	if err := json.Unmarshal([]byte(r.Git("cat-file", "blob", "refs/konteks:manifest.json")), &m); err != nil || m.Schema != 2 {
		t.Fatalf("manifest schema after the upgrade: %d (%v)", m.Schema, err)
	}
	all := listMemories(t, r.Dir, "--all")
	var live, forgotten int
	for _, it := range all {
		switch it.Status {
		case "live":
			live++
		case "forgotten":
			forgotten++
		}
	}
	if live != 1 || forgotten != 1 {
		t.Fatalf("durable memories after the upgrade: %d live, %d forgotten, want 1 and 1: %+v", live, forgotten, all)
	}
	if out := run(t, r.Dir, "skill", "list"); !strings.Contains(out, "release") {
		t.Fatalf("skill lost in the upgrade:\n%s", out)
	}
	if n := r.Git("rev-list", "--count", "refs/konteks"); n != "1" {
		t.Fatalf("memory chain after the upgrade: %s commits, want 1", n)
	}
	if out := run(t, r.Dir, "recall", "where are notes stored"); !strings.Contains(out, "internal/store") {
		t.Fatalf("recall after the upgrade:\n%s", out)
	}
}

// TestKillDuringSquashedPush: SIGKILL after the squashed chain is written
// and before it is pushed, or after it is pushed and before local memory
// takes it, leaves both sides' memory readable and complete; the next
// push finishes the work.
func TestKillDuringSquashedPush(t *testing.T) {
	t.Parallel()
	remote, _ := teamRemote(t)
	a := cloneOf(t, remote, "a")
	run(t, a.Dir, "init", "--no-hooks")
	a.Git("config", "konteks.history.keep", "1")
	for _, point := range []string{"push-squashed", "push-sent"} {
		for i := 0; i < 2; i++ {
			run(t, a.Dir, "remember", "--kind", "fact", fmt.Sprintf("fact %d before a kill at %s", i, point))
			run(t, a.Dir, "push")
		}
		run(t, a.Dir, "remember", "--kind", "fact", "the fact of the push killed at "+point)
		before := a.Git("rev-parse", "refs/konteks")
		cmd := exec.Command(binary, "push")
		cmd.Dir, cmd.Env = a.Dir, append(testgit.Env(), "KONTEKS_TEST_KILL_AT="+point)
		if err := cmd.Run(); err == nil {
			t.Fatalf("%s: the push was not killed", point)
		}
		if got := a.Git("rev-parse", "refs/konteks"); got != before {
			t.Fatalf("%s: local memory moved by a killed push", point)
		}
		run(t, a.Dir, "push")
		b := cloneOf(t, remote, "b-"+point)
		run(t, b.Dir, "fetch")
		found := false
		for _, m := range listMemories(t, b.Dir) {
			found = found || strings.Contains(m.Text, "killed at "+point)
		}
		if !found {
			t.Fatalf("%s: the memory pushed after the kill did not reach a fresh clone", point)
		}
	}
}

// TestLinkedWorktreeNeverAnswersFromAnotherBranch: a commit in a linked
// worktree does not move memory under the main worktree (the hooks'
// runner leaves it), and recall in the linked worktree leaves out files
// its HEAD does not have and says why.
func TestLinkedWorktreeNeverAnswersFromAnotherBranch(t *testing.T) {
	t.Parallel()
	r := testgit.New(t)
	r.Write("billing/invoice.go", "package billing\n\n// Invoice totals a customer's monthly charges.\nfunc Invoice() int { return 0 }\n")
	r.Write("billing/refund.go", "package billing\n\n// Refund returns a customer's monthly charges.\nfunc Refund() int { return 0 }\n")
	r.Commit("billing")
	run(t, r.Dir, "init")
	t.Cleanup(func() { waitRunners(t, filepath.Dir(r.Dir)) })
	source := r.Git("rev-parse", "HEAD")
	wt := filepath.Join(t.TempDir(), "wt")
	r.Git("worktree", "add", "-q", "-b", "feature", wt)
	w := testgit.At(t, wt)
	w.Remove("billing/invoice.go")
	w.Commit("drop invoices on the feature branch")
	waitForLog(t, r, "linked worktree", 20*time.Second, "the runner did not see the linked worktree's commit")
	var st struct {
		SourceCommit string `json:"source_commit"`
	}
	if err := json.Unmarshal([]byte(run(t, r.Dir, "status", "--json")), &st); err != nil || st.SourceCommit != source {
		t.Fatalf("memory moved to the linked worktree's commit: %+v %v", st, err)
	}
	out, errOut, err := tryRun(wt, nil, "recall", "monthly charges invoice")
	if err != nil {
		t.Fatalf("recall in the linked worktree: %v %s", err, errOut)
	}
	if strings.Contains(out, "billing/invoice.go") {
		t.Fatalf("recall in the linked worktree answered with a file its HEAD does not have:\n%s", out)
	}
	if !strings.Contains(out+errOut, "not this checkout's HEAD") {
		t.Fatalf("no note that memory describes another commit:\n%s\n%s", out, errOut)
	}
	if out := run(t, r.Dir, "recall", "monthly charges invoice"); !strings.Contains(out, "billing/invoice.go") {
		t.Fatalf("the main worktree lost the file:\n%s", out)
	}
}

// waitUntil polls cond for up to 90 s (the hooks' runner works in the
// background, and the whole suite may load the machine), then fails with
// the runner logs of the repositories given.
func waitUntil(t *testing.T, what string, cond func() bool, logs ...*testgit.Repo) {
	t.Helper()
	for deadline := time.Now().Add(scaled(90 * time.Second)); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			var b strings.Builder
			for _, r := range logs {
				fmt.Fprintf(&b, "\n%s runner log:\n%s", r.Dir, readLog(r))
			}
			t.Fatalf("timed out waiting until %s%s", what, b.String())
		}
	}
}

// TestTeamWalkthrough is the team set-up as the manual describes it: a
// bare remote and three clones, init everywhere, commits with the hooks,
// one clone extracting and pushing, teammates' memory arriving with plain
// git fetch and pull, recall hybrid throughout, and nothing lost.
func TestTeamWalkthrough(t *testing.T) {
	t.Parallel()
	remote, _ := teamRemote(t)
	ci, b, c := cloneOf(t, remote, "ci"), cloneOf(t, remote, "b"), cloneOf(t, remote, "c")
	for _, r := range []*testgit.Repo{ci, b, c} {
		run(t, r.Dir, "init")
	}
	// The extracting clone commits; its hook brings memory to HEAD.
	ci.Write("billing/invoice.go", "package billing\n\n// Invoice totals a customer's monthly charges.\nfunc Invoice() int { return 0 }\n")
	head := ci.Commit("billing: invoices")
	ci.Git("push", "-q", "origin", "HEAD:main")
	waitUntil(t, "the hook extracted the new commit", func() bool {
		var st struct {
			SourceCommit string `json:"source_commit"`
		}
		return json.Unmarshal([]byte(run(t, ci.Dir, "status", "--json")), &st) == nil && st.SourceCommit == head
	}, ci)
	run(t, ci.Dir, "push")
	// b pulls the code; plain git brings the memory along and the hook
	// merges it.
	b.Git("pull", "-q", "--ff-only")
	waitUntil(t, "b merged the memory brought by git pull", func() bool {
		var st struct {
			SourceCommit string `json:"source_commit"`
		}
		return json.Unmarshal([]byte(run(t, b.Dir, "status", "--json")), &st) == nil && st.SourceCommit == head
	}, b)
	run(t, b.Dir, "remember", "--kind", "decision", "Invoices are computed nightly, never on request")
	run(t, b.Dir, "push")
	// c only fetches.
	c.Git("fetch", "-q")
	waitUntil(t, "c merged its teammates' memory after git fetch", func() bool {
		got := listMemories(t, c.Dir)
		return len(got) == 1 && strings.Contains(got[0].Text, "nightly")
	}, c)
	c.Git("merge", "-q", "--ff-only", "origin/main")
	// A teammate's derived memory is not adopted unless signed by a
	// trusted signer (docs/trust.md): c's post-merge hook extracts its own.
	waitUntil(t, "c's hook extracted the merged commit", func() bool {
		var st struct {
			SourceCommit string `json:"source_commit"`
		}
		return json.Unmarshal([]byte(run(t, c.Dir, "status", "--json")), &st) == nil && st.SourceCommit == head
	}, c)
	for _, r := range []*testgit.Repo{ci, b, c} {
		// The hooks' runner may still be updating the search index after
		// memory moved; recall then answers from the memory the index
		// holds and says so. Wait for the runner to finish.
		var out, errOut string
		waitUntil(t, "the runner finished updating the search index", func() bool {
			var err error
			out, errOut, err = tryRun(r.Dir, nil, "recall", "--json", "how are monthly invoices computed")
			if err != nil {
				t.Fatalf("%s: recall: %v %s", r.Dir, err, errOut)
			}
			return !strings.Contains(errOut, "being updated by another process")
		}, r)
		if !strings.Contains(out, "billing/invoice.go") {
			t.Fatalf("%s: recall missed the file:\n%s", r.Dir, out)
		}
		if strings.Contains(errOut, "lexical search only") || strings.Contains(errOut, "holds no vectors") {
			t.Fatalf("%s: recall is not hybrid:\n%s", r.Dir, errOut)
		}
	}
	// Everyone ends with the decision; nobody lost anything.
	run(t, ci.Dir, "fetch")
	for _, r := range []*testgit.Repo{ci, b, c} {
		if got := listMemories(t, r.Dir); len(got) != 1 {
			t.Fatalf("%s holds %d memories, want 1", r.Dir, len(got))
		}
	}
}
