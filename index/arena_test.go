package index

import (
	"fmt"
	"iter"
	"math/rand"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/embed"
	"github.com/konteks/git-konteks/internal/mmap"
)

// TestArenaWritesTheDocsTable: sections added to the arena in any order
// come out as the docs table of their docs sorted by id (a repeated id
// once, the first to arrive), each with its keys and vectors, read back
// from the arena's files; the files are gone once it is closed.
func TestArenaWritesTheDocsTable(t *testing.T) {
	seed := int64(20261205)
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	const dim = 256
	dir := t.TempDir()
	ar, err := newDocArena(dir, dim)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ar.close()
		if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) > 0 {
			t.Errorf("the closed arena left %v", left)
		}
	}()
	var want []Doc
	vecOf := map[string][]int8{}
	n := 6000 // about 2 MB of records and 1.5 MB of vectors
	for _, i := range rng.Perm(n) {
		path := fmt.Sprintf("dir%d/file%d.go", i%37, i/3)
		d := Doc{Path: path, Anchor: fmt.Sprintf("f%d", i), Kind: "code", Symbol: "function", Language: "Go",
			Name: fmt.Sprintf("F%d", i), QName: "pkg.F", Summary: strings.Repeat("does things ", 1+i%30), Blob: "ab12",
			StartLine: i, EndLine: i + 3, Topics: []string{"t"}}
		d.ID = docID(d.Path, d.Anchor)
		d.lens = [3]int{i % 100, 2, 3}
		sd := sectionDoc{doc: d}
		for k := 0; k < i%3; k++ {
			q := make([]int8, dim)
			for j := range q {
				q[j] = int8(rng.Intn(255) - 127)
			}
			var key embed.Key
			key[0], key[1], key[2] = byte(i), byte(i>>8), byte(k)
			sd.keys = append(sd.keys, key)
			sd.vecs = append(sd.vecs, embed.Quantized{Scale: float32(i), Q: q})
			sd.fresh = append(sd.fresh, k == 0)
			vecOf[fmt.Sprint(d.ID, k)] = q
		}
		if err := ar.add(&sd); err != nil {
			t.Fatal(err)
		}
		want = append(want, d)
		if i == 7 { // the same id again: dropped
			dup := sd
			dup.doc.Summary = "a later copy"
			if err := ar.add(&dup); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := ar.seal(); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(want, func(a, b Doc) int { return strings.Compare(a.ID, b.ID) })
	ents := ar.sorted()
	p := filepath.Join(t.TempDir(), "docs.bin")
	if err := ar.writeDocs(p, ents); err != nil {
		t.Fatal(err)
	}
	buf, unmap, err := mmap.File(p)
	if err != nil {
		t.Fatal(err)
	}
	defer unmap()
	tab, err := parseDocs(buf)
	if err != nil {
		t.Fatal(err)
	}
	if tab.n != len(want) {
		t.Fatalf("%d docs in the table, want %d", tab.n, len(want))
	}
	for i := range want {
		if got := tab.doc(i); !reflect.DeepEqual(got, want[i]) {
			t.Fatalf("doc %d:\n got %+v\nwant %+v", i, got, want[i])
		}
		e := ents[i]
		for k := e.k0; k < e.k1; k++ {
			if !slices.Equal(ar.vec(k), vecOf[fmt.Sprint(want[i].ID, k-e.k0)]) || ar.scales[k] != float32(want[i].StartLine) {
				t.Fatalf("vector %d of %s differs", k-e.k0, want[i].ID)
			}
			if ar.cacheable[k] != (k == e.k0) {
				t.Fatalf("vector %d of %s: cacheable %v", k-e.k0, want[i].ID, ar.cacheable[k])
			}
		}
	}
	wt, wf, wl := docStats(each(want))
	for name, docs := range map[string]iter.Seq[*Doc]{"decoded": ar.docs(ents), "read in place": ar.stats(ents)} {
		tokens, files, langs := docStats(docs)
		if !reflect.DeepEqual(tokens, wt) || files != wf || !reflect.DeepEqual(langs, wl) {
			t.Fatalf("stats of docs %s: %v %d %v, want %v %d %v", name, tokens, files, langs, wt, wf, wl)
		}
	}
}
