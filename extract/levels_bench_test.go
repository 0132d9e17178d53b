package extract

import (
	"testing"
	"time"

	"github.com/konteks/git-konteks/internal/benchrepo"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// BenchmarkDerive measures what the project map adds per file during
// extraction (abstract, skeleton, entities, imports as written) over every
// record of the memory of KONTEKS_BENCH_REPO (e.g. the Go toolchain's src;
// see scripts/bench-extract.sh): one op is the whole tree.
func BenchmarkDerive(b *testing.B) {
	repo, mem := benchrepo.Open(b)
	refs, err := memref.Records(repo, mem.Tree)
	if err != nil {
		b.Fatal(err)
	}
	var files []*memory.File
	for _, r := range refs {
		f, err := memref.DecodeRecord(repo, r.Blob, r.Path)
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, f)
	}
	b.ResetTimer()
	var took time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		for k, f := range files {
			derive(f, refs[k].Path)
		}
		took += time.Since(t0)
	}
	b.ReportMetric(float64(took.Microseconds())/float64(b.N)/float64(len(files)), "µs/file")
}
