package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/konteks/git-konteks/embed"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/memory"
)

func freqsOf(t *testing.T, e *fileEntry) (map[string]int, int) {
	t.Helper()
	out := map[string]int{}
	for _, tf := range e.terms[0] {
		if _, ok := out[tf.term]; ok {
			t.Fatalf("term %q twice", tf.term)
		}
		out[tf.term] = int(tf.freq)
	}
	return out, int(e.lens[0])
}

// The whole file's document counted while its sections are analysed is the
// sum of their documents, whether or not the analyzer's vocabulary is
// reset on the way.
func TestFileFieldMatchesFileDoc(t *testing.T) {
	f := &memory.File{Version: memory.RecordVersion, Blob: strings.Repeat("ab", 20), Size: 120, Lines: 12, Kind: "code", Language: "Go",
		Topics: []string{"net", "http"}, Sections: []memory.Section{
			{Anchor: "A", Kind: "code", Symbol: "function", Language: "Go", Name: "A", QName: "A", Signature: "func A()",
				Doc: "A does \\ things", StartLine: 1, EndLine: 4, Summary: "résumé — ok", Topics: []string{"t"},
				Content: "func A() {\n\tfmt.Println(\"héllo\")\n}\n"},
			{Anchor: "B", Kind: "code", StartLine: 5, EndLine: 9},
			{Anchor: "C", Kind: "code", StartLine: 10, EndLine: 12, Name: "parseHTTPRequest",
				Content: "func parseHTTPRequest(r *Request) { requests++; parse(r) }"},
		}}
	const path = "net/http/server_test.go"
	full := makeDocs(newAnalyzer(), path, f, true, nil)
	entries := make([]*docEntry, len(full.sections))
	for i, sd := range full.sections {
		entries[i] = sd.entry
	}
	want, wl := freqsOf(t, fileDoc(path, entries))
	if want["request"] == 0 || want["server"] == 0 || want["parsehttprequest"] == 0 {
		t.Fatalf("terms missing: %v", want)
	}
	// An update's unchanged sections (A and C) are only counted.
	kept := map[string]docPrint{}
	for _, i := range []int{0, 2} {
		kept[full.sections[i].doc.ID] = full.sections[i].doc.print
	}
	for _, reset := range []bool{false, true} {
		for _, k := range []map[string]docPrint{nil, kept} {
			a := newAnalyzer()
			if reset {
				// A reset between sections leaves the counts unusable:
				// makeDocs falls back to summing the sections' documents
				// (and makes the documents of the sections it skipped).
				a.vocab = make([]string, maxCachedWords-3)
				a.vbytes = make([][]byte, maxCachedWords-3)
				a.counts = make([]int32, maxCachedWords-3)
				a.fcounts = make([]int32, maxCachedWords-3)
			}
			rd := makeDocs(a, path, f, true, k)
			if reset && k == nil && !a.fileLost {
				t.Fatal("no reset happened")
			}
			got, gl := freqsOf(t, rd.file)
			if !reflect.DeepEqual(got, want) || gl != wl {
				t.Fatalf("reset %v, kept %v: file document\n got %v %d\nwant %v %d", reset, k != nil, got, gl, want, wl)
			}
			for i, sd := range rd.sections {
				if sd.doc.lens != full.sections[i].doc.lens || sd.doc.print != full.sections[i].doc.print {
					t.Errorf("reset %v, kept %v: section %d lengths %v print %x, want %v %x", reset, k != nil, i,
						sd.doc.lens, sd.doc.print, full.sections[i].doc.lens, full.sections[i].doc.print)
				}
				if skip := k != nil && !reset && (i == 0 || i == 2); (sd.entry == nil) != skip {
					t.Errorf("reset %v, kept %v: section %d has document %v", reset, k != nil, i, sd.entry != nil)
				}
			}
		}
	}
}

// sameGeneration fails unless two generations hold the same docs, vectors
// and statistics.
func sameGeneration(t *testing.T, up, re *Index) {
	t.Helper()
	if up.Len() != re.Len() || up.Vectors() != re.Vectors() || up.Dim() != re.Dim() || up.Model() != re.Model() ||
		up.files != re.files || !reflect.DeepEqual(up.meta.Tokens, re.meta.Tokens) ||
		!reflect.DeepEqual(up.meta.Languages, re.meta.Languages) || !reflect.DeepEqual(up.Languages(), re.Languages()) {
		t.Fatalf("update: %d docs %d vectors %d files %v %v; rebuild: %d docs %d vectors %d files %v %v",
			up.Len(), up.Vectors(), up.files, up.meta.Tokens, up.meta.Languages, re.Len(), re.Vectors(), re.files, re.meta.Tokens, re.meta.Languages)
	}
	for i := 0; i < re.Len(); i++ {
		a, b := up.Doc(i), re.Doc(i)
		// A zero print is unknown (see sharable): the update may not
		// know one where the rebuild does.
		if a.print == (docPrint{}) || b.print == (docPrint{}) {
			a.print, b.print = docPrint{}, docPrint{}
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("doc %d: update %+v, rebuild %+v", i, a, b)
		}
	}
	// Rows of one doc may come in another order (a chunked section's),
	// and an updated generation holds them in two tables (layers.go);
	// compare each doc's set of rows.
	rowsOf := func(ix *Index) map[int][]string {
		m := map[int][]string{}
		for _, l := range ix.vecLayers() {
			v := l.t
			for i := 0; i < v.n; i++ {
				d := l.doc(int32(i))
				if d < 0 {
					continue
				}
				m[d] = append(m[d], fmt.Sprint(v.scales[i], v.bits[2*i*v.words:2*(i+1)*v.words], v.q[i*v.dim:(i+1)*v.dim]))
			}
		}
		for _, rs := range m {
			sort.Strings(rs)
		}
		return m
	}
	if !reflect.DeepEqual(rowsOf(up), rowsOf(re)) {
		t.Fatal("update and rebuild hold different vectors")
	}
	if up.Vectors() != re.Vectors() || up.Dim() != re.Dim() {
		t.Fatalf("update holds %d vectors of %d dimensions, rebuild %d of %d", up.Vectors(), up.Dim(), re.Vectors(), re.Dim())
	}
	for _, l := range up.vecLayers() {
		for i := 1; i < l.t.n; i++ {
			if l.t.docs[i] < l.t.docs[i-1] {
				t.Fatal("vector rows out of doc order")
			}
		}
	}
}

// An update that adds, edits and removes files (one of them sorting
// between kept ones, one after all) leaves what a rebuild makes.
func TestUpdateMergesLikeRebuild(t *testing.T) {
	for _, kernel := range []bool{false, true} {
		t.Run(fmt.Sprint("kernel copy ", kernel), func(t *testing.T) {
			if kernel {
				defer func(n int) { minKernelCopy = n }(minKernelCopy)
				minKernelCopy = 1
			}
			testUpdateMerges(t)
		})
	}
}

func testUpdateMerges(t *testing.T) {
	r, repo := fixture(t)
	r.Write("zz/last.md", "# Last\n\nThe final words about quokkas.\n")
	r.Write("docs/readme.txt", "plain words\n")
	r.Commit("more")
	extractAt(t, r)
	ix := open(t, repo, Options{Model: embed.LocalModel})
	if ix.meta.Languages == nil || len(ix.Languages()) == 0 {
		t.Fatalf("no language counts: %v", ix.meta.Languages)
	}
	ix.Close()

	r.Write("fetch/retry.go", strings.Replace(retryGo, "ParseHeader", "ParseHeaderLine", -1))
	r.Write("fetch/aaa.go", "package fetch\n\n// First sorts first.\nfunc First() {}\n")
	r.Write("fetch/retry_test.go", "package fetch\n\nimport \"testing\"\n\nfunc TestBackoff(t *testing.T) {}\n")
	r.Write("zzz/after.py", "def after():\n    return 1\n")
	r.Remove("docs/guide.md")
	r.Commit("edit")
	up := updated(t, r, repo)
	re := rebuilt(t, repo)
	sameGeneration(t, up, re)
	for _, q := range []string{"parse header line", "first", "backoff test", "after", "quokkas", "installing guide"} {
		hu, _ := up.Lexical(context.Background(), QueryTerms(q), DefaultBoosts, 10)
		hr, _ := re.Lexical(context.Background(), QueryTerms(q), DefaultBoosts, 10)
		if !reflect.DeepEqual(hu, hr) {
			t.Fatalf("%q: updated and rebuilt indexes rank differently:\n%v\n%v", q, hu, hr)
		}
	}
	// A generation without language counts (written before they were
	// kept) counts them when asked.
	up.meta.Languages = nil
	up.langOnce = sync.Once{}
	up.langs = nil
	if !reflect.DeepEqual(up.Languages(), re.Languages()) {
		t.Fatalf("languages counted from the table %v, kept %v", up.Languages(), re.Languages())
	}
}

// An update from a generation whose docs table is damaged in a way its
// header does not show (offsets out of order) builds anew instead of
// failing or crashing.
func TestUpdateFromDamagedTableBuilds(t *testing.T) {
	r, repo := fixture(t)
	ix := open(t, repo, Options{Model: embed.LocalModel})
	dir, n := ix.dir, ix.Len()
	ix.Close()
	if n < 3 {
		t.Fatalf("%d docs", n)
	}
	p := filepath.Join(dir, "docs.bin")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	// Swap the offsets of docs 1 and 2.
	o1, o2 := b[8+4:8+8], b[8+8:8+12]
	x := append([]byte(nil), o1...)
	copy(o1, o2)
	copy(o2, x)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r.Write("fetch/retry.go", strings.Replace(retryGo, "ParseHeader", "ParseHeaderLine", -1))
	r.Commit("edit")
	extractAt(t, r)
	up := open(t, repo, Options{Model: embed.LocalModel})
	if up.How != "build" {
		t.Fatalf("how %q, want build", up.How)
	}
	if d, _ := top(t, up, "parse header line"); d.Name != "ParseHeaderLine" {
		t.Fatalf("rebuilt index: %+v", d)
	}
}

// sketchSlow is the sketch by its definition.
func sketchSlow(q []int8) []uint64 {
	words := (len(q) + 63) / 64
	out := make([]uint64, 2*words)
	for i, v := range q {
		if v >= sketchLevel {
			out[i/64] |= 1 << uint(i%64)
		}
		if v <= -sketchLevel {
			out[words+i/64] |= 1 << uint(i%64)
		}
	}
	return out
}

func TestSketch(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, dim := range []int{1, 63, 64, 65, 256, 300} {
		for k := 0; k < 20; k++ {
			q := make([]int8, dim)
			for i := range q {
				q[i] = int8(rng.IntN(256) - 128)
			}
			prefix := []uint64{7}
			got := sketch(prefix, q)
			if got[0] != 7 || !reflect.DeepEqual(got[1:], sketchSlow(q)) {
				t.Fatalf("dim %d: sketch %v, want %v", dim, got[1:], sketchSlow(q))
			}
		}
	}
}

// segFiles names the segment files of one of a generation's search
// indexes.
func segFiles(t *testing.T, ix *Index, sub string) []string {
	t.Helper()
	ms, err := filepath.Glob(filepath.Join(ix.dir, sub, "*.kxs"))
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range ms {
		ms[i] = filepath.Base(m)
	}
	return ms
}

// withPackages is fixture with n more files, pkgN/file.go, each one
// function, committed and extracted.
func withPackages(t *testing.T, n int) (*testgit.Repo, *gitstore.Repo) {
	t.Helper()
	r, _ := fixture(t)
	for i := 0; i < n; i++ {
		r.Write(fmt.Sprintf("pkg%d/file.go", i), fmt.Sprintf("package pkg%d\n\n// Thing%d does thing number %d.\nfunc Thing%d() int { return %d }\n", i, i, i, i, i))
	}
	r.Commit("more files")
	return r, extractAt(t, r)
}

// Updates merge the small segments they add among themselves: a one-file
// update does not rewrite the segments of the build, the number of
// segments stays bounded over many updates, and the index still ranks as
// a rebuilt one.
func TestUpdatesMergeTheirOwnSegments(t *testing.T) {
	r, repo := withPackages(t, 40)
	ix := open(t, repo, Options{Model: embed.LocalModel})
	base := map[string][]string{sectionsDir: segFiles(t, ix, sectionsDir), filesDir: segFiles(t, ix, filesDir)}
	ix.Close()
	for i := 0; i < 30; i++ {
		r.Write("fetch/retry.go", strings.Replace(retryGo, "ParseHeader", fmt.Sprintf("ParseHeader%d", i), -1))
		if i%3 == 0 {
			r.Write(fmt.Sprintf("pkg%d/file.go", i), fmt.Sprintf("package pkg%d\n\n// Other%d does another thing.\nfunc Other%d() {}\n", i, i, i))
		}
		r.Commit(fmt.Sprint("edit ", i))
		extractAt(t, r)
		up := open(t, repo, Options{Model: embed.LocalModel})
		if up.How != "update" {
			t.Fatalf("edit %d: how %q, want update", i, up.How)
		}
		for _, sub := range []string{sectionsDir, filesDir} {
			zs := segFiles(t, up, sub)
			if i == 0 {
				for _, b := range base[sub] {
					if !slices.Contains(zs, b) {
						t.Fatalf("%s: the first update rewrote segment %s of the build (now %v)", sub, b, zs)
					}
				}
			}
			if len(zs) > 14 {
				t.Fatalf("%s: %d segments after %d updates: %v", sub, len(zs), i+1, zs)
			}
		}
		up.Close()
	}
	up := open(t, repo, Options{Model: embed.LocalModel})
	re, err := Open(context.Background(), repo, mem(t, repo), Options{Model: embed.LocalModel, Rebuild: true})
	if err != nil {
		t.Fatal(err)
	}
	defer re.Close()
	sameGeneration(t, up, re)
	// Every hit is asked for: which of several equal scores bleve keeps
	// at a cutoff follows its segments, not the index's content.
	for _, q := range []string{"parse header 29", "thing number", "other thing", "backoff", "render page template"} {
		hu, _ := up.Lexical(context.Background(), QueryTerms(q), DefaultBoosts, 1000)
		hr, _ := re.Lexical(context.Background(), QueryTerms(q), DefaultBoosts, 1000)
		if len(hu) == 0 || !reflect.DeepEqual(hu, hr) {
			t.Fatalf("%q: updated and rebuilt indexes rank differently:\n%v\n%v", q, hu, hr)
		}
	}
}

// Updates leave their small segments alone until there are tailSegments
// of them: a one-file run does not rewrite the segments the updates
// before it made (it did at every update), and their number stays
// bounded.
func TestUpdatesMergeTheTailOnlyOnceItGrows(t *testing.T) {
	// The fixture is small: its updates would soon outgrow an eighth of
	// the build and merge everything.
	defer func(n int64) { tailShare = n }(tailShare)
	tailShare = 0
	r, repo := withPackages(t, 20)
	ix := open(t, repo, Options{Model: embed.LocalModel})
	base := segFiles(t, ix, sectionsDir)
	ix.Close()
	var first []string // the segments the first update made
	merged := false
	for i := 0; i < 3*tailSegments; i++ {
		r.Write(fmt.Sprintf("pkg%d/file.go", i%20), fmt.Sprintf("package pkg%d\n\n// Edited%d does an edited thing.\nfunc Edited%d() {}\n", i, i, i))
		r.Commit(fmt.Sprint("edit ", i))
		up := updated(t, r, repo)
		zs := segFiles(t, up, sectionsDir)
		up.Close()
		if i == 0 {
			for _, z := range zs {
				if !slices.Contains(base, z) {
					first = append(first, z)
				}
			}
			continue
		}
		kept := true
		for _, z := range first {
			kept = kept && slices.Contains(zs, z)
		}
		if i < tailSegments-1 && !kept {
			t.Fatalf("update %d rewrote the segments of the first (%v), with %d segments: %v", i+1, first, len(zs), zs)
		}
		merged = merged || !kept
		if len(zs) > len(base)+tailSegments {
			t.Fatalf("%d segments after %d updates: %v", len(zs), i+1, zs)
		}
	}
	if !merged {
		t.Fatal("the updates never merged their segments")
	}
}

// TestBuildLeavesCollectionOn: a build that starts while garbage
// collection is off (a command's warm-up before its first collection)
// does not leave it off when it ends, unless GOGC=off asked for that; a
// percentage set before it is put back.
func TestBuildLeavesCollectionOn(t *testing.T) {
	_, repo := fixture(t)
	m := mem(t, repo)
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, c := range []struct {
		gogc         string
		before, want int
	}{{"", -1, 100}, {"", 50, 50}, {"off", -1, -1}} {
		t.Setenv("GOGC", c.gogc)
		debug.SetGCPercent(c.before)
		if _, err := build(context.Background(), repo, m, t.TempDir(), Options{}); err != nil {
			t.Fatal(err)
		}
		if got := debug.SetGCPercent(100); got != c.want {
			t.Errorf("GOGC=%q, percentage %d before a build: %d after it, want %d", c.gogc, c.before, got, c.want)
		}
	}
}

// Two cold builds of the same memory are the same index, whether the
// build wrote one segment or merged many: BM25's statistics are the
// memory's (cardinality), not the segments'. (bleve once merged a build's
// small segments while it ran, when its merger got to them, and with its
// own statistics two builds of prometheus ranked eight queries with
// different scores.)
func TestBuildIsDeterministic(t *testing.T) {
	r, _ := fixture(t)
	for i := 0; i < 40; i++ {
		r.Write(fmt.Sprintf("pkg%d/file.go", i), fmt.Sprintf("package pkg%d\n\n// Thing%d does thing number %d.\nfunc Thing%d() int { return %d }\n\n// More%d parses a header.\nfunc More%d() {}\n", i, i, i, i, i, i, i))
	}
	r.Commit("more files")
	repo := extractAt(t, r)
	defer func(n int) { flushPostings = n }(flushPostings)
	var ixs [3]*Index
	for i := range ixs {
		flushPostings = []int{40, 40, 1 << 30}[i] // a segment every few sections, or one
		ixs[i] = open(t, repo, Options{Model: embed.LocalModel, Rebuild: true})
		defer ixs[i].Close()
		if n := len(segFiles(t, ixs[i], sectionsDir)); n != 1 {
			t.Fatalf("build %d: %d segments on disk, want the build's one", i, n)
		}
		// The build spilled its records and vectors: the files are gone.
		if ixs[i].vecs == nil || ixs[i].vecs.n == 0 {
			t.Fatalf("build %d has no vectors", i)
		}
		if left, _ := filepath.Glob(filepath.Join(ixs[i].dir, "*.spill")); len(left) > 0 {
			t.Fatalf("build %d left %v", i, left)
		}
	}
	for _, q := range []string{"parse header", "thing number 7", "backoff retry", "render page template"} {
		a, _ := ixs[0].Lexical(context.Background(), QueryTerms(q), DefaultBoosts, 1000)
		fa, _ := ixs[0].Files(context.Background(), QueryTerms(q), 1000, 1)
		if len(a) == 0 {
			t.Fatalf("%q: no hits", q)
		}
		for _, ix := range ixs[1:] {
			b, _ := ix.Lexical(context.Background(), QueryTerms(q), DefaultBoosts, 1000)
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("%q: builds of one memory rank differently:\n%v\n%v", q, a, b)
			}
			fb, _ := ix.Files(context.Background(), QueryTerms(q), 1000, 1)
			if !reflect.DeepEqual(fa, fb) {
				t.Fatalf("%q: builds of one memory rank files differently:\n%v\n%v", q, fa, fb)
			}
		}
	}
}
