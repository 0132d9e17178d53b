package index

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/embed"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// newSectionDocs counts the section documents the sections index holds
// in segments the generation at dir does not share with the one at
// before: what an update indexed.
func newSectionDocs(t *testing.T, ix *Index, before string) uint64 {
	t.Helper()
	old, err := filepath.Glob(filepath.Join(before, sectionsDir, "*.kxs"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range old {
		old[i] = filepath.Base(old[i])
	}
	var n uint64
	for _, in := range ix.sx.info {
		if !slices.Contains(old, in.Name) {
			n += uint64(in.Docs)
		}
	}
	return n
}

// A change to one section of a file re-indexes that section (and the
// whole file's document), not every section of the file: the others'
// documents would be the same. The index still answers as a rebuild.
func TestUpdateIndexesOnlyChangedSections(t *testing.T) {
	// The fixture is small: its updates would soon outgrow an eighth of
	// the build and merge everything.
	defer func(n int64) { tailShare = n }(tailShare)
	tailShare = 0
	r, repo := fixture(t)
	ix := open(t, repo, Options{Model: embed.LocalModel})
	before := ix.dir
	var sections int
	for i := 0; i < ix.Len(); i++ {
		if ix.Doc(i).Path == "fetch/retry.go" {
			sections++
		}
	}
	ix.Close()
	if sections < 3 {
		t.Fatalf("fetch/retry.go has %d sections; the test needs several", sections)
	}
	up := editParseHeader(t, r, repo, "// ParseHeader splits a raw header line; quokka handling lives here.")
	if n := newSectionDocs(t, up, before); n != 1 {
		t.Fatalf("the update indexed %d section documents of a file of %d with one section changed, want 1", n, sections)
	}
	if d, _ := top(t, up, "quokka"); d.Name != "ParseHeader" {
		t.Fatalf("changed section: %+v", d)
	}
	if d, _ := top(t, up, "backoff"); d.Name != "Backoff" {
		t.Fatalf("kept section: %+v", d)
	}
	if n := up.sx.live; n != up.Len() {
		t.Fatalf("the sections index holds %d sections, the table %d", n, up.Len())
	}
	re := rebuilt(t, repo)
	sameGeneration(t, up, re)
	for _, q := range []string{"quokka header", "payload", "backoff attempt delay", "retry"} {
		hu, _ := up.Lexical(context.Background(), QueryTerms(q), DefaultBoosts, 10)
		hr, _ := re.Lexical(context.Background(), QueryTerms(q), DefaultBoosts, 10)
		if !slices.Equal(hu, hr) {
			t.Fatalf("%q: updated and rebuilt indexes rank differently:\n%v\n%v", q, hu, hr)
		}
	}

	// A section removed from the file goes from bleve too.
	up.Close()
	r.Write("fetch/retry.go", strings.Replace(retryGo, "func Backoff", "func backoffGone", 1))
	r.Commit("rename")
	third := updated(t, r, repo)
	if n := third.sx.live; n != third.Len() {
		t.Fatalf("the sections index holds %d sections, the table %d", n, third.Len())
	}
	if hs, _ := third.Lexical(context.Background(), QueryTerms("quokka"), Boosts{}, 10); len(hs) > 0 {
		t.Fatalf("the text of the edit before (quokka) is still found: %v", third.Doc(hs[0].Doc))
	}
}

// A section id a record holds twice gets no print, so an update always
// indexes its documents again; the others have one, and equal documents
// have equal prints.
func TestPrintsOfDuplicateIDs(t *testing.T) {
	sec := func(anchor, content string) memory.Section {
		return memory.Section{Anchor: anchor, Kind: "code", Language: "Go", Name: anchor, StartLine: 1, EndLine: 2, Content: content}
	}
	f := &memory.File{Version: memory.RecordVersion, Blob: strings.Repeat("ab", 20), Kind: "code", Language: "Go",
		Sections: []memory.Section{sec("A", "one"), sec("B", "two"), sec("A", "three"), sec("C", "two")}}
	rd := makeDocs(newAnalyzer(), "x.go", f, false, nil)
	var zero docPrint
	for i, sd := range rd.sections {
		if dup := sd.doc.Anchor == "A"; dup != (sd.doc.print == zero) {
			t.Errorf("section %d (%s): print %x", i, sd.doc.Anchor, sd.doc.print)
		}
	}
	g := &memory.File{Version: memory.RecordVersion, Blob: strings.Repeat("cd", 20), Kind: "code", Language: "Go",
		Sections: []memory.Section{sec("B", "two"), sec("C", "changed")}}
	rg := makeDocs(newAnalyzer(), "x.go", g, false, nil)
	if rg.sections[0].doc.print != rd.sections[1].doc.print {
		t.Error("the same section document has another print")
	}
	if rg.sections[1].doc.print == rd.sections[3].doc.print {
		t.Error("a changed section document has the same print")
	}
}

// putRecords commits records to the memory ref as they are, as a peer's
// memory may hold them (nil deletes a path's record).
func putRecords(t *testing.T, repo *gitstore.Repo, recs map[string]*memory.File) {
	t.Helper()
	_, err := memref.Update(repo, "records", func(ed *gitstore.TreeEditor, w *gitstore.Writer, _ *memref.Memory) error {
		for p, f := range recs {
			if f == nil {
				if err := ed.Delete(memory.FilePath(p)); err != nil {
					return err
				}
				continue
			}
			b, err := memory.EncodeFile(f)
			if err != nil {
				return err
			}
			h, err := w.Blob(b)
			if err != nil {
				return err
			}
			if err := ed.Set(memory.FilePath(p), gitstore.ModeRegular, h); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Two paths' sections can have one id: "h/x" with anchor "A#B" and
// "h/x#A" with anchor "B" are both "h/x#A#B". The docs table keeps one of
// them and bleve the document indexed last, so a print the table holds
// for such an id does not say what bleve holds: an update indexes such a
// section again, as it did before prints. Here the table kept h/x's and
// bleve held h/x#A's; once h/x#A is gone, h/x's text must be found and
// h/x#A's not, as in a rebuild.
func TestUpdateReindexesIDsAnotherPathCanHave(t *testing.T) {
	_, repo := fixture(t)
	sec := func(anchor, content string) memory.Section {
		return memory.Section{Anchor: anchor, Kind: "code", Language: "Go", Name: "n", StartLine: 1, EndLine: 2, Content: content}
	}
	rec := func(blob string, ss ...memory.Section) *memory.File {
		return &memory.File{Version: memory.RecordVersion, Blob: strings.Repeat(blob, 20), Kind: "code", Language: "Go", Sections: ss}
	}
	putRecords(t, repo, map[string]*memory.File{"h/x": rec("a1", sec("A#B", "alpha zebra"), sec("C", "charlie one"))})
	if ix := open(t, repo, Options{Model: embed.LocalModel}); ix.How != "build" || !ix.meta.PlainPaths {
		t.Fatalf("how %q, plain paths %v; want a build of plain paths", ix.How, ix.meta.PlainPaths)
	}
	steps := []map[string]*memory.File{
		{"h/x#A": rec("b1", sec("B", "bravo yak"))},
		{"h/x": rec("a2", sec("A#B", "alpha zebra"), sec("C", "charlie two"))},
		{"h/x#A": nil},
	}
	var up *Index
	for i, recs := range steps {
		putRecords(t, repo, recs)
		if up = open(t, repo, Options{Model: embed.LocalModel}); up.How != "update" || up.meta.PlainPaths {
			t.Fatalf("step %d: how %q, plain paths %v; want an update knowing a path holds '#'", i, up.How, up.meta.PlainPaths)
		}
	}
	ctx := context.Background()
	if hs, _ := up.Lexical(ctx, QueryTerms("yak"), DefaultBoosts, 10); len(hs) > 0 {
		t.Errorf("the text of a deleted record is found: %+v", up.Doc(hs[0].Doc))
	}
	if hs, _ := up.Lexical(ctx, QueryTerms("zebra"), DefaultBoosts, 10); len(hs) != 1 || up.Doc(hs[0].Doc).ID != "h/x#A#B" {
		t.Errorf("zebra: %v", hs)
	}
	re := rebuilt(t, repo)
	sameGeneration(t, up, re)
	for _, q := range []string{"alpha zebra", "bravo yak", "charlie"} {
		hu, _ := up.Lexical(ctx, QueryTerms(q), DefaultBoosts, 100)
		hr, _ := re.Lexical(ctx, QueryTerms(q), DefaultBoosts, 100)
		if !slices.Equal(hu, hr) {
			t.Errorf("%q: updated and rebuilt indexes rank differently:\n%v\n%v", q, hu, hr)
		}
	}
}

// While no path of the memory holds a '#', a section whose anchor holds
// one (an overload, "name#2") has a print: no other path's id can end in
// its anchor. Once one does, it has none; a section whose path holds a
// '#' never has one.
func TestPrintsOfAnchorsWithHash(t *testing.T) {
	f := &memory.File{Version: memory.RecordVersion, Blob: strings.Repeat("ab", 20), Kind: "code", Language: "C++",
		Sections: []memory.Section{{Anchor: "func:f", Kind: "code", Content: "one"}, {Anchor: "func:f#2", Kind: "code", Content: "two"}}}
	var zero docPrint
	for _, c := range []struct {
		path        string
		plain       bool
		want, want2 bool // a print for func:f, for func:f#2
	}{
		{"src/a.cc", true, true, true},
		{"src/a.cc", false, true, false},
		{"src/a#b.cc", false, false, false},
	} {
		rd := makeDocs(newAnalyzer(), c.path, f, c.plain, nil)
		if got, got2 := rd.sections[0].doc.print != zero, rd.sections[1].doc.print != zero; got != c.want || got2 != c.want2 {
			t.Errorf("%s, plain paths %v: prints %v %v, want %v %v", c.path, c.plain, got, got2, c.want, c.want2)
		}
	}
}
