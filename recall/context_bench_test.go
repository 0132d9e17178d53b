package recall

import (
	"context"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/konteks/git-konteks/gitstore"
)

// BenchmarkContext measures in-process context pack latency (index
// already open) on the repository KONTEKS_BENCH_REPO names, reporting p50
// and p95.
func BenchmarkContext(b *testing.B) {
	dir := os.Getenv("KONTEKS_BENCH_REPO")
	if dir == "" {
		b.Skip("KONTEKS_BENCH_REPO not set (see scripts/bench-recall.sh)")
	}
	repo, err := gitstore.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	s, err := Open(ctx, repo, OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for _, q := range benchQueries { // warm the page cache
		if _, err := s.Context(ctx, q, PackOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := benchQueries[i%len(benchQueries)]
		t0 := time.Now()
		if _, err := s.Context(ctx, q, PackOptions{}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
}
