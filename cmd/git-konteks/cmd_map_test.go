package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/memory"
)

func summary(t *testing.T, r *testgit.Repo, dir string) memory.DirSummary {
	t.Helper()
	var s memory.DirSummary
	if err := json.Unmarshal([]byte(run(t, r.Dir, "overview", "--json", dir)), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// changedSummaries lists the directory summaries an extraction rewrote,
// against the memory it replaced.
func changedSummaries(t *testing.T, r *testgit.Repo, rep extractReport) []string {
	t.Helper()
	out := r.Git("diff", "--name-only", rep.Previous, rep.Commit, "--", "dirs/")
	if out == "" {
		return nil
	}
	s := strings.Split(out, "\n")
	sort.Strings(s)
	return s
}

func TestSkeletonAndOverview(t *testing.T) {
	t.Parallel()
	r := mixedRepo(t)
	extractJSON(t, r.Dir)
	want := `import sync

type Store struct  // Store is a concurrency-safe map.
func New() *Store  // New returns an empty store.
    func (s *Store) Get(key string) (string, bool)  // Get returns the value for key.
    func (s *Store) Put(key, value string)  // Put sets key to value.`
	if got := strings.TrimSpace(run(t, r.Dir, "skeleton", "internal/store/store.go")); got != want {
		t.Fatalf("skeleton:\n%s\nwant:\n%s", got, want)
	}
	if _, errOut, err := tryRun(r.Dir, nil, "skeleton", "README.md"); err == nil || !strings.Contains(errOut, "no skeleton") {
		t.Fatalf("skeleton of Markdown: %v %s", err, errOut)
	}
	root := summary(t, r, "")
	if root.L0 != "A small repository with code, docs and configuration, used by the extraction tests of git konteks." {
		t.Fatalf("root L0 should come from the README: %q", root.L0)
	}
	if !strings.Contains(root.L1, "- internal/: ") || !strings.Contains(root.L1, "Package store keeps values in memory.") {
		t.Fatalf("root L1:\n%s", root.L1)
	}
	if s := summary(t, r, "internal/store"); s.L0 != "Package store keeps values in memory." || s.Freshness.Total != 2 {
		t.Fatalf("store summary: %+v", s)
	}
	if s := summary(t, r, "cmd"); !strings.Contains(s.L0, "Command app serves the store over HTTP.") {
		t.Fatalf("cmd L0 should carry its child's sentence: %q", s.L0)
	}
	for _, l := range []int{len(root.L0), len(summary(t, r, "config").L0)} {
		if l > 256 {
			t.Fatalf("an L0 is %d characters", l)
		}
	}
}

func TestSummariesRefreshOnlyAlongTheChangedPath(t *testing.T) {
	t.Parallel()
	r := testgit.New(t)
	r.WriteFiles(map[string]string{
		"README.md":      "# Project\n\nThe project root.\n",
		"a/b/README.md":  "# B\n\nB is the beta layer.\n",
		"a/b/c/x.go":     "// Package c does alpha work.\npackage c\n\nfunc X() int { return 1 }\n",
		"a/y/z.go":       "// Package y is a sibling.\npackage y\n",
		"a/other.txt":    "other text\n",
		"elsewhere/e.py": "\"\"\"Elsewhere is untouched.\"\"\"\n",
	})
	r.Commit("tree")
	extractJSON(t, r.Dir)

	// A body change that keeps the file's abstract touches no summary.
	r.Write("a/b/c/x.go", "// Package c does alpha work.\npackage c\n\nfunc X() int { return 2 }\n")
	r.Commit("body only")
	rep := extractJSON(t, r.Dir)
	if got := changedSummaries(t, r, rep); len(got) != 0 {
		t.Fatalf("a body-only change rewrote summaries: %v", got)
	}
	// A new package doc changes c's L0, hence b's L1; b's L0 comes from its
	// README and does not change, so the climb stops at b.
	r.Write("a/b/c/x.go", "// Package c does gamma work now.\npackage c\n\nfunc X() int { return 2 }\n")
	r.Commit("new doc")
	rep = extractJSON(t, r.Dir)
	m := rep.Manifest
	if got := changedSummaries(t, r, rep); strings.Join(got, ",") != "dirs/a/b/.dir,dirs/a/b/c/.dir" {
		t.Fatalf("summaries refreshed: %v, want exactly a/b/c and a/b", got)
	}
	if m.Run.Summaries != 2 {
		t.Fatalf("run refreshed %d summaries, want 2", m.Run.Summaries)
	}
	if s := summary(t, r, "a/b"); !strings.Contains(s.L1, "- c/: Package c does gamma work now.") || s.L0 != "B is the beta layer." {
		t.Fatalf("a/b after the change: %+v", s)
	}
	// A new file in a/y changes y's L1 only... and y's L0 stays its package doc.
	r.Write("a/y/w.go", "package y\n\nfunc W() {}\n")
	r.Commit("add w")
	rep = extractJSON(t, r.Dir)
	if got := changedSummaries(t, r, rep); strings.Join(got, ",") != "dirs/a/y/.dir" {
		t.Fatalf("adding a file refreshed %v", got)
	}
	// Deleting the only file of a/b/c removes its summary and refreshes b.
	r.Remove("a/b/c")
	r.Commit("drop c")
	rep = extractJSON(t, r.Dir)
	if got := changedSummaries(t, r, rep); strings.Join(got, ",") != "dirs/a/b/.dir,dirs/a/b/c/.dir" {
		t.Fatalf("deleting c refreshed %v", got)
	}
	if _, errOut, err := tryRun(r.Dir, nil, "overview", "a/b/c"); err == nil || !strings.Contains(errOut, "no summary") {
		t.Fatalf("summary of a deleted directory: %v %s", err, errOut)
	}
	assertMatchesRebuild(t, r)
}

func TestWideDirectoriesAreSampled(t *testing.T) {
	t.Parallel()
	r := testgit.New(t)
	for i := 0; i < 40; i++ {
		r.Write(fmt.Sprintf("wide/f%02d.md", i), fmt.Sprintf("# File %d\n\nFile number %d of the wide directory.\n", i, i))
	}
	r.Write("wide/README.md", "# Wide\n\nThe wide directory holds generated pages.\n")
	r.Commit("wide")
	extractJSON(t, r.Dir)
	s := summary(t, r, "wide")
	if s.Freshness.Total != 41 || s.Freshness.Sampled != 32 || s.Freshness.Unsampled != 9 || len(s.Children) != 32 {
		t.Fatalf("freshness: %+v (%d children)", s.Freshness, len(s.Children))
	}
	// The README is always read, whatever the sample: it says what the
	// directory is.
	if s.L0 != "The wide directory holds generated pages." {
		t.Fatalf("wide L0: %q", s.L0)
	}
	if !strings.Contains(s.L1, "9 more entries not read (sampled 32 of 41)") {
		t.Fatalf("L1 should say what was not read:\n%s", s.L1)
	}
	// The sample is stable: a rebuild picks the same children.
	extractJSON(t, r.Dir, "--mode", "rebuild")
	if again := summary(t, r, "wide"); fmt.Sprint(again.Children) != fmt.Sprint(s.Children) {
		t.Fatal("sample changed between runs")
	}
	// New files outside the sample are deferred until they pass 10%.
	sampled := map[string]bool{}
	for _, c := range s.Children {
		sampled[c.Name] = true
	}
	deferred := 0
	for i := 40; i < 60 && deferred < 2; i++ {
		name := fmt.Sprintf("f%02d.md", i)
		r.Write("wide/"+name, fmt.Sprintf("# File %d\n\nAdded later.\n", i))
		r.Commit("add " + name)
		extractJSON(t, r.Dir)
		now := summary(t, r, "wide")
		if now.Freshness.Pending > 0 {
			deferred++
			if float64(now.Freshness.Pending) > 0.1*float64(now.Freshness.Total) {
				t.Fatalf("pending %d exceeds 10%% of %d", now.Freshness.Pending, now.Freshness.Total)
			}
		}
	}
	if deferred == 0 {
		t.Fatal("no change was ever deferred")
	}
}

func TestGraphImportsAndStaleRows(t *testing.T) {
	t.Parallel()
	r := mixedRepo(t)
	r.WriteFiles(map[string]string{
		"py/pkg/__init__.py": "",
		"py/pkg/a.py":        "from .b import helper\nimport os\n\n\ndef run():\n    return helper()\n",
		"py/pkg/b.py":        "def helper():\n    return 1\n",
		"web/util.js":        "export function add(a, b) { return a + b }\n",
		"web/index.js":       "import { add } from './util'\nimport React from 'react'\n\nexport const three = add(1, 2)\n",
	})
	r.Commit("python and js")
	extractJSON(t, r.Dir)
	out := run(t, r.Dir, "graph", "cmd/app/main.go")
	if !strings.Contains(out, "imports      dir:internal/store") || !strings.Contains(out, "ext:net/http") {
		t.Fatalf("Go imports:\n%s", out)
	}
	if out := run(t, r.Dir, "graph", "internal/store"); !strings.Contains(out, "imported-by  file:cmd/app/main.go") {
		t.Fatalf("package importers:\n%s", out)
	}
	if out := run(t, r.Dir, "graph", "py/pkg/a.py"); !strings.Contains(out, "imports      file:py/pkg/b.py") || !strings.Contains(out, "ext:os") {
		t.Fatalf("Python imports:\n%s", out)
	}
	if out := run(t, r.Dir, "graph", "web/index.js"); !strings.Contains(out, "imports      file:web/util.js") || !strings.Contains(out, "ext:react") {
		t.Fatalf("JS imports:\n%s", out)
	}
	if out := run(t, r.Dir, "graph", "Store.Get"); !strings.Contains(out, "sym:internal/store/store.go#func:Store.Get") {
		t.Fatalf("symbol lookup:\n%s", out)
	}
	// Delete the store: its entities and edges leave memory with it.
	r.Remove("internal/store/store.go")
	r.Commit("drop store")
	extractJSON(t, r.Dir)
	if _, errOut, err := tryRun(r.Dir, nil, "graph", "Store.Get"); err == nil || !strings.Contains(errOut, "no entity") {
		t.Fatalf("stale symbol after delete: %v %s", err, errOut)
	}
	if out := run(t, r.Dir, "graph", "internal/store"); strings.Contains(out, "store.go") && !strings.Contains(out, "store_test.go") {
		t.Fatalf("stale contains edge:\n%s", out)
	}
}

func TestProjectPortraitAndModules(t *testing.T) {
	t.Parallel()
	r := mixedRepo(t)
	r.WriteFiles(map[string]string{
		"web/package.json":         `{"name":"mixed-web","version":"0.3.0","description":"The web client","scripts":{"build":"vite build","test":"vitest"},"dependencies":{"react":"^18"},"main":"app.js"}`,
		"Makefile":                 "build:\n\tgo build ./...\n\ntest: build\n\tgo test ./...\n",
		"Dockerfile":               "FROM golang:1.22 AS build\nFROM gcr.io/distroless/base\n",
		".github/workflows/ci.yml": "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n",
		"examples/demo.go":         "package main\n\nfunc main() {}\n",
	})
	r.Commit("portrait inputs")
	extractJSON(t, r.Dir)
	var out struct {
		Project struct {
			Name, Description string
			Languages         []struct{ Language string }
			Tech              []string
			Packages          []struct{ Path, Manager, Name, Version string }
			EntryPoints       []string `json:"entry_points"`
			Scripts           []struct{ Name, Command, Source string }
			CI                []string
			Docker            []string
			Dependencies      map[string][]string
		}
		Modules []struct {
			Name        string
			Files       int
			Roles       map[string]int
			EntryPoints []string `json:"entry_points"`
			Abstract    string
		}
	}
	if err := json.Unmarshal([]byte(run(t, r.Dir, "project", "--json")), &out); err != nil {
		t.Fatal(err)
	}
	p := out.Project
	if p.Name != "example.com/mixed" || !strings.HasPrefix(p.Description, "A small repository") || p.Languages[0].Language != "Go" {
		t.Fatalf("portrait: %+v", p)
	}
	pkgs := fmt.Sprint(p.Packages)
	if !strings.Contains(pkgs, "{ go example.com/mixed go 1.22}") || !strings.Contains(pkgs, "{web npm mixed-web 0.3.0}") {
		t.Fatalf("packages: %s", pkgs)
	}
	scripts := fmt.Sprint(p.Scripts)
	for _, want := range []string{"{build vite build web/package.json}", "{make test  Makefile}"} {
		if !strings.Contains(scripts, want) {
			t.Fatalf("scripts lack %q: %s", want, scripts)
		}
	}
	if fmt.Sprint(p.CI) != "[.github/workflows/ci.yml]" || len(p.Docker) != 2 || fmt.Sprint(p.Dependencies["npm"]) != "[react]" || !strings.Contains(fmt.Sprint(p.Tech), "React") {
		t.Fatalf("ci %v docker %v deps %v tech %v", p.CI, p.Docker, p.Dependencies, p.Tech)
	}
	if !strings.Contains(fmt.Sprint(p.EntryPoints), "cmd/app/main.go") || !strings.Contains(fmt.Sprint(p.EntryPoints), "web/app.js") {
		t.Fatalf("entry points: %v", p.EntryPoints)
	}
	mods := map[string]int{}
	for _, m := range out.Modules {
		mods[m.Name] = m.Files
		switch m.Name {
		case "internal":
			if m.Roles["source"] != 1 || m.Roles["test"] != 1 || !strings.Contains(m.Abstract, "Package store") {
				t.Fatalf("internal module: %+v", m)
			}
		case "examples":
			if m.Roles["examples"] != 1 {
				t.Fatalf("examples module: %+v", m)
			}
		case "cmd":
			if fmt.Sprint(m.EntryPoints) != "[cmd/app/main.go]" {
				t.Fatalf("cmd entry points: %+v", m)
			}
		}
	}
	if mods["internal"] != 2 || mods["web"] != 2 || mods["_root"] != 5 {
		t.Fatalf("module file counts: %v", mods)
	}
	// Counts follow changes; an emptied module disappears.
	r.Remove("internal")
	r.Commit("drop internal")
	extractJSON(t, r.Dir)
	if strings.Contains(run(t, r.Dir, "project"), "internal ") {
		t.Fatal("module of a deleted area still listed")
	}
	assertMatchesRebuild(t, r)
}
