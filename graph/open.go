package graph

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memref"
)

// Graph is the file graph of one memory commit, read from its cache file
// (mapped: opening it reads a few arrays, not the records).
type Graph struct {
	// Memory is the memory commit the graph describes.
	Memory gitstore.Hash
	// How says what Open did: "current" (the cache was there), "update"
	// (from an older commit's cache and the memory diff), "build".
	How string
	// Took is the time Open spent building or updating.
	Took time.Duration

	c             *cacheFile
	n             int
	paths         strtab
	outOff, outTo []uint32
	outW          []float32
	inOff, inTo   []uint32
	inW           []float32
	rank          []float32
	outSum, inSum []float32
}

// Open opens the graph of memory commit mem, building its cache file
// first when there is none: by updating the newest cache of another
// commit from the memory diff when the diff is small, else from every
// record. A damaged cache file is rebuilt.
func Open(ctx context.Context, repo *gitstore.Repo, mem *memref.Memory) (*Graph, error) {
	if mem == nil || mem.Commit.IsZero() {
		return nil, errors.New("no memory")
	}
	dir, err := CacheDir(repo)
	if err != nil {
		return nil, err
	}
	p := cachePath(dir, mem)
	if c, err := openCacheFile(p); err == nil {
		if c.meta.Memory == mem.Commit.String() {
			if g, err := newGraph(c); err == nil {
				g.How = "current"
				return g, nil
			}
		}
		c.close()
	}
	t0 := time.Now()
	how, changes := "build", 0
	var es []entry
	old := newestCache(dir, mem.Commit.String())
	var fg *fileGraph
	if old != nil {
		// Any failure (a damaged old file, too many changes) falls back
		// to a build.
		es, changes, err = updateEntries(repo, old, mem)
		if err == nil {
			fg, err = computeGraph(es)
		}
		if err == nil {
			how = "update"
		} else {
			es, fg = nil, nil
		}
	}
	if es == nil {
		if es, err = buildEntries(ctx, repo, mem); err != nil {
			old.close()
			return nil, err
		}
		fg, err = computeGraph(es)
	}
	if err == nil {
		err = writeCache(p, mem, es, fg, how, changes, time.Since(t0))
	}
	old.close()
	if err != nil {
		return nil, err
	}
	pruneCaches(dir, mem.Commit.String())
	c, err := openCacheFile(p)
	if err != nil {
		return nil, err
	}
	g, err := newGraph(c)
	if err != nil {
		c.close()
		return nil, err
	}
	g.How, g.Took = how, time.Since(t0)
	return g, nil
}

// OpenCached opens the graph of memory commit mem only when its cache file
// is there already (nil, nil when it is not): for callers that must stay
// fast, such as context packs, and leave building to the background
// runner or to Open.
func OpenCached(repo *gitstore.Repo, mem *memref.Memory) (*Graph, error) {
	if mem == nil || mem.Commit.IsZero() {
		return nil, nil
	}
	dir, err := CacheDir(repo)
	if err != nil {
		return nil, err
	}
	c, err := openCacheFile(cachePath(dir, mem))
	if err != nil {
		return nil, nil
	}
	if c.meta.Memory != mem.Commit.String() {
		c.close()
		return nil, nil
	}
	g, err := newGraph(c)
	if err != nil {
		c.close()
		return nil, nil
	}
	g.How = "current"
	return g, nil
}

// newGraph reads the arrays recall needs; the blocks wait for Find.
func newGraph(c *cacheFile) (*Graph, error) {
	g := &Graph{c: c, n: c.n, Memory: gitstore.ParseHash(c.meta.Memory)}
	pb, err := c.sec(secPaths)
	if err != nil {
		return nil, err
	}
	if g.paths, err = parseStrtab(pb); err != nil {
		return nil, err
	}
	if g.paths.len() != g.n {
		return nil, fmt.Errorf("%w: %d paths for %d files", errCache, g.paths.len(), g.n)
	}
	csr := func(id uint32) ([]uint32, []uint32, []float32, error) {
		off, rest, err := c.rows(id, 8)
		if err != nil {
			return nil, nil, nil, err
		}
		m := int(off[g.n])
		to := u32s(rest[:4*m])
		for _, t := range to {
			if int(t) >= g.n {
				return nil, nil, nil, fmt.Errorf("%w: edge target", errCache)
			}
		}
		return off, to, f32s(rest[4*m : 8*m]), nil
	}
	if g.outOff, g.outTo, g.outW, err = csr(secOut); err != nil {
		return nil, err
	}
	if g.inOff, g.inTo, g.inW, err = csr(secIn); err != nil {
		return nil, err
	}
	rb, err := c.sec(secRank)
	if err != nil {
		return nil, err
	}
	if g.rank = f32s(rb); len(g.rank) != g.n {
		return nil, fmt.Errorf("%w: rank", errCache)
	}
	g.outSum, g.inSum = make([]float32, g.n), make([]float32, g.n)
	for i := 0; i < g.n; i++ {
		for k := g.outOff[i]; k < g.outOff[i+1]; k++ {
			g.outSum[i] += g.outW[k]
		}
		for k := g.inOff[i]; k < g.inOff[i+1]; k++ {
			g.inSum[i] += g.inW[k]
		}
	}
	return g, nil
}

// Close unmaps the cache file.
func (g *Graph) Close() {
	if g != nil {
		g.c.close()
	}
}

// Len is the number of files.
func (g *Graph) Len() int { return g.n }

// File returns a path's file number, or -1.
func (g *Graph) File(p string) int { return g.paths.find(p) }

// Path returns file i's path.
func (g *Graph) Path(i int) string { return strings.Clone(g.paths.at(i)) }

// Rank is file i's global PageRank (mean 1 over the files).
func (g *Graph) Rank(i int) float64 { return float64(g.rank[i]) }

// Neighbor is an edge seen from one file.
type Neighbor struct {
	File   int
	Weight float64
	Out    bool // the file uses the neighbour (imports or names it); else the neighbour uses it
}

// Neighbors lists a file's neighbours both ways, in file order per
// direction.
func (g *Graph) Neighbors(i int) []Neighbor {
	var out []Neighbor
	for k := g.outOff[i]; k < g.outOff[i+1]; k++ {
		out = append(out, Neighbor{int(g.outTo[k]), float64(g.outW[k]), true})
	}
	for k := g.inOff[i]; k < g.inOff[i+1]; k++ {
		out = append(out, Neighbor{int(g.inTo[k]), float64(g.inW[k]), false})
	}
	return out
}

// Degree is the total weight of a file's edges, both ways.
func (g *Graph) Degree(i int) float64 { return float64(g.outSum[i] + g.inSum[i]) }

// Remove deletes the cache file of mem (tests, and damaged files).
func Remove(repo *gitstore.Repo, mem *memref.Memory) error {
	dir, err := CacheDir(repo)
	if err != nil {
		return err
	}
	err = os.Remove(cachePath(dir, mem))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}
