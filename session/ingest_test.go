package session

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/konteks/git-konteks/durable"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/benchrepo"
	"github.com/konteks/git-konteks/internal/testgit"
)

func openRepo(t *testing.T, r *testgit.Repo) *gitstore.Repo {
	t.Helper()
	testgit.Setenv(t)
	repo, err := gitstore.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

func ingestFile(t *testing.T, repo *gitstore.Repo, name string, edit func(string) string) Result {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return ingest(t, repo, edit(string(b)))
}

func ingest(t *testing.T, repo *gitstore.Repo, text string) Result {
	t.Helper()
	dg, err := Read(strings.NewReader(text), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Ingest(repo, dg, time.Date(2026, 3, 3, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func clientRepo(t *testing.T) (*testgit.Repo, *gitstore.Repo) {
	r := testgit.New(t)
	r.WriteFiles(map[string]string{"client/http.go": "package client\n\nfunc Do() error { return nil }\n", "client/retry.go": "package client\n"})
	r.Commit("client")
	return r, openRepo(t, r)
}

// TestIngestOnceAndRevise: the same transcript twice adds nothing; a
// later session that revises a constraint supersedes it; a session that
// went on gets a record that replaces the earlier one.
func TestIngestOnceAndRevise(t *testing.T) {
	r, repo := clientRepo(t)
	same := func(s string) string { return strings.ReplaceAll(s, "/home/dev/shop", r.Dir) }
	first := ingestFile(t, repo, "claude-code.jsonl", same)
	if first.New != 6 || len(first.Memories) != 5 || first.Record.Record == nil {
		t.Fatalf("first ingestion: %d new, %d memories", first.New, len(first.Memories))
	}
	rec := first.Record.Record
	if strings.Join(rec.Files, " ") != "client/retry.go client/http.go" || len(rec.Memories) != 5 || rec.Agent != AgentClaude {
		t.Errorf("record %+v", rec)
	}
	for _, m := range first.Memories {
		if m.Author != "Test Author <author@example.invalid>" || m.Session != rec.Key || m.Scope != ScopeRepository {
			t.Errorf("memory %s: author %q session %q scope %q", m.ID, m.Author, m.Session, m.Scope)
		}
		if m.Kind == KindCase && (len(m.Cites) != 1 || m.Cites[0].Path != "client/http.go" || len(m.Cites[0].Blob) != 40) {
			t.Errorf("the case cites %+v", m.Cites)
		}
	}
	tip := r.Git("rev-parse", "refs/konteks")
	if again := ingestFile(t, repo, "claude-code.jsonl", same); again.New != 0 || r.Git("rev-parse", "refs/konteks") != tip {
		t.Errorf("a second ingestion wrote %d entries", again.New)
	}

	// Another session (the Codex one) revises the fake-clock rule.
	revised := ingestFile(t, repo, "codex.jsonl", func(s string) string {
		s = strings.ReplaceAll(s, "we use the fake clock in internal/clock, not the real one", "we use testing/synctest, not the fake clock in internal/clock")
		return same(s)
	})
	var sup durable.Item
	for _, m := range revised.Memories {
		if strings.Contains(m.Text, "synctest") {
			sup = m
		}
	}
	var old string
	for _, m := range first.Memories {
		if strings.Contains(m.Text, "fake clock in internal/clock, not the real one") {
			old = m.ID
		}
	}
	if sup.ID == "" || sup.Supersedes != old {
		t.Errorf("the revised rule %q supersedes %q, want %q", sup.Text, sup.Supersedes, old)
	}
	// The unchanged rules were not saved twice.
	items, err := durable.LoadRef(repo)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, it := range items {
		if it.Status == durable.StatusLive && it.Type == durable.TypeMemory && strings.Contains(it.Text, "Always run gofmt before committing") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d live copies of the gofmt rule", n)
	}

	// The first session went on: its new record replaces the old one.
	b, _ := os.ReadFile("testdata/claude-code.jsonl")
	more := same(string(b)) + `{"type":"user","sessionId":"5f0c2b9e-1111-4a2b-9c3d-0000000000aa","timestamp":"2026-03-02T09:05:00.000Z","message":{"role":"user","content":"Also never log request bodies."}}` + "\n"
	went := ingest(t, repo, more)
	if went.Record.Supersedes != first.Record.ID || went.New != 2 {
		t.Errorf("the continued session: record supersedes %q (want %q), %d new", went.Record.Supersedes, first.Record.ID, went.New)
		for _, m := range went.Memories {
			t.Logf("%s %s %q", m.ID, m.Kind, m.Text)
		}
	}
	items, _ = durable.LoadRef(repo)
	if recs := durable.Sessions(items); len(recs) != 2 {
		t.Errorf("%d live session records, want 2", len(recs))
	}
}

// TestIngestBig: a 20 MB transcript is read in under a second of CPU and
// leaves a few KB of memory.
func TestIngestBig(t *testing.T) {
	r, repo := clientRepo(t)
	data := bigClaude(bigSession, r.Dir)
	size := len(data)
	before := benchrepo.CPUTime()
	dg, err := Read(bytes.NewReader(data), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Ingest(repo, dg, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	used := benchrepo.CPUTime() - before
	t.Logf("%d MB transcript: %v CPU, %d entries, %d bytes written", size>>20, used, res.New, res.Written)
	if used > slow*time.Second {
		t.Errorf("ingesting %d MB took %v of CPU (limit %v)", size>>20, used, slow*time.Second)
	}
	if res.Written >= 16<<10 || res.New == 0 {
		t.Errorf("%d entries, %d bytes written (limit 16 KB)", res.New, res.Written)
	}
	if len(res.Record.Record.Files) > durable.MaxRecordList || res.Record.Record.Calls < 100 {
		t.Errorf("record: %d files, %d calls", len(res.Record.Record.Files), res.Record.Record.Calls)
	}
}
