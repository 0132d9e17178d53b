package gitstore

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/konteks/git-konteks/internal/testgit"
)

// fakeGit writes dir/git: the real git, except that it answers `git
// version` with version, and logs every call (one line of arguments) to
// the file it returns.
func fakeGit(t *testing.T, dir, version string) (bin, log string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in git is a shell script")
	}
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	bin, log = filepath.Join(dir, "git"), filepath.Join(dir, "calls.log")
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" + log + "'\n" +
		"if [ \"$1\" = version ]; then echo 'git version " + version + "'; exit 0; fi\n" +
		"exec '" + real + "' \"$@\"\n"
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// Written beside and renamed into place, as a package manager
	// installs a binary.
	tmp := bin + ".new"
	if err := os.WriteFile(tmp, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, bin); err != nil {
		t.Fatal(err)
	}
	return bin, log
}

// versionCalls counts the `git version` processes the stand-in ran.
func versionCalls(t *testing.T, log string) int {
	t.Helper()
	b, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "version\n")
}

// hermeticCache points the user cache directory at a new temporary one
// (HOME as well: os.UserCacheDir reads it on macOS) and forgets what this
// process learnt of git versions; it returns the cache directory.
func hermeticCache(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	cache := filepath.Join(home, "cache")
	t.Setenv("XDG_CACHE_HOME", cache)
	forgetVersions(t)
	return cache
}

// forgetVersions clears the in-process answers, as a new process starts
// without them.
func forgetVersions(t *testing.T) {
	versions.Lock()
	versions.byKey = nil
	versions.Unlock()
	t.Cleanup(func() {
		versions.Lock()
		versions.byKey = nil
		versions.Unlock()
	})
}

// TestGitVersionCached: a command learns git's version from the user cache
// without a `git version` process, and asks git again whenever the
// answer may be wrong: the binary replaced (an upgrade, a downgrade) or
// rewritten in place, the entry damaged or older than versionTTL. A cache
// directory that cannot be written costs a process at every start and
// nothing more.
func TestGitVersionCached(t *testing.T) {
	hermeticCache(t)
	dir := filepath.Join(t.TempDir(), "bin")
	bin, log := fakeGit(t, dir, "2.45.1")

	usable := func(want bool, calls int, what string) {
		t.Helper()
		if got := gitUsable(bin); got != want {
			t.Fatalf("%s: usable %v, want %v", what, got, want)
		}
		if n := versionCalls(t, log); n != calls {
			t.Fatalf("%s: %d `git version` processes in all, want %d", what, n, calls)
		}
	}
	newProcess := func() { forgetVersions(t) }

	usable(true, 1, "first start")
	usable(true, 1, "the same process again")
	file := versionCacheFile(bin)
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("no cache entry: %v", err)
	}
	newProcess()
	usable(true, 1, "a later process")

	// A downgrade below MinGitVersion: a new file renamed over the old.
	fakeGit(t, dir, "2.30.2")
	newProcess()
	usable(false, 2, "after a downgrade")
	newProcess()
	usable(false, 2, "the old version, from the cache")

	// An upgrade written over the same file (same inode).
	script, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond) // a modification time of its own
	f, err := os.OpenFile(bin, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte(strings.Replace(string(script), "2.30.2", "2.39.10", 1))); err != nil {
		t.Fatal(err)
	}
	f.Close()
	newProcess()
	usable(true, 3, "after an upgrade in place")

	// A damaged entry, and one past its time.
	if err := os.WriteFile(file, []byte("git-konteks git-version 1\n2.9"), 0o644); err != nil {
		t.Fatal(err)
	}
	newProcess()
	usable(true, 4, "after damage")
	newProcess()
	usable(true, 4, "the entry written anew")
	writeVersionCache(file, binaryKey(bin), 2, 45, time.Now().Add(-versionTTL-time.Minute))
	newProcess()
	usable(true, 5, "an entry past its time")

	// A cache directory that cannot be made (its parent is a file; as
	// root, permissions would not stop the write).
	blocked := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CACHE_HOME", blocked)
	newProcess()
	usable(true, 6, "unwritable cache, first process")
	newProcess()
	usable(true, 7, "unwritable cache, next process")
	usable(true, 7, "unwritable cache, the same process")

	// No user cache directory at all.
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	newProcess()
	usable(true, 8, "no cache directory")
}

// TestParseGitVersion: the answers of the gits in the wild, and what is
// not one.
func TestParseGitVersion(t *testing.T) {
	for out, want := range map[string][2]int{
		"git version 2.39.5\n":                      {2, 39},
		"git version 2.39.3 (Apple Git-146)\n":      {2, 39},
		"git version 2.45.1.windows.1\n":            {2, 45},
		"git version 3.0.0.rc1\n":                   {3, 0},
		"git version 2.36\n":                        {2, 36},
		"git version 2.43.0.381.gb435a96ce8-goog\n": {2, 43},
	} {
		maj, min, ok := parseGitVersion(out)
		if !ok || maj != want[0] || min != want[1] {
			t.Errorf("%q: %d.%d %v, want %d.%d", out, maj, min, ok, want[0], want[1])
		}
	}
	for _, out := range []string{"", "git version\n", "git version two.three\n", "hg version 2.39\n", "git version 2\n", "git version -2.1\n"} {
		if _, _, ok := parseGitVersion(out); ok {
			t.Errorf("%q read as a version", out)
		}
	}
}

// TestOldGitNeverRun: with a git older than MinGitVersion on PATH,
// nothing but `git version` runs it: objects, trees, blobs, config and
// refs are read through go-git.
func TestOldGitNeverRun(t *testing.T) {
	hermeticCache(t)
	r := testgit.New(t)
	r.WriteFiles(map[string]string{"a.txt": "a\n", "d/b.txt": "b\n"})
	head := r.Commit("first")
	blob := ParseHash(r.Git("rev-parse", "HEAD:a.txt"))
	dir := t.TempDir()
	_, log := fakeGit(t, dir, "2.30.2")
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))

	for i := 0; i < 2; i++ { // the second start reads the version from the cache
		forgetVersions(t)
		repo, err := Open(r.Dir)
		if err != nil {
			t.Fatal(err)
		}
		if repo.HasCLI() {
			t.Fatal("an old git is used")
		}
		c, err := repo.Resolve("HEAD")
		if err != nil || c.Hash.String() != head {
			t.Fatalf("HEAD: %v %v", c, err)
		}
		if _, err := repo.Tree(c.TreeHash); err != nil {
			t.Fatal(err)
		}
		if b, err := repo.BlobBytes(blob, 0); err != nil || string(b) != "a\n" {
			t.Fatalf("blob: %q %v", b, err)
		}
		if !repo.HasObject(blob) {
			t.Fatal("a blob is missing")
		}
		if n, err := repo.RawObjectSize(blob); err != nil || n != 2 {
			t.Fatalf("size %d %v", n, err)
		}
		_ = repo.ConfigValue("user.name")
		ids := make([]Hash, 40)
		for i := range ids {
			ids[i] = blob
		}
		rd := repo.NewBlobReader(len(ids))
		if err := rd.ReadBlobs(context.Background(), ids, 0, func(Blob) error { return nil }); err != nil {
			t.Fatal(err)
		}
		rd.Close()
	}
	b, _ := os.ReadFile(log)
	if calls := strings.TrimSpace(string(b)); calls != "version" {
		t.Fatalf("the old git ran:\n%s", calls)
	}
}
