package extract

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/konteks/git-konteks/internal/testgit"
	"github.com/konteks/git-konteks/memory"
)

func TestLLMSummarizer(t *testing.T) {
	var calls, fail atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		n := calls.Add(1)
		if n == 1 || fail.Load() == 1 { // the first call is rate limited; later all fail when asked
			w.Header().Set("Retry-After", "0")
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return
		}
		body, _ := io.ReadAll(req.Body)
		var cr chatRequest
		json.Unmarshal(body, &cr)
		if cr.Model != "test-model" || len(cr.Messages) != 2 || !strings.Contains(cr.Messages[1].Content, "Entries") {
			http.Error(w, "bad request", 400)
			return
		}
		dir := strings.TrimPrefix(strings.SplitN(cr.Messages[1].Content, "\n", 2)[0], "Directory: ")
		answer, _ := json.Marshal(map[string]string{"l0": "LLM says " + dir + " is important.", "l1": "A longer LLM paragraph about " + dir + "."})
		json.NewEncoder(w).Encode(map[string]any{
			"choices": []any{map[string]any{"message": map[string]string{"role": "assistant", "content": string(answer)}}},
			"usage":   map[string]int{"total_tokens": 100},
		})
	}))
	defer srv.Close()

	r := testgit.New(t)
	r.WriteFiles(map[string]string{"a/x.go": "package a\n", "a/b/y.go": "package b\n", "README.md": "# R\n\nRoot.\n"})
	r.Commit("tree")
	r.Git("config", "konteks.llm.url", srv.URL+"/v1/")
	r.Git("config", "konteks.llm.model", "test-model")
	r.Git("config", "konteks.llm.concurrency", "2")
	repo := openRepo(t, r)
	res, err := Run(context.Background(), repo, Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Manifest
	if m.Summarizer != "llm:test-model" || m.Run.LLMTokens != 300 || m.Run.LLMFailures != 0 {
		t.Fatalf("manifest: summarizer %q tokens %d failures %d", m.Summarizer, m.Run.LLMTokens, m.Run.LLMFailures)
	}
	b := r.Git("cat-file", "-p", "refs/konteks:"+memory.DirSummaryPath("a/b"))
	if !strings.Contains(b, "LLM says a/b is important.") || !strings.Contains(b, "A longer LLM paragraph about a/b.") {
		t.Fatalf("a/b summary:\n%s", b)
	}
	// The parent was summarized after its child, from the child's new L0.
	if b := r.Git("cat-file", "-p", "refs/konteks:"+memory.DirSummaryPath("a")); !strings.Contains(b, `"l0":"LLM says a/b is important."`) {
		t.Fatalf("a summary did not see b's LLM L0:\n%s", b)
	}
	// When the endpoint fails, summaries fall back to the built-in text.
	fail.Store(1)
	r.Write("a/b/z.go", "// Package b is the bee.\npackage b\n")
	r.Commit("more")
	res, err = Run(context.Background(), repo, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Manifest.Run.LLMFailures == 0 {
		t.Fatal("failures not counted")
	}
	if b := r.Git("cat-file", "-p", "refs/konteks:"+memory.DirSummaryPath("a/b")); !strings.Contains(b, "builtin-v") {
		t.Fatalf("no built-in fallback:\n%s", b)
	}
}
