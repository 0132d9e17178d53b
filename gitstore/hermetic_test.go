package gitstore_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/internal/testgit"
)

// TestHermetic: code under test never reads the machine's git config. A
// global config under HOME and XDG_CONFIG_HOME that plain git would read
// reaches neither back end (the git command, go-git), because testgit
// makes the test process's environment hermetic.
func TestHermetic(t *testing.T) {
	home := t.TempDir()
	poison := []byte("[konteks]\n\tpoison = read\n")
	for _, p := range []string{filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config", "git", "config")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, poison, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	r := testgit.New(t)

	// The poison is real: git outside the hermetic environment reads it.
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_CONFIG_") {
			env = append(env, kv)
		}
	}
	cmd := exec.Command("git", "config", "konteks.poison")
	cmd.Dir, cmd.Env = r.Dir, env
	if out, err := cmd.Output(); err != nil || strings.TrimSpace(string(out)) != "read" {
		t.Fatalf("plain git does not read the test's global config (%q, %v)", out, err)
	}

	for _, backEnd := range []string{"git", "go-git"} {
		if backEnd == "go-git" {
			t.Setenv("KONTEKS_NO_GIT_CLI", "1")
		}
		repo := open(t, r)
		if v := repo.ConfigValue("konteks.poison"); v != "" {
			t.Errorf("%s: in-process code read the machine's global git config (konteks.poison = %q)", backEnd, v)
		}
		if vs := repo.ConfigValues("konteks."); len(vs) != 0 {
			t.Errorf("%s: in-process code read the machine's global git config: %v", backEnd, vs)
		}
	}
}
