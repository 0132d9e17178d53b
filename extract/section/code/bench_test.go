package code

import (
	"sync"
	"testing"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/extract/section/sectiontest"
	"github.com/konteks/git-konteks/internal/benchrepo"
)

// BenchmarkSplitGo sections the real Go files of net/http; MB/s is
// source bytes through parse + query + sections, on one goroutine.
func BenchmarkSplitGo(b *testing.B) {
	ins, total := sectiontest.GoSource(b, "net/http")
	if _, ok, reason := Split(ins[0]); !ok { // compile the query outside the timing
		b.Fatal(reason)
	}
	b.SetBytes(total)
	b.ReportAllocs()
	cpu0 := benchrepo.CPUTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, in := range ins {
			if _, ok, reason := Split(in); !ok {
				b.Fatalf("%s: %s", in.Path, reason)
			}
		}
	}
	b.StopTimer()
	// MB per CPU-second of the whole process (GC included): what one
	// core does, whatever else the machine is running.
	if cpu := (benchrepo.CPUTime() - cpu0).Seconds(); cpu > 0 {
		b.ReportMetric(float64(total)*float64(b.N)/cpu/1e6, "MB/cpu-s")
	}
}

// BenchmarkSplitGoParallel runs Split on all cores at once (pooled
// parsers, one shared query); MB/s is the whole machine's.
func BenchmarkSplitGoParallel(b *testing.B) {
	ins, total := sectiontest.GoSource(b, "net/http")
	b.SetBytes(total)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			for _, in := range ins {
				if _, ok, reason := Split(in); !ok {
					b.Errorf("%s: %s", in.Path, reason)
					return
				}
			}
		}
	})
}

// BenchmarkSplitWorkers is sectioning alone as extraction runs it: two
// workers (this machine's cores) taking net/http's Go files from a queue.
// MB/s is wall-clock throughput of the pair; MB/cpu-s what one core does.
// "tree-sitter" turns go/parser off, "go-parser" is what Split does for Go.
func BenchmarkSplitWorkers(b *testing.B) {
	ins, total := sectiontest.GoSource(b, "net/http")
	for _, tc := range []struct {
		name     string
		goParser bool
	}{{"tree-sitter", false}, {"go-parser", true}} {
		b.Run(tc.name, func(b *testing.B) {
			defer func(v bool) { useGoParser = v }(useGoParser)
			useGoParser = tc.goParser
			if _, ok, reason := Split(ins[0]); !ok { // compile the query outside the timing
				b.Fatal(reason)
			}
			b.SetBytes(total)
			cpu0 := benchrepo.CPUTime()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				jobs := make(chan section.Input, len(ins))
				for _, in := range ins {
					jobs <- in
				}
				close(jobs)
				var wg sync.WaitGroup
				for w := 0; w < 2; w++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for in := range jobs {
							if _, ok, reason := Split(in); !ok {
								b.Errorf("%s: %s", in.Path, reason)
							}
						}
					}()
				}
				wg.Wait()
			}
			b.StopTimer()
			if cpu := (benchrepo.CPUTime() - cpu0).Seconds(); cpu > 0 {
				b.ReportMetric(float64(total)*float64(b.N)/cpu/1e6, "MB/cpu-s")
			}
		})
	}
}
