package gitstore

import (
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/konteks/git-konteks/internal/testgit"
)

// TestOneCatFileProcess: objects, sizes and existence checks, asked in
// any order and from several goroutines at once, are answered by one
// `git cat-file` process, each answer the right one.
func TestOneCatFileProcess(t *testing.T) {
	hermeticCache(t)
	r := testgit.New(t)
	files := map[string]string{"big.txt": strings.Repeat("a line of a file larger than one read buffer\n", 4000)}
	for _, name := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		files["d/"+name+".txt"] = strings.Repeat(name, len(name)+len(files)) + "\n"
	}
	r.WriteFiles(files)
	r.Commit("first")
	dir := t.TempDir()
	_, log := fakeGit(t, dir, "2.45.1")
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	repo, err := Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if !repo.HasCLI() {
		t.Fatal("git is not used")
	}
	ids := map[string]Hash{}
	for p := range files {
		ids[p] = ParseHash(r.Git("rev-parse", "HEAD:"+p))
	}
	missing := ParseHash(strings.Repeat("ab", 20))

	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				for p, id := range ids {
					if n, err := repo.RawObjectSize(id); err != nil || n != int64(len(files[p])) {
						errs <- errors.New(p + ": wrong size")
						return
					}
					if b, err := repo.BlobBytes(id, 0); err != nil || string(b) != files[p] {
						errs <- errors.New(p + ": wrong content")
						return
					}
					if !repo.HasObject(id) || repo.HasObject(missing) {
						errs <- errors.New(p + ": wrong existence")
						return
					}
					if _, err := repo.RawObjectSize(missing); !errors.Is(err, plumbing.ErrObjectNotFound) {
						errs <- errors.New("a missing object has a size")
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	b, _ := os.ReadFile(log)
	var cats []string
	for _, call := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.HasPrefix(call, "cat-file") {
			cats = append(cats, call)
		}
	}
	if len(cats) != 1 || cats[0] != "cat-file --batch-command" {
		t.Fatalf("cat-file processes: %q, want one", cats)
	}
}

// TestRecentObjectsAskGitOnce: a tree or a commit read again, or its size
// asked after it was read, is answered without asking git; a blob is
// asked each time; what RawObject and BlobBytes hand out is the caller's
// to write over, whatever else shares the object.
func TestRecentObjectsAskGitOnce(t *testing.T) {
	hermeticCache(t)
	r := testgit.New(t)
	r.WriteFiles(map[string]string{"d/a.txt": "a\n", "d/e/b.txt": "b\n"})
	r.Commit("first")
	repo, err := Open(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if !repo.HasCLI() {
		t.Skip("no git")
	}
	cat := repo.storage.cat
	asked := func() int {
		cat.mu.Lock()
		defer cat.mu.Unlock()
		return cat.asked
	}
	commit := ParseHash(r.Git("rev-parse", "HEAD"))
	tree := ParseHash(r.Git("rev-parse", "HEAD:d"))
	blob := ParseHash(r.Git("rev-parse", "HEAD:d/a.txt"))
	for i := 0; i < 3; i++ {
		if _, err := repo.Commit(commit); err != nil {
			t.Fatal(err)
		}
		if _, err := repo.Tree(tree); err != nil {
			t.Fatal(err)
		}
		if n, err := repo.RawObjectSize(tree); err != nil || n == 0 {
			t.Fatalf("size %d, %v", n, err)
		}
		if i == 0 && asked() != 2 {
			t.Fatalf("git asked %d questions for a commit and a tree, want 2", asked())
		}
	}
	if got := asked(); got != 2 {
		t.Fatalf("git asked %d questions for a commit and a tree read three times, want 2", got)
	}
	for i := 0; i < 2; i++ {
		b, err := repo.BlobBytes(blob, 0)
		if err != nil || string(b) != "a\n" {
			t.Fatalf("blob %q, %v", b, err)
		}
		b[0] = 'x'
	}
	if got := asked(); got != 4 {
		t.Fatalf("git asked %d questions after a blob read twice, want 4", got)
	}
	// Raw reads of a kept tree are copies: writing over one changes no
	// later read, through either path.
	_, raw, err := repo.RawObject(tree, 0)
	if err != nil {
		t.Fatal(err)
	}
	clear(raw)
	if _, again, err := repo.RawObject(tree, 0); err != nil || plumbing.ComputeHash(plumbing.TreeObject, again) != tree {
		t.Fatalf("a raw read of a kept tree sees an earlier caller's writes (%v)", err)
	}
	if tr, err := repo.Tree(tree); err != nil || len(tr.Entries) != 2 {
		t.Fatalf("the tree decodes to %v (%v) after a caller wrote over a raw read", tr, err)
	}
}

// TestRecentObjectsBounded: the kept objects stay within their byte bound
// however many trees a process reads, and every read stays right.
func TestRecentObjectsBounded(t *testing.T) {
	var rc recentObjects
	for i := 0; i < 400; i++ {
		var h plumbing.Hash
		h[0], h[1] = byte(i), byte(i>>8)
		rc.keep(&catObject{h: h, t: plumbing.TreeObject, cont: make([]byte, 40<<10)})
		if rc.bytes > maxRecentBytes {
			t.Fatalf("%d bytes kept, over %d", rc.bytes, maxRecentBytes)
		}
		if rc.get(plumbing.TreeObject, h) == nil || rc.get(plumbing.AnyObject, h) == nil {
			t.Fatal("the object just kept is not found")
		}
		if rc.get(plumbing.BlobObject, h) != nil || rc.get(plumbing.CommitObject, h) != nil {
			t.Fatal("a tree is found as another type")
		}
	}
	rc.keep(&catObject{t: plumbing.BlobObject, cont: []byte("b")})
	rc.keep(&catObject{t: plumbing.TreeObject, cont: make([]byte, maxRecentObject+1)})
	for h, o := range rc.objs {
		if o.t != plumbing.TreeObject || len(o.cont) > maxRecentObject {
			t.Fatalf("%s kept: %s of %d bytes", h, o.t, len(o.cont))
		}
	}
}
