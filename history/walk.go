package history

import (
	"context"
	"errors"
	"sort"
	"strings"
	"sync"

	"github.com/konteks/git-konteks/gitstore"
)

// The walk reads trees only: one `git log --raw --no-renames` process,
// which reads no blob and runs at the speed of git's own tree walk. What a
// `git log -M --numstat` walk would add is recovered where it matters:
//
//   - Exact renames (one deleted and one added path with the same blob) are
//     paired from the blob ids, as git's own exact rename detection pairs
//     them.
//   - A commit that still both adds and deletes paths (an inexact rename
//     is possible there), or whose exact pairs are ambiguous, is diffed again
//     by git with -M --numstat: a few hundred commits of a long history.
//   - So is a commit whose subject says it is a formatting change, whose
//     classification weighs its line counts.
//   - Every other commit's line counts are left unknown in the record and
//     counted when an answer shows them (lines.go).
//
// The records are those a `-M --numstat` walk makes, line counts aside:
// the same change kinds, paths, renames, flags and weights.

// walk lists the commits of opt (newest first, git's order) as records.
// keep sees each commit as git lists it; an error from it ends the walk
// there (that commit left out), and walk returns the commits before it
// with the error.
func walk(ctx context.Context, repo *gitstore.Repo, opt gitstore.LogOptions, keep func(*gitstore.LogCommit) error) ([]Commit, error) {
	opt.TreesOnly = true
	return walkEach(ctx, repo, func(fn func(*gitstore.LogCommit) error) error { return repo.Log(ctx, opt, fn) }, keep)
}

// walkEach is walk over the commits each lists (a walk of its own, or a
// chunk of a backStream), TreesOnly, in git's order.
func walkEach(ctx context.Context, repo *gitstore.Repo, each func(fn func(*gitstore.LogCommit) error) error, keep func(*gitstore.LogCommit) error) ([]Commit, error) {
	partial := repo.IsPartialClone()
	d := newDiffer(ctx, repo)
	var out []Commit
	// again holds the commits diffed again, by their place in out: their
	// records are made when the diffs are in.
	again := map[int]*gitstore.LogCommit{}
	err := each(func(lc *gitstore.LogCommit) error {
		if err := keep(lc); err != nil {
			return err
		}
		if inexact := pairRenames(lc); !partial {
			switch {
			case inexact:
				d.add(lc, false)
				again[len(out)] = lc
				out = append(out, Commit{})
				return nil
			case formatCandidate(lc):
				d.add(lc, true)
				again[len(out)] = lc
				out = append(out, Commit{})
				return nil
			}
		}
		// The record is made, and encoded, while git lists the next
		// commits.
		out = append(out, record(lc))
		return nil
	})
	if derr := d.wait(); derr != nil {
		return nil, derr
	}
	for i, lc := range again {
		out[i] = record(lc)
	}
	return out, err
}

// record is FromLog(lc) with its JSON line made (Commit.enc).
func record(lc *gitstore.LogCommit) Commit {
	c := FromLog(lc)
	if b, err := encodeCommit(&c); err == nil {
		c.enc = b
	}
	return c
}

// A differ diffs commits again while the walk goes on: one `git
// diff-tree --stdin` process with line counts and one without
// (gitstore.DiffStream), each started when its first commit comes. A
// commit the streams could not diff (git stopped at a missing blob) is
// diffed by rediff, which walks around what git cannot read.
type differ struct {
	ctx             context.Context
	repo            *gitstore.Repo
	renames, counts *gitstore.DiffStream
	// noStream is set when a stream could not start: the commits go
	// straight to wait's rediff instead of starting git once each.
	noStream [2]bool
	mu       sync.Mutex
	// pending are the commits handed over and not yet diffed, each with
	// whether it wants line counts.
	pending map[gitstore.Hash]pendingDiff
	handed  int // commits handed over
}

type pendingDiff struct {
	lc     *gitstore.LogCommit
	counts bool
	seq    int // order handed over
}

func newDiffer(ctx context.Context, repo *gitstore.Repo) *differ {
	return &differ{ctx: ctx, repo: repo, pending: map[gitstore.Hash]pendingDiff{}}
}

// add hands lc over to be diffed again, with line counts when counts is
// set.
func (d *differ) add(lc *gitstore.LogCommit, counts bool) {
	s, kind := &d.renames, 0
	if counts {
		s, kind = &d.counts, 1
	}
	d.mu.Lock()
	d.pending[lc.Hash] = pendingDiff{lc, counts, d.handed}
	d.handed++
	d.mu.Unlock()
	if *s == nil {
		if d.noStream[kind] {
			return // lc stays pending, and wait diffs it
		}
		st, err := d.repo.StartDiff(d.ctx, counts, d.got)
		if err != nil {
			d.noStream[kind] = true
			return
		}
		*s = st
	}
	// An error means git stopped: lc stays pending, and wait diffs it.
	_ = (*s).Add(lc.Hash)
}

// got takes a commit a stream diffed.
func (d *differ) got(c *gitstore.LogCommit) error {
	d.mu.Lock()
	p, ok := d.pending[c.Hash]
	delete(d.pending, c.Hash)
	d.mu.Unlock()
	if ok && len(c.Changes) > 0 {
		p.lc.Changes = c.Changes
	}
	return nil
}

// wait waits for the streams; what they left undiffed is diffed by rediff.
func (d *differ) wait() error {
	for _, s := range []*gitstore.DiffStream{d.renames, d.counts} {
		if s != nil {
			if err := s.Close(); err != nil && d.ctx.Err() != nil {
				return d.ctx.Err()
			}
		}
	}
	// Left over (git stopped, or could not start): diffed in batches,
	// in the order handed over.
	left := make([]pendingDiff, 0, len(d.pending))
	for _, p := range d.pending {
		left = append(left, p)
	}
	sort.Slice(left, func(i, j int) bool { return left[i].seq < left[j].seq })
	var rest [2][]*gitstore.LogCommit
	for _, p := range left {
		if p.counts {
			rest[1] = append(rest[1], p.lc)
		} else {
			rest[0] = append(rest[0], p.lc)
		}
	}
	for i, lcs := range rest {
		if len(lcs) == 0 {
			continue
		}
		if err := rediff(d.ctx, d.repo, lcs, i == 1); err != nil {
			return err
		}
	}
	return nil
}

// rediff replaces the changes of lcs by git's -M diff of each, with line
// counts when counts is set. A commit git cannot diff (a blob missing
// from a damaged object store) keeps its tree-only changes, with line
// counts unknown.
func rediff(ctx context.Context, repo *gitstore.Repo, lcs []*gitstore.LogCommit, counts bool) error {
	hs := make([]gitstore.Hash, len(lcs))
	for i, lc := range lcs {
		hs[i] = lc.Hash
	}
	got := map[gitstore.Hash]*gitstore.LogCommit{}
	if err := diffEach(ctx, repo, hs, counts, nil, func(lc *gitstore.LogCommit) error {
		got[lc.Hash] = lc
		return nil
	}); err != nil {
		return err
	}
	for _, lc := range lcs {
		if d := got[lc.Hash]; d != nil && len(d.Changes) > 0 {
			lc.Changes = d.Changes
		}
	}
	return nil
}

// diffEach lists the commits hs with git's -M diffs (and --numstat line
// counts when counts is set; limited to paths unless nil), in as few
// processes as it can: when git
// stops at a commit whose blobs are missing (a damaged object store, a
// partial clone), the commits listed before it are kept, that one is left
// out, and git goes on with the rest. fn sees each commit that could be
// diffed, in order.
func diffEach(ctx context.Context, repo *gitstore.Repo, hs []gitstore.Hash, counts bool, paths []string, fn func(*gitstore.LogCommit) error) error {
	for len(hs) > 0 {
		n := 0
		err := repo.Log(ctx, gitstore.LogOptions{Include: hs, NoWalk: true, Counts: true, RenamesOnly: !counts, Paths: paths}, func(lc *gitstore.LogCommit) error {
			for n < len(hs) && hs[n] != lc.Hash {
				n++ // not listed (git skips a commit given twice)
			}
			n++
			return fn(lc)
		})
		if err == nil {
			return nil
		}
		if !errors.Is(err, gitstore.ErrMissingObjects) {
			return err
		}
		// Log holds back the commit git printed last when it died: it
		// may be whole (git died in the next one's diff, before printing
		// it) or cut short. It is tried again alone, and left out if it
		// fails alone; git goes on after it.
		if n < len(hs) {
			err := repo.Log(ctx, gitstore.LogOptions{Include: hs[n : n+1], NoWalk: true, Counts: true, RenamesOnly: !counts, Paths: paths}, fn)
			if err != nil && !errors.Is(err, gitstore.ErrMissingObjects) {
				return err
			}
		}
		hs = hs[min(n+1, len(hs)):]
	}
	return nil
}

// pairRenames turns each deleted path whose blob is added at exactly one
// other path (and deleted at no other) into a rename, at the added path's
// place, as git's exact rename detection does. It reports whether git must
// still look at the commit: added and deleted paths remain unpaired, so an
// inexact rename is possible, or a blob has several candidates (git then
// prefers by name).
func pairRenames(lc *gitstore.LogCommit) bool {
	var adds, dels int
	for _, ch := range lc.Changes {
		switch ch.Kind {
		case 'A':
			adds++
		case 'D':
			dels++
		}
	}
	if adds == 0 || dels == 0 {
		return false
	}
	type side struct{ a, d, ai, di int }
	by := map[gitstore.Hash]*side{}
	for i, ch := range lc.Changes {
		var id gitstore.Hash
		switch ch.Kind {
		case 'A':
			id = ch.NewID
		case 'D':
			id = ch.OldID
		default:
			continue
		}
		s := by[id]
		if s == nil {
			s = &side{}
			by[id] = s
		}
		if ch.Kind == 'A' {
			s.a++
			s.ai = i
		} else {
			s.d++
			s.di = i
		}
	}
	drop := map[int]bool{}
	for _, s := range by {
		if s.a == 0 || s.d == 0 {
			continue
		}
		if s.a != 1 || s.d != 1 {
			return true // several candidates: git chooses
		}
		a, d := &lc.Changes[s.ai], lc.Changes[s.di]
		if !renamable(d.OldMode) || !renamable(a.NewMode) || isLink(d.OldMode) != isLink(a.NewMode) {
			return true
		}
		a.Kind, a.OldPath, a.OldMode, a.OldID = 'R', d.Path, d.OldMode, d.OldID
		drop[s.di] = true
		adds--
		dels--
	}
	if len(drop) > 0 {
		kept := lc.Changes[:0]
		for i, ch := range lc.Changes {
			if !drop[i] {
				kept = append(kept, ch)
			}
		}
		lc.Changes = kept
	}
	return adds > 0 && dels > 0
}

func renamable(mode uint32) bool { return mode&0o170000 == 0o100000 || mode&0o170000 == 0o120000 }
func isLink(mode uint32) bool    { return mode&0o170000 == 0o120000 }

// formatCandidate reports whether classification may need the commit's
// line counts (isFormatting): its subject says it formats and it only
// modifies files (isFormatting refuses any other change whatever its
// counts).
func formatCandidate(lc *gitstore.LogCommit) bool {
	if len(lc.Changes) == 0 {
		return false
	}
	for _, ch := range lc.Changes {
		if ch.Kind != 'M' && validPath(ch.Path) {
			return false
		}
	}
	first, _, _ := strings.Cut(lc.Message, "\n")
	return saysFormat(first)
}
