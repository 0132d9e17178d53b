package memref

import (
	"context"
	"fmt"
	"strings"

	"github.com/konteks/git-konteks/embed"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
)

// maxVectorDepth bounds how deep a (possibly hostile) model directory is
// walked: a key has 32 hex digits.
const maxVectorDepth = 32

// VectorReader reads the vectors memory stores for one model
// (vectors/<model>/, in the trie layout of embed.LayOut or the older flat
// one). Decoded trees are kept, so many lookups in one run read each tree
// once.
type VectorReader struct {
	repo  *gitstore.Repo
	root  gitstore.Hash // the model's directory (zero: none)
	trees map[gitstore.Hash]map[string]gitstore.TreeEntry
}

// NewVectorReader opens the vectors of model in the memory tree tree
// (none, when the tree holds no directory for it).
func NewVectorReader(repo *gitstore.Repo, tree gitstore.Hash, model string) (*VectorReader, error) {
	vr := &VectorReader{repo: repo, trees: map[gitstore.Hash]map[string]gitstore.TreeEntry{}}
	if tree.IsZero() || model == "" {
		return vr, nil
	}
	h, isTree, ok, err := repo.Lookup(tree, embed.ModelPath(model))
	if err != nil {
		return nil, err
	}
	if ok && isTree {
		vr.root = h
	}
	return vr, nil
}

// Root is the model's directory in memory (zero when there is none).
func (vr *VectorReader) Root() gitstore.Hash { return vr.root }

// entries returns a tree's entries by name.
func (vr *VectorReader) entries(h gitstore.Hash) (map[string]gitstore.TreeEntry, error) {
	if es, ok := vr.trees[h]; ok {
		return es, nil
	}
	t, err := vr.repo.Tree(h)
	if err != nil {
		return nil, fmt.Errorf("%w: vectors: %v", ErrCorrupt, err)
	}
	es := make(map[string]gitstore.TreeEntry, len(t.Entries))
	for _, e := range t.Entries {
		es[e.Name] = e
	}
	vr.trees[h] = es
	return es, nil
}

// Names lists the entries of the model's directory.
func (vr *VectorReader) Names() ([]string, error) {
	if vr.root.IsZero() {
		return nil, nil
	}
	es, err := vr.entries(vr.root)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(es))
	for n := range es {
		out = append(out, n)
	}
	return out, nil
}

// Leaf finds the shard a key falls in: its path under the model's
// directory (digits joined by '/': "a/3"; a legacy shard is one name,
// "a3f") and its blob. When no shard holds the key's prefix, blob is zero
// and path is where a new shard for the key goes in the trie layout.
func (vr *VectorReader) Leaf(k embed.Key) (path string, blob gitstore.Hash, err error) {
	hex := k.String()
	if vr.root.IsZero() {
		return hex[:1], gitstore.ZeroHash, nil
	}
	var parts []string
	h, depth := vr.root, 0
	for depth < maxVectorDepth {
		es, err := vr.entries(h)
		if err != nil {
			return "", gitstore.ZeroHash, err
		}
		var e gitstore.TreeEntry
		found := false
		// One digit in the trie layout; two or three at the top of the
		// older flat one.
		for n := 1; n <= 3 && depth+n <= len(hex); n++ {
			if e, found = es[hex[depth:depth+n]]; found {
				break
			}
		}
		if !found {
			parts = append(parts, hex[depth:depth+1])
			return strings.Join(parts, "/"), gitstore.ZeroHash, nil
		}
		parts = append(parts, e.Name)
		depth += len(e.Name)
		if e.Mode != gitstore.ModeDir {
			return strings.Join(parts, "/"), e.Hash, nil
		}
		h = e.Hash
	}
	return "", gitstore.ZeroHash, fmt.Errorf("%w: vectors nested too deep", ErrCorrupt)
}

// Shard reads and decodes one shard.
func (vr *VectorReader) Shard(h gitstore.Hash) (int, []embed.Entry, error) {
	b, err := vr.repo.BlobBytes(h, memory.MaxCompressedSize)
	if err != nil {
		return 0, nil, fmt.Errorf("%w: vectors: %v", ErrCorrupt, err)
	}
	d, es, err := embed.DecodeShard(b)
	if err != nil {
		return 0, nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return d, es, nil
}

// Vectors returns the stored vectors of keys (all of them when keys is
// nil), reading only the shards the keys fall in, and their dimension.
func (vr *VectorReader) Vectors(keys map[embed.Key]bool) (map[embed.Key]embed.Quantized, int, error) {
	out := map[embed.Key]embed.Quantized{}
	if vr.root.IsZero() {
		return out, 0, nil
	}
	var shards []gitstore.Hash
	if keys != nil {
		seen := map[gitstore.Hash]bool{}
		for k := range keys {
			_, h, err := vr.Leaf(k)
			if err != nil {
				return nil, 0, err
			}
			if !h.IsZero() && !seen[h] {
				seen[h] = true
				shards = append(shards, h)
			}
		}
	} else if err := vr.allShards(vr.root, 0, &shards); err != nil {
		return nil, 0, err
	}
	dim := 0
	reader := vr.repo.NewBlobReader(len(shards))
	defer reader.Close()
	err := reader.ReadBlobs(context.Background(), shards, memory.MaxCompressedSize, func(b gitstore.Blob) error {
		if b.Missing || b.TooLarge {
			return fmt.Errorf("%w: vector shard %s is missing or too large", ErrCorrupt, b.ID)
		}
		d, es, err := embed.DecodeShard(b.Data)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		if dim != 0 && d != dim {
			return fmt.Errorf("%w: vectors have dimensions %d and %d", ErrCorrupt, dim, d)
		}
		dim = d
		for _, e := range es {
			if keys == nil || keys[e.Key] {
				out[e.Key] = e.Quantized
			}
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return out, dim, nil
}

// allShards collects every shard under a node of the given depth (in hex
// digits).
func (vr *VectorReader) allShards(h gitstore.Hash, depth int, out *[]gitstore.Hash) error {
	if depth >= maxVectorDepth {
		return fmt.Errorf("%w: vectors nested too deep", ErrCorrupt)
	}
	es, err := vr.entries(h)
	if err != nil {
		return err
	}
	for name, e := range es {
		ok := embed.IsNodeName(name) || depth == 0 && embed.IsLegacyShardName(name)
		if !ok {
			continue // the incomplete marker, or anything unknown
		}
		if e.Mode == gitstore.ModeDir {
			if err := vr.allShards(e.Hash, depth+len(name), out); err != nil {
				return err
			}
		} else {
			*out = append(*out, e.Hash)
		}
	}
	return nil
}

// DropUnstoredVectors removes from the tree being edited the vectors of
// every model memory no longer stores (embed.StoredInRef: the built-in
// model's, vectors/konteks-local-v1/, which versions before the index
// computed them wrote into memory). Memory that still holds them reads
// fine — nothing reads them any more — but they weigh about as much as
// the rest of memory, so the format migration drops them once; a
// `rebuild` extraction, which starts from an empty tree, never carries
// them over. It reports whether anything was removed.
func DropUnstoredVectors(repo *gitstore.Repo, ed *gitstore.TreeEditor, tree gitstore.Hash) (bool, error) {
	h, err := repo.Subtree(tree, embed.VectorsDir)
	if err != nil || h.IsZero() {
		return false, err
	}
	t, err := repo.Tree(h)
	if err != nil {
		return false, err
	}
	dropped := false
	for _, e := range t.Entries {
		if e.Name == embed.ModelDir(embed.LocalModel) || strings.HasPrefix(e.Name, embed.ModelDir(embed.StaticPrefix)) {
			if err := ed.Delete(embed.VectorsDir + "/" + e.Name); err != nil {
				return dropped, err
			}
			dropped = true
		}
	}
	return dropped, nil
}
