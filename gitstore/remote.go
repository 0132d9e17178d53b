package gitstore

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Errors of the memory transport.
var (
	ErrNoRemoteRef    = errors.New("the remote has no such ref")
	ErrNonFastForward = errors.New("rejected: not a fast-forward")
	ErrNoRemote       = errors.New("no such remote")
)

// Remotes lists the configured remotes, sorted.
func (r *Repo) Remotes() ([]string, error) {
	cfg, err := r.storage.Config()
	if err != nil {
		return nil, err
	}
	var names []string
	for n := range cfg.Remotes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}

// RemoteFetchSpecs returns the fetch refspecs configured for a remote and
// whether it is a mirror.
func (r *Repo) RemoteFetchSpecs(remote string) (specs []string, mirror bool, err error) {
	cfg, err := r.storage.Config()
	if err != nil {
		return nil, false, err
	}
	rc, ok := cfg.Remotes[remote]
	if !ok {
		return nil, false, fmt.Errorf("%w: %s", ErrNoRemote, remote)
	}
	for _, s := range rc.Fetch {
		specs = append(specs, s.String())
	}
	return specs, rc.Mirror, nil
}

// AddFetchSpec appends a fetch refspec to a remote (git config --add).
func (r *Repo) AddFetchSpec(remote, spec string) error {
	_, err := r.runGit(nil, "config", "--add", "remote."+remote+".fetch", spec)
	return err
}

// FetchRef fetches src from remote into the local ref dst, without force:
// git refuses to rewind dst. Objects are checked on the way in
// (transfer.fsckObjects), so malformed trees (a ".." entry, bad modes)
// never enter the object database.
func (r *Repo) FetchRef(remote, src, dst string) error {
	if r.gitCLI == "" {
		return errors.New("fetching memory needs the git command")
	}
	out, err := r.runGit(nil, "-c", "transfer.fsckObjects=true", "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", remote, src+":"+dst)
	if err == nil {
		return r.Reload()
	}
	msg := err.Error() + string(out)
	switch {
	case strings.Contains(msg, "couldn't find remote ref"):
		return fmt.Errorf("%w %s on %s", ErrNoRemoteRef, src, remote)
	case strings.Contains(msg, "non-fast-forward") || strings.Contains(msg, "rejected"):
		return fmt.Errorf("fetch %s from %s: %w (the remote's memory was rewritten; to accept it run `git update-ref -d %s` and fetch again)", src, remote, ErrNonFastForward, dst)
	case strings.Contains(msg, "does not appear to be a git repository") || strings.Contains(msg, "No such remote"):
		return fmt.Errorf("%w: %s", ErrNoRemote, remote)
	}
	return fmt.Errorf("fetch %s from %s: %w", src, remote, err)
}

// PushRef pushes the local ref src to dst on remote without force.
func (r *Repo) PushRef(remote, src, dst string) error {
	if r.gitCLI == "" {
		return errors.New("pushing memory needs the git command")
	}
	out, err := r.runGit(nil, "push", "--quiet", "--porcelain", remote, src+":"+dst)
	if err == nil {
		return nil
	}
	msg := err.Error() + string(out)
	switch {
	case strings.Contains(msg, "non-fast-forward") || strings.Contains(msg, "fetch first") || strings.Contains(msg, "[rejected]"):
		return fmt.Errorf("push %s to %s: %w", src, remote, ErrNonFastForward)
	case strings.Contains(msg, "does not appear to be a git repository") || strings.Contains(msg, "No such remote"):
		return fmt.Errorf("%w: %s", ErrNoRemote, remote)
	}
	return fmt.Errorf("push %s to %s: %w", src, remote, err)
}

// CountTree counts the entries below tree, stopping with an error past max:
// a guard against a hostile, huge tree.
func (r *Repo) CountTree(tree Hash, max int) (int, error) {
	n := 0
	errTooMany := errors.New("too many")
	err := r.WalkTree(tree, func(string) bool { n++; return n > max }, func(Entry) error {
		n++
		if n > max {
			return errTooMany
		}
		return nil
	})
	if errors.Is(err, errTooMany) || n > max {
		return n, fmt.Errorf("tree has more than %d entries", max)
	}
	return n, err
}
