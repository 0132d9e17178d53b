package gitstore

import (
	"errors"
	"fmt"
	"regexp"
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

// FetchRef fetches src from remote into the local ref dst. The tracking
// ref dst is a copy of the remote's ref and is replaced even when the
// remote's history was rewritten (memory history is squashed); nothing
// here ever writes a ref the caller's own data lives in. Objects are
// checked on the way in (transfer.fsckObjects), so malformed trees (a ".."
// entry, bad modes) never enter the object database.
func (r *Repo) FetchRef(remote, src, dst string) error {
	if r.gitCLI == "" {
		return errors.New("fetching memory needs the git command")
	}
	var out []byte
	var err error
	for attempt := 0; ; attempt++ {
		out, err = r.runGit(nil, "-c", "transfer.fsckObjects=true", "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", remote, "+"+src+":"+dst)
		if err == nil {
			return r.Reload()
		}
		// A concurrent fetch moved dst between this one's read and its
		// update: the update is forced, so fetching again is right.
		if attempt == 4 || !lockRace(err.Error()+string(out)) {
			break
		}
	}
	msg := err.Error() + string(out)
	switch {
	case strings.Contains(msg, "couldn't find remote ref"):
		return fmt.Errorf("%w %s on %s", ErrNoRemoteRef, src, remote)
	case strings.Contains(msg, "does not appear to be a git repository") || strings.Contains(msg, "No such remote"):
		return fmt.Errorf("%w: %s", ErrNoRemote, remote)
	}
	return fmt.Errorf("fetch %s from %s: %w", src, remote, err)
}

// ErrDenied is returned by PushLease when the remote refuses to rewrite
// the ref at all (receive.denyNonFastForwards).
var ErrDenied = errors.New("the remote refuses non-fast-forward updates")

// PushLease sets dst on remote to the commit src by compare-and-swap: the
// push succeeds only while the remote's dst is still expect (zero: dst
// must not exist), whether or not src descends from it. A remote that
// moved meanwhile gives ErrNonFastForward; the caller fetches, merges and
// tries again, so a concurrent pusher's memory is never overwritten.
func (r *Repo) PushLease(remote string, src Hash, dst string, expect Hash) error {
	if r.gitCLI == "" {
		return errors.New("pushing memory needs the git command")
	}
	lease := "--force-with-lease=" + dst + ":"
	if !expect.IsZero() {
		lease += expect.String()
	}
	// No "+" on the refspec: git would force past the lease.
	out, err := r.runGit(nil, "push", "--quiet", "--porcelain", lease, remote, src.String()+":"+dst)
	if err == nil {
		return nil
	}
	msg := err.Error() + string(out)
	switch {
	case strings.Contains(msg, "stale info") || strings.Contains(msg, "fetch first") || strings.Contains(msg, "already exists") || lockRace(msg):
		return fmt.Errorf("push to %s: %w", remote, ErrNonFastForward)
	case strings.Contains(msg, "denying non-fast-forward") || strings.Contains(msg, "non-fast-forward"):
		return fmt.Errorf("push to %s: %w", remote, ErrDenied)
	case strings.Contains(msg, "does not appear to be a git repository") || strings.Contains(msg, "No such remote"):
		return fmt.Errorf("%w: %s", ErrNoRemote, remote)
	}
	return fmt.Errorf("push to %s: %w", remote, err)
}

// lockRace reports git's words for a ref that another process moved
// between the read that checked its old value and the locked update
// ("cannot lock ref 'R': is at X but expected Y"): on a remote during a
// push, or on a tracking ref during a fetch, it means the ref moved.
func lockRace(msg string) bool {
	return strings.Contains(msg, "cannot lock ref") && strings.Contains(msg, "but expected") ||
		strings.Contains(msg, "incorrect old value provided")
}

// RemoveFetchSpec removes a remote's fetch refspec equal to spec.
func (r *Repo) RemoveFetchSpec(remote, spec string) error {
	re := "^" + regexp.QuoteMeta(spec) + "$"
	_, err := r.runGit(nil, "config", "--unset-all", "remote."+remote+".fetch", re)
	return err
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
