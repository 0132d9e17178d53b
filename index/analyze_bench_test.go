package index

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchCorpus is the Go source of a few of this module's packages: real
// identifiers, comments and strings.
func benchCorpus(b *testing.B) []string {
	var docs []string
	for _, dir := range []string{"../gitstore", "../extract", "../recall"} {
		names, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			b.Fatal(err)
		}
		for _, n := range names {
			if strings.HasSuffix(n, "_test.go") {
				continue
			}
			data, err := os.ReadFile(n)
			if err != nil {
				b.Fatal(err)
			}
			docs = append(docs, string(data))
		}
	}
	if len(docs) == 0 {
		b.Fatal("no corpus")
	}
	return docs
}

// BenchmarkAnalyze measures the analyzer on source text: "cold" starts
// every pass with empty caches (each distinct word is split and stemmed),
// "warm" reuses one analyzer (the word cache answers).
func BenchmarkAnalyze(b *testing.B) {
	docs := benchCorpus(b)
	size := 0
	for _, d := range docs {
		size += len(d)
	}
	for _, warm := range []bool{false, true} {
		name := "cold"
		if warm {
			name = "warm"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			a := newAnalyzer()
			for i := 0; i < b.N; i++ {
				if !warm {
					a = newAnalyzer()
				}
				for _, d := range docs {
					a.field(d, true)
				}
			}
		})
	}
}
