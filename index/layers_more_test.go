package index

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/embed"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/testgit"
)

// layersSeed is the seed of the random chains: KONTEKS_LAYERS_SEED when
// set, else a random one, logged either way.
func layersSeed(t *testing.T) int64 {
	t.Helper()
	seed := rand.Int63()
	if s := os.Getenv("KONTEKS_LAYERS_SEED"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		seed = v
	}
	t.Logf("seed %d (KONTEKS_LAYERS_SEED)", seed)
	return seed
}

// goFile is a Go file of package pkg with n functions, their doc words
// from salt; long makes the first function long enough to be chunked.
func goFile(pkg string, n, salt int, long bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\n", pkg)
	for j := 0; j < n; j++ {
		fmt.Fprintf(&b, "// Fn%d_%d waits for quokka number %d and counts the wombat total %d.\n", j, salt, j, salt)
		fmt.Fprintf(&b, "func Fn%d_%d(x int) int {\n", j, salt)
		if long && j == 0 {
			for k := 0; k < 150; k++ {
				fmt.Fprintf(&b, "\tx += %d // step %d of the long quokka loop %d\n", k*salt+1, k, salt)
			}
		}
		fmt.Fprintf(&b, "\treturn x * %d\n}\n\n", j+salt)
	}
	return b.String()
}

var chainQueries = []string{"parse header", "thing number", "wait for quokka", "wombat total", "long quokka loop",
	"render page template", "package", "notes words", "installing guide"}

// A long random chain of edits, deletions, renames, re-additions, section
// counts changing, chunked sections and records losing all sections,
// under several overlay shares: every generation holds and ranks what a
// rebuild does.
func TestLayersRandomChainsAsRebuild(t *testing.T) {
	seed := layersSeed(t)
	for _, c := range []struct {
		share int
		large bool
	}{{1, false}, {40, true}, {1000, false}} { // share 8 on the large base: TestLayeredUpdatesRankAsRebuild
		t.Run(fmt.Sprint("share ", c.share, " large ", c.large), func(t *testing.T) {
			defer func(s int) { overShare = s }(overShare)
			overShare = c.share
			rng := rand.New(rand.NewSource(seed + int64(c.share)))
			randomChain(t, rng, 7, c.large)
		})
	}
}

func randomChain(t *testing.T, rng *rand.Rand, steps int, large bool) {
	var r *testgit.Repo
	var repo *gitstore.Repo
	if large {
		r, repo = layeredRepo(t)
	} else {
		r, repo = withPackages(t, 24)
	}
	open(t, repo, Options{Model: embed.LocalModel}).Close()
	// The files the chain plays with, and whether each is there.
	paths := []string{"pkg1/file.go", "pkg2/file.go", "pkg3/file.go", "a#b/c.go", "a/b#c.go", "a/b.go",
		"sp ace/ü.go", "z/long.go", "notes/notes.txt", "lib/large0.go", "web/page.go", "pkg10/file.go"}
	there := map[string]bool{}
	for _, p := range paths {
		there[p] = exists(filepath.Join(r.Dir, p))
	}
	salt := 100
	layered, merged := 0, 0
	for i := 0; i < steps; i++ {
		var did []string
		for op := 0; op < 1+rng.Intn(3); op++ {
			salt++
			p := paths[rng.Intn(len(paths))]
			switch k := rng.Intn(7); {
			case p == "notes/notes.txt":
				if rng.Intn(2) == 0 {
					r.Write(p, "   \n\n")
				} else {
					r.Write(p, fmt.Sprintf("notes words about a wombat %d\n", salt))
				}
				there[p] = true
			case k == 0 && there[p]:
				r.Remove(p)
				there[p] = false
			case k == 1 && there[p] && len(missing(paths, there)) > 0: // a rename
				free := missing(paths, there)
				q := free[rng.Intn(len(free))]
				b, err := os.ReadFile(filepath.Join(r.Dir, p))
				if err != nil {
					t.Fatal(err)
				}
				r.Remove(p)
				r.Write(q, string(b))
				there[p], there[q] = false, true
				p = p + " -> " + q
			case k == 2: // many files at once
				for j := 0; j < 24; j += 1 + rng.Intn(3) {
					r.Write(fmt.Sprintf("pkg%d/file.go", j), goFile(fmt.Sprint("pkg", j), 1+rng.Intn(3), salt, false))
				}
				p = "many"
			default:
				r.Write(p, goFile("x", rng.Intn(5), salt, rng.Intn(3) == 0))
				there[p] = true
			}
			did = append(did, fmt.Sprint(p))
		}
		// Every step changes memory (its ops may put back what was).
		r.Write("fetch/wait.go", fmt.Sprintf("package fetch\n\n// Wait%d waits for quokka %d.\nfunc Wait%d() {}\n", i, i, i))
		r.Commit(fmt.Sprint("step ", i))
		up := updated(t, r, repo)
		if exists(filepath.Join(up.dir, orderFile)) {
			layered++
		} else {
			merged++
		}
		t.Logf("step %d: %v; layered %v, %d docs, %d vectors", i, did, exists(filepath.Join(up.dir, orderFile)), up.Len(), up.Vectors())
		if up.meta.Docs != up.Len() || up.meta.Vectors != up.Vectors() {
			t.Fatalf("step %d: meta says %d docs %d vectors, the generation holds %d and %d", i, up.meta.Docs, up.meta.Vectors, up.Len(), up.Vectors())
		}
		asRebuilt(t, repo, up, chainQueries)
		checkPathDocs(t, up)
		up.Close()
	}
	t.Logf("%d layered, %d merged", layered, merged)
}

// checkPathDocs fails unless PathDocs and Find agree with the docs' ids.
func checkPathDocs(t *testing.T, ix *Index) {
	t.Helper()
	byPath := map[string][]int{}
	for i := 0; i < ix.Len(); i++ {
		d := ix.Doc(i)
		if ix.Find(d.ID) != i {
			t.Fatalf("doc %d (%s) found at %d", i, d.ID, ix.Find(d.ID))
		}
		if i > 0 && ix.Doc(i-1).ID >= d.ID {
			t.Fatalf("docs %d and %d out of id order: %q %q", i-1, i, ix.Doc(i-1).ID, d.ID)
		}
		byPath[d.Path] = append(byPath[d.Path], i)
	}
	for p, want := range byPath {
		got := ix.PathDocs(p)
		// PathDocs lists the ids with the path's prefix: a path holding
		// '#' may list another's too.
		sort.Ints(got)
		for _, w := range want {
			if k := sort.SearchInts(got, w); k == len(got) || got[k] != w {
				t.Fatalf("PathDocs(%q) = %v misses %d", p, got, w)
			}
		}
	}
}

// missing are the paths not there.
func missing(paths []string, there map[string]bool) []string {
	var out []string
	for _, p := range paths {
		if !there[p] {
			out = append(out, p)
		}
	}
	return out
}

// layeredGen makes a repository whose current generation is layered (a
// base with dead docs and an overlay), and returns its directory.
func layeredGen(t *testing.T) (*testgit.Repo, *gitstore.Repo, string) {
	t.Helper()
	r, repo := layeredRepo(t)
	open(t, repo, Options{Model: embed.LocalModel}).Close()
	r.Write("fetch/wait.go", "package fetch\n\n// Wait waits for a quokka.\nfunc Wait() {}\n")
	r.Write("pkg3/file.go", goFile("pkg3", 2, 7, true))
	r.Remove("pkg4/file.go")
	r.Commit("wait")
	up := updated(t, r, repo)
	gdir := up.dir
	up.Close()
	if !exists(filepath.Join(gdir, orderFile)) {
		t.Fatal("the update wrote no overlay")
	}
	return r, repo, gdir
}

// useAll runs every kind of read over ix and fails on a panic or on a
// hit outside the generation.
func useAll(t *testing.T, ix *Index) {
	t.Helper()
	defer func() {
		if e := recover(); e != nil {
			t.Fatalf("a damaged generation opened and panicked: %v", e)
		}
	}()
	vs, err := embed.NewLocal().Embed(t.Context(), chainQueries)
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range chainQueries {
		for _, h := range ix.Nearest(embed.Quantize(vs[i]), 10) {
			if h.Doc < 0 || h.Doc >= ix.Len() {
				t.Fatalf("nearest hit %d of %d docs", h.Doc, ix.Len())
			}
			ix.Doc(h.Doc)
		}
		if ix.sx != nil {
			hs, _ := ix.Lexical(t.Context(), QueryTerms(q), DefaultBoosts, 50)
			for _, h := range hs {
				if h.Doc < 0 || h.Doc >= ix.Len() {
					t.Fatalf("lexical hit %d of %d docs", h.Doc, ix.Len())
				}
			}
			ix.Files(t.Context(), QueryTerms(q), 50, 1)
		}
	}
	for i := 0; i < ix.Len(); i++ {
		d := ix.Doc(i)
		ix.Find(d.ID)
		ix.PathDocs(d.Path)
		ix.StartLine(i)
	}
	ix.Vectors()
	ix.Dim()
	ix.Languages()
}

// A layered generation missing its order (and with it, or not, its
// overlay) is not read as its base alone: the base holds the docs the
// updates removed, and not those they added.
func TestLayersMissingOrderRefused(t *testing.T) {
	_, repo, gdir := layeredGen(t)
	keep := readFiles(t, gdir, []string{orderFile, overDocsFile, overVecsFile}...)
	for _, gone := range [][]string{{orderFile}, {orderFile, overDocsFile, overVecsFile}, {overVecsFile}} {
		t.Run(strings.Join(gone, " "), func(t *testing.T) {
			for n, b := range keep {
				if err := os.WriteFile(filepath.Join(gdir, n), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, n := range gone {
				os.Remove(filepath.Join(gdir, n))
			}
			if ix, err := openGen(gdir, true); err == nil {
				t.Errorf("a generation without %v opened: %d docs, meta says %d", gone, ix.Len(), ix.meta.Docs)
				ix.Close()
			}
		})
	}
	buildsAndAnswers(t, repo)
}

// An order that omits a live doc (its count and size agreeing) is
// refused: the generation's meta counts its docs.
func TestLayersOrderOmittingDocRefused(t *testing.T) {
	_, _, gdir := layeredGen(t)
	b, err := os.ReadFile(filepath.Join(gdir, orderFile))
	if err != nil {
		t.Fatal(err)
	}
	n := int(b[4]) | int(b[5])<<8 | int(b[6])<<16 | int(b[7])<<24
	for _, k := range []int{0, n / 2, n - 1} {
		o := append([]byte(nil), b[:16]...)
		o[4], o[5], o[6], o[7] = byte(n-1), byte((n-1)>>8), byte((n-1)>>16), byte((n-1)>>24)
		o = append(o, b[16:16+4*k]...)
		o = append(o, b[16+4*(k+1):]...)
		if err := os.WriteFile(filepath.Join(gdir, orderFile), o, 0o644); err != nil {
			t.Fatal(err)
		}
		if ix, err := openGen(gdir, true); err == nil {
			t.Errorf("an order without its place %d opened: %d docs, meta says %d", k, ix.Len(), ix.meta.Docs)
			ix.Close()
		}
	}
}

// Bytes changed anywhere in the layers' files, or in the base's, either
// fail the open or leave a generation every read of which answers
// without a panic and with hits inside it.
func TestLayersFlippedBytesNeverPanic(t *testing.T) {
	seed := layersSeed(t)
	rng := rand.New(rand.NewSource(seed))
	_, repo, gdir := layeredGen(t)
	names := []string{orderFile, overDocsFile, overVecsFile, "docs.bin", "vectors.bin"}
	keep := readFiles(t, gdir, names...)
	put := func(n string, b []byte) {
		t.Helper()
		// Not through the link: the base is shared with the generation
		// before.
		p := filepath.Join(gdir, n)
		os.Remove(p)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opened, refused := 0, 0
	rounds := 120
	if s := os.Getenv("KONTEKS_LAYERS_ROUNDS"); s != "" {
		rounds, _ = strconv.Atoi(s)
	}
	for round := 0; round < rounds; round++ {
		n := names[round%len(names)]
		b := append([]byte(nil), keep[n]...)
		var what string
		switch rng.Intn(4) {
		case 0:
			cut := rng.Intn(len(b))
			b = b[:cut]
			what = fmt.Sprint("cut at ", cut)
		case 1:
			// The vector docs' column of the tables, or the order's
			// places: the bytes a search indexes by.
			at := 16 + rng.Intn(max(1, min(len(b)-16, 4096)))
			b[at] ^= 1 << rng.Intn(8)
			what = fmt.Sprint("bit at ", at)
		default:
			at := rng.Intn(len(b))
			b[at] ^= 1 << rng.Intn(8)
			what = fmt.Sprint("bit at ", at)
		}
		for _, m := range names {
			put(m, keep[m])
		}
		put(n, b)
		ix, err := openGen(gdir, true)
		if err != nil {
			refused++
			continue
		}
		opened++
		t.Run(fmt.Sprint(n, " ", what), func(t *testing.T) { useAll(t, ix) })
		ix.Close()
	}
	t.Logf("%d damaged generations opened, %d refused", opened, refused)
	for _, m := range names {
		put(m, keep[m])
	}
	ix := open(t, repo, Options{Model: embed.LocalModel})
	useAll(t, ix)
}

// A base vector table whose rows' docs are out of order (a changed byte
// of its docs column) is refused, or searched without a hit outside the
// generation: a dead doc's row the dead rows' binary search misses is
// never handed out as doc -1.
func TestLayersVectorDocsOutOfOrder(t *testing.T) {
	_, _, gdir := layeredGen(t)
	ix, err := openGen(gdir, true)
	if err != nil {
		t.Fatal(err)
	}
	dead := -1
	for _, l := range ix.vecLayers() {
		if l.t != ix.vecs {
			continue
		}
		for d, g := range l.global {
			if g == noDoc {
				if lo, hi := l.t.rowsOf(d); hi > lo && d > 1 {
					dead = d
				}
			}
		}
	}
	hdr := vecHeader(ix.vecs.model)
	ix.Close()
	if dead < 0 {
		t.Fatal("the base has no dead doc with vectors")
	}
	p := filepath.Join(gdir, "vectors.bin")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	// Row 0 names the dead doc: the rows are no longer in doc order.
	b[hdr], b[hdr+1], b[hdr+2], b[hdr+3] = byte(dead), byte(dead>>8), byte(dead>>16), byte(dead>>24)
	os.Remove(p)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ix, err = openGen(gdir, true)
	if err != nil {
		return // refused: fine
	}
	defer ix.Close()
	vs, err := embed.NewLocal().Embed(t.Context(), chainQueries)
	if err != nil {
		t.Fatal(err)
	}
	for i := range chainQueries {
		for _, h := range ix.Nearest(embed.Quantize(vs[i]), ix.Len()) {
			if h.Doc < 0 || h.Doc >= ix.Len() {
				t.Fatalf("nearest hit %d of %d docs", h.Doc, ix.Len())
			}
		}
	}
}

// nearestIDs is what Nearest finds for each query, by id and score, at
// the default shortlist (safe in any goroutine).
func nearestIDs(ix *Index, vs []embed.Quantized) []string {
	var out []string
	for _, q := range vs {
		for _, n := range []int{1, 7, 40} {
			for _, h := range ix.Nearest(q, n) {
				out = append(out, fmt.Sprint(ix.Doc(h.Doc).ID, " ", h.Score))
			}
			out = append(out, "|")
		}
	}
	return out
}

// A reader holding a layered generation keeps answering as it did, from
// several goroutines, while updates (layered and merged) make new
// generations from it, link its base, and prune it.
func TestLayersReaderDuringUpdates(t *testing.T) {
	defer func(s int) { overShare = s }(overShare)
	overShare = 8
	r, repo, _ := layeredGen(t)
	old := open(t, repo, Options{Model: embed.LocalModel})
	if old.How != "current" || old.docs.order == nil {
		t.Fatalf("how %q, layered %v", old.How, old.docs.order != nil)
	}
	raw, err := embed.NewLocal().Embed(t.Context(), chainQueries)
	if err != nil {
		t.Fatal(err)
	}
	vs := make([]embed.Quantized, len(raw))
	for i, v := range raw {
		vs[i] = embed.Quantize(v)
	}
	wantSecs := sectionsOf(t, old, chainQueries)
	wantFiles := filesOf(t, old, chainQueries, 1)
	wantNear := nearestIDs(old, vs)
	var ids []string
	for i := 0; i < old.Len(); i++ {
		ids = append(ids, old.Doc(i).ID)
	}
	wantVecs, wantDim := old.Vectors(), old.Dim()
	done := make(chan struct{})
	errc := make(chan error, 3)
	for g := 0; g < 3; g++ {
		go func() {
			for {
				select {
				case <-done:
					errc <- nil
					return
				default:
				}
				if got, err := lexicalOf(old, chainQueries); err != nil || !reflect.DeepEqual(got, wantSecs) {
					errc <- fmt.Errorf("sections changed under the reader: %v", err)
					return
				}
				for _, q := range chainQueries {
					fs, err := old.Files(context.Background(), QueryTerms(q), 100000, 1)
					if err != nil || !reflect.DeepEqual(fs, wantFiles[q]) {
						errc <- fmt.Errorf("%q: files changed under the reader: %v", q, err)
						return
					}
				}
				if got := nearestIDs(old, vs); !reflect.DeepEqual(got, wantNear) {
					errc <- fmt.Errorf("nearest changed under the reader")
					return
				}
				for i, id := range ids {
					if old.Find(id) != i || old.Doc(i).ID != id {
						errc <- fmt.Errorf("doc %d changed under the reader", i)
						return
					}
					if ps := old.PathDocs(old.Doc(i).Path); !slices.Contains(ps, i) {
						errc <- fmt.Errorf("PathDocs lost doc %d", i)
						return
					}
				}
				if old.Vectors() != wantVecs || old.Dim() != wantDim {
					errc <- fmt.Errorf("vectors changed under the reader")
					return
				}
			}
		}()
	}
	for i := 0; i < 8; i++ {
		r.Write(fmt.Sprintf("pkg%d/file.go", i), goFile(fmt.Sprint("pkg", i), 1+i%3, i, i%4 == 0))
		if i == 4 { // more than the overlay's share: merged
			for k := 8; k < 24; k++ {
				r.Write(fmt.Sprintf("pkg%d/file.go", k), goFile(fmt.Sprint("pkg", k), 2, 50+k, false))
			}
		}
		r.Commit(fmt.Sprint("edit ", i))
		up := updated(t, r, repo)
		up.Close()
	}
	close(done)
	for g := 0; g < 3; g++ {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
}

// An update that replaces a section by one of the same id leaves a base
// of as many docs as the generation holds: a missing order is found
// by the meta's saying the generation is layered, not by its counts.
func TestLayersMissingOrderSameCount(t *testing.T) {
	r, repo := layeredRepo(t)
	open(t, repo, Options{Model: embed.LocalModel}).Close()
	r.Write("web/page.go", "package web\n\n// RenderPage writes a page through its template again.\nfunc RenderPage(name string) string { return name }\n")
	r.Commit("page")
	up := updated(t, r, repo)
	gdir, n := up.dir, up.Len()
	nb := up.docs.base.n
	up.Close()
	if !exists(filepath.Join(gdir, orderFile)) || nb != n {
		t.Fatalf("layered %v, base %d docs of %d", exists(filepath.Join(gdir, orderFile)), nb, n)
	}
	os.Remove(filepath.Join(gdir, orderFile))
	if ix, err := openGen(gdir, true); err == nil {
		ix.Close()
		t.Fatal("a layered generation without its order opened as its base")
	}
	if ix := open(t, repo, Options{Model: embed.LocalModel}); ix.How != "build" {
		t.Fatalf("how %q, want build", ix.How)
	}
}
