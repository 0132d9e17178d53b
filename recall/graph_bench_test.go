package recall

import (
	"context"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/konteks/git-konteks/gitstore"
)

// BenchmarkQueryGraph is BenchmarkQuery with every graph signal on, next to
// the same queries without it (p50/p95 of each), on KONTEKS_BENCH_REPO.
func BenchmarkQueryGraph(b *testing.B) {
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
	plain := DefaultRanking
	plain.GraphRanking = GraphRanking{}
	withGraph := DefaultRanking
	withGraph.GraphRanking = GraphRanking{Neighbors: 0.1, PPR: 0.5, Linked: 0.3, Central: 0.1}
	for _, q := range benchQueries { // warm the page cache and the graph
		if _, err := s.Search(ctx, q, Options{Ranking: &withGraph}); err != nil {
			b.Fatal(err)
		}
	}
	var lat, base []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := benchQueries[i%len(benchQueries)]
		t0 := time.Now()
		if _, err := s.Search(ctx, q, Options{Ranking: &withGraph}); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := s.Search(ctx, q, Options{Ranking: &plain}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, t1.Sub(t0))
		base = append(base, time.Since(t1))
	}
	b.StopTimer()
	for _, l := range [][]time.Duration{lat, base} {
		sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
	}
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "graph-p50-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "graph-p95-ms")
	b.ReportMetric(float64(base[len(base)/2].Microseconds())/1000, "plain-p50-ms")
	b.ReportMetric(float64(base[len(base)*95/100].Microseconds())/1000, "plain-p95-ms")
}
