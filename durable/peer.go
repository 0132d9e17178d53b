package durable

import (
	"fmt"
	"strings"

	"github.com/konteks/git-konteks/gitstore"
)

// Screened is the verdict on a peer's durable memory before it is merged.
type Screened struct {
	// Drop lists tree paths (durable/...) of the peer's entries left out of
	// the merge.
	Drop []string
	// Notes say, one line each, what was left out and why.
	Notes []string
}

// ScreenPeer decides which of the entries a peer's memory tree brings
// (theirs, against ours) may join local memory. Entries themselves are a
// union (their ids are bound to content, so they cannot overwrite ours);
// what needs a verdict is a tombstone, which hides an entry:
//   - a tombstone whose author is not the entry's author is left out (it
//     would not be applied anyway: see resolve);
//   - a tombstone for an entry in local memory written by the local author
//     (me) is left out unless vouched says its author's identity is proven
//     (a trusted signature by that person on the peer's memory commit): a
//     peer can claim any author, so forgetting your own memories takes your
//     word. The note says how to agree (`memories forget ID`).
func ScreenPeer(repo *gitstore.Repo, ours, theirs gitstore.Hash, me, source string, vouched func(author string) bool) (Screened, error) {
	var out Screened
	if theirs.IsZero() {
		return out, nil
	}
	oursItems, _, err := Load(repo, ours)
	if err != nil {
		return out, err
	}
	theirItems, _, err := Load(repo, theirs)
	if err != nil {
		return out, err
	}
	have := map[string]Item{}
	for _, it := range oursItems {
		have[it.ID] = it
	}
	byID := map[string]Item{}
	for _, it := range theirItems {
		byID[it.ID] = it
	}
	for _, t := range theirItems {
		if t.Type != TypeTombstone {
			continue
		}
		if _, known := have[t.ID]; known {
			continue // already ours
		}
		target, local := have[t.Forgets]
		if !local {
			if target, local = byID[t.Forgets]; !local {
				continue // its entry is in neither memory: resolve decides if it ever arrives
			}
			local = false
		}
		switch {
		case !SameAuthor(t.Author, target.Author):
			out.Drop = append(out.Drop, t.Path)
			out.Notes = append(out.Notes, fmt.Sprintf("tombstone %s from %s by %s for memory %s by %s not applied: only an entry's author can forget it",
				short(t.ID), source, t.Author, short(target.ID), target.Author))
		case local && target.Type != TypeTombstone && SameAuthor(target.Author, me) && (vouched == nil || !vouched(t.Author)):
			out.Drop = append(out.Drop, t.Path)
			reason := strings.Join(strings.Fields(t.Reason), " ")
			out.Notes = append(out.Notes, fmt.Sprintf("%s forgets your memory %s (%q; tombstone %s, reason %q, not signed by a trusted signer as %s): not applied; if you agree, run `git konteks memories forget %s --reason ...`",
				source, short(target.ID), clipText(target.Text, 60), short(t.ID), reason, t.Author, short(target.ID)))
		}
	}
	return out, nil
}

func short(id string) string {
	if len(id) > 10 {
		return id[:10]
	}
	return id
}

func clipText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n-3] + "..."
	}
	return s
}
