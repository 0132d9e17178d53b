package index

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/embed"
	"github.com/konteks/git-konteks/extract"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// TestFreshRecordsIndexAsRead: the records a run hands over in memory
// (extract.Result.Fresh) make the generation that reading them back from
// git makes, for files of every shape a run meets (chunked code, odd
// characters, Markdown with CRLF, Latin-1 text); and the update does take them from Fresh, not from git (a
// record changed in Fresh changes the generation).
func TestFreshRecordsIndexAsRead(t *testing.T) {
	r, repo := fixture(t)
	open(t, repo, Options{Model: embed.LocalModel}).Close()
	var long strings.Builder
	long.WriteString("package fetch\n\n")
	for i := 0; i < 400; i++ {
		long.WriteString("// Step advances the quokka counter one line at a time.\nfunc Step" + strings.Repeat("x", i%7) + "() {}\n")
	}
	r.Write("fetch/long.go", long.String())
	r.Write("fetch/odd.go", "package fetch\n\n// Odd holds \u2028 line separators, tabs\tand \"quotes\" \\ too.\nfunc Odd() string { return \"\u2029\\x00\" }\n")
	r.Write("docs/notes.md", "# Notes\r\n\r\nCarriage returns and résumé — ok 😀.\r\n")
	r.Write("docs/latin1.txt", "caf\xe9 au lait, a quokka's breakfast\n")
	r.Commit("shapes")
	ctx := context.Background()
	res, err := extract.Run(ctx, repo, extract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Fresh) < 3 {
		t.Fatalf("%d fresh records, want the run's own", len(res.Fresh))
	}
	m := mem(t, repo)
	refs, err := memref.Records(repo, m.Tree)
	if err != nil {
		t.Fatal(err)
	}
	// Each record handed over is what decoding its blob gives (the
	// Latin-1 file's text is made UTF-8 by extraction, so it is one).
	n := 0
	for _, ref := range refs {
		f := res.Fresh[ref.Blob]
		if f == nil {
			continue
		}
		n++
		raw, err := repo.BlobBytes(ref.Blob, memory.MaxCompressedSize)
		if err != nil {
			t.Fatal(err)
		}
		want, err := memory.DecodeSections(raw)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(f, want) {
			t.Fatalf("%s: the record handed over is not the one stored", ref.Path)
		}
	}
	if n != len(res.Fresh) {
		t.Fatalf("%d of %d fresh records are in memory", n, len(res.Fresh))
	}
	up, err := Update(ctx, repo, m, Options{Model: embed.LocalModel, Fresh: res.Fresh})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	if up.How != "update" {
		t.Fatalf("how %q, want update", up.How)
	}
	re, err := Open(ctx, repo, m, Options{Model: embed.LocalModel, Rebuild: true})
	if err != nil {
		t.Fatal(err)
	}
	defer re.Close()
	sameGeneration(t, up, re)
	for _, q := range []string{"quokka counter step", "line separators quotes", "carriage returns", "cafe au lait"} {
		hu, _ := up.Lexical(ctx, QueryTerms(q), DefaultBoosts, 10)
		hr, _ := re.Lexical(ctx, QueryTerms(q), DefaultBoosts, 10)
		if !reflect.DeepEqual(hu, hr) {
			t.Fatalf("%q: updated with fresh records and rebuilt rank differently:\n%v\n%v", q, hu, hr)
		}
	}

	// The update reads Fresh: a record changed there shows in the
	// generation (the next run's record of long.go, its text swapped).
	r.Write("fetch/long.go", strings.Replace(long.String(), "quokka", "wombat", 1))
	r.Commit("edit")
	res, err = extract.Run(ctx, repo, extract.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tampered := map[gitstore.Hash]*memory.File{}
	for h, f := range res.Fresh {
		c := *f
		c.Sections = append([]memory.Section(nil), f.Sections...)
		for i := range c.Sections {
			c.Sections[i].Content = strings.ReplaceAll(c.Sections[i].Content, "wombat", "platypus")
		}
		tampered[h] = &c
	}
	got, err := Update(ctx, repo, mem(t, repo), Options{Model: embed.LocalModel, Fresh: tampered})
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	if hs, _ := got.Lexical(ctx, QueryTerms("platypus"), DefaultBoosts, 10); len(hs) == 0 {
		t.Fatal("the update did not index the records it was handed")
	}
}
