package share

import (
	"fmt"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/killpoint"
	"github.com/konteks/git-konteks/memory"
)

// PurgeResult reports how memory's history was rewritten after a purge.
type PurgeResult struct {
	Commit gitstore.Hash `json:"commit"`
	// Pushed lists the remotes whose shared memory now holds only the
	// purged memory; Failed maps the others to why.
	Pushed []string          `json:"pushed"`
	Failed map[string]string `json:"failed,omitempty"`
	Note   string            `json:"note"`
}

// Purge rewrites memory so that no commit reachable from refs/konteks or
// from a remote's shared memory holds a purged entry: the local chain is
// squashed to one commit, and every remote this clone tracks memory of is
// merged (its purge-marked files are deleted by the merge) and sent that
// one commit with compare-and-swap. Clones that fetched the entry before
// keep its objects until their own merge and gc drop them; the note says
// so.
func Purge(repo *gitstore.Repo) (PurgeResult, error) {
	res := PurgeResult{Failed: map[string]string{}}
	remotes, err := repo.Remotes()
	if err != nil {
		return res, err
	}
	for _, rm := range remotes {
		if h, err := repo.ReadRef(TrackingRef(rm)); err != nil || h.IsZero() {
			continue // this clone shares no memory with rm
		}
		if _, err := push(repo, rm, 1); err != nil {
			res.Failed[rm] = err.Error()
			continue
		}
		res.Pushed = append(res.Pushed, rm)
	}
	killpoint.At("purge-pushed")
	// Squash what is local now (push squashed it already when it ran).
	if res.Commit, err = squashLocal(repo, 1, "konteks: purge rewrote memory history", "purge-squashed"); err != nil || res.Commit.IsZero() {
		return res, err
	}
	killpoint.At("purge-moved")
	// A checkpoint of an interrupted run may hold the old tree.
	if wip, err := repo.ReadRef(memory.WIPRef); err == nil && !wip.IsZero() {
		_ = repo.UpdateRef(memory.WIPRef, gitstore.ZeroHash, wip, "konteks: purge")
	}
	res.Note = "memory's history was rewritten without the purged text"
	if len(res.Pushed) > 0 {
		res.Note += fmt.Sprintf(" and pushed to %v", res.Pushed)
	}
	res.Note += "; clones that fetched it earlier and trust your signing key (konteks.trust) drop it from their memory at their next merge, and keep its objects on disk until `git gc` prunes them (run `git gc --prune=now` here to drop the local copies now)"
	if !repo.SigningEnabled() {
		res.Note += "; your memory commits are not signed, so other clones only forget it: they keep its file, and so does shared memory once one of them pushes (sign with konteks.sign and have them trust your key)"
	} else {
		res.Note += "; a clone that does not trust your key forgets it but keeps its file, and so does shared memory once it pushes"
	}
	if len(res.Failed) > 0 {
		res.Note += fmt.Sprintf("; NOT pushed to %d remote(s): push again when they are reachable (`git konteks push REMOTE`)", len(res.Failed))
	}
	return res, nil
}
