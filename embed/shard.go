package embed

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/konteks/git-konteks/memory"
)

// VectorsDir is the memory tree directory holding vectors:
// vectors/<model dir>/<xxx>, xxx being the first ShardDigits hex digits of
// the embedding-text hash.
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

// ShardDigits is how many leading hex digits of a text's hash name its
// shard: 4,096 shards, so a repository of 100,000 sections keeps about 25
// vectors per shard, and a one-file change rewrites a few kilobytes per
// touched shard instead of re-encoding most of the vectors (with 256
// shards, a 300-section file touched nearly all of them: 150 ms).
const ShardDigits = 3

// ShardName is the shard file name of an embedding-text hash.
func ShardName(hash string) string {
	if len(hash) < ShardDigits {
		return strings.Repeat("0", ShardDigits)
	}
	return strings.ToLower(hash[:ShardDigits])
}

// IsShardName reports whether a file name under a model's directory is a
// shard (anything else there, such as the incomplete marker or shards of
// an older layout, is not read as vectors).
func IsShardName(name string) bool {
	if len(name) != ShardDigits {
		return false
	}
	for _, c := range name {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
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
// their entries changes; 256 shards keep that small.
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
