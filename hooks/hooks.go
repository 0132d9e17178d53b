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

// Names are the hooks git konteks installs.
// reference-transaction (git >= 2.28) sees every ref update: ours acts only
// when a committed transaction touched refs/konteks-remotes/*, which is how
// a plain `git fetch` brings a teammate's memory (git has no post-fetch
// hook). The runner then merges it, so it is visible at once.
var Names = []string{"post-commit", "post-merge", "post-rewrite", "post-checkout", "reference-transaction"}

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
	for _, n := range Names {
		p := filepath.Join(dir, n)
		b, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(b, []byte(marker)) {
			continue // not ours: leave it alone
		}
		if err := os.Remove(p); err != nil {
			return nil, err
		}
		if _, err := os.Stat(p + chainedSuffix); err == nil {
			if err := os.Rename(p+chainedSuffix, p); err != nil {
				return nil, fmt.Errorf("restore %s: %w", p, err)
			}
		}
	}
	return Status(repo)
}

// script is the hook: run the user's chained hook (same arguments, same
// stdin), then start the runner in the background and return at once. The
// exit status is the user hook's, never ours.
func script(name, bin string) string {
	if name == "reference-transaction" {
		return refTxScript(bin)
	}
	return `#!/bin/sh
` + marker + ` (` + name + `): keeps refs/konteks current in the background.
# Installed by 'git konteks hooks install'; 'git konteks hooks uninstall'
# removes it and restores the hook that was here before (` + name + chainedSuffix + `).
status=0
if [ -x "$0` + chainedSuffix + `" ]; then
	"$0` + chainedSuffix + `" "$@" || status=$?
fi
bin=` + shellQuote(bin) + `
[ -x "$bin" ] || bin=git-konteks
"$bin" hooks run ` + name + ` "$@" </dev/null >/dev/null 2>&1 &
exit $status
`
}

// refTxScript is the reference-transaction hook. git runs it for every
// ref update, three times a transaction (prepared, committed, aborted),
// so it costs one small shell and does nothing unless remote memory was
// committed. A chained user hook gets the same arguments and input, and
// its status is returned (in the prepared state it can veto, as before).
func refTxScript(bin string) string {
	return `#!/bin/sh
` + marker + ` (reference-transaction): merges a teammate's memory brought by git fetch.
# Installed by 'git konteks hooks install'; 'git konteks hooks uninstall'
# removes it and restores the hook that was here before (reference-transaction` + chainedSuffix + `).
status=0
input=$(cat)
if [ -x "$0` + chainedSuffix + `" ]; then
	printf '%s\n' "$input" | "$0` + chainedSuffix + `" "$@" || status=$?
fi
if [ "$1" = committed ]; then
	case "$input" in
	*" refs/konteks-remotes/"*)
		bin=` + shellQuote(bin) + `
		[ -x "$bin" ] || bin=git-konteks
		"$bin" hooks run reference-transaction </dev/null >/dev/null 2>&1 &
		;;
	esac
fi
exit $status
`
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
