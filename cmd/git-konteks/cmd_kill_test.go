package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	"github.com/konteks/git-konteks/durable"
	"github.com/konteks/git-konteks/internal/killpoint"
	"github.com/konteks/git-konteks/internal/testgit"
)

// The tests here kill the real binary with SIGKILL at the named points of
// internal/killpoint, then check three things: memory is readable right
// after the crash (git fsck, the manifest, the memories list); running the
// same command again succeeds; and the result equals an uninterrupted run
// of the command on an identical twin (a byte copy of the repositories
// made before the command ran).
//
// "Equal" cannot mean equal commit ids: memory commits carry the time they
// were written, and a purge's tombstone carries its creation time in its
// content and id. It means: the same memory trees wherever the command
// makes no new entry (gc and the migrations: refs/konteks^{tree}, or every
// top-level entry but manifest.json, whose timings differ), the same chain
// lengths, the same refs, and the same durable memories (ids, status,
// text) and skills; for a purge, the same durable/ paths other than the
// new tombstone's, and no trace of the purged text in any memory ref.

// killedRun runs git-konteks in dir with the kill point set and fails the
// test unless the process died of SIGKILL.
func killedRun(t *testing.T, dir, point string, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Env = append(append(testgit.Env(), env...), killpoint.Env+"="+point)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("%s: git-konteks %v was not killed (err %v):\n%s", point, args, err, out)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("%s: git-konteks %v failed without being killed: %v\n%s", point, args, err, out)
	}
}

// twin copies the directory root (repositories, remotes and all) to a new
// temporary directory and points every clone's origin at the copy of the
// remote, when there is one.
func twin(t *testing.T, root string, clones ...string) string {
	t.Helper()
	dst := t.TempDir()
	if out, err := exec.Command("cp", "-a", root+"/.", dst).CombinedOutput(); err != nil {
		t.Fatalf("copy %s: %v %s", root, err, out)
	}
	for _, c := range clones {
		r := testgit.At(t, filepath.Join(dst, c))
		if _, err := r.TryGit("remote", "get-url", "origin"); err == nil {
			r.Git("remote", "set-url", "origin", filepath.Join(dst, "remote.git"))
		}
	}
	return dst
}

// readable checks that memory in r survived: every object its refs name
// is there, and the memories list and (with derived memory) the manifest
// read.
func readable(t *testing.T, point string, r *testgit.Repo, derived bool) {
	t.Helper()
	if out, err := r.TryGit("fsck", "--connectivity-only", "--no-dangling"); err != nil {
		t.Fatalf("%s: git fsck in %s: %v\n%s", point, r.Dir, err, out)
	}
	if _, errOut, err := tryRun(r.Dir, []string{}, "memories", "list", "--all", "--json"); err != nil {
		t.Fatalf("%s: memories list after the kill: %v\n%s", point, err, errOut)
	}
	if derived {
		if _, errOut, err := tryRun(r.Dir, []string{}, "manifest"); err != nil {
			t.Fatalf("%s: manifest after the kill: %v\n%s", point, err, errOut)
		}
	}
}

// binRun runs git-konteks as the binary, never in-process: these tests
// run next to others in parallel, and the in-process commands share
// urfave/cli's package-level flags, which the race detector reports.
func binRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, errOut, err := tryRun(dir, []string{}, args...)
	if err != nil {
		t.Fatalf("git-konteks %s: %v\n%s%s", strings.Join(args, " "), err, out, errOut)
	}
	return out
}

// binJSON runs git-konteks as the binary and decodes its JSON output.
func binJSON(t *testing.T, dir string, v any, args ...string) {
	t.Helper()
	out := binRun(t, dir, args...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("git-konteks %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// memoryState is what of durable memory must be equal: each entry's id,
// status and text, in id order.
func memoryState(t *testing.T, dir string) string {
	t.Helper()
	return listState(t, dir, func(it durable.Item) string { return it.ID + " " + it.Status + " " + it.Text },
		"memories", "list", "--all", "--json")
}

// skillState is the same of skills: each one's name, type and versions.
func skillState(t *testing.T, dir string) string {
	t.Helper()
	return listState(t, dir, func(s durable.Skill) string { return fmt.Sprintf("%s %s %d", s.Name, s.Type, s.Versions) },
		"skill", "list", "--all", "--json")
}

// listState is the list the binary prints for args, one line per element
// (as line writes it), sorted.
func listState[T any](t *testing.T, dir string, line func(T) string, args ...string) string {
	t.Helper()
	var list []T
	binJSON(t, dir, &list, args...)
	var lines []string
	for _, x := range list {
		lines = append(lines, line(x))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// liveMemories lists the live durable memories in dir.
func liveMemories(t *testing.T, dir string) []durable.Item {
	t.Helper()
	var items []durable.Item
	binJSON(t, dir, &items, "memories", "list", "--json")
	return items
}

// refState lists the memory refs of r with the tree each names and the
// length of its chain: the same for equal memory however it was written.
func refState(t *testing.T, r *testgit.Repo) string {
	t.Helper()
	var lines []string
	for _, ref := range memoryRefs(t, r) {
		lines = append(lines, ref+" "+r.Git("rev-parse", ref+"^{tree}")+" "+r.Git("rev-list", "--count", ref))
	}
	return strings.Join(lines, "\n")
}

func sameState(t *testing.T, point, what, got, want string) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: %s differs from an uninterrupted run:\ngot:\n%s\nwant:\n%s", point, what, got, want)
	}
}

// TestKillDuringGC: gc killed after the squashed chain is written (the
// ref not moved), after the ref moved (tracking refs of removed remotes
// not dropped yet), and before `git gc` leaves memory readable, and a
// second gc ends where an uninterrupted one does.
func TestKillDuringGC(t *testing.T) {
	t.Parallel()
	r := testgit.New(t)
	r.Write("README.md", "# ledger\n\nKeeps the accounts.\n")
	r.Write("ledger.go", "package ledger\n\n// Post records an entry.\nfunc Post() {}\n")
	r.Commit("ledger")
	binRun(t, r.Dir, "extract")
	binRun(t, r.Dir, "remember", "--kind", "fact", "Entries are posted in pairs, debit and credit")
	// A chain of 12 commits as format 1 wrote, and the memory of a remote
	// that was removed since.
	tip := r.Git("rev-parse", "refs/konteks")
	tree := r.Git("rev-parse", "refs/konteks^{tree}")
	for i := 0; i < 12; i++ {
		tip = r.Git("commit-tree", "-p", tip, "-m", fmt.Sprintf("konteks: old extraction %d", i), tree)
	}
	r.Git("update-ref", "refs/konteks", tip)
	r.Git("update-ref", "refs/konteks-remotes/gone/main", tip)
	r.Git("config", "konteks.history.keep", "3")

	want := testgit.At(t, twin(t, r.Dir))
	binRun(t, want.Dir, "gc", "--prune=now")
	wantRefs, wantMem := refState(t, want), memoryState(t, want.Dir)
	if !strings.Contains(wantRefs, "refs/konteks "+tree+" 3") || strings.Contains(wantRefs, "gone") {
		t.Fatalf("setup: an uninterrupted gc left\n%s", wantRefs)
	}
	for _, point := range []string{"gc-squashed", "gc-moved", "gc-dropped"} {
		c := testgit.At(t, twin(t, r.Dir))
		killedRun(t, c.Dir, point, nil, "gc", "--prune=now")
		readable(t, point, c, true)
		got := c.Git("rev-parse", "refs/konteks")
		if point == "gc-squashed" && got != tip {
			t.Fatalf("%s: refs/konteks moved before the squashed chain was complete", point)
		}
		if point != "gc-squashed" && c.Git("rev-list", "--count", "refs/konteks") != "3" {
			t.Fatalf("%s: refs/konteks not squashed after the ref moved", point)
		}
		sameState(t, point, "durable memory after the kill", memoryState(t, c.Dir), wantMem)
		binRun(t, c.Dir, "gc", "--prune=now")
		sameState(t, point, "memory refs", refState(t, c), wantRefs)
		sameState(t, point, "durable memory", memoryState(t, c.Dir), wantMem)
		if out, err := c.TryGit("fsck", "--connectivity-only", "--no-dangling"); err != nil {
			t.Fatalf("%s: git fsck after the second gc: %v\n%s", point, err, out)
		}
	}
}

// purgeTeam is a bare remote and two clones, a and b, under one
// directory: a has saved a memory holding needle, another memory and a
// skill, pushed them a few times (so older commits hold the text too,
// konteks.history.keep being 3), and b has fetched them.
func purgeTeam(t *testing.T, needle string) string {
	t.Helper()
	src, _ := teamRemote(t)
	root := t.TempDir()
	remote := filepath.Join(root, "remote.git")
	testgit.At(t, root).Git("clone", "-q", "--bare", src, remote)
	var clones []*testgit.Repo
	for _, name := range []string{"a", "b"} {
		testgit.At(t, root).Git("clone", "-q", remote, name)
		c := testgit.At(t, filepath.Join(root, name))
		binRun(t, c.Dir, "init", "--no-hooks")
		clones = append(clones, c)
	}
	a, b := clones[0], clones[1]
	a.Git("config", "konteks.history.keep", "3")
	binRun(t, a.Dir, "remember", "--kind", "note", "Staging uses "+needle)
	binRun(t, a.Dir, "remember", "--kind", "fact", "Deploys go through the release job")
	// The skill's file is outside the work tree: in it, it would be source,
	// and its text derived memory no purge touches.
	skill := filepath.Join(t.TempDir(), "SKILL.md")
	if err := os.WriteFile(skill, []byte("---\nname: rotate\ndescription: Rotate the staging key.\n---\nThe staging key is "+needle+"; rotate it monthly.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	binRun(t, a.Dir, "skill", "add", skill)
	for i := 0; i < 3; i++ {
		a.Write(fmt.Sprintf("f%d.go", i), "package main\n")
		a.Commit("work")
		binRun(t, a.Dir, "extract")
		binRun(t, a.Dir, "push")
	}
	binRun(t, b.Dir, "fetch")
	return root
}

// purgeState is what must be equal after a purge: a's refs (trees but
// the tombstones' paths, chain lengths), a's and b's memories and skills,
// the remote's chain.
func purgeState(t *testing.T, root, needle string, offline bool) string {
	t.Helper()
	a, b := testgit.At(t, filepath.Join(root, "a")), testgit.At(t, filepath.Join(root, "b"))
	remote := testgit.At(t, filepath.Join(root, "remote.git"))
	binRun(t, b.Dir, "fetch")
	// b forgets the entry but keeps its file: a's memory is not signed
	// (TestPurgeLeavesNoReachableCopy covers a trusted signer). A remote
	// the purge could not reach keeps the text, and so does a's record of
	// it, until the purge is run again with the remote back.
	clean := map[string][]string{"a": memoryRefs(t, a), "remote": memoryRefs(t, remote)}
	if offline {
		clean = map[string][]string{"a": {"refs/konteks"}}
	}
	for name, refs := range clean {
		r := a
		if name == "remote" {
			r = remote
		}
		if hits := reachableHolding(t, r, needle, refs); len(hits) > 0 {
			t.Fatalf("%s: purged text still reachable from memory refs: %v", name, hits)
		}
	}
	var s strings.Builder
	for _, ref := range memoryRefs(t, a) {
		fmt.Fprintf(&s, "a %s: %s commits, files %s\n", ref, a.Git("rev-list", "--count", ref), a.Git("rev-parse", ref+":files"))
	}
	fmt.Fprintf(&s, "a durable paths but tombstones:\n%s\n", durablePaths(t, a))
	fmt.Fprintf(&s, "remote: %s commits\n", remote.Git("rev-list", "--count", "refs/konteks-shared/v2/main"))
	for _, c := range []*testgit.Repo{a, b} {
		fmt.Fprintf(&s, "memories:\n%s\nskills:\n%s\n", memoryState(t, c.Dir), skillState(t, c.Dir))
	}
	return s.String()
}

// durablePaths lists durable/ in refs/konteks except tombstones, whose
// names derive from the time they were written.
func durablePaths(t *testing.T, r *testgit.Repo) string {
	t.Helper()
	var keep []string
	for _, p := range strings.Split(r.Git("ls-tree", "-r", "--name-only", "refs/konteks", "durable"), "\n") {
		body := r.Git("cat-file", "blob", "refs/konteks:"+p)
		if strings.Contains(body, `"type": "tombstone"`) {
			continue
		}
		keep = append(keep, p)
	}
	return strings.Join(keep, "\n")
}

// TestKillDuringPurge: `memories forget --purge` and `skill remove
// --purge` with a remote, killed after the tombstone is saved, after
// local memory is rewritten, while pushing (squashed chain written, or
// sent and not yet recorded), after the pushes, and after the local chain
// is squashed: memory stays readable and the purged entry stays hidden,
// the same command run again finishes the purge, and the result is the
// uninterrupted purge's.
func TestKillDuringPurge(t *testing.T) {
	t.Parallel()
	// The push squashes local memory: purge-squashed is not reached
	// (TestKillDuringOfflinePurge reaches it).
	testKillDuringPurge(t, false, "purge-tombstoned", "purge-rewritten", "push-squashed", "push-sent", "purge-pushed", "purge-moved")
}

// TestKillDuringOfflinePurge: the same with the remote out of reach,
// where the purge itself squashes the local chain the remote held: killed
// before and after refs/konteks moves.
func TestKillDuringOfflinePurge(t *testing.T) {
	t.Parallel()
	testKillDuringPurge(t, true, "purge-squashed", "purge-moved")
}

func testKillDuringPurge(t *testing.T, offline bool, points ...string) {
	const needle = "purge-needle-kill-41c9"
	root := purgeTeam(t, needle)
	id := ""
	for _, m := range liveMemories(t, filepath.Join(root, "a")) {
		if strings.Contains(m.Text, needle) {
			id = m.ID
		}
	}
	// purge purges in root's a, killed at point unless it is empty.
	purge := func(root string, point string) {
		t.Helper()
		dir := filepath.Join(root, "a")
		if offline {
			testgit.At(t, dir).Git("remote", "set-url", "origin", filepath.Join(root, "gone.git"))
		}
		args := [][]string{
			{"memories", "forget", id[:12], "--reason", "a credential hint", "--purge"},
			{"skill", "remove", "rotate", "--reason", "a credential hint", "--purge"},
		}
		for i, a := range args {
			// Offline, the first purge leaves a chain of one: the second
			// has nothing to squash, and is not killed.
			if point != "" && (i == 0 || !offline) {
				killedRun(t, dir, point, nil, a...)
				readable(t, point, testgit.At(t, dir), true)
				for _, m := range liveMemories(t, dir) {
					if strings.Contains(m.Text, needle) {
						t.Fatalf("%s: the purged memory is listed after the kill: %+v", point, m)
					}
				}
			}
			out, errOut, err := tryRun(dir, []string{}, a...)
			if offline && (err == nil || !strings.Contains(errOut, "not on every remote")) {
				t.Fatalf("%s: git-konteks %v with the remote out of reach: %v\n%s%s", point, a, err, out, errOut)
			}
			if !offline && err != nil {
				t.Fatalf("%s: git-konteks %v: %v\n%s%s", point, a, err, out, errOut)
			}
		}
	}
	want := twin(t, root, "a", "b")
	purge(want, "")
	wantState := purgeState(t, want, needle, offline)
	for _, point := range points {
		got := twin(t, root, "a", "b")
		purge(got, point)
		sameState(t, point, "memory after the purge", purgeState(t, got, needle, offline), wantState)
	}
}

// TestKillDuringFormatMigration: the first extraction over format 1
// memory rebuilds it; killed after a checkpoint of the rebuild, after the
// rebuilt commit is written and before refs/konteks moves, and after it
// moves, memory stays readable (format 1 until the ref moves) and the
// next extraction ends where an uninterrupted one does.
func TestKillDuringFormatMigration(t *testing.T) {
	t.Parallel()
	r := formatOneRepo(t)
	before := r.Git("rev-parse", "refs/konteks")

	want := testgit.At(t, twin(t, r.Dir))
	binRun(t, want.Dir, "extract")
	wantTree, wantMem, wantSkills := treeButManifest(t, want), memoryState(t, want.Dir), skillState(t, want.Dir)
	wantChain := want.Git("rev-list", "--count", "refs/konteks")
	wantRefs := strings.Join(memoryRefs(t, want), "\n")
	type kill struct {
		point string
		env   []string
	}
	for _, k := range []kill{
		{"checkpoint", []string{"KONTEKS_CHECKPOINT_EVERY=1", "KONTEKS_TEST_KILL_AFTER_CHECKPOINT=1"}},
		{"extract-written", nil},
		{"extract-moved", []string{"KONTEKS_CHECKPOINT_EVERY=1"}},
	} {
		c := testgit.At(t, twin(t, r.Dir))
		killedRun(t, c.Dir, k.point, k.env, "extract")
		readable(t, k.point, c, true)
		moved := c.Git("rev-parse", "refs/konteks") != before
		if moved != (k.point == "extract-moved") {
			t.Fatalf("%s: refs/konteks moved: %v", k.point, moved)
		}
		sameState(t, k.point, "durable memory after the kill", memoryState(t, c.Dir), wantMem)
		binRun(t, c.Dir, "extract")
		sameState(t, k.point, "memory tree", treeButManifest(t, c), wantTree)
		sameState(t, k.point, "durable memory", memoryState(t, c.Dir), wantMem)
		sameState(t, k.point, "skills", skillState(t, c.Dir), wantSkills)
		sameState(t, k.point, "chain", c.Git("rev-list", "--count", "refs/konteks"), wantChain)
		sameState(t, k.point, "memory refs", strings.Join(memoryRefs(t, c), "\n"), wantRefs)
		var m struct{ Schema int }
		if err := json.Unmarshal([]byte(c.Git("cat-file", "blob", "refs/konteks:manifest.json")), &m); err != nil || m.Schema != 2 {
			t.Fatalf("%s: manifest schema %d (%v)", k.point, m.Schema, err)
		}
	}
}

// treeButManifest lists refs/konteks' top-level entries but manifest.json
// (which records when the run happened and how long it took).
func treeButManifest(t *testing.T, r *testgit.Repo) string {
	t.Helper()
	var keep []string
	for _, l := range strings.Split(r.Git("ls-tree", "refs/konteks"), "\n") {
		if !strings.HasSuffix(l, "\tmanifest.json") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// TestKillDuringRemoteMigration: a clone set up by format 1 is migrated
// by its next fetch; killed after the old tracking ref's memory is merged
// (the ref not deleted yet), or after it is deleted (the old refspec not
// removed yet), the clone stays readable, plain git fetch works, and the
// next fetch ends where an uninterrupted migration does.
func TestKillDuringRemoteMigration(t *testing.T) {
	t.Parallel()
	src, _ := teamRemote(t)
	root := t.TempDir()
	remote := filepath.Join(root, "remote.git")
	testgit.At(t, root).Git("clone", "-q", "--bare", src, remote)
	testgit.At(t, root).Git("clone", "-q", remote, "old")
	old := testgit.At(t, filepath.Join(root, "old"))
	binRun(t, old.Dir, "remember", "--kind", "fact", "Memory saved with the old format")
	old.Git("push", "-q", "origin", "refs/konteks:refs/konteks-shared/main")
	testgit.At(t, root).Git("clone", "-q", remote, "c")
	c := testgit.At(t, filepath.Join(root, "c"))
	binRun(t, c.Dir, "remember", "--kind", "fact", "Memory saved here before the upgrade")
	c.Git("config", "--add", "remote.origin.fetch", "refs/konteks-shared/main:refs/konteks-remotes/origin")
	c.Git("fetch", "-q", "origin")

	state := func(r *testgit.Repo) string {
		return r.Git("config", "--get-all", "remote.origin.fetch") + "\n" + refState(t, r) + "\n" + memoryState(t, r.Dir)
	}
	want := testgit.At(t, filepath.Join(twin(t, root, "old", "c"), "c"))
	binRun(t, want.Dir, "fetch")
	wantState := state(want)
	if !strings.Contains(wantState, "old format") || strings.Contains(wantState, "konteks-remotes/origin:") {
		t.Fatalf("setup: an uninterrupted migration left\n%s", wantState)
	}
	for _, point := range []string{"migrate-merged", "migrate-dropped"} {
		got := testgit.At(t, filepath.Join(twin(t, root, "old", "c"), "c"))
		killedRun(t, got.Dir, point, nil, "fetch")
		readable(t, point, got, false)
		got.Git("fetch", "origin")
		binRun(t, got.Dir, "fetch")
		sameState(t, point, "migrated clone", state(got), wantState)
	}
}
