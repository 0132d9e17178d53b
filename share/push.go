package share

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/killpoint"
	"github.com/konteks/git-konteks/manifest"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// PushResult reports a push.
type PushResult struct {
	Remote string `json:"remote"`
	// Pushed is false when the remote already held this memory.
	Pushed bool          `json:"pushed"`
	Commit gitstore.Hash `json:"commit"`
	// Merges counts the times the remote had moved on and its memory was
	// fetched and merged before pushing again.
	Merges int `json:"merges"`
	// Squashed is true when the chain sent was cut to konteks.history.keep
	// commits.
	Squashed bool `json:"squashed,omitempty"`
	// Note explains a push that could not squash (a remote that refuses
	// non-fast-forward updates).
	Note string `json:"note,omitempty"`
}

// pushAttempts bounds fetch-merge-push rounds against concurrent pushers.
const pushAttempts = 6

// Push sends refs/konteks to remote's RemoteRef. The remote's memory is
// merged first (so nothing a teammate pushed is lost), then the local
// chain, squashed to konteks.history.keep commits, is pushed with
// compare-and-swap on the remote (--force-with-lease): when another clone
// pushed meanwhile, its memory is fetched and merged and the push tried
// again. Nothing is sent when the remote already has this memory.
func Push(repo *gitstore.Repo, remote string) (PushResult, error) {
	keep, err := memref.Keep(repo)
	if err != nil {
		return PushResult{Remote: remote}, err
	}
	return push(repo, remote, keep)
}

func push(repo *gitstore.Repo, remote string, keep int) (PushResult, error) {
	res := PushResult{Remote: remote}
	if _, err := migrateRemoteIfShared(repo, remote); err != nil {
		return res, err
	}
	tracking := TrackingRef(remote)
	// The tracking ref says what the remote held at the last fetch; it may
	// be stale (the remote's memory was rewritten or deleted since), so
	// the remote itself is asked first: "nothing to push" and the lease
	// are then about what it holds now.
	if _, err := Fetch(repo, remote); err != nil {
		return res, err
	}
	for attempt := 0; attempt < pushAttempts; attempt++ {
		expect, err := repo.ReadRef(tracking)
		if err != nil {
			return res, err
		}
		if !expect.IsZero() {
			// Usually up to date already (merged when fetched).
			if _, err := Merge(repo, expect, remote); err != nil {
				return res, err
			}
		}
		local, err := repo.ReadRef(memory.Ref)
		if err != nil {
			return res, err
		}
		if local.IsZero() {
			return res, errors.New("no memory to push: run `git konteks extract` first")
		}
		res.Commit = local
		if same, err := sameTree(repo, local, expect); err != nil {
			return res, err
		} else if same {
			return res, nil // nothing to push
		}
		if why := keepTheirs(repo, remote, local, expect); why != "" {
			res.Note = fmt.Sprintf("%s's derived memory %s; durable memory is the same, so nothing was pushed", remote, why)
			return res, nil
		}
		w := repo.NewWriter()
		send, squashed, err := memref.Squash(repo, w, local, keep)
		if err != nil {
			return res, err
		}
		if err := w.Flush(); err != nil {
			return res, err
		}
		killpoint.At("push-squashed")
		err = repo.PushLease(remote, send, RemoteRef, expect)
		if errors.Is(err, gitstore.ErrDenied) && squashed {
			// receive.denyNonFastForwards: send the unsquashed chain,
			// which descends from what the remote has.
			send, squashed = local, false
			res.Note = fmt.Sprintf("%s refuses non-fast-forward updates, so its memory history cannot be squashed and grows by one commit per push; allow them for %s (git config receive.denyNonFastForwards false on the server)", remote, RemoteRef)
			err = repo.PushLease(remote, send, RemoteRef, expect)
		}
		if errors.Is(err, gitstore.ErrNonFastForward) {
			// Another clone pushed: fetch and merge its memory, then retry.
			if _, err := Fetch(repo, remote); err != nil {
				return res, err
			}
			res.Merges++
			continue
		}
		if err != nil {
			return res, err
		}
		res.Pushed, res.Squashed, res.Commit = true, squashed, send
		killpoint.At("push-sent")
		// The remote now holds send: record it as git push records
		// refs/remotes/*, so local writes know it is shared.
		if err := setRef(repo, tracking, send); err != nil {
			return res, err
		}
		if squashed {
			// Local memory takes the squashed chain unless it moved on
			// meanwhile (its next write then starts a new chain anyway).
			_ = repo.UpdateRef(memory.Ref, send, local, "konteks: memory history squashed to "+fmt.Sprint(keep)+" commits")
		}
		signpostLegacy(repo, remote)
		return res, nil
	}
	return res, fmt.Errorf("push to %s: the remote's memory kept moving; merged %d times, try again", remote, res.Merges)
}

// keepTheirs says why the remote should keep its memory although ours
// differs, or "" when ours should be pushed. It keeps it only when
// durable memory is the same on both sides and derived memory differs,
// and then:
//   - theirs describes a commit of the remote's default branch (what a
//     fresh clone checks out) and ours one that is not on it;
//   - or both are on it, or both off it, and ours does not describe a
//     later commit of the same line (theirs' source an ancestor of ours')
//     nor records of a newer format.
//
// Without this, clones on different branches would replace each other's
// derived memory on every push: three clones syncing with nothing new
// pushed in turn forever.
func keepTheirs(repo *gitstore.Repo, remote string, local, expect gitstore.Hash) string {
	if expect.IsZero() {
		return ""
	}
	om, err1 := memref.ReadCommit(repo, local)
	tm, err2 := memref.ReadCommit(repo, expect)
	if err1 != nil || err2 != nil || !om.Derived() || !tm.Derived() {
		return ""
	}
	od, _ := durableTree(repo, om.Tree)
	td, _ := durableTree(repo, tm.Tree)
	if od != td {
		return ""
	}
	if om.Manifest.RecordVersion > tm.Manifest.RecordVersion {
		return "" // theirs would be rebuilt by every reader
	}
	head, herr := repo.Resolve("refs/remotes/" + remote + "/HEAD")
	onDefault := func(h gitstore.Hash) bool {
		return herr == nil && !h.IsZero() && isAncestor(repo, h, head.Hash)
	}
	osrc, tsrc := gitstore.ParseHash(om.Manifest.SourceCommit), gitstore.ParseHash(tm.Manifest.SourceCommit)
	switch oo, to := onDefault(osrc), onDefault(tsrc); {
	case to && !oo:
		return "is of its default branch and yours is not"
	case oo && !to:
		return ""
	}
	if !tsrc.IsZero() && tsrc != osrc && isAncestor(repo, tsrc, osrc) {
		return "" // ours is of a later commit of the same line
	}
	return "describes a commit yours does not come after"
}

// sameTree reports whether memory commits a and b hold the same memory.
func sameTree(repo *gitstore.Repo, a, b gitstore.Hash) (bool, error) {
	if a == b {
		return true, nil
	}
	if a.IsZero() || b.IsZero() {
		return false, nil
	}
	ca, err := repo.Commit(a)
	if err != nil {
		return false, err
	}
	cb, err := repo.Commit(b)
	if err != nil {
		return false, nil // theirs unreadable: push ours
	}
	return ca.TreeHash == cb.TreeHash, nil
}

// setRef points a tracking ref at h, whatever it held.
func setRef(repo *gitstore.Repo, name string, h gitstore.Hash) error {
	for i := 0; i < 5; i++ {
		cur, err := repo.ReadRef(name)
		if err != nil {
			return err
		}
		if cur == h {
			return nil
		}
		if err := repo.UpdateRef(name, h, cur, "konteks: pushed"); !errors.Is(err, gitstore.ErrRefMoved) {
			return err
		}
	}
	return nil
}

// signpostLegacy leaves, once, a last commit on a remote's format 1 ref
// whose manifest is of format 2: a clone still on the old tool then fails
// to merge it with "manifest schema 2 is newer than this tool understands:
// upgrade git-konteks" instead of silently going stale, and its plain
// `git fetch` keeps working (the update is a fast-forward). Best effort:
// a remote without format 1 memory is left alone.
func signpostLegacy(repo *gitstore.Repo, remote string) {
	done := seenPath(repo, "signpost", remote)
	if done == "" {
		return
	}
	if _, err := os.Stat(done); err == nil {
		return // checked from this clone already
	}
	defer func() {
		if os.MkdirAll(filepath.Dir(done), 0o755) == nil {
			os.WriteFile(done, []byte(LegacyRemoteRef+"\n"), 0o644)
		}
	}()
	ref := TrackingPrefix + remote + "/format1-signpost"
	if err := repo.FetchRef(remote, LegacyRemoteRef, ref); err != nil {
		return
	}
	defer func() {
		if h, err := repo.ReadRef(ref); err == nil && !h.IsZero() {
			_ = repo.UpdateRef(ref, gitstore.ZeroHash, h, "konteks: signpost checked")
		}
	}()
	old, err := repo.ReadRef(ref)
	if err != nil || old.IsZero() {
		return
	}
	if m, err := memref.ReadCommit(repo, old); err != nil || m.Manifest != nil && m.Manifest.Schema >= manifest.Schema {
		return // already a signpost (or unreadable: leave it)
	}
	c, err := repo.Commit(old)
	if err != nil {
		return
	}
	sign := &manifest.Manifest{Schema: manifest.Schema, ToolVersion: "signpost", Mode: "signpost",
		Reason: "memory moved to " + RemoteRef + " (memory format 2): upgrade git-konteks"}
	mb, err := sign.Encode()
	if err != nil {
		return
	}
	w := repo.NewWriter()
	mh, err := w.Blob(mb)
	if err != nil {
		return
	}
	ed := repo.NewTreeEditor(c.TreeHash)
	if ed.Set(memory.ManifestPath, gitstore.ModeRegular, mh) != nil {
		return
	}
	tree, err := ed.Write(w)
	if err != nil {
		return
	}
	next, err := w.Commit(gitstore.CommitSpec{Tree: tree, Parents: []gitstore.Hash{old}, Author: repo.Identity(),
		Message: "konteks: memory moved to " + RemoteRef + "\n\nThis ref holds memory format 1. Upgrade git-konteks to share memory again.\n"})
	if err != nil || w.Flush() != nil {
		return
	}
	_ = repo.PushLease(remote, next, LegacyRemoteRef, old)
}

// MergeTracking merges every remote's memory that a plain `git fetch`
// brought (FetchSpec) and the local memory does not contain yet. A
// remote's memory already merged at the same commit is skipped without
// being read again. Remotes set up by format 1 are migrated first.
func MergeTracking(repo *gitstore.Repo) ([]Outcome, error) {
	if err := MigrateRemotes(repo); err != nil {
		return nil, err
	}
	remotes, err := repo.Remotes()
	if err != nil {
		return nil, err
	}
	var outs []Outcome
	var errs []error
	for _, rm := range remotes {
		ref := TrackingRef(rm)
		h, err := repo.ReadRef(ref)
		if err != nil || h.IsZero() {
			continue
		}
		if mergedBefore(repo, ref, h) {
			continue
		}
		o, err := Merge(repo, h, rm)
		o.Remote = rm
		if err != nil {
			// One bad remote does not keep the others' memory out.
			errs = append(errs, err)
			continue
		}
		rememberMerged(repo, ref, h)
		outs = append(outs, o)
	}
	return outs, errors.Join(errs...)
}

// CatchUp merges the memory a plain `git fetch` brought since the last
// merge, and does nothing (reading one ref and one small file per remote)
// when there is none. Commands that read memory call it first: it takes
// the place of a reference-transaction hook, which git before 2.50 runs
// twice for every ref a fetch updates, however unrelated to memory.
func CatchUp(repo *gitstore.Repo) ([]Outcome, error) {
	remotes, err := repo.Remotes()
	if err != nil {
		return nil, err
	}
	for _, rm := range remotes {
		ref := TrackingRef(rm)
		if h, err := repo.ReadRef(ref); err == nil && !h.IsZero() && !mergedBefore(repo, ref, h) {
			return MergeTracking(repo)
		}
	}
	return nil, nil
}
