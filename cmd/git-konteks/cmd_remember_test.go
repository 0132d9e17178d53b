package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/durable"
)

func listMemories(t *testing.T, dir string, args ...string) []durable.Item {
	t.Helper()
	var items []durable.Item
	out := run(t, dir, append([]string{"memories", "list", "--json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &items); err != nil {
		t.Fatalf("decode memories: %v\n%s", err, out)
	}
	return items
}

func TestRememberListShowForget(t *testing.T) {
	t.Parallel()
	r := mixedRepo(t)
	// Memories can be saved before any extraction.
	out := run(t, r.Dir, "remember", "--kind", "decision", "--tag", "store", "The store stays in memory: internal/store/store.go must not touch disk, see `Store.Put`")
	if !strings.Contains(out, "remembered") || !strings.Contains(out, "internal/store/store.go") {
		t.Fatalf("remember: %s", out)
	}
	run(t, r.Dir, "diary", "--subject", "session 1", "Explored the store and the HTTP handler; nothing changed yet")
	if st := run(t, r.Dir, "status"); !strings.Contains(st, "durable memories only") {
		t.Fatalf("status with only durable memory:\n%s", st)
	}
	items := listMemories(t, r.Dir)
	if len(items) != 1 || items[0].Kind != "decision" || items[0].Paths[0] != "internal/store/store.go" || items[0].Symbols[0] != "Store.Put" || items[0].Tags[0] != "store" {
		t.Fatalf("list: %+v", items)
	}
	if d := listMemories(t, r.Dir, "--diary"); len(d) != 1 || d[0].Subject != "session 1" {
		t.Fatalf("diary: %+v", d)
	}
	id := items[0].ID

	// Refusals: near-empty, a credential, an unknown kind; duplicates are dropped.
	for _, bad := range [][]string{
		{"remember", "ok"},
		{"remember", "deploy with token ghp_0123456789abcdefghijklmnopqrstuvwxyz"},
		{"remember", "--kind", "rumour", "the build is slow on Mondays for some reason"},
	} {
		if _, errOut, err := tryRun(r.Dir, nil, bad...); err == nil || !strings.Contains(errOut, "not saved") {
			t.Errorf("%v: want a refusal, got %v %s", bad, err, errOut)
		}
	}
	dup := run(t, r.Dir, "remember", "--kind", "decision", "the store stays in memory:   internal/store/store.go must not touch disk, see `Store.Put`")
	if !strings.Contains(dup, "already remembered as "+id) {
		t.Fatalf("duplicate: %s", dup)
	}

	// Extraction of every mode keeps durable memory.
	extractJSON(t, r.Dir)
	extractJSON(t, r.Dir, "--mode", "rebuild")
	if got := listMemories(t, r.Dir); len(got) != 1 || got[0].ID != id {
		t.Fatalf("after rebuild: %+v", got)
	}

	// Supersede, then forget (flags after the id, like git).
	out = run(t, r.Dir, "remember", "--kind", "decision", "--supersedes", id[:8], "The store may spill to disk above 1 GB, decided after the load test")
	if !strings.Contains(out, "remembered") {
		t.Fatal(out)
	}
	live := listMemories(t, r.Dir)
	if len(live) != 1 || live[0].Supersedes != id {
		t.Fatalf("after supersede: %+v", live)
	}
	all := listMemories(t, r.Dir, "--all")
	if len(all) != 2 || all[0].Status != durable.StatusSuperseded {
		t.Fatalf("all: %+v", all)
	}
	run(t, r.Dir, "memories", "forget", live[0].ID[:10], "--reason", "the load test was wrong")
	if got := listMemories(t, r.Dir); len(got) != 0 {
		t.Fatalf("forgotten memory still listed: %+v", got)
	}
	show := run(t, r.Dir, "memories", "show", live[0].ID)
	if !strings.Contains(show, "status:   forgotten") || !strings.Contains(show, "the load test was wrong") {
		t.Fatalf("show forgotten:\n%s", show)
	}
	if _, errOut, err := tryRun(r.Dir, nil, "memories", "forget", live[0].ID, "--reason", "again"); err == nil || !strings.Contains(errOut, "already forgotten") {
		t.Fatalf("forgetting twice: %v %s", err, errOut)
	}
	if _, errOut, err := tryRun(r.Dir, nil, "memories", "show", "zz"); err == nil || !strings.Contains(errOut, "too short") {
		t.Fatalf("short id: %v %s", err, errOut)
	}
	// Every entry is its own file: nothing was rewritten or removed.
	if files := r.Git("ls-tree", "-r", "--name-only", "refs/konteks", "durable/"); len(strings.Split(files, "\n")) != 4 {
		t.Fatalf("durable files:\n%s", files)
	}
}

func TestRecallFindsDurableMemories(t *testing.T) {
	t.Parallel()
	r := mixedRepo(t)
	extractJSON(t, r.Dir)
	run(t, r.Dir, "remember", "--kind", "constraint", "Never persist the store to disk: the latency budget forbids fsync")
	run(t, r.Dir, "diary", "--subject", "perf", "Measured fsync latency on the build farm: 40 ms per call")
	run(t, r.Dir, "remember", "--kind", "note", "Unrelated: the logo is drawn in Inkscape")
	res := recallJSONAll(t, r.Dir, "can we persist the store with fsync")
	mems := res.Memories
	if len(mems) < 2 || mems[0].Type != "memory" || mems[0].Kind != "constraint" || mems[0].ID == "" {
		t.Fatalf("the constraint should come first: %+v", mems)
	}
	for _, m := range mems {
		if strings.Contains(m.Text, "Inkscape") {
			t.Fatal("an unrelated memory matched")
		}
	}
	// Forgotten memories are not recalled.
	id := mems[0].ID
	run(t, r.Dir, "memories", "forget", id, "--reason", "we moved to a WAL")
	if out := run(t, r.Dir, "recall", "can we persist the store with fsync"); strings.Contains(out, "Never persist") {
		t.Fatalf("forgotten memory recalled:\n%s", out)
	}
}
