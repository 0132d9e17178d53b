package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/extract/section/code"
	"github.com/konteks/git-konteks/gitstore"
)

// Doc-comment pairs: a definition's doc comment (the query) and the
// definition's code without that comment (the document), from the tree of
// a training repository at its pinned commit. Where a commit message says
// what changed in a project's words, a doc comment says what the code
// under it does; both are how an agent's task speaks of code.
//
// A pair's Commit field holds "doc:" and the file's path: the definitions
// of one file are never each other's negatives, as the files of one
// commit are not.

// Limits of the doc pairs of one repository.
const (
	maxDocFileBytes = 256 << 10
	docPairsPerFile = 8
)

// readDocPairs reads the doc pairs of one repository from its cache file,
// or makes them from its tree and writes the cache.
func readDocPairs(ctx context.Context, gitDir, commit, cache string, limit int) ([]pair, error) {
	return cachedPairs(cache, func() ([]pair, error) { return makeDocPairs(ctx, gitDir, commit, limit) })
}

// makeDocPairs sections the repository's source files at commit, in an
// order fixed by a hash of their paths, until limit pairs are made.
func makeDocPairs(ctx context.Context, gitDir, commit string, limit int) ([]pair, error) {
	repo, err := gitstore.Open(gitDir)
	if err != nil {
		return nil, err
	}
	files, err := docFiles(repo, commit)
	if err != nil {
		return nil, err
	}
	var ps []pair
	err = eachBlob(ctx, repo, files, func(p string, data []byte) error {
		ps = append(ps, filePairs(p, data)...)
		if len(ps) >= limit {
			return errEnough
		}
		return nil
	})
	if errors.Is(err, errEnough) {
		err = nil
	}
	if len(ps) > limit {
		ps = ps[:limit]
	}
	return ps, err
}

// errEnough stops a blob read once enough pairs are made.
var errEnough = errors.New("enough pairs")

// docFiles lists the files at commit a definition's doc comment is read
// from: source code with a grammar, not tests, vendored or generated
// code, in a deterministic pseudo-random order.
func docFiles(repo *gitstore.Repo, commit string) ([]gitstore.Entry, error) {
	c, err := repo.Resolve(commit)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", commit, err)
	}
	var files []gitstore.Entry
	err = repo.WalkTree(c.TreeHash, nil, func(e gitstore.Entry) error {
		if e.Kind == gitstore.KindFile && docSource(e.Path) {
			files = append(files, e)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("tree of %s: %w", commit, err)
	}
	sortByPathHash(files)
	return files, nil
}

var notDocSource = regexp.MustCompile(`(?i)(^|/)(vendor|node_modules|third_party|thirdparty|external|deps|testdata|fixtures?|tests?|__tests__|spec|specs|examples?|benchmarks?|dist|build|generated)/|[._-](test|spec|tests|min|generated|pb)\.[a-z]+$|Tests?\.[a-zA-Z]+$|^test_`)

// docSource says whether a path is source code whose doc comments train
// the model.
func docSource(p string) bool {
	return code.LanguageFor(p, "") != "" && !notDocSource.MatchString(p) && !strings.HasPrefix(path.Base(p), "test_")
}

// gitCmd runs git on a training repository in a hermetic environment.
func gitCmd(ctx context.Context, gitDir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", append([]string{"--git-dir=" + gitDir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_NO_REPLACE_OBJECTS=1")
	return cmd
}

var licenceDoc = regexp.MustCompile(`(?i)copyright|licen[cs]e|spdx|all rights reserved`)

// filePairs sections one file and makes a pair of each definition with a
// doc comment of at least minQueryToks tokens once its own name is taken
// out of it (a doc that only repeats the name teaches nothing the lexical
// half does not know).
func filePairs(p string, src []byte) []pair {
	res, ok, _ := code.Split(section.Input{Path: p, Content: src})
	if !ok {
		return nil
	}
	var out []pair
	for _, s := range res.Sections {
		if s.Doc == "" || s.Name == "" || licenceDoc.MatchString(s.Doc) {
			continue
		}
		q := docQuery(s.Doc, s.Name)
		if len(q) < minQueryToks {
			continue
		}
		body := withoutDoc(s.Content, s.Doc)
		d := tokens(p+"\n"+s.QName+"\n"+s.Signature+"\n"+body, maxDocTokens)
		if len(d) < minQueryToks {
			continue
		}
		out = append(out, pair{Commit: "doc:" + p, Query: q, Docs: [][]string{d}})
		if len(out) == docPairsPerFile {
			break
		}
	}
	return out
}

// docQuery is the tokens of a doc comment without the whole form of the
// name it documents (a compound name's parts stay: they are words).
func docQuery(doc, name string) []string {
	q := tokens(cleanMessage(doc), 0)
	nt := tokens(name, 0)
	if len(nt) < 2 {
		return q
	}
	return slices.DeleteFunc(q, func(t string) bool { return t == nt[0] })
}

// commentMarks are what a line of a comment starts or ends with, in the
// languages the code sectioner reads.
var commentMarks = []string{"///", "//!", "//", "/**", "/*", "*/", "*", "#", `"""`, `'''`, "--", ";"}

// withoutDoc drops the lines of content that are the doc comment: lines
// that, without comment marks, are a line of doc or empty.
func withoutDoc(content, doc string) string {
	docLines := map[string]bool{}
	for _, l := range strings.Split(doc, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			docLines[l] = true
		}
	}
	var b strings.Builder
	for _, l := range strings.SplitAfter(content, "\n") {
		t := strings.TrimSpace(l)
		marked := false
		for again := true; again; {
			again = false
			for _, m := range commentMarks {
				if strings.HasPrefix(t, m) {
					t, marked, again = strings.TrimSpace(t[len(m):]), true, true
				}
				if strings.HasSuffix(t, m) && len(t) >= len(m) {
					t, marked, again = strings.TrimSpace(t[:len(t)-len(m)]), true, true
				}
			}
		}
		if docLines[t] || marked && t == "" {
			continue
		}
		b.WriteString(l)
	}
	return b.String()
}
