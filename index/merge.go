package index

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"unsafe"

	"github.com/konteks/git-konteks/embed"
	"github.com/konteks/git-konteks/internal/mmap"
)

// An update writes the new generation's tables by merging: the old
// table's kept docs are runs of consecutive ordinals, copied as they are
// (their bytes, their vectors' columns) with only offsets and ordinals
// shifted, and the fresh docs go in between at their place by id. Nothing
// is sorted, decoded or hashed per kept doc, so an update costs about a
// copy of the tables, whatever the memory's size.

// mergeSeg is a run of the new table: old docs [lo, hi), or (fresh >= 0)
// one fresh doc.
type mergeSeg struct {
	lo, hi int
	fresh  int
}

type mergePlanT struct {
	segs  []mergeSeg
	n     int   // docs in the new table
	fresh []int // the fresh docs used, in table order
}

// mergePlan merges the old table t, less the sorted ordinals removed, with
// fresh (sorted by id, ids unique). A fresh doc whose id a kept doc has
// already is left out (the kept one stays, as a rebuild would keep one).
func mergePlan(t *docFile, removed []int, fresh []sectionDoc) mergePlanT {
	var p mergePlanT
	emitOld := func(lo, hi int) {
		if hi > lo {
			p.segs = append(p.segs, mergeSeg{lo: lo, hi: hi, fresh: -1})
			p.n += hi - lo
		}
	}
	emitFresh := func(i int) {
		p.segs = append(p.segs, mergeSeg{fresh: i})
		p.fresh = append(p.fresh, i)
		p.n++
	}
	i := 0
	run := func(lo, hi int) {
		cur := lo
		for cur < hi && i < len(fresh) && fresh[i].doc.ID <= t.id(hi-1) {
			id := fresh[i].doc.ID
			pos := cur + sort.Search(hi-cur, func(k int) bool { return t.id(cur+k) >= id })
			emitOld(cur, pos)
			cur = pos
			if t.id(pos) != id {
				emitFresh(i)
			}
			i++
		}
		emitOld(cur, hi)
	}
	lo := 0
	for k := 0; k <= len(removed); k++ {
		hi := t.n
		if k < len(removed) {
			hi = removed[k]
		}
		if hi > lo {
			run(lo, hi)
		}
		if k < len(removed) {
			lo = removed[k] + 1
		}
	}
	for ; i < len(fresh); i++ {
		emitFresh(i)
	}
	return p
}

// writeDocsMerged writes the docs table of a merge plan (see docsMagic
// for the layout).
func writeDocsMerged(path, oldPath string, t *docFile, p mergePlanT, fresh []sectionDoc) error {
	enc := make(map[int][]byte, len(p.fresh))
	size := 0
	for _, s := range p.segs {
		if s.fresh >= 0 {
			b := fresh[s.fresh].raw
			if b == nil {
				b = appendDoc(nil, &fresh[s.fresh].doc)
			}
			enc[s.fresh] = b
			size += len(b)
		} else {
			// A damaged table fails the update (which falls back to a
			// build) rather than the process.
			lo, hi := t.off(s.lo), t.off(s.hi)
			if lo > hi || int(hi) > len(t.data) {
				return fmt.Errorf("%w: docs offsets", errTable)
			}
			for o := s.lo; o < s.hi; o++ {
				if t.off(o) > t.off(o+1) {
					return fmt.Errorf("%w: docs offsets", errTable)
				}
			}
			size += int(hi - lo)
		}
	}
	if size > math.MaxUint32 {
		return fmt.Errorf("index: docs table of %d bytes is too large", size)
	}
	return writeFile(path, oldPath, func(w *tableWriter) error {
		var b [4]byte
		u32 := func(v uint32) {
			binary.LittleEndian.PutUint32(b[:], v)
			w.Write(b[:])
		}
		w.WriteString(docsMagic)
		u32(uint32(p.n))
		pos := uint32(0)
		for _, s := range p.segs {
			if s.fresh >= 0 {
				u32(pos)
				pos += uint32(len(enc[s.fresh]))
				continue
			}
			base := t.off(s.lo)
			for o := s.lo; o < s.hi; o++ {
				u32(pos + t.off(o) - base)
			}
			pos += t.off(s.hi) - base
		}
		u32(pos)
		for _, s := range p.segs {
			if s.fresh >= 0 {
				w.Write(enc[s.fresh])
			} else if err := w.copyOld(t.buf, t.data[t.off(s.lo):t.off(s.hi)]); err != nil {
				return err
			}
		}
		return nil
	})
}

// writeVecsMerged writes the vector table of a merge plan: the kept docs'
// rows of ov (nil: none) and the fresh docs' vectors: their own (vecs,
// computed by the index or carried from an overlay), else those of their
// keys in vecs (from the memory ref; nil: none). It returns the number
// of rows.
func writeVecsMerged(path, oldPath, model string, dim int, ov *vecTable, p mergePlanT, fresh []sectionDoc, vecs map[embed.Key]embed.Quantized) (int, error) {
	// Rows per segment: a range of ov's rows, or a fresh doc's vectors.
	type segRows struct {
		rlo, rhi int // ov rows
		delta    int // new ordinal - old ordinal
		q        []embed.Quantized
		ord      int // new ordinal of a fresh doc
	}
	rows := make([]segRows, len(p.segs))
	total, ord := 0, 0
	for k, s := range p.segs {
		r := &rows[k]
		if s.fresh >= 0 {
			r.ord = ord
			ord++
			d := &fresh[s.fresh]
			if d.vecs != nil || d.raw != nil {
				for _, q := range d.vecs {
					if len(q.Q) == dim {
						r.q = append(r.q, q)
					}
				}
			} else {
				for _, key := range d.keys {
					if q, ok := vecs[key]; ok && len(q.Q) == dim {
						r.q = append(r.q, q)
					}
				}
			}
			total += len(r.q)
			continue
		}
		if ov != nil {
			r.rlo, r.rhi = ov.rowsIn(s.lo, s.hi)
			r.delta = ord - s.lo
			total += r.rhi - r.rlo
		}
		ord += s.hi - s.lo
	}
	if total == 0 {
		model, dim = "", 0
	}
	words := (dim + 63) / 64
	if ov == nil {
		oldPath = ""
	}
	err := writeFile(path, oldPath, func(w *tableWriter) error {
		hdr := make([]byte, vecHeader(model))
		copy(hdr, vecsMagic)
		binary.LittleEndian.PutUint32(hdr[4:], uint32(dim))
		binary.LittleEndian.PutUint32(hdr[8:], uint32(total))
		binary.LittleEndian.PutUint32(hdr[12:], uint32(len(model)))
		copy(hdr[16:], model)
		w.Write(hdr)
		if total == 0 {
			return nil
		}
		var b [8]byte
		for _, r := range rows { // docs
			for i := r.rlo; i < r.rhi; i++ {
				binary.LittleEndian.PutUint32(b[:], uint32(int(ov.docs[i])+r.delta))
				w.Write(b[:4])
			}
			for range r.q {
				binary.LittleEndian.PutUint32(b[:], uint32(r.ord))
				w.Write(b[:4])
			}
		}
		for _, r := range rows { // scales
			if r.rhi > r.rlo {
				w.Write(ov.rawScales[4*r.rlo : 4*r.rhi])
			}
			for _, q := range r.q {
				binary.LittleEndian.PutUint32(b[:], math.Float32bits(q.Scale))
				w.Write(b[:4])
			}
		}
		var sk []uint64
		for _, r := range rows { // sketches
			if r.rhi > r.rlo && words > 0 {
				if err := w.copyOld(ov.buf, ov.rawBits[16*r.rlo*words:16*r.rhi*words]); err != nil {
					return err
				}
			}
			for _, q := range r.q {
				sk = sketch(sk[:0], q.Q)
				w.Write(leBytes(sk))
			}
		}
		for _, r := range rows { // vectors
			if r.rhi > r.rlo && dim > 0 {
				if err := w.copyOld(ov.buf, asBytes(ov.q[r.rlo*dim:r.rhi*dim])); err != nil {
					return err
				}
			}
			for _, q := range r.q {
				w.Write(asBytes(q.Q))
			}
		}
		return nil
	})
	return total, err
}

// leBytes is a slice of numbers as the tables hold them, little-endian:
// its own bytes on a little-endian machine, else an encoded copy.
func leBytes[T uint32 | uint64 | float32](s []T) []byte {
	if mmap.LittleEndian {
		return asBytes(s)
	}
	var b []byte
	for _, v := range s {
		switch v := any(v).(type) {
		case uint32:
			b = binary.LittleEndian.AppendUint32(b, v)
		case float32:
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		case uint64:
			b = binary.LittleEndian.AppendUint64(b, v)
		}
	}
	return b
}

// asBytes views a slice of fixed-size numbers as its bytes, in this
// machine's order (the tables' order only on a little-endian machine:
// see leBytes).
func asBytes[T uint32 | uint64 | float32 | int8](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])))
}

// tableWriter writes a new table through a buffer, copying long runs of
// the old table's file with copy_file_range (Go's io.Copy between files),
// which moves the bytes inside the kernel instead of through this
// process.
type tableWriter struct {
	*bufio.Writer
	f   *os.File
	old *os.File // the old table's file, nil when there is none
}

// minKernelCopy is the run length from which copyOld copies in the
// kernel (a variable for tests); shorter runs go through the buffer.
var minKernelCopy = 64 << 10

// tableBuffer is the size of a tableWriter's buffer. Each of its pages is
// faulted in the first time it is written, which costs more than the
// write: an update writes its new rows and short runs of the old table
// through it and copies the long runs in the kernel, so a small buffer
// serves it (a one-file run with 1 MB buffers faulted some 500 pages for
// them).
const tableBuffer = 64 << 10

// copyOld writes sub, a part of the old table's mapped file base.
func (w *tableWriter) copyOld(base, sub []byte) error {
	if w.old == nil || len(sub) < minKernelCopy {
		_, err := w.Write(sub)
		return err
	}
	off := int64(uintptr(unsafe.Pointer(unsafe.SliceData(sub))) - uintptr(unsafe.Pointer(unsafe.SliceData(base))))
	if off < 0 || off+int64(len(sub)) > int64(len(base)) {
		return fmt.Errorf("index: copy outside the old table")
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if _, err := w.old.Seek(off, io.SeekStart); err != nil {
		return err
	}
	n, err := io.Copy(w.f, io.LimitReader(w.old, int64(len(sub))))
	if err == nil && n != int64(len(sub)) {
		err = fmt.Errorf("index: old table %s is shorter than mapped", w.old.Name())
	}
	return err
}

// writeFile writes a file through a tableWriter, reporting the first
// error; oldPath ("" for none) is the old table copyOld copies from.
func writeFile(path, oldPath string, fill func(w *tableWriter) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := &tableWriter{Writer: bufio.NewWriterSize(f, tableBuffer), f: f}
	if oldPath != "" {
		if w.old, err = os.Open(oldPath); err != nil {
			return err
		}
		defer w.old.Close()
	}
	if err := fill(w); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}
