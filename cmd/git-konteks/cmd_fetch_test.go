package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/index"
	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
	"github.com/konteks/git-konteks/recall"
	"github.com/konteks/git-konteks/share"
)

// publishRecord commits the memory of the clone in dir with the record of
// path replaced by blob, signed as that clone signs, and pushes it as the
// shared memory.
func publishRecord(t *testing.T, dir, path string, blob []byte) gitstore.Hash {
	t.Helper()
	return publishRecords(t, dir, []string{path}, blob)
}

// publishRecords is publishRecord for several paths naming one blob.
func publishRecords(t *testing.T, dir string, paths []string, blob []byte) gitstore.Hash {
	t.Helper()
	repo, err := gitstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	tip, err := repo.ReadRef(memory.Ref)
	if err != nil {
		t.Fatal(err)
	}
	c, err := repo.Commit(tip)
	if err != nil {
		t.Fatal(err)
	}
	w := repo.NewWriter()
	ed := repo.NewTreeEditor(c.TreeHash)
	h, err := w.Blob(blob)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if err := ed.Set(memory.FilePath(p), gitstore.ModeRegular, h); err != nil {
			t.Fatal(err)
		}
	}
	tree, err := ed.Write(w)
	if err != nil {
		t.Fatal(err)
	}
	nc, err := w.Commit(gitstore.CommitSpec{Tree: tree, Parents: []gitstore.Hash{tip}, Author: repo.Identity(), Message: "konteks: memory\n"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	testgit.At(t, dir).Git("push", "-q", "--force", "origin", nc.String()+":"+share.RemoteRef)
	return nc
}

// recordWith is the encoded record of main.go in the memory of the clone
// in dir, its first section's text replaced by content.
func recordWith(t *testing.T, dir, content string) []byte {
	t.Helper()
	repo, err := gitstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := memref.Read(repo, memory.Ref)
	if err != nil {
		t.Fatal(err)
	}
	rec, ok, err := memref.Record(repo, m.Tree, "main.go")
	if err != nil || !ok {
		t.Fatalf("record of main.go: %v %v", ok, err)
	}
	rec.Sections[0].Content = content
	b, err := memory.EncodeFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// currentGeneration is the index generation "current" names ("" when
// there is none).
func currentGeneration(t *testing.T, dir string) string {
	t.Helper()
	repo, err := gitstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	idir, err := index.Dir(repo)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(idir, "current"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// TestTeammateFetchBuildsTheIndexOnce: a teammate's first `git konteks
// fetch` of memory signed by a trusted signer checks the records by
// building the search index from them before adopting them (one decoding
// of each, share.Indexer): the index is current when the fetch returns.
// A record that does not decode, or records over the read budget (each
// path the index decodes charged), refuse the memory on that path too,
// leaving no memory and no index of theirs.
func TestTeammateFetchBuildsTheIndexOnce(t *testing.T) {
	remote, _ := teamRemote(t)
	a := cloneOf(t, remote, "a")
	key, allowed := sshKey(t, "author@example.invalid")
	a.Git("config", "konteks.sign", "true")
	a.Git("config", "user.signingkey", key)
	run(t, a.Dir, "init", "--no-hooks") // extracts, signed
	run(t, a.Dir, "push")
	mate := func(name string) string {
		b := cloneOf(t, remote, name)
		b.Git("config", "konteks.trust", allowed)
		return b.Dir
	}

	t.Run("good records", func(t *testing.T) {
		dir := mate("good")
		out := run(t, dir, "fetch")
		if !strings.Contains(out, ": adopted") {
			t.Fatalf("fetch: %s", out)
		}
		repo, err := gitstore.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		how, err := recall.UpdateIndex(context.Background(), repo, index.Options{})
		if err != nil || how != "current" {
			t.Fatalf("the index after the fetch: %q %v", how, err)
		}
		if got := run(t, dir, "recall", "where are requests answered"); !strings.Contains(got, "main.go") {
			t.Fatalf("recall after the fetch:\n%s", got)
		}
	})

	t.Run("progress on a terminal", func(t *testing.T) {
		// The history's check and the index build are the longest parts
		// of a first fetch: a terminal sees them count, and the line is
		// cleared after.
		dir := mate("terminal")
		var out, errb strings.Builder
		g := &GlobalOptions{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: os.Getenv,
			Executable: binary, StderrTerminal: func() bool { return true }}
		if code := g.run(context.Background(), []string{"-C", dir, "fetch"}); code != 0 {
			t.Fatalf("fetch: %d %s", code, errb.String())
		}
		e := errb.String()
		if !strings.Contains(e, "history: ") || !strings.Contains(e, " commits") ||
			!strings.Contains(e, "search index: ") || !strings.Contains(e, " files") || !strings.HasSuffix(e, "\r\033[K") {
			t.Fatalf("no progress of the history's check and the index, or not cleared: %q", e)
		}
		if !strings.Contains(out.String(), ": adopted") {
			t.Fatalf("fetch: %s", out.String())
		}
		errb.Reset()
		g = &GlobalOptions{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: os.Getenv,
			Executable: binary, StderrTerminal: func() bool { return true }}
		if code := g.run(context.Background(), []string{"-C", mate("terminal-json"), "fetch", "--json"}); code != 0 || errb.Len() > 0 {
			t.Fatalf("--json fetch drew progress: %d %q", code, errb.String())
		}
	})

	t.Run("a record that does not decode", func(t *testing.T) {
		publishRecord(t, a.Dir, "zz.go", []byte("not a record"))
		dir := mate("broken")
		_, errOut, err := tryRun(dir, nil, "fetch")
		if err == nil || !strings.Contains(errOut, "record of zz.go") {
			t.Fatalf("a broken record was not refused: %v %s", err, errOut)
		}
		b := testgit.At(t, dir)
		if h, _ := b.TryGit("rev-parse", "-q", "--verify", "refs/konteks"); h != "" {
			t.Fatalf("memory adopted: %s", h)
		}
		if g := currentGeneration(t, dir); g != "" {
			t.Fatalf("an index of refused memory is current: %s", g)
		}
	})

	t.Run("one record behind many paths", func(t *testing.T) {
		// The index decodes a record once for each path that names it,
		// and each is charged: 5 paths of one 4 KiB record against 12 KiB
		// (decoding each blob once to check it, 4 KiB, would pass).
		defer func(m, p int64) { share.MaxDecoded, share.DecodedPerByte = m, p }(share.MaxDecoded, share.DecodedPerByte)
		share.MaxDecoded, share.DecodedPerByte = 12<<10, 0
		big := recordWith(t, a.Dir, strings.Repeat("x", 4<<10))
		paths := []string{"p1.go", "p2.go", "p3.go", "p4.go", "p5.go"}
		publishRecords(t, a.Dir, paths, big)
		dir := mate("many")
		_, errOut, err := tryRun(dir, nil, "fetch")
		if err == nil || !strings.Contains(errOut, "read budget") {
			t.Fatalf("records over the budget were not refused: %v %s", err, errOut)
		}
		if g := currentGeneration(t, dir); g != "" {
			t.Fatalf("an index of refused memory is current: %s", g)
		}
	})
}

// TestFirstFetchOverADamagedGenerationIsNotRefused: a clone with no
// records whose index still has a generation of other memory (refs/konteks
// deleted to start over) updates that generation from the diff as the
// check of the records. When the update fails for a reason of ours (its
// docs table is damaged), the records it decoded were charged: building
// from scratch under the same budget charges them again, and memory that
// fits the budget once was refused as over it, for our damaged index.
func TestFirstFetchOverADamagedGenerationIsNotRefused(t *testing.T) {
	remote, _ := teamRemote(t)
	a := cloneOf(t, remote, "a")
	a.Write("util.go", "package main\n\n// Retry retries.\nfunc Retry() {}\n\n// Backoff waits.\nfunc Backoff() {}\n")
	a.Write("docs/guide.md", "# Guide\n\nHow to run the service.\n\n## Deploy\n\nShip it.\n")
	a.Commit("more")
	a.Git("push", "-q", "origin", "HEAD:main")
	key, allowed := sshKey(t, "author@example.invalid")
	a.Git("config", "konteks.sign", "true")
	a.Git("config", "user.signingkey", key)
	run(t, a.Dir, "init", "--no-hooks")
	run(t, a.Dir, "push")
	b := cloneOf(t, remote, "b")
	b.Git("config", "konteks.trust", allowed)
	if out := run(t, b.Dir, "fetch"); !strings.Contains(out, ": adopted") {
		t.Fatalf("fetch: %s", out)
	}
	gen := currentGeneration(t, b.Dir)
	if gen == "" {
		t.Fatal("no index after the first fetch")
	}
	// Start over: no memory, nor their last memory to catch up with.
	b.Git("update-ref", "-d", "refs/konteks")
	b.Git("update-ref", "-d", share.TrackingRef("origin"))
	// Swap the offsets of docs 1 and 2: the header still parses, an
	// update fails writing the merged table (and a build is due).
	repo, err := gitstore.Open(b.Dir)
	if err != nil {
		t.Fatal(err)
	}
	idir, err := index.Dir(repo)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(idir, gen, "docs.bin")
	d, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if n := int(d[4]); n < 3 {
		t.Fatalf("%d docs", n)
	}
	o1, o2 := d[8+4:8+8], d[8+8:8+12]
	x := append([]byte(nil), o1...)
	copy(o1, o2)
	copy(o2, x)
	if err := os.WriteFile(p, d, 0o644); err != nil {
		t.Fatal(err)
	}

	// Their new memory: one more record.
	extra := recordWith(t, a.Dir, strings.Repeat("// Extra is new.\n", 64))
	nc := publishRecord(t, a.Dir, "zz.go", extra)
	ra, err := gitstore.Open(a.Dir)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := ra.Commit(nc)
	if err != nil {
		t.Fatal(err)
	}
	refs, err := memref.Records(ra, tree.TreeHash)
	if err != nil {
		t.Fatal(err)
	}
	// The budget holds every record decoded once, and half of the new
	// one more.
	total, z := int64(0), int64(0)
	for _, r := range refs {
		raw, err := ra.BlobBytes(r.Blob, 0)
		if err != nil {
			t.Fatal(err)
		}
		out, err := memory.Decompress(raw)
		if err != nil {
			t.Fatal(err)
		}
		total += int64(len(out))
		if r.Path == "zz.go" {
			z = int64(len(out))
		}
	}
	defer func(m, p int64) { share.MaxDecoded, share.DecodedPerByte = m, p }(share.MaxDecoded, share.DecodedPerByte)
	share.MaxDecoded, share.DecodedPerByte = total+z/2, 0

	out, errOut, err := tryRun(b.Dir, nil, "fetch")
	if err != nil || !strings.Contains(out, ": adopted") {
		t.Fatalf("memory within its budget refused over a damaged index: %v\n%s%s", err, out, errOut)
	}
	if how, err := recall.UpdateIndex(context.Background(), repo, index.Options{}); err != nil || how != "current" {
		t.Fatalf("the index after the fetch: %q %v", how, err)
	}
}

// TestBackgroundRunIsRecordedBeforeItStarts: a command that leaves work to
// the background runner (a fetch that moved memory, with the hooks
// installed) records the request before it returns, so whoever looks right
// after (the tests' cleanup, `git konteks status`) sees background work
// under way, not nothing while the runner process is still starting.
func TestBackgroundRunIsRecordedBeforeItStarts(t *testing.T) {
	remote, _ := teamRemote(t)
	a := cloneOf(t, remote, "a")
	b := cloneOf(t, remote, "b")
	run(t, a.Dir, "init")
	run(t, a.Dir, "push")
	run(t, b.Dir, "init")
	waitRunners(t, filepath.Dir(b.Dir))
	run(t, a.Dir, "remember", "The staging database is reset every night.")
	run(t, a.Dir, "push")
	out := run(t, b.Dir, "fetch")
	state := filepath.Join(b.Dir, ".git", "konteks")
	_, err := os.Stat(filepath.Join(state, "pending"))
	if err != nil && !lockHolderAlive(filepath.Join(state, "runner.lock")) {
		t.Fatalf("fetch (%s) returned with no request recorded and no runner holding its lock", strings.TrimSpace(out))
	}
}
