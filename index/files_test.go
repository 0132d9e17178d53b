package index

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/search/query"
)

// randomFiles makes n whole-file documents of Zipf-distributed terms;
// paths are unique, lengths from one term to a few thousand.
func randomFiles(rng *rand.Rand, n, vocab int, tag string) []*fileEntry {
	z := rand.NewZipf(rng, 1.1, 2, uint64(vocab-1))
	out := make([]*fileEntry, 0, n)
	for i := 0; i < n; i++ {
		e := &fileEntry{id: fmt.Sprintf("dir%d/file%03d%s.go", i%7, i, tag)}
		counts := map[string]uint32{}
		var order []string
		for k := 1 + rng.Intn(3000); k > 0; k-- {
			t := fmt.Sprintf("t%d", z.Uint64())
			if counts[t] == 0 {
				order = append(order, t)
			}
			counts[t]++
			e.lens[0]++
		}
		for _, t := range order {
			e.terms[0] = append(e.terms[0], fileTerm{t, counts[t]})
		}
		out = append(out, e)
	}
	return out
}

// bleveFileDoc is e as the bleve document the files index was before it
// was the index's own.
func bleveFileDoc(e *fileEntry) *document.Document {
	d := document.NewDocument(e.id)
	d.AddField(bleveField(fieldFile, e.lens[0], e.terms[0]))
	return d
}

// bleveFiles ranks by bleve's BM25 as Files did: a disjunction of boosted
// term queries with the generation's statistics.
func bleveFiles(t *testing.T, bl bleve.Index, terms []Term, docs, card int) []FileHit {
	t.Helper()
	var qs []query.Query
	for _, term := range terms {
		tq := query.NewTermQuery(term.Text)
		tq.SetField(fieldFile)
		tq.SetBoost(term.Weight)
		qs = append(qs, tq)
	}
	var out []FileHit
	for _, h := range bleveRanked(t, bl, query.NewDisjunctionQuery(qs), docs, map[string]int{fieldFile: card}) {
		out = append(out, FileHit{Path: h.id, Score: h.score})
	}
	return out
}

// The files index scores as bleve's BM25 did, to the bit, through a
// build and a chain of updates (deletions, added segments, merges): the
// ranker's weights were fitted on bleve's scores.
func TestFilesScoreAsBleve(t *testing.T) {
	seed := time.Now().UnixNano()
	if s := os.Getenv("FILES_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	const vocab = 3000
	files := randomFiles(rng, 150, vocab, "")

	bl := newBleveFiles(t)
	batch := bl.NewBatch()
	b := newFileBuilder()
	live := map[string]*fileEntry{}
	for _, e := range files {
		batch.IndexAdvanced(bleveFileDoc(e))
		b.add(e)
		live[e.id] = e
	}
	if err := bl.Batch(batch); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "g0")
	if err := writeFiles(dir, b); err != nil {
		t.Fatal(err)
	}
	check := func(step int) {
		t.Helper()
		fx, err := openFiles(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer fx.close()
		if fx.live != len(live) {
			t.Fatalf("step %d: %d live files, want %d", step, fx.live, len(live))
		}
		card := 0
		for _, e := range live {
			card += int(e.lens[0])
		}
		for q := 0; q < 15; q++ {
			var terms []Term
			for k := 1 + rng.Intn(40); k > 0; k-- {
				// Mostly terms of the vocabulary, some absent.
				terms = append(terms, Term{Text: fmt.Sprintf("t%d", rng.Intn(vocab+200)), Weight: float64(1 + rng.Intn(3))})
			}
			scale := []float64{1, 0.5, 0.2}[q%3]
			c := int(float64(card) * scale)
			want := bleveFiles(t, bl, terms, len(live), c)
			got, err := fx.searchFiles(terms, len(live), c, 100000)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("step %d query %d: %d files, bleve %d", step, q, len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("step %d query %d, rank %d: %v, bleve %v", step, q, i, got[i], want[i])
				}
			}
		}
	}
	check(0)
	for step := 1; step <= 12; step++ {
		// Change a few files, delete one, add one.
		gone := map[string]bool{}
		var fresh []*fileEntry
		batch := bl.NewBatch()
		paths := make([]string, 0, len(live))
		for p := range live {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		for k := rng.Intn(4); k >= 0; k-- {
			p := paths[rng.Intn(len(paths))]
			for gone[p] {
				// Each path once: an update's changes name a path once.
				p = paths[rng.Intn(len(paths))]
			}
			gone[p] = true
			batch.Delete(p)
			delete(live, p)
			if k > 0 {
				e := randomFiles(rng, 1, vocab, "")[0]
				e.id = p
				fresh = append(fresh, e)
			}
		}
		if step%4 == 0 {
			// Many at once: the tail outgrows an eighth of the base.
			fresh = append(fresh, randomFiles(rng, 30, vocab, fmt.Sprintf("-s%d", step))...)
		} else {
			fresh = append(fresh, randomFiles(rng, 1, vocab, fmt.Sprintf("-s%d", step))...)
		}
		for _, e := range fresh {
			gone[e.id] = true
			batch.IndexAdvanced(bleveFileDoc(e))
			live[e.id] = e
		}
		if err := bl.Batch(batch); err != nil {
			t.Fatal(err)
		}
		next := filepath.Join(filepath.Dir(dir), fmt.Sprintf("g%d", step))
		if err := updateFiles(dir, next, gone, fresh); err != nil {
			t.Fatal(err)
		}
		os.RemoveAll(dir)
		dir = next
		check(step)
	}
	segs, _ := filepath.Glob(filepath.Join(dir, "*.kxs"))
	if len(segs) > 1+tailSegments {
		t.Fatalf("%d segments: %v", len(segs), segs)
	}
}

// A damaged files index is an error naming it, never a panic: every
// truncation and a flipped byte in each part of a segment.
func TestFilesSegmentDamage(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	b := newFileBuilder()
	for _, e := range randomFiles(rng, 20, 200, "") {
		b.add(e)
	}
	dir := t.TempDir()
	if err := writeFiles(dir, b); err != nil {
		t.Fatal(err)
	}
	seg := filepath.Join(dir, "1.kxs")
	good, err := os.ReadFile(seg)
	if err != nil {
		t.Fatal(err)
	}
	s, err := openSeg(seg, 1)
	if err != nil {
		t.Fatal(err)
	}
	blobs, tables := s.postb, s.idOff // the postings, ids and terms lie between
	s.unmap()
	terms := []Term{{Text: "t1", Weight: 1}, {Text: "t7", Weight: 2}, {Text: "t150", Weight: 1}}
	try := func(data []byte) {
		t.Helper()
		if err := os.WriteFile(seg, data, 0o644); err != nil {
			t.Fatal(err)
		}
		fx, err := openFiles(dir)
		if err != nil {
			if !strings.Contains(err.Error(), "search index") {
				t.Fatalf("error does not say what is damaged: %v", err)
			}
			return
		}
		defer fx.close()
		fx.searchFiles(terms, 20, 20000, 10) // an error or hits, no panic
	}
	for n := 0; n < len(good); n += 1 + n/16 {
		try(good[:n])
	}
	// Every byte of the header, tables and footer, then a sample of the
	// postings, ids and terms (every byte took seconds under -race).
	for i := 0; i < len(good); i++ {
		if i >= blobs && i < tables && i%7 != 0 {
			continue
		}
		bad := append([]byte(nil), good...)
		bad[i] ^= 0x5a
		try(bad)
	}
	os.WriteFile(seg, good, 0o644)
	os.WriteFile(filepath.Join(dir, filesManifest), []byte(`[{"name":"../1.kxs","docs":20}]`), 0o644)
	if _, err := openFiles(dir); err == nil {
		t.Fatal("a segment name out of the directory was accepted")
	}
	os.WriteFile(filepath.Join(dir, filesManifest), []byte(`[{"name":"1.kxs","docs":20,"deleted":[20]}]`), 0o644)
	if _, err := openFiles(dir); err == nil {
		t.Fatal("a deleted document out of range was accepted")
	}
}
