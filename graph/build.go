package graph

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// entry is one file on its way into a cache file. Its slices may point
// into the mapped file of the previous memory commit.
type entry struct {
	path  string
	block []byte
	defs  []uint32
	refs  []uint32
	cnts  []uint8
}

// entryOf derives a file's entry from its record, resolving its imports.
func entryOf(p string, f *memory.File, res *Resolver) entry {
	h := blockHead{lang: f.Language, code: f.Kind == "code"}
	switch f.Language {
	case "Java", "Kotlin", "Scala":
		if m := reJavaPackage.FindStringSubmatch(Preamble(f)); m != nil {
			h.pkg = m[1]
		}
	}
	edges := make([]memory.Edge, len(f.Edges))
	copy(edges, f.Edges)
	for i := range edges {
		if edges[i].Kind == "imports" && edges[i].To == "" && res != nil {
			edges[i].To = res.Resolve(p, f, edges[i].Raw)
		}
	}
	e := entry{path: p, block: encodeBlock(p, h, f.Entities, edges), defs: definedNames(f)}
	e.refs, e.cnts = namedIdents(f)
	return e
}

// buildEntries reads every record of a memory tree (in parallel) into
// entries, in path order.
func buildEntries(ctx context.Context, repo *gitstore.Repo, mem *memref.Memory) ([]entry, error) {
	refs, err := memref.Records(repo, mem.Tree)
	if err != nil {
		return nil, err
	}
	res := NewResolver(repo, sourceTree(mem))
	out := make([]entry, len(refs))
	err = memref.ReadParallel(ctx, repo, refs, func() func(int, []byte) error {
		return func(i int, data []byte) error {
			f, err := memory.DecodeFile(data)
			if err != nil {
				return fmt.Errorf("%w: record of %s: %v", memref.ErrCorrupt, refs[i].Path, err)
			}
			out[i] = entryOf(refs[i].Path, f, res)
			return nil
		}
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out, nil
}

func sourceTree(mem *memref.Memory) gitstore.Hash {
	if mem.Manifest == nil {
		return gitstore.ZeroHash
	}
	return gitstore.ParseHash(mem.Manifest.SourceTree)
}

// maxUpdateShare bounds an update: past this share of changed records a
// build is as cheap.
const maxUpdateShare = 0.3

// updateEntries brings the entries of an older cache file to mem: the
// records that changed are read again, the rest are the old file's bytes.
// When files were added or removed, every import is resolved again (an
// import may now name a file that exists, or one that is gone).
func updateEntries(repo *gitstore.Repo, old *cacheFile, mem *memref.Memory) ([]entry, int, error) {
	changes, err := memref.DiffRecords(repo, gitstore.ParseHash(old.meta.Tree), mem.Tree)
	if err != nil {
		return nil, 0, err
	}
	if float64(len(changes)) > maxUpdateShare*float64(old.n)+20 {
		return nil, len(changes), errTooManyChanges
	}
	olds, err := old.entries()
	if err != nil {
		return nil, 0, err
	}
	res := NewResolver(repo, sourceTree(mem))
	changed := map[string]gitstore.Hash{}
	structural := false
	for _, c := range changes {
		changed[c.Path] = c.New
		if c.Old.IsZero() || c.New.IsZero() {
			structural = true
		}
	}
	out := make([]entry, 0, len(olds)+len(changes))
	for _, e := range olds {
		if _, ok := changed[e.path]; !ok {
			out = append(out, e)
		}
	}
	for _, c := range changes {
		if c.New.IsZero() {
			continue
		}
		f, err := memref.DecodeRecord(repo, c.New, c.Path)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, entryOf(c.Path, f, res))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	if structural {
		var d decodedBlock
		for i := range out {
			if _, ok := changed[out[i].path]; ok {
				continue
			}
			if err := d.parse(out[i].block); err != nil {
				return nil, 0, err
			}
			if b, ok := reresolve(out[i].path, &d, res); ok {
				out[i].block = b
			}
		}
	}
	return out, len(changes), nil
}

var errTooManyChanges = fmt.Errorf("too many changes for an update")

// reresolve resolves a block's imports again; ok is false when none
// changed.
func reresolve(p string, d *decodedBlock, res *Resolver) ([]byte, bool) {
	var f *memory.File
	changed := false
	for i := range d.edges {
		e := &d.edges[i]
		if e.kind != "imports" || e.raw == "" {
			continue
		}
		if f == nil {
			f = fakeRecord(d.head)
		}
		if to := res.Resolve(p, f, e.raw); to != e.to.str(p) {
			changed = true
		}
	}
	if !changed {
		return nil, false
	}
	ents := make([]memory.Entity, len(d.ents))
	for i := range d.ents {
		ents[i] = d.ents[i].entity(p)
	}
	edges := make([]memory.Edge, len(d.edges))
	for i, e := range d.edges {
		edges[i] = memory.Edge{From: e.from.str(p), To: e.to.str(p), Kind: e.kind, Raw: e.raw}
		if e.kind == "imports" && e.raw != "" {
			edges[i].To = res.Resolve(p, f, e.raw)
		}
	}
	return encodeBlock(p, d.head, ents, edges), true
}

// entries reads a cache file's entries (slices into the mapped file).
func (c *cacheFile) entries() ([]entry, error) {
	pb, err := c.sec(secPaths)
	if err != nil {
		return nil, err
	}
	paths, err := parseStrtab(pb)
	if err != nil || paths.len() != c.n {
		return nil, fmt.Errorf("%w: paths", errCache)
	}
	boff, bdata, err := c.rows(secBlocks, 1)
	if err != nil {
		return nil, err
	}
	doff, ddata, err := c.rows(secDefs, 4)
	if err != nil {
		return nil, err
	}
	defs := u32s(ddata[:4*doff[c.n]])
	roff, rdata, err := c.rows(secRefs, 5)
	if err != nil {
		return nil, err
	}
	m := int(roff[c.n])
	rh, rc := u32s(rdata[:4*m]), rdata[4*m:5*m]
	out := make([]entry, c.n)
	for i := range out {
		out[i] = entry{
			path:  paths.at(i),
			block: bdata[boff[i]:boff[i+1]],
			defs:  defs[doff[i]:doff[i+1]],
			refs:  rh[roff[i]:roff[i+1]],
			cnts:  rc[roff[i]:roff[i+1]],
		}
	}
	return out, nil
}

// Weights of the file graph's edges.
const (
	// importWeight is an import of a file; an import of a directory (a
	// Go package) gives each of its code files an equal share.
	importWeight = 2.0
	// maxDefiners: a name defined in more files than this makes no
	// reference (String, ServeHTTP, New): aider's threshold.
	maxDefiners = 5
	// maxOut bounds a file's out-edges: its strongest ones are kept.
	maxOut = 24
)

// fileGraph is the weighted file graph in compressed sparse rows.
type fileGraph struct {
	outOff, outTo []uint32
	outW          []float32
	inOff, inTo   []uint32
	inW           []float32
	rank          []float32
}

// computeGraph derives the weighted edges between files: imports, and
// references — an identifier of file A that a file B defines — weighed as
// aider weighs tags (the square root of the number of sections naming it)
// times the name's rarity (inverse document frequency over files), shared
// among the files defining it.
func computeGraph(es []entry) (*fileGraph, error) {
	n := len(es)
	idx := make(map[string]int32, n)
	dirFiles := map[string][]int32{}
	code := make([]bool, n)
	test := make([]bool, n)
	lang := make([]string, n)
	var d decodedBlock
	for i, e := range es {
		idx[e.path] = int32(i)
	}
	// The definers of each name (up to maxDefiners+1: more is too many)
	// and how many files name it.
	type defInfo struct {
		files [maxDefiners + 1]int32
		n, df int32
		idf   float64
	}
	defIdx := map[uint32]int32{}
	var defs []defInfo
	for i, e := range es {
		for _, h := range e.defs {
			k, ok := defIdx[h]
			if !ok {
				k = int32(len(defs))
				defIdx[h] = k
				defs = append(defs, defInfo{})
			}
			if d := &defs[k]; int(d.n) < len(d.files) {
				d.files[d.n] = int32(i)
				d.n++
			}
		}
	}
	refDef := make([][]int32, n) // per file, per ref: index into defs or -1
	for i, e := range es {
		ks := make([]int32, len(e.refs))
		for r, h := range e.refs {
			k, ok := defIdx[h]
			if !ok {
				ks[r] = -1
				continue
			}
			ks[r] = k
			defs[k].df++
		}
		refDef[i] = ks
	}
	logN := math.Log(float64(n) + 1)
	for k := range defs {
		if defs[k].df > 0 {
			defs[k].idf = logN - math.Log(float64(defs[k].df))
		}
	}
	g := &fileGraph{outOff: make([]uint32, 1, n+1)}
	// Dense accumulator: acc[j] for the files touched so far.
	acc := make([]float32, n)
	var keys []int32
	var row []wedge
	var heap []float32
	var reach []int32
	add := func(j int32, w float32) {
		if acc[j] == 0 {
			keys = append(keys, j)
		}
		acc[j] += w
	}
	for i, e := range es {
		if err := d.parse(e.block); err != nil {
			return nil, fmt.Errorf("%s: %w", e.path, err)
		}
		code[i] = d.head.code
		test[i] = IsTestPath(e.path)
		lang[i] = d.head.lang
		if d.head.code && !strings.HasSuffix(e.path, "_test.go") {
			// An import of a directory (a Go package) reaches its code
			// files, not its tests.
			dir := path.Dir(e.path)
			dirFiles[dir] = append(dirFiles[dir], int32(i))
		}
	}
	for i, e := range es {
		keys = keys[:0]
		if code[i] {
			if err := d.parse(e.block); err != nil {
				return nil, err
			}
			for _, ed := range d.edges {
				if ed.kind != "imports" || ed.to.tag != 0 {
					continue
				}
				to := ed.to.s
				switch {
				case len(to) > 5 && to[:5] == "file:":
					if j, ok := idx[to[5:]]; ok && j != int32(i) {
						add(j, importWeight)
					}
				case len(to) > 4 && to[:4] == "dir:":
					fs := dirFiles[to[4:]]
					for _, j := range fs {
						if j != int32(i) {
							add(j, importWeight/float32(len(fs)))
						}
					}
				}
			}
			for r, k := range refDef[i] {
				if k < 0 {
					continue
				}
				d := &defs[k]
				if d.n > maxDefiners {
					continue
				}
				ds := d.files[:d.n]
				own := false
				reach = reach[:0]
				for _, j := range ds {
					if j == int32(i) {
						own = true
						break
					}
					// Code does not call its tests, nor a language it
					// cannot call by name (see reach.go).
					if test[j] && !test[i] || !mayReference(lang[i], lang[j]) {
						continue
					}
					reach = append(reach, j)
				}
				if own || len(reach) == 0 {
					continue
				}
				idf := d.idf
				if idf <= 0 {
					continue
				}
				w := float32(math.Sqrt(float64(e.cnts[r])) * idf / float64(len(reach)))
				for _, j := range reach {
					add(j, w)
				}
			}
		}
		row = row[:0]
		for _, j := range keys {
			row = append(row, wedge{j, acc[j]})
			acc[j] = 0
		}
		if len(row) > maxOut {
			// The strongest edges carry the file's neighbourhood; a tail of
			// single weak name matches would only slow every walk. Ties at
			// the threshold keep the earliest found.
			thr := kthLargest(row, maxOut, &heap)
			eq := maxOut
			for _, e := range row {
				if e.w > thr {
					eq--
				}
			}
			kept := row[:0]
			for _, e := range row {
				if e.w > thr || e.w == thr && eq > 0 {
					if e.w == thr {
						eq--
					}
					kept = append(kept, e)
				}
			}
			row = kept
		}
		slices.SortFunc(row, func(a, b wedge) int { return cmp.Compare(a.to, b.to) })
		for _, e := range row {
			g.outTo = append(g.outTo, uint32(e.to))
			g.outW = append(g.outW, e.w)
		}
		g.outOff = append(g.outOff, uint32(len(g.outTo)))
	}
	// Transpose.
	g.inOff = make([]uint32, n+1)
	for _, j := range g.outTo {
		g.inOff[j+1]++
	}
	for i := 1; i <= n; i++ {
		g.inOff[i] += g.inOff[i-1]
	}
	g.inTo = make([]uint32, len(g.outTo))
	g.inW = make([]float32, len(g.outTo))
	fill := append([]uint32(nil), g.inOff[:n]...)
	for i := 0; i < n; i++ {
		for k := g.outOff[i]; k < g.outOff[i+1]; k++ {
			j := g.outTo[k]
			g.inTo[fill[j]] = uint32(i)
			g.inW[fill[j]] = g.outW[k]
			fill[j]++
		}
	}
	g.rank = pageRank(n, g.outOff, g.outTo, g.outW)
	return g, nil
}

// writeCache writes the cache file of mem from its entries.
func writeCache(p string, mem *memref.Memory, es []entry, g *fileGraph, how string, changes int, took time.Duration) error {
	n := len(es)
	var w cacheWriter
	meta := cacheMeta{Version: CacheVersion, Memory: mem.Commit.String(), Tree: mem.Tree.String(),
		SourceTree: sourceTree(mem).String(), Files: n, Edges: len(g.outTo), Built: time.Now().UTC(),
		How: how, Changes: changes, TookMS: took.Milliseconds()}
	mb, _ := json.Marshal(meta)
	w.add(secMeta, mb)
	paths := make([]string, n)
	for i, e := range es {
		paths[i] = e.path
	}
	w.add(secPaths, encodeStrtab(paths))
	// Blocks, defs, refs: offsets then data.
	var bo, do, ro []uint32
	bo, do, ro = append(bo, 0), append(do, 0), append(ro, 0)
	for _, e := range es {
		bo = append(bo, bo[len(bo)-1]+uint32(len(e.block)))
		do = append(do, do[len(do)-1]+uint32(len(e.defs)))
		ro = append(ro, ro[len(ro)-1]+uint32(len(e.refs)))
	}
	if uint64(bo[n]) >= 1<<32-1<<20 {
		return fmt.Errorf("graph cache: blocks too large")
	}
	bb := putU32s(make([]byte, 0, 4*(n+1)+int(bo[n])), bo)
	db := putU32s(make([]byte, 0, 4*(n+1)+4*int(do[n])), do)
	rb := putU32s(make([]byte, 0, 4*(n+1)+5*int(ro[n])), ro)
	for _, e := range es {
		bb = append(bb, e.block...)
		db = putU32s(db, e.defs)
		rb = putU32s(rb, e.refs)
	}
	for _, e := range es {
		rb = append(rb, e.cnts...)
	}
	w.add(secBlocks, bb)
	w.add(secDefs, db)
	w.add(secRefs, rb)
	csr := func(off, to []uint32, wt []float32) []byte {
		b := make([]byte, 0, 4*len(off)+8*len(to))
		b = putU32s(b, off)
		b = putU32s(b, to)
		return putF32s(b, wt)
	}
	w.add(secOut, csr(g.outOff, g.outTo, g.outW))
	w.add(secIn, csr(g.inOff, g.inTo, g.inW))
	w.add(secRank, putF32s(nil, g.rank))
	return w.write(p)
}

// wedge is an edge of the row being built.
type wedge struct {
	to int32
	w  float32
}

// kthLargest returns the k-th largest weight of row (k <= len(row)), with
// a min-heap of the k largest so far.
func kthLargest(row []wedge, k int, h *[]float32) float32 {
	hp := (*h)[:0]
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(hp) {
				return
			}
			m := l
			if r := l + 1; r < len(hp) && hp[r] < hp[l] {
				m = r
			}
			if hp[i] <= hp[m] {
				return
			}
			hp[i], hp[m] = hp[m], hp[i]
			i = m
		}
	}
	for _, e := range row {
		w := e.w
		switch {
		case len(hp) < k:
			hp = append(hp, w)
			for i := len(hp) - 1; i > 0; {
				p := (i - 1) / 2
				if hp[p] <= hp[i] {
					break
				}
				hp[p], hp[i] = hp[i], hp[p]
				i = p
			}
		case w > hp[0]:
			hp[0] = w
			down(0)
		}
	}
	*h = hp
	return hp[0]
}
