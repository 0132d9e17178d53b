package index

import (
	"reflect"
	"testing"

	"github.com/blevesearch/bleve/v2/document"

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
