package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/konteks/git-konteks/recall"
)

// issue is one line of an issue set (scripts/eval/issues/<owner>+<name>.jsonl):
// a real GitHub issue, as its reporter wrote it (title and an excerpt of
// the opening text), and the commit that fixed it ("Fixes #N" in its
// message). The query is the title and the text; the answer is the
// non-test files the fix changed that existed at its parent.
type issue struct {
	Issue  int    `json:"issue"`
	Commit string `json:"commit"`
	Title  string `json:"title"`
	Text   string `json:"text"`
}

// issueFile names the issue set of a repository: the mirror's directory
// name (owner+name), as repoName gives it.
func issueFile(dir, name string) string { return filepath.Join(dir, name+".jsonl") }

// checkSetDir refuses a set directory (-issues, -questions) that is not
// there: a repository without a file of its own has no set, so a wrong
// directory (the defaults are relative to the repository's root) would
// otherwise ask nothing and report an empty set.
func checkSetDir(flagName, dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("-%s %s: %w (the default is relative to the repository's root)", flagName, dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("-%s %s: not a directory", flagName, dir)
	}
	return nil
}

// taskText is what an issue or a question asks: its title, then its text.
func taskText(title, text string) string {
	if t := strings.TrimSpace(text); t != "" {
		return capText(title + "\n\n" + t)
	}
	return capText(title)
}

func readIssues(file string) ([]issue, error) {
	return readLines(file, func(is issue) error {
		if len(is.Commit) != 40 || is.Title == "" {
			return fmt.Errorf("an issue needs a 40-hex commit and a title")
		}
		return nil
	})
}

// readLines reads a JSON Lines file of Ts, blank lines skipped; check
// refuses a value, and its error is reported with the file and line.
func readLines[T any](file string, check func(T) error) ([]T, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var v T
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", file, n, err)
		}
		if err := check(v); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", file, n, err)
		}
		out = append(out, v)
	}
	return out, sc.Err()
}

// pickIssues turns an issue set into candidates, oldest fix first (memory
// is extracted forward, as the post-commit hook would): the parent of each
// fix, the issue's title and text as the query, the fix's non-test
// changed files as the answer.
func pickIssues(dir string, issues []issue) ([]candidate, error) {
	var ds []dated
	for _, is := range issues {
		out, err := git(dir, "log", "-1", "--format=%P%x00%ct", is.Commit)
		if err != nil {
			return nil, fmt.Errorf("issue #%d: %w", is.Issue, err)
		}
		parents, when, _ := strings.Cut(strings.TrimSpace(out), "\x00")
		ps := strings.Fields(parents)
		if len(ps) != 1 {
			return nil, fmt.Errorf("issue #%d: fix %.10s is a merge or a root commit", is.Issue, is.Commit)
		}
		changed, err := changedAtParent(dir, ps[0], is.Commit)
		if err != nil {
			return nil, err
		}
		var impl []string
		for _, p := range changed {
			if !recall.IsTestPath(p) && !isDocPath(p) {
				impl = append(impl, p)
			}
		}
		if len(impl) == 0 {
			continue
		}
		ds = append(ds, dated{candidate{id: fmt.Sprintf("#%d", is.Issue), commit: is.Commit, parent: ps[0], msg: taskText(is.Title, is.Text), changed: impl}, when})
	}
	oldestFirst(ds)
	// Fixes landed together (a rebase, a merged series) share a commit
	// time; among them an ancestor must come first, or memory extracted at
	// the descendant's parent would already hold the ancestor's fix and
	// its query would be left out.
	for i := 0; i < len(ds); i++ {
		for j := i + 1; j < len(ds) && ds[j].when == ds[i].when; j++ {
			if isAncestor(dir, ds[j].c.commit, ds[i].c.commit) {
				d := ds[j]
				copy(ds[i+1:j+1], ds[i:j])
				ds[i] = d
			}
		}
	}
	return undated(ds), nil
}

// dated is a candidate with the commit time (Unix seconds, as git prints
// them) it is ordered by.
type dated struct {
	c    candidate
	when string
}

// oldestFirst sorts candidates by commit time, keeping the order of ties.
func oldestFirst(ds []dated) {
	sort.SliceStable(ds, func(i, j int) bool { return ds[i].when < ds[j].when })
}

// undated is the candidates of ds, in order.
func undated(ds []dated) []candidate {
	out := make([]candidate, len(ds))
	for i, d := range ds {
		out[i] = d.c
	}
	return out
}

// isAncestor reports whether commit a is an ancestor of commit b.
func isAncestor(dir, a, b string) bool {
	_, err := git(dir, "merge-base", "--is-ancestor", a, b)
	return err == nil
}

// isDocPath reports whether a changed file is a changelog or release note:
// a fix records itself there, but no one asks for it. Only documents
// count (CHANGELOG.md, HISTORY.rst, NEWS, History.rdoc...): a source file
// that happens to be named history.go or release.rs is part of the answer.
func isDocPath(p string) bool {
	b := strings.ToLower(path.Base(p))
	ext := path.Ext(b)
	switch ext {
	case "", ".md", ".markdown", ".rst", ".txt", ".adoc", ".asciidoc", ".org", ".rdoc":
	default:
		return false
	}
	stem := strings.TrimSuffix(b, ext)
	for _, s := range []string{"changelog", "changes", "history", "news", "release"} {
		if strings.HasPrefix(stem, s) {
			return true
		}
	}
	return false
}

// textCap bounds an issue's query (title and text): long tasks — templates,
// logs, stack traces — are asked whole up to it, as an agent is handed them.
const textCap = 8000

// capText cuts s to textCap bytes at a character boundary.
func capText(s string) string {
	if len(s) <= textCap {
		return s
	}
	i := textCap
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}
