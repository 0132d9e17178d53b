package gitstore_test

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/testgit"
)

func open(t *testing.T, r *testgit.Repo) *gitstore.Repo {
	t.Helper()
	repo, err := gitstore.Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

func TestTreeEditorMatchesGit(t *testing.T) {
	r := testgit.New(t)
	r.WriteFiles(map[string]string{"a/b/c.txt": "c\n", "a/b/d.txt": "d\n", "a/e.txt": "e\n", "f.txt": "f\n", "a-b.txt": "sorts before a/ in git order\n"})
	r.Commit("base")
	repo := open(t, r)
	head, err := repo.Resolve("HEAD")
	if err != nil {
		t.Fatal(err)
	}
	w := repo.NewWriter()
	ed := repo.NewTreeEditor(head.TreeHash)
	blob, _ := w.Blob([]byte("new\n"))
	must(t, ed.Set("a/b/new.txt", gitstore.ModeRegular, blob))
	must(t, ed.Set("z/deep/file.txt", gitstore.ModeRegular, blob))
	must(t, ed.Delete("a/e.txt"))
	must(t, ed.Delete("a/b/c.txt"))
	must(t, ed.Delete("a/b/d.txt")) // a/b keeps new.txt
	must(t, ed.Delete("no/such/path"))
	root, err := ed.Write(w)
	must(t, err)
	must(t, w.Flush())

	// The same edits through git's index must give the same tree id.
	r.Remove("a/e.txt")
	r.Remove("a/b/c.txt")
	r.Remove("a/b/d.txt")
	r.Write("a/b/new.txt", "new\n")
	r.Write("z/deep/file.txt", "new\n")
	r.Git("add", "-A")
	want := r.Git("write-tree")
	if root.String() != want {
		t.Fatalf("editor tree %s, git tree %s\n%s", root, want, r.Git("ls-tree", "-r", root.String()))
	}
	if out, err := r.TryGit("fsck", "--strict", "--no-dangling"); err != nil {
		t.Fatalf("fsck: %v\n%s", err, out)
	}
	// Deleting everything below a directory removes the directory.
	ed2 := repo.NewTreeEditor(root)
	must(t, ed2.Delete("z/deep/file.txt"))
	root2, err := ed2.Write(w)
	must(t, err)
	must(t, w.Flush())
	if _, _, ok, _ := repo.Lookup(root2, "z"); ok {
		t.Fatal("empty directory kept")
	}
	if err := ed2.Set("../escape", gitstore.ModeRegular, blob); err == nil {
		t.Fatal("a path with .. was accepted")
	}
}

func TestPackWriteIsValid(t *testing.T) {
	r := testgit.New(t)
	r.Write("x", "x\n")
	r.Commit("x")
	repo := open(t, r)
	w := repo.NewWriter()
	ed := repo.NewTreeEditor(gitstore.ZeroHash)
	// More than the loose limit, so a pack is written; half look like zstd.
	for i := 0; i < 300; i++ {
		data := []byte(strings.Repeat("payload "+strconv.Itoa(i)+" ", 50))
		if i%2 == 0 {
			data = append([]byte{0x28, 0xb5, 0x2f, 0xfd}, data...)
		}
		h, err := w.Blob(data)
		must(t, err)
		must(t, ed.Set("d"+strconv.Itoa(i%7)+"/f"+strconv.Itoa(i), gitstore.ModeRegular, h))
	}
	root, err := ed.Write(w)
	must(t, err)
	c, err := w.Commit(gitstore.CommitSpec{Tree: root, Author: gitstore.Signature{Name: "T", Email: "t@example.invalid"}, Message: "m\n"})
	must(t, err)
	must(t, w.Flush())
	must(t, repo.UpdateRef("refs/konteks", c, gitstore.ZeroHash, "test"))
	if out, err := r.TryGit("fsck", "--strict", "--no-dangling"); err != nil {
		t.Fatalf("fsck after pack write: %v\n%s", err, out)
	}
	if n := r.Git("ls-tree", "-r", "--name-only", "refs/konteks"); len(strings.Split(n, "\n")) != 300 {
		t.Fatal("pack does not hold all entries")
	}
	// Compare-and-swap refuses a stale old value.
	err = repo.UpdateRef("refs/konteks", c, gitstore.ZeroHash, "again")
	if err == nil {
		t.Fatal("CAS accepted a stale old value")
	}
}

func TestDiffTrees(t *testing.T) {
	r := testgit.New(t)
	r.WriteFiles(map[string]string{"keep/a.txt": "a\n", "mod.txt": "1\n", "del/x.txt": "x\n", "file-to-dir": "f\n"})
	c1 := r.Commit("one")
	r.Write("mod.txt", "2\n")
	r.Remove("del")
	r.Remove("file-to-dir")
	r.Write("file-to-dir/inner.txt", "now a dir\n")
	r.Write("added/new.txt", "n\n")
	c2 := r.Commit("two")
	repo := open(t, r)
	a, _ := repo.Resolve(c1)
	b, _ := repo.Resolve(c2)
	changes, err := repo.DiffTrees(a.TreeHash, b.TreeHash)
	must(t, err)
	var got []string
	for _, c := range changes {
		kind := "M"
		switch {
		case c.From.IsZero():
			kind = "A"
		case c.To.IsZero():
			kind = "D"
		}
		got = append(got, kind+" "+c.Path)
	}
	sort.Strings(got)
	want := []string{"A added/new.txt", "A file-to-dir/inner.txt", "D del/x.txt", "D file-to-dir", "M mod.txt"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("diff:\n got %v\nwant %v", got, want)
	}
}

func TestBlobReadersAgree(t *testing.T) {
	r := testgit.New(t)
	files := map[string]string{}
	for i := 0; i < 100; i++ {
		files["f"+strconv.Itoa(i)] = strings.Repeat(strconv.Itoa(i), i*37)
	}
	files["big"] = strings.Repeat("B", 5000)
	r.WriteFiles(files)
	r.Commit("blobs")
	repo := open(t, r)
	var ids []gitstore.Hash
	var names []string
	head, _ := repo.Resolve("HEAD")
	must(t, repo.WalkTree(head.TreeHash, nil, func(e gitstore.Entry) error {
		ids = append(ids, e.Hash)
		names = append(names, e.Path)
		return nil
	}))
	read := func(expect int) []gitstore.Blob {
		br := repo.NewBlobReader(expect)
		defer br.Close()
		var out []gitstore.Blob
		// Two calls on one reader: the process is reused between batches.
		for _, part := range [][]gitstore.Hash{ids[:50], ids[50:]} {
			must(t, br.ReadBlobs(context.Background(), part, 4096, func(b gitstore.Blob) error {
				out = append(out, b)
				return nil
			}))
		}
		return out
	}
	fast, slow := read(1000), read(1)
	if len(fast) != len(ids) || len(slow) != len(ids) {
		t.Fatalf("read %d and %d of %d blobs", len(fast), len(slow), len(ids))
	}
	for i := range ids {
		if fast[i].ID != ids[i] || slow[i].ID != ids[i] {
			t.Fatalf("blob %d out of order", i)
		}
		want := files[names[i]]
		if len(want) > 4096 {
			if !fast[i].TooLarge || !slow[i].TooLarge || fast[i].Size != int64(len(want)) {
				t.Fatalf("%s: over the limit but not reported TooLarge", names[i])
			}
			continue
		}
		if string(fast[i].Data) != want || string(slow[i].Data) != want {
			t.Fatalf("%s: content differs", names[i])
		}
	}
}

func TestOpenFindsRepository(t *testing.T) {
	r := testgit.New(t)
	r.Write("sub/dir/x", "x\n")
	r.Commit("x")
	repo, err := gitstore.Open(r.Dir + "/sub/dir")
	must(t, err)
	if repo.WorkTree != r.Dir || repo.GitDir != r.Dir+"/.git" {
		t.Fatalf("work tree %q git dir %q", repo.WorkTree, repo.GitDir)
	}
	if _, err := gitstore.Open(t.TempDir()); err == nil {
		t.Fatal("opened a directory that is not a repository")
	}
}

func TestLockIsExclusiveAndReleasedOnClose(t *testing.T) {
	r := testgit.New(t)
	repo := open(t, r)
	l, _, err := repo.TryLock("extract")
	must(t, err)
	if _, holder, err := repo.TryLock("extract"); err == nil || !strings.Contains(holder, "pid") {
		t.Fatalf("second lock: err %v holder %q", err, holder)
	}
	must(t, l.Unlock())
	l2, _, err := repo.TryLock("extract")
	must(t, err)
	l2.Unlock()
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestResolveUnborn: HEAD of a repository with no commits resolves to
// ErrNoCommits alone, not go-git's raw "reference not found".
func TestResolveUnborn(t *testing.T) {
	r := testgit.New(t)
	_, err := open(t, r).Resolve("HEAD")
	if !errors.Is(err, gitstore.ErrNoCommits) || strings.Contains(err.Error(), "reference not found") {
		t.Fatalf("unborn HEAD: %v", err)
	}
}
