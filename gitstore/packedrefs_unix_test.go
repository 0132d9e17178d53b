//go:build unix

package gitstore

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/konteks/git-konteks/internal/testgit"
)

// packed-refs rewritten twice by git (lock file renamed into place) comes
// back to the inode it had two versions ago (ext4 reuses the inode freed
// by the first rename); with the same size and a timestamp in the same
// tick, the cached parse of the old version answers. The tick is
// emulated by setting the time back (a filesystem with 1 s times, or
// three writes within one 4 ms kernel tick).
func TestPackedRefsOnAReusedInode(t *testing.T) {
	r := testgit.New(t)
	r.Write("a.txt", "a\n")
	head := r.Commit("a")
	r.Git("update-ref", "refs/konteks/a1", head)
	r.Git("pack-refs", "--all")
	packed := filepath.Join(r.Dir, ".git", "packed-refs")
	repo := mustOpen(t, r.Dir)
	if h, err := repo.ReadRef("refs/konteks/a2"); err != nil || !h.IsZero() {
		t.Fatalf("a2 before: %v %v", h, err)
	}
	v1, _ := os.Stat(packed)
	r.Git("update-ref", "-d", "refs/konteks/a1") // rewrites packed-refs
	r.Git("update-ref", "refs/konteks/a2", head)
	r.Git("pack-refs", "--all") // rewrites it again, a2 in a1's place
	v3, _ := os.Stat(packed)
	if v1.Size() != v3.Size() {
		t.Fatalf("sizes %d %d", v1.Size(), v3.Size())
	}
	if v1.Sys().(*syscall.Stat_t).Ino != v3.Sys().(*syscall.Stat_t).Ino {
		t.Skip("this filesystem gave packed-refs a new inode")
	}
	t.Logf("inode %d reused", v3.Sys().(*syscall.Stat_t).Ino)
	if err := os.Chtimes(packed, v1.ModTime(), v1.ModTime()); err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSpace(r.Git("rev-parse", "--verify", "-q", "refs/konteks/a2"))
	h, err := repo.ReadRef("refs/konteks/a2")
	if err != nil || h.String() != want {
		t.Errorf("ReadRef(refs/konteks/a2) = %v, %v; git says %s", h, err, want)
	}
}
