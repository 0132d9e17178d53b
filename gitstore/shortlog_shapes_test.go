package gitstore

import (
	"context"
	"encoding/hex"
	"reflect"
	"testing"

	"github.com/konteks/git-konteks/internal/testgit"
)

// Shapes of commits and trees found by review, each once listed without
// git otherwise than git lists it (see TestShortLogAsGit for the common
// ones).

// shortLogRepo is a repository with a root and one more commit (base),
// the commit the walks below stop at.
func shortLogRepo(t *testing.T, config ...string) (*testgit.Repo, string) {
	t.Helper()
	r := testgit.New(t)
	for i := 0; i+1 < len(config); i += 2 {
		r.Git("config", config[i], config[i+1])
	}
	r.Write("a.txt", "a\n")
	r.Commit("root")
	r.Write("b.txt", "b\n")
	return r, r.Commit("base")
}

// shortLogSameAsGit fails when shortLog lists tip ^stop and git log
// lists it otherwise, or fails.
func shortLogSameAsGit(t *testing.T, repo *Repo, what, tip, stop string) {
	t.Helper()
	opt := LogOptions{Include: []Hash{ParseHash(tip)}, Exclude: []Hash{ParseHash(stop)}, TreesOnly: true}
	got, ok := repo.shortLog(opt, true)
	useShortLog = false
	defer func() { useShortLog = true }()
	var want []*LogCommit
	err := repo.Log(context.Background(), opt, func(c *LogCommit) error { want = append(want, c); return nil })
	if !ok {
		return
	}
	if err != nil {
		t.Errorf("%s: listed without git (%d commits), git log fails: %v", what, len(got), err)
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: without git\n%s\ngit log\n%s", what, dump(got), dump(want))
	}
}

// go-git canonicalises a tree entry's mode before shortLog sees it, and
// takes any x bit (mode&0o111) for an executable; git's canon_mode takes
// the owner's (mode&0o100) only.
func TestShortLogModeAsGit(t *testing.T) {
	r, base := shortLogRepo(t)
	repo, err := Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	blob := r.GitStdin("x\n", "hash-object", "-w", "--stdin")
	id, _ := hex.DecodeString(blob)
	tree := func(mode string) string {
		return r.GitStdin(mode+" f\x00"+string(id), "hash-object", "-t", "tree", "-w", "--stdin", "--literally")
	}
	commit := func(tree, parent string) string {
		return r.GitStdin("tree "+tree+"\nparent "+parent+"\nauthor A <a@example.com> 1700000000 +0100\ncommitter C <c@example.com> 1700000000 +0100\n\nm\n",
			"hash-object", "-t", "commit", "-w", "--stdin", "--literally")
	}
	p := commit(tree("100644"), base)
	for _, mode := range []string{"100654", "100645", "100677"} {
		shortLogSameAsGit(t, repo, mode, commit(tree(mode), p), p)
	}
}

// git reads a commit's tree from its first line and its parents from
// the lines right after it; shortLog takes a "tree" or "parent" line
// anywhere in the header.
func TestShortLogHeaderLayoutAsGit(t *testing.T) {
	r, base := shortLogRepo(t)
	repo, err := Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	tree := r.Git("rev-parse", base+"^{tree}")
	other := r.GitStdin("", "hash-object", "-t", "tree", "-w", "--stdin")
	author := "author A <a@example.com> 1700000000 +0100\n"
	committer := "committer C <c@example.com> 1700000000 +0100\n"
	for _, c := range []struct{ what, obj string }{
		{"a parent line after the author", "tree " + tree + "\n" + author + "parent " + base + "\n" + committer + "\nm\n"},
		{"a second tree line", "tree " + tree + "\nparent " + base + "\n" + author + committer + "tree " + other + "\n\nm\n"},
		{"the tree line not first", "parent " + base + "\ntree " + tree + "\n" + author + committer + "\nm\n"},
	} {
		h := r.GitStdin(c.obj, "hash-object", "-t", "commit", "-w", "--stdin", "--literally")
		shortLogSameAsGit(t, repo, c.what, h, base)
	}
}

// git reads a commit's header as a C string: a NUL ends the author line
// there, and a NUL at the start of a line ends the header.
func TestShortLogNULInHeaderAsGit(t *testing.T) {
	r, base := shortLogRepo(t)
	repo, err := Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	tree := r.Git("rev-parse", base+"^{tree}")
	for _, c := range []struct{ what, header string }{
		{"a NUL in the author's name", "author A\x00B <a@example.com> 1700000000 +0100\ncommitter C <c@example.com> 1700000000 +0100\n"},
		{"a NUL starting a header line", "author A <a@example.com> 1700000000 +0100\ncommitter C <c@example.com> 1700000000 +0100\n\x00x\n"},
	} {
		h := r.GitStdin("tree "+tree+"\nparent "+base+"\n"+c.header+"\nm\n", "hash-object", "-t", "commit", "-w", "--stdin", "--literally")
		shortLogSameAsGit(t, repo, c.what, h, base)
	}
}

// git log re-encodes a UTF-8 commit's author and message to
// i18n.logOutputEncoding (by default i18n.commitEncoding).
func TestShortLogOutputEncodingAsGit(t *testing.T) {
	for _, key := range []string{"i18n.logOutputEncoding", "i18n.commitEncoding"} {
		r, base := shortLogRepo(t)
		tree := r.Git("rev-parse", base+"^{tree}")
		h := r.GitStdin("tree "+tree+"\nparent "+base+"\nauthor Zo\u00eb <z@example.com> 1700000000 +0100\ncommitter C <c@example.com> 1700000000 +0100\n\ncaf\u00e9\n",
			"hash-object", "-t", "commit", "-w", "--stdin", "--literally")
		r.Git("config", key, "ISO-8859-1")
		repo, err := Open(r.Dir)
		if err != nil {
			t.Fatal(err)
		}
		shortLogSameAsGit(t, repo, key, h, base)
	}
}

// A zero tip with no exclusion present: git log fails ("bad object"),
// shortLog lists nothing, successfully.
func TestShortLogZeroTipAsGit(t *testing.T) {
	r, _ := shortLogRepo(t)
	repo, err := Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	shortLogSameAsGit(t, repo, "a zero tip", ZeroHash.String(), "1111111111111111111111111111111111111111")
}

// diff.orderFile set to "": every git diff fails; shortLog reads "" as unset.
func TestShortLogEmptyOrderFileAsGit(t *testing.T) {
	r, base := shortLogRepo(t)
	r.Write("a.txt", "a2\n")
	h := r.Commit("c")
	r.Git("config", "diff.orderFile", "")
	repo, err := Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	shortLogSameAsGit(t, repo, "an empty diff.orderFile", h, base)
}
