package section_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/konteks/git-konteks/extract/section"
	"github.com/konteks/git-konteks/extract/section/code"
	"github.com/konteks/git-konteks/memory"
)

// goroot is the Go tree the benchmarks read real code from.
func goroot() string {
	if r := runtime.GOROOT(); r != "" {
		if _, err := os.Stat(filepath.Join(r, "src")); err == nil {
			return r
		}
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// goSourceFiles reads the Go files (tests included) of
// $GOROOT/src/net/http and $GOROOT/src/go/types, not their
// subdirectories; nil when absent.
func goSourceFiles(tb testing.TB) []section.Input {
	root := goroot()
	if root == "" {
		return nil
	}
	var ins []section.Input
	for _, dir := range []string{"net/http", "go/types"} {
		paths, _ := filepath.Glob(filepath.Join(root, "src", filepath.FromSlash(dir), "*.go"))
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				tb.Fatal(err)
			}
			ins = append(ins, section.Input{Path: dir + "/" + filepath.Base(p), Language: "Go", Content: b})
		}
	}
	return ins
}

// splitGoSource runs the code sectioner over the Go source files: the
// real input Finish sees in an extraction.
func splitGoSource(tb testing.TB) ([]section.Input, []section.Result, int64) {
	ins := goSourceFiles(tb)
	if len(ins) == 0 {
		tb.Skip("no Go source under $GOROOT/src")
	}
	var total int64
	var ress []section.Result
	for _, in := range ins {
		res, ok, reason := code.Split(in)
		if !ok {
			tb.Fatalf("%s: %s", in.Path, reason)
		}
		ress = append(ress, res)
		total += int64(len(in.Content))
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
	cpu0 := cpuTime()
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
	if cpu := (cpuTime() - cpu0).Seconds(); cpu > 0 {
		b.ReportMetric(float64(total)*float64(b.N)/cpu/1e6, "MB/cpu-s")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
