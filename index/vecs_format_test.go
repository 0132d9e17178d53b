package index

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"
)

// The vector table is little-endian on every machine: written by the
// format's definition and read back as written (on a big-endian machine
// its arrays are read into copies).
func TestVectorTablesAreLittleEndian(t *testing.T) {
	const dim = 70 // two sketch words
	q := func(seed int) []int8 {
		v := make([]int8, dim)
		for i := range v {
			v[i] = int8((i*seed)%255 - 127)
		}
		return v
	}
	rows := []vecRow{{doc: 0, scale: 0.5, q: q(3)}, {doc: 2, scale: 1.25, q: q(7)}}
	var buf bytes.Buffer
	if err := appendVecs(&buf, "m", dim, rows); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	hdr := 16 + 8 // the model's name padded to 8
	n := len(rows)
	for i, r := range rows {
		if d := binary.LittleEndian.Uint32(data[hdr+4*i:]); d != r.doc {
			t.Errorf("row %d: doc %d on disk, want %d", i, d, r.doc)
		}
		if s := math.Float32frombits(binary.LittleEndian.Uint32(data[hdr+4*n+4*i:])); s != r.scale {
			t.Errorf("row %d: scale %v on disk, want %v", i, s, r.scale)
		}
		want := sketch(nil, r.q)
		for k, w := range want {
			if got := binary.LittleEndian.Uint64(data[hdr+8*n+8*(len(want)*i+k):]); got != w {
				t.Errorf("row %d: sketch word %d %x on disk, want %x", i, k, got, w)
			}
		}
	}
	vt, err := parseVecs(data, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		if vt.docs[i] != r.doc || vt.scales[i] != r.scale || !bytes.Equal(asBytes(vt.q[i*dim:(i+1)*dim]), asBytes(r.q)) {
			t.Errorf("row %d read back as doc %d scale %v", i, vt.docs[i], vt.scales[i])
		}
		want := sketch(nil, r.q)
		for k, w := range want {
			if vt.bits[len(want)*i+k] != w {
				t.Errorf("row %d: sketch word %d read back as %x, want %x", i, k, vt.bits[len(want)*i+k], w)
			}
		}
	}
}
