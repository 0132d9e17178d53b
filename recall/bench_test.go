package recall

import (
	"context"
	"testing"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/internal/benchrepo"
)

// benchSearcher opens a searcher on the benchmark repository
// (scripts/bench-recall.sh), closed when the benchmark ends.
func benchSearcher(b *testing.B) *Searcher {
	repo, err := gitstore.Open(benchrepo.Dir(b))
	if err != nil {
		b.Fatal(err)
	}
	s, err := Open(context.Background(), repo, OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// BenchmarkQuery measures in-process query latency (index already open)
// on the benchmark repository, reporting p50, p90, p95 and CPU per query.
func BenchmarkQuery(b *testing.B) {
	s, ctx := benchSearcher(b), context.Background()
	t := benchrepo.Time(b, func(q string) error {
		_, err := s.Search(ctx, q, Options{})
		return err
	})
	t.Report(b, "", 50, 90, 95)
	t.ReportCPU(b, "")
}

// BenchmarkContext measures in-process context pack latency (index
// already open) on the benchmark repository, reporting p50 and p95.
func BenchmarkContext(b *testing.B) {
	s, ctx := benchSearcher(b), context.Background()
	benchrepo.Time(b, func(q string) error {
		_, err := s.Context(ctx, q, PackOptions{})
		return err
	}).Report(b, "")
}

// BenchmarkQueryGraph is BenchmarkQuery with every graph signal on
// (graph), next to the same queries without it (plain).
func BenchmarkQueryGraph(b *testing.B) {
	s, ctx := benchSearcher(b), context.Background()
	for _, g := range []struct {
		name string
		rk   GraphRanking
	}{{"graph", GraphRanking{Neighbors: 0.1, PPR: 0.5, Linked: 0.3, Central: 0.1}}, {"plain", GraphRanking{}}} {
		rk := DefaultRanking
		rk.GraphRanking = g.rk
		b.Run(g.name, func(b *testing.B) {
			benchrepo.Time(b, func(q string) error {
				_, err := s.Search(ctx, q, Options{Ranking: &rk})
				return err
			}).Report(b, "")
		})
	}
}
