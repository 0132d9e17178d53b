package mcp

import (
	"context"
	"strings"
	"testing"

	"github.com/konteks/git-konteks/internal/testgit"
)

func TestHistoryTools(t *testing.T) {
	testgit.Setenv(t)
	r := fixture(t)
	r.Write("internal/store/store.go", "package store\n\n// Store keeps values.\ntype Store struct{ m map[string]string }\n")
	r.Commit("Store keeps values in a map for speed")
	r.Git("mv", "internal/store/store.go", "internal/store/kv.go")
	r.Commit("Rename store.go to kv.go")
	extractIn(t, r.Dir)
	s, err := New(context.Background(), Options{Dir: r.Dir, ToolVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s)
	var why WhyOutput
	text, err := call(t, cs, ToolWhy, map[string]any{"target": "internal/store/kv.go"}, &why)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "Store keeps values in a map for speed") || len(why.Commits) != 3 || why.Names[1] != "internal/store/store.go" {
		t.Fatalf("why:\n%s\n%+v", text, why)
	}
	var hist HistoryOutput
	text, err = call(t, cs, ToolHistory, map[string]any{"question": "values in a map", "limit": 2}, &hist)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist.Hits) == 0 || hist.Hits[0].Subject != "Store keeps values in a map for speed" || !strings.Contains(text, "internal/store/store.go") {
		t.Fatalf("history:\n%s", text)
	}
	if _, err := call(t, cs, ToolWhy, map[string]any{"target": "../x"}, nil); err == nil || !strings.Contains(err.Error(), "target") {
		t.Fatalf("bad target: %v", err)
	}
}
