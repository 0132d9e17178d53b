package index

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/konteks/git-konteks/embed"
	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// benchRepo opens the repository named by KONTEKS_BENCH_REPO (made by
// scripts/bench-recall.sh: a large real tree with memory extracted), or
// skips.
func benchRepo(b *testing.B) (*gitstore.Repo, *memref.Memory) {
	dir := os.Getenv("KONTEKS_BENCH_REPO")
	if dir == "" {
		b.Skip("KONTEKS_BENCH_REPO not set (see scripts/bench-recall.sh)")
	}
	repo, err := gitstore.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	mem, err := memref.Read(repo, memory.Ref)
	if err != nil || mem == nil {
		b.Fatalf("no memory in %s: %v", dir, err)
	}
	return repo, mem
}

// BenchmarkColdBuild builds the index from the memory ref from scratch, as
// the first query after a fetch does.
func BenchmarkColdBuild(b *testing.B) {
	repo, mem := benchRepo(b)
	for i := 0; i < b.N; i++ {
		c0 := cpuTime()
		ix, err := Open(context.Background(), repo, mem, Options{Model: embed.LocalModel, Rebuild: true})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(ix.Len()), "sections")
		b.ReportMetric(float64(ix.Vectors()), "vectors")
		b.ReportMetric((cpuTime() - c0).Seconds(), "cpu-s")
		ix.Close()
	}
}

// cpuTime is the process's user+system CPU time so far: on a shared
// machine it says more than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
