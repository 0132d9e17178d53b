package share

import (
	"errors"
	"strings"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/killpoint"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// GCResult reports a memory gc.
type GCResult struct {
	Before         memref.Size `json:"before"`
	After          memref.Size `json:"after"`
	DroppedRemotes []string    `json:"dropped_remotes,omitempty"`
}

// GC squashes local memory to konteks.history.keep commits, deletes the
// tracking refs of remotes that are no longer configured (their memory
// was merged when fetched), and runs `git gc` so the dropped commits'
// objects are reclaimed (prune, when set, is passed as --prune).
func GC(repo *gitstore.Repo, prune string) (GCResult, error) {
	var res GCResult
	keep, err := memref.Keep(repo)
	if err != nil {
		return res, err
	}
	if res.Before, err = memref.MeasureSize(repo); err != nil {
		return res, err
	}
	if _, err := squashLocal(repo, keep, "konteks: gc", "gc-squashed"); err != nil {
		return res, err
	}
	killpoint.At("gc-moved")
	remotes, err := repo.Remotes()
	if err != nil {
		return res, err
	}
	known := map[string]bool{}
	for _, rm := range remotes {
		known[rm] = true
	}
	refs, names, err := repo.RefsWithPrefix(TrackingPrefix)
	if err != nil {
		return res, err
	}
	for _, n := range names {
		rm := strings.TrimSuffix(strings.TrimPrefix(n, TrackingPrefix), "/main")
		if known[rm] || !strings.HasSuffix(n, "/main") {
			continue
		}
		if err := repo.UpdateRef(n, gitstore.ZeroHash, refs[n], "konteks: gc, remote "+rm+" is gone"); err == nil {
			res.DroppedRemotes = append(res.DroppedRemotes, rm)
		}
	}
	killpoint.At("gc-dropped")
	if err := repo.RunGC(prune); err != nil {
		return res, err
	}
	res.After, err = memref.MeasureSize(repo)
	return res, err
}

// squashLocal cuts refs/konteks to its newest keep commits by
// compare-and-swap, trying again when another writer moved it meanwhile.
// It returns the memory commit refs/konteks ends at (zero without memory).
// point names the test kill point between writing the squashed chain and
// moving the ref (internal/killpoint).
func squashLocal(repo *gitstore.Repo, keep int, reason, point string) (gitstore.Hash, error) {
	for attempt := 0; ; attempt++ {
		local, err := repo.ReadRef(memory.Ref)
		if err != nil || local.IsZero() {
			return local, err
		}
		w := repo.NewWriter()
		next, squashed, err := memref.Squash(repo, w, local, keep)
		if err != nil || !squashed {
			return local, err
		}
		if err := w.Flush(); err != nil {
			return local, err
		}
		killpoint.At(point)
		err = repo.UpdateRef(memory.Ref, next, local, reason)
		if err == nil || !errors.Is(err, gitstore.ErrRefMoved) || attempt >= 4 {
			return next, err
		}
	}
}
