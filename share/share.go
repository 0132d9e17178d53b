// Package share moves memory between clones: fetch a remote's memory into
// refs/konteks-remotes/<remote> (never over refs/konteks, never forced),
// check it, merge it, and push. Merging is a union of durable memory
// (entries are unique files, tombstones included) and a choice of one
// side's derived memory: the side whose source commit is in the local
// history, the newer when both are.
package share

import (
	"errors"
	"fmt"

	"github.com/konteks/git-konteks/durable"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// TrackingPrefix is where remote memory is fetched to.
const TrackingPrefix = memref.TrackingPrefix

// RemoteRef is the name memory has on a remote: format 2 of shared memory
// lives under refs/konteks-shared/v2/. It cannot be refs/konteks: git's
// receive-pack refuses to create a one-level ref under refs/ ("funny
// refname"). A separate namespace also never clashes (directory vs file)
// with a peer's own local refs/konteks. Fetch also accepts a peer
// repository's plain refs/konteks, for a non-bare clone used as a remote.
const RemoteRef = RemotePrefix + "main"

// RemotePrefix holds every shared memory ref of format 2.
const RemotePrefix = "refs/konteks-shared/v2/"

// LegacyRemoteRef is where format 1 (tools before bounded history) pushed
// memory. It is read once to carry a team's memory over, and given a
// signpost commit so a clone still on the old tool is told to upgrade.
const LegacyRemoteRef = "refs/konteks-shared/main"

// TrackingRef is the local ref holding a remote's memory.
func TrackingRef(remote string) string { return TrackingPrefix + remote + "/main" }

// legacyTrackingRef is where format 1 kept a remote's memory.
func legacyTrackingRef(remote string) string { return TrackingPrefix + remote }

// FetchSpec is the refspec `git konteks init` adds to a remote so that a
// plain `git fetch` brings its memory along. Its source is a wildcard, so
// a remote without memory (a read-only upstream, a new project) matches
// nothing and `git fetch` succeeds. It is forced ("+") because a remote's
// memory history is squashed (memref.Squash): the tracking ref is a copy
// of the remote's memory like refs/remotes/*, and local memory is only
// ever changed by a merge that keeps every durable entry of both sides,
// so a rewritten remote can make us lose nothing.
func FetchSpec(remote string) string {
	return "+" + RemotePrefix + "*:" + TrackingPrefix + remote + "/*"
}

// legacyFetchSpec is the refspec format 1 added; with no memory on the
// remote it made every plain `git fetch` fail.
func legacyFetchSpec(remote string) string { return LegacyRemoteRef + ":" + legacyTrackingRef(remote) }

// MaxTreeEntries bounds the entries of a fetched memory tree (a variable
// so tests can lower it).
var MaxTreeEntries = 2_000_000

// Results of a merge.
const (
	UpToDate    = "up-to-date"
	FastForward = "fast-forward"
	Merged      = "merged"
	Adopted     = "adopted" // there was no local memory
	NoRemote    = "no-remote-memory"
	// NotAdopted: there was no local memory and nothing of theirs could
	// be taken (derived memory from an untrusted signer, no durable).
	NotAdopted = "not-adopted"
)

// Outcome reports a fetch or merge.
type Outcome struct {
	Remote  string        `json:"remote,omitempty"`
	Result  string        `json:"result"`
	Theirs  gitstore.Hash `json:"theirs"`
	Commit  gitstore.Hash `json:"commit"`  // local memory after the merge
	Derived string        `json:"derived"` // whose derived memory was kept: ours, theirs, none
	// NewDurable counts durable entries that came from the other side.
	NewDurable int `json:"new_durable"`
	// Conflicts counts paths under durable/ that differed (ours kept).
	Conflicts int `json:"conflicts,omitempty"`
	// Signer is the trusted signer of their memory commit, when derived
	// memory was theirs to adopt (trust.go).
	Signer string `json:"signer,omitempty"`
	// Notes say what of theirs was not adopted and why (trust.go).
	Notes []string `json:"notes,omitempty"`
}

// ErrInvalid marks fetched memory that failed validation.
var ErrInvalid = errors.New("invalid memory")

// Fetch fetches remote's memory and merges it into refs/konteks. Format 2
// memory is looked for first, then a remote's format 1 memory (carried
// over once: durable entries kept, derived memory rebuilt), then a
// non-bare peer's own refs/konteks.
func Fetch(repo *gitstore.Repo, remote string) (Outcome, error) {
	return FetchWith(repo, remote, FetchOptions{})
}

// Indexer builds the local search index of tm, a peer's memory commit
// not yet adopted (under its caller's context), charging every record it
// decodes to b (index.Options.Budget, recall.IndexMemory); a record that
// does not decode or does not fit the budget fails it with
// memref.ErrCorrupt.
// Given to FetchWith, it checks their records in place of decoding
// each one only to check it, when all of them are new to this clone (a
// teammate's first fetch): the records are decoded once, and the index
// the fetch then brings up to date is current. Should the adoption not
// follow, the index describes memory that is not ours, and the next
// reader updates it from the memory diff as after any other change.
type Indexer func(tm *memref.Memory, b *memref.Budget) error

// FetchOptions are what a command adds to a fetch.
type FetchOptions struct {
	// Index, when set, builds the search index of their memory as the
	// check of its records (see Indexer).
	Index Indexer
	// HistoryProgress, when set, is told how far the check of their
	// history has come (commits decoded, of all).
	HistoryProgress func(done, total int)
}

// FetchWith is Fetch with what opt adds.
func FetchWith(repo *gitstore.Repo, remote string, opt FetchOptions) (Outcome, error) {
	if _, err := migrateRemoteIfShared(repo, remote); err != nil {
		return Outcome{Remote: remote}, err
	}
	// Each source has its own tracking ref: TrackingRef mirrors the
	// remote's RemoteRef exactly (Push uses it as the compare-and-swap
	// lease), so memory found under another name must not land there.
	var dst string
	var err error
	for _, src := range []struct{ ref, dst string }{
		{RemoteRef, TrackingRef(remote)},
		{LegacyRemoteRef, TrackingPrefix + remote + "/format1"},
		{memory.Ref, TrackingPrefix + remote + "/peer"},
	} {
		dst = src.dst
		err = repo.FetchRef(remote, src.ref, dst)
		if src.ref == RemoteRef && errors.Is(err, gitstore.ErrNoRemoteRef) {
			// The remote has no format 2 memory (any more): forget our copy.
			if old, rerr := repo.ReadRef(dst); rerr == nil && !old.IsZero() {
				_ = repo.UpdateRef(dst, gitstore.ZeroHash, old, "konteks: the remote has no memory")
			}
		}
		if !errors.Is(err, gitstore.ErrNoRemoteRef) {
			break
		}
	}
	if err != nil {
		if errors.Is(err, gitstore.ErrNoRemoteRef) {
			return Outcome{Remote: remote, Result: NoRemote}, nil
		}
		return Outcome{Remote: remote}, err
	}
	theirs, err := repo.ReadRef(dst)
	if err != nil {
		return Outcome{Remote: remote}, err
	}
	out, err := merge(repo, theirs, remote, opt)
	out.Remote = remote
	return out, err
}

// migrateRemoteIfShared mends a remote that format 1 set up, before its
// tracking ref is written under the format 2 name.
func migrateRemoteIfShared(repo *gitstore.Repo, remote string) (bool, error) {
	specs, _, err := repo.RemoteFetchSpecs(remote)
	if err != nil {
		return false, nil // a URL, not a configured remote
	}
	legacy, err := migrateRemote(repo, remote, specs)
	if err != nil || !legacy {
		return legacy, err
	}
	if !contains(specs, FetchSpec(remote)) {
		return true, repo.AddFetchSpec(remote, FetchSpec(remote))
	}
	return true, nil
}

// Merge merges the memory commit theirs (from source, for messages) into
// refs/konteks. Their memory is validated first; nothing local changes if
// it is invalid.
func Merge(repo *gitstore.Repo, theirs gitstore.Hash, source string) (Outcome, error) {
	return merge(repo, theirs, source, FetchOptions{})
}

// merge is Merge with what opt adds to the checks.
func merge(repo *gitstore.Repo, theirs gitstore.Hash, source string, opt FetchOptions) (Outcome, error) {
	out := Outcome{Theirs: theirs}
	for attempt := 0; attempt < 10; attempt++ {
		ours, err := repo.ReadRef(memory.Ref)
		if err != nil {
			return out, err
		}
		if ours == theirs {
			out.Result, out.Commit, out.Derived = UpToDate, ours, "ours"
			return out, nil
		}
		if !ours.IsZero() {
			if anc, err := repo.IsAncestor(theirs, ours); err == nil && anc {
				out.Result, out.Commit, out.Derived = UpToDate, ours, "ours"
				return out, nil
			}
		}
		// Trust and fsck checks (verify.go, trust.go).
		if err := checkRefused(repo, source, theirs); err != nil {
			return out, err
		}
		tm, err := memref.ReadCommit(repo, theirs)
		if err != nil {
			return out, refuse(repo, source, theirs, err)
		}
		var om *memref.Memory
		oursTree := gitstore.ZeroHash
		if !ours.IsZero() {
			if om, err = memref.ReadCommit(repo, ours); err != nil && om == nil {
				return out, err
			}
			oursTree = om.Tree
		}
		side := chooseDerived(repo, om, tm)
		side, trust, notes := trustDerived(repo, side, om, tm, source)
		out.Notes, out.Signer = notes, trust.Principal
		if err := verifyPeer(repo, ours, oursTree, tm, side == "theirs", opt); err != nil {
			return out, refuse(repo, source, theirs, err)
		}
		out.Derived = side
		w := repo.NewWriter()
		base := gitstore.ZeroHash
		switch side {
		case "ours":
			base = om.Tree
		case "theirs":
			base = tm.Tree
		}
		ed := repo.NewTreeEditor(base)
		if side == "none" {
			ed = repo.NewTreeEditor(gitstore.ZeroHash)
		}
		od, err := durableTree(repo, oursTree)
		if err != nil {
			return out, err
		}
		td, err := durableTree(repo, tm.Tree)
		if err != nil {
			return out, err
		}
		td, screened, err := screenDurable(repo, oursTree, tm.Tree, td, trust, theirs, source)
		if err != nil {
			return out, err
		}
		out.Notes = append(out.Notes, screened.Notes...)
		u, conflicts, err := union(repo, w, od, td)
		if err != nil {
			return out, err
		}
		out.Conflicts = conflicts
		if err := ed.Delete(memory.DurableDir); err != nil {
			return out, err
		}
		if !u.IsZero() {
			if err := ed.Set(memory.DurableDir, gitstore.ModeDir, u); err != nil {
				return out, err
			}
		}
		tree, err := ed.Write(w)
		if err != nil {
			return out, err
		}
		// A purge tombstone from either side deletes the purged entry's
		// file from both (the tree is read back, so flush first).
		if err := w.Flush(); err != nil {
			return out, err
		}
		if tree, _, err = durable.ApplyPurges(repo, w, tree); err != nil {
			return out, err
		}
		out.NewDurable = countNew(repo, od, td)

		var next gitstore.Hash
		switch {
		case ours.IsZero() && u.IsZero() && side == "none":
			out.Result = NotAdopted // nothing to keep (trust.go)
			return out, nil
		case ours.IsZero() && tree == tm.Tree:
			next, out.Result = theirs, Adopted
		case !ours.IsZero() && tree == tm.Tree && isAncestor(repo, ours, theirs):
			next, out.Result = theirs, FastForward
		case !ours.IsZero() && tree == om.Tree:
			// Their memory adds nothing to ours (for example a teammate's
			// derived memory of another branch, ours chosen): a merge
			// commit would only grow the chain, and two clones syncing
			// from different HEADs would make one on every other run.
			out.Result, out.Commit = UpToDate, ours
			return out, nil
		default:
			parents, err := memref.Parents(repo, ours)
			if err != nil {
				return out, err
			}
			parents = appendUnique(parents, theirs)
			msg := fmt.Sprintf("konteks: merge memory from %s\n\nDerived memory: %s\nDurable entries brought in: %d\n", source, side, out.NewDurable)
			if next, err = w.Commit(gitstore.CommitSpec{Tree: tree, Parents: parents, Author: repo.Identity(), Message: msg}); err != nil {
				return out, err
			}
			out.Result = Merged
			if ours.IsZero() {
				out.Result = Adopted
			}
		}
		if err := w.Flush(); err != nil {
			return out, err
		}
		err = repo.UpdateRef(memory.Ref, next, ours, "konteks: merge from "+source)
		if err == nil {
			out.Commit = next
			return out, nil
		}
		if !errors.Is(err, gitstore.ErrRefMoved) {
			return out, err
		}
	}
	return out, errors.New("memory kept moving during the merge; try again")
}

func appendUnique(hs []gitstore.Hash, h gitstore.Hash) []gitstore.Hash {
	for _, x := range hs {
		if x == h {
			return hs
		}
	}
	return append(hs, h)
}

func isAncestor(repo *gitstore.Repo, a, b gitstore.Hash) bool {
	ok, err := repo.IsAncestor(a, b)
	return err == nil && ok
}

// chooseDerived picks whose derived memory to keep: "ours", "theirs", or
// "none" when neither side has any.
func chooseDerived(repo *gitstore.Repo, om, tm *memref.Memory) string {
	od, td := om.Derived(), tm.Derived()
	switch {
	case !od && !td:
		return "none"
	case !td:
		return "ours"
	case !od:
		return "theirs"
	}
	// Records of an older format are rebuilt anyway: prefer current ones.
	if om.Manifest.RecordVersion != tm.Manifest.RecordVersion {
		if tm.Manifest.RecordVersion == memory.RecordVersion {
			return "theirs"
		}
		return "ours"
	}
	os, ts := gitstore.ParseHash(om.Manifest.SourceCommit), gitstore.ParseHash(tm.Manifest.SourceCommit)
	if os == ts {
		return "ours"
	}
	head, _ := repo.Resolve("HEAD")
	inLocal := func(h gitstore.Hash) bool {
		if _, err := repo.Commit(h); err != nil {
			return false
		}
		if head == nil {
			return true
		}
		return head.Hash == h || isAncestor(repo, h, head.Hash)
	}
	oi, ti := inLocal(os), inLocal(ts)
	switch {
	case oi && !ti:
		return "ours"
	case ti && !oi:
		return "theirs"
	case !oi && !ti:
		return "ours"
	}
	if isAncestor(repo, os, ts) {
		return "theirs"
	}
	if isAncestor(repo, ts, os) {
		return "ours"
	}
	oc, err1 := repo.Commit(os)
	tc, err2 := repo.Commit(ts)
	if err1 == nil && err2 == nil && tc.Committer.When.After(oc.Committer.When) {
		return "theirs"
	}
	return "ours"
}

func durableTree(repo *gitstore.Repo, tree gitstore.Hash) (gitstore.Hash, error) {
	if tree.IsZero() {
		return gitstore.ZeroHash, nil
	}
	return repo.Subtree(tree, memory.DurableDir)
}

// union merges two trees: every path of either; where both have different
// content at one path, ours is kept (durable entries are unique by id, so
// that only happens with a broken or hostile peer) and counted.
func union(repo *gitstore.Repo, w *gitstore.Writer, a, b gitstore.Hash) (gitstore.Hash, int, error) {
	switch {
	case a.IsZero():
		return b, 0, nil
	case b.IsZero() || a == b:
		return a, 0, nil
	}
	ta, err := repo.Tree(a)
	if err != nil {
		return gitstore.ZeroHash, 0, err
	}
	tb, err := repo.Tree(b)
	if err != nil {
		return gitstore.ZeroHash, 0, err
	}
	byName := map[string]gitstore.TreeEntry{}
	for _, e := range tb.Entries {
		byName[e.Name] = e
	}
	conflicts := 0
	var out []gitstore.TreeEntry
	for _, e := range ta.Entries {
		o, ok := byName[e.Name]
		delete(byName, e.Name)
		switch {
		case !ok || o.Hash == e.Hash:
		case e.Mode == gitstore.ModeDir && o.Mode == gitstore.ModeDir:
			h, c, err := union(repo, w, e.Hash, o.Hash)
			if err != nil {
				return gitstore.ZeroHash, 0, err
			}
			conflicts += c
			e.Hash = h
		default:
			conflicts++
		}
		out = append(out, gitstore.TreeEntry{Name: e.Name, Mode: e.Mode, Hash: e.Hash})
	}
	for _, e := range byName {
		out = append(out, gitstore.TreeEntry{Name: e.Name, Mode: e.Mode, Hash: e.Hash})
	}
	h, err := w.Tree(out)
	return h, conflicts, err
}

// countNew counts durable files in theirs that ours lacks.
func countNew(repo *gitstore.Repo, ours, theirs gitstore.Hash) int {
	if theirs.IsZero() || ours == theirs {
		return 0
	}
	changes, err := repo.DiffTrees(ours, theirs)
	if err != nil {
		return 0
	}
	n := 0
	for _, c := range changes {
		if c.From.IsZero() {
			n++
		}
	}
	return n
}
