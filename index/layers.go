package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"unsafe"

	"github.com/konteks/git-konteks/embed"
	"github.com/konteks/git-konteks/internal/mmap"
)

// Layers: an update writes what changed, not the memory.
//
// An update used to write the whole docs and vector tables anew, the kept
// docs copied from the old generation in the kernel: on rails, 43 MB for
// a one-file change (a sixth of a one-file run's CPU), and as much again
// freed when the old generation was pruned. A generation now holds a base
// (docs.bin, vectors.bin), linked from the generation before it; an
// overlay (over-docs.bin, over-vectors.bin) with the docs updates added
// since the base was written; and order.bin, the live docs of the two in
// id order. An update writes the overlay and the order anew and links the
// base. When the overlay would hold more than an eighth as many docs as
// the base keeps live, or the base an eighth of dead docs, the update
// merges both into a new base and the generation has no overlay.
//
// The ordinals a generation hands out stay the docs' ranks by id: every
// search, its ties included, ranks as over one table of the same docs
// (TestLayeredUpdatesRankAsRebuild compares them with a rebuild).
//
//	order.bin: "KXO1" | count uint32 | base docs uint32 | overlay docs uint32 |
//	           places [count]uint32 (the base's ordinal, or overBit | the overlay's)
const (
	overDocsFile = "over-docs.bin"
	overVecsFile = "over-vectors.bin"
	orderFile    = "order.bin"
	orderMagic   = "KXO1"
	overBit      = 1 << 31
)

// overShare bounds the layers: the overlay may hold up to 1/overShare as
// many docs as the base keeps live, and the base 1/overShare of dead docs,
// before an update merges them (0: always; a variable for the tests).
var overShare = 8

// noDoc marks a doc of a layer that is no longer live, in the layer's map
// to ordinals.
const noDoc = ^uint32(0)

// openLayers opens the overlay and order of generation gdir, when it has
// them, into ix (whose base tables are open).
func openLayers(gdir string, ix *Index) error {
	obuf, ounmap, err := mapFile(filepath.Join(gdir, orderFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	closeAll := func() { ounmap() }
	dbuf, dunmap, err := mapFile(filepath.Join(gdir, overDocsFile))
	if err != nil {
		closeAll()
		return fmt.Errorf("%w: overlay: %v", errTable, err)
	}
	closeAll = func() { ounmap(); dunmap() }
	over, err := parseDocFile(dbuf)
	if err != nil {
		closeAll()
		return err
	}
	order, err := parseOrder(obuf, ix.docs.base.n, over.n)
	if err != nil {
		closeAll()
		return err
	}
	vbuf, vunmap, err := mapFile(filepath.Join(gdir, overVecsFile))
	if err != nil {
		closeAll()
		return fmt.Errorf("%w: overlay: %v", errTable, err)
	}
	ovecs, err := parseVecs(vbuf, over.n)
	if err != nil {
		vunmap()
		closeAll()
		return err
	}
	ovecs.unmap = vunmap
	baseUnmap := ix.docs.unmap
	ix.docs.over, ix.docs.order, ix.docs.n = over, order, len(order)
	ix.docs.unmap = func() error {
		ounmap()
		dunmap()
		if baseUnmap != nil {
			return baseUnmap()
		}
		return nil
	}
	ix.ovecs = ovecs
	return nil
}

// parseOrder reads order.bin for a base of nb docs and an overlay of no.
// Every place is checked to be a doc of its layer, each at most once.
func parseOrder(buf []byte, nb, no int) ([]uint32, error) {
	if len(buf) < 16 || string(buf[:4]) != orderMagic {
		return nil, fmt.Errorf("%w: order header", errTable)
	}
	n := int(binary.LittleEndian.Uint32(buf[4:]))
	if int(binary.LittleEndian.Uint32(buf[8:])) != nb || int(binary.LittleEndian.Uint32(buf[12:])) != no ||
		n < 0 || len(buf) != 16+4*n || n > nb+no {
		return nil, fmt.Errorf("%w: order size", errTable)
	}
	if n == 0 {
		return []uint32{}, nil
	}
	var order []uint32
	if mmap.LittleEndian {
		order = unsafe.Slice((*uint32)(unsafe.Pointer(&buf[16])), n)
	} else {
		order = make([]uint32, n)
		for i := range order {
			order[i] = binary.LittleEndian.Uint32(buf[16+4*i:])
		}
	}
	// Each doc once: a place twice would hand out one doc under two
	// ordinals. The check is a pass over the places, a bit per doc.
	seen := make([]uint64, (nb+no+63)/64)
	for _, o := range order {
		k := int(o &^ overBit)
		if o&overBit != 0 {
			if k >= no {
				return nil, fmt.Errorf("%w: order place", errTable)
			}
			k += nb
		} else if k >= nb {
			return nil, fmt.Errorf("%w: order place", errTable)
		}
		if seen[k/64]&(1<<(k%64)) != 0 {
			return nil, fmt.Errorf("%w: order repeats a doc", errTable)
		}
		seen[k/64] |= 1 << (k % 64)
	}
	return order, nil
}

// writeOrder writes order.bin.
func writeOrder(path string, nb, no int, order []uint32) error {
	return writeFile(path, "", func(w *tableWriter) error {
		var b [16]byte
		copy(b[:], orderMagic)
		binary.LittleEndian.PutUint32(b[4:], uint32(len(order)))
		binary.LittleEndian.PutUint32(b[8:], uint32(nb))
		binary.LittleEndian.PutUint32(b[12:], uint32(no))
		w.Write(b[:])
		_, err := w.Write(leBytes(order))
		return err
	})
}

// vecLayer is one vector table of a generation and the ordinals of its
// docs (nil: the table's doc ordinals are the generation's).
type vecLayer struct {
	t      *vecTable
	global []uint32 // the table's doc -> the generation's ordinal, or noDoc
	dead   []uint64 // rows of docs no longer live, a bit each (nil: none)
	live   int      // rows of live docs
}

// doc is the generation's ordinal of row i's doc, or -1 when it is not
// live.
func (l *vecLayer) doc(i int32) int {
	d := l.t.docs[i]
	if l.global == nil {
		return int(d)
	}
	if int(d) >= len(l.global) || l.global[d] == noDoc {
		return -1
	}
	return int(l.global[d])
}

// liveRow reports whether row i's doc is live, without reading the row's
// doc (a search filters every row; the docs of a large table are pages
// it would not touch otherwise).
func (l *vecLayer) liveRow(i int) bool {
	return l.dead == nil || l.dead[i/64]&(1<<(i%64)) == 0
}

// vecLayers are the generation's vector tables that hold rows (computed
// once).
func (ix *Index) vecLayers() []vecLayer {
	ix.layersOnce.Do(func() {
		if ix.docs == nil || ix.docs.order == nil {
			if ix.vecs != nil && ix.vecs.n > 0 {
				ix.layers = []vecLayer{{t: ix.vecs, live: ix.vecs.n}}
			}
			return
		}
		nb, no := ix.docs.base.n, ix.docs.over.n
		bg, og := make([]uint32, nb), make([]uint32, no)
		for i := range bg {
			bg[i] = noDoc
		}
		for i := range og {
			og[i] = noDoc
		}
		for i, o := range ix.docs.order {
			if o&overBit != 0 {
				og[o&^overBit] = uint32(i)
			} else {
				bg[o] = uint32(i)
			}
		}
		for _, l := range []vecLayer{{t: ix.vecs, global: bg}, {t: ix.ovecs, global: og}} {
			if l.t == nil || l.t.n == 0 {
				continue
			}
			// The rows of the few dead docs, found by binary search.
			l.live = l.t.n
			for d, g := range l.global {
				if g != noDoc {
					continue
				}
				lo, hi := l.t.rowsOf(d)
				if hi > lo && l.dead == nil {
					l.dead = make([]uint64, (l.t.n+63)/64)
				}
				for i := lo; i < hi; i++ {
					l.dead[i/64] |= 1 << (i % 64)
				}
				l.live -= hi - lo
			}
			ix.layers = append(ix.layers, l)
		}
	})
	return ix.layers
}

// layerRows is the number of live rows of the generation's vectors.
func (ix *Index) layerRows() int {
	n := 0
	for _, l := range ix.vecLayers() {
		n += l.live
	}
	return n
}

// writeTables writes the docs and vector tables of the generation in dir:
// old's docs, less those at the sorted ordinals removed, and fresh (sorted
// by id, each id once; one whose id old keeps is left out, the kept one
// staying, as a rebuild keeps one). The fresh docs' vectors are their own
// or those of their keys in vecs (see writeVecsMerged).
func writeTables(dir string, old *Index, removed []int, fresh []sectionDoc, model string, dim int, vecs map[embed.Key]embed.Quantized) (tables, error) {
	added := fresh[:0:0]
	for _, f := range fresh {
		if g := old.docs.find(f.doc.ID); g >= 0 && !inSorted(removed, g) {
			continue
		}
		added = append(added, f)
	}
	base := old.docs.base
	var rmBase, rmOver []int
	for _, g := range removed {
		if over, j := old.docs.place(g); over {
			rmOver = append(rmOver, j)
		} else if j >= 0 {
			rmBase = append(rmBase, j)
		}
	}
	sort.Ints(rmBase)
	sort.Ints(rmOver)
	usable := func(t *vecTable) *vecTable {
		if t != nil && t.model == model && t.dim == dim {
			return t
		}
		return nil
	}
	baseVecs, overVecs := usable(old.vecs), usable(old.ovecs)
	overDocs := old.docs.overlay()
	overLive := old.docs.overOrdinals()
	keepBase := old.docs.n - len(overLive) - len(rmBase)
	overAfter := len(overLive) - len(rmOver) + len(added)
	merge := overShare <= 0 || base.n == 0 || overAfter*overShare > keepBase || (base.n-keepBase)*overShare > base.n ||
		(old.vecs != nil && old.vecs.n > 0 && baseVecs == nil)
	if merge {
		docs, rows, err := mergeLayers(dir, old, rmBase, rmOver, overLive, added, model, dim, vecs, baseVecs, overVecs)
		return tables{added: added, docs: docs, rows: rows}, err
	}

	// The base stays as it is, linked; the overlay takes the fresh docs.
	for _, name := range []string{"docs.bin", "vectors.bin"} {
		if err := linkFile(filepath.Join(old.dir, name), filepath.Join(dir, name)); err != nil {
			return tables{}, err
		}
	}
	oldOverPath, oldOverVecsPath := "", ""
	if old.docs.over != nil {
		oldOverPath, oldOverVecsPath = filepath.Join(old.dir, overDocsFile), filepath.Join(old.dir, overVecsFile)
	}
	if overVecs == nil {
		oldOverVecsPath = ""
	}
	// The old overlay's dead docs go with the removed ones.
	rmOverAll := slices.Clone(rmOver)
	if old.docs.over != nil {
		live := make([]bool, overDocs.n)
		for _, j := range overLive {
			live[j] = true
		}
		for j, l := range live {
			if !l {
				rmOverAll = append(rmOverAll, j)
			}
		}
		sort.Ints(rmOverAll)
		rmOverAll = slices.Compact(rmOverAll)
	}
	plan := mergePlan(overDocs, rmOverAll, added)
	if len(plan.fresh) != len(added) {
		return tables{}, fmt.Errorf("%w: the overlay holds a fresh doc's id", errTable)
	}
	if err := writeDocsMerged(filepath.Join(dir, overDocsFile), oldOverPath, overDocs, plan, added); err != nil {
		return tables{}, err
	}
	orows, err := writeVecsMerged(filepath.Join(dir, overVecsFile), oldOverVecsPath, model, dim, overVecs, plan, added, vecs)
	if err != nil {
		return tables{}, err
	}
	// Where the old overlay's docs and the fresh ones are in the new.
	oldOverNew := make([]int, overDocs.n)
	freshNew := make([]int, len(added))
	ord := 0
	for _, s := range plan.segs {
		if s.fresh >= 0 {
			freshNew[s.fresh] = ord
			ord++
			continue
		}
		for j := s.lo; j < s.hi; j++ {
			oldOverNew[j] = ord
			ord++
		}
	}
	// The order: old's, less the removed, the overlay's places renumbered,
	// and each fresh doc before the first old doc of an id not less than
	// its own (found by binary search: the old docs' ids are not read).
	pos := make([]int, len(added))
	for k := range added {
		id := added[k].doc.ID
		pos[k] = sort.Search(old.docs.n, func(g int) bool { return string(old.docs.idBytes(g)) >= id })
	}
	order := make([]uint32, 0, old.docs.n-len(removed)+len(added))
	k, r := 0, 0
	for g := 0; g <= old.docs.n; g++ {
		for ; k < len(added) && pos[k] <= g; k++ {
			order = append(order, overBit|uint32(freshNew[k]))
		}
		if g == old.docs.n {
			break
		}
		if r < len(removed) && removed[r] == g {
			r++
			continue
		}
		over, j := old.docs.place(g)
		if over {
			order = append(order, overBit|uint32(oldOverNew[j]))
		} else {
			order = append(order, uint32(j))
		}
	}
	if err := writeOrder(filepath.Join(dir, orderFile), base.n, plan.n, order); err != nil {
		return tables{}, err
	}
	// The base's live vectors: old's, less the removed docs'.
	baseRows := 0
	if baseVecs != nil {
		for _, l := range old.vecLayers() {
			if l.t == old.vecs {
				baseRows = l.live
			}
		}
		for _, j := range rmBase {
			lo, hi := baseVecs.rowsOf(j)
			baseRows -= hi - lo
		}
	}
	return tables{added: added, docs: len(order), rows: baseRows + orows, layered: true}, nil
}

// tables is what writeTables wrote: the fresh docs it took, the
// generation's docs and vectors, and whether it has an overlay.
type tables struct {
	added      []sectionDoc
	docs, rows int
	layered    bool
}

// mergeLayers writes the generation's docs and vectors as one base: old's
// base less its dead docs and rmBase, and the old overlay's docs less
// rmOver, carried as they are, with added.
func mergeLayers(dir string, old *Index, rmBase, rmOver, overLive []int, added []sectionDoc, model string, dim int, vecs map[embed.Key]embed.Quantized, baseVecs, overVecs *vecTable) (int, int, error) {
	base := old.docs.base
	all := added
	rm := rmBase
	if old.docs.order != nil {
		all = slices.Clone(added)
		live := make([]bool, base.n)
		for _, o := range old.docs.order {
			if o&overBit == 0 {
				live[o] = true
			}
		}
		rm = rm[:0:0]
		for j, l := range live {
			if !l || inSorted(rmBase, j) {
				rm = append(rm, j)
			}
		}
		over := old.docs.over
		for _, j := range overLive {
			if inSorted(rmOver, j) {
				continue
			}
			rec := over.record(j)
			d := sectionDoc{doc: Doc{ID: string(recordID(rec))}, raw: rec, vecs: []embed.Quantized{}}
			if overVecs != nil {
				lo, hi := overVecs.rowsOf(j)
				for i := lo; i < hi; i++ {
					d.vecs = append(d.vecs, embed.Quantized{Scale: overVecs.scales[i], Q: overVecs.q[i*overVecs.dim : (i+1)*overVecs.dim]})
				}
			}
			all = append(all, d)
		}
		slices.SortStableFunc(all, func(a, b sectionDoc) int {
			switch {
			case a.doc.ID < b.doc.ID:
				return -1
			case a.doc.ID > b.doc.ID:
				return 1
			}
			return 0
		})
	}
	plan := mergePlan(base, rm, all)
	if err := writeDocsMerged(filepath.Join(dir, "docs.bin"), filepath.Join(old.dir, "docs.bin"), base, plan, all); err != nil {
		return 0, 0, err
	}
	rows, err := writeVecsMerged(filepath.Join(dir, "vectors.bin"), filepath.Join(old.dir, "vectors.bin"), model, dim, baseVecs, plan, all, vecs)
	return plan.n, rows, err
}

// inSorted reports whether the sorted a holds v.
func inSorted(a []int, v int) bool {
	i := sort.SearchInts(a, v)
	return i < len(a) && a[i] == v
}

// overlay is the table's overlay file, or an empty one.
func (t *docTable) overlay() *docFile {
	if t.over != nil {
		return t.over
	}
	return &docFile{offs: make([]byte, 4)}
}

// overOrdinals are the overlay's live docs, by their ordinals there, in
// id order.
func (t *docTable) overOrdinals() []int {
	var out []int
	for _, o := range t.order {
		if o&overBit != 0 {
			out = append(out, int(o&^overBit))
		}
	}
	return out
}

// rowsOf is the rows [lo, hi) of doc d (rows are in doc order).
func (t *vecTable) rowsOf(d int) (int, int) { return t.rowsIn(d, d+1) }

// rowsIn is the rows [lo, hi) of the docs [from, to) (rows are in doc
// order).
func (t *vecTable) rowsIn(from, to int) (int, int) {
	lo := sort.Search(t.n, func(i int) bool { return int(t.docs[i]) >= from })
	hi := lo + sort.Search(t.n-lo, func(i int) bool { return int(t.docs[lo+i]) >= to })
	return lo, hi
}
