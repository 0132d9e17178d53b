package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/history"
	"github.com/konteks/git-konteks/internal/testgit"
)

// historyRepo scripts a history with a rename, a bot, a formatting commit,
// a revert and a merge.
func historyRepo(t *testing.T) *testgit.Repo {
	r := testgit.New(t)
	r.Write("parser.go", "package conf\n\n// Parse reads a config file.\nfunc Parse(s string) string {\n\treturn s\n}\n")
	r.Write("README.md", "# conf\n")
	r.Commit("Add the config parser")
	r.Write("parser.go", "package conf\n\n// Parse reads a config file.\nfunc Parse(s string) string {\n\tif s == \"\" {\n\t\treturn \"default\"\n\t}\n\treturn s\n}\n")
	r.Commit("Parse falls back to the default config on empty input")
	if err := os.Mkdir(filepath.Join(r.Dir, "conf"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.Git("mv", "parser.go", "conf/parser.go")
	r.Commit("Move the parser into conf/")
	r.Write("go.mod", "module conf\n")
	r.Git("add", "-A")
	r.Git("commit", "-q", "--author", "renovate[bot] <bot@renovateapp.com>", "-m", "chore(deps): update module")
	r.Write("conf/parser.go", "package conf\n\n// Parse reads a config file.\nfunc Parse(s string) string {\n    if s == \"\" {\n        return \"default\"\n    }\n    return s\n}\n")
	r.Commit("Reformat with four spaces")
	r.Write("notes.txt", "oops\n")
	bad := r.Commit("Add notes")
	r.Git("revert", "--no-edit", bad)
	r.Git("checkout", "-q", "-b", "side")
	r.Write("conf/cache.go", "package conf\n")
	r.Commit("Cache parsed configs")
	r.Git("checkout", "-q", "main")
	r.Git("merge", "-q", "--no-ff", "-m", "Merge the cache", "side")
	return r
}

func TestHistoryWhyAndQuestions(t *testing.T) {
	t.Parallel()
	r := historyRepo(t)
	m := extractJSON(t, r.Dir).Manifest
	n := strings.Count(r.Git("rev-list", "HEAD"), "\n") + 1
	if m.History == nil || m.History.Commits != n || m.History.New != n {
		t.Fatalf("manifest history %+v, want %d commits", m.History, n)
	}
	if out := run(t, r.Dir, "manifest"); !strings.Contains(out, fmt.Sprintf("history:        %d commits (%d new this run), 0 segments", n, n)) {
		t.Fatalf("manifest text lacks history:\n%s", out)
	}

	// why a file: follows the move, leaves the formatting commit out.
	var why history.WhyResult
	if err := json.Unmarshal([]byte(run(t, r.Dir, "why", "--json", "conf/parser.go")), &why); err != nil {
		t.Fatal(err)
	}
	var subjects []string
	for _, c := range why.Commits {
		subjects = append(subjects, c.Subject)
	}
	got := strings.Join(subjects, "|")
	for _, want := range []string{"Add the config parser", "Parse falls back to the default config on empty input", "Move the parser into conf/"} {
		if !strings.Contains(got, want) {
			t.Fatalf("why conf/parser.go lacks %q: %s", want, got)
		}
	}
	if strings.Contains(got, "Reformat") || why.Skipped != 1 || len(why.Names) != 2 || why.Names[1] != "parser.go" {
		t.Fatalf("why conf/parser.go: %+v", why)
	}
	// why a symbol and a line: blame, whitespace changes ignored.
	out := run(t, r.Dir, "why", "conf/parser.go#func:Parse")
	if !strings.Contains(out, "by blame") || !strings.Contains(out, "Parse falls back to the default config") || strings.Contains(out, "Reformat") {
		t.Fatalf("why #func:Parse:\n%s", out)
	}
	out = run(t, r.Dir, "why", "conf/parser.go:6")
	if !strings.Contains(out, "Parse falls back") {
		t.Fatalf("why :6:\n%s", out)
	}
	if _, errOut, err := tryRun(r.Dir, nil, "why", "conf/parser.go#func:Nope"); err == nil || !strings.Contains(errOut, "no section") {
		t.Fatalf("unknown anchor: %v %s", err, errOut)
	}

	// history: the question finds the commit and its files.
	var hs history.SearchResult
	if err := json.Unmarshal([]byte(run(t, r.Dir, "history", "--json", "--limit", "3", "default config empty input")), &hs); err != nil {
		t.Fatal(err)
	}
	if len(hs.Hits) == 0 || !strings.HasPrefix(hs.Hits[0].Subject, "Parse falls back") || hs.Hits[0].Changes[0].Path != "parser.go" {
		t.Fatalf("history: %+v", hs)
	}
	if out := run(t, r.Dir, "history", "cache"); !strings.Contains(out, "A conf/cache.go +1 -0") {
		t.Fatalf("history cache:\n%s", out)
	}

	// One new commit: history writes its tail and state, nothing else.
	r.Write("conf/cache.go", "package conf\n\n// Cache keeps parsed configs.\n")
	r.Commit("Document the cache")
	rep := extractJSON(t, r.Dir)
	m = rep.Manifest
	if m.History.New != 1 || m.History.Commits != n+1 {
		t.Fatalf("append: %+v", m.History)
	}
	changed := r.Git("diff-tree", "-r", "--name-only", rep.Previous, rep.Commit, "--", "history")
	if changed != "history/state\nhistory/tail" {
		t.Fatalf("one commit rewrote: %q", changed)
	}
}

func TestCorruptHistoryRebuilds(t *testing.T) {
	t.Parallel()
	r := historyRepo(t)
	extractJSON(t, r.Dir)
	// A hostile peer's memory: the tail is not what it claims.
	idx := filepath.Join(t.TempDir(), "index")
	env := []string{"GIT_INDEX_FILE=" + idx}
	gitOut := func(args ...string) string {
		out, err := execGit(r.Dir, env, args...).Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	bad := r.GitStdin("not a history segment", "hash-object", "-w", "--stdin")
	gitOut("read-tree", "refs/konteks")
	gitOut("update-index", "--cacheinfo", "100644,"+bad+",history/tail")
	tree := gitOut("write-tree")
	c := r.GitStdin("hostile\n", "commit-tree", tree, "-p", "refs/konteks")
	r.Git("update-ref", "refs/konteks", c)

	if _, errOut, err := tryRun(r.Dir, nil, "why", "conf/parser.go"); err == nil || !strings.Contains(errOut, "--mode rebuild") {
		t.Fatalf("why on corrupt history: %v %s", err, errOut)
	}
	r.Write("x.txt", "x\n")
	r.Commit("One more")
	if _, errOut, err := tryRun(r.Dir, nil, "extract"); err == nil || !strings.Contains(errOut, "--mode rebuild") {
		t.Fatalf("extract on corrupt history: %v %s", err, errOut)
	}
	m := extractJSON(t, r.Dir, "--mode", "rebuild").Manifest
	if n := strings.Count(r.Git("rev-list", "HEAD"), "\n") + 1; m.History == nil || m.History.Commits != n {
		t.Fatalf("rebuild: %+v", m.History)
	}
	if out := run(t, r.Dir, "why", "conf/parser.go"); !strings.Contains(out, "Add the config parser") {
		t.Fatalf("why after rebuild:\n%s", out)
	}
	// Disabled: history leaves memory.
	r.Git("config", "konteks.history.enabled", "false")
	r.Write("x.txt", "y\n")
	r.Commit("And one more")
	if m := extractJSON(t, r.Dir).Manifest; m.History != nil {
		t.Fatalf("disabled history: %+v", m.History)
	}
	if _, errOut, err := tryRun(r.Dir, nil, "history", "cache"); err == nil || !strings.Contains(errOut, "no history") {
		t.Fatalf("history when disabled: %v %s", err, errOut)
	}
}
