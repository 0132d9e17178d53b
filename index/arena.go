package index

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"math"
	"os"
	"slices"
	"unsafe"

	"github.com/konteks/git-konteks/embed"
	"github.com/konteks/git-konteks/internal/mmap"
)

// docArena holds what a cold build keeps of every section until the
// tables are written: its docs.bin record, its vectors' keys and, for a
// model whose vectors the index computes, the vectors themselves. Keys,
// scales and entries live in pointer-free slices the collector never
// scans (on rails, 59,000 sections held as Docs and per-section slices
// took 80 MB of live heap, mostly small objects marked again on every
// cycle). The records and the vectors' components go further: to two
// files in the generation being built, as they arrive, mapped once every
// section is in (seal). Both are written once and read when the tables
// are written; on the Go tree they were 52 MB of the 150 MB a build kept
// live under the heap's 180 MB soft limit, where every megabyte of
// headroom is collector time.
type docArena struct {
	ents []arenaEnt // a section's record and keys, in arrival order
	keys []embed.Key
	// With computed vectors (dim > 0): per key, the vector's scale, its
	// components (the i-th run of dim in q) and whether it may go into
	// the local cache.
	dim       int
	scales    []float32
	cacheable []bool
	// The records, as docs.bin encodes them, and the components.
	recs, q *spillFile

	buf []byte // scratch: the record being added
}

// newDocArena makes an arena whose files are in dir (the generation being
// built: a failed or interrupted build's cleanup removes it with them),
// for vectors of dim components (0: none computed). Call seal once the
// last section is in, before anything is read back, and close at the end.
func newDocArena(dir string, dim int) (*docArena, error) {
	a := &docArena{dim: dim}
	var err error
	if a.recs, err = newSpillFile(dir); err == nil {
		a.q, err = newSpillFile(dir)
	}
	if err != nil {
		a.close()
		return nil, err
	}
	return a, nil
}

// seal maps the records and components.
func (a *docArena) seal() error {
	if err := a.recs.seal(); err != nil {
		return err
	}
	if err := a.q.seal(); err != nil {
		return err
	}
	if a.dim > 0 && len(a.q.b) != len(a.keys)*a.dim {
		return fmt.Errorf("index: spilled vectors: %d bytes for %d vectors", len(a.q.b), len(a.keys))
	}
	return nil
}

// close drops the files. Nothing read from the arena may be used after
// it (records and vectors point into the mapped files).
func (a *docArena) close() {
	a.recs.close()
	a.q.close()
}

// spillFile is an append-only file of a build's bulk data: written
// through a buffer, then mapped read-only, then removed.
type spillFile struct {
	f     *os.File
	w     *bufio.Writer
	n     uint64 // bytes written
	b     []byte // the mapped file, once sealed
	unmap func() error
}

func newSpillFile(dir string) (*spillFile, error) {
	f, err := os.CreateTemp(dir, "arena-*.spill")
	if err != nil {
		return nil, err
	}
	return &spillFile{f: f, w: bufio.NewWriterSize(f, 256<<10)}, nil
}

// add appends p and returns where it starts. A write error is kept by
// the buffer and reported by seal.
func (s *spillFile) add(p []byte) uint64 {
	at := s.n
	s.w.Write(p)
	s.n += uint64(len(p))
	return at
}

func (s *spillFile) seal() error {
	if s.b != nil || s.n == 0 {
		return nil
	}
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("index: spill: %w", err)
	}
	b, unmap, err := mmap.File(s.f.Name())
	if err != nil {
		return fmt.Errorf("index: spill: %w", err)
	}
	if uint64(len(b)) != s.n {
		unmap()
		return fmt.Errorf("index: spill %s: %d bytes, %d written", s.f.Name(), len(b), s.n)
	}
	s.b, s.unmap = b, unmap
	return nil
}

func (s *spillFile) close() {
	if s == nil || s.f == nil {
		return
	}
	if s.unmap != nil {
		s.unmap()
		s.unmap, s.b = nil, nil
	}
	s.f.Close()
	os.Remove(s.f.Name())
	s.f = nil
}

func asInt8(b []byte) []int8 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*int8)(unsafe.Pointer(unsafe.SliceData(b))), len(b))
}

// arenaEnt is one section: its record (n bytes at off in recs) and
// keys[k0:k1].
type arenaEnt struct {
	off    uint64
	n      uint32
	k0, k1 uint32
}

var errArenaFull = errors.New("index: the memory's sections exceed what one index table holds (4 GB of records)")

// add appends a section. With computed vectors, a section whose vectors
// are missing keeps no keys (it has no vector row either way).
func (a *docArena) add(d *sectionDoc) error {
	a.buf = appendDoc(a.buf[:0], &d.doc)
	if len(a.buf) > math.MaxUint32 || len(a.keys)+len(d.keys) > math.MaxUint32 {
		return errArenaFull
	}
	e := arenaEnt{off: a.recs.add(a.buf), n: uint32(len(a.buf)), k0: uint32(len(a.keys))}
	switch {
	case a.dim == 0:
		a.keys = append(a.keys, d.keys...)
	case len(d.vecs) == len(d.keys):
		for i, v := range d.vecs {
			if len(v.Q) != a.dim {
				return fmt.Errorf("index: a vector of %s has %d dimensions, the model %d", d.doc.ID, len(v.Q), a.dim)
			}
			a.keys = append(a.keys, d.keys[i])
			a.scales = append(a.scales, v.Scale)
			a.q.add(asBytes(v.Q))
			a.cacheable = append(a.cacheable, i < len(d.fresh) && d.fresh[i])
		}
	}
	e.k1 = uint32(len(a.keys))
	a.ents = append(a.ents, e)
	return nil
}

func (a *docArena) rec(e arenaEnt) []byte { return a.recs.b[e.off : e.off+uint64(e.n)] }

// vec is the components of the vector of key i (with computed vectors).
func (a *docArena) vec(i uint32) []int8 { return asInt8(a.q.b[int(i)*a.dim : int(i+1)*a.dim]) }

// sorted is the sections in id order, each id once (the first to arrive
// of a record's sections with the same anchor), as the docs table wants
// them.
func (a *docArena) sorted() []arenaEnt {
	out := slices.Clone(a.ents)
	slices.SortStableFunc(out, func(x, y arenaEnt) int { return bytes.Compare(recordID(a.rec(x)), recordID(a.rec(y))) })
	return slices.CompactFunc(out, func(x, y arenaEnt) bool { return bytes.Equal(recordID(a.rec(x)), recordID(a.rec(y))) })
}

// docs yields the docs of ents, decoded one at a time into the same Doc.
func (a *docArena) docs(ents []arenaEnt) iter.Seq[*Doc] { return a.decoded(ents, decodeDoc) }

// decoded yields the docs of ents, each decoded by decode into the same
// Doc.
func (a *docArena) decoded(ents []arenaEnt, decode func([]byte) Doc) iter.Seq[*Doc] {
	return func(yield func(*Doc) bool) {
		var d Doc
		for _, e := range ents {
			d = decode(a.rec(e))
			if !yield(&d) {
				return
			}
		}
	}
}

// stats yields the docs of ents as docStats reads them (statDoc): path,
// language and field lengths, read in place. Decoding every doc whole
// for them allocated all their strings only to drop them (0.2 s of a
// cold build on rails).
func (a *docArena) stats(ents []arenaEnt) iter.Seq[*Doc] { return a.decoded(ents, statDoc) }

// writeDocs writes the docs table of ents (in id order) to path, record
// by record, without a copy of the table in memory.
func (a *docArena) writeDocs(path string, ents []arenaEnt) error {
	var size uint64
	for _, e := range ents {
		size += uint64(e.n)
	}
	if size > math.MaxUint32 {
		return errArenaFull
	}
	return writeFile(path, "", func(w *tableWriter) error {
		var b [4]byte
		u32 := func(v uint32) {
			binary.LittleEndian.PutUint32(b[:], v)
			w.Write(b[:])
		}
		w.WriteString(docsMagic)
		u32(uint32(len(ents)))
		off := uint32(0)
		for _, e := range ents {
			u32(off)
			off += e.n
		}
		u32(off)
		for _, e := range ents {
			w.Write(a.rec(e))
		}
		return nil
	})
}
