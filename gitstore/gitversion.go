package gitstore

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Which git this package runs.
//
// A git older than MinGitVersion is never run: go-git answers instead.
// Knowing a binary's version takes a `git version` process, 5-7 ms of
// CPU, which every command paid at its start, a third of what a
// one-file extraction spends on git processes. The answer is therefore
// kept in the user's cache directory (os.UserCacheDir: $XDG_CACHE_HOME
// or ~/.cache, ~/Library/Caches on macOS), one small file per git path
// (git-konteks/git-version-<hash of the path>), under a key naming the
// binary as the file system sees it: its path, size, modification time,
// device and inode (the same key the config snapshot keeps for config
// files, config.go). A package manager that upgrades or downgrades git
// either writes a new file and renames it into place (another inode) or
// rewrites the old one (another time, and nearly always another size),
// and a PATH that finds another git names another file: either way the
// key changes and git is asked again. The key follows symbolic links,
// so a link moved to another git (update-alternatives, Homebrew's
// opt/ link) is another key too.
//
// What no key of the binary can see is a git behind a wrapper: a shim
// that chooses the git it runs (macOS's /usr/bin/git, version managers)
// keeps its own file while the git behind it changes. An answer is
// therefore trusted for versionTTL at most, then asked again.
//
// The cache is a help, never a condition: a missing, unreadable,
// damaged or stale entry means one `git version` process, as before; a
// cache directory that cannot be created or written (read-only home, no
// HOME) means that process at every start, and nothing fails. An entry
// is written to a temporary file and renamed into place, so concurrent
// commands read a whole entry or none. Within a process the answer is
// kept per key, so opening several repositories asks once.
//
// Other designs, and why not: probing in the background or after the
// first git process has started does not keep the guarantee (the first
// process would already be run); reading the version out of the binary
// is not possible for wrappers and differs by build; the repository's
// own state dir would ask once per repository instead of once per git,
// and not at all in a repository that cannot be written.
const versionTTL = 24 * time.Hour

// minGit is MinGitVersion as numbers.
var minGit = func() [2]int {
	maj, min, ok := parseGitVersion("git version " + MinGitVersion)
	if !ok {
		panic("gitstore: bad MinGitVersion " + MinGitVersion)
	}
	return [2]int{maj, min}
}()

// gitUsable reports whether the git binary at bin is at least
// MinGitVersion, from the cache above where it can.
func gitUsable(bin string) bool {
	maj, min, ok := gitVersion(bin)
	return ok && (maj > minGit[0] || maj == minGit[0] && min >= minGit[1])
}

var versions struct {
	sync.Mutex
	byKey map[string][2]int
}

// gitVersion is the major and minor version of the git binary at bin; ok
// is false when it cannot be known (the binary does not run, or answers
// what is not a version).
func gitVersion(bin string) (major, minor int, ok bool) {
	key := binaryKey(bin)
	versions.Lock()
	defer versions.Unlock()
	if v, ok := versions.byKey[key]; ok && key != "" {
		return v[0], v[1], true
	}
	file := versionCacheFile(bin)
	if key != "" && file != "" {
		if maj, min, ok := readVersionCache(file, key, time.Now()); ok {
			remember(key, maj, min)
			return maj, min, true
		}
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		return 0, 0, false
	}
	maj, min, ok := parseGitVersion(string(out))
	if !ok {
		return 0, 0, false
	}
	if key != "" {
		remember(key, maj, min)
		if file != "" {
			writeVersionCache(file, key, maj, min, time.Now())
		}
	}
	return maj, min, true
}

func remember(key string, maj, min int) {
	if versions.byKey == nil {
		versions.byKey = map[string][2]int{}
	}
	versions.byKey[key] = [2]int{maj, min}
}

// parseGitVersion reads `git version`'s answer: "git version 2.39.5",
// possibly with a vendor's suffix ("2.39.3 (Apple Git-146)",
// "2.45.1.windows.1").
func parseGitVersion(out string) (major, minor int, ok bool) {
	f := strings.Fields(out)
	if len(f) < 3 || f[0] != "git" || f[1] != "version" {
		return 0, 0, false
	}
	parts := strings.SplitN(f[2], ".", 3)
	if len(parts) < 2 {
		return 0, 0, false
	}
	maj, err1 := strconv.Atoi(parts[0])
	min, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil || maj < 0 || min < 0 {
		return 0, 0, false
	}
	return maj, min, true
}

// binaryKey names the file at bin (links followed) by its path, size,
// modification time and identity; "" when it cannot be read.
func binaryKey(bin string) string {
	fi, err := os.Stat(bin)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d %d %s %s", fi.Size(), fi.ModTime().UnixNano(), fileID(fi), bin)
}

// versionCacheFile is the cache entry of the git at bin, or "" without a
// user cache directory.
func versionCacheFile(bin string) string {
	dir, err := os.UserCacheDir()
	if err != nil || dir == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(bin))
	return filepath.Join(dir, "git-konteks", "git-version-"+hex.EncodeToString(sum[:8]))
}

// versionCacheMagic begins every entry: its format, then the version,
// the time it was written (Unix seconds) and the key, one a line.
const versionCacheMagic = "git-konteks git-version 1"

// readVersionCache reads the entry in file: ok only when it is whole, of
// key, and younger than versionTTL at now.
func readVersionCache(file, key string, now time.Time) (major, minor int, ok bool) {
	b, err := os.ReadFile(file)
	if err != nil || len(b) > 4096 {
		return 0, 0, false
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) != 5 || lines[0] != versionCacheMagic || lines[3] != key || lines[4] != "" {
		return 0, 0, false
	}
	written, err := strconv.ParseInt(lines[2], 10, 64)
	if err != nil {
		return 0, 0, false
	}
	if age := now.Sub(time.Unix(written, 0)); age < 0 || age > versionTTL {
		return 0, 0, false
	}
	return parseGitVersion("git version " + lines[1])
}

// writeVersionCache writes the entry of key to file; failing to is no
// error (the next command asks git again).
func writeVersionCache(file, key string, major, minor int, now time.Time) {
	_ = replaceFile(file, fmt.Appendf(nil, "%s\n%d.%d\n%d\n%s\n", versionCacheMagic, major, minor, now.Unix(), key))
}
