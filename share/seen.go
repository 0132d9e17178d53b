package share

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/konteks/git-konteks/gitstore"
)

// The merged/ state records, per tracking ref, the remote memory commit
// last merged, so the hooks' passes (one per commit, fetch or checkout)
// do not read and check a teammate's memory again until it moves. It is a
// cache: losing it costs one more merge, which finds nothing to do.

func seenPath(repo *gitstore.Repo, kind, ref string) string {
	dir, err := repo.StateDir()
	if err != nil {
		return ""
	}
	name := strings.NewReplacer("/", "%2F", "%", "%25").Replace(ref)
	return filepath.Join(dir, kind, name)
}

func mergedBefore(repo *gitstore.Repo, ref string, h gitstore.Hash) bool {
	p := seenPath(repo, "merged", ref)
	if p == "" {
		return false
	}
	b, err := os.ReadFile(p)
	return err == nil && strings.TrimSpace(string(b)) == h.String()
}

func rememberMerged(repo *gitstore.Repo, ref string, h gitstore.Hash) {
	p := seenPath(repo, "merged", ref)
	if p == "" {
		return
	}
	if os.MkdirAll(filepath.Dir(p), 0o755) != nil {
		return
	}
	tmp := p + ".tmp"
	if os.WriteFile(tmp, []byte(h.String()+"\n"), 0o644) == nil {
		os.Rename(tmp, p)
	}
}
