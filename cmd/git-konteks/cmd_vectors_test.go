package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/konteks/git-konteks/embed"
	"github.com/konteks/git-konteks/mcp"
)

// TestHooksKeepVectorRecall: in a repository with hooks installed, the
// background runner warms the index with the configured (built-in)
// embedder, so recall and the MCP recall tool answer with vectors and no
// lexical-only note. The runner used to warm without an embedder, and
// every later question was lexical-only and told the user to run an
// extraction that could not fix it.
func TestHooksKeepVectorRecall(t *testing.T) {
	t.Parallel()
	r := recallRepo(t)
	run(t, r.Dir, "hooks", "install")
	r.Write("fetch/jitter.go", "package fetch\n\n// Jitter spreads the retries of many clients apart with randomness.\nfunc Jitter() {}\n")
	head := r.Commit("jitter")
	waitForMemory(t, r, head)
	waitForLog(t, r, "caches warmed", 60*time.Second, "caches never warmed")
	// The generation the runner built is the built-in model's, with
	// vectors, and memory stores none of them.
	gen, err := os.ReadFile(filepath.Join(r.Dir, ".git", "konteks", "index", "current"))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Model   string `json:"model"`
		Vectors int    `json:"vectors"`
	}
	b, err := os.ReadFile(filepath.Join(r.Dir, ".git", "konteks", "index", strings.TrimSpace(string(gen)), "meta.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &meta); err != nil || meta.Model != embed.Builtin().Model() || meta.Vectors == 0 {
		t.Fatalf("warmed generation: %+v (%v)", meta, err)
	}
	if out := r.Git("ls-tree", "refs/konteks", "vectors"); out != "" {
		t.Fatalf("memory stores the built-in model's vectors: %s", out)
	}

	for _, mode := range []string{"hybrid", "vector"} {
		out, errOut, err := tryRun(r.Dir, nil, "recall", "--json", "--mode", mode, "spread retries apart with randomness")
		if err != nil {
			t.Fatalf("recall --mode %s: %v\n%s", mode, err, errOut)
		}
		if !strings.Contains(out, `"fetch/jitter.go"`) {
			t.Fatalf("recall --mode %s does not find the new file:\n%s", mode, out)
		}
		if strings.Contains(errOut, "lexical") || strings.Contains(errOut, "no vectors") {
			t.Fatalf("recall --mode %s after the runner warmed: %s", mode, errOut)
		}
	}
	if gen2, _ := os.ReadFile(filepath.Join(r.Dir, ".git", "konteks", "index", "current")); string(gen2) != string(gen) {
		t.Fatalf("recall did not use the warmed generation: %s, then %s", gen, gen2)
	}

	cs := mcpClient(t, r.Dir)
	for _, mode := range []string{"hybrid", "vector"} {
		var res mcp.RecallOutput
		callMCP(t, cs, "recall", map[string]any{"task": "spread retries apart with randomness", "mode": mode}, &res)
		if res.Mode != mode || len(res.Hits) == 0 || res.Hits[0].Path != "fetch/jitter.go" {
			t.Fatalf("MCP recall --mode %s: mode %s, hits %+v", mode, res.Mode, res.Hits)
		}
		for _, n := range res.Notes {
			if strings.Contains(n, "lexical") || strings.Contains(n, "no vectors") {
				t.Fatalf("MCP recall --mode %s note: %s", mode, n)
			}
		}
	}
}
