package durable

import (
	"fmt"
	"strings"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/killpoint"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// Forgetting keeps a forgotten entry's file (it is hidden, and shown by
// `memories --all`); purging deletes it. A purge is a tombstone with
// Purge set: the clone that writes it deletes the entry's file, and every
// clone that merges the tombstone later deletes its own copy too, so a
// purge travels like any other durable entry. The tombstone itself holds
// no text of the entry. Removing the text from memory's history as well is
// share.Purge's work (it rewrites the chain and pushes it).

// PurgePaths lists the files a memory tree still holds that purge
// tombstones in the same tree ask to delete: a purged memory or diary
// entry, and every version of a purged skill older than its purge, each
// only when the purge's author wrote it and no clone declined the purge.
func PurgePaths(repo *gitstore.Repo, tree gitstore.Hash) ([]string, error) {
	items, _, err := Load(repo, tree)
	if err != nil {
		return nil, err
	}
	// A purge deletes only what its own author wrote: a tombstone, and so a
	// purge, forgets only its author's entries (peer.go screens peers'
	// tombstones; this holds for every tombstone, skills' included).
	// A declined purge (durable.go, peer.go) deletes nothing, anywhere:
	// the decliner keeps its copy, and memory is one union.
	purgedBy := map[string][]string{} // entry id -> the authors of its purges
	for _, it := range items {
		if it.Type == TypeTombstone && it.Purge && !IsDecline(it.Entry) && !it.PurgeDeclined && it.Status != StatusDeclined {
			purgedBy[it.Forgets] = append(purgedBy[it.Forgets], it.Author)
		}
	}
	var paths []string
	for _, it := range items {
		if it.Type == TypeTombstone {
			continue
		}
		for _, by := range purgedBy[it.ID] {
			if SameAuthor(it.Author, by) {
				paths = append(paths, it.Path)
				break
			}
		}
	}
	vs, _, err := loadSkillVersions(repo, tree)
	if err != nil {
		return nil, err
	}
	declined := map[string]bool{} // ids of declined purges (ScreenPeer)
	for _, it := range items {
		if IsDecline(it.Entry) {
			declined[it.Forgets] = true
		}
	}
	cut := map[string]Skill{} // skill name -> its newest purge
	for _, v := range vs {
		if v.Type == TypeTombstone && v.Purge && !declined[v.ID] {
			if c, ok := cut[v.Name]; !ok || newer(v, c) {
				cut[v.Name] = v
			}
		}
	}
	for _, v := range vs {
		if c, ok := cut[v.Name]; ok && v.Type != TypeTombstone && !newer(v, c) && SameAuthor(v.Author, c.Author) {
			paths = append(paths, v.Path)
		}
	}
	return paths, nil
}

func newer(a, b Skill) bool {
	if !a.Created.Equal(b.Created) {
		return a.Created.After(b.Created)
	}
	return a.ID > b.ID
}

// ApplyPurges returns tree without the files PurgePaths lists (tree
// itself when there are none). New trees are added to w.
func ApplyPurges(repo *gitstore.Repo, w *gitstore.Writer, tree gitstore.Hash) (gitstore.Hash, int, error) {
	paths, err := PurgePaths(repo, tree)
	if err != nil || len(paths) == 0 {
		return tree, 0, err
	}
	ed := repo.NewTreeEditor(tree)
	for _, p := range paths {
		if err := ed.Delete(p); err != nil {
			return tree, 0, err
		}
	}
	out, err := ed.Write(w)
	return out, len(paths), err
}

// ForgetPurge forgets the entry id (live or already forgotten; a prefix is
// enough) with a purge tombstone and deletes its file from the current
// memory. It returns the tombstone.
func ForgetPurge(repo *gitstore.Repo, id, reason string) (Item, error) {
	saved, err := forget(repo, id, reason, true)
	if err != nil {
		return saved, err
	}
	killpoint.At("purge-tombstoned")
	return saved, deletePurged(repo)
}

// RemoveSkillPurge removes the skill name with a purge version, deleting
// the files of all its earlier versions.
func RemoveSkillPurge(repo *gitstore.Repo, name, reason string) (Skill, error) {
	s := Skill{Type: TypeTombstone, Name: strings.TrimSpace(name), Reason: strings.TrimSpace(reason), Purge: true}
	if err := ValidSkillName(s.Name); err != nil {
		return Skill{}, err
	}
	// Versions by someone else would survive (PurgePaths): say so rather
	// than report a purge that leaves their text.
	me := LocalAuthor(repo)
	if mem, err := memref.Read(repo, memory.Ref); err == nil && mem != nil {
		vs, _, err := loadSkillVersions(repo, mem.Tree)
		if err != nil {
			return Skill{}, err
		}
		for _, v := range vs {
			if v.Name == s.Name && v.Type != TypeTombstone && !SameAuthor(v.Author, me) {
				return Skill{}, fmt.Errorf("%w: skill %s has a version by %s, and only its author can purge it; ask them to run `git konteks skill remove %s --purge`", ErrRejected, s.Name, v.Author, s.Name)
			}
		}
	}
	saved, _, err := writeSkill(repo, s, func(cur *Skill) (bool, error) {
		if cur == nil {
			return false, fmt.Errorf("%w: %s", ErrNoSkill, name)
		}
		// Our purge is the newest version already: a purge interrupted
		// after it was saved, which this run finishes without a second
		// purge version.
		return !(cur.Type == TypeTombstone && cur.Purge && SameAuthor(cur.Author, me)), nil
	}, "purge skill "+s.Name)
	if err != nil {
		return saved, err
	}
	killpoint.At("purge-tombstoned")
	return saved, deletePurged(repo)
}

func deletePurged(repo *gitstore.Repo) error {
	_, err := memref.Update(repo, "konteks: purge\n", func(ed *gitstore.TreeEditor, w *gitstore.Writer, tip *memref.Memory) error {
		if tip == nil {
			return nil
		}
		paths, err := PurgePaths(repo, tip.Tree)
		if err != nil {
			return err
		}
		for _, p := range paths {
			if err := ed.Delete(p); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		killpoint.At("purge-rewritten")
	}
	return err
}
