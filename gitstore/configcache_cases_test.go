package gitstore

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/konteks/git-konteks/internal/testgit"
)

// keptSetup: a hermetic environment, a repository, a global config file
// at global with text, every config file dated a minute back (as the
// existing test does, so the snapshot is kept).
func keptSetup(t *testing.T, global, text string) *testgit.Repo {
	t.Helper()
	hermeticCache(t)
	r := testgit.New(t)
	if err := os.WriteFile(global, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	ageFiles(t, global, filepath.Join(r.Dir, ".git", "config"))
	return r
}

func ageFiles(t *testing.T, files ...string) {
	t.Helper()
	old := time.Now().Add(-time.Minute)
	for _, f := range files {
		if err := os.Chtimes(f, old, old); err != nil {
			t.Fatal(err)
		}
	}
}

// A secret passed as `git -c` (GIT_CONFIG_PARAMETERS, which git exports to
// hooks) is written to the kept snapshot through its "source" field.
func TestConfigSnapshotHoldsNoEnvironment(t *testing.T) {
	r := keptSetup(t, filepath.Join(t.TempDir(), "global"), "[konteks]\n\tsign = x\n")
	t.Setenv("GIT_CONFIG_PARAMETERS", "'http.extraheader'='Authorization: Bearer SECRET-TOKEN-123'")
	repo := mustOpen(t, r.Dir)
	if got := repo.ConfigValue("konteks.sign"); got != "x" {
		t.Fatalf("konteks.sign = %q", got)
	}
	b, err := os.ReadFile(repo.configSnapshotFile())
	if err != nil {
		t.Fatalf("no kept snapshot: %v", err)
	}
	if strings.Contains(string(b), "SECRET-TOKEN-123") {
		t.Errorf("the kept snapshot holds the token:\n%s", b)
	}
}

// A value that is not UTF-8 (a Latin-1 user.name) comes back from the kept
// snapshot changed: encoding/json replaces the byte with U+FFFD.
func TestConfigSnapshotValueNotUTF8(t *testing.T) {
	r := keptSetup(t, filepath.Join(t.TempDir(), "global"), "[user]\n\tname = Jos\xe9\n")
	first := mustOpen(t, r.Dir).ConfigValue("user.name")
	second := mustOpen(t, r.Dir).ConfigValue("user.name")
	if first != "Jos\xe9" || second != first {
		t.Errorf("user.name: first process %q, second process %q, git says %q", first, second, "Jos\xe9")
	}
}

// An include "../x" in a file whose directory is a symlink: git opens
// <dir>/../x, which the kernel resolves from the link's target; the
// snapshot watches the lexically cleaned path, another file, and misses
// every change to the file git really read.
func TestConfigSnapshotIncludeThroughSymlinkedDir(t *testing.T) {
	base := t.TempDir()
	if err := os.MkdirAll(filepath.Join(base, "dotfiles", "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("dotfiles", "git"), filepath.Join(base, "gitdir")); err != nil {
		t.Fatal(err)
	}
	inc := filepath.Join(base, "dotfiles", "extra") // git's <link>/../extra
	if err := os.WriteFile(inc, []byte("[konteks]\n\tsign = old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	global := filepath.Join(base, "gitdir", "config")
	r := keptSetup(t, global, "[include]\n\tpath = ../extra\n")
	ageFiles(t, inc)
	if got := mustOpen(t, r.Dir).ConfigValue("konteks.sign"); got != "old" {
		t.Fatalf("first process: %q", got)
	}
	if err := os.WriteFile(inc, []byte("[konteks]\n\tsign = changed-value\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ageFiles(t, inc) // no matter how long ago the edit was
	want := gitConfigValue(t, r.Dir, "konteks.sign")
	if got := mustOpen(t, r.Dir).ConfigValue("konteks.sign"); got != want {
		t.Errorf("after the included file changed: %q, git says %q", got, want)
	}
}

// A config file replaced in place, same size, with its time kept (cp -p,
// rsync -t --inplace, touch -r): only ctime shows the change, and the
// state does not hold it.
func TestConfigSnapshotRewriteKeepingItsTime(t *testing.T) {
	global := filepath.Join(t.TempDir(), "global")
	r := keptSetup(t, global, "[konteks]\n\tsign = aaa\n")
	if got := mustOpen(t, r.Dir).ConfigValue("konteks.sign"); got != "aaa" {
		t.Fatalf("first process: %q", got)
	}
	fi, _ := os.Stat(global)
	if err := os.WriteFile(global, []byte("[konteks]\n\tsign = bbb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(global, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	want := gitConfigValue(t, r.Dir, "konteks.sign")
	if got := mustOpen(t, r.Dir).ConfigValue("konteks.sign"); got != want {
		t.Errorf("after an in-place rewrite that kept the time: %q, git says %q", got, want)
	}
}

// gitConfigValue asks git itself, in the test's environment.
func gitConfigValue(t *testing.T, dir, key string) string {
	t.Helper()
	cmd := exec.Command("git", "config", key)
	cmd.Dir = dir
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
		return "" // unset
	}
	if err != nil {
		t.Fatalf("git config %s: %v", key, err)
	}
	return strings.TrimSpace(string(out))
}

// GIT_CONFIG_NOSYSTEM=0 (or false) is false to git, which reads the
// system config; configFiles takes any non-empty value for true and does
// not watch it: a system config created later is not seen.
func TestConfigSnapshotNoSystemFalse(t *testing.T) {
	dir := t.TempDir()
	r := keptSetup(t, filepath.Join(dir, "global"), "[konteks]\n\tother = 1\n")
	sys := filepath.Join(dir, "system") // missing at first
	t.Setenv("GIT_CONFIG_NOSYSTEM", "0")
	t.Setenv("GIT_CONFIG_SYSTEM", sys)
	if got := mustOpen(t, r.Dir).ConfigValue("konteks.sign"); got != "" {
		t.Fatalf("first process: %q", got)
	}
	if err := os.WriteFile(sys, []byte("[konteks]\n\tsign = system\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ageFiles(t, sys)
	want := gitConfigValue(t, r.Dir, "konteks.sign")
	if got := mustOpen(t, r.Dir).ConfigValue("konteks.sign"); got != want {
		t.Errorf("after the system config was created: %q, git says %q", got, want)
	}
}

// includeIf "gitdir:" matches the git dir's real path too. A repository
// reached through a symlink and moved (same filesystem: no file's state
// changes) with the link re-pointed keeps its git dir's path, so the
// kept snapshot's name, while git no longer takes the include.
func TestConfigSnapshotGitdirMovedBehindALink(t *testing.T) {
	base := t.TempDir()
	inc := filepath.Join(base, "work.cfg")
	if err := os.WriteFile(inc, []byte("[user]\n\temail = me@work.example\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	global := filepath.Join(base, "global")
	r := keptSetup(t, global, "[includeIf \"gitdir:"+filepath.Join(base, "work")+"/\"]\n\tpath = "+inc+"\n")
	ageFiles(t, inc)
	for _, d := range []string{"work", "personal"} {
		if err := os.Mkdir(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The repository lives in work/proj, reached through base/proj.
	if err := os.Rename(r.Dir, filepath.Join(base, "work", "proj")); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "proj")
	if err := os.Symlink(filepath.Join("work", "proj"), link); err != nil {
		t.Fatal(err)
	}
	if got := mustOpen(t, link).ConfigValue("user.email"); got != "me@work.example" {
		t.Fatalf("first process: %q", got)
	}
	if err := os.Rename(filepath.Join(base, "work", "proj"), filepath.Join(base, "personal", "proj")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("personal", "proj"), link); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "config", "user.email")
	cmd.Dir = link
	out, _ := cmd.Output() // exit 1: unset
	want := strings.TrimSpace(string(out))
	if got := mustOpen(t, link).ConfigValue("user.email"); got != want {
		t.Errorf("after the move: user.email = %q, git says %q", got, want)
	}
}

// TestConfigSnapshotCases: nested relative includes, a global config
// behind a link re-pointed, an include edited, deleted and created again,
// a linked worktree's config.worktree, GIT_CONFIG_COUNT and its values:
// each process answers what git answers.
func TestConfigSnapshotCases(t *testing.T) {
	base := t.TempDir()
	w := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		ageFiles(t, p)
	}
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	w(a, "[include]\n\tpath = sub/n1\n[konteks]\n\tsign = aaa\n")
	w(b, "[include]\n\tpath = sub/n1\n[konteks]\n\tsign = bbb\n")
	os.Mkdir(filepath.Join(base, "sub"), 0o755)
	w(filepath.Join(base, "sub", "n1"), "[include]\n\tpath = n2\n")
	w(filepath.Join(base, "sub", "n2"), "[konteks]\n\tnested = one\n")
	link := filepath.Join(base, "global")
	if err := os.Symlink("a", link); err != nil {
		t.Fatal(err)
	}
	r := keptSetup(t, filepath.Join(base, "unused"), "")
	t.Setenv("GIT_CONFIG_GLOBAL", link)
	r.Write("f", "x")
	r.Commit("c")
	r.Git("config", "extensions.worktreeConfig", "true")
	wt := filepath.Join(base, "wt")
	r.Git("worktree", "add", "-q", wt)
	r.Git("-C", wt, "config", "--worktree", "konteks.wt", "one")
	ageFiles(t, filepath.Join(r.Dir, ".git", "config"), filepath.Join(r.Dir, ".git", "worktrees", "wt", "config.worktree"))
	check := func(what, dir, key string) {
		t.Helper()
		want := gitConfigValue(t, dir, key)
		for i := 0; i < 2; i++ {
			if got := mustOpen(t, dir).ConfigValue(key); got != want {
				t.Errorf("%s (process %d): %s = %q, git says %q", what, i, key, got, want)
			}
		}
	}
	check("start", r.Dir, "konteks.sign")
	check("start", r.Dir, "konteks.nested")
	check("start wt", wt, "konteks.wt")
	check("start main", r.Dir, "konteks.wt")
	os.Remove(link)
	os.Symlink("b", link)
	check("link retargeted", r.Dir, "konteks.sign")
	w(filepath.Join(base, "sub", "n2"), "[konteks]\n\tnested = two\n")
	check("nested edited", r.Dir, "konteks.nested")
	os.Remove(filepath.Join(base, "sub", "n2"))
	check("nested deleted", r.Dir, "konteks.nested")
	w(filepath.Join(base, "sub", "n2"), "[konteks]\n\tnested = two\n")
	check("nested recreated", r.Dir, "konteks.nested")
	w(filepath.Join(r.Dir, ".git", "worktrees", "wt", "config.worktree"), "[konteks]\n\twt = two\n")
	check("wt edited", wt, "konteks.wt")
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "konteks.sign")
	t.Setenv("GIT_CONFIG_VALUE_0", "env")
	check("env count", r.Dir, "konteks.sign")
	t.Setenv("GIT_CONFIG_VALUE_0", "env2")
	check("env value", r.Dir, "konteks.sign")
}

// TestConfigSnapshotKeepsNoCredential: a kept key whose value carries a
// credential (a URL with a password, a token the secret detector knows)
// keeps no snapshot; the value is still read right, from git.
func TestConfigSnapshotKeepsNoCredential(t *testing.T) {
	for _, v := range []string{"https://user:hunter2@llm.example.com/v1", "ghp_" + strings.Repeat("a1B2", 9)} {
		global := filepath.Join(t.TempDir(), "global")
		r := keptSetup(t, global, "[konteks \"llm\"]\n\turl = "+v+"\n")
		repo := mustOpen(t, r.Dir)
		if got := repo.ConfigValue("konteks.llm.url"); got != v {
			t.Fatalf("konteks.llm.url = %q, want %q", got, v)
		}
		if _, err := os.Stat(repo.configSnapshotFile()); !os.IsNotExist(err) {
			b, _ := os.ReadFile(repo.configSnapshotFile())
			t.Errorf("a snapshot holding %q was kept (%v):\n%s", v, err, b)
		}
	}
}
