package history

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/manifest"
	"github.com/konteks/git-konteks/memref"
)

// generated scripts a history with what rename detection and line counts
// must get right: exact and inexact renames, a rename among several
// identical files, copies, a file moved and another added in one commit,
// binary files, symlinks, mode and type changes, formatting commits,
// deletions, and merges of a branch that renamed files.
func generated(t *testing.T) *testgit.Repo {
	testgit.Setenv(t)
	r := testgit.New(t)
	when := int64(1700000000)
	commit := func(msg string) {
		when += 3600
		r.Git("add", "-A")
		r.Git("commit", "-q", "--allow-empty", "-m", msg, fmt.Sprintf("--date=@%d", when))
	}
	body := func(name string, n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "line %d of %s: %s\n", i, name, strings.Repeat("x", i%7))
		}
		return b.String()
	}
	r.Write("src/parser.go", body("parser", 40))
	r.Write("src/lexer.go", body("lexer", 30))
	r.Write("docs/guide.md", "# Guide\n\n"+body("guide", 20))
	r.Write("same/a.txt", "identical\n")
	r.Write("same/b.txt", "identical\n")
	r.Write("img/logo.png", "\x89PNG\r\n\x1a\n\x00\x00binary\x00data")
	r.Write("run.sh", "#!/bin/sh\necho run\n")
	commit("Add the parser, the lexer and the guide")
	r.Write("src/parser.go", body("parser", 45))
	r.Write("img/logo.png", "\x89PNG\r\n\x1a\n\x00\x01other\x00bytes")
	commit("Parse longer inputs and a new logo")
	r.Git("mv", "src/lexer.go", "src/scan.go")
	commit("Rename the lexer to scan")
	r.Git("mv", "src/parser.go", "src/parse.go")
	r.Write("src/parse.go", body("parser", 45)+"// tail\n")
	r.Write("src/extra.go", body("extra", 10))
	commit("Move the parser and add extra")
	r.Git("mv", "same/a.txt", "same/c.txt")
	commit("Rename one of two identical files")
	r.Git("rm", "-q", "same/b.txt", "same/c.txt")
	r.Write("same/d.txt", "identical\n")
	r.Write("same/e.txt", "identical\n")
	commit("Two identical files replace two others")
	r.Write("docs/copy.md", "# Guide\n\n"+body("guide", 20))
	commit("Copy the guide")
	r.Git("checkout", "-q", "-b", "side")
	r.Git("mv", "docs/guide.md", "docs/manual.md")
	r.Write("docs/manual.md", "# Manual\n\n"+body("guide", 21))
	commit("Side: the guide becomes the manual")
	r.Write("src/side.go", body("side", 5))
	commit("Side: a file")
	r.Git("checkout", "-q", "main")
	r.Write("src/scan.go", body("lexer", 31))
	commit("Scan one more line")
	when += 3600
	r.Git("merge", "-q", "--no-ff", "-m", "Merge the side branch", "side")
	r.Write("src/scan.go", strings.ReplaceAll(body("lexer", 31), ": ", ":  "))
	commit("gofmt: reformat scan")
	r.Write("src/extra.go", body("extra", 12))
	commit("gofmt the extra file and grow it")
	r.Git("update-index", "--chmod=+x", "run.sh")
	commit("Make run.sh executable")
	r.Remove("run.sh")
	if err := os.Symlink("src/parse.go", r.Dir+"/run.sh"); err != nil {
		t.Skip(err)
	}
	commit("run.sh becomes a link")
	r.Git("mv", "img/logo.png", "img/mark.png")
	commit("Rename the binary logo")
	r.Remove("docs/copy.md")
	commit("Delete the copy")
	r.Git("mv", "src/scan.go", "src/tokens.go")
	r.Write("src/tokens.go", body("lexer", 31)+"// more\n// and more\n")
	r.Git("mv", "src/parse.go", "src/grammar.go")
	commit("Rename scan and parse together, both edited")
	return r
}

// reference walks history as it was walked before trees-only walks: one
// `git log -M --numstat`, every record complete. A commit whose line
// counts git cannot make (a blob missing from the object store) is diffed
// for renames alone, and one it cannot diff at all keeps its trees-only
// record, as the walk does.
func reference(t *testing.T, repo *gitstore.Repo, source gitstore.Hash) *History {
	t.Helper()
	var lcs []*gitstore.LogCommit
	err := repo.Log(context.Background(), gitstore.LogOptions{Include: []gitstore.Hash{source}, TreesOnly: true}, func(lc *gitstore.LogCommit) error {
		pairRenames(lc)
		lcs = append(lcs, lc)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	full := map[gitstore.Hash]*gitstore.LogCommit{}
	hs := make([]gitstore.Hash, len(lcs))
	for i, lc := range lcs {
		hs[i] = lc.Hash
	}
	if err := diffEach(context.Background(), repo, hs, true, nil, func(lc *gitstore.LogCommit) error {
		full[lc.Hash] = lc
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var uncounted []gitstore.Hash
	for _, h := range hs {
		if full[h] == nil {
			uncounted = append(uncounted, h)
		}
	}
	if err := diffEach(context.Background(), repo, uncounted, false, nil, func(lc *gitstore.LogCommit) error {
		full[lc.Hash] = lc
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var cs []Commit
	for _, lc := range lcs {
		if f := full[lc.Hash]; f != nil && (len(f.Changes) > 0 || len(lc.Changes) == 0) {
			lc = f
		}
		cs = append(cs, FromLog(lc))
	}
	for i, j := 0, len(cs)-1; i < j; i, j = i+1, j-1 {
		cs[i], cs[j] = cs[j], cs[i]
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].Time < cs[j].Time })
	return &History{Commits: cs}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTreesOnlyWalkAnswersAsBefore: records walked from trees, with line
// counts made when shown, give the answers of the complete walk, for every
// file, line ranges and questions.
func TestTreesOnlyWalkAnswersAsBefore(t *testing.T) {
	r := generated(t)
	repo := open(t, r)
	head, err := repo.Resolve("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	ref := reference(t, repo, head.Hash)
	root, _ := update(t, repo, gitstore.ZeroHash, "HEAD", defaults)
	h, err := Load(repo, root)
	if err != nil {
		t.Fatal(err)
	}
	// The records, line counts filled in, are the complete walk's.
	sameRecords(t, repo, h, ref)
	// Answers: why for every path any commit touched, for line ranges,
	// and history for questions.
	paths := map[string]bool{}
	for _, c := range ref.Commits {
		for _, ch := range c.Changes {
			paths[ch.Path] = true
			if ch.Old != "" {
				paths[ch.Old] = true
			}
		}
	}
	var targets []Target
	for p := range paths {
		targets = append(targets, Target{Path: p})
	}
	for _, p := range []string{"src/tokens.go", "src/grammar.go", "docs/manual.md", "src/extra.go"} {
		targets = append(targets, Target{Path: p, Start: 1, End: 8}, Target{Path: p, Start: 5, End: 5})
	}
	sameAnswers(t, repo, head.Hash, root, ref, targets, []string{"rename", "parser", "guide manual", "logo", "gofmt", "side branch", "identical files", "link"})
}

// sameRecords fails unless the records of h, line counts filled in, are
// those of the complete walk ref.
func sameRecords(t *testing.T, repo *gitstore.Repo, h *History, ref *History) {
	t.Helper()
	got := withLines(t, repo, h)
	if len(got) != len(ref.Commits) {
		t.Fatalf("%d commits, the complete walk has %d", len(got), len(ref.Commits))
	}
	for i := range got {
		if a, b := jsonOf(t, got[i]), jsonOf(t, ref.Commits[i]); a != b {
			t.Fatalf("commit %d differs:\ntrees-only: %s\ncomplete:   %s", i, a, b)
		}
	}
}

// sameAnswers fails unless why for each target and history for each
// question give the same answers from the history tree root as from the
// complete walk ref.
func sameAnswers(t *testing.T, repo *gitstore.Repo, source, root gitstore.Hash, ref *History, targets []Target, questions []string) {
	t.Helper()
	refRoot := storeReference(t, repo, ref)
	mem := &memref.Memory{Tree: root, Manifest: &manifest.Manifest{SourceCommit: source.String()}}
	refMem := &memref.Memory{Tree: refRoot, Manifest: mem.Manifest}
	sort.Slice(targets, func(i, j int) bool { return fmt.Sprint(targets[i]) < fmt.Sprint(targets[j]) })
	for _, tg := range targets {
		a, errA := Why(context.Background(), repo, mem, tg, 10)
		b, errB := Why(context.Background(), repo, refMem, tg, 10)
		if fmt.Sprint(errA) != fmt.Sprint(errB) {
			t.Fatalf("why %v: error %v, before %v", tg, errA, errB)
		}
		if errA == nil && (jsonOf(t, a) != jsonOf(t, b) || a.Text() != b.Text()) {
			t.Fatalf("why %v:\n%s\nbefore:\n%s", tg, a.Text(), b.Text())
		}
	}
	for _, q := range questions {
		a, errA := Ask(repo, mem, q, 10, 20)
		b, errB := Ask(repo, refMem, q, 10, 20)
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		if jsonOf(t, a) != jsonOf(t, b) || a.Text() != b.Text() {
			t.Fatalf("history %q:\n%s\nbefore:\n%s", q, a.Text(), b.Text())
		}
	}
}

// TestTreesOnlyWalkOnARealRepository compares as above on a real
// repository (KONTEKS_HISTORY_COMPARE=DIR, a git directory; `make
// bench-history` sets it): every record of its whole history, why for 200
// files (50 of them with a line range) and history for 50 questions made
// of words of its commit subjects. Skipped without the variable: it reads
// the whole history twice.
func TestTreesOnlyWalkOnARealRepository(t *testing.T) {
	dir := os.Getenv("KONTEKS_HISTORY_COMPARE")
	if dir == "" {
		t.Skip("set KONTEKS_HISTORY_COMPARE to a repository's git directory")
	}
	testgit.Setenv(t)
	recentCommits = 1 << 30 // the first walk records everything
	defer func() { recentCommits = RecentCommits }()
	// A clone sharing its objects: the memory written goes into the
	// clone, never into the repository compared.
	clone := t.TempDir() + "/repo.git"
	if out, err := exec.Command("git", "clone", "-q", "--bare", "--shared", dir, clone).CombinedOutput(); err != nil {
		t.Fatalf("clone %s: %v\n%s", dir, err, out)
	}
	repo, err := gitstore.Open(clone)
	if err != nil {
		t.Fatal(err)
	}
	head, err := repo.Resolve("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	ref := reference(t, repo, head.Hash)
	t1 := time.Now()
	root, res := update(t, repo, gitstore.ZeroHash, "HEAD", defaults)
	t.Logf("%d commits: the complete walk %v, the trees-only walk %v", res.Total, t1.Sub(t0), time.Since(t1))
	h, err := Load(repo, root)
	if err != nil {
		t.Fatal(err)
	}
	sameRecords(t, repo, h, ref)
	rnd := rand.New(rand.NewSource(1))
	var paths []string
	seen := map[string]bool{}
	for _, c := range ref.Commits {
		for _, ch := range c.Changes {
			if !seen[ch.Path] {
				seen[ch.Path] = true
				paths = append(paths, ch.Path)
			}
		}
	}
	sort.Strings(paths)
	rnd.Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
	var targets []Target
	for i, p := range paths[:min(200, len(paths))] {
		tg := Target{Path: p}
		if i < 50 {
			tg.Start, tg.End = 1+rnd.Intn(40), 41+rnd.Intn(40)
		}
		targets = append(targets, tg)
	}
	var questions []string
	for len(questions) < 50 {
		words := strings.Fields(ref.Commits[rnd.Intn(len(ref.Commits))].Subject)
		if len(words) < 2 {
			continue
		}
		i := rnd.Intn(len(words) - 1)
		questions = append(questions, words[i]+" "+words[i+1])
	}
	sameAnswers(t, repo, head.Hash, root, ref, targets, questions)
}

// storeReference writes complete records as a history tree, so that the
// reference answers come from the same Why and Ask.
func storeReference(t *testing.T, repo *gitstore.Repo, ref *History) gitstore.Hash {
	t.Helper()
	ed := repo.NewTreeEditor(gitstore.ZeroHash)
	w := repo.NewWriter()
	st := &State{Version: Version, Commits: len(ref.Commits), Config: defaults}
	cs := ref.Commits
	for len(cs) > tailMax {
		n := min(len(cs), segmentMax)
		b, err := encodeCommits(cs[:n])
		if err != nil {
			t.Fatal(err)
		}
		if err := setBlob(ed, w, SegmentPath(st.NextSeq), b); err != nil {
			t.Fatal(err)
		}
		st.Segments = append(st.Segments, Segment{Seq: st.NextSeq, Commits: n})
		st.NextSeq++
		cs = cs[n:]
	}
	b, err := encodeCommits(cs)
	if err != nil {
		t.Fatal(err)
	}
	if err := setBlob(ed, w, TailPath, b); err != nil {
		t.Fatal(err)
	}
	st.Tail = len(cs)
	if err := writeState(ed, w, st); err != nil {
		t.Fatal(err)
	}
	root, err := ed.Write(w)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return root
}

// TestBackfillResumes: a first walk records recent history and leaves
// the rest to Backfill; interrupted at random points and resumed, the
// backfill makes the same history memory as one uninterrupted.
func TestBackfillResumes(t *testing.T) {
	tailMax, segmentMax, recentCommits, backChunk = 4, 3, 5, 6
	defer func() {
		tailMax, segmentMax, recentCommits, backChunk = TailMax, SegmentMax, RecentCommits, BackChunk
	}()
	r := generated(t)
	for i := 0; i < 20; i++ {
		r.Write(fmt.Sprintf("more/%d.txt", i%4), fmt.Sprint(i))
		r.Commit(fmt.Sprintf("More work %d", i))
	}
	repo := open(t, r)
	want := strings.Count(r.Git("rev-list", "HEAD"), "\n") + 1
	// All commits share one date here but those of generated: the age
	// bound cuts at the recent count.
	first, res := update(t, repo, gitstore.ZeroHash, "HEAD", defaults)
	if !res.Pending || res.Total >= want || res.Total < recentCommits {
		t.Fatalf("first walk: %+v of %d", res, want)
	}
	step := func(root gitstore.Hash, ctx context.Context) (gitstore.Hash, *Result, error) {
		ed := repo.NewTreeEditor(root)
		w := repo.NewWriter()
		res, err := Backfill(ctx, repo, ed, w, defaults, nil)
		if err != nil {
			return root, nil, err
		}
		nr, err := ed.Write(w)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		return nr, res, nil
	}
	// One uninterrupted backfill: one walk, its chunks taken in turn.
	putBackStream(nil)
	starts := backStarts
	whole := first
	for steps := 0; ; steps++ {
		var res *Result
		var err error
		if whole, res, err = step(whole, context.Background()); err != nil {
			t.Fatal(err)
		}
		if !res.Pending {
			if res.Total != want {
				t.Fatalf("backfill recorded %d of %d", res.Total, want)
			}
			break
		}
		if steps > 20 {
			t.Fatal("backfill does not end")
		}
	}
	if n := backStarts - starts; n != 1 {
		t.Errorf("an uninterrupted backfill started %d walks, want 1", n)
	}
	wantTree, _, _, _ := repo.Lookup(whole, Dir)
	// Interrupted: contexts that expire at random moments; an interrupted
	// step leaves the memory it started from.
	rng := rand.New(rand.NewSource(7))
	for trial := 0; trial < 3; trial++ {
		root := first
		for steps := 0; ; steps++ {
			ctx, cancel := context.WithCancel(context.Background())
			if rng.Intn(3) > 0 {
				time.AfterFunc(time.Duration(rng.Intn(8000))*time.Microsecond, cancel)
			}
			nr, res, err := step(root, ctx)
			cancel()
			if err != nil {
				continue // interrupted: resume from root
			}
			root = nr
			if !res.Pending {
				break
			}
			if steps > 200 {
				t.Fatal("backfill does not end")
			}
		}
		gotTree, _, _, _ := repo.Lookup(root, Dir)
		if gotTree != wantTree {
			t.Fatalf("trial %d: interrupted backfill made history %s, uninterrupted %s", trial, gotTree, wantTree)
		}
	}
	// The complete history is what one full walk records.
	h, err := Load(repo, whole)
	if err != nil {
		t.Fatal(err)
	}
	ref := reference(t, repo, gitstore.ParseHash(r.Git("rev-parse", "HEAD")))
	if len(h.Commits) != len(ref.Commits) {
		t.Fatalf("%d commits, want %d", len(h.Commits), len(ref.Commits))
	}
	seen := map[string]bool{}
	for _, c := range h.Commits {
		if seen[c.Hash] {
			t.Fatalf("%s recorded twice", c.Hash)
		}
		seen[c.Hash] = true
	}
	// New commits after the backfill are appended as usual.
	r.Write("late.txt", "late")
	r.Commit("Late work")
	_, res = update(t, repo, whole, "HEAD", defaults)
	if res.New != 1 || res.Total != want+1 || res.Pending {
		t.Fatalf("after the backfill: %+v", res)
	}
}

// TestDeepenedShallowClone: after `git fetch --deepen` or `--unshallow`,
// the next ordinary update records the history the clone gained, and the
// old boundary commit gets its changes.
func TestDeepenedShallowClone(t *testing.T) {
	r, clone, repo, root := shallowClone(t)
	shallowFile, err := os.ReadFile(clone.Dir + "/.git/shallow")
	if err != nil {
		t.Fatal(err)
	}
	boundaries := strings.Fields(string(shallowFile))
	clone.Git("fetch", "-q", "--deepen", "3")
	root, res := update(t, repo, root, "HEAD", defaults)
	if want := strings.Count(clone.Git("rev-list", "HEAD"), "\n") + 1; res.Total != want || want <= 2 {
		t.Fatalf("deepened by 3: %d commits recorded, the clone has %d", res.Total, want)
	}
	h, _ := Load(repo, root)
	for _, b := range boundaries {
		if c, ok := h.ByHash(b); !ok || c.Has(FlagShallow) || len(c.Parents) == 1 && len(c.Changes) == 0 {
			t.Fatalf("the old boundary: %+v", c)
		}
	}
	clone.Git("fetch", "-q", "--unshallow")
	root, res = update(t, repo, root, "HEAD", defaults)
	if want := strings.Count(r.Git("rev-list", "HEAD"), "\n") + 1; res.Total != want {
		t.Fatalf("unshallowed: %d of %d commits", res.Total, want)
	}
	h, _ = Load(repo, root)
	for _, c := range h.Commits {
		if c.Has(FlagShallow) {
			t.Fatalf("a boundary remains: %+v", c)
		}
	}
	// Nothing changed since: nothing walked.
	if _, res = update(t, repo, root, "HEAD", defaults); res.New != 0 {
		t.Fatalf("rewalked without a change: %+v", res)
	}
}

// TestOlderFormatRewalked: history memory of format version 1 is walked
// anew by the next update.
func TestOlderFormatRewalked(t *testing.T) {
	r := fixture(t)
	repo := open(t, r)
	ed := repo.NewTreeEditor(gitstore.ZeroHash)
	w := repo.NewWriter()
	old := Commit{Hash: strings.Repeat("a", 40), Subject: "old", Weight: 1, Changes: []Change{{Path: "x", Kind: "M", Add: -1, Del: -1}}}
	b, err := encodeCommits([]Commit{old})
	if err != nil {
		t.Fatal(err)
	}
	if err := setBlob(ed, w, TailPath, b); err != nil {
		t.Fatal(err)
	}
	head := r.Git("rev-parse", "HEAD")
	if err := setBlob(ed, w, StatePath, []byte(`{"version":1,"tips":["`+head+`"],"commits":1,"tail":1,"next_seq":0,"config":{"max":200000}}`)); err != nil {
		t.Fatal(err)
	}
	v1, err := ed.Write(w)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(repo, v1); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "version 1") {
		t.Fatalf("version 1 read as current: %v", err)
	}
	root, res := update(t, repo, v1, "HEAD", defaults)
	if want := strings.Count(r.Git("rev-list", "HEAD"), "\n") + 1; res.Total != want || res.New != want {
		t.Fatalf("version 1 not rewalked: %+v", res)
	}
	h, err := Load(repo, root)
	if err != nil || h.State.Version != Version {
		t.Fatalf("after the rewalk: %v", err)
	}
	if _, ok := h.ByHash(old.Hash); ok {
		t.Fatal("a version 1 record survived")
	}
}

// TestReachNote: answers say how far back history reaches while older
// history is still being recorded, and nothing once it is complete.
func TestReachNote(t *testing.T) {
	r := fixture(t)
	repo := open(t, r)
	root, _ := update(t, repo, gitstore.ZeroHash, "HEAD", defaults)
	m := &memref.Memory{Tree: root, Manifest: &manifest.Manifest{SourceCommit: r.Git("rev-parse", "HEAD"),
		History: &manifest.History{Commits: 4, Pending: true, Oldest: 1767323045}}}
	ask, err := Ask(repo, m, "helper", 3, 5)
	if err != nil {
		t.Fatal(err)
	}
	want := "history covers the newest 4 commits, back to 2026-01-02; older history is still being recorded"
	if len(ask.Notes) != 1 || ask.Notes[0] != want || !strings.Contains(ask.Text(), "note: "+want) {
		t.Fatalf("notes while pending: %q\n%s", ask.Notes, ask.Text())
	}
	m.Manifest.History.Pending = false
	if ask, _ = Ask(repo, m, "helper", 3, 5); len(ask.Notes) != 0 {
		t.Fatalf("notes once complete: %q", ask.Notes)
	}
}
