package mcp

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/konteks/git-konteks/internal/benchrepo"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

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
	dir := benchrepo.Dir(b)
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

// timeCalls times b.N calls after a warm-up (the index opens in the
// first) and reports p50, p90 and p95.
func timeCalls(b *testing.B, f func(task string) error) {
	benchrepo.Time(b, f).Report(b, "", 50, 90, 95)
}
