package gitstore

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// RefsWithPrefix lists the refs whose names start with prefix, sorted by
// name, with the commits they point at. It asks `git for-each-ref`, which
// knows git's lock files: go-git's walk of refs/ reads a lock file another
// process has just created as an empty ref and fails.
//
// A prefix no ref can be under is answered without a process (5-7 ms of
// CPU, a twentieth of a one-file extraction, which asks whether any
// remote holds memory): see noRefsUnder.
func (r *Repo) RefsWithPrefix(prefix string) (map[string]Hash, []string, error) {
	refs := map[string]Hash{}
	var names []string
	if r.noRefsUnder(prefix) {
		return refs, nil, nil
	}
	if r.gitCLI != "" {
		out, err := r.runGit(nil, "for-each-ref", "--format=%(objectname) %(refname)", strings.TrimSuffix(prefix, "/"))
		if err != nil {
			return nil, nil, fmt.Errorf("list %s*: %w", prefix, err)
		}
		for _, line := range strings.Split(string(out), "\n") {
			id, name, ok := strings.Cut(line, " ")
			if !ok || !strings.HasPrefix(name, prefix) {
				continue
			}
			refs[name] = ParseHash(id)
			names = append(names, name)
		}
		sort.Strings(names)
		return refs, names, nil
	}
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		refs, names, err = r.iterRefs(prefix)
		if !errors.Is(err, dotgit.ErrEmptyRefFile) {
			break
		}
		time.Sleep(time.Duration(attempt+1) * 5 * time.Millisecond) // a writer's lock file
	}
	return refs, names, err
}

// noRefsUnder reports whether the files refs live in show that no ref's
// name starts with prefix (a directory of refs/, ending in "/"): git
// writes a loose ref, and the lock file of one being written, under the
// directory its name gives, and keeps packed refs in packed-refs, a line
// "<id> <name>" each. Neither the directory nor a line naming a ref under
// it means no such ref, as git for-each-ref would answer at that moment.
// A repository whose refs live elsewhere (reftable, which Open refuses in
// any case) or a file that cannot be read gets false: git is asked.
func (r *Repo) noRefsUnder(prefix string) bool {
	if !strings.HasPrefix(prefix, "refs/") || !strings.HasSuffix(prefix, "/") || strings.Contains(prefix, "..") {
		return false
	}
	if _, err := os.Stat(filepath.Join(r.CommonDir, "reftable")); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if _, err := os.Lstat(filepath.Join(r.CommonDir, filepath.FromSlash(strings.TrimSuffix(prefix, "/")))); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	packed, err := os.ReadFile(filepath.Join(r.CommonDir, "packed-refs"))
	if err != nil {
		return errors.Is(err, fs.ErrNotExist)
	}
	return !bytes.Contains(packed, []byte(" "+prefix))
}

func (r *Repo) iterRefs(prefix string) (map[string]Hash, []string, error) {
	it, err := r.storage.IterReferences()
	if err != nil {
		return nil, nil, err
	}
	defer it.Close()
	refs := map[string]Hash{}
	var names []string
	err = it.ForEach(func(ref *plumbing.Reference) error {
		n := ref.Name().String()
		if ref.Type() != plumbing.HashReference || !strings.HasPrefix(n, prefix) {
			return nil
		}
		refs[n] = ref.Hash()
		names = append(names, n)
		return nil
	})
	sort.Strings(names)
	return refs, names, err
}

// DiskUsage reports the objects reachable from revs and the bytes they
// take on disk (packed where they are packed), as `git rev-list --objects
// --disk-usage` counts them. Unreachable objects that `git gc` will prune
// are not counted.
func (r *Repo) DiskUsage(revs ...string) (objects int, bytes int64, err error) {
	if len(revs) == 0 {
		return 0, 0, nil
	}
	out, err := r.runGit(nil, append([]string{"rev-list", "--objects", "--disk-usage"}, revs...)...)
	if err != nil {
		return 0, 0, fmt.Errorf("disk usage of %v: %w", revs, err)
	}
	if bytes, err = strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64); err != nil {
		return 0, 0, fmt.Errorf("disk usage of %v: %q", revs, out)
	}
	out, err = r.runGit(nil, append([]string{"rev-list", "--objects", "--count"}, revs...)...)
	if err != nil {
		return 0, 0, err
	}
	objects, _ = strconv.Atoi(strings.TrimSpace(string(out)))
	return objects, bytes, nil
}

// CountCommits counts the commits reachable from revs.
func (r *Repo) CountCommits(revs ...string) (int, error) {
	out, err := r.runGit(nil, append([]string{"rev-list", "--count"}, revs...)...)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(out)))
}

// RunGC runs `git gc --quiet`, with --prune=prune when prune is set.
func (r *Repo) RunGC(prune string) error {
	args := []string{"gc", "--quiet"}
	if prune != "" {
		args = append(args, "--prune="+prune)
	}
	if _, err := r.runGit(nil, args...); err != nil {
		return fmt.Errorf("git gc: %w", err)
	}
	return r.Reload()
}
