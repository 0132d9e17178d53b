package recall

import (
	"context"
	"os"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/konteks/git-konteks/gitstore"
)

// benchQueries are tasks a person might give an agent working on the Go
// tree (scripts/bench-recall.sh commits it into a repository).
var benchQueries = []string{
	"parse HTTP request headers",
	"how does the garbage collector decide when to start a cycle",
	"add a timeout to DNS lookups",
	"gzip writer compression level",
	"where are goroutine stacks grown",
	"JSON decoding of struct field tags",
	"TLS handshake client certificate verification",
	"format a time with a layout string",
	"sort a slice with a custom less function",
	"escape analysis of closures in the compiler",
	"read a zip archive's central directory",
	"map iteration order randomization",
	"retry on EINTR in system calls",
	"regular expression syntax parsing",
	"URL query parameter encoding",
	"mutex starvation mode",
	"utf8 decode rune from string",
	"build constraints in file names",
	"go vet printf format checks",
	"channel close panics on closed channel",
}

// BenchmarkQuery measures in-process query latency (index already open)
// on the repository KONTEKS_BENCH_REPO names, reporting p50 and p95.
func BenchmarkQuery(b *testing.B) {
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
		if _, err := s.Search(ctx, q, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	var lat []time.Duration
	b.ResetTimer()
	c0 := cpuTime()
	for i := 0; i < b.N; i++ {
		q := benchQueries[i%len(benchQueries)]
		t0 := time.Now()
		if _, err := s.Search(ctx, q, Options{}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*90/100].Microseconds())/1000, "p90-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
	// CPU time (all threads) says more than wall time on a shared machine.
	b.ReportMetric((cpuTime()-c0).Seconds()*1000/float64(b.N), "cpu-ms/op")
}

// cpuTime is the process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
