package gitstore_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/konteks/git-konteks/internal/testgit"
)

// TestConfigSnapshot: values come from every level git reads (a global
// file, an include, the repository's own config) with git's precedence,
// keys match as git matches them (section and name in any case, a
// subsection exactly); a write through the Repo, or by another process
// to a config file git reads, or in the environment, is seen at once, and
// one to an included file within a second.
func TestConfigSnapshot(t *testing.T) {
	r := testgit.New(t)
	dir := t.TempDir()
	inc := filepath.Join(dir, "included")
	if err := os.WriteFile(inc, []byte("[konteks]\n\tfromInclude = yes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	global := filepath.Join(dir, "global")
	if err := os.WriteFile(global, []byte("[konteks]\n\tsign = global\n\tonlyGlobal = g\n[include]\n\tpath = "+inc+"\n[konteks \"Embed\"]\n\tmodel = upper\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	r.Git("config", "konteks.sign", "local")
	r.Git("config", "konteks.history.max", "100")
	r.Git("config", "--add", "konteks.history.max", "200")
	repo := open(t, r)

	for key, want := range map[string]string{
		"konteks.sign":        "local", // the repository's config wins
		"KONTEKS.SIGN":        "local",
		"konteks.onlyglobal":  "g",
		"konteks.fromInclude": "yes",
		"konteks.history.max": "200", // the last value wins
		"konteks.Embed.model": "upper",
		"konteks.embed.model": "", // a subsection matches exactly
		"konteks.missing":     "",
	} {
		if got := repo.ConfigValue(key); got != want {
			t.Errorf("ConfigValue(%q) = %q, want %q", key, got, want)
		}
	}
	if got := repo.ConfigValues("konteks.history."); len(got) != 1 || got["konteks.history.max"] != "200" {
		t.Errorf("ConfigValues: %v", got)
	}

	if err := repo.SetConfig("konteks.sign", "changed"); err != nil {
		t.Fatal(err)
	}
	if got := repo.ConfigValue("konteks.sign"); got != "changed" {
		t.Errorf("after SetConfig: %q", got)
	}
	if err := repo.UnsetConfig("konteks.sign"); err != nil {
		t.Fatal(err)
	}
	if got := repo.ConfigValue("konteks.sign"); got != "global" {
		t.Errorf("after UnsetConfig: %q, want the global value", got)
	}

	cmd := exec.Command("git", "config", "konteks.outside", "1")
	cmd.Dir = r.Dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got := repo.ConfigValue("konteks.outside"); got != "1" {
		t.Errorf("a change another process made to the repository's config: %q", got)
	}
	t.Setenv("GIT_CONFIG_PARAMETERS", "'konteks.fromenv'='e'")
	if got := repo.ConfigValue("konteks.fromenv"); got != "e" {
		t.Errorf("a value from the environment: %q", got)
	}
	// A file reached by an include only is read anew within configTTL.
	if err := os.WriteFile(inc, []byte("[konteks]\n\tfromInclude = changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for repo.ConfigValue("konteks.fromInclude") != "changed" {
		if time.Now().After(deadline) {
			t.Fatal("a change to an included file is never seen")
		}
		time.Sleep(100 * time.Millisecond)
	}
}
