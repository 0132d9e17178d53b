package memref

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/konteks/git-konteks/gitstore"
)

// Memory's commit history is kept short by design: every clone and every
// fresh clone fetches what the memory ref reaches, and memory needs its
// current state, not its past states. Merging never needs memory ancestry
// (durable memory is a union with tombstones, derived memory is chosen by
// the source commit's ancestry), so history is only kept as far as it
// tells what was shared:
//
//   - A memory commit that no remote holds yet (not reachable from any
//     refs/konteks-remotes/* ref) is replaced by the next local write
//     instead of being stacked on (Parents).
//   - The shared ref grows by one commit per push, and a push whose chain
//     is longer than konteks.history.keep commits sends a squashed copy of
//     its newest keep commits instead (Squash), with compare-and-swap on
//     the remote so a concurrent pusher's memory is merged, never lost.
//
// Commits dropped this way are unreachable and reclaimed by git gc.

// TrackingPrefix is where remote memory is fetched to (share keeps the
// refspecs; the chain rules need only the namespace).
const TrackingPrefix = "refs/konteks-remotes/"

// DefaultKeep is the number of memory commits a shared chain keeps when
// konteks.history.keep is not set. One: every push sends the current
// memory alone. Records are zstd frames, which git cannot delta against
// each other, so each kept commit costs what its changed records weigh:
// on gin, 300 hook-driven extractions pushed every 10 left 1.58x the tip
// reachable with 4 kept commits, and a fresh clone fetched 1.60x. Raise it
// to see more of memory's past with `git log refs/konteks`.
const DefaultKeep = 1

// MaxKeep bounds konteks.history.keep.
const MaxKeep = 1000

// Keep reads konteks.history.keep: how many memory commits a chain keeps.
// A value that is not a number from 1 to MaxKeep is an error naming the
// key, so a typo is not silently taken as the default.
func Keep(repo *gitstore.Repo) (int, error) {
	v := strings.TrimSpace(repo.ConfigValue("konteks.history.keep"))
	if v == "" {
		return DefaultKeep, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > MaxKeep {
		return 0, fmt.Errorf("konteks.history.keep is %q: it must be a number of commits from 1 to %d", v, MaxKeep)
	}
	return n, nil
}

// publishedWalk bounds the commits Published visits below each tracking
// ref: shared chains are at most MaxKeep long once squashed, and memory
// written before squashing existed is treated as unpublished past it.
const publishedWalk = 2 * MaxKeep

// Published returns the memory commits some remote holds: the commits
// reachable from refs/konteks-remotes/* (within a bound).
func Published(repo *gitstore.Repo) (map[gitstore.Hash]bool, error) {
	refs, names, err := repo.RefsWithPrefix(TrackingPrefix)
	if err != nil {
		return nil, err
	}
	seen := map[gitstore.Hash]bool{}
	for _, n := range names {
		queue := []gitstore.Hash{refs[n]}
		for visited := 0; len(queue) > 0 && visited < publishedWalk; visited++ {
			h := queue[0]
			queue = queue[1:]
			if seen[h] {
				continue
			}
			seen[h] = true
			c, err := repo.Commit(h)
			if err != nil {
				continue // a tracking ref whose objects are gone publishes nothing
			}
			queue = append(queue, c.ParentHashes...)
		}
	}
	return seen, nil
}

// collapseLimit bounds the unpublished commits Parents walks through:
// memory written before bounded history (one commit per extraction) can be
// thousands deep; past the bound the new commit simply starts a new chain.
const collapseLimit = 4096

// Parents returns the parents a new memory commit written on top of tips
// should have. A tip some remote holds is kept as a parent; a tip no
// remote holds yet is replaced by its own parents, recursively, so a run
// of local writes between two pushes leaves one commit, not one per
// write. In a repository that shares memory with no remote every memory
// commit is a root: its tree is the whole memory.
func Parents(repo *gitstore.Repo, tips ...gitstore.Hash) ([]gitstore.Hash, error) {
	pub, err := Published(repo)
	if err != nil {
		return nil, err
	}
	var out []gitstore.Hash
	added := map[gitstore.Hash]bool{}
	visited := map[gitstore.Hash]bool{}
	var walk func(h gitstore.Hash)
	walk = func(h gitstore.Hash) {
		if h.IsZero() || visited[h] || len(visited) >= collapseLimit {
			return
		}
		visited[h] = true
		if pub[h] {
			if !added[h] {
				added[h] = true
				out = append(out, h)
			}
			return
		}
		c, err := repo.Commit(h)
		if err != nil {
			return
		}
		for _, p := range c.ParentHashes {
			walk(p)
		}
	}
	for _, t := range tips {
		walk(t)
	}
	return out, nil
}

// Depth counts the commits on tip's first-parent chain, stopping at max+1.
func Depth(repo *gitstore.Repo, tip gitstore.Hash, max int) (int, error) {
	n := 0
	for h := tip; !h.IsZero() && n <= max; n++ {
		c, err := repo.Commit(h)
		if err != nil {
			return n, err
		}
		h = gitstore.ZeroHash
		if len(c.ParentHashes) > 0 {
			h = c.ParentHashes[0]
		}
	}
	return n, nil
}

// Squash returns tip itself when its first-parent chain holds at most keep
// commits, and otherwise a copy of its newest keep commits (same trees,
// authors, times and messages) whose oldest is a root. Second parents of
// merges are dropped: their memory is in the merge's tree. The new
// commits are added to w; the caller flushes.
func Squash(repo *gitstore.Repo, w *gitstore.Writer, tip gitstore.Hash, keep int) (gitstore.Hash, bool, error) {
	if keep < 1 {
		keep = 1
	}
	type link struct {
		tree gitstore.Hash
		spec gitstore.CommitSpec
	}
	var chain []link
	h := tip
	for !h.IsZero() && len(chain) <= keep {
		c, err := repo.Commit(h)
		if err != nil {
			return gitstore.ZeroHash, false, fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		chain = append(chain, link{tree: c.TreeHash, spec: gitstore.CommitSpec{
			Tree:    c.TreeHash,
			Author:  gitstore.Signature{Name: c.Author.Name, Email: c.Author.Email},
			Message: c.Message,
			When:    c.Author.When,
		}})
		h = gitstore.ZeroHash
		if len(c.ParentHashes) > 0 {
			h = c.ParentHashes[0]
		}
	}
	if len(chain) <= keep {
		return tip, false, nil
	}
	chain = chain[:keep]
	parent := gitstore.ZeroHash
	for i := len(chain) - 1; i >= 0; i-- {
		spec := chain[i].spec
		if !parent.IsZero() {
			spec.Parents = []gitstore.Hash{parent}
		}
		c, err := w.Commit(spec)
		if err != nil {
			return gitstore.ZeroHash, false, err
		}
		parent = c
	}
	return parent, true, nil
}
