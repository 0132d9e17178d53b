package main

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/internal/testgit"
)

func TestDocPairs(t *testing.T) {
	testgit.Setenv(t)
	r := testgit.New(t)
	r.WriteFiles(map[string]string{
		"net/retry.go": `// Copyright 2020 The Authors. Licensed under the MIT licence.

package net

// backoffDelay waits longer after each failed attempt, doubling up to a ceiling.
func backoffDelay(attempt int) int {
	d := 1 << attempt
	// a comment inside stays
	return min(d, 64)
}

// Short doc.
func short() {}

func undocumented() int { return 1 }
`,
		"lib/parse.py": `def read_config(path):
    """Open the settings file and return its sections as a dictionary."""
    with open(path) as f:
        return load(f)
`,
		"net/retry_test.go": "package net\n\n// testing backoff delays for every attempt count\nfunc TestBackoff(t *testing.T) {}\n",
		"vendor/x/x.go":     "package x\n\n// vendored code is somebody else's words entirely\nfunc Vendored() {}\n",
		"README.md":         "# net\n\nretries with backoff\n",
	})
	commit := r.Commit("code with docs")
	gitDir := filepath.Join(r.Dir, ".git")

	ps, err := makeDocPairs(context.Background(), gitDir, commit, 100)
	if err != nil {
		t.Fatal(err)
	}
	byFile := map[string]pair{}
	for _, p := range ps {
		byFile[strings.TrimPrefix(p.Commit, "doc:")] = p
	}
	if len(ps) != 2 || len(byFile) != 2 {
		t.Fatalf("want a pair from retry.go and one from parse.py, got %d: %+v", len(ps), ps)
	}
	g := byFile["net/retry.go"]
	if !slices.Contains(g.Query, "ceil") || !slices.Contains(g.Query, "backoff") || slices.Contains(g.Query, "backoffdelay") {
		t.Errorf("query keeps the doc's words and drops the whole name: %v", g.Query)
	}
	if slices.Contains(g.Docs[0], "ceil") || slices.Contains(g.Docs[0], "doubl") {
		t.Errorf("the document keeps its doc comment: %v", g.Docs[0])
	}
	if !slices.Contains(g.Docs[0], "backoffdelay") || !slices.Contains(g.Docs[0], "insid") || !slices.Contains(g.Docs[0], "attempt") {
		t.Errorf("the document lost the definition's code or inner comments: %v", g.Docs[0])
	}
	py := byFile["lib/parse.py"]
	if !slices.Contains(py.Query, "dictionari") || slices.Contains(py.Docs[0], "dictionari") || !slices.Contains(py.Docs[0], "load") {
		t.Errorf("python docstring pair: query %v, document %v", py.Query, py.Docs[0])
	}

	checkLimitAndCache(t, gitDir, commit, makeDocPairs, readDocPairs)
}

// checkLimitAndCache checks that a pair maker stops at its limit and that
// its cache gives back what it made, with the repository gone.
func checkLimitAndCache(t *testing.T, gitDir, commit string,
	make func(ctx context.Context, gitDir, commit string, limit int) ([]pair, error),
	read func(ctx context.Context, gitDir, commit, cache string, limit int) ([]pair, error)) {
	t.Helper()
	if ps, err := make(context.Background(), gitDir, commit, 1); err != nil || len(ps) != 1 {
		t.Fatalf("limit 1: %d pairs, %v", len(ps), err)
	}
	cache := filepath.Join(t.TempDir(), "pairs.gz")
	first, err := read(context.Background(), gitDir, commit, cache, 100)
	if err != nil {
		t.Fatal(err)
	}
	again, err := read(context.Background(), "/nonexistent", commit, cache, 100)
	if err != nil || len(again) != len(first) || len(first) == 0 || strings.Join(again[len(again)-1].Query, " ") != strings.Join(first[len(first)-1].Query, " ") {
		t.Fatalf("cache: %v, %d pairs of %d", err, len(again), len(first))
	}
}

func TestWithoutDoc(t *testing.T) {
	for _, c := range []struct{ content, doc, want string }{
		{"/**\n * Opens it.\n * @return the handle\n */\nint open();\n", "Opens it.\n@return the handle", "int open();\n"},
		{"/// Counts rows.\nfn count() {}\n", "Counts rows.", "fn count() {}\n"},
		{"# Runs the job.\ndef run():\n    # not the doc\n    go()\n", "Runs the job.", "def run():\n    # not the doc\n    go()\n"},
		{"#include <x.h>\n/* Frees p. */\nvoid f(int *p) {\n  *p = 0;\n}\n", "Frees p.", "#include <x.h>\nvoid f(int *p) {\n  *p = 0;\n}\n"},
	} {
		if got := withoutDoc(c.content, c.doc); got != c.want {
			t.Errorf("withoutDoc(%q)\n got %q\nwant %q", c.content, got, c.want)
		}
	}
}
