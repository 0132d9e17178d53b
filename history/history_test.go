package history

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/mmap"
	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/manifest"
	"github.com/konteks/git-konteks/memref"
	"github.com/konteks/git-konteks/text"
)

// fixture scripts a history: a file with a body and a trailer, an edit, a
// rename with an edit, a bot commit, a formatting commit, a revert, a side
// branch merged with --no-ff, and a message holding a token.
func fixture(t *testing.T) *testgit.Repo {
	testgit.Setenv(t)
	r := testgit.New(t)
	r.Write("a.go", "package a\n\nfunc Parse() {}\n")
	r.Write("util.go", "package a\n\nfunc helper() {}\n")
	r.Git("add", "-A")
	r.Git("commit", "-q", "-m", "Add the parser", "-m", "It reads the config file.\n\nSigned-off-by: Someone <s@example.invalid>")
	r.Write("a.go", "package a\n\n// Parse parses.\nfunc Parse() { helper() }\n")
	r.Write("util.go", "package a\n\nfunc helper() { println() }\n")
	r.Commit("Parse calls the helper for retries")
	r.Git("mv", "a.go", "parser.go")
	r.Write("parser.go", "package a\n\n// Parse parses.\nfunc Parse() { helper() }\n\nfunc Other() {}\n")
	r.Commit("Rename a.go to parser.go")
	r.Write("go.mod", "module a\n\ngo 1.22\n")
	r.Git("add", "-A")
	r.Git("commit", "-q", "--author", "dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>", "-m", "Bump golang.org/x/net from 0.1 to 0.2")
	r.Write("util.go", "package a\n\nfunc helper() {\n\tprintln() }\n")
	r.Commit("gofmt: reformat util.go")
	r.Write("util.go", "package a\n\nfunc helper() {\n\tprintln()\n\tprintln(\"x\")\n}\n")
	bad := r.Commit("Print twice in helper")
	r.Git("revert", "--no-edit", bad)
	r.Git("checkout", "-q", "-b", "side")
	r.Write("side.go", "package a\n")
	r.Commit("Side file for the cache")
	r.Git("checkout", "-q", "main")
	r.Git("merge", "-q", "--no-ff", "-m", "Merge branch side", "side")
	r.Write("README.md", "# a\n")
	r.Commit("Docs; token ghp_" + strings.Repeat("A1b2", 9) + " leaked")
	return r
}

type mem struct {
	repo *gitstore.Repo
	tree gitstore.Hash
}

// update runs Update on top of tree and writes the result.
func update(t *testing.T, repo *gitstore.Repo, tree gitstore.Hash, rev string, cfg Config) (gitstore.Hash, *Result) {
	t.Helper()
	c, err := repo.Resolve(rev)
	if err != nil {
		t.Fatal(err)
	}
	ed := repo.NewTreeEditor(tree)
	w := repo.NewWriter()
	res, err := Update(context.Background(), repo, ed, w, c.Hash, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	root, err := ed.Write(w)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return root, res
}

var defaults = Config{Enabled: true, Max: DefaultMax}

// withLines returns the commits of h with their line counts, as answers
// show them (lineCounts).
func withLines(t *testing.T, repo *gitstore.Repo, h *History) []Commit {
	t.Helper()
	ptrs := make([]*Commit, len(h.Commits))
	for i := range h.Commits {
		ptrs[i] = &h.Commits[i]
	}
	m := lineCounts(context.Background(), repo, ptrs, nil)
	out := make([]Commit, len(h.Commits))
	for i, c := range h.Commits {
		c.Changes = slices.Clone(c.Changes)
		for j := range c.Changes {
			c.Changes[j] = withCounts(c.Changes[j], m[c.Hash])
		}
		out[i] = c
	}
	return out
}

func open(t *testing.T, r *testgit.Repo) *gitstore.Repo {
	repo, err := gitstore.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

func TestRecords(t *testing.T) {
	r := fixture(t)
	repo := open(t, r)
	root, res := update(t, repo, gitstore.ZeroHash, "HEAD", defaults)
	want := strings.Count(r.Git("rev-list", "HEAD"), "\n") + 1
	if res.New != want || res.Total != want {
		t.Fatalf("recorded %+v, want %d commits", res, want)
	}
	h, err := Load(repo, root)
	if err != nil || h == nil {
		t.Fatalf("load: %v", err)
	}
	by := map[string]*Commit{}
	cs := withLines(t, repo, h)
	for i := range cs {
		by[cs[i].Subject] = &cs[i]
	}
	first := by["Add the parser"]
	if first == nil || first.Body != "It reads the config file." || first.Author != "Test Author" || len(first.Changes) != 2 || first.Changes[0].Kind != "A" || first.Changes[0].Add != 3 {
		t.Fatalf("first commit: %+v", first)
	}
	if c := by["Parse calls the helper for retries"]; c == nil || len(c.Changes) != 2 || c.Changes[1].Path != "util.go" || c.Changes[1].Add != 1 || c.Changes[1].Del != 1 {
		t.Fatalf("line counts: %+v", c)
	}
	ren := by["Rename a.go to parser.go"]
	if ren == nil || len(ren.Changes) != 1 || ren.Changes[0].Kind != "R" || ren.Changes[0].Old != "a.go" || ren.Changes[0].Path != "parser.go" || ren.Changes[0].Add != 2 {
		t.Fatalf("rename: %+v", ren)
	}
	if c := by["Bump golang.org/x/net from 0.1 to 0.2"]; c == nil || !c.Has(FlagBot) || c.Weight >= 0.5 {
		t.Fatalf("bot: %+v", c)
	}
	if c := by["gofmt: reformat util.go"]; c == nil || !c.Has(FlagFormat) {
		t.Fatalf("format: %+v", c)
	}
	if c := by[`Revert "Print twice in helper"`]; c == nil || !c.Has(FlagRevert) {
		t.Fatalf("revert: %+v", c)
	}
	if c := by["Merge branch side"]; c == nil || !c.Has(FlagMerge) || len(c.Changes) != 0 || len(c.Parents) != 2 {
		t.Fatalf("merge: %+v", c)
	}
	for _, c := range h.Commits {
		if strings.Contains(c.Subject+c.Body+c.Author+c.Email, "ghp_") {
			t.Fatalf("a token reached memory: %q by %q <%s>", c.Subject, c.Author, c.Email)
		}
	}

	if c := by[withheld]; c == nil || !c.Has(FlagSecret) {
		t.Fatal("the message with a token was not withheld")
	}
	if c := by["Print twice in helper"]; c == nil || c.Has(FlagFormat) || c.Weight != 1 {
		t.Fatalf("ordinary commit: %+v", c)
	}
	// Nothing new: nothing written.
	_, res = update(t, repo, root, "HEAD", defaults)
	if res.New != 0 || res.Written != 0 {
		t.Fatalf("second run: %+v", res)
	}
}

func TestIncrementalAppendAndCompaction(t *testing.T) {
	tailMax, segmentMax = 4, 3
	defer func() { tailMax, segmentMax = TailMax, SegmentMax }()
	r := fixture(t)
	repo := open(t, r)
	r.Git("checkout", "-q", "HEAD~3")
	root, res := update(t, repo, gitstore.ZeroHash, "HEAD", defaults)
	total := res.Total
	if res.Segments == 0 {
		t.Fatalf("first walk made no segments: %+v", res)
	}
	r.Git("checkout", "-q", "main")
	// One new commit: the tail and the state, nothing else.
	for i := 0; i < 3; i++ {
		r.Write("n.txt", fmt.Sprint(i))
		r.Commit(fmt.Sprintf("Note %d", i))
		before := root
		root, res = update(t, repo, root, "HEAD", defaults)
		total = strings.Count(r.Git("rev-list", "HEAD"), "\n") + 1
		if i > 0 && res.New != 1 {
			t.Fatalf("run %d recorded %d commits, want 1", i, res.New)
		}
		if res.Total != total {
			t.Fatalf("run %d: total %d, want %d", i, res.Total, total)
		}
		changed := r.Git("diff-tree", "-r", "--name-only", before.String(), root.String())
		t.Logf("run %d wrote %d objects: %s", i, res.Written, strings.ReplaceAll(changed, "\n", " "))
		if i > 0 && strings.Count(changed, "\n")+1 > 3 {
			t.Fatalf("run %d changed too much: %s", i, changed)
		}
	}
	h, err := Load(repo, root)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Commits) != total || h.State.Tail >= tailMax {
		t.Fatalf("after compaction: %d commits (want %d), tail %d", len(h.Commits), total, h.State.Tail)
	}
	seen := map[string]bool{}
	for _, c := range h.Commits {
		if seen[c.Hash] {
			t.Fatalf("commit %s recorded twice", c.Hash)
		}
		seen[c.Hash] = true
	}
	// A branch switch adds the other branch's commits (union).
	r.Git("checkout", "-q", "-b", "topic", "HEAD~5")
	r.Write("t.txt", "topic")
	r.Commit("Topic work")
	root, res = update(t, repo, root, "HEAD", defaults)
	if res.New != 1 || res.Total != total+1 {
		t.Fatalf("branch switch: %+v", res)
	}
	if h, _ := Load(repo, root); len(h.State.Tips) != 2 {
		t.Fatalf("tips after a branch switch: %v", h.State.Tips)
	}
}

func TestRenameFollowingAndQueries(t *testing.T) {
	r := fixture(t)
	repo := open(t, r)
	root, _ := update(t, repo, gitstore.ZeroHash, "HEAD", defaults)
	h, err := Load(repo, root)
	if err != nil {
		t.Fatal(err)
	}
	var subj []string
	for _, tc := range h.Touched("parser.go") {
		subj = append(subj, tc.Commit.Subject)
	}
	want := []string{"Rename a.go to parser.go", "Parse calls the helper for retries", "Add the parser"}
	if strings.Join(subj, "|") != strings.Join(want, "|") {
		t.Fatalf("touched parser.go: %q", subj)
	}
	if names := h.Names("parser.go"); strings.Join(names, ",") != "parser.go,a.go" {
		t.Fatalf("names: %v", names)
	}
	co := h.CoChanged("parser.go", 20, 5)
	if len(co) == 0 || co[0].Path != "util.go" {
		t.Fatalf("co-change: %+v", co)
	}
	ms := h.Search("retries helper", 3)
	if len(ms) == 0 || ms[0].Commit.Subject != "Parse calls the helper for retries" {
		t.Fatalf("search: %+v", ms)
	}
	head := r.Git("rev-parse", "HEAD")
	m := &memref.Memory{Tree: root, Manifest: &manifest.Manifest{SourceCommit: head}}
	why, err := Why(context.Background(), repo, m, Target{Path: "parser.go"}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if why.Method != "history" || len(why.Commits) != 3 || why.Commits[2].Path != "a.go" {
		t.Fatalf("why parser.go: %+v", why)
	}
	// util.go's formatting commit is skipped.
	why, err = Why(context.Background(), repo, m, Target{Path: "util.go"}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if why.Skipped != 1 {
		t.Fatalf("why util.go skipped %d: %+v", why.Skipped, why)
	}
	for _, c := range why.Commits {
		if strings.HasPrefix(c.Subject, "gofmt") {
			t.Fatalf("formatting commit in why: %+v", why.Commits)
		}
	}
	// Lines: blame, the formatting commit ignored.
	tg, err := ParseTarget("parser.go:6")
	if err != nil || tg.Start != 6 {
		t.Fatalf("parse target: %+v %v", tg, err)
	}
	why, err = Why(context.Background(), repo, m, tg, 10)
	if err != nil {
		t.Fatal(err)
	}
	if why.Method != "blame" || len(why.Commits) != 1 || why.Commits[0].Subject != "Rename a.go to parser.go" {
		t.Fatalf("why parser.go:6: %+v", why)
	}
}

func TestCorruptHistory(t *testing.T) {
	tailMax, segmentMax = 4, 3
	defer func() { tailMax, segmentMax = TailMax, SegmentMax }()
	r := fixture(t)
	repo := open(t, r)
	root, _ := update(t, repo, gitstore.ZeroHash, "HEAD~1", defaults)
	for _, tc := range []struct {
		path, content string
	}{
		{SegmentPath(0), "not zstd"},
		{SegmentPath(0), ""},
		{StatePath, `{"version":2,"commits":-5}`},
		{StatePath, `{"version":2,"tips":["../../x"],"commits":0}`},
		{StatePath, `{"version":2,"commits":0,"pending":{"from":"x","next":5}}`},
		{StatePath, `{"version":1,"commits":0}`},
	} {
		bad := withBlob(t, repo, root, tc.path, tc.content)
		_, err := Load(repo, bad)
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "--mode rebuild") {
			t.Fatalf("%s = %q: load gave %v", tc.path, tc.content, err)
		}
		if err := Check(repo, bad); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("%s = %q: check gave %v", tc.path, tc.content, err)
		}
	}
	// A hostile record: a path that climbs out.
	b := encodeOrDie(t, []Commit{{Hash: strings.Repeat("a", 40), Subject: "x", Weight: 1, Changes: []Change{{Path: "../etc/passwd", Kind: "M"}}}})
	if _, err := decodeForTest(repo, b); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("hostile path accepted: %v", err)
	}
}

// TestCheckKeepsNothing: checking a memory tree's history (what a fetch
// does to a peer's memory before it adopts it) decodes all of it, leaves
// no decoded commit in the process's caches, and leaves the history's
// signals in the local cache for the first recall.
func TestCheckKeepsNothing(t *testing.T) {
	tailMax, segmentMax = 4, 3
	defer func() { tailMax, segmentMax = TailMax, SegmentMax }()
	r := fixture(t)
	repo := open(t, r)
	root, _ := update(t, repo, gitstore.ZeroHash, "HEAD", defaults)
	dropCaches()
	defer dropCaches()
	key, err := dirOf(repo, root)
	if err != nil {
		t.Fatal(err)
	}
	p := signalsPath(repo, key)
	os.Remove(p)
	if err := Check(repo, root); err != nil {
		t.Fatal(err)
	}
	cacheMu.Lock()
	kept := len(cache) + segCacheSize
	cacheMu.Unlock()
	sigMu.Lock()
	kept += len(sigCache)
	sigMu.Unlock()
	if kept != 0 {
		t.Fatalf("check kept %d histories, signals and decoded commits", kept)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("check left no signals for the first recall: %v", err)
	}
	want, err := streamSignals(repo, root, key, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := LoadSignals(repo, root)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("signals read back after check differ (%v)", err)
	}
	if _, err := Load(repo, root); err != nil || segCacheSize == 0 {
		t.Fatalf("load after check: %v, %d commits cached: the test would not see a cache", err, segCacheSize)
	}
}

// withBlob writes the memory tree root with content at path.
func withBlob(t *testing.T, repo *gitstore.Repo, root gitstore.Hash, path, content string) gitstore.Hash {
	t.Helper()
	ed := repo.NewTreeEditor(root)
	w := repo.NewWriter()
	b, _ := w.Blob([]byte(content))
	if err := ed.Set(path, gitstore.ModeRegular, b); err != nil {
		t.Fatal(err)
	}
	out, err := ed.Write(w)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return out
}

// dropCaches empties the process's caches of histories, segments and
// signals, as a new process starts.
func dropCaches() {
	cacheMu.Lock()
	clear(cache)
	clear(segCache)
	segCacheSize = 0
	cacheMu.Unlock()
	sigMu.Lock()
	clear(sigCache)
	sigMu.Unlock()
}

func encodeOrDie(t *testing.T, cs []Commit) []byte {
	b, err := encodeCommits(cs)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decodeForTest(repo *gitstore.Repo, b []byte) ([]Commit, error) {
	w := repo.NewWriter()
	h, _ := w.Blob(b)
	if err := w.Flush(); err != nil {
		return nil, err
	}
	return readCommits(repo, h, "test", 1)
}

func TestConfigBounds(t *testing.T) {
	r := fixture(t)
	repo := open(t, r)
	r.Git("config", "konteks.history.depth", "3")
	cfg, err := ReadConfig(repo)
	if err != nil || cfg.Depth != 3 || !cfg.Enabled || cfg.Max != DefaultMax {
		t.Fatalf("config: %+v %v", cfg, err)
	}
	root, res := update(t, repo, gitstore.ZeroHash, "HEAD", cfg)
	if res.Total != 3 {
		t.Fatalf("depth 3 recorded %d", res.Total)
	}
	// Other bounds rewalk.
	r.Git("config", "konteks.history.depth", "5")
	cfg, _ = ReadConfig(repo)
	root, res = update(t, repo, root, "HEAD", cfg)
	if res.Total != 5 {
		t.Fatalf("depth 5 recorded %d", res.Total)
	}
	r.Git("config", "konteks.history.enabled", "false")
	cfg, _ = ReadConfig(repo)
	root, _ = update(t, repo, root, "HEAD", cfg)
	if h, err := Load(repo, root); h != nil || err != nil {
		t.Fatalf("disabled history still there: %v", err)
	}
	r.Git("config", "konteks.history.max", "lots")
	if _, err := ReadConfig(repo); err == nil || !strings.Contains(err.Error(), "konteks.history.max") {
		t.Fatalf("bad max accepted: %v", err)
	}
}

// shallowClone clones the fixture r two commits deep and records the
// clone's history: its memory tree is root.
func shallowClone(t *testing.T) (r, clone *testgit.Repo, repo *gitstore.Repo, root gitstore.Hash) {
	t.Helper()
	r = fixture(t)
	clone = testgit.At(t, t.TempDir())
	clone.Git("clone", "-q", "--depth", "2", "file://"+r.Dir, ".")
	repo = open(t, clone)
	root, res := update(t, repo, gitstore.ZeroHash, "HEAD", defaults)
	if res.Total != 2 {
		t.Fatalf("shallow clone recorded %d", res.Total)
	}
	return r, clone, repo, root
}

func TestShallowAndEmpty(t *testing.T) {
	_, clone, repo, root := shallowClone(t)
	h, _ := Load(repo, root)
	if c := h.Commits[0]; !c.Has(FlagShallow) || len(c.Changes) != 0 {
		t.Fatalf("boundary commit: %+v", c)
	}
	// why of a file older than the boundary says the clone is shallow.
	m := &memref.Memory{Tree: root, Manifest: &manifest.Manifest{SourceCommit: clone.Git("rev-parse", "HEAD")}}
	why, err := Why(context.Background(), repo, m, Target{Path: "parser.go"}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(why.Commits) != 0 || len(why.Notes) == 0 || !strings.Contains(why.Notes[len(why.Notes)-1], "shallow") {
		t.Fatalf("why in a shallow clone: %+v", why)
	}
	// An empty repository has nothing to walk.
	e := testgit.New(t)
	repo = open(t, e)
	if err := repo.Log(context.Background(), gitstore.LogOptions{}, func(*gitstore.LogCommit) error { return nil }); err != nil {
		t.Fatal(err)
	}
}

// Messages are searched by the search terms of package text: identifier
// parts, stems, no stop words.
func TestSearchTerms(t *testing.T) {
	h := &History{Commits: []Commit{
		{Hash: "1", Subject: "Fix parseHTTPHeader in net_util", Weight: 1},
		{Hash: "2", Subject: "Caching of the headers", Weight: 1},
		{Hash: "3", Subject: "Update the readme", Weight: 1},
	}}
	for q, want := range map[string]string{"http header parsing": "1", "net util": "1", "cached": "2", "the": ""} {
		got := ""
		if m := h.Search(q, 1); len(m) > 0 {
			got = m[0].Commit.Hash
		}
		if got != want {
			t.Errorf("Search(%q) = %q, want %q", q, got, want)
		}
	}
}

func TestMissingBlobs(t *testing.T) {
	r := fixture(t)
	blob := r.Git("rev-parse", "HEAD:util.go")
	if err := os.Remove(filepath.Join(r.Dir, ".git", "objects", blob[:2], blob[2:])); err != nil {
		t.Fatal(err)
	}
	repo := open(t, r)
	root, res := update(t, repo, gitstore.ZeroHash, "HEAD", defaults)
	if want := strings.Count(r.Git("rev-list", "HEAD"), "\n") + 1; res.Total != want {
		t.Fatalf("recorded %d of %d commits", res.Total, want)
	}
	h, _ := Load(repo, root)
	// Every path is recorded (the walk reads trees only); the commits that
	// need the missing blob keep their line counts unknown, the others
	// are counted, renames included.
	for _, c := range withLines(t, repo, h) {
		for _, ch := range c.Changes {
			needsBlob := c.Subject == "gofmt: reformat util.go" || c.Subject == "Print twice in helper" || strings.HasPrefix(c.Subject, "Revert")
			if ch.Path == "util.go" && needsBlob != (ch.Add == LinesUnknown) {
				t.Fatalf("util.go in %q: %+v", c.Subject, ch)
			}
		}
	}
	ren, _ := h.ByHash(r.Git("rev-parse", ":/Rename a.go"))
	if ren == nil || len(ren.Changes) != 1 || ren.Changes[0].Kind != "R" {
		t.Fatalf("rename lost: %+v", ren)
	}
}

func TestOddPaths(t *testing.T) {
	testgit.Setenv(t)
	r := testgit.New(t)
	names := []string{"sp ace.go", "tab\there.go", "new\nline.go", "ünï.go", ":colon.go"}
	for _, n := range names {
		r.Write(n, "x\n")
	}
	r.Commit("odd names")
	r.Git("mv", "sp ace.go", "sp ace2.go")
	r.Commit("rename odd")
	repo := open(t, r)
	root, _ := update(t, repo, gitstore.ZeroHash, "HEAD", defaults)
	h, err := Load(repo, root)
	if err != nil {
		t.Fatal(err)
	}
	// Paths with control characters are left out (memory refuses them
	// everywhere); the others keep their line counts.
	var got []string
	for _, ch := range withLines(t, repo, h)[0].Changes {
		got = append(got, fmt.Sprintf("%s+%d", ch.Path, ch.Add))
	}
	if strings.Join(got, ",") != ":colon.go+1,sp ace.go+1,ünï.go+1" || h.Commits[0].Files != len(names) {
		t.Fatalf("paths %q", got)
	}
	if ch := h.Commits[1].Changes; len(ch) != 1 || ch[0].Old != "sp ace.go" || ch[0].Path != "sp ace2.go" {
		t.Fatalf("rename: %+v", ch)
	}
}

func TestSignalsAndTheirCache(t *testing.T) {
	r := fixture(t)
	repo := open(t, r)
	root, _ := update(t, repo, gitstore.ZeroHash, "HEAD", defaults)
	s, err := LoadSignals(repo, root)
	if err != nil || s == nil {
		t.Fatal(err)
	}
	check := func(s *Signals) {
		t.Helper()
		m := s.MessageEvidence("helper retries", 8, 10)
		if _, old := m["a.go"]; m["parser.go"].Score <= 0 || m["util.go"].Score != 1 || old {
			t.Fatalf("message files (renames followed): %v", m)
		}
		co := s.CoChange(map[string]float64{"parser.go": 1}, 8)
		if co["util.go"] <= 0 {
			t.Fatalf("co-change: %v", co)
		}
		if age, ok := s.Age("README.md"); !ok || age != 0 {
			t.Fatalf("age of README.md: %d %v", age, ok)
		}
		if age, ok := s.Age("parser.go"); !ok || age == 0 {
			t.Fatalf("age of parser.go: %d %v", age, ok)
		}
	}
	check(s)
	// From the disk cache, in a fresh process (the process cache
	// cleared), used where it is mapped as a CLI command does.
	defer func(p bool) { InPlace = p }(InPlace)
	InPlace = true
	sigMu.Lock()
	clear(sigCache)
	sigMu.Unlock()
	dir := filepath.Join(r.Dir, ".git", "konteks", "history")
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("cache files: %v", ents)
	}
	s2, err := LoadSignals(repo, root)
	if err != nil || s2 == s {
		t.Fatalf("reload: %v", err)
	}
	check(s2)
	// A damaged cache file is rebuilt, not trusted.
	p := filepath.Join(dir, ents[0].Name())
	if err := os.WriteFile(p, []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	sigMu.Lock()
	clear(sigCache)
	sigMu.Unlock()
	s3, err := LoadSignals(repo, root)
	if err != nil {
		t.Fatal(err)
	}
	check(s3)
}

// TestSignalsFileRoundTrip decodes the cache file's encoding back into
// the same signals: copied or in place, by the machine-order copy or by
// the value-by-value decoder other machines use; and it refuses a
// truncated file and one of another version.
func TestSignalsFileRoundTrip(t *testing.T) {
	r := fixture(t)
	repo := open(t, r)
	root, _ := update(t, repo, gitstore.ZeroHash, "HEAD", defaults)
	s, err := LoadSignals(repo, root)
	if err != nil || s == nil || len(s.Docs) == 0 || len(s.Weight) == 0 || len(s.TFs) == 0 {
		t.Fatalf("signals %+v, %v", s, err)
	}
	enc := s.encode()
	// The file is mapped at a page boundary; a heap copy of it at an
	// 8-byte one stands in for that.
	b := make([]byte, len(enc), len(enc)+8)
	copy(b, enc)
	defer func(le bool) { mmap.LittleEndian = le }(mmap.LittleEndian)
	for _, le := range []bool{true, false} {
		for _, inPlace := range []bool{false, true} {
			mmap.LittleEndian = le
			got, err := decodeSignals(b, inPlace)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, s) {
				t.Fatalf("little-endian %v, in place %v: decoded signals differ:\n%+v\n%+v", le, inPlace, got, s)
			}
			if at := uintptr(unsafe.Pointer(&got.Docs[0])); inPlace && le != (at >= uintptr(unsafe.Pointer(&b[0])) && at < uintptr(unsafe.Pointer(&b[0]))+uintptr(len(b))) {
				t.Fatalf("little-endian %v, in place %v: the postings are in the file: %v", le, inPlace, !le)
			}
		}
	}
	if _, err := decodeSignals(b[:len(b)-3], false); err == nil {
		t.Fatal("a truncated cache decoded")
	}
	old := *s
	old.Version = signalsVersion - 1
	if _, err := decodeSignals(old.encode(), true); err == nil {
		t.Fatal("a cache of another version decoded")
	}
}

func TestPartialClone(t *testing.T) {
	r := fixture(t)
	r.Git("config", "uploadpack.allowFilter", "true")
	clone := testgit.At(t, t.TempDir())
	clone.Git("clone", "-q", "--no-checkout", "--filter=blob:none", "file://"+r.Dir, ".")
	repo := open(t, clone)
	if !repo.IsPartialClone() {
		t.Skip("git made a full clone")
	}
	root, res := update(t, repo, gitstore.ZeroHash, "HEAD", defaults)
	if want := strings.Count(r.Git("rev-list", "HEAD"), "\n") + 1; res.Total != want {
		t.Fatalf("partial clone recorded %d of %d", res.Total, want)
	}
	h, _ := Load(repo, root)
	c, _ := h.ByHash(r.Git("rev-parse", ":/Parse calls"))
	if c == nil || len(c.Changes) != 2 || c.Changes[0].Add != LinesUnknown {
		t.Fatalf("partial clone commit: %+v", c)
	}
	// Answers say the lines are unknown: not binary, not -1.
	m := &memref.Memory{Tree: root, Manifest: &manifest.Manifest{SourceCommit: clone.Git("rev-parse", "HEAD")}}
	why, err := Why(context.Background(), repo, m, Target{Path: "util.go"}, 10)
	if err != nil {
		t.Fatal(err)
	}
	ask, err := Ask(repo, m, "helper retries", 3, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{why.Text(), ask.Text()} {
		if !strings.Contains(text, "(lines unknown)") || strings.Contains(text, "-1") || strings.Contains(text, "binary") {
			t.Fatalf("partial clone answer:\n%s", text)
		}
	}
	// With the blobs fetched (a checkout brings HEAD's), those commits
	// are counted.
	clone.Git("checkout", "-q", "main")
	why, err = Why(context.Background(), repo, m, Target{Path: "README.md"}, 10)
	if err != nil || len(why.Commits) != 1 || why.Commits[0].Added != 1 {
		t.Fatalf("README.md after checkout: %+v %v", why, err)
	}
}

// TestCompanions checks which files count as changing together with
// another: small commits only, at least the asked number of them, by
// their newest names, deleted files left out, largest share first.
func TestCompanions(t *testing.T) {
	testgit.Setenv(t)
	r := testgit.New(t)
	r.Write("lib.go", "package a\n")
	r.Write("lib_test.go", "package a\n")
	r.Write("gone.go", "package a\n")
	r.Commit("Add the library")
	for i := 0; i < 3; i++ {
		r.Write("lib.go", fmt.Sprintf("package a\n\nvar V = %d\n", i))
		r.Write("lib_test.go", fmt.Sprintf("package a\n\nvar T = %d\n", i))
		if i < 2 {
			r.Write("gone.go", fmt.Sprintf("package a\n\nvar G = %d\n", i))
		}
		r.Commit(fmt.Sprintf("Tune the library, step %d", i))
	}
	r.Write("lib.go", "package a\n\nvar V = 9\n")
	r.Write("other.go", "package a\n")
	r.Commit("Add other")
	r.Git("mv", "lib_test.go", "lib_more_test.go")
	r.Commit("Rename the test")
	r.Remove("gone.go")
	r.Commit("Drop gone.go")
	// A mass change touching every file says nothing about pairs.
	for i := 0; i < 12; i++ {
		r.Write(fmt.Sprintf("gen%02d.go", i), "package a\n")
	}
	r.Write("lib.go", "package a\n\nvar V = 10\n")
	r.Write("other.go", "package a\n\nvar O = 1\n")
	r.Commit("Generate many files")
	repo := open(t, r)
	root, _ := update(t, repo, gitstore.ZeroHash, "HEAD", defaults)
	s, err := LoadSignals(repo, root)
	if err != nil || s == nil {
		t.Fatal(err)
	}
	cs := s.Companions("lib.go", 8, 2)
	if len(cs) != 1 || cs[0].Path != "lib_more_test.go" || cs[0].Commits != 4 {
		t.Fatalf("companions of lib.go (want the renamed test, 4 commits, not gone.go nor other.go): %+v", cs)
	}
	if cs[0].Share <= 0.5 || cs[0].Share >= 1 {
		t.Fatalf("share %v: want most of lib.go's commits, shrunk below 1", cs[0].Share)
	}
	if cs := s.Companions("lib.go", 8, 1); len(cs) != 2 || cs[1].Path != "other.go" || cs[1].Share >= cs[0].Share {
		t.Fatalf("with one shared commit enough: %+v", cs)
	}
	if cs := s.Companions("missing.go", 8, 1); cs != nil {
		t.Fatalf("companions of an unknown file: %+v", cs)
	}
	ev := s.MessageEvidence("tune the library", 8, 10)
	if e := ev["lib.go"]; e.Commits != 4 || e.Score != 1 { // "Add the library" too
		t.Fatalf("evidence for lib.go: %+v", e)
	}
	if e := ev["lib_more_test.go"]; e.Commits != 4 {
		t.Fatalf("evidence for the test, by its newest name: %+v (all: %v)", e, ev)
	}
	if _, ok := ev["gone.go"]; ok {
		t.Fatalf("a deleted file has evidence: %v", ev)
	}
}

// TestSaysFormat: a subject is a formatting change when the action it
// names formats; one that only mentions a format or a formatter changes
// behaviour and keeps its full weight.
func TestSaysFormat(t *testing.T) {
	for _, s := range []string{
		"gofmt", "gofmt -s.", "gofmt: reformat util.go", "Run gofumpt on all files (#10392)",
		"Apply gofmt -s on storage/remote/write_test.go (#7791)", "goimports run", "cargo fmt",
		"Reformat code", "reformatted with black", "Format code with prettier", "formatting",
		"style: black", "style(api): sort imports", "chore: Fix formatting", "doc: fix formatting",
		"React: Clean up formatting", "Fix indentation", "fix indentation issue", "Fixed indentation",
		"Fix trailing spaces", "Remove trailing whitespace", "Whitespace and other cleanups",
		"lint fixes", "Fix import formatting",
	} {
		if !saysFormat(s) {
			t.Errorf("saysFormat(%q) = false, want true", s)
		}
	}
	for _, s := range []string{
		"Update getting started with new rules format",
		"feat(tsdb/chunkenc): add float chunk format with start timestamp support",
		"Fix markdown format (#18505)", "Make dump-series a --format flag on the dump command",
		"tsdb: Remove leftover debug fmt.Println", "chore(deps): update dependency prettier to v3.7.4 (#17782)",
		"chore(deps-dev): bump eslint-plugin-prettier in /web/ui/react-app (#15925)",
		"Fix formatting of range vector selectors with smoothed/anchored modifier",
		"promql/parser: simplify BinaryExpr label formatting", "fix lint", "Fix lint errors",
		"Add golangci-lint fmt (#16602)", "util/runtime: accept hex format", "Print twice in helper",
	} {
		if saysFormat(s) {
			t.Errorf("saysFormat(%q) = true, want false", s)
		}
	}
}

// TestRenameBeforeAMissingBlob: when git stops at a commit whose blob is
// missing, the commit it listed just before (held back, as it might be
// cut short) is diffed again alone, not lost: its inexact rename is kept.
func TestRenameBeforeAMissingBlob(t *testing.T) {
	testgit.Setenv(t)
	r := testgit.New(t)
	body := func(name string) string {
		var b strings.Builder
		for i := 0; i < 30; i++ {
			fmt.Fprintf(&b, "line %d of %s\n", i, name)
		}
		return b.String()
	}
	r.Write("old.go", body("old"))
	r.Write("first.go", body("first"))
	r.Commit("Add two files")
	r.Git("mv", "old.go", "damaged.go")
	r.Write("damaged.go", body("old")+"// edited\n")
	r.Commit("Rename old.go, edited")
	r.Git("mv", "first.go", "second.go")
	r.Write("second.go", body("first")+"// edited\n")
	r.Commit("Rename first.go, edited")
	blob := r.Git("rev-parse", "HEAD~1:damaged.go")
	if err := os.Remove(filepath.Join(r.Dir, ".git", "objects", blob[:2], blob[2:])); err != nil {
		t.Fatal(err)
	}
	repo := open(t, r)
	root, _ := update(t, repo, gitstore.ZeroHash, "HEAD", defaults)
	h, err := Load(repo, root)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := h.ByHash(r.Git("rev-parse", "HEAD"))
	if c == nil || len(c.Changes) != 1 || c.Changes[0].Kind != "R" || c.Changes[0].Old != "first.go" {
		t.Fatalf("the rename before the damaged commit is lost: %+v", c)
	}
}

// TestAuthorWithCredentialWithheld: a token pasted into user.name or
// user.email does not reach the memory every clone fetches; the commit
// keeps its message, changes and flag.
func TestAuthorWithCredentialWithheld(t *testing.T) {
	testgit.Setenv(t)
	r := testgit.New(t)
	r.Write("a.go", "package a\n")
	r.Commit("An ordinary commit")
	r.Write("b.go", "package a\n")
	r.Git("add", "-A")
	tok := "ghp_" + strings.Repeat("B2c3", 9)
	r.Git("commit", "-q", "-m", "Add b", "--author", tok+" <dev@example.invalid>")
	r.Write("c.go", "package a\n")
	r.Git("add", "-A")
	r.Git("commit", "-q", "-m", "Add c", "--author", "Dev <"+tok+"@example.invalid>")
	repo, err := gitstore.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	root, _ := update(t, repo, gitstore.ZeroHash, "HEAD", defaults)
	h, err := Load(repo, root)
	if err != nil {
		t.Fatal(err)
	}
	withheldN := 0
	for _, c := range h.Commits {
		if strings.Contains(c.Author+c.Email+c.Subject, "ghp_") {
			t.Fatalf("a token reached memory: %+v", c)
		}
		if c.Author == withheldAuthor {
			withheldN++
			if c.Email != "" || !c.Has(FlagSecret) || len(c.Changes) != 1 || !strings.HasPrefix(c.Subject, "Add ") {
				t.Fatalf("withheld author: %+v", c)
			}
		} else if c.Has(FlagSecret) {
			t.Fatalf("flagged without cause: %+v", c)
		}
	}
	if withheldN != 2 {
		t.Fatalf("%d authors withheld, want 2", withheldN)
	}
}

// TestStreamedSignalsMatchLoaded: the signals streamed part by part
// (what a cold recall builds) are those of the loaded history, over
// segments, a tail, renames, a deletion, commits of equal dates and a
// branch whose older-dated commit is recorded last.
func TestStreamedSignalsMatchLoaded(t *testing.T) {
	tailMax, segmentMax = 4, 3
	defer func() { tailMax, segmentMax = TailMax, SegmentMax }()
	r := fixture(t)
	repo := open(t, r)
	root, _ := update(t, repo, gitstore.ZeroHash, "HEAD", defaults)
	r.Git("checkout", "-q", "-b", "topic", "HEAD~4")
	r.Git("rm", "-q", "util.go")
	r.Git("commit", "-q", "--date", "2019-05-06T07:08:09Z", "-m", "Drop the helper file")
	root, _ = update(t, repo, root, "HEAD", defaults)
	h, err := Load(repo, root)
	if err != nil {
		t.Fatal(err)
	}
	if h.State.Tail == 0 || len(h.State.Segments) == 0 {
		t.Fatalf("want segments and a tail: %+v", h.State)
	}
	if h.Commits[0].Subject != "Drop the helper file" {
		t.Fatalf("the older-dated commit is not first in time order: %q", h.Commits[0].Subject)
	}
	want := h.signals()
	if err := want.setParts(repo, root, &h.State); err != nil {
		t.Fatal(err)
	}
	got, err := streamSignals(repo, root, h.Key, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("streamed signals differ:\n got %v\nwant %v", got, want)
	}
	if len(got.ChID) == 0 || !slices.ContainsFunc(got.ChID, func(id int32) bool { return id < 0 }) {
		t.Fatalf("no deletion among the changes: %v", got.ChID)
	}
}

// TestMsgTermsAreTextTerms: the cached analysis of messages gives
// text.Terms, with its cache warm, cold and cleared.
func TestMsgTermsAreTextTerms(t *testing.T) {
	texts := []string{
		"Fix parseHTTPRequest retries when the config file is missing",
		"Fix parse_http_request; retries, retries and RETRIES",
		"", "   ", "naïve café — déjà vu 123abc x",
		"Fix parseHTTPRequest retries when the config file is missing",
	}
	var mt msgTerms
	ix := newMsgIndex(0)
	for i, s := range texts {
		if i == 4 {
			clear(mt.ids)
		}
		var got []string
		mt.eachID(ix, s, func(id int32) { got = append(got, ix.terms[id]) })
		if want := text.Terms(s); !slices.Equal(got, want) {
			t.Fatalf("%q: %q, want %q", s, got, want)
		}
	}
}

// TestMsgIndexCounts: the message index holds, for every term, the
// documents and counts a plain count of text.Terms gives (the subject
// twice, the body's first 1,500 bytes once), and each document's length.
func TestMsgIndexCounts(t *testing.T) {
	msgs := [][2]string{
		{"Fix parseHTTPRequest retries", "The retries of parse_http_request were counted twice.\n\nFixes #12"},
		{"Add a config file", ""},
		{"", "only a body, with body words: body"},
		{"retries retries", strings.Repeat("long body words ", 200)},
		{"Fix parseHTTPRequest retries", "again"},
	}
	var mt msgTerms
	ix := newMsgIndex(len(msgs))
	type tfs map[int32]uint16
	want := map[string]tfs{}
	var wantDL []uint16
	for i, m := range msgs {
		ix.add(int32(i), m[0], m[1], &mt)
		body := m[1]
		if len(body) > 1500 {
			body = body[:1500]
		}
		n := 0
		for _, part := range []string{m[0], m[0], body} {
			for _, term := range text.Terms(part) {
				if want[term] == nil {
					want[term] = tfs{}
				}
				want[term][int32(i)]++
				n++
			}
		}
		wantDL = append(wantDL, uint16(n))
	}
	if !slices.Equal(ix.dl, wantDL) {
		t.Fatalf("lengths %v, want %v", ix.dl, wantDL)
	}
	if len(ix.terms) != len(want) {
		t.Fatalf("%d terms, want %d", len(ix.terms), len(want))
	}
	for term, w := range want {
		docs, counts := ix.lookup(term)
		got := tfs{}
		for k, d := range docs {
			got[d] = counts[k]
			if k > 0 && docs[k-1] >= d {
				t.Fatalf("%q: documents not ascending: %v", term, docs)
			}
		}
		if !reflect.DeepEqual(got, w) {
			t.Fatalf("%q: %v, want %v", term, got, w)
		}
	}
	if d, c := ix.lookup("nosuchterm"); d != nil || c != nil {
		t.Fatalf("an unknown term has postings: %v %v", d, c)
	}
}

// TestSignalsAppended: after commits appended to the tail, the signals
// of the new history are the cached ones of the history before with the
// new commits added (no commit decoded again), and they are the signals
// a rebuild gives; a commit older than the newest, or a tail turned into
// a segment, makes them be rebuilt, to the same result.
func TestSignalsAppended(t *testing.T) {
	defer func(a, b int) { tailMax, segmentMax = a, b }(tailMax, segmentMax)
	tailMax, segmentMax = 20, 32
	r := fixture(t)
	repo := open(t, r)
	root, _ := update(t, repo, gitstore.ZeroHash, "HEAD", defaults)
	// The process's caches are keyed by history: another test's fixture
	// has the same.
	forget := dropCaches
	forget()
	if _, err := LoadSignals(repo, root); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(r.Dir, ".git", "konteks", "history")
	n := 0
	step := func(name string, appended bool, commit func()) {
		t.Helper()
		commit()
		next, _ := update(t, repo, root, "HEAD", defaults)
		key, err := dirOf(repo, next)
		if err != nil {
			t.Fatal(err)
		}
		want, err := streamSignals(repo, next, key, nil)
		if err != nil {
			t.Fatal(err)
		}
		forget()
		got := appendToCached(repo, next, key, dir)
		if (got != nil) != appended {
			t.Fatalf("%s: appended = %v, want %v", name, got != nil, appended)
		}
		if got != nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: appended signals differ from a rebuild:\n got %v\nwant %v", name, got, want)
		}
		forget()
		s, err := LoadSignals(repo, next)
		if err != nil || !reflect.DeepEqual(s, want) {
			t.Fatalf("%s: loaded signals differ from a rebuild (%v)", name, err)
		}
		root = next
	}
	edit := func(msg string, files ...string) {
		for _, f := range files {
			n++
			r.Write(f, fmt.Sprintf("package a\n\n// edit %d\n", n))
		}
		r.Git("add", "-A")
		r.Git("commit", "-q", "-m", msg)
	}
	step("one commit, a new word", true, func() { edit("Teach the parser quasiquotes", "parser.go") })
	step("an add, a rename and a delete", true, func() {
		edit("Add a lexer", "lexer.go")
		r.Git("mv", "util.go", "helpers.go")
		r.Commit("Rename util.go to helpers.go")
		r.Remove("side.go")
		r.Commit("Drop the side file")
	})
	step("a later date", true, func() {
		r.Write("lexer.go", "package a\n\n// later\n")
		r.Git("add", "-A")
		r.Git("commit", "-q", "--date", "2026-06-01T00:00:00Z", "-m", "Lexer tokens for retries")
	})
	step("an older date", false, func() {
		r.Write("lexer.go", "package a\n\n// older\n")
		r.Git("add", "-A")
		r.Git("commit", "-q", "--date", "2001-01-01T00:00:00Z", "-m", "Backdated lexer change")
	})
	step("the tail turned into a segment", false, func() {
		for i := range tailMax {
			edit(fmt.Sprintf("Parser change %d", i), "parser.go")
		}
	})
	step("after the segment, one commit", true, func() {
		r.Write("helpers.go", "package a\n\n// twice\n")
		r.Git("add", "-A")
		r.Git("commit", "-q", "--date", "2026-07-01T00:00:00Z", "-m", "Helpers retry twice")
	})
}

// TestCheckAppends: checking a peer's history that only gained tail
// commits since one this clone decoded decodes the tail alone and leaves
// the signals a rebuild gives; a damaged tail, or a state that lists the
// same segments with other counts, is still refused.
func TestCheckAppends(t *testing.T) {
	defer func(a, b int) { tailMax, segmentMax = a, b }(tailMax, segmentMax)
	tailMax, segmentMax = 4, 3
	r := fixture(t)
	repo := open(t, r)
	root, _ := update(t, repo, gitstore.ZeroHash, "HEAD", defaults)
	dropCaches()
	defer dropCaches()
	if err := Check(repo, root); err != nil {
		t.Fatal(err)
	}
	r.Write("parser.go", "package a\n\n// checked\n")
	r.Commit("Parser checks its input")
	next, _ := update(t, repo, root, "HEAD", defaults)
	key, err := dirOf(repo, next)
	if err != nil {
		t.Fatal(err)
	}
	st, err := readLoadable(repo, key)
	if err != nil || st.Tail == 0 || len(st.Segments) < 2 {
		t.Fatalf("want two segments and a tail: %+v, %v", st, err)
	}
	dir := filepath.Join(r.Dir, ".git", "konteks", "history")
	sig := filepath.Join(dir, key.String()+".sig")
	set := func(path, content string) gitstore.Hash { return withBlob(t, repo, next, path, content) }
	// Refused, and nothing cached for them.
	shifted := *st
	shifted.Segments = slices.Clone(st.Segments)
	shifted.Segments[0].Commits++
	shifted.Segments[1].Commits--
	stateJSON, err := json.Marshal(&shifted)
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string]gitstore.Hash{
		"a damaged tail":               set(TailPath, "not zstd"),
		"segments counted differently": set(StatePath, string(stateJSON)),
	} {
		if err := Check(repo, bad); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("%s: check gave %v", name, err)
		}
	}
	if err := Check(repo, next); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sig); err != nil {
		t.Fatalf("check left no signals: %v", err)
	}
	want, err := streamSignals(repo, next, key, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := readSignals(sig, key)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("checked signals differ from a rebuild:\n got %v\nwant %v", got, want)
	}
}

// TestShortWalkWithholdsCredentials: the commits a hook's update records
// (a few on top of memory's, read without git log) pass the secret
// detector as a long walk's do: a token in a message or an author is
// withheld.
func TestShortWalkWithholdsCredentials(t *testing.T) {
	testgit.Setenv(t)
	r := testgit.New(t)
	r.Write("a.go", "package a\n")
	r.Commit("An ordinary commit")
	repo := open(t, r)
	root, _ := update(t, repo, gitstore.ZeroHash, "HEAD", defaults)
	tok := "ghp_" + strings.Repeat("C3d4", 9)
	r.Write("b.go", "package a\n")
	r.Commit("Add b; token " + tok + " leaked")
	r.Write("c.go", "package a\n")
	r.Git("add", "-A")
	r.Git("commit", "-q", "-m", "Add c", "--author", tok+" <dev@example.invalid>")
	root, res := update(t, repo, root, "HEAD", defaults)
	if res.New != 2 {
		t.Fatalf("recorded %+v, want the 2 new commits", res)
	}
	h, err := Load(repo, root)
	if err != nil {
		t.Fatal(err)
	}
	secret := 0
	for _, c := range h.Commits {
		if strings.Contains(c.Subject+c.Body+c.Author+c.Email, "ghp_") {
			t.Fatalf("a token reached memory: %q by %q <%s>", c.Subject, c.Author, c.Email)
		}
		if c.Has(FlagSecret) {
			secret++
		}
	}
	if secret != 2 {
		t.Fatalf("%d commits flagged secret, want 2", secret)
	}
}
