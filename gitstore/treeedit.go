package gitstore

import (
	"fmt"
	"sort"
	"strings"
)

// TreeEditor edits a tree by path without loading more of it than the
// edits touch: untouched subtrees keep their ids and are shared with the
// base, so an incremental memory commit rewrites only the changed paths'
// parent trees.
type TreeEditor struct {
	repo *Repo
	root *editNode
}

type editNode struct {
	base    Hash // tree this node was loaded from (zero for a new tree)
	loaded  bool
	dirty   bool
	entries map[string]*editEntry
}

type editEntry struct {
	mode FileMode
	hash Hash
	sub  *editNode // non-nil once a subtree is opened for editing
}

// NewTreeEditor starts editing from base (zero: an empty tree).
func (r *Repo) NewTreeEditor(base Hash) *TreeEditor {
	return &TreeEditor{repo: r, root: &editNode{base: base}}
}

func (t *TreeEditor) load(n *editNode) error {
	if n.loaded {
		return nil
	}
	n.entries = map[string]*editEntry{}
	n.loaded = true
	if n.base.IsZero() {
		return nil
	}
	tr, err := t.repo.tree(n.base)
	if err != nil {
		return err
	}
	for _, e := range tr.Entries {
		n.entries[e.Name] = &editEntry{mode: FileMode(e.Mode), hash: e.Hash}
	}
	return nil
}

func splitPath(p string) ([]string, error) {
	if p == "" || strings.HasPrefix(p, "/") || strings.HasSuffix(p, "/") {
		return nil, fmt.Errorf("invalid tree path %q", p)
	}
	parts := strings.Split(p, "/")
	for _, s := range parts {
		if s == "" || s == "." || s == ".." || strings.ContainsRune(s, 0) {
			return nil, fmt.Errorf("invalid tree path %q", p)
		}
	}
	return parts, nil
}

// dir opens the directory node for parts, creating missing directories
// when create is set. It returns nil when the directory does not exist.
func (t *TreeEditor) dir(parts []string, create bool) (*editNode, error) {
	n := t.root
	for _, name := range parts {
		if err := t.load(n); err != nil {
			return nil, err
		}
		e := n.entries[name]
		if e == nil || e.mode != ModeDir {
			if !create {
				return nil, nil
			}
			e = &editEntry{mode: ModeDir, sub: &editNode{loaded: true, entries: map[string]*editEntry{}}}
			n.entries[name] = e
		}
		if e.sub == nil {
			e.sub = &editNode{base: e.hash}
		}
		n = e.sub
	}
	if err := t.load(n); err != nil {
		return nil, err
	}
	return n, nil
}

func (t *TreeEditor) markDirty(parts []string) {
	n := t.root
	n.dirty = true
	for _, name := range parts {
		e := n.entries[name]
		if e == nil || e.sub == nil {
			return
		}
		n = e.sub
		n.dirty = true
	}
}

// Set puts a blob (or, with ModeDir, an existing tree) at path p.
func (t *TreeEditor) Set(p string, mode FileMode, h Hash) error {
	parts, err := splitPath(p)
	if err != nil {
		return err
	}
	n, err := t.dir(parts[:len(parts)-1], true)
	if err != nil {
		return err
	}
	name := parts[len(parts)-1]
	if e := n.entries[name]; e != nil && e.sub == nil && e.mode == mode && e.hash == h {
		return nil
	}
	n.entries[name] = &editEntry{mode: mode, hash: h}
	t.markDirty(parts[:len(parts)-1])
	return nil
}

// Delete removes whatever is at path p (a file or a whole subtree). Deleting
// a missing path is not an error.
func (t *TreeEditor) Delete(p string) error {
	parts, err := splitPath(p)
	if err != nil {
		return err
	}
	n, err := t.dir(parts[:len(parts)-1], false)
	if err != nil || n == nil {
		return err
	}
	name := parts[len(parts)-1]
	if _, ok := n.entries[name]; !ok {
		return nil
	}
	delete(n.entries, name)
	t.markDirty(parts[:len(parts)-1])
	return nil
}

// Get returns the entry at path p as the editor currently sees it.
func (t *TreeEditor) Get(p string) (h Hash, mode FileMode, ok bool, err error) {
	parts, err := splitPath(p)
	if err != nil {
		return ZeroHash, 0, false, err
	}
	n, err := t.dir(parts[:len(parts)-1], false)
	if err != nil || n == nil {
		return ZeroHash, 0, false, err
	}
	e := n.entries[parts[len(parts)-1]]
	if e == nil {
		return ZeroHash, 0, false, nil
	}
	if e.sub != nil && e.sub.dirty {
		return ZeroHash, ModeDir, true, nil // not written yet
	}
	return e.hash, e.mode, true, nil
}

// Write writes every changed tree through w and returns the new root id.
// Directories left empty are dropped, as git cannot store them.
func (t *TreeEditor) Write(w *Writer) (Hash, error) {
	h, _, err := t.write(w, t.root)
	return h, err
}

func (t *TreeEditor) write(w *Writer, n *editNode) (Hash, bool, error) {
	if !n.dirty {
		if !n.loaded {
			return n.base, !n.base.IsZero(), nil
		}
		if !n.base.IsZero() {
			return n.base, true, nil
		}
	}
	entries := make([]TreeEntry, 0, len(n.entries))
	for name, e := range n.entries {
		h := e.hash
		if e.sub != nil {
			sh, nonEmpty, err := t.write(w, e.sub)
			if err != nil {
				return ZeroHash, false, err
			}
			if !nonEmpty {
				continue
			}
			h = sh
			e.hash = sh
		}
		entries = append(entries, TreeEntry{Name: name, Mode: e.mode, Hash: h})
	}
	if len(entries) == 0 && n != t.root {
		return ZeroHash, false, nil
	}
	h, err := w.Tree(entries)
	if err != nil {
		return ZeroHash, false, err
	}
	n.base, n.dirty = h, false
	return h, true, nil
}

// empty reports whether a node holds nothing once written: no entries,
// or only directories that are themselves empty.
func empty(n *editNode) bool {
	if !n.loaded {
		return n.base.IsZero()
	}
	for _, e := range n.entries {
		if e.sub == nil || !empty(e.sub) {
			return false
		}
	}
	return true
}

// ListEntry is one entry of a directory as the editor sees it.
type ListEntry struct {
	Name  string
	IsDir bool
	Hash  Hash // zero for a directory changed in this edit and not yet written
}

// List returns the entries of directory dir ("" for the root) as the editor
// currently sees them, sorted by name; directories left empty by edits are
// omitted. ok is false when dir does not exist.
func (t *TreeEditor) List(dir string) (entries []ListEntry, ok bool, err error) {
	var parts []string
	if dir != "" {
		if parts, err = splitPath(dir); err != nil {
			return nil, false, err
		}
	}
	n, err := t.dir(parts, false)
	if err != nil || n == nil {
		return nil, false, err
	}
	for name, e := range n.entries {
		le := ListEntry{Name: name, IsDir: e.mode == ModeDir, Hash: e.hash}
		if e.sub != nil {
			if empty(e.sub) {
				continue
			}
			if e.sub.dirty {
				le.Hash = ZeroHash
			}
		}
		entries = append(entries, le)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	return entries, true, nil
}
