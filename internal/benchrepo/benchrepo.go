// Package benchrepo is what the benchmarks over a large real repository
// share: the repository KONTEKS_BENCH_REPO names (scripts/bench-recall.sh
// and scripts/bench-mcp.sh make one with memory extracted), the tasks they
// time, and latency and CPU figures reported the same way everywhere.
package benchrepo

import (
	"os"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/konteks/git-konteks/gitstore"
	"github.com/konteks/git-konteks/memory"
	"github.com/konteks/git-konteks/memref"
)

// Var names the repository the benchmarks run on.
const Var = "KONTEKS_BENCH_REPO"

// Tasks are tasks a person might give an agent working on the Go tree
// (the benchmarks' usual repository).
var Tasks = []string{
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

// Dir is the repository's directory; the benchmark is skipped when Var
// is not set.
func Dir(b testing.TB) string {
	b.Helper()
	dir := os.Getenv(Var)
	if dir == "" {
		b.Skip(Var + " is not set (scripts/bench-recall.sh makes the repository)")
	}
	return dir
}

// Open opens the repository and reads its memory; a repository without
// memory fails the benchmark.
func Open(b testing.TB) (*gitstore.Repo, *memref.Memory) {
	b.Helper()
	dir := Dir(b)
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

// Timing is what Time measured: each call's wall time, and the CPU time
// of all of them (every thread of the process).
type Timing struct {
	Calls []time.Duration
	CPU   time.Duration
}

// Time runs f once per task to warm caches, then times b.N calls over the
// tasks in turn.
func Time(b *testing.B, f func(task string) error) Timing {
	b.Helper()
	for _, t := range Tasks {
		if err := f(t); err != nil {
			b.Fatal(err)
		}
	}
	t := Timing{Calls: make([]time.Duration, 0, b.N)}
	b.ResetTimer()
	c0 := CPUTime()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if err := f(Tasks[i%len(Tasks)]); err != nil {
			b.Fatal(err)
		}
		t.Calls = append(t.Calls, time.Since(t0))
	}
	t.CPU = CPUTime() - c0
	b.StopTimer()
	return t
}

// Report reports the calls' percentiles pcts (p50 and p95 when none) in
// milliseconds, as PREFIXpNN-ms.
func (t Timing) Report(b *testing.B, prefix string, pcts ...int) {
	if len(t.Calls) == 0 {
		return
	}
	if len(pcts) == 0 {
		pcts = []int{50, 95}
	}
	s := slices.Clone(t.Calls)
	slices.Sort(s)
	for _, p := range pcts {
		b.ReportMetric(float64(s[len(s)*p/100].Microseconds())/1000, prefix+"p"+strconv.Itoa(p)+"-ms")
	}
}

// ReportCPU reports the CPU time per call in milliseconds, as
// PREFIXcpu-ms/op.
func (t Timing) ReportCPU(b *testing.B, prefix string) {
	if len(t.Calls) > 0 {
		b.ReportMetric(t.CPU.Seconds()*1000/float64(len(t.Calls)), prefix+"cpu-ms/op")
	}
}

// CPUTime is the process's user and system CPU time so far: on a shared
// machine it says more than wall time.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
