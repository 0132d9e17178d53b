package index

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

// A long chain of updates whose documents repeat a few ids (within a
// batch, across batches, deleted and indexed again), under merge rules
// drawn at random (tailSegments, tailShare, a build that flushes
// several segments), leaves a sections index that holds the documents a
// rebuild holds, ranks as it does to the bit, and lists the same
// vocabulary with counts equal to DocFreq.
func TestSectionsUpdateChainAsRebuild(t *testing.T) {
	for seed := int64(1); seed <= 6; seed++ {
		sectionsChain(t, seed)
	}
}

func sectionsChain(t *testing.T, seed int64) {
	rng := rand.New(rand.NewSource(seed))
	defer func(a int, b int64) { tailSegments, tailShare = a, b }(tailSegments, tailShare)
	tailSegments, tailShare = 1+rng.Intn(4), int64(rng.Intn(10))
	const vocab = 80
	pool := make([]string, 30)
	for i := range pool {
		pool[i] = fmt.Sprintf("p%d/f.go#S%d", i%4, i)
	}
	// Documents of ids drawn from the pool: a batch often repeats one.
	docs := func(n int) []*docEntry {
		es := randomSections(rng, n, vocab, "")
		for _, e := range es {
			e.id = pool[rng.Intn(len(pool))]
		}
		return es
	}
	root := t.TempDir()
	live := map[string]*docEntry{}
	dir := filepath.Join(root, "g0")
	out, err := newSegsTo(dir, sectionFields, 50+rng.Intn(2000))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range docs(rng.Intn(40)) {
		if err := out.add(e); err != nil {
			t.Fatal(err)
		}
		live[e.id] = e
	}
	if err := out.close(); err != nil {
		t.Fatal(err)
	}
	check := func(step int) {
		t.Helper()
		x, err := openSegs(dir, sectionFields)
		if err != nil {
			t.Fatal(err)
		}
		defer x.close()
		rd := filepath.Join(root, fmt.Sprint("rebuilt", step))
		ro, err := newSegsTo(rd, sectionFields, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]string, 0, len(live))
		for id := range live {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			ro.add(live[id])
		}
		if err := ro.close(); err != nil {
			t.Fatal(err)
		}
		re, err := openSegs(rd, sectionFields)
		if err != nil {
			t.Fatal(err)
		}
		defer re.close()
		what := fmt.Sprintf("seed %d step %d (%v)", seed, step, x.info)
		if x.live != len(live) {
			t.Fatalf("%s: %d live sections, want %d", what, x.live, len(live))
		}
		for q := 0; q < 8; q++ {
			var terms []Term
			for k := 1 + rng.Intn(6); k > 0; k-- {
				terms = append(terms, Term{Text: fmt.Sprintf("t%d", rng.Intn(vocab)), Weight: 1})
			}
			qs := []fieldQuery{{textField, terms, 1, 3000}, {nameField, terms, 0.6, 50}, {pathField, terms, 0.4, 80}}
			a, err := x.score(qs, len(live)+3, 1000)
			if err != nil {
				t.Fatal(err)
			}
			b, err := re.score(qs, len(live)+3, 1000)
			if err != nil {
				t.Fatal(err)
			}
			if len(a) != len(b) {
				t.Fatalf("%s, query %d: %d sections, rebuilt %d", what, q, len(a), len(b))
			}
			for i := range a {
				if ga, gb := x.segs[a[i].seg].id(a[i].doc), re.segs[b[i].seg].id(b[i].doc); ga != gb || a[i].score != b[i].score {
					t.Fatalf("%s, query %d, rank %d: %s %v, rebuilt %s %v", what, q, i, ga, a[i].score, gb, b[i].score)
				}
			}
		}
		for f := 0; f < sectionFields; f++ {
			got, want := x.prefixTerms(f, "t", 1000), re.prefixTerms(f, "t", 1000)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, field %d: terms %v, rebuilt %v", what, f, got, want)
			}
			for _, tc := range got {
				if n := x.docFreq(f, tc.Term); n != tc.Count {
					t.Fatalf("%s, field %d: %q in %d sections, DocFreq %d", what, f, tc.Term, tc.Count, n)
				}
			}
		}
	}
	check(0)
	for step := 1; step <= 25; step++ {
		var gone []string
		for k := rng.Intn(4); k > 0; k-- {
			id := pool[rng.Intn(len(pool))]
			gone = append(gone, id)
			delete(live, id)
		}
		n := rng.Intn(8)
		if rng.Intn(5) == 0 {
			n = 30
		}
		fresh := docs(n)
		for _, e := range fresh {
			gone = append(gone, e.id)
			live[e.id] = e
		}
		next := filepath.Join(root, fmt.Sprint("g", step))
		if err := updateSegs(dir, next, sectionFields, gone, fresh); err != nil {
			t.Fatal(err)
		}
		os.RemoveAll(dir)
		dir = next
		check(step)
	}
}
