package mcp

import (
	"context"
	"os"
	"os/exec"
	"sort"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchTasks are tasks a person might give an agent working on the Go
// tree (scripts/bench-mcp.sh commits it into a repository).
var benchTasks = []string{
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

// BenchmarkMCPRecall and BenchmarkMCPContext measure tool latency on the
// repository KONTEKS_BENCH_REPO names (with memory extracted), reporting
// p50 and p95:
//
//   - handler: the tool's handler in the server process (search,
//     freshness, saved-memory matching, rendering), the index open;
//   - inmemory: a call through the SDK over in-memory transports (adds
//     JSON-RPC, input and output schema validation);
//   - stdio: a call to `git-konteks mcp` as a subprocess (KONTEKS_BENCH_BIN),
//     as an agent makes it.
func BenchmarkMCPRecall(b *testing.B) {
	benchTool(b, ToolRecall, func(task string) map[string]any { return map[string]any{"task": task} },
		func(s *Server, ctx context.Context, task string) error {
			_, _, err := s.recall(ctx, nil, RecallInput{Task: task})
			return err
		})
}

func BenchmarkMCPContext(b *testing.B) {
	benchTool(b, ToolContext, func(task string) map[string]any { return map[string]any{"task": task} },
		func(s *Server, ctx context.Context, task string) error {
			_, _, err := s.context(ctx, nil, ContextInput{Task: task})
			return err
		})
}

func benchTool(b *testing.B, tool string, args func(string) map[string]any, handler func(*Server, context.Context, string) error) {
	dir := os.Getenv("KONTEKS_BENCH_REPO")
	if dir == "" {
		b.Skip("KONTEKS_BENCH_REPO not set (see scripts/bench-mcp.sh)")
	}
	ctx := context.Background()
	s, err := New(ctx, Options{Dir: dir, ToolVersion: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	b.Run("handler", func(b *testing.B) {
		timeCalls(b, func(task string) error { return handler(s, ctx, task) })
	})
	cs, stop := pipe(b, s)
	defer stop()
	b.Run("inmemory", func(b *testing.B) {
		timeCalls(b, func(task string) error {
			_, err := call(b, cs, tool, args(task), nil)
			return err
		})
	})
	b.Run("stdio", func(b *testing.B) {
		bin := os.Getenv("KONTEKS_BENCH_BIN")
		if bin == "" {
			b.Skip("KONTEKS_BENCH_BIN not set")
		}
		cmd := exec.Command(bin, "mcp")
		cmd.Dir = dir
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		timeCalls(b, func(task string) error {
			_, err := call(b, cs, tool, args(task), nil)
			return err
		})
	})
}

// timeCalls runs every task once to warm caches (the index opens in the
// first), then times b.N calls and reports p50 and p95.
func timeCalls(b *testing.B, f func(task string) error) {
	for _, t := range benchTasks {
		if err := f(t); err != nil {
			b.Fatal(err)
		}
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if err := f(benchTasks[i%len(benchTasks)]); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*90/100].Microseconds())/1000, "p90-ms")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
}
