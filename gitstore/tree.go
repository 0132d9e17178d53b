package gitstore

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// EntryKind classifies a tree entry.
type EntryKind uint8

const (
	KindFile    EntryKind = iota // regular or executable file
	KindSymlink                  // symbolic link
	KindGitlink                  // submodule commit
)

// Entry is one non-tree entry of a source tree.
type Entry struct {
	Path string // slash-separated, relative to the tree root
	Hash Hash
	Kind EntryKind
}

func kindOf(m filemode.FileMode) (EntryKind, bool) {
	switch m {
	case filemode.Regular, filemode.Executable, filemode.Deprecated:
		return KindFile, true
	case filemode.Symlink:
		return KindSymlink, true
	case filemode.Submodule:
		return KindGitlink, true
	}
	return 0, false
}

// WalkTree calls fn for every file, symlink and gitlink below tree, in git
// tree order. skipDir, when non-nil, is asked before descending into a
// directory (path without trailing slash) and prunes it when it returns true.
func (r *Repo) WalkTree(tree Hash, skipDir func(dir string) bool, fn func(Entry) error) error {
	t, err := r.tree(tree)
	if err != nil {
		return err
	}
	return r.walk(t, "", skipDir, fn)
}

func (r *Repo) walk(t *object.Tree, prefix string, skipDir func(string) bool, fn func(Entry) error) error {
	for _, e := range t.Entries {
		p := e.Name
		if prefix != "" {
			p = prefix + "/" + e.Name
		}
		if e.Mode == filemode.Dir {
			if skipDir != nil && skipDir(p) {
				continue
			}
			sub, err := r.tree(e.Hash)
			if err != nil {
				return fmt.Errorf("walk %s: %w", p, err)
			}
			if err := r.walk(sub, p, skipDir, fn); err != nil {
				return err
			}
			continue
		}
		k, ok := kindOf(e.Mode)
		if !ok {
			continue
		}
		if err := fn(Entry{Path: p, Hash: e.Hash, Kind: k}); err != nil {
			return err
		}
	}
	return nil
}

// Lookup finds the entry at path p in tree (a file, or a tree when the path
// names a directory). ok is false when nothing is there.
func (r *Repo) Lookup(tree Hash, p string) (h Hash, isTree bool, ok bool, err error) {
	t, err := r.tree(tree)
	if err != nil {
		return ZeroHash, false, false, err
	}
	if p == "" || p == "." {
		return tree, true, true, nil
	}
	e, err := t.FindEntry(p)
	if err != nil {
		if err == object.ErrEntryNotFound || err == object.ErrDirectoryNotFound {
			return ZeroHash, false, false, nil
		}
		return ZeroHash, false, false, fmt.Errorf("look up %s: %w", p, err)
	}
	return e.Hash, e.Mode == filemode.Dir, true, nil
}

// Subtree is the id of the directory at path p in tree: the zero hash
// when nothing is there or it is a file.
func (r *Repo) Subtree(tree Hash, p string) (Hash, error) {
	h, isTree, ok, err := r.Lookup(tree, p)
	if err != nil || !ok || !isTree {
		return ZeroHash, err
	}
	return h, nil
}

// Change is one path that differs between two trees. From is the zero hash
// for an addition, To for a deletion. A type change (file to symlink)
// appears as a modification with the new kind.
type Change struct {
	Path     string
	From, To Hash
	FromKind EntryKind
	ToKind   EntryKind
}

// DiffTrees lists the non-tree entries that differ between from and to.
// Unchanged subtrees are skipped by hash, so the cost follows the change,
// not the size of the trees. A zero from means an empty tree.
func (r *Repo) DiffTrees(from, to Hash) ([]Change, error) {
	var a, b *object.Tree
	var err error
	if !from.IsZero() {
		if a, err = r.tree(from); err != nil {
			return nil, err
		}
	}
	if !to.IsZero() {
		if b, err = r.tree(to); err != nil {
			return nil, err
		}
	}
	var out []Change
	err = r.diff(a, b, "", &out)
	return out, err
}

func (r *Repo) diff(a, b *object.Tree, prefix string, out *[]Change) error {
	var ae, be []object.TreeEntry
	if a != nil {
		ae = a.Entries
	}
	if b != nil {
		be = b.Entries
	}
	// Entries are sorted in git order; index by name for a merge-style walk.
	bm := make(map[string]object.TreeEntry, len(be))
	for _, e := range be {
		bm[e.Name] = e
	}
	am := make(map[string]object.TreeEntry, len(ae))
	for _, e := range ae {
		am[e.Name] = e
	}
	join := func(n string) string {
		if prefix == "" {
			return n
		}
		return prefix + "/" + n
	}
	for _, x := range ae {
		y, ok := bm[x.Name]
		if ok && x.Hash == y.Hash && x.Mode == y.Mode {
			continue
		}
		p := join(x.Name)
		if !ok {
			if err := r.side(x, p, true, out); err != nil {
				return err
			}
			continue
		}
		xd, yd := x.Mode == filemode.Dir, y.Mode == filemode.Dir
		switch {
		case xd && yd:
			ta, err := r.tree(x.Hash)
			if err != nil {
				return err
			}
			tb, err := r.tree(y.Hash)
			if err != nil {
				return err
			}
			if err := r.diff(ta, tb, p, out); err != nil {
				return err
			}
		case xd != yd:
			if err := r.side(x, p, true, out); err != nil {
				return err
			}
			if err := r.side(y, p, false, out); err != nil {
				return err
			}
		default:
			fk, ok1 := kindOf(x.Mode)
			tk, ok2 := kindOf(y.Mode)
			switch {
			case ok1 && ok2:
				*out = append(*out, Change{Path: p, From: x.Hash, To: y.Hash, FromKind: fk, ToKind: tk})
			case ok1:
				*out = append(*out, Change{Path: p, From: x.Hash, FromKind: fk})
			case ok2:
				*out = append(*out, Change{Path: p, To: y.Hash, ToKind: tk})
			}
		}
	}
	for _, y := range be {
		if _, ok := am[y.Name]; ok {
			continue
		}
		if err := r.side(y, join(y.Name), false, out); err != nil {
			return err
		}
	}
	return nil
}

// side reports every entry below e as deleted (del) or added.
func (r *Repo) side(e object.TreeEntry, p string, del bool, out *[]Change) error {
	if e.Mode == filemode.Dir {
		t, err := r.tree(e.Hash)
		if err != nil {
			return err
		}
		for _, c := range t.Entries {
			if err := r.side(c, path.Join(p, c.Name), del, out); err != nil {
				return err
			}
		}
		return nil
	}
	k, ok := kindOf(e.Mode)
	if !ok {
		return nil
	}
	if del {
		*out = append(*out, Change{Path: p, From: e.Hash, FromKind: k})
	} else {
		*out = append(*out, Change{Path: p, To: e.Hash, ToKind: k})
	}
	return nil
}

// errTruncatedEntry is a raw tree whose last entry is cut short.
var errTruncatedEntry = errors.New("truncated entry")

// RawEntries calls fn with each entry of the raw tree object data as git
// stores it: the mode as written (not canonicalised, as go-git's trees
// are), the name and the object id. It stops at fn's first error and
// fails on an entry cut short. The short walk reads trees through it, and
// share's checks of a peer's trees.
func RawEntries(data []byte, fn func(mode []byte, name string, id Hash) error) error {
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp < 0 {
			return errTruncatedEntry
		}
		mode := data[:sp]
		data = data[sp+1:]
		nul := bytes.IndexByte(data, 0)
		var id Hash
		if nul < 0 || len(data) < nul+1+len(id) {
			return errTruncatedEntry
		}
		name := string(data[:nul])
		copy(id[:], data[nul+1:])
		data = data[nul+1+len(id):]
		if err := fn(mode, name, id); err != nil {
			return err
		}
	}
	return nil
}

// CompareEntries orders two entries of one tree as git sorts them
// (base_name_compare): by name, a directory's as if it ended in "/".
func CompareEntries(a string, aDir bool, b string, bDir bool) int {
	if aDir {
		a += "/"
	}
	if bDir {
		b += "/"
	}
	return strings.Compare(a, b)
}
