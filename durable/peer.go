package durable

import (
	"fmt"
	"strings"

	"github.com/konteks/git-konteks/gitstore"
)

// Screened is the verdict on a peer's durable memory before it is merged.
type Screened struct {
	// Declines are the declines (IsDecline) this clone adds to the merge,
	// one per tombstone of theirs it does not accept; Files holds their
	// encoded files by tree path (durable/...).
	Declines []Item
	Files    map[string][]byte
	// Notes say, one line each, what was not applied and why.
	Notes []string
}

// ScreenPeer decides which of the tombstones a peer's memory tree brings
// (theirs, against ours) this clone accepts. Entries themselves are a
// union (their ids are bound to content, so they cannot overwrite ours),
// and so are tombstones: a tombstone this clone does not accept stays in
// the merged tree, with a decline beside it (durable.go), so that the
// next push, squashed or not, does not erase it from shared memory and
// every clone, a new one too, reads the same outcome. For each tombstone
// of theirs that ours lacks:
//   - one whose author is not its entry's author is applied nowhere
//     (resolve), and needs no decline;
//   - one whose author's identity is proven (vouched: the peer's memory
//     commit is signed by a trusted signer whose principal is the
//     tombstone's author) is accepted, purge included;
//   - otherwise the author is only claimed (anyone can set user.email):
//     a tombstone for an entry in local memory written by the local
//     author (me) is declined as that author, so it forgets nothing; the
//     note says how to agree (`memories forget ID`);
//   - a purge of anyone else's entry is declined as a purge: the entry is
//     forgotten as its claimed author asks, and no clone deletes its file;
//     so is a skill's purge (the skill stays removed, its versions' files
//     stay).
func ScreenPeer(repo *gitstore.Repo, ours, theirs gitstore.Hash, me, source string, vouched func(author string) bool) (Screened, error) {
	out := Screened{Files: map[string][]byte{}}
	if theirs.IsZero() {
		return out, nil
	}
	oursItems, theirItems, err := loadSides(repo, ours, theirs, Load)
	if err != nil {
		return out, err
	}
	have := map[string]Item{}
	declines := map[string][]string{} // tombstone id -> authors of its declines, both sides
	for _, it := range oursItems {
		have[it.ID] = it
	}
	byID := map[string]Item{}
	for _, it := range theirItems {
		byID[it.ID] = it
	}
	for _, it := range append(append([]Item{}, oursItems...), theirItems...) {
		if IsDecline(it.Entry) {
			declines[it.Forgets] = append(declines[it.Forgets], it.Author)
		}
	}
	declinedBy := func(t Item, author string) bool {
		for _, a := range declines[t.ID] {
			if author == "" || SameAuthor(a, author) {
				return true
			}
		}
		return false
	}
	for _, t := range theirItems {
		if t.Type != TypeTombstone || IsDecline(t.Entry) {
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
		if target.Type == TypeTombstone {
			continue
		}
		reason := strings.Join(strings.Fields(t.Reason), " ")
		switch {
		case !SameAuthor(t.Author, target.Author):
			out.Notes = append(out.Notes, fmt.Sprintf("tombstone %s from %s by %s for memory %s by %s not applied: only an entry's author can forget it",
				short(t.ID), source, t.Author, short(target.ID), target.Author))
		case vouched != nil && vouched(t.Author):
		case local && SameAuthor(target.Author, me):
			if declinedBy(t, target.Author) {
				continue
			}
			if err := out.decline(repo, t, "not signed by a trusted signer as "+t.Author); err != nil {
				return out, err
			}
			out.Notes = append(out.Notes, fmt.Sprintf("%s forgets your memory %s (%q; tombstone %s, reason %q, not signed by a trusted signer as %s): declined; if you agree, run `git konteks memories forget %s --reason ...`",
				source, short(target.ID), clipText(target.Text, 60), short(t.ID), reason, t.Author, short(target.ID)))
		case t.Purge:
			if declinedBy(t, "") {
				continue
			}
			if err := out.decline(repo, t, "purge not signed by a trusted signer as "+t.Author); err != nil {
				return out, err
			}
			out.Notes = append(out.Notes, fmt.Sprintf("%s purges memory %s by %s (tombstone %s, reason %q), not signed by a trusted signer as %s: forgotten, but its file is kept here and in shared memory; only a purge signed by its author's key in %s deletes other clones' copies",
				source, short(target.ID), target.Author, short(t.ID), reason, t.Author, "konteks.trust"))
		}
	}
	// A skill's purge deletes the versions its author wrote before it:
	// the same rule, with the skill's removal as the forgetting.
	oursSkills, theirSkills, err := loadSides(repo, ours, theirs, loadSkillVersions)
	if err != nil {
		return out, err
	}
	haveSkill := map[string]bool{}
	for _, v := range oursSkills {
		haveSkill[v.ID] = true
	}
	for _, p := range theirSkills {
		if p.Type != TypeTombstone || !p.Purge || haveSkill[p.ID] || declinedBy(Item{Entry: Entry{ID: p.ID}}, "") {
			continue
		}
		cuts := false
		for _, v := range append(append([]Skill{}, oursSkills...), theirSkills...) {
			cuts = cuts || (v.Name == p.Name && v.Type != TypeTombstone && !newer(v, p) && SameAuthor(v.Author, p.Author))
		}
		if !cuts || (vouched != nil && vouched(p.Author)) {
			continue
		}
		if err := out.decline(repo, Item{Entry: Entry{ID: p.ID}}, "skill purge not signed by a trusted signer as "+p.Author); err != nil {
			return out, err
		}
		out.Notes = append(out.Notes, fmt.Sprintf("%s purges skill %s by %s (version %s), not signed by a trusted signer as %s: removed, but its versions' files are kept here and in shared memory; only a purge signed by its author's key in %s deletes other clones' copies",
			source, p.Name, p.Author, short(p.ID), p.Author, "konteks.trust"))
	}
	return out, nil
}

// loadSides reads what load reads from both memory trees (the entries
// that do not decode are left out).
func loadSides[T any](repo *gitstore.Repo, ours, theirs gitstore.Hash, load func(*gitstore.Repo, gitstore.Hash) ([]T, []string, error)) (o, t []T, err error) {
	if o, _, err = load(repo, ours); err != nil {
		return nil, nil, err
	}
	if t, _, err = load(repo, theirs); err != nil {
		return nil, nil, err
	}
	return o, t, nil
}

// decline adds this clone's decline of tombstone t.
func (s *Screened) decline(repo *gitstore.Repo, t Item, reason string) error {
	d := Entry{Type: TypeTombstone, Kind: TypeTombstone, Forgets: t.ID, Reason: reason}
	data, err := finish(repo, &d)
	if err != nil {
		return err
	}
	it := Item{Entry: d, Status: StatusLive, Path: treePath(d)}
	s.Declines = append(s.Declines, it)
	s.Files[it.Path] = data
	return nil
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
