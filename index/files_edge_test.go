package index

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
)

// newBleveFiles is a bleve index of the files field as the files index
// was before it was the index's own.
func newBleveFiles(t *testing.T) bleve.Index {
	t.Helper()
	m := newMapping().(*mapping.IndexMappingImpl)
	fm := bleve.NewTextFieldMapping()
	fm.Analyzer, fm.Store, fm.IncludeTermVectors, fm.IncludeInAll = AnalyzerName, false, false, false
	m.DefaultMapping.AddFieldMappingsAt(fieldFile, fm)
	bl, err := bleve.NewUsing(filepath.Join(t.TempDir(), "bleve"), m, scorch.Name, scorch.Name, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bl.Close() })
	return bl
}

func sameFileHits(t *testing.T, what string, got, want []FileHit) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d files, bleve %d\n got %v\nwant %v", what, len(got), len(want), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s, rank %d: %v, bleve %v", what, i, got[i], want[i])
		}
	}
}

// The edge cases of BM25 parity that random queries rarely reach:
// a term asked twice, weights that are not integers, a term only
// deleted documents hold, a segment whose documents are all deleted,
// files of one term, frequencies past bleve's square-root cache and in
// the tens of thousands, hundreds of query terms, and odd statistics.
func TestFilesScoreAsBleveEdgeCases(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	bl := newBleveFiles(t)
	live := map[string]*fileEntry{}
	special := []*fileEntry{
		fe("one.go", 1, fileTerm{"x", 1}),
		fe("one2.go", 1, fileTerm{"y", 1}),
		fe("freq.go", 300, fileTerm{"x", 100}, fileTerm{"y", 64}, fileTerm{"z", 65}, fileTerm{"w", 71}),
		fe("huge.go", 1<<20, fileTerm{"x", 70000}, fileTerm{"z", 1 << 19}),
		fe("gone.go", 7, fileTerm{"onlygone", 7}),
	}
	files := append(special, randomFiles(rng, 60, 500, "")...)
	b := newFileBuilder()
	batch := bl.NewBatch()
	for _, e := range files {
		b.add(e)
		batch.IndexAdvanced(bleveFileDoc(e))
		live[e.id] = e
	}
	if err := bl.Batch(batch); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	dir := filepath.Join(root, "g0")
	if err := writeFiles(dir, b); err != nil {
		t.Fatal(err)
	}
	step := 0
	apply := func(gone map[string]bool, fresh []*fileEntry) {
		t.Helper()
		batch := bl.NewBatch()
		for p := range gone {
			batch.Delete(p)
			delete(live, p)
		}
		for _, e := range fresh {
			gone[e.id] = true
			batch.IndexAdvanced(bleveFileDoc(e))
			live[e.id] = e
		}
		if err := bl.Batch(batch); err != nil {
			t.Fatal(err)
		}
		step++
		next := filepath.Join(root, fmt.Sprint("g", step))
		if err := updateFiles(dir, next, gone, fresh); err != nil {
			t.Fatal(err)
		}
		os.RemoveAll(dir)
		dir = next
	}
	// A segment of its own, then all of it deleted (a small tail: no
	// merge), and a term only deleted documents hold.
	seg2 := randomFiles(rng, 3, 500, "-seg2")
	seg2 = append(seg2, fe("zz/deadterm.go", 3, fileTerm{"deadterm", 2}, fileTerm{"x", 1}))
	apply(map[string]bool{}, seg2)
	gone := map[string]bool{"gone.go": true}
	for _, e := range seg2 {
		gone[e.id] = true
	}
	apply(gone, nil)

	check := func(what string) {
		t.Helper()
		fx, err := openFiles(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer fx.close()
		card := 0
		for _, e := range live {
			card += int(e.lens[0])
		}
		vocab := []string{"x", "y", "z", "w", "onlygone", "deadterm", "absent"}
		for i := 0; i < 500; i++ {
			vocab = append(vocab, fmt.Sprintf("t%d", i))
		}
		queries := [][]Term{
			{{Text: "x", Weight: 1}, {Text: "x", Weight: 1}},
			{{Text: "x", Weight: 0.5}, {Text: "y", Weight: 1.7}, {Text: "x", Weight: 2.25}},
			{{Text: "z", Weight: 1}, {Text: "w", Weight: 1}, {Text: "y", Weight: 1}},
			{{Text: "onlygone", Weight: 1}},
			{{Text: "onlygone", Weight: 1}, {Text: "x", Weight: 1}},
			{{Text: "deadterm", Weight: 3}, {Text: "y", Weight: 0.1}},
			{{Text: "absent", Weight: 1}},
			{{Text: "x", Weight: 1e-9}, {Text: "y", Weight: 1e9}},
			{{Text: "x", Weight: 1}},
		}
		for q := 0; q < 20; q++ {
			var terms []Term
			for k := 1 + rng.Intn(400); k > 0; k-- {
				terms = append(terms, Term{Text: vocab[rng.Intn(len(vocab))], Weight: rng.Float64() * 4})
			}
			queries = append(queries, terms)
		}
		for qi, terms := range queries {
			for _, c := range []int{card, card / 3, 1, len(live) - 1, 1 << 40} {
				want := bleveFiles(t, bl, terms, len(live), c)
				got, err := fx.searchFiles(terms, len(live), c, 100000)
				if err != nil {
					t.Fatal(err)
				}
				sameFileHits(t, fmt.Sprintf("%s, query %d, card %d", what, qi, c), got, want)
			}
		}
	}
	check("after deletions")
	// Everything but the file of one term: tail merges, then few files.
	gone = map[string]bool{}
	for p := range live {
		if p != "one.go" && p != "huge.go" {
			gone[p] = true
		}
	}
	apply(gone, []*fileEntry{fe("one3.go", 1, fileTerm{"x", 1})})
	check("after deleting most")
}

// With a total length of zero (a lengthScale that rounds it down, or
// files of no terms) bleve fell back to its TF-IDF scores: Files gave
// files; the files index gives none.
func TestFilesScoreAsBleveZeroCardinality(t *testing.T) {
	bl := newBleveFiles(t)
	b := newFileBuilder()
	batch := bl.NewBatch()
	for _, e := range []*fileEntry{
		fe("a.go", 2, fileTerm{"x", 2}),
		fe("b.go", 3, fileTerm{"x", 1}, fileTerm{"y", 2}),
	} {
		b.add(e)
		batch.IndexAdvanced(bleveFileDoc(e))
	}
	if err := bl.Batch(batch); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := writeFiles(dir, b); err != nil {
		t.Fatal(err)
	}
	fx, err := openFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer fx.close()
	for qi, terms := range [][]Term{
		{{Text: "x", Weight: 1}, {Text: "y", Weight: 1}},
		{{Text: "x", Weight: 0.3}, {Text: "y", Weight: 2.5}, {Text: "x", Weight: 1}, {Text: "absent", Weight: 1}},
		{{Text: "y", Weight: 1}},
	} {
		want := bleveFiles(t, bl, terms, 2, 0)
		got, err := fx.searchFiles(terms, 2, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		sameFileHits(t, fmt.Sprintf("cardinality 0, query %d", qi), got, want)
	}
}

// An empty files index (memory of no files) opens and finds nothing, as
// an empty bleve index did.
func TestFilesEmpty(t *testing.T) {
	dir := t.TempDir()
	if err := writeFiles(dir, newFileBuilder()); err != nil {
		t.Fatal(err)
	}
	fx, err := openFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer fx.close()
	for _, c := range []int{0, 5} {
		if got, err := fx.searchFiles([]Term{{Text: "x", Weight: 1}}, 0, c, 10); err != nil || len(got) != 0 {
			t.Fatalf("%v %v", got, err)
		}
	}
	next := filepath.Join(t.TempDir(), "next")
	fresh := []*fileEntry{fe("a.go", 2, fileTerm{"x", 2})}
	if err := updateFiles(dir, next, map[string]bool{"a.go": true}, fresh); err != nil {
		t.Fatal(err)
	}
	fx2, err := openFiles(next)
	if err != nil {
		t.Fatal(err)
	}
	defer fx2.close()
	got, err := fx2.searchFiles([]Term{{Text: "x", Weight: 1}}, 1, 2, 10)
	if err != nil || len(got) != 1 || got[0].Path != "a.go" {
		t.Fatalf("%v %v", got, err)
	}
	_ = sort.Strings
}

// A manifest naming a segment twice is damage: it must be refused, not
// counted twice, and an update from it must never write through the hard
// link into the old generation's segment (copyFile truncates dst, which
// is the old segment's inode once the first link was made).
func TestFilesManifestNamesASegmentTwice(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	b := newFileBuilder()
	for _, e := range randomFiles(rng, 5, 50, "") {
		b.add(e)
	}
	dir := filepath.Join(t.TempDir(), "old")
	if err := writeFiles(dir, b); err != nil {
		t.Fatal(err)
	}
	seg := filepath.Join(dir, "1.kxs")
	good, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, filesManifest), []byte(`[{"name":"1.kxs","docs":5},{"name":"1.kxs","docs":5}]`), 0o644)
	next := filepath.Join(t.TempDir(), "next")
	uerr := updateFiles(dir, next, map[string]bool{"x.go": true}, []*fileEntry{fe("x.go", 1, fileTerm{"x", 1})})
	if now, _ := os.ReadFile(seg); len(now) != len(good) {
		t.Errorf("an update from the damaged manifest (error %v) left the old generation's segment %d bytes, was %d", uerr, len(now), len(good))
	}
	fx, err := openFiles(dir)
	if err == nil {
		live := fx.live
		fx.close()
		t.Errorf("a manifest naming a segment twice was accepted (%d live files of 5)", live)
	}
}

// A damaged segments.json is an error naming the search index, never a
// panic: every truncation and a flipped byte anywhere, with a deletion
// listed.
func TestFilesManifestDamage(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	b := newFileBuilder()
	for _, e := range randomFiles(rng, 12, 100, "") {
		b.add(e)
	}
	dir := filepath.Join(t.TempDir(), "old")
	if err := writeFiles(dir, b); err != nil {
		t.Fatal(err)
	}
	next := filepath.Join(t.TempDir(), "next")
	if err := updateFiles(dir, next, map[string]bool{"dir1/file001.go": true}, randomFiles(rng, 1, 100, "-new")); err != nil {
		t.Fatal(err)
	}
	man := filepath.Join(next, filesManifest)
	good, err := os.ReadFile(man)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", good)
	terms := []Term{{Text: "t1", Weight: 1}, {Text: "t7", Weight: 2}}
	try := func(data []byte) {
		t.Helper()
		os.WriteFile(man, data, 0o644)
		fx, err := openFiles(next)
		if err != nil {
			if !strings.Contains(err.Error(), "search index") {
				t.Errorf("%q: error does not say what is damaged: %v", data, err)
			}
			return
		}
		defer fx.close()
		fx.searchFiles(terms, 12, 20000, 10)
		os.RemoveAll(next + "2")
		updateFiles(next, next+"2", map[string]bool{"dir2/file002.go": true}, nil)
	}
	for n := 0; n < len(good); n++ {
		try(good[:n])
	}
	for i := 0; i < len(good); i++ {
		for _, x := range []byte{0x01, 0x02, 0x03, 0x04, 0x08} {
			bad := append([]byte(nil), good...)
			bad[i] ^= x
			try(bad)
		}
	}
}
