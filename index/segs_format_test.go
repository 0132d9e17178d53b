package index

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A segment's integers are little-endian whatever the machine (its
// format says so, and seg reads them so): its tables were written in the
// machine's own order, which on a big-endian host (s390x) made every
// segment a build or an update wrote read as damaged or empty.
func TestSegmentTablesAreLittleEndian(t *testing.T) {
	b := newSegBuilder(sectionFields)
	ids := []string{"b.go#B", "a.go#A", "c.go#C"}
	for i, id := range ids {
		e := &docEntry{id: id}
		e.lens = [maxFields]uint32{uint32(3 + i), 1, 2}
		e.terms[textField] = []fileTerm{{"x", 2}, {"y", uint32(1 + i)}}
		e.terms[nameField] = []fileTerm{{"n", 1}}
		e.terms[pathField] = []fileTerm{{"p", 1}, {"q", 1}}
		b.add(e)
	}
	path := filepath.Join(t.TempDir(), "1.kxs")
	if _, err := b.write(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The tables, read by the format's definition rather than by seg.
	f := data[len(data)-segFooter:]
	docs, terms := int(binary.LittleEndian.Uint32(f)), int(binary.LittleEndian.Uint32(f[4:]))
	postLen, idLen, keyLen := int(binary.LittleEndian.Uint64(f[8:])), int(binary.LittleEndian.Uint32(f[16:])), int(binary.LittleEndian.Uint32(f[20:]))
	if docs != 3 || terms != 5 {
		t.Fatalf("footer: %d documents, %d terms", docs, terms)
	}
	at := 8 + postLen + idLen + keyLen
	table := func(n int) []uint32 {
		out := make([]uint32, n)
		for i := range out {
			out[i] = binary.LittleEndian.Uint32(data[at+4*i:])
		}
		at += 4 * n
		return out
	}
	idOff, lens, byID := table(docs+1), table(docs*sectionFields), table(docs)
	keyOff, postOff, df := table(terms+1), table(terms+1), table(terms)
	if want := []uint32{0, 6, 12, 18}; !slices.Equal(idOff, want) {
		t.Errorf("id offsets %v, want %v", idOff, want)
	}
	if want := []uint32{3, 1, 2, 4, 1, 2, 5, 1, 2}; !slices.Equal(lens, want) {
		t.Errorf("lengths %v, want %v", lens, want)
	}
	if want := []uint32{1, 0, 2}; !slices.Equal(byID, want) {
		t.Errorf("id order %v, want %v", byID, want)
	}
	if want := []uint32{0, 2, 4, 6, 8, 10}; !slices.Equal(keyOff, want) || int(keyOff[terms]) != keyLen {
		t.Errorf("term offsets %v, want %v", keyOff, want)
	}
	if int(postOff[terms]) != postLen {
		t.Errorf("postings offsets %v, postings %d bytes", postOff, postLen)
	}
	if want := []uint32{3, 3, 3, 3, 3}; !slices.Equal(df, want) {
		t.Errorf("document counts %v, want %v", df, want)
	}
	// And what seg reads of it.
	x, err := openSegs(filepath.Dir(path), sectionFields)
	if err == nil {
		t.Fatal("no manifest, yet the index opened")
	}
	if err := writeSegsManifest(filepath.Dir(path), []segInfo{{Name: "1.kxs", Docs: 3}}); err != nil {
		t.Fatal(err)
	}
	if x, err = openSegs(filepath.Dir(path), sectionFields); err != nil {
		t.Fatal(err)
	}
	defer x.close()
	if n := x.docFreq(textField, "y"); n != 3 {
		t.Errorf("DocFreq(y) %d, want 3", n)
	}
	var found []int
	x.segs[0].findID("c.go#C", func(d int) { found = append(found, d) })
	if !slices.Equal(found, []int{2}) {
		t.Errorf("c.go#C found at %v, want [2]", found)
	}
}
