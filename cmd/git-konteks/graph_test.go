package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGraphCommandFromCache: `graph NAME` answers the same whether it
// builds the graph cache, reads it, or finds it missing or damaged.
func TestGraphCommandFromCache(t *testing.T) {
	t.Parallel()
	r := mixedRepo(t)
	r.Commit("mixed")
	extractJSON(t, r.Dir)
	names := []string{"cmd/app/main.go", "internal/store", "Store.Get", "main.go"}
	first := map[string]string{}
	for _, n := range names {
		first[n] = run(t, r.Dir, "graph", "--json", n)
	}
	cache := filepath.Join(r.Dir, ".git", "konteks", "graph")
	es, err := os.ReadDir(cache)
	if err != nil || len(es) != 1 {
		t.Fatalf("one cache file expected: %v %v", es, err)
	}
	check := func(when string) {
		t.Helper()
		for _, n := range names {
			if got := run(t, r.Dir, "graph", "--json", n); got != first[n] {
				t.Fatalf("%s: graph %s changed:\n%s\nwas\n%s", when, n, got, first[n])
			}
		}
	}
	check("from the cache")
	if err := os.RemoveAll(cache); err != nil {
		t.Fatal(err)
	}
	check("cache removed")
	p := filepath.Join(cache, es[0].Name())
	if err := os.WriteFile(p, []byte("not a graph"), 0o644); err != nil {
		t.Fatal(err)
	}
	check("cache damaged")
}
