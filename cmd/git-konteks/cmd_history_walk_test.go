package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/history"
	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/memory"
)

// waitRunner waits until no background runner holds the runner lock of
// the repository in dir (it may start a moment after the command returns).
func waitRunner(t *testing.T, dir string, done func() bool) {
	t.Helper()
	repo, err := gitstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(scaled(60 * time.Second))
	for time.Now().Before(deadline) {
		if done() {
			if l, _, err := repo.TryLock("runner"); err == nil {
				l.Unlock()
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("the background runner did not finish")
}

// runnerRepo is historyRepo with more commits than the first extraction
// records: it leaves the older ones to the background runner it starts.
func runnerRepo(t *testing.T) *testgit.Repo {
	t.Helper()
	r := historyRepo(t)
	for i := 0; i < 12; i++ {
		r.Write(fmt.Sprintf("more%d.txt", i%3), fmt.Sprint(i))
		r.Commit(fmt.Sprintf("More work %d", i))
	}
	r.Git("config", "konteks.history.recent", "5")
	return r
}

// TestFirstExtractionLeavesOldHistoryToTheRunner: the first extraction
// records recent history, says so with each stage's time, and the
// background runner records the rest without being asked again.
func TestFirstExtractionLeavesOldHistoryToTheRunner(t *testing.T) {
	t.Parallel()
	r := runnerRepo(t)
	n := strings.Count(r.Git("rev-list", "HEAD"), "\n") + 1
	out := run(t, r.Dir, "extract")
	if !strings.Contains(out, "history:  5 commits (5 new)") || !strings.Contains(out, "older history is being recorded in the background") {
		t.Fatalf("summary of the first extraction:\n%s", out)
	}
	// The summary names the stages that took a millisecond or more (on a
	// fast machine extracting these seven small files may not); the
	// manifest of the memory commit it names records every stage's time
	// (read from that commit: the runner may have moved memory since).
	if !strings.Contains(out, "  stages:   ") {
		t.Fatalf("summary lacks stage times:\n%s", out)
	}
	memCommit, _, _ := strings.Cut(strings.TrimPrefix(out, "memory "), ":")
	var man struct {
		Timings map[string]float64 `json:"timings_ms"`
	}
	if err := json.Unmarshal([]byte(r.Git("show", memCommit+":"+memory.ManifestPath)), &man); err != nil {
		t.Fatal(err)
	}
	for _, stage := range []string{"extract", "history"} {
		if _, ok := man.Timings[stage]; !ok {
			t.Errorf("the manifest has no time for the %s stage: %v", stage, man.Timings)
		}
	}
	commits := func() int {
		var m struct {
			History struct {
				Commits int  `json:"commits"`
				Pending bool `json:"pending"`
			} `json:"history"`
		}
		o, _, err := tryRun(r.Dir, nil, "manifest", "--json")
		if err != nil || json.Unmarshal([]byte(o), &m) != nil || m.History.Pending {
			return 0
		}
		return m.History.Commits
	}
	waitRunner(t, r.Dir, func() bool { return commits() == n })
	// The oldest commit is in memory: why finds the file's first commit.
	var why history.WhyResult
	if err := json.Unmarshal([]byte(run(t, r.Dir, "why", "--json", "conf/parser.go")), &why); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, c := range why.Commits {
		found = found || c.Subject == "Add the config parser" && c.Added == 6
	}
	if !found {
		t.Fatalf("why after the backfill: %+v", why.Commits)
	}
	// Not a terminal: no progress line on stderr.
	r.Write("late.txt", "late\n")
	r.Commit("Late work")
	if _, errOut, err := tryRun(r.Dir, nil, "extract"); err != nil || errOut != "" {
		t.Fatalf("extract wrote to stderr off a terminal: %v %q", err, errOut)
	}
}

// TestPartialCloneSaysLinesUnknown: in a blob-less clone, why and history
// say the lines of old changes are unknown instead of showing -1 or
// "(binary)".
func TestPartialCloneSaysLinesUnknown(t *testing.T) {
	t.Parallel()
	src := historyRepo(t)
	src.Git("config", "uploadpack.allowFilter", "true")
	clone := testgit.At(t, t.TempDir())
	clone.Git("clone", "-q", "--filter=blob:none", "file://"+src.Dir, ".")
	if !strings.Contains(clone.Git("config", "--get-regexp", "remote.origin"), "partialclonefilter") {
		t.Skip("git made a full clone")
	}
	run(t, clone.Dir, "extract")
	why := run(t, clone.Dir, "why", "conf/parser.go")
	if !strings.Contains(why, "(lines unknown)") || strings.Contains(why, "+-1") || strings.Contains(why, "(binary)") {
		t.Fatalf("why in a partial clone:\n%s", why)
	}
	// The blobs the checkout fetched are counted.
	if !strings.Contains(why, "Move the parser into conf/") {
		t.Fatalf("why lost the move:\n%s", why)
	}
	hs := run(t, clone.Dir, "history", "default config")
	if !strings.Contains(hs, "(lines unknown)") || strings.Contains(hs, "(binary)") {
		t.Fatalf("history in a partial clone:\n%s", hs)
	}
}

// TestDeepenedCloneExtendsHistory: a shallow clone deepened by `git fetch
// --deepen` has the history it gained after the next ordinary extraction.
func TestDeepenedCloneExtendsHistory(t *testing.T) {
	t.Parallel()
	src := historyRepo(t)
	clone := testgit.At(t, t.TempDir())
	clone.Git("clone", "-q", "--depth", "1", "file://"+src.Dir, ".")
	if m := extractJSON(t, clone.Dir).Manifest; m.History == nil || m.History.Commits != 1 {
		t.Fatalf("depth 1: %+v", m.History)
	}
	clone.Git("fetch", "-q", "--unshallow")
	n := strings.Count(clone.Git("rev-list", "HEAD"), "\n") + 1
	clone.Write("late.txt", "late\n")
	clone.Commit("Late work")
	if m := extractJSON(t, clone.Dir).Manifest; m.History == nil || m.History.Commits != n+1 {
		t.Fatalf("unshallowed: %+v, want %d commits", m.History, n+1)
	}
	if why := run(t, clone.Dir, "why", "conf/parser.go"); !strings.Contains(why, "Add the config parser") {
		t.Fatalf("why after unshallow:\n%s", why)
	}
}
