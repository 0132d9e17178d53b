package memory

import (
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
	decOnce sync.Once
	dec     *zstd.Decoder
)

// encoders are shared by every goroutine: zstd encoders of one state
// each (its tables, a few hundred KB, are paged in on first use), as many
// as callers compress at once and at most one per CPU (with one, the
// sectioning workers queued for it; each compresses its own records).
// Compress takes the encoder used last. One zstd.Encoder with a state per
// CPU, as it was, hands its states out in turn, so a command compressing
// one thing after another (a one-file extraction: a record, then a
// history segment) paid the first use of each state: on prometheus the
// second cost as much as the first, a few ms of page faults. The output
// does not depend on which state encodes.
type encoderPool struct {
	mu   sync.Mutex
	free *sync.Cond      // an encoder was put back
	idle []*zstd.Encoder // the last one used last
	made int
}

var encoders = newEncoderPool()

func newEncoderPool() *encoderPool {
	p := &encoderPool{}
	p.free = sync.NewCond(&p.mu)
	return p
}

func (p *encoderPool) get() *zstd.Encoder {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		if n := len(p.idle); n > 0 {
			e := p.idle[n-1]
			p.idle = p.idle[:n-1]
			return e
		}
		if p.made < runtime.GOMAXPROCS(0) {
			p.made++
			e, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1), zstd.WithZeroFrames(true))
			return e
		}
		p.free.Wait()
	}
}

func (p *encoderPool) put(e *zstd.Encoder) {
	p.mu.Lock()
	p.idle = append(p.idle, e)
	p.free.Signal()
	p.mu.Unlock()
}

// compress is Compress with an encoder of p.
func (p *encoderPool) compress(b []byte) []byte {
	e := p.get()
	defer p.put(e)
	return e.EncodeAll(b, make([]byte, 0, len(b)/3+64))
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
func Compress(b []byte) []byte { return encoders.compress(b) }

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
	var w compressWriter
	e := json.NewEncoder(&w)
	e.SetEscapeHTML(false)
	if err := e.Encode(f); err != nil {
		return nil, fmt.Errorf("encode record: %w", err)
	}
	return w.out, nil
}

// compressWriter compresses what the JSON encoder writes, which is the
// whole encoding in one Write: the encoding is not copied into a buffer
// of its own first (a large record's copy was a tenth of a one-file run).
type compressWriter struct{ out []byte }

func (w *compressWriter) Write(p []byte) (int, error) {
	if w.out != nil {
		return 0, errors.New("record encoding written in two parts")
	}
	w.out = Compress(p)
	return len(p), nil
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
