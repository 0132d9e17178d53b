package index

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"sync/atomic"
	"unsafe"

	"github.com/konteks/git-konteks/embed"
	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/mmap"
	"github.com/konteks/git-konteks/memory"
)

// localVectors computes the vectors of a model whose vectors memory does
// not store (the built-in embedder, see embed.StoredInRef) while records
// are read, on the same workers that decode and analyse them. Vectors
// found in the local cache are taken from there; the others are computed,
// and those whose text hashes to its key are kept for the next cache.
type localVectors struct {
	emb   embed.InProcess
	cache *vecCache // nil: none yet
	// Counts, for the benchmark and the tests.
	computed, cached atomic.Int64
}

// newLocalVectors returns the computer for model's vectors, or nil when
// they come from the memory ref (or model is ""). The cache is opened
// best-effort: a missing or damaged one only means computing everything.
func newLocalVectors(repo *gitstore.Repo, model string) *localVectors {
	e := embed.ComputedFor(model)
	if e == nil {
		return nil
	}
	lv := &localVectors{emb: e}
	if p, err := cachePath(repo, model); err == nil {
		lv.cache, _ = openVecCache(p, model, e.Dim())
	}
	return lv
}

// close releases the cache.
func (lv *localVectors) close() {
	if lv != nil {
		lv.cache.close()
	}
}

// fill sets the vectors of rd's sections (aligned with their keys), from
// the cache or computed with vz. buf is scratch space, returned grown.
func (lv *localVectors) fill(vz embed.Vectorizer, buf []byte, f *memory.File, rd *recordDocs) []byte {
	for i := range rd.sections {
		sd := &rd.sections[i]
		if len(sd.keys) == 0 {
			continue
		}
		if lv.fromCache(sd) {
			continue
		}
		sd.vecs = make([]embed.Quantized, 0, len(sd.keys))
		sd.fresh = make([]bool, 0, len(sd.keys))
		s := &f.Sections[i]
		// EachEmbeddingText yields the texts in the order makeDocs took
		// their keys (chunks in order, or the section's own text); keys
		// that do not parse were skipped there and are skipped here.
		buf = section.EachEmbeddingText(buf, rd.path, s, func(hash string, text []byte) {
			k, ok := embed.ParseKey(hash)
			if !ok {
				return
			}
			if q, ok := lv.cache.get(k); ok {
				lv.cached.Add(1)
				sd.vecs = append(sd.vecs, q)
				sd.fresh = append(sd.fresh, true)
				return
			}
			q := embed.QuantizeOwned(vz.Vector(string(text)))
			lv.computed.Add(1)
			sd.vecs = append(sd.vecs, q)
			// Only a vector of the very text its key names may be
			// cached under that key.
			sd.fresh = append(sd.fresh, section.HashBytes(text) == hash)
		})
		if len(sd.vecs) != len(sd.keys) {
			sd.vecs, sd.fresh = nil, nil // not reached: the two walks agree
		}
	}
	return buf
}

// fromCache sets the vectors of sd when the cache holds all of them, as
// fill's walk would, without building the texts they embed: most
// sections of a changed file did not change, and their texts cost more
// than the lookups.
func (lv *localVectors) fromCache(sd *sectionDoc) bool {
	if lv.cache == nil {
		return false
	}
	vecs := make([]embed.Quantized, 0, len(sd.keys))
	for _, k := range sd.keys {
		q, ok := lv.cache.get(k)
		if !ok {
			return false
		}
		vecs = append(vecs, q)
	}
	sd.vecs = vecs
	sd.fresh = make([]bool, len(vecs))
	for i := range sd.fresh {
		sd.fresh[i] = true
	}
	lv.cached.Add(int64(len(vecs)))
	return true
}

// keep writes the local cache of the model's vectors: every cacheable
// vector of the arena (the ones taken from the cache, and the computed
// ones whose text hashes to their key), once per key.
func (lv *localVectors) keep(repo *gitstore.Repo, model string, a *docArena) error {
	var out []embed.Entry
	seen := make(map[embed.Key]bool, len(a.keys))
	for i, k := range a.keys {
		if !a.cacheable[i] || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, embed.Entry{Key: k, Quantized: embed.Quantized{Scale: a.scales[i], Q: a.vec(uint32(i))}})
	}
	p, err := cachePath(repo, model)
	if err != nil {
		return err
	}
	return writeVecCache(p, model, lv.emb.Dim(), out)
}

// cacheDir is where local vector caches live: $GIT_COMMON_DIR/konteks/vectors/.
const cacheDir = "vectors"

// cachePath is the cache file of a model.
func cachePath(repo *gitstore.Repo, model string) (string, error) {
	d, err := repo.StateSubdir(cacheDir)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, embed.ModelDir(model)+".bin"), nil
}

// vecCache is a local cache of one model's vectors, keyed by
// retrieval-text hash, mapped read-only:
//
//	"KVC1" | dim uint32 | count uint32 | modelLen uint32 | model, padded to 8 |
//	keys [count][16]byte (sorted, unique) | scales [count]float32 | q [count*dim]int8
//
// It is never pushed and never trusted beyond its shape: it holds only
// vectors this machine computed.
type vecCache struct {
	dim    int
	n      int
	keys   []byte
	scales []byte
	q      []int8
	unmap  func() error
}

const vecCacheMagic = "KVC1"

// openVecCache maps the cache at path; it fails (and the caller computes
// everything) when it is missing, of another model or dimension, or
// malformed.
func openVecCache(path, model string, dim int) (*vecCache, error) {
	buf, unmap, err := mapFile(path)
	if err != nil {
		return nil, err
	}
	bad := func(what string) (*vecCache, error) {
		unmap()
		return nil, fmt.Errorf("%w: vector cache %s: %s", errTable, path, what)
	}
	if len(buf) < 16 || string(buf[:4]) != vecCacheMagic {
		return bad("header")
	}
	d := int(binary.LittleEndian.Uint32(buf[4:]))
	n := int(binary.LittleEndian.Uint32(buf[8:]))
	ml := int(binary.LittleEndian.Uint32(buf[12:]))
	if d != dim || ml > 1024 || n < 0 || n > 1<<30 {
		return bad("shape")
	}
	hdr := 16 + (ml+7)/8*8
	if len(buf) < hdr || string(buf[16:16+ml]) != model || len(buf) != hdr+n*(20+dim) {
		return bad("size")
	}
	p := buf[hdr:]
	c := &vecCache{dim: dim, n: n, keys: p[:16*n], scales: p[16*n : 20*n], unmap: unmap}
	if n > 0 && dim > 0 {
		c.q = unsafe.Slice((*int8)(unsafe.Pointer(&p[20*n])), n*dim)
	}
	return c, nil
}

// get returns the cached vector of k (sharing the mapped memory: valid
// until close, so callers copy what outlives the build).
func (c *vecCache) get(k embed.Key) (embed.Quantized, bool) {
	if c == nil || c.n == 0 {
		return embed.Quantized{}, false
	}
	i := sort.Search(c.n, func(i int) bool { return bytes.Compare(c.keys[16*i:16*i+16], k[:]) >= 0 })
	if i == c.n || !bytes.Equal(c.keys[16*i:16*i+16], k[:]) {
		return embed.Quantized{}, false
	}
	s := math.Float32frombits(binary.LittleEndian.Uint32(c.scales[4*i:]))
	q := append([]int8(nil), c.q[i*c.dim:(i+1)*c.dim]...)
	return embed.Quantized{Scale: s, Q: q}, true
}

func (c *vecCache) close() {
	if c != nil && c.unmap != nil {
		c.unmap()
		c.unmap = nil
	}
}

// writeVecCache replaces the cache at path with entries, atomically (a
// reader maps either the old file or the new one).
func writeVecCache(path, model string, dim int, entries []embed.Entry) error {
	sort.Slice(entries, func(i, j int) bool { return bytes.Compare(entries[i].Key[:], entries[j].Key[:]) < 0 })
	err := mmap.Replace(path, func(w *bufio.Writer) error {
		hdr := make([]byte, 16+(len(model)+7)/8*8)
		copy(hdr, vecCacheMagic)
		binary.LittleEndian.PutUint32(hdr[4:], uint32(dim))
		binary.LittleEndian.PutUint32(hdr[8:], uint32(len(entries)))
		binary.LittleEndian.PutUint32(hdr[12:], uint32(len(model)))
		copy(hdr[16:], model)
		w.Write(hdr)
		for _, e := range entries {
			w.Write(e.Key[:])
		}
		var b [4]byte
		for _, e := range entries {
			binary.LittleEndian.PutUint32(b[:], math.Float32bits(e.Scale))
			w.Write(b[:])
		}
		for _, e := range entries {
			if len(e.Q) != dim {
				return fmt.Errorf("vector of dimension %d, want %d", len(e.Q), dim)
			}
			w.Write(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(e.Q))), dim))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("vector cache: %w", err)
	}
	return nil
}
