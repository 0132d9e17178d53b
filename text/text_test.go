package text

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.txt from the current output")

// golden renders everything the package emits for a corpus: the stop
// list, and for each line its words, parts in both digit modes, search
// terms and split.
func golden(corpus string) string {
	var b strings.Builder
	stops := StopWords()
	slices.Sort(stops)
	b.WriteString("stop: " + strings.Join(stops, " ") + "\n")
	for _, line := range strings.Split(strings.TrimRight(corpus, "\n"), "\n") {
		var words, split, keep []string
		Words(line, func(w string) {
			words = append(words, w)
			split = append(split, strings.Join(AppendParts(nil, w, SplitDigits), " "))
			keep = append(keep, strings.Join(AppendParts(nil, w, KeepDigits), " "))
		})
		b.WriteString("\n> " + line + "\n")
		b.WriteString("words: " + strings.Join(words, "|") + "\n")
		b.WriteString("parts: " + strings.Join(split, "|") + "\n")
		b.WriteString("keep:  " + strings.Join(keep, "|") + "\n")
		b.WriteString("terms: " + strings.Join(Terms(line), " ") + "\n")
		b.WriteString("split: " + strings.Join(SplitIdentifier(line), " ") + "\n")
	}
	return b.String()
}

// TestGolden pins the package's output over a fixed corpus. The search
// index holds these terms, the built-in embedder's vectors are made of
// these parts, and records hold these splits: when the output changes,
// so do those formats.
func TestGolden(t *testing.T) {
	corpus, err := os.ReadFile(filepath.Join("testdata", "corpus.txt"))
	if err != nil {
		t.Fatal(err)
	}
	got := golden(string(corpus))
	path := filepath.Join("testdata", "golden.txt")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got == string(want) {
		return
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(gl), len(wl)); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Errorf("line %d:\n got: %s\nwant: %s", i+1, g, w)
			break
		}
	}
	t.Fatal("the text package's output changed. The index, the built-in embedder and records " +
		"are made of it: bump index.FormatVersion and embed.LocalModel (and memory.RecordVersion " +
		"if SplitIdentifier changed), add a line to each version log, then run " +
		"go test ./text -run TestGolden -update")
}

// AppendSplit is SplitIdentifier in one pass: it must agree with the
// parts (KeepDigits) of the words of the same text.
func TestSplitIsPartsOfWords(t *testing.T) {
	corpus, err := os.ReadFile(filepath.Join("testdata", "corpus.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(corpus), "\n") {
		var want []string
		Words(line, func(w string) { want = AppendParts(want, w, KeepDigits) })
		if got := SplitIdentifier(line); !slices.Equal(got, want) {
			t.Errorf("SplitIdentifier(%q) = %q, parts of words %q", line, got, want)
		}
	}
}

func TestParts(t *testing.T) {
	for _, c := range []struct {
		in     string
		digits bool
		want   string
	}{
		{"parseHTTPRequest", SplitDigits, "parse http request"},
		{"parse_http_request", SplitDigits, "parse http request"},
		{"pypy310", SplitDigits, "pypy 310"},
		{"pypy310", KeepDigits, "pypy310"},
		{"utf8Decode", KeepDigits, "utf8 decode"},
		{"utf8Decode", SplitDigits, "utf 8 decode"},
		{"__init__", SplitDigits, "init"},
		{"HTTP", SplitDigits, "http"},
		{"東京Tower", SplitDigits, "東京tower"}, // 東 is not lowercase: no hump,
		{"naïveCafé", SplitDigits, "naïve café"},
		{"café2go", SplitDigits, "café 2 go"},
		{"café2go", KeepDigits, "café2go"},
		{"", SplitDigits, ""},
	} {
		if got := strings.Join(AppendParts(nil, c.in, c.digits), " "); got != c.want {
			t.Errorf("AppendParts(%q, %v) = %q, want %q", c.in, c.digits, got, c.want)
		}
	}
}

func TestTerms(t *testing.T) {
	got := strings.Join(Terms("The parseHTTPRequests of pypy310 were cached"), " ")
	if want := "parsehttprequests pars http request pypy310 pypi 310 cach"; got != want {
		t.Errorf("Terms = %q, want %q", got, want)
	}
}

// A part that needed no lowercasing is a substring of its word, and the
// analyzer's cache keeps no reference into the text it was given.
func TestAllocations(t *testing.T) {
	parts := make([]string, 0, 8)
	if n := testing.AllocsPerRun(100, func() { parts = AppendParts(parts[:0], "parse_http_request", SplitDigits) }); n != 0 {
		t.Errorf("AppendParts of a lowercase word allocates %v times", n)
	}
	var a Analyzer
	terms := make([]string, 0, 8)
	a.AppendTerms(terms, "requests")
	if n := testing.AllocsPerRun(100, func() { terms = a.AppendTerms(terms[:0], "requests") }); n != 0 {
		t.Errorf("AppendTerms of a one-part word whose stem is cached allocates %v times", n)
	}
}

func BenchmarkTerms(b *testing.B) {
	corpus, err := os.ReadFile(filepath.Join("testdata", "corpus.txt"))
	if err != nil {
		b.Fatal(err)
	}
	s := string(corpus)
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	var a Analyzer
	var out []string
	for i := 0; i < b.N; i++ {
		Words(s, func(w string) { out = a.AppendTerms(out[:0], w) })
	}
}
