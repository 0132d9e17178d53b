package memory

import (
	"strings"
	"testing"
)

// FuzzDecodeFile: a record from a peer's memory is refused with
// ErrCorrupt or decoded into a valid record that encodes again; no input
// panics or decodes past the size limits.
func FuzzDecodeFile(f *testing.F) {
	good, err := EncodeFile(&File{Version: RecordVersion, Blob: strings.Repeat("ab", 20), Size: 12, Lines: 2, Kind: "code", Language: "Go", Parser: "tree-sitter"})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(Compress([]byte(`{"version":1,"sections":[{"start_line":-1}]}`)))
	f.Add(Compress([]byte(`{} {}`)))
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd})
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, err := DecodeFile(b)
		if err != nil {
			return
		}
		if _, err := EncodeFile(rec); err != nil {
			t.Fatalf("a decoded record does not encode: %v", err)
		}
	})
}
