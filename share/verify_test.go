package share

import (
	"bytes"
	"crypto/sha1"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// dotGitTree is a tree holding one file under a directory named name.
func dotGitTree(t *testing.T, w *gitstore.Writer, name string) gitstore.Hash {
	b, _ := w.Blob([]byte("[core]\n\tbare = false\n"))
	inner, _ := w.Tree([]gitstore.TreeEntry{{Name: "config", Mode: gitstore.ModeRegular, Hash: b}})
	h, err := w.Tree([]gitstore.TreeEntry{{Name: name, Mode: gitstore.ModeDir, Hash: inner}})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestDotGitRefused: a peer's memory with a .git directory (in any
// spelling a filesystem reads as .git) under any directory is refused on
// both ways in, with a message naming the remote and how to drop it; the
// refusal is remembered, and local memory still pushes to a remote that
// checks objects as GitHub does (receive.fsckObjects).
func TestDotGitRefused(t *testing.T) {
	testgit.Setenv(t)
	remote, _ := bareRemote(t)
	peer := newClone(t, remote, "peer")
	extractOrFail(t, peer, "")
	checking := filepath.Join(t.TempDir(), "checking.git")
	testgit.At(t, filepath.Dir(checking)).Git("init", "-q", "--bare", checking)
	testgit.At(t, checking).Git("config", "receive.fsckObjects", "true")

	cases := []struct{ dir, name string }{
		{"dirs", ".git"}, {"files/cmd", ".GIT"}, {"modules", ".git."}, {"graph", "git~1"},
		{"durable/memories", ".Git "}, {"history", ".g\u200cit"},
	}
	for _, c := range cases {
		for _, path := range []string{"konteks fetch", "git fetch"} {
			t.Run(c.dir+"/"+c.name+" "+path, func(t *testing.T) {
				tip := publishEdit(t, peer, func(w *gitstore.Writer, ed *gitstore.TreeEditor) {
					if err := ed.Set(c.dir+"/evil", gitstore.ModeDir, dotGitTree(t, w, c.name)); err != nil {
						t.Fatal(err)
					}
				})
				victim := newClone(t, remote, "victim")
				extractOrFail(t, victim, "")
				mustSave(t, victim, "the victim's own memory to push later")
				before := victim.Git("rev-parse", "refs/konteks")
				var err error
				if path == "konteks fetch" {
					_, err = konteksFetch(t, victim)
				} else {
					_, err = plainFetch(t, victim)
				}
				if err == nil {
					t.Fatal("memory with a .git directory was accepted")
				}
				msg := err.Error()
				if !strings.Contains(msg, "origin") || !strings.Contains(msg, ".git") {
					t.Fatalf("unclear refusal: %v", err)
				}
				if got := victim.Git("rev-parse", "refs/konteks"); got != before {
					t.Fatal("local memory changed")
				}
				if path == "git fetch" {
					if !strings.Contains(msg, "--forget-remote origin") || !strings.Contains(msg, "update-ref -d refs/konteks-remotes/origin") {
						t.Fatalf("the refusal does not say how to drop the remote's memory: %v", err)
					}
					// The next hook pass skips the refused tip at once.
					t0 := time.Now()
					_, err := MergeTracking(victim.repo)
					if !errors.Is(err, ErrRefused) || time.Since(t0) > 500*time.Millisecond {
						t.Fatalf("second pass: %v after %s", err, time.Since(t0))
					}
					if err := ForgetRemote(victim.repo, "origin"); err != nil {
						t.Fatal(err)
					}
					if h, _ := victim.repo.ReadRef(TrackingRef("origin")); !h.IsZero() {
						t.Fatal("forget-remote left the tracking ref")
					}
				}
				_ = tip
				victim.Git("remote", "add", "checking", checking)
				if _, err := Push(victim.repo, "checking"); err != nil {
					t.Fatalf("push to an fsck-checking remote after the refusal: %v", err)
				}
				testgit.At(t, checking).Git("update-ref", "-d", RemoteRef)
			})
		}
	}
}

// TestSizeBombsBounded: records that decompress to just under the record
// limit, behind many paths, cost one bounded attempt; the refusal is
// remembered so the next pass costs nothing.
func TestSizeBombsBounded(t *testing.T) {
	testgit.Setenv(t)
	remote, _ := bareRemote(t)
	peer := newClone(t, remote, "peer")
	victim := newClone(t, remote, "victim")
	trustEachOther(t, peer, victim) // trusted: its records are read
	extractOrFail(t, victim, "")
	peer.Write("newer.go", "package main\n\nfunc Newer() {}\n")
	peer.Commit("newer")
	peer.Git("push", "-q", "origin", "HEAD:main")
	victim.Git("pull", "-q", "--ff-only", "origin", "main")
	extractOrFail(t, peer, "")
	m, _ := memref.Read(peer.repo, memory.Ref)
	rec, _, err := memref.Record(peer.repo, m.Tree, "main.go")
	if err != nil {
		t.Fatal(err)
	}
	// Records of 8 MiB against a 16 MiB budget keep the suite quick under
	// the race detector; KONTEKS_BOMB_MIB=63 runs them just under the
	// record limit with the default budget.
	size := 8 << 20
	old := MaxDecoded
	MaxDecoded = 2 * int64(size)
	if mib, err := strconv.Atoi(os.Getenv("KONTEKS_BOMB_MIB")); err == nil {
		size, MaxDecoded = mib<<20, old
	}
	defer func() { MaxDecoded = old }()
	big := func(variant int) []byte {
		r := *rec
		r.Sections = append([]memory.Section(nil), rec.Sections...)
		r.Sections[0].Content = fmt.Sprintf("%d", variant) + strings.Repeat("a", size)
		b, err := memory.EncodeFile(&r)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	one := big(0)
	cases := []struct {
		name  string
		edit  func(w *gitstore.Writer, ed *gitstore.TreeEditor)
		limit time.Duration
		want  string
	}{
		{"one blob behind 40 paths and a broken record", func(w *gitstore.Writer, ed *gitstore.TreeEditor) {
			h, _ := w.Blob(one)
			for i := 0; i < 40; i++ {
				ed.Set(fmt.Sprintf("files/bomb/p%02d.go", i), gitstore.ModeRegular, h)
			}
			bad, _ := w.Blob([]byte("not a record"))
			ed.Set("files/zz.go", gitstore.ModeRegular, bad)
		}, 30 * time.Second, "record of zz.go"},
		{"eight distinct blobs", func(w *gitstore.Writer, ed *gitstore.TreeEditor) {
			for i := 0; i < 8; i++ {
				h, _ := w.Blob(big(i + 1))
				ed.Set(fmt.Sprintf("files/bomb/q%02d.go", i), gitstore.ModeRegular, h)
			}
		}, 30 * time.Second, "over the read budget"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			publishEdit(t, peer, c.edit)
			before := victim.Git("rev-parse", "refs/konteks")
			t0 := time.Now()
			_, err := plainFetch(t, victim)
			took := time.Since(t0)
			t.Logf("refused in %s: %v", took.Round(time.Millisecond), err)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want a refusal about %q, got %v", c.want, err)
			}
			if took > c.limit {
				t.Fatalf("refusal took %s, over %s", took, c.limit)
			}
			t0 = time.Now()
			if _, err := MergeTracking(victim.repo); !errors.Is(err, ErrRefused) {
				t.Fatalf("second pass: %v", err)
			}
			t.Logf("second pass skipped it in %s", time.Since(t0).Round(time.Millisecond))
			if victim.Git("rev-parse", "refs/konteks") != before {
				t.Fatal("local memory changed")
			}
		})
	}
}

// TestNamesAsGitFsck: checkName refuses exactly the .git spellings git's
// own fsck --strict refuses (and the path names git never allows).
func TestNamesAsGitFsck(t *testing.T) {
	names := []string{".git", ".GIT", ".Git", ".git.", ".git ", ".git. .", "git~1", "GIT~1", ".g\u200cit", "\ufeff.git",
		".git::$INDEX_ALLOCATION", ".git\\foo", ".gitx", "git~2", "git", "x.git", "...", ".gi", ".git~1", "git~10"}
	for _, name := range names {
		r := testgit.New(t)
		repo, err := gitstore.Open(r.Dir)
		if err != nil {
			t.Fatal(err)
		}
		w := repo.NewWriter()
		b, _ := w.Blob([]byte("x"))
		tree, _ := w.Tree([]gitstore.TreeEntry{{Name: name, Mode: gitstore.ModeRegular, Hash: b}})
		c, _ := w.Commit(gitstore.CommitSpec{Tree: tree, Author: gitstore.Signature{Name: "t", Email: "t@example.invalid"}, Message: "m\n"})
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		r.Git("update-ref", "refs/heads/main", c.String())
		_, fsckErr := r.TryGit("fsck", "--strict", "--no-dangling")
		ours := checkName(name)
		if (fsckErr != nil) != (ours != nil) {
			t.Errorf("name %q: git fsck --strict says %v, checkName says %v", name, fsckErr, ours)
		}
	}
}

func rawTree(entries ...[3]string) []byte {
	var buf bytes.Buffer
	for _, e := range entries {
		fmt.Fprintf(&buf, "%s %s\x00", e[0], e[1])
		h := sha1.Sum([]byte(fmt.Sprintf("blob %d\x00%s", len(e[2]), e[2]))) // the blob's id
		buf.Write(h[:])
	}
	return buf.Bytes()
}

func TestCheckTree(t *testing.T) {
	good := rawTree([3]string{"100644", "a", "1"}, [3]string{"100644", "b.txt", "3"}, [3]string{"40000", "b", "2"})
	if err := checkTree(good); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"zero-padded mode": rawTree([3]string{"040000", "a", "1"}),
		"executable":       rawTree([3]string{"100755", "a", "1"}),
		"symlink":          rawTree([3]string{"120000", "a", "1"}),
		"gitlink":          rawTree([3]string{"160000", "a", "1"}),
		"dotdot":           rawTree([3]string{"40000", "..", "1"}),
		"dot":              rawTree([3]string{"40000", ".", "1"}),
		"empty name":       rawTree([3]string{"100644", "", "1"}),
		"slash":            rawTree([3]string{"100644", "a/b", "1"}),
		"duplicate":        rawTree([3]string{"100644", "a", "1"}, [3]string{"40000", "a", "2"}),
		"unsorted":         rawTree([3]string{"100644", "b", "1"}, [3]string{"100644", "a", "2"}),
		"dir order":        rawTree([3]string{"40000", "a", "1"}, [3]string{"100644", "a.b", "2"}),
		"truncated":        good[:len(good)-3],
		"dotgit":           rawTree([3]string{"40000", ".git", "1"}),
	} {
		if err := checkTree(data); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestCheckCommit(t *testing.T) {
	tree := strings.Repeat("a", 40)
	good := "tree " + tree + "\nparent " + strings.Repeat("b", 40) + "\nauthor A U <a@example.invalid> 1700000000 +0100\ncommitter A U <a@example.invalid> 1700000000 -0130\ngpgsig -----BEGIN SSH SIGNATURE-----\n x\n -----END SSH SIGNATURE-----\n\nmessage\n"
	if err := checkCommit([]byte(good)); err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string]string{
		"no tree":        strings.Replace(good, "tree "+tree+"\n", "", 1),
		"short tree":     strings.Replace(good, tree, "abc", 1),
		"bad parent":     strings.Replace(good, strings.Repeat("b", 40), "zz", 1),
		"no committer":   strings.Replace(good, "committer A U <a@example.invalid> 1700000000 -0130\n", "", 1),
		"no name":        strings.Replace(good, "author A U <", "author <", 1),
		"no email":       strings.Replace(good, "<a@example.invalid> 1700000000 +0100", "1700000000 +0100", 1),
		"bad timezone":   strings.Replace(good, "+0100", "+01", 1),
		"leading zero":   strings.Replace(good, "> 1700000000 +0100", "> 0170 +0100", 1),
		"unterminated":   "tree " + tree,
		"author twice <": strings.Replace(good, "author A U <a@", "author A <U <a@", 1),
	} {
		if err := checkCommit([]byte(bad)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// FuzzCheckTree: checkTree never panics, and a tree it accepts decodes
// (as readers decode it) into entries whose names are safe to check out.
func FuzzCheckTree(f *testing.F) {
	f.Add(rawTree([3]string{"100644", "a", "1"}, [3]string{"40000", "b", "2"}))
	f.Add(rawTree([3]string{"40000", ".git", "1"}))
	f.Add(rawTree([3]string{"40000", "git~1", "1"}))
	f.Add([]byte("100644 a\x00short"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if checkTree(data) != nil {
			return
		}
		entries, err := gitstore.DecodeTree(data)
		if err != nil {
			t.Fatalf("accepted a tree readers cannot decode: %v", err)
		}
		for _, e := range entries {
			if e.Name == "" || e.Name == ".." || strings.EqualFold(strings.TrimRight(e.Name, ". "), ".git") || strings.Contains(e.Name, "/") {
				t.Fatalf("accepted entry %q", e.Name)
			}
			if e.Mode != gitstore.ModeDir && e.Mode != gitstore.ModeRegular {
				t.Fatalf("accepted mode %v", e.Mode)
			}
		}
	})
}
