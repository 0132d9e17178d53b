package index

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search/query"
)

// randomSections makes n section documents: Zipf-distributed text
// terms, a name of a few terms (none for some), a path of two.
func randomSections(rng *rand.Rand, n, vocab int, tag string) []*docEntry {
	z := rand.NewZipf(rng, 1.1, 2, uint64(vocab-1))
	out := make([]*docEntry, 0, n)
	field := func(e *docEntry, f, k int, term func() string) {
		counts := map[string]uint32{}
		var order []string
		for ; k > 0; k-- {
			t := term()
			if counts[t] == 0 {
				order = append(order, t)
			}
			counts[t]++
			e.lens[f]++
		}
		for _, t := range order {
			e.terms[f] = append(e.terms[f], fileTerm{t, counts[t]})
		}
	}
	for i := 0; i < n; i++ {
		file := rng.Intn(40)
		e := &docEntry{id: fmt.Sprintf("dir%d/file%02d.go#S%d%s", file%5, file, i, tag)}
		field(e, textField, 1+rng.Intn(400), func() string { return fmt.Sprintf("t%d", z.Uint64()) })
		if rng.Intn(4) > 0 {
			field(e, nameField, 1+rng.Intn(3), func() string { return fmt.Sprintf("t%d", rng.Intn(60)) })
		}
		field(e, pathField, 2, func() string { return fmt.Sprintf("t%d", rng.Intn(30)) })
		out = append(out, e)
	}
	return out
}

// bleveSectionDoc is e as the bleve document the sections index held.
func bleveSectionDoc(e *docEntry) *document.Document {
	d := document.NewDocument(e.id)
	d.AddField(bleveField(fieldText, e.lens[textField], e.terms[textField]))
	if e.lens[nameField] > 0 {
		d.AddField(bleveField(fieldName, e.lens[nameField], e.terms[nameField]))
	}
	d.AddField(bleveField(fieldPath, e.lens[pathField], e.terms[pathField]))
	return d
}

// bleveSections ranks as Lexical did with bleve: a disjunction of the
// fields' disjunctions of boosted term queries, with the memory's
// statistics.
func bleveSections(t *testing.T, bl bleve.Index, terms []Term, b Boosts, docs int, card [sectionFields]int) []idHit {
	t.Helper()
	field := func(name string, boost float64) query.Query {
		var qs []query.Query
		for _, term := range terms {
			if term.TextOnly && name != fieldText {
				continue
			}
			tq := query.NewTermQuery(term.Text)
			tq.SetField(name)
			tq.SetBoost(term.Weight * boost)
			qs = append(qs, tq)
		}
		return query.NewDisjunctionQuery(qs)
	}
	named := 0
	for _, term := range terms {
		if !term.TextOnly {
			named++
		}
	}
	qs := []query.Query{field(fieldText, 1)}
	if b.Name > 0 && named > 0 {
		qs = append(qs, field(fieldName, b.Name))
	}
	if b.Path > 0 && named > 0 {
		qs = append(qs, field(fieldPath, b.Path))
	}
	return bleveRanked(t, bl, query.NewDisjunctionQuery(qs), docs, map[string]int{fieldText: card[0], fieldName: card[1], fieldPath: card[2]})
}

// The sections index scores as bleve's BM25 did, to the bit: the three
// fields' nested disjunction with boosts, terms of the text only, a
// build that wrote several segments and merged them (ids repeated: the
// last wins), and a chain of updates (deletions, replaced ids, added
// segments, merges).
func TestSectionsScoreAsBleve(t *testing.T) {
	seed := time.Now().UnixNano()
	if s := os.Getenv("SECTIONS_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	const vocab = 2000
	secs := randomSections(rng, 300, vocab, "")
	// An id twice in the build: the later document wins, as in bleve.
	dup := randomSections(rng, 2, vocab, "")
	dup[0].id, dup[1].id = secs[10].id, secs[250].id
	secs = append(secs, dup...)

	bl, err := bleve.NewUsing(filepath.Join(t.TempDir(), "bleve"), newMapping(), scorch.Name, scorch.Name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bl.Close()
	batch := bl.NewBatch()
	live := map[string]*docEntry{}
	dir := filepath.Join(t.TempDir(), "g0")
	out, err := newSegsTo(dir, sectionFields, 5000) // several segments
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range secs {
		batch.IndexAdvanced(bleveSectionDoc(e))
		if err := out.add(e); err != nil {
			t.Fatal(err)
		}
		live[e.id] = e
	}
	if err := out.close(); err != nil {
		t.Fatal(err)
	}
	if err := bl.Batch(batch); err != nil {
		t.Fatal(err)
	}
	check := func(step int) {
		t.Helper()
		x, err := openSegs(dir, sectionFields)
		if err != nil {
			t.Fatal(err)
		}
		defer x.close()
		if x.live != len(live) {
			t.Fatalf("step %d: %d live sections, want %d", step, x.live, len(live))
		}
		var card [sectionFields]int
		for _, e := range live {
			for f := range card {
				card[f] += int(e.lens[f])
			}
		}
		for q := 0; q < 12; q++ {
			var terms []Term
			for k := 1 + rng.Intn(30); k > 0; k-- {
				terms = append(terms, Term{Text: fmt.Sprintf("t%d", rng.Intn(vocab+100)),
					Weight: []float64{1, 2, 0.35, 1.7}[rng.Intn(4)], TextOnly: rng.Intn(3) == 0})
			}
			b := Boosts{Name: []float64{0, 1.5, 3.25}[rng.Intn(3)], Path: []float64{0, 0.8, 2}[rng.Intn(3)]}
			scale := []float64{1, 0.5, 0.2}[q%3]
			var c [sectionFields]int
			for f := range c {
				c[f] = int(float64(card[f]) * scale)
			}
			want := bleveSections(t, bl, terms, b, len(live), c)
			var named []Term
			for _, tm := range terms {
				if !tm.TextOnly {
					named = append(named, tm)
				}
			}
			qs := []fieldQuery{{textField, terms, 1, c[0]}}
			if b.Name > 0 && len(named) > 0 {
				qs = append(qs, fieldQuery{nameField, named, b.Name, c[1]})
			}
			if b.Path > 0 && len(named) > 0 {
				qs = append(qs, fieldQuery{pathField, named, b.Path, c[2]})
			}
			hs, err := x.score(qs, len(live), 100000)
			if err != nil {
				t.Fatal(err)
			}
			if len(hs) != len(want) {
				t.Fatalf("step %d query %d: %d sections, bleve %d", step, q, len(hs), len(want))
			}
			for i, h := range hs {
				got := idHit{x.segs[h.seg].id(h.doc), h.score}
				if got != want[i] {
					t.Fatalf("step %d query %d (%d fields), rank %d: %v, bleve %v", step, q, len(qs), i, got, want[i])
				}
			}
			// The n best are the first n of all.
			if top, _ := x.score(qs, len(live), 7); len(hs) >= 7 && (len(top) != 7 || top[6] != hs[6]) {
				t.Fatalf("step %d query %d: the best 7 are not the first 7 of all", step, q)
			}
		}
	}
	check(0)
	for step := 1; step <= 10; step++ {
		ids := make([]string, 0, len(live))
		for id := range live {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		batch := bl.NewBatch()
		var gone []string
		var fresh []*docEntry
		// Delete a few, replace a few (the same id, new content).
		for k := rng.Intn(5); k >= 0; k-- {
			id := ids[rng.Intn(len(ids))]
			if live[id] == nil {
				continue
			}
			gone = append(gone, id)
			batch.Delete(id)
			delete(live, id)
			if k%2 == 0 {
				e := randomSections(rng, 1, vocab, "")[0]
				e.id = id
				fresh = append(fresh, e)
			}
		}
		n := 1 + rng.Intn(3)
		if step%4 == 0 {
			n = 60 // the tail outgrows an eighth of the first segment
		}
		fresh = append(fresh, randomSections(rng, n, vocab, fmt.Sprintf("-s%d", step))...)
		for _, e := range fresh {
			gone = append(gone, e.id)
			batch.IndexAdvanced(bleveSectionDoc(e))
			live[e.id] = e
		}
		if err := bl.Batch(batch); err != nil {
			t.Fatal(err)
		}
		next := filepath.Join(filepath.Dir(dir), fmt.Sprintf("g%d", step))
		if err := updateSegs(dir, next, sectionFields, gone, fresh); err != nil {
			t.Fatal(err)
		}
		os.RemoveAll(dir)
		dir = next
		check(step)
	}
}
