package graph

import (
	"context"
	"os"
	"testing"

	"github.com/konteks/git-konteks/internal/benchrepo"
	"github.com/konteks/git-konteks/memref"
)

// benchMemory opens the benchmark repository and its memory (the Go
// toolchain's src, say; see scripts/bench-recall.sh).
var benchMemory = benchrepo.Open

func BenchmarkFind(b *testing.B) {
	repo, mem := benchMemory(b)
	for i := 0; i < b.N; i++ {
		if _, err := Find(repo, mem, "ReadAll", 10); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOpen(b *testing.B) {
	repo, mem := benchMemory(b)
	for i := 0; i < b.N; i++ {
		g, err := Open(context.Background(), repo, mem)
		if err != nil {
			b.Fatal(err)
		}
		g.Close()
	}
}

func BenchmarkPersonalized(b *testing.B) {
	repo, mem := benchMemory(b)
	g, err := Open(context.Background(), repo, mem)
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	seeds := map[int]float64{}
	for _, p := range []string{"net/http/server.go", "net/http/request.go", "net/http/header.go", "net/textproto/reader.go"} {
		seeds[g.File(p)] = 1
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		g.Personalized(seeds, 1e-4)
	}
}

// BenchmarkUpdate: the cache of the newest memory commit made again from
// the previous commit's cache (run after a one-file change and extract).
func BenchmarkUpdate(b *testing.B) {
	repo, mem := benchMemory(b)
	// The base: the cache of the previous memory commit.
	c, err := repo.Commit(mem.Commit)
	if err != nil || len(c.ParentHashes) == 0 {
		b.Skip("memory has no previous commit: make a one-file change and extract")
	}
	prev, err := memref.ReadCommit(repo, c.ParentHashes[0])
	if err != nil {
		b.Fatal(err)
	}
	if err := Remove(repo, mem); err != nil {
		b.Fatal(err)
	}
	pg, err := Open(context.Background(), repo, prev)
	if err != nil {
		b.Fatal(err)
	}
	pg.Close()
	for i := 0; i < b.N; i++ {
		if err := Remove(repo, mem); err != nil {
			b.Fatal(err)
		}
		g, err := Open(context.Background(), repo, mem)
		if err != nil {
			b.Fatal(err)
		}
		if g.How != "update" {
			b.Fatalf("how %s", g.How)
		}
		g.Close()
	}
}

// BenchmarkBuild: the cache built from every record.
func BenchmarkBuild(b *testing.B) {
	repo, mem := benchMemory(b)
	dir, err := CacheDir(repo)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		os.RemoveAll(dir)
		g, err := Open(context.Background(), repo, mem)
		if err != nil {
			b.Fatal(err)
		}
		g.Close()
	}
}
