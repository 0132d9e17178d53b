package index

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/konteks/git-konteks/embed"
	"github.com/konteks/git-konteks/internal/benchrepo"
	"github.com/konteks/git-konteks/memref"
)

// benchRepo opens the benchmark repository and its memory
// (scripts/bench-recall.sh: a large real tree with memory extracted).
var benchRepo = benchrepo.Open

// BenchmarkColdBuild builds the index from the memory ref from scratch, as
// the first query after a fetch does: without vectors (the floor), with
// the built-in model's vectors computed (no local cache: a fresh clone),
// and with them taken from the local cache (a rebuild on this machine).
func BenchmarkColdBuild(b *testing.B) {
	repo, mem := benchRepo(b)
	cache, err := cachePath(repo, embed.LocalModel)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name, model string
		cached      bool
	}{{"lexical-only", "", false}, {"computed", embed.LocalModel, false}, {"cached", embed.LocalModel, true}} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				if !c.cached {
					os.Remove(cache)
				} else if _, err := os.Stat(cache); err != nil {
					// Make the cache first.
					ix, err := Open(context.Background(), repo, mem, Options{Model: c.model, Rebuild: true})
					if err != nil {
						b.Fatal(err)
					}
					ix.Close()
				}
				b.StartTimer()
				c0 := cpuTime()
				ix, err := Open(context.Background(), repo, mem, Options{Model: c.model, Rebuild: true})
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				b.ReportMetric(float64(ix.Len()), "sections")
				b.ReportMetric(float64(ix.Vectors()), "vectors")
				b.ReportMetric(float64(ix.meta.Computed), "computed")
				b.ReportMetric((cpuTime() - c0).Seconds(), "cpu-s")
				ix.Close()
			}
		})
	}
}

// BenchmarkLocalVectorsInRef reports what the built-in model's vectors of
// this memory would weigh in the memory ref (as versions that stored them
// wrote them: zstd shards of 4,096 hash prefixes), read from the local
// cache an earlier build left.
func BenchmarkLocalVectorsInRef(b *testing.B) {
	repo, mem := benchRepo(b)
	p, err := cachePath(repo, embed.LocalModel)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		ix, err := Open(context.Background(), repo, mem, Options{Model: embed.LocalModel, Rebuild: true})
		if err != nil {
			b.Fatal(err)
		}
		ix.Close()
	}
	c, err := openVecCache(p, embed.LocalModel, embed.LocalDim)
	if err != nil {
		b.Fatal(err)
	}
	defer c.close()
	for i := 0; i < b.N; i++ {
		shards := map[string][]embed.Entry{}
		for j := 0; j < c.n; j++ {
			var k embed.Key
			copy(k[:], c.keys[16*j:])
			q, _ := c.get(k)
			n := k.String()[:3]
			shards[n] = append(shards[n], embed.Entry{Key: k, Quantized: q})
		}
		size := 0
		for _, es := range shards {
			enc, err := embed.EncodeShard(embed.LocalDim, es)
			if err != nil {
				b.Fatal(err)
			}
			size += len(enc)
		}
		b.ReportMetric(float64(c.n), "vectors")
		b.ReportMetric(float64(size)/1e6, "MB")
	}
}

// BenchmarkUpdate brings a generation of the memory commit before the
// newest up to date with the newest (scripts/bench-recall.sh makes it a
// one-file change), as the first query after a small extraction does.
func BenchmarkUpdate(b *testing.B) {
	repo, mem := benchRepo(b)
	c, err := repo.Commit(mem.Commit)
	if err != nil || len(c.ParentHashes) == 0 {
		b.Skip("the memory commit has no parent: make a one-file change and extract")
	}
	prev, err := memref.ReadCommit(repo, c.ParentHashes[0])
	if err != nil {
		b.Fatal(err)
	}
	base := b.TempDir()
	if _, err := build(context.Background(), repo, prev, base, Options{Model: embed.LocalModel}); err != nil {
		b.Fatal(err)
	}
	old, err := openGen(base, true)
	if err != nil {
		b.Fatal(err)
	}
	defer old.Close()
	changes, err := memref.DiffRecords(repo, prev.Tree, mem.Tree)
	if err != nil {
		b.Fatal(err)
	}
	if len(changes) > maxUpdate {
		b.Skipf("the last memory change touches %d records: Open would build, not update", len(changes))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dir := filepath.Join(b.TempDir(), "g")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		c0 := cpuTime()
		if _, err := update(context.Background(), repo, old, changes, mem, dir, Options{Model: embed.LocalModel}); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric((cpuTime()-c0).Seconds()*1000, "cpu-ms")
		b.ReportMetric(float64(len(changes)), "changes")
	}
}

var cpuTime = benchrepo.CPUTime
