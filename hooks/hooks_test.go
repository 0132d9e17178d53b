package hooks

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/testgit"
)

// TestRetiredHookRemoved: installing over a version that wrote a
// reference-transaction hook removes ours and restores the user's hook
// it chained to, byte for byte; uninstall does the same.
func TestRetiredHookRemoved(t *testing.T) {
	for _, uninstall := range []bool{false, true} {
		r := testgit.New(t)
		repo, err := gitstore.Open(r.Dir)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(r.Dir, ".git", "hooks")
		p := filepath.Join(dir, "reference-transaction")
		user := "#!/bin/sh\necho user\n"
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p+chainedSuffix, []byte(user), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+marker+" (reference-transaction)\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if uninstall {
			_, err = Uninstall(repo)
		} else {
			_, err = Install(repo, "/bin/true")
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p)
		if err != nil || string(b) != user {
			t.Fatalf("uninstall=%v: the user's hook is not back: %q %v", uninstall, b, err)
		}
		if _, err := os.Stat(p + chainedSuffix); !os.IsNotExist(err) {
			t.Fatalf("uninstall=%v: chained copy left behind: %v", uninstall, err)
		}
	}
}
