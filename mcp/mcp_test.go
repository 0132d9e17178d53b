package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/konteks/git-konteks/durable"
	"github.com/konteks/git-konteks/extract"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/recall"
)

// connect serves s over in-memory transports and returns a client
// session; the server is closed with the test.
func connect(t testing.TB, s *Server) *sdk.ClientSession {
	t.Helper()
	cs, stop := pipe(t, s)
	t.Cleanup(func() {
		stop()
		s.Close()
	})
	return cs
}

// pipe connects a client to s over in-memory transports.
func pipe(t testing.TB, s *Server) (*sdk.ClientSession, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := sdk.NewInMemoryTransports()
	ss, err := s.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cs, func() {
		cs.Close()
		ss.Wait()
		cancel()
	}
}

func call(t testing.TB, cs *sdk.ClientSession, name string, args map[string]any, out any) (string, error) {
	if args == nil {
		args = map[string]any{}
	}
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", err
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if res.IsError {
		return text.String(), fmt.Errorf("%s: %s", name, text.String())
	}
	if out != nil {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			return "", err
		}
	}
	return text.String(), nil
}

// served is the fixture with memory, and a client of a server on it.
func served(t *testing.T) (*testgit.Repo, *sdk.ClientSession) {
	t.Helper()
	r := fixture(t)
	extractIn(t, r.Dir)
	s, err := New(context.Background(), Options{Dir: r.Dir, ToolVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return r, connect(t, s)
}

func fixture(t *testing.T) *testgit.Repo {
	t.Helper()
	r := testgit.New(t)
	r.CopyTree("../testdata/repos/mixed")
	r.Commit("init")
	return r
}

func extractIn(t *testing.T, dir string) {
	t.Helper()
	repo, err := gitstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := extract.Run(context.Background(), repo, extract.Options{ToolVersion: "test"}); err != nil {
		t.Fatal(err)
	}
}

// TestConcurrentReadsAndWrites runs reads, saves and refreshes at once
// (under -race): every call is answered, every save lands, and the server
// ends on the newest memory.
func TestConcurrentReadsAndWrites(t *testing.T) {
	r, cs := served(t)

	var wg sync.WaitGroup
	errs := make(chan error, 100)
	const savers = 4
	for i := range 24 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			switch i % 8 {
			case 0:
				_, err = call(t, cs, ToolRecall, map[string]any{"task": "store value " + strconv.Itoa(i)}, nil)
			case 1:
				_, err = call(t, cs, ToolContext, map[string]any{"task": "configure the app", "budget": 300}, nil)
			case 2:
				_, err = call(t, cs, ToolShow, map[string]any{"path": "internal/store/store.go", "anchor": "Store.Put"}, nil)
			case 3:
				_, err = call(t, cs, ToolStatus, nil, nil)
			case 4:
				_, err = call(t, cs, ToolMemories, map[string]any{"filter": "store"}, nil)
			case 5:
				if i/8 < savers {
					_, err = call(t, cs, ToolRemember, map[string]any{"text": fmt.Sprintf("Finding number %d about the store: Put overwrites silently.", i), "kind": "insight"}, nil)
				}
			case 6:
				_, err = call(t, cs, ToolRefresh, nil, nil)
			case 7:
				_, err = call(t, cs, ToolOverview, map[string]any{"path": "internal"}, nil)
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	// Meanwhile, the repository moves on.
	r.Write("internal/store/extra.go", "package store\n\n// Extra is more.\nfunc Extra() {}\n")
	r.Commit("extra")
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var ms MemoriesOutput
	if _, err := call(t, cs, ToolMemories, map[string]any{"kind": "insight"}, &ms); err != nil {
		t.Fatal(err)
	}
	if ms.Total != 3 {
		t.Fatalf("%d insights saved concurrently, want 3: %+v", ms.Total, ms.Entries)
	}
	var rf RefreshOutput
	if _, err := call(t, cs, ToolRefresh, nil, &rf); err != nil {
		t.Fatal(err)
	}
	var rc RecallOutput
	if _, err := call(t, cs, ToolRecall, map[string]any{"task": "extra"}, &rc); err != nil {
		t.Fatal(err)
	}
	if !rc.Memory.UpToDate || rc.Memory.SourceCommit != r.Git("rev-parse", "HEAD") || rc.Memory.MemoryCommit != r.Git("rev-parse", "refs/konteks") {
		t.Fatalf("recall after everything: %+v", rc.Memory)
	}
}

func TestFreshnessLine(t *testing.T) {
	for _, c := range []struct {
		f    Freshness
		want string
	}{
		{Freshness{}, "memory: none yet — call refresh"},
		{Freshness{Exists: true, SourceCommit: "0123456789abcdef", Head: "0123456789abcdef", UpToDate: true}, "memory: describes commit 0123456789ab (HEAD)"},
		{Freshness{Exists: true, SourceCommit: "aaaa", Head: "bbbb", HeadAhead: true, CommitsAhead: 2, ChangedFiles: 5, Changed: []string{"a", "b", "c", "d"}},
			"memory: describes commit aaaa; HEAD bbbb is 2 commits ahead, 5 files changed (a, b, c, …) — call refresh to bring memory up to date"},
		{Freshness{Exists: true, SourceCommit: "aaaa", Head: "bbbb", CommitsAhead: 1, CommitsBehind: 3},
			"memory: describes commit aaaa; HEAD bbbb is on another line (1 commit ahead, 3 commits behind), no file changed"},
	} {
		if got := c.f.Line(); !strings.HasPrefix(got, c.want) {
			t.Errorf("Line() = %q, want prefix %q", got, c.want)
		}
	}
}

func TestMatchMemories(t *testing.T) {
	r := fixture(t)
	repo, err := gitstore.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []durable.Entry{
		{Type: durable.TypeMemory, Kind: "constraint", Text: "Retries of failed uploads back off exponentially, never more than five attempts."},
		{Type: durable.TypeMemory, Kind: "decision", Text: "The store keeps values in memory only.", Paths: []string{"internal/store/store.go"}},
		{Type: durable.TypeDiary, Subject: "session", Text: "Looked at the YAML config loader; nothing changed."},
	} {
		if _, _, err := durable.Save(repo, e); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(context.Background(), Options{Dir: r.Dir, NoEmbedder: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	snap, err := s.current()
	if err != nil {
		t.Fatal(err)
	}
	texts := func(hits []MemoryHit) string {
		var out []string
		for _, h := range hits {
			out = append(out, h.Text)
		}
		return strings.Join(out, " | ")
	}
	// Stemmed words match (retry ~ retries, upload ~ uploads).
	if hits := s.matchMemories(snap, "retry an upload", nil, 5); len(hits) != 1 || !strings.HasPrefix(hits[0].Text, "Retries") {
		t.Errorf("retry an upload: %s", texts(hits))
	}
	// A link to a file the answer points at is enough.
	if hits := s.matchMemories(snap, "speed up lookups", []string{"internal/store/store.go"}, 5); len(hits) != 1 || !strings.Contains(hits[0].Text, "store keeps") {
		t.Errorf("linked: %s", texts(hits))
	}
	// Diary entries match too; unrelated tasks match nothing.
	if hits := s.matchMemories(snap, "yaml config loading", nil, 5); len(hits) != 1 || hits[0].Type != durable.TypeDiary {
		t.Errorf("diary: %s", texts(hits))
	}
	if hits := s.matchMemories(snap, "render a chart", nil, 5); len(hits) != 0 {
		t.Errorf("unrelated: %s", texts(hits))
	}
}

// TestReopenAfterOtherProcessPacks: memory written as a pack by another
// Repo (as another process would) is read after refs move.
func TestReopenAfterOtherProcessPacks(t *testing.T) {
	r := fixture(t)
	s, err := New(context.Background(), Options{Dir: r.Dir, NoEmbedder: true})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s)
	if _, err := call(t, cs, ToolStatus, nil, nil); err != nil {
		t.Fatal(err)
	}
	extractIn(t, r.Dir)
	r.Git("gc", "-q") // everything into a new pack, loose objects gone
	var sh ShowOutput
	if _, err := call(t, cs, ToolShow, map[string]any{"path": "README.md"}, &sh); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		_, err := call(t, cs, ToolRecall, map[string]any{"task": "key value store"}, nil)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestShowLargeSection: one section's text is bounded, and says where the
// rest is.
func TestShowLargeSection(t *testing.T) {
	r := testgit.New(t)
	var b strings.Builder
	for i := range 4000 {
		fmt.Fprintf(&b, "line %d of a long plain text file about nothing in particular\n", i)
	}
	r.Write("notes.txt", b.String())
	r.Commit("notes")
	extractIn(t, r.Dir)
	s, err := New(context.Background(), Options{Dir: r.Dir, NoEmbedder: true})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s)
	var sh ShowOutput
	if _, err := call(t, cs, ToolShow, map[string]any{"path": "notes.txt"}, &sh); err != nil || len(sh.Sections) == 0 {
		t.Fatalf("show: %v %+v", err, sh)
	}
	var one ShowOutput
	text, err := call(t, cs, ToolShow, map[string]any{"path": "notes.txt", "anchor": sh.Sections[0].Anchor}, &one)
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Content) > maxSectionText+200 || !strings.Contains(one.Content, "section truncated") || !strings.Contains(text, "read notes.txt from line") {
		t.Fatalf("large section: %d bytes, ends %q", len(one.Content), one.Content[max(0, len(one.Content)-120):])
	}
}

// TestRecallAfterMemoryChanges checks that a long-lived server, whose
// index keeps the sections it decoded, answers from new memory once it
// moves: the section's new name, summary and text, never the old ones.
func TestRecallAfterMemoryChanges(t *testing.T) {
	r, cs := served(t)
	find := func(task, name string) recall.Hit {
		t.Helper()
		var rc RecallOutput
		if _, err := call(t, cs, ToolRecall, map[string]any{"task": task}, &rc); err != nil {
			t.Fatal(err)
		}
		for _, h := range rc.Hits {
			if h.Path == "internal/store/store.go" && h.Name == name {
				return h
			}
		}
		t.Fatalf("%q: no hit %s in internal/store/store.go: %+v", task, name, rc.Hits)
		return recall.Hit{}
	}
	for range 2 { // the second answer comes from what the index decoded
		if h := find("sets key to value", "Store.Put"); h.Summary != "Put sets key to value." {
			t.Fatalf("before the change: %+v", h)
		}
	}
	src := r.Git("show", "HEAD:internal/store/store.go") + "\n"
	src = strings.Replace(src, "// Put sets key to value.\nfunc (s *Store) Put(", "// Insert stores a quokka under key.\nfunc (s *Store) Insert(", 1)
	r.Write("internal/store/store.go", src)
	r.Commit("rename Put")
	if _, err := call(t, cs, ToolRefresh, nil, nil); err != nil {
		t.Fatal(err)
	}
	h := find("stores a quokka under key", "Store.Insert")
	if h.Summary != "Insert stores a quokka under key." || !strings.Contains(h.Snippet, "func (s *Store) Insert(") {
		t.Fatalf("after the change: %+v", h)
	}
	var rc RecallOutput
	if _, err := call(t, cs, ToolRecall, map[string]any{"task": "sets key to value"}, &rc); err != nil {
		t.Fatal(err)
	}
	for _, h := range rc.Hits {
		if h.Name == "Store.Put" || strings.Contains(h.Summary, "Put sets key") {
			t.Fatalf("the old section is still answered: %+v", h)
		}
	}
}

// TestRememberCitesTheCode: a memory saved through the server cites the
// code it names, as one saved from the command line does, so `memories
// verify` and recall can tell when that code changes.
func TestRememberCitesTheCode(t *testing.T) {
	_, cs := served(t)
	var out SaveOutput
	if _, err := call(t, cs, ToolRemember, map[string]any{"text": "`Store.Put` in internal/store/store.go overwrites an existing key silently."}, &out); err != nil {
		t.Fatal(err)
	}
	if !out.Saved || len(out.Entry.Cites) == 0 {
		t.Fatalf("the memory cites nothing: %+v", out.Entry)
	}
	c := out.Entry.Cites[0]
	if c.Path != "internal/store/store.go" || c.Blob == "" {
		t.Fatalf("cite %+v", c)
	}
}
