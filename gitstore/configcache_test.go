package gitstore

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/konteks/git-konteks/internal/testgit"
)

// TestConfigSnapshotKept: a new process takes the config snapshot an
// earlier one kept instead of starting `git config`, and asks git again
// whenever what the snapshot came from changed: an included file, a
// missing include created, the environment, a write through the Repo, a
// file changed too recently to trust its time, an entry too old or
// damaged. A config that depends on the branch is never kept.
func TestConfigSnapshotKept(t *testing.T) {
	hermeticCache(t)
	bin, log := fakeGit(t, t.TempDir(), "2.45.0")
	t.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	r := testgit.New(t)
	dir := t.TempDir()
	inc := filepath.Join(dir, "included")
	later := filepath.Join(dir, "later") // named by a relative include, missing at first
	global := filepath.Join(dir, "global")
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// age sets every config file's time in the past: a file changed just
	// now is not trusted (configRacy), and a test's files all are.
	age := func() {
		t.Helper()
		old := time.Now().Add(-time.Minute - time.Duration(len(calls(t, log)))*time.Second)
		for _, f := range []string{inc, later, global, filepath.Join(r.Dir, ".git", "config")} {
			if err := os.Chtimes(f, old, old); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
		}
	}
	write(inc, "[konteks]\n\tfromInclude = yes\n")
	write(global, "[include]\n\tpath = "+inc+"\n\tpath = later\n[konteks]\n\tsign = global\n[http]\n\textraHeader = Authorization: token-in-config\n")
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	r.Git("config", "konteks.local", "1")
	age()

	// value opens the repository anew, as a new process does, and reads
	// key; it returns the value and the `git config` processes so far.
	value := func(key string) (string, int) {
		t.Helper()
		repo, err := Open(r.Dir)
		if err != nil {
			t.Fatal(err)
		}
		return repo.ConfigValue(key), len(calls(t, log))
	}
	expect := func(what, key, want string, wantCalls int) {
		t.Helper()
		got, n := value(key)
		if got != want || n != wantCalls {
			t.Errorf("%s: %s = %q after %d git config processes, want %q after %d", what, key, got, n, want, wantCalls)
		}
	}
	expect("first process", "konteks.fromInclude", "yes", 1)
	expect("second process", "konteks.fromInclude", "yes", 1)
	expect("third process, another key", "konteks.local", "1", 1)
	// Only what git konteks reads is kept: a key outside it is read from
	// git, and the file holds no other value of the config.
	expect("a key the kept snapshot does not hold", "http.extraHeader", "Authorization: token-in-config", 2)
	if b, err := os.ReadFile(mustOpen(t, r.Dir).configSnapshotFile()); err != nil || strings.Contains(string(b), "token-in-config") || !strings.Contains(string(b), "konteks.local") {
		t.Errorf("the kept snapshot (%v) holds what it should not, or lacks what it should:\n%s", err, b)
	}
	expect("and a kept key again", "konteks.local", "1", 2)

	write(inc, "[konteks]\n\tfromInclude = yup\n") // the same size
	age()
	expect("an included file changed", "konteks.fromInclude", "yup", 3)
	expect("and kept again", "konteks.fromInclude", "yup", 3)

	write(later, "[konteks]\n\tlater = here\n")
	age()
	expect("a missing include created", "konteks.later", "here", 4)

	t.Setenv("GIT_CONFIG_PARAMETERS", "'konteks.fromenv'='e'")
	expect("the environment changed", "konteks.fromenv", "e", 5)
	expect("and kept again", "konteks.fromenv", "e", 5)

	repo := mustOpen(t, r.Dir)
	if err := repo.SetConfig("konteks.sign", "set"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(repo.configSnapshotFile()); !os.IsNotExist(err) {
		t.Errorf("a write through the Repo left the kept snapshot: %v", err)
	}
	n := len(calls(t, log))
	// The write just now makes the repository's config too recent to keep.
	expect("after a write", "konteks.sign", "set", n+1)
	expect("a recent change is not kept", "konteks.sign", "set", n+2)
	age()
	expect("once it is old enough", "konteks.sign", "set", n+3)
	expect("it is kept", "konteks.sign", "set", n+3)

	file := repo.configSnapshotFile()
	var e configEntry
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	e.Written -= int64((configKeep + time.Minute).Seconds())
	b, _ = json.Marshal(e)
	write(file, string(b))
	expect("an entry too old", "konteks.sign", "set", n+4)
	write(file, `{"form":"`+configSnapshotForm+`","keys":["konteks.sign"]`)
	expect("a damaged entry", "konteks.sign", "set", n+5)

	write(global, "[includeIf \"onbranch:main\"]\n\tpath = "+inc+"\n[konteks]\n\tsign = global\n")
	age()
	n = len(calls(t, log))
	expect("a config that depends on the branch", "konteks.fromInclude", "yup", n+1)
	expect("is not kept", "konteks.fromInclude", "yup", n+2)
}

// calls lists the `git config` processes the stand-in git ran.
func calls(t *testing.T, log string) []string {
	t.Helper()
	b, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "config -z --list") {
			out = append(out, l)
		}
	}
	return out
}

func mustOpen(t *testing.T, dir string) *Repo {
	t.Helper()
	repo, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return repo
}

// TestParseBool reads booleans as git does (git config --type=bool).
func TestParseBool(t *testing.T) {
	r := testgit.New(t)
	for _, v := range []string{"true", "TRUE", "Yes", "on", "1", "2", "-1", "false", "No", "OFF", "0", "00", "maybe", "1x"} {
		r.Git("config", "konteks.probe", v)
		out, err := r.TryGit("config", "--type=bool", "konteks.probe")
		val, ok := ParseBool(v)
		if (err == nil) != ok || err == nil && (strings.TrimSpace(out) == "true") != val {
			t.Errorf("%q: git says %q (%v), ParseBool %v %v", v, strings.TrimSpace(out), err, val, ok)
		}
	}
	if val, ok := ParseBool(""); !val || !ok {
		t.Error(`"" (a key without "=") is true to git`)
	}
}
