package gitstore

import (
	"errors"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Commit is a commit object as callers read it: its id, tree, parents,
// author, committer and message. It is gitstore's own type so that no
// package outside gitstore depends on go-git's object model; Resolve and
// Repo.Commit fill it from the decoded object.
type Commit struct {
	Hash         Hash
	TreeHash     Hash
	ParentHashes []Hash // in the order the commit lists them
	Author       Signature
	Committer    Signature
	Message      string
}

func newCommit(c *object.Commit) *Commit {
	return &Commit{
		Hash:         c.Hash,
		TreeHash:     c.TreeHash,
		ParentHashes: c.ParentHashes,
		Author:       Signature{Name: c.Author.Name, Email: c.Author.Email, When: c.Author.When},
		Committer:    Signature{Name: c.Committer.Name, Email: c.Committer.Email, When: c.Committer.When},
		Message:      c.Message,
	}
}

// Tree is a tree object: its entries in git's order (Mode tells a subtree,
// ModeDir, from a blob or gitlink).
type Tree struct {
	Hash    Hash
	Entries []TreeEntry

	t *object.Tree // for FindEntry, which walks and caches subtrees
}

func newTree(t *object.Tree) *Tree {
	es := make([]TreeEntry, len(t.Entries))
	for i, e := range t.Entries {
		es[i] = TreeEntry{Name: e.Name, Mode: FileMode(e.Mode), Hash: e.Hash}
	}
	return &Tree{Hash: t.Hash, Entries: es, t: t}
}

// ErrEntryNotFound is FindEntry's answer for a path that names nothing.
var ErrEntryNotFound = errors.New("entry not found")

// FindEntry returns the entry at the slash-separated path p below t,
// reading subtrees on the way; ErrEntryNotFound when nothing is there.
func (t *Tree) FindEntry(p string) (*TreeEntry, error) {
	e, err := t.t.FindEntry(p)
	if err != nil {
		if errors.Is(err, object.ErrEntryNotFound) || errors.Is(err, object.ErrDirectoryNotFound) {
			return nil, ErrEntryNotFound
		}
		return nil, err
	}
	return &TreeEntry{Name: e.Name, Mode: FileMode(e.Mode), Hash: e.Hash}, nil
}

// DecodeTree decodes the body of a tree object (what RawObject returns for
// a tree) the way Repo.Tree does, without a repository: a verifier of
// fetched objects can check that what it accepts is what readers will see.
func DecodeTree(data []byte) ([]TreeEntry, error) {
	o := &plumbing.MemoryObject{}
	o.SetType(plumbing.TreeObject)
	if _, err := o.Write(data); err != nil {
		return nil, err
	}
	var t object.Tree
	if err := t.Decode(o); err != nil {
		return nil, err
	}
	return newTree(&t).Entries, nil
}
