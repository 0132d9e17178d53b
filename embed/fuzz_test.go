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

// FuzzDecodeStatic: a model file that is not the binary's own (a model
// given to the trainer, a damaged file) decodes to a model every method
// can use, or gives an error; never a panic.
func FuzzDecodeStatic(f *testing.F) {
	good, err := EncodeStatic(3, []string{"alpha", "be", "gamma"}, [][]float32{{1, 0, -1}, {0.5, 0.5, 0}, {0, 0, 2}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:20])
	f.Add([]byte("KSTM\x01\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeStatic(b)
		if err != nil {
			return
		}
		toks, rows := m.Export()
		if len(toks) != m.Len() || len(rows) != m.Len() {
			t.Fatalf("%d tokens exported, %d rows, model of %d", len(toks), len(rows), m.Len())
		}
		for _, tok := range append(toks, "alpha", "zzz", "") {
			m.lookup(tok, false)
		}
		if v := m.Vector("alpha be gamma"); len(v) != m.Dim() {
			t.Fatalf("a vector of %d values, dimension %d", len(v), m.Dim())
		}
	})
}
