package share

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/konteks/git-konteks/durable"
	"github.com/konteks/git-konteks/extract"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

type clone struct {
	*testgit.Repo
	name string
	repo *gitstore.Repo
}

func newClone(t *testing.T, remote, name string) *clone {
	dir := filepath.Join(t.TempDir(), name)
	testgit.At(t, filepath.Dir(dir)).Git("clone", "-q", remote, dir)
	r := testgit.At(t, dir)
	repo, err := gitstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return &clone{Repo: r, name: name, repo: repo}
}

func bareRemote(t *testing.T) (path string, seed *testgit.Repo) {
	seed = testgit.New(t)
	seed.Write("README.md", "# shared\n")
	seed.Write("main.go", "package main\n\nfunc main() {}\n")
	seed.Commit("seed")
	path = filepath.Join(t.TempDir(), "remote.git")
	seed.Git("clone", "-q", "--bare", seed.Dir, path)
	return path, seed
}

func liveIDs(t *testing.T, c *clone) (live, all []string) {
	t.Helper()
	items, err := durable.LoadRef(c.repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if it.Type == durable.TypeTombstone {
			continue
		}
		all = append(all, it.ID)
		if it.Status == durable.StatusLive {
			live = append(live, it.ID)
		}
	}
	sort.Strings(live)
	sort.Strings(all)
	return live, all
}

func TestTransports(t *testing.T) {
	testgit.Setenv(t)
	remote, _ := bareRemote(t)
	urls := map[string]string{"path": remote, "file": "file://" + remote}
	if port, stop := gitDaemon(t, filepath.Dir(remote)); port != 0 {
		defer stop()
		urls["daemon"] = fmt.Sprintf("git://127.0.0.1:%d/%s", port, filepath.Base(remote))
	}
	for name, url := range urls {
		t.Run(name, func(t *testing.T) {
			// One remote for all: clear what the previous transport left.
			testgit.At(t, remote).TryGit("update-ref", "-d", RemoteRef)
			a := newClone(t, remote, "a")
			b := newClone(t, remote, "b")
			a.Git("remote", "set-url", "origin", url)
			b.Git("remote", "set-url", "origin", url)
			mustSave(t, a, "memory saved in clone a over "+name)
			if _, err := extract.Run(context.Background(), a.repo, extract.Options{}); err != nil {
				t.Fatal(err)
			}
			if _, err := Push(a.repo, "origin"); err != nil {
				t.Fatal(err)
			}
			out, err := Fetch(b.repo, "origin")
			if err != nil {
				t.Fatal(err)
			}
			if out.Result != Adopted {
				t.Fatalf("fetch into empty memory: %+v", out)
			}
			if live, _ := liveIDs(t, b); len(live) != 1 {
				t.Fatalf("b sees %d memories", len(live))
			}
		})
	}
}

// gitDaemon serves dir with `git daemon` on a free loopback port (0 if it
// cannot start here).
func gitDaemon(t *testing.T, dir string) (int, func()) {
	for port := 19418 + rand.Intn(2000); port < 23000; port += 97 {
		cmd := exec.Command("git", "daemon", "--reuseaddr", "--export-all", "--enable=receive-pack",
			"--listen=127.0.0.1", fmt.Sprintf("--port=%d", port), "--base-path="+dir, dir)
		cmd.Env = testgit.Env()
		// `git daemon` runs git-daemon as a child: kill the whole group,
		// or the daemon outlives the test (holding whatever files the
		// test process inherited).
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			return 0, nil
		}
		stop := func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); cmd.Wait() }
		// Ready when ls-remote answers.
		for i := 0; i < 50; i++ {
			probe := exec.Command("git", "ls-remote", fmt.Sprintf("git://127.0.0.1:%d/remote.git", port))
			probe.Env = testgit.Env()
			if probe.Run() == nil {
				return port, stop
			}
			time.Sleep(50 * time.Millisecond)
		}
		stop()
	}
	t.Log("git daemon did not start; daemon transport not tested")
	return 0, nil
}

func mustSave(t *testing.T, c *clone, text string) durable.Item {
	t.Helper()
	it, isNew, err := durable.Save(c.repo, durable.Entry{Type: durable.TypeMemory, Kind: "note", Text: text})
	if err != nil || !isNew {
		t.Fatalf("save %q: %v (new %v)", text, err, isNew)
	}
	return it
}

func TestDerivedMemoryFollowsLocalHistory(t *testing.T) {
	testgit.Setenv(t)
	remote, _ := bareRemote(t)
	a := newClone(t, remote, "a")
	b := newClone(t, remote, "b")
	trustEachOther(t, a, b)
	ctx := context.Background()
	// a extracts a commit b does not have and publishes it.
	a.Write("only_in_a.go", "package main\n\nfunc OnlyInA() {}\n")
	ahead := a.Commit("a's work")
	if _, err := extract.Run(ctx, a.repo, extract.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := Push(a.repo, "origin"); err != nil {
		t.Fatal(err)
	}
	// b extracts its own HEAD, then fetches: a's source commit is not in
	// b's history, so b keeps its own derived memory (plus a's durable).
	mustSave(t, a, "a durable memory that b must receive")
	if _, err := Push(a.repo, "origin"); err != nil {
		t.Fatal(err)
	}
	if _, err := extract.Run(ctx, b.repo, extract.Options{}); err != nil {
		t.Fatal(err)
	}
	out, err := Fetch(b.repo, "origin")
	if err != nil {
		t.Fatal(err)
	}
	if out.Result != Merged || out.Derived != "ours" || out.NewDurable != 1 {
		t.Fatalf("b's fetch: %+v", out)
	}
	m, err := memref.Read(b.repo, memory.Ref)
	if err != nil {
		t.Fatal(err)
	}
	if m.Manifest.SourceCommit != b.Git("rev-parse", "HEAD") {
		t.Fatal("b adopted derived memory of a commit it does not have")
	}
	// b's own memory was never pushed, so the merge replaces it instead
	// of stacking on it (bounded history): its one parent is a's memory.
	if parents := strings.Fields(b.Git("log", "-1", "--format=%P", "refs/konteks")); len(parents) != 1 || parents[0] != b.Git("rev-parse", TrackingRef("origin")) {
		t.Fatalf("merge commit parents: %v", parents)
	}
	// Once b has a's commit in its history, a's newer derived memory wins.
	b.Git("pull", "-q", "--ff-only", "origin", "main")
	a.Write("more.go", "package main\n")
	a.Commit("more")
	if _, err := extract.Run(ctx, a.repo, extract.Options{}); err != nil {
		t.Fatal(err)
	}
	a.Git("push", "-q", "origin", "HEAD:main")
	if _, err := Push(a.repo, "origin"); err != nil {
		t.Fatal(err)
	}
	b.Git("pull", "-q", "--ff-only", "origin", "main")
	if out, err = Fetch(b.repo, "origin"); err != nil {
		t.Fatal(err)
	}
	if out.Derived != "theirs" {
		t.Fatalf("newer derived memory in local history not taken: %+v", out)
	}
	_ = ahead
}

func TestHostileRemoteMemory(t *testing.T) {
	testgit.Setenv(t)
	remote, _ := bareRemote(t)
	peer := newClone(t, remote, "peer")
	victim := newClone(t, remote, "victim")
	// A trusted peer, so that its records are read and checked.
	trustEachOther(t, peer, victim)
	ctx := context.Background()
	if _, err := extract.Run(ctx, victim.repo, extract.Options{}); err != nil {
		t.Fatal(err)
	}
	// The peer's memory is of a newer commit the victim has: theirs is the
	// derived memory to adopt, so all of it is checked.
	peer.Write("newer.go", "package main\n\nfunc Newer() {}\n")
	peer.Commit("newer")
	peer.Git("push", "-q", "origin", "HEAD:main")
	victim.Git("pull", "-q", "--ff-only", "origin", "main")
	if _, err := extract.Run(ctx, peer.repo, extract.Options{}); err != nil {
		t.Fatal(err)
	}
	mustSave(t, victim, "the victim's own memory that must survive")
	before := victim.Git("rev-parse", "refs/konteks")

	// publish builds a memory commit from the peer's memory with one path
	// replaced, and force-publishes it as a hostile peer would.
	publish := func(path string, blob []byte) {
		t.Helper()
		tip, _ := peer.repo.ReadRef(memory.Ref)
		c, _ := peer.repo.Commit(tip)
		w := peer.repo.NewWriter()
		h, _ := w.Blob(blob)
		ed := peer.repo.NewTreeEditor(c.TreeHash)
		if err := ed.Set(path, gitstore.ModeRegular, h); err != nil {
			t.Fatal(err)
		}
		tree, _ := ed.Write(w)
		nc, _ := w.Commit(gitstore.CommitSpec{Tree: tree, Parents: []gitstore.Hash{tip}, Author: gitstore.Signature{Name: "evil", Email: "e@example.invalid"}, Message: "evil\n"})
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		peer.Git("push", "-q", "--force", "origin", nc.String()+":"+RemoteRef)
	}
	bomb := memory.Compress(make([]byte, 200<<20)) // 200 MiB of zeros in a few KB
	cases := []struct {
		name, path string
		blob       []byte
		want       string
	}{
		{"decompression bomb", "files/main.go", bomb, "corrupt"},
		{"invalid record", "files/main.go", memory.Compress([]byte(`{"v":2,"blob":"nope"}`)), "corrupt"},
		{"garbage record", "files/README.md", []byte("not zstd at all"), "corrupt"},
		{"broken durable entry", "durable/memories/aa/0000000000000000aaaa", []byte(`{"id":"x"}`), "broken durable"},
		{"history tail bomb", "history/tail", bomb, "history memory is corrupt"},
		{"history state lies", "history/state", []byte(`{"version":1,"tips":["` + strings.Repeat("a", 40) + `"],"commits":-1}`), "history memory is corrupt"},
		{"manifest from the future", "manifest.json", []byte(`{"schema":99,"source_commit":"` + strings.Repeat("a", 40) + `","source_tree":"` + strings.Repeat("b", 40) + `"}`), "newer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			publish(c.path, c.blob)
			victim.Git("update-ref", "-d", TrackingRef("origin")) // the peer rewrote history
			_, err := Fetch(victim.repo, "origin")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want an error about %q, got %v", c.want, err)
			}
			if got := victim.Git("rev-parse", "refs/konteks"); got != before {
				t.Fatal("local memory changed after a hostile fetch")
			}
		})
	}
	t.Run("dot-dot path", func(t *testing.T) {
		tip, _ := peer.repo.ReadRef(memory.Ref)
		c, _ := peer.repo.Commit(tip)
		w := peer.repo.NewWriter()
		b, _ := w.Blob([]byte("x"))
		inner, _ := w.Tree([]gitstore.TreeEntry{{Name: "passwd", Mode: gitstore.ModeRegular, Hash: b}})
		evil, _ := w.Tree([]gitstore.TreeEntry{{Name: "..", Mode: gitstore.ModeDir, Hash: inner}})
		ed := peer.repo.NewTreeEditor(c.TreeHash)
		ed.Set("files/x", gitstore.ModeDir, evil)
		tree, _ := ed.Write(w)
		nc, _ := w.Commit(gitstore.CommitSpec{Tree: tree, Parents: []gitstore.Hash{tip}, Author: gitstore.Signature{Name: "e", Email: "e@example.invalid"}, Message: "evil\n"})
		w.Flush()
		peer.Git("push", "-q", "--force", "origin", nc.String()+":"+RemoteRef)
		victim.Git("update-ref", "-d", TrackingRef("origin"))
		if _, err := Fetch(victim.repo, "origin"); err == nil {
			t.Fatal("a tree with a .. entry was accepted")
		}
		if got := victim.Git("rev-parse", "refs/konteks"); got != before {
			t.Fatal("local memory changed")
		}
	})
	t.Run("huge tree", func(t *testing.T) {
		old := MaxTreeEntries
		MaxTreeEntries = 3
		defer func() { MaxTreeEntries = old }()
		publish("durable/diary/00/000000000000000000a0", []byte("{}"))
		victim.Git("update-ref", "-d", TrackingRef("origin"))
		if _, err := Fetch(victim.repo, "origin"); err == nil || !strings.Contains(err.Error(), "more than 3 entries") {
			t.Fatalf("huge tree: %v", err)
		}
	})
}

// TestThreeClonesNeverLoseMemories runs random sequences of remember,
// forget, extract, commit, push, fetch and sync in three clones against one
// remote. After a final sync of all three, each holds exactly the union of
// what was saved, minus what was forgotten.
func TestThreeClonesNeverLoseMemories(t *testing.T) {
	testgit.Setenv(t)
	remote, _ := bareRemote(t)
	clones := []*clone{newClone(t, remote, "a"), newClone(t, remote, "b"), newClone(t, remote, "c")}
	// One person on three clones: their signatures vouch for the
	// tombstones each clone writes for the others' copies.
	trustEachOther(t, clones...)
	const keep = 2 // squash often
	for _, c := range clones {
		c.Git("config", "konteks.history.keep", fmt.Sprint(keep))
		if _, err := ConfigureRemote(c.repo, "origin"); err != nil {
			t.Fatal(err)
		}
	}
	seed := time.Now().UnixNano()
	if s := os.Getenv("KONTEKS_TEST_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	rng := rand.New(rand.NewSource(seed))
	t.Logf("seed %d (KONTEKS_TEST_SEED to replay)", seed)
	ctx := context.Background()
	saved := map[string]bool{}
	forgotten := map[string]bool{}
	// A short run here; `make soak` runs it for minutes.
	budget, soaking := testgit.Soak(t, 8*time.Second)
	deadline := time.Now().Add(budget)
	rounds := 0
	for ; (soaking || rounds < 300) && time.Now().Before(deadline); rounds++ {
		c := clones[rng.Intn(len(clones))]
		switch op := rng.Intn(8); op {
		case 0, 1:
			it := mustSave(t, c, fmt.Sprintf("memory number %d saved by clone %s in round %d", len(saved), c.name, rounds))
			saved[it.ID] = true
		case 2:
			live, _ := liveIDs(t, c)
			if len(live) == 0 {
				continue
			}
			id := live[rng.Intn(len(live))]
			if _, err := durable.Forget(c.repo, id, "round "+fmt.Sprint(rounds)); err != nil {
				t.Fatalf("round %d forget: %v", rounds, err)
			}
			forgotten[id] = true
		case 3:
			if _, err := extract.Run(ctx, c.repo, extract.Options{}); err != nil {
				t.Fatalf("round %d extract: %v", rounds, err)
			}
		case 4:
			c.Write(c.name+".txt", fmt.Sprintf("round %d\n", rounds))
			c.Commit("work in " + c.name)
		case 5:
			if _, err := Push(c.repo, "origin"); err != nil && !strings.Contains(err.Error(), "no memory to push") {
				t.Fatalf("round %d push: %v", rounds, err)
			}
		case 6:
			if _, err := Fetch(c.repo, "origin"); err != nil {
				t.Fatalf("round %d fetch: %v", rounds, err)
			}
		case 7:
			// Plain git, as the hooks see it: fetch, then merge tracking.
			c.Git("fetch", "-q", "origin")
			if err := c.repo.Reload(); err != nil {
				t.Fatal(err)
			}
			if _, err := MergeTracking(c.repo); err != nil {
				t.Fatalf("round %d merge after git fetch: %v", rounds, err)
			}
		}
	}
	// Final sync of all three, round after round until one in which no
	// clone pushes: then everyone holds the remote's tip. Two rounds are
	// not always enough: a push that squashes the chain rewrites it, and
	// a clone that pushed before must merge the rewritten chain and push
	// once more.
	bare := testgit.At(t, remote)
	for pass := 0; ; pass++ {
		if pass == 5 {
			t.Fatalf("the clones still push after %d rounds of sync with nothing new", pass)
		}
		moved := false
		for _, c := range clones {
			if _, err := Fetch(c.repo, "origin"); err != nil {
				t.Fatal(err)
			}
			before := bare.Git("rev-parse", RemoteRef)
			if _, err := Push(c.repo, "origin"); err != nil && !strings.Contains(err.Error(), "no memory to push") {
				t.Fatal(err)
			}
			moved = moved || bare.Git("rev-parse", RemoteRef) != before
		}
		if !moved {
			break
		}
	}
	var wantLive, wantAll []string
	for id := range saved {
		wantAll = append(wantAll, id)
		if !forgotten[id] {
			wantLive = append(wantLive, id)
		}
	}
	sort.Strings(wantLive)
	sort.Strings(wantAll)
	for _, c := range clones {
		live, all := liveIDs(t, c)
		if strings.Join(all, ",") != strings.Join(wantAll, ",") {
			t.Fatalf("clone %s holds %d entries, want %d: a saved memory was lost", c.name, len(all), len(wantAll))
		}
		if strings.Join(live, ",") != strings.Join(wantLive, ",") {
			t.Fatalf("clone %s has %d live memories, want %d", c.name, len(live), len(wantLive))
		}
	}
	// History stays bounded: the shared chain holds at most keep commits
	// on its first-parent line, and each clone at most that plus the
	// merges and the one local commit on top.
	if d, err := memref.Depth(clones[0].repo, gitstore.ParseHash(bare.Git("rev-parse", RemoteRef)), 100); err != nil || d > keep {
		t.Fatalf("shared chain is %d commits deep (keep %d): %v", d, keep, err)
	}
	for _, c := range clones {
		var n int
		fmt.Sscan(c.Git("rev-list", "--count", "refs/konteks"), &n)
		if n > 2*keep+2 {
			t.Fatalf("clone %s's memory reaches %d commits (keep %d)", c.name, n, keep)
		}
	}
	t.Logf("%d rounds, %d memories saved, %d forgotten; all three clones agree", rounds, len(saved), len(forgotten))
}
