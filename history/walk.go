package history

import (
	"context"
	"errors"
	"strings"

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
func walk(ctx context.Context, repo *gitstore.Repo, opt gitstore.LogOptions, fn func(Commit) error) error {
	opt.TreesOnly = true
	partial := repo.IsPartialClone()
	// Commits to diff again are held with the ones after them until the
	// batch is diffed, so fn still sees git's order.
	var held []*gitstore.LogCommit
	var redo []int
	flush := func() error {
		if len(redo) > 0 {
			if err := rediff(ctx, repo, held, redo); err != nil {
				return err
			}
		}
		for _, lc := range held {
			if err := fn(FromLog(lc)); err != nil {
				return err
			}
		}
		held, redo = held[:0], redo[:0]
		return nil
	}
	err := repo.Log(ctx, opt, func(lc *gitstore.LogCommit) error {
		inexact := pairRenames(lc)
		if !partial && (inexact || formatCandidate(lc)) {
			redo = append(redo, len(held))
		}
		held = append(held, lc)
		if len(redo) == 0 {
			return flush()
		}
		if len(redo) >= 256 || len(held) >= 4096 {
			return flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}

// rediff replaces the changes of held[redo...] by git's -M --numstat diff
// of each. A commit git cannot diff (a blob missing from a damaged object
// store) keeps its tree-only changes, with line counts unknown.
func rediff(ctx context.Context, repo *gitstore.Repo, held []*gitstore.LogCommit, redo []int) error {
	opt := gitstore.LogOptions{NoWalk: true}
	for _, i := range redo {
		opt.Include = append(opt.Include, held[i].Hash)
	}
	got := map[gitstore.Hash]*gitstore.LogCommit{}
	err := repo.Log(ctx, opt, func(lc *gitstore.LogCommit) error {
		got[lc.Hash] = lc
		return nil
	})
	if errors.Is(err, gitstore.ErrMissingObjects) {
		// One at a time: only the commits that need a missing blob lose.
		clear(got)
		for _, i := range redo {
			one := gitstore.LogOptions{NoWalk: true, Include: []gitstore.Hash{held[i].Hash}}
			err = repo.Log(ctx, one, func(lc *gitstore.LogCommit) error {
				got[lc.Hash] = lc
				return nil
			})
			if err != nil && !errors.Is(err, gitstore.ErrMissingObjects) {
				return err
			}
		}
		err = nil
	}
	if err != nil {
		return err
	}
	for _, i := range redo {
		if lc := got[held[i].Hash]; lc != nil && len(lc.Changes) > 0 {
			held[i].Changes = lc.Changes
		}
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
// line counts (isFormatting): its subject says it formats.
func formatCandidate(lc *gitstore.LogCommit) bool {
	first, _, _ := strings.Cut(lc.Message, "\n")
	return len(lc.Changes) > 0 && formatRe.MatchString(first)
}
