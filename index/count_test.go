package index

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/memory"
)

// Counting kept sections gives the file's document and every section's
// lengths that making their documents gives, wherever the analyzer's
// vocabulary reset falls: before the file, in any section's text, name
// or path, or after it; and the analyzer is left as the full analysis
// leaves it for the next file.
func TestCountMatchesFieldAcrossResets(t *testing.T) {
	var secs []memory.Section
	for i := 0; i < 6; i++ {
		var c strings.Builder
		for k := 0; k < 8; k++ {
			fmt.Fprintf(&c, "w%dx%d parseHTTPRequest%d requests io v%d ", i, k, k, k)
		}
		s := memory.Section{Anchor: fmt.Sprint("S", i), Kind: "code", StartLine: i*10 + 1, EndLine: i*10 + 9, Content: c.String()}
		if i%2 == 0 {
			s.Name, s.QName = fmt.Sprint("nameOf", i), fmt.Sprint("pkg.nameOf", i)
		}
		secs = append(secs, s)
	}
	f := &memory.File{Version: memory.RecordVersion, Blob: strings.Repeat("ab", 20), Kind: "code", Language: "Go", Sections: secs}
	const path = "some/dir/file_v2.go"
	full := makeDocs(newAnalyzer(), path, f, true, nil)
	next := &memory.File{Version: memory.RecordVersion, Blob: strings.Repeat("cd", 20), Kind: "code", Language: "Go",
		Sections: []memory.Section{{Anchor: "N", Kind: "code", StartLine: 1, EndLine: 2, Content: "next file words v3 io"}}}
	fullNext := makeDocs(newAnalyzer(), "next.go", next, true, nil)
	keptAll := map[string]docPrint{}
	keptSome := map[string]docPrint{}
	for i, sd := range full.sections {
		keptAll[sd.doc.ID] = sd.doc.print
		if i%3 != 1 {
			keptSome[sd.doc.ID] = sd.doc.print
		}
	}
	prefilled := func(room int) *analyzer {
		a := newAnalyzer()
		n := maxCachedWords - room
		a.vocab = make([]string, n)
		a.vbytes = make([][]byte, n)
		a.counts = make([]int32, n)
		a.fcounts = make([]int32, n)
		return a
	}
	fileOf := func(e *fileEntry) (map[string]int, int) {
		m := map[string]int{}
		for _, tf := range e.terms[0] {
			m[tf.term] += int(tf.freq)
		}
		return m, int(e.lens[0])
	}
	wantTerms, wantLen := fileOf(full.file)
	wantNext, wantNextLen := fileOf(fullNext.file)
	variants := []map[string]docPrint{nil, keptSome, keptAll}
	for room := 0; room < 400; room += 3 {
		// Each reset point with one of the three (in turn): all three at
		// every point made this the slowest test of the package under
		// -race.
		for ki := room / 3 % 3; ki == room/3%3; ki++ {
			kept := variants[ki]
			a := prefilled(room)
			rd := makeDocs(a, path, f, true, kept)
			if rd.file == nil {
				t.Fatalf("room %d kept %d: no file document", room, ki)
			}
			gt, gl := fileOf(rd.file)
			if gl != wantLen || !reflect.DeepEqual(gt, wantTerms) {
				t.Fatalf("room %d kept %d: file document %d %v, want %d %v", room, ki, gl, gt, wantLen, wantTerms)
			}
			for i, sd := range rd.sections {
				if sd.doc.lens != full.sections[i].doc.lens || sd.doc.print != full.sections[i].doc.print {
					t.Fatalf("room %d kept %d: section %d lens %v, want %v", room, ki, i, sd.doc.lens, full.sections[i].doc.lens)
				}
			}
			rn := makeDocs(a, "next.go", next, true, nil)
			nt, nl := fileOf(rn.file)
			if nl != wantNextLen || !reflect.DeepEqual(nt, wantNext) {
				t.Fatalf("room %d kept %d: the next file's document %d %v, want %d %v", room, ki, nl, nt, wantNextLen, wantNext)
			}
		}
	}
}
