package gitstore_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/testgit"
)

// TestObjectsReadThroughGit: objects read through git's cat-file come
// back exactly as git stores them (content, size, type, id), each read
// owns its bytes, and a missing object is not found, whether with the git
// command or with go-git alone.
func TestObjectsReadThroughGit(t *testing.T) {
	for _, cli := range []bool{true, false} {
		t.Run("git="+strconv.FormatBool(cli), func(t *testing.T) {
			if !cli {
				t.Setenv("KONTEKS_NO_GIT_CLI", "1")
			}
			r := testgit.New(t)
			big := strings.Repeat("a line of a file larger than one read buffer\n", 4000)
			r.WriteFiles(map[string]string{"big.txt": big, "d/small.txt": "small\n"})
			commit := r.Commit("first")
			repo := open(t, r)
			for _, rev := range []string{commit, commit + "^{tree}", commit + ":d", commit + ":big.txt", commit + ":d/small.txt"} {
				h := gitstore.ParseHash(r.Git("rev-parse", rev))
				typ, data, err := repo.RawObject(h, 0)
				if err != nil {
					t.Fatalf("%s: %v", rev, err)
				}
				if want := r.Git("cat-file", "-t", rev); typ != want {
					t.Fatalf("%s: type %s, want %s", rev, typ, want)
				}
				if got := plumbing.ComputeHash(mustType(t, typ), data); got != h {
					t.Fatalf("%s: content hashes to %s, want %s", rev, got, h)
				}
				size, err := repo.RawObjectSize(h)
				if want := r.Git("cat-file", "-s", rev); err != nil || strconv.FormatInt(size, 10) != want {
					t.Fatalf("%s: size %d %v, want %s", rev, size, err, want)
				}
				// A caller may write over what it read: the next read is
				// not affected.
				for i := range data {
					data[i] = 'x'
				}
				if _, again, err := repo.RawObject(h, 0); err != nil || plumbing.ComputeHash(mustType(t, typ), again) != h {
					t.Fatalf("%s: a second read sees the first read's writes (%v)", rev, err)
				}
			}
			tree, err := repo.Tree(gitstore.ParseHash(r.Git("rev-parse", commit+":d")))
			if err != nil || tree.Hash.String() != r.Git("rev-parse", commit+":d") {
				t.Fatalf("tree read with id %v (%v)", tree, err)
			}
			b, err := repo.BlobBytes(gitstore.ParseHash(r.Git("rev-parse", commit+":big.txt")), 0)
			if err != nil || string(b) != big {
				t.Fatalf("blob: %d bytes, %v", len(b), err)
			}
			if _, err := repo.BlobBytes(gitstore.ParseHash(r.Git("rev-parse", commit+":big.txt")), 100); err == nil {
				t.Fatal("a blob over the limit was read")
			}
			missing := gitstore.ParseHash(strings.Repeat("ab", 20))
			if _, err := repo.RawObjectSize(missing); !errors.Is(err, plumbing.ErrObjectNotFound) {
				t.Fatalf("size of a missing object: %v", err)
			}
			if _, _, err := repo.RawObject(missing, 0); !errors.Is(err, plumbing.ErrObjectNotFound) {
				t.Fatalf("a missing object: %v", err)
			}
		})
	}
}

func mustType(t *testing.T, s string) plumbing.ObjectType {
	t.Helper()
	typ, err := plumbing.ParseObjectType(s)
	if err != nil {
		t.Fatal(err)
	}
	return typ
}
