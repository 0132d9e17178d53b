// Package memref reads the memory ref: the memory commit, its manifest, its
// file records and skip list, and what changed between two memory commits.
// Everything read here may come from another clone and is validated.
package memref

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/manifest"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/secret"
)

// ErrCorrupt is returned when memory cannot be read; `git konteks extract
// --mode rebuild` recovers from it.
var ErrCorrupt = errors.New("memory is corrupt")

// Memory is a memory commit as read from a ref. Manifest is nil when the
// memory holds only durable entries (saved before any extraction).
type Memory struct {
	Commit   gitstore.Hash
	Tree     gitstore.Hash
	Manifest *manifest.Manifest
}

// Derived reports whether the memory holds extracted (derived) memory.
func (m *Memory) Derived() bool { return m != nil && m.Manifest != nil }

// Read reads the memory commit a ref points at. It returns nil (and no
// error) when the ref does not exist. On a corrupt manifest it returns the
// memory it could read together with an error wrapping ErrCorrupt.
func Read(repo *gitstore.Repo, ref string) (*Memory, error) {
	h, err := repo.ReadRef(ref)
	if err != nil || h.IsZero() {
		return nil, err
	}
	return ReadCommit(repo, h)
}

// ReadCommit reads the memory commit h.
func ReadCommit(repo *gitstore.Repo, h gitstore.Hash) (*Memory, error) {
	c, err := repo.Commit(h)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	m := &Memory{Commit: h, Tree: c.TreeHash}
	mh, _, ok, err := repo.Lookup(c.TreeHash, memory.ManifestPath)
	if err != nil {
		return m, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if !ok {
		// Durable entries saved before the first extraction.
		if _, isTree, dok, _ := repo.Lookup(c.TreeHash, memory.DurableDir); dok && isTree {
			return m, nil
		}
		return m, fmt.Errorf("%w: memory commit %.12s has no %s", ErrCorrupt, h, memory.ManifestPath)
	}
	b, err := repo.BlobBytes(mh, manifest.MaxSize)
	if err != nil {
		return m, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	man, err := manifest.Decode(b)
	if err != nil {
		return m, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	m.Manifest = man
	return m, nil
}

// Record reads and decodes the record of one source path from a memory
// tree. ok is false when the path has no record.
func Record(repo *gitstore.Repo, tree gitstore.Hash, source string) (rec *memory.File, ok bool, err error) {
	if err := memory.ValidSourcePath(source); err != nil {
		return nil, false, err
	}
	h, isTree, found, err := repo.Lookup(tree, memory.FilePath(source))
	if err != nil || !found || isTree {
		return nil, false, err
	}
	f, err := DecodeRecord(repo, h, source)
	return f, err == nil, err
}

// DecodeRecord reads and decodes the record blob h of source path p.
func DecodeRecord(repo *gitstore.Repo, h gitstore.Hash, p string) (*memory.File, error) {
	b, err := repo.BlobBytes(h, memory.MaxCompressedSize)
	if err != nil {
		return nil, fmt.Errorf("%w: record of %s: %v", ErrCorrupt, p, err)
	}
	f, err := memory.DecodeFile(b)
	if err != nil {
		return nil, fmt.Errorf("%w: record of %s: %v", ErrCorrupt, p, err)
	}
	return f, nil
}

// SkipPathPrefix starts the skip list's key of a source path that holds a
// credential (a token as a file name): the path itself is never written
// into memory.
const SkipPathPrefix = "path-sha256:"

// SkipKey is the skip list's key for source path p: p itself, or, when p
// holds a credential, SkipPathPrefix and the first 24 hex digits of the
// SHA-256 of p (stable, so an unchanged file keeps its entry).
func SkipKey(p string) string {
	if !secret.ContainsString(p) {
		return p
	}
	sum := sha256.Sum256([]byte(p))
	return SkipPathPrefix + hex.EncodeToString(sum[:12])
}

// Skipped reads the map of gated paths (SkipKey -> reason) of a memory
// tree.
func Skipped(repo *gitstore.Repo, tree gitstore.Hash) (map[string]string, error) {
	out := map[string]string{}
	h, _, ok, err := repo.Lookup(tree, memory.SkippedPath)
	if err != nil || !ok {
		return out, err
	}
	b, err := repo.BlobBytes(h, memory.MaxCompressedSize)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, memory.SkippedPath, err)
	}
	raw, err := memory.Decompress(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, memory.SkippedPath, err)
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorrupt, memory.SkippedPath, err)
	}
	return out, nil
}

// RecordRef names one record blob in a memory tree.
type RecordRef struct {
	Path string        // source path
	Blob gitstore.Hash // record blob id
}

// Records lists every record of a memory tree, in path order. Paths that
// fail validation (a hostile tree) are an error, not silently skipped.
func Records(repo *gitstore.Repo, tree gitstore.Hash) ([]RecordRef, error) {
	h, err := repo.Subtree(tree, memory.FilesDir)
	if err != nil || h.IsZero() {
		return nil, err
	}
	var out []RecordRef
	err = repo.WalkTree(h, nil, func(e gitstore.Entry) error {
		if err := memory.ValidSourcePath(e.Path); err != nil {
			return fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		out = append(out, RecordRef{Path: e.Path, Blob: e.Hash})
		return nil
	})
	return out, err
}

// Change is a record that differs between two memory trees: Old is zero
// for an added record, New for a removed one.
type Change struct {
	Path     string
	Old, New gitstore.Hash
}

// DiffRecords lists the records that differ between two memory trees
// (zero from: everything in to is added). Unchanged subtrees cost nothing.
func DiffRecords(repo *gitstore.Repo, from, to gitstore.Hash) ([]Change, error) {
	sub := func(tree gitstore.Hash) (gitstore.Hash, error) {
		if tree.IsZero() {
			return gitstore.ZeroHash, nil
		}
		return repo.Subtree(tree, memory.FilesDir)
	}
	a, err := sub(from)
	if err != nil {
		return nil, err
	}
	b, err := sub(to)
	if err != nil {
		return nil, err
	}
	changes, err := repo.DiffTrees(a, b)
	if err != nil {
		return nil, err
	}
	out := make([]Change, 0, len(changes))
	for _, c := range changes {
		if err := memory.ValidSourcePath(c.Path); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		out = append(out, Change{Path: c.Path, Old: c.From, New: c.To})
	}
	return out, nil
}

// IsCorrupt reports whether err says memory is corrupt.
func IsCorrupt(err error) bool {
	return errors.Is(err, ErrCorrupt) || errors.Is(err, memory.ErrCorrupt) || strings.Contains(fmt.Sprint(err), "corrupt")
}

// Update applies edit to the current memory tree and commits the result on
// top of refs/konteks by compare-and-swap, retrying from the new tip when
// another writer moved the ref meanwhile (edit must be safe to run again).
// It creates the ref when there is no memory yet. It returns the new
// memory commit; a zero hash means edit changed nothing.
func Update(repo *gitstore.Repo, message string, edit func(ed *gitstore.TreeEditor, w *gitstore.Writer, tip *Memory) error) (gitstore.Hash, error) {
	for attempt := 0; ; attempt++ {
		tipHash, err := repo.ReadRef(memory.Ref)
		if err != nil {
			return gitstore.ZeroHash, err
		}
		var tip *Memory
		base := gitstore.ZeroHash
		if !tipHash.IsZero() {
			c, err := repo.Commit(tipHash)
			if err != nil {
				return gitstore.ZeroHash, fmt.Errorf("%w: %v", ErrCorrupt, err)
			}
			tip = &Memory{Commit: tipHash, Tree: c.TreeHash}
			if m, err := ReadCommit(repo, tipHash); err == nil {
				tip = m
			}
			base = c.TreeHash
		}
		w := repo.NewWriter()
		ed := repo.NewTreeEditor(base)
		if err := edit(ed, w, tip); err != nil {
			return gitstore.ZeroHash, err
		}
		tree, err := ed.Write(w)
		if err != nil {
			return gitstore.ZeroHash, err
		}
		if tree == base {
			return gitstore.ZeroHash, nil
		}
		parents, err := Parents(repo, tipHash)
		if err != nil {
			return gitstore.ZeroHash, err
		}
		c, err := w.Commit(gitstore.CommitSpec{Tree: tree, Parents: parents, Author: repo.Identity(), Message: message})
		if err != nil {
			return gitstore.ZeroHash, err
		}
		if err := w.Flush(); err != nil {
			return gitstore.ZeroHash, err
		}
		err = repo.UpdateRef(memory.Ref, c, tipHash, firstLine(message))
		if err == nil {
			return c, nil
		}
		if !errors.Is(err, gitstore.ErrRefMoved) || attempt >= 20 {
			return gitstore.ZeroHash, err
		}
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// DirSummary reads and checks a directory summary blob.
func DirSummary(repo *gitstore.Repo, h gitstore.Hash) (*memory.DirSummary, error) {
	b, err := repo.BlobBytes(h, 1<<20)
	if err != nil {
		return nil, fmt.Errorf("%w: directory summary: %v", ErrCorrupt, err)
	}
	var s memory.DirSummary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%w: directory summary: %v", ErrCorrupt, err)
	}
	return &s, nil
}
