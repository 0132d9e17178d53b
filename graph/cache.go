package graph

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/mmap"
	"github.com/konteks/git-konteks/memref"
)

// The graph cache: one file per memory commit under
// $GIT_COMMON_DIR/konteks/graph/<memory commit>, local and never pushed,
// like the search index. It holds, per file (in path order):
//
//   - its entities and edges, imports resolved (what `git konteks graph`
//     answers from, instead of decoding every record);
//   - the names it defines and the identifiers it names (hashed), from
//     which reference edges are derived;
//   - the file graph: weighted out- and in-edges (imports + references) as
//     compressed sparse rows, and a global PageRank.
//
// Layout: an 8-byte magic, a section count, a table of (id, offset,
// length, CRC-32C) and the sections, each 8-byte aligned so that arrays
// are used in place from a read-only mmap. A section's checksum is checked
// when it is first used; a damaged or truncated file is an error, and Open
// builds a new one.

const (
	cacheMagic = "KGRAPH2\n"
	// CacheVersion changes with what the cache holds or how edges are
	// weighed; a file of another version is rebuilt.
	CacheVersion = 3
)

// Section ids.
const (
	secMeta   = 1 // JSON
	secPaths  = 2 // string table
	secBlocks = 3 // u32 offsets[n+1] + per-file blocks (entities, edges)
	secDefs   = 4 // u32 offsets[n+1] + u32 name hashes
	secRefs   = 5 // u32 offsets[n+1] + u32 name hashes + u8 counts
	secOut    = 6 // u32 offsets[n+1] + u32 targets + f32 weights
	secIn     = 7 // the same, reversed
	secRank   = 8 // f32 global PageRank per file, mean 1
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// errCache marks a damaged cache file.
var errCache = errors.New("graph cache damaged")

// cacheMeta describes a cache file.
type cacheMeta struct {
	Version    int       `json:"version"`
	Memory     string    `json:"memory"`
	Tree       string    `json:"tree"`
	SourceTree string    `json:"source_tree"`
	Files      int       `json:"files"`
	Edges      int       `json:"edges"`
	Built      time.Time `json:"built"`
	How        string    `json:"how"` // build or update
	Changes    int       `json:"changes,omitempty"`
	TookMS     int64     `json:"took_ms"`
}

// section is one section of an open cache file.
type section struct {
	data    []byte
	crc     uint32
	checked bool
}

// cacheFile is an open (mapped) cache file.
type cacheFile struct {
	buf   []byte
	unmap func() error
	secs  map[uint32]*section
	meta  cacheMeta
	n     int
}

// sec returns a section's bytes, its checksum verified on first use.
func (c *cacheFile) sec(id uint32) ([]byte, error) {
	s := c.secs[id]
	if s == nil {
		return nil, fmt.Errorf("%w: no section %d", errCache, id)
	}
	if !s.checked {
		if crc32.Checksum(s.data, crcTable) != s.crc {
			return nil, fmt.Errorf("%w: section %d checksum", errCache, id)
		}
		s.checked = true
	}
	return s.data, nil
}

// rows reads section id as a row table of one row per file, items of elem
// bytes (see rows).
func (c *cacheFile) rows(id uint32, elem int) ([]uint32, []byte, error) {
	b, err := c.sec(id)
	if err != nil {
		return nil, nil, err
	}
	return rows(b, c.n, elem)
}

func (c *cacheFile) close() {
	if c != nil && c.unmap != nil {
		c.unmap()
		c.unmap = nil
	}
}

// openCacheFile maps and checks the frame of a cache file.
func openCacheFile(p string) (*cacheFile, error) {
	buf, unmap, err := mapFile(p)
	if err != nil {
		return nil, err
	}
	c := &cacheFile{buf: buf, unmap: unmap, secs: map[uint32]*section{}}
	fail := func(why string) (*cacheFile, error) {
		c.close()
		return nil, fmt.Errorf("%w: %s: %s", errCache, filepath.Base(p), why)
	}
	if len(buf) < 16 || string(buf[:8]) != cacheMagic {
		return fail("bad magic")
	}
	ns := int(binary.LittleEndian.Uint32(buf[8:]))
	if ns > 64 || 16+ns*24 > len(buf) {
		return fail("bad section table")
	}
	for i := 0; i < ns; i++ {
		e := buf[16+i*24:]
		id := binary.LittleEndian.Uint32(e)
		off := binary.LittleEndian.Uint64(e[4:])
		ln := binary.LittleEndian.Uint64(e[12:])
		crc := binary.LittleEndian.Uint32(e[20:])
		if off%8 != 0 || off > uint64(len(buf)) || ln > uint64(len(buf))-off {
			return fail("section out of bounds")
		}
		c.secs[id] = &section{data: buf[off : off+ln], crc: crc}
	}
	mb, err := c.sec(secMeta)
	if err != nil {
		c.close()
		return nil, err
	}
	if err := json.Unmarshal(mb, &c.meta); err != nil {
		return fail("meta: " + err.Error())
	}
	if c.meta.Version != CacheVersion {
		return fail("version " + strconv.Itoa(c.meta.Version))
	}
	c.n = c.meta.Files
	return c, nil
}

// cacheWriter assembles the sections of a cache file.
type cacheWriter struct {
	ids  []uint32
	data [][]byte
}

func (w *cacheWriter) add(id uint32, b []byte) {
	w.ids = append(w.ids, id)
	w.data = append(w.data, b)
}

// write writes the file atomically (a temporary file renamed over p).
func (w *cacheWriter) write(p string) error {
	return mmap.Replace(p, func(bw *bufio.Writer) error {
		head := make([]byte, 16+24*len(w.ids))
		copy(head, cacheMagic)
		binary.LittleEndian.PutUint32(head[8:], uint32(len(w.ids)))
		off := uint64(align8(len(head)))
		for i, id := range w.ids {
			e := head[16+i*24:]
			binary.LittleEndian.PutUint32(e, id)
			binary.LittleEndian.PutUint64(e[4:], off)
			binary.LittleEndian.PutUint64(e[12:], uint64(len(w.data[i])))
			binary.LittleEndian.PutUint32(e[20:], crc32.Checksum(w.data[i], crcTable))
			off += uint64(align8(len(w.data[i])))
		}
		var zeros [8]byte
		bw.Write(head)
		bw.Write(zeros[:align8(len(head))-len(head)])
		for _, b := range w.data {
			bw.Write(b)
			bw.Write(zeros[:align8(len(b))-len(b)])
		}
		return nil
	})
}

func align8(n int) int { return (n + 7) &^ 7 }

// Arrays in sections. On little-endian machines (all this tool runs on in
// practice) they are used in place; elsewhere they are decoded once.

func u32s(b []byte) []uint32 {
	n := len(b) / 4
	if n == 0 {
		return nil
	}
	if mmap.LittleEndian && uintptr(unsafe.Pointer(&b[0]))%4 == 0 {
		return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), n)
	}
	out := make([]uint32, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[i*4:])
	}
	return out
}

func f32s(b []byte) []float32 {
	u := u32s(b)
	if len(u) == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&u[0])), len(u))
}

func putU32s(b []byte, xs []uint32) []byte {
	for _, x := range xs {
		b = binary.LittleEndian.AppendUint32(b, x)
	}
	return b
}

func putF32s(b []byte, xs []float32) []byte {
	for _, x := range xs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// rows is a u32 offsets[n+1] prefix followed by row data: it checks the
// offsets and returns them and the rest.
func rows(b []byte, n int, elem int) ([]uint32, []byte, error) {
	if len(b) < 4*(n+1) {
		return nil, nil, fmt.Errorf("%w: short row table", errCache)
	}
	off := u32s(b[:4*(n+1)])
	rest := b[4*(n+1):]
	if off[0] != 0 {
		return nil, nil, fmt.Errorf("%w: row table", errCache)
	}
	for i := 1; i <= n; i++ {
		if off[i] < off[i-1] {
			return nil, nil, fmt.Errorf("%w: row table order", errCache)
		}
	}
	if int(off[n])*elem > len(rest) {
		return nil, nil, fmt.Errorf("%w: row data", errCache)
	}
	return off, rest, nil
}

// strtab is a table of strings: u32 count, u32 offsets[count+1], bytes.
type strtab struct {
	off  []uint32
	data []byte
}

func parseStrtab(b []byte) (strtab, error) {
	if len(b) < 4 {
		return strtab{}, fmt.Errorf("%w: string table", errCache)
	}
	n := int(binary.LittleEndian.Uint32(b))
	if 4+4*(n+1) > len(b) {
		return strtab{}, fmt.Errorf("%w: string table", errCache)
	}
	off := u32s(b[4 : 4+4*(n+1)])
	data := b[4+4*(n+1):]
	for i := 1; i <= n; i++ {
		if off[i] < off[i-1] {
			return strtab{}, fmt.Errorf("%w: string table order", errCache)
		}
	}
	if n > 0 && int(off[n]) > len(data) {
		return strtab{}, fmt.Errorf("%w: string table data", errCache)
	}
	return strtab{off, data}, nil
}

func (t strtab) len() int { return max(len(t.off)-1, 0) }

// at returns string i without copying (valid while the file is mapped).
func (t strtab) at(i int) string {
	b := t.data[t.off[i]:t.off[i+1]]
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// find returns the index of s in a sorted table, or -1.
func (t strtab) find(s string) int {
	i := sort.Search(t.len(), func(i int) bool { return t.at(i) >= s })
	if i < t.len() && t.at(i) == s {
		return i
	}
	return -1
}

func encodeStrtab(ss []string) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(ss)))
	var o uint32
	b = binary.LittleEndian.AppendUint32(b, 0)
	for _, s := range ss {
		o += uint32(len(s))
		b = binary.LittleEndian.AppendUint32(b, o)
	}
	for _, s := range ss {
		b = append(b, s...)
	}
	return b
}

// mapFile maps a cache file read-only; an empty or absurdly large one is
// not a cache this package wrote.
func mapFile(p string) ([]byte, func() error, error) {
	b, unmap, err := mmap.File(p)
	if err != nil {
		return nil, nil, err
	}
	if len(b) == 0 || len(b) > 1<<34 {
		unmap()
		return nil, nil, fmt.Errorf("%w: %s: size %d", errCache, filepath.Base(p), len(b))
	}
	return b, unmap, nil
}

// CacheDir is the graph cache's directory under the state dir.
func CacheDir(repo *gitstore.Repo) (string, error) {
	return repo.StateSubdir("graph")
}

// cachePath is the cache file of a memory commit.
func cachePath(dir string, mem *memref.Memory) string {
	return filepath.Join(dir, mem.Commit.String())
}

// keepCaches is how many cache files stay besides the newest.
const keepCaches = 2

// pruneCaches removes all but the newest few cache files, and temporary
// files left by a crash.
func pruneCaches(dir, keep string) {
	es, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type ent struct {
		name string
		mod  time.Time
	}
	var list []ent
	for _, e := range es {
		fi, err := e.Info()
		if err != nil {
			continue
		}
		if strings.Contains(e.Name(), ".tmp") {
			if time.Since(fi.ModTime()) > 10*time.Minute {
				os.Remove(filepath.Join(dir, e.Name()))
			}
			continue
		}
		if e.Name() != keep {
			list = append(list, ent{e.Name(), fi.ModTime()})
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].mod.After(list[j].mod) })
	for i, e := range list {
		if i >= keepCaches {
			os.Remove(filepath.Join(dir, e.name))
		}
	}
}

// newestCache opens the most recently written cache file other than the
// one named skip, as the base of an update.
func newestCache(dir, skip string) *cacheFile {
	es, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var best string
	var bestT time.Time
	for _, e := range es {
		if e.Name() == skip || strings.Contains(e.Name(), ".tmp") || e.IsDir() {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.ModTime().After(bestT) {
			best, bestT = e.Name(), fi.ModTime()
		}
	}
	if best == "" {
		return nil
	}
	c, err := openCacheFile(filepath.Join(dir, best))
	if err != nil {
		return nil
	}
	return c
}
