// Package hooks installs the git hooks that keep memory current, and runs
// the background extraction they trigger. A hook only records the request
// and starts a detached runner, so `git commit` never waits for memory and
// never fails because of it. A user's own hook is never overwritten: it is
// moved aside, run first by ours, and restored byte for byte on uninstall.
package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/konteks/git-konteks/gitstore"
)

// Names are the hooks git konteks installs. Memory a plain `git fetch`
// brings (git has no post-fetch hook) is merged by the next konteks
// command that reads memory (share.CatchUp), not by a
// reference-transaction hook: git before 2.50 runs that hook twice for
// every ref a fetch updates, which made a fetch of many refs tens of times
// slower.
var Names = []string{"post-commit", "post-merge", "post-rewrite", "post-checkout"}

// retired are hooks earlier versions installed: Install and Uninstall
// remove ours and put back the ones they chained to.
var retired = []string{"reference-transaction"}

// marker identifies a hook written by git konteks.
const marker = "# git-konteks hook"

// chainedSuffix names a user's hook moved aside by Install.
const chainedSuffix = ".konteks-chained"

// Dir returns the hooks directory git uses for repo: core.hooksPath when
// set (from any config level, as git resolves it), else $GIT_COMMON_DIR/hooks.
func Dir(repo *gitstore.Repo) (string, error) {
	if p, err := repo.GitPath("hooks"); err == nil && p != "" {
		return p, nil
	}
	return filepath.Join(repo.CommonDir, "hooks"), nil
}

// BinKey is the config key (in .git/config, never shared) naming the
// git-konteks executable for hooks written inside the work tree.
const BinKey = "konteks.hooks.bin"

// InWorkTree reports whether the hooks directory lies inside the work tree
// (core.hooksPath = .husky, .githooks): hooks written there can be
// committed and run on other machines, so they must not name this
// machine's paths. rel is the directory relative to the top of the work tree.
// The git dir (.git/hooks) is inside the work tree's directory but never
// part of it.
func InWorkTree(repo *gitstore.Repo, dir string) (rel string, ok bool) {
	if repo.WorkTree == "" {
		return "", false
	}
	d := realPath(dir)
	if within(realPath(repo.GitDir), d) || within(realPath(repo.CommonDir), d) {
		return "", false
	}
	top := realPath(repo.WorkTree)
	if !within(top, d) {
		return "", false
	}
	rel, _ = filepath.Rel(top, d)
	return filepath.ToSlash(rel), true
}

// within reports whether path p is dir or below it.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// realPath resolves symbolic links where it can (a temporary directory
// reached through /tmp -> /private/tmp).
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// State of one hook.
type State struct {
	Name      string `json:"name"`
	Path      string `json:"path"`
	Installed bool   `json:"installed"`         // ours is in place
	Chained   bool   `json:"chained,omitempty"` // a user's hook runs before ours
	Foreign   bool   `json:"foreign,omitempty"` // a user's hook is there and ours is not
}

// Status reports each hook.
func Status(repo *gitstore.Repo) ([]State, error) {
	dir, err := Dir(repo)
	if err != nil {
		return nil, err
	}
	var out []State
	for _, n := range Names {
		p := filepath.Join(dir, n)
		st := State{Name: n, Path: p}
		if b, err := os.ReadFile(p); err == nil {
			st.Installed = bytes.Contains(b, []byte(marker))
			st.Foreign = !st.Installed
		}
		if _, err := os.Stat(p + chainedSuffix); err == nil {
			st.Chained = true
		}
		out = append(out, st)
	}
	return out, nil
}

// Install writes our hooks, chaining to any existing ones. bin is the
// absolute path of the git-konteks executable the hooks call (they fall
// back to git-konteks on PATH if it moves).
func Install(repo *gitstore.Repo, bin string) ([]State, error) {
	dir, err := Dir(repo)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create hooks dir: %w", err)
	}
	if _, shared := InWorkTree(repo, dir); shared {
		// The hook reads this machine's executable from local config and
		// falls back to git-konteks on PATH, on a teammate's machine.
		if err := repo.SetConfig(BinKey, bin); err != nil {
			return nil, fmt.Errorf("record the hooks' executable: %w", err)
		}
		bin = ""
	}
	for _, n := range retired {
		if err := remove(filepath.Join(dir, n)); err != nil {
			return nil, err
		}
	}
	for _, n := range Names {
		p := filepath.Join(dir, n)
		b, err := os.ReadFile(p)
		switch {
		case err == nil && !bytes.Contains(b, []byte(marker)):
			if _, err := os.Stat(p + chainedSuffix); err == nil {
				return nil, fmt.Errorf("%s exists and so does %s; move one of them away first", p, p+chainedSuffix)
			}
			// os.Rename keeps the bytes and the mode: uninstall restores exactly.
			if err := os.Rename(p, p+chainedSuffix); err != nil {
				return nil, fmt.Errorf("move aside %s: %w", p, err)
			}
		case err != nil && !errors.Is(err, os.ErrNotExist):
			return nil, err
		}
		if err := writeAtomic(p, []byte(script(n, bin)), 0o755); err != nil {
			return nil, err
		}
	}
	return Status(repo)
}

// Uninstall removes our hooks and puts back the ones they chained to.
func Uninstall(repo *gitstore.Repo) ([]State, error) {
	dir, err := Dir(repo)
	if err != nil {
		return nil, err
	}
	if err := repo.UnsetConfig(BinKey); err != nil {
		return nil, err
	}
	for _, n := range append(append([]string(nil), Names...), retired...) {
		if err := remove(filepath.Join(dir, n)); err != nil {
			return nil, err
		}
	}
	return Status(repo)
}

// remove deletes our hook at p, if it is ours, and restores the user's
// hook it chained to.
func remove(p string) error {
	b, err := os.ReadFile(p)
	if err != nil || !bytes.Contains(b, []byte(marker)) {
		return nil // not ours: leave it alone
	}
	if err := os.Remove(p); err != nil {
		return err
	}
	if _, err := os.Stat(p + chainedSuffix); err == nil {
		if err := os.Rename(p+chainedSuffix, p); err != nil {
			return fmt.Errorf("restore %s: %w", p, err)
		}
	}
	return nil
}

// script is the hook: run the user's chained hook (same arguments, same
// stdin), then start the runner in the background and return at once. The
// exit status is the user hook's, never ours. With bin "" the hook names
// no path: it takes the executable from BinKey, else from PATH.
func script(name, bin string) string {
	find := findBin(bin)
	return `#!/bin/sh
` + marker + ` (` + name + `): keeps refs/konteks current in the background.
# Installed by 'git konteks hooks install'; 'git konteks hooks uninstall'
# removes it and restores the hook that was here before (` + name + chainedSuffix + `).
status=0
if [ -x "$0` + chainedSuffix + `" ]; then
	"$0` + chainedSuffix + `" "$@" || status=$?
fi
` + find + `[ -x "$bin" ] || bin=git-konteks
"$bin" hooks run ` + name + ` "$@" </dev/null >/dev/null 2>&1 &
exit $status
`
}

// findBin is the hook's line that sets $bin: the executable's path, or,
// with bin "", the one recorded in BinKey (a hook in a tracked directory
// names no path).
func findBin(bin string) string {
	if bin == "" {
		return `bin=$(git config --get ` + BinKey + ` 2>/dev/null)` + "\n"
	}
	return `bin=` + shellQuote(bin) + "\n"
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func writeAtomic(p string, data []byte, mode os.FileMode) error {
	tmp := p + ".konteks-tmp"
	if err := os.WriteFile(tmp, data, mode); err != nil {
		return err
	}
	if err := os.Chmod(tmp, mode); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}
