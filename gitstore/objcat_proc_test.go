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
