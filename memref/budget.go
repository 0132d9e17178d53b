package memref

import (
	"context"
	"fmt"
	"sync"

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
	mu   sync.Mutex // guards left and seen: Charge is called from the index build's workers
	left int64
	seen map[gitstore.Hash]bool // records DecodeRecordWithin decoded
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
	b.mu.Lock()
	if b.seen[h] {
		defer b.mu.Unlock()
		return b.take(0, "record of "+p)
	}
	b.mu.Unlock()
	raw, err := repo.BlobBytes(h, memory.MaxCompressedSize)
	if err != nil {
		return fmt.Errorf("%w: record of %s: %v", ErrCorrupt, p, err)
	}
	if err := b.Charge(raw, p); err != nil {
		return err
	}
	if _, err := memory.DecodeSections(raw); err != nil {
		return fmt.Errorf("%w: record of %s: %v", ErrCorrupt, p, err)
	}
	b.mu.Lock()
	b.seen[h] = true
	b.mu.Unlock()
	return nil
}

// Charge takes from the budget what decoding raw, the stored record at
// path p, will decompress, before it is decoded: the size a single frame
// declares (the decoder holds it to that size), or else the size it
// decompresses to, measured. Every call is charged: a reader that decodes
// a record once for each path naming it (the search index built from a
// peer's memory before it is adopted, share.Indexer) pays for each, so
// one large blob behind many paths cannot cost more than the budget.
// Safe for concurrent use.
func (b *Budget) Charge(raw []byte, p string) error {
	var hd zstd.Header
	n := int64(0)
	if hd.Decode(raw) == nil && hd.HasFCS && singleFrame(raw, hd) {
		// One frame that declares its size (as the memory codec writes
		// records): the declared size is charged before anything is
		// decompressed.
		n = int64(hd.FrameContentSize)
	} else {
		// Anything else is measured by decompressing it (at most
		// memory.MaxRecordSize) before it is parsed.
		out, err := memory.Decompress(raw)
		if err != nil {
			return fmt.Errorf("%w: record of %s: %v", ErrCorrupt, p, err)
		}
		n = int64(len(out))
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.take(n, "record of "+p)
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
