package section_test

import (
	"testing"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/extract/section/code"
	"github.com/konteks/git-konteks/extract/section/sectiontest"
	"github.com/konteks/git-konteks/internal/benchrepo"
	"github.com/konteks/git-konteks/memory"
)

// splitGoSource runs the code sectioner over the Go source files: the
// real input Finish sees in an extraction.
func splitGoSource(tb testing.TB) ([]section.Input, []section.Result, int64) {
	ins, total := sectiontest.GoSource(tb, "net/http", "go/types")
	var ress []section.Result
	for _, in := range ins {
		res, ok, reason := code.Split(in)
		if !ok {
			tb.Fatalf("%s: %s", in.Path, reason)
		}
		ress = append(ress, res)
	}
	return ins, ress, total
}

// BenchmarkFinishGoSource measures section.Finish on the code sectioner's
// output for the Go files of net/http and go/types. Split runs once,
// outside the timing; each iteration finishes fresh copies of its
// results. MB/s is source bytes through Finish; MB/cpu-s is the same per
// CPU-second of the whole process (GC included), which stays meaningful
// on a machine shared with other work.
func BenchmarkFinishGoSource(b *testing.B) {
	ins, ress, total := splitGoSource(b)
	work := make([]section.Result, len(ress))
	secs := make([][]memory.Section, len(ress))
	for i := range ress {
		secs[i] = make([]memory.Section, len(ress[i].Sections))
	}
	b.SetBytes(total)
	b.ReportAllocs()
	cpu0 := benchrepo.CPUTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for j := range ress {
			copy(secs[j], ress[j].Sections)
			work[j] = ress[j]
			work[j].Sections = secs[j]
		}
		b.StartTimer()
		for j := range work {
			section.Finish(&work[j], ins[j])
		}
	}
	b.StopTimer()
	if cpu := (benchrepo.CPUTime() - cpu0).Seconds(); cpu > 0 {
		b.ReportMetric(float64(total)*float64(b.N)/cpu/1e6, "MB/cpu-s")
	}
}
