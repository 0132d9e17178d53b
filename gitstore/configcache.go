package gitstore

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/konteks/git-konteks/secret"
)

// The config snapshot kept between processes.
//
// The snapshot above lives as long as its process, and most commands are
// short: a CLI recall or a one-file extraction from a hook paid a
// `git config --list` process at every start, some 7-10 ms of CPU of a
// run whose target is 80-100 ms. The snapshot is therefore also kept in
// the state dir (one file per git dir, so a linked worktree's
// config.worktree is its own), and a later process takes it instead of
// asking git while nothing it came from changed:
//
//   - the environment and the default files configSource watches;
//   - every file a value came from (`--show-origin`: an included file,
//     a system config that is not /etc/gitconfig) and every file an
//     include or includeIf names, found or not (a missing include that
//     is created later is a change), each by size, time, inode and
//     status change time (fileID);
//   - the git binary (binaryKey): another git may read other files.
//
// Only the keys git konteks reads are kept (keptConfig: its own, the
// identity and signing settings): the file is not a second copy of
// credentials or tokens a user's config may hold (credential.*, http.*,
// url.*, remote URLs). A process that asks for another key reads the
// whole config from git. A kept value that looks like a credential (a
// URL with a password, what the secret detector finds) keeps nothing,
// and the environment is kept as a digest (`git -c` puts values there).
//
// What no file's state shows is not kept: a snapshot with an
// `includeIf "onbranch:..."` depends on the branch checked out, so it
// lives in its process only, as before. A file changed less than
// configRacy before git read it may change again within the same
// timestamp unseen (git's "racily clean" index entries are the same
// problem), so such a snapshot is not written either; a file renamed
// into place with an old time in the few milliseconds git reads is not
// caught so, and is read anew when the entry ends. An entry is
// trusted for configKeep at most, which bounds what the above cannot
// see (a system config created where none was, at a path this git
// was built with). A write through the Repo removes the entry; a
// missing, unreadable, damaged or stale entry means one `git config`
// process, as before, and failing to write one is no error.
const (
	configKeep         = 10 * time.Minute
	configRacy         = 2 * time.Second
	configSnapshotForm = "git-konteks config-snapshot 4"
)

// keptPrefixes are the keys, and prefixes of keys, the kept snapshot
// holds, lower case.
var keptPrefixes = []string{"konteks.", "user.", "author.", "committer.", "gpg.", "commit.gpgsign", "diff.orderfile"}

// keptConfig reports whether the kept snapshot holds key (or, for a
// prefix, every key under it).
func keptConfig(key string) bool {
	k := strings.ToLower(key)
	for _, p := range keptPrefixes {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// secretValue reports whether a kept value looks like a credential (a
// URL with a user or password, what the secret detector finds): the
// snapshot is then not kept, rather than copied to a second file.
func secretValue(v string) bool {
	if strings.Contains(v, "://") {
		if u, err := url.Parse(strings.TrimSpace(v)); err == nil && u.User != nil {
			return true
		}
	}
	return secret.ContainsString(v)
}

// configEntry is the file's content.
type configEntry struct {
	Form    string   `json:"form"`
	Written int64    `json:"written"` // Unix seconds
	Git     string   `json:"git"`     // binaryKey of the git that read it
	Source  string   `json:"source"`  // sourceDigest of configSource when it was read
	Watched []string `json:"watched"` // more files it depends on, absolute
	States  string   `json:"states"`  // filesState(Watched) before git read them
	Keys    []string `json:"keys"`
	Vals    []string `json:"vals"`
}

// sourceDigest names source without holding it: the environment in it
// may carry secrets (GIT_CONFIG_PARAMETERS from `git -c`).
func sourceDigest(source string) string {
	sum := sha256.Sum256([]byte(source))
	return hex.EncodeToString(sum[:])
}

// configSnapshotFile is where the snapshot of r's git dir is kept, ""
// when it cannot be named.
func (r *Repo) configSnapshotFile() string {
	if r.CommonDir == "" || r.GitDir == "" {
		return ""
	}
	gd, err := filepath.Abs(r.GitDir)
	if err != nil {
		return ""
	}
	real, err := filepath.EvalSymlinks(gd) // includeIf "gitdir:" matches it too
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(gd + "\x00" + real))
	return filepath.Join(r.CommonDir, "konteks", "config-"+hex.EncodeToString(sum[:6]))
}

// dropConfig forgets the config snapshot, in this process and on disk:
// a config write is coming.
func (r *Repo) dropConfig() {
	r.cfg.drop()
	if f := r.configSnapshotFile(); f != "" {
		os.Remove(f)
	}
}

// filesState describes the state of each file: its path, then its size,
// time and identity, or nothing when it cannot be read.
func filesState(files []string) string {
	var b strings.Builder
	for _, f := range files {
		b.WriteString(f)
		if fi, err := os.Stat(f); err == nil {
			fmt.Fprintf(&b, " %d %d %s", fi.Size(), fi.ModTime().UnixNano(), fileID(fi))
		}
		b.WriteByte(0)
	}
	return b.String()
}

// readConfigSnapshot returns the kept snapshot in file when it was read
// by the git at bin from source, none of its files changed since, and
// it is younger than configKeep at now.
func readConfigSnapshot(file, bin, source string, now time.Time) (keys, vals []string, ok bool) {
	if file == "" {
		return nil, nil, false
	}
	b, err := os.ReadFile(file)
	if err != nil || len(b) > 4<<20 {
		return nil, nil, false
	}
	var e configEntry
	if json.Unmarshal(b, &e) != nil || e.Form != configSnapshotForm || len(e.Keys) != len(e.Vals) {
		return nil, nil, false
	}
	if age := now.Sub(time.Unix(e.Written, 0)); age < 0 || age > configKeep {
		return nil, nil, false
	}
	if e.Source != sourceDigest(source) || e.Git != binaryKey(bin) || e.Git == "" || e.States != filesState(e.Watched) {
		return nil, nil, false
	}
	return e.Keys, e.Vals, true
}

// writeConfigSnapshot keeps the snapshot git at bin read from source
// (starting at started), when it can be kept: see above.
func writeConfigSnapshot(file, bin, source string, defaults []string, started time.Time, keys, vals, origins []string) {
	git := binaryKey(bin)
	if git == "" {
		return
	}
	watched, ok := configDepends(keys, vals, origins)
	if !ok {
		return
	}
	states := filesState(watched)
	// The states were taken after git read the files: one that changed
	// between its read and ours would be kept with the content before.
	// Files changed so recently are not trusted (nor are the default
	// files, whose states source holds from before git ran).
	for _, f := range append(defaults, watched...) {
		if fi, err := os.Stat(f); err == nil && fi.ModTime().After(started.Add(-configRacy)) {
			return
		}
	}
	for _, f := range watched {
		if !utf8.ValidString(f) {
			return // JSON would change it
		}
	}
	var kk, kv []string
	for i, k := range keys {
		if keptConfig(k) {
			if !utf8.ValidString(k) || !utf8.ValidString(vals[i]) {
				return // JSON would change it
			}
			if secretValue(vals[i]) {
				return
			}
			kk, kv = append(kk, k), append(kv, vals[i])
		}
	}
	b, err := json.Marshal(configEntry{
		Form: configSnapshotForm, Written: time.Now().Unix(), Git: git, Source: sourceDigest(source),
		Watched: watched, States: states, Keys: kk, Vals: kv,
	})
	if err != nil {
		return
	}
	_ = replaceFile(file, b) // failing to keep it is no error
}

// replaceFile writes b to file whole: to a temporary file beside it,
// renamed into place, so a reader sees the old content or the new, never
// a part (the directory is made if missing).
func replaceFile(file string, b []byte) error {
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(file)+"-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// configDepends lists the files a snapshot depends on beyond the default
// ones: those its values came from and those its includes name, sorted.
// ok is false when it depends on what no file shows (onbranch).
func configDepends(keys, vals, origins []string) (files []string, ok bool) {
	home, _ := os.UserHomeDir()
	for i, k := range keys {
		if origins[i] != "" {
			files = append(files, origins[i])
		}
		lk := strings.ToLower(k)
		cond, isIf := strings.CutPrefix(lk, "includeif.")
		if !(lk == "include.path" || isIf && strings.HasSuffix(cond, ".path")) {
			continue
		}
		if isIf && strings.HasPrefix(cond, "onbranch:") {
			return nil, false
		}
		p := vals[i]
		switch {
		case p == "":
			continue
		case p == "~" || strings.HasPrefix(p, "~/"):
			if home == "" {
				return nil, false
			}
			p = home + p[1:] // as git: no cleaning, ".." is the kernel's
		case strings.HasPrefix(p, "~") || strings.HasPrefix(p, "%("):
			// ~user and %(prefix): where git would look is not known here.
			return nil, false
		case !filepath.IsAbs(p):
			if origins[i] == "" {
				continue // git refuses a relative include outside a file
			}
			p = origins[i][:strings.LastIndexByte(origins[i], '/')+1] + p // as git
		}
		files = append(files, p)
	}
	slices.Sort(files)
	return slices.Compact(files), true
}
