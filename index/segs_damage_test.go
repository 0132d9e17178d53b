package index

import (
	"encoding/binary"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
)

// findID over a damaged id order (an entry past the documents, which
// idAt reads as -1 and the search as the id "") never hands its caller
// a document out of range: an update deleting the id "" from such a
// segment listed document 4294967295 as deleted (a manifest no open
// accepts), or indexed its deleted list with -1 and panicked.
func TestSegsFindIDOverDamagedOrder(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	b := newSegBuilder(sectionFields)
	for _, e := range randomSections(rng, 6, 50, "") {
		b.add(e)
	}
	dir := filepath.Join(t.TempDir(), "old")
	os.MkdirAll(dir, 0o755)
	path := filepath.Join(dir, "1.kxs")
	in, err := b.write(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeSegsManifest(dir, []segInfo{in}); err != nil {
		t.Fatal(err)
	}
	s, err := openSeg(path, sectionFields)
	if err != nil {
		t.Fatal(err)
	}
	at := s.byID
	s.unmap()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint32(data[at:], 0xffffffff)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err = openSeg(path, sectionFields)
	if err != nil {
		t.Fatal(err)
	}
	s.findID("", func(d int) {
		if d < 0 || d >= s.docs {
			t.Errorf("findID found document %d of %d", d, s.docs)
		}
	})
	s.unmap()
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("an update from the damaged segment panicked: %v", r)
			}
		}()
		next := filepath.Join(filepath.Dir(dir), "next")
		if err := updateSegs(dir, next, sectionFields, []string{""}, nil); err != nil {
			return // an error is fine
		}
		x, err := openSegs(next, sectionFields)
		if err != nil {
			t.Errorf("the update succeeded, and its index does not open: %v", err)
			return
		}
		x.close()
	}()
}
