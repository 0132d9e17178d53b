package gitstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/internal/testgit"
)

// TestShortLogAsGit: for every kind of change a commit can make, and
// every shape of commit a hook meets, the walk listed without git is the
// one `git log --raw --no-renames` lists, field for field; the shapes it
// must not list (merges, roots, other encodings, odd author lines,
// submodules, walks past its bound) go to git, and are still right.
func TestShortLogAsGit(t *testing.T) {
	r := testgit.New(t)
	r.Write("a.txt", "a\n")
	r.Write("dir/b.txt", "b\n")
	r.Write("dir/sub/c.txt", "c\n")
	r.Write("foo", "a file that becomes a directory\n")
	r.Write("foo.c", "sorts between foo and foo/\n")
	r.Write("gone/x.txt", "x\n")
	r.Write("odd name\twith tab.txt", "t\n")
	r.Write("ünï.txt", "u\n")
	root := r.Commit("root")

	type step struct {
		name   string
		commit func() string // makes a commit on HEAD, returns it
		short  bool          // whether the walk from it to its parent is listed without git
	}
	edit := func(msg string, f func()) func() string {
		return func() string { f(); return r.Commit(msg) }
	}
	// raw writes a commit object of the given header lines and message
	// on top of HEAD (its tree), and moves main to it.
	raw := func(header, msg string) func() string {
		return func() string {
			tree := r.Git("rev-parse", "HEAD^{tree}")
			parent := r.Git("rev-parse", "HEAD")
			obj := "tree " + tree + "\nparent " + parent + "\n" + header + "\n" + msg
			h := r.GitStdin(obj, "hash-object", "-t", "commit", "-w", "--stdin", "--literally")
			r.Git("update-ref", "refs/heads/main", strings.TrimSpace(h))
			return strings.TrimSpace(h)
		}
	}
	plain := "author A U Thor <author@example.com> 1700000000 +0100\ncommitter C O Mitter <c@example.com> 1700000000 +0100\n"
	steps := []step{
		{"a modification", edit("modify", func() { r.Write("a.txt", "a2\n") }), true},
		{"additions in new directories", edit("add", func() { r.Write("new/deep/n.txt", "n\n"); r.Write("dir/sub/d.txt", "d\n") }), true},
		{"a deletion and a directory deleted", edit("delete", func() { r.Remove("a.txt"); r.Remove("gone/x.txt") }), true},
		{"an executable bit", edit("chmod", func() {
			if err := os.Chmod(filepath.Join(r.Dir, "dir/b.txt"), 0o755); err != nil {
				t.Fatal(err)
			}
		}), true},
		{"a file turned symlink", edit("symlink", func() {
			r.Remove("dir/sub/c.txt")
			if err := os.Symlink("../b.txt", filepath.Join(r.Dir, "dir/sub/c.txt")); err != nil {
				t.Fatal(err)
			}
		}), true},
		{"a file turned directory", edit("file to dir", func() { r.Remove("foo"); r.Write("foo/inside.txt", "i\n") }), true},
		{"a directory turned file", edit("dir to file", func() {
			r.Remove("foo/inside.txt")
			os.Remove(filepath.Join(r.Dir, "foo"))
			r.Write("foo", "back\n")
		}), true},
		{"a rename (two entries without rename detection)", edit("rename", func() { r.Git("mv", "odd name\twith tab.txt", "renamed.txt") }), true},
		{"no change", func() string {
			r.Git("commit", "-q", "--allow-empty", "-m", "empty")
			return r.Git("rev-parse", "HEAD")
		}, true},
		{"a message without a final newline", raw(plain, "subject only"), true},
		{"a message with CRLF and blank lines", raw(plain, "subject\r\n\r\nbody\r\n\n\n"), true},
		{"an empty message", raw(plain, ""), true},
		{"a message in bytes that are not UTF-8, no encoding header", raw(plain, "caf\xe9\n"), true},
		{"an encoding header", raw(plain+"encoding ISO-8859-1\n", "caf\xe9\n"), false},
		{"an author with two spaces before the email", raw("author A U Thor  <a@example.com> 1700000000 +0100\n", "m\n"), false},
		{"an author with a tab before the email", raw("author A U\t <a@example.com> 1700000000 +0100\n", "m\n"), false},
		{"an author without a name", raw("author <a@example.com> 1700000000 +0100\n", "m\n"), false},
		{"a unicode author", raw("author Zoë Ünïcode <zoe@example.com> 1700000000 -0730\n", "m\n"), true},
		{"a submodule", func() string {
			r.Git("update-index", "--add", "--cacheinfo", "160000,"+root+",sub/module")
			r.Git("commit", "-q", "-m", "submodule")
			return r.Git("rev-parse", "HEAD")
		}, false},
		{"a merge", func() string {
			r.Git("checkout", "-q", "-b", "side", "HEAD~1")
			r.Write("side.txt", "s\n")
			r.Commit("side")
			r.Git("checkout", "-q", "main")
			r.Git("merge", "-q", "--no-ff", "-m", "merge", "side")
			return r.Git("rev-parse", "HEAD")
		}, false},
	}
	repo, err := Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	compare := func(what string, opt LogOptions, wantShort bool) {
		t.Helper()
		got, ok := repo.shortLog(opt, true)
		if ok != wantShort {
			t.Errorf("%s: listed without git: %v, want %v", what, ok, wantShort)
		}
		useShortLog = false
		defer func() { useShortLog = true }()
		var want []*LogCommit
		opt.TreesOnly = true
		if err := repo.Log(context.Background(), opt, func(c *LogCommit) error { want = append(want, c); return nil }); err != nil {
			t.Fatalf("%s: git log: %v", what, err)
		}
		if !ok {
			return
		}
		if len(got) == 0 && len(want) == 0 {
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: without git\n%s\ngit log\n%s", what, dump(got), dump(want))
		}
	}
	var made []string
	for _, s := range steps {
		h := s.commit()
		made = append(made, h)
		parent := r.Git("rev-parse", h+"^1")
		compare(s.name, LogOptions{Include: []Hash{ParseHash(h)}, Exclude: []Hash{ParseHash(parent)}, MaxCount: 200000}, s.short)
	}
	// A walk of several commits, within the bound and past it; one bounded
	// by MaxCount; one whose excluded commit is not on its path; a tip
	// equal to the excluded commit.
	compare("three commits", LogOptions{Include: []Hash{ParseHash(made[4])}, Exclude: []Hash{ParseHash(made[1])}}, true)
	compare("past the bound", LogOptions{Include: []Hash{ParseHash(made[12])}, Exclude: []Hash{ParseHash(root)}}, false)
	compare("bounded by MaxCount", LogOptions{Include: []Hash{ParseHash(made[4])}, Exclude: []Hash{ParseHash(made[1])}, MaxCount: 2}, false)
	side := r.Git("rev-parse", "side")
	compare("an excluded commit on another branch", LogOptions{Include: []Hash{ParseHash(made[3])}, Exclude: []Hash{ParseHash(side)}}, false)
	compare("nothing to walk", LogOptions{Include: []Hash{ParseHash(made[2])}, Exclude: []Hash{ParseHash(made[2])}}, true)
}

func dump(cs []*LogCommit) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "%+v\n", *c)
	}
	return b.String()
}
