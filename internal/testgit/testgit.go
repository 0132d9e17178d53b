// Package testgit builds real git repositories in temporary directories
// for tests. Every git command runs with a fixed identity and without the
// machine's global or system config, so tests never depend on it.
package testgit

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The test process itself is hermetic too: code under test runs in it
// (gitstore's git processes inherit its environment), and must never read
// the machine's global or system git config. Importing this package
// removes every inherited GIT_* variable (a test run from a git hook has
// GIT_DIR set) and points git's global and system config at nothing.
func init() {
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "GIT_") {
			os.Unsetenv(k)
		}
	}
	os.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	// The user cache directory, where gitstore keeps git's version, is
	// the tests' own: a test run leaves the user's ~/.cache alone.
	os.Setenv("XDG_CACHE_HOME", CacheDir())
}

// CacheDir is the user cache directory (XDG_CACHE_HOME) of every test
// process and of the commands tests run: one directory under the
// system's temporary one, shared by test runs (what is cached there,
// git's version, is the same for all).
func CacheDir() string { return filepath.Join(os.TempDir(), "konteks-test-cache") }

// Env is the environment tests run git (and git-konteks) with.
func Env() []string {
	env := []string{}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GIT_") || k == "KONTEKS_NO_GIT_CLI" {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"GIT_AUTHOR_NAME=Test Author", "GIT_AUTHOR_EMAIL=author@example.invalid",
		"GIT_COMMITTER_NAME=Test Author", "GIT_COMMITTER_EMAIL=author@example.invalid",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_DATE=2026-01-02T03:04:05Z", "GIT_COMMITTER_DATE=2026-01-02T03:04:05Z",
	)
}

// Setenv gives the test process the git variables of Env (the fixed
// identity, dates and empty config) until t ends, for code under test that
// runs git in-process (gitstore's git processes inherit them).
func Setenv(t testing.TB) {
	for _, kv := range Env() {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "GIT_") {
			t.Setenv(k, v)
		}
	}
}

// Repo is a repository under test.
type Repo struct {
	T   testing.TB
	Dir string
}

// New makes an empty repository with branch main.
func New(t testing.TB) *Repo {
	t.Helper()
	r := &Repo{T: t, Dir: t.TempDir()}
	r.Git("init", "-q", "-b", "main")
	return r
}

// At wraps an existing directory (a clone, a worktree).
func At(t testing.TB, dir string) *Repo { return &Repo{T: t, Dir: dir} }

// Git runs git in the repository and returns its trimmed stdout.
func (r *Repo) Git(args ...string) string {
	r.T.Helper()
	out, err := r.TryGit(args...)
	if err != nil {
		r.T.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// TryGit is Git without failing the test.
func (r *Repo) TryGit(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Dir
	cmd.Env = Env()
	out, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// GitStdin runs git with stdin.
func (r *Repo) GitStdin(stdin string, args ...string) string {
	r.T.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Dir
	cmd.Env = Env()
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		r.T.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out))
}

// Write writes a file (creating directories) in the work tree.
func (r *Repo) Write(path, content string) {
	r.T.Helper()
	p := filepath.Join(r.Dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.T.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.T.Fatal(err)
	}
}

// WriteFiles writes several files.
func (r *Repo) WriteFiles(files map[string]string) {
	r.T.Helper()
	for p, c := range files {
		r.Write(p, c)
	}
}

// Remove deletes a work tree file.
func (r *Repo) Remove(path string) {
	r.T.Helper()
	if err := os.RemoveAll(filepath.Join(r.Dir, filepath.FromSlash(path))); err != nil {
		r.T.Fatal(err)
	}
}

// Commit stages everything and commits; it returns the new HEAD.
func (r *Repo) Commit(msg string) string {
	r.T.Helper()
	r.Git("add", "-A")
	r.Git("commit", "-q", "--allow-empty", "-m", msg)
	return r.Git("rev-parse", "HEAD")
}

// CopyTree copies a fixture directory (e.g. testdata/...) into the work tree.
func (r *Repo) CopyTree(src string) {
	r.T.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		dst := filepath.Join(r.Dir, rel)
		if info.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, info.Mode().Perm())
	})
	if err != nil {
		r.T.Fatal(err)
	}
}

// Files is every file and directory under dir but .git directories:
// files with their bytes, directories (ending in a slash) with "". Tests
// compare two of them to check that something was restored byte for
// byte and left nothing behind.
func Files(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			out[rel+"/"] = ""
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Soak is how long a randomised soak test runs: d, a short run that every
// `go test` makes, unless KONTEKS_SOAK (a Go duration, which `make soak`
// sets) asks for a longer one. soaking is true then: the test should
// lift any cap on its rounds too.
func Soak(t testing.TB, d time.Duration) (budget time.Duration, soaking bool) {
	t.Helper()
	if s := os.Getenv("KONTEKS_SOAK"); s != "" {
		v, err := time.ParseDuration(s)
		if err != nil || v <= 0 {
			t.Fatalf("KONTEKS_SOAK=%q: want a positive Go duration such as 10m", s)
		}
		t.Logf("soaking for %v (KONTEKS_SOAK)", v)
		return v, true
	}
	return d, false
}

// Object is a git object as stored: its id, type and bytes.
type Object struct {
	ID, Type string
	Data     []byte
}

// Objects lists every object reachable from refs (none: an empty list),
// read through `git cat-file --batch`: what a clone of those refs holds.
func (r *Repo) Objects(refs ...string) []Object {
	r.T.Helper()
	if len(refs) == 0 {
		return nil
	}
	var ids []string
	for _, line := range strings.Split(r.Git(append([]string{"rev-list", "--objects"}, refs...)...), "\n") {
		if id, _, _ := strings.Cut(line, " "); id != "" {
			ids = append(ids, id)
		}
	}
	cmd := exec.Command("git", "cat-file", "--batch")
	cmd.Dir, cmd.Env = r.Dir, Env()
	cmd.Stdin = strings.NewReader(strings.Join(ids, "\n") + "\n")
	raw, err := cmd.Output()
	if err != nil {
		r.T.Fatalf("git cat-file --batch: %v", err)
	}
	var out []Object
	for len(raw) > 0 {
		nl := bytes.IndexByte(raw, '\n')
		if nl < 0 {
			r.T.Fatalf("cat-file --batch: a header without its end: %q", raw)
		}
		f := strings.Fields(string(raw[:nl]))
		if len(f) != 3 {
			r.T.Fatalf("cat-file --batch: header %q", raw[:nl])
		}
		size, err := strconv.Atoi(f[2])
		if err != nil || nl+1+size+1 > len(raw) {
			r.T.Fatalf("cat-file --batch: object %s of %s bytes overruns the output", f[0], f[2])
		}
		out = append(out, Object{ID: f[0], Type: f[1], Data: raw[nl+1 : nl+1+size]})
		raw = raw[nl+1+size+1:]
	}
	return out
}
