package embed

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/konteks/git-konteks/memory"
)

// VectorsDir is the memory tree directory holding the vectors of models
// memory stores (see StoredInRef): vectors/<model dir>/, laid out as a hex
// trie of small shards (see LayOut).
const VectorsDir = "vectors"

// IncompleteName is a marker file in a model's vector directory: the run
// that wrote it could not embed every text (a provider was down), so the
// next run checks every record for missing vectors instead of only the
// changed ones.
const IncompleteName = "incomplete"

// ModelDir is the tree directory name of a model's vectors: the model id
// with every byte outside [A-Za-z0-9._-] replaced by '_'.
func ModelDir(model string) string {
	var b strings.Builder
	for i := 0; i < len(model); i++ {
		c := model[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_' {
			b.WriteByte(c)
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if s == "" || s == "." || s == ".." {
		s = "_" + s
	}
	return s
}

// ModelPath is the memory tree path of a model's vector directory.
func ModelPath(model string) string { return VectorsDir + "/" + ModelDir(model) }

// The layout of a model's directory is a trie over the hex digits of the
// embedding-text hashes: every entry is named by one hex digit and is
// either a shard (a blob holding every vector whose hash starts with the
// digits of its path) or a directory of the same form one digit deeper.
// A node is a directory exactly when more than ShardMax vectors fall in it
// (the model's directory itself always is), so the layout is a function of
// the set of vectors, wherever and in whatever order they were added.
//
// Why: adding a vector rewrites one shard of at most ShardBytes and the
// 16-entry trees above it (about 0.5 KB each), so a one-file change
// writes a few kilobytes per new vector whatever the repository's size;
// the single 4,096-entry directory of the older layout made every run
// rewrite a 127 KB tree and shards of ~25 vectors each (40 KB at 1,536
// dimensions). Shard names of two or three hex digits under the model's
// directory are that older layout, still read.
//
// ShardBytes bounds a shard's encoded size before compression.
const ShardBytes = 4096

// ShardMax is how many vectors of dimension dim a shard holds at most.
func ShardMax(dim int) int { return max(1, ShardBytes/(20+dim)) }

// IsNodeName reports whether a name under a model's directory is an entry
// of the trie layout (one lowercase hex digit).
func IsNodeName(name string) bool { return len(name) == 1 && isHex(name) }

// IsLegacyShardName reports whether a name under a model's directory is a
// shard of the older flat layout (two or three hex digits).
func IsLegacyShardName(name string) bool { return len(name) >= 2 && len(name) <= 3 && isHex(name) }

func isHex(s string) bool {
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return s != ""
}

// Digit is the i-th hex digit (0-31) of a key, as a lowercase character.
func (k Key) Digit(i int) byte {
	b := k[i/2]
	if i%2 == 0 {
		b >>= 4
	}
	return "0123456789abcdef"[b&0xf]
}

// LayOut places entries (one dimension; every key sharing the first depth
// hex digits, the path of the node they go in) in the trie layout: put is
// called with each shard's path relative to the node ("" when the node
// itself is the shard, "a/3" for a shard two levels below) and its
// encoding. A node at depth 0 (a model's directory) is always a directory.
func LayOut(dim, depth int, entries []Entry, put func(rel string, shard []byte) error) error {
	es := append([]Entry(nil), entries...)
	sort.Slice(es, func(i, j int) bool { return bytes.Compare(es[i].Key[:], es[j].Key[:]) < 0 })
	es = slices.CompactFunc(es, func(a, b Entry) bool { return a.Key == b.Key })
	return layOut(dim, depth, "", es, put)
}

func layOut(dim, depth int, rel string, es []Entry, put func(string, []byte) error) error {
	if len(es) == 0 {
		return nil
	}
	if depth > 0 && len(es) <= ShardMax(dim) || depth >= 2*len(Key{}) {
		b, err := EncodeShard(dim, es)
		if err != nil {
			return err
		}
		return put(rel, b)
	}
	for lo := 0; lo < len(es); {
		d := es[lo].Key.Digit(depth)
		hi := lo + 1
		for hi < len(es) && es[hi].Key.Digit(depth) == d {
			hi++
		}
		sub := string(d)
		if rel != "" {
			sub = rel + "/" + sub
		}
		if err := layOut(dim, depth+1, sub, es[lo:hi], put); err != nil {
			return err
		}
		lo = hi
	}
	return nil
}

// Key is an embedding-text hash in binary form.
type Key [16]byte

// ParseKey parses a 32-digit hex hash (section.Hash output).
func ParseKey(s string) (Key, bool) {
	var k Key
	if len(s) != 32 {
		return k, false
	}
	if _, err := hex.Decode(k[:], []byte(s)); err != nil {
		return k, false
	}
	return k, true
}

// String is the hex form of the key.
func (k Key) String() string { return hex.EncodeToString(k[:]) }

// Entry is one stored vector.
type Entry struct {
	Key Key
	Quantized
}

// Shard format, zstd-compressed as a whole:
//
//	"KVS1" | dim uint16 LE | count uint32 LE |
//	count × ( key [16]byte | scale float32 LE | q [dim]int8 )
//
// entries sorted by key, keys unique. Shards are rewritten whole when one of
// their entries changes; the layout keeps them small (see ShardBytes).
const shardMagic = "KVS1"

// MaxShardDim bounds the dimension accepted from a (possibly hostile) shard.
const MaxShardDim = 8192

// EncodeShard serialises entries (sorted here, duplicates dropped) of one
// dimension.
func EncodeShard(dim int, entries []Entry) ([]byte, error) {
	if dim <= 0 || dim > MaxShardDim {
		return nil, fmt.Errorf("vector dimension %d out of range", dim)
	}
	es := append([]Entry(nil), entries...)
	sort.Slice(es, func(i, j int) bool { return bytes.Compare(es[i].Key[:], es[j].Key[:]) < 0 })
	n := 0
	for i := range es {
		if n > 0 && es[n-1].Key == es[i].Key {
			continue
		}
		es[n] = es[i]
		n++
	}
	es = es[:n]
	buf := make([]byte, 0, 10+len(es)*(20+dim))
	buf = append(buf, shardMagic...)
	buf = binary.LittleEndian.AppendUint16(buf, uint16(dim))
	buf = binary.LittleEndian.AppendUint32(buf, uint32(len(es)))
	for _, e := range es {
		if len(e.Q) != dim {
			return nil, fmt.Errorf("vector %s has dimension %d, want %d", e.Key, len(e.Q), dim)
		}
		buf = append(buf, e.Key[:]...)
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(e.Scale))
		for _, q := range e.Q {
			buf = append(buf, byte(q))
		}
	}
	return memory.Compress(buf), nil
}

// DecodeShard parses a shard read from a memory tree, checking its shape:
// bounded decompression, a sane dimension, exact length, finite scales and
// sorted unique keys.
func DecodeShard(b []byte) (dim int, entries []Entry, err error) {
	raw, err := memory.Decompress(b)
	if err != nil {
		return 0, nil, fmt.Errorf("vector shard: %w", err)
	}
	if len(raw) < 10 || string(raw[:4]) != shardMagic {
		return 0, nil, fmt.Errorf("vector shard: %w: bad header", memory.ErrCorrupt)
	}
	dim = int(binary.LittleEndian.Uint16(raw[4:]))
	n := int(binary.LittleEndian.Uint32(raw[6:]))
	if dim <= 0 || dim > MaxShardDim {
		return 0, nil, fmt.Errorf("vector shard: %w: dimension %d", memory.ErrCorrupt, dim)
	}
	rec := 20 + dim
	if (len(raw)-10)%rec != 0 || (len(raw)-10)/rec != n {
		return 0, nil, fmt.Errorf("vector shard: %w: %d bytes for %d vectors of %d", memory.ErrCorrupt, len(raw), n, dim)
	}
	entries = make([]Entry, n)
	qs := make([]int8, n*dim) // one allocation for every vector
	p := raw[10:]
	for i := range entries {
		e := &entries[i]
		copy(e.Key[:], p[:16])
		e.Scale = math.Float32frombits(binary.LittleEndian.Uint32(p[16:]))
		if math.IsNaN(float64(e.Scale)) || math.IsInf(float64(e.Scale), 0) || e.Scale < 0 {
			return 0, nil, fmt.Errorf("vector shard: %w: bad scale", memory.ErrCorrupt)
		}
		e.Q = qs[i*dim : (i+1)*dim : (i+1)*dim]
		for j := 0; j < dim; j++ {
			e.Q[j] = int8(p[20+j])
		}
		if i > 0 && bytes.Compare(entries[i-1].Key[:], e.Key[:]) >= 0 {
			return 0, nil, fmt.Errorf("vector shard: %w: keys out of order", memory.ErrCorrupt)
		}
		p = p[rec:]
	}
	return dim, entries, nil
}
