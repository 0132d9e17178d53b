package index

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/konteks/git-konteks/embed"
	"github.com/konteks/git-konteks/extract"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/memtest"
	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

const retryGo = `package fetch

import "time"

// Backoff computes how long to wait before the next attempt: the delay
// doubles with every failed attempt, up to a ceiling.
func Backoff(attempt int) time.Duration {
	d := 100 * time.Millisecond << attempt
	if d > 10*time.Second {
		d = 10 * time.Second
	}
	return d
}

// ParseHeader splits a raw header line into its name and payload.
func ParseHeader(line string) (name, value string) {
	for i := 0; i < len(line); i++ {
		if line[i] == ':' {
			return line[:i], line[i+1:]
		}
	}
	return line, ""
}
`

const guideMD = `# Guide

## Installing

Run the installer script and follow the prompts.

## Rendering templates

Templates are rendered with the page data and written to the output folder.
`

// fixture is a repository with memory extracted.
func fixture(t *testing.T) (*testgit.Repo, *gitstore.Repo) {
	t.Helper()
	r := testgit.New(t)
	r.Write("fetch/retry.go", retryGo)
	r.Write("docs/guide.md", guideMD)
	r.Write("web/page.go", "package web\n\n// RenderPage writes a page through its template.\nfunc RenderPage(name string) string { return \"<html>\" + name }\n")
	r.Commit("init")
	repo := extractAt(t, r)
	return r, repo
}

func extractAt(t *testing.T, r *testgit.Repo) *gitstore.Repo {
	t.Helper()
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	return memtest.Extract(t, r.Dir)
}

func mem(t *testing.T, repo *gitstore.Repo) *memref.Memory {
	t.Helper()
	m, err := memref.Read(repo, memory.Ref)
	if err != nil || m == nil {
		t.Fatalf("read memory: %v", err)
	}
	return m
}

func open(t *testing.T, repo *gitstore.Repo, opt Options) *Index {
	t.Helper()
	ix, err := Open(context.Background(), repo, mem(t, repo), opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

// updated extracts r's newest commit and opens the index, which must
// have been updated (not rebuilt) to it.
func updated(t *testing.T, r *testgit.Repo, repo *gitstore.Repo) *Index {
	t.Helper()
	extractAt(t, r)
	up := open(t, repo, Options{Model: embed.LocalModel})
	if up.How != "update" {
		t.Fatalf("how %q, want update", up.How)
	}
	return up
}

// rebuilt opens a generation built anew from repo's memory.
func rebuilt(t *testing.T, repo *gitstore.Repo) *Index {
	t.Helper()
	return open(t, repo, Options{Model: embed.LocalModel, Rebuild: true})
}

func top(t *testing.T, ix *Index, q string) (Doc, []Hit) {
	t.Helper()
	hs, err := ix.Lexical(context.Background(), QueryTerms(q), DefaultBoosts, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) == 0 {
		t.Fatalf("no hit for %q", q)
	}
	return ix.Doc(hs[0].Doc), hs
}

func TestLexicalFindsFunctionByItsDocWords(t *testing.T) {
	_, repo := fixture(t)
	ix := open(t, repo, Options{Model: embed.LocalModel})
	if ix.How != "build" || ix.Len() == 0 {
		t.Fatalf("first open: how %q, %d docs", ix.How, ix.Len())
	}
	// Doc words (with other forms: "doubling", "attempts") find Backoff.
	d, _ := top(t, ix, "wait longer after failed attempts, doubling the delay")
	if d.Path != "fetch/retry.go" || d.Name != "Backoff" {
		t.Fatalf("top hit %s#%s, want fetch/retry.go#Backoff", d.Path, d.Anchor)
	}
	// Identifier parts: "parse header" finds ParseHeader.
	if d, _ := top(t, ix, "parse header"); d.Name != "ParseHeader" {
		t.Fatalf("top hit for parse header: %+v", d)
	}
	// A Markdown heading.
	if d, _ := top(t, ix, "how are templates rendered"); d.Path != "docs/guide.md" && d.Path != "web/page.go" {
		t.Fatalf("templates: %+v", d)
	}
	if ix.Vectors() == 0 || ix.Model() != embed.LocalModel || ix.Dim() != embed.LocalDim {
		t.Fatalf("vectors: %d of %q dim %d", ix.Vectors(), ix.Model(), ix.Dim())
	}
	// Reopening at the same memory uses the generation as it is.
	again := open(t, repo, Options{Model: embed.LocalModel})
	if again.How != "current" || again.dir != ix.dir {
		t.Fatalf("reopen: how %q dir %s (was %s)", again.How, again.dir, ix.dir)
	}
}

func TestNearestFindsTheSectionOfItsOwnText(t *testing.T) {
	_, repo := fixture(t)
	ix := open(t, repo, Options{Model: embed.LocalModel})
	vs, _ := embed.NewLocal().Embed(context.Background(), []string{"exponential backoff delay for the next retry attempt"})
	hs := ix.Nearest(embed.Quantize(vs[0]), 3)
	if len(hs) == 0 || ix.Doc(hs[0].Doc).Name != "Backoff" {
		t.Fatalf("nearest: %+v", hs)
	}
	for i := 1; i < len(hs); i++ {
		if hs[i].Score > hs[i-1].Score {
			t.Fatal("not sorted")
		}
	}
	// A query of another dimension finds nothing rather than garbage.
	if hs := ix.Nearest(embed.Quantize([]float32{1, 2, 3}), 3); hs != nil {
		t.Fatalf("wrong dimension: %v", hs)
	}
}

// After a one-file change the index is updated from the memory diff (not
// rebuilt): it finds the new text and no longer the old.
// editParseHeader gives ParseHeader of the fixture another doc comment,
// commits and extracts, and opens the index, which it checks was updated.
func editParseHeader(t *testing.T, r *testgit.Repo, repo *gitstore.Repo, comment string) *Index {
	t.Helper()
	r.Write("fetch/retry.go", strings.Replace(retryGo, "// ParseHeader splits a raw header line into its name and payload.", comment, 1))
	r.Commit("edit")
	return updated(t, r, repo)
}

func TestUpdateAfterOneFileChange(t *testing.T) {
	r, repo := fixture(t)
	ix := open(t, repo, Options{Model: embed.LocalModel})
	oldDir := ix.dir
	ix.Close()

	up := editParseHeader(t, r, repo, "// ParseHeader splits a raw header line; quokka handling lives here.")
	if up.Memory != mem(t, repo).Commit {
		t.Fatal("index does not reflect the new memory")
	}
	if d, _ := top(t, up, "quokka"); d.Name != "ParseHeader" {
		t.Fatalf("new text: %+v", d)
	}
	hs, err := up.Lexical(context.Background(), QueryTerms("payload"), Boosts{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hs {
		if up.Doc(h.Doc).Name == "ParseHeader" {
			t.Fatal("the old text (\"payload\" in the doc comment) is still indexed")
		}
	}
	// The untouched file is still there, once.
	if d, hs := top(t, up, "RenderPage"); d.Name != "RenderPage" || len(hs) > 1 && up.Doc(hs[1].Doc).Name == "RenderPage" {
		t.Fatalf("untouched file: %+v", d)
	}
	if n := up.sx.live; n != up.Len() {
		t.Fatalf("the sections index holds %d sections, the table %d", n, up.Len())
	}
	if n := up.fx.live; n != 3 {
		t.Fatalf("the files index holds %d files, want 3", n)
	}
	if fs, err := up.Files(context.Background(), QueryTerms("quokka header"), 5, 1); err != nil || len(fs) != 1 || fs[0].Path != "fetch/retry.go" {
		t.Fatalf("whole files: %v %v", fs, err)
	}
	// An update must leave what a rebuild of the same memory makes: the
	// same sections, vectors and BM25 statistics, so the same answers.
	re := rebuilt(t, repo)
	if up.Vectors() == 0 || up.Vectors() != re.Vectors() || up.Len() != re.Len() || !reflect.DeepEqual(up.meta.Tokens, re.meta.Tokens) || up.files != re.files {
		t.Fatalf("update: %d vectors %d docs %v %d files; rebuild: %d vectors %d docs %v %d files",
			up.Vectors(), up.Len(), up.meta.Tokens, up.files, re.Vectors(), re.Len(), re.meta.Tokens, re.files)
	}
	for i := 0; i < re.Len(); i++ {
		if a, b := up.Doc(i), re.Doc(i); !reflect.DeepEqual(a, b) {
			t.Fatalf("doc %d: update %+v, rebuild %+v", i, a, b)
		}
	}
	hu, _ := up.Lexical(context.Background(), QueryTerms("header attempt delay page"), DefaultBoosts, 10)
	hr, _ := re.Lexical(context.Background(), QueryTerms("header attempt delay page"), DefaultBoosts, 10)
	if !reflect.DeepEqual(hu, hr) {
		t.Fatalf("updated and rebuilt indexes rank differently:\n%v\n%v", hu, hr)
	}
	// So do the vocabulary's counts, which query expansion and the
	// evidence label read: a replaced section's terms no longer count.
	for _, term := range []string{"payload", "header", "quokka", "attempt"} {
		if a, b := up.DocFreq(term), re.DocFreq(term); a != b {
			t.Errorf("DocFreq(%q): update %d, rebuild %d", term, a, b)
		}
	}
	for _, p := range []string{"pay", "head", "quo", "att"} {
		if a, b := up.PrefixTerms(p, 20), re.PrefixTerms(p, 20); !reflect.DeepEqual(a, b) {
			t.Errorf("PrefixTerms(%q): update %v, rebuild %v", p, a, b)
		}
	}
	re.Close()
	up.Close()
	up = open(t, repo, Options{Model: embed.LocalModel})
	replaced := up.dir
	up.Close()
	r.Write("web/page.go", "package web\n\n// RenderPage is gone.\n")
	r.Commit("edit again")
	extractAt(t, r)
	third := open(t, repo, Options{Model: embed.LocalModel})
	// The generation just replaced is kept one round (a reader may have it
	// open); older ones are pruned.
	if _, err := os.Stat(replaced); err != nil {
		t.Fatalf("the generation just replaced is gone: %v", err)
	}
	if _, err := os.Stat(oldDir); !os.IsNotExist(err) {
		t.Fatalf("an older generation is still present: %v", err)
	}
	if hs, _ := third.Lexical(context.Background(), QueryTerms("template html"), Boosts{}, 10); len(hs) > 0 && third.Doc(hs[0].Doc).Path == "web/page.go" {
		t.Fatal("removed function still found")
	}
}

// TestRefreshUpdatesWithoutOpening: Refresh brings the index up to the
// new memory and says how, and the next reader finds it current.
func TestRefreshUpdatesWithoutOpening(t *testing.T) {
	r, repo := fixture(t)
	open(t, repo, Options{Model: embed.LocalModel}).Close()
	r.Write("fetch/retry.go", strings.Replace(retryGo, "// ParseHeader splits a raw header line into its name and payload.", "// ParseHeader reads a wombat header.", 1))
	r.Commit("edit")
	extractAt(t, r)
	how, err := Refresh(context.Background(), repo, mem(t, repo), Options{Model: embed.LocalModel})
	if err != nil || how != "update" {
		t.Fatalf("Refresh: %q, %v; want update", how, err)
	}
	if how, err := Refresh(context.Background(), repo, mem(t, repo), Options{Model: embed.LocalModel}); err != nil || how != "current" {
		t.Fatalf("Refresh again: %q, %v; want current", how, err)
	}
	ix := open(t, repo, Options{Model: embed.LocalModel})
	if ix.How != "current" {
		t.Fatalf("the reader after Refresh: how %q, want current", ix.How)
	}
	if d, _ := top(t, ix, "wombat"); d.Name != "ParseHeader" {
		t.Fatalf("new text: %+v", d)
	}
}

// TestStillCurrent: a generation opened before the index lock is reused
// only while "current" names it.
func TestStillCurrent(t *testing.T) {
	_, repo := fixture(t)
	ix := open(t, repo, Options{Model: embed.LocalModel})
	dir, err := Dir(repo)
	if err != nil {
		t.Fatal(err)
	}
	if got := stillCurrent(dir, ix); got != ix {
		t.Fatal("the current generation was not reused")
	}
	if err := setCurrent(dir, "gnewer-000000000000"); err != nil {
		t.Fatal(err)
	}
	if got := stillCurrent(dir, ix); got != nil {
		t.Fatal("a generation no longer current was reused")
	}
	if ix.sx != nil {
		t.Fatal("the generation no longer current was left open")
	}
}

func TestRebuildsWhenDamaged(t *testing.T) {
	_, repo := fixture(t)
	ix := open(t, repo, Options{Model: embed.LocalModel})
	dir := ix.dir
	ix.Close()
	if err := os.WriteFile(filepath.Join(dir, "docs.bin"), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	again := open(t, repo, Options{Model: embed.LocalModel})
	if again.How != "build" {
		t.Fatalf("damaged generation: how %q, want build", again.How)
	}
	if d, _ := top(t, again, "parse header"); d.Name != "ParseHeader" {
		t.Fatal("rebuilt index does not answer")
	}
	again.Close()
	// A damaged pointer too.
	idx, _ := Dir(repo)
	os.WriteFile(filepath.Join(idx, currentFile), []byte("../../etc\n"), 0o644)
	if third := open(t, repo, Options{Model: embed.LocalModel}); third.How != "build" {
		t.Fatalf("bad current: how %q", third.How)
	}
}

// A generation whose search indexes are damaged (gone, or their
// manifest or a segment unreadable) is rebuilt by the reader that finds
// it, as one whose tables are, and neither Refresh nor Open fails or
// crashes on it.
func TestRebuildsWhenSearchIndexesAreDamaged(t *testing.T) {
	damages := map[string]func(gdir string) error{
		"sections gone": func(gdir string) error { return os.RemoveAll(filepath.Join(gdir, sectionsDir)) },
		"files gone":    func(gdir string) error { return os.RemoveAll(filepath.Join(gdir, filesDir)) },
		"sections manifest": func(gdir string) error {
			return os.WriteFile(filepath.Join(gdir, sectionsDir, segsManifest), []byte("garbage"), 0o644)
		},
		"sections segment": func(gdir string) error {
			return os.WriteFile(filepath.Join(gdir, sectionsDir, "1.kxs"), []byte("garbage"), 0o644)
		},
	}
	for name, damage := range damages {
		t.Run(name, func(t *testing.T) {
			_, repo := fixture(t)
			ix := open(t, repo, Options{Model: embed.LocalModel})
			dir := ix.dir
			ix.Close()
			if err := damage(dir); err != nil {
				t.Fatal(err)
			}
			if _, err := Refresh(context.Background(), repo, mem(t, repo), Options{Model: embed.LocalModel}); err != nil {
				t.Fatalf("Refresh: %v", err)
			}
			again := open(t, repo, Options{Model: embed.LocalModel})
			if again.dir == dir {
				t.Fatal("the damaged generation is still current")
			}
			if d, _ := top(t, again, "parse header"); d.Name != "ParseHeader" {
				t.Fatal("rebuilt index does not answer")
			}
			if fs, err := again.Files(context.Background(), QueryTerms("parse header"), 5, 1); err != nil || len(fs) == 0 {
				t.Fatalf("rebuilt files index: %v %v", fs, err)
			}
		})
	}
}

// A query never waits for another process's update: it answers from the
// generation it has, and says so.
func TestStaleWhileAnotherUpdates(t *testing.T) {
	r, repo := fixture(t)
	ix := open(t, repo, Options{Model: embed.LocalModel})
	before := ix.Memory
	ix.Close()
	r.Write("docs/guide.md", guideMD+"\n## Zebras\n\nZebra crossing notes.\n")
	r.Commit("edit")
	extractAt(t, r)
	lock, _, err := repo.TryLock("index")
	if err != nil {
		t.Fatal(err)
	}
	st := open(t, repo, Options{Model: embed.LocalModel})
	if !st.Stale || st.Memory != before {
		t.Fatalf("while locked: stale %v memory %s (was %s)", st.Stale, st.Memory, before)
	}
	lock.Unlock()
	st.Close()
	now := open(t, repo, Options{Model: embed.LocalModel})
	if now.Stale || now.How != "update" {
		t.Fatalf("after unlock: %+v", now.How)
	}
	if d, _ := top(t, now, "zebra crossing"); d.Path != "docs/guide.md" {
		t.Fatalf("zebra: %+v", d)
	}
}

func TestModelChangeReloadsVectors(t *testing.T) {
	_, repo := fixture(t)
	a := open(t, repo, Options{Model: embed.LocalModel})
	a.Close()
	// Memory holds no vectors of this model: the generation records that
	// and is not rebuilt on every open.
	b := open(t, repo, Options{Model: "openai:none"})
	if b.Vectors() != 0 || b.How == "current" {
		t.Fatalf("other model: %d vectors, how %q", b.Vectors(), b.How)
	}
	b.Close()
	if c := open(t, repo, Options{Model: "openai:none"}); c.How != "current" {
		t.Fatalf("same model again: how %q", c.How)
	}
}

func TestAnalyzer(t *testing.T) {
	got := Terms("parseHTTPRequest reads the Requests; parse_http_request utf8Decode x")
	want := []string{"parsehttprequest", "pars", "http", "request", "read", "parse_http_request", "utf8decode", "utf", "decod"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("terms %q\nwant  %q", got, want)
	}
}

// nearestExact scores every vector: the reference Nearest's shortlist is
// checked against.
func nearestExact(t *vecTable, q embed.Quantized, n int) []Hit {
	best := map[int]float64{}
	for i := 0; i < t.n; i++ {
		s := float64(embed.DotInt8(q.Q, t.q[i*t.dim:(i+1)*t.dim])) * float64(q.Scale) * float64(t.scales[i])
		if b, ok := best[int(t.docs[i])]; !ok || s > b {
			best[int(t.docs[i])] = s
		}
	}
	var hs []Hit
	for d, s := range best {
		hs = append(hs, Hit{Doc: d, Score: s})
	}
	sortHits(hs)
	return hs[:min(n, len(hs))]
}

// The sign-bit shortlist keeps the exact nearest neighbours: over 12,000
// embedded texts, a shortlist of 20 per hit holds the exact top 25.
func TestNearestShortlist(t *testing.T) {
	words := strings.Fields("parse request header retry backoff delay render template page chart legend config load file path open close read write buffer stream socket connect timeout cache store key value index search query rank vector embed token split identifier module package import export build test bench error panic recover lock mutex channel goroutine schedule")
	rng := rand.New(rand.NewPCG(1, 2))
	var texts []string
	for i := 0; i < 12000; i++ {
		var b strings.Builder
		for j := 0; j < 4+rng.IntN(12); j++ {
			w := words[rng.IntN(len(words))]
			if rng.IntN(3) == 0 {
				w += fmt.Sprintf("%c%c", 'a'+rng.IntN(26), 'a'+rng.IntN(26)) // rarer words
			}
			b.WriteString(w)
			b.WriteByte(' ')
		}
		texts = append(texts, b.String())
	}
	vs, err := embed.NewLocal().Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]vecRow, len(vs))
	for i, v := range vs {
		q := embed.Quantize(v)
		rows[i] = vecRow{doc: uint32(i), scale: q.Scale, q: q.Q}
	}
	var table bytes.Buffer
	if err := appendVecs(&table, embed.LocalModel, embed.LocalDim, rows); err != nil {
		t.Fatal(err)
	}
	vt, err := parseVecs(table.Bytes(), len(rows))
	if err != nil {
		t.Fatal(err)
	}
	ix := &Index{vecs: vt}
	for _, query := range []string{"retry the request after a timeout", "render a chart legend", "lock the mutex before writing the cache"} {
		qv, _ := embed.NewLocal().Embed(context.Background(), []string{query})
		q := embed.Quantize(qv[0])
		exact := nearestExact(vt, q, 25)
		short := map[int32]bool{}
		for _, r := range shortlist([]vecLayer{{t: vt, live: vt.n}}, sketch(nil, q.Q), 500, &ix.scratch)[0] {
			short[r] = true
		}
		missed := 0
		for _, h := range exact {
			if !short[int32(h.Doc)] {
				missed++
			}
		}
		if missed > 1 {
			t.Errorf("%q: the shortlist missed %d of the exact top 25", query, missed)
		}
		got := ix.Nearest(q, 10)
		want := nearestExact(vt, q, 10)
		for i := range want {
			if got[i].Doc != want[i].Doc && got[i].Score != want[i].Score {
				t.Errorf("%q: rank %d is %v, exact %v", query, i, got[i], want[i])
			}
		}
	}
}

// TestBuildingIsAnnounced checks that a caller hears of a build from
// scratch, with the number of records, and not of an update.
func TestBuildingIsAnnounced(t *testing.T) {
	r, repo := fixture(t)
	var calls []int
	note := func(n int) { calls = append(calls, n) }
	ix := open(t, repo, Options{Model: embed.LocalModel, Building: note})
	if ix.How != "build" || len(calls) != 1 || calls[0] != 3 {
		t.Fatalf("first open: how %q, Building calls %v (want one, 3 records)", ix.How, calls)
	}
	ix.Close()
	r.Write("fetch/retry.go", retryGo+"\n// one more line\n")
	r.Commit("edit")
	extractAt(t, r)
	up := open(t, repo, Options{Model: embed.LocalModel, Building: note})
	if up.How != "update" || len(calls) != 1 {
		t.Fatalf("update: how %q, Building calls %v", up.How, calls)
	}
}

// TestDocCache checks that the decoded docs an index keeps are the docs
// of its own generation: the same as decoding them afresh, unharmed by
// what a caller does with its copy, bounded, and never those of an older
// memory once memory changes.
func TestDocCache(t *testing.T) {
	r, repo := fixture(t)
	ix := open(t, repo, Options{Model: embed.LocalModel})
	for round := 0; round < 2; round++ { // decoded, then from the cache
		for i := 0; i < ix.Len(); i++ {
			if got, want := ix.Doc(i), ix.docs.doc(i); !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d, doc %d: %+v, decoded afresh %+v", round, i, got, want)
			}
		}
	}
	i := ix.Find("fetch/retry.go#func:ParseHeader")
	if i < 0 {
		t.Fatal("ParseHeader not indexed")
	}
	d := ix.Doc(i)
	if len(d.Topics) == 0 {
		t.Fatalf("ParseHeader has no topics: %+v", d)
	}
	d.Name = "changed"
	_ = append(d.Topics, "appended")
	if again := ix.Doc(i); again.Name != "ParseHeader" || !reflect.DeepEqual(again, ix.docs.doc(i)) {
		t.Fatalf("a caller's copy changed the cache: %+v", again)
	}

	// Memory changes while this index is open (a long-lived searcher):
	// the new generation answers with the new docs.
	up := editParseHeader(t, r, repo, "// ParseHeader reads a quokka from a raw header line.")
	j := up.Find("fetch/retry.go#func:ParseHeader")
	if j < 0 {
		t.Fatal("ParseHeader not indexed after the change")
	}
	if s := up.Doc(j).Summary; !strings.Contains(s, "quokka") {
		t.Fatalf("new generation's summary %q: want the new text", s)
	}
	if s := ix.Doc(i).Summary; strings.Contains(s, "quokka") {
		t.Fatalf("old generation's summary %q changed", s)
	}

	// Bounded: past maxCachedDocs the cache starts over, and answers stay
	// right.
	old := maxCachedDocs
	maxCachedDocs = 2
	defer func() { maxCachedDocs = old }()
	for round := 0; round < 3; round++ {
		for k := 0; k < up.Len(); k++ {
			if got, want := up.Doc(k), up.docs.doc(k); !reflect.DeepEqual(got, want) {
				t.Fatalf("bounded cache, doc %d: %+v, want %+v", k, got, want)
			}
			if s := up.docs.cached.Load(); s != nil && s.count() > maxCachedDocs {
				t.Fatalf("cache holds %d docs, bound %d", s.count(), maxCachedDocs)
			}
		}
	}
}

func TestStartLineIsDocs(t *testing.T) {
	_, repo := fixture(t)
	ix := open(t, repo, Options{Model: embed.LocalModel})
	for i := 0; i < ix.Len(); i++ {
		if got, want := ix.StartLine(i), ix.Doc(i).StartLine; got != want || want == 0 {
			t.Fatalf("doc %d: StartLine %d, Doc %d", i, got, want)
		}
	}
}

// TestGenerationServesMemoryWithTheSameRecords: a memory commit that
// changes no record (history, durable memories) is served by the current
// generation as it is, which then says it describes that commit; no new
// generation is written.
func TestGenerationServesMemoryWithTheSameRecords(t *testing.T) {
	_, repo := fixture(t)
	ix := open(t, repo, Options{Model: embed.LocalModel})
	gen := ix.dir
	ix.Close()
	next, err := memref.Update(repo, "a durable note", func(ed *gitstore.TreeEditor, w *gitstore.Writer, _ *memref.Memory) error {
		h, err := w.Blob([]byte("note"))
		if err != nil {
			return err
		}
		return ed.Set("durable/memories/ab/note", gitstore.ModeRegular, h)
	})
	if err != nil {
		t.Fatal(err)
	}
	again := open(t, repo, Options{Model: embed.LocalModel})
	if again.How != "current" || again.Memory != next || again.dir != gen {
		t.Fatalf("after a commit with the same records: how %s, memory %s (want %s), generation %s (was %s)", again.How, again.Memory, next, again.dir, gen)
	}
	if d, _ := top(t, again, "doubling the delay"); d.Path != "fetch/retry.go" {
		t.Fatalf("answer: %+v", d)
	}
}

// TestTiesAtTheCutOffKeepTheLowestIDs: when more sections score exactly
// the same than a search returns, the ones kept are those with the
// lowest ids whatever segment holds them, so an index updated in place
// and one rebuilt from the same memory answer alike.
func TestTiesAtTheCutOffKeepTheLowestIDs(t *testing.T) {
	r := testgit.New(t)
	const text = "The walrus gateway forwards every request unchanged.\n"
	for _, p := range []string{"notes/b.txt", "notes/c.txt", "notes/d.txt", "notes/e.txt"} {
		r.Write(p, text)
	}
	r.Commit("notes")
	repo := extractAt(t, r)
	open(t, repo, Options{}).Close()
	// A section with a lower id arrives in a later update, in a segment
	// of its own.
	r.Write("notes/a.txt", text)
	r.Commit("one more note")
	if _, err := extract.Run(context.Background(), repo, extract.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, rebuild := range []bool{false, true} {
		ix := open(t, repo, Options{Rebuild: rebuild})
		hs, err := ix.Lexical(context.Background(), QueryTerms("walrus gateway"), Boosts{}, 2)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range hs {
			got = append(got, ix.Doc(h.Doc).Path)
		}
		if len(hs) != 2 || hs[0].Score != hs[1].Score || got[0] != "notes/a.txt" || got[1] != "notes/b.txt" {
			t.Errorf("rebuild %v: kept %v (%v), want the two lowest ids notes/a.txt and notes/b.txt", rebuild, got, hs)
		}
		ix.Close()
	}
}

// Nearest takes each doc's best vector whether the table holds a doc's
// vectors together (in doc order, as tables are written) or apart: the
// same hits as the exact search, ties included.
func TestNearestBestOfEachDoc(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	for _, ordered := range []bool{true, false} {
		var rows []vecRow
		for d := 0; d < 900; d++ {
			for k := 0; k < 1+rng.IntN(4); k++ {
				v := make([]float32, embed.LocalDim)
				for j := range v {
					v[j] = float32(rng.NormFloat64())
				}
				if d%50 == 0 && k == 0 && len(rows) > 0 {
					// an exact tie with the row before
					q := rows[len(rows)-1]
					rows = append(rows, vecRow{doc: uint32(d), scale: q.scale, q: q.q})
					continue
				}
				q := embed.Quantize(v)
				rows = append(rows, vecRow{doc: uint32(d), scale: q.Scale, q: q.Q})
			}
		}
		if !ordered {
			rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		}
		var table bytes.Buffer
		if err := appendVecs(&table, embed.LocalModel, embed.LocalDim, rows); err != nil {
			t.Fatal(err)
		}
		vt, err := parseVecs(table.Bytes(), 900)
		if err != nil {
			t.Fatal(err)
		}
		ix := &Index{vecs: vt}
		for k := 0; k < 5; k++ {
			v := make([]float32, embed.LocalDim)
			for j := range v {
				v[j] = float32(rng.NormFloat64())
			}
			q := embed.Quantize(v)
			got, want := ix.Nearest(q, 50), nearestExact(vt, q, 50)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("ordered %v, query %d:\n got %v\nwant %v", ordered, k, got, want)
			}
		}
	}
}
