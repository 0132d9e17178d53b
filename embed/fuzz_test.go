package embed

import (
	"reflect"
	"testing"

	"github.com/konteks/git-konteks/memory"
)

// FuzzDecodeShard: a vector shard from a hostile peer decodes to sorted,
// finite vectors of one dimension that encode back to the same shard, or
// gives an error; never a panic, and decompression stays bounded.
func FuzzDecodeShard(f *testing.F) {
	good, err := EncodeShard(4, []Entry{
		{Key: Key{1}, Quantized: Quantized{Scale: 0.5, Q: []int8{1, -2, 3, -4}}},
		{Key: Key{2}, Quantized: Quantized{Scale: 1, Q: []int8{0, 0, 127, -128}}},
	})
	if err != nil {
		f.Fatal(err)
	}
	raw, _ := memory.Decompress(good)
	f.Add(raw)
	f.Add([]byte("KVS1\x00\x00\x00\x00\x00\x00"))
	f.Add([]byte("KVS1\xff\xff\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		dim, es, err := DecodeShard(memory.Compress(raw))
		if err != nil {
			return
		}
		for i, e := range es {
			if len(e.Q) != dim {
				t.Fatalf("vector %d has %d values, dimension %d", i, len(e.Q), dim)
			}
		}
		again, err := EncodeShard(dim, es)
		if err != nil {
			t.Fatalf("decoded shard does not encode: %v", err)
		}
		dim2, es2, err := DecodeShard(again)
		if err != nil || dim2 != dim || !reflect.DeepEqual(es, es2) {
			t.Fatalf("round trip: %v", err)
		}
	})
}
