package history

import (
	"context"
	"errors"
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
	partial := repo.IsPartialClone()
	// Commits to diff again go to a second git process in batches, while
	// the walk goes on.
	type job struct {
		lcs    []*gitstore.LogCommit
		counts bool
	}
	jobs := make(chan job, 16)
	var rerr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for j := range jobs {
			if rerr == nil {
				rerr = rediff(ctx, repo, j.lcs, j.counts)
			}
		}
	}()
	var all, renames, counts []*gitstore.LogCommit
	send := func(force bool) {
		if len(renames) >= 64 || force && len(renames) > 0 {
			jobs <- job{lcs: renames}
			renames = nil
		}
		if len(counts) >= 64 || force && len(counts) > 0 {
			jobs <- job{lcs: counts, counts: true}
			counts = nil
		}
	}
	err := repo.Log(ctx, opt, func(lc *gitstore.LogCommit) error {
		if err := keep(lc); err != nil {
			return err
		}
		all = append(all, lc)
		if inexact := pairRenames(lc); !partial {
			switch {
			case inexact:
				renames = append(renames, lc)
			case formatCandidate(lc):
				counts = append(counts, lc)
			}
			send(false)
		}
		return nil
	})
	send(true)
	close(jobs)
	wg.Wait()
	if rerr != nil {
		return nil, rerr
	}
	out := make([]Commit, len(all))
	for i, lc := range all {
		out[i] = FromLog(lc)
	}
	return out, err
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
		// may be whole (git died before printing the next one) or cut
		// short. It is tried again first; failing alone, it is left out.
		if n == 0 {
			n = 1
		}
		hs = hs[min(n, len(hs)):]
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
