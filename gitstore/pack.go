package gitstore

import (
	"bufio"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"hash"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
)

// zstdMagic starts every zstd frame; such blobs (memory records) are
// already compressed, so the pack stores them without deflating again.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// writePackStream writes a version 2 packfile of the given objects to w,
// without deltas. go-git's encoder deflates every object at the default
// level, which made packing a third of a full extraction; records are
// zstd frames, so they are stored (deflate level 0) and the rest use the
// fastest level.
func (w *Writer) writePackStream(out io.Writer, hashes []Hash) error {
	sum := sha1.New()
	bw := bufio.NewWriterSize(io.MultiWriter(out, sum), 1<<20)
	var hdr [12]byte
	copy(hdr[:], "PACK")
	binary.BigEndian.PutUint32(hdr[4:], 2)
	binary.BigEndian.PutUint32(hdr[8:], uint32(len(hashes)))
	if _, err := bw.Write(hdr[:]); err != nil {
		return err
	}
	stored, _ := zlib.NewWriterLevel(io.Discard, zlib.NoCompression)
	fast, _ := zlib.NewWriterLevel(io.Discard, zlib.BestSpeed)
	for _, h := range hashes {
		o := w.objs[h]
		data := o.data
		if err := writeObjHeader(bw, o.t, int64(len(data))); err != nil {
			return err
		}
		z := fast
		if o.t == plumbing.BlobObject && len(data) >= 4 && string(data[:4]) == string(zstdMagic) {
			z = stored
		}
		z.Reset(bw)
		if _, err := z.Write(data); err != nil {
			return err
		}
		if err := z.Close(); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	_, err := out.Write(sum.(hash.Hash).Sum(nil))
	return err
}

// writeObjHeader writes a pack entry header: type and size, little-endian
// base-128 with the type in the first byte's bits 4-6.
func writeObjHeader(w io.ByteWriter, t plumbing.ObjectType, size int64) error {
	b := byte(t)<<4 | byte(size&0x0f)
	size >>= 4
	for size > 0 {
		if err := w.WriteByte(b | 0x80); err != nil {
			return err
		}
		b = byte(size & 0x7f)
		size >>= 7
	}
	return w.WriteByte(b)
}
