package memory

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Limits for decoding records, which may come from a hostile peer.
const (
	// MaxRecordSize bounds a decompressed record. The largest source file
	// that passes the gate is 10 MiB; its record (content plus metadata)
	// stays well below this.
	MaxRecordSize = 64 << 20
	// MaxCompressedSize bounds the stored (compressed) size of a record.
	MaxCompressedSize = 32 << 20
)

// ErrCorrupt marks a record or manifest that cannot be decoded.
var ErrCorrupt = errors.New("corrupt memory record")

var (
	encOnce sync.Once
	enc     *zstd.Encoder
	decOnce sync.Once
	dec     *zstd.Decoder
)

// encoder is shared by every goroutine. EncodeAll runs on one of its
// encoder states at a time, so there is one per CPU: with one, the
// sectioning workers queued for it (each compresses its own records).
// The output does not depend on which state encodes.
func encoder() *zstd.Encoder {
	encOnce.Do(func() {
		enc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0)), zstd.WithZeroFrames(true))
	})
	return enc
}

func decoder() *zstd.Decoder {
	decOnce.Do(func() {
		dec, _ = zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(0),
			zstd.WithDecoderMaxMemory(MaxRecordSize),
			zstd.WithDecoderMaxWindow(MaxRecordSize))
	})
	return dec
}

// Compress zstd-compresses b (safe for concurrent use).
func Compress(b []byte) []byte { return encoder().EncodeAll(b, make([]byte, 0, len(b)/3+64)) }

// Decompress reverses Compress, refusing output over MaxRecordSize.
func Decompress(b []byte) ([]byte, error) {
	if len(b) > MaxCompressedSize {
		return nil, fmt.Errorf("%w: %d compressed bytes, over the %d limit", ErrCorrupt, len(b), MaxCompressedSize)
	}
	out, err := decoder().DecodeAll(b, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if len(out) > MaxRecordSize {
		return nil, fmt.Errorf("%w: decompresses past %d bytes", ErrCorrupt, MaxRecordSize)
	}
	return out, nil
}

// EncodeFile serialises a file record: JSON (deterministic: struct field
// order, no maps) compressed with zstd.
func EncodeFile(f *File) ([]byte, error) {
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	if err := e.Encode(f); err != nil {
		return nil, fmt.Errorf("encode record: %w", err)
	}
	return Compress(buf.Bytes()), nil
}

// Validate checks what a decoded record must hold to be used: a version,
// a blob id, sizes and line ranges that make sense. Every decoder of
// records calls it (DecodeFile, DecodeSections). Strings need no check:
// the decoder turns invalid UTF-8 into U+FFFD, as encoding/json does.
func (f *File) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, a...))
	}
	if f.Version <= 0 {
		return bad("missing version")
	}
	if len(f.Blob) != 40 || strings.Trim(f.Blob, "0123456789abcdef") != "" {
		return bad("bad blob id %q", f.Blob)
	}
	if f.Lines < 0 || f.Size < 0 {
		return bad("negative size")
	}
	for i, s := range f.Sections {
		if s.StartLine < 0 || s.EndLine < s.StartLine {
			return bad("section %d has line range %d-%d", i, s.StartLine, s.EndLine)
		}
	}
	return nil
}
