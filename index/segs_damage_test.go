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
	path, s := writeAndOpen(t, dir, b)
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

// A merge reads every entry of its segments' id order, which opening
// does not check: an order damaged within range (an entry repeated, two
// swapped) is refused there, and the update that merges builds instead.
// It wrote a segment whose id table was longer than its documents (a
// generation current and unopenable, so the update said it succeeded
// and the next reader built), or one that opened with the damage kept
// and an id findID no longer finds (so no later update could delete
// its section).
func TestSegsMergeRefusesDamagedIDOrder(t *testing.T) {
	defer func(n int64) { tailShare = n }(tailShare)
	tailShare = 1 << 40 // every update merges everything
	for _, c := range []struct {
		what  string
		order [3]uint32 // written over [0 2 1]: a (deleted), a, b
	}{
		{"a live entry twice, a deleted one missing", [3]uint32{2, 2, 1}},
		{"a deleted entry twice, a live one missing", [3]uint32{0, 0, 1}},
		{"entries out of order", [3]uint32{1, 0, 2}},
	} {
		root := t.TempDir()
		dir := filepath.Join(root, "old")
		os.MkdirAll(dir, 0o755)
		b := newSegBuilder(sectionFields)
		for _, id := range []string{"x.go#a", "x.go#b", "x.go#a"} {
			e := &docEntry{id: id}
			e.lens[textField], e.terms[textField] = 1, []fileTerm{{"w", 1}}
			e.lens[pathField], e.terms[pathField] = 1, []fileTerm{{"x", 1}}
			b.add(e)
		}
		path, s := writeAndOpen(t, dir, b)
		at := s.byID
		for i, want := range []uint32{0, 2, 1} {
			if got := s.u32(at, i); got != want {
				t.Fatalf("id order: %d at %d, want %d", got, i, want)
			}
		}
		s.unmap()
		data, _ := os.ReadFile(path)
		for i, d := range c.order {
			binary.LittleEndian.PutUint32(data[at+4*i:], d)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		next := filepath.Join(root, "next")
		fresh := &docEntry{id: "y.go#c"}
		fresh.lens[textField], fresh.terms[textField] = 1, []fileTerm{{"w", 1}}
		if err := updateSegs(dir, next, sectionFields, []string{"y.go#c"}, []*docEntry{fresh}); err != nil {
			continue // refused: the update builds instead
		}
		x, err := openSegs(next, sectionFields)
		if err != nil {
			t.Errorf("%s: the merge succeeded, and its index does not open: %v", c.what, err)
			continue
		}
		for _, id := range []string{"x.go#a", "x.go#b", "y.go#c"} {
			n := 0
			for si, s := range x.segs {
				s.findID(id, func(d int) {
					if !x.isDead(si, uint32(d)) {
						n++
					}
				})
			}
			if n != 1 || x.live != 3 {
				t.Errorf("%s: the merge succeeded, and %s is found %d times (%d live)", c.what, id, n, x.live)
			}
		}
		x.close()
	}
}

// writeAndOpen writes b as dir's segment 1.kxs and opens it.
func writeAndOpen(t *testing.T, dir string, b *segBuilder) (string, *seg) {
	t.Helper()
	path := filepath.Join(dir, "1.kxs")
	if err := writeOneSegment(dir, b); err != nil {
		t.Fatal(err)
	}
	s, err := openSeg(path, sectionFields)
	if err != nil {
		t.Fatal(err)
	}
	return path, s
}
