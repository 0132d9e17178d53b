package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// source is one repository to evaluate: a git directory, the name its
// issue sets and tables use (owner+name), and, from the committed list,
// the commit its queries are drawn below, its language and its set.
type source struct {
	Path string
	Name string // owner+name
	Pin  string // 40-hex commit; "" for an ad-hoc repository (its HEAD)
	Lang string
	Set  string // dev, test, swebench, train; "" ad hoc
}

// Splits of the committed list.
const (
	splitDev      = "dev"
	splitTest     = "test"
	splitSWEBench = "swebench"
	// splitTrain is the learned ranker's training repositories
	// (scripts/ranker/repos.tsv): never evaluated on.
	splitTrain = "train"
)

// readRepos reads a repository list (scripts/eval/repos.tsv): one
// repository a line, tab-separated owner/name, pinned commit, language and
// set; blank lines and lines starting with # are skipped.
func readRepos(file string) ([]source, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []source
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Split(line, "\t")
		if len(fs) != 4 {
			return nil, fmt.Errorf("%s:%d: want 4 tab-separated fields (owner/name, commit, language, set), have %d", file, n, len(fs))
		}
		repo, pin, lang, set := fs[0], fs[1], fs[2], fs[3]
		owner, name, ok := strings.Cut(repo, "/")
		if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
			return nil, fmt.Errorf("%s:%d: %q is not owner/name", file, n, repo)
		}
		if !isHex40(pin) {
			return nil, fmt.Errorf("%s:%d: %s: commit %q is not 40 lower-case hex digits", file, n, repo, pin)
		}
		switch set {
		case splitDev, splitTest, splitSWEBench, splitTrain:
		default:
			return nil, fmt.Errorf("%s:%d: %s: set %q is not dev, test, swebench or train", file, n, repo, set)
		}
		if lang == "" {
			return nil, fmt.Errorf("%s:%d: %s: no language", file, n, repo)
		}
		if seen[repo] {
			return nil, fmt.Errorf("%s:%d: %s listed twice", file, n, repo)
		}
		seen[repo] = true
		out = append(out, source{Name: owner + "+" + name, Pin: pin, Lang: lang, Set: set})
	}
	return out, sc.Err()
}

// selectRepos resolves the list's repositories of the given sets
// (comma-separated) under dir, where scripts/fetch-repos.sh cloned them;
// a missing one is an error that says how to fetch it.
func selectRepos(list []source, dir, sets string) ([]source, error) {
	want := map[string]bool{}
	for _, s := range strings.Split(sets, ",") {
		want[strings.TrimSpace(s)] = true
	}
	var out []source
	for _, s := range list {
		if !want[s.Set] {
			continue
		}
		s.Path = filepath.Join(dir, s.Name)
		if _, err := os.Stat(s.Path); err != nil {
			return nil, fmt.Errorf("%s is missing from %s: run scripts/fetch-repos.sh with KONTEKS_REPOS=%s", s.Name, dir, dir)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no repository of split %q in the list", sets)
	}
	return out, nil
}

func isHex40(s string) bool {
	if len(s) != 40 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
