package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/blevesearch/bleve/v2/document"

	"github.com/konteks/git-konteks/embed"
	"github.com/konteks/git-konteks/memory"
)

func freqsOf(t *testing.T, d *document.Document) (map[string]int, int, uint64) {
	t.Helper()
	if len(d.Fields) != 1 {
		t.Fatalf("%d fields", len(d.Fields))
	}
	f := d.Fields[0].(*preField)
	out := map[string]int{}
	for term, tf := range f.freqs {
		if string(tf.Term) != term {
			t.Fatalf("term %q has bytes %q", term, tf.Term)
		}
		out[term] = tf.Frequency()
	}
	return out, f.length, f.size
}

// The whole file's document counted while its sections are analysed is the
// sum of their documents, whether or not the analyzer's vocabulary is
// reset on the way.
func TestFileFieldMatchesFileDoc(t *testing.T) {
	f := sampleRecord()
	f.Sections = append(f.Sections, memory.Section{Anchor: "C", Kind: "code", StartLine: 10, EndLine: 12,
		Name: "parseHTTPRequest", Content: "func parseHTTPRequest(r *Request) { requests++; parse(r) }"})
	for _, reset := range []bool{false, true} {
		a := newAnalyzer()
		rd := makeDocs(a, "net/http/server_test.go", f, true)
		if reset {
			// A reset between sections leaves the counts unusable:
			// makeDocs falls back to summing the sections' documents.
			a = newAnalyzer()
			a.vocab = make([]string, maxCachedWords-3)
			a.vbytes = make([][]byte, maxCachedWords-3)
			a.counts = make([]int32, maxCachedWords-3)
			a.fcounts = make([]int32, maxCachedWords-3)
			rd = makeDocs(a, "net/http/server_test.go", f, true)
			if !a.fileLost {
				t.Fatal("no reset happened")
			}
		}
		bdocs := make([]*document.Document, len(rd.sections))
		for i, sd := range rd.sections {
			bdocs[i] = sd.bdoc
		}
		want, wl, ws := freqsOf(t, fileDoc("net/http/server_test.go", bdocs))
		got, gl, gs := freqsOf(t, rd.file)
		if !reflect.DeepEqual(got, want) || gl != wl || gs != ws {
			t.Fatalf("reset %v: file document\n got %v %d %d\nwant %v %d %d", reset, got, gl, gs, want, wl, ws)
		}
		if want["request"] == 0 || want["server"] == 0 || want["parsehttprequest"] == 0 {
			t.Fatalf("terms missing: %v", want)
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
		if a, b := up.Doc(i), re.Doc(i); !reflect.DeepEqual(a, b) {
			t.Fatalf("doc %d: update %+v, rebuild %+v", i, a, b)
		}
	}
	u, r := up.vecs, re.vecs
	// Rows of one doc may come in another order (a chunked section's);
	// compare each doc's set of rows.
	rowsOf := func(v *vecTable) map[uint32][]string {
		m := map[uint32][]string{}
		for i := 0; i < v.n; i++ {
			m[v.docs[i]] = append(m[v.docs[i]], fmt.Sprint(v.scales[i], v.bits[2*i*v.words:2*(i+1)*v.words], v.q[i*v.dim:(i+1)*v.dim]))
		}
		for _, rs := range m {
			sort.Strings(rs)
		}
		return m
	}
	if !reflect.DeepEqual(rowsOf(u), rowsOf(r)) {
		t.Fatal("update and rebuild hold different vectors")
	}
	for i := 1; i < u.n; i++ {
		if u.docs[i] < u.docs[i-1] {
			t.Fatal("vector rows out of doc order")
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
	extractAt(t, r)
	up := open(t, repo, Options{Model: embed.LocalModel})
	if up.How != "update" {
		t.Fatalf("how %q, want update", up.How)
	}
	re, err := Open(context.Background(), repo, mem(t, repo), Options{Model: embed.LocalModel, Rebuild: true})
	if err != nil {
		t.Fatal(err)
	}
	defer re.Close()
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
