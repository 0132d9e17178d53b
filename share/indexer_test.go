package share

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// signingPeer is a remote and a clone of it that extracted memory and
// signs with s, whose key a teammate can be made to trust.
func signingPeer(t *testing.T) (string, *clone, signer) {
	t.Helper()
	testgit.Setenv(t)
	remote, _ := bareRemote(t)
	peer := newClone(t, remote, "peer")
	s := trustEachOther(t, peer)
	extractOrFail(t, peer, "")
	return remote, peer, s
}

// TestIndexerChecksTheirRecords: a fetch given an Indexer, into a clone
// that holds no records of its own, leaves the check of a trusted peer's
// records to it. Its verdict is the check: what it passes is adopted
// (here even a record that does not decode, which only a real index
// build would catch; cmd's TestTeammateFetchBuildsTheIndexOnce does
// that), and memref.ErrCorrupt from it refuses the memory. Any other
// failure of it (a full disk, the index's lock) falls back to decoding
// each record. A clone with records of its own decodes the changed ones
// as before and never calls it.
func TestIndexerChecksTheirRecords(t *testing.T) {
	remote, peer, s := signingPeer(t)
	broken := func(t *testing.T) {
		t.Helper()
		publishBlob(t, peer, memory.FilePath("zz.go"), []byte("not a record"))
	}
	good := func(t *testing.T) {
		t.Helper()
		publishEdit(t, peer, func(*gitstore.Writer, *gitstore.TreeEditor) {})
	}
	type call struct {
		records int
		budget  bool
	}
	counting := func(calls *[]call, verdict error) Indexer {
		return func(tm *memref.Memory, b *memref.Budget) error {
			refs, err := memref.Records(peer.repo, tm.Tree)
			if err != nil {
				t.Fatal(err)
			}
			*calls = append(*calls, call{len(refs), b != nil})
			return verdict
		}
	}
	fresh := func(t *testing.T) *clone {
		c := newClone(t, remote, "teammate")
		s.trustedBy(c)
		return c
	}
	cases := []struct {
		name     string
		publish  func(*testing.T)
		verdict  error
		adopted  bool
		wantCall bool
	}{
		{"its pass is the check", broken, nil, true, true},
		{"its ErrCorrupt refuses", good, fmt.Errorf("%w: record of x.go: bad", memref.ErrCorrupt), false, true},
		{"other failures fall back to decoding: good records", good, errors.New("no space left on device"), true, true},
		{"other failures fall back to decoding: a broken record", broken, errors.New("no space left on device"), false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.publish(t)
			mate := fresh(t)
			var calls []call
			out, err := FetchWith(mate.repo, "origin", FetchOptions{Index: counting(&calls, c.verdict)})
			if got := len(calls) > 0; got != c.wantCall {
				t.Fatalf("indexer called %v, want %v", got, c.wantCall)
			}
			if len(calls) > 0 && (calls[0].records == 0 || !calls[0].budget) {
				t.Fatalf("indexer asked for %d records, budget %v", calls[0].records, calls[0].budget)
			}
			h, _ := mate.repo.ReadRef(memory.Ref)
			if c.adopted {
				if err != nil || out.Result != Adopted || out.Derived != "theirs" || h.IsZero() {
					t.Fatalf("not adopted: %+v %v", out, err)
				}
				return
			}
			if err == nil || !h.IsZero() {
				t.Fatalf("adopted memory the check refused: %+v %v", out, err)
			}
			if !strings.Contains(err.Error(), "record of") {
				t.Fatalf("the refusal does not name the record: %v", err)
			}
		})
	}

	t.Run("a clone with records of its own decodes them", func(t *testing.T) {
		mate := fresh(t)
		extractOrFail(t, mate, "")
		// Theirs describes a newer commit this clone has: their derived
		// memory is the one to adopt, and its changed records are read.
		peer.Write("newer.go", "package main\n\nfunc Newer() {}\n")
		peer.Commit("newer")
		peer.Git("push", "-q", "origin", "HEAD:main")
		extractOrFail(t, peer, "")
		broken(t)
		mate.Git("pull", "-q", "--ff-only", "origin", "main")
		before := mate.Git("rev-parse", "refs/konteks")
		var calls []call
		_, err := FetchWith(mate.repo, "origin", FetchOptions{Index: counting(&calls, nil)})
		if len(calls) != 0 {
			t.Fatalf("indexer called for a clone with records: %+v", calls)
		}
		if err == nil || mate.Git("rev-parse", "refs/konteks") != before {
			t.Fatalf("a broken record was not refused by decoding: %v", err)
		}
	})
}

// TestIndexerChecksAMemoryWithoutRecords: a clone whose memory holds no
// records (durable memories saved before its first fetch; a files
// directory that is an empty tree) has no records of its own, as
// hasRecords says: every record of theirs is new, and the index checks
// them.
func TestIndexerChecksAMemoryWithoutRecords(t *testing.T) {
	remote, peer, s := signingPeer(t)
	publishEdit(t, peer, func(*gitstore.Writer, *gitstore.TreeEditor) {})
	for _, c := range []struct {
		name string
		ours func(t *testing.T, mate *clone)
	}{
		{"durable memories only", func(t *testing.T, mate *clone) {
			mustSave(t, mate, "the deploy needs the staging key")
		}},
		{"an empty files directory", func(t *testing.T, mate *clone) {
			w := mate.repo.NewWriter()
			empty, err := w.Tree(nil)
			if err != nil {
				t.Fatal(err)
			}
			tree, err := w.Tree([]gitstore.TreeEntry{{Name: memory.FilesDir, Mode: gitstore.ModeDir, Hash: empty}})
			if err != nil {
				t.Fatal(err)
			}
			h, err := w.Commit(gitstore.CommitSpec{Tree: tree, Author: mate.repo.Identity(), Message: "konteks: memory\n"})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if err := mate.repo.UpdateRef(memory.Ref, h, gitstore.ZeroHash, "test"); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			mate := newClone(t, remote, "teammate")
			s.trustedBy(mate)
			c.ours(t, mate)
			calls := 0
			out, err := FetchWith(mate.repo, "origin", FetchOptions{Index: func(tm *memref.Memory, b *memref.Budget) error {
				calls++
				return nil
			}})
			if err != nil || out.Derived != "theirs" {
				t.Fatalf("fetch: %+v %v", out, err)
			}
			if calls != 1 {
				t.Fatalf("indexer called %d times for a memory without records, want 1", calls)
			}
		})
	}
}

// TestIndexerTimeIsNotTheirs: the index build that checks a first
// fetch's records has no deadline. When it fails for a reason that is
// not theirs after CheckTimeout has passed, decoding each record instead
// must not find the deadline spent and refuse good memory (a refusal
// that is remembered until the remote's memory changes).
func TestIndexerTimeIsNotTheirs(t *testing.T) {
	remote, peer, s := signingPeer(t)
	publishEdit(t, peer, func(*gitstore.Writer, *gitstore.TreeEditor) {})
	mate := newClone(t, remote, "teammate")
	s.trustedBy(mate)
	defer func(d time.Duration) { CheckTimeout = d }(CheckTimeout)
	CheckTimeout = 3 * time.Second
	slow := func(tm *memref.Memory, b *memref.Budget) error {
		time.Sleep(CheckTimeout + 500*time.Millisecond) // a large tree's index on a slow machine
		return errors.New("write index: no space left on device")
	}
	out, err := FetchWith(mate.repo, "origin", FetchOptions{Index: slow})
	if err != nil || out.Result != Adopted {
		t.Fatalf("good memory refused after a slow index failed: %+v %v", out, err)
	}
}
