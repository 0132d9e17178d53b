package memref

import (
	"context"
	"fmt"

	"github.com/klauspost/compress/zstd"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
)

// Budget bounds what reading one peer's memory may cost: bytes
// decompressed in total (each record is bounded by memory.MaxRecordSize
// on its own, but many records just under it would cost minutes) and a
// deadline carried by ctx. A peer that exceeds it is refused after one
// bounded attempt.
type Budget struct {
	ctx  context.Context
	left int64
	seen map[gitstore.Hash]bool
}

// NewBudget allows max decompressed bytes until ctx ends.
func NewBudget(ctx context.Context, max int64) *Budget {
	return &Budget{ctx: ctx, left: max, seen: map[gitstore.Hash]bool{}}
}

// ErrOverBudget marks memory refused for what it would cost to read.
var ErrOverBudget = fmt.Errorf("%w: over the read budget", ErrCorrupt)

func (b *Budget) take(n int64, what string) error {
	if err := b.ctx.Err(); err != nil {
		return fmt.Errorf("%w: reading took too long (%v) at %s", ErrOverBudget, err, what)
	}
	if n > b.left {
		return fmt.Errorf("%w: %s decompresses to %d bytes, more than the %d left of this memory's budget", ErrOverBudget, what, n, b.left)
	}
	b.left -= n
	return nil
}

// DecodeRecordWithin checks that the record h decodes as DecodeRecord
// would decode it, under a budget; nothing of it is kept, so it is
// decoded as memory.DecodeSections decodes (which accepts and refuses
// what DecodeFile does, without copying every string out). A blob
// already checked under this budget costs nothing again (one small blob
// behind many paths is read once), and a frame that declares more than
// the budget has left is refused before it is decompressed.
func DecodeRecordWithin(b *Budget, repo *gitstore.Repo, h gitstore.Hash, p string) error {
	if b.seen[h] {
		return b.take(0, "record of "+p)
	}
	raw, err := repo.BlobBytes(h, memory.MaxCompressedSize)
	if err != nil {
		return fmt.Errorf("%w: record of %s: %v", ErrCorrupt, p, err)
	}
	var hd zstd.Header
	if hd.Decode(raw) == nil && hd.HasFCS && singleFrame(raw, hd) {
		// One frame that declares its size (as the memory codec writes
		// records): the decoder holds it to that size, so the declared
		// size is charged before anything is decompressed.
		if err := b.take(int64(hd.FrameContentSize), "record of "+p); err != nil {
			return err
		}
	} else {
		// Anything else is measured by decompressing it (at most
		// memory.MaxRecordSize) before it is parsed.
		out, err := memory.Decompress(raw)
		if err != nil {
			return fmt.Errorf("%w: record of %s: %v", ErrCorrupt, p, err)
		}
		if err := b.take(int64(len(out)), "record of "+p); err != nil {
			return err
		}
	}
	if _, err := memory.DecodeSections(raw); err != nil {
		return fmt.Errorf("%w: record of %s: %v", ErrCorrupt, p, err)
	}
	b.seen[h] = true
	return nil
}

// singleFrame reports whether raw is exactly one zstd frame, by walking
// its block headers (RFC 8878 3.1.1.2) without decompressing anything.
func singleFrame(raw []byte, hd zstd.Header) bool {
	if hd.Skippable || hd.HeaderSize <= 0 {
		return false
	}
	i := hd.HeaderSize
	for {
		if i+3 > len(raw) {
			return false
		}
		bh := uint32(raw[i]) | uint32(raw[i+1])<<8 | uint32(raw[i+2])<<16
		i += 3
		last, typ, size := bh&1 == 1, (bh>>1)&3, int(bh>>3)
		switch typ {
		case 0, 2: // raw, compressed: size bytes follow
			i += size
		case 1: // RLE: one byte
			i++
		default:
			return false
		}
		if last {
			break
		}
	}
	if hd.HasCheckSum {
		i += 4
	}
	return i == len(raw)
}
