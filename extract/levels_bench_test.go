package extract

import (
	"os"
	"testing"
	"time"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// BenchmarkDerive measures what the project map adds per file during
// extraction (abstract, skeleton, entities, imports as written) over every
// record of the memory of KONTEKS_BENCH_REPO (e.g. the Go toolchain's src;
// see scripts/bench-extract.sh): one op is the whole tree.
func BenchmarkDerive(b *testing.B) {
	dir := os.Getenv("KONTEKS_BENCH_REPO")
	if dir == "" {
		b.Skip("KONTEKS_BENCH_REPO is not set")
	}
	repo, err := gitstore.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	mem, err := memref.Read(repo, memory.Ref)
	if err != nil || mem == nil {
		b.Fatal("no memory", err)
	}
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
