package gitstore

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Reading git config costs a git process per question, and a one-file
// extraction asks about ten (providers, embedding, history bounds,
// signing): tens of milliseconds of a run that should take a few. The
// whole config is read once instead, with one `git config --list`
// (every level, includes resolved, as git itself resolves them), and
// answers come from that snapshot while nothing it was read from changed:
// the config files git reads (their size, time and inode), and the
// environment that chooses them or adds values (GIT_CONFIG_*, HOME,
// XDG_CONFIG_HOME). The snapshot is looked at again after configTTL in
// any case, so a long-lived process (the MCP server) sees a change to a
// file reached through an include within a second. A config write made
// through the Repo drops the snapshot. It is kept between processes too
// (configcache.go), watching the included files as well.
const configTTL = time.Second

type configCache struct {
	mu   sync.Mutex
	at   time.Time
	from string // configSource when the snapshot was read
	// partial is set when the snapshot is the one kept between
	// processes, which holds the keys of keptConfig only.
	partial bool
	keys    []string // canonical keys, in git's order (the last value wins)
	vals    []string
}

func (c *configCache) drop() {
	c.mu.Lock()
	c.at = time.Time{}
	c.keys, c.vals = nil, nil
	c.mu.Unlock()
}

// configSource describes what git's config comes from: the environment
// that bears on it and the state of each file it reads by default.
func (r *Repo) configSource() string {
	var b strings.Builder
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "GIT_CONFIG") || k == "HOME" || k == "XDG_CONFIG_HOME" {
			b.WriteString(kv)
			b.WriteByte(0)
		}
	}
	b.WriteString(filesState(r.configFiles()))
	return b.String()
}

// configFiles are the files git reads its config from by default, found
// or not.
func (r *Repo) configFiles() []string {
	files := []string{filepath.Join(r.CommonDir, "config"), filepath.Join(r.CommonDir, "config.worktree"), filepath.Join(r.GitDir, "config.worktree")}
	if g, ok := os.LookupEnv("GIT_CONFIG_GLOBAL"); ok {
		files = append(files, g)
	} else {
		home, _ := os.UserHomeDir()
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if xdg == "" {
			xdg = filepath.Join(home, ".config")
		}
		files = append(files, filepath.Join(home, ".gitconfig"), filepath.Join(xdg, "git", "config"))
	}
	// The system file is watched even under GIT_CONFIG_NOSYSTEM, which
	// git reads as a boolean ("0" and "false" read it): a file watched
	// for nothing costs a read of the config now and then.
	if sys, ok := os.LookupEnv("GIT_CONFIG_SYSTEM"); ok {
		files = append(files, sys)
	} else {
		files = append(files, "/etc/gitconfig")
	}
	return files
}

// snapshot returns the config's keys and values, read anew when the
// snapshot is older than configTTL. A config git cannot read gives none,
// as `git config --get` would give nothing.
//
// want is the key, or the prefix of the keys, the caller reads: the
// snapshot kept between processes holds some keys only (keptConfig), and
// a key outside them is read from git.
func (r *Repo) configSnapshot(want string) (keys, vals []string) {
	c := &r.cfg
	from := r.configSource()
	c.mu.Lock()
	defer c.mu.Unlock()
	kept := keptConfig(want)
	if !c.at.IsZero() && time.Since(c.at) < configTTL && c.from == from && (!c.partial || kept) {
		return c.keys, c.vals
	}
	c.from, c.partial = from, false
	c.keys, c.vals = nil, nil
	file := r.configSnapshotFile()
	if !kept {
		file = "" // a full snapshot is wanted, and none is kept
	}
	if keys, vals, ok := readConfigSnapshot(file, r.gitCLI, from, time.Now()); ok {
		c.keys, c.vals, c.at, c.partial = keys, vals, time.Now(), true
		return c.keys, c.vals
	}
	started := time.Now()
	cmd := r.command(context.Background(), "config", "-z", "--list", "--show-origin")
	out, err := cmd.Output()
	if err == nil {
		var origins []string
		c.keys, c.vals, origins = parseConfigList(out)
		if f := r.configSnapshotFile(); f != "" {
			writeConfigSnapshot(f, r.gitCLI, from, r.configFiles(), started, c.keys, c.vals, origins)
		}
	}
	c.at = time.Now()
	return c.keys, c.vals
}

// parseConfigList reads `git config -z --list --show-origin`: for each
// value its origin ("file:<path>", "command line:", ...), then the key,
// a newline and the value, each ended by a NUL. origins[i] is the file
// the i-th value came from, made absolute, "" when it came from no file.
func parseConfigList(out []byte) (keys, vals, origins []string) {
	fields := bytes.Split(out, []byte{0})
	for i := 0; i+1 < len(fields); i += 2 {
		origin, kv := string(fields[i]), string(fields[i+1])
		k, v, _ := strings.Cut(kv, "\n")
		path, ok := strings.CutPrefix(origin, "file:")
		if ok {
			// Not cleaned: "dir/../x" is resolved by the kernel, through
			// a symlinked dir, as git opened it.
			if !filepath.IsAbs(path) {
				if wd, err := os.Getwd(); err == nil {
					path = wd + string(filepath.Separator) + path
				}
			}
		} else {
			path = ""
		}
		keys = append(keys, k)
		vals = append(vals, v)
		origins = append(origins, path)
	}
	return keys, vals, origins
}

// canonicalKey is key as git lists it: section and variable names in
// lower case, a subsection as written.
func canonicalKey(key string) string {
	i := strings.IndexByte(key, '.')
	j := strings.LastIndexByte(key, '.')
	if i < 0 {
		return strings.ToLower(key)
	}
	return strings.ToLower(key[:i]) + key[i:j] + strings.ToLower(key[j:])
}

// ConfigValue reads one git config value (all config levels, as git
// resolves them; the last one set wins), trimmed; "" when unset.
// ParseBool reads a config value as git reads a boolean: true, yes, on
// and false, no, off in any case, an integer (true unless 0), and an empty
// value (a key written without "=") as true. ok is false for anything
// else. ConfigValue gives "" for an unset key too: a caller that tells
// the two apart checks for "" first.
func ParseBool(v string) (val, ok bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "yes", "on", "":
		return true, true
	case "false", "no", "off":
		return false, true
	}
	if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
		return n != 0, true
	}
	return false, false
}

func (r *Repo) ConfigValue(key string) string {
	if r.gitCLI == "" {
		return r.storageConfigValue(key)
	}
	keys, vals := r.configSnapshot(key)
	want := canonicalKey(key)
	for i := len(keys) - 1; i >= 0; i-- {
		if keys[i] == want {
			return strings.TrimSpace(vals[i])
		}
	}
	return ""
}

// ConfigValues reads every git config value whose key starts with prefix,
// keys lowercased; the last value of a key wins. Empty without the git
// command.
func (r *Repo) ConfigValues(prefix string) map[string]string {
	out := map[string]string{}
	if r.gitCLI == "" {
		return out
	}
	keys, vals := r.configSnapshot(prefix)
	for i, k := range keys {
		if strings.HasPrefix(k, prefix) {
			out[strings.ToLower(k)] = vals[i]
		}
	}
	return out
}

// storageConfigValue reads a value from the repository's own config
// file, without the git command (no global config, no includes).
func (r *Repo) storageConfigValue(key string) string {
	cfg, err := r.storage.Config()
	if err != nil {
		return ""
	}
	i := strings.IndexByte(key, '.')
	j := strings.LastIndexByte(key, '.')
	if i < 0 || j <= i {
		return cfg.Raw.Section(key[:max(i, 0)]).Option(key[i+1:])
	}
	return cfg.Raw.Section(key[:i]).Subsection(key[i+1 : j]).Option(key[j+1:])
}
