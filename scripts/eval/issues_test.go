package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/recall"
)

func TestIsDocPath(t *testing.T) {
	for p, want := range map[string]bool{
		"CHANGELOG.md":                true,
		"actionview/CHANGELOG.md":     true,
		"HISTORY.rst":                 true,
		"History.rdoc":                true,
		"NEWS":                        true,
		"docs/changes.txt":            true,
		"RELEASE_NOTES.md":            true,
		"history/history.go":          false,
		"internal/release.rs":         false,
		"lib/news_feed.rb":            false,
		"src/changes/detector.py":     false,
		"activerecord/lib/changes.rb": false,
	} {
		if got := isDocPath(p); got != want {
			t.Errorf("isDocPath(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestIssueSets checks the committed issue sets: every line parses, names
// a full commit and a title, carries the reporter's text, and no issue is
// listed twice in a repository.
// TestIssueSets checks the evaluation's issue sets (scripts/eval/issues)
// and the learned ranker's (scripts/ranker/issues): well-formed lines,
// one set per repository of its list, and no repository in both lists,
// so that no issue the ranker is fitted on is one it is judged on.
func TestIssueSets(t *testing.T) {
	listed := func(list string) map[string]bool {
		srcs, err := readRepos(list)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, src := range srcs {
			out[src.Name] = true
		}
		return out
	}
	evalRepos, trainRepos := listed("repos.tsv"), listed(filepath.Join("..", "ranker", "repos.tsv"))
	for name := range trainRepos {
		if evalRepos[name] {
			t.Errorf("%s is in both the evaluation's and the ranker's lists", name)
		}
	}
	for _, set := range []struct {
		dir   string
		repos map[string]bool
	}{{"issues", evalRepos}, {filepath.Join("..", "ranker", "issues"), trainRepos}} {
		files, err := filepath.Glob(filepath.Join(set.dir, "*.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Fatalf("no issue sets under %s", set.dir)
		}
		hex := regexp.MustCompile(`^[0-9a-f]{40}$`)
		total := 0
		for _, f := range files {
			if name := strings.TrimSuffix(filepath.Base(f), ".jsonl"); !set.repos[name] {
				t.Errorf("%s: an issue set is named owner+name.jsonl after a repository of its list", f)
			}
			issues, err := readIssues(f)
			if err != nil {
				t.Fatal(err)
			}
			if len(issues) == 0 {
				t.Errorf("%s: empty issue set", f)
			}
			seen := map[int]bool{}
			for _, is := range issues {
				if seen[is.Issue] {
					t.Errorf("%s: issue #%d listed twice", f, is.Issue)
				}
				seen[is.Issue] = true
				if !hex.MatchString(is.Commit) {
					t.Errorf("%s #%d: commit %q is not 40 lower-case hex digits", f, is.Issue, is.Commit)
				}
				if strings.TrimSpace(is.Text) == "" {
					t.Errorf("%s #%d: no reporter text", f, is.Issue)
				}
			}
			total += len(issues)
		}
		t.Logf("%s: %d issues in %d sets", set.dir, total, len(files))
	}
}

// TestIssueAskedFromParent: an issue is asked from a checkout at its
// fix's parent. A file the fix changed and a later commit renamed away is
// still the answer there; with HEAD left at the newest commit, recall would
// leave it out as a file the checkout does not have.
func TestIssueAskedFromParent(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	r := testgit.New(t)
	r.WriteFiles(map[string]string{
		"server/router.go": "package server\n\n// Dispatch routes a request to its handler by method and path.\nfunc Dispatch(method, path string) string {\n\treturn method + \" \" + path\n}\n",
		"server/log.go":    "package server\n\n// Logf writes a line to the access log.\nfunc Logf(format string) string { return format }\n",
		"README.md":        "# demo\n\nA tiny server.\n",
	})
	r.Commit("initial")
	r.Write("server/router.go", "package server\n\n// Dispatch routes a request to its handler by method and path.\nfunc Dispatch(method, path string) string {\n\tif path == \"\" {\n\t\tpath = \"/\"\n\t}\n\treturn method + \" \" + path\n}\n")
	fix := r.Commit("server: dispatch an empty path to the root handler")
	r.Git("mv", "server/router.go", "server/dispatch.go")
	r.Commit("server: rename router.go")

	qs, err := evalRepo(source{Path: r.Dir, Name: "demo"}, setIssues, setInput{issues: []issue{{
		Issue: 1, Commit: fix,
		Title: "Dispatch panics when a request has an empty path",
		Text:  "Routing a request whose path is empty never reaches a handler; Dispatch should route it to the root.",
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 1 {
		t.Fatalf("got %d queries, want 1", len(qs))
	}
	if rs := qs[0].ranksBy[recall.Hybrid]; len(rs) != 1 || rs[0] == 0 {
		t.Errorf("server/router.go ranks %v in hybrid recall asked at the fix's parent; want it found", rs)
	}
	if head := r.Git("rev-parse", "HEAD"); head == fix {
		t.Errorf("the source's HEAD was moved")
	}
}

// TestIssuesLandedTogether: fixes with the same commit time (a rebase, a
// merged series) are asked ancestor first, whatever their order in the
// set, so that neither is left out as already in memory's history.
func TestIssuesLandedTogether(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	r := testgit.New(t) // every commit has the same date
	r.WriteFiles(map[string]string{
		"cookie.go":   "package web\n\n// SetCookie writes a Set-Cookie header with a max age.\nfunc SetCookie(name string, maxAge int) string { return name }\n",
		"redirect.go": "package web\n\n// Redirect sends a Location header.\nfunc Redirect(url string) string { return url }\n",
	})
	r.Commit("initial")
	r.Write("cookie.go", "package web\n\n// SetCookie writes a Set-Cookie header with a max age.\nfunc SetCookie(name string, maxAge int) string {\n\tif maxAge < 0 {\n\t\tmaxAge = 0\n\t}\n\treturn name\n}\n")
	first := r.Commit("cookie: a negative max age expires the cookie")
	r.Write("redirect.go", "package web\n\n// Redirect sends a Location header.\nfunc Redirect(url string) string {\n\tif url == \"\" {\n\t\turl = \"/\"\n\t}\n\treturn url\n}\n")
	second := r.Commit("redirect: an empty location goes to the root")

	qs, err := evalRepo(source{Path: r.Dir, Name: "demo"}, setIssues, setInput{issues: []issue{
		{Issue: 2, Commit: second, Title: "Redirect to an empty URL sends no Location header", Text: "res redirect with an empty url should go to /"},
		{Issue: 1, Commit: first, Title: "Cookie with a negative max age never expires", Text: "SetCookie with maxAge -1 keeps the cookie"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 2 {
		t.Fatalf("got %d queries, want both issues asked", len(qs))
	}
	if qs[0].Commit != first || qs[1].Commit != second {
		t.Errorf("asked %.7s then %.7s; want the ancestor %.7s first", qs[0].Commit, qs[1].Commit, first)
	}
}

// A cached run must ask each query of the memory the run that extracted
// it asked. Two fixes with the same parent, asked with a fix of another
// line between them: the second was extracted again at the parent after
// memory had moved to the other line, and its memory (whose history
// holds that line too) replaced the first one's in the cache, so a
// cached run asked the first fix of other memory than the fresh run did.
func TestCachedRunAsksTheSameMemory(t *testing.T) {
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	r := testgit.New(t)
	r.WriteFiles(map[string]string{
		"cookie.go":   "package web\n\n// SetCookie writes a Set-Cookie header.\nfunc SetCookie(name string) string { return name }\n",
		"redirect.go": "package web\n\n// Redirect sends a Location header.\nfunc Redirect(url string) string { return url }\n",
		"header.go":   "package web\n\n// Header reads a request header.\nfunc Header(name string) string { return name }\n",
	})
	base := r.Commit("initial")
	r.Write("cookie.go", "package web\n\n// SetCookie writes a Set-Cookie header.\nfunc SetCookie(name string) string {\n\tif name == \"\" {\n\t\tname = \"session\"\n\t}\n\treturn name\n}\n")
	cookie := r.Commit("cookie: an empty name is the session cookie")
	r.Git("checkout", "-q", "-b", "other", base)
	r.Write("header.go", "package web\n\n// Header reads a request header.\nfunc Header(name string) string { return name + \"\" }\n")
	r.Commit("header: prepare")
	r.Write("header.go", "package web\n\nimport \"strings\"\n\n// Header reads a request header, whatever its case.\nfunc Header(name string) string { return strings.ToLower(name) }\n")
	header := r.Commit("header: names are case-insensitive")
	r.Git("checkout", "-q", "-b", "third", base)
	r.Write("redirect.go", "package web\n\n// Redirect sends a Location header.\nfunc Redirect(url string) string {\n\tif url == \"\" {\n\t\turl = \"/\"\n\t}\n\treturn url\n}\n")
	redirect := r.Commit("redirect: an empty location goes to the root")

	issues := []issue{
		{Issue: 1, Commit: cookie, Title: "A cookie without a name is dropped", Text: "SetCookie with an empty name"},
		{Issue: 2, Commit: header, Title: "Header names are case-sensitive", Text: "Header(\"Content-Type\") misses content-type"},
		{Issue: 3, Commit: redirect, Title: "Redirect to an empty URL sends no Location header", Text: "Redirect(\"\") should go to /"},
	}
	old := *cache
	*cache = t.TempDir()
	defer func() { *cache = old }()
	src := source{Path: r.Dir, Name: "demo"}
	fresh, err := evalRepo(src, setIssues, setInput{issues: issues})
	if err != nil {
		t.Fatal(err)
	}
	cached, err := evalRepo(src, setIssues, setInput{issues: issues})
	if err != nil {
		t.Fatal(err)
	}
	if len(fresh) != 3 || len(cached) != 3 {
		t.Fatalf("asked %d issues fresh and %d cached, want 3 each", len(fresh), len(cached))
	}
	for i := range fresh {
		if fresh[i].Commit != cached[i].Commit || fresh[i].Memory != cached[i].Memory {
			t.Errorf("query %d: fresh asked %.7s of memory %.7s, cached %.7s of %.7s", i, fresh[i].Commit, fresh[i].Memory, cached[i].Commit, cached[i].Memory)
		}
	}
	if fresh[0].Memory != fresh[2].Memory {
		t.Errorf("the two fixes of one parent were asked of memory %.7s and %.7s, want the same", fresh[0].Memory, fresh[2].Memory)
	}
}

// TestCheckSetDir: a missing or wrong -issues or -questions directory is an error,
// not a run that silently asks no issue.
func TestCheckSetDir(t *testing.T) {
	dir := t.TempDir()
	if err := checkSetDir("issues", dir); err != nil {
		t.Errorf("an existing directory: %v", err)
	}
	if err := checkSetDir("questions", filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "-questions") {
		t.Error("a missing directory was accepted")
	}
	f := filepath.Join(dir, "file.jsonl")
	if err := os.WriteFile(f, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := checkSetDir("issues", f); err == nil {
		t.Error("a file was accepted as the issue directory")
	}
}
